"""SVG diagrams: the paths with tiles, Fireflies, lanterns and the goal line; the track, bag and hands."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from .geometry import bits
from .state import LOCATIONS

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State

FONT = 'font-family="Rulepress Sans, DejaVu Sans, sans-serif"'
CELL = 22
PLAYER_FILL = ("#7fa7d9", "#e8a15c", "#86c07a", "#d78bb8")
ABILITY_FILL = "#b7a1de"
ABANDONED_FILL = "#a89a86"
FIREFLY = {
    "black": "#1d1d1d",
    "yellow": "#f7d51d",
    "orange": "#f08a24",
    "blue": "#2f6fd6",
    "purple": "#8a3fc2",
}
FLOWER_MARK = {"bluebell": "B", "daisy": "D", "poppy": "P", "violet": "V"}


def _text(
    x: float,
    y: float,
    s: str,
    size: float = 10,
    anchor: str = "start",
    weight: str = "normal",
    fill: str = "#222",
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
        f'fill="{fill}" {FONT}>{escape(s)}</text>'
    )


def _rect(
    x: float, y: float, w: float, h: float, fill: str, stroke: str = "none", sw: float = 0.6, extra: str = ""
) -> str:
    return (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}" stroke="{stroke}" '
        f'stroke-width="{sw}"{extra}/>'
    )


def _line(x1: float, y1: float, x2: float, y2: float, stroke: str, sw: float) -> str:
    return (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="{stroke}" stroke-width="{sw}"/>'
    )


def _tile_cells(out: list[str], cells: list[tuple[float, float]], fill: str, size: float) -> None:
    """Fill a tile's squares and draw its outline (edges not shared with another of its squares)."""
    spots = {(round(x / size), round(y / size)) for x, y in cells}
    for x, y in cells:
        out.append(_rect(x, y, size, size, fill))
    for x, y in cells:
        gx, gy = round(x / size), round(y / size)
        if (gx, gy - 1) not in spots:
            out.append(_line(x, y, x + size, y, "#333", 1.4))
        if (gx, gy + 1) not in spots:
            out.append(_line(x, y + size, x + size, y + size, "#333", 1.4))
        if (gx - 1, gy) not in spots:
            out.append(_line(x, y, x, y + size, "#333", 1.4))
        if (gx + 1, gy) not in spots:
            out.append(_line(x + size, y, x + size, y + size, "#333", 1.4))


def render(g: LastLantern, s: State, caption: str | None = None) -> str:
    c = g.canopy
    out: list[str] = []
    left = 84
    lines = _wrap(caption, 66) if caption else []
    top = 24 + 15 * len(lines)
    steps = c.rows  # start column, the paths, and what lies past the goal line
    board_w = steps * CELL
    board_h = c.lanes * CELL

    def xy(cell: int) -> tuple[float, float]:
        lane, step = c.column_row(cell)
        return left + step * CELL, top + lane * CELL

    # spaces
    shared = {lane for lanes in c.shared for lane in lanes}
    yellow_rows = set(c.lantern_rows)
    for lane in range(c.lanes):
        for step in range(steps):
            x, y = left + step * CELL, top + lane * CELL
            if step == 0:
                out.append(_rect(x + 1, y + 1, CELL - 2, CELL - 2, "#f4f1e8"))
            elif step <= c.length:
                fill = "#fff1a6" if step in yellow_rows else ("#cfcfcf" if lane in shared else "#eef3e2")
                out.append(_rect(x, y, CELL, CELL, fill, "#8b8b7a"))
            elif g.opt["basilisk"]:
                out.append(_rect(x, y, CELL, CELL, "#e3d3ee", "#8b7a99"))
                icons = c.basilisk_icons.get(c.index(lane, step), 0)
                if icons:
                    out.append(_text(x + CELL / 2, y + CELL / 2 + 3, "●" * icons, 7, "middle", fill="#555"))
    for p in range(c.n_paths):
        lanes = c.private[p]
        mid = top + (lanes[0] + lanes[-1] + 1) / 2 * CELL
        name = s.players[p] if p < len(s.players) else f"P{p + 1}"
        out.append(_text(left - 6, mid + 4, name, 10, "end", "bold"))
        out.append(
            f'<circle cx="{left + CELL / 2:.1f}" cy="{mid:.1f}" r="7" fill="{PLAYER_FILL[p]}" '
            'stroke="#333" stroke-width="0.8"/>'
        )
        out.append(_text(left + CELL / 2, mid + 3.5, name[:1], 9, "middle", "bold"))
    for i, name in enumerate(c.names):
        out.append(_text(8, top + i * CELL + CELL / 2 + 3, name, 7, "middle", fill="#777"))
    for step in range(1, steps):
        out.append(_text(left + step * CELL + CELL / 2, top - 3, str(step), 7, "middle", fill="#777"))
    # serpents
    for i, icon in enumerate(c.serpent_icons if g.opt["branches"] else []):
        cells = [xy(cell) for cell in bits(icon)]
        _tile_cells(out, cells, "#9fcf9a" if s.serpent_flipped[i] else "#3f7d3a", CELL)
        x, y = cells[0]
        label = s.serpents[i] + (" ✓" if s.serpent_flipped[i] else "")
        out.append(_text(x + 2, y + 8, label, 6.5, fill="#fff" if not s.serpent_flipped[i] else "#222"))
    # tiles
    for pl in s.placed.values():
        kind = g.tiles[pl.tile].kind
        fill = (
            ABANDONED_FILL
            if pl.abandoned
            else (ABILITY_FILL if kind == "ability" else PLAYER_FILL[pl.player])
        )
        cells = [xy(cell) for cell in bits(pl.mask)]
        _tile_cells(out, cells, fill, CELL)
        x, y = min(cells)
        out.append(_text(x + 2, y + 8, pl.tile, 6.5))
        if pl.mark >= 0:
            fx, fy = xy(pl.mark)
            flower = g.tiles[pl.tile].flower or ""
            out.append(
                f'<circle cx="{fx + CELL - 6:.1f}" cy="{fy + CELL - 6:.1f}" r="4.2" fill="#fbe3f1" '
                'stroke="#b0407a" stroke-width="0.7"/>'
            )
            out.append(
                _text(
                    fx + CELL - 6,
                    fy + CELL - 3.8,
                    FLOWER_MARK.get(flower, "?"),
                    5.5,
                    "middle",
                    fill="#b0407a",
                )
            )
    # fireflies
    for cell, colour in s.fireflies.items():
        x, y = xy(cell)
        out.append(
            f'<circle cx="{x + CELL / 2:.1f}" cy="{y + CELL / 2:.1f}" r="5.5" fill="{FIREFLY[colour]}" '
            'stroke="#555" stroke-width="0.8"/>'
        )
    # lantern lines and the goal line
    for k, row in enumerate(c.lantern_rows):
        x = left + row * CELL
        out.append(_line(x, top - 2, x, top + board_h + 2, "#d8a400", 3))
        out.append(
            _text(
                x,
                top + board_h + 12,
                f"L{k + 1}: {s.lantern_fireflies[k]}●",
                8,
                "middle",
                "bold",
                "#9a7400",
            )
        )
    gx = left + (c.length + 1) * CELL
    out.append(_line(gx, top - 6, gx, top + board_h + 6, "#7b2fa6", 3.5))
    out.append(_text(gx + 3, top + board_h + 12, "goal", 8, "start", "bold", "#7b2fa6"))
    y = top + board_h + 30
    y = _panel(g, s, out, left, y, board_w)
    width = max(left + board_w + 12, 480)
    lake_h = 0
    if g.lake is not None:
        lake_h = _lake(g, s, out, left, y + 4)
        y += lake_h + 10
    height = y + 6
    for i, line in enumerate(lines):
        out.insert(i, _text(8, 16 + 15 * i, line, 11, "start", "bold"))
    body = "\n".join(out)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">\n'
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>\n'
        f"{body}\n</svg>\n"
    )


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _panel(g: LastLantern, s: State, out: list[str], left: float, y: float, width: float) -> float:
    """The Path Astray track, the bag, the supply and each player's hand and Familiars."""
    x = 8
    if g.lake is None and not g.opt["basilisk"]:
        out.append(_text(x, y + 12, "Path Astray", 9, weight="bold"))
        for i, icon in enumerate(g.track_icons):
            bx = x + 70 + i * 44
            out.append(_rect(bx, y, 42, 18, "#e9e2d6", "#8b7d66"))
            label = s.track[i] if i < len(s.track) else "●" * icon
            out.append(_text(bx + 21, y + 12.5, label, 8, "middle", "bold" if i < len(s.track) else "normal"))
        y += 26
    bag = ", ".join(f"{n} {colour}" for colour, n in s.bag.items() if n) or "empty"
    supply = ", ".join(f"{n} {colour}" for colour, n in s.supply.items() if n) or "empty"
    out.append(_text(x, y + 10, f"Bag: {bag}", 9, weight="bold"))
    out.append(_text(x + 200, y + 10, f"Supply: {supply}", 9))
    out.append(_text(x, y + 23, f"Round {s.round} · {s.phase} · black on paths: {s.board_black}", 9))
    y += 30
    shown = [loc for loc in LOCATIONS if loc in g.locations and s.location_tile.get(loc)]
    if shown and s.phase in ("choose", "resolve", "familiar"):
        text = "Beside the locations: " + ", ".join(f"{loc} {s.location_tile[loc]}" for loc in shown)
        out.append(_text(x, y + 10, text, 9))
        y += 14
    for p, name in enumerate(s.players):
        fam = " ".join(f"{k[0].upper()}{s.familiars[p][k]}" for k in LOCATIONS if k in g.locations)
        hand = ", ".join(s.hands[p]) or "–"
        out.append(
            _text(
                x,
                y + 10,
                f"{name}: tile {hand} · Familiars {fam} · lanterns crossed "
                f"{sorted(k + 1 for k in s.crossed[p]) or '–'}",
                9,
            )
        )
        y += 13
    if s.abandoned:
        out.append(_text(x, y + 10, "Abandoned this round: " + ", ".join(s.abandoned), 9))
        y += 13
    return y + 4


def _lake(g: LastLantern, s: State, out: list[str], left: float, y: float) -> float:
    lake = g.lake
    assert lake is not None
    size = 18
    x0 = 80
    out.append(_text(8, y + 12, "Frozen Lake", 9, weight="bold"))
    for cell in bits(lake.spaces):
        col, row = lake.column_row(cell)
        bx, by = x0 + col * size, y + row * size
        out.append(_rect(bx, by, size, size, "#dff1fb", "#7aa7bf"))
        icons = lake.icons.get(cell, 0)
        if icons:
            out.append(_text(bx + size / 2, by + size / 2 + 3, "●" * icons, 6.5, "middle", fill="#555"))
    for tile, mask in s.lake.items():
        cells = [(x0 + lake.column_row(c)[0] * size, y + lake.column_row(c)[1] * size) for c in bits(mask)]
        _tile_cells(out, cells, ABANDONED_FILL, size)
        bx, by = min(cells)
        out.append(_text(bx + 2, by + 7, tile, 6))
    return lake.rows * size
