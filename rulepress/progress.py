"""Progress on long commands (build, impact, analyze): a bar on a terminal, nothing when output is piped or logged.

The bar goes to stderr and is cleared when done, so what a command prints on stdout is the same either way.
``RULEPRESS_PROGRESS=0`` turns it off on a terminal too, ``=1`` forces it on (for trying it out).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm import tqdm

from rulepress import environment

T = TypeVar("T")


def wanted() -> bool:
    """Whether to show progress: only when stderr is a terminal, unless ``$RULEPRESS_PROGRESS`` says otherwise."""
    forced = environment.progress()
    return sys.stderr.isatty() if forced is None else forced


def bar(total: int, what: str, unit: str = "item", line: int = 0) -> tqdm:  # type: ignore[type-arg]
    """A bar to ``update()`` by hand (work that finishes out of order, in other processes).  ``line``: the
    terminal line it keeps to, counted down from the first (the site's pages, made in a process of their own while
    the PDFs render, keep to the line under the PDFs' bar)."""
    return tqdm(total=total, desc=what, unit=unit, disable=not wanted(), leave=False, file=sys.stderr,
                dynamic_ncols=True, position=line)


def iterate(items: Iterable[T], what: str, total: int | None = None, unit: str = "item") -> Iterator[T]:
    """``items``, one by one, with a bar while they are worked through."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with tqdm(items, total=total, desc=what, unit=unit, disable=not wanted(), leave=False, file=sys.stderr,
              dynamic_ncols=True) as shown:
        yield from shown
