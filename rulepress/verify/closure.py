"""What an engine imports, followed through rulepress: what the in-browser bundle must carry, and what it cannot.

A site page lets a reader try moves by running the book's engine in the browser, under Pyodide (vendored in
``rulepress/render/theme/assets/vendor/pyodide/``: nothing is fetched).  The bundle carries the engine's own files,
the rulepress modules they import (and those these import, at module level, transitively), and the pure-Python
libraries those need (:data:`SHIPPED`); Pyodide brings its standard library.  Both lists come from here, read with
``ast`` (nothing runs):

* :func:`engine_closure` walks every import of the engine's files (module level or inside a function; not those
  under ``if TYPE_CHECKING:``, which never run) and of the modules named as roots (the referee), and the
  module-level imports of every rulepress module reached (an import inside a rulepress function is one the engine
  never calls there: the palette's PIL);
* :func:`browser_problems` is the gate's check (``rulepress verify``, every build) that a book whose site lets
  readers try moves (``try_moves``, on by default) has an engine the browser can run: an import of a module
  Pyodide does not carry (numpy, any C extension, any package outside the standard library and what rulepress
  ships) is refused at its file and line, naming the module and what to do.  Pyodide's lock lists packages it
  could download: the site is offline, so none of them is carried.
"""

from __future__ import annotations

import ast
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from rulepress.data import package_path
from rulepress.errors import SourceError, relative
from rulepress.load.book import Book
from rulepress.load.yamlsrc import line_of
from rulepress.protocol import EngineSpec
from rulepress.store import cached_data, declare, key_of
from rulepress.verify.engines import engine_digest, engine_files, parsed

PACKAGE = package_path()  # rulepress/
PYODIDE = package_path("render", "theme", "assets", "vendor", "pyodide")
SHIPPED = ("babel", "yaml")
"""Pure-Python libraries the bundle carries as installed (their C speed-ups stay behind: each falls back)."""
ENGINE_MAY_IMPORT = ("protocol", "basegame", "memory", "change", "marks", "figures", "cmyk", "textwidth", "i18n",
                     "errors")
"""The modules of rulepress an engine imports: its base layer (no stage: what the in-browser referee carries too).
Never a stage (``rulepress.render``, ``rulepress.verify``...): those import what the browser lacks, or need it later."""
REFEREE = ("render/browser/referee.py",)
"""What the page itself runs besides the engine (a root of the bundle's closure)."""
_CORE = frozenset({"sys", "builtins", "marshal", "_warnings", "_frozen_importlib", "_frozen_importlib_external",
                   "__future__"})  # in every Python, compiled into its core


@dataclass(frozen=True)
class Import:
    """One import statement: the module it names, and where."""

    module: str  # absolute, "numpy.linalg", "rulepress.basegame"
    file: Path
    line: int


@dataclass
class Closure:
    """The rulepress modules an engine needs (paths under ``rulepress/``, package ``__init__`` files included), the
    libraries they and the engine import, and each import of a module outside both with the chain that reached it."""

    modules: list[str] = field(default_factory=list)
    libraries: set[str] = field(default_factory=set)
    outside: list[tuple[Import, str]] = field(default_factory=list)  # (the engine's import, what it needs)
    staged: list[Import] = field(default_factory=list)  # the engine's imports of rulepress beyond its base layer


def imports_of(path: Path, module: str, *, everywhere: bool) -> list[Import]:
    """The imports of ``path`` (the module named ``module``), relative ones resolved; ``everywhere``: in functions too.
    Those under ``if TYPE_CHECKING:`` never run and are left out.  Only statements are walked: an expression holds
    no import statement."""
    tree = parsed(path)
    if tree is None:
        return []  # the gate reports a file that does not parse (verify.trace)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(body: Iterable[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.extend(Import(alias.name, path, node.lineno) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and _added_by_mutmut(node):
                continue  # not the engine's: a mutation run's copy of the code (nox -s mutants) carries it
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, package)
                if base is not None:
                    found.append(Import(base, path, node.lineno))
                    # ``from rulepress import i18n``: a module of the package, when it names one
                    found.extend(Import(f"{base}.{alias.name}", path, node.lineno) for alias in node.names
                                 if alias.name != "*" and _rulepress_file(f"{base}.{alias.name}") is not None)
            elif isinstance(node, ast.If) and _type_checking(node.test):
                visit(node.orelse)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not everywhere:
                continue
            else:
                for inner in _BODIES:
                    visit(getattr(node, inner, ()))
                for handler in getattr(node, "handlers", ()):
                    visit(handler.body)
                for case in getattr(node, "cases", ()):
                    visit(case.body)

    visit(tree.body)
    return found


_BODIES = ("body", "orelse", "finalbody")  # the statement lists of a compound statement


def _added_by_mutmut(node: ast.ImportFrom) -> bool:
    """Whether ``node`` is the one import mutmut puts at the top of each file it mutates (its trampoline); an import
    of mutmut written by hand is the engine's own, and the browser check still refuses it."""
    return node.module == "mutmut.mutation.trampoline" and not node.level and \
        any(alias.asname == "_mutmut_mutated" for alias in node.names)


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _absolute(node: ast.ImportFrom, package: str) -> str | None:
    if not node.level:
        return node.module
    parts = package.split(".")
    if node.level - 1 > len(parts):
        return None
    base = ".".join(parts[:len(parts) - (node.level - 1)])
    return f"{base}.{node.module}" if node.module else base


def _rulepress_file(module: str) -> Path | None:
    """The file of a rulepress module (``rulepress.load.po`` -> ``rulepress/load/po.py``), if it is one."""
    parts = module.split(".")
    if parts[0] != "rulepress":
        return None
    folder = PACKAGE.joinpath(*parts[1:])
    for candidate in (folder / "__init__.py", folder.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def engine_closure(folder: Path, namespace: str, roots: Iterable[str] = ()) -> Closure:
    """What the engine in ``folder`` (imported as ``namespace.<folder name>``) and the rulepress files ``roots``
    (paths under ``rulepress/``, run whole: the referee) need, followed through rulepress."""
    closure = Closure()
    top = f"{namespace}.{folder.name}"
    reached: dict[str, Path] = {}  # every rulepress module needed -> its file
    pending: list[tuple[Import, str, Import | None]] = []  # (an import, the chain so far, the engine's import)
    for path in engine_files(folder, folder.parent.parent, skip_links=True):
        if path.suffix != ".py":
            continue
        name = ".".join([top, *path.relative_to(folder).with_suffix("").parts])
        name = name.removesuffix(".__init__")
        pending += [(imp, imp.module, imp) for imp in imports_of(path, name, everywhere=True)]
    for root in roots:
        path = PACKAGE / root
        name = "rulepress." + ".".join(Path(root).with_suffix("").parts).removesuffix(".__init__")
        pending.append((Import(name, path, 0), name, None))
    while pending:
        imp, chain, first = pending.pop(0)
        head = imp.module.split(".")[0]
        if imp.module == top or imp.module.startswith(top + "."):
            continue  # the engine's own modules: carried whole
        if head != "rulepress":
            closure.libraries.add(head)
            if first is not None and not carried(head):
                closure.outside.append((first, chain))
            continue
        parts = imp.module.split(".")
        if first is imp and len(parts) > 1 and parts[1] not in ENGINE_MAY_IMPORT:
            closure.staged.append(imp)
        for depth in range(1, len(parts) + 1):  # each package on the way is run too
            module = ".".join(parts[:depth])
            path = _rulepress_file(module)
            if path is None or module in reached:
                continue  # a name inside a module (``rulepress.protocol.Event``), or one followed already
            reached[module] = path
            whole = first is None and module == imp.module  # a root (the referee) runs whole
            for inner in imports_of(path, module, everywhere=whole):
                pending.append((inner, f"{chain}, which imports {inner.module}", first))
    closure.modules = sorted(path.relative_to(PACKAGE).as_posix() for path in reached.values())
    return closure


CLOSURES = declare("closure", keep=100)  # an engine's import closure, kept under its files (and rulepress's code)


def cached_closure(folder: Path, namespace: str, roots: tuple[str, ...] = ()) -> Closure:
    """:func:`engine_closure`, worked out again only when a file of the engine (or rulepress's code) changed."""
    project = folder.parent.parent
    key = key_of(engine_digest(folder, project, skip_links=True), namespace, *roots)

    def plain() -> dict[str, Any]:
        found = engine_closure(folder, namespace, roots)
        place = {imp: [imp.module, relative(imp.file, project), imp.line]
                 for imp in [*(first for first, _ in found.outside), *found.staged]}
        return {"modules": found.modules, "libraries": sorted(found.libraries),
                "outside": [[*place[imp], chain] for imp, chain in found.outside],
                "staged": [place[imp] for imp in found.staged]}

    kept = cached_data(project, CLOSURES, key, plain)
    return Closure(list(kept["modules"]), set(kept["libraries"]),
                   [(Import(module, project / file, line), chain) for module, file, line, chain in kept["outside"]],
                   [Import(module, project / file, line) for module, file, line in kept["staged"]])


@cache
def pyodide_modules() -> frozenset[str]:
    """The top-level modules the vendored Pyodide carries: its standard library (``python_stdlib.zip``) and the
    extension modules compiled into its interpreter (each has a ``PyInit_<name>`` in ``pyodide.asm.wasm``)."""
    names = set(_CORE)
    with zipfile.ZipFile(PYODIDE / "python_stdlib.zip") as archive:
        for entry in archive.namelist():
            first = entry.split("/")[0]
            if first != "site-packages":
                names.add(first.removesuffix(".py"))
    names.update(match.decode() for match in re.findall(rb"PyInit_(\w+)", (PYODIDE / "pyodide.asm.wasm").read_bytes()))
    return frozenset(names)


def carried(module: str) -> bool:
    """Whether the in-browser Python can import the top-level module ``module`` (rulepress is packed separately)."""
    return module in SHIPPED or module in pyodide_modules()


def pyodide_version() -> str:
    found = re.search(r"Pyodide (\S+)", (PYODIDE / "SOURCE.txt").read_text(encoding="utf-8"))
    return found.group(1) if found else "?"


def browser_problems(book: Book, engine: EngineSpec) -> list[str]:
    """The engine's imports of rulepress beyond its base layer (:data:`ENGINE_MAY_IMPORT`), and, for a book whose
    site lets readers try moves, those the in-browser Python cannot satisfy: each at its file and line."""
    folder = book.root / "engine" / book.engine_package
    found = cached_closure(folder, engine.module_name.rpartition(".")[0])
    problems = [str(SourceError(relative(imp.file, book.root), imp.line, f"engine '{book.engine_package}' imports "
                                f"{imp.module}: an engine imports only rulepress's base modules (rulepress."
                                f"{', '.join(ENGINE_MAY_IMPORT)}), which its book's site can run too"))
                for imp in found.staged]
    if book.data.get("try_moves", True) is False:
        return problems
    said = set()
    for imp, chain in found.outside:
        if (imp.module, chain) in said:
            continue
        said.add((imp.module, chain))
        needs = chain.rsplit(" ", 1)[-1].split(".")[0]
        through = f" ({chain})" if chain != imp.module else ""
        problems.append(str(SourceError(
            relative(imp.file, book.root), imp.line,
            f"engine '{book.engine_package}' imports {imp.module}{through}: the in-browser Python (Pyodide "
            f"{pyodide_version()}) has no {needs}, so readers could not try moves on {book.id}'s site. Use the "
            f"standard library and rulepress's base modules only, or set 'try_moves: false' in "
            f"{book.path('book.yaml')}" + (f" (line {line_of(book.data, 'try_moves')})"
                                           if "try_moves" in book.data else ""))))
    return problems
