"""Where the content lives: the project root, its books and their engines.

``rules_src/``, ``engine/`` and ``examples/`` are content found from the project root (as mkdocs
finds ``docs/``), never installed.  Engines are imported under the private package name
``rulepress_engines`` so that no top-level ``engine`` package can collide with anyone else's.
"""

from __future__ import annotations

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


def _engine_namespace(root: Path) -> ModuleType:
    existing = sys.modules.get(ENGINE_NAMESPACE)
    wanted = str((root / "engine").resolve())
    if existing is not None and list(getattr(existing, "__path__", [])) == [wanted]:
        return existing
    # A different root (tests build throwaway projects): forget engines imported from the old one.
    for name in [n for n in sys.modules if n == ENGINE_NAMESPACE or n.startswith(ENGINE_NAMESPACE + ".")]:
        del sys.modules[name]
    spec = importlib.util.spec_from_loader(ENGINE_NAMESPACE, loader=None, is_package=True)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__path__ = [wanted]
    sys.modules[ENGINE_NAMESPACE] = module
    return module


def load_engine(package: str, root: Path | None = None) -> ModuleType:
    """Import ``engine/<package>/`` of the project at ``root``."""
    _engine_namespace(root or find_root())
    return importlib.import_module(f"{ENGINE_NAMESPACE}.{package}")


@cache
def _default_root() -> Path:
    return find_root(Path(__file__).resolve().parent.parent)


def default_root() -> Path:
    """The project root when running from a checkout (tests, benchmarks)."""
    try:
        return find_root()
    except FileNotFoundError:
        return _default_root()
