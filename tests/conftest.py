"""Shared fixtures: the real project, and a throwaway copy of the small fixture project."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulepress.errors import SourceError
from rulepress.load.book import book_ids
from rulepress.project import default_root
from rulepress.verify.gate import BookCheck, load_checked_book

ROOT = default_root()
MINI = Path(__file__).parent / "fixtures" / "mini"


def make_project(target: Path, source: Path = MINI) -> Path:
    """A project at ``target``: the fixture's content plus the real mkdocs.yml, site_src and hooks."""
    shutil.copytree(source, target, dirs_exist_ok=True)
    shutil.copy(ROOT / "mkdocs.yml", target / "mkdocs.yml")
    shutil.copytree(ROOT / "site_src", target / "site_src", dirs_exist_ok=True)
    (target / "rulepress" / "render").mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "rulepress" / "render" / "mkdocs_hooks.py", target / "rulepress" / "render" / "mkdocs_hooks.py")
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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules reading the full build run last, so a worker builds it once the quick tests are dealt out.

    (pytest-xdist 3.8's ``--dist loadgroup`` does not keep a group on one worker under pytest 9: it renames
    ``item._nodeid``, which pytest 9 no longer reads. ``real_site`` shares one build between workers instead.)"""
    items.sort(key=lambda item: any(mark.args[:1] == (REAL_BUILD,) for mark in item.iter_markers("xdist_group")))


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """One full build of the bundled books (site and every PDF edition), shared by the modules that read it.

    Under xdist every worker asks for it: the first builds into a folder all workers share, under a file lock,
    and the others wait for that one build rather than making their own.
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if worker_id != "master" else base  # the workers' temp folders have one parent
    folder = shared / "real-build"
    folder.mkdir(exist_ok=True)
    target = folder / "site"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "built").exists():
            _build_real_site(folder, target)
            (folder / "built").write_text("ok")
    return target


def _build_real_site(folder: Path, target: Path) -> None:
    from rulepress.publish.build import build

    # A copy of the bundled books, so that this build neither waits on the checkout's build lock nor writes into
    # its .rulepress-cache/ (a designer may be building there while the tests run).
    sources = folder / "sources"
    for name in ("rules_src", "engine", "examples", "reports"):
        shutil.copytree(ROOT / name, sources / name, ignore=shutil.ignore_patterns("__pycache__"))
    project = make_project(folder / "project", source=sources)
    # The other workers are waiting for this build or nearly done: let its PDFs use both cores.
    saved = os.environ.get("RULEPRESS_JOBS")
    os.environ["RULEPRESS_JOBS"] = "2"
    try:
        build(project, site_dir=target)
    finally:
        os.environ["RULEPRESS_JOBS"] = saved or "1"

