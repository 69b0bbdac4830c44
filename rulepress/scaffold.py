"""``rulepress new BOOK``: a working skeleton of a new book that passes ``rulepress verify`` and builds at once.

It writes the book data, one chapter, an engine on :class:`rulepress.basegame.BaseGame` and worked examples, one
played and one refused setup, from a template small enough to read in a minute and replace with the real game
(``--template``: ``race``, a race to a target count; ``dice``, the same with a die drawn through ``Chance``;
``cards``, a hidden hand with an observer and a forced deal).  ``--from`` copies a shipped sample book instead.
In a folder that is no project yet it also starts one: the marker file (``rulepress.yaml``), a README naming the
guides and a ``.gitignore`` for what the build writes.  Inside a project the book is one more.  Nothing existing
is ever overwritten.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from string import Template

import yaml

from rulepress.errors import excerpt, os_problem
from rulepress.project import MARKER

BOOK_ID = re.compile(r"[a-z][a-z0-9-]*")  # matched whole: "$" would let a name ending in a newline by
PREFIX = re.compile(r"[a-z]+")
MOST_ID = 64  # characters of a book ID: it names folders and files (examples/<id>/<id>-first-race.yaml)


class ScaffoldError(Exception):
    """The skeleton cannot be written (a bad name, or a file that already exists): nothing was written."""


@dataclass(frozen=True)
class Names:
    book: str  # the book ID: rules_src/<book>/, examples/<book>/
    package: str  # engine/<package>/
    prefix: str  # every rule ID starts with "<prefix>."
    title: str


def names_for(book: str, prefix: str | None = None, title: str | None = None) -> Names:
    """The names a book ID implies; raises ScaffoldError naming what is wrong with a bad one."""
    if not BOOK_ID.fullmatch(book):
        raise ScaffoldError(f"{excerpt(book)} cannot be a book ID: use lower case letters, digits and '-', "
                            "starting with a letter (e.g. tic-tac-toe)")
    if len(book) > MOST_ID:
        raise ScaffoldError(f"{excerpt(book)} cannot be a book ID: at most {MOST_ID} characters (it names folders "
                            "and files)")
    chosen = prefix if prefix is not None else "".join(part[0] for part in book.split("-") if part)
    if not PREFIX.fullmatch(chosen):
        raise ScaffoldError(f"{excerpt(chosen)} cannot be a rule prefix: use lower case letters only (--prefix)")
    shown = title or " ".join(part.capitalize() for part in book.split("-"))
    return Names(book, book.replace("-", "_"), chosen, shown)


def skeleton(names: Names, template: str = "race") -> dict[str, str]:
    """Every file of the skeleton, by its path under the project root: the template's files
    (rulepress/templates/<template>/, as Django's ``startproject`` keeps its own) with ``$book``, ``$package``,
    ``$prefix`` and ``$title_yaml`` filled in, in their names too; ``.py-tpl`` files are written as ``.py`` (so that
    neither Python nor ruff takes the unfilled templates for modules)."""
    if template not in TEMPLATES:
        raise ScaffoldError(f"no template {excerpt(template)} (templates: {', '.join(TEMPLATES)})")
    fill = {"book": names.book, "package": names.package, "prefix": names.prefix,
            "title_yaml": yaml.safe_dump(names.title, default_style='"').strip()}
    return {Template(path.removesuffix("-tpl")).substitute(fill): Template(text).substitute(fill)
            for path, text in _tree(SHIPPED / "templates" / template).items()}


def sample_files(sample: str, new_project: bool) -> tuple[Names, dict[str, str]]:
    """A shipped sample project's book, copied as it is, under its own book ID and rule prefix (renaming the IDs
    of rules and examples inside its engine and prose would be a rewrite, not a copy); in a new project its
    ``rulepress.yaml`` and README too."""
    if sample not in SAMPLES:
        raise ScaffoldError(f"no sample {excerpt(sample)} (samples: {', '.join(SAMPLES)})")
    folder = SHIPPED / "samples" / sample
    files = {path: folder.joinpath(path).read_text(encoding="utf-8")
             for path in ((MARKER, "README.md") if new_project else ())}
    for part in ORDER:  # only these: a sample built in the repository also holds its site/ and caches
        files.update(_tree(folder / part, f"{part}/"))
    book = yaml.safe_load(files[f"rules_src/{sample}/book.yaml"])
    return Names(book["id"], book["engine"], book["rule_prefix"], book["title"]), files


def _tree(folder: Traversable, under: str = "") -> dict[str, str]:
    """Every text file below ``folder`` (a folder of the installed package), by its path under it: the book's
    folders first (rules_src, engine, examples), each folder's files in name order."""
    files: dict[str, str] = {}
    for entry in sorted(folder.iterdir(), key=lambda entry: (ORDER.get(entry.name, len(ORDER)), entry.name)):
        if entry.is_dir() and entry.name != "__pycache__":
            files.update(_tree(entry, f"{under}{entry.name}/"))
        elif entry.is_file() and not entry.name.endswith(".pyc"):
            files[f"{under}{entry.name}"] = entry.read_text(encoding="utf-8")
    return files


def _shipped(kind: str) -> tuple[str, ...]:
    folder = SHIPPED / kind
    return tuple(sorted(entry.name for entry in folder.iterdir() if entry.is_dir())) if folder.is_dir() else ()


SHIPPED = resources.files("rulepress")  # the templates and samples ship in the wheel (pyproject.toml package-data)
ORDER = {"rules_src": 0, "engine": 1, "examples": 2}
TEMPLATES = ("race", "dice", "cards")  # the first is the default; each a folder of rulepress/templates/
SAMPLES = _shipped("samples")  # rulepress/samples: a link to the repository's samples/, copied into the wheel


def write_skeleton(root: Path, names: Names, template: str = "race") -> list[Path]:
    """Write the template's skeleton under ``root`` (created when missing) and return the files written."""
    files = skeleton(names, template)
    if not (root / MARKER).is_file():  # a new project: what makes the folder one, and its first README
        files = {**project_files(names, existing=root), **files}
    return write_book(root, names, files)


def write_sample(root: Path, sample: str) -> list[Path]:
    """Copy the shipped sample ``sample`` under ``root`` as :func:`write_skeleton` writes a template."""
    new_project = not (root / MARKER).is_file()
    names, files = sample_files(sample, new_project)
    if new_project:  # the sample's own marker and README (unless the folder has one), then a new project's others
        own = {path: files.pop(path) for path in (MARKER, "README.md")}
        files = {**{path: text for path, text in own.items() if not (root / path).exists()},
                 **{path: text for path, text in project_files(names, existing=root).items() if path not in own},
                 **files}
    return write_book(root, names, files)


def write_book(root: Path, names: Names, files: dict[str, str]) -> list[Path]:
    """Write ``files`` (by path under ``root``) of the book ``names``; return the files written.

    Everything is checked before anything is written: the book, its engine and its examples must not exist, no
    other book of the project may use the rule prefix, and every file's way down from ``root`` must be folders
    of the project (a symlink leading out of it, ``engine/`` linked elsewhere, or a file where a folder goes is
    refused).  If writing fails all the same (a full disk), what was written is removed again: a refusal leaves
    nothing behind.
    """
    for folder in (f"rules_src/{names.book}", f"engine/{names.package}", f"examples/{names.book}"):
        if os.path.lexists(root / folder):
            raise ScaffoldError(f"{folder} already exists: choose another book ID (nothing was written)")
    for other in sorted((root / "rules_src").glob("*/book.yaml")) if (root / "rules_src").is_dir() else []:
        try:
            data = yaml.safe_load(other.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError, ValueError):
            continue  # a broken book is verify's to report, not ours
        if isinstance(data, dict) and data.get("rule_prefix") == names.prefix:
            raise ScaffoldError(f"rule prefix '{names.prefix}' is already used by {other.relative_to(root)}: "
                                f"choose another with --prefix (nothing was written)")
    for path in files:
        _check_way(root, path)
    made: list[Path] = []  # each folder and file written, in order, to be removed again if a later one fails
    try:
        for path, text in files.items():
            target = root / path
            _folders(target.parent, made)
            handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
            made.append(target)
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
    except OSError as exc:
        _remove(made)
        raise ScaffoldError(f"{os_problem(exc)} (nothing was written)") from None
    except BaseException:
        _remove(made)
        raise
    return [path for path in made if path.is_file() and not path.is_symlink()]


def _check_way(root: Path, path: str) -> None:
    """Refuse the file ``path`` (under ``root``) unless every part of its way that exists is a folder inside the
    project and the file itself is not there; and unless the system takes each name (a 250-letter book ID would
    make ``examples/<book>/<book>-first-race.yaml`` a name too long)."""
    try:
        longest = os.pathconf(_existing(root), "PC_NAME_MAX")
    except (OSError, ValueError):
        longest = 255
    base = root.resolve()
    here = root
    parts = Path(path).parts
    for index, part in enumerate(parts):
        if len(part.encode("utf-8")) > longest:
            raise ScaffoldError(f"{excerpt(part)} is longer than a file name may be here ({longest} bytes): "
                                "choose a shorter book ID (nothing was written)")
        here = here / part
        if not os.path.lexists(here):
            continue
        shown = "/".join(parts[:index + 1])
        if index == len(parts) - 1:
            raise ScaffoldError(f"{shown} already exists (nothing was written)")
        try:
            resolved = here.resolve()
        except (OSError, RuntimeError):  # a symlink loop
            raise ScaffoldError(f"{shown} is a symlink that cannot be followed (nothing was written)") from None
        if not resolved.is_relative_to(base):
            raise ScaffoldError(f"{shown} is a symlink to {resolved}, outside the project: rulepress new writes "
                                "only inside it (nothing was written)")
        if not here.is_dir():
            raise ScaffoldError(f"{shown} is a file, where the book's folders go (nothing was written)")


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _folders(folder: Path, made: list[Path]) -> None:
    """Make ``folder`` and its missing parents, each recorded in ``made``."""
    missing = []
    while not os.path.lexists(folder):
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir()
        made.append(path)


def _remove(made: list[Path]) -> None:
    for path in reversed(made):
        try:
            path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
        except OSError:
            pass


def project_files(names: Names, existing: Path) -> dict[str, str]:
    """The files a new project starts with (those ``existing`` does not hold yet)."""
    files = {MARKER: MARKER_TEXT, "README.md": Template(README).substitute(book=names.book, title=names.title),
             ".gitignore": GITIGNORE}
    return {path: text for path, text in files.items() if not (existing / path).exists()}


MARKER_TEXT = """\
# This folder is a rulepress project: books in rules_src/, their engines in engine/, their examples in examples/.
# rulepress commands find it from any subfolder (as git finds .git); the file's content is not read.
"""

GITIGNORE = """\
/site/
.rulepress-cache/
.pytest_cache/
__pycache__/
"""

README = """\
# $title

A rulebook made with rulepress: the rules in `rules_src/$book/`, the engine that plays them in `engine/`, and
the worked examples in `examples/$book/`, each replayed against the engine on every build.

```sh
rulepress verify          # replay every example against the engine
rulepress build           # then the website in site/ and three PDF editions in site/pdf/
rulepress preflight       # read the PDFs back as a printer would
pytest                    # the examples as tests, one per example ID (pip install pytest; your CI)
rulepress serve           # a live preview while you write
```

The guides ship with rulepress; print them with `rulepress guide NAME`:

- `rulepress guide engine`: writing the engine (replace the skeleton's game with yours)
- `rulepress guide formats`: the book's files (book.yaml, components, chapters, examples, questions...)
- `rulepress guide analysis`: simulated play and the text checked against its data
- `rulepress guide translations`: translated editions

A second book goes beside this one: `rulepress new OTHER-BOOK` from anywhere in this folder. The site's settings
need no file; a `mkdocs.yml` here adds to them (site name, colours, extra pages in `site_src/`, extra CSS).
"""
