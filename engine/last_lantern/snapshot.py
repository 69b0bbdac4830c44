"""The state as plain data for checkpoints and prose (layout documented in README.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .flow import flowers
from .state import COLOURS, LOCATIONS

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State


def _colours(counts: dict[str, int]) -> dict[str, int]:
    return {c: counts.get(c, 0) for c in COLOURS if c in counts}


def waiting_for(g: LastLantern, s: State) -> str:
    if s.over:
        return "nobody: the game is over"
    phase = s.phase
    if phase == "draw":
        return "the draw"
    if phase == "choose":
        return "choices from " + ", ".join(s.players[p] for p in range(s.n) if s.choices[p] is None)
    if phase == "resolve":
        return "a decision at the " + ", ".join(s.to_resolve)
    if phase == "familiar":
        return f"{s.players[s.takes_familiar[0][0]]} (a {s.takes_familiar[0][1]} from another player?)"
    if phase == "journey":
        if s.pending_ability is not None:
            return f"{s.players[s.pending_ability[0]]} to place {s.pending_ability[1]}"
        holders = [s.players[p] for p in range(s.n) if s.hands[p]]
        return ("tiles from " + ", ".join(holders)) if holders else "abilities, or the end of Journeying"
    if phase == "lantern-order":
        return "which crossing to resolve first: " + ", ".join(s.players[p] for p in s.lantern_queue)
    if phase == "orange":
        return "Familiars returned by " + ", ".join(s.players[p] for p in s.orange_pending)
    if phase == "purple":
        return f"a place for {s.purple_pending[0]}"
    if phase == "astray":
        return "abandoned tiles: " + ", ".join(s.abandoned)
    return phase


def snapshot(g: LastLantern, s: State) -> dict[str, Any]:
    c = g.canopy
    area = c.spaces | (c.beyond_mask if g.opt["basilisk"] else 0)
    taken = s.occ  # a tile or a Firefly on it (fireflies.empty_spaces), found once for every count below
    for cell in s.fireflies:
        taken |= 1 << cell

    def empty(mask: int) -> int:
        return (mask & ~taken).bit_count()

    placed_by: dict[int, list[str]] = {}
    for t, pl in s.placed.items():
        placed_by.setdefault(pl.player, []).append(t)
    players: dict[str, Any] = {}
    for p, name in enumerate(s.players):
        players[name] = {
            "path": [c.names[lane] for lane in c.path_lanes[p]],
            "hand": list(s.hands[p]),
            "familiars": dict(s.familiars[p]),
            "lanterns": sorted(k + 1 for k in s.crossed[p]),
            "flower": s.flower[p],
            "flowers": flowers(g, s, p),
            "empty": empty(c.path_mask[p]),
            # empty spaces between each lantern and the start (what crossing it would draw)
            "behind": [empty(c.path_mask[p] & rows) for rows in c.before_rows],
            "tiles": sorted(placed_by.get(p, ())),
        }
        if s.choices and s.choices[p] is not None:  # hidden from the others until the reveal (observer.py)
            players[name]["choice"] = s.choices[p]
    result = s.result or {}
    snap: dict[str, Any] = {
        "round": s.round,
        "phase": s.phase,
        "over": s.over,
        "won": result.get("won") if s.over else None,
        "reason": result.get("reason") if s.over else None,
        "waiting": waiting_for(g, s),
        "black": s.board_black,
        "fireflies_on_board": len(s.fireflies),
        "empty_spaces": empty(area),
        "bag": _colours(s.bag),
        "bag_total": sum(s.bag.values()),
        "supply": _colours(s.supply),
        "lanterns": list(s.lantern_fireflies),
        "players": players,
        "locations": {
            loc: {"tile": s.location_tile.get(loc), "familiars": s.location_familiars[loc]}
            for loc in LOCATIONS
            if loc in g.locations
        },
        "chosen": [s.players[p] for p in range(s.n) if s.choices and s.choices[p] is not None],
        "abandoned": list(s.abandoned),
        "track": list(s.track),
        "track_free": len(g.track_icons) - len(s.track),
        "tiles": {
            t: {"by": s.players[pl.player] if pl.player >= 0 else "abandoned", "cells": c.names_of(pl.mask)}
            for t, pl in s.placed.items()
        },
        "spaces": {c.name(cell): colour for cell, colour in sorted(s.fireflies.items())},
        "ability_tiles": list(s.ability_supply),
        "tile_bag": len(s.tile_bag),
        "removed": list(s.removed),
        "blocked": s.blocked,
        "end_triggered": s.end_triggered,
        "draws": s.draws_made,
        "drawn": {(s.players[p] if p >= 0 else "players"): n for p, n in sorted(s.drawn.items())},
        "drawn_colours": dict(s.drawn_colours),
    }
    if g.opt["branches"]:
        snap["serpents"] = [
            {"tile": s.serpents[i], "cells": c.names_of(icon), "flipped": s.serpent_flipped[i]}
            for i, icon in enumerate(c.serpent_icons)
        ]
    if g.lake is not None:
        snap["lake"] = {t: g.lake.names_of(m) for t, m in s.lake.items()}
        snap["lake_free"] = (g.lake.spaces & ~s.lake_occ).bit_count()
    if g.opt["basilisk"]:
        snap["basilisk"] = {t: c.names_of(pl.mask) for t, pl in s.placed.items() if pl.abandoned}
        snap["basilisk_empty"] = empty(c.beyond_mask)
    if s.pending_ability is not None:
        snap["pending_ability"] = {"player": s.players[s.pending_ability[0]], "tile": s.pending_ability[1]}
    return snap
