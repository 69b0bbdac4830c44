"""Where the marks go (no stage): room on a drawing, clear of its text and of the marks placed so far.

The marks (rulepress/marks.py) are drawn over an engine's drawing.  The gate refuses a diagram whose marks cover a
word of the drawing or another mark's number (rulepress/verify/overlaps.py, reading both as rulepress/svgboxes.py
does), so every mark is placed here first: a :class:`Room` knows the drawing's labels (measured in the shipped font,
``rulepress.textwidth``) and takes each mark as it is placed; a step's number, a tag or an arrow then goes to the
first of its candidate spots that is clear.  What is kept clear, by kind:

- the drawing's text: of everything (a line, a disc, a tag);
- the numbers and tags placed: of everything placed after (numbers are drawn last, over the lines: a line may pass
  under one where nothing else is clear);
- the lines placed (outlines, arrows): of numbers where a clear spot allows, so that a number never seems to be
  another mark's.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET  # noqa: N817 - the usual name; expat resolves no external entities
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from rulepress.svgboxes import Box, Point, distance_to, read, segment_distance

SVG = "http://www.w3.org/2000/svg"
GAP = 1.0  # units kept between a mark and what it keeps clear of (the gate allows 0.6; the SVG rounds to 0.1)


def union(boxes: Iterable[Box]) -> Box:
    every = list(boxes)
    left, top = min(b.x for b in every), min(b.y for b in every)
    return Box(left, top, max(b.right for b in every) - left, max(b.bottom for b in every) - top)


def outline_points(box: Box) -> list[Point]:
    return [(box.x, box.y), (box.right, box.y), (box.right, box.bottom), (box.x, box.bottom), (box.x, box.y)]


@dataclass(frozen=True)
class Stroke:
    """A placed line: its points, and half its stroke's width (its halo's, for an arrow)."""

    points: tuple[Point, ...]
    half: float
    extent: tuple[float, float, float, float] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        xs, ys = [p[0] for p in self.points], [p[1] for p in self.points]
        object.__setattr__(self, "extent", (min(xs) - self.half, min(ys) - self.half, max(xs) + self.half,
                                            max(ys) + self.half))

    def near(self, box: Box, gap: float = GAP) -> bool:
        """Whether the line's stroke comes within ``gap`` of ``box``."""
        x0, y0, x1, y1 = self.extent
        if x0 - gap >= box.x + box.width or box.x >= x1 + gap or y0 - gap >= box.y + box.height or box.y >= y1 + gap:
            return False
        reach = self.half + gap
        return any(segment_distance(a, b, box) < reach for a, b in zip(self.points, self.points[1:], strict=False))


@dataclass(frozen=True)
class Spot:
    """A number or tag placed: its box, and its radius when it is a disc."""

    box: Box
    radius: float = 0.0

    def meets(self, other: Box, radius: float = 0.0) -> bool:
        """Whether it comes within :data:`GAP` of ``other`` (a disc of ``radius`` when given)."""
        a, b = self.box, other
        if a.x - GAP >= b.x + b.width or b.x >= a.x + a.width + GAP or a.y - GAP >= b.y + b.height \
                or b.y >= a.y + a.height + GAP:
            return False
        if self.radius and radius:
            return math.dist(a.centre, b.centre) < self.radius + radius + GAP
        if self.radius:
            return distance_to(a.centre, b) < self.radius + GAP
        if radius:
            return distance_to(b.centre, a) < radius + GAP
        return True


@dataclass
class Room:
    """The drawing's extent and its labels, and the marks placed on it so far."""

    width: float
    height: float
    labels: Sequence[Box]  # the drawing's text
    parts: Sequence[Box] = ()  # where the drawing's parts are (a label keeps off them where it can)
    numbers: list[Spot] = field(default_factory=list)  # the marks' numbers, tags and words placed
    lines: list[Stroke] = field(default_factory=list)  # outlines, arrows, crosses placed

    def on_canvas(self, box: Box) -> bool:
        return box.x >= GAP and box.y >= GAP and box.right <= self.width - GAP and box.bottom <= self.height - GAP

    def clear(self, spot: Spot, *, lines: bool = True, own: Sequence[Stroke] = (), parts: Sequence[Box] = ()) -> bool:
        """Whether a number or tag at ``spot`` stays on the canvas and clear of the drawing's text and of the
        numbers placed, (``lines``) of the lines placed but its ``own`` (the outline or arrow it numbers), and of
        the drawing's ``parts`` given."""
        if not self.on_canvas(spot.box):
            return False
        if any(spot.box.meets(part) for part in parts):
            return False
        if any(spot.meets(label) for label in self.labels):
            return False
        if any(spot.meets(placed.box, placed.radius) for placed in self.numbers):
            return False
        return not (lines and any(line.near(spot.box) for line in self.lines if line not in own))

    def route_clear(self, line: Stroke, *, numbers: bool = True) -> bool:
        """Whether a line keeps clear of the drawing's text, and (``numbers``) of the numbers placed."""
        if any(line.near(label) for label in self.labels):
            return False
        return not (numbers and any(line.near(placed.box) for placed in self.numbers))

    def take(self, spot: Spot) -> None:
        self.numbers.append(spot)

    def take_line(self, line: Stroke) -> None:
        self.lines.append(line)


BAND, ON_PART, ON_LINE = 10, 6, 12  # what a spot costs: each band farther out, lying on a part, lying on a line


def first_clear(room: Room, spots: Sequence[Spot] | Iterable[Iterable[Spot]], own: Sequence[Stroke] = (),
                parts: Sequence[Box] = (), strict: bool = False) -> Spot | None:
    """The best spot clear of the drawing's text and the numbers placed: the first one clear of everything else
    too (the lines placed but its ``own``, the drawing's ``parts`` given) in the nearest band; one that lies on a
    part, or nearer still on a line, only where it is nearer than any clear one (``strict``: never).  ``spots``
    may come in bands, nearest first (:func:`around`), each made only when it is reached; a list of spots is one
    band."""
    one_band = isinstance(spots, Sequence) and bool(spots) and isinstance(spots[0], Spot)
    bands = iter([spots] if one_band else spots)
    best: tuple[float, Spot] | None = None
    number = -1
    while True:
        number += 1
        if best is not None and best[0] <= number * BAND:
            break  # nothing farther out can do better (and the next band is never made)
        band = next(bands, None)
        if band is None:
            break
        for spot in band:
            for cost, lines, off in ((0, True, parts), (ON_PART, True, ()), (ON_LINE, False, ())):
                if strict and cost:
                    break
                total = number * BAND + cost
                if best is not None and total >= best[0]:
                    break
                if room.clear(spot, lines=lines, own=own, parts=off):
                    best = (total, spot)
                    break
            if best is not None and best[0] == number * BAND:
                return best[1]
    return best[1] if best is not None else None


def around(ring: Box, wide: float, high: float, straddle: float) -> Iterator[list[Box]]:
    """Where a ``wide`` x ``high`` number may go by the outline ``ring``, in bands, nearest first: on its corners
    (``straddle`` units over its line, as the step's number sits on its outline, its top left corner first, then
    its left side's middle: a list's rows get their numbers alike) and along its sides; just outside it, or inside
    its corners (over the place's own picture); then farther out, up to 30 units; then anywhere within 40 units.
    Each band is made when it is asked for: the last (hundreds of spots, sorted) was most of the placing's time,
    and no number of the bundled books' diagrams reaches it (2,202 placed, 4,625 bands made, in a cold verify)."""
    x0, y0, x1, y1 = ring.x, ring.y, ring.right, ring.bottom
    left, right = x0 - straddle, x1 - wide + straddle
    top, bottom = y0 - high / 2, y1 - high / 2
    on = [Box(left, top, wide, high), Box(x0 - wide / 2, (y0 + y1 - high) / 2, wide, high),
          Box(right, top, wide, high), Box(left, bottom, wide, high), Box(right, bottom, wide, high)]
    for part in (0.5, 0.25, 0.75):  # along the sides, on the line
        on += [Box(x0 + (x1 - x0 - wide) * part, top, wide, high),
               Box(x0 + (x1 - x0 - wide) * part, bottom, wide, high),
               Box(x0 - wide / 2, y0 + (y1 - y0 - high) * part, wide, high),
               Box(x1 - wide / 2, y0 + (y1 - y0 - high) * part, wide, high)]

    def outside(gap: float) -> list[Box]:
        middle = (y0 + y1 - high) / 2  # level with it first: a line of text gets its number at its end
        return [Box(x1 + gap, middle, wide, high), Box(x0 - wide - gap, middle, wide, high),
                Box(x0 - wide - gap, y0, wide, high), Box(x1 + gap, y0, wide, high),
                Box(x0, y0 - high - gap, wide, high), Box(x1 - wide, y0 - high - gap, wide, high),
                Box(x0, y1 + gap, wide, high), Box(x1 - wide, y1 + gap, wide, high),
                Box(x0 - wide - gap, y1 - high, wide, high), Box(x1 + gap, y1 - high, wide, high)]

    inside = 3.0
    corners = [Box(x0 + inside, y0 + inside, wide, high), Box(x1 - wide - inside, y0 + inside, wide, high),
               Box(x0 + inside, y1 - high - inside, wide, high), Box(x1 - wide - inside, y1 - high - inside, wide,
                                                                     high)]
    yield on
    yield outside(2.0) + corners
    for gap in (8.0, 16.0, 30.0):
        yield outside(gap)
    yield _nearby(ring, wide, high)


def _nearby(ring: Box, wide: float, high: float, reach: float = 40.0, step: float = 4.0) -> list[Box]:
    """Every spot within ``reach`` of the outline, ``step`` units apart, nearest it first: where a drawing's text is
    tight all round a place, a clear spot may lie between two of its columns."""
    spots = []
    count = int(reach // step)
    for dy in range(-count, count + 1):
        for dx in range(-count, count + 1):
            box = Box(ring.x - wide / 2 + dx * step, ring.y - high / 2 + dy * step, wide, high)
            x, y = box.centre
            away = math.hypot(max(ring.x - x, 0.0, x - ring.right), max(ring.y - y, 0.0, y - ring.bottom))
            if away <= reach:
                spots.append((away, box))
    return [box for _, box in sorted(spots, key=lambda found: found[0])]


def labels_of(elements: Iterable[str]) -> list[Box]:
    """Where a drawing's text is (each ``<text>`` of ``elements``, read as the gate reads it: rulepress/svgboxes.py);
    none for elements that do not parse (the gate refuses the diagram for it)."""
    return list(_labels("".join(elements)))


@lru_cache(maxsize=64)
def _labels(body: str) -> tuple[Box, ...]:
    """:func:`labels_of` of the drawing ``body``, cached: the gate draws one position again for each seat and each
    hidden part dealt again (rulepress/verify/hidden.py), the same drawing each time."""
    try:
        root = ET.fromstring(f'<svg xmlns="{SVG}">{body}</svg>')
    except ET.ParseError:
        return ()
    return tuple(Box(label.box.x, label.box.y, label.box.right - label.box.x, label.box.bottom - label.box.y)
                 for label in read(root).labels if not label.marks)
