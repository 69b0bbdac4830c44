"""What rulepress makes from its own installed files and keeps between processes: the installed themes' compiled
templates (rulepress/publish/incremental.py), Pyodide's interpreter gzipped for the site (rulepress/render/
in_browser.py).  It lives in the user's own cache, ``~/.cache/rulepress/<kind>/``, beside the store's key, never
inside a project or its ``.rulepress-cache/``, which may come from elsewhere; each file is sealed with the store's
key (rulepress/store.py) and checked when read, so a file that is damaged or was put there by anyone else is made
again.  A full or read-only disk costs speed, never the build."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from rulepress.store import read_regular, seal, unseal

FOLDER = Path(".cache", "rulepress")  # under the user's home
_PRUNED: set[str] = set()  # the kinds pruned in this process (once each: a cold site compiles dozens of templates)


def folder(kind: str) -> Path:
    return Path.home() / FOLDER / kind


def _entry(kind: str, key: str) -> tuple[Path, str]:
    return folder(kind) / key[:2] / key, f"{kind}/{key}"


def read(kind: str, key: str, most: int) -> bytes | None:
    """The bytes kept under ``key``, checked against their seal; None when there are none, they are larger than
    ``most`` bytes, not a regular file, or not sealed by this user's key."""
    path, name = _entry(kind, key)
    try:
        return unseal(name, read_regular(path, most))
    except OSError:  # none yet, not a file, larger than most
        return None


def write(kind: str, key: str, data: bytes, keep: int) -> None:
    """Keep ``data`` under ``key``, written atomically; the kind's folder keeps the ``keep`` files used last."""
    path, name = _entry(kind, key)
    scratch = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, scratch = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(handle, "wb") as file:
            file.write(seal(name, data))
        os.replace(scratch, path)
        scratch = None
        if kind not in _PRUNED:
            _PRUNED.add(kind)
            kept = sorted(folder(kind).glob("*/*"), key=lambda entry: entry.stat().st_mtime)
            for old in kept[:max(0, len(kept) - keep)]:
                old.unlink(missing_ok=True)
    except OSError:
        pass
    finally:
        if scratch is not None:
            Path(scratch).unlink(missing_ok=True)
