"""Pages full to the foot: an example whose diagram would leave its page short is set as a page float
(rulepress/render/page_flow.py), on WeasyPrint's own pages, with the books' page geometry."""

from __future__ import annotations

from typing import Any

from rulepress.render import page_flow
from rulepress.render import pdf as _pdf

weasyprint = _pdf.weasyprint
STYLE = ('@font-face { font-family: "Rulepress Sans"; src: url("' + _pdf.FONTS.as_uri() + '/DejaVuSans.ttf") }'
         'html { font: 9pt/1.4 "Rulepress Sans" } p { margin: 0 0 2mm } @page { size: A5; margin: 17mm 14mm 18mm }'
         ".example-lead { break-inside: avoid } figure.diagram { margin: 2mm 0; break-inside: avoid }"
         "h2, h3 { break-after: avoid; margin: 3mm 0 1mm }")
LINE = "<p>Rules text that runs along the whole width of the text block, and on.</p>"


def example(ident: str, figure_mm: int, above_rules: str = "") -> str:
    """An example as the PDFs box it: its lead (title, what the edition prints above its rules line, the rules
    line, first paragraph), a diagram, its steps."""
    return (f'<aside class="examples"><section class="example" data-example="{ident}">'
            f'<div class="example-lead"><h3>An example</h3>{above_rules}<p class="example-rules"><em>Rules:</em> 1.1'
            f'</p>{LINE}{LINE}</div>'
            f'<figure class="diagram"><div style="height: {figure_mm}mm; background: #333"></div>'
            "<figcaption>The board</figcaption></figure><p>Steps:</p><ol><li>One</li><li>Two</li></ol>"
            "</section></aside>")


def chapter(blocks: str) -> str:
    return f'<html><head><style>{STYLE}</style></head><body><section class="chapter"><h1>1 Play</h1>{blocks}' \
           "</section></body></html>"


def laid_out(html: str, floating: bool) -> Any:
    if floating:
        with page_flow.floats():
            return weasyprint.HTML(string=html).render()
    return weasyprint.HTML(string=html).render()


def fills(document: Any) -> list[float]:
    return [round(page_flow.fill(page._page_box), 2) for page in document.pages]


def _texts(box: Any, found: list[str]) -> list[str]:
    if getattr(box, "text", None):
        found.append(box.text)
    for child in box.all_children() if hasattr(box, "all_children") else ():
        _texts(child, found)
    return found


def where(document: Any, text: str) -> int:
    """The page (1-based) a text first shows on."""
    for number, page in enumerate(document.pages, start=1):
        if any(text in piece for piece in _texts(page._page_box, [])):
            return number
    raise AssertionError(text)


def test_a_diagram_pushed_over_leaves_its_page_short_without_the_flow() -> None:
    """The harness has teeth: with the example's lead on the first page and its 120 mm diagram too tall for the
    rest of it, WeasyPrint moves the diagram over and leaves most of the page empty."""
    html = chapter(LINE * 4 + example("ex", 120) + "<h2>1.2 Next</h2>" + LINE * 40)
    assert fills(laid_out(html, floating=False))[0] < 0.45


def test_the_rules_after_the_example_fill_its_page_and_the_example_follows() -> None:
    """The example starts too low for its title and diagram: it moves after the next section's heading and text,
    block by block, until the page is full (page_flow.TARGET); its diagram opens the next page."""
    html = chapter(LINE * 4 + example("ex", 120) + "<h2>1.2 Next</h2>" + LINE * 40)
    document = laid_out(html, floating=True)
    assert fills(document)[0] >= page_flow.TARGET
    assert where(document, "1.2 Next") == 1 and where(document, "The board") == 2


def test_an_example_at_the_top_of_its_page_gets_its_diagram_first() -> None:
    """Where the title and the diagram fit in the room the example starts in, the diagram comes first, under the
    title and rules line, and its text flows on after it: the example stays where it was."""
    html = chapter(example("ex", 128) + LINE * 40)
    plain, flowed = laid_out(html, floating=False), laid_out(html, floating=True)
    assert where(plain, "An example") == where(flowed, "An example") == 1
    assert fills(plain)[0] < 0.45 and fills(flowed)[0] > 0.9
    assert where(plain, "The board") == 2 and where(flowed, "The board") == 1


def _order(document: Any, texts: list[str]) -> list[str]:
    """``texts`` in the order the document prints them."""
    pieces = [piece for page in document.pages for piece in _texts(page._page_box, [])]
    return sorted(texts, key=lambda text: next(i for i, piece in enumerate(pieces) if text in piece))


def test_the_diagram_set_first_goes_under_the_rules_line_whatever_is_above_it() -> None:
    """The designer edition prints a "verified" line between the title and the rules line: the diagram moved first
    still goes under the rules line, which stays with its title."""
    html = chapter(example("ex", 128, above_rules='<p class="verified">Verified</p>') + LINE * 40)
    flowed = laid_out(html, floating=True)
    assert where(flowed, "The board") == 1
    assert _order(flowed, ["Verified", "Rules:", "The board", "Rules text"]) == [
        "Verified", "Rules:", "The board", "Rules text"]


def example_led_by_its_diagram(ident: str, figure_mm: int) -> str:
    """An example whose diagram is already set first, in its lead (title, rules line, diagram), which keeps
    together: too tall for the room left, the example moves over whole."""
    return (f'<aside class="examples"><section class="example" data-example="{ident}">'
            f'<div class="example-lead"><h3>An example</h3><p class="example-rules"><em>Rules:</em> 1.1</p>'
            f'<figure class="diagram"><div style="height: {figure_mm}mm; background: #333"></div>'
            f"<figcaption>The board</figcaption></figure></div>{LINE}<p>Steps:</p><ol><li>One</li></ol>"
            "</section></aside>")


def test_an_example_that_moves_over_whole_lets_the_next_rules_fill_its_page() -> None:
    """Its lead does not fit under the text before it, so nothing of the example is on the page, which would stay
    under the preflight's floor (page_flow.SHORT): the next section comes up instead, and the example follows."""
    html = chapter(LINE * 6 + example_led_by_its_diagram("ex", 150) + "<h2>1.2 Next</h2>" + LINE * 40)
    plain, flowed = laid_out(html, floating=False), laid_out(html, floating=True)
    assert fills(plain)[0] < page_flow.SHORT and where(plain, "An example") == 2  # the harness has teeth
    assert fills(flowed)[0] >= page_flow.SHORT
    assert where(flowed, "1.2 Next") == 1 and where(flowed, "An example") == 2
    assert _order(flowed, ["Rules text", "1.2 Next", "An example"]) == ["Rules text", "1.2 Next", "An example"]


def test_an_example_never_leaves_its_chapter() -> None:
    """At its chapter's end there is nothing to move it past: the page stays as WeasyPrint made it."""
    html = chapter(LINE * 4 + example("ex", 120))
    assert fills(laid_out(html, floating=True)) == fills(laid_out(html, floating=False))


def test_the_flow_is_off_outside_its_context() -> None:
    from weasyprint.layout import page

    original = page.remake_page
    with page_flow.floats():
        assert page.remake_page is not original
    assert page.remake_page is original
