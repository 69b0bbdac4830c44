"""Simulations on Dask: seeds independent of chunking, identical results on 1 and 2 workers."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulepress.analyze.cluster import chunks, game_seed, pool
from rulepress.analyze.impact import simulate
from rulepress.errors import SourceError
from rulepress.verify.gate import load_checked_book

from .conftest import DASK_WORKERS


def test_seed_depends_on_label_and_index_only() -> None:
    assert game_seed(0, "lantern-moths/random", 7) == game_seed(0, "lantern-moths/random", 7)
    assert game_seed(0, "lantern-moths/random", 7) != game_seed(0, "lantern-moths/random", 8)
    assert game_seed(0, "lantern-moths/random", 7) != game_seed(1, "lantern-moths/random", 7)
    assert game_seed(0, "a", 7) != game_seed(0, "b", 7)
    assert 0 <= game_seed(3, "x", 10**6) < 2**63


def test_chunks_cover_every_game_once_in_order() -> None:
    parts = chunks(601, 250)
    assert [(p.start, p.stop) for p in parts] == [(0, 250), (250, 500), (500, 601)]
    assert chunks(0) == []


@DASK_WORKERS
def test_same_seed_gives_identical_results_on_one_and_two_workers(root: Path) -> None:
    check = load_checked_book(root, "lantern-moths")
    results = []
    for workers in (0, 1, 2):  # 300 games: three chunks, so two workers really share them
        with pool(workers) as running:
            results.append(simulate(running, root, check, {}, 300, policy="random", seed=5))
    in_process, one, two = results
    assert one == two
    assert in_process == one
    assert one.games == 300
    assert one.summary() == two.summary()
    assert one.fired["lm.night.fourth"] == 300  # every game of the text's rules ends by the fourth Dusk card


def test_unreachable_scheduler_is_named() -> None:
    with pytest.raises(SourceError) as caught, pool(scheduler="tcp://127.0.0.1:9"):
        pass
    assert caught.value.file == "--scheduler"
    assert caught.value.message.startswith("cannot reach the Dask scheduler at tcp://127.0.0.1:9")


@DASK_WORKERS
def test_whole_analysis_identical_on_one_and_two_workers(mini: Path) -> None:
    import json

    from rulepress.analyze.analysis import analyse
    from rulepress.verify.replay import replay

    check = load_checked_book(mini, "mini")
    check.results = [replay(e, check.book, check.engine, draw=False) for e in check.examples]
    runs = []
    for workers in (1, 2):
        with pool(workers) as running:
            runs.append(json.dumps(analyse(running, mini, check, 300, seed=9, budget=300), sort_keys=True))
    assert runs[0] == runs[1]
    assert json.loads(runs[0])["configs"][0]["games"] == 300


@DASK_WORKERS
def test_existing_scheduler_over_tcp_gives_the_same_results(root: Path) -> None:
    from distributed import LocalCluster

    check = load_checked_book(root, "lantern-moths")
    with pool(0) as here:
        expected = simulate(here, root, check, {}, 40, policy="random", seed=2)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        with pool(scheduler=cluster.scheduler_address) as remote:
            assert remote.workers == 1
            assert simulate(remote, root, check, {}, 40, policy="random", seed=2) == expected


def test_playing_on_gives_the_games_playing_all_at_once_would(root: Path) -> None:
    from rulepress.analyze.impact import simulate_many

    check = load_checked_book(root, "lantern-moths")
    with pool(0) as here:
        [whole] = simulate_many(here, root, check, [({}, "random")], 150, seed=3)
        [first] = simulate_many(here, root, check, [({}, "random")], 100, seed=3)
        [rest] = simulate_many(here, root, check, [({}, "random")], 150, seed=3, first=100)
    assert first.merge(rest) == whole
    assert list(whole.traces[:100]) == list(first.traces[:100]) and whole.games == 150
