"""Everything rulepress does with WeasyPrint beyond its public API, in one place, for one version of it.

Each name below was read in WeasyPrint's source at :data:`READ_AGAINST`, the version constraints.txt pins; a
replaced function must do what that version's does and more, a private one must mean what it meant there.  So the
patches apply on that exact version only (:func:`in_force`).  With any other WeasyPrint, rulepress says so once
(on stderr) and makes the PDFs without them: the same pages, laid out the plain way and slower
(:mod:`rulepress.render.pdf` lays out again where it would move boxes, and lays out a digital edition of its own
where it would reuse the print edition's pages), with WeasyPrint's own page numbers, which the preflight's
``pagechecks.references_right`` still reads back and refuses when one is stale, and a PDF/X document ID that is
WeasyPrint's random one.  Moving to a new WeasyPrint: read each name again in its source, then change
:data:`READ_AGAINST` and the pin together (tests/test_weasyprint_patches.py holds the two to each other).

Each patch's docstring ends with the report it would make upstream, ready to file: once WeasyPrint does it
itself, the patch can go.
"""

from __future__ import annotations

import copy
import functools
import importlib
import importlib.metadata
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rulepress.proof import Proof

READ_AGAINST = "70.0"
"""The WeasyPrint every name in :data:`INTERNALS` was read against (constraints.txt pins it)."""


@dataclass(frozen=True)
class Internal:
    name: str  # where it is, in WeasyPrint
    how: str  # "replaced" while a patch is in force, "class swapped", or "used" (private, or not meant for callers)
    by: str  # what of this module does it


INTERNALS = (
    Internal("weasyprint.svg.color", "replaced", "svg_worked_out_once"),
    Internal("weasyprint.svg.size", "replaced", "svg_worked_out_once"),
    Internal("weasyprint.text.line_break.split_first_line", "replaced", "svg_worked_out_once"),
    Internal("weasyprint.text.line_break.Layout", "class swapped (a measured letter's layout)", "svg_worked_out_once"),
    Internal("weasyprint.svg.text.Style", "used", "svg_worked_out_once"),
    Internal("weasyprint.css.targets.TargetCollector.collect_missing_counters", "replaced", "references_twice"),
    Internal("weasyprint.css.targets.TargetCollector.cache_target_page_counters", "replaced", "references_twice"),
    Internal("weasyprint.css.targets.anchor_name_from_token", "used", "references_twice"),
    Internal("weasyprint.urls.get_url_tuple", "used", "references_twice"),
    Internal("weasyprint.pdf.stream.Stream.set_color", "replaced", "in_screen_colours"),
    Internal("weasyprint.pdf.metadata.uuid4", "replaced", "document_id"),
    Internal("weasyprint.document.Page._page_box", "used", "move_sideways, page_again, page_type"),
    Internal("weasyprint.formatting_structure.boxes.PageBox.page_type", "used", "page_type"),
    Internal("weasyprint.document.Page", "used (made from a page box)", "move_sideways, page_again"),
    Internal("weasyprint.formatting_structure.boxes.Box.translate", "used", "move_sideways"),
    Internal("weasyprint.layout.background.layout_backgrounds", "used", "move_sideways"),
)

_WARNED: set[str] = set()


@functools.cache
def installed() -> str:
    """The installed WeasyPrint's version, from its metadata (WeasyPrint itself is not imported for it)."""
    return importlib.metadata.version("weasyprint")


def in_force() -> bool:
    """Whether the patches apply: the installed WeasyPrint is the one they were read against.  Otherwise says so,
    once per process, and they do not."""
    version = installed()
    if version == READ_AGAINST:
        return True
    if version not in _WARNED:
        _WARNED.add(version)
        print(f"rulepress: warning: WeasyPrint {version} is installed, but rulepress's changes to WeasyPrint were "
              f"read against {READ_AGAINST} (constraints.txt pins it): the PDFs are made without them, laid out "
              "the plain way (slower), with WeasyPrint's own page numbers (the preflight checks each) and a random "
              "PDF/X document ID", file=sys.stderr, flush=True)
    return False


@contextmanager
def speed_ups() -> Iterator[bool]:
    """While a job lays out and writes its pages: its SVG strings worked out once and its page references laid
    out twice (:func:`svg_worked_out_once`, :func:`references_twice`), when the patches are in force; yields
    whether they are."""
    if not in_force():
        yield False
        return
    with svg_worked_out_once(), references_twice():
        yield True


# -- SVG: what depends only on its strings, worked out once ------------------------------------------------------

@contextmanager
def svg_worked_out_once() -> Iterator[None]:
    """WeasyPrint's SVG drawing, with what depends only on its strings worked out once per job.

    WeasyPrint parses a node's fill and stroke colour (tinycss2) and its lengths again for every node it draws,
    and it lays out an SVG text with Pango twice: the whole string (for its width) and then each letter on its own,
    each in a new Pango layout set up again before the letter is drawn.  It draws every diagram once per edition: a
    cold build of the bundled books made 140,000 colour parses and 640,000 length parses, and Last Lantern's print
    and digital editions alone 31,700 text layouts (of some 300 different letters and strings), which with their
    set-ups were a quarter of drawing those editions' diagrams (1.7 of 6.9 CPU s).  All three are pure functions of
    their strings (and, for the letters, of the few style values an SVG text has), so they are looked up instead:

    - a colour is handed out as a copy each time, because WeasyPrint multiplies a fill's or a stroke's opacity
      into it in place;
    - a letter's layout is shared by every drawing of that letter in that style; it is set up for drawing once
      (``Layout.reactivate``), since setting it up again would give the same Pango layout.

    Upstream report, ready to file:

        Title: SVG drawing parses the same colour and length strings, and lays out the same letters, again for
        every node

        What WeasyPrint does: ``weasyprint.svg.color()`` and ``weasyprint.svg.size()`` parse their string each
        time a node is drawn, and ``svg/text.py`` lays out each letter of a ``<text>`` with
        ``split_first_line`` in a new Pango layout, set up again (``Layout.reactivate``) before it is drawn.

        Why it is slow: diagrams repeat a few fills, strokes, lengths and letters thousands of times; in a
        rulebook of 76 pages with 120 diagrams these were a quarter of the SVG drawing time.

        Reproduction::

            import weasyprint
            rects = "".join(f'<rect x="{i % 100}" y="{i // 100}" width="1" height="1" fill="#336699"/>'
                            f'<text x="{i % 100}" y="{i // 100}" font-size="1">ab</text>' for i in range(5000))
            svg = f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50">{rects}</svg>'
            weasyprint.HTML(string=f'<img src="data:image/svg+xml,{svg}">').write_pdf("out.pdf")
            # profile: 5,000 tinycss2 colour parses, 20,000+ size() parses, 15,000 Pango layouts for 2 letters

        Suggested fix: memoise ``color()`` and ``size()`` on their arguments (returning a copy of the colour, or
        no longer multiplying the opacity into it in place), and cache a letter's measured layout by its text and
        the font properties an SVG text can set, reusing it when it is drawn.
    """
    import weasyprint.svg as svg
    import weasyprint.text.line_break as line_break

    svg_text = importlib.import_module("weasyprint.svg.text")  # the module: ``weasyprint.svg.text`` is its function
    colour, length, split = svg.color, svg.size, line_break.split_first_line
    parsed = functools.lru_cache(maxsize=4096)(colour)

    def color(string: Any) -> Any:
        found = parsed(string)
        if isinstance(found, str):  # "currentcolor": resolved by the caller
            return found
        return type(found)(found.space, found.coordinates, found.alpha)

    # Its arguments are an attribute's string (or None) and font sizes: always dictionary keys.
    svg.color, svg.size = color, functools.lru_cache(maxsize=16384)(length)
    line_break.split_first_line = _measured_once(split, svg_text.Style, line_break.Layout)
    try:
        yield
    finally:
        svg.color, svg.size, line_break.split_first_line = colour, length, split


def _measured_once(split: Callable[..., Any], style_class: type, layout_class: type) -> Callable[..., Any]:
    """``split_first_line`` with an SVG text's lines (one unbroken line each: no width to fit) looked up."""

    class SetUpOnce(layout_class):  # type: ignore[misc, valid-type]
        """A letter's layout as drawn: the same Pango layout every time, so it is set up the first time only."""

        def reactivate(self, style: Any) -> None:
            if not hasattr(self, "layout"):  # deactivated since it was measured
                super().reactivate(style)

    measured: dict[tuple[Any, ...], Any] = {}

    def split_first_line(text: str, style: Any, context: Any, *fit: Any) -> Any:
        if type(style) is not style_class:  # not an SVG text's
            return split(text, style, context, *fit)
        # An SVG text's style is WeasyPrint's initial values with five of the node's own (svg/text.py), and its
        # fonts; the context matters only to a line that must fit a width (for hyphenation): none in an SVG.
        key = (text, tuple(style["font_family"]), style["font_style"], style["font_weight"], style["font_size"],
               style["direction"], style.font_config, *fit)
        found = measured.get(key)
        if found is None:
            found = split(text, style, context, *fit)
            found[0].__class__ = SetUpOnce
            measured[key] = found
        return found

    return split_first_line


# -- page references: each referring page laid out twice, with the right numbers ---------------------------------

COUNTERS = ("counter()", "counters()")
TARGET_COUNTERS = ("target-counter()", "target-counters()")


@contextmanager
def references_twice() -> Iterator[None]:
    """WeasyPrint's page references (``target-counter(attr(href), page)``), each laid out twice, not three times,
    and right.

    A rulebook's references name pages ("(rule 8.3, p. 11)", the contents' leaders, the index).  WeasyPrint lays
    out a page holding one, and again once the pages it names are known; that second time is needed.  WeasyPrint
    lays each such page out a third time, for nothing, because of two slips in how it follows references:

    - ``formatting_structure.build.compute_content_list`` files a reference's wanted counters under the anchor
      ``None`` when the anchor is given as ``attr(href)`` (it names the token it has not resolved), and rebinds the
      box's own list of missing counters to that list.  The reference is then never told when its anchor's page is
      known; it is updated only because its own (wrongly listed) ``page`` counter looks changed, on every pass
      until the total page count (``pages``) settles: three passes.
    - ``css.targets.TargetCollector.cache_target_page_counters`` marks a referring page as changed when any of the
      anchor's page counters changed, not only one it shows (its "TODO: Is the item at all interested in the new
      page_counter_values?").  With the first slip mended, the total page count, 0 until the first pass ends,
      would again cost a third pass.

    That third pass was one page layout in six for the bundled books (their print and designer bodies: 626 page
    layouts, 526 without it).  It did not even make the numbers right: a heading that moved on the second pass
    kept its old page in the contents (two entries of Lantern Moths' designer edition named the page before
    their section's).  Here the first slip is mended where the counters are filed
    (``TargetCollector.collect_missing_counters``: from the box's own ``content``, with ``attr()`` resolved as
    ``lookup_target`` resolves it), and the second by a copy of ``cache_target_page_counters`` that marks a page
    only when a counter it shows has a new value.  Where WeasyPrint's numbers were right the pages come out the
    same; tests/test_page_references.py shows both.

    Upstream report, ready to file:

        Title: target-counter(attr(href), page) lays each referring page out three times, and can leave a stale
        page number

        What WeasyPrint does: ``compute_content_list`` files the counters a ``target-counter(attr(href), ...)``
        wants under the anchor ``None`` (the unresolved ``attr()`` token) and rebinds the box's missing counters
        to that list; ``TargetCollector.cache_target_page_counters`` then marks a referring page as changed when
        any page counter of the anchor changed (its own TODO asks whether the item is interested).

        Why it is wrong and slow: a referring page is re-laid out only because its own ``page`` counter looks
        changed, once more for the total ``pages``: three layouts where two are enough; and a target that moves
        on the second pass is not followed, so a contents entry names the page its heading was on before.  A
        ``target-counter(attr(href), pages)`` raises AttributeError (it looks up the anchor ``None``).

        Reproduction::

            css = ".ref::after { content: ' ' target-counter(attr(href), page) } .g { width: 6.5ch }"
            html = (f"<style>@page {{ size: 100mm }} {css}</style><a class='ref' href='#a'>A</a>"
                    "<div style='break-before: page'>" + "<div class='g'><a class='ref' href='#z'>x</a></div>" * 12
                    + "<h1 id='a'>A</h1></div>" + "<p style='break-before: page'>x</p>" * 10
                    + "<h1 id='z' style='break-before: page'>Z</h1>")
            document = weasyprint.HTML(string=html).render()
            # page 1 says "A 2", but the heading "a" is on page 3; page 1 was laid out three times

        Suggested fix: resolve ``attr()`` (as ``lookup_target`` does) before filing a target's counters, keep the
        box's own missing counters, and in ``cache_target_page_counters`` mark a page only when one of the
        counters it shows (``missing_target_counters[anchor]``) has a new value.
    """
    from weasyprint.css.targets import TargetCollector

    collect, cache = TargetCollector.collect_missing_counters, TargetCollector.cache_target_page_counters
    TargetCollector.collect_missing_counters = _collect(collect)  # type: ignore[method-assign]
    TargetCollector.cache_target_page_counters = _cache_target_page_counters  # type: ignore[method-assign]
    try:
        yield
    finally:
        TargetCollector.collect_missing_counters = collect  # type: ignore[method-assign]
        TargetCollector.cache_target_page_counters = cache  # type: ignore[method-assign]


def _anchor_name(token: Any, box: Any) -> str | None:
    """The anchor a ``target-counter`` names, ``attr()`` resolved as ``TargetCollector.lookup_target`` does."""
    from weasyprint.css.targets import anchor_name_from_token
    from weasyprint.urls import get_url_tuple

    if token[0] == "attr()":
        attr_name, kind, fallback = token[1]
        value = box.element.get(attr_name, fallback)
        token = ("string", value) if kind == "string" else ("url", get_url_tuple(value, box.style.base_url))
    return anchor_name_from_token(token)


def _missing(box: Any) -> tuple[list[str], dict[str | None, list[str]]]:
    """The counters a box's ``content`` shows: its own, and each anchor's.  More than compute_content_list means
    to file: it leaves out counters the box (or the anchor's box) has, which are never page counters (all the
    pagination looks up), and counters shown as ``none``, which at worst cost one more layout of the page."""
    own: list[str] = []
    targets: dict[str | None, list[str]] = {}
    content = box.style["content"]
    for kind, value in content if isinstance(content, (list, tuple)) else ():
        if kind in COUNTERS:
            own.append(value[0])
        elif kind in TARGET_COUNTERS:
            token, counter = value[:2]
            targets.setdefault(_anchor_name(token, box), []).append(counter)
    return own, targets


def _collect(original: Callable[..., None]) -> Callable[..., None]:
    def collect_missing_counters(self: Any, parent_box: Any, css_token: str, parse_again: Any,
                                 missing_counters: list[str], missing_target_counters: dict[Any, list[str]]) -> None:
        if css_token == "content" and None in missing_target_counters:  # filed under the unresolved attr()
            missing_counters, missing_target_counters = _missing(parent_box)
        original(self, parent_box, css_token, parse_again, missing_counters, missing_target_counters)

    return collect_missing_counters


def _cache_target_page_counters(self: Any, anchor_name: str, page_counter_values: dict[str, Any],
                                page_maker_index: int, page_maker: list[Any]) -> None:
    """Store the anchor's page index and counters; mark the pages showing one of its counters that changed."""
    target = self.target_lookup_items.get(anchor_name)
    if not target or target.state != "up-to-date":
        return
    target.page_maker_index = page_maker_index  # for a reference to the total page count (layout.page.make_page)
    before = target.cached_page_counter_values
    target.cached_page_counter_values = copy.deepcopy(page_counter_values)
    for (_, css_token), lookup in self.counter_lookup_items.items():
        shown = lookup.missing_target_counters.get(anchor_name) if css_token == "content" else None
        if shown is None:
            continue
        if lookup.page_maker_index is None or lookup.page_maker_index >= len(page_maker):
            lookup.pending = True  # its page is not laid out yet: it takes the new values when it is
            continue
        if any(page_counter_values.get(name) not in (None, before.get(name)) for name in shown):
            page_maker[lookup.page_maker_index][-1]["content_changed"] = True
            lookup.parse_again(lookup.cached_page_counter_values)


# -- the digital edition's colours, written from the print edition's pages ---------------------------------------

@contextmanager
def in_screen_colours(screen: Proof) -> Iterator[None]:
    """While pages are written, every ``device-cmyk`` colour WeasyPrint sets (text, rules, backgrounds, the
    diagrams' fills and strokes) is set as the sRGB the book's proof ``screen`` gives those inks: the colours the
    digital edition's own HTML names.  WeasyPrint sets every colour through one method, ``Stream.set_color``.
    Only in force with the patches (rulepress/render/pdf.py lays a digital edition out from its own HTML, whose
    colours are all sRGB, otherwise).

    Upstream report, ready to file:

        Title: write a document's CMYK colours as sRGB through its colour profile

        What WeasyPrint does: ``device-cmyk()`` colours are written as ``/DeviceCMYK`` whatever the output is
        for; a screen edition of a print layout has to be laid out again from RGB styles.

        Why it is slow: a book's print and screen editions differ only in their colours (and bleed), yet the
        screen one costs a whole second layout.

        Reproduction::

            doc = weasyprint.HTML(string='<p style="color: device-cmyk(0 0.35 1 0)">x</p>').render()
            doc.write_pdf("screen.pdf")  # its text is set with "0 0.35 1 0 k": CMYK, not sRGB

        Suggested fix: an option of ``write_pdf`` (``color_space="srgb"``, with the ``@color-profile
        device-cmyk`` profile or a given one) that converts each ``device-cmyk`` colour in ``Stream.set_color``.
    """
    from tinycss2.color5 import parse_color
    from weasyprint.pdf.stream import Stream

    press = Stream.set_color

    @functools.lru_cache(maxsize=1024)
    def on_screen(inks: tuple[float, ...], alpha: float) -> Any:
        rgb = parse_color(screen.rgb(tuple(value * 100 for value in inks)))  # type: ignore[arg-type]
        return type(rgb)(rgb.space, rgb.coordinates, alpha)

    def set_color(self: Any, color: Any, stroke: bool = False) -> None:
        if color.space == "device-cmyk":
            color = on_screen(tuple(color.coordinates), color.alpha)
        press(self, color, stroke)

    Stream.set_color = set_color  # type: ignore[method-assign]
    try:
        yield
    finally:
        Stream.set_color = press  # type: ignore[method-assign]


# -- laid-out pages moved, and copied ----------------------------------------------------------------------------

def move_sideways(pages: list[Any], shift: Callable[[int, Any], float]) -> list[Any]:
    """``pages`` (a document's, laid out) with each one's content moved ``shift(number, page)`` CSS pixels to
    the right, as a layout with that much wider a left margin gives, when the text block keeps its width.
    WeasyPrint's own layout places boxes the same way (``Box.translate``), but it lays out backgrounds (table
    heads, tints) once a page is done, in page coordinates: they are laid out again from the moved boxes, or they
    would stay where the narrower margin put them.  Each page's anchors, links and bookmarks are then read again
    from the moved boxes (a new ``Page``).  A page not shifted is the same page.

    Upstream report, ready to file:

        Title: a public way to move a laid-out page's content (a new gutter without a new layout)

        What WeasyPrint does: ``Page`` keeps its box as ``_page_box``; ``Box.translate`` moves boxes but not
        the backgrounds, which ``layout.background.layout_backgrounds`` placed in page coordinates when the
        page was done, nor the page's anchors and links, which ``Page.__init__`` read from the boxes.

        Why it is slow: a book's gutter grows with its page count, known only once it is laid out; the pages
        break the same for any gutter when the text block keeps its width, yet the only public way to get them
        with the new gutter is to lay the whole book out again.

        Reproduction::

            doc = weasyprint.HTML(string="<table><thead style='background: #ccc'><tr><th>h</th></tr></thead>"
                                          "</table>").render()
            box = doc.pages[0]._page_box
            for child in box.children:
                child.translate(50, 0)
            doc.copy([weasyprint.document.Page(box)]).write_pdf("moved.pdf")
            # the head's grey background stays where it was; laid out again it follows the text

        Suggested fix: ``Page.translate(dx, dy)`` (or ``Document.copy(pages, shift=...)``) that moves the boxes,
        lays their backgrounds out again and reads the page's anchors, links and bookmarks again.
    """
    from weasyprint.document import Page
    from weasyprint.layout.background import layout_backgrounds

    moved = []
    for number, page in enumerate(pages, start=1):
        dx = shift(number, page)
        if not dx:
            moved.append(page)
            continue
        box = page._page_box
        for child in box.children:  # the page's content and its margin boxes (running head, folio)
            child.translate(dx, 0)
        box.margin_left += dx
        box.margin_right -= dx
        layout_backgrounds(box, _no_background_images)
        moved.append(Page(box))
    return moved


def page_again(page: Any) -> Any:
    """A new ``Page`` of ``page``'s laid-out box (its own bleed and size, the same content): another document's
    page, made from one that document keeps (see :func:`move_sideways`'s report)."""
    from weasyprint.document import Page

    return Page(page._page_box)


def page_type(page: Any) -> str:
    """The name of the ``@page`` rule a laid-out page was made with (``cover``, or "" for the default)."""
    return str(page._page_box.page_type.name or "")


def _no_background_images(url: str, **_: Any) -> None:
    """The books' style sets no background image (rule text brings no CSS): nothing to fetch again."""
    raise RuntimeError(f"a background image ({url}) on a page moved sideways: weasyprint_patches.move_sideways lays "
                       "out colour backgrounds only")


# -- a PDF/X document's ID -----------------------------------------------------------------------------------------

@contextmanager
def document_id(name: str, epoch: int) -> Iterator[None]:
    """While a PDF/X edition is written, its XMP document ID is a UUID derived from the edition's name and date,
    so the same sources give the same bytes (the date itself is the document's metadata: rulepress/render/pdf.py).

    Upstream report, ready to file:

        Title: PDF/X-4 output is not reproducible: its XMP DocumentID is uuid4()

        What WeasyPrint does: ``pdf/metadata.py`` writes ``xmpMM:DocumentID`` as ``xmp.did:{uuid4()}`` (its TODO
        says "these values could be useful instead of using random values"), and the trailer's ``/ID`` is an MD5
        of objects that include it.

        Why it is wrong: two runs over the same HTML, with ``dcterms.created``/``modified`` set, give different
        bytes, which breaks content-addressed caches and reproducible builds.

        Reproduction::

            html = weasyprint.HTML(string="<p>x</p>")
            one, two = (html.write_pdf(pdf_variant="pdf/x-4") for _ in range(2))
            assert one != two  # only the DocumentID (and /ID) differ

        Suggested fix: a ``document_id`` in ``DocumentMetadata`` (from ``<meta name="dcterms.identifier">``),
        else a UUID derived from the document's content.
    """
    if not in_force():
        yield
        return
    from weasyprint.pdf import metadata

    made = metadata.uuid4
    metadata.uuid4 = lambda: uuid.uuid5(uuid.NAMESPACE_URL, f"rulepress:{name}:{epoch}")  # type: ignore[assignment]
    try:
        yield
    finally:
        metadata.uuid4 = made  # type: ignore[assignment]
