"""Pages full to the foot: a worked example's diagram that does not fit under the text before it no longer leaves
the rest of its page empty.

WeasyPrint keeps a diagram whole (``break-inside: avoid``): one that does not fit moves to the next page and leaves
this one short, by up to two thirds of a page for a board drawn full width.  A publisher sets the text that follows
in that room and the example after it, as a page float: while :func:`floats` is in force, every page WeasyPrint
makes is read back as it is made (how far down its lines and pictures reach: a box's sides are no content), and a
page under :data:`TARGET` full whose layout stops at an example's diagram (the example began on it, its diagram
goes over) is made again, once the example is set, in this order of preference:

- its diagram first, under its title and rules line, before its text (which then flows on), when the title and
  the diagram fit in the room the example starts in;
- later in its chapter: after the next block of rule text (a paragraph, a list, a table; never between a heading
  and what follows it), then the next, until that text fills the page or the example no longer starts on it.

An example whose lead does not fit under the text before it (its diagram already first, kept with its title)
moves over whole; a page that this leaves under :data:`SHORT` full takes the next blocks of the chapter instead,
and the example follows them.

Only the page itself is laid out again (the example's boxes move in WeasyPrint's box tree, after where the page
starts: no page made before it changes), so the cost is a few page layouts per example set again, not a layout of
the book.  An example never leaves its chapter, and never moves before the rules it names: only later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

TARGET = 0.8  # a page this full, or fuller, is left as it is
TRIES = 12  # layouts of one page at most, the first included
SHORT = 0.4  # a page less full than this (the preflight's floor) takes the text after an example moved over whole
HEADINGS = ("h1", "h2", "h3", "h4")
LayOut = Callable[[], tuple[Any, Any]]  # the page laid out (WeasyPrint's remake_page): it and where the next resumes


@dataclass
class Pushed:
    """An example whose diagram a page stopped at: its box, the box holding it (an ``aside``), and its diagram."""

    example: Any
    parent: Any
    figure: Any


def _classes(box: Any) -> list[str]:
    element = getattr(box, "element", None)
    if element is None or getattr(box, "element_tag", None) is None:
        return []
    return (element.get("class") or "").split()


def _is_example(box: Any) -> bool:
    element = getattr(box, "element", None)
    return element is not None and getattr(box, "element_tag", None) is not None and bool(
        element.get("data-example")) and box.element_tag == "section"


def _is_figure(box: Any) -> bool:
    return getattr(box, "element_tag", None) == "figure" and "diagram" in _classes(box)


def fill(page: Any) -> float:
    """How far down the page's content area its lines and pictures reach, from 0 to 1 (a box's borders, which a
    box broken over a page draws down to its foot, are no content)."""
    from weasyprint.formatting_structure import boxes

    top, height = page.content_box_y(), page.height
    bottom = top

    def walk(node: Any) -> None:
        nonlocal bottom
        if isinstance(node, (boxes.LineBox, boxes.ReplacedBox)):
            bottom = max(bottom, node.position_y + node.margin_height())
            return
        for child in getattr(node, "children", ()):
            walk(child)

    for child in page.children:
        if not isinstance(child, boxes.MarginBox):
            walk(child)
    return (bottom - top) / height if height > 0 else 1.0


def _path(root: Any, resume_at: Any) -> list[tuple[Any, int]]:
    """The boxes of the source tree a layout resumes in, outermost first, each with the index of its child it
    resumes at."""
    path = []
    node, at = root, resume_at
    while isinstance(at, dict) and len(at) == 1 and hasattr(node, "children"):
        (index, at), = at.items()
        if not isinstance(index, int) or index >= len(node.children):
            break
        path.append((node, index))
        node = node.children[index]
    return path


def _pushed(root: Any, start: Any, resume_at: Any) -> Pushed | None:
    """The example whose diagram the page stopped at, when the example began on this page (so that its boxes lie
    wholly after where the page starts, and may move)."""
    path = _path(root, resume_at)
    for depth, (node, index) in enumerate(path):
        child = node.children[index]
        if not _is_example(child):
            continue
        inner = path[depth + 1:]
        if not inner or not _is_figure(inner[0][0].children[inner[0][1]]):
            return None  # the page stopped elsewhere in the example (its text, its steps)
        begun = [box for box, _ in _path(root, start)]
        # None of the example may be on an earlier page, nor its box's start when it moves whole (it is the first
        # of its box): the page began before them, so that moving them changes nothing laid out before.
        if any(box is child for box in begun) or (index == 0 and any(box is node for box in begun)):
            return None
        return Pushed(child, node, inner[0][0].children[inner[0][1]])
    return None


def _diagram_first(pushed: Pushed) -> list[tuple[Any, list[Any]]] | None:
    """The example's first diagram moved under its title and rules line (the lead's blocks up to its rules line),
    before its text: the changed boxes' children, with what they were (to undo)."""
    example, figure = pushed.example, pushed.figure
    children = list(example.children)
    if not children or "example-lead" not in _classes(children[0]) or figure not in children:
        return None
    lead = children[0]
    blocks = list(lead.children)
    # Up to its rules line (``p.example-rules``, render/pdf.py), else its first two blocks (title, rules line).
    marked = [index for index, block in enumerate(blocks) if "example-rules" in _classes(block)]
    cut = marked[0] + 1 if marked else 2
    head, text = blocks[:cut], blocks[cut:]
    if len(head) < 2:
        return None
    rest = [child for child in children[1:] if child is not figure]
    saved = [(example, list(example.children)), (lead, list(lead.children))]
    lead.children = [*head, figure]
    example.children = [lead, *text, *rest]
    return saved


def _later(pushed: Pushed, root: Any) -> list[tuple[Any, list[Any]]] | None:
    """The example moved one block of its chapter later (past the next block that is not a heading, and the
    headings before it): the changed boxes' children, with what they were; None at the chapter's end."""
    aside, example = pushed.parent, pushed.example
    chapter = _parent_of(root, aside)
    if chapter is None:
        return None
    siblings = list(chapter.children)
    at = siblings.index(aside)
    step = at + 1
    while step < len(siblings) and getattr(siblings[step], "element_tag", None) in HEADINGS:
        step += 1  # a heading keeps with the block after it
    if step >= len(siblings):
        return None
    saved = [(chapter, siblings)]
    mine = list(aside.children)
    index = mine.index(example)
    if index == 0:
        moved = aside
        kept: list[Any] = []
    else:  # the examples before it in the same box stay where they are
        saved.append((aside, mine))
        aside.children = mine[:index]
        moved = aside.copy_with_children(mine[index:])
        kept = [aside]
    order = siblings[:at] + kept + siblings[at + 1:step + 1] + [moved] + siblings[step + 1:]
    chapter.children = order
    return saved


def _parent_of(root: Any, target: Any) -> Any | None:
    stack = [root]
    while stack:
        node = stack.pop()
        children = getattr(node, "children", None)
        if not children:
            continue
        if any(child is target for child in children):
            return node
        stack.extend(child for child in children if hasattr(child, "children") and not _is_example(child))
    return None


def _whole_example_next(root: Any, start: Any, resume_at: Any) -> Pushed | None:
    """The example the page stops right before, when none of it is on the page (it moved to the next page whole,
    its lead kept together, maybe with the box of examples it opens) and it did not begin on an earlier page."""
    path = _path(root, resume_at)
    if not path:
        return None
    node, index = path[-1]
    parent, child = node, node.children[index]
    while not _is_example(child):  # down the first children: the page resumes where the example's box starts
        children = getattr(child, "children", None)
        if not children or getattr(child, "element_tag", None) in HEADINGS:
            return None
        parent, child = child, children[0]
    if any(box is child for box, _ in _path(root, start)):
        return None
    return Pushed(child, parent, None)


def _moved_whole(root: Any, start: Any, page: Any, resume_at: Any, lay_out: LayOut) -> tuple[Any, Any]:
    """A page left under :data:`SHORT` full because the example after it moved over whole (its lead, kept together,
    did not fit): the example goes later in its chapter, block by block, while the text that comes up fills the
    page better (as :func:`_later` does for a diagram that moved over)."""
    for _ in range(TRIES - 1):
        pushed = _whole_example_next(root, start, resume_at)
        if pushed is None or getattr(pushed.parent, "element_tag", None) != "aside":
            break
        before = fill(page)
        saved = _later(pushed, root)
        if saved is None:
            break
        (page, resume_at), kept = _tried(saved, lay_out, lambda again, _, before=before: fill(again) > before + 0.01)
        if not kept or fill(page) >= SHORT:
            break
    return page, resume_at


def _tried(saved: list[tuple[Any, list[Any]]], lay_out: LayOut, better: Callable[[Any, Any], bool],
           ) -> tuple[tuple[Any, Any], bool]:
    """The page laid out again with the boxes as ``saved``'s change left them, and True, when ``better(page,
    resume_at)`` says so; else the change undone, the page laid out again as it was, and False."""
    again, resumed = lay_out()
    if better(again, resumed):
        return (again, resumed), True
    _undo(saved)
    return lay_out(), False


def _undo(saved: list[tuple[Any, list[Any]]]) -> None:
    for box, children in reversed(saved):
        box.children = children


@contextmanager
def floats() -> Iterator[None]:
    """While in force, WeasyPrint's pages are made with examples set as page floats (see the module's docstring)."""
    from weasyprint.layout import page as pages

    original = pages.remake_page

    def remake_page(index: int, context: Any, root_box: Any, html: Any) -> Any:
        start = context.page_maker[index][0]

        def lay_out() -> tuple[Any, Any]:
            return original(index, context, root_box, html)

        page, resume_at = lay_out()
        tried_first = False
        for _ in range(TRIES - 1):
            if fill(page) >= TARGET:
                break
            pushed = _pushed(root_box, start, resume_at)
            if pushed is None:
                break
            before = fill(page)
            if not tried_first:
                tried_first = True
                saved = _diagram_first(pushed)
                if saved is not None:  # undone when the title and diagram do not fit where the example starts
                    (page, resume_at), kept = _tried(saved, lay_out,
                                                     lambda again, _, before=before: fill(again) > before + 0.01)
                    if kept:
                        continue
            saved = _later(pushed, root_box)
            if saved is None:
                break
            # undone when worse (a block that does not fit either) and nothing is left to move
            (page, resume_at), kept = _tried(saved, lay_out, lambda again, resumed, before=before: not (
                fill(again) + 0.01 < before and _pushed(root_box, start, resumed) is None))
            if not kept:
                break
        if fill(page) < SHORT:
            page, resume_at = _moved_whole(root_box, start, page, resume_at, lay_out)
        return page, resume_at

    pages.remake_page = remake_page
    try:
        yield
    finally:
        pages.remake_page = original
