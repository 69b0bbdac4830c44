"""Shared fixtures: the real project, and a throwaway copy of the small fixture project."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulepress.errors import SourceError
from rulepress.load.book import book_ids
from rulepress.project import default_root
from rulepress.verify.gate import BookCheck, Report, load_checked_book, verify

ROOT = default_root()
MINI = Path(__file__).parent / "fixtures" / "mini"
# How many times slower than usual this run is allowed to be: tools/mutants.py sets it (traced, mutated code under
# mutmut runs many times slower), and every time bound a test sets on the code under test is multiplied by it.
SLOWDOWN = float(os.environ.get("RULEPRESS_TEST_SLOWDOWN", "1") or 1)

# Tests that cannot run inside mutmut's process: mutation runs leave them out (tools/mutmut_plugin.py), by this
# marker and its reason, never by a list of names.  Each reason is a property of what the test does.
REAL_CTRL_C = pytest.mark.outside_mutmut(
    reason="sends the process a real SIGINT: mutmut's process does not keep the interpreter's default handler")
DASK_WORKERS = pytest.mark.outside_mutmut(
    reason="starts Dask worker processes, which wait forever in a mutant's forked process (mutmut's limit is CPU "
           "time, which a waiting process never uses up)")


def make_project(target: Path, source: Path = MINI) -> Path:
    """A project at ``target``: a copy of the fixture's (or ``source``'s) content, as a designer has it. The site's
    configuration, theme and plugin come with the installed rulepress."""
    # What a build or a test run left in the source (its cache, its site) is not the fixture's content.
    shutil.copytree(source, target, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".rulepress-cache", "site", "__pycache__"))
    return target


@pytest.fixture(autouse=True, scope="session")
def one_process_no_cache() -> Iterator[None]:
    """Builds in tests render in the test's process and afresh: many tests patch the PDF writer there and expect
    it to run.  tests/test_cache.py and tests/test_serve.py turn the cache and the worker processes back on.
    Set for the session, not with ``monkeypatch``: a test's ``monkeypatch.undo()`` must not turn them on."""
    saved = {name: os.environ.get(name) for name in ("RULEPRESS_JOBS", "RULEPRESS_CACHE")}
    os.environ.update(RULEPRESS_JOBS="1", RULEPRESS_CACHE="0")
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def bundled() -> Report:
    """The gate's report of every bundled book, drawn (``verify(ROOT)``): made once per test process and read by every
    module that only reads a check of a bundled book, rather than each module paying ~60 CPU seconds for its own.
    A test that changes what it reads, or needs the books checked afresh, runs its own ``verify``."""
    report = verify(ROOT)
    assert report.ok, report.failures()
    return report


def checks_of(report: Report, *books: str) -> Report:
    """The checks of ``books`` (in that order) in a report of their own, as ``verify(ROOT, list(books))`` gives them
    (the whole report passed: it has no problem)."""
    by_id = {check.book.id: check for check in report.books}
    return Report(books=[by_id[book] for book in books])


def load_books() -> tuple[dict[str, BookCheck], dict[str, str]]:
    """Every bundled book with its engine and examples, and the load error of any that fails."""
    checks, errors = {}, {}
    for book in book_ids(ROOT):
        try:
            checks[book] = load_checked_book(ROOT, book)
        except SourceError as error:
            errors[book] = str(error)
    return checks, errors


REAL_BUILD = "real-build"  # the xdist group of the modules that read the one full build of the bundled books
# The build's command, run as its own process: exit code into argv[1] however it ends.
BUILD_SCRIPT = ("import sys\nfrom pathlib import Path\nfrom rulepress.cli import main\ncode = 1\ntry:\n"
                "    code = main(sys.argv[2:])\nfinally:\n    Path(sys.argv[1]).write_text(str(code))\n")


def _reads_real_build(item: pytest.Item) -> bool:
    return any(mark.args[:1] == (REAL_BUILD,) for mark in item.iter_markers("xdist_group"))


def _shared_folder(config: pytest.Config) -> Path | None:
    """Where the workers of one xdist run share the full build (their temp folders have one parent)."""
    workerinput = getattr(config, "workerinput", None)
    basetemp = getattr(config.option, "basetemp", None)
    return Path(basetemp).parent / "real-build" if workerinput and basetemp else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules reading the full build run last, and under xdist the first worker starts that build at once,
    in a process of its own, so it is made while the other tests run rather than after them.

    (pytest-xdist 3.8's ``--dist loadgroup`` cannot keep those modules on one worker under pytest 9: it renames
    ``item._nodeid``, which pytest 9 no longer reads. The workers share one build through a folder instead.)"""
    items.sort(key=_reads_real_build)
    folder = _shared_folder(config)
    if folder is None or config.workerinput.get("workerid") != "gw0" or not any(map(_reads_real_build, items)):
        return
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / "started").exists():
            return
        project, target = _real_project(folder)
        # Two PDF processes: at the end of the run, when the quick tests are done, the build has both cores.
        (folder / "tmp").mkdir()  # the build's temporary folder: a test checks it is left empty
        env = {**os.environ, "RULEPRESS_JOBS": "2", "RULEPRESS_CACHE": "0", "TMPDIR": str(folder / "tmp")}
        with open(folder / "build.log", "w") as log:
            subprocess.Popen([sys.executable, "-c", BUILD_SCRIPT, str(folder / "exit-code"), "--root", str(project),
                              "build", "--site-dir", str(target)], stdout=log, stderr=subprocess.STDOUT, env=env,
                             cwd=folder, start_new_session=True)  # not project: its rulepress/ would shadow ours
        (folder / "started").write_text("")


@pytest.fixture(scope="session")
def real_site(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One full build of the bundled books (site and every PDF edition), shared by the modules that read it.

    Under xdist the first worker started it in the background (above) and every worker waits for that one build;
    run without xdist, it is built here.
    """
    folder = _shared_folder(pytestconfig)
    if folder is not None and (folder / "started").exists():
        code, waited = folder / "exit-code", 0.0
        while not code.exists() and waited < 1800:
            time.sleep(1)
            waited += 1
        if not code.exists() or code.read_text() != "0":
            log = (folder / "build.log").read_text(errors="replace")[-4000:]
            pytest.fail(f"the full build of the bundled books failed or hung ({code}):\n{log}")
        return folder / "site"
    folder = tmp_path_factory.mktemp("real-build")
    project, target = _real_project(folder)
    from rulepress.publish.build import build

    (folder / "tmp").mkdir()
    saved, tempfile.tempdir = tempfile.tempdir, str(folder / "tmp")
    try:
        build(project, site_dir=target)
    finally:
        tempfile.tempdir = saved
    return target


def _real_project(folder: Path) -> tuple[Path, Path]:
    """A copy of the bundled books in ``folder``, so that their build neither waits on the checkout's build lock
    nor writes into its .rulepress-cache/ (a designer may be building there while the tests run)."""
    sources = folder / "sources"
    for name in ("rules_src", "engine", "examples", "reports"):
        shutil.copytree(ROOT / name, sources / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("rulepress.yaml", "mkdocs.yml"):  # the project's marker and its own site settings
        shutil.copy(ROOT / name, sources / name)
    return make_project(folder / "project", source=sources), folder / "site"

