"""The score table: bands of crossed circles and their titles, checked for overlaps and gaps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rulepress.protocol import DescriptionError


@dataclass(frozen=True)
class Band:
    key: str
    low: int
    high: int | None  # None: "or more"
    title: str
    text: str

    def holds(self, score: int) -> bool:
        return score >= self.low and (self.high is None or score <= self.high)

    def label(self) -> str:
        if self.high is None:
            return f"{self.low} or more"
        return str(self.low) if self.low == self.high else f"{self.low}–{self.high}"


@dataclass(frozen=True)
class Problem:
    """Scores that fall in two bands (overlap) or in none (gap)."""

    kind: str
    scores: tuple[int, ...]
    bands: tuple[str, ...]

    def describe(self) -> str:
        where = ", ".join(map(str, self.scores))
        if self.kind == "overlap":
            return f"score {where} lies in two bands ({' and '.join(self.bands)})"
        return f"score {where} lies in no band (between {' and '.join(self.bands)})"


def band_problems(bands: Sequence[Band]) -> list[Problem]:
    """Every overlap or gap between consecutive bands, and a table not starting at 0 or not open-ended."""
    ordered = sorted(bands, key=lambda b: (b.low, -1 if b.high is None else b.high))
    problems: list[Problem] = []
    if ordered and ordered[0].low > 0:
        problems.append(Problem("gap", tuple(range(0, ordered[0].low)), ("0", ordered[0].key)))
    for lower, upper in zip(ordered, ordered[1:], strict=False):
        if lower.high is None:
            problems.append(Problem("overlap", (upper.low,), (lower.key, upper.key)))
            continue
        if upper.low <= lower.high:
            top = lower.high if upper.high is None else min(lower.high, upper.high)
            problems.append(Problem("overlap", tuple(range(upper.low, top + 1)), (lower.key, upper.key)))
        elif upper.low > lower.high + 1:
            problems.append(Problem("gap", tuple(range(lower.high + 1, upper.low)), (lower.key, upper.key)))
    if ordered and ordered[-1].high is not None:
        problems.append(Problem("gap", (ordered[-1].high + 1,), (ordered[-1].key, "more")))
    return problems


@dataclass(frozen=True)
class ScoreTable:
    bands: tuple[Band, ...]  # in the text's order
    overlap_scores: tuple[int, ...]  # scores the data records as lying in two bands
    resolution: str  # the data's answer: "better" or "worse"
    question: str

    def title(self, score: int, resolution: str) -> Band:
        """The band of ``score``; in an overlap the better (lower) or worse (higher) band as resolved."""
        holding = sorted((b for b in self.bands if b.holds(score)), key=lambda b: b.low)
        if not holding:
            raise ValueError(f"score {score} lies in no band")  # excluded when the table is built
        return holding[0] if resolution == "better" else holding[-1]


def build_score_table(data: Mapping[str, Any]) -> ScoreTable:
    """The score table of ``components.yaml``; an unrecorded overlap or any gap is an error."""
    try:
        bands = tuple(
            Band(key, int(data["bands"][key]["low"]),
                 None if data["bands"][key].get("high") is None else int(data["bands"][key]["high"]),
                 str(data["bands"][key]["title"]), str(data["bands"][key].get("text", "")))
            for key in data["order"])
        overlap = data.get("overlap") or {}
        recorded = tuple(int(s) for s in overlap.get("at", ()))
        table = ScoreTable(bands, recorded, str(overlap.get("resolution", "better")),
                           str(overlap.get("question", "")))
    except (KeyError, TypeError, ValueError) as error:
        raise DescriptionError("score", f"malformed score table: {error}") from error
    problems = band_problems(bands)
    gaps = [p for p in problems if p.kind == "gap"]
    if gaps:
        raise DescriptionError("score.bands", "; ".join(p.describe() for p in gaps))
    found = tuple(sorted(s for p in problems if p.kind == "overlap" for s in p.scores))
    if found != tuple(sorted(recorded)):
        raise DescriptionError("score.overlap", f"the bands overlap at {list(found)} but the data records "
                                                f"{list(recorded)}; record each overlap with its designer question")
    if found and table.resolution not in ("better", "worse"):
        raise DescriptionError("score.overlap.resolution", "resolve an overlap with 'better' or 'worse'")
    return table
