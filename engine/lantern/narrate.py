"""The player edition's words for actions and positions: the rulebook's terms, never engine notation.

``actions.describe`` (``Counterattack: 4 → 3``) stays the engine's terse form for designers and error
messages; this module says what the player did as the rulebook would (``You use Counterattack ...``).
Lantern is played alone, and the rulebook speaks to its reader as "you".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .actions import ASSIGN, BONUS, CONCEDE, CONSTITUTION, COUNTER, ENTER, LEAVE, REROLL, SPELL, STRIKE, Action
from .sheet import POOLS
from .state import LanternState

if TYPE_CHECKING:
    from .game import LanternGame

# Engine notation that must never reach the player edition (checked by rulepress.render.player_text).
NOTATION: dict[str, str] = {
    "die change": r"\b[1-6] → [1-6]\b",  # Counterattack: 4 → 3
    "solver verdict": r"\b(?:luck|certain|exhausted): ",  # the solver's verdict labels
}


def _faces(faces: Sequence[int]) -> str:
    words = [str(face) for face in faces]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _zone(game: LanternGame, number: int) -> str:
    zone = game.sheet.zone(number)
    return f"zone {number}, {zone.name}"


def narrate_action(game: LanternGame, state: LanternState, action: Action) -> str:
    """What you did, in the rulebook's words (``state`` is the position before the action)."""
    names = game.sheet.names
    kind = action.kind
    if kind == REROLL:
        return "You re-roll all six setup dice."
    if kind == ASSIGN:
        return f"You give the die showing {action.face} to {names[action.target]}."
    if kind == ENTER:
        return f"You enter {_zone(game, state.zone)}." if state.zone else "You enter the first zone."
    if kind == STRIKE:
        return f"You use {names['critical_strike']} to turn a {action.face} into a {7 - action.face}."
    if kind == COUNTER:
        return f"You use {names['counterattack']} to turn a {action.face} into a {action.to}."
    if kind == SPELL:
        return f"You cast {names['magic_spell']} to re-roll a {action.face}."
    if kind == CONSTITUTION:
        dice = "die" if len(action.faces) == 1 else "dice"
        return f"You spend {names['constitution']} to re-roll the {dice} showing {_faces(action.faces)}."
    if kind == BONUS:
        return f"You take the row bonus: one more {names[action.target]} circle."
    if kind == LEAVE:
        return f"You leave {_zone(game, state.zone)}." if state.zone else "You leave the zone."
    if kind == CONCEDE:
        return "You give up the fight."
    return f"You {kind}."


def narrate_state(game: LanternGame, snapshot: Mapping[str, Any]) -> str:
    """The sheet in a few sentences: where you are, the dice, your circles and your experience."""
    names = game.sheet.names
    sentences = []
    if snapshot.get("over"):
        outcome = snapshot.get("outcome")
        sentences.append("The adventure is over" + (f": you {outcome}" if outcome else "") + ".")
    if snapshot.get("phase") == "setup":
        rolled = snapshot.get("setup", {}).get("rolled") or []
        if rolled:
            sentences.append(f"Setup: the dice show {_faces(rolled)}.")
    elif snapshot.get("zone"):
        where = f"You are in zone {snapshot['zone']}, {snapshot.get('zone_name')}"
        if snapshot.get("enemy"):
            where += f", facing the {snapshot['enemy']}"
        sentences.append(where + ".")
        if snapshot.get("dice"):
            sentences.append(f"The dice show {_faces(snapshot['dice'])}.")
    circles = snapshot.get("circles") or {}
    left = [f"{names[pool]} {circles[pool]['left']}" for pool in POOLS if pool in circles]
    if left:
        sentences.append("Circles left: " + ", ".join(left) + ".")
    experience = snapshot.get("experience") or {}
    if experience:
        sentences.append(f"{names['experience']}: {experience.get('crossed')} of {experience.get('total')} "
                         "circles crossed.")
    return " ".join(sentences)
