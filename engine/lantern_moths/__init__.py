"""Lantern Moths (v4): the executable rules of rules_src/lantern-moths/."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import narrate
from .game import BOOK_ID, LanternMothsGame
from .options import DECISIONS, OPTIONS
from .policies import greedy


def make_game(components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> LanternMothsGame:
    """A game built from the book's component data; unknown options or values raise DescriptionError."""
    return LanternMothsGame(components, options)


# Option sets worth benchmarking and simulating: the text's assumptions, and every alternative at once.
BENCH_CONFIGS: dict[str, dict[str, Any]] = {
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
}

# Option sets that bundle answers other than the text's: `rulepress analyze` plays them but never counts them as the
# text's game (a rule that fires only under them is still reported as nearly dead).
ANSWER_BUNDLES = ("alternatives",)

POLICIES: dict[str, Callable[[Any, Any, Any], Any]] = {"greedy": greedy}

__all__ = ["BOOK_ID", "BENCH_CONFIGS", "DECISIONS", "OPTIONS", "POLICIES", "LanternMothsGame", "make_game", "narrate"]

# The play whose games a designer would recognise, for `rulepress questions --impact`.
IMPACT_POLICY = "greedy"

# For `rulepress analyze`: the ways the night ends, and every component by the event payload key naming it.
END_RULES = ("lm.night.fourth", "lm.night.deck-out")


def inventory(components: Mapping[str, Any]) -> dict[str, list[str]]:
    pieces = make_game(components).pieces
    # Dusk cards are not named in a "card" payload: their own events (rule lm.night.dusk) measure them.
    return {"card": [k for k in pieces.kind_names if k != "dusk"], "tile": list(pieces.cell_names)}
