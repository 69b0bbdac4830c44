"""The marks a diagram draws over the position to show the move (no stage): the base class's default drawing.

Given a :class:`~rulepress.change.Change` and where the engine draws each part of the snapshot (its ``places``,
name -> :class:`Box`), :func:`draw_marks` outlines every place a step changed with that step's number (as the
example's list of steps numbers it), draws an arrow for each piece that moved from one place to another, and a
struck-out, dashed arrow for a move the rules refused, labelled with the rule ("not allowed: rule 4.4").  What no
place is drawn for is told in a numbered line under the picture when nothing else marks the change (a refused move
always), so a change is never left unmarked.

Every mark is placed clear of the drawing's own text (``labels``, the boxes rulepress/svgboxes.py reads and the gate
measures with: rulepress/verify/overlaps.py) and of the marks placed before it (rulepress/placing.py): an outline
keeps its line off every label (closer in and thinner where text is tight round its place, a bar beside it where
no outline fits), a step's number goes to the first clear spot round its outline, an arrow takes the first clear
bow between its places or a detour round the text (rulepress/routes.py; it is left out where none is clear: both
places are outlined and numbered anyway), a refused move's label the first clear spot near it.  What finds no room
is told under the picture.  The marks are drawn in layers: outlines, then arrows and crosses, then
the numbers and labels over them, so that no line runs over a number.

Colour is never the only mark: an outline is a thick line and a number, a refused move is dashed and crossed.
Every mark carries ``class="rp-mark ..."``, which the gate reads back (rulepress/verify/diagram.py), and the steps
it shows (``data-steps``), which the gate's messages name.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from rulepress import textwidth
from rulepress.change import Change, StepChange, place_of
from rulepress.cmyk import HOUSE, device_cmyk
from rulepress.placing import Box, Room, Spot, Stroke, around, first_clear, outline_points, union
from rulepress.routes import Route, bow, curve_between, head_points, quadratic, way

__all__ = ["Box", "Marks", "draw_marks", "attempt_places", "callout", "outline", "ranges", "refused_arrow"]

MARK = device_cmyk((0, 85, 90, 0))  # an editor's red: the default colour of the marks (``BaseGame.MARK``)
INK = device_cmyk(HOUSE["ink"])
MUTED = device_cmyk(HOUSE["muted"])
PAPER = device_cmyk(HOUSE["paper"])
FONT_SIZE = 10  # the smallest printable text (basegame.SMALLEST)
CALLOUT = 8  # a number disc's radius
LINE = 19  # the height of a line told under the picture (a number's disc and its words)
RING = 2.6  # an outline's stroke
HALO = 5.5  # the paper under an arrow (it reads over any picture)
REFUSED_HALO = 4.5
CROSS = 6  # half a cross's size
STEP = 2 * CALLOUT + 2  # from one number's disc to the next in a row


@dataclass
class Marks:
    """The marks' SVG elements, and the height the told lines add under the picture."""

    elements: list[str]
    extra_height: float = 0.0


def text_width(text: str, size: float = FONT_SIZE, bold: bool = False) -> float:
    """A label's width in the shipped sans (``rulepress.textwidth``, the widths the gate measures with)."""
    return textwidth.text_width(text, size, bold)


def wrapped(text: str, width: float) -> list[str]:
    """``text`` in lines that fit ``width`` units at the marks' size."""
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


@dataclass
class _Layers:
    """The marks' elements by layer, drawn in this order: no line over a number."""

    outlines: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    told: list[str] = field(default_factory=list)

    def all(self) -> list[str]:
        return self.outlines + self.lines + self.numbers + self.told


def _group(kind: str, steps: Sequence[int], body: str) -> str:
    return f'<g class="rp-mark {kind}" data-steps="{" ".join(map(str, steps))}">{body}</g>'


_DRAWN: dict[tuple[object, ...], Marks] = {}  # the marks drawn lately, by what they were drawn from
_DRAWN_MOST = 256


def draw_marks(change: Change, places: Mapping[str, Box], width: float, height: float,
               colour: str = MARK, attempt: Attempt = attempt_places,
               arrow_wanted: Callable[[str, str], bool] = lambda source, target: True,
               labels: Sequence[Box] = ()) -> Marks:
    """The default marks of ``change`` over a drawing ``width`` x ``height`` whose parts are at ``places`` and whose
    text is at ``labels``; ``attempt`` says where a refused step points (its source place first, its target last),
    ``arrow_wanted`` whether a piece moved from one place to another is worth an arrow (the outlines show it
    anyway).  The same marks are drawn once: the gate draws a position again for each hidden part it deals again
    (rulepress/verify/hidden.py), and placing the marks is most of a diagram's cost."""
    key = (repr(change), tuple(places.items()), width, height, colour, attempt, arrow_wanted, tuple(labels))
    if key not in _DRAWN:
        if len(_DRAWN) >= _DRAWN_MOST:
            del _DRAWN[next(iter(_DRAWN))]
        _DRAWN[key] = _draw_marks(change, places, width, height, colour, attempt, arrow_wanted, labels)
    found = _DRAWN[key]
    return Marks(list(found.elements), found.extra_height)


def _draw_marks(change: Change, places: Mapping[str, Box], width: float, height: float, colour: str,
                attempt: Attempt, arrow_wanted: Callable[[str, str], bool], labels: Sequence[Box]) -> Marks:
    told: list[tuple[StepChange, str]] = []  # what no place shows, as numbered lines under the picture
    touched: dict[Box, list[int]] = {}  # by where it is drawn: two names for one part are one outline
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
                numbers = touched.setdefault(places[place], [])
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
    room = Room(width, height, labels, [box for box in places.values() if 0 < box.width < width * 0.6])
    layers = _Layers()
    held = {box: _held(box, room) for box in touched}
    rings = {box: _ring(held[box], room, _caps(held[box], [held[other] for other in touched if other != box]))
             for box in touched}
    for box, ring in rings.items():
        if ring.points:
            layers.outlines.append(_group("rp-changed", touched[box], ring.svg(colour)))
            room.take_line(ring.line)
    unplaced: list[int] = []  # steps a place shows with neither an outline nor a number: told under the picture
    for box, numbers in touched.items():
        if any(other != box and _inside(box, other) and set(numbers) <= set(touched[other]) for other in touched):
            continue  # a part of a place outlined with the same numbers: its outline is enough
        badge = _badge(rings[box], numbers, room, colour, box)
        if badge:
            layers.numbers.append(_group("rp-number rp-changed", numbers, badge))
        elif not rings[box].points:
            unplaced += numbers
    pairs: dict[frozenset[str], int] = {}
    groups: dict[str, list[tuple[StepChange, tuple[float, float]]]] = {}  # a refusing rule -> its steps, marks
    for source, target, number in arrows:
        drawn = _arrow(places[source], places[target], number, colour, _bend(pairs, source, target), room)
        if drawn:
            layers.lines.append(_group("rp-moved", [number], drawn[0]))
            if drawn[1]:
                layers.numbers.append(_group("rp-number rp-moved", [number], drawn[1]))
    crossed: dict[Box, list[StepChange]] = {}  # refused moves shown on the place they pointed to, by place
    for step, pointed in refused:
        drawn_refusal = None
        if len(pointed) > 1:
            bend = _bend(pairs, pointed[0], pointed[-1], 0.3)
            drawn_refusal = _refusal(places[pointed[0]], places[pointed[-1]], step.number, bend, room)
        if drawn_refusal is None:  # no arrow, or no room for one: the place it pointed to is crossed out
            crossed.setdefault(places[pointed[-1]], []).append(step)
            continue
        line, number, at = drawn_refusal
        layers.lines.append(_group("rp-refused", [step.number], line))
        if number:
            layers.numbers.append(_group("rp-number rp-refused", [step.number], number))
        groups.setdefault(str(step.refused_by), []).append((step, at))
    for box, steps in crossed.items():
        numbers = [step.number for step in steps]
        drawn_place = _refused_at(box, numbers, room)
        if drawn_place is None:  # no room on the picture: told under it
            told += [(step, change.word("mark_refused", number=step.refused_by)) for step in steps]
            continue
        line, number, at = drawn_place
        layers.lines.append(_group("rp-refused", numbers, line))
        if number:
            layers.numbers.append(_group("rp-number rp-refused", numbers, number))
        for step in steps:
            groups.setdefault(str(step.refused_by), []).append((step, at))
    notes: list[tuple[list[int], str]] = []  # refusals' labels with no room near their marks: under the picture
    for rule, marked in groups.items():  # one label a rule: "1 3 not allowed: rule 4.4", near its marks
        said = change.word("mark_refused", number=rule)
        numbers = [step.number for step, _ in marked]
        tag = _tag([(step.number, at) for step, at in marked], said, room)
        if tag is None:
            notes.append((numbers, said))
        else:
            layers.numbers.append(_group("rp-refused", numbers, tag))
    shown = bool(layers.outlines or layers.lines or layers.numbers)
    if told and shown:  # what other marks show is enough: what no place shows is in the list of steps
        told = [(step, why) for step, why in told if why]  # but a refused move is always shown refused
    told += [(step, "") for step in change.steps if step.number in unplaced and all(step is not t for t, _ in told)]
    layers.told, extra = _under(notes, told, width, height, colour)
    return Marks(layers.all(), extra)


def _under(notes: Sequence[tuple[Sequence[int], str]], told: Sequence[tuple[StepChange, str]], width: float,
           height: float, colour: str) -> tuple[list[str], float]:
    """The lines under the picture, and the height they take: each refusal label with no room by its marks (its
    steps' ringed numbers and the rule), then each step no mark shows, numbered as the step list numbers it."""
    out: list[str] = []
    y = height + 4
    for numbers, said in notes:
        rung = "".join(refused_callout(14 + k * STEP, y + LINE / 2, n) for k, n in enumerate(numbers))
        after = 14 + (len(numbers) - 1) * STEP + CALLOUT + 4
        out.append(_group("rp-refused", numbers, rung + _label(after, y + LINE / 2 + 3.5, said, "start")))
        y += LINE
    for step, why in told:
        said = step.said or ", ".join(f"{k} {v}" for k, v in step.step.items() if k not in ("illegal", "note"))
        said = f"{said} ({why})" if why and said else said or why
        lines = wrapped(said, width - 34)
        refusal = step.refused_by is not None  # ringed as on the picture: a refused move, never a change
        number = refused_callout(14, y + LINE / 2, step.number) if refusal else \
            callout(14, y + LINE / 2, step.number, colour)
        out.append(_group("rp-refused rp-told" if refusal else "rp-told", [step.number], number + "".join(
            _label(26, y + LINE / 2 + 3.5 + k * 12, text, "start") for k, text in enumerate(lines))))
        y += LINE + 12 * (len(lines) - 1)
    return out, (y - height + 4 if out else 0.0)


def _bend(pairs: dict[frozenset[str], int], source: str, target: str, base: float = 0.14) -> float:
    """Arrows between the same two places bow apart, so that none hides another (a refused move bows more than a
    move made: ``base``)."""
    key = frozenset((source, target))
    count = pairs.get(key, 0)
    pairs[key] = count + 1
    bend = (base + 0.16 * (count // 2)) * (1 if count % 2 == 0 else -1)
    return bend if source <= target else -bend  # a bow to one side of the line, whichever way the arrow runs


# --- outlines and their numbers ----------------------------------------------------------------------------------

STROKES = (RING, 2.0, 1.4, 1.0)  # an outline's stroke, most wanted first: thinner where the text is tight
OFFSETS = (3.0, 2.0, 1.5, 1.0, 0.5, 0.0, -0.5, -1.0, -1.5, -3.0)  # a side's distance out of its place (in: < 0)


@dataclass(frozen=True)
class Ring:
    """A changed place's outline: the box its numbers go round, and the line drawn (its points and stroke); a bar
    beside the place (a change bar) where no outline keeps off the drawing's text."""

    box: Box
    points: tuple[tuple[float, float], ...]
    stroke: float

    @property
    def line(self) -> Stroke:
        return Stroke(self.points, self.stroke / 2)

    @property
    def own(self) -> tuple[Stroke, ...]:
        """What a number placed on it may lie on: its own line."""
        return (self.line,) if self.points else ()

    def svg(self, colour: str) -> str:
        if len(self.points) == 2:
            (x0, y0), (x1, y1) = self.points
            return (f'<path d="M{x0:.1f} {y0:.1f}L{x1:.1f} {y1:.1f}" fill="none" stroke="{colour}" '
                    f'stroke-width="{self.stroke:g}" stroke-linecap="round"/>')
        return _ring_svg(self.box, colour, self.stroke)


def _held(box: Box, room: Room) -> Box:
    """A changed place with its own text (a label anchored in it that runs past its box, a longer word in another
    language): what its outline goes round."""
    own = [label for label in room.labels if box.holds_point(*label.centre)]
    return union([box, *own]) if own else box


def _caps(held: Box, others: Sequence[Box]) -> dict[str, float]:
    """How far each side of an outline may stand out of its place: half way to a changed place beside it (rows of a
    list, tiles side by side), so that their outlines share one line instead of running over each other."""
    caps: dict[str, float] = {}
    for other in others:
        across = min(held.right, other.right) - max(held.x, other.x) > 0
        down = min(held.bottom, other.bottom) - max(held.y, other.y) > 0
        for side, gap, beside in (("bottom", other.y - held.bottom, across), ("top", held.y - other.bottom, across),
                                  ("right", other.x - held.right, down), ("left", held.x - other.right, down)):
            if beside and 0 <= gap < 2 * OFFSETS[0]:
                caps[side] = min(caps.get(side, OFFSETS[0]), gap / 2)
    return caps


def _ring(held: Box, room: Room, caps: Mapping[str, float] | None = None) -> Ring:
    """The outline round a changed place (``held``: with its own text), each side at the first of :data:`OFFSETS`
    (up to its cap, :func:`_caps`) whose line keeps off every label, at the first of :data:`STROKES` that lets all
    four do so (thinner and closer in where the drawing's text is tight round it); else a bar down its left or
    right side; else no line at all (the place's number, round where its outline would be, marks it)."""
    caps = caps or {}
    near = [label for label in room.labels if label.meets(held.grown(8))]

    def clear(line: Stroke) -> bool:
        return not any(line.near(label, 0.2) for label in near)

    x0, y0, x1, y1 = held.x, held.y, held.right, held.bottom  # a side's run (the whole outline is checked after)
    sides = {"top": lambda by: ((x0, held.y - by), (x1, held.y - by)),
             "bottom": lambda by: ((x0, held.bottom + by), (x1, held.bottom + by)),
             "left": lambda by: ((held.x - by, y0), (held.x - by, y1)),
             "right": lambda by: ((held.right + by, y0), (held.right + by, y1))}
    for stroke in STROKES:
        found = {side: next((by for by in _offsets(caps.get(side)) if clear(Stroke(run(by), stroke / 2))), None)
                 for side, run in sides.items()}
        if None in found.values():
            continue
        top, bottom, left, right = (found[side] or 0.0 for side in ("top", "bottom", "left", "right"))
        ring = Box(held.x - left, held.y - top, held.width + left + right, held.height + top + bottom)
        points = tuple(outline_points(ring))
        if ring.width > 0 and ring.height > 0 and clear(Stroke(points, stroke / 2)):
            return Ring(ring, points, stroke)
    for x in (held.x - 3, held.right + 3):
        bar = ((x, held.y), (x, held.bottom))
        if clear(Stroke(bar, RING / 2)):
            return Ring(Box(x, held.y, 0, held.height), bar, RING)
    return Ring(held.grown(3.0), (), RING)  # no line: its number alone marks it


def _offsets(cap: float | None) -> tuple[float, ...]:
    return OFFSETS if cap is None else (cap, *(by for by in OFFSETS if by < cap))


def _ring_svg(ring: Box, colour: str, stroke: float = RING) -> str:
    return (f'<rect x="{ring.x:.1f}" y="{ring.y:.1f}" width="{ring.width:.1f}" height="{ring.height:.1f}" rx="4" '
            f'fill="none" stroke="{colour}" stroke-width="{stroke:g}"/>')


def _inside(box: Box, other: Box) -> bool:
    return other.x <= box.x and other.y <= box.y and box.right <= other.right and box.bottom <= other.bottom


def _badge(ring: Ring, numbers: Sequence[int], room: Room | None, colour: str, place: Box | None = None) -> str:
    """A changed place's step numbers, at the first clear spot round its outline (``room``; without one, on its top
    left corner): a disc each (up to three), else their ranges in one pill ("2–5, 9")."""
    pill = len(numbers) > 3
    said = ranges(numbers) if pill else ""
    wide = text_width(said, bold=True) + 10 if pill else len(numbers) * STEP - 2
    round_ = CALLOUT if len(numbers) == 1 else 0.0
    bands = ([Spot(box, round_) for box in band] for band in around(ring.box, wide, 2 * CALLOUT, 6))
    if room is None:  # alone (the key to the marks): on its top left corner
        box = next(bands)[0].box
    else:
        others = [part for part in room.parts if place is None or not part.meets(place)]  # not its own, or round it
        spot = first_clear(room, bands, ring.own, others)
        if spot is None:
            return ""  # no room anywhere near: the outline marks the place, the step list tells the step
        room.take(spot)
        box = spot.box
    if pill:
        return (f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{wide:.1f}" height="{2 * CALLOUT}" rx="{CALLOUT}" '
                f'fill="{colour}" stroke="{INK}" stroke-width="0.8"/>'
                f'<text x="{box.x + wide / 2:.1f}" y="{box.y + CALLOUT + 3.6:.1f}" font-size="{FONT_SIZE}" '
                f'text-anchor="middle" font-weight="bold" fill="{PAPER}">{said}</text>')
    return "".join(callout(box.x + CALLOUT + k * STEP, box.y + CALLOUT, number, colour)
                   for k, number in enumerate(numbers))


def callout(cx: float, cy: float, number: int, colour: str = MARK) -> str:
    """A numbered disc, the number in paper on the mark's colour, ringed in ink (it reads in black and white); never
    cut by the canvas's left or top edge."""
    cx, cy = max(cx, CALLOUT + 1), max(cy, CALLOUT + 1)
    return (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{CALLOUT}" fill="{colour}" stroke="{INK}" stroke-width="0.8"/>'
            f'<text x="{cx:.1f}" y="{cy + 3.6:.1f}" font-size="{FONT_SIZE}" text-anchor="middle" '
            f'font-weight="bold" fill="{PAPER}">{number}</text>')


def outline(box: Box, numbers: Sequence[int], colour: str = MARK) -> str:
    """A place a step changed, drawn alone (the key to the marks): its outline, the steps' numbers on its top left
    corner."""
    ring = box.grown(3)
    badge = _badge(Ring(ring, tuple(outline_points(ring)), RING), numbers, None, colour)
    return f'<g class="rp-mark rp-changed">{_ring_svg(ring, colour)}{badge}</g>'


def ranges(numbers: Sequence[int]) -> str:
    """Step numbers as runs: [2, 3, 4, 5, 9] -> "2–5, 9"."""
    runs: list[list[int]] = []
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{run[0]}–{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)) for run in runs)


# --- arrows --------------------------------------------------------------------------------------------------------

def _head(control: tuple[float, float], end: tuple[float, float], colour: str, size: float = 9) -> str:
    tip, left, right = head_points(control, end, size)
    return (f'<path d="M{tip[0]:.1f} {tip[1]:.1f}L{left[0]:.1f} {left[1]:.1f}L{right[0]:.1f} {right[1]:.1f}Z" '
            f'fill="{colour}" stroke="{INK}" stroke-width="0.6"/>')


def _on_route(route: Route, along: Sequence[float], room: Room, radius: float = CALLOUT) -> Spot | None:
    """The first spot ``along`` the route (parts of its length) where a disc keeps clear (rulepress/placing.py)."""
    spots = []
    for part in along:
        x, y = route.at(part)
        spots.append(Spot(Box(x - radius, y - radius, 2 * radius, 2 * radius), radius))
    return first_clear(room, spots)


def _arrow(source: Box, target: Box, number: int, colour: str, bend: float,
           room: Room) -> tuple[str, str] | None:
    """A piece that moved: an arrow from where it was to where it went, and the step's number on it (none where no
    spot on it is clear: the place it went to is numbered); None when no way keeps clear of the text."""
    route = way(source, target, bend, room, HALO, 9)
    if route is None:
        return None
    spot = _on_route(route, (0.5, 0.38, 0.62, 0.28, 0.72, 0.2, 0.8), room)
    if spot is not None:
        room.take(spot)
    room.take_line(Stroke(route.points, HALO / 2))
    line = (f'<path d="{route.d}" fill="none" stroke="{PAPER}" stroke-width="{HALO}" stroke-linecap="round" '
            f'stroke-linejoin="round"/><path d="{route.d}" fill="none" stroke="{colour}" stroke-width="2.6"/>'
            f'{_head(route.control, route.end, colour)}')
    return line, callout(*spot.box.centre, number, colour) if spot else ""


# --- refused moves -------------------------------------------------------------------------------------------------

def _cross(x: float, y: float, size: float) -> str:
    strokes = f'M{x - size:.1f} {y - size:.1f}L{x + size:.1f} {y + size:.1f}M{x + size:.1f} {y - size:.1f}' \
              f'L{x - size:.1f} {y + size:.1f}'
    return (f'<path d="{strokes}" fill="none" stroke="{PAPER}" stroke-width="5" stroke-linecap="round"/>'
            f'<path d="{strokes}" fill="none" stroke="{INK}" stroke-width="2.2" stroke-linecap="round"/>')


def _cross_lines(x: float, y: float, size: float) -> list[Stroke]:
    return [Stroke(((x - size, y - size), (x + size, y + size)), 2.5),
            Stroke(((x + size, y - size), (x - size, y + size)), 2.5)]


def _cross_clear(x: float, y: float, size: float, room: Room) -> bool:
    return all(room.route_clear(line) for line in _cross_lines(x, y, size)) and room.on_canvas(
        Box(x - size - 3, y - size - 3, 2 * size + 6, 2 * size + 6))


def refused_callout(cx: float, cy: float, number: int) -> str:
    """A refused step's number: ink on paper in an ink ring (a change's is paper on the mark's colour)."""
    return (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{CALLOUT}" fill="{PAPER}" stroke="{INK}" stroke-width="1.2"/>'
            f'<text x="{cx:.1f}" y="{cy + 3.6:.1f}" font-size="{FONT_SIZE}" text-anchor="middle" '
            f'font-weight="bold" fill="{INK}">{number}</text>')


def _refused_line(route: Route) -> str:
    return (f'<path d="{route.d}" fill="none" stroke="{PAPER}" stroke-width="{REFUSED_HALO}" stroke-linecap="round" '
            f'stroke-linejoin="round"/><path d="{route.d}" fill="none" stroke="{INK}" stroke-width="1.6" '
            f'stroke-dasharray="5 3"/>{_head(route.control, route.end, MUTED, 8)}')


def refused_arrow(source: Box, target: Box, number: int, bend: float = 0.18) -> tuple[str, tuple[float, float]]:
    """A move the rules refused, drawn alone (the key to the marks): a dashed arrow in ink, crossed out at its
    middle beside the step's ringed number; and where that middle is."""
    curve = curve_between(source, target, bend)
    cross, ring = quadratic(*curve, 0.42), quadratic(*curve, 0.62)
    return (f'<g class="rp-mark rp-refused">{_refused_line(bow(curve))}{_cross(cross[0], cross[1], CROSS)}'
            f'{refused_callout(ring[0], ring[1], number)}</g>'), quadratic(*curve, 0.5)


Refusal = tuple[str, str, tuple[float, float]]  # its lines, its number, where its label goes near


def _refusal(source: Box, target: Box, number: int, bend: float, room: Room) -> Refusal | None:
    """A move the rules refused: a dashed arrow in ink from where it started to where it pointed, crossed out at a
    clear spot near its middle, the step's ringed number on it; None when no bow, or no spot of it for the cross,
    keeps clear of the drawing's text."""
    route = way(source, target, bend, room, REFUSED_HALO, 8)
    if route is None:
        return None
    cross = next((p for t in (0.42, 0.5, 0.34, 0.58, 0.26, 0.66) if _cross_clear(*(p := route.at(t)), CROSS, room)),
                 None)
    if cross is None:
        return None
    for line in _cross_lines(*cross, CROSS):
        room.take_line(line)
    ring = _on_route(route, (0.62, 0.74, 0.84, 0.26, 0.16, 0.9), room)
    if ring is not None:
        room.take(ring)
    room.take_line(Stroke(route.points, REFUSED_HALO / 2))
    drawn = _refused_line(route) + _cross(cross[0], cross[1], CROSS)
    return drawn, refused_callout(*ring.box.centre, number) if ring else "", cross


def _refused_at(box: Box, numbers: Sequence[int], room: Room) -> Refusal | None:
    """Refused moves that point at one place: the place outlined dashed (where an outline keeps off the text) and
    crossed out at a clear spot of it, the steps' ringed numbers beside; None when no spot of it is clear."""
    size = max(min(box.width, box.height, 40) * 0.25, 5)
    cx, cy = box.centre
    spots = [(cx, cy)] + [(box.x + box.width * fx, box.y + box.height * fy) for fy in (0.5, 0.25, 0.75)
                          for fx in (0.25, 0.75, 0.5)]
    cross = next((p for p in spots if _cross_clear(*p, size, room)), None)
    if cross is None:
        return None
    found = _ring(_held(box, room), room)
    dashed = len(found.points) == 5  # an outline clear of the text (never a bar): drawn dashed, in ink
    ring = found.box if found.box.width else box.grown(2)
    crossing = _cross_lines(*cross, size)
    own = [*crossing, Stroke(tuple(outline_points(ring)), 0.8)] if dashed else crossing
    for line in own:
        room.take_line(line)
    wide, high, x, y = len(numbers) * STEP - 2, 2 * CALLOUT, cross[0], cross[1]
    beside = [Box(x + size + 3, y - CALLOUT, wide, high), Box(x - size - 3 - wide, y - CALLOUT, wide, high),
              Box(x - wide / 2, y + size + 3, wide, high), Box(x - wide / 2, y - size - 3 - high, wide, high)]
    round_ = CALLOUT if len(numbers) == 1 else 0.0
    bands = ([Spot(b, round_) for b in band] for band in itertools.chain([beside], around(ring, wide, high, 6)))
    spot = first_clear(room, bands, own)
    if spot is not None:
        room.take(spot)
    outline_svg = (f'<rect x="{ring.x:.1f}" y="{ring.y:.1f}" width="{ring.width:.1f}" height="{ring.height:.1f}" '
                   f'rx="4" fill="none" stroke="{INK}" stroke-width="1.6" stroke-dasharray="5 3"/>') if dashed else ""
    drawn = outline_svg + _cross(*cross, size)
    rung = "".join(refused_callout(spot.box.x + CALLOUT + k * STEP, spot.box.y + CALLOUT, n)
                   for k, n in enumerate(numbers)) if spot else ""
    return drawn, rung, cross


def _label(x: float, y: float, text: str, anchor: str = "middle", bold: bool = False) -> str:
    weight = "bold" if bold else "normal"
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{FONT_SIZE}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{INK}">{escape(text)}</text>')


def _tag(marked: Sequence[tuple[int, tuple[float, float]]], text: str, room: Room) -> str | None:
    """A refused move's label on a paper ground near its marks: its steps' numbers and "not allowed: rule 4.4", at
    the nearest spot clear of the drawing's text and the marks (below before above); None when none is."""
    x = sum(at[0] for _, at in marked) / len(marked)
    y = max(at[1] for _, at in marked)
    numbers = [n for n, _ in marked]
    rings = len(numbers) * STEP
    wide = text_width(text) + rings + 12
    tries = sorted(((dx * wide * 0.55, dy * 20.0) for dx in range(-2, 3) for dy in range(-4, 5) if dy or dx),
                   key=lambda d: (abs(d[0]) / 2 + abs(d[1]), d[1] < 0))  # nearest first, below before above
    spots = [Spot(Box(min(max(x + dx - wide / 2, 2), room.width - wide - 2), min(max(y + dy - 9, 2), room.height - 20),
                      wide, 18)) for dx, dy in tries]
    spot = first_clear(room, spots, parts=room.parts, strict=True)
    if spot is None:
        return None
    room.take(spot)
    box = spot.box
    middle = box.y + 9
    rung = "".join(refused_callout(box.x + CALLOUT + 2 + k * STEP, middle, n) for k, n in enumerate(numbers))
    return (f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{wide:.1f}" height="18" rx="9" fill="{PAPER}" '
            f'stroke="{INK}" stroke-width="0.8"/>{rung}{_label(box.x + rings + 6, middle + 3.5, text, "start")}')
