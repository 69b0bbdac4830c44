"""The covers' content: the texts from book.yaml's ``cover`` key, and a default artwork from the game's palette.

The artwork is drawn, not chosen: the game's own colours as its pieces (discs and tiles) gathered around a
lantern's glow, so every book gets a designed front cover without anyone drawing one.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from rulepress.errors import SourceError
from rulepress.load.book import Book
from rulepress.load.rules import render_template
from rulepress.load.yamlsrc import plain
from rulepress.render import palette as colours

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
    """book.yaml ``cover``: blurb, components, credits (templates over components.yaml) and its colours."""
    data: dict[str, Any] = book.data.get("cover") or {}
    shown = book.path("book.yaml")
    context = {**plain(book.components), "book": plain(book.data)}

    def text(value: Any) -> str:
        return render_template(str(value), context, shown, None).strip()

    cover = CoverText(text(data.get("blurb", "")), [text(v) for v in data.get("components", [])],
                      [text(v) for v in data.get("credits", [])],
                      str(data.get("background", "cover")), str(data.get("ink", "cover_ink")))
    for key in ("background", "ink"):
        name = getattr(cover, key)
        if name not in palette:
            raise SourceError(shown, None, f"cover.{key}: '{name}' is not a colour of the game's palette "
                                           f"(known: {', '.join(sorted(palette))})")
    return cover


def piece_colours(palette: dict[str, colours.Cmyk]) -> list[colours.Cmyk]:
    """The game's own colours: palette entries with some colour in them, chrome and greys left out."""
    found = [value for name, value in palette.items() if name not in _CHROME and sum(value[:3]) > 0]
    return found or [palette["accent"]]


def artwork(palette: dict[str, colours.Cmyk], seed: str, print_edition: bool, width: float = 120,
            height: float = 96) -> str:
    """An SVG (mm units): a glowing lantern in the middle, the game's pieces scattered around it."""
    rng = random.Random(seed)
    paint = [colours.css(c, print_edition) for c in piece_colours(palette)]
    accent = colours.css(palette["accent"], print_edition)
    light = colours.css(palette["cover_ink"], print_edition)
    cx, cy = width / 2, height / 2
    parts = [f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{accent}" fill-opacity="{o}"/>'
             for r, o in ((34, 0.18), (25, 0.3), (16, 0.55))]
    # The lantern: a rounded body, a cap and a ring, in the cover's light ink.
    parts += [f'<rect x="{cx - 7}" y="{cy - 10}" width="14" height="20" rx="3" fill="{light}"/>',
              f'<rect x="{cx - 9}" y="{cy - 13}" width="18" height="3.5" rx="1.2" fill="{light}"/>',
              f'<circle cx="{cx}" cy="{cy - 16}" r="2.4" fill="none" stroke="{light}" stroke-width="1"/>',
              f'<circle cx="{cx}" cy="{cy}" r="4" fill="{accent}"/>']
    count = 22
    for index in range(count):
        angle = 2 * math.pi * index / count + rng.uniform(-0.12, 0.12)
        radius = rng.uniform(30, 46)
        x, y = cx + radius * math.cos(angle) * 1.25, cy + radius * math.sin(angle) * 0.95
        if not (4 < x < width - 4 and 4 < y < height - 4):
            continue
        fill = paint[index % len(paint)]
        size = rng.uniform(3.2, 5.6)
        if index % 3:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{size / 1.6:.1f}" fill="{fill}"/>')
        else:
            turn = rng.uniform(-25, 25)
            parts.append(f'<rect x="{x - size / 2:.1f}" y="{y - size / 2:.1f}" width="{size:.1f}" '
                         f'height="{size:.1f}" rx="0.8" fill="{fill}" '
                         f'transform="rotate({turn:.0f} {x:.1f} {y:.1f})"/>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}mm" height="{height}mm" '
            f'viewBox="0 0 {width} {height}">' + "".join(parts) + "</svg>")
