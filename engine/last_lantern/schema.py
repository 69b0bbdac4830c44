"""What an example step and a described state may say (docs/ENGINE.md): the gate checks both, with lines.

Shape only: players, tiles, spaces and Familiars are named as text (``steps.py`` resolves them, forgiving a
plural or a capital); whether the rules allow the action is for the engine to say, so that a forbidden one can
be written as an ``illegal:`` step.
"""

from __future__ import annotations

from typing import Any

from .describe import KEYS

_TEXT = {"type": "string", "minLength": 1}
_PLAYER = {**_TEXT, "x-expect": "a player's name"}
_NOBODY = {"type": ["string", "null"], "x-expect": "a player's name, or none"}
_KIND = {**_TEXT, "x-expect": "a Familiar or location: rabbit, snail, owl or wolf"}
_TILE = {**_TEXT, "x-expect": "a Tree tile's name"}
_CELLS = {"type": ["array", "string"], "items": {"type": "string"}, "x-expect": "a list of spaces, e.g. [c3, c4]"}
_SPACE = {**_TEXT, "x-expect": "a space, e.g. c3"}
_PAY = {"type": ["array", "string", "object"], "x-expect": "the players who pay, one per Familiar"}
_AGREED = {"type": "boolean", "x-expect": "true or false"}

ACTION_SCHEMA: dict[str, Any] = {
    "draw": {}, "done": {}, "lantern": {}, "go-without": {},
    "choose": {"properties": {"location": _KIND}, "required": ["player", "location"]},
    "resolve": {"properties": {"location": _KIND, "tile": _NOBODY, "familiar": _PLAYER},
                "required": ["location", "familiar"]},
    "take-from": {"properties": {"familiar": _KIND, "from": _PLAYER, "agreed": _AGREED}, "required": ["from"]},
    "give": {"properties": {"familiar": _KIND, "to": _PLAYER}, "required": ["familiar", "to"]},
    "place": {"properties": {"tile": _TILE, "cells": _CELLS, "flower": _SPACE}, "required": ["tile", "cells"]},
    "cannot-place": {"properties": {"tile": _TILE}},
    "back-on-track": {"properties": {"tile": _TILE, "pay": _PAY}},
    "lighting-the-way": {"properties": {"pay": _PAY}},
    "through-the-fog": {"properties": {"tile": _TILE, "to": _PLAYER, "pay": _PAY}},
    "guiding-hand": {"properties": {"familiar": _KIND, "to": _PLAYER, "from": _NOBODY, "agreed": _AGREED,
                                    "pay": _PAY},
                     "required": ["familiar", "to"]},
    "return": {"properties": {"familiar": _KIND}, "required": ["familiar"]},
    "astray": {"properties": {"tile": _TILE, "cells": _CELLS, "flower": _SPACE}},
}

# The top-level keys of start.state (describe.py reads each); their contents are checked there.
STATE_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False,
                                "properties": {key: {} for key in sorted(KEYS)}}
