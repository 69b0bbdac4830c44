"""A built PDF read back once, for every check the preflight makes (``pdfchecks``).

Two readers, each for what it does fastest: PDFium (pypdfium2) lays out each page's objects (their bounds, a
text object's printed size and origin), its text line by line and the bookmarks; qpdf (pikepdf) gives the
document's structure (output intents, fonts, boxes, tags, links) and, for a press edition, the colour operators
of its content streams, the one thing PDFium does not keep (it converts every colour to RGB).  A walk over
qpdf's operators in Python, which did all of this before, took four times as long.

Positions are in points from the trim box's lower left corner: the print edition (with bleed) and the digital
edition (none) compare directly.
"""

from __future__ import annotations

import ctypes
import functools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pikepdf
import pypdfium2
import pypdfium2.raw as pdfium

from rulepress import account

MM = 72 / 25.4
# The text block's top and bottom margins, as rulepress/render/templates/print.html sets them for every edition
# (tests/test_preflight.py holds the two to each other): the running head sits above the block, the folio below.
TOP_MM, BOTTOM_MM = 17.0, 18.0
SMALLEST_PT = 6.0  # text smaller than this at printed size is named with its font (see ``Run.font``)
# Fill by ink (``Page.fill``): a page is read for how far down its ink reaches.  Text and pictures are ink; a path
# thinner than THIN_PT (a rule, a box's side) is not; a larger path or a form (a box broken over the page draws its
# sides down to the foot as one even-odd path) may be mostly empty, so where one reaches lower than the text and
# decides whether the page is FILL full, the page is rendered (INK_DPI, grey) and read row by row: a row is ink
# when at least INK_ROW of the text block's width is dark (under INK_DARK of 255).
FILL = 0.4
THIN_PT = 1.5
INK_DPI, INK_ROW, INK_DARK = 30, 0.03, 160
BLOCK_WIDTH_MM = 119.0  # the text block's width on an A5 page: its trim less the margins (render/pdf.py margins)
SAFE_MM = 5.0  # text closer than this to the trim is named with its font too

KINDS = {pdfium.FPDF_PAGEOBJ_TEXT: "text", pdfium.FPDF_PAGEOBJ_PATH: "path", pdfium.FPDF_PAGEOBJ_IMAGE: "image",
         pdfium.FPDF_PAGEOBJ_SHADING: "shading", pdfium.FPDF_PAGEOBJ_FORM: "form"}
# The colour operators a press check reads (``pdfchecks.no_rgb``, ``total_ink``); qpdf's parser skips the rest.
COLOUR_OPERATORS = ("rg", "RG", "cs", "CS", "sh", "k", "K", "scn", "SCN", "sc", "SC")
_COLOURS = " ".join(COLOUR_OPERATORS)
_LINES = re.compile(r"\r?\n")

Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1, 0, 0, 1, 0, 0)


def mul(a: Matrix, b: Matrix) -> Matrix:
    """``a`` then ``b`` (PDF row-vector convention: a point p maps to p·a·b)."""
    return (a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
            a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5])


class Run(NamedTuple):  # tuples: a book has tens of thousands (a diagram's labels are one per letter)
    """One text object (a text-showing operator): where it starts, how large it prints, how long it is."""

    x: float
    y: float
    size: float  # points, at printed size (the font size through every matrix, forms' included)
    length: float  # its width in ems: how much text is set in that size (a line of body text is some 60)
    font: str = ""  # its font's name, read only for a run some check reports (too small, or too near the trim)


class PageObject(NamedTuple):
    """A page object's bounds: a text object, a path, an image, a shading or a form (drawn as one)."""

    kind: str
    x0: float
    y0: float
    x1: float
    y1: float


class Link(NamedTuple):
    """An internal link: the text it covers (whitespace collapsed) and the page it goes to (1-based)."""

    text: str
    target: int


@dataclass(frozen=True)
class Heading:
    """A bookmark that lands on the page: its level (1 for a chapter), its title and the height it points at."""

    level: int
    title: str
    y: float


class Colour(NamedTuple):
    """A colour operator of the page's content or of a form it draws (``where``), with its resources: each
    different one once per page and stream (a book repeats the same few thousands of times)."""

    where: str
    operator: str
    operands: tuple[Any, ...]
    resources: pikepdf.Dictionary


@dataclass
class Page:
    number: int  # 1-based
    width: float  # the trim box, in points
    height: float
    runs: list[Run] = field(default_factory=list)  # every text object, inside forms too
    boxes: list[PageObject] = field(default_factory=list)  # the page's own objects (a form is one)
    lines: list[str] = field(default_factory=list)  # the text block's text, line by line, in reading order
    head: str = ""  # the running head: the text above the text block, whitespace collapsed
    foot: str = ""  # the folio: the text below it
    headings: list[Heading] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)  # the links to a page of the file
    colours: list[Colour] = field(default_factory=list)  # when asked for (print and digital editions)
    ink: float | None = None  # the fill read from the rendered page, where the objects could not tell (``fill``)

    @property
    def block(self) -> tuple[float, float]:
        """The text block's bottom and top, in points from the trim's foot."""
        return BOTTOM_MM * MM, self.height - TOP_MM * MM

    @functools.cached_property
    def inside(self) -> list[PageObject]:
        """The objects of the text block: not the running head above it nor the folio below it."""
        bottom, top = self.block
        return [box for box in self.boxes if box.y0 >= bottom - 1 and box.y1 <= top + 1]

    def _reach(self, boxes: list[PageObject]) -> float:
        bottom, top = self.block
        return (top - min(box.y0 for box in boxes)) / (top - bottom) if boxes else 0.0

    @property
    def solid(self) -> float:
        """How far down the text block its text and pictures reach (ink for sure): 0 to 1."""
        return self._reach([box for box in self.inside if box.kind in ("text", "image")])

    @property
    def unsure(self) -> bool:
        """Whether a path or form that is no thin rule reaches lower than the text and pictures and would decide
        whether the page is :data:`FILL` full: then only its rendered ink can tell (``ink``)."""
        solid = self.solid
        return solid < FILL and self._reach([box for box in self.inside if box.kind not in ("text", "image")
                                             and box.x1 - box.x0 >= THIN_PT and box.y1 - box.y0 >= THIN_PT]) > solid

    @property
    def fill(self) -> float:
        """How far down the text block the page's ink reaches: 0 (nothing) to 1 (its foot).  Its text and pictures,
        or where a larger path or form reaches lower and decides, its rendered ink (``ink``)."""
        return self.ink if self.ink is not None else self.solid

    @property
    def text(self) -> str:
        """The text block's text as a reader takes it in: lines joined with a space, a word hyphenated at a line's
        end joined again (its hyphen dropped), one broken at its own hyphen ("rose-" / "2") joined as written."""
        return joined(self.lines)


@dataclass
class Read:
    """One PDF, read: ``pdf`` stays open for the structure checks until the read is closed."""

    name: str  # the file, as findings name it
    edition: str
    pdf: pikepdf.Pdf
    pages: list[Page]
    data: bytes  # the file's bytes, read once (the preflight's cache key is their digest)

    _destinations: dict[str, int] | None = field(default=None, repr=False)

    def close(self) -> None:
        self.pdf.close()

    def destinations(self) -> dict[str, int]:
        """Each named destination (an HTML id: a rule's heading, an example) and the page it is on (1-based)."""
        if self._destinations is None:
            pages = {page.objgen: number for number, page in enumerate(self.pdf.pages, start=1)}
            found: dict[str, int] = {}
            names = self.pdf.Root.get("/Names", {}).get("/Dests") if "/Names" in self.pdf.Root else None
            if names is not None:
                for name, dest in pikepdf.NameTree(names).items():
                    target = dest[0] if isinstance(dest, pikepdf.Array) and len(dest) else None
                    if target is not None and target.objgen in pages:
                        found[str(name)] = pages[target.objgen]
            self._destinations = found
        return self._destinations

    def __enter__(self) -> Read:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read(path: Path, edition: str, colours: bool = False, data: bytes | None = None) -> Read:
    """Everything the checks of ``edition`` need from the PDF at ``path`` (its ``data``, when read already);
    ``colours``: the colour operators too (the print edition's inks, the digital edition's screen colours).
    Raises ``pikepdf.PdfError`` or ``OSError`` when the file is no PDF."""
    import io

    data = path.read_bytes() if data is None else data
    with account.part("preflight: qpdf reads (structure, colour operators)"):
        pdf = pikepdf.open(io.BytesIO(data))
    try:
        with account.part("preflight: PDFium reads (page objects, text, bookmarks)"):
            document = pypdfium2.PdfDocument(data)
            try:
                pages = _pages(document)
            finally:
                document.close()
        if colours:
            with account.part("preflight: qpdf reads (structure, colour operators)"):
                _colours(pdf, pages)
    except pypdfium2.PdfiumError as exc:
        pdf.close()
        raise pikepdf.PdfError(f"PDFium cannot read it: {exc}") from exc
    except BaseException:
        pdf.close()
        raise
    return Read(str(path), edition, pdf, pages, data)


def _pages(document: pypdfium2.PdfDocument) -> list[Page]:
    marks: dict[int, list[tuple[int, str, float]]] = {}
    for item in document.get_toc():
        dest = item.get_dest()
        if dest is not None and (index := dest.get_index()) is not None:
            view = dest.get_view()[1]
            marks.setdefault(index, []).append((item.level + 1, " ".join(item.get_title().split()),
                                                float(view[1]) if len(view) > 1 else math.inf))
    pages = []
    for index in range(len(document)):
        page = document[index]
        try:
            pages.append(_page(page, index + 1, marks.get(index, []), document))
        finally:
            page.close()
    return pages


def joined(lines: list[str]) -> str:
    """Lines as running text (see ``Page.text``), whitespace collapsed."""
    parts = []
    for line in lines:
        line = line.rstrip()
        if line.endswith(HYPHENS):
            parts.append(line[:-1])
        elif line.endswith("-"):
            parts.append(line)
        else:
            parts.append(line + " ")
    return " ".join("".join(parts).split())


HYPHENS = ("\u2010", "\xad")  # how PDFium reads the hyphen WeasyPrint adds where it breaks a word
_FLOATS = [ctypes.c_float() for _ in range(4)]
_REFS = [ctypes.byref(value) for value in _FLOATS]
_SIZE = ctypes.c_float()
_MATRIX = pdfium.FS_MATRIX()


def _matrix(obj: Any) -> Matrix:
    pdfium.FPDFPageObj_GetMatrix(obj, _MATRIX)
    m = _MATRIX
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _font_name(obj: Any) -> str:
    font = pdfium.FPDFTextObj_GetFont(obj)
    if not font:
        return "?"
    length = pdfium.FPDFFont_GetBaseFontName(font, None, 0)
    buffer = ctypes.create_string_buffer(length)
    pdfium.FPDFFont_GetBaseFontName(font, buffer, length)
    return "/" + buffer.value.decode("utf-8", "replace")


def _page(page: pypdfium2.PdfPage, number: int, marks: list[tuple[int, str, float]],
          document: pypdfium2.PdfDocument) -> Page:
    x0, y0, x1, y1 = page.get_trimbox()
    left, foot, right, top_edge = page.get_mediabox()  # the bleed too: the three parts cover the whole sheet
    found = Page(number, x1 - x0, y1 - y0, headings=[Heading(level, title, y - y0) for level, title, y in marks])
    textpage = page.get_textpage()
    try:
        _objects(page, found, x0, y0)
        bottom, top = found.block
        body = textpage.get_text_bounded(left, y0 + bottom - 2, right, y0 + top + 2)
        found.lines = [line for line in _LINES.split(body) if line.strip()]
        found.head = " ".join(textpage.get_text_bounded(left, y0 + top + 2, right, top_edge).split())
        found.foot = " ".join(textpage.get_text_bounded(left, foot, right, y0 + bottom - 2).split())
        found.links = _links(page, document, textpage)
    finally:
        textpage.close()
    if found.unsure:
        with account.part("preflight: PDFium renders (pages whose ink the objects cannot tell)"):
            found.ink = ink_fill(page, found)
    return found


def ink_fill(page: pypdfium2.PdfPage, found: Page) -> float:
    """How far down the text block the rendered page's ink reaches (see :data:`FILL`): the last row of pixels in
    the block with at least :data:`INK_ROW` of the block's width dark."""
    scale = INK_DPI / 72
    bitmap = page.render(scale=scale, grayscale=True)
    try:
        left, foot, _right, top_edge = page.get_cropbox()
        x0, y0 = page.get_trimbox()[:2]
        bottom, top = found.block
        first = max(0, int((top_edge - (y0 + top)) * scale))
        last = min(bitmap.height, int(round((top_edge - (y0 + bottom)) * scale)))
        wanted = INK_ROW * BLOCK_WIDTH_MM * MM * scale
        data, stride, width = bytes(bitmap.buffer), bitmap.stride, bitmap.width
        dark = bytes(1 if value < INK_DARK else 0 for value in range(256))
        reached = 0
        for row in range(first, last):
            if sum(data[row * stride:row * stride + width].translate(dark)) >= wanted:
                reached = row - first + 1
        return reached / (last - first) if last > first else 0.0
    finally:
        bitmap.close()


def _links(page: pypdfium2.PdfPage, document: pypdfium2.PdfDocument, textpage: Any) -> list[Link]:
    """The page's links to a page of the file (a /Dest or a GoTo action), with the text each covers."""
    links = []
    position, link, rect = ctypes.c_int(0), pdfium.FPDF_LINK(), pdfium.FS_RECTF()
    while pdfium.FPDFLink_Enumerate(page.raw, ctypes.byref(position), ctypes.byref(link)):
        dest = pdfium.FPDFLink_GetDest(document.raw, link)
        if not dest and (action := pdfium.FPDFLink_GetAction(link)):
            dest = pdfium.FPDFAction_GetDest(document.raw, action)
        if not dest or not pdfium.FPDFLink_GetAnnotRect(link, ctypes.byref(rect)):
            continue
        text = textpage.get_text_bounded(rect.left, rect.bottom, rect.right, rect.top)
        links.append(Link(" ".join(text.split()), pdfium.FPDFDest_GetDestPageIndex(document.raw, dest) + 1))
    return links


def _objects(page: pypdfium2.PdfPage, found: Page, x0: float, y0: float) -> None:
    """The page's objects into ``found``: boxes of its own objects, a run for every text object (forms' too)."""
    left, bottom, right, top = _FLOATS
    safe = SAFE_MM * MM
    low_x, high_x, low_y, high_y = safe - 0.5, found.width - safe + 0.5, safe - 0.5, found.height - safe + 0.5
    smallest = SMALLEST_PT - 0.05
    text_kind, form_kind = pdfium.FPDF_PAGEOBJ_TEXT, pdfium.FPDF_PAGEOBJ_FORM
    runs, boxes = found.runs, found.boxes
    kind_of, bounds = pdfium.FPDFPageObj_GetType, pdfium.FPDFPageObj_GetBounds
    font_size = pdfium.FPDFTextObj_GetFontSize
    get_matrix, matrix, size_of = pdfium.FPDFPageObj_GetMatrix, _MATRIX, _SIZE
    hypot = math.hypot

    def run(obj: Any, outer: Matrix | None, width: float) -> None:
        """``width``: the object's, in page space.  (Its text, FPDFTextObj_GetText, would count its characters,
        but PDFium finds them by searching all of the page's: that made the count most of a preflight's time.)"""
        get_matrix(obj, matrix)
        if outer is None:
            c, d, e, f = matrix.c, matrix.d, matrix.e, matrix.f
        else:
            c, d, e, f = mul((matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f), outer)[2:]
        font_size(obj, size_of)
        size = abs(size_of.value) * hypot(c, d)  # the text space's vertical axis, in points
        x, y = e - x0, f - y0
        named = size < smallest or not (low_x <= x <= high_x and low_y <= y <= high_y and x + width <= high_x)
        runs.append(Run(x, y, size, width / size if size else 0.0, _font_name(obj) if named else ""))

    def inner(form: Any, outer: Matrix) -> None:
        scale = hypot(outer[0], outer[1])  # the form's horizontal axis, in page units
        for k in range(pdfium.FPDFFormObj_CountObjects(form)):
            obj = pdfium.FPDFFormObj_GetObject(form, k)
            kind = kind_of(obj)
            if kind == text_kind:
                bounds(obj, left, bottom, right, top)  # in the form's space
                run(obj, outer, (right.value - left.value) * scale)
            elif kind == form_kind:
                inner(obj, mul(_matrix(obj), outer))

    raw = page.raw
    get_object = pdfium.FPDFPage_GetObject
    for j in range(pdfium.FPDFPage_CountObjects(raw)):
        obj = get_object(raw, j)
        kind = kind_of(obj)
        bounds(obj, left, bottom, right, top)
        boxes.append(PageObject(KINDS.get(kind, "other"), left.value - x0, bottom.value - y0, right.value - x0,
                         top.value - y0))
        if kind == text_kind:
            run(obj, None, right.value - left.value)
        elif kind == form_kind:
            inner(obj, _matrix(obj))


def _colours(pdf: pikepdf.Pdf, pages: list[Page]) -> None:
    """Each page's colour operators, and those of the forms it draws (each form read once: at its first page)."""
    seen: set[tuple[int, int]] = set()
    for page, source in zip(pages, pdf.pages, strict=True):
        resources = source.obj.get("/Resources", pikepdf.Dictionary())
        _stream_colours(source.obj, resources, "page content", page.colours, seen)


def _stream_colours(stream: pikepdf.Object, resources: pikepdf.Dictionary, where: str, into: list[Colour],
                    seen: set[tuple[int, int]]) -> None:
    different: dict[tuple[str, tuple[Any, ...]], None] = {}
    forms = []
    for operands, op in pikepdf.parse_content_stream(stream, _COLOURS + " Do"):
        name = str(op)
        if name == "Do":
            forms.append(operands[0])
        else:
            different[(name, tuple(operands))] = None
    into += [Colour(where, name, operands, resources) for name, operands in different]
    for form in forms:
        xobject = resources.get("/XObject", {}).get(form)
        if xobject is None or xobject.get("/Subtype") != "/Form" or xobject.objgen in seen:
            continue
        seen.add(xobject.objgen)
        _stream_colours(xobject, xobject.get("/Resources", resources), f"form {form}", into, seen)
