"""Where the content lives: the project root, its books and their engines.

``rules_src/``, ``engine/`` and ``examples/`` are content found from the project root (as mkdocs
finds ``docs/``), never installed.  Engines are imported under the private package name
``rulepress_engines`` so that no top-level ``engine`` package can collide with anyone else's.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from rulepress.errors import SourceError, relative

if TYPE_CHECKING:
    from rulepress.verify.limits import Place

ENGINE_NAMESPACE = "rulepress_engines"


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


def namespace_for(root: Path) -> str:
    """The package name engines of ``root`` are imported under.

    The project this checkout is gets ``rulepress_engines``; any other project (a test's throwaway copy,
    an old revision) gets its own name, so engines of several roots can live in one process.
    """
    root = root.resolve()
    if root == _default_root():
        return ENGINE_NAMESPACE
    return f"{ENGINE_NAMESPACE}_{hashlib.sha1(str(root).encode()).hexdigest()[:10]}"


def _engine_namespace(root: Path) -> str:
    name = namespace_for(root)
    if name not in sys.modules:
        spec = importlib.util.spec_from_loader(name, loader=None, is_package=True)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        module.__path__ = [str((root / "engine").resolve())]
        sys.modules[name] = module
    return name


def load_engine(package: str, root: Path | None = None) -> ModuleType:
    """Import ``engine/<package>/`` of the project at ``root``.

    Any failure is a :class:`SourceError` against the engine's own file and line: a syntax error, an
    exception or ``sys.exit`` while importing, or an import that takes longer than
    :func:`~rulepress.verify.limits.import_seconds` (an endless loop at module level).
    """
    from rulepress.load import confine
    from rulepress.verify.limits import EngineFault, engine_guard, import_seconds  # verify imports this module

    root = (root or find_root()).resolve()
    name = _engine_namespace(root)
    loaded = sys.modules.get(f"{name}.{package}")
    if loaded is not None:  # imported (and its files checked) before: the module Python would give again
        return loaded  # (`rulepress serve` drops an edited engine's modules, rulepress.serve.session.forget_engine)
    folder = root / "engine" / package
    shown = relative(folder, root)
    if not folder.resolve().is_relative_to((root / "engine").resolve()):  # a symlink out: code we never reviewed
        raise SourceError(shown, None, f"engine '{package}' resolves outside the project's engine/ folder "
                                       f"({folder.resolve()}); engines must live inside the project")
    for source in sorted(folder.rglob("*.py")):  # Python tolerates some bad bytes in comments; we name them
        confine.decode(source.read_bytes(), relative(source, root))
    guard = engine_guard(folder, root, import_seconds())
    try:
        with guard:
            return importlib.import_module(f"{name}.{package}")
    except EngineFault as fault:
        raise _import_error(package, shown, fault.detail, fault.place) from None
    except SyntaxError as exc:
        file = relative(Path(exc.filename), root) if exc.filename else shown
        raise SourceError(file, exc.lineno, f"engine '{package}' does not parse: {exc.msg}",
                          column=exc.offset or None) from exc
    except Exception as exc:  # any failure while importing an engine is the engine's, named as such
        raise _import_error(package, shown, f"{type(exc).__name__}: {exc}", guard.place_of(exc)) from exc


def _import_error(package: str, shown: str, detail: str, place: Place | None) -> SourceError:
    """Against the innermost engine line the failure passed through (the package folder when none did)."""
    if place is None:
        return SourceError(shown, None, f"engine '{package}' cannot be imported: {detail}")
    inside = f" (in function {place.function})" if place.function != "<module>" else ""
    return SourceError(place.file, place.line, f"engine '{package}' cannot be imported: {detail}{inside}")


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
