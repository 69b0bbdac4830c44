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

import pytest

from rulepress.analyze import explain
from rulepress.load import given
from rulepress.render import stepper
from rulepress.render.stepper import _said
from rulepress.render.strings import strings
from rulepress.render.typography import typeset
from rulepress.verify import diagram
from rulepress.verify.gate import BookCheck, load_checked_book
from rulepress.verify.replay import ExampleResult, replay
from tests.conftest import ROOT, SLOWDOWN
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
# ms: Pyodide's start on a loaded machine (the budget, 5 s, is nox -s bench's), and longer in a slowed run (the
# mutation tests' traced run timed out here at 120 s, beside a full test run)
WAIT = int(120_000 * SLOWDOWN)


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


def _shown_svg(page: Any) -> str:
    """The diagram the page shows, as the page's script rebuilt it from the packed frames (a blob: URL)."""
    page.wait_for_selector(".rp-frame[src^='blob:']")
    return str(page.evaluate("async () => await (await fetch(document.querySelector('.rp-frame').src)).text()"))


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
        image = page.eval_on_selector(".rp-frame", "i => ({alt: i.alt})")
        assert _shown_svg(page) == frame["svg"], f"frame {index}: another diagram"
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
    """Not only the examples stepped through above: every example page of every book, in every language, has its
    frames, each rebuilt from the page's pack exactly as the engine drew it (what the gate's diagram check passed),
    with words for it, and where the referee's position is.  The frames are in no file of their own."""
    check = _check(book)
    results = {result.example.id: result for result in check.results}
    assert not (real_site / book / "frames").exists()
    for lang in sorted({lang for result in check.results for frame in result.frames for lang in frame.svgs}):
        folder = real_site if lang == "en" else real_site / lang
        for example in check.examples:
            page = (folder / book / "examples" / f"{example.id}.html").read_text(encoding="utf-8")
            items = re.findall(r'<li data-frame="(\d+)"([^>]*)>(.*?)</li>', page, re.DOTALL)
            steps = sum(step.kind == "action" for step in example.steps)
            if "refused" in example.start:  # a setup the rules refuse: no position to step through
                assert not items, example.id
                continue
            assert len(items) == steps + 1, example.id
            [packed] = re.findall(r'data-frames="([^"]+)"', page)
            pack = stepper.decode_pack(packed)
            frames = results[example.id].frames
            for (number, attributes, words), frame in zip(items, frames, strict=True):
                drawn = stepper.unpack_frame(pack, int(number))
                assert drawn == check.proof.svg(frame.svgs[lang]), f"{example.id} ({lang}): another diagram"
                assert diagram.problem(drawn) is None
                assert re.search(r'<span class="rp-alt">[^<]+</span>', words), f"{example.id}: a frame without words"
                assert 'data-opens="' in attributes, f"{example.id}: a frame no move can be tried from"
            assert 'data-referee="' in page



def test_every_language_uses_the_root_sites_pyodide(real_site: Path) -> None:
    """Pyodide is carried once (about 6 MiB): the French site's pages point at the root site's copy."""
    from rulepress.render.in_browser import PYODIDE

    assert (real_site / PYODIDE / "pyodide.asm.wasm.gz").is_file()
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
    item.setAttribute("data-rule", absolute(item.getAttribute("data-rule")));
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
    first, before = CASES[0], len(fetched)  # the pages of the tests above started Pyodide too, each its own
    page.goto(f"{served}/{first[0]}/examples/{first[1]}.html")
    page.wait_for_selector(".rp-view")
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
    assert sum(1 for url in fetched[before:] if url.endswith("pyodide.asm.wasm.gz")) == 1  # one start, every book
    assert not page.rp_errors
    page.close()


def test_from_the_file_system_stepping_works_and_trying_says_to_serve(browser: Any, fetched: list[str],
                                                                      real_site: Path) -> None:
    page = _page(browser, fetched)
    page.goto((real_site / "lantern" / "examples" / "ln-critical-strike.html").as_uri())
    page.wait_for_selector(".rp-view")
    page.click(".rp-next")
    assert page.get_attribute("[data-rp-stepper]", "data-rp-step") == "1"
    # The diagram is unpacked from the page itself: no file to read, which file:// would refuse to a script.
    page.wait_for_function("() => { const i = document.querySelector('.rp-frame');"
                           " return i.src.startsWith('blob:') && i.complete && i.naturalWidth > 0; }")
    page.click(".rp-try-open")
    assert "served over HTTP" in page.inner_text(".rp-try-message")
    assert not [url for url in fetched if url.startswith("file:") and "pyodide" in url]
    page.close()


def test_the_engine_starts_once_the_page_is_idle(browser: Any, fetched: list[str], served: str) -> None:
    """Nothing clicked: once the page is idle, Pyodide (unpacked from its gzipped files) and the referee start, so
    that "Try a move" finds them ready."""
    page = _page(browser, fetched)
    page.goto(f"{served}/lantern/examples/ln-critical-strike.html")
    page.wait_for_function("() => window.rulepressTimings.pyodide !== null", timeout=WAIT)
    assert any(url.endswith("pyodide.asm.wasm.gz") for url in fetched)
    page.click(".rp-try-open")
    page.wait_for_selector(".rp-try-move", timeout=WAIT)
    assert not page.rp_errors
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


# A seat-told example (lm-plant, from Ann's seat) at its last step, where Ann has taken her two actions.
SEAT_TOLD = ("lantern-moths", "lm-plant")
# An example of each book with hidden information, and a part the build dealt again there.
DEALT = [("lantern-moths", "lm-plant", "You cannot see Ben's hand: it is dealt again for this try."),
         ("last-lantern", "ll-first-tile-path", "You cannot see the order of the tile bag: it is shuffled again for "
                                                "this try.")]


def _last_step(book: str, example: str) -> int:
    return len(_replayed(book, example).frames)


@pytest.mark.parametrize(("book", "example", "lang"), STEPPED)
def test_a_link_opens_the_step_it_names(browser: Any, fetched: list[str], served: str, book: str, example: str,
                                        lang: str) -> None:
    """``#step-N`` opens at the step counted "Step N of …"; stepping keeps the address a link to the step shown."""
    page = _page(browser, fetched)
    folder = "" if lang == "en" else f"{lang}/"
    total = _last_step(book, example)
    page.goto(f"{served}/{folder}{book}/examples/{example}.html#step-{total}")
    page.wait_for_selector(".rp-view")
    assert page.get_attribute("[data-rp-stepper]", "data-rp-step") == str(total - 1)
    assert page.inner_text(".rp-count") == strings(lang)("stepper_position", n=total, total=total)
    page.click(".rp-previous")
    assert page.evaluate("window.location.hash") == f"#step-{total - 1}"
    assert page.get_attribute(".rp-link", "href") == f"#step-{total - 1}"
    page.evaluate("window.location.hash = '#step-1'")
    page.wait_for_function("document.querySelector('[data-rp-stepper]').getAttribute('data-rp-step') === '0'")
    assert not page.rp_errors
    page.close()


def test_a_seat_told_try_goes_on_past_the_other_seats_turn(browser: Any, fetched: list[str], served: str) -> None:
    """From Ann's seat after her two actions: the panel says it is Ben's turn; the engine plays Ben's turn (its
    policy), then Ann moves again; undo, redo; Ben's seat taken instead, with Ann's hand dealt again and said so."""
    book, example = SEAT_TOLD
    page = _page(browser, fetched)
    page.goto(f"{served}/{book}/examples/{example}.html#step-{_last_step(book, example)}/try")
    page.locator(".rp-try-turn-said").wait_for(timeout=WAIT)
    assert page.inner_text(".rp-try-turn-said") == "It is Ben's turn."
    assert "You cannot see Ben's hand: it is dealt again for this try." in page.inner_text(".rp-try")
    assert not page.locator(".rp-try-none").count()  # not "No legal move here"
    page.click(".rp-try-auto")
    page.locator(".rp-try-line li").first.wait_for()
    played = page.locator(".rp-try-line li").all_inner_texts()
    assert played and all(said.startswith("Ben ") for said in played)
    assert not page.locator(".rp-try-turn").count() and page.locator(".rp-try-move").count()  # Ann's turn again
    assert page.evaluate("window.location.hash").endswith("/try/" + "/".join(["auto"] * len(played)))
    page.click(".rp-try-undo")
    page.locator(".rp-try-redo").wait_for()
    assert page.locator(".rp-try-line li").count() == len(played)  # what redo can play again stays listed
    page.click(".rp-try-redo")
    page.wait_for_function("!document.querySelector('.rp-try-redo')")
    page.locator(".rp-try-entry").first.click()  # back to Ben's first move: the line stays, Ann's turn is ahead
    page.wait_for_function("document.querySelectorAll('.rp-try-undo').length === 1")
    page.locator(".rp-try-undo").click()
    page.locator(".rp-try-take-seat").wait_for()
    page.click(".rp-try-take-seat")
    page.locator(".rp-try-dealt").first.wait_for()
    assert "You cannot see Ann's hand: it is dealt again for this try." in page.inner_text(".rp-try")
    assert page.inner_text(".rp-try-seat") == strings("en")("try_seat", player="Ben")
    chosen = page.locator(".rp-try-move").first.inner_text()
    assert chosen.startswith("Ben ")
    page.locator(".rp-try-move").first.click()
    page.wait_for_function("document.querySelectorAll('.rp-try-line li').length === 2")
    assert page.locator(".rp-try-played").inner_text().endswith(chosen)
    link = page.get_attribute(".rp-try-link", "href")
    assert link is not None and link.endswith("/try/as:Ben/0")
    assert not page.rp_errors
    page.close()


def test_a_link_to_a_tried_position_opens_there(browser: Any, fetched: list[str], served: str) -> None:
    """The line in the address is played again: the same moves, the same diagram."""
    book, example = SEAT_TOLD
    page = _page(browser, fetched)
    page.goto(f"{served}/{book}/examples/{example}.html#step-1/try")
    page.locator(".rp-try-move").first.wait_for(timeout=WAIT)
    page.locator(".rp-try-move").nth(3).click()
    page.wait_for_function("document.querySelectorAll('.rp-try-line li').length === 1")
    page.locator(".rp-try-move").first.click()
    page.wait_for_function("document.querySelectorAll('.rp-try-line li').length === 2")
    line = page.locator(".rp-try-line li").all_inner_texts()
    alt = page.get_attribute(".rp-try-result img", "alt")
    link = page.get_attribute(".rp-try-link", "href")
    assert link == "#step-1/try/3/0"
    again = _page(browser, fetched)
    again.goto(f"{served}/{book}/examples/{example}.html{link}")
    again.wait_for_function("document.querySelectorAll('.rp-try-line li').length === 2", timeout=WAIT)
    assert again.locator(".rp-try-line li").all_inner_texts() == line
    assert again.get_attribute(".rp-try-result img", "alt") == alt
    assert not page.rp_errors and not again.rp_errors
    page.close()
    again.close()


@pytest.mark.parametrize(("book", "example", "said"), DEALT if CAMPAIGN else DEALT[:1])
def test_a_part_dealt_again_is_announced(browser: Any, fetched: list[str], served: str, book: str, example: str,
                                         said: str) -> None:
    page = _page(browser, fetched)
    page.goto(f"{served}/{book}/examples/{example}.html#step-1/try")
    page.locator(".rp-try-dealt").first.wait_for(timeout=WAIT)
    assert said in page.locator(".rp-try-dealt").all_inner_texts()
    assert not page.rp_errors
    page.close()


def _by_clicks(shown: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A move the board picks, and the places to click for it: each place's centre lies in no smaller place, and
    the places clicked leave that move alone."""
    places = shown["places"]

    def hit(place: str) -> bool:
        x, y, w, h = places[place]
        centre = (x + w / 2, y + h / 2)
        under = [name for name, (a, b, c, d) in places.items() if a <= centre[0] <= a + c and b <= centre[1] <= b + d]
        return min(under, key=lambda name: places[name][2] * places[name][3]) == place

    for move in shown["moves"]:
        picked: list[str] = []
        for place in move.get("places", []):
            if not hit(place):
                break
            picked.append(place)
            left = [m for m in shown["moves"] if set(picked) <= set(m.get("places", []))]
            if left == [move]:
                return move, picked
    raise AssertionError("no move can be picked on the board")


@pytest.mark.parametrize(("book", "example"), [case[:2] for case in CASES])
def test_a_move_played_by_clicking_the_board(browser: Any, fetched: list[str], served: str, book: str,
                                             example: str) -> None:
    page = _page(browser, fetched)
    page.goto(f"{served}/{book}/examples/{example}.html#step-1/try")
    page.locator(".rp-try-board").wait_for(timeout=WAIT)
    shown = page.evaluate("document.querySelector('[data-rp-stepper]').rpStepper.moves")
    move, clicks = _by_clicks(shown)
    board = page.locator(".rp-try-board")
    width, height = page.evaluate("(b => [b.width, b.height])(document.querySelector('[data-rp-stepper]')"
                                  ".rpStepper.board)")  # the diagram's viewBox
    for number, place in enumerate(clicks):
        x, y, w, h = shown["places"][place]
        box = board.bounding_box()
        assert box is not None
        board.click(position={"x": (x + w / 2) / width * box["width"], "y": (y + h / 2) / height * box["height"]})
        if number < len(clicks) - 1:  # the moves using what was clicked, listed alone
            left = [m["words"] for m in shown["moves"] if set(clicks[:number + 1]) <= set(m.get("places", []))]
            assert page.locator(".rp-try-move").all_inner_texts() == left and page.locator(".rp-try-picked").count()
    page.locator(".rp-try-played").wait_for()
    assert page.inner_text(".rp-try-played").endswith(move["words"])
    assert page.locator(".rp-try-line li").all_inner_texts() == [move["words"]]
    assert not page.rp_errors
    page.close()
