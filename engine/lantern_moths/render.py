"""A self-contained SVG of the table: garden, moths, wicks, lanterns, hands, deck and Dusk cards.

Drawn on a 480-unit-wide canvas printed 120 mm wide (4 units per mm), so 10-unit text is about 7 pt.
Colours are always labelled in words or numbers as well, so the diagram reads in black and white.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from .state import OVER, UNKNOWN_TILE, State

if TYPE_CHECKING:
    from .game import LanternMothsGame

FONT = "Rulepress Sans, DejaVu Sans, sans-serif"
WIDTH = 480
UNITS_PER_MM = 4
PALETTE = {"amber": "#E9A23B", "rose": "#D9668A", "jade": "#2E9E6E", "violet": "#8560C8", "grey": "#A7A7A7"}
FALLBACK = ("#C0504D", "#4F81BD", "#9BBB59", "#F79646", "#4BACC6")
INK = "#222233"
FACE_DOWN = "#34385A"
FLAME = "#F28C28"
TILE = 92
GAP = 8
GRID_X = 26
GRID_Y = 44


def _colour(name: str, index: int) -> str:
    return PALETTE.get(name, FALLBACK[index % len(FALLBACK)])


def _text(x: float, y: float, content: str, size: float = 10, anchor: str = "start", weight: str = "normal",
          fill: str = INK, style: str = "normal") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="{FONT}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" font-style="{style}" fill="{fill}">{escape(content)}</text>')


def _chip(x: float, y: float, w: float, h: float, fill: str, label: str, ghost: bool, size: float) -> str:
    stroke = 'stroke="#777" stroke-dasharray="3 2"' if ghost else f'stroke="{INK}"'
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w}" height="{h}" rx="3" fill="{fill}" {stroke} '
            f'stroke-width="1"/>' + _text(x + w / 2, y + h / 2 + size * 0.36, label, size, "middle", "bold"))


def _moth_chip(game: LanternMothsGame, card: int, x: float, y: float, w: float, h: float, size: float,
               named: bool = False) -> str:
    """A moth card: its value (G for a Ghost Moth); ``named`` adds the colour's first letters below."""
    pieces = game.pieces
    kind = pieces.card_kind[card]
    if kind == pieces.ghost_kind:
        chip = _chip(x, y, w, h, "#FFFFFF", "G", True, size)
        name = "ghost"
    else:
        colour = pieces.kind_colour[kind]
        name = pieces.colours[colour]
        chip = _chip(x, y, w, h, _colour(name, colour), str(pieces.kind_value[kind]), False, size)
    if named:
        chip += _text(x + w / 2, y + h + 9, name[:3], 8, "middle")
    return chip


def _flame(x: float, y: float, initial: str) -> str:
    return (f'<path d="M{x:.1f} {y - 13:.1f} C{x + 7:.1f} {y - 5:.1f} {x + 6:.1f} {y + 3:.1f} '
            f'{x:.1f} {y + 3:.1f} C{x - 6:.1f} {y + 3:.1f} {x - 7:.1f} {y - 5:.1f} {x:.1f} {y - 13:.1f} Z" '
            f'fill="{FLAME}" '
            f'stroke="{INK}" stroke-width="0.8"/>' + _text(x, y + 14, initial, 9, "middle", "bold"))


def _initials(players: tuple[str, ...]) -> list[str]:
    """Shortest prefixes that tell the players apart (Ann, Ben -> A, B; Ann, Amy -> An, Am)."""
    for length in range(1, max(len(p) for p in players) + 1):
        short = [p[:length] for p in players]
        if len(set(short)) == len(short):
            return short
    return list(players)


def _garden(game: LanternMothsGame, state: State, initials: list[str]) -> list[str]:
    pieces = game.pieces
    out: list[str] = []
    for c, label in enumerate(pieces.column_labels):
        out.append(_text(GRID_X + c * (TILE + GAP) + TILE / 2, GRID_Y - 6, label, 11, "middle", "bold"))
    for r, label in enumerate(pieces.row_labels):
        out.append(_text(GRID_X - 10, GRID_Y + r * (TILE + GAP) + TILE / 2 + 4, label, 11, "middle", "bold"))
    for cell, place in enumerate(pieces.cell_names):
        r, c = divmod(cell, pieces.columns)
        x, y = GRID_X + c * (TILE + GAP), GRID_Y + r * (TILE + GAP)
        tile = state.tile_at[cell]
        if not state.face_up[cell]:
            out.append(f'<rect x="{x}" y="{y}" width="{TILE}" height="{TILE}" rx="6" fill="{FACE_DOWN}" '
                       f'stroke="{INK}" stroke-width="1.2"/>')
            out.append(f'<rect x="{x + 6}" y="{y + 6}" width="{TILE - 12}" height="{TILE - 12}" rx="4" '
                       f'fill="none" stroke="#6A6F9A" stroke-width="1" stroke-dasharray="4 3"/>')
            out.append(_text(x + TILE / 2, y + TILE / 2 + 4, "face down", 10, "middle", fill="#E6E6F0"))
            if tile != UNKNOWN_TILE:
                out.append(_text(x + TILE / 2, y + TILE / 2 + 17, f"({pieces.tile_names[tile]})", 9, "middle",
                                 fill="#C8C8DA", style="italic"))
            out.append(_text(x + 5, y + 13, place, 9, fill="#C8C8DA"))
            continue
        name = pieces.tile_names[tile]
        colour = _colour(name, tile)
        out.append(f'<rect x="{x}" y="{y}" width="{TILE}" height="{TILE}" rx="6" fill="{colour}" '
                   f'fill-opacity="0.30" stroke="{colour}" stroke-width="2.4"/>')
        out.append(_text(x + 5, y + 13, place, 9))
        out.append(_text(x + TILE - 5, y + 13, name, 10, "end", "bold"))
        moths = state.moths[cell]
        chip_w, chip_h = 22, 30
        span = len(moths) * chip_w + max(len(moths) - 1, 0) * 4
        for i, card in enumerate(moths):
            left = x + (TILE - span) / 2 + i * (chip_w + 4)
            out.append(_moth_chip(game, card, left, y + 22, chip_w, chip_h, 12, named=True))
        if len(moths) >= pieces.tile_limit:
            out.append(_text(x + TILE - 5, y + 72, "full", 9, "end", style="italic"))
        if state.ghost_block[cell]:
            out.append(_text(x + TILE - 5, y + 84, "blocked", 9, "end", style="italic", fill="#8A1C1C"))
        wicks = state.wicks[cell]
        for i, owner in enumerate(wicks):
            out.append(_flame(x + 14 + i * 22, y + TILE - 18, initials[owner]))
    return out


def _side(game: LanternMothsGame, state: State) -> list[str]:
    pieces = game.pieces
    x = GRID_X + pieces.columns * (TILE + GAP) + 6
    out = [_text(x, GRID_Y + 8, "Deck", 11, weight="bold"),
           f'<rect x="{x}" y="{GRID_Y + 14}" width="34" height="46" rx="3" fill="{FACE_DOWN}" '
           f'stroke="{INK}"/>',
           _text(x + 17, GRID_Y + 42, str(len(state.deck)), 12, "middle", "bold", "#FFFFFF")]
    dx = x + 50
    out.append(_text(dx, GRID_Y + 8, "Discard", 11, weight="bold"))
    if state.discard:
        out.append(_moth_chip(game, state.discard[-1], dx, GRID_Y + 14, 34, 46, 13))
        out.append(_text(dx + 40, GRID_Y + 42, f"{len(state.discard)}", 10))
    else:
        out.append(f'<rect x="{dx}" y="{GRID_Y + 14}" width="34" height="46" rx="3" fill="none" '
                   f'stroke="#999" stroke-dasharray="3 3"/>')
        out.append(_text(dx + 17, GRID_Y + 42, "empty", 8, "middle", fill="#777"))
    y = GRID_Y + 84
    total = pieces.kind_count[pieces.dusk_kind]
    out.append(_text(x, y, f"Dusk cards out: {len(state.dusk_row)} of {total}", 10, weight="bold"))
    for i in range(total):
        cx = x + i * 20
        if i < len(state.dusk_row):
            fill, stroke = "#4B2A6B", INK
        else:
            fill, stroke = "none", "#999"
        marker = ' stroke-width="2.2"' if i == pieces.ending_dusk - 1 else ""
        out.append(f'<rect x="{cx}" y="{y + 6}" width="16" height="24" rx="2" fill="{fill}" stroke="{stroke}"'
                   f'{marker}/>')
    if state.dusk_shuffled:
        in_deck = sum(1 for c in state.deck if pieces.card_kind[c] == pieces.dusk_kind)
        note = f"{in_deck} in the deck"
    else:
        note = f"{len(state.set_aside)} set aside"
    out.append(_text(x, y + 44, note, 9, style="italic"))
    y += 66
    out.append(_text(x, y, "Round", 10, weight="bold"))
    out.append(_text(x + 44, y, str(state.round), 10))
    if state.box:
        out.append(_text(x, y + 40, f"{len(state.box)} cards out of play", 9, style="italic"))
    if state.ending:
        words = "4th Dusk card" if state.ending == "fourth-dusk" else "deck ran out"
        out.append(_text(x, y + 14, f"Night ending ({words}):", 9, fill="#8A1C1C"))
        out.append(_text(x, y + 26, f"last round is {state.last_round}", 9, fill="#8A1C1C"))
    return out


def _players(game: LanternMothsGame, state: State, top: float, initials: list[str]) -> list[str]:
    from .scoring import final_scores

    pieces = game.pieces
    scores = final_scores(game, state)
    out = [_text(10, top, "Player", 9, weight="bold"), _text(118, top, "Hand", 9, weight="bold"),
           _text(150, top, "Wicks", 9, weight="bold"),
           _text(206, top, "Lantern (captured moths)", 9, weight="bold"),
           _text(WIDTH - 10, top, "Points", 9, "end", "bold")]
    row_h = 34
    for seat, name in enumerate(state.players):
        y = top + 8 + seat * row_h
        current = state.phase != OVER and seat == state.current
        if current:
            out.append(f'<rect x="4" y="{y}" width="{WIDTH - 8}" height="{row_h - 4}" rx="4" fill="#FFF4D6" '
                       f'stroke="#E0C27A"/>')
        label = name + (" *" if seat == state.start else "")
        out.append(_text(10, y + 19, label, 11, weight="bold" if current else "normal"))
        out.append(_text(128, y + 19, str(len(state.hands[seat])), 11, "middle"))
        lit = sum(1 for owners in state.wicks for o in owners if o == seat)
        for i in range(lit + state.unlit[seat]):
            cx = 156 + i * 14
            fill = FLAME if i < lit else "#FFFFFF"
            out.append(f'<circle cx="{cx}" cy="{y + 15}" r="5" fill="{fill}" stroke="{INK}" '
                       f'stroke-width="1"/>')
        lantern = sorted(state.lanterns[seat], key=lambda c: pieces.card_kind[c])
        shown = lantern[:18]
        for i, card in enumerate(shown):
            out.append(_moth_chip(game, card, 206 + i * 12, y + 5, 11, 20, 8))
        if len(lantern) > len(shown):
            out.append(_text(206 + len(shown) * 12 + 4, y + 19, f"+{len(lantern) - len(shown)}", 9))
        if not lantern:
            out.append(_text(206, y + 19, "empty", 9, fill="#777", style="italic"))
        out.append(_text(WIDTH - 10, y + 19, str(scores[seat].points), 12, "end", "bold"))
    return out


def render_svg(game: LanternMothsGame, state: State, caption: str | None = None) -> str:
    pieces = game.pieces
    initials = _initials(state.players)
    if state.phase == OVER:
        status = f"Round {state.round} · the night has ended"
    else:
        left = pieces.actions_per_turn - state.actions_taken
        status = (f"Round {state.round} · {state.players[state.current]}'s turn, "
                  f"{left} action{'s' if left != 1 else ''} left")
    body = [_text(10, 18, status, 11, weight="bold")]
    body += _garden(game, state, initials)
    body += _side(game, state)
    top = GRID_Y + pieces.rows * (TILE + GAP) + 10
    body += _players(game, state, top, initials)
    height = top + 12 + len(state.players) * 34
    legend = ("Moth cards show their value; G is a Ghost Moth; * marks the start player.",
              "Flames are lit wicks with their owner's initial; wick dots: orange lit, white unlit.")
    body.append(_text(10, height + 4, legend[0], 8.5, fill="#555"))
    body.append(_text(10, height + 16, legend[1], 8.5, fill="#555"))
    height += 24
    height += 6
    # The page prints the caption under the figure; inside the SVG it is the accessible title.
    title = f"<title>{escape(caption)}</title>" if caption else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH / UNITS_PER_MM:.0f}mm" '
            f'height="{height / UNITS_PER_MM:.1f}mm" viewBox="0 0 {WIDTH} {height:.0f}" '
            f'font-family="{FONT}" role="img">{title}'
            f'<rect width="{WIDTH}" height="{height:.0f}" fill="#FFFFFF"/>' + "".join(body) + "</svg>")
