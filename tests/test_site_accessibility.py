"""The built site in Chromium, read by axe-core (tests/vendor/axe-core, test side only): no serious or critical
violation on any kind of page, the theme's overrides included, at a desk's width and a phone's; and a diagram is
never shown so small that its labels fall under 9 px.

The main suite reads a sample that holds every kind of page once in each language's site (a book's home, the rules
page with the most tables, the example with the most diagrams and the one with the fewest steps, the examples' list,
the glossary, a book's designer pages, the home and 404 pages); `nox -s axe` reads every page
(``RULEPRESS_AXE=all``).
"""

from __future__ import annotations

import hashlib
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from .test_site_browser import chromium

pytestmark = pytest.mark.xdist_group("real-build")  # reads the one full build of the bundled books

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"  # tests/vendor/axe-core/SOURCE.md
DESK, PHONE = (1280, 900), (375, 740)
SMALLEST_LABEL_PX = 9.0


def sample(site: Path) -> list[str]:
    """Every kind of page once in each language's site (``RULEPRESS_AXE=all``: every page): the books share their
    templates, so the page of each kind with the most of what can go wrong stands for its kind."""
    pages = sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))
    if os.environ.get("RULEPRESS_AXE") == "all":
        return pages
    chosen = ["index.html", "404.html"]
    homes = sorted(site.glob("*/index.html")) + sorted(site.glob("*/*/index.html"))
    books = [home.parent for home in homes if (home.parent / "rules").is_dir()]
    def of_kind(own: list[Path], kind: str) -> list[Path]:
        return sorted(p for book in own for p in (book / kind).glob("*.html") if p.name != "index.html")

    for language in sorted({book.parent for book in books}):  # the site's root, and each translation's folder
        own = [book for book in books if book.parent == language]
        chosen.append(str((own[0] / "index.html").relative_to(site)))

        for kind, most in (("rules", "<table"), ("examples", 'class="diagram"')):  # the fullest of each kind
            if pages_of := of_kind(own, kind):
                chosen.append(str(max(pages_of, key=lambda p: p.read_text(encoding="utf-8").count(most))
                                  .relative_to(site)))
        if examples := of_kind(own, "examples"):  # and the example with the fewest steps (one refused at its setup)
            chosen.append(str(min(examples, key=lambda p: p.read_text(encoding="utf-8").count("<li data-frame"))
                              .relative_to(site)))
        chosen += [str(p.relative_to(site)) for p in (own[-1] / "examples" / "index.html", own[-1] / "glossary.html")
                   if p.is_file()]
        chosen += [str(p.relative_to(site)) for p in sorted((own[0] / "designer").glob("*.html"))]  # the designer's
    assert set(chosen) <= set(pages), set(chosen) - set(pages)
    return list(dict.fromkeys(chosen))


def fullest_example_of_each_book(site: Path) -> list[str]:
    """Each book's example page with the most diagrams, in every language's site."""
    chosen = []
    for home in sorted(site.glob("*/index.html")) + sorted(site.glob("*/*/index.html")):
        examples = [p for p in (home.parent / "examples").glob("*.html") if p.name != "index.html"]
        if examples:
            fullest = max(sorted(examples), key=lambda p: p.read_text(encoding="utf-8").count('class="diagram"'))
            chosen.append(str(fullest.relative_to(site)))
    return chosen


def _serious(page: Any, axe: str) -> list[str]:
    page.add_script_tag(content=axe)
    found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes, first {v['nodes'][0]['target']}): {v['help']}"
            for v in found if v["impact"] in ("serious", "critical")]


def _label_px(svg: Path | str) -> tuple[float, float]:
    """The diagram's (a file, or its text) viewBox width and its smallest label's font size, in its own units."""
    root = ET.parse(svg).getroot() if isinstance(svg, Path) else ET.fromstring(svg)
    width = float(root.get("viewBox", "0 0 0 0").split()[2])
    sizes = [float(re.sub(r"[^\d.]", "", e.get("font-size", ""))) for e in root.iter() if e.get("font-size")]
    return width, min(sizes, default=float("inf"))


@pytest.fixture(scope="module")
def browser() -> Any:
    with chromium() as launched:
        yield launched


def test_axe_is_the_vendored_release() -> None:
    assert hashlib.sha256(AXE.read_bytes()).hexdigest() == AXE_SHA256


def test_axe_reports_what_the_site_once_had(browser: Any, tmp_path: Path) -> None:
    """The harness has teeth: a page with a dialog without a name (the search dialog's fault), an image without
    alt text and an empty button is reported, each by its rule and impact."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!doctype html><html lang='en'><head><title>Bad</title></head><body><main><h1>Bad</h1>"
                   "<div role='dialog'><p>Search</p></div><img src='x.png'><button></button></main></body></html>",
                   encoding="utf-8")
    page = browser.new_page()
    page.goto(bad.as_uri())
    found = _serious(page, AXE.read_text(encoding="utf-8"))
    page.close()
    assert {problem.split(" (")[0]: problem.split(" (")[1].split(",")[0] for problem in found} == {
        "aria-dialog-name": "serious", "image-alt": "critical", "button-name": "critical"}, found


@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["desk", "phone"])
def test_no_serious_accessibility_violation_on_any_kind_of_page(real_site: Path, browser: Any,
                                                               viewport: tuple[int, int]) -> None:
    axe = AXE.read_text(encoding="utf-8")
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    found = {}
    pages = sample(real_site)
    if viewport == PHONE and os.environ.get("RULEPRESS_AXE") != "all":  # what a phone lays out otherwise: the
        pages = [p for p in pages if p.endswith("index.html") or "/examples/" in p or "/rules/" in p]  # header,
        # the diagrams' and the tables' boxes that scroll sideways
    for relative in pages:
        page.goto((real_site / relative).as_uri())
        if problems := _serious(page, axe):
            found[relative] = problems
    page.close()
    assert not found, "\n".join(f"{page}: {p}" for page, problems in found.items() for p in problems)


STEPPER_PHONE = (390, 844)  # the phone the step-through is held to (issue 27): its frames' labels at 9 px or more


def test_step_through_labels_stay_legible_at_a_phones_width(real_site: Path, browser: Any) -> None:
    """On a 390 px phone each example's step-through shows its frame at the size it is drawn (its figure scrolls
    sideways, and takes the focus): no label under 9 px, in every book and language (the example with the
    most diagrams of each), the moves a reader tries included (they are drawn in the same figure)."""
    page = browser.new_page(viewport={"width": STEPPER_PHONE[0], "height": STEPPER_PHONE[1]})
    measured, small = 0, []
    for relative in fullest_example_of_each_book(real_site):
        page.goto((real_site / relative).as_uri())
        shown = page.evaluate("() => [...document.querySelectorAll('.rp-stepper .rp-frame')].map(i => "
                              "[i.getAttribute('src'), i.getBoundingClientRect().width, i.closest('figure').tabIndex])")
        for src, width, focus in shown:
            if not src or width == 0:
                continue  # a refused setup has no frame to show
            # A frame is rebuilt in the page from its pack and shown as a blob: URL: read it back from the page.
            drawn = page.evaluate("async src => await (await fetch(src)).text()", src) if src.startswith("blob:") \
                else (real_site / relative).parent / src
            units, smallest = _label_px(drawn)
            label = smallest * width / units
            measured += 1
            if label < SMALLEST_LABEL_PX or focus != 0:
                small.append(f"{relative}: {src}: labels at {label:.1f} px, figure tabindex {focus}")
    page.close()
    assert measured >= 3 and not small, small


def test_diagram_labels_stay_legible_at_a_phones_width(real_site: Path, browser: Any) -> None:
    """On a phone a diagram keeps the size it is drawn at (its figure scrolls sideways): no label under 9 px."""
    page = browser.new_page(viewport={"width": PHONE[0], "height": PHONE[1]})
    measured, small = 0, []
    for relative in fullest_example_of_each_book(real_site):
        page.goto((real_site / relative).as_uri())
        shown = page.evaluate("() => [...document.querySelectorAll('figure.diagram img')].map("
                              "i => [i.getAttribute('src'), i.getBoundingClientRect().width])")
        for src, width in shown:
            units, smallest = _label_px((real_site / relative).parent / src)
            label = smallest * width / units
            measured += 1
            if label < SMALLEST_LABEL_PX:
                small.append(f"{relative}: {src}: labels at {label:.1f} px")
    page.close()
    assert measured >= 3 and not small, small
