"""The referee a site page runs in the browser (under Pyodide): from any step of a worked example, the legal moves in
plain words, a move played and the next position drawn and told, or a move refused with the rule that forbids it.

It runs the book's engine unchanged, on the position the build's replay kept for that step (rulepress/verify/
frames.py), with the parts of rulepress the engine imports (rulepress/render/in_browser.py packs them).  It speaks
JSON to the page's script (rulepress/render/theme/assets/stepper.js), and says what ``rulepress explain`` says:
the same words for each legal move, the same rule for a refusal.

Nothing here reads the network or anything outside the bundle; the page gives it only the positions and the book's
own data (components, rule numbers and titles, screen colours).
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rulepress import i18n
from rulepress.cmyk import DEVICE_CMYK, GRID_LEVELS
from rulepress.codec import CodecError, state_codec
from rulepress.protocol import (
    PUBLIC,
    DescriptionError,
    EngineSpec,
    Game,
    RuleViolation,
    narrator_of,
    observer_of,
    register_engine,
)

MOST_WRITTEN = 2000  # characters of a move a reader writes: a step is a line
MOST_SHOWN = 200  # legal moves listed (explain lists 40 and counts the rest; a page can scroll)
_RULE_NOTE = re.compile(r"\s*\(rule [a-z][a-z0-9.-]*\)")  # as the player edition drops it (render/markdown.py)


class Refused(Exception):
    """A move the referee cannot take (not this seat's, does not parse): said to the reader as it is."""


def words(game: Game, state: Any, action: Any) -> str:
    """An action in plain words, as ``rulepress explain`` lists it (rulepress/analyze/explain.py ``words``)."""
    narrator = narrator_of(game)
    said = narrator.narrate_action(game, state, action) if narrator else game.format_action(state, action)
    return said.rstrip(".")


def _plain(data: Any) -> Any:
    if isinstance(data, Mapping):
        return {str(k): _plain(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_plain(v) for v in data]
    return data


class Referee:
    """One book's engine in one language.  ``config`` is what the build wrote (in_browser.referee_config)."""

    def __init__(self, config: Mapping[str, Any], folder: str) -> None:
        self.config = config
        self.lang = str(config["lang"])
        self.rules: Mapping[str, Mapping[str, str]] = config["rules"]
        self.colours: Mapping[str, str] = config["colours"]
        self.grid: list[str] = list(config["colour_grid"])  # the book's profile sampled (proof.Proof.grid)
        self.engine = _import_engine(str(config["namespace"]), str(config["engine"]), Path(folder))
        self.games: dict[str, Game] = {}
        self.game: Game | None = None
        self.player: str | None = None
        self.seat: str | None = None
        self.states: list[Any] = []  # the position opened, then each move played from it

    # --- what the page calls (JSON in, JSON out) ------------------------------------------------------------

    def open(self, request: str) -> str:
        """``{options, position, player, seat}``: the position a frame kept (:func:`rulepress.codec.state_codec`'s
        data: reading it builds the engine's own state classes and runs nothing); its legal moves."""
        asked = json.loads(request)
        options = asked.get("options") or {}
        key = json.dumps(options, sort_keys=True)
        if key not in self.games:
            self.games[key] = self.engine.make_game(self.config["components"], dict(options))
        self.game = self.games[key]
        self.player, self.seat = asked.get("player"), asked.get("seat")
        try:
            self.states = [state_codec(self.game).decode(asked["position"])]
        except CodecError as exc:
            return json.dumps({"ok": False, "message": f"this position cannot be read: {exc}"})
        return json.dumps(self.moves())

    def play(self, index: int) -> str:
        """The ``index``-th legal move of the position shown: the next position."""
        game, state = self._now()
        legal = self._legal(game, state)
        if not 0 <= index < len(legal):
            return json.dumps({"ok": False, "message": "no such move here"})
        return json.dumps(self._played(game, state, legal[index]))

    def judge(self, written: str) -> str:
        """A move the reader wrote (an example's step, ``{do: plant, tile: b2}``): played, or refused with its rule."""
        game, state = self._now()
        try:
            step = self._read(written, game, state)
            trial = game.clone(state)
            try:
                action = game.parse_action(trial, step)
            except RuleViolation as exc:  # some engines can only name an action by checking it
                self._mine(step.get("player"))
                return json.dumps(self._refusal(exc, ", ".join(f"{k}: {v}" for k, v in step.items())))
            step_of = getattr(game, "action_step", None)
            self._mine(step_of(trial, action).get("player") if step_of is not None else step.get("player"))
            try:
                return json.dumps(self._played(game, state, action))
            except RuleViolation as exc:
                return json.dumps(self._refusal(exc, self._say(lambda: words(game, state, action))))
        except DescriptionError as exc:
            return json.dumps({"ok": False, "message": f"the engine cannot read this move: {exc}"})
        except Refused as exc:
            return json.dumps({"ok": False, "message": str(exc)})

    def back(self) -> str:
        """The position before the last move played (the one opened stays)."""
        if len(self.states) > 1:
            self.states.pop()
        return json.dumps(self.moves())

    # --- the rules ---------------------------------------------------------------------------------------------

    def moves(self) -> dict[str, Any]:
        game, state = self._now()
        legal = self._legal(game, state)
        step_of = getattr(game, "action_step", None)
        listed = [{"words": self._say(lambda move=move: words(game, state, move)),
                   "step": _flow(step_of(state, move)) if step_of else ""} for move in legal[:MOST_SHOWN]]
        return {"ok": True, "moves": listed, "more": max(0, len(legal) - MOST_SHOWN), "depth": len(self.states) - 1,
                "over": bool(game.is_terminal(state)), "player": self.player}

    def _now(self) -> tuple[Game, Any]:
        if self.game is None or not self.states:
            raise Refused("no position is open")
        return self.game, self.states[-1]

    def _legal(self, game: Game, state: Any) -> list[Any]:
        legal = list(game.legal_actions(state))
        if self.player is None:
            return legal
        step_of = getattr(game, "action_step", None)  # another player's moves would tell what they hold
        return [move for move in legal if step_of is not None and step_of(state, move).get("player") == self.player]

    def _read(self, written: str, game: Game, state: Any) -> dict[str, Any]:
        import yaml  # PyYAML's pure-Python reader, packed with the engine

        if len(written) > MOST_WRITTEN:
            raise Refused(f"a move is one line of at most {MOST_WRITTEN} characters")
        try:
            step = yaml.safe_load(written)
        except yaml.YAMLError as exc:
            raise Refused(f"this is not a move written as an example's step: {str(exc).splitlines()[0]}") from None
        if not isinstance(step, Mapping) or "do" not in step:
            raise Refused("a move is written as an example's step, a mapping with 'do', e.g. "
                          "'{player: Ann, do: mark, square: b2}'")
        return {str(k): v for k, v in step.items() if k != "illegal"}

    def _mine(self, player: Any) -> None:
        """Refuse a move of another seat than the example's (its legality would tell what that player holds)."""
        if self.player is not None and player != self.player:
            raise Refused(f"this example is told from {self.player}'s seat: only {self.player}'s moves can be "
                          f"tried here")

    def _played(self, game: Game, state: Any, action: Any) -> dict[str, Any]:
        """``action`` on a copy of ``state``: the next position, or RuleViolation (``state`` is left as it was)."""
        said = self._say(lambda: words(game, state, action))
        after = game.clone(state)
        game.apply(after, action)
        self.states.append(after)
        shown = self.moves()
        shown.update(self.drawn(game, after), narration=said)
        return shown

    def drawn(self, game: Game, state: Any) -> dict[str, str]:
        """The position's diagram (screen colours) and its text alternative, as the seat of the example sees it."""
        observer = observer_of(game)
        seat = (self.seat or PUBLIC) if observer is not None else None
        with i18n.language(self.lang):
            svg = game.render_svg(state, None) if seat is None else game.render_svg(state, None, seat)  # type: ignore[call-arg]
            narrator = narrator_of(game)
            told = observer.view(state, seat) if observer is not None and seat is not None else game.snapshot(state)
            alt = narrator.narrate_state(game, told) if narrator is not None else ""
        return {"svg": self.screen(svg), "alt": alt}

    def _refusal(self, exc: RuleViolation, said: str) -> dict[str, Any]:
        rule = self.rules.get(exc.rule)
        return {"ok": False, "refused": True, "words": said, "message": _RULE_NOTE.sub("", exc.message),
                "rule": dict(rule) if rule is not None else None}

    def _say(self, say: Any) -> str:
        with i18n.language(self.lang):
            return str(say())

    def screen(self, svg: str) -> str:
        """The diagram in screen colours: each ``device-cmyk()`` as the build converted it through the book's
        profile (in_browser.screen_colour_map); one the build never saw, from that profile sampled on a grid."""
        return DEVICE_CMYK.sub(lambda m: self.colours.get(m.group(0)) or on_grid(m.groups(), self.grid), svg)


def on_grid(parts: tuple[str, ...], grid: list[str]) -> str:
    """An ink's screen colour from the book's profile sampled at ``GRID_LEVELS`` of each ink (``grid``, in C, M,
    Y, K order, K fastest): interpolated between the 16 samples around it."""
    inks = [min(1.0, max(0.0, float(p[:-1]) / 100 if p.endswith("%") else float(p))) for p in parts]
    steps = len(GRID_LEVELS) - 1
    cells = [min(int(v * steps), steps - 1) for v in inks]
    weights = [v * steps - cell for v, cell in zip(inks, cells, strict=True)]
    mixed = [0.0, 0.0, 0.0]
    for corner in range(16):
        weight, index = 1.0, 0
        for axis in range(4):
            up = corner >> (3 - axis) & 1
            weight *= weights[axis] if up else 1 - weights[axis]
            index = index * (steps + 1) + cells[axis] + up
        if weight:
            sample = grid[index]
            for channel in range(3):
                mixed[channel] += weight * int(sample[1 + 2 * channel:3 + 2 * channel], 16)
    return "#" + "".join(f"{round(value):02x}" for value in mixed)



def _flow(step: Any) -> str:
    import yaml

    return str(yaml.safe_dump(_plain(step), default_flow_style=True, sort_keys=False, allow_unicode=True,
                              width=10**6)).strip()


def _import_engine(namespace: str, package: str, folder: Path) -> EngineSpec:
    """The engine's declaration (``ENGINE``), imported under the package name the build imported it as (its pickled
    positions name their classes so), and registered as the build's loader registers it (its names are checked)."""
    module = sys.modules.get(namespace)
    if module is None:
        module = sys.modules[namespace] = types.ModuleType(namespace)
        module.__path__ = []
    if str(folder / namespace) not in module.__path__:
        module.__path__.append(str(folder / namespace))
    engine = importlib.import_module(f"{namespace}.{package}")
    return register_engine(engine.ENGINE, engine.__name__)
