"""Games played at random for the tests, the same way everywhere: a seed sets the game up and picks each action."""

from __future__ import annotations

import random
from typing import Any


def played(game: Any, players: int, seed: int, actions: int) -> Any:
    """A state of ``game`` set up from ``seed`` for ``players`` seats (P1, P2, ...) and played ``actions`` random legal
    actions on (or to its end)."""
    state = game.new_state([f"P{n}" for n in range(1, players + 1)], seed)
    rng = random.Random(seed)
    for _ in range(actions):
        legal = game.legal_actions(state)
        if not legal:
            break
        game.apply(state, legal[rng.randrange(len(legal))])
    return state
