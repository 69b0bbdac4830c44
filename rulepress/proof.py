"""Soft proofs: what a CMYK output profile says a book's inks look like on a screen, as sRGB.

The one conversion of CMYK to RGB in rulepress: the site's diagrams and step-through, the referee's colour table,
the digital edition's HTML and every colour WeasyPrint writes into it go through the :class:`Proof` of the book's
own output intent (book.yaml ``output_intent``, rulepress/load/profile.py), so a book printed on FOGRA39 is shown
in FOGRA39's colours, never another profile's.  No stage: the loader may try a profile with it too.

A proof is made once per profile file (its path, size and time) and remembers every colour it converted: the
renderers ask for the same few inks thousands of times.  Pillow (LittleCMS) is imported on the first conversion,
not with the module: the referee runs in the browser, where there is none (it gets the build's table).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rulepress.cmyk import DEVICE_CMYK, Cmyk

if TYPE_CHECKING:
    from PIL import ImageCms

class Proof:
    """The screen colours of inks printed with the profile at ``path``."""

    _made: dict[tuple[str, int, int], Proof] = {}

    def __init__(self, path: Path) -> None:
        self.path = path
        self._transform: ImageCms.ImageCmsTransform | None = None
        self._rgb: dict[Cmyk, str] = {}
        self._written: dict[str, str] = {}

    @classmethod
    def of(cls, path: Path) -> Proof:
        """The proof through the profile at ``path``: one per file as it is now (a changed file, a new proof)."""
        status = path.stat()
        key = (str(path), status.st_size, status.st_mtime_ns)
        made = cls._made.get(key)
        if made is None:
            made = cls._made[key] = cls(path)
        return made

    def __repr__(self) -> str:
        return f"Proof({str(self.path)!r})"

    def __reduce__(self) -> tuple[Any, ...]:  # a forked or pickled check carries the path, not LittleCMS's state
        return Proof, (self.path,)

    def transform(self) -> ImageCms.ImageCmsTransform:
        """LittleCMS's transform of this profile's CMYK to sRGB: relative colorimetric with black-point
        compensation, what a proofing tool shows for paper and ink."""
        if self._transform is None:
            from PIL import ImageCms

            self._transform = ImageCms.buildTransform(
                ImageCms.getOpenProfile(str(self.path)), ImageCms.createProfile("sRGB"), "CMYK", "RGB",
                renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC, flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
        return self._transform

    def rgb(self, colour: Cmyk) -> str:
        """The screen colour of these inks on paper, ``#rrggbb``."""
        found = self._rgb.get(colour)
        if found is None:
            from PIL import Image, ImageCms

            pixel = Image.new("CMYK", (1, 1), tuple(round(v * 2.55) for v in colour))
            red, green, blue = ImageCms.applyTransform(pixel, self.transform()).getpixel((0, 0))
            found = self._rgb[colour] = f"#{red:02x}{green:02x}{blue:02x}"
        return found

    def written(self, ink: str) -> str:
        """The screen colour of an ink as CSS and SVG write it (``device-cmyk(0 0.35 1 0)``, or in percent)."""
        found = self._written.get(ink)
        if found is None:
            match = DEVICE_CMYK.fullmatch(ink)
            if match is None:
                raise ValueError(f"not a device-cmyk() colour: {ink!r}")
            found = self._written[ink] = self.rgb(tuple(_percent(part) for part in match.groups()))  # type: ignore[arg-type]
        return found

    def grid(self, levels: tuple[float, ...]) -> list[str]:
        """The screen colour at every combination of ``levels`` of each ink, in C, M, Y, K order (K fastest): what
        the referee in the browser, where there is no LittleCMS, interpolates an ink the build never saw from."""
        return [self.rgb((c, m, y, k)) for c in levels for m in levels for y in levels for k in levels]

    def svg(self, svg: str) -> str:
        """The same SVG (or CSS) for screens: every ``device-cmyk()`` colour replaced by its sRGB."""
        return DEVICE_CMYK.sub(lambda match: self.written(match.group(0)), svg)


def _percent(text: str) -> float:
    return float(text[:-1]) if text.endswith("%") else float(text) * 100
