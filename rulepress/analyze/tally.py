"""What a batch of simulated games leaves behind, in a form that merges: counts, sums, histograms, and a few
numbers per game.

A chunk of games returns one :class:`Tally`; tallies merge in chunk order, so the totals do not depend on how the
games were spread over workers.  Besides counts, a tally keeps per game (in game order) a digest of what happened,
the outcome and the length: every configuration plays game *i* from the same seed, so two answers of a question
are compared game by game (how many games the answer changed at all, and the paired difference of outcomes).
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rulepress.analyze.stats import proportion_interval


def _longs() -> array[int]:
    return array("q")


@dataclass(eq=False)
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
    # Competitive games, by player count: a seat's fair share of wins is that count's winners per game / players.
    count_games: Counter[int] = field(default_factory=Counter)  # players -> competitive games
    seat_wins: Counter[tuple[int, int]] = field(default_factory=Counter)  # (players, seat) -> games it won
    winners: Counter[int] = field(default_factory=Counter)  # players -> winners summed over games
    ties: Counter[int] = field(default_factory=Counter)  # players -> games won by more than one
    # Decisiveness, in games whose result gives a score to lead by (rulepress.analyze.simulate.standing).
    leads: Counter[tuple[int, int]] = field(default_factory=Counter)  # (players, lead changes) -> games
    led_early: Counter[int] = field(default_factory=Counter)  # players -> games someone led alone before the end
    # Per game, in game order.
    traces: array[int] = field(default_factory=_longs)  # a digest of the game's events and final metrics
    outcomes: array[int] = field(default_factory=_longs)  # won (1/0), or the winning seats as a bit mask
    lengths: array[int] = field(default_factory=_longs)  # rounds, else actions
    players: array[int] = field(default_factory=_longs)
    values: dict[str, array[float]] = field(default_factory=dict)  # numeric and yes/no metric -> per game (nan: none)
    labels: dict[str, list[str]] = field(default_factory=dict)  # word metric -> per game ("": none)
    # Which rules' events go with winning: rule -> [units, sum xy, sum xx, sum yy] of values centred within each
    # game (competitive: per seat, "this player made it happen more than the others"; else per game).
    links: dict[str, list[float]] = field(default_factory=dict)
    link_units: int = 0  # competitive: seats summed over games
    link_yy: float = 0.0  # competitive: Σ over seats of (won - fair share)²
    kind_rule: dict[str, str] = field(default_factory=dict)  # action kind -> the rule its first event names
    decided: Counter[str] = field(default_factory=Counter)  # engine decision -> games in which it took effect
    probed: int = 0  # games probed for refusals (rulepress.analyze.refusals)
    refused: Counter[str] = field(default_factory=Counter)  # refusal rule -> probed games in which it refused

    def add_game(self, metrics: dict[str, Any], finished: bool, seats: int, winners: list[int] | None,
                 trace: int = 0, by_seat: dict[str, list[int]] | None = None,
                 by_game: Counter[str] | None = None) -> None:
        """One game: its metrics, the winning seats (competitive games; None otherwise), its digest, and how
        many events of each rule named each seat (``by_seat``) or the game as a whole (``by_game``)."""
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
        self._per_game(metrics)
        length = metrics.get("rounds", metrics.get("actions", 0))
        self.traces.append(trace)
        self.lengths.append(int(length) if isinstance(length, int | float) else 0)
        self.players.append(seats)
        if winners is not None:
            self.count_games[seats] += 1
            for seat in winners:
                self.seat_wins[seats, seat] += 1
            self.winners[seats] += len(winners)
            self.ties[seats] += len(winners) > 1
            self.outcomes.append(sum(1 << seat for seat in winners))
            share = len(winners) / seats
            self.link_units += seats
            self.link_yy += sum(((seat in winners) - share) ** 2 for seat in range(seats))
            if by_seat:
                for rule, counts in by_seat.items():
                    mean = sum(counts) / seats
                    self._link(rule, [(count - mean, (seat in winners) - share) for seat, count in enumerate(counts)])
        else:
            won = metrics.get("won")
            self.outcomes.append(int(won) if isinstance(won, bool) else -1)
            if by_game is not None and isinstance(won, bool):
                self._game_links(by_game, won)

    def add_leads(self, seats: int, changes: int, led_early: bool) -> None:
        """One scored game's lead changes (how often the lead passed from one seat to another, turn by turn), and
        whether anyone led alone before its last turn (a game scored only at its end has no lead to change)."""
        self.leads[seats, changes] += 1
        self.led_early[seats] += led_early

    def _per_game(self, metrics: dict[str, Any]) -> None:
        """Every metric of this game in its per-game column (a column a game lacks holds nan or "")."""
        before = self.games - 1
        for key, value in metrics.items():
            if isinstance(value, bool | int | float):
                self.values.setdefault(key, array("d", [math.nan] * before)).append(float(value))
            else:
                self.labels.setdefault(key, [""] * before).append(str(value))
        for column in self.values.values():
            if len(column) < self.games:
                column.append(math.nan)
        for words in self.labels.values():
            if len(words) < self.games:
                words.append("")

    def _link(self, rule: str, pairs: list[tuple[float, float]]) -> None:
        entry = self.links.setdefault(rule, [0.0, 0.0])
        for x, y in pairs:
            entry[0] += x * y
            entry[1] += x * x

    def _game_links(self, counts: Counter[str], won: bool) -> None:
        """Solo and cooperative games: raw sums per rule (Σx, Σx², Σxy); a game without the rule adds nothing."""
        for rule, x in counts.items():
            entry = self.links.setdefault(rule, [0.0, 0.0, 0.0])
            entry[0] += x
            entry[1] += x * x
            entry[2] += x * won

    def merge(self, other: Tally) -> Tally:
        self.games += other.games
        self.finished += other.finished
        for mine, theirs in ((self.fired, other.fired), (self.touched, other.touched),
                             (self.offered, other.offered), (self.chosen, other.chosen), (self.flags, other.flags),
                             (self.flag_games, other.flag_games), (self.count_games, other.count_games),
                             (self.seat_wins, other.seat_wins), (self.winners, other.winners),
                             (self.ties, other.ties), (self.leads, other.leads), (self.led_early, other.led_early),
                             (self.decided, other.decided), (self.refused, other.refused)):
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
        self.probed += other.probed
        for mine_array, theirs_array in ((self.traces, other.traces), (self.outcomes, other.outcomes),
                                         (self.lengths, other.lengths), (self.players, other.players)):
            mine_array.extend(theirs_array)
        before = self.games - other.games
        for key in set(self.values) | set(other.values):
            column = self.values.setdefault(key, array("d", [math.nan] * before))
            column.extend(other.values.get(key, array("d", [math.nan] * other.games)))
        for key in set(self.labels) | set(other.labels):
            self.labels.setdefault(key, [""] * before).extend(other.labels.get(key, [""] * other.games))
        for rule, sums in other.links.items():
            entry = self.links.setdefault(rule, [0.0] * len(sums))
            for index, value in enumerate(sums):
                entry[index] += value
        self.link_units += other.link_units
        self.link_yy += other.link_yy
        for kind, rule in other.kind_rule.items():
            self.kind_rule.setdefault(kind, rule)  # first chunk first: the same whatever the workers
        return self

    def __eq__(self, other: object) -> bool:
        """Field by field; per-game columns by their bytes (a metric a game lacks is nan, which equals nothing)."""
        if not isinstance(other, Tally):
            return NotImplemented
        return _comparable(self) == _comparable(other)

    def mean(self, key: str) -> tuple[float, float]:
        """The mean of a numeric metric and its standard error."""
        n, total, squares = self.numbers.get(key, [0, 0.0, 0.0])
        if not n:
            return 0.0, 0.0
        mean = total / n
        variance = max(squares / n - mean * mean, 0.0) * n / (n - 1) if n > 1 else 0.0
        return mean, math.sqrt(variance / n)

    def link_sums(self, rule: str) -> tuple[float, float, float, float]:
        """``(units, Σxy, Σxx, Σyy)`` of centred values for ``rule``: per seat and centred within each game in
        competitive games ("this player made it happen more than the others"), per game otherwise."""
        sums = self.links.get(rule)
        if sums is None:
            return 0.0, 0.0, 0.0, 0.0
        if len(sums) == 2:
            return float(self.link_units), sums[0], sums[1], self.link_yy
        n = sum(1 for value in self.outcomes if value >= 0)
        wins = sum(1 for value in self.outcomes if value == 1)
        if not n:
            return 0.0, 0.0, 0.0, 0.0
        sx, sxx, sxy = sums
        return float(n), sxy - sx * wins / n, sxx - sx * sx / n, wins - wins * wins / n

    def summary(self) -> dict[str, Any]:
        """Means (``x mean`` with its standard error ``x mean ±``), shares (``x %``, ``x=word %``) and ``games``."""
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


def _comparable(tally: Tally) -> list[Any]:
    def one(value: Any) -> Any:
        if isinstance(value, array):
            return value.typecode, value.tobytes()
        if isinstance(value, dict):
            return {key: one(item) for key, item in value.items()}
        return value

    return [one(getattr(tally, name)) for name in tally.__dataclass_fields__]


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (sound near 0% and 100%, unlike the normal one)."""
    return proportion_interval(successes, trials)


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
