"""Bad input gets one clear message naming the file and the line (and the rule, where there is one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.errors import SourceError
from rulepress.load.book import load_book
from rulepress.load.examples import load_example
from rulepress.load.rules import parse_chapter
from rulepress.verify.gate import verify


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def _error(mini: Path) -> SourceError:
    with pytest.raises(SourceError) as caught:
        load_book(mini, "mini")
    return caught.value


def test_malformed_yaml_names_file_and_line(mini: Path) -> None:
    _edit(mini / "rules_src/mini/glossary.yaml", "  rule: mini.play.take", "  rule: [mini.play.take")
    error = _error(mini)
    assert error.file == "rules_src/mini/glossary.yaml"
    assert error.line == 4
    assert "malformed YAML" in str(error)


def test_unknown_template_variable(mini: Path) -> None:
    _edit(mini / "rules_src/mini/chapters/play.md", "{{ take.max }}", "{{ take.most }}")
    error = _error(mini)
    assert (error.file, error.line) == ("rules_src/mini/chapters/play.md", 5)
    assert "take" in error.message


def test_broken_template_syntax(mini: Path) -> None:
    _edit(mini / "rules_src/mini/chapters/play.md", "{{ pile.start }}", "{{ pile.start ")
    error = _error(mini)
    assert error.file == "rules_src/mini/chapters/play.md" and error.line == 5


def test_unknown_cross_reference(mini: Path) -> None:
    _edit(mini / "rules_src/mini/chapters/play.md", "[[mini.play.take]]", "[[mini.play.took]]")
    error = _error(mini)
    assert (error.line, error.rule) == (9, "mini.play.win")
    assert "mini.play.took" in error.message


def test_heading_without_rule_id(mini: Path) -> None:
    _edit(mini / "rules_src/mini/chapters/play.md", "## Winning {#mini.play.win}", "## Winning")
    error = _error(mini)
    assert error.line == 7 and "no rule ID" in error.message


def test_duplicate_rule_id(mini: Path) -> None:
    _edit(mini / "rules_src/mini/chapters/play.md", "{#mini.play.win}", "{#mini.play.take}")
    error = _error(mini)
    assert error.line == 7 and "used twice" in error.message and "play.md:3" in error.message


def test_failed_component_check(mini: Path) -> None:
    _edit(mini / "rules_src/mini/components.yaml", "start: 12", "start: 13")
    error = _error(mini)
    assert error.file == "rules_src/mini/book.yaml" and error.line == 12
    assert "13" in error.message and "12" in error.message


def test_unknown_rule_in_example(mini: Path) -> None:
    book = load_book(mini, "mini")
    path = mini / "examples/mini/mini-last-stone.yaml"
    _edit(path, "rules: [mini.play.take, mini.play.win]", "rules: [mini.play.take,\n        mini.play.wins]")
    with pytest.raises(SourceError) as caught:
        load_example(path, book)
    assert caught.value.line == 4 and caught.value.rule == "mini.play.wins"


def test_illegal_move_in_example_names_step_line_and_rule(mini: Path) -> None:
    _edit(mini / "examples/mini/mini-last-stone.yaml", "stones: 2}\n  - {player: Ben",
          "stones: 2}\n  - {player: Ann")
    report = verify(mini)
    [result] = report.results
    assert result.status == "failed"
    assert "step 3 (line 10)" in result.message and "mini.play.take" in result.message
    assert "mini-last-stone" in result.message


def test_unexpected_rejection_rule(mini: Path) -> None:
    _edit(mini / "examples/mini/mini-last-stone.yaml", "illegal: mini.play.take", "illegal: mini.play.win")
    [result] = verify(mini).results
    assert result.status == "failed" and "expected rule 1.2, mini.play.win" in result.message


def test_answered_question_must_match_engine_default(mini: Path) -> None:
    _edit(mini / "rules_src/mini/questions.yaml", "assumed: win\n  status: open", "assumed: lose\n  status: answered")
    report = verify(mini)
    assert any("mini.q1" in p and "answered 'lose'" in p for p in report.problems)


def test_rule_enforced_nowhere_fails(mini: Path) -> None:
    _edit(mini / "rules_src/mini/chapters/play.md", "## Winning",
          "## Etiquette {#mini.play.etiquette}\n\nShake hands.\n\n## Winning")
    report = verify(mini)
    assert any("mini.play.etiquette" in p and "enforced by no engine code" in p for p in report.problems)
    (mini / "rules_src/mini/prose_only.yaml").write_text("mini.play.etiquette: courtesy is not a rule of play\n")
    assert verify(mini).ok


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.sampled_from(list("{}[]:-#\n '\"abc.1_|>&*!%@`")), max_size=200))
def test_example_loader_never_crashes(mini: Path, text: str) -> None:
    book = load_book(mini, "mini")
    path = mini / "examples/mini/fuzz.yaml"
    path.write_text(text)
    try:
        load_example(path, book)
    except SourceError as error:
        assert error.file == "examples/mini/fuzz.yaml"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["# T {#mini.a}", "## R {#mini.a.b}", "### S {#mini.a.b.c}", "## X",
                                 "text [[mini.a]]", "```", "", "## Bad {#Other.id}", "#### deep"]), max_size=12))
def test_chapter_parser_never_crashes(lines: list[str]) -> None:
    try:
        chapter = parse_chapter("\n".join(lines), "c.md", 1, "mini")
    except SourceError as error:
        assert error.file == "c.md"
    else:
        assert chapter.rules[0].level == 1


def test_engine_bug_is_reported_against_the_step(mini: Path) -> None:
    _edit(mini / "engine/mini/__init__.py", "        state.pile -= stones\n", "        raise KeyError('boom')\n")
    [result] = verify(mini).results
    assert result.status == "error"
    assert "step 2 (line 9): the engine failed: KeyError: 'boom'" in result.message
