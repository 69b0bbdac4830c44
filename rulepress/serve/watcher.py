"""Which books a change to the watched sources reaches: a book's own sources and examples, or its engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

WATCHED = ("rules_src", "examples", "engine", "site_src")  # site_src: the theme's overrides and assets
CONFIG = "mkdocs.yml"
Stamp = dict[str, tuple[int, int]]  # relative path -> (mtime_ns, size)


def site_tops(root: Path) -> list[str]:
    """What the site is made from besides the books, as paths from ``root``: ``mkdocs.yml`` and the folders it has
    mkdocs read (its ``docs_dir``, its theme's ``custom_dir``, a Markdown extension's include folders), those
    inside the project; a change to any of them is the site's."""
    from rulepress.errors import SourceError
    from rulepress.load import site_folders

    tops = [CONFIG, "site_src"]
    try:
        folders = site_folders.folders(root)
    except SourceError:  # mkdocs.yml cannot be read now: its own change is still seen
        folders = []
    base = root.resolve()
    for folder in folders:
        try:
            relative = folder.resolve().relative_to(base).as_posix()
        except (ValueError, OSError, RuntimeError):
            continue
        if relative not in (".", "") and relative not in tops:
            tops.append(relative)
    return tops


def stamp(root: Path) -> Stamp:
    """Every watched file's mtime and size (bytecode and editors' swap files left out): the books' sources, and
    every file the site is made from (:func:`site_tops`)."""
    found: Stamp = {}
    config = root / CONFIG
    if config.is_file():
        info = config.stat()
        found[CONFIG] = (info.st_mtime_ns, info.st_size)
    for top in dict.fromkeys([*WATCHED, *site_tops(root)]):
        if top == CONFIG:
            continue
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


def reach(paths: list[str], engines: dict[str, str], site: list[str] | None = None) -> Reach:
    """The books ``paths`` can affect; ``engines`` maps each known book to its engine package; ``site``: what the
    site is made from (:func:`site_tops`; ``mkdocs.yml`` and ``site_src/`` when not given).

    A book's own sources or examples reach that book; an engine's files reach every book that uses it.
    A change to ``book.yaml`` may switch engines, so the book is reloaded whatever it named before.
    """
    found = Reach()
    tops = site if site is not None else [CONFIG, "site_src"]
    for path in paths:
        parts = path.split("/")
        if any(path == top or path.startswith(f"{top}/") for top in tops):
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
