"""Engines declare what a step and a described state may say; the gate holds examples to it (verify/steps.py).

Each check is shown failing on a hand-made fault at a known line and column, and passing on its twin, so the
check is what fails.  The bundled engines' declarations are checked against their own actions: a schema
stricter than the engine would refuse steps the engine understands.
"""

from __future__ import annotations

import os
import random
import textwrap
from pathlib import Path
from typing import Any

import pytest

from rulepress.load.schema import validate_with
from rulepress.load.yamlsrc import parse_yaml
from rulepress.verify import diagram
from rulepress.verify import steps as shapes
from rulepress.verify.engines import engine_module
from rulepress.verify.gate import load_checked_book
from rulepress.verify.limits import EngineFault, engine_guard
from rulepress.verify.replay import replay

from .conftest import ROOT

FILE = "examples/mini/t.yaml"
ENGINE = "engine/mini/__init__.py"
TIC_TAC_TOE = ROOT / "samples" / "tic-tac-toe"


def _example(project: Path, steps: str, start: str = "state: {pile: 7}", players: str = "[Ann, Ben]") -> None:
    """``examples/mini/t.yaml``: its steps (dedented to column 1) start at line 8."""
    (project / "examples/mini/mini-last-stone.yaml").unlink()
    (project / FILE).write_text(f"id: t\ntitle: T\nrules: [mini.play.take]\nplayers: {players}\n"
                                f"start:\n  {start}\nsteps:\n" + textwrap.dedent(steps))


def _replayed(project: Path) -> tuple[str, str]:
    check = load_checked_book(project, "mini")
    result = replay(check.examples[0], check.book, check.engine, draw=False, prose=False)
    return result.status, result.message


def _set_engine(project: Path, old: str, new: str) -> None:
    engine = project / ENGINE
    text = engine.read_text()
    assert old in text
    engine.write_text(text.replace(old, new))


# --- the mini engine's action_schema / state_schema --------------------------------------------------------------

def test_misspelt_step_key_is_refused_at_its_line_and_column(mini: Path) -> None:
    _example(mini, """\
      - player: Ann
        do: take
        stones: 2
        ilegal: mini.play.take
    """)
    assert _replayed(mini) == ("error", f"{FILE}:11:3: example t: unknown key 'ilegal' in 'steps[1]' (did you mean "
                                        f"'illegal'?) [illustrates rule 1.1, mini.play.take]")


def test_misspelt_player_and_argument_are_both_named(mini: Path) -> None:
    _example(mini, "  - {plyer: Ann, do: take, stones: 2}\n  - {player: Ben, do: take, stone: 1}\n")
    status, message = _replayed(mini)
    assert status == "error"
    assert message.startswith(f"{FILE}:8:4: example t: unknown key 'plyer' in 'steps[1]' (did you mean 'player'?) "
                              f"(more at line(s) 9)")


def test_missing_argument_after_its_misspelling(mini: Path) -> None:
    _example(mini, "  - {player: Ann, do: take, stone: 2}\n")
    assert _replayed(mini)[1].startswith(f"{FILE}:8:27: example t: unknown key 'stone' in 'steps[1]' (did you mean "
                                         f"'stones'?); missing key 'stones' in 'steps[1]'")


def test_unknown_action_suggests_the_nearest(mini: Path) -> None:
    _example(mini, "  - {player: Ann, do: tkae, stones: 2}\n")
    assert _replayed(mini)[1].startswith(f"{FILE}:8:17: example t: 'steps[1].do' must be one of take, not 'tkae' "
                                         f"(did you mean 'take'?)")


def test_a_word_where_the_engine_wants_a_number(mini: Path) -> None:
    _example(mini, "  - {player: Ann, do: take, stones: two}\n")
    assert _replayed(mini)[1].startswith(f"{FILE}:8:27: example t: 'steps[1].stones' must be a number of stones, "
                                         f"not 'two'")


def test_a_value_the_rules_forbid_still_reaches_the_engine(mini: Path) -> None:
    """Shape, not legality: 9 stones is a whole number, so the engine refuses it and ``illegal:`` can say so."""
    _example(mini, "  - {player: Ann, do: take, stones: 9, illegal: mini.play.take}\n"
                   "  - {player: Ann, do: take, stones: 9}\n")
    status, message = _replayed(mini)
    assert status == "failed"
    assert "step 2 (line 9): illegal move 'Ann takes 9'" in message  # the first step was the expected refusal


def test_described_state_is_checked_against_the_state_schema(mini: Path) -> None:
    _example(mini, "  - {player: Ann, do: take, stones: 2}\n", start="state: {pile: 7, piles: 2}")
    assert _replayed(mini)[1].startswith(f"{FILE}:6:20: example t: unknown key 'piles' in 'start.state' (did you "
                                         f"mean 'pile'?)")


def test_a_state_schema_alone_is_still_checked(mini: Path) -> None:
    _set_engine(mini, "action_schema=ACTION_SCHEMA", "action_schema=None")
    _example(mini, "  - {player: Ann, do: take, stones: 2}\n", start="state: {pile: 7, piles: 2}")
    assert _replayed(mini)[1].startswith(f"{FILE}:6:20: example t: unknown key 'piles' in 'start.state' (did you "
                                         f"mean 'pile'?)")


def test_a_step_argument_declared_as_a_rule_id_is_one_of_this_books(mini: Path) -> None:
    """Formats in a declaration know the book: a rule ID must carry its prefix (``{prefix}`` in the wording)."""
    _set_engine(mini, '"take": {"properties": {', '"take": {"properties": {"why": {"type": "string", "format": '
                '"rule-id", "x-expect": "a rule ID of this book ({prefix}.…)"}, ')
    _example(mini, "  - {player: Ann, do: take, stones: 2, why: lm.turn.draw}\n")
    assert _replayed(mini)[1].startswith(f"{FILE}:8:38: example t: 'steps[1].why' must be a rule ID of this book "
                                         f"(mini.…), not 'lm.turn.draw'")


def test_without_a_declaration_the_engine_sees_every_key(mini: Path) -> None:
    """The twin of the tests above: an engine that declares nothing gets the step as written."""
    _set_engine(mini, "action_schema=ACTION_SCHEMA", "action_schema=None")
    _set_engine(mini, "state_schema=STATE_SCHEMA", "state_schema=None")
    _example(mini, "  - {player: Ann, do: take, stones: 2, ilegal: mini.play.take}\n")
    assert _replayed(mini) == ("passed", "")


@pytest.mark.parametrize(("declared", "message"), [
    ('{"take": {"propertys": {}}}',
     "action_schema['take'] must be a mapping with 'properties' (key -> JSON Schema) and 'required'"),
    ('{"take": {"required": ["stones"]}}',
     "action_schema['take'] requires 'stones', which its properties do not name"),
    ('{"take": {"properties": {"stones": {"type": "whole"}}}}',
     "the declared step/state schema is not a valid JSON Schema: 'whole' is not valid under any of the given "
     "schemas"),
    ("{}", "action_schema must be a non-empty mapping of action names"),
])
def test_a_broken_declaration_is_the_engines_fault(mini: Path, declared: str, message: str) -> None:
    _set_engine(mini, "action_schema=ACTION_SCHEMA", f"action_schema={declared}")
    _example(mini, "  - {player: Ann, do: take, stones: 2}\n")
    status, said = _replayed(mini)
    assert status == "error"
    assert said.startswith(f"{ENGINE}: example t: {message}")


def test_a_schema_module_counts_when_the_declaration_names_it(mini: Path) -> None:
    (mini / "engine/mini/schema.py").write_text('ACTION_SCHEMA = {"take": {"properties": {"stones": {}}}}\n')
    _set_engine(mini, "action_schema=ACTION_SCHEMA", "action_schema=__import__('schema', globals(), level=1)"
                                                     ".ACTION_SCHEMA")
    _set_engine(mini, "state_schema=STATE_SCHEMA", "state_schema=None")
    _example(mini, "  - {player: Ann, do: take, stones: 2, ilegal: mini.play.take}\n")
    assert _replayed(mini)[1].startswith(f"{FILE}:8:38: example t: unknown key 'ilegal'")


def test_a_schema_module_the_declaration_does_not_name_is_not_read(mini: Path) -> None:
    """The engine's declaration is the one place it says its shapes: no module is looked for by its name."""
    _set_engine(mini, "action_schema=ACTION_SCHEMA", "action_schema=None")
    _set_engine(mini, "state_schema=STATE_SCHEMA", "state_schema=None")
    (mini / "engine/mini/schema.py").write_text(
        'ACTION_SCHEMA = {"take": {"properties": {"stones": {"type": "string"}}}}\n'
        'STATE_SCHEMA = {"properties": {"pile": {"type": "string"}}}\n')
    _example(mini, "  - {player: Ann, do: take, stones: 2}\n")
    assert _replayed(mini) == ("passed", "")  # the module's shapes would refuse both the step and the state


# --- BaseGame derives both from ACTIONS and STATE_KEYS -------------------------------------------------------------

def test_basegame_schemas_come_from_actions_and_state_keys() -> None:
    check = load_checked_book(TIC_TAC_TOE, "tic-tac-toe")
    game = check.engine.make_game(check.book.components)
    squares = [f"{c}{r}" for r in range(1, 4) for c in "abc"]
    assert game.action_schema() == {"mark": {"properties": {"square": {"enum": squares}}, "required": ["square"]}}
    found = shapes.declared(check.engine, game, TIC_TAC_TOE)
    example = check.examples[0]
    example.raw = parse_yaml("start: {state: {grid: [...], gird: 1}}\nsteps:\n  - {player: x, do: mark, sqare: b2}\n"
                             "  - {do: mark, square: z9}\n", "t.yaml")
    assert [(e.line, e.column, e.message) for e in shapes.problems(example, found, "ttt")] == [
        (1, 30, "unknown key 'gird' in 'start.state' (did you mean 'grid'?)"),
        (3, 5, "missing key 'square' in 'steps[1]'"),
        (3, 27, "unknown key 'sqare' in 'steps[1]' (did you mean 'square'?)"),
        (4, 16, f"'steps[2].square' must be one of {', '.join(squares)}, not 'z9'")]


# --- every bundled engine declares its steps, and no stricter than it reads them -----------------------------------

def _first_states(book: str, check: Any, game: Any, seed: int) -> list[Any]:
    """The states of one random game from a full setup (every legal action of each is a step to declare)."""
    players = ["Ann", "Ben", "Cara"][: max(1, min(3, check.book.data["players"]["max"]))]
    state = game.new_state(players[: check.book.data["players"]["min"]] if book == "lantern" else players, seed)
    states, rng = [state], random.Random(seed)
    for _ in range(40):
        actions = game.legal_actions(state)
        if not actions:
            break
        state = game.clone(state)
        game.apply(state, rng.choice(list(actions)))
        states.append(state)
    return states


@pytest.mark.parametrize("book", ["lantern", "lantern-moths", "last-lantern"])
def test_bundled_engines_declare_their_steps_and_states(book: str) -> None:
    check = load_checked_book(ROOT, book)
    game = check.engine.make_game(check.book.components)
    found = shapes.declared(check.engine, game, ROOT)
    assert found.actions and found.state is not None and shapes.check_declaration(found) is None
    assert found.origin == f"engine/{check.book.engine_package}/__init__.py"  # whose ENGINE names them
    for example in check.examples:  # every bundled example fits its engine's declaration
        assert shapes.problems(example, found, check.book.prefix) == [], example.id


@pytest.mark.parametrize(("book", "to_step"), [("lantern", "as_step"), ("lantern-moths", "action_step")])
def test_every_legal_action_is_a_step_the_schema_accepts(book: str, to_step: str) -> None:
    check = load_checked_book(ROOT, book)
    game = check.engine.make_game(check.book.components)
    schema = shapes.example_schema(shapes.declared(check.engine, game, ROOT))
    package = engine_module(check.engine)
    inverse = getattr(game, to_step, None) or (lambda state, action: package.actions.as_step(action))
    for seed in range(3):
        for state in _first_states(book, check, game, seed):
            steps = [inverse(state, action) for action in game.legal_actions(state)]
            assert validate_with({"steps": steps}, schema, "t.yaml") == [], steps


# --- diagrams ------------------------------------------------------------------------------------------------------

SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">{}</svg>'


@pytest.mark.parametrize(("inside", "wanted"), [
    ('<circle r="1"/></sv', "is not well-formed XML: "),
    ('<image href="http://example.com/x.png"/>', "links to 'http://example.com/x.png' from <image>"),
    ('<image xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="file:///etc/passwd"/>',
     "links to 'file:///etc/passwd' from <image>"),
    ('<rect style="fill: url(https://x.org/p.svg#a)"/>', "style on <rect> refers to 'https://x.org/p.svg#a'"),
    ('<style>@import "https://x.org/a.css";</style>', "<style> refers to 'https://x.org/a.css'"),
    ("<script>alert(1)</script>", "holds <script>"),
    ('<rect onload="alert(1)"/>', "has an event handler (onload=) on <rect>"),
])
def test_a_diagram_that_is_not_self_contained_svg_is_refused(inside: str, wanted: str) -> None:
    found = diagram.problem(SVG.format(inside))
    assert found is not None and found.startswith(wanted), found


def test_a_self_contained_diagram_passes() -> None:
    inside = ('<defs><clipPath id="c"><rect width="5" height="5"/></clipPath></defs>'
              '<use href="#c"/><rect style="fill: url(#c)"/><image href="data:image/png;base64,AAAA"/>')
    assert diagram.problem(SVG.format(inside)) is None
    assert diagram.problem("<html/>") == 'is not SVG: its root is <html>, not <svg xmlns="http://www.w3.org/2000/svg">'
    assert diagram.problem('<!DOCTYPE svg [<!ENTITY a "b">]><svg/>') is not None
    assert diagram.problem('<!doctype svg><svg xmlns="http://www.w3.org/2000/svg"/>') == \
        "declares a DOCTYPE or entities (a diagram is plain SVG)"  # in any case


# --- os._exit under the guard --------------------------------------------------------------------------------------

def test_os_exit_in_engine_code_is_a_fault_and_os_exit_comes_back(tmp_path: Path) -> None:
    real = os._exit
    with pytest.raises(EngineFault) as caught, engine_guard(tmp_path, tmp_path, 0):
        os._exit(3)
    assert (caught.value.kind, caught.value.detail) == ("exit", "engine code called os._exit(3)")
    assert os._exit is real


class _DrawnElsewhere:
    """A game whose drawing is not in the project (a library's, say): the message cannot name its line."""

    def render_svg(self, state: Any, caption: str | None = None) -> str:
        return "<svg/>"


def test_where_a_game_draws_is_its_own_line_or_just_the_method(tmp_path: Path) -> None:
    import importlib.util

    assert diagram.drawn_by(_DrawnElsewhere(), tmp_path) == "render_svg"
    (tmp_path / "drawing.py").write_text("class Game:\n    x = 1\n\n    def render_svg(self, state):\n"
                                         "        return '<svg/>'\n")
    spec = importlib.util.spec_from_file_location("rulepress_test_drawing", tmp_path / "drawing.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert diagram.drawn_by(module.Game(), tmp_path) == "render_svg (drawing.py:4)"


def test_an_unknown_book_is_named_with_the_books_there_are() -> None:
    from rulepress.verify.gate import verify

    assert verify(ROOT, ["nope"]).problems == [
        "rules_src/nope: no such book (books: lantern-moths, lantern, last-lantern)"]
