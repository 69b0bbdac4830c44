"""Publish a finished build atomically: the staging folder and site/ swap places in one step.

On Linux ``renameat2(RENAME_EXCHANGE)`` swaps two folders atomically; elsewhere two renames come
close (a reader may briefly see no site/, never a half-written one).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
from pathlib import Path

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


def publish(staging: Path, target: Path) -> None:
    """Make ``staging`` the new ``target``; the old one is removed afterwards."""
    if target.exists() and _exchange(staging, target):
        shutil.rmtree(staging, ignore_errors=True)  # now holds the previous build
        return
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        os.replace(target, old)
        os.replace(staging, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(staging, target)
