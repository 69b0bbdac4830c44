"""Loading a project's engines: each package imported once, its one declaration (``ENGINE``) read and checked.

An engine is ``engine/<package>/`` of the project, found from its root (as mkdocs finds ``docs/``), never
installed.  It is imported under a private package name, ``rulepress_engines_<digest>``, where the digest is of the
engine's own files and name: the same engine gives the same names wherever the project lives (its referee bundle,
the positions it keeps and its site are byte for byte the same in any folder, on any machine), and two projects
whose engines differ can be loaded in one process without colliding (two copies of the same engine share one
import, which is the same code).

The package exports one thing, ``ENGINE = rulepress.protocol.EngineSpec(...)``: :func:`load_engine` refuses a
package without it (naming the loose exports it still has, ``BOOK_ID``, ``OPTIONS``...), a declaration that is not
an ``EngineSpec``, and a field that is unknown, missing or of the wrong type, at the field's own line with "did you
mean".  :func:`check_book_engine` then holds the declaration to the book it implements and to the game it makes
(players, chance, information, the options a BaseGame resolves).  This module is the only one that reads an engine
package's attributes: everything else reads the :class:`~rulepress.protocol.EngineSpec`.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import importlib
import importlib.util
import os
import stat
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

from rulepress.errors import SourceError, relative
from rulepress.load import confine, engine_source
from rulepress.load.book import Book
from rulepress.load.rules import rule_hint
from rulepress.load.yamlsrc import line_of
from rulepress.project import find_root
from rulepress.protocol import (
    OLD_EXPORTS,
    OPTIONAL_METHODS,
    EngineSpec,
    EngineSpecError,
    Information,
    declare_rules,
    observer_of,
    provided,
    register_engine,
)
from rulepress.verify.limits import EngineFault, Place, engine_guard, import_seconds

ENGINE_NAMESPACE = "rulepress_engines"
DECLARATION = "ENGINE"  # the one name an engine package exports


@dataclass(frozen=True)
class Kept:
    """What :func:`forget_engine` took away, to put back with :func:`restore_engine`."""

    key: tuple[Path, str]
    spec: EngineSpec | None
    modules: dict[str, ModuleType]


_LOADED: dict[tuple[Path, str], EngineSpec] = {}  # (project root, package) -> the engine loaded from there


def engine_files(folder: Path, root: Path, *, skip_links: bool = False) -> list[Path]:
    """The engine's own files, in a stable order: regular files inside ``folder``, bytecode left out.

    A symbolic link anywhere inside (to a file or a folder) is refused (:class:`SourceError`), or with
    ``skip_links`` left out: what an engine is made of is its folder's own files, which the gate reads, the referee
    bundle carries and its import name digests; a link could bring in anything from outside the project
    (``zz_notes.po -> /etc/passwd``)."""
    found: list[Path] = []
    for top, folders, files in os.walk(folder, followlinks=False):
        here = Path(top)
        for name in sorted(folders + files):
            path = here / name
            if stat.S_ISLNK(path.lstat().st_mode) and not skip_links:  # named as it is, never where it points
                shown = path.relative_to(root) if path.is_relative_to(root) else path
                raise SourceError(str(shown), None, f"a symbolic link in engine '{folder.name}': an engine's files "
                                  f"must be regular files inside its folder (copy the file in)")
        folders[:] = sorted(name for name in folders if name != "__pycache__" and not (here / name).is_symlink())
        found.extend(here / name for name in files if not name.endswith(".pyc")
                     and stat.S_ISREG((here / name).lstat().st_mode))
    return sorted(found)


def engine_digest(folder: Path, root: Path, *, skip_links: bool = False) -> str:
    """SHA-256 of the engine's name and its files (relative names and bytes): what its import name is made from."""
    files = engine_files(folder, root, skip_links=skip_links)
    stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    return _digest(folder, stamp)


@cache
def _digest(folder: Path, stamp: tuple[tuple[str, int, int], ...]) -> str:
    digest = hashlib.sha256(folder.name.encode() + b"\0")
    for name, _, _ in stamp:
        path = Path(name)
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def namespace_for(folder: Path, root: Path) -> str:
    """The package name the engine in ``folder`` is imported under: the same for the same files, wherever they are."""
    return f"{ENGINE_NAMESPACE}_{engine_digest(folder, root)[:12]}"


def _namespace(name: str, root: Path) -> None:
    if name not in sys.modules:
        spec = importlib.util.spec_from_loader(name, loader=None, is_package=True)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        module.__path__ = [str((root / "engine").resolve())]
        sys.modules[name] = module


def load_engine(package: str, root: Path | None = None) -> EngineSpec:
    """Import ``engine/<package>/`` of the project at ``root`` and return its checked declaration.

    Any failure is a :class:`SourceError` against the engine's own file and line: a syntax error, an
    exception or ``sys.exit`` while importing, an import that takes longer than
    :func:`~rulepress.verify.limits.import_seconds` (an endless loop at module level), a symbolic link among its
    files, no ``ENGINE`` or a wrong one.  Loaded once per project and package (:func:`forget_engine` drops it).
    """
    root = (root or find_root()).resolve()
    loaded = _LOADED.get((root, package))
    if loaded is not None:  # imported (and its files checked) before: the engine Python would give again
        return loaded
    folder = root / "engine" / package
    shown = relative(folder, root)
    if not folder.resolve().is_relative_to((root / "engine").resolve()):  # a symlink out: code we never reviewed
        raise SourceError(shown, None, f"engine '{package}' resolves outside the project's engine/ folder "
                                       f"({folder.resolve()}); engines must live inside the project")
    for source in engine_files(folder, root):  # Python tolerates some bad bytes in comments; we name them
        if source.suffix == ".py":
            confine.decode(source.read_bytes(), relative(source, root))
    name = namespace_for(folder, root)
    module = sys.modules.get(f"{name}.{package}")
    if module is None:
        module = _import(name, package, folder, root)
    spec = _declaration(module, package, root)
    _LOADED[(root, package)] = spec
    return spec


def _import(name: str, package: str, folder: Path, root: Path) -> ModuleType:
    _namespace(name, root)
    shown = relative(folder, root)
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
    except EngineSpecError as exc:  # ENGINE = EngineSpec(...) declared wrongly: at the field's own line
        place = guard.place_of(exc)
        file, line = (place.file, place.line) if place is not None else (f"{shown}/__init__.py", None)
        line = _field_line(root / file, line, exc.field) or line
        raise SourceError(file, line, f"engine '{package}': {exc.message} (rulepress guide engine, "
                                      f"\"The package\")") from None
    except Exception as exc:  # any failure while importing an engine is the engine's, named as such
        raise _import_error(package, shown, f"{type(exc).__name__}: {exc}", guard.place_of(exc)) from exc


def _import_error(package: str, shown: str, detail: str, place: Place | None) -> SourceError:
    """Against the innermost engine line the failure passed through (the package folder when none did)."""
    if place is None:
        return SourceError(shown, None, f"engine '{package}' cannot be imported: {detail}")
    inside = f" (in function {place.function})" if place.function != "<module>" else ""
    return SourceError(place.file, place.line, f"engine '{package}' cannot be imported: {detail}{inside}")


def _declaration(module: ModuleType, package: str, root: Path) -> EngineSpec:
    """The package's ``ENGINE``, registered (:func:`rulepress.protocol.register_engine`); refused when missing."""
    init = Path(module.__file__ or root / "engine" / package / "__init__.py")
    shown = relative(init, root)
    exported = vars(module)
    spec = exported.get(DECLARATION)
    if spec is None:
        old = [name for name in OLD_EXPORTS if name in exported and not name.startswith("_")]
        if old:
            fields = ", ".join(f"{OLD_EXPORTS[name]}=..." for name in old)
            raise SourceError(shown, _assigned_line(init, old), f"engine '{package}' has the loose exports "
                              f"{', '.join(old)}, which rulepress no longer reads: declare them in one "
                              f"ENGINE = rulepress.protocol.EngineSpec({fields}, min_num_players=..., ...) "
                              f"(rulepress guide engine, \"The package\")")
        raise SourceError(shown, None, f"engine '{package}' declares no ENGINE = rulepress.protocol.EngineSpec(...) "
                                       f"(rulepress guide engine, \"The package\")")
    if not isinstance(spec, EngineSpec):
        raise SourceError(shown, _assigned_line(init, [DECLARATION]), f"engine '{package}': ENGINE must be a "
                          f"rulepress.protocol.EngineSpec, not {type(spec).__name__}")
    if spec.module_name != module.__name__:
        register_engine(spec, module.__name__)
    return spec


def _assigned_line(file: Path, names: list[str]) -> int | None:
    """The first line of ``file`` that assigns (or defines) one of ``names`` at module level."""
    tree = _tree(file)
    for node in tree.body if tree is not None else ():
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AnnAssign) else []
        named = [t.id for t in targets if isinstance(t, ast.Name)]
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            named = [node.name]
        if isinstance(node, ast.ImportFrom | ast.Import):
            named = [alias.asname or alias.name.split(".")[0] for alias in node.names]
        if set(named) & set(names):
            return node.lineno
    return None


def parsed(file: Path) -> ast.Module | None:
    """``file`` parsed (None when it cannot be read or does not parse), once per version of the file in this
    process: the loader, the decisions' marks and the import closure each read an engine's sources, all through
    the one seam that says what an engine's source is (rulepress.load.engine_source: the mutation tests replace
    it, and a file read through another is a new version)."""
    try:
        info = file.stat()
    except OSError:
        return None
    return _parsed(str(file), info.st_mtime_ns, info.st_size, engine_source.read)


@lru_cache(maxsize=512)
def _parsed(file: str, mtime: int, size: int, read: Callable[..., str]) -> ast.Module | None:
    try:
        return ast.parse(read(Path(file)))
    except (OSError, SyntaxError, ValueError):
        return None


_tree = parsed


@dataclass(frozen=True)
class SourceFacts:
    """What the gate's source checks read off one parse of an engine file, in one walk of its tree."""

    strings: tuple[tuple[int, str], ...]  # every string literal (an f-string's pieces are not), in source order
    calls: tuple[ast.Call, ...]  # every call


@lru_cache(maxsize=512)
def source_facts(tree: ast.Module) -> SourceFacts:
    """The :class:`SourceFacts` of ``tree`` (``parsed`` gives one tree per version of a file, so each version is
    walked once per run: the rule-ID trace and the decisions' marks both ask)."""
    strings, calls, pieces = [], [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                strings.append(node)
        elif isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, ast.JoinedStr):
            pieces.update(id(part) for part in node.values)
    return SourceFacts(tuple(sorted((node.lineno, node.value) for node in strings if id(node) not in pieces)),
                       tuple(calls))


def _field_line(file: Path, line: int | None, field: str | None) -> int | None:
    """The line of ``field=`` in the ``EngineSpec(...)`` call of ``file`` (the one spanning ``line``, if given)."""
    tree = _tree(file)
    if tree is None or field is None:
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _called(node) != "EngineSpec":
            continue
        if line is not None and not node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        for keyword in node.keywords:
            if keyword.arg == field:
                return keyword.value.lineno if keyword.lineno is None else keyword.lineno
        return node.lineno
    return None


def _called(node: ast.Call) -> str | None:
    return node.func.id if isinstance(node.func, ast.Name) else node.func.attr \
        if isinstance(node.func, ast.Attribute) else None


def field_place(spec: EngineSpec, field: str, root: Path) -> tuple[str, int | None]:
    """Where ``field`` of ``spec`` is declared: the engine's ``__init__.py`` and the keyword's line."""
    module = sys.modules.get(spec.module_name)
    init = Path(module.__file__) if module is not None and module.__file__ else root / "engine" / spec.package
    project = init.parent.parent.parent
    return relative(init, project), _field_line(init, None, field)


def engine_folder(spec: EngineSpec) -> Path:
    """The folder the engine's code was imported from (what a fault's file:line is looked for in)."""
    module = sys.modules[spec.module_name]
    return Path(module.__file__ or "").parent


def forget_engine(root: Path, package: str) -> Kept:
    """Drop an engine so the next :func:`load_engine` reads its files again; returns what was dropped, for
    :func:`restore_engine` to put back if the new code does not verify (``rulepress serve``)."""
    key = (root.resolve(), package)
    spec = _LOADED.pop(key, None)
    modules: dict[str, ModuleType] = {}
    if spec is not None and not any(other is spec for other in _LOADED.values()):  # no other project shares it
        prefix = spec.module_name
        modules = {name: sys.modules.pop(name) for name in list(sys.modules)
                   if name == prefix or name.startswith(prefix + ".")}
    return Kept(key, spec, modules)


def restore_engine(kept: Kept) -> None:
    """Put back what :func:`forget_engine` dropped (and drop what was loaded since): :func:`load_engine` returns it
    again, whatever is on disk."""
    forget_engine(*kept.key)
    if kept.spec is not None:
        _LOADED[kept.key] = kept.spec
    sys.modules.update(kept.modules)


# -- the declaration held to its book and its game ---------------------------------------------------------------

def check_book_engine(book: Book, spec: EngineSpec) -> None:
    """The declaration against the book it implements: the book's id and player counts, its ending rules; the
    book's rules are declared, so that an event or a refusal naming another rule is refused where it is made."""
    if spec.book_id != book.id:
        raise SourceError(book.path("book.yaml"), line_of(book.data, "engine"),
                          f"engine '{book.engine_package}' says it implements '{spec.book_id}', not '{book.id}'")
    players = book.data.get("players")
    if isinstance(players, Mapping):
        wanted = (players.get("min"), players.get("max"))
        declared = (spec.min_num_players, spec.max_num_players)
        if wanted != declared:
            file, line = field_place(spec, "min_num_players", book.root)
            raise SourceError(file, line, f"engine '{book.engine_package}' declares {declared[0]} to {declared[1]} "
                                          f"players (min_num_players, max_num_players), where "
                                          f"{book.path('book.yaml')} says {wanted[0]} to {wanted[1]}")
    unknown = [rule for rule in spec.end_rules if rule not in book.rules]
    if unknown:
        file, line = field_place(spec, "end_rules", book.root)
        raise SourceError(file, line, f"engine '{book.engine_package}': end_rules names {unknown[0]!r}, which book "
                                      f"{book.id} does not have{rule_hint(unknown[0], book.rules)}")
    declare_rules(spec.module_name, book.id, book.rules)


def game_problems(spec: EngineSpec, game: Any, root: Path) -> list[str]:
    """The declaration against the game it makes (the default one): what kind of game it says it is."""

    problems = []

    def wrong(field: str, message: str) -> None:
        file, line = field_place(spec, field, root)
        problems.append(str(SourceError(file, line, f"engine '{spec.package}': {message}")))

    has_observer = observer_of(game) is not None
    if has_observer != (spec.information is Information.IMPERFECT_INFORMATION):
        wrong("information", f"information is {spec.information.value!r}, but the game "
                             f"{'has' if has_observer else 'has no'} observer (a seat that cannot see a part of "
                             f"the state is imperfect information)")
    # A game on the base class holds the declaration to its own CHANCE, PLAYERS and OPTIONS (BaseGame.against).
    against = provided(game, "against")
    for field_name, message in against(spec) if against is not None else ():
        wrong(field_name, message)
    problems += misspelt_methods(type(game), root)
    return problems


def misspelt_methods(kind: type, root: Path) -> list[str]:
    """The game's own methods named close to an optional method of the protocol (``acton_step``, ``legnd``): the tool
    looks a capability up by its name (protocol.provided), so a misspelt one is a capability silently lost."""
    found = []
    ours = [owner for owner in kind.__mro__ if owner.__module__.split(".")[0] in ("rulepress", "builtins")]
    known = {name for owner in ours for name in vars(owner)}  # the base class's methods, overridden or not
    for owner in kind.__mro__:
        if owner in ours:
            continue
        for name, member in vars(owner).items():
            if name in OPTIONAL_METHODS or name in known or name.startswith("_") or not callable(member):
                continue
            close = difflib.get_close_matches(name, OPTIONAL_METHODS, n=1, cutoff=0.8)
            if close:
                code = getattr(member, "__code__", None)
                file = relative(Path(code.co_filename), root) if code is not None else owner.__module__
                found.append(str(SourceError(file, code.co_firstlineno if code is not None else None,
                                             f"the game's method {name!r} is no method the tool calls: did you mean "
                                             f"{close[0]!r}? ({OPTIONAL_METHODS[close[0]]})")))
    return found


def engine_module(spec: EngineSpec) -> ModuleType:
    """The engine package itself, for what only its own tests reach (its solver, its action type)."""
    return sys.modules[spec.module_name]
