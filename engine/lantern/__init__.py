"""Lantern: a solo roll-and-write dice game over 8 zones (book ``lantern``).

``ENGINE`` is the engine's one declaration (rulepress guide engine): the game built from
``rules_src/lantern/components.yaml``, its options and decisions, the solver policy, and what analysis needs.
``solve`` is the combination solver the engine uses for the loss rule and the site for its verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulepress.protocol import EngineSpec

from . import narrate, render, schema
from .actions import Action
from .benchmark import bench_extra
from .combination import Combination, parse
from .game import BOOK_ID, LanternGame
from .options import DECISIONS, OPTIONS
from .policies import POLICIES
from .sheet import build_sheet
from .solver import Budget, Move, Plan, Report, Reroll, Solver, solve


def make_game(components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> LanternGame:
    """The game for this component data and these option overrides (unknown ones raise DescriptionError)."""
    return LanternGame(components, options)


def inventory(components: Mapping[str, Any]) -> dict[str, list[int]]:
    """For `rulepress analyze`: every zone and die face, by the event payload key naming it."""
    sheet = build_sheet(components, six_wild_distinct=False)
    return {"zone": [zone.number for zone in sheet.zones], "die": list(range(1, 7))}


ENGINE = EngineSpec(
    book_id=BOOK_ID,
    make_game=make_game,
    min_num_players=1,
    max_num_players=1,
    chance_mode="explicit_stochastic",  # six dice, rolled through the state's Chance
    information="perfect_information",
    utility="solo",
    options=OPTIONS,
    decisions=DECISIONS,
    policies=POLICIES,
    default_policy="solver",  # the play a designer would recognise: random play loses at once
    bench_configs={
        "default": {},
        "loss-certain": {"loss_rule": "certain"},
        "loss-exhausted": {"loss_rule": "exhausted"},
        "six-wild-distinct": {"six_wild_distinct": True},
        "campfire-bonus": {"campfire_row_bonus": True},
    },
    # Option sets that bundle answers other than the text's: `rulepress analyze` never counts them as the text's game.
    answer_bundles=("loss-certain", "loss-exhausted", "six-wild-distinct", "campfire-bonus"),
    bench_extra=bench_extra,
    end_rules=("ln.end.win", "ln.end.loss"),  # the ways the adventure ends
    inventory=inventory,
    narration=narrate,
    notation=narrate.NOTATION,
    palette=render.PALETTE,
    action_schema=schema.ACTION_SCHEMA,
    state_schema=schema.STATE_SCHEMA,
)

__all__ = ["ENGINE", "Action", "Budget", "Combination", "LanternGame", "Move", "Plan", "Report", "Reroll", "Solver",
           "parse", "solve"]
