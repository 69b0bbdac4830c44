"""Diagrams that show the move (issue 27 B): each diagram states its moment and marks what its steps changed, the gate
reads both back, and refused moves are drawn as refused, never printed as deleted text."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET  # noqa: N817 - the usual name
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulepress.change import Change, Difference, StepChange, differences, mark_words, moment, movements, place_of
from rulepress.marks import Box, attempt_places, draw_marks, ranges
from rulepress.project import find_root
from rulepress.render import markdown as render
from rulepress.verify import diagram
from rulepress.verify.gate import load_checked_book
from rulepress.verify.replay import ExampleResult, replay

ROOT = find_root(Path(__file__).parent)
SVG = "{http://www.w3.org/2000/svg}"


def replayed(book: str, example_id: str) -> ExampleResult:
    check = load_checked_book(ROOT, book)
    example = next(e for e in check.examples if e.id == example_id)
    result = replay(example, check.book, check.engine)
    assert result.ok, result.message
    return result


def marks_of(svg: str) -> list[str]:
    """The kinds of mark a diagram carries, in order (``changed``, ``moved``, ``refused``, ``told``)."""
    root = ET.fromstring(svg)
    return [cls.split()[1].removeprefix("rp-") for e in root.iter()
            if "rp-mark" in (cls := e.get("class") or "").split() and len(cls.split()) > 1]


def title_of(svg: str) -> str:
    found = ET.fromstring(svg).find(f"{SVG}title")
    return "" if found is None else found.text or ""


# --- what a step changed, as data ------------------------------------------------------------------------------

def test_differences_name_each_changed_path_with_what_left_and_came() -> None:
    before = {"hands": {"Ann": ["amber-3", "rose-2"]}, "garden": {"b2": {"moths": []}}, "round": 1, "deck": [1, 2]}
    after = {"hands": {"Ann": ["amber-3"]}, "garden": {"b2": {"moths": ["rose-2"]}}, "round": 1, "deck": [1, 2]}
    found = differences(before, after)
    assert found == [Difference("hands.Ann", removed=("rose-2",)), Difference("garden.b2.moths", added=("rose-2",))]
    [moved] = movements(found)
    assert (moved.item, moved.source, moved.target) == ("rose-2", "hands.Ann", "garden.b2.moths")


def test_differences_of_scalars_entries_and_reordered_lists() -> None:
    assert differences({"a": 1}, {"a": 2}) == [Difference("a", was=1, now=2)]
    assert differences({"t": {}}, {"t": {"T05": {"by": "Milo"}}}) == [Difference("t.T05", added=("T05",))]
    assert differences({"hand": ["b", "a"]}, {"hand": ["a", "b"]}) == [Difference("hand")]  # sorted anew
    assert differences({"x": True}, {"x": 1}) == [Difference("x", was=True, now=1)]  # a yes/no is never a number
    assert differences({"same": [1, {"k": "v"}]}, {"same": [1, {"k": "v"}]}) == []


def test_a_hidden_card_never_moves() -> None:
    found = [Difference("deck.cards", removed=("hidden",)), Difference("hands.Ann", added=("hidden",))]
    assert movements(found) == ()


def test_a_path_belongs_to_its_longest_place() -> None:
    places = {"garden": Box(0, 0, 1, 1), "garden.b2": Box(0, 0, 1, 1), "hands.Ann": Box(0, 0, 1, 1)}
    assert place_of("garden.b2.moths", places) == "garden.b2"
    assert place_of("garden.b20", places) == "garden"  # a dotted prefix, not a prefix of letters
    assert place_of("round", places) is None
    assert attempt_places({"player": "Ann", "do": "plant", "card": "x", "tile": "b2"}, places) == [
        "hands.Ann", "garden.b2"]


def test_moments_in_words() -> None:
    words = mark_words("en")
    assert moment(words, [], False) == "At the start"
    assert moment(words, [], False, setup=True) == "After setup"
    assert moment(words, [3], False) == "After step 3"
    assert moment(words, [1, 2, 3, 4], False) == "After steps 1–4"
    assert moment(words, [1, 2, 3, 4, 5], True) == "Before steps 1–5"
    assert moment(words, [2], False, refused=True) == "Step 2, not allowed"
    assert moment(mark_words("fr"), [3], False) == "Après l'étape 3"
    assert ranges([2, 3, 4, 5, 9]) == "2–5, 9"


def test_the_default_marks_outline_number_arrow_and_refuse() -> None:
    places = {"hands.Ann": Box(10, 200, 100, 40), "garden.b2": Box(200, 40, 90, 90), "garden.b1": Box(300, 40, 90, 90)}
    plant = StepChange(4, {"player": "Ann", "do": "plant", "card": "rose-2", "tile": "b2"},
                       (Difference("hands.Ann", removed=("rose-2",)), Difference("garden.b2.moths", added=("rose-2",))))
    refused = StepChange(2, {"player": "Ann", "do": "plant", "card": "rose-2", "tile": "b1"}, refused_by="4.4")
    nowhere = StepChange(5, {"player": "Ann", "do": "pass"}, (Difference("round", was=1, now=2),), said="Ann passes.")
    drawn = draw_marks(Change("After step 4", (plant, refused, nowhere), words=mark_words("en")), places, 480, 300)
    svg = "".join(drawn.elements)
    assert svg.count('class="rp-mark rp-changed"') == 2 and 'class="rp-mark rp-moved"' in svg  # hand, tile; arrow
    assert svg.count('class="rp-mark rp-refused"') == 2  # the struck-out arrow, and its label
    assert "not allowed: rule 4.4" in svg and "stroke-dasharray" in svg  # dashed and labelled, not colour alone
    assert ">4<" in svg and ">2<" in svg  # each step's number, as the step list numbers it
    assert "Ann passes." not in svg and drawn.extra_height == 0  # other marks show the change: the list tells it
    alone = draw_marks(Change("After step 5", (nowhere,), words=mark_words("en")), places, 480, 300)
    told = "".join(alone.elements)  # nothing else marks it: it is told under the picture, numbered
    assert 'class="rp-mark rp-told"' in told and "Ann passes." in told and ">5<" in told and alone.extra_height > 0


# --- the gate reads each diagram back ----------------------------------------------------------------------------

WITH_TITLE = '<svg xmlns="http://www.w3.org/2000/svg"><title>After step 2</title><g class="rp-mark rp-changed"/></svg>'


def test_a_diagram_must_state_its_moment_and_mark_its_change() -> None:
    change = Change("After step 2", (StepChange(2, {}, (Difference("pile", was=5, now=3),)),))
    assert diagram.unmarked(WITH_TITLE, change) is None
    unmarked = WITH_TITLE.replace(' class="rp-mark rp-changed"', "")
    assert "marks nothing of what step 2 changed or tried (After step 2): no element has class=\"rp-mark\"" in str(
        diagram.unmarked(unmarked, change))
    untitled = WITH_TITLE.replace("<title>After step 2</title>", "")
    assert "does not state its moment: its <title> should read 'After step 2', not ''" in str(
        diagram.unmarked(untitled, change))
    wrong = WITH_TITLE.replace("step 2", "step 7")
    assert "should read 'After step 2', not 'After step 7'" in str(diagram.unmarked(wrong, change))
    quiet = Change("At the start")
    assert diagram.unmarked(unmarked.replace("After step 2", "At the start"), quiet) is None  # nothing to mark


def test_the_gate_refuses_a_drawing_that_marks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    check = load_checked_book(ROOT, "lantern-moths")
    example = next(e for e in check.examples if e.id == "lm-plant")
    monkeypatch.setattr(type(check.engine.make_game(check.book.components)), "mark",
                        lambda self, change, places, width, height: __import__("rulepress.marks").marks.Marks([]))
    result = replay(example, check.book, check.engine)
    assert result.status == "error"
    assert "marks nothing of what step 1 changed or tried (Step 1, not allowed)" in result.message


def test_the_gate_refuses_a_protocol_engine_that_takes_no_change(mini: Path) -> None:
    engine = mini / "engine/mini/__init__.py"
    engine.write_text(engine.read_text().replace(", change: Any = None) -> str:", ") -> str:\n        change = None"))
    check = load_checked_book(mini, "mini")
    result = replay(check.examples[0], check.book, check.engine)
    assert result.status == "error"
    assert "does not state its moment" in result.message and "accept render_svg(..., change=)" in result.message


# --- what the bundled books' diagrams show -----------------------------------------------------------------------

def test_a_diagram_before_the_moves_shows_them_to_come_and_the_refusals_struck_out() -> None:
    result = replayed("lantern-moths", "lm-plant")
    before = result.checkpoints["before"]
    assert before.moment == "Before steps 1–5" and title_of(before.svg or "") == "Before steps 1–5"
    kinds = marks_of(before.svg or "")
    assert kinds.count("moved") == 2  # the rose moth to b2 and the jade moth to a2, from the hand
    assert "refused" in kinds and "changed" in kinds
    assert "not allowed: rule 4.4" in (before.svg or "")
    text = render.example_markdown(result, load_checked_book(ROOT, "lantern-moths").book, _linker())
    assert "<del>" not in text and '<span class="refused">' in text  # a move tried and refused, not deleted text
    assert '<figcaption><span class="moment">Before steps 1–5</span>: Three face-up tiles' in text


def test_moves_refused_from_an_earlier_position_are_left_to_the_step_list() -> None:
    """lm-flip: a1 is refused at step 1 and flipped at step 4; the final diagram does not cross a1 out."""
    result = replayed("lantern-moths", "lm-flip")
    [drawn] = [cp for cp in result.checkpoints.values() if cp.svg]
    assert drawn.moment == "After steps 1–4" and "refused" not in marks_of(drawn.svg or "")


def test_every_step_through_frame_states_its_moment_and_marks_its_step() -> None:
    result = replayed("lantern-moths", "lm-draw")
    moments = [frame.moments["en"] for frame in result.frames]
    assert moments == ["At the start", "Step 1, not allowed", "After step 2", "Step 3, not allowed", "After step 4"]
    for frame in result.frames[1:]:
        kinds = marks_of(frame.svgs["en"])
        assert ("refused" in kinds) == (frame.rejected_by is not None) and kinds
    assert "moved" in marks_of(result.frames[2].svgs["en"])  # the rose moth from the discard pile to the hand


def test_a_caption_says_what_its_one_step_did() -> None:
    check = load_checked_book(ROOT, "lantern-moths")
    result = replayed("lantern-moths", "lm-end-of-round")
    [drawn] = [cp for cp in result.checkpoints.values() if cp.svg]
    assert render.diagram_caption(drawn, "en").startswith("After step 1: ")
    assert check.book.id == "lantern-moths"


def test_last_lantern_draws_each_player_s_status_instead_of_state_lines() -> None:
    result = replayed("last-lantern", "ll-four-players")
    svg = next(cp.svg for cp in result.checkpoints.values() if cp.svg) or ""
    assert "holds no tile" not in svg and "lanterns crossed" not in svg
    assert ">Hand<" in svg and ">Lanterns<" in svg and ">Rabbit<" in svg
    assert "T22" in svg  # a tile in a hand, drawn small with its name


def test_the_french_track_title_ends_before_the_track() -> None:
    """The title is drawn at the smallest size (10 units): its measured width leaves the first box clear."""
    from rulepress.textwidth import text_width

    result = replayed("last-lantern", "ll-first-tile-path")
    svg = result.frames[0].svgs["fr"]
    title = re.search(r'<text x="([\d.]+)" y="([\d.]+)" font-size="10"[^>]*>Chemin perdu</text>', svg)
    assert title is not None
    box = re.search(rf'<rect x="([\d.]+)" y="{float(title.group(2)) - 12:.1f}"', svg)
    assert box is not None
    assert float(title.group(1)) + text_width("Chemin perdu", 10, bold=True) < float(box.group(1))


def _linker() -> render.Linker:
    return render.Linker(rule=lambda r: f"#{r}", example=lambda e: f"#{e}",
                         diagram=lambda e, c: f"file:///diagrams/{render.diagram_name(e, c)}", glossary=lambda: "")




def test_a_band_farther_out_is_made_only_when_the_nearer_ones_hold_no_clear_spot() -> None:
    """first_clear takes the bands of placing.around one at a time: a number with a clear spot on its outline never
    makes the hundreds of spots of the last band; one with none there gets the nearest clear spot farther out."""
    from rulepress.placing import Room, Spot, around, first_clear

    made: list[int] = []

    def bands(room_for: Box) -> Iterator[list[Spot]]:
        for number, band in enumerate(around(room_for, 8, 8, 2)):
            made.append(number)
            yield [Spot(box) for box in band]

    ring = Box(40, 40, 20, 20)
    assert first_clear(Room(200, 200, []), bands(ring)) is not None and made == [0]
    made.clear()
    crowded = Room(200, 200, [Box(0, 0, 200, 72)])  # text over the outline and everything up to 12 units below it
    spot = first_clear(crowded, bands(ring))
    assert spot is not None and spot.box.y >= 72 and made[-1] >= 2 and made == list(range(len(made)))
