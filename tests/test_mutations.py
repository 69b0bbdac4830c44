"""Changing one expected value of any example must make verification fail, naming that example.

This guards against examples that assert nothing: each one is mutated once and must then fail.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from rulepress.verify.replay import replay

from .conftest import load_books

_CHECKS, _ = load_books()  # a book that fails to load fails in test_examples
_CASES = [(book, example) for book, check in _CHECKS.items() for example in check.examples]


def _mutate_value(value: Any) -> tuple[bool, Any]:
    if isinstance(value, bool):
        return True, not value
    if isinstance(value, int):
        return True, value + 1
    if isinstance(value, dict):
        for key, inner in value.items():
            done, new = _mutate_value(inner)
            if done:
                return True, {**value, key: new}
    if isinstance(value, list):
        for index, inner in enumerate(value):
            done, new = _mutate_value(inner)
            if done:
                return True, value[:index] + [new] + value[index + 1:]
        return True, value + ["(mutated)"]
    if isinstance(value, str):
        return True, value + " (mutated)"
    return False, value


def mutate(example: Any, rules: list[str]) -> Any:
    """A copy with one expectation changed: a number in a checkpoint, else an expected rejection's rule."""
    twin = copy.deepcopy(example)
    for step in twin.steps:
        expect = step.data.get("expect")
        if step.kind == "checkpoint" and expect:
            for key, value in expect.items():
                done, new = _mutate_value(value)
                if done:
                    expect[key] = new
                    return twin
    for step in twin.steps:
        if step.illegal:
            step.data["illegal"] = next(r for r in rules if r != step.illegal)
            return twin
    if "refused" in twin.start:
        twin.start["refused"] = next(r for r in rules if r != twin.start["refused"])
        return twin
    raise AssertionError(f"{example.id} has no expectation that could be changed")


@pytest.mark.parametrize(("book", "example"), _CASES, ids=[example.id for _, example in _CASES])
def test_changed_expectation_fails(book: str, example: Any) -> None:
    check = _CHECKS[book]
    result = replay(mutate(example, list(check.book.rules)), check.book, check.engine, draw=False)
    assert result.status == "failed", f"{example.id}: a changed expectation still passes"
    assert example.id in result.message
