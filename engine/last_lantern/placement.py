"""Where a tile may go (rules ll.journey.place.*, ll.ability.fog, the Frozen Lake and Basilisk boards).

Every check works on whole boards at once: for one orientation, the anchors still free are the
precomputed anchors AND-ed with the occupied board shifted by each square's offset; the anchors
touching a target (a space beside an earlier tile) are found the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from rulepress.protocol import RuleViolation

from .pieces import Lay

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State


def started(g: LastLantern, s: State, p: int) -> bool:
    """Whether rule 3 (adjacent to earlier tiles) rather than rule 2 (beside the start) governs ``p``."""
    if g.opt_first_tile_own:
        return s.started[p]
    return bool(s.tilecov & g.canopy.path_mask[p])


def target(g: LastLantern, s: State, p: int) -> int:
    """Free spaces a new tile on ``p``'s path must cover one of."""
    c = g.canopy
    if not started(g, s, p):
        return c.row_mask[1] & c.path_mask[p] & ~s.occ
    return c.dilate(s.tilecov & c.path_mask[p], c.board_area) & ~s.occ


def _scan(
    lays: tuple[Lay, ...], anchors: tuple[int, ...], occ: int, touch: int, within: int = 0
) -> Iterator[tuple[int, int]]:
    """(orientation, anchor) pairs free of ``occ``, covering a ``touch`` bit (and a ``within`` bit)."""
    for o, lay in enumerate(lays):
        free = anchors[o]
        if not free:
            continue
        hit = 0
        inside = 0
        for off in lay.offsets:
            free &= ~(occ >> off)
            hit |= touch >> off
            if within:
                inside |= within >> off
        free &= hit
        if within:
            free &= inside
        while free:
            low = free & -free
            yield o, low.bit_length() - 1
            free ^= low


def tree_moves(g: LastLantern, s: State, p: int, tile: str) -> Iterator[tuple[int, int]]:
    return tree_scan(g, s, p, tile, target(g, s, p))


def tree_scan(g: LastLantern, s: State, p: int, tile: str, touch: int) -> Iterator[tuple[int, int]]:
    """:func:`tree_moves` with ``target(g, s, p)`` already known."""
    sig = g.pieces.signature[tile]
    return _scan(g.pieces.canopy_lays[sig], g.pieces.tree_anchors[p][sig], s.occ, touch)


def ability_moves(g: LastLantern, s: State, p: int, tile: str) -> Iterator[tuple[int, int]]:
    return ability_scan(g, s, p, tile, target(g, s, p))


def ability_scan(g: LastLantern, s: State, p: int, tile: str, touch: int) -> Iterator[tuple[int, int]]:
    """:func:`ability_moves` with ``target(g, s, p)`` already known."""
    sig = g.pieces.signature[tile]
    anchors = g.pieces.board_anchors[sig] if g.opt_reach_through else g.pieces.tree_anchors[p][sig]
    return _scan(g.pieces.canopy_lays[sig], anchors, s.occ, touch, g.canopy.path_mask[p])


def can_place(moves: Iterator[tuple[int, int]]) -> bool:
    return next(moves, None) is not None


def lake_moves(g: LastLantern, s: State, tile: str) -> Iterator[tuple[int, int]]:
    lake = g.lake
    assert lake is not None
    sig = g.pieces.signature[tile]
    touch = lake.spaces if first_abandoned(g, s) else lake.dilate(s.lake_occ, lake.spaces)
    return _scan(g.pieces.lake_lays[sig], g.pieces.lake_anchors[sig], s.lake_occ, touch)


def basilisk_moves(g: LastLantern, s: State, tile: str) -> Iterator[tuple[int, int]]:
    c = g.canopy
    sig = g.pieces.signature[tile]
    on_board = basilisk_cover(s, c.beyond_mask)
    touch = c.beyond_mask if first_abandoned(g, s) else c.dilate(on_board, c.beyond_mask)
    # an abandoned tile lies on the Basilisk board and may reach over the goal line onto the paths
    return _scan(g.pieces.canopy_lays[sig], g.pieces.board_anchors[sig], s.occ, touch & ~s.occ, c.beyond_mask)


def basilisk_cover(s: State, beyond: int) -> int:
    return s.occ & beyond


def first_abandoned(g: LastLantern, s: State) -> bool:
    """Whether the next abandoned tile may go anywhere on the Frozen Lake or Basilisk board."""
    if g.opt_first_phase and s.lake_round_first:
        return True
    if g.lake is not None:
        return s.lake_occ == 0
    return not any(pl.abandoned for pl in s.placed.values())


def anchor_of(lay: Lay, mask: int, columns: int, stride: int) -> int:
    """The anchor that lays ``lay`` exactly on ``mask``, or -1."""
    if not mask:
        return -1
    low = lay.mask0
    anchor = (mask & -mask).bit_length() - (low & -low).bit_length()  # lowest square's bit less the lowest offset
    if anchor < 0 or (lay.mask0 << anchor) != mask or anchor % stride + lay.span >= columns:
        return -1
    return anchor


def check_tree(g: LastLantern, s: State, p: int, mask: int, ability: bool) -> None:
    """Raise the rule a placement of ``mask`` on ``p``'s path breaks (the shape is already matched)."""
    c = g.canopy
    name = s.players[p]
    if mask & c.start_mask:
        raise RuleViolation("ll.journey.place.first", "A tile may not cover the borderless start spaces")
    if mask & c.off_board:
        raise RuleViolation(
            "ll.journey.place.space",
            "The tile would leave the board (only past the goal line may it reach beyond)",
        )
    if mask & s.occ:
        raise RuleViolation("ll.journey.place.space", "The tile would lie on another tile")
    if ability:
        if not mask & c.path_mask[p]:
            raise RuleViolation("ll.ability.fog", f"The Ability tile must lie on {name}'s own path")
        if not g.opt_reach_through and mask & c.off_tree[p]:
            raise RuleViolation(
                "ll.journey.place.shared",
                "The tile may not reach past the shared column into another player's path",
            )
    elif mask & c.off_tree[p]:
        raise RuleViolation(
            "ll.journey.place.shared",
            "The tile may not reach past the shared column into another player's path",
        )
    if not started(g, s, p):
        if not mask & c.row_mask[1] & c.path_mask[p]:
            raise RuleViolation(
                "ll.journey.place.first", f"{name}'s first tile must lie beside a borderless start space"
            )
    elif not mask & target(g, s, p):
        raise RuleViolation(
            "ll.journey.place.adjacent", f"{name}'s tile must touch a tile already on {name}'s path"
        )
