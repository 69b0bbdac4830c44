"""A verified book in its other languages: each translation as a :class:`~rulepress.verify.gate.BookCheck` the
renderers already know, made once, here, where every other source is loaded and checked.

A translated check has the translation's :class:`~rulepress.load.book.Book` (translated words over the source's
rule IDs, numbers and components, see rulepress/load/translations.py) and one :class:`ExampleResult` per source
result: the same replay (checkpoints, snapshots, transcript, diagrams) with the translation's title, captions and
prose, the prose rendered over that one replay, so every language prints the same numbers.  A bad translation file,
or a translated text whose template does not render over the replay, is a problem of ``rulepress verify`` at its
file and line, never a surprise of the renderers, which only read what the gate handed them
(``BookCheck.translations``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from rulepress.errors import SourceError
from rulepress.load.problems import Collector, lines_of
from rulepress.load.translations import TranslatedExample, languages, load_translation_details, translate_examples
from rulepress.verify.replay import ExampleResult, render_prose

if TYPE_CHECKING:
    from rulepress.verify.gate import BookCheck


def translate(check: BookCheck) -> list[str]:
    """Every translation ``check``'s book declares, checked and made into ``check.translations`` (by language, in
    book.yaml's order); returns each problem of those that fail, one line each (they are left out)."""
    problems: list[str] = []
    check.translations = {}
    for lang in languages(check.book)[1]:
        try:
            check.translations[lang] = translated_check(check, lang)
        except SourceError as exc:
            problems.extend(lines_of(exc))
    return problems


def translated_check(check: BookCheck, lang: str) -> BookCheck:
    """``check`` in language ``lang``: the translated book, and its results over the source's replays; raises
    SourceError(s) for a bad translation file or a translated text that does not render."""
    from rulepress.verify.gate import BookCheck

    book, details = load_translation_details(check.book, lang)
    examples = translate_examples(check.examples, book)
    by_id = {example.id: example for example in examples}
    found = Collector()
    results = []
    for result in check.results:
        example = by_id.get(result.example.id)
        with found.collecting():
            results.append(translated_result(result, example) if example is not None else result)
    found.raise_if_any()
    return BookCheck(book, check.engine, list(examples), results, check.trace, inputs=check.inputs,
                     figures=check.figures,
                     translation=details, cover_art=check.cover_art)  # the artwork itself is the source's


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
                               text=_prose(example, result))


def _prose(example: TranslatedExample, result: ExampleResult) -> str:
    """The translated text rendered over the source's replay (the context replay.py gives the source's text)."""
    if not example.text or example.status == "missing":
        return result.text
    return render_prose(example, result)
