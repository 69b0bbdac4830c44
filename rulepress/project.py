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

ENGINE_NAMESPACE = "rulepress_engines"


def find_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` holding ``rules_src/`` (or ``$RULEPRESS_ROOT``)."""
    env = os.environ.get("RULEPRESS_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "rules_src").is_dir() and (folder / "engine").is_dir():
            return folder
    raise FileNotFoundError(f"no rulepress project (a folder with rules_src/ and engine/) at or above {here}")


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
    """Import ``engine/<package>/`` of the project at ``root``."""
    name = _engine_namespace(root or find_root())
    return importlib.import_module(f"{name}.{package}")


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
