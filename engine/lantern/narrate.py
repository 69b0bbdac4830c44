"""The player edition's words for actions and positions: the rulebook's terms, never engine notation.

``actions.describe`` (``Counterattack: 4 → 3``) stays the engine's terse form for designers and error
messages; this module says what the player did as the rulebook would (``You use Counterattack ...``).
Lantern is played alone, and the rulebook speaks to its reader as "you".

Every sentence goes through the engine's message catalogs (``rulepress.i18n``): the English sentence is the
message ID and ``locale/<lang>/LC_MESSAGES/narrate.po`` translates it.  The names of abilities, pools and zones
are the book's component data (``components.yaml``), not the engine's words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rulepress.i18n import N_, translator

from .actions import ASSIGN, BONUS, CONCEDE, CONSTITUTION, COUNTER, ENTER, LEAVE, REROLL, SPELL, STRIKE, Action
from .sheet import POOLS
from .state import LanternState

if TYPE_CHECKING:
    from .game import LanternGame

_tr = translator(__name__)
_, ngettext = _tr.gettext, _tr.ngettext

_OUTCOMES = {"won": N_("The adventure is over: you won."), "lost": N_("The adventure is over: you lost.")}

# Engine notation that must never reach the player edition (checked by rulepress.render.player_text).
NOTATION: dict[str, str] = {
    "die change": r"\b[1-6] → [1-6]\b",  # Counterattack: 4 → 3
    "solver verdict": r"\b(?:luck|certain|exhausted): ",  # the solver's verdict labels
}


def _faces(faces: Sequence[int]) -> str:
    words = [str(face) for face in faces]
    if len(words) == 1:
        return words[0]
    return _("{items} and {last}").format(items=", ".join(words[:-1]), last=words[-1])


def _zone(game: LanternGame, number: int) -> str:
    zone = game.sheet.zone(number)
    return _("zone {number}, {name}").format(number=number, name=zone.name)


def narrate_action(game: LanternGame, state: LanternState, action: Action) -> str:
    """What you did, in the rulebook's words (``state`` is the position before the action)."""
    names = game.sheet.names
    kind = action.kind
    if kind == REROLL:
        return _("You re-roll all six setup dice.")
    if kind == ASSIGN:
        return _("You give the die showing {face} to {pool}.").format(face=action.face, pool=names[action.target])
    if kind == ENTER:
        if state.zone:
            return _("You enter {zone}.").format(zone=_zone(game, state.zone))
        return _("You enter the first zone.")
    if kind == STRIKE:
        return _("You use {ability} to turn a {face} into a {to}.").format(
            ability=names["critical_strike"], face=action.face, to=7 - action.face)
    if kind == COUNTER:
        return _("You use {ability} to turn a {face} into a {to}.").format(
            ability=names["counterattack"], face=action.face, to=action.to)
    if kind == SPELL:
        return _("You cast {ability} to re-roll a {face}.").format(ability=names["magic_spell"], face=action.face)
    if kind == CONSTITUTION:
        return ngettext("You spend {ability} to re-roll the die showing {faces}.",
                        "You spend {ability} to re-roll the dice showing {faces}.", len(action.faces)).format(
            ability=names["constitution"], faces=_faces(action.faces))
    if kind == BONUS:
        return _("You take the row bonus: one more {pool} circle.").format(pool=names[action.target])
    if kind == LEAVE:
        if state.zone:
            return _("You leave {zone}.").format(zone=_zone(game, state.zone))
        return _("You leave the zone.")
    if kind == CONCEDE:
        return _("You give up the fight.")
    return f"You {kind}."  # an action this narrator does not know: the engine's own word for it


def narrate_state(game: LanternGame, snapshot: Mapping[str, Any]) -> str:
    """The sheet in a few sentences: where you are, the dice, your circles and your experience."""
    names = game.sheet.names
    sentences = []
    if snapshot.get("over"):
        outcome = snapshot.get("outcome")
        # The outcome is the engine's word (won, lost, fled): each one it has is a message of its own.
        sentences.append(_(_OUTCOMES[outcome]) if outcome in _OUTCOMES
                         else _("The adventure is over: you {outcome}.").format(outcome=outcome) if outcome
                         else _("The adventure is over."))
    if snapshot.get("phase") == "setup":
        rolled = snapshot.get("setup", {}).get("rolled") or []
        if rolled:
            sentences.append(_("Setup: the dice show {faces}.").format(faces=_faces(rolled)))
    elif snapshot.get("zone"):
        said = (_("You are in zone {number}, {name}, facing the {enemy}.") if snapshot.get("enemy")
                else _("You are in zone {number}, {name}."))
        sentences.append(said.format(number=snapshot["zone"], name=snapshot.get("zone_name"),
                                     enemy=snapshot.get("enemy")))
        if snapshot.get("dice"):
            sentences.append(_("The dice show {faces}.").format(faces=_faces(snapshot["dice"])))
    circles = snapshot.get("circles") or {}
    left = [_("{pool} {count}").format(pool=names[pool], count=circles[pool]["left"])
            for pool in POOLS if pool in circles]
    if left:
        sentences.append(_("Circles left: {pools}.").format(pools=", ".join(left)))
    experience = snapshot.get("experience") or {}
    if experience:
        sentences.append(_("{experience}: {crossed} of {total} circles crossed.").format(
            experience=names["experience"], crossed=experience.get("crossed"), total=experience.get("total")))
    return " ".join(sentences)
