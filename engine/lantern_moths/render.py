"""A self-contained SVG of the table: garden, moths, wicks, lanterns, hands, deck and Dusk cards.

Drawn on a 480-unit-wide canvas; the book prints it across its text block (about 115 mm), so 10-unit text,
the smallest here, prints at about 6.8 pt.  Colours are always labelled in words or numbers as well, so the
diagram reads in black and white.  Every colour is a CMYK value from ``PALETTE`` (see below).

The garden shows in full the rows that hold a face-up tile or a place the illustrated steps touch; a row still
face down and untouched is drawn as a low band of its places, so that a diagram does not repeat a grid of face-down
tiles.  The symbols are explained once per chapter (``legend``), not under every diagram.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

from rulepress.basegame import SMALLEST, ComponentPicture, Figure, LegendEntry, cmyk, painter
from rulepress.marks import Box
from rulepress.memory import recall
from rulepress.protocol import HIDDEN, PUBLIC
from rulepress.textwidth import text_width

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
    "face_down_tint": (14, 12, 2, 0),
    "flame": (0, 55, 100, 0),
    "dusk": (85, 100, 25, 25),
    "current": (0, 5, 20, 0),
    "current_line": (15, 20, 65, 0),
    "cover": (100, 95, 40, 35),
    "cover_ink": (0, 5, 20, 0),
    "accent": (0, 55, 100, 0),
    "mark": (0, 90, 100, 0),
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
MARK = paint("mark")
TILE = 92
GAP = 8
BAND = 26  # a row still face down and untouched: a low band of its places
GRID_X = 26
GRID_Y = 44
ROW_H = 40  # a player's row in the table


def _colour(name: str, index: int) -> str:
    return paint(name) if name in PALETTE else cmyk(*FALLBACK[index % len(FALLBACK)])


def _text(x: float, y: float, content: str, size: float = 10, anchor: str = "start", weight: str = "normal",
          fill: str = INK, style: str = "normal") -> str:
    size = max(size, SMALLEST)
    # The font is named once, on the diagram (the base's FRAME); only what differs from the default is written.
    bold = ' font-weight="bold"' if weight == "bold" else ""
    italic = ' font-style="italic"' if style == "italic" else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}"{bold}{italic} '
            f'fill="{fill}">{escape(content)}</text>')


def _chip(x: float, y: float, w: float, h: float, fill: str, label: str, ghost: bool, size: float) -> str:
    stroke = f'stroke="{SOFT}" stroke-dasharray="3 2"' if ghost else f'stroke="{INK}"'
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w}" height="{h}" rx="3" fill="{fill}" {stroke} '
            f'stroke-width="1"/>' + _text(x + w / 2, y + h / 2 + size * 0.36, label, size, "middle", "bold"))


def _card_name(game: LanternMothsGame, card: int) -> str:
    pieces = game.pieces
    kind = pieces.card_kind[card]
    return "ghost" if kind == pieces.ghost_kind else pieces.colours[pieces.kind_colour[kind]]


def _moth_chip(game: LanternMothsGame, card: int, x: float, y: float, w: float, h: float, size: float,
               named: bool = False) -> str:
    """A moth card: its value (G for a Ghost Moth); ``named`` adds its colour's name below."""
    pieces = game.pieces
    kind = pieces.card_kind[card]
    if kind == pieces.ghost_kind:
        chip = _chip(x, y, w, h, PAPER, "G", True, size)
    else:
        colour = pieces.kind_colour[kind]
        chip = _chip(x, y, w, h, _colour(pieces.colours[colour], colour), str(pieces.kind_value[kind]), False, size)
    if named:
        chip += _text(x + w / 2, y + h + 10, _card_name(game, card), 10, "middle")
    return chip


def _flame(x: float, y: float, initial: str) -> str:
    return (f'<path d="M{x:.1f} {y - 13:.1f} C{x + 7:.1f} {y - 5:.1f} {x + 6:.1f} {y + 3:.1f} '
            f'{x:.1f} {y + 3:.1f} C{x - 6:.1f} {y + 3:.1f} {x - 7:.1f} {y - 5:.1f} {x:.1f} {y - 13:.1f} Z" '
            f'fill="{FLAME}" '
            f'stroke="{INK}" stroke-width="0.8"/>' + _text(x, y + 14, initial, 10, "middle", "bold"))


def _initials(players: Iterable[str]) -> list[str]:
    """Shortest prefixes that tell the players apart (Ann, Ben -> A, B; Ann, Amy -> An, Am)."""
    names = list(players)
    for length in range(1, max(len(p) for p in names) + 1):
        short = [p[:length] for p in names]
        if len(set(short)) == len(short):
            return short
    return names


def _face_down(x: float, y: float, w: float, h: float, place: str, low: bool = False) -> list[str]:
    """A tile still face down: its back, pale so that the face-up tiles stand out, with its place's name."""
    out = [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{4 if low else 6}" fill="{paint("face_down_tint")}" '
           f'stroke="{paint("face_down_line")}" stroke-width="1"/>']
    if low:
        out.append(_text(x + 5, y + h / 2 + 3.5, place, 10, fill=FACE_DOWN, weight="bold"))
        out.append(_text(x + w - 5, y + h / 2 + 3.5, "face down", 10, "end", fill=FACE_DOWN))
        return out
    out.append(f'<rect x="{x + 6}" y="{y + 6}" width="{w - 12}" height="{h - 12}" rx="4" fill="none" '
               f'stroke="{paint("face_down_line")}" stroke-width="1" stroke-dasharray="4 3"/>')
    out.append(_text(x + 5, y + 13, place, 10, fill=FACE_DOWN, weight="bold"))
    out.append(_text(x + w / 2, y + h / 2 + 4, "face down", 10, "middle", fill=FACE_DOWN))
    return out


def _garden(game: LanternMothsGame, state: State, initials: list[str], everything: bool,
            places: dict[str, Box]) -> tuple[list[str], float]:
    """The garden, and the height it takes from ``GRID_Y``: a row with no face-up tile is a low band (the same for
    every step of an example until a Flip turns one of its tiles up)."""
    pieces = game.pieces
    out: list[str] = []
    for c, label in enumerate(pieces.column_labels):
        out.append(_text(GRID_X + c * (TILE + GAP) + TILE / 2, GRID_Y - 6, label, 11, "middle", "bold"))
    y = float(GRID_Y)
    for r, row_label in enumerate(pieces.row_labels):
        cells = range(r * pieces.columns, (r + 1) * pieces.columns)
        full = any(state.face_up[cell] for cell in cells)
        height = TILE if full else BAND
        out.append(_text(GRID_X - 10, y + height / 2 + 4, row_label, 11, "middle", "bold"))
        for cell in cells:
            c = cell - r * pieces.columns
            x = GRID_X + c * (TILE + GAP)
            place = pieces.cell_names[cell]
            places[f"garden.{place}"] = Box(x, y, TILE, height)
            out += _tile(game, state, cell, x, y, height, initials, everything, full)
        y += height + GAP
    return out, y - GAP - GRID_Y


def _tile(game: LanternMothsGame, state: State, cell: int, x: float, y: float, height: float,
          initials: list[str], everything: bool, full: bool) -> list[str]:
    pieces = game.pieces
    place = pieces.cell_names[cell]
    tile = state.tile_at[cell]
    if not state.face_up[cell]:
        out = _face_down(x, y, TILE, height, place, low=not full)
        if tile != UNKNOWN_TILE and everything and full:  # a face-down tile is nobody's to see
            out.append(_text(x + TILE / 2, y + height / 2 + 17, f"({pieces.tile_names[tile]})", 10, "middle",
                             fill=FACE_DOWN, style="italic"))
        return out
    name = pieces.tile_names[tile]
    colour = _colour(name, tile)
    out = [f'<rect x="{x}" y="{y}" width="{TILE}" height="{TILE}" rx="6" fill="{colour}" '
           f'fill-opacity="0.30" stroke="{colour}" stroke-width="2.4"/>',
           _text(x + 5, y + 13, place, 10, weight="bold"), _text(x + TILE - 5, y + 13, name, 10, "end", "bold")]
    moths = state.moths[cell]
    chip_w, chip_h = 24, 30
    span = len(moths) * chip_w + max(len(moths) - 1, 0) * 5
    for i, card in enumerate(moths):
        left = x + (TILE - span) / 2 + i * (chip_w + 5)
        out.append(_moth_chip(game, card, left, y + 20, chip_w, chip_h, 12))
    if moths:
        names = ", ".join(_card_name(game, card) for card in moths)
        if len(names) * 6.2 > TILE - 6:
            names = " ".join(_card_name(game, card)[:1].upper() for card in moths)
        out.append(_text(x + TILE / 2, y + 62, names, 10, "middle"))
    if len(moths) >= pieces.tile_limit:
        out.append(_text(x + TILE - 5, y + 76, "full", 10, "end", style="italic"))
    if state.ghost_block[cell]:
        out.append(_text(x + TILE - 5, y + 88, "blocked", 10, "end", style="italic"))
    for i, owner in enumerate(state.wicks[cell]):
        out.append(_flame(x + 14 + i * 22, y + TILE - 18, initials[owner]))
    return out


def _side(game: LanternMothsGame, state: State, places: dict[str, Box]) -> tuple[list[str], float]:
    """Deck, discard pile and Dusk cards, right of the garden; and the height they take from ``GRID_Y``."""
    pieces = game.pieces
    x = GRID_X + pieces.columns * (TILE + GAP) + 6
    out = [_text(x, GRID_Y + 8, "Deck", 11, weight="bold"),
           f'<rect x="{x}" y="{GRID_Y + 14}" width="34" height="46" rx="3" fill="{FACE_DOWN}" '
           f'stroke="{INK}"/>',
           _text(x + 17, GRID_Y + 42, str(len(state.deck)), 12, "middle", "bold", PAPER)]
    places["deck"] = Box(x, GRID_Y + 14, 34, 46)
    dx = x + 50
    out.append(_text(dx, GRID_Y + 8, "Discard", 11, weight="bold"))
    places["discard"] = Box(dx, GRID_Y + 14, 34, 46)
    if state.discard:
        out.append(_moth_chip(game, state.discard[-1], dx, GRID_Y + 14, 34, 46, 13))
        out.append(_text(dx + 40, GRID_Y + 42, f"{len(state.discard)}", 10))
    else:
        out.append(f'<rect x="{dx}" y="{GRID_Y + 14}" width="34" height="46" rx="3" fill="none" '
                   f'stroke="{FAINT}" stroke-dasharray="3 3"/>')
        out.append(_text(dx + 17, GRID_Y + 42, "empty", 10, "middle", fill=SOFT))
    y = GRID_Y + 80
    total = pieces.kind_count[pieces.dusk_kind]
    out.append(_text(x, y, f"Dusk cards: {len(state.dusk_row)} of {total}", 10, weight="bold"))
    for i in range(total):
        cx = x + i * 20
        fill, stroke = (paint("dusk"), INK) if i < len(state.dusk_row) else ("none", FAINT)
        marker = ' stroke-width="2.2"' if i == pieces.ending_dusk - 1 else ""
        out.append(f'<rect x="{cx}" y="{y + 6}" width="16" height="24" rx="2" fill="{fill}" stroke="{stroke}"'
                   f'{marker}/>')
    places["dusk"] = Box(x, y + 6, total * 20 - 4, 24)
    if state.dusk_shuffled:
        in_deck = sum(1 for c in state.deck if pieces.card_kind[c] == pieces.dusk_kind)
        note = f"{in_deck} in the deck"
    else:
        note = f"{len(state.set_aside)} set aside"
    out.append(_text(x, y + 44, note, 10, style="italic"))
    y += 44
    if state.ending:
        words = "4th Dusk card" if state.ending == "fourth-dusk" else "deck ran out"
        out.append(_text(x, y + 14, f"Ending: {words},", 10, style="italic"))
        out.append(_text(x, y + 26, f"last round is {state.last_round}", 10, style="italic"))
        y += 26
    if state.box:
        out.append(_text(x, y + 14, f"{len(state.box)} cards out of play", 10, style="italic"))
        y += 14
    return out, y + 4 - GRID_Y


def _face_down_chip(x: float, y: float) -> str:
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="11" height="20" rx="3" fill="{FACE_DOWN}" stroke="{INK}" '
            f'stroke-width="1"/>')


def _lantern(game: LanternMothsGame, cards: list[int], x: float, y: float, seen: bool,
             known: list[int] | None = None) -> list[str]:
    """A lantern's captured moths, grouped by colour, each group named under it; when not seen, face down but for
    the ``known`` ones (moths the seat saw before their capture: rulepress.memory), face up first."""
    pieces = game.pieces
    if not seen:
        known = known or []
        out = [_moth_chip(game, card, x + i * 12, y, 11, 20, 9) for i, card in enumerate(known[:20])]
        out += [_face_down_chip(x + i * 12, y) for i in range(len(out), min(len(cards), 20))]
        if len(cards) > 20:
            out.append(_text(x + 20 * 12 + 4, y + 14, f"+{len(cards) - 20}", 10))
        return out
    out: list[str] = []
    groups: dict[str, list[int]] = {}
    for card in sorted(cards, key=lambda c: pieces.card_kind[c]):
        groups.setdefault(_card_name(game, card), []).append(card)
    left, drawn = x, 0
    for name, group in groups.items():
        width = len(group) * 13 - 1
        if left + max(width, 10) > WIDTH - 40:
            out.append(_text(left, y + 14, f"+{len(cards) - drawn}", 10))
            break
        drawn += len(group)
        for i, card in enumerate(group):
            out.append(_moth_chip(game, card, left + i * 13, y, 12, 20, 10))
        label = name if len(name) * 6.2 <= width + 4 else name[:1].upper()
        out.append(_text(left + width / 2, y + 30, label, 10, "middle", fill=MUTED))
        left += max(width, len(label) * 6.2) + 8
    return out


def _players(game: LanternMothsGame, state: State, top: float, places: dict[str, Box],
             sees: Callable[[int], bool] = lambda seat: True,
             knows: Callable[[int], list[int]] = lambda seat: []) -> list[str]:
    """The players' table; ``sees(seat)``: whether the diagram's seat sees that player's face-down lantern, and
    ``knows(seat)``: the moths in it the diagram's seat knows all the same."""
    from .scoring import final_scores

    scores = final_scores(game, state)
    out = [_text(10, top, "Player", 10, weight="bold"), _text(128, top, "Hand", 10, "middle", "bold"),
           _text(150, top, "Wicks", 10, weight="bold"),
           _text(206, top, "Lantern (captured moths)", 10, weight="bold"),
           _text(WIDTH - 10, top, "Points", 10, "end", "bold")]
    for seat, name in enumerate(state.players):
        y = top + 8 + seat * ROW_H
        current = state.phase != OVER and seat == state.current
        if current:
            out.append(f'<rect x="4" y="{y}" width="{WIDTH - 8}" height="{ROW_H - 4}" rx="4" '
                       f'fill="{paint("current")}" stroke="{paint("current_line")}"/>')
        label = name + (" *" if seat == state.start else "")
        out.append(_text(10, y + 20, label, 11, weight="bold" if current else "normal"))
        out.append(_text(128, y + 20, str(len(state.hands[seat])), 11, "middle"))
        places.setdefault(f"hands.{name}", Box(114, y + 4, 28, ROW_H - 12))
        places[f"hand_sizes.{name}"] = places[f"hands.{name}"]
        lit = sum(1 for owners in state.wicks for o in owners if o == seat)
        for i in range(lit + state.unlit[seat]):
            cx = 156 + i * 14
            fill = FLAME if i < lit else PAPER
            out.append(f'<circle cx="{cx}" cy="{y + 16}" r="5" fill="{fill}" stroke="{INK}" '
                       f'stroke-width="1"/>')
        places[f"wicks.{name}"] = Box(148, y + 8, max(lit + state.unlit[seat], 1) * 14 + 2, 16)
        lantern = state.lanterns[seat]
        known = [] if sees(seat) else knows(seat)
        seen = sees(seat) or not lantern or len(known) == len(lantern)  # an empty lantern shows that it is empty
        if lantern:
            out += _lantern(game, lantern, 206, y + 4, seen, known)
        else:
            out.append(_text(206, y + 20, "empty", 10, fill=SOFT, style="italic"))
        places[f"lanterns.{name}"] = Box(204, y + 2, WIDTH - 250, ROW_H - 8)
        out.append(_text(WIDTH - 10, y + 20, str(scores[seat].points) if seen else "?", 12, "end", "bold"))
        places[f"scores.{name}"] = Box(WIDTH - 36, y + 6, 30, 20)
    return out


def _hand(game: LanternMothsGame, state: State, seat: int, top: float, places: dict[str, Box]) -> list[str]:
    """The hand of the player the diagram is drawn for, face up (only they see it), each card named."""
    pieces = game.pieces
    cards = sorted(state.hands[seat], key=lambda c: pieces.card_kind[c])
    name = state.players[seat]
    out = [_text(10, top + 20, f"{name}'s hand", 10, weight="bold")]
    step = min(40.0, (WIDTH - 100) / max(len(cards), 1))
    for i, card in enumerate(cards[:16]):
        x = 96 + i * step + (step - 26) / 2
        out.append(_moth_chip(game, card, x, top + 4, 26, 26, 11, named=step >= 36))
        places.setdefault(f"hands.{name}.{pieces.kind_names[pieces.card_kind[card]]}", Box(x, top + 4, 26, 26))
    if not cards:
        out.append(_text(96, top + 20, "empty", 10, fill=SOFT, style="italic"))
    places[f"hands.{name}"] = Box(92, top + 2, max(len(cards[:16]), 1) * step + 8, 42)
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

    def knows(owner: int) -> list[int]:
        """The moths of ``owner``'s face-down lantern the seat knows: seen before their capture (the observer's view
        of the lantern, rulepress.memory), each matched to a card of its kind."""
        names = [pieces.kind_names[pieces.card_kind[card]] for card in state.lanterns[owner]]
        left, found = list(state.lanterns[owner]), []
        for name in recall(state, seat or PUBLIC, f"lanterns.{state.players[owner]}", names):
            card = next((c for c in left if name != HIDDEN and pieces.kind_names[pieces.card_kind[c]] == name), None)
            if card is not None:
                left.remove(card)
                found.append(card)
        return found

    places: dict[str, Box] = {}
    initials = _initials(state.players)
    if state.phase == OVER:
        status = f"Round {state.round} · the night has ended"
    else:
        left = pieces.actions_per_turn - state.actions_taken
        status = (f"Round {state.round} · {state.players[state.current]}'s turn, "
                  f"{left} action{'s' if left != 1 else ''} left")
    body = [_text(10, 18, status, 11, weight="bold")]
    holder = state.players.index(seat) if seat in state.players else None
    garden, garden_height = _garden(game, state, initials, everything, places)
    side, side_height = _side(game, state, places)
    body += garden + side
    top = GRID_Y + max(garden_height, side_height) + 8
    if holder is not None:  # the seat's own hand, face up, between the garden and the table: where its cards go
        body += _hand(game, state, holder, top, places)
        places[f"hand_sizes.{state.players[holder]}"] = places[f"hands.{state.players[holder]}"]
        top += 56
    body += _players(game, state, top + 10, places, sees, knows)
    height = top + 18 + len(state.players) * ROW_H
    # The page prints the caption under the figure, once: the SVG carries only what the engine can say.
    scores = ", ".join(f"{name} {score.points if sees(s) or len(knows(s)) == len(state.lanterns[s]) else 'unknown'}"
                       for s, (name, score) in enumerate(zip(state.players, final_scores(game, state), strict=True)))
    desc = (f"{status}; deck {len(state.deck)} cards; Dusk cards out {len(state.dusk_row)}; "
            f"points: {scores}.")
    if holder is not None:
        desc += f" Drawn as {seat} sees the table."
    return Figure(body, height + 4, desc, places=places)


# --- where a refused move points, the key, the components, the cover ------------------------------------------

def attempt_places(game: LanternMothsGame, step: Mapping[str, Any], places: Mapping[str, Box]) -> list[str]:
    """A refused step's source and target: a Plant from the hand to the tile, a Light from the wicks, a Draw from
    the deck or the discard pile to the hand, a Flip or a Pass at its tile or player only."""
    player, do = step.get("player"), step.get("do")
    tile = f"garden.{step['tile']}" if isinstance(step.get("tile"), str) else None
    source = {"plant": f"hands.{player}", "light": f"wicks.{player}", "discard": f"hands.{player}"}.get(str(do))
    if source == f"hands.{player}" and f"{source}.{step.get('card')}" in places:  # the very card, when it is held
        source = f"{source}.{step.get('card')}"
    if do == "draw":
        source, tile = ("discard" if step.get("from") == "discard" else "deck"), f"hands.{player}"
    if do == "discard":
        tile = "discard"
    found = [p for p in (source, tile) if p is not None and p in places]
    return found or [f"hands.{player}"]


def _symbol_chip(fill: str, label: str, ghost: bool = False) -> list[str]:
    return [_chip(8, 0, 20, 24, fill, label, ghost, 11)]


def legend(game: LanternMothsGame) -> list[LegendEntry]:
    pieces = game.pieces
    colours = ", ".join(pieces.colours)
    first = pieces.colours[0]
    return [
        LegendEntry(_symbol_chip(_colour(first, 0), "2"),
                    f"A moth card: its colour ({colours}) and its value, the colour named under it"),
        LegendEntry(_symbol_chip(PAPER, "G", ghost=True), "A Ghost Moth (white, dashed)"),
        LegendEntry(_face_down(2, 0, 32, 24, "", low=True)[:1], "A garden tile still face down, named by its place"),
        LegendEntry([f'<rect x="2" y="0" width="32" height="24" rx="4" fill="{_colour(first, 0)}" fill-opacity="0.3" '
                     f'stroke="{_colour(first, 0)}" stroke-width="2.4"/>'],
                    "A face-up tile: its colour named on it (grey takes any colour)"),
        LegendEntry([_flame(18, 12, "A")], "A lit wick beside a tile, with its owner's initial"),
        LegendEntry([f'<circle cx="10" cy="12" r="5" fill="{FLAME}" stroke="{INK}"/>',
                     f'<circle cx="26" cy="12" r="5" fill="{PAPER}" stroke="{INK}"/>'],
                    "A player's wicks: orange lit, white still unlit"),
        LegendEntry([_text(18, 16, "Ann *", 11, "middle")], "* marks the start player"),
        LegendEntry([f'<rect x="0" y="2" width="36" height="20" rx="4" fill="{paint("current")}" '
                     f'stroke="{paint("current_line")}"/>'], "The row of the player whose turn it is"),
        LegendEntry([_face_down_chip(4, 2), _face_down_chip(18, 2)],
                    "Moths in another player's lantern: face down until the game is scored"),
    ]


def _card(x: float, y: float, fill: str, value: str, name: str, ghost: bool = False) -> list[str]:
    """A moth card as the components page shows it: a tall card, its value at two corners, a moth in the middle."""
    w, h = 52, 74
    stroke = f'stroke="{SOFT}" stroke-dasharray="4 2"' if ghost else f'stroke="{INK}"'
    body = PAPER if ghost else fill
    return [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="{body}" {stroke} stroke-width="1.2"/>',
            f'<rect x="{x + 5}" y="{y + 5}" width="{w - 10}" height="{h - 10}" rx="3" fill="{PAPER}" '
            f'fill-opacity="{0.9 if ghost else 0.85}" stroke="none"/>',
            _moth(x + w / 2, y + h / 2 + 2, fill if not ghost else SOFT),
            _text(x + 9, y + 18, value, 12, "middle", "bold"),
            _text(x + w - 9, y + h - 9, value, 12, "middle", "bold"),
            _text(x + w / 2, y + h + 12, name, 10, "middle")]


def _moth(cx: float, cy: float, fill: str, size: float = 1.0) -> str:
    """A moth seen from above: two pairs of wings and a body."""
    s = size
    wings = (f"M{cx:.1f} {cy:.1f}C{cx - 6 * s:.1f} {cy - 14 * s:.1f} {cx - 20 * s:.1f} {cy - 14 * s:.1f} "
             f"{cx - 16 * s:.1f} {cy - 2 * s:.1f}C{cx - 20 * s:.1f} {cy + 8 * s:.1f} "
             f"{cx - 8 * s:.1f} {cy + 12 * s:.1f} "
             f"{cx:.1f} {cy:.1f}C{cx + 8 * s:.1f} {cy + 12 * s:.1f} {cx + 20 * s:.1f} {cy + 8 * s:.1f} "
             f"{cx + 16 * s:.1f} {cy - 2 * s:.1f}C{cx + 20 * s:.1f} {cy - 14 * s:.1f} {cx + 6 * s:.1f} "
             f"{cy - 14 * s:.1f} {cx:.1f} {cy:.1f}Z")
    return (f'<path d="{wings}" fill="{fill}" stroke="{INK}" stroke-width="{0.8 * s:.2f}"/>'
            f'<rect x="{cx - 1.6 * s:.1f}" y="{cy - 9 * s:.1f}" width="{3.2 * s:.1f}" height="{17 * s:.1f}" '
            f'rx="{1.6 * s:.1f}" fill="{INK}"/>')


def components(game: LanternMothsGame) -> list[ComponentPicture]:
    """Every kind of component, drawn as the diagrams draw it, counted from components.yaml."""
    data = game.components
    pieces = game.pieces
    values = sorted(set(data["colours"]["values"]))
    cards: list[str] = []
    per_row = 2  # colours a row: a landscape sheet, two rows for four colours
    for index, colour in enumerate(pieces.colours):
        row, place = divmod(index, per_row)
        for k, value in enumerate(values):
            x = place * (len(values) * 60 + 16) + k * 60
            cards += _card(x, row * 96, _colour(colour, index), str(value), f"{colour} {value}")
    per_value = ", ".join(f"{data['colours']['values'].count(v)} worth {v}" for v in values)
    rows = -(-len(pieces.colours) // per_row)
    deck = Figure(cards, rows * 96 - 8, width=per_row * (len(values) * 60 + 16) - 24)
    wide = max(52.0, math.ceil(text_width("Ghost Moth", 10)) + 2)  # the card, or its name under it if wider
    ghost = Figure(_card((wide - 52) / 2, 0, PAPER, "G", "Ghost Moth", ghost=True), 88, width=wide)
    dusk = Figure([f'<rect x="0" y="0" width="52" height="74" rx="5" fill="{paint("dusk")}" stroke="{INK}" '
                   f'stroke-width="1.2"/>', _moth(26, 36, paint("face_down_line")),
                   _text(26, 64, "Dusk", 11, "middle", "bold", PAPER),
                   # every card of the deck shares one back
                   f'<rect x="64" y="0" width="52" height="74" rx="5" fill="{FACE_DOWN}" stroke="{INK}" '
                   f'stroke-width="1.2"/>', f'<rect x="69" y="5" width="42" height="64" rx="3" fill="none" '
                   f'stroke="{paint("face_down_line")}" stroke-dasharray="4 3"/>', _moth(90, 37, FLAME),
                   _text(90, 86, "every card's back", 10, "middle")], 88, width=150)
    tiles: list[str] = []
    for index, name in enumerate(pieces.tile_names):
        x = index * 66
        colour = _colour(name, index)
        tiles += [f'<rect x="{x}" y="0" width="58" height="58" rx="5" fill="{colour}" fill-opacity="0.30" '
                  f'stroke="{colour}" stroke-width="2.4"/>', _text(x + 29, 33, name, 10, "middle", "bold"),
                  _text(x + 29, 72, f"× {pieces.tile_count[index]}", 10, "middle")]
    x = len(pieces.tile_names) * 66
    tiles += _face_down(x, 0, 58, 58, "")[:2] + [_text(x + 29, 33, "back", 10, "middle", fill=FACE_DOWN)]
    wick = Figure([_flame(18, 24, ""), _text(18, 52, "lit", 10, "middle"),
                   f'<circle cx="56" cy="18" r="9" fill="{PAPER}" stroke="{INK}" stroke-width="1.2"/>',
                   _text(56, 52, "unlit side", 10, "middle")], 56, width=86)
    lantern = Figure([f'<rect x="4" y="8" width="72" height="60" rx="8" fill="{paint("current")}" stroke="{INK}" '
                      f'stroke-width="1.2"/>', _lantern_glyph(40, 38, 1.2)], 72, width=80)
    return [
        ComponentPicture("Moth cards", data["deck"]["moths"]["coloured"], deck,
                         f"{data['colours']['count']} colours of {data['colours']['per_colour']}: {per_value}"),
        ComponentPicture("Ghost Moths", data["deck"]["moths"]["ghost"], ghost,
                         f"worth {data['deck']['moths']['ghost_value']} each"),
        ComponentPicture("Dusk cards", data["deck"]["dusk"], dusk,
                         f"the deck: {data['deck']['total']} cards, one back"),
        ComponentPicture("Garden tiles", data["tiles"]["total"], Figure(tiles, 80, width=x + 58),
                         f"{data['tile_colours']['per_colour']} of each colour and {data['tiles']['grey']} grey"),
        ComponentPicture("Wick tokens", data["wicks"]["total"], wick, f"{data['wicks']['per_player']} per player"),
        ComponentPicture("Lantern boards", data["lanterns"], lantern, "one per player"),
    ]


def _lantern_glyph(cx: float, cy: float, s: float = 1.0, glow: str | None = None) -> str:
    parts = []
    if glow:
        parts += [f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * s:.1f}" fill="{glow}" fill-opacity="{o}"/>'
                  for r, o in ((34, 0.16), (24, 0.28), (15, 0.5))]
    parts += [f'<rect x="{cx - 9 * s:.1f}" y="{cy - 12 * s:.1f}" width="{18 * s:.1f}" height="{24 * s:.1f}" '
              f'rx="{4 * s:.1f}" fill="{paint("cover_ink")}" stroke="{INK}" stroke-width="{0.8 * s:.2f}"/>',
              f'<rect x="{cx - 12 * s:.1f}" y="{cy - 16 * s:.1f}" width="{24 * s:.1f}" height="{5 * s:.1f}" '
              f'rx="{1.5 * s:.1f}" fill="{INK}"/>',
              f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{5 * s:.1f}" fill="{FLAME}"/>']
    return "".join(parts)


def cover(game: LanternMothsGame, width: float, height: float) -> list[str]:
    """The cover: a lantern glowing at the heart of the garden's nine tiles, moths of every colour drawn to it."""
    pieces = game.pieces
    out: list[str] = []
    size = min(width, height) * 0.26
    gap = size * 0.1
    left = width / 2 - (1.5 * size + gap)
    top = height / 2 - (1.5 * size + gap)
    laid = [tile for tile, count in enumerate(pieces.tile_count) for _ in range(count)]  # every tile of the box
    laid = sorted(laid, key=lambda tile: (tile == pieces.grey, (laid.index(tile) * 7 + tile * 3) % 11))
    laid.insert(pieces.middle, laid.pop())  # the grey tile in the middle
    for cell in range(pieces.rows * pieces.columns):
        r, c = divmod(cell, pieces.columns)
        x, y = left + c * (size + gap), top + r * (size + gap)
        tile = laid[cell % len(laid)]
        colour = _colour(pieces.tile_names[tile], tile)
        out.append(f'<rect x="{x:.2f}" y="{y:.2f}" width="{size:.2f}" height="{size:.2f}" rx="{size * 0.07:.2f}" '
                   f'fill="{colour}" fill-opacity="0.55" stroke="{colour}" stroke-width="{size * 0.02:.2f}"/>')
    cx, cy = width / 2, height / 2
    out.append(_lantern_glyph(cx, cy, size / 40, glow=FLAME))
    for k in range(12):
        colour = pieces.colours[k % len(pieces.colours)]
        angle = k * 2.399963  # the golden angle: evenly spread, never in rows
        radius = size * (0.95 + 0.55 * ((k * 7) % 5) / 4)
        mx, my = cx + radius * math.cos(angle) * 1.15, cy + radius * math.sin(angle)
        out.append(f'<g transform="rotate({(angle * 57.3 + 90) % 360:.0f} {mx:.2f} {my:.2f})">'
                   + _moth(mx, my, _colour(colour, k % len(pieces.colours)), size / 90) + "</g>")
    return out
