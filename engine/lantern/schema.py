"""What an example step and a described state may say (docs/ENGINE.md): the gate checks both, with lines.

Shape only: a die face is 1-6 and a target one of the sheet's names; whether the rules allow the action is
for ``LanternGame.apply`` to say (so a forbidden one can be written as an ``illegal:`` step).
"""

from __future__ import annotations

from typing import Any

from .actions import ASSIGN, BONUS, CONCEDE, CONSTITUTION, COUNTER, ENTER, LEAVE, REROLL, SPELL, STRIKE
from .describe import _KEYS as STATE_KEYS
from .sheet import POOLS, TARGETS

_FACE = {"type": "integer", "minimum": 1, "maximum": 6, "x-expect": "a die face, 1 to 6"}
_DIE = {"properties": {"die": _FACE}, "required": ["die"]}

ACTION_SCHEMA: dict[str, Any] = {
    REROLL: {}, ENTER: {}, LEAVE: {}, CONCEDE: {},
    ASSIGN: {"properties": {"die": _FACE, "to": {"enum": list(TARGETS)}}, "required": ["die", "to"]},
    STRIKE: _DIE, SPELL: _DIE,
    COUNTER: {"properties": {"die": _FACE, "to": _FACE}, "required": ["die", "to"]},
    CONSTITUTION: {"properties": {"dice": {"type": "array", "minItems": 1, "items": _FACE,
                                           "x-expect": "the faces of the dice re-rolled, e.g. [2, 5]"}},
                   "required": ["dice"]},
    BONUS: {"properties": {"ability": {"enum": list(POOLS)}}, "required": ["ability"]},
}

# The top-level keys of start.state (describe.py reads each); their contents are checked there.
STATE_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False,
                                "properties": {key: {} for key in sorted(STATE_KEYS)}}
