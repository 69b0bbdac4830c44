"""The one protocol every game engine speaks.

The example runner, the diagrams, the build and the simulations know a game only through :class:`Game`, and an
engine only through the one thing its package exports: ``ENGINE = EngineSpec(...)`` (:class:`EngineSpec`), on
the model of OpenSpiel's ``GameType`` and its registration.  It names the book the engine implements, the game
factory (``make_game(components, options=None) -> Game``: a game built from the book's component data,
``rules_src/<book>/components.yaml``, so the numbers printed in the rules and the engine's pieces come from one
place), what kind of game it is (players, chance, information, utility: :class:`ChanceMode`,
:class:`Information`, :class:`Utility`), and everything optional: the designer questions' options
(:class:`OptionSpec`), the decisions the engine makes where the text is silent (:class:`Decision`), policies,
benchmark settings, how the game ends and what it is made of (for analysis), its narration, notation, palette and
the shapes of a step and of a described state.  ``rulepress guide engine`` ("The package") is the same list;
:func:`register_engine` is what the loader (``rulepress/verify/engines.py``) does with it.

Games and states are kept apart (as in OpenSpiel): a ``Game`` holds the fixed rules, components and
options; a state is a plain mutable object that ``apply`` changes in place.  Rule IDs are always
written as string literals in engine code so that traceability can find them.

Every name an engine uses is checked when it is used, not only by the gate's reading of the source: a
:func:`decided` mark naming no declared decision, an option the engine does not declare (the game's resolved
``options``, :class:`Options`) and a rule ID its book does not have (an :class:`Event`, a :class:`RuleViolation`,
a :class:`DescriptionError`'s rule, once the gate has declared the book's rules: :func:`declare_rules`) each raise
:class:`UndeclaredName` at the engine's own line, with a "did you mean".  Each is one look-up in a frozenset made
once per engine.

Engines are trusted code, but the pipeline runs them under a guard (:mod:`rulepress.verify.limits`): an
import or an example's replay that takes too long, ``sys.exit`` or a ``KeyboardInterrupt`` raised by engine
code, and any other exception are each reported against the example, the step and the engine's own file and
line.  A refusal is a :class:`RuleViolation` (naming a rule of the book) that leaves the state as it was: the
gate compares snapshots before and after, and ``tests/test_legal_both_ways.py`` checks it for every engine.
"""

from __future__ import annotations

import difflib
import enum
import random
import re
import sys
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol, runtime_checkable

from rulepress.cmyk import Cmyk


class UndeclaredName(Exception):
    """An engine used a name its declarations do not have: a decision (:func:`decided`), an option (a game's
    :class:`Options`) or a rule ID (an :class:`Event`, a :class:`RuleViolation`, a :class:`DescriptionError`'s
    rule).  Raised inside the engine's call, so the gate reports it at the engine's own file and line."""

    def __init__(self, what: str, name: object, known: Collection[str], owner: str) -> None:
        close = closest_rule(name, known) if what == "rule" else closest(name, known)
        hint = f"did you mean {close!r}?" if close else f"known: {', '.join(sorted(known)) or 'none'}"
        super().__init__(f"{owner} has no {what} {name!r} ({hint})")
        self.what, self.name = what, name


def closest(name: object, known: Iterable[str]) -> str | None:
    """The known name ``name`` was most likely meant as (case aside, or one it begins), for a "did you mean"."""
    if not isinstance(name, str) or not name:
        return None
    by_lower = {other.lower(): other for other in sorted(known)}
    found = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.6)
    if found:
        return by_lower[found[0]]
    longer = [other for lower, other in by_lower.items() if len(name) >= 4 and lower.startswith(name.lower())]
    return longer[0] if len(longer) == 1 else None


def meant(name: object, known: Iterable[str]) -> str:
    """``"did you mean 'plant'? "`` for a name written close to a known one (:func:`closest`), else nothing: the
    start of the parenthesis of an "unknown ..." message, before the list of what there is."""
    close = closest(name, known)
    return f"did you mean {close!r}? " if close else ""


def closest_rule(rule_id: object, known: Iterable[str]) -> str | None:
    """The rule ID ``rule_id`` was most likely meant as, for a "did you mean" wherever a rule ID is written.

    Compared without the book's prefix, which every ID of a book shares, and more strictly than :func:`closest`:
    IDs of one chapter share most of their letters, and ``lm.turn.steal`` is no slip for ``lm.turn.take``."""
    if not isinstance(rule_id, str) or not rule_id:
        return None
    by_bare = {_bare_rule(other): other for other in sorted(known)}
    found = difflib.get_close_matches(_bare_rule(rule_id.lower()), list(by_bare), n=1, cutoff=0.75)
    return by_bare[found[0]] if found else None


def _bare_rule(rule_id: str) -> str:
    """A rule ID without its book's prefix (``turn.light`` of ``lm.turn.light``)."""
    return rule_id.partition(".")[2] or rule_id


class RuleViolation(Exception):
    """An action that the rules forbid, naming the rule that forbids it."""

    def __init__(self, rule: str, message: str) -> None:
        _check_rule(rule)
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
        if rule is not None:
            _check_rule(rule)
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

    def __post_init__(self) -> None:
        rules = _RULES  # one look-up in a frozenset: events are most of what an action costs
        if rules is not None and (type(self.rule) is not str or self.rule not in rules):
            _undeclared_rule(self.rule)

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
    leaves open came up, so another answer could have changed what happened.  Counted in ``state.decisions``.

    A name the state's engine does not declare (:attr:`EngineSpec.decisions`) raises :class:`UndeclaredName` here,
    at the engine's line: a computed or misspelt mark is refused as it is made, not only by the gate's reading of
    the source."""
    declared = _BY_TYPE.get(type(state), _UNSET)
    if declared is _UNSET:
        declared = _declared_for(type(state))
    if declared is not None and (type(decision) is not str or decision not in declared.decisions):
        raise UndeclaredName("decision", decision, declared.decisions, f"decided(state, {decision!r}): engine "
                             f"{declared.engine}")
    made = state.decisions
    made[decision] = made.get(decision, 0) + 1


class Options(dict[str, Any]):
    """A game's resolved options (:func:`resolve_options`): every declared option's value, fixed once resolved.
    Reading one that is not declared (``options["los_rule"]``, ``options.get(...)``, ``in``) raises
    :class:`UndeclaredName` at the engine's line, where a plain dict would answer a misspelt name with a default or
    ``False``; a read of a declared one costs what a dict's does."""

    __slots__ = ()

    def __missing__(self, name: str) -> Any:
        raise UndeclaredName("option", name, list(self), "the engine's options")

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        raise UndeclaredName("option", name, list(self), "the engine's options")

    def __contains__(self, name: object) -> bool:
        if dict.__contains__(self, name):
            return True
        raise UndeclaredName("option", name, list(self), "the engine's options")

    def _fixed(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a game's options are fixed once resolved: make another game for other options")

    __setitem__ = __delitem__ = update = pop = popitem = setdefault = clear = __ior__ = _fixed  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (Options, (dict(self),))


def resolve_options(specs: Sequence[OptionSpec], given: Mapping[str, Any] | None) -> Options:
    """Every option's value: the defaults, overridden by ``given``; unknown names or values raise."""
    chosen = {spec.name: spec.default for spec in specs}
    if given is None:
        return Options(chosen)
    if not isinstance(given, Mapping):
        raise DescriptionError("options", "options must be a mapping of option names to values")
    by_name = {spec.name: spec for spec in specs}
    for name, value in given.items():
        spec = by_name.get(name) if isinstance(name, str) else None
        if spec is None:
            raise DescriptionError(f"options.{name}", f"unknown option {name!r} "
                                                      f"(known: {', '.join(sorted(by_name)) or 'none'})")
        # bool is an int subclass (True == 1): compare types too, so that 1 is not taken for True.
        if not any(value == choice and type(value) is type(choice) for choice in spec.choices):
            raise DescriptionError(f"options.{name}", f"option {name} cannot be {value!r} "
                                                      f"(choices: {', '.join(map(repr, spec.choices))})")
        chosen[name] = value
    return Options(chosen)


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
        twin.rng = random.Random.__new__(random.Random)  # not seeded from the system's entropy: its state is set next
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
    seat has seen so far, perfect recall; ``basegame.BaseObserver`` has it, from the state's memory:
    :mod:`rulepress.memory`), ``event_view(event, seat) -> dict`` (an event as the seat saw it; by
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


# What a game may give beyond the protocol's methods.  A game on the bare protocol (rulepress's own
# tests/fixtures/mini) gives none of these; the base class (rulepress.basegame.BaseGame) gives each.  The tool asks
# for one through :func:`provided`, the one place that looks a game's methods up by name, so a name misspelt in the
# tool is an error here rather than a capability silently absent (an engine's misspelt method: the loader's "did you
# mean", rulepress/verify/engines.py).
OPTIONAL_METHODS: dict[str, str] = {
    "action_step": "action_step(state, action): the step that names an action, the inverse of parse_action",
    "unused_chance": "unused_chance(state): the forced outcomes no drawing has used yet (needed to force chance)",
    "setup_events": "setup_events(state): what setup did, for a state no action has been applied to yet",
    "decisions_made": "decisions_made(state): how often each engine decision took effect (protocol.decided)",
    "actions_by_place": "actions_by_place(state, actions, places): which listed actions use each drawn place",
    "against": "against(spec): the game's own declaration (CHANCE, PLAYERS, OPTIONS) held to its EngineSpec",
    "derived_schemas": "derived_schemas(): the action and state schemas derived from ACTIONS and STATE_KEYS",
    "legend": "legend(): the key to the diagrams' symbols",
    "component_pictures": "component_pictures(): a picture of every kind of component",
    "cover_art": "cover_art(width, height): the front cover's artwork",
}
# What an observer (``game.observer``, :func:`observer_of`) may give beyond ``hidden``, ``view`` and ``resample``;
# the base class (rulepress.basegame.BaseObserver) gives ``information_state``.
OPTIONAL_OBSERVER_METHODS: dict[str, str] = {
    "information_state": "information_state(state, seat): what the seat has seen so far (OpenSpiel's string)",
    "event_view": "event_view(event, seat): an event (as plain data) as the seat saw it",
    "result_view": "result_view(state, seat): the result as the seat sees it",
    "tensor": "tensor(state, seat): the seat's observation as numbers (OpenSpiel's observation tensor)",
}


def provided(game: Any, name: str) -> Callable[..., Any] | None:
    """The method ``name`` of a game (one of :data:`OPTIONAL_METHODS`) or of an observer (one of
    :data:`OPTIONAL_OBSERVER_METHODS`), or None when it does not give it (or is None: a game with no observer)."""
    if name not in OPTIONAL_METHODS and name not in OPTIONAL_OBSERVER_METHODS:
        raise KeyError(f"{name!r} is not an optional method of a game or an observer (protocol.OPTIONAL_METHODS, "
                       f"OPTIONAL_OBSERVER_METHODS)")
    found = getattr(game, name, None)
    return found if callable(found) else None


def setup_events(game: Any, state: Any) -> list[Event]:
    """What setup did (the game's ``setup_events``), none for a game that does not say."""
    told = provided(game, "setup_events")
    return list(told(state)) if told is not None else []


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
    """The narration (:attr:`EngineSpec.narration`) of the engine that defines ``game``'s class, if it has one."""
    declared = _BY_TYPE.get(type(game), _UNSET)
    if declared is _UNSET:
        declared = _declared_for(type(game))
    return declared.spec.narration if declared is not None else None


Policy = Callable[[Any, Any, random.Random], Any]
"""``policy(game, state, rng) -> action``: one of ``legal_actions(state)``, chosen only through ``rng``."""


class ChanceMode(enum.StrEnum):
    """Whether chance takes part, as OpenSpiel's ``pyspiel.GameType.ChanceMode`` says it."""

    DETERMINISTIC = "deterministic"  # nothing is drawn: the game has no chance (BaseGame's CHANCE = False)
    EXPLICIT_STOCHASTIC = "explicit_stochastic"  # every outcome is drawn through Chance, from a known population
    SAMPLED_STOCHASTIC = "sampled_stochastic"  # outcomes come from the seed some other way: they can only be sampled


class Information(enum.StrEnum):
    """What a seat knows, as ``pyspiel.GameType.Information`` says it."""

    PERFECT_INFORMATION = "perfect_information"  # every seat sees the whole state: no observer
    IMPERFECT_INFORMATION = "imperfect_information"  # some seat cannot see a part: the game has an Observer


class Utility(enum.StrEnum):
    """How the players' outcomes relate, as ``pyspiel.GameType.Utility`` says it (with ``solo``, OpenSpiel's
    one-player games, which it reports as general-sum)."""

    ZERO_SUM = "zero_sum"  # one player's gain is the others' loss (a winner and losers, a pot)
    GENERAL_SUM = "general_sum"  # scores that are not each other's loss
    IDENTICAL = "identical"  # cooperative: every player wins or loses together
    SOLO = "solo"  # one player, against the game


_KINDS: dict[str, type[enum.StrEnum]] = {"chance_mode": ChanceMode, "information": Information, "utility": Utility}
# What the loose exports of an engine package were called before EngineSpec, and the field each became.
OLD_EXPORTS = {"BOOK_ID": "book_id", "make_game": "make_game", "OPTIONS": "options", "DECISIONS": "decisions",
               "POLICIES": "policies", "IMPACT_POLICY": "default_policy", "BENCH_CONFIGS": "bench_configs",
               "ANSWER_BUNDLES": "answer_bundles", "END_RULES": "end_rules", "inventory": "inventory",
               "bench_extra": "bench_extra", "narrate": "narration", "NOTATION": "notation",
               "ACTION_SCHEMA": "action_schema", "STATE_SCHEMA": "state_schema", "PALETTE": "palette"}


class EngineSpecError(TypeError):
    """An :class:`EngineSpec` declared wrongly: an unknown (misspelt) field, a missing one, a value of the wrong
    type.  ``field`` names the field, so the loader can point at its line in the engine's source."""

    def __init__(self, field_name: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


@dataclass(frozen=True, kw_only=True, eq=False)
class EngineSpec:
    """Everything an engine package declares, once: ``ENGINE = EngineSpec(...)`` in its ``__init__.py``.

    On the model of OpenSpiel's ``pyspiel.GameType`` and ``register_game``: the loader
    (``rulepress/verify/engines.py``) reads it and nothing else, so a field that is misspelt, missing or of the
    wrong type is refused at its line, with "did you mean", instead of being silently absent.  The engine guide's
    table of the package (``rulepress guide engine``) lists exactly these fields (``tests/test_engine_spec.py``).
    """

    # What it implements.
    book_id: str  # the book (``book.yaml``'s id): the gate refuses an engine that names another book
    make_game: Callable[..., Game]  # ``make_game(components, options=None) -> Game``
    # What kind of game it is (pyspiel.GameType's names): the gate holds each to the game and the book.
    min_num_players: int  # as book.yaml's players.min (and a BaseGame's PLAYERS)
    max_num_players: int  # as book.yaml's players.max
    chance_mode: ChanceMode  # deterministic: nothing drawn (a BaseGame's CHANCE is False, no example draws)
    information: Information  # imperfect exactly when the game has an observer
    utility: Utility  # solo exactly when one player plays
    # The designer questions it answers and what it decides where the text is silent.
    options: tuple[OptionSpec, ...] = ()  # one per designer question the engine had to decide (and variants)
    decisions: tuple[Decision, ...] | None = None  # None: one per option that names a question (option_decisions)
    # Play.
    policies: Mapping[str, Policy] = field(default_factory=dict)  # name -> policy(game, state, rng) -> action
    default_policy: str | None = None  # the policy a designer would recognise (questions --impact, record)
    bench_configs: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: {"default": {}})
    answer_bundles: tuple[str, ...] = ()  # bench_configs that bundle answers other than the text's
    bench_extra: Callable[[Mapping[str, Any]], list[str]] | None = None  # extra lines for `nox -s bench`
    # Analysis: how the game ends and what it is made of.
    end_rules: tuple[str, ...] = ()  # the rules whose event ends the game
    inventory: Callable[[Mapping[str, Any]], Mapping[str, Sequence[Any]]] | None = None  # kind -> component names
    # Words and pictures.
    narration: Narrator | None = None  # the player's words for actions and positions (a narrate module)
    notation: Mapping[str, str] = field(default_factory=dict)  # name -> regex the player edition must never print
    palette: Mapping[str, Cmyk] = field(default_factory=dict)  # the game's colours, name -> CMYK percentages
    # The shapes the gate checks steps and described states against (a BaseGame derives both when None).
    action_schema: Mapping[str, Any] | None = None
    state_schema: Mapping[str, Any] | None = None
    # Set by register_engine (the loader): the engine package's import name.
    module_name: str = field(default="", init=False)

    def __new__(cls, *args: Any, **given: Any) -> EngineSpec:
        if args:
            raise EngineSpecError(None, "EngineSpec takes its fields by name (EngineSpec(book_id=..., ...))")
        for name in given:
            if name not in SPEC_FIELDS:
                raise EngineSpecError(name, f"EngineSpec has no field {name!r}{_did_you_mean(name)}")
        missing = [name for name in REQUIRED_FIELDS if name not in given]
        if missing:
            raise EngineSpecError(missing[0], f"EngineSpec needs {', '.join(missing)}")
        return super().__new__(cls)

    def __post_init__(self) -> None:
        for name, check in _CHECKS.items():
            value = check(self, getattr(self, name))
            object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle make it again from its fields, checked as ever
        given = {name: getattr(self, name) for name in SPEC_FIELDS}
        return (_remade, (given, self.module_name))

    @property
    def package(self) -> str:
        """The engine package's own name (``lantern``), without the namespace it was imported under."""
        return self.module_name.rpartition(".")[2]

    def derived_decisions(self) -> tuple[Decision, ...]:
        """The decisions: those declared, else one per option that answers a designer question."""
        return self.decisions if self.decisions is not None else option_decisions(self.options)

    def game_type(self) -> dict[str, Any]:
        """The declaration as ``pyspiel.GameType``'s keyword arguments name it (the OpenSpiel adapter's input)."""
        return {"short_name": self.book_id, "chance_mode": self.chance_mode, "information": self.information,
                "utility": self.utility, "min_num_players": self.min_num_players,
                "max_num_players": self.max_num_players,
                "parameter_specification": {spec.name: spec.default for spec in self.options}}


def _remade(given: dict[str, Any], module_name: str) -> EngineSpec:
    spec = EngineSpec(**given)
    object.__setattr__(spec, "module_name", module_name)
    return spec


def _did_you_mean(name: str) -> str:
    if name in OLD_EXPORTS:
        return f" (did you mean {OLD_EXPORTS[name]!r}? {name} was a loose export before EngineSpec)"
    close = closest(name, SPEC_FIELDS)
    return f" (did you mean {close!r}?)" if close else f" (fields: {', '.join(SPEC_FIELDS)})"


def _wrong(name: str, wanted: str, value: Any) -> EngineSpecError:
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return EngineSpecError(name, f"EngineSpec.{name} must be {wanted}, not {type(value).__name__} {shown}")


def _text(name: str) -> Callable[[EngineSpec, Any], Any]:
    def check(spec: EngineSpec, value: Any) -> Any:
        if not isinstance(value, str) or not value:
            raise _wrong(name, "a non-empty string", value)
        return value
    return check


def _callable(name: str, optional: bool) -> Callable[[EngineSpec, Any], Any]:
    def check(spec: EngineSpec, value: Any) -> Any:
        if value is None and optional:
            return None
        if not callable(value):
            raise _wrong(name, "a function" + (" or None" if optional else ""), value)
        return value
    return check


def _count(name: str) -> Callable[[EngineSpec, Any], Any]:
    def check(spec: EngineSpec, value: Any) -> Any:
        if type(value) is not int or value < 1:
            raise _wrong(name, "a whole number of players, at least 1", value)
        if name == "max_num_players" and value < spec.min_num_players:
            raise EngineSpecError(name, f"EngineSpec.max_num_players ({value}) is under min_num_players "
                                        f"({spec.min_num_players})")
        return value
    return check


def _kind(name: str) -> Callable[[EngineSpec, Any], Any]:
    kinds = _KINDS[name]

    def check(spec: EngineSpec, value: Any) -> Any:
        if isinstance(value, kinds):
            found = value
        elif isinstance(value, str) and value in kinds._value2member_map_:
            found = kinds(value)
        else:
            values = [member.value for member in kinds]
            close = closest(value, values)
            hint = f" (did you mean {close!r}?)" if close else ""
            raise EngineSpecError(name, f"EngineSpec.{name} must be one of {', '.join(values)}, not {value!r}{hint}")
        if name == "utility" and found is Utility.SOLO and spec.max_num_players != 1:
            raise EngineSpecError(name, f"EngineSpec.utility 'solo' is for a game of one player, not of "
                                        f"{spec.min_num_players} to {spec.max_num_players}")
        if name == "utility" and found is not Utility.SOLO and spec.max_num_players == 1:
            raise EngineSpecError(name, f"EngineSpec.utility of a game of one player is 'solo', not {found.value!r}")
        return found
    return check


def _items(name: str, kind: type, optional: bool = False) -> Callable[[EngineSpec, Any], Any]:
    def check(spec: EngineSpec, value: Any) -> Any:
        if value is None and optional:
            return None
        if isinstance(value, str | bytes) or not isinstance(value, Sequence) \
                or not all(isinstance(item, kind) for item in value):
            raise _wrong(name, f"a tuple of {kind.__name__}" + (" or None" if optional else ""), value)
        ids = [getattr(item, "name", None) or getattr(item, "id", None) or item for item in value]
        twice = sorted({str(i) for i in ids if ids.count(i) > 1})
        if twice:
            raise EngineSpecError(name, f"EngineSpec.{name} names {twice[0]!r} twice")
        return tuple(value)
    return check


def _options(spec: EngineSpec, value: Any) -> Any:
    found = _items("options", OptionSpec)(spec, value)
    for option in found:
        if not isinstance(option.choices, tuple | list) or option.default not in option.choices:
            raise EngineSpecError("options", f"EngineSpec.options: option {option.name!r}'s default "
                                             f"{option.default!r} is not one of its choices {option.choices!r}")
    return found


def _decisions(spec: EngineSpec, value: Any) -> Any:
    found = _items("decisions", Decision, optional=True)(spec, value)
    names = {option.name for option in spec.options}
    for decision in found or ():
        if decision.option is not None and decision.option not in names:
            raise EngineSpecError("decisions", f"EngineSpec.decisions: decision {decision.id!r} names option "
                                               f"{decision.option!r}, which options do not declare")
    return found


def _mapping(name: str, check_item: Callable[[str, Any], str | None]) -> Callable[[EngineSpec, Any], Any]:
    def check(spec: EngineSpec, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise _wrong(name, "a mapping", value)
        for key, item in value.items():
            if not isinstance(key, str):
                raise EngineSpecError(name, f"EngineSpec.{name}: the key {key!r} is not a name")
            problem = check_item(key, item)
            if problem:
                raise EngineSpecError(name, f"EngineSpec.{name}[{key!r}] {problem}")
        return dict(value)
    return check


def _policy(key: str, item: Any) -> str | None:
    return None if callable(item) else "must be a policy(game, state, rng) -> action"


def _default_policy(spec: EngineSpec, value: Any) -> Any:
    if value is None or value in spec.policies:
        return value
    raise EngineSpecError("default_policy", f"EngineSpec.default_policy {value!r} is not one of the policies "
                                            f"({', '.join(spec.policies) or 'none declared'})")


def _bench_configs(spec: EngineSpec, value: Any) -> Any:
    def each(key: str, item: Any) -> str | None:
        if not isinstance(item, Mapping):
            return "must be a mapping of option names to values"
        try:
            resolve_options(spec.options, item)
        except DescriptionError as exc:
            return exc.message
        return None
    return {name: dict(options) for name, options in _mapping("bench_configs", each)(spec, value).items()}


def _answer_bundles(spec: EngineSpec, value: Any) -> Any:
    found = _items("answer_bundles", str)(spec, value)
    for name in found:
        if name not in spec.bench_configs:
            raise EngineSpecError("answer_bundles", f"EngineSpec.answer_bundles names {name!r}, which bench_configs "
                                                    f"do not have ({', '.join(spec.bench_configs)})")
    return found


def _narration(spec: EngineSpec, value: Any) -> Any:
    if value is None or isinstance(value, Narrator):
        return value
    raise _wrong("narration", "a module with narrate_action(game, state, action) and narrate_state(game, snapshot)",
                 value)


def _pattern(key: str, item: Any) -> str | None:
    if not isinstance(item, str):
        return "must be a regular expression (a string)"
    try:
        re.compile(item)
    except re.error as exc:
        return f"is not a regular expression: {exc}"
    return None


def _colour(key: str, item: Any) -> str | None:
    if not isinstance(item, tuple | list) or len(item) != 4 or not all(
            type(v) in (int, float) and 0 <= v <= 100 for v in item):
        return "must be four CMYK percentages (0-100)"
    return None


def _schema(name: str) -> Callable[[EngineSpec, Any], Any]:
    def check(spec: EngineSpec, value: Any) -> Any:
        if value is not None and not isinstance(value, Mapping):
            raise _wrong(name, "a mapping (a JSON Schema) or None", value)
        return value  # its contents are checked by the gate, with lines (rulepress/verify/steps.py)
    return check


_CHECKS: dict[str, Callable[[EngineSpec, Any], Any]] = {
    "book_id": _text("book_id"), "make_game": _callable("make_game", False),
    "min_num_players": _count("min_num_players"), "max_num_players": _count("max_num_players"),
    "chance_mode": _kind("chance_mode"), "information": _kind("information"), "utility": _kind("utility"),
    "options": _options, "decisions": _decisions, "policies": _mapping("policies", _policy),
    "default_policy": _default_policy, "bench_configs": _bench_configs, "answer_bundles": _answer_bundles,
    "bench_extra": _callable("bench_extra", True), "end_rules": _items("end_rules", str),
    "inventory": _callable("inventory", True), "narration": _narration,
    "notation": _mapping("notation", _pattern), "palette": _mapping("palette", _colour),
    "action_schema": _schema("action_schema"), "state_schema": _schema("state_schema"),
}
SPEC_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(EngineSpec) if f.init)
"""Every field an ``EngineSpec(...)`` may name, in the order the guide lists them."""
REQUIRED_FIELDS: tuple[str, ...] = ("book_id", "make_game", "min_num_players", "max_num_players", "chance_mode",
                                    "information", "utility")
assert set(_CHECKS) == set(SPEC_FIELDS), "every field of EngineSpec is checked"


# -- the registry: what each loaded engine declares, for the checks made as names are used ----------------------

@dataclass
class _Declared:
    spec: EngineSpec
    decisions: frozenset[str]
    rules: frozenset[str] | None = None  # the book's rule IDs, once the gate declared them (declare_rules)
    book: str = ""

    @property
    def engine(self) -> str:
        return self.spec.package or self.spec.book_id


_UNSET: Any = object()
_ENGINES: dict[str, _Declared] = {}  # an engine package's import name -> what it declares
_BY_TYPE: dict[type, _Declared | None] = {}  # a class (a game's, a state's) -> its engine's declarations
_RULES: frozenset[str] | None = None  # every rule ID declared for any engine: the one look-up an event makes


def register_engine(spec: EngineSpec, module_name: str) -> EngineSpec:
    """Record ``spec`` as the declaration of the engine package imported as ``module_name`` (as
    ``pyspiel.register_game`` does): its classes' names are checked against it from now on.  Returns ``spec``."""
    if not isinstance(spec, EngineSpec):
        raise TypeError(f"not an EngineSpec: {spec!r}")
    object.__setattr__(spec, "module_name", module_name)
    kept = _ENGINES.get(module_name)
    rules = kept.rules if kept is not None and kept.spec is spec else None
    _ENGINES[module_name] = _Declared(spec, frozenset(d.id for d in spec.derived_decisions()), rules,
                                      kept.book if rules is not None and kept is not None else "")
    _BY_TYPE.clear()
    return spec


def declare_rules(module_name: str, book: str, rules: Iterable[str]) -> None:
    """The rule IDs of the book the engine imported as ``module_name`` implements (the gate declares them as it
    loads the book): from now on an event, a refusal or a setup's refusal of that engine naming another rule
    raises :class:`UndeclaredName` where it is made."""
    global _RULES
    declared = _ENGINES.get(module_name)
    if declared is None:
        raise KeyError(f"no engine registered as {module_name}")
    declared.rules, declared.book = frozenset(rules), book
    _RULES = frozenset().union(*(d.rules for d in _ENGINES.values() if d.rules is not None))


def _declared_for(kind: type) -> _Declared | None:
    found = _declared_in(kind.__module__)
    _BY_TYPE[kind] = found
    return found


def _declared_in(module: str) -> _Declared | None:
    """The registered engine whose package holds ``module`` (the longest name: a package inside another)."""
    best = None
    for name, declared in _ENGINES.items():
        if (module == name or module.startswith(name + ".")) and (best is None or len(name) > len(best[0])):
            best = (name, declared)
    return best[1] if best is not None else None


def engine_of(thing: Any) -> EngineSpec | None:
    """The declaration of the engine whose code defines ``thing``'s class (a game, a state), if it was registered."""
    declared = _BY_TYPE.get(type(thing), _UNSET)
    if declared is _UNSET:
        declared = _declared_for(type(thing))
    return declared.spec if declared is not None else None


def _check_rule(rule: Any) -> None:
    rules = _RULES
    if rules is not None and (type(rule) is not str or rule not in rules):
        _undeclared_rule(rule)


# Frames between the engine code that names a rule and the check: this module's own, and the trampoline mutation
# testing puts in front of each mutated function (docs/MUTATION.md: a mutated copy of this module calls its own
# functions through mutmut's, and a check that stopped there would take mutmut for the caller and never refuse).
_PASSED_THROUGH = frozenset({__name__, "mutmut.mutation.trampoline"})


def _undeclared_rule(rule: Any) -> None:
    """A rule ID no declared book has (or not a string): refused if engine code of a declared book made it."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_globals.get("__name__") in _PASSED_THROUGH
                                 or frame.f_code.co_filename == "<string>"):
        frame = frame.f_back  # out of this module, the dataclass's generated __init__ and mutmut's trampolines
    declared = _declared_in(str(frame.f_globals.get("__name__", ""))) if frame is not None else None
    if declared is None or declared.rules is None:
        return  # not an engine's own code (rulepress's, a test's), or its book's rules are not declared here
    if type(rule) is not str or rule not in declared.rules:
        raise UndeclaredName("rule", rule, declared.rules, f"book {declared.book}")
