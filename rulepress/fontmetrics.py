"""The shipped fonts' advance widths: how wide a line of text is, in the units of its font size.

No stage of its own: the engines lay out their diagrams' labels with it (through ``rulepress.render.metrics``),
and the gate measures every label it receives against its box with the same widths (``rulepress.verify.labels``).
"""

from __future__ import annotations

from functools import lru_cache

from fontTools.ttLib import TTFont

from rulepress.data import package_path

FONTS = package_path("fonts")


@lru_cache(maxsize=2)
def _advances(bold: bool) -> tuple[dict[int, int], int, int]:
    font = TTFont(FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"), lazy=True)
    cmap = font.getBestCmap()
    metrics = font["hmtx"].metrics
    widths = {code: metrics[glyph][0] for code, glyph in cmap.items()}
    return widths, metrics[".notdef"][0], font["head"].unitsPerEm


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The advance width of ``text`` at font size ``size`` (no kerning: a slight overestimate, the safe side)."""
    widths, missing, per_em = _advances(bold)
    return sum(widths.get(ord(char), missing) for char in text) * size / per_em
