"""The state as plain data (checkpoints, prose, diagrams), the outcome, and simulation metrics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .scoring import final_scores, winners
from .state import OVER, PHASE_NAMES, UNKNOWN_TILE, State

if TYPE_CHECKING:
    from .game import LanternMothsGame


def _names(game: LanternMothsGame, cards: list[int]) -> list[str]:
    pieces = game.pieces
    return sorted(pieces.kind_names[pieces.card_kind[c]] for c in cards)


def _pile(game: LanternMothsGame, cards: list[int]) -> dict[str, Any]:
    pieces = game.pieces
    top_first = [pieces.kind_names[pieces.card_kind[c]] for c in reversed(cards)]
    return {"count": len(cards), "top": top_first[0] if top_first else None, "cards": top_first}


def snapshot(game: LanternMothsGame, state: State) -> dict[str, Any]:
    pieces = game.pieces
    players = state.players
    garden: dict[str, Any] = {}
    for cell, place in enumerate(pieces.cell_names):
        moths = state.moths[cell]
        tile = state.tile_at[cell]
        garden[place] = {
            "tile": None if tile == UNKNOWN_TILE else pieces.tile_names[tile],
            "face": "up" if state.face_up[cell] else "down",
            "moths": [pieces.kind_names[pieces.card_kind[c]] for c in moths],
            "count": len(moths),
            "full": len(moths) >= pieces.tile_limit,
            "wicks": [players[s] for s in state.wicks[cell]],
            "blocked": state.ghost_block[cell],
        }
    wick_places: dict[int, list[str]] = {s: [] for s in range(len(players))}
    for cell, owners in enumerate(state.wicks):
        for owner in owners:
            wick_places[owner].append(pieces.cell_names[cell])
    scores = final_scores(game, state)
    over = state.phase == OVER
    won, decided_by = winners(scores) if over else ([], None)
    return {
        "round": state.round,
        "start_player": players[state.start],
        "current": None if over else players[state.current],
        "phase": PHASE_NAMES[state.phase],
        "taken": list(state.taken),
        "actions_left": 0 if over else pieces.actions_per_turn - state.actions_taken,
        "lit_this_turn": state.lit,
        "garden": garden,
        "face_up": [pieces.cell_names[c] for c in range(len(pieces.cell_names)) if state.face_up[c]],
        "hands": {name: _names(game, state.hands[s]) for s, name in enumerate(players)},
        "hand_sizes": {name: len(state.hands[s]) for s, name in enumerate(players)},
        "deck": _pile(game, state.deck),
        "discard": _pile(game, state.discard),
        "lanterns": {name: _names(game, state.lanterns[s]) for s, name in enumerate(players)},
        "wicks": {name: {"lit": len(wick_places[s]), "unlit": state.unlit[s], "tiles": wick_places[s]}
                  for s, name in enumerate(players)},
        "dusk": {"out": len(state.dusk_row), "set_aside": len(state.set_aside),
                 "in_deck": sum(1 for c in state.deck if pieces.card_kind[c] == pieces.dusk_kind),
                 "shuffled": state.dusk_shuffled},
        "night_ending": state.ending,
        "last_round": state.last_round if state.ending else None,
        "over": over,
        "scores": {name: scores[s].as_dict() for s, name in enumerate(players)},
        "winners": [players[s] for s in won],
        "decided_by": decided_by,
        "box": len(state.box),
    }


def result(game: LanternMothsGame, state: State) -> dict[str, Any]:
    scores = final_scores(game, state)
    over = state.phase == OVER
    won, decided_by = winners(scores) if over else ([], None)
    return {
        "over": over,
        "end_reason": state.ending,
        "rounds": state.round,
        "scores": {name: scores[s].as_dict() for s, name in enumerate(state.players)},
        "winners": [state.players[s] for s in won],
        "decided_by": decided_by,
    }


def metrics(game: LanternMothsGame, state: State) -> dict[str, float | int | str | bool]:
    scores = final_scores(game, state)
    points = sorted((s.points for s in scores), reverse=True)
    won, decided_by = winners(scores)
    found: dict[str, float | int | str | bool] = {
        "players": len(state.players),
        "over": state.phase == OVER,
        "rounds": state.round,
        "actions": state.action_count,
        "end_reason": state.ending or "none",
        "decided_by": decided_by,
        "shared_win": len(won) > 1,
        "first_player_won": 0 in won,
        "top_score": points[0],
        "margin": points[0] - points[1] if len(points) > 1 else points[0],
        "mean_score": sum(points) / len(points),
        "moths_captured": sum(s.moths for s in scores),
        "ghosts_captured": sum(s.ghosts for s in scores),
        "sets": sum(s.sets for s in scores),
        "moths_left_on_tiles": sum(len(m) for m in state.moths),
        "face_down_left": state.face_up.count(False),
        "deck_left": len(state.deck),
        "dusk_out": len(state.dusk_row),
    }
    for seat, score in enumerate(scores):
        found[f"score_seat{seat + 1}"] = score.points
    return found
