"""Errors people can act on: each names the file, the line (and column) and, where there is one, the rule."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class SourceError(Exception):
    """Bad input in a source file: malformed YAML, an unknown rule ID, an illegal move..."""

    file: Path | str
    line: int | None
    message: str
    rule: str | None = None
    column: int | None = None  # 1-based, where the input has one (YAML marks, schema keys, bad bytes)

    def __str__(self) -> str:
        where = str(self.file) + (f":{self.line}" if self.line else "")
        if self.line and self.column:
            where += f":{self.column}"
        suffix = f" [rule {self.rule}]" if self.rule else ""
        return f"{where}: {self.message}{suffix}"


class BuildRefused(Exception):
    """The build found problems and published nothing; ``problems`` says what, one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems

    def __reduce__(self) -> tuple[type[BuildRefused], tuple[list[str]]]:  # a PDF worker's refusal, sent back whole
        return BuildRefused, (self.problems,)


def relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
