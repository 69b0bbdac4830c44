"""Every mark of a diagram measured against the drawing's text and the other marks' text: no mark covers a word of
the drawing or another mark's number.

The marks (rulepress/marks.py, or an engine's own ``mark()``) are drawn over the engine's drawing to show the move: a
step's number on its disc, a pill of numbers ("2–5, 9, 10"), a refusal's label ("1 3 not allowed: rule 4.4"), an
arrow, a cross, an outline.  One laid over a label of the drawing ("No dice showing") or over another mark's number
prints a garbled diagram in every edition and step-through frame of that language.  Each mark (an element whose
class holds ``rp-mark``) is read back as rulepress/svgboxes.py reads it: its filled boxes and discs, its lines (an
arrow's path as its straight runs, its stroke's width wide, the paper halo under it included) and its text, measured
in the shipped font's widths (``rulepress.textwidth``).  :func:`overlaps` finds each part of a mark that reaches
into

- a label of the drawing (any ``<text>`` outside the marks), or
- another mark's text drawn before it (a mark drawn after covers one drawn before; a mark's own number on its own
  disc is what the disc is for),

by more than the label check's tolerance (rulepress/verify/labels.py).  :func:`covered` says the first for the gate
(``rulepress.verify.diagram.checked``), which refuses the diagram naming the example, its line, the diagram, the book,
the language and both labels.
"""

from __future__ import annotations

from dataclasses import dataclass

from rulepress.svgboxes import Box, Drawing, Label, Line

HOW = ("a mark keeps clear of every label: rulepress/marks.py places its marks so (BaseGame.mark passes it the "
       "drawing's labels); an engine's own mark() must too")


@dataclass(frozen=True)
class Overlap:
    """A part of a mark that covers a label: which mark, which part of it, and the label it covers."""

    mark: int  # the covering mark's number (the order the marks are drawn in)
    part: str  # "disc", "box", "line", "text"
    where: Box  # the covering part's extent
    label: Label  # the label covered


def overlaps(drawing: Drawing) -> list[Overlap]:
    """Every part of a mark of ``drawing`` that covers a label of the drawing or the text of a mark drawn before it,
    by the covering mark's order."""
    found: list[Overlap] = []
    background = drawing.extent.area * 0.9  # a mark's ground as large as the drawing is no mark over anything
    rects = [rect for rect in drawing.rects if rect.marks and rect.area < background]
    lines = [(line, _extent(line)) for line in drawing.lines]
    texts = [label for label in drawing.labels if label.marks]
    if not rects and not lines and not texts:
        return found
    for label in drawing.labels:
        box = label.box
        for rect in rects:
            if rect.group > label.group and _meet(rect, box) and rect.covers(box):
                found.append(Overlap(rect.group, "disc" if rect.radius else "box", rect, label))
        for line, extent in lines:
            if line.group > label.group and _meet(extent, box, line.width / 2) and line.covers(box):
                found.append(Overlap(line.group, "line", extent, label))
        for mark in texts:
            if mark.group > label.group and _meet(mark.box, box) and mark.box.covers(box):
                found.append(Overlap(mark.group, "text", mark.box, label))
    return sorted(found, key=lambda overlap: overlap.mark)


def _extent(line: Line) -> Box:
    xs = [p[0] for run in line.runs for p in run]
    ys = [p[1] for run in line.runs for p in run]
    return Box.spanning(min(xs), min(ys), max(xs), max(ys))


def _meet(a: Box, b: Box, by: float = 0.0) -> bool:
    return a.x - by <= b.right and b.x <= a.right + by and a.y - by <= b.bottom and b.y <= a.bottom + by


def covered(drawing: Drawing, book: str = "", lang: str = "") -> str | None:
    """The first mark of ``drawing`` that covers the drawing's text or another mark's (see the module's docstring),
    said for the gate's message (``book``, ``lang``: the diagram's book and language); None when none does."""
    found = overlaps(drawing)
    if not found:
        return None
    first = found[0]
    whose = "another mark's" if first.label.marks else "the drawing's"
    said = ", ".join(part for part in (f"book {book}" if book else "", f"language {lang}" if lang else "") if part)
    return (f"has a mark over {whose} text{f' ({said})' if said else ''}: {mark_said(drawing, first.mark)} (its "
            f"{first.part}, {_at(first.where)}) covers {label_said(drawing, first.label)} ({_at(first.label.box)}); "
            f"{HOW}")


def mark_said(drawing: Drawing, group: int) -> str:
    """A mark in the reader's words: "the step number '9'", "the arrow of step 4", "the refusal label '1 3 not
    allowed: rule 4.4'"."""
    mark = drawing.marks[group]
    words = " ".join(label.text for label in drawing.labels if label.group == group)
    steps = mark.steps.split()
    of = f" of step{'s' if len(steps) > 1 else ''} {', '.join(steps)}" if steps else ""
    classes = set(mark.classes)
    if "rp-number" in classes:
        kind = "refused step's number" if "rp-refused" in classes else "step number"
        return f"the {kind}{'s' if len(steps) > 1 else ''} '{words}'"
    if "rp-told" in classes:
        return f"the line telling{of} ('{words}')" if words else f"the line telling{of}"
    if words:
        return f"the {'refusal label' if 'rp-refused' in classes else 'mark'} '{words}'"
    if "rp-moved" in classes:
        return f"the arrow{of}"
    if "rp-refused" in classes:
        return f"the struck-out move{of}"
    if "rp-changed" in classes:
        return f"the outline{of}"
    return f"the mark{of} (class '{' '.join(mark.classes)}')"


def label_said(drawing: Drawing, label: Label) -> str:
    if not label.marks:
        return f"the drawing's label '{label.text}'"
    said = mark_said(drawing, label.group)
    return said if f"'{label.text}'" in said else f"the label '{label.text}' of {said}"


def _at(rect: Box) -> str:
    return f"x {rect.x:.0f}–{rect.right:.0f}, y {rect.y:.0f}–{rect.bottom:.0f}"
