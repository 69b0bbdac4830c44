"""Cards leaving the deck: draws, Dusk cards and the two ways the night begins to end; shuffles."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from rulepress.protocol import Event, decided

from .state import DECK_OUT, FOURTH_DUSK, State

if TYPE_CHECKING:
    from .game import LanternMothsGame
    from .pieces import Pieces

DURING_DRAW = "draw"
DURING_REFILL = "refill"


def shuffle_cards(game: LanternMothsGame, state: State, cards: list[int]) -> None:
    """Shuffle ``cards`` (a deck: top last) in place.

    Forced chance outcomes that name card kinds fix the top cards after the shuffle, in order, so an
    example can say which cards come up first (after the Dusk cards are shuffled in, or in the deal).
    """
    state.chance.shuffle(cards, "card", name=partial(card_name, game.pieces), names=game.pieces.kind_index, top="last")


def card_name(pieces: Pieces, card: int) -> str:
    """A card as chance outcomes name it: by its kind (cards of one kind are alike)."""
    return pieces.kind_names[pieces.card_kind[card]]


def begin_night_end(game: LanternMothsGame, state: State, reason: str, during: str,
                    events: list[Event]) -> None:
    """The night starts to end: this round (or, from the end-of-round draw, maybe the next) is the last."""
    if state.ending is not None:
        return
    state.ending = reason
    if during == DURING_REFILL:
        decided(state, "refill_night_end")  # the night's end begins during the end-of-round draw
    late = during == DURING_REFILL and game.opts.refill_night_end == "next_round"
    state.last_round = state.round + 1 if late else state.round
    rule = "lm.night.fourth" if reason == FOURTH_DUSK else "lm.night.deck-out"
    if reason != FOURTH_DUSK:
        decided(state, "deck_out_kept")  # the deck ran out before the fourth Dusk card: the safeguard applies
    events.append(Event("night-ending", rule, {"reason": reason, "last_round": state.last_round}))


def _deck_emptied(game: LanternMothsGame, state: State, during: str, events: list[Event]) -> None:
    if not state.deck and state.ending is None:
        decided(state, "deck_out")  # the deck's last card is drawn before the night has begun to end
    if not state.deck and state.ending is None and game.opts.deck_out == "last_card":
        begin_night_end(game, state, DECK_OUT, during, events)


def _announce(game: LanternMothsGame, state: State, seat: int, card: int | None, events: list[Event]) -> None:
    """The Draw action's event; the end-of-round draw reports its cards per player instead."""
    name = None if card is None else game.pieces.kind_names[game.pieces.card_kind[card]]
    events.append(Event("draw", "lm.turn.draw", {"player": state.players[seat], "from": "deck", "card": name}))


def draw_from_deck(game: LanternMothsGame, state: State, seat: int, during: str,
                   events: list[Event]) -> int | None:
    """Move the deck's top moth card into ``seat``'s hand, laying any Dusk cards on the way.

    Returns the card, or None when no card could be drawn (the deck is empty, or the fourth Dusk
    card was laid and option fourth_dusk_replacement is off).
    """
    pieces = game.pieces
    deck = state.deck
    dusk_kind = pieces.dusk_kind
    laid = False  # a Dusk card laid by this drawing: with the deck now empty, lm.q19's situation
    while True:
        if not deck:
            if laid:
                decided(state, "dusk_on_empty_deck")
            if state.ending is None and game.opts.deck_out == "failed_draw":
                begin_night_end(game, state, DECK_OUT, during, events)
            if during == DURING_DRAW:
                _announce(game, state, seat, None, events)
            return None
        card = deck.pop()
        if pieces.card_kind[card] != dusk_kind:
            state.hands[seat].append(card)
            if during == DURING_DRAW:
                _announce(game, state, seat, card, events)
            _deck_emptied(game, state, during, events)
            return card
        if during == DURING_REFILL:
            decided(state, "dusk_in_refill")  # a Dusk card met in the end-of-round draw
        if during == DURING_REFILL and not game.opts.dusk_in_refill:
            # Designer-question alternative: only the Draw action lays Dusk cards.
            deck.append(card)
            if all(pieces.card_kind[c] == dusk_kind for c in deck):
                return None
            shuffle_cards(game, state, deck)
            events.append(Event("dusk-returned", "lm.night.dusk", {"player": state.players[seat]}))
            continue
        state.dusk_row.append(card)
        laid = True
        out = len(state.dusk_row)
        events.append(Event("dusk", "lm.night.dusk", {"player": state.players[seat], "during": during,
                                                      "out": out}))
        if out == pieces.ending_dusk:
            decided(state, "fourth_dusk_replacement")
            begin_night_end(game, state, FOURTH_DUSK, during, events)
            if not game.opts.fourth_dusk_replacement:
                if during == DURING_DRAW:
                    _announce(game, state, seat, None, events)
                _deck_emptied(game, state, during, events)
                return None
        _deck_emptied(game, state, during, events)


def shuffle_dusk_in(game: LanternMothsGame, state: State, events: list[Event]) -> None:
    state.deck.extend(state.set_aside)
    state.set_aside.clear()
    shuffle_cards(game, state, state.deck)
    state.dusk_shuffled = True
    events.append(Event("dusk-shuffled", "lm.night.shuffle", {"deck": len(state.deck)}))
