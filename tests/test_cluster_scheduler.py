"""`rulepress analyze --scheduler ADDRESS`: the whole analysis on an existing Dask cluster reached over TCP is the
analysis of one process, to the byte (docs/ANALYSIS.md, "Running it on several machines")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulepress.cli import main

from .conftest import DASK_WORKERS


def _analysis(capsys: pytest.CaptureFixture[str], mini: Path, *how: str) -> dict:  # type: ignore[type-arg]
    assert main(["--root", str(mini), "analyze", "mini", "--games", "250", "--seed", "3", "--json", *how]) == 0
    return json.loads(capsys.readouterr().out)


@DASK_WORKERS
def test_analyze_on_a_scheduler_gives_the_analysis_of_one_process(mini: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from distributed import LocalCluster

    from rulepress.analyze.plan import openspiel_installed

    # Competent play (OpenSpiel's MCTS, seeded by the game) is the same on the scheduler too, where installed: at 5
    # simulations a move, since the default's 50 made this test a minute long and the seeding is the same.
    players = ["--players", "random,mcts:5,mcts:5 vs random"] if openspiel_installed() else []
    here = _analysis(capsys, mini, "--workers", "0", *players)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster:
        remote = _analysis(capsys, mini, "--scheduler", cluster.scheduler_address, *players)
    assert remote == here
    assert here["configs"][0]["games"] == 250  # three chunks: both workers had some
    if players:
        assert {"mcts:5", "mcts:5 vs random"} <= {c["policy"] for c in here["configs"]}
