"""Lantern's pictures beyond the sheet as played: its components (the dice and a blank adventure sheet), the key to
the diagrams, and the cover.  Drawn as the diagrams draw (render.py), counted from the component data."""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from rulepress.basegame import ComponentPicture, Figure, LegendEntry
from rulepress.protocol import Chance

from .render import ACCENT, PAPER, _circle, _die, draw, paint
from .state import LanternState

if TYPE_CHECKING:
    from .game import LanternGame


def components(game: LanternGame) -> list[ComponentPicture]:
    data = game.components
    count, faces = int(data["dice"]["count"]), int(data["dice"]["faces"])
    dice = Figure([_die(k * 44, 0, 36, k % faces + 1) for k in range(count)], 38, width=count * 44 - 8)
    blank = draw(game, LanternState(Chance(0), ("you",)), sheet_only=True)
    return [
        ComponentPicture("Six-sided dice", count, dice, "the six dice are rolled together, all adventure long"),
        ComponentPicture("Adventure sheet", 1, blank,
                         "one for each adventure, written on with a pen or a pencil (not in the box)"),
    ]


def legend(game: LanternGame) -> list[LegendEntry]:
    return [
        LegendEntry([_die(6, 0, 24, 5)], "A die showing 5"),
        LegendEntry([_die(6, 0, 24, "X")], "X: a wild die, any face; a letter (A): dice that must match"),
        LegendEntry([_circle(8, 12, 6.5, "empty"), _circle(27, 12, 6.5, "drawn")],
                    "A circle printed on the sheet, and one drawn in"),
        LegendEntry([_circle(18, 12, 6.5, "crossed")], "A drawn circle crossed out (used)"),
        LegendEntry([f'<rect x="2" y="0" width="32" height="24" rx="4" fill="{PAPER}" stroke="{ACCENT}" '
                     f'stroke-width="2.2"/>'], "The zone the adventurer is in"),
    ]


def cover(game: LanternGame, width: float, height: float) -> list[str]:
    """The cover: the six dice tumbling out of a lantern's light, the sheet's circles around them."""
    rng = random.Random("lantern cover")
    cx, cy = width / 2, height / 2
    out = [f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="{paint("cover_ink")}" fill-opacity="{o}"/>'
           for r, o in ((40, 0.08), (30, 0.12), (20, 0.2))]
    for k in range(16):  # the sheet's circles, drawn and crossed, in a loose ring
        angle = k / 16 * 6.283 + rng.uniform(-0.1, 0.1)
        x, y = cx + 44 * math.cos(angle), cy + 36 * math.sin(angle)
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="none" stroke="{paint("cover_ink")}" '
                   f'stroke-width="0.6"/>')
        if k % 3 == 0:
            out.append(f'<path d="M{x - 2:.1f} {y - 2:.1f}L{x + 2:.1f} {y + 2:.1f}M{x + 2:.1f} {y - 2:.1f}'
                       f'L{x - 2:.1f} {y + 2:.1f}" fill="none" stroke="{paint("cover_ink")}" stroke-width="0.7"/>')
    for k, face in enumerate((6, 5, 3, 6, 1, 4)):
        size = 11
        x = cx - 30 + (k % 3) * 20 + rng.uniform(-3, 3)
        y = cy - 14 + (k // 3) * 18 + rng.uniform(-3, 3)
        turn = rng.uniform(-25, 25)
        out.append(f'<g transform="rotate({turn:.0f} {x + size / 2:.1f} {y + size / 2:.1f})">'
                   + _die(x, y, size, face).replace('stroke-width="1.2"', 'stroke-width="0.5"') + "</g>")
    return out
