"""Engine options: one per designer question the engine had to answer (rules_src/.../questions.yaml).

Each default is the answer the v4 text (or, where the text is silent, this book) assumes; every other
choice implements another answer so that the question's impact can be replayed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rulepress.protocol import Decision, OptionSpec, option_decisions


def _question(number: int) -> str:
    # Built rather than written out: traceability reads every "lm.<word>" literal as a rule ID.
    return "lm" + f".q{number}"


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("flip_adjacency", "orthogonal", ("orthogonal", "diagonal"), _question(1),
               ("lm.turn.flip",),
               "Which face-down tiles may be flipped: those sharing a side with a face-up tile, or also "
               "those touching one at a corner."),
    OptionSpec("dusk_in_refill", True, (True, False), _question(2), ("lm.night.dusk", "lm.round.refill"),
               "A Dusk card met in the end-of-round draw is laid and replaced (True) or shuffled back into "
               "the deck and replaced, so that only the Draw action lays Dusk cards (False)."),
    OptionSpec("refill_night_end", "this_round", ("this_round", "next_round"), _question(3),
               ("lm.night.fourth", "lm.night.deck-out", "lm.round.refill"),
               "When the night's end begins during the end-of-round draw, the game ends with this round "
               "or after one more round."),
    OptionSpec("ghost_on_full_tile", False, (False, True), _question(4),
               ("lm.edge.ghost-limit", "lm.turn.plant.full"),
               "Whether a Ghost Moth may be planted on a full tile."),
    OptionSpec("ghost_in_sets", False, (False, True), _question(5), ("lm.scoring.sets",),
               "Whether a Ghost Moth may stand in for any colour when counting sets."),
    OptionSpec("fourth_dusk_replacement", True, (True, False), _question(6), ("lm.night.fourth",),
               "Whether the player who lays the fourth Dusk card still draws a card in its place."),
    OptionSpec("discard_source", "none", ("none", "hand_limit"), _question(11),
               ("lm.turn.draw.discard",),
               "Where the discard pile's cards come from: nowhere in v4 (none), or from a hand limit: a "
               "player ending their turn with more cards than the hand size discards down to it."),
    OptionSpec("pass_rule", "when_stuck", ("when_stuck", "always"), _question(12), ("lm.turn.stuck",),
               "A player may pass only when no action is possible, or at any time."),
    OptionSpec("ghost_block", "planted_round", ("planted_round", "while_on_tile"), _question(13),
               ("lm.turn.plant.ghost", "lm.round.keep"),
               "A Ghost Moth blocks the wicks on its tile in the round it was planted only, or in every "
               "round it stays on the tile."),
    OptionSpec("refill_order", "player_by_player", ("player_by_player", "card_by_card"), _question(14),
               ("lm.round.refill",),
               "The end-of-round draw: each player in turn draws all their cards, or the players take one "
               "card each in turn until all hold enough."),
    OptionSpec("deck_out", "last_card", ("last_card", "failed_draw"), _question(15),
               ("lm.night.deck-out",),
               "The deck has run out when its last card is drawn, or only when someone must draw from it "
               "and cannot."),
    OptionSpec("grey_tile", "shuffled", ("shuffled", "middle"), _question(16), ("lm.setup.garden",),
               "The grey tile is shuffled with the others at setup, or always placed face up in the middle."),
)

SPECS: dict[str, OptionSpec] = {spec.name: spec for spec in OPTIONS}

# Every place where the engine decides what the text leaves open, with the question that asks it: each option, and
# the readings applied with no option for another answer (yet).  Where one takes effect in play the engine calls
# decided(state, ID), and `rulepress analyze` counts the games in which it mattered.
DECISIONS: tuple[Decision, ...] = (
    *option_decisions(OPTIONS),
    Decision("spare_wicks", _question(17), ("lm.components.wicks", "lm.turn.light", "lm.round.wicks"),
             "The rules stay as written: with one Light a turn and wicks back each round, a player's second and "
             "third wicks are spares."),
    Decision("deck_out_kept", _question(18), ("lm.night.deck-out",),
             "The deck running out before the fourth Dusk card ends the night, as a safeguard, even if this "
             "edition's deck rarely or never runs out first."),
    Decision("draw_when_deck_empty", _question(22), ("lm.turn.draw",),
             "With the deck empty a player may draw only from the discard pile, and cannot Draw when both are "
             "empty."),
    Decision("dusk_on_empty_deck", _question(19), ("lm.night.dusk", "lm.turn.draw"),
             "A player who must draw again after laying a Dusk card that was the deck's last card gets nothing."),
    Decision("ghosts_are_moths", _question(20), ("lm.scoring.tie-moths",),
             "Ghost Moths count as moths in the first tie-break (of the tied players, the one with more moths "
             "wins)."),
    Decision("remembered", _question(23), ("lm.turn.draw", "lm.round.capture", "lm.turn.draw.discard"),
             "What was shown to everyone stays known to every player (a seat's view and information state): a card "
             "taken from the discard pile, in its taker's hand until a card of its kind leaves it; the moths a wick "
             "captured from a face-up tile, face down in its keeper's lantern; a card discarded, in its place under "
             "the pile's top card, which nobody searches."),
)


@dataclass(frozen=True)
class Options:
    flip_adjacency: str = "orthogonal"
    dusk_in_refill: bool = True
    refill_night_end: str = "this_round"
    ghost_on_full_tile: bool = False
    ghost_in_sets: bool = False
    fourth_dusk_replacement: bool = True
    discard_source: str = "none"
    pass_rule: str = "when_stuck"
    ghost_block: str = "planted_round"
    refill_order: str = "player_by_player"
    deck_out: str = "last_card"
    grey_tile: str = "shuffled"

    def as_dict(self) -> dict[str, Any]:
        return {spec.name: getattr(self, spec.name) for spec in OPTIONS}

