"""The game's flow between actions: end of turn, the end-of-round steps in order, the end of the night."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulepress.memory import reveal
from rulepress.protocol import Event, decided

from .cards import DURING_REFILL, draw_from_deck, shuffle_dusk_in
from .scoring import final_scores, winners
from .state import DISCARD, OVER, PLAY, State

if TYPE_CHECKING:
    from .game import LanternMothsGame


def end_turn(game: LanternMothsGame, state: State, events: list[Event]) -> None:
    seat = state.current
    if len(state.hands[seat]) > game.pieces.hand_size:
        decided(state, "discard_source")  # more than 5 cards at the end of a turn: the text sets no limit
    if game.opts.discard_source == "hand_limit" and len(state.hands[seat]) > game.pieces.hand_size:
        state.phase = DISCARD
        events.append(Event("discard-down", "lm.turn.draw.discard", {"player": state.players[seat],
                                                                     "cards": len(state.hands[seat])}))
        return
    state.phase = PLAY
    following = (seat + 1) % state.n
    events.append(Event("turn-ends", "lm.turn.actions", {"player": state.players[seat]}))
    if following == state.start:
        end_round(game, state, events)
        return
    _begin_turn(state, following)
    events.append(Event("next-turn", "lm.turn.order", {"player": state.players[following]}))


def _begin_turn(state: State, seat: int) -> None:
    state.current = seat
    state.actions_taken = 0
    state.taken = []
    state.lit = False


def end_round(game: LanternMothsGame, state: State, events: list[Event]) -> None:
    events.append(Event("round-ends", "lm.round.when", {"round": state.round}))
    _capture(game, state, events)
    _wicks_back(state, events)
    _refill(game, state, events)
    state.start = (state.start + 1) % state.n
    events.append(Event("start-player", "lm.round.start-player", {"player": state.players[state.start]}))
    if state.ending is not None and state.round >= state.last_round:
        _game_over(game, state, events)
        return
    if not state.dusk_shuffled and state.round >= game.pieces.dusk_after_round:
        shuffle_dusk_in(game, state, events)
    state.round += 1
    _begin_turn(state, state.start)
    events.append(Event("next-turn", "lm.turn.order", {"player": state.players[state.start],
                                                       "round": state.round}))


def _capture(game: LanternMothsGame, state: State, events: list[Event]) -> None:
    """Steps 1 and 2: lone lit wicks take their tile's moths; every other tile keeps its moths."""
    pieces = game.pieces
    names = pieces.cell_names
    ghost_kind = pieces.ghost_kind
    card_kind = pieces.card_kind
    every_round = game.opts.ghost_block == "while_on_tile"
    for cell, moths in enumerate(state.moths):
        wicks = state.wicks[cell]
        if not wicks:
            if moths:
                events.append(Event("kept", "lm.edge.unlit-tile", {"tile": names[cell], "reason": "no wick",
                                                                   "moths": len(moths)}))
            continue
        if not moths:
            if len(wicks) == 1:
                events.append(Event("nothing-to-take", "lm.edge.empty-tile",
                                    {"tile": names[cell], "player": state.players[wicks[0]]}))
            continue
        if len(wicks) == 1 and not state.ghost_block[cell] and any(card_kind[c] == ghost_kind for c in moths):
            decided(state, "ghost_block")  # a lone wick on a Ghost Moth planted in an earlier round
        blocked = state.ghost_block[cell] or (every_round and any(card_kind[c] == ghost_kind for c in moths))
        if blocked:
            events.append(Event("kept", "lm.round.keep", {"tile": names[cell], "reason": "ghost moth",
                                                          "moths": len(moths)}))
        elif len(wicks) > 1:
            events.append(Event("kept", "lm.edge.shared-tile",
                                {"tile": names[cell], "reason": "several wicks", "moths": len(moths),
                                 "players": [state.players[w] for w in wicks]}))
        else:
            owner = wicks[0]
            taken = [pieces.kind_names[card_kind[c]] for c in moths]
            state.lanterns[owner].extend(moths)
            state.moths[cell] = []
            events.append(Event("capture", "lm.round.capture", {"player": state.players[owner],
                                                                "tile": names[cell], "moths": taken,
                                                                "count": len(taken)}))
            # Everyone saw these moths face up on the tile: face down in the lantern, they stay known (lm.q23).
            reveal(state, f"lanterns.{state.players[owner]}", taken)
            decided(state, "remembered")
    state.ghost_block = [False] * len(state.ghost_block)


def _wicks_back(state: State, events: list[Event]) -> None:
    returned = [0] * state.n
    for cell, wicks in enumerate(state.wicks):
        for owner in wicks:
            returned[owner] += 1
            state.unlit[owner] += 1
        state.wicks[cell] = []
    events.append(Event("wicks-back", "lm.round.wicks",
                        {"returned": {state.players[s]: returned[s] for s in range(state.n) if returned[s]}}))


def _refill(game: LanternMothsGame, state: State, events: list[Event]) -> None:
    size = game.pieces.hand_size
    order = [(state.start + i) % state.n for i in range(state.n)]
    drawn = [0] * state.n
    short = [size - len(state.hands[s]) for s in order if len(state.hands[s]) < size]
    if len(short) > 1:
        dusk = game.pieces.dusk_kind
        if sum(short) > len(state.deck) or any(game.pieces.card_kind[c] == dusk for c in state.deck):
            decided(state, "refill_order")  # who meets a Dusk card, or goes short, depends on the order
    if game.opts.refill_order == "card_by_card":
        waiting = [s for s in order if len(state.hands[s]) < size]
        while waiting:
            still = []
            for seat in waiting:
                if draw_from_deck(game, state, seat, DURING_REFILL, events) is None:
                    continue
                drawn[seat] += 1
                if len(state.hands[seat]) < size:
                    still.append(seat)
            waiting = still
        for seat in order:
            events.append(_refilled(game, state, seat, drawn[seat]))
        return
    for seat in order:
        while len(state.hands[seat]) < size:
            if draw_from_deck(game, state, seat, DURING_REFILL, events) is None:
                break
            drawn[seat] += 1
        events.append(_refilled(game, state, seat, drawn[seat]))


def _refilled(game: LanternMothsGame, state: State, seat: int, drawn: int) -> Event:
    """The end-of-round draw's event: how many cards the player drew, and which (the last ``drawn`` of the hand),
    which only they see (the observer's ``event_view``)."""
    pieces = game.pieces
    cards = [pieces.kind_names[pieces.card_kind[c]] for c in state.hands[seat][len(state.hands[seat]) - drawn:]]
    return Event("refill", "lm.round.refill", {"player": state.players[seat], "drew": drawn,
                                               "hand": len(state.hands[seat]), "cards": cards})


def _game_over(game: LanternMothsGame, state: State, events: list[Event]) -> None:
    state.phase = OVER
    rule = "lm.night.fourth" if state.ending == "fourth-dusk" else "lm.night.deck-out"
    events.append(Event("night-ends", "lm.night.end", {"reason": state.ending, "round": state.round,
                                                       "trigger_rule": rule}))
    scores = final_scores(game, state)
    for seat, name in enumerate(state.players):
        score = scores[seat]
        events.append(Event("score", "lm.scoring.values", {"player": name, "moth_points": score.values,
                                                           "moths": score.moths, "ghosts": score.ghosts}))
        events.append(Event("sets", "lm.scoring.sets", {"player": name, "sets": score.sets,
                                                        "bonus": score.bonus, "points": score.points}))
    won, decided_by = winners(scores)
    rule = {"points": "lm.scoring.winner", "moths": "lm.scoring.tie-moths", "ghosts": "lm.scoring.tie-ghosts",
            "shared": "lm.scoring.tie-shared"}[decided_by]
    events.append(Event("winner", rule, {"players": [state.players[s] for s in won],
                                         "decided_by": decided_by}))
