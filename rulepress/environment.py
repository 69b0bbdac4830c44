"""The environment variables rulepress reads: each one is an input, checked like a source.

Every variable has one reader here, which returns its value or raises a :class:`~rulepress.errors.SourceError`
naming the variable and what it accepts (``$RULEPRESS_JOBS: 'lots' is not accepted: a whole number of
processes, 1 to 1024``).  The command line calls :func:`check` before any work, so a bad value is one line and
nothing starts; the readers check again where a value is used, for callers that are not the command line.  An
empty variable counts as unset.  An explicit command-line option beats the environment (``questions --jobs``).

This module knows no stage: ``load`` and everything above read the environment only through it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rulepress.errors import SourceError, excerpt

# 2106-02-07T06:28:15Z: the site's sitemap.xml.gz stamps the date in gzip's 32-bit field (a PDF's date would go on
# to the year 9999, but a build must work over the whole range a variable accepts).
LATEST_EPOCH = 2**32 - 1
MOST_JOBS = 1024
MOST_SECONDS = 86400.0  # a time limit of a day is no limit; more is a typo
LEAST_SECONDS = 0.001  # a shorter limit than the guard can measure (its alarm has a millisecond's grace)


@dataclass(frozen=True)
class Variable:
    name: str
    accepts: str  # in words, for the message
    parse: Callable[[str], Any]  # the value, or ValueError


def _whole(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.isascii() or not text.isdigit():  # no sign, no spaces, no "1e3", no "١" (a non-ASCII digit)
            raise ValueError(text)
        value = int(text)
        if not low <= value <= high:
            raise ValueError(text)
        return value
    return parse


def _switch(text: str) -> bool:
    if text not in ("0", "1"):
        raise ValueError(text)
    return text == "1"


def _seconds(text: str) -> float:
    value = float(text)  # ValueError for "abc"
    if not math.isfinite(value) or not (value == 0 or LEAST_SECONDS <= value <= MOST_SECONDS):
        raise ValueError(text)
    return value


_SECONDS = f"a number of seconds, 0 (no limit) or {LEAST_SECONDS:g} to {MOST_SECONDS:g}"
VARIABLES = {variable.name: variable for variable in (  # each has a row in the README's table (a test says so)
    Variable("SOURCE_DATE_EPOCH", f"a whole number of seconds since 1970-01-01 UTC, 0 to {LATEST_EPOCH}",
             _whole(0, LATEST_EPOCH)),  # the date in the PDFs and the sitemap
    Variable("RULEPRESS_CACHE", "0 (no cache) or 1 (the content-hash cache, the default)", _switch),
    Variable("RULEPRESS_JOBS", f"a whole number of processes, 1 to {MOST_JOBS}", _whole(1, MOST_JOBS)),
    Variable("RULEPRESS_IMPORT_TIMEOUT", _SECONDS, _seconds),
    Variable("RULEPRESS_REPLAY_TIMEOUT", _SECONDS, _seconds),
    Variable("RULEPRESS_PROGRESS", "0 (never) or 1 (always); unset: on a terminal only", _switch),
)}


def value(name: str) -> Any:
    """The value of variable ``name`` (one of :data:`VARIABLES`), None when it is unset or empty."""
    variable = VARIABLES[name]
    text = os.environ.get(name, "")
    if text == "":
        return None
    try:
        return variable.parse(text)
    except (ValueError, OverflowError):
        raise SourceError(f"${name}", None, f"{excerpt(text)} is not accepted: {variable.accepts}") from None


def check() -> None:
    """Every variable rulepress reads, checked at once; the first bad one is raised (before any work)."""
    for name in VARIABLES:
        value(name)


def source_date_epoch() -> int | None:
    return value("SOURCE_DATE_EPOCH")  # type: ignore[no-any-return]


def cache_enabled() -> bool:
    return value("RULEPRESS_CACHE") is not False


def jobs(option: int | None = None) -> int | None:
    """Processes to use: ``option`` (the command line's, when given and positive), else ``$RULEPRESS_JOBS``, else
    None (one per core)."""
    if option:
        return option
    return value("RULEPRESS_JOBS")  # type: ignore[no-any-return]


def _seconds_of(name: str, default: float) -> float:
    found = value(name)
    return default if found is None else float(found)


def import_seconds(default: float) -> float:
    """How long importing one engine may take (0: no limit)."""
    return _seconds_of("RULEPRESS_IMPORT_TIMEOUT", default)


def replay_seconds(default: float) -> float:
    """How long replaying one example may take (0: no limit)."""
    return _seconds_of("RULEPRESS_REPLAY_TIMEOUT", default)


def progress() -> bool | None:
    """Whether to show progress (None: on a terminal only)."""
    return value("RULEPRESS_PROGRESS")  # type: ignore[no-any-return]
