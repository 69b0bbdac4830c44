"""The player edition's words for actions and positions (protocol.Narrator): pass, bet, fold and call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulepress.protocol import HIDDEN

# Engine notation that must never reach the player edition (rulepress/render/player_text.py): OpenSpiel's
# information-state strings and betting histories ("1pb").
NOTATION: dict[str, str] = {"information-state string": r"\b[0-2][pb]{1,3}\b|\b(?:pp|pb|bp|bb|pbp|pbb)\b"}


def narrate_action(game: Any, state: Any, action: Any) -> str:
    """What the player did (``state`` is the position before it): after a bet, a pass folds and a bet calls."""
    facing = "b" in state.history
    if action.do == "pass":
        return f"{action.player} folds." if facing else f"{action.player} passes."
    return f"{action.player} calls, adding a chip." if facing else f"{action.player} bets a chip."


def narrate_state(game: Any, snapshot: Mapping[str, Any]) -> str:
    """The position: each hand as the view shows it, the pot and who acts (or who won)."""
    hands = "; ".join(f"{player}'s card is face down" if card == HIDDEN else f"{player} holds the {card}"
                      for player, card in (snapshot.get("cards") or {}).items())
    said = [f"{hands}.", f"The pot holds {snapshot.get('pot')} chips."]
    if snapshot.get("winner"):
        said.append(f"{snapshot['winner']} takes it.")
    elif snapshot.get("current"):
        said.append(f"{snapshot['current']} is to act.")
    return " ".join(said)
