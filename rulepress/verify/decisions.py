"""Engine decisions (``EngineSpec.decisions``, :class:`rulepress.protocol.Decision`) checked against the book and
the engine's code: the gate's part of "every decision an engine makes where the text is silent names a designer
question".

The engine declares its decisions; its code marks where each takes effect with ``decided(state, "id")``.  Read from
the engine's source (``ast``, nothing runs), the marks say where each decision sits, so the rules report and the
designer edition can show the decisions inside each rule (and a mark naming no declared decision is refused again
as it is made, at run time: :func:`rulepress.protocol.decided`).  Problems, each at a file and line:

* ``decision-no-question``: a decision naming no designer question, or one ``questions.yaml`` does not have
  (an error: nothing the engine decides goes unasked);
* ``decision-unknown-rule``: a decision naming a rule the book does not have (an error);
* ``decision-undeclared``: a ``decided(...)`` mark naming no declared decision (an error: it would be counted
  under a name no report can explain);
* ``decision-unmarked``: a declared decision that no code marks (a warning: simulations can never count it);
* ``decision-missing``: a designer question the engine had to decide (``source: engine``) or that an engine option
  answers, with no decision naming it (an error: the gate cannot see a decision nobody declared);
* ``decision-prose-only``: a decision inside a rule ``prose_only.yaml`` says the engine has nothing to do with (an
  error: the rule is not prose only, or the decision is not inside it).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulepress.errors import relative
from rulepress.load.book import Book
from rulepress.load.rules import rule_hint
from rulepress.protocol import Decision, EngineSpec
from rulepress.store import cached_data, declare, key_of, watched_digest
from rulepress.verify.engines import parsed, source_facts

MARK = "decided"  # the function an engine calls where a decision takes effect (rulepress.protocol.decided)
FACTS = declare("decisions", keep=100)  # an engine's decision marks and declarations, kept under its files


@dataclass(frozen=True)
class DecisionProblem:
    kind: str
    severity: str  # "error" stops the build; "warning" is reported
    message: str
    file: str
    line: int | None
    rules: tuple[str, ...] = ()

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.kind}: {self.message}"


@dataclass
class DecisionFacts:
    """What the engine's source says about its decisions: where each is marked and where each is declared."""

    marks: dict[str, list[str]] = field(default_factory=dict)  # decision id -> ["engine/x/y.py:12", ...]
    declared_at: dict[str, str] = field(default_factory=dict)  # decision id -> "engine/x/options.py:40"


def declared(engine: EngineSpec) -> tuple[Decision, ...]:
    """The engine's decisions; without a declaration, one decision per option that answers a question."""
    return engine.derived_decisions()


def read_facts(folder: Path, root: Path) -> DecisionFacts:
    """Every ``decided(state, "id")`` in the engine's files, and the line of each ``Decision("id", ...)`` and
    ``OptionSpec("id", ...)`` (where an option's decision is declared)."""
    facts = DecisionFacts()
    for path in sorted(folder.rglob("*.py")):
        tree = parsed(path)
        if tree is None:
            continue  # the gate reports an engine that does not parse (verify.trace.unparsable)
        shown = relative(path, root)
        marks, declarations = _calls(tree)
        for decision, line in marks:
            facts.marks.setdefault(decision, []).append(f"{shown}:{line}")
        for decision, line in declarations:
            facts.declared_at.setdefault(decision, f"{shown}:{line}")
    return facts


def _calls(tree: ast.Module) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The ``decided(state, "id")`` marks and the ``Decision("id", ...)``/``OptionSpec("id", ...)`` declarations
    among the calls of one parse of a file."""
    marks, declarations = [], []
    for node in source_facts(tree).calls:
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if name == MARK and len(node.args) >= 2:
            value = node.args[1]
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                marks.append((value.value, node.lineno))
        elif name in ("Decision", "OptionSpec") and node.args:
            value = node.args[0]
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                declarations.append((value.value, node.lineno))
    return marks, declarations


def engine_facts(folder: Path, root: Path) -> DecisionFacts:
    """:func:`read_facts`, read again only when a file of the engine changed."""
    key = key_of(str(folder), str(root), watched_digest(folder))
    marks, declared_at = cached_data(root, FACTS, key, lambda: _plain(read_facts(folder, root)))
    return DecisionFacts(marks, declared_at)


def _plain(facts: DecisionFacts) -> tuple[dict[str, list[str]], dict[str, str]]:
    return facts.marks, facts.declared_at


def _place(text: str | None, fallback: str) -> tuple[str, int | None]:
    if not text:
        return fallback, None
    file, _, line = text.rpartition(":")
    return (file, int(line)) if line.isdigit() else (text, None)


def check_decisions(book: Book, engine: EngineSpec, root: Path) -> list[DecisionProblem]:
    """The problems listed in the module's docstring, for one book and its engine."""
    folder = root / "engine" / book.engine_package
    facts = engine_facts(folder, root)
    init = f"{relative(folder, root)}/__init__.py"
    questions = {q.id for q in book.questions}
    problems: list[DecisionProblem] = []
    decisions = declared(engine)  # each a Decision: the loader refuses any other (EngineSpec.decisions)
    ids = {d.id for d in decisions}
    for decision in decisions:
        file, line = _place(facts.declared_at.get(decision.id), init)
        if not decision.question:
            problems.append(DecisionProblem(
                "decision-no-question", "error", f"engine decision '{decision.id}' ({decision.decides}) names no "
                f"designer question: add one to {book.path('questions.yaml')} and name it", file, line,
                decision.rules))
        elif decision.question not in questions:
            problems.append(DecisionProblem(
                "decision-no-question", "error", f"engine decision '{decision.id}' names designer question "
                f"'{decision.question}', which {book.path('questions.yaml')} does not have", file, line,
                decision.rules))
        for rule in decision.rules:
            if rule not in book.rules:
                problems.append(DecisionProblem(
                    "decision-unknown-rule", "error", f"engine decision '{decision.id}' names unknown rule ID "
                    f"'{rule}' (book {book.id}){rule_hint(rule, book.rules)}", file, line, decision.rules))
        if engine.decisions is not None and decision.id not in facts.marks:
            problems.append(DecisionProblem(
                "decision-unmarked", "warning", f"engine decision '{decision.id}' is marked nowhere in the engine "
                f"(call {MARK}(state, '{decision.id}') where it takes effect): simulations cannot count it",
                file, line, decision.rules))
        for rule in decision.rules:
            if rule in book.prose_only:
                problems.append(DecisionProblem(
                    "decision-prose-only", "error", f"engine decision '{decision.id}' decides inside rule {rule}, "
                    f"which {book.path('prose_only.yaml')} says the engine has nothing to do with "
                    f"({book.prose_only[rule]})", file, line, decision.rules))
    asked = {decision.question for decision in decisions}
    for question in book.questions:
        if question.status == "dropped" or question.id in asked:
            continue
        if question.source == "engine" or question.option:
            why = f"answered by the engine option '{question.option}'" if question.option else "source: engine"
            problems.append(DecisionProblem(
                "decision-missing", "error", f"designer question {question.id} ({why}) has no engine decision: "
                f"declare what the engine does as a Decision naming it in its EngineSpec's decisions, and mark where "
                f"it takes effect with {MARK}(state, ID)", book.path("questions.yaml"), question.line,
                tuple(question.rules)))
    for decision_id, places in sorted(facts.marks.items()):
        if decision_id not in ids:
            file, line = _place(places[0], init)
            problems.append(DecisionProblem(
                "decision-undeclared", "error", f"{MARK}(state, '{decision_id}') names no decision the engine "
                f"declares in its EngineSpec's decisions (declared: {', '.join(sorted(ids)) or 'none'})", file, line))
    return problems


def decisions_by_rule(book: Book, engine: EngineSpec, root: Path) -> dict[str, list[dict[str, Any]]]:
    """Rule ID -> the engine decisions made inside it: id, question, what the engine does, where it is marked."""
    facts = engine_facts(root / "engine" / book.engine_package, root)
    found: dict[str, list[dict[str, Any]]] = {}
    for decision in declared(engine):
        entry = {"id": decision.id, "question": decision.question, "decides": decision.decides,
                 "option": decision.option, "marked": facts.marks.get(decision.id, [])}
        for rule in decision.rules:
            found.setdefault(rule, []).append(entry)
    return found
