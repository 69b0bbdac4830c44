"""The Lantern Moths engine: invariants under random play (hypothesis) and its trickiest rules."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.analyze.simulate import play, random_policy
from rulepress.project import default_root
from rulepress.protocol import DescriptionError, RuleViolation
from rulepress.verify.engines import load_engine

ENGINE = load_engine("lantern_moths")
COMPONENTS: dict[str, Any] = yaml.safe_load(
    (default_root() / "rules_src/lantern-moths/components.yaml").read_text())
NAMES = ["Ann", "Ben", "Cara", "Dan"]
GAME = ENGINE.make_game(COMPONENTS)
ALT = ENGINE.make_game(COMPONENTS, ENGINE.bench_configs["alternatives"])

players = st.integers(min_value=2, max_value=4).map(lambda n: NAMES[:n])
seeds = st.integers(min_value=0, max_value=2**32 - 1)
option_sets = st.fixed_dictionaries({}, optional={
    spec.name: st.sampled_from(spec.choices) for spec in ENGINE.options})
FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_game(game: Any, names: list[str], seed: int, check: Any = None, limit: int = 3000) -> Any:
    state = game.new_state(names, seed)
    rng = random.Random(seed)
    for _ in range(limit):
        if game.is_terminal(state):
            return state
        actions = game.legal_actions(state)
        assert actions, "a game that is not over always offers an action"
        game.apply(state, actions[rng.randrange(len(actions))])
        if check:
            check(game, state)
    raise AssertionError(f"no end after {limit} actions (seed {seed})")


def random_steps(game: Any, state: Any, rng: random.Random, steps: int | None = None) -> Any:
    """Apply up to ``steps`` random legal actions (all the way to the end when None)."""
    count = 0
    while not game.is_terminal(state) and (steps is None or count < steps):
        game.apply(state, random_policy(game, state, rng))
        count += 1
    return state


def card_places(game: Any, state: Any) -> None:
    """Every card is in exactly one place, and every tile holds no more than the rules allow."""
    seen = Counter(card for cards in state.zones().values() for card in cards)
    assert sorted(seen) == list(range(game.pieces.card_count))
    assert set(seen.values()) == {1}
    limit = game.pieces.tile_limit
    ghost = game.pieces.ghost_kind
    for moths in state.moths:
        coloured = sum(1 for c in moths if game.pieces.card_kind[c] != ghost)
        assert (coloured if game.opts.ghost_on_full_tile else len(moths)) <= limit
    for seat in range(state.n):
        placed = sum(owners.count(seat) for owners in state.wicks)
        assert placed + state.unlit[seat] == game.pieces.wicks_per_player
    assert all(len(set(owners)) == len(owners) for owners in state.wicks)
    assert all(state.face_up[c] or not state.moths[c] for c in range(len(state.moths)))


@FAST
@given(names=players, seed=seeds, options=option_sets)
def test_cards_tiles_and_wicks_stay_consistent(names: list[str], seed: int, options: dict[str, Any]) -> None:
    game = ENGINE.make_game(COMPONENTS, options)
    state = random_game(game, names, seed, check=card_places)
    assert not state.box


@settings(max_examples=200, deadline=None)
@given(names=players, seed=seeds)
def test_random_games_terminate_with_scores_that_add_up(names: list[str], seed: int) -> None:
    for game in (GAME, ALT):
        state = random_game(game, names, seed)
        result = game.result(state)
        assert result["over"] and result["winners"]
        pieces = game.pieces
        for seat, name in enumerate(names):
            score = result["scores"][name]
            cards = state.lanterns[seat]
            kinds = [pieces.card_kind[c] for c in cards]
            values = sum(pieces.kind_value[k] for k in kinds)
            assert score["moth_points"] == values
            assert score["points"] == score["moth_points"] + score["set_bonus"]
            assert score["set_bonus"] == score["sets"] * pieces.set_bonus
            assert score["moths"] == len(cards)
            assert score["ghosts"] == kinds.count(pieces.ghost_kind)
            if not game.opts.ghost_in_sets:
                per_colour = Counter(pieces.kind_colour[k] for k in kinds if k != pieces.ghost_kind)
                assert score["sets"] == sum(n // pieces.set_size for n in per_colour.values())


@settings(max_examples=200, deadline=None)
@given(names=players, seed=seeds)
def test_from_setup_the_fourth_dusk_card_always_comes_before_the_deck_runs_out(names: list[str],
                                                                              seed: int) -> None:
    # Recorded for the designer as question lm.q18: all Dusk cards sit in the deck from
    # round 3 on, and the deck cannot be emptied in rounds 1 and 2.
    assert GAME.result(random_game(GAME, names, seed))["end_reason"] == "fourth-dusk"


@FAST
@given(names=players, seed=seeds, options=option_sets)
def test_replay_from_a_seed_is_deterministic(names: list[str], seed: int, options: dict[str, Any]) -> None:
    game = ENGINE.make_game(COMPONENTS, options)
    first = play(game, names, seed)
    second = play(game, names, seed)
    assert first.actions == second.actions
    assert game.snapshot(first.state) == game.snapshot(second.state)
    assert game.result(first.state) == game.result(second.state)


@FAST
@given(names=players, seed=seeds, steps=st.integers(min_value=0, max_value=60))
def test_clone_is_independent_and_plays_on_identically(names: list[str], seed: int, steps: int) -> None:
    state = random_steps(GAME, GAME.new_state(names, seed), random.Random(seed), steps)
    twin = GAME.clone(state)
    before = GAME.snapshot(state)
    random_steps(GAME, twin, random.Random(1))
    assert GAME.snapshot(state) == before
    random_steps(GAME, state, random.Random(1))
    assert GAME.snapshot(state) == GAME.snapshot(twin)


def every_action(game: Any, state: Any) -> list[Any]:
    """Every action the engine can express for the seated players, legal or not."""
    found: list[Any] = []

    def walk(item: Any) -> None:
        if hasattr(item, "kind"):
            found.append(item)
        else:
            for inner in item:
                walk(inner)

    for table in (game.draw_table, game.plant_table, game.light_table, game.flip_table, game.discard_table,
                  game.pass_table):
        walk(table[:state.n])
    return found


@FAST
@given(names=players, seed=seeds, steps=st.integers(min_value=0, max_value=80), options=option_sets)
def test_legal_actions_apply_and_every_other_action_is_refused_unchanged(
        names: list[str], seed: int, steps: int, options: dict[str, Any]) -> None:
    game = ENGINE.make_game(COMPONENTS, options)
    state = random_steps(game, game.new_state(names, seed), random.Random(seed), steps)
    legal = set(game.legal_actions(state))
    before = game.snapshot(state)
    for action in every_action(game, state):
        if action in legal:
            continue
        with pytest.raises(RuleViolation) as refused:
            game.apply(state, action)
        assert refused.value.rule.startswith("lm.") and refused.value.message
        assert game.snapshot(state) == before
    for action in legal:
        twin = game.clone(state)
        game.apply(twin, action)


# --- descriptions -------------------------------------------------------------------------------

VALID: dict[str, Any] = {
    "round": 3,
    "start_player": "Ben",
    "current": "Ann",
    "taken": ["draw"],
    "dusk_out": 1,
    "garden": {"b2": {"tile": "grey", "moths": ["amber-1", "ghost"], "wicks": ["Ann"], "blocked": True},
               "a2": "rose", "c2": {"tile": "jade", "face": "down"}},
    "hands": {"Ann": ["rose-1"], "Ben": ["violet-3", "jade-2"]},
    "lanterns": {"Ben": ["amber-3"]},
    "deck": ["dusk", "rose-2"],
    "discard": ["jade-1"],
}

junk = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.text(max_size=8)
    | st.sampled_from(["amber-1", "ghost", "dusk", "grey", "b2", "Ann", "up", "down", "deck", "box",
                       "fourth-dusk", "light"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["tile", "face", "moths", "wicks", "blocked", "b2", "a1", "Ann", "Ben", "x"]) | st.text(
            max_size=5), inner, max_size=5),
    max_leaves=20)


def mutate(base: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    changed = dict(base)
    changed[key] = value
    return changed


@settings(max_examples=400, deadline=None)  # 1,500 took 20 s of the main suite
@given(description=st.one_of(
    junk,
    st.dictionaries(st.sampled_from(sorted(VALID) + ["unlisted", "night_ending", "last_round", "dusk_shuffled",
                                                     "extra"]), junk, max_size=6),
    st.builds(mutate, st.just(VALID), st.sampled_from(sorted(VALID) + ["unlisted", "last_round"]), junk)),
    names=st.sampled_from([["Ann", "Ben"], ["Ann", "Ben", "Cara"], ["Ann"], ["Ann", "Ann"], [], "Ann"]),
    seed=st.integers(-2, 5) | st.booleans())
def test_bad_descriptions_raise_description_error_only(description: Any, names: Any, seed: Any) -> None:
    try:
        state = GAME.state_from_description(description, names, seed)
    except DescriptionError as exc:
        assert exc.path.startswith(("start.state", "players", "seed", "chance"))
        return
    card_places(GAME, state)
    GAME.snapshot(state)


def test_a_described_state_is_built_as_described() -> None:
    state = GAME.state_from_description(VALID, ["Ann", "Ben"], 3)
    snap = GAME.snapshot(state)
    assert snap["garden"]["b2"] == {"tile": "grey", "face": "up", "moths": ["amber-1", "ghost"], "count": 2,
                                    "full": False, "wicks": ["Ann"], "blocked": True}
    assert snap["garden"]["c2"]["face"] == "down" and snap["garden"]["c2"]["tile"] == "jade"
    assert snap["garden"]["a1"] == {"tile": None, "face": "down", "moths": [], "count": 0, "full": False,
                                    "wicks": [], "blocked": False}
    assert snap["deck"]["cards"][:2] == ["dusk", "rose-2"]
    assert snap["deck"]["count"] == 54 - 2 - 3 - 1 - 1 - 1   # moths on b2, hands, lantern, discard, dusk out
    assert snap["dusk"] == {"out": 1, "set_aside": 0, "in_deck": 5, "shuffled": True}
    assert (snap["current"], snap["start_player"], snap["taken"], snap["actions_left"]) == ("Ann", "Ben",
                                                                                         ["draw"], 1)
    assert snap["wicks"]["Ann"] == {"lit": 1, "unlit": 2, "tiles": ["b2"]}
    card_places(GAME, state)


@pytest.mark.parametrize(("change", "says"), [
    ({"garden": {"b2": {"tile": "rose", "moths": ["amber-1"]}}},
     "start.state.garden.b2.moths.0: amber-1 cannot be on a rose tile (rule lm.turn.plant)"),
    ({"garden": {"b2": {"tile": "amber", "moths": ["rose-1"]}}},
     "start.state.garden.b2.moths.0: rose-1 cannot be on an amber tile (rule lm.turn.plant)"),
    ({"garden": {"b2": {"tile": "grey", "moths": ["amber-1", "amber-2", "amber-3", "ghost"]}}},
     "start.state.garden.b2.moths: a tile holds at most 3 moths (rule lm.turn.plant.full)"),
    ({"garden": {"b2": {"tile": "grey", "face": "down", "moths": ["amber-1"]}}},
     "start.state.garden.b2: a face-down tile holds no moths and has no wicks"),
    ({"garden": {"b2": {"tile": "grey", "wicks": ["Ann", "Ann"]}}},
     "start.state.garden.b2.wicks: a player has at most one wick beside a tile (rule lm.edge.own-wicks)"),
    ({"hands": {"Ann": ["ghost"] * 5}}, "start.state.hands.Ann.4: more ghost cards than the game has (4)"),
    ({"hands": {"Ann": ["dusk"]}}, "start.state.hands.Ann.0: a Dusk card cannot be here: Dusk cards are in the "
                                   "deck, laid face up in the middle, or set aside"),
    ({"deck": ["dusk"], "round": 1}, "start.state.deck.0: a Dusk card cannot be here: Dusk cards are in the deck, "
                                     "laid face up in the middle, or set aside"),
    ({"taken": ["light", "light"]}, "start.state.taken: a turn ends after 2 actions; list fewer"),
    ({"dusk_out": 2, "round": 2}, "start.state.dusk_out: Dusk cards can be out only once they are shuffled into "
                                  "the deck"),
    ({"garden": {"d4": "grey"}},
     "start.state.garden.d4: unknown garden place 'd4' (places: a1, b1, c1, a2, b2, c2, a3, b3, c3)"),
    ({"colour": "amber"}, "start.state.colour: unknown key 'colour' (keys: round, start_player, current, taken, "
                          "garden, hands, deck, discard, lanterns, dusk_out, dusk_shuffled, night_ending, "
                          "last_round, unlisted)"),
    ({"last_round": 3}, "start.state.last_round: a last round is set only when the night is ending"),
    ({"night_ending": "dawn"},
     "start.state.night_ending: the night ends by 'fourth-dusk' or 'deck-out' (or null), not 'dawn'"),
    ({"unlisted": "table"}, "start.state.unlisted: unlisted cards go to the 'deck' or the 'box', not 'table'"),
    ({"round": "two"}, "start.state.round: must be a whole number of at least 1, not 'two'"),
])
def test_description_errors_name_the_entry_and_say_why(change: dict[str, Any], says: str) -> None:
    with pytest.raises(DescriptionError) as error:
        GAME.state_from_description(change, ["Ann", "Ben"], 0)
    assert str(error.value) == says


@pytest.mark.parametrize(("names", "rule"), [(["Ann"], "lm.excluded.solo"),
                                             (NAMES + ["Eve"], "lm.excluded.five"),
                                             (NAMES + ["Eve", "Fay"], "lm.overview.players")])
def test_player_counts_outside_the_rules_are_refused(names: list[str], rule: str) -> None:
    with pytest.raises(DescriptionError, match=rule.replace(".", r"\.")):
        GAME.new_state(names, 0)


def test_options_are_checked() -> None:
    with pytest.raises(DescriptionError):
        ENGINE.make_game(COMPONENTS, {"no_such_option": True})
    with pytest.raises(DescriptionError):
        ENGINE.make_game(COMPONENTS, {"flip_adjacency": "knight"})
    with pytest.raises(DescriptionError):
        ENGINE.make_game(COMPONENTS, {"dusk_in_refill": 1})
    assert {spec.name for spec in ENGINE.options} == set(ENGINE.bench_configs["alternatives"]) | {"pass_rule"}


def test_component_data_that_does_not_add_up_is_refused() -> None:
    broken = yaml.safe_load(yaml.safe_dump(COMPONENTS))
    broken["deck"]["total"] = 55
    with pytest.raises(DescriptionError, match="lm.components.deck"):
        ENGINE.make_game(broken)


def test_the_engine_builds_the_book_s_pieces() -> None:
    pieces = GAME.pieces
    assert pieces.card_count == COMPONENTS["deck"]["total"]
    assert Counter(pieces.card_kind)[pieces.ghost_kind] == COMPONENTS["deck"]["moths"]["ghost"]
    assert Counter(pieces.card_kind)[pieces.dusk_kind] == COMPONENTS["deck"]["dusk"]
    assert sum(pieces.tile_count) == COMPONENTS["tiles"]["total"]
    assert pieces.tile_count[pieces.grey] == COMPONENTS["tiles"]["grey"]
    assert pieces.cell_names[pieces.middle] == COMPONENTS["garden"]["middle"]


# --- tricky rules, directly -------------------------------------------------------------------------

def described(description: dict[str, Any], names: list[str] | None = None, game: Any = GAME) -> Any:
    return game.state_from_description(description, names or ["Ann", "Ben"], 0)


def act(game: Any, state: Any, **step: Any) -> list[dict[str, Any]]:
    return [e.as_dict() for e in game.apply(state, game.parse_action(state, step))]


def test_light_twice_names_the_rule() -> None:
    state = described({"garden": {"b2": "amber", "a2": "rose"}})
    act(GAME, state, player="Ann", do="light", tile="b2")
    with pytest.raises(RuleViolation) as refused:
        act(GAME, state, player="Ann", do="light", tile="a2")
    assert refused.value.rule == "lm.turn.light"
    assert str(refused.value) == "Light may be taken only once per turn (rule lm.turn.light)"


def test_an_action_out_of_turn_names_whose_turn_it_is() -> None:
    state = described({"garden": {"b2": "amber"}})
    action = GAME.legal_actions(state)[0]
    for seat, who in ((1, "Ben"), (7, "seat 7")):  # a seat not at the table comes from code, never from a step
        with pytest.raises(RuleViolation) as refused:
            GAME.apply(state, action._replace(player=seat))
        assert str(refused.value) == f"It is Ann's turn, not {who}'s (rule lm.turn.order)"


def test_fourth_dusk_in_a_draw_lets_the_round_finish() -> None:
    state = described({"round": 4, "dusk_out": 3, "garden": {"b2": "amber"}, "deck": ["dusk", "amber-1"]})
    events = act(GAME, state, player="Ann", do="draw")
    assert [e["kind"] for e in events] == ["dusk", "night-ending", "draw"]
    act(GAME, state, player="Ann", do="draw")
    assert not GAME.is_terminal(state)
    act(GAME, state, player="Ben", do="draw")
    events = act(GAME, state, player="Ben", do="draw")
    assert GAME.is_terminal(state)
    kinds = [e["kind"] for e in events]
    assert kinds.index("refill") < kinds.index("start-player") < kinds.index("night-ends") < kinds.index("winner")
    assert GAME.legal_actions(state) == []


def test_refused_actions_after_the_game_name_the_end_of_the_night() -> None:
    state = random_game(GAME, ["Ann", "Ben"], 4)
    with pytest.raises(RuleViolation) as refused:
        GAME.apply(state, GAME.draw_table[0][0])
    assert refused.value.rule == "lm.night.end"


def test_ghost_moth_blocks_only_in_its_round_unless_the_option_says_otherwise() -> None:
    base = {"garden": {"b2": {"tile": "grey", "moths": ["amber-3"]}},
            "hands": {"Ann": ["ghost"], "Ben": ["rose-1"] * 4 + ["rose-2"]}}
    outcomes = {}
    for choice in ("planted_round", "while_on_tile"):
        game = ENGINE.make_game(COMPONENTS, {"ghost_block": choice})
        state = described(base, game=game)
        act(game, state, player="Ann", do="light", tile="b2")
        act(game, state, player="Ann", do="plant", card="ghost", tile="b2")
        act(game, state, player="Ben", do="draw")
        act(game, state, player="Ben", do="draw")
        assert game.snapshot(state)["garden"]["b2"]["count"] == 2
        act(game, state, player="Ben", do="draw")
        act(game, state, player="Ben", do="draw")
        act(game, state, player="Ann", do="light", tile="b2")
        act(game, state, player="Ann", do="draw")
        outcomes[choice] = game.snapshot(state)["lanterns"]["Ann"]
    assert outcomes == {"planted_round": ["amber-3", "ghost"], "while_on_tile": []}


def test_ghost_moths_as_any_colour_complete_the_cheapest_sets() -> None:
    wild = ENGINE.make_game(COMPONENTS, {"ghost_in_sets": True})
    state = described({"lanterns": {"Ann": ["amber-1", "amber-2", "rose-1", "ghost", "ghost", "ghost"]}},
                      game=wild)
    assert wild.snapshot(state)["scores"]["Ann"]["sets"] == 2   # amber + 1 ghost, rose + 2 ghosts
    assert GAME.snapshot(described({"lanterns": {"Ann": ["ghost"] * 3}}))["scores"]["Ann"]["sets"] == 0
    assert wild.snapshot(described({"lanterns": {"Ann": ["ghost"] * 3}}, game=wild))["scores"]["Ann"]["sets"] == 1


def test_diagonal_flips_only_with_the_option() -> None:
    diagonal = ENGINE.make_game(COMPONENTS, {"flip_adjacency": "diagonal"})
    for game, allowed in ((GAME, False), (diagonal, True)):
        state = described({"garden": {"b2": "amber"}}, game=game)
        action = game.parse_action(state, {"player": "Ann", "do": "flip", "tile": "a1"})
        assert (action in game.legal_actions(state)) is allowed


def test_hand_limit_option_fills_the_discard_pile() -> None:
    game = ENGINE.make_game(COMPONENTS, {"discard_source": "hand_limit"})
    state = described({"garden": {"b2": "amber"}, "hands": {"Ann": ["rose-1"] * 4 + ["jade-2"]}}, game=game)
    act(game, state, player="Ann", do="draw")
    events = act(game, state, player="Ann", do="draw")
    assert events[-1]["kind"] == "discard-down" and game.snapshot(state)["phase"] == "discard"
    with pytest.raises(RuleViolation, match="discard"):
        act(game, state, player="Ann", do="light", tile="b2")
    act(game, state, player="Ann", do="discard", card="jade-2")
    act(game, state, player="Ann", do="discard", card="rose-1")
    snap = game.snapshot(state)
    assert snap["current"] == "Ben" and snap["discard"]["cards"] == ["rose-1", "jade-2"]
    with pytest.raises(RuleViolation) as refused:
        act(GAME, described({}), player="Ann", do="discard", card="rose-1")
    assert refused.value.rule == "lm.turn.draw.discard"


def test_forced_chance_fixes_shuffles_and_flips_and_is_checked() -> None:
    state = described({"round": 2, "current": "Ben", "taken": ["draw"], "garden": {"b2": "amber"}})
    with pytest.raises(DescriptionError):
        GAME.force_chance(state, ["purple-7"])
    GAME.force_chance(state, ["dusk", "dusk", "ghost"])
    act(GAME, state, player="Ben", do="draw")
    assert GAME.snapshot(state)["deck"]["cards"][:3] == ["dusk", "dusk", "ghost"]
    GAME.force_chance(state, ["grey"])
    events = act(GAME, state, player="Ben", do="flip", tile="b1")
    assert events[0]["colour"] == "grey"


def test_refill_order_and_q3_alternative() -> None:
    description = {"round": 5, "current": "Ben", "taken": ["draw"], "dusk_out": 3, "garden": {"b2": "amber"},
                   "hands": {"Ann": ["amber-1"] * 3, "Ben": ["rose-1"] * 4}, "deck": ["rose-2", "dusk", "jade-1"]}
    later = ENGINE.make_game(COMPONENTS, {"refill_night_end": "next_round"})
    for game, over in ((GAME, True), (later, False)):
        state = described(description, game=game)
        act(game, state, player="Ben", do="draw")
        assert game.is_terminal(state) is over
        assert game.snapshot(state)["dusk"]["out"] == 4


def test_svg_is_self_contained() -> None:
    state = random_game(GAME, NAMES, 11)
    svg = GAME.render_svg(state, "The end of a four-player game & more")
    root = ET.fromstring(svg)
    assert root.get("viewBox") and root.get("width") and root.get("height")
    assert "<script" not in svg and "href" not in svg and "@import" not in svg
    fonts = list(text_fonts(root))  # each text's font, its own or the one it inherits (named once on the <svg>)
    assert fonts and all("Rulepress Sans" in font for font in fonts), fonts


def text_fonts(element: ET.Element, inherited: str = "") -> Iterator[str]:
    """The font-family each <text> under ``element`` is drawn in, as SVG inherits it from the nearest ancestor."""
    font = element.get("font-family") or inherited
    if element.tag == "{http://www.w3.org/2000/svg}text":
        yield font
    for child in element:
        yield from text_fonts(child, font)


def test_metrics_are_flat() -> None:
    state = random_game(GAME, ["Ann", "Ben", "Cara"], 5)
    metrics = GAME.metrics(state)
    assert metrics["over"] is True and metrics["end_reason"] == "fourth-dusk"
    assert all(isinstance(v, int | float | str | bool) for v in metrics.values())


@pytest.mark.parametrize(("change", "path", "message"), [
    ({"garden": {"b2": {"face": "up"}}}, "start.state.garden.b2.tile", "a face-up tile needs its colour"),
    ({"garden": {"b2": {"tile": "amber", "moths": ["nope"]}}}, "start.state.garden.b2.moths.0", None),
])
def test_garden_description_errors_name_the_entry_and_say_why(change: dict[str, Any], path: str,
                                                              message: str | None) -> None:
    with pytest.raises(DescriptionError) as error:
        GAME.state_from_description(change, ["Ann", "Ben"], 0)
    assert error.value.path == path
    if message is not None:
        assert str(error.value).endswith(message), str(error.value)


@pytest.mark.parametrize(("step", "path", "message"), [
    ({"player": "Ann", "do": "pass", "tile": "b2"}, "step.tile", "'pass' takes no arguments"),
    ({"player": "Ann", "do": "draw", "card": "amber-1", "tile": "b2"}, "step.card", "'draw' takes from"),
])
def test_a_step_with_a_key_its_action_does_not_take_is_refused_by_name(step: dict[str, Any], path: str,
                                                                       message: str) -> None:
    state = described({"garden": {"b2": "amber"}})
    with pytest.raises(DescriptionError) as error:
        GAME.parse_action(state, step)
    assert (error.value.path, str(error.value).rpartition(": ")[2]) == (path, message)


def test_a_parsed_step_is_the_very_action_the_engine_lists() -> None:
    """What an example writes and what ``legal_actions`` offers are the same action, pass included."""
    rng = random.Random(3)
    seen: set[str] = set()
    game = ENGINE.make_game(COMPONENTS, {"pass_rule": "always"})  # passing offered on every turn
    for seed in range(3):
        state = game.new_state(["Ann", "Ben", "Cal"], seed)
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            for action in legal:
                step = game.action_step(state, action)  # what `rulepress record` writes for it
                assert game.parse_action(state, step) == action, step
                seen.add(step["do"])
            game.apply(state, legal[rng.randrange(len(legal))])
    assert "pass" in seen


@pytest.mark.parametrize(("step", "says"), [
    ({"do": "pass", "tile": "b2", "player": "Ann"}, "step.tile: 'pass' takes no arguments"),
    ({"do": "draw", "tile": "b2", "player": "Ann"}, "step.tile: 'draw' takes from"),
    ({"do": "plant", "card": "amber-1", "tile": "b2", "wick": 1, "player": "Ann"},
     "step.wick: 'plant' takes card, tile"),
    ({"do": "dance", "player": "Ann"}, "step.do: unknown action 'dance' (actions: draw, plant, light, flip, pass, "
                                       "discard)"),
    ("draw", "step: a step must be a mapping such as {player: Ann, do: light, tile: b2}"),
])
def test_a_step_the_engine_cannot_read_is_refused_at_its_key(step: Any, says: str) -> None:
    state = GAME.state_from_description({"garden": {"b2": "amber"}}, ["Ann", "Ben"], 0)
    with pytest.raises(DescriptionError) as error:
        GAME.parse_action(state, step)
    assert str(error.value) == says


def test_a_described_empty_deck_has_run_out() -> None:
    """The night ends when the deck runs out (lm.night.deck-out): a position described with no deck left, and no
    word of the night's end, is one where it is ending, this round the last."""
    state = GAME.state_from_description({"deck": [], "unlisted": "box", "round": 3}, ["Ann", "Ben"], 0)
    assert (GAME.snapshot(state)["night_ending"], GAME.snapshot(state)["last_round"]) == ("deck-out", 3)
    with_cards = GAME.state_from_description({"deck": ["rose-1"], "unlisted": "box", "round": 3}, ["Ann", "Ben"], 0)
    assert (GAME.snapshot(with_cards)["night_ending"], GAME.snapshot(with_cards)["last_round"]) == (None, None)


def test_dealing_the_discard_pile_again_keeps_its_top_card_and_every_card() -> None:
    """Only the top card of the discard pile is seen (lm.turn.draw: the pile lies face up, its top card drawn
    from): the observer deals the cards under it again, and nothing else."""
    from rulepress.protocol import observer_of

    state = GAME.state_from_description({"garden": {"b2": "amber"}, "hands": {"Ann": [], "Ben": []},
                                         "discard": ["rose-1", "jade-2", "amber-3", "violet-1"]}, ["Ann", "Ben"], 0)
    observer = observer_of(GAME)
    assert observer is not None
    for seed in range(6):
        twin = observer.resample(state, "Ann", "discard pile", random.Random(seed))
        card_places(GAME, twin)
        assert twin.discard[-1] == state.discard[-1] and sorted(twin.discard) == sorted(state.discard)
