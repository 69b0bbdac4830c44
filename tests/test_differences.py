"""Where two values first differ, as the gate's messages name it: one table for the observer's views
(rulepress.verify.hidden.first_change) and the snapshots of a refused move (rulepress.verify.replay._difference),
and the message of an expected event that never came (replay._match_events)."""

from __future__ import annotations

from typing import Any

import pytest

from rulepress.verify.hidden import first_change, prose_leak
from rulepress.verify.replay import _difference, _match_events, _Mismatch

# before, after, the view's first change, the snapshot's first change
ROWS: list[tuple[str, Any, Any, str | None, str | None]] = [
    ("the same", {"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}, None, None),
    ("a top-level value", 3, 4, "value: 3 -> 4", "value: 3 -> 4"),
    ("a key's value", {"deck": 3}, {"deck": 4}, "deck: 3 -> 4", "deck: 3 -> 4"),
    ("deep in mappings and lists", {"hands": {"Ann": ["rose-1", {"k": 1}]}}, {"hands": {"Ann": ["rose-1", {"k": 2}]}},
     "hands.Ann.1.k: 1 -> 2", "hands.Ann.1.k: 1 -> 2"),
    ("an item of a top-level list", [1, [2, 3]], [1, [2, 4]], "1.1: 3 -> 4", "1.1: 3 -> 4"),
    ("a key added", {"a": 1}, {"a": 1, "b": 2}, "b: '(none)' -> 2", "b: (none) -> 2"),
    ("a key gone", {"a": {"b": 1, "c": 2}}, {"a": {"b": 1}}, "a.c: 2 -> '(gone)'", "a.c: 2 -> (gone)"),
    ("a list of another length", {"a": [1]}, {"a": [1, 2]}, "a: [1] -> [1, 2]", "a: [1] -> [1, 2]"),
    ("a mapping for a list", {"a": [1]}, {"a": {"x": 1}}, "a: [1] -> {'x': 1}", "a: [1] -> {'x': 1}"),
]


@pytest.mark.parametrize(("before", "after", "view"), [(b, a, v) for _, b, a, v, _ in ROWS],
                         ids=[row[0] for row in ROWS])
def test_a_views_first_change_names_its_path(before: Any, after: Any, view: str | None) -> None:
    assert first_change(before, after) == view


@pytest.mark.parametrize(("before", "after", "snapshot"), [(b, a, s) for _, b, a, _, s in ROWS],
                         ids=[row[0] for row in ROWS])
def test_a_snapshots_first_difference_names_its_path(before: Any, after: Any, snapshot: str | None) -> None:
    assert _difference(before, after) == snapshot


@pytest.mark.parametrize(("wanted", "actual", "says"), [
    ([{"kind": "draw"}], [], "here: expected event {'kind': 'draw'} (in order) but the events were: none"),
    ([{"kind": "draw", "card": "rose-1"}], [{"kind": "turn-ends"}, {"kind": "draw", "card": "amber-2"}],
     "here: expected event {'kind': 'draw', 'card': 'rose-1'} (in order) but the events were: turn-ends, draw; "
     "events of that kind: [{'kind': 'draw', 'card': 'amber-2'}]"),
    ([{"kind": "capture"}, {"kind": "draw"}], [{"kind": "draw"}, {"kind": "capture"}],
     "here: expected event {'kind': 'draw'} (in order) but the events were: draw, capture; events of that kind: "
     "[{'kind': 'draw'}]"),
])
def test_an_event_that_never_came_is_named_with_the_events_that_did(wanted: list[Any], actual: list[Any],
                                                                    says: str) -> None:
    with pytest.raises(_Mismatch) as caught:
        _match_events("here", wanted, actual)
    assert str(caught.value) == says


def test_events_in_order_with_others_between_match() -> None:
    _match_events("here", [{"kind": "a"}, {"kind": "c"}], [{"kind": "a"}, {"kind": "b"}, {"kind": "c"}])


@pytest.mark.parametrize(("printed", "seen", "leak"), [
    ("Ann holds 3 cards.", "Ann holds 3 cards.", None),
    ("Ann holds 3 cards.", "Ann holds hidden cards.",
     (0, "'3' (after 'Ann holds'), where the seat's view has 'hidden'")),
    ("One.\nTwo: she drew rose-1 here", "One.\nTwo: she drew hidden here",
     (1, "'rose-1' (after 'One. Two: she drew'), where the seat's view has 'hidden'")),
    ("The deck has 3", "The deck has", (0, "'3' (after 'The deck has'), where the seat's view has '(the end)'")),
    ("The deck", "The deck has 3", (0, "'(the end)' (after 'The deck'), where the seat's view has 'has'")),
    ("a b c d e f", "a b c d e g", (0, "'f' (after 'b c d e'), where the seat's view has 'g'")),
])
def test_prose_printing_what_its_seat_cannot_see_names_the_word(printed: str, seen: str,
                                                                 leak: tuple[int, str] | None) -> None:
    """The leak's line (from 0), the first word that differs, the four words before it, and the seat's word."""
    assert prose_leak(printed, seen) == leak
