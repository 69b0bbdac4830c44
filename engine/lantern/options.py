"""Engine options: one per designer question whose answer changes what the engine does."""

from __future__ import annotations

from rulepress.protocol import Decision, OptionSpec, option_decisions

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("score_overlap", "better", ("better", "worse"), "ln.q4", ("ln.end.titles",),
               "A score of 5 lies in two bands: 'better' gives Heroic Daredevil, 'worse' Master of Arms."),
    OptionSpec("loss_rule", "possible", ("possible", "certain", "exhausted"), "ln.q5",
               ("ln.end.loss",),
               "When a fight is lost: 'possible' when not even lucky re-rolls could reach the combination; "
               "'certain' as soon as Critical Strike and Counterattack cannot reach it for sure; "
               "'exhausted' only when no Ability or Constitution circle is left."),
    OptionSpec("may_concede", False, (False, True), "ln.q6", ("ln.fight.use", "ln.end.loss"),
               "Whether the adventurer may give up a fight (and the game) while circles remain."),
    OptionSpec("setup_ones_cross", False, (False, True), "ln.q7", ("ln.play.experience", "ln.setup.roll"),
               "Whether 1s in the setup roll cross experience circles too."),
    OptionSpec("setup_rerolls", "once", ("once", "repeat"), "ln.q8", ("ln.setup.reroll",),
               "Whether a weak setup roll may be re-rolled once, or again as long as it stays below the limit."),
    OptionSpec("campfire_row_bonus", False, (False, True), "ln.q10", ("ln.play.campfire", "ln.play.row-bonus"),
               "Whether a row filled by the Campfire's experience earns an Ability circle in its step 3."),
    OptionSpec("six_wild_distinct", False, (False, True), "ln.q11", ("ln.fight.six-wild",),
               "Whether the two triples of the six-wild combination must show different faces."),
    OptionSpec("score_on_loss", False, (False, True), "ln.q12", ("ln.end.score",),
               "Whether a lost adventure is scored (and titled) like a won one."),
    OptionSpec("turned_ones_cross", False, (False, True), "ln.q13", ("ln.play.experience",),
               "Whether a 1 made by Critical Strike or Counterattack (not rolled) crosses an experience circle."),
    OptionSpec("cap_counts", "drawn", ("drawn", "left"), "ln.q14", ("ln.sheet.cap", "ln.play.row-bonus"),
               "Whether the 7-circle cap counts every circle drawn next to an Ability or only those not crossed."),
    OptionSpec("row_bonus", "per_row", ("per_row", "per_zone"), "ln.q15", ("ln.play.row-bonus",),
               "Whether filling two rows in one zone earns two Ability circles or one."),
)

# Every place where the engine decides what the text leaves open, with the question that asks it: each option, and
# the readings applied with no option for another answer (yet).  Where one takes effect in play the engine calls
# decided(state, ID), and `rulepress analyze` counts the games in which it mattered.
DECISIONS: tuple[Decision, ...] = (
    *option_decisions(OPTIONS),
    Decision("experience_overflow", "ln.q9", ("ln.sheet.experience",),
             "A 1 rolled once every experience circle is crossed is lost: it crosses nothing."),
    Decision("reroll_before_assigning", "ln.q17", ("ln.setup.reroll", "ln.setup.assign"),
             "The weak setup roll may be rolled again only before any die is given its job."),
    Decision("row_circle_lost", "ln.q18", ("ln.play.row-bonus", "ln.sheet.cap"),
             "A filled experience row's Ability circle is lost when every Ability already has 7 circles."),
    Decision("constitution_uncapped", "ln.q19", ("ln.play.campfire", "ln.sheet.cap"),
             "The 7-circle cap is the Abilities': the Campfire's Constitution circle is drawn even past 7."),
    Decision("fight_ends_when_met", "ln.q16", ("ln.play.defeat",),
             "The fight ends as soon as the combination shows: no Ability or Constitution is used after it."),
)
