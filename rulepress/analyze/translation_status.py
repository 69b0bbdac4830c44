"""``rulepress translations BOOK``: which translated items are missing or stale, with the source's word diff since
the version each translates; ``--mark`` records that a translation has caught up (docs/TRANSLATIONS.md)."""

from __future__ import annotations

import argparse
import difflib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from rulepress.analyze.diff import word_diff
from rulepress.analyze.gitrev import RevisionError, _git
from rulepress.errors import SourceError
from rulepress.load import confine, orphans
from rulepress.load.book import Book, load_book
from rulepress.load.examples import Example, collect_examples
from rulepress.load.problems import Collector, lines_of
from rulepress.load.translation_terms import source_place
from rulepress.load.translations import (
    Translation,
    item_text,
    languages,
    load_translation_details,
    marked_sources,
    source_items,
    text_hash,
    translate_examples,
    translation_folder,
)
from rulepress.store import cached_data, declare, key_of

if TYPE_CHECKING:
    from rulepress.verify.gate import BookCheck

FINDINGS = declare("translation-findings", keep=200)  # a book's translations' gate findings, kept under its check
MAX_COMMITS = 200  # how far back a recorded source version is looked for (a translation older than that is rare)
UNRECORDED = "no source version recorded in sources.yaml: check each against the source, then mark it"
MAX_WARNINGS = 20  # per language in the gate: the full list is `rulepress translations`' job


@dataclass
class Item:
    """One translatable item whose translation is not current."""

    lang: str
    key: str
    status: str  # missing or stale
    label: str  # what a reader calls it: "rule 3.2 ll.fog.draw (Draw)", "example 'Taking the last stone'"
    file: str  # the source's file and line
    line: int | None
    translation: str  # where the translation is (or goes)
    diff: str | None = None  # the source's word diff since the recorded version (stale items)
    note: str = ""


@dataclass
class Status:
    lang: str
    items: list[Item]
    current: int
    translation: Translation


def translation_status(book: Book, examples: list[Example], lang: str, *, diffs: bool = True,
                       loaded: tuple[Book, Translation] | None = None) -> Status:
    """Every item of ``book`` not current in ``lang``; with ``diffs``, the source's diff of each stale one.
    ``loaded``: the translated book and what its files recorded, as the gate loaded them (else they are loaded
    here). Raises SourceError(s) when the translation's files are bad."""
    if loaded is None:
        translated, info = load_translation_details(book, lang)
        found = Collector()
        with found.collecting():
            translate_examples(examples, translated)  # sets the examples' status
        found.raise_if_any()
    else:
        translated, info = loaded
    texts = source_items(book, examples)
    items = []
    history = History(book.root) if diffs else None
    for key, state in translated.status.items():
        if state != "current" and key.startswith("term:"):
            items.append(_term_item(book, info, lang, key))
            continue
        if state == "current" or key not in texts:
            continue
        text, file, line = texts[key]
        where = info.places.get(key, (_translation_place(book, key, lang, file), None))
        item = Item(lang, key, state, _label(book, examples, key), file, line,
                    where[0] + (f":{where[1]}" if where[1] else ""))
        if state == "stale":
            recorded = info.sources.get(key)
            if recorded is None:
                item.note = UNRECORDED
            elif history is not None:
                old = history.recorded_text(file, key, recorded)
                item.diff = word_diff(old, text) if old is not None else None
                if old is None:
                    item.note = (f"the source version {recorded} was not found in the last {MAX_COMMITS} commits "
                                 f"of {file}: compare the translation with the source as it is now")
        items.append(item)
    current = sum(1 for state in translated.status.values() if state == "current")
    return Status(lang, items, current, info)


def _term_item(book: Book, info: Translation, lang: str, key: str) -> Item:
    """A word of the component data printed untranslated: the source is its place in components.yaml, the
    translation where a text prints it."""
    word = key.partition(":")[2]
    printed = [f"{file}:{line}" if line else file for file, line in info.terms.printed.get(word, [])]
    return Item(lang, key, "missing", f"data word '{word}'", book.path("components.yaml"),
                source_place(book.components, word), printed[0] if printed else info.terms.file,
                note=f"printed with the source's word ({', '.join(printed)}): give its display word in "
                     f"{info.terms.file} ('{word}: …')")


def _translation_place(book: Book, key: str, lang: str, source_file: str) -> str:
    kind, _, name = key.partition(":")
    if kind == "example":
        return f"examples/{book.id}/{lang}/{name}.yaml"
    base = book.path(lang)
    if kind == "rule":
        return f"{base}/chapters/{Path(source_file).name}"
    return f"{base}/" + {"glossary": "glossary.yaml", "question": "questions.yaml"}.get(kind, "book.yaml")


def _label(book: Book, examples: list[Example], key: str) -> str:
    kind, _, name = key.partition(":")
    if kind == "rule" and name in book.rules:
        rule = book.rules[name]
        return f"rule {rule.number} {name} ({rule.title})"
    if kind == "example":
        titles = {example.id: example.title for example in examples}
        return f"example {name} ({titles.get(name, '?')})"
    if kind == "glossary":
        return f"glossary term '{name}'"
    if kind == "question":
        return f"designer question {name}"
    return {"book:title": "the book's title", "book:subtitle": "the book's subtitle"}.get(key, "the cover's text")


class History:
    """A source file's earlier texts from git, each revision read once per command (commits never change)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.logs: dict[str, list[str]] = {}
        self.texts: dict[tuple[str, str], str | None] = {}

    def revisions(self, file: str) -> list[str]:
        """HEAD, the index, then each commit that touched ``file``, newest first (none outside git)."""
        if file not in self.logs:
            try:
                log = _git(self.root, "log", f"-n{MAX_COMMITS}", "--format=%H", "--", file).decode().split()
            except RevisionError:
                log = []
            self.logs[file] = ["HEAD", "", *log] if log else []
        return self.logs[file]

    def text(self, revision: str, file: str) -> str | None:
        if (revision, file) not in self.texts:
            try:
                data = _git(self.root, "show", f"{revision}:./{file}")
                text = confine.decode(data, file) if len(data) <= confine.MAX_SOURCE_BYTES else None
            except (RevisionError, SourceError):
                text = None
            self.texts[revision, file] = text
        return self.texts[revision, file]

    def recorded_text(self, file: str, key: str, wanted: str) -> str | None:
        """The source text of ``key`` whose hash is ``wanted``, or None when no revision has it."""
        for revision in self.revisions(file):
            text = self.text(revision, file)
            if text is None:
                continue
            try:
                item = item_text(key, text, f"{file}@{revision or 'index'}")
            except SourceError:  # that version did not parse: it cannot be the one translated
                continue
            if item is not None and text_hash(item) == wanted:
                return item
        return None


# -- the gate --------------------------------------------------------------------------------------------------

def gate_findings(check: BookCheck) -> tuple[list[str], list[str]]:
    """Errors (a translation folder book.yaml does not declare, the source language declared as a translation) and
    warnings (missing or stale items) for ``rulepress verify`` and the build; ``--strict`` turns the warnings into
    errors.  The translations are the gate's (``check.translations``): a bad translation file is its problem, at
    its line, and the translation is not here."""
    book, examples = check.book, check.examples
    source, declared = languages(book)
    errors = [str(problem) for problem in orphans.undeclared_translations(book.root, book.id, declared)]
    warnings: list[str] = []
    if source in (book.data.get("translations") or []):
        errors.append(f"{book.path('book.yaml')}: '{source}' is the book's source language, not a translation "
                      "(remove it from 'translations')")
    for lang, translated in check.translations.items():
        assert translated.translation is not None
        try:
            status = translation_status(book, examples, lang, diffs=False,
                                        loaded=(translated.book, translated.translation))
        except SourceError as exc:  # a source file that vanished or changed since the gate read it
            errors.extend(lines_of(exc))
            continue
        unrecorded = [item for item in status.items if item.note == UNRECORDED]
        lines = [f"{item.translation}: {item.label} is {item.status} in the '{lang}' translation"
                 + (" (the source's words are printed)" if item.status == "missing" else "")
                 + (f"; give it a display word in {status.translation.terms.file}"
                    if item.key.startswith("term:") else "")
                 for item in status.items if item.note != UNRECORDED]
        if unrecorded:  # one line: a translation never marked has every item here
            lines.insert(0, f"{book.path(lang)}/sources.yaml: {len(unrecorded)} translated item(s) with no recorded "
                            f"source version, so stale (once checked: rulepress translations {book.id} --lang {lang} "
                            "--mark-all)")
        if len(lines) > MAX_WARNINGS:
            lines = lines[:MAX_WARNINGS] + [f"... and {len(lines) - MAX_WARNINGS} more missing or stale '{lang}' "
                                            f"items (rulepress translations {book.id} --lang {lang} lists them)"]
        warnings.extend(lines)
    return errors, warnings


# -- the command -----------------------------------------------------------------------------------------------

def cached_gate_findings(check: BookCheck) -> tuple[list[str], list[str]]:
    """:func:`gate_findings` of a book (every translation the gate made, compared with its source), worked out
    again only when the book's sources or examples changed (translations live there)."""
    book = check.book
    if check.inputs is None:  # a file changed while the book was checked: nothing to keep it under
        return gate_findings(check)
    errors, warnings = cached_data(book.root, FINDINGS, key_of("translations", check.inputs),
                                 lambda: gate_findings(check))
    return list(errors), list(warnings)


def run_translations(root: Path, args: argparse.Namespace) -> int:
    book = load_book(root, args.book)
    found = Collector()
    examples = collect_examples(book, found)
    found.raise_if_any()
    _, declared = languages(book)
    if not declared:
        raise SourceError(book.path("book.yaml"), None, "this book declares no translations (add "
                                                        "'translations: [fr]' to book.yaml)")
    if args.lang and args.lang not in declared:
        raise SourceError(book.path("book.yaml"), None, f"no '{args.lang}' translation (declared: "
                                                        f"{', '.join(declared)})")
    langs = [args.lang] if args.lang else declared
    if args.mark or args.mark_all:
        if len(langs) != 1:
            raise SourceError(book.path("book.yaml"), None, f"say which translation to mark with --lang "
                                                            f"({', '.join(langs)})")
        return _mark(book, examples, langs[0], args.mark or [], args.mark_all)
    try:
        statuses = [translation_status(book, examples, lang) for lang in langs]
    except SourceError as exc:
        for line in lines_of(exc):
            print(f"rulepress: {line}")
        return 1
    if args.json:
        print(json.dumps({"book": book.id, "languages": {
            s.lang: {"current": s.current, "missing": sum(i.status == "missing" for i in s.items),
                     "stale": sum(i.status == "stale" for i in s.items),
                     "items": [asdict(item) for item in s.items]} for s in statuses}}, ensure_ascii=False, indent=1))
    else:
        _print(book, statuses)
    return 1 if any(s.items for s in statuses) else 0


def _print(book: Book, statuses: list[Status]) -> None:
    for status in statuses:
        missing = [i for i in status.items if i.status == "missing"]
        stale = [i for i in status.items if i.status == "stale"]
        print(f"{book.id} ({status.lang}): {status.current} current, {len(stale)} stale, {len(missing)} missing")
        for item in stale + missing:
            print(f"  {item.status:8} {item.label}  [{item.key}]")
            print(f"           source {item.file}:{item.line or 1}, translation {item.translation}")
            if item.diff is not None:
                print(f"           source changes since: {item.diff}")
            if item.note and item.note != UNRECORDED:
                print(f"           {item.note}")
        unrecorded = sum(item.note == UNRECORDED for item in status.items)
        if unrecorded:
            print(f"  {unrecorded} stale item(s) have {UNRECORDED}")
        if status.items:
            print(f"  after updating a translation: rulepress translations {book.id} --lang {status.lang} "
                  "--mark ITEM")


def _mark(book: Book, examples: list[Example], lang: str, keys: list[str], every: bool) -> int:
    """Record the current source hash of each item in ``<lang>/sources.yaml``."""
    translated, info = load_translation_details(book, lang)
    found = Collector()
    with found.collecting():
        translate_examples(examples, translated)
    found.raise_if_any()
    items = source_items(book, examples)
    path = translation_folder(book, lang) / "sources.yaml"
    shown = book.path(f"{lang}/sources.yaml")
    if every:
        keys = [key for key, state in translated.status.items() if state != "missing"]
    for key in keys:
        if key.startswith("term:"):
            raise SourceError(shown, None, f"'{key}': a display word has no source version to mark (it is current "
                                           f"once written in {book.path(f'{lang}/terms.yaml')})")
        if key not in items:
            close = difflib.get_close_matches(key, list(items), n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else "items are rule:<id>, example:<id>, glossary:<term>, ..."
            raise SourceError(shown, None, f"no item '{key}' in the source ({hint})")
        if translated.status.get(key) == "missing":
            raise SourceError(shown, None, f"'{key}' is not translated yet: translate it, then mark it")
    recorded = {key: value for key, value in info.sources.items() if key in items}  # drops removed items
    updated = marked_sources(recorded, items, keys)
    confine.confined(book.root, path)  # the translation folder must not lead outside the project
    path.write_text(_sources_text(updated), encoding="utf-8")
    print(f"{shown}: marked {len(keys)} item(s) as translated from today's source")
    return 0


def _sources_text(recorded: dict[str, Any]) -> str:
    header = ("# Which version of the source each translated item translates (a hash of its text).\n"
              "# Written by `rulepress translations BOOK --mark ITEM`; see `rulepress guide translations`.\n")
    body = yaml.safe_dump(recorded, allow_unicode=True, sort_keys=False, width=1000) if recorded else "{}\n"
    return header + body
