"""A base class for engines, so that a game writes its rules and little else (docs/ENGINE.md).

:class:`BaseGame` speaks the whole :class:`rulepress.protocol.Game` protocol.  A deterministic game with no
chance writes only:

* ``ACTIONS`` (what a step may say) and ``PLAYERS`` (with the rule that refuses other player counts);
* ``start`` (a new game) and ``describe`` (a state an example describes);
* ``moves`` (every action that could be named now), ``check`` (raise :class:`RuleViolation` naming the rule
  that forbids one) and ``perform`` (carry it out, returning :class:`Event` s);
* ``snapshot`` (the state as plain data), ``result``, and ``draw`` (the diagram's SVG elements).

Legal actions are the moves ``check`` lets through, so what the rules allow and what ``apply`` accepts can never
disagree; ``check`` runs before ``perform`` and must not change the state, so a refused action leaves the
state exactly as it was (replay verifies it).  Actions are :class:`Move` s: an example step, frozen.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar
from xml.sax.saxutils import escape, quoteattr

from rulepress.cmyk import HOUSE, device_cmyk
from rulepress.protocol import DescriptionError, Event, OptionSpec, RuleViolation, resolve_options

COMMON_KEYS = frozenset({"do", "player", "illegal", "note"})  # what any step may say besides an action's own keys
FONT = "Rulepress Sans, DejaVu Sans, sans-serif"  # the book's embedded sans; DejaVu on screens without it
SMALLEST = 10  # font size in units: 6.8 pt when the 480-unit canvas prints across an A5 text block (docs/ENGINE.md)
INK = device_cmyk(HOUSE["ink"])  # the book's own black: text and thin lines in black ink only
MUTED = device_cmyk(HOUSE["muted"])
PAPER = device_cmyk(HOUSE["paper"])


def cmyk(c: float, m: float, y: float, k: float) -> str:
    """A game colour (CMYK percentages) as SVG writes it for the print edition; screens get RGB from it."""
    return device_cmyk((c, m, y, k))


def _hashable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, Mapping):
        return tuple((k, _hashable(v)) for k, v in value.items())
    return value


def _listed(value: Any) -> Any:
    return [_listed(v) for v in value] if isinstance(value, tuple) else value


@dataclass(frozen=True)
class Move:
    """An action: who does what, with the action's own arguments (``{square: b2}``), sorted by name so that two
    spellings of a move are one move."""

    player: str
    do: str
    args: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, player: str, do: str, **args: Any) -> Move:
        return cls(player, do, tuple(sorted((key, _hashable(value)) for key, value in args.items())))

    def __getitem__(self, key: str) -> Any:
        for name, value in self.args:
            if name == key:
                return value
        raise KeyError(key)

    def step(self) -> dict[str, Any]:
        """The example step that names this move (the inverse of ``parse_action``)."""
        return {"player": self.player, "do": self.do, **{k: _listed(v) for k, v in self.args}}


class BaseGame(ABC):
    """The protocol's plumbing; subclasses write the rules (see the module's docstring)."""

    book_id: ClassVar[str]
    OPTIONS: ClassVar[tuple[OptionSpec, ...]] = ()
    # Each action a step may name (``do``), with its arguments: the values each may take (``None``: any value).
    ACTIONS: Mapping[str, Mapping[str, Collection[Any] | None]] = {}
    PLAYERS: ClassVar[tuple[int, int]] = (2, 2)  # fewest and most players
    PLAYERS_RULE: ClassVar[str | None] = None  # the rule that refuses other player counts
    STATE_KEYS: ClassVar[Collection[str]] = ()  # the keys a described state (``start.state``) may have
    WIDTH: int = 480  # canvas units; printed 120 mm wide, so 4 units per millimetre
    HEIGHT: int = 360

    def __init__(self, components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> None:
        if not isinstance(components, Mapping):
            raise DescriptionError("components", "the component data must be a mapping")
        self.components = components
        self.options: Mapping[str, Any] = resolve_options(self.OPTIONS, options)

    # --- what a game writes ------------------------------------------------------------------------

    @abstractmethod
    def start(self, players: list[str]) -> Any:
        """A new game for these players (the first listed starts)."""

    def describe(self, description: Mapping[str, Any], players: list[str]) -> Any:
        """A state an example's ``start.state`` describes; raise DescriptionError with the entry's path."""
        raise DescriptionError("start.state", f"the {self.book_id} engine describes no states: start examples "
                                              f"with 'setup: true'")

    @abstractmethod
    def moves(self, state: Any) -> Iterable[Move]:
        """Every move that could be named now; ``check`` decides which are legal."""

    @abstractmethod
    def check(self, state: Any, move: Move) -> None:
        """Raise :class:`RuleViolation` naming the rule when the rules forbid ``move``; never change ``state``."""

    @abstractmethod
    def perform(self, state: Any, move: Move) -> list[Event]:
        """Carry out a move ``check`` allowed, in place; every event names the rule that made it happen."""

    @abstractmethod
    def snapshot(self, state: Any) -> dict[str, Any]:
        """The state as plain data (str, int, bool, list, dict), for checkpoints and prose."""

    @abstractmethod
    def draw(self, state: Any) -> list[str]:
        """The diagram's SVG elements on a ``WIDTH`` x ``HEIGHT`` canvas (no caption: the book prints it)."""

    def result(self, state: Any) -> dict[str, Any]:
        return {"over": self.is_terminal(state)}

    def current(self, state: Any) -> str | None:
        """Whose turn it is (a step without ``player`` is theirs): ``state.current`` by default."""
        return getattr(state, "current", None)

    # --- the protocol, from the above ------------------------------------------------------------------

    def new_state(self, players: Sequence[str], seed: int) -> Any:
        return self.start(self._players(players))

    def state_from_description(self, description: Mapping[str, Any], players: Sequence[str], seed: int) -> Any:
        if not isinstance(description, Mapping):
            raise DescriptionError("start.state", "a described state must be a mapping")
        for key in description:
            if key not in self.STATE_KEYS:
                raise DescriptionError(f"start.state.{key}", f"unknown key '{key}' (a described state takes: "
                                                             f"{', '.join(self.STATE_KEYS) or 'nothing'})")
        return self.describe(description, self._players(players))

    def _players(self, players: Sequence[str]) -> list[str]:
        fewest, most = self.PLAYERS
        if not fewest <= len(players) <= most:
            wanted = str(fewest) if fewest == most else f"{fewest} to {most}"
            raise DescriptionError("players", f"{self.book_id} is played by {wanted} players, not {len(players)}",
                                   self.PLAYERS_RULE)
        if len(set(players)) != len(players):
            raise DescriptionError("players", "two players have the same name")
        return list(players)

    def legal_actions(self, state: Any) -> list[Move]:
        return [move for move in self.moves(state) if self.allows(state, move)]

    def allows(self, state: Any, move: Move) -> bool:
        try:
            self.check(state, move)
        except RuleViolation:
            return False
        return True

    def parse_action(self, state: Any, step: Mapping[str, Any]) -> Move:
        do = step.get("do")
        if do not in self.ACTIONS:
            raise DescriptionError("step.do", f"unknown action {do!r} (actions: {', '.join(self.ACTIONS)})")
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

    def action_schema(self) -> dict[str, Any]:
        """The shape of each action's step, from ``ACTIONS`` (docs/ENGINE.md, ``ACTION_SCHEMA``): every argument
        required, with its listed values; the gate checks steps against it before replaying, with lines."""
        return {do: {"properties": {key: {} if allowed is None else {"enum": [_listed(v) for v in allowed]}
                                    for key, allowed in wanted.items()},
                     "required": list(wanted)}
                for do, wanted in self.ACTIONS.items()}

    def state_schema(self) -> dict[str, Any]:
        """The shape of a described state (``STATE_SCHEMA``): a mapping with the keys in ``STATE_KEYS``."""
        return {"type": "object", "x-expect": f"a mapping with {', '.join(self.STATE_KEYS) or 'no keys'}",
                "properties": {key: {} for key in self.STATE_KEYS}, "additionalProperties": False}

    def action_step(self, state: Any, action: Move) -> dict[str, Any]:
        return action.step()

    def format_action(self, state: Any, action: Move) -> str:
        return f"{action.player}: {' '.join([action.do, *(f'{key} {value}' for key, value in action.args)])}"

    def apply(self, state: Any, action: Any) -> list[Event]:
        if not isinstance(action, Move):
            raise DescriptionError("step", f"not an action of this game: {action!r}")
        self.check(state, action)
        return list(self.perform(state, action))

    def force_chance(self, state: Any, outcomes: Sequence[Any]) -> None:
        chance = getattr(state, "chance", None)
        if chance is None:
            raise DescriptionError("chance", f"{self.book_id} has no chance: nothing to fix with 'chance:' steps")
        chance.force(outcomes)

    def clone(self, state: Any) -> Any:
        return copy.deepcopy(state)

    def is_terminal(self, state: Any) -> bool:
        return not self.legal_actions(state)

    def metrics(self, state: Any) -> dict[str, float | int | str | bool]:
        flat = {k: v for k, v in self.result(state).items() if isinstance(v, int | float | str | bool)}
        return {"over": self.is_terminal(state), **flat}

    def text_alternative(self, state: Any) -> str:
        """The diagram's ``<desc>`` when the engine has no narrator: the snapshot's plain values."""
        said = [f"{k}: {v}" for k, v in self.snapshot(state).items() if isinstance(v, str | int | float)]
        return "; ".join(said)

    def render_svg(self, state: Any, caption: str | None = None) -> str:
        width, height = self.WIDTH, self.HEIGHT
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width / 4:g}mm" height="{height / 4:g}mm" '
                f'viewBox="0 0 {width} {height}" font-family="{FONT}" role="img">'
                f"<desc>{escape(self.text_alternative(state))}</desc>"
                f'<rect width="{width}" height="{height}" fill="{PAPER}"/>' + "".join(self.draw(state)) + "</svg>")


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
