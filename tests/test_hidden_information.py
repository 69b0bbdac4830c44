"""Hidden information (docs/ENGINE.md, "Hidden information"): observers, the views an example is told from, and
the gate's proof that nothing hidden from a seat is printed for it.

The no-leak property: for every engine with an observer, whatever is rendered for a seat (the SVG, its ``<desc>``,
the narration of the seat's view, the view itself and the narration of any action) is unchanged when only what the
seat cannot see is dealt again.  Then the gate's own cases, each shown failing.
"""

from __future__ import annotations

import dataclasses
import pickle
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress import i18n
from rulepress.basegame import BaseGame, BaseObserver
from rulepress.cli import main
from rulepress.errors import SourceError
from rulepress.load.book import book_ids
from rulepress.load.examples import load_example
from rulepress.protocol import HIDDEN, PUBLIC, DescriptionError, Observer, narrator_of, observer_of
from rulepress.verify import replay as replay_module
from rulepress.verify.gate import BookCheck, load_checked_book
from rulepress.verify.replay import make_game, replay

from .play import played

ROOT = Path(__file__).resolve().parent.parent
KUHN = ROOT / "samples" / "kuhn-poker"
TIC_TAC_TOE = ROOT / "samples" / "tic-tac-toe"
PROJECTS = {"lantern-moths": ROOT, "last-lantern": ROOT, "lantern": ROOT, "kuhn-poker": KUHN,
            "tic-tac-toe": TIC_TAC_TOE}
CHECKS: dict[str, BookCheck] = {}


def check_of(book: str) -> BookCheck:
    if book not in CHECKS:
        CHECKS[book] = load_checked_book(PROJECTS[book], book)
    return CHECKS[book]


def game_of(book: str, options: dict[str, Any] | None = None) -> Any:
    check = check_of(book)
    return make_game(check.engine, check.book, options or {})


def example(book: str, example_id: str) -> Any:
    return next(e for e in check_of(book).examples if e.id == example_id)


def replayed(book: str, ex: Any) -> Any:
    check = check_of(book)
    return replay(ex, check.book, check.engine)


WITH_OBSERVER = ("lantern-moths", "last-lantern", "kuhn-poker")


def test_the_engines_that_hide_something_have_an_observer_and_lantern_has_none() -> None:
    has = {book for book in [*book_ids(ROOT), "kuhn-poker", "tic-tac-toe"] if observer_of(game_of(book)) is not None}
    assert has == set(WITH_OBSERVER)
    assert set(observer_of(game_of("lantern-moths")).hidden) == {  # type: ignore[union-attr]
        "hands", "deck", "lanterns", "face-down tiles", "draws", "discard pile"}
    assert set(observer_of(game_of("last-lantern")).hidden) == {"choices", "draws"}  # type: ignore[union-attr]
    assert set(observer_of(game_of("kuhn-poker")).hidden) == {"cards"}  # type: ignore[union-attr]
    for book in WITH_OBSERVER:
        assert isinstance(observer_of(game_of(book)), Observer | BaseObserver)


# --- the no-leak property -------------------------------------------------------------------------------


def rendered_for(game: Any, state: Any, seat: str, languages: tuple[str, ...]) -> dict[str, Any]:
    """Everything printed for ``seat`` about ``state``: the view, the diagram, its narration, and how each legal
    action would be told, in every language of the book."""
    observer = observer_of(game)
    assert observer is not None
    view = observer.view(state, seat)
    narrator = narrator_of(game)
    said: dict[str, Any] = {"view": view}
    for lang in languages:
        with i18n.language(lang):
            said[f"svg/{lang}"] = game.render_svg(state, None, seat)
            if narrator is not None:
                said[f"narration/{lang}"] = narrator.narrate_state(game, view)
                said[f"actions/{lang}"] = [narrator.narrate_action(game, state, a) for a in game.legal_actions(state)]
    return said


def leak(game: Any, state: Any, seat: str, part: str, rng: random.Random, languages: tuple[str, ...] = ("en",),
         legal_from: Any = None) -> str | None:
    """What of the printed output changes when only ``part`` is dealt again for ``seat``; None when nothing does.
    The actions narrated for the copy are the original's (``legal_from``): a seat's narration of an action may
    not depend on what it cannot see."""
    observer = observer_of(game)
    assert observer is not None
    twin = observer.resample(state, seat, part, rng)
    before = rendered_for(game, state, seat, languages)
    narrator = narrator_of(game)
    after = rendered_for(game, twin, seat, languages)
    if narrator is not None:
        for lang in languages:
            with i18n.language(lang):
                after[f"actions/{lang}"] = [narrator.narrate_action(game, twin, a) for a in game.legal_actions(state)]
    changed = [key for key in before if before[key] != after[key]]
    return f"{part} for {seat or 'everyone'}: {', '.join(changed)}" if changed else None


BOOK_PLAYERS = {"lantern-moths": (2, 4), "last-lantern": (2, 4), "kuhn-poker": (2, 2)}
LANGUAGES = {"lantern-moths": ("en",), "last-lantern": ("en", "fr"), "kuhn-poker": ("en",)}


@pytest.mark.parametrize("book", WITH_OBSERVER)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(data=st.data())
def test_nothing_a_seat_cannot_see_changes_what_is_rendered_for_it(book: str, data: st.DataObject) -> None:
    low, high = BOOK_PLAYERS[book]
    players = data.draw(st.integers(low, high), "players")
    game = game_of(book)
    state = played(game, players, data.draw(st.integers(0, 10_000), "seed"), data.draw(st.integers(0, 90), "actions"))
    seat = data.draw(st.sampled_from([PUBLIC, *state.players]), "seat")
    observer = observer_of(game)
    assert observer is not None
    for part in observer.hidden:
        rng = random.Random(data.draw(st.integers(0, 2**32), f"rng/{part}"))
        assert leak(game, state, seat, part, rng, LANGUAGES[book]) is None


PARTS_SEEN_CHANGING = {  # how many random states to look through before each part must have changed one
    "lantern-moths": 20, "last-lantern": 60, "kuhn-poker": 10}


@pytest.mark.parametrize("book", WITH_OBSERVER)
def test_every_hidden_part_is_really_dealt_again(book: str) -> None:
    """The property has teeth: each part's resampling changes the state (for some position) and leaves the seat's
    own view as it is."""
    low, high = BOOK_PLAYERS[book]
    game = game_of(book)
    observer = observer_of(game)
    assert observer is not None
    changed: set[str] = set()
    states = [played(game_of(book), low + seed % (high - low + 1), seed, seed * 7 % 60)
              for seed in range(PARTS_SEEN_CHANGING[book])]
    if book == "lantern-moths":  # no rule of this edition puts a card on the discard pile: a described one
        states.append(game.state_from_description({"garden": {"b2": "amber"}, "hands": {"P1": [], "P2": []},
                                                   "discard": ["rose-1", "jade-2", "amber-3"]}, ["P1", "P2"], 0))
    for seed, state in enumerate(states):
        seat = state.players[seed % len(state.players)]
        for part in observer.hidden:
            twin = observer.resample(state, seat, part, random.Random(seed))
            if dealt(game, twin) != dealt(game, state):
                changed.add(part)
    assert changed == set(observer.hidden)


def dealt(game: Any, state: Any) -> bytes:
    """The state's bytes but its memory's (a resampled copy keeps what its seat knows of it: not a redeal)."""
    twin = game.clone(state)
    twin.memory = None
    return pickle.dumps(twin)


@pytest.mark.parametrize("book", WITH_OBSERVER)
def test_resampling_works_on_a_copy(book: str) -> None:
    game = game_of(book)
    state = played(game, 2, 5, 10)
    observer = observer_of(game)
    assert observer is not None
    before = pickle.dumps(state)
    for part in observer.hidden:
        observer.resample(state, PUBLIC, part, random.Random(1))
    assert pickle.dumps(state) == before
    with pytest.raises(ValueError, match="hides no part 'nothing'"):
        observer.resample(state, PUBLIC, "nothing", random.Random(1))


def _drawing_everything(game: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A leaky engine: its diagram, drawn for any seat, shows the whole state."""
    everything = type(game).draw
    monkeypatch.setattr(type(game), "draw", lambda self, state, seat=None: everything(self, state))


def test_the_property_finds_a_diagram_that_shows_what_its_seat_cannot_see(monkeypatch: pytest.MonkeyPatch) -> None:
    game = game_of("kuhn-poker")
    state = game.new_state(["Ann", "Ben"], 0, ["Queen", "King"])
    assert leak(game, state, "Ann", "cards", random.Random(3)) is None
    _drawing_everything(game, monkeypatch)
    found = [leak(game, state, "Ann", "cards", random.Random(seed)) for seed in range(5)]
    assert any(f and "svg/en" in f for f in found), found


def test_the_property_finds_a_view_that_shows_what_its_seat_cannot_see(monkeypatch: pytest.MonkeyPatch) -> None:
    game = game_of("lantern-moths")
    state = played(game_of("lantern-moths"), 2, 3, 4)
    observer = observer_of(game)
    assert observer is not None
    monkeypatch.setattr(type(observer), "view", lambda self, state, seat: self.game.snapshot(state))
    assert leak(game, state, "P1", "hands", random.Random(0)) is not None


# --- what the bundled engines hide ----------------------------------------------------------------------


def test_lantern_moths_shows_a_seat_its_own_hand_and_lantern_and_nobody_the_deck() -> None:
    game = game_of("lantern-moths")
    result = replayed("lantern-moths", example("lantern-moths", "lm-end-of-round"))
    assert result.ok, result.message
    checkpoint = result.checkpoints["after-round"]
    assert checkpoint.seat == "Ann"  # the diagram's own 'as:'
    ann = checkpoint.view
    assert ann is not None
    assert ann["hands"]["Ann"] == result.checkpoints["after-round"].snapshot["hands"]["Ann"]
    assert ann["hands"]["Ben"] == [HIDDEN] * 5 and ann["deck"]["top"] == HIDDEN
    assert ann["lanterns"]["Ann"] == ["jade-1", "jade-3"]
    assert all(place["tile"] == HIDDEN for place in ann["garden"].values() if place["face"] == "down")
    # The drawing shows Ann's hand, named, and no other.
    assert "Ann's hand" in (checkpoint.svg or "") and "Ben's hand" not in (checkpoint.svg or "")
    assert game.observer.view(game.new_state(["Ann", "Ben"], 1), PUBLIC)["hands"]["Ann"] == [HIDDEN] * 5


def test_lantern_moths_shows_every_lantern_once_the_game_is_scored() -> None:
    result = replayed("lantern-moths", example("lantern-moths", "lm-scoring"))
    final = result.checkpoints["final"]
    assert final.seat == PUBLIC and final.view is not None
    assert final.view["lanterns"] == final.snapshot["lanterns"] and final.view["scores"] == final.snapshot["scores"]


def test_lantern_moths_draws_a_seats_hand_and_the_other_lanterns_face_down() -> None:
    game = game_of("lantern-moths")
    state = game.state_from_description({"garden": {"b2": "amber", "a2": "grey"},
                                         "hands": {"Ann": ["rose-3"], "Ben": ["jade-1"]},
                                         "lanterns": {"Ann": ["amber-3"], "Ben": ["violet-2", "violet-3"]}},
                                        ["Ann", "Ben"], 0)
    ann, public, everything = (game.render_svg(state, None, seat) for seat in ("Ann", PUBLIC, None))
    assert "Ann's hand" in ann and "'s hand" not in public and "'s hand" not in everything
    points = [part.split(">")[-1] for part in ann.split("</text>") if 'text-anchor="end" font-weight="bold"' in part]
    assert points[-2:] == ["3", "?"]  # Ann's own lantern counts 3; Ben's is face down
    assert "points: Ann 3, Ben unknown." in ann and "points: Ann 3, Ben 5." in everything
    assert game.observer.result_view(state, "Ann")["scores"]["Ben"] == {  # type: ignore[union-attr]
        "points": HIDDEN, "moth_points": HIDDEN, "sets": HIDDEN, "set_bonus": HIDDEN, "moths": 2, "ghosts": HIDDEN}


def test_hide_keeps_a_lists_length_and_a_mappings_keys() -> None:
    assert BaseObserver.hide(["a", "b"]) == [HIDDEN, HIDDEN]
    assert BaseObserver.hide({"black": 4, "yellow": 4}) == {"black": HIDDEN, "yellow": HIDDEN}
    assert BaseObserver.hide(7) == HIDDEN
    assert BaseObserver.others(["Ann", "Ben"], "Ann") == ["Ben"]
    assert BaseObserver.others(["Ann", "Ben"], PUBLIC) == ["Ann", "Ben"]


@pytest.mark.parametrize(("seen", "under"), [("top", [HIDDEN]), ("all", ["rose-2"])])
def test_lantern_moths_discard_pile_is_seen_as_the_component_data_says(seen: str, under: list[str]) -> None:
    check = check_of("lantern-moths")
    components = {**check.book.components, "deck": {**check.book.components["deck"],
                                                     "discard_pile": {"seen": seen}}}
    game = check.engine.make_game(components)
    state = game.state_from_description({"garden": {"b2": "amber"}, "hands": {"Ann": [], "Ben": []},
                                         "discard": ["rose-1", "rose-2"]}, ["Ann", "Ben"], 0)
    pile = game.observer.view(state, "Ann")["discard"]
    assert pile["top"] == "rose-1" and pile["cards"] == ["rose-1", *under]  # a described pile lists its top first
    assert ("discard pile" in game.observer.hidden) == (seen == "top")


def test_last_lantern_hides_a_choice_from_the_others_until_the_reveal() -> None:
    game = game_of("last-lantern")
    state = game.new_state(["Milo", "Howard", "Coco"], 4)
    game.apply(state, game.parse_action(state, {"do": "draw"}))
    game.apply(state, game.parse_action(state, {"player": "Milo", "do": "choose", "location": "snail"}))
    observer = game.observer
    assert observer.view(state, "Milo")["players"]["Milo"]["choice"] == "snail"
    assert observer.view(state, "Howard")["players"]["Milo"]["choice"] == HIDDEN
    assert observer.view(state, PUBLIC)["chosen"] == ["Milo"]  # that he has chosen shows
    assert "hidden choice: snail" in game.render_svg(state, None, "Milo")
    assert "snail" not in game.render_svg(state, None, "Howard").split("Beside the locations")[0].split("<desc>")[0]
    event = {"kind": "chose", "rule": "ll.fog.choose", "player": "Milo", "location": "snail"}
    assert observer.event_view(event, "Howard")["location"] == HIDDEN  # type: ignore[attr-defined]
    assert observer.event_view(event, "Milo")["location"] == "snail"  # type: ignore[attr-defined]
    for where in ("rabbit", "owl"):
        game.apply(state, game.parse_action(state, {"player": {"rabbit": "Howard", "owl": "Coco"}[where],
                                                    "do": "choose", "location": where}))
    assert observer.view(state, "Howard")["players"]["Milo"]["choice"] == "snail"  # revealed


@pytest.mark.parametrize(("seen", "bag"), [("counted", "Bag: 4 black, 4 yellow"), ("hidden", "Bag: 8 Fireflies")])
def test_last_lantern_shows_the_firefly_bag_as_the_component_data_says(seen: str, bag: str) -> None:
    check = check_of("last-lantern")
    fireflies = {**check.book.components["fireflies"], "bag": {"seen": seen}}
    game = check.engine.make_game({**check.book.components, "fireflies": fireflies})
    state = game.new_state(["Milo", "Howard"], 2)
    assert bag in game.render_svg(state, None, "Milo")
    assert "Bag: 4 black, 4 yellow" in game.render_svg(state)  # the designer's whole state
    view = game.observer.view(state, "Milo")["bag"]
    assert view == ({"black": 4, "yellow": 4} if seen == "counted" else {"black": HIDDEN, "yellow": HIDDEN})


# --- Kuhn poker against OpenSpiel -------------------------------------------------------------------------

# OpenSpiel's kuhn_poker for every deal (its cards 0, 1, 2: Jack, Queen, King; player 0's card first) and every
# betting that ends a hand: Returns() and InformationStateString(0), (1) at the end, as pyspiel 2.0.2 computes them.
OPENSPIEL_KUHN = {
    ((0, 1), "pp"): ((-1, 1), "0pp", "1pp"), ((0, 1), "pbp"): ((-1, 1), "0pbp", "1pbp"),
    ((0, 1), "pbb"): ((-2, 2), "0pbb", "1pbb"), ((0, 1), "bp"): ((1, -1), "0bp", "1bp"),
    ((0, 1), "bb"): ((-2, 2), "0bb", "1bb"), ((0, 2), "pp"): ((-1, 1), "0pp", "2pp"),
    ((0, 2), "pbp"): ((-1, 1), "0pbp", "2pbp"), ((0, 2), "pbb"): ((-2, 2), "0pbb", "2pbb"),
    ((0, 2), "bp"): ((1, -1), "0bp", "2bp"), ((0, 2), "bb"): ((-2, 2), "0bb", "2bb"),
    ((1, 0), "pp"): ((1, -1), "1pp", "0pp"), ((1, 0), "pbp"): ((-1, 1), "1pbp", "0pbp"),
    ((1, 0), "pbb"): ((2, -2), "1pbb", "0pbb"), ((1, 0), "bp"): ((1, -1), "1bp", "0bp"),
    ((1, 0), "bb"): ((2, -2), "1bb", "0bb"), ((1, 2), "pp"): ((-1, 1), "1pp", "2pp"),
    ((1, 2), "pbp"): ((-1, 1), "1pbp", "2pbp"), ((1, 2), "pbb"): ((-2, 2), "1pbb", "2pbb"),
    ((1, 2), "bp"): ((1, -1), "1bp", "2bp"), ((1, 2), "bb"): ((-2, 2), "1bb", "2bb"),
    ((2, 0), "pp"): ((1, -1), "2pp", "0pp"), ((2, 0), "pbp"): ((-1, 1), "2pbp", "0pbp"),
    ((2, 0), "pbb"): ((2, -2), "2pbb", "0pbb"), ((2, 0), "bp"): ((1, -1), "2bp", "0bp"),
    ((2, 0), "bb"): ((2, -2), "2bb", "0bb"), ((2, 1), "pp"): ((1, -1), "2pp", "1pp"),
    ((2, 1), "pbp"): ((-1, 1), "2pbp", "1pbp"), ((2, 1), "pbb"): ((2, -2), "2pbb", "1pbb"),
    ((2, 1), "bp"): ((1, -1), "2bp", "1bp"), ((2, 1), "bb"): ((2, -2), "2bb", "1bb"),
}


@pytest.mark.parametrize(("deal", "betting"), sorted(OPENSPIEL_KUHN))
def test_kuhn_poker_agrees_with_openspiel_on_every_hand(deal: tuple[int, int], betting: str) -> None:
    game = game_of("kuhn-poker")
    cards = ["Jack", "Queen", "King"]
    state = game.new_state(["Ann", "Ben"], 0, [cards[deal[0]], cards[deal[1]]])
    for letter in betting:
        assert len(game.legal_actions(state)) == 2  # OpenSpiel's LegalActions() at every decision
        game.apply(state, game.parse_action(state, {"do": "pass" if letter == "p" else "bet"}))
    returns, ann, ben = OPENSPIEL_KUHN[(deal, betting)]
    assert game.is_terminal(state) and game.legal_actions(state) == []
    assert tuple(game.result(state)["returns"]) == returns
    assert (game.observer.information_state(state, "Ann"), game.observer.information_state(state, "Ben")) == (ann, ben)


def test_a_kuhn_hand_is_described_by_its_cards_and_betting() -> None:
    game = game_of("kuhn-poker")
    state = game.state_from_description({"cards": {"Ann": "Queen", "Ben": "King"}, "bets": "pb"}, ["Ann", "Ben"], 0)
    assert game.snapshot(state)["current"] == "Ann" and game.snapshot(state)["set_aside"] == "Jack"
    assert game.observer.information_state(state, "Ann") == "1pb" and len(game.legal_actions(state)) == 2
    for description, path in [({"cards": {"Ann": "Queen", "Ben": "Queen"}}, "start.state.cards"),
                              ({"cards": {"Ann": "Queen", "Ben": "King"}, "bets": "px"}, "start.state.bets"),
                              ({"cards": {"Ann": "Queen", "Ben": "King"}, "bets": "ppb"}, "start.state.bets")]:
        with pytest.raises(DescriptionError) as refused:
            game.state_from_description(description, ["Ann", "Ben"], 0)
        assert refused.value.path == path


def test_the_kuhn_playthrough_matches_openspiels_record_at_every_step() -> None:
    result = replayed("kuhn-poker", example("kuhn-poker", "kp-openspiel-playthrough"))
    assert result.ok, result.message
    rows = {name: (cp.snapshot["legal_actions"], cp.snapshot["information_state"], cp.snapshot["returns"])
            for name, cp in result.checkpoints.items()}
    assert rows == {  # OpenSpiel's states 2, 3 and 4: LegalActions(), InformationStateString(0), (1), Returns()
        "state-2": (2, {"Ann": "1", "Ben": "2"}, {"Ann": 0, "Ben": 0}),
        "state-3": (2, {"Ann": "1p", "Ben": "2p"}, {"Ann": 0, "Ben": 0}),
        "state-4": (0, {"Ann": "1pp", "Ben": "2pp"}, {"Ann": -1, "Ben": 1})}
    assert result.result["returns"] == [-1, 1]
    assert "King" not in (result.checkpoints["state-2"].svg or "")  # Ann's view: Ben's card face down
    assert "King" in (result.checkpoints["state-4"].svg or "")  # the showdown shows it


def test_the_kuhn_deal_draws_from_what_openspiels_chance_nodes_offer(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenSpiel's states 0 and 1 are the deal's chance nodes: LegalActions() [0, 1, 2] (Deal:0-2), then, after
    Deal:1, [0, 2].  The setup draws the same: from the three cards, then from the Jack and the King."""
    from rulepress.protocol import Chance

    offered: list[list[str]] = []
    draw = Chance.draw_from
    monkeypatch.setattr(Chance, "draw_from", lambda self, population, what="outcome": (
        offered.append(list(population)), draw(self, population, what))[1])
    state = game_of("kuhn-poker").new_state(["Ann", "Ben"], 0, ["Queen", "King"])
    assert offered == [["Jack", "Queen", "King"], ["Jack", "King"]]
    assert state.cards == {"Ann": "Queen", "Ben": "King"} and state.aside == "Jack"


def test_a_folded_card_is_never_printed_for_the_other_seat() -> None:
    result = replayed("kuhn-poker", example("kuhn-poker", "kp-bluff-and-fold"))
    assert result.ok, result.message
    from rulepress.render.markdown import state_narration

    for checkpoint in result.checkpoints.values():
        assert checkpoint.seat == "Ben"
        assert "Jack" not in (checkpoint.svg or "")
        assert "Jack" not in state_narration(result, check_of("kuhn-poker").book, checkpoint.shown)


# --- the gate ---------------------------------------------------------------------------------------------


def test_the_gate_refuses_a_diagram_that_shows_what_its_seat_cannot_see(monkeypatch: pytest.MonkeyPatch) -> None:
    ex = example("kuhn-poker", "kp-openspiel-playthrough")
    assert replayed("kuhn-poker", ex).ok
    _drawing_everything(game_of("kuhn-poker"), monkeypatch)
    result = replayed("kuhn-poker", ex)
    assert result.status == "error"
    # The first diagram published is the step-through's frame of the dealt position (verify/frames.py), before any
    # checkpoint's: the gate refuses it there.
    assert "the starting position: the diagram drawn for Ann changes when only cards" in result.message
    assert "it shows what Ann cannot see" in result.message


def test_the_gate_refuses_a_checkpoint_diagram_that_shows_what_its_seat_cannot_see(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A diagram that leaks only as a checkpoint draws it (with its caption) is refused at that checkpoint."""
    ex = example("kuhn-poker", "kp-openspiel-playthrough")
    game = game_of("kuhn-poker")
    framed = type(game).render_svg

    def leaky(self: Any, state: Any, caption: str | None = None, seat: str | None = None, change: Any = None) -> str:
        return framed(self, state, caption, None if caption is not None else seat, change)

    monkeypatch.setattr(type(game), "render_svg", leaky)
    result = replayed("kuhn-poker", ex)
    assert result.status == "error"
    assert "checkpoint 'state-2': the diagram drawn for Ann changes when only cards" in result.message


def test_the_gate_refuses_a_view_that_shows_what_its_seat_cannot_see(monkeypatch: pytest.MonkeyPatch) -> None:
    observer = game_of("lantern-moths").observer
    monkeypatch.setattr(type(observer), "view", lambda self, state, seat: self.game.snapshot(state))
    result = replayed("lantern-moths", example("lantern-moths", "lm-plant"))
    assert result.status == "error"
    assert "the observer's view for Ann changes when only hands (a hand: its holder only " in result.message
    assert "is dealt again (hands.Ben.0: " in result.message  # the first place the two views differ


@pytest.mark.parametrize(("book", "example_id", "seat", "printed"), [
    ("lantern-moths", "lm-dusk-refill", None, "jade"),  # Ben's cards (the jade moth worth 3), told from the public view
    ("lantern-moths", "lm-dusk-refill", "Ann", "jade"),  # ... and from Ann's
    ("lantern-moths", "lm-draw", None, "violet"),  # a card drawn from the deck (an event)
    ("lantern-moths", "unseen-moth", "Ben", "10"),  # Ann's score counting a moth Ben never saw, before scoring
    ("kuhn-poker", "kp-bluff-and-fold", "Ann", "Queen"),  # Ben's card, told from Ann's seat
])
def test_the_gate_refuses_prose_that_prints_what_its_seat_cannot_see(book: str, example_id: str, seat: str | None,
                                                                     printed: str) -> None:
    ex = unseen_moth() if example_id == "unseen-moth" else example(book, example_id)
    assert replayed(book, ex).ok
    result = replayed(book, dataclasses.replace(ex, seat=seat))
    assert result.status == "error"
    told = "everyone (the public view)" if seat is None else seat
    assert f"it prints '{printed}" in result.message and f"told from {told}, who cannot see it" in result.message


def unseen_moth() -> Any:
    """lm-ghost-moth with a moth in Ann's lantern from the start, which Ben never saw captured: until the game is
    scored he cannot know her points (10: the 7 of the moths her wick took, and 3)."""
    ex = example("lantern-moths", "lm-ghost-moth")
    start = {**ex.start, "state": {**ex.start["state"], "lanterns": {"Ann": ["violet-3"]}}}
    expect = {"round-1-over": {"lanterns.Ann": ["violet-3"]},
              "round-2-over": {"lanterns.Ann": ["amber-3", "ghost", "rose-2", "violet-3"],
                               "scores.Ann": {"points": 10, "moths": 4}}}
    steps = [dataclasses.replace(step, data={**step.data, "expect": {**step.data["expect"], **expect[name]}})
             if (name := step.data.get("checkpoint")) in expect else step for step in ex.steps]
    return dataclasses.replace(ex, start=start, steps=steps)


def test_the_gate_refuses_prose_that_prints_a_hidden_result() -> None:
    ex = unseen_moth()
    text = "Ann has {{ result.scores.Ann.points }} points.\n"
    assert replayed("lantern-moths", dataclasses.replace(ex, text=text)).ok  # told from Ann: her own lantern
    result = replayed("lantern-moths", dataclasses.replace(ex, text=text, seat="Ben"))
    assert result.status == "error" and "it prints '10' (after 'Ann has')" in result.message


def test_prose_may_print_what_its_seat_saw_captured() -> None:
    """Memory: Ben saw Ann's wick take the three moths from b2, so told from his seat the text may say what they are
    worth before the game is scored (decision remembered, question lm.q23)."""
    ex = example("lantern-moths", "lm-ghost-moth")
    text = ex.text + "Ann has {{ result.scores.Ann.points }} points.\n"
    result = replayed("lantern-moths", dataclasses.replace(ex, text=text, seat="Ben"))
    assert result.ok, result.message
    assert result.checkpoints["round-2-over"].told["lanterns"]["Ann"] == ["amber-3", "rose-2", "ghost"]


def test_where_two_views_and_two_texts_first_differ() -> None:
    from rulepress.verify.hidden import first_change, prose_leak

    assert first_change({"a": [1, 2]}, {"a": [1, 2]}) is None
    assert first_change({"a": [1, 2], "b": 3}, {"a": [1, 5], "b": 4}) == "a.1: 2 -> 5"
    assert first_change({"a": 1}, {"a": 1, "b": 2}) == "b: '(none)' -> 2"
    assert first_change({"a": 1, "b": 2}, {"a": 1}) == "b: 2 -> '(gone)'"
    assert first_change([1, 2], [1, 2, 3]) == "value: [1, 2] -> [1, 2, 3]"
    assert prose_leak("Ann holds\nthe Queen.", "Ann holds\nthe Queen.") is None
    assert prose_leak("Ann holds\nthe Queen now.", "Ann holds\nthe hidden now.") == (
        1, "'Queen' (after 'Ann holds the'), where the seat's view has 'hidden'")
    assert prose_leak("Ben wins", "Ben wins 2") == (0, "'(the end)' (after 'Ben wins'), where the seat's view has '2'")


def test_prose_that_works_with_a_hidden_value_is_refused() -> None:
    ex = unseen_moth()
    points = "cp['round-2-over'].scores.Ann.points"
    text = ex.text.replace(f"{{{{ {points} }}}}", f"{{{{ {points} + 1 }}}}")
    assert text != ex.text
    result = replayed("lantern-moths", dataclasses.replace(ex, seat="Ben", text=text))
    assert result.status == "error" and "it prints what Ben cannot see" in result.message


def test_a_seat_needs_an_engine_with_an_observer() -> None:
    ex = example("lantern", "ln-campfire")
    result = replayed("lantern", dataclasses.replace(ex, seat=ex.players[0]))
    assert result.status == "error"
    assert "'as:' tells the example from a seat, but the lantern engine has no observer" in result.message


@pytest.mark.parametrize("key", ["views.Ann.grid", "public_view.grid", "information_state.Ann"])
def test_views_need_an_engine_with_an_observer(key: str) -> None:
    ex = example("tic-tac-toe", "ttt-taken-square")
    steps = [dataclasses.replace(step, data={**step.data, "expect": {key: "x"}}) if step.kind == "checkpoint"
             else step for step in ex.steps]
    result = replayed("tic-tac-toe", dataclasses.replace(ex, steps=steps))
    assert result.status == "error" and "engine has no observer: nothing is hidden" in result.message


class BareObserver:
    """An observer on the bare protocol (``hidden``, ``view``, ``resample``): no information states."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.hidden = inner, inner.hidden

    def view(self, state: Any, seat: str) -> dict[str, Any]:
        return self.inner.view(state, seat)

    def resample(self, state: Any, seat: str, part: str, rng: random.Random) -> Any:
        return self.inner.resample(state, seat, part, rng)


def test_information_states_need_an_observer_that_says_them(monkeypatch: pytest.MonkeyPatch) -> None:
    ex = example("lantern-moths", "lm-draw")
    steps = [dataclasses.replace(step, data={**step.data, "expect": {"information_state.Ann": "x"}})
             if step.kind == "checkpoint" else step for step in ex.steps]
    game = game_of("lantern-moths")
    assert replayed("lantern-moths", dataclasses.replace(ex, steps=steps)).status == "failed"  # the base's: not 'x'
    monkeypatch.setattr(game, "observer", BareObserver(game.observer))
    result = replayed("lantern-moths", dataclasses.replace(ex, steps=steps))
    assert result.status == "error" and "observer has no information_state(state, seat)" in result.message


def test_a_checkpoint_checks_an_information_set() -> None:
    ex = example("kuhn-poker", "kp-check-then-call")
    steps = [dataclasses.replace(step, data={**step.data, "expect": {"views.Ben.cards.Ann": "Queen"}})
             if step.data.get("checkpoint") == "ann-again" else step for step in ex.steps]
    result = replayed("kuhn-poker", dataclasses.replace(ex, steps=steps))
    assert result.status == "failed"
    assert "views.Ben.cards.Ann expected 'Queen', got 'hidden'" in result.message


@pytest.mark.parametrize(("yaml_text", "said"), [
    ("as: Zed\n", "the example is told as 'Zed', who is not one of its players (Ann, Ben)"),
    ("", "checkpoint 'state-2's diagram is told as 'Cat', who is not one of its players"),
])
def test_a_seat_is_one_of_the_examples_players(tmp_path: Path, yaml_text: str, said: str) -> None:
    source = (KUHN / "examples" / "kuhn-poker" / "kp-openspiel-playthrough.yaml").read_text()
    source = source.replace("as: Ann               #", f"{yaml_text}#", 1)
    if not yaml_text:
        source = source.replace("as Ann sees the table: her Queen, Ben's card face down\", as: Ann}",
                                "as Ann sees the table: her Queen, Ben's card face down\", as: Cat}")
    folder = tmp_path / "examples" / "kuhn-poker"
    folder.mkdir(parents=True)
    path = folder / "kp-openspiel-playthrough.yaml"
    path.write_text(source)
    book = dataclasses.replace(check_of("kuhn-poker").book, root=tmp_path)
    with pytest.raises(SourceError, match=re.escape(said)):
        load_example(path, book)


def test_a_diagram_mapping_is_schema_checked(tmp_path: Path) -> None:
    source = (KUHN / "examples" / "kuhn-poker" / "kp-check-then-call.yaml").read_text()
    source = source.replace("diagram: The call brings", "diagram: {captoin: x}\n    note: The call brings")
    folder = tmp_path / "examples" / "kuhn-poker"
    folder.mkdir(parents=True)
    (folder / "kp-check-then-call.yaml").write_text(source)
    book = dataclasses.replace(check_of("kuhn-poker").book, root=tmp_path)
    with pytest.raises(SourceError, match="unknown key 'captoin' .*did you mean 'caption'"):
        load_example(folder / "kp-check-then-call.yaml", book)


def test_a_diagram_told_from_a_seat_needs_no_caption() -> None:
    ex = example("kuhn-poker", "kp-check-then-call")
    steps = [dataclasses.replace(step, data={**step.data, "diagram": {"as": "Ben"}}) if step.kind == "checkpoint"
             else step for step in ex.steps]
    result = replayed("kuhn-poker", dataclasses.replace(ex, steps=steps))
    assert result.ok, result.message
    drawn = result.checkpoints["ann-again"]
    assert drawn.caption is None and drawn.seat == "Ben" and drawn.view is not None
    assert "King" in (drawn.svg or "") and "Queen" not in (drawn.svg or "")  # Ben's card up, Ann's face down


def test_the_alternative_text_narrates_the_diagrams_view() -> None:
    from rulepress.render.markdown import Linker, example_markdown

    result = replayed("kuhn-poker", example("kuhn-poker", "kp-openspiel-playthrough"))
    link = Linker(rule=lambda r: f"#{r}", example=lambda e: f"#{e}", diagram=lambda e, c: f"{e}-{c}.svg",
                  glossary=lambda: "#g")
    page = example_markdown(result, check_of("kuhn-poker").book, link)
    assert "![Ann holds the Queen; Ben&#x27;s card is face down." in page
    assert "Ann holds the Queen; Ben holds the King" in page  # after the showdown


def test_the_base_draws_everything_for_a_game_without_an_observer() -> None:
    game = game_of("tic-tac-toe")
    state = game.new_state(["Ann", "Ben"], 0)
    assert isinstance(game, BaseGame) and game.observer is None
    assert game.render_svg(state, None, "Ann") == game.render_svg(state) == game.render_svg(state, None, PUBLIC)


# --- rulepress explain --as ---------------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_as_a_seat_shows_its_view_its_string_and_only_its_actions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--root", str(KUHN), "explain", "kuhn-poker", "kp-bluff-and-fold", "--step", "4",
                       "--as", "Ben")
    assert code == 0
    assert "as Ben sees it" in out and "Ann's card is face down; Ben holds the Queen." in out
    assert "Ann: hidden" in out and "Jack" not in out
    assert "Information state (Ben): '1b'" in out and "Ben's legal actions (2):" in out
    code, out, _ = run(capsys, "--root", str(KUHN), "explain", "kuhn-poker", "kp-bluff-and-fold", "--step", "4",
                       "--as", "Ann")
    assert code == 0 and "Ann's legal actions: none (other players' actions are not shown)" in out
    assert "Ann: Jack" in out and "Ben: hidden" in out
    code, out, _ = run(capsys, "--root", str(KUHN), "explain", "kuhn-poker", "kp-bluff-and-fold", "--step", "4")
    assert code == 0 and "Ann: Jack" in out and "Ben: Queen" in out  # the designer's whole state


def test_explain_as_a_seat_keeps_a_hidden_choice_hidden(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "last-lantern", "ll-seed-voices-collision", "--step", "7", "--as", "Howard")
    assert code == 0 and "choice: hidden" in out and "choice: snail" not in out
    assert "Howard's legal actions (3):" in out and "Coco chooses" not in out
    code, out, _ = run(capsys, "explain", "last-lantern", "ll-seed-voices-collision", "--step", "7", "--as", "Milo")
    assert code == 0 and "choice: snail" in out
    code, out, _ = run(capsys, "explain", "last-lantern", "ll-seed-voices-collision", "--step", "2", "--as", "Milo")
    assert "Milo's legal actions (1):" in out and "{do: draw}" in out  # an action nobody owns is everyone's


@pytest.mark.parametrize(("root", "args", "said"), [
    (KUHN, ["kuhn-poker", "kp-bluff-and-fold", "--as", "Cat"], "--as Cat: not a player of kp-bluff-and-fold"),
    (ROOT, ["lantern", "ln-campfire", "--as", "Adventurer"], "the lantern engine has no observer"),
])
def test_explain_as_refuses_what_it_cannot_show(capsys: pytest.CaptureFixture[str], root: Path, args: list[str],
                                                said: str) -> None:
    code, _, err = run(capsys, "--root", str(root), "explain", *args)
    assert code == 1 and said in err and len(err.strip().splitlines()) == 1


# --- the sample builds -------------------------------------------------------------------------------------


def test_the_kuhn_sample_builds_its_site_and_pdfs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """samples/kuhn-poker, as it is in the repository, through the command line a designer uses; the diagrams its
    site publishes for Ben's seat never show Ann's folded Jack."""
    import shutil

    project = shutil.copytree(KUHN, tmp_path / "kuhn-poker", ignore=shutil.ignore_patterns("site", ".rulepress-*"))
    code, _, err = run(capsys, "--root", str(project), "build")
    assert code == 0, err
    assert sorted(path.name for path in (project / "site" / "pdf").glob("*.pdf")) == [
        "kuhn-poker-designer.pdf", "kuhn-poker-digital.pdf", "kuhn-poker.pdf"]
    site = project / "site" / "kuhn-poker"
    assert "Kuhn Poker" in (site / "index.html").read_text()
    folded = sorted((site / "diagrams").glob("kp-bluff-and-fold--*.svg"))
    assert [path.name for path in folded] == ["kp-bluff-and-fold--facing-a-bet.svg", "kp-bluff-and-fold--folded.svg"]
    assert all("Jack" not in path.read_text() for path in folded)
    code, out, _ = run(capsys, "--root", str(project), "preflight")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == ["ok"] * 3


def test_verify_refuses_a_sample_whose_prose_shows_a_hidden_card(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    project = shutil.copytree(KUHN, tmp_path / "kuhn-poker", ignore=shutil.ignore_patterns("site", ".rulepress-*"))
    path = project / "examples" / "kuhn-poker" / "kp-bluff-and-fold.yaml"
    path.write_text(path.read_text().replace("Ann bets a chip.", "Ann bets a chip with the {{ final.cards.Ann }}."))
    code, out, _ = run(capsys, "--root", str(project), "verify")
    assert code == 1
    assert "kp-bluff-and-fold.yaml): text (line 37): it prints 'Jack.'" in out


def test_a_checkpoint_asks_each_seat_once_and_gives_each_use_its_own_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine guide's promise: the gate asks for a seat's view once per checkpoint, and the told view (which the
    gate adds to) and the diagram's view are copies of that one answer."""
    ex = example("kuhn-poker", "kp-openspiel-playthrough")
    observer = game_of("kuhn-poker").observer
    seen = type(observer).view
    asked: list[str] = []
    monkeypatch.setattr(type(observer), "view", lambda self, state, seat: asked.append(seat) or seen(self, state, seat))
    checkpoint = replay_module._Replay.checkpoint
    per_checkpoint: dict[str, list[str]] = {}

    def counted(self: Any, step: Any, *args: Any) -> Any:
        before = len(asked)
        made = checkpoint(self, step, *args)
        per_checkpoint[made.name] = asked[before:]
        return made

    monkeypatch.setattr(replay_module._Replay, "checkpoint", counted)
    result = replayed("kuhn-poker", ex)
    assert result.ok, result.message
    # expect asks for every seat's view (views.*) and the public one (public_view) at state-2; the told view and the
    # diagram's (Ann's) are the same answers again
    assert per_checkpoint == {"state-2": ["Ann", "Ben", ""], "state-3": ["Ann", "Ben"], "state-4": ["Ann", "Ben"]}
    drawn = [c for c in result.checkpoints.values() if c.view is not None]
    assert [c.name for c in drawn] == ["state-2", "state-4"]
    for made in drawn:  # told from Ann, drawn for Ann: one answer, two copies
        assert made.seat == "Ann" and made.told is not None and made.view is not None
        assert {key: made.told[key] for key in made.view} == made.view  # the told view has expect's additions
        assert set(made.told) - set(made.view) == {"views", "public_view", "information_state", "legal_actions"} & set(
            made.snapshot)
        made.told["cards"] = "changed"
        assert made.view["cards"] != "changed"
