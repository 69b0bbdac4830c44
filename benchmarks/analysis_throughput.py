"""What a full ``rulepress analyze`` at 100,000 games per configuration costs, and the goal it is held to.

Every configuration the analysis plays (``rulepress.analyze.analysis.configs``: each policy, each answer of each
question with an option, each option set) is played through the analysis's own path (``observe_chunk``: the
tally, the refusal probes, the decision counts), from the seeds the analysis uses, after a warm-up (the Lantern
solver's tables fill in its first thousand games or so; a 100,000-game run spends nearly all its time warm).  The
time is CPU time of this process, the median over rounds.

The goal (issue 20): a full analysis of each book at 100,000 games per configuration in at most 30 minutes on this
machine (a local cluster of one worker per core, ``default_workers``).  The estimate is the CPU seconds per game of
each configuration times 100,000, summed, over the workers (chunks of 100 games share the workers evenly).  It is
also given against OpenSpiel's Python tic-tac-toe measured in the same run (CPU seconds per game of the analysis
over the reference's µs per action: "reference actions per game"), so that a loaded or faster machine reads the same
verdict: the goal is ``REFERENCE_US`` µs per reference action, what the reference takes here on a quiet machine.
A book over the goal needs that many machines like this one, all working for one scheduler (``--scheduler``).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from rulepress.analyze.analysis import configs
from rulepress.analyze.cluster import default_workers
from rulepress.analyze.plan import COMPETENT_BUDGET, COMPETENT_GAMES, who_plays
from rulepress.analyze.simulate import observe_chunk
from rulepress.verify.gate import load_checked_book

GAMES_PER_CONFIG = 100_000
GOAL_SECONDS = 30 * 60
REFERENCE_US = 17.7  # OpenSpiel's python_tic_tac_toe, µs per action, on this machine when quiet (2026-12-01)
WARM_UP_GAMES = 600


def _counts(check) -> list[int]:  # type: ignore[no-untyped-def]
    players = check.book.data["players"]
    return list(range(int(players["min"]), int(players["max"]) + 1)) if isinstance(players, dict) else [1]


def per_game_seconds(root: Path, book_id: str, games: int, rounds: int) -> dict[str, float]:
    """Median CPU seconds per game of each configuration the analysis plays (by its label)."""
    check = load_checked_book(root, book_id)
    counts = _counts(check)
    every = configs(check)

    def chunk(config, indices: range) -> None:  # type: ignore[no-untyped-def]
        observe_chunk(str(root), check.book.engine_package, check.book.components, config.options, config.policy,
                      0, config.label, indices, counts)

    for config in every:  # warm-up: imports, each configuration's game, the caches every configuration shares
        chunk(config, range(10**6, 10**6 + max(2, WARM_UP_GAMES // len(every))))
    times: dict[str, list[float]] = {c.label: [] for c in every}
    for number in range(rounds):
        for config in every:  # rounds interleave the configurations, so a change of load reaches them alike
            start = time.process_time()
            chunk(config, range(number * games, (number + 1) * games))
            times[config.label].append((time.process_time() - start) / games)
    return {label: statistics.median(values) for label, values in times.items()}


def report(root: Path, books: list[str], reference: Callable[[int, int], int] | None, games: int = 100,
           rounds: int = 3) -> list[str]:
    workers = default_workers()
    lines = [f"{workers} workers (one per core); {GAMES_PER_CONFIG:,} games per configuration; goal "
             f"<= {GOAL_SECONDS // 60} min per book"]
    reference_us = None
    if reference is not None:
        samples = []
        for number in range(rounds):
            start = time.process_time()
            actions = reference(number * 2000, 2000)
            samples.append((time.process_time() - start) / actions * 1e6)
        reference_us = statistics.median(samples)
        lines.append(f"reference (OpenSpiel python_tic_tac_toe): {reference_us:.1f} µs/action in this run "
                     f"(quiet machine: {REFERENCE_US} µs)")
    for book_id in books:
        seconds = per_game_seconds(root, book_id, games, rounds)
        total = sum(seconds.values())
        estimate = total * GAMES_PER_CONFIG / workers
        slowest = max(seconds, key=seconds.__getitem__)
        lines.append(f"{book_id}: {len(seconds)} configurations, {len(seconds) / total:.0f} games/s on average per "
                     f"core (slowest: {slowest}, {1 / seconds[slowest]:.0f} games/s)")
        if reference_us is not None:
            actions = total / (reference_us * 1e-6)  # reference actions per game, summed over configurations
            estimate = actions * REFERENCE_US * 1e-6 * GAMES_PER_CONFIG / workers
            lines.append(f"    {actions / len(seconds):,.0f} reference actions per game on average")
        verdict = "PASS" if estimate <= GOAL_SECONDS else (
            f"FAIL: needs {math.ceil(estimate / GOAL_SECONDS)} machines like this one (--scheduler)")
        lines.append(f"    full analysis: {estimate / 60:.0f} min estimated (goal <= {GOAL_SECONDS // 60}): {verdict}")
        for label, value in seconds.items():
            lines.append(f"      {label}: {1 / value:.0f} games/s")
    return lines


def competent_report(root: Path, books: list[str], games: int = 2) -> list[str]:
    """What the default analysis's competent play costs (``analyze``'s default players: the search alone, against
    random players, and in each challenge): each competent configuration's CPU seconds per game over ``games``
    games (a sample: a search a decision costs hundreds of random games), its games per second, and the
    competent part of a default analysis estimated from them, at its first games and at its cap, over the
    workers."""
    workers = default_workers()
    lines = [f"{workers} workers; competent configurations play {COMPETENT_GAMES} games, up to {COMPETENT_BUDGET} "
             f"while a finding is undecided; measured over {games} games each (a sample, extrapolated)"]
    for book_id in books:
        check = load_checked_book(root, book_id)
        counts = _counts(check) if check.book.data.get("players") else [2]
        mine = [c for c in configs(check, who_plays(check, None, competent_too=True)) if c.competent]
        if not mine:
            lines.append(f"{book_id}: no competent player (OpenSpiel is not installed)")
            continue
        seconds = {}
        for config in mine:
            start = time.process_time()
            observe_chunk(str(root), check.book.engine_package, check.book.components, config.options,
                          config.policy, 0, config.label, range(games), counts)
            seconds[config.label] = (time.process_time() - start) / games
        first = sum(seconds.values()) * COMPETENT_GAMES / workers
        cap = sum(seconds.values()) * COMPETENT_BUDGET / workers
        verdict = "PASS" if cap <= GOAL_SECONDS else ("PASS at its first games" if first <= GOAL_SECONDS else "FAIL")
        lines.append(f"{book_id}: {len(mine)} competent configurations: {first / 60:.1f} min at "
                     f"{COMPETENT_GAMES} games each, {cap / 60:.1f} min at {COMPETENT_BUDGET} (goal <= "
                     f"{GOAL_SECONDS // 60}): {verdict}")
        for label, value in seconds.items():
            lines.append(f"      {label}: {1 / value:.2f} games/s ({value:.1f} s a game)")
    return lines
