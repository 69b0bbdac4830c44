"""What the preview server answers, for its author only.

* **Its own address only.** A web page the author visits could point a name it controls at 127.0.0.1 (DNS
  rebinding) and read the unpublished preview through the browser; such a request still carries that name in its
  ``Host`` header, so any ``Host`` but the server's own address (``127.0.0.1:PORT``, ``localhost:PORT``) is
  refused with 403.
* **Well-formed paths only.** A path that is not UTF-8, holds a control character (``/%00/``), a backslash or a
  ``.``/``..`` segment is a 400, never a traceback.
* **Never a symlink.** Each folder of the path and the file itself are opened relative to the one before with
  ``O_NOFOLLOW``: a symlink anywhere in the served folder is not found (404), whatever it points at.
* **No one sent elsewhere.** A folder asked for without its final slash is redirected to the same folder here,
  its address rebuilt from the path's segments (never a ``//host`` or any other host, whatever the encoding).
* **A complete site.** The caller gives the folder of the last complete build (the session swaps a new build in
  whole, rulepress/serve/session.py); a request is answered from the folder it started with.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

_BAD = re.compile(r"[\x00-\x1f\x7f\\]")  # control characters, and a backslash no URL of ours has


@dataclass(frozen=True)
class Answer:
    status: str  # "200 OK", "404 Not Found", ...
    body: bytes = b""
    location: str | None = None  # for a redirect
    fd: int | None = None  # an open file to send (the caller closes it)
    size: int = 0


def own_host(host: str | None, port: int) -> bool:
    """Whether ``host`` (a request's ``Host`` header) names this server: 127.0.0.1 or localhost, at its port."""
    return host is not None and host.lower() in (f"127.0.0.1:{port}", f"localhost:{port}")


def refused_host(port: int) -> Answer:
    return Answer("403 Forbidden", f"rulepress serve answers only http://127.0.0.1:{port}/ (its own address)\n"
                  .encode())


def request_path(raw: str) -> str | None:
    """The path of a request (WSGI's ``PATH_INFO``, bytes as Latin-1, already percent-decoded), or None when it is
    malformed: not UTF-8, a control character, a backslash, or a ``.`` or ``..`` segment."""
    try:
        path = raw.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return None
    if not path.startswith("/") or _BAD.search(path):
        return None
    if any(part in (".", "..") for part in path.split("/")):
        return None
    return path


def folder_location(parts: list[str]) -> str:
    """Where a folder's URL without its final slash is sent: the same folder on this server, whatever the path
    held.  Rebuilt from its segments, each percent-encoded, behind one slash: ``/%2flantern-moths`` (which a
    server hands over as ``//lantern-moths``) must not become ``//lantern-moths/``, a browser's address of another
    host, nor a segment holding ``?`` or ``#`` leave the path."""
    return "/" + "".join(f"{quote(part, safe='')}/" for part in parts if part)


def bad_request() -> Answer:
    return Answer("400 Bad Request", b"malformed path\n")


def open_file(site: Path, path: str) -> Answer:
    """The file at URL ``path`` in ``site`` (index.html for a folder), opened without following any symlink."""
    parts = [part for part in path.split("/") if part]
    if path.endswith("/") or not parts:
        parts.append("index.html")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        folder = os.open(site, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return Answer("404 Not Found", b"not found\n")
    try:
        for part in parts[:-1]:
            inner = os.open(part, flags | os.O_DIRECTORY, dir_fd=folder)
            os.close(folder)
            folder = inner
        fd = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=folder)  # O_NONBLOCK: a FIFO does not wait
    except OSError:  # missing, a symlink (ELOOP, ENOTDIR), not a folder
        return Answer("404 Not Found", b"not found\n")
    finally:
        os.close(folder)
    info = os.fstat(fd)
    if stat.S_ISREG(info.st_mode):
        return Answer("200 OK", fd=fd, size=info.st_size)
    os.close(fd)
    if stat.S_ISDIR(info.st_mode) and not path.endswith("/"):
        return Answer("302 Found", location=folder_location(parts))
    return Answer("404 Not Found", b"not found\n")
