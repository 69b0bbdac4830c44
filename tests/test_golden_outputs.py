"""What the engines print and draw has not changed unnoticed: tests/golden/<book>.json (see tools/golden.py).

The examples check the rules; this record keeps the rest of an engine's output as it was reviewed: each step's
narration in every language, each diagram, and seeded self-play games (deterministic for a seed).  After an
intended change, review the named examples in the built site and run ``python tools/golden.py``.
"""

from __future__ import annotations

import json

import pytest

from rulepress.load.book import book_ids
from rulepress.verify.gate import Report
from tools.golden import GOLDEN, ROOT, differences, examples_record, self_play_record

from .conftest import checks_of, load_books

_CHECKS, _ = load_books()
BOOKS = book_ids(ROOT)
HINT = "review the change in the built site, then run `python tools/golden.py` to record it"


def _recorded(book: str) -> dict:
    return json.loads((GOLDEN / f"{book}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("book", BOOKS)
def test_examples_narrate_and_draw_as_recorded(book: str, bundled: Report) -> None:
    """The gate's replays (what the site and the PDFs are made from) narrate and draw as recorded."""
    [check] = checks_of(bundled, book).books
    found = differences(_recorded(book)["examples"], examples_record(check), "examples")
    assert not found, f"tests/golden/{book}.json ({HINT}):\n" + "\n".join(found[:30])


@pytest.mark.parametrize("book", BOOKS)
def test_self_play_as_recorded(book: str) -> None:
    found = differences(_recorded(book)["self_play"], self_play_record(_CHECKS[book]), "self_play")
    assert not found, f"tests/golden/{book}.json ({HINT}):\n" + "\n".join(found[:30])


def test_every_bundled_book_has_a_record() -> None:
    assert sorted(path.stem for path in GOLDEN.glob("*.json")) == sorted(BOOKS)


def test_differences_name_each_changed_place() -> None:
    recorded = {"a": {"svg": "1", "steps": [{"text": "x"}, {"text": "y"}]}, "gone": 1}
    now = {"a": {"svg": "2", "steps": [{"text": "x"}, {"text": "z"}]}, "new": 2}
    assert differences(recorded, now) == [
        'a.steps[1].text: "y" -> "z"', 'a.svg: "1" -> "2"', "gone: recorded, now missing", "new: new, not recorded"]
    assert differences(recorded, recorded) == []
    assert differences([1, 2], [1, 2, 3], "list") == ["list: [1, 2] -> [1, 2, 3]"]
