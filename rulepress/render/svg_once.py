"""WeasyPrint's SVG drawing, with what depends only on its strings worked out once.

WeasyPrint parses a node's fill and stroke colour (tinycss2) and its lengths again for every node it draws, and
it lays out an SVG text with Pango twice: the whole string (for its width) and then each letter on its own, each
in a new Pango layout set up again before the letter is drawn.  It draws every diagram once per edition: a cold
build of the bundled books made 140,000 colour parses and 640,000 length parses, and Last Lantern's print and
digital editions alone 31,700 text layouts (of some 300 different letters and strings), which with their set-ups
were a quarter of drawing those editions' diagrams (1.7 of 6.9 CPU s).  All three are pure functions of their
strings (and, for the letters, of the few style values an SVG text has), so while :func:`worked_out_once` is in
force they are looked up instead:

- A colour is handed out as a copy each time, because WeasyPrint multiplies a fill's or a stroke's opacity
  into it in place.
- A letter's layout is shared by every drawing of that letter in that style; it is set up for drawing once
  (``Layout.reactivate``), since setting it up again would give the same Pango layout.

The wrapped names are those of ``weasyprint.svg`` and ``weasyprint.text.line_break`` as of the version in
constraints.txt; with a WeasyPrint that has none of them nothing is wrapped (the drawing is the same, only slower).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def worked_out_once() -> Iterator[None]:
    import weasyprint.svg as svg
    import weasyprint.text.line_break as line_break

    svg_text = importlib.import_module("weasyprint.svg.text")  # the module: ``weasyprint.svg.text`` is its function

    colour, length = getattr(svg, "color", None), getattr(svg, "size", None)
    split, style_class = getattr(line_break, "split_first_line", None), getattr(svg_text, "Style", None)
    if colour is None or length is None or split is None or style_class is None:
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
    line_break.split_first_line = _measured_once(split, style_class, line_break.Layout)
    try:
        yield
    finally:
        svg.color, svg.size, line_break.split_first_line = colour, length, split


def _measured_once(split: Callable[..., Any], style_class: type, layout_class: type) -> Callable[..., Any]:
    """``split_first_line`` with an SVG text's lines (one unbroken line each: no width to fit) looked up."""

    class SetUpOnce(layout_class):  # type: ignore[misc, valid-type]
        """A letter's layout as drawn: the same Pango layout every time, so it is set up the first time only."""

        def reactivate(self, style: Any) -> None:
            if not hasattr(self, "layout"):  # deactivated since it was measured
                super().reactivate(style)

    measured: dict[tuple[Any, ...], Any] = {}

    def split_first_line(text: str, style: Any, context: Any, *fit: Any) -> Any:
        if type(style) is not style_class:  # not an SVG text's
            return split(text, style, context, *fit)
        # An SVG text's style is WeasyPrint's initial values with five of the node's own (svg/text.py), and its
        # fonts; the context matters only to a line that must fit a width (for hyphenation): none in an SVG.
        key = (text, tuple(style["font_family"]), style["font_style"], style["font_weight"], style["font_size"],
               style["direction"], style.font_config, *fit)
        found = measured.get(key)
        if found is None:
            found = split(text, style, context, *fit)
            found[0].__class__ = SetUpOnce
            measured[key] = found
        return found

    return split_first_line
