"""Preflight: read the staged PDFs back and check what a printer, a screen reader or an editor would refuse.

``preflight_staged`` runs on the staging folder right before the swap; ``preflight_pdf`` checks one PDF
and is what ``rulepress preflight`` runs.  Each finding names the file, the page and the PDF object.  A PDF is
read once (``pdfread``) for all the checks of its edition: the press and screen ones (``pdfchecks``) and what its
pages promise a reader (``pagechecks``); the print and digital editions of a book are then held to each other.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pikepdf

from rulepress.render import markdown as render
from rulepress.store import Store, code_digest, declare, key_of
from rulepress.verify.gate import Report

if TYPE_CHECKING:
    from rulepress.load.book import Book
    from rulepress.publish.pagechecks import Placement

EDITIONS = ("print", "digital", "designer")
SUFFIX = {"print": "", "digital": "-digital", "designer": "-designer"}
PASSES = declare("preflight", keep=200)  # a PDF's read-back that passed, kept under its bytes and its label
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


def label(edition: str, book: Book | None = None, lang: str | None = None) -> str:
    """What a preflight pass of a PDF is kept under besides its bytes: its edition, the language its fixed words
    are held to and, for a player's edition, the marks it must not print (an engine's notation lives outside
    rulepress's code, which every key holds)."""
    from rulepress.publish.pagechecks import player_marks_for

    marks = "".join(mark.pattern.pattern for mark in player_marks_for(book)) if edition != "designer" else ""
    return f"{edition}|{lang or ''}|{hashlib.sha256(marks.encode()).hexdigest()[:16]}"


def preflight_pdf(path: Path, edition: str | None = None, book: Book | None = None,
                  lang: str | None = None) -> list[Finding]:
    """Every problem found in one PDF; ``edition`` defaults to the one its file name says.  ``book``: the book it
    is an edition of (its rule IDs and engine notation are looked for in a player's edition; without it, any
    book's rule IDs); ``lang``: a complete translation's language, whose pages must show no English fixed word."""
    return preflight_read(path, edition, book, lang)[0]


def preflight_read(path: Path, edition: str | None = None, book: Book | None = None, lang: str | None = None,
                   data: bytes | None = None) -> tuple[list[Finding], Placement | None]:
    """:func:`preflight_pdf`, from one read of the file (its ``data`` when read already), and where a player's
    edition places its objects, for :func:`~rulepress.publish.pagechecks.register` against its other edition."""
    from rulepress.publish import pagechecks, pdfchecks, pdfread

    edition = edition or edition_of(path)
    if edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r} (known: {', '.join(EDITIONS)})")
    try:
        read = pdfread.read(path, edition, colours=edition in ("print", "digital"), data=data)
    except (pikepdf.PdfError, OSError) as exc:
        return [Finding(str(path), None, "file", f"cannot be read as a PDF: {exc}")], None
    with read:
        findings = pdfchecks.check(read) + pagechecks.check(read, book)
        if lang is not None:
            findings += pdfchecks.english_left(read, lang)
        return findings, pagechecks.placement(read) if edition != "designer" else None


_PLACED: dict[str, Placement] = {}  # a PDF's SHA-256 -> its placement, sent by the worker that read it


def placed(digest: str, placement: Placement) -> None:
    """Keep the placement a build's PDF worker read (its preflight's read): the register check of the staged
    editions then reads neither file again."""
    _PLACED[digest] = placement


def _placement(path: Path, data: bytes) -> Placement:
    from rulepress.publish import pagechecks, pdfread

    kept = _PLACED.get(hashlib.sha256(data).hexdigest())
    if kept is not None:
        return kept
    with pdfread.read(path, edition_of(path), data=data) as read:
        return pagechecks.placement(read)


def preflight_key(data: bytes, label: str) -> str:
    return key_of(code_digest(), label, hashlib.sha256(data).hexdigest())


def preflight_passed(key: str, store: Store) -> None:
    """Remember that the PDF of ``key`` passed: a build's PDF workers preflight each PDF as soon as it is made
    (in parallel), and the build's own check of the staged PDFs then finds it here instead of reading it again."""
    _PASSED.add(key)
    store.put(PASSES, key, b"passed")


def cached_preflight(path: Path, root: Path, store: Store | None = None, book: Book | None = None,
                     lang: str | None = None) -> list[Any]:
    """:func:`preflight_pdf` (reading every page back), skipped for the same bytes of the same edition, held to
    the same language and marks, that passed before.  Findings are never kept: they name the staged file."""
    edition = edition_of(path)
    return cached_read_back(path, root, label(edition, book, lang), lambda: preflight_pdf(path, edition, book, lang),
                            store)


def cached_read_back(path: Path, root: Path, label: str, check: Callable[[], list[Any]],
                     store: Store | None = None, data: bytes | None = None) -> list[Any]:
    """``check()`` of the PDF at ``path`` (a read-back named ``label``: the edition's preflight, the register of
    two editions, whose bytes together are ``data``), skipped for the same bytes that passed it before, in this
    process or on disk."""
    store = store or Store(root)
    key = preflight_key(path.read_bytes() if data is None else data, label)
    if key in _PASSED or store.get(PASSES, key) == b"passed":
        return []
    findings = check()
    if not findings:
        preflight_passed(key, store)
    return findings


def register_checked(press: Path, screen: Path, root: Path) -> list[Finding]:
    """The print edition at ``press`` in register with the digital one at ``screen``; a pass of the same two files
    is kept (a rebuild whose PDFs came from the cache reads nothing)."""
    from rulepress.publish.pagechecks import register

    one, other = press.read_bytes(), screen.read_bytes()
    return list(cached_read_back(press, root, "register", lambda: register(_placement(press, one),
                                                                            _placement(screen, other), str(press)),
                                 data=one + other))


def preflight_staged(staging: Path, report: Report) -> list[str]:
    """Problems in a staged build (every edition of every book, every diagram), one line each."""
    from rulepress.render.languages import pdf_name, translations, untranslated

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
    books = [(check, None) for check in report.books]
    books += [(check, lang) for lang, checks in translations(report).items() for check in checks]
    for check, lang in books:
        complete = lang is not None and not untranslated(check)
        missing = False
        for edition in EDITIONS:
            target = staging / "pdf" / f"{pdf_name(check.book.id, lang)}{SUFFIX[edition]}.pdf"
            if not target.is_file():
                problems.append(f"{target.relative_to(staging)}: PDF missing")
                missing = True
                continue
            held = lang if complete and edition != "designer" else None  # the designer's parts are English
            shown = _published(target, staging, edition, check.book.id, lang)
            problems += [str(replace(f, file=shown))
                         for f in cached_preflight(target, check.book.root, book=check.book, lang=held)]
        if not missing:
            press = staging / "pdf" / f"{pdf_name(check.book.id, lang)}.pdf"
            shown = _published(press, staging, "print", check.book.id, lang)
            problems += [str(replace(f, file=shown)) for f in register_checked(
                press, press.with_name(f"{press.stem}-digital.pdf"), check.book.root)]
    return problems


def _published(target: Path, staging: Path, edition: str, book_id: str, lang: str | None) -> str:
    """A staged PDF as its reader will know it (the staging folder is gone once the build is refused):
    ``pdf/mini.pdf (the print edition of mini, in fr)``."""
    language = f", in {lang}" if lang else ""
    return f"{target.relative_to(staging).as_posix()} (the {edition} edition of {book_id}{language})"
