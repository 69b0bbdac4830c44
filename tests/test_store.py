"""The store checks what it reads: a damaged entry is discarded with one line naming it, never used, never a blocker.

Each way an entry can go bad (cut short, a byte flipped, garbled, gone, a folder in its place, unreadable,
another entry's bytes, a FIFO, a symlink, sealed with another key or forged) is tried on a plain entry and on a kept
folder's file; tests/test_cache_damage.py
damages a whole build's store at random and compares the site with a cold build's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from rulepress import store
from rulepress.store import FOLDER, Store, key_of, seal, unseal


@pytest.fixture(autouse=True)
def cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RULEPRESS_CACHE", raising=False)
    store.clear_process_cache()


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) - 3] ^= 0x20
    path.write_bytes(bytes(data))


def garble(path: Path) -> None:
    path.write_bytes(bytes((b * 7 + 1) % 256 for b in path.read_bytes()))


def empty(path: Path) -> None:
    path.write_bytes(b"")


def folder(path: Path) -> None:
    path.unlink()
    (path / "inside").mkdir(parents=True)


DAMAGES: dict[str, Callable[[Path], None]] = {"truncated": truncate, "a byte flipped": flip, "garbled": garble,
                                               "emptied": empty, "a folder in its place": folder}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_entry_is_discarded_with_one_line_naming_it_and_can_be_kept_again(
        tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]) -> None:
    kept = Store(tmp_path)
    key = key_of("an entry")
    kept.put("replay", key, b"the bytes of a good result" * 10)
    assert kept.get("replay", key) == b"the bytes of a good result" * 10
    DAMAGES[damage](kept.path("replay", key))
    assert kept.get("replay", key) is None and kept.misses == {"replay": 1}
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and f".rulepress-cache/content/replay/{key[:2]}/{key} " in lines[0]
    assert "discarded, it is made again" in lines[0] and str(tmp_path) not in lines[0]  # shown from the root
    assert not kept.path("replay", key).exists()  # out of the way, a folder too
    kept.put("replay", key, b"made again")
    assert kept.get("replay", key) == b"made again"


def test_a_missing_entry_is_a_plain_miss_without_a_word(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept = Store(tmp_path)
    kept.put("pdf", key_of("x"), b"%PDF-")
    kept.path("pdf", key_of("x")).unlink()
    assert kept.get("pdf", key_of("x")) is None and capsys.readouterr().err == ""


def test_another_entrys_bytes_are_not_this_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The digest covers the entry's name: bytes moved under another key, or another suffix, are refused."""
    kept = Store(tmp_path)
    one, two = key_of("one"), key_of("two")
    kept.put("pdf", one, b"one's PDF", ".pdf")
    kept.put("pdf", two, b"two's PDF", ".pdf")
    kept.path("pdf", two, ".pdf").write_bytes(kept.path("pdf", one, ".pdf").read_bytes())
    assert kept.get("pdf", one, ".pdf") == b"one's PDF" and kept.get("pdf", two, ".pdf") is None
    kept.path("pdf", one, ".json").write_bytes(kept.path("pdf", one, ".pdf").read_bytes())
    assert kept.get("pdf", one, ".json") is None
    assert len(capsys.readouterr().err.splitlines()) == 2


def test_an_unreadable_entry_is_discarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    kept = Store(tmp_path)
    key = key_of("x")
    kept.put("yaml", key, b"data")
    path = kept.path("yaml", key)
    if os.geteuid() == 0:  # root reads a file of mode 000: fail its read as an unprivileged user's would
        real = store.read_regular
        monkeypatch.setattr(store, "read_regular", lambda where, most=None: (_ for _ in ()).throw(PermissionError(
                            13, "Permission denied")) if where == path else real(where, most))
    path.chmod(0)
    assert kept.get("yaml", key) is None
    assert "cannot be read (Permission denied)" in capsys.readouterr().err
    assert not path.exists()


def test_a_file_where_a_folder_of_entries_should_be_is_cleared(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    kept = Store(tmp_path)
    key = key_of("x")
    kept.put("trace", key, b"data")
    shard = kept.path("trace", key).parent
    for entry in shard.iterdir():
        entry.unlink()
    shard.rmdir()
    shard.write_bytes(b"junk")
    assert kept.get("trace", key) is None and "cannot be read" in capsys.readouterr().err
    kept.put("trace", key, b"again")
    assert kept.get("trace", key) == b"again"


def test_an_entry_that_does_not_decode_is_discarded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept = Store(tmp_path)
    kept.put("impact", key_of("x"), b"not json")
    assert kept.load("impact", key_of("x"), json.loads) is None
    assert "cannot be decoded (JSONDecodeError)" in capsys.readouterr().err
    assert not kept.path("impact", key_of("x")).exists()


def test_seal_and_unseal() -> None:
    sealed = seal("pdf/ab.pdf", b"data\nwith lines")
    assert unseal("pdf/ab.pdf", sealed) == b"data\nwith lines"
    assert unseal("pdf/ab.json", sealed) is None
    for cut in range(len(sealed)):
        assert unseal("pdf/ab.pdf", sealed[:cut]) is None
    assert unseal("pdf/ab.pdf", sealed + b"x") is None
    assert unseal("x", seal("x", b"")) == b""


def test_cached_data_made_again_for_a_damaged_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    made: list[int] = []

    def make() -> dict[str, list[int]]:
        made.append(1)
        return {"a": [1, 2]}

    assert store.cached_data(tmp_path, "trace", "k", make) == {"a": [1, 2]}
    store.clear_process_cache()  # a new process: from the disk
    assert store.cached_data(tmp_path, "trace", "k", make) == {"a": [1, 2]} and made == [1]
    store.clear_process_cache()
    [entry] = (tmp_path / FOLDER / "trace").glob("*/*")
    garble(entry)
    assert store.cached_data(tmp_path, "trace", "k", make) == {"a": [1, 2]} and made == [1, 1]
    assert "trace/" in capsys.readouterr().err
    store.clear_process_cache()
    entry.write_bytes(seal(f"trace/{entry.name}", b"not data"))  # sealed, yet not the codec's: still made again
    assert store.cached_data(tmp_path, "trace", "k", make) == {"a": [1, 2]} and made == [1, 1, 1]
    kept = unseal(f"trace/{entry.name}", entry.read_bytes()) or b""
    assert json.loads(kept.partition(b"\n")[0])["v"] == {"a": [1, 2]}  # JSON, no pickle


# -- kept folders ---------------------------------------------------------------------------------------------


def a_site(folder: Path) -> Path:
    (folder / "mini" / "rules").mkdir(parents=True)
    (folder / "index.html").write_text("<html>home</html>")
    (folder / "mini" / "rules" / "play.html").write_text("<html>play</html>" * 50)
    (folder / "search").mkdir()
    (folder / "search" / "index.json").write_text("[0]")
    (folder / "empty").mkdir()
    (folder / ".pdf").mkdir()
    (folder / ".pdf" / "being-made.pdf").write_bytes(b"%PDF-")
    return folder


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_kept_folder_comes_back_the_same_with_its_mtimes(tmp_path: Path) -> None:
    from shutil import ignore_patterns

    kept = Store(tmp_path)
    site = a_site(tmp_path / "staging")
    os.utime(site / "index.html", ns=(1_000_000_000, 1_000_000_000))
    assert kept.put_folder("site", key_of("s"), site, ignore=ignore_patterns(".pdf"))
    target = tmp_path / "out"
    target.mkdir()
    assert kept.copy_folder("site", key_of("s"), target)
    assert files_of(target) == {k: v for k, v in files_of(site).items() if not k.startswith(".pdf")}
    assert (target / "empty").is_dir() and (target / "search").is_dir()
    assert (target / "index.html").stat().st_mtime_ns == 1_000_000_000


def test_an_unchanged_file_is_linked_to_the_previous_kept_folder(tmp_path: Path) -> None:
    kept = Store(tmp_path)
    site = a_site(tmp_path / "staging")
    kept.put_folder("site", key_of("one"), site)
    again = tmp_path / "again"
    again.mkdir()
    kept.copy_folder("site", key_of("one"), again)  # as a dirty build starts
    (again / "index.html").write_text("<html>new home</html>")  # written again
    damaged = kept.path("site", key_of("one")) / "search" / "index.json"  # the same size and mtime, other bytes
    (again / "search" / "index.json").write_text("[1]")
    damaged.write_text("[2]")
    stamp = (again / "search" / "index.json").stat()
    os.utime(damaged, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    kept.put_folder("site", key_of("two"), again, previous=key_of("one"))
    first, second = kept.path("site", key_of("one")), kept.path("site", key_of("two"))
    assert os.path.samefile(first / "mini/rules/play.html", second / "mini/rules/play.html")
    assert not os.path.samefile(first / "index.html", second / "index.html")
    assert (second / "search" / "index.json").read_text() == "[1]"  # not linked: not the bytes its manifest names
    assert not os.path.samefile(again / "mini/rules/play.html", second / "mini/rules/play.html")  # never the staged


@pytest.mark.parametrize("damage", [*DAMAGES, "gone"])
def test_a_kept_folder_with_a_bad_file_is_discarded_and_nothing_of_it_is_copied(
        tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]) -> None:
    kept = Store(tmp_path)
    kept.put_folder("site", key_of("s"), a_site(tmp_path / "staging"))
    bad = kept.path("site", key_of("s")) / "mini" / "rules" / "play.html"
    if damage == "gone":
        bad.unlink()
    else:
        DAMAGES[damage](bad)
    target = tmp_path / "out"
    (target / ".pdf").mkdir(parents=True)
    (target / ".pdf" / "made-meanwhile.pdf").write_bytes(b"%PDF-")  # the build's PDFs, rendered meanwhile
    assert not kept.copy_folder("site", key_of("s"), target)
    assert files_of(target) == {".pdf/made-meanwhile.pdf": b"%PDF-"}  # nothing else left to publish
    assert sorted(p.name for p in target.iterdir()) == [".pdf"]
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "mini/rules/play.html" in lines[0] and "its kept folder is discarded" in lines[0]
    assert not kept.path("site", key_of("s")).exists() and not kept.path("site", key_of("s"), ".files").exists()
    assert not kept.copy_folder("site", key_of("s"), target)  # gone: a plain miss


def test_a_file_added_to_a_kept_folder_is_never_copied(tmp_path: Path) -> None:
    kept = Store(tmp_path)
    kept.put_folder("site", key_of("s"), a_site(tmp_path / "staging"))
    (kept.path("site", key_of("s")) / "planted.html").write_text("not built")
    target = tmp_path / "out"
    assert kept.copy_folder("site", key_of("s"), target) and not (target / "planted.html").exists()


def test_a_manifest_naming_a_file_outside_its_folder_is_refused(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    kept = Store(tmp_path)
    kept.put_folder("site", key_of("s"), a_site(tmp_path / "staging"))
    manifest = {"files": {"../../../../outside.html": "0" * 64}, "dirs": []}
    kept.put("site", key_of("s"), json.dumps(manifest).encode(), ".files")
    assert not kept.copy_folder("site", key_of("s"), tmp_path / "out")
    assert "cannot be decoded" in capsys.readouterr().err and not (tmp_path / "outside.html").exists()


# -- trust: the key, foreign entries, things that are not files ------------------------------------------------


def _another_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "_KEY", [b"another machine's key, 32 bytes!"])


def test_the_key_lives_outside_every_cache_and_only_its_owner_reads_it(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(store, "_KEY", [])
    key = store.seal_key()
    path = tmp_path / "home" / ".local" / "state" / "rulepress" / "store-key"
    assert path.read_bytes() == key and len(key) == 32 and (path.stat().st_mode & 0o777) == 0o600
    monkeypatch.setattr(store, "_KEY", [])
    assert store.seal_key() == key  # the next process reads the same key
    path.write_bytes(b"short")  # no key: a new one replaces it (and the store's entries are made again)
    monkeypatch.setattr(store, "_KEY", [])
    assert store.seal_key() != key and len(path.read_bytes()) == 32


def test_a_forged_entry_with_a_valid_unkeyed_digest_is_not_used(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The seal was the plain SHA-256 of the name and bytes: anyone who could write the cache could make an entry it
    accepted.  Now it is keyed: a forged entry is damaged, whatever digest it carries."""
    import hashlib

    kept = Store(tmp_path)
    key = key_of("x")
    name = f"replay/{key}"
    data = b'{"forged": true}'
    unkeyed = hashlib.sha256(name.encode() + b"\0" + data).hexdigest().encode()
    path = kept.path("replay", key)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"rulepress-entry sha256:" + unkeyed + b"\n" + data)  # the old format's seal
    assert kept.get("replay", key) is None
    good = seal(name, data)
    path.write_bytes(good[: len(good) - len(data) - 65] + unkeyed + b"\n" + data)  # this key's id, unkeyed digest
    assert kept.get("replay", key) is None
    assert "is damaged" in capsys.readouterr().err


def test_a_cache_from_elsewhere_costs_a_rebuild_and_says_so_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A cache copied from CI or another machine was sealed with another key: none of it is used (each entry made
    again), and one line says why, not one per entry."""
    kept = Store(tmp_path)
    with pytest.MonkeyPatch.context() as elsewhere:
        _another_key(elsewhere)
        for number in range(5):
            kept.put("replay", key_of(str(number)), b"made elsewhere")
        kept.put_folder("site", key_of("s"), a_site(tmp_path / "staging"))
    assert all(kept.get("replay", key_of(str(number))) is None for number in range(5))
    assert not kept.copy_folder("site", key_of("s"), tmp_path / "out")  # its manifest is another key's
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.html"))
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"rulepress: warning: {FOLDER} holds entries sealed with another key (a cache copied from "
                     "elsewhere): none of them is used, each is made again"]
    kept.put("replay", key_of("0"), b"made here")
    assert kept.get("replay", key_of("0")) == b"made here"


def test_a_forged_kept_site_publishes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: a kept site whose manifest named /etc/passwd's bytes under a valid unkeyed digest was published.
    The manifest is an entry like any other, sealed with the key: a forged one is never read."""
    import hashlib

    kept = Store(tmp_path)
    folder = kept.path("site", key_of("s"))
    folder.mkdir(parents=True)
    secret = b"root:x:0:0:root:/root:/bin/bash\n"
    (folder / "index.html").write_bytes(secret)
    manifest = json.dumps({"files": {"index.html": hashlib.sha256(secret).hexdigest()}, "dirs": []}).encode()
    with pytest.MonkeyPatch.context() as forger:
        _another_key(forger)
        kept.put("site", key_of("s"), manifest, ".files")
    target = tmp_path / "out"
    assert not kept.copy_folder("site", key_of("s"), target)
    assert not (target / "index.html").exists()


def _soon(run: Callable[[], object], seconds: float = 10.0) -> object:
    """``run()`` in a thread, which must end within ``seconds`` (a read of a FIFO would wait forever)."""
    import threading

    found: list[object] = []
    thread = threading.Thread(target=lambda: found.append(run()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "it blocked"
    return found[0]


def test_a_fifo_in_an_entrys_place_is_discarded_without_being_opened(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    kept = Store(tmp_path)
    key = key_of("x")
    kept.put("pdf", key, b"%PDF-", ".pdf")
    path = kept.path("pdf", key, ".pdf")
    path.unlink()
    os.mkfifo(path)
    assert _soon(lambda: kept.get("pdf", key, ".pdf")) is None
    assert not path.exists() and "is a FIFO (named pipe), not a regular file: discarded" in capsys.readouterr().err
    path.symlink_to("/dev/zero")  # nor a symlink, to something that never ends
    store.clear_process_cache()  # (a line is said once a process for each entry)
    assert _soon(lambda: kept.get("pdf", key, ".pdf")) is None
    assert "is a symlink, not a regular file" in capsys.readouterr().err
    kept.put("pdf", key, b"%PDF-again", ".pdf")
    assert kept.get("pdf", key, ".pdf") == b"%PDF-again"


@pytest.mark.parametrize("what", ["fifo", "device", "folder-link"])
def test_a_kept_folder_holding_what_is_not_a_file_is_discarded_without_blocking(
        tmp_path: Path, what: str, capsys: pytest.CaptureFixture[str]) -> None:
    kept = Store(tmp_path)
    kept.put_folder("site", key_of("s"), a_site(tmp_path / "staging"))
    folder = kept.path("site", key_of("s"))
    if what == "fifo":
        (folder / "index.html").unlink()
        os.mkfifo(folder / "index.html")
    elif what == "device":
        (folder / "index.html").unlink()
        (folder / "index.html").symlink_to("/dev/zero")
    else:
        import shutil

        shutil.rmtree(folder / "mini")
        (folder / "mini").symlink_to("/proc/self")
    target = tmp_path / "out"
    assert _soon(lambda: kept.copy_folder("site", key_of("s"), target)) is False
    assert not (target / "index.html").exists() and "its kept folder is discarded" in capsys.readouterr().err


def test_pruning_drops_every_part_of_an_entry_and_sets_folders_aside(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    kept = Store(tmp_path)
    monkeypatch.setitem(store.KEEP, "site", 1)
    for number, name in enumerate(("old", "new")):
        key = key_of(name)
        kept.put_folder("site", key, a_site(tmp_path / name))
        kept.put("site", key, b"{}", ".json")
        for part in kept.path("site", key).parent.glob(f"{key}*"):
            os.utime(part, (1_000_000 + number, 1_000_000 + number))
    store.prune(kept, "site")
    left = sorted(p.name for p in (tmp_path / FOLDER / "site").glob("*/*"))
    assert left == sorted(key_of("new") + suffix for suffix in ("", ".files", ".json"))
    assert [p.name.split("-")[0] for p in (tmp_path / FOLDER / store.TRASH).iterdir()] == [key_of("old")]
    store.empty_trash(tmp_path)
    assert list((tmp_path / FOLDER / store.TRASH).iterdir()) == []


def test_the_cache_off_reads_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEPRESS_CACHE", "0")
    kept = Store(tmp_path)
    kept.put("replay", key_of("x"), b"data")
    assert not kept.put_folder("site", key_of("s"), a_site(tmp_path / "staging"))
    assert kept.get("replay", key_of("x")) is None and not (tmp_path / FOLDER).exists()
