"""Collect every source problem of a load, not just the first, and raise them together."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from rulepress.errors import SourceError

MAX_PROBLEMS = 50  # enough to fix a bad afternoon's edits; more would bury the first real cause


class SourceErrors(SourceError):
    """Several source problems at once. It *is* a SourceError (the first one's file, line, message and rule), so
    callers that catch SourceError keep working; ``errors`` holds them all and ``str()`` gives one per line."""

    def __init__(self, errors: list[SourceError], more: int = 0) -> None:
        first = errors[0]
        super().__init__(first.file, first.line, first.message, first.rule, first.column)
        self.errors = errors
        self.more = more

    def lines(self) -> list[str]:
        tail = [f"... and {self.more} more problem(s) not shown"] if self.more else []
        return [str(error) for error in self.errors] + tail

    def __str__(self) -> str:
        return "\n".join(self.lines())


def lines_of(error: SourceError) -> list[str]:
    """One line per problem of ``error`` (one for a plain SourceError)."""
    return error.lines() if isinstance(error, SourceErrors) else [str(error)]


class Collector:
    """Gathers SourceErrors; ``raise_if_any`` raises the single one as is, or several as :class:`SourceErrors`."""

    def __init__(self, limit: int = MAX_PROBLEMS) -> None:
        self.errors: list[SourceError] = []
        self.limit = limit
        self.more = 0

    def __bool__(self) -> bool:
        return bool(self.errors)

    def add(self, error: SourceError) -> None:
        for one in error.errors if isinstance(error, SourceErrors) else [error]:
            if len(self.errors) < self.limit:
                self.errors.append(one)
            else:
                self.more += 1
        if isinstance(error, SourceErrors):
            self.more += error.more

    def extend(self, errors: Iterable[SourceError]) -> None:
        for error in errors:
            self.add(error)

    @contextmanager
    def collecting(self) -> Iterator[None]:
        """Run a block, recording (instead of raising) the SourceError it raises."""
        try:
            yield
        except SourceError as error:
            self.add(error)

    def raise_if_any(self) -> None:
        if len(self.errors) == 1 and not self.more:
            raise self.errors[0]
        if self.errors:
            raise SourceErrors(list(self.errors), self.more)
