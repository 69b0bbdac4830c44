"""The three PDF editions of a real book (Lantern, the smallest), built once, and the drawing rules behind them."""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pikepdf
import pytest
from pypdf import PdfReader

from rulepress import audience
from rulepress.load.book import book_ids, load_book
from rulepress.load.profile import shipped
from rulepress.proof import Proof
from rulepress.publish import pdfchecks, pdfread
from rulepress.publish.preflight import preflight_pdf
from rulepress.render import cover, palette, pdf
from rulepress.render.strings import strings
from rulepress.verify.engines import load_engine
from rulepress.verify.gate import Report

from . import pdfpages
from .conftest import ROOT, checks_of

BOOK = "lantern"
MM = 72 / 25.4
TEXT_PT = 8.4  # the smallest text of the text block (an example's); labels, captions and feet are smaller


pytestmark = pytest.mark.xdist_group("real-build")  # reads the one full build of the bundled books


@pytest.fixture(scope="module")
def editions(real_site: Path, bundled: Report) -> tuple[Path, object]:
    return real_site / "pdf", checks_of(bundled, BOOK)


@functools.cache
def text_of(path: Path) -> list[str]:
    """Each page's text, whitespace collapsed and hyphenated line breaks joined again."""
    return [" ".join(text.split()).replace("\u2010 ", "") for text in pdfpages.page_texts(path)]


@pytest.mark.parametrize("edition", ["", "-digital", "-designer"])
def test_every_edition_passes_preflight(editions: tuple[Path, object], edition: str) -> None:
    folder, _ = editions
    assert preflight_pdf(folder / f"{BOOK}{edition}.pdf") == []


def test_print_edition_is_pdfx4_in_cmyk(editions: tuple[Path, object]) -> None:
    folder, _ = editions
    with pikepdf.open(folder / f"{BOOK}.pdf") as book:
        with book.open_metadata() as meta:
            assert meta["pdfxid:GTS_PDFXVersion"] == "PDF/X-4"
        intent = book.Root.OutputIntents[0]
        assert intent.S == "/GTS_PDFX" and int(intent.DestOutputProfile.N) == 4
        # The profile shipped in rulepress/color/ that the book names (SWOP, the default), byte for byte: nothing
        # comes from the system.
        assert intent.DestOutputProfile.read_bytes() == shipped("swop").read_bytes()
        operators = {op for page in book.pages for op, _ in _shown(page.obj, page.obj.Resources)}
        assert not operators & {"rg", "RG"}
        assert "scn" in operators  # colours are set, and only through colour spaces (DeviceCMYK)


def test_body_text_is_black_ink_only(editions: tuple[Path, object]) -> None:
    """Text is 100 % K: every colour set right before text is shown is 0 0 0 k (no rich black in text)."""
    folder, _ = editions
    with pikepdf.open(folder / f"{BOOK}.pdf") as book:
        colours: set[tuple[float, ...]] = set()
        for page in list(book.pages)[1:-1]:  # inside pages; the covers carry the cover colours
            current: tuple[float, ...] = ()
            for operator, operands in _shown(page.obj, page.obj.Resources):
                if operator == "scn" and len(operands) == 4:
                    current = tuple(float(v) for v in operands)  # type: ignore[arg-type]
                elif operator in ("Tj", "TJ") and current:
                    colours.add(current)
        assert colours and all(c[:3] == (0, 0, 0) for c in colours), colours


def _shown(stream: pikepdf.Object, resources: pikepdf.Dictionary) -> list[tuple[str, list[object]]]:
    """The colour and text operators of a content stream, in order, those of the forms it draws in their place."""
    found = []
    for operands, op in pikepdf.parse_content_stream(stream, "rg RG k K scn SCN sc SC Tj TJ Do"):
        if str(op) != "Do":
            found.append((str(op), list(operands)))
            continue
        xobject = resources.get("/XObject", {}).get(operands[0])
        if xobject is not None and xobject.get("/Subtype") == "/Form":
            found += _shown(xobject, xobject.get("/Resources", resources))
    return found


FILLER_TITLES = ("Turn summary", "In the box", "Notes")  # a player aid, the box's checklist, a page for notes


def test_page_count_is_padded_before_the_back_cover(editions: tuple[Path, object]) -> None:
    folder, _ = editions
    pages = text_of(folder / f"{BOOK}.pdf")
    assert len(pages) % 4 == 0
    assert pages[0].startswith("Lantern Rules for a solo roll-and-write adventure")
    assert "A solo roll-and-write adventure." in pages[-1] and "IN THE BOX" in pages[-1]  # the back cover
    assert all(text for text in pages), "a blank page"
    fillers = [n for n, text in enumerate(pages, start=1) if text.startswith(FILLER_TITLES)]
    assert fillers == list(range(len(pages) - len(fillers), len(pages)))  # right before the back cover
    assert sum(text.startswith("Notes") for text in pages) <= 1  # never more than one page for notes


def test_mirrored_margins_with_a_gutter(editions: tuple[Path, object]) -> None:
    """Text starts at the gutter on right-hand (odd) pages and at the outer margin on left-hand ones, the index
    and filler pages included (laid out apart, then joined); the outer margin gives up what the gutter takes past
    15 mm, so the text block keeps its width, and stays well clear of the safe area."""
    folder, _ = editions
    count = len(PdfReader(folder / f"{BOOK}.pdf").pages)
    gutter = pdf.gutter_mm(count)
    inner, outer = pdf.margins(gutter)
    assert gutter > pdf.BASE_GUTTER_MM, "a book long enough that the gutter was moved after the layout"
    assert inner == gutter and inner + outer == pdf.BASE_GUTTER_MM + pdf.OUTER_MM and outer > pdfchecks.SAFE_MM
    with pdfread.read(folder / f"{BOOK}.pdf", "print") as book:
        starts = {}
        for page in book.pages:
            # The text block's edge, read from its text (a diagram's labels sit where the drawing puts them,
            # the running foot where its rule does): inside pages only, the covers are not mirrored.
            text = [run.x for run in page.runs if run.size >= TEXT_PT]
            if 3 <= page.number < count and text:
                starts[page.number] = round(min(text) / MM, 1)  # from the trim's left
    assert len(starts) >= 0.8 * (count - 3)  # all but the odd page that holds only the rest of an example's diagram
    assert {starts[n] for n in starts if n % 2} == {gutter}
    assert {starts[n] for n in starts if not n % 2} == {outer}


@pytest.mark.parametrize("edition", ["", "-designer"])
def test_contents_give_the_page_each_part_starts_on(editions: tuple[Path, object], edition: str) -> None:
    """The index comes last (after the designer's parts in that edition), on the page the contents give."""
    folder, _ = editions
    pages = text_of(folder / f"{BOOK}{edition}.pdf")
    contents = " ".join(text for text in pages[1:4] if "Contents" in text)
    titles = ["Glossary", "Index"]  # the examples stand beside their rules: no chapter of their own
    if edition:
        titles[1:1] = ["Designer questions", "What simulated play found", "Change log", "Rule coverage"]
    numbers = [int(re.search(re.escape(title) + r" ?\.+ ?(\d+)", contents).group(1)) for title in titles]  # type: ignore[union-attr]
    assert numbers == sorted(numbers)
    for title, number in zip(titles, numbers, strict=True):
        assert pages[number - 1].startswith(title) and not pages[number - 2].startswith(title), (title, number)
    after = pages[numbers[-1]:-1]  # after the index's first page, before the back cover
    fillers = [text for text in after if text.startswith(FILLER_TITLES)]
    assert after[len(after) - len(fillers):] == fillers  # the index's other pages, then the fillers
    assert all(text.endswith(" Index") or " Index " in text for text in after[:len(after) - len(fillers)])


def test_gutter_grows_with_the_page_count() -> None:
    assert [pdf.gutter_mm(n) for n in (8, 32, 33, 64, 96, 160)] == [15, 15, 16, 16, 17, 19]


def test_each_caption_prints_once(editions: tuple[Path, object]) -> None:
    folder, report = editions
    text = " ".join(text_of(folder / f"{BOOK}.pdf"))
    book = report.books[0].book  # type: ignore[attr-defined]
    # The player's book prints the player's examples alone (rulepress/audience.py): the designer's are not in it.
    results = [r for r in report.results if not audience.designer_only(r.example, book)]  # type: ignore[attr-defined]
    assert len(results) < len(report.results)  # type: ignore[attr-defined]
    captions = [cp.caption for r in results for cp in r.checkpoints.values() if cp.caption]
    assert captions
    for caption in set(captions):
        # Once under each figure with this caption, plus wherever the example's prose says the same words.
        said = sum(" ".join((r.text or "").split()).count(caption) for r in results)
        assert text.count(" ".join(caption.split())) == captions.count(caption) + said, caption


def pages_of(ranges: str) -> list[int]:
    """ "3–5, 9" -> [3, 4, 5, 9]."""
    found: list[int] = []
    for part in ranges.split(", "):
        first, _, last = part.partition("–")
        found += list(range(int(first), int(last or first) + 1))
    return found


def test_index_gives_sub_entries_and_page_ranges(editions: tuple[Path, object]) -> None:
    """Every index entry's pages (ranges included) hold the term or one of its names; a term used in several
    sections has a sub-entry for each, named for the section; a plural is folded into its term, not a "see"."""
    folder, _ = editions
    pages = text_of(folder / f"{BOOK}.pdf")
    start = next(n for n, text in enumerate(pages) if text.startswith("Index"))
    lines = [line for page in pdfpages.read(folder / f"{BOOK}.pdf")[start:-1] for line in page.lines]
    book = load_book(ROOT, BOOK)
    checked, subs, ranges = 0, 0, 0
    entry = re.compile(r"(.+?), ((?:\d+(?:–\d+)?, )*\d+(?:–\d+)?)$")
    # An entry: a glossary term (its names, the rule defining it) or one of book.yaml's index words (the word, in
    # any of its forms, and the rule titled with it, if any); a rule's title under an entry is a sub-entry.
    entries = {term.term: ([term.term, *term.aliases], book.rules[term.rule]) for term in book.glossary}
    for word in book.data.get("index") or []:  # printed as the glossary's terms are: "fight" heads "Fight"
        entries.setdefault(pdf.head_word(word), ([word], next((r for r in book.rules.values()
                                                               if r.title.lower() == word.lower()), None)))
    titles = {rule.title for rule in book.rules.values()}
    current = None
    for line in lines:
        found = entry.fullmatch(line.strip())
        if not found:
            if line.strip() in entries:  # an entry without pages of its own: its sub-entries follow
                current = entries[line.strip()]
            continue
        name, numbers = found.groups()
        if name in entries:
            current = entries[name]
        elif name in titles and current is not None:
            subs += 1
        else:
            current = None  # an entry this test does not read: its sub-entries are not the entry's before it
            continue
        ranges += "–" in numbers
        names, rule = [n.lower() for n in current[0]], current[1]
        defined = f"{rule.number} {rule.title}".lower() if rule is not None else None
        for number in pages_of(numbers):  # a page using the term, or the page of the rule defining it
            text = pages[number - 1].lower()
            assert any(n in text for n in names) or (defined is not None and defined in text), (name, number)
            checked += 1
    assert checked >= 10 and subs >= 3 and ranges >= 1, (checked, subs, ranges)
    index = " ".join(pages[start:-1])
    for term in book.glossary:
        for alias in term.aliases:
            assert (f"{pdf.head_word(alias)}, see {term.term}" in index) != pdf.inflection_of(alias, term.term), alias


def test_digital_edition_is_tagged_titled_and_described(editions: tuple[Path, object]) -> None:
    folder, report = editions
    with pikepdf.open(folder / f"{BOOK}-digital.pdf") as book:
        assert str(book.Root.Lang) == "en" and bool(book.Root.ViewerPreferences.DisplayDocTitle)
        assert str(book.trailer.Info.Title) == f"Lantern — {strings('en')('screen_label')}"
        assert "/BleedBox" not in book.pages[3].obj or book.pages[3].trimbox == book.pages[3].obj.BleedBox
        alts = [str(e.Alt) for e, _ in pdfchecks._structure(book.Root.StructTreeRoot, "")
                if e.get("/S") == "/Figure" and "/Alt" in e]
        with book.open_outline() as outline:
            titles = [item.title for item in outline.root]
        assert titles[:3] == ["Contents", "1 About Lantern", "2 The adventure sheet"]
        assert titles[-2:] == ["Glossary", "Index"]
    book_model = report.books[0].book  # type: ignore[attr-defined]
    shown = [r for r in report.results if not audience.designer_only(r.example, book_model)]  # type: ignore[attr-defined]
    captions = [cp.caption for r in shown for cp in r.checkpoints.values() if cp.caption]  # the player's examples
    setup = report.books[0].figures.setup_captions["en"]  # type: ignore[attr-defined]
    described = [a for a in alts if a.startswith("Diagram: ") and not a.startswith(f"Diagram: {setup}.")]
    assert len(described) == len(captions)
    # Caption first, then the engine's own words for the position (longer than the caption alone).
    assert all(len(a) > len(f"Diagram: {c}. ") + 20 for a, c in zip(described, captions, strict=True))
    # The setup diagram (rulepress/verify/figures.py) is described once too, the same way.
    assert len([a for a in alts if a.startswith(f"Diagram: {setup}. ") and len(a) > len(setup) + 30]) == 1


def test_cover_art_uses_the_game_palette_in_cmyk() -> None:
    engine = load_engine("lantern", ROOT)
    game = palette.game_palette(engine.palette)
    art, _, _ = cover.motif(game, "lantern", None)
    fills = set(re.findall(r'(?:fill|stroke)="([^"]+)"', art)) - {"none"}
    assert fills and fills <= {palette.device_cmyk(c) for c in cover.piece_colours(game)}
    swop = Proof.of(shipped("swop"))
    screen, _, _ = cover.motif(game, "lantern", swop)
    assert "device-cmyk" not in screen and fills == {palette.device_cmyk(c) for c in cover.piece_colours(game)
                                                     if swop.rgb(c) in screen}


@pytest.mark.parametrize("book_id", book_ids(ROOT))
def test_engine_diagrams_are_cmyk_captionless_and_readable(book_id: str) -> None:
    """Every colour in an engine's diagram is device-cmyk, no text is under 10 units, and no caption is drawn."""
    book = load_book(ROOT, book_id)
    engine = load_engine(book.engine_package, ROOT)
    game = engine.make_game(book.components)
    players = ["Ann", "Ben", "Cara"][: max(book.data["players"]["min"], min(3, book.data["players"]["max"]))]
    caption = "A caption only the book prints"
    svg = game.render_svg(game.new_state(players, 7), caption)
    root = ET.fromstring(svg)
    colours = {e.get(k) for e in root.iter() for k in ("fill", "stroke") if e.get(k)} - {"none"}
    assert colours and all(c.startswith("device-cmyk(") for c in colours), colours
    sizes = [float(e.get("font-size", "0")) for e in root.iter("{http://www.w3.org/2000/svg}text")]
    assert sizes and min(sizes) >= 10
    assert caption not in svg
    assert float(root.get("viewBox", "0 0 0 0").split()[2]) == 480  # printed across the text block


def test_example_lead_keeps_title_rules_and_first_paragraph_together() -> None:
    head = '<h3>T</h3><p class="credit">c</p><p><em>Rules:</em> r</p>'
    marked = '<h3>T</h3><p class="credit">c</p><p class="example-rules"><em>Rules:</em> r</p>'  # the page flow's mark
    steps = '<div class="transcript"><p>Steps:</p></div>'
    # The paragraph opening the example joins the block; the diagram and the rest do not (they break alone).
    assert pdf._example_blocks(head + "<p>one</p><figure>F</figure><p>two</p>" + steps) == \
        f'<div class="example-lead">{marked}<p>one</p></div><figure>F</figure><p>two</p>{steps}'
    assert pdf._example_blocks(head + "<figure>F</figure>" + steps) == \
        f'<div class="example-lead">{marked}</div><figure>F</figure>{steps}'
    assert pdf._example_blocks(head + steps) == f'<div class="example-lead">{marked}</div>{steps}'
