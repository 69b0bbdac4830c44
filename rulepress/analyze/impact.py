"""What each designer question puts at stake: examples replayed and games simulated under every answer."""

from __future__ import annotations

import hashlib
import json
import re
import statistics
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rulepress.analyze.cluster import Pool, chunks
from rulepress.analyze.fingerprint import engine_fingerprint
from rulepress.analyze.simulate import observe_chunk, random_policy
from rulepress.analyze.tally import Tally
from rulepress.load.book import Question
from rulepress.load.yamlsrc import plain
from rulepress.protocol import EngineSpec
from rulepress.store import Store, code_digest, declare, key_of, tree_digest, watched_digest
from rulepress.verify.gate import BookCheck
from rulepress.verify.replay import replay

REPORTS = Path("reports") / "impact"
IMPACTS = declare("impact", keep=100)  # a book's question impact, kept under what its replays read
TEXT = "the text's game"  # the setting of the rules as written: no challenge, every player count


def metric_words(name: str, words: Any) -> str:
    """A simulated figure's name for a page in ``words``' language: the length, the win and a seat's wins in words,
    an engine metric by its name (``deck_left``, ``end_reason=black-fireflies``) as code."""
    seat = re.fullmatch(r"seat (\d+) wins", name)
    if seat:
        return words("metric_seat_wins", seat=seat.group(1))
    if name in ("length", "won"):
        return words(f"metric_{name}")
    return f"`{name.removesuffix(' mean').removesuffix(' %')}`"


def alternatives(question: Question) -> list[str]:
    return [answer for answer in question.answers if answer != question.assumed]


def example_changes(check: BookCheck, question: Question, answer: str) -> list[dict[str, str]]:
    """Examples whose replay differs when the engine takes ``answer`` instead of the assumed one."""
    assert question.option is not None
    baseline = {r.example.id: r for r in check.results}
    changed = []
    for example in check.examples:
        if question.option in example.options:
            continue  # the example pins this answer on purpose
        before = baseline.get(example.id)
        after = replay(example, check.book, check.engine, draw=False, prose=False,
                       options={question.option: question.option_value(answer)})
        if after.status != "passed":
            how = "an action becomes illegal" if "illegal move" in after.message else "another outcome"
            detail = after.message.split(": ", 1)[-1].split(" [illustrates")[0]
            changed.append({"id": example.id, "how": how, "detail": detail,
                            "kind": "illegal" if "illegal move" in after.message else "outcome"})
        elif before is not None and before.ok and after.result != before.result:
            changed.append({"id": example.id, "how": "another outcome", "kind": "outcome",
                            "detail": f"result {before.result} becomes {after.result}"})
    return changed


def _player_counts(check: BookCheck) -> list[int]:
    players = check.book.data["players"]
    if isinstance(players, dict):
        return list(range(int(players["min"]), int(players["max"]) + 1))
    return [int(players)]


def impact_policy(engine: EngineSpec) -> tuple[str, Any]:
    """The engine's ``default_policy`` (a name in its ``policies``), else random play.

    Random play says little about a game where it always loses at once (Last Lantern, Lantern), so an
    engine names the policy whose games a designer would recognise."""
    name = engine.default_policy
    if name is None:
        return "random", random_policy
    return name, engine.policies[name]


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Means for numbers, shares for words: what a designer compares between answers.

    Each mean ``"x mean"`` comes with its standard error ``"x mean ±"`` so that a change can be told
    from noise; shares carry the number of games in ``"games"``.
    """
    summary: dict[str, Any] = {"games": len(rows)}
    keys = sorted({k for row in rows for k in row})
    for key in keys:
        values = [row[key] for row in rows if key in row]
        if all(isinstance(v, bool) for v in values):
            summary[f"{key} %"] = round(100 * sum(values) / len(values), 1)
        elif all(isinstance(v, int | float) for v in values):
            summary[f"{key} mean"] = round(statistics.fmean(values), 2)
            spread = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
            summary[f"{key} mean ±"] = round(spread, 3)
        else:
            for word, count in Counter(map(str, values)).most_common():
                summary[f"{key}={word} %"] = round(100 * count / len(values), 1)
    return summary


def measurable_moves(baseline: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """Metrics that differ beyond noise: each difference's two-sided p-value against its combined standard error,
    corrected over every metric compared (Benjamini-Hochberg at 5%), not each one at 2 standard errors."""
    from rulepress.analyze import stats

    rows = []
    for key in sorted(set(baseline) | set(other)):
        if key == "games" or key.endswith("±"):
            continue
        before, after = baseline.get(key, 0.0), other.get(key, 0.0)
        if key.endswith("%"):
            n1, n2 = max(baseline.get("games", 1), 1), max(other.get("games", 1), 1)
            p1, p2 = before / 100, after / 100
            error = 100 * ((p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2) ** 0.5)
        else:
            error = (baseline.get(f"{key} ±", 0.0) ** 2 + other.get(f"{key} ±", 0.0) ** 2) ** 0.5
        if after != before:
            rows.append((key, before, after, stats.normal_p(after - before, error)))
    adjusted = stats.corrected([p for *_, p in rows])
    return [f"{key}: {before} -> {after}" for (key, before, after, _), p in zip(rows, adjusted, strict=True)
            if p < stats.ALPHA]


def simulate(workers: Pool, root: Path, check: BookCheck, options: dict[str, Any], games: int,
             progress: Callable[[int], None] | None = None, policy: str | None = None,
             seed: int = 0) -> Tally:
    """``games`` games under ``options`` on the Dask pool, tallied; every answer plays the same setups
    (the seeds depend on the game's index only), so answers are compared on equal deals."""
    return simulate_many(workers, root, check, [(options, policy)], games, progress, seed)[0]


Play = tuple[dict[str, Any], str | None] | tuple[dict[str, Any], str | None, list[int] | None]


def simulate_many(workers: Pool, root: Path, check: BookCheck, plays: list[Play], games: int,
                  progress: Callable[[int], None] | None = None, seed: int = 0, first: int = 0) -> list[Tally]:
    """One tally per ``(options, policy[, player counts])`` of games ``first..games-1``; every chunk of every
    configuration is submitted at once, so no worker waits for the last chunk of one configuration before starting
    the next.  Player counts default to every count the book allows, game *i* playing the *i*-th in turn."""
    parts = chunks(games, first=first)
    tasks, sizes = [], []
    for play in plays:
        options, policy = play[0], play[1]
        counts = list(play[2]) if len(play) > 2 and play[2] else _player_counts(check)  # type: ignore[misc]
        name = policy or impact_policy(check.engine)[0]
        args = (str(root), check.book.engine_package, plain(check.book.components), options, name, seed,
                f"{check.book.id}/{name}")
        tasks += [(*args, part, counts) for part in parts]
        sizes += [len(part) for part in parts]
    tallies = workers.map(observe_chunk, tasks, progress, sizes)
    totals = []
    for start in range(0, len(tallies), max(len(parts), 1)):
        total = Tally()
        for tally in tallies[start:start + len(parts)]:  # in chunk order: the same sums whatever the workers
            total.merge(tally)
        totals.append(total)
    return totals if parts else [Tally() for _ in plays]


def question_impact(workers: Pool, root: Path, check: BookCheck, question: Question, games: int,
                    progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    assert question.option is not None
    report: dict[str, Any] = {"question": question.id, "option": question.option, "games": games,
                              "policy": impact_policy(check.engine)[0], "assumed": question.assumed,
                              "alternatives": []}
    if games:
        report["baseline"] = simulate(workers, root, check,
                                      {question.option: question.option_value(question.assumed)}, games,
                                      progress).summary()
    for answer in alternatives(question):
        entry: dict[str, Any] = {"answer": answer, "value": question.option_value(answer),
                                 "examples_changed": example_changes(check, question, answer)}
        if games:
            entry["metrics"] = simulate(workers, root, check, {question.option: question.option_value(answer)},
                                        games, progress).summary()
        report["alternatives"].append(entry)
    return report


def report_path(root: Path, book_id: str) -> Path:
    return root / REPORTS / f"{book_id}.json"


def save(root: Path, check: BookCheck, impacts: dict[str, Any]) -> Path:
    path = report_path(root, check.book.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"book": check.book.id, "engine": engine_fingerprint(root, check.book.engine_package, check.book.id),
               "questions": impacts}
    path.write_text(json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return path


def saved_impacts(root: Path, check: BookCheck) -> dict[str, Any]:
    """Fresh example impact for every question with an option, and what simulated play found for each answer in
    each setting where it matters, from the saved analysis (``rulepress analyze``, reports/analysis/): its games,
    how many it changed, the figures it moved with their intervals, and whether what decides play is unchanged
    since (``current``; else ``changed`` names the files)."""
    from rulepress.analyze.fingerprint import changed_since

    path = root / "reports" / "analysis" / f"{check.book.id}.json"
    try:
        analysis = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        analysis = {}
    analysis = analysis if isinstance(analysis, dict) else {}
    inputs = analysis.get("inputs") if isinstance(analysis.get("inputs"), dict) else None
    changed = changed_since(inputs, root, check.book.engine_package, check.book.id) if inputs is not None else []
    simulated = analysis.get("questions", {}) if inputs is not None else {}
    impacts = {}
    for question in check.book.questions:
        if question.option is None or question.status == "dropped":
            continue
        mine = simulated.get(question.id, [])
        entry = {"question": question.id, "policy": analysis.get("policy", ""), "current": not changed,
                 "changed": changed, "simulated": bool(mine), "alternatives": []}
        for answer in alternatives(question):
            entry["alternatives"].append({
                "answer": answer, "examples_changed": example_changes(check, question, answer),
                "settings": [{**item, "text": item.get("setting") == TEXT} for item in mine
                             if item.get("answer") == answer]})
        impacts[question.id] = entry
    return impacts


def cached_impacts(root: Path, check: BookCheck, store: Store | None = None) -> dict[str, Any]:
    """:func:`saved_impacts` (every example replayed under every other answer of every question: most of a
    rebuild's verification), reused while the book, its examples, its engine and the saved simulations are
    unchanged.  An answer whose replay hit the time limit is not kept: a loaded machine's."""
    store = store or Store(root)
    key = _impact_key(root, check)
    kept: dict[str, Any] | None = store.load(IMPACTS, key, json.loads)
    if isinstance(kept, dict):
        return kept
    impacts = saved_impacts(root, check)
    text = json.dumps(impacts, sort_keys=True, ensure_ascii=False)
    if json.loads(text) == impacts and "engine did not answer within" not in text:  # plain data, no time-out
        store.put(IMPACTS, key, text.encode())
    return impacts


def impacts_cached(root: Path, check: BookCheck, store: Store | None = None) -> bool:
    """Whether :func:`cached_impacts` would answer from the store (a build then needs not wait for it)."""
    store = store or Store(root)
    return store.enabled and store.load(IMPACTS, _impact_key(root, check), json.loads) is not None


def _impact_key(root: Path, check: BookCheck) -> str:
    from rulepress.analyze.analysis import report_path as analysis_path  # it imports this module

    book = check.book
    saved = analysis_path(root, book.id)  # the saved analysis holds each answer's simulated play
    # Not the chapters' text (replays never read it: a rule edit must not replay every answer again), but the
    # rules it defines, which replay messages may name.
    sources = hashlib.sha256()
    folder = root / "rules_src" / book.id
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        if path.relative_to(folder).parts[0] != "chapters":
            sources.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    rules = json.dumps([(r.id, r.number, r.title, r.level, r.chapter) for r in book.rules.values()])
    return key_of(code_digest(), book.id, sources.hexdigest(), rules,
                  tree_digest(root / "examples" / book.id), watched_digest(book.root / "engine" / book.engine_package),
                  saved.read_bytes() if saved.is_file() else b"", " ".join(r.status for r in check.results))
