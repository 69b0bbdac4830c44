"""An example's action steps and described state, checked against the shapes its engine declares.

An engine may declare, per action (``do:`` value), the keys a step may carry and what each holds
(``EngineSpec.action_schema``), and the shape of a described state (``EngineSpec.state_schema``); a
:class:`~rulepress.basegame.BaseGame` derives both from its ``ACTIONS`` and ``STATE_KEYS`` (rulepress guide
engine).  A step
is then checked, before anything replays, against the keys the gate itself reads (:data:`GATE_KEYS`) plus the
engine's own, with jsonschema like every other source (rulepress/load/schema.py): a misspelt ``ilegal:`` or
``plyer:`` is an unknown key at its own line with a "did you mean", not a step quietly replayed as something else.

The schemas check shape, never legality: a value the rules forbid (taking 4 stones when 3 is the most) must pass
them, reach the engine and be refused there, so that it can be written as an ``illegal:`` step.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from rulepress.errors import SourceError
from rulepress.load import schema as schemas
from rulepress.load.examples import Example
from rulepress.protocol import EngineSpec, provided

GATE_KEYS = ("do", "player", "illegal", "note")
"""What every action step may say whatever the engine: the action, who acts, the rule expected to refuse it, and
a note for the reader.  The example schema (load/schemas/example.yaml) checks their values."""

_ACTION_KEYS = {"properties", "required", "x-expect"}  # what an action_schema entry may hold


@dataclass(frozen=True)
class Declared:
    """What an engine declares, and where (for an error in the declaration itself)."""

    actions: Mapping[str, Any] | None
    state: Mapping[str, Any] | None
    origin: str  # "engine/mini/__init__.py" (whose ENGINE declares them), or "engine/x/__init__.py (ACTIONS)" (derived)


_DECLARED: dict[tuple[int, int, str], tuple[EngineSpec, Any, Declared]] = {}


def declared(engine: EngineSpec, game: Any, root: Path) -> Declared:
    """The engine's step and state shapes: its declaration's ``action_schema``/``state_schema``, else (a
    :class:`~rulepress.basegame.BaseGame`) derived from ``ACTIONS``/``STATE_KEYS``.  Worked out once per game (a
    book's examples share one per set of options).

    Calls engine code (the game's derivation): call it under the engine's guard.
    """
    key = (id(engine), id(game), str(root))
    kept = _DECLARED.get(key)
    if kept is not None and kept[0] is engine and kept[1] is game:  # (held: their ids are not reused meanwhile)
        return kept[2]
    found = _declared(engine, game, root)
    if len(_DECLARED) >= 16:
        del _DECLARED[next(iter(_DECLARED))]
    _DECLARED[key] = (engine, game, found)
    return found


def _declared(engine: EngineSpec, game: Any, root: Path) -> Declared:
    from rulepress.verify.engines import field_place

    actions, state = engine.action_schema, engine.state_schema
    origin = field_place(engine, "action_schema" if actions is not None else "state_schema", root)[0]
    # What the declaration leaves out, a game on the base class derives (BaseGame.derived_schemas: from ACTIONS and
    # STATE_KEYS); a game on the bare protocol derives none.
    derived = provided(game, "derived_schemas")
    if derived is not None and (actions is None or state is None):
        own_actions, own_state = derived()
        if actions is None:
            actions, origin = own_actions, f"{origin} (ACTIONS)"
        if state is None:
            state = own_state
    return Declared(actions, state, origin)


def example_schema(found: Declared) -> dict[str, Any]:
    """One JSON Schema over a whole example: its action steps by ``do`` and its ``start.state``.

    Each action's keys are the gate's plus the engine's, nothing else (``additionalProperties: false`` in the
    same subschema as the ``properties`` it closes, so an unknown key gets the list of known ones).
    """
    properties: dict[str, Any] = {}
    if found.actions is not None:
        names = [str(name) for name in found.actions]
        cases = {}
        for name, spec in found.actions.items():
            own = dict(spec.get("properties", {}))
            keys = {key: {} for key in GATE_KEYS} | own
            shape: dict[str, Any] = {"properties": keys, "additionalProperties": False}
            if spec.get("required"):
                shape["required"] = list(spec["required"])
            cases[str(name)] = shape
        # Each step is checked against its own action's shape only (rulepress/load/schema.py's x-by-key).
        action = {"properties": {"do": {"enum": names}}, "x-by-key": {"key": "do", "cases": cases}}
        properties["steps"] = {"type": "array", "items": {"if": {"type": "object", "required": ["do"]},
                                                         "then": action}}
    if found.state is not None:
        properties["start"] = {"type": "object", "properties": {"state": dict(found.state)}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": properties}


def check_declaration(found: Declared) -> str | None:
    """What is wrong with the declaration itself (None when it is a usable schema)."""
    if found.actions is not None:
        if not isinstance(found.actions, Mapping) or not found.actions:
            return "action_schema must be a non-empty mapping of action names to {properties: ..., required: [...]}"
        for name, spec in found.actions.items():
            if not isinstance(name, str) or not isinstance(spec, Mapping) or set(spec) - _ACTION_KEYS:
                return (f"action_schema[{name!r}] must be a mapping with 'properties' (key -> JSON Schema) and "
                        f"'required' (a list of keys)")
            unknown = set(spec.get("required", ())) - set(spec.get("properties", {})) - set(GATE_KEYS)
            if unknown:
                return f"action_schema[{name!r}] requires {sorted(unknown)[0]!r}, which its properties do not name"
    if found.state is not None and not isinstance(found.state, Mapping):
        return "state_schema must be a JSON Schema (a mapping) for start.state"
    try:
        _validator(json.dumps(example_schema(found), sort_keys=True))
    except (SchemaError, TypeError, ValueError) as exc:
        detail = exc.message if isinstance(exc, SchemaError) else str(exc)
        return f"the declared step/state schema is not a valid JSON Schema: {detail}"
    return None


@lru_cache(maxsize=32)
def _validator(text: str) -> dict[str, Any]:
    """The schema, checked once per distinct declaration (examples of a book share one)."""
    data: dict[str, Any] = json.loads(text)
    Draft202012Validator.check_schema(data)
    steps = data["properties"].get("steps")
    for case in steps["items"]["then"]["x-by-key"]["cases"].values() if steps else ():
        Draft202012Validator.check_schema(case)  # the meta-schema does not look inside a keyword of ours
    return data


def problems(example: Example, found: Declared, prefix: str | None) -> list[SourceError]:
    """Every way ``example``'s action steps and described state break the engine's declared shapes, by line.

    ``Declared`` with nothing declared checks nothing.  A declaration that is itself broken is one problem
    against the engine's file.
    """
    if found.actions is None and found.state is None:
        return []
    broken, schema = _checked(found)
    if broken is not None:
        return [SourceError(found.origin, None, broken)]
    assert schema is not None
    return schemas.validate_with(example.raw, schema, example.file, prefix)


_CHECKED: dict[int, tuple[Declared, str | None, dict[str, Any] | None]] = {}


def _checked(found: Declared) -> tuple[str | None, dict[str, Any] | None]:
    """What :func:`check_declaration` says of ``found``, and its schema, once per declaration (every example of a
    book is checked against the same one)."""
    kept = _CHECKED.get(id(found))
    if kept is None or kept[0] is not found:
        broken = check_declaration(found)
        schema = None if broken else _validator(json.dumps(example_schema(found), sort_keys=True))
        if len(_CHECKED) >= 16:
            del _CHECKED[next(iter(_CHECKED))]
        kept = _CHECKED[id(found)] = (found, broken, schema)
    return kept[1], kept[2]
