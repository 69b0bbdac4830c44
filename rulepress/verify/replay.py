"""Replay one worked example against its engine and say, precisely, where they disagree.

Engine code runs under :class:`~rulepress.verify.limits.engine_guard`: a replay that hangs, exits or crashes
is an error naming the example, the step and the engine's own file and line, never a hang or a success.
"""

from __future__ import annotations

import copy
import difflib
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rulepress import i18n
from rulepress.errors import SourceError, bounded
from rulepress.load.book import Book
from rulepress.load.examples import Example, Step
from rulepress.load.rules import render_template
from rulepress.load.yamlsrc import line_of
from rulepress.protocol import (
    PUBLIC,
    Chance,
    ChanceMode,
    DescriptionError,
    EngineSpec,
    Event,
    Game,
    Observer,
    RuleViolation,
    observer_of,
    provided,
)
from rulepress.verify import diagram, hidden
from rulepress.verify import steps as shapes
from rulepress.verify.changes import Changes, Seat, StepRecord
from rulepress.verify.engines import engine_folder
from rulepress.verify.frames import FrameError, StepFrame, make_frame
from rulepress.verify.limits import EngineFault, engine_guard, replay_seconds

_MISSING = object()


@dataclass
class Checkpoint:
    name: str
    step: int
    snapshot: dict[str, Any]
    events: list[dict[str, Any]]
    caption: str | None = None
    svg: str | None = None
    svgs: dict[str, str] = field(default_factory=dict)  # the diagram in each language of the book (svg: the source)
    moments: dict[str, str] = field(default_factory=dict)  # the moment it shows ("After step 3"), in each language
    moment: str = ""  # that moment in the book's language (a translation's: its own)
    said: dict[str, str] = field(default_factory=dict)  # the last step it illustrates, in players' words, per language
    # With an observer (protocol.Observer): whose view the diagram shows (a player, or PUBLIC) and that view, which
    # its alternative text narrates; and the view of the seat the example is told from, which its prose prints.
    seat: str | None = None
    view: dict[str, Any] | None = None
    told: dict[str, Any] | None = None
    told_events: list[dict[str, Any]] | None = None

    @property
    def shown(self) -> dict[str, Any]:
        """The position as the diagram shows it: its seat's view, or the whole snapshot when nothing is hidden."""
        return self.view if self.view is not None else self.snapshot


@dataclass
class TranscriptLine:
    step: int
    text: str
    rejected_by: str | None = None
    refusal: str = ""  # the engine's words when it rejected the step (RuleViolation.message)
    narration: str = ""  # the engine's plain words for the player edition (protocol.Narrator)
    narrations: dict[str, str] = field(default_factory=dict)  # the same in each language of the book, source first


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
    # With an observer: the last state and the result as the seat the example is told from sees them (the prose
    # must print nothing that these do not show: verify/hidden.py).
    told_final: dict[str, Any] | None = None
    told_result: dict[str, Any] | None = None
    frames: list[StepFrame] = field(default_factory=list)  # the position after every action (drawn replays only)

    @property
    def ok(self) -> bool:
        return self.status == "passed"

    def record(self) -> dict[str, Any]:
        """The one-line JSON record of ``rulepress verify --json``."""
        return {"id": self.example.id, "book": self.example.book, "rules": self.example.rules,
                "status": self.status, "message": self.message, "source": self.example.source}


@dataclass
class _Forcing:
    """The outcomes the last ``chance:`` step (or ``start.chance``) forced, and where it was written."""

    place: str  # "step 3 (line 9)", "start (line 5)"
    key: str  # "chance", "start.chance"
    outcomes: list[Any]
    # The action just before a chance step and the position before that action, to try the outcomes on.
    after: tuple[Step, Any] | None = None

    @property
    def where(self) -> str:
        return f"{self.place}: {self.key}"


class _Mismatch(Exception):
    """The example and the engine disagree (status 'failed')."""


class _Broken(Exception):
    """The example cannot be run at all (status 'error')."""


class _Misshapen(Exception):
    """Steps or a described state that break the engine's declared shapes (status 'error', nothing replayed)."""

    def __init__(self, problems: list[SourceError]) -> None:
        super().__init__(problems[0].message)
        self.problems = problems

    def text(self, example: Example, book: Book) -> str:
        """The first line's problems at their ``file:line:col`` (an unknown key, with its "did you mean",
        before the missing key it stands for), then the lines of the others."""
        first = self.problems[0]
        here = sorted((p for p in self.problems if p.line == first.line),
                      key=lambda p: not p.message.startswith("unknown key"))
        others = sorted({p.line or 0 for p in self.problems if p.line != first.line})
        more = f" (more at line(s) {', '.join(map(str, others))})" if others else ""
        told = SourceError(first.file, first.line, f"example {example.id}: {'; '.join(p.message for p in here)}"
                           + more, here[0].rule, here[0].column)
        return f"{told} [illustrates {', '.join(book.rule_label(r) for r in example.rules)}]"


GAMES_CACHED = 4


def make_game(engine: EngineSpec, book: Book, options: Mapping[str, Any]) -> Game:
    """The game for these options, built once: a Game holds only fixed rules (states are kept apart),
    and building one can be costly (Last Lantern precomputes every placement)."""
    key = (engine.module_name, repr(sorted(options.items())))
    game = book.games.pop(key, None)
    if game is None:
        game = engine.make_game(book.components, dict(options))
    book.games[key] = game  # most recently used last
    while len(book.games) > GAMES_CACHED:  # a game can be large; replays come grouped by options
        del book.games[next(iter(book.games))]
    return game


def replay(example: Example, book: Book, engine: EngineSpec, *, draw: bool = True, prose: bool = True,
           options: Mapping[str, Any] | None = None) -> ExampleResult:
    """Run ``example``; ``options`` overrides the example's own (designer-question impact).

    ``draw`` renders the diagrams and ``prose`` the printed text; impact replays need neither.  The whole
    replay has :func:`~rulepress.verify.limits.replay_seconds` to answer.
    """
    outcome = ExampleResult(example, "passed")
    run = _Replay(example, book, engine, outcome, draw, {**example.options, **(options or {})}, prose)
    try:
        with run.guard:
            run.start()
        if prose:  # the prose is not engine code: it runs outside the engine's guard
            outcome.text = _prose(example, outcome)
    except _Mismatch as exc:
        outcome.status, outcome.message = "failed", _frame(example, book, str(exc))
    except _Broken as exc:
        outcome.status, outcome.message = "error", _frame(example, book, str(exc))
    except _Misshapen as exc:
        outcome.status, outcome.message = "error", exc.text(example, book)
    except EngineFault as fault:
        outcome.status, outcome.message = "error", _frame(example, book, f"{run.where}: {fault}")
    return outcome


def _frame(example: Example, book: Book, detail: str) -> str:
    rules = ", ".join(book.rule_label(r) for r in example.rules)
    return f"{example.id} ({example.file}): {bounded(detail)} [illustrates {rules}]"  # an engine may quote a lot


def _where(step: Step) -> str:
    return f"step {step.index} (line {step.line})"


def _frozen(data: Any) -> Any:
    """A deep copy: a snapshot or event may share lists with the live state, which later steps change.

    Plain data (what snapshots and events are) pickled and read back: copy.deepcopy walks it in Python, and was
    the replay's largest own cost; what does not pickle is deep-copied."""
    pickled = _pickled(data)
    return pickle.loads(pickled) if pickled is not None else copy.deepcopy(data)  # noqa: S301 - pickled just now


class _SeatViews:
    """Each seat's view of one position, asked of the observer once.  A checkpoint wants the view of the seat its
    example is told from, of its diagram's seat and of every seat ``expect`` asks about, most often the same seat
    twice or more; an observer's view is a function of the position and the seat, and the position does not move
    while a checkpoint is read.  Each use gets its own copy (:meth:`_Kept.value`): the told view is added to."""

    def __init__(self, observer: Observer, state: Any) -> None:
        self.observer, self.state = observer, state
        self.asked: dict[Seat, _Kept] = {}

    def __call__(self, seat: Seat) -> Any:
        if seat not in self.asked:
            self.asked[seat] = _Kept(self.observer.view(self.state, seat))
        return self.asked[seat].value()


class _Replay:
    """One example's replay; ``where`` is the part being run, for faults that interrupt it."""

    def __init__(self, example: Example, book: Book, engine: EngineSpec, outcome: ExampleResult, draw: bool,
                 options: Mapping[str, Any], prose: bool = True) -> None:
        self.example, self.book, self.engine, self.outcome = example, book, engine, outcome
        self.draw, self.options, self.prose = draw, options, prose
        self.observer: Observer | None = None
        self.told = example.seat or PUBLIC  # the seat the prose is told from
        self.languages = i18n.book_languages(book.data)  # narrated and drawn in each (engine catalogs: rulepress.i18n)
        self.where = f"start (line {example.line('start')})"
        self.forcing: _Forcing | None = None  # the last chance step (or start.chance), its outcomes
        # The position before an action that a chance step follows (checkpoints aside), kept for that chance step.
        self.before_chance: tuple[Step, Any] | None = None
        self.guard = engine_guard(engine_folder(engine), book.root, replay_seconds(len(example.steps)))
        self._narrator: Any = _MISSING
        self.changes: Changes | None = None  # what each step changed, for the diagrams (drawn replays only)
        self.diagrams: list[tuple[Checkpoint, Any, int, str]] = []  # each checkpoint to draw, its position, when

    def narrator(self, game: Game) -> Any:
        """The engine's narration (:attr:`~rulepress.protocol.EngineSpec.narration`)."""
        return self.engine.narration

    def crashed(self, exc: Exception) -> _Broken:
        """An engine bug: reported against the step and the engine's line, never as a traceback."""
        place = self.guard.place_of(exc)
        return _Broken(f"{self.where}: the engine failed: {type(exc).__name__}: {exc}"
                       + (f" (in {place})" if place else ""))

    def start(self) -> None:
        example, book, outcome = self.example, self.book, self.outcome
        refused = example.start.get("refused")
        game = None
        try:
            game = make_game(self.engine, book, self.options)
            misshapen = shapes.problems(example, shapes.declared(self.engine, game, book.root), book.prefix)
            if misshapen:  # checked before the engine reads any of it: a typo is the example's, with its line
                raise _Misshapen(misshapen)
            if "setup" in example.start:
                forced = example.start.get("chance")
                state = (game.new_state(example.players, example.seed, forced) if forced else
                         game.new_state(example.players, example.seed))
                if forced:
                    self.forcing = _Forcing(f"start (line {example.line('start')})", "start.chance", list(forced))
            else:
                state = game.state_from_description(example.start["state"], example.players, example.seed)
        except DescriptionError as exc:
            where = f"{'start' if game else 'options'} (line {example.line('start' if game else 'options')})"
            if refused is not None and exc.rule == refused:
                outcome.exercised.add(exc.rule)
                outcome.transcript.append(TranscriptLine(0, f"set up: {exc.message}", exc.rule, exc.message))
                return
            if refused is not None:
                raise _Mismatch(f"{where}: refused by {exc.rule or 'no rule'} ({exc.message}), "
                                f"expected {book.rule_label(refused)}") from exc
            raise _Broken(f"{where}: {exc}") from exc
        except _Misshapen:
            raise
        except Exception as exc:
            raise self.crashed(exc) from exc
        if refused is not None:
            raise _Mismatch(f"start (line {example.line('start')}): the setup was accepted, expected a refusal "
                            f"by {book.rule_label(refused)}")
        self.observer = self.observer_of(game)
        try:
            self.all_drawn(game, state, "by the setup")
            if self.draw:
                self.changes = self.track_changes(game, state)
            self.frame(game, state, None)
        except (_Mismatch, _Broken):
            raise
        except Exception as exc:
            raise self.crashed(exc) from exc
        self.steps(game, state)

    def observer_of(self, game: Game) -> Observer | None:
        """The game's observer; without one, an example told from a seat (``as:``) is in error: every seat sees
        the whole state, so the view it asks for would show everything."""
        observer = observer_of(game)
        if observer is None:
            asked = [(self.example.raw, self.example.line("as"))] if self.example.seat else []
            asked += [(step, step.line) for step in self.example.steps
                      if isinstance(step.data.get("diagram"), dict) and "as" in step.data["diagram"]]
            if asked:
                raise _Broken(f"line {asked[0][1]}: 'as:' tells the example from a seat, but the {self.book.id} "
                              f"engine has no observer: nothing is hidden, every seat sees the whole state "
                              f"(`rulepress guide engine`, \"Hidden information\")")
        return observer

    def steps(self, game: Game, state: Any) -> None:
        pending: list[dict[str, Any]] = []
        followed = _followed_by_chance(self.example.steps)
        for step in self.example.steps:
            self.where = _where(step)
            try:
                if step.kind == "chance":
                    self.all_drawn(game, state, f"when {_where(step)} began")
                    self.forcing = _Forcing(_where(step), "chance", list(step.data["chance"]), self.before_chance)
                    self.before_chance = None
                    try:
                        game.force_chance(state, step.data["chance"])
                    except DescriptionError as exc:
                        raise _Broken(f"{self.where}: {exc}") from exc
                    self.unused(game, state)  # an engine that cannot tell is refused here, not at the end
                elif step.kind == "checkpoint":
                    try:
                        self.outcome.checkpoints[step.data["checkpoint"]] = self.checkpoint(step, game, state,
                                                                                            pending)
                    except _Mismatch as exc:  # the cause may be outcomes forced for a draw still to come
                        raise _Mismatch(f"{exc}{self.pending(game, state)}") from exc
                    pending = []
                    if self.outcome.frames:  # its caption goes with the position it shows
                        self.outcome.frames[-1].checkpoints.append(str(step.data["checkpoint"]))
                else:
                    if step.index in followed:
                        self.before_chance = self.kept(game, state, step)
                    pending.extend(self.act(step, game, state))
                    record = self.record_step(step, state)
                    self.frame(game, state, step, record)
            except (_Mismatch, _Broken):
                raise
            except Exception as exc:
                raise self.crashed(exc) from exc
        self.where = f"end (after step {len(self.example.steps)})"
        try:
            self.all_drawn(game, state, "at the end of the example")
            self.draw_diagrams(game)
            self.outcome.exercised.update(e["rule"] for e in pending)
            self.outcome.final = _frozen(game.snapshot(state))
            self.outcome.result = _frozen(game.result(state))
            self.deterministic(state)
            if self.observer is not None and self.prose:
                self.outcome.told_final = _frozen(self.observer.view(state, self.told))
                result_view = provided(self.observer, "result_view")
                self.outcome.told_result = (_frozen(result_view(state, self.told)) if result_view is not None
                                            else self.outcome.result)
        except (_Mismatch, _Broken):
            raise
        except Exception as exc:
            raise self.crashed(exc) from exc

    def track_changes(self, game: Game, state: Any) -> Changes:
        """What each step changes, as each seat a diagram or frame is drawn for sees it (verify/changes.py)."""
        observer = self.observer
        seats: list[Seat] = [None]
        if observer is not None:
            seats = [self.example.seat or PUBLIC]
            seats += [self.example.diagram_seat(step) or PUBLIC for step in self.example.steps if step.draws]
        def view(position: Any, seat: Seat) -> Any:
            return game.snapshot(position) if observer is None or seat is None else observer.view(position, seat)
        changes = Changes(list(dict.fromkeys(seats)), view, setup="setup" in self.example.start)
        changes.start(state)
        return changes

    def record_step(self, step: Step, state: Any) -> StepRecord | None:
        """The step just replayed, for the diagrams: what it changed, or the rule that refused it."""
        if self.changes is None:
            return None
        line = self.outcome.transcript[-1]
        rule = self.book.rules.get(line.rejected_by or "")
        number = rule.number if rule is not None else line.rejected_by
        # Without a narrator the step's notation, as the step list prints it.
        said = line.narrations or {lang: line.narration or line.text for lang in self.languages}
        return self.changes.step(step.data, state, line.rejected_by, number, said)

    def frame(self, game: Game, state: Any, step: Step | None, record: StepRecord | None = None) -> None:
        """The position after ``step`` (None: the setup) for the site's step-through (verify/frames.py), marked
        with what the step changed; a refused step shows the position before it, and the move refused."""
        if not self.draw:
            return
        frames = self.outcome.frames
        changes = self.changes
        seat = (self.example.seat or PUBLIC) if self.observer is not None else None
        if step is None:
            records: list[StepRecord] = []
        else:
            records = [record] if record is not None else []

        def change(lang: str) -> Any:
            if changes is None:
                return None
            return changes.change(records, False, [r.number for r in records], seat, lang)
        made = self.new_frame(game, state, 0 if step is None else step.index, change)
        if step is not None:
            line = self.outcome.transcript[-1]
            made.narrations = dict(line.narrations) or {lang: "" for lang in self.languages}
            made.rejected_by = line.rejected_by
            if line.rejected_by and frames:  # the position stays as it was: a move is tried from the same one
                made.position, made.alts = frames[-1].position, frames[-1].alts
        frames.append(made)

    def new_frame(self, game: Game, state: Any, index: int, change: Any = None) -> StepFrame:
        try:
            return make_frame(game, state, index, self.languages, self.observer, self.example.seat,
                              diagram.drawn_by(game, self.book.root), change, self.book.id)
        except FrameError as exc:  # the site shows every frame: refused here, as a checkpoint's diagram is
            raise _Broken(f"{self.where}: {exc}") from exc

    def draw_diagrams(self, game: Game) -> None:
        """Each checkpoint's diagram, drawn once the whole example has replayed: it marks the steps it illustrates
        (verify/changes.py), which may be steps still to come when it was reached."""
        changes = self.changes
        if changes is None:
            return
        total = len(changes.records)
        dones = [done for _, _, done, _ in self.diagrams]
        for index, (checkpoint, state, done, where) in enumerate(self.diagrams):
            self.where = where
            before = dones[index - 1] if index else 0
            after = dones[index + 1] if index + 1 < len(dones) else total
            records, coming, named = changes.for_diagram(done, before, after)
            seat = checkpoint.seat
            told = {lang: changes.change(records, coming, named, seat, lang) for lang in self.languages}
            checkpoint.moments = {lang: change.moment for lang, change in told.items()}
            checkpoint.moment = checkpoint.moments[self.languages[0]]
            shown = [r for r in records if r.refused_by is None] or records
            if shown and not coming and len(named) == 1:  # "After step 3: Ann plants the rose moth on b2"
                checkpoint.said = dict(shown[-1].narrations)
            checkpoint.svgs = i18n.in_languages(
                self.languages, lambda state=state, checkpoint=checkpoint, told=told: self.drawn(
                    game, state, checkpoint, told[i18n.current_language()]))
            checkpoint.svg = checkpoint.svgs[self.languages[0]]
            for lang, svg in checkpoint.svgs.items():
                wrong = diagram.checked(svg, told[lang], book=self.book.id, lang=lang)
                if wrong is not None:  # every edition prints it: refused here, naming who drew it and where
                    shown = "" if lang == self.languages[0] else f" ({lang})"
                    raise _Broken(f"{where}: the diagram{shown} from {diagram.drawn_by(game, self.book.root)} "
                                  f"{wrong}")
            observer = self.observer
            if observer is not None and checkpoint.seat is not None and checkpoint.view is not None:
                leak = hidden.diagram_leak(game, observer, state, checkpoint.seat, checkpoint.caption,
                                           checkpoint.svg, checkpoint.view, told[self.languages[0]])
                if leak is not None:  # every edition prints it: nothing hidden from its seat may show
                    raise _Broken(f"{where}: {leak} ({diagram.drawn_by(game, self.book.root)})")

    def deterministic(self, state: Any) -> None:
        """An engine that declares no chance (``chance_mode`` deterministic) drew nothing: it would publish, as a
        game without chance, one whose outcomes a seed decided."""
        chance = getattr(state, "chance", None)
        if self.engine.chance_mode is ChanceMode.DETERMINISTIC and isinstance(chance, Chance) and chance.drawn():
            raise _Broken(f"{self.where}: the engine declares chance_mode 'deterministic', but this game drew "
                          f"{_listed(chance.drawn())}: declare 'explicit_stochastic' (rulepress guide engine, "
                          f"\"The package\")")

    def all_drawn(self, game: Game, state: Any, when: str) -> None:
        """Every outcome the last ``chance:`` (or ``start.chance``) forced has been drawn: one left over would
        tell the reader of a card, a die or a draw that never happened."""
        forcing = self.forcing
        if forcing is None:
            return
        left = self.unused(game, state)
        if left:
            drawing = self.late(game, forcing, left)
            if drawing is not None:
                raise _Mismatch(f"{forcing.where}: {_listed(left)} was written after {drawing}, the step that draws "
                                f"it: move the chance step before {drawing}; a chance step fixes what the steps after "
                                f"it draw")
            raise _Mismatch(f"{forcing.where}: {_listed(left)} of {_listed(forcing.outcomes)} not drawn {when}: a "
                            f"chance outcome must be one the game draws")
        self.forcing = None

    def kept(self, game: Game, state: Any, step: Step) -> tuple[Step, Any] | None:
        """The position before ``step``, an action a chance step follows: should that step's outcomes go undrawn,
        :meth:`late` tries them on this action.  None for a refusal (it draws nothing) and for a game that cannot
        copy its states (then the gate cannot tell, and says what it says of any outcome left undrawn)."""
        if step.illegal is not None:
            return None
        try:
            return step, game.clone(state)
        except Exception:  # an engine that cannot copy a state: nothing to try the outcomes on
            return None

    def late(self, game: Game, forcing: _Forcing, left: list[Any]) -> str | None:
        """The action just before the chance step (``step 1 (line 7)``) when it would have drawn the step's outcomes
        (the first of them, at least) had the step come before it: they were written one step too late.  None when
        some were drawn since, or that action draws none of them (then they are simply never drawn).  The position
        kept before that action is used once, and changed by this try."""
        if left != forcing.outcomes or forcing.after is None:
            return None
        step, trial = forcing.after
        forcing.after = None
        try:
            waiting = len(self.unused(game, trial))  # forced earlier: the action draws these first
            game.force_chance(trial, forcing.outcomes)
            game.apply(trial, game.parse_action(trial, step.data))
            drawn = waiting + len(forcing.outcomes) - len(self.unused(game, trial)) > waiting
        except Exception:  # refused, impossible there, or a fault: it would not have drawn them
            return None
        return _where(step) if drawn else None

    def pending(self, game: Game, state: Any) -> str:
        """What a checkpoint's failure adds while forced outcomes still wait to be drawn: they may be its cause."""
        forcing = self.forcing
        left = self.unused(game, state) if forcing is not None else []
        if forcing is None or not left:
            return ""
        many = len(left) > 1
        drawing = self.late(game, forcing, left)
        late = (f", written after {drawing}, the step that draws {'them' if many else 'it'}: move the chance step "
                f"before {drawing}" if drawing is not None else "")
        return (f"; {len(left)} forced chance outcome{'s' if many else ''} {'are' if many else 'is'} still pending "
                f"(not drawn yet): {_listed(left)}, forced by {forcing.place}{late}")

    def unused(self, game: Game, state: Any) -> list[Any]:
        unused = provided(game, "unused_chance")
        if unused is None:
            raise _Broken(f"{self.where}: the engine has no unused_chance(state) (rulepress guide engine), so the gate "
                          f"cannot tell whether the forced chance outcomes were drawn")
        return list(unused(state))

    def act(self, step: Step, game: Game, state: Any) -> list[dict[str, Any]]:
        where, book, outcome = self.where, self.book, self.outcome
        before = _Kept(game.snapshot(state)) if step.illegal else None
        undrawn = self.unused(game, state) if step.illegal and self.forcing else None
        try:
            action = game.parse_action(state, step.data)
        except DescriptionError as exc:
            raise _Broken(f"{where}: {exc}") from exc
        except RuleViolation as exc:  # some engines can only name the action by checking it
            text = _describe_step(step.data)
            if step.illegal is None:
                raise _Mismatch(f"{where}: illegal move: {exc.message} ({book.rule_label(exc.rule)})") from exc
            self.rejected(step, text, exc, before, game, state, undrawn)
            return []
        text = game.format_action(state, action)
        narrator = self.narrator(game)
        narrations = (i18n.in_languages(self.languages, lambda: narrator.narrate_action(game, state, action))
                      if narrator else {})
        narration = narrations.get(self.languages[0], "")
        if step.illegal is None:
            try:
                events = game.apply(state, action)
            except RuleViolation as exc:
                outcome.exercised.add(exc.rule)
                raise _Mismatch(f"{where}: illegal move '{text}': {exc.message} "
                                f"({book.rule_label(exc.rule)})") from exc
            except DescriptionError as exc:
                raise _Broken(f"{where}: {exc}") from exc
            happened = _plain_events(where, events)
            outcome.exercised.update(e["rule"] for e in happened)
            outcome.transcript.append(TranscriptLine(step.index, text, narration=narration, narrations=narrations))
            return happened
        try:
            events = game.apply(state, action)
        except RuleViolation as exc:
            self.rejected(step, text, exc, before, game, state, undrawn)
            outcome.transcript[-1].narration, outcome.transcript[-1].narrations = narration, narrations
            return []
        except DescriptionError as exc:
            raise _Broken(f"{where}: {exc}") from exc
        kinds = [e.kind if isinstance(e, Event) else type(e).__name__ for e in events]
        raise _Mismatch(f"{where}: '{text}' was allowed, expected a rejection by "
                        f"{book.rule_label(step.illegal)} (events: {kinds})")

    def rejected(self, step: Step, text: str, exc: RuleViolation, before: _Kept | None, game: Game, state: Any,
                 undrawn: list[Any] | None) -> None:
        """An expected rejection happened: it must be by the expected rule and leave the state as it was."""
        book, expected, where = self.book, str(step.illegal), self.where
        self.outcome.exercised.add(exc.rule)
        if exc.rule != expected:
            raise _Mismatch(f"{where}: '{text}' was rejected by {book.rule_label(exc.rule)} ({exc.message}), "
                            f"expected {book.rule_label(expected)}") from exc
        change = before.change(game.snapshot(state)) if before is not None else None
        if change is not None:
            raise _Mismatch(f"{where}: the rejected action '{text}' changed the state ({change}); a rejection "
                            f"by {book.rule_label(expected)} must leave it as it was") from exc
        if undrawn is not None and self.unused(game, state) != undrawn:
            raise _Mismatch(f"{where}: the rejected action '{text}' drew forced chance outcomes (of "
                            f"{_listed(undrawn)}); a rejection by {book.rule_label(expected)} must leave them for "
                            f"the next action") from exc
        self.outcome.transcript.append(TranscriptLine(step.index, text, exc.rule, exc.message))

    def checkpoint(self, step: Step, game: Game, state: Any, pending: list[dict[str, Any]]) -> Checkpoint:
        name = str(step.data["checkpoint"])
        where = f"{self.where} checkpoint '{name}'"
        snapshot = _frozen(game.snapshot(state))
        expect = step.data.get("expect") or {}
        if "legal_actions" in expect:
            snapshot["legal_actions"] = len(game.legal_actions(state))
        observer = self.observer
        views = _SeatViews(observer, state) if observer is not None else None
        asked = {str(path).split(".")[0] for path in expect} & set(hidden.VIEW_KEYS)
        if asked:
            self.seen_by(snapshot, asked, step, state, [str(path) for path in expect], views)
        for path, wanted in expect.items():
            shown = f"expect key '{path}' ({self.example.file}:{self.key_line(step, path)})"
            actual, unknown = _resolve(snapshot, str(path))
            if unknown is None:
                unknown = _unknown_key(wanted, actual, str(path))
            if unknown is not None:
                raise _Broken(f"{where}: {shown}: {unknown}")
            problem = compare(wanted, actual)
            if problem is not None:
                raise _Mismatch(f"{where}: {path} expected {wanted!r}, got {actual!r}{problem}")
        self.outcome.exercised.update(e["rule"] for e in pending)
        _match_events(where, step.data.get("events") or [], pending)
        checkpoint = Checkpoint(name, step.index, snapshot, pending)
        if observer is not None and views is not None and self.prose:
            checkpoint.told = self.told_view(views, snapshot)
            event_view = provided(observer, "event_view")
            checkpoint.told_events = (_frozen([event_view(e, self.told) for e in pending]) if event_view is not None
                                      else pending)
        if step.draws:
            checkpoint.caption = step.caption
            if views is not None:
                seat = checkpoint.seat = self.example.diagram_seat(step) or PUBLIC
                checkpoint.view = views(seat)
            if self.draw:  # drawn at the end, with the steps it illustrates (draw_diagrams)
                self.diagrams.append((checkpoint, game.clone(state),
                                      len(self.changes.records) if self.changes is not None else 0, where))
        return checkpoint

    def drawn(self, game: Game, state: Any, checkpoint: Checkpoint, change: Any) -> str:
        return diagram.render(game, state, checkpoint.caption, checkpoint.seat, change)

    def seen_by(self, snapshot: dict[str, Any], asked: set[str], step: Step, state: Any, paths: list[str],
                views: _SeatViews | None) -> None:
        """What a checkpoint's ``expect`` may ask of the observer: each player's view (``views``), the public view
        (``public_view``) and each player's information-state string (``information_state``).  One the engine cannot
        give is refused at the ``expect`` key that asks for it (``paths``: the keys, in the file's order)."""
        observer, players = self.observer, self.example.players
        where = f"{self.where} checkpoint '{step.data['checkpoint']}'"

        def key(root: str) -> str:
            path = next(path for path in paths if path.split(".")[0] == root)
            return f"expect key '{path}' ({self.example.file}:{self.key_line(step, path)})"

        if observer is None or views is None:
            first = next(path.split(".")[0] for path in paths if path.split(".")[0] in asked)
            raise _Broken(f"{where}: {key(first)}: expect asks for {', '.join(sorted(asked))}, but the "
                          f"{self.book.id} engine has no observer: nothing is hidden (`rulepress guide engine`, "
                          f"\"Hidden information\")")
        if "views" in asked:
            snapshot["views"] = {seat: views(seat) for seat in players}
        if "public_view" in asked:
            snapshot["public_view"] = views(PUBLIC)
        if "information_state" in asked:
            strings = provided(observer, "information_state")
            if strings is None:
                raise _Broken(f"{where}: {key('information_state')}: expect asks for information_state, but the "
                              f"{self.book.id} engine's observer has no information_state(state, seat) (`rulepress "
                              f"guide engine`, \"Hidden information\")")
            snapshot["information_state"] = {seat: strings(state, seat) for seat in players}

    def told_view(self, views: _SeatViews, snapshot: dict[str, Any]) -> dict[str, Any]:
        """The checkpoint as the seat the example is told from sees it: the prose prints only what this shows
        (of what ``expect`` added, the seat's own view and string, the public view and the count of legal actions)."""
        seat = self.told
        told = views(seat)
        for key in ("views", "information_state"):
            if key in snapshot:
                told[key] = {seat: snapshot[key][seat]} if seat in snapshot[key] else {}
        for key in ("public_view", "legal_actions"):
            if key in snapshot:
                told[key] = snapshot[key]
        return told

    def key_line(self, step: Step, key: Any) -> int | None:
        """The line of an ``expect`` key in the example's YAML (the step's line when unknown)."""
        raw_steps = self.example.raw.get("steps") if isinstance(self.example.raw, Mapping) else None
        try:
            expect = raw_steps[step.index - 1]["expect"]  # type: ignore[index]
        except (TypeError, KeyError, IndexError):
            return step.line
        return line_of(expect, key, step.line)


def _followed_by_chance(steps: list[Step]) -> set[int]:
    """The actions a chance step comes right after (checkpoints between them aside), by step number."""
    found: set[int] = set()
    last: Step | None = None
    for step in steps:
        if step.kind == "chance" and last is not None:
            found.add(last.index)
        if step.kind != "checkpoint":
            last = step if step.kind == "action" else None
    return found


def _listed(outcomes: list[Any]) -> str:
    """Chance outcomes as an example writes them: ``[black, yellow]``."""
    return "[" + ", ".join(map(str, outcomes)) + "]"


def _plain_events(where: str, events: Any) -> list[dict[str, Any]]:
    if not isinstance(events, list | tuple) or not all(isinstance(e, Event) for e in events):
        raise _Broken(f"{where}: the engine's apply() returned {type(events).__name__}, not a list of Events")
    return _frozen([e.as_dict() for e in events])


def _describe_step(data: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in data.items() if k != "illegal")


def lookup(data: Any, path: str) -> Any:
    """The value at dotted ``path`` in ``data`` (``_MISSING`` when there is none)."""
    return _resolve(data, path)[0]


def _resolve(data: Any, path: str) -> tuple[Any, str | None]:
    """The value at dotted ``path``, or ``_MISSING`` and what is missing (with the nearest keys)."""
    node = data
    done: list[str] = []
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.lstrip("-").isdigit() and -len(node) <= int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING, _missing(part, node, ".".join(done))
        done.append(part)
    return node, None


def _missing(part: str, node: Any, parent: str) -> str:
    inside = f" under '{parent}'" if parent else ""
    if isinstance(node, list):
        return f"the snapshot has no item {part}{inside} (a list of {len(node)})"
    if not isinstance(node, Mapping):
        return f"the snapshot has no '{part}'{inside} ({parent or 'it'} is {node!r}, not a mapping)"
    keys = sorted(str(k) for k in node)
    close = difflib.get_close_matches(part, keys, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(repr(k) for k in close)}? " if close else ""
    return f"the snapshot has no '{part}'{inside} ({hint}it has: {', '.join(keys) or 'nothing'})"


def _unknown_key(wanted: Any, actual: Any, path: str) -> str | None:
    """The first key an expected mapping names that the snapshot's mapping lacks (mappings compare by the
    keys they name, so a misspelt key would otherwise only show as a mismatch)."""
    if not (isinstance(wanted, Mapping) and isinstance(actual, Mapping)):
        return None
    for key, value in wanted.items():
        if key not in actual:
            return _missing(str(key), actual, path)
        inner = _unknown_key(value, actual[key], f"{path}.{key}")
        if inner is not None:
            return inner
    return None


def compare(wanted: Any, actual: Any) -> str | None:
    """None when ``actual`` meets ``wanted``; otherwise a hint, maybe empty.

    A mapping compares the keys it names only (at the top and in mappings inside it); every other value must
    be equal, lists item by item.  A yes/no never equals a number (``true`` is not ``1``, although Python
    says so); whole numbers and decimals of the same value are equal (``1.0`` is ``1``: YAML readers write
    numbers, not types).
    """
    if isinstance(wanted, Mapping) and isinstance(actual, Mapping):
        for key, value in wanted.items():
            if key not in actual:
                return f" (no key '{key}')"
            if compare(value, actual[key]) is not None:
                return f" (at '{key}': expected {value!r}, got {actual[key]!r})"
        return None
    if _equal(wanted, actual):
        return None
    if isinstance(wanted, list) and isinstance(actual, list | tuple) and len(wanted) == len(actual):
        for index, (item, got) in enumerate(zip(wanted, actual, strict=True)):
            if not _equal(item, got):
                return f" (item {index}: expected {item!r}, got {got!r}{_kind_hint(item, got, ': ')})"
    return _kind_hint(wanted, actual, " (") + (")" if _kind_hint(wanted, actual, "") else "")


def _kind_hint(wanted: Any, actual: Any, before: str) -> str:
    if _is_number(wanted) and isinstance(actual, bool) or isinstance(wanted, bool) and _is_number(actual):
        return f"{before}a yes/no is never a number"
    return ""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _equal(left: Any, right: Any) -> bool:
    """Equality as examples mean it: bools only equal bools; lists and tuples item by item; mappings fully."""
    kind = type(left)
    if kind is type(right) and kind in _SCALARS:  # most of what is compared: two texts, two whole numbers
        return bool(left == right)
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(_equal(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, Mapping | list | tuple) or isinstance(right, Mapping | list | tuple):
        return False
    return bool(left == right)


class _Kept:
    """A snapshot as it was, for :meth:`change` to compare a later one with: plain data kept as its pickled bytes,
    since most often (a rejected step) nothing changed and two equal byte strings say so without reading either
    back; what does not pickle is deep-copied and compared value by value."""

    def __init__(self, data: Any) -> None:
        self.data: bytes | None = _pickled(data)
        self.copy = copy.deepcopy(data) if self.data is None else None

    def value(self) -> Any:
        """A copy of the kept value of its own (each use may change it)."""
        return pickle.loads(self.data) if self.data is not None else copy.deepcopy(self.copy)  # noqa: S301 - ours

    def change(self, now: Any) -> str | None:
        """Where ``now`` first differs from the kept snapshot (:func:`_difference`), None when it does not: the
        same bytes are the same values of the same types in the same order."""
        later = _Kept(now)
        if self.data is not None and self.data == later.data:
            return None
        return _difference(self.value(), later.value())


def _pickled(data: Any) -> bytes | None:
    try:
        return pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):  # not plain data
        return None


def _difference(before: Any, after: Any, path: str = "") -> str | None:
    """Where two plain values first differ, as ``path: old -> new`` (None when they are equal)."""
    if _equal(before, after):
        return None
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in [*before, *(k for k in after if k not in before)]:
            inner = f"{path}.{key}" if path else str(key)
            if key not in after:
                return f"{inner}: {before[key]!r} -> (gone)"
            if key not in before:
                return f"{inner}: (none) -> {after[key]!r}"
            found = _difference(before[key], after[key], inner)
            if found is not None:
                return found
    if isinstance(before, list | tuple) and isinstance(after, list | tuple) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            found = _difference(old, new, f"{path}.{index}" if path else str(index))
            if found is not None:
                return found
    return f"{path or 'value'}: {before!r} -> {after!r}"


def _match_events(where: str, wanted: list[Any], actual: list[dict[str, Any]]) -> None:
    """Each expected event must happen, in this order; events not named may come between (subset match).  An
    ``any_order`` group's events must all happen there, each a different event, in any order among themselves."""
    position = 0
    for expected in wanted:
        if isinstance(expected, Mapping) and "any_order" in expected:
            position = _match_group(where, list(expected["any_order"]), actual, position)
            continue
        _needs_kind(where, expected)
        while position < len(actual) and compare(expected, actual[position]) is not None:
            position += 1
        if position == len(actual):
            raise _Mismatch(f"{where}: expected event {dict(expected)} (in order) but the events were: "
                            f"{_kinds(actual)}{_similar(expected, actual)}")
        position += 1


def _needs_kind(where: str, expected: Any) -> None:
    if not isinstance(expected, Mapping) or "kind" not in expected:
        raise _Broken(f"{where}: each expected event needs a 'kind'")


def _kinds(actual: list[dict[str, Any]]) -> str:
    return ", ".join(f"{e['kind']}" for e in actual) or "none"


def _similar(expected: Mapping[str, Any], actual: list[dict[str, Any]]) -> str:
    similar = [e for e in actual if e["kind"] == expected["kind"]]
    return f"; events of that kind: {similar}" if similar else ""


def _match_group(where: str, group: list[Any], actual: list[dict[str, Any]], start: int) -> int:
    """Where the events after an ``any_order`` group are looked for: past the shortest run of events from
    ``start`` that holds a different event for each of the group's (a matching: two alike expected events need two
    events, whichever way round they come)."""
    for expected in group:
        _needs_kind(where, expected)
    fits = [[index for index in range(start, len(actual)) if compare(expected, actual[index]) is None]
            for expected in group]
    for expected, found in zip(group, fits, strict=True):
        if not found:
            raise _Mismatch(f"{where}: expected event {dict(expected)} (in any order, with {len(group) - 1} other"
                            f"{'s' if len(group) != 2 else ''}) but the events were: {_kinds(actual)}"
                            f"{_similar(expected, actual)}")
    for end in range(start + len(group), len(actual) + 1):
        if _matched(fits, end):
            return end
    shown = ", ".join(str(dict(expected)) for expected in group)
    raise _Mismatch(f"{where}: expected the events {shown} (in any order) to be {len(group)} different events, but "
                    f"the events were: {_kinds(actual)}")


def _matched(fits: list[list[int]], end: int) -> bool:
    """Whether each expected event can have an event of its own before ``end`` (Kuhn's augmenting paths)."""
    owner: dict[int, int] = {}

    def place(wanted: int, seen: set[int]) -> bool:
        for index in fits[wanted]:
            if index < end and index not in seen:
                seen.add(index)
                if index not in owner or place(owner[index], seen):
                    owner[index] = wanted
                    return True
        return False

    return all(place(wanted, set()) for wanted in range(len(fits)))


def render_prose(example: Example, outcome: ExampleResult, told: bool = False) -> str:
    """The example's printed text (or a translation's: same fields), rendered in the rule-text sandbox
    (load/sandbox.py) over the replay; a template error is a ``SourceError`` at its line.  ``told``: over what the
    seat the example is told from sees (its views, with an observer), to check that the two read the same."""
    if not example.text:
        return ""
    points = outcome.checkpoints.items()
    if told:
        context = {"cp": {k: v.told for k, v in points}, "final": outcome.told_final, "result": outcome.told_result,
                   "events": {k: v.told_events for k, v in points}}
    else:
        context = {"cp": {k: v.snapshot for k, v in points}, "final": outcome.final, "result": outcome.result,
                   "events": {k: v.events for k, v in points}}
    # A block scalar ("text: |", the only kind that ends in a newline) starts on the line after its key.
    first = None if example.text_line is None else example.text_line + (1 if example.text.endswith("\n") else 0)
    return render_template(example.text, context, example.file, first)


def _prose(example: Example, outcome: ExampleResult) -> str:
    try:
        printed = render_prose(example, outcome)
    except SourceError as exc:
        raise _Broken(f"text (line {exc.line}): {exc.message}") from exc
    if outcome.told_final is None:  # nothing is hidden
        return printed
    seat = hidden.who(example.seat or PUBLIC)
    try:
        seen = render_prose(example, outcome, told=True)
    except SourceError as exc:  # arithmetic on a hidden value, say
        raise _Broken(f"text (line {exc.line}): it prints what {seat} cannot see ({exc.message}); tell the example "
                      f"from the seat that sees it ('as:') or leave it out") from exc
    leak = hidden.prose_leak(printed, seen)
    if leak is not None:
        offset, what = leak
        first = None if example.text_line is None else example.text_line + (1 if example.text.endswith("\n") else 0)
        line = "?" if first is None else first + offset
        raise _Broken(f"text (line {line}): it prints {what}: the example is told from {seat}, who cannot see "
                      f"it; tell it from the seat that sees it ('as:') or leave it out")
    return printed
