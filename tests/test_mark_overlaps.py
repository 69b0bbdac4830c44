"""The diagrams' marks keep off the drawing's text and off each other (issue 27): the gate measures every mark
(rulepress/verify/overlaps.py) and refuses one over a label, naming the book, the example's file and line, the
diagram, the language and both labels; the base class places its marks clear of the drawing's text
(rulepress/marks.py, rulepress/placing.py), so every bundled diagram, in every language and step-through frame, passes.

Seen in the print editions before: Lantern p10 ("2–5, 9, 10" over "No dice showing", numbers over each other by
"Counterattack", "9" over "Experience"), Lantern Moths p14 (numbers over "Deck", an arrow through "Lantern (captured
moths)"), Last Lantern's "Round 2" line under an outline of the "Bag" line."""

from __future__ import annotations

import xml.etree.ElementTree as ET  # noqa: N817 - the usual name
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from rulepress import i18n
from rulepress.basegame import BaseGame, Figure
from rulepress.change import Change, Difference, Movement, StepChange, mark_words
from rulepress.marks import Box, Marks, draw_marks
from rulepress.placing import labels_of
from rulepress.svgboxes import read
from rulepress.verify import diagram, overlaps
from rulepress.verify.gate import Report, load_checked_book
from rulepress.verify.replay import replay

from .conftest import ROOT

HEAD = ('<svg xmlns="http://www.w3.org/2000/svg" width="480" height="120" viewBox="0 0 480 120">'
        '<rect width="480" height="120" fill="#ffffff"/>')
HOW = ("a mark keeps clear of every label: rulepress/marks.py places its marks so (BaseGame.mark passes it the "
       "drawing's labels); an engine's own mark() must too")
EXPERIENCE = '<text x="12" y="30" font-size="11" font-weight="bold">Experience</text>'


def number(x: float, y: float, step: int, kind: str = "rp-number rp-changed") -> str:
    """A step's number on its disc, as rulepress/marks.py draws it."""
    return (f'<g class="rp-mark {kind}" data-steps="{step}"><circle cx="{x}" cy="{y}" r="8" fill="#e84226"/>'
            f'<text x="{x}" y="{y + 3.6}" font-size="10" text-anchor="middle" font-weight="bold">{step}</text></g>')


def arrow(d: str, step: int) -> str:
    return (f'<g class="rp-mark rp-moved" data-steps="{step}"><path d="{d}" fill="none" stroke="#ffffff" '
            f'stroke-width="5.5"/><path d="{d}" fill="none" stroke="#e84226" stroke-width="2.6"/></g>')


BAD = [
    ("a mark over a label", "lantern", "en", EXPERIENCE + number(30, 26, 9),
     "has a mark over the drawing's text (book lantern, language en): the step number '9' (its disc, x 22–38, "
     "y 18–34) covers the drawing's label 'Experience' (x 12–80, y 22–33); " + HOW),
    ("two marks over each other", "lantern", "en", number(200, 60, 2) + number(206, 62, 3),
     "has a mark over another mark's text (book lantern, language en): the step number '3' (its disc, x 198–214, "
     "y 54–70) covers the step number '2' (x 197–203, y 56–66); " + HOW),
    ("an arrow through a label", "lantern-moths", "en",
     '<text x="200" y="64" font-size="10">Lantern (captured moths)</text>' + arrow("M150 20Q240 50 330 100", 4),
     "has a mark over the drawing's text (book lantern-moths, language en): the arrow of step 4 (its line, "
     "x 150–330, y 20–100) covers the drawing's label 'Lantern (captured moths)' (x 200–329, y 56–66); " + HOW),
    ("a French label under a refusal's label", "last-lantern", "fr",
     '<text x="8" y="22" font-size="10" font-weight="bold">Chemin perdu</text><g class="rp-mark rp-refused" '
     'data-steps="1 3"><rect x="50" y="12" width="140" height="18" rx="9" fill="#ffffff"/>'
     '<text x="60" y="25" font-size="10">interdit : règle 4.4</text></g>',
     "has a mark over the drawing's text (book last-lantern, language fr): the refusal label 'interdit : règle "
     "4.4' (its box, x 50–190, y 12–30) covers the drawing's label 'Chemin perdu' (x 8–87, y 14–24); " + HOW),
    ("an outline through the line above", "last-lantern", "en",
     '<text x="8" y="332" font-size="10" font-weight="bold">Bag: 4 black</text>'
     '<text x="8" y="345" font-size="10">Round 2</text><g class="rp-mark rp-changed" data-steps="2">'
     '<rect x="5" y="331" width="60" height="18" fill="none" stroke="#e84226" stroke-width="2.6"/></g>',
     "has a mark over the drawing's text (book last-lantern, language en): the outline of step 2 (its line, x 5–65, "
     "y 331–349) covers the drawing's label 'Bag: 4 black' (x 8–77, y 324–334); " + HOW),
]


@pytest.mark.parametrize(("case", "book", "lang", "body", "message"), BAD, ids=[case for case, *_ in BAD])
def test_a_mark_over_a_label_is_refused_with_both_labels(case: str, book: str, lang: str, body: str,
                                                          message: str) -> None:
    svg = HEAD.replace('height="120" viewBox="0 0 480 120"', 'height="360" viewBox="0 0 480 360"') + body + "</svg>"
    assert diagram.problem(svg, book=book, lang=lang) == message


def test_marks_clear_of_the_text_pass_and_a_line_may_run_under_a_later_number() -> None:
    """Numbers are drawn over the lines (rulepress/marks.py's layers): an arrow under its own number covers
    nothing; a number beside a label, and an arrow clear of it, pass."""
    clear = EXPERIENCE + number(100, 26, 9) + arrow("M150 60L330 60", 4) + number(240, 60, 4, "rp-number rp-moved")
    assert diagram.problem(HEAD + clear + "</svg>", book="lantern", lang="en") is None
    over = arrow("M150 60L330 60", 4) + number(240, 60, 4, "rp-number rp-moved")
    later = number(240, 60, 4, "rp-number rp-moved") + arrow("M150 60L330 60", 4)  # the line drawn over the number
    assert diagram.problem(HEAD + over + "</svg>") is None
    assert "the arrow of step 4 (its line" in str(diagram.problem(HEAD + later + "</svg>"))


# --- the gate: every diagram of an example, in every language, through the base class -------------------------

def _covering(labels: Sequence[Box], step: int) -> Marks:
    """An engine's own marks that put a step's number on the drawing's first label."""
    x, y = labels[0].centre
    return Marks([number(x, y, step)])


def test_the_gate_names_the_example_its_line_the_diagram_and_the_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine's own mark() that covers a label in French only: the gate refuses the French diagram of the
    step-through at the example's step and line, naming the book, the language and both labels."""
    check = load_checked_book(ROOT, "last-lantern")
    example = next(e for e in check.examples if e.id == "ll-first-tile-path")
    game = check.engine.make_game(check.book.components)
    kind = type(game)
    plain = kind.mark

    def mark(self: Any, change: Change, places: Mapping[str, Box], width: float, height: float,
             labels: Sequence[Box] = ()) -> Marks:
        drawn = plain(self, change, places, width, height, labels)
        if i18n.current_language() != "fr" or not change:
            return drawn
        return Marks(drawn.elements + _covering(labels, change.steps[0].number).elements, drawn.extra_height)

    monkeypatch.setattr(kind, "mark", mark)
    result = replay(example, check.book, check.engine)
    step = next(s for s in example.steps if not s.data.get("checkpoint"))
    drawn_by = diagram.drawn_by(game, ROOT)
    assert result.status == "error"
    assert result.message.startswith(
        f"ll-first-tile-path ({example.file}): step {step.index} (line {step.line}): the diagram (fr) of the position "
        f"after step 1 from {drawn_by} has a mark over the drawing's text (book last-lantern, language fr): the step "
        f"number '1' (its disc, "), result.message
    assert "covers the drawing's label '" in result.message and result.message.endswith(
        f"; {HOW} [illustrates {', '.join(check.book.rule_label(r) for r in example.rules)}]")


class _Tiles(BaseGame):
    """Any book's engine on the base class: two tiles, each with its name at its top left corner, a title right
    above the first, and nothing of its own to say about marks."""

    book_id = "tiles"

    def start(self, players: list[str], chance: Any) -> dict[str, Any]:
        return {"tiles": {"a": [], "b": []}}

    def snapshot(self, state: Any) -> dict[str, Any]:
        return state

    def draw(self, state: Any) -> Figure:
        elements = ['<text x="20" y="37" font-size="11" font-weight="bold">Garden row</text>']
        for k, name in enumerate(("a", "b")):
            x = 20 + k * 150
            elements += [f'<rect x="{x}" y="40" width="120" height="60" fill="#ddeeff"/>',
                         f'<text x="{x + 3}" y="52" font-size="10">{name} tile</text>']
        return Figure(elements, height=140, places={"tiles.a": Box(20, 40, 120, 60), "tiles.b": Box(170, 40, 120, 60)})


def test_the_base_class_places_any_engine_s_marks_clear_of_its_text() -> None:
    """Through BaseGame.render_svg: the step's number would sit on "Garden row" at the outline's corner, and the
    arrow from a to b runs clear of the tiles' names; the same marks placed without the drawing's labels (an engine
    whose mark() takes none) cover it, and the gate says so."""
    game = _Tiles({})
    moved = StepChange(2, {"player": "Ann", "do": "move"}, (Difference("tiles.a", removed=("stone",)),
                                                            Difference("tiles.b", added=("stone",))))
    assert moved.movements == (Movement("stone", "tiles.a", "tiles.b"),)
    change = Change("After step 2", (moved,), words=mark_words("en"))
    svg = game.render_svg(game.start(["Ann"], None), None, change=change)
    assert 'class="rp-mark rp-moved"' in svg and diagram.checked(svg, change) is None
    blind = draw_marks(change, game.draw({}).places or {}, 480, 140)  # not told where the text is
    found = overlaps.overlaps(read(ET.fromstring(HEAD + "".join(game.draw({}).elements) + "".join(blind.elements)
                                                  + "</svg>")))
    assert found and found[0].label.text in ("Garden row", "a tile", "b tile")


# --- placement: the marks find room --------------------------------------------------------------------------

def _labels(svg_body: str) -> list[Box]:
    return labels_of([svg_body])


def test_a_number_leaves_its_corner_when_a_label_is_there_and_stays_by_its_outline() -> None:
    place = Box(100, 40, 80, 40)
    labels = _labels('<text x="92" y="38" font-size="11">Deck</text>')
    change = Change("After step 3", (StepChange(3, {}, (Difference("deck", was=5, now=4),)),))
    drawn = draw_marks(change, {"deck": place}, 480, 200, labels=labels)
    svg = HEAD + '<text x="92" y="38" font-size="11">Deck</text>' + "".join(drawn.elements) + "</svg>"
    assert overlaps.overlaps(read(ET.fromstring(svg))) == []
    disc = read(ET.fromstring(svg)).rects[-1]
    assert disc.radius and place.grown(30).holds_point((disc.x + disc.right) / 2, (disc.y + disc.bottom) / 2)


def test_an_arrow_goes_round_a_label_in_its_way() -> None:
    """No single bow from the hand to the tile misses the row of labels between them: the arrow takes a detour
    round their end, and still runs from one place's edge to the other's."""
    labels = _labels("".join(f'<text x="{x}" y="100" font-size="10">face down</text>' for x in range(20, 460, 60)))
    places = {"hand": Box(200, 140, 30, 30), "tile": Box(200, 20, 30, 30)}
    moved = StepChange(1, {}, (Difference("hand", removed=("card",)), Difference("tile", added=("card",))))
    drawn = draw_marks(Change("After step 1", (moved,)), places, 560, 200, labels=labels)
    body = "".join(f'<text x="{x}" y="100" font-size="10">face down</text>' for x in range(20, 460, 60))
    svg = HEAD.replace("480", "560") + body + "".join(drawn.elements) + "</svg>"
    assert 'class="rp-mark rp-moved"' in svg
    assert overlaps.overlaps(read(ET.fromstring(svg))) == []


def test_a_refusal_label_with_no_room_by_its_marks_is_told_under_the_picture() -> None:
    """Text all round the refused move: its label ("1 not allowed: rule 4.4") goes under the picture, numbered as
    on the picture, rather than over a word."""
    rows = "".join(f'<text x="0" y="{y}" font-size="10">{"word " * 20}</text>' for y in range(10, 120, 11))
    labels = _labels(rows)
    refused = StepChange(1, {"player": "Ann", "tile": "b2"}, refused_by="4.4")
    drawn = draw_marks(Change("Step 1, not allowed", (refused,), words=mark_words("en")),
                       {"tiles.b2": Box(200, 30, 40, 40)}, 480, 120, labels=labels)
    svg = "".join(drawn.elements)
    assert drawn.extra_height > 0 and "not allowed: rule 4.4" in svg and 'class="rp-mark rp-refused' in svg
    full = HEAD.replace('height="120" viewBox="0 0 480 120"', f'height="{120 + drawn.extra_height:g}" viewBox="0 0 '
                        f'480 {120 + drawn.extra_height:g}"') + rows + svg + "</svg>"
    assert overlaps.overlaps(read(ET.fromstring(full))) == []


# --- every bundled diagram ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def drawn(bundled: Report) -> list[tuple[str, str]]:
    """Every diagram the three bundled books print or step through, in every language: (where, SVG)."""
    found = []
    for check in bundled.books:
        for result in check.results:
            for name, point in result.checkpoints.items():
                found += [(f"{result.example.id} checkpoint {name} ({lang})", svg)
                          for lang, svg in (point.svgs or {}).items()]
            for frame in result.frames:
                found += [(f"{result.example.id} frame {frame.step} ({lang})", svg) for lang, svg in frame.svgs.items()]
    return found


def test_no_bundled_diagram_has_a_mark_over_a_label(drawn: list[tuple[str, str]]) -> None:
    """The gate passed, and an independent read of every diagram (checkpoints and step-through frames, English and
    French) finds no mark over the drawing's text or over another mark's: placement has not regressed."""
    books = {where.split("-")[0] for where, _ in drawn}
    marked = [(where, svg) for where, svg in drawn if "rp-mark" in svg]
    assert len(marked) > 600 and any(where.endswith("(fr)") for where, _ in marked) and books == {"lm", "ll", "ln"}
    covered = [(where, overlaps.covered(read(ET.fromstring(svg)))) for where, svg in marked]
    assert [found for found in covered if found[1]] == []


@pytest.mark.parametrize(("gap", "drawn"), [(20, 'stroke-width="2.6"/>'), (13, 'stroke-width="2"/>'),
                                             (11, 'stroke-linecap="round"/>')])
def test_an_outline_keeps_off_the_lines_above_and_below_its_place(gap: int, drawn: str) -> None:
    """Last Lantern's "Bag" line over its "Round 2" line: an outline round one line of text keeps its own off the
    lines above and below, closer in and thinner as they come closer, else a bar beside the line (a change bar)."""
    lines = "".join(f'<text x="8" y="{40 + k * gap}" font-size="10">{words}</text>'
                    for k, words in enumerate(("Bag: 4 black, 4 yellow", "Round 2 · journey", "Supply: 19 black")))
    place = Box(6, 40 + gap - 9, 120, 11)
    change = Change("After step 2", (StepChange(2, {}, (Difference("round", was=1, now=2),)),))
    marks = draw_marks(change, {"round": place}, 480, 120, labels=_labels(lines))
    svg = HEAD + lines + "".join(marks.elements) + "</svg>"
    assert drawn in marks.elements[0] and overlaps.overlaps(read(ET.fromstring(svg))) == []
