"""``rulepress record BOOK``: turn a played game into a worked example.

The game is played by an engine policy (``--policy``, ``--seed``: the same game as ``simulate.play``) or from
moves given as example steps (``--moves '<yaml list>'`` or ``--moves-file``).  The example starts from a full
setup, lists every action as a step and what chance decided as ``chance:`` steps (the setup's in
``start.chance``), so that it replays without its seed, and puts checkpoints at the chosen moments (each round,
each event of a kind, after given actions; by default each round's end and each change of the result, such as
a score) and always at the end, showing the result first, whose expected values, events and captions come from
the engine, with a prose skeleton whose numbers are template references.

Because its expectations come from the engine and not from the rules, a recorded example is marked
``source: recorded`` and ``reviewed: false``; :func:`unreviewed` lists such examples for the build, and the
player and digital editions must not print them until an author has checked them and set ``reviewed: true``.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from rulepress.analyze.explain import ExplainError, guarded
from rulepress.analyze.explain import plain as _plain
from rulepress.analyze.explain import words as _words
from rulepress.analyze.simulate import random_policy
from rulepress.errors import SourceError, bounded, excerpt, relative
from rulepress.load import given
from rulepress.load.book import Book, load_book
from rulepress.load.examples import load_example
from rulepress.load.rules import rule_hint
from rulepress.load.schema import EXAMPLE_ID
from rulepress.protocol import (
    HIDDEN,
    PUBLIC,
    Chance,
    DescriptionError,
    EngineSpec,
    Event,
    Game,
    RuleViolation,
    observer_of,
    provided,
)
from rulepress.verify.gate import load_book_engine
from rulepress.verify.replay import lookup, make_game, replay

if TYPE_CHECKING:
    from rulepress.verify.gate import Report

NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal")
LONGEST_VALUE = 80  # an expected value longer than this (as YAML) is left out: a checkpoint should be read
MOST_EXPECTED = 12  # expected values per checkpoint (changed ones first, then legal_actions)
MOST_IN_PROSE = 3  # template references per checkpoint in the prose skeleton
PATH_PART = re.compile(r"[A-Za-z0-9_-]+")  # a snapshot key a dotted path (and a template) can name


class RecordError(ExplainError):
    """The game cannot be recorded as asked: one line saying why (nothing was written)."""


@dataclass
class Moment:
    """A checkpoint after action ``after`` (1-based)."""

    name: str
    after: int
    caption: str
    snapshot: dict[str, Any]
    legal: int
    events: list[dict[str, Any]] = field(default_factory=list)  # expected events (those that called for it)
    public: dict[str, Any] | None = None  # what every player sees (a game with an observer): all the prose prints


@dataclass
class Recording:
    players: list[str]
    seed: int
    steps: list[dict[str, Any]] = field(default_factory=list)
    chances: list[list[Any]] = field(default_factory=list)  # what chance decided during each step's action
    setup_chance: list[Any] = field(default_factory=list)  # what it decided at setup (start.chance)
    moments: list[Moment] = field(default_factory=list)
    result_keys: tuple[str, ...] = ()  # the snapshot's keys that are also the result's (who won), shown first
    start: dict[str, Any] = field(default_factory=dict)  # the snapshot before the first action
    rules: list[str] = field(default_factory=list)  # every rule an event named, first seen first
    result: dict[str, Any] = field(default_factory=dict)
    public_result: dict[str, Any] | None = None  # the result as every player sees it (a game with an observer)
    over: bool = False


@dataclass
class Moments:
    """When to put a checkpoint (the end always gets one); none chosen: the moments a reader cares about, each
    round's end (when the snapshot has a ``round``) and each change of the result (a score, a zone cleared)."""

    every_round: bool = False
    on_events: tuple[str, ...] = ()
    after: tuple[int, ...] = ()

    @property
    def chosen(self) -> bool:
        return self.every_round or bool(self.on_events) or bool(self.after)


def unreviewed(report: Report) -> list[str]:
    """Every example of ``report`` marked ``reviewed: false``, one line each, naming its file and line.

    The build lists these; the player and digital editions refuse to print a book while it has any.
    """
    lines = []
    for check in report.books:
        for example in check.examples:
            raw = example.raw if isinstance(example.raw, Mapping) else {}
            if raw.get("reviewed") is False:
                line = example.line("reviewed")
                origin = "recorded from play" if raw.get("source") == "recorded" else "marked"
                lines.append(f"{example.file}{f':{line}' if line else ''}: example '{example.id}' is {origin} and "
                             f"not reviewed: check it against the rules, then set 'reviewed: true'")
    return lines


Chooser = Callable[[Any, int], "tuple[Any, dict[str, Any]] | None"]


def play(game: Game, players: Sequence[str], seed: int, chooser: Chooser, when: Moments, most: int,
         book: Book) -> Recording:
    """Play from a full setup, asking ``chooser(state, number)`` for each action and the step that names it
    (None when there is none left); record the steps and the moments ``when`` asks for."""
    state = game.new_state(list(players), seed)
    recording = Recording(list(players), seed, start=_plain(game.snapshot(state)))
    previous_round = recording.start.get("round")
    if when.every_round and not isinstance(previous_round, int):
        raise RecordError(f"--every-round needs a whole-number 'round' in the snapshot, and engine "
                          f"'{book.engine_package}' has none: choose moments with --on-event or --at")
    rounds = when.every_round or not when.chosen and isinstance(previous_round, int)
    chance = getattr(state, "chance", None)  # docs/ENGINE.md: a game with chance keeps a protocol.Chance there
    drawn = _drawn(chance)
    recording.setup_chance = _plain(drawn)
    result = _plain(game.result(state))
    counts: dict[str, int] = {}
    number, calls = 0, []
    while number < most and not game.is_terminal(state):
        chosen = chooser(state, number + 1)
        if chosen is None:
            break
        action, step = chosen
        words = _words(game, state, action)
        try:
            events = game.apply(state, action)
        except RuleViolation as exc:
            raise RecordError(f"move {number + 1} ({_flow(step)}) is refused by {book.rule_label(exc.rule)}: "
                              f"{exc.message}") from exc
        number += 1
        recording.steps.append(step)
        now = _drawn(chance)
        recording.chances.append(_plain(now[len(drawn):]))
        drawn = now
        plain = [_plain(e.as_dict()) for e in events if isinstance(e, Event)]
        recording.rules.extend(rule for rule in dict.fromkeys(e["rule"] for e in plain) if rule not in recording.rules)
        snapshot = _plain(game.snapshot(state))
        calls = [e for e in plain if e["kind"] in when.on_events]
        name = caption = None
        earlier, result = result, _plain(game.result(state))
        changed = [k for k in result if k != "over" and earlier.get(k, _NOTHING) != result[k]]
        if rounds and previous_round is not None and snapshot.get("round") != previous_round:
            name, caption = f"end-of-round-{previous_round}", f"The position at the end of round {previous_round}"
        elif changed and not when.chosen:
            key, value = str(changed[0]), result[changed[0]]
            counts[key] = counts.get(key, 0) + 1
            told = value if isinstance(value, int | str) and not isinstance(value, bool) else counts[key]
            name, caption = _name(f"{key}-{told}"), f"After step {number}: {words}"
            if any(m.name == name for m in recording.moments):  # a value seen before (a score back to 3)
                name = _name(f"{key}-change-{counts[key]}")
        elif calls:
            kind = calls[0]["kind"]
            counts[kind] = counts.get(kind, 0) + 1
            name, caption = f"{kind}-{counts[kind]}", f"After step {number}: {words}"
        elif number in when.after:
            name, caption = f"after-step-{number}", f"After step {number}: {words}"
        previous_round = snapshot.get("round", previous_round)
        if name is not None and not game.is_terminal(state):
            recording.moments.append(Moment(name, number, caption or name, snapshot,
                                            len(game.legal_actions(state)), [_event_expectation(e) for e in calls],
                                            _public(game, state)))
    recording.over = game.is_terminal(state)
    final = _plain(game.snapshot(state))
    caption = "The end of the game" if recording.over else f"Where the recording stops, after step {number}"
    # A moment called for by the last action's events is the end itself: the end expects those events.
    last = [_event_expectation(e) for e in calls] if number and recording.over else []
    recording.moments.append(Moment("end", number, caption, final, len(game.legal_actions(state)), last,
                                    _public(game, state)))
    recording.result = _plain(game.result(state))
    result_view = provided(observer_of(game), "result_view")
    recording.public_result = _plain(result_view(state, PUBLIC)) if result_view is not None else None
    # What the result says that the snapshot shows too (who won, why, the score): each checkpoint's first values.
    recording.result_keys = tuple(k for k in recording.result if isinstance(k, str) and k in final)
    return recording


def _public(game: Game, state: Any) -> dict[str, Any] | None:
    """The position as every player sees it, for a game with an observer: the prose prints nothing else (the
    recorded example is told from no seat, and the gate refuses prose that prints a hidden value)."""
    observer = observer_of(game)
    return None if observer is None else _plain(observer.view(state, PUBLIC))


def _seen(shown: Any, path: str) -> bool:
    """Whether the value at ``path`` of a public view (None: nothing is hidden) is there for every player."""
    return shown is None or not _holds_hidden(lookup(shown, path))


def _holds_hidden(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any(_holds_hidden(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_hidden(v) for v in value)
    return value == HIDDEN


def _drawn(chance: Any) -> list[Any]:
    return chance.drawn() if isinstance(chance, Chance) else []


def _name(text: str) -> str:
    """A checkpoint name from a result's key and value (``zone-3``): words and digits joined by '-'."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "result"


def _event_expectation(event: Mapping[str, Any]) -> dict[str, Any]:
    """An event as a checkpoint expects it: its kind, rule and short plain values (a subset match)."""
    return {k: v for k, v in event.items() if len(_flow(v)) <= LONGEST_VALUE}


def expectations(snapshot: Mapping[str, Any], before: Mapping[str, Any], legal: int,
                 first: Sequence[str] = (), always: bool = False) -> dict[str, Any]:
    """What a checkpoint expects: the snapshot's values that changed since ``before`` (as dotted paths to the
    smallest changed mappings' entries), short enough to read, then the number of legal actions.  Those under
    the keys ``first`` (the result's: who won) come first and, when ``always`` (the end), whether they changed
    or not."""
    found: dict[str, Any] = {}
    if always:
        for key in first:
            value = snapshot.get(key, _NOTHING)
            if value is not _NOTHING and PATH_PART.match(key) and len(_flow(value)) <= LONGEST_VALUE:
                found[key] = value

    def visit(now: Mapping[str, Any], then: Any, prefix: str) -> None:
        for key, value in now.items():
            if not isinstance(key, str) or not PATH_PART.fullmatch(key):
                continue  # a path cannot name it
            old = then.get(key, _NOTHING) if isinstance(then, Mapping) else _NOTHING
            if old == value and type(old) is type(value):
                continue
            path = f"{prefix}{key}"
            if isinstance(value, Mapping) and isinstance(old, Mapping):
                visit(value, old, f"{path}.")
            elif len(_flow(value)) <= LONGEST_VALUE:
                found[path] = value

    visit(snapshot, before, "")
    ranked = sorted(found.items(), key=lambda item: item[0].split(".")[0] not in first)  # stable: first keys first
    chosen = dict(ranked[: MOST_EXPECTED - 1])
    chosen["legal_actions"] = legal
    return chosen


_NOTHING = object()


def _flow(value: Any) -> str:
    """One value as flow-style YAML on one line (``[a1, b2]``, ``{kind: mark}``, ``'yes'``)."""
    text = yaml.safe_dump([value], default_flow_style=True, allow_unicode=True, sort_keys=False, width=10**9)
    return text.strip()[1:-1]


def _wrapped(key: str, values: Sequence[Any], width: int = 110) -> list[str]:
    """A flow list after ``key`` in lines of about ``width``, continued under it (a whole deck is read, not
    scrolled)."""
    lines, line = [], key + "["
    for index, value in enumerate(values):
        item = _flow(value) + ("]" if index == len(values) - 1 else ",")
        if len(line) + 1 + len(item) > width and not line.endswith("["):
            lines.append(line)
            line = " " * (len(key) + 1) + item
        else:
            line += ("" if line.endswith("[") else " ") + item
    return [*lines, line]


def example_yaml(recording: Recording, example_id: str, title: str, rules: Sequence[str], policy: str) -> str:
    """The example's YAML: readable (one step a line), with the provenance an author needs to review it."""
    how = f"played by policy '{policy}'" if policy else "from the moves given"
    out = [f"# Recorded by `rulepress record` ({how}, seed {recording.seed}).  Every expected value below comes",
           "# from the engine, not from the rules: check each against the rules, retell the text in the book's",
           "# words, then set 'reviewed: true' (until then the player and digital editions will not print it).",
           f"id: {_flow(example_id)}", f"title: {_flow(title)}", f"rules: {_flow(list(rules))}",
           "source: recorded", "reviewed: false", f"players: {_flow(recording.players)}",
           f"seed: {recording.seed}", "start:", "  setup: true"]
    if recording.setup_chance:  # what the setup's chance decided: the example replays without its seed
        out += _wrapped("  chance: ", recording.setup_chance)
    out.append("steps:")
    moments = {m.after: m for m in recording.moments if m.name != "end"}
    before = recording.start
    for number, step in enumerate([None, *recording.steps]):
        if step is not None:
            drawn = recording.chances[number - 1] if number <= len(recording.chances) else []
            if drawn:
                out += _wrapped("  - chance: ", drawn)
            out.append(f"  - {_flow(step)}")
        moment = moments.get(number) if number else None
        if number == len(recording.steps):
            moment = recording.moments[-1]
        if moment is None:
            continue
        out += [f"  - checkpoint: {_flow(moment.name)}", "    expect:"]
        out += [f"      {_flow(path)}: {_flow(value)}"
                for path, value in _expected(recording, moment, before).items()]
        if moment.events:
            out.append("    events:")
            out += [f"      - {_flow(event)}" for event in moment.events]
        out.append(f"    diagram: {_flow(moment.caption)}")
        before = moment.snapshot
    out.append("text: |")
    out += [f"  {line}" for line in prose(recording)]
    return "\n".join(out) + "\n"


def prose(recording: Recording) -> list[str]:
    """A skeleton of the printed text: one sentence per checkpoint, each number a template reference."""
    lines = []
    before = recording.start
    for moment in recording.moments:
        numbers = [(path, value) for path, value in _expected(recording, moment, before).items()
                   if isinstance(value, int | float) and not isinstance(value, bool) and path != "legal_actions"
                   and _seen(moment.public, path)]
        said = ", ".join(f"{path.replace('.', ' ')} {_reference('cp', [moment.name, *path.split('.')])}"
                         for path, value in numbers[:MOST_IN_PROSE])
        lines.append(f"{moment.caption}{': ' + said if said else ''}.")
        before = moment.snapshot
    told = [f"{key} {_told(key, value)}" for key, value in recording.result.items()
            if isinstance(key, str) and PATH_PART.fullmatch(key) and _told(key, value)
            and _seen(recording.public_result, key)]
    if told:
        lines.append("Result: " + ", ".join(told) + ".")
    return lines


def _expected(recording: Recording, moment: Moment, before: Mapping[str, Any]) -> dict[str, Any]:
    return expectations(moment.snapshot, before, moment.legal, recording.result_keys, always=moment.name == "end")


def _told(key: str, value: Any) -> str:
    """A result's value as the prose skeleton prints it (a template reference), or '' for one it cannot."""
    reference = _reference("result", [key])
    if isinstance(value, bool):
        return "{{ 'yes' if " + reference[3:-3] + " else 'no' }}"
    if isinstance(value, str | int | float):
        return reference
    if isinstance(value, list) and value and all(isinstance(v, str | int) for v in value):
        return "{{ " + reference[3:-3] + " | join(', ') }}"
    return ""


def _reference(root: str, parts: Sequence[str]) -> str:
    return "{{ " + root + "".join(f"[{part!r}]" for part in parts) + " }}"


# --- the command ---------------------------------------------------------------------------------------


def _moves(root: Path, args: argparse.Namespace) -> list[dict[str, Any]] | None:
    if args.moves is None and args.moves_file is None:
        return None
    if args.moves is not None and args.moves_file is not None:
        raise RecordError("give the moves either with --moves or with --moves-file, not both")
    where = "--moves" if args.moves is not None else args.moves_file
    try:  # a source like the book's files: inside the project, bounded, YAML within the same limits
        moves = (given.yaml_text(args.moves, "--moves") if args.moves is not None
                 else given.yaml_file(root, args.moves_file, "--moves-file"))
    except SourceError as exc:
        raise RecordError(str(exc)) from None
    if not isinstance(moves, list) or not moves or not all(isinstance(m, Mapping) and "do" in m for m in moves):
        raise RecordError(f"{where}: give a list of example steps, e.g. [{{do: mark, square: c3}}, ...]")
    return [dict(m) for m in moves]


def _chooser(game: Game, engine: EngineSpec, args: argparse.Namespace, book: Book) -> tuple[Chooser, str]:
    moves = _moves(book.root, args)
    step_of = provided(game, "action_step")
    if moves is not None:
        if args.policy is not None:
            raise RecordError("give either --policy or moves, not both")

        def given(state: Any, number: int) -> tuple[Any, dict[str, Any]] | None:
            if number > len(moves):
                return None
            step = {k: v for k, v in moves[number - 1].items() if k != "illegal"}
            try:
                action = game.parse_action(state, step)
            except DescriptionError as exc:
                raise RecordError(f"move {number} ({_flow(step)}): {exc}") from exc
            except RuleViolation as exc:
                raise RecordError(f"move {number} ({_flow(step)}) is refused by {book.rule_label(exc.rule)}: "
                                  f"{exc.message}") from exc
            return action, (_plain(step_of(state, action)) if step_of else step)

        return given, ""
    policies = {"random": random_policy, **engine.policies}
    name = args.policy or engine.default_policy or "random"
    if name not in policies:
        raise RecordError(f"engine '{book.engine_package}' has no policy '{name}' (policies: {', '.join(policies)})")
    if step_of is None:
        raise RecordError(f"engine '{book.engine_package}' cannot name its actions as example steps (it has no "
                          f"action_step(state, action): rulepress guide engine): record it from --moves instead")
    policy, rng = policies[name], random.Random(args.seed ^ 0x5EED)  # as simulate.play: the same game

    def chosen(state: Any, number: int) -> tuple[Any, dict[str, Any]]:
        action = policy(game, state, rng)
        return action, _plain(step_of(state, action))

    return chosen, name


def _players(book: Book, given: str | None) -> list[str]:
    if given:
        return [name.strip() for name in given.split(",") if name.strip()]
    count = book.data["players"]["min"] if isinstance(book.data.get("players"), Mapping) else 1
    return list(NAMES[: max(int(count), 1)])


def record(root: Path, args: argparse.Namespace) -> tuple[Path, str, bool]:
    """Play, write the example and replay it: the path written, a status line, and whether it replays."""
    book = load_book(root, args.book)
    engine = load_book_engine(book)
    example_id = args.id or f"{book.id}-recorded-{args.seed}"
    if not EXAMPLE_ID.fullmatch(example_id):  # whole: a name ending in a newline is no ID
        raise RecordError(f"{excerpt(example_id)} cannot be an example ID: lower case words joined by '-' (--id)")
    path = root / "examples" / book.id / f"{example_id}.yaml"
    if path.exists() and not args.force:
        raise RecordError(f"{relative(path, root)} exists: choose another --id, or --force to replace it")
    when = Moments(args.every_round, tuple(args.on_event or ()), tuple(args.at or ()))
    with guarded(engine, book, f"recording {book.id}"):
        game = make_game(engine, book, {})
        chooser, policy = _chooser(game, engine, args, book)
        try:
            recording = play(game, _players(book, args.players), args.seed, chooser, when, args.max_actions, book)
        except DescriptionError as exc:
            raise RecordError(f"the game cannot be set up: {exc}") from exc
    rules = [r.strip() for r in args.rules.split(",")] if args.rules else [r for r in book.rules if r in
                                                                           recording.rules]
    unknown = [r for r in rules if r not in book.rules]
    if unknown or not rules:
        raise RecordError(f"unknown rule ID '{unknown[0]}' in --rules{rule_hint(unknown[0], book.rules)}" if unknown
                          else "no event named a rule: say which rules the example illustrates with --rules")
    title = args.title or (f"A recorded game ({policy} play, seed {args.seed})" if policy else "A recorded game")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(example_yaml(recording, example_id, title, rules, policy), encoding="utf-8")
    try:
        outcome = replay(load_example(path, book), book, engine)
    except SourceError as exc:  # the loader refuses what was written: a bug here, not the user's
        path.unlink()
        raise RecordError(f"the recorded example does not load: {exc}") from exc
    status = "replays" if outcome.ok else f"does not replay: {outcome.message}"
    return path, (f"{len(recording.steps)} actions, {len(recording.moments)} checkpoints, "
                  f"{'game over' if recording.over else 'game not over'}; {status}"), outcome.ok


def run_record(root: Path, args: argparse.Namespace) -> int:
    try:
        path, status, ok = record(root, args)
    except ExplainError as exc:
        print(f"rulepress record: {bounded(str(exc))} (nothing was written)", file=sys.stderr)
        return 1
    print(f"wrote {relative(path, root)}: {status}")
    print("It is marked 'reviewed: false': check it against the rules and retell its text, then set "
          "'reviewed: true'.")
    return 0 if ok else 1
