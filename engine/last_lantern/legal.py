"""Every action the rules allow now, in a stable order."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product
from typing import TYPE_CHECKING

from .abilities import TRIO, removable
from .actions import Action
from .astray import board_moves, waiting
from .fog import choosers
from .placement import ability_moves, ability_scan, can_place, target

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State

PLACEMENTS_CACHED = 2_000  # lists of placements remembered per rules object (the latest games), then forgotten at once
_NEW = tuple.__new__  # _NEW(Action, fields): an Action from all its fields, in order
_DRAW, _DONE = Action("draw"), Action("done")  # values, listed again each time (not rebuilt)


def actions(g: LastLantern, s: State) -> list[Action]:
    phase = s.phase
    if phase == "journey":
        return _journey(g, s)
    if phase == "choose":
        choose = g.choose_actions
        return [a for p, chosen in enumerate(s.choices) if chosen is None for a in choose[p]]
    if phase == "draw":
        return [_DRAW]
    if phase == "resolve":
        out: list[Action] = []
        for loc in s.to_resolve:
            who = choosers(s, loc)
            takers = who if s.location_tile.get(loc) is not None else [-1]
            # Action("resolve", t, where=loc, other=f), built from all its fields
            out.extend([_NEW(Action, ("resolve", t, "", 0, -1, loc, f, -1, (), False)) for t in takers for f in who])
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


def _tree_placements(g: LastLantern, occ: int, p: int, tile: str, touch: int) -> list[Action]:
    """``_placements(g, "place", p, tile, tree_scan(...))`` in one loop: the placements of a hand's tiles are most
    of what listing a journey's actions costs (the same actions in the same order)."""
    # Only the squares of the player's own area matter (every anchor keeps the tile inside it), and they rarely
    # change while other players place: the same inputs give back the same list (never changed by its users).
    area = g.canopy.tree_area[p]
    occ &= area
    touch &= area
    key = (p, tile, occ, touch)
    known = g.placements.get(key)
    if known is not None:
        return known
    if len(g.placements) >= PLACEMENTS_CACHED:
        g.placements.clear()
    pieces = g.pieces
    sig = pieces.signature[tile]
    anchors = pieces.tree_anchors[p][sig]
    found: list[Action] = []
    for o, lay in enumerate(pieces.canopy_lays[sig]):
        free = anchors[o]
        if not free:
            continue
        hit = 0
        for off in lay.offsets:
            free &= ~(occ >> off)
            hit |= touch >> off
        free &= hit
        mask0 = lay.mask0
        while free:
            low = free & -free
            found.append(_NEW(Action, ("place", p, tile, mask0 << (low.bit_length() - 1), o, "", -1, -1, (), False)))
            free ^= low
    g.placements[key] = found
    return found


def journey_placements(g: LastLantern, s: State) -> list[Action]:
    """The ``place`` actions of the Journey, in the order :func:`actions` lists them (for a policy that looks at
    placements first: the abilities, listed after them, need not be worked out when one will be placed)."""
    if s.pending_ability is not None:
        r, tile = s.pending_ability
        return _placements(g, "place", r, tile, ability_moves(g, s, r, tile))
    out: list[Action] = []
    for p in range(s.n):
        hand = s.hands[p]
        if hand:
            touch = target(g, s, p)
            for tile in hand:
                out.extend(_tree_placements(g, s.occ, p, tile, touch))
    return out


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
            placed = _tree_placements(g, s.occ, p, tile, touch)
            out.extend(placed if placed else [Action("cannot-place", p, tile)])
    if not s.blocked:
        out.extend(_abilities(g, s))
    if not holding:
        out.append(_DONE)
    return out


def _trio_payers(g: LastLantern, s: State) -> list[tuple[int, tuple[int, ...]]]:
    """(activating player, payers) for Rabbit+Snail+Owl abilities."""
    if not g.opt["pool_familiars"]:
        found = []
        for p, held in enumerate(s.familiars):
            if held["rabbit"] and held["snail"] and held["owl"]:  # TRIO
                found.append((p, ()))
        return found
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
        touches: dict[int, int] = {}  # each receiver's spaces to touch, worked out once
        gifts: list[tuple[str, int]] = []
        tiles = g.tiles
        for tile in s.ability_supply:
            shape = tiles[tile].shape
            for r in range(s.n):
                key = (shape, r)
                fit = fits.get(key)
                if fit is None:
                    touch = touches.get(r)
                    if touch is None:
                        touch = touches[r] = target(g, s, r)
                    fit = fits[key] = can_place(ability_scan(g, s, r, tile, touch))
                if fit:
                    gifts.append((tile, r))
        # Action(do, p, tile, payers=pay, other=r) built from all its fields, without the keyword detour.
        for p, pay in trio:
            out.extend([_NEW(Action, ("back-on-track", p, t, 0, -1, "", -1, -1, pay, False)) for t in back])
            out.append(_NEW(Action, ("lighting-the-way", p, "", 0, -1, "", -1, -1, pay, False)))
            out.extend([_NEW(Action, ("through-the-fog", p, t, 0, -1, "", r, -1, pay, False)) for t, r in gifts])
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
