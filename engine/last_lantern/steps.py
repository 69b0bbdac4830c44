"""Example steps to actions and back (``{player: Milo, do: choose, location: snail}``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rulepress.protocol import DescriptionError, meant

from .abilities import ABILITY_NAMES, TRIO, removable
from .actions import Action
from .astray import waiting
from .placement import anchor_of
from .state import LOCATIONS

if TYPE_CHECKING:
    from .game import LastLantern
    from .pieces import Lay
    from .state import State

KNOWN = {
    "draw",
    "choose",
    "resolve",
    "take-from",
    "go-without",
    "give",
    "place",
    "cannot-place",
    "done",
    "back-on-track",
    "lighting-the-way",
    "through-the-fog",
    "guiding-hand",
    "lantern",
    "return",
    "astray",
}


def _player(s: State, value: Any, key: str) -> int:
    if value is None:
        raise DescriptionError(key, "this step needs a player")
    if str(value) not in s.players:
        raise DescriptionError(key, f"unknown player {value!r} (players: {', '.join(s.players)})")
    return s.players.index(str(value))


def _optional_player(s: State, value: Any, key: str) -> int:
    if value is None or str(value).lower() in ("none", "nobody"):
        return -1
    return _player(s, value, key)


def _names(value: Any, key: str) -> list[str]:
    if isinstance(value, str):
        return value.replace(",", " ").split()
    if isinstance(value, Sequence):
        return [str(v) for v in value]
    raise DescriptionError(key, "cells are a list of spaces (or one string of space names)")


def _kind(value: Any, key: str, kinds: Sequence[str] = LOCATIONS) -> str:
    text = str(value).lower().rstrip("s") if value is not None else ""
    if text not in kinds:
        raise DescriptionError(key, f"{value!r} is not one of {', '.join(kinds)}")
    return text


def _lay_for(
    lays: Sequence[Lay], mask: int, columns: int, stride: int, flower: int, strict: bool = True
) -> int:
    """The orientation laying a tile on exactly ``mask`` (the flower square breaks ties), or -1.

    ``strict``: a flower whose square is ambiguous must be named (it counts on the paths, for Blossoms).
    """
    found = []
    for o, lay in enumerate(lays):
        anchor = anchor_of(lay, mask, columns, stride)
        if anchor >= 0:
            found.append((o, anchor + lay.mark if lay.mark >= 0 else -1))
    if flower >= 0:
        found = [f for f in found if f[1] == flower]
    if not found:
        return -1
    if strict and len({mark for _, mark in found}) > 1:
        raise DescriptionError(
            "flower", "the tile's flower could be on several of these spaces: name it with flower: <space>"
        )
    return found[0][0]


def _payers(s: State, step: Mapping[str, Any], kinds: Sequence[str]) -> tuple[int, ...]:
    pay = step.get("pay")
    if pay is None:
        return ()
    if isinstance(pay, Mapping):
        return tuple(_player(s, pay.get(k), f"pay.{k}") for k in kinds)
    names = _names(pay, "pay")
    if len(names) != len(kinds):
        raise DescriptionError("pay", f"name {len(kinds)} players, one per Familiar")
    return tuple(_player(s, n, "pay") for n in names)


def parse(g: LastLantern, s: State, step: Mapping[str, Any]) -> Action:
    do = str(step.get("do", ""))
    if do not in KNOWN:
        raise DescriptionError("do", f"unknown action {do!r} ({meant(do, KNOWN)}known: {', '.join(sorted(KNOWN))})")
    get = step.get
    if do in ("draw", "done"):
        return Action(do)
    if do == "choose":
        return Action(do, _player(s, get("player"), "player"), where=_kind(get("location"), "location"))
    if do == "resolve":
        return Action(
            do,
            _optional_player(s, get("tile"), "tile"),
            where=_kind(get("location"), "location"),
            other=_player(s, get("familiar"), "familiar"),
        )
    p = _optional_player(s, get("player"), "player")
    if do == "take-from":
        kind = s.takes_familiar[0][1] if s.takes_familiar else _kind(get("familiar"), "familiar")
        return Action(
            do, p, where=kind, other=_player(s, get("from"), "from"), agreed=bool(get("agreed", False))
        )
    if do == "go-without":
        return Action(do, p, where=s.takes_familiar[0][1] if s.takes_familiar else "")
    if do == "give":
        return Action(do, p, where=_kind(get("familiar"), "familiar"), other=_player(s, get("to"), "to"))
    if do == "place":
        tile = str(get("tile", ""))
        if tile not in g.tiles:
            raise DescriptionError("tile", f"unknown tile {tile!r}")
        c = g.canopy
        mask = c.cells(_names(get("cells"), "cells"), "cells")
        flower = c.cell(str(get("flower")), "flower", "flower") if get("flower") is not None else -1
        orient = _lay_for(g.pieces.lays(tile), mask, c.columns, c.stride, flower)
        return Action(do, p, tile, mask, orient)
    if do == "cannot-place":
        tile = str(get("tile", s.hands[p][0] if p >= 0 and s.hands[p] else ""))
        return Action(do, p, tile)
    if do == "back-on-track":
        options = removable(g, s)
        tile = str(get("tile", options[0] if options else ""))
        return Action(do, p, tile, payers=_payers(s, step, TRIO))
    if do == "lighting-the-way":
        return Action(do, p, payers=_payers(s, step, TRIO))
    if do == "through-the-fog":
        to = _player(s, get("to"), "to") if get("to") is not None else p
        return Action(do, p, str(get("tile", "")), other=to, payers=_payers(s, step, TRIO))
    if do == "guiding-hand":
        return Action(
            do,
            p,
            where=_kind(get("familiar"), "familiar"),
            other=_player(s, get("to"), "to"),
            third=_optional_player(s, get("from"), "from"),
            agreed=bool(get("agreed", False)),
            payers=_payers(s, step, ("wolf", "wolf")),
        )
    if do == "lantern":
        return Action(do, p)
    if do == "return":
        return Action(do, p, where=_kind(get("familiar"), "familiar", TRIO))
    # astray
    tiles = waiting(s)
    tile = str(get("tile", tiles[0] if tiles else ""))
    if get("cells") is None:
        return Action(do, tile=tile)
    if tile not in g.tiles:
        raise DescriptionError("tile", f"unknown tile {tile!r}")
    if g.lake is not None:
        mask = g.lake.cells(_names(get("cells"), "cells"), "cells")
        orient = _lay_for(
            g.pieces.lake_lays[g.pieces.signature[tile]],
            mask,
            g.lake.columns,
            g.lake.stride,
            -1,
            strict=False,
        )
    else:
        c = g.canopy
        mask = c.cells(_names(get("cells"), "cells"), "cells")
        flower = c.cell(str(get("flower")), "flower", "flower") if get("flower") is not None else -1
        orient = _lay_for(
            g.pieces.canopy_lays[g.pieces.signature[tile]], mask, c.columns, c.stride, flower, strict=False
        )
    return Action(do, tile=tile, mask=mask, orient=orient)


def describe(g: LastLantern, s: State, a: Action) -> str:
    def who(p: int) -> str:
        return s.players[p] if 0 <= p < s.n else "nobody"

    def paid() -> str:
        if not a.payers:
            return ""
        return " (Familiars from " + ", ".join(who(p) for p in a.payers) + ")"

    do = a.do
    if do == "draw":
        return "draw Tree tiles for the Familiar locations"
    if do == "done":
        return "end Journeying"
    if do == "choose":
        return f"{who(a.player)} chooses the {a.where}"
    if do == "resolve":
        return f"at the {a.where}: tile to {who(a.player)}, Familiar to {who(a.other)}"
    if do == "take-from":
        return f"{who(a.player)} takes a {a.where} from {who(a.other)}" + (" (agreed)" if a.agreed else "")
    if do == "go-without":
        return f"{who(a.player)} goes without a {a.where}"
    if do == "give":
        return f"{who(a.player)} gives a {a.where} to {who(a.other)}"
    if do == "place":
        return f"{who(a.player)} places {a.tile} on {' '.join(g.canopy.names_of(a.mask))}"
    if do == "cannot-place":
        return f"{who(a.player)} cannot place {a.tile}"
    if do in ("back-on-track", "lighting-the-way"):
        extra = f" ({a.tile})" if do == "back-on-track" else ""
        return f"{who(a.player)} uses {ABILITY_NAMES[do]}{extra}{paid()}"
    if do == "through-the-fog":
        return f"{who(a.player)} uses Through the Fog: {a.tile} to {who(a.other)}{paid()}"
    if do == "guiding-hand":
        source = f" from {who(a.third)}" if a.third >= 0 else ""
        return f"{who(a.player)} uses Guiding Hand: a {a.where}{source} to {who(a.other)}{paid()}"
    if do == "lantern":
        return f"{who(a.player)} resolves their lantern crossing"
    if do == "return":
        return f"{who(a.player)} returns a {a.where}"
    if a.mask:
        names = g.lake.names_of(a.mask) if g.lake is not None else g.canopy.names_of(a.mask)
        return f"abandoned {a.tile} onto {' '.join(names)}"
    return f"abandoned {a.tile} onto the Path Astray track"


def as_step(g: LastLantern, s: State, a: Action) -> dict[str, Any]:
    """The example step that names ``a`` (the inverse of :func:`parse`; ``rulepress record`` writes it)."""

    def who(p: int) -> str:
        return s.players[p]

    do = a.do
    step: dict[str, Any] = {} if a.player < 0 or do in ("resolve", "astray") else {"player": who(a.player)}
    step["do"] = do
    if do == "choose":
        step["location"] = a.where
    elif do == "resolve":
        step.update(location=a.where, tile=who(a.player) if a.player >= 0 else "nobody", familiar=who(a.other))
    elif do == "take-from":
        step.update(familiar=a.where, **{"from": who(a.other)}, **({"agreed": True} if a.agreed else {}))
    elif do == "give":
        step.update(familiar=a.where, to=who(a.other))
    elif do == "place":
        step.update(tile=a.tile, **_laid(g.canopy, g.pieces.lays(a.tile)[a.orient], a.mask))
    elif do in ("cannot-place", "back-on-track"):
        step["tile"] = a.tile
    elif do == "through-the-fog":
        step.update(tile=a.tile, to=who(a.other))
    elif do == "guiding-hand":
        step.update(familiar=a.where, to=who(a.other), **({"from": who(a.third)} if a.third >= 0 else {}),
                    **({"agreed": True} if a.agreed else {}))
    elif do == "return":
        step["familiar"] = a.where
    elif do == "astray":
        step["tile"] = a.tile
        if a.mask:
            sig = g.pieces.signature[a.tile]
            if g.lake is not None:
                step["cells"] = g.lake.names_of(a.mask)  # the Frozen Lake has no flower squares to tell apart
            else:
                step.update(_laid(g.canopy, g.pieces.canopy_lays[sig][a.orient], a.mask))
    if a.payers:
        step["pay"] = [who(p) for p in a.payers]
    return step


def _laid(c: Any, lay: Lay, mask: int) -> dict[str, Any]:
    """``cells`` of a placement on the Canopy, and its ``flower`` square when the tile has one."""
    laid: dict[str, Any] = {"cells": c.names_of(mask)}
    if lay.mark >= 0:
        laid["flower"] = c.name(anchor_of(lay, mask, c.columns, c.stride) + lay.mark)
    return laid
