"""Fireflies: moving them between bag, supply, lanterns and spaces; drawing; the black-Firefly loss."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulepress.protocol import Event, decided

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State

EERIE = ("orange", "blue", "purple")


def supply_to_bag(s: State, colour: str, count: int) -> int:
    """Move up to ``count`` Fireflies of ``colour`` from the supply into the bag; how many moved."""
    moved = min(count, s.supply.get(colour, 0))
    if moved < count:
        decided(s, "supply_short")  # the supply lacks a colour a rule needs: as many as there are
    if moved:
        s.supply[colour] -= moved
        s.bag[colour] = s.bag.get(colour, 0) + moved
    return moved


def draw_from_bag(s: State, what: str = "Firefly") -> str:
    colour: str = s.chance.draw_counted(s.bag, what)
    s.bag[colour] -= 1
    return colour


def cover(g: LastLantern, s: State, mask: int, rule: str, events: list[Event], who: str) -> None:
    """Fireflies under a newly placed tile go back to the supply, whatever their colour (in the order they came
    onto the board)."""
    on_board = s.fireflies
    under: list[int] = []
    rest = mask
    while rest:  # the tile's few cells, not every Firefly on the board
        low = rest & -rest
        cell = low.bit_length() - 1
        if cell in on_board:
            under.append(cell)
        rest ^= low
    if len(under) > 1:
        under = [cell for cell in on_board if mask >> cell & 1]
    for cell in under:
        colour = on_board.pop(cell)
        s.supply[colour] = s.supply.get(colour, 0) + 1
        if colour == "black":
            s.board_black -= 1
        events.append(Event("firefly-covered", rule, {"player": who, "space": g.canopy.name(cell), "colour": colour}))


def threshold(g: LastLantern) -> tuple[int, str]:
    """Black Fireflies on the paths that lose, and the rule that says so."""
    if g.opt["basilisk"]:
        return g.black_hard, "ll.challenge.basilisk.loss"
    if g.opt["branches"]:
        return g.black_hard, "ll.challenge.branches.loss"
    return g.black_loss, "ll.lantern.loss"


def lose(s: State, reason: str, rule: str, events: list[Event], **data: object) -> None:
    if s.stage == "final" and reason != "blossoms":
        decided(s, "final_draw_stops")  # the final draw stops at the loss, spaces left unfilled
    s.over = True
    s.phase = "over"
    s.result = {"won": False, "reason": reason, "rule": rule, "round": s.round, "black": s.board_black}
    events.append(Event("lost", rule, {"reason": reason, **data}))


def place_drawn(
    g: LastLantern, s: State, cell: int, who: int, rule: str, events: list[Event], final: bool
) -> str | None:
    """Draw one Firefly onto an empty ``cell``; returns its colour (None if nothing could be placed)."""
    name = s.players[who] if who >= 0 else "players"
    if sum(s.bag.values()) == 0:
        # an empty bag: a black Firefly from the supply takes the draw's place
        if not s.supply.get("black", 0):
            events.append(Event("no-firefly", "ll.lantern.empty-bag", {"space": g.canopy.name(cell)}))
            return None
        s.supply["black"] -= 1
        colour = "black"
        events.append(
            Event("empty-bag", "ll.lantern.empty-bag", {"player": name, "space": g.canopy.name(cell)})
        )
    else:
        colour = draw_from_bag(s)
    s.fireflies[cell] = colour
    s.draws_made += 1
    s.drawn[who] = s.drawn.get(who, 0) + 1
    s.drawn_colours[colour] = s.drawn_colours.get(colour, 0) + 1
    if colour == "black":
        s.board_black += 1
    events.append(Event("firefly", rule, {"player": name, "space": g.canopy.space_names[cell], "colour": colour}))
    limit, loss_rule = g.threshold
    if s.board_black >= limit:
        lose(s, "black-fireflies", loss_rule, events, black=s.board_black)
        return colour
    if colour in EERIE:
        if final:
            lose(s, "eerie-light", "ll.challenge.eerie.loss", events, colour=colour)
        else:
            events.append(
                Event(
                    "eerie-light",
                    "ll.challenge.eerie.effect",
                    {"colour": colour, "space": g.canopy.name(cell)},
                )
            )
            eerie_effect(g, s, colour, events)
    return colour


def eerie_effect(g: LastLantern, s: State, colour: str, events: list[Event]) -> None:
    if colour == "orange":
        for p in range(s.n):
            kinds = [k for k in ("rabbit", "snail", "owl") if s.familiars[p][k]]
            if len(kinds) == 1:
                return_familiar(s, p, kinds[0], events)
            elif kinds:
                s.orange_pending.append(p)
        events.append(Event("orange", "ll.challenge.eerie.orange", {}))
    elif colour == "blue":
        s.blue_next = True
        events.append(Event("blue", "ll.challenge.eerie.blue", {}))
    else:
        if not s.tile_bag:
            decided(s, "purple_as_abandoned")  # with an empty tile bag a purple Firefly does nothing
            events.append(Event("purple-no-tile", "ll.challenge.eerie.purple", {}))
            return
        tile: str = s.chance.draw_from(sorted(s.tile_bag), "Tree tile")
        s.tile_bag.remove(tile)
        events.append(Event("purple", "ll.challenge.eerie.purple", {"tile": tile}))
        s.purple_pending.append(tile)
        if len(s.purple_pending) > 1:
            decided(s, "purple_order")  # two tiles sent at once: placed in the order their Fireflies were drawn


def return_familiar(s: State, p: int, kind: str, events: list[Event]) -> None:
    s.familiars[p][kind] -= 1
    s.location_familiars[kind] += 1
    events.append(
        Event("familiar-returned", "ll.challenge.eerie.orange", {"player": s.players[p], "familiar": kind})
    )


def empty_spaces(s: State, area: int) -> int:
    """Spaces of ``area`` with neither a tile nor a Firefly on them."""
    free = area & ~s.occ
    for cell in s.fireflies:
        free &= ~(1 << cell)
    return free
