"""A new game laid out as the Setup chapter says, shuffled from a seed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rulepress.protocol import Chance, DescriptionError, Event, decided

from .cards import shuffle_cards
from .state import PLAY, UNKNOWN_TILE, State

if TYPE_CHECKING:
    from .game import LanternMothsGame


def _refuse(rule: str, message: str) -> None:
    raise DescriptionError("players", f"{message} (rule {rule})", rule=rule)


def check_players(game: LanternMothsGame, players: Any) -> tuple[str, ...]:
    pieces = game.pieces
    if not isinstance(players, Sequence) or isinstance(players, str) \
            or not all(isinstance(p, str) and p for p in players):
        raise DescriptionError("players", "players must be a list of names")
    if len(set(players)) != len(players):
        raise DescriptionError("players", "every player needs a different name")
    count = len(players)
    if count == 1:
        _refuse("lm.excluded.solo", "solo play is not included")
    if count == pieces.untested_players:
        _refuse("lm.excluded.five", f"the game is not tested with {count} players")
    if not pieces.min_players <= count <= pieces.max_players:
        _refuse("lm.overview.players",
                f"Lantern Moths is for {pieces.min_players} to {pieces.max_players} players")
    return tuple(players)


def empty_state(game: LanternMothsGame, players: tuple[str, ...], chance: Chance) -> State:
    """Everything in its place before any card or tile is laid out."""
    pieces = game.pieces
    cells = len(pieces.cell_names)
    n = len(players)
    state = State()
    state.players = players
    state.decisions = {}
    state.hands = [[] for _ in range(n)]
    state.deck = []
    state.discard = []
    state.lanterns = [[] for _ in range(n)]
    state.tile_at = [UNKNOWN_TILE] * cells
    state.face_up = [False] * cells
    state.moths = [[] for _ in range(cells)]
    state.wicks = [[] for _ in range(cells)]
    state.ghost_block = [False] * cells
    state.unlit = [pieces.wicks_per_player] * n
    state.dusk_row = []
    state.set_aside = []
    state.box = []
    state.tile_pool = [tile for tile, count in enumerate(pieces.tile_count) for _ in range(count)]
    state.round = 1
    state.start = 0
    state.current = 0
    state.actions_taken = 0
    state.taken = []
    state.lit = False
    state.phase = PLAY
    state.dusk_shuffled = False
    state.ending = None
    state.last_round = 0
    state.chance = chance
    state.action_count = 0
    state.log = []
    state.memory = None
    return state


def new_state(game: LanternMothsGame, names: tuple[str, ...], chance: Chance) -> State:
    """A new game for players ``check_players`` let through, shuffled by ``chance``, whose forced outcomes (an
    example's ``start.chance``) are card kinds that fix the deal, dealt one at a time from the top, then a tile
    name the middle tile (when option ``grey_tile`` leaves it to chance)."""
    pieces = game.pieces
    state = empty_state(game, names, chance)
    log = state.log
    # The pieces on the table, as the Components chapter lists them.
    log.append(Event("deck", "lm.components.deck", {"cards": pieces.card_count,
                                                    "dusk": pieces.kind_count[pieces.dusk_kind],
                                                    "ghosts": pieces.kind_count[pieces.ghost_kind]}))
    log.append(Event("colours", "lm.components.colours", {"colours": list(pieces.colours)}))
    log.append(Event("tiles", "lm.components.tiles", {"tiles": sum(pieces.tile_count)}))
    log.append(Event("garden-grid", "lm.components.garden", {"places": list(pieces.cell_names)}))
    log.append(Event("lantern-boards", "lm.components.lanterns", {"players": list(names)}))
    log.append(Event("wick-tokens", "lm.components.wicks", {"each": pieces.wicks_per_player}))
    log.append(Event("lanterns", "lm.setup.lanterns", {"unlit_wicks": pieces.wicks_per_player}))
    dusk = pieces.dusk_kind
    state.set_aside = [c for c, kind in enumerate(pieces.card_kind) if kind == dusk]
    log.append(Event("dusk-aside", "lm.setup.dusk", {"cards": len(state.set_aside)}))
    moths = [c for c, kind in enumerate(pieces.card_kind) if kind != dusk]
    shuffle_cards(game, state, moths)
    for _ in range(pieces.deal):
        for seat in range(len(names)):
            state.hands[seat].append(moths.pop())
    state.deck = moths
    log.append(Event("deal", "lm.setup.deal", {"each": pieces.deal, "deck": len(state.deck)}))
    lay_out_garden(game, state)
    # Who saw a moth last is for the players to settle; the engine seats the first name listed first.
    log.append(Event("start-player", "lm.setup.start", {"player": names[0]}))
    return state


def lay_out_garden(game: LanternMothsGame, state: State) -> None:
    """All tiles face down, then the middle one turned up.

    Face-down places stay undecided until flipped (see turn._flip), which is the same as shuffling.
    """
    pieces = game.pieces
    middle = pieces.middle
    if game.opts.grey_tile == "middle":
        tile = pieces.grey
    else:
        population = [pieces.tile_names[t] for t in state.tile_pool]
        tile = pieces.tile_index[state.chance.draw_from(population, "tile")]
    state.tile_pool.remove(tile)
    if tile != pieces.grey:
        decided(state, "grey_tile")  # not in the middle, where the other answer to the question puts it
    state.tile_at[middle] = tile
    state.face_up[middle] = True
    state.log.append(Event("garden", "lm.setup.garden", {"face_up": pieces.cell_names[middle],
                                                        "tile": pieces.tile_names[tile]}))
