"""Every text label of a diagram measured against the box it belongs to, in the shipped font's widths.

A label's length depends on the language ("Path Astray" / "Chemin perdu"): one that runs out of its box, or on to a
box beside it, prints garbled in that language's every edition and step-through frame.  Each ``<text>`` is measured
as rulepress/svgboxes.py reads it (``rulepress.textwidth``, the widths engines lay their labels out with: the
sans-serif's advance widths at its size and weight, placed by its ``text-anchor``, through its groups'
``translate``/``scale``/``matrix`` transforms) and held to its box:

- the box it belongs to is the smallest filled rectangle that holds the label's anchor point (its middle height at
  its ``x``); a box may be drawn as several rectangles of one colour (a polyomino's squares), so the label must lie
  on rectangles of that box's colour, wherever it prints;
- a label that belongs to no box (a title, a legend's words) may not run on to any filled rectangle, nor out of the
  drawing.

A filled disc (a step's number on its callout, rulepress/marks.py) is a box as the square round it.  Rectangles
and discs drawn without a fill (a dashed frame, an outline) are no boxes.  :func:`overflow` gives the first label
that does not fit, for ``rulepress.verify.diagram.problem``: the gate then refuses the diagram, naming the example
(or the step-through's position), the language and who drew it.  What the marks cover of the drawing's text (or of
each other's) is rulepress/verify/overlaps.py's check.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET  # noqa: N817 - the usual name; the SVG was parsed by diagram.problem

from rulepress.svgboxes import TOLERANCE, Box, Drawing, read


def _points(box: Box) -> list[tuple[float, float]]:
    """Where a label is looked at: across its width (inside the tolerance), at a third and two thirds of its
    height."""
    x0, x1 = box.x + TOLERANCE, box.right - TOLERANCE
    across = [x0 + (x1 - x0) * i / 8 for i in range(9)] if x1 > x0 else [(box.x + box.right) / 2]
    return [(x, box.y + (box.bottom - box.y) * part) for x in across for part in (1 / 3, 2 / 3)]


def overflow(root: ET.Element) -> str | None:
    """The first label of the diagram ``root`` that runs out of its box or on to another (see the module's
    docstring), said for the gate's message; None when every label fits."""
    return misfit(read(root))


def misfit(found: Drawing) -> str | None:
    """:func:`overflow` of a diagram already read."""
    drawing = found.extent
    every = [rect for rect in found.rects if rect.area < drawing.area * 0.9]  # not the drawing's background
    for label in found.labels:
        box = label.box  # only the rectangles that meet the label can hold it or lie under it
        boxes = [rect for rect in every if rect.marks == label.marks and rect.x <= box.right and box.x <= rect.right
                 and rect.y <= box.bottom and box.y <= rect.bottom]  # the position's, or the marks' over it
        shown = f"label '{label.text}' ({label.size:g} units{', bold' if label.bold else ''})"
        wide = f"it is {label.box.right - label.box.x:.1f} wide in the shipped font (rulepress.textwidth)"
        holders = [rect for rect in boxes if rect.holds_point(*label.anchor)]
        own = min(holders, key=lambda rect: rect.area) if holders else None
        if not drawing.holds(label.box):
            return f"has a {shown} that runs out of the drawing ({_shown(drawing)}): {wide}"
        for x, y in _points(label.box):
            under = [rect for rect in boxes if rect.holds_point(x, y) and rect.area < (own.area if own else math.inf)]
            if own is not None:
                if any(rect.fill == own.fill for rect in under) or any(
                        rect.fill == own.fill and rect.holds_point(x, y) for rect in boxes):
                    continue
                return f"has a {shown} that runs out of its box ({_shown(own)}) at x {x:.1f}: {wide}"
            if under:
                return f"has a {shown} that runs on to a box beside it ({_shown(under[0])}): {wide}"
    return None


def _shown(rect: Box) -> str:
    return f"x {rect.x:g}–{rect.right:g}, y {rect.y:g}–{rect.bottom:g}"
