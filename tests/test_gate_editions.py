"""The gate refuses what the player editions must not print: rule IDs and engine notation, unreviewed examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulepress.errors import BuildRefused
from rulepress.publish.build import build, gate


def refusal(root: Path) -> list[str]:
    with pytest.raises(BuildRefused) as caught:
        gate(root, strict=False)
    return caught.value.problems


def test_the_mini_book_passes_the_gate(mini: Path) -> None:
    assert gate(mini, strict=False).ok


def test_a_rule_id_in_player_text_is_refused(mini: Path, tmp_path: Path) -> None:
    chapter = mini / "rules_src" / "mini" / "chapters" / "play.md"
    chapter.write_text(chapter.read_text().replace("wins (see", "wins (rule mini.play.take, see"))
    # Found while the site's pages are generated (not by rendering them all once more beforehand).
    with pytest.raises(BuildRefused) as caught:
        build(mini, site_dir=tmp_path / "site")
    assert not (tmp_path / "site").exists()
    problems = caught.value.problems
    assert len(problems) == 1
    assert problems[0].startswith("site page mini/rules/mini.play.md:")
    assert "rule ID 'mini.play.take' in the player edition of Mini Stones" in problems[0]


def test_an_unreviewed_example_is_refused_until_reviewed(mini: Path) -> None:
    example = mini / "examples" / "mini" / "mini-last-stone.yaml"
    text = example.read_text()
    example.write_text(text.replace("players: [Ann, Ben]\n", "players: [Ann, Ben]\nreviewed: false\n"))
    assert refusal(mini) == [
        "examples/mini/mini-last-stone.yaml:5: example 'mini-last-stone' is marked and not reviewed: check it "
        "against the rules, then set 'reviewed: true'"]
    example.write_text(text.replace("players: [Ann, Ben]\n", "players: [Ann, Ben]\nreviewed: true\n"))
    assert gate(mini, strict=False).ok


def test_a_question_naming_an_unknown_engine_option_is_refused_at_its_line(mini: Path) -> None:
    questions = mini / "rules_src" / "mini" / "questions.yaml"
    questions.write_text(questions.read_text().replace("option: last_stone", "option: last_stones"))
    assert refusal(mini) == [
        "rules_src/mini/questions.yaml:1: question mini.q1 names engine option 'last_stones', which engine 'mini' "
        "does not have (it has: last_stone)"]


def test_an_assumed_answer_that_is_not_the_engine_default_is_refused(mini: Path) -> None:
    questions = mini / "rules_src" / "mini" / "questions.yaml"
    questions.write_text(questions.read_text().replace("assumed: win", "assumed: lose"))
    assert refusal(mini) == [
        "rules_src/mini/questions.yaml:1: question mini.q1 is assumed 'lose' (last_stone='lose') but the engine's "
        "default is 'win'"]
