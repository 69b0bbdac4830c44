"""An engine that hangs, exits or crashes is reported against the example and the engine's own line.

Each test breaks the mini fixture engine in one way and checks the exact report: never a hang, never a
success, never a traceback.  Time limits are set to a fraction of a second through the environment.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from rulepress.cli import main
from rulepress.errors import SourceError
from rulepress.verify import limits
from rulepress.verify.engines import load_engine
from rulepress.verify.gate import MAX_PROBLEMS, Report, load_checked_book, verify
from rulepress.verify.replay import replay

from .conftest import REAL_CTRL_C, SLOWDOWN

ENGINE = "engine/mini/__init__.py"
QUICK = 0.3 * SLOWDOWN  # the limits of the `quick` fixture, in seconds

EXAMPLE = "examples/mini/mini-last-stone.yaml"
LABEL = "[illustrates rule 1.1, mini.play.take, rule 1.2, mini.play.win]"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def _line(path: Path, marker: str) -> int:
    """The 1-based line of the only line holding ``marker``."""
    lines = [n for n, text in enumerate(path.read_text().splitlines(), 1) if marker in text]
    assert len(lines) == 1, (marker, lines)
    return lines[0]


def _break_apply(mini: Path, code: str) -> int:
    """Put ``code`` (one line, marked) at the start of the engine's apply; its line number."""
    engine = mini / ENGINE
    _edit(engine, "        player, stones = action if isinstance(action, tuple) else (state.players[state.turn], "
                  "action)\n        if player",
          f"        {code}  # BROKEN\n        player, stones = action if isinstance(action, tuple) else "
          f"(state.players[state.turn], action)\n        if player")
    return _line(engine, "# BROKEN")


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEPRESS_REPLAY_TIMEOUT", f"{QUICK:g}")
    monkeypatch.setenv("RULEPRESS_IMPORT_TIMEOUT", f"{QUICK:g}")


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C as an interactive run gets it: Python's own handler, which a process started in the background of a
    shell (a CI job, ``nox ... &``) does not have (SIGINT comes ignored, and Python keeps it so)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _alarm_is_clear() -> bool:
    return signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) in (
        signal.SIG_DFL, signal.SIG_IGN, None)


# --- sys.exit and KeyboardInterrupt from engine code ---------------------------------------------------

def test_exit_on_import_is_an_error_at_the_engine_line(mini: Path) -> None:
    engine = mini / ENGINE
    _edit(engine, 'BOOK_ID = "mini"\n', 'BOOK_ID = "mini"\nimport sys  # noqa\nsys.exit(0)  # BROKEN\n')
    report = verify(mini)
    assert not report.ok and report.results == []
    assert report.problems == [f"{ENGINE}:{_line(engine, '# BROKEN')}: engine 'mini' cannot be imported: "
                               "engine code called exit(0)"]
    assert main(["--root", str(mini), "verify"]) == 1


def test_exit_in_make_game_names_the_start(mini: Path) -> None:
    engine = mini / ENGINE
    _edit(engine, "        self.start = int(", "        raise SystemExit(0)  # BROKEN\n        self.start = int(")
    [result] = verify(mini).results
    assert result.status == "error"
    assert result.message == (f"mini-last-stone ({EXAMPLE}): start (line 5): engine code called exit(0) "
                              f"(in {ENGINE}:{_line(engine, '# BROKEN')}, function __init__) {LABEL}")


def test_exit_in_apply_names_the_step(mini: Path) -> None:
    line = _break_apply(mini, "import sys; sys.exit(0)")
    [result] = verify(mini).results
    assert result.status == "error"
    assert result.message == (f"mini-last-stone ({EXAMPLE}): step 1 (line 8): engine code called exit(0) "
                              f"(in {ENGINE}:{line}, function apply) {LABEL}")


def test_build_refuses_when_the_engine_exits(mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = _break_apply(mini, "raise SystemExit(0)")
    site = tmp_path / "site"
    assert main(["--root", str(mini), "build", "--site-dir", str(site)]) == 1
    assert not site.exists()
    assert (f"  - mini-last-stone ({EXAMPLE}): step 1 (line 8): engine code called exit(0) (in {ENGINE}:{line}, "
            f"function apply) {LABEL}") in capsys.readouterr().err.splitlines()


def test_exit_in_legal_actions_names_the_checkpoint_step(mini: Path) -> None:
    engine = mini / ENGINE
    _edit(mini / EXAMPLE, "expect: {pile: 0,", "expect: {legal_actions: 0, pile: 0,")
    _edit(engine, "        return [] if state.winner", "        raise SystemExit('bye')  # BROKEN\n"
                                                       "        return [] if state.winner")
    [result] = verify(mini).results
    assert result.status == "error"
    assert result.message == (f"mini-last-stone ({EXAMPLE}): step 4 (line 11): engine code called exit('bye') "
                              f"(in {ENGINE}:{_line(engine, '# BROKEN')}, function legal_actions) {LABEL}")


def test_keyboard_interrupt_raised_by_the_engine_is_its_error(mini: Path) -> None:
    line = _break_apply(mini, "raise KeyboardInterrupt")
    [result] = verify(mini).results
    assert result.status == "error"
    assert result.message == (f"mini-last-stone ({EXAMPLE}): step 1 (line 8): engine code raised "
                              f"KeyboardInterrupt (in {ENGINE}:{line}, function apply) {LABEL}")


@REAL_CTRL_C
def test_a_real_ctrl_c_still_stops_the_run(mini: Path, ctrl_c: None) -> None:
    _break_apply(mini, "import os, signal, time; os.kill(os.getpid(), signal.SIGINT); time.sleep(5)")
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        verify(mini)
    assert time.monotonic() - started < 4
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert _alarm_is_clear()


@REAL_CTRL_C
def test_a_ctrl_c_the_engine_swallows_still_stops_the_run(mini: Path, ctrl_c: None) -> None:
    """A real Ctrl-C whose KeyboardInterrupt never leaves the engine (a bare ``except:``, or a finalizer running
    when it arrived) stops the run when the engine's call returns."""
    _break_apply(mini, "import os, signal\n        try:\n            os.kill(os.getpid(), signal.SIGINT)\n"
                       "        except BaseException:\n            pass")
    with pytest.raises(KeyboardInterrupt):
        verify(mini)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert _alarm_is_clear()


# --- time limits --------------------------------------------------------------------------------------

def test_endless_apply_is_stopped_and_located(mini: Path, quick: None) -> None:
    line = _break_apply(mini, "while True: pass")
    started = time.monotonic()
    [result] = verify(mini).results
    assert time.monotonic() - started < 5 * SLOWDOWN
    assert result.status == "error"
    assert result.message == (f"mini-last-stone ({EXAMPLE}): step 1 (line 8): engine did not answer within "
                              f"{QUICK:g} s (in {ENGINE}:{line}, function apply) {LABEL}")
    assert _alarm_is_clear()


def test_endless_legal_actions_is_stopped_and_located(mini: Path, quick: None) -> None:
    engine = mini / ENGINE
    _edit(mini / EXAMPLE, "expect: {pile: 0,", "expect: {legal_actions: 0, pile: 0,")
    _edit(engine, "        return [] if state.winner", "        while state.pile >= 0: state.turn += 0  # BROKEN\n"
                                                       "        return [] if state.winner")
    [result] = verify(mini).results
    assert result.message == (f"mini-last-stone ({EXAMPLE}): step 4 (line 11): engine did not answer within "
                              f"{QUICK:g} s (in {ENGINE}:{_line(engine, '# BROKEN')}, function legal_actions) {LABEL}")


def test_a_swallowed_alarm_fires_again(mini: Path, quick: None) -> None:
    """Engine code that catches the first alarm (a bare ``except:``) gets another one a second later."""
    engine = mini / ENGINE
    _edit(engine, "class Game:\n", "def _swallow():\n    try:\n        while True:\n            pass\n"
                                   "    except BaseException:\n        pass\n    while True:  # SECOND\n"
                                   "        pass\n\n\nclass Game:\n")
    _break_apply(mini, "_swallow()")
    started = time.monotonic()
    [result] = verify(mini).results
    assert QUICK + 0.9 < time.monotonic() - started < 5 * SLOWDOWN
    assert result.message == (f"mini-last-stone ({EXAMPLE}): step 1 (line 8): engine did not answer within "
                              f"{QUICK:g} s "
                              f"(in {ENGINE}:{_line(engine, '# SECOND')}, function _swallow) {LABEL}")


def test_endless_import_is_stopped_and_located(mini: Path, quick: None) -> None:
    engine = mini / ENGINE
    _edit(engine, 'BOOK_ID = "mini"\n', 'BOOK_ID = "mini"\nwhile BOOK_ID: pass  # BROKEN\n')
    with pytest.raises(SourceError) as caught:
        load_checked_book(mini, "mini")
    assert (caught.value.file, caught.value.line) == (ENGINE, _line(engine, "# BROKEN"))
    assert caught.value.message == f"engine 'mini' cannot be imported: engine did not answer within {QUICK:g} s"
    assert _alarm_is_clear()


def test_limit_can_be_switched_off_and_bad_values_are_named(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _break_apply(mini, "import time; time.sleep(0.4)")
    monkeypatch.setenv("RULEPRESS_REPLAY_TIMEOUT", "0")
    assert verify(mini).ok
    monkeypatch.setenv("RULEPRESS_REPLAY_TIMEOUT", "0.2")
    [result] = verify(mini).results
    assert "step 1 (line 8): engine did not answer within 0.2 s" in result.message
    monkeypatch.setenv("RULEPRESS_REPLAY_TIMEOUT", "ten")
    with pytest.raises(SourceError) as caught:
        verify(mini)
    assert str(caught.value) == ("$RULEPRESS_REPLAY_TIMEOUT: 'ten' is not accepted: a number of seconds, 0 (no limit) "
                                 "or 0.001 to 86400")


def test_no_limit_off_the_main_thread(mini: Path, quick: None) -> None:
    """Signals only reach the main thread: elsewhere the replay runs without a limit (documented)."""
    # Each of the example's 3 steps sleeps 3/4 of the limit: the whole replay outlasts it, at any slowdown.
    _break_apply(mini, f"import time; time.sleep({0.75 * QUICK:g})")
    check = load_checked_book(mini, "mini")
    results = []
    worker = threading.Thread(target=lambda: results.append(replay(check.examples[0], check.book, check.engine)))
    worker.start()
    worker.join(10 * SLOWDOWN)
    assert [r.status for r in results] == ["passed"]
    assert "did not answer" in replay(check.examples[0], check.book, check.engine).message  # main thread


def test_an_outer_alarm_is_kept_and_handed_back(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A timer set around the replay (a pytest timeout plugin) still fires, and gets its remaining time back."""
    monkeypatch.setenv("RULEPRESS_REPLAY_TIMEOUT", "3")
    fired: list[float] = []

    def outer(signum: int, frame: FrameType | None) -> None:
        fired.append(time.monotonic())

    _break_apply(mini, "import time; time.sleep(0.05)")  # slow (3 actions), but well within the limit
    check = load_checked_book(mini, "mini")
    previous = signal.signal(signal.SIGALRM, outer)
    try:
        signal.setitimer(signal.ITIMER_REAL, 30)
        assert replay(check.examples[0], check.book, check.engine).ok
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25 < remaining <= 30 and signal.getsignal(signal.SIGALRM) is outer and fired == []
        # An outer timer due before the replay's own limit reaches its own handler, during the replay.
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        assert replay(check.examples[0], check.book, check.engine).ok
        assert len(fired) == 1 and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_the_alarm_is_cleared_after_every_replay(mini: Path, quick: None) -> None:
    _break_apply(mini, "1 // (state.pile - 2)")  # crashes at step 3 only
    check = load_checked_book(mini, "mini")
    assert replay(check.examples[0], check.book, check.engine, options={"last_stone": "lose"}).status == "error"
    assert _alarm_is_clear()
    _edit(mini / EXAMPLE, "stones: 2}\n  - {player: Ben, do: take, stones: 2}", "stones: 1}\n"
                                                                              "  - {player: Ben, do: take, stones: 3}")
    check = load_checked_book(mini, "mini")
    assert replay(check.examples[0], check.book, check.engine).ok
    assert _alarm_is_clear()


# --- crashes and import errors ------------------------------------------------------------------------

def test_crash_names_the_engine_line(mini: Path) -> None:
    line = _break_apply(mini, "raise KeyError('boom')")
    [result] = verify(mini).results
    assert result.message == (f"mini-last-stone ({EXAMPLE}): step 1 (line 8): the engine failed: KeyError: "
                              f"'boom' (in {ENGINE}:{line}, function apply) {LABEL}")


def test_import_error_is_reported_against_the_engine_file_and_line(mini: Path) -> None:
    engine = mini / ENGINE
    (mini / "engine/mini/helper.py").write_text("def setup():\n    return 1 // 0\n")
    _edit(engine, 'BOOK_ID = "mini"\n', 'BOOK_ID = "mini"\nfrom .helper import setup  # noqa\nsetup()\n')
    with pytest.raises(SourceError) as caught:
        load_checked_book(mini, "mini")
    assert str(caught.value) == ("engine/mini/helper.py:2: engine 'mini' cannot be imported: "
                                 "ZeroDivisionError: integer division or modulo by zero (in function setup)")
    assert verify(mini).problems == [str(caught.value)]


def test_syntax_error_names_file_line_and_column(mini: Path) -> None:
    _edit(mini / ENGINE, "class Game:\n", "class Game:\n    x = (]\n")
    with pytest.raises(SourceError) as caught:
        load_engine("mini", mini)
    assert caught.value.file == ENGINE and caught.value.line == _line(mini / ENGINE, "x = (]")
    assert caught.value.message == ("engine 'mini' does not parse: closing parenthesis ']' does not match "
                                    "opening parenthesis '('")
    assert caught.value.column == 10


def test_missing_engine_is_reported_against_book_yaml(mini: Path) -> None:
    _edit(mini / "rules_src/mini/book.yaml", "engine: mini", "engine: mani")
    assert verify(mini).problems == ["rules_src/mini/book.yaml:8: engine 'mani' not found "
                                     "(expected engine/mani/__init__.py)"]


def test_engine_for_another_book_is_reported_against_book_yaml(mini: Path) -> None:
    _edit(mini / ENGINE, 'BOOK_ID = "mini"', 'BOOK_ID = "maxi"')
    assert verify(mini).problems == ["rules_src/mini/book.yaml:8: engine 'mini' says it implements 'maxi', "
                                     "not 'mini'"]


# --- every problem reported -----------------------------------------------------------------------------

def test_a_crash_in_one_example_does_not_stop_the_others(mini: Path) -> None:
    """Three examples: the engine exits in the first, crashes in the second; the third still passes."""
    text = (mini / EXAMPLE).read_text()
    for name, pile in (("a-exit", 7), ("b-crash", 6), ("c-fine", 4)):
        (mini / f"examples/mini/{name}.yaml").write_text(text.replace("mini-last-stone", name)
                                                         .replace("pile: 4}", f"pile: {pile}}}"))
    (mini / EXAMPLE).unlink()
    line = _break_apply(mini, "import sys; sys.exit(1) if state.pile == 7 else 1 // (state.pile - 6)")
    report = verify(mini)
    assert [(r.example.id, r.status) for r in report.results] == [
        ("a-exit", "error"), ("b-crash", "error"), ("c-fine", "passed")]
    assert f"engine code called exit(1) (in {ENGINE}:{line}, function apply)" in report.results[0].message
    assert f"ZeroDivisionError: integer division or modulo by zero (in {ENGINE}:{line}" in report.results[1].message
    assert report.failures() == [report.results[0].message, report.results[1].message]


def test_every_bad_example_file_is_reported(mini: Path) -> None:
    """Not only the first bad example file: each one, by its own file and line (the wording is the loader's)."""
    (mini / "examples/mini/bad-one.yaml").write_text("id: bad-one\ntitle: x\nrules: [mini.nope]\n"
                                                     "start: {setup: true}\nsteps: [{do: take, stones: 1}]\n")
    (mini / "examples/mini/bad-two.yaml").write_text("id: bad-two\ntitle: [unclosed\n")
    report = verify(mini)
    assert [p.split(": ")[0] for p in report.problems[:2]] == ["examples/mini/bad-one.yaml:3",
                                                              "examples/mini/bad-two.yaml:3:1"]
    assert "mini.nope" in report.problems[0]
    assert [r.example.id for r in report.results] == ["mini-last-stone"]  # the good one still replays
    assert report.results[0].ok


def test_failures_are_capped() -> None:
    report = Report(problems=[f"p{n}" for n in range(MAX_PROBLEMS + 5)])
    shown = report.failures()
    assert len(shown) == MAX_PROBLEMS + 1 and shown[:2] == ["p0", "p1"]
    assert shown[-1] == "... and 5 more problem(s) not shown (fix these first)"
    assert Report(problems=["a", "b"]).failures() == ["a", "b"]
    exactly = [f"p{n}" for n in range(MAX_PROBLEMS)]
    assert Report(problems=exactly).failures() == exactly  # at the cap: all shown, no "and N more" line


def test_limit_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RULEPRESS_REPLAY_TIMEOUT", raising=False)
    monkeypatch.delenv("RULEPRESS_IMPORT_TIMEOUT", raising=False)
    assert (limits.replay_seconds(), limits.import_seconds()) == (10, 10)
    assert limits.replay_seconds(51) == 61  # a long example: 1 s more a step (a recorded game drawn at every step)
    monkeypatch.setenv("RULEPRESS_REPLAY_TIMEOUT", "4")
    assert limits.replay_seconds(51) == 4  # set, it is the whole limit
    monkeypatch.delenv("RULEPRESS_REPLAY_TIMEOUT")
    monkeypatch.setenv("RULEPRESS_IMPORT_TIMEOUT", " 2.5 ")
    assert limits.import_seconds() == 2.5
    for bad in ("-1", "nan", "inf"):
        monkeypatch.setenv("RULEPRESS_IMPORT_TIMEOUT", bad)
        with pytest.raises(SourceError, match=r"^\$RULEPRESS_IMPORT_TIMEOUT: '"):
            limits.import_seconds()
