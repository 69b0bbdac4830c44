"""The player edition's words for actions and positions: the rulebook's terms, never engine notation.

``format_action`` (``Ann plants amber-2 on b2``) stays the engine's terse form for designers and error
messages; this module says the same thing as the rulebook would (``Ann plants an amber moth worth 2 ...``).

Every sentence goes through the engine's message catalogs (``rulepress.i18n``): the English sentence is the
message ID and ``locale/<lang>/LC_MESSAGES/narrate.po`` translates it.  Tile and colour names are the book's
component data, not the engine's words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rulepress.i18n import translator
from rulepress.protocol import HIDDEN

from .actions import DISCARD, DRAW, FLIP, FROM_DISCARD, LIGHT, PLANT
from .pieces import DUSK, GHOST
from .state import UNKNOWN_TILE, Action, State

if TYPE_CHECKING:
    from .game import LanternMothsGame

_tr = translator(__name__)
_, ngettext = _tr.gettext, _tr.ngettext

# Engine notation that must never reach the player edition (checked by rulepress.render.player_text).
# Cards are named in players' words ("a rose moth worth 2"): the engine's "rose-2" is its own notation.
NOTATION: dict[str, str] = {
    "garden list": r"\b[a-c][1-3](?: [a-c][1-3]){2,}\b",  # a1 b2 c3: places as the engine lists them
    "card ID": r"\b(?:amber|rose|jade|violet)-[1-3]\b",  # rose-2: players read "a rose moth worth 2"
}


def card_words(kind_name: str, article: bool = True) -> str:
    """``amber-2`` -> ``an amber moth worth 2``; ``ghost`` -> ``a Ghost Moth``; ``dusk`` -> ``a Dusk card``."""
    if kind_name == GHOST:
        return _("a Ghost Moth") if article else _("Ghost Moth")
    if kind_name == DUSK:
        return _("a Dusk card") if article else _("Dusk card")
    colour, _dash, value = kind_name.rpartition("-")
    if not article:
        said = _("{colour} moth worth {value}")
    elif colour[:1] in "aeiou":  # English says "an amber moth": a translation may say both the same way
        said = _("an {colour} moth worth {value}")
    else:
        said = _("a {colour} moth worth {value}")
    return said.format(colour=colour, value=value)


def _place(game: LanternMothsGame, state: State, cell: int) -> str:
    name = game.pieces.cell_names[cell]
    tile = state.tile_at[cell]
    if not state.face_up[cell] or tile == UNKNOWN_TILE:
        return _("the face-down tile at {place}").format(place=name)
    return _("the {tile} tile at {place}").format(tile=game.pieces.tile_names[tile], place=name)


def narrate_action(game: LanternMothsGame, state: State, action: Action) -> str:
    """What the player did, in the rulebook's words (``state`` is the position before the action)."""
    pieces = game.pieces
    who = state.players[action.player] if 0 <= action.player < len(state.players) else _("Nobody")
    if action.kind == DRAW:
        if action.arg == FROM_DISCARD:
            if state.discard:
                return _("{player} takes the top card of the discard pile ({card}).").format(
                    player=who, card=card_words(pieces.kind_names[pieces.card_kind[state.discard[-1]]]))
            return _("{player} takes the top card of the discard pile.").format(player=who)
        return _("{player} draws a card from the deck.").format(player=who)
    if action.kind == PLANT:
        return _("{player} plants {card} on {place}.").format(
            player=who, card=card_words(pieces.kind_names[action.arg]), place=_place(game, state, action.cell))
    if action.kind == LIGHT:
        return _("{player} lights a wick beside {place}.").format(player=who, place=_place(game, state, action.cell))
    if action.kind == FLIP:
        return _("{player} turns over {place}.").format(player=who, place=_place(game, state, action.cell))
    if action.kind == DISCARD:
        return _("{player} discards {card}.").format(player=who, card=card_words(pieces.kind_names[action.arg]))
    return _("{player} passes.").format(player=who)


def _both(names: list[str]) -> str:
    """``Ann and Bo`` (``Ann and Bo and Cy`` for three, as the rulebook's ties read)."""
    said = names[0]
    for name in names[1:]:
        said = _("{first} and {second}").format(first=said, second=name)
    return said


def narrate_state(game: LanternMothsGame, snapshot: Mapping[str, Any]) -> str:
    """The position in a few sentences: whose turn, the garden, the lanterns and the Dusk cards."""
    sentences = []
    if snapshot.get("over"):
        winners = snapshot.get("winners") or []
        sentences.append(_("The game is over; {winners} won.").format(winners=_both(winners)) if winners
                         else _("The game is over."))
    elif snapshot.get("current"):
        left = int(snapshot.get("actions_left", 0))
        sentences.append(ngettext("Round {round}: {player} is playing, with {count} action left.",
                                  "Round {round}: {player} is playing, with {count} actions left.", left).format(
            round=snapshot.get("round"), player=snapshot["current"], count=left))
    garden = snapshot.get("garden") or {}
    shown = []
    for place, cell in garden.items():
        if cell.get("face") != "up":
            continue
        moths = cell.get("moths") or []
        what = _("the {tile} tile at {place}").format(tile=cell.get("tile"), place=place)
        if moths:
            what = _("{place} with {moths}").format(place=what, moths=", ".join(card_words(m) for m in moths))
        if cell.get("wicks"):
            what = _("{place} (wicks: {wicks})").format(place=what, wicks=", ".join(cell["wicks"]))
        shown.append(what)
    if shown:
        sentences.append(_("Face up: {places}.").format(places="; ".join(shown)))
    lanterns = snapshot.get("lanterns") or {}
    if any(lanterns.values()):
        sentences.append(_("In the lanterns: {lanterns}.").format(lanterns="; ".join(
            ngettext("{name} {count} moth", "{name} {count} moths", len(cards)).format(name=name, count=len(cards))
            for name, cards in lanterns.items())))
    dusk = snapshot.get("dusk") or {}
    if dusk.get("out"):
        out = int(dusk["out"])
        sentences.append(ngettext("{count} Dusk card out.", "{count} Dusk cards out.", out).format(count=out))
    return " ".join(sentences)


def narrate_dealt_again(game: LanternMothsGame, state: State, seat: str, part: str) -> str:
    """What a reader trying moves from ``seat`` is told of ``part`` (one of the observer's hidden parts) dealt again
    for the try, in the rulebook's words; nothing for a part with nothing hidden from the seat (or the draws to come,
    which no one knows in any game)."""
    observer = game.observer
    view = observer.view(state, seat)
    others = observer.others(state.players, seat)
    if part in ("hands", "lanterns"):
        unseen = [name for name in others if HIDDEN in (view[part].get(name) or [])]
        said = (_("You cannot see {player}'s hand: it is dealt again for this try.") if part == "hands" else
                _("You cannot see the moths beside {player}'s lantern: they are dealt again for this try."))
        return " ".join(said.format(player=name) for name in unseen)
    if part == "deck" and int(view["deck"].get("count") or 0) > 1:
        return _("You cannot see the order of the deck: it is shuffled again for this try.")
    if part == "face-down tiles" and any(place.get("face") == "down" for place in view["garden"].values()):
        return _("You cannot see the face-down garden tiles: they are shuffled again for this try.")
    if part == "discard pile" and HIDDEN in (view["discard"].get("cards") or []):
        return _("You cannot see the cards under the top of the discard pile: they are shuffled again for this try.")
    return ""
