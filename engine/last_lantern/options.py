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
