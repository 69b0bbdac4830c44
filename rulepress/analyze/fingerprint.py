"""What decides simulated play, as a digest: saved simulations are current while it is the same.

Play is decided by the engine's code (its rules, policies and metrics), the book's component data, and the
parts of rulepress that play games (the protocol's chance, the base class, the simulation loop).  It is not
decided by narration (``narrate.py``, the ``locale/`` catalogs), drawing (``render.py``), comments, docstrings or
formatting: each Python file is hashed as its syntax tree without docstrings, so rewording a docstring or a
player-facing sentence leaves the saved reports current.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

from rulepress.load import engine_source
from rulepress.store import cached_data, declare

# Engine modules that only tell or draw what happened: never part of what decides play.
WORDS_AND_PICTURES = frozenset({"narrate.py", "render.py"})
# rulepress's own modules that play games: the protocol (chance), the base class, the simulation loop, the seeds.
PLAYING = ("rulepress/protocol.py", "rulepress/basegame.py", "rulepress/analyze/simulate.py",
           "rulepress/analyze/cluster.py")
PACKAGE = Path(__file__).resolve().parents[2]
# A file's syntax-tree digest, kept under its bytes' digest: parsing and dumping the trees of a book's engine took
# most of a second of every site process (the designer pages ask), though the files rarely change.
TREES = declare("tree-digest", keep=2000)


@functools.lru_cache(maxsize=512)  # a designer edition asks three times, for its engine's files and rulepress's
def _tree_digest(source: bytes) -> str:
    """The digest of a Python file's syntax tree without docstrings (its bytes when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return hashlib.sha256(source).hexdigest()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree, include_attributes=False).encode()).hexdigest()


def _cached_tree_digest(root: Path, path: Path) -> str:
    # Read through the one seam that says what an engine's source is (the mutation tests' copy holds every mutant
    # of each function, and reads there the source its mutants were made from): byte for byte otherwise.
    source = engine_source.read(path, errors="surrogateescape").encode("utf-8", "surrogateescape")
    return str(cached_data(root, TREES, hashlib.sha256(source).hexdigest(), lambda: _tree_digest(source)))


def play_digests(root: Path, package: str, book_id: str | None = None) -> dict[str, str]:
    """Every input that decides play, by path: the engine's Python files (less narration and drawing), the
    book's ``components.yaml`` and rulepress's playing modules; each with a short digest."""
    found: dict[str, str] = {}
    folder = root / "engine" / package
    for path in sorted(folder.rglob("*.py")):
        if path.name in WORDS_AND_PICTURES or "locale" in path.relative_to(folder).parts:
            continue
        found[path.relative_to(root).as_posix()] = _cached_tree_digest(root, path)[:16]
    if book_id is not None:
        data = root / "rules_src" / book_id / "components.yaml"
        if data.is_file():
            found[data.relative_to(root).as_posix()] = hashlib.sha256(data.read_bytes()).hexdigest()[:16]
    for name in PLAYING:
        path = PACKAGE / name
        if path.is_file():
            found[name] = _cached_tree_digest(root, path)[:16]
    return found


def engine_fingerprint(root: Path, package: str, book_id: str | None = None) -> str:
    """One digest of :func:`play_digests`."""
    digests = play_digests(root, package, book_id)
    return hashlib.sha256("".join(f"{k}\0{v}\0" for k, v in digests.items()).encode()).hexdigest()[:16]


def changed_since(saved: dict[str, str], root: Path, package: str, book_id: str | None = None) -> list[str]:
    """The inputs of play that differ from those a saved report was made from (added, changed or removed)."""
    now = play_digests(root, package, book_id)
    return sorted(path for path in set(now) | set(saved) if now.get(path) != saved.get(path))
