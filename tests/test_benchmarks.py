"""The benchmarks keep up with the code they measure: `nox -s bench` runs rarely, so a changed signature is found
only when someone wants a figure (``bench --only browser`` was found broken that way: its CPython reference called
``referee_config`` as it was two issues before)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from .conftest import ROOT

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"rulepress_bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_browser_benchs_cpython_reference_plays_the_pages_moves() -> None:
    """The same calls the page makes, to the same referee in CPython: three moves played and undone, one refused."""
    browser = _module("browser")
    book, example = next(iter(browser.PAGES.items()))  # one book: the bench's code is the same for each
    assert 0 < browser.cpython_moves(ROOT, book, example) < 5
