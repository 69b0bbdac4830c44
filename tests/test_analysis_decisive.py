"""What a designer asks of competent play, on tiny games whose answers are known by hand: lead changes a game (who
leads by the engine's score after each turn), draws and ties, and the skill gradient at each player count."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, NamedTuple

import pytest

from rulepress.analyze import balance, simulate
from rulepress.analyze.analysis import Run, play_figures
from rulepress.analyze.plan import Config
from rulepress.analyze.report import _decisiveness, _skill, play_line
from rulepress.analyze.tally import Tally
from rulepress.render.strings import strings


class Score(NamedTuple):
    do: str
    player: str
    points: int


class Race:
    """Each seat in turn scores what the script says (one legal action a turn, so any player plays the same game);
    ``at_end``: the score is shown only once the game is over (returns of 0 before, as tic-tac-toe's)."""

    def __init__(self, scripts: dict[int, list[int]], at_end: bool = False) -> None:
        self.scripts, self.at_end = scripts, at_end

    def new_state(self, players: list[str], seed: int) -> SimpleNamespace:
        return SimpleNamespace(players=list(players), turn=0, points=[0] * len(players), decisions={},
                               current=players[0])

    def legal_actions(self, state: SimpleNamespace) -> list[Score]:
        script = self.scripts[len(state.players)]
        if state.turn >= len(script):
            return []
        return [Score("score", state.current, script[state.turn])]

    def apply(self, state: SimpleNamespace, action: Score) -> list[Any]:
        state.points[state.players.index(action.player)] += action.points
        state.turn += 1
        state.current = state.players[state.turn % len(state.players)]
        return []

    def clone(self, state: SimpleNamespace) -> SimpleNamespace:
        return SimpleNamespace(**{**vars(state), "points": list(state.points), "decisions": dict(state.decisions)})

    def is_terminal(self, state: SimpleNamespace) -> bool:
        return state.turn >= len(self.scripts[len(state.players)])

    def result(self, state: SimpleNamespace) -> dict[str, Any]:
        state.decisions["scored"] = state.decisions.get("scored", 0) + 1  # as Lantern Moths' tie-break marks
        shown = list(state.points) if self.is_terminal(state) or not self.at_end else [0] * len(state.points)
        return {"returns": shown}

    def metrics(self, state: SimpleNamespace) -> dict[str, Any]:
        return {"rounds": state.turn}

    def decisions_made(self, state: SimpleNamespace) -> dict[str, int]:
        return dict(state.decisions)


# 2 players: P1 leads 2-0; P2 3-2 (a change); 3-3 shared, no one leads; still 3-3; P1 4-3 takes it back (a second
# change: the lead passes from P2, who last held it, through a tie).  3 players: P1 leads, P1 and P2 share it, P1
# leads again: no change.  P1 wins both.
SCRIPTS = {2: [2, 3, 1, 0, 1], 3: [1, 1, 0, 1]}


def _played(monkeypatch: pytest.MonkeyPatch, race: Race, policy: str, games: int, counts: list[int]) -> Tally:
    monkeypatch.setattr(simulate, "_game", lambda *args: (race, SimpleNamespace(policies={}, inventory=None)))
    return simulate.observe_chunk(".", "race", {}, {}, policy, 0, "race", range(games), counts)


def test_lead_changes_are_counted_as_the_lead_passes() -> None:
    assert simulate.lead_changes([0, 1, -1, -1, 0]) == 2
    assert simulate.lead_changes([0, -1, 0]) == 0  # a shared lead takes it from no one
    assert simulate.lead_changes([-1, 1, 0, 1]) == 2  # the first lead taken is no change
    assert simulate.leader([3.0, 3.0, 1.0]) == -1 and simulate.leader([1.0, 4.0]) == 1
    assert simulate.standing({"returns": [1, -1]}, ["A", "B"]) == [1.0, -1.0]
    assert simulate.standing({"scores": {"A": {"points": 5}, "B": {"points": 7}}}, ["A", "B"]) == [5.0, 7.0]
    assert simulate.standing({"scores": {"A": 2, "B": 1}}, ["A", "B"]) == [2.0, 1.0]
    assert simulate.standing({"won": True}, ["A", "B"]) is None


def test_a_tiny_race_has_the_lead_changes_counted_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    tally = _played(monkeypatch, Race(SCRIPTS), "random", 6, [2, 3])
    assert tally.leads == {(2, 2): 3, (3, 0): 3}
    assert tally.decided == {"scored": 6}  # scoring mid-game leaves the engine's decisions as they were
    found = balance.decisiveness(tally)
    assert found["2"]["mean"] == 2.0 and found["2"]["never_changed"]["count"] == 0
    assert found["3"]["mean"] == 0.0 and found["3"]["never_changed"]["count"] == 3
    assert found["2"]["led_before_end"]["count"] == 3 and found["2"]["histogram"] == {"2": 3}
    assert balance.draws(tally) == {"2": balance.share(0, 3), "3": balance.share(0, 3)}


def test_a_game_scored_only_at_its_end_has_no_lead_to_change(monkeypatch: pytest.MonkeyPatch) -> None:
    tally = _played(monkeypatch, Race(SCRIPTS, at_end=True), "random", 2, [2])
    assert tally.leads == {(2, 0): 2} and tally.led_early[2] == 0
    check = SimpleNamespace(engine=SimpleNamespace(end_rules=()), book=SimpleNamespace(rules={}))
    rows = play_figures(check, [Run(Config("random play", "random"), tally)], 0.05)  # type: ignore[arg-type]
    assert "| random play | 2 | 2 | scored only at the end | scored only at the end | 0.0% | 0.0% |" in \
        _decisiveness(rows, strings("en"))
    assert "lead changes" not in play_line(rows[0], 0.05)


def test_draws_and_the_dashboards_decisiveness(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = {2: [1, 1, 0, 1]}  # 1-0, 1-1, 1-1, 1-2: P2 wins; and a 2-2 draw below
    tally = _played(monkeypatch, Race(drawn), "random", 2, [2])
    tally.merge(_played(monkeypatch, Race({2: [2, 2]}), "random", 1, [2]))
    assert balance.draws(tally)["2"]["count"] == 1 and balance.draws(tally)["2"]["games"] == 3
    assert balance.decisiveness(tally)["2"]["mean"] == pytest.approx(2 / 3)  # 1 change, 1 change, none
    check = SimpleNamespace(engine=SimpleNamespace(end_rules=()), book=SimpleNamespace(rules={}))
    rows = play_figures(check, [Run(Config("random play", "random"), tally)], 0.05)  # type: ignore[arg-type]
    low, high = rows[0]["lead_changes"]["2"]["ci95"]
    assert 0 <= low < 2 / 3 < high
    assert f"| random play | 2 | 3 | 0.67 ({low:.2f}–{high:.2f}) | 33.3% | 0.0% | 33.3% |" in \
        _decisiveness(rows, strings("en"))
    assert "2p lead changes 0.67 a game" in play_line(rows[0], 0.05)


def test_the_skill_gradient_at_each_player_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first player takes seat ``index % players`` turn about and P1 (seat 0) wins every race: its seat won
    the 2-player games 0, 2, 4 (seat 0 each) and of the 3-player games 1, 3, 5 (seats 1, 0, 2) only game 3."""
    tally = _played(monkeypatch, Race(SCRIPTS), "random vs random", 6, [2, 3])
    found = balance.skill_by_players(tally, "first player's seat won")
    assert [(n, row["count"], row["games"], row["fair"]) for n, row in found.items()] == \
        [("2", 3, 3, 0.5), ("3", 1, 3, pytest.approx(1 / 3))]
    check = SimpleNamespace(engine=SimpleNamespace(end_rules=()), book=SimpleNamespace(rules={}))
    rows = play_figures(check, [Run(Config("random vs random play", "random vs random"), tally)],
                        0.05)  # type: ignore[arg-type]
    shown = "\n".join(_skill(rows, strings("en")))
    assert "| the text's game | random | random | 3 | 1 / 3 (33.3%) | 33.3% |" in shown
    assert "2p its seat won 3 of 3" in play_line(rows[0], 0.05)
