"""An engine's diagram checked as the gate receives it: well-formed SVG that needs nothing from outside.

Every edition prints ``render_svg``'s output, and WeasyPrint would fetch whatever it links to: a diagram that
does not parse drops out of the PDFs, and an ``<image href="http://...">`` or ``file:///...`` goes online or
reads outside the book.  Checked here, the fault names the example and checkpoint that drew it and the engine's
``render_svg``, instead of surfacing later as a WeasyPrint message about a base64 ``data:`` URL.
"""

from __future__ import annotations

import inspect
import re
import xml.etree.ElementTree as ET  # noqa: N817 - the usual name; expat resolves no external entities
from functools import cache
from pathlib import Path
from typing import Any

from rulepress import svgboxes
from rulepress.change import Change
from rulepress.verify import labels, overlaps

SVG_NAMESPACE = "{http://www.w3.org/2000/svg}"
_LINK_ATTRIBUTES = ("href", "{http://www.w3.org/1999/xlink}href", "src")
_CSS_URL = re.compile(r"url\(\s*['\"]?\s*(?!#)([^)'\"]*)", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"@import\s+['\"]?([^;'\")]*)", re.IGNORECASE)
_ACTIVE = {"script", "foreignObject", "iframe", "object", "embed", "audio", "video"}


# What could make a diagram fetch, run or embed anything: only an SVG holding one of these is walked element by
# element (the walk is the gate's largest cost of drawing: every step of every example is a diagram).
_SUSPECT = ("href", " src", "url(", "@import", "<style", " style", "script", "foreignobject", "iframe", "object",
            "embed", "audio", "video")
_HANDLER = re.compile(r"\son[a-z]*\s*=")  # an event handler attribute (in the lowered text)


def problem(svg: Any, root: ET.Element | None = None, *, book: str = "", lang: str = "") -> str | None:
    """What is wrong with ``svg`` as a book's diagram (None when nothing is); ``root``: it parsed already; ``book``
    and ``lang``: the book and language it is drawn in, for the message."""
    if not isinstance(svg, str):
        return f"is {type(svg).__name__}, not SVG text"
    lowered = svg.lower()
    if "<!doctype" in lowered or "<!entity" in lowered:
        return "declares a DOCTYPE or entities (a diagram is plain SVG)"
    if root is None:
        try:
            root = ET.fromstring(svg)
        except ET.ParseError as exc:
            return f"is not well-formed XML: {exc}"
    if root.tag != f"{SVG_NAMESPACE}svg":
        return f"is not SVG: its root is <{_local(root.tag)}>, not <svg xmlns=\"http://www.w3.org/2000/svg\">"
    if any(token in lowered for token in _SUSPECT) or _HANDLER.search(lowered):  # else nothing active to look for
        active = _active(root)
        if active:
            return active
    drawing = svgboxes.read(root)
    # Every label inside its box (rulepress/verify/labels.py), no mark over a label (rulepress/verify/overlaps.py).
    return labels.misfit(drawing) or overlaps.covered(drawing, book, lang)


def _active(root: ET.Element) -> str | None:
    """What in the diagram is scripted, embedded or fetched from outside (None when nothing is)."""
    for element in root.iter():
        tag = _local(element.tag)
        if tag in _ACTIVE:
            return f"holds <{tag}>: a diagram is drawn, not scripted or embedded"
        for name, value in element.attrib.items():
            if _local(name).lower().startswith("on"):
                return f"has an event handler ({_local(name)}=) on <{tag}>"
            if name in _LINK_ATTRIBUTES and not _inside(value):
                return f"links to {value.strip()!r} from <{tag}>: a diagram must be self-contained (no images, " \
                       f"fonts or files from outside; the build never goes online)"
            if name == "style" and (outside := _css_outside(value)):
                return f"style on <{tag}> refers to {outside!r}: a diagram must be self-contained"
        if tag == "style" and (outside := _css_outside(element.text or "")):
            return f"<style> refers to {outside!r}: a diagram must be self-contained"
    return None


def render(game: Any, state: Any, caption: str | None, seat: str | None, change: Change | None) -> str:
    """The game's diagram of ``state`` for ``seat``, given what the steps it illustrates changed (``change=``) when
    its ``render_svg`` takes it (rulepress.basegame's does); one that does not is asked without it, and
    :func:`unmarked` refuses what it draws."""
    given: dict[str, Any] = {"change": change} if change is not None and _takes_change(
        getattr(type(game), "render_svg", None)) else {}
    if seat is None:
        return str(game.render_svg(state, caption, **given))
    return str(game.render_svg(state, caption, seat, **given))


@cache
def _takes_change(method: Any) -> bool:
    """Whether a ``render_svg`` takes ``change=`` (asked of the function itself: a test may replace it)."""
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return "change" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


MARK_CLASS = "rp-mark"  # what every mark of a change carries (rulepress/marks.py)


def checked(svg: Any, change: Change | None, *, book: str = "", lang: str = "") -> str | None:
    """What is wrong with a diagram of ``change`` (:func:`problem`, then :func:`unmarked`), parsed once; ``book`` and
    ``lang``: the book and language it is drawn in."""
    if not isinstance(svg, str):
        return problem(svg)
    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return problem(svg)
    return problem(svg, root, book=book, lang=lang) or unmarked(svg, change, root)


def unmarked(svg: str, change: Change | None, root: ET.Element | None = None) -> str | None:
    """What the diagram of ``change`` fails to show, read back from its SVG: its moment (the ``<title>``, "After
    step 3"), and, when a step it illustrates changed the position or was refused, a mark of it (an element whose
    class is ``rp-mark``: an outline, a callout, an arrow, a struck-out arrow).  None when it shows both."""
    if change is None:
        return None
    if root is None:
        try:
            root = ET.fromstring(svg)
        except ET.ParseError as exc:
            return f"is not well-formed XML: {exc}"
    title = root.find(f"{SVG_NAMESPACE}title")
    said = " ".join((title.text or "").split()) if title is not None else ""
    steps = ", ".join(str(step.number) for step in change.steps)
    how = ("accept render_svg(..., change=) and draw what it says (rulepress.basegame.BaseGame does: `rulepress "
           "guide engine`, \"Diagrams that show the move\")")
    if said != " ".join(change.moment.split()):
        return (f"does not state its moment: its <title> should read {change.moment!r}, not {said!r}; {how}")
    if change and not any(MARK_CLASS in (element.get("class") or "").split() for element in root.iter()):
        return (f"marks nothing of what step{'s' if len(change.steps) > 1 else ''} {steps} changed or tried "
                f"({change.moment}): no element has class=\"{MARK_CLASS}\"; {how}")
    return None


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _inside(link: str) -> bool:
    """A link that stays in the diagram: a fragment (``#clip``) or an inline ``data:`` image."""
    text = link.strip()
    return text.startswith("#") or text.lower().startswith("data:image/")


def _css_outside(css: str) -> str | None:
    for pattern in (_CSS_URL, _CSS_IMPORT):
        for found in pattern.finditer(css):
            if not _inside(found.group(1)):
                return found.group(1).strip()
    return None


def drawn_by(game: Any, root: Path) -> str:
    """Where the game draws (see :func:`_drawn_by`), found once for the same two methods."""
    kind = type(game)
    return _drawn_by(getattr(kind, "render_svg", None), getattr(kind, "draw", None), root)


@cache
def _drawn_by(render_svg: Any, draw: Any, root: Path) -> str:
    """Where the game draws (``render_svg (engine/mini/__init__.py:88)``), for the message: ``render_svg``, or
    for a game on rulepress.basegame, whose ``render_svg`` is the pipeline's, its ``draw``."""
    for name, method in (("render_svg", render_svg), ("draw", draw)):
        try:
            path = Path(inspect.getsourcefile(method) or "").resolve()  # type: ignore[arg-type]
            line = inspect.getsourcelines(method)[1]  # type: ignore[arg-type]
        except (TypeError, OSError):
            continue
        if path.is_relative_to(root.resolve()):
            return f"{name} ({path.relative_to(root.resolve())}:{line})"
    return "render_svg"


def cover_art(book: Any) -> str:
    """The SVG a book's ``cover.art`` names (a file in its folder), checked as an engine's diagram is: plain,
    self-contained SVG, nothing scripted or fetched; with ``cover.alt``, the words saying what it shows.

    Raises SourceError at ``cover.art``'s line in book.yaml."""
    from rulepress.errors import SourceError
    from rulepress.load import confine
    from rulepress.load.yamlsrc import line_of

    cover = book.data.get("cover") or {}
    shown, line, name = book.path("book.yaml"), line_of(cover, "art"), str(cover.get("art"))
    if not cover.get("alt"):
        raise SourceError(shown, line, "cover.art needs cover.alt: the words saying what the artwork shows (the "
                                       "digital edition's readers hear them)")
    folder = book.root / "rules_src" / book.id  # the file must stay in the book's folder (no ../, no symlink out)
    try:
        text = confine.read_text(folder, Path(name), confine.shown(folder / name, book.root))
    except SourceError as exc:
        raise SourceError(shown, line, f"cover.art '{name}': {exc.message}") from exc
    found = problem(text)
    if found:
        raise SourceError(shown, line, f"cover.art '{name}' {found}")
    return text
