"""How wide a line of diagram text is, in SVG units, in the shipped sans-serif font: no stage, no libraries needed.

Engines lay out labels whose length depends on the language (``Path Astray`` / ``Chemin perdu``); estimating
with a fixed width per letter either wastes room in one language or lets a label run under a shape in another.
The widths are the shipped fonts' (``rulepress/fonts/``), read with fontTools where rulepress is installed; in the
browser, where the in-browser referee draws with the same engine (rulepress/render/in_browser.py), the bundle
carries them as a table beside this module (:data:`TABLE`, made by :func:`table`), so the two draw alike.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

TABLE = "textwidth.json"  # beside this module in the in-browser bundle only
FONTS = Path(__file__).resolve().parent / "fonts"
FACES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}


@lru_cache(maxsize=2)
def advances(bold: bool) -> tuple[dict[int, int], int, int]:
    """Each character's advance width (code point -> font units), the width of a missing one, units per em."""
    packed = Path(__file__).with_name(TABLE)
    if packed.is_file():
        face = json.loads(packed.read_text(encoding="utf-8"))["bold" if bold else "regular"]
        return {int(code): width for code, width in face["widths"].items()}, face["missing"], face["per_em"]
    from fontTools.ttLib import TTFont  # where rulepress is installed (never in the browser, which has the table)

    font = TTFont(FONTS / FACES[bold], lazy=True)
    metrics = font["hmtx"].metrics
    widths = {code: metrics[glyph][0] for code, glyph in font.getBestCmap().items()}
    return widths, metrics[".notdef"][0], font["head"].unitsPerEm


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The advance width of ``text`` at font size ``size`` (no kerning: a slight overestimate, the safe side)."""
    widths, missing, per_em = advances(bold)
    return sum(widths.get(ord(char), missing) for char in text) * size / per_em


def table() -> dict[str, Any]:
    """The widths as the bundle carries them (:data:`TABLE`)."""
    found = {}
    for key, bold in (("regular", False), ("bold", True)):
        widths, missing, per_em = advances(bold)
        found[key] = {"widths": {str(code): width for code, width in sorted(widths.items())}, "missing": missing,
                      "per_em": per_em}
    return found
