"""What happens by itself between decisions: the Lanterns phase, Path Astray, new rounds, the game end.

``advance`` runs after every action until the next decision is needed (or the game is over).  Draws
wait in ``draw_queue`` so that a decision a Firefly forces (an orange or purple Eerie Light) can
interrupt them and the draws carry on afterwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulepress.protocol import Event, decided

from .astray import cannot_place, placeable, to_track
from .fireflies import empty_spaces, lose, place_drawn, supply_to_bag, threshold
from .geometry import bits

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State


def start_journey(g: LastLantern, s: State, events: list[Event]) -> None:
    if not s.track or not s.ability_supply:
        decided(s, "ability_needs_effect")  # Back on Track or Through the Fog could do nothing: not offered
    s.phase = "journey"
    _note_pooling(s)
    s.stage = "journey"
    if s.blocked:
        events.append(Event("abilities-blocked", "ll.challenge.eerie.blue", {"round": s.round}))


def _note_pooling(s: State) -> None:
    """Mark ll.q15 when a Rabbit, a Snail and an Owl are held, but by different players only."""
    kinds = ("rabbit", "snail", "owl")
    if all(any(held[k] for held in s.familiars) for k in kinds) and not any(
            all(held[k] for k in kinds) for held in s.familiars):
        decided(s, "pool_familiars")


def start_lanterns(g: LastLantern, s: State, events: list[Event]) -> None:
    s.drawn = {}
    s.drawn_colours = {}
    shared_note(g, s, events)
    s.lantern_queue = [p for p in range(s.n) if s.crossed_now[p]]
    if g.opt["branches"]:
        s.stage = "serpents"
        s.draw_queue = _serpent_draws(g, s)
    else:
        s.stage = "crossings"


def _serpent_draws(g: LastLantern, s: State) -> list[tuple[int, int]]:
    """Serpent spaces beside a tile placed this round get a Firefly each, in the order tiles were placed."""
    c = g.canopy
    queue: list[tuple[int, int]] = []
    seen = 0
    for tile in s.placed_now:
        pl = s.placed.get(tile)
        if pl is None or pl.abandoned:
            continue
        near = c.dilate(pl.mask, c.spaces)
        if g.tiles[tile].kind == "ability":
            if any(near & icon for i, icon in enumerate(c.serpent_icons) if not s.serpent_flipped[i]):
                decided(s, "serpent_ability")  # an Ability tile beside a Serpent tile
            if not g.opt["serpent_ability"]:
                continue
        for i, icon in enumerate(c.serpent_icons):
            if s.serpent_flipped[i]:
                continue
            for cell in bits(near & icon & ~seen):
                seen |= 1 << cell
                if cell not in s.fireflies:
                    queue.append((cell, pl.player))
    _note_older_beside_serpents(g, s, queue)
    return queue


def _note_older_beside_serpents(g: LastLantern, s: State, queue: list[tuple[int, int]]) -> None:
    """Mark ll.q41 when a tile placed in an earlier round lies beside a Serpent space that this round's draw
    leaves empty: drawing for every tile beside a Serpent, not only this round's, would put a Firefly there."""
    c = g.canopy
    now = 0
    for tile in s.placed_now:
        pl = s.placed.get(tile)
        if pl is not None:
            now |= pl.mask
    older = s.tilecov & ~now
    if not older:
        return
    drawn = 0
    for cell, _ in queue:
        drawn |= 1 << cell
    for i, icon in enumerate(c.serpent_icons):
        if s.serpent_flipped[i]:
            continue
        for cell in bits(c.dilate(older, c.spaces) & icon & ~drawn):
            if cell not in s.fireflies:
                decided(s, "serpent_draws_this_round")
                return


def _flip_serpents(g: LastLantern, s: State, events: list[Event]) -> None:
    c = g.canopy
    for i, icon in enumerate(c.serpent_icons):
        if s.serpent_flipped[i]:
            continue
        covered = not c.dilate(icon, c.spaces | c.start_mask) & ~s.occ
        lit = all(cell in s.fireflies for cell in bits(icon))
        if covered != lit:
            decided(s, "surrounded")  # the two readings of "orthogonally surrounded" disagree here
        surrounded = covered if g.opt["surrounded"] == "covered" else lit
        if not surrounded:
            continue
        s.serpent_flipped[i] = True
        back: list[str] = []
        for cell in bits(icon):
            colour = s.fireflies.pop(cell, None)
            if colour is not None:
                s.supply[colour] = s.supply.get(colour, 0) + 1
                s.board_black -= colour == "black"
                back.append(colour)
        reward = g.serpent_reward[s.serpents[i]]
        added = supply_to_bag(s, "yellow", reward)
        events.append(
            Event(
                "serpent-flipped",
                "ll.challenge.branches.flip",
                {
                    "serpent": s.serpents[i],
                    "spaces": c.names_of(icon),
                    "returned": back,
                    "yellow_added": added,
                },
            )
        )


def _resolve_crossing(g: LastLantern, s: State, p: int, events: list[Event]) -> None:
    c = g.canopy
    crossed = sorted(s.crossed_now[p])
    furthest = crossed[-1]
    if len(crossed) > 1:
        decided(s, "multi_lantern")  # one tile crossed two lanterns for the first time
    if crossed[0] > 0:
        decided(s, "lantern_region")  # a lantern past the first: from the start, or from the previous lantern?
    name = s.players[p]
    events.append(
        Event("lantern-crossed", "ll.lantern.cross", {"player": name, "lanterns": [k + 1 for k in crossed]})
    )
    for k in crossed if g.opt["multi_lantern"] == "each" else [furthest]:
        if s.lantern_fireflies[k] > 0:
            s.lantern_fireflies[k] -= 1
            s.bag["yellow"] = s.bag.get("yellow", 0) + 1
            events.append(Event("lantern-add", "ll.lantern.add", {"player": name, "lantern": k + 1}))
    rows = c.lantern_rows
    if g.opt["lantern_region"] == "start":
        steps = range(1, rows[furthest])
    else:
        low = rows[crossed[0] - 1] if crossed[0] > 0 else 1
        steps = range(low, rows[furthest])
    region = c.path_mask[p] & sum(c.row_mask[st] for st in steps)
    free = empty_spaces(s, region)
    held = region & ~s.occ & ~free
    if held:
        events.append(
            Event("already-lit", "ll.lantern.one-per-space", {"player": name, "spaces": held.bit_count()})
        )
    cells = list(bits(free))  # step by step, each step's lanes in order: a cell's index is step * stride + lane
    events.append(
        Event(
            "lantern-draw",
            "ll.lantern.draw",
            {"player": name, "spaces": len(cells), "shared": (free & c.shared_mask).bit_count()},
        )
    )
    s.draw_queue = [(cell, p) for cell in cells]
    s.draw_owner = p


def start_final(g: LastLantern, s: State, who: int, events: list[Event]) -> None:
    c = g.canopy
    s.stage = "final"
    s.phase = "final"
    s.drawn = {}
    s.drawn_colours = {}
    s.lantern_queue = []
    s.purple_pending = []
    s.orange_pending = []
    if s.abandoned:
        events.append(Event("not-astray", "ll.end.no-astray", {"tiles": list(s.abandoned)}))
    area = c.spaces | (c.beyond_mask if g.opt["basilisk"] else 0)
    free = empty_spaces(s, area)
    if s.fireflies and area & ~s.occ != free:
        decided(s, "final_draw_skips_fireflies")  # a space holding a Firefly gets none in the final draw
    cells = sorted(bits(free), key=lambda i: (i % c.stride, i // c.stride))
    s.draw_owner = who
    events.append(
        Event(
            "final-draw",
            "ll.challenge.basilisk.draw" if g.opt["basilisk"] else "ll.end.draw",
            {"player": s.players[who] if who >= 0 else "players", "spaces": len(cells)},
        )
    )
    s.draw_queue = [(cell, who) for cell in cells]


def _finish(g: LastLantern, s: State, events: list[Event]) -> None:
    limit, rule = threshold(g)
    if limit != g.black_loss and g.black_loss <= s.board_black < limit:
        decided(s, "victory_with_loss")  # "3 or fewer" would lose: the victory moves with the loss
    if g.opt["blossoms"]:
        decided(s, "flowers_on_path")  # only flowers on the path's spaces count
        short = {}
        for p in range(s.n):
            have = flowers(g, s, p)
            if shared_flowers(g, s, p):
                decided(s, "shared_flowers")  # a flower on a shared column counts for both its neighbours
            if have < g.blossoms_needed:
                short[s.players[p]] = have
        if short:
            lose(s, "blossoms", "ll.challenge.blossoms.loss", events, short=short)
            return
    s.over = True
    s.phase = "over"
    s.result = {
        "won": True,
        "reason": "victory",
        "rule": "ll.end.victory",
        "round": s.round,
        "black": s.board_black,
    }
    events.append(Event("won", "ll.end.victory", {"black": s.board_black, "limit": limit - 1}))


def flowers(g: LastLantern, s: State, p: int) -> int:
    """Flowers of ``p``'s type on ``p``'s path, shared columns included (Blossoms)."""
    path = g.canopy.path_mask[p]
    return sum(
        1
        for pl in s.placed.values()
        if pl.mark >= 0 and path >> pl.mark & 1 and g.tiles[pl.tile].flower == s.flower[p]
    )


def shared_flowers(g: LastLantern, s: State, p: int) -> int:
    """The flowers :func:`flowers` counts for ``p`` that lie on a shared column (counted for the neighbour too)."""
    shared = g.canopy.path_mask[p] & g.canopy.shared_mask
    return sum(1 for pl in s.placed.values()
               if pl.mark >= 0 and shared >> pl.mark & 1 and g.tiles[pl.tile].flower == s.flower[p])


def _next_round(g: LastLantern, s: State, events: list[Event]) -> None:
    s.round += 1
    s.phase = "draw"
    s.stage = ""
    s.choices = [None] * s.n
    s.placed_now = []
    s.crossed_now = [set() for _ in range(s.n)]
    s.refused = set()
    s.lake_round_first = False
    s.blocked = s.blue_next
    s.blue_next = False
    events.append(Event("round", "ll.overview.rounds", {"round": s.round}))


def _draw_rule(g: LastLantern, s: State) -> str:
    if s.stage == "serpents":
        return "ll.challenge.branches.draw"
    if s.stage == "final":
        return "ll.challenge.basilisk.draw" if g.opt["basilisk"] else "ll.end.draw"
    return "ll.lantern.draw"


def advance(g: LastLantern, s: State, events: list[Event]) -> None:
    while not s.over:
        if s.orange_pending:
            s.phase = "orange"
            return
        if s.purple_pending:
            tile = s.purple_pending[0]
            if g.lake is None and not g.opt["basilisk"]:
                to_track(g, s, tile, True, events)
            elif placeable(g, s, tile):
                s.phase = "purple"
                return
            else:
                cannot_place(g, s, tile, True, events)
            continue
        if s.draw_queue:
            cell, who = s.draw_queue.pop(0)
            # Serpent spaces are covered by their Serpent tile yet take Fireflies (Moving Branches)
            if not (s.occ & ~s.serpent_mask) >> cell & 1 and cell not in s.fireflies:
                place_drawn(g, s, cell, who, _draw_rule(g, s), events, s.stage == "final")
            continue
        if s.stage == "serpents":
            _flip_serpents(g, s, events)
            s.stage = "crossings"
        elif s.stage == "crossings":
            if len(s.lantern_queue) > 1:
                s.phase = "lantern-order"
                return
            if s.lantern_queue:
                _resolve_crossing(g, s, s.lantern_queue.pop(0), events)
            else:
                s.stage = "astray"
                s.lake_round_first = True
        elif s.stage == "astray":
            if not s.abandoned:
                _next_round(g, s, events)
                return
            if g.lake is None and not g.opt["basilisk"]:
                if len(s.abandoned) > 1:
                    s.phase = "astray"
                    return
                to_track(g, s, s.abandoned[0], False, events)
            elif any(placeable(g, s, t) for t in s.abandoned):
                s.phase = "astray"
                return
            else:
                cannot_place(g, s, s.abandoned[0], False, events)
        elif s.stage == "final":
            _finish(g, s, events)
            return
        else:
            if s.stage == "journey":
                s.phase = "journey"
            return


def choose_crossing(g: LastLantern, s: State, p: int, events: list[Event]) -> None:
    s.lantern_queue.remove(p)
    _resolve_crossing(g, s, p, events)


def shared_note(g: LastLantern, s: State, events: list[Event]) -> None:
    """A crossing made on a shared space belongs to the player who placed the tile (ll.lantern.shared)."""
    c = g.canopy
    noted: set[tuple[int, int]] = set()
    for tile in s.placed_now:
        pl = s.placed.get(tile)
        if pl is None or pl.abandoned or not pl.mask & c.shared_mask:
            continue
        for k in range(g.n_lanterns):
            for cell in bits(pl.mask & c.yellow[k] & c.shared_mask):
                for q in c.owners_of_lane(cell % c.stride):
                    if q != pl.player and k not in s.crossed[q] and (q, k) not in noted:
                        noted.add((q, k))
                        events.append(
                            Event(
                                "not-crossed",
                                "ll.lantern.shared",
                                {"player": s.players[q], "lantern": k + 1, "placed_by": s.players[pl.player]},
                            )
                        )
