"""Every worked example of every book, replayed against its engine: one test per example ID."""

from __future__ import annotations

import pytest

from rulepress.verify.replay import replay

from .conftest import load_books

_CHECKS, _ERRORS = load_books()
_CASES = [(book, example) for book, check in _CHECKS.items() for example in check.examples]


@pytest.mark.parametrize("book", sorted(_ERRORS) or ["(none)"])
def test_book_loads(book: str) -> None:
    if book in _ERRORS:
        pytest.fail(_ERRORS[book], pytrace=False)


@pytest.mark.parametrize(("book", "example"), _CASES, ids=[example.id for _, example in _CASES])
def test_example(book: str, example) -> None:
    check = _CHECKS[book]
    result = replay(example, check.book, check.engine)
    if not result.ok:
        pytest.fail(result.message, pytrace=False)
    for name, checkpoint in result.checkpoints.items():
        if checkpoint.caption is not None or checkpoint.svg is not None:
            assert checkpoint.svg and checkpoint.svg.lstrip().startswith("<svg"), f"{example.id}: {name}"


def test_every_book_has_examples() -> None:
    minimum = {"lantern-moths": 15, "last-lantern": 20, "lantern": 12}
    for book, count in minimum.items():
        assert book in _CHECKS and len(_CHECKS[book].examples) >= count, book


def test_seed_examples_are_marked() -> None:
    seeds = {book: [e for e in check.examples if e.source == "seed"] for book, check in _CHECKS.items()}
    assert len(seeds.get("last-lantern", [])) >= 6
    assert len(seeds.get("lantern", [])) >= 4
