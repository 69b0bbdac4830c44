"""The content-addressed store under ``.rulepress-cache/content/``: it keys inputs, keeps bytes, checks them, prunes.

It knows no stage.  What a kept thing is made from (its recipe) lives beside the code that makes it: the
replay's key in rulepress/verify/cached.py, a PDF's in rulepress/publish/pdfstore.py, the site's in
rulepress/publish/sitestore.py, the impact's in rulepress/analyze/impact.py, and so on; each declares its kind
and how many of its entries to keep (:func:`declare`).  An entry is found by the SHA-256 of everything it is made
from (:func:`key_of`), never by a time stamp; "rulepress's own code" (:func:`code_digest`: every file of the
installed package) is part of every key, so changing rulepress invalidates all of it.

Every entry carries a keyed digest of its name and bytes (HMAC-SHA256 under the user's own key, kept outside every
cache: :func:`seal_key`), checked when it is read; a kept folder (a site) carries a manifest of each file's digest,
itself such an entry, checked file by file as the folder is copied out.  So the store trusts only what was made
with this key: an entry copied from another machine or a CI cache is not used (one line says so), and no one who
can write the cache but has not the key can make an entry it accepts.  A damaged, truncated, garbled or unreadable
entry, or anything but a regular file (a FIFO is never opened), is discarded with one line on stderr naming it,
and the caller makes it again: it is never used, and never stops a build.  What is kept is data (JSON, text, PDFs,
the site's files), never a pickle or compiled code: reading an entry runs nothing.  Only good results are kept: a
failed replay, a refused site or a broken PDF is redone every time.

On top, a process caches small pure results it made (:func:`cached_in_process`).  ``RULEPRESS_CACHE=0`` turns all of
it off (nothing read, nothing written, nothing cached in the process).
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import io
import json
import os
import pickle
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from rulepress import environment

FOLDER = ".rulepress-cache/content"
PACKAGE = Path(__file__).resolve().parent  # rulepress/
_SKIP = {"__pycache__"}
T = TypeVar("T")


def _files(folder: Path) -> list[Path]:
    """Every file under ``folder`` in a stable order, without bytecode."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*") if p.is_file() and not _SKIP & set(p.parts) and p.suffix != ".pyc")


def tree_digest(folder: Path) -> str:
    """SHA-256 over the relative names and contents of every file under ``folder``."""
    digest = hashlib.sha256()
    for path in _files(folder):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def sources_digest(folder: Path) -> str:
    """:func:`tree_digest`, and the names of the folders too (an empty translation folder is a warning)."""
    digest = hashlib.sha256(tree_digest(folder).encode())
    if folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_dir() and not _SKIP & set(p.parts)):
            digest.update(str(path.relative_to(folder)).encode() + b"\0")
    return digest.hexdigest()


@cache
def _watched_digest(folder: Path, stamp: tuple[tuple[str, int, int], ...]) -> str:
    return tree_digest(folder)


def watched_digest(folder: Path) -> str:
    """:func:`tree_digest`, read again only when one of the files' sizes or mtimes changed (a serve session edits
    an engine's files, and every replay of a book asks for its engine's digest)."""
    stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in _files(folder))
    return _watched_digest(folder, stamp)


@cache
def code_digest() -> str:
    """rulepress's own files (code, templates, fonts, colour profile) and the Python running them."""
    return hashlib.sha256((tree_digest(PACKAGE) + sys.version).encode()).hexdigest()


def key_of(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def enabled() -> bool:
    """``RULEPRESS_CACHE=0`` turns every cache off, on disk and in this process."""
    return environment.cache_enabled()


# -- kinds: each recipe declares its own ------------------------------------------------------------------------

KEEP: dict[str, int] = {}  # kind -> how many of its entries pruning keeps (those used last)


def declare(name: str, keep: int) -> str:
    """Declare a kind of entry (a folder under the store) and how many of its entries to keep; returns ``name``.

    Called at import by the module that makes the entries: the store knows its kinds only from them."""
    KEEP[name] = max(keep, KEEP.get(name, 0))
    return name


# -- sealed entries: a keyed digest of an entry's name and bytes, checked when read -------------------------------

KEY_FILE = Path(".local", "state", "rulepress", "store-key")  # under the user's home: never inside any cache
KEY_BYTES = 32
_MAGIC = b"rulepress-entry hmac-sha256 "
_ID = 16  # hex digits of the key's own digest, which tell this store's entries from another key's
_HEADER = len(_MAGIC) + _ID + 1 + 64 + 1  # the magic, the key's id, a space, the keyed digest, a newline
_KEY: list[bytes] = []  # this process's key, read once (a forked worker has it too)


def key_path() -> Path:
    """Where the store's key lives: the user's own, outside every project and cache (so a cache copied from
    elsewhere, CI's or another machine's, carries no key that would make its entries trusted here)."""
    return Path.home() / KEY_FILE


def seal_key() -> bytes:
    """The key every entry is sealed with: read from :func:`key_path`, made there (32 random bytes, mode 0600) the
    first time.  Where it cannot be kept (no home, a read-only one), a key of this process alone, said once: the
    cache then serves this run only."""
    if _KEY:
        return _KEY[0]
    path = key_path()
    try:
        key = _read_key(path)
        if key is None:
            key = _make_key(path)
    except OSError as exc:
        print(f"rulepress: warning: the cache's key cannot be kept at {path} ({exc.strerror or exc}): the cache "
              "serves this run only", file=sys.stderr, flush=True)
        key = os.urandom(KEY_BYTES)
    _KEY[:] = [key]
    return key


def _read_key(path: Path) -> bytes | None:
    """The key in ``path``; None when there is none, or what is there is no key (then it is made again)."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a symlink in its place
            return None
        raise
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        data = os.read(handle, KEY_BYTES + 1)
    finally:
        os.close(handle)
    return data if len(data) == KEY_BYTES else None


def _make_key(path: Path) -> bytes:
    """A new key in ``path``, written whole before it is in place; if another process made one meanwhile, that one."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = os.urandom(KEY_BYTES)
    handle, scratch = tempfile.mkstemp(dir=path.parent, prefix=".tmp-key-")  # mode 0600
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(key)
        try:
            os.link(scratch, path)  # fails if a key is there: two processes never keep two keys
        except FileExistsError:
            found = _read_key(path)
            if found is not None:
                return found
            os.replace(scratch, path)  # what was there is no key: this one replaces it
            scratch = ""
    finally:
        if scratch:
            Path(scratch).unlink(missing_ok=True)
    return key


def _key_id(key: bytes) -> bytes:
    return hashlib.sha256(b"rulepress store key id\0" + key).hexdigest()[:_ID].encode()


def _digest(name: str, data: bytes, key: bytes) -> bytes:
    return hmac.new(key, name.encode() + b"\0" + data, hashlib.sha256).hexdigest().encode()


def seal(name: str, data: bytes) -> bytes:
    """``data`` as it is kept under ``name`` (``<kind>/<key><suffix>``): behind the keyed digest of both (HMAC-SHA256
    with :func:`seal_key`), so no one without the key can make an entry this store accepts."""
    key = seal_key()
    return _MAGIC + _key_id(key) + b" " + _digest(name, data, key) + b"\n" + data


FOREIGN = "foreign"


def unseal(name: str, blob: bytes) -> bytes | None:
    """The data :func:`seal` kept under ``name``, or None when ``blob`` is not exactly that (damaged, truncated,
    garbled, another entry's bytes, or sealed with another key)."""
    found = _unsealed(name, blob)
    return found if isinstance(found, bytes) else None


def _unsealed(name: str, blob: bytes) -> bytes | str:
    """The data, or why not: ``FOREIGN`` (sealed whole, with another key) or ``"damaged"``."""
    if len(blob) < _HEADER or not blob.startswith(_MAGIC) or blob[_HEADER - 1:_HEADER] != b"\n" \
            or blob[len(_MAGIC) + _ID:len(_MAGIC) + _ID + 1] != b" ":
        return "damaged"
    key = seal_key()
    if blob[len(_MAGIC):len(_MAGIC) + _ID] != _key_id(key):
        return FOREIGN
    data = blob[_HEADER:]
    return data if hmac.compare_digest(blob[len(_MAGIC) + _ID + 1:_HEADER - 1], _digest(name, data, key)) \
        else "damaged"


_FOREIGN_SAID: list[str] = []


def say_foreign(folder: str) -> None:
    """The one line a store of entries sealed elsewhere gets: they are not used (each is made again, quietly)."""
    if folder not in _FOREIGN_SAID:
        _FOREIGN_SAID.append(folder)
        print(f"rulepress: warning: {folder} holds entries sealed with another key (a cache copied from elsewhere): "
              "none of them is used, each is made again", file=sys.stderr, flush=True)


class Damaged(Exception):
    """A file of a kept folder that is not what was kept, and what is wrong with it."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path} {why}")
        self.path = path
        self.why = why


_WARNED: set[str] = set()  # entries this process has warned about (one that cannot be removed is read again)


def say_discarded(shown: str, why: str, what: str = "discarded") -> None:
    """The one line a discarded entry gets, on stderr (a build's PDF workers and site process say it too)."""
    if shown in _WARNED:
        return
    _WARNED.add(shown)
    print(f"rulepress: warning: cache entry {shown} {why}: {what}, it is made again", file=sys.stderr, flush=True)


class NotRegular(OSError):
    """What is in a file's place is something else (``what``: "a FIFO (named pipe)", "a symlink"...)."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(f"{path} is {what}")
        self.what = what


_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISLNK, "a symlink"), (stat.S_ISDIR, "a folder"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def _what(mode: int) -> str:
    return next((what for test, what in _KINDS if test(mode)), "not a file")


def read_regular(path: Path, most: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (:class:`NotRegular` for anything else, found before it is opened
    and again once it is: the read never blocks, never follows a final symlink); ``most``: a bound on its size."""
    mode = os.lstat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegular(path, _what(mode))
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        found = os.fstat(handle)
        if not stat.S_ISREG(found.st_mode):  # replaced in between
            raise NotRegular(path, _what(found.st_mode))
        if most is not None and found.st_size > most:
            raise NotRegular(path, f"larger than {most} bytes")
        with os.fdopen(os.dup(handle), "rb") as file:
            return file.read()
    finally:
        os.close(handle)


class Store:
    """Entries under ``<root>/.rulepress-cache/content/<kind>/``, written atomically (a killed build leaves no half)
    and sealed (:func:`seal`): every read is checked, and what fails the check is discarded."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / FOLDER
        self.enabled = enabled()  # RULEPRESS_CACHE=0: every output made afresh, none kept
        self.hits: dict[str, int] = {}
        self.misses: dict[str, int] = {}

    def path(self, kind: str, key: str, suffix: str = "") -> Path:
        return self.folder / kind / key[:2] / f"{key}{suffix}"

    def shown(self, path: Path) -> str:
        """``path`` as the user finds it: from the project root."""
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def _miss(self, kind: str) -> None:
        self.misses[kind] = self.misses.get(kind, 0) + 1

    def get(self, kind: str, key: str, suffix: str = "") -> bytes | None:
        """The bytes kept under ``key``, checked; None when there are none, or they are damaged (then discarded).

        What is there is looked at before it is opened: anything but a regular file (a FIFO would block the read, a
        device never end it, a symlink lead anywhere) is discarded unopened."""
        if not self.enabled:
            self._miss(kind)
            return None
        path = self.path(kind, key, suffix)
        try:
            blob = read_regular(path)
        except FileNotFoundError:
            self._miss(kind)
            return None
        except NotRegular as exc:
            self.discard(path, f"is {exc.what}, not a regular file")
            self._miss(kind)
            return None
        except OSError as exc:  # a folder where the entry was, no permission, an I/O error
            self.discard(path, f"cannot be read ({exc.strerror or type(exc).__name__})")
            self._miss(kind)
            return None
        data = _unsealed(f"{kind}/{key}{suffix}", blob)
        if data == FOREIGN:
            say_foreign(self.shown(self.folder))
            _remove(path, self.folder)
            self._miss(kind)
            return None
        if not isinstance(data, bytes):
            self.discard(path, "is damaged (its bytes do not match their seal)")
            self._miss(kind)
            return None
        try:
            os.utime(path)  # used now: pruning keeps what was used last
        except OSError:
            pass
        self.hits[kind] = self.hits.get(kind, 0) + 1
        return data

    def load(self, kind: str, key: str, decode: Callable[[bytes], T], suffix: str = "") -> T | None:
        """``decode`` of the bytes :meth:`get` finds; an entry that does not decode is discarded as damaged."""
        data = self.get(kind, key, suffix)
        if data is None:
            return None
        try:
            return decode(data)
        except Exception as exc:
            self.discard(self.path(kind, key, suffix), f"cannot be decoded ({type(exc).__name__})")
            return None

    def put(self, kind: str, key: str, data: bytes, suffix: str = "") -> None:
        if not self.enabled:
            return
        target = self.path(kind, key, suffix)
        self._write(target, seal(f"{kind}/{key}{suffix}", data))

    def _write(self, target: Path, blob: bytes) -> None:
        scratch = None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, scratch = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            with os.fdopen(handle, "wb") as file:
                file.write(blob)
            os.replace(scratch, target)
        except OSError:  # a full or read-only disk costs speed, never the build
            if scratch is not None:
                Path(scratch).unlink(missing_ok=True)

    def discard(self, path: Path, why: str) -> None:
        """Say that the entry at ``path`` is bad, and remove it (a folder in its place too) so it can be kept again."""
        say_discarded(self.shown(path), why)
        _remove(path, self.folder)

    # -- kept folders: a manifest of every file's digest, checked as the folder is copied out -------------------

    def put_folder(self, kind: str, key: str, source: Path, ignore: Callable[[str, list[str]], Any] | None = None,
                   previous: str | None = None) -> bool:
        """Keep a copy of the folder ``source`` (mtimes kept) under ``key``, with its manifest; False if it could
        not be kept.

        A file that is the same as in the folder kept under ``previous`` (the same bytes, size and mtime: it was
        copied from there and not written again) is a hard link to that one instead of a copy: kept folders are
        only ever read.  Never a link to ``source`` itself, which is anyone's to change after."""
        if not self.enabled:
            return False
        folder = self.path(kind, key)
        scratch = folder.with_name(f".tmp-{key}-{os.getpid()}")
        files: dict[str, str] = {}
        dirs: list[str] = []
        before = self._manifest(kind, previous) if previous else None
        earlier = self.path(kind, previous) if previous else None

        def keep(name: str, target: str) -> None:
            relative = Path(name).relative_to(source).as_posix()
            data = Path(name).read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            files[relative] = digest
            if before is not None and earlier is not None and before["files"].get(relative) == digest:
                try:
                    now, then = os.stat(name), os.lstat(earlier / relative)
                    if stat.S_ISREG(then.st_mode) and (now.st_size, now.st_mtime_ns) == (then.st_size,
                                                                                      then.st_mtime_ns):
                        os.link(earlier / relative, target)
                        return
                except OSError:  # gone from the previous folder, or no links here: a copy
                    pass
            with open(target, "wb") as file:
                file.write(data)
            shutil.copystat(name, target)

        try:
            shutil.rmtree(scratch, ignore_errors=True)
            scratch.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(source, scratch, copy_function=keep, ignore=ignore)
            dirs = sorted(p.relative_to(scratch).as_posix() for p in scratch.rglob("*") if p.is_dir())
            _remove(folder, self.folder)
            os.replace(scratch, folder)
        except OSError:
            shutil.rmtree(scratch, ignore_errors=True)
            return False
        self.put(kind, key, json.dumps({"files": files, "dirs": dirs}, sort_keys=True).encode(), ".files")
        return True

    def _manifest(self, kind: str, key: str) -> dict[str, Any] | None:
        def decode(data: bytes) -> dict[str, Any]:
            manifest = json.loads(data)
            names = [*manifest["files"], *manifest["dirs"]]
            if not all(isinstance(v, str) for v in manifest["files"].values()) or not all(
                    isinstance(name, str) and _inside(name) for name in names):
                raise ValueError("a name that leaves the folder")
            return dict(manifest)

        return self.load(kind, key, decode, ".files")

    def copy_folder(self, kind: str, key: str, target: Path) -> bool:
        """Copy the folder kept under ``key`` into ``target`` (mtimes kept), each file checked against its
        manifest; False, and nothing left in ``target``, when there is none or it is damaged (then discarded)."""
        manifest = self._manifest(kind, key)
        if manifest is None:
            return False
        folder = self.path(kind, key)
        made: list[Path] = []
        try:
            for name in manifest["dirs"]:
                if not (target / name).is_dir():
                    (target / name).mkdir(parents=True)
                    made.append(target / name)
            for name in manifest["dirs"]:  # its folders are folders (a symlink would lead the reads elsewhere)
                try:
                    mode = os.lstat(folder / name).st_mode
                except OSError as exc:
                    raise Damaged(folder / name, f"cannot be read ({exc.strerror or type(exc).__name__})") from exc
                if not stat.S_ISDIR(mode):
                    raise Damaged(folder / name, f"is {_what(mode)}, not a folder")
            for name, digest in manifest["files"].items():
                kept = folder / name
                try:
                    data, times = read_regular(kept), os.lstat(kept)
                except NotRegular as exc:
                    raise Damaged(kept, f"is {exc.what}, not a regular file") from exc
                except OSError as exc:
                    raise Damaged(kept, f"cannot be read ({exc.strerror or type(exc).__name__})") from exc
                if hashlib.sha256(data).hexdigest() != digest:
                    raise Damaged(kept, "is damaged (its bytes do not match the folder's manifest)")
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                with open(target / name, "wb") as file:
                    file.write(data)
                made.append(target / name)
                os.utime(target / name, ns=(times.st_atime_ns, times.st_mtime_ns))
        except (Damaged, OSError) as exc:
            for path in reversed(made):  # nothing of it is left for a build to publish
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
            if isinstance(exc, Damaged):
                say_discarded(self.shown(exc.path), exc.why, "its kept folder is discarded")
                _remove(self.path(kind, key, ".files"), self.folder)
                self.set_aside(folder)
            return False
        return True

    def recent(self, kind: str, suffix: str) -> list[str]:
        """The keys of ``kind`` that have an entry ``<key><suffix>``, the one used last first."""
        found = []
        for path in self.folder.glob(f"{kind}/*/*{suffix}"):
            if path.name.startswith(".tmp-") or not path.name.endswith(suffix):
                continue
            try:
                found.append((path.stat().st_mtime, path.name[:-len(suffix)] if suffix else path.name))
            except OSError:  # pruned by another build meanwhile
                continue
        return [key for _, key in sorted(found, reverse=True)]

    def set_aside(self, folder: Path) -> None:
        """A kept folder out of the way now (renamed into the trash); deleted by :func:`empty_trash` later."""
        if not folder.is_dir():
            return
        try:
            (self.folder / TRASH).mkdir(parents=True, exist_ok=True)
            folder.rename(self.folder / TRASH / f"{folder.name}-{os.getpid()}-{time.monotonic_ns()}")
        except OSError:
            shutil.rmtree(folder, ignore_errors=True)


def _inside(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return bool(parts) and not PurePosixPath(name).is_absolute() and ".." not in parts


def _remove(path: Path, top: Path) -> None:
    """Remove what is at ``path`` (a file, a folder, a link), or the first thing on the way to it under ``top``
    that is not a folder (a file where a folder of entries should be): a bad entry must not stay in the way."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        return
    except NotADirectoryError:
        pass
    except OSError:
        return
    for parent in reversed(path.relative_to(top).parents):
        place = top / parent
        if place != top and (place.is_symlink() or (place.exists() and not place.is_dir())):
            try:
                place.unlink()
            except OSError:
                pass
            return


# -- this process's memory of small pure results ------------------------------------------------------------

_MEMO: dict[tuple[str, str], Any] = {}
MEMO_SIZE = 20_000  # entries: rendered templates and passed schema checks are a few kB each at most
_NOTHING = object()


def cached_in_process(kind: str, key: str, make: Callable[[], Any],
                      cache_if: Callable[[Any], bool] = lambda value: True) -> Any:
    """``make()``, or what it gave for the same ``key`` before in this process (``cache_if(value)``: whether to
    cache it).

    For results that are a function of their key alone and never changed by their users (a string, a bool, a
    tuple): a serve session or a process building again asks for them on every save, and a fresh process has
    them from the disk caches above them.  ``RULEPRESS_CACHE=0`` turns it off with the rest of the cache.
    """
    if not enabled():
        return make()
    found = _MEMO.get((kind, key), _NOTHING)
    if found is not _NOTHING:
        return found
    value = make()
    if cache_if(value):
        if len(_MEMO) >= MEMO_SIZE:  # the oldest first (dicts keep insertion order)
            del _MEMO[next(iter(_MEMO))]
        _MEMO[(kind, key)] = value
    return value


def clear_process_cache() -> None:
    """Empty what this process cached (:func:`cached_in_process`) and forget the warnings it said once: a test
    reading the disk entries again."""
    _MEMO.clear()
    _WARNED.clear()
    _FOREIGN_SAID.clear()


def cached_data(root: Path, kind: str, key: str, make: Callable[[], Any]) -> Any:
    """``make()`` (plain data), kept under ``kind`` on disk (as :mod:`rulepress.codec`'s JSON, which reading runs
    nothing from) and in this process; each call returns a fresh copy, so its user may change it.  Errors are not
    kept: ``make()`` raises again."""
    from rulepress import codec  # (the codec imports the engines' base types, which need nothing of the store)

    key = key_of(code_digest(), key)
    store = Store(root)

    def load() -> bytes:
        data = store.get(kind, key)
        if data is not None:
            try:
                codec.PLAIN.unpack(data)
                return data
            except codec.CodecError as exc:
                store.discard(store.path(kind, key), f"cannot be decoded ({exc})")
        data = codec.PLAIN.pack(make())
        store.put(kind, key, data)
        return data

    return codec.PLAIN.unpack(cached_in_process(kind, key, load))


class _NotPlain(Exception):
    pass


class _PlainPickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        # Called only for what pickle does not write natively: anything but exact dicts, lists, tuples, sets,
        # strings, bytes, numbers, booleans and None.  Such a value may act when used (a template context's
        # recording values, see rulepress/load/translations.py), so no result made with it is cached.
        raise _NotPlain


def plain_digest(value: Any) -> str | None:
    """SHA-256 of ``value`` when it is plain data (types told apart: ``1`` is not ``True`` nor ``"1"``), else
    None.  Pickled, with no Python walk over the value: it is asked for on every template the books render."""
    buffer = io.BytesIO()
    try:
        _PlainPickler(buffer, protocol=5).dump(value)
    except (_NotPlain, pickle.PicklingError, TypeError, RecursionError):
        return None
    return hashlib.sha256(buffer.getvalue()).hexdigest()


# -- pruning ------------------------------------------------------------------------------------------------

PRUNE_EVERY = 300.0  # seconds: pruning lists every entry, and one build after another need not each do it


def prune_now(store: Store) -> None:
    """Prune every kind declared in this process (see :func:`declare`), at most once every :data:`PRUNE_EVERY`
    seconds: the store stays bounded, and an author's rebuild after each edit does not list thousands of
    entries every time."""
    stamp = store.folder / ".pruned"
    try:
        if time.time() - stamp.stat().st_mtime < PRUNE_EVERY:
            return
    except OSError:  # never pruned
        pass
    for name in KEEP:
        prune(store, name)
    _empty(store.folder / TRASH)  # left by builds that were stopped before they emptied it
    try:
        stamp.touch()
    except OSError:
        pass


def prune(store: Store, kind: str) -> None:
    """Drop all but the ``KEEP[kind]`` entries of ``kind`` used last (a hit touches its entry).

    An entry is every file (and folder) named after its key: ``<key>``, ``<key>.pdf``, ``<key>.json``..."""
    entries: dict[str, tuple[float, list[Path]]] = {}
    for path in store.folder.glob(f"{kind}/*/*"):
        if path.name.startswith(".tmp-"):
            continue
        key = path.name.split(".", 1)[0]
        try:
            used = path.lstat().st_mtime
        except OSError:  # pruned by another build meanwhile
            continue
        last, parts = entries.get(key, (0.0, []))
        entries[key] = (max(last, used), [*parts, path])
    for _, parts in sorted(entries.values(), key=lambda entry: entry[0], reverse=True)[KEEP.get(kind, 100):]:
        for part in parts:
            if part.is_dir() and not part.is_symlink():  # a whole site: set aside now, deleted by empty_trash
                store.set_aside(part)
            else:
                part.unlink(missing_ok=True)


TRASH = ".trash"


def empty_trash(root: Path) -> None:
    """Delete the kept folders :func:`prune` set aside (hundreds of files each: not while the author waits)."""
    _empty(root / FOLDER / TRASH)


def _empty(folder: Path) -> None:
    if folder.is_dir():
        for entry in folder.iterdir():
            shutil.rmtree(entry, ignore_errors=True)
