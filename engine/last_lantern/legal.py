"""Every action the rules allow now, in a stable order."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product
from typing import TYPE_CHECKING

from .abilities import TRIO, removable
from .actions import Action
from .astray import board_moves, waiting
from .fog import choosers
from .placement import ability_moves, can_place, target, tree_scan

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State

_NEW = tuple.__new__  # _NEW(Action, fields): an Action from all its fields, in order


def actions(g: LastLantern, s: State) -> list[Action]:
    phase = s.phase
    if phase == "journey":
        return _journey(g, s)
    if phase == "choose":
        return [
            Action("choose", p, where=loc) for p in range(s.n) if s.choices[p] is None for loc in g.locations
        ]
    if phase == "draw":
        return [Action("draw")]
    if phase == "resolve":
        out: list[Action] = []
        for loc in s.to_resolve:
            who = choosers(s, loc)
            takers = who if s.location_tile.get(loc) is not None else [-1]
            out.extend(Action("resolve", t, where=loc, other=f) for t in takers for f in who)
        return out
    if phase == "familiar":
        p, kind = s.takes_familiar[0]
        out = [
            Action("take-from", p, where=kind, other=q, agreed=True)
            for q in range(s.n)
            if q != p and s.familiars[q][kind]
        ]
        out.append(Action("go-without", p, where=kind))
        return out
    if phase == "lantern-order":
        return [Action("lantern", p) for p in s.lantern_queue]
    if phase == "orange":
        return [
            Action("return", p, where=k) for p in sorted(s.orange_pending) for k in TRIO if s.familiars[p][k]
        ]
    if phase in ("astray", "purple"):
        return _astray(g, s)
    return []


def _placements(g: LastLantern, do: str, p: int, tile: str, moves: Iterable[tuple[int, int]]) -> list[Action]:
    masks = [lay.mask0 for lay in g.pieces.lays(tile)]
    # Action(do, p, tile, mask, o) with every other field at its default, without NamedTuple's keyword detour:
    # a journey lists hundreds of placements.
    return [_NEW(Action, (do, p, tile, masks[o] << anchor, o, "", -1, -1, (), False)) for o, anchor in moves]


def _journey(g: LastLantern, s: State) -> list[Action]:
    if s.pending_ability is not None:
        r, tile = s.pending_ability
        return _placements(g, "place", r, tile, ability_moves(g, s, r, tile))
    out: list[Action] = []
    holding = False
    for p in range(s.n):
        hand = s.hands[p]
        if not hand:
            continue
        holding = True
        touch = target(g, s, p)  # tree_moves for each tile of the hand, with the spaces to touch worked out once
        for tile in hand:
            placed = _placements(g, "place", p, tile, tree_scan(g, s, p, tile, touch))
            out.extend(placed if placed else [Action("cannot-place", p, tile)])
    if not s.blocked:
        out.extend(_abilities(g, s))
    if not holding:
        out.append(Action("done"))
    return out


def _trio_payers(g: LastLantern, s: State) -> list[tuple[int, tuple[int, ...]]]:
    """(activating player, payers) for Rabbit+Snail+Owl abilities."""
    if not g.opt["pool_familiars"]:
        return [(p, ()) for p in range(s.n) if all(s.familiars[p][k] for k in TRIO)]
    holders = [[p for p in range(s.n) if s.familiars[p][k]] for k in TRIO]
    return [(combo[0], combo) for combo in product(*holders)]


def _wolf_payers(g: LastLantern, s: State) -> list[tuple[int, tuple[int, ...]]]:
    if s.n != 4:
        return []
    if not g.opt["pool_familiars"]:
        return [(p, ()) for p in range(s.n) if s.familiars[p]["wolf"] >= 2]
    out = []
    for a in range(s.n):
        for b in range(a, s.n):
            if (a == b and s.familiars[a]["wolf"] >= 2) or (
                a != b and s.familiars[a]["wolf"] and s.familiars[b]["wolf"]
            ):
                out.append((a, (a, b)))
    return out


def _abilities(g: LastLantern, s: State) -> list[Action]:
    out: list[Action] = []
    trio = _trio_payers(g, s)
    if trio:
        back = removable(g, s)
        fits: dict[tuple[str, int], bool] = {}
        gifts: list[tuple[str, int]] = []
        for tile in s.ability_supply:
            shape = g.tiles[tile].shape
            for r in range(s.n):
                key = (shape, r)
                if key not in fits:
                    fits[key] = can_place(ability_moves(g, s, r, tile))
                if fits[key]:
                    gifts.append((tile, r))
        for p, pay in trio:
            out.extend(Action("back-on-track", p, t, payers=pay) for t in back)
            out.append(Action("lighting-the-way", p, payers=pay))
            out.extend(Action("through-the-fog", p, t, other=r, payers=pay) for t, r in gifts)
    for p, pay in _wolf_payers(g, s):
        for kind in TRIO:
            for r in range(s.n):
                if s.location_familiars[kind]:
                    out.append(Action("guiding-hand", p, where=kind, other=r, payers=pay))
                else:
                    out.extend(
                        Action("guiding-hand", p, where=kind, other=r, third=q, payers=pay, agreed=True)
                        for q in range(s.n)
                        if q not in (p, r) and s.familiars[q][kind]
                    )
    return out


def _astray(g: LastLantern, s: State) -> list[Action]:
    tiles = waiting(s)
    if g.lake is None and not g.opt["basilisk"]:
        return [Action("astray", tile=t) for t in tiles]
    out: list[Action] = []
    for t in tiles:
        sig = g.pieces.signature[t]
        lays = (g.pieces.lake_lays if g.lake is not None else g.pieces.canopy_lays)[sig]
        out.extend(
            Action("astray", tile=t, mask=lays[o].mask0 << anchor, orient=o)
            for o, anchor in board_moves(g, s, t)
        )
    return out
