"""The editions in other languages: each translated book as a :class:`BookCheck` the renderers already know.

A translated check has the translation's :class:`Book` (translated words over the source's rule IDs, numbers
and components, see rulepress/load/translations.py) and one :class:`ExampleResult` per source result: the same
replay (checkpoints, snapshots, transcript, diagrams) with the translation's title, captions and prose, the prose
rendered over that one replay, so every language prints the same numbers.

``translations(report)`` gives them per language, once per report: the site and every PDF job share them.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import TYPE_CHECKING

from rulepress.load.translations import TranslatedExample, languages, load_translation, translate_examples
from rulepress.verify.replay import ExampleResult, render_prose

if TYPE_CHECKING:
    from rulepress.verify.gate import BookCheck, Report

_KEPT: dict[int, tuple[weakref.ref[Report], dict[str, list[BookCheck]]]] = {}


def source_language(report: Report) -> str:
    """The language of the site's root: the first book's source language (English unless it says otherwise)."""
    return languages(report.books[0].book)[0] if report.books else "en"


def translations(report: Report) -> dict[str, list[BookCheck]]:
    """Every translated book of ``report``, by language, in the books' order; raises SourceError(s) for a bad
    translation file. Computed once per report (the site and each PDF edition ask for it)."""
    kept = _KEPT.get(id(report))
    if kept is not None and kept[0]() is report:
        return kept[1]
    found: dict[str, list[BookCheck]] = {}
    for check in report.books:
        for lang in languages(check.book)[1]:
            found.setdefault(lang, []).append(translated_check(check, lang))
    key = id(report)
    _KEPT[key] = (weakref.ref(report, lambda _: _KEPT.pop(key, None)), found)  # forgotten with the report
    return found


_TRANSLATED: dict[tuple[int, str], tuple[weakref.ref[BookCheck], BookCheck]] = {}


def translated_check(check: BookCheck, lang: str) -> BookCheck:
    """``check`` in language ``lang``: the translated book, and its results over the source's replays.  Made once
    per check (a serve session keeps the checks of the books a save did not reach, and renders them again)."""
    kept = _TRANSLATED.get((id(check), lang))
    if kept is not None and kept[0]() is check:
        return kept[1]
    made = _translated_check(check, lang)
    key = (id(check), lang)
    _TRANSLATED[key] = (weakref.ref(check, lambda _: _TRANSLATED.pop(key, None)), made)  # forgotten with it
    return made


def _translated_check(check: BookCheck, lang: str) -> BookCheck:
    from rulepress.verify.gate import BookCheck

    book = load_translation(check.book, lang)
    examples = translate_examples(check.examples, book)
    by_id = {example.id: example for example in examples}
    results = [translated_result(result, by_id[result.example.id]) if result.example.id in by_id else result
               for result in check.results]
    return BookCheck(book, check.engine, list(examples), results, check.trace, figures=check.figures)


def translated_result(result: ExampleResult, example: TranslatedExample) -> ExampleResult:
    """The source's replay with the translation's words: title, captions, the prose over the same replay, and
    the engine's narration and drawings in the language (the replay made them in each of the book's languages;
    the source's where the engine has no catalog for it)."""
    lang = example.language
    checkpoints = {name: dataclasses.replace(checkpoint, caption=example.caption(name, checkpoint.caption),
                                             svg=checkpoint.svgs.get(lang, checkpoint.svg),
                                             moment=checkpoint.moments.get(lang, checkpoint.moment))
                   for name, checkpoint in result.checkpoints.items()}
    transcript = [dataclasses.replace(line, narration=line.narrations.get(lang, line.narration))
                  for line in result.transcript]
    return dataclasses.replace(result, example=example, checkpoints=checkpoints, transcript=transcript,
                               text=prose(example, result))


def prose(example: TranslatedExample, result: ExampleResult) -> str:
    """The translated text rendered over the source's replay (the context replay.py gives the source's text)."""
    if not example.text or example.status == "missing":
        return result.text
    return render_prose(example, result)


def untranslated(check: BookCheck) -> list[str]:
    """The items of a translated book that print the source's words (status "missing")."""
    return [key for key, status in check.book.status.items() if status == "missing"]


def pdf_name(book_id: str, lang: str | None) -> str:
    """``<book>`` for the source language, ``<book>-<lang>`` for a translation (before the edition's suffix)."""
    return book_id if lang is None else f"{book_id}-{lang}"

