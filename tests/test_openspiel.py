"""Every book as an OpenSpiel game (rulepress.openspiel): OpenSpiel's own algorithms and checks, unchanged.

* CFR on samples/kuhn-poker through the adapter: the game value -1/18 and an exploitability falling towards 0, step
  for step as on pyspiel's own ``kuhn_poker``;
* random games played natively and through the adapter are the same game, action for action and draw for draw;
* OpenSpiel's random simulation test (with state serialisation) on every bundled book and sample;
* samples/tic-tac-toe: MCTS against MCTS draws (at least 95% of games);
* MCTS and IS-MCTS play every book, the same game for the same seed.

``RULEPRESS_OPENSPIEL_CAMPAIGN=1`` (``nox -s competent``) plays the long campaign: 200 tic-tac-toe games, 1,000 CFR
iterations, ten simulations at every player count.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import cfr, expected_game_score, exploitability  # noqa: E402

from rulepress.load.book import load_book  # noqa: E402
from rulepress.openspiel import load  # noqa: E402
from rulepress.openspiel.game import adopt, book_counts  # noqa: E402
from rulepress.openspiel.players import Searcher, _bot, choose, describe, parse, policy  # noqa: E402
from rulepress.verify.engines import load_engine  # noqa: E402

from .conftest import ROOT  # noqa: E402

CAMPAIGN = os.environ.get("RULEPRESS_OPENSPIEL_CAMPAIGN") == "1"
SAMPLES = ROOT / "samples"
BOOKS = [(ROOT, "lantern-moths"), (ROOT, "last-lantern"), (ROOT, "lantern"), (SAMPLES / "kuhn-poker", "kuhn-poker"),
         (SAMPLES / "tic-tac-toe", "tic-tac-toe")]


def _engine(root: Path, book_id: str) -> tuple[Any, tuple[int, int]]:
    book = load_book(root, book_id)
    return load_engine(book.engine_package, root).make_game(book.components, {}), book_counts(book.data)


def _cfr_curve(game: Any, checkpoints: list[int]) -> tuple[list[float], Any]:
    solver, curve, done = cfr.CFRSolver(game), [], 0
    for point in checkpoints:
        while done < point:
            solver.evaluate_and_update_policy()
            done += 1
        curve.append(exploitability.exploitability(game, solver.average_policy()))
    return curve, solver.average_policy()


def test_cfr_on_kuhn_poker_through_the_adapter_matches_pyspiels_own() -> None:
    engine, counts = _engine(SAMPLES / "kuhn-poker", "kuhn-poker")
    game = load(engine, 2, counts)
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    checkpoints = [1, 10, 100, 1000] if CAMPAIGN else [1, 10, 100]
    ours, average = _cfr_curve(game, checkpoints)
    theirs, _ = _cfr_curve(pyspiel.load_game("kuhn_poker"), checkpoints)
    assert ours == pytest.approx(theirs, abs=1e-9)  # the same game tree: the same iterates
    assert all(later < earlier for earlier, later in zip(ours, ours[1:], strict=False)), ours
    assert ours[-1] < 0.02
    value = expected_game_score.policy_value(game.new_initial_state(), [average, average])
    assert value[0] == pytest.approx(-1 / 18, abs=0.005)


def test_kuhn_poker_strings_are_the_engines_words() -> None:
    engine, counts = _engine(SAMPLES / "kuhn-poker", "kuhn-poker")
    state = load(engine, 2, counts).new_initial_state()
    assert state.is_chance_node()
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in state.chance_outcomes()] == \
        ["card: Jack", "card: Queen", "card: King"]
    assert [p for _, p in state.chance_outcomes()] == pytest.approx([1 / 3] * 3)
    state.apply_action(2)  # P1 holds the King
    assert [p for _, p in state.chance_outcomes()] == pytest.approx([1 / 2] * 2)
    state.apply_action(0)  # P2 the Jack
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == ["P1: bet", "P1: pass"]
    assert state.information_state_string(0) == "2"  # the observer's own: OpenSpiel's card number, no betting yet
    assert state.information_state_string(1) == "0"
    assert '"P2": "hidden"' in state.observation_string(0) and '"P1": "King"' in state.observation_string(0)
    resampled = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert resampled.information_state_string(0) == "2"  # what P1 knows is kept ...
    assert resampled.native().cards["P2"] in ("Jack", "Queen")  # ... and P2's card drawn again among the others


def _native_game(engine: Any, players: list[str], seed: int) -> tuple[list[int], list[Any], list[dict[str, Any]]]:
    """A random game played natively: the index of each action among the legal ones, every outcome drawn, and the
    snapshot after each action."""
    state, rng = engine.new_state(players, seed), random.Random(seed)
    picks, snapshots = [], [engine.snapshot(state)]
    while not engine.is_terminal(state) and len(picks) < 400:
        legal = engine.legal_actions(state)
        pick = rng.randrange(len(legal))
        engine.apply(state, legal[pick])
        picks.append(pick)
        snapshots.append(engine.snapshot(state))
    chance = getattr(state, "chance", None)
    return picks, chance.drawn() if chance is not None else [], snapshots


@pytest.mark.parametrize(("root", "book_id"), BOOKS, ids=[book for _, book in BOOKS])
def test_random_games_are_the_same_natively_and_through_openspiel(root: Path, book_id: str) -> None:
    engine, counts = _engine(root, book_id)
    for players in sorted({counts[0], counts[1]}):
        names = [f"P{i + 1}" for i in range(players)]
        game = load(engine, players, counts)
        for seed in range(2 if CAMPAIGN else 1):
            picks, drawn, snapshots = _native_game(engine, names, seed)
            state, nodes = game.new_initial_state(), 0
            for step, pick in enumerate([*picks, None]):
                while state.is_chance_node():
                    what, outcomes, at = state.drawing()
                    state.apply_action(outcomes.index(drawn[at]))
                    nodes += 1
                assert engine.snapshot(state.native()) == snapshots[step], f"{book_id}: apart after {step} actions"
                if pick is None:
                    break
                legal = engine.legal_actions(state.native())
                ids = state.legal_actions()
                assert len(ids) == len(legal)
                chosen = next(i for i in ids if state.engine_action(i) == legal[pick])
                state.apply_action(chosen)
            assert state.is_terminal() == engine.is_terminal(state.native())
            assert state.native().chance.drawn() == drawn if drawn else True
            if drawn:
                assert nodes > 0  # the draws were chance nodes, not taken inside apply


@pytest.mark.parametrize(("root", "book_id"), BOOKS, ids=[book for _, book in BOOKS])
def test_openspiels_random_simulation_test_passes(root: Path, book_id: str) -> None:
    """OpenSpiel's own consistency checks (the API tests' random simulation: legal actions, chance outcomes summing
    to 1, distinct action strings, clones, observation and information-state strings, returns, and every state
    serialised and read back as the same state)."""
    engine, counts = _engine(root, book_id)
    for players in range(counts[0], counts[1] + 1) if CAMPAIGN else [counts[0]]:
        pyspiel.random_sim_test(load(engine, players, counts), num_sims=10 if CAMPAIGN else 2, serialize=True,
                                verbose=False)


def test_a_serialised_state_reads_back_through_the_registered_game() -> None:
    engine, counts = _engine(ROOT, "lantern-moths")
    game = load(engine, 3, counts)
    state, rng = game.new_initial_state(), random.Random(4)
    for _ in range(60):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    again_game, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert again_game.num_players() == 3
    assert str(again) == str(state) and again.history() == state.history()


def test_mcts_against_mcts_draws_tic_tac_toe() -> None:
    engine, counts = _engine(SAMPLES / "tic-tac-toe", "tic-tac-toe")
    game = load(engine, 2, counts)
    games = 200 if CAMPAIGN else 3  # seconds a game: the main suite asks 3 draws in 3, `nox -s competent` 190 in 200
    draws = 0
    for number in range(games):
        bots = [_bot(game, Searcher("mcts", 1000), 100 * number + seat) for seat in range(2)]
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        draws += state.returns() == [0.0, 0.0]
    assert draws >= 0.95 * games, f"{draws} draws in {games} games"


@pytest.mark.parametrize(("root", "book_id"), BOOKS, ids=[book for _, book in BOOKS])
def test_competent_players_play_every_book_the_same_for_a_seed(root: Path, book_id: str) -> None:
    engine, counts = _engine(root, book_id)
    names = [f"P{i + 1}" for i in range(counts[0])]
    name = "ismcts:8" if engine.observer is not None else "mcts:8"
    play = policy(name, counts)
    first = []
    for _ in range(2):
        state, rng, chosen = engine.new_state(names, 7), random.Random(7), []
        for _ in range(6):
            if engine.is_terminal(state):
                break
            action = play(engine, state, rng)
            assert action in engine.legal_actions(state)
            chosen.append(engine.format_action(state, action))
            engine.apply(state, action)
        first.append(chosen)
    assert first[0] == first[1] and first[0]


def test_players_are_named_and_say_what_they_are() -> None:
    assert parse("mcts:400") == Searcher("mcts", 400) and parse("ismcts:50") == Searcher("ismcts", 50)
    assert parse("random") is None and parse("mcts:0") is None and parse("mcts:x") is None
    ttt, _ = _engine(SAMPLES / "tic-tac-toe", "tic-tac-toe")
    kuhn, _ = _engine(SAMPLES / "kuhn-poker", "kuhn-poker")
    assert "no observer" in describe(Searcher("ismcts", 400), ttt)  # falls back to perfect-information MCTS
    assert "sees what its seat could not" in describe(Searcher("mcts", 400), kuhn)
    assert "information-set" in describe(Searcher("ismcts", 400), kuhn)


def test_a_state_reached_outside_openspiel_draws_explicitly_from_there() -> None:
    engine, counts = _engine(ROOT, "last-lantern")
    native = engine.new_state(["P1", "P2"], 3)
    state = adopt(load(engine, 2, counts), native)
    assert not state.is_chance_node() and state.legal_actions()
    action = choose(load(engine, 2, counts), native, Searcher("mcts", 4), 1)
    assert action in engine.legal_actions(native)


def test_analyze_players_plays_competent_players_and_every_finding_names_its_players(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``rulepress analyze --players``: a search alone and against random players, on a designer's book (the
    tic-tac-toe sample); the JSON carries what each player showed, and every finding says who played."""
    import json
    import shutil

    from rulepress.cli import main

    project = tmp_path / "ttt"
    shutil.copytree(SAMPLES / "tic-tac-toe", project, ignore=shutil.ignore_patterns(".rulepress-cache", "reports"))
    assert main(["--root", str(project), "analyze", "tic-tac-toe", "--games", "8", "--budget", "8", "--workers",
                 "0", "--json", "--players", "random,mcts:20,mcts:20 vs random,mcts:20 vs mcts:2"]) == 0
    analysis = json.loads(capsys.readouterr().out)
    played = {row["player"]: row for row in analysis["play"]}
    assert set(played) == {"random", "mcts:20", "mcts:20 vs random", "mcts:20 vs mcts:2"}
    assert "tree search" in played["mcts:20"]["about"]
    skill = played["mcts:20 vs random"]["skill"]
    assert skill["games"] == 8 and skill["fair"] == 0.5 and skill["level"] == pytest.approx(0.95)
    assert skill["rate"] > 0.5  # playing better wins more than its share against random play
    assert skill["by_players"]["2"]["games"] == 8 and skill["strong"] == "mcts:20"
    weaker = played["mcts:20 vs mcts:2"]["skill"]  # the gradient's second step: against a weaker search
    assert weaker["against"] == "mcts:2" and weaker["games"] == 8
    # Tic-tac-toe is scored only at its end: no lead to change; its draws are the games its result calls drawn.
    lead = played["mcts:20"]["lead_changes"]["2"]
    assert lead["games"] == 8 and lead["led_before_end"]["count"] == 0
    summaries = {c["label"]: c["summary"] for c in analysis["configs"]}
    for row in played.values():
        assert 100 * row["draws"]["2"]["rate"] == pytest.approx(summaries[row["label"]]["draw %"], abs=0.05)
    assert played["random"]["branching"]["mean"] > 1
    simulated = [f for f in analysis["findings"] if f["kind"] not in ("lint",) and f["evidence"].get("played_by")]
    assert simulated and all("[played by " in f["message"] for f in simulated)
    assert main(["--root", str(project), "analyze", "tic-tac-toe", "--games", "2", "--players", "nobody"]) == 1
    assert "unknown player 'nobody'" in capsys.readouterr().err


def test_a_search_may_play_its_playouts_with_the_books_policy() -> None:
    """``ismcts:8+cooperative``: the book's own policy plays the search's playouts (a random playout of a game that
    random play always loses tells one move from another by nothing); a policy the book lacks is refused."""
    engine, counts = _engine(ROOT, "last-lantern")
    spec = load_engine("last_lantern", ROOT)
    play = policy("ismcts:8+cooperative", counts, spec.policies)
    assert parse("ismcts:8+cooperative") == Searcher("ismcts", 8, "cooperative")
    assert "playouts by the book's policy 'cooperative'" in describe(Searcher("ismcts", 8, "cooperative"), engine)
    state, rng = engine.new_state(["P1", "P2"], 2), random.Random(2)
    action = play(engine, state, rng)
    assert action in engine.legal_actions(state)
    with pytest.raises(ValueError, match="no policy 'greedy'"):
        policy("mcts:8+greedy", counts, spec.policies)


def test_information_states_are_the_engines_memory() -> None:
    """An engine on the base class gives OpenSpiel its information states (rulepress/memory.py): what a seat was
    shown stays in its string, and resampling from it keeps it."""
    engine, counts = _engine(ROOT, "lantern-moths")
    game = load(engine, 2, counts)
    started = game.new_initial_state()
    while started.is_chance_node():
        started.apply_action(started.chance_outcomes()[0][0])
    assert started.native().memory is not None  # the setup through the adapter begins it too
    assert started.information_state_string(0).startswith("seat: P1\nstart: ")
    native = engine.state_from_description({"garden": {"b2": "rose"}, "hands": {"P1": ["rose-1"], "P2": ["jade-2"]},
                                            "deck": ["violet-3", "amber-1"], "discard": ["rose-2"]}, ["P1", "P2"], 0)
    for step in ({"player": "P1", "do": "draw", "from": "discard"}, {"player": "P1", "do": "draw", "from": "deck"}):
        engine.apply(native, engine.parse_action(native, step))
    state = adopt(game, native)
    theirs = state.information_state_string(1)
    assert theirs == engine.observer.information_state(state.native(), "P2")
    assert 'shown hands.P1: ["rose-2"]' in theirs and '"P1":["rose-2","hidden","hidden"]' in theirs
    again = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert again.information_state_string(1) == theirs
    assert "rose-2" in engine.snapshot(again.native())["hands"]["P1"]  # the card P2 saw stays in P1's hand
