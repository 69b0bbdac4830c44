"""Setup, one labelled step per setup rule (rule IDs as literals so the text and the code stay tied)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from rulepress.protocol import Chance, Event, decided

from .state import LOCATIONS, State

if TYPE_CHECKING:
    from .game import LastLantern


def _board(g: LastLantern, s: State) -> None:
    # the cover board for this player count is the Canopy geometry the game was built with
    s.occ = 0


def _familiars(g: LastLantern, s: State) -> None:
    per_kind = int(g.components["familiars"]["per_kind"])
    s.location_familiars = {k: per_kind if k in g.locations else 0 for k in LOCATIONS}
    s.familiars = [{k: 0 for k in LOCATIONS} for _ in s.players]


def _lanterns(g: LastLantern, s: State) -> None:
    per_player = int(g.components["lanterns"]["per_player"])
    s.lantern_fireflies = [per_player * s.n] * g.n_lanterns


def _characters(g: LastLantern, s: State) -> None:
    s.hands = [[] for _ in s.players]
    s.crossed = [set() for _ in s.players]
    s.crossed_now = [set() for _ in s.players]
    s.started = [False] * s.n
    s.choices = [None] * s.n
    s.flower = [g.flower_types[p] for p in range(s.n)]


def _first_familiars(g: LastLantern, s: State) -> None:
    for p in range(s.n):
        kind = LOCATIONS[p]  # top path Rabbit, then Snail, Owl, Wolf
        s.location_familiars[kind] -= 1
        s.familiars[p][kind] += 1


def _tile_bag(g: LastLantern, s: State) -> None:
    s.tile_bag = list(g.tree_only_ids)


def _firefly_bag(g: LastLantern, s: State) -> None:
    ff = g.components["fireflies"]
    s.bag = {"black": int(ff["bag_black"]), "yellow": int(ff["bag_yellow"])}
    s.supply = {
        "black": int(ff["black"]) - s.bag["black"],
        "yellow": int(ff["yellow"]) - s.bag["yellow"] - sum(s.lantern_fireflies),
    }


def _ability_tiles(g: LastLantern, s: State) -> None:
    s.ability_supply = list(g.ability_ids)


def _glow(g: LastLantern, s: State) -> None:
    if g.opt["glow"]:
        s.tile_bag.extend(t for t in g.tree_ids if g.tiles[t].kind == "mushroom")


def _eerie(g: LastLantern, s: State) -> None:
    if g.opt["eerie"]:
        for colour in ("orange", "blue", "purple"):
            s.bag[colour] = int(g.components["challenges"]["eerie"][colour])
            s.supply[colour] = 0


def _branches(g: LastLantern, s: State) -> None:
    if not g.opt["branches"]:
        return
    decided(s, "serpent_covered")  # Serpent spaces take no tile and no lantern or final draw
    pool = sorted(g.serpent_reward)
    for icon in g.canopy.serpent_icons:
        tile: str = s.chance.draw_from(pool, "Serpent tile")
        pool.remove(tile)
        s.serpents.append(tile)
        s.serpent_flipped.append(False)
        s.serpent_mask |= icon
    s.occ |= s.serpent_mask


def _lake(g: LastLantern, s: State) -> None:
    # the Frozen Lake board (g.lake) starts empty beside the Canopy
    s.lake = {}
    s.lake_occ = 0


def _basilisk(g: LastLantern, s: State) -> None:
    # the Basilisk board lies past the goal line: its spaces are the Canopy's rows beyond it (g.canopy)
    s.removed = []


STEPS: tuple[tuple[str, Callable[[LastLantern, State], None]], ...] = (
    ("ll.setup.board", _board),
    ("ll.setup.familiars", _familiars),
    ("ll.setup.lanterns", _lanterns),
    ("ll.setup.characters", _characters),
    ("ll.setup.first-familiars", _first_familiars),
    ("ll.setup.tile-bag", _tile_bag),
    ("ll.setup.firefly-bag", _firefly_bag),
    ("ll.setup.ability-tiles", _ability_tiles),
    ("ll.challenge.glow.setup", _glow),
    ("ll.challenge.eerie.setup", _eerie),
    ("ll.challenge.branches.setup", _branches),
    ("ll.challenge.lake.setup", _lake),
    ("ll.challenge.basilisk.setup", _basilisk),
)


def setup(g: LastLantern, players: Sequence[str], chance: Chance) -> State:
    s = State(chance)  # with any forced outcomes of an example's start.chance (Moving Branches' Serpent tiles)
    s.players = tuple(players)
    s.n = len(players)
    for rule, step in g.setup_steps:
        step(g, s)
        s.pending_events.append(Event("setup", rule, _summary(g, s, rule)))
    return s


def active_steps(opt: Mapping[str, object]) -> tuple[tuple[str, Callable[[LastLantern, State], None]], ...]:
    """The setup steps of these options, in order: the challenges' only when they are played."""
    return tuple((rule, step) for rule, step in STEPS
                 if not (rule.startswith("ll.challenge.") and not opt[CHALLENGE_OF[rule]]))


CHALLENGE_OF = {
    "ll.challenge.glow.setup": "glow",
    "ll.challenge.eerie.setup": "eerie",
    "ll.challenge.branches.setup": "branches",
    "ll.challenge.lake.setup": "lake",
    "ll.challenge.basilisk.setup": "basilisk",
}


def _summary(g: LastLantern, s: State, rule: str) -> dict[str, object]:
    """What a setup step left on the table, for the setup event."""
    if rule == "ll.setup.familiars":
        return {"locations": dict(s.location_familiars)}
    if rule == "ll.setup.lanterns":
        return {"lanterns": list(s.lantern_fireflies)}
    if rule == "ll.setup.first-familiars":
        return {"familiars": {s.players[p]: LOCATIONS[p] for p in range(s.n)}}
    if rule in ("ll.setup.tile-bag", "ll.challenge.glow.setup"):
        return {"tiles": len(s.tile_bag)}
    if rule in ("ll.setup.firefly-bag", "ll.challenge.eerie.setup"):
        return {"bag": dict(s.bag)}
    if rule == "ll.setup.ability-tiles":
        return {"ability_tiles": len(s.ability_supply)}
    if rule == "ll.challenge.branches.setup":
        return {
            "serpents": {
                g.canopy.names_of(icon)[0]: tile
                for icon, tile in zip(g.canopy.serpent_icons, s.serpents, strict=True)
            }
        }
    if rule == "ll.setup.characters":
        return {"paths": dict(zip(s.players, g.path_names, strict=True))}
    return {}
