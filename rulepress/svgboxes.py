"""Where a diagram's boxes, labels and lines are, read back from its SVG (no stage: the marks and the gate read alike).

The gate measures every label against its box (rulepress/verify/labels.py) and every mark against the drawing's text
(rulepress/verify/overlaps.py); the marks (rulepress/marks.py) are placed clear of that same text.  All three read the
drawing here, in its own units, through its groups' ``translate``/``scale``/``matrix`` transforms, each ``<text>``
measured in the shipped font's widths (``rulepress.textwidth``) and placed by its ``text-anchor``:

- a filled ``<rect>`` is a box, a filled ``<circle>`` a disc (drawn without a fill they are a frame or a ring: no
  box, but their outline is a line, like a stroked ``<path>``'s, when a mark draws it);
- a mark is an element whose class holds ``rp-mark``: what is inside it carries the mark's number (``group``, the
  order it is drawn in), so that a mark's own number on its own disc is told from a mark over another's.

Only the marks' lines are read (a path's straight runs, and its curves cut into short runs): the drawing's own lines
cover nothing the marks must keep clear of, and reading them would cost every diagram the gate draws.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET  # noqa: N817 - the usual name; expat resolves no external entities
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from rulepress.textwidth import text_width

TOLERANCE = 0.6  # SVG units a label may pass its box by (anti-aliasing, rounding of the engines' coordinates)
ASCENT, DESCENT = 0.76, 0.24  # of the font size, above and below the baseline (DejaVu Sans' capitals, descenders)
CURVE_RUNS = 12  # the straight runs a curve of a mark's line is cut into
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
Point = tuple[float, float]


@dataclass(frozen=True)
class Box:
    """A rectangle in canvas units, its sides parallel to the axes: where an engine draws a part of its position
    (its ``places``), where a mark goes (rulepress/placing.py), and a drawing's box, disc or label as read back."""

    x: float
    y: float
    width: float
    height: float
    fill: str = ""  # as written ("none": a frame, no box)
    marks: bool = False  # drawn in the marks over the position (rulepress/marks.py), not the position itself
    group: int = -1  # which mark it belongs to (-1: the drawing's)
    radius: float = 0.0  # a disc's (the rectangle is the square round it)
    right: float = field(init=False, compare=False, repr=False)  # x + width, or the side read (:meth:`spanning`)
    bottom: float = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "right", self.x + self.width)
        object.__setattr__(self, "bottom", self.y + self.height)

    @classmethod
    def spanning(cls, x0: float, y0: float, x1: float, y1: float, fill: str = "", marks: bool = False,
                 group: int = -1, radius: float = 0.0) -> Box:
        """The box from corner (x0, y0) to corner (x1, y1), its right and bottom sides those read, not worked out
        again from its width and height (which need not give them back to the last bit)."""
        box = cls(x0, y0, x1 - x0, y1 - y0, fill, marks, group, radius)
        object.__setattr__(box, "right", x1)
        object.__setattr__(box, "bottom", y1)
        return box

    @property
    def centre(self) -> Point:
        return self.x + self.width / 2, self.y + self.height / 2

    @property
    def area(self) -> float:
        return (self.right - self.x) * (self.bottom - self.y)

    def grown(self, by: float) -> Box:
        return Box(self.x - by, self.y - by, self.width + 2 * by, self.height + 2 * by)

    def holds_point(self, x: float, y: float) -> bool:
        return self.x <= x <= self.right and self.y <= y <= self.bottom

    def meets(self, other: Box) -> bool:
        """Whether the two overlap (touching sides do not)."""
        return self.x < other.right and other.x < self.right and self.y < other.bottom and other.y < self.bottom

    def holds(self, other: Box) -> bool:
        return (other.x >= self.x - TOLERANCE and other.right <= self.right + TOLERANCE
                and other.y >= self.y - TOLERANCE and other.bottom <= self.bottom + TOLERANCE)

    def under(self, other: Box) -> float:
        """How far ``other`` runs into this rectangle across (0: not at all), when they overlap in height too."""
        across = min(self.right, other.right) - max(self.x, other.x)
        down = min(self.bottom, other.bottom) - max(self.y, other.y)
        return across if across > TOLERANCE and down > TOLERANCE else 0.0

    def covers(self, other: Box) -> bool:
        """Whether this box (a disc as a disc) reaches into ``other`` by more than the tolerance."""
        if not self.under(other):
            return False
        if not self.radius:
            return True
        cx, cy = (self.x + self.right) / 2, (self.y + self.bottom) / 2
        return distance_to((cx, cy), other) < self.radius - TOLERANCE


@dataclass(frozen=True)
class Label:
    text: str
    size: float
    bold: bool
    box: Box  # where it prints
    anchor: tuple[float, float]  # its anchor point (x, the middle of its letters' height)
    marks: bool = False  # one of the marks' labels (a step's number, "not allowed: rule 4.4")
    group: int = -1  # which mark it belongs to (-1: the drawing's)


@dataclass(frozen=True)
class Line:
    """A mark's line (an arrow, a cross, an outline) as straight runs, ``width`` wide (its stroke's)."""

    runs: tuple[tuple[Point, Point], ...]
    width: float
    group: int

    def covers(self, box: Box) -> bool:
        """Whether the line's stroke reaches into ``box`` by more than the tolerance."""
        reach = self.width / 2 - TOLERANCE
        return reach > 0 and any(segment_distance(a, b, box) < reach for a, b in self.runs)


@dataclass(frozen=True)
class Mark:
    """A mark as its element says: its classes ("rp-mark", "rp-changed", "rp-number"...) and the steps it shows (its
    ``data-steps``, as rulepress/marks.py writes it)."""

    classes: tuple[str, ...]
    steps: str = ""


@dataclass
class Drawing:
    """A diagram as read: its extent, its boxes and discs, its labels, and its marks' lines and names."""

    extent: Box
    rects: list[Box]
    labels: list[Label]
    lines: list[Line]
    marks: list[Mark]  # by their number (``group``), in the order they are drawn


_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_COMMAND = re.compile(r"([MmLlHhVvQqCcSsTtAaZz])([^MmLlHhVvQqCcSsTtAaZz]*)")


def _mul(a: Matrix, b: Matrix) -> Matrix:
    """``a`` applied first, then ``b`` (SVG's column-vector matrices)."""
    return (b[0] * a[0] + b[2] * a[1], b[1] * a[0] + b[3] * a[1], b[0] * a[2] + b[2] * a[3],
            b[1] * a[2] + b[3] * a[3], b[0] * a[4] + b[2] * a[5] + b[4], b[1] * a[4] + b[3] * a[5] + b[5])


@lru_cache(maxsize=4096)  # a drawing repeats a handful of transforms and lengths over thousands of elements
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


def _apply(m: Matrix, x: float, y: float) -> Point:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def _length(value: str | None, default: float = 0.0) -> float:
    if value is None:  # most elements have no font size or stroke width of their own
        return default
    number = _number(value)
    return default if number is None else number


@lru_cache(maxsize=4096)
def _number(value: str) -> float | None:
    found = _NUMBER.match(value.strip())
    return float(found.group(0)) if found else None


def _rect(m: Matrix, x: float, y: float, width: float, height: float, fill: str = "", marks: bool = False,
          group: int = -1, radius: float = 0.0) -> Box:
    (ax, ay), (bx, by) = _apply(m, x, y), _apply(m, x + width, y + height)
    return Box.spanning(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by), fill, marks, group, radius * abs(m[0]))


def label_box(words: str, x: float, y: float, size: float, bold: bool = False, anchor: str = "start") -> Box:
    """Where a line of text prints: its advance width in the shipped font, placed by its anchor, from its capitals'
    height above the baseline ``y`` to its descenders below."""
    width = text_width(words, size, bold)
    start = x - (width / 2 if anchor == "middle" else width if anchor == "end" else 0.0)
    return Box.spanning(start, y - ASCENT * size, start + width, y + DESCENT * size)


def read(root: ET.Element) -> Drawing:
    """The drawing ``root`` as read (see the module's docstring), in its own units."""
    view = [float(v) for v in _NUMBER.findall(root.get("viewBox") or "")]
    if len(view) == 4:
        extent = Box.spanning(view[0], view[1], view[0] + view[2], view[1] + view[3])
    else:
        extent = Box.spanning(0, 0, _length(root.get("width"), math.inf), _length(root.get("height"), math.inf))
    found = Drawing(extent, [], [], [], [])

    def walk(element: ET.Element, matrix: Matrix, style: tuple[float, bool, str, str, str, float], group: int) -> None:
        size, bold, anchor, fill, stroke, stroke_width = style
        classes = (element.get("class") or "").split()
        if "rp-mark" in classes:
            group = len(found.marks)
            found.marks.append(Mark(tuple(classes), " ".join((element.get("data-steps") or "").split())))
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
        stroke = (element.get("stroke") or stroke).strip().lower()
        stroke_width = _length(element.get("stroke-width"), stroke_width)
        marks = group >= 0
        filled = fill not in ("none", "transparent")
        width = stroke_width * abs(matrix[0]) if stroke not in ("none", "transparent") else 0.0
        tag = element.tag.rpartition("}")[2]
        if tag == "rect":
            x, y = _length(element.get("x")), _length(element.get("y"))
            w, h = _length(element.get("width")), _length(element.get("height"))
            if w > 0 and h > 0 and filled:
                found.rects.append(_rect(matrix, x, y, w, h, fill, marks, group))
            if w > 0 and h > 0 and marks and width:
                corners = [_apply(matrix, *p) for p in ((x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y))]
                found.lines.append(Line(tuple(zip(corners, corners[1:], strict=False)), width, group))
            return
        if tag == "circle":  # a disc is a box too (a step's number on its callout): the square round it
            radius = _length(element.get("r"))
            cx, cy = _length(element.get("cx")), _length(element.get("cy"))
            if radius > 0 and filled:
                found.rects.append(_rect(matrix, cx - radius, cy - radius, 2 * radius, 2 * radius, fill, marks,
                                         group, radius))
            elif radius > 0 and marks and width:  # a ring: the square round it, as a line
                corners = [_apply(matrix, cx + dx * radius, cy + dy * radius)
                           for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1), (-1, -1))]
                found.lines.append(Line(tuple(zip(corners, corners[1:], strict=False)), width, group))
            return
        if tag == "path" and marks:
            points = [None if p is None else _apply(matrix, *p) for p in path_points(element.get("d") or "")]
            runs = tuple((a, b) for a, b in zip(points, points[1:], strict=False) if a is not None and b is not None)
            if runs and (width or filled):  # a filled one (an arrow's head) is small: its edges cover what it does
                found.lines.append(Line(runs, max(width, 2 * TOLERANCE + 1) if filled else width, group))
            return
        if tag == "line" and marks and width:
            ends = (_apply(matrix, _length(element.get("x1")), _length(element.get("y1"))),
                    _apply(matrix, _length(element.get("x2")), _length(element.get("y2"))))
            found.lines.append(Line((ends,), width, group))
            return
        if tag == "text":
            words = " ".join("".join(element.itertext()).split())
            if words:
                x, y = _length(element.get("x")), _length(element.get("y"))
                box = label_box(words, x, y, size, bold, anchor)
                placed = _rect(matrix, box.x, box.y, box.right - box.x, box.bottom - box.y)
                found.labels.append(Label(words, size * abs(matrix[3]), bold, placed,
                                          _apply(matrix, x, y - ASCENT * size / 2), marks, group))
            return
        for child in element:
            walk(child, matrix, (size, bold, anchor, fill, stroke, stroke_width), group)

    walk(root, IDENTITY, (16.0, False, "start", "black", "none", 1.0), -1)  # SVG's initial font size and paint
    return found


def path_points(d: str) -> Iterator[Point | None]:
    """A path's points, each subpath's after its start, curves cut into :data:`CURVE_RUNS` runs; None between two
    subpaths (no run joins them).  Arcs are taken as straight runs to their ends (no mark draws one)."""
    x = y = sx = sy = 0.0
    for command, args in _COMMAND.findall(d):
        values = [float(v) for v in _NUMBER.findall(args)]
        relative = command.islower()
        kind = command.upper()
        if kind == "Z":
            x, y = sx, sy
            yield x, y
            continue
        size = {"M": 2, "L": 2, "H": 1, "V": 1, "Q": 4, "T": 2, "C": 6, "S": 4, "A": 7}[kind]
        for start in range(0, len(values) - size + 1, size):
            v = values[start:start + size]
            ox, oy = (x, y) if relative else (0.0, 0.0)
            if kind == "M" and start == 0:
                yield None
                x, y = sx, sy = v[0] + ox, v[1] + oy
                yield x, y
                continue
            if kind == "H":
                x = v[0] + (x if relative else 0.0)
            elif kind == "V":
                y = v[0] + (y if relative else 0.0)
            elif kind in ("Q", "C", "S"):
                controls = [(v[i] + ox, v[i + 1] + oy) for i in range(0, size, 2)]
                yield from _bezier((x, y), controls)
                x, y = controls[-1]
                continue
            else:  # M (an implicit line to), L, T, A: to the last pair
                x, y = v[-2] + ox, v[-1] + oy
            yield x, y


def _bezier(start: Point, controls: list[Point]) -> Iterator[Point]:
    """A curve's points after its start: quadratic or cubic (``controls``: its control points, then its end)."""
    points = [start, *controls]
    for step in range(1, CURVE_RUNS + 1):
        t = step / CURVE_RUNS
        level = points
        while len(level) > 1:
            level = [((1 - t) * a[0] + t * b[0], (1 - t) * a[1] + t * b[1]) for a, b in zip(level, level[1:],
                                                                                           strict=False)]
        yield level[0]


def distance_to(point: Point, box: Box) -> float:
    """How far a point is from a box (0 inside it)."""
    dx = max(box.x - point[0], 0.0, point[0] - box.right)
    dy = max(box.y - point[1], 0.0, point[1] - box.bottom)
    return math.hypot(dx, dy)


def segment_distance(a: Point, b: Point, box: Box) -> float:
    """How far the straight run from ``a`` to ``b`` comes to a box (0 when it enters it)."""
    if _crosses(a, b, box):
        return 0.0
    nearest = min(distance_to(a, box), distance_to(b, box))
    for corner in ((box.x, box.y), (box.right, box.y), (box.right, box.bottom), (box.x, box.bottom)):
        nearest = min(nearest, _point_to_segment(corner, a, b))
    return nearest


def _point_to_segment(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _crosses(a: Point, b: Point, box: Box) -> bool:
    """Whether the run from ``a`` to ``b`` passes through the box (Liang–Barsky clipping)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - box.x), (dx, box.right - a[0]), (-dy, a[1] - box.y), (dy, box.bottom - a[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True
