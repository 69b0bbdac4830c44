"""The site in a real browser from the file system: pages render, search works, nothing is fetched."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from rulepress.publish.build import build
from tests.conftest import SLOWDOWN

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


@contextmanager
def chromium() -> Iterator[Any]:
    """Headless Chromium under Playwright, as every site test launches it (skipped without Playwright; a missing
    Chromium fails: `nox -s tests` installs both)."""
    playwright = pytest.importorskip("playwright.sync_api", reason="installed by `nox -s tests`")
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: `nox -s tests` installs it (Debian package chromium)")
    with playwright.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


def test_offline_search_finds_a_rule(mini: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api", reason="installed by `nox -s tests`")
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: `nox -s tests` installs it (Debian package chromium)")
    build(mini)
    index = (mini / "site" / "index.html").as_uri()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        fetched: list[str] = []
        page.on("request", lambda request: fetched.append(request.url))
        page.goto(index)
        assert "Mini Stones" in page.inner_text("body")
        page.click("input.md-search__input")
        page.keyboard.type("stones")
        page.wait_for_selector(".md-search-result__item", timeout=int(15_000 * SLOWDOWN))
        results = page.inner_text(".md-search-result")
        browser.close()
    assert "Taking stones" in results
    remote = [url for url in fetched if not url.startswith(("file:", "data:", "blob:", "about:"))]
    assert not remote, f"the site fetched {remote}"
