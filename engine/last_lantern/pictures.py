"""Last Lantern's pictures beyond the table: every component (the Tree tiles as one sheet), the key to the diagrams,
and the cover.  Drawn as the diagrams draw (render.py's colours and squares), counted from the component data."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rulepress.basegame import ComponentPicture, Figure, LegendEntry
from rulepress.figures import sheet

from .render import (
    ABANDONED_FILL,
    ABILITY_FILL,
    FIREFLY,
    FLOWER_MARK,
    INK,
    LINE,
    MUTED,
    PLAYER_FILL,
    _,
    _lantern_icon,
    _line,
    _rect,
    _text,
    _tile_cells,
    paint,
    pgettext,
)

if TYPE_CHECKING:
    from .game import LastLanternGame

SQUARE = 10  # a tile's square on the components page
FAMILIARS = {"rabbit": "R", "snail": "S", "owl": "O", "wolf": "W"}


def _shape(data: Mapping[str, Any], name: str) -> list[tuple[int, int]]:
    """A shape's squares as (column, row), in the shape's own cell order (its flower's square counts in it)."""
    return [(c, r) for r, row in enumerate(data["shapes"][name]) for c, ch in enumerate(row) if ch == "#"]


def _flower(x: float, y: float, flower: str, size: float) -> list[str]:
    mark = pgettext("flower initial", FLOWER_MARK[flower]) if flower in FLOWER_MARK else "?"
    r = size * 0.48
    return [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{paint("flower")}" stroke="{paint("flower_ink")}" '
            f'stroke-width="0.6"/>', _text(x, y + 3.5, mark, 10, "middle", "bold")]


def _shroom(x: float, y: float) -> str:
    """Glow-shrooms printed on a tile: a small mushroom, cap and stem."""
    return (f'<path d="M{x - 4:.1f} {y:.1f}A4 3.6 0 0 1 {x + 4:.1f} {y:.1f}Z" fill="{paint("firefly_yellow")}" '
            f'stroke="{INK}" stroke-width="0.6"/><rect x="{x - 1.2:.1f}" y="{y:.1f}" width="2.4" height="3.4" '
            f'fill="{paint("paper")}" stroke="{INK}" stroke-width="0.5"/>')


def tile_figure(data: Mapping[str, Any], entry: Mapping[str, Any], fill: str, size: float = SQUARE) -> Figure:
    """One tile: its squares, its flower on the square it sits on, its glow-shrooms."""
    cells = _shape(data, str(entry["shape"]))
    spots = [(c * size, r * size) for c, r in cells]
    out: list[str] = []
    _tile_cells(out, spots, fill, size)
    flower = entry.get("flower")
    if flower:
        fx, fy = spots[int(flower["cell"])]
        out += _flower(fx + size / 2, fy + size / 2, str(flower["type"]), max(size, 13))
    if entry.get("glow"):
        gx, gy = spots[-1] if not flower or int(flower["cell"]) != len(spots) - 1 else spots[0]
        out.append(_shroom(gx + size / 2, gy + size / 2 + 1))
    width = max(x for x, _ in spots) + size
    height = max(y for _, y in spots) + size
    return Figure(out, height, width=width)


def _tiles_sheet(data: Mapping[str, Any], entries: list[Mapping[str, Any]], fill: str) -> Figure:
    return sheet([(tile_figure(data, entry, fill), str(entry["id"])) for entry in entries], width=470, gap=12)


def _board(lanes: int, length: int, lantern_rows: list[int], shared: set[int], cell: float = 7) -> Figure:
    out: list[str] = []
    for lane in range(lanes):
        for step in range(length + 1):
            x, y = step * cell, lane * cell
            fill = paint("start") if step == 0 else paint("lantern_row") if step in lantern_rows else paint(
                "shared" if lane in shared else "path")
            out.append(_rect(x, y, cell, cell, fill, paint("path_line"), 0.4))
    for row in lantern_rows:
        out.append(_line(row * cell, -1, row * cell, lanes * cell + 1, paint("lantern"), 1.6))
    gx = (length + 1) * cell
    out.append(_line(gx, -3, gx, lanes * cell + 3, paint("goal"), 2))
    return Figure(out, lanes * cell + 2, width=gx + 4)


def _layout_board(data: Mapping[str, Any], key: str, cell: float = 7) -> Figure:
    layout = data["canopy"]["layouts"][key]
    names = "abcdefghijklmnopqrstuvwxyz"
    shared = {names.index(s) for path in layout["paths"] for s in path["shared"]}
    return _board(int(layout["lanes"]), int(layout["length"]), list(layout["lantern_rows"]), shared, cell)


def _token(label: str, fill: str, r: float = 12, ink: str = INK) -> list[str]:
    return [f'<circle cx="{r + 1:g}" cy="{r + 1:g}" r="{r:g}" fill="{fill}" stroke="{LINE}" stroke-width="1"/>',
            _text(r + 1, r + 5, label, 11, "middle", "bold", ink)]


def _row(pictures: list[tuple[list[str], float, str]], gap: float = 10, height: float = 28) -> Figure:
    """Pictures ``height`` tall side by side, each with its label under it: (elements, width, label)."""
    out: list[str] = []
    x = 0.0
    for elements, width, label in pictures:
        wide = max(width, len(label) * 6.2)
        out.append(f'<g transform="translate({x + (wide - width) / 2:.1f} 0)">{"".join(elements)}</g>')
        if label:
            out.append(_text(x + wide / 2, height + 11, label, 10, "middle"))
        x += wide + gap
    return Figure(out, height + (14 if any(label for _, _, label in pictures) else 0), width=x - gap)


def components(game: LastLanternGame) -> list[ComponentPicture]:
    data = game.components
    kinds = list(data["familiars"]["kinds"])
    per_kind = int(data["familiars"]["per_kind"])
    familiar_names = {"rabbit": _("Rabbit"), "snail": _("Snail"), "owl": _("Owl"), "wolf": _("Wolf")}
    familiars = _row([(_token(familiar_names.get(k, k)[:1], paint("flower") if k == "wolf" else paint("track")),
                       26, familiar_names.get(k, k)) for k in kinds])
    flies = data["fireflies"]
    fireflies = _row([(_token("", FIREFLY["black"], 8), 18, _("black")),
                      (_token("", FIREFLY["yellow"], 8), 18, _("yellow"))], height=18)
    eerie = data["challenges"]["eerie"]
    eerie_row = _row([(_token("", FIREFLY[c], 8), 18, _(c)) for c in ("orange", "blue", "purple")], height=18)
    characters = _row([(_token(str(n + 1), PLAYER_FILL[n]), 26, "") for n in range(4)])
    wheels = _row([([f'<circle cx="14" cy="14" r="13" fill="{paint("paper")}" stroke="{LINE}" stroke-width="1"/>',
                     f'<circle cx="14" cy="14" r="5" fill="{PLAYER_FILL[n]}" stroke="{LINE}" stroke-width="0.6"/>',
                     *_flower(14, 4.5, flower, 11)], 28, "") for n, flower in
                   enumerate(data["tree_tiles"]["flower_types"])])
    bags = _row([(_bag(32), 34, _("tiles")), (_bag(24), 26, _("Fireflies"))], height=36)
    board = _layout_board(data, "p4", 9)
    two, three = _layout_board(data, "p2", 6), _layout_board(data, "p3", 6)
    covers = _row([(list(two.elements), two.width or 0, _("2 players")),
                   (list(three.elements), three.width or 0, _("3 players"))], gap=18,
                  height=max(two.height or 0, three.height or 0))
    serpents = sheet([(Figure([_rect(0, 0, 2 * SQUARE, SQUARE, paint("serpent"), LINE, 1),
                               _text(SQUARE, 8, "+" + str(s["reward"]), 10, "middle", "bold", paint("paper"))],
                              SQUARE, width=2 * SQUARE), str(s["id"]))
                      for s in data["challenges"]["serpent_tiles"]["list"]], width=300, gap=14)
    lake = _lake_board(data)
    shown = [
        ComponentPicture(_("Canopy board"), 1, board, _("4 players: the whole board, lantern lines in yellow, "
                                                       "the goal line in purple")),
        ComponentPicture(_("Cover boards"), 2, covers, _("laid on the Canopy board for 2 and for 3 players")),
        ComponentPicture(_("Tree tiles"), int(data["tree_tiles"]["total"]),
                         _tiles_sheet(data, data["tree_tiles"]["tiles"]["list"], paint("track")),
                         _("each with its name; a letter on a square is its flower, a mushroom its glow-shrooms")),
        ComponentPicture(_("Ability tiles"), int(data["ability_tiles"]["total"]),
                         _tiles_sheet(data, data["ability_tiles"]["list"], ABILITY_FILL)),
        ComponentPicture(_("Familiars"), int(data["familiars"]["total"]), familiars,
                         _("{count} of each kind").format(count=per_kind)),
        ComponentPicture(_("Fireflies"), int(flies["total"]), fireflies,
                         _("{black} black and {yellow} yellow").format(black=flies["black"], yellow=flies["yellow"])),
        ComponentPicture(_("Character tokens"), 4, characters),
        ComponentPicture(_("Character wheels"), 4, wheels, _("each shows its flower")),
        ComponentPicture(_("Cloth bags"), 2, bags, _("a large one for the Tree tiles, a small one for the Fireflies")),
        ComponentPicture(_("Mushroom tiles"), int(data["challenges"]["mushroom_tiles"]["total"]),
                         _tiles_sheet(data, data["challenges"]["mushroom_tiles"]["list"], ABANDONED_FILL),
                         _("challenge: Glow-shrooms")),
        ComponentPicture(_("Eerie Fireflies"), int(eerie["total"]), eerie_row,
                         _("challenge: Eerie Lights, 2 of each colour")),
        ComponentPicture(_("Serpent tiles"), int(data["challenges"]["serpent_tiles"]["total"]), serpents,
                         _("challenge: Moving Branches, with the Fireflies each one gives back")),
        ComponentPicture(_("Frozen Lake board"), 1, lake, _("challenge: Frozen Lake")),
    ]
    return shown


def _bag(size: float) -> list[str]:
    w = size
    return [f'<path d="M{w * 0.3:.1f} 4Q{w * 0.5:.1f} 9 {w * 0.7:.1f} 4L{w * 0.62:.1f} 10Q{w:.1f} 16 {w * 0.92:.1f} '
            f'{w * 1.0:.1f}Q{w * 0.5:.1f} {w * 1.1:.1f} {w * 0.08:.1f} {w * 1.0:.1f}Q0 16 {w * 0.38:.1f} 10Z" '
            f'fill="{paint("abandoned")}" stroke="{LINE}" stroke-width="1"/>',
            _line(w * 0.32, 9, w * 0.68, 9, LINE, 1.4)]


def _lake_board(data: Mapping[str, Any], size: float = 10) -> Figure:
    rows = data["challenges"]["frozen_lake"]["rows"]
    out: list[str] = []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "x":
                continue
            out.append(_rect(c * size, r * size, size, size, paint("lake"), paint("lake_line"), 0.6))
            if ch.isdigit():  # its Fireflies as dots (the diagram's "●" glyphs: at the smallest text size, two
                # would not fit a square this small)
                out.extend(_dots(c * size + size / 2, r * size + size / 2, int(ch), size))
    width = max(len(row) for row in rows) * size
    return Figure(out, len(rows) * size, width=width)


def _dots(cx: float, cy: float, count: int, size: float) -> list[str]:
    """``count`` dots in a row centred on ``cx, cy``, within a square ``size`` wide."""
    r = min(1.3, size / 8)
    pitch = min(3 * r, (size - 2 * r) / max(count, 1))
    first = cx - pitch * (count - 1) / 2
    return [f'<circle cx="{first + k * pitch:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="{MUTED}"/>' for k in range(count)]


def legend(game: LastLanternGame) -> list[LegendEntry]:
    cell = 12
    return [
        LegendEntry([_rect(2, 4, cell, cell, paint("path"), paint("path_line")),
                     _rect(2 + cell, 4, cell, cell, paint("shared"), paint("path_line"))],
                    _("A space of a path; grey: a column two paths share")),
        LegendEntry([_rect(4, 4, cell, cell, paint("lantern_row"), paint("path_line")),
                     _line(4, 2, 4, 18, paint("lantern"), 3), _line(28, 2, 28, 18, paint("goal"), 3.5)],
                    _("A lantern's line in yellow before its yellow row; the goal line in purple")),
        LegendEntry([_rect(2, 4, cell, cell, PLAYER_FILL[0], LINE),
                     _rect(2 + cell, 4, cell, cell, PLAYER_FILL[0], LINE),
                     _rect(2 + 2 * cell + 2, 4, cell, cell, ABANDONED_FILL, LINE)],
                    _("A Tree tile in its player's colour, named on it; brown: abandoned")),
        LegendEntry([_rect(4, 4, cell, cell, ABILITY_FILL, LINE), *_flower(26, 10, "daisy", 13)],
                    _("An Ability tile; a letter in a circle: a flower (its initial)")),
        LegendEntry([f'<circle cx="10" cy="10" r="5.5" fill="{FIREFLY["black"]}" stroke="{MUTED}"/>',
                     f'<circle cx="26" cy="10" r="5.5" fill="{FIREFLY["yellow"]}" stroke="{MUTED}"/>'],
                    _("A black and a yellow Firefly on a space; ● on a track space: black Fireflies it adds")),
        LegendEntry([_lantern_icon(8, 10, 1, True), _lantern_icon(26, 10, 2, False)],
                    _("In a player's row: a lantern line crossed (filled) and not yet (outline)")),
    ]


def cover(game: LastLanternGame, width: float, height: float) -> list[str]:
    """The cover: the canopy's paths at night, tiles laid along them and Fireflies glowing at the lantern lines."""
    data = game.components
    rng = random.Random("last-lantern cover")
    lanes, length = 11, 10
    cell = min(width / (length + 4), height / (lanes + 2))
    left, top = (width - (length + 1) * cell) / 2, (height - lanes * cell) / 2
    layout = data["canopy"]["layouts"]["p3"]
    rows = list(layout["lantern_rows"])
    out: list[str] = []
    for lane in range(lanes):
        for step in range(1, length + 1):
            fill = paint("lantern_row") if step in rows else paint("path")
            out.append(f'<rect x="{left + step * cell:.2f}" y="{top + lane * cell:.2f}" width="{cell * 0.94:.2f}" '
                       f'height="{cell * 0.94:.2f}" rx="{cell * 0.12:.2f}" fill="{fill}" fill-opacity="0.22"/>')
    for row in rows:
        x = left + row * cell
        out.append(f'<rect x="{x - cell * 0.5:.2f}" y="{top - cell * 0.4:.2f}" width="{cell:.2f}" '
                   f'height="{lanes * cell + cell * 0.8:.2f}" fill="{paint("lantern")}" fill-opacity="0.18"/>')
        out.append(_line(x, top - cell * 0.4, x, top + lanes * cell + cell * 0.4, paint("lantern"), cell * 0.12))
    gx = left + (length + 1) * cell
    out.append(_line(gx, top - cell * 0.6, gx, top + lanes * cell + cell * 0.6, paint("goal"), cell * 0.16))
    tiles = data["tree_tiles"]["tiles"]["list"]
    for p, (lane0, step0) in enumerate(((0, 1), (4, 2), (8, 1))):
        entry = tiles[(p * 7 + 3) % len(tiles)]
        cells = _shape(data, str(entry["shape"]))
        for c, r in cells:
            out.append(f'<rect x="{left + (step0 + c) * cell:.2f}" y="{top + (lane0 + r) * cell:.2f}" '
                       f'width="{cell:.2f}" height="{cell:.2f}" fill="{PLAYER_FILL[p]}" stroke="{LINE}" '
                       f'stroke-width="{cell * 0.05:.2f}"/>')
    for k in range(26):
        row = rows[k % len(rows)]
        x = left + row * cell + rng.uniform(-1.4, 1.4) * cell
        y = top + rng.uniform(0, lanes) * cell
        r = cell * rng.uniform(0.16, 0.3)
        out.append(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{r * 2.6:.2f}" fill="{FIREFLY["yellow"]}" '
                   f'fill-opacity="0.18"/><circle cx="{x:.2f}" cy="{y:.2f}" r="{r:.2f}" fill="{FIREFLY["yellow"]}"/>')
    for lane in (1, 5, 9):
        cx, cy = left + 0.5 * cell, top + (lane + 0.5) * cell
        out.append(f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{cell * 0.42:.2f}" fill="{PLAYER_FILL[lane // 4]}" '
                   f'stroke="{paint("paper")}" stroke-width="{cell * 0.06:.2f}"/>')
    return out
