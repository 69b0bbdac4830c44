"""The covers' content: the texts from book.yaml's ``cover`` key, and the front cover's artwork.

The artwork is the book's own: the SVG its ``cover.art`` names (a file in the book's folder, checked like any
diagram, with ``cover.alt`` saying what it shows); else what its engine draws of its own game from its components
(``BaseGame.cover_art``, drawn at the gate: rulepress/verify/figures.py); else a motif drawn from the game's own
palette (its pieces' colours as discs and tiles in a ring, laid out from the book's ID).  So every book gets a
front cover of its own game without anyone drawing one, and no book another game's picture.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from rulepress.errors import SourceError
from rulepress.load.book import Book
from rulepress.proof import Proof
from rulepress.render import palette as colours
from rulepress.render.strings import Strings

# Palette names that are the book's chrome rather than a game colour (not drawn as pieces on the cover).
_CHROME = {"ink", "line", "muted", "soft", "faint", "paper", "sheet", "cover", "cover_ink", "accent"}


@dataclass
class CoverText:
    blurb: str = ""
    components: list[str] = field(default_factory=list)
    credits: list[str] = field(default_factory=list)
    background: str = "cover"  # palette names
    ink: str = "cover_ink"


def cover_text(book: Book, palette: dict[str, colours.Cmyk]) -> CoverText:
    """book.yaml ``cover``: blurb, components, credits (rendered as the book loaded, ``Book.cover_words``) and its
    colours."""
    data: dict[str, Any] = book.data.get("cover") or {}
    words = book.cover_words
    cover = CoverText(words.blurb, list(words.components), list(words.credits),
                      str(data.get("background", "cover")), str(data.get("ink", "cover_ink")))
    for key in ("background", "ink"):
        name = getattr(cover, key)
        if name not in palette:  # the gate's check_cover refuses it first, at its line
            raise SourceError(book.path("book.yaml"), None, f"cover.{key}: '{name}' is not a colour of the game's "
                                                            f"palette (known: {', '.join(sorted(palette))})")
    return cover


def piece_colours(palette: dict[str, colours.Cmyk]) -> list[colours.Cmyk]:
    """The game's own colours: palette entries with some colour in them, chrome and greys left out."""
    found = [value for name, value in palette.items() if name not in _CHROME and sum(value[:3]) > 0]
    return found or [palette["accent"]]


@dataclass
class Artwork:
    svg: str  # in the edition's colours: CMYK for print, the book's profile's sRGB for screens
    alt: str  # what it shows, for the digital edition's readers


def cover_art(book: Book, art: str | None, palette: dict[str, colours.Cmyk], screen: Proof | None,
              t: Strings, drawn: str | None = None) -> Artwork:
    """The front cover's artwork: the book's own SVG (``art``: ``cover.art`` as the gate checked it,
    ``BookCheck.cover_art``), the engine's drawing of its game (``drawn``, CMYK), or the motif drawn from its
    palette; for press (``screen`` None) or a screen."""
    data: dict[str, Any] = book.data.get("cover") or {}
    if data.get("art") and art is None:
        raise ValueError(f"{book.id}: cover.art was not checked by the gate (BookCheck.cover_art is None)")
    if art is not None:
        return Artwork(art if screen is None else screen.svg(art), str(data.get("alt") or ""))
    if drawn:
        alt = str(data["alt"]) if data.get("alt") else t("cover_drawn_alt", title=book.title)
        return Artwork(drawn if screen is None else screen.svg(drawn), alt)
    svg, discs, tiles = motif(palette, book.id, screen)
    alt = str(data["alt"]) if data.get("alt") else t("cover_motif_alt", discs=discs, tiles=tiles)
    return Artwork(svg, alt)


def motif(palette: dict[str, colours.Cmyk], seed: str, screen: Proof | None, width: float = 120,
          height: float = 96) -> tuple[str, int, int]:
    """An SVG (mm units): the game's pieces, discs and tiles in its own colours (its inks for press, ``screen``
    None, else their screen colours), in two loose rings; with the number of discs and of tiles drawn (for its
    alternative text)."""
    rng = random.Random(seed)
    paint = [colours.css(c, screen) for c in piece_colours(palette)]
    cx, cy = width / 2, height / 2
    parts: list[str] = []
    discs = tiles = 0
    for ring, (count, low, high) in enumerate(((22, 30, 46), (12, 14, 22))):
        for index in range(count):
            angle = 2 * math.pi * index / count + rng.uniform(-0.12, 0.12) + ring * 0.3
            radius = rng.uniform(low, high)
            x, y = cx + radius * math.cos(angle) * 1.25, cy + radius * math.sin(angle) * 0.95
            if not (4 < x < width - 4 and 4 < y < height - 4):
                continue
            fill = paint[(index + ring) % len(paint)]
            size = rng.uniform(3.2, 5.6)
            if index % 3:
                discs += 1
                parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{size / 1.6:.1f}" fill="{fill}"/>')
            else:
                tiles += 1
                turn = rng.uniform(-25, 25)
                parts.append(f'<rect x="{x - size / 2:.1f}" y="{y - size / 2:.1f}" width="{size:.1f}" '
                             f'height="{size:.1f}" rx="0.8" fill="{fill}" '
                             f'transform="rotate({turn:.0f} {x:.1f} {y:.1f})"/>')
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}mm" height="{height}mm" '
           f'viewBox="0 0 {width} {height}">' + "".join(parts) + "</svg>")
    return svg, discs, tiles
