"""`nox -s bench`: medians over several runs, printed as a table (no timed tests anywhere else).

Measures: verify time per book, build time split into site and each PDF, the pipeline's own work against
mkdocs' and WeasyPrint's, peak memory of a build (in a child process), engine throughput under random
(and every other exported) play policy, per option set the engine exports, and random play of every engine against
OpenSpiel's pure-Python tic-tac-toe measured in the same run (``against_openspiel.py``, with the goals).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from against_openspiel import openspiel_tic_tac_toe
from against_openspiel import report as against_openspiel  # benchmarks/, beside this file
from analysis_throughput import competent_report
from analysis_throughput import report as analysis_throughput
from author_loop import bench_author_loop, bench_tree_memory, uncached
from browser import bench_browser
from gate_scale import bench_gate_scale

from rulepress.analyze.impact import summarise
from rulepress.analyze.simulate import play, random_policy
from rulepress.load.book import book_ids
from rulepress.project import default_root
from rulepress.publish.build import Timings, build
from rulepress.verify.gate import load_checked_book, verify
from rulepress.verify.replay import replay


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def bench_verify(root: Path, runs: int) -> None:
    print("\n## Verify (examples replayed, no diagrams)")
    totals = []
    for _ in range(runs):
        start = time.perf_counter()
        verify(root, draw=False)
        totals.append(time.perf_counter() - start)
    print(f"all books, load + verify: median {median(totals) * 1000:.0f} ms over {runs} runs")
    for book_id in book_ids(root):
        check = load_checked_book(root, book_id)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            for example in check.examples:
                replay(example, check.book, check.engine, draw=False)
            times.append(time.perf_counter() - start)
        print(f"{book_id}: {len(check.examples)} examples replayed in median {median(times) * 1000:.1f} ms")


def bench_build(root: Path, runs: int) -> None:
    print("\n## Build (site and each PDF), medians")
    samples: list[Timings] = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            timings = Timings()
            build(root, site_dir=Path(folder) / "site", timings=timings)
            samples.append(timings)
    print(f"gate (load, verify with diagrams, question impact): {median([t.verify for t in samples]):.2f} s")
    print(f"site (mkdocs-material): {median([t.site for t in samples]):.2f} s")
    for name in samples[0].pdf:
        print(f"pdf {name}: {median([t.pdf[name] for t in samples]):.2f} s, {samples[0].pages[name]} pages")
    own = [t.verify + t.own for t in samples]
    tools = [t.tools for t in samples]
    ratios = [o / t for o, t in zip(own, tools, strict=True)]
    print(f"pipeline's own work {median(own):.2f} s vs mkdocs + WeasyPrint {median(tools):.2f} s: "
          f"own/tools = {median(ratios):.1%} (goal <= 15%)")


def bench_memory(root: Path) -> None:
    print("\n## Peak memory of a build (child process; its own PDF workers and site process not counted)")
    with tempfile.TemporaryDirectory() as folder:
        code = ("import resource; from pathlib import Path; from rulepress.publish.build import build; "
                f"build(Path({str(root)!r}), site_dir=Path({folder!r}) / 'site'); "
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    peak_kib = int(done.stdout.split()[-1])
    print(f"peak RSS {peak_kib / 1024:.0f} MiB (goal < 200 MiB): {'PASS' if peak_kib < 200 * 1024 else 'FAIL'}")


def bench_engines(root: Path, games: int, runs: int) -> None:
    print("\n## Engines under play (games/s, µs per action: median over runs)")
    for book_id in book_ids(root):
        check = load_checked_book(root, book_id)
        engine = check.engine
        configs: dict[str, dict[str, Any]] = dict(engine.bench_configs)
        policies = {"random": random_policy, **engine.policies}
        players = check.book.data["players"]
        counts = list(range(int(players["min"]), int(players["max"]) + 1)) if isinstance(players, dict) else [1]
        for config_name, options in configs.items():
            game = engine.make_game(check.book.components, options)
            for policy_name, policy in policies.items():
                for seed in range(min(games, 50)):  # warm-up: imports, caches (the Lantern solver's), allocator
                    play(game, [f"P{i + 1}" for i in range(counts[seed % len(counts)])], 10**6 + seed, policy)
                per_action, per_game, rows = [], [], []
                for run in range(runs):
                    actions = 0
                    start = time.perf_counter()
                    for seed in range(games):
                        count = counts[seed % len(counts)]
                        result = play(game, [f"P{i + 1}" for i in range(count)], run * games + seed, policy)
                        actions += result.actions
                        if run == 0:
                            rows.append(game.metrics(result.state))
                    elapsed = time.perf_counter() - start
                    per_action.append(elapsed / max(actions, 1) * 1e6)
                    per_game.append(games / elapsed)
                summary = {k: v for k, v in summarise(rows).items() if not k.endswith("±") and k != "games"}
                print(f"{book_id} [{config_name}, {policy_name}]: {median(per_game):.0f} games/s, "
                      f"{median(per_action):.1f} µs/action")
                print("    " + ", ".join(f"{k} {v}" for k, v in summary.items()))
        extra = engine.bench_extra
        if extra is not None:
            for line in extra(check.book.components):
                print(f"{book_id}: {line}")


def bench_against_openspiel(root: Path, runs: int) -> None:
    print("\n## Random play against OpenSpiel's Python tic-tac-toe (CPU µs per action, interleaved rounds, medians)")
    for line in against_openspiel(root, book_ids(root), runs):
        print(line)


def bench_analysis(root: Path, runs: int) -> None:
    print("\n## Competent play (OpenSpiel's MCTS/IS-MCTS) in a default analysis (CPU time, a sample extrapolated)")
    for line in competent_report(root, book_ids(root)):
        print(line, flush=True)
    print("\n## A full analysis at 100,000 games per configuration (CPU time, analysis_throughput.py; medians)")
    for line in analysis_throughput(root, book_ids(root), openspiel_tic_tac_toe(), rounds=max(3, runs // 2)):
        print(line)


def bench_dask(root: Path, games: int) -> None:
    """Simulation throughput on Dask (what `rulepress analyze` and `questions --impact` run on): games/s with 1
    and 2 local workers, and with 2 workers of a separate `dask scheduler` reached over TCP on 127.0.0.1 (a
    stand-in for a cluster).  Start-up is timed apart: it is paid once per command, not per game."""
    import socket

    from rulepress.analyze.cluster import pool
    from rulepress.analyze.impact import impact_policy, simulate

    print(f"\n## Simulations on Dask ({games} games per book, default_policy, text's options)")
    checks = [load_checked_book(root, book_id) for book_id in book_ids(root)]

    def measure(label: str, workers: int | None, scheduler: str | None = None) -> None:
        start = time.perf_counter()
        with pool(workers, scheduler) as running:
            if running.client is not None and scheduler is not None:
                running.client.wait_for_workers(2, timeout=120)
            ready = time.perf_counter()
            for check in checks:
                begun = time.perf_counter()
                simulate(running, root, check, {}, games)
                elapsed = time.perf_counter() - begun
                print(f"{label}: {check.book.id} [{impact_policy(check.engine)[0]}]: {games / elapsed:.0f} games/s")
        print(f"{label}: start-up {ready - start:.1f} s")

    measure("1 local worker", 1)
    measure("2 local workers", 2)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).with_name("dask"))
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                 **quiet)
    workers = subprocess.Popen([dask, "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard"],
                               **quiet)
    try:
        time.sleep(2)  # the scheduler must listen before the client connects
        measure(f"2 workers via scheduler {address}", None, address)
    finally:
        for process in (workers, scheduler):
            process.terminate()
            process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--dask-games", type=int, default=500, help="games per book for the Dask throughput")
    # The sections ``--only`` runs alone, each as the full run does.
    sections: dict[str, Callable[[Path, argparse.Namespace], None]] = {
        "gate": lambda root, args: bench_gate_scale(root, args.runs),
        "openspiel": lambda root, args: bench_against_openspiel(root, args.runs),
        "analysis": lambda root, args: bench_analysis(root, args.runs),
        "author": lambda root, args: bench_author_loop(root, max(1, args.runs // 2)),
        "browser": lambda root, args: bench_browser(root, max(3, args.runs // 2)),
    }
    parser.add_argument("--only", choices=list(sections),
                        help="run one section only: the gate as books grow, the engines against OpenSpiel, a "
                             "full analysis's estimate, the author's loop (the cold build's CPU account, the "
                             "preflight's time), or the in-browser engine in Chromium")
    args = parser.parse_args()
    root = default_root()
    print(f"# rulepress benchmarks ({args.runs} runs each; medians)")
    if args.only:
        sections[args.only](root, args)
        return
    bench_gate_scale(root, args.runs)
    bench_verify(root, args.runs)
    bench_engines(root, args.games, args.runs)
    bench_against_openspiel(root, args.runs)
    bench_analysis(root, args.runs)
    bench_dask(root, args.dask_games)
    if not args.skip_build:
        with uncached():  # a whole build's cost; the author's loop below measures what the cache saves
            bench_build(root, max(3, args.runs // 2))
            bench_memory(root)
        bench_author_loop(root, max(1, args.runs // 2))
        bench_tree_memory(root)
    bench_browser(root, max(3, args.runs // 2))


if __name__ == "__main__":
    main()
