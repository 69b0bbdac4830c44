"""Every text label of a diagram measured against the box it belongs to, in the shipped font's widths.

A label's length depends on the language ("Path Astray" / "Chemin perdu"): one that runs out of its box, or on to a
box beside it, prints garbled in that language's every edition and step-through frame.  Each ``<text>`` is measured
(``rulepress.textwidth``, the widths engines lay their labels out with: the sans-serif's advance widths at
its size and weight, placed by its ``text-anchor``, through its groups' ``translate``/``scale``/``matrix``
transforms) and held to its box:

- the box it belongs to is the smallest filled rectangle that holds the label's anchor point (its middle height at
  its ``x``); a box may be drawn as several rectangles of one colour (a polyomino's squares), so the label must lie
  on rectangles of that box's colour, wherever it prints;
- a label that belongs to no box (a title, a legend's words) may not run on to any filled rectangle, nor out of the
  drawing.

A filled disc (a step's number on its callout, rulepress/marks.py) is a box as the square round it.  Rectangles
and discs drawn without a fill (a dashed frame, an outline) are no boxes.  :func:`overflow` gives the first label
that does not fit, for ``rulepress.verify.diagram.problem``: the gate then refuses the diagram, naming the example
(or the step-through's position), the language and who drew it.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET  # noqa: N817 - the usual name; the SVG was parsed by diagram.problem
from dataclasses import dataclass

from rulepress.textwidth import text_width

SVG = "{http://www.w3.org/2000/svg}"
TOLERANCE = 0.6  # SVG units a label may pass its box by (anti-aliasing, rounding of the engines' coordinates)
ASCENT, DESCENT = 0.76, 0.24  # of the font size, above and below the baseline (DejaVu Sans' capitals, descenders)
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


@dataclass(frozen=True)
class Rect:
    x0: float
    y0: float
    x1: float
    y1: float
    fill: str = ""  # as written ("none": a frame, no box)
    marks: bool = False  # drawn in the marks over the position (rulepress/marks.py), not the position itself

    @property
    def area(self) -> float:
        return (self.x1 - self.x0) * (self.y1 - self.y0)

    def holds_point(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    def holds(self, other: Rect) -> bool:
        return (other.x0 >= self.x0 - TOLERANCE and other.x1 <= self.x1 + TOLERANCE
                and other.y0 >= self.y0 - TOLERANCE and other.y1 <= self.y1 + TOLERANCE)

    def under(self, other: Rect) -> float:
        """How far ``other`` runs into this rectangle across (0: not at all), when they overlap in height too."""
        across = min(self.x1, other.x1) - max(self.x0, other.x0)
        down = min(self.y1, other.y1) - max(self.y0, other.y0)
        return across if across > TOLERANCE and down > TOLERANCE else 0.0


@dataclass(frozen=True)
class Label:
    text: str
    size: float
    bold: bool
    box: Rect  # where it prints
    anchor: tuple[float, float]  # its anchor point (x, the middle of its letters' height)
    marks: bool = False  # one of the marks' labels (a step's number, "not allowed: rule 4.4")


_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _mul(a: Matrix, b: Matrix) -> Matrix:
    """``a`` applied first, then ``b`` (SVG's column-vector matrices)."""
    return (b[0] * a[0] + b[2] * a[1], b[1] * a[0] + b[3] * a[1], b[0] * a[2] + b[2] * a[3],
            b[1] * a[2] + b[3] * a[3], b[0] * a[4] + b[2] * a[5] + b[4], b[1] * a[4] + b[3] * a[5] + b[5])


def _transform(text: str) -> Matrix | None:
    """An SVG ``transform`` as a matrix; None for one with a rotation or a skew (its labels are not measured)."""
    matrix = IDENTITY
    for name, args in re.findall(r"(\w+)\s*\(([^)]*)\)", text):
        values = [float(v) for v in _NUMBER.findall(args)]
        if name == "translate" and values:
            step: Matrix = (1, 0, 0, 1, values[0], values[1] if len(values) > 1 else 0.0)
        elif name == "scale" and values:
            step = (values[0], 0, 0, values[1] if len(values) > 1 else values[0], 0, 0)
        elif name == "matrix" and len(values) == 6 and abs(values[1]) < 1e-9 and abs(values[2]) < 1e-9:
            step = tuple(values)  # type: ignore[assignment]
        else:
            return None
        matrix = _mul(step, matrix)  # the list applies right to left: the last one first
    return matrix


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def _length(value: str | None, default: float = 0.0) -> float:
    found = _NUMBER.match((value or "").strip())
    return float(found.group(0)) if found else default


def _rect(m: Matrix, x: float, y: float, width: float, height: float, fill: str = "", marks: bool = False) -> Rect:
    (ax, ay), (bx, by) = _apply(m, x, y), _apply(m, x + width, y + height)
    return Rect(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by), fill, marks)


def read(root: ET.Element) -> tuple[Rect, list[Rect], list[Label]]:
    """The drawing's extent, its rectangles and its labels, in the drawing's own units."""
    view = [float(v) for v in _NUMBER.findall(root.get("viewBox") or "")]
    if len(view) == 4:
        drawing = Rect(view[0], view[1], view[0] + view[2], view[1] + view[3])
    else:
        drawing = Rect(0, 0, _length(root.get("width"), math.inf), _length(root.get("height"), math.inf))
    rects: list[Rect] = []
    labels: list[Label] = []

    def walk(element: ET.Element, matrix: Matrix, size: float, bold: bool, anchor: str, fill: str,
             marks: bool) -> None:
        marks = marks or "rp-mark" in (element.get("class") or "").split()
        own = element.get("transform")
        if own is not None:
            step = _transform(own)
            if step is None:
                return  # rotated or skewed: not measured
            matrix = _mul(step, matrix)
        size = _length(element.get("font-size"), size)
        weight = element.get("font-weight")
        bold = bold if weight is None else weight in ("bold", "bolder") or weight.isdigit() and int(weight) >= 600
        anchor = element.get("text-anchor") or anchor
        fill = (element.get("fill") or fill).strip().lower()
        tag = element.tag.rpartition("}")[2]
        if tag == "rect":
            width, height = _length(element.get("width")), _length(element.get("height"))
            if width > 0 and height > 0 and fill not in ("none", "transparent"):
                rects.append(_rect(matrix, _length(element.get("x")), _length(element.get("y")), width, height,
                                   fill, marks))
            return
        if tag == "circle":  # a disc is a box too (a step's number on its callout): the square round it
            radius = _length(element.get("r"))
            if radius > 0 and fill not in ("none", "transparent"):
                cx, cy = _length(element.get("cx")), _length(element.get("cy"))
                rects.append(_rect(matrix, cx - radius, cy - radius, 2 * radius, 2 * radius, fill, marks))
            return
        if tag == "text":
            words = " ".join("".join(element.itertext()).split())
            if words:
                labels.append(_label(words, matrix, _length(element.get("x")), _length(element.get("y")), size,
                                     bold, anchor, marks))
            return
        for child in element:
            walk(child, matrix, size, bold, anchor, fill, marks)

    walk(root, IDENTITY, 16.0, False, "start", "black", False)  # SVG's initial font size and fill
    return drawing, rects, labels


def _label(words: str, matrix: Matrix, x: float, y: float, size: float, bold: bool, anchor: str,
           marks: bool = False) -> Label:
    width = text_width(words, size, bold)
    start = x - (width / 2 if anchor == "middle" else width if anchor == "end" else 0.0)
    box = _rect(matrix, start, y - ASCENT * size, width, (ASCENT + DESCENT) * size)
    return Label(words, size * abs(matrix[3]), bold, box, _apply(matrix, x, y - ASCENT * size / 2), marks)


def _points(box: Rect) -> list[tuple[float, float]]:
    """Where a label is looked at: across its width (inside the tolerance), at a third and two thirds of its
    height."""
    x0, x1 = box.x0 + TOLERANCE, box.x1 - TOLERANCE
    across = [x0 + (x1 - x0) * i / 8 for i in range(9)] if x1 > x0 else [(box.x0 + box.x1) / 2]
    return [(x, box.y0 + (box.y1 - box.y0) * part) for x in across for part in (1 / 3, 2 / 3)]


def overflow(root: ET.Element) -> str | None:
    """The first label of the diagram ``root`` that runs out of its box or on to another (see the module's
    docstring), said for the gate's message; None when every label fits."""
    drawing, rects, labels = read(root)
    every = [rect for rect in rects if rect.area < drawing.area * 0.9]  # not the drawing's background
    for label in labels:
        boxes = [rect for rect in every if rect.marks == label.marks]  # the position's, or the marks' over it
        shown = f"label '{label.text}' ({label.size:g} units{', bold' if label.bold else ''})"
        wide = f"it is {label.box.x1 - label.box.x0:.1f} wide in the shipped font (rulepress.textwidth)"
        holders = [rect for rect in boxes if rect.holds_point(*label.anchor)]
        own = min(holders, key=lambda rect: rect.area) if holders else None
        if not drawing.holds(label.box):
            return f"has a {shown} that runs out of the drawing ({_shown(drawing)}): {wide}"
        for x, y in _points(label.box):
            under = [rect for rect in boxes if rect.holds_point(x, y) and rect.area < (own.area if own else math.inf)]
            if own is not None:
                if any(rect.fill == own.fill for rect in under) or any(
                        rect.fill == own.fill and rect.holds_point(x, y) for rect in boxes):
                    continue
                return f"has a {shown} that runs out of its box ({_shown(own)}) at x {x:.1f}: {wide}"
            if under:
                return f"has a {shown} that runs on to a box beside it ({_shown(under[0])}): {wide}"
    return None


def _shown(rect: Rect) -> str:
    return f"x {rect.x0:g}–{rect.x1:g}, y {rect.y0:g}–{rect.y1:g}"
