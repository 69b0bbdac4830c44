"""``rulepress questions [BOOK] [--impact]``: designer questions, open ones first, and what they put at stake."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rulepress.errors import SourceError, excerpt
from rulepress.load.book import book_ids
from rulepress.verify.gate import BookCheck, load_checked_book


def _checks(root: Path, book: str | None) -> list[BookCheck]:
    ids = book_ids(root)
    if book and book not in ids:
        raise SourceError("rules_src", None, f"no book {excerpt(book)} (books: {', '.join(ids)})")
    return [load_checked_book(root, b) for b in ([book] if book else ids)]


def run_questions(root: Path, args: argparse.Namespace) -> int:
    from rulepress.verify.replay import replay

    checks = _checks(root, args.book)
    for check in checks:
        check.results = [replay(e, check.book, check.engine, draw=False) for e in check.examples]
    if not args.impact:
        return _list(checks, args.json)
    return _impact(root, checks, args)


def _list(checks: list[BookCheck], as_json: bool) -> int:
    for check in checks:
        questions = sorted(check.book.questions, key=lambda q: q.order)
        if as_json:
            for q in questions:
                print(json.dumps({"book": check.book.id, "id": q.id, "status": q.status, "question": q.question,
                                  "rules": q.rules, "answers": q.answers, "assumed": q.assumed,
                                  "option": q.option, "source": q.source}, ensure_ascii=False))
            continue
        print(f"== {check.book.title} ({check.book.id}): "
              f"{sum(q.status == 'open' for q in questions)} open of {len(questions)}")
        for q in questions:
            option = f" [option {q.option}]" if q.option else ""
            print(f"  {q.status:8} {q.id}: {q.question}")
            print(f"           rules {', '.join(q.rules)}; assumed '{q.assumed}'{option}")
    return 0


def _impact(root: Path, checks: list[BookCheck], args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from rulepress import environment, progress
    from rulepress.analyze.cluster import pool
    from rulepress.analyze.impact import alternatives, impact_policy, measurable_moves, question_impact, save

    # --jobs beats $RULEPRESS_JOBS, which beats one per core
    with pool(environment.jobs(args.jobs), getattr(args, "scheduler", None)) as workers:
        for check in checks:
            questions = [q for q in check.book.questions if q.option and q.status == "open"]
            total = sum(args.games * (1 + len(alternatives(q))) for q in questions)
            impacts: dict[str, Any] = {}
            quiet = args.json or not progress.wanted()  # a bar only on a terminal, never in piped output
            with tqdm(total=total, desc=f"{check.book.id}: simulating", unit="game", disable=quiet,
                      leave=False) as bar:
                for question in questions:
                    impacts[question.id] = question_impact(workers, root, check, question, args.games, bar.update)
            path = save(root, check, impacts)
            if args.json:
                print(json.dumps({"book": check.book.id, "questions": impacts}, ensure_ascii=False))
                continue
            policy = impact_policy(check.engine)[0]
            print(f"== {check.book.title}: impact of {len(questions)} open questions "
                  f"({args.games} games per answer, {policy} play; saved to {path.relative_to(root)})")
            for qid, impact in impacts.items():
                print(f"  {qid} (assumed '{impact['assumed']}', option {impact['option']})")
                baseline = impact.get("baseline", {})
                for alt in impact["alternatives"]:
                    changed = alt["examples_changed"]
                    print(f"    answer '{alt['answer']}': " + (
                        "no example changes" if not changed else f"{len(changed)} example(s) change"))
                    for change in changed:
                        print(f"      - {change['id']}: {change['how']}: {change['detail']}")
                    moved = measurable_moves(baseline, alt.get("metrics", {}))
                    for line in moved or ["simulated play: nothing moves beyond noise"]:
                        print(f"      ~ {line}")
        return 0
