"""The base class every engine is written on, so that a game writes its rules and little else (docs/ENGINE.md).

:class:`BaseGame` speaks the whole :class:`rulepress.protocol.Game` protocol.  A deterministic game writes only:

* ``ACTIONS`` (what a step may say) and ``PLAYERS`` (with the rule that refuses other player counts);
* ``start`` (a new game) and ``describe`` (a state an example describes), each given the state's
  :class:`~rulepress.protocol.Chance`: a game with chance keeps it in ``state.chance`` and draws every random
  outcome from it (then forced outcomes, ``start.chance`` included, work as they are), a game without ignores it;
* ``moves`` (every action that could be named now), ``check`` (raise :class:`RuleViolation` naming the rule
  that forbids one) and ``perform`` (carry it out, returning :class:`Event` s);
* ``snapshot`` (the state as plain data), ``result``, and ``draw`` (the diagram's SVG elements).

Legal actions are the moves ``check`` lets through, so what the rules allow and what ``apply`` accepts can never
disagree; ``check`` runs before ``perform`` and must not change the state, so a refused action leaves the
state exactly as it was (replay verifies it).  Actions are :class:`Move` s: an example step, frozen.

A game with an ``OBSERVER`` gets information states (:mod:`rulepress.memory`): its states keep a ``memory``, begun
when a game is set up or described and told of every step ``apply`` takes; ``perform`` says what it shows a seat
and what leaves a place it was shown at (``memory.reveal``, ``memory.forget``), and the observer's ``view`` shows
it (``recall``).

A game with chance names the outcomes it can draw in ``check_outcomes`` (a forced one it never draws is refused
before anything replays).  A game with its own action type, step format or a faster move generator overrides
``legal_actions``, ``apply``, ``parse_action``, ``format_action`` and ``action_step`` (the bundled engines do);
everything else (options, player counts, described states, chance, copies, the diagram's frame, font and
colours) stays the base's.
"""

from __future__ import annotations

import copy
import inspect
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, ClassVar, NamedTuple
from xml.sax.saxutils import escape, quoteattr

from rulepress import figures, memory
from rulepress import marks as default_marks
from rulepress.change import Change
from rulepress.cmyk import HOUSE, Cmyk, device_cmyk
from rulepress.figures import FONT, PAPER, ComponentPicture, Figure, Frame, LegendEntry
from rulepress.marks import Box, Marks  # Box: where draw() puts a part of the snapshot (``places``)
from rulepress.placing import labels_of
from rulepress.protocol import (
    HIDDEN,
    PUBLIC,
    Chance,
    ChanceMode,
    DescriptionError,
    EngineSpec,
    Event,
    Observer,
    OptionSpec,
    RuleViolation,
    meant,
    resolve_options,
)

COMMON_KEYS = frozenset({"do", "player", "illegal", "note"})  # what any step may say besides an action's own keys
SMALLEST = 10  # font size in units: 6.8 pt when the 480-unit canvas prints across an A5 text block (docs/ENGINE.md)
INK = device_cmyk(HOUSE["ink"])  # the book's own black: text and thin lines in black ink only
MUTED = device_cmyk(HOUSE["muted"])
_PLAIN = frozenset({str, int, bool, float, type(None)})  # argument values that are hashable as they are


def cmyk(c: float, m: float, y: float, k: float) -> str:
    """A game colour (CMYK percentages) as SVG writes it for the print edition; screens get RGB from it."""
    return device_cmyk((c, m, y, k))


def painter(palette: Mapping[str, Cmyk]) -> Callable[[str], str]:
    """``paint = painter(PALETTE)``: a colour of the game's palette by name, as SVG writes it (``paint("ink")``).

    The palette (name -> CMYK percentages, ``render.PALETTE``) is the one place a game's colours are chosen; the
    print edition uses the inks as they are, screens get sRGB from them (``rulepress.render.palette``)."""
    written = {name: device_cmyk(colour) for name, colour in palette.items()}
    return written.__getitem__


def _hashable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, Mapping):
        return tuple((k, _hashable(v)) for k, v in value.items())
    return value


def _listed(value: Any) -> Any:
    return [_listed(v) for v in value] if isinstance(value, tuple) else value


class Move(NamedTuple):
    """An action: who does what, with the action's own arguments (``{square: b2}``), sorted by name so that two
    spellings of a move are one move.  A tuple, so that building, comparing and hashing one is cheap."""

    player: str
    do: str
    args: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, player: str, do: str, **args: Any) -> Move:
        try:
            return _known_move(player, do, **args)  # a game names the same few moves over and over
        except TypeError:  # an unhashable argument (a list): built anew
            return _build_move(player, do, args)

    def __getitem__(self, key: str) -> Any:  # type: ignore[override]  # an argument by name, not a field by index
        for name, value in self.args:
            if name == key:
                return value
        raise KeyError(key)

    def step(self) -> dict[str, Any]:
        """The example step that names this move (the inverse of ``parse_action``)."""
        return {"player": self.player, "do": self.do, **{k: _listed(v) for k, v in self.args}}


def _build_move(player: str, do: str, args: Mapping[str, Any]) -> Move:
    items = [(key, value if type(value) in _PLAIN else _hashable(value)) for key, value in args.items()]
    if len(items) > 1:
        items.sort()  # names are unique, so values are never compared
    return tuple.__new__(Move, (player, do, tuple(items)))


@lru_cache(maxsize=1 << 16, typed=True)  # typed: True and 1 stay two arguments
def _known_move(player: str, do: str, **args: Any) -> Move:
    return _build_move(player, do, args)


class BaseGame(ABC):
    """The protocol's plumbing; subclasses write the rules (see the module's docstring)."""

    book_id: ClassVar[str]
    OPTIONS: ClassVar[tuple[OptionSpec, ...]] = ()
    # Each action a step may name (``do``), with its arguments: the values each may take (``None``: any value).
    ACTIONS: Mapping[str, Mapping[str, Collection[Any] | None]] = {}
    PLAYERS: ClassVar[tuple[int, int]] = (2, 2)  # fewest and most players
    PLAYERS_RULE: ClassVar[str | None] = None  # the rule that refuses other player counts
    # The keys a described state (``start.state``) may have; None: the game checks its own (a STATE_SCHEMA).
    STATE_KEYS: ClassVar[Collection[str] | None] = ()
    ACTION: ClassVar[type] = Move  # the type of the game's actions (``apply`` refuses anything else)
    # False: the game draws nothing at random, so no Chance is seeded for it (start and describe get None).
    CHANCE: ClassVar[bool] = True
    FRAME: ClassVar[Frame] = Frame()
    WIDTH: int = 480  # canvas units; printed 120 mm wide, so 4 units per millimetre
    HEIGHT: int = 360
    # What each seat sees (docs/ENGINE.md, "Hidden information"): a BaseObserver subclass, made once per game;
    # None: nothing is hidden, every seat sees the whole state.
    OBSERVER: ClassVar[Callable[[Any], Observer] | None] = None
    MARK: ClassVar[str] = default_marks.MARK  # the colour of the marks that show a move (outlines, arrows, numbers)

    def derived_schemas(self) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """The action and state schemas the gate checks steps against when the declaration gives none: from
        ``ACTIONS`` and ``STATE_KEYS`` (rulepress/verify/steps.py)."""
        return self.action_schema(), self.state_schema()

    def against(self, spec: EngineSpec) -> list[tuple[str, str]]:
        """What a declaration says that this game's own CHANCE, PLAYERS and OPTIONS contradict: each an EngineSpec
        field and why (the gate names the field's line: rulepress/verify/engines.py, ``game_problems``)."""
        found = []
        if (self.CHANCE is False) != (spec.chance_mode is ChanceMode.DETERMINISTIC):
            found.append(("chance_mode", f"chance_mode is {spec.chance_mode.value!r}, but the game's CHANCE is "
                                         f"{self.CHANCE}"))
        fewest, most = type(self).PLAYERS
        if (fewest, most) != (spec.min_num_players, spec.max_num_players) and \
                type(self).check_players is BaseGame.check_players:
            found.append(("min_num_players", f"min_num_players and max_num_players say {spec.min_num_players} to "
                                             f"{spec.max_num_players} players, but the game's PLAYERS is "
                                             f"{(fewest, most)}"))
        if tuple(type(self).OPTIONS) != spec.options and type(self).resolve_options is BaseGame.resolve_options:
            found.append(("options", "options are not the game's OPTIONS (declare the same tuple in both)"))
        return found

    def __init__(self, components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> None:
        if not isinstance(components, Mapping):
            raise DescriptionError("components", "the component data must be a mapping")
        self.components = components
        self.options: Mapping[str, Any] = self.resolve_options(options)
        self.observer: Observer | None = self.OBSERVER(self) if self.OBSERVER is not None else None

    # --- what a game writes ------------------------------------------------------------------------

    @abstractmethod
    def start(self, players: list[str], chance: Chance | None) -> Any:
        """A new game for these players (the first listed starts); a game with chance keeps ``chance`` in
        ``state.chance`` and shuffles and deals from it (it holds the outcomes an example forced for the setup).
        ``chance`` is None for a game that sets ``CHANCE = False``."""

    def describe(self, description: Mapping[str, Any], players: list[str], chance: Chance | None) -> Any:
        """A state an example's ``start.state`` describes (with ``chance`` in ``state.chance``, if the game has
        chance); raise DescriptionError with the entry's path."""
        raise DescriptionError("start.state", f"the {self.book_id} engine describes no states: start examples "
                                              f"with 'setup: true'")

    def moves(self, state: Any) -> Iterable[Any]:
        """Every move that could be named now; ``check`` decides which are legal."""
        raise NotImplementedError(f"{type(self).__name__} writes moves() or its own legal_actions()")

    def check(self, state: Any, move: Any) -> None:
        """Raise :class:`RuleViolation` naming the rule when the rules forbid ``move``; never change ``state``."""
        raise NotImplementedError(f"{type(self).__name__} writes check() or its own apply()")

    def perform(self, state: Any, move: Any) -> list[Event]:
        """Carry out a move ``check`` allowed, in place; every event names the rule that made it happen."""
        raise NotImplementedError(f"{type(self).__name__} writes perform() or its own apply()")

    @abstractmethod
    def snapshot(self, state: Any) -> dict[str, Any]:
        """The state as plain data (str, int, bool, list, dict), for checkpoints and prose."""

    @abstractmethod
    def draw(self, state: Any) -> Sequence[str] | Figure:
        """The diagram's SVG elements on a ``WIDTH`` x ``HEIGHT`` canvas (no caption: the book prints it), or a
        :class:`Figure` when the height or the ``<desc>`` depends on the state.  A game with an ``OBSERVER`` takes
        ``seat`` too (``draw(state, seat=None)``): drawn for a seat, it shows only what the seat sees (None:
        everything)."""

    def result(self, state: Any) -> dict[str, Any]:
        return {"over": self.is_terminal(state)}

    def current(self, state: Any) -> str | None:
        """Whose turn it is (a step without ``player`` is theirs): ``state.current`` by default."""
        return getattr(state, "current", None)

    def resolve_options(self, given: Mapping[str, Any] | None) -> Mapping[str, Any]:
        """Every option's value from ``OPTIONS``: defaults, overridden by ``given`` (unknown ones raise)."""
        return resolve_options(self.OPTIONS, given)

    def check_players(self, players: Sequence[str]) -> Any:
        """The players of a new or described game; refuses a count outside ``PLAYERS`` and a name given twice."""
        fewest, most = self.PLAYERS
        if not fewest <= len(players) <= most:
            wanted = str(fewest) if fewest == most else f"{fewest} to {most}"
            raise DescriptionError("players", f"{self.book_id} is played by {wanted} players, not {len(players)}",
                                   self.PLAYERS_RULE)
        if len(set(players)) != len(players):
            raise DescriptionError("players", "two players have the same name")
        return list(players)

    def check_outcomes(self, outcomes: Sequence[Any], path: str = "chance") -> None:
        """Refuse outcomes this game never draws, with a DescriptionError at ``path`` (``chance``, or
        ``start.chance`` for the setup's): by default only outcomes that are not a list."""
        if isinstance(outcomes, str) or not isinstance(outcomes, Sequence):
            raise DescriptionError(path, "chance outcomes must be a list")

    # --- the protocol, from the above ------------------------------------------------------------------

    def new_state(self, players: Sequence[str], seed: int, forced: Sequence[Any] = ()) -> Any:
        chosen = self.check_players(players)
        if forced:
            self.check_outcomes(forced, "start.chance")
        chance = self._chance(seed, forced) if self.CHANCE or forced else None
        state = self.start(chosen, chance)
        left = chance.unused() if chance is not None else []
        if left and list(self.unused_chance(state)) != left:  # the state keeps no chance: they would be dropped
            if len(left) == len(forced):
                raise DescriptionError("start.chance", f"{self.book_id} has no chance at setup: nothing to fix "
                                                       f"with 'start.chance'")
            raise DescriptionError("start.chance", f"the setup drew {len(forced) - len(left)} of the forced "
                                                   f"outcomes, and {self.book_id} keeps no chance to draw the rest "
                                                   f"({', '.join(map(str, left))})")
        return self.begin_memory(state, memory.Setup(tuple(players), seed, tuple(forced)))

    @staticmethod
    def _chance(seed: int, forced: Sequence[Any] = ()) -> Chance:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise DescriptionError("seed", f"the seed must be a whole number, not {seed!r}")
        return Chance(seed, forced)

    def state_from_description(self, description: Mapping[str, Any], players: Sequence[str], seed: int) -> Any:
        if self.STATE_KEYS is not None:
            if not isinstance(description, Mapping):
                raise DescriptionError("start.state", "a described state must be a mapping")
            for key in description:
                if key not in self.STATE_KEYS:
                    raise DescriptionError(f"start.state.{key}", f"unknown key '{key}' (a described state takes: "
                                                                 f"{', '.join(self.STATE_KEYS) or 'nothing'})")
        chance = self._chance(seed) if self.CHANCE else None
        return self.begin_memory(self.describe(description, self.check_players(players), chance))

    def legal_actions(self, state: Any) -> list[Any]:
        check, legal = self.check, []
        for move in self.moves(state):
            try:
                check(state, move)
            except RuleViolation:
                continue
            legal.append(move)
        return legal

    def parse_action(self, state: Any, step: Mapping[str, Any]) -> Any:
        do = step.get("do")
        if do not in self.ACTIONS:
            raise DescriptionError("step.do", f"unknown action {do!r} ({meant(do, self.ACTIONS)}actions: "
                                              f"{', '.join(self.ACTIONS)})")
        wanted = self.ACTIONS[do]
        extra = sorted(str(key) for key in step if key not in wanted and key not in COMMON_KEYS)
        if extra:
            takes = ", ".join(wanted) or "nothing but 'player'"
            raise DescriptionError(f"step.{extra[0]}", f"'{do}' takes {takes}, not '{extra[0]}'")
        player = step.get("player", self.current(state))
        known = getattr(state, "players", None)
        if not isinstance(player, str) or (known is not None and player not in known):
            raise DescriptionError("step.player", f"unknown player {player!r}"
                                                  + (f" (players: {', '.join(known)})" if known else ""))
        args = {}
        for key, allowed in wanted.items():
            if key not in step:
                raise DescriptionError(f"step.{key}", f"'{do}' needs '{key}'")
            value = step[key]
            if allowed is not None and _hashable(value) not in allowed:
                raise DescriptionError(f"step.{key}", f"unknown {key} {value!r} ({key}s: "
                                                      f"{', '.join(map(str, allowed))})")
            args[key] = value
        return Move.of(player, do, **args)

    def action_schema(self) -> dict[str, Any] | None:
        """The shape of each action's step, from ``ACTIONS`` (docs/ENGINE.md, ``ACTION_SCHEMA``): every argument
        required, with its listed values; the gate checks steps against it before replaying, with lines.  None
        when the game lists no ``ACTIONS`` (it reads its own steps: its ``schema.py`` says their shape)."""
        if not self.ACTIONS:
            return None
        return {do: {"properties": {key: {} if allowed is None else {"enum": [_listed(v) for v in allowed]}
                                    for key, allowed in wanted.items()},
                     "required": list(wanted)}
                for do, wanted in self.ACTIONS.items()}

    def state_schema(self) -> dict[str, Any] | None:
        """The shape of a described state (``STATE_SCHEMA``): a mapping with the keys in ``STATE_KEYS`` (None when
        the game checks its own)."""
        if self.STATE_KEYS is None:
            return None
        keys = self.STATE_KEYS
        return {"type": "object", "x-expect": f"a mapping with {', '.join(keys) or 'no keys'}",
                "properties": {key: {} for key in keys}, "additionalProperties": False}

    def action_step(self, state: Any, action: Any) -> dict[str, Any]:
        return action.step()

    def setup_events(self, state: Any) -> list[Event]:
        """What setup did, as events, for a state no action has been applied to yet (the analysis counts the
        components and rules they touch): none, unless the game says (Lantern Moths tells its deal)."""
        return []

    def format_action(self, state: Any, action: Any) -> str:
        return f"{action.player}: {' '.join([action.do, *(f'{key} {value}' for key, value in action.args)])}"

    def apply(self, state: Any, action: Any) -> list[Event]:
        if not isinstance(action, self.ACTION):
            raise DescriptionError("step", f"not an action of this game: {action!r}")
        self.check(state, action)
        events = self.perform(state, action)
        self.remember(state, action, events)
        return events

    # --- memory: what each seat has been shown (rulepress/memory.py) --------------------------------------------

    def begin_memory(self, state: Any, setup: memory.Setup | None = None) -> Any:
        """Give a new or described ``state`` of a game with an observer its memory, which keeps where the game began:
        ``setup``, how ``new_state`` set it up (set up again when a seat's view of it is asked for), else a copy of
        it.  A state whose class keeps no ``memory`` (``__slots__`` without it) goes without: its information states
        are then what each seat sees now."""
        if self.observer is None:
            return state
        try:
            state.memory = None
        except AttributeError:
            return state
        state.memory = memory.Memory(setup if setup is not None else self.clone(state))
        return state

    def actor(self, state: Any, action: Any) -> str | None:
        """The player who takes ``action``: its ``player``, a name or a seat's number in ``state.players``; None for
        one the rules take (a draw nobody owns: ``player`` -1 or missing)."""
        player = getattr(action, "player", None)
        if isinstance(player, str):
            return player
        players = getattr(state, "players", ())
        if type(player) is int and 0 <= player < len(players):
            return str(players[player])
        return None

    def remember(self, state: Any, action: Any, events: Sequence[Event]) -> None:
        """Add the step just taken to ``state.memory``: ``action`` and its ``events``, as they are (who took it and
        in what words, ``actor`` and ``format_action``, are asked of the state an information state is made from).
        The base's ``apply`` calls it; a game that writes its own ``apply`` calls it there."""
        kept = getattr(state, "memory", None)
        if kept is not None:
            kept.step(action, events)

    def force_chance(self, state: Any, outcomes: Sequence[Any]) -> None:
        chance = getattr(state, "chance", None)
        if chance is None:
            raise DescriptionError("chance", f"{self.book_id} has no chance: nothing to fix with 'chance:' steps")
        self.check_outcomes(outcomes)
        chance.force(outcomes)

    def unused_chance(self, state: Any) -> list[Any]:
        chance = getattr(state, "chance", None)
        return chance.unused() if isinstance(chance, Chance) else []

    def clone(self, state: Any) -> Any:
        """The state's own ``clone()`` when it has one (a hand-written copy is much faster), else a deep copy; either
        way with a copy of the state's memory (``Memory.copy``: it costs nothing), which a hand-written copy may leave
        out or share."""
        own = getattr(state, "clone", None)
        twin = own() if own is not None else copy.deepcopy(state)
        kept = getattr(state, "memory", None)
        if kept is not None:
            mine = getattr(twin, "memory", None)
            if mine is None or mine is kept:
                twin.memory = kept.copy()
        return twin

    def is_terminal(self, state: Any) -> bool:
        return not self.legal_actions(state)

    def decisions_made(self, state: Any) -> Mapping[str, int]:
        """``state.decisions`` (what :func:`rulepress.protocol.decided` counted), or nothing for a game whose states
        keep no such count."""
        return dict(getattr(state, "decisions", None) or {})

    def metrics(self, state: Any) -> dict[str, float | int | str | bool]:
        flat = {k: v for k, v in self.result(state).items() if isinstance(v, int | float | str | bool)}
        return {"over": self.is_terminal(state), **flat}

    def text_alternative(self, state: Any, seat: str | None = None) -> str:
        """The diagram's ``<desc>`` when ``draw`` words none: the plain values of the snapshot (of the seat's view,
        for a seat)."""
        shown = self.snapshot(state) if seat is None or self.observer is None else self.observer.view(state, seat)
        said = [f"{k}: {v}" for k, v in shown.items() if isinstance(v, str | int | float)]
        return "; ".join(said)

    def render_svg(self, state: Any, caption: str | None = None, seat: str | None = None,
                   change: Change | None = None) -> str:
        """The diagram, framed (``FRAME``); for ``seat`` (a player's name or ``PUBLIC``) in a game with an observer,
        as that seat sees it: ``draw(state, seat)``.  With ``change`` (what the steps it illustrates changed, and
        the moment it shows) the diagram says its moment in its ``<title>`` and marks the change (``mark``); a
        ``draw`` that takes ``change`` gets it too (to show only the region it touches, or to mark it itself)."""
        if seat is not None and self.observer is None:
            seat = None  # nothing is hidden: every seat sees the whole state
        extra: dict[str, Any] = {"change": change} if change is not None and _takes(type(self).draw, "change") else {}
        drawn = self.draw(state, **extra) if seat is None else self.draw(state, seat, **extra)  # type: ignore[call-arg]
        figure = drawn if isinstance(drawn, Figure) else Figure(drawn)
        width = self.WIDTH if figure.width is None else figure.width
        height = self.HEIGHT if figure.height is None else figure.height
        elements = list(figure.elements)
        if change is not None:
            places = figure.places if figure.places is not None else self.places(state, seat)
            # The marks keep clear of the drawing's text (rulepress/marks.py); a mark() written before they were
            # given it is asked without (the gate measures its marks all the same).
            given = {"labels": labels_of(elements)} if _takes(type(self).mark, "labels") else {}
            marked = self.mark(change, places, width, height, **given)
            if marked.elements:
                elements.append(f'<g class="rp-marks" font-family="{FONT}">' + "".join(marked.elements) + "</g>")
            height += marked.extra_height
        return self.FRAME.document(
            width, height, elements,
            self.text_alternative(state, seat) if figure.desc is None else figure.desc,
            PAPER if figure.background is None else figure.background,
            title=change.moment if change is not None else None)

    # --- what a diagram shows beyond the position (all optional) -----------------------------------------

    def places(self, state: Any, seat: str | None = None) -> Mapping[str, Box]:
        """Where ``draw`` puts each part of the snapshot: a dotted path (``garden.b2``, ``hands.Ann``) -> its
        :class:`~rulepress.marks.Box` on the canvas, so that the marks find what a step changed (a path of the
        change belongs to the longest place that is the path or a prefix of it).  A ``draw`` may return them with
        its :class:`Figure` instead.  None known: what a step changed is told in a numbered line under the picture."""
        return {}

    def mark(self, change: Change, places: Mapping[str, Box], width: float, height: float,
             labels: Sequence[Box] = ()) -> Marks:
        """The marks of ``change`` over the drawing: by default an outline and the step's number round each place
        it changed, an arrow for each piece moved from one place to another, a struck-out arrow labelled with the
        rule for each refused move (rulepress/marks.py), each placed clear of the drawing's text (``labels``: where
        each of its ``<text>`` prints) and of the other marks.  Every mark's element carries ``class="rp-mark ..."``:
        the gate refuses a diagram of a change that has none, and one whose marks cover a label."""
        return default_marks.draw_marks(change, places, width, height, self.MARK, self.attempt_places,
                                        self.arrow_wanted, labels)

    def arrow_wanted(self, source: str, target: str) -> bool:
        """Whether a piece moved from place ``source`` to ``target`` gets an arrow (both outlined either way): yes by
        default; a game whose pieces come from far across its drawing may say no (Last Lantern's tiles from a hand
        in the players' table to the paths)."""
        return True

    def attempt_places(self, step: Mapping[str, Any], places: Mapping[str, Box]) -> list[str]:
        """Where a refused step points, source first and target last (a struck-out arrow joins them): by default
        each value the step names (its player, a tile) matched to a place whose name ends with it."""
        return default_marks.attempt_places(step, places)

    def drawn_places(self, state: Any, seat: str | None = None) -> Mapping[str, Box]:
        """Where the diagram of ``state`` (as ``seat`` sees it) draws each place: its :class:`Figure`'s ``places``,
        else :meth:`places`."""
        if seat is not None and self.observer is None:
            seat = None
        drawn = self.draw(state) if seat is None else self.draw(state, seat)  # type: ignore[call-arg]
        found = drawn.places if isinstance(drawn, Figure) else None
        return found if found is not None else self.places(state, seat)

    def action_places(self, state: Any, action: Any, places: Mapping[str, Box]) -> list[str]:
        """The places of the drawing an action uses, source first and target last (a card in a hand, the tile it
        goes on): by default where the step that writes it points (:meth:`attempt_places`), as a refused step's
        arrow does."""
        return self.attempt_places(self.action_step(state, action), places)

    def actions_by_place(self, state: Any, actions: Sequence[Any], places: Mapping[str, Box]) -> dict[str, list[int]]:
        """Each place of the drawing -> the indexes in ``actions`` of those that use it (:meth:`action_places`): the
        moves a reader picks by clicking the board there (the site's try-a-move panel)."""
        found: dict[str, list[int]] = {}
        for index, action in enumerate(actions):
            for place in self.action_places(state, action, places):
                if place in places:
                    found.setdefault(place, []).append(index)
        return found

    def legend(self) -> Sequence[LegendEntry]:
        """The game's key to its diagrams' symbols, printed once per chapter (and once on each example page of the
        site) rather than under every diagram; the marks' own key is added to it.  None by default."""
        return ()

    def component_pictures(self) -> Sequence[ComponentPicture]:
        """Every kind of component with its count and its picture, for the book's components section.  By default
        each entry of components.yaml that counts something (a mapping with a ``total`` or a ``count``) as a token
        named after its key; an engine draws its own pieces instead."""
        found = []
        for key, value in self.components.items():
            if not isinstance(value, Mapping) or key in ("players", "play_time"):
                continue
            count = value.get("total", value.get("count"))
            if isinstance(count, int) and not isinstance(count, bool) and count > 0:
                name = str(key).replace("_", " ")
                found.append(ComponentPicture(name[:1].upper() + name[1:], count, figures.token(name)))
        return found

    def cover_art(self, width: float, height: float) -> Sequence[str] | None:
        """The front cover's artwork: SVG elements on a ``width`` x ``height`` canvas (millimetres), drawn from the
        game's own pieces.  By default its component pictures, laid out in a loose ring; None: the book's colours
        only (rulepress/render/cover.py's motif)."""
        pictures = list(self.component_pictures())
        return figures.scattered([p.figure for p in pictures], width, height) if pictures else None


@lru_cache(maxsize=256)
def _takes(method: Any, name: str) -> bool:
    """Whether ``method`` accepts a keyword ``name`` (an engine's ``draw`` written before it was passed)."""
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return name in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


class BaseObserver(ABC):
    """What each seat of a game sees (docs/ENGINE.md, "Hidden information"), on the model of OpenSpiel's observers.

    A game sets ``OBSERVER = ItsObserver``; the observer writes ``hidden`` (each part some seat cannot see, with who
    can), ``view`` (the snapshot as a seat sees it, ``hide`` putting :data:`~rulepress.protocol.HIDDEN` where it
    cannot, ``recall`` showing there what the seat was shown and still knows) and ``redraw`` (deal one hidden part
    again, in place, on a copy the base has made, keeping what the seat knows).  It may add ``event_view`` and
    ``result_view``.  ``information_state`` (OpenSpiel's information-state string) is the base's, from the state's
    memory (:mod:`rulepress.memory`); an observer may write its own (the Kuhn poker sample writes OpenSpiel's).
    """

    hidden: ClassVar[Mapping[str, str]] = {}

    def __init__(self, game: Any) -> None:
        self.game = game

    @abstractmethod
    def view(self, state: Any, seat: str) -> dict[str, Any]:
        """The snapshot as ``seat`` sees it (``PUBLIC``: what every player sees)."""

    @abstractmethod
    def redraw(self, state: Any, seat: str, part: str, rng: random.Random) -> None:
        """Deal ``part`` again from ``rng`` among what ``seat`` cannot tell apart, changing ``state`` (a copy) in
        place; everything the seat sees stays as it was."""

    def resample(self, state: Any, seat: str, part: str, rng: random.Random) -> Any:
        """A copy of ``state`` with ``part`` dealt again for ``seat`` (``redraw``), whose memory is what the seat
        knows of the original's (``Memory.seen_by``): nothing in the copy tells what the seat could not see, and the
        seat's information state is the original's."""
        if part not in self.hidden:
            raise ValueError(f"{type(self).__name__} hides no part {part!r} (it hides: {', '.join(self.hidden)})")
        twin = self.game.clone(state)
        kept = getattr(twin, "memory", None)
        if isinstance(kept, memory.Memory):
            twin.memory = kept.seen_by(seat, self.sight(state))
        self.redraw(twin, seat, part, rng)
        return twin

    def sight(self, state: Any) -> memory.Sight:
        """What ``state``'s memory is told through: this observer's ``view`` and ``event_view``, who took an action
        and what it was in the game's words (its ``actor`` and ``format_action``, asked of ``state``: the engines'
        words name only players, whom every state has), and the game's ``new_state`` for where a game began."""
        game = self.game

        def again(setup: memory.Setup) -> Any:
            return game.new_state(list(setup.players), setup.seed, setup.forced)

        return memory.Sight(self.view, lambda action: (game.actor(state, action), game.format_action(state, action)),
                            getattr(self, "event_view", None), again)

    def information_state(self, state: Any, seat: str) -> str:
        """OpenSpiel's information-state string of ``seat``: what it has seen so far (the state's memory: where the
        game began, its own actions, every event as it saw it, what it was shown) and its view now.  A state that
        keeps no memory gives its view only."""
        kept = getattr(state, "memory", None)
        now = self.view(state, seat)
        if not isinstance(kept, memory.Memory):
            return f"seat: {seat or 'everyone'}\nnow: {memory.dumps(now)}"
        return kept.information_state(seat, now, self.sight(state))

    @staticmethod
    def recall(state: Any, seat: str, place: str, value: Any) -> Any:
        """``value``, the snapshot's at ``place`` (``hands.Ann``), which ``seat`` cannot see, as the seat knows it:
        what it was shown there (``memory.reveal``) and is there still, the rest hidden
        (:func:`rulepress.memory.recall`; with nothing shown, as :meth:`hide` shows it)."""
        return memory.recall(state, seat, place, value)

    @staticmethod
    def hide(value: Any) -> Any:
        """``value`` as a seat that cannot see it is shown it: a list keeps its length, a mapping its keys."""
        if isinstance(value, list | tuple):
            return [HIDDEN] * len(value)
        if isinstance(value, Mapping):
            return {key: HIDDEN for key in value}
        return HIDDEN

    @staticmethod
    def others(players: Iterable[str], seat: str) -> list[str]:
        """The players whose private information ``seat`` cannot see (every player, for ``PUBLIC``)."""
        return [player for player in players if player != seat or seat == PUBLIC]


def text(x: float, y: float, content: str, size: float = 12, anchor: str = "middle", fill: str = INK,
         weight: str = "normal") -> str:
    """A label, never smaller than ``SMALLEST`` units (the print's legibility floor)."""
    return (f'<text x="{x:g}" y="{y:g}" font-size="{max(size, SMALLEST):g}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(content)}</text>')


def shape(tag: str, fill: str = "none", stroke: str = INK, line_width: float = 1.5, **attributes: float | str) -> str:
    """``<rect>``, ``<circle>``, ``<line>``, ``<path>``...: ``shape("circle", cx=10, cy=10, r=5)``; ``line_width``
    is the stroke's, so that a rect's own ``width`` stays an attribute."""
    given = "".join(f" {name.replace('_', '-')}={quoteattr(f'{value:g}' if isinstance(value, float) else str(value))}"
                    for name, value in attributes.items())
    return f'<{tag}{given} fill="{fill}" stroke="{stroke}" stroke-width="{line_width:g}"/>'
