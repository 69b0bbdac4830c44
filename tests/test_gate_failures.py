"""The gate's own checks, each shown failing when it must (and passing in its twin, so the check is what fails).

A small hand-made engine (a take-away game with a weather draw) replaces the mini fixture's; ``BUG`` switches
on one misbehaviour at a time.  Examples are written here, so every line number asserted is known.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from rulepress.verify.gate import load_checked_book, verify
from rulepress.verify.replay import ExampleResult, compare, replay

FILE = "examples/mini/t.yaml"
LABEL = "[illustrates rule 1.1, mini.play.take]"

ENGINE = '''\
"""Take 1 to 3 stones; after each take the weather is drawn (calm or breeze).  BUG switches on one fault."""

import copy

from rulepress.protocol import Chance, DescriptionError, EngineSpec, Event, OptionSpec, RuleViolation

BOOK_ID = "mini"
OPTIONS = (OptionSpec("last_stone", "win", ("win", "lose"), "mini.q1", ("mini.play.win",), "last stone"),)
BUG = {bug!r}


class State:
    def __init__(self, players, pile, seed):
        self.players, self.pile, self.turn, self.winner = list(players), pile, 0, None
        self.chance, self.weather, self.log = Chance(seed), None, []
        self.taken = {{p: 0 for p in players}}


class Game:
    book_id = BOOK_ID

    def __init__(self, components, options):
        self.most = components["take"]["max"]
        self.options = {{"last_stone": "win", **options}}

    if BUG == "old-new-state":  # an engine written before new_state took forced setup outcomes
        def new_state(self, players, seed):
            return State(players, 12, seed)
    else:
        def new_state(self, players, seed, forced=()):
            state = State(players, 12, seed)
            state.chance.force(forced)
            return state

    def state_from_description(self, description, players, seed):
        return State(players, description["pile"], seed)

    def legal_actions(self, state):
        if state.winner:
            return []
        player = state.players[state.turn]
        return [(player, n) for n in range(1, min(self.most, state.pile) + 1)]

    def parse_action(self, state, step):
        action = (step["player"], step["stones"])
        if BUG == "parse-rejects" and step["stones"] > self.most:
            state.log.append("parse")  # a parse that checks, and leaves a trace it should not
            raise RuleViolation("mini.play.take", "too many stones")
        return action

    def format_action(self, state, action):
        return f"{{action[0]}} takes {{action[1]}}"

    def apply(self, state, action):
        player, stones = action
        if BUG == "dirty-log":
            state.log.append(f"{{player}} tried {{stones}}")  # changed before the check: must be caught
        if player != state.players[state.turn]:
            raise RuleViolation("mini.play.take", "not your turn")
        if BUG != "allow-all" and not 1 <= stones <= min(self.most, state.pile):
            if BUG == "dirty-pile":
                state.pile -= 1
            if BUG == "refusal-draws":
                state.chance.draw_from(("calm", "calm", "breeze"), "weather")  # drawn, and thrown away
            raise RuleViolation("mini.play.win" if BUG == "wrong-rule" else "mini.play.take",
                                f"take 1 to {{self.most}} stones")
        state.pile -= stones
        state.taken[player] += 1
        events = [Event("take", "mini.play.take", {{"player": player, "stones": stones}})]
        state.weather = state.chance.draw_from(("calm", "calm", "breeze"), "weather")
        events.append(Event("weather", "mini.play.take", {{"sky": state.weather}}))
        if state.pile <= 0:
            state.winner = player
            events.append(Event("win", "mini.play.win", {{"player": player}}))
        state.turn = 1 - state.turn
        return events

    def force_chance(self, state, outcomes):
        state.chance.force(outcomes)

    if BUG != "no-unused":
        def unused_chance(self, state):
            return state.chance.unused()

    def clone(self, state):
        if BUG == "no-clone":
            raise NotImplementedError
        return copy.deepcopy(state)

    def is_terminal(self, state):
        return state.winner is not None

    def snapshot(self, state):
        # ``log`` is the live list (on purpose): the gate must copy snapshots before the state changes.
        return {{"pile": state.pile, "turn": state.players[state.turn], "winner": state.winner,
                 "weather": state.weather, "over": state.winner is not None, "log": state.log,
                 "counts": {{"taken": dict(state.taken), "half": state.pile / 2}},
                 "flags": [state.winner is not None, state.taken[state.players[0]]]}}

    def result(self, state):
        return {{"winner": state.winner}}

    def metrics(self, state):
        return {{}}

    def render_svg(self, state, caption=None, change=None):
        # The least a diagram of a change takes (rulepress.change): its moment, and a mark when there is a change.
        moment = "" if change is None else "<title>" + change.moment + "</title>"
        mark = "<g class='rp-mark'/>" if change else ""
        return "<svg xmlns='http://www.w3.org/2000/svg'>" + moment + mark + "</svg>"


def make_game(components, options=None):
    return Game(components, options or {{}})


ENGINE = EngineSpec(book_id=BOOK_ID, make_game=make_game, min_num_players=2, max_num_players=2,
                    chance_mode="explicit_stochastic", information="perfect_information", utility="zero_sum",
                    options=OPTIONS)
'''


def _project(mini: Path, steps: str, bug: str = "", start: str = "{state: {pile: 5}}") -> Path:
    """The mini project with the hand-made engine and one example ``t`` (steps from line 6)."""
    (mini / "engine/mini/__init__.py").write_text(ENGINE.format(bug=bug))
    for old in (mini / "examples/mini").glob("*.yaml"):
        old.unlink()
    (mini / FILE).write_text(f"id: t\ntitle: T\nrules: [mini.play.take]\nplayers: [Ann, Ben]\nstart: {start}\n"
                             f"steps:\n{textwrap.dedent(steps)}")
    return mini


def _run(mini: Path, steps: str, bug: str = "") -> ExampleResult:
    check = load_checked_book(_project(mini, steps, bug), "mini")
    [example] = check.examples
    return replay(example, check.book, check.engine, draw=False)


def _failed(result: ExampleResult, detail: str, status: str = "failed") -> None:
    assert (result.status, result.message) == (status, f"t ({FILE}): {detail} {LABEL}")


TWO_TAKES = """\
  - {player: Ann, do: take, stones: 2}
  - {player: Ben, do: take, stones: 3}
"""


# --- events ---------------------------------------------------------------------------------------------

def _events(*expected: str) -> str:
    return TWO_TAKES + "  - checkpoint: end\n    events:\n" + "".join(f"      - {e}\n" for e in expected)


def test_expected_events_pass(mini: Path) -> None:
    assert _run(mini, _events("{kind: take, player: Ann}", "{kind: take, player: Ben, stones: 3}",
                              "{kind: win, player: Ben}")).ok


def test_wrong_event_data_fails(mini: Path) -> None:
    _failed(_run(mini, _events("{kind: win, player: Ann}")),
            "step 3 (line 9) checkpoint 'end': expected event {'kind': 'win', 'player': 'Ann'} (in order) but the "
            "events were: take, weather, take, weather, win; events of that kind: "
            "[{'kind': 'win', 'rule': 'mini.play.win', 'player': 'Ben'}]")


def test_missing_event_fails(mini: Path) -> None:
    _failed(_run(mini, _events("{kind: take, player: Ann}", "{kind: lose}")),
            "step 3 (line 9) checkpoint 'end': expected event {'kind': 'lose'} (in order) but the events were: "
            "take, weather, take, weather, win")


def test_event_expected_twice_but_happening_once_fails(mini: Path) -> None:
    _failed(_run(mini, _events("{kind: win}", "{kind: win}")),
            "step 3 (line 9) checkpoint 'end': expected event {'kind': 'win'} (in order) but the events were: "
            "take, weather, take, weather, win; events of that kind: "
            "[{'kind': 'win', 'rule': 'mini.play.win', 'player': 'Ben'}]")


def _grouped(*expected: str, after: str = "") -> str:
    """The two takes, and a checkpoint expecting ``expected`` as one any_order group (then ``after``, in order)."""
    return (TWO_TAKES + "  - checkpoint: end\n    events:\n      - any_order:\n"
            + "".join(f"          - {e}\n" for e in expected) + (f"      - {after}\n" if after else ""))


def test_events_in_any_order_pass_whichever_order_they_come_in(mini: Path) -> None:
    assert _run(mini, _grouped("{kind: take, player: Ben}", "{kind: take, player: Ann}", after="{kind: win}")).ok
    # Two events alike expected: each takes an event of its own, the more general one the one left over.
    assert _run(mini, "  - chance: [breeze, calm]\n" + _grouped("{kind: weather}", "{kind: weather, sky: breeze}")).ok


def test_an_event_of_an_any_order_group_that_never_happens_fails(mini: Path) -> None:
    _failed(_run(mini, _grouped("{kind: take, player: Ben}", "{kind: lose}")),
            "step 3 (line 9) checkpoint 'end': expected event {'kind': 'lose'} (in any order, with 1 other) but the "
            "events were: take, weather, take, weather, win")


def test_an_any_order_group_needs_an_event_for_each_of_its_events(mini: Path) -> None:
    _failed(_run(mini, _grouped("{kind: win}", "{kind: win}", "{kind: take}")),
            "step 3 (line 9) checkpoint 'end': expected the events {'kind': 'win'}, {'kind': 'win'}, {'kind': 'take'} "
            "(in any order) to be 3 different events, but the events were: take, weather, take, weather, win")


def test_the_events_after_an_any_order_group_come_after_all_of_it(mini: Path) -> None:
    _failed(_run(mini, _grouped("{kind: take, player: Ben}", "{kind: weather}", after="{kind: take, player: Ann}")),
            "step 3 (line 9) checkpoint 'end': expected event {'kind': 'take', 'player': 'Ann'} (in order) but the "
            "events were: take, weather, take, weather, win; events of that kind: [{'kind': 'take', 'rule': "
            "'mini.play.take', 'player': 'Ann', 'stones': 2}, {'kind': 'take', 'rule': 'mini.play.take', 'player': "
            "'Ben', 'stones': 3}]")


def test_events_out_of_order_fail(mini: Path) -> None:
    result = _run(mini, _events("{kind: take, player: Ben}", "{kind: take, player: Ann}"))
    assert result.status == "failed"
    assert "expected event {'kind': 'take', 'player': 'Ann'} (in order)" in result.message


def test_events_before_the_previous_checkpoint_do_not_count_again(mini: Path) -> None:
    steps = """\
      - {player: Ann, do: take, stones: 2}
      - checkpoint: mid
        events: [{kind: take, player: Ann}]
      - {player: Ben, do: take, stones: 3}
      - checkpoint: end
        events: [EXPECTED]
    """
    assert _run(mini, steps.replace("EXPECTED", "{kind: take, player: Ben}")).ok
    _failed(_run(mini, steps.replace("EXPECTED", "{kind: take, player: Ann}")),
            "step 4 (line 11) checkpoint 'end': expected event {'kind': 'take', 'player': 'Ann'} (in order) but "
            "the events were: take, weather, win; events of that kind: "
            "[{'kind': 'take', 'rule': 'mini.play.take', 'player': 'Ben', 'stones': 3}]")


def test_checkpoint_events_are_kept_as_they_were(mini: Path) -> None:
    """Each checkpoint keeps its own snapshot and events, not the live state's later values."""
    result = _run(mini, """\
      - {player: Ann, do: take, stones: 2}
      - checkpoint: mid
      - {player: Ben, do: take, stones: 3}
      - checkpoint: end
    """, bug="dirty-log")
    assert result.ok
    assert result.checkpoints["mid"].snapshot["log"] == ["Ann tried 2"]
    assert result.checkpoints["end"].snapshot["log"] == ["Ann tried 2", "Ben tried 3"]
    assert [e["kind"] for e in result.checkpoints["mid"].events] == ["take", "weather"]


# --- expected rejections --------------------------------------------------------------------------------

REJECTED = """\
  - {player: Ann, do: take, stones: 4, illegal: mini.play.take}
  - {player: Ann, do: take, stones: 2}
"""


def test_expected_rejection_passes(mini: Path) -> None:
    result = _run(mini, REJECTED)
    assert result.ok and result.transcript[0].rejected_by == "mini.play.take"
    # An engine without a narrator: each line's narration is empty text, never None (the editions fall back on
    # the step's own words).
    assert [(line.narration, line.narrations) for line in result.transcript] == [("", {}), ("", {})]


def test_expected_rejection_that_the_engine_allows_fails(mini: Path) -> None:
    _failed(_run(mini, REJECTED, bug="allow-all"),
            "step 1 (line 7): 'Ann takes 4' was allowed, expected a rejection by rule 1.1, mini.play.take "
            "(events: ['take', 'weather'])")


def test_rejection_by_another_rule_names_the_rule_that_rejected(mini: Path) -> None:
    _failed(_run(mini, REJECTED, bug="wrong-rule"),
            "step 1 (line 7): 'Ann takes 4' was rejected by rule 1.2, mini.play.win (take 1 to 3 stones), "
            "expected rule 1.1, mini.play.take")


def test_rejection_that_changed_the_state_fails(mini: Path) -> None:
    _failed(_run(mini, REJECTED, bug="dirty-pile"),
            "step 1 (line 7): the rejected action 'Ann takes 4' changed the state (pile: 5 -> 4); a rejection by "
            "rule 1.1, mini.play.take must leave it as it was")


def test_rejection_that_changed_a_list_the_snapshot_shares_fails(mini: Path) -> None:
    """The snapshot hands out the state's own list: comparing it with itself would see no change."""
    _failed(_run(mini, REJECTED, bug="dirty-log"),
            "step 1 (line 7): the rejected action 'Ann takes 4' changed the state (log: [] -> ['Ann tried 4']); "
            "a rejection by rule 1.1, mini.play.take must leave it as it was")


def test_rejection_while_parsing_is_checked_too(mini: Path) -> None:
    steps = "  - {player: Ann, do: take, stones: 4, illegal: RULE}\n"
    result = _run(mini, steps.replace("RULE", "mini.play.win"), bug="parse-rejects")
    _failed(result, "step 1 (line 7): 'player: Ann, do: take, stones: 4' was rejected by rule 1.1, mini.play.take "
                    "(too many stones), expected rule 1.2, mini.play.win")
    _failed(_run(mini, steps.replace("RULE", "mini.play.take"), bug="parse-rejects"),
            "step 1 (line 7): the rejected action 'player: Ann, do: take, stones: 4' changed the state "
            "(log: [] -> ['parse']); a rejection by rule 1.1, mini.play.take must leave it as it was")


def test_unexpected_rejection_fails_naming_the_rule(mini: Path) -> None:
    _failed(_run(mini, "  - {player: Ben, do: take, stones: 1}\n"),
            "step 1 (line 7): illegal move 'Ben takes 1': not your turn (rule 1.1, mini.play.take)")


# --- checkpoint values ----------------------------------------------------------------------------------

def _expect(*lines: str) -> str:
    return TWO_TAKES + "  - checkpoint: end\n    expect:\n" + "".join(f"      {line}\n" for line in lines)


def test_checkpoint_values_pass(mini: Path) -> None:
    result = _run(mini, _expect("pile: 0", "over: true", "counts.taken.Ann: 1", "counts: {taken: {Ben: 1}}",
                                "flags: [true, 1]", "counts.half: 0", "log: []", "legal_actions: 0"))
    assert result.ok, result.message


def test_yes_expected_where_the_engine_says_one_fails(mini: Path) -> None:
    _failed(_run(mini, _expect("counts.taken.Ann: true")),
            "step 3 (line 9) checkpoint 'end': counts.taken.Ann expected True, got 1 (a yes/no is never a number)")


def test_one_expected_where_the_engine_says_yes_fails(mini: Path) -> None:
    _failed(_run(mini, _expect("over: 1")),
            "step 3 (line 9) checkpoint 'end': over expected 1, got True (a yes/no is never a number)")


def test_yes_inside_a_list_or_mapping_is_not_one(mini: Path) -> None:
    _failed(_run(mini, _expect("flags: [true, true]")),
            "step 3 (line 9) checkpoint 'end': flags expected [True, True], got [True, 1] "
            "(item 1: expected True, got 1: a yes/no is never a number)")
    _failed(_run(mini, _expect("counts: {taken: {Ann: true}}")),
            "step 3 (line 9) checkpoint 'end': counts expected {'taken': {'Ann': True}}, got "
            "{'taken': {'Ann': 1, 'Ben': 1}, 'half': 0.0} (at 'taken': expected {'Ann': True}, got "
            "{'Ann': 1, 'Ben': 1})")


def test_numbers_compare_by_value() -> None:
    """Decided: 1.0 is 1 (YAML readers write numbers, not types); a yes/no is never a number."""
    assert compare(1, 1.0) is None and compare(0.0, 0) is None
    assert compare(True, 1) == " (a yes/no is never a number)"
    assert compare(1, True) == " (a yes/no is never a number)"
    assert compare(0, False) == " (a yes/no is never a number)"
    assert compare([0], [False]) == " (item 0: expected 0, got False: a yes/no is never a number)"
    assert compare([1, 2], [1, 2, 3]) == ""
    assert compare("1", 1) == ""
    # A mapping compares by keys only against a mapping; against anything else it is just unequal.
    assert compare({"pile": 1}, 1) == "" and compare(1, {"pile": 1}) == ""
    assert compare({"pile": 1}, "pile") == ""


def test_wrong_number_fails(mini: Path) -> None:
    _failed(_run(mini, _expect("pile: 1")), "step 3 (line 9) checkpoint 'end': pile expected 1, got 0")


def test_unknown_checkpoint_key_is_an_error_with_a_suggestion(mini: Path) -> None:
    _failed(_run(mini, _expect("pile: 0", "piles: 0")),
            f"step 3 (line 9) checkpoint 'end': expect key 'piles' ({FILE}:12): the snapshot has no 'piles' "
            "(did you mean 'pile'? it has: counts, flags, log, over, pile, turn, weather, winner)", status="error")


def test_unknown_nested_key_is_an_error_with_a_suggestion(mini: Path) -> None:
    _failed(_run(mini, _expect("counts.taken.Anne: 1")),
            f"step 3 (line 9) checkpoint 'end': expect key 'counts.taken.Anne' ({FILE}:11): the snapshot has no "
            "'Anne' under 'counts.taken' (did you mean 'Ann'? it has: Ann, Ben)", status="error")
    _failed(_run(mini, _expect("counts: {taken: {Ann: 1}, halves: 0}")),
            f"step 3 (line 9) checkpoint 'end': expect key 'counts' ({FILE}:11): the snapshot has no 'halves' "
            "under 'counts' (did you mean 'half'? it has: half, taken)", status="error")
    _failed(_run(mini, _expect("flags.2: true")),
            f"step 3 (line 9) checkpoint 'end': expect key 'flags.2' ({FILE}:11): the snapshot has no item 2 "
            "under 'flags' (a list of 2)", status="error")


def test_legal_actions_count_mismatch_fails(mini: Path) -> None:
    steps = "  - {player: Ann, do: take, stones: 1}\n  - checkpoint: c\n    expect: {legal_actions: COUNT}\n"
    assert _run(mini, steps.replace("COUNT", "3")).ok
    _failed(_run(mini, steps.replace("COUNT", "4")),
            "step 2 (line 8) checkpoint 'c': legal_actions expected 4, got 3")


# --- chance ---------------------------------------------------------------------------------------------

CHANCE = """\
  - chance: [SKY]
  - {player: Ann, do: take, stones: 2}
  - checkpoint: c
    expect: {weather: SKY}
"""


def test_offered_chance_outcome_passes(mini: Path) -> None:
    assert _run(mini, CHANCE.replace("SKY", "breeze")).ok


def test_chance_outcome_not_offered_is_an_error(mini: Path) -> None:
    _failed(_run(mini, CHANCE.replace("SKY", "storm")),
            "step 2 (line 8): chance: forced weather 'storm' is not possible here (possible: ['breeze', 'calm'])",
            status="error")


NEVER = "a chance outcome must be one the game draws"


def test_forced_outcomes_may_serve_the_actions_up_to_the_next_chance_step(mini: Path) -> None:
    steps = ("  - chance: [breeze, calm]\n  - {player: Ann, do: take, stones: 1}\n  - {player: Ben, do: take, "
             "stones: 1}\n  - checkpoint: c\n    expect: {weather: calm}\n")
    assert _run(mini, steps).ok


def test_forced_outcomes_nothing_draws_fail_the_example(mini: Path) -> None:
    _failed(_run(mini, "  - chance: [breeze, calm]\n  - {player: Ann, do: take, stones: 1}\n"),
            f"step 1 (line 7): chance: [calm] of [breeze, calm] not drawn at the end of the example: {NEVER}")
    _failed(_run(mini, "  - chance: [breeze, calm]\n  - {player: Ann, do: take, stones: 1}\n  - chance: [calm]\n"
                       "  - {player: Ben, do: take, stones: 1}\n"),
            f"step 1 (line 7): chance: [calm] of [breeze, calm] not drawn when step 3 (line 9) began: {NEVER}")


LATE = "a chance step fixes what the steps after it draw"


def test_a_chance_step_after_the_action_that_draws_it_names_that_action(mini: Path) -> None:
    """The weather drawn by Ann's take, written after it: the outcome is one the game draws, one step earlier."""
    _failed(_run(mini, "  - {player: Ann, do: take, stones: 1}\n  - chance: [breeze]\n"),
            f"step 2 (line 8): chance: [breeze] was written after step 1 (line 7), the step that draws it: move the "
            f"chance step before step 1 (line 7); {LATE}")
    _failed(_run(mini, "  - {player: Ann, do: take, stones: 1}\n  - checkpoint: c\n    expect: {pile: 4}\n"
                       "  - chance: [breeze, calm]\n  - chance: [calm]\n  - {player: Ben, do: take, stones: 1}\n"),
            f"step 3 (line 10): chance: [breeze, calm] was written after step 1 (line 7), the step that draws it: move "
            f"the chance step before step 1 (line 7); {LATE}")


def test_a_late_chance_step_that_the_next_action_draws_passes(mini: Path) -> None:
    steps = ("  - {player: Ann, do: take, stones: 1}\n  - chance: [breeze]\n  - {player: Ben, do: take, stones: 1}\n"
             "  - checkpoint: c\n    expect: {weather: breeze}\n")
    assert _run(mini, steps).ok


def test_a_chance_step_the_action_before_it_could_not_draw_is_never_drawn(mini: Path) -> None:
    """Two outcomes where the take draws one, or a refusal before the step: the outcomes were not merely written
    late, and the message says only that they were never drawn."""
    _failed(_run(mini, "  - {player: Ann, do: take, stones: 1}\n  - chance: [breeze]\n"
                       "  - {player: Ben, do: take, stones: 1}\n  - chance: [calm, calm]\n"),
            f"step 4 (line 10): chance: [calm, calm] of [calm, calm] not drawn at the end of the example: {NEVER}")
    _failed(_run(mini, "  - {player: Ann, do: take, stones: 4, illegal: mini.play.take}\n  - chance: [breeze]\n"),
            f"step 2 (line 8): chance: [breeze] of [breeze] not drawn at the end of the example: {NEVER}")


def test_a_late_chance_step_in_a_game_that_cannot_copy_its_states_is_never_drawn(mini: Path) -> None:
    _failed(_run(mini, "  - {player: Ann, do: take, stones: 1}\n  - chance: [breeze]\n", bug="no-clone"),
            f"step 2 (line 8): chance: [breeze] of [breeze] not drawn at the end of the example: {NEVER}")


def test_a_checkpoint_failing_while_forced_outcomes_wait_names_them(mini: Path) -> None:
    _failed(_run(mini, "  - chance: [breeze, calm]\n  - {player: Ann, do: take, stones: 1}\n  - checkpoint: c\n"
                       "    expect: {weather: calm}\n"),
            "step 3 (line 9) checkpoint 'c': weather expected 'calm', got 'breeze'; 1 forced chance outcome is still "
            "pending (not drawn yet): [calm], forced by step 1 (line 7)")
    _failed(_run(mini, "  - chance: [breeze, calm, calm]\n  - {player: Ann, do: take, stones: 1}\n"
                       "  - checkpoint: c\n    events:\n      - {kind: win}\n"),
            "step 3 (line 9) checkpoint 'c': expected event {'kind': 'win'} (in order) but the events were: take, "
            "weather; 2 forced chance outcomes are still pending (not drawn yet): [calm, calm], forced by step 1 "
            "(line 7)")


def test_a_checkpoint_failing_on_outcomes_written_after_their_draw_says_so(mini: Path) -> None:
    _failed(_run(mini, "  - {player: Ann, do: take, stones: 1}\n  - chance: [breeze, calm]\n  - checkpoint: c\n"
                       "    expect: {weather: breeze}\n"),
            "step 3 (line 9) checkpoint 'c': weather expected 'breeze', got 'calm'; 2 forced chance outcomes are still "
            "pending (not drawn yet): [breeze, calm], forced by step 2 (line 8), written after step 1 (line 7), the "
            "step that draws them: move the chance step before step 1 (line 7)")


def test_a_checkpoint_failing_with_nothing_pending_gets_no_hint(mini: Path) -> None:
    _failed(_run(mini, "  - chance: [breeze]\n  - {player: Ann, do: take, stones: 1}\n  - checkpoint: c\n"
                       "    expect: {weather: calm}\n"),
            "step 3 (line 9) checkpoint 'c': weather expected 'calm', got 'breeze'")


REFUSED_THEN_DRAWN = ("  - chance: [breeze]\n  - {player: Ann, do: take, stones: 4, illegal: mini.play.take}\n"
                      "  - {player: Ann, do: take, stones: 1}\n  - checkpoint: c\n    expect: {weather: breeze}\n")


def test_forced_outcomes_wait_through_a_refusal(mini: Path) -> None:
    assert _run(mini, REFUSED_THEN_DRAWN).ok


def test_a_refusal_must_leave_the_forced_outcomes(mini: Path) -> None:
    _failed(_run(mini, REFUSED_THEN_DRAWN, bug="refusal-draws"),
            "step 2 (line 8): the rejected action 'Ann takes 4' drew forced chance outcomes (of [breeze]); a "
            "rejection by rule 1.1, mini.play.take must leave them for the next action")


def test_an_engine_that_cannot_tell_what_is_unused_replays_what_forces_nothing(mini: Path) -> None:
    assert _run(mini, TWO_TAKES, bug="no-unused").ok


def test_an_engine_that_cannot_tell_what_is_unused_is_an_error_at_the_chance_step(mini: Path) -> None:
    _failed(_run(mini, CHANCE.replace("SKY", "breeze"), bug="no-unused"),
            "step 1 (line 7): the engine has no unused_chance(state) (rulepress guide engine), so the gate cannot tell "
            "whether the forced chance outcomes were drawn", status="error")


def test_an_engine_that_cannot_tell_what_is_unused_is_an_error_at_start_chance(mini: Path) -> None:
    check = load_checked_book(_project(mini, TWO_TAKES, "no-unused", start="{setup: true, chance: [calm]}"), "mini")
    [example] = check.examples
    _failed(replay(example, check.book, check.engine, draw=False),
            "start (line 5): the engine has no unused_chance(state) (rulepress guide engine), so the gate cannot tell "
            "whether the forced chance outcomes were drawn", status="error")


def test_an_engine_without_forced_setup_outcomes_replays_a_setup_that_forces_none(mini: Path) -> None:
    check = load_checked_book(_project(mini, TWO_TAKES, "old-new-state", start="{setup: true}"), "mini")
    [example] = check.examples
    assert replay(example, check.book, check.engine, draw=False).ok


# --- through verify -------------------------------------------------------------------------------------

def test_verify_reports_the_failure_and_is_not_ok(mini: Path) -> None:
    _project(mini, REJECTED, bug="allow-all")
    report = verify(mini)
    assert not report.ok and [r.status for r in report.results] == ["failed"]
    assert report.failures()[-1].startswith("t (examples/mini/t.yaml): step 1 (line 7): 'Ann takes 4' was allowed")


@pytest.mark.parametrize("bug", ["", "dirty-pile", "wrong-rule", "allow-all", "dirty-log"])
def test_only_the_faulty_engine_fails(mini: Path, bug: str) -> None:
    """The same example against each engine: it passes against the right one only."""
    assert _run(mini, REJECTED, bug=bug).ok is (bug == "")
