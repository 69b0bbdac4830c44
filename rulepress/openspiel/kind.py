"""What kind of game an engine is, in OpenSpiel's terms (``pyspiel.GameType``), read in one place.

Until engines declare it (an ``EngineSpec``'s game-type fields), it is read from what the engine already says: the
player counts (``PLAYERS``), whether it draws at random (``CHANCE``), whether a seat is hidden anything (an
observer), and what its results hold (``returns``, ``winners`` or ``won``).  :func:`game_kind` is the one function
that reads it: when the engines' spec lands, it reads the spec instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rulepress.basegame import BaseGame
from rulepress.protocol import Game, observer_of

PROBE_GAMES = 30  # random games played to learn a results-list game's range of returns


@dataclass(frozen=True)
class GameKind:
    """``chance``: ``explicit`` (each draw a chance node), ``sampled`` (drawn inside ``apply`` from a seed: an
    engine not written on BaseGame, whose setup cannot be given a chance source) or ``none``; ``information``:
    ``perfect`` or ``imperfect``; ``utility``: ``zero_sum``, ``constant_sum``, ``general_sum`` or ``identical``
    (everyone wins or loses together: cooperative and solo games); ``scoring``: how a result becomes returns
    (``returns``, ``winners`` or ``won``)."""

    players: tuple[int, int]
    chance: str
    information: str
    utility: str
    scoring: str
    low: float = -1.0
    high: float = 1.0


def game_kind(game: Game, players: int) -> GameKind:
    """The kind of ``game`` when ``players`` play it."""
    counts = tuple(getattr(game, "PLAYERS", (players, players)))
    if not isinstance(game, BaseGame):
        chance = "sampled"
    else:
        chance = "explicit" if game.CHANCE else "none"
    information = "perfect" if observer_of(game) is None else "imperfect"
    names = [f"P{i + 1}" for i in range(players)]
    first = game.result(game.new_state(names, 0))
    if isinstance(first.get("returns"), Sequence):
        low, high, total = _probe(game, names)
        utility = "zero_sum" if total == 0 else "general_sum"
        return GameKind(counts, chance, information, utility, "returns", low, high)
    if "winners" in first:
        return GameKind(counts, chance, information, "zero_sum" if players == 2 else "general_sum", "winners")
    return GameKind(counts, chance, information, "identical", "won")


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


def _probe(game: Game, names: list[str]) -> tuple[float, float, float]:
    """The lowest and highest return, and the largest sum of returns, of a few random games."""
    import random

    low, high, total = 0.0, 0.0, 0.0
    for seed in range(PROBE_GAMES):
        state, rng = game.new_state(names, seed), random.Random(seed)
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            game.apply(state, legal[rng.randrange(len(legal))])
        values = [float(v) for v in game.result(state)["returns"]]
        low, high, total = min(low, *values), max(high, *values), max(total, abs(sum(values)))
    return low, high, total
