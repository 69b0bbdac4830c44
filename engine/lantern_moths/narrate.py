"""The player edition's words for actions and positions: the rulebook's terms, never engine notation.

``format_action`` (``Ann plants amber-2 on b2``) stays the engine's terse form for designers and error
messages; this module says the same thing as the rulebook would (``Ann plants an amber moth worth 2 ...``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .actions import DISCARD, DRAW, FLIP, FROM_DISCARD, LIGHT, PLANT
from .pieces import DUSK, GHOST
from .state import UNKNOWN_TILE, Action, State

if TYPE_CHECKING:
    from .game import LanternMothsGame

# Engine notation that must never reach the player edition (checked by rulepress.render.player_text).
# (Cards named "amber-2" are the book's own shorthand, taught in the components chapter, so they may appear.)
NOTATION: dict[str, str] = {
    "garden list": r"\b[a-c][1-3](?: [a-c][1-3]){2,}\b",  # a1 b2 c3: places as the engine lists them
}


def card_words(kind_name: str, article: bool = True) -> str:
    """``amber-2`` -> ``an amber moth worth 2``; ``ghost`` -> ``a Ghost Moth``; ``dusk`` -> ``a Dusk card``."""
    if kind_name == GHOST:
        return "a Ghost Moth" if article else "Ghost Moth"
    if kind_name == DUSK:
        return "a Dusk card" if article else "Dusk card"
    colour, _, value = kind_name.rpartition("-")
    words = f"{colour} moth worth {value}"
    if not article:
        return words
    return ("an " if colour[:1] in "aeiou" else "a ") + words


def _place(game: LanternMothsGame, state: State, cell: int) -> str:
    name = game.pieces.cell_names[cell]
    tile = state.tile_at[cell]
    if not state.face_up[cell] or tile == UNKNOWN_TILE:
        return f"the face-down tile at {name}"
    return f"the {game.pieces.tile_names[tile]} tile at {name}"


def narrate_action(game: LanternMothsGame, state: State, action: Action) -> str:
    """What the player did, in the rulebook's words (``state`` is the position before the action)."""
    pieces = game.pieces
    who = state.players[action.player] if 0 <= action.player < len(state.players) else "Nobody"
    if action.kind == DRAW:
        if action.arg == FROM_DISCARD:
            top = (f" ({card_words(pieces.kind_names[pieces.card_kind[state.discard[-1]]])})"
                   if state.discard else "")
            return f"{who} takes the top card of the discard pile{top}."
        return f"{who} draws a card from the deck."
    if action.kind == PLANT:
        return (f"{who} plants {card_words(pieces.kind_names[action.arg])} on "
                f"{_place(game, state, action.cell)}.")
    if action.kind == LIGHT:
        return f"{who} lights a wick beside {_place(game, state, action.cell)}."
    if action.kind == FLIP:
        return f"{who} turns over {_place(game, state, action.cell)}."
    if action.kind == DISCARD:
        return f"{who} discards {card_words(pieces.kind_names[action.arg])}."
    return f"{who} passes."


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}" if number == 1 else f"{number} {thing}s"


def narrate_state(game: LanternMothsGame, snapshot: Mapping[str, Any]) -> str:
    """The position in a few sentences: whose turn, the garden, the lanterns and the Dusk cards."""
    sentences = []
    if snapshot.get("over"):
        winners = snapshot.get("winners") or []
        sentences.append("The game is over" + (f"; {' and '.join(winners)} won" if winners else "") + ".")
    elif snapshot.get("current"):
        left = int(snapshot.get("actions_left", 0))
        sentences.append(f"Round {snapshot.get('round')}: {snapshot['current']} is playing, with "
                         f"{_count(left, 'action')} left.")
    garden = snapshot.get("garden") or {}
    shown = []
    for place, cell in garden.items():
        if cell.get("face") != "up":
            continue
        moths = cell.get("moths") or []
        what = f"the {cell.get('tile')} tile at {place}"
        if moths:
            what += " with " + ", ".join(card_words(m) for m in moths)
        if cell.get("wicks"):
            what += f" (wicks: {', '.join(cell['wicks'])})"
        shown.append(what)
    if shown:
        sentences.append("Face up: " + "; ".join(shown) + ".")
    lanterns = snapshot.get("lanterns") or {}
    if any(lanterns.values()):
        sentences.append("In the lanterns: " + "; ".join(
            f"{name} {_count(len(cards), 'moth')}" for name, cards in lanterns.items()) + ".")
    dusk = snapshot.get("dusk") or {}
    if dusk.get("out"):
        sentences.append(f"{_count(int(dusk['out']), 'Dusk card')} out.")
    return " ".join(sentences)
