"""What a game may give beyond the protocol's methods is looked up in one place (issue 29 A).

``protocol.OPTIONAL_METHODS`` lists each optional method and ``protocol.provided`` is the one look-up by name: the
base class gives every one, a name the protocol does not list is an error in the tool, no module elsewhere asks a
game or an engine for a method with ``getattr``/``hasattr``, and an engine's method named close to one (a typo that
would lose the capability without a word) is refused at its line with "did you mean".
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import rulepress
from rulepress.basegame import BaseGame, BaseObserver
from rulepress.load.book import load_book
from rulepress.protocol import OPTIONAL_METHODS, OPTIONAL_OBSERVER_METHODS, provided, setup_events
from rulepress.verify.engines import game_problems, load_engine, misspelt_methods

from .conftest import ROOT

PACKAGE = Path(rulepress.__file__).parent
GAME_NAMES = {"game", "engine", "observer"}  # what the tool calls a game or its observer


def test_the_base_class_gives_every_optional_method() -> None:
    assert [name for name in OPTIONAL_METHODS if not callable(getattr(BaseGame, name, None))] == []


def test_the_base_observer_gives_the_information_state() -> None:
    assert callable(BaseObserver.information_state) and "information_state" in OPTIONAL_OBSERVER_METHODS
    assert not set(OPTIONAL_METHODS) & set(OPTIONAL_OBSERVER_METHODS)  # one name, one meaning


def test_a_name_the_protocol_does_not_list_is_an_error_in_the_tool() -> None:
    with pytest.raises(KeyError, match="'acton_step' is not an optional method of a game or an observer"):
        provided(object(), "acton_step")


def test_a_game_without_an_observer_gives_no_observer_method() -> None:
    assert provided(None, "event_view") is None


class _Bare:
    """A game on the bare protocol: none of the optional methods."""


def test_a_bare_protocol_game_gives_none_and_tells_no_setup() -> None:
    assert [name for name in OPTIONAL_METHODS if provided(_Bare(), name) is not None] == []
    assert setup_events(_Bare(), object()) == []


def test_a_games_own_method_is_what_provided_gives() -> None:
    class Told:
        def setup_events(self, state: Any) -> list[Any]:
            return [state]

    assert provided(Told(), "setup_events") is not None
    assert setup_events(Told(), "dealt") == ["dealt"]


def lookups_by_name(source: str, where: str) -> list[str]:
    """``where:line`` of each ``getattr(game, ...)``/``hasattr(engine, ...)`` (a game object looked up by name)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
                and node.args:
            target = node.args[0]
            name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) \
                else ""
            if name in GAME_NAMES:
                found.append(f"{where}:{node.lineno}")
    return found


def test_no_module_but_the_protocol_looks_a_games_method_up_by_name() -> None:
    found = [line for path in sorted(PACKAGE.rglob("*.py"))
             if "vendor" not in path.relative_to(PACKAGE).parts and path.name != "protocol.py"
             for line in lookups_by_name(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))]
    assert found == []


def test_the_scan_finds_a_look_up_by_name() -> None:
    source = ("def f(game, self):\n    getattr(game, 'action_step', None)\n    hasattr(self.engine, 'legend')\n"
              "    getattr(state, 'memory', None)\n    hasattr(observer, 'tensor')\n")
    assert lookups_by_name(source, "m.py") == ["m.py:2", "m.py:3", "m.py:5"]


def test_a_misspelt_optional_method_is_refused_at_its_line() -> None:
    class Typed(BaseGame):
        def acton_step(self, state: Any, action: Any) -> dict[str, Any]:
            return {}

        def legnd(self) -> list[Any]:
            return []

        def _legend(self) -> list[Any]:  # a private helper is the engine's own business
            return []

        def action_places(self, state: Any, action: Any, places: Any) -> list[str]:  # the base class's, overridden
            return []

    here = Path(__file__).relative_to(ROOT)
    line = Typed.acton_step.__code__.co_firstlineno
    assert misspelt_methods(Typed, ROOT) == [
        f"{here}:{line}: the game's method 'acton_step' is no method the tool calls: did you mean 'action_step'? "
        f"(action_step(state, action): the step that names an action, the inverse of parse_action)",
        f"{here}:{line + 3}: the game's method 'legnd' is no method the tool calls: did you mean 'legend'? "
        f"(legend(): the key to the diagrams' symbols)",
    ]


def test_the_loader_refuses_a_game_with_a_misspelt_optional_method() -> None:
    sample = ROOT / "samples" / "tic-tac-toe"
    spec = load_engine("tic_tac_toe", sample)
    book = load_book(sample, "tic-tac-toe")
    game = spec.make_game(book.components, None)
    assert not [p for p in game_problems(spec, game, sample) if "no method the tool calls" in p]

    class Typed(type(game)):  # type: ignore[misc]
        def cover_arts(self, width: float, height: float) -> None:
            return None

    problems = game_problems(spec, Typed(book.components, None), sample)
    assert [p.split(": ", 1)[1] for p in problems if "no method the tool calls" in p] == [
        "the game's method 'cover_arts' is no method the tool calls: did you mean 'cover_art'? "
        "(cover_art(width, height): the front cover's artwork)"]
