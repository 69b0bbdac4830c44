"""Random and policy-driven play through the engine protocol (tests, benchmarks, impact)."""

from __future__ import annotations

import json
import random
import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from rulepress.analyze import refusals
from rulepress.analyze.tally import Tally
from rulepress.protocol import EngineSpec, Game, provided, setup_events

Policy = Callable[[Game, Any, random.Random], Any]


def random_policy(game: Game, state: Any, rng: random.Random) -> Any:
    actions = game.legal_actions(state)
    return actions[rng.randrange(len(actions))]


@dataclass
class Playthrough:
    state: Any
    actions: int
    terminal: bool


def play(game: Game, players: Sequence[str], seed: int, policy: Policy = random_policy,
         max_actions: int = 100_000) -> Playthrough:
    """Play one game from a full setup; the same seed always gives the same game."""
    state = game.new_state(players, seed)
    rng = random.Random(seed ^ 0x5EED)
    count = 0
    while not game.is_terminal(state) and count < max_actions:
        game.apply(state, policy(game, state, rng))
        count += 1
    return Playthrough(state, count, game.is_terminal(state))


# -- observed play: what a game touched, for `rulepress analyze` and question impact ----------------------------

ActionKind = Callable[[Any, Any], str]


def action_kinds(game: Game) -> ActionKind:
    """A function naming an action's kind (``draw``, ``plant``...): the engine's ``do`` field or ``kind``
    attribute, through ``game.action_step`` when the kind is a bare number (learned once per kind)."""
    step_of = provided(game, "action_step")
    learned: dict[Any, str] = {}

    def kind(state: Any, action: Any) -> str:
        do = getattr(action, "do", None)
        if isinstance(do, str):
            return do
        raw = getattr(action, "kind", None)
        key = raw if raw is not None else type(action).__name__
        name = learned.get(key)
        if name is None:
            if step_of is not None:
                name = str(step_of(state, action).get("do", key))
            else:
                name = str(key)
            learned[key] = name
        return name

    return kind


def kinds_offered(state: Any, legal: Sequence[Any], kind_of: ActionKind) -> set[str]:
    """The kinds of ``legal``, as ``kind_of`` names them: read straight from their ``do`` fields when every one is
    a name (a journey lists hundreds of placements, a call each was a tenth of random play's own cost)."""
    found = {getattr(action, "do", None) for action in legal}
    if all(isinstance(do, str) for do in found):
        return found  # type: ignore[return-value]
    return {kind_of(state, action) for action in legal}


_ABSENT = object()


def touched_names(data: Mapping[str, Any], kinds: Mapping[str, set[str]]) -> set[str]:
    """``kind:name`` for each event payload value naming a component: the payload key is the component kind
    (``{"card": "moth-amber-2", "tile": "b2"}``); lists (``"dice": [5, 6]`` under kind ``dice``) count each."""
    found = set()
    for key, names in kinds.items():  # a few kinds, against an event's several keys
        value = data.get(key, _ABSENT)
        if value is _ABSENT:
            continue
        for item in value if isinstance(value, list | tuple) else (value,):
            text = str(item)
            if text in names:
                found.add(f"{key}:{text}")
    return found


def winner_seats(result: Mapping[str, Any], players: Sequence[str]) -> list[int] | None:
    """The seats that won a competitive game: ``result["winners"]`` names them, or ``winner`` names one (None and a
    finished game: a draw, no one), or ``returns`` gives each seat's (the seats of the best return, when it is
    more than the worst); None for other games."""
    if len(players) < 2:
        return None
    winners = result.get("winners")
    if isinstance(winners, list):
        return [players.index(name) for name in winners if name in players]
    if "winner" in result and (result.get("winner") is None or isinstance(result.get("winner"), str)):
        return [players.index(result["winner"])] if result["winner"] in players else []
    returns = result.get("returns")
    if isinstance(returns, list) and len(returns) == len(players) and all(isinstance(v, int | float) for v in returns):
        best = max(returns)
        return [seat for seat, value in enumerate(returns) if value == best] if best > min(returns) else []
    return None


def standing(result: Mapping[str, Any], players: Sequence[str]) -> list[float] | None:
    """Each seat's score as the engine gives it now, for who leads: ``returns`` (a number per seat) or ``scores`` (a
    number per player's name, or a mapping holding its ``points``, ``score`` or ``total``); None when the result
    gives neither (a game with no score to lead by)."""
    returns = result.get("returns")
    if isinstance(returns, list | tuple) and len(returns) == len(players) and \
            all(isinstance(v, int | float) for v in returns):
        return [float(v) for v in returns]
    scores = result.get("scores")
    if not isinstance(scores, Mapping) or set(scores) != set(players):
        return None
    found = []
    for name in players:
        value = scores[name]
        if isinstance(value, Mapping):
            value = next((value[k] for k in ("points", "score", "total") if isinstance(value.get(k), int | float)),
                         None)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return None
        found.append(float(value))
    return found


def leader(values: Sequence[float]) -> int:
    """The seat ahead of every other, or -1 when the best score is shared (no one leads)."""
    best = max(values)
    ahead = [seat for seat, value in enumerate(values) if value == best]
    return ahead[0] if len(ahead) == 1 else -1


def lead_changes(leaders: Sequence[int]) -> int:
    """How often the lead passed from one seat to another, given who led after each turn (-1: shared, no one). A
    shared lead takes it from no one: ``0, -1, 0`` holds it, ``0, -1, 1`` changes it once; the first lead taken
    is no change."""
    changes, last = 0, -1
    for seat in leaders:
        if seat < 0:
            continue
        changes += last >= 0 and seat != last
        last = seat
    return changes


def observe_chunk(root: str, package: str, components: dict[str, Any], options: dict[str, Any], policy_name: str,
                  base_seed: int, label: str, indices: range, counts: list[int]) -> Tally:
    """Play games ``indices`` of configuration ``label`` and tally them (runs on a Dask worker)."""
    from rulepress.analyze.cluster import game_seed

    game, engine = _game(root, package, _key(components), _key(options))
    kinds_of_seat = policy_name.split(" vs ")  # one player for every seat, or [strong, other]
    chooser = [_policy(engine, name, (min(counts), max(counts))) for name in kinds_of_seat]
    policy = None if policy_name == "random" else chooser[0]
    searching = "mcts:" in policy_name  # a search costs far more than a look at the legal actions: count them too
    kinds = {kind: set(map(str, names)) for kind, names in _inventory(engine, components).items()}
    elsewhere = sorted({name for names in _inventory(engine, components).values() for name in names}, key=repr)
    elsewhere += [v for v in refusals.condition_values(Path(root) / "engine" / package) if v not in elsewhere]
    kind_of = action_kinds(game)
    decisions_made = provided(game, "decisions_made")  # engine decisions that took effect (protocol.decided)
    tally = Tally()
    scored_at: dict[int, bool] = {}  # players -> whether the engine's result gives a score to lead by
    for index in indices:
        seed = game_seed(base_seed, label, index)
        players = [f"P{i + 1}" for i in range(counts[index % len(counts)])]
        strong = index % len(players)  # against others: the seat the first player takes, turn about
        state = game.new_state(players, seed)
        rng = random.Random(seed ^ 0x5EED)
        record = _Record(players)
        touched: set[str] = set()
        offered: set[str] = set()
        chosen: set[str] = set()
        for event in setup_events(game, state):
            record.seen(event)
            touched |= touched_names(event.data, kinds)
        played = 0
        probing = refusals.probed(index)
        probe_rng = random.Random(seed ^ 0x9E0BE) if probing else None
        refused: set[str] = set()
        seen: set[Any] = set()
        legal_seen = 0
        if len(players) not in scored_at:  # learned from the first game at each count
            scored_at[len(players)] = len(players) > 1 and _standing_now(game, state, players) is not None
        scored = scored_at[len(players)]
        leaders: list[int] = []  # who led after each turn (a turn ends when the seat to play changes)
        turn = getattr(state, "current", None)
        while not game.is_terminal(state) and played < MAX_ACTIONS:
            if probe_rng is not None:
                legal_now = game.legal_actions(state)
                most = refusals.PROBES if played in refusals.PROBE_AT else refusals.BETWEEN
                refused |= refusals.probe(game, state, legal_now, probe_rng, [*elsewhere, *sorted(seen, key=repr)],
                                          most)
                seen.update(v for a in legal_now for v in getattr(a, "_asdict", dict)().values()
                            if isinstance(v, str | int))  # values legal earlier in this game: tried again later
            if policy is None:
                legal = game.legal_actions(state)
                offered.update(kinds_offered(state, legal, kind_of))
                legal_seen += len(legal)
                action = legal[rng.randrange(len(legal))]
            elif searching:
                legal = game.legal_actions(state)
                offered.update(kinds_offered(state, legal, kind_of))
                legal_seen += len(legal)
                action = policy(game, state, rng) if len(chooser) == 1 else \
                    _by_seat(game, state, rng, chooser, players, strong)
            elif len(chooser) == 1:
                action = policy(game, state, rng)
            else:
                action = _by_seat(game, state, rng, chooser, players, strong)
            kind = kind_of(state, action)
            chosen.add(kind)
            record.story.append(kind)
            events = game.apply(state, action)
            if events and kind not in tally.kind_rule:
                tally.kind_rule[kind] = events[0].rule
            for event in events:
                record.seen(event)
                if kinds:
                    touched |= touched_names(event.data, kinds)
            played += 1
            if scored:
                now = getattr(state, "current", None)
                if now is None or now != turn or game.is_terminal(state):
                    leaders.append(_leader_now(game, state, players))
                turn = now
        metrics = dict(game.metrics(state))
        metrics["actions"] = played
        metrics["finished"] = game.is_terminal(state)
        if legal_seen:
            metrics["branching"] = legal_seen / max(played, 1)  # legal actions per decision
        winners = winner_seats(game.result(state), players)
        if len(chooser) > 1:  # the skill gradient: did the first player's seat win?
            won = strong in winners if winners is not None else bool(game.result(state).get("won"))
            metrics["first player's seat won"] = won
        record.story.append(json.dumps(metrics, sort_keys=True, default=str))
        tally.add_game(metrics, game.is_terminal(state), len(players), winners,
                       zlib.crc32("\x00".join(record.story).encode()), record.per_seat, record.per_game)
        tally.fired.update(record.fired)
        tally.touched.update(touched)
        tally.offered.update(offered)
        tally.chosen.update(chosen)
        if scored and winners is not None:
            tally.add_leads(len(players), lead_changes(leaders), any(seat >= 0 for seat in leaders[:-1]))
        if probing:
            tally.probed += 1
            tally.refused.update(refused)
        if decisions_made is not None:
            tally.decided.update(name for name, times in decisions_made(state).items() if times)
    return tally


MAX_ACTIONS = 100_000


def _standing_now(game: Game, state: Any, players: list[str]) -> list[float] | None:
    """Each seat's score in ``state`` by the engine's result.  Scoring a game before its end may mark decisions
    (Lantern Moths' tie-breaks) that take effect only at the end: the state's count of them is put back as it
    was."""
    made = getattr(state, "decisions", None)
    before = dict(made) if isinstance(made, dict) else None
    values = standing(game.result(state), players)
    if before is not None and made != before:
        made.clear()
        made.update(before)
    return values


def _leader_now(game: Game, state: Any, players: list[str]) -> int:
    values = _standing_now(game, state, players)
    return leader(values) if values else -1


def _policy(engine: EngineSpec, name: str, counts: tuple[int, int]) -> Policy:
    """A player by name: ``random``, one of the engine's ``policies``, or a search from OpenSpiel (``mcts:50``,
    ``ismcts:400``: rulepress.openspiel.players, imported only when one is asked for)."""
    if name == "random":
        return random_policy
    if "mcts:" in name:
        return _searching(engine, name, counts)
    return engine.policies[name]


@cache
def _searching(engine: EngineSpec, name: str, counts: tuple[int, int]) -> Policy:
    from rulepress.openspiel.players import policy

    return policy(name, counts, engine.policies)


def _by_seat(game: Game, state: Any, rng: random.Random, chooser: list[Policy], players: list[str],
             strong: int) -> Any:
    """The action of whoever's turn it is: the first player at seat ``strong``, the other player elsewhere."""
    legal = game.legal_actions(state)
    who = getattr(legal[0], "player", None) if legal else None
    if who is None:
        who = getattr(state, "current", None)
    seat = players.index(who) if isinstance(who, str) and who in players else who if isinstance(who, int) else 0
    return chooser[0 if seat == strong else 1](game, state, rng)


class _Record:
    """What one game did: the rules that fired, how often each named each seat, and its story for the digest
    (every event's rule and every action's kind, in order)."""

    def __init__(self, players: list[str]) -> None:
        self.seats = {name: seat for seat, name in enumerate(players)}
        self.fired: set[str] = set()
        self.story: list[str] = []
        self.per_game: Counter[str] = Counter()
        self.per_seat: dict[str, list[int]] = {}

    def seen(self, event: Any) -> None:
        self.fired.add(event.rule)
        self.story.append(event.rule)
        self.per_game[event.rule] += 1
        who = event.data.get("player") if isinstance(event.data, Mapping) else None
        if who in self.seats:
            self.per_seat.setdefault(event.rule, [0] * len(self.seats))[self.seats[who]] += 1


def _key(data: Mapping[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, default=str)


@cache
def _game(root: str, package: str, components: str, options: str) -> tuple[Game, EngineSpec]:
    """One game object per worker process and configuration (engines are imported once per process)."""
    from rulepress.verify.engines import load_engine

    engine = load_engine(package, Path(root))
    return engine.make_game(json.loads(components), json.loads(options)), engine


def _inventory(engine: EngineSpec, components: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The engine's optional ``inventory(components)``: every component that exists, by kind."""
    found = engine.inventory
    return dict(found(components)) if found is not None else {}
