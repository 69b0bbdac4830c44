"""Phase II, Journeying: placing Tree (and Ability) tiles and ending the window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulepress.protocol import Event, RuleViolation, decided

from .actions import Action
from .fireflies import cover, supply_to_bag
from .flow import start_final, start_lanterns  # flow imports neither fog nor journey
from .placement import ability_moves, anchor_of, can_place, check_tree, tree_moves
from .state import Placed

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State


def _in_journey(s: State, rule: str, what: str) -> None:
    if s.phase != "journey":
        raise RuleViolation(rule, f"{what} only while Journeying")


def check_place(g: LastLantern, s: State, a: Action) -> None:
    _in_journey(s, "ll.journey.place", "Tiles are placed")
    name = s.players[a.player]
    if s.pending_ability is not None:
        who, tile = s.pending_ability
        if a.tile != tile or a.player != who:
            raise RuleViolation("ll.ability.fog", f"{s.players[who]} places the Ability tile {tile} first")
        ability = True
    else:
        if a.tile not in s.hands[a.player]:
            raise RuleViolation("ll.journey.place", f"{name} has no tile {a.tile} to place")
        ability = False
    lays = g.pieces.lays(a.tile)
    if (
        not 0 <= a.orient < len(lays)
        or anchor_of(lays[a.orient], a.mask, g.canopy.columns, g.canopy.stride) < 0
    ):
        raise RuleViolation("ll.journey.place.space", f"Those spaces are not the shape of tile {a.tile}")
    check_tree(g, s, a.player, a.mask, ability)


def do_place(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    c = g.canopy
    p = a.player
    name = s.players[p]
    ability = s.pending_ability is not None
    if ability:
        s.pending_ability = None
    else:
        s.hands[p].remove(a.tile)
        if not s.started[p] and s.tilecov & c.path_mask[p]:
            decided(s, "first_tile")  # a first own tile on a path a neighbour's tile already reaches
    pieces = g.pieces
    sig = pieces.signature[a.tile]
    lay = pieces.canopy_lays[sig][a.orient]
    if pieces.orient[sig][a.orient].flipped:
        decided(s, "flip")  # laid as its mirror image
    anchor = anchor_of(lay, a.mask, c.columns, c.stride)
    mark = anchor + lay.mark if lay.mark >= 0 else -1
    s.placed[a.tile] = Placed(a.tile, p, a.mask, mark, s.round, False)
    s.occ |= a.mask
    s.tilecov |= a.mask
    s.started[p] = True
    s.placed_now.append(a.tile)
    events.append(
        Event(
            "placed",
            "ll.ability.fog" if ability else "ll.journey.place",
            {"player": name, "tile": a.tile, "cells": c.names_of(a.mask)},
        )
    )
    if a.mask & c.shared_mask:
        events.append(
            Event(
                "shared-column",
                "ll.journey.place.shared",
                {"player": name, "tile": a.tile, "cells": c.names_of(a.mask & c.shared_mask)},
            )
        )
    if a.mask & c.off_path[p]:
        decided(s, "ability_reach")  # an Ability tile reaching past the shared column
        events.append(
            Event(
                "reaches-through",
                "ll.ability.fog",
                {"player": name, "tile": a.tile, "cells": c.names_of(a.mask & ~c.path_mask[p])},
            )
        )
    cover(g, s, a.mask, "ll.ability.fog.fireflies" if ability else "ll.journey.place.fireflies", events, name)
    _note_lanterns(g, s, p, a.mask, events)
    if a.mask & c.beyond_mask:
        _crosses_goal(g, s, p, a.tile, a.mask, events)


def crosses(g: LastLantern, p: int, mask: int, k: int) -> bool:
    c = g.canopy
    if not mask & c.yellow[k] & c.path_mask[p]:
        return False
    return g.opt["crossing"] == "cover" or bool(mask & c.before_yellow[k] & c.path_mask[p])


def _note_lanterns(g: LastLantern, s: State, p: int, mask: int, events: list[Event]) -> None:
    """Remember first crossings for the Lanterns phase (checked there, after Journeying)."""
    c = g.canopy
    path = c.path_mask[p]
    if not mask & c.any_yellow & path:
        return  # on no lantern's yellow spaces: nothing below can happen
    for k, yellow in enumerate(c.yellow):
        if not mask & yellow & path:  # crosses()'s first test, inlined
            continue
        if not mask & c.before_yellow[k] & path:
            decided(s, "crossing")  # onto the yellow spaces without the space before the line
        if not crosses(g, p, mask, k):
            continue
        if k in s.crossed[p]:
            if k not in s.crossed_now[p]:
                events.append(
                    Event("lantern-again", "ll.lantern.first", {"player": s.players[p], "lantern": k + 1})
                )
            continue
        s.crossed[p].add(k)
        s.crossed_now[p].add(k)


def _crosses_goal(g: LastLantern, s: State, p: int, tile: str, mask: int, events: list[Event]) -> None:
    c = g.canopy
    first = not s.end_triggered
    if first:
        s.draw_owner = p
    s.end_triggered = True
    s.end_reasons.append(f"{s.players[p]} crossed the goal line")
    events.append(Event("goal", "ll.end.trigger", {"player": s.players[p], "tile": tile, "first": first}))
    if g.opt["basilisk"]:
        icons = sum(n for cell, n in c.basilisk_icons.items() if mask >> cell & 1)
        if icons:
            added = supply_to_bag(s, "black", icons)
            events.append(
                Event(
                    "basilisk-icons",
                    "ll.challenge.basilisk.icons",
                    {"player": s.players[p], "tile": tile, "black": added},
                )
            )


def check_cannot_place(g: LastLantern, s: State, a: Action) -> None:
    _in_journey(s, "ll.journey.place.stuck", "A tile is given up")
    if a.tile not in s.hands[a.player]:
        raise RuleViolation("ll.journey.place.stuck", f"{s.players[a.player]} holds no tile {a.tile}")
    if can_place(tree_moves(g, s, a.player, a.tile)):
        raise RuleViolation(
            "ll.journey.place.stuck", f"Tile {a.tile} can still be placed on {s.players[a.player]}'s path"
        )


def do_cannot_place(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    s.hands[a.player].remove(a.tile)
    if not g.opt["basilisk"]:
        decided(s, "unplaceable")
    name = s.players[a.player]
    if g.opt["basilisk"]:
        s.removed.append(a.tile)
        events.append(Event("tile-removed", "ll.challenge.basilisk.end", {"player": name, "tile": a.tile}))
        if not s.end_triggered:
            s.draw_owner = a.player
            events.append(Event("game-ends", "ll.challenge.basilisk.end", {"player": name}))
        s.end_triggered = True
        s.end_reasons.append(f"{name} could not place a tile")
    elif g.opt["unplaceable"] == "remove":
        s.removed.append(a.tile)
        events.append(Event("tile-removed", "ll.journey.place.stuck", {"player": name, "tile": a.tile}))
    else:
        s.abandoned.append(a.tile)
        events.append(Event("abandoned", "ll.journey.place.stuck", {"player": name, "tile": a.tile}))


def check_done(g: LastLantern, s: State, a: Action) -> None:
    _in_journey(s, "ll.journey.end", "Journeying ends")
    if s.pending_ability is not None:
        raise RuleViolation(
            "ll.ability.fog",
            f"{s.players[s.pending_ability[0]]} must first place the Ability tile {s.pending_ability[1]}",
        )
    waiting = [s.players[p] for p in range(s.n) if s.hands[p]]
    if waiting:
        raise RuleViolation("ll.journey.place", f"{' and '.join(waiting)} must still place a tile")


def do_done(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    events.append(Event("journey-ends", "ll.journey.end", {}))
    if s.end_triggered:
        events.append(Event("no-lanterns", "ll.end.finish", {}))
        start_final(g, s, s.draw_owner, events)
    else:
        start_lanterns(g, s, events)


def has_ability_move(g: LastLantern, s: State, p: int, tile: str) -> bool:
    return can_place(ability_moves(g, s, p, tile))
