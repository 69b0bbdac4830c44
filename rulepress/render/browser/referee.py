"""The referee a site page runs in the browser (under Pyodide): from any step of a worked example, the legal moves in
plain words, a move played and the next position drawn and told, or a move refused with the rule that forbids it.

It runs the book's engine unchanged, on the position the build's replay kept for that step (rulepress/verify/
frames.py), with the parts of rulepress the engine imports (rulepress/render/in_browser.py packs them).  It speaks
JSON to the page's script (rulepress/render/theme/assets/stepper.js), and says what ``rulepress explain`` says:
the same words for each legal move, the same rule for a refusal.

A try is a line of moves, as a chess viewer keeps one: each entry a position with the seat it is seen from, and
the key that made it (a legal move's number in the list, ``as:<player>`` for taking another seat, ``auto`` for a
move the engine's policy chose), so that the page can put the line in a link and play it again to the same place.
Undo keeps what it took back for redo until another move is played.  When the seat to move is not the reader's, the
panel says whose turn it is; the reader may take that seat, and what the new seat cannot see is dealt again (and
said so, in the engine's words: ``narrate_dealt_again``), or let the engine play the other seats until it is the
reader's turn again.  Every draw is from a seed the line itself gives, so a link opens the same position.

Nothing here reads the network or anything outside the bundle; the page gives it only the positions and the book's
own data (components, rule numbers and titles, screen colours).
"""

from __future__ import annotations

import importlib
import json
import random
import re
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
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
    provided,
    register_engine,
)

MOST_WRITTEN = 2000  # characters of a move a reader writes: a step is a line
MOST_SHOWN = 200  # legal moves listed (explain lists 40 and counts the rest; a page can scroll)
MOST_AUTO = 200  # moves the engine plays for the other seats in one go (a game that never returns the turn stops)
AUTO, AS = "auto", "as:"  # the keys of a move the policy chose and of a seat taken, in a line and in a link
_RULE_NOTE = re.compile(r"\s*\(rule [a-z][a-z0-9.-]*\)")  # as the player edition drops it (render/markdown.py)


class Refused(Exception):
    """A move the referee cannot take (not this seat's, does not parse): said to the reader as it is."""


def words(game: Game, state: Any, action: Any) -> str:
    """An action in plain words, as ``rulepress explain`` lists it (rulepress/analyze/explain.py ``words``)."""
    narrator = narrator_of(game)
    said = narrator.narrate_action(game, state, action) if narrator else game.format_action(state, action)
    return said.rstrip(".")


@dataclass
class Tried:
    """One entry of a try's line: the position, whose moves may be tried there (None: whoever is to move), the seat
    it is seen from, the key that made it, its words, and what was dealt again to make it."""

    state: Any
    player: str | None
    seat: str | None
    key: str = ""
    said: str = ""
    dealt: list[str] = field(default_factory=list)


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
        self.words: Mapping[str, str] = config.get("words", {})  # the site's strings the referee says
        self.game: Game | None = None
        self.line: list[Tried] = []  # the position opened, then each move played from it
        self.ahead: list[Tried] = []  # what undo took back, the next first at the end: redo plays it again

    @property
    def player(self) -> str | None:
        return self.line[-1].player if self.line else None

    @property
    def seat(self) -> str | None:
        return self.line[-1].seat if self.line else None

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
        try:
            state = state_codec(self.game).decode(asked["position"])
        except CodecError as exc:
            return json.dumps({"ok": False, "message": f"this position cannot be read: {exc}"})
        player, seat = asked.get("player"), asked.get("seat")
        # The build dealt again what the example's seat cannot see (verify/frames.py seat_position): said so.
        self.line, self.ahead = [Tried(state, player, seat, dealt=self._dealt(self.game, state, seat))], []
        return json.dumps(self._shown())

    def follow(self, keys: str) -> str:
        """The line a link gives (its keys, joined by ``/``) played again from the position opened, as far as it
        holds: the position it reaches."""
        del self.line[1:]
        self.ahead = []
        for key in [k for k in keys.split("/") if k]:
            if not self._step(key):
                break
        return json.dumps(self._shown())

    def play(self, index: int) -> str:
        """The ``index``-th legal move of the position shown: the next position."""
        game, state = self._now()
        legal = self._legal(game, state)
        if not 0 <= index < len(legal):
            return json.dumps({"ok": False, "message": "no such move here"})
        return json.dumps(self._played(game, state, legal[index], str(index)))

    def take_seat(self) -> str:
        """Go on as the seat to move: what that seat cannot see is dealt again, and said so."""
        self._step(AS + (self._turn() or ""))
        return json.dumps(self._shown())

    def auto(self) -> str:
        """The other seats' moves, each chosen by the engine's policy, until it is the reader's turn again (or the
        game is over)."""
        first = len(self.line)
        for _ in range(MOST_AUTO):
            if self._turn() is None or not self._step(AUTO):
                break
        if len(self.line) == first:
            return json.dumps({"ok": False, "message": self._word("referee_no_auto", "no move can be played here")})
        return json.dumps(self._shown())

    def forward(self) -> str:
        """Redo: the move undo took back last, played again."""
        if self.ahead:
            self.line.append(self.ahead.pop())
        return json.dumps(self._shown())

    def go(self, depth: int) -> str:
        """The line's entry ``depth`` (0: the position opened): undo or redo up to it."""
        while len(self.line) - 1 > max(depth, 0):
            self.ahead.append(self.line.pop())
        while len(self.line) - 1 < depth and self.ahead:
            self.line.append(self.ahead.pop())
        return json.dumps(self._shown())

    def judge(self, written: str) -> str:
        """A move the reader wrote (an example's step, ``{do: plant, tile: b2}``): played, or refused with its rule."""
        game, state = self._now()
        step: Any = None
        try:
            step = self._read(written, game, state)
            trial = game.clone(state)
            try:
                action = game.parse_action(trial, step)
            except RuleViolation as exc:  # some engines can only name an action by checking it
                self._mine(step.get("player"))
                return json.dumps(self._refusal(exc, ", ".join(f"{k}: {v}" for k, v in step.items())))
            step_of = provided(game, "action_step")
            self._mine(step_of(trial, action).get("player") if step_of is not None else step.get("player"))
            try:
                listed = self._legal(game, state)
                key = next((str(i) for i, move in enumerate(listed) if move == action), "")
                return json.dumps(self._played(game, state, action, key))
            except RuleViolation as exc:
                return json.dumps(self._refusal(exc, self._say(lambda: words(game, state, action))))
        except DescriptionError as exc:
            said = self._word("referee_unread", "the engine cannot read this move: {error} (a move here is written "
                              "like '{example}')")
            return json.dumps({"ok": False, "message": said.format(error=exc, example=self._example_step(
                game, state, step.get("do") if isinstance(step, Mapping) else None))})
        except Refused as exc:
            return json.dumps({"ok": False, "message": str(exc)})

    def back(self) -> str:
        """The position before the last move played (the one opened stays); redo plays it again."""
        if len(self.line) > 1:
            self.ahead.append(self.line.pop())
        return json.dumps(self._shown())

    # --- the rules ---------------------------------------------------------------------------------------------

    def moves(self) -> dict[str, Any]:
        game, state = self._now()
        legal = self._legal(game, state)
        step_of = provided(game, "action_step")
        listed = [{"words": self._say(lambda move=move: words(game, state, move)),
                   "step": _flow(step_of(state, move)) if step_of else ""} for move in legal[:MOST_SHOWN]]
        boxes, uses = self._board(game, state, legal[:MOST_SHOWN])
        for place, indexes in uses.items():
            for index in indexes:
                listed[index].setdefault("places", []).append(place)
        now = self.line[-1]
        return {"ok": True, "moves": listed, "more": max(0, len(legal) - MOST_SHOWN), "depth": len(self.line) - 1,
                "over": bool(game.is_terminal(state)), "player": self.player, "turn": self._turn(),
                "dealt": now.dealt, "line": [entry.said for entry in [*self.line[1:], *reversed(self.ahead)]],
                "path": "/".join(entry.key for entry in self.line[1:]) if all(e.key for e in self.line[1:]) else None,
                "ahead": len(self.ahead), "places": boxes}

    def _board(self, game: Game, state: Any, legal: list[Any]) -> tuple[dict[str, list[float]], dict[str, list[int]]]:
        """Where the diagram draws each place a listed move uses (``[x, y, width, height]`` in its viewBox's units),
        and which moves use it (``BaseGame.actions_by_place``): a click on the board picks the moves there.  None
        for an engine that does not say where it draws."""
        by_place = provided(game, "actions_by_place")
        if by_place is None or not legal:
            return {}, {}
        seat = (self.seat or PUBLIC) if observer_of(game) is not None else None
        with i18n.language(self.lang):
            places = game.drawn_places(state, seat)  # type: ignore[attr-defined]
            uses = by_place(state, legal, places)
        boxes = {place: [places[place].x, places[place].y, places[place].width, places[place].height]
                 for place in uses}
        return boxes, uses

    def _shown(self) -> dict[str, Any]:
        """The moves of the position the line is at, with its diagram and what led to it."""
        game, state = self._now()
        shown = self.moves()
        shown.update(self.drawn(game, state), narration=self.line[-1].said)
        return shown

    def _turn(self) -> str | None:
        """The seat to move when it is not the reader's (the example's seat, or the one taken): None when it is
        theirs, when the example is told from no seat, or when the game is over."""
        game, state = self._now()
        if self.player is None or game.is_terminal(state):
            return None
        step_of = provided(game, "action_step")
        if step_of is None:
            return None
        seats = {step_of(state, move).get("player") for move in game.legal_actions(state)}
        seats.discard(None)
        if self.player in seats or len(seats) != 1:
            return None
        return str(seats.pop())

    def _step(self, key: str) -> bool:
        """One entry of a line played from its key: False where it does not hold here."""
        game, state = self._now()
        if key.startswith(AS):
            seat = key[len(AS):]
            if seat != self._turn():
                return False
            taken = self._dealt_again(game, state, seat, len(self.line))
            said = self._word("referee_took_seat", "You take {player}'s seat").format(player=seat)
            self._push(Tried(taken, seat, seat, key, said, self._dealt(game, taken, seat)))
            return True
        if key == AUTO:
            turn = self._turn()
            legal = list(game.legal_actions(state))
            if turn is None or not legal:
                return False
            action = self._policy()(game, game.clone(state), random.Random(f"try/{len(self.line)}/{turn}"))
            self._played(game, state, action, AUTO)
            return True
        legal = self._legal(game, state)
        if not key.isdigit() or int(key) >= len(legal):
            return False
        self._played(game, state, legal[int(key)], key)
        return True

    def _policy(self) -> Any:
        """The engine's declared policy (its default, else the first), else a random legal move."""
        chosen = self.engine.default_policy or next(iter(self.engine.policies), None)
        if chosen is not None:
            return self.engine.policies[chosen]
        return lambda game, state, rng: rng.choice(list(game.legal_actions(state)))

    def _push(self, entry: Tried) -> None:
        """A new entry at the end of the line: what redo held goes, unless it is this very move."""
        if self.ahead and self.ahead[-1].key == entry.key and entry.key not in (AUTO, ""):
            entry = self.ahead.pop()
        else:
            self.ahead = []
        self.line.append(entry)

    def _dealt_again(self, game: Game, state: Any, seat: str, depth: int) -> Any:
        """``state`` as ``seat`` knows it: each part it cannot see dealt again, from a seed the line gives."""
        observer = observer_of(game)
        if observer is None:
            return game.clone(state)
        twin = state
        for part in observer.hidden:
            twin = observer.resample(twin, seat, part, random.Random(f"try/{depth}/{part}/{seat}"))
        return twin

    def _dealt(self, game: Game, state: Any, seat: str | None) -> list[str]:
        """What was dealt again for ``seat`` to make ``state``, each part in the engine's words
        (``narrate_dealt_again``; a part it says nothing of is left unsaid), else in the site's."""
        observer = observer_of(game)
        if observer is None:
            return []
        seat = seat or PUBLIC  # a page says no seat for an example told from none (PUBLIC is "")
        narrator = narrator_of(game)
        said_by = getattr(narrator, "narrate_dealt_again", None)
        found = []
        for part in observer.hidden:
            if said_by is not None:
                said = self._say(lambda part=part: said_by(game, state, seat, part))
            elif _unseen(game, observer, state, seat, part):
                said = self._word("referee_dealt", "You cannot see {part}: it is dealt again for this try.").format(
                    part=part)
            else:
                said = ""
            if said:
                found.append(said)
        return found

    def _word(self, key: str, fallback: str) -> str:
        return str(self.words.get(key) or fallback)

    def _now(self) -> tuple[Game, Any]:
        if self.game is None or not self.line:
            raise Refused("no position is open")
        return self.game, self.line[-1].state

    def _legal(self, game: Game, state: Any) -> list[Any]:
        legal = list(game.legal_actions(state))
        if self.player is None:
            return legal
        step_of = provided(game, "action_step")  # another player's moves would tell what they hold
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
            raise Refused(self._word("referee_help", "a move is written as an example's step, a mapping with 'do', "
                                     "e.g. '{example}'").format(example=self._example_step(game, state)))
        return {str(k): v for k, v in step.items() if k != "illegal"}

    def _example_step(self, game: Game, state: Any, do: Any = None) -> str:
        """A move of this book written as a step: the first one legal here (one that does ``do``, when one does)."""
        step_of = provided(game, "action_step")
        if step_of is None:
            return "{do: ...}"
        steps = [step_of(state, move) for move in self._legal(game, state)]
        alike = [step for step in steps if step.get("do") == do] or steps
        return _flow(alike[0]) if alike else "{do: ...}"

    def _mine(self, player: Any) -> None:
        """Refuse a move of another seat than the reader's (its legality would tell what that player holds)."""
        if self.player is not None and player != self.player:
            raise Refused(self._word("referee_not_yours", "this example is told from {player}'s seat: only "
                                     "{player}'s moves can be tried here").format(player=self.player))

    def _played(self, game: Game, state: Any, action: Any, key: str) -> dict[str, Any]:
        """``action`` on a copy of ``state``: the next position, or RuleViolation (``state`` is left as it was)."""
        said = self._say(lambda: words(game, state, action))
        after = game.clone(state)
        game.apply(after, action)
        self._push(Tried(after, self.player, self.seat, key, said))
        return self._shown()

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


def _unseen(game: Game, observer: Any, state: Any, seat: str, part: str) -> bool:
    """Whether ``seat`` cannot see something of ``part`` in ``state``: dealing it again (with a few seeds) changes
    the position, what the seat sees staying as it is."""
    shown = game.snapshot(state)
    return any(game.snapshot(observer.resample(state, seat, part, random.Random(f"unseen/{n}"))) != shown
               for n in range(3))


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
