"""Where the gate finds an engine's step and state shapes (rulepress.verify.steps.declared): its EngineSpec's own
``action_schema`` and ``state_schema``, else what a BaseGame derives from its ACTIONS and STATE_KEYS; a game not on
BaseGame derives nothing.  The shapes' origin is the engine's declaration file (where a problem with them points)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from rulepress.basegame import BaseGame
from rulepress.protocol import EngineSpec, register_engine
from rulepress.verify.steps import Declared, declared

ACTIONS = {"take": {"properties": {"stones": {"type": "integer"}}, "required": ["stones"]}}
STATE = {"type": "object", "properties": {"pile": {"type": "integer"}}}


class Derives(BaseGame):
    """A BaseGame whose derived shapes are recognisable (made without its setup: the gate only asks for these)."""

    def action_schema(self) -> dict[str, Any]:
        return {"derived": {"properties": {}}}

    def state_schema(self) -> dict[str, Any]:
        return {"type": "object"}

    def start(self, *args: Any) -> Any:
        raise AssertionError("the gate asks a game only for its shapes here")

    snapshot = draw = start


def _derives() -> Derives:
    return Derives.__new__(Derives)


def _engine(root: Path, name: str, **declares: Any) -> EngineSpec:
    """An engine package ``name`` in ``root``'s engine folder, declaring the shapes it is given."""
    init = root / "engine" / name / "__init__.py"
    init.parent.mkdir(parents=True)
    init.write_text("")
    module = ModuleType(name)
    module.__file__ = str(init)
    sys.modules[name] = module
    spec = EngineSpec(book_id="shapes", make_game=Derives, min_num_players=2, max_num_players=2,
                      chance_mode="deterministic", information="perfect_information", utility="zero_sum", **declares)
    return register_engine(spec, name)


def test_an_engines_own_schemas_are_the_shapes(tmp_path: Path) -> None:
    engine = _engine(tmp_path, "shapes_own", action_schema=ACTIONS, state_schema=STATE)
    assert declared(engine, _derives(), tmp_path) == Declared(ACTIONS, STATE, "engine/shapes_own/__init__.py")


def test_a_game_derives_what_its_engine_does_not_declare(tmp_path: Path) -> None:
    only_state = _engine(tmp_path, "shapes_state", state_schema=STATE)
    assert declared(only_state, _derives(), tmp_path) == Declared({"derived": {"properties": {}}}, STATE,
                                                                  "engine/shapes_state/__init__.py (ACTIONS)")
    nothing = _engine(tmp_path, "shapes_none")
    assert declared(nothing, _derives(), tmp_path) == Declared({"derived": {"properties": {}}}, {"type": "object"},
                                                               "engine/shapes_none/__init__.py (ACTIONS)")
    assert declared(_engine(tmp_path, "shapes_bare"), object(), tmp_path) == \
        Declared(None, None, "engine/shapes_bare/__init__.py")
