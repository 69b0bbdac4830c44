"""What each player sees (docs/ENGINE.md, "Hidden information"), from the seed.

Almost everything in Last Lantern lies open on the table: the paths, their tiles and Fireflies, the tiles drawn
beside the Familiar locations (placed face up), the Path Astray track, the supply, the Familiars.  Hidden are:

* each player's choice on their Character wheel, from the moment it is made until "the Character wheels are
  revealed" (Voices in the Fog: the players choose "without communicating, simultaneously"); that a player has
  chosen shows (the wheels are revealed "once ready");
* what the two cloth bags give next: the tiles are drawn "randomly", the Fireflies "one by one" from a bag nobody
  looks into.

What the bags hold is not hidden the same way: every tile and Firefly that goes in or comes out is seen, and the
rest of each lies on the table, so their contents can be counted.  Whether the book shows the Firefly bag's
colours (as its diagrams do) is kept as data, ``fireflies.bag.seen`` in the component data (question ll.q43):
``counted`` shows them, ``hidden`` shows only how many Fireflies the bag holds.

Nothing shown is hidden again, so a view needs no memory; a seat's information state (the base class's, from the
state's memory: rulepress/memory.py) holds its own choices and, once the wheels are revealed, everyone's.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rulepress.basegame import BaseObserver
from rulepress.protocol import HIDDEN

from .state import COLOURS, State

if TYPE_CHECKING:
    from .game import LastLanternGame

HIDDEN_PARTS = {
    "choices": "a Character wheel's choice: its owner only, until the wheels are revealed",
    "draws": "what the tile bag and the Firefly bag give next: nobody",
}
BAG_PART = {"firefly bag": "the colours in the Firefly bag: nobody (question ll.q43)"}


def bag_shown(components: Mapping[str, Any]) -> bool:
    """Whether the book shows the Firefly bag's colours (``fireflies.bag.seen``: ``counted``, the default)."""
    bag = components.get("fireflies", {}).get("bag", {})
    return not isinstance(bag, Mapping) or bag.get("seen", "counted") == "counted"


class LastLanternObserver(BaseObserver):
    def __init__(self, game: LastLanternGame) -> None:
        super().__init__(game)
        self.bag_shown = bag_shown(game.components)
        self.hidden = {**HIDDEN_PARTS, **({} if self.bag_shown else BAG_PART)}

    def view(self, state: State, seat: str) -> dict[str, Any]:
        game: LastLanternGame = self.game
        shown = game.snapshot(state)
        if state.phase == "choose":
            for name in self.others(state.players, seat):
                player = shown["players"][name]
                if "choice" in player:
                    player["choice"] = HIDDEN
        if not self.bag_shown:
            shown["bag"] = self.hide(shown["bag"])
        return shown

    def event_view(self, event: Mapping[str, Any], seat: str) -> dict[str, Any]:
        """A choice is its chooser's until the reveal (whose event tells every choice)."""
        seen = dict(event)
        if seen.get("kind") == "chose" and seen.get("player") != seat:
            seen["location"] = HIDDEN
        return seen

    def redraw(self, state: State, seat: str, part: str, rng: random.Random) -> None:
        if part == "choices" and state.phase == "choose":
            locations = list(self.game.rules(state.n).locations)
            for p, name in enumerate(state.players):
                if state.choices[p] is not None and name in self.others(state.players, seat):
                    state.choices[p] = rng.choice(locations)
        elif part == "draws":
            rng.shuffle(state.tile_bag)
            state.chance.rng.seed(rng.getrandbits(64))
        elif part == "firefly bag":
            total = sum(state.bag.values())
            colours = [c for c in COLOURS if c in state.bag] or ["black", "yellow"]
            counts = dict.fromkeys(colours, 0)
            for _ in range(total):
                counts[rng.choice(colours)] += 1
            state.bag = counts
