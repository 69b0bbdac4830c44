"""``rulepress rules --json [BOOK]``: every rule, its engine code, its examples and measured coverage."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rulepress.verify.gate import verify


def run_rules(root: Path, args: argparse.Namespace) -> int:
    report = verify(root, [args.book] if args.book else None, draw=False)
    for problem in report.problems:
        print(f"rulepress: {problem}", file=sys.stderr)
    for check in report.books:
        assert check.trace is not None
        for rule in check.trace.rules.values():
            if args.json:
                print(json.dumps({"book": check.book.id, **rule.as_dict()}, ensure_ascii=False))
            else:
                state = "prose only" if rule.prose_only is not None else (
                    "exercised" if rule.exercised_by else "NOT EXERCISED")
                print(f"{check.book.id} {rule.number:8} {rule.id:32} {state:14} "
                      f"examples: {', '.join(rule.examples) or '-'}")
    return 0 if not report.problems else 1
