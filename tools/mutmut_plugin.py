"""pytest plugin for mutmut runs (``-p tools.mutmut_plugin``): engines answer to the names mutmut gave their mutants.

mutmut names every mutant after its file (``engine/lantern/game.py`` -> ``engine.lantern.game``) and its trampoline
switches a mutant on only inside the module of that name.  rulepress imports engines under a private package named
after the engine's files (``rulepress_engines_<digest>``, rulepress/verify/engines.py), so a mutated engine would run
as ``rulepress_engines_<digest>.lantern.game``, a name mutmut never activates: every engine mutant would survive, and
no test would ever be recorded as reaching one.  Importing each engine of the mutated copy as ``engine.<package>``
and registering the same module objects under the name the loader gives it makes both names reach one module, so
``load_engine`` returns the trampolined code.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import os
import pkgutil
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

import rulepress
from rulepress.project import default_root, find_root
from rulepress.verify.engines import namespace_for

CONTENT = "engine"  # the folder, and the top-level package name mutmut derives from its paths
OUTSIDE = "outside_mutmut"  # the marker of a test that cannot run inside mutmut's process


class EngineAliasError(RuntimeError):
    """The mutated engines cannot be imported under both names; mutation scores would be meaningless."""


def alias_engines(root: Path) -> list[str]:
    """Import every ``<root>/engine/<package>/`` as ``engine.<package>`` and alias it under the loader's name.

    Returns the module names aliased.  Safe to call again (mutmut runs pytest several times in one process).
    """
    home = find_root(Path(rulepress.__file__).resolve().parent.parent)
    if root.resolve() != home:
        raise EngineAliasError(f"{root} is not the project rulepress was imported from ({home})")
    engines = (root / CONTENT).resolve()
    aliased: list[str] = []
    for package in sorted(p.name for p in engines.iterdir() if (p / "__init__.py").is_file()):
        namespace = namespace_for(engines / package, root)
        top = importlib.import_module(f"{CONTENT}.{package}")
        origin = Path(top.__file__ or "").resolve()
        if engines not in origin.parents:
            raise EngineAliasError(f"{CONTENT}.{package} was imported from {origin}, not from {engines}: "
                                   "another 'engine' package shadows the mutated copy")
        for info in pkgutil.iter_modules(top.__path__, prefix=f"{top.__name__}."):
            importlib.import_module(info.name)
        space = sys.modules.get(namespace)
        if space is None:
            space = ModuleType(namespace)
            space.__path__ = [str(engines)]
            sys.modules[namespace] = space
        prefix = f"{CONTENT}.{package}"
        for name, module in list(sys.modules.items()):
            if name == prefix or name.startswith(prefix + "."):
                alias = namespace + name[len(CONTENT):]
                sys.modules[alias] = module
                aliased.append(alias)
    for alias in aliased:
        parent, _, child = alias.rpartition(".")
        setattr(sys.modules[parent], child, sys.modules[alias])
    return aliased


# What mutmut writes into a mutated source file, and nowhere else (mutmut 3.8.1's trampolines).
TRAMPOLINE_IMPORT = "from mutmut.mutation.trampoline import wrap_in_trampoline as _mutmut_mutated, MutantDict"
_MUTANT_COPY = re.compile(r"x\S*__mutmut_(orig|\d+)")


def originals(root: Path) -> dict[str, str]:
    """sha256 of each mutated source file in the copy ``root`` -> the text of the file it was made from.

    The copy sits in the project (``<project>/mutants/``): a mutated ``<root>/engine/x/y.py`` was made from
    ``<project>/engine/x/y.py``."""
    project = root.resolve().parent
    found = {}
    for folder in (CONTENT, "rulepress"):
        for path in sorted((root / folder).rglob("*.py")):
            data = path.read_bytes()
            original = project / path.relative_to(root)
            if TRAMPOLINE_IMPORT.encode() in data and original.is_file():
                found[hashlib.sha256(data).hexdigest()] = original.read_text(encoding="utf-8", errors="replace")
    return found


def unmutate(text: str) -> str:
    """A mutated file's text without mutmut's additions: every function as the source had it.

    For a mutated file a test changed after copying it (so that it matches no file of the copy).  mutmut's
    generated code re-spaces blank lines, so line numbers can differ from the source's by a few."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    lines = text.split("\n")
    dropped: set[int] = set()  # 0-based line numbers

    def drop(first: int, last: int) -> None:
        dropped.update(range(first - 1, last))

    def added(node: ast.stmt) -> bool:
        if isinstance(node, ast.ImportFrom):
            return node.module == "mutmut.mutation.trampoline"
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            return any(ast.unparse(target).startswith("mutants_") for target in targets)
        return False

    for scope in [tree.body, *(node.body for node in tree.body if isinstance(node, ast.ClassDef))]:
        for node in scope:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _MUTANT_COPY.fullmatch(node.name):
                first = min([node.lineno, *(d.lineno - 1 for d in node.decorator_list)])
                while first > 1 and (not lines[first - 2].strip() or lines[first - 2].lstrip().startswith("#")):
                    first -= 1  # the comments above a function are copied with it
                drop(first, node.end_lineno or node.lineno)
            elif added(node):
                drop(node.lineno, node.end_lineno or node.lineno)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for decorator in node.decorator_list:
                    if "_mutmut_mutated" in ast.unparse(decorator):
                        drop(decorator.lineno, decorator.end_lineno or decorator.lineno)
    return "\n".join(line for index, line in enumerate(lines) if index not in dropped)


def read_sources_as_made(root: Path) -> None:
    """The gate's static checks read an engine's source (its decision marks, its rule IDs, the messages it marks
    for translation: rulepress.load.engine_source).  In the mutated copy, and in every copy a test makes of it,
    those files hold every mutant's version of each function (strings changed to ``"XX…XX"``, decision names in
    capitals): read as they are, the checks would report hundreds of problems before any mutant is switched on.
    They read the source the mutants were made from instead, found by the file's content, so a test's copy of a
    mutated engine is read as the engine too.  What a mutant changes is still caught by what the engine does."""
    from rulepress.load import engine_source

    if getattr(engine_source.read, "as_made", False):
        return  # mutmut runs pytest several times in one process
    made = originals(root)
    read = engine_source.read

    def as_made(path: Path, errors: str = "replace") -> str:
        text = read(path, errors)
        if TRAMPOLINE_IMPORT not in text:
            return text
        return made.get(hashlib.sha256(text.encode("utf-8")).hexdigest()) or unmutate(text)

    as_made.as_made = True  # type: ignore[attr-defined]
    as_made.original = read  # type: ignore[attr-defined]
    engine_source.read = as_made  # type: ignore[assignment]


STATS = "stats"  # what MUTANT_UNDER_TEST says while mutmut finds which tests reach which function


def stats_stay_in_this_process() -> bool:
    """In mutmut's stats run, the processes a test starts run the code as it is, not counting.

    A trampoline in stats mode records its hit through mutmut's configuration, which it reads from the working
    folder: a child process that runs rulepress elsewhere (a wheel installed in a new user's folder, the shared
    build in its own) stopped with "Could not figure out where the code to mutate is", and with it the run.  A
    child's hits were never counted anyway (they stay in its process).  The mutant is kept for this process
    (mutmut's own process-local copy, which its trampolines read when the variable is not set) and taken out of
    the environment children inherit.  Mutant runs are left alone: there a child runs the mutant, as it should.
    True when the run is mutmut's stats run."""
    if os.environ.get("MUTANT_UNDER_TEST") != STATS:
        return False
    from mutmut.mutation import trampoline

    trampoline.set_mutant_under_test(STATS)  # this process's copy (it sets the variable too)
    del os.environ["MUTANT_UNDER_TEST"]
    return True


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{OUTSIDE}(reason): a test that cannot run inside mutmut's process "
                                       "(tools/mutmut_plugin.py leaves it out of mutation runs)")
    alias_engines(default_root())
    read_sources_as_made(default_root())
    stats_stay_in_this_process()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out every test marked ``outside_mutmut``: it cannot run in mutmut's process (its reason says why)."""
    outside = [item for item in items if item.get_closest_marker(OUTSIDE) is not None]
    if outside:
        config.hook.pytest_deselected(items=outside)
        items[:] = [item for item in items if item.get_closest_marker(OUTSIDE) is None]
