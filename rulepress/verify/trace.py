"""Traceability: each rule's engine code, its examples, and whether replay exercised it."""

from __future__ import annotations

import io
import re
import tokenize
from ast import literal_eval
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rulepress.errors import SourceError, relative
from rulepress.load import engine_source
from rulepress.load.rules import rule_hint
from rulepress.store import cached_data, declare, key_of, watched_digest
from rulepress.verify.engines import parsed, source_facts

if TYPE_CHECKING:
    from rulepress.verify.gate import BookCheck

ALL_PROSE = "every rule under this heading is prose only"  # a heading's reason (pages say it in their language)


@dataclass
class RuleTrace:
    id: str
    number: str
    title: str
    engine: list[str] = field(default_factory=list)  # "engine/x/y.py:12"
    prose_only: str | None = None
    examples: list[str] = field(default_factory=list)  # examples that say they illustrate it
    exercised_by: list[str] = field(default_factory=list)  # examples whose replay touched it
    # The engine's decisions inside this rule (rulepress.verify.decisions.decisions_by_rule): id, question, what
    # the engine does, the option that implements other answers, and where the engine marks it.
    decisions: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "number": self.number, "title": self.title, "engine": self.engine,
                "prose_only": self.prose_only, "examples": self.examples, "exercised_by": self.exercised_by,
                "exercised": bool(self.exercised_by), "decisions": self.decisions}


@dataclass
class Trace:
    rules: dict[str, RuleTrace]
    problems: list[str]

    def unexercised(self) -> list[RuleTrace]:
        return [r for r in self.rules.values() if not r.exercised_by and r.prose_only is None]


def engine_rule_literals(folder: Path, prefix: str, root: Path) -> dict[str, list[str]]:
    """Every string literal in the engine's Python that looks like one of the book's rule IDs."""
    pattern = re.compile(rf"{re.escape(prefix)}(\.[a-z0-9-]+)+")
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        tree = parsed(path)  # the one parse of the file in this run, which the decisions and the closure read too
        literals = source_facts(tree).strings if tree is not None else _tokens(engine_source.read(path))
        shown = relative(path, root)
        for line, value in literals:
            if pattern.fullmatch(value):
                found.setdefault(value, []).append(f"{shown}:{line}")
    return found


def _tokens(source: str) -> list[tuple[int, str]]:
    """The string literals of a module that does not parse, up to its fault: a module the package imports only
    when needed is reported by unparsable(), and its literals still count.  (A stray byte that is not UTF-8
    only hides literals.)"""
    literals = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.STRING:
                continue
            try:
                value = literal_eval(token.string)
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, str):
                literals.append((token.start[0], value))
    except (tokenize.TokenError, SyntaxError):
        pass
    return literals


def unparsable(folder: Path, package: str, root: Path) -> list[str]:
    """Each engine module that is not valid Python, at its line: importing the package need not have read it."""
    problems = []
    for path in sorted(folder.rglob("*.py")):
        try:
            compile(engine_source.read(path), str(path), "exec", dont_inherit=True)
        except SyntaxError as exc:  # IndentationError and TabError are SyntaxErrors too
            error = SourceError(relative(path, root), exc.lineno, f"engine '{package}' does not parse: {exc.msg}",
                                column=exc.offset or None)
            problems.append(str(error))
        except ValueError as exc:  # a NUL byte in the source
            problems.append(f"{relative(path, root)}: engine '{package}' does not parse: {exc}")
    return problems


FACTS = declare("trace", keep=100)  # an engine's rule-ID literals and parse check, kept under its files


def engine_facts(folder: Path, package: str, prefix: str, root: Path) -> tuple[dict[str, list[str]], list[str]]:
    """:func:`engine_rule_literals` and :func:`unparsable` (tokenizing every engine file: most of a trace), read
    again only when a file of the engine changed."""
    key = key_of(str(folder), package, prefix, str(root), watched_digest(folder))
    found: tuple[dict[str, list[str]], list[str]] = cached_data(
        root, FACTS, key, lambda: (engine_rule_literals(folder, prefix, root), unparsable(folder, package, root)))
    return found


def build_trace(check: BookCheck, root: Path) -> Trace:
    book = check.book
    folder = root / "engine" / book.engine_package
    literals, problems = engine_facts(folder, book.engine_package, book.prefix, root)
    rules = {rid: RuleTrace(rid, r.number, r.title) for rid, r in book.rules.items()}
    questions = {q.id for q in book.questions}  # OptionSpecs name their question, which is not a rule
    for rule_id, places in literals.items():
        if rule_id in questions:
            continue
        if rule_id in rules:
            rules[rule_id].engine = places
        else:
            problems.append(f"{places[0]}: engine code names unknown rule ID '{rule_id}' (book {book.id})"
                            f"{rule_hint(rule_id, rules)}")
    for rule_id, reason in book.prose_only.items():
        rules[rule_id].prose_only = reason
    for example in check.examples:
        for rule_id in example.rules:
            rules[rule_id].examples.append(example.id)
    for result in check.results:
        for rule_id in result.exercised:
            if rule_id in rules:
                rules[rule_id].exercised_by.append(result.example.id)
    # A heading over rules takes after the rules under it (deepest first, so chapters see sections):
    # it is exercised through them, and prose only when all of them are.
    for rule_id in sorted(book.rules, key=lambda r: -book.rules[r].level):
        children = book.rules[rule_id].children
        trace = rules[rule_id]
        if not children:
            continue
        if trace.prose_only is None and not trace.engine and all(rules[c].prose_only is not None for c in children):
            trace.prose_only = ALL_PROSE
        if not trace.exercised_by:
            trace.exercised_by = list(dict.fromkeys(e for child in children for e in rules[child].exercised_by))
    for rule_id, rule in book.rules.items():
        if _enforced(rule_id, rules, book.rules) or rules[rule_id].prose_only is not None:
            continue
        problems.append(f"{rule.file}:{rule.line}: rule {rule.number} ({rule_id}) is enforced by no engine code "
                        f"and not listed in {book.path('prose_only.yaml')} with a reason")
    return Trace(rules, problems)


def _enforced(rule_id: str, traces: dict[str, RuleTrace], rules: dict[str, Any]) -> bool:
    """A rule is enforced when engine code names it; a heading over rules, when any rule under it is."""
    if traces[rule_id].engine:
        return True
    return any(_enforced(child, traces, rules) or traces[child].prose_only is not None
               for child in rules[rule_id].children)
