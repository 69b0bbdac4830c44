"""What each player sees (docs/ENGINE.md, "Hidden information"): the seed's face-down cards, seat by seat.

From the seed: a hand is its holder's (a card taken from the discard pile is shown to everyone first, so hands are
otherwise hidden); the deck lies face down; captured moths lie face down beside their lantern, "you may look at
your own; nobody looks at another player's", until the game is scored; garden tiles are laid face down until a
Flip turns one up.  Everything else lies face up: the garden's face-up tiles and their moths and wicks, the Dusk
cards laid in the middle, how many cards each hand, lantern and the deck hold.  The seed does not say whether the
cards under the discard pile's top card can be seen: ``deck.discard_pile`` in the component data keeps the
book's choice (question lm.q21).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rulepress.basegame import BaseObserver
from rulepress.protocol import HIDDEN

from .snapshot import result, snapshot
from .state import OVER, UNKNOWN_TILE, State

if TYPE_CHECKING:
    from .game import LanternMothsGame

HIDDEN_PARTS = {
    "hands": "a hand: its holder only",
    "deck": "the deck's order: nobody",
    "lanterns": "the moths face down beside a lantern: their keeper only, until the game is scored",
    "face-down tiles": "a garden tile still face down: nobody",
    "draws": "what shuffles and flips give next: nobody",
}
DISCARD_PART = {"discard pile": "the cards under the discard pile's top card: nobody (question lm.q21)"}


def _hide_score(score: Mapping[str, Any]) -> dict[str, Any]:
    """A score counted from face-down moths: only how many there are shows."""
    return {key: score[key] if key == "moths" else HIDDEN for key in score}


class LanternMothsObserver(BaseObserver):
    def __init__(self, game: LanternMothsGame) -> None:
        super().__init__(game)
        seen = game.components.get("deck", {}).get("discard_pile", {}).get("seen", "top")
        self.discard_top_only = seen == "top"
        self.hidden = {**HIDDEN_PARTS, **(DISCARD_PART if self.discard_top_only else {})}

    # --- what a seat sees --------------------------------------------------------------------------------

    def view(self, state: State, seat: str) -> dict[str, Any]:
        game: LanternMothsGame = self.game
        shown = snapshot(game, state)
        scored = state.phase == OVER
        for name in self.others(state.players, seat):
            shown["hands"][name] = self.hide(shown["hands"][name])
            if not scored and shown["lanterns"][name]:  # an empty lantern shows that it is empty
                shown["lanterns"][name] = self.hide(shown["lanterns"][name])
                shown["scores"][name] = _hide_score(shown["scores"][name])
        deck = shown["deck"]
        deck["cards"] = self.hide(deck["cards"])
        deck["top"] = HIDDEN if deck["count"] else None
        if self.discard_top_only:
            pile = shown["discard"]
            pile["cards"] = pile["cards"][:1] + self.hide(pile["cards"][1:])
        for place in shown["garden"].values():
            if place["face"] == "down":
                place["tile"] = HIDDEN
        return shown

    def event_view(self, event: Mapping[str, Any], seat: str) -> dict[str, Any]:
        """A card drawn from the deck is its drawer's; every other event happens face up."""
        seen = dict(event)
        if seen.get("kind") == "draw" and seen.get("from") == "deck" and seen.get("player") != seat:
            seen["card"] = HIDDEN
        return seen

    def result_view(self, state: State, seat: str) -> dict[str, Any]:
        """The scores count face-down moths: before the game is scored a player sees only their own."""
        said = result(self.game, state)
        if state.phase != OVER:
            for s, name in enumerate(state.players):
                if name in self.others(state.players, seat) and state.lanterns[s]:
                    said["scores"][name] = _hide_score(said["scores"][name])
        return said

    # --- dealing again what a seat cannot see -------------------------------------------------------------

    def redraw(self, state: State, seat: str, part: str, rng: random.Random) -> None:
        unseen = [s for s, name in enumerate(state.players) if name in self.others(state.players, seat)]
        if part == "hands":
            self._deal_with_deck(state, [state.hands[s] for s in unseen], rng)
        elif part == "lanterns" and state.phase != OVER:
            self._deal_with_deck(state, [state.lanterns[s] for s in unseen], rng)
        elif part == "deck":
            rng.shuffle(state.deck)
        elif part == "discard pile" and len(state.discard) > 1:
            under = state.discard[:-1]
            rng.shuffle(under)
            state.discard[:-1] = under
        elif part == "face-down tiles":
            places = [c for c, up in enumerate(state.face_up) if not up and state.tile_at[c] != UNKNOWN_TILE]
            tiles = [state.tile_at[c] for c in places] + state.tile_pool
            rng.shuffle(tiles)
            for c, tile in zip(places, tiles, strict=False):
                state.tile_at[c] = tile
            state.tile_pool[:] = tiles[len(places):]
        elif part == "draws":
            state.chance.rng.seed(rng.getrandbits(64))

    def _deal_with_deck(self, state: State, zones: list[list[int]], rng: random.Random) -> None:
        """Deal the moths of ``zones`` and of the deck again: each zone keeps its size, each Dusk card in the deck
        its place."""
        dusk = self.game.pieces.dusk_kind
        kinds = self.game.pieces.card_kind
        slots = [i for i, card in enumerate(state.deck) if kinds[card] != dusk]
        pool = [card for zone in zones for card in zone] + [state.deck[i] for i in slots]
        rng.shuffle(pool)
        for zone in zones:
            zone[:], pool = pool[:len(zone)], pool[len(zone):]
        for i, card in zip(slots, pool, strict=True):
            state.deck[i] = card
