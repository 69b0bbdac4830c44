"""Imports run one way: a lower stage never imports a higher one, at module level or inside a function.

    (errors, progress, protocol, store, cmyk, basegame, textwidth, environment, data, guides: no stage) < load < verify
    < render/analyze < publish < serve < cli

Every module of rulepress/ is read with ``ast`` (every ``import`` and ``from ... import`` anywhere in it, under
``if TYPE_CHECKING:`` too, relative ones resolved); its rank is its folder's, or for a module at the top of the
package the one :data:`RANKS` gives it (docs/ARCHITECTURE.md says why).  render and analyze share a rank.
"""

from __future__ import annotations

import ast
import functools
import shutil
from pathlib import Path

import pytest

import rulepress
from rulepress.verify.closure import ENGINE_MAY_IMPORT

PACKAGE = Path(rulepress.__file__).parent

RANKS = {
    # no stage: the engine protocol and its base class, errors, progress bars, the store, the inks, text widths
    "__init__": 0, "errors": 0, "progress": 0, "protocol": 0, "store": 0, "cmyk": 0, "proof": 0, "basegame": 0,
    "codec": 0, "textwidth": 0, "usercache": 0,  # usercache: what is made from the installed files, kept for the user
    "environment": 0, "account": 0, "data": 0, "guides": 0,  # environment variables; CPU by part; package data; guides
    "audience": 0,  # who a passage is for: text rules over the loaded model (the loader and the renderers read it)
    "change": 0, "marks": 0, "figures": 0,  # what a step changed, the marks that show it, what engines draw as data
    "memory": 0,  # what each seat of a game was shown: the base class's information states
    "placing": 0, "routes": 0, "svgboxes": 0,  # where marks go, an arrow's way; a drawing's boxes and labels read
    "load": 1, "i18n": 1,  # reading sources; gettext catalogs are sources read through load.confine
    "project": 1,  # finding the project's root, where its sources are
    "verify": 2,  # the gate, which imports a project's engines (verify/engines.py) under its time limits
    "render": 3, "analyze": 3,
    "openspiel": 3,  # the OpenSpiel adapter and its players (an optional extra): analyze imports it only when asked
    "publish": 4,
    "serve": 5,
    "cli": 6, "__main__": 6, "scaffold": 6,  # the command line and `rulepress new`, one of its commands
    "pytest_plugin": 6,  # an entry point like the command line: every example as a pytest item
}


def module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def stage(name: str) -> str:
    """``rulepress.load.book`` -> ``load``; ``rulepress`` -> ``__init__``."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imported(path: Path, package: Path) -> list[tuple[int, str]]:
    """Every rulepress module ``path`` imports anywhere (line, dotted name); ``from rulepress import x`` names
    ``rulepress.x``."""
    return _imported_from(path.read_text(encoding="utf-8"), module_name(path, package), path.name == "__init__.py",
                          package.name)


@functools.cache
def _imported_from(text: str, name: str, is_package: bool, package: str) -> list[tuple[int, str]]:
    """``imported`` of a module's text, parsed once per text: the planted-import cases read the package's copy
    twice each, and every file but the planted one is the same text."""
    tree = ast.parse(text, filename=name)
    here = name.split(".")
    inside = here if is_package else here[:-1]  # the package a relative import starts from
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(inside[:len(inside) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            if base == package:  # from rulepress import store, cli...
                found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, base))
    return [(line, found_name) for line, found_name in found
            if found_name == package or found_name.startswith(package + ".")]


def upward_imports(package: Path) -> list[str]:
    """One line per import of a higher stage, and per module whose stage has no rank."""
    problems = []
    for path in sorted(package.rglob("*.py")):
        own = stage(module_name(path, package))
        shown = path.relative_to(package.parent)
        if own not in RANKS:
            problems.append(f"{shown}: '{own}' has no rank in tests/test_import_direction.py (give it one)")
            continue
        for line, name in imported(path, package):
            target = stage(name)
            if target not in RANKS:
                problems.append(f"{shown}:{line}: imports {name}, which has no rank (no such module?)")
            elif RANKS[target] > RANKS[own]:
                problems.append(f"{shown}:{line}: {own} (rank {RANKS[own]}) imports {name} ({target}, rank "
                                f"{RANKS[target]}): pass a value or a callable in, or move the code")
    return problems


def test_no_module_imports_a_higher_stage() -> None:
    assert upward_imports(PACKAGE) == []


def test_every_top_level_module_and_stage_has_a_rank() -> None:
    names = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()
             if path.suffix == ".py" or (path.is_dir() and (path / "__init__.py").is_file())}
    assert names - set(RANKS) == set()
    assert set(RANKS) - names == set()  # no rank for a module that is gone


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The package's Python files, to plant imports in (not rulepress/samples, a link to the sample books: package
    data whose engines are checked as engines, below)."""
    target = tmp_path / "rulepress"
    shutil.copytree(PACKAGE, target, ignore=lambda folder, names: [
        name for name in names if not name.endswith(".py") and not (Path(folder) / name).is_dir()
        or name == "__pycache__" or (Path(folder) / name).is_symlink()])
    assert upward_imports(target) == []
    return target


@pytest.mark.parametrize(("module", "planted", "says"), [
    ("load/yamlsrc.py", "from rulepress.publish.build import build\n", "load (rank 1) imports rulepress.publish.build"),
    ("load/yamlsrc.py", "def later():\n    from rulepress.verify import gate\n", "imports rulepress.verify"),
    ("verify/replay.py", "from ..render import site\n", "verify (rank 2) imports rulepress.render"),
    ("verify/gate.py", "if TYPE_CHECKING:\n    from rulepress.serve.session import Session\n",
     "imports rulepress.serve.session"),
    ("store.py", "import rulepress.load.book\n", "store (rank 0) imports rulepress.load.book"),
    ("protocol.py", "from rulepress import cli\n", "imports rulepress.cli"),
    ("publish/build.py", "class Later:\n    def run(self):\n        import rulepress.serve.server\n",
     "publish (rank 4) imports rulepress.serve.server"),
    ("render/site.py", "from rulepress import cache\n", "imports rulepress.cache, which has no rank"),
])
def test_a_planted_upward_import_is_found_at_its_line(copy: Path, module: str, planted: str, says: str) -> None:
    path = copy / module
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\n\n" + planted, encoding="utf-8")
    line = text.count("\n") + 3 + planted.count("\n") - 1
    found = upward_imports(copy)
    assert len(found) == 1 and says in found[0] and found[0].startswith(f"rulepress/{module}:{line}:"), found


def test_a_module_of_no_known_stage_is_refused(copy: Path) -> None:
    (copy / "helpers.py").write_text("import os\n", encoding="utf-8")
    assert upward_imports(copy) == ["rulepress/helpers.py: 'helpers' has no rank in tests/test_import_direction.py "
                                    "(give it one)"]


# --- engines import only the base layer: what the in-browser referee carries (rulepress/verify/closure.py) -------

ENGINE_MAY = set(ENGINE_MAY_IMPORT)  # rulepress's base layer, as the gate holds every engine to it
ROOT = PACKAGE.parent


def engine_imports(folder: Path) -> list[str]:
    """One line per import of a rulepress module beyond :data:`ENGINE_MAY` in the engine package ``folder``."""
    problems = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            problems += [f"{path.relative_to(folder.parent.parent)}:{node.lineno}: imports {name}" for name in names
                         if name.startswith("rulepress.") and stage(name) not in ENGINE_MAY]
    return problems


@pytest.mark.parametrize("folder", sorted([*ROOT.glob("engine/*/"), *ROOT.glob("samples/*/engine/*/"),
                                           *ROOT.glob("tests/fixtures/*/engine/*/")], key=str),
                         ids=lambda folder: folder.name)
def test_engines_import_only_the_base_layer(folder: Path) -> None:
    assert engine_imports(folder) == []


def test_what_engines_may_import_is_the_no_stage_layer() -> None:
    assert {RANKS[name] for name in ENGINE_MAY} <= {0, 1} and RANKS["i18n"] == 1  # i18n: the narration's catalogs
    assert {name for name in ENGINE_MAY if RANKS[name] == 1} == {"i18n"}


def test_an_engine_importing_the_render_stage_is_found(tmp_path: Path) -> None:
    folder = tmp_path / "engine" / "game"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("from rulepress.protocol import Event\n"
                                        "from rulepress.render.palette import rgb\n")
    assert engine_imports(folder) == ["engine/game/__init__.py:2: imports rulepress.render.palette"]


def test_the_gate_reads_a_game_on_the_base_class_through_its_own_methods() -> None:
    """The base class is the engines' side: no loader or gate module imports it (what the gate needs of a game on
    it, it asks the game: ``BaseGame.against``, ``derived_schemas``; the figures' frame is rulepress.figures')."""
    found = [f"{path.relative_to(PACKAGE)}:{line}" for stage_name in ("load", "verify")
             for path in sorted((PACKAGE / stage_name).rglob("*.py"))
             for line, name in imported(path, PACKAGE) if name == "rulepress.basegame"]
    assert found == []
