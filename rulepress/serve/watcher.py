"""Which books a change to the watched sources reaches: a book's own sources and examples, or its engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

WATCHED = ("rules_src", "examples", "engine", "site_src")  # site_src: the theme's overrides and assets
Stamp = dict[str, tuple[int, int]]  # relative path -> (mtime_ns, size)


def stamp(root: Path) -> Stamp:
    """Every watched file's mtime and size (bytecode and editors' swap files left out)."""
    found: Stamp = {}
    for top in WATCHED:
        folder = root / top
        if not folder.is_dir():
            continue
        for path in folder.rglob("*"):
            if "__pycache__" in path.parts or path.name.startswith((".", "#")) or path.name.endswith("~"):
                continue
            try:
                info = path.stat()
            except OSError:  # removed while we looked
                continue
            if path.is_file():
                found[path.relative_to(root).as_posix()] = (info.st_mtime_ns, info.st_size)
    return found


def changed(before: Stamp, after: Stamp) -> list[str]:
    """Files added, removed or changed between two stamps, sorted."""
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


@dataclass
class Reach:
    books: set[str] = field(default_factory=set)  # books to verify again
    engines: set[str] = field(default_factory=set)  # engine packages to import afresh
    site: bool = False  # the theme changed: render again, nothing to verify


def reach(paths: list[str], engines: dict[str, str]) -> Reach:
    """The books ``paths`` can affect; ``engines`` maps each known book to its engine package.

    A book's own sources or examples reach that book; an engine's files reach every book that uses it.
    A change to ``book.yaml`` may switch engines, so the book is reloaded whatever it named before.
    """
    found = Reach()
    for path in paths:
        parts = path.split("/")
        if parts[0] == "site_src":
            found.site = True
            continue
        if len(parts) < 3:
            continue
        top, name = parts[0], parts[1]
        if top in ("rules_src", "examples"):
            found.books.add(name)
        elif top == "engine":
            found.engines.add(name)
            found.books |= {book for book, package in engines.items() if package == name}
    return found
