"""What `rulepress verify` says at the end: the examples that passed and failed, and the problems that belong to no
example counted by kind, with plurals that agree with their numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulepress.cli import main, verify_summary
from rulepress.errors import counted, problem_kind


class _Result:
    def __init__(self, ok: bool) -> None:
        self.ok = ok


@pytest.mark.parametrize(("number", "said"), [(0, "0 books"), (1, "1 book"), (2, "2 books")])
def test_a_count_agrees_with_its_number(number: int, said: str) -> None:
    assert counted(number, "book") == said
    assert counted(number, "entry", "entries") == said.replace("books", "entries").replace("book", "entry")


@pytest.mark.parametrize(("problem", "kind"), [
    ("rules_src/mini/provenance.yaml:3: quote 'x' is not in the seed", "provenance.yaml"),
    ("engine/mini/__init__.py:12: decision-no-question: ...", "engine"),
    ("rules_src/mini/chapters/play.md:4: unknown rule ID", "rule text"),
    ("mkdocs.yml:2: hooks are refused", "mkdocs.yml"),
    ("... and 3 more problem(s) not shown (fix these first)", "other"),
])
def test_a_problem_is_counted_by_the_file_it_names(problem: str, kind: str) -> None:
    assert problem_kind(problem) == kind


def test_problems_outside_the_examples_are_not_counted_as_failed_examples() -> None:
    """Two provenance problems and no failed example: "2 passed, 0 failed", then the problems by kind (it once
    said "0 passed, 2 failed")."""
    problems = ["rules_src/mini/provenance.yaml:3: a", "rules_src/mini/provenance.yaml:5: b", "mkdocs.yml:1: c"]
    assert verify_summary([_Result(True), _Result(True)], problems) == \
        "2 passed, 0 failed; 3 problems outside the examples (provenance.yaml 2, mkdocs.yml 1)"
    assert verify_summary([_Result(True), _Result(False)], problems[:1]) == \
        "1 passed, 1 failed; 1 problem outside the examples (provenance.yaml 1)"
    assert verify_summary([_Result(True)], []) == "1 passed, 0 failed"


def test_verify_says_it_for_a_bad_provenance_quote(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (mini / "rules_src/mini/seed.txt").write_text("Players take one to three stones from the pile in turn. Whoever "
                                                  "takes the last stone wins.\n")
    book = mini / "rules_src/mini/book.yaml"
    book.write_text(book.read_text() + "source: seed.txt\n")
    (mini / "rules_src/mini/provenance.yaml").write_text(
        "mini.play:\n  source: \"Play: 'one to three stones'\"\nmini.play.take:\n  source: \"Play: 'take one to "
        "three'\"\nmini.play.win:\n  source: \"Play: 'the first stone wins'\"\n  questions: [mini.q1]\n")
    code = main(["--root", str(mini), "verify"])
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    # The book does not load, so no example replays: none is said to have failed.
    assert code == 1 and last == "0 passed, 0 failed; 1 problem outside the examples (provenance.yaml 1)"
