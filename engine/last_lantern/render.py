"""SVG diagrams: the paths with tiles, Fireflies, lanterns and the goal line; the track, bag and hands."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from rulepress.basegame import SMALLEST, Figure, painter
from rulepress.i18n import N_, NP_, translator
from rulepress.marks import Box
from rulepress.textwidth import text_width

from .geometry import bits
from .state import LOCATIONS

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State

# The words drawn in a diagram are players' words: they come from the narration's catalogs (narrate.py).
_tr = translator(__name__)
_, ngettext, pgettext = _tr.gettext, _tr.ngettext, _tr.pgettext

CELL = 22
# Font sizes in units of the 480-unit canvas, which the book prints across its text block (about 115 mm):
# 10 units (the base's SMALLEST) print at about 6.8 pt, and no text is smaller (6 pt at 105 mm).

# The game's palette, defined once, in CMYK percentages: the print edition uses it as it is
# (device-cmyk), the web and the digital edition get RGB from it through the print profile.
# Text and thin lines are black ink only (K), never a four-colour black.
PALETTE: dict[str, tuple[float, float, float, float]] = {
    "ink": (0, 0, 0, 100),
    "line": (0, 0, 0, 85),
    "muted": (0, 0, 0, 70),
    "paper": (0, 0, 0, 0),
    "player1": (50, 25, 0, 0),
    "player2": (5, 45, 80, 0),
    "player3": (50, 5, 70, 0),
    "player4": (15, 55, 0, 0),
    "ability": (30, 40, 0, 0),
    "abandoned": (35, 35, 50, 0),
    "firefly_black": (0, 0, 0, 100),
    "firefly_yellow": (5, 15, 100, 0),
    "firefly_orange": (5, 55, 100, 0),
    "firefly_blue": (85, 60, 0, 0),
    "firefly_purple": (60, 85, 0, 0),
    "start": (5, 5, 10, 0),
    "path": (5, 0, 15, 0),
    "path_line": (45, 40, 55, 10),
    "lantern_row": (0, 0, 45, 0),
    "shared": (0, 0, 0, 20),
    "basilisk": (10, 20, 0, 0),
    "basilisk_line": (50, 55, 25, 0),
    "serpent": (80, 30, 100, 20),
    "serpent_flipped": (40, 0, 55, 0),
    "flower": (0, 15, 0, 0),
    "flower_ink": (30, 95, 25, 0),
    "lantern": (15, 35, 100, 0),
    "lantern_ink": (35, 50, 100, 15),
    "goal": (65, 100, 0, 0),
    "track": (5, 10, 15, 0),
    "track_line": (45, 45, 65, 15),
    "lake": (10, 0, 0, 0),
    "lake_line": (55, 25, 20, 0),
    "cover": (85, 45, 95, 50),
    "cover_ink": (0, 5, 45, 0),
    "accent": (15, 35, 100, 0),
    "mark": (0, 90, 100, 0),
    "table_line": (0, 0, 0, 25),
}

paint = painter(PALETTE)

INK = paint("ink")
LINE = paint("line")
MUTED = paint("muted")
PLAYER_FILL = tuple(paint(f"player{n}") for n in range(1, 5))
ABILITY_FILL = paint("ability")
ABANDONED_FILL = paint("abandoned")
FIREFLY = {colour: paint(f"firefly_{colour}") for colour in ("black", "yellow", "orange", "blue", "purple")}
# A flower's mark is its name's initial, so it changes with the language (jacinthe, marguerite...).
FLOWER_MARK = {"bluebell": NP_("flower initial", "B"), "daisy": NP_("flower initial", "D"),
               "poppy": NP_("flower initial", "P"), "violet": NP_("flower initial", "V")}
# The engine's phase names, as the diagrams print them ("Round 2 · journey · ...").
PHASES = {
    "draw": NP_("phase", "draw"), "choose": NP_("phase", "choose"), "resolve": NP_("phase", "resolve"),
    "familiar": NP_("phase", "familiar"), "journey": NP_("phase", "journey"),
    "lantern-order": NP_("phase", "lantern-order"), "orange": NP_("phase", "orange"),
    "purple": NP_("phase", "purple"), "astray": NP_("phase", "astray"), "final": NP_("phase", "final"),
    "over": NP_("phase", "over"),
}
# A Familiar location, as "Beside the locations: rabbit T03" names it.
LOCATION_NAMES = {"rabbit": NP_("location", "rabbit"), "snail": NP_("location", "snail"),
                  "owl": NP_("location", "owl"), "wolf": NP_("location", "wolf")}
FAMILIAR_NAMES = {"rabbit": N_("Rabbit"), "snail": N_("Snail"), "owl": N_("Owl"), "wolf": N_("Wolf")}


def _phase(phase: str) -> str:
    return pgettext("phase", PHASES[phase]) if phase in PHASES else phase


def _fireflies(counts: dict[str, int]) -> str:
    """``3 yellow, 1 black`` (a bag or the supply), or ``empty``."""
    said = []
    for colour, n in counts.items():
        if not n:
            continue
        # One literal message per colour: French colour words agree in number (3 jaunes, 3 orange).
        if colour == "black":
            said.append(ngettext("{n} black", "{n} black", n).format(n=n))
        elif colour == "yellow":
            said.append(ngettext("{n} yellow", "{n} yellow", n).format(n=n))
        elif colour == "orange":
            said.append(ngettext("{n} orange", "{n} orange", n).format(n=n))
        elif colour == "blue":
            said.append(ngettext("{n} blue", "{n} blue", n).format(n=n))
        elif colour == "purple":
            said.append(ngettext("{n} purple", "{n} purple", n).format(n=n))
        else:
            said.append(f"{n} {colour}")
    return ", ".join(said) or _("empty")


def _text(
    x: float,
    y: float,
    s: str,
    size: float = 10,
    anchor: str = "start",
    weight: str = "normal",
    fill: str = INK,
) -> str:
    size = max(size, SMALLEST)
    # The font is named once, on the diagram (FRAME), not on each of its many texts.
    bold = ' font-weight="bold"' if weight == "bold" else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}"{bold} fill="{fill}">'
            f'{escape(s)}</text>')


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
        f'fill="none" stroke="{stroke}" stroke-width="{sw}"/>'
    )


def _cell_label(x: float, y: float, size: float, label: str, fill: str = INK) -> str:
    """A tile's or serpent's name in its first square: from 2 units in, or centred where it would run out of the
    square (the gate measures every label against its box, rulepress/verify/labels.py)."""
    width = text_width(label, SMALLEST)
    return _text(x + min(2.0, max(0.0, (size - width) / 2)), y, label, SMALLEST, fill=fill)


def _tile_cells(out: list[str], cells: list[tuple[float, float]], fill: str, size: float) -> None:
    """Fill a tile's squares and draw its outline (edges not shared with another of its squares): one path for the
    squares and one for the outline (every step of every example is a diagram on the site: it stays small)."""
    spots = {(round(x / size), round(y / size)) for x, y in cells}
    squares = "".join(f"M{x:.1f} {y:.1f}h{size:g}v{size:g}h{-size:g}z" for x, y in cells)
    edges: list[str] = []
    for x, y in cells:
        gx, gy = round(x / size), round(y / size)
        if (gx, gy - 1) not in spots:
            edges.append(f"M{x:.1f} {y:.1f}h{size:g}")
        if (gx, gy + 1) not in spots:
            edges.append(f"M{x:.1f} {y + size:.1f}h{size:g}")
        if (gx - 1, gy) not in spots:
            edges.append(f"M{x:.1f} {y:.1f}v{size:g}")
        if (gx + 1, gy) not in spots:
            edges.append(f"M{x + size:.1f} {y:.1f}v{size:g}")
    out.append(f'<path d="{squares}" fill="{fill}" stroke="none"/>')
    out.append(f'<path d="{"".join(edges)}" fill="none" stroke="{LINE}" stroke-width="1.4" stroke-linecap="square"/>')


def draw(g: LastLantern, s: State, seat: str | None = None, bag_shown: bool = True) -> Figure:
    """The table; for ``seat`` (a player, or PUBLIC) as that seat sees it (observer.py): the other players'
    hidden choices unsaid, the seat's own said, and the Firefly bag's colours only when ``bag_shown``."""
    c = g.canopy
    out: list[str] = []
    places: dict[str, Box] = {}
    left = 84
    top = 24  # the book prints the caption under the figure, once: it is not drawn here
    steps = c.rows  # start column, the paths, and what lies past the goal line
    board_w = steps * CELL
    board_h = c.lanes * CELL

    def xy(cell: int) -> tuple[float, float]:
        lane, step = c.column_row(cell)
        return left + step * CELL, top + lane * CELL

    # spaces: each lane's run of path spaces in one rectangle, the yellow rows across them, one path for the grid
    # lines (a few elements rather than one a space: every step of every example is a diagram on the site)
    shared = {lane for lanes in c.shared for lane in lanes}
    yellow_rows = set(c.lantern_rows)
    grid: list[str] = []
    for lane in range(c.lanes):
        y = top + lane * CELL
        out.append(_rect(left + 1, y + 1, CELL - 2, CELL - 2, paint("start")))
        out.append(_rect(left + CELL, y, c.length * CELL, CELL, paint("shared" if lane in shared else "path")))
        for step in range(steps):
            places[f"spaces.{c.names[lane]}{step}"] = Box(left + step * CELL, y, CELL, CELL)
            if step > c.length and g.opt["basilisk"]:
                out.append(_rect(left + step * CELL, y, CELL, CELL, paint("basilisk"), paint("basilisk_line")))
                icons = c.basilisk_icons.get(c.index(lane, step), 0)
                if icons:
                    out.append(_text(left + step * CELL + CELL / 2, y + CELL / 2 + 3, "●" * icons, 10, "middle",
                                     fill=MUTED))
    for row in sorted(yellow_rows):
        out.append(_rect(left + row * CELL, top, CELL, board_h, paint("lantern_row")))
    right = left + (c.length + 1) * CELL
    grid += [f"M{left + CELL:.1f} {top + lane * CELL:.1f}H{right:.1f}" for lane in range(c.lanes + 1)]
    grid += [f"M{left + step * CELL:.1f} {top:.1f}V{top + board_h:.1f}" for step in range(1, c.length + 2)]
    out.append(f'<path d="{"".join(grid)}" fill="none" stroke="{paint("path_line")}" stroke-width="0.6"/>')
    for p in range(c.n_paths):
        lanes = c.private[p]
        mid = top + (lanes[0] + lanes[-1] + 1) / 2 * CELL
        name = s.players[p] if p < len(s.players) else f"P{p + 1}"
        out.append(_text(left - 6, mid + 4, name, 10, "end", "bold"))
        out.append(
            f'<circle cx="{left + CELL / 2:.1f}" cy="{mid:.1f}" r="7" fill="{PLAYER_FILL[p]}" '
            f'stroke="{LINE}" stroke-width="0.8"/>'
        )
        out.append(_text(left + CELL / 2, mid + 3.5, name[:1], 10, "middle", "bold"))
    for i, name in enumerate(c.names):
        out.append(_text(8, top + i * CELL + CELL / 2 + 3, name, 10, "middle", fill=MUTED))
    for step in range(1, steps):
        out.append(_text(left + step * CELL + CELL / 2, top - 3, str(step), 10, "middle", fill=MUTED))
    # serpents
    for i, icon in enumerate(c.serpent_icons if g.opt["branches"] else []):
        cells = [xy(cell) for cell in bits(icon)]
        _tile_cells(out, cells, paint("serpent_flipped" if s.serpent_flipped[i] else "serpent"), CELL)
        x, y = cells[0]
        label = s.serpents[i] + ("✓" if s.serpent_flipped[i] else "")
        out.append(_cell_label(x, y + 8, CELL, label, fill=paint("paper") if not s.serpent_flipped[i] else INK))
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
        places[f"tiles.{pl.tile}"] = _around(cells, CELL)
        x, y = min(cells)
        out.append(_cell_label(x, y + 9, CELL, pl.tile))
        if pl.mark >= 0:
            fx, fy = xy(pl.mark)
            flower = g.tiles[pl.tile].flower or ""
            out.append(
                f'<circle cx="{fx + CELL - 6:.1f}" cy="{fy + CELL - 6:.1f}" r="6.5" fill="{paint("flower")}" '
                f'stroke="{paint("flower_ink")}" stroke-width="0.7"/>'
            )
            out.append(
                _text(
                    fx + CELL - 6,
                    fy + CELL - 2.5,
                    pgettext("flower initial", FLOWER_MARK[flower]) if flower in FLOWER_MARK else "?",
                    10,
                    "middle",
                    fill=INK,
                )
            )
    # fireflies
    for cell, colour in s.fireflies.items():
        x, y = xy(cell)
        out.append(
            f'<circle cx="{x + CELL / 2:.1f}" cy="{y + CELL / 2:.1f}" r="5.5" fill="{FIREFLY[colour]}" '
            f'stroke="{MUTED}" stroke-width="0.8"/>'
        )
    # lantern lines and the goal line
    for k, row in enumerate(c.lantern_rows):
        x = left + row * CELL
        places[f"lanterns.{k}"] = Box(x - 18, top + board_h + 2, 36, 13)
        out.append(_line(x, top - 2, x, top + board_h + 2, paint("lantern"), 3))
        out.append(
            _text(
                x,
                top + board_h + 12,
                f"L{k + 1}: {s.lantern_fireflies[k]}●",
                8,
                "middle",
                "bold",
                INK,
            )
        )
    gx = left + (c.length + 1) * CELL
    out.append(_line(gx, top - 6, gx, top + board_h + 6, paint("goal"), 3.5))
    out.append(_text(gx + 3, top + board_h + 13, _("goal"), 10, "start", "bold"))
    places["lanterns"] = Box(left, top + board_h + 2, board_w, 13)
    y = top + board_h + 30
    width = max(left + board_w + 12, 480)
    y = _panel(g, s, out, left, y, width, seat, bag_shown, places)
    lake_h = 0
    if g.lake is not None:
        lake_h = _lake(g, s, out, left, y + 4, places)
        y += lake_h + 10
    height = y + 6
    on_lines = ", ".join(_("lantern {number}: {count}").format(number=k + 1, count=n)
                         for k, n in enumerate(s.lantern_fireflies))
    total = sum(s.bag.values())
    in_bag = (_fireflies(s.bag) if seat is None or bag_shown else
              ngettext("{count} Firefly", "{count} Fireflies", total).format(count=total))
    desc = _("Round {round}, {phase}; {tiles} tiles on the paths; black Fireflies on the paths: {black}; "
             "bag: {bag}; Fireflies at the lanterns: {lanterns}.").format(
        round=s.round, phase=_phase(s.phase), tiles=len(s.placed), black=s.board_black, bag=in_bag,
        lanterns=on_lines or _("none"))
    return Figure(out, height, desc, width, places=places)


def _around(cells: list[tuple[float, float]], size: float) -> Box:
    """The box round a tile's squares (their top left corners)."""
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    return Box(min(xs), min(ys), max(xs) + size - min(xs), max(ys) + size - min(ys))


def _panel(g: LastLantern, s: State, out: list[str], left: float, y: float, width: float, seat: str | None = None,
           bag_shown: bool = True, places: dict[str, Box] | None = None) -> float:
    """The Path Astray track, the bag, the supply, and a table of the players: each one's hand (the tiles drawn
    small), Familiars and lanterns crossed."""
    places = {} if places is None else places
    x = 8
    if g.lake is None and not g.opt["basilisk"]:
        title = _("Path Astray")
        out.append(_text(x, y + 12, title, SMALLEST, weight="bold"))
        # The track starts after its title, whose length depends on the language (measured at the size it prints).
        track_left = x + max(70, round(text_width(title, SMALLEST, bold=True)) + 6)
        step_w = min(44, (width - 8 - track_left) / max(len(g.track_icons), 1))
        for i, icon in enumerate(g.track_icons):
            bx = track_left + i * step_w
            out.append(_rect(bx, y, step_w - 2, 18, paint("track"), paint("track_line")))
            label = s.track[i] if i < len(s.track) else "●" * icon
            weight = "bold" if i < len(s.track) else "normal"
            out.append(_text(bx + step_w / 2 - 1, y + 12.5, label, 10, "middle", weight))
            if i < len(s.track):
                places[f"track.{s.track[i]}"] = Box(bx, y, step_w - 2, 18)
        places["track"] = Box(track_left, y, len(g.track_icons) * step_w - 2, 18)
        y += 26
    # One line each: at the smallest printable size, bag and supply no longer fit side by side.
    if seat is None or bag_shown:
        bag = _("Bag: {fireflies}").format(fireflies=_fireflies(s.bag))
    else:
        total = sum(s.bag.values())
        bag = ngettext("Bag: {count} Firefly", "Bag: {count} Fireflies", total).format(count=total)
    out.append(_text(x, y + 10, bag, 10, weight="bold"))
    places["bag"] = Box(x - 2, y, text_width(bag, SMALLEST, bold=True) + 4, 13)
    supply = _("Supply: {fireflies}").format(fireflies=_fireflies(s.supply))
    beside = x + text_width(bag, SMALLEST, bold=True) + 16  # on the bag's line when both fit
    sx, sy = (beside, y) if beside + text_width(supply, SMALLEST) < width - 8 else (x, y + 13)
    out.append(_text(sx, sy + 10, supply, 10))
    places["supply"] = Box(sx - 2, sy, text_width(supply, SMALLEST) + 4, 13)
    y = sy + 13
    status = _("Round {round} · {phase} · black on paths: {black}").format(
        round=s.round, phase=_phase(s.phase), black=s.board_black)
    out.append(_text(x, y + 10, status, 10))
    places["black"] = Box(x - 2, y, text_width(status, SMALLEST) + 4, 13)
    y += 17
    shown = [loc for loc in LOCATIONS if loc in g.locations and s.location_tile.get(loc)]
    if shown and s.phase in ("choose", "resolve", "familiar"):
        text = _("Beside the locations: {tiles}").format(tiles=", ".join(
            _("{location} {tile}").format(location=pgettext("location", LOCATION_NAMES[loc]), tile=s.location_tile[loc])
            for loc in shown))
        out.append(_text(x, y + 10, text, 10))
        places["locations"] = Box(x - 2, y, text_width(text, SMALLEST) + 4, 13)
        y += 14
    if seat in s.players and s.phase == "choose" and s.choices[s.players.index(seat)] is not None:
        where = s.choices[s.players.index(seat)]
        out.append(_text(x, y + 10, _("{player}'s hidden choice: {location}").format(
            player=seat, location=pgettext("location", LOCATION_NAMES[where])), 10, weight="bold"))
        y += 14
    y = _players_table(g, s, out, x, y + 4, width, places)
    if s.abandoned:
        text = _("Abandoned this round: {tiles}").format(tiles=", ".join(s.abandoned))
        out.append(_text(x, y + 10, text, 10))
        places["abandoned"] = Box(x - 2, y, text_width(text, SMALLEST) + 4, 13)
        y += 13
    return y + 4


MINI = 5  # a square of a tile drawn in a player's hand
ROW = 19  # a player's row in the table


def _mini_tile(g: LastLantern, tile: str, x: float, y: float, out: list[str], fill: str) -> float:
    """A tile in a hand: its shape in small squares, its name beside it; the width it takes."""
    shape = g.components["shapes"].get(g.tiles[tile].shape) if tile in g.tiles else None
    cells = [(c * MINI, r * MINI) for r, row in enumerate(shape or []) for c, ch in enumerate(row) if ch == "#"]
    wide = max((cx for cx, _ in cells), default=-MINI) + MINI
    tall = max((cy for _, cy in cells), default=-MINI) + MINI
    top = y + (ROW - 4 - tall) / 2
    for cx, cy in cells:
        out.append(_rect(x + cx, top + cy, MINI, MINI, fill, LINE, 0.5))
    out.append(_text(x + wide + 3, y + 12, tile, 10))
    return wide + 3 + text_width(tile, SMALLEST) + 8


def _players_table(g: LastLantern, s: State, out: list[str], x: float, y: float, width: float,
                   places: dict[str, Box]) -> float:
    """The players, one row each: the hand's tiles drawn small, a count under each Familiar, a lantern for each
    lantern line (filled once crossed)."""
    kinds = [k for k in LOCATIONS if k in g.locations]
    names = [_(FAMILIAR_NAMES[k]) for k in kinds]
    column = max(40.0, max(text_width(n, SMALLEST, bold=True) for n in names) + 8)
    lanterns = len(g.canopy.lantern_rows)
    lantern_x = width - 8 - lanterns * 16
    familiar_x = lantern_x - 12 - column * len(kinds)
    hand_x = x + 74
    head = y + 10
    out.append(_text(hand_x, head, _("Hand"), 10, weight="bold"))
    for i, name in enumerate(names):
        out.append(_text(familiar_x + column * (i + 0.5), head, name, 10, "middle", "bold"))
    out.append(_text(lantern_x + lanterns * 8, head, _("Lanterns"), 10, "middle", "bold"))
    y = head + 5
    for p, player in enumerate(s.players):
        row = y + p * ROW
        out.append(_line(x, row, width - 8, row, paint("table_line"), 0.6))
        out.append(f'<circle cx="{x + 6:.1f}" cy="{row + ROW / 2:.1f}" r="5" fill="{PLAYER_FILL[p]}" '
                   f'stroke="{LINE}" stroke-width="0.6"/>')
        out.append(_text(x + 15, row + ROW / 2 + 3.5, player, 10, weight="bold"))
        hx = hand_x
        for tile in s.hands[p]:
            used = _mini_tile(g, tile, hx, row + 2, out, ABILITY_FILL if g.tiles[tile].kind == "ability"
                              else PLAYER_FILL[p]) if tile in g.tiles else 40
            places[f"players.{player}.hand.{tile}"] = Box(hx - 1, row + 2, used - 6, ROW - 4)
            hx += used
        if not s.hands[p]:
            out.append(_text(hand_x, row + ROW / 2 + 3.5, _("no tile"), 10, fill=MUTED))
        places[f"players.{player}.hand"] = Box(hand_x - 2, row + 1, max(hx - hand_x, 40), ROW - 2)
        for i, kind in enumerate(kinds):
            count = s.familiars[p][kind]
            cx = familiar_x + column * (i + 0.5)
            out.append(_text(cx, row + ROW / 2 + 4, str(count), 11, "middle", "bold" if count else "normal",
                             INK if count else MUTED))
            places[f"players.{player}.familiars.{kind}"] = Box(cx - 11, row + 2, 22, ROW - 4)
        places[f"players.{player}.familiars"] = Box(familiar_x, row + 1, column * len(kinds), ROW - 2)
        for k in range(lanterns):
            crossed = k in s.crossed[p]
            out.append(_lantern_icon(lantern_x + k * 16 + 8, row + ROW / 2, k + 1, crossed))
        places[f"players.{player}.lanterns"] = Box(lantern_x, row + 1, lanterns * 16, ROW - 2)
        places[f"players.{player}.flowers"] = places[f"players.{player}.hand"]
    bottom = y + len(s.players) * ROW
    out.append(_line(x, bottom, width - 8, bottom, paint("table_line"), 0.6))
    return bottom + 4


def _lantern_icon(cx: float, cy: float, number: int, lit: bool) -> str:
    """A lantern line's mark in a player's row: filled with its light once the player has crossed it, else an
    outline; its number inside."""
    fill = paint("lantern") if lit else paint("paper")
    dash = "" if lit else ' stroke-dasharray="2 1.5"'
    return (f'<rect x="{cx - 6:.1f}" y="{cy - 8:.1f}" width="12" height="16" rx="3" fill="{fill}" '
            f'stroke="{INK if lit else MUTED}" stroke-width="0.8"{dash}/>'
            + _text(cx, cy + 3.5, str(number), 10, "middle", "bold", INK if lit else MUTED))


def _lake(g: LastLantern, s: State, out: list[str], left: float, y: float,
          places: dict[str, Box] | None = None) -> float:
    lake = g.lake
    assert lake is not None
    size = 18
    x0 = 80
    out.append(_text(8, y + 12, _("Frozen Lake"), 9, weight="bold"))
    for cell in bits(lake.spaces):
        col, row = lake.column_row(cell)
        bx, by = x0 + col * size, y + row * size
        out.append(_rect(bx, by, size, size, paint("lake"), paint("lake_line")))
        icons = lake.icons.get(cell, 0)
        if icons:
            out.append(_text(bx + size / 2, by + size / 2 + 3, "●" * icons, 10, "middle", fill=MUTED))
    for tile, mask in s.lake.items():
        cells = [(x0 + lake.column_row(c)[0] * size, y + lake.column_row(c)[1] * size) for c in bits(mask)]
        _tile_cells(out, cells, ABANDONED_FILL, size)
        if places is not None:
            places[f"lake.{tile}"] = _around(cells, size)
        bx, by = min(cells)
        out.append(_cell_label(bx, by + 9, size, tile))
    if places is not None:
        places["lake"] = Box(x0, y, lake.columns * size if hasattr(lake, "columns") else 7 * size, lake.rows * size)
    return lake.rows * size
