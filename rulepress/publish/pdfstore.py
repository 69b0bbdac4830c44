"""A PDF's key (what its edition is made from), the date stamped into it, and keeping it in the store.

A PDF is kept under what its edition's HTML is made from (:func:`edition_inputs`), the layout it starts from, the
book's source folder (images the HTML may fetch), the date stamped into it and rulepress's own code (which holds
the template, fonts and profile); with it, its page count and layout (``.json``, written last: it marks the entry
whole).  Its preflight pass is kept beside the preflight (rulepress/publish/preflight.py).
"""

from __future__ import annotations

import json
import subprocess
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rulepress import environment
from rulepress.load.book import Book
from rulepress.store import Store, code_digest, declare, key_of, tree_digest, watched_digest

if TYPE_CHECKING:
    from rulepress.verify.gate import BookCheck

PDFS = declare("pdf", keep=60)  # about 1 MB each


@cache
def source_epoch(root: Path) -> int:
    """The date stamped into PDFs: ``$SOURCE_DATE_EPOCH``, else the project's last commit, else 1980-01-01.

    Never "now": two builds of the same sources must give the same bytes (reproducible-builds.org).
    """
    given = environment.source_date_epoch()
    if given is not None:
        return given
    try:
        done = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct"], capture_output=True,
                              text=True, timeout=10, check=False)
        if done.returncode == 0 and done.stdout.strip().isdigit():
            return int(done.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return 315532800


def edition_inputs(check: BookCheck, name: str, impact: Any) -> str:
    """What an edition's HTML is made from, hashed instead of the HTML itself (making the HTML of every edition
    to hash it costs this process seconds and tens of MB): as for the site, the book's sources (translations
    included), its examples and engine, the saved reports (the designer's analysis and impact), the impact
    passed in, the examples' statuses and rulepress's own code (the template, its strings, fonts, colours)."""
    book = check.book
    root = book.root
    return key_of(name, tree_digest(root / "rules_src" / book.id), tree_digest(root / "examples" / book.id),
                  watched_digest(book.root / "engine" / book.engine_package), tree_digest(root / "reports"),
                  json.dumps(impact, sort_keys=True, default=repr), " ".join(r.status for r in check.results))


def pdf_key(html_text: str, edition: str, settled: Any, book: Book, epoch: int) -> str:
    """``html_text``: the edition's HTML, or :func:`edition_inputs`."""
    from importlib.metadata import version  # not WeasyPrint itself: the build's process need not load it

    layout = json.dumps(settled.__dict__ if settled is not None else None, sort_keys=True)
    return key_of(code_digest(), version("weasyprint"), edition, html_text, layout,
                  tree_digest(book.root / "rules_src" / book.id), str(epoch))


def _meta(data: bytes) -> dict[str, Any]:
    meta = json.loads(data)
    layout = meta["layout"]
    if not (isinstance(meta["pages"], int) and isinstance(layout["gutter_mm"], int | float)
            and isinstance(layout["index_pages"], dict)):
        raise TypeError("not a PDF's page count and layout")
    return dict(meta)


def get_pdf(store: Store, key: str) -> tuple[bytes, dict[str, Any]] | None:
    """A kept PDF and its page count and layout, both checked, or None."""
    meta = store.load(PDFS, key, _meta, ".json")
    if meta is None:
        return None
    data = store.get(PDFS, key, ".pdf")
    return None if data is None else (data, meta)


def put_pdf(store: Store, key: str, pdf: Path, meta: dict[str, Any]) -> None:
    store.put(PDFS, key, pdf.read_bytes(), ".pdf")
    store.put(PDFS, key, json.dumps(meta, sort_keys=True).encode(), ".json")  # last: it marks the entry whole
