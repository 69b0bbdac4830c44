"""`rulepress analyze`: findings from simulated play with their evidence, settings per question, balance figures,
the dashboard (few games, seeded: fast; the long campaign is `nox -s analysis`)."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from rulepress.analyze import plots, stats
from rulepress.analyze.analysis import Run, Verdicts, analyse, compare, rare_rules, save, seat_advantages
from rulepress.analyze.balance import balance, difficulty, predictors
from rulepress.analyze.cluster import pool
from rulepress.analyze.fingerprint import changed_since, engine_fingerprint, play_digests
from rulepress.analyze.plan import Config, bundles, configs, variants
from rulepress.analyze.report import designer_markdown
from rulepress.analyze.tally import Tally, quantile, wilson
from rulepress.cli import main
from rulepress.render.strings import strings
from rulepress.verify.gate import BookCheck, load_checked_book
from rulepress.verify.replay import replay


@pytest.fixture(scope="module")
def moths(root: Path) -> BookCheck:
    check = load_checked_book(root, "lantern-moths")
    check.results = [replay(e, check.book, check.engine, draw=False) for e in check.examples]
    return check


@pytest.fixture(scope="module")
def last(root: Path) -> BookCheck:
    return load_checked_book(root, "last-lantern")


@pytest.fixture(scope="module")
def moths_analysis(root: Path, moths: BookCheck) -> dict:
    with pool(0) as workers:
        return analyse(workers, root, moths, 20, seed=1, budget=40)


# -- what is played ------------------------------------------------------------------------------------------------

def test_an_option_set_of_other_answers_is_never_the_texts_game(moths: BookCheck, root: Path) -> None:
    labels = {c.label: c for c in configs(moths)}
    assert [c.label for c in configs(moths)][:2] == ["random play", "greedy play"]
    bundle = labels["option set alternatives"]
    assert bundle.role == "bundle" and not bundle.text
    assert bundles(moths.engine) == {"alternatives"}  # declared (answer_bundles) and derived from the options
    lantern = load_checked_book(root, "lantern")
    assert bundles(lantern.engine) == {"loss-certain", "loss-exhausted", "six-wild-distinct", "campfire-bonus"}
    assert variants(lantern.engine) == {}
    assert labels["lm.q3 = one-more-round"].baseline == "greedy play"


def test_a_bundle_is_found_without_a_declaration(moths: BookCheck, monkeypatch: pytest.MonkeyPatch) -> None:
    undeclared = dataclasses.replace(moths.engine, answer_bundles=())
    assert bundles(undeclared) == {"alternatives"}  # it sets question options to non-default answers


def test_each_question_is_played_where_it_matters(last: BookCheck) -> None:
    found = {}
    for config in configs(last):
        if config.role == "answer":
            found.setdefault(config.question, set()).add(config.setting)
    assert set(variants(last.engine)) == {"glow-shrooms", "blossoms", "eerie-lights", "moving-branches",
                                          "frozen-lake", "basilisk"}
    assert found["ll.q18"] == {"frozen-lake", "basilisk"}  # from its option's rules
    assert found["ll.q19"] == {"eerie-lights"}
    assert found["ll.q20"] == {"glow-shrooms + frozen-lake", "glow-shrooms + basilisk"}  # simulated_with
    assert found["ll.q24"] == {"basilisk"}
    assert found["ll.q14"] == {"the text's game"}
    labels = {c.label: c for c in configs(last)}
    combined = labels["glow-shrooms + frozen-lake"]
    assert combined.role == "baseline" and combined.options == {"glow": True, "lake": True} and combined.text
    assert labels["ll.q20 = no (glow-shrooms + frozen-lake)"].baseline == "glow-shrooms + frozen-lake"


def test_a_setting_naming_an_unknown_option_is_refused_with_its_line(last: BookCheck) -> None:
    from rulepress.analyze.plan import settings
    from rulepress.errors import SourceError

    question = next(q for q in last.book.questions if q.id == "ll.q20")
    bad = type(question)(**{**question.__dict__, "simulated_with": [{"options": {"glowing": True}}]})
    with pytest.raises(SourceError) as caught:
        settings(last, bad)
    assert (caught.value.file, caught.value.line) == ("rules_src/last-lantern/questions.yaml", question.line)
    assert "simulated_with names the option 'glowing'" in caught.value.message


# -- rare things, with thresholds that scale with the games played ----------------------------------------------

def _tally(games: int, fired: dict[str, int] | None = None) -> Tally:
    tally = Tally(games=games, finished=games)
    tally.fired.update(fired or {})
    return tally


def test_the_discard_pile_is_nearly_dead_by_itself(root: Path, moths: BookCheck) -> None:
    everywhere = {rule: 1000 for rule in moths.book.rules}
    rare = {**everywhere, "lm.turn.draw.discard": 0}
    runs = [Run(Config("random play", "random"), _tally(1000, rare)),
            Run(Config("greedy play", "greedy"), _tally(1000, rare)),
            Run(Config("option set alternatives", "greedy", {"discard_source": "hand_limit"}, role="bundle"),
                _tally(1000, {**everywhere, "lm.turn.draw.discard": 850})),
            Run(Config("lm.q11 = hand-limit", "greedy", {"discard_source": "hand_limit"}, "lm.q11", "hand-limit",
                       "answer", baseline="greedy play"), _tally(1000, {**everywhere, "lm.turn.draw.discard": 550}))]
    verdicts = Verdicts([], [])
    rare_rules(root, moths, runs, 0.05, verdicts)
    [found] = [f for f in verdicts.findings if f.subject == "rule:lm.turn.draw.discard"]
    assert found.kind == "nearly-dead-rule"
    assert found.message == ("rule 4.3.1 (The discard pile) never happened in 2000 games of the text's game "
                             "(2 settings); it happens only under other answers: option set alternatives (85.0% of "
                             "1000), lm.q11 = hand-limit (55.0% of 1000)")
    assert (found.file, found.line) == ("rules_src/lantern-moths/chapters/turn.md", 21)
    assert found.evidence["games"] == 2000 and found.evidence["bound"] < 0.01


def test_a_rare_rule_is_undecided_until_enough_games(root: Path, moths: BookCheck) -> None:
    """0 of 100 games cannot tell under 1% from over; 0 of 2000 can: the threshold scales with the games."""
    everywhere = {rule: 100 for rule in moths.book.rules}
    few = [Run(Config("greedy play", "greedy"), _tally(100, {**everywhere, "lm.turn.stuck": 0}))]
    verdicts = Verdicts([], [])
    rare_rules(root, moths, few, 0.05, verdicts)
    assert "rule:lm.turn.stuck" not in {f.subject for f in verdicts.findings}
    [waiting] = [u for u in verdicts.undecided if u["subject"] == "rule:lm.turn.stuck"]
    assert waiting["configs"] == ["greedy play"] and waiting["games"] == 100
    many = [Run(Config("greedy play", "greedy"), _tally(2000, {**{r: 2000 for r in moths.book.rules},
                                                              "lm.turn.stuck": 0}))]
    verdicts = Verdicts([], [])
    rare_rules(root, moths, many, 0.05, verdicts)
    [dead] = [f for f in verdicts.findings if f.subject == "rule:lm.turn.stuck"]
    assert dead.kind == "dead-rule" and dead.tracked_by == []  # tracking comes later, by subject
    assert dead.message.startswith("rule 4.7 (When no action is possible) never happened in 2000 games")


def test_bounds_and_correction() -> None:
    assert stats.upper_bound(0, 300) == pytest.approx(0.00994, abs=1e-4)  # the rule of three, exactly
    assert stats.upper_bound(0, 300, 0.05 / 50) > 0.02  # corrected for 50 rules tested: wider
    assert stats.lower_bound(30, 300) > 0.07
    # 44 metrics each at p = 0.03: none survives the correction (the old 2 SE test called them all moves).
    assert min(stats.corrected([0.03] * 43 + [0.9])) > 0.03
    assert stats.corrected([0.001, 0.04, 0.5])[0] == pytest.approx(0.003)
    low, high = wilson(0, 400)
    assert low == 0.0 and 0.009 < high < 0.0096
    assert quantile(Counter({1: 1, 2: 2, 3: 1}), 0.5) == 2


# -- seats ---------------------------------------------------------------------------------------------------------

def _seated(wins_by_game: list[tuple[int, list[int]]]) -> Tally:
    tally = Tally()
    for players, winners in wins_by_game:
        tally.add_game({"rounds": 8}, True, players, winners)
    return tally


def test_a_seat_is_judged_at_its_own_player_count(moths: BookCheck) -> None:
    # 3 players: seat 3 wins 45% of 1500 games against a fair third; 2 players: fair.
    games = [(3, [2] if i % 20 < 9 else [i % 2]) for i in range(1500)] + [(2, [i % 2]) for i in range(1500)]
    tally = _seated(games)
    verdicts = Verdicts([], [])
    seat_advantages(moths, [Run(Config("greedy play", "greedy"), tally), Run(Config("random play", "random"), tally)],
                    0.05, verdicts)
    found = {f.subject: f for f in verdicts.findings}
    assert set(found) == {"seat:greedy play/3/3", "seat:greedy play/3/1", "seat:greedy play/3/2"}  # random play: none
    third = found["seat:greedy play/3/3"]
    assert third.message.startswith("under greedy play with 3 players seat 3 wins 45.0% of 1500 games against a fair "
                                    "share of 33.3% (95% interval 42.5% to 47.5%")
    assert third.evidence["players"] == 3 and third.evidence["games"] == 1500
    rows = balance(tally, moths)["seats"]
    assert [(r["players"], r["seat"]) for r in rows] == [(2, 1), (2, 2), (3, 1), (3, 2), (3, 3)]
    assert rows[0]["fair"] == 0.5 and rows[2]["fair"] == pytest.approx(1 / 3)


# -- questions: game by game -----------------------------------------------------------------------------------------

def test_an_answer_that_changes_no_game_is_the_limit_of_the_evidence(last: BookCheck) -> None:
    base = Tally()
    for game in range(1000):
        base.add_game({"rounds": 7, "won": game % 3 == 0}, True, 3, None, trace=game)
    same = compare(Run(Config("ll.q14 = abandon", "cooperative", {"unplaceable": "abandon"}, "ll.q14", "abandon",
                              "answer", baseline="cooperative play"), base),
                   Run(Config("cooperative play", "cooperative"), base), 0.05)
    assert same.changed == 0 and same.games == 1000
    assert all(t["difference"] == 0 for t in same.tests if t["key"])
    moved = Tally()
    for game in range(1000):
        moved.add_game({"rounds": 8, "won": game % 2 == 0}, True, 3, None, trace=game + (game % 2))
    changed = compare(Run(Config("a", "cooperative", role="answer"), moved), Run(Config("b", "cooperative"), base),
                      0.05)
    assert changed.changed == 500
    won = next(t for t in changed.tests if t["metric"] == "won")
    assert won["difference"] == pytest.approx(0.5 - 334 / 1000)
    assert won["ci95"][0] > 0.1  # paired: the same deals, a decided move
    length = next(t for t in changed.tests if t["metric"] == "length")
    assert length["difference"] == 1.0 and length["ci95"] == [1.0, 1.0]


def test_analysis_plays_on_where_a_finding_is_undecided(moths_analysis: dict) -> None:
    played = {c["label"]: c["games"] for c in moths_analysis["configs"]}
    assert moths_analysis["games"] == 20 and moths_analysis["budget"] == 40
    assert played["greedy play"] == 40  # rare rules needed more games than 20
    assert min(played.values()) == 20  # an answer that was decided did not
    assert moths_analysis["looks"] == 2 and moths_analysis["alpha"] == 0.025
    assert all(u["games"] <= 2 * 40 for u in moths_analysis["undecided"])
    subjects = {f["subject"] for f in moths_analysis["findings"]}
    assert "rule:lm.night.deck-out" not in subjects  # 0 of 80 games cannot yet say "under 1%": undecided
    assert "rule:lm.night.deck-out" in {u["subject"] for u in moths_analysis["undecided"]}


def test_analysis_is_the_same_for_the_same_seed(root: Path, moths: BookCheck, moths_analysis: dict) -> None:
    with pool(0) as workers:
        again = analyse(workers, root, moths, 20, seed=1, budget=40)
    assert json.dumps(again, sort_keys=True) == json.dumps(moths_analysis, sort_keys=True)


def test_findings_are_tracked_by_subject(moths_analysis: dict, root: Path, moths: BookCheck) -> None:
    from rulepress.analyze.findings import tracking

    assert tracking(moths.book, "rule:lm.night.deck-out") == ["lm.q18"]  # tracks: in questions.yaml
    assert tracking(moths.book, "rule:lm.round.refill") == []  # lm.q2, lm.q3... name it, but track other things
    assert tracking(moths.book, "word:next to") == ["lm.q1"]  # lm.q1 quotes it
    for finding in moths_analysis["findings"]:
        if finding["kind"].startswith("question-"):
            assert finding["tracked_by"] == [finding["subject"].split(":", 1)[1]]


# -- figures -------------------------------------------------------------------------------------------------------

def test_every_ending_is_shown_those_never_reached_at_zero(moths_analysis: dict) -> None:
    ends = moths_analysis["balance"]["greedy play"]["ends"]
    assert list(ends) == ["lm.night.fourth", "lm.night.deck-out"]
    assert ends["lm.night.deck-out"]["count"] == 0 and ends["lm.night.deck-out"]["rate"] == 0.0
    assert 0.05 < ends["lm.night.deck-out"]["ci95"][1] < 0.15  # 0 of 40 games: an interval, not "never"
    assert ends["lm.night.fourth"]["count"] == 40


def test_difficulty_by_setting_easiest_first(last: BookCheck) -> None:
    def won(rate: float) -> Tally:
        tally = Tally()
        for game in range(200):
            tally.add_game({"rounds": 7, "won": game < rate * 200}, True, 3, None)
        return tally

    runs = [(Config("cooperative play", "cooperative"), won(0.3)),
            (Config("option set basilisk", "cooperative", {"basilisk": True}, role="variant", setting="basilisk"),
             won(0.02)),
            (Config("option set glow-shrooms", "cooperative", {"glow": True}, role="variant",
                    setting="glow-shrooms"), won(0.31)),
            (Config("random play", "random"), won(0.0))]
    rows = difficulty(last, runs)
    assert [row["setting"] for row in rows] == ["glow-shrooms", "the text's game", "basilisk"]
    assert rows[2]["win"]["count"] == 4 and rows[2]["win"]["ci95"][0] < 0.02 < rows[2]["win"]["ci95"][1]
    # Every ending the setting can reach, those never reached at 0%; not another challenge's loss.
    assert rows[0]["ends"]["ll.astray.loss"]["count"] == 0 and "ll.challenge.blossoms.loss" not in rows[0]["ends"]
    assert "ll.challenge.basilisk.loss" in rows[2]["ends"]


def test_the_rules_that_go_with_winning(moths: BookCheck) -> None:
    tally = Tally()
    for game in range(300):
        winner = game % 3
        captures = [(3 if seat == winner else 1) + (game + seat) % 3 for seat in range(3)]
        noise = [(game + seat) % 2 for seat in range(3)]
        tally.add_game({"rounds": 8}, True, 3, [winner],
                       by_seat={"lm.round.capture": captures, "lm.turn.flip": noise})
    rows = predictors(moths, tally)
    assert [row["rule"] for row in rows] == ["lm.round.capture"]  # the flips are noise: left out
    assert 0.5 < rows[0]["r"] < 0.999 and rows[0]["games"] == 300
    assert rows[0]["ci95"][0] < rows[0]["r"] < rows[0]["ci95"][1]
    exact = Tally()  # a rule that happens exactly when a player wins is the outcome itself, not a predictor
    for game in range(300):
        exact.add_game({"rounds": 8}, True, 3, [game % 3], by_seat={"lm.scoring.winner": [s == game % 3 for s in
                                                                                        range(3)]})
    assert predictors(moths, exact) == []


def test_tally_merges_like_one_run() -> None:
    a, b, whole = Tally(), Tally(), Tally()
    games = [({"rounds": 3, "won": True, "end": "x"}, [0]), ({"rounds": 5, "won": False, "end": "y"}, [1, 0])]
    for (metrics, winners), part in zip(games, (a, b), strict=True):
        part.add_game(metrics, True, 2, winners, trace=7)
        whole.add_game(metrics, True, 2, winners, trace=7)
    assert a.merge(b) == whole
    assert whole.ties == Counter({2: 1}) and whole.seat_wins == Counter({(2, 0): 2, (2, 1): 1})
    assert list(whole.outcomes) == [1, 3] and list(whole.lengths) == [3, 5]
    assert balance(whole, None)["seats"][0]["fair"] == 0.75  # three wins over two games of two seats


# -- what decides play, and the dashboard ----------------------------------------------------------------------------

def test_the_fingerprint_covers_play_not_narration(root: Path, tmp_path: Path) -> None:
    for folder in ("engine/lantern_moths", "rules_src/lantern-moths"):
        shutil.copytree(root / folder, tmp_path / folder)
    before = engine_fingerprint(tmp_path, "lantern_moths", "lantern-moths")
    saved = play_digests(tmp_path, "lantern_moths", "lantern-moths")
    narrate = tmp_path / "engine/lantern_moths/narrate.py"
    narrate.write_text(narrate.read_text() + "\nEXTRA = 'a new sentence'\n")
    game = tmp_path / "engine/lantern_moths/game.py"
    text = game.read_text()
    game.write_text(text.replace('"""', '"""Reworded. ', 1) + "\n# a comment\n")
    assert engine_fingerprint(tmp_path, "lantern_moths", "lantern-moths") == before
    game.write_text(text + "\nRULE_CHANGE = 1\n")
    assert engine_fingerprint(tmp_path, "lantern_moths", "lantern-moths") != before
    assert changed_since(saved, tmp_path, "lantern_moths", "lantern-moths") == ["engine/lantern_moths/game.py"]
    game.write_text(text)
    data = tmp_path / "rules_src/lantern-moths/components.yaml"
    data.write_text(data.read_text().replace("hand_size: 5", "hand_size: 6"))
    assert changed_since(saved, tmp_path, "lantern_moths", "lantern-moths") == [
        "rules_src/lantern-moths/components.yaml"]


def test_the_fingerprint_keeps_each_file_s_tree_digest_under_its_bytes(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new process reads each unchanged file's digest from the store, and parses only what changed."""
    from rulepress.analyze import fingerprint
    from rulepress.store import clear_process_cache

    shutil.copytree(root / "engine/lantern_moths", tmp_path / "engine/lantern_moths")
    monkeypatch.setenv("RULEPRESS_CACHE", "1")  # (the suite runs with the cache off)
    fingerprint._tree_digest.cache_clear()
    before = play_digests(tmp_path, "lantern_moths")
    clear_process_cache()
    parsed: list[bytes] = []
    real = fingerprint._tree_digest.__wrapped__
    monkeypatch.setattr(fingerprint, "_tree_digest", lambda source: parsed.append(source) or real(source))
    assert play_digests(tmp_path, "lantern_moths") == before and parsed == []
    game = tmp_path / "engine/lantern_moths/game.py"
    game.write_text(game.read_text() + "\nRULE_CHANGE = 1\n")
    after = play_digests(tmp_path, "lantern_moths")
    assert len(parsed) == 1 and parsed[0].endswith(b"\nRULE_CHANGE = 1\n")  # (the engine's source, as read)
    assert [path for path in after if after[path] != before[path]] == ["engine/lantern_moths/game.py"]


def test_dashboard_ranks_findings_names_the_engine_and_speaks_the_editions_language(
        root: Path, tmp_path: Path, moths_analysis: dict, moths: BookCheck) -> None:
    for folder in ("engine/lantern_moths", "rules_src/lantern-moths"):
        shutil.copytree(root / folder, tmp_path / folder)
    save(tmp_path, moths_analysis)
    en = designer_markdown(tmp_path, "lantern-moths", strings("en"), moths.book)
    assert en.startswith("## What simulated play found")
    assert "These figures are from the engine as it is now." in en
    severities = [line.split("*")[1] for line in en.splitlines() if line.startswith("- *")][:6]
    assert severities == sorted(severities, key=["error", "warning", "note"].index)
    assert "| players | seat | games | wins | fair share | interval |" in en
    assert "every interval at 97.5% (5% spread over 2 looks)" in en  # 20 games, up to 40: two looks, not "95%"
    assert "### Who played, and what competent play shows" in en  # each player's figures (analysis["play"])
    assert "| greedy play | the book's own policy 'greedy' |" in en
    assert "### Decisiveness: lead changes, ties and draws" in en  # Lantern Moths is scored as it goes
    lead = {row["label"]: row for row in moths_analysis["play"]}["greedy play"]["lead_changes"]["2"]
    low, high = lead["ci95"]
    assert f"| greedy play | 2 | {lead['games']} | {lead['mean']:.2f} ({low:.2f}–{high:.2f}) |" in en
    assert "| rule 6.4 (The deck runs out) | 0 | 0.0% |" in en  # an ending never reached, at 0%
    assert "<svg" in en and "#4a6fa5" in en
    press = designer_markdown(tmp_path, "lantern-moths", strings("en"), moths.book, cmyk=True)
    assert re.search(r"#[0-9a-fA-F]{6}\b", press) is None  # the designer PDF is CMYK throughout
    game = tmp_path / "engine/lantern_moths/game.py"
    game.write_text(game.read_text() + "\nRULE_CHANGE = 1\n")
    stale = designer_markdown(tmp_path, "lantern-moths", strings("en"), moths.book)
    assert ("These figures are from the engine before its latest changes to `engine/lantern_moths/game.py`; "
            "`rulepress analyze lantern-moths` brings them up to date.") in stale
    fr = designer_markdown(tmp_path, "lantern-moths", strings("fr"), moths.book)
    assert fr.startswith("## Ce qu'ont révélé les parties simulées")
    assert "### Suspense : changements de tête, égalités et parties nulles" in fr
    for english in ("games per configuration", "Findings", "fair share", "How games end", "tracked by"):
        assert english not in fr
    assert "| règle 6.4 (The deck runs out) | 0 | 0,0\u202f% |" in fr
    assert designer_markdown(tmp_path, "lantern", strings("en")) == ""  # never analysed


def test_plots_are_svg(moths_analysis: dict) -> None:
    figures = moths_analysis["balance"]["greedy play"]
    svg = plots.seat_win_rates(figures, "Wins per seat")
    assert svg is not None and svg.startswith("<svg") and "Wins per seat" in svg
    assert "<style" not in svg  # its "*" rule would reach every SVG of the page
    ids = re.findall(r'\bid="([^"]+)"', svg + plots.length_histogram(figures, "Length"))
    assert ids and len(ids) == len(set(ids))  # two plots on one page share no ID
    assert plots.seat_win_rates({"length": figures["length"]}, "none") is None


def test_cli_analyze_json(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "p"
    for folder in ("rules_src/lantern-moths", "engine/lantern_moths", "examples/lantern-moths"):
        shutil.copytree(root / folder, project / folder)
    assert main(["--root", str(project), "analyze", "lantern-moths", "--games", "5", "--budget", "5",
                 "--workers", "0", "--json", "--players", "random,greedy"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["games"] == 5 and printed["budget"] == 5
    assert json.loads((project / "reports/analysis/lantern-moths.json").read_text()) == printed


def test_cli_analyze_refuses_zero_games_and_a_budget_below_them(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(root), "analyze", "lantern-moths", "--games", "0"]) == 1
    assert capsys.readouterr().err == "rulepress: --games: needs at least 1 game per configuration, not 0\n"
    assert main(["--root", str(root), "analyze", "lantern-moths", "--games", "50", "--budget", "10"]) == 1
    assert capsys.readouterr().err == "rulepress: --budget: must be at least --games (50), not 10\n"


def test_analysis_includes_lint_findings(root: Path) -> None:
    check = load_checked_book(root, "lantern")
    check.results = [replay(e, check.book, check.engine, draw=False) for e in check.examples]
    with pool(0) as workers:
        analysis = analyse(workers, root, check, 2, budget=2)
    [overlap] = [f for f in analysis["findings"] if f["kind"] == "range-overlap"]
    assert overlap["message"] == "score.bands: ranges 'heroic' (1-5) and 'master' (5-15) overlap at 5"
    assert (overlap["file"], overlap["line"], overlap["severity"]) == ("rules_src/lantern/components.yaml", 74,
                                                                      "error")
    assert overlap["tracked_by"] == ["ln.q4"]


def test_a_setting_never_won_is_a_finding_once_the_games_decide_it(last: BookCheck) -> None:
    from rulepress.analyze.analysis import unwinnable_settings

    def won(games: int, wins: int) -> Tally:
        tally = Tally()
        for game in range(games):
            tally.add_game({"rounds": 7, "won": game < wins}, True, 3, None)
        return tally

    runs = [Run(Config("cooperative play", "cooperative"), won(1000, 300)),
            Run(Config("option set blossoms", "cooperative", {"blossoms": True}, role="variant", setting="blossoms"),
                won(1000, 0)),
            Run(Config("option set basilisk", "cooperative", {"basilisk": True}, role="variant", setting="basilisk"),
                won(60, 0))]
    verdicts = Verdicts([], [])
    unwinnable_settings(last, runs, 0.05, verdicts)
    [never] = verdicts.findings
    assert never.kind == "setting-never-won" and never.subject == "setting:blossoms"
    assert never.message == ("blossoms: cooperative play won 0 of 1000 games (at most 0.4% of games, one-sided at "
                             "98.33% confidence)")
    assert [u["subject"] for u in verdicts.undecided] == ["setting:basilisk"]  # 0 of 60: not yet


def test_an_ending_players_almost_never_see(last: BookCheck) -> None:
    from rulepress.analyze.analysis import rare_endings

    base = Tally(games=2000, finished=2000)
    base.fired.update({"ll.end.victory": 650, "ll.lantern.loss": 1347, "ll.astray.loss": 3})
    glow = Tally(games=2000, finished=2000)
    glow.fired.update({"ll.astray.loss": 80})
    verdicts = Verdicts([], [])
    rare_endings(last, [Run(Config("cooperative play", "cooperative"), base),
                        Run(Config("option set glow-shrooms", "cooperative", {"glow": True}, role="variant",
                                   setting="glow-shrooms"), glow)], 0.05, verdicts)
    rare = {f.subject: f for f in verdicts.findings}
    assert set(rare) >= {"end:ll.astray.loss"}
    assert rare["end:ll.astray.loss"].message.startswith("rule 8.3 (") and "ends 3 of 2000 games" in \
        rare["end:ll.astray.loss"].message
    assert "end:ll.end.victory" not in rare and "end:ll.lantern.loss" not in rare


def test_a_question_the_policy_almost_never_meets_says_so(last: BookCheck) -> None:
    from rulepress.analyze.analysis import question_effects

    def games(changed: int, won_when_changed: bool) -> Tally:
        tally = Tally()
        for game in range(1000):
            moved = game < changed
            tally.add_game({"rounds": 7, "won": won_when_changed if moved else game % 3 == 0}, True, 3, None,
                           trace=game + 10_000 * moved)
        return tally

    base = Run(Config("cooperative play", "cooperative"), games(0, False))
    rare = Run(Config("ll.q14 = abandon", "cooperative", {"unplaceable": "abandon"}, "ll.q14", "abandon", "answer",
                      baseline="cooperative play"), games(2, True))
    often = Run(Config("ll.q15 = yes", "cooperative", {"pool_familiars": True}, "ll.q15", "yes", "answer",
                       baseline="cooperative play"), games(400, True))
    verdicts = Verdicts([], [])
    question_effects(last, [base, rare, often], 0.05, verdicts)
    found = {f.subject: f for f in verdicts.findings}
    assert found["question:ll.q14"].kind == "question-unexercised"  # 2 of 1000 games: the situation is rare
    assert "changed 2 game(s)" in found["question:ll.q14"].message
    assert found["question:ll.q15"].kind == "question-moves"  # 400 games, the win rate moves far
    assert found["question:ll.q15"].evidence["moves"][0]["metric"] == "won"
