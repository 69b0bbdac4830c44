"""Where a game draws, as a diagram's fault names it (rulepress.verify.diagram.drawn_by): its own ``render_svg``,
or, for a game whose ``render_svg`` comes from outside the project (rulepress.basegame's pipeline), its ``draw``;
the bare name when neither is the project's code."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from rulepress.verify.diagram import drawn_by

SOURCE = '''\
class Drawn:
    def render_svg(self, state, caption=None):
        return "<svg/>"


class DrawsOnly(BASE):
    def draw(self, state):
        return None
'''


class Base:
    """A base class outside the project: its render_svg is the pipeline's, as BaseGame's is."""

    def render_svg(self, state: Any, caption: str | None = None) -> str:
        return "<svg/>"


class Nowhere(Base):
    pass


class Builtin:
    render_svg = len  # no source to find


def _module(folder: Path) -> Any:
    path = folder / "engine" / "game.py"
    path.parent.mkdir(parents=True)
    path.write_text(SOURCE.replace("BASE", "Base"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("drawn_by_game", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.Base = Base  # type: ignore[attr-defined]
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("name", "says"), [
    ("Drawn", "render_svg (engine/game.py:2)"),
    ("DrawsOnly", "draw (engine/game.py:7)"),
    ("Nowhere", "render_svg"),
    ("Builtin", "render_svg"),
])
def test_a_diagram_fault_names_where_the_game_draws(tmp_path: Path, name: str, says: str) -> None:
    module = _module(tmp_path)
    game = getattr(module, name, None) or globals()[name]
    assert drawn_by(game(), tmp_path) == says
