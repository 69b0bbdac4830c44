"""What an example step and a described state may say (docs/ENGINE.md): the gate checks both, with lines.

Shape only: cards and places are named as text; which card and place exist, and whether the rules allow the
action, is for the engine to say (so a forbidden action can be written as an ``illegal:`` step).
"""

from __future__ import annotations

from typing import Any

from .actions import SOURCES
from .describe import KEYS

_NAME = {"type": "string", "minLength": 1}
_CARD = {**_NAME, "x-expect": "a card's name, e.g. moth-amber"}
_TILE = {**_NAME, "x-expect": "a garden place, e.g. b2"}

ACTION_SCHEMA: dict[str, Any] = {
    "draw": {"properties": {"from": {"enum": list(SOURCES)}}},
    "plant": {"properties": {"card": _CARD, "tile": _TILE}, "required": ["card", "tile"]},
    "light": {"properties": {"tile": _TILE}, "required": ["tile"]},
    "flip": {"properties": {"tile": _TILE}, "required": ["tile"]},
    "pass": {},
    "discard": {"properties": {"card": _CARD}, "required": ["card"]},
}

# The top-level keys of start.state (describe.py reads each, and the garden's places); contents checked there.
STATE_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False,
                                "properties": {key: {} for key in KEYS}}
