"""Read source files safely: inside the project root, regular files only, bounded in size, UTF-8 or a clear error.

Every loader reads through :func:`read_text` so that a chapter named ``../../etc/passwd``, a symlink leading out of
the project, a FIFO (which would block ``open`` forever), a directory, a 2 GB file or a stray Latin-1 byte each
become one :class:`SourceError` naming the file (and, for bad bytes, the line and column) instead of a traceback,
a hang or a silent read of something outside the project.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from rulepress.errors import SourceError

MAX_SOURCE_BYTES = 1024 * 1024  # 1 MiB: far above any real rule source, far below anything that hurts


class PathRefused(ValueError):
    """A path that must not be read; ``reason`` says why, without naming the file (the caller knows its name)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def confined(root: Path, path: Path) -> Path:
    """``path`` with every symlink and ``..`` resolved, refused unless it stays inside ``root``.

    Relative paths are taken relative to ``root``. The path need not exist (a missing file is the caller's
    business), but whatever part of it exists is resolved through its symlinks.
    """
    # As strings (os.path.realpath is what Path.resolve calls): every source is read through here, and making
    # and comparing Path objects was most of the time.
    base = os.path.realpath(root)
    resolved = os.path.realpath(os.path.join(root, path))  # an absolute ``path`` stays itself
    try:  # realpath leaves a symlink loop where it is; looking at what it points to finds one (as Path.resolve)
        os.stat(resolved)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathRefused(f"cannot resolve path: Symlink loop from {exc.filename!r}") from exc
    if resolved != base and not resolved.startswith(os.path.join(base, "")):
        raise PathRefused(f"resolves to {resolved}, outside the project root {base}")
    return Path(resolved)


def shown(path: Path, root: Path) -> str:
    """``path`` as errors show it: relative to ``root`` as written, not resolved, so a symlink's own name is shown
    (``errors.relative`` resolves, which would name a symlink's target instead)."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        try:
            return str(path.absolute().relative_to(root.absolute()))
        except ValueError:
            return str(path)


def exists(path: Path) -> bool:
    """True when anything (file, directory, FIFO, even a dangling symlink) sits at ``path``.

    Optional sources use this rather than ``Path.is_file`` so that a FIFO or directory in a file's place is
    reported by :func:`read_text` instead of being skipped silently.
    """
    return os.path.lexists(path)


def check_regular(root: Path, path: Path) -> Path:
    """The resolved ``path``, refused unless it is inside ``root`` and a regular file (no open, so no blocking)."""
    resolved = confined(root, path)
    try:
        info = os.stat(resolved)
    except FileNotFoundError as exc:
        raise PathRefused("file not found") from exc
    except OSError as exc:
        raise PathRefused(f"cannot read: {exc.strerror or exc}") from exc
    kind = _kind(info.st_mode)
    if kind != "regular file":
        raise PathRefused(f"is a {kind}, not a regular file")
    return resolved


def read_bytes(root: Path, path: Path, shown: str, max_bytes: int = MAX_SOURCE_BYTES) -> bytes:
    """The bytes of ``path`` after the checks of :func:`check_regular` and a size limit."""
    try:
        resolved = check_regular(root, path)
    except PathRefused as exc:
        raise SourceError(shown, None, exc.reason) from exc
    # O_NONBLOCK: if the file was swapped for a FIFO after the stat, open returns at once instead of waiting for
    # a writer; O_NOFOLLOW: the path is already resolved, so a symlink appearing now is a race, not a source.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(resolved, flags)
    except OSError as exc:
        raise SourceError(shown, None, f"cannot read: {exc.strerror or exc}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(shown, None, f"is a {_kind(info.st_mode)}, not a regular file")
        if info.st_size > max_bytes:
            raise SourceError(shown, None, _too_big(info.st_size, max_bytes))
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise SourceError(shown, None, f"cannot read: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # the file grew between fstat and read
        raise SourceError(shown, None, _too_big(len(data), max_bytes))
    return data


def read_text(root: Path, path: Path, shown: str, max_bytes: int = MAX_SOURCE_BYTES) -> str:
    """The UTF-8 text of ``path``, refused (as a :class:`SourceError` named ``shown``) unless it is a regular file
    inside ``root`` of at most ``max_bytes``; a byte that is not UTF-8 is reported with its line and column."""
    return decode(read_bytes(root, path, shown, max_bytes), shown)


def decode(data: bytes, shown: str) -> str:
    """``data`` as UTF-8 (a leading byte-order mark is dropped), or a SourceError at the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - line_start + 1
        bad = " ".join(f"0x{byte:02x}" for byte in data[exc.start:exc.end])
        raise SourceError(shown, line, f"byte {bad} is not valid UTF-8 (save the file as UTF-8)",
                          column=column) from exc


MAX_ASSET_BYTES = 16 * 1024 * 1024  # one file of a folder the site copies (a font, an image)
MAX_TREE_BYTES = 128 * 1024 * 1024  # all of them together
MAX_TREE_FILES = 5_000


def tree_problems(root: Path, folder: Path, *, max_file_bytes: int = MAX_ASSET_BYTES,
                  max_bytes: int = MAX_TREE_BYTES, max_files: int = MAX_TREE_FILES) -> list[SourceError]:
    """Everything under ``folder`` (a folder the build copies or reads whole: ``site_src/``, a theme's overrides,
    any folder a project's configuration names) that must not be read, one located problem each: the folder or a
    symlink in it resolving outside ``root``, an entry that is neither a regular file nor a folder (a FIFO would
    block the copy, a device never end it), a file over ``max_file_bytes``, and more than ``max_files`` files or
    ``max_bytes`` in all.  Nothing is opened; symlinks are followed only to check where they lead (and into
    folders inside ``root``, once each, as mkdocs follows them)."""
    problems: list[SourceError] = []
    try:
        start = confined(root, folder)
    except PathRefused as refused:
        return [SourceError(shown(folder, root), None, refused.reason)]
    if not start.exists():
        return []  # a folder the project does not have: nothing of it can be read
    count = total = 0
    seen: set[Path] = set()
    pending = [(folder, start)]
    while pending:
        here, real = pending.pop()
        if real in seen:
            continue
        seen.add(real)
        try:
            entries = sorted(os.scandir(real), key=lambda entry: entry.name)
        except OSError as exc:
            problems.append(SourceError(shown(here, root), None, f"cannot read: {exc.strerror or exc}"))
            continue
        for entry in entries:
            path = here / entry.name
            try:
                target = confined(root, real / entry.name) if entry.is_symlink() else real / entry.name
                info = os.stat(target)
            except PathRefused as refused:
                words = f"a symlink that {refused.reason}" if refused.reason.startswith("resolves") else \
                    f"a symlink that cannot be followed ({refused.reason})"
                problems.append(SourceError(shown(path, root), None, words))
                continue
            except OSError as exc:  # a dangling symlink, a file gone meanwhile
                problems.append(SourceError(shown(path, root), None, f"cannot read: {exc.strerror or exc}"))
                continue
            if stat.S_ISDIR(info.st_mode):
                if entry.is_symlink() and (target == real or target in real.parents):
                    problems.append(SourceError(shown(path, root), None, "a symlink to a folder that holds it "
                                                                         "(mkdocs would walk it forever)"))
                    continue
                pending.append((path, target))
            elif not stat.S_ISREG(info.st_mode):
                problems.append(SourceError(shown(path, root), None, f"is a {_kind(info.st_mode)}, not a regular "
                                                                     "file"))
            elif info.st_size > max_file_bytes:
                problems.append(SourceError(shown(path, root), None, f"file is {info.st_size} bytes, more than the "
                                                                     f"{max_file_bytes} bytes a file the site copies "
                                                                     "may have"))
            else:
                count, total = count + 1, total + info.st_size
        if count > max_files or total > max_bytes:
            problems.append(SourceError(shown(folder, root), None, f"holds more than {max_files} files or "
                                        f"{max_bytes} bytes, more than a folder the build copies may"))
            break
    return problems


def _too_big(size: int, max_bytes: int) -> str:
    return f"file is {size} bytes, more than the {max_bytes} bytes a source file may have"


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "regular file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"
