"""rulepress.render.metrics as the browser has it: the same ``text_width``, from the advance widths that module read
from the shipped fonts when the site was built (fontTools and the fonts stay behind: the bundle carries only the
table, ``advances.json``, beside this module).  tests/test_in_browser.py holds the two to the same widths."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=2)
def _advances(bold: bool) -> tuple[dict[int, int], int, int]:
    table = json.loads(resources.files(__package__ or "rulepress.render").joinpath("advances.json").read_text())
    font = table["bold" if bold else "regular"]
    return {int(code): width for code, width in font["widths"].items()}, font["missing"], font["per_em"]


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The advance width of ``text`` at font size ``size`` (no kerning: a slight overestimate, the safe side)."""
    widths, missing, per_em = _advances(bold)
    return sum(widths.get(ord(char), missing) for char in text) * size / per_em
