"""Last Lantern: a cooperative polyomino tile-laying game for 2-4 players (engine for rulepress)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import narrate
from .game import BOOK_ID, LastLanternGame
from .options import DECISIONS, OPTIONS
from .policies import POLICIES

__all__ = ["BOOK_ID", "DECISIONS", "OPTIONS", "BENCH_CONFIGS", "POLICIES", "make_game", "narrate"]

BENCH_CONFIGS: dict[str, dict[str, Any]] = {
    "base": {},
    "glow-shrooms": {"glow": True},
    "blossoms": {"blossoms": True},
    "eerie-lights": {"eerie": True},
    "moving-branches": {"branches": True},
    "frozen-lake": {"lake": True},
    "basilisk": {"basilisk": True},
}


def make_game(components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> LastLanternGame:
    """A game of Last Lantern built from the book's component data."""
    return LastLanternGame(components, options)

# The play whose games a designer would recognise, for `rulepress questions --impact`.
IMPACT_POLICY = "cooperative"

# For `rulepress analyze`: every way the game ends (the challenges' losses need their option sets).  The empty
# tile bag is left out: its loss names ll.fog.draw, which every ordinary draw names too.
END_RULES = ("ll.end.victory", "ll.lantern.loss", "ll.astray.loss", "ll.challenge.eerie.loss",
             "ll.challenge.blossoms.loss", "ll.challenge.lake.loss", "ll.challenge.basilisk.loss",
             "ll.challenge.branches.loss")


def inventory(components: Mapping[str, Any]) -> dict[str, list[str]]:
    """For `rulepress analyze`: every component, keyed by the event payload key that names it.  Tiles (Tree, Ability
    and the Glow-shrooms' Mushroom tiles) are named by ``tile``, Serpent tiles by ``serpent``, Familiars by
    ``familiar`` and Firefly colours by ``colour``: a component no event of any simulated game names is unused."""
    from .pieces import read_tiles
    from .state import COLOURS, LOCATIONS

    serpents = components["challenges"]["serpent_tiles"]["list"]
    return {"tile": list(read_tiles(components, True)), "serpent": [str(entry["id"]) for entry in serpents],
            "familiar": list(LOCATIONS), "colour": list(COLOURS)}
