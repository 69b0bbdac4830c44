"""The ``rulepress`` command line: verify, build, questions, rules, diff."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

from rulepress import environment
from rulepress.errors import BuildRefused, SourceError, bounded, counted, excerpt, os_problem, problem_kind
from rulepress.project import project_root
from rulepress.serve.cli import add_serve


def _root(args: argparse.Namespace) -> Path:
    return project_root(args.root)


def cmd_verify(args: argparse.Namespace) -> int:
    from rulepress.analyze.translation_status import gate_findings
    from rulepress.verify.gate import verify

    report = verify(_root(args), args.book or None, draw=False, site=True)
    warnings = []  # translations missing or stale: visible, fatal only with --strict
    for check in report.books:
        errors, found = gate_findings(check)
        report.problems.extend(errors + (found if args.strict else []))
        warnings += [] if args.strict else found
    if args.json:  # one record per example; a problem or warning of no example is a record of its own kind
        for result in report.results:
            print(json.dumps({"kind": "example", **result.record()}, ensure_ascii=False))
        for kind, messages in (("error", report.problems), ("warning", warnings)):
            for message in messages:
                print(json.dumps({"kind": kind, "message": message}, ensure_ascii=False))
        return 0 if report.ok else 1
    for result in report.results:
        mark = {"passed": "ok  ", "failed": "FAIL", "error": "ERR "}[result.status]
        print(f"{mark} {result.example.book}/{result.example.id}")
        if not result.ok:
            print(f"     {bounded(result.message)}")
    for problem in report.problems:
        print(f"ERR  {bounded(problem)}")
    for warning in warnings:
        print(f"WARN {bounded(warning)}")
    print(verify_summary(report.results, report.problems))
    return 0 if report.ok else 1


def verify_summary(results: list[Any], problems: list[str]) -> str:
    """The examples that passed and failed, then the problems that belong to no example, counted by kind: "90
    passed, 0 failed; 2 problems outside the examples (provenance.yaml 2)"."""
    passed = sum(r.ok for r in results)
    said = f"{passed} passed, {len(results) - passed} failed"
    if not problems:
        return said
    kinds = Counter(problem_kind(problem) for problem in problems)
    by_kind = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{said}; {counted(len(problems), 'problem')} outside the examples ({by_kind})"


def cmd_build(args: argparse.Namespace) -> int:
    from rulepress.publish.build import build

    try:
        summary = build(_root(args), strict=args.strict, site_dir=Path(args.site_dir) if args.site_dir else None,
                        books=args.book, wait=args.wait)
    except BuildRefused as refused:
        print("rulepress build refused: nothing was published; the site is as the last good build left it.",
              file=sys.stderr)
        for problem in refused.problems:
            print(f"  - {bounded(problem)}", file=sys.stderr)
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


def cmd_translations(args: argparse.Namespace) -> int:
    from rulepress.analyze.translation_status import run_translations

    return run_translations(_root(args), args)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="rulepress", description="Rulebooks whose examples are replayed "
                                                                "against an executable engine.")
    top.add_argument("--root", help="the project's root folder, for working from outside it (default: "
                                    "$RULEPRESS_ROOT, else the folder holding rulepress.yaml at or above here)")
    sub = top.add_subparsers(dest="command", required=True)

    verify = sub.add_parser("verify", help="replay every example against its engine")
    verify.add_argument("--json", action="store_true", help="one JSON record per example")
    verify.add_argument("--book", action="append", help="only this book (repeatable)")
    verify.add_argument("--strict", action="store_true", help="missing or stale translations are errors")
    verify.set_defaults(run=cmd_verify)

    build = sub.add_parser("build", help="verify, then build the site and every PDF (atomically)")
    build.add_argument("--strict", action="store_true", help="warnings (unlogged rule changes) fail the build")
    build.add_argument("--site-dir", help="where to publish (default: site/); only an empty folder or one an "
                                          "earlier build published is ever replaced")
    build.add_argument("--book", action="append", help="only this book (repeatable); the site holds only these")
    build.add_argument("--wait", type=float, default=30.0, metavar="SECONDS",
                       help="how long to wait for another build of this project to finish (default: 30)")
    build.set_defaults(run=cmd_build)

    questions = sub.add_parser("questions", help="designer questions, open ones first")
    questions.add_argument("book", nargs="?")
    questions.add_argument("--impact", action="store_true", help="replay and simulate under each answer")
    questions.add_argument("--games", type=int, default=400, help="random games per alternative (--impact)")
    questions.add_argument("--jobs", type=int, default=0,
                           help="processes (default: $RULEPRESS_JOBS, else one per core)")
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

    translations = sub.add_parser("translations", help="translated items that are missing or stale, with the "
                                                       "source's changes since (exit 1 if any)")
    translations.add_argument("book")
    translations.add_argument("--lang", help="only this translation (default: every one book.yaml declares)")
    translations.add_argument("--json", action="store_true")
    translations.add_argument("--mark", nargs="+", metavar="ITEM", help="record that these items (rule:<id>, "
                              "example:<id>, glossary:<term>, question:<id>, book:title...) translate today's source")
    translations.add_argument("--mark-all", action="store_true", help="--mark every translated item")
    translations.set_defaults(run=cmd_translations)

    preflight = sub.add_parser("preflight", help="check built PDFs as a printer would (PDF/X-4, CMYK, fonts, "
                                                 "text sizes, boxes) and the digital edition's tags")
    preflight.add_argument("pdfs", nargs="*", metavar="PDF", help="PDF files (default: every PDF in site/pdf/)")
    preflight.add_argument("--edition", choices=("print", "digital", "designer"),
                           help="check as this edition (default: from the file name)")
    preflight.set_defaults(run=cmd_preflight)
    _add_authoring(sub)
    _add_analysis(sub)
    add_serve(sub)
    return top


def source_error(exc: SourceError) -> str:
    """``file:line:col: message [rule X]``, leaving out what is not known."""
    return SourceError.__str__(exc)  # the first problem of several, too


def crash_log(exc: BaseException, args: argparse.Namespace | None, argv: list[str] | None) -> Path:
    """Write the traceback where the user can find it: the project's cache if there is a project, else /tmp."""
    try:
        folder = _root(args) / ".rulepress-cache" if args is not None else None
    except Exception:  # no project (or a broken --root): the crash log must still be written somewhere
        folder = None
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    text = (f"rulepress {' '.join(sys.argv[1:] if argv is None else argv)}\n"
            f"python {sys.version.split()[0]}, pid {os.getpid()}, {stamp} UTC\n\n"
            + "".join(traceback.format_exception(exc)))
    for base in ([folder] if folder else []) + [Path(tempfile.gettempdir())]:
        try:
            base.mkdir(parents=True, exist_ok=True)
            path = base / f"{'' if base == folder else 'rulepress-'}crash-{stamp}-{os.getpid()}.log"
            path.write_text(text, encoding="utf-8")
            return path
        except OSError:
            continue
    raise OSError("no writable folder for the crash log")


def internal_error(exc: BaseException, args: argparse.Namespace | None, argv: list[str] | None) -> int:
    summary = (f"{type(exc).__name__}: {exc}".splitlines() or [type(exc).__name__])[0][:300]
    try:
        where = f"details in {crash_log(exc, args, argv)}"
    except OSError as log_error:
        where = f"no crash log could be written ({log_error})"
    print(f"rulepress: internal error (this is a bug in rulepress): {summary}; {where}", file=sys.stderr)
    return 70  # EX_SOFTWARE


def interrupt_behind(exc: BaseException) -> bool:
    """Whether a Ctrl-C is what this error came from.

    An extension module whose import a ``KeyboardInterrupt`` stops (pybind11's, such as scipy's HiGHS) reports
    ``ImportError: initialization failed``, with the interrupt as its cause: that is the user's Ctrl-C, not a bug.
    A KeyboardInterrupt that engine code raised itself is the engine's fault, which the guard says with an
    ``EngineFault``; one that got this far is a bug.
    """
    from rulepress.verify.limits import EngineFault  # only on the way out: the command line's start stays light

    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen and not isinstance(cause, EngineFault):
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def main(argv: list[str] | None = None) -> int:
    """The command line.  While a command runs, SIGPIPE has its default action, so `rulepress questions | head`
    ends quietly when head has read enough; it is given back on return, so a process that calls this (a test, a
    tool) keeps its own: Python's, under which a write to a closed pipe is an error, not the silent end of the
    whole process."""
    if not hasattr(signal, "SIGPIPE"):
        return _run(argv)
    previous = signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        code = _run(argv)
        if sys.stdout is not None:
            sys.stdout.flush()  # still under the default action: a reader gone ends the process quietly here
        return code
    finally:
        signal.signal(signal.SIGPIPE, previous)


def _run(argv: list[str] | None) -> int:
    args = parser().parse_args(argv)
    try:
        environment.check()  # a bad variable is one line, before any work
        return int(args.run(args))
    except SourceError as exc:
        print(f"rulepress: {source_error(exc)}", file=sys.stderr)
        return 1
    except FileNotFoundError as exc:
        print(f"rulepress: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a full disk, a folder it may not write: what it hit, not a bug in rulepress
        print(f"rulepress: {os_problem(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("rulepress: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # MemoryError and RecursionError are Exceptions too
        if interrupt_behind(exc):
            print("rulepress: interrupted", file=sys.stderr)
            return 130
        return internal_error(exc, args, argv)
    except BaseException as exc:
        from rulepress.publish.build import Terminated

        if isinstance(exc, Terminated):
            print("rulepress: terminated", file=sys.stderr)
            return 143
        raise  # SystemExit and GeneratorExit are not errors


def _book_of(path: Path, root: Path | None) -> Any:
    """The project's book a PDF is an edition of, by its file name (``<book>[-<lang>][-<edition>].pdf``), or
    None: its player editions are then searched for any book's rule IDs."""
    from rulepress.errors import SourceError
    from rulepress.load.book import book_ids, load_book

    stem = path.stem.removesuffix("-digital").removesuffix("-designer")
    try:
        ids = book_ids(root) if root is not None else []
        found = max((i for i in ids if stem == i or stem.startswith(f"{i}-")), key=len, default=None)
        return load_book(root, found) if found is not None and root is not None else None
    except SourceError:  # SourceErrors too: a bad book is the build's to report
        return None


def cmd_preflight(args: argparse.Namespace) -> int:
    from rulepress.load import given
    from rulepress.publish.pagechecks import register
    from rulepress.publish.preflight import preflight_read

    # A PDF named here may be anywhere (a printer's proof), but it is read only if it is a regular file of a
    # PDF's size: /dev/zero or a FIFO would never end.
    named = args.pdfs or [str(path) for path in sorted((_root(args) / "site" / "pdf").glob("*.pdf"))]
    paths = [given.regular_file(name, "preflight", given.MAX_PDF_BYTES) for name in named]
    if not paths:
        print("rulepress: no PDF to check (build first, or name the files)", file=sys.stderr)
        return 1
    try:
        root: Path | None = _root(args)
    except FileNotFoundError:  # PDFs named outside any project: checked without a book (ProjectNotFound is one)
        root = None
    failed = 0
    placements = {}
    for path in paths:
        findings, placements[path] = preflight_read(path, args.edition, _book_of(path, root))
        for finding in findings:
            print(finding)
        if findings:
            failed += 1
        else:
            print(f"ok   {path}")
    for path in paths:  # a print edition named with its digital edition: the two held to each other
        screen = path.with_name(f"{path.stem}-digital.pdf")
        if placements.get(path) is not None and placements.get(screen) is not None and not args.edition:
            findings = register(placements[path], placements[screen], str(path))
            for finding in findings:
                print(finding)
            failed += bool(findings)
    return 1 if failed else 0


def cmd_new(args: argparse.Namespace) -> int:
    from rulepress.project import ROOT_VARIABLE, ProjectNotFound
    from rulepress.scaffold import SAMPLES, ScaffoldError, names_for, write_sample, write_skeleton

    if args.root is not None:  # a project, or a new or empty folder that starts one
        root = Path(args.root)
        if root.exists() and not root.is_dir():
            raise ProjectNotFound(f"--root {args.root}: not a folder (name the project's root folder)")
    else:
        try:
            root = project_root(None)  # inside a project: a second book
        except ProjectNotFound:
            if os.environ.get(ROOT_VARIABLE):
                raise  # a bad RULEPRESS_ROOT is said, not passed over
            root = Path.cwd()  # no project here or above: this folder starts one
    if args.sample is not None and (args.book not in (None, args.sample) or args.template or args.prefix
                                    or args.title):
        print(f"rulepress new: --from copies the sample as it is, under its own ID: write 'rulepress new --from "
              f"{args.sample}' (BOOK, --template, --prefix and --title go without --from)", file=sys.stderr)
        return 2
    if args.sample is None and args.book is None:
        print("rulepress new: name the new book (rulepress new BOOK), or copy a sample with --from "
              f"({', '.join(SAMPLES)})", file=sys.stderr)
        return 2
    try:
        if args.sample is not None:
            written, book, game = write_sample(root, args.sample), args.sample, "the sample's game"
        else:
            written = write_skeleton(root, names_for(args.book, args.prefix, args.title), args.template or "race")
            book, game = args.book, f"the {args.template or 'race'} skeleton"
    except ScaffoldError as exc:
        print(f"rulepress new: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path.relative_to(root)}")
    print(f"next: rulepress verify --book {book}, then rulepress build; replace {game} with your game: "
          f"rulepress guide engine (the engine), rulepress guide formats (the book's files)")
    return 0


def cmd_guide(args: argparse.Namespace) -> int:
    from rulepress.guides import guide_text

    sys.stdout.write(guide_text(args.name))
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from rulepress.analyze.explain import run_explain

    return run_explain(_root(args), args)


def cmd_record(args: argparse.Namespace) -> int:
    from rulepress.analyze.record import run_record

    return run_record(_root(args), args)


MOST_SEED = 2**64 - 1  # as an example's seed (rulepress/load/schemas/example.yaml)


def seed_number(text: str) -> int:
    """A seed given on the command line: a whole number from 0 to 2**64 - 1, as an example's ``seed`` is."""
    if not text.isascii() or not text.isdigit() or len(text) > 20 or int(text) > MOST_SEED:
        raise argparse.ArgumentTypeError(f"{excerpt(text)} is not a seed: a whole number from 0 to {MOST_SEED}")
    return int(text)


def _add_authoring(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``new``, ``explain`` and ``record``: the commands for writing a game (rulepress guide engine)."""
    from rulepress.scaffold import SAMPLES, TEMPLATES

    new = sub.add_parser("new", help="write a skeleton book (data, a chapter, an engine, examples) that verifies")
    new.add_argument("book", nargs="?", help="the new book's ID, e.g. tic-tac-toe")
    new.add_argument("--template", choices=TEMPLATES, help="the skeleton's game: race (a race to a target count, the "
                     "default), dice (the same with a die: chance), cards (a hidden hand: an observer, a forced deal)")
    new.add_argument("--from", dest="sample", choices=SAMPLES, help="copy a sample book shipped with rulepress "
                     "instead, under its own ID and rule prefix (kuhn-poker: chance and hidden information)")
    new.add_argument("--prefix", help="its rule prefix (default: the initials of the ID)")
    new.add_argument("--title", help="its title (default: from the ID)")
    new.set_defaults(run=cmd_new)

    from rulepress.guides import GUIDES

    guide = sub.add_parser("guide", help="print a guide shipped with rulepress: "
                                         + ", ".join(f"{name} ({what})" for name, what in GUIDES.items()))
    guide.add_argument("name", choices=list(GUIDES), help="which guide")
    guide.set_defaults(run=cmd_guide)

    explain = sub.add_parser("explain", help="an example's position before a step: state, legal actions, verdicts")
    explain.add_argument("book")
    explain.add_argument("example", help="the example's ID")
    explain.add_argument("--step", type=int, help="the step whose position to show (default: the end)")
    explain.add_argument("--action", help="an action as a YAML step, e.g. '{player: Ann, do: mark, square: b2}': "
                                          "allowed, or the rule that forbids it")
    explain.add_argument("--as", dest="seat", metavar="SEAT",
                         help="show the position as this player sees it (a game with an observer): their view, "
                              "their information-state string and only their own legal actions")
    explain.set_defaults(run=cmd_explain)

    record = sub.add_parser("record", help="turn a played game into an example (marked reviewed: false)")
    record.add_argument("book")
    record.add_argument("--policy", help="an engine policy (its EngineSpec's policies) or 'random' "
                                         "(default: its default_policy)")
    record.add_argument("--seed", type=seed_number, default=0,
                        help="the setup's and the policy's seed, 0 to 2**64 - 1 (default: 0)")
    record.add_argument("--moves", help="the moves instead, as a YAML list of example steps")
    record.add_argument("--moves-file", help="the moves instead, from a YAML file holding such a list")
    record.add_argument("--players", help="player names, comma separated (default: the fewest the book allows)")
    record.add_argument("--id", help="the example's ID (default: <book>-recorded-<seed>)")
    record.add_argument("--title", help="the example's title")
    record.add_argument("--rules", help="rule IDs it illustrates, comma separated (default: those events named)")
    record.add_argument("--every-round", action="store_true", help="a checkpoint at the end of each round")
    record.add_argument("--on-event", action="append", metavar="KIND", help="a checkpoint after each event of "
                                                                            "this kind (repeatable)")
    record.add_argument("--at", type=int, action="append", metavar="N", help="a checkpoint after action N")
    record.add_argument("--max-actions", type=int, default=300, help="stop recording after this many actions")
    record.add_argument("--force", action="store_true", help="replace an existing example of that ID")
    record.set_defaults(run=cmd_record)


def cmd_analyze(args: argparse.Namespace) -> int:
    from rulepress.analyze.report import run_analyze

    return run_analyze(_root(args), args)


def cmd_lint(args: argparse.Namespace) -> int:
    from rulepress.analyze.lint import run_lint

    return run_lint(_root(args), args)


def _add_analysis(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``analyze`` and ``lint``: what is wrong or undetermined in a book (simulated play; text against data)."""
    analyze = sub.add_parser("analyze", help="simulate play: dead rules, unreached endings, unused components, "
                                             "balance, questions that do not matter")
    analyze.add_argument("book")
    analyze.add_argument("--games", type=int, default=None,
                         help="games per configuration to start with (default: 500)")
    analyze.add_argument("--budget", type=int, default=None,
                         help="games per configuration at most, played while a finding is undecided (default: 8000)")
    analyze.add_argument("--seed", type=seed_number, default=0,
                         help="the run's seed, 0 to 2**64 - 1: the same seed gives the same analysis")
    analyze.add_argument("--workers", type=int, default=None, help="local Dask workers (default: one per core; "
                                                                   "0: in this process)")
    analyze.add_argument("--scheduler", help="an existing Dask scheduler, e.g. tcp://10.0.0.5:8786")
    analyze.add_argument("--json", action="store_true", help="the whole analysis as one JSON document")
    analyze.add_argument("--players", help="who plays the text's game, comma-separated: random, the book's own "
                                           "policies, mcts:N or ismcts:N (OpenSpiel's searches, N simulations a "
                                           "decision; pip install 'rulepress[openspiel]'), 'A vs B' (A in one seat "
                                           "in turn, B in the others). Default: random, the book's policies and, "
                                           "with OpenSpiel, ismcts:50 (mcts:50 where nothing is hidden) alone and "
                                           "against random players")
    analyze.set_defaults(run=cmd_analyze)

    lint = sub.add_parser("lint", help="check the text against its data: ranges, numbers, glossary, components, "
                                       "references, provenance")
    lint.add_argument("book", nargs="?", help="one book (default: every book)")
    lint.add_argument("--json", action="store_true", help="one JSON record per finding")
    lint.set_defaults(run=cmd_lint)
    sub.choices["questions"].add_argument("--scheduler", help="run --impact on an existing Dask scheduler")


if __name__ == "__main__":
    sys.exit(main())
