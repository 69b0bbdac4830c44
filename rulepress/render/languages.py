"""The editions in other languages, as the gate made them: each translated book is a :class:`BookCheck` of its
own (``BookCheck.translations``, rulepress/verify/translated.py), read here and never loaded again.

``translations(report)`` gives them per language, in the books' order: the site and every PDF job share them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulepress.verify.gate import BookCheck, Report


def source_language(report: Report) -> str:
    """The language of the site's root: the first book's source language (English unless it says otherwise)."""
    return str(report.books[0].book.data.get("language", "en")) if report.books else "en"


def translations(report: Report) -> dict[str, list[BookCheck]]:
    """Every translated book of ``report``, by language, in the books' order."""
    found: dict[str, list[BookCheck]] = {}
    for check in report.books:
        for lang, translated in check.translations.items():
            found.setdefault(lang, []).append(translated)
    return found


def untranslated(check: BookCheck) -> list[str]:
    """The items of a translated book that print the source's words (status "missing")."""
    return [key for key, status in check.book.status.items() if status == "missing"]


def pdf_name(book_id: str, lang: str | None) -> str:
    """``<book>`` for the source language, ``<book>-<lang>`` for a translation (before the edition's suffix)."""
    return book_id if lang is None else f"{book_id}-{lang}"
