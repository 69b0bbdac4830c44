"""The solver's cost per call, for `nox -s bench` (engine throughput and win rates are measured there)."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

from .solver import Budget, Solver


def measure_solver(game: Any, calls: int = 2000) -> dict[str, float]:
    """µs per call of the full report (plan and re-roll odds), cold and warm, and of the engine's loss test."""
    rng = random.Random(7)
    zones = [z for z in game.sheet.zones if z.combination is not None]
    positions = []
    for _ in range(calls):
        zone = rng.choice(zones)
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(6)))
        positions.append((dice, zone.combination, Budget(*(rng.randint(0, 4) for _ in range(4)))))
    solver = Solver(game.solver.limit)  # cold caches: the first call per position pays for them
    timings = {}
    for name, method in (("solve_us_cold", solver.solve), ("solve_us_warm", solver.solve),
                         ("possible_us_warm", solver.possible)):
        start = time.perf_counter()
        for dice, combination, budget in positions:
            method(dice, combination, budget)
        timings[name] = round((time.perf_counter() - start) / calls * 1e6, 2)
    return timings


def bench_extra(components: Mapping[str, Any]) -> list[str]:
    """Extra lines for `nox -s bench`: the solver's cost per call."""
    from .game import LanternGame

    timings = measure_solver(LanternGame(components))
    return [f"solver: full report {timings['solve_us_cold']} µs/call cold, {timings['solve_us_warm']} µs/call warm; "
            f"loss test {timings['possible_us_warm']} µs/call"]
