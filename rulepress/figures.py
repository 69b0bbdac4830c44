"""What an engine draws, as data (no stage): a diagram's :class:`Figure`, its key's :class:`LegendEntry`, a
component's :class:`ComponentPicture`, and the layouts the base class gives them by default.

``rulepress.basegame`` re-exports all three; the gate frames what an engine returns (rulepress/verify/figures.py)
and the renderers print it: the key once per chapter, the components section, the setup diagram and the cover.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from rulepress.cmyk import HOUSE, device_cmyk
from rulepress.marks import Box

INK = device_cmyk(HOUSE["ink"])
TINT = device_cmyk((0, 0, 0, 12))
PAPER = device_cmyk(HOUSE["paper"])
FONT = "Rulepress Sans, DejaVu Sans, sans-serif"  # the book's embedded sans; DejaVu on screens without it
UNITS_PER_MM = 4  # a 480-unit canvas prints 120 mm wide
SYMBOL_WIDTH, SYMBOL_HEIGHT = 36, 24  # a legend symbol's box, in canvas units


@dataclass(frozen=True)
class Figure:
    """What ``draw`` may return instead of a list of elements: the elements, with the canvas's height when it
    depends on the state, and the ``<desc>`` when the game words it itself (else ``text_alternative``)."""

    elements: Sequence[str]
    height: float | None = None
    desc: str | None = None
    width: float | None = None
    background: str | None = None  # the canvas's colour: the paper unless the game prints on its own (a sheet)
    # Where each part of the snapshot is drawn (a dotted path of the snapshot -> its Box), for the marks that show
    # what a step changed (rulepress/marks.py); None: the game's ``places(state)`` says.
    places: Mapping[str, Box] | None = None


@dataclass(frozen=True)
class LegendEntry:
    """One symbol of a game's key to its diagrams: the symbol's elements, drawn in a 36 x 24 box at the origin, and
    what it means in players' words."""

    symbol: Sequence[str]
    words: str


@dataclass(frozen=True)
class ComponentPicture:
    """One kind of component as the book's components section shows it: its name in players' words, how many the
    box holds (from components.yaml), and its picture (a sheet of all of them when each one differs)."""

    name: str
    count: int
    figure: Figure
    note: str = ""


def _text(x: float, y: float, words: str, size: float = 10, anchor: str = "start", weight: str = "normal") -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{INK}">{escape(words)}</text>')


def _wrapped(words: str, width: float, size: float = 10) -> list[str]:
    per_line = max(int(width / (size * 0.6)), 8)
    lines: list[str] = []
    for word in words.split():
        if lines and len(lines[-1]) + 1 + len(word) <= per_line:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def legend_figure(entries: Sequence[LegendEntry], title: str, width: float = 480) -> Figure:
    """A key to the diagrams: its title, then each symbol beside its words, in two columns."""
    out = [_text(0, 12, title, 11, weight="bold")]
    column = width / 2
    y_of = [22.0, 22.0]
    for entry in entries:
        side = 0 if y_of[0] <= y_of[1] else 1
        x, y = side * column, y_of[side]
        lines = _wrapped(entry.words, column - SYMBOL_WIDTH - 18)
        out.append(f'<g transform="translate({x:g} {y:g})">{"".join(entry.symbol)}</g>')
        for number, line in enumerate(lines):
            out.append(_text(x + SYMBOL_WIDTH + 8, y + 10 + 12 * number + (6 if len(lines) == 1 else 0), line))
        y_of[side] = y + max(SYMBOL_HEIGHT, 12 * len(lines)) + 8
    return Figure(out, max(y_of) + 2, "; ".join(f"{title}: " + e.words for e in entries[:1])
                  + "".join(f"; {e.words}" for e in entries[1:]), width)


def token(name: str, size: float = 64) -> Figure:
    """A component the engine draws no picture of: a round token bearing its name's initial."""
    r = size / 2 - 2
    initial = escape(name[:1].upper() or "?")
    elements = [f'<circle cx="{size / 2:g}" cy="{size / 2:g}" r="{r:g}" fill="{TINT}" stroke="{INK}" '
                f'stroke-width="1.5"/>',
                f'<circle cx="{size / 2:g}" cy="{size / 2:g}" r="{r - 5:g}" fill="none" stroke="{INK}" '
                f'stroke-width="0.8" stroke-dasharray="3 2"/>',
                f'<text x="{size / 2:g}" y="{size / 2 + size * 0.16:g}" font-size="{size * 0.45:g}" '
                f'text-anchor="middle" font-weight="bold" fill="{INK}">{initial}</text>']
    return Figure(elements, size, f"A token: {name}", size)


def placed(figure: Figure, x: float, y: float, scale: float, turn: float = 0.0) -> str:
    """A figure's elements drawn at ``x, y`` (its top left corner), scaled and turned about its centre."""
    width, height = figure.width or 480, figure.height or 360
    spin = f" rotate({turn:.0f} {width / 2:g} {height / 2:g})" if turn else ""
    return (f'<g transform="translate({x:.2f} {y:.2f}) scale({scale:.4f}){spin}">' + "".join(figure.elements)
            + "</g>")


def scattered(pictures: Sequence[Figure], width: float, height: float, seed: str = "cover") -> list[str]:
    """Pictures laid out loosely round the middle of a ``width`` x ``height`` canvas, each turned a little: the
    default cover art, from the game's own components."""
    rng = random.Random(seed)
    out: list[str] = []
    count = len(pictures)
    cell = min(width, height) / (2.2 if count <= 3 else 3.2)
    for index, figure in enumerate(pictures):
        angle = 2 * math.pi * index / max(count, 1) - math.pi / 2
        cx = width / 2 + (0 if count == 1 else width * 0.28 * math.cos(angle))
        cy = height / 2 + (0 if count == 1 else height * 0.28 * math.sin(angle))
        w, h = figure.width or 480, figure.height or 360
        scale = min(width * 0.8 / w, height * 0.6 / h) if count == 1 else cell / max(w, h)
        out.append(placed(figure, cx - w * scale / 2, cy - h * scale / 2, scale, rng.uniform(-14, 14)))
    return out


def sheet(pictures: Sequence[tuple[Figure, str]], width: float = 480, gap: float = 10,
          label_size: float = 10) -> Figure:
    """Pictures in rows, each with its label under it, wrapped to ``width``: a sheet of tiles or cards."""
    out: list[str] = []
    x = y = 0.0
    row = 0.0
    for figure, label in pictures:
        w, h = figure.width or 480, figure.height or 360
        wide = max(w, len(label) * label_size * 0.62)
        if x and x + wide > width:
            x, y, row = 0.0, y + row + gap, 0.0
        out.append(placed(figure, x + (wide - w) / 2, y, 1.0))
        if label:
            out.append(_text(x + wide / 2, y + h + label_size + 1, label, label_size, "middle"))
        row = max(row, h + (label_size + 4 if label else 0))
        x += wide + gap
    return Figure(out, y + row, None, width)


@dataclass(frozen=True)
class Frame:
    """How a game's diagrams are framed as SVG documents.  The defaults are the conventions of docs/ENGINE.md; the
    others keep the documents of the bundled books byte for byte as they were reviewed (tests/golden/)."""

    printed: bool = True  # width and height in millimetres (4 units a millimetre), else in canvas units
    root_font: bool = True  # the font named once on <svg>, else on each text (the game's text helper does it)
    lines: bool = False  # one part a line, the background placed at 0,0, and a final newline
    escape: Callable[[str], str] = escape  # how the <desc> is escaped (html.escape also escapes quotes)

    def document(self, width: float, height: float, elements: Iterable[str], desc: str,
                 background: str = PAPER, title: str | None = None) -> str:
        size = (f'width="{width / UNITS_PER_MM:g}mm" height="{height / UNITS_PER_MM:.1f}mm"' if self.printed
                else f'width="{width:g}" height="{height:g}"')
        font = f' font-family="{FONT}"' if self.root_font else ""
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" {size} viewBox="0 0 {width:g} {height:g}"{font} role="img">')
        described = (f"<title>{escape(title)}</title>" if title else "") + f"<desc>{self.escape(desc)}</desc>"
        if self.lines:
            paper = f'<rect x="0" y="0" width="{width:g}" height="{height:g}" fill="{background}"/>'
            return "\n".join([head, described, paper, "\n".join(elements), "</svg>\n"])
        paper = f'<rect width="{width:g}" height="{height:g}" fill="{background}"/>'
        return head + described + paper + "".join(elements) + "</svg>"
