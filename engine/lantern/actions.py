"""Actions: small immutable tuples, their parsing from example steps and their wording."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from rulepress.protocol import DescriptionError, meant

from .sheet import ABILITIES, POOLS, TARGETS

REROLL, ASSIGN, ENTER, STRIKE, COUNTER, SPELL, CONSTITUTION, BONUS, LEAVE, CONCEDE = (
    "reroll", "assign", "enter", "strike", "counter", "spell", "constitution", "bonus", "leave", "concede")
KINDS = (REROLL, ASSIGN, ENTER, STRIKE, COUNTER, SPELL, CONSTITUTION, BONUS, LEAVE, CONCEDE)

# The pool of circles each fighting action crosses.
POOL_OF = {STRIKE: 0, COUNTER: 1, SPELL: 2, CONSTITUTION: 3}


class Action(NamedTuple):
    kind: str
    face: int = 0  # the die acted on, named by the face it shows (assign: the die's value)
    to: int = 0  # Counterattack: the face the die is turned to
    faces: tuple[int, ...] = ()  # Constitution: the dice re-rolled
    target: str = ""  # assign: where the die goes; bonus: the Ability


def _face(step: Mapping[str, Any], key: str) -> int:
    value = step.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
        raise DescriptionError(key, f"'{key}' must be a die face 1-6, got {value!r}")
    return value


def parse_step(step: Mapping[str, Any]) -> Action:
    """The action an example step names (see the engine README for the keys)."""
    kind = step.get("do")
    if kind not in KINDS:
        raise DescriptionError("do", f"unknown action {kind!r} ({meant(kind, KINDS)}known: {', '.join(KINDS)})")
    if kind == ASSIGN:
        target = step.get("to")
        if target not in TARGETS:
            raise DescriptionError("to", f"assign a die to one of {', '.join(TARGETS)}; got {target!r}")
        return Action(ASSIGN, face=_face(step, "die"), target=str(target))
    if kind in (STRIKE, SPELL):
        return Action(kind, face=_face(step, "die"))
    if kind == COUNTER:
        return Action(COUNTER, face=_face(step, "die"), to=_face(step, "to"))
    if kind == CONSTITUTION:
        dice = step.get("dice")
        if not isinstance(dice, list) or not dice:
            raise DescriptionError("dice", "Constitution names the faces of the dice it re-rolls, e.g. [2, 5]")
        return Action(CONSTITUTION, faces=tuple(sorted(_face({"dice": d}, "dice") for d in dice)))
    if kind == BONUS:
        ability = step.get("ability")
        if ability not in POOLS:
            raise DescriptionError("ability", f"name one of {', '.join(ABILITIES)}; got {ability!r}")
        return Action(BONUS, target=str(ability))
    return Action(kind)


def describe(action: Action, names: Mapping[str, str]) -> str:
    """The action in a few words, for transcripts and error messages."""
    kind = action.kind
    if kind == ASSIGN:
        return f"assign the {action.face} to {names[action.target]}"
    if kind == STRIKE:
        return f"{names['critical_strike']}: {action.face} → {7 - action.face}"
    if kind == COUNTER:
        return f"{names['counterattack']}: {action.face} → {action.to}"
    if kind == SPELL:
        return f"{names['magic_spell']}: re-roll a {action.face}"
    if kind == CONSTITUTION:
        return f"{names['constitution']}: re-roll {', '.join(map(str, action.faces))}"
    if kind == BONUS:
        return f"add a {names[action.target]} circle"
    return {REROLL: "re-roll the setup dice", ENTER: "enter the zone", LEAVE: "leave the zone",
            CONCEDE: "give up the fight"}[kind]


def as_step(action: Action) -> dict[str, Any]:
    """The example step that names ``action`` (the inverse of :func:`parse_step`)."""
    step: dict[str, Any] = {"do": action.kind}
    if action.kind == ASSIGN:
        step.update(die=action.face, to=action.target)
    elif action.kind in (STRIKE, SPELL):
        step["die"] = action.face
    elif action.kind == COUNTER:
        step.update(die=action.face, to=action.to)
    elif action.kind == CONSTITUTION:
        step["dice"] = list(action.faces)
    elif action.kind == BONUS:
        step["ability"] = action.target
    return step
