"""Shared fixtures: the real project, and a throwaway copy of the small fixture project."""

from __future__ import annotations

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


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One full build of the bundled books (site and every PDF edition), shared by the modules that read it.

    Those modules are in the xdist group "real-build", so only one test worker pays for it.
    """
    from rulepress.publish.build import build

    # A copy of the bundled books, so that this build neither waits on the checkout's build lock nor writes into
    # its .rulepress-cache/ (a designer may be building there while the tests run).
    sources = tmp_path_factory.mktemp("real-sources")
    for folder in ("rules_src", "engine", "examples", "reports"):
        shutil.copytree(ROOT / folder, sources / folder, ignore=shutil.ignore_patterns("__pycache__"))
    project = make_project(tmp_path_factory.mktemp("real") / "project", source=sources)
    target = project.parent / "site"
    build(project, site_dir=target)
    return target

