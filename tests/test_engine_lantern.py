"""The Lantern engine: example replays, hypothesis properties, the solver against brute force, tricky rules."""

from __future__ import annotations

import copy
import importlib
import random
import xml.etree.ElementTree as ET
from collections import Counter
from functools import cache
from itertools import permutations, product
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.analyze.simulate import play, random_policy
from rulepress.project import default_root
from rulepress.protocol import DescriptionError, RuleViolation
from rulepress.verify.engines import engine_module, load_engine
from rulepress.verify.gate import load_checked_book
from rulepress.verify.replay import replay

ENGINE = load_engine("lantern")
LANTERN = engine_module(ENGINE)  # the package: its solver, its action type
COMPONENTS: dict[str, Any] = yaml.safe_load((default_root() / "rules_src/lantern/components.yaml").read_text())
GAME = ENGINE.make_game(COMPONENTS)
Action = LANTERN.Action
PLAYERS = ["Adventurer"]
CAP = COMPONENTS["abilities"]["cap"]
ZONE_NOTATIONS = [z["combination"] for z in COMPONENTS["zones"]["sheet"]["list"] if z["combination"]]

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
dice_st = st.lists(st.integers(1, 6), min_size=6, max_size=6).map(lambda d: tuple(sorted(d)))
seeds = st.integers(0, 2**32 - 1)
option_sets = st.fixed_dictionaries({}, optional={spec.name: st.sampled_from(spec.choices)
                                                  for spec in ENGINE.options})
token_st = st.sampled_from(["1", "2", "3", "4", "5", "6", "X", "X", "A", "B"])
notation_st = st.one_of(st.sampled_from(ZONE_NOTATIONS),
                        st.lists(token_st, min_size=6, max_size=6).map(" ".join))


# -- example replays ----------------------------------------------------------------------------

CHECK = load_checked_book(default_root(), "lantern")


@pytest.mark.parametrize("example", CHECK.examples, ids=[e.id for e in CHECK.examples])
def test_example_replays(example: Any) -> None:
    result = replay(example, CHECK.book, CHECK.engine)
    assert result.ok, result.message
    assert result.text.strip(), "every example prints its prose"


def test_examples_cover_the_brief() -> None:
    ids = {e.id for e in CHECK.examples}
    assert len(ids) >= 12
    seeded = [e for e in CHECK.examples if e.source == "seed"]
    assert {e.id for e in seeded} >= {"ln-critical-strike", "ln-counterattack-up-or-down",
                                      "ln-counterattack-no-wrap", "ln-six-wild-triples"}
    for example in CHECK.examples:  # each with a diagram, but a refused start, which has no position to draw
        drawn = any(step.kind == "checkpoint" and step.data.get("diagram") for step in example.steps)
        assert drawn or ("refused" in example.start and not example.steps), example.id


# -- brute force references -------------------------------------------------------------------


@cache
def brute_met(dice: tuple[int, ...], notation: str, distinct: bool = False) -> bool:
    """The combination read straight from the rules, trying every order of the dice."""
    tokens = notation.split()
    for order in set(permutations(dice)):
        if all(t == "X" for t in tokens):
            first, second = order[:3], order[3:]
            if len(set(first)) == 1 and len(set(second)) == 1 and not (distinct and first[0] == second[0]):
                return True
            continue
        groups: dict[str, int] = {}
        if all(t == "X" or (t.isdigit() and int(t) == d) or (t.isalpha() and groups.setdefault(t, d) == d)
               for t, d in zip(tokens, order, strict=True)):
            return True
    return False


def _moves(dice: tuple[int, ...], strike: bool, counter: bool) -> list[tuple[tuple[int, ...], int, int]]:
    """Every real use of Critical Strike or Counterattack: (new dice, strikes used, counters used)."""
    out = []
    for face in set(dice):
        rest = list(dice)
        rest.remove(face)
        if strike:
            out.append((tuple(sorted(rest + [7 - face])), 1, 0))
        if counter:
            out.extend((tuple(sorted(rest + [t])), 0, 1) for t in (face - 1, face + 1) if 1 <= t <= 6)
    return out


@cache
def brute_cheapest(dice: tuple[int, ...], notation: str, cs: int, ca: int) -> int | None:
    """Fewest circles to reach the combination by applying real uses, breadth first."""
    frontier = {(dice, 0, 0)}
    seen = set(frontier)
    for cost in range(cs + ca + 1):
        if any(brute_met(d, notation) for d, _, _ in frontier):
            return cost
        following = set()
        for d, used_cs, used_ca in frontier:
            for new, a, b in _moves(d, used_cs < cs, used_ca < ca):
                item = (new, used_cs + a, used_ca + b)
                if item not in seen:
                    seen.add(item)
                    following.add(item)
        frontier = following
    return None


def brute_possible(dice: tuple[int, ...], notation: str, cs: int, ca: int, ms: int) -> bool:
    """Reachable at all, each Magic Spell allowed to show any face (no Constitution)."""
    for spells in range(ms + 1):
        for chosen in set(permutations(dice, spells)) if spells else {()}:
            rest = list(dice)
            for face in chosen:
                rest.remove(face)
            for faces in product(range(1, 7), repeat=spells):
                if brute_cheapest(tuple(sorted(rest + list(faces))), notation, cs, ca) is not None:
                    return True
    return False


# -- the combination and the solver -------------------------------------------------------------


@FAST
@given(dice_st, notation_st, st.booleans())
def test_matching_agrees_with_brute_force(dice: tuple[int, ...], notation: str, distinct: bool) -> None:
    combination = LANTERN.parse(notation, six_wild_distinct=distinct)
    assert combination.is_met(dice) == brute_met(dice, notation, distinct)


@FAST
@given(dice_st, notation_st, st.integers(0, 2), st.integers(0, 2))
def test_cheapest_plan_agrees_with_brute_force(dice: tuple[int, ...], notation: str, cs: int, ca: int) -> None:
    combination = LANTERN.parse(notation)
    solver = LANTERN.Solver()
    plan = solver.cheapest(dice, combination, LANTERN.Budget(cs, ca, 0, 0))
    expected = brute_cheapest(dice, notation, cs, ca)
    assert (None if plan is None else plan.cost) == expected
    assert solver.certain(dice, combination, cs, ca) == (expected is not None)
    if plan is not None:
        # The plan is a real sequence of uses that ends on the combination, within the circles.
        hand = list(dice)
        for move in plan.moves:
            assert move.face in hand
            if move.ability == "critical_strike":
                assert move.to == 7 - move.face
            else:
                assert abs(move.to - move.face) == 1 and 1 <= move.to <= 6
            hand.remove(move.face)
            hand.append(move.to)
        assert brute_met(tuple(sorted(hand)), notation)
        assert plan.critical_strike <= cs and plan.counterattack <= ca
        assert Counter(m.ability for m in plan.moves) == Counter(
            {"critical_strike": plan.critical_strike, "counterattack": plan.counterattack}) - Counter()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dice_st, st.sampled_from(ZONE_NOTATIONS), st.integers(0, 1), st.integers(0, 2), st.integers(0, 1))
def test_possibility_agrees_with_brute_force(dice: tuple[int, ...], notation: str, cs: int, ca: int,
                                             ms: int) -> None:
    combination = LANTERN.parse(notation)
    assert LANTERN.Solver().possible(dice, combination, LANTERN.Budget(cs, ca, ms, 0)) == \
        brute_possible(dice, notation, cs, ca, ms)
    assert LANTERN.Solver().possible(dice, combination, LANTERN.Budget(cs, ca, ms, 1))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dice_st, st.sampled_from(ZONE_NOTATIONS), st.integers(0, 2), st.integers(0, 2), st.integers(1, 2))
def test_reroll_probability_agrees_with_enumeration(dice: tuple[int, ...], notation: str, cs: int, ca: int,
                                                    count: int) -> None:
    combination = LANTERN.parse(notation)
    faces = dice[:count]
    rest = list(dice[count:])
    hits = sum(brute_cheapest(tuple(sorted(rest + list(o))), notation, cs, ca) is not None
               for o in product(range(1, 7), repeat=count))
    probability = LANTERN.Solver().success_probability(dice, combination, LANTERN.Budget(cs, ca, 2, 1),
                                                      "magic_spell", faces)
    assert probability == pytest.approx(hits / 6 ** count)


def dominated(p: tuple[int, ...], points: Any) -> bool:
    return any(q != p and all(a <= b for a, b in zip(q, p, strict=True)) for q in points)


@FAST
@given(st.sets(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)), max_size=12))
def test_pareto_keeps_exactly_the_costs_nothing_else_beats(points: set[tuple[int, int, int]]) -> None:
    assert set(LANTERN.solver._pareto(points)) == {p for p in points if not dominated(p, points)}


@FAST
@given(dice_st, notation_st)
def test_a_frontier_holds_no_cost_another_beats(dice: tuple[int, ...], notation: str) -> None:
    frontier = LANTERN.Solver().frontier(dice, LANTERN.parse(notation))
    assert not [p for p in frontier if dominated(p, frontier)]


@cache
def _every_cost(dice: tuple[int, ...], need: tuple[int, ...], limit: int) -> frozenset[tuple[int, int, int]]:
    """Every cost of serving ``need`` with distinct dice, straight from the definition (no pruning, no packing)."""
    if not need:
        return frozenset({(0, 0, 0)})
    found = set()
    for i, x in enumerate(dice):
        for a, b, c in LANTERN.solver.SERVE[x, need[0]]:
            for p, q, r in _every_cost(dice[:i] + dice[i + 1:], need[1:], limit):
                if a + p <= limit and b + q <= limit and c + r <= limit:
                    found.add((a + p, b + q, c + r))
    return frozenset(found)


def test_the_solver_s_packed_frontiers_are_the_definition_s() -> None:
    """The frontier is built on packed costs with a staircase filter (for speed): it must be exactly the Pareto-
    minimal costs of every way of serving a target, on rolls and combinations of up to four required faces."""
    rng = random.Random(18)
    solver = LANTERN.Solver(CAP)
    for notation in ("5 6 X X X X", "1 2 3 X X X", "A A A A X X", "4 4 6 6 X X", "A A B B X X"):
        combination = LANTERN.parse(notation)
        for _ in range(12):
            dice = tuple(sorted(rng.randint(1, 6) for _ in range(6)))
            every = set().union(*(_every_cost(dice, target, CAP) for target in combination.targets))
            assert solver.frontier(dice, combination) == tuple(sorted(p for p in every if not dominated(p, every)))


def test_solver_report_words() -> None:
    report = LANTERN.solve((1, 3, 5, 5, 6, 6), LANTERN.parse("1 2 3 X X X"), LANTERN.Budget(2, 3, 0, 0))
    assert report.needs == "one Critical Strike" and report.cheapest_cost == 1
    report = LANTERN.solve((2, 2, 3, 3, 4, 6), LANTERN.parse("5 6 X X X X"), LANTERN.Budget(0, 0, 2, 0))
    assert not report.certain and report.possible
    best = report.rerolls[0]
    assert best.ability == "magic_spell" and len(best.faces) == 2
    assert best.probability == pytest.approx(11 / 36)  # at least one 5 in two dice
    assert report.as_dict()["best_reroll"].startswith("Magic Spell re-roll")
    lost = LANTERN.solve((6,) * 6, LANTERN.parse("1 2 3 4 5 X"), LANTERN.Budget(1, 0, 0, 0))
    assert not lost.possible and lost.needs.startswith("more than")


def test_notation_errors() -> None:
    with pytest.raises(DescriptionError):
        LANTERN.parse("1 2 3")
    with pytest.raises(DescriptionError):
        LANTERN.parse("1 2 3 7 X X")
    with pytest.raises(DescriptionError):
        LANTERN.parse("1 2 3 x X X")


def test_zones_grow_harder_and_the_dragon_is_hardest() -> None:
    """The reconstruction's promise (ln.q1): expected cheapest cost rises zone by zone."""
    solver = LANTERN.Solver()
    outcomes = list(product(range(1, 7), repeat=6))
    costs = []
    for zone in GAME.sheet.zones:
        if zone.combination is None:
            continue
        total = 0.0
        for roll in set(tuple(sorted(o)) for o in outcomes):
            table = solver.min_counterattacks(roll, zone.combination)
            total += min((k + table[k] for k in range(len(table)) if table[k] < 99), default=15) * \
                _roll_probability(roll)
        costs.append(total)
    assert costs == sorted(costs)
    assert costs[-1] > 2 * costs[-2]


def _roll_probability(roll: tuple[int, ...]) -> float:
    ways = 720
    for n in Counter(roll).values():
        ways //= [1, 1, 2, 6, 24, 120, 720][n]
    return ways / 6 ** 6


# -- random play invariants -----------------------------------------------------------------------


def _invariants(game: Any, state: Any) -> None:
    for pool in range(4):
        assert 0 <= state.crossed[pool] <= state.drawn[pool], "circles left never negative"
    for pool in range(3):
        counted = state.drawn[pool] if game.options["cap_counts"] == "drawn" else state.left(pool)
        assert counted <= CAP, "never above the cap"
    assert state.left(3) <= CAP
    assert 0 <= state.experience <= game.sheet.experience_total
    assert state.taken <= state.earned
    if state.phase in ("fight", "leave") and not game.sheet.zone(state.zone).is_campfire:
        assert len(state.dice) == 6 and list(state.dice) == sorted(state.dice)
        assert (state.phase == "leave") == game.is_met(state.dice, state.zone)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, option_sets)
def test_random_games_end_and_keep_the_invariants(seed: int, options: dict[str, Any]) -> None:
    game = ENGINE.make_game(COMPONENTS, options)
    state = game.new_state(PLAYERS, seed)
    rng = random.Random(seed)
    for _ in range(2000):
        _invariants(game, state)
        if game.is_terminal(state):
            break
        actions = game.legal_actions(state)
        assert actions and len(set(actions)) == len(actions)
        game.apply(state, actions[rng.randrange(len(actions))])
    else:
        pytest.fail("a random game did not end")
    assert game.legal_actions(state) == ()
    result = game.result(state)
    assert result["outcome"] in ("won", "lost")
    if result["won"]:
        assert result["score"] == sum(state.crossed) and result["title"]


def _all_actions() -> list[Any]:
    shapes: list[Any] = [Action("reroll"), Action("enter"), Action("leave"), Action("concede")]
    for face in range(1, 7):
        shapes += [Action("strike", face=face), Action("spell", face=face)]
        shapes += [Action("counter", face=face, to=t) for t in range(1, 7)]
        shapes += [Action("assign", face=face, target=t) for t in
                   ("critical_strike", "counterattack", "magic_spell", "constitution", "experience", "campfire")]
    shapes += [Action("bonus", target=t) for t in ("critical_strike", "counterattack", "magic_spell",
                                                   "constitution")]
    shapes += [Action("constitution", faces=f) for f in ((1,), (2, 5), (6, 6, 6), (1, 2, 3, 4, 5, 6))]
    return shapes


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, option_sets)
def test_illegal_actions_name_a_rule_and_change_nothing(seed: int, options: dict[str, Any]) -> None:
    game = ENGINE.make_game(COMPONENTS, options)
    rules = set(CHECK.book.rules)
    state = game.new_state(PLAYERS, seed)
    rng = random.Random(seed)
    shapes = _all_actions()
    while not game.is_terminal(state):
        legal = set(game.legal_actions(state))
        for action in rng.sample(shapes, 12):
            if action in legal:
                continue
            before = game.snapshot(state)
            with pytest.raises(RuleViolation) as caught:
                game.apply(state, action)
            assert caught.value.rule in rules and caught.value.message
            assert game.snapshot(state) == before
        game.apply(state, rng.choice(sorted(legal)))


def test_every_legal_action_applies() -> None:
    for seed in range(30):
        state = GAME.new_state(PLAYERS, seed)
        while not GAME.is_terminal(state):
            for action in GAME.legal_actions(state):
                GAME.apply(GAME.clone(state), action)
            GAME.apply(state, random.Random(seed).choice(GAME.legal_actions(state)))


def test_same_seed_same_game_and_clones_are_independent() -> None:
    first = play(GAME, PLAYERS, 11)
    second = play(GAME, PLAYERS, 11)
    assert GAME.snapshot(first.state) == GAME.snapshot(second.state)
    state = GAME.new_state(PLAYERS, 5)
    twin = GAME.clone(state)
    GAME.apply(twin, GAME.legal_actions(twin)[-1])
    assert GAME.snapshot(state)["setup"]["assigned"] == {}


# -- rules, one by one ------------------------------------------------------------------------------


def fight(zone: int, dice: list[int], options: dict[str, Any] | None = None, **circles: Any) -> tuple[Any, Any]:
    game = ENGINE.make_game(COMPONENTS, options or {})
    state = game.state_from_description({"zone": zone, "phase": "fight", "dice": dice, "circles": circles},
                                        PLAYERS, 0)
    return game, state


def step(game: Any, state: Any, **data: Any) -> list[dict[str, Any]]:
    return [e.as_dict() for e in game.apply(state, game.parse_action(state, data))]


def test_critical_strike_opposite_faces() -> None:
    for face in range(1, 7):
        game, state = fight(4, [face, 6, 6, 6, 6, 6] if face != 6 else [6, 6, 6, 6, 6, 5], critical_strike=1,
                            constitution=1)
        step(game, state, do="strike", die=face)
        assert 7 - face in state.dice


def test_counterattack_never_wraps() -> None:
    game, state = fight(2, [2, 3, 4, 5, 6, 6], counterattack=2, constitution=1)
    with pytest.raises(RuleViolation) as caught:
        step(game, state, do="counter", die=6, to=1)
    assert caught.value.rule == "ln.fight.counterattack"
    game, state = fight(6, [1, 1, 2, 3, 3, 5], counterattack=2, constitution=1)
    with pytest.raises(RuleViolation):
        step(game, state, do="counter", die=1, to=6)
    assert all(a.to != 6 for a in game.legal_actions(state) if a.kind == "counter" and a.face == 1)


def test_rerolled_ones_count_but_turned_ones_do_not_unless_chosen() -> None:
    game, state = fight(2, [2, 3, 4, 5, 6, 6], critical_strike=1, constitution=1)
    step(game, state, do="strike", die=6)
    assert state.experience == 0
    game, state = fight(2, [2, 3, 4, 5, 6, 6], {"turned_ones_cross": True}, critical_strike=1, constitution=1)
    step(game, state, do="strike", die=6)
    assert state.experience == 1
    game, state = fight(2, [2, 3, 4, 5, 6, 6], magic_spell=1, constitution=1)
    game.force_chance(state, [1])
    step(game, state, do="spell", die=6)
    assert state.experience == 1 and state.phase == "leave"


def test_loss_rules() -> None:
    dice = [2, 2, 3, 3, 4, 6]  # zone 1 wants a 5: only a spell can bring one
    game, state = fight(1, dice, magic_spell=1)
    assert state.phase == "fight"
    with pytest.raises(DescriptionError):
        fight(1, dice, {"loss_rule": "certain"}, magic_spell=1)
    game, state = fight(1, dice, {"loss_rule": "exhausted"}, magic_spell=1)
    game.force_chance(state, [3])
    events = step(game, state, do="spell", die=2)
    assert events[-1]["kind"] == "loss" and state.outcome == "lost"
    game, state = fight(1, dice, magic_spell=2)
    game.force_chance(state, [3])
    step(game, state, do="spell", die=2)
    assert state.phase == "fight"  # the second spell could still roll a 5
    game.force_chance(state, [4])
    step(game, state, do="spell", die=2)
    assert state.outcome == "lost" and game.result(state)["score"] is None


def test_concede_only_with_the_option() -> None:
    game, state = fight(3, [1, 2, 3, 4, 5, 6], {"may_concede": True}, constitution=1)
    assert Action("concede") in game.legal_actions(state)
    step(game, state, do="concede")
    assert state.outcome == "lost" and state.end_reason == "gave up the fight"


def test_six_wild_distinct_option() -> None:
    game, state = fight(7, [4, 4, 4, 4, 4, 5], counterattack=1, constitution=1)
    step(game, state, do="counter", die=5, to=4)
    assert state.phase == "leave"
    game, state = fight(7, [4, 4, 4, 4, 4, 5], {"six_wild_distinct": True}, counterattack=1, constitution=1)
    step(game, state, do="counter", die=5, to=4)
    assert state.phase == "fight"


def test_setup_rerolls() -> None:
    description = {"phase": "setup", "dice": [1, 1, 2, 3, 3, 4]}
    for options, allowed in (({}, False), ({"setup_rerolls": "repeat"}, True)):
        game = ENGINE.make_game(COMPONENTS, options)
        state = game.state_from_description(description, PLAYERS, 0)
        game.force_chance(state, [1, 1, 1, 2, 2, 2])
        step(game, state, do="reroll")
        assert (Action("reroll") in game.legal_actions(state)) == allowed
    game = ENGINE.make_game(COMPONENTS, {"setup_ones_cross": True})
    state = game.state_from_description(description, PLAYERS, 0)
    game.force_chance(state, [1, 1, 1, 2, 2, 2])
    step(game, state, do="reroll")
    assert state.experience == 3


def test_row_bonus_per_zone_and_campfire_options() -> None:
    base = {"zone": 1, "phase": "enter", "circles": {"constitution": 4}, "experience": 6}
    for options, earned in (({}, 2), ({"row_bonus": "per_zone"}, 1)):
        game = ENGINE.make_game(COMPONENTS, options)
        state = game.state_from_description(base, PLAYERS, 0)
        game.force_chance(state, [1, 1, 1, 1, 1, 6, 1, 1, 1, 1, 5])
        step(game, state, do="enter")
        step(game, state, do="constitution", dice=[1, 1, 1, 1, 1])
        assert state.phase == "leave" and state.earned == earned
    camp = {"zone": 5, "phase": "enter", "experience": 5, "campfire": 4}
    for options, earned in (({}, 0), ({"campfire_row_bonus": True}, 1)):
        game = ENGINE.make_game(COMPONENTS, options)
        state = game.state_from_description(camp, PLAYERS, 0)
        step(game, state, do="enter")
        assert state.experience == 9 and state.earned == earned and state.drawn[3] == 1


def test_cap_counts_option() -> None:
    description = {"zone": 2, "phase": "leave", "dice": [1, 2, 3, 4, 5, 6], "earned": 1,
                   "circles": {"counterattack": {"drawn": 7, "crossed": 3}}}
    game = ENGINE.make_game(COMPONENTS)
    state = game.state_from_description(description, PLAYERS, 0)
    with pytest.raises(RuleViolation) as caught:
        step(game, state, do="bonus", ability="counterattack")
    assert caught.value.rule == "ln.sheet.cap"
    game = ENGINE.make_game(COMPONENTS, {"cap_counts": "left"})
    state = game.state_from_description(description, PLAYERS, 0)
    step(game, state, do="bonus", ability="counterattack")
    assert state.drawn[1] == 8 and state.left(1) == 5


def test_experience_overflow_is_counted_not_crossed() -> None:
    game = ENGINE.make_game(COMPONENTS)
    state = game.state_from_description({"zone": 1, "phase": "enter", "experience": 23,
                                         "circles": {"constitution": 1}}, PLAYERS, 0)
    game.force_chance(state, [1, 1, 1, 5, 6, 6])
    events = step(game, state, do="enter")
    assert state.experience == 24 and state.overflow == 2
    assert [e["kind"] for e in events][:4] == ["enter", "experience", "experience_full", "row_filled"]


# -- the score table ------------------------------------------------------------------------------


def test_score_table_overlap_is_detected_and_resolved() -> None:
    score = importlib.import_module(f"{ENGINE.module_name}.score")  # the engine as the gate imports it
    Band, band_problems = score.Band, score.band_problems

    table = GAME.sheet.score
    problems = band_problems(table.bands)
    assert [(p.kind, p.scores) for p in problems] == [("overlap", (5,))]
    assert table.title(5, "better").title == "Heroic Daredevil"
    assert table.title(5, "worse").title == "Master of Arms"
    assert [table.title(s, "better").title for s in (0, 1, 15, 16, 40)] == [
        "Legendary Lord of Lanterns", "Heroic Daredevil", "Master of Arms", "Promising Adventurer",
        "Promising Adventurer"]
    gap = band_problems([Band("a", 0, 3, "A", ""), Band("b", 5, None, "B", "")])
    assert [(p.kind, p.scores) for p in gap] == [("gap", (4,))]
    spec = next(s for s in ENGINE.options if s.name == "score_overlap")
    assert COMPONENTS["score"]["overlap"]["resolution"] == spec.default


def test_unrecorded_overlap_or_gap_is_refused() -> None:
    broken = copy.deepcopy(COMPONENTS)
    broken["score"]["overlap"]["at"] = []
    with pytest.raises(DescriptionError):
        ENGINE.make_game(broken)
    gap = copy.deepcopy(COMPONENTS)
    gap["score"]["bands"]["promising"]["low"] = 17
    with pytest.raises(DescriptionError):
        ENGINE.make_game(gap)


def test_options_are_validated() -> None:
    with pytest.raises(DescriptionError):
        ENGINE.make_game(COMPONENTS, {"no_such_option": True})
    with pytest.raises(DescriptionError):
        ENGINE.make_game(COMPONENTS, {"loss_rule": "sometimes"})
    with pytest.raises(DescriptionError):
        ENGINE.make_game(COMPONENTS, {"may_concede": 1})


def test_components_are_marked_reconstructed() -> None:
    assert COMPONENTS["zones"]["sheet"]["reconstructed"] and COMPONENTS["zones"]["sheet"]["question"] == "ln.q1"
    assert COMPONENTS["experience"]["reconstructed"] and COMPONENTS["experience"]["question"] == "ln.q2"
    assert COMPONENTS["experience"]["row_circles"][0] > COMPONENTS["dice"]["faces"]
    assert GAME.sheet.zone(5).is_campfire and GAME.sheet.zone(8).enemy == "The Dragon"


# -- diagram and policies ---------------------------------------------------------------------------


def test_svg_is_self_contained() -> None:
    run = play(GAME, PLAYERS, 3)
    for state in (GAME.new_state(PLAYERS, 1), run.state):
        svg = GAME.render_svg(state, "A caption")
        root = ET.fromstring(svg)
        assert root.get("width", "").endswith("mm") and root.get("viewBox")
        assert "<script" not in svg and "href" not in svg and "url(" not in svg
        assert "Rulepress Sans" in svg


def test_solver_policy_beats_random_play() -> None:
    solver = ENGINE.policies["solver"]
    wins = sum(GAME.metrics(play(GAME, PLAYERS, seed, solver).state)["won"] for seed in range(40))
    random_wins = sum(GAME.metrics(play(GAME, PLAYERS, seed, random_policy).state)["won"] for seed in range(40))
    assert wins >= 10 and wins > random_wins


@pytest.mark.parametrize("description", [
    {"zone": 2, "phase": "fight", "dice": [1, 2, 3, 4, 5, 6]},                       # already defeated
    {"zone": 2, "phase": "leave", "dice": [2, 2, 4, 5, 6, 6]},                       # not defeated
    {"zone": 4, "phase": "fight", "dice": [6, 6, 6, 6, 6, 6], "circles": {"critical_strike": 1}},  # lost
    {"zone": 5, "phase": "fight"},
    {"zone": 5, "phase": "enter", "campfire_used": True},
    {"zone": 8, "phase": "leave", "dice": [6, 6, 6, 6, 6, 6]},
    {"zone": 3, "phase": "enter", "dice": [1, 2, 3, 4, 5, 6]},
    {"zone": 3, "circles": {"counterattack": 8}},                                      # above the cap
    {"zone": 3, "circles": {"luck": 2}},
    {"zone": 9},
    {"phase": "setup", "dice": [1, 2, 3]},
    {"phase": "setup", "dice": [1, 2, 3, 4, 5, 6], "zone": 2},
    {"zone": 2, "wands": 3},
])
def test_inconsistent_descriptions_are_refused(description: dict[str, Any]) -> None:
    with pytest.raises(DescriptionError):
        GAME.state_from_description(description, PLAYERS, 0)


CAMPFIRE = "the Campfire (zone 5) is used on entering it: "


@pytest.mark.parametrize(("description", "now"), [
    ({"zone": 3, "campfire_used": True}, "in zone 3 it is still ahead, so campfire_used is false"),
    ({"zone": 5, "phase": "enter", "campfire_used": True}, "here it is not entered yet, so campfire_used is false"),
    ({"zone": 5, "phase": "leave", "campfire_used": False}, "here it is used, so campfire_used is true"),
    ({"zone": 6, "campfire_used": False}, "in zone 6 it is behind, so campfire_used is true"),
])
def test_a_campfire_the_zone_contradicts_is_refused_by_its_rule(description: dict[str, Any], now: str) -> None:
    """A sheet says by its zone whether the Campfire is used (it is on entering it): a described state that says
    otherwise was accepted and then ignored, and is refused now, by the rule that settles it."""
    with pytest.raises(DescriptionError) as refused:
        GAME.state_from_description(description, PLAYERS, 0)
    assert (refused.value.path, refused.value.message, refused.value.rule) == (
        "start.state.campfire_used", CAMPFIRE + now, "ln.play.campfire")


def test_a_campfire_used_as_the_zone_says_is_accepted() -> None:
    for zone, used in ((3, False), (6, True)):
        state = GAME.state_from_description({"zone": zone, "campfire_used": used}, PLAYERS, 0)
        assert GAME.snapshot(state)["campfire"]["used"] is used


def test_a_score_table_that_starts_above_zero_has_a_gap_at_the_bottom() -> None:
    import importlib

    score = importlib.import_module(f"{ENGINE.module_name}.score")  # the engine as the gate imports it
    Band, Problem, band_problems = score.Band, score.Problem, score.band_problems  # noqa: N806 - its class names
    bands = [Band("hero", 3, None, "Hero", ""), Band("squire", 1, 2, "Squire", "")]
    assert band_problems(bands) == [Problem("gap", (0,), ("0", "squire"))]
    assert band_problems([Band("hero", 2, None, "Hero", "")]) == [Problem("gap", (0, 1), ("0", "hero"))]


def test_a_combination_already_met_costs_nothing() -> None:
    report = LANTERN.solve((1, 2, 3, 4, 5, 6), LANTERN.parse("1 2 3 X X X"), LANTERN.Budget(0, 0, 0, 0))
    assert (report.met, report.certain, report.possible) == (True, True, True)
    assert (report.plan.moves, report.plan.cost, report.cheapest_cost) == ((), 0, 0)


def test_a_sheet_for_other_dice_is_refused_by_name() -> None:
    components = copy.deepcopy(COMPONENTS)
    components["dice"]["count"] = 5
    with pytest.raises(DescriptionError) as error:
        ENGINE.make_game(components)
    assert (error.value.path, str(error.value).rpartition(": ")[2]) == ("dice",
                                                                       "the engine plays with six six-sided dice")


def test_a_zone_combination_the_notation_cannot_read_is_refused_at_its_zone() -> None:
    broken = copy.deepcopy(COMPONENTS)
    broken["zones"]["sheet"]["list"][1]["combination"] = "1 2"
    with pytest.raises(DescriptionError) as caught:
        ENGINE.make_game(broken)
    assert str(caught.value) == "zones.sheet.list[1].combination: a combination names exactly 6 dice, got 2: '1 2'"
