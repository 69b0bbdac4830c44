"""Familiar abilities: Back on Track, Lighting the Way, Through the Fog and Guiding Hand."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rulepress.protocol import Event, RuleViolation, decided

from .actions import Action
from .fireflies import EERIE, draw_from_bag, eerie_effect, supply_to_bag
from .journey import has_ability_move
from .narrate import a_or_an

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State

TRIO = ("rabbit", "snail", "owl")
ABILITY_NAMES = {
    "back-on-track": "Back on Track",
    "lighting-the-way": "Lighting the Way",
    "through-the-fog": "Through the Fog",
    "guiding-hand": "Guiding Hand",
}


def cost(a: Action) -> tuple[str, ...]:
    return ("wolf", "wolf") if a.do == "guiding-hand" else TRIO


def payers(a: Action) -> tuple[int, ...]:
    """Who gives up each familiar of the cost (the activating player unless familiars are pooled)."""
    return a.payers if a.payers else (a.player,) * len(cost(a))


def check_window(g: LastLantern, s: State, a: Action) -> None:
    """Abilities belong to Journeying: from the reveal until the first Firefly is drawn."""
    what = ABILITY_NAMES[a.do]
    if s.phase in ("lantern-order", "orange", "purple") and s.stage != "journey":
        if not s.drawn:  # choosing who resolves first: the crossings are being checked, no Firefly is out yet
            raise RuleViolation(
                "ll.ability.window",
                f"{what}: abilities are used only while Journeying, which ended when the players began checking "
                "their lantern crossings",
            )
        raise RuleViolation(
            "ll.lantern.no-abilities", f"{what}: abilities may not be used once Fireflies are being drawn"
        )
    if s.phase == "final":
        raise RuleViolation("ll.end.draw", f"{what}: abilities may not be used once the final draw has begun")
    if s.phase == "astray":
        raise RuleViolation(
            "ll.astray.no-abilities", f"{what}: abilities may not be used in the Path Astray phase"
        )
    if s.phase != "journey":
        raise RuleViolation("ll.ability.window", f"{what}: abilities are used only while Journeying")
    if s.blocked:
        raise RuleViolation(
            "ll.challenge.eerie.blue", f"{what}: a blue Firefly forbids abilities this Journeying phase"
        )
    if s.pending_ability is not None:
        raise RuleViolation(
            "ll.ability.fog",
            f"{s.players[s.pending_ability[0]]} must first place the Ability tile {s.pending_ability[1]}",
        )


def check_payment(g: LastLantern, s: State, a: Action) -> None:
    kinds = cost(a)
    who = payers(a)
    if a.payers and not g.opt["pool_familiars"] and set(a.payers) != {a.player}:
        raise RuleViolation("ll.ability.use", f"{s.players[a.player]} must use Familiars of their own")
    if len(who) != len(kinds):
        raise RuleViolation("ll.ability.use", "Name one owner for each Familiar used")
    need = Counter(zip(who, kinds, strict=True))
    for (p, kind), n in need.items():
        if s.familiars[p][kind] < n:
            have = s.familiars[p][kind]
            if a.payers and g.opt["pool_familiars"]:
                msg = f"{s.players[p]} has {have} {kind}{'s' if have != 1 else ''}, not {n}"
            elif kinds == TRIO:
                msg = f"{s.players[a.player]} needs a Rabbit, a Snail and an Owl of their own"
            else:
                msg = f"{s.players[a.player]} needs two Wolves of their own"
            raise RuleViolation("ll.ability.guiding-hand" if kinds != TRIO else "ll.ability.use", msg)


def pay(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    """Using Familiars means putting them back on their locations."""
    for p, kind in zip(payers(a), cost(a), strict=True):
        s.familiars[p][kind] -= 1
        s.location_familiars[kind] += 1
    events.append(
        Event(
            "ability",
            "ll.ability.use",
            {
                "player": s.players[a.player],
                "ability": ABILITY_NAMES[a.do],
                "familiars": [f"{s.players[p]}'s {k}" for p, k in zip(payers(a), cost(a), strict=True)],
            },
        )
    )


# --- Back on Track --------------------------------------------------------------------------------


def removable(g: LastLantern, s: State) -> list[str]:
    """Abandoned tiles Back on Track may send back to the bag now."""
    if g.lake is not None:
        return sorted(s.lake)
    if g.opt["basilisk"]:
        on_board = [t for t, pl in s.placed.items() if pl.abandoned]
        if len(on_board) > 1:
            decided(s, "basilisk_back")  # several abandoned tiles on the Basilisk board: which one goes back?
        if g.opt["basilisk_back"] == "any":
            return sorted(on_board)
        return on_board[-1:]
    return s.track[-1:]


def check_back_on_track(g: LastLantern, s: State, a: Action) -> None:
    check_window(g, s, a)
    if a.tile in s.abandoned:
        raise RuleViolation(
            "ll.ability.back-on-track.this-round",
            f"{a.tile} was abandoned this round: it is not on the track yet",
        )
    allowed = removable(g, s)
    if not allowed:
        raise RuleViolation("ll.ability.back-on-track", "There is no abandoned tile to take back")
    if a.tile not in allowed:
        where = "Frozen Lake" if g.lake is not None else "Path Astray track"
        raise RuleViolation(
            "ll.ability.back-on-track", f"Only {', '.join(allowed)} may be taken back from the {where}"
        )
    check_payment(g, s, a)


def do_back_on_track(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    pay(g, s, a, events)
    if g.lake is not None:
        mask = s.lake.pop(a.tile)
        s.lake_occ &= ~mask
        rule = "ll.challenge.lake.back-on-track"
    elif g.opt["basilisk"]:
        pl = s.placed.pop(a.tile)
        s.occ &= ~pl.mask
        rule = "ll.ability.back-on-track"
    else:
        s.track.pop()
        rule = "ll.ability.back-on-track"
    s.tile_bag.append(a.tile)
    events.append(Event("back-on-track", rule, {"player": s.players[a.player], "tile": a.tile}))


# --- Lighting the Way -----------------------------------------------------------------------------


def check_lighting(g: LastLantern, s: State, a: Action) -> None:
    check_window(g, s, a)
    check_payment(g, s, a)


def do_lighting(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    pay(g, s, a, events)
    drawn: list[str] = []
    for _ in range(min(g.lighting, sum(s.bag.values()))):
        colour = draw_from_bag(s)
        s.supply[colour] = s.supply.get(colour, 0) + 1
        drawn.append(colour)
    added = supply_to_bag(s, "yellow", g.lighting)
    events.append(
        Event(
            "lighting-the-way",
            "ll.ability.lighting",
            {"player": s.players[a.player], "drawn": drawn, "yellow_added": added},
        )
    )
    if len(drawn) < g.lighting or added < g.lighting:
        events.append(
            Event("lighting-short", "ll.ability.lighting.short", {"drawn": len(drawn), "yellow_added": added})
        )
    if any(colour in EERIE for colour in drawn):
        decided(s, "eerie_lighting")  # Lighting the Way drew an orange, blue or purple Firefly
    if g.opt["eerie"] and g.opt["eerie_lighting"]:
        for colour in drawn:
            if colour in EERIE:
                eerie_effect(g, s, colour, events)


# --- Through the Fog ------------------------------------------------------------------------------


def check_through_the_fog(g: LastLantern, s: State, a: Action) -> None:
    check_window(g, s, a)
    if a.tile not in s.ability_supply:
        raise RuleViolation("ll.ability.fog", f"Ability tile {a.tile} is not available")
    if not has_ability_move(g, s, a.other, a.tile):
        raise RuleViolation("ll.ability.fog", f"{s.players[a.other]} could not place Ability tile {a.tile}")
    check_payment(g, s, a)


def do_through_the_fog(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    if not any(pl.player == a.other for pl in s.placed.values()):
        decided(s, "fog_first_at_start")  # to a path with no tile yet: it must touch a start space
    if any(q != a.other and not has_ability_move(g, s, q, a.tile) for q in range(s.n)):
        decided(s, "fog_unplaceable_refused")  # someone could not take it: Through the Fog is not offered them
    pay(g, s, a, events)
    s.ability_supply.remove(a.tile)
    s.pending_ability = (a.other, a.tile)
    events.append(
        Event(
            "through-the-fog",
            "ll.ability.fog",
            {"player": s.players[a.player], "to": s.players[a.other], "tile": a.tile},
        )
    )


# --- Guiding Hand ---------------------------------------------------------------------------------


def check_guiding_hand(g: LastLantern, s: State, a: Action) -> None:
    check_window(g, s, a)
    if s.n != 4:
        raise RuleViolation("ll.ability.guiding-hand", "Guiding Hand is played only with 4 players")
    if a.where not in TRIO:
        raise RuleViolation("ll.ability.guiding-hand", "Guiding Hand gives a Rabbit, a Snail or an Owl")
    if s.location_familiars[a.where]:
        if a.third >= 0:
            raise RuleViolation(
                "ll.ability.guiding-hand.empty",
                f"The {a.where} location still has a Familiar: take it from there",
            )
    else:
        if a.third < 0 or not s.familiars[a.third][a.where]:
            raise RuleViolation(
                "ll.ability.guiding-hand.empty",
                f"No {a.where} is left on its location: name a player who has one",
            )
        if a.third == a.other:
            raise RuleViolation(
                "ll.ability.guiding-hand.empty", f"{s.players[a.other]} already has that {a.where}"
            )
        if a.third == a.player:
            # "from another player": taking one's own Familiar to pass it on would be a gift (no-trade)
            raise RuleViolation(
                "ll.ability.guiding-hand.empty",
                f"{s.players[a.player]} must take the {a.where} from another player, not from themselves",
            )
        if not a.agreed:
            raise RuleViolation(
                "ll.ability.guiding-hand.empty", f"{s.players[a.third]} must agree to give up {a_or_an(a.where)}"
            )
    check_payment(g, s, a)


def do_guiding_hand(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    pay(g, s, a, events)
    if a.third < 0:
        s.location_familiars[a.where] -= 1
        rule = "ll.ability.guiding-hand"
    else:
        decided(s, "guiding_hand_agreed")  # taken from a player, who agreed (without it the Wolves stay)
        s.familiars[a.third][a.where] -= 1
        rule = "ll.ability.guiding-hand.empty"
    s.familiars[a.other][a.where] += 1
    events.append(
        Event(
            "guiding-hand",
            rule,
            {
                "player": s.players[a.player],
                "to": s.players[a.other],
                "familiar": a.where,
                "from": s.players[a.third] if a.third >= 0 else "location",
            },
        )
    )
