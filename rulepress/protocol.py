"""The one protocol every game engine speaks.

The example runner, the diagrams, the build and the simulations know a game only through
:class:`Game`.  An engine package ``engine/<name>/`` exposes, in its ``__init__``:

* ``BOOK_ID``: the book it implements (``"lantern-moths"``);
* ``OPTIONS``: a tuple of :class:`OptionSpec`, one per designer question the engine had to decide;
* ``make_game(components, options=None) -> Game``: a game built from the book's component data
  (``rules_src/<book>/components.yaml``), so the numbers printed in the rules and the engine's
  pieces come from one place;
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
from collections.abc import Iterable, Mapping, Sequence
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


@dataclass(frozen=True, slots=True)
class Event:
    """Something the rules made happen.  ``rule`` is the rule ID that made it happen."""

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

    def new_state(self, players: Sequence[str], seed: int) -> Any:
        """A full setup for these players, shuffled from ``seed``."""

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

    def clone(self, state: Any) -> Any:
        """An independent copy of ``state`` (chance source included)."""

    def is_terminal(self, state: Any) -> bool: ...

    def snapshot(self, state: Any) -> dict[str, Any]:
        """The state as plain data (str, int, bool, list, dict) for checkpoints and prose."""

    def result(self, state: Any) -> dict[str, Any]:
        """The outcome as plain data (scores and winners, or won/lost and why)."""

    def metrics(self, state: Any) -> dict[str, float | int | str | bool]:
        """Flat measurements of a finished game for simulations (rounds, scores, end reason...)."""

    def render_svg(self, state: Any, caption: str | None = None) -> str:
        """A self-contained SVG diagram of the state (no external fonts or images)."""


class Chance:
    """A seeded random source whose next outcomes an example may fix.

    Engines draw every random outcome through ``draw_from`` (a chosen member of a population),
    ``randint`` or ``shuffle``; a forced outcome is used first and must be possible.
    """

    __slots__ = ("rng", "forced")

    def __init__(self, seed: int | None, forced: Iterable[Any] = ()) -> None:
        self.rng = random.Random(seed)
        self.forced: deque[Any] = deque(forced)

    def force(self, outcomes: Iterable[Any]) -> None:
        self.forced.extend(outcomes)

    def draw_from(self, population: Sequence[Any], what: str = "outcome") -> Any:
        """Pick one member of ``population``; a forced value must be a member."""
        if self.forced:
            value = self.forced.popleft()
            if value not in population:
                raise DescriptionError("chance", f"forced {what} {value!r} is not possible here "
                                                 f"(possible: {sorted(set(map(str, population)))})")
            return value
        return population[self.rng.randrange(len(population))]

    def randint(self, low: int, high: int, what: str = "roll") -> int:
        if self.forced:
            value = self.forced.popleft()
            if not isinstance(value, int) or not low <= value <= high:
                raise DescriptionError("chance", f"forced {what} {value!r} is not in {low}..{high}")
            return value
        return self.rng.randint(low, high)

    def shuffle(self, items: list[Any]) -> None:
        self.rng.shuffle(items)

    def clone(self) -> Chance:
        twin = Chance.__new__(Chance)
        twin.rng = random.Random()
        twin.rng.setstate(self.rng.getstate())
        twin.forced = deque(self.forced)
        return twin


@runtime_checkable
class Narrator(Protocol):
    """Optional: how an engine tells the player edition what happened, in the rulebook's own words.

    An engine package exposes it as ``narrate`` (usually its ``narrate.py`` module).  The player and digital
    editions print this narration; ``Game.format_action`` (engine notation) is for designers and messages.
    """

    def narrate_action(self, game: Any, state: Any, action: Any) -> str:
        """What the player did, as a sentence of the rulebook (``state`` is the state before the action)."""

    def narrate_state(self, game: Any, snapshot: Mapping[str, Any]) -> str:
        """A position (a ``Game.snapshot``) in plain words, e.g. as a diagram's text alternative."""


def narrator_of(game: Any) -> Narrator | None:
    """The ``narrate`` export of the engine package that defines ``game``'s class, if it has one."""
    package = sys.modules.get(type(game).__module__.rpartition(".")[0])
    found = getattr(package, "narrate", None)
    return found if isinstance(found, Narrator) else None
