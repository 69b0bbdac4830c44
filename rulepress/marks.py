"""The marks a diagram draws over the position to show the move (no stage): the base class's default drawing.

Given a :class:`~rulepress.change.Change` and where the engine draws each part of the snapshot (its ``places``,
name -> :class:`Box`), :func:`draw_marks` outlines every place a step changed with that step's number (as the
example's list of steps numbers it), draws an arrow for each piece that moved from one place to another, and a
struck-out, dashed arrow for a move the rules refused, labelled with the rule ("not allowed: rule 4.4").  What no
place is drawn for is told in a numbered line under the picture when nothing else marks the change (a refused move
always), so a change is never left unmarked.

Colour is never the only mark: an outline is a thick line and a number, a refused move is dashed and crossed.
Every mark carries ``class="rp-mark ..."``, which the gate reads back (rulepress/verify/diagram.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from rulepress.change import Change, StepChange, place_of
from rulepress.cmyk import HOUSE, device_cmyk

MARK = device_cmyk((0, 85, 90, 0))  # an editor's red: the default colour of the marks (``BaseGame.MARK``)
INK = device_cmyk(HOUSE["ink"])
MUTED = device_cmyk(HOUSE["muted"])
PAPER = device_cmyk(HOUSE["paper"])
FONT_SIZE = 10  # the smallest printable text (basegame.SMALLEST)
CALLOUT = 8  # a number disc's radius
LINE = 19  # the height of a line told under the picture (a number's disc and its words)


@dataclass(frozen=True)
class Box:
    """Where a part of the position is drawn, in canvas units."""

    x: float
    y: float
    width: float
    height: float

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2

    def grown(self, by: float) -> Box:
        return Box(self.x - by, self.y - by, self.width + 2 * by, self.height + 2 * by)


@dataclass
class Marks:
    """The marks' SVG elements, and the height the told lines add under the picture."""

    elements: list[str]
    extra_height: float = 0.0


def text_width(text: str, size: float = FONT_SIZE, bold: bool = False) -> float:
    """A safe estimate of a label's width in the shipped sans (DejaVu averages under 0.62 em a letter, bold 0.68)."""
    return len(text) * size * (0.68 if bold else 0.62)


def wrapped(text: str, width: float) -> list[str]:
    """``text`` in lines that fit ``width`` units at the marks' size (a safe estimate of the font's widths)."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(lines[-1] + " " + word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def attempt_places(step: Mapping[str, object], places: Mapping[str, Box]) -> list[str]:
    """Where a step points, from its own words: each value it names (its player, a card, a tile) matched to the
    places whose name ends with it (``hands.Ann``, ``garden.b2``), in the step's order, each place once."""
    found: list[str] = []
    for key, value in step.items():
        if key in ("do", "illegal", "note") or not isinstance(value, str | int):
            continue
        named = [place for place in places if place.rsplit(".", 1)[-1] == str(value)]
        for place in named[:1]:
            if place not in found:
                found.append(place)
    return found


Attempt = Callable[[Mapping[str, object], Mapping[str, Box]], list[str]]


def draw_marks(change: Change, places: Mapping[str, Box], width: float, height: float,
               colour: str = MARK, attempt: Attempt = attempt_places,
               arrow_wanted: Callable[[str, str], bool] = lambda source, target: True) -> Marks:
    """The default marks of ``change`` over a drawing ``width`` x ``height`` whose parts are at ``places``;
    ``attempt`` says where a refused step points (its source place first, its target last), ``arrow_wanted``
    whether a piece moved from one place to another is worth an arrow (the outlines show it anyway)."""
    out: list[str] = []
    told: list[tuple[StepChange, str]] = []  # what no place shows, as numbered lines under the picture
    touched: dict[str, list[int]] = {}
    arrows: list[tuple[str, str, int]] = []
    refused: list[tuple[StepChange, list[str]]] = []
    for step in change.steps:
        if step.refused_by is not None or not step.differences:
            if step.refused_by is not None:
                pointed = [p for p in attempt(step.step, places) if p in places]
                if pointed:
                    refused.append((step, pointed))
                else:
                    told.append((step, change.word("mark_refused", number=step.refused_by)))
            continue
        marked = False
        for path in step.paths:
            place = place_of(path, places)
            if place is not None:
                numbers = touched.setdefault(place, [])
                if step.number not in numbers:
                    numbers.append(step.number)
                marked = True
        for moved in step.movements:  # from the piece's own place when the drawing has one ("hands.Ann.rose-2")
            source = place_of(f"{moved.source}.{moved.item}", places)
            target = place_of(f"{moved.target}.{moved.item}", places)
            if source and target and source != target and (source, target, step.number) not in arrows \
                    and arrow_wanted(source, target):
                arrows.append((source, target, step.number))
        if not marked:
            told.append((step, ""))
    discs: list[tuple[float, float]] = []  # the numbered discs placed so far: no number is drawn over another
    for place, numbers in touched.items():
        out.append(outline(places[place], numbers, colour))
        ring = places[place].grown(3)
        discs += [(max(ring.x + 2 + index * (2 * CALLOUT + 2), CALLOUT + 1), max(ring.y + 1, CALLOUT + 1))
                  for index in range(len(numbers) if len(numbers) <= 3 else 1)]
    pairs: dict[frozenset[str], int] = {}
    for source, target, number in arrows:
        bend = _bend(pairs, source, target)
        out.append(arrow(places[source], places[target], number, colour, bend, discs))
    # Labels keep clear of every part the drawing placed (its tiles, cards, rows) and of the marks placed so far.
    taken: list[Box] = [box.grown(2) for box in places.values() if box.width < width * 0.6 and box.width > 0]
    groups: dict[str, list[tuple[int, tuple[float, float]]]] = {}  # a refusing rule -> its steps and their marks
    for step, pointed in refused:
        if len(pointed) > 1:
            bend = _bend(pairs, pointed[0], pointed[-1], 0.3)
            drawn, at = refused_arrow(places[pointed[0]], places[pointed[-1]], step.number, bend, discs)
        else:
            drawn, at = refused_place(places[pointed[0]], step.number)
        out.append(drawn)
        taken.append(Box(at[0] - 16, at[1] - 9, 32, 18))
        groups.setdefault(str(step.refused_by), []).append((step.number, at))
    taken += [Box(x - CALLOUT - 1, y - CALLOUT - 1, 2 * CALLOUT + 2, 2 * CALLOUT + 2) for x, y in discs]  # numbers
    labels: list[Box] = []
    for rule, marked in groups.items():  # one label a rule: "1 3 not allowed: rule 4.4", near its marks
        x = sum(at[0] for _, at in marked) / len(marked)
        y = max(at[1] for _, at in marked)
        said = change.word("mark_refused", number=rule)
        tag = _tag(x, y, [n for n, _ in marked], said, width, height, taken, labels)
        out.append(f'<g class="rp-mark rp-refused">{tag}</g>')
    extra = 0.0
    if told and out:  # what other marks show is enough: what no place shows is in the list of steps
        told = [(step, why) for step, why in told if why]  # but a refused move is always shown refused
    if told:
        y = height + 4
        for step, why in told:
            said = step.said or ", ".join(f"{k} {v}" for k, v in step.step.items() if k not in ("illegal", "note"))
            lines = wrapped(f"{said} ({why})" if why else said, width - 34)
            out.append(f'<g class="rp-mark rp-told">{callout(14, y + LINE / 2, step.number, colour)}'
                       + "".join(_label(26, y + LINE / 2 + 3.5 + k * 12, text, "start") for k, text in enumerate(lines))
                       + "</g>")
            y += LINE + 12 * (len(lines) - 1)
        extra = y - height + 4
    return Marks(out, extra)


def _bend(pairs: dict[frozenset[str], int], source: str, target: str, base: float = 0.14) -> float:
    """Arrows between the same two places bow apart, so that none hides another (a refused move bows more than a
    move made: ``base``)."""
    key = frozenset((source, target))
    count = pairs.get(key, 0)
    pairs[key] = count + 1
    bend = (base + 0.16 * (count // 2)) * (1 if count % 2 == 0 else -1)
    return bend if source <= target else -bend  # a bow to one side of the line, whichever way the arrow runs


def callout(cx: float, cy: float, number: int, colour: str = MARK) -> str:
    """A numbered disc, the number in paper on the mark's colour, ringed in ink (it reads in black and white); never
    cut by the canvas's left or top edge."""
    cx, cy = max(cx, CALLOUT + 1), max(cy, CALLOUT + 1)
    return (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{CALLOUT}" fill="{colour}" stroke="{INK}" stroke-width="0.8"/>'
            f'<text x="{cx:.1f}" y="{cy + 3.6:.1f}" font-size="{FONT_SIZE}" text-anchor="middle" '
            f'font-weight="bold" fill="{PAPER}">{number}</text>')


def outline(box: Box, numbers: Sequence[int], colour: str = MARK) -> str:
    """A place a step changed: a thick outline round it, the steps' numbers on its top left corner."""
    ring = box.grown(3)
    parts = [f'<rect x="{ring.x:.1f}" y="{ring.y:.1f}" width="{ring.width:.1f}" height="{ring.height:.1f}" rx="4" '
             f'fill="none" stroke="{colour}" stroke-width="2.6"/>']
    if len(numbers) > 3:  # many steps changed one place: their numbers as ranges in one pill ("2–5, 9")
        said = ranges(numbers)
        wide = text_width(said, bold=True) + 10
        parts.append(f'<rect x="{ring.x - 6:.1f}" y="{ring.y + 1 - CALLOUT:.1f}" width="{wide:.1f}" '
                     f'height="{2 * CALLOUT}" rx="{CALLOUT}" fill="{colour}" stroke="{INK}" stroke-width="0.8"/>'
                     f'<text x="{ring.x - 6 + wide / 2:.1f}" y="{ring.y + 4.6:.1f}" font-size="{FONT_SIZE}" '
                     f'text-anchor="middle" font-weight="bold" fill="{PAPER}">{said}</text>')
    else:
        for index, number in enumerate(numbers):
            parts.append(callout(ring.x + 2 + index * (2 * CALLOUT + 2), ring.y + 1, number, colour))
    return f'<g class="rp-mark rp-changed">{"".join(parts)}</g>'


def ranges(numbers: Sequence[int]) -> str:
    """Step numbers as runs: [2, 3, 4, 5, 9] -> "2–5, 9"."""
    runs: list[list[int]] = []
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{run[0]}–{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)) for run in runs)


def _edge(box: Box, towards: tuple[float, float]) -> tuple[float, float]:
    """Where the line from the box's centre towards a point leaves the box."""
    cx, cy = box.centre
    dx, dy = towards[0] - cx, towards[1] - cy
    if dx == 0 and dy == 0:
        return cx, cy
    scale = min(box.width / 2 / abs(dx) if dx else math.inf, box.height / 2 / abs(dy) if dy else math.inf)
    return cx + dx * min(scale, 1), cy + dy * min(scale, 1)


def _path(source: Box, target: Box, bend: float) -> tuple[tuple[float, float], tuple[float, float],
                                                           tuple[float, float]]:
    """A gently curved path from one box's edge to another's: its start, control point and end."""
    start, end = _edge(source, target.centre), _edge(target, source.centre)
    mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
    dx, dy = end[0] - start[0], end[1] - start[1]
    return start, (mx - dy * bend, my + dx * bend), end


def _point(start: tuple[float, float], control: tuple[float, float], end: tuple[float, float],
           t: float) -> tuple[float, float]:
    u = 1 - t
    return (u * u * start[0] + 2 * u * t * control[0] + t * t * end[0],
            u * u * start[1] + 2 * u * t * control[1] + t * t * end[1])


def _head(control: tuple[float, float], end: tuple[float, float], colour: str, size: float = 9) -> str:
    angle = math.atan2(end[1] - control[1], end[0] - control[0])
    left = (end[0] - size * math.cos(angle - 0.45), end[1] - size * math.sin(angle - 0.45))
    right = (end[0] - size * math.cos(angle + 0.45), end[1] - size * math.sin(angle + 0.45))
    return (f'<path d="M{end[0]:.1f} {end[1]:.1f}L{left[0]:.1f} {left[1]:.1f}L{right[0]:.1f} {right[1]:.1f}Z" '
            f'fill="{colour}" stroke="{INK}" stroke-width="0.6"/>')


def _clear(start: tuple[float, float], control: tuple[float, float], end: tuple[float, float],
           along: Sequence[float], discs: list[tuple[float, float]] | None) -> tuple[float, float]:
    """Where on the arrow its number goes: the first of the places ``along`` it (fractions of its length) whose
    disc keeps clear of the discs placed so far (``discs``, which it joins); when none does, the farthest from them."""
    spots = [_point(start, control, end, t) for t in along]
    if discs is None:
        return spots[0]
    spot = next((p for p in spots if all(math.dist(p, d) >= 2 * CALLOUT + 1 for d in discs)), None) or max(
        spots, key=lambda p: min(math.dist(p, d) for d in discs))
    discs.append(spot)
    return spot


def arrow(source: Box, target: Box, number: int, colour: str = MARK, bend: float = 0.18,
          discs: list[tuple[float, float]] | None = None) -> str:
    """A piece that moved: a curved arrow from where it was to where it went, the step's number on it (clear of the
    numbers already placed, ``discs``)."""
    start, control, end = _path(source, target, bend)
    mid = _clear(start, control, end, (0.5, 0.38, 0.62, 0.28, 0.72, 0.2, 0.8), discs)
    curve = f"M{start[0]:.1f} {start[1]:.1f}Q{control[0]:.1f} {control[1]:.1f} {end[0]:.1f} {end[1]:.1f}"
    return (f'<g class="rp-mark rp-moved"><path d="{curve}" fill="none" stroke="{PAPER}" stroke-width="5.5" '
            f'stroke-linecap="round"/><path d="{curve}" fill="none" stroke="{colour}" stroke-width="2.6"/>'
            f'{_head(control, end, colour)}{callout(mid[0], mid[1], number, colour)}</g>')


def _label(x: float, y: float, text: str, anchor: str = "middle", bold: bool = False) -> str:
    weight = "bold" if bold else "normal"
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{FONT_SIZE}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{INK}">{escape(text)}</text>')


def refused_callout(cx: float, cy: float, number: int) -> str:
    """A refused step's number: ink on paper in an ink ring (a change's is paper on the mark's colour)."""
    return (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{CALLOUT}" fill="{PAPER}" stroke="{INK}" stroke-width="1.2"/>'
            f'<text x="{cx:.1f}" y="{cy + 3.6:.1f}" font-size="{FONT_SIZE}" text-anchor="middle" '
            f'font-weight="bold" fill="{INK}">{number}</text>')


def _overlaps(a: Box, b: Box) -> bool:
    return a.x < b.x + b.width and b.x < a.x + a.width and a.y < b.y + b.height and b.y < a.y + a.height


def _tag(x: float, y: float, numbers: Sequence[int], text: str, width: float, height: float, taken: list[Box],
         labels: list[Box] | None = None) -> str:
    """A refused move's label on a paper ground near ``x, y``, kept on the canvas: its steps' numbers and "not
    allowed: rule 4.4".  It keeps clear of what is placed (``taken``: the drawing's parts and the marks) where it can
    near its move, else of the other labels only (``labels``), never far from the move it explains."""
    rings = len(numbers) * (2 * CALLOUT + 2)
    wide = text_width(text) + rings + 12
    labels = [] if labels is None else labels
    tries = sorted(((dx * wide * 0.55, dy * 20.0) for dx in range(-2, 3) for dy in range(-3, 4) if dy or dx),
                   key=lambda d: (abs(d[0]) / 2 + abs(d[1]), d[1] < 0))  # nearest first, below before above

    def at(dx: float, dy: float) -> Box:  # kept on the canvas, every side
        left = min(max(x + dx - wide / 2, 2), width - wide - 2)
        return Box(left, min(max(y + dy - 9, 2), height - 20), wide, 18)

    box = next((b for b in map(lambda d: at(*d), tries) if not any(_overlaps(b, o) for o in taken + labels)),
               None) or next((b for b in map(lambda d: at(*d), tries) if not any(_overlaps(b, o) for o in labels)),
                             at(0, 22))
    taken.append(box)
    labels.append(box)
    middle = box.y + 9
    rung = "".join(refused_callout(box.x + CALLOUT + 2 + k * (2 * CALLOUT + 2), middle, n)
                   for k, n in enumerate(numbers))
    return (f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{wide:.1f}" height="18" rx="9" fill="{PAPER}" '
            f'stroke="{INK}" stroke-width="0.8"/>{rung}{_label(box.x + rings + 6, middle + 3.5, text, "start")}')


def _cross(x: float, y: float, size: float) -> str:
    return (f'<path d="M{x - size:.1f} {y - size:.1f}L{x + size:.1f} {y + size:.1f}M{x + size:.1f} {y - size:.1f}'
            f'L{x - size:.1f} {y + size:.1f}" fill="none" stroke="{PAPER}" stroke-width="5" stroke-linecap="round"/>'
            f'<path d="M{x - size:.1f} {y - size:.1f}L{x + size:.1f} {y + size:.1f}M{x + size:.1f} {y - size:.1f}'
            f'L{x - size:.1f} {y + size:.1f}" fill="none" stroke="{INK}" stroke-width="2.2" stroke-linecap="round"/>')


def refused_arrow(source: Box, target: Box, number: int, bend: float = 0.18,
                  discs: list[tuple[float, float]] | None = None) -> tuple[str, tuple[float, float]]:
    """A move the rules refused: a dashed arrow in ink, crossed out at its middle beside the step's ringed number
    (clear of the numbers already placed, ``discs``); and where that middle is (its label goes near it)."""
    start, control, end = _path(source, target, bend)
    cross = _point(start, control, end, 0.42)
    ring = _clear(start, control, end, (0.62, 0.74, 0.84, 0.26, 0.16, 0.9), discs)
    curve = f"M{start[0]:.1f} {start[1]:.1f}Q{control[0]:.1f} {control[1]:.1f} {end[0]:.1f} {end[1]:.1f}"
    return (f'<g class="rp-mark rp-refused"><path d="{curve}" fill="none" stroke="{PAPER}" stroke-width="4.5" '
            f'stroke-linecap="round"/><path d="{curve}" fill="none" stroke="{INK}" stroke-width="1.6" '
            f'stroke-dasharray="5 3"/>{_head(control, end, MUTED, 8)}{_cross(cross[0], cross[1], 6)}'
            f'{refused_callout(ring[0], ring[1], number)}</g>'), _point(start, control, end, 0.5)


def refused_place(box: Box, number: int) -> tuple[str, tuple[float, float]]:
    """A refused move that points at one place only: the place crossed out beside the step's ringed number."""
    cx, cy = box.centre
    size = max(min(box.width, box.height) * 0.25, 5)
    return (f'<g class="rp-mark rp-refused"><rect x="{box.x - 2:.1f}" y="{box.y - 2:.1f}" width="{box.width + 4:.1f}" '
            f'height="{box.height + 4:.1f}" rx="4" fill="none" stroke="{INK}" stroke-width="1.6" '
            f'stroke-dasharray="5 3"/>{_cross(cx, cy, size)}{refused_callout(cx + size + CALLOUT + 3, cy, number)}'
            f'</g>'), (cx, cy)
