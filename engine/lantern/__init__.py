"""Lantern: a solo roll-and-write dice game over 8 zones (book ``lantern``).

``make_game(components, options)`` builds the rules from ``rules_src/lantern/components.yaml``;
``solve`` is the combination solver the engine uses for the loss rule and the site for its verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import narrate
from .actions import Action
from .combination import Combination, parse
from .game import BOOK_ID, LanternGame
from .options import DECISIONS, OPTIONS
from .policies import POLICIES
from .sheet import build_sheet
from .solver import Budget, Move, Plan, Report, Reroll, Solver, solve

BENCH_CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "loss-certain": {"loss_rule": "certain"},
    "loss-exhausted": {"loss_rule": "exhausted"},
    "six-wild-distinct": {"six_wild_distinct": True},
    "campfire-bonus": {"campfire_row_bonus": True},
}

# Option sets that bundle answers other than the text's: `rulepress analyze` never counts them as the text's game.
ANSWER_BUNDLES = ("loss-certain", "loss-exhausted", "six-wild-distinct", "campfire-bonus")


def make_game(components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> LanternGame:
    """The game for this component data and these option overrides (unknown ones raise DescriptionError)."""
    return LanternGame(components, options)


from .benchmark import bench_extra  # noqa: E402  (needs make_game above)

__all__ = ["BOOK_ID", "BENCH_CONFIGS", "bench_extra", "DECISIONS", "OPTIONS", "POLICIES", "Action", "Budget",
           "Combination", "LanternGame", "Move", "Plan", "Report", "Reroll", "Solver", "make_game", "narrate", "parse",
           "solve"]

# The play whose games a designer would recognise, for `rulepress questions --impact`.
IMPACT_POLICY = "solver"

# For `rulepress analyze`: the ways the adventure ends, and every component by the event payload key naming it.
END_RULES = ("ln.end.win", "ln.end.loss")


def inventory(components: Mapping[str, Any]) -> dict[str, list[int]]:
    sheet = build_sheet(components, six_wild_distinct=False)
    return {"zone": [zone.number for zone in sheet.zones], "die": list(range(1, 7))}
