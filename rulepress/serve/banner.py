"""Each problem on the page it concerns, as a banner above the last good page.

A problem names its file (``examples/<book>/<id>.yaml``, ``rules_src/<book>/...``, ``engine/<package>/...``);
that file decides the page: an example's page, a chapter's page, the glossary, the designer pages.  A problem
no single page shows (``book.yaml``, an engine, a template) is on every page of its book, and one that belongs
to no book on every page.  The other pages of a book with problems say how many there are and where.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Mapping

_PLACE = re.compile(r"(?P<path>(?:examples|rules_src|engine)/[\w.-]+/[\w./-]*[\w-])")
_SOURCE_PAGES = {"glossary.yaml": "glossary.html", "questions.yaml": "designer/questions.html",
                 "changelog.yaml": "designer/changelog.html"}


def pages_of(problem: str, book: str | None, chapters: Mapping[str, str], engines: Mapping[str, str]) -> list[str]:
    """The site pages (relative to the site root) ``problem`` of ``book`` concerns; ``["*"]`` means all of them.

    ``chapters`` maps a chapter's source file to its page, ``engines`` an engine package to its book.
    """
    found = _PLACE.search(problem)
    if found is None:
        return [f"{book}/*"] if book else ["*"]
    parts = found.group("path").split("/")
    top, owner = parts[0], parts[1]
    if top == "engine":
        return [f"{engines.get(owner, book)}/*"] if engines.get(owner, book) else ["*"]
    if top == "examples" and parts[-1].endswith(".yaml"):
        return [f"{owner}/examples/{parts[-1].removesuffix('.yaml')}.html"]
    source = "/".join(parts)
    if source in chapters:
        return [chapters[source]]
    if len(parts) == 3 and parts[2] in _SOURCE_PAGES:
        return [f"{owner}/{_SOURCE_PAGES[parts[2]]}"]
    return [f"{owner}/*"]


def concerns(pattern: str, page: str) -> bool:
    return pattern == "*" or pattern == page or (pattern.endswith("/*") and page.startswith(pattern[:-1]))


def banner_html(page: str, placed: list[tuple[str, list[str]]]) -> str:
    """The banner for ``page``: every problem placed on it in full, and a pointer to those of its book placed on
    other pages.  ``placed`` pairs each problem with the pages it concerns.  Empty when the page has none."""
    mine = [problem for problem, pages in placed if any(concerns(p, page) for p in pages)]
    book = page.split("/", 1)[0] + "/" if "/" in page else None
    elsewhere = sorted({p for problem, pages in placed if problem not in mine for p in pages
                        if book and p.startswith(book) and not p.endswith("*")})
    if not mine and not elsewhere:
        return ""
    here = posixpath.dirname(page)
    items = "".join(f'<li><pre style="white-space:pre-wrap;margin:0;font:inherit">{html.escape(p)}</pre></li>'
                    for p in mine)
    links = "".join(f'<li><a style="color:inherit" href="{html.escape(posixpath.relpath(p, here or "."))}">'
                    f"{html.escape(p)}</a></li>" for p in elsewhere)
    text = (f"<strong>rulepress: {len(mine)} problem(s) on this page; what you see is the last good build."
            f"</strong><ul>{items}</ul>" if mine else "")
    if links:
        text += f"<strong>Problems on other pages of this book:</strong><ul>{links}</ul>"
    return ('<div id="rulepress-problems" role="alert" style="position:relative;z-index:10;margin:0;'
            "padding:.8em 1.2em;background:#fde8e8;color:#7a0b0b;border-bottom:3px solid #b3261e;"
            f'font:14px/1.45 monospace">{text}</div>')


_BODY = re.compile(rb"<body[^>]*>", re.IGNORECASE)


def inject(content: bytes, banner: str) -> bytes:
    """``content`` with ``banner`` right after its ``<body>`` tag (or first, when it has none)."""
    if not banner:
        return content
    found = _BODY.search(content)
    at = found.end() if found else 0
    return content[:at] + banner.encode() + content[at:]
