"""The player edition's words for actions and positions: the rulebook's terms, never engine notation.

``steps.describe`` (``abandoned T43 onto e10 e11 e12 e13 f12``) stays the engine's terse form for designers
and error messages; this module says the same as the rulebook would: lanes are lettered and steps numbered
(rules chapter "Components"), Familiars and abilities go by their printed names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .abilities import ABILITY_NAMES
from .actions import Action
from .geometry import LANE_LETTERS

if TYPE_CHECKING:
    from .game import LastLanternGame
    from .state import State

# Engine notation that must never reach the player edition (checked by rulepress.render.player_text).
NOTATION: dict[str, str] = {
    "list of spaces": r"\b[a-z][0-9]{1,2}(?: [a-z][0-9]{1,2}){2,}\b",  # e10 e11 e12: canopy cells
    "Familiar counts": r"\b[RSOW][0-9]+ [RSOW][0-9]+\b",  # R1 S0 O0
    "list of lake spaces": r"\b[A-Z][0-9]{1,2}(?: [A-Z][0-9]{1,2}){2,}\b",  # D3 E3 C4: Frozen Lake cells
    "tile shape": r"[#.]{2,}(?: / [#.]+)+",  # ### / .#.: a shape as rows of squares
}


_PLURAL = {"wolf": "Wolves"}


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def familiar(kind: str, article: bool = True) -> str:
    """``owl`` -> ``an Owl``."""
    name = kind.capitalize()
    if not article:
        return name
    return ("an " if name[:1] in "AEIOU" else "a ") + name


def tile_words(tile: str) -> str:
    """``T03`` -> ``Tree tile T03``; ``A08`` -> ``Ability tile A08`` (the components chapter's names)."""
    kind = {"T": "Tree tile", "A": "Ability tile"}.get(tile[:1], "tile")
    return f"{kind} {tile}" if tile else "a tile"


def spaces_words(names: Sequence[str]) -> str:
    """Canopy spaces grouped by lane: ``e10 e11 f12`` -> ``lane e, steps 10 to 11, and lane f, step 12``;
    Frozen Lake spaces (capital letters) are listed by name."""
    if not names:
        return "no space"
    if names[0][:1] not in LANE_LETTERS:
        return "the Frozen Lake at " + _and(sorted(names))
    lanes: dict[str, list[int]] = {}
    for name in names:
        lanes.setdefault(name[0], []).append(int(name[1:]))
    parts = []
    for lane, steps in sorted(lanes.items()):
        steps.sort()
        if len(steps) == 1:
            parts.append(f"lane {lane}, step {steps[0]}")
        elif steps == list(range(steps[0], steps[-1] + 1)):
            parts.append(f"lane {lane}, steps {steps[0]} to {steps[-1]}")
        else:
            parts.append(f"lane {lane}, steps {_and([str(s) for s in steps])}")
    return "; ".join(parts) if len(parts) > 1 and any("," in p for p in parts) else _and(parts)


def narrate_action(game: LastLanternGame, state: State, action: Action) -> str:
    """What the players did, in the rulebook's words (``state`` is the position before the action)."""
    rules = game.rules(state.n)  # the board depends on the player count

    def who(p: int) -> str:
        return state.players[p] if 0 <= p < len(state.players) else "Nobody"

    paid = f", paying with Familiars from {_and([who(p) for p in action.payers])}" if action.payers else ""
    do, player = action.do, who(action.player)
    if do == "draw":
        return "Tree tiles are drawn and laid beside the Familiar locations."
    if do == "done":
        return "The players finish Journeying."
    if do == "choose":
        return f"{player} chooses the {familiar(action.where, False)}'s location."
    if do == "resolve":
        return (f"At the {familiar(action.where, False)}'s location, {player} takes the tile and "
                f"{who(action.other)} takes the {familiar(action.where, False)}.")
    if do == "take-from":
        agreed = ", and they agree" if action.agreed else ""
        return f"{player} takes {familiar(action.where)} from {who(action.other)}{agreed}."
    if do == "go-without":
        return f"{player} goes without {familiar(action.where)}."
    if do == "give":
        return f"{player} gives {familiar(action.where)} to {who(action.other)}."
    if do == "place":
        return f"{player} lays {tile_words(action.tile)} on {spaces_words(rules.canopy.names_of(action.mask))}."
    if do == "cannot-place":
        return f"{player} cannot lay {tile_words(action.tile)} anywhere."
    if do == "back-on-track":
        target = f" to take {tile_words(action.tile)} off the Path Astray track" if action.tile else ""
        return f"{player} uses {ABILITY_NAMES[do]}{target}{paid}."
    if do == "lighting-the-way":
        return f"{player} uses {ABILITY_NAMES[do]}{paid}."
    if do == "through-the-fog":
        return f"{player} uses Through the Fog to pass {tile_words(action.tile)} to {who(action.other)}{paid}."
    if do == "guiding-hand":
        source = f" from {who(action.third)}" if action.third >= 0 else ""
        return f"{player} uses Guiding Hand: {familiar(action.where)}{source} goes to {who(action.other)}{paid}."
    if do == "lantern":
        return f"{player} resolves crossing a lantern."
    if do == "return":
        return f"{player} puts {familiar(action.where)} back on its location."
    if action.mask:
        board = rules.lake if rules.lake is not None else rules.canopy
        return f"{tile_words(action.tile)} is abandoned onto {spaces_words(board.names_of(action.mask))}."
    return f"{tile_words(action.tile)} is abandoned onto the Path Astray track."


def narrate_state(game: LastLanternGame, snapshot: Mapping[str, Any]) -> str:
    """The position in a few sentences: the round, the black Fireflies, each player and the track."""
    sentences = [f"Round {snapshot.get('round')}."]
    if snapshot.get("over"):
        sentences.append("The players " + ("win." if snapshot.get("won") else "lose."))
    black = int(snapshot.get("black") or 0)
    sentences.append(f"{black} black Firefl{'y' if black == 1 else 'ies'} on the board.")
    for name, player in (snapshot.get("players") or {}).items():
        familiars = player.get("familiars") or {}
        held = [f"{count} {familiar(kind, False) if count == 1 else _PLURAL.get(kind, kind.capitalize() + 's')}"
                for kind, count in familiars.items() if count]
        crossed = player.get("lanterns") or []
        lanterns = ("has crossed lantern" + ("s " if len(crossed) > 1 else " ") + _and([str(n) for n in crossed])
                    if crossed else "has crossed no lantern")
        sentences.append(f"{name} {lanterns}" + (f" and holds {_and(held)}" if held else "") + ".")
    track = snapshot.get("track") or []
    if track:
        sentences.append(f"On the Path Astray track: {_and([tile_words(str(t)) for t in track])}.")
    return " ".join(sentences)
