"""The ``rulepress`` command line: verify, build, questions, rules, diff."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

from rulepress.errors import BuildRefused, SourceError
from rulepress.project import find_root


def _root(args: argparse.Namespace) -> Path:
    return find_root(Path(args.root) if args.root else None)


def cmd_verify(args: argparse.Namespace) -> int:
    from rulepress.verify.gate import verify

    report = verify(_root(args), args.book or None, draw=False)
    if args.json:
        for problem in report.problems:
            print(json.dumps({"id": None, "book": None, "rules": [], "status": "error", "message": problem}))
        for result in report.results:
            print(json.dumps(result.record(), ensure_ascii=False))
        return 0 if report.ok else 1
    for result in report.results:
        mark = {"passed": "ok  ", "failed": "FAIL", "error": "ERR "}[result.status]
        print(f"{mark} {result.example.book}/{result.example.id}")
        if not result.ok:
            print(f"     {result.message}")
    for problem in report.problems:
        print(f"ERR  {problem}")
    passed = sum(r.ok for r in report.results)
    failed = len(report.results) - passed + len(report.problems)
    print(f"{passed} passed, {failed} failed")
    return 0 if report.ok else 1


def cmd_build(args: argparse.Namespace) -> int:
    from rulepress.publish.build import build

    try:
        summary = build(_root(args), strict=args.strict, site_dir=Path(args.site_dir) if args.site_dir else None)
    except BuildRefused as refused:
        print("rulepress build refused: nothing was published; site/ is as the last good build left it.",
              file=sys.stderr)
        for problem in refused.problems:
            print(f"  - {problem}", file=sys.stderr)
        return 1
    for line in summary:
        print(line)
    return 0


def cmd_questions(args: argparse.Namespace) -> int:
    from rulepress.analyze.questions import run_questions

    return run_questions(_root(args), args)


def cmd_rules(args: argparse.Namespace) -> int:
    from rulepress.analyze.rules_report import run_rules

    return run_rules(_root(args), args)


def cmd_diff(args: argparse.Namespace) -> int:
    from rulepress.analyze.diff import run_diff

    return run_diff(_root(args), args)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="rulepress", description="Rulebooks whose examples are replayed "
                                                                "against an executable engine.")
    top.add_argument("--root", help="project root (default: the folder holding rules_src/ at or above here)")
    sub = top.add_subparsers(dest="command", required=True)

    verify = sub.add_parser("verify", help="replay every example against its engine")
    verify.add_argument("--json", action="store_true", help="one JSON record per example")
    verify.add_argument("--book", action="append", help="only this book (repeatable)")
    verify.set_defaults(run=cmd_verify)

    build = sub.add_parser("build", help="verify, then build the site and every PDF (atomically)")
    build.add_argument("--strict", action="store_true", help="warnings (unlogged rule changes) fail the build")
    build.add_argument("--site-dir", help="where to publish (default: site/)")
    build.set_defaults(run=cmd_build)

    questions = sub.add_parser("questions", help="designer questions, open ones first")
    questions.add_argument("book", nargs="?")
    questions.add_argument("--impact", action="store_true", help="replay and simulate under each answer")
    questions.add_argument("--games", type=int, default=400, help="random games per alternative (--impact)")
    questions.add_argument("--jobs", type=int, default=0, help="processes (default: one per core)")
    questions.add_argument("--json", action="store_true")
    questions.set_defaults(run=cmd_questions)

    rules = sub.add_parser("rules", help="every rule with its engine code, examples and coverage")
    rules.add_argument("book", nargs="?")
    rules.add_argument("--json", action="store_true")
    rules.set_defaults(run=cmd_rules)

    diff = sub.add_parser("diff", help="compare a book between two git revisions, by rule ID")
    diff.add_argument("book")
    diff.add_argument("rev1")
    diff.add_argument("rev2")
    diff.add_argument("--json", action="store_true")
    diff.set_defaults(run=cmd_diff)
    return top


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `rulepress questions | head` ends quietly
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except SourceError as exc:
        print(f"rulepress: {exc}", file=sys.stderr)
        return 1
    except FileNotFoundError as exc:
        print(f"rulepress: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
