"""Publish a finished build atomically, and only ever over a folder an earlier build published.

On Linux ``renameat2(RENAME_EXCHANGE)`` swaps two folders atomically; elsewhere two renames come
close (a reader may briefly see no site/, never a half-written one).

Every published folder carries a marker file (``.rulepress-site``); an existing target that is not
empty and not marked is someone's data, and is refused rather than replaced.  Staging folders live
in ``<root>/.rulepress-cache/staging/<pid>-<random>/`` (when that is on the target's filesystem, so the
swap stays a rename) or else next to the target as ``.<name>.staging-<pid>-<random>``; either way each
build sweeps up what killed builds left behind.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import secrets
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rulepress.errors import BuildRefused
from rulepress.publish.lock import cache_dir, pid_alive

MARKER = ".rulepress-site"
MARKER_VERSION = 1
MARKER_TEXT = f"rulepress-site {MARKER_VERSION}\n"  # constant, so that identical builds are byte-identical
_MARKER_LINE = re.compile(r"rulepress-site (\d+)")
CONTENT = ("rules_src", "engine", "examples", "site_src", ".rulepress-cache", ".git")  # never publish into these
_SIBLING = re.compile(r"\.(?P<name>.+)\.(?:staging|old)-(?P<pid>\d+)(?:-[0-9a-f]+)?")

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(first: Path, second: Path) -> bool:
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    return result == 0


def marker_version(folder: Path) -> int | None:
    """The format version in ``folder``'s marker, or None when it has no (readable) marker."""
    try:
        first = (folder / MARKER).read_text(encoding="utf-8").splitlines()[:1]
    except (OSError, UnicodeDecodeError):
        return None
    match = _MARKER_LINE.fullmatch(first[0].strip()) if first else None
    return int(match.group(1)) if match else None


def check_target(root: Path, target: Path) -> None:
    """Refuse a target that publishing would damage: the project, its content, or a folder we did not make."""
    root, target = root.resolve(), target.resolve()
    if target == root or root.is_relative_to(target):
        raise BuildRefused([f"{target}: is the project root or a folder above it; --site-dir must name a "
                            f"folder of its own (default: {root / 'site'})"])
    for name in CONTENT:
        if target.is_relative_to(root / name):
            raise BuildRefused([f"{target}: is inside the project's {name}/; publish somewhere else"])
    if not target.exists():
        return
    if not target.is_dir():
        raise BuildRefused([f"{target}: exists and is not a folder; nothing was replaced"])
    for name in ("rules_src", "engine"):
        if (target / name).exists():
            raise BuildRefused([f"{target}: holds {name}/, so it looks like a rulepress project, not a "
                                f"published site; nothing was replaced"])
    if not any(target.iterdir()):
        return
    version = marker_version(target)
    if version is None:
        raise BuildRefused([f"{target}: is not empty and has no {MARKER} marker, so rulepress did not publish "
                            f"it; refusing to replace it (delete it yourself, or choose another --site-dir)"])
    if version > MARKER_VERSION:
        raise BuildRefused([f"{target / MARKER}: format version {version} is newer than this rulepress "
                            f"understands ({MARKER_VERSION}); upgrade rulepress to publish here"])


def check_replaceable(root: Path, target: Path) -> None:
    """Refuse, before any work, a target the swap could not replace: its parent folder must take a new entry (the
    staging folder renamed in), and an existing target must let its own entries change (a folder moved to another
    parent rewrites its ``..``; the old site is deleted).  Tried, not guessed from permission bits: a read-only
    mount or an immutable folder refuses root too."""
    parent = target.parent
    while not parent.exists() and parent != parent.parent:  # the build makes the missing folders
        parent = parent.parent
    for folder in [parent] + ([target] if target.is_dir() else []):
        probe = folder / f".rulepress-probe-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            probe.mkdir()
            probe.rmdir()
        except OSError as exc:
            why = exc.strerror or str(exc)
            raise BuildRefused([f"{folder}: cannot be written ({why}), so the build could not publish "
                                f"{target}; nothing was built"]) from None


def new_staging(root: Path, target: Path) -> Path:
    """An empty folder for this build, on the target's filesystem so that publishing is a rename."""
    tag = f"{os.getpid()}-{secrets.token_hex(4)}"
    cache = cache_dir(root) / "staging"
    cache.mkdir(exist_ok=True)
    if os.stat(cache).st_dev == os.stat(target.parent).st_dev:
        folder = cache / tag
    else:
        folder = target.parent / f".{target.name}.staging-{tag}"
    folder.mkdir(mode=0o755)
    return folder


def sweep_leftovers(root: Path, target: Path) -> list[Path]:
    """Remove what killed builds left: their staging folders and any ``.<name>.old-*`` of the fallback swap.

    Call it holding the build lock: then no other build of this project is running, so every folder in
    the project's staging area is a dead build's.  Folders next to the target are removed only when the
    process named in them is gone (another project might be publishing there).  If a build died between
    the two renames of the fallback swap, the target is missing and its ``.old`` copy is put back.
    """
    removed: list[Path] = []
    cache = root / ".rulepress-cache" / "staging"
    if cache.is_dir():
        for folder in cache.iterdir():
            _remove(folder)
            removed.append(folder)
    if target.parent.is_dir():
        for folder in sorted(target.parent.iterdir()):
            match = _SIBLING.fullmatch(folder.name)
            if not match or match.group("name") != target.name or pid_alive(int(match.group("pid"))):
                continue
            if ".old-" in folder.name and not target.exists() and marker_version(folder) is not None:
                os.replace(folder, target)  # the last good site, taken away by a build that then died
                continue
            _remove(folder)
            removed.append(folder)
    return removed


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def finish(staging: Path) -> None:
    """Mark the staged folder as ours and make it readable by a web server: dirs 0755, files 0644."""
    (staging / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    os.chmod(staging, 0o755)
    for folder, dirs, files in os.walk(staging):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM back for a few syscalls, so an interrupt cannot fall between two renames."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def publish(staging: Path, target: Path) -> None:
    """Make ``staging`` the new ``target``; the old one is removed afterwards."""
    with signals_held():
        if target.exists() and _exchange(staging, target):
            old: Path | None = staging  # now holds the previous build
        elif target.exists():
            old = target.with_name(f".{target.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
            os.replace(target, old)
            os.replace(staging, target)
        else:
            old = None
            os.replace(staging, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
