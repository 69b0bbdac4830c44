"""The inks a book and its engines' diagrams are written in, as CMYK percentages: no stage, no colour science.

A game's palette lives in its engine (``engine/<package>/render.py``: ``PALETTE``, name -> CMYK percentages) and
its diagrams are drawn with ``device-cmyk()`` colours; the book's own colours (text, rules, tints) are ``HOUSE``
below.  What these inks look like on a screen is rulepress/proof.py's business (through the book's own output
intent); the gate checks a cover's colour names against :func:`game_palette`, and rulepress.basegame draws with
``HOUSE``.
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType

Cmyk = tuple[float, float, float, float]  # percentages, 0-100

# The book's own colours.  Text, rules and thin lines are 100 % K only (no rich black: it would blur as the
# plates shift); tints are K only too, so the text pages print on the black plate alone.
HOUSE: dict[str, Cmyk] = {
    "ink": (0, 0, 0, 100),
    "muted": (0, 0, 0, 70),
    "rule": (0, 0, 0, 45),
    "hairline": (0, 0, 0, 25),
    "tint": (0, 0, 0, 6),
    "paper": (0, 0, 0, 0),
}

# What a book's cover and accents use when its engine has no palette of its own (a deep blue and a cream).
DEFAULT_GAME: dict[str, Cmyk] = {
    "cover": (85, 60, 20, 45),
    "cover_ink": (0, 3, 15, 0),
    "accent": (0, 55, 90, 10),
}


# An ink as CSS and SVG write it: ``device-cmyk(0 0.3 0.8 0)``, or in percent, commas allowed.
DEVICE_CMYK = re.compile(r"device-cmyk\(\s*([0-9.%]+)[\s,]+([0-9.%]+)[\s,]+([0-9.%]+)[\s,]+([0-9.%]+)\s*\)")


def device_cmyk(colour: Cmyk) -> str:
    """The CSS/SVG form WeasyPrint writes as a ``/DeviceCMYK`` colour: ``device-cmyk(0 0.3 0.8 0)``."""
    return "device-cmyk(" + " ".join(f"{v / 100:.4g}" for v in colour) + ")"


def game_palette(engine: ModuleType | None) -> dict[str, Cmyk]:
    """The engine's named CMYK colours (``render.PALETTE``), over the defaults for cover and accent."""
    palette = dict(DEFAULT_GAME)
    if engine is None:
        return palette
    try:
        module = importlib.import_module(f"{engine.__name__}.render")
    except ModuleNotFoundError:
        return palette
    palette.update(getattr(module, "PALETTE", {}))
    return palette
