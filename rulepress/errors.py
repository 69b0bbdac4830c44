"""Errors people can act on: each names the file, the line (and column) and, where there is one, the rule.

A message quotes what it refused (a key, a value, a name) so the reader can find it, but never more than an
excerpt of it (:func:`excerpt`, :func:`bounded`): a 500,000-character tile name, or a name ending in a newline or
holding a terminal's escape codes, must still give one short, readable line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MOST_QUOTED = 60  # characters of a quoted value an error shows
MOST_WORD = 200  # characters of one unbroken run in a message (a path is shorter; a pasted value is cut)
MOST_MESSAGE = 2000  # characters of one message, whatever it quotes
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")  # every C0/C1 control character but the tab
_LONG_WORD = re.compile(rf"\S{{{MOST_WORD + 1},}}")


def _escape(text: str) -> str:
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


def excerpt(value: object, most: int = MOST_QUOTED) -> str:
    """``value`` quoted for an error message: control characters escaped (``'evil\\n'``), and at most ``most``
    characters of it, with its length when it was cut (``'zzzz…' (500000 characters)``)."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= most:
        return f"'{_escape(text)}'"
    return f"'{_escape(text[:most])}…' ({len(text)} characters)"


def bounded(message: str, most: int = MOST_MESSAGE) -> str:
    """``message`` as one line of at most about ``most`` characters: control characters (newlines too) escaped,
    every unbroken run longer than :data:`MOST_WORD` (a value an engine or a library quoted whole) cut to its
    first :data:`MOST_QUOTED` characters and its length, and the rest cut at ``most``."""
    if len(message) <= MOST_WORD and not _CONTROL.search(message):
        return message
    message = _escape(message)
    message = _LONG_WORD.sub(lambda m: f"{m.group(0)[:MOST_QUOTED]}… ({len(m.group(0))} characters)", message)
    if len(message) > most:
        message = f"{message[:most]}… ({len(message)} characters)"
    return message


@dataclass
class SourceError(Exception):
    """Bad input in a source file: malformed YAML, an unknown rule ID, an illegal move..."""

    file: Path | str
    line: int | None
    message: str
    rule: str | None = None
    column: int | None = None  # 1-based, where the input has one (YAML marks, schema keys, bad bytes)

    def __str__(self) -> str:
        where = bounded(str(self.file), 300) + (f":{self.line}" if self.line else "")
        if self.line and self.column:
            where += f":{self.column}"
        suffix = f" [rule {self.rule}]" if self.rule else ""
        return f"{where}: {bounded(self.message)}{suffix}"


class BuildRefused(Exception):
    """The build found problems and published nothing; ``problems`` says what, one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems

    def __reduce__(self) -> tuple[type[BuildRefused], tuple[list[str]]]:  # a PDF worker's refusal, sent back whole
        return BuildRefused, (self.problems,)


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and the noun it counts, singular for one: "1 book", "3 books", "2 problems"."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def problem_kind(problem: str) -> str:
    """What a gate problem is about, from the file it names first: the engine, the rule text, or the source file's
    name (``provenance.yaml``, ``mkdocs.yml``); "other" for a problem that names no file."""
    place = problem.split(":", 1)[0].strip()
    if " " in place or ("/" not in place and "." not in place):  # words, not a file
        return "other"
    parts = Path(place).parts
    if parts and parts[0] == "engine":
        return "engine"
    if "chapters" in parts:
        return "rule text"
    if parts and parts[0] == "examples":
        return "examples"
    return Path(place).name


def relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def os_problem(exc: OSError, place: Path | str | None = None) -> str:
    """An operating-system failure as one line naming what it hit: the file the error names, else ``place`` (the
    file or folder being written), and the system's words (``No space left on device``), never a bare errno."""
    words = exc.strerror or str(exc) or type(exc).__name__
    target = exc.filename if exc.filename is not None else place
    if target is None:
        return words
    shown = str(target)
    if exc.filename2 is not None:
        shown += f" -> {exc.filename2}"
    return f"{shown}: {words}" if exc.filename is not None else f"{words} (while writing {shown})"
