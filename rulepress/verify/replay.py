"""Replay one worked example against its engine and say, precisely, where they disagree."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import jinja2

from rulepress.load.book import Book
from rulepress.load.examples import Example, Step
from rulepress.load.rules import DataEnvironment
from rulepress.protocol import DescriptionError, Event, Game, RuleViolation

_MISSING = object()


@dataclass
class Checkpoint:
    name: str
    step: int
    snapshot: dict[str, Any]
    events: list[dict[str, Any]]
    caption: str | None = None
    svg: str | None = None


@dataclass
class TranscriptLine:
    step: int
    text: str
    rejected_by: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ExampleResult:
    example: Example
    status: str  # passed | failed | error
    message: str = ""
    checkpoints: dict[str, Checkpoint] = field(default_factory=dict)
    transcript: list[TranscriptLine] = field(default_factory=list)
    text: str = ""
    exercised: set[str] = field(default_factory=set)
    final: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "passed"

    def record(self) -> dict[str, Any]:
        """The one-line JSON record of ``rulepress verify --json``."""
        return {"id": self.example.id, "book": self.example.book, "rules": self.example.rules,
                "status": self.status, "message": self.message, "source": self.example.source}


class _Mismatch(Exception):
    """The example and the engine disagree (status 'failed')."""


class _Broken(Exception):
    """The example cannot be run at all (status 'error')."""


GAMES_KEPT = 4


def make_game(engine: ModuleType, book: Book, options: Mapping[str, Any]) -> Game:
    """The game for these options, built once: a Game holds only fixed rules (states are kept apart),
    and building one can be costly (Last Lantern precomputes every placement)."""
    key = (engine.__name__, repr(sorted(options.items())))
    game = book.games.pop(key, None)
    if game is None:
        game = engine.make_game(book.components, dict(options))
    book.games[key] = game  # most recently used last
    while len(book.games) > GAMES_KEPT:  # a game can be large; replays come grouped by options
        del book.games[next(iter(book.games))]
    return game


def replay(example: Example, book: Book, engine: ModuleType, *, draw: bool = True, prose: bool = True,
           options: Mapping[str, Any] | None = None) -> ExampleResult:
    """Run ``example``; ``options`` overrides the example's own (designer-question impact).

    ``draw`` renders the diagrams and ``prose`` the printed text; impact replays need neither.
    """
    outcome = ExampleResult(example, "passed")
    try:
        _run(example, book, engine, outcome, draw, {**example.options, **(options or {})}, prose)
    except _Mismatch as exc:
        outcome.status, outcome.message = "failed", _frame(example, book, str(exc))
    except _Broken as exc:
        outcome.status, outcome.message = "error", _frame(example, book, str(exc))
    return outcome


def _frame(example: Example, book: Book, detail: str) -> str:
    rules = ", ".join(book.rule_label(r) for r in example.rules)
    return f"{example.id} ({example.file}): {detail} [illustrates {rules}]"


def _where(example: Example, step: Step) -> str:
    return f"step {step.index} (line {step.line})"


def _run(example: Example, book: Book, engine: ModuleType, outcome: ExampleResult, draw: bool,
         options: Mapping[str, Any], prose: bool) -> None:
    refused = example.start.get("refused")
    game = None
    try:
        game = make_game(engine, book, options)
        if "setup" in example.start:
            state = game.new_state(example.players, example.seed)
        else:
            state = game.state_from_description(example.start["state"], example.players, example.seed)
    except DescriptionError as exc:
        where = f"{'start' if game else 'options'} (line {example.line('start' if game else 'options')})"
        if refused is not None and exc.rule == refused:
            outcome.exercised.add(exc.rule)
            outcome.transcript.append(TranscriptLine(0, f"set up: {exc.message}", exc.rule))
            outcome.text = _prose(example, outcome) if prose else ""
            return
        if refused is not None:
            raise _Mismatch(f"{where}: refused by {exc.rule or 'no rule'} ({exc.message}), "
                            f"expected {book.rule_label(refused)}") from exc
        raise _Broken(f"{where}: {exc}") from exc
    except Exception as exc:  # an engine bug: report it against the example, never as a traceback
        raise _Broken(f"start (line {example.line('start')}): the engine failed: "
                      f"{type(exc).__name__}: {exc}") from exc
    if refused is not None:
        raise _Mismatch(f"start (line {example.line('start')}): the setup was accepted, expected a refusal "
                        f"by {book.rule_label(refused)}")

    pending: list[Event] = []
    for step in example.steps:
        try:
            if step.kind == "chance":
                try:
                    game.force_chance(state, step.data["chance"])
                except DescriptionError as exc:
                    raise _Broken(f"{_where(example, step)}: {exc}") from exc
            elif step.kind == "checkpoint":
                outcome.checkpoints[step.data["checkpoint"]] = _checkpoint(example, step, game, state, pending,
                                                                           outcome, draw)
                pending = []
            else:
                pending.extend(_act(example, step, game, state, outcome, book))
        except (_Mismatch, _Broken):
            raise
        except Exception as exc:  # an engine bug: report it against the step, never as a traceback
            raise _Broken(f"{_where(example, step)}: the engine failed: {type(exc).__name__}: {exc}") from exc
    outcome.exercised.update(e.rule for e in pending)
    outcome.final = game.snapshot(state)
    outcome.result = game.result(state)
    outcome.text = _prose(example, outcome) if prose else ""


def _act(example: Example, step: Step, game: Game, state: Any, outcome: ExampleResult,
         book: Book) -> list[Event]:
    where = _where(example, step)
    try:
        action = game.parse_action(state, step.data)
    except DescriptionError as exc:
        raise _Broken(f"{where}: {exc}") from exc
    except RuleViolation as exc:  # some engines can only name the action by checking it
        if step.illegal == exc.rule:
            outcome.exercised.add(exc.rule)
            outcome.transcript.append(TranscriptLine(step.index, _describe_step(step.data), exc.rule))
            return []
        raise _Mismatch(f"{where}: illegal move: {exc.message} ({book.rule_label(exc.rule)})") from exc
    text = game.format_action(state, action)
    if step.illegal:
        before = game.snapshot(state)
        try:
            events = game.apply(state, action)
        except RuleViolation as exc:
            outcome.exercised.add(exc.rule)
            if exc.rule != step.illegal:
                raise _Mismatch(f"{where}: '{text}' was rejected by {book.rule_label(exc.rule)} "
                                f"({exc.message}), expected {book.rule_label(step.illegal)}") from exc
            if game.snapshot(state) != before:
                raise _Mismatch(f"{where}: the rejected action '{text}' changed the state") from exc
            outcome.transcript.append(TranscriptLine(step.index, text, exc.rule, [{"message": exc.message}]))
            return []
        raise _Mismatch(f"{where}: '{text}' was allowed, expected a rejection by "
                        f"{book.rule_label(step.illegal)} (events: {[e.kind for e in events]})")
    try:
        events = game.apply(state, action)
    except RuleViolation as exc:
        outcome.exercised.add(exc.rule)
        raise _Mismatch(f"{where}: illegal move '{text}': {exc.message} ({book.rule_label(exc.rule)})") from exc
    except DescriptionError as exc:
        raise _Broken(f"{where}: {exc}") from exc
    outcome.exercised.update(e.rule for e in events)
    outcome.transcript.append(TranscriptLine(step.index, text, None, [e.as_dict() for e in events]))
    return events


def _describe_step(data: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in data.items() if k != "illegal")


def _checkpoint(example: Example, step: Step, game: Game, state: Any, pending: list[Event],
                outcome: ExampleResult, draw: bool) -> Checkpoint:
    name = str(step.data["checkpoint"])
    where = f"{_where(example, step)} checkpoint '{name}'"
    snapshot = game.snapshot(state)
    expect = step.data.get("expect") or {}
    if "legal_actions" in expect:
        snapshot["legal_actions"] = len(game.legal_actions(state))
    for path, wanted in expect.items():
        actual = lookup(snapshot, str(path))
        if actual is _MISSING:
            raise _Broken(f"{where}: the snapshot has no '{path}' (it has: {', '.join(sorted(snapshot))})")
        problem = compare(wanted, actual)
        if problem is not None:
            raise _Mismatch(f"{where}: {path} expected {wanted!r}, got {actual!r}{problem}")
    events = [e.as_dict() for e in pending]
    outcome.exercised.update(e.rule for e in pending)
    _match_events(where, step.data.get("events") or [], events)
    caption = step.data.get("diagram")
    checkpoint = Checkpoint(name, step.index, snapshot, events)
    if caption:
        checkpoint.caption = caption if isinstance(caption, str) else None
        if draw:
            checkpoint.svg = game.render_svg(state, checkpoint.caption)
    return checkpoint


def lookup(data: Any, path: str) -> Any:
    node = data
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.lstrip("-").isdigit() and -len(node) <= int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def compare(wanted: Any, actual: Any) -> str | None:
    """None when ``actual`` meets ``wanted``; otherwise a hint, maybe empty (mappings compare named keys only)."""
    if isinstance(wanted, Mapping) and isinstance(actual, Mapping):
        for key, value in wanted.items():
            if key not in actual:
                return f" (no key '{key}')"
            if compare(value, actual[key]) is not None:
                return f" (at '{key}': expected {value!r}, got {actual[key]!r})"
        return None
    if isinstance(wanted, bool) != isinstance(actual, bool):
        return " (a yes/no against a number)"
    return None if wanted == actual else ""


def _match_events(where: str, wanted: list[Any], actual: list[dict[str, Any]]) -> None:
    position = 0
    for expected in wanted:
        if not isinstance(expected, Mapping) or "kind" not in expected:
            raise _Broken(f"{where}: each expected event needs a 'kind'")
        while position < len(actual) and compare(expected, actual[position]) is not None:
            position += 1
        if position == len(actual):
            kinds = ", ".join(f"{e['kind']}" for e in actual) or "none"
            similar = [e for e in actual if e["kind"] == expected["kind"]]
            hint = f"; events of that kind: {similar}" if similar else ""
            raise _Mismatch(f"{where}: expected event {dict(expected)} (in order) but the events were: "
                            f"{kinds}{hint}")
        position += 1


def _prose(example: Example, outcome: ExampleResult) -> str:
    if not example.text:
        return ""
    env = DataEnvironment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True)
    context = {"cp": {k: v.snapshot for k, v in outcome.checkpoints.items()}, "final": outcome.final,
               "result": outcome.result, "events": {k: v.events for k, v in outcome.checkpoints.items()}}
    try:
        return env.from_string(example.text).render(**context)
    except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError) as exc:
        raise _Broken(f"text (line {example.text_line}): {exc}") from exc
