"""A built PDF read back page by page, as an editor pages through it: what each page holds and where.

PDFium (pypdfium2) gives each page's objects with their bounds and its text line by line; positions are in
points from the trim box's lower left corner, so the print edition (with bleed) and the digital edition (none)
compare directly once each is taken relative to its own text block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

MM = 72 / 25.4
TOP_MM, BOTTOM_MM = 17.0, 18.0  # the text block's margins (rulepress/render/templates/print.html)
KINDS = {pdfium_c.FPDF_PAGEOBJ_TEXT: "text", pdfium_c.FPDF_PAGEOBJ_PATH: "path",
         pdfium_c.FPDF_PAGEOBJ_IMAGE: "image", pdfium_c.FPDF_PAGEOBJ_SHADING: "shading",
         pdfium_c.FPDF_PAGEOBJ_FORM: "form"}


@dataclass
class Page:
    number: int  # 1-based
    width: float  # the trim box, in points
    height: float
    objects: list[tuple[str, float, float, float, float]]  # kind, x0, y0, x1, y1 from the trim's lower left
    lines: list[str]  # the text, line by line, in reading order
    headings: list[tuple[int, str, float]] = field(default_factory=list)  # bookmarks here: level, title, y
    head: str = ""  # the running head: the text above the text block
    rows: list[tuple[float, float, str]] = field(default_factory=list)  # each run of text: top, bottom, text

    @property
    def block(self) -> tuple[float, float]:
        """The text block's bottom and top (points from the trim's foot)."""
        return BOTTOM_MM * MM, self.height - TOP_MM * MM

    def inside(self) -> list[tuple[str, float, float, float, float]]:
        """The objects of the text block: not the running head above it nor the folio below it."""
        bottom, top = self.block
        return [o for o in self.objects if o[2] >= bottom - 1 and o[4] <= top + 1]

    @property
    def fill(self) -> float:
        """How far down the text block the page's content reaches, from 0 (nothing) to 1 (to the foot)."""
        bottom, top = self.block
        inside = self.inside()
        if not inside:
            return 0.0
        return (top - min(o[2] for o in inside)) / (top - bottom)

    def block_rows(self) -> list[tuple[float, float, str]]:
        """The text block's runs of text, top to bottom (running head and folio left out)."""
        bottom, top = self.block
        return sorted((row for row in self.rows if row[1] >= bottom - 1 and row[0] <= top + 1 and row[2]),
                      key=lambda row: -row[0])

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.lines).split())


@cache
def read(path: Path) -> tuple[Page, ...]:
    """Every page of the PDF at ``path``."""
    document = pdfium.PdfDocument(path)
    marks: dict[int, list[tuple[int, str, float]]] = {}
    for item in document.get_toc():
        dest = item.get_dest()
        if dest is not None and (index := dest.get_index()) is not None:
            view = dest.get_view()[1]
            marks.setdefault(index, []).append((item.level + 1, item.get_title(), view[1] if len(view) > 1 else 0.0))
    pages = []
    for index in range(len(document)):
        page = document[index]
        trim = page.get_trimbox()
        x0, y0 = trim[0], trim[1]
        objects = []
        for obj in page.get_objects(max_depth=1):
            left, bottom, right, top = obj.get_bounds()
            objects.append((KINDS.get(obj.type, "other"), left - x0, bottom - y0, right - x0, top - y0))
        textpage = page.get_textpage()
        lines = [line for line in re.split(r"\r?\n", textpage.get_text_range()) if line.strip()]
        headings = [(level, title, y - y0) for level, title, y in marks.get(index, [])]
        head = textpage.get_text_bounded(trim[0], trim[3] - TOP_MM * MM + 2, trim[2], trim[3])
        rows = []
        for number in range(textpage.count_rects()):
            left, bottom, right, top = textpage.get_rect(number)
            text = " ".join(textpage.get_text_bounded(left, bottom, right, top).split())
            rows.append((top - y0, bottom - y0, text))
        pages.append(Page(index + 1, trim[2] - trim[0], trim[3] - trim[1], objects, lines, headings,
                          " ".join(head.split()), rows))
        textpage.close()
        page.close()
    document.close()
    return tuple(pages)


def chapter_ends(pages: tuple[Page, ...]) -> set[int]:
    """Pages after which a part starts on a new page (a level-1 heading at the top of the next page, or a page
    with no running head: a filler page for notes, the back cover): a part's last page may be short."""
    ends = {len(pages) - 1}
    for page in pages[2:]:
        bottom, top = page.block
        if any(level == 1 and y >= top - 20 * MM for level, _, y in page.headings) or not page.head:
            ends.add(page.number - 1)
    return ends


def placed(page: Page, left: float) -> list[tuple[str, float, float, float, float]]:
    """The page's objects in the text block, relative to its left edge ``left`` (points from the trim's left)."""
    found = [(kind, x0 - left, y0, x1 - left, y1) for kind, x0, y0, x1, y1 in page.inside()]
    return sorted(found, key=lambda o: (o[0], round(o[2]), round(o[1]), round(o[4]), round(o[3])))


def misplaced(ours: list[tuple[str, float, float, float, float]], theirs: list[tuple[str, float, float, float, float]],
              tolerance: float = 0.3) -> list[tuple[tuple[str, float, float, float, float], ...]]:
    """The objects of two pages (``placed``) that are not where the other page has them, paired in order."""
    if len(ours) != len(theirs):
        return [tuple(ours), tuple(theirs)]
    return [(a, b) for a, b in zip(ours, theirs, strict=True)
            if a[0] != b[0] or any(abs(p - q) > tolerance for p, q in zip(a[1:], b[1:], strict=True))]


INK_DPI, INK_ROW, INK_DARK = 40, 0.03, 160  # issue 27's measure: rows of the text block with 3% of its width dark


@cache
def ink_fills(path: Path, inner_mm: float, outer_mm: float) -> tuple[float, ...]:
    """How far down its text block each page's rendered ink reaches (0 to 1), read independently of the preflight's
    objects: every page rendered (PDFium, grey, 40 dpi) and read row by row, a row of the text block being ink when
    at least 3% of the block's width is dark.  ``inner_mm``/``outer_mm``: the margins (the digital edition's
    equal), odd pages having the inner one on the left."""
    import numpy

    document = pdfium.PdfDocument(path)
    scale = INK_DPI / 72
    fills = []
    for index in range(len(document)):
        page = document[index]
        left_edge, _, _, top_edge = page.get_cropbox()
        x0, y0, x1, y1 = page.get_trimbox()
        image = numpy.asarray(page.render(scale=scale, grayscale=True).to_pil().convert("L"))
        left = inner_mm if (index + 1) % 2 else outer_mm
        right = outer_mm if (index + 1) % 2 else inner_mm
        rows = slice(round((top_edge - (y1 - TOP_MM * MM)) * scale), round((top_edge - (y0 + BOTTOM_MM * MM)) * scale))
        columns = slice(round((x0 + left * MM - left_edge) * scale), round((x1 - right * MM - left_edge) * scale))
        block = image[rows, columns]
        dark = (block < INK_DARK).sum(axis=1) >= INK_ROW * block.shape[1]
        found = numpy.nonzero(dark)[0]
        fills.append(float(found[-1] + 1) / block.shape[0] if len(found) else 0.0)
        page.close()
    document.close()
    return tuple(fills)


@cache
def line_starts(path: Path) -> tuple[tuple[tuple[float, float, str], ...], ...]:
    """Each page's text block lines in the file's order, each with where it starts across and its top (points from
    the trim's lower left).  A list's markers ("•", "1.") come as lines of their own, where their items start."""
    document = pdfium.PdfDocument(path)
    pages = []
    for index in range(len(document)):
        page = document[index]
        x0, y0, _, y1 = page.get_trimbox()
        textpage = page.get_textpage()
        lines: list[tuple[float, float, str]] = []
        current, start, top_of = "", None, 0.0
        for char in range(textpage.count_chars() + 1):
            text = textpage.get_text_range(char, 1) if char < textpage.count_chars() else "\n"
            if text in ("\r", "\n"):
                if current.strip() and start is not None:
                    lines.append((start - x0, top_of - y0, current.strip()))
                current, start = "", None
                continue
            left, bottom, _, top = textpage.get_charbox(char)
            if not (y0 + BOTTOM_MM * MM - 1 <= bottom and top <= y1 - TOP_MM * MM + 1):
                continue
            if start is None and text.strip():
                start, top_of = left, top
            current += text
        textpage.close()
        page.close()
        pages.append(tuple(lines))
    document.close()
    return tuple(pages)


def page_texts(path: Path) -> list[str]:
    """Each page's text as PDFium reads it (an independent read of what WeasyPrint wrote; many times faster than
    pypdf's pure-Python extraction, which the longest editions took most of a minute to read)."""
    document = pdfium.PdfDocument(path)
    try:
        texts = []
        for page in document:
            textpage = page.get_textpage()
            texts.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return texts
    finally:
        document.close()
