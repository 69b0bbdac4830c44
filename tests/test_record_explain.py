"""``rulepress record`` (a played game becomes an example, marked unreviewed) and ``rulepress explain``
(an example's position, its legal actions and the rule that forbids an action)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from rulepress.analyze.record import unreviewed
from rulepress.cli import main
from rulepress.verify.gate import verify

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "tic-tac-toe"
MINI = Path(__file__).parent / "fixtures" / "mini"
NOT_REVIEWED = "check it against the rules, then set 'reviewed: true'"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def ttt(tmp_path: Path) -> Path:
    return shutil.copytree(SAMPLE, tmp_path / "ttt")


# --- record ----------------------------------------------------------------------------------------------


def test_record_from_moves_replays_and_is_listed_unreviewed(ttt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moves = ("[{do: mark, square: b2}, {do: mark, square: a1}, {do: mark, square: c1}, {do: mark, square: b1}, "
             "{do: mark, square: a3}]")
    code, out, err = run(capsys, "--root", str(ttt), "record", "tic-tac-toe", "--moves", moves, "--id", "ttt-five",
                         "--at", "2")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == ("wrote examples/tic-tac-toe/ttt-five.yaml: 5 actions, 2 checkpoints, game "
                                   "over; replays")
    written = yaml.safe_load((ttt / "examples/tic-tac-toe/ttt-five.yaml").read_text())
    assert (written["source"], written["reviewed"], written["start"], written["seed"]) == (
        "recorded", False, {"setup": True}, 0)
    assert written["rules"] == ["ttt.play.turn", "ttt.play.win"]
    assert written["steps"][:3] == [{"player": "Ann", "do": "mark", "square": "b2"},
                                    {"player": "Ben", "do": "mark", "square": "a1"},
                                    {"checkpoint": "after-step-2",  # only what changed since the start
                                     "expect": {"grid": ["o..", ".x.", "..."], "marks": 2, "legal_actions": 7},
                                     "diagram": "After step 2: Ben: mark square a1"}]
    assert written["steps"][-1] == {"checkpoint": "end", "expect": {"grid": ["oox", ".x.", "x.."], "turn": None,
                                                                    "marks": 5, "winner": "Ann",
                                                                    "line": ["c1", "b2", "a3"],
                                                                    "legal_actions": 0},
                                    "diagram": "The end of the game"}
    assert written["text"] == ("After step 2: Ben: mark square a1: marks {{ cp['after-step-2']['marks'] }}.\n"
                               "The end of the game: marks {{ cp['end']['marks'] }}.\n"
                               "Result: winner {{ result['winner'] }}, draw {{ 'yes' if result['draw'] else 'no' }}, "
                               "returns {{ result['returns'] | join(', ') }}.\n")
    report = verify(ttt, draw=False)
    assert report.ok, report.failures()
    [result] = [r for r in report.results if r.example.id == "ttt-five"]
    assert result.text.splitlines()[-1] == "Result: winner Ann, draw no, returns 1, -1."
    assert unreviewed(report) == [f"examples/tic-tac-toe/ttt-five.yaml:8: example 'ttt-five' is recorded from play "
                                  f"and not reviewed: {NOT_REVIEWED}"]
    path = ttt / "examples/tic-tac-toe/ttt-five.yaml"
    path.write_text(path.read_text().replace("reviewed: false", "reviewed: true"))
    assert unreviewed(verify(ttt, draw=False)) == []


def test_record_from_a_policy_is_the_simulated_game(ttt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moves = ttt / "moves.yaml"
    for name in ("one", "two"):
        assert run(capsys, "--root", str(ttt), "record", "tic-tac-toe", "--policy", "random", "--seed", "3",
                   "--on-event", "win", "--id", f"ttt-{name}")[0] == 0
    one, two = ((ttt / f"examples/tic-tac-toe/ttt-{n}.yaml").read_text() for n in ("one", "two"))
    assert one.replace("ttt-one", "ttt-two") == two  # the same seed is the same game
    data = yaml.safe_load(one)
    assert data["title"] == "A recorded game (random play, seed 3)"
    assert [s["checkpoint"] for s in data["steps"] if "checkpoint" in s] == ["end"]  # the win is the last move
    assert data["steps"][-1]["events"] == [{"kind": "win", "rule": "ttt.play.win", "player": "Ann",
                                            "line": ["a2", "b2", "c2"]}]
    assert [s["player"] + " " + s["square"] for s in data["steps"] if "do" in s] == [
        "Ann a2", "Ben b3", "Ann a3", "Ben a1", "Ann c1", "Ben c3", "Ann c2", "Ben b1", "Ann b2"]
    # The same moves given by hand give the same steps.
    moves.write_text(yaml.safe_dump([{"do": s["do"], "square": s["square"]} for s in data["steps"] if "do" in s]))
    assert run(capsys, "--root", str(ttt), "record", "tic-tac-toe", "--moves-file", str(moves), "--id",
               "ttt-three")[0] == 0
    three = yaml.safe_load((ttt / "examples/tic-tac-toe/ttt-three.yaml").read_text())
    assert [s for s in three["steps"] if "do" in s] == [s for s in data["steps"] if "do" in s]


def _book_project(tmp_path: Path, book: str, package: str) -> Path:
    """A project holding one bundled book's rules and engine, and none of its examples."""
    project = tmp_path / book
    shutil.copytree(ROOT / "rules_src" / book, project / "rules_src" / book)
    shutil.copytree(ROOT / "engine" / package, project / "engine" / package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return project


# Each book's game for seed 5 by its default_policy: its checkpoints, and what its last one says of who won.
RECORDED = {
    "lantern-moths": ("lantern_moths", [f"end-of-round-{n}" for n in range(1, 6)],
                      {"over": True, "winners": ["Ann"], "decided_by": "points"}),
    "lantern": ("lantern", [f"zone-{n}" for n in range(1, 9)],
                {"over": True, "outcome": "won", "zone": 8, "score": 15, "title": "Master of Arms"}),
    "last-lantern": ("last_lantern", [f"end-of-round-{n}" for n in range(1, 8)],
                     {"over": True, "won": True, "reason": "victory"}),
}


@pytest.mark.parametrize("book", sorted(RECORDED))
def test_record_seed_writes_every_chance_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 book: str) -> None:
    """``record --seed`` for each bundled book: an unreviewed example that replays, with checkpoints at each
    round's end (Lantern: each zone reached) and an end showing who won, and every chance outcome written
    (the setup's in start.chance), so that it replays with any seed, and not without them."""
    package, moments, result = RECORDED[book]
    project = _book_project(tmp_path, book, package)
    code, out, err = run(capsys, "--root", str(project), "record", book, "--seed", "5")
    assert (code, err) == (0, ""), out
    assert out.splitlines()[0].endswith("checkpoints, game over; replays")
    path = project / "examples" / book / f"{book}-recorded-5.yaml"
    data = yaml.safe_load(path.read_text())
    assert (data["source"], data["reviewed"], data["seed"]) == ("recorded", False, 5)
    checkpoints = [s for s in data["steps"] if "checkpoint" in s]
    assert [c["checkpoint"] for c in checkpoints] == [*moments, "end"]
    end = checkpoints[-1]["expect"]
    assert list(end)[:len(result)] == list(result) and {k: end[k] for k in result} == result  # the result first
    assert any("chance" in s for s in data["steps"])
    if book != "last-lantern":  # a deal (and the middle tile), a setup roll; Last Lantern's setup draws nothing
        assert data["start"]["chance"]
    report = verify(project, draw=False)
    assert report.ok and unreviewed(report), report.failures()
    path.write_text(path.read_text().replace("seed: 5\n", "seed: 6\n"))
    report = verify(project, draw=False)
    assert report.ok, report.failures()  # chance is all written down: the seed no longer matters
    data["seed"], data["steps"] = 6, [s for s in data["steps"] if "chance" not in s]
    data["start"].pop("chance", None)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    assert not verify(project, draw=False).ok  # and without it, another seed is another game


def test_record_a_game_with_chance_rounds_and_a_narrator(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "lm"
    shutil.copytree(ROOT / "rules_src/lantern-moths", project / "rules_src/lantern-moths")
    shutil.copytree(ROOT / "engine/lantern_moths", project / "engine/lantern_moths",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code, out, _ = run(capsys, "--root", str(project), "record", "lantern-moths", "--seed", "5", "--every-round")
    assert code == 0, out
    assert out.splitlines()[0] == ("wrote examples/lantern-moths/lantern-moths-recorded-5.yaml: 24 actions, "
                                   "6 checkpoints, game over; replays")
    data = yaml.safe_load((project / "examples/lantern-moths/lantern-moths-recorded-5.yaml").read_text())
    names = [s["checkpoint"] for s in data["steps"] if "checkpoint" in s]
    assert names == [f"end-of-round-{n}" for n in range(1, 6)] + ["end"]
    assert data["title"] == "A recorded game (greedy play, seed 5)"  # the engine's default_policy
    [first] = [s for s in data["steps"] if s.get("checkpoint") == "end-of-round-1"]
    assert first["expect"]["round"] == 2 and first["diagram"] == "The position at the end of round 1"
    report = verify(project, draw=True)
    assert report.ok, report.failures()
    assert unreviewed(report) == [f"examples/lantern-moths/lantern-moths-recorded-5.yaml:8: example "
                                  f"'lantern-moths-recorded-5' is recorded from play and not reviewed: "
                                  f"{NOT_REVIEWED}"]


def test_record_refuses_a_move_the_rules_forbid(ttt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moves = "[{do: mark, square: b2}, {do: mark, square: a1}, {do: mark, square: a1}]"
    code, out, err = run(capsys, "--root", str(ttt), "record", "tic-tac-toe", "--moves", moves, "--id", "ttt-bad")
    assert (code, out) == (1, "")
    assert err == ("rulepress record: move 3 ({player: Ann, do: mark, square: a1}) is refused by rule 1.4, "
                   "ttt.play.empty: a1 is already marked (nothing was written)\n")
    assert not (ttt / "examples/tic-tac-toe/ttt-bad.yaml").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--moves", "{do: mark}"], "--moves: give a list of example steps, e.g. [{do: mark, square: c3}, ...]"),
    (["--moves", "[{do: mark, square: z9}]"],
     "move 1 ({do: mark, square: z9}): step.square: unknown square 'z9' (squares: a1, b1, c1, a2, b2, c2, a3, "
     "b3, c3)"),
    (["--policy", "clever"], "engine 'tic_tac_toe' has no policy 'clever' (policies: random)"),
    (["--id", "ttt-openspiel-playthrough"],
     "examples/tic-tac-toe/ttt-openspiel-playthrough.yaml exists: choose another --id, or --force to replace it"),
    (["--rules", "ttt.play.nowhere"], "unknown rule ID 'ttt.play.nowhere' in --rules"),
    (["--rules", "ttt.play.wins"], "unknown rule ID 'ttt.play.wins' in --rules (did you mean 'ttt.play.win'?)"),
    (["--every-round"], "--every-round needs a whole-number 'round' in the snapshot, and engine 'tic_tac_toe' has "
                        "none: choose moments with --on-event or --at"),
])
def test_record_errors(ttt: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, _, err = run(capsys, "--root", str(ttt), "record", "tic-tac-toe", *args)
    assert (code, err) == (1, f"rulepress record: {message} (nothing was written)\n")


def test_record_needs_action_step_to_write_a_policy_game(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    project = shutil.copytree(MINI, tmp_path / "mini")
    code, _, err = run(capsys, "--root", str(project), "record", "mini", "--seed", "1")
    assert code == 1
    assert err == ("rulepress record: engine 'mini' cannot name its actions as example steps (it has no "
                   "action_step(state, action): rulepress guide engine): record it from --moves instead (nothing was "
                   "written)\n")
    code, out, _ = run(capsys, "--root", str(project), "record", "mini", "--moves",
                       "[{player: Ann, do: take, stones: 3}]", "--rules", "mini.play.take")
    assert code == 0, out
    assert out.startswith("wrote examples/mini/mini-recorded-0.yaml: 1 actions, 1 checkpoints, game not over; "
                          "replays")


# --- explain ---------------------------------------------------------------------------------------------


def test_explain_names_the_rule_that_forbids_an_action(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--root", str(SAMPLE), "explain", "tic-tac-toe", "ttt-openspiel-playthrough",
                       "--step", "13", "--action", "{player: Ann, do: mark, square: a1}")
    assert code == 0
    assert out.splitlines() == [
        "ttt-openspiel-playthrough (examples/tic-tac-toe/ttt-openspiel-playthrough.yaml), before step 13 "
        "(line 33):",
        "State:",
        "  grid:", "  - oox", "  - o..", "  - x.x", "  turn: Ann", "  marks: 6", "  winner: null", "  line: []",
        "Legal actions (3):",
        "   1. Ann: mark square b2   {player: Ann, do: mark, square: b2}",
        "   2. Ann: mark square c2   {player: Ann, do: mark, square: c2}",
        "   3. Ann: mark square b3   {player: Ann, do: mark, square: b3}",
        "Step 13: {player: Ann, do: mark, square: c2, note: 'x(1,2), action 5'}",
        "  allowed: Ann: mark square c2; events: mark (ttt.play.turn), win (ttt.play.win)",
        "Action {player: Ann, do: mark, square: a1}:",
        "  forbidden by rule 1.4, ttt.play.empty (Empty squares only): a1 is already marked",
    ]


def test_explain_says_when_a_step_is_refused_by_another_rule(ttt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = ttt / "examples/tic-tac-toe/ttt-taken-square.yaml"
    path.write_text(path.read_text().replace("square: b2, illegal: ttt.play.empty", "square: b2, illegal: "
                                                                                     "ttt.play.turn"))
    code, out, _ = run(capsys, "--root", str(ttt), "explain", "tic-tac-toe", "ttt-taken-square", "--step", "1")
    assert code == 0
    assert out.splitlines()[-3:] == [
        "Step 1: {player: Ann, do: mark, square: b2, illegal: ttt.play.turn}",
        "  forbidden by rule 1.4, ttt.play.empty (Empty squares only): b2 is already marked",
        "  but the example expects a refusal by rule 1.3, ttt.play.turn"]


def test_explain_stops_at_a_step_the_rules_refuse(ttt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = ttt / "examples/tic-tac-toe/ttt-openspiel-playthrough.yaml"
    path.write_text(path.read_text().replace("square: a1, note", "square: a2, note"))
    code, out, _ = run(capsys, "--root", str(ttt), "explain", "tic-tac-toe", "ttt-openspiel-playthrough")
    assert code == 0
    assert out.splitlines()[:2] == [
        "ttt-openspiel-playthrough (examples/tic-tac-toe/ttt-openspiel-playthrough.yaml), before step 8 (line 26):",
        "  note: step 8 (line 26) is refused by rule 1.4, ttt.play.empty: a2 is already marked; shown is the "
        "position before it"]


def test_explain_notes_a_refusal_that_did_not_happen(ttt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = ttt / "examples/tic-tac-toe/ttt-taken-square.yaml"
    path.write_text(path.read_text().replace("square: b2, illegal: ttt.play.empty", "square: b3, illegal: "
                                                                                     "ttt.play.empty"))
    code, out, _ = run(capsys, "--root", str(ttt), "explain", "tic-tac-toe", "ttt-taken-square", "--step", "2")
    assert code == 0
    assert out.splitlines()[1] == ("  note: step 1 (line 9) expects a refusal by rule 1.4, ttt.play.empty, but the "
                                   "rules allow it: it was played")
    assert "Legal actions: none (the game is over)" in out.splitlines()


def test_explain_uses_the_engines_narration(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--root", str(ROOT), "explain", "lantern-moths", "lm-draw", "--step", "1",
                       "--action", "{do: flip, tile: b2}")
    assert code == 0, out
    lines = out.splitlines()
    assert lines[2] == "  Round 1: Ann is playing, with 2 actions left. Face up: the amber tile at b2."  # narrate_state
    assert "   1. Ann draws a card from the deck   {player: Ann, do: draw, from: deck}" in lines  # narrate_action
    assert lines[-2:] == ["Action {do: flip, tile: b2}:",
                          "  forbidden by rule 4.6, lm.turn.flip (Flip): b2 is already face up"]


@pytest.mark.parametrize(("args", "message"), [
    (["ttt-openspiel-playthrough", "--step", "16"],
     "ttt-openspiel-playthrough has steps 1 to 14; --step takes 1 to 15 (15: the end)"),
    (["ttt-nowhere"], "book tic-tac-toe has no example 'ttt-nowhere' (examples: ttt-openspiel-playthrough, "
                      "ttt-taken-square, ttt-three-players)"),
    (["ttt-openspiel-playthrough", "--action", "{do: mark, square: [}"], "--action:1:21: malformed YAML: "
                                                                         "expected the node content, but found '}'"),
    (["ttt-openspiel-playthrough", "--action", "{do: mark, square: z9}"],
     "the engine cannot read the action {'do': 'mark', 'square': 'z9'}: step.square: unknown square 'z9' "
     "(squares: a1, b1, c1, a2, b2, c2, a3, b3, c3)"),
    (["ttt-three-players"], "ttt-three-players has no steps: its setup is refused by ttt.play.players"),
])
def test_explain_errors(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, _, err = run(capsys, "--root", str(SAMPLE), "explain", "tic-tac-toe", *args)
    assert (code, err) == (1, f"rulepress explain: {message}\n")


# --- the example keys record and outside sources need (schemas/example.yaml) ------------------------------------


@pytest.mark.parametrize(("keys", "problems"), [
    ({"source": "recorded", "reviewed": False}, []),
    ({"source": {"external": "OpenSpiel", "url": "https://github.com/google-deepmind/open_spiel"}}, []),
    ({"source": {"external": "A", "seed": "B"}}, ["ex.yaml:4:3: 'source' needs exactly one of 'seed' or 'external'"]),
    ({"source": {"url": "https://x.org", "seed": "B"}}, ["ex.yaml:4:3: missing key 'external' in 'source'"]),
    ({"source": {"external": "A", "url": "ftp://x"}},
     ["ex.yaml:5:3: 'source.url' must be the outside source's web address (https://...), not 'ftp://x'"]),
    ({"reviewed": "yes"}, ["ex.yaml:3:1: 'reviewed' must be true or false (false: not yet checked against the rules "
                           "by an author), not 'yes'"]),
    ({"source": "copied"}, ["ex.yaml:3:1: 'source' must be one of authored, recorded, not 'copied'"]),
])
def test_source_and_reviewed_keys(tmp_path: Path, keys: dict[str, object], problems: list[str]) -> None:
    from rulepress.load import schema
    from rulepress.load.yamlsrc import load_yaml

    file = tmp_path / "ex.yaml"
    file.write_text("id: x-y\ntitle: T\n" + yaml.safe_dump(keys, sort_keys=False, default_flow_style=False)
                    + "rules: [ttt.play]\nstart: {setup: true}\nsteps: [{do: mark}]\n")
    data = load_yaml(file, "ex.yaml")
    assert [str(error) for error in schema.validate(data, "example", "ex.yaml", "ttt")] == problems
