"""What kind of game an engine is, in OpenSpiel's terms (``pyspiel.GameType``), read in one place.

It is what the engine declares (its ``EngineSpec``: ``min_num_players``/``max_num_players``, ``chance_mode``,
``information``, ``utility``, the fields pyspiel.GameType names, which the gate holds to the book and the game:
rulepress/verify/engines.py), found for a game through the registry the loader fills (``protocol.engine_of``).
Only how a result becomes returns is read from the game (its results hold ``returns``, ``winners`` or ``won``),
and the range of a results-list game's returns from a few random games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rulepress.basegame import BaseGame
from rulepress.protocol import ChanceMode, EngineSpec, Game, Information, Utility, engine_of

PROBE_GAMES = 30  # random games played to learn a results-list game's range of returns


@dataclass(frozen=True)
class GameKind:
    """``chance``: ``explicit`` (each draw a chance node), ``sampled`` (drawn inside ``apply`` from a seed: an
    engine not written on BaseGame, whose setup cannot be given a chance source) or ``none``; ``information``:
    ``perfect`` or ``imperfect``; ``utility``: ``zero_sum``, ``general_sum`` or ``identical`` (everyone wins or
    loses together: cooperative and solo games, which OpenSpiel has no other name for); ``scoring``: how a result
    becomes returns (``returns``, ``winners`` or ``won``)."""

    players: tuple[int, int]
    chance: str
    information: str
    utility: str
    scoring: str
    low: float = -1.0
    high: float = 1.0


def spec_of(game: Game) -> EngineSpec:
    """The declaration of the engine that made ``game`` (registered as the gate's loader imports it)."""
    spec = engine_of(game)
    if spec is None:
        raise TypeError(f"{type(game).__qualname__} is no registered engine's game: load the engine with "
                        "rulepress.verify.engines.load_engine, which reads its EngineSpec")
    return spec


def game_kind(game: Game, players: int) -> GameKind:
    """The kind of ``game`` when ``players`` play it: its engine's declaration, and how its results score."""
    spec = spec_of(game)
    counts = (spec.min_num_players, spec.max_num_players)
    if spec.chance_mode is ChanceMode.DETERMINISTIC:
        chance = "none"
    elif spec.chance_mode is ChanceMode.EXPLICIT_STOCHASTIC and isinstance(game, BaseGame):
        chance = "explicit"  # each draw through the state's Chance: a chance node (rulepress/openspiel/chance.py)
    else:
        chance = "sampled"  # drawn from the seed some other way: a setup not on BaseGame takes no chance source
    information = "imperfect" if spec.information is Information.IMPERFECT_INFORMATION else "perfect"
    utility = "identical" if spec.utility in (Utility.SOLO, Utility.IDENTICAL) else spec.utility.value
    names = [f"P{i + 1}" for i in range(players)]
    first = game.result(game.new_state(names, 0))
    if isinstance(first.get("returns"), Sequence):
        low, high = _probe(game, names)
        return GameKind(counts, chance, information, utility, "returns", low, high)
    if "winners" in first:
        return GameKind(counts, chance, information, utility, "winners")
    return GameKind(counts, chance, information, utility, "won")


def returns(kind: GameKind, result: Mapping[str, Any], players: Sequence[str]) -> list[float]:
    """Each seat's return at the end: the engine's own ``returns``; else +1 for a winner and -1 for the others (0 for
    all when all win); else +1 for everyone in a won game and -1 in a lost one."""
    if kind.scoring == "returns":
        given = result.get("returns") or [0] * len(players)
        return [float(value) for value in given]
    if kind.scoring == "winners":
        winners = set(result.get("winners") or ())
        if not winners or winners >= set(players):
            return [0.0] * len(players)
        return [1.0 if name in winners else -1.0 for name in players]
    if not result.get("over", True):
        return [0.0] * len(players)
    return [1.0 if result.get("won") else -1.0] * len(players)


def _probe(game: Game, names: list[str]) -> tuple[float, float]:
    """The lowest and highest return of a few random games."""
    import random

    low, high = 0.0, 0.0
    for seed in range(PROBE_GAMES):
        state, rng = game.new_state(names, seed), random.Random(seed)
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            game.apply(state, legal[rng.randrange(len(legal))])
        values = [float(v) for v in game.result(state)["returns"]]
        low, high = min(low, *values), max(high, *values)
    return low, high
