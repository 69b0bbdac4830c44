"""The state as plain data: snapshots for checkpoints and prose, the result, simulation metrics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .sheet import POOLS
from .state import FIGHT, OVER, LanternState

if TYPE_CHECKING:
    from .game import LanternGame


def experience_rows(game: LanternGame, crossed: int) -> dict[str, dict[str, Any]]:
    """Each experience row's circles and how many are crossed (rows fill top to bottom)."""
    rows: dict[str, dict[str, Any]] = {}
    remaining = crossed
    for name, circles in zip(game.sheet.row_names, game.sheet.row_circles, strict=True):
        here = min(circles, remaining)
        remaining -= here
        rows[name] = {"circles": circles, "crossed": here, "full": here == circles}
    return rows


def snapshot(game: LanternGame, state: LanternState) -> dict[str, Any]:
    sheet = game.sheet
    zone = sheet.zone(state.zone) if state.zone else None
    rows = experience_rows(game, state.experience)
    solver = None
    if state.phase == FIGHT and zone is not None and zone.combination is not None:
        solver = game.solver.solve(state.dice, zone.combination, game.budget(state)).as_dict()
    return {
        "phase": state.phase,
        "zone": state.zone,
        "zone_name": zone.name if zone else None,
        "enemy": zone.enemy if zone else None,
        "combination": zone.notation if zone else None,
        "dice": list(state.dice),
        "dice_sum": sum(state.dice),
        "met": bool(zone and state.dice and game.is_met(state.dice, zone.number)),
        "circles": {name: {"drawn": state.drawn[i], "crossed": state.crossed[i], "left": state.left(i)}
                    for i, name in enumerate(POOLS)},
        "crossed_total": sum(state.crossed),
        "experience": {"crossed": state.experience, "total": sheet.experience_total, "rows": rows,
                       "rows_filled": sum(1 for r in rows.values() if r["full"]), "overflow": state.overflow},
        "campfire": {"circles": state.campfire, "used": state.campfire_used},
        "zones_cleared": state.zones_cleared,
        "bonus": {"earned": state.earned, "taken": state.taken, "pending": state.earned - state.taken},
        "setup": {"rolled": list(state.setup_roll), "sum": sum(state.setup_roll),
                  "rerolls": state.setup_rerolls, "assigned": dict(state.assigned),
                  "unassigned": list(state.dice) if state.phase == "setup" else []},
        "over": state.phase == OVER,
        "outcome": state.outcome,
        "end_reason": state.end_reason or None,
        "score": game.score(state),
        "title": game.title(state),
        "solver": solver,
    }


def result(game: LanternGame, state: LanternState) -> dict[str, Any]:
    return {
        "over": state.phase == OVER,
        "outcome": state.outcome,
        "won": state.outcome == "won",
        "reason": state.end_reason or None,
        "zone": state.zone,
        "score": game.score(state),
        "title": game.title(state),
    }


def metrics(game: LanternGame, state: LanternState) -> dict[str, float | int | str | bool]:
    score = game.score(state)
    return {
        "won": state.outcome == "won",
        "end_reason": state.end_reason or "unfinished",
        "zone_reached": state.zone,
        "zones_cleared": state.zones_cleared,
        "score": -1 if score is None else score,
        "circles_crossed": sum(state.crossed),
        "experience": state.experience,
        "rows_filled": sum(1 for end in game.sheet.row_ends if state.experience >= end),
        "bonuses": state.bonuses,
        "actions": state.actions,
        "rolls": state.rolls,
        "ones": state.ones,
        "setup_rerolls": state.setup_rerolls,
    }
