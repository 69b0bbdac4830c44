"""Colours are defined once, in CMYK (rulepress/cmyk.py); what a screen shows of them comes from the book's own
output intent (its :class:`~rulepress.proof.Proof`, ``BookCheck.proof``), never from a profile chosen here.

The print edition uses the CMYK values as they are; everything shown on a screen (the site, the referee, the
digital edition) gets the sRGB that the book's output-intent profile says those inks look like, so no colour is
ever chosen twice, and a book printed on FOGRA39 is shown in FOGRA39's colours.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulepress.cmyk import DEFAULT_GAME, DEVICE_CMYK, GRID_LEVELS, HOUSE, Cmyk, device_cmyk, game_palette
from rulepress.data import package_path

if TYPE_CHECKING:
    from rulepress.proof import Proof

__all__ = ["COLOR", "DEFAULT_GAME", "DEVICE_CMYK", "GRID_LEVELS", "HOUSE", "Cmyk", "css", "device_cmyk",
           "game_palette"]

COLOR = package_path("color")  # the shipped profiles (rulepress/load/profile.py names them)


def css(colour: Cmyk, screen: Proof | None) -> str:
    """The colour as an edition writes it: the inks themselves for press (``screen`` None), else their screen
    colour through the book's proof."""
    return device_cmyk(colour) if screen is None else screen.rgb(colour)
