"""A rulepress engine as an OpenSpiel game: ``pyspiel.Game`` and ``pyspiel.State`` subclasses, registered as
OpenSpiel's own Python games are (``open_spiel/python/games/kuhn_poker.py``), so that its algorithms run unchanged.

* **Players**: seats ``P1``, ``P2``... (OpenSpiel's players 0, 1...), the game parameter ``players`` choosing how many.
* **Actions**: where an engine's actions are :class:`~rulepress.basegame.Move` s whose every argument lists its values
  (``ACTIONS``), each has one id for the whole game (their sorted list); otherwise an action's id is its place in the
  state's ``legal_actions`` (stable: the engine lists them in a stable order).  Either way ``action_to_string`` is
  the engine's ``format_action``.
* **Chance**: explicit chance nodes for an engine on BaseGame (:mod:`rulepress.openspiel.chance`), an outcome's id
  its place among the node's outcomes and its string ``what: outcome`` (``card: King``); an engine on the bare
  protocol draws inside ``apply`` from the state's seed (OpenSpiel's sampled stochastic mode).
* **Observations**: the observer's ``view`` of the seat as JSON (the whole snapshot when nothing is hidden);
  information states: the observer's ``information_state`` (an observer on the base class has it, from the state's
  memory: rulepress/memory.py, what the seat was shown and remembers), else, for an observer on the bare protocol,
  the seat's views of every event so far and its own actions (perfect recall); tensors where the observer gives
  them (``tensor(state, seat)``).
* ``resample_from_infostate``: the observer's ``resample`` of every hidden part.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any

import numpy as np
import pyspiel

from rulepress.basegame import BaseGame, Move
from rulepress.openspiel.chance import ExplicitChance, NeedChance
from rulepress.openspiel.kind import GameKind, game_kind, returns, spec_of
from rulepress.protocol import PUBLIC, Game, observer_of, provided, setup_events

INDEXED_ACTIONS = 1 << 12  # the bound on an indexed action's id: legal actions a state may have
CHANCE_OUTCOMES = 1 << 12
MAX_LENGTH = 100_000  # the engines' own bound on a game's actions (rulepress.analyze.simulate.MAX_ACTIONS)

_CHANCE_MODE = {"explicit": pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
                "sampled": pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
                "none": pyspiel.GameType.ChanceMode.DETERMINISTIC}
_INFORMATION = {"perfect": pyspiel.GameType.Information.PERFECT_INFORMATION,
                "imperfect": pyspiel.GameType.Information.IMPERFECT_INFORMATION}
_UTILITY = {"zero_sum": pyspiel.GameType.Utility.ZERO_SUM, "constant_sum": pyspiel.GameType.Utility.CONSTANT_SUM,
            "general_sum": pyspiel.GameType.Utility.GENERAL_SUM, "identical": pyspiel.GameType.Utility.IDENTICAL}


def short_name(book_id: str) -> str:
    """``kuhn-poker`` -> ``rulepress_kuhn_poker``: the name ``pyspiel.load_game`` knows the book by."""
    return "rulepress_" + "".join(c if c.isalnum() else "_" for c in book_id)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def _move_table(game: Game) -> list[tuple[str, tuple[tuple[str, Any], ...]]] | None:
    """Every (do, arguments) a BaseGame's ``Move`` may name, sorted, when ``ACTIONS`` lists every argument's values."""
    if not isinstance(game, BaseGame) or game.ACTION is not Move or not game.ACTIONS:
        return None
    table = []
    for do, wanted in game.ACTIONS.items():
        if any(values is None for values in wanted.values()):
            return None
        keys = sorted(wanted)
        for values in product(*(list(wanted[key]) for key in keys)):
            table.append((do, tuple(zip(keys, values, strict=True))))
    return sorted(table, key=repr)


class _Shared:
    """What every state of one game shares (never copied with a state)."""

    def __init__(self, engine: Game, kind: GameKind, players: list[str]) -> None:
        self.name = short_name(engine.book_id)
        self.engine = engine
        self.kind = kind
        self.players = players
        self.observer = observer_of(engine)
        self.table = _move_table(engine)
        self.ids = {entry: i for i, entry in enumerate(self.table)} if self.table is not None else None
        self.recall = self.observer is not None and provided(self.observer, "information_state") is None

    def __deepcopy__(self, memo: Any) -> _Shared:
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # OpenSpiel serialises a Python state by pickling it
        return _shared_of, (self.name, len(self.players))


def _shared_of(name: str, players: int) -> _Shared:
    return pyspiel.load_game(name, {"players": players}).shared


class _Now:
    """A state's own data; copied by the engine's ``clone`` (a deep copy of an engine state would be slow)."""

    __slots__ = ("shared", "clone", "native", "before", "action", "forced", "outcomes", "what", "trail", "legal",
                 "seed", "ids", "at", "started")

    def __init__(self, shared: _Shared) -> None:
        self.shared = shared
        self.clone = shared.engine.clone
        self.native: Any = None  # the engine's state, None while a chance node stands before it
        self.before: Any = None  # at a chance node: the engine's state before the action (None: before the setup)
        self.action: Any = None  # ... and the action being carried out
        self.forced: list[Any] = []  # ... and the outcomes chosen so far
        self.outcomes: list[tuple[Any, float]] = []  # ... and the outcomes of the next draw
        self.what = ""
        self.trail: list[tuple[int, str, tuple[Any, ...]]] = []  # (seat that acted or -1, action, events) so far
        self.legal: list[Any] | None = None  # the native state's legal actions, once asked
        self.seed = 0  # sampled chance: the seed of the game's draws
        self.ids: list[int] = []  # every action and outcome so far, by id: what a state is serialised as
        self.started = False  # the setup has run
        self.at = 0  # at a chance node: the draw's place among the game's outcomes (Chance.drawn)

    def __deepcopy__(self, memo: Any) -> _Now:
        twin = _Now(self.shared)
        twin.native = None if self.native is None else self.clone(self.native)
        twin.before = None if self.before is None else self.clone(self.before)
        twin.action, twin.forced, twin.outcomes, twin.what = self.action, list(self.forced), self.outcomes, self.what
        twin.trail, twin.legal, twin.seed, twin.ids = list(self.trail), self.legal, self.seed, list(self.ids)
        twin.at, twin.started = self.at, self.started
        return twin

    def __reduce__(self) -> tuple[Any, ...]:
        return _replayed, (self.shared.name, len(self.shared.players), self.seed, list(self.ids))


def adopt(game: RulepressGame, native: Any) -> RulepressState:
    """An OpenSpiel state standing at ``native``, an engine state reached outside OpenSpiel (a game
    ``rulepress analyze`` plays): a copy, whose draws from here on are explicit chance nodes.  Its history starts
    here; its information states are the native state's (an engine on the base class: its memory, from the game's
    start; else what the seats see from here on)."""
    state = RulepressState(game)
    twin = game.shared.engine.clone(native)
    if game.shared.kind.chance == "explicit" and getattr(twin, "chance", None) is not None:
        twin.chance = ExplicitChance.taking_over(twin.chance)
    state._now.native, state._now.started = twin, True
    return state


def _replayed(name: str, players: int, seed: int, ids: list[int]) -> _Now:
    """A state's data made again from its actions and outcomes (how a serialised state is read back)."""
    game = pyspiel.load_game(name, {"players": players})
    state = RulepressState(game, seed)
    for action in ids:
        state.apply_action(action)
    return state.now


class RulepressGame(pyspiel.Game):
    """One book's engine, for ``players`` players, as a ``pyspiel.Game``."""

    def __init__(self, engine: Game, params: Mapping[str, Any] | None = None,
                 counts: tuple[int, int] | None = None) -> None:
        params = dict(params or {})
        fewest, most = counts or declared_counts(engine)
        count = int(params.get("players", fewest))
        kind = game_kind(engine, count)
        self.shared = _Shared(engine, kind, [f"P{i + 1}" for i in range(count)])
        observer = self.shared.observer
        tensor = provided(observer, "tensor") is not None
        game_type = _game_type(engine.book_id, kind, fewest, most, tensor)
        actions = len(self.shared.table) if self.shared.table is not None else INDEXED_ACTIONS
        info = pyspiel.GameInfo(num_distinct_actions=actions,
                                max_chance_outcomes=CHANCE_OUTCOMES if kind.chance == "explicit" else 0,
                                num_players=count, min_utility=kind.low, max_utility=kind.high,
                                utility_sum=0.0 if kind.utility == "zero_sum" else None, max_game_length=MAX_LENGTH)
        super().__init__(game_type, info, {"players": count})
        self.tensor_size = len(observer.tensor(self._native_start(), self.shared.players[0])) if tensor else 0

    def _native_start(self) -> Any:
        state = RulepressState(self)
        while state.is_chance_node():
            state.apply_action(0)
        return state.now.native

    def new_initial_state(self) -> RulepressState:
        return RulepressState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        return _Observer(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


def _game_type(book_id: str, kind: GameKind, fewest: int, most: int, tensor: bool) -> Any:
    return pyspiel.GameType(
        short_name=short_name(book_id), long_name=f"rulepress: {book_id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL, chance_mode=_CHANCE_MODE[kind.chance],
        information=_INFORMATION[kind.information], utility=_UTILITY[kind.utility],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL, max_num_players=most, min_num_players=fewest,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=tensor,
        parameter_specification={"players": fewest})


class RulepressState(pyspiel.State):
    """A state of a :class:`RulepressGame`: the engine's state, or a chance node standing before one."""

    def __init__(self, game: RulepressGame, seed: int = 0) -> None:
        super().__init__(game)
        self.shared = game.shared
        self._now = _Now(self.shared)
        self._now.seed = seed

    @property
    def now(self) -> _Now:
        """The state's data, the setup run the first time it is asked for: OpenSpiel clones a Python state by making
        a new one and copying the old one's data over, and a clone need not deal a game it throws away."""
        now = self._now
        if not now.started:
            now.started = True
            if self.shared.kind.chance == "explicit":
                self._carry_out()
            else:
                now.native = self.shared.engine.new_state(self.shared.players, now.seed)
        return now

    # --- chance ----------------------------------------------------------------------------------------

    def _carry_out(self) -> None:
        """Run the setup (``now.before`` None) or the pending action again with the outcomes chosen so far: it ends
        (the state is the engine's) or stops at the next draw (a chance node)."""
        now, engine, players = self.now, self.shared.engine, self.shared.players
        chance = ExplicitChance(now.forced)
        try:
            if now.before is None:
                assert isinstance(engine, BaseGame)
                native = engine.begin_memory(engine.start(engine.check_players(players), chance))
                events = tuple(setup_events(engine, native))
            else:
                native = engine.clone(now.before)
                if now.forced:  # outcomes chosen at chance nodes: a state without a Chance never stops at one
                    native.chance.forced.extend(now.forced)
                events = tuple(engine.apply(native, now.action))
        except NeedChance as need:
            now.native, now.outcomes, now.what, now.at = None, need.outcomes, need.what, need.at
            return
        seat = -1 if now.before is None else self._seat_of(now.before, now.action)
        said = "setup" if now.before is None else engine.format_action(now.before, now.action)
        now.trail.append((seat, said, events))
        now.native, now.before, now.action, now.forced, now.outcomes, now.legal = native, None, None, [], [], None

    def drawing(self) -> tuple[str, list[Any], int]:
        """At a chance node: what is drawn, its outcomes (by id), and its place among the game's outcomes."""
        return self.now.what, [value for value, _ in self.now.outcomes], self.now.at

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.is_chance_node()
        return [(i, p) for i, (_, p) in enumerate(self.now.outcomes)]

    # --- whose turn, what they may do ------------------------------------------------------------------

    def _legal(self) -> list[Any]:
        if self.now.legal is None:
            self.now.legal = list(self.shared.engine.legal_actions(self.now.native))
        return self.now.legal

    def _seat_of(self, native: Any, action: Any) -> int:
        """The seat of the player who takes ``action``: the action's own ``player`` (a name or a seat), else the
        state's ``current``, else the first seat (a solo game)."""
        engine, players = self.shared.engine, self.shared.players
        who = getattr(action, "player", None)
        step_of = provided(engine, "action_step")
        if who is None and step_of is not None:
            who = step_of(native, action).get("player")
        if who is None:
            who = getattr(native, "current", None)
        if isinstance(who, str) and who in players:
            return players.index(who)
        if isinstance(who, int) and not isinstance(who, bool) and 0 <= who < len(players):
            return who
        return 0

    def current_player(self) -> int:
        if self.now.native is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.shared.engine.is_terminal(self.now.native):
            return int(pyspiel.PlayerId.TERMINAL)
        legal = self._legal()
        return self._seat_of(self.now.native, legal[0]) if legal else int(pyspiel.PlayerId.TERMINAL)

    def is_terminal(self) -> bool:
        return self.now.native is not None and self.current_player() == int(pyspiel.PlayerId.TERMINAL)

    def _id(self, index: int, action: Any) -> int:
        ids = self.shared.ids
        if ids is None:
            if index >= INDEXED_ACTIONS:
                raise pyspiel.SpielError(f"{self.shared.engine.book_id}: more than {INDEXED_ACTIONS} legal actions")
            return index
        return ids[(action.do, action.args)]

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._id(i, action) for i, action in enumerate(self._legal()))

    def engine_action(self, action_id: int) -> Any:
        """The engine's action an id names here."""
        return self._action_of(action_id)

    def _action_of(self, action_id: int) -> Any:
        legal = self._legal()
        if self.shared.ids is None:
            return legal[action_id]
        return next(a for a in legal if self.shared.ids[(a.do, a.args)] == action_id)

    def _apply_action(self, action_id: int) -> None:
        now = self.now
        now.ids.append(action_id)
        if now.native is None:  # a chance node: the outcome is chosen, the action goes on
            now.forced.append(now.outcomes[action_id][0])
            self._carry_out()
            return
        action = self._action_of(action_id)
        if self.shared.kind.chance == "explicit":
            now.before, now.action, now.forced = now.native, action, []
            now.native = None
            self._carry_out()
        else:
            engine = self.shared.engine
            seat, said = self._seat_of(now.native, action), engine.format_action(now.native, action)
            now.trail.append((seat, said, tuple(engine.apply(now.native, action))))
            now.legal = None

    def _action_to_string(self, player: int, action_id: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            if self.now.native is None and action_id < len(self.now.outcomes):
                return f"{self.now.what}: {self.now.outcomes[action_id][0]}"
            return f"chance outcome {action_id}"
        if self.shared.table is not None:
            do, args = self.shared.table[action_id]
            return self.shared.engine.format_action(self.now.native, Move(self.shared.players[player], do, args))
        if self.now.native is not None and action_id < len(self._legal()):
            return self._strings()[action_id]
        return f"action {action_id}"

    def _strings(self) -> list[str]:
        """The legal actions in the engine's words; two that read the same (one placement named by two
        orientations) are told apart by a number, as OpenSpiel needs."""
        engine, native = self.shared.engine, self.now.native
        said = [engine.format_action(native, action) for action in self._legal()]
        seen: dict[str, int] = {}
        for i, text in enumerate(said):
            seen[text] = seen.get(text, 0) + 1
            if seen[text] > 1:
                said[i] = f"{text} ({seen[text]})"
        return said

    def returns(self) -> list[float]:
        if self.now.native is None or not self.shared.engine.is_terminal(self.now.native):
            return [0.0] * len(self.shared.players)
        return returns(self.shared.kind, self.shared.engine.result(self.now.native), self.shared.players)

    # --- what a seat knows -----------------------------------------------------------------------------

    def native(self) -> Any:
        """The engine's state (None at a chance node)."""
        return self.now.native

    def _state_now(self) -> Any:
        return self.now.native if self.now.native is not None else self.now.before

    def view(self, seat: int | None) -> dict[str, Any]:
        """The snapshot as ``seat`` sees it (None: as every player does), the whole snapshot when nothing is hidden."""
        native, observer, players = self._state_now(), self.shared.observer, self.shared.players
        if native is None:
            return {"setup": "dealing"}
        if observer is None:
            return self.shared.engine.snapshot(native)
        return observer.view(native, PUBLIC if seat is None else players[seat])

    def information(self, seat: int) -> str:
        """OpenSpiel's information-state string of ``seat``."""
        observer, players = self.shared.observer, self.shared.players
        native = self._state_now()
        if observer is None:
            history = " ".join(map(str, self.history()))
            return f"history: {history}\n{_json(self.view(seat))}"
        if not self.shared.recall and native is not None:
            return str(observer.information_state(native, players[seat]))
        seen, event_view = [], provided(observer, "event_view")
        for actor, said, events in self.now.trail:
            viewed = [event_view(event.as_dict(), players[seat]) if event_view is not None else event.as_dict()
                      for event in events]
            seen.append(_json({"you": said} if actor == seat else {}) + _json(viewed))
        return f"{players[seat]}\n" + "\n".join(seen) + "\n" + _json(self.view(seat))

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> RulepressState:
        """A state ``player_id`` cannot tell from this one: every part hidden from the seat drawn again (the
        observer's ``resample``), from a seed the sampler gives."""
        twin = self.clone()
        observer = self.shared.observer
        if observer is None or self.now.native is None:
            return twin
        rng = random.Random(int(probability_sampler() * (1 << 53)))
        seat = self.shared.players[player_id]
        native = self.now.native
        for part in observer.hidden:
            native = observer.resample(native, seat, part, rng)
        twin.now.native, twin.now.legal = native, None
        return twin

    def __str__(self) -> str:
        native = self._state_now()
        head = "" if self.now.native is not None else f"[chance: {self.now.what}] "
        return head + ("setup" if native is None else _json(self.shared.engine.snapshot(native)))


class _Observer:
    """OpenSpiel's Python observer: strings (and a tensor where the engine's observer gives one)."""

    def __init__(self, game: RulepressGame, iig_obs_type: Any) -> None:
        self.recall = bool(iig_obs_type.perfect_recall)
        self.public_only = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        self.observer = game.shared.observer
        self.players = game.shared.players
        size = game.tensor_size if not self.recall else 0
        self.tensor = np.zeros(size, np.float32) if size else None
        self.dict = {"observation": self.tensor} if size else {}

    def set_from(self, state: RulepressState, player: int) -> None:
        if self.tensor is not None:
            native = state._state_now()
            self.tensor[:] = self.observer.tensor(native, self.players[player]) if native is not None else 0

    def string_from(self, state: RulepressState, player: int) -> str:
        if self.recall:
            return state.information(player)
        return _json(state.view(None if self.public_only else player))


_REGISTERED: dict[str, tuple[Game, tuple[int, int]]] = {}


def register(engine: Game, counts: tuple[int, int] | None = None) -> str:
    """Register ``engine`` with OpenSpiel (``pyspiel.load_game(name)`` then makes it, ``players=N`` choosing the
    count) and return its short name.  ``counts``: the fewest and most players (the book's ``players``; by default
    the counts its EngineSpec declares).  Registering a book again replaces the engine its name makes."""
    name = short_name(engine.book_id)
    fewest, most = counts = tuple(counts or declared_counts(engine))  # type: ignore[assignment]
    if name not in _REGISTERED:
        kind = game_kind(engine, fewest)
        observer = observer_of(engine)
        # A class, as OpenSpiel's own Python games register (a function kept by the registry crashes the
        # interpreter at exit).
        made = type(f"{name}_game", (RulepressGame,), {"__init__": _made_by(name)})
        pyspiel.register_game(_game_type(engine.book_id, kind, fewest, most,
                                         provided(observer, "tensor") is not None), made)
    _REGISTERED[name] = (engine, counts)
    return name


def _made_by(name: str) -> Any:
    def __init__(self: RulepressGame, params: Mapping[str, Any] | None = None) -> None:
        engine, counts = _REGISTERED[name]
        RulepressGame.__init__(self, engine, params, counts)
    return __init__


def load(engine: Game, players: int | None = None, counts: tuple[int, int] | None = None) -> RulepressGame:
    """The OpenSpiel game of ``engine`` for ``players`` players (the fewest it allows by default), registered."""
    name = register(engine, counts)
    counts = _REGISTERED[name][1]
    return RulepressGame(engine, {"players": players or counts[0]}, counts)  # this engine, whatever its options


def declared_counts(engine: Game) -> tuple[int, int]:
    """The fewest and most players the engine that made ``engine`` declares (its EngineSpec)."""
    spec = spec_of(engine)
    return spec.min_num_players, spec.max_num_players


def book_counts(data: Mapping[str, Any]) -> tuple[int, int]:
    """The fewest and most players a book's data (``players``: a number, or ``min`` and ``max``) allows."""
    players = data.get("players")
    if isinstance(players, Mapping):
        return int(players["min"]), int(players["max"])
    return (int(players), int(players)) if players is not None else (2, 2)


def seats(game: RulepressGame) -> Sequence[str]:
    return game.shared.players
