"""The inks a book and its engines' diagrams are written in, as CMYK percentages: no stage, no colour science.

A game's palette is declared by its engine (``EngineSpec.palette``, name -> CMYK percentages; the bundled engines
keep it in their ``render.py``) and its diagrams are drawn with ``device-cmyk()`` colours (:data:`DEVICE_CMYK`
reads them back); the book's own colours (text, rules, tints) are ``HOUSE`` below.  What these inks look like on a
screen is rulepress/proof.py's business (through the book's own output intent); the gate checks a cover's colour
names against :func:`game_palette`, rulepress.basegame draws with ``HOUSE``, and the in-browser referee maps
``device-cmyk()`` colours to the screen colours the build worked out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

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


DEVICE_CMYK = re.compile(r"device-cmyk\(\s*([0-9.%]+)[\s,]+([0-9.%]+)[\s,]+([0-9.%]+)[\s,]+([0-9.%]+)\s*\)")
"""A ``device-cmyk(c m y k)`` colour as SVG and CSS write it (fractions or percentages), its four inks grouped."""

# The percentages of each ink the book's profile is sampled at for the referee in the browser (``Proof.grid``),
# which interpolates an ink the build never saw from them (render/browser/referee.py: here, so the bundle the
# referee's import closure makes carries no render module for it).
GRID_LEVELS = (0, 25, 50, 75, 100)


def device_cmyk(colour: Cmyk) -> str:
    """The CSS/SVG form WeasyPrint writes as a ``/DeviceCMYK`` colour: ``device-cmyk(0 0.3 0.8 0)``."""
    return "device-cmyk(" + " ".join(f"{v / 100:.4g}" for v in colour) + ")"


def game_palette(own: Mapping[str, Cmyk] | None = None) -> dict[str, Cmyk]:
    """A game's named CMYK colours (its engine's ``EngineSpec.palette``), over the defaults for cover and accent."""
    return {**DEFAULT_GAME, **(own or {})}
