"""``rulepress explain BOOK EXAMPLE --step N``: the position an example's step is played in, in plain words.

It replays the example up to step N (the steps before it), then prints the state (the engine's narration when
it has one, and its snapshot), every legal action in plain words (``narrate`` when the engine exports it, its
``format_action`` otherwise), what step N itself does, and, for ``--action '<yaml>'``, whether the rules allow
that action and, when they do not, the rule that forbids it.  ``--as SEAT`` shows the position as that player
sees it (a game with an observer, docs/ENGINE.md "Hidden information"): their view and its narration, their
information-state string, and only their own legal actions.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from rulepress.errors import SourceError, bounded, excerpt
from rulepress.load import given
from rulepress.load.book import Book, load_book
from rulepress.load.examples import Example, Step, load_example
from rulepress.load.schema import EXAMPLE_ID
from rulepress.protocol import (
    DescriptionError,
    EngineSpec,
    Event,
    Game,
    Observer,
    RuleViolation,
    narrator_of,
    observer_of,
    provided,
)
from rulepress.verify.engines import engine_folder
from rulepress.verify.gate import load_book_engine
from rulepress.verify.limits import EngineFault, engine_guard, replay_seconds
from rulepress.verify.replay import make_game

MOST_SHOWN = 40  # legal actions listed; a position with hundreds says how many more there are


class ExplainError(Exception):
    """Something the designer can fix (a bad step number, an action that does not parse): one line."""


@dataclass
class Position:
    """An example's position before step ``before`` (1-based; one past the last step for the end)."""

    example: Example
    book: Book
    game: Game
    state: Any
    before: int
    notes: list[str] = field(default_factory=list)  # what happened on the way that the reader should know


def open_example(root: Path, book_id: str, example_id: str) -> tuple[Book, EngineSpec, Example]:
    """The book, its engine and one example (only that one is loaded: another broken one does not matter)."""
    book = load_book(root, book_id)
    if not EXAMPLE_ID.fullmatch(example_id):  # a name from the command line: no "../", no newline
        raise ExplainError(f"{excerpt(example_id)} is not an example ID (lower case words joined by '-')")
    engine = load_book_engine(book)
    path = root / "examples" / book.id / f"{example_id}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in (root / "examples" / book.id).glob("*.yaml"))
        raise ExplainError(f"book {book.id} has no example '{example_id}' (examples: {', '.join(known) or 'none'})")
    return book, engine, load_example(path, book)


@contextmanager
def guarded(engine: EngineSpec, book: Book, where: str) -> Iterator[None]:
    """Engine code under the replay's guard: a crash or a hang is one line naming the engine's file and line."""
    try:
        with engine_guard(engine_folder(engine), book.root, replay_seconds(), crashes=True):
            yield
    except EngineFault as fault:
        if isinstance(fault.cause, ExplainError | SourceError):  # ours, raised between engine calls
            raise fault.cause from None
        raise ExplainError(f"{where}: the engine failed: {fault}") from fault


def position_before(book: Book, engine: EngineSpec, example: Example, before: int) -> Position:
    """Replay ``example``'s steps 1 .. ``before - 1``; stop early, with a note, at a step the rules refuse."""
    last = len(example.steps) + 1
    if not 1 <= before <= last:
        raise ExplainError(f"{example.id} has steps 1 to {len(example.steps)}; --step takes 1 to {last} "
                           f"({last}: the end)")
    if "refused" in example.start:
        raise ExplainError(f"{example.id} has no steps: its setup is refused by {example.start['refused']}")
    where = f"{example.file}:{example.line('start')}"
    with guarded(engine, book, where):
        game = make_game(engine, book, example.options)
        try:
            if "setup" in example.start:
                forced = example.start.get("chance")
                state = (game.new_state(example.players, example.seed, forced) if forced else
                         game.new_state(example.players, example.seed))
            else:
                state = game.state_from_description(example.start["state"], example.players, example.seed)
        except DescriptionError as exc:
            raise SourceError(example.file, example.line("start"), f"the start cannot be set up: {exc}",
                              rule=exc.rule) from exc
    position = Position(example, book, game, state, before)
    for step in example.steps[: before - 1]:
        if not _replay_step(position, engine, step):
            position.before = step.index
            break
    return position


def _replay_step(position: Position, engine: EngineSpec, step: Step) -> bool:
    """Play one step; False (with a note) when the rules refuse an action the example expects to be allowed."""
    game, state, book = position.game, position.state, position.book
    with guarded(engine, book, f"{position.example.file}:{step.line} (step {step.index})"):
        try:
            if step.kind == "chance":
                game.force_chance(state, step.data["chance"])
            elif step.kind == "action":
                game.apply(state, game.parse_action(state, step.data))
                if step.illegal is not None:
                    position.notes.append(f"step {step.index} (line {step.line}) expects a refusal by "
                                          f"{book.rule_label(step.illegal)}, but the rules allow it: it was played")
        except DescriptionError as exc:
            raise SourceError(position.example.file, step.line, f"step {step.index}: {exc}", rule=exc.rule) from exc
        except RuleViolation as exc:
            if step.illegal is None:
                position.notes.append(f"step {step.index} (line {step.line}) is refused by "
                                      f"{book.rule_label(exc.rule)}: {exc.message}; shown is the position "
                                      f"before it")
                return False
    return True


@dataclass
class Verdict:
    """What the rules say about one action in a position."""

    text: str
    rule: str | None = None  # the forbidding rule, when forbidden
    message: str = ""
    events: list[Event] = field(default_factory=list)

    @property
    def allowed(self) -> bool:
        return self.rule is None


def judge(position: Position, engine: EngineSpec, step: Mapping[str, Any]) -> Verdict:
    """Try ``step`` on a copy of the position: allowed (with its events) or forbidden (with the rule)."""
    game, book = position.game, position.book
    if not isinstance(step, Mapping) or "do" not in step:
        raise ExplainError("an action is a mapping with 'do', e.g. '{player: Ann, do: mark, square: b2}'")
    trial = game.clone(position.state)
    text = _step_text(step)
    with guarded(engine, book, "the action"):
        try:
            action = game.parse_action(trial, step)
            text = words(game, trial, action)
            events = game.apply(trial, action)
        except DescriptionError as exc:
            raise ExplainError(f"the engine cannot read the action {dict(step)}: {exc}") from exc
        except RuleViolation as exc:  # some engines can only name an action by checking it
            return Verdict(text, exc.rule, exc.message)
    return Verdict(text, events=list(events))


def words(game: Game, state: Any, action: Any) -> str:
    """An action in plain words: the engine's narration when it has one, its format_action otherwise."""
    narrator = narrator_of(game)
    said = narrator.narrate_action(game, state, action) if narrator else game.format_action(state, action)
    return said.rstrip(".")


def _step_text(step: Mapping[str, Any]) -> str:
    return ", ".join(f"{key}: {value}" for key, value in step.items() if key != "illegal")


def plain(data: Any) -> Any:
    """Tuples as lists, all the way down: what YAML writes and examples compare (lists and tuples alike)."""
    if isinstance(data, Mapping):
        return {k: plain(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [plain(v) for v in data]
    return data


def _flow(data: Any) -> str:
    return yaml.safe_dump(plain(data), default_flow_style=True, sort_keys=False, allow_unicode=True,
                          width=10**6).strip()


def seat_observer(position: Position, seat: str) -> Observer:
    """The observer that shows ``seat``'s view; refuses a seat that is not a player and a game without one."""
    example, game = position.example, position.game
    if seat not in example.players:
        raise ExplainError(f"--as {seat}: not a player of {example.id} (players: {', '.join(example.players)})")
    observer = observer_of(game)
    if observer is None:
        raise ExplainError(f"--as {seat}: the {position.book.id} engine has no observer: nothing is hidden, every "
                           f"seat sees the whole state (leave out --as)")
    return observer


def describe(position: Position, engine: EngineSpec, action: Mapping[str, Any] | None = None,
             out: Callable[[str], None] = print, seat: str | None = None) -> None:
    """Print the position, its legal actions, what step ``before`` does, and the verdict on ``action``; for
    ``seat``, the position as that player sees it and only their own legal actions."""
    example, book, game, state = position.example, position.book, position.game, position.state
    steps = example.steps
    at_end = position.before > len(steps)
    shown = "the end" if at_end else f"step {position.before} (line {steps[position.before - 1].line})"
    observer = seat_observer(position, seat) if seat is not None else None
    out(f"{example.id} ({example.file}), before {shown}" + (f", as {seat} sees it:" if seat else ":"))
    for note in position.notes:
        out(f"  note: {note}")
    with guarded(engine, book, f"{example.file} before {shown}"):
        snapshot = game.snapshot(state) if observer is None or seat is None else observer.view(state, seat)
        narrator = narrator_of(game)
        out("State:" if seat is None else f"State, as {seat} sees it:")
        if narrator is not None:
            out(f"  {narrator.narrate_state(game, snapshot)}")
        out("  " + yaml.safe_dump(plain(snapshot), sort_keys=False, allow_unicode=True, width=110).rstrip()
            .replace("\n", "\n  "))
        strings = provided(observer, "information_state")
        if seat is not None and strings is not None:
            said = str(strings(state, seat))
            if "\n" not in said:  # a short string of the engine's own (OpenSpiel's Kuhn poker: '1b')
                out(f"Information state ({seat}): {said!r}")
            else:  # the base class's, a line a step (rulepress/memory.py); its last line is the view shown above
                out(f"Information state ({seat}):")
                for line in said.splitlines():
                    out("  " + ("now: (the state as it sees it, above)" if line.startswith("now: ") else line))
        legal = list(game.legal_actions(state))
        step_of = provided(game, "action_step")
        if seat is not None:  # another player's actions would tell what they hold; one nobody owns (a draw) is public
            legal = [move for move in legal if step_of is not None and step_of(state, move).get("player", seat) == seat]
            out(f"{seat}'s legal actions ({len(legal)}):" if legal else
                f"{seat}'s legal actions: none (other players' actions are not shown)")
        else:
            out(f"Legal actions ({len(legal)}):" if legal else "Legal actions: none (the game is over)"
                if game.is_terminal(state) else "Legal actions: none")
        for number, move in enumerate(legal[:MOST_SHOWN], 1):
            as_step = f"   {_flow(step_of(state, move))}" if step_of else ""
            out(f"  {number:>2}. {words(game, state, move)}{as_step}")
        if len(legal) > MOST_SHOWN:
            out(f"  ... and {len(legal) - MOST_SHOWN} more")
    if not at_end and steps[position.before - 1].kind == "action":
        step = steps[position.before - 1]
        out(f"Step {step.index}: {_flow(step.data)}")
        _print_verdict(judge(position, engine, {k: v for k, v in step.data.items() if k != "illegal"}), book, out,
                       expected=step.illegal)
    if action is not None:
        out(f"Action {_flow(dict(action))}:")
        _print_verdict(judge(position, engine, action), book, out)


def _print_verdict(verdict: Verdict, book: Book, out: Callable[[str], None], expected: str | None = None) -> None:
    if verdict.allowed:
        happened = ", ".join(f"{e.kind} ({e.rule})" for e in verdict.events) or "nothing"
        out(f"  allowed: {verdict.text}; events: {happened}")
        if expected is not None:
            out(f"  but the example expects a refusal by {book.rule_label(expected)}")
        return
    out(f"  forbidden by {book.rule_label(verdict.rule or '')} ({_title(book, verdict.rule)}): {verdict.message}")
    if expected is not None and expected != verdict.rule:
        out(f"  but the example expects a refusal by {book.rule_label(expected)}")


def _title(book: Book, rule: str | None) -> str:
    found = book.rules.get(rule or "")
    return found.title if found is not None else "not a rule of this book"


def run_explain(root: Path, args: argparse.Namespace) -> int:
    """The command: 0 when the position was explained, 1 with one clear line when it could not be."""
    try:
        book, engine, example = open_example(root, args.book, args.example)
        action = None
        if args.action is not None:
            try:  # as a source is read: bounded depth and aliases, errors at their line and column
                action = given.yaml_text(args.action, "--action")
            except SourceError as exc:
                raise ExplainError(str(exc)) from None
            if not isinstance(action, Mapping):
                raise ExplainError("--action takes a mapping, e.g. '{player: Ann, do: mark, square: b2}'")
        before = args.step if args.step is not None else len(example.steps) + 1
        describe(position_before(book, engine, example, before), engine, action, seat=getattr(args, "seat", None))
    except ExplainError as exc:
        print(f"rulepress explain: {bounded(str(exc))}", file=sys.stderr)  # it may quote the action given
        return 1
    return 0
