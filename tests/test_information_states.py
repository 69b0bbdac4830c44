"""Information states with memory (rulepress/memory.py; ``rulepress guide engine``, "Memory"), on OpenSpiel's model.

The two properties, for every engine with an observer (the bundled books' and the samples'), with hypothesis:

* two histories that give a seat the same information state give it the same view and the same legal actions (the
  ones it may take: its own, and those the rules take);
* dealing again what a seat has not seen (each hidden part, then all of them) never changes its information state.

``RULEPRESS_INFORMATION_CAMPAIGN=N`` (``nox -s information``) tries N examples of each, over whole games; the main
suite tries a few, over games of up to 60 actions.  Each is shown failing on an engine that breaks it.

Then what the bundled engines remember (what was shown to everyone stays known), the memory's own rules, the base
class's plumbing as a newcomer's engine meets it, and a checkpoint that states what a seat remembers.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import pickle
import random
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress import memory
from rulepress.basegame import BaseGame, BaseObserver, Move
from rulepress.codec import state_codec
from rulepress.load.book import book_ids, load_book
from rulepress.memory import EVERYONE, Memory, Setup, Sight, forget, recall, recall_pile, reveal
from rulepress.protocol import HIDDEN, PUBLIC, Chance, Event, observer_of
from rulepress.verify.engines import load_engine
from rulepress.verify.gate import load_checked_book
from rulepress.verify.replay import replay

from .conftest import ROOT
from .play import played

SAMPLES = ROOT / "samples"
PROJECTS = {**{book: ROOT for book in book_ids(ROOT)},
            **{path.name: path for path in sorted(SAMPLES.iterdir()) if (path / "rulepress.yaml").exists()}}
GAMES: dict[tuple[str, str], Any] = {}


def game_of(book: str, options: dict[str, Any] | None = None) -> Any:
    key = (book, repr(sorted((options or {}).items())))
    if key not in GAMES:
        loaded = load_book(PROJECTS[book], book)
        GAMES[key] = load_engine(loaded.engine_package, PROJECTS[book]).make_game(loaded.components, options or {})
    return GAMES[key]


WITH_OBSERVER = tuple(book for book in PROJECTS if observer_of(game_of(book)) is not None)
PLAYERS = {"lantern-moths": (2, 4), "last-lantern": (2, 4), "kuhn-poker": (2, 2)}


def test_every_engine_with_an_observer_is_held_to_the_properties() -> None:
    assert set(WITH_OBSERVER) == {"lantern-moths", "last-lantern", "kuhn-poker"}
    assert set(PLAYERS) == set(WITH_OBSERVER)


# --- the properties --------------------------------------------------------------------------------------------


def seat_actions(game: Any, state: Any, seat: str) -> list[Any]:
    """The legal actions ``seat`` may take: its own, and those the rules take (a draw nobody owns); for the public
    seat only those."""
    found = []
    for action in game.legal_actions(state):
        actor = game.actor(state, action)
        if actor is None or (seat != PUBLIC and actor == seat):
            found.append(action)
    return found


def seen_alike(game: Any, states: Sequence[Any], seats: Sequence[str]) -> str | None:
    """Why two of ``states`` that give a seat the same information state do not give it the same view and legal
    actions; None when every such pair agrees."""
    observer = observer_of(game)
    assert observer is not None
    first: dict[tuple[str, str], tuple[Any, list[Any]]] = {}
    for index, state in enumerate(states):
        for seat in seats:
            if seat != PUBLIC and seat not in state.players:
                continue
            key = (seat, observer.information_state(state, seat))
            seen = (observer.view(state, seat), seat_actions(game, state, seat))
            if first.setdefault(key, seen) != seen:
                what = "view" if first[key][0] != seen[0] else "legal actions"
                return f"state {index}: the same information state for {seat or 'everyone'}, another {what}"
    return None


def dealt_again_alike(game: Any, state: Any, seat: str, rng: random.Random) -> str | None:
    """Which hidden part, dealt again for ``seat``, changes its information state (and, last, all of them dealt again
    one after the other); None when none does."""
    observer = observer_of(game)
    assert observer is not None
    before = observer.information_state(state, seat)
    twin = state
    for part in observer.hidden:
        alone = observer.resample(state, seat, part, rng)
        if observer.information_state(alone, seat) != before:
            return f"{part} dealt again for {seat or 'everyone'} changes its information state"
        twin = observer.resample(twin, seat, part, rng)
    if observer.information_state(twin, seat) != before:
        return f"every hidden part dealt again for {seat or 'everyone'} changes its information state"
    return None


CAMPAIGN = int(os.environ.get("RULEPRESS_INFORMATION_CAMPAIGN", "0") or 0)
HISTORIES = st.tuples(st.integers(0, 10_000), st.integers(0, 400 if CAMPAIGN else 60))


def seats_of(game: Any, state: Any) -> list[str]:
    """The seats that have an information state: the players (OpenSpiel's), and everyone's public one where the
    base class makes them (Kuhn poker's observer writes OpenSpiel's strings, a player's only)."""
    base = type(observer_of(game)).information_state is BaseObserver.information_state
    return [*([PUBLIC] if base else []), *state.players]


def histories(game: Any, book: str, data: st.DataObject) -> list[Any]:
    """A few random histories, and for each a copy dealt again for one of its seats: a history the seat cannot tell
    from it, as information-set search makes them."""
    low, high = PLAYERS[book]
    states = []
    for seed, actions in data.draw(st.lists(HISTORIES, min_size=2, max_size=5), "histories"):
        state = played(game, low + seed % (high - low + 1), seed, actions)
        seat = data.draw(st.sampled_from(seats_of(game, state)), "seat")
        twin = state
        for part in observer_of(game).hidden:  # type: ignore[union-attr]
            twin = observer_of(game).resample(twin, seat, part, random.Random(seed))  # type: ignore[union-attr]
        states += [state, twin]
    return states


@pytest.mark.parametrize("book", WITH_OBSERVER)
@settings(max_examples=CAMPAIGN or 12, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(data=st.data())
def test_the_same_information_state_gives_the_same_view_and_legal_actions(book: str, data: st.DataObject) -> None:
    game = game_of(book)
    states = histories(game, book, data)
    seats = list(dict.fromkeys(seat for state in states for seat in seats_of(game, state)))
    assert seen_alike(game, states, seats) is None


@pytest.mark.parametrize("book", WITH_OBSERVER)
@settings(max_examples=CAMPAIGN or 15, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(data=st.data())
def test_dealing_again_what_a_seat_has_not_seen_never_changes_its_information_state(book: str,
                                                                                   data: st.DataObject) -> None:
    low, high = PLAYERS[book]
    game = game_of(book)
    seed, actions = data.draw(HISTORIES, "history")
    state = played(game, low + seed % (high - low + 1), seed, actions)
    seat = data.draw(st.sampled_from(seats_of(game, state)), "seat")
    assert dealt_again_alike(game, state, seat, random.Random(data.draw(st.integers(0, 2**32), "rng"))) is None


@pytest.mark.parametrize("book", WITH_OBSERVER)
def test_histories_that_differ_meet_in_one_information_state(book: str) -> None:
    """The first property has teeth: among the histories it is given, different positions share an information state
    (a position dealt again; in Kuhn poker, two deals of the other player's card)."""
    game, observer = game_of(book), observer_of(game_of(book))
    low = PLAYERS[book][0]
    met = 0
    for seed in range(6):
        state = played(game, low, seed, seed * 5)
        seat = state.players[0]
        twin = state
        for part in observer.hidden:  # type: ignore[union-attr]
            twin = observer.resample(twin, seat, part, random.Random(seed))  # type: ignore[union-attr]
        met += dealt(game, twin) != dealt(game, state)
    assert met
    if book == "kuhn-poker":  # two deals that differ only in the card Ben holds: Ann cannot tell them apart
        one, other = (game.new_state(["Ann", "Ben"], 0, ["Queen", card]) for card in ("Jack", "King"))
        assert observer.information_state(one, "Ann") == observer.information_state(other, "Ann")  # type: ignore
        assert observer.information_state(one, "Ben") != observer.information_state(other, "Ben")  # type: ignore


def dealt(game: Any, state: Any) -> bytes:
    """The state's bytes but its memory's: what is on the table, in the bags and in the seed."""
    twin = game.clone(state)
    twin.memory = None
    return pickle.dumps(twin)


def test_the_first_property_finds_an_information_state_that_forgets(monkeypatch: pytest.MonkeyPatch) -> None:
    game = game_of("lantern-moths")
    states = [played(game, 2, seed, 6) for seed in range(3)]
    assert seen_alike(game, states, ["P1", "P2", PUBLIC]) is None
    monkeypatch.setattr(type(observer_of(game)), "information_state", lambda self, state, seat: seat)
    assert "the same information state for P1, another view" in (seen_alike(game, states, ["P1"]) or "")


def test_the_second_property_finds_a_redeal_that_deals_away_a_known_card(monkeypatch: pytest.MonkeyPatch) -> None:
    game = game_of("lantern-moths")
    state = took_from_the_discard_pile(game)
    assert dealt_again_alike(game, state, "Ben", random.Random(0)) is None
    observer = observer_of(game)
    monkeypatch.setattr(type(observer), "_unknown", lambda self, state, seat, place, zone: (zone, 0))
    found = [dealt_again_alike(game, state, "Ben", random.Random(seed)) for seed in range(6)]
    assert any(f and f.startswith("hands dealt again for Ben") for f in found), found


# --- what the bundled engines remember ------------------------------------------------------------------------


def took_from_the_discard_pile(game: Any, hand: Sequence[str] = ("rose-1",)) -> Any:
    """Ann takes the rose moth worth 2 from the discard pile, shown to everyone (rule lm.turn.draw), then draws from
    the deck: it is Ben's turn."""
    state = game.state_from_description({"garden": {"b2": "rose"}, "hands": {"Ann": list(hand), "Ben": ["jade-2"]},
                                         "deck": ["violet-3", "amber-1"], "discard": ["rose-2"]}, ["Ann", "Ben"], 0)
    for step in ({"player": "Ann", "do": "draw", "from": "discard"}, {"player": "Ann", "do": "draw", "from": "deck"}):
        game.apply(state, game.parse_action(state, step))
    return state


def to_ann(game: Any, state: Any) -> None:
    """Ben draws until it is Ann's turn again: the round ends, the hands are filled, Ben starts the next round."""
    while game.snapshot(state)["current"] != "Ann":
        game.apply(state, game.parse_action(state, {"player": "Ben", "do": "draw"}))


def test_lantern_moths_a_card_shown_from_the_discard_pile_is_known_until_it_leaves_the_hand() -> None:
    game = game_of("lantern-moths")
    observer = observer_of(game)
    state = took_from_the_discard_pile(game)
    assert game.snapshot(state)["hands"]["Ann"] == ["rose-1", "rose-2", "violet-3"]
    assert observer.view(state, "Ben")["hands"]["Ann"] == ["rose-2", HIDDEN, HIDDEN]  # type: ignore[union-attr]
    assert observer.view(state, PUBLIC)["hands"]["Ann"] == ["rose-2", HIDDEN, HIDDEN]  # type: ignore[union-attr]
    to_ann(game, state)
    assert observer.view(state, "Ben")["hands"]["Ann"][0] == "rose-2"  # type: ignore[union-attr]  # a round passed
    game.apply(state, game.parse_action(state, {"player": "Ann", "do": "plant", "card": "rose-2", "tile": "b2"}))
    assert observer.view(state, "Ben")["hands"]["Ann"].count(HIDDEN) == len(  # type: ignore[union-attr]
        state.hands[0])  # face up on b2 now: nothing of her hand is known


def test_lantern_moths_two_cards_of_a_kind_cannot_be_told_apart() -> None:
    """Ann held a rose moth worth 2 before she took another: once she plants one, Ben cannot know a second is left."""
    game = game_of("lantern-moths")
    state = took_from_the_discard_pile(game, ("rose-2",))
    to_ann(game, state)
    game.apply(state, game.parse_action(state, {"player": "Ann", "do": "plant", "card": "rose-2", "tile": "b2"}))
    assert "rose-2" in game.snapshot(state)["hands"]["Ann"]
    assert "rose-2" not in observer_of(game).view(state, "Ben")["hands"]["Ann"]  # type: ignore[union-attr]


def test_lantern_moths_moths_seen_captured_stay_known_and_so_does_their_score() -> None:
    game = game_of("lantern-moths")
    observer = observer_of(game)
    state = game.state_from_description({"current": "Ben", "taken": ["draw"],
                                         "garden": {"b2": {"tile": "jade", "moths": ["jade-1", "jade-3"],
                                                           "wicks": ["Ann"]}},
                                         "hands": {"Ann": ["violet-1"], "Ben": ["rose-1"]},
                                         "lanterns": {"Ben": ["amber-3"]}}, ["Ann", "Ben"], 0)
    game.apply(state, game.parse_action(state, {"player": "Ben", "do": "draw"}))  # the round ends: Ann's wick takes
    seen = observer.view(state, "Ben")  # type: ignore[union-attr]
    assert seen["lanterns"]["Ann"] == ["jade-1", "jade-3"] and seen["scores"]["Ann"]["points"] == 4
    assert observer.result_view(state, "Ben")["scores"]["Ann"]["points"] == 4  # type: ignore[union-attr]
    # Ben's amber moth lay in his lantern from the start: nobody else ever saw it.
    assert observer.view(state, "Ann")["lanterns"]["Ben"] == [HIDDEN]  # type: ignore[union-attr]
    assert observer.view(state, "Ann")["scores"]["Ben"]["points"] == HIDDEN  # type: ignore[union-attr]
    assert observer.result_view(state, "Ann")["scores"]["Ben"]["points"] == HIDDEN  # type: ignore[union-attr]
    twin = observer.resample(state, "Ben", "lanterns", random.Random(1))  # type: ignore[union-attr]
    assert game.snapshot(twin)["lanterns"]["Ann"] == ["jade-1", "jade-3"]  # what Ben knows is not dealt again


def test_lantern_moths_a_seats_diagram_shows_the_captured_moths_it_saw_face_up() -> None:
    """What the view remembers, the picture shows: Ben saw Ann's wick capture two jade moths, not the violet one she
    held before; his diagram draws those two face up and the violet one face down, and her points unknown."""
    game = game_of("lantern-moths")
    state = game.state_from_description({"current": "Ben", "taken": ["draw"],
                                         "garden": {"b2": {"tile": "jade", "moths": ["jade-1", "jade-3"],
                                                           "wicks": ["Ann"]}},
                                         "hands": {"Ann": ["violet-1"], "Ben": ["rose-1"]},
                                         "lanterns": {"Ann": ["violet-2"], "Ben": ["amber-3"]}}, ["Ann", "Ben"], 0)
    game.apply(state, game.parse_action(state, {"player": "Ben", "do": "draw"}))  # the round ends: Ann's wick takes
    render = importlib.import_module(type(game).__module__.rpartition(".")[0] + ".render")
    face_down = f'width="11" height="20" rx="3" fill="{render.FACE_DOWN}"'  # a face-down moth beside a lantern
    bens, anns = game.render_svg(state, seat="Ben"), game.render_svg(state, seat="Ann")
    assert bens.count(face_down) == 1 and anns.count(face_down) == 1  # each the other's unseen moth only
    seen = observer_of(game).view(state, "Ben")  # type: ignore[union-attr]
    assert sorted(seen["lanterns"]["Ann"], key=str) == sorted(["jade-1", "jade-3", HIDDEN], key=str)
    assert "Ann 4 points" not in bens and "Ann unknown" in bens  # the text alternative: her points still unknown
    whole = game.render_svg(state)
    assert whole.count(face_down) == 0  # the whole table: every lantern face up


def test_lantern_moths_the_end_of_round_draw_is_its_drawers_alone() -> None:
    game = game_of("lantern-moths")
    observer = observer_of(game)
    state = game.state_from_description({"current": "Ben", "taken": ["draw"], "garden": {"b2": "amber"},
                                         "hands": {"Ann": [], "Ben": []}, "deck": ["violet-3", "amber-1"]},
                                        ["Ann", "Ben"], 0)
    game.apply(state, game.parse_action(state, {"player": "Ben", "do": "draw"}))  # violet-3; the round ends
    ann, ben = (observer.information_state(state, seat) for seat in ("Ann", "Ben"))  # type: ignore[union-attr]
    refill = '{"cards":["amber-1",'  # her five, from the top: the event names them for her alone
    assert refill in ann and refill not in ben and '{"cards":["hidden","hidden","hidden","hidden","hidden"]' in ben
    assert '"card":"violet-3"' in ben and '"card":"violet-3"' not in ann


def test_lantern_moths_a_discarded_card_is_known_under_the_top_of_the_pile() -> None:
    """With a hand limit (question lm.q11's other answer) cards are discarded face up: everyone saw them go onto the
    pile, though nobody searches it (lm.q21, lm.q23); a card the pile held from the start stays unseen."""
    game = game_of("lantern-moths", {"discard_source": "hand_limit"})
    observer = observer_of(game)
    state = game.state_from_description({"garden": {"b2": "amber"}, "discard": ["amber-2"],
                                         "hands": {"Ann": ["rose-1", "rose-2", "jade-1", "jade-2", "amber-1"],
                                                   "Ben": ["violet-3"]}, "deck": ["violet-1", "violet-2"]},
                                        ["Ann", "Ben"], 0)
    for step in ({"do": "draw"}, {"do": "draw"}, {"do": "discard", "card": "rose-1"},
                 {"do": "discard", "card": "jade-1"}):
        game.apply(state, game.parse_action(state, {"player": "Ann", **step}))
    assert game.snapshot(state)["discard"]["cards"] == ["jade-1", "rose-1", "amber-2"]
    assert observer.view(state, "Ben")["discard"]["cards"] == ["jade-1", "rose-1", HIDDEN]  # type: ignore
    for seed in range(4):
        twin = observer.resample(state, "Ben", "discard pile", random.Random(seed))  # type: ignore[union-attr]
        assert game.snapshot(twin)["discard"]["cards"][:2] == ["jade-1", "rose-1"]


def test_last_lantern_a_choice_is_its_choosers_in_the_information_states_until_the_reveal() -> None:
    game = game_of("last-lantern")
    observer = observer_of(game)
    state = game.new_state(["Milo", "Howard", "Coco"], 4)
    game.apply(state, game.parse_action(state, {"do": "draw"}))
    game.apply(state, game.parse_action(state, {"player": "Milo", "do": "choose", "location": "snail"}))
    milo, howard = (observer.information_state(state, seat) for seat in ("Milo", "Howard"))  # type: ignore
    chose = '"kind":"chose","location":"snail"'
    assert '{"you":"Milo chooses the snail"}' in milo and chose in milo
    assert '{"by":"Milo"}' in howard and chose not in howard and '"kind":"chose","location":"hidden"' in howard
    for who, where in (("Howard", "rabbit"), ("Coco", "owl")):
        game.apply(state, game.parse_action(state, {"player": who, "do": "choose", "location": where}))
    assert observer.view(state, "Howard")["players"]["Milo"]["choice"] == "snail"  # type: ignore  # revealed ...
    assert '"choice":"snail"' in observer.information_state(state, "Howard")  # type: ignore[union-attr]  # ... known


# --- the memory ----------------------------------------------------------------------------------------------


class Table:
    """A state that keeps a memory, for the memory's own rules."""

    def __init__(self) -> None:
        self.memory: Memory | None = Memory()


def test_reveal_and_forget_count_each_seats_cards() -> None:
    table = Table()
    reveal(table, "hands.Ann", ["rose-2"])  # shown to everyone
    reveal(table, "hands.Ann", ["rose-2", "jade-1"], to="Ann")  # and her own draw
    assert recall(table, "Ben", "hands.Ann", ["jade-1", "rose-2", "rose-2"]) == ["rose-2", HIDDEN, HIDDEN]
    assert recall(table, "Ann", "hands.Ann", ["jade-1", "rose-2", "rose-2"]) == ["rose-2", "rose-2", "jade-1"]
    forget(table, "hands.Ann", ["rose-2"])  # one leaves: everyone's is the one forgotten, Ann still knows hers
    assert table.memory is not None and table.memory.knows("Ben", "hands.Ann") == []
    assert table.memory.knows("Ann", "hands.Ann") == ["rose-2", "jade-1"]
    forget(table, "hands.Ann", ["violet-3"])  # nobody was shown it there: nothing changes
    assert recall(table, EVERYONE, "hands.Ann", "rose-2") == HIDDEN and recall(table, "Ann", "x", {"a": 1}) == {
        "a": HIDDEN}
    assert recall(table, "Ann", "hands.Ann", ["jade-1"]) == ["jade-1"]  # a known card that left is not shown
    reveal(table, "hands.Ann", [])  # nothing shown: nothing kept
    assert len(table.memory.trail()) == 2


def test_a_pile_shows_the_cards_seen_go_onto_it_in_their_places() -> None:
    table = Table()
    reveal(table, "discard", ["rose-1"])
    reveal(table, "discard", ["jade-1"])
    assert recall_pile(table, "Ben", "discard", ["jade-1", "rose-1", "amber-2"]) == ["jade-1", "rose-1", HIDDEN]
    forget(table, "discard", ["jade-1"])  # the top is drawn: the card under it shows
    assert recall_pile(table, "Ben", "discard", ["rose-1", "amber-2"]) == ["rose-1", HIDDEN]
    assert recall_pile(table, "Ben", "discard", ["amber-2", "rose-1"]) == ["amber-2", HIDDEN]  # not where seen


def told(action: Any) -> tuple[str | None, str]:
    """Who took an action of these tests' memories, and its words: ``("Ann", "draws")`` is Ann's."""
    return (action[0], f"{action[0]} {action[1]}") if action[0] else (None, action[1])


SIGHT = Sight(lambda state, seat: {}, told)


def stepped(kept: Memory, action: Any, events: Sequence[Any] = ()) -> Memory:
    """A copy of ``kept`` one step on."""
    twin = kept.copy()
    twin.step(action, events)
    return twin


def test_a_memory_copy_goes_on_alone_and_shares_what_it_can() -> None:
    import copy

    kept = Memory()
    assert copy.deepcopy(kept) is not kept and copy.deepcopy(kept) == kept and copy.copy(kept).log is kept.log
    later = stepped(kept, ("Ann", "bets"))
    assert kept.trail() == [] and len(later.trail()) == 1 and later != kept
    assert "1 entries" in repr(later)
    # Two copies that go on from one memory: each keeps its own step; the first to go on shares the list.
    one, other = stepped(later, ("Ben", "calls")), stepped(later, ("Ben", "folds"))
    assert [entry[1] for entry in one.trail()] == [("Ann", "bets"), ("Ben", "calls")]
    assert [entry[1] for entry in other.trail()] == [("Ann", "bets"), ("Ben", "folds")]
    assert one.log is later.log and other.log is not later.log and later.trail() == [("step", ("Ann", "bets"), ())]
    again = pickle.loads(pickle.dumps(later))
    assert again == later and len(again.log) == 1  # what the copies added is not this memory's


def test_a_memory_made_for_one_seat_holds_nothing_else() -> None:
    def see(event: Any, seat: str) -> dict[str, Any]:
        return {**event, "card": event["card"] if event["player"] == seat else HIDDEN}

    sight = Sight(lambda state, seat: {"seat": seat, "at": state}, told, see)
    kept = Memory(begun="the start")
    kept.step(("Ann", "draws"), [Event("draw", "x", {"player": "Ann", "card": "Queen"})])
    kept.reveal("hands.Ann", ["Queen"], to="Ann")
    kept.reveal("hands.Ben", ["King"])
    mine = kept.seen_by("Ben", sight)
    assert mine.begun is None and set(mine.start) == {"Ben"}
    assert "Queen" not in repr(mine.trail()) and mine.knows("Ben", "hands.Ann") == []
    assert mine.knows("Ben", "hands.Ben") == ["King"] and mine.trail()[0][1:3] == ("Ann", "")  # her words are hers
    assert mine.information_state("Ben", {}, sight) == kept.information_state("Ben", {}, sight)
    assert mine.seen_by("Ben", sight) == mine  # what Ben knows of what Ben knows: the same


def test_a_step_is_told_before_what_it_showed() -> None:
    kept = Memory()
    kept.reveal("hands.Ann", ["rose-2"])  # in the step's perform, before the step is told
    kept.step(("Ann", "draws from the discard pile"), [])
    lines = kept.information_state("Ben", {}, SIGHT).splitlines()
    assert lines == ["seat: Ben", "start: -", '{"by":"Ann"} []', 'shown hands.Ann: ["rose-2"]', "now: {}"]
    said = kept.information_state("Ann", {}, SIGHT).splitlines()
    assert said[2] == '{"you":"Ann draws from the discard pile"} []'
    rules = stepped(Memory(), (None, "draw Tree tiles")).information_state("Ann", {}, SIGHT)
    assert '{"rules":"draw Tree tiles"} []' in rules


def test_a_game_set_up_by_new_state_is_set_up_again_for_its_start() -> None:
    game = game_of("lantern-moths")
    state = game.new_state(["Ann", "Ben"], 7)
    assert state.memory.begun == Setup(("Ann", "Ben"), 7, ())  # nothing copied: playing costs no copy
    view = observer_of(game).view(state, "Ann")  # type: ignore[union-attr]
    assert state.memory.began("Ann", observer_of(game).sight(state)) == memory.digest(view)  # type: ignore
    described = game.state_from_description({"garden": {"b2": "rose"}}, ["Ann", "Ben"], 0)
    assert described.memory.begun is not described and game.snapshot(described.memory.begun) == game.snapshot(
        described)  # a described position: a copy of it


def test_a_position_with_its_memory_reads_back_as_it_was() -> None:
    game = game_of("lantern-moths")
    state = took_from_the_discard_pile(game)
    codec = state_codec(game)
    again = codec.loads(codec.dumps(state))
    assert again.memory == state.memory
    observer = observer_of(game)
    for seat in ("Ann", "Ben", PUBLIC):
        assert observer.information_state(again, seat) == observer.information_state(state, seat)  # type: ignore
    seen = observer.resample(state, "Ben", "hands", random.Random(0))  # type: ignore[union-attr]
    assert "violet-3" not in codec.dumps(seen.memory)  # the card Ann drew from the deck is not in Ben's memory


# --- the base class, as a newcomer's engine meets it -------------------------------------------------------------


class PeekState:
    def __init__(self, players: list[str], chance: Chance | None, cards: dict[str, str]) -> None:
        self.players, self.chance, self.cards, self.current = players, chance, cards, players[0]
        self.shown: list[str] = []

    def clone(self) -> PeekState:  # a hand-written copy that leaves the memory out: the base keeps it
        twin = PeekState(self.players, self.chance.clone() if self.chance else None, dict(self.cards))
        twin.current, twin.shown = self.current, list(self.shown)
        return twin


class PeekObserver(BaseObserver):
    hidden: ClassVar[dict[str, str]] = {"cards": "a card: its holder only, until shown"}

    def view(self, state: PeekState, seat: str) -> dict[str, Any]:
        shown = self.game.snapshot(state)
        for name in self.others(state.players, seat):
            shown["cards"][name] = self.recall(state, seat, f"cards.{name}", shown["cards"][name])
        return shown

    def redraw(self, state: PeekState, seat: str, part: str, rng: random.Random) -> None:
        for name in self.others(state.players, seat):
            if self.recall(state, seat, f"cards.{name}", state.cards[name]) == HIDDEN:
                state.cards[name] = rng.choice(["Jack", "Queen", "King"])


class Peek(BaseGame):
    """Each player holds a card; on their turn a player shows it to everyone or passes: all a newcomer writes to get
    information states is the ``reveal`` in ``perform`` and the ``recall`` in the view."""

    book_id = "peek"
    ACTIONS: ClassVar[dict[str, dict[str, Any]]] = {"show": {}, "pass": {}}
    OBSERVER = PeekObserver

    def start(self, players: list[str], chance: Chance | None) -> PeekState:
        assert chance is not None
        return PeekState(players, chance, {name: chance.draw_from(["Jack", "Queen", "King"]) for name in players})

    def moves(self, state: PeekState) -> list[Move]:
        return [Move.of(state.current, do) for do in self.ACTIONS] if len(state.shown) < 4 else []

    def check(self, state: PeekState, move: Move) -> None:
        pass

    def perform(self, state: PeekState, move: Move) -> list[Event]:
        if move.do == "show":
            reveal(state, f"cards.{move.player}", [state.cards[move.player]])
        state.shown.append(move.do)
        state.current = state.players[1 - state.players.index(state.current)]
        return [Event(move.do, "peek", {"player": move.player})]

    def snapshot(self, state: PeekState) -> dict[str, Any]:
        return {"cards": dict(state.cards), "current": state.current}

    def draw(self, state: PeekState, seat: str | None = None) -> list[str]:
        return []


def test_a_newcomers_engine_gets_information_states_by_saying_what_it_reveals() -> None:
    game = Peek({})
    state = game.new_state(["Ann", "Ben"], 0, ["Queen", "King"])
    assert isinstance(state.memory, Memory) and state.memory.begun is not None
    game.apply(state, Move.of("Ann", "pass"))
    assert game.observer.view(state, "Ben")["cards"]["Ann"] == HIDDEN  # type: ignore[union-attr]
    game.apply(state, Move.of("Ben", "show"))
    game.apply(state, Move.of("Ann", "show"))
    twin = game.clone(state)
    assert twin.memory == state.memory and twin.memory is not state.memory  # the base copies what its clone left out
    game.apply(twin, Move.of("Ben", "pass"))
    assert twin.memory.size == state.memory.size + 1  # and the copy goes on alone
    class Sharing(PeekState):
        def clone(self) -> PeekState:  # a hand-written copy that shares the memory: the base gives the copy its own
            twin = super().clone()
            twin.memory = self.memory
            return twin

    sharing = Sharing(state.players, state.chance, dict(state.cards))
    sharing.memory = state.memory
    assert game.clone(sharing).memory is not state.memory and game.clone(sharing).memory == state.memory
    assert game.observer.view(twin, "Ben")["cards"]["Ann"] == "Queen"  # type: ignore[union-attr]
    ben = game.observer.information_state(state, "Ben")  # type: ignore[union-attr]
    assert ben.splitlines()[2:5] == ['{"by":"Ann"} [{"kind":"pass","player":"Ann","rule":"peek"}]',
                                     '{"you":"Ben: show"} [{"kind":"show","player":"Ben","rule":"peek"}]',
                                     'shown cards.Ben: ["King"]']
    # Another deal of what Ben never saw, the same history: the same information state for Ben, not for Ann.
    other = game.new_state(["Ann", "Ben"], 0, ["Jack", "King"])
    for move in (Move.of("Ann", "pass"), Move.of("Ben", "show")):
        game.apply(other, move)
    state = game.new_state(["Ann", "Ben"], 0, ["Queen", "King"])
    for move in (Move.of("Ann", "pass"), Move.of("Ben", "show")):
        game.apply(state, move)
    observer = game.observer
    assert observer.information_state(other, "Ben") == observer.information_state(state, "Ben")  # type: ignore
    assert observer.information_state(other, "Ann") != observer.information_state(state, "Ann")  # type: ignore
    assert seen_alike(game, [state, other], ["Ann", "Ben", PUBLIC]) is None
    assert dealt_again_alike(game, state, "Ben", random.Random(2)) is None


class Slotted:
    """A state whose ``__slots__`` leave no room for a memory."""

    __slots__ = ("players", "chance", "cards", "current", "shown")


def test_a_state_that_keeps_no_memory_has_the_information_state_of_its_view() -> None:
    class Bare(Peek):
        def start(self, players: list[str], chance: Chance | None) -> PeekState:
            made = super().start(players, chance)
            state = object.__new__(Slotted)
            for name in Slotted.__slots__:
                setattr(state, name, getattr(made, name))
            return state

    game = Bare({})
    state = game.new_state(["Ann", "Ben"], 0, ["Queen", "King"])
    game.apply(state, Move.of("Ann", "show"))
    assert not hasattr(state, "memory")
    assert game.observer.information_state(state, "Ben") == (  # type: ignore[union-attr]
        'seat: Ben\nnow: {"cards":{"Ann":"hidden","Ben":"King"},"current":"Ben"}')


def test_memory_is_one_of_the_modules_an_engine_may_import() -> None:
    from rulepress.verify.closure import ENGINE_MAY_IMPORT

    assert "memory" in ENGINE_MAY_IMPORT
    assert memory.__name__ == "rulepress.memory"


# --- a checkpoint states what a seat remembers ------------------------------------------------------------------


def test_a_views_checkpoint_states_what_a_seat_remembers() -> None:
    check = load_checked_book(ROOT, "lantern-moths")
    ex = next(e for e in check.examples if e.id == "lm-draw")
    result = replay(ex, check.book, check.engine)
    assert result.ok, result.message
    assert result.checkpoints["after"].snapshot["views"]["Ben"]["hands"]["Ann"] == ["rose-2", HIDDEN, HIDDEN]
    forgetful = [dataclasses.replace(step, data={**step.data, "expect": {
        **step.data["expect"], "views.Ben.hands.Ann": [HIDDEN, HIDDEN, HIDDEN]}})
        if step.data.get("checkpoint") == "after" else step for step in ex.steps]
    failed = replay(dataclasses.replace(ex, steps=forgetful), check.book, check.engine)
    assert failed.status == "failed"
    assert "views.Ben.hands.Ann expected ['hidden', 'hidden', 'hidden'], got ['rose-2', 'hidden', 'hidden']" in \
        failed.message


def test_the_end_of_round_example_states_the_moths_everyone_saw_captured() -> None:
    check = load_checked_book(ROOT, "lantern-moths")
    ex = next(e for e in check.examples if e.id == "lm-end-of-round")
    result = replay(ex, check.book, check.engine)
    assert result.ok, result.message
    assert result.checkpoints["after-round"].snapshot["views"]["Ben"]["lanterns"]["Ann"] == ["jade-1", "jade-3"]


def test_the_decision_to_remember_names_its_question() -> None:
    book = load_book(ROOT, "lantern-moths")
    spec = load_engine(book.engine_package, ROOT)
    [decision] = [d for d in spec.derived_decisions() if d.id == "remembered"]
    assert decision.question == "lm.q23" and "lm.round.capture" in decision.rules
    [question] = [q for q in book.questions if q.id == "lm.q23"]
    assert set(question.rules) == set(decision.rules)


def test_explain_as_a_seat_prints_its_information_state_a_line_a_step(capsys: pytest.CaptureFixture[str]) -> None:
    from rulepress.cli import main

    code = main(["--root", str(ROOT), "explain", "lantern-moths", "lm-draw", "--step", "6", "--as", "Ben"])
    out = capsys.readouterr().out
    assert code == 0
    said = out.split("Information state (Ben):\n")[1].split("Ben's legal actions")[0].splitlines()
    assert said[0] == "  seat: Ben" and '  shown hands.Ann: ["rose-2"]' in said
    assert said[-1] == "  now: (the state as it sees it, above)"
    assert "- rose-2\n    - hidden\n    - hidden" in out  # the view above: the card Ben was shown, then the rest


def test_the_gate_refuses_a_redeal_that_deals_away_what_a_seat_remembers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Everyone saw Ann's wick take the two jade moths: a redraw that deals her lantern again as if nobody had changes
    the public view, and the gate refuses the example (verify/hidden.py, for each frame and diagram)."""
    check = load_checked_book(ROOT, "lantern-moths")
    ex = next(e for e in check.examples if e.id == "lm-end-of-round")
    assert replay(ex, check.book, check.engine).ok
    observer = observer_of(next(iter(check.book.games.values())))
    monkeypatch.setattr(type(observer), "_unknown", lambda self, state, seat, place, zone: (zone, 0))
    result = replay(ex, check.book, check.engine)
    assert result.status == "error"
    assert "changes when only lanterns" in result.message and "is dealt again" in result.message


def test_the_actor_of_an_action_is_its_player() -> None:
    game = Peek({})
    state = game.new_state(["Ann", "Ben"], 0)
    assert game.actor(state, Move.of("Ben", "show")) == "Ben"  # a name
    moths = game_of("lantern-moths")
    described = moths.state_from_description({"garden": {"b2": "rose"}}, ["Ann", "Ben"], 0)
    assert moths.actor(described, moths.legal_actions(described)[0]) == "Ann"  # a seat's number
    lantern = game_of("last-lantern")
    begun = lantern.new_state(["Milo", "Howard"], 4)
    [draw] = lantern.legal_actions(begun)
    assert lantern.actor(begun, draw) is None  # the draw for the Familiar locations is nobody's (player -1)
