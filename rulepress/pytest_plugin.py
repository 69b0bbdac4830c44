"""The pytest plugin (entry point group ``pytest11``): a project's examples are its tests, as Sybil makes a
project's documentation examples tests.

With rulepress installed, ``pytest`` in a project collects each ``examples/<book>/<file>.yaml`` as one item
named by the example's ID, which replays it against the book's engine and fails with the very message
``rulepress verify`` prints for it; and each ``rules_src/<book>/book.yaml`` as one item named by the book's ID,
which fails with the book's own problems (its sources, its engine, its questions, its rules' coverage) as
``rulepress verify`` lists them.  A folder is a project when it holds ``rulepress.yaml``.
A file outside a project is left to pytest's other plugins: the plugin is there in every pytest run of an
environment holding rulepress (``-p no:rulepress`` turns it off).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rulepress.project import MARKER

_BOOKS = pytest.StashKey[dict[tuple[Path, str], "_Loaded"]]()


@dataclass
class _Loaded:
    """A book with its engine and the examples that loaded, or why it could not be loaded."""

    check: Any = None  # rulepress.verify.gate.BookCheck
    problems: list[str] = field(default_factory=list)  # the book's, or each example file's, one line each
    broken: list[str] = field(default_factory=list)  # the book itself did not load: every item fails with these


def _book_of(path: Path, folder: str) -> tuple[Path, str] | None:
    """(project root, book ID) when ``path`` is ``<root>/<folder>/<book>/<file>.yaml`` of a real book."""
    book = path.parent
    root = book.parent.parent
    if path.suffix != ".yaml" or book.parent.name != folder or not (root / MARKER).is_file():
        return None
    if not (root / "rules_src" / book.name / "book.yaml").is_file():
        return None  # an examples folder of no book: `rulepress verify` reports it, the book item does too
    return root.resolve(), book.name


def _loaded(config: pytest.Config, root: Path, book_id: str) -> _Loaded:
    """Each book is loaded once a session (its engine imported once), whichever of its files asks first."""
    from rulepress.errors import SourceError
    from rulepress.load.book import load_book
    from rulepress.load.problems import lines_of
    from rulepress.verify.gate import BookCheck, load_book_engine, load_every_example

    books = config.stash.setdefault(_BOOKS, {})
    if (root, book_id) not in books:
        try:
            book = load_book(root, book_id)
            engine = load_book_engine(book)
        except SourceError as exc:
            books[root, book_id] = _Loaded(broken=lines_of(exc))
        else:
            examples, problems = load_every_example(book)
            books[root, book_id] = _Loaded(BookCheck(book, engine, examples), problems)
    return books[root, book_id]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if _book_of(file_path, "examples") is not None:
        return ExampleFile.from_parent(parent, path=file_path)
    if file_path.name == "book.yaml" and _book_of(file_path, "rules_src") is not None:
        return BookFile.from_parent(parent, path=file_path)
    return None


class Failed(Exception):
    """What the command line prints for a failing example or book, shown as the item's failure."""


class _Item(pytest.Item):
    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str | Any:
        if isinstance(excinfo.value, Failed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


class ExampleFile(pytest.File):
    """One example file: one item, named by the example's ID (the file's name when it does not load)."""

    def collect(self) -> Iterator[pytest.Item]:
        found = _book_of(self.path, "examples")
        assert found is not None
        loaded = _loaded(self.config, *found)
        example = None
        if loaded.check is not None:
            example = next((e for e in loaded.check.examples if Path(e.file).resolve() == self.path.resolve()
                            or (found[0] / e.file).resolve() == self.path.resolve()), None)
        yield ExampleItem.from_parent(self, name=example.id if example is not None else self.path.stem,
                                      book=found, example=example)


class ExampleItem(_Item):
    def __init__(self, *, book: tuple[Path, str], example: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.book = book
        self.example = example

    def runtest(self) -> None:
        from rulepress.verify.replay import replay

        loaded = _loaded(self.config, *self.book)
        if loaded.broken:
            raise Failed("\n".join(loaded.broken))
        if self.example is None:  # the file did not load: its own problems, as `rulepress verify` lists them
            name = self.path.name
            mine = [line for line in loaded.problems if name in line]
            raise Failed("\n".join(mine or loaded.problems or [f"{self.path}: not loaded as an example"]))
        check = loaded.check
        result = replay(self.example, check.book, check.engine)
        if not result.ok:
            raise Failed(result.message)
        for name, checkpoint in result.checkpoints.items():
            if checkpoint.caption is not None and not (checkpoint.svg or "").lstrip().startswith("<svg"):
                raise Failed(f"{self.example.id} ({self.example.file}): checkpoint '{name}' has a diagram caption "
                             "but the engine drew no SVG")


class BookFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        found = _book_of(self.path, "rules_src")
        assert found is not None
        yield BookItem.from_parent(self, name=found[1], book=found)


class BookItem(_Item):
    """The book's own problems: what ``rulepress verify --book BOOK`` reports besides its examples' replays."""

    def __init__(self, *, book: tuple[Path, str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.book = book

    def runtest(self) -> None:
        from rulepress.analyze.translation_status import gate_findings
        from rulepress.verify.gate import verify

        root, book_id = self.book
        report = verify(root, [book_id], draw=False)
        problems = list(report.problems)
        for check in report.books:  # an undeclared translation (missing or stale items only warn, as in verify)
            problems += gate_findings(check)[0]
        if problems:
            raise Failed("\n".join(problems))
