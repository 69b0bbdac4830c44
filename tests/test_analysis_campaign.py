"""The analysis does not change its findings with the seed: two seeds, the same findings (kind and subject).

It needs the default budget (with a few games, findings near their threshold are decided at one seed and not at the
other: that is what the budget is for), so it runs only in ``nox -s analysis``, which sets
``RULEPRESS_ANALYSIS_GAMES`` and ``RULEPRESS_ANALYSIS_BUDGET`` (``RULEPRESS_ANALYSIS_BOOKS`` the books); the main suite
tests the machinery that makes it hold (tests/test_analysis.py: playing on while undecided, bounds that scale with
the games, corrections).  A finding decided in one seed and not in the other is named with both evidences.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rulepress.analyze.analysis import analyse
from rulepress.analyze.cluster import pool
from rulepress.verify.gate import load_checked_book
from rulepress.verify.replay import replay

CAMPAIGN = "RULEPRESS_ANALYSIS_GAMES" in os.environ
GAMES = int(os.environ.get("RULEPRESS_ANALYSIS_GAMES", "500"))
BUDGET = int(os.environ.get("RULEPRESS_ANALYSIS_BUDGET", "8000"))
BOOKS = os.environ.get("RULEPRESS_ANALYSIS_BOOKS", "lantern-moths").split(",")
WORKERS = int(os.environ.get("RULEPRESS_ANALYSIS_WORKERS", "0"))


def _found(analysis: dict) -> dict[tuple[str, str], str]:
    return {(f["kind"], f["subject"]): f["message"] for f in analysis["findings"]}


@pytest.mark.skipif(not CAMPAIGN, reason="a campaign at the default budget: nox -s analysis")
@pytest.mark.parametrize("book", BOOKS)
def test_two_seeds_give_the_same_findings(root: Path, book: str) -> None:
    check = load_checked_book(root, book)
    check.results = [replay(e, check.book, check.engine, draw=False) for e in check.examples]
    with pool(WORKERS) as workers:
        first, second = (analyse(workers, root, check, GAMES, seed, budget=BUDGET) for seed in (0, 1))
    one, two = _found(first), _found(second)
    differ = sorted(set(one) ^ set(two))
    assert not differ, "\n".join(f"{kind} {subject}: seed 0: {one.get((kind, subject), '-')}; seed 1: "
                                 f"{two.get((kind, subject), '-')}" for kind, subject in differ)
