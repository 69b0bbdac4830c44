"""Where the content lives: the project root (the folder holding ``rulepress.yaml``).

``rules_src/``, ``engine/`` and ``examples/`` are content found from the project root (as mkdocs
finds ``docs/``), never installed.  Importing the engines is the gate's (rulepress/verify/engines.py).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

MARKER = "rulepress.yaml"  # marks a project's root, as .git marks a repository's (`rulepress new` writes it)
ROOT_VARIABLE = "RULEPRESS_ROOT"


class ProjectNotFound(FileNotFoundError):
    """No project where one was looked for; the message is one line saying where and what to do."""


def is_project(folder: Path) -> bool:
    """A project's root: it holds the marker file, or (a folder named as the root) its books' ``rules_src/``."""
    return (folder / MARKER).is_file() or (folder / "rules_src").is_dir()


def find_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: ``$RULEPRESS_ROOT``, else here) holding ``rulepress.yaml``.

    Like git finding ``.git``: any subfolder of a project finds it."""
    if start is None:
        named = named_root(None)
        if named is not None:
            return named
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / MARKER).is_file():
            return folder
    raise ProjectNotFound(f"no rulepress project (a folder holding {MARKER}) at or above {here}: run "
                          f"'rulepress new BOOK' to start one, or name one with --root")


def named_root(explicit: str | None) -> Path | None:
    """The root named by ``--root`` (``explicit``) or else by ``$RULEPRESS_ROOT``, checked; None when neither is.

    A named root is taken as it is (no walking up): it must be a folder holding a project."""
    if explicit is not None:
        where = f"--root {explicit}"
        value = explicit
    else:
        value = os.environ.get(ROOT_VARIABLE, "")
        if not value:
            return None
        where = f"{ROOT_VARIABLE}={value}"
    folder = Path(value).expanduser()
    fix = "name a project's root folder" if explicit is not None else f"unset {ROOT_VARIABLE} or point it at a " \
                                                                       "project's root folder"
    if not folder.exists():
        raise ProjectNotFound(f"{where}: no such folder ({fix})")
    if not folder.is_dir():
        raise ProjectNotFound(f"{where}: not a folder ({fix})")
    if not is_project(folder):
        raise ProjectNotFound(f"{where}: not a rulepress project (no {MARKER} or rules_src/ in it; {fix})")
    return folder.resolve()


def project_root(explicit: str | None = None) -> Path:
    """The project a command works on: ``--root`` beats ``$RULEPRESS_ROOT``, which beats walking up from here."""
    return named_root(explicit) or find_root(Path.cwd())


@cache
def _default_root() -> Path:
    here = Path(__file__).resolve().parent.parent
    try:
        return find_root(here)
    except FileNotFoundError:
        return here


def default_root() -> Path:
    """The project root when running from a checkout (tests, benchmarks)."""
    try:
        return find_root()
    except FileNotFoundError:
        return _default_root()
