"""What each player sees: their own card, never the one set aside, and the other's only after a showdown.

On the model of OpenSpiel's KuhnObserver: ``information_state`` is its InformationStateString (the seat's card
as OpenSpiel numbers it, 0 for the Jack to 2 for the King, then the betting as p and b), so an example checks the
recorded playthrough's strings as they are.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from rulepress.basegame import BaseObserver
from rulepress.protocol import HIDDEN


class KuhnObserver(BaseObserver):
    hidden = {"cards": "a dealt card: its holder only, until a showdown; the card set aside: nobody"}

    def view(self, state: Any, seat: str) -> dict[str, Any]:
        shown = self.game.snapshot(state)
        if not state.shown:
            for player in self.others(state.players, seat):
                shown["cards"][player] = HIDDEN
        shown["set_aside"] = HIDDEN
        return shown

    def information_state(self, state: Any, seat: str) -> str:
        """OpenSpiel's InformationStateString for ``seat``: ``1pb`` is the Queen, a pass, then a bet."""
        return str(self.game.deck.index(state.cards[seat])) + "".join(state.history)

    def event_view(self, event: Mapping[str, Any], seat: str) -> dict[str, Any]:
        """A dealt card is its holder's (the showdown's event tells both)."""
        seen = dict(event)
        if seen.get("kind") == "deal" and seen.get("player") != seat:
            seen["card"] = HIDDEN
        return seen

    def redraw(self, state: Any, seat: str, part: str, rng: random.Random) -> None:
        """Deal again the cards ``seat`` cannot see: the one set aside and, before a showdown, the other's."""
        unseen = [] if state.shown else [player for player in self.others(state.players, seat)]
        cards = [state.cards[player] for player in unseen] + [state.aside]
        rng.shuffle(cards)
        for player, card in zip(unseen, cards, strict=False):
            state.cards[player] = card
        state.aside = cards[-1]
