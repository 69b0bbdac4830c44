"""Record, or compare against, what the engines print and draw: ``tests/golden/<book>.json``.

    python tools/golden.py            # rewrite tests/golden/ from the current engines (after reviewing a change)
    python tools/golden.py --check    # exit 1 and name what changed (what tests/test_golden_outputs.py does)

The examples' expectations check what the rules say; they do not check what a diagram looks like, how a step
is narrated in each language, or how a whole game unfolds past the last example.  Those outputs were reviewed
by eye when they were made (in the built site and PDFs), and this record keeps them from changing unnoticed:

* every example's transcript: each step's narration in every language of the book, and which rule refused it,
  in what words (the engine's whole refusal message);
* every checkpoint's position in the engine's own words (a diagram's alt text), in every language;
* every checkpoint's diagram in every language, as the SHA-256 of its SVG (the site shows the drawing itself);
* a few seeded games per player count played with random legal moves: the actions taken, the rules that fired
  (as a digest), the result and the metrics.  A replay is deterministic for a seed, so these change only when
  an engine's behaviour does.

A change here is not a failure of the rules: it is a change to review.  Look at the built pages for the named
examples, and if the new output is right, run ``python tools/golden.py`` and commit the record with the change.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
SEEDS = (1, 2, 3)  # games per player count
MAX_ACTIONS = 20_000  # a random game of any bundled book ends long before this


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _state_words(check: Any, result: Any, snapshot: dict[str, Any]) -> dict[str, str]:
    """The engine's own words for a position (the alt text of a diagram), in every language of the book."""
    from rulepress.i18n import book_languages
    from rulepress.render.markdown import state_narration

    return {lang: state_narration(result, check.book, snapshot, lang) for lang in book_languages(check.book.data)}


def examples_record(check: Any) -> dict[str, Any]:
    """Each example's record, from the replays the gate made of it (``check.results``), else replayed here."""
    from rulepress.verify.replay import replay

    made = {result.example.id: result for result in check.results}
    record: dict[str, Any] = {}
    for example in check.examples:
        result = made.get(example.id) or replay(example, check.book, check.engine)
        record[example.id] = {
            "positions": {name: _state_words(check, result, checkpoint.shown)
                          for name, checkpoint in result.checkpoints.items()},
            "status": result.status,
            "transcript": [{"step": line.step, "rejected_by": line.rejected_by,
                            **({"refusal": line.refusal} if line.rejected_by else {}),
                            "narrations": dict(line.narrations) or {"": line.narration}}
                           for line in result.transcript],
            "diagrams": {name: {lang: _digest(svg) for lang, svg in (checkpoint.svgs or {"": checkpoint.svg}).items()
                                if svg is not None}
                         for name, checkpoint in result.checkpoints.items() if checkpoint.svg is not None},
        }
    return record


def _plain(data: Any) -> Any:
    return json.loads(json.dumps(data, sort_keys=True, default=str))


def self_play_record(check: Any) -> dict[str, Any]:
    """Seeded games at every player count the book allows, default options: with random legal moves (seeds 1-3)
    and with each of the engine's own policies (seed 1), which play long enough to reach the late game."""
    from rulepress.verify.replay import make_game

    game = make_game(check.engine, check.book, {})
    players = check.book.data["players"]
    policies: dict[str, Any] = {"random": None, **check.engine.policies}
    record: dict[str, Any] = {}
    for count in range(players["min"], players["max"] + 1):
        names = [f"P{number}" for number in range(1, count + 1)]
        for name, policy in policies.items():
            for seed in SEEDS if policy is None else SEEDS[:1]:
                state = game.new_state(names, seed)
                rng = random.Random(seed)
                rules = hashlib.sha256()
                played = 0
                while not game.is_terminal(state) and played < MAX_ACTIONS:
                    if policy is None:
                        legal = list(game.legal_actions(state))
                        action = legal[rng.randrange(len(legal))]
                    else:
                        action = policy(game, state, rng)
                    for event in game.apply(state, action):
                        rules.update(event.rule.encode() + b"\n")
                    played += 1
                record[f"{count}p-{name}-seed{seed}"] = {
                    "actions": played, "rules_fired": rules.hexdigest()[:16], "result": _plain(game.result(state)),
                    "metrics": _plain(game.metrics(state)),
                    "final": _digest(json.dumps(game.snapshot(state), sort_keys=True, default=str)),
                    "diagram": _digest(game.render_svg(state)),
                }
    return record


def record(root: Path, book_id: str) -> dict[str, Any]:
    from rulepress.verify.gate import load_checked_book

    check = load_checked_book(root, book_id)
    return {"examples": examples_record(check), "self_play": self_play_record(check)}


def differences(wanted: Any, actual: Any, path: str = "") -> list[str]:
    """Each place where ``actual`` differs from the record, as ``path: recorded -> now``."""
    if isinstance(wanted, dict) and isinstance(actual, dict):
        found = []
        for key in sorted(set(wanted) | set(actual), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                found.append(f"{where}: recorded, now missing")
            elif key not in wanted:
                found.append(f"{where}: new, not recorded")
            else:
                found += differences(wanted[key], actual[key], where)
        return found
    if isinstance(wanted, list) and isinstance(actual, list) and len(wanted) == len(actual):
        return [line for index, (left, right) in enumerate(zip(wanted, actual, strict=True))
                for line in differences(left, right, f"{path}[{index}]")]
    return [] if wanted == actual else [f"{path}: {json.dumps(wanted, ensure_ascii=False)[:200]} -> "
                                        f"{json.dumps(actual, ensure_ascii=False)[:200]}"]


def main(argv: list[str] | None = None) -> int:
    from rulepress.load.book import book_ids

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, change nothing; exit 1 on a difference")
    parser.add_argument("books", nargs="*", help="book IDs (default: every bundled book)")
    options = parser.parse_args(argv)
    changed = 0
    for book_id in options.books or book_ids(ROOT):
        path = GOLDEN / f"{book_id}.json"
        now = record(ROOT, book_id)
        if options.check:
            found = differences(json.loads(path.read_text(encoding="utf-8")), now) if path.exists() else ["no record"]
            for line in found:
                print(f"{path.relative_to(ROOT)}: {line}")
            changed += bool(found)
        else:
            GOLDEN.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(now, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
