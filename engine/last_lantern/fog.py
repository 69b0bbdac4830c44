"""Phase I, Voices in the Fog: drawing tiles, hidden choices, the reveal and its decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulepress.protocol import Event, RuleViolation, decided

from .actions import Action
from .fireflies import lose
from .flow import start_final, start_journey  # flow imports neither fog nor journey
from .narrate import a_or_an

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State


def _phase(s: State, wanted: str, rule: str, what: str) -> None:
    if s.phase != wanted:
        raise RuleViolation(
            rule,
            f"{what} only during {PHASE_NAMES.get(wanted, wanted)} "
            f"(now: {PHASE_NAMES.get(s.phase, s.phase)})",
        )


PHASE_NAMES = {
    "draw": "the draw of Voices in the Fog",
    "choose": "the hidden choice",
    "resolve": "the reveal",
    "familiar": "the reveal",
    "journey": "Journeying",
    "lantern-order": "the Lanterns phase",
    "orange": "an orange Firefly's effect",
    "purple": "a purple Firefly's effect",
    "astray": "the Path Astray phase",
    "final": "the final draw",
    "over": "the end of the game",
}


# --- draw -----------------------------------------------------------------------------------------


def check_draw(g: LastLantern, s: State, a: Action) -> None:
    _phase(s, "draw", "ll.fog.draw", "Tree tiles are drawn")


def do_draw(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    s.location_tile = {loc: None for loc in g.locations}
    if len(s.tile_bag) < len(g.locations):
        decided(s, "empty_tile_bag")  # the tile bag cannot fill every location
    if not s.tile_bag:
        if g.opt["empty_tile_bag"] == "lose":
            lose(s, "tile-bag-empty", "ll.fog.draw", events)
        else:
            events.append(Event("tile-bag-empty", "ll.fog.draw", {}))
            start_final(g, s, -1, events)
        return
    for loc in g.locations:
        if not s.tile_bag:
            break
        tile: str = s.chance.draw_from(s.tile_bag, "Tree tile")
        s.tile_bag.remove(tile)
        s.location_tile[loc] = tile
        events.append(Event("tile-drawn", "ll.fog.draw", {"location": loc, "tile": tile}))
    s.choices = [None] * s.n
    s.phase = "choose"


# --- choose ---------------------------------------------------------------------------------------


def check_choose(g: LastLantern, s: State, a: Action) -> None:
    _phase(s, "choose", "ll.fog.choose", "Locations are chosen")
    if s.choices[a.player] is not None:
        raise RuleViolation("ll.fog.choose", f"{s.players[a.player]} has already chosen a location")
    if a.where == "wolf" and s.n < 4:
        raise RuleViolation("ll.fog.choose.wolf", "With 2 or 3 players nobody may choose the Wolf")
    if a.where not in g.locations:
        raise RuleViolation("ll.fog.choose", f"{a.where!r} is not a Familiar location")


def do_choose(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    s.choices[a.player] = a.where
    events.append(Event("chose", "ll.fog.choose", {"player": s.players[a.player], "location": a.where}))
    if None not in s.choices:
        _reveal(g, s, events)


def choosers(s: State, loc: str) -> list[int]:
    return [p for p in range(s.n) if s.choices[p] == loc]


def _reveal(g: LastLantern, s: State, events: list[Event]) -> None:
    events.append(
        Event("reveal", "ll.fog.reveal", {"choices": {s.players[p]: s.choices[p] for p in range(s.n)}})
    )
    s.to_resolve = []
    s.takes_familiar = []
    for loc in g.locations:
        who = choosers(s, loc)
        tile = s.location_tile.get(loc)
        if not who:
            if tile is not None:
                s.abandoned.append(tile)
                s.location_tile[loc] = None
                events.append(Event("abandoned", "ll.fog.reveal.abandoned", {"location": loc, "tile": tile}))
        elif len(who) == 1:
            _take_tile(s, who[0], loc, events, "ll.fog.reveal")
            _take_familiar(s, who[0], loc, events, "ll.fog.reveal")
        else:
            s.to_resolve.append(loc)
    if s.to_resolve:
        s.phase = "resolve"
    else:
        _after_reveal(g, s, events)


def _take_tile(s: State, p: int, loc: str, events: list[Event], rule: str) -> None:
    tile = s.location_tile.get(loc)
    if tile is None:
        return
    s.location_tile[loc] = None
    s.hands[p].append(tile)
    events.append(Event("takes-tile", rule, {"player": s.players[p], "tile": tile, "location": loc}))


def _take_familiar(s: State, p: int, loc: str, events: list[Event], rule: str) -> None:
    if s.location_familiars[loc] > 0:
        s.location_familiars[loc] -= 1
        s.familiars[p][loc] += 1
        events.append(Event("takes-familiar", rule, {"player": s.players[p], "familiar": loc}))
    elif any(s.familiars[q][loc] for q in range(s.n) if q != p):
        s.takes_familiar.append((p, loc))
    else:
        events.append(Event("no-familiar", "ll.fog.reveal.empty", {"player": s.players[p], "familiar": loc}))


def _after_reveal(g: LastLantern, s: State, events: list[Event]) -> None:
    if s.takes_familiar:
        s.phase = "familiar"
        return
    start_journey(g, s, events)


# --- resolve a shared choice ----------------------------------------------------------------------


def check_resolve(g: LastLantern, s: State, a: Action) -> None:
    _phase(s, "resolve", "ll.fog.reveal.shared", "Shared choices are settled")
    if a.where not in s.to_resolve:
        raise RuleViolation("ll.fog.reveal.shared", f"Nobody shares the {a.where} location")
    who = choosers(s, a.where)
    names = " and ".join(s.players[p] for p in who)
    if s.location_tile.get(a.where) is not None and a.player not in who:
        raise RuleViolation("ll.fog.reveal.shared", f"Only {names} may take the {a.where}'s tile")
    if a.other not in who:
        raise RuleViolation("ll.fog.reveal.shared", f"Only {names} may take the {a.where} Familiar")


def do_resolve(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    decided(s, "shared_choice_given")  # the players concerned settle who takes what; the engine takes it as given
    decided(s, "ability_window_after")  # no ability before the shared choice is settled
    s.to_resolve.remove(a.where)
    tile = s.location_tile.get(a.where)
    events.append(
        Event(
            "shared-choice",
            "ll.fog.reveal.shared",
            {
                "location": a.where,
                "tile": s.players[a.player] if tile is not None else None,
                "familiar": s.players[a.other],
            },
        )
    )
    if tile is not None:
        _take_tile(s, a.player, a.where, events, "ll.fog.reveal.shared")
    _take_familiar(s, a.other, a.where, events, "ll.fog.reveal.shared")
    if not s.to_resolve:
        _after_reveal(g, s, events)


# --- a Familiar from another player ---------------------------------------------------------------


def check_take_from(g: LastLantern, s: State, a: Action) -> None:
    _phase(s, "familiar", "ll.fog.reveal.empty", "A Familiar is taken from another player")
    p, kind = s.takes_familiar[0]
    if a.player != p or a.where != kind:
        raise RuleViolation("ll.fog.reveal.empty", f"{s.players[p]} is the one taking {a_or_an(kind)} now")
    if a.other == p or a.other < 0 or not s.familiars[a.other][kind]:
        who = s.players[a.other] if a.other >= 0 else "nobody"
        raise RuleViolation("ll.fog.reveal.empty", f"{who} has no {kind} to give {s.players[p]}")
    if s.location_familiars[kind]:
        raise RuleViolation("ll.fog.reveal.empty", f"The {kind} location still has a Familiar")
    if not a.agreed:
        raise RuleViolation("ll.fog.reveal.empty", f"{s.players[a.other]} must agree to give up {a_or_an(kind)}")


def do_take_from(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    p, kind = s.takes_familiar.pop(0)
    s.familiars[a.other][kind] -= 1
    s.familiars[p][kind] += 1
    events.append(
        Event(
            "familiar-from-player",
            "ll.fog.reveal.empty",
            {"player": s.players[p], "from": s.players[a.other], "familiar": kind},
        )
    )
    if not s.takes_familiar:
        _after_reveal(g, s, events)


def check_go_without(g: LastLantern, s: State, a: Action) -> None:
    _phase(s, "familiar", "ll.fog.reveal.empty", "Going without a Familiar is decided")
    if a.player != s.takes_familiar[0][0]:
        raise RuleViolation("ll.fog.reveal.empty", f"{s.players[s.takes_familiar[0][0]]} decides now")


def do_go_without(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    decided(s, "go_without_empty")  # an empty location and no one who agrees: they go without
    p, kind = s.takes_familiar.pop(0)
    events.append(Event("no-familiar", "ll.fog.reveal.empty", {"player": s.players[p], "familiar": kind}))
    if not s.takes_familiar:
        _after_reveal(g, s, events)


def check_give(g: LastLantern, s: State, a: Action) -> None:
    raise RuleViolation("ll.fog.reveal.no-trade", "Familiars may not be given or traded between players")


def do_give(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    check_give(g, s, a)
