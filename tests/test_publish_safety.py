"""Nothing bad is ever published: no folder we did not make is replaced, no half build, no network, no traceback."""

from __future__ import annotations

import os
import pickle
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rulepress import cli
from rulepress.errors import BuildRefused, SourceError
from rulepress.publish import build as build_module
from rulepress.publish import swap
from rulepress.publish.build import Terminated, build
from rulepress.publish.lock import build_lock, pid_alive
from rulepress.render import pdf
from rulepress.render.fetch import RefusedURL
from rulepress.verify import diagram
from rulepress.verify.limits import EngineFault
from tests.test_build import tree_digest


def project_digest(root: Path) -> dict[str, str]:
    return {name: str(tree_digest(root / name)) for name in ("rules_src", "engine", "examples", "site_src")}


def refused(root: Path, **kwargs: object) -> list[str]:
    with pytest.raises(BuildRefused) as caught:
        build(root, **kwargs)  # type: ignore[arg-type]
    return caught.value.problems


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie lingers where PID 1 does not reap)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return pid_alive(pid)
    return state != "Z"


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


# --- where a build may publish ---------------------------------------------------------------------------------

def test_unmarked_folder_is_refused_and_survives(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = mini / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "index.md").write_text("# My notes\n")
    (docs / "guide" / "setup.md").write_text("keep me\n")
    before = tree_digest(docs)
    assert cli.main(["--root", str(mini), "build", "--site-dir", str(docs)]) == 1
    err = capsys.readouterr().err
    assert (f"  - {docs}: is not empty and has no .rulepress-site marker, so rulepress did not publish it; "
            f"refusing to replace it (delete it yourself, or choose another --site-dir)") in err
    assert tree_digest(docs) == before
    assert list((mini / ".rulepress-cache" / "staging").glob("*")) == []


@pytest.mark.parametrize("where", [".", ".."])
def test_project_root_and_ancestors_are_refused(mini: Path, where: str) -> None:
    before = project_digest(mini)
    target = (mini / where).resolve()
    problems = refused(mini, site_dir=mini / where)
    assert problems == [f"{target}: is the project root or a folder above it; --site-dir must name a folder of "
                        f"its own (default: {mini.resolve() / 'site'})"]
    assert project_digest(mini) == before
    assert (mini / "rulepress.yaml").is_file()


def test_folder_holding_a_project_is_refused_even_when_marked(mini: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "engine").mkdir(parents=True)
    (other / swap.MARKER).write_text(swap.MARKER_TEXT)
    assert refused(mini, site_dir=other) == [f"{other.resolve()}: holds engine/, so it looks like a rulepress "
                                             f"project, not a published site; nothing was replaced"]
    assert (other / "engine").is_dir()


def test_inside_project_content_is_refused(mini: Path) -> None:
    assert refused(mini, site_dir=mini / "rules_src" / "out") == [
        f"{(mini / 'rules_src' / 'out').resolve()}: is inside the project's rules_src/; publish somewhere else"]
    assert not (mini / "rules_src" / "out").exists()


def test_newer_marker_is_refused(mini: Path) -> None:
    site = mini / "site"
    site.mkdir()
    (site / swap.MARKER).write_text("rulepress-site 2\n")
    assert refused(mini) == [f"{site.resolve() / swap.MARKER}: format version 2 is newer than this rulepress "
                             f"understands (1); upgrade rulepress to publish here"]


def test_empty_folder_then_marked_folder_are_replaced(mini: Path) -> None:
    site = mini / "site"
    site.mkdir()
    build(mini)
    assert (site / swap.MARKER).read_text() == "rulepress-site 1\n"
    (site / "stale.html").write_text("from an older build")
    build(mini)
    assert not (site / "stale.html").exists() and (site / "index.html").is_file()


def test_published_folder_is_world_readable(mini: Path) -> None:
    previous = os.umask(0o077)  # what tempfile.mkdtemp and a strict umask used to publish
    try:
        build(mini)
    finally:
        os.umask(previous)
    site = mini / "site"
    modes = {stat.S_IMODE(p.stat().st_mode) for p in [site, *site.rglob("*")] if p.is_dir()}
    assert modes == {0o755}
    modes = {stat.S_IMODE(p.stat().st_mode) for p in site.rglob("*") if p.is_file()}
    assert modes == {0o644}


# --- locking and leftovers -------------------------------------------------------------------------------------

def test_second_build_refuses_after_waiting(mini: Path) -> None:
    with build_lock(mini):
        start = time.monotonic()
        problems = refused(mini, wait=0.5)
        waited = time.monotonic() - start
    lock = mini.resolve() / ".rulepress-cache" / "build.lock"
    assert problems == [f"{lock}: another build (pid {os.getpid()}) of this project is still running after "
                        f"waiting 0.5 s; try again when it has finished (or give it longer with --wait SECONDS)"]
    assert 0.5 <= waited < 3
    assert not (mini / "site").exists()


def test_second_build_waits_for_the_first(mini: Path) -> None:
    held = threading.Event()

    def holder() -> None:
        with build_lock(mini):
            held.set()
            time.sleep(1.0)

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait()
    start = time.monotonic()
    build(mini, wait=30)
    thread.join()
    assert time.monotonic() - start >= 0.9
    assert (mini / "site" / "index.html").is_file()


def test_forked_worker_neither_holds_the_lock_nor_outlives_the_build(mini: Path, tmp_path: Path) -> None:
    script = tmp_path / "holder.py"
    script.write_text(
        "import multiprocessing, sys, time\n"
        "from pathlib import Path\n"
        "from rulepress.publish.lock import build_lock, pid_alive\n"
        "with build_lock(Path(sys.argv[1])):\n"
        "    worker = multiprocessing.get_context('fork').Process(target=time.sleep, args=(60,))\n"
        "    worker.start()\n"
        "    print(worker.pid, flush=True)\n"
        "    time.sleep(60)\n")
    holder = subprocess.Popen([sys.executable, str(script), str(mini)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    worker = int(holder.stdout.readline())
    holder.kill()  # the build dies by SIGKILL while its PDF worker is busy
    holder.wait()
    with build_lock(mini, wait=5):  # the worker's inherited descriptor does not keep the lock held
        pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and running(worker):
        time.sleep(0.05)
    assert not running(worker)  # and the worker died with the build


def test_leftovers_of_dead_builds_are_removed(mini: Path) -> None:
    build(mini)
    pid = dead_pid()
    staging = mini / ".rulepress-cache" / "staging" / f"{pid}-0badc0de"
    (staging / "pdf").mkdir(parents=True)
    (staging / "pdf" / "half.pdf").write_bytes(b"%PDF-1.7 trunc")
    old = mini / f".site.old-{pid}-12345678"
    old.mkdir()
    (old / swap.MARKER).write_text(swap.MARKER_TEXT)
    alive = mini / f".site.old-{os.getpid()}-87654321"  # a running build's: not ours to remove
    alive.mkdir()
    mine = mini / ".site.old-notes"  # not a name a build makes
    mine.mkdir()
    lines = build(mini)
    assert "removed 2 folders left by killed builds" in lines
    assert not staging.exists() and not old.exists()
    assert alive.is_dir() and mine.is_dir()
    assert list((mini / ".rulepress-cache" / "staging").iterdir()) == []


def test_target_on_another_filesystem_stages_next_to_it(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_stat = os.stat

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        result = real_stat(path, *args, **kwargs)  # type: ignore[arg-type]
        if Path(str(path)).name == "staging":  # the project cache, as if on another device than the target
            return os.stat_result((result[0], result[1], result[2] + 1, *result[3:]))
        return result

    monkeypatch.setattr(swap.os, "stat", stat)
    staging = swap.new_staging(mini, mini / "site")
    assert re.fullmatch(rf"\.site\.staging-{os.getpid()}-[0-9a-f]{{8}}", staging.name) and staging.parent == mini
    staging.rmdir()
    dead = mini / f".site.staging-{dead_pid()}-0badc0de"
    dead.mkdir()
    build(mini)
    assert (mini / "site" / "index.html").is_file()
    assert not [p.name for p in mini.iterdir() if ".staging-" in p.name]


def test_site_taken_away_by_a_dead_build_is_restored(mini: Path) -> None:
    build(mini)
    before = tree_digest(mini / "site")
    old = mini / f".site.old-{dead_pid()}-abcdef01"
    os.replace(mini / "site", old)  # killed between the two renames of the fallback swap
    swap.sweep_leftovers(mini, mini / "site")
    assert tree_digest(mini / "site") == before and not old.exists()


def test_fallback_swap_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(swap, "_exchange", lambda first, second: False)
    site, staging = tmp_path / "site", tmp_path / "staging"
    site.mkdir()
    (site / "old.html").write_text("old")
    staging.mkdir()
    (staging / "new.html").write_text("new")
    swap.publish(staging, site)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert [p.name for p in site.iterdir()] == ["new.html"]


# --- what rendering may do and read ----------------------------------------------------------------------------

def break_engine_svg(mini: Path) -> None:
    engine = mini / "engine" / "mini" / "__init__.py"
    engine.write_text(engine.read_text().replace('f"{stones}</svg>")', 'f"{stones}<g></svg>")'))


def test_malformed_engine_svg_is_refused_by_the_gate(mini: Path) -> None:
    """The gate reads every diagram as it is drawn and names what it shows and the engine's line: the example's first
    (the step-through's frame of the starting position, rulepress/verify/frames.py), and the book's setup diagram
    (rulepress/verify/figures.py), both from the same broken render_svg."""
    break_engine_svg(mini)
    problems = sorted(refused(mini))
    assert len(problems) == 2, problems
    assert re.match(r"mini-last-stone \(examples/mini/mini-last-stone\.yaml\): start \(line 5\): the diagram of the "
                    r"starting position from render_svg \(engine/mini/__init__\.py:\d+\) is not well-formed XML",
                    problems[0]), problems
    assert re.match(r"mini: the setup diagram \(en\) from render_svg \(engine/mini/__init__\.py:\d+\) is not "
                    r"well-formed XML", problems[1]), problems
    assert not (mini / "site").exists()


def test_an_image_weasyprint_cannot_load_refuses(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Behind the gate, WeasyPrint's own complaint about an image still refuses the build (never just a log line):
    one complaint for each broken image, the setup diagram's and the example's."""
    monkeypatch.setattr(diagram, "problem", lambda svg: None)
    break_engine_svg(mini)
    problems = refused(mini)
    assert len(problems) == 2, problems
    for problem in problems:
        assert re.fullmatch(r"weasyprint: Failed to load image at 'data:image/svg\+xml;base64,[A-Za-z0-9+/=]{24}"
                            r"…\(\d+ chars\)'", problem), problems
    assert not (mini / "site").exists()


def with_image(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """The print edition's HTML with one more image, as if a chapter or the template referred to ``url``."""
    print_html = pdf.print_html
    monkeypatch.setattr(pdf, "print_html", lambda *args, **kwargs: print_html(*args, **kwargs).replace(
        "</body>", f'<img src="{url}" alt="x"></body>'))


def test_missing_image_refuses(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = mini.resolve() / "rules_src" / "mini" / "map.png"
    with_image(monkeypatch, missing.as_uri())
    assert refused(mini) == [f"weasyprint: print edition refers to {missing.as_uri()}: cannot be read "
                             f"([Errno 2] No such file or directory: '{missing}')"]
    assert not (mini / "site").exists()


@pytest.mark.parametrize("url, reason", [
    ("http://127.0.0.1:9/x.png", "only the project's own files may be used, not http URLs"),
    ("https://example.org/font.woff", "only the project's own files may be used, not https URLs"),
    ("file:///etc/passwd", "outside the project, its build and rulepress's fonts"),
])
def test_print_edition_fetches_nothing_outside(mini: Path, monkeypatch: pytest.MonkeyPatch, url: str,
                                               reason: str) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network attempted: {args}")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    with_image(monkeypatch, url)
    assert refused(mini) == [f"weasyprint: print edition refers to {url}: {reason}"]
    assert not (mini / "site").exists()


def test_refused_url_survives_a_worker_process() -> None:
    error = pickle.loads(pickle.dumps(RefusedURL("http://127.0.0.1:9/x.png", "not allowed")))
    assert isinstance(error, RefusedURL)
    assert str(error) == "print edition refers to http://127.0.0.1:9/x.png: not allowed"


def test_mkdocs_missing_link_target_refuses(mini: Path) -> None:
    (mini / "site_src").mkdir()
    (mini / "site_src" / "about.md").write_text("# About\n\nSee [the notes](notes.md).\n")
    problems = refused(mini)
    assert problems == ["mkdocs: Doc file 'about.md' contains a link 'notes.md', but the target is not found "
                        "among documentation files."]


# --- interrupts ------------------------------------------------------------------------------------------------

def swallowing_interrupt(signum: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PDF writer that gets a signal and, like a cffi callback, swallows the exception and carries on."""
    write_pdf = pdf.write_pdf
    calls = []

    def write(*args: object, **kwargs: object) -> int:
        calls.append(args)
        if len(calls) == 2:  # the second edition
            try:
                os.kill(os.getpid(), signum)
                time.sleep(0.1)  # the handler runs here, or at the latest here
            except BaseException:  # noqa: BLE001 - what the library does, not what we do
                pass
        return write_pdf(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pdf, "write_pdf", write)


@pytest.mark.parametrize("signum, error", [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)])
def test_swallowed_interrupt_still_publishes_nothing(mini: Path, monkeypatch: pytest.MonkeyPatch, signum: int,
                                                     error: type[BaseException]) -> None:
    build(mini)
    before = tree_digest(mini / "site")
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    swallowing_interrupt(signum, monkeypatch)
    with pytest.raises(error):
        build(mini)
    assert tree_digest(mini / "site") == before
    assert list((mini / ".rulepress-cache" / "staging").iterdir()) == []
    with build_lock(mini, wait=0):  # released
        pass
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers  # restored


def test_a_signal_during_the_swap_finds_the_build_published(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocking a signal holds it back from the main thread only: with a helper thread alive (a process pool's,
    say) the kernel hands it there and Python runs the handler in the main thread anyway.  A SIGTERM that lands
    mid-swap must find the build committed, not report "terminated" for a build that did publish."""
    build(mini)
    inode = (mini / "site").stat().st_ino
    idle = threading.Event()
    helper = threading.Thread(target=idle.wait, daemon=True)  # started before any blocking: signals reach it
    helper.start()
    real_publish = build_module.publish

    def publish_then_signal(staging: Path, target: Path) -> None:
        real_publish(staging, target)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)  # the handler has run by now, if it is going to run here

    monkeypatch.setattr(build_module, "publish", publish_then_signal)
    try:
        build(mini)  # no Terminated: the swap was done
    finally:
        idle.set()
    assert (mini / "site").stat().st_ino != inode
    assert list((mini / ".rulepress-cache" / "staging").iterdir()) == []


def test_cli_exit_codes_for_interrupts(mini: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    swallowing_interrupt(signal.SIGTERM, monkeypatch)
    assert cli.main(["--root", str(mini), "build"]) == 143
    assert capsys.readouterr().err == "rulepress: terminated\n"
    monkeypatch.undo()
    swallowing_interrupt(signal.SIGINT, monkeypatch)
    assert cli.main(["--root", str(mini), "build"]) == 130
    assert capsys.readouterr().err == "rulepress: interrupted\n"
    assert not (mini / "site").exists()


# --- the command line ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("error", [RuntimeError("boom\nsecond line"), MemoryError("boom"), RecursionError("boom")])
def test_internal_error_is_one_line_and_a_crash_log(mini: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str], error: Exception) -> None:
    def broken(*args: object, **kwargs: object) -> list[str]:
        raise error

    monkeypatch.setattr(build_module, "build", broken)
    assert cli.main(["--root", str(mini), "build"]) == 70
    err = capsys.readouterr().err
    match = re.fullmatch(r"rulepress: internal error \(this is a bug in rulepress\): (.*); details in (\S+)\n", err)
    assert match, err
    assert match.group(1) == f"{type(error).__name__}: boom"
    log = Path(match.group(2))
    assert log.parent == mini.resolve() / ".rulepress-cache" and log.name.startswith("crash-")
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "in broken" in text
    assert f"{type(error).__name__}: boom" in text


@pytest.mark.parametrize("link", ["__cause__", "__context__"])
def test_an_import_a_ctrl_c_stopped_is_an_interrupt_not_a_bug(mini: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str],
                                                              link: str) -> None:
    """pybind11 turns a KeyboardInterrupt during a module's import into ``ImportError: initialization failed``."""
    def importing(*args: object, **kwargs: object) -> int:
        error = ImportError("initialization failed")
        setattr(error, link, KeyboardInterrupt())
        raise RuntimeError("while importing") from error

    monkeypatch.setattr(build_module, "build", importing)
    assert cli.main(["--root", str(mini), "build"]) == 130
    assert capsys.readouterr().err == "rulepress: interrupted\n"
    assert not (mini / ".rulepress-cache").exists() or not list((mini / ".rulepress-cache").glob("crash-*"))


def test_an_import_error_without_an_interrupt_is_still_a_bug(mini: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    def importing(*args: object, **kwargs: object) -> int:
        cause, error = ValueError("not a Ctrl-C"), ImportError("initialization failed")
        error.__context__, cause.__context__ = cause, error  # a cycle, which the walk must not loop on
        raise error  # outside an except block, so Python leaves the chain as it is

    monkeypatch.setattr(build_module, "build", importing)
    assert cli.main(["--root", str(mini), "build"]) == 70
    assert "internal error" in capsys.readouterr().err


def test_an_engine_s_own_keyboard_interrupt_that_escapes_is_a_bug(mini: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def escaping(*args: object, **kwargs: object) -> int:
        own = KeyboardInterrupt()
        fault = EngineFault("interrupt", "engine code raised KeyboardInterrupt", None, own)
        fault.__cause__ = own  # as the guard raises it
        raise RuntimeError("not caught where it should be") from fault

    monkeypatch.setattr(build_module, "build", escaping)
    assert cli.main(["--root", str(mini), "build"]) == 70
    assert "internal error" in capsys.readouterr().err


def test_crash_log_falls_back_to_tmp(mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(build_module, "build", lambda *args, **kwargs: 1 // 0)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    (mini / ".rulepress-cache").write_text("a file where the cache folder should be")
    assert cli.main(["--root", str(mini), "build"]) == 70
    [log] = tmp_path.glob("rulepress-crash-*.log")
    assert capsys.readouterr().err == ("rulepress: internal error (this is a bug in rulepress): ZeroDivisionError: "
                                       f"integer division or modulo by zero; details in {log}\n")
    assert "1 // 0" in log.read_text()


@pytest.mark.parametrize("column, shown", [(7, "rules_src/mini/book.yaml:3:7: bad trim [rule mini.play]"),
                                           (None, "rules_src/mini/book.yaml:3: bad trim [rule mini.play]")])
def test_source_error_names_file_line_column_rule(column: int | None, shown: str) -> None:
    error = SourceError("rules_src/mini/book.yaml", 3, "bad trim", "mini.play")
    if column is not None:
        error.column = column  # type: ignore[attr-defined]
    assert cli.source_error(error) == shown


def test_build_only_some_books(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--root", str(mini), "build", "--book", "mini"]) == 0
    assert (mini / "site" / "mini" / "index.html").is_file()
    assert cli.main(["--root", str(mini), "build", "--book", "nope"]) == 1
    assert "  - rules_src/nope: no such book (books: mini)" in capsys.readouterr().err
