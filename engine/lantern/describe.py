"""Building a state from an example's ``start.state`` description (format in the engine README)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rulepress.protocol import DescriptionError

from .combination import DICE
from .sheet import ABILITIES, POOLS
from .state import ENTER, FIGHT, LEAVE, SETUP, LanternState

if TYPE_CHECKING:
    from .game import LanternGame

_KEYS = {"phase", "zone", "dice", "circles", "experience", "campfire", "campfire_used", "earned",
         "setup_rerolls"}


def _int(value: Any, path: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise DescriptionError(path, f"expected a whole number {low}-{high}, got {value!r}")
    return value


def _dice(value: Any, path: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != DICE:
        raise DescriptionError(path, f"expected the {DICE} dice as a list of faces, got {value!r}")
    return tuple(sorted(_int(v, f"{path}[{i}]", 1, 6) for i, v in enumerate(value)))


def describe_state(game: LanternGame, state: LanternState, description: Mapping[str, Any]) -> None:
    """Fill ``state`` from ``description``; anything inconsistent raises DescriptionError."""
    unknown = set(description) - _KEYS
    if unknown:
        raise DescriptionError(f"start.state.{sorted(unknown)[0]}",
                               f"unknown key (known: {', '.join(sorted(_KEYS))})")
    sheet = game.sheet
    phase = description.get("phase", ENTER)
    if phase not in (SETUP, ENTER, FIGHT, LEAVE):
        raise DescriptionError("start.state.phase", f"phase is setup, enter, fight or leave, got {phase!r}")
    state.phase = phase
    if phase == SETUP:
        extra = set(description) - {"phase", "dice", "setup_rerolls"}
        if extra:
            raise DescriptionError(f"start.state.{sorted(extra)[0]}",
                                   "a setup state names only its dice and setup_rerolls")
        state.setup_roll = state.dice = _dice(description.get("dice"), "start.state.dice")
        state.setup_rerolls = _int(description.get("setup_rerolls", 0), "start.state.setup_rerolls", 0, 99)
        return
    state.zone = _int(description.get("zone"), "start.state.zone", 1, len(sheet.zones))
    zone = sheet.zone(state.zone)
    _circles(game, state, description.get("circles", {}))
    state.experience = _int(description.get("experience", 0), "start.state.experience", 0,
                            sheet.experience_total)
    state.campfire = _int(description.get("campfire", 0), "start.state.campfire", 0, 6)
    state.campfire_used = _campfire_used(sheet.campfire_zone, state.zone, phase, description.get("campfire_used"))
    state.zones_cleared = state.zone - 1
    if state.zone == sheet.dragon_zone and phase == LEAVE:
        raise DescriptionError("start.state.phase", "defeating the Dragon ends the game: there is no step 3")
    if phase == ENTER:
        if "dice" in description:
            raise DescriptionError("start.state.dice", "before a zone is entered no dice are showing")
    elif zone.is_campfire:
        if phase == FIGHT:
            raise DescriptionError("start.state.phase", "there is nothing to fight at the Campfire")
        if "dice" in description:
            raise DescriptionError("start.state.dice", "no dice are rolled at the Campfire")
    else:
        state.dice = _dice(description.get("dice"), "start.state.dice")
        met = game.is_met(state.dice, zone.number)
        if phase == FIGHT and met:
            raise DescriptionError("start.state.dice", f"{list(state.dice)} already shows zone {zone.number}'s "
                                                       "combination: the enemies are defeated (phase leave)")
        if phase == LEAVE and not met:
            raise DescriptionError("start.state.dice", f"zone {zone.number} is left only once its combination "
                                                       f"({zone.notation}) shows")
        if phase == FIGHT and game.out_of_reach(state, zone.combination) is not None:
            raise DescriptionError("start.state", "this fight is already lost: describe a position still in play")
    if phase == LEAVE:
        state.earned = _int(description.get("earned", 0), "start.state.earned", 0, len(sheet.row_names))
    elif "earned" in description:
        raise DescriptionError("start.state.earned", "circles for filled rows are held only in step 3 (leave)")


def _campfire_used(campfire: int, zone: int, phase: str, given: Any) -> bool:
    """Whether the Campfire's circles are crossed: they are on entering it (ln.play.campfire), so a sheet says it
    by its zone alone, and a ``campfire_used`` that says otherwise describes no position of the game."""
    used = zone > campfire or (zone == campfire and phase == LEAVE)
    if given is None or given is used:
        return used
    if not isinstance(given, bool):
        raise DescriptionError("start.state.campfire_used", f"expected true or false, got {given!r}")
    if zone < campfire:
        now = f"in zone {zone} it is still ahead, so campfire_used is false"
    elif zone > campfire:
        now = f"in zone {zone} it is behind, so campfire_used is true"
    else:
        now = f"here it is {'used' if used else 'not entered yet'}, so campfire_used is {str(used).lower()}"
    raise DescriptionError("start.state.campfire_used", f"the Campfire (zone {campfire}) is used on entering it: {now}",
                           rule="ln.play.campfire")


def _circles(game: LanternGame, state: LanternState, circles: Any) -> None:
    if not isinstance(circles, Mapping):
        raise DescriptionError("start.state.circles", "circles maps each Ability and Constitution to a count "
                                                      "or to {drawn: n, crossed: m}")
    for name in circles:
        if name not in POOLS:
            raise DescriptionError(f"start.state.circles.{name}", f"one of {', '.join(POOLS)}")
    cap = game.sheet.cap
    for pool, name in enumerate(POOLS):
        value = circles.get(name, 0)
        path = f"start.state.circles.{name}"
        if isinstance(value, Mapping):
            extra = set(value) - {"drawn", "crossed"}
            if extra:
                raise DescriptionError(f"{path}.{sorted(extra)[0]}", "only drawn and crossed")
            drawn = _int(value.get("drawn", 0), f"{path}.drawn", 0, 99)
            crossed = _int(value.get("crossed", 0), f"{path}.crossed", 0, drawn)
        else:
            drawn, crossed = _int(value, path, 0, 99), 0
        if name in ABILITIES and (drawn if game.options["cap_counts"] == "drawn" else drawn - crossed) > cap:
            raise DescriptionError(path, f"no more than {cap} circles may be drawn next to an Ability")
        state.drawn[pool] = drawn
        state.crossed[pool] = crossed
