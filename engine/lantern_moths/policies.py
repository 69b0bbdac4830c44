"""Play policies besides random, for simulations (balance checks, impact of designer questions)."""

from __future__ import annotations

import random
from typing import Any

from .actions import DRAW, LIGHT, PLANT
from .state import Action


def greedy(game: Any, state: Any, rng: random.Random) -> Action:
    """A keeper with a plan: light the richest tile nobody else lights, plant beside their own lone
    wick, otherwise draw; ties and everything else are broken at random."""
    found = game.legal_actions(state)
    seat = state.current
    pieces = game.pieces

    def worth(cell: int) -> int:
        return sum(pieces.kind_value[pieces.card_kind[c]] for c in state.moths[cell])

    lights = [a for a in found
              if a.kind == LIGHT and not state.wicks[a.cell] and not state.ghost_block[a.cell]]
    if lights:
        best = max(worth(a.cell) for a in lights)
        if best > 0:
            return rng.choice([a for a in lights if worth(a.cell) == best])
    mine = [a for a in found if a.kind == PLANT and state.wicks[a.cell] == [seat]
            and a.arg != pieces.ghost_kind]
    if mine:
        return max(mine, key=lambda a: (pieces.kind_value[a.arg], rng.random()))
    spoil = [a for a in found if a.kind == PLANT and a.arg == pieces.ghost_kind
             and state.wicks[a.cell] and seat not in state.wicks[a.cell]]
    if spoil:
        return rng.choice(spoil)
    draws = [a for a in found if a.kind == DRAW]
    if draws and len(state.hands[seat]) < pieces.hand_size + 2:
        return rng.choice(draws)
    return found[rng.randrange(len(found))]
