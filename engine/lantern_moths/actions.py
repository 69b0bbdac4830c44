"""Action kinds, and the translation between example steps (``{do: plant, ...}``) and actions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rulepress.protocol import DescriptionError, closest, meant

from .state import Action, State

if TYPE_CHECKING:
    from .game import LanternMothsGame

DRAW, PLANT, LIGHT, FLIP, PASS, DISCARD = range(6)
ACTION_NAMES = ("draw", "plant", "light", "flip", "pass", "discard")
FROM_DECK, FROM_DISCARD = 0, 1
SOURCES = ("deck", "discard")

_STEP_KEYS = {
    "draw": {"from"},
    "plant": {"card", "tile"},
    "light": {"tile"},
    "flip": {"tile"},
    "pass": set(),
    "discard": {"card"},
}
_ALWAYS = {"do", "player", "illegal", "note"}


def parse_action(game: LanternMothsGame, state: State, step: Mapping[str, Any]) -> Action:
    """The action an example step names; names it cannot resolve raise DescriptionError."""
    if not isinstance(step, Mapping):
        raise DescriptionError("step", "a step must be a mapping such as {player: Ann, do: light, tile: b2}")
    do = step.get("do")
    if do not in _STEP_KEYS:
        raise DescriptionError("step.do", f"unknown action {do!r} ({meant(do, _STEP_KEYS)}actions: "
                                          f"{', '.join(_STEP_KEYS)})")
    extra = set(step) - _STEP_KEYS[do] - _ALWAYS
    if extra:
        raise DescriptionError(f"step.{sorted(map(str, extra))[0]}",
                               f"'{do}' takes {', '.join(sorted(_STEP_KEYS[do])) or 'no arguments'}")
    seat = _seat(state, step.get("player"))
    kind = ACTION_NAMES.index(do)
    if kind == DRAW:
        source = step.get("from", "deck")
        if source not in SOURCES:
            raise DescriptionError("step.from", f"draw from 'deck' or 'discard', not {source!r}")
        return Action(DRAW, seat, SOURCES.index(source), -1)
    if kind in (PLANT, DISCARD):
        card = step.get("card")
        if not isinstance(card, str) or card not in game.pieces.kind_index:
            raise DescriptionError("step.card", _unknown_card(game, card))
        cell = _cell(game, step.get("tile")) if kind == PLANT else -1
        return Action(kind, seat, game.pieces.kind_index[card], cell)
    if kind in (LIGHT, FLIP):
        return Action(kind, seat, -1, _cell(game, step.get("tile")))
    return Action(PASS, seat, -1, -1)


def _seat(state: State, player: Any) -> int:
    if player is None:
        return state.current
    if not isinstance(player, str) or player not in state.players:
        raise DescriptionError("step.player", f"unknown player {player!r} "
                                              f"(players: {', '.join(state.players)})")
    return state.players.index(player)


def _cell(game: LanternMothsGame, name: Any) -> int:
    if not isinstance(name, str) or name not in game.pieces.cell_index:
        raise DescriptionError("step.tile", f"unknown garden place {name!r} "
                                            f"(places: {', '.join(game.pieces.cell_names)})")
    return game.pieces.cell_index[name]


def format_action(game: LanternMothsGame, state: State, action: Action) -> str:
    who = state.players[action.player] if 0 <= action.player < len(state.players) else "?"
    pieces = game.pieces
    if action.kind == DRAW:
        return f"{who} draws from the {'discard pile' if action.arg == FROM_DISCARD else 'deck'}"
    if action.kind == PLANT:
        return f"{who} plants {pieces.kind_names[action.arg]} on {pieces.cell_names[action.cell]}"
    if action.kind == LIGHT:
        return f"{who} lights a wick beside {pieces.cell_names[action.cell]}"
    if action.kind == FLIP:
        return f"{who} flips {pieces.cell_names[action.cell]}"
    if action.kind == DISCARD:
        return f"{who} discards {pieces.kind_names[action.arg]}"
    return f"{who} passes"


def action_step(game: LanternMothsGame, state: State, action: Action) -> dict[str, Any]:
    """The example step that names ``action`` (the inverse of parse_action)."""
    step: dict[str, Any] = {"player": state.players[action.player], "do": ACTION_NAMES[action.kind]}
    if action.kind == DRAW:
        step["from"] = SOURCES[action.arg]
    if action.kind in (PLANT, DISCARD):
        step["card"] = game.pieces.kind_names[action.arg]
    if action.kind in (PLANT, LIGHT, FLIP):
        step["tile"] = game.pieces.cell_names[action.cell]
    return step


def a_or_an(word: str) -> str:
    """``amber`` -> ``an amber``, ``rose`` -> ``a rose``: for refusals, which are English (the colours are the
    book's own words, components.yaml)."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _unknown_card(game: Any, card: Any) -> str:
    """A card a step names that the deck does not hold, said with the rulebook's names for the cards (a reader
    trying a move on the site sees it): the one it was most likely meant as, else how a card is written."""
    from .narrate import card_words  # narrate reads the actions' names: imported once both are

    names = game.pieces.kind_names
    meant = closest(card, names)
    if meant is not None:
        return f"unknown card {card!r}: did you mean {meant} ({card_words(meant)})?"
    return (f"unknown card {card!r}: a card is written as its colour and value ({names[0]} is "
            f"{card_words(names[0])}), or {' or '.join(n for n in names if not n[-1].isdigit())}")
