"""Engine speed against a reference measured in the same run: OpenSpiel's pure-Python tic-tac-toe.

The reference is ``open_spiel/python/games/tic_tac_toe.py`` as the ``open_spiel`` wheel ships it (``nox -s bench``
installs the wheel; the test suite never needs it), played through ``pyspiel`` exactly as its own examples play a
game: ``new_initial_state``, then ``legal_actions`` and ``apply_action`` until ``is_terminal``, one uniformly random
legal action at a time.  Our engines are played the same way (``simulate.play`` with ``random_policy``), from a full
setup each game, at each player count the book allows.

Rounds interleave the reference and every engine, so that a change in the machine's load reaches all of them
alike; a round's ratio is an engine's µs per action over the reference's in that round, and each figure is the
median over rounds.  Time is the CPU time of this process (``time.process_time``), so work of other processes on a
shared machine weighs less than in wall-clock time; the load average is printed before and after.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rulepress.analyze.simulate import play, random_policy
from rulepress.verify.gate import load_checked_book

# The goals of issue 18 ("the base must cost nothing"), as a ratio to the reference's µs per action.  Lantern Moths
# "no slower than today": 0.65x, its ratio measured this way before the engines moved onto the base (0.5x in the
# sitting that set the goals, where OpenSpiel's move took 23-26 µs; the open_spiel 2.0.2 wheel here takes 17-18).
GOALS = {"tic-tac-toe": 0.5, "lantern": 0.5, "last-lantern": 1.0, "lantern-moths": 0.65}
# CPU seconds of play each before the first round: imports, the allocator, and the Lantern solver's tables, which
# fill in its first thousand games or so (the first round is printed apart, as "cold", to show what that costs).
WARM_UP = 1.5


@dataclass
class Contender:
    name: str
    run: Callable[[int, int], int]  # (first seed, games) -> actions played
    games: int  # per round


def openspiel_tic_tac_toe() -> Callable[[int, int], int] | None:
    """Random play of OpenSpiel's Python tic-tac-toe, or None when the ``open_spiel`` wheel is not installed."""
    try:
        import pyspiel
        from open_spiel.python.games import tic_tac_toe  # noqa: F401  (registers python_tic_tac_toe)
    except ImportError:
        return None
    game = pyspiel.load_game("python_tic_tac_toe")

    def run(first: int, games: int) -> int:
        actions = 0
        for seed in range(first, first + games):
            rng = random.Random(seed)
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                actions += 1
        return actions

    return run


def engine_player(root: Path, book_id: str) -> Callable[[int, int], int]:
    check = load_checked_book(root, book_id)
    game = check.engine.make_game(check.book.components, {})
    players = check.book.data["players"]
    counts = list(range(int(players["min"]), int(players["max"]) + 1)) if isinstance(players, dict) else [1]

    def run(first: int, games: int) -> int:
        return sum(play(game, [f"P{i + 1}" for i in range(counts[seed % len(counts)])], seed, random_policy).actions
                   for seed in range(first, first + games))

    return run


def contenders(root: Path, sample: Path, books: Sequence[str]) -> list[Contender]:
    found = [Contender("tic-tac-toe", engine_player(sample, "tic-tac-toe"), 2000)]
    return found + [Contender(book, engine_player(root, book), 200) for book in books]


def measure(reference: Callable[[int, int], int], others: list[Contender], rounds: int) -> dict[str, Any]:
    """µs per action of each contender and its ratio to the reference: lists, one entry per round."""
    everyone = [Contender("openspiel", reference, 2000), *others]
    cold: dict[str, float] = {}
    for contender in everyone:
        start, actions, seed = time.process_time(), 0, 10**6
        while time.process_time() - start < WARM_UP:
            actions += contender.run(seed, contender.games // 10)
            seed += contender.games // 10
            if contender.name not in cold:  # its first games, before anything was warm
                cold[contender.name] = (time.process_time() - start) / max(actions, 1) * 1e6
    times: dict[str, list[float]] = {c.name: [] for c in everyone}
    for number in range(rounds):
        for contender in everyone:
            start = time.process_time()
            actions = contender.run(number * contender.games, contender.games)
            times[contender.name].append((time.process_time() - start) / max(actions, 1) * 1e6)
    ratios = {c.name: [mine / ref for mine, ref in zip(times[c.name], times["openspiel"], strict=True)]
              for c in others}
    return {"times": times, "ratios": ratios, "cold": cold}


def report(root: Path, books: Sequence[str], rounds: int) -> list[str]:
    """The table's lines (printed by ``benchmarks/bench.py``); each goal says PASS or FAIL."""
    reference = openspiel_tic_tac_toe()
    if reference is None:
        return ["OpenSpiel is not installed (nox -s bench installs the open_spiel wheel): no reference, no ratios"]
    lines = [f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}"]
    found = measure(reference, contenders(root, root / "samples" / "tic-tac-toe", books), rounds)
    times, ratios, cold = found["times"], found["ratios"], found["cold"]
    lines.append(f"OpenSpiel python_tic_tac_toe: {statistics.median(times['openspiel']):.1f} µs/action "
                 f"(rounds: {', '.join(f'{t:.1f}' for t in times['openspiel'])}; cold {cold['openspiel']:.1f})")
    for name, ratio in ratios.items():
        goal = GOALS.get(name)
        verdict = "" if goal is None else (f", goal <= {goal:g}x: " +
                                           ("PASS" if statistics.median(ratio) <= goal else "FAIL"))
        lines.append(f"{name}: {statistics.median(times[name]):.1f} µs/action, {statistics.median(ratio):.2f}x "
                     f"OpenSpiel (rounds: {', '.join(f'{r:.2f}' for r in ratio)}; cold {cold[name]:.1f} µs){verdict}")
    lines.append(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return lines
