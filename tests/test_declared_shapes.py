"""Where the gate finds an engine's step and state shapes (rulepress.verify.steps.declared): the package's own
ACTION_SCHEMA and STATE_SCHEMA, else what a BaseGame derives from its ACTIONS and STATE_KEYS."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from rulepress.verify.steps import Declared, declared

ACTIONS = {"take": {"properties": {"stones": {"type": "integer"}}, "required": ["stones"]}}
STATE = {"type": "object", "properties": {"pile": {"type": "integer"}}}


class Derives:
    def action_schema(self) -> dict[str, Any]:
        return {"derived": {"properties": {}}}

    def state_schema(self) -> dict[str, Any]:
        return {"type": "object"}


def _engine(name: str, **declares: Any) -> ModuleType:
    """An engine package with no ``schema`` module, declaring what it is given."""
    module = ModuleType(name)
    module.__path__ = []  # a package: the gate looks for its schema module
    for key, value in declares.items():
        setattr(module, key, value)
    sys.modules[name] = module
    return module


def test_an_engines_own_schemas_are_the_shapes(tmp_path: Path) -> None:
    engine = _engine("shapes_own", ACTION_SCHEMA=ACTIONS, STATE_SCHEMA=STATE)
    assert declared(engine, Derives(), tmp_path) == Declared(ACTIONS, STATE, "shapes_own")


def test_a_game_derives_what_its_engine_does_not_declare(tmp_path: Path) -> None:
    only_state = _engine("shapes_state", STATE_SCHEMA=STATE)
    assert declared(only_state, Derives(), tmp_path) == Declared({"derived": {"properties": {}}}, STATE,
                                                                 "shapes_state (ACTIONS)")
    nothing = _engine("shapes_none")
    assert declared(nothing, Derives(), tmp_path) == Declared({"derived": {"properties": {}}}, {"type": "object"},
                                                              "shapes_none (ACTIONS)")
    assert declared(_engine("shapes_bare"), object(), tmp_path) == Declared(None, None, "shapes_bare")
