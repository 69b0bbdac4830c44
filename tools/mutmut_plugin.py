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

import importlib
import pkgutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

import rulepress
from rulepress.project import default_root, find_root
from rulepress.verify.engines import namespace_for

CONTENT = "engine"  # the folder, and the top-level package name mutmut derives from its paths


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


def read_catalog_messages_from_the_original(root: Path) -> None:
    """Babel reads the messages an engine marks for translation from its source files; in the mutated copy those
    files hold every mutant's version of each function, strings changed to ``"XX…XX"``, so the catalog check
    (run by the gate on every verify of a bundled book) would report hundreds of untranslated messages before any
    mutant is switched on.  Extract from the original engine instead: the catalogs are checked as on the real
    tree, and a mutant that changes what is narrated is still caught by the narration it produces."""
    from rulepress import i18n

    copy = (root / CONTENT).resolve()
    original = root.resolve().parent / CONTENT  # mutants/ sits in the project root
    if not original.is_dir() or getattr(i18n.extract, "reads_original", False):
        return
    extract = i18n.extract

    def from_original(folder: Path) -> dict[i18n.Key, i18n.Said]:
        folder = Path(folder).resolve()
        if folder.is_relative_to(copy) and (original / folder.relative_to(copy)).is_dir():
            folder = original / folder.relative_to(copy)
        return extract(folder)

    from_original.reads_original = True  # type: ignore[attr-defined]
    i18n.extract = from_original  # type: ignore[assignment]


def pytest_configure(config: pytest.Config) -> None:
    alias_engines(default_root())
    read_catalog_messages_from_the_original(default_root())
