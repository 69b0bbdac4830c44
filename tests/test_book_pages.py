"""Every edition of every bundled book paged through as an editor would, read back from the one real build.

Each promise the books make about their pages is checked on the built PDFs (PDFium, through tests/pdfpages.py):
pages that flow, examples beside their rules, print and digital in register, references whole, running heads
right, hyphenation on and never in a name, player books free of engine and build marks, an index with sub-entries
and ranges, and the output intent each book chose.
"""

from __future__ import annotations

import re
from pathlib import Path

import pikepdf
import pytest

from rulepress.load.book import load_book
from rulepress.load.profile import output_intent
from rulepress.render import pdf
from rulepress.render.player_text import patterns
from rulepress.verify.gate import load_checked_book

from . import pdfpages
from .conftest import ROOT

pytestmark = pytest.mark.xdist_group("real-build")  # reads the one full build of the bundled books

# (book, language suffix) of every edition the build makes; the French Last Lantern besides the English one.
BOOKS = [("lantern-moths", ""), ("last-lantern", ""), ("last-lantern", "-fr"), ("lantern", "")]
EDITIONS = [(book, lang, edition) for book, lang in BOOKS for edition in ("", "-digital", "-designer")]
FILL = 0.4  # an inner page is at least this full, unless a part starts on the next page


def _name(book: str, lang: str, edition: str) -> str:
    return f"{book}{lang}{edition}.pdf"


@pytest.fixture(scope="module")
def pdfs(real_site: Path) -> Path:
    return real_site / "pdf"


def _margins(path: Path, edition: str) -> tuple[float, float]:
    inner, outer = pdf.margins(pdf.gutter_mm(len(pdfpages.read(path))))
    return ((inner + outer) / 2, (inner + outer) / 2) if edition == "-digital" else (inner, outer)


@pytest.mark.parametrize("book, lang, edition", EDITIONS)
def test_no_inner_page_is_mostly_empty_by_its_ink(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """No inner page is under 40 % full by its rendered ink (the last row of pixels of the text block with 3% of
    its width dark: a box's sides running on to the next page are no ink) except the last page of a part (the next
    page starts a level-1 heading) and the page before the back cover.  Read independently of the preflight (which
    renders only the pages its objects cannot tell about): every page rendered."""
    path = pdfs / _name(book, lang, edition)
    pages = pdfpages.read(path)
    ends = pdfpages.chapter_ends(pages)
    fills = pdfpages.ink_fills(path, *_margins(path, edition))
    empty = [(page.number, round(fills[page.number - 1], 2)) for page in pages[1:-1]
             if fills[page.number - 1] < FILL and page.number not in ends]
    assert not empty, f"pages under {FILL:.0%} full by ink: {empty}"


def test_the_ink_read_has_teeth(tmp_path: Path) -> None:
    """The read above finds a page short where an example's box runs on to the next page (its sides drawn to the
    foot): made as the preflight's own test makes it."""
    from rulepress.render import pdf as render_pdf

    from .test_preflight_pages import FONT, LINE  # its type: one line across the block, some 39 to a page

    box = ('<div style="border: 0.75pt solid black; padding: 0 2mm">' + LINE * 3 +
           '<div style="height: 168mm; break-inside: avoid; background: #444"></div></div>')
    html = (f"<html><head><style>{FONT} @page {{ size: A5; margin: 17mm 14.5mm 18mm }}</style></head><body>"
            + LINE * 30 + '<div style="break-before: page"></div>' + box + "</body></html>")
    path = tmp_path / "short.pdf"
    render_pdf.weasyprint.HTML(string=html).write_pdf(path)
    fills = pdfpages.ink_fills(path, 14.5, 14.5)
    assert fills[0] > 0.5 and fills[1] < 0.2 and fills[2] > 0.9, fills


@pytest.mark.parametrize("book, lang, edition", EDITIONS)
def test_no_reference_breaks_across_a_line(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """ "rule 8.3, p. 11" is set whole: no line ends in "(rule", "(règle" or "p.", nor in "rule" before the number
    that opens the next line."""
    split = re.compile(r"(?:\((?:rule|règle)|\bp\.)$")
    found = []
    for page in pdfpages.read(pdfs / _name(book, lang, edition)):
        lines = [line.rstrip() for line in page.lines]
        found += [(page.number, line[-40:]) for line in lines if split.search(line)]
        found += [(page.number, line[-40:] + " / " + after[:10]) for line, after in zip(lines, lines[1:], strict=False)
                  if re.search(r"\b(?:rule|règle)$", line) and re.match(r"\d", after)]
    assert not found


def _page_references(path: Path) -> list[tuple[int, str, int, str]]:
    """Each link whose text ends in a page number ("p. 11", a contents entry's leader and number): the page it
    is on, that number, the page it goes to (its named destination, resolved by qpdf) and the folio printed there
    (the text below the text block)."""
    import pypdfium2 as pdfium

    found = []
    document = pdfium.PdfDocument(path)
    with pikepdf.open(path) as pdf:
        dests = pikepdf.NameTree(pdf.Root.Names.Dests)
        index = {page.objgen: number for number, page in enumerate(pdf.pages)}
        texts, folios = [], []
        for number in range(len(pdf.pages)):
            texts.append(document[number].get_textpage())
            left, foot, right, _top = document[number].get_trimbox()
            folios.append(" ".join(texts[-1].get_text_bounded(left, foot, right, foot + pdfpages.BOTTOM_MM
                                                              * pdfpages.MM - 2).split()))
        for number, page in enumerate(pdf.pages):
            for annot in page.obj.get("/Annots", []):
                action = annot.get("/A", {})
                name = annot.get("/Dest", action.get("/D") if action.get("/S") == "/GoTo" else None)
                if annot.get("/Subtype") != "/Link" or name is None:
                    continue
                x0, y0, x1, y1 = (float(v) for v in annot.Rect)
                text = " ".join(texts[number].get_text_bounded(min(x0, x1), min(y0, y1), max(x0, x1),
                                                               max(y0, y1)).split())
                shown = re.search(r"(?:\bp\.|\.\.)\s*(\d+)\)?$", text)
                if shown:
                    target = index[dests[str(name)][0].objgen]
                    found.append((number + 1, shown.group(1), target + 1, folios[target]))
        for textpage in texts:
            textpage.close()
    document.close()
    return found


@pytest.mark.parametrize("book, lang, edition", EDITIONS)
def test_page_references_name_the_page_they_link_to(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """The contents, the rule references ("rule 8.3, p. 11") and the glossary's "p. 7" name the folio of the page
    their link goes to (WeasyPrint alone left two stale in Lantern Moths' designer contents)."""
    references = _page_references(pdfs / _name(book, lang, edition))
    assert len(references) > 40  # the contents and the rules' references at least
    assert [ref for ref in references if ref[1] != ref[3]] == []


@pytest.mark.parametrize("book, lang, edition", EDITIONS)
def test_running_head_is_the_chapter_at_the_top_of_the_page(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """Each page's running head names the part in force at the top of the page: the one that began on an earlier
    page, or the one whose heading opens this page (never one that starts lower down)."""
    pages = pdfpages.read(pdfs / _name(book, lang, edition))
    current, checked, lower = "", 0, 0
    for page in pages[1:-1]:
        opening = [title for level, title, _ in page.headings if level == 1 and page.lines[:1] == [title]]
        if page.head:  # filler pages ("Notes") have none
            assert page.head == (opening[0] if opening else current), page.number
            checked += 1
        starts = [title for level, title, _ in page.headings if level == 1]
        lower += len(starts) > len(opening)
        current = starts[-1] if starts else current
    assert checked > len(pages) / 2 and lower >= 1


def _hyphenated(path: Path) -> tuple[int, list[str]]:
    lines = [line.rstrip() for page in pdfpages.read(path)[1:-1] for line in page.lines]
    return len(lines), [line for line in lines if line.endswith("\u2010")]


@pytest.mark.parametrize("book, lang, edition", EDITIONS)
def test_words_are_hyphenated_but_never_names_or_ids(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """Hyphenation is on in every language (pyphen's dictionaries): lines break inside words, and the broken
    word is never a name (a capital), a rule or card ID, a command or a file name."""
    count, broken = _hyphenated(pdfs / _name(book, lang, edition))
    assert len(broken) >= max(5, count // 500), (len(broken), count)
    names = [line[-30:] for line in broken if re.search(r"(?:^|[\s(«])(?:\S*[A-Z.\d_/-]\S*)\u2010$", line)]
    assert not names


def test_french_is_hyphenated_more_than_english(pdfs: Path) -> None:
    """Same book, same pages: French words are longer, and get more breaks (a language's own dictionary)."""
    english, french = _hyphenated(pdfs / "last-lantern.pdf"), _hyphenated(pdfs / "last-lantern-fr.pdf")
    assert len(french[1]) / french[0] > len(english[1]) / english[0] > 0


@pytest.mark.parametrize("book, lang", BOOKS)
def test_print_and_digital_place_every_element_alike(pdfs: Path, book: str, lang: str) -> None:
    """Relative to its text block, every text run, path and image of a body page sits where the digital edition
    has it: the print edition's gutter (applied after layout, pdf._move_gutter) misplaces nothing, backgrounds
    (table heads, tile shapes) included."""
    press, screen = pdfpages.read(pdfs / _name(book, lang, "")), pdfpages.read(pdfs / _name(book, lang, "-digital"))
    inner, outer = pdf.margins(pdf.gutter_mm(len(press)))
    half = (inner + outer) / 2 * pdfpages.MM
    compared = 0
    for ours, theirs in zip(press[1:], screen[1:], strict=False):
        if any(title in ("Index", "Glossaire", "Glossary") for _, title, _ in ours.headings):
            break  # the glossary's and index's pages follow the body's in both
        left = (inner if ours.number % 2 else outer) * pdfpages.MM
        wrong = pdfpages.misplaced(pdfpages.placed(ours, left), pdfpages.placed(theirs, half))
        assert not wrong, (ours.number, wrong[:3])
        compared += 1
    assert compared > 10


@pytest.mark.parametrize("book, lang", BOOKS)
@pytest.mark.parametrize("edition", ["", "-digital"])
def test_player_editions_hold_no_engine_or_build_marks(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """No "verified" badge, no rule or card ID, no engine notation, no "Not included" chapter and no page
    repeating the contents in a player's book; the designer edition keeps the badge."""
    check = load_checked_book(ROOT, book)
    found = []
    pages = pdfpages.read(pdfs / _name(book, lang, edition))
    for page in pages:
        text = page.text.replace("\u2010 ", "")
        for line in page.lines:
            if len(re.findall(r"(?<![\w-])[a-zàâçéèêëîïôûù]{2,}\b", line)) < 4:
                continue  # a diagram's labels or a table's cells ("T17 T09 T08" names tiles): not prose
            for name, pattern in patterns(check.book):
                found += [(page.number, name, m.group(0)) for m in pattern.finditer(line)]
        prefix = re.escape(check.book.prefix)
        found += [(page.number, "rule ID", m.group(0)) for m in re.finditer(rf"\b{prefix}\.[a-z]", text)]
        found += [(page.number, "badge", mark) for mark in ("✔", "Verified", "Vérifié") if mark in text]
        found += [(page.number, "chapter", title) for level, title, _ in page.headings
                  if level == 1 and re.search(r"Not included|Non inclus|at a glance|l'essentiel", title)]
    assert not found
    designer = " ".join(page.text for page in pdfpages.read(pdfs / _name(book, lang, "-designer")))
    assert "✔" in designer


def _destinations(path: Path) -> dict[str, int]:
    """Each named destination (an HTML id) and its page, read with qpdf."""
    with pikepdf.open(path) as document:
        index = {page.objgen: number for number, page in enumerate(document.pages, start=1)}
        return {str(name): index[dest[0].objgen] for name, dest in pikepdf.NameTree(document.Root.Names.Dests).items()
                if isinstance(dest, pikepdf.Array) and dest[0].objgen in index}


@pytest.mark.parametrize("book, lang", BOOKS)
@pytest.mark.parametrize("edition", ["", "-digital", "-designer"])
def test_no_example_comes_before_a_rule_it_names(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """Each example starts on or after the first page of every rule it names from its own chapter (LL p12's setup
    example cited rules 3.3 to 3.8, which began on p13), and before the next chapter's; a player's book prints the
    player's examples alone, the designer edition every one."""
    from rulepress.audience import designer_only

    check = load_checked_book(ROOT, book)
    pages = _destinations(pdfs / _name(book, lang, edition))
    source = check.book
    chapters = [c.id for c in source.chapters]
    early, printed = [], 0
    for example in check.examples:
        if designer_only(example, source) and edition != "-designer":
            assert example.id not in pages, example.id
            continue
        named = [r for r in example.rules if edition == "-designer" or not source.rules[r].designer]
        chapter = source.rules[named[0]].chapter
        at = pages[example.id]
        printed += 1
        for rule in named:
            if source.rules[rule].chapter == chapter and pages[rule] > at:
                early.append((example.id, rule, at, pages[rule]))
        following = chapters[chapters.index(chapter) + 1:]
        later = [pages[c] for c in following if c in pages]
        assert not later or at <= min(later), (example.id, at, later)
    assert printed and not early, early


@pytest.mark.parametrize("book, lang", BOOKS)
@pytest.mark.parametrize("edition", ["", "-digital"])
def test_player_editions_hold_no_workshop(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """No word of the workshop in a player's book, in its language (designer question, edition, engine, replayed,
    not written, never comes up...: workshop_words, rulepress/render/strings/<lang>.yaml); the designer edition
    keeps the workshop (Lantern's designer questions, its verification note on the back cover)."""
    from rulepress.render.strings import strings

    words = [w.strip() for w in strings(lang.lstrip("-") or "en")("workshop_words").split(";") if w.strip()]
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(r"\s+".join(map(re.escape, w.split())) for w in words) + ")",
                         re.IGNORECASE)
    found = [(page.number, m.group(0)) for page in pdfpages.read(pdfs / _name(book, lang, edition))
             for m in pattern.finditer(page.text.replace("\u2010 ", "").replace("\u00a0", " "))]
    assert not found, found
    designer = " ".join(page.text for page in pdfpages.read(pdfs / _name(book, lang, "-designer")))
    assert pattern.search(designer)


@pytest.mark.parametrize("book, lang", BOOKS)
def test_the_back_cover_carries_a_turn_summary(pdfs: Path, book: str, lang: str) -> None:
    """Every back cover prints its player aid, drawn from the book's rules; none says how the book was checked
    (the designer edition's does)."""
    from rulepress.render.strings import strings

    t = strings(lang.lstrip("-") or "en")
    for edition in ("", "-digital"):
        back = pdfpages.read(pdfs / _name(book, lang, edition))[-1].text
        assert t("turn_summary") in back and t("replayed_before_printing") not in back, (edition, back[:200])
    check = load_checked_book(ROOT, book)
    for group in check.book.data["turn_summary"]:
        assert check.book.rules[group["rules"][0]].title.split()[0] in back or lang  # the French titles are its own
    designer = pdfpages.read(pdfs / _name(book, lang, "-designer"))[-1].text
    assert " ".join(t("replayed_before_printing").split()[:4]) in designer


@pytest.mark.parametrize("book, lang", BOOKS)
def test_at_most_one_page_of_notes(pdfs: Path, book: str, lang: str) -> None:
    """A print edition is padded to a multiple of 4 (before its back cover) with at most one page for notes."""
    from rulepress.render.strings import strings

    notes = strings(lang.lstrip("-") or "en")("notes")
    for edition in ("", "-designer"):
        pages = pdfpages.read(pdfs / _name(book, lang, edition))
        assert len(pages) % 4 == 0
        assert sum(page.lines[:1] == [notes] for page in pages) <= 1, edition


def _index_heads(path: Path) -> set[str]:
    """The index's head entries: the lines of its pages (up to the next heading) that start at a column's left edge
    (a wrapped entry's next line, and a sub-entry, stand indented)."""
    pages = pdfpages.read(path)
    start = next(page.number for page in pages if any(t == "Index" for _, t, _ in page.headings))
    heads = set()
    for number in range(start, len(pages)):
        if number > start and pages[number - 1].headings:
            break  # the index has ended: a filler (the player aid, the box's contents) starts here
        lines = [(x, t) for x, _, t in pdfpages.line_starts(path)[number - 1]]
        middle = pages[number - 1].width / 2
        for column in ([(x, t) for x, t in lines if x < middle], [(x, t) for x, t in lines if x >= middle]):
            if column:
                left = min(x for x, _ in column)
                heads |= {t.split(",")[0].strip() for x, t in column if x < left + 1}
    return heads


def test_the_index_holds_the_actions_and_nouns_of_play(pdfs: Path) -> None:
    """Lantern Moths' index had the glossary's 11 terms alone: no Draw, Plant, Light, Flip, hand or start player
    (book.yaml index); the French edition holds its own words (its book.yaml)."""
    heads = _index_heads(pdfs / "lantern-moths.pdf")
    assert {"Draw", "Plant", "Light", "Flip", "Hand", "Start player"} <= heads, sorted(heads)
    assert {"Pioche", "Loup", "Sac"} <= _index_heads(pdfs / "last-lantern-fr.pdf")


@pytest.mark.parametrize("book, lang", BOOKS)
def test_every_index_head_starts_with_a_capital(pdfs: Path, book: str, lang: str) -> None:
    """Lantern's index printed "fight" (book.yaml lists it so) among capitalised terms: every head entry is written
    as the glossary's terms are, whatever the case its word is listed in."""
    heads = _index_heads(pdfs / _name(book, lang, ""))
    assert heads and not [head for head in heads if head[:1].islower()], sorted(heads)


@pytest.mark.parametrize("lang", ["", "-fr"])
def test_the_round_summary_is_whole_on_its_own_page_numbered_once(pdfs: Path, lang: str) -> None:
    """Last Lantern's round summary (a player aid, .aid) starts a page and ends on it; its sections read "11.1
    Voices in the Fog", not "11.1 I. Voices in the Fog"."""
    pages = pdfpages.read(pdfs / f"last-lantern{lang}.pdf")
    marks = [(page.number, level, title) for page in pages for level, title, _ in page.headings]
    chapter = next(n for n, level, title in marks if level == 1 and title.startswith("11 "))
    sections = [(n, title) for n, level, title in marks if level == 2 and title.startswith("11.")]
    assert len(sections) == 5 and {n for n, _ in sections} == {chapter}, sections
    assert pages[chapter - 1].lines[0].startswith("11 ")  # at the top of its page
    assert not any(re.match(r"11\.\d (?:I|II|III|IV)\. ", title) for _, title in sections), sections


def _items(run: list[tuple[float, float, str]], marks: list[float]) -> int:
    """How many list items start in a run of lines: those with a marker at their height."""
    return sum(any(abs(y - mark) < 4 for mark in marks) for _, y, _ in run)


@pytest.mark.parametrize("book, lang, edition", EDITIONS)
def test_no_list_item_is_alone_at_a_page_turn(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """No bullet alone at a page's foot or top (LL p12 opened with "• 1 Basilisk board" alone): where a list runs
    over a page turn, at least two of its items stand on each side.  Read from the lines' places: a list's lines
    stand indented from the text block's left edge, its markers ("•") start its items."""
    path = pdfs / _name(book, lang, edition)
    pages = pdfpages.line_starts(path)
    marker = re.compile(r"^(?:•|\d+\.)$")
    runs: list[tuple[int, int, bool] | None] = []  # per page: items in its first run of list lines, in its last, more
    for lines in pages:
        text = [(x, y, t) for x, y, t in lines if not marker.match(t)]
        marks = [y for x, y, t in lines if marker.match(t)]
        if not text:
            runs.append(None)
            continue
        left = min(x for x, _, _ in text)
        listed = [x > left + 3 * pdfpages.MM for x, _, _ in text]
        top = text[:next((i for i, inside in enumerate(listed) if not inside), len(text))]
        foot = text[next((i for i in range(len(listed) - 1, -1, -1) if not listed[i]), -1) + 1:]
        runs.append((_items(top, marks) if listed[0] else 0, _items(foot, marks) if listed[-1] else 0,
                     len(top) < len(text)))
    alone = []
    for number, (this, following) in enumerate(zip(runs, runs[1:], strict=False), start=1):
        if this is None or following is None or not this[1] or not following[0]:
            continue  # no list runs over this page turn
        if this[1] == 1 and this[2]:
            alone.append((number, "foot"))
        if following[0] == 1 and following[2]:
            alone.append((number + 1, "top"))
    assert not alone, alone


@pytest.mark.parametrize("book, lang", BOOKS)
def test_index_folds_plurals_and_gives_ranges(pdfs: Path, book: str, lang: str) -> None:
    """No "Dusk cards, see Dusk card": a plural is folded into its entry; "see" is kept for other names."""
    pages = pdfpages.read(pdfs / _name(book, lang, ""))
    start = next(page.number for page in pages if any(t == "Index" for _, t, _ in page.headings))
    lines = [line.strip() for page in pages[start - 1:-1] for line in page.lines]
    sees = [re.fullmatch(r"(.+?), (?:see|voir) (.+)", line) for line in lines]
    padded = [m.group(0) for m in sees if m and pdf.inflection_of(m.group(1), m.group(2))]
    assert not padded
    assert any(re.search(r"\b\d+–\d+\b", line) for line in lines), "page ranges"


def test_designer_tables_repeat_their_head_and_keep_rows_whole(pdfs: Path) -> None:
    """The coverage table runs over several pages: each continuation page opens with the table's head, then a
    whole row (its first cell, a rule number), never the rest of a row begun on the page before."""
    pages = pdfpages.read(pdfs / "last-lantern-designer.pdf")
    first = next(page.number for page in pages if any(t == "Rule coverage" for _, t, _ in page.headings))
    last = next(page.number for page in pages if any(t == "Index" for _, t, _ in page.headings))
    continued = 0
    for page in pages[first:last - 1]:
        head = " ".join(page.lines[:2])
        assert head == "rule engine examples exercised by replay", (page.number, page.lines[:3])
        assert re.match(r"\d+(\.\d+)* ", page.lines[2]), (page.number, page.lines[2])
        continued += 1
    assert continued >= 1


@pytest.mark.parametrize("book, lang, profile", [("last-lantern", "", "fogra39"), ("last-lantern", "-fr", "fogra39"),
                                                 ("lantern-moths", "", "swop"), ("lantern", "", "swop")])
def test_print_edition_carries_the_profile_its_book_names(pdfs: Path, book: str, lang: str, profile: str) -> None:
    source = load_book(ROOT, book)
    assert source.data.get("output_intent", "swop") == profile
    with pikepdf.open(pdfs / _name(book, lang, "")) as document:
        embedded = document.Root.OutputIntents[0].DestOutputProfile.read_bytes()
    assert embedded == output_intent(source).read_bytes()


@pytest.mark.parametrize("book, lang, edition", EDITIONS)
def test_nothing_is_left_alone_at_a_page_turn(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """No page ends on a heading or on "Steps:" (they keep with what follows), and none opens with a diagram's
    caption (a diagram and its caption stay together), reading each page's text block top to bottom."""
    check = load_checked_book(ROOT, book)
    captions = {" ".join(step.data["diagram"].split()) for example in check.examples for step in example.steps
                if isinstance(step.data.get("diagram"), str)} if not lang else set()
    assert lang or captions
    steps = ("Steps:", "Étapes\u00a0:", "Étapes :")
    found = []
    for page in pdfpages.read(pdfs / _name(book, lang, edition))[1:-1]:
        rows = page.block_rows()
        if not rows:
            continue
        first, last = rows[0][2], rows[-1][2]
        titles = {" ".join(title.split()) for _, title, _ in page.headings}
        if last in steps or last in titles:
            found.append((page.number, "ends on", last))
        if first in captions:
            found.append((page.number, "opens with the caption", first))
    assert not found, found
