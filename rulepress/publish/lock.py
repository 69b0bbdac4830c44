"""One build at a time per project: an exclusive ``flock`` on ``.rulepress-cache/build.lock``.

The kernel drops a ``flock`` when its holder dies, even by SIGKILL, so a killed build never leaves a
stale lock behind; whoever holds the lock also knows that no other build of this project is running,
which is what makes it safe to sweep the staging folders of dead builds.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rulepress.errors import BuildRefused

CACHE = ".rulepress-cache"
LOCK_NAME = "build.lock"
POLL = 0.1  # seconds between attempts while another build holds the lock
_HELD: set[int] = set()  # descriptors of locks this process holds
_PR_SET_PDEATHSIG = 1


def _forget_in_child() -> None:
    """In a child forked during a build (a PDF worker): let go of the lock, and die with the build.

    The flock belongs to the open file, so a copy left open in a child would keep the lock held after the
    build itself was killed, for as long as the child lived; and a worker orphaned by a SIGKILLed build
    would block forever on its task queue.  So the child closes its copy and asks the kernel for SIGKILL
    when its parent dies (Linux ``prctl``; elsewhere only the first half applies).
    """
    if not _HELD:
        return
    for fd in _HELD:
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()
    libc_name = ctypes.util.find_library("c")
    prctl = getattr(ctypes.CDLL(libc_name), "prctl", None) if libc_name else None
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != _PARENT[0]:  # the build died before prctl took effect
            os._exit(1)


_PARENT = [os.getpid()]
os.register_at_fork(before=lambda: _PARENT.__setitem__(0, os.getpid()), after_in_child=_forget_in_child)


def cache_dir(root: Path) -> Path:
    """``<root>/.rulepress-cache``, created on first use (git-ignored)."""
    folder = root / CACHE
    folder.mkdir(exist_ok=True)
    return folder


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (signal 0 probes without sending anything)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, it is just someone else's
        return True
    return True


def _holder(path: Path) -> str:
    try:
        pid = path.read_text().strip()
    except OSError:
        return "another build"
    return f"another build (pid {pid})" if pid.isdigit() else "another build"


@contextmanager
def build_lock(root: Path, wait: float = 30.0) -> Iterator[Path]:
    """Hold the project's build lock for the ``with`` block; wait up to ``wait`` seconds for it, then refuse."""
    path = cache_dir(root) / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + max(wait, 0.0)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    raise BuildRefused([f"{path}: {_holder(path)} of this project is still running after "
                                        f"waiting {wait:g} s; try again when it has finished "
                                        f"(or give it longer with --wait SECONDS)"]) from None
                time.sleep(POLL)
        _HELD.add(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)  # only to name the holder in the message above
        yield path
    finally:
        _HELD.discard(fd)
        os.close(fd)  # closing the last descriptor releases the flock
