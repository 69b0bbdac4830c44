"""The engines' fast paths (issue 20) give exactly what the plain definitions give: the Lantern solver's re-roll
chances, Last Lantern's cached placements and its cooperative policy's placement scores.  Behaviour as a whole
is held by the golden record (tests/golden) and the examples; these pin each shortcut to its definition."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from rulepress.project import default_root
from rulepress.verify.engines import engine_module, load_engine
from rulepress.verify.gate import load_checked_book

LANTERN = engine_module(load_engine("lantern", default_root()))


def test_a_reroll_chance_is_the_definition_s_sum_to_the_last_bit() -> None:
    """success_probability is cached by the dice kept and works on coded dice; the chance must be the very
    float the definition sums (same terms, same order), or a tie between two re-rolls could be broken otherwise."""
    solver = LANTERN.Solver(9)
    reference = LANTERN.Solver(9)
    rng = random.Random(20)
    outcomes = LANTERN.solver.OUTCOMES
    for notation in ("5 6 X X X X", "A A A B B B", "1 2 3 4 X X", "A A B B X X", "6 6 6 X X X"):
        combination = LANTERN.parse(notation)
        for _ in range(25):
            dice = tuple(sorted(rng.randint(1, 6) for _ in range(6)))
            budget = LANTERN.Budget(rng.randint(0, 9), rng.randint(0, 9), rng.randint(0, 6), rng.randint(0, 2))
            for faces in LANTERN.solver.sub_multisets(dice)[:20]:
                rest = LANTERN.solver.remove(dice, faces)
                expected = 0.0
                for outcome, p in outcomes[len(faces)]:
                    if reference.certain(tuple(sorted(rest + outcome)), combination, budget.critical_strike,
                                         budget.counterattack):
                        expected += p
                got = solver.success_probability(dice, combination, budget, "magic_spell", faces)
                assert got == expected  # exactly: not approximately
                assert solver.success_probability(dice, combination, budget, "constitution", faces) == got


def _journey_states(game: Any, policy: Any, games: int) -> list[Any]:
    found = []
    for seed in range(games):
        state = game.new_state([f"P{i}" for i in range(2 + seed % 3)], seed)
        rng = random.Random(seed)
        while not game.is_terminal(state):
            if state.phase == "journey":
                found.append(game.clone(state))
            game.apply(state, policy(game, state, rng))
    return found


def test_cached_placements_are_the_scan_s(root: Path) -> None:
    check = load_checked_book(root, "last-lantern")
    engine = check.engine
    legal = __import__(f"{engine.module_name}.legal", fromlist=["legal"])
    placement = __import__(f"{engine.module_name}.placement", fromlist=["placement"])
    game = engine.make_game(check.book.components, {})
    for state in _journey_states(game, engine.policies["cooperative"], 6)[::3]:
        g = game.rules(state.n)
        for p in range(state.n):
            touch = placement.target(g, state, p)
            for tile in state.hands[p]:
                scanned = legal._placements(g, "place", p, tile, placement.tree_scan(g, state, p, tile, touch))
                assert legal._tree_placements(g, state.occ, p, tile, touch) == scanned  # cached or not
                g.placements.clear()
                assert legal._tree_placements(g, state.occ, p, tile, touch) == scanned


def test_cooperative_scores_are_the_formula_s(root: Path) -> None:
    """The placement score, its parts worked out once per decision and its dilations written out, is the
    formula's own float (the formula as the policy first wrote it, here)."""
    check = load_checked_book(root, "last-lantern")
    engine = check.engine
    policies = __import__(f"{engine.module_name}.policies", fromlist=["policies"])
    fireflies = __import__(f"{engine.module_name}.fireflies", fromlist=["fireflies"])
    game = engine.make_game(check.book.components, {"branches": True})

    def formula(g: Any, s: Any, p: int, mask: int) -> float:
        c = g.canopy
        occ = s.occ | mask
        path = c.path_mask[p]
        empty = path & ~occ
        boxed = empty & ~c.dilate(empty, path) & c.dilate(occ & path, path)
        steps = sum((cell // c.stride) for cell in range(mask.bit_length()) if mask >> cell & 1)
        black = sum(1 for cell, colour in s.fireflies.items() if mask >> cell & 1 and colour == "black")
        score = steps / max(1, mask.bit_count()) * 4 + boxed.bit_count() * 6 - black * 5
        for k, row in enumerate(c.lantern_rows):
            if k not in s.crossed[p] and mask & c.yellow[k] & path:
                score += 5 * fireflies.empty_spaces(s, path & ~occ & sum(c.row_mask[1:row])).bit_count()
        if mask & c.beyond_mask:
            left = fireflies.empty_spaces(s, c.spaces & ~mask).bit_count()
            score += -1000 if left <= 2 else 60 + left * 4
        return score

    checked = 0
    for state in _journey_states(game, engine.policies["cooperative"], 4)[::2]:
        g = game.rules(state.n)
        places = [a for a in game.legal_actions(state) if a.do == "place"]
        scorers = {p: policies._placement_scorer(g, state, p) for p in {a.player for a in places}}
        for action in places:
            assert scorers[action.player](action.mask) == formula(g, state, action.player, action.mask)
            checked += 1
    assert checked > 100


def test_names_of_hands_out_a_fresh_list(root: Path) -> None:
    check = load_checked_book(root, "last-lantern")
    canopy = check.engine.make_game(check.book.components, {}).rules(3).canopy
    first = canopy.names_of(0b1011 << canopy.stride)
    first.append("changed")
    assert canopy.names_of(0b1011 << canopy.stride) == first[:-1]
