"""The gate as books grow, in `nox -s bench`: every bundled book's examples copied twelve more times under new IDs
(1,131 examples), verified without the cache (``RULEPRESS_CACHE=0``: every file read, checked and replayed).

Goal: 1,000 examples in no more than 5 s, every check kept.  Printed: medians over runs of the whole verification,
scaled to 1,000 examples; a CPU account by part; and as a reference measured in the same run, the engines alone
applying the same examples' actions (no sources read, no checks, no narration, no prose), so that the gate's own
share can be told from the engines' and from the machine's speed.
"""

from __future__ import annotations

import functools
import os
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from author_loop import copy_project, uncached  # benchmarks/, beside this file

COPIES = 12
GOAL_SECONDS = 5.0  # for 1,000 examples


def grown_project(root: Path, target: Path, copies: int = COPIES) -> int:
    """A copy of the project whose books have each example ``copies`` more times (``<id>-x1``...); the count."""
    copy_project(root, target)
    count = 0
    for book in sorted((target / "examples").iterdir()):
        for path in sorted(book.glob("*.yaml")):
            text = path.read_text(encoding="utf-8")
            found = re.search(r"^id: (\S+)$", text, re.MULTILINE)
            if found is None:
                continue
            count += 1
            for number in range(1, copies + 1):
                new = f"{found.group(1)}-x{number}"
                (book / f"{new}.yaml").write_text(text.replace(found.group(0), f"id: {new}", 1), encoding="utf-8")
                count += 1
    return count


@contextmanager
def cpu_account(parts: dict[str, float]) -> Iterator[None]:
    """CPU seconds spent in each part of the gate (none inside another), added to ``parts`` while inside."""
    from rulepress.load import schema, yamlsrc
    from rulepress.verify import replay

    places: list[tuple[Any, str, str]] = [
        (yamlsrc, "parse_yaml", "parse YAML"), (schema, "validate_with", "schema checks (sources and steps)"),
        (replay._Replay, "steps", "replay: the engine's steps, checkpoints, narration"),
        (replay, "_prose", "the prose, rendered in the sandbox")]
    saved = []
    for owner, name, label in places:
        real = getattr(owner, name)

        def timed(*args: Any, _real: Callable[..., Any] = real, _label: str = label, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return _real(*args, **kwargs)
            finally:
                parts[_label] = parts.get(_label, 0.0) + time.process_time() - start

        saved.append((owner, name, real))
        setattr(owner, name, functools.wraps(real)(timed))
    try:
        yield
    finally:
        for owner, name, real in saved:
            setattr(owner, name, real)


def engines_alone(root: Path) -> float:
    """CPU seconds for the engines to apply every example's actions from its start (the reference)."""
    from rulepress.load.book import book_ids
    from rulepress.protocol import DescriptionError
    from rulepress.verify.gate import load_checked_book

    checks = [load_checked_book(root, book) for book in book_ids(root)]
    start = time.process_time()
    for check in checks:
        for example in check.examples:
            try:
                play_alone(check, example)
            except DescriptionError:  # a setup or options refused, as the example expects
                continue
    return time.process_time() - start


def play_alone(check: Any, example: Any) -> None:
    from rulepress.protocol import RuleViolation
    from rulepress.verify.replay import make_game

    game = make_game(check.engine, check.book, example.options)
    if "setup" in example.start:
        state = game.new_state(example.players, example.seed)
    else:
        state = game.state_from_description(example.start["state"], example.players, example.seed)
    for step in example.steps:
        if step.kind == "chance":
            game.force_chance(state, step.data["chance"])
        elif step.kind == "action":
            try:
                game.apply(state, game.parse_action(state, step.data))
            except RuleViolation:  # an illegal: step, refused as the example expects
                pass
    game.snapshot(state)


def bench_gate_scale(root: Path, runs: int) -> None:
    from rulepress.verify.gate import verify

    print(f"\n## The gate as books grow (each example {COPIES + 1} times, no cache; medians over {runs} runs)")
    with tempfile.TemporaryDirectory() as scratch, uncached():
        project = Path(scratch) / "project"
        count = grown_project(root, project)
        verify(project, draw=False)  # warm: imports, the engines' own tables
        walls, cpus, references = [], [], []
        for _ in range(runs):
            start, cpu = time.perf_counter(), time.process_time()
            report = verify(project, draw=False)
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
            assert report.ok and len(report.results) == count, report.failures()[:5]
            references.append(engines_alone(project))
        parts: dict[str, float] = {}
        with cpu_account(parts):  # one more run, timed by part (the timing itself costs a little)
            cpu = time.process_time()
            verify(project, draw=False)
            accounted_run = time.process_time() - cpu
    wall, cpu, reference = (statistics.median(values) for values in (walls, cpus, references))
    per_thousand = wall / count * 1000
    verdict = "PASS" if per_thousand <= GOAL_SECONDS else "FAIL"
    print(f"{count} examples verified in {wall:.2f} s ({wall / count * 1000:.2f} ms each): {per_thousand:.2f} s per "
          f"1,000 (goal <= {GOAL_SECONDS:.0f} s): {verdict}")
    print(f"CPU {cpu:.2f} s, {cpu / count * 1000:.2f} s per 1,000 (one thread: the time on a quiet machine): "
          f"{'PASS' if cpu / count * 1000 <= GOAL_SECONDS else 'FAIL'}")
    print(f"reference, the engines alone on the same examples: CPU {reference:.2f} s; the gate is "
          f"{cpu / reference:.1f}x that")
    print(f"CPU account of one more run ({accounted_run:.2f} s):")
    for label, seconds in sorted(parts.items(), key=lambda item: -item[1]):
        print(f"    {label}: {seconds:.2f} s ({seconds / accounted_run:.0%})")
    rest = accounted_run - sum(parts.values())
    print(f"    the rest (reading files, the gate's other checks, traces, catalogs): {rest:.2f} s "
          f"({rest / accounted_run:.0%})")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")

