"""Random and policy-driven play through the engine protocol (tests, benchmarks, impact)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rulepress.protocol import Game

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
