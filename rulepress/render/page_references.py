"""WeasyPrint's page references (``target-counter(attr(href), page)``), each laid out twice, not three times.

A rulebook's references name pages ("(rule 8.3, p. 11)", the contents' leaders, the index).  WeasyPrint lays out
a page holding one, and again once the pages it names are known; that second time is needed.  WeasyPrint 70 lays
each such page out a third time, for nothing, because of two slips in how it follows references:

- ``formatting_structure.build.compute_content_list`` files a reference's wanted counters under the anchor
  ``None`` when the anchor is given as ``attr(href)`` (it names the token it has not resolved), and rebinds the
  box's own list of missing counters to that list.  The reference is then never told when its anchor's page is
  known; it is updated only because its own (wrongly listed) ``page`` counter looks changed, on every pass
  until the total page count (``pages``) settles: three passes.
- ``css.targets.TargetCollector.cache_target_page_counters`` marks a referring page as changed when any of the
  anchor's page counters changed, not only one it shows (its "TODO: Is the item at all interested in the new
  page_counter_values?").  With the first slip mended, the total page count, 0 until the first pass ends, would
  again cost a third pass.

That third pass was one page layout in six for the bundled books (their print and designer bodies: 626 page
layouts, 526 without it; 18 of Last Lantern's 76 print pages hold references).  It did not even make the numbers
right: a heading that moved on the second pass kept its old page in the contents (two entries of Lantern Moths'
designer edition named the page before their section's).

While :func:`twice` is in force, the first slip is mended where the counters are filed
(``TargetCollector.collect_missing_counters``: from the box's own ``content``, with ``attr()`` resolved as
``lookup_target`` resolves it), and the second by a copy of ``cache_target_page_counters`` that marks a page only
when a counter it shows has a new value.  Where WeasyPrint's numbers were right the pages come out the same
(every bundled edition but that one is byte for byte the same); tests/test_page_references.py shows both.

The names replaced are those of WeasyPrint as of the version in constraints.txt; with a WeasyPrint without them
nothing is replaced (slower, and the preflight's ``pagechecks.references_right`` refuses a stale number).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

COUNTERS = ("counter()", "counters()")
TARGET_COUNTERS = ("target-counter()", "target-counters()")


def _anchor_name(token: Any, box: Any) -> str | None:
    """The anchor a ``target-counter`` names, ``attr()`` resolved as ``TargetCollector.lookup_target`` does."""
    from weasyprint.css.targets import anchor_name_from_token
    from weasyprint.urls import get_url_tuple

    if token[0] == "attr()":
        attr_name, kind, fallback = token[1]
        value = box.element.get(attr_name, fallback)
        token = ("string", value) if kind == "string" else ("url", get_url_tuple(value, box.style.base_url))
    return anchor_name_from_token(token)


def _missing(box: Any) -> tuple[list[str], dict[str | None, list[str]]]:
    """The counters a box's ``content`` shows: its own, and each anchor's.  More than compute_content_list means
    to file: it leaves out counters the box (or the anchor's box) has, which are never page counters (all the
    pagination looks up), and counters shown as ``none``, which at worst cost one more layout of the page."""
    own: list[str] = []
    targets: dict[str | None, list[str]] = {}
    content = box.style["content"]
    for kind, value in content if isinstance(content, (list, tuple)) else ():
        if kind in COUNTERS:
            own.append(value[0])
        elif kind in TARGET_COUNTERS:
            token, counter = value[:2]
            targets.setdefault(_anchor_name(token, box), []).append(counter)
    return own, targets


def _collect(original: Callable[..., None]) -> Callable[..., None]:
    def collect_missing_counters(self: Any, parent_box: Any, css_token: str, parse_again: Any,
                                 missing_counters: list[str], missing_target_counters: dict[Any, list[str]]) -> None:
        if css_token == "content" and None in missing_target_counters:  # filed under the unresolved attr()
            missing_counters, missing_target_counters = _missing(parent_box)
        original(self, parent_box, css_token, parse_again, missing_counters, missing_target_counters)

    return collect_missing_counters


def cache_target_page_counters(self: Any, anchor_name: str, page_counter_values: dict[str, Any],
                               page_maker_index: int, page_maker: list[Any]) -> None:
    """Store the anchor's page index and counters; mark the pages showing one of its counters that changed."""
    target = self.target_lookup_items.get(anchor_name)
    if not target or target.state != "up-to-date":
        return
    target.page_maker_index = page_maker_index  # for a reference to the total page count (layout.page.make_page)
    before = target.cached_page_counter_values
    target.cached_page_counter_values = copy.deepcopy(page_counter_values)
    for (_, css_token), lookup in self.counter_lookup_items.items():
        shown = lookup.missing_target_counters.get(anchor_name) if css_token == "content" else None
        if shown is None:
            continue
        if lookup.page_maker_index is None or lookup.page_maker_index >= len(page_maker):
            lookup.pending = True  # its page is not laid out yet: it takes the new values when it is
            continue
        if any(page_counter_values.get(name) not in (None, before.get(name)) for name in shown):
            page_maker[lookup.page_maker_index][-1]["content_changed"] = True
            lookup.parse_again(lookup.cached_page_counter_values)


@contextmanager
def twice() -> Iterator[None]:
    from weasyprint.css.targets import TargetCollector

    collect = getattr(TargetCollector, "collect_missing_counters", None)
    cache = getattr(TargetCollector, "cache_target_page_counters", None)
    if collect is None or cache is None:
        yield
        return
    TargetCollector.collect_missing_counters = _collect(collect)  # type: ignore[method-assign]
    TargetCollector.cache_target_page_counters = cache_target_page_counters  # type: ignore[method-assign]
    try:
        yield
    finally:
        TargetCollector.collect_missing_counters = collect  # type: ignore[method-assign]
        TargetCollector.cache_target_page_counters = cache  # type: ignore[method-assign]
