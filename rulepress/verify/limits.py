"""Engine code runs under a guard: a hang, an exit or a crash becomes a fault naming the engine's file and line.

Engines are trusted code, but a bug in one must never hang the build (an endless loop), end it while
reporting success (``sys.exit(0)`` or ``os._exit(0)`` from engine code) or show up as a bare traceback.
:class:`engine_guard` wraps a call into an engine and turns each of those into an :class:`EngineFault` that
says where, in the engine's own files, it happened.

The time limit is a ``SIGALRM`` from ``signal.setitimer`` (wall-clock time): Python runs the handler on the
main thread between bytecodes, so it raises inside the engine's frame and the frame it interrupts is the one
reported.  Signals can only be handled on the main thread: elsewhere (a worker thread) the guard still
reports exits and crashes but sets no time limit.  The guard composes with an outer ``SIGALRM`` timer (a
pytest timeout plugin, a nested guard): the outer handler and its remaining time are restored on the way
out, and an outer timer due first is handed to the outer handler.

A ``KeyboardInterrupt`` is a real Ctrl-C only when ``SIGINT`` arrived during the call; one that engine code
raises itself is the engine's fault.  The guard tells the two apart by watching ``SIGINT`` (main thread
only; elsewhere every ``KeyboardInterrupt`` is taken for a real one and lets the run stop).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, NoReturn

from rulepress import environment

IMPORT_SECONDS = 10.0
"""How long importing one engine package may take (``$RULEPRESS_IMPORT_TIMEOUT`` overrides; 0: no limit)."""

REPLAY_SECONDS = 10.0
"""How long replaying one example may take, plus :data:`STEP_SECONDS` a step (``$RULEPRESS_REPLAY_TIMEOUT``
overrides the whole; 0: no limit).

The slowest bundled example replays in about 0.3 s, so the limit only catches engines that never answer."""

STEP_SECONDS = 1.0
"""What each step of an example adds to its limit: a long example (a recorded game of 51 actions, drawn at every step
in two languages) takes far longer than a short one, and an engine that never answers is caught all the same."""


def import_seconds() -> float:
    return environment.import_seconds(IMPORT_SECONDS)


def replay_seconds(steps: int = 0) -> float:
    """The limit of a replay of ``steps`` steps (``$RULEPRESS_REPLAY_TIMEOUT``, when set, whatever the steps)."""
    return environment.replay_seconds(REPLAY_SECONDS + STEP_SECONDS * steps)


@dataclass
class Place:
    """A line of engine code."""

    file: str  # relative to the project root when inside it
    line: int
    function: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}, function {self.function}"


class EngineFault(Exception):
    """Engine code hung, exited, was interrupted by itself or crashed; ``place`` is where, when known."""

    def __init__(self, kind: str, detail: str, place: Place | None, cause: BaseException | None = None) -> None:
        super().__init__(detail)
        self.kind = kind  # "timeout" | "exit" | "interrupt" | "crash"
        self.detail = detail
        self.place = place
        self.cause = cause

    def __str__(self) -> str:
        return self.detail + (f" (in {self.place})" if self.place else "")


class _HardExit(BaseException):
    """Raised instead of ending the process when engine code calls ``os._exit`` under the guard (which would
    otherwise end ``verify`` at once, with whatever exit code the engine chose and nothing said)."""

    def __init__(self, code: object) -> None:
        super().__init__(code)
        self.code = code


def _hard_exit_refuser(real: Any, pid: int) -> Any:
    """``os._exit`` while engine code runs: raises :class:`_HardExit` instead, except in a process forked
    meanwhile (a worker pool's child ends with ``os._exit``, as it must)."""

    def refuse(code: object) -> NoReturn:
        if os.getpid() != pid:
            real(code)
        raise _HardExit(code)

    return refuse


class _Timeout(BaseException):
    """Raised by the alarm inside the engine's frame.  A BaseException so that an engine's own
    ``except Exception`` cannot swallow it."""

    def __init__(self) -> None:
        super().__init__("time limit")


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


class engine_guard:  # noqa: N801 - used as a context manager, like contextlib's
    """``with engine_guard(folder, root, limit):`` runs engine code, turning faults into :class:`EngineFault`.

    ``folder`` is the engine package's folder: a fault names the innermost frame inside it.  ``limit`` is in
    seconds (0: none).  Ordinary exceptions become a fault only with ``crashes=True``; callers that tell engine
    bugs from expected exceptions (RuleViolation, DescriptionError) catch those themselves, inside the guard.
    """

    def __init__(self, folder: Path, root: Path, limit: float, *, crashes: bool = False) -> None:
        self._given = folder.absolute(), root.absolute()  # from this working folder, whatever the engine does
        self.limit = limit
        self.crashes = crashes
        self._main = False
        self._armed = False
        self._deadline = 0.0
        self._outer_alarm: Any = None
        self._outer_due: float | None = None  # when the outer timer wants to fire (monotonic)
        self._outer_interval = 0.0
        self._watching_int = False
        self._outer_int: Any = None
        self._interrupted = False
        self._outer_exit: Any = None

    # Resolved only when a fault is placed: a guard is made for every replay, and most never place one.
    @cached_property
    def folder(self) -> Path:
        return self._given[0].resolve()

    @cached_property
    def root(self) -> Path:
        return self._given[1].resolve()

    def __enter__(self) -> engine_guard:
        # os._exit ends the process without unwinding: stand in for it while engine code runs (restored on exit).
        self._outer_exit = os._exit
        os._exit = _hard_exit_refuser(self._outer_exit, os.getpid())
        self._main = _on_main_thread()
        if not self._main:
            return self
        outer_int = signal.getsignal(signal.SIGINT)
        if callable(outer_int):  # SIG_IGN or SIG_DFL: no Ctrl-C can arrive as a KeyboardInterrupt
            self._outer_int, self._watching_int = outer_int, True
            signal.signal(signal.SIGINT, self._on_interrupt)
        if self.limit > 0:
            self._outer_alarm = signal.signal(signal.SIGALRM, self._on_alarm)
            remaining, self._outer_interval = signal.setitimer(signal.ITIMER_REAL, 0)
            now = time.monotonic()
            self._deadline = now + self.limit
            self._outer_due = now + remaining if remaining > 0 else None
            self._armed = True
            signal.setitimer(signal.ITIMER_REAL, min(self.limit, remaining) if remaining > 0 else self.limit)
        return self

    def _on_alarm(self, signum: int, frame: FrameType | None) -> None:
        if not self._armed:
            return
        if frame is not None and frame.f_code in _EDGES:
            # A limit shorter than the guard's own setting up (a microsecond) fires inside __enter__, outside the
            # ``with`` whose __exit__ turns it into a fault: raised there it would escape as a traceback.  Fire
            # again a moment later, inside the guarded code (in __exit__ the code is done: nothing to stop).
            if frame.f_code is _ENTER:
                signal.setitimer(signal.ITIMER_REAL, 1e-3)
            return
        now = time.monotonic()
        if self._outer_due is not None and self._outer_due <= now:  # the outer timer is due: its handler decides
            outer, self._outer_due = self._outer_alarm, None
            signal.setitimer(signal.ITIMER_REAL, max(self._deadline - now, 1e-3))
            if callable(outer):
                outer(signum, frame)
            return
        if now < self._deadline:  # woken early (an outer timer that moved): wait for the rest
            signal.setitimer(signal.ITIMER_REAL, self._deadline - now)
            return
        # Fire again each second in case engine code swallows the first one with a bare ``except:``.
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        raise _Timeout()

    def _on_interrupt(self, signum: int, frame: FrameType | None) -> None:
        self._interrupted = True  # a real Ctrl-C: whatever KeyboardInterrupt follows must stop the run
        self._outer_int(signum, frame)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> bool:
        self._armed = False  # first thing: an alarm arriving from here on is ignored
        os._exit = self._outer_exit
        if self._main:
            if self.limit > 0:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, self._outer_alarm)
                if self._outer_due is not None:  # give the outer timer back what is left of its time
                    left = self._outer_due - time.monotonic()
                    signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), self._outer_interval)
            if self._watching_int:
                signal.signal(signal.SIGINT, self._outer_int)
        if error is None and self._interrupted:
            # A Ctrl-C whose KeyboardInterrupt was lost (raised inside a finalizer, where Python only prints it as
            # ignored, or swallowed by the engine's bare ``except:``) still stops the run once the call is done.
            raise KeyboardInterrupt
        if error is None or isinstance(error, EngineFault):
            return False
        if isinstance(error, _Timeout):
            raise EngineFault("timeout", f"engine did not answer within {self.limit:g} s", self.place_of(error),
                              error) from None
        if isinstance(error, KeyboardInterrupt):
            if self._interrupted or not self._main:
                return False  # a real Ctrl-C stops the run
            raise EngineFault("interrupt", "engine code raised KeyboardInterrupt", self.place_of(error),
                              error) from error
        if isinstance(error, _HardExit):
            raise EngineFault("exit", f"engine code called os._exit({error.code!r})", self.place_of(error),
                              error) from error
        if isinstance(error, SystemExit):
            raise EngineFault("exit", f"engine code called exit({error.code!r})", self.place_of(error),
                              error) from error
        if isinstance(error, Exception) and self.crashes:
            raise EngineFault("crash", f"{type(error).__name__}: {error}", self.place_of(error), error) from error
        return False

    def place_of(self, error: BaseException) -> Place | None:
        """The innermost line of the engine's own code in ``error``'s traceback (None when none is)."""
        found = None
        tb = error.__traceback__
        while tb is not None:
            path = Path(tb.tb_frame.f_code.co_filename)
            if path.is_absolute() and path.resolve().is_relative_to(self.folder):
                found = Place(self._shown(path), tb.tb_lineno, tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        return found

    def _shown(self, path: Path) -> str:
        """Relative to the project; an engine imported from another copy of the project (the same files: one
        import, rulepress/verify/engines.py) is named as in its own, ``engine/<package>/...``."""
        path = path.resolve()
        if path.is_relative_to(self.root):
            return str(path.relative_to(self.root))
        project = self.folder.parent.parent
        return str(path.relative_to(project)) if path.is_relative_to(project) else str(path)


# The guard's own frames (its handler too: a re-armed alarm can arrive before the handler has returned).
_ENTER = engine_guard.__enter__.__code__
_EDGES = (_ENTER, engine_guard.__exit__.__code__, engine_guard._on_alarm.__code__)
