"""Play policies besides uniform random.

``cooperative`` plays like a careful table: players spread their choices over the locations, lay
tiles from the back of their path forward leaving as few holes as possible, cover black Fireflies,
cross the goal line only when the final draw is small, and spend Familiars on Back on Track when the
track fills up and on Lighting the Way when the bag turns dark.  It is what the book's game-length
figures are measured with (random play mostly loses in the first rounds).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .actions import Action
from .fireflies import empty_spaces
from .legal import journey_placements

Policy = Callable[[Any, Any, random.Random], Any]


def _placement_scorer(g: Any, s: Any, p: int) -> Callable[[int], float]:
    """How bad placing ``mask`` for player ``p`` looks here (lower is better).  What does not depend on the
    placement (the player's path, the Fireflies, the lanterns still to cross) is worked out once per decision,
    not once per legal placement; each score is the same number, summed in the same order, as it always was."""
    c = g.canopy
    path = c.path_mask[p]
    taken = s.occ
    flies = 0
    black = 0
    for cell, colour in s.fireflies.items():
        flies |= 1 << cell
        if colour == "black":
            black |= 1 << cell
    uncrossed = [(c.yellow[k], c.before_rows[k]) for k in range(len(c.lantern_rows)) if k not in s.crossed[p]]
    lanterns = 0  # the yellow spaces of the lanterns still to cross, on this path: most placements touch none
    for yellow, _ in uncrossed:
        lanterns |= yellow & path
    beyond, spaces, stride, spread = c.beyond_mask, c.spaces, c.stride, c.spread

    def score(mask: int) -> float:
        occ = taken | mask
        empty = path & ~occ
        # a lone empty space boxed in by tiles will draw a Firefly at the end: avoid making them
        # (c.dilate twice, written out: this runs for every legal placement)
        near_empty = ((empty << 1) | (empty >> 1) | (empty << stride) | (empty >> stride)) & path & ~empty
        tiled = occ & path
        near_tiles = ((tiled << 1) | (tiled >> 1) | (tiled << stride) | (tiled >> stride)) & path & ~tiled
        boxed = empty & ~near_empty & near_tiles
        covered_black = (mask & black).bit_count()
        found = spread(mask) + boxed.bit_count() * 6 - covered_black * 5
        if mask & lanterns:
            for yellow, before in uncrossed:
                if mask & yellow & path:
                    # crossing a lantern draws onto every empty space behind it: fill them first
                    found += 5 * (path & ~occ & before & ~flies).bit_count()
        if mask & beyond:
            left = (spaces & ~mask & ~taken & ~flies).bit_count()
            found += -1000 if left <= 2 else 60 + left * 4
        return found

    return score


def _best_placement(g: Any, state: Any, places: list[Action]) -> Action:
    """The first of the least (score, mask), as min() would pick."""
    scorers: dict[int, Callable[[int], float]] = {}
    best, best_key = places[0], None
    for a in places:
        scorer = scorers.get(a.player)
        if scorer is None:
            scorer = scorers[a.player] = _placement_scorer(g, state, a.player)
        key = (scorer(a.mask), a.mask)
        if best_key is None or key < best_key:
            best, best_key = a, key
    return best


def cooperative(game: Any, state: Any, rng: random.Random) -> Any:
    g = game.rules(state.n)
    phase = state.phase
    if phase == "journey" and not state.over:
        # A placement, when there is one, is chosen whatever else is legal: the abilities need not be listed.
        places = journey_placements(g, state)
        if places:
            return _best_placement(g, state, places)
    actions = game.legal_actions(state)
    if len(actions) == 1:
        return actions[0]
    if phase == "choose":
        taken = {c for c in state.choices if c is not None}
        free = [a for a in actions if a.where not in taken]
        pool = free or actions
        return pool[rng.randrange(len(pool))] if state.n == 2 else pool[0]
    if phase == "journey":
        stuck = [a for a in actions if a.do == "cannot-place"]
        if stuck:
            return stuck[0]
        back = [a for a in actions if a.do == "back-on-track"]
        if back and len(state.track) >= 5:
            return back[0]
        light = [a for a in actions if a.do == "lighting-the-way"]
        total = sum(state.bag.values())
        if light and total and state.bag.get("black", 0) / total > 0.55:
            return light[0]
        fog = [a for a in actions if a.do == "through-the-fog"]
        if fog and (len(state.track) < 4 or not back):
            holes = empty_spaces(state, g.canopy.spaces).bit_count()
            if holes and state.end_triggered:
                return fog[0]
        done = [a for a in actions if a.do == "done"]
        return done[0] if done else actions[0]
    if phase in ("astray", "purple") and actions[0].mask:
        return min(actions, key=lambda a: (_board_score(g, a), a.mask))
    return actions[0]


def _board_score(g: Any, a: Action) -> float:
    """An abandoned tile on the Frozen Lake or Basilisk board: stay off the paths, off the icons, compact."""
    if g.lake is not None:
        icons = sum(n for cell, n in g.lake.icons.items() if a.mask >> cell & 1)
        return icons * 3 - (a.mask & g.lake.dilate(a.mask, g.lake.spaces)).bit_count()
    c = g.canopy
    icons = sum(n for cell, n in c.basilisk_icons.items() if a.mask >> cell & 1)
    onto_paths = (a.mask & c.spaces).bit_count()
    # deep rows first, so the spaces next to the goal line stay open for the players' last tiles
    depth = sum(-(cell // c.stride) for cell in range(a.mask.bit_length()) if a.mask >> cell & 1)
    return onto_paths * 100 + icons * 3 + depth * 0.1


POLICIES: dict[str, Policy] = {"cooperative": cooperative}
