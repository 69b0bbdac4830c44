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


def test_the_tic_tac_toe_engine_is_at_most_120_lines_of_rules() -> None:
    """Its rules in at most 120 lines (game.py), and its declaration (EngineSpec, __init__.py) in a screen."""
    lines = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in ENGINE.glob("*.py")}
    assert lines["game.py"] <= 120 and lines["__init__.py"] <= 20 and set(lines) == {"game.py", "__init__.py"}, lines


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


# --- one base for every engine (issue 18) -----------------------------------------------------------------------

BUNDLED = ("lantern-moths", "last-lantern", "lantern")
ROOT = SAMPLE.parent.parent


def _bundled(book_id: str) -> Any:
    book = load_book(ROOT, book_id)
    return book, load_book_engine(book).make_game(book.components)


@pytest.mark.parametrize("book_id", BUNDLED)
def test_every_bundled_engine_is_written_on_the_base(book_id: str) -> None:
    _, game = _bundled(book_id)
    assert isinstance(game, BaseGame) and isinstance(game, Game)
    # What every engine shares is the base's: states from setups and descriptions, chance, copies, the frame.
    own = {name for cls in type(game).__mro__ if cls is not BaseGame and issubclass(cls, BaseGame)
           for name in vars(cls)}
    assert {"new_state", "state_from_description", "force_chance", "unused_chance", "clone", "render_svg",
            "text_alternative"}.isdisjoint(own)
    state = game.new_state(["Ann", "Ben"] if book_id != "lantern" else ["Ann"], 3)
    twin = game.clone(state)
    assert twin is not state and game.snapshot(twin) == game.snapshot(state)
    assert game.unused_chance(state) == []
    svg = game.render_svg(state)
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" ') and "<desc>" in svg


def test_no_engine_defines_its_own_font_or_paint() -> None:
    """The font, the paint helper and the smallest text size are the base's: an engine names its colours only."""
    for folder in (*(ROOT / "engine").iterdir(), ENGINE):
        for path in sorted(folder.glob("*.py")):
            text = path.read_text(encoding="utf-8")
            assert "def paint(" not in text and "Rulepress Sans" not in text, path  # the font-family, named once
            assert not any(line.startswith(("FONT =", "SMALLEST =", "def _cmyk(")) for line in text.splitlines()), path


def test_painter_names_a_palette_colour_as_the_print_edition_writes_it() -> None:
    from rulepress.basegame import painter

    paint = painter({"rose": (10, 80, 25, 0), "ink": (0, 0, 0, 100)})
    assert (paint("rose"), paint("ink")) == ("device-cmyk(0.1 0.8 0.25 0)", "device-cmyk(0 0 0 1)")
    with pytest.raises(KeyError):
        paint("teal")  # a colour is chosen once, in the palette


def test_the_frame_of_a_diagram() -> None:
    from html import escape

    from rulepress.basegame import FONT, PAPER, Figure, Frame

    printed = Frame().document(480, 362, ["<g/>"], "Ann's turn & more")
    assert printed == (f'<svg xmlns="http://www.w3.org/2000/svg" width="120mm" height="90.5mm" viewBox="0 0 480 362" '
                       f'font-family="{FONT}" role="img"><desc>Ann\'s turn &amp; more</desc>'
                       f'<rect width="480" height="362" fill="{PAPER}"/><g/></svg>')
    lines = Frame(printed=False, root_font=False, lines=True, escape=escape).document(530, 300, ["<a/>", "<b/>"],
                                                                                     "Ann's", "red")
    assert lines == ('<svg xmlns="http://www.w3.org/2000/svg" width="530" height="300" viewBox="0 0 530 300" '
                     'role="img">\n<desc>Ann&#x27;s</desc>\n<rect x="0" y="0" width="530" height="300" fill="red"/>\n'
                     '<a/>\n<b/>\n</svg>\n')
    assert Figure(["<g/>"]).height is None  # draw() may return a Figure, or just its elements


def test_a_figure_sets_the_height_and_the_text_alternative(game: Any) -> None:
    from rulepress.basegame import Figure

    class Tall(type(game)):  # type: ignore[misc]
        def draw(self, state: Any) -> Figure:
            return Figure(super().draw(state).elements, height=400, desc="A grid, told in words")

    tall = Tall(game.components)
    svg = tall.render_svg(tall.new_state(["Ann", "Ben"], 0))
    assert 'height="100.0mm" viewBox="0 0 480 400"' in svg and "<desc>A grid, told in words</desc>" in svg


def test_a_game_without_chance_seeds_none_and_refuses_forced_setup_outcomes(game: Any) -> None:
    assert type(game).CHANCE is False
    assert getattr(game.new_state(["Ann", "Ben"], 0), "chance", None) is None
    with pytest.raises(DescriptionError) as error:
        game.new_state(["Ann", "Ben"], 0, ["x"])
    assert (error.value.path, error.value.message) == (
        "start.chance", "tic-tac-toe has no chance at setup: nothing to fix with 'start.chance'")


@pytest.mark.parametrize("seed", ["7", 1.5, True, None])
def test_the_seed_is_a_whole_number(seed: Any) -> None:
    _, moths = _bundled("lantern-moths")
    with pytest.raises(DescriptionError) as error:
        moths.new_state(["Ann", "Ben"], seed)
    assert (error.value.path, error.value.message) == ("seed", f"the seed must be a whole number, not {seed!r}")


def test_a_move_is_made_once_and_keeps_its_arguments_types() -> None:
    assert Move.of("Ann", "mark", square="b2") is Move.of("Ann", "mark", square="b2")
    assert Move.of("Ann", "add", amount=True)["amount"] is True  # True and 1 are equal, but two arguments
    assert type(Move.of("Ann", "add", amount=1)["amount"]) is int
    assert Move.of("Ann", "pick", squares=["a1"]) == Move.of("Ann", "pick", squares=("a1",))  # a list: built anew
    with pytest.raises(KeyError):
        Move.of("Ann", "mark", square="b2")["tile"]


@pytest.mark.parametrize(("book_id", "outcome", "message"), [
    ("lantern-moths", "moth-teal", "unknown outcome 'moth-teal'"),
    ("lantern", 7, "a forced outcome is a die face 1-6, got 7"),
])
def test_an_engine_names_the_outcomes_it_can_draw(book_id: str, outcome: Any, message: str) -> None:
    _, engine_game = _bundled(book_id)
    players = ["Ann"] if book_id == "lantern" else ["Ann", "Ben"]
    with pytest.raises(DescriptionError) as at_setup:
        engine_game.new_state(players, 0, [outcome])
    state = engine_game.new_state(players, 0)
    with pytest.raises(DescriptionError) as in_play:
        engine_game.force_chance(state, [outcome])
    assert (at_setup.value.path, in_play.value.path) == ("start.chance", "chance")
    assert at_setup.value.message.startswith(message) and in_play.value.message.startswith(message)
    assert engine_game.unused_chance(state) == []  # nothing was forced


def test_a_described_position_of_a_game_without_chance_has_none(game: Any) -> None:
    """No chance, so no seed to check: any seed describes the same position, with nothing to draw from."""
    assert type(game).CHANCE is False
    for seed in (0, 7, "not a seed"):
        described = game.state_from_description({"grid": ["...", ".x.", "..."]}, ["Ann", "Ben"], seed)
        assert getattr(described, "chance", None) is None
