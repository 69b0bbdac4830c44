"""Phase IV, Path Astray: abandoned tiles on the track, the Frozen Lake or the Basilisk board."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from rulepress.protocol import Event, RuleViolation, decided

from .actions import Action
from .fireflies import cover, lose, supply_to_bag
from .placement import anchor_of, basilisk_moves, can_place, first_abandoned, lake_moves
from .state import Placed

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State


def waiting(s: State) -> list[str]:
    """Tiles waiting to be placed now: a purple Firefly's tile first, then the abandoned ones."""
    if s.phase == "purple":
        return s.purple_pending[:1]
    return list(s.abandoned)


def board_moves(g: LastLantern, s: State, tile: str) -> Iterator[tuple[int, int]]:
    return lake_moves(g, s, tile) if g.lake is not None else basilisk_moves(g, s, tile)


def placeable(g: LastLantern, s: State, tile: str) -> bool:
    return can_place(board_moves(g, s, tile))


def _glow(g: LastLantern, s: State, tile: str, purple: bool, on_track: bool, events: list[Event]) -> None:
    spec = g.tiles[tile]
    if not (g.opt["glow"] and spec.glow):
        return
    if purple:
        decided(s, "purple_glow")  # a glow-shroom tile sent by a purple Firefly
    if not on_track:
        decided(s, "glow_boards")  # a glow-shroom tile on the Frozen Lake or the Basilisk board
    if purple and not g.opt["purple_glow"]:
        return
    if not on_track and not g.opt["glow_boards"]:
        return
    added = supply_to_bag(s, "black", g.glow_black)
    events.append(Event("glow-shrooms", "ll.challenge.glow.astray", {"tile": tile, "black": added}))


def to_track(g: LastLantern, s: State, tile: str, purple: bool, events: list[Event]) -> None:
    """Put a tile on the next space of the Path Astray track (the eighth loses)."""
    if s.track_reached > len(s.track):
        decided(s, "eighth_on_track")  # Back on Track emptied a space: tiles ever abandoned outnumber the track's
    if len(s.track) >= len(g.track_icons):
        lose(s, "path-astray", "ll.astray.loss", events, tile=tile)
        return
    if purple:
        decided(s, "purple_as_abandoned")  # a purple Firefly's tile goes down the track like an abandoned one
    _unwait(s, tile, purple)
    s.track.append(tile)
    if len(s.track) <= s.track_reached:
        decided(s, "track_icon_again")  # a space Back on Track emptied: its icon adds its Fireflies again
    s.track_reached = max(s.track_reached, len(s.track))
    icon = g.track_icons[len(s.track) - 1]
    added = supply_to_bag(s, "black", icon)
    events.append(Event("astray", "ll.astray.place", {"tile": tile, "space": len(s.track)}))
    events.append(Event("astray-icon", "ll.astray.icons", {"tile": tile, "black": added}))
    _glow(g, s, tile, purple, True, events)


def _unwait(s: State, tile: str, purple: bool) -> None:
    if purple:
        s.purple_pending.remove(tile)
    else:
        s.abandoned.remove(tile)


def check_astray(g: LastLantern, s: State, a: Action) -> None:
    if s.phase not in ("astray", "purple"):
        raise RuleViolation("ll.astray.place", "Abandoned tiles are placed only in the Path Astray phase")
    tiles = waiting(s)
    if a.tile not in tiles:
        raise RuleViolation(
            "ll.astray.place", f"{a.tile} is not waiting to be placed (waiting: {', '.join(tiles) or 'none'})"
        )
    if g.lake is None and not g.opt["basilisk"]:
        if a.mask:
            raise RuleViolation("ll.astray.place", "Abandoned tiles go on the next space of the track")
        return
    rule = "ll.challenge.lake.place" if g.lake is not None else "ll.challenge.basilisk.place"
    grid = g.lake if g.lake is not None else g.canopy
    lays = (g.pieces.lake_lays if g.lake is not None else g.pieces.canopy_lays)[g.pieces.signature[a.tile]]
    if not 0 <= a.orient < len(lays) or anchor_of(lays[a.orient], a.mask, grid.columns, grid.stride) < 0:
        raise RuleViolation(rule, f"Those spaces are not the shape of tile {a.tile}")
    if g.lake is not None:
        if a.mask & ~g.lake.spaces:
            raise RuleViolation(rule, "The tile must lie on the Frozen Lake's spaces")
        if a.mask & s.lake_occ:
            raise RuleViolation(rule, "The tile would lie on another tile")
        if not first_abandoned(g, s) and not a.mask & g.lake.dilate(s.lake_occ, g.lake.spaces):
            raise RuleViolation(rule, "Later tiles must touch a tile already on the Frozen Lake")
        return
    c = g.canopy
    if a.mask & ~c.board_area or not a.mask & c.beyond_mask:
        raise RuleViolation(rule, "The tile must lie on the Basilisk board (it may reach onto the paths)")
    if a.mask & s.occ:
        raise RuleViolation(rule, "The tile would lie on another tile")
    if not first_abandoned(g, s) and not a.mask & c.dilate(s.occ & c.beyond_mask, c.beyond_mask):
        raise RuleViolation(rule, "Later tiles must touch a tile already on the Basilisk board")


def do_astray(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    purple = s.phase == "purple"
    if len(waiting(s)) > 1:
        decided(s, "astray_order")  # several tiles wait: the players choose which goes first
    if g.lake is None and not g.opt["basilisk"]:
        to_track(g, s, a.tile, purple, events)
        return
    _unwait(s, a.tile, purple)
    decided(s, "touch_edge")  # on the Frozen Lake or the Basilisk board, "adjacent" is edge to edge
    board_held = s.lake_occ if g.lake is not None else any(pl.abandoned for pl in s.placed.values())
    if s.lake_round_first and board_held:
        decided(s, "first_abandoned")  # the phase's first tile, on a board that already holds one
    s.lake_round_first = False
    if g.lake is not None:
        s.lake[a.tile] = a.mask
        s.lake_occ |= a.mask
        icons = sum(n for cell, n in g.lake.icons.items() if a.mask >> cell & 1)
        events.append(
            Event("astray", "ll.challenge.lake.place", {"tile": a.tile, "cells": g.lake.names_of(a.mask)})
        )
        if icons:
            events.append(
                Event(
                    "lake-icons",
                    "ll.challenge.lake.icons",
                    {"tile": a.tile, "black": supply_to_bag(s, "black", icons)},
                )
            )
        _glow(g, s, a.tile, purple, False, events)
        return
    c = g.canopy
    lay = g.pieces.canopy_lays[g.pieces.signature[a.tile]][a.orient]
    anchor = anchor_of(lay, a.mask, c.columns, c.stride)
    s.placed[a.tile] = Placed(a.tile, -1, a.mask, anchor + lay.mark if lay.mark >= 0 else -1, s.round, True)
    s.occ |= a.mask
    events.append(
        Event("astray", "ll.challenge.basilisk.place", {"tile": a.tile, "cells": c.names_of(a.mask)})
    )
    icons = sum(n for cell, n in c.basilisk_icons.items() if a.mask >> cell & 1)
    if icons:
        events.append(
            Event(
                "basilisk-icons",
                "ll.challenge.basilisk.icons",
                {"tile": a.tile, "black": supply_to_bag(s, "black", icons)},
            )
        )
    _glow(g, s, a.tile, purple, False, events)
    if a.mask & c.spaces:
        cover(g, s, a.mask, "ll.challenge.basilisk.place", events, "abandoned tile")
        events.append(Event("game-ends", "ll.challenge.basilisk.end", {"tile": a.tile, "crossed": True}))
        _end_triggered(s, f"the abandoned tile {a.tile} crossed the goal line")
        from .flow import start_final

        start_final(g, s, -1, events)


def cannot_place(g: LastLantern, s: State, tile: str, purple: bool, events: list[Event]) -> None:
    """No space for an abandoned tile: the Frozen Lake loses, the Basilisk ends the game."""
    if g.lake is not None:
        lose(s, "frozen-lake", "ll.challenge.lake.loss", events, tile=tile)
        return
    _unwait(s, tile, purple)
    s.removed.append(tile)
    events.append(Event("game-ends", "ll.challenge.basilisk.end", {"tile": tile, "crossed": False}))
    _end_triggered(s, f"the abandoned tile {tile} could not be placed")
    from .flow import start_final

    start_final(g, s, -1, events)


def _end_triggered(s: State, reason: str) -> None:
    """An abandoned tile ends the game (Basilisk's ends 3 and 4) as a player's tile does: the end is triggered."""
    s.end_triggered = True
    s.end_reasons.append(reason)
