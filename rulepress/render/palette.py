"""Colours are defined once, in CMYK (rulepress/cmyk.py); RGB (web, digital edition) is derived through the print
profile.

The print edition uses the CMYK values as they are; everything shown on a screen gets the sRGB that the
output-intent profile says those inks look like, so no colour is ever chosen twice.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from rulepress.cmyk import DEFAULT_GAME, DEVICE_CMYK, HOUSE, Cmyk, device_cmyk, game_palette
from rulepress.data import package_path

if TYPE_CHECKING:
    from PIL import ImageCms

__all__ = ["COLOR", "DEFAULT_GAME", "DEVICE_CMYK", "HOUSE", "PROFILE", "Cmyk", "css", "device_cmyk", "game_palette",
           "rgb", "svg_rgb"]

COLOR = package_path("color")
PROFILE = COLOR / "artifex-cmyk-swop.icc"


# PIL is imported where colours are converted, not with the module (most of what reads a palette never converts).
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


@lru_cache(maxsize=4096)
def _screen(written: str) -> str:
    found = DEVICE_CMYK.fullmatch(written)
    assert found is not None
    return rgb(tuple(_component(g) for g in found.groups()))  # type: ignore[arg-type]


def svg_rgb(svg: str) -> str:
    """The same SVG for screens: every ``device-cmyk()`` colour replaced by its sRGB equivalent."""
    return DEVICE_CMYK.sub(lambda m: _screen(m.group(0)), svg)
