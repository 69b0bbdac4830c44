"""Preflight: read the staged PDFs back and check what a printer (or a screen reader) would refuse.

``preflight_staged`` runs on the staging folder right before the swap; ``preflight_pdf`` checks one PDF
and is what ``rulepress preflight`` runs.  Each finding names the file, the page and the PDF object.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pikepdf

from rulepress.render import markdown as render
from rulepress.store import Store, code_digest, declare, key_of
from rulepress.verify.gate import Report

EDITIONS = ("print", "digital", "designer")
PASSES = declare("preflight", keep=200)  # a PDF's read-back that passed, kept under its bytes and edition
_PASSED: set[str] = set()  # preflight keys passed in this process, kept even with the cache off (see below)


@dataclass(frozen=True)
class Finding:
    file: str
    page: int | None  # 1-based; None for the document as a whole
    object: str  # what in the PDF: "/OutputIntents", "font DejaVuSans", "Im0 in page content"...
    message: str

    def __str__(self) -> str:
        where = self.file + (f", page {self.page}" if self.page else "")
        return f"{where}: {self.object}: {self.message}"


def edition_of(path: Path) -> str:
    """The edition a PDF's file name says it is: ``<book>-digital.pdf``, ``<book>-designer.pdf`` or print."""
    stem = path.stem
    for edition in ("digital", "designer"):
        if stem.endswith(f"-{edition}"):
            return edition
    return "print"


def preflight_pdf(path: Path, edition: str | None = None) -> list[Finding]:
    """Every problem found in one PDF; ``edition`` defaults to the one its file name says."""
    from rulepress.publish import pdfchecks

    edition = edition or edition_of(path)
    if edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r} (known: {', '.join(EDITIONS)})")
    try:
        pdf = pikepdf.open(path)
    except (pikepdf.PdfError, OSError) as exc:
        return [Finding(str(path), None, "file", f"cannot be read as a PDF: {exc}")]
    with pdf:
        return pdfchecks.check(pdf, str(path), edition)


def preflight_key(data: bytes, edition: str) -> str:
    return key_of(code_digest(), edition, hashlib.sha256(data).hexdigest())


def preflight_passed(key: str, store: Store) -> None:
    """Remember that the PDF of ``key`` passed: a build's PDF workers preflight each PDF as soon as it is made
    (in parallel), and the build's own check of the staged PDFs then finds it here instead of reading it again."""
    _PASSED.add(key)
    store.put(PASSES, key, b"passed")


def cached_preflight(path: Path, root: Path, store: Store | None = None) -> list[Any]:
    """:func:`preflight_pdf` (reading every page back: seconds a PDF), skipped for the same bytes of the same
    edition that passed before.  Findings are never kept: they name the staged file."""
    edition = edition_of(path)
    return cached_read_back(path, root, edition, lambda: preflight_pdf(path, edition), store)


def cached_read_back(path: Path, root: Path, label: str, check: Callable[[], list[Any]],
                     store: Store | None = None) -> list[Any]:
    """``check()`` of the PDF at ``path`` (a read-back named ``label``: the edition's preflight, a translation's
    English-left check), skipped for the same bytes that passed it before, in this process or on disk."""
    store = store or Store(root)
    key = preflight_key(path.read_bytes(), label)
    if key in _PASSED or store.get(PASSES, key) == b"passed":
        return []
    findings = check()
    if not findings:
        preflight_passed(key, store)
    return findings


def preflight_staged(staging: Path, report: Report) -> list[str]:
    """Problems in a staged build (every edition of every book, every diagram), one line each."""
    problems: list[str] = []
    for check in report.books:
        book_id = check.book.id
        for result in check.results:
            for name, checkpoint in result.checkpoints.items():
                if checkpoint.svg is None:
                    continue
                diagram = staging / book_id / "diagrams" / render.diagram_name(result.example.id, name)
                if not diagram.is_file():
                    problems.append(f"{diagram.relative_to(staging)}: diagram missing (example "
                                    f"{result.example.id}, checkpoint '{name}')")
        for suffix in ("", "-digital", "-designer"):
            target = staging / "pdf" / f"{book_id}{suffix}.pdf"
            if not target.is_file():
                problems.append(f"{target.relative_to(staging)}: PDF missing")
                continue
            problems += [str(f) for f in cached_preflight(target, check.book.root)]  # a pass is kept
    return problems + _translated_problems(staging, report)


def _english_left_once(target: Path, lang: str, root: Path) -> list[object]:
    """:func:`~rulepress.publish.pdfchecks.english_left`, skipped for the same bytes that passed it before (a
    rebuild whose French PDFs came from the cache reads nothing back)."""
    from rulepress.publish.pdfchecks import english_left

    return list(cached_read_back(target, root, f"english-left-{lang}", lambda: list(english_left(str(target), lang))))


def _translated_problems(staging: Path, report: Report) -> list[str]:
    """Each translation's editions pass the same preflight as the source's; the player editions of a complete
    translation are read back for English fixed words too."""
    from rulepress.render.languages import pdf_name, translations, untranslated

    problems: list[str] = []
    for lang, checks in translations(report).items():
        for check in checks:
            for suffix in ("", "-digital", "-designer"):
                target = staging / "pdf" / f"{pdf_name(check.book.id, lang)}{suffix}.pdf"
                if not target.is_file():
                    problems.append(f"{target.relative_to(staging)}: PDF missing")
                    continue
                problems += [str(f) for f in cached_preflight(target, check.book.root)]
                if suffix != "-designer" and not untranslated(check):
                    problems += [str(f) for f in _english_left_once(target, lang, check.book.root)]
    return problems
