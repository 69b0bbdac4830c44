"""Last Lantern: a cooperative polyomino tile-laying game for 2-4 players (engine for rulepress).

``ENGINE`` is the engine's one declaration (rulepress guide engine).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulepress.protocol import EngineSpec

from . import narrate, render, schema
from .game import BOOK_ID, LastLanternGame
from .options import DECISIONS, OPTIONS
from .policies import POLICIES


def make_game(components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> LastLanternGame:
    """A game of Last Lantern built from the book's component data."""
    return LastLanternGame(components, options)


def inventory(components: Mapping[str, Any]) -> dict[str, list[str]]:
    """For `rulepress analyze`: every component, keyed by the event payload key that names it.  Tiles (Tree, Ability
    and the Glow-shrooms' Mushroom tiles) are named by ``tile``, Serpent tiles by ``serpent``, Familiars by
    ``familiar`` and Firefly colours by ``colour``: a component no event of any simulated game names is unused."""
    from .pieces import read_tiles
    from .state import COLOURS, LOCATIONS

    serpents = components["challenges"]["serpent_tiles"]["list"]
    return {"tile": list(read_tiles(components, True)), "serpent": [str(entry["id"]) for entry in serpents],
            "familiar": list(LOCATIONS), "colour": list(COLOURS)}


ENGINE = EngineSpec(
    book_id=BOOK_ID,
    make_game=make_game,
    min_num_players=2,
    max_num_players=4,
    chance_mode="explicit_stochastic",  # the tile bag, the Firefly bag and the draws from them
    information="imperfect_information",  # the hidden choices and the bags' next draws (observer.py)
    utility="identical",  # cooperative: the players win or lose together
    options=OPTIONS,
    decisions=DECISIONS,
    policies=POLICIES,
    default_policy="cooperative",  # the play a designer would recognise, for `rulepress questions --impact`
    bench_configs={
        "base": {},
        "glow-shrooms": {"glow": True},
        "blossoms": {"blossoms": True},
        "eerie-lights": {"eerie": True},
        "moving-branches": {"branches": True},
        "frozen-lake": {"lake": True},
        "basilisk": {"basilisk": True},
    },
    # Every way the game ends (the challenges' losses need their option sets).  The empty tile bag is left out: its
    # loss names ll.fog.draw, which every ordinary draw names too.
    end_rules=("ll.end.victory", "ll.lantern.loss", "ll.astray.loss", "ll.challenge.eerie.loss",
               "ll.challenge.blossoms.loss", "ll.challenge.lake.loss", "ll.challenge.basilisk.loss",
               "ll.challenge.branches.loss"),
    inventory=inventory,
    narration=narrate,
    notation=narrate.NOTATION,
    palette=render.PALETTE,
    action_schema=schema.ACTION_SCHEMA,
    state_schema=schema.STATE_SCHEMA,
)

__all__ = ["ENGINE", "LastLanternGame"]
