"""The engine base class (rulepress/basegame.py) through the tic-tac-toe sample written on it
(samples/tic-tac-toe/), which replays OpenSpiel's recorded playthrough move by move."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from rulepress.basegame import BaseGame, Move
from rulepress.cli import main
from rulepress.load.book import load_book
from rulepress.protocol import DescriptionError, Game, RuleViolation
from rulepress.verify.gate import load_book_engine, verify

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "tic-tac-toe"
ENGINE = SAMPLE / "engine" / "tic_tac_toe"
PLAYTHROUGH = "examples/tic-tac-toe/ttt-openspiel-playthrough.yaml"


@pytest.fixture(scope="module")
def game() -> Any:
    book = load_book(SAMPLE, "tic-tac-toe")
    return load_book_engine(book).make_game(book.components)


def test_the_tic_tac_toe_engine_is_at_most_120_lines() -> None:
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in ENGINE.glob("*.py"))
    assert lines <= 120, f"the tic-tac-toe engine has {lines} lines"


def test_the_engine_speaks_the_protocol_through_the_base_class(game: Any) -> None:
    assert isinstance(game, BaseGame) and isinstance(game, Game)
    # The engine writes rules, description, snapshot and drawing; the plumbing is the base class's.
    own = set(vars(type(game)))
    assert {"apply", "legal_actions", "parse_action", "clone", "render_svg", "new_state"}.isdisjoint(own)


def test_the_sample_verifies_from_its_own_root(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--root", str(SAMPLE), "verify"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "ok   tic-tac-toe/ttt-openspiel-playthrough" in out
    assert out.rstrip().endswith("3 passed, 0 failed")


def test_openspiel_playthrough_replays_with_its_legal_move_counts_and_result() -> None:
    report = verify(SAMPLE, draw=True)
    assert report.ok, report.failures()
    [result] = [r for r in report.results if r.example.id == "ttt-openspiel-playthrough"]
    # LegalActions() as OpenSpiel's playthrough prints them for states 0-5 and 7 (state 6 is not printed).
    counts = {name: cp.snapshot["legal_actions"] for name, cp in result.checkpoints.items()}
    assert counts == {"state-0": 9, "state-1": 8, "state-2": 7, "state-3": 6, "state-4": 5, "state-5": 4,
                      "state-7": 0}
    assert [line.text for line in result.transcript] == [
        "Ann: mark square c3", "Ben: mark square a2", "Ann: mark square a3", "Ben: mark square a1",
        "Ann: mark square c1", "Ben: mark square b1", "Ann: mark square c2"]
    assert result.final["grid"] == ["oox", "o.x", "x.x"]  # OpenSpiel's final ObservationString
    assert result.result == {"winner": "Ann", "draw": False, "returns": [1, -1]}  # Returns() = [1.0, -1.0]
    assert result.example.source == "external"
    assert result.example.source_ref.startswith("OpenSpiel's recorded tic-tac-toe playthrough")
    svg = result.checkpoints["state-7"].svg
    assert svg is not None and svg.startswith("<svg") and "device-cmyk(" in svg and "<desc>" in svg
    assert "Ann's three crosses" not in svg  # the book prints the caption, never the SVG


def test_a_wrong_legal_move_count_fails_the_playthrough(tmp_path: Path) -> None:
    project = shutil.copytree(SAMPLE, tmp_path / "ttt")
    path = project / PLAYTHROUGH
    path.write_text(path.read_text().replace("legal_actions: 6}", "legal_actions: 7}"))
    report = verify(project, draw=False)
    [failed] = [r for r in report.results if not r.ok]
    assert failed.message == (f"ttt-openspiel-playthrough ({PLAYTHROUGH}): step 7 (line 24) checkpoint 'state-3': "
                              f"legal_actions expected 7, got 6 [illustrates rule 1.3, ttt.play.turn, rule 1.5, "
                              f"ttt.play.win]")


def test_a_refused_action_names_its_rule_and_leaves_the_state(game: Any) -> None:
    state = game.state_from_description({"grid": ["x..", "...", "..."]}, ["Ann", "Ben"], 0)
    before = game.snapshot(state)
    with pytest.raises(RuleViolation) as taken:
        game.apply(state, game.parse_action(state, {"player": "Ben", "do": "mark", "square": "a1"}))
    assert (taken.value.rule, taken.value.message) == ("ttt.play.empty", "a1 is already marked")
    with pytest.raises(RuleViolation) as turn:
        game.apply(state, game.parse_action(state, {"player": "Ann", "do": "mark", "square": "b2"}))
    assert (turn.value.rule, turn.value.message) == ("ttt.play.turn", "it is Ben's turn, not Ann's")
    assert game.snapshot(state) == before


def test_legal_actions_are_the_moves_check_allows(game: Any) -> None:
    state = game.state_from_description({"grid": ["xo.", "xo.", "..."]}, ["Ann", "Ben"], 0)
    assert [m["square"] for m in game.legal_actions(state)] == ["c1", "c2", "a3", "b3", "c3"]
    for move in game.legal_actions(state):
        trial = game.clone(state)
        game.apply(trial, move)  # every listed move is accepted
    events = game.apply(state, Move.of("Ann", "mark", square="a3"))
    assert [e.as_dict() for e in events] == [
        {"kind": "mark", "rule": "ttt.play.turn", "player": "Ann", "mark": "x", "square": "a3"},
        {"kind": "win", "rule": "ttt.play.win", "player": "Ann", "line": ["a1", "a2", "a3"]}]
    assert game.is_terminal(state) and game.legal_actions(state) == []
    with pytest.raises(RuleViolation) as over:
        game.apply(state, Move.of("Ben", "mark", square="c3"))
    assert over.value.rule == "ttt.play.win"


@pytest.mark.parametrize(("step", "path", "message"), [
    ({"do": "cross", "square": "a1"}, "step.do", "unknown action 'cross' (actions: mark)"),
    ({"do": "mark"}, "step.square", "'mark' needs 'square'"),
    ({"do": "mark", "square": "d4"}, "step.square",
     "unknown square 'd4' (squares: a1, b1, c1, a2, b2, c2, a3, b3, c3)"),
    ({"do": "mark", "square": "a1", "colour": "red"}, "step.colour", "'mark' takes square, not 'colour'"),
    ({"do": "mark", "square": "a1", "player": "Cat"}, "step.player", "unknown player 'Cat' (players: Ann, Ben)"),
])
def test_steps_the_engine_cannot_read(game: Any, step: dict[str, Any], path: str, message: str) -> None:
    state = game.new_state(["Ann", "Ben"], 0)
    with pytest.raises(DescriptionError) as error:
        game.parse_action(state, step)
    assert (error.value.path, error.value.message) == (path, message)


def test_a_step_and_its_action_name_each_other(game: Any) -> None:
    state = game.new_state(["Ann", "Ben"], 0)
    action = game.parse_action(state, {"do": "mark", "square": "b2", "note": "the centre"})
    assert action == Move.of("Ann", "mark", square="b2")  # the player defaults to whose turn it is
    assert game.action_step(state, action) == {"player": "Ann", "do": "mark", "square": "b2"}
    assert hash(Move.of("Ann", "pick", squares=["a1", "b2"])) == hash(Move.of("Ann", "pick", squares=("a1", "b2")))
    assert Move.of("Ann", "plant", tile="b2", card="rose-1") == Move.of("Ann", "plant", card="rose-1", tile="b2")


@pytest.mark.parametrize(("players", "description", "path", "message", "rule"), [
    (["Ann", "Ben", "Cat"], None, "players", "tic-tac-toe is played by 2 players, not 3", "ttt.play.players"),
    (["Ann", "Ann"], None, "players", "two players have the same name", None),
    (["Ann", "Ben"], {"grid": ["xx.", "...", "..."]}, "start.state.grid",
     "x starts, so x has as many marks as o or one more (x 2, o 0)", "ttt.play.turn"),
    (["Ann", "Ben"], {"grid": ["x..", "..."]}, "start.state.grid",
     "the grid is 3 rows of 3 characters: x, o or .", None),
    (["Ann", "Ben"], {"grid": ["...", "...", "..."], "turn": "Ann"}, "start.state.turn",
     "unknown key 'turn' (a described state takes: grid)", None),
])
def test_refused_setups(game: Any, players: list[str], description: dict[str, Any] | None, path: str,
                        message: str, rule: str | None) -> None:
    with pytest.raises(DescriptionError) as error:
        if description is None:
            game.new_state(players, 0)
        else:
            game.state_from_description(description, players, 0)
    assert (error.value.path, error.value.message, error.value.rule) == (path, message, rule)


def test_a_game_without_chance_refuses_chance_steps(game: Any) -> None:
    with pytest.raises(DescriptionError) as error:
        game.force_chance(game.new_state(["Ann", "Ben"], 0), ["x"])
    assert error.value.message == "tic-tac-toe has no chance: nothing to fix with 'chance:' steps"


def test_the_diagram_follows_the_conventions(game: Any) -> None:
    state = game.state_from_description({"grid": ["x..", ".o.", "..."]}, ["Ann", "Ben"], 0)
    svg = game.render_svg(state, "A caption the book prints")
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="120mm" height="87.5mm" '
                          'viewBox="0 0 480 350" font-family="Rulepress Sans, DejaVu Sans, sans-serif"')
    assert "<desc>turn: Ann; marks: 2</desc>" in svg
    assert ('<rect x="90" y="36" width="100" height="100" fill="none" stroke="device-cmyk(0 0 0 1)" '
            'stroke-width="1.5"/>') in svg  # the top left square, drawn in black ink only
    assert '<circle cx="240" cy="186" r="28" fill="none" stroke="device-cmyk(0.9 0.45 0 0)" stroke-width="8"/>' in svg
    assert "A caption the book prints" not in svg
    assert "#" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")  # colours only as device-cmyk()
    sizes = [float(part.split('"')[1]) for part in svg.split("font-size=")[1:]]
    assert sizes and min(sizes) >= 10  # the smallest text prints at about 7 pt


def test_the_sample_builds_print_ready(tmp_path: Path) -> None:
    """The whole build (site, three PDF editions, preflight) accepts a base-class engine's diagrams."""
    from rulepress.publish.build import build
    from tests.conftest import make_project

    project = make_project(tmp_path / "ttt", SAMPLE)
    build(project)
    site = project / "site"
    for page in ("tic-tac-toe/diagrams/ttt-openspiel-playthrough--state-7.svg", "pdf/tic-tac-toe.pdf",
                 "pdf/tic-tac-toe-digital.pdf", "pdf/tic-tac-toe-designer.pdf"):
        assert (site / page).is_file(), page
    svg = (site / "tic-tac-toe/diagrams/ttt-openspiel-playthrough--state-7.svg").read_text()
    assert "device-cmyk" not in svg and 'stroke="#' in svg  # screens get the inks as RGB
