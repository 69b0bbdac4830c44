"""The player edition speaks to players: no rule IDs, engine notation, solver output or source notes.

``check_player_text(text, book, where)`` reads the Markdown or HTML of one player page and returns one message
per offending passage, naming the file, the line and what was found. Links, anchors and attributes are not
text (a rule ID in ``href="#lm.turn.light"`` is fine); image descriptions (``alt``) are.  Each engine adds
its own notation through ``EngineSpec.notation`` (a name -> regex mapping).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import lxml.html

from rulepress.load.book import Book

# Notation no engine may leak into a player page, whatever the game.
GENERIC: dict[str, str] = {
    "solver output": r"\bSolver:",
    "source note": r"\bfrom the rulebook \(",
    "list in brackets": r"\[\d+(?:, \d+)+\]",  # Python's [1, 2, 3]
    "example step": r"\b(?:do|player|tile|card): [a-z0-9-]+,",  # do: light, tile: b2
    "engine name": r"\b[a-z]+_[a-z0-9_]+\b",  # dusk_in_refill
}

# Markdown that is not text: link targets, attribute lists, HTML tags (their alt= text is kept).
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
_ATTR_LIST = re.compile(r"\{[:#.][^}]*\}")
_ALT = re.compile(r"""\b(?:alt|title|aria-label)=(?:"([^"]*)"|'([^']*)')""")
_TAG = re.compile(r"<[^>]*>")
_SKIP = {"script", "style"}


@cache
def _patterns(prefix: str, engine: str, root: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    from pathlib import Path

    from rulepress.verify.engines import load_engine

    found = {"rule ID": rf"\b{re.escape(prefix)}\.[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\b", **GENERIC}
    found.update(load_engine(engine, Path(root)).notation)
    return tuple((name, re.compile(pattern)) for name, pattern in found.items())


def patterns(book: Book) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """What the player edition of ``book`` must not contain, by name."""
    return _patterns(book.prefix, book.engine_package, str(book.root))


# A credit cites an outside source verbatim (its title, path and address): it is not our notation.
_CREDIT = "credit"


def _markdown_lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(f'<p class="{_CREDIT}">'):
            continue
        alts = " ".join(a or b for a, b in _ALT.findall(line))
        line = _TAG.sub(" ", _ATTR_LIST.sub("", _LINK_TARGET.sub("]", line)))
        yield number, f"{line} {alts}".strip()


def _is_credit(element: Any) -> bool:
    return isinstance(element.tag, str) and _CREDIT in (element.get("class") or "").split()


def _html_lines(text: str) -> Iterator[tuple[int, str]]:
    root = lxml.html.document_fromstring(text)
    # Each credit and everything inside it, found once (not by walking up from every element of the page).
    credited = {node for credit in root.iter() if _is_credit(credit) for node in credit.iter()}
    for element in root.iter():
        if not isinstance(element.tag, str) or element.tag in _SKIP:
            tail = element.tail
            if tail and tail.strip():
                yield element.sourceline or 0, tail
            continue
        line = element.sourceline or 0
        if element in credited:
            if _is_credit(element) and element.tail and element.tail.strip():
                yield line, element.tail
            continue
        for name in ("alt", "title", "aria-label"):
            if element.get(name):
                yield line, element.get(name)
        for piece in (element.text, element.tail):
            if piece and piece.strip():
                yield line, piece


# French typography (render/typography.py) puts no-break spaces before ": ; ! ?" and inside « », and the PDFs
# tie "rule 4.4" and mark break points with soft hyphens: undone before matching, so that
# "do\u00a0: light, tile\u00a0: b2," in a French page is still the notation "do: light, tile: b2,".
_TYPOGRAPHY = re.compile("[\u00a0\u202f]+(?=[;:!?»])|(?<=«)[\u00a0\u202f]+")


def _untypeset(line: str) -> str:
    # Soft hyphens (the PDFs' break points) go too: "ex\u00adhaust\u00aded" is still the word it hides.
    return _TYPOGRAPHY.sub("", line).replace("\u00a0", " ").replace("\u202f", " ").replace("\u00ad", "")


def check_player_text(text: str, book: Book, where: str = "") -> list[str]:
    """Every rule ID or piece of engine notation in a player page's visible text, one message each.

    ``text`` is Markdown, an HTML document (a leading ``<!doctype``/``<html``) or an SVG diagram (``<svg``,
    ``<?xml``); ``where`` names the file for the messages.
    """
    head = text.lstrip()[:15].lower()
    if head.startswith(("<svg", "<?xml")):  # a diagram: its text elements are read like a page's
        text = "<!DOCTYPE html><html><body>" + re.sub(r"^\s*<\?xml[^>]*\?>", "", text) + "</body></html>"
        head = "<!doctype"
    lines = _html_lines(text) if head.startswith(("<!doctype", "<html")) else _markdown_lines(text)
    problems = []
    for number, line in lines:
        line = _untypeset(line)
        taken: list[tuple[int, int]] = []  # one message per passage, from the first pattern that finds it
        found: list[tuple[int, str]] = []
        for name, pattern in patterns(book):
            for match in pattern.finditer(line):
                if any(match.start() < end and start < match.end() for start, end in taken):
                    continue
                taken.append(match.span())
                start, end = max(0, match.start() - 30), min(len(line), match.end() + 30)
                context = " ".join(line[start:end].split())
                found.append((match.start(), f"{where or book.id}:{number}: {name} '{match.group(0)}' in the player "
                                             f"edition of {book.title} (…{context}…); it belongs in the designer "
                                             "edition"))
        problems += [message for _, message in sorted(found)]  # in reading order
    return problems
