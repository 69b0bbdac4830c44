"""What each player sees (docs/ENGINE.md, "Hidden information"): the seed's face-down cards, seat by seat.

From the seed: a hand is its holder's (a card taken from the discard pile is shown to everyone first, so hands are
otherwise hidden); the deck lies face down; captured moths lie face down beside their lantern, "you may look at
your own; nobody looks at another player's", until the game is scored; garden tiles are laid face down until a
Flip turns one up.  Everything else lies face up: the garden's face-up tiles and their moths and wicks, the Dusk
cards laid in the middle, how many cards each hand, lantern and the deck hold.  The seed does not say whether the
cards under the discard pile's top card can be seen: ``deck.discard_pile`` in the component data keeps the
book's choice (question lm.q21).

What was shown to everyone stays known (the state's memory, rulepress/memory.py; decision ``remembered``, question
lm.q23, since the seed does not say what a player may remember): a card taken from the discard pile ("show the card
to everyone first") is known in its taker's hand until a card of its kind leaves that hand; the moths a wick takes
from a face-up tile are known, face down beside their lantern; a card discarded onto the pile is known in its place
there, though nobody searches the pile.  A view shows those in the hidden part they are in, before the rest
(``recall``), and a part dealt again keeps them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rulepress.basegame import BaseObserver
from rulepress.memory import recall_pile
from rulepress.protocol import HIDDEN

from .snapshot import result, snapshot
from .state import OVER, UNKNOWN_TILE, State

if TYPE_CHECKING:
    from .game import LanternMothsGame

HIDDEN_PARTS = {
    "hands": "a hand: its holder only (and a card everyone was shown going into it)",
    "deck": "the deck's order: nobody",
    "lanterns": "the moths face down beside a lantern: their keeper only, until the game is scored, but for those "
                "everyone saw a wick capture",
    "face-down tiles": "a garden tile still face down: nobody",
    "draws": "what shuffles and flips give next: nobody",
}
DISCARD_PART = {"discard pile": "the cards under the discard pile's top card: nobody (question lm.q21)"}


def _hide_score(score: Mapping[str, Any]) -> dict[str, Any]:
    """A score counted from face-down moths: only how many there are shows."""
    return {key: score[key] if key == "moths" else HIDDEN for key in score}


def _names(game: LanternMothsGame, cards: list[int]) -> list[str]:
    pieces = game.pieces
    return [pieces.kind_names[pieces.card_kind[card]] for card in cards]


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
            shown["hands"][name] = self.recall(state, seat, f"hands.{name}", shown["hands"][name])
            if not scored and shown["lanterns"][name]:  # an empty lantern shows that it is empty
                lantern = shown["lanterns"][name] = self.recall(state, seat, f"lanterns.{name}",
                                                                shown["lanterns"][name])
                if HIDDEN in lantern:  # every moth in it known: so is its score
                    shown["scores"][name] = _hide_score(shown["scores"][name])
        deck = shown["deck"]
        deck["cards"] = self.hide(deck["cards"])
        deck["top"] = HIDDEN if deck["count"] else None
        if self.discard_top_only:
            pile = shown["discard"]
            pile["cards"] = recall_pile(state, seat, "discard", pile["cards"])
        for place in shown["garden"].values():
            if place["face"] == "down":
                place["tile"] = HIDDEN
        return shown

    def event_view(self, event: Mapping[str, Any], seat: str) -> dict[str, Any]:
        """A card drawn from the deck is its drawer's, at a Draw or at the end of the round; every other event
        happens face up."""
        seen = dict(event)
        if seen.get("player") != seat:
            if seen.get("kind") == "draw" and seen.get("from") == "deck":
                seen["card"] = HIDDEN
            elif seen.get("kind") == "refill":
                seen["cards"] = self.hide(seen.get("cards", []))
        return seen

    def result_view(self, state: State, seat: str) -> dict[str, Any]:
        """The scores count face-down moths: before the game is scored a player knows only their own, and those of a
        lantern whose every moth they saw captured."""
        said = result(self.game, state)
        if state.phase != OVER:
            for s, name in enumerate(state.players):
                if name in self.others(state.players, seat) and state.lanterns[s] and \
                        HIDDEN in self.recall(state, seat, f"lanterns.{name}", _names(self.game, state.lanterns[s])):
                    said["scores"][name] = _hide_score(said["scores"][name])
        return said

    # --- dealing again what a seat cannot see -------------------------------------------------------------

    def redraw(self, state: State, seat: str, part: str, rng: random.Random) -> None:
        unseen = [s for s, name in enumerate(state.players) if name in self.others(state.players, seat)]
        if part == "hands":
            self._deal_with_deck(state, [self._unknown(state, seat, f"hands.{state.players[s]}", state.hands[s])
                                         for s in unseen], rng)
        elif part == "lanterns" and state.phase != OVER:
            self._deal_with_deck(state, [self._unknown(state, seat, f"lanterns.{state.players[s]}",
                                                       state.lanterns[s]) for s in unseen], rng)
        elif part == "deck":
            rng.shuffle(state.deck)
        elif part == "discard pile":
            pile = recall_pile(state, seat, "discard", _names(self.game, state.discard[::-1]))
            under = state.discard[:pile.count(HIDDEN)]  # the bottom of the pile, which the seat never saw
            rng.shuffle(under)
            state.discard[:len(under)] = under
        elif part == "face-down tiles":
            places = [c for c, up in enumerate(state.face_up) if not up and state.tile_at[c] != UNKNOWN_TILE]
            tiles = [state.tile_at[c] for c in places] + state.tile_pool
            rng.shuffle(tiles)
            for c, tile in zip(places, tiles, strict=False):
                state.tile_at[c] = tile
            state.tile_pool[:] = tiles[len(places):]
        elif part == "draws":
            state.chance.rng.seed(rng.getrandbits(64))

    def _unknown(self, state: State, seat: str, place: str, zone: list[int]) -> tuple[list[int], int]:
        """``zone`` (a hand, a lantern), rearranged in place so that the cards ``seat`` knows are there come first,
        and how many those are: the rest is what a redraw may deal again."""
        names = _names(self.game, zone)
        kept = []
        for name in self.recall(state, seat, place, names):
            if name == HIDDEN:
                break
            at = names.index(name)
            kept.append(zone.pop(at))
            names.pop(at)
        zone[:0] = kept
        return zone, len(kept)

    def _deal_with_deck(self, state: State, zones: list[tuple[list[int], int]], rng: random.Random) -> None:
        """Deal again the moths of the deck and of ``zones`` (each a hand or a lantern with how many of its first
        cards the seat knows, which stay): each zone keeps its size, each Dusk card in the deck its place."""
        dusk = self.game.pieces.dusk_kind
        kinds = self.game.pieces.card_kind
        slots = [i for i, card in enumerate(state.deck) if kinds[card] != dusk]
        pool = [card for zone, known in zones for card in zone[known:]] + [state.deck[i] for i in slots]
        rng.shuffle(pool)
        for zone, known in zones:
            size = len(zone) - known
            zone[known:], pool = pool[:size], pool[size:]
        for i, card in zip(slots, pool, strict=True):
            state.deck[i] = card
