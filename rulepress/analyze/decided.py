"""How often each engine decision mattered in simulated play: the analysis's table of ``DECISIONS``.

An engine marks where each of its decisions (:class:`rulepress.protocol.Decision`) takes effect with
``decided(state, id)``; a simulated game's tally counts the games in which each did (``Tally.decided``).  This table
puts them beside the decision's question, so a designer reads "lm.q20 mattered in 5 of 15,000 games" or "never".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulepress.analyze.tally import Tally
from rulepress.protocol import EngineSpec
from rulepress.verify.decisions import declared


def decision_table(engine: EngineSpec, runs: Sequence[tuple[str, Tally]]) -> list[dict[str, Any]]:
    """One row per engine decision, in the engine's order: its id, question, rules, what the engine does, the
    option (if any), the games in which it took effect per configuration label, and over every configuration."""
    rows = []
    total = sum(tally.games for _, tally in runs)
    for decision in declared(engine):
        per_config = {label: tally.decided[decision.id] for label, tally in runs}
        games = sum(per_config.values())
        rows.append({"id": decision.id, "question": decision.question, "rules": list(decision.rules),
                     "decides": decision.decides, "option": decision.option, "games": games, "of": total,
                     "share": games / total if total else 0.0, "never": games == 0, "per_config": per_config})
    return rows
