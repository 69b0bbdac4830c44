"""The pytest plugin in a designer's project: `pytest` there replays every example as an item named by its ID and
fails with the message `rulepress verify` prints; a broken book fails its items with its load error; YAML files of
anything that is not a rulepress project are left alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulepress.cli import main

from .conftest import make_project

pytest_plugins = ["pytester"]
QUIET = ("-p", "no:cacheprovider", "-p", "no:xdist", "-W", "ignore::pytest.PytestAssertRewriteWarning")


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    return make_project(pytester.path)


def test_examples_and_books_are_items_named_by_their_ids(pytester: pytest.Pytester, project: Path) -> None:
    items, _ = pytester.inline_genitems(*QUIET)
    assert [(item.nodeid, type(item).__name__) for item in items] == [
        ("examples/mini/mini-last-stone.yaml::mini-last-stone", "ExampleItem"),
        ("rules_src/mini/book.yaml::mini", "BookItem")]
    result = pytester.runpytest_inprocess(*QUIET)
    result.assert_outcomes(passed=2)


def test_a_failing_example_says_what_verify_says(pytester: pytest.Pytester, project: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    example = project / "examples/mini/mini-last-stone.yaml"
    example.write_text(example.read_text().replace("winner: Ben", "winner: Ann"))
    assert main(["--root", str(project), "verify"]) == 1
    said = [line.strip() for line in capsys.readouterr().out.splitlines() if line.startswith("     ")]
    assert len(said) == 1 and "winner expected 'Ann', got 'Ben'" in said[0], said
    result = pytester.runpytest_inprocess(*QUIET)
    result.assert_outcomes(passed=1, failed=1)
    failure = result.outlines[result.outlines.index(next(line for line in result.outlines if "_ mini-last-stone _"
                                                          in line)) + 1]
    assert failure == said[0]  # the same line, not a traceback


def test_a_book_that_does_not_load_fails_each_item_with_its_error(pytester: pytest.Pytester, project: Path) -> None:
    book = project / "rules_src/mini/book.yaml"
    book.write_text(book.read_text().replace("engine: mini", "engine: nowhere"))
    result = pytester.runpytest_inprocess(*QUIET)
    result.assert_outcomes(failed=2)
    message = "rules_src/mini/book.yaml:8: engine 'nowhere' not found (expected engine/nowhere/__init__.py)"
    assert result.outlines.count(message) == 2, result.outlines


def test_a_bad_example_file_fails_its_item_with_its_own_line(pytester: pytest.Pytester, project: Path) -> None:
    (project / "examples/mini/mini-broken.yaml").write_text("id: mini-broken\ntitle: [unclosed\n")
    result = pytester.runpytest_inprocess(*QUIET)
    result.assert_outcomes(passed=1, failed=2)  # the file's item, and the book's (verify lists it too)
    assert any(line.startswith("examples/mini/mini-broken.yaml:") and "malformed YAML" in line
               for line in result.outlines), result.outlines


def test_yaml_outside_a_project_is_not_collected(pytester: pytest.Pytester) -> None:
    (pytester.path / "examples" / "notes").mkdir(parents=True)
    (pytester.path / "examples" / "notes" / "a.yaml").write_text("id: a\n")
    (pytester.path / "rules_src" / "notes").mkdir(parents=True)  # a project, but no book 'notes'
    items, _ = pytester.inline_genitems(*QUIET)
    assert items == []
