"""A self-contained SVG of the table: garden, moths, wicks, lanterns, hands, deck and Dusk cards.

Drawn on a 480-unit-wide canvas; the book prints it across its text block (about 115 mm), so 10-unit text,
the smallest here, prints at about 6.8 pt.  Colours are always labelled in words or numbers as well, so the
diagram reads in black and white.  Every colour is a CMYK value from ``PALETTE`` (see below).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from rulepress.basegame import FONT, SMALLEST, Figure, cmyk, painter

from .state import OVER, UNKNOWN_TILE, State

if TYPE_CHECKING:
    from .game import LanternMothsGame

WIDTH = 480  # the base's canvas, printed 120 mm wide: 10-unit text prints at about 6.8 pt

# The game's palette, defined once, in CMYK percentages: the print edition uses it as it is
# (device-cmyk), the web and the digital edition get RGB from it through the print profile.
# Text and thin lines are black ink only (K), never a four-colour black.
PALETTE: dict[str, tuple[float, float, float, float]] = {
    "amber": (5, 40, 100, 0),
    "rose": (10, 80, 25, 0),
    "jade": (80, 15, 80, 0),
    "violet": (60, 75, 0, 0),
    "grey": (0, 0, 0, 35),
    "ink": (0, 0, 0, 100),
    "muted": (0, 0, 0, 70),
    "soft": (0, 0, 0, 55),
    "faint": (0, 0, 0, 40),
    "paper": (0, 0, 0, 0),
    "face_down": (100, 95, 40, 35),
    "face_down_line": (70, 60, 20, 0),
    "flame": (0, 55, 100, 0),
    "dusk": (85, 100, 25, 25),
    "current": (0, 5, 20, 0),
    "current_line": (15, 20, 65, 0),
    "cover": (100, 95, 40, 35),
    "cover_ink": (0, 5, 20, 0),
    "accent": (0, 55, 100, 0),
}
FALLBACK = ((20, 85, 80, 5), (75, 45, 0, 0), (45, 10, 90, 0), (0, 50, 90, 0), (70, 15, 20, 0))

paint = painter(PALETTE)

INK = paint("ink")
MUTED = paint("muted")
SOFT = paint("soft")
FAINT = paint("faint")
PAPER = paint("paper")
FACE_DOWN = paint("face_down")
FLAME = paint("flame")
TILE = 92
GAP = 8
GRID_X = 26
GRID_Y = 44


def _colour(name: str, index: int) -> str:
    return paint(name) if name in PALETTE else cmyk(*FALLBACK[index % len(FALLBACK)])


def _text(x: float, y: float, content: str, size: float = 10, anchor: str = "start", weight: str = "normal",
          fill: str = INK, style: str = "normal") -> str:
    size = max(size, SMALLEST)
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="{FONT}" font-size="{size:g}" text-anchor="{anchor}" '
            f'font-weight="{weight}" font-style="{style}" fill="{fill}">{escape(content)}</text>')


def _chip(x: float, y: float, w: float, h: float, fill: str, label: str, ghost: bool, size: float) -> str:
    stroke = f'stroke="{SOFT}" stroke-dasharray="3 2"' if ghost else f'stroke="{INK}"'
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w}" height="{h}" rx="3" fill="{fill}" {stroke} '
            f'stroke-width="1"/>' + _text(x + w / 2, y + h / 2 + size * 0.36, label, size, "middle", "bold"))


def _moth_chip(game: LanternMothsGame, card: int, x: float, y: float, w: float, h: float, size: float,
               named: bool = False) -> str:
    """A moth card: its value (G for a Ghost Moth); ``named`` adds the colour's first letters below."""
    pieces = game.pieces
    kind = pieces.card_kind[card]
    if kind == pieces.ghost_kind:
        chip = _chip(x, y, w, h, PAPER, "G", True, size)
        name = "ghost"
    else:
        colour = pieces.kind_colour[kind]
        name = pieces.colours[colour]
        chip = _chip(x, y, w, h, _colour(name, colour), str(pieces.kind_value[kind]), False, size)
    if named:
        chip += _text(x + w / 2, y + h + 9, name[:3], 10, "middle")
    return chip


def _flame(x: float, y: float, initial: str) -> str:
    return (f'<path d="M{x:.1f} {y - 13:.1f} C{x + 7:.1f} {y - 5:.1f} {x + 6:.1f} {y + 3:.1f} '
            f'{x:.1f} {y + 3:.1f} C{x - 6:.1f} {y + 3:.1f} {x - 7:.1f} {y - 5:.1f} {x:.1f} {y - 13:.1f} Z" '
            f'fill="{FLAME}" '
            f'stroke="{INK}" stroke-width="0.8"/>' + _text(x, y + 14, initial, 10, "middle", "bold"))


def _initials(players: tuple[str, ...]) -> list[str]:
    """Shortest prefixes that tell the players apart (Ann, Ben -> A, B; Ann, Amy -> An, Am)."""
    for length in range(1, max(len(p) for p in players) + 1):
        short = [p[:length] for p in players]
        if len(set(short)) == len(short):
            return short
    return list(players)


def _garden(game: LanternMothsGame, state: State, initials: list[str], everything: bool = True) -> list[str]:
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
                       f'fill="none" stroke="{paint("face_down_line")}" stroke-width="1" stroke-dasharray="4 3"/>')
            out.append(_text(x + TILE / 2, y + TILE / 2 + 4, "face down", 10, "middle", fill=PAPER))
            if tile != UNKNOWN_TILE and everything:  # a face-down tile is nobody's to see
                out.append(_text(x + TILE / 2, y + TILE / 2 + 17, f"({pieces.tile_names[tile]})", 9, "middle",
                                 fill=PAPER, style="italic"))
            out.append(_text(x + 5, y + 13, place, 10, fill=PAPER))
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
            out.append(_text(x + TILE - 5, y + 84, "blocked", 10, "end", style="italic"))
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
           _text(x + 17, GRID_Y + 42, str(len(state.deck)), 12, "middle", "bold", PAPER)]
    dx = x + 50
    out.append(_text(dx, GRID_Y + 8, "Discard", 11, weight="bold"))
    if state.discard:
        out.append(_moth_chip(game, state.discard[-1], dx, GRID_Y + 14, 34, 46, 13))
        out.append(_text(dx + 40, GRID_Y + 42, f"{len(state.discard)}", 10))
    else:
        out.append(f'<rect x="{dx}" y="{GRID_Y + 14}" width="34" height="46" rx="3" fill="none" '
                   f'stroke="{FAINT}" stroke-dasharray="3 3"/>')
        out.append(_text(dx + 17, GRID_Y + 42, "empty", 10, "middle", fill=SOFT))
    y = GRID_Y + 84
    total = pieces.kind_count[pieces.dusk_kind]
    out.append(_text(x, y, f"Dusk cards out: {len(state.dusk_row)} of {total}", 10, weight="bold"))
    for i in range(total):
        cx = x + i * 20
        if i < len(state.dusk_row):
            fill, stroke = paint("dusk"), INK
        else:
            fill, stroke = "none", FAINT
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
        out.append(_text(x, y + 14, f"Ending: {words},", 10, style="italic"))
        out.append(_text(x, y + 26, f"last round is {state.last_round}", 10, style="italic"))
    return out


def _face_down_chip(x: float, y: float) -> str:
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="11" height="20" rx="3" fill="{FACE_DOWN}" stroke="{INK}" '
            f'stroke-width="1"/>')


def _players(game: LanternMothsGame, state: State, top: float, initials: list[str],
             sees: Callable[[int], bool] = lambda seat: True) -> list[str]:
    """The players' table; ``sees(seat)``: whether the diagram's seat sees that player's face-down lantern."""
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
            out.append(f'<rect x="4" y="{y}" width="{WIDTH - 8}" height="{row_h - 4}" rx="4" fill="{paint("current")}" '
                       f'stroke="{paint("current_line")}"/>')
        label = name + (" *" if seat == state.start else "")
        out.append(_text(10, y + 19, label, 11, weight="bold" if current else "normal"))
        out.append(_text(128, y + 19, str(len(state.hands[seat])), 11, "middle"))
        lit = sum(1 for owners in state.wicks for o in owners if o == seat)
        for i in range(lit + state.unlit[seat]):
            cx = 156 + i * 14
            fill = FLAME if i < lit else PAPER
            out.append(f'<circle cx="{cx}" cy="{y + 15}" r="5" fill="{fill}" stroke="{INK}" '
                       f'stroke-width="1"/>')
        lantern = sorted(state.lanterns[seat], key=lambda c: pieces.card_kind[c])
        shown = lantern[:18]
        seen = sees(seat) or not lantern  # an empty lantern shows that it is empty
        for i, card in enumerate(shown):
            out.append(_moth_chip(game, card, 206 + i * 12, y + 5, 11, 20, 10) if seen
                       else _face_down_chip(206 + i * 12, y + 5))
        if len(lantern) > len(shown):
            out.append(_text(206 + len(shown) * 12 + 4, y + 19, f"+{len(lantern) - len(shown)}", 9))
        if not lantern:
            out.append(_text(206, y + 19, "empty", 10, fill=SOFT, style="italic"))
        out.append(_text(WIDTH - 10, y + 19, str(scores[seat].points) if seen else "?", 12, "end", "bold"))
    return out


def _hand(game: LanternMothsGame, state: State, seat: int, top: float) -> list[str]:
    """The hand of the player the diagram is drawn for, face up (only they see it)."""
    pieces = game.pieces
    cards = sorted(state.hands[seat], key=lambda c: pieces.card_kind[c])
    out = [_text(10, top + 20, f"{state.players[seat]}'s hand", 10, weight="bold")]
    for i, card in enumerate(cards[:16]):
        out.append(_moth_chip(game, card, 96 + i * 26, top + 4, 22, 26, 11, named=True))
    if not cards:
        out.append(_text(96, top + 20, "empty", 10, fill=SOFT, style="italic"))
    return out


def draw(game: LanternMothsGame, state: State, seat: str | None = None) -> Figure:
    """The table; for ``seat`` (a player, or PUBLIC: what everyone sees) as that seat sees it: other players'
    lanterns face down and their points unknown until the game is scored, no face-down tile named, and the seat's
    own hand shown below the table (engine/lantern_moths/observer.py says what is hidden)."""
    from .scoring import final_scores

    pieces = game.pieces
    everything = seat is None
    scored = state.phase == OVER

    def sees(owner: int) -> bool:
        return everything or scored or state.players[owner] == seat

    initials = _initials(state.players)
    if state.phase == OVER:
        status = f"Round {state.round} · the night has ended"
    else:
        left = pieces.actions_per_turn - state.actions_taken
        status = (f"Round {state.round} · {state.players[state.current]}'s turn, "
                  f"{left} action{'s' if left != 1 else ''} left")
    body = [_text(10, 18, status, 11, weight="bold")]
    body += _garden(game, state, initials, everything)
    body += _side(game, state)
    top = GRID_Y + pieces.rows * (TILE + GAP) + 10
    body += _players(game, state, top, initials, sees)
    height = top + 12 + len(state.players) * 34
    holder = state.players.index(seat) if seat in state.players else None
    if holder is not None:
        body += _hand(game, state, holder, height - 4)
        height += 50
    legend = ("Moth cards show their value; G is a Ghost Moth; * marks the start player.",
              "Flames are lit wicks with their owner's initial.", "Wick dots: orange lit, white unlit.")
    for line, text in enumerate(legend):
        body.append(_text(10, height + 4 + 12 * line, text, 10, fill=MUTED))
    height += 12 * len(legend) + 6
    # The page prints the caption under the figure, once: the SVG carries only what the engine can say.
    scores = ", ".join(f"{name} {score.points if sees(s) or not state.lanterns[s] else 'unknown'}"
                       for s, (name, score) in enumerate(zip(state.players, final_scores(game, state), strict=True)))
    desc = (f"{status}; deck {len(state.deck)} cards; Dusk cards out {len(state.dusk_row)}; "
            f"points: {scores}.")
    if holder is not None:
        desc += f" Drawn as {seat} sees the table."
    return Figure(body, height, desc)
