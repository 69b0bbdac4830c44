"""Engine options: the six challenges and one option per designer question the engine had to decide."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulepress.protocol import Decision, DescriptionError, OptionSpec, option_decisions, resolve_options

CHALLENGES = ("glow", "blossoms", "eerie", "branches", "lake", "basilisk")

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "glow",
        False,
        (False, True),
        "",
        ("ll.challenge.glow",),
        "Challenge I, Glow-shrooms: Mushroom tiles in the tile bag, abandoned glow-shrooms add black.",
    ),
    OptionSpec(
        "blossoms",
        False,
        (False, True),
        "",
        ("ll.challenge.blossoms",),
        "Challenge II, Blossoms: every player needs three flowers of their type at the end.",
    ),
    OptionSpec(
        "eerie",
        False,
        (False, True),
        "",
        ("ll.challenge.eerie",),
        "Challenge III, Eerie Lights: orange, blue and purple Fireflies in the bag.",
    ),
    OptionSpec(
        "branches",
        False,
        (False, True),
        "",
        ("ll.challenge.branches",),
        "Challenge IV, Moving Branches: Serpent tiles on the paths; six black Fireflies lose.",
    ),
    OptionSpec(
        "lake",
        False,
        (False, True),
        "",
        ("ll.challenge.lake",),
        "Challenge V, Frozen Lake: abandoned tiles go on the Frozen Lake board.",
    ),
    OptionSpec(
        "basilisk",
        False,
        (False, True),
        "",
        ("ll.challenge.basilisk",),
        "Challenge VI, Basilisk: abandoned tiles go on the Basilisk board beyond the goal line.",
    ),
    OptionSpec(
        "lantern_region",
        "start",
        ("start", "previous"),
        "ll.q10",
        ("ll.lantern.draw",),
        "Spaces a lantern draw fills: from the Character token at the start (start) or only those "
        "past the previous lantern (previous).",
    ),
    OptionSpec(
        "multi_lantern",
        "each",
        ("each", "furthest"),
        "ll.q11",
        ("ll.lantern.add", "ll.lantern.first"),
        "A tile crossing two lanterns at once adds a yellow Firefly from each (each) or from the "
        "furthest only (furthest).",
    ),
    OptionSpec(
        "crossing",
        "cover",
        ("cover", "straddle"),
        "ll.q12",
        ("ll.lantern.cross",),
        "A tile crosses a lantern by covering one of its yellow spaces (cover) or only when it also "
        "covers a space just before the line (straddle).",
    ),
    OptionSpec(
        "first_tile",
        "own",
        ("own", "path"),
        "ll.q13",
        ("ll.journey.place.first",),
        "Rule 2 governs the player's own first tile (own) or only a path with no tile on it (path).",
    ),
    OptionSpec(
        "unplaceable",
        "remove",
        ("remove", "abandon"),
        "ll.q14",
        ("ll.journey.place.stuck",),
        "A Tree tile its player cannot place leaves the game (remove) or is abandoned (abandon).",
    ),
    OptionSpec(
        "pool_familiars",
        False,
        (False, True),
        "ll.q15",
        ("ll.ability.use",),
        "The familiars for one ability may come from several players (true) or all from the player "
        "activating it (false).",
    ),
    OptionSpec(
        "flip",
        True,
        (True, False),
        "ll.q16",
        ("ll.journey.place.space",),
        "Tiles may be turned over (mirror images allowed).",
    ),
    OptionSpec(
        "first_abandoned",
        "empty",
        ("empty", "phase"),
        "ll.q18",
        ("ll.challenge.lake.place", "ll.challenge.basilisk.place"),
        "On the Frozen Lake or Basilisk board a tile may go anywhere when the board is empty (empty) "
        "or the first tile of every Path Astray phase may (phase).",
    ),
    OptionSpec(
        "eerie_lighting",
        False,
        (False, True),
        "ll.q19",
        ("ll.challenge.eerie.effect",),
        "Coloured Fireflies drawn by Lighting the Way take effect (true) or not (false).",
    ),
    OptionSpec(
        "glow_boards",
        True,
        (True, False),
        "ll.q20",
        ("ll.challenge.glow.astray",),
        "Glow-shrooms add their black Firefly also on the Frozen Lake and Basilisk boards.",
    ),
    OptionSpec(
        "purple_glow",
        False,
        (False, True),
        "ll.q21",
        ("ll.challenge.eerie.purple",),
        "A tile sent to Path Astray by a purple Firefly adds its glow-shroom black Firefly too.",
    ),
    OptionSpec(
        "serpent_ability",
        False,
        (False, True),
        "ll.q22",
        ("ll.challenge.branches.draw",),
        "Ability tiles beside a Serpent tile draw Fireflies onto it like Tree tiles.",
    ),
    OptionSpec(
        "surrounded",
        "covered",
        ("covered", "fireflies"),
        "ll.q23",
        ("ll.challenge.branches.flip",),
        "A Serpent tile is surrounded when every space beside it is covered (covered) or when every "
        "one of its spaces holds a Firefly (fireflies).",
    ),
    OptionSpec(
        "basilisk_back",
        "last",
        ("last", "any"),
        "ll.q24",
        ("ll.ability.back-on-track",),
        "Back on Track on the Basilisk board removes the last abandoned tile (last) or any (any).",
    ),
    OptionSpec(
        "empty_tile_bag",
        "lose",
        ("lose", "end"),
        "ll.q25",
        ("ll.fog.draw",),
        "With no Tree tile left to draw the game is lost (lose) or ends with the final draw (end).",
    ),
    OptionSpec(
        "ability_reach",
        "through",
        ("through", "shared"),
        "ll.q30",
        ("ll.ability.fog",),
        "An Ability tile may reach through a shared column into the neighbour's path (through) or "
        "stops at the shared column like a Tree tile (shared).",
    ),
)

# Every place where the engine decides what the text leaves open, with the question that asks it: each option that
# answers a question (the challenges are variants, not decisions), and the readings applied with no option for
# another answer (yet).  Where one takes effect in play the engine calls decided(state, ID), and `rulepress analyze`
# counts the games in which it mattered.
DECISIONS: tuple[Decision, ...] = (
    *option_decisions(OPTIONS),
    Decision("shared_flowers", "ll.q40", ("ll.challenge.blossoms.loss",),
             "A flower on a shared grey column counts for both players whose paths share the column."),
    Decision("serpent_draws_this_round", "ll.q41", ("ll.challenge.branches.draw",),
             "Only tiles placed this round draw Fireflies onto the Serpent spaces beside them; earlier tiles "
             "draw nothing."),
    Decision("shared_choice_given", "ll.q17", ("ll.fog.reveal.shared",),
             "Players sharing a location settle who takes the tile and who the Familiar: the engine takes their "
             "choice as given (it offers every way of settling it)."),
    Decision("ability_window_after", "ll.q26", ("ll.ability.window",),
             "Abilities are used only once the tiles and Familiars have been taken, never while a shared choice "
             "is being settled."),
    Decision("astray_order", "ll.q27", ("ll.astray.place", "ll.ability.back-on-track"),
             "Several abandoned tiles go on the Path Astray track in the order the players choose (which decides "
             "the 'last placed' for Back on Track)."),
    Decision("supply_short", "ll.q28", ("ll.astray.icons", "ll.challenge.branches.flip"),
             "When the supply lacks Fireflies of a colour a rule needs, as many as there are are used."),
    Decision("final_draw_stops", "ll.q31", ("ll.end.draw", "ll.lantern.loss"),
             "The final draw stops the moment the black Fireflies on the paths reach the loss: the game is lost "
             "then."),
    Decision("purple_order", "ll.q32", ("ll.challenge.eerie.purple", "ll.challenge.eerie.effect"),
             "Two tiles sent at once by purple Fireflies are placed in the order their Fireflies were drawn."),
    Decision("fog_first_at_start", "ll.q33", ("ll.ability.fog", "ll.journey.place.first"),
             "Through the Fog may give an Ability tile to a player whose path holds no tile yet; like a first "
             "Tree tile it must touch a start space."),
    Decision("fog_unplaceable_refused", "ll.q34", ("ll.ability.fog",),
             "Through the Fog cannot give an Ability tile to a player who could not place it anywhere (the "
             "Familiars are not spent)."),
    Decision("serpent_covered", "ll.q35", ("ll.challenge.branches.setup", "ll.challenge.branches.draw",
                                           "ll.lantern.draw", "ll.end.draw"),
             "A Serpent tile's spaces are covered: no Tree tile goes on them and no lantern or final draw fills "
             "them; only the Serpent rule puts Fireflies there."),
    Decision("victory_with_loss", "ll.q36", ("ll.challenge.branches.loss", "ll.challenge.basilisk.loss",
                                             "ll.end.victory"),
             "Where a challenge moves the loss to 6 black Fireflies, victory moves with it: 5 or fewer at the end "
             "win."),
    Decision("purple_as_abandoned", "ll.q37", ("ll.challenge.eerie.purple", "ll.astray.icons", "ll.astray.loss"),
             "A Tree tile a purple Firefly sends down the Path Astray is treated as abandoned (its space's black "
             "Fireflies go into the bag; as the eighth it loses); with an empty tile bag the Firefly does "
             "nothing."),
    Decision("flowers_on_path", "ll.q38", ("ll.challenge.blossoms.loss",),
             "For Blossoms only flowers on the path's spaces count (shared columns included), not one hanging "
             "past the goal line."),
    Decision("ability_needs_effect", "ll.q39", ("ll.ability.back-on-track", "ll.ability.fog", "ll.ability.use"),
             "An ability that cannot take effect (Back on Track with an empty track, Through the Fog with no "
             "Ability tile left) cannot be activated."),
    Decision("guiding_hand_agreed", "ll.q44", ("ll.ability.guiding-hand.empty", "ll.ability.guiding-hand"),
             "Guiding Hand takes a Familiar from another player only if they agree; if they do not, the ability "
             "cannot be activated that way and the Wolves stay with their owner."),
    Decision("eighth_on_track", "ll.q45", ("ll.astray.loss",),
             "The game is lost when an abandoned tile is placed on the eighth space of the Path Astray track "
             "(the track's length), not when the eighth tile ever abandoned is placed (Back on Track can take "
             "tiles off)."),
    Decision("touch_edge", "ll.q46", ("ll.ability.fog", "ll.challenge.lake.place", "ll.challenge.basilisk.place"),
             "'Adjacent' (to previous tiles: Through the Fog, the Frozen Lake, the Basilisk board) is edge to "
             "edge, as the first tile's 'orthogonally (edge) adjacent'; a corner does not count."),
    Decision("go_without_empty", "ll.q47", ("ll.fog.reveal.empty",),
             "A player whose chosen location has no Familiar left, and who takes none from another player (no "
             "one has one, or no one agrees), goes without."),
    Decision("final_draw_skips_fireflies", "ll.q48", ("ll.end.draw",),
             "The final draw puts a Firefly only on spaces with neither a tile nor a Firefly: a space holding a "
             "Firefly from an earlier lantern draw gets no second one."),
    Decision("track_icon_again", "ll.q42", ("ll.astray.icons", "ll.ability.back-on-track"),
             "A tile landing on a Path Astray space that Back on Track emptied adds that space's black Fireflies "
             "again (those of the tile taken back stay in the bag)."),
)

MIX_RULE = "ll.challenge.mix"


def resolve(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overridden by ``options``; unknown names, values or mixes raise DescriptionError."""
    chosen = resolve_options(OPTIONS, options)
    if chosen["lake"] and chosen["basilisk"]:
        raise DescriptionError(
            "options", f"Frozen Lake and Basilisk cannot be played together (rule {MIX_RULE})", rule=MIX_RULE
        )
    return chosen
