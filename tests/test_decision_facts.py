"""The decision marks read from an engine's source (rulepress.verify.decisions.engine_facts): every
``decided(state, "id")`` however it is called, and read again when a file of the engine changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulepress.verify.decisions import engine_facts


def test_marks_are_found_however_decided_is_called_and_read_again_after_an_edit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEPRESS_CACHE", "1")  # the marks are kept between reads (tests run with the cache off)
    folder = tmp_path / "engine" / "e"
    folder.mkdir(parents=True)
    game = folder / "game.py"
    game.write_text("from rulepress import protocol\nfrom rulepress.protocol import decided\n\n\n"
                    "def play(state):\n    decided(state, 'one')\n    protocol.decided(state, 'two')\n",
                    encoding="utf-8")
    assert engine_facts(folder, tmp_path).marks == {"one": ["engine/e/game.py:6"], "two": ["engine/e/game.py:7"]}
    game.write_text(game.read_text(encoding="utf-8") + "    decided(state, 'three')\n", encoding="utf-8")
    assert engine_facts(folder, tmp_path).marks == {"one": ["engine/e/game.py:6"], "two": ["engine/e/game.py:7"],
                                                    "three": ["engine/e/game.py:8"]}


def test_an_option_that_answers_a_question_is_a_decision_saying_what_the_engine_does() -> None:
    from rulepress.protocol import Decision, OptionSpec, option_decisions

    answered = OptionSpec("last_stone", "win", ("win", "lose"), "mini.q1", ("mini.play.win",), "who the last wins")
    variant = OptionSpec("big_pile", False, (False, True), "", ("mini.play.take",), "a challenge: a bigger pile")
    assert option_decisions((answered, variant)) == (
        Decision("last_stone", "mini.q1", ("mini.play.win",), "who the last wins", "last_stone"),)
