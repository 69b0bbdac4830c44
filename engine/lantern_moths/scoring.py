"""Scoring the moths beside each lantern, and finding the winner through the three tie-breaks."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from rulepress.protocol import decided

from .state import State

if TYPE_CHECKING:
    from .game import LanternMothsGame


class Score(NamedTuple):
    values: int     # printed values, Ghost Moths at their fixed value
    sets: int
    bonus: int      # sets x set bonus
    moths: int
    ghosts: int

    @property
    def points(self) -> int:
        return self.values + self.bonus

    def as_dict(self) -> dict[str, int]:
        return {"points": self.points, "moth_points": self.values, "sets": self.sets, "set_bonus": self.bonus,
                "moths": self.moths, "ghosts": self.ghosts}


def score_cards(game: LanternMothsGame, cards: list[int]) -> Score:
    pieces = game.pieces
    per_colour = [0] * len(pieces.colours)
    values = ghosts = 0
    for card in cards:
        kind = pieces.card_kind[card]
        values += pieces.kind_value[kind]
        if kind == pieces.ghost_kind:
            ghosts += 1
        else:
            per_colour[pieces.kind_colour[kind]] += 1
    size = pieces.set_size
    sets = sum(count // size for count in per_colour)
    if game.opts.ghost_in_sets and ghosts:
        sets += _wild_sets([count % size for count in per_colour], ghosts, size)
    return Score(values, sets, sets * pieces.set_bonus, len(cards), ghosts)


def _wild_sets(leftovers: list[int], ghosts: int, size: int) -> int:
    """Extra sets when Ghost Moths stand in for any colour: complete the nearest sets first."""
    extra = 0
    for left in sorted(leftovers, reverse=True):
        if left == 0:
            break
        need = size - left
        if ghosts < need:
            break
        ghosts -= need
        extra += 1
    return extra + ghosts // size


def final_scores(game: LanternMothsGame, state: State) -> list[Score]:
    scores = [score_cards(game, lantern) for lantern in state.lanterns]
    if any(_ghost_could_complete(game, lantern) for lantern in state.lanterns):
        decided(state, "ghost_in_sets")  # a Ghost Moth standing in for a colour would make another set
    tied = winners(scores)
    if tied[1] != "points":  # the points tie: do Ghost Moths count as moths?
        without = [score._replace(moths=score.moths - score.ghosts) for score in scores]
        if winners(without) != tied:
            decided(state, "ghosts_are_moths")
    return scores


def _ghost_could_complete(game: LanternMothsGame, cards: list[int]) -> bool:
    pieces = game.pieces
    per_colour = [0] * len(pieces.colours)
    ghosts = 0
    for card in cards:
        kind = pieces.card_kind[card]
        if kind == pieces.ghost_kind:
            ghosts += 1
        elif kind != pieces.dusk_kind:
            per_colour[pieces.kind_colour[kind]] += 1
    size = pieces.set_size
    return bool(ghosts) and _wild_sets([count % size for count in per_colour], ghosts, size) > 0


def winners(scores: list[Score]) -> tuple[list[int], str]:
    """The winning seats and what decided it: points, moths, ghosts (fewer wins) or shared."""
    seats = list(range(len(scores)))
    for decided_by, key in (("points", lambda s: scores[s].points), ("moths", lambda s: scores[s].moths),
                            ("ghosts", lambda s: -scores[s].ghosts)):
        best = max(key(s) for s in seats)
        seats = [s for s in seats if key(s) == best]
        if len(seats) == 1:
            return seats, decided_by
    return seats, "shared"
