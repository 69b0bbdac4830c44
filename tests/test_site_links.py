"""Every internal link and anchor of the built site works: from file:// and from a server under a sub-path.

They read the one full build of the bundled books (``real_site`` in tests/conftest.py), so the links to the PDFs
are followed to real files too.
"""

from __future__ import annotations

import os
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from functools import cache, partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import lxml.html
import pytest

from .conftest import REAL_BUILD, SLOWDOWN

SUB = "/sub/path/"


pytestmark = pytest.mark.xdist_group(REAL_BUILD)  # reads the one full build of the bundled books


@pytest.fixture(scope="session")
def built(real_site: Path) -> tuple[Path, list[str]]:
    """The full build and the PDFs to take on trust: none, since every PDF edition is in it."""
    return real_site.resolve(), []


@cache
def _links(page: Path) -> tuple[set[str], list[str]]:
    """The page's element ids, and every link it makes (a, link, img, script, source); each page parsed once."""
    tree = lxml.html.parse(str(page)).getroot()
    ids = set(tree.xpath("//@id")) | set(tree.xpath("//a/@name"))
    links = [str(v) for v in tree.xpath("//a/@href | //link/@href | //img/@src | //script/@src | //source/@src")]
    return ids, links


def _internal(link: str) -> bool:
    scheme = urlsplit(link).scheme
    return not scheme and not link.startswith("//")


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))  # site is resolved, so _links caches each page once


def test_no_page_links_from_the_domain_root(built: tuple[Path, list[str]]) -> None:
    site, _ = built
    rooted = [f"{page.relative_to(site)}: {link}" for page in _pages(site) for link in _links(page)[1]
              if link.startswith("/") and not link.startswith("//")]
    assert rooted == []


def broken_on_disk(site: Path, pdfs: list[str]) -> tuple[int, list[str]]:
    """Follow every internal link of every page on disk: (links checked, broken ones)."""
    broken: list[str] = []
    checked = 0
    files = {path for path in site.rglob("*") if path.is_file()}  # ~100 000 links: look them up, not stat them
    for page in _pages(site):
        for link in _links(page)[1]:
            if not _internal(link):
                continue
            path, anchor = urldefrag(link)
            target = Path(os.path.normpath(page.parent / unquote(path))) if path else page
            checked += 1
            if target.parent == site / "pdf" and target.name in pdfs:
                continue
            if target not in files:
                broken.append(f"{page.relative_to(site)}: {link} (no file)")
            elif anchor and target.suffix == ".html" and unquote(anchor) not in _links(target)[0]:
                broken.append(f"{page.relative_to(site)}: {link} (no id '{anchor}')")
    return checked, broken


def test_links_work_from_the_file_system(built: tuple[Path, list[str]]) -> None:
    site, pdfs = built
    checked, broken = broken_on_disk(site, pdfs)
    assert checked > 1000
    assert broken == []


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # As static hosts do: a missing page under the site gets the site's own 404.html (status 404).
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file() or not urlsplit(self.path).path.startswith(SUB):
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def translate_path(self, path: str) -> str:
        # The site lives under SUB only: anything else is a 404, as on a host serving several sites.
        clean = urlsplit(path).path
        if not clean.startswith(SUB):
            return str(Path(self.directory) / "__outside_the_site__")
        return super().translate_path("/" + clean[len(SUB):])


@pytest.fixture(scope="session")
def served(built: tuple[Path, list[str]]) -> Iterator[str]:
    site, _ = built
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{SUB}"
    finally:
        server.shutdown()
        server.server_close()


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (a local test server)
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""


def broken_over_http(site: Path, served: str, pdfs: list[str]) -> list[str]:
    """Request every page under ``served`` and every internal link it makes: the broken ones."""
    fetched: dict[str, tuple[int, set[str]]] = {}
    broken: list[str] = []

    def fetch(url: str) -> tuple[int, set[str]]:
        if url not in fetched:
            status, body = _get(url)
            ids: set[str] = set()
            if status == 200 and url.endswith(".html"):
                tree = lxml.html.fromstring(body)
                ids = set(tree.xpath("//@id")) | set(tree.xpath("//a/@name"))
            fetched[url] = status, ids
        return fetched[url]

    for page in _pages(site):
        page_url = served + page.relative_to(site).as_posix()
        if fetch(page_url)[0] != 200:
            broken.append(f"{page_url} ({fetch(page_url)[0]})")
            continue
        for link in _links(page)[1]:
            if not _internal(link):
                continue
            url, anchor = urldefrag(urljoin(page_url, link))
            if url.startswith(served + "pdf/") and url[len(served + "pdf/"):] in pdfs:
                continue
            status, ids = fetch(url)
            if status != 200:
                broken.append(f"{page.relative_to(site)}: {link} ({status})")
            elif anchor and url.endswith(".html") and unquote(anchor) not in ids:
                broken.append(f"{page.relative_to(site)}: {link} (no id '{anchor}')")
    return broken


def test_links_work_under_a_sub_path(built: tuple[Path, list[str]], served: str) -> None:
    site, pdfs = built
    assert broken_over_http(site, served, pdfs) == []
    assert _get(served.rstrip("/").rsplit("/", 1)[0] + "/index.html")[0] == 404  # the server really is a sub-path


def test_the_crawlers_find_broken_links_and_anchors(tmp_path: Path) -> None:
    tmp_path = tmp_path.resolve()
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text('<html><body><h1 id="top">x</h1><a href="a/b.html#here">ok</a>'
                                         '<a href="a/b.html#gone">anchor</a><a href="missing.html">file</a>'
                                         '<a href="/a/b.html">rooted</a><a href="https://example.org/">out</a>'
                                         '</body></html>')
    (tmp_path / "a" / "b.html").write_text('<html><body><p id="here">y</p><a href="../index.html#top">up</a>'
                                           "</body></html>")
    checked, broken = broken_on_disk(tmp_path, [])
    assert checked == 5
    assert broken == ["index.html: a/b.html#gone (no id 'gone')", "index.html: missing.html (no file)",
                      "index.html: /a/b.html (no file)"]
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        found = broken_over_http(tmp_path, f"http://127.0.0.1:{server.server_address[1]}{SUB}", [])
    finally:
        server.shutdown()
        server.server_close()
    assert found == ["index.html: a/b.html#gone (no id 'gone')", "index.html: missing.html (404)",
                     "index.html: /a/b.html (404)"]


def test_glossary_rule_links_reach_their_rule(built: tuple[Path, list[str]]) -> None:
    site, _ = built
    glossary = site / "lantern-moths" / "glossary.html"
    links = [link for link in _links(glossary)[1] if "#lm." in link]
    assert links and all(link.startswith("rules/") and ".html#" in link for link in links)


def test_search_results_name_their_book(built: tuple[Path, list[str]]) -> None:
    site, _ = built
    text = (site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert '"location":"lantern-moths/glossary.html","title":"Glossary · Lantern Moths"' in text
    assert (site / "search" / "search_index.js").read_text(encoding="utf-8").endswith(text)


def test_book_pages_take_the_book_colour_mark_and_name(built: tuple[Path, list[str]]) -> None:
    site, _ = built
    page = (site / "lantern-moths" / "glossary.html").read_text(encoding="utf-8")
    assert "--md-primary-fg-color: #8a4b9e;" in page
    assert '<span class="rp-mark" aria-hidden="true">☾</span>' in page
    drawer = lxml.html.fromstring(page).xpath('//label[@class="md-nav__title" and @for="__drawer"]')[0]
    assert drawer.text_content().split() == ["☾", "Lantern", "Moths"]
    header = lxml.html.fromstring(page).xpath('//div[@class="md-header__topic"]/span')[0]
    assert header.text_content().strip() == "Lantern Moths"  # the phone's header bar, where the logo is hidden
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "--md-primary-fg-color" not in home and "rp-mark" not in home


def test_404_page_and_search_in_a_browser_under_a_sub_path(served: str) -> None:
    playwright = pytest.importorskip("playwright.sync_api", reason="installed by `nox -s tests`")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    failed: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        # The browser's preload scanner may guess asset addresses from the missing page's folder before the
        # page's script sets <base>; those guesses are harmless. Everything else must load.
        guessed = served + "lantern/rules/"
        page.on("response", lambda r: failed.append(f"{r.status} {r.url}")
                if r.status not in (200, 304) and r.url != missing and not r.url.startswith(guessed) else None)
        missing = served + "lantern/rules/no-such-page.html"
        page.goto(missing)
        page.wait_for_load_state("networkidle")
        home = page.eval_on_selector("a.md-logo", "a => a.href")
        page_base = page.evaluate("document.baseURI")
        styled = page.evaluate("[...document.querySelectorAll('link[rel=stylesheet]')].every(l => l.sheet)")
        scripted = page.evaluate("typeof document$ !== 'undefined'")  # material's bundle ran
        page.goto(served + "lantern-moths/glossary.html")
        page.click("input.md-search__input")
        page.keyboard.type("glossary")
        page.wait_for_selector(".md-search-result__item", timeout=int(15_000 * SLOWDOWN))
        results = page.inner_text(".md-search-result")
        # A word of the rules finds the rules first: the designer's pages, which talk about every rule, rank below.
        page.fill("input.md-search__input", "wick")
        page.wait_for_function("() => [...document.querySelectorAll('.md-search-result__item a')]"
                               ".some(a => !a.href.includes('glossary'))", timeout=int(15_000 * SLOWDOWN))
        found = page.eval_on_selector_all(".md-search-result__item a", "links => links.map(a => a.href)")
        browser.close()
    assert found and "/designer/" not in found[0], found[:5]
    assert home == served + "index.html"
    assert styled and scripted
    assert failed == [], (failed, page_base)
    assert "Glossary · Lantern Moths" in results
