"""Builds that do not depend on where the project lives (issue 29 E): the same sources in two folders, or on two
machines, give the same bytes.

Until engines were imported under a name made from their files (rulepress/verify/engines.py), the name was hashed
from the project's path, and every referee file of a site named it: the bundle's folders, ``config.json`` and
each position (22 files of Lantern's site differed between two folders).  Here the fixture's site is built in two
folders, each by a process of its own, and compared file by file; a bundled book's pages and referee bundle are
compared between the project and a copy of it elsewhere.  ``RULEPRESS_REPRODUCIBLE=all`` (``nox -s reproducible``)
builds every bundled book whole, PDFs included, in two folders.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rulepress.render import in_browser, site
from rulepress.verify.engines import namespace_for
from rulepress.verify.gate import Report, verify

from .conftest import ROOT, checks_of, make_project

SITE_ONLY = """
import sys
from pathlib import Path
from rulepress.publish.build import gate, render_site
root = Path(sys.argv[1])
render_site(root, gate(root, False), {}, Path(sys.argv[2]))
"""
CAMPAIGN = os.environ.get("RULEPRESS_REPRODUCIBLE") == "all"


def tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` by its relative name, as the SHA-256 of its bytes."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _run(args: list[str], cwd: Path) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "RULEPRESS_CACHE": "0"}
    done = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def _differences(one: dict[str, str], other: dict[str, str]) -> list[str]:
    return sorted(name for name in one.keys() | other.keys() if one.get(name) != other.get(name))


def test_a_site_built_in_two_folders_is_the_same_byte_for_byte(tmp_path: Path) -> None:
    here = make_project(tmp_path / "a" / "project")
    there = make_project(tmp_path / "somewhere" / "else" / "entirely" / "mini-book")
    for project in (here, there):
        _run(["-c", SITE_ONLY, str(project), str(project / "built")], project)
    built, other = tree(here / "built"), tree(there / "built")
    assert any("/referee/" in name for name in built)  # the files the folder's name once reached
    assert _differences(built, other) == []
    assert str(tmp_path) not in (here / "built" / "mini" / "referee" / "config.json").read_text()


def test_a_bundled_books_pages_and_referee_are_the_same_in_another_folder(tmp_path: Path,
                                                                         bundled: Report) -> None:
    copy = tmp_path / "elsewhere" / "copy"
    for part in ("rules_src/lantern", "engine/lantern", "examples/lantern", "reports"):  # reports: the analysis
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "rulepress.yaml", copy / "rulepress.yaml")
    reports = [checks_of(bundled, "lantern"), verify(copy, ["lantern"])]  # the checkout's, and the copy's
    assert all(report.ok for report in reports), [report.failures() for report in reports]
    pages = [site.pages(site.SiteInput(report)) for report in reports]
    assert sum("/referee/" in name for name in pages[0]) > 20  # config.json and every position
    assert _differences(*({name: hashlib.sha256(text.encode()).hexdigest() for name, text in found.items()}
                          for found in pages)) == []
    bundles = [in_browser.bundle(report.books[0].engine, report.books[0].book) for report in reports]
    assert bundles[0] == bundles[1]
    # The engine's import name comes from its files: the same for the copy, whoever computes it.
    assert namespace_for(ROOT / "engine" / "lantern", ROOT) == namespace_for(copy / "engine" / "lantern", copy)


def test_an_engine_with_other_files_gets_another_name(mini: Path, tmp_path: Path) -> None:
    """Two projects in one process never share an engine whose files differ."""
    other = make_project(tmp_path / "other")
    engine = other / "engine/mini/__init__.py"
    engine.write_text(engine.read_text() + "\n# another engine\n")
    assert namespace_for(mini / "engine/mini", mini) != namespace_for(other / "engine/mini", other)
    first, second = (verify(project, draw=False).books[0].engine for project in (mini, other))
    assert first.module_name != second.module_name and first.make_game is not second.make_game


@pytest.mark.skipif(not CAMPAIGN, reason="a whole build of every bundled book, twice: nox -s reproducible")
@pytest.mark.parametrize("book", ["lantern", "lantern-moths", "last-lantern"])
def test_a_bundled_book_built_whole_in_two_folders_is_the_same(tmp_path: Path, book: str) -> None:
    built = []
    for place in ("one", "two/deeper"):
        project = tmp_path / place / "project"
        for part in ("rules_src", "engine", "examples", "reports"):
            if (ROOT / part).is_dir():
                shutil.copytree(ROOT / part, project / part, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(ROOT / "rulepress.yaml", project / "rulepress.yaml")
        _run(["-m", "rulepress", "build", "--book", book], project)
        built.append(tree(project / "site"))
    assert _differences(*built) == []
