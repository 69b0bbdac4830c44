"""`rulepress analyze`: findings from simulated play, balance figures, plots (few games: fast)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from rulepress.analyze import plots
from rulepress.analyze.analysis import analyse, balance, configs, save, tracking
from rulepress.analyze.cluster import pool
from rulepress.analyze.report import designer_markdown
from rulepress.analyze.tally import Tally, quantile, wilson
from rulepress.cli import main
from rulepress.verify.gate import BookCheck, load_checked_book
from rulepress.verify.replay import replay


@pytest.fixture(scope="module")
def moths(root: Path) -> BookCheck:
    check = load_checked_book(root, "lantern-moths")
    check.results = [replay(e, check.book, check.engine, draw=False) for e in check.examples]
    return check


@pytest.fixture(scope="module")
def moths_analysis(root: Path, moths: BookCheck) -> dict:
    with pool(0) as workers:
        return analyse(workers, root, moths, 20, seed=1)


def test_configurations_cover_policies_answers_and_option_sets(moths: BookCheck) -> None:
    labels = [c.label for c in configs(moths)]
    assert labels[:2] == ["random play", "greedy play"]
    assert "lm.q3 = one-more-round" in labels
    assert "option set alternatives" in labels
    assert len(labels) == len(set(labels))


def test_deck_out_ending_never_reached(moths_analysis: dict) -> None:
    ends = [f for f in moths_analysis["findings"] if f["kind"] == "end-never-reached"]
    assert len(ends) == 1
    end = ends[0]
    assert end["rules"] == ["lm.night.deck-out"]
    assert (end["file"], end["line"]) == ("rules_src/lantern-moths/chapters/night.md", 22)
    games = 20 * len(moths_analysis["configs"])
    assert end["message"] == (f"end condition rule 6.4 (The deck runs out) was never reached in {games} simulated "
                              f"games; games ended by: rule 6.3 (The fourth Dusk card) 100.0%")


def test_dead_rule_names_rule_file_and_line(moths_analysis: dict) -> None:
    dead = {f["rules"][0]: f for f in moths_analysis["findings"] if f["kind"] == "dead-rule"}
    assert "lm.turn.stuck" in dead  # nobody is ever stuck: the pass never happens in play
    assert (dead["lm.turn.stuck"]["file"], dead["lm.turn.stuck"]["line"]) == (
        "rules_src/lantern-moths/chapters/turn.md", 58)
    assert "lm.turn.plant.full" not in dead  # a refusal: it never fires as an event, and is not reported


def test_balance_has_intervals(moths_analysis: dict) -> None:
    figures = moths_analysis["balance"]["random play"]
    assert figures["games"] == 20
    low, high = figures["seats"]["seat 1"]["ci95"]
    assert 0 <= low <= figures["seats"]["seat 1"]["rate"] <= high <= 1
    assert set(figures["ends"]) == {"fourth-dusk"}
    assert sum(figures["length"]["histogram"].values()) == 20


def test_analysis_is_the_same_for_the_same_seed(root: Path, moths: BookCheck, moths_analysis: dict) -> None:
    with pool(0) as workers:
        again = analyse(workers, root, moths, 20, seed=1)
    assert json.dumps(again, sort_keys=True) == json.dumps(moths_analysis, sort_keys=True)


def test_tracking_counts_a_question_on_the_rule_or_a_section_above(moths: BookCheck) -> None:
    assert "lm.q3" in tracking(moths.book, ["lm.night.deck-out"])
    assert tracking(moths.book, ["lm.overview.goal"]) == []


def test_wilson_interval_and_quantile() -> None:
    low, high = wilson(0, 400)
    assert low == 0.0 and 0.009 < high < 0.0096  # never "0% for certain" from 400 games
    assert wilson(5, 10)[0] == pytest.approx(0.2366, abs=1e-4)
    assert quantile(Counter({1: 1, 2: 2, 3: 1}), 0.5) == 2


def test_tally_merges_like_one_run() -> None:
    a, b, whole = Tally(), Tally(), Tally()
    games = [({"rounds": 3, "won": True, "end": "x"}, [0]), ({"rounds": 5, "won": False, "end": "y"}, [1, 0])]
    for (metrics, winners), part in zip(games, (a, b), strict=True):
        part.add_game(metrics, True, 2, winners)
        whole.add_game(metrics, True, 2, winners)
    assert a.merge(b) == whole
    assert whole.ties == 1 and whole.seat_wins == Counter({0: 2, 1: 1})
    assert balance(whole)["first_player"]["fair"] == 0.5


def test_plots_are_svg(moths_analysis: dict) -> None:
    figures = moths_analysis["balance"]["random play"]
    svg = plots.seat_win_rates(figures, "Wins per seat")
    assert svg is not None and svg.startswith("<svg") and "Wins per seat" in svg
    assert "<style" not in svg  # its "*" rule would reach every SVG of the page
    ids = re.findall(r'\bid="([^"]+)"', svg + plots.length_histogram(figures, "Length"))
    assert ids and len(ids) == len(set(ids))  # two plots on one page share no ID
    assert plots.length_histogram(figures, "Length").startswith("<svg")
    assert plots.seat_win_rates({"length": figures["length"]}, "none") is None


def test_designer_markdown_lists_untracked_first(root: Path, tmp_path: Path, moths_analysis: dict) -> None:
    shutil.copytree(root / "engine" / "lantern_moths", tmp_path / "engine" / "lantern_moths")
    save(tmp_path, moths_analysis)
    text = designer_markdown(tmp_path, "lantern-moths")
    assert text.startswith("## What simulated play found")
    assert "The engine has changed since" not in text
    (tmp_path / "engine/lantern_moths/extra.py").write_text("X = 1\n")
    assert "**The engine has changed since: run it again.**" in designer_markdown(tmp_path, "lantern-moths")
    first = next(line for line in text.splitlines() if line.startswith("- *"))
    assert "**untracked**" in first
    assert "<svg" in text and "#4a6fa5" in text
    press = designer_markdown(tmp_path, "lantern-moths", cmyk=True)
    assert re.search(r"#[0-9a-fA-F]{6}\b", press) is None  # the designer PDF is CMYK throughout
    assert "device-cmyk(0.552 0.327 0 0.353)" in press  # #4a6fa5
    assert designer_markdown(tmp_path, "lantern") == ""


def test_cli_analyze_json(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "p"
    for folder in ("rules_src/lantern-moths", "engine/lantern_moths", "examples/lantern-moths"):
        shutil.copytree(root / folder, project / folder)
    assert main(["--root", str(project), "analyze", "lantern-moths", "--games", "5", "--workers", "0",
                 "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["games"] == 5
    assert json.loads((project / "reports/analysis/lantern-moths.json").read_text()) == printed


def test_cli_analyze_refuses_zero_games(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(root), "analyze", "lantern-moths", "--games", "0"]) == 1
    assert capsys.readouterr().err == ("rulepress: --games: needs at least 1 game per configuration, not 0\n")


def test_first_player_advantage_beyond_noise_is_a_finding(moths: BookCheck) -> None:
    from rulepress.analyze.analysis import Config, seat_advantages

    lopsided, fair = Tally(), Tally()
    for game in range(200):
        lopsided.add_game({"rounds": 5}, True, 2, [0] if game % 10 else [1])  # seat 1 wins 90%
        fair.add_game({"rounds": 5}, True, 2, [game % 2])
    [found] = seat_advantages(moths, [(Config("random play", "random"), lopsided), (Config("fair", "random"), fair)])
    assert found.message == ("under random play the first player wins 90.0% of 200 games against a fair share of "
                             "50.0% (95% interval of the difference +35.1 to +43.4 points)")
    assert found.rules == ["lm.setup.start", "lm.round.start-player"]
    assert (found.file, found.line) == ("rules_src/lantern-moths/chapters/setup.md", 26)


def test_analysis_includes_lint_findings(root: Path) -> None:
    check = load_checked_book(root, "lantern")
    check.results = [replay(e, check.book, check.engine, draw=False) for e in check.examples]
    with pool(0) as workers:
        analysis = analyse(workers, root, check, 2)
    [overlap] = [f for f in analysis["findings"] if f["kind"] == "range-overlap"]
    assert overlap["message"] == "score.bands: ranges 'heroic' (1-5) and 'master' (5-15) overlap at 5"
    assert (overlap["file"], overlap["line"], overlap["severity"]) == ("rules_src/lantern/components.yaml", 74,
                                                                      "error")


def _tally(games: int, fired: dict[str, int] | None = None, **fields: Counter[str]) -> Tally:
    tally = Tally(games=games, finished=games)
    tally.fired.update(fired or {})
    for name, counts in fields.items():
        getattr(tally, name).update(counts)
    return tally


def test_nearly_dead_under_the_texts_options(root: Path, moths: BookCheck) -> None:
    from rulepress.analyze.analysis import Config, dead_rules

    everywhere = {rule: 100 for rule in moths.book.rules}
    rare = {**everywhere, "lm.turn.draw.discard": 0}
    runs = [(Config("random play", "random"), _tally(100, rare)),
            (Config("greedy play", "greedy"), _tally(100, rare)),
            (Config("lm.q11 = hand-limit", "greedy", {"discard_source": "hand_limit"}, "lm.q11", "hand-limit"),
             _tally(100, {**everywhere, "lm.turn.draw.discard": 5}))]
    [found] = dead_rules(root, moths, runs)
    assert found.kind == "nearly-dead-rule"
    assert found.message == ("rule 4.3.1 (The discard pile) fired in under 0.1% of the games under the text's "
                             "options; only under: lm.q11 = hand-limit")
    assert (found.file, found.line) == ("rules_src/lantern-moths/chapters/turn.md", 21)
    assert dead_rules(root, moths, [(c, _tally(100, everywhere)) for c, _ in runs]) == []


def test_unused_component_and_unmade_choice(moths: BookCheck) -> None:
    from rulepress.analyze.analysis import Config, unmade_choices, unused_components

    inventory = moths.engine.inventory(moths.book.components)
    touched = Counter({f"{kind}:{name}": 1 for kind, names in inventory.items() for name in names})
    del touched["card:ghost"]
    offered = Counter({"draw": 1, "plant": 1, "discard": 1})
    random_run = _tally(10, touched=touched, offered=offered, chosen=offered)
    random_run.kind_rule.update({"discard": "lm.turn.draw.discard"})
    greedy_run = _tally(10, touched=touched, chosen=Counter({"draw": 1, "plant": 1}))
    runs = [(Config("random play", "random"), random_run), (Config("greedy play", "greedy"), greedy_run)]
    [unused] = unused_components(moths, runs)
    assert unused.message == "card never used in any simulated game: ghost"
    assert unused.rules == ["lm.components"]
    [choice] = unmade_choices(moths, runs)
    assert choice.message == "the action 'discard' is legal in random play but greedy play never chooses it"
    assert (choice.rules, choice.line) == (["lm.turn.draw.discard"], 21)


def test_question_without_effect_and_metrics_that_move(moths: BookCheck, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.analyze import analysis
    from rulepress.analyze.analysis import Config, question_effects

    monkeypatch.setattr(analysis, "example_changes", lambda check, question, answer: [])
    base = Tally()
    moved = Tally()
    for game in range(100):
        base.add_game({"rounds": 8 + game % 3}, True, 2, [0])
        moved.add_game({"rounds": 12 + game % 3}, True, 2, [0])
    greedy = Config("greedy play", "greedy")
    answer = Config("lm.q16 = middle", "greedy", {"grey_tile": "middle"}, "lm.q16", "middle")
    [quiet] = question_effects(moths, [(greedy, base), (answer, base)])
    assert quiet.kind == "question-no-effect"
    assert quiet.message == ("lm.q16: no answer other than 'shuffled' changes an example or a simulated metric beyond "
                             "noise (100 games each, greedy play): the question may not matter in play")
    assert quiet.tracked_by == ["lm.q16"] and quiet.file == "rules_src/lantern-moths/questions.yaml"
    [moves] = question_effects(moths, [(greedy, base), (answer, moved)])
    assert moves.kind == "question-moves"
    assert moves.message == ("lm.q16: answering 'middle' instead of 'shuffled' moves most: rounds mean: 8.99 -> "
                             "12.99")


def test_error_bars_are_never_negative_when_a_rate_sits_on_its_interval() -> None:
    from rulepress.analyze.plots import _error_bars

    shares = {"all": {"rate": 1.0, "ci95": [0.97, 0.9999999999]}, "none": {"rate": 0.0, "ci95": [1e-12, 0.03]}}
    low, high = _error_bars(shares, ["all", "none"])
    assert low == pytest.approx([3.0, 0.0]) and high == pytest.approx([0.0, 3.0])
    assert min(low + high) >= 0.0
