"""Shared fixtures: the real project, and a throwaway copy of the small fixture project."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rulepress.project import default_root

ROOT = default_root()
MINI = Path(__file__).parent / "fixtures" / "mini"


def make_project(target: Path, source: Path = MINI) -> Path:
    """A project at ``target``: the fixture's content plus the real mkdocs.yml, site_src and hooks."""
    shutil.copytree(source, target, dirs_exist_ok=True)
    shutil.copy(ROOT / "mkdocs.yml", target / "mkdocs.yml")
    shutil.copytree(ROOT / "site_src", target / "site_src", dirs_exist_ok=True)
    (target / "rulepress").mkdir(exist_ok=True)
    shutil.copy(ROOT / "rulepress" / "mkdocs_hooks.py", target / "rulepress" / "mkdocs_hooks.py")
    return target


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
