"""The one protocol every game engine speaks.

The example runner, the diagrams, the build and the simulations know a game only through
:class:`Game`.  An engine package ``engine/<name>/`` exposes, in its ``__init__``:

* ``BOOK_ID``: the book it implements (``"lantern-moths"``);
* ``OPTIONS``: a tuple of :class:`OptionSpec`, one per designer question the engine had to decide;
* ``make_game(components, options=None) -> Game``: a game built from the book's component data
  (``rules_src/<book>/components.yaml``), so the numbers printed in the rules and the engine's
  pieces come from one place;
* optionally ``DECISIONS``: a tuple of :class:`Decision`, every place where the engine decides something the text
  leaves open, each with the designer question that asks it (:func:`option_decisions` makes the options' own),
  and the game's optional ``decisions_made(state)``: how often each took effect in that state's game;
* optionally ``ACTION_SCHEMA`` and ``STATE_SCHEMA`` (there or in the package's ``schema`` module): the shape of
  each action's step and of a described state, which the gate checks, with lines, before anything replays
  (:mod:`rulepress.verify.steps`; a :class:`~rulepress.basegame.BaseGame` derives both from ``ACTIONS`` and
  ``STATE_KEYS``).

Games and states are kept apart (as in OpenSpiel): a ``Game`` holds the fixed rules, components and
options; a state is a plain mutable object that ``apply`` changes in place.  Rule IDs are always
written as string literals in engine code so that traceability can find them.

Engines are trusted code, but the pipeline runs them under a guard (:mod:`rulepress.verify.limits`): an
import or an example's replay that takes too long, ``sys.exit`` or a ``KeyboardInterrupt`` raised by engine
code, and any other exception are each reported against the example, the step and the engine's own file and
line.  A refusal is a :class:`RuleViolation` (naming a rule of the book) that leaves the state as it was: the
gate compares snapshots before and after, and ``tests/test_legal_both_ways.py`` checks it for every engine.
"""

from __future__ import annotations

import random
import sys
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


class RuleViolation(Exception):
    """An action that the rules forbid, naming the rule that forbids it."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} (rule {self.rule})"


class DescriptionError(Exception):
    """A described state, action or option the engine cannot understand.

    ``path`` locates the problem inside the example's YAML (``"start.state.garden.b2"``) so the
    loader can turn it into a file and line.  ``rule`` names the rule that refuses the setup, where one
    does (five players in a game for two to four; two challenges that cannot be mixed).
    """

    def __init__(self, path: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.rule = rule

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass(slots=True)
class Event:
    """Something the rules made happen.  ``rule`` is the rule ID that made it happen.

    A value: nothing changes an event once made.  Not a frozen dataclass only because engines make several an
    action and a frozen one takes three times as long to make (most of a Lantern Moths action's time)."""

    kind: str
    rule: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "rule": self.rule, **dict(self.data)}


@dataclass(frozen=True)
class OptionSpec:
    """An engine option that answers one designer question.

    ``default`` is the rewrite's assumption; ``choices`` are every answer the engine implements.
    """

    name: str
    default: Any
    choices: tuple[Any, ...]
    question: str
    rules: tuple[str, ...]
    help: str


@dataclass(frozen=True)
class Decision:
    """A place where an engine decides something its book's text leaves open (docs/ENGINE.md, "Decisions").

    ``id`` names it in the engine (a plain name, an option's for a decision an option implements: never a rule ID,
    which traceability would read as one); ``question`` is the designer question (``questions.yaml``) that asks
    it, and ``rules`` the rules it decides inside; ``decides`` says what the engine does, in a sentence.  Where the
    decision takes effect in play the engine calls :func:`decided`, so that simulations count the games in which
    it mattered.  A decision whose question is missing or unknown is a lint error (``decision-no-question``)."""

    id: str
    question: str | None
    rules: tuple[str, ...]
    decides: str
    option: str | None = None  # the engine option that implements the other answers, if there is one


def option_decisions(options: Sequence[OptionSpec]) -> tuple[Decision, ...]:
    """One :class:`Decision` per option that answers a designer question (an option with no question, such as a
    challenge to play, is a variant, not a decision): its default is the engine's reading."""
    return tuple(Decision(spec.name, spec.question, spec.rules, spec.help, spec.name)
                 for spec in options if spec.question)


def decided(state: Any, decision: str) -> None:
    """Mark that ``decision`` (a :class:`Decision`'s id) took effect in ``state``'s game: the situation the text
    leaves open came up, so another answer could have changed what happened.  Counted in ``state.decisions``."""
    made = state.decisions
    made[decision] = made.get(decision, 0) + 1


def resolve_options(specs: Sequence[OptionSpec], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Every option's value: the defaults, overridden by ``given``; unknown names or values raise."""
    chosen = {spec.name: spec.default for spec in specs}
    if given is None:
        return chosen
    if not isinstance(given, Mapping):
        raise DescriptionError("options", "options must be a mapping of option names to values")
    by_name = {spec.name: spec for spec in specs}
    for name, value in given.items():
        spec = by_name.get(name) if isinstance(name, str) else None
        if spec is None:
            raise DescriptionError(f"options.{name}", f"unknown option {name!r} "
                                                      f"(known: {', '.join(sorted(by_name))})")
        # bool is an int subclass (True == 1): compare types too, so that 1 is not taken for True.
        if not any(value == choice and type(value) is type(choice) for choice in spec.choices):
            raise DescriptionError(f"options.{name}", f"option {name} cannot be {value!r} "
                                                      f"(choices: {', '.join(map(repr, spec.choices))})")
        chosen[name] = value
    return chosen


@runtime_checkable
class Game(Protocol):
    """What the pipeline needs from a game.  ``State`` and ``Action`` are engine-defined."""

    book_id: str
    options: Mapping[str, Any]

    def new_state(self, players: Sequence[str], seed: int, forced: Sequence[Any] = ()) -> Any:
        """A full setup for these players, shuffled from ``seed``; ``forced`` (an example's ``start.chance``)
        are the setup's first chance outcomes: the state's :class:`Chance` is created with them."""

    def state_from_description(self, description: Mapping[str, Any], players: Sequence[str],
                               seed: int) -> Any:
        """An arbitrary state described in an example's ``start.state`` (raises DescriptionError)."""

    def legal_actions(self, state: Any) -> Sequence[Any]:
        """Every action the rules allow now, in a stable order (empty when the game is over)."""

    def parse_action(self, state: Any, step: Mapping[str, Any]) -> Any:
        """The action an example step names (``{player: Ann, do: light, tile: b2}``)."""

    def format_action(self, state: Any, action: Any) -> str:
        """The action in a few words, for transcripts and error messages."""

    def apply(self, state: Any, action: Any) -> list[Event]:
        """Apply ``action`` in place and return what happened.

        Raises :class:`RuleViolation` (leaving ``state`` untouched) when the rules forbid it.
        """

    def force_chance(self, state: Any, outcomes: Sequence[Any]) -> None:
        """Fix the next chance outcomes (cards, fireflies, dice faces) an example needs exact."""

    def unused_chance(self, state: Any) -> list[Any]:
        """The forced outcomes (``force_chance``, ``new_state``'s ``forced``) no drawing has used yet, in order:
        replay fails an example that leaves any (``Chance.unused``)."""

    def clone(self, state: Any) -> Any:
        """An independent copy of ``state`` (chance source included)."""

    def is_terminal(self, state: Any) -> bool: ...

    def snapshot(self, state: Any) -> dict[str, Any]:
        """The state as plain data (str, int, bool, list, dict) for checkpoints and prose."""

    def result(self, state: Any) -> dict[str, Any]:
        """The outcome as plain data (scores and winners, or won/lost and why)."""

    def metrics(self, state: Any) -> dict[str, float | int | str | bool]:
        """Flat measurements of a finished game for simulations (rounds, scores, end reason...)."""

    def render_svg(self, state: Any, caption: str | None = None, seat: str | None = None,
                   change: Any = None) -> str:
        """A self-contained SVG diagram of the state (no external fonts or images); ``seat`` (a player's name, or
        :data:`PUBLIC`) draws it as that seat sees it (a game with an :class:`Observer`), None draws everything;
        ``change`` (a :class:`rulepress.change.Change`): the moment it shows, for its ``<title>``, and what the steps
        it illustrates changed, to mark (the gate refuses a diagram that does neither)."""


class Chance:
    """A seeded random source whose next outcomes an example may fix (docs/ENGINE.md, "Chance").

    Engines draw every random outcome through it: :meth:`draw_from` (one member of a population), :meth:`randint`
    (a number in a range) and :meth:`shuffle` (an order).  Outcomes forced by :meth:`force` (an example's
    ``chance:`` steps) or given at creation (``start.chance``: the setup's) are used first, in order, each by the
    drawing that comes next; an impossible one raises :class:`DescriptionError`.  :meth:`unused` lists those not
    drawn yet (replay fails an example that leaves any), :meth:`drawn` every outcome so far, named as a forced
    outcome would name it (``rulepress record`` writes them, so a recorded game replays without its seed).
    """

    __slots__ = ("rng", "forced", "_log")

    def __init__(self, seed: int | None, forced: Iterable[Any] = ()) -> None:
        self.rng = random.Random(seed)
        self.forced: deque[Any] = deque(forced)
        self._log: list[Any] = []  # each drawing's outcome; a shuffle's as a _Shuffled, named only when asked

    def force(self, outcomes: Iterable[Any]) -> None:
        """Fix the next outcomes, after any already forced."""
        self.forced.extend(outcomes)

    def unused(self) -> list[Any]:
        """The forced outcomes no drawing has used yet, in order."""
        return list(self.forced)

    def drawn(self) -> list[Any]:
        """Every outcome drawn so far, forced or not, in order, as forced outcomes name them: a fresh ``Chance``
        of any seed forced with these draws the same (a shuffle counts as all its items, top first)."""
        outcomes: list[Any] = []
        for entry in self._log:
            if isinstance(entry, _Shuffled):
                outcomes.extend(entry.names())
            else:
                outcomes.append(entry)
        return outcomes

    def draw_from(self, population: Sequence[Any], what: str = "outcome") -> Any:
        """One member of ``population``; a forced outcome must be a member."""
        if self.forced:
            value = self.forced.popleft()
            if value not in population:
                raise DescriptionError("chance", f"forced {what} {value!r} is not possible here "
                                                 f"(possible: {sorted(set(map(str, population)))})")
        else:
            value = population[self.rng.randrange(len(population))]
        self._log.append(value)
        return value

    def draw_counted(self, counts: Mapping[Any, int], what: str = "outcome") -> Any:
        """One key of ``counts``, each as likely as its count: :meth:`draw_from` of the population that repeats
        each key its count's times, in the mapping's order (the same outcome from the same seed), without building
        it (a bag of thirty Fireflies is drawn from thousands of times a game)."""
        if self.forced:
            value = self.forced.popleft()
            if counts.get(value, 0) <= 0:
                raise DescriptionError("chance", f"forced {what} {value!r} is not possible here (possible: "
                                                 f"{sorted({str(k) for k, n in counts.items() if n > 0})})")
        else:
            index = self.rng.randrange(sum(counts.values()))
            for key, count in counts.items():
                if index < count:
                    value = key
                    break
                index -= count
        self._log.append(value)
        return value

    def randint(self, low: int, high: int, what: str = "roll") -> int:
        """A whole number from ``low`` to ``high``, both included; a forced outcome must be one of them."""
        if self.forced:
            value = self.forced.popleft()
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise DescriptionError("chance", f"forced {what} {value!r} is not in {low}..{high}")
        else:
            value = self.rng.randint(low, high)
        self._log.append(value)
        return value

    def shuffle(self, items: list[Any], what: str = "item", *, name: Callable[[Any], Any] | None = None,
                names: Collection[Any] | None = None, top: str = "first") -> None:
        """Shuffle ``items`` in place.

        Forced outcomes name the items that come out on top, in order: the next forced outcomes, as long as each
        is a name ``names`` holds (by default the names of ``items``) and items are left, are taken one by one;
        the rest is shuffled from the seed.  ``name(item)`` is what an outcome calls an item (by default the item
        itself: cards of one kind may share a name).  ``top`` is where the list keeps the top: ``"first"``
        (``items[0]`` is drawn first) or ``"last"`` (a pile dealt with ``pop()``).  A forced outcome that
        ``names`` holds but no item left has is impossible (:class:`DescriptionError`); one it does not hold ends
        the shuffle's share and waits for the next drawing.
        """
        if top not in ("first", "last"):
            raise ValueError(f"top must be 'first' or 'last', not {top!r}")
        forced = self.forced
        chosen: list[Any] = []
        if forced:
            label = name or _itself
            known = names if names is not None else [label(item) for item in items]
            while forced and items and _holds(known, forced[0]):
                value = forced.popleft()
                index = next((i for i, item in enumerate(items) if label(item) == value), None)
                if index is None:
                    raise DescriptionError("chance", f"forced {what} {value!r} is not possible here "
                                                     f"(possible: {sorted(set(map(str, map(label, items))))})")
                chosen.append(items.pop(index))
        self.rng.shuffle(items)
        if top == "first":
            items[:0] = chosen
        else:
            items.extend(reversed(chosen))
        self._log.append(_Shuffled(tuple(items if top == "first" else reversed(items)), name))

    def clone(self) -> Chance:
        twin = Chance.__new__(Chance)
        twin.rng = random.Random()
        twin.rng.setstate(self.rng.getstate())
        twin.forced = deque(self.forced)
        twin._log = list(self._log)
        return twin


def _itself(item: Any) -> Any:
    return item


def _holds(known: Collection[Any], value: Any) -> bool:
    try:
        return value in known
    except TypeError:  # an unhashable outcome asked of a set: not one of its names
        return False


@dataclass(frozen=True, slots=True)
class _Shuffled:
    """A shuffle's outcome, top first; its items are named (``name``) only when :meth:`Chance.drawn` asks."""

    order: tuple[Any, ...]
    name: Callable[[Any], Any] | None

    def names(self) -> list[Any]:
        return list(self.order) if self.name is None else [self.name(item) for item in self.order]


PUBLIC = ""
"""The seat of the view every player shares: no player's private information (OpenSpiel's public observation).
No player is named "" (an example's players are names of at least one letter)."""

HIDDEN = "hidden"
"""What a view holds where its seat cannot see a value (a hidden list keeps its length: ``[hidden, hidden]``)."""


@runtime_checkable
class Observer(Protocol):
    """Optional: what one seat knows in a state (docs/ENGINE.md, "Hidden information"), on the model of OpenSpiel's
    observers and information-state strings.  A game that has one exposes it as ``game.observer``.

    ``hidden`` names each part of the state some seat cannot see, with who can (``{"hands": "its holder only"}``).
    Optional methods: ``information_state(state, seat) -> str`` (OpenSpiel's ``InformationStateString``: what the
    seat has seen so far, perfect recall), ``event_view(event, seat) -> dict`` (an event as the seat saw it; by
    default every event is public) and ``result_view(state, seat) -> dict`` (the result as the seat sees it; by
    default the result is public).
    """

    hidden: Mapping[str, str]

    def view(self, state: Any, seat: str) -> dict[str, Any]:
        """The snapshot as ``seat`` (a player's name, or :data:`PUBLIC`) sees it: the snapshot's keys, each value
        the seat cannot see replaced by :data:`HIDDEN` (a list of them keeps its length)."""

    def resample(self, state: Any, seat: str, part: str, rng: random.Random) -> Any:
        """A copy of ``state`` in which ``part`` (one of ``hidden``) is drawn again at random among what ``seat``
        cannot tell apart (OpenSpiel's ``resample_from_infostate``): everything the seat sees stays as it is.  The
        gate and the tests draw a seat's diagram from it to show that nothing hidden from the seat is printed."""


def observer_of(game: Any) -> Observer | None:
    """The game's observer (``game.observer``), when it has one: None for a game in which every seat sees all."""
    found = getattr(game, "observer", None)
    return found if isinstance(found, Observer) else None


@runtime_checkable
class Narrator(Protocol):
    """Optional: how an engine tells the player edition what happened, in the rulebook's own words.

    An engine package exposes it as ``narrate`` (usually its ``narrate.py`` module).  The player and digital
    editions print this narration; ``Game.format_action`` (engine notation) is for designers and messages.
    """

    def narrate_action(self, game: Any, state: Any, action: Any) -> str:
        """What the player did, as a sentence of the rulebook (``state`` is the state before the action)."""

    def narrate_state(self, game: Any, snapshot: Mapping[str, Any]) -> str:
        """A position (a ``Game.snapshot``, or a seat's view of one: ``Observer.view``, whose hidden values are
        :data:`HIDDEN`) in plain words, e.g. as a diagram's text alternative."""


def narrator_of(game: Any) -> Narrator | None:
    """The ``narrate`` export of the engine package that defines ``game``'s class, if it has one."""
    package = sys.modules.get(type(game).__module__.rpartition(".")[0])
    found = getattr(package, "narrate", None)
    return found if isinstance(found, Narrator) else None
