"""The player edition's words for actions and positions: the rulebook's terms, never engine notation.

``steps.describe`` (``abandoned T43 onto e10 e11 e12 e13 f12``) stays the engine's terse form for designers
and error messages; this module says the same as the rulebook would: lanes are lettered and steps numbered
(rules chapter "Components"), Familiars and abilities go by their printed names.

Every word goes through the engine's message catalogs (``rulepress.i18n``): the English sentence is the message
ID, and ``locale/<lang>/LC_MESSAGES/narrate.po`` translates it.  Whole sentences are messages, with named
placeholders, so a translator can reorder them; the few pieces that are joined (a list, a payment clause) are
messages too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rulepress.i18n import N_, translator
from rulepress.protocol import HIDDEN

from .actions import Action
from .geometry import LANE_LETTERS

if TYPE_CHECKING:
    from .game import LastLanternGame
    from .state import State

_tr = translator(__name__)
_, ngettext, pgettext = _tr.gettext, _tr.ngettext, _tr.pgettext

# Engine notation that must never reach the player edition (checked by rulepress.render.player_text).
NOTATION: dict[str, str] = {
    "list of spaces": r"\b[a-z][0-9]{1,2}(?: [a-z][0-9]{1,2}){2,}\b",  # e10 e11 e12: canopy cells
    "Familiar counts": r"\b[RSOW][0-9]+ [RSOW][0-9]+\b",  # R1 S0 O0
    "list of lake spaces": r"\b[A-Z][0-9]{1,2}(?: [A-Z][0-9]{1,2}){2,}\b",  # D3 E3 C4: Frozen Lake cells
    "tile shape": r"[#.]{2,}(?: / [#.]+)+",  # ### / .#.: a shape as rows of squares
}

# Each Familiar's printed name: alone, with its article, and counted (singular, plural).
_NAMES = {"rabbit": N_("Rabbit"), "snail": N_("Snail"), "owl": N_("Owl"), "wolf": N_("Wolf")}
_WITH_ARTICLE = {"rabbit": N_("a Rabbit"), "snail": N_("a Snail"), "owl": N_("an Owl"), "wolf": N_("a Wolf")}
# With "the", and its location: whole phrases, because other languages elide (l'Escargot, de l'Escargot).
_THE = {"rabbit": N_("the Rabbit"), "snail": N_("the Snail"), "owl": N_("the Owl"), "wolf": N_("the Wolf")}
_LOCATION = {"rabbit": N_("the Rabbit's location"), "snail": N_("the Snail's location"),
             "owl": N_("the Owl's location"), "wolf": N_("the Wolf's location")}


def _counted(kind: str, count: int) -> str:
    # One ngettext call per kind, with literal messages, so that the extractor sees each of them.
    if kind == "rabbit":
        return ngettext("{count} Rabbit", "{count} Rabbits", count).format(count=count)
    if kind == "snail":
        return ngettext("{count} Snail", "{count} Snails", count).format(count=count)
    if kind == "owl":
        return ngettext("{count} Owl", "{count} Owls", count).format(count=count)
    if kind == "wolf":
        return ngettext("{count} Wolf", "{count} Wolves", count).format(count=count)
    return f"{count} {kind.capitalize()}{'' if count == 1 else 's'}"  # not a Familiar of the book: as the data says


def _and(words: Sequence[str]) -> str:
    if len(words) == 1:
        return words[0]
    return _("{items} and {last}").format(items=", ".join(words[:-1]), last=words[-1])


def a_or_an(word: str) -> str:
    """``owl`` -> ``an owl``, ``snail`` -> ``a snail``: for the rules' refusals, which are English."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def familiar(kind: str, article: bool = True) -> str:
    """``owl`` -> ``an Owl``."""
    if kind in _NAMES:
        return _(_WITH_ARTICLE[kind] if article else _NAMES[kind])
    name = kind.capitalize()  # not a Familiar of the book (a described state's typo): as the data says
    return ("an " if name[:1] in "AEIOU" else "a ") + name if article else name


def _the(kind: str) -> str:
    return _(_THE[kind]) if kind in _THE else f"the {familiar(kind, False)}"


def _location(kind: str) -> str:
    return _(_LOCATION[kind]) if kind in _LOCATION else f"the {familiar(kind, False)}'s location"


def tile_words(tile: str) -> str:
    """``T03`` -> ``Tree tile T03``; ``A08`` -> ``Ability tile A08`` (the components chapter's names)."""
    if not tile:
        return _("a tile")
    if tile[:1] == "T":
        return _("Tree tile {tile}").format(tile=tile)
    if tile[:1] == "A":
        return _("Ability tile {tile}").format(tile=tile)
    return _("tile {tile}").format(tile=tile)


def spaces_words(names: Sequence[str]) -> str:
    """Canopy spaces grouped by lane: ``e10 e11 f12`` -> ``lane e, steps 10 to 11, and lane f, step 12``;
    Frozen Lake spaces (capital letters) are listed by name."""
    if not names:
        return _("no space")
    if names[0][:1] not in LANE_LETTERS:
        return _("the Frozen Lake at {spaces}").format(spaces=_and(sorted(names)))
    lanes: dict[str, list[int]] = {}
    for name in names:
        lanes.setdefault(name[0], []).append(int(name[1:]))
    parts = []
    for lane, steps in sorted(lanes.items()):
        steps.sort()
        if len(steps) == 1:
            parts.append(_("lane {lane}, step {step}").format(lane=lane, step=steps[0]))
        elif len(steps) == 2 and steps[1] == steps[0] + 1:  # English says "10 to 11"; French "10 et 11"
            parts.append(pgettext("two steps", "lane {lane}, steps {first} to {last}").format(
                lane=lane, first=steps[0], last=steps[1]))
        elif steps == list(range(steps[0], steps[-1] + 1)):
            parts.append(_("lane {lane}, steps {first} to {last}").format(lane=lane, first=steps[0], last=steps[-1]))
        else:
            parts.append(_("lane {lane}, steps {steps}").format(lane=lane, steps=_and([str(s) for s in steps])))
    # Lanes whose own words hold commas are set apart with semicolons, so the list still reads as one per lane.
    return "; ".join(parts) if len(parts) > 1 and any("," in p for p in parts) else _and(parts)


def narrate_action(game: LastLanternGame, state: State, action: Action) -> str:
    """What the players did, in the rulebook's words (``state`` is the position before the action)."""
    rules = game.rules(state.n)  # the board depends on the player count

    def who(p: int) -> str:
        return state.players[p] if 0 <= p < len(state.players) else _("Nobody")

    paid = (_(", paying with Familiars from {payers}").format(payers=_and([who(p) for p in action.payers]))
            if action.payers else "")
    do, player, other = action.do, who(action.player), who(action.other)
    if do == "draw":
        return _("Tree tiles are drawn and laid beside the Familiar locations.")
    if do == "done":
        return _("The players finish Journeying.")
    if do == "choose":
        return _("{player} chooses {location}.").format(player=player, location=_location(action.where))
    if do == "resolve":
        return _("At {location}, {player} takes the tile and {other} takes {familiar}.").format(
            location=_location(action.where), player=player, other=other, familiar=_the(action.where))
    if do == "take-from":
        said = (_("{player} takes {familiar} from {other}, and they agree.") if action.agreed
                else _("{player} takes {familiar} from {other}."))
        return said.format(player=player, familiar=familiar(action.where), other=other)
    if do == "go-without":
        return _("{player} goes without {familiar}.").format(player=player, familiar=familiar(action.where))
    if do == "give":
        return _("{player} gives {familiar} to {other}.").format(
            player=player, familiar=familiar(action.where), other=other)
    if do == "place":
        return _("{player} lays {tile} on {spaces}.").format(
            player=player, tile=tile_words(action.tile), spaces=spaces_words(rules.canopy.names_of(action.mask)))
    if do == "cannot-place":
        return _("{player} cannot lay {tile} anywhere.").format(player=player, tile=tile_words(action.tile))
    if do == "back-on-track":
        if action.tile:
            return _("{player} uses Back on Track to take {tile} off the Path Astray track{paid}.").format(
                player=player, tile=tile_words(action.tile), paid=paid)
        return _("{player} uses Back on Track{paid}.").format(player=player, paid=paid)
    if do == "lighting-the-way":
        return _("{player} uses Lighting the Way{paid}.").format(player=player, paid=paid)
    if do == "through-the-fog":
        return _("{player} uses Through the Fog to pass {tile} to {other}{paid}.").format(
            player=player, tile=tile_words(action.tile), other=other, paid=paid)
    if do == "guiding-hand":
        said = (_("{player} uses Guiding Hand: {familiar} from {giver} goes to {other}{paid}.") if action.third >= 0
                else _("{player} uses Guiding Hand: {familiar} goes to {other}{paid}."))
        return said.format(player=player, familiar=familiar(action.where), giver=who(action.third), other=other,
                           paid=paid)
    if do == "lantern":
        return _("{player} resolves crossing a lantern.").format(player=player)
    if do == "return":
        return _("{player} puts {familiar} back on its location.").format(
            player=player, familiar=familiar(action.where))
    if action.mask:
        board = rules.lake if rules.lake is not None else rules.canopy
        return _("{tile} is abandoned onto {spaces}.").format(
            tile=tile_words(action.tile), spaces=spaces_words(board.names_of(action.mask)))
    return _("{tile} is abandoned onto the Path Astray track.").format(tile=tile_words(action.tile))


def narrate_state(game: LastLanternGame, snapshot: Mapping[str, Any]) -> str:
    """The position in a few sentences: the round, the black Fireflies, each player and the track."""
    sentences = [_("Round {round}.").format(round=snapshot.get("round"))]
    if snapshot.get("over"):
        sentences.append(_("The players win.") if snapshot.get("won") else _("The players lose."))
    black = int(snapshot.get("black") or 0)
    sentences.append(ngettext("{count} black Firefly on the board.", "{count} black Fireflies on the board.",
                              black).format(count=black))
    for name, player in (snapshot.get("players") or {}).items():
        familiars = player.get("familiars") or {}
        held = [_counted(kind, count) for kind, count in familiars.items() if count]
        crossed = player.get("lanterns") or []
        lanterns = (ngettext("{player} has crossed lantern {lanterns}", "{player} has crossed lanterns {lanterns}",
                             len(crossed)) if crossed else _("{player} has crossed no lantern"))
        lanterns = lanterns.format(player=name, lanterns=_and([str(n) for n in crossed]) if crossed else "")
        sentences.append(_("{crossed} and holds {familiars}.").format(crossed=lanterns, familiars=_and(held))
                         if held else lanterns + ".")
    track = snapshot.get("track") or []
    if track:
        sentences.append(_("On the Path Astray track: {tiles}.").format(
            tiles=_and([tile_words(str(t)) for t in track])))
    return " ".join(sentences)


def narrate_dealt_again(game: LastLanternGame, state: Any, seat: str, part: str) -> str:
    """What a reader trying moves from ``seat`` is told of ``part`` (one of the observer's hidden parts) dealt again
    for the try, in the rulebook's words; nothing for a part with nothing hidden from the seat."""
    view = game.observer.view(state, seat)
    if part == "choices":
        return " ".join(_("You cannot see {player}'s Character wheel: its choice is made again for this try.").format(
            player=name) for name, player in view["players"].items() if player.get("choice") == HIDDEN)
    if part == "draws" and int(view.get("tile_bag") or 0) > 1:
        return _("You cannot see the order of the tile bag: it is shuffled again for this try.")
    if part == "firefly bag" and HIDDEN in (view.get("bag") or {}).values():
        return _("You cannot see the colours in the Firefly bag: they are drawn again for this try.")
    return ""
