"""An arrow's way between two places of a drawing (no stage): a gentle bow, else a detour round the drawing's text.

The marks (rulepress/marks.py) draw an arrow for a piece that moved and a struck-out one for a move refused, from
the edge of the place it left to the edge of the place it went to.  A bow between the two (a quadratic curve, bowed
to one side) is tried first, nearest the bend wanted first; where every bow crosses a label of the drawing (the
pieces between the two places are labelled), :func:`detour` finds the shortest way round the text on a grid and
pulls it straight between its turns, and :func:`rounded` rounds its corners.  A :class:`Route` is what the marks
draw and measure: its SVG path, points along it (rulepress/placing.py keeps them clear of the text and the
numbers), and its last run, which its head points along.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from rulepress.placing import GAP, Box, Point, Room, Stroke


def quadratic(start: Point, control: Point, end: Point, t: float) -> Point:
    """The point at ``t`` (0 to 1) of a quadratic curve."""
    u = 1 - t
    return (u * u * start[0] + 2 * u * t * control[0] + t * t * end[0],
            u * u * start[1] + 2 * u * t * control[1] + t * t * end[1])


def curve_points(start: Point, control: Point, end: Point, runs: int = 12) -> tuple[Point, ...]:
    """Points along a quadratic curve, ``runs`` straight runs apart."""
    return tuple(quadratic(start, control, end, k / runs) for k in range(runs + 1))


Curve = tuple[tuple[float, float], tuple[float, float], tuple[float, float]]


def _edge(box: Box, towards: tuple[float, float]) -> tuple[float, float]:
    """Where the line from the box's centre towards a point leaves the box."""
    cx, cy = box.centre
    dx, dy = towards[0] - cx, towards[1] - cy
    if dx == 0 and dy == 0:
        return cx, cy
    scale = min(box.width / 2 / abs(dx) if dx else math.inf, box.height / 2 / abs(dy) if dy else math.inf)
    return cx + dx * min(scale, 1), cy + dy * min(scale, 1)


def curve_between(source: Box, target: Box, bend: float) -> Curve:
    """A gently curved path from one box's edge to another's: its start, control point and end."""
    start, end = _edge(source, target.centre), _edge(target, source.centre)
    mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
    dx, dy = end[0] - start[0], end[1] - start[1]
    return start, (mx - dy * bend, my + dx * bend), end


def head_points(control: tuple[float, float], end: tuple[float, float],
                size: float) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
    """An arrow's head, ``size`` long, at ``end``, pointing away from ``control``: its tip and its two corners."""
    angle = math.atan2(end[1] - control[1], end[0] - control[0])
    return (end, (end[0] - size * math.cos(angle - 0.45), end[1] - size * math.sin(angle - 0.45)),
            (end[0] - size * math.cos(angle + 0.45), end[1] - size * math.sin(angle + 0.45)))


@dataclass(frozen=True)
class Route:
    """An arrow's way: its SVG path, points along it (for what it must keep clear of, and where its number goes),
    and the last run its head points along."""

    d: str
    points: tuple[tuple[float, float], ...]
    control: tuple[float, float]
    end: tuple[float, float]

    def at(self, part: float) -> tuple[float, float]:
        """The point ``part`` of the way along it (0: its start, 1: its end)."""
        runs = list(zip(self.points, self.points[1:], strict=False))
        lengths = [math.dist(a, b) for a, b in runs]
        left = part * sum(lengths)
        for (a, b), length in zip(runs, lengths, strict=True):
            if left <= length and length:
                return a[0] + (b[0] - a[0]) * left / length, a[1] + (b[1] - a[1]) * left / length
            left -= length
        return self.end


def bow(curve: Curve) -> Route:
    """The route of a bow (:func:`curve_between`)."""
    return Route(_svg_path(curve), curve_points(*curve), curve[1], curve[2])


def rounded(points: Sequence[tuple[float, float]], radius: float = 10.0) -> Route:
    """A path through ``points``, its corners rounded."""
    d = f"M{points[0][0]:.1f} {points[0][1]:.1f}"
    sampled = [points[0]]
    for a, p, b in zip(points, points[1:], points[2:], strict=False):
        r = min(radius, math.dist(a, p) / 2, math.dist(p, b) / 2)
        p1 = (p[0] + (a[0] - p[0]) * r / math.dist(a, p), p[1] + (a[1] - p[1]) * r / math.dist(a, p))
        p2 = (p[0] + (b[0] - p[0]) * r / math.dist(p, b), p[1] + (b[1] - p[1]) * r / math.dist(p, b))
        d += f"L{p1[0]:.1f} {p1[1]:.1f}Q{p[0]:.1f} {p[1]:.1f} {p2[0]:.1f} {p2[1]:.1f}"
        sampled += list(curve_points(p1, p, p2, 6))
    d += f"L{points[-1][0]:.1f} {points[-1][1]:.1f}"
    sampled.append(points[-1])
    return Route(d, tuple(sampled), points[-2], points[-1])


def clear_way(route: Route, room: Room, halo: float, head: float, numbers: bool = True) -> bool:
    """Whether the route's line (``halo`` wide) and its head (``head`` long) keep clear of the drawing's text and
    (``numbers``) of the numbers placed."""
    tip = Stroke(head_points(route.control, route.end, head) + (route.end,), 1.0)
    return room.route_clear(Stroke(route.points, halo / 2), numbers=numbers) and room.route_clear(tip, numbers=numbers)


def way(source: Box, target: Box, bend: float, room: Room, halo: float, head: float) -> Route | None:
    """The way from ``source`` to ``target`` whose line (``halo`` wide) and head keep clear of the drawing's text
    and of the numbers placed: the first such bow, nearest the wanted ``bend`` first; else a :func:`detour` round
    the text; else a bow clear of the text alone; None when every way crosses a label."""
    wanted = bend or 0.14
    bends = [bend, -bend, 0.0, wanted * 2.2, -wanted * 2.2, 0.5, -0.5, 0.75, -0.75]
    bows = [bow(curve_between(source, target, b)) for b in dict.fromkeys(bends)]
    clear = next((curve for curve in bows if clear_way(curve, room, halo, head)), None)
    if clear is not None:
        return clear
    points = detour(source, target, room, halo / 2)
    if points is not None and len(points) >= 2 and math.dist(points[-2], points[-1]) >= head:
        for found in (rounded(points), rounded(points, 0.0)):  # its corners rounded, else sharp (no label cut)
            if clear_way(found, room, halo, head):
                return found
    return next((curve for curve in bows if clear_way(curve, room, halo, head, numbers=False)), None)


def _svg_path(curve: Curve) -> str:
    (sx, sy), (cx, cy), (ex, ey) = curve
    return f"M{sx:.1f} {sy:.1f}Q{cx:.1f} {cy:.1f} {ex:.1f} {ey:.1f}"


CELL = 5.0  # the grid a detour is found on, in units


def detour(source: Box, target: Box, room: Room, half: float) -> list[Point] | None:
    """A path from ``source``'s edge to ``target``'s that keeps a line ``half`` wide clear of the drawing's text and
    the numbers placed, where no single bow does (the pieces between the two places are labelled): the shortest way
    on a grid of :data:`CELL` units, cut to the boxes' edges and pulled straight between its turns.  None when the
    text walls the two places apart."""
    columns, rows = int(room.width // CELL), int(room.height // CELL)
    if columns < 2 or rows < 2:
        return None
    keep = half + GAP + CELL * 0.72  # a run between two free cells' centres keeps clear too
    walls = [label.grown(keep) for label in room.labels] + [spot.box.grown(keep) for spot in room.numbers]
    blocked = bytearray(columns * rows)
    for wall in walls:
        for row in range(max(int(wall.y // CELL), 0), min(int(wall.bottom // CELL) + 1, rows)):
            for column in range(max(int(wall.x // CELL), 0), min(int(wall.right // CELL) + 1, columns)):
                if wall.holds_point((column + 0.5) * CELL, (row + 0.5) * CELL):
                    blocked[row * columns + column] = 1

    def inside(box: Box, cell: int) -> bool:
        return box.holds_point((cell % columns + 0.5) * CELL, (cell // columns + 0.5) * CELL)

    def cells_in(box: Box) -> list[int]:
        return [row * columns + column for row in range(max(int(box.y // CELL), 0), min(int(box.bottom // CELL) + 1,
                                                                                      rows))
                for column in range(max(int(box.x // CELL), 0), min(int(box.right // CELL) + 1, columns))
                if not blocked[row * columns + column] and inside(box, row * columns + column)]

    starts = cells_in(source)
    goals = set(cells_in(target))
    if not starts or not goals:
        return None
    gx, gy = target.centre
    came: dict[int, int] = {}
    cost = {c: 0.0 for c in starts}
    frontier = [(math.hypot((c % columns + 0.5) * CELL - gx, (c // columns + 0.5) * CELL - gy) / CELL, c)
                for c in starts]
    heapq.heapify(frontier)
    found = None
    steps = [(dx, dy, math.hypot(dx, dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
    while frontier:
        _, cell = heapq.heappop(frontier)
        if cell in goals:
            found = cell
            break
        x, y = cell % columns, cell // columns
        for dx, dy, length in steps:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < columns and 0 <= ny < rows) or blocked[ny * columns + nx]:
                continue
            step = ny * columns + nx
            total = cost[cell] + length
            if total < cost.get(step, math.inf):
                cost[step], came[step] = total, cell
                heapq.heappush(frontier, (total + math.hypot((nx + 0.5) * CELL - gx, (ny + 0.5) * CELL - gy) / CELL,
                                          step))
    if found is None:
        return None
    cells = [found]
    while cells[-1] in came:
        cells.append(came[cells[-1]])
    cells.reverse()
    # From the last cell inside the source to the first inside the target: the arrow runs from edge to edge.
    first = max(i for i, c in enumerate(cells) if inside(source, c))
    last = min(i for i, c in enumerate(cells) if inside(target, c) and i >= first)
    points = [((c % columns + 0.5) * CELL, (c // columns + 0.5) * CELL) for c in cells[first:last + 1]]
    if len(points) < 2:
        return None
    points[0] = _towards_edge(source, points[0], points[1])
    points[-1] = _towards_edge(target, points[-1], points[-2])
    return _pulled(points, room, half)


def _towards_edge(box: Box, inner: Point, outer: Point) -> Point:
    """Where the run from ``inner`` (in the box) to ``outer`` (out of it) crosses the box's edge."""
    low, high = 0.0, 1.0
    for _ in range(12):
        middle = (low + high) / 2
        point = (inner[0] + (outer[0] - inner[0]) * middle, inner[1] + (outer[1] - inner[1]) * middle)
        low, high = (middle, high) if box.holds_point(*point) else (low, middle)
    return inner[0] + (outer[0] - inner[0]) * high, inner[1] + (outer[1] - inner[1]) * high


def _pulled(points: list[Point], room: Room, half: float) -> list[Point]:
    """The grid's path pulled straight: from each point kept, on to the farthest later one in clear sight."""
    turns = [points[0]] + [p for a, p, b in zip(points, points[1:], points[2:], strict=False)
                           if (p[0] - a[0], p[1] - a[1]) != (b[0] - p[0], b[1] - p[1])] + [points[-1]]
    kept = [turns[0]]
    at = 0
    while at < len(turns) - 1:
        reach = next((j for j in range(len(turns) - 1, at, -1)
                      if room.route_clear(Stroke((turns[at], turns[j]), half))), at + 1)
        kept.append(turns[reach])
        at = reach
    return kept
