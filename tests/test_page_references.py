"""Page references laid out twice, not three times, and right (rulepress/render/weasyprint_patches.py,
``references_twice``)."""

from __future__ import annotations

import collections
import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from rulepress.render import pdf, weasyprint_patches

weasyprint = pdf.weasyprint  # imported there, after fontconfig is pointed at the shipped fonts

CSS = """@page { size: 100mm 100mm; margin: 10mm }
body { font: 10pt "DejaVu Sans Mono"; margin: 0 }
.ref::after { content: " " target-counter(attr(href), page) }
.url::after { content: " " target-counter(attr(href url), page) }
.both::after { content: " " counter(page) "/" target-counter(attr(href), page) }
.total::after { content: " " target-counter(attr(href), page) "/" target-counter(attr(href), pages) }
.grow { width: 6.5ch }
.page { break-before: page }
"""

TOTAL = ' <a class="total" href="#a">T</a>'
# A reference's number grows from the placeholder's one digit to two, so that its line wraps: twelve of them
# push the heading "a" over to the next page once the numbers are known, moving every page after it.  The far
# heading's id has a "%41", which a reference by ``attr(href)`` (a string) keeps and one by ``attr(href url)``
# would decode (to "A"), as WeasyPrint's lookup does.
GROWING = (f"<style>{CSS}</style>"
           '<nav><a class="ref" href="#a">A</a> <a class="url" href="#a">F</a>'
           ' <a class="ref" href="#none">N</a></nav>'
           '<div class="page">' + '<div class="grow"><a class="ref" href="#far%41">abcd</a></div>' * 12
           + '<h1 id="a">A</h1></div>' + '<div class="page">x</div>' * 10
           + '<h1 id="far%41" class="page">Far</h1><p><a class="both" href="#a">back</a> <a class="ref" href="#a">B</a>'
           + TOTAL + '</p>')

# References that change no line: each page holding one is laid out again once, when its numbers are known (the
# contents' forward, the chapters' back to the first).
STEADY = (f"<style>{CSS}</style><nav>" + "".join(f'<div><a class="ref" href="#c{n}">C{n}</a></div>' for n in range(5))
          + "</nav>" + "".join(f'<h1 id="c{n}" class="page">C{n}</h1><p><a class="ref" href="#c0">C0</a></p>'
                               for n in range(5)))


def words(page: Any) -> str:
    return " ".join(box.text for box in page._page_box.descendants() if isinstance(getattr(box, "text", None), str))


def wrong_references(document: Any) -> list[str]:
    """Each "name number" a reference shows whose number is not its target's page (and "back", its own page too)."""
    pages = {anchor: number for number, page in enumerate(document.pages, 1) for anchor in page.anchors}
    targets = {"A": "a", "B": "a", "F": "a", "abcd": "far%41", "C": ""}
    wrong = []
    for number, page in enumerate(document.pages, 1):
        text = words(page)
        for name, suffix, shown in re.findall(r"\b(A|B|F|abcd|C)(\d?) +(\d+)", text):
            if pages[targets[name] or f"c{suffix}"] != int(shown):
                wrong.append(f"{name}{suffix} {shown} on page {number}")
        for own, shown in re.findall(r"back +(\d+)/(\d+)", text):
            if (int(own), int(shown)) != (number, pages["a"]):
                wrong.append(f"back {own}/{shown} on page {number}")
    return wrong


@contextlib.contextmanager
def pages_made() -> Iterator[collections.Counter[int]]:
    import weasyprint.layout.page as paging

    made: collections.Counter[int] = collections.Counter()
    remake = paging.remake_page

    def counted(index: int, *args: Any) -> Any:
        made[index + 1] += 1
        return remake(index, *args)

    paging.remake_page = counted
    try:
        yield made
    finally:
        paging.remake_page = remake


def render(html: str, fix: Callable[[], Any]) -> tuple[Any, collections.Counter[int]]:
    with pages_made() as made, fix():
        return weasyprint.HTML(string=html).render(), made


def test_every_reference_names_its_targets_page() -> None:
    document, _ = render(GROWING, weasyprint_patches.references_twice)
    assert [number for number, page in enumerate(document.pages, 1) if "a" in page.anchors] == [3]
    assert wrong_references(document) == []
    assert re.search(r"back +14/3", words(document.pages[-1]))  # its own page (counter(page)) and its target's
    assert re.search(r"T +3/14", words(document.pages[-1]))  # its target's page, and the total
    assert re.search(r"\bN\b", words(document.pages[0])) and not re.search(r"\bN +\d", words(document.pages[0]))


def test_weasyprint_alone_names_stale_pages() -> None:
    """Why the module exists: WeasyPrint 70 leaves the contents naming the pages "a" and "far" had before the
    growing references pushed them on (and a reference to the total page count stops it: it files the reference
    under the anchor None, then looks None up).  Once a WeasyPrint gets these right, the module can go."""
    with pytest.raises(AttributeError):
        render(GROWING, contextlib.nullcontext)
    document, _ = render(GROWING.replace(TOTAL, ""), contextlib.nullcontext)
    assert wrong_references(document) == ["A 2 on page 1", "F 2 on page 1"] + ["abcd 13 on page 2"] * 9


def test_a_page_of_references_is_laid_out_twice() -> None:
    fixed, made = render(STEADY, weasyprint_patches.references_twice)
    assert wrong_references(fixed) == [] and words(fixed.pages[0]).split() == [
        word for n in range(5) for word in (f"C{n}", str(n + 2))]
    assert made == dict.fromkeys(range(1, 7), 2)
    _, alone = render(STEADY, contextlib.nullcontext)
    assert alone[1] == 3  # WeasyPrint's own: a third time, for the total page count it learnt


@pytest.mark.parametrize("html", [GROWING, STEADY])
def test_put_back_afterwards(html: str) -> None:
    from weasyprint.css.targets import TargetCollector

    before = TargetCollector.collect_missing_counters, TargetCollector.cache_target_page_counters
    render(html, weasyprint_patches.references_twice)
    assert (TargetCollector.collect_missing_counters, TargetCollector.cache_target_page_counters) == before
