"""The preflight reads the page: each promise a book's pages make fails on a small PDF made to break it (WeasyPrint,
with the books' own page geometry) and passes on one that keeps it.

``test_print_editions.py`` and ``test_book_pages.py`` run the same checks on the real books.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from rulepress.cli import main
from rulepress.publish import pagechecks, pdfread
from rulepress.publish.preflight import Finding, preflight_pdf, preflight_read
from rulepress.render import pdf as _pdf

from .conftest import ROOT

weasyprint = _pdf.weasyprint
FONT = (f'@font-face {{ font-family: "Rulepress Sans"; src: url("{_pdf.FONTS.as_uri()}/DejaVuSans.ttf") }}'
        'html { font: 9pt/1.4 "Rulepress Sans" } p { margin: 0 }')
# The books' text block (17 mm above, 18 mm below) with their running head and folio; no gutter (a digital page).
HEAD = ("@top-center {{ content: string(chapter, {which}); font-size: 7.5pt; vertical-align: bottom; "
        "padding-bottom: 4mm }}")
PAGE = ("@page {{ size: A5; margin: 17mm 14.5mm 18mm 14.5mm; " + HEAD +
        " @bottom-center { content: counter(page); vertical-align: top; padding-top: 5mm } }}"
        "@page cover { @top-center { content: none } }"
        "h1 { string-set: chapter content(text); break-before: page; font-size: 14pt; margin: 0 0 4mm }"
        ".cover { page: cover; break-before: page }")
LINE = "<p>Rules text that runs along the whole width of the text block.</p>"  # one line: some 39 fill a page


def book_pdf(target: Path, body: str, which: str = "start", css: str = "") -> Path:
    """A book: a cover, ``body`` (chapters), a back cover; running heads from ``string(chapter, which)``."""
    page = PAGE.replace("{which}", which).replace("{{", "{").replace("}}", "}")
    source = (f"<html lang='en'><head><style>{FONT}{page}{css}</style></head><body>"
              f"<section class='cover'><p>Cover</p></section>{body}<section class='cover'><p>Back</p></section>"
              "</body></html>")
    weasyprint.HTML(string=source).write_pdf(target)
    return target


def found(path: Path, edition: str = "digital", kind: str = "") -> list[Finding]:
    """The page checks' findings (the screen checks of the digital edition left out: these PDFs are not tagged)."""
    with pdfread.read(path, edition) as read:
        return [f for f in pagechecks.check(read) if kind in f.object]


def chapter(title: str, lines: int) -> str:
    return f"<h1>{title}</h1>" + LINE * lines


def test_the_text_block_is_the_one_the_books_are_laid_out_in() -> None:
    """The geometry the page checks read by is the template's: its @page margins, top and bottom."""
    template = resources.files("rulepress.render").joinpath("templates/print.html").read_text(encoding="utf-8")
    margins = re.search(r"@page \{[^@]*?margin: ([\d.]+)mm [\d.]+mm ([\d.]+)mm", template)
    assert margins is not None
    assert (float(margins.group(1)), float(margins.group(2))) == (pdfread.TOP_MM, pdfread.BOTTOM_MM)


# -- pages that flow ----------------------------------------------------------------------------------------


def test_a_page_left_mostly_empty_inside_a_chapter_fails(tmp_path: Path) -> None:
    # Chapter 1: half a page, then three lines forced onto a page of their own, then the chapter goes on.
    body = chapter("1 Turn", 20) + '<div style="break-before: page">' + LINE * 3 + "</div>" + \
        '<div style="break-before: page">' + LINE * 20 + "</div>" + chapter("2 End", 20)
    path = book_pdf(tmp_path / "book-digital.pdf", body)
    findings = found(path, kind="text block")
    assert [f.page for f in findings] == [3]
    assert re.fullmatch(r"filled to \d+% of its height, under 40%: only a chapter's last page may be .*",
                        findings[0].message)


@pytest.mark.parametrize("lines, refused", [(15, True), (17, False)])
def test_forty_percent_is_the_line(tmp_path: Path, lines: int, refused: bool) -> None:
    """A page inside a chapter filled to 38% is refused, one filled to 43% is not (each line some 2.5%)."""
    body = chapter("1 Turn", 20) + f'<div style="break-before: page">{LINE * lines}</div>' + \
        f'<div style="break-before: page">{LINE * 20}</div>'
    path = book_pdf(tmp_path / "book-digital.pdf", body)
    with pdfread.read(path, "digital") as read:
        assert 0.36 < read.pages[2].fill < 0.45, read.pages[2].fill
    assert [f.page for f in found(path, kind="text block")] == ([3] if refused else [])


def test_a_chapters_short_last_page_and_full_pages_pass(tmp_path: Path) -> None:
    # Chapter 1 ends with three lines on its second page (allowed); chapter 2 fills half a page, then the back cover.
    body = chapter("1 Turn", 45) + chapter("2 End", 20)
    path = book_pdf(tmp_path / "book-digital.pdf", body)
    with pdfread.read(path, "digital") as read:
        fills = [round(page.fill, 1) for page in read.pages]
        assert fills[1] > 0.9 and fills[2] < 0.4 and 0.4 < fills[3] < 0.7, fills
        assert pagechecks.chapter_ends(read) == {1, 3, 4, 5}  # before a chapter or the back cover; the last
    assert found(path, kind="text block") == []


def test_a_box_broken_over_the_page_is_no_content(tmp_path: Path) -> None:
    """Three lines of an example box, its diagram moved to the next page: the box's sides reach the foot of the
    page, but its ink does not (the page is some 13% full by ink, over 90% by its objects' bounds): refused."""
    box = ('<div style="border: 0.75pt solid black; border-top-width: 0.75pt; padding: 0 2mm">' + LINE * 3 +
           '<div style="height: 168mm; break-inside: avoid; background: #444"></div></div>')
    body = chapter("1 Turn", 20) + '<div style="break-before: page"></div>' + box + LINE * 20
    path = book_pdf(tmp_path / "book-digital.pdf", body)
    with pdfread.read(path, "digital") as read:
        page = read.pages[2]
        bottom, top = page.block
        reach = (top - min(b.y0 for b in page.inside)) / (top - bottom)
        assert reach > 0.9  # the box's sides run down to the foot: its objects' bounds say the page is full
        assert page.unsure and page.ink is not None and page.fill < 0.2, (page.fill, page.solid)
    assert [f.page for f in found(path, kind="text block")] == [3]


def test_a_thin_rule_at_the_foot_is_no_content_and_a_picture_is(tmp_path: Path) -> None:
    rule = '<div style="margin-top: 120mm; border-top: 0.5pt solid black"></div>'
    picture = '<div style="margin-top: 90mm; height: 20mm; background: #333"></div>'
    body = (chapter("1 Turn", 20) + '<div style="break-before: page">' + LINE * 4 + rule + "</div>"
            + '<div style="break-before: page">' + LINE * 4 + picture + "</div>"
            + '<div style="break-before: page">' + LINE * 30 + "</div>")
    path = book_pdf(tmp_path / "book-digital.pdf", body)
    with pdfread.read(path, "digital") as read:
        thin, dark = read.pages[2], read.pages[3]
        assert thin.fill < 0.15 and not thin.unsure  # a rule under 1.5 pt is never content: nothing to render
        assert dark.unsure and dark.fill > 0.6, dark.fill  # a block of ink is, once the page is rendered
    assert [f.page for f in found(path, kind="text block")] == [3]


def test_an_example_before_a_rule_it_names_from_its_chapter_fails(tmp_path: Path) -> None:
    """Lantern's "Rolling up an adventurer" example (its rules 3.1 to 3.3) printed before rule 3.3 is refused, named
    with the rule and the page it begins on; printed after it, it passes.  The pages are the PDF's destinations."""
    from rulepress.load.book import load_book

    book = load_book(ROOT, "lantern")
    def at(order: list[str]) -> str:
        parts = {"3.1": '<h2 id="ln.setup.roll">3.1 Rolling</h2>' + LINE * 10,
                 "3.3": '<h2 id="ln.setup.assign">3.3 Jobs</h2>' + LINE * 10,
                 "ex": '<section id="ln-setup-assign"><h3>Rolling the adventurer</h3>' + LINE * 5 + "</section>"}
        return "<h1>3 Setup</h1>" + "".join(f'<div style="break-before: page">{parts[p]}</div>' for p in order)
    early = book_pdf(tmp_path / "early.pdf", at(["3.1", "ex", "3.3"]))
    with pdfread.read(early, "print") as read:
        findings = pagechecks.examples_before_rules(read, book)
    assert [(f.page, f.object) for f in findings] == [(4, "example")]
    assert re.match(r"'.+' names rule 3\.3 \(Giving each die a job\), which begins on page 5, after it",
                    findings[0].message), findings[0].message
    late = book_pdf(tmp_path / "late.pdf", at(["3.1", "3.3", "ex"]))
    with pdfread.read(late, "print") as read:
        assert pagechecks.examples_before_rules(read, book) == []


# -- references whole ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("broken, shown", [
    ("Flip a tile (rule<br>8.3, p. 11).", "(rule / 8.3, p. 11)"),
    ("Flip a tile (rule 8.3, p.<br>11).", "(rule 8.3, p. / 11"),
    ("Flip a tile (rule 8.3,<br>p. 11).", "(rule 8.3, / p. 11)"),
    ("Retournez une tuile (règle<br>8.3, p. 11).", "(règle / 8.3, p. 11)"),
    ("Deal as in rule 6.2,<br>p. 9. Once the deck is out", "rule 6.2, / p. 9"),
])
def test_a_reference_broken_over_two_lines_fails(tmp_path: Path, broken: str, shown: str) -> None:
    path = book_pdf(tmp_path / "book-digital.pdf", chapter("1 Turn", 25) + f"<p>{broken}</p>" + LINE * 20)
    findings = found(path, kind="line")
    assert len(findings) == 1 and findings[0].page == 2, findings
    assert f"reference '{shown}" in findings[0].message or shown in findings[0].message, findings[0].message
    assert findings[0].message.endswith("broken across two lines (tie it with no-break spaces)")


def test_a_reference_broken_across_a_page_turn_fails(tmp_path: Path) -> None:
    body = chapter("1 Turn", 30) + "<p>Flip a tile (rule 8.3, p.</p><p style='break-before: page'>11).</p>" + \
        LINE * 30
    findings = found(book_pdf(tmp_path / "book-digital.pdf", body), kind="last line")
    assert [(f.page, f.message) for f in findings] == [
        (2, "reference 'a tile (rule 8.3, p. / 11).' broken across the page turn (tie it with no-break spaces)")]


def test_references_set_whole_pass(tmp_path: Path) -> None:
    """References whole on their line pass; so does a rule number at the start of a line (a table's next row, a
    sentence after a heading ending in "rules"), which is no reference."""
    nbsp = "\u00a0"
    text = (f"Flip a tile<br>(rule{nbsp}8.3,{nbsp}p.{nbsp}11). Rule 4 begins on page 11.<br>See p.{nbsp}12 and 13. "
            "Each effect has its own rule<br>5.1 Using Abilities. Rule coverage, all rules<br>118 of 118.")
    path = book_pdf(tmp_path / "book-digital.pdf", chapter("1 Turn", 25) + f"<p>{text}</p>" + LINE * 20)
    assert found(path, kind="line") == []


# The books' references: "rule 8.3, p. 11" and the contents' leader and number (rulepress/render/templates/print.html).
REFERENCES = (".rule::after { content: ', p. ' target-counter(attr(href), page) }"
              "nav a::after { content: leader('.') target-counter(attr(href), page) }")


def _referring(stale: str = "") -> str:
    """Contents naming three chapters and a rule reference back to the first; ``stale``: a reference of its own."""
    contents = "".join(f"<p><a href='#c{n}'>{n} Turn</a></p>" for n in range(1, 4))
    chapters = "".join(f"<h1 id='c{n}'>{n} Turn</h1>" + LINE * 45 for n in range(1, 4))
    return (f"<nav><h1>Contents</h1>{contents}</nav>{chapters}"
            f"<p>Flip a tile (<a class='rule' href='#c1'>rule 1.1</a>).{stale}</p>")


def test_references_naming_their_targets_pages_pass(tmp_path: Path) -> None:
    path = book_pdf(tmp_path / "book-digital.pdf", _referring(), css=REFERENCES)
    with pdfread.read(path, "digital") as read:
        entries = [link for link in read.pages[1].links if link.text[0].isdigit()]  # the first of each entry's links
        assert [(link.text[-1], link.target) for link in entries] == [("3", 3), ("5", 5), ("7", 7)]
        assert re.search(r"rule 1\.1, p\. 3$", read.pages[-2].links[0].text)  # read back: the check has work
    assert found(path, kind="page reference") == []


@pytest.mark.parametrize("stale, shown", [
    (" See <a href='#c3'>p. 4</a>.", "'p. 4' names page 4, but its link goes to page 7"),  # a glossary term's
    (" See <a href='#c2'>rule 2.1, p. 12)</a>.", "'rule 2.1, p. 12)' names page 12, but its link goes to page 5"),
    (" <a href='#c2'>2 Turn ........ 4</a>", "'2 Turn … 4' names page 4, but its link goes to page 5"),
])
def test_a_reference_naming_another_page_fails(tmp_path: Path, stale: str, shown: str) -> None:
    path = book_pdf(tmp_path / "book-digital.pdf", _referring(stale), css=REFERENCES)
    findings = found(path, kind="page reference")
    assert [(f.page, f.message) for f in findings] == [(8, shown)]


def test_a_page_without_a_folio_is_named_by_its_number_in_the_file(tmp_path: Path) -> None:
    """A plate without a folio (page 9 of the file) is "p. 9"; "p. 8" for it is refused."""
    plate = "<section class='cover' id='plate'><p>Plate</p></section>"
    css = REFERENCES + "@page cover { @bottom-center { content: none } }"
    right = book_pdf(tmp_path / "right-digital.pdf", _referring(" <a href='#plate'>p. 9</a>") + plate, css=css)
    with pdfread.read(right, "digital") as read:
        assert read.pages[8].foot == "" and "Plate" in read.pages[8].text
    assert found(right, kind="page reference") == []
    wrong = book_pdf(tmp_path / "wrong-digital.pdf", _referring(" <a href='#plate'>p. 8</a>") + plate, css=css)
    assert [f.message for f in found(wrong, kind="page reference")] == [
        "'p. 8' names page 8, but its link goes to page 9"]


def test_a_rule_number_alone_is_no_page_reference(tmp_path: Path) -> None:
    path = book_pdf(tmp_path / "book-digital.pdf", _referring(" (<a href='#c2'>rule 4.4</a>)"), css=REFERENCES)
    assert found(path, kind="page reference") == []


# -- running heads ------------------------------------------------------------------------------------------


def _two_chapters_sharing_a_page() -> str:
    """Chapter 2 starts half way down page 3 (no page break before it); chapter 3 opens page 5."""
    return (chapter("1 Turn", 60) + '<h1 style="break-before: auto">2 End of round</h1>' + LINE * 40 +
            chapter("3 Scoring", 10))


def test_a_running_head_naming_a_chapter_that_starts_lower_down_fails(tmp_path: Path) -> None:
    path = book_pdf(tmp_path / "book-digital.pdf", _two_chapters_sharing_a_page(), which="first")
    findings = found(path, kind="running head")
    assert [(f.page, f.message) for f in findings] == [
        (3, "'2 End of round', but the chapter in force at the top of the page is '1 Turn' (it starts lower on this "
            "page)")]


def test_running_heads_of_the_chapter_in_force_at_the_top_pass(tmp_path: Path) -> None:
    path = book_pdf(tmp_path / "book-digital.pdf", _two_chapters_sharing_a_page(), which="start")
    with pdfread.read(path, "digital") as read:
        heads = [page.head for page in read.pages]
        assert heads == ["", "1 Turn", "1 Turn", "2 End of round", "3 Scoring", ""], heads
        assert pagechecks.opening(read.pages[1]) == "1 Turn" and pagechecks.opening(read.pages[2]) is None
    assert found(path, kind="running head") == []


def test_a_chapter_begun_below_the_last_lines_of_the_one_before_does_not_open_its_page(tmp_path: Path) -> None:
    """One line of chapter 1 spills onto page 3, then chapter 2 begins: the page's head is still chapter 1's."""
    body = (chapter("1 Turn", 20) + f'<div style="break-before: page">{LINE}</div>' +
            '<h1 style="break-before: auto">2 End of round</h1>' + LINE * 20)
    path = book_pdf(tmp_path / "book-digital.pdf", body, which="start")
    with pdfread.read(path, "digital") as read:
        assert [page.head for page in read.pages] == ["", "1 Turn", "1 Turn", ""]
        assert pagechecks.opening(read.pages[2]) is None
    assert found(path, kind="running head") == []


def test_the_chapter_in_force_is_the_last_begun_on_the_page_before(tmp_path: Path) -> None:
    """Chapters 2 and 3 both begin on page 3; page 4 goes on with chapter 3, and its head says so."""
    body = (chapter("1 Turn", 60) + '<h1 style="break-before: auto">2 Short</h1>' + LINE * 3 +
            '<h1 style="break-before: auto">3 Long</h1>' + LINE * 40)
    path = book_pdf(tmp_path / "book-digital.pdf", body, which="start")
    with pdfread.read(path, "digital") as read:
        assert [page.head for page in read.pages] == ["", "1 Turn", "1 Turn", "3 Long", ""]
    assert found(path, kind="running head") == []


# -- player editions ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, name, what", [
    ("Playing the last stone ✔ Verified: replayed against the rules engine", "verified badge",
     "✔ Verified: replayed against the rules engine"),
    ("Le dernier coup ✔ Vérifié\u00a0: rejoué par le moteur de règles", "verified badge",
     "✔ Vérifié : rejoué par le moteur de règles"),  # the no-break space before the colon read as a space
    ("She draws the top card of the deck or the rose-2 on the discard pile.", "engine ID", "rose-2"),
    ("When no card is left, the round ends as lm.round.end says.", "rule ID", "lm.round.end"),
    ("She takes the rose-2, and then the rose-2 again.", "engine ID", "rose-2"),  # once a page, however often
])
def test_engine_and_build_marks_in_a_players_edition_fail(tmp_path: Path, text: str, name: str, what: str) -> None:
    path = book_pdf(tmp_path / "book.pdf", chapter("1 Turn", 20) + f"<p>{text}</p>")
    findings = [f for f in found(path, "print") if f.object == "page text"]
    assert len(findings) == 1 and findings[0].page == 2, findings
    assert findings[0].message.startswith(f"{name} '{what}' in a player's edition (…")
    assert findings[0].message.endswith("…): it belongs in the designer edition")
    with pdfread.read(path, "designer") as read:  # the designer edition keeps them
        assert not [f for f in pagechecks.check(read) if f.object == "page text"]


@pytest.mark.parametrize("lang, text, what", [
    ("en", "A designer question asks whether a second roll may be rolled again.", "designer question"),
    ("en", "Two ways to play are left out of this edition.", "edition"),
    ("en", "The solo rules are not written yet.", "not written"),
    ("en", "In a game played from setup this position never comes up.", "never comes up"),
    ("en", "Each example was replayed before printing.", "replayed"),
    ("fr", "La question au concepteur demande si les Lucioles comptent.", "question au concepteur"),
    ("fr", "Chaque exemple a été rejoué avant impression.", "rejoué"),
])
def test_the_workshop_in_a_players_edition_fails(tmp_path: Path, mini: Path, lang: str, text: str,
                                                 what: str) -> None:
    """Each language's workshop words (rulepress/render/strings/<lang>.yaml, workshop_words), in a player's
    edition (print or digital), refuse it, naming the word and how to mark its passage; the designer edition
    keeps them."""
    import dataclasses

    from rulepress.load.book import load_book

    book = dataclasses.replace(load_book(mini, "mini"), language=lang)
    path = book_pdf(tmp_path / "book.pdf", chapter("1 Turn", 20) + f"<p>{text}</p>")
    for edition in ("print", "digital"):
        with pdfread.read(path, edition) as read:
            findings = [f for f in pagechecks.check(read, book) if f.object == "page text"]
        assert len(findings) == 1 and findings[0].page == 2, findings
        assert findings[0].message.startswith(f"workshop word '{what}")
        assert "mark its passage in the source [...]{.designer}" in findings[0].message
    with pdfread.read(path, "designer") as read:
        assert not [f for f in pagechecks.check(read, book) if f.object == "page text"]


def test_each_language_has_its_workshop_words() -> None:
    from rulepress.render.strings import available

    for lang in available():
        pattern = pagechecks.workshop_pattern(lang)
        assert pattern.search("designer question" if lang == "en" else "question au concepteur"), lang
    assert pagechecks.workshop_pattern("en").search("Editions differ") and not pagechecks.workshop_pattern(
        "en").search("the moths come out")


def test_the_workshop_pattern_and_a_preflight_label_are_the_same_in_every_process() -> None:
    """A passed read-back is kept under its label, which holds the workshop pattern: a label that changed with the
    string hash seed made an unchanged PDF be read back again by every build (2 of 16 in a no-op rebuild)."""
    program = ("from rulepress.publish import pagechecks, preflight; "
               "print([pagechecks.workshop_pattern(lang).pattern for lang in (None, 'en', 'fr')], "
               "preflight.label('print', None, 'fr'))")  # without a book: every language's words
    seen = {subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in (1, 2, 3, 4)}
    assert len(seen) == 1 and "print|fr|" in seen.pop()


def test_a_players_edition_in_players_words_passes(tmp_path: Path) -> None:
    text = ("She draws the top card of the deck or the rose moth worth 2 on the discard pile; she then checks "
            "(vérifie) the tiles, as rule 4.4 says, on a 2-player table.")
    path = book_pdf(tmp_path / "book.pdf", chapter("1 Turn", 20) + f"<p>{text}</p>")
    assert [f for f in found(path, "print") if f.object == "page text"] == []


def test_with_its_book_known_a_players_edition_is_held_to_that_books_rule_ids(tmp_path: Path, mini: Path) -> None:
    """With the book known, its own rule IDs are looked for (any book's without it); a credit's file name or an
    engine's names with underscores are the player-text check's, on the HTML, where credits are told apart."""
    from rulepress.load.book import load_book

    book = load_book(mini, "mini")
    text = ("<p>Take stones as mini.play.take says; the credit cites integration_tests/playthroughs/tic_tac_toe.txt "
            "and lm.turn.light.</p>")
    path = book_pdf(tmp_path / "mini.pdf", chapter("1 Turn", 20) + text)
    shown = [f.message.split(" in a player")[0] for f in preflight_pdf(path, "print", book) if f.object == "page text"]
    assert shown == ["rule ID 'mini.play.take'"]
    without = [f.message.split(" in a player")[0] for f in found(path, "print") if f.object == "page text"]
    assert without == ["rule ID 'mini.play.take'", "rule ID 'lm.turn.light'"]


def test_the_cli_knows_a_pdfs_book_by_its_file_name(tmp_path: Path, mini: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``rulepress preflight`` inside a project holds ``<book>[-<lang>][-<edition>].pdf`` to that book's rule IDs;
    a PDF no book's name begins is held to any book's."""
    text = "<p>Take stones as mini.play.take says, or as lm.turn.light does.</p>"
    for name in ("mini-fr-digital.pdf", "proof.pdf"):
        book_pdf(tmp_path / name, chapter("1 Turn", 20) + text)
        main(["--root", str(mini), "preflight", str(tmp_path / name)])
    marks = [line.split(" in a player")[0].rsplit(": ", 1)[1] for line in capsys.readouterr().out.splitlines()
             if ": page text: " in line]
    assert marks == ["rule ID 'mini.play.take'", "rule ID 'mini.play.take'", "rule ID 'lm.turn.light'"], marks


# -- register -----------------------------------------------------------------------------------------------


def _register_pair(tmp_path: Path, moved: str = "", screen_only: str = "") -> tuple[Path, Path]:
    """A print edition (mirrored margins: the gutter inside) and its digital edition (the same block, centred),
    each with a table whose heading cells have a background; ``moved``: CSS the print edition alone gets,
    ``screen_only``: CSS the digital edition alone gets."""
    inner, outer = _pdf.margins(_pdf.gutter_mm(5))
    half = (inner + outer) / 2
    table = ("<table style='border-collapse: collapse; width: 100%'><tr><th style='background: #ddd'>shape</th>"
             "<th style='background: #ddd'>squares</th></tr><tr><td>M1</td><td>one</td></tr></table>")
    body = chapter("1 Turn", 10) + table + LINE * 10 + chapter("2 Tiles", 10) + table + chapter("3 End", 4)
    press = book_pdf(tmp_path / "book.pdf", body, css=f"@page :right {{ margin-left: {inner}mm; margin-right: "
                     f"{outer}mm }} @page :left {{ margin-left: {outer}mm; margin-right: {inner}mm }} {moved}")
    screen = book_pdf(tmp_path / "book-digital.pdf", body, css=f"@page {{ margin-left: {half}mm; margin-right: "
                      f"{half}mm }} {screen_only}")
    return press, screen


def test_print_and_digital_in_register_pass(tmp_path: Path) -> None:
    press, screen = _register_pair(tmp_path)
    with pdfread.read(press, "print") as one, pdfread.read(screen, "digital") as other:
        assert len(one.pages) == len(other.pages) == 5
        assert one.pages[2].boxes != other.pages[2].boxes  # the gutter moved the print page...
        assert pagechecks.register(one, other) == []  # ...but nothing on it relative to its text block


@pytest.mark.parametrize("shift", ["2.0", "0.5"])
def test_a_background_off_its_table_in_print_fails(tmp_path: Path, shift: str) -> None:
    """The print edition's tables 2 mm off where the digital edition has them, relative to the text block (the
    fault the gutter once made with table heads' backgrounds), or half a millimetre: more than rounding."""
    press, screen = _register_pair(tmp_path, moved=f"table {{ margin-left: {shift}mm }}")
    with pdfread.read(press, "print") as one, pdfread.read(screen, "digital") as other:
        findings = pagechecks.register(one, other)
    assert [f.page for f in findings] == [2, 3]
    assert findings[0].object == "page objects"
    assert re.fullmatch(r"\d+ of \d+ out of register with the digital edition relative to the text block; first: "
                        rf"\w+ of [\d.]+ × [\d.]+ mm at [-\d.]+ mm, [-\d.]+ mm, \+{re.escape(shift)} mm across and "
                        r"\+0\.0 mm down from the digital edition's", findings[0].message), findings[0].message


SHADED = "h1 { background: #eee }"  # a background behind each chapter's heading: nothing else moves


@pytest.mark.parametrize("moved, screen_only, first", [
    (SHADED, "", r"path of [\d.]+ × [\d.]+ mm at [-\d.]+ mm, [-\d.]+ mm, which the digital edition does not have"),
    ("", SHADED, r"the digital edition has 1 more"),
], ids=["print-only", "digital-only"])
def test_an_element_only_one_edition_has_fails(tmp_path: Path, moved: str, screen_only: str, first: str) -> None:
    """A background the print edition draws and the digital one does not (or the other way round) is out of
    register as surely as one moved."""
    press, screen = _register_pair(tmp_path, moved=moved, screen_only=screen_only)
    with pdfread.read(press, "print") as one, pdfread.read(screen, "digital") as other:
        findings = pagechecks.register(one, other)
    assert [f.page for f in findings] == [2, 3, 4], findings  # the inner pages, each opening a chapter
    assert re.fullmatch(r"\d+ of \d+ out of register with the digital edition relative to the text block; first: "
                        + first, findings[0].message), findings[0].message


def test_the_staged_check_holds_each_print_edition_to_its_digital_one(tmp_path: Path, mini: Path) -> None:
    """Before the swap, the staged print edition of a book is held to its digital one: a table moved 2 mm in print
    alone is a problem of the build, named with the print edition's file and page."""
    import shutil

    from rulepress.publish.preflight import preflight_staged
    from rulepress.verify.gate import verify

    report = verify(mini, draw=False)
    press, screen = _register_pair(tmp_path, moved="table { margin-left: 2mm }")
    staged = tmp_path / "staging" / "pdf"
    staged.mkdir(parents=True)
    for made, name in ((press, "mini.pdf"), (screen, "mini-digital.pdf"), (screen, "mini-designer.pdf")):
        shutil.copy(made, staged / name)
    problems = [p for p in preflight_staged(tmp_path / "staging", report) if ": page objects: " in p]
    pages = [re.match(r"pdf/mini\.pdf \(the print edition of mini\), page (\d+): page objects: ", p) for p in problems]
    assert all(pages) and [page.group(1) for page in pages if page] == ["2", "3"], problems
    # Named as the reader will know the file once the refused build's staging folder is gone: never that folder.
    assert all(p.startswith("pdf/mini.pdf (the print edition of mini), page ") and "+2.0 mm across" in p
               and str(tmp_path) not in p for p in problems), problems
    (tmp_path / "kept").mkdir()
    press, screen = _register_pair(tmp_path / "kept")  # the same layout in both: nothing out of register
    for made, name in ((press, "mini.pdf"), (screen, "mini-digital.pdf")):
        shutil.copy(made, staged / name)
    assert not [p for p in preflight_staged(tmp_path / "staging", report) if ": page objects: " in p]


def test_the_cli_holds_a_print_edition_to_its_digital_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    press, screen = _register_pair(tmp_path, moved="table { margin-left: 2mm }")
    main(["preflight", str(press), str(screen)])
    out = capsys.readouterr().out
    assert f"{press}, page 2: page objects: " in out and "+2.0 mm across" in out


def test_the_placement_a_worker_sends_is_the_one_read_again(tmp_path: Path) -> None:
    """The build's PDF worker sends the placement its preflight read; the staged check uses it instead of reading
    the file again, and would find the same."""
    press, screen = _register_pair(tmp_path)
    _, placed = preflight_read(press, "print")
    with pdfread.read(press, "print") as read:
        assert placed == pagechecks.placement(read)
    assert preflight_read(tmp_path / "book-designer.pdf", "designer")[1] is None  # no such file: nothing placed


def test_a_page_check_refuses_the_build(mini: Path) -> None:
    """The page checks are the build's: an engine's card ID in a rule's prose (which the HTML check of player
    pages does not know as notation) is found on the built print and digital pages, and nothing is published."""
    from rulepress.errors import BuildRefused
    from rulepress.publish.build import build

    chapter = mini / "rules_src/mini/chapters/play.md"
    text = chapter.read_text(encoding="utf-8")
    sentence = "stones from the pile of {{ pile.start }}."
    assert sentence in text
    chapter.write_text(text.replace(sentence, "stones from the pile of {{ pile.start }} (the stone-2 counts "
                                              "twice)."), encoding="utf-8")
    with pytest.raises(BuildRefused) as refused:
        build(mini, site_dir=mini / "site")
    marks = [p for p in refused.value.problems if "engine ID 'stone-2' in a player's edition" in p]
    assert {re.match(r"pdf/(mini[-a-z]*)\.pdf \(the (print|digital) edition of mini\), page \d+: page text: ",
                     p).group(1) for p in marks} == {"mini", "mini-digital"}, refused.value.problems
    assert not (mini / "site").exists()
