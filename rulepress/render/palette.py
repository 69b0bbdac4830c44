"""Colours are defined once, in CMYK; RGB (web, digital edition) is derived through the print profile.

A game's palette lives in its engine (``engine/<package>/render.py``: ``PALETTE``, name -> CMYK percentages)
and its diagrams are drawn with ``device-cmyk()`` colours.  The book's own colours (text, rules, tints) are
``HOUSE`` below.  The print edition uses the CMYK values as they are; everything shown on a screen gets the
sRGB that the output-intent profile says those inks look like, so no colour is ever chosen twice.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING

from rulepress.data import package_path

if TYPE_CHECKING:
    from PIL import ImageCms

Cmyk = tuple[float, float, float, float]  # percentages, 0-100

COLOR = package_path("color")
PROFILE = COLOR / "artifex-cmyk-swop.icc"

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


def device_cmyk(colour: Cmyk) -> str:
    """The CSS/SVG form WeasyPrint writes as a ``/DeviceCMYK`` colour: ``device-cmyk(0 0.3 0.8 0)``."""
    return "device-cmyk(" + " ".join(f"{v / 100:.4g}" for v in colour) + ")"


# PIL is imported where colours are converted, not with the module: rulepress.basegame needs the palette's inks in
# the browser too (rulepress/render/browser/referee.py), where there is no PIL.
@lru_cache(maxsize=1)
def _transform() -> ImageCms.ImageCmsTransform:
    from PIL import ImageCms

    # Relative colorimetric with black-point compensation: what a proofing tool shows for paper and ink.
    return ImageCms.buildTransform(
        ImageCms.getOpenProfile(str(PROFILE)), ImageCms.createProfile("sRGB"), "CMYK", "RGB",
        renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC, flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)


@lru_cache(maxsize=4096)
def rgb(colour: Cmyk) -> str:
    """The screen colour of these inks on paper (``#rrggbb``), through the output-intent profile."""
    from PIL import Image, ImageCms

    pixel = Image.new("CMYK", (1, 1), tuple(round(v * 2.55) for v in colour))
    red, green, blue = ImageCms.applyTransform(pixel, _transform()).getpixel((0, 0))
    return f"#{red:02x}{green:02x}{blue:02x}"


def css(colour: Cmyk, print_edition: bool) -> str:
    return device_cmyk(colour) if print_edition else rgb(colour)


def _component(text: str) -> float:
    return float(text[:-1]) if text.endswith("%") else float(text) * 100


def svg_rgb(svg: str) -> str:
    """The same SVG for screens: every ``device-cmyk()`` colour replaced by its sRGB equivalent."""
    return DEVICE_CMYK.sub(lambda m: rgb(tuple(_component(g) for g in m.groups())), svg)  # type: ignore[arg-type]


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
