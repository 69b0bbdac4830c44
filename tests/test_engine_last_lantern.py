"""Last Lantern engine: example replays, invariant properties under random play, tricky rules."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.analyze.simulate import play
from rulepress.project import default_root
from rulepress.protocol import Chance, DescriptionError, RuleViolation
from rulepress.verify.engines import load_engine

ROOT = default_root()
ENGINE = load_engine("last_lantern")
COMPONENTS = yaml.safe_load((ROOT / "rules_src/last-lantern/components.yaml").read_text())
NAMES = ["Milo", "Howard", "Coco", "Ivy"]
EXAMPLES = sorted((ROOT / "examples/last-lantern").glob("*.yaml"))
CONFIGS = sorted(ENGINE.bench_configs)


def game(**options: Any) -> Any:
    return ENGINE.make_game(COMPONENTS, options)


# --- examples --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_replays(path: Path) -> None:
    from rulepress.verify.gate import load_checked_book
    from rulepress.verify.replay import replay

    check = _book()
    example = next(e for e in check.examples if e.file.endswith(path.name))
    result = replay(example, check.book, check.engine, draw=True)
    assert result.ok, result.message
    for checkpoint in result.checkpoints.values():
        if checkpoint.svg is not None:
            assert checkpoint.svg.startswith("<svg") and "viewBox" in checkpoint.svg
            assert "<script" not in checkpoint.svg and "href" not in checkpoint.svg
    del load_checked_book


_CHECK: list[Any] = []


def _book() -> Any:
    from rulepress.verify.gate import load_checked_book

    if not _CHECK:
        _CHECK.append(load_checked_book(ROOT, "last-lantern"))
    return _CHECK[0]


def test_at_least_twenty_examples_and_every_seed_example() -> None:
    check = _book()
    assert len(check.examples) >= 20
    seeds = {e.id for e in check.examples if e.source == "seed"}
    assert {
        "ll-seed-voices-collision",
        "ll-seed-lanterns-draw",
        "ll-seed-end-defeat",
        "ll-seed-end-victory",
        "ll-seed-moving-branches",
        "ll-seed-basilisk",
    } <= seeds


# --- invariants ------------------------------------------------------------------------------------


def firefly_totals(g: Any, s: Any) -> Counter[str]:
    total: Counter[str] = Counter()
    total.update({c: n for c, n in s.bag.items()})
    total.update({c: n for c, n in s.supply.items()})
    total.update(s.fireflies.values())
    total["yellow"] += sum(s.lantern_fireflies)
    return total


def tile_places(s: Any) -> Counter[str]:
    where: Counter[str] = Counter()
    where.update(s.tile_bag)
    where.update(t for t in s.location_tile.values() if t is not None)
    for hand in s.hands:
        where.update(hand)
    if s.pending_ability is not None:
        where[s.pending_ability[1]] += 1
    where.update(list(s.placed))
    where.update(s.abandoned)
    where.update(s.track)
    where.update(list(s.lake))
    where.update(s.removed)
    where.update(s.purple_pending)
    where.update(s.ability_supply)
    return where


def check_board(g: Any, s: Any) -> None:
    rules = g.rules(s.n)
    c = rules.canopy
    seen = s.serpent_mask
    for pl in s.placed.values():
        assert not pl.mask & seen, f"{pl.tile} overlaps another tile"
        seen |= pl.mask
        assert not pl.mask & c.start_mask
        kind = rules.tiles[pl.tile].kind
        if pl.abandoned:
            assert pl.mask & c.beyond_mask and not pl.mask & ~c.board_area
        elif kind == "ability":
            assert pl.mask & c.path_mask[pl.player] and not pl.mask & ~c.board_area
        else:
            assert not pl.mask & ~c.tree_area[pl.player], f"{pl.tile} leaves {s.players[pl.player]}'s lanes"
    assert seen == s.occ
    for cell in s.fireflies:
        assert not (s.occ & ~s.serpent_mask) >> cell & 1, "a Firefly under a tile"
    assert s.board_black == sum(1 for colour in s.fireflies.values() if colour == "black")
    if rules.lake is not None:
        lake_seen = 0
        for mask in s.lake.values():
            assert not mask & lake_seen and not mask & ~rules.lake.spaces
            lake_seen |= mask


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(2, 4),
    config=st.sampled_from(CONFIGS),
    cooperative=st.booleans(),
)
def test_random_games_keep_every_invariant_and_end(seed: int, n: int, config: str, cooperative: bool) -> None:
    g = game(**ENGINE.bench_configs[config])
    s = g.new_state(NAMES[:n], seed)
    fireflies = firefly_totals(g, s)
    tiles = tile_places(s)
    assert all(v == 1 for v in tiles.values())
    rng = random.Random(seed)
    policy = ENGINE.policies["cooperative"]
    for _ in range(5000):
        if g.is_terminal(s):
            break
        actions = g.legal_actions(s)
        assert actions, f"no legal action in phase {s.phase}"
        action = policy(g, s, rng) if cooperative else actions[rng.randrange(len(actions))]
        g.apply(s, action)
        assert firefly_totals(g, s) == fireflies
        assert tile_places(s) == tiles
        check_board(g, s)
    assert g.is_terminal(s)
    result = g.result(s)
    assert result["over"] and isinstance(result["won"], bool)
    assert g.legal_actions(s) == []


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 4), config=st.sampled_from(CONFIGS))
def test_every_legal_action_is_accepted_and_clone_is_independent(seed: int, n: int, config: str) -> None:
    g = game(**ENGINE.bench_configs[config])
    s = g.new_state(NAMES[:n], seed)
    rng = random.Random(seed)
    while not g.is_terminal(s):
        actions = g.legal_actions(s)
        for action in rng.sample(actions, min(4, len(actions))):
            twin = g.clone(s)
            g.apply(twin, action)  # must not raise
        before = g.snapshot(s)
        g.apply(g.clone(s), actions[0])
        assert g.snapshot(s) == before
        g.apply(s, actions[rng.randrange(len(actions))])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 4))
def test_rejected_actions_leave_the_state_unchanged(seed: int, n: int) -> None:
    g = game()
    s = g.new_state(NAMES[:n], seed)
    rng = random.Random(seed)
    rejected = 0
    while not g.is_terminal(s):
        actions = g.legal_actions(s)
        pick = actions[rng.randrange(len(actions))]
        if pick.do == "place":
            shifted = pick._replace(mask=pick.mask << rng.choice((1, 2, 13)))
            before = g.snapshot(s)
            try:
                g.apply(s, shifted)
            except RuleViolation as exc:
                rejected += 1
                assert exc.rule.startswith("ll.")
                assert g.snapshot(s) == before
            else:
                continue
        g.apply(s, pick)
    assert g.is_terminal(s)


def test_same_seed_same_game() -> None:
    g = game()
    a = play(g, NAMES[:3], 11, ENGINE.policies["cooperative"])
    b = play(g, NAMES[:3], 11, ENGINE.policies["cooperative"])
    assert g.snapshot(a.state) == g.snapshot(b.state)


# --- options --------------------------------------------------------------------------------------


def test_frozen_lake_and_basilisk_are_refused() -> None:
    with pytest.raises(DescriptionError) as caught:
        game(lake=True, basilisk=True)
    assert "ll.challenge.mix" in str(caught.value)


@pytest.mark.parametrize("options", [{"nonsense": True}, {"lantern_region": "middle"}, {"glow": 1}])
def test_unknown_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(DescriptionError):
        game(**options)


def test_every_option_value_builds_a_playable_game() -> None:
    for spec in ENGINE.options:
        for value in spec.choices:
            if spec.name in ("lake", "basilisk") or value == spec.default:
                continue
            g = game(**{spec.name: value})
            assert play(g, NAMES[:3], 1).terminal


def test_player_counts_outside_two_to_four_are_refused() -> None:
    with pytest.raises(DescriptionError):
        game().new_state(["Solo"], 0)
    with pytest.raises(DescriptionError):
        game().new_state(NAMES + ["Eve"], 0)


# A described state's refusals, each held to its whole text: the entry it names and what is wrong there.
DESCRIBED = {"round": 3, "phase": "journey"}


@pytest.mark.parametrize(("options", "description", "says"), [
    ({"lake": True}, {"paths": "a AA........\nb AA........\n", "tiles": {"A": "T15", "L": "T15"},
                      "lake": ".......\n.LLLL..\n"}, "state.lake: tile T15 appears twice"),
    ({}, {"tiles": {"L": "T15"}, "lake": ".......\n.LLLL..\n"}, "state.lake: the Frozen Lake is not in play"),
    ({"lake": True}, {"tiles": {"L": "T15"}, "lake": ".......\n.....LLLL\n"},
     "state.lake: line B has 9 spaces, the board has 7"),
    ({}, {"abandoned": ["T15", "T15"]}, "state.abandoned[1]: tile T15 appears twice"),
    ({}, {"hands": {"Milo": "T15"}, "abandoned": ["T15"]}, "state.abandoned[0]: tile T15 appears twice"),
    ({"branches": True}, {"paths": "d .....AA...\n", "tiles": {"A": "T15"}},  # a Serpent tile lies on d6 and d7
     "state.paths: T15 lies on a Serpent tile"),
])
def test_a_described_state_is_refused_at_its_entry(options: dict[str, Any], description: dict[str, Any],
                                                    says: str) -> None:
    with pytest.raises(DescriptionError) as caught:
        game(**options).describe({**DESCRIBED, **description}, ["Milo", "Howard", "Coco"], Chance(0))
    assert str(caught.value) == says


# --- tricky rules ---------------------------------------------------------------------------------


def _example_state(name: str, **options: Any) -> tuple[Any, Any]:
    data = yaml.safe_load((ROOT / "examples/last-lantern" / f"{name}.yaml").read_text())
    g = game(**{**(data.get("options") or {}), **options})
    return g, g.state_from_description(data["start"]["state"], data["players"], 0)


def _step(g: Any, s: Any, **step: Any) -> list[Any]:
    return g.apply(s, g.parse_action(s, step))


def test_no_wolf_with_three_players_but_with_four() -> None:
    g = game()
    s = g.new_state(NAMES[:3], 0)
    g.apply(s, g.legal_actions(s)[0])
    assert all(a.where != "wolf" for a in g.legal_actions(s))
    s4 = g.new_state(NAMES, 0)
    g.apply(s4, g.legal_actions(s4)[0])
    assert any(a.where == "wolf" for a in g.legal_actions(s4))


def test_two_players_always_abandon_a_tile() -> None:
    g = game()
    for seed in range(20):
        s = g.new_state(NAMES[:2], seed)
        rng = random.Random(seed)
        g.apply(s, g.legal_actions(s)[0])
        while s.phase in ("choose", "resolve", "familiar"):
            actions = g.legal_actions(s)
            g.apply(s, actions[rng.randrange(len(actions))])
        assert len(s.abandoned) >= 1


def test_lantern_region_option_changes_the_draw() -> None:
    drawn = {}
    for answer in ("start", "previous"):
        g = game(lantern_region=answer)
        s = g.state_from_description(
            {
                "phase": "journey",
                "paths": "a AAAA......\n",
                "tiles": {"A": "T09"},
                "lanterns": {"Milo": [1]},
                "hands": {"Milo": "T03"},
                "bag": {"black": 0, "yellow": 12},
            },
            NAMES[:3],
            0,
        )
        _step(g, s, player="Milo", do="place", tile="T03", cells=["a5", "b5", "c5"])
        _step(g, s, do="done")
        drawn[answer] = s.drawn[0]
    # lanes a-d, steps 1-4 less a1-a4: twelve spaces; from the first lantern's row on: six
    assert drawn == {"start": 12, "previous": 6}


def test_multi_lantern_furthest_adds_one_yellow() -> None:
    for answer, added in (("each", 2), ("furthest", 1)):
        g, s = _example_state("ll-multi-lantern", multi_lantern=answer)
        _step(g, s, player="Milo", do="place", tile="T09", cells=["a2", "a3", "a4", "a5"])
        g.force_chance(s, ["yellow"] * 6)
        events = _step(g, s, do="done")
        assert sum(1 for e in events if e.kind == "lantern-add") == added


def test_straddle_needs_the_space_before_the_line() -> None:
    g, s = _example_state("ll-lantern-details", crossing="straddle")
    _step(g, s, player="Milo", do="place", tile="T06", cells=["b3", "c3", "c4"], flower="b3")
    _step(g, s, player="Howard", do="place", tile="T03", cells=["h4", "h5", "h6"])
    assert 1 in s.crossed_now[1]  # h4 lies just before the second lantern's line
    g2, s2 = _example_state("ll-lantern-details", crossing="straddle")
    _step(g2, s2, player="Howard", do="place", tile="T03", cells=["h4", "h5", "h6"])
    assert s2.crossed_now[1] == {1}


def test_ability_reach_shared_refuses_the_reach_through() -> None:
    g, s = _example_state("ll-through-the-fog", ability_reach="shared")
    _step(g, s, player="Milo", do="through-the-fog", tile="A08", to="Coco")
    with pytest.raises(RuleViolation) as caught:
        _step(g, s, player="Coco", do="place", tile="A08", cells=["g3", "h3", "i3"])
    assert caught.value.rule == "ll.journey.place.shared"


def test_first_tile_path_option_allows_starting_from_a_neighbours_tile() -> None:
    g, s = _example_state("ll-first-tile-path", first_tile="path")
    _step(g, s, player="Milo", do="place", tile="T05", cells=["c3", "c4", "b4"])
    assert "T05" in s.placed


def test_unplaceable_tile_is_removed_or_abandoned() -> None:
    for answer, where in (("remove", "removed"), ("abandon", "abandoned")):
        g = game(unplaceable=answer)
        s = g.new_state(NAMES[:3], 0)
        rules = g.rules(3)
        # block Milo's whole first row: his first tile can touch no start space
        s.occ |= rules.canopy.row_mask[1] & rules.canopy.tree_area[0]
        s.phase, s.stage = "journey", "journey"
        s.hands[0].append("T10")
        assert [a.do for a in g.legal_actions(s) if a.player == 0] == ["cannot-place"]
        g.apply(s, g.legal_actions(s)[0])
        assert "T10" in getattr(s, where)


def test_back_on_track_cannot_take_this_rounds_tile() -> None:
    g, s = _example_state("ll-back-on-track")
    with pytest.raises(RuleViolation) as caught:
        _step(g, s, player="Milo", do="back-on-track", tile="T43")
    assert caught.value.rule == "ll.ability.back-on-track.this-round"


def test_pooled_familiars_option() -> None:
    g, s = _example_state("ll-lighting-the-way", pool_familiars=True)
    s.familiars[0]["snail"] = 0
    s.familiars[1]["snail"] = 1
    s.location_familiars["snail"] -= 1
    g.force_chance(s, ["black", "yellow", "black", "black"])
    _step(
        g, s, player="Milo", do="lighting-the-way", pay={"rabbit": "Milo", "snail": "Howard", "owl": "Milo"}
    )
    assert s.familiars[1]["snail"] == 0
    g2, s2 = _example_state("ll-lighting-the-way")
    with pytest.raises(RuleViolation):
        _step(
            g2,
            s2,
            player="Milo",
            do="lighting-the-way",
            pay={"rabbit": "Milo", "snail": "Coco", "owl": "Milo"},
        )


def test_flip_option_halves_asymmetric_orientations() -> None:
    with_flip = game().rules(3).pieces.lays("T24")
    without = game(flip=False).rules(3).pieces.lays("T24")
    assert len(with_flip) == 8 and len(without) == 4


def test_description_errors_name_the_place() -> None:
    g = game()
    with pytest.raises(DescriptionError) as caught:
        g.state_from_description({"paths": "a AA\n", "tiles": {"A": "T01"}}, NAMES[:3], 0)
    assert "paths" in caught.value.path
    with pytest.raises(DescriptionError):
        g.state_from_description({"bag": {"black": 99}}, NAMES[:3], 0)
    with pytest.raises(DescriptionError):
        g.state_from_description({"whatever": 1}, NAMES[:3], 0)


def test_render_is_self_contained() -> None:
    g = game(lake=True, branches=True)
    s = play(g, NAMES[:4], 3, ENGINE.policies["cooperative"]).state
    svg = g.render_svg(s, "A caption that is long enough to need wrapping onto a second line of the diagram")
    assert svg.startswith("<svg") and 'viewBox="' in svg and "Rulepress Sans" in svg
    assert "<script" not in svg and "href" not in svg


def test_guiding_hand_names_the_first_player_as_the_giver() -> None:
    """The familiar may come from any player, the first seat too: the event names that player, not the location."""
    g = game()
    state = {"round": 4, "phase": "journey",
             "familiars": {"Milo": {"wolf": 2, "owl": 2}, "Howard": {"owl": 2}, "Coco": {}, "Ivy": {"wolf": 2}}}
    s = g.state_from_description(state, NAMES, 0)
    events = _step(g, s, player="Ivy", do="guiding-hand", familiar="owl", to="Coco", **{"from": "Milo"},
                   agreed=True)
    given = [e for e in events if e.kind == "guiding-hand"]
    assert [(e.rule, e.data) for e in given] == [
        ("ll.ability.guiding-hand.empty", {"player": "Ivy", "to": "Coco", "familiar": "owl", "from": "Milo"})]


def test_a_game_not_yet_over_is_measured_as_unfinished() -> None:
    g = game()
    state = g.new_state(NAMES[:3], 1)
    assert g.metrics(state)["reason"] == "unfinished" and g.metrics(state)["over"] is False
