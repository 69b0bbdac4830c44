"""The built site's step-through and the in-browser engine, in Chromium, on the one full build of the bundled books.

Each book's example is stepped through to its end, and every frame the page shows (its diagram file, its text
alternative, its narration) is compared with the engine's own replay of the example.  In one page, so that Pyodide
starts once for the module, a legal move is tried in each book and shows the next position, and an illegal one is
refused naming the rule ``rulepress explain --action`` names.  From file://, stepping works and trying a move says
that the site must be served.  Nothing is fetched from anywhere but the site.

The main suite runs a sample (one book stepped through in English and one in French, a move tried in one book);
``RULEPRESS_BROWSER_CAMPAIGN=1`` (``nox -s browser``) runs every book.  Every example page of every book is checked
without the browser in both.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from rulepress.analyze import explain
from rulepress.load import given
from rulepress.render.stepper import _said
from rulepress.render.strings import strings
from rulepress.render.typography import typeset
from rulepress.verify import diagram
from rulepress.verify.gate import BookCheck, load_checked_book
from rulepress.verify.replay import ExampleResult, replay
from tests.conftest import ROOT
from tests.test_site_browser import chromium

pytestmark = pytest.mark.xdist_group("real-build")

CAMPAIGN = os.environ.get("RULEPRESS_BROWSER_CAMPAIGN", "") not in ("", "0")  # nox -s browser: every book
# book, example, language, the move written that the rules refuse there (from the example's start)
EVERY_BOOK = [("lantern-moths", "lm-plant", "en", "{do: pass}"),
              ("last-lantern", "ll-first-tile-path", "en", "{do: done}"),
              ("lantern", "ln-critical-strike", "en", "{do: leave}")]
FRENCH = ("last-lantern", "ll-first-tile-path", "fr")
# The main suite's sample: Lantern Moths (hidden information: told from a seat) in English, Last Lantern in French.
CASES = EVERY_BOOK if CAMPAIGN else EVERY_BOOK[:1]
STEPPED = [*[(book, example, lang) for book, example, lang, _ in CASES], FRENCH]
WAIT = 120_000  # ms: Pyodide's start on a loaded machine (the budget, 5 s, is nox -s bench's)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def served(real_site: Path) -> Iterator[str]:
    """The built site on a static HTTP server (any static host will do; rulepress serve is tested on its own)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(real_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def fetched() -> list[str]:
    return []


def _page(browser: Any, fetched: list[str]) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("request", lambda request: fetched.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.rp_errors = errors
    return page


@functools.cache
def _check(book: str) -> BookCheck:
    return load_checked_book(ROOT, book)


@functools.cache
def _replayed(book: str, example_id: str) -> ExampleResult:
    check = _check(book)
    return replay(next(e for e in check.examples if e.id == example_id), check.book, check.engine)


def _expected(book: str, example_id: str, lang: str) -> list[dict[str, str]]:
    """Each frame as the engine's replay says it should show: its diagram (screen colours), alternative, words."""
    result, t = _replayed(book, example_id), strings(lang)
    check = _check(book)
    shown = []
    for index, frame in enumerate(result.frames):
        said = _said(frame.narrations, result.transcript[index - 1], t) if index else t("stepper_start")
        if lang != "en" and index:  # the translated page's words are the replay's French narration
            said = frame.narrations[lang] or said
        if frame.rejected_by:
            said += " " + t("stepper_refused", rule=t("rule_ref", number=check.book.rules[frame.rejected_by].number))
        # The page's text in its language's typography (French spaces before ';' and ':'), as every page's is.
        shown.append({"svg": check.proof.svg(frame.svgs[lang]), "alt": typeset(frame.alts[lang], lang),
                      "said": typeset(said, lang)})
    return shown


def _shown_svg(site: Path, url: str) -> str:
    return (site / unquote(urlparse(url).path).lstrip("/")).read_text(encoding="utf-8")


@pytest.mark.parametrize(("book", "example", "lang"), STEPPED)
def test_every_frame_is_the_replays(browser: Any, fetched: list[str], served: str, real_site: Path, book: str,
                                    example: str, lang: str) -> None:
    page = _page(browser, fetched)
    folder = "" if lang == "en" else f"{lang}/"
    page.goto(f"{served}/{folder}{book}/examples/{example}.html")
    page.wait_for_selector(".rp-view")
    expected = _expected(book, example, lang)
    assert page.is_disabled(".rp-previous")
    for index, frame in enumerate(expected):
        if index:
            page.focus(".rp-next")
            page.keyboard.press("ArrowRight")  # the keys step as the buttons do
        assert page.get_attribute("[data-rp-stepper]", "data-rp-step") == str(index)
        image = page.eval_on_selector(".rp-frame", "i => ({src: i.src, alt: i.alt})")
        assert _shown_svg(real_site, image["src"]) == frame["svg"], f"frame {index}: another diagram"
        assert image["alt"] == frame["alt"], f"frame {index}"
        assert " ".join(page.inner_text(".rp-narration").split()) == " ".join(frame["said"].split()), f"frame {index}"
        assert page.inner_text(".rp-count") == strings(lang)("stepper_position", n=index + 1, total=len(expected))
    assert page.is_disabled(".rp-next")
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("[data-rp-stepper]", "data-rp-step") == str(len(expected) - 2)
    assert page.get_attribute(".rp-narration", "aria-live") == "polite"  # said as it changes
    assert page.get_attribute(".rp-previous", "type") == "button" and page.inner_text(".rp-previous").strip()
    assert not page.rp_errors
    page.close()


@pytest.mark.parametrize("book", sorted({case[0] for case in EVERY_BOOK}))
def test_every_example_page_steps_through_checked_diagrams(real_site: Path, book: str) -> None:
    """Not only the examples stepped through above: every example page of every book has its frames, each a file
    of the site that passes the gate's diagram check, with words for it, and where the referee's position is."""
    check = _check(book)
    for example in check.examples:
        page = (real_site / book / "examples" / f"{example.id}.html").read_text(encoding="utf-8")
        items = re.findall(r'<li data-svg="([^"]+)"([^>]*)>(.*?)</li>', page, re.DOTALL)
        steps = sum(step.kind == "action" for step in example.steps)
        if "refused" in example.start:  # a setup the rules refuse: no position to step through
            assert not items, example.id
            continue
        assert len(items) == steps + 1, example.id
        for svg, attributes, words in items:
            drawn = (real_site / book / "examples" / unquote(svg)).resolve()
            assert drawn.is_relative_to(real_site.resolve()) and diagram.problem(drawn.read_text()) is None
            assert re.search(r'<span class="rp-alt">[^<]+</span>', words), f"{example.id}: a frame without words"
            assert 'data-opens="' in attributes, f"{example.id}: a frame no move can be tried from"
        assert 'data-referee="' in page



def test_every_language_uses_the_root_sites_pyodide(real_site: Path) -> None:
    """Pyodide is carried once (about 13 MiB): the French site's pages point at the root site's copy."""
    from rulepress.render.in_browser import PYODIDE

    assert (real_site / PYODIDE / "pyodide.asm.wasm").is_file()
    assert not (real_site / "fr" / PYODIDE).exists()
    page = real_site / "fr" / "last-lantern" / "examples" / "ll-first-tile-path.html"
    [said] = re.findall(r'data-referee="([^"]+)"', page.read_text(encoding="utf-8"))
    pyodide = json.loads(html.unescape(said))["pyodide"]
    assert (page.parent / pyodide).resolve() == (real_site / PYODIDE).resolve()


_ADD_BOOK = """async ([url]) => {
  const text = await (await fetch(url)).text();
  const found = new DOMParser().parseFromString(text, "text/html").querySelector("[data-rp-stepper]");
  const absolute = (value) => value ? new URL(value, url).href : value;
  for (const item of found.querySelectorAll("li")) {
    for (const name of ["data-svg", "data-rule"]) item.setAttribute(name, absolute(item.getAttribute(name)));
  }
  const referee = JSON.parse(found.getAttribute("data-referee"));
  for (const key of ["bundle", "config", "positions", "pyodide"]) referee[key] = absolute(referee[key]);
  found.setAttribute("data-referee", JSON.stringify(referee));
  document.querySelector(".md-content").appendChild(found);
  window.rulepressStepper.scan();
  return document.querySelectorAll("[data-rp-stepper]").length;
}"""


def test_a_move_tried_in_each_book(browser: Any, fetched: list[str], served: str) -> None:
    """One page, one Pyodide: the first book's example page, then the other books' step-throughs added to it."""
    page = _page(browser, fetched)
    first = CASES[0]
    page.goto(f"{served}/{first[0]}/examples/{first[1]}.html")
    page.wait_for_selector(".rp-view")
    assert not [url for url in fetched if "pyodide" in url], "Pyodide was loaded before a reader asked"
    for number, (book, example, _lang, illegal) in enumerate(CASES):
        if number:
            assert page.evaluate(_ADD_BOOK, [f"{served}/{book}/examples/{example}.html"]) == number + 1
        root = page.locator("[data-rp-stepper]").nth(number)
        root.locator(".rp-try-open").click()
        root.locator(".rp-try-move").first.wait_for(timeout=WAIT)
        chosen = root.locator(".rp-try-move").first.inner_text()
        root.locator(".rp-try-move").first.click()
        root.locator(".rp-try-played").wait_for()
        assert root.locator(".rp-try-played").inner_text().endswith(chosen)  # the move played, in its words
        assert root.locator(".rp-try-result img").evaluate("i => i.complete && i.naturalWidth > 0")
        assert root.locator(".rp-try-result img").get_attribute("alt")
        root.locator(".rp-try-undo").click()
        root.locator(".rp-try-move").first.wait_for()
        assert not root.locator(".rp-try-undo").count()  # back at the example's own position
        root.locator(".rp-try-input").fill(illegal)
        root.locator(".rp-try-submit").click()
        root.locator(".rp-try-refusal").wait_for()
        check = _check(book)
        chosen_example = next(e for e in check.examples if e.id == example)
        position = explain.position_before(check.book, check.engine, chosen_example, 1)
        verdict = explain.judge(position, check.engine, given.yaml_text(illegal, "--action"))
        assert verdict.rule is not None, f"{book}: explain allows {illegal}"
        rule = check.book.rules[verdict.rule]
        cited = root.locator(".rp-try-rule")
        assert cited.inner_text() == strings("en")("try_refused", number=rule.number, title=rule.title)
        assert cited.get_attribute("href", timeout=1000).endswith(f"/rules/{rule.chapter}.html#{rule.id}")
    timings = page.evaluate("window.rulepressTimings")
    assert timings["ready"] is not None and len(timings["moves"]) >= 3 * len(CASES)
    assert sum(1 for url in fetched if url.endswith("pyodide.asm.wasm")) == 1  # one start for every book
    assert not page.rp_errors
    page.close()


def test_from_the_file_system_stepping_works_and_trying_says_to_serve(browser: Any, fetched: list[str],
                                                                      real_site: Path) -> None:
    page = _page(browser, fetched)
    page.goto((real_site / "lantern" / "examples" / "ln-critical-strike.html").as_uri())
    page.wait_for_selector(".rp-view")
    page.click(".rp-next")
    assert page.get_attribute("[data-rp-stepper]", "data-rp-step") == "1"
    assert page.eval_on_selector(".rp-frame", "i => i.complete && i.naturalWidth > 0")
    page.click(".rp-try-open")
    assert "served over HTTP" in page.inner_text(".rp-try-message")
    assert not [url for url in fetched if url.startswith("file:") and "pyodide" in url]
    page.close()


def test_nothing_is_fetched_from_elsewhere(browser: Any, fetched: list[str], served: str, real_site: Path) -> None:
    """Run last in the module: every request of the tests above went to the site itself, and those of an example
    page stepped through here (under xdist the tests above may have run in another worker)."""
    page = _page(browser, fetched)
    page.goto(f"{served}/lantern/examples/ln-critical-strike.html")
    page.wait_for_selector(".rp-view")
    page.click(".rp-next")
    page.close()
    assert any(url.startswith(served) for url in fetched), "the pages made no request to the site"
    remote = [url for url in fetched if not url.startswith((served, "file:", "data:", "blob:", "about:"))]
    assert not remote, f"the site fetched {remote[:5]}"
