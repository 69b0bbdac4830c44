"""The print layout in one pass: a fixed text block, the gutter moved in afterwards, the index laid out after."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rulepress.publish.pdfchecks import SAFE_MM
from rulepress.render import pdf, weasyprint_patches
from rulepress.verify.gate import Report

from .conftest import ROOT, checks_of


def test_the_text_block_keeps_its_width_as_the_gutter_grows() -> None:
    spans = set()
    for pages in range(4, 225, 4):
        inner, outer = pdf.margins(pdf.gutter_mm(pages))
        assert inner == pdf.gutter_mm(pages) and outer >= pdf.MIN_OUTER_MM > SAFE_MM
        spans.add(inner + outer)
    assert spans == {pdf.BASE_GUTTER_MM + pdf.OUTER_MM}
    # Past that the outer margin stops shrinking: the text block narrows (and the book is laid out again).
    inner, outer = pdf.margins(pdf.gutter_mm(640))
    assert outer == pdf.MIN_OUTER_MM and inner + outer > pdf.BASE_GUTTER_MM + pdf.OUTER_MM


def fake(pages: list[list[str]]) -> Any:
    """A laid-out document as ``_join`` reads it: pages and the anchors on each."""
    return SimpleNamespace(pages=[SimpleNamespace(anchors=dict.fromkeys(names), names=names,
                                                  _page_box=SimpleNamespace(children=[])) for names in pages])


def joined(first: int, index_pages: int, edition: str = "print", side: bool = False) -> list[str]:
    body = fake([[f"body-{n}"] for n in range(1, first)] + [["index"]])
    tail = fake([["side"]] * side + [["index"]] + [[]] * (index_pages - 1)
                + [["filler-aid"], ["filler-box"], ["filler-notes"], ["back-cover"]])
    job = SimpleNamespace(cmyk=edition != "digital", edition=edition,
                          check=SimpleNamespace(book=SimpleNamespace(id="b")))
    pages, _needed = pdf._join(job, body, tail, first)  # type: ignore[arg-type]
    return [" ".join(page.names) or "index+" for page in pages]


@pytest.mark.parametrize("first, index_pages, fillers", [
    (10, 2, []), (11, 2, ["filler-aid", "filler-box", "filler-notes"]), (12, 2, ["filler-aid", "filler-notes"]),
    (13, 1, ["filler-aid", "filler-notes"]), (9, 3, []), (10, 1, ["filler-notes"])])
def test_join_keeps_the_fillers_a_multiple_of_4_needs(first: int, index_pages: int, fillers: list[str]) -> None:
    """A multiple of 4, with never more than one page for notes: a player aid and the game at a glance first."""
    pages = joined(first, index_pages, side=first % 2 == 0)
    assert len(pages) % 4 == 0
    assert pages[:first - 1] == [f"body-{n}" for n in range(1, first)]  # the body's page with the index dropped
    assert pages[first - 1:first - 1 + index_pages] == ["index"] + ["index+"] * (index_pages - 1)
    assert pages[first - 1 + index_pages:] == fillers + ["back-cover"]
    assert pages.count("filler-notes") <= 1


def test_join_pads_no_screen_edition() -> None:
    assert joined(11, 2, "digital") == [f"body-{n}" for n in range(1, 11)] + ["index", "index+", "back-cover"]


def test_a_filler_on_two_pages_is_refused() -> None:
    body = fake([["index"]])  # a cover, the index and the back cover: two fillers, the aid among them
    tail = fake([["index"], ["filler-aid"], [], ["filler-box"], ["filler-notes"], ["back-cover"]])
    job = SimpleNamespace(cmyk=True, edition="print", check=SimpleNamespace(book=SimpleNamespace(id="b")))
    with pytest.raises(RuntimeError, match="the aid page was laid out on 2 pages"):
        pdf._join(job, body, tail, 1)  # type: ignore[arg-type]


def test_a_back_cover_on_two_pages_is_refused() -> None:
    """A turn summary (or cover text) too long for the back cover refuses the build, naming book.yaml."""
    from rulepress.errors import BuildRefused

    body = fake([["body"], ["index"]])
    tail = fake([["index"], ["filler-aid"], ["filler-box"], ["filler-notes"], ["back-cover"], []])
    job = SimpleNamespace(cmyk=True, edition="print",
                          check=SimpleNamespace(book=SimpleNamespace(id="b", path=lambda name: f"rules_src/b/{name}")))
    with pytest.raises(BuildRefused) as refused:
        pdf._join(job, body, tail, 2)  # type: ignore[arg-type]
    assert re.fullmatch(r"rules_src/b/book\.yaml: the back cover runs over 2 pages in the print edition: .*"
                        r"turn_summary .*", refused.value.problems[0])


@pytest.mark.parametrize("lines, over", [(10, False), (22, True)])
def test_a_back_cover_running_under_its_facts_line_is_measured(lines: int, over: bool) -> None:
    """The back cover's facts line sits at its foot; what the cover holds must end above it (pdf._join refuses a
    book whose cover texts or turn summary run under it)."""
    html = ('<html><head><style>@page { size: A5; margin: 0 } section { height: 210mm; position: relative }'
            ".facts-line { position: absolute; bottom: 12mm; left: 0; margin: 0 }</style></head><body>"
            '<section class="cover back">' + "<p>Line of the turn summary</p>" * lines +
            '<p class="facts-line">Players: 2 · Ages: 8+</p></section></body></html>')
    page = pdf.weasyprint.HTML(string=html).render().pages[0]
    assert (pdf._back_cover_overflow(page) > 0) == over


def placed(document: Any) -> list[list[tuple[str, str, float, float]]]:
    """Every box's text and place on each page (CSS px, to 1/100), and each page's anchors and links."""
    def walk(box: Any, out: list[tuple[str, str, float, float]]) -> None:
        out.append((type(box).__name__, getattr(box, "text", ""), round(box.position_x, 2), round(box.position_y, 2)))
        for child in box.all_children():
            walk(child, out)

    pages = []
    for page in document.pages:
        boxes: list[tuple[str, str, float, float]] = []
        walk(page._page_box, boxes)
        boxes += [("anchor", name, round(x, 2), round(y, 2)) for name, (x, y, *_) in sorted(page.anchors.items())]
        boxes += [("link", str(target), round(rect[0], 2), round(rect[1], 2)) for _, target, rect, _ in page.links]
        pages.append(boxes)
    return pages


@pytest.fixture(scope="module")
def lantern(bundled: Report) -> Any:
    return checks_of(bundled, "lantern").books[0]


Press = tuple[Path, Any, Any, list[list[tuple[str, str, float, float]]]]


@pytest.fixture(scope="module")
def press(lantern: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Press]:
    """Lantern's print edition laid out from the first guess at its gutter, as a build lays it out: the folder of
    its diagrams, the document, its layout, and its boxes' places read at once (``digital_from_press`` moves the
    document's boxes).  Two tests read it, and each layout costs many seconds; its fonts' scratch folder lives as
    long as the document."""
    folder = tmp_path_factory.mktemp("press")
    with pdf.font_scratch():
        job = pdf.PrintInput(lantern, folder, edition="print")
        document, layout, _tail = pdf.lay_out(job, guess=pdf.BASE_GUTTER_MM)
        yield folder, document, layout, placed(document)


def test_moving_the_gutter_gives_the_layout_made_with_it(lantern: Any, press: Press) -> None:
    """The book laid out with the smallest gutter and moved to its own is, box for box, the book laid out with its
    own gutter from the start (the text block's width is the same: so are the page breaks)."""
    folder, _moved, layout, moved_places = press  # laid out from the smallest gutter, pdf.BASE_GUTTER_MM
    with pdf.font_scratch():
        assert layout.gutter_mm > pdf.BASE_GUTTER_MM, "the book needs a wider gutter than the first guess"
        direct, same, _other = pdf.lay_out(pdf.PrintInput(lantern, folder, edition="print"), guess=layout.gutter_mm)
        assert same == layout
        assert moved_places == placed(direct)


def test_index_and_fillers_follow_the_body_page_numbers(lantern: Any, tmp_path: Path) -> None:
    """The tail (index, fillers, back cover) is numbered on from the body: its folios follow the body's pages; the
    index lists the pages of the body its terms are used on."""
    job = pdf.PrintInput(lantern, tmp_path, edition="designer")
    timing: dict[str, float] = {}
    with pdf.font_scratch():
        document, layout, _tail = pdf.lay_out(job, timing)
        anchors = pdf._anchor_pages(document)
        texts = [" ".join(t for *_, t in _texts(page)) for page in document.pages]
    assert len(document.pages) % 4 == 0 and timing["tool"] > timing["own"] > 0
    index = anchors["index"]
    assert anchors["rule-coverage"] < index  # the designer's parts come before the index, which comes last
    assert all(number < index for pages in layout.index_pages.values() for number in pages)
    for number in range(index, len(texts)):  # index and fillers: each prints its own page number
        assert str(number) in texts[number - 1].split(), number
    assert not any("Lantern at a glance" in text for text in texts)  # no filler page repeats the contents


def _texts(page: Any) -> list[tuple[float, str]]:
    found: list[tuple[float, str]] = []

    def walk(box: Any) -> None:
        if getattr(box, "text", None):
            found.append((box.position_y, box.text))
        for child in box.all_children():
            walk(child)

    walk(page._page_box)
    return found


@pytest.mark.parametrize("first", [40, 41])
def test_the_tail_starts_on_the_side_and_number_it_is_given(lantern: Any, tmp_path: Path, first: int) -> None:
    """A tail starting on a left-hand (even) page is laid out after a page that sets the side, dropped when joined;
    either way its pages carry the folios that follow the body's, on the outer edge."""
    job = pdf.PrintInput(lantern, tmp_path, edition="print")
    with pdf.font_scratch():
        tail = pdf._render(job, pdf.Layout(), "tail", pdf.Tail(first, pdf.FILLERS))
    start = pdf._anchor_pages(tail)["index"]
    assert start == (2 if first % 2 == 0 else 1)
    for number, page in enumerate(tail.pages[start - 1:-1], start=first):  # the back cover has no folio
        box = page._page_box
        assert box.page_type.side == ("right" if number % 2 else "left")
        folios = [(x, text) for _, text, x in _folios(box)]
        assert [text for _, text in folios] == [str(number)], number
        middle = box.margin_width() / 2
        assert (folios[0][0] > middle) == (number % 2 == 1)  # right-hand pages: folio on the right


def _folios(page_box: Any) -> list[tuple[float, str, float]]:
    """The text in a page's bottom margin boxes: (y, text, x)."""
    found: list[tuple[float, str, float]] = []

    def walk(box: Any) -> None:
        if getattr(box, "text", None):
            found.append((box.position_y, box.text, box.position_x))
        for child in box.all_children():
            walk(child)

    for box in page_box.children:
        if type(box).__name__ == "MarginBox" and box.at_keyword.startswith("@bottom"):
            walk(box)
    return found


def test_soft_hyphens_mark_words_but_never_names_ids_or_code() -> None:
    from rulepress.render.typography import SOFT_HYPHEN, typeset_html

    page = ('<p>Understanding understanding: ll.components, rose-2, dusk_in_refill, Fireflies, '
            '<code>rulepress analyze</code>, <a class="term" href="#t">remaining</a>, see https://example.org/remaining'
            '</p><h2>Understanding</h2>')
    done = typeset_html(page, "en", hyphenate=True).replace(SOFT_HYPHEN, "~")
    assert "Understanding un~der~stand~ing:" in done  # a capitalised word may be a name: left whole
    for kept in ("ll.components", "rose-2", "dusk_in_refill", "Fireflies", "<code>rulepress analyze</code>",
                 ">remaining</a>", "https://example.org/remaining", "<h2>Understanding</h2>"):
        assert kept in done, kept
    assert typeset_html("<p>règlement</p>", "fr", hyphenate=True).replace(SOFT_HYPHEN, "~") == "<p>rè~gle~ment</p>"
    assert typeset_html(page, "en") == page  # the site: English text untouched
    table = "<table><tr><th>answer</th></tr><tr><td>when no sequence remains, exhausted</td></tr></table>"
    assert typeset_html(table, "en", hyphenate=True) == table  # a cell hyphenated made its table wider than a page


def test_references_are_tied_to_their_numbers() -> None:
    from rulepress.render.typography import NBSP, typeset_html

    done = typeset_html("<p>see rule 4.4, p. 11, rule ll.fog.draw and the rule of thumb; ferule 3</p>", "en",
                        joined=("p.", "rule"))
    assert f"rule{NBSP}4.4, p.{NBSP}11, rule{NBSP}ll.fog.draw and the rule of thumb; ferule 3" in done


def test_page_ranges_and_plurals() -> None:
    assert pdf.page_ranges([9, 3, 4, 5, 11, 12]) == "3–5, 9, 11–12"
    assert pdf.page_ranges([7]) == "7" and pdf.page_ranges([]) == ""
    for plural, term in [("Dusk cards", "Dusk card"), ("Fireflies", "Firefly"), ("wild dice", "Wild die"),
                         ("Wolves", "Wolf"), ("Lueurs étranges", "Lueur étrange"), ("lit wicks", "Lit wick")]:
        assert pdf.inflection_of(plural, term), plural
    for other, term in [("sheet", "Adventure sheet"), ("grey column", "shared column"), ("Decks", "Desk")]:
        assert not pdf.inflection_of(other, term), other


def test_each_example_goes_after_the_last_rule_it_names_from_its_chapter(lantern: Any) -> None:
    """After the section of its first rule, or of a later rule it names from the same chapter (never before a rule
    it uses: "Rolling the adventurer" names 3.1 to 3.3 and goes after 3.3); a rule of another chapter is a
    cross-reference."""
    from rulepress.render import markdown as render

    book = lantern.book
    placed = render.example_sections(book, lantern.results)
    sections = render.sections(book)
    assert sum(len(results) for results in placed.values()) == len(lantern.results)
    order = [rule.id for chapter in book.chapters for rule in chapter.rules]
    moved = 0
    for last, results in placed.items():
        for result in results:
            chapter = book.rules[result.example.rules[0]].chapter
            mine = [r for r in result.example.rules if book.rules[r].chapter == chapter]
            latest = max(mine, key=lambda r: order.index(r))
            section = sections[latest]
            # the slot is the last rule of that section: after it comes the next section (or the chapter's end)
            assert sections[last] == section or book.rules[section].level == 1
            after = order.index(last) + 1
            assert after == len(order) or sections[order[after]] != section
            assert all(order.index(r) <= order.index(last) for r in mine)
            moved += section != sections[result.example.rules[0]]
    assert moved >= 3  # Lantern's setup and journey examples name later rules of their chapters


def test_the_digital_edition_made_from_the_print_layout_is_the_one_its_html_lays_out(
        lantern: Any, press: Press, tmp_path: Path) -> None:
    """The digital edition is not laid out: its print edition's pages (the gutter moved in, fillers for a
    multiple of 4) are moved to a centred text block, trimmed, and put between covers of its own.  Box for
    box, anchor for anchor and link for link, they are the pages the digital edition's own HTML lays out."""
    folder, printed, layout, _places = press  # the one test that moves its boxes
    screen = pdf.PrintInput(lantern, folder, edition="digital")
    with pdf.font_scratch():
        alone, _layout, _tail = pdf.lay_out(screen)
        # The gutter was moved, and fillers were added if the page count needed them: both are undone.
        assert layout.gutter_mm > pdf.BASE_GUTTER_MM and len(printed.pages) >= len(alone.pages)
        made = pdf.digital_from_press(printed, pdf._render(screen, layout, "covers"), layout)
        assert placed(made) == placed(alone)
        assert [page.bleed for page in made.pages] == [page.bleed for page in alone.pages]
        assert [(page.width, page.height) for page in made.pages] == [(p.width, p.height) for p in alone.pages]
        assert (made.metadata.title, made.color_profiles) == (alone.metadata.title, {})
        # And its colours are the ones its HTML and screen diagrams name: the inks' sRGB through the book's profile.
        alone.write_pdf(tmp_path / "alone.pdf")
        with weasyprint_patches.in_screen_colours(lantern.proof):
            made.write_pdf(tmp_path / "made.pdf")
    assert _colours(tmp_path / "made.pdf") == _colours(tmp_path / "alone.pdf")
    assert not {op for op, _ in _colours(tmp_path / "made.pdf")} & {"k", "K"}


def _colours(path: Path) -> set[tuple[str, tuple[float, ...]]]:
    import pikepdf

    found = set()
    with pikepdf.open(path) as document:
        for page in document.pages:
            for operands, op in pikepdf.parse_content_stream(page, "rg RG k K scn SCN"):
                found.add((str(op), tuple(round(float(v), 4) for v in operands if not isinstance(v, pikepdf.Name))))
    assert len(found) > 5, f"{path}: too few colours to compare"
    return found


@pytest.mark.parametrize("book_id", ["lantern", "lantern-moths", "last-lantern"])
def test_every_index_head_is_written_as_the_glossary_terms_are(book_id: str) -> None:
    """Lantern's book.yaml lists "fight" (and "roll", "job"...) in lower case, as Last Lantern lists "bag" and a term's
    other names run "sheet": the index prints every head as the glossary's terms are written, a capital first
    ("Fight", "Start player"), the rest as listed ("Back on Track"); the sub-entries (rules' titles) and a "see"
    entry's term stay as they are."""
    from rulepress.load.book import load_book
    from rulepress.render import markdown as render

    book = load_book(ROOT, book_id)
    slugs = [render.term_slug(term.term) for term in book.glossary] + [
        render.word_slug(word) for word in book.data.get("index") or []]
    layout = pdf.Layout(index_uses={slug: [("", 3)] for slug in slugs},
                        word_anchors={slug: [f"{slug}-1"] for slug in slugs})
    entries = pdf._index(book, layout)
    heads = [entry["name"] for entry in entries]
    assert heads and [head for head in heads if head[:1].islower()] == []
    listed = [word for word in book.data.get("index") or [] if word[:1].islower()]
    assert listed and all(pdf.head_word(word) in heads or any(word.casefold() == term.term.casefold()
                                                                for term in book.glossary) for word in listed)
    assert pdf.head_word("fight") == "Fight" and pdf.head_word("Back on Track") == "Back on Track"
    assert {entry["see"] for entry in entries if entry["see"]} <= {term.term for term in book.glossary}
