"""Build a state from an example's ``start.state`` description (format: engine/lantern_moths/README.md).

Anything the description cannot mean raises DescriptionError with the path of the offending entry;
nothing else escapes, whatever the input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rulepress.protocol import Chance, DescriptionError

from .actions import ACTION_NAMES, LIGHT, PASS, a_or_an
from .cards import shuffle_cards
from .setup import empty_state
from .state import DECK_OUT, FOURTH_DUSK, UNKNOWN_TILE, State

if TYPE_CHECKING:
    from .game import LanternMothsGame

KEYS = ("round", "start_player", "current", "taken", "garden", "hands", "deck", "discard", "lanterns",
        "dusk_out", "dusk_shuffled", "night_ending", "last_round", "unlisted")
CELL_KEYS = ("tile", "face", "moths", "wicks", "blocked")
TURN_ACTIONS = tuple(name for i, name in enumerate(ACTION_NAMES) if i < PASS)


def _fail(path: str, message: str) -> DescriptionError:
    return DescriptionError(f"start.state.{path}" if path else "start.state", message)


def _whole(value: Any, path: str, low: int, high: int | None = None) -> int:
    whole = isinstance(value, int) and not isinstance(value, bool)
    if not whole or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise _fail(path, f"must be a whole number {bound}, not {value!r}")
    return value


def _flag(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(path, f"must be true or false, not {value!r}")
    return value


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise _fail(path, f"must be a list, not {value!r}")
    return list(value)


def _mapping(value: Any, path: str) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise _fail(path, f"must be a mapping, not {value!r}")
    return value


class _Cards:
    """Hands out card ids by kind name, refusing more cards of a kind than the deck holds."""

    def __init__(self, game: LanternMothsGame) -> None:
        self.pieces = game.pieces
        self.free: list[list[int]] = [[] for _ in self.pieces.kind_names]
        for card in reversed(range(self.pieces.card_count)):
            self.free[self.pieces.card_kind[card]].append(card)

    def take(self, name: Any, path: str, dusk_ok: bool = False) -> int:
        pieces = self.pieces
        if not isinstance(name, str) or name not in pieces.kind_index:
            raise _fail(path, f"unknown card {name!r} (cards: {', '.join(pieces.kind_names)})")
        kind = pieces.kind_index[name]
        if kind == pieces.dusk_kind and not dusk_ok:
            raise _fail(path, "a Dusk card cannot be here: Dusk cards are in the deck, laid face up in the "
                              "middle, or set aside")
        if not self.free[kind]:
            raise _fail(path, f"more {name} cards than the game has ({pieces.kind_count[kind]})")
        return self.free[kind].pop()

    def many(self, names: Any, path: str, dusk_ok: bool = False) -> list[int]:
        return [self.take(name, f"{path}.{i}", dusk_ok) for i, name in enumerate(_list(names, path))]

    def left(self) -> list[int]:
        return sorted(card for cards in self.free for card in cards)


def _seat(state: State, name: Any, path: str) -> int:
    if not isinstance(name, str) or name not in state.players:
        raise _fail(path, f"unknown player {name!r} (players: {', '.join(state.players)})")
    return state.players.index(name)


def _per_player(state: State, value: Any, path: str) -> dict[int, Any]:
    return {_seat(state, name, f"{path}.{name}"): item for name, item in _mapping(value, path).items()}


def describe_state(game: LanternMothsGame, description: Any, players: tuple[str, ...], chance: Chance) -> State:
    """The state ``start.state`` describes, for players ``check_players`` let through."""
    pieces = game.pieces
    data = _mapping(description, "")
    unknown = [str(k) for k in data if k not in KEYS]
    if unknown:
        raise _fail(unknown[0], f"unknown key '{unknown[0]}' (keys: {', '.join(KEYS)})")
    state = empty_state(game, players, chance)
    cards = _Cards(game)

    state.round = _whole(data.get("round", 1), "round", 1)
    state.start = _seat(state, data["start_player"], "start_player") if "start_player" in data else 0
    state.current = _seat(state, data["current"], "current") if "current" in data else state.start
    taken = _list(data.get("taken", []), "taken")
    for i, name in enumerate(taken):
        if name not in TURN_ACTIONS:
            raise _fail(f"taken.{i}", f"unknown action {name!r} (actions: {', '.join(TURN_ACTIONS)})")
    if len(taken) >= pieces.actions_per_turn:
        raise _fail("taken", f"a turn ends after {pieces.actions_per_turn} actions; list fewer")
    if taken.count(ACTION_NAMES[LIGHT]) > 1:
        raise _fail("taken", "Light is taken at most once per turn")
    state.taken = [str(t) for t in taken]
    state.actions_taken = len(taken)
    state.lit = ACTION_NAMES[LIGHT] in taken

    shuffled = data.get("dusk_shuffled", state.round > pieces.dusk_after_round)
    state.dusk_shuffled = _flag(shuffled, "dusk_shuffled")
    dusk_out = _whole(data.get("dusk_out", 0), "dusk_out", 0, pieces.kind_count[pieces.dusk_kind])
    if dusk_out and not state.dusk_shuffled:
        raise _fail("dusk_out", "Dusk cards can be out only once they are shuffled into the deck")
    state.dusk_row = [cards.take("dusk", f"dusk_out.{i}", dusk_ok=True) for i in range(dusk_out)]

    _describe_garden(game, state, cards, data.get("garden", {}))
    for seat, hand in _per_player(state, data.get("hands", {}), "hands").items():
        state.hands[seat] = cards.many(hand, f"hands.{state.players[seat]}")
    for seat, lantern in _per_player(state, data.get("lanterns", {}), "lanterns").items():
        state.lanterns[seat] = cards.many(lantern, f"lanterns.{state.players[seat]}")
    listed_deck = cards.many(data.get("deck", []), "deck", dusk_ok=state.dusk_shuffled)
    state.discard = list(reversed(cards.many(data.get("discard", []), "discard")))

    unlisted = data.get("unlisted", "deck")
    if unlisted not in ("deck", "box"):
        raise _fail("unlisted", f"unlisted cards go to the 'deck' or the 'box', not {unlisted!r}")
    rest = cards.left()
    if not state.dusk_shuffled:
        state.set_aside = [c for c in rest if pieces.card_kind[c] == pieces.dusk_kind]
        rest = [c for c in rest if pieces.card_kind[c] != pieces.dusk_kind]
    if unlisted == "box":
        state.box = rest
        rest = []
    else:
        shuffle_cards(game, state, rest)
    state.deck = rest + list(reversed(listed_deck))

    _describe_ending(game, state, data)
    return state


def _describe_garden(game: LanternMothsGame, state: State, cards: _Cards, garden: Any) -> None:
    pieces = game.pieces
    tiles_left = list(pieces.tile_count)
    for name, cell_data in _mapping(garden, "garden").items():
        path = f"garden.{name}"
        if not isinstance(name, str) or name not in pieces.cell_index:
            raise _fail(path, f"unknown garden place {name!r} (places: {', '.join(pieces.cell_names)})")
        cell = pieces.cell_index[name]
        spec = {"tile": cell_data} if isinstance(cell_data, str) else dict(_mapping(cell_data, path))
        if spec.get("tile") == "down":
            spec = {"face": "down"}
        unknown = [str(k) for k in spec if k not in CELL_KEYS]
        if unknown:
            raise _fail(f"{path}.{unknown[0]}", f"unknown key (keys: {', '.join(CELL_KEYS)})")
        face = spec.get("face", "up" if "tile" in spec else "down")
        if face not in ("up", "down"):
            raise _fail(f"{path}.face", f"a tile is face 'up' or 'down', not {face!r}")
        tile = spec.get("tile")
        if tile is None:
            if face == "up":
                raise _fail(f"{path}.tile", "a face-up tile needs its colour")
            tile_kind = UNKNOWN_TILE
        else:
            if not isinstance(tile, str) or tile not in pieces.tile_index:
                raise _fail(f"{path}.tile", f"unknown tile {tile!r} (tiles: {', '.join(pieces.tile_names)}, "
                                            "or 'down')")
            tile_kind = pieces.tile_index[tile]
            if tiles_left[tile_kind] == 0:
                raise _fail(f"{path}.tile", f"more {tile} tiles than the game has "
                                            f"({pieces.tile_count[tile_kind]})")
            tiles_left[tile_kind] -= 1
        state.tile_at[cell] = tile_kind
        state.face_up[cell] = face == "up"
        moths = cards.many(spec.get("moths", []), f"{path}.moths")
        wick_names = _list(spec.get("wicks", []), f"{path}.wicks")
        blocked = _flag(spec.get("blocked", False), f"{path}.blocked")
        if face == "down" and (moths or wick_names):
            raise _fail(path, "a face-down tile holds no moths and has no wicks")
        _check_moths(game, tile_kind, moths, path)
        if blocked and not any(pieces.card_kind[c] == pieces.ghost_kind for c in moths):
            raise _fail(f"{path}.blocked", "only a tile with a Ghost Moth on it can be blocked")
        seats = [_seat(state, who, f"{path}.wicks.{i}") for i, who in enumerate(wick_names)]
        if len(set(seats)) != len(seats):
            raise _fail(f"{path}.wicks", "a player has at most one wick beside a tile "
                                         "(rule lm.edge.own-wicks)")
        for seat in seats:
            state.unlit[seat] -= 1
            if state.unlit[seat] < 0:
                raise _fail(f"{path}.wicks", f"{state.players[seat]} has only "
                                             f"{pieces.wicks_per_player} wicks")
        state.moths[cell] = moths
        state.wicks[cell] = seats
        state.ghost_block[cell] = blocked
    state.tile_pool = [tile for tile, count in enumerate(tiles_left) for _ in range(count)]


def _check_moths(game: LanternMothsGame, tile: int, moths: list[int], path: str) -> None:
    pieces = game.pieces
    ghosts = sum(1 for c in moths if pieces.card_kind[c] == pieces.ghost_kind)
    others = len(moths) - ghosts
    too_many = others > pieces.tile_limit if game.opts.ghost_on_full_tile else len(moths) > pieces.tile_limit
    if too_many:
        raise _fail(f"{path}.moths", f"a tile holds at most {pieces.tile_limit} moths "
                                     "(rule lm.turn.plant.full)")
    for i, card in enumerate(moths):
        kind = pieces.card_kind[card]
        if kind != pieces.ghost_kind and tile != pieces.grey and pieces.kind_colour[kind] != tile:
            raise _fail(f"{path}.moths.{i}", f"{pieces.kind_names[kind]} cannot be on "
                                             f"{a_or_an(pieces.tile_names[tile])} tile (rule lm.turn.plant)")


def _describe_ending(game: LanternMothsGame, state: State, data: Mapping[Any, Any]) -> None:
    pieces = game.pieces
    if "night_ending" in data:
        reason = data["night_ending"]
        if reason not in (None, FOURTH_DUSK, DECK_OUT):
            raise _fail("night_ending", f"the night ends by '{FOURTH_DUSK}' or '{DECK_OUT}' (or null), "
                                        f"not {reason!r}")
    elif len(state.dusk_row) >= pieces.ending_dusk:
        reason = FOURTH_DUSK
    elif not state.deck and game.opts.deck_out == "last_card":
        reason = DECK_OUT
    else:
        reason = None
    state.ending = reason
    last = data.get("last_round", state.round)
    state.last_round = _whole(last, "last_round", state.round) if reason is not None else 0
    if reason is None and "last_round" in data:
        raise _fail("last_round", "a last round is set only when the night is ending")
