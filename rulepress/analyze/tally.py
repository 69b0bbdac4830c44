"""What a batch of simulated games leaves behind, in a form that merges: counts, sums, histograms.

A chunk of games returns one :class:`Tally`; tallies merge in chunk order, so 100,000 games never sit in
memory as rows and the totals do not depend on how the games were spread over workers.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

Z95 = 1.959964  # two-sided 95% normal quantile


@dataclass
class Tally:
    games: int = 0
    finished: int = 0
    fired: Counter[str] = field(default_factory=Counter)  # rule ID -> games in which an event named it
    touched: Counter[str] = field(default_factory=Counter)  # "kind:name" -> games in which an event used it
    offered: Counter[str] = field(default_factory=Counter)  # action kind -> games in which it was legal
    chosen: Counter[str] = field(default_factory=Counter)  # action kind -> games in which it was played
    numbers: dict[str, list[float]] = field(default_factory=dict)  # metric -> [n, sum, sum of squares]
    flags: Counter[str] = field(default_factory=Counter)  # yes/no metric -> games where it was yes
    flag_games: Counter[str] = field(default_factory=Counter)  # yes/no metric -> games that reported it
    words: dict[str, Counter[str]] = field(default_factory=dict)  # word metric -> value -> games
    histograms: dict[str, Counter[int]] = field(default_factory=dict)  # integer metric -> value -> games
    seat_games: Counter[int] = field(default_factory=Counter)  # seat -> games with that seat (competitive)
    seat_wins: Counter[int] = field(default_factory=Counter)  # seat -> games that seat won (alone or tied)
    ties: int = 0  # games won by more than one player
    fair_share: float = 0.0  # sum over competitive games of 1/players: the first seat's expected wins if fair
    kind_rule: dict[str, str] = field(default_factory=dict)  # action kind -> the rule its first event names
    decided: Counter[str] = field(default_factory=Counter)  # engine decision -> games in which it took effect
    probed: int = 0  # games probed for refusals (rulepress.analyze.refusals)
    refused: Counter[str] = field(default_factory=Counter)  # refusal rule -> probed games in which it refused

    def add_game(self, metrics: dict[str, Any], finished: bool, seats: int, winners: list[int] | None) -> None:
        self.games += 1
        self.finished += finished
        for key, value in metrics.items():
            if isinstance(value, bool):
                self.flags[key] += value
                self.flag_games[key] += 1
            elif isinstance(value, int | float):
                entry = self.numbers.setdefault(key, [0, 0.0, 0.0])
                entry[0] += 1
                entry[1] += value
                entry[2] += value * value
                if isinstance(value, int):
                    self.histograms.setdefault(key, Counter())[value] += 1
            else:
                self.words.setdefault(key, Counter())[str(value)] += 1
        if winners is not None:
            for seat in range(seats):
                self.seat_games[seat] += 1
            for seat in winners:
                self.seat_wins[seat] += 1
            self.ties += len(winners) > 1
            self.fair_share += 1 / seats

    def merge(self, other: Tally) -> Tally:
        self.games += other.games
        self.finished += other.finished
        for mine, theirs in ((self.fired, other.fired), (self.touched, other.touched),
                             (self.offered, other.offered), (self.chosen, other.chosen), (self.flags, other.flags),
                             (self.flag_games, other.flag_games), (self.seat_games, other.seat_games),
                             (self.seat_wins, other.seat_wins), (self.decided, other.decided),
                             (self.refused, other.refused)):
            mine.update(theirs)
        for key, (n, total, squares) in other.numbers.items():
            entry = self.numbers.setdefault(key, [0, 0.0, 0.0])
            entry[0] += n
            entry[1] += total
            entry[2] += squares
        for key, counts in other.words.items():
            self.words.setdefault(key, Counter()).update(counts)
        for key, counts in other.histograms.items():
            self.histograms.setdefault(key, Counter()).update(counts)
        self.ties += other.ties
        self.probed += other.probed
        self.fair_share += other.fair_share
        for kind, rule in other.kind_rule.items():
            self.kind_rule.setdefault(kind, rule)  # first chunk first: the same whatever the workers
        return self

    def mean(self, key: str) -> tuple[float, float]:
        """The mean of a numeric metric and its standard error."""
        n, total, squares = self.numbers.get(key, [0, 0.0, 0.0])
        if not n:
            return 0.0, 0.0
        mean = total / n
        variance = max(squares / n - mean * mean, 0.0) * n / (n - 1) if n > 1 else 0.0
        return mean, math.sqrt(variance / n)

    def summary(self) -> dict[str, Any]:
        """The same keys as :func:`rulepress.analyze.impact.summarise`: ``x mean``, ``x mean ±``, ``x %``,
        ``x=word %`` and ``games``."""
        found: dict[str, Any] = {"games": self.games}
        for key in sorted(set(self.numbers) | set(self.flag_games) | set(self.words)):
            if key in self.flag_games:
                found[f"{key} %"] = round(100 * self.flags[key] / self.flag_games[key], 1)
            elif key in self.numbers:
                mean, error = self.mean(key)
                found[f"{key} mean"] = round(mean, 2)
                found[f"{key} mean ±"] = round(error, 3)
            else:
                counts = self.words[key]
                total = sum(counts.values())
                for word, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
                    found[f"{key}={word} %"] = round(100 * count / total, 1)
        return found


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (sound near 0% and 100%, unlike the normal one)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + Z95 * Z95 / trials
    centre = (p + Z95 * Z95 / (2 * trials)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / trials + Z95 * Z95 / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def quantile(histogram: Counter[int], q: float) -> int:
    """The ``q`` quantile of an integer distribution given as value -> count."""
    total = sum(histogram.values())
    if not total:
        return 0
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        if seen >= q * total:
            return value
    return max(histogram)
