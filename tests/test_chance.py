"""Chance you can trust (docs/ENGINE.md, "Chance"): every drawing method takes forced outcomes first, in order;
an impossible one is refused; outcomes an example forces but nothing draws fail it, naming the ``chance:`` step
(or ``start.chance``) and what was left, for each bundled engine; ``drawn()`` is enough to replay without a seed.
"""

from __future__ import annotations

import random
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulepress.basegame import BaseGame, Move
from rulepress.cli import main
from rulepress.load.book import load_book
from rulepress.protocol import Chance, DescriptionError, Event, RuleViolation
from rulepress.verify.gate import load_book_engine, load_checked_book
from rulepress.verify.replay import ExampleResult, replay

ROOT = Path(__file__).resolve().parent.parent
NEVER = "a chance outcome must be one the game draws"

# --- the Chance API ------------------------------------------------------------------------------------------


def test_draw_from_uses_forced_outcomes_first_then_the_seed() -> None:
    chance, twin = Chance(3, ["b", "a"]), random.Random(3)
    assert [chance.draw_from("abc"), chance.draw_from("abc")] == ["b", "a"]
    assert chance.draw_from("abc") == "abc"[twin.randrange(3)]  # the seed is untouched by forced outcomes
    assert chance.unused() == []


def test_draw_from_refuses_an_impossible_outcome() -> None:
    with pytest.raises(DescriptionError) as error:
        Chance(0, ["storm"]).draw_from(["calm", "calm", "breeze"], "weather")
    assert (error.value.path, error.value.message) == (
        "chance", "forced weather 'storm' is not possible here (possible: ['breeze', 'calm'])")


def test_draw_counted_is_draw_from_of_the_population_its_counts_make() -> None:
    counts = {"black": 3, "orange": 0, "yellow": 5, "blue": 1}
    population = [colour for colour, count in counts.items() for _ in range(count)]
    for seed in range(40):
        chance, twin = Chance(seed), Chance(seed)
        assert [chance.draw_counted(counts) for _ in range(12)] == [twin.draw_from(population) for _ in range(12)]
        assert chance.drawn() == twin.drawn()
    forced = Chance(0, ["blue"])
    assert forced.draw_counted(counts, "Firefly") == "blue" and forced.unused() == []
    with pytest.raises(DescriptionError) as error:
        Chance(0, ["orange"]).draw_counted(counts, "Firefly")  # a colour the bag has none of
    assert (error.value.path, error.value.message) == (
        "chance", "forced Firefly 'orange' is not possible here (possible: ['black', 'blue', 'yellow'])")


def test_randint_uses_forced_outcomes_and_refuses_what_is_out_of_range() -> None:
    chance, twin = Chance(9, [6, 1]), random.Random(9)
    assert [chance.randint(1, 6), chance.randint(1, 6), chance.randint(1, 6)] == [6, 1, twin.randint(1, 6)]
    for bad in (7, 0, True, "6"):
        with pytest.raises(DescriptionError) as error:
            Chance(0, [bad]).randint(1, 6, "die")
        assert error.value.message == f"forced die {bad!r} is not in 1..6"


def test_shuffle_without_forced_outcomes_is_the_seeds_shuffle() -> None:
    items, expected = list(range(20)), list(range(20))
    Chance(4).shuffle(items)
    random.Random(4).shuffle(expected)
    assert items == expected


@pytest.mark.parametrize("top", ["first", "last"])
def test_forced_outcomes_name_the_top_of_a_shuffle_the_rest_from_the_seed(top: str) -> None:
    items = list(range(10))
    Chance(4, [7, 2]).shuffle(items, top=top)
    rest = [0, 1, 3, 4, 5, 6, 8, 9]
    random.Random(4).shuffle(rest)
    assert items == ([7, 2, *rest] if top == "first" else [*rest, 2, 7])  # 7 is drawn first, then 2


def test_a_shuffle_names_its_items_and_alike_items_share_a_name() -> None:
    cards = ["rose-a", "rose-b", "jade-a", "jade-b"]
    chance = Chance(0, ["jade", "jade", "rose"])
    chance.shuffle(cards, "card", name=lambda card: card.split("-")[0])
    assert cards[:3] == ["jade-a", "jade-b", "rose-a"] and cards[3] == "rose-b"
    assert chance.drawn() == ["jade", "jade", "rose", "rose"]


def test_a_shuffle_leaves_an_outcome_it_does_not_name_for_the_next_drawing() -> None:
    chance = Chance(0, ["b", "grey", "a"])
    items = ["a", "b", "c"]
    chance.shuffle(items)
    assert items[0] == "b" and chance.unused() == ["grey", "a"]  # 'grey' names no item: the shuffle's share ends
    assert chance.draw_from(["grey", "jade"], "tile") == "grey" and chance.unused() == ["a"]


def test_a_shuffle_refuses_a_name_it_knows_when_no_such_item_is_left() -> None:
    chance = Chance(0, ["rose", "rose", "rose"])
    with pytest.raises(DescriptionError) as error:
        chance.shuffle(["rose-a", "rose-b", "jade-a"], "card", name=lambda card: card.split("-")[0],
                       names={"rose", "jade", "dusk"})
    assert error.value.message == "forced card 'rose' is not possible here (possible: ['jade'])"
    with pytest.raises(DescriptionError, match="forced card 'dusk' is not possible here"):
        Chance(0, ["dusk"]).shuffle(["rose-a"], "card", name=lambda card: card.split("-")[0],
                                    names={"rose", "dusk"})


def test_a_shuffle_takes_no_more_outcomes_than_it_has_items() -> None:
    chance = Chance(0, ["b", "a", "a", "b"])  # two shuffles of two items, each fully forced
    first, second = ["a", "b"], ["a", "b"]
    chance.shuffle(first)
    chance.shuffle(second)
    assert (first, second, chance.unused()) == (["b", "a"], ["a", "b"], [])


def test_a_shuffle_knows_only_two_tops() -> None:
    with pytest.raises(ValueError, match="top must be 'first' or 'last'"):
        Chance(0).shuffle([1, 2], top="middle")


def test_force_adds_after_what_is_waiting_and_unused_lists_it() -> None:
    chance = Chance(0, [1])
    chance.force([2, 3])
    assert chance.unused() == [1, 2, 3]
    assert [chance.randint(1, 6) for _ in range(2)] == [1, 2] and chance.unused() == [3]


def test_clone_is_independent_and_draws_the_same() -> None:
    chance = Chance(5, ["x"])
    chance.draw_from("xyz")
    chance.force(["y"])
    twin = chance.clone()
    assert twin.unused() == ["y"] and twin.drawn() == ["x"]
    assert [twin.draw_from("xyz") for _ in range(5)] == [chance.draw_from("xyz") for _ in range(5)]
    twin.force(["z"])
    twin.draw_from("xyz")
    assert chance.unused() == [] and twin.unused() == [] and twin.drawn()[-1] == "z"
    assert chance.drawn() == ["x", "y", *chance.drawn()[2:]] and len(chance.drawn()) == 6  # not the twin's


_DRAWINGS = st.lists(st.sampled_from(["draw", "roll", "shuffle-first", "shuffle-last"]), max_size=12)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), other=st.integers(0, 2**16), drawings=_DRAWINGS)
def test_what_was_drawn_replays_with_any_seed(seed: int, other: int, drawings: list[str]) -> None:
    """``drawn()`` names every outcome as a forced outcome would: forced into a Chance of another seed, the same
    drawings come out the same, and none is left over."""

    def play(chance: Chance) -> list[Any]:
        seen: list[Any] = []
        for drawing in drawings:
            if drawing == "draw":
                seen.append(chance.draw_from(["calm", "calm", "breeze"], "weather"))
            elif drawing == "roll":
                seen.append(chance.randint(1, 6))
            else:
                cards = ["rose-a", "rose-b", "jade-a", "dusk-a"]
                chance.shuffle(cards, "card", name=lambda card: card.split("-")[0],
                               names={"rose", "jade", "dusk"}, top=drawing.split("-")[1])
                seen.append([card.split("-")[0] for card in cards])
        return seen

    first = Chance(seed)
    seen = play(first)
    again = Chance(other, first.drawn())
    assert play(again) == seen and again.unused() == []


# --- a BaseGame with chance gets the plumbing ----------------------------------------------------------------


class HighCard(BaseGame):
    """Each player is dealt one card from a shuffled deck; then each in turn may draw a fresh card from it."""

    book_id = "high-card"
    ACTIONS = {"draw": {}}
    DECK = ("2", "3", "4", "5", "6")

    def start(self, players: list[str], chance: Chance) -> dict[str, Any]:
        deck = list(self.DECK)
        chance.shuffle(deck, "card", top="last")
        return {"players": players, "hands": {p: deck.pop() for p in players}, "deck": deck, "chance": chance,
                "turn": 0}

    def moves(self, state: Any) -> list[Move]:
        return [Move.of(state["players"][state["turn"]], "draw")] if state["turn"] < len(state["players"]) else []

    def check(self, state: Any, move: Move) -> None:
        if move.player != state["players"][state["turn"]]:
            raise RuleViolation("hc.turn", "not your turn")

    def perform(self, state: Any, move: Move) -> list[Event]:
        state["hands"][move.player] = state["chance"].draw_from(state["deck"], "card")
        state["turn"] += 1
        return [Event("draw", "hc.turn", {"player": move.player})]

    def current(self, state: Any) -> str | None:
        return None

    def snapshot(self, state: Any) -> dict[str, Any]:
        return {"hands": dict(state["hands"])}

    def draw(self, state: Any) -> list[str]:
        return []

    def force_chance(self, state: Any, outcomes: Any) -> None:
        state["chance"].force(outcomes)

    def unused_chance(self, state: Any) -> list[Any]:
        return state["chance"].unused()


def test_a_basegame_hands_start_its_chance_with_the_forced_setup_outcomes() -> None:
    game = HighCard({})
    state = game.new_state(["Ann", "Ben"], 0, ["5", "2", "6"])
    assert state["hands"] == {"Ann": "5", "Ben": "2"} and game.unused_chance(state) == []
    assert state["deck"][-1] == "6"  # the third forced card is the deck's top
    assert game.new_state(["Ann", "Ben"], 7)["hands"] == game.new_state(["Ann", "Ben"], 7)["hands"]


class Forgetful(HighCard):
    """Deals from its chance at setup, but keeps no chance for later."""

    def unused_chance(self, state: Any) -> list[Any]:
        return []


def test_a_basegame_refuses_forced_setup_outcomes_its_state_would_drop() -> None:
    assert Forgetful({}).new_state(["Ann", "Ben"], 0, ["5", "2"])["hands"] == {"Ann": "5", "Ben": "2"}
    with pytest.raises(DescriptionError) as error:
        Forgetful({}).new_state(["Ann", "Ben"], 0, ["5", "ace"])  # the ace is no card: the shuffle leaves it
    assert (error.value.path, error.value.message) == (
        "start.chance", "the setup drew 1 of the forced outcomes, and high-card keeps no chance to draw the rest "
                        "(ace)")


class Counting(BaseGame):
    """A BaseGame that keeps its chance in ``state.chance`` (the convention), to use the base's methods as is."""

    book_id = "counting"
    ACTIONS = {"roll": {}}

    class State:
        def __init__(self, players: list[str], chance: Chance) -> None:
            self.players, self.chance, self.rolled = players, chance, [chance.randint(1, 6, "die")]

    def start(self, players: list[str], chance: Chance) -> Any:
        return Counting.State(players, chance)

    def describe(self, description: Any, players: list[str], chance: Chance) -> Any:
        return Counting.State(players, chance)

    def moves(self, state: Any) -> list[Move]:
        return [Move.of(state.players[0], "roll")]

    def check(self, state: Any, move: Move) -> None:
        return None

    def perform(self, state: Any, move: Move) -> list[Event]:
        state.rolled.append(state.chance.randint(1, 6, "die"))
        return []

    def snapshot(self, state: Any) -> dict[str, Any]:
        return {"rolled": list(state.rolled)}

    def draw(self, state: Any) -> list[str]:
        return []


def test_basegame_force_chance_and_unused_chance_work_through_state_chance() -> None:
    game = Counting({})
    state = game.new_state(["Ann", "Ben"], 0, [4])
    assert state.rolled == [4] and game.unused_chance(state) == []
    game.force_chance(state, [6, 2])
    game.apply(state, Move.of("Ann", "roll"))
    assert state.rolled == [4, 6] and game.unused_chance(state) == [2]
    twin = game.clone(state)
    game.apply(twin, Move.of("Ann", "roll"))
    assert twin.rolled == [4, 6, 2] and game.unused_chance(state) == [2]  # the copy's chance is its own
    described = game.state_from_description({}, ["Ann", "Ben"], 3)
    assert described.rolled == [random.Random(3).randint(1, 6)]  # the description's chance is seeded


def test_a_basegame_without_chance_refuses_forced_setup_outcomes() -> None:
    sample = ROOT / "samples" / "tic-tac-toe"
    book = load_book(sample, "tic-tac-toe")
    game = load_book_engine(book).make_game(book.components)
    assert game.unused_chance(game.new_state(["Ann", "Ben"], 0)) == []
    with pytest.raises(DescriptionError) as error:
        game.new_state(["Ann", "Ben"], 0, ["x"])
    assert (error.value.path, error.value.message) == (
        "start.chance", "tic-tac-toe has no chance at setup: nothing to fix with 'start.chance'")


# --- every bundled engine: a forced outcome never goes unused silently ---------------------------------------

BOOKS = {"lantern-moths": "lantern_moths", "lantern": "lantern", "last-lantern": "last_lantern"}


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One project per bundled book: its rules and engine, and the one example a test writes."""
    made = {}
    for book, package in BOOKS.items():
        project = tmp_path_factory.mktemp(book)
        shutil.copytree(ROOT / "rules_src" / book, project / "rules_src" / book)
        shutil.copytree(ROOT / "engine" / package, project / "engine" / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
        (project / "examples" / book).mkdir(parents=True)
        made[book] = project
    return made


def _replay(projects: dict[str, Path], book: str, example: str) -> ExampleResult:
    (projects[book] / "examples" / book / "t.yaml").write_text(textwrap.dedent(example))
    check = load_checked_book(projects[book], book)
    [loaded] = check.examples
    return replay(loaded, check.book, check.engine, draw=False, prose=False)


def _failed(result: ExampleResult, detail: str, status: str = "failed") -> None:
    assert result.status == status and result.message.startswith(f"t (examples/{result.example.book}/t.yaml): "
                                                                  f"{detail} [illustrates "), result.message


LM = """\
id: t
title: T
rules: [lm.turn.flip]
players: [Ann, Ben]
start:
  state:
    garden: {b2: rose}
    hands: {Ann: [rose-1, jade-1], Ben: [jade-2]}
steps:
  - chance: [jade]
  - ACTION
  - checkpoint: after
    expect: EXPECT
"""


def test_lantern_moths_a_flip_draws_the_forced_tile(projects: dict[str, Path]) -> None:
    result = _replay(projects, "lantern-moths", LM.replace("ACTION", "{player: Ann, do: flip, tile: b1}")
                     .replace("EXPECT", "{garden.b1.tile: jade}"))
    assert result.ok, result.message


def test_lantern_moths_a_tile_nothing_draws_fails(projects: dict[str, Path]) -> None:
    result = _replay(projects, "lantern-moths", LM.replace("ACTION", "{player: Ann, do: plant, card: rose-1, "
                                                                     "tile: b2}").replace("EXPECT", "{}"))
    _failed(result, f"step 1 (line 10): chance: [jade] of [jade] not drawn at the end of the example: {NEVER}")


def test_lantern_moths_outcomes_left_when_the_next_chance_step_begins_fail(projects: dict[str, Path]) -> None:
    steps = LM.replace("ACTION", "{player: Ann, do: plant, card: rose-1, tile: b2}\n  - chance: [grey]\n"
                                 "  - {player: Ann, do: flip, tile: b1}").replace("EXPECT", "{}")
    _failed(_replay(projects, "lantern-moths", steps),
            f"step 1 (line 10): chance: [jade] of [jade] not drawn when step 3 (line 12) began: {NEVER}")


def test_lantern_moths_a_tile_forced_after_the_flip_that_draws_it_names_the_flip(projects: dict[str, Path]) -> None:
    steps = LM.replace("  - chance: [jade]\n  - ACTION\n",
                       "  - {player: Ann, do: flip, tile: b1}\n  - chance: [jade]\n")
    _failed(_replay(projects, "lantern-moths", steps.replace("EXPECT", "{}")),
            "step 2 (line 11): chance: [jade] was written after step 1 (line 10), the step that draws it: move the "
            "chance step before step 1 (line 10); a chance step fixes what the steps after it draw")


def test_lantern_a_roll_forced_after_the_zone_is_entered_names_the_entering(projects: dict[str, Path]) -> None:
    example = (LANTERN.replace("    phase: fight\n    dice: [2, 2, 3, 3, 4, 6]\n", "    phase: enter\n")
               .replace("  - chance: FORCED\n  - {do: spell, die: 2}\n",
                        "  - {do: enter}\n  - chance: [5, 6, 1, 2, 3, 4]\n")
               .replace("{dice: [2, 3, 3, 4, 5, 6]}", "{phase: fight}"))
    _failed(_replay(projects, "lantern", example),
            "step 2 (line 12): chance: [5, 6, 1, 2, 3, 4] was written after step 1 (line 11), the step that draws it: "
            "move the chance step before step 1 (line 11); a chance step fixes what the steps after it draw")


LM_SETUP = """\
id: t
title: T
rules: [lm.setup.deal]
players: [Ann, Ben]
start:
  setup: true
  chance: [rose-1, rose-2, rose-3, jade-1, jade-2, jade-3, amber-1, amber-2, amber-3, violet-1, ghost, TILES]
steps:
  - checkpoint: dealt
    expect: {deck.top: ghost, garden.b2: {tile: jade, face: up}}
"""
DEALT = ["rose-1", "rose-2", "rose-3", "jade-1", "jade-2", "jade-3", "amber-1", "amber-2", "amber-3", "violet-1"]


def test_lantern_moths_start_chance_fixes_the_deal_and_the_middle_tile(projects: dict[str, Path]) -> None:
    result = _replay(projects, "lantern-moths", LM_SETUP.replace("TILES", "jade"))
    assert result.ok, result.message
    hands = result.checkpoints["dealt"].snapshot["hands"]  # the top ten, dealt one at a time from the top
    assert (sorted(hands["Ann"]), sorted(hands["Ben"])) == (sorted(DEALT[0::2]), sorted(DEALT[1::2]))


def test_lantern_moths_start_chance_no_tile_when_grey_is_in_the_middle(projects: dict[str, Path]) -> None:
    example = LM_SETUP.replace("players: [Ann, Ben]", "players: [Ann, Ben]\noptions: {grey_tile: middle}")
    _failed(_replay(projects, "lantern-moths", example.replace("TILES", "jade")),
            f"start (line 6): start.chance: [jade] of [{', '.join(DEALT)}, ghost, jade] not drawn by the setup: "
            f"{NEVER}")


def test_lantern_moths_start_chance_the_setup_does_not_draw_fails(projects: dict[str, Path]) -> None:
    # Face-down places are decided when flipped (engine README): the setup draws one tile, the middle one.
    _failed(_replay(projects, "lantern-moths", LM_SETUP.replace("TILES", "jade, grey")),
            f"start (line 5): start.chance: [grey] of [{', '.join(DEALT)}, ghost, jade, grey] not drawn by the "
            f"setup: {NEVER}")


def test_lantern_moths_start_chance_an_impossible_card_is_refused(projects: dict[str, Path]) -> None:
    # The Dusk cards are set aside at setup (lm.setup.dusk): none can be dealt.
    result = _replay(projects, "lantern-moths", LM_SETUP.replace("rose-1, ", "dusk, ").replace("TILES", "jade"))
    _failed(result, "start (line 5): chance: forced card 'dusk' is not possible here (possible: ['amber-1', "
                    "'amber-2', 'amber-3', 'ghost', 'jade-1', 'jade-2', 'jade-3', 'rose-1', 'rose-2', 'rose-3', "
                    "'violet-1', 'violet-2', 'violet-3'])", status="error")


LANTERN = """\
id: t
title: T
rules: [ln.fight.magic-spell]
players: [Adventurer]
start:
  state:
    zone: 1
    phase: fight
    dice: [2, 2, 3, 3, 4, 6]
    circles: {critical_strike: 0, counterattack: 0, magic_spell: 2, constitution: 0}
steps:
  - chance: FORCED
  - {do: spell, die: 2}
  - checkpoint: after
    expect: {dice: [2, 3, 3, 4, 5, 6]}
"""


def test_lantern_a_spell_rolls_the_forced_face(projects: dict[str, Path]) -> None:
    assert _replay(projects, "lantern", LANTERN.replace("FORCED", "[5]")).ok


def test_lantern_a_second_face_for_a_one_die_spell_fails(projects: dict[str, Path]) -> None:
    _failed(_replay(projects, "lantern", LANTERN.replace("FORCED", "[5, 6]")),
            f"step 1 (line 12): chance: [6] of [5, 6] not drawn at the end of the example: {NEVER}")


LANTERN_SETUP = """\
id: t
title: T
rules: [ln.setup.roll]
players: [Adventurer]
start:
  setup: true
  chance: FORCED
steps:
  - checkpoint: rolled
    expect: {setup.rolled: [1, 2, 3, 4, 5, 6], phase: setup}
"""


def test_lantern_start_chance_fixes_the_setup_roll(projects: dict[str, Path]) -> None:
    assert _replay(projects, "lantern", LANTERN_SETUP.replace("FORCED", "[6, 1, 5, 2, 4, 3]")).ok


def test_explain_sets_up_with_start_chance(projects: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _replay(projects, "lantern", LANTERN_SETUP.replace("FORCED", "[6, 1, 5, 2, 4, 3]"))
    assert main(["--root", str(projects["lantern"]), "explain", "lantern", "t", "--step", "1"]) == 0
    assert "Setup: the dice show 1, 2, 3, 4, 5 and 6." in capsys.readouterr().out


def test_lantern_start_chance_a_seventh_face_fails(projects: dict[str, Path]) -> None:
    _failed(_replay(projects, "lantern", LANTERN_SETUP.replace("FORCED", "[6, 1, 5, 2, 4, 3, 6]")),
            f"start (line 5): start.chance: [6] of [6, 1, 5, 2, 4, 3, 6] not drawn by the setup: {NEVER}")


def test_lantern_start_chance_a_face_no_die_has_is_refused(projects: dict[str, Path]) -> None:
    _failed(_replay(projects, "lantern", LANTERN_SETUP.replace("FORCED", "[7, 1, 5, 2, 4, 3]")),
            "start (line 5): start.chance: a forced outcome is a die face 1-6, got 7", status="error")


LL = """\
id: t
title: T
rules: [ll.lantern.draw]
players: [Milo, Howard, Coco]
start:
  state:
    round: 5
    phase: journey
    paths: |
      d AAAA......
      e .BBB......
      f CCCC......
      g DDD.......
      h EEEE......
    tiles: {A: T11, B: T03, C: T09, D: T02, E: T10}
    placed_by: {A: Howard, E: Howard}
    flower_at: {E: h2}
    lanterns: {Howard: [1]}
    hands: {Howard: T07}
steps:
  - {player: Howard, do: place, tile: T07, cells: [e5, f5, f6]}
  - chance: FORCED
  - {do: done}
  - checkpoint: drawn
    expect: {drawn: {Howard: 2}, spaces: {e1: yellow, g4: black}}
"""


def test_last_lantern_two_spaces_draw_two_fireflies(projects: dict[str, Path]) -> None:
    assert _replay(projects, "last-lantern", LL.replace("FORCED", "[yellow, black]")).ok


def test_last_lantern_a_third_firefly_for_two_spaces_fails(projects: dict[str, Path]) -> None:
    _failed(_replay(projects, "last-lantern", LL.replace("FORCED", "[yellow, black, yellow]")),
            f"step 2 (line 22): chance: [yellow] of [yellow, black, yellow] not drawn at the end of the example: "
            f"{NEVER}")


LL_SETUP = """\
id: t
title: T
rules: [ll.challenge.branches.setup]
players: [Milo, Howard]
options: OPTIONS
start:
  setup: true
  chance: [S4, S1]
steps:
  - checkpoint: set-up
    expect: {serpents.0.tile: S4, serpents.1: {tile: S1, cells: [f7, g7]}}
"""


def test_last_lantern_start_chance_places_the_serpent_tiles(projects: dict[str, Path]) -> None:
    assert _replay(projects, "last-lantern", LL_SETUP.replace("OPTIONS", "{branches: true}")).ok


def test_last_lantern_start_chance_without_moving_branches_fails(projects: dict[str, Path]) -> None:
    result = _replay(projects, "last-lantern", LL_SETUP.replace("OPTIONS", "{}")
                     .replace("    expect: {serpents.0.tile: S4, serpents.1: {tile: S1, cells: [f7, g7]}}\n", ""))
    _failed(result, f"start (line 6): start.chance: [S4, S1] of [S4, S1] not drawn by the setup: {NEVER}")
