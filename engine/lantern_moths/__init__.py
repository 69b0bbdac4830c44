"""Lantern Moths (v4): the executable rules of rules_src/lantern-moths/.

``ENGINE`` is the engine's one declaration (rulepress guide engine).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulepress.protocol import EngineSpec

from . import narrate, render, schema
from .game import BOOK_ID, LanternMothsGame
from .options import DECISIONS, OPTIONS
from .policies import greedy


def make_game(components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> LanternMothsGame:
    """A game built from the book's component data; unknown options or values raise DescriptionError."""
    return LanternMothsGame(components, options)


def inventory(components: Mapping[str, Any]) -> dict[str, list[str]]:
    """For `rulepress analyze`: every card kind and tile, by the event payload key naming it."""
    pieces = make_game(components).pieces
    # Dusk cards are not named in a "card" payload: their own events (rule lm.night.dusk) measure them.
    return {"card": [k for k in pieces.kind_names if k != "dusk"], "tile": list(pieces.cell_names)}


ENGINE = EngineSpec(
    book_id=BOOK_ID,
    make_game=make_game,
    min_num_players=2,
    max_num_players=4,
    chance_mode="explicit_stochastic",  # the deck's shuffles and the tiles under face-down places
    information="imperfect_information",  # hands, the deck, face-down lanterns and tiles (observer.py)
    utility="general_sum",  # each player scores their own moths
    options=OPTIONS,
    decisions=DECISIONS,
    policies={"greedy": greedy},
    default_policy="greedy",  # the play a designer would recognise, for `rulepress questions --impact`
    # Option sets worth benchmarking and simulating: the text's assumptions, and every alternative at once.
    bench_configs={
        "default": {},
        "alternatives": {
            "flip_adjacency": "diagonal",
            "dusk_in_refill": False,
            "refill_night_end": "next_round",
            "ghost_on_full_tile": True,
            "ghost_in_sets": True,
            "fourth_dusk_replacement": False,
            "discard_source": "hand_limit",
            "ghost_block": "while_on_tile",
            "refill_order": "card_by_card",
            "deck_out": "failed_draw",
            "grey_tile": "middle",
        },
    },
    # Bundles answers other than the text's: `rulepress analyze` plays it but never counts it as the text's game (a
    # rule that fires only under it is still reported as nearly dead).
    answer_bundles=("alternatives",),
    end_rules=("lm.night.fourth", "lm.night.deck-out"),  # the ways the night ends
    inventory=inventory,
    narration=narrate,
    notation=narrate.NOTATION,
    palette=render.PALETTE,
    action_schema=schema.ACTION_SCHEMA,
    state_schema=schema.STATE_SCHEMA,
)

__all__ = ["ENGINE", "LanternMothsGame"]
