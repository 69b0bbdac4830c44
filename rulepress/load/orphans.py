"""Files the build would silently ignore: a chapter not listed in book.yaml, a misspelt ``glosary.yaml``, an
example saved as ``.yml``, an examples folder for a book that does not exist. Each is almost always a mistake
whose effect (a missing chapter, an example never replayed) nobody would notice, so each is reported."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path

from rulepress.errors import SourceError
from rulepress.load.confine import shown as shown_path

LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Z]{2})?")  # a translation's folder name, as schemas/book.yaml's language

BOOK_FILES = ("book.yaml", "components.yaml", "glossary.yaml", "questions.yaml", "changelog.yaml",
              "prose_only.yaml", "provenance.yaml")


def _visible(folder: Path) -> list[Path]:
    """The entries of ``folder`` except hidden ones (editor and OS litter such as .DS_Store)."""
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if not path.name.startswith("."))


def unlisted_chapters(folder: Path, root: Path, listed: Iterable[str], line: int | None) -> list[SourceError]:
    """``.md`` files under ``folder``/chapters that book.yaml's ``chapters`` (at ``line``) does not list."""
    chapters = folder / "chapters"
    wanted = {(chapters / name).resolve() for name in listed}
    shown = shown_path(folder / "book.yaml", root)
    return [SourceError(shown, line, f"chapter file '{shown_path(path, root)}' is not listed under 'chapters' "
                                     "(the build would ignore it: list it or delete it)")
            for path in _visible(chapters)
            if path.suffix == ".md" and path.resolve() not in wanted]


def stray_book_files(folder: Path, root: Path) -> list[SourceError]:
    """YAML files in a book folder that are none of the files a book is made of (``glosary.yaml``)."""
    problems = []
    for path in _visible(folder):
        if path.suffix not in (".yaml", ".yml") or path.name in BOOK_FILES:
            continue
        close = difflib.get_close_matches(path.stem + ".yaml", BOOK_FILES, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"a book's files are {', '.join(BOOK_FILES)}"
        problems.append(SourceError(shown_path(path, root), None, f"unknown file in the book folder ({hint}); "
                                                                "the build would ignore it"))
    return problems


def stray_examples(folder: Path, root: Path) -> list[SourceError]:
    """Entries of an examples folder that are not ``<id>.yaml`` files, which the build would never replay.

    A folder named like a language (``fr/``) holds a translation's example texts: load/translations.py reads it,
    and :func:`undeclared_translations` reports it when book.yaml does not declare that language."""
    problems = []
    for path in _visible(folder):
        shown = shown_path(path, root)
        if path.is_dir() and LANGUAGE.fullmatch(path.name):
            continue
        if path.suffix == ".yml":
            problems.append(SourceError(shown, None, f"examples end in .yaml: rename it to '{path.stem}.yaml' "
                                                     "(the build would ignore it)"))
        elif path.suffix != ".yaml" or path.is_dir():
            problems.append(SourceError(shown, None, "not an example (examples are <id>.yaml files); the build "
                                                     "would ignore it"))
    return problems


def undeclared_translations(root: Path, book_id: str, translations: Iterable[str]) -> list[SourceError]:
    """Translation folders (``rules_src/<book>/<lang>/``, ``examples/<book>/<lang>/``) of a language book.yaml
    does not declare under ``translations``: the build would ignore them, so the gate refuses them (a translation
    is started by declaring it; its missing items are then warnings)."""
    declared = set(translations)
    problems = []
    for base in (root / "rules_src" / book_id, root / "examples" / book_id):
        for path in _visible(base):
            if path.is_dir() and LANGUAGE.fullmatch(path.name) and path.name not in declared:
                problems.append(SourceError(shown_path(path, root), None, f"a translation into '{path.name}' that "
                                            f"rules_src/{book_id}/book.yaml does not declare (add '{path.name}' to "
                                            "its 'translations', or delete the folder); the build would ignore it"))
    return problems


def stray_example_folders(root: Path, books: Iterable[str]) -> list[SourceError]:
    """Folders (or files) under examples/ that belong to no book in ``books``."""
    known = sorted(books)
    problems = []
    for path in _visible(root / "examples"):
        if path.is_dir() and path.name in known:
            continue
        close = difflib.get_close_matches(path.name, known, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"books: {', '.join(known) or 'none'}"
        what = "examples folder" if path.is_dir() else "file"
        problems.append(SourceError(shown_path(path, root), None, f"{what} for a book that does not exist: no "
                                                                f"rules_src/{path.name}/book.yaml ({hint})"))
    return problems
