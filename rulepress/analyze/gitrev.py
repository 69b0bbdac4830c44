"""Read a book's sources as they were at a git revision (for diffs and change-log checks)."""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
from pathlib import Path

from rulepress.errors import excerpt


class RevisionError(Exception):
    pass


def _git(root: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise RevisionError("git is not installed") from exc
    if done.returncode != 0:
        raise RevisionError(done.stderr.decode(errors="replace").strip() or f"git {' '.join(args)} failed")
    return done.stdout


def export_book(root: Path, revision: str, book_id: str) -> Path:
    """A temporary project root holding the book's rules_src/ and examples/ at ``revision``."""
    if not revision or revision.startswith("-") or not revision.isprintable():  # never an option given to git
        raise RevisionError(f"{excerpt(revision)} is not a git revision")
    paths = [p for p in (f"rules_src/{book_id}", f"examples/{book_id}")
             if _git(root, "ls-tree", "--name-only", revision, p).strip()]
    if not paths:
        raise RevisionError(f"book '{book_id}' does not exist at revision {revision}")
    archive = _git(root, "archive", "--format=tar", revision, "--", *paths)
    target = Path(tempfile.mkdtemp(prefix="rulepress-rev-"))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    (target / "engine").mkdir(exist_ok=True)
    return target


def latest_edition_tag(root: Path, book_id: str) -> str | None:
    """The newest tag named ``<book-id>/<edition>``, or None (also outside a git checkout)."""
    try:
        out = _git(root, "tag", "--list", f"{book_id}/*", "--sort=-creatordate")
    except RevisionError:
        return None
    tags = out.decode().split()
    return tags[0] if tags else None
