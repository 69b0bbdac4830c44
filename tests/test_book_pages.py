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


@pytest.mark.parametrize("book, lang, edition", EDITIONS)
def test_no_inner_page_is_mostly_empty(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """No inner page is under 40 % full except the last page of a part (the next page starts a level-1 heading)
    and the page before the back cover: examples no longer start pages of their own nor leave steps alone."""
    pages = pdfpages.read(pdfs / _name(book, lang, edition))
    ends = pdfpages.chapter_ends(pages)
    empty = [page.number for page in pages[1:-1] if page.fill < FILL and page.number not in ends]
    assert not empty, f"pages under {FILL:.0%} full: {empty}"


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


@pytest.mark.parametrize("book, lang", BOOKS)
@pytest.mark.parametrize("edition", ["", "-digital"])
def test_each_example_follows_the_section_of_its_first_rule(pdfs: Path, book: str, lang: str, edition: str) -> None:
    """An example is printed (its title bookmarked under its section) after the section of the first rule it
    names and before the next section begins; the French edition's titles are its own, so there the count of
    examples in each section's stretch is checked."""
    check = load_checked_book(ROOT, book)
    pages = pdfpages.read(pdfs / _name(book, lang, edition))
    marks = [(page.number, level, " ".join(title.split())) for page in pages for level, title, _ in page.headings]
    sections = [(n, title) for n, level, title in marks if level <= 2]
    source, wanted = check.book, {}
    assert check.examples
    for example in check.examples:
        rules = list(source.rules.values())
        rule = source.rules[example.rules[0]]
        section = rule if rule.level <= 2 else next(r for r in reversed(rules[:rules.index(rule)]) if r.level <= 2)
        wanted.setdefault(section.number, []).append(" ".join(example.title.split()))
    for number, titles in wanted.items():
        at = next(i for i, (_, title) in enumerate(sections) if title.startswith(f"{number} "))
        later = [n for n, title in sections[at + 1:] if not title.startswith(f"{number}.")]
        start, stop = sections[at][0], later[0] if later else len(pages)
        window = [n for n in range(len(marks)) if start <= marks[n][0] <= stop and marks[n][1] == 3]
        # after the section's heading, before the next section's
        first = marks.index((start, 1 if "." not in number else 2, sections[at][1]))
        shown = [marks[n][2] for n in window if n > first]
        if lang:
            assert len(shown) >= len(titles), (number, titles, shown)
        else:
            assert set(titles) <= set(shown), (number, set(titles) - set(shown))


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
