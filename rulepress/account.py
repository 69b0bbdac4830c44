"""CPU seconds by part of a build: what `nox -s bench` accounts a cold build's CPU with (benchmarks/bench.py).

Each process keeps its own account (process time, every thread of it), part by part, each second in exactly one
part: a part opened inside another is taken out of the outer one.  A process that works for the build (a PDF
worker, the site's or the question impacts' process) sends its account back with its result, and the build's
process adds it to its own (:func:`add`).  Knows no stage: any stage may mark its parts.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

_ACCOUNT: dict[str, float] = {}
_OPEN: list[list[float]] = []  # each open part: the seconds spent in parts opened inside it


@contextmanager
def part(name: str) -> Iterator[None]:
    """The CPU time of the block, less that of the parts inside it, is ``name``'s."""
    start = time.process_time()
    _OPEN.append([0.0])
    try:
        yield
    finally:
        inner = _OPEN.pop()[0]
        spent = time.process_time() - start
        _ACCOUNT[name] = _ACCOUNT.get(name, 0.0) + spent - inner
        if _OPEN:
            _OPEN[-1][0] += spent


def add(account: Mapping[str, float]) -> None:
    """Another process's account, into this one's."""
    for name, seconds in account.items():
        _ACCOUNT[name] = _ACCOUNT.get(name, 0.0) + seconds


def taken() -> dict[str, float]:
    """This process's account so far, which then starts again from nothing (a forked process starts with what its
    parent had: it takes it first, and sends only its own)."""
    found = dict(_ACCOUNT)
    _ACCOUNT.clear()
    return found
