"""Play policies besides random, for simulations (balance checks, impact of designer questions)."""

from __future__ import annotations

import random
from typing import Any

from .actions import DRAW, FLIP, LIGHT, PASS, PLANT
from .state import Action


def greedy(game: Any, state: Any, rng: random.Random) -> Action:
    """A keeper with a plan: light the richest tile nobody else lights, plant beside their own lone
    wick, open the garden while less than half of it is face up, otherwise draw; ties and everything
    else are broken at random."""
    found = game.legal_actions(state)
    seat = state.current
    pieces = game.pieces

    lights = [a for a in found
              if a.kind == LIGHT and not state.wicks[a.cell] and not state.ghost_block[a.cell]]
    if lights:
        value, kind_of = pieces.kind_value, pieces.card_kind
        worth = {a.cell: sum([value[kind_of[c]] for c in state.moths[a.cell]]) for a in lights}  # once a tile
        best = max(worth.values())
        if best > 0:
            return rng.choice([a for a in lights if worth[a.cell] == best])
    mine = [a for a in found if a.kind == PLANT and state.wicks[a.cell] == [seat]
            and a.arg != pieces.ghost_kind]
    if mine:
        return max(mine, key=lambda a: (pieces.kind_value[a.arg], rng.random()))
    spoil = [a for a in found if a.kind == PLANT and a.arg == pieces.ghost_kind
             and state.wicks[a.cell] and seat not in state.wicks[a.cell]]
    if spoil:
        return rng.choice(spoil)
    flips = [a for a in found if a.kind == FLIP]
    if flips and sum(state.face_up) * 2 < len(state.face_up):
        return rng.choice(flips)  # a garden of one or two tiles is easily blocked: open it up first
    draws = [a for a in found if a.kind == DRAW]
    if draws and len(state.hands[seat]) < pieces.hand_size:  # a hand limit may apply (q11)
        return rng.choice(draws)
    # A keeper with a plan does not give actions away: pass only when nothing else is possible
    # (which matters when the pass_rule option allows passing at any time).
    playing = [a for a in found if a.kind != PASS] or found
    return playing[rng.randrange(len(playing))]
