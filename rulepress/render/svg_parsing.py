"""WeasyPrint's SVG drawing, with each attribute string parsed once.

WeasyPrint parses a node's fill and stroke colour (tinycss2) and its lengths again for every node it draws, and
it draws every diagram once per edition: for the bundled books that was 140,000 colour parses and 640,000
length parses in a cold build, about 8% of the PDFs' CPU.  Both are pure functions of their strings, so while
:func:`parsed_once` is in force they are looked up in a cache instead.  A colour is handed out as a copy each
time, because WeasyPrint multiplies a fill's or a stroke's opacity into it in place.

The wrapped names are those of ``weasyprint.svg`` as of the version in constraints.txt; with a WeasyPrint that
has no such names nothing is wrapped (the drawing is the same, only slower).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def parsed_once() -> Iterator[None]:
    import weasyprint.svg as svg

    colour, length = getattr(svg, "color", None), getattr(svg, "size", None)
    if colour is None or length is None:
        yield
        return
    parsed = functools.lru_cache(maxsize=4096)(colour)

    def color(string: Any) -> Any:
        found = parsed(string)
        if isinstance(found, str):  # "currentcolor": resolved by the caller
            return found
        return type(found)(found.space, found.coordinates, found.alpha)

    # Its arguments are an attribute's string (or None) and font sizes: always dictionary keys.
    svg.color, svg.size = color, functools.lru_cache(maxsize=16384)(length)
    try:
        yield
    finally:
        svg.color, svg.size = colour, length
