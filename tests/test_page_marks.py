"""Two of the page checks as tables: the marks a player's edition must not print (pagechecks.player_marks, one
finding per mark a page prints, with its context) and the layout comparison of two editions' pages
(pagechecks._unmatched: the boxes one page has nowhere on the other, and the other's left over)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from rulepress.publish.pagechecks import MM, TOLERANCE, _unmatched, player_marks, player_marks_for
from rulepress.publish.preflight import Finding


def _read(*texts: str) -> Any:
    pages = [SimpleNamespace(number=number, head="", text=text, foot="") for number, text in enumerate(texts, 1)]
    return SimpleNamespace(name="book-player.pdf", pages=pages)


def _said(what: str, context: str) -> str:
    return f"rule ID '{what}' in a player's edition (…{context}…): it belongs in the designer edition"


@pytest.mark.parametrize(("texts", "findings"), [
    (("Plant a moth on a face-up tile.",), []),
    (("Plant a moth (lm.turn.plant) on a face-up tile, as lm.turn.plant says.",),
     [Finding("book-player.pdf", 1, "page text",
              _said("lm.turn.plant", "Plant a moth (lm.turn.plant) on a face-up tile, as lm.tur"))]),  # 30 around
    (("See lm.turn.plant.", "Nothing here.", "And lm.night.end, then lm.turn.plant."),
     [Finding("book-player.pdf", 1, "page text", _said("lm.turn.plant", "See lm.turn.plant.")),
      Finding("book-player.pdf", 3, "page text", _said("lm.night.end", "And lm.night.end, then lm.turn.plant.")),
      Finding("book-player.pdf", 3, "page text", _said("lm.turn.plant", "And lm.night.end, then lm.turn.plant."))]),
    (("Another book's ll.fog.choose is words here; a card's ID like amber-3 is not.",),
     [Finding("book-player.pdf", 1, "page text", "engine ID 'amber-3' in a player's edition (…words here; a card's "
              "ID like amber-3 is not.…): it belongs in the designer edition")]),
], ids=["clean", "one-mark-twice-on-a-page", "marks-on-two-pages", "only-this-books-rule-ids"])
def test_a_player_edition_page_printing_a_mark_is_found_once_per_mark(texts: tuple[str, ...],
                                                                     findings: list[Finding]) -> None:
    book = SimpleNamespace(prefix="lm")
    assert player_marks(_read(*texts), player_marks_for(book)) == findings  # type: ignore[arg-type]


def _box(x0: float, y0: float, kind: str = "text") -> tuple[str, float, float, float, float]:
    return (kind, x0 * MM, y0 * MM, (x0 + 20) * MM, (y0 + 5) * MM)


NUDGE = TOLERANCE / 2  # points: within what two layouts may differ by


@pytest.mark.parametrize(("ours", "theirs", "misplaced", "left"), [
    ((_box(0, 0), _box(0, 10)), (_box(0, 0), _box(0, 10)), [], 0),
    ((_box(0, 10), _box(0, 0)), (_box(0, 0), _box(0, 10)), [], 0),  # the same boxes in another order
    ((_box(0, 0),), ((_box(0, 0)[0], *(v + NUDGE for v in _box(0, 0)[1:])), _box(0, 40)), [], 1),
    ((_box(0, 0), _box(0, 10)), (_box(0, 0),), [_box(0, 10)], 0),
    ((_box(0, 0), _box(5, 10)), (_box(0, 0), _box(6, 10)), [_box(5, 10)], 1),
    ((_box(0, 0, "image"),), (_box(0, 0, "text"),), [_box(0, 0, "image")], 1),
], ids=["same", "reordered", "nudged-and-one-left-over", "one-missing", "one-moved", "another-kind"])
def test_two_pages_layouts_are_compared_box_by_box(ours: Any, theirs: Any, misplaced: list[Any], left: int) -> None:
    assert _unmatched(tuple(sorted(ours)), tuple(sorted(theirs))) == (misplaced, left)
