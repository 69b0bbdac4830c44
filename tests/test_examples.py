"""The bundled books' worked examples as the suite runs them: rulepress's own pytest plugin (rulepress/pytest_plugin.py,
entry point ``pytest11``) collects every ``examples/<book>/*.yaml`` as an item named by its ID and every
``rules_src/<book>/book.yaml`` as one named by the book (``testpaths`` in pyproject.toml), as it does in any
designer's project.  Here: that it collects all of them, and what the books must hold."""

from __future__ import annotations

import pytest

from .conftest import ROOT, load_books

_CHECKS, _ERRORS = load_books()

pytest_plugins = ["pytester"]


def test_every_bundled_example_is_an_item_named_by_its_id(pytester: pytest.Pytester) -> None:
    """The suite's own collection of rules_src/ and examples/, read back: one item per example ID, one per book,
    and nothing left out (an example the plugin missed would never be replayed by the suite)."""
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning",
                                        str(ROOT / "rules_src"), str(ROOT / "examples"))
    collected = {item.name for item in items}
    assert len(collected) == len(items)
    wanted = {example.id for check in _CHECKS.values() for example in check.examples} | set(_CHECKS)
    assert not _ERRORS
    assert collected == wanted
    assert len(wanted) == sum(len(check.examples) for check in _CHECKS.values()) + len(_CHECKS)  # IDs are unique


def test_every_book_has_examples() -> None:
    minimum = {"lantern-moths": 15, "last-lantern": 20, "lantern": 12}
    for book, count in minimum.items():
        assert book in _CHECKS and len(_CHECKS[book].examples) >= count, book


def test_seed_examples_are_marked() -> None:
    seeds = {book: [e for e in check.examples if e.source == "seed"] for book, check in _CHECKS.items()}
    assert len(seeds.get("last-lantern", [])) >= 6
    assert len(seeds.get("lantern", [])) >= 4
