"""Translated editions (docs/TRANSLATIONS.md): a book's words in another language over the source's structure.

A translation carries only words. :func:`load_translation` returns a :class:`~rulepress.load.book.Book` with the
source's rule IDs, numbering, components, engine and games, and the translation's chapters, glossary, designer
questions and titles; :func:`translate_examples` gives the examples with translated prose over the *same* steps,
so every language prints the numbers of the one replay.

Every translated item (``rule:<id>``, ``example:<id>``, ``glossary:<source term>``, ``question:<id>``,
``book:title|subtitle|cover``) has a status: *missing* (not translated: the source's words are printed),
*stale* (``sources.yaml`` records a hash of another source text than today's, or none) or *current*.

The checks of a translated text against its source are in :mod:`rulepress.load.translation_checks`; the display
words of the component data's words (``<lang>/terms.yaml``, items ``term:<word>``) in
:mod:`rulepress.load.translation_terms`.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import hashlib
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulepress.errors import SourceError
from rulepress.load import confine, schema, textpolicy
from rulepress.load.book import Book, GlossaryTerm, Question, _check_names_unique, cover_words
from rulepress.load.confine import shown as shown_path
from rulepress.load.examples import Example, caption_of
from rulepress.load.problems import Collector
from rulepress.load.rules import (
    FENCE,
    HEADING,
    Chapter,
    Rule,
    broken_cross_refs,
    find_cross_refs,
    parse_chapter,
    render_chapter,
    render_template,
    rule_hint,
)
from rulepress.load.translation_checks import check_rules, compare_text
from rulepress.load.translation_terms import Terms, load_terms
from rulepress.load.yamlsrc import line_of, load_yaml, parse_yaml, plain

TRANSLATION_FILES = ("book.yaml", "glossary.yaml", "questions.yaml", "sources.yaml", "terms.yaml")
HASH_LENGTH = 12


def languages(book: Book) -> tuple[str, list[str]]:
    """The book's source language and its translations (book.yaml ``language:``, ``translations:``)."""
    source = book.data.get("language", "en")
    wanted = book.data.get("translations") or []
    return str(source), [str(lang) for lang in wanted if isinstance(lang, str) and lang != source]


def text_hash(text: str) -> str:
    """The short hash ``sources.yaml`` records: of the words, so re-wrapping a paragraph changes nothing."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:HASH_LENGTH]


# -- raw texts of items (the template source, not its rendering: a changed number in the data is no change) ----

@dataclass
class Section:
    """A rule's template source: its heading line and body up to the next rule heading."""

    id: str
    title: str
    level: int
    line: int  # of the heading in the chapter file
    text: str


def raw_sections(text: str) -> dict[str, Section]:
    """The rule sections of a chapter's template source, in order (headings in code fences are not rules)."""
    sections: dict[str, Section] = {}
    current: Section | None = None
    lines: list[str] = []
    fenced = False

    def close() -> None:
        if current is not None:
            current.text = "\n".join(lines).rstrip()
            sections.setdefault(current.id, current)

    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match and match.group(3) and len(match.group(1)) <= 3:
            close()
            current = Section(match.group(3), match.group(2).strip(), len(match.group(1)), number, "")
            lines = []
        lines.append(line)
    close()
    return sections


def glossary_text(entry: Any) -> str:
    return f"{entry.get('term', '')}\n{entry.get('definition', '')}" if isinstance(entry, dict) else ""


def question_text(entry: Any) -> str:
    if not isinstance(entry, dict):
        return ""
    answers = entry.get("answers") if isinstance(entry.get("answers"), dict) else {}
    return "\n".join([str(entry.get("question", "")), *(f"{k}: {v}" for k, v in answers.items()),
                      str(entry.get("note") or "")])


def example_text(raw: Any) -> str:
    """An example's words: title, text and diagram captions (what its translation translates)."""
    if not isinstance(raw, dict):
        return ""
    captions = [f"{step.get('checkpoint')}: {caption_of(step.get('diagram'))}" for step in raw.get("steps") or []
                if isinstance(step, dict) and caption_of(step.get("diagram")) is not None]
    return "\n".join([str(raw.get("title", "")), str(raw.get("text") or ""), *captions])


def cover_source_text(data: Any) -> str:
    """The cover's words a translation follows: the blurb, the artwork's alternative text, the component and
    credit lines (a changed ``alt`` makes a translated cover stale like a changed blurb)."""
    cover = data.get("cover") if isinstance(data, dict) else None
    if not isinstance(cover, dict):
        return ""
    lists = [cover.get(key) if isinstance(cover.get(key), list) else [] for key in ("components", "credits")]
    return "\n".join([str(cover.get("blurb") or ""), str(cover.get("alt") or ""), *map(str, lists[0]),
                      *map(str, lists[1])])


def item_text(key: str, file_text: str, name: str = "") -> str | None:
    """The source text of item ``key`` in a source file's text (now or at a git revision); None if absent.

    Raises SourceError when the file is not YAML (only YAML files are parsed here)."""
    kind, _, item = key.partition(":")
    if kind == "rule":
        section = raw_sections(file_text).get(item)
        return section.text if section else None
    data = parse_yaml(file_text, name or key)
    if kind == "example":
        return example_text(data) if isinstance(data, dict) and data.get("id") == item else None
    if kind in ("glossary", "question"):
        field_name = "term" if kind == "glossary" else "id"
        for entry in data if isinstance(data, list) else []:
            if isinstance(entry, dict) and entry.get(field_name) == item:
                return glossary_text(entry) if kind == "glossary" else question_text(entry)
        return None
    if not isinstance(data, dict):
        return None
    if item == "cover":
        return cover_source_text(data) or None
    value = data.get(item)
    return value if isinstance(value, str) else None


def source_items(book: Book, examples: Iterable[Example] = ()) -> dict[str, tuple[str, str, int | None]]:
    """Every translatable item of the source: key -> (text, file, line)."""
    items: dict[str, tuple[str, str, int | None]] = {}
    for chapter in book.chapters:
        text = confine.read_text(book.root, book.root / chapter.file, chapter.file)
        for section in raw_sections(text).values():
            items[f"rule:{section.id}"] = (section.text, chapter.file, section.line)
    for example in examples:
        items[f"example:{example.id}"] = (example_text(example.raw), example.file, example.line("title"))
    raw_glossary = _raw(book, "glossary.yaml")
    for index, entry in enumerate(raw_glossary if isinstance(raw_glossary, list) else []):
        if isinstance(entry, dict) and "term" in entry:
            items[f"glossary:{entry['term']}"] = (glossary_text(entry), book.path("glossary.yaml"),
                                                  line_of(raw_glossary, index))
    raw_questions = _raw(book, "questions.yaml")
    for index, entry in enumerate(raw_questions if isinstance(raw_questions, list) else []):
        if isinstance(entry, dict) and "id" in entry:
            items[f"question:{entry['id']}"] = (question_text(entry), book.path("questions.yaml"),
                                                line_of(raw_questions, index))
    for name in ("title", "subtitle"):
        if isinstance(book.data.get(name), str):
            items[f"book:{name}"] = (book.data[name], book.path("book.yaml"), line_of(book.data, name))
    if cover_source_text(book.data):
        items["book:cover"] = (cover_source_text(book.data), book.path("book.yaml"), line_of(book.data, "cover"))
    return items


def _raw(book: Book, name: str) -> Any:
    path = book.folder / name
    return load_yaml(path, book.path(name), root=book.root) if confine.exists(path) else None


# -- the translated book -----------------------------------------------------------------------------------------

@dataclass
class Translation:
    """What :func:`load_translation` read besides the Book: the recorded hashes and each item's place."""

    lang: str
    folder: Path
    sources: dict[str, str] = field(default_factory=dict)  # item key -> recorded source hash
    places: dict[str, tuple[str, int | None]] = field(default_factory=dict)  # item key -> translation file, line
    terms: Terms = field(default_factory=lambda: Terms({}, ""))  # display words for the component data's words


@dataclass
class _Contexts:
    """What a translation's texts render over: the component data with its words translated; and, while some word
    has no display word, the same data with those words tagged, to find where a text prints them."""

    terms: Terms
    plain: dict[str, Any]
    tagged: dict[str, Any] | None

    def note_printed(self, file: str, template: str,
                     render: Callable[[dict[str, Any]], tuple[str, list[int] | int | None]]) -> None:
        if self.tagged is None:
            return
        try:
            text, lines = render(self.tagged)
        except SourceError:  # reported by the text's own rendering
            return
        self.terms.note_printed(text, file, lines, template)


def translation_folder(book: Book, lang: str) -> Path:
    return book.folder / lang


def load_translation(source: Book, lang: str) -> Book:
    """The book ``source`` in language ``lang``; raises SourceError(s) for every problem of the translation's
    files (missing and stale items are not problems: see ``Book.status``)."""
    book, _ = load_translation_details(source, lang)
    return book


def load_translation_details(source: Book, lang: str) -> tuple[Book, Translation]:
    """:func:`load_translation`, also giving the recorded hashes and the translation's places of items."""
    found = Collector()
    _, declared = languages(source)
    if lang not in declared:
        known = ", ".join(declared) or "none"
        raise SourceError(source.path("book.yaml"), line_of(source.data, "translations"),
                          f"language '{lang}' is not declared under 'translations' (declared: {known})")
    folder = translation_folder(source, lang)
    info = Translation(lang, folder)
    if not folder.is_dir():
        raise SourceError(shown_path(folder, source.root), None, f"no translation folder for declared language "
                                                                 f"'{lang}' (create {shown_path(folder, source.root)}/"
                                                                 "or remove it from 'translations')")
    found.extend(stray_translation_files(folder, source.root))
    terms_file = folder / "terms.yaml"
    info.terms = load_terms(_load(found, source, terms_file, "translation_terms"), source.components,
                            shown_path(terms_file, source.root), source.path("components.yaml"), found)
    data = _translated_data(source, folder, info, found)
    context = _contexts(info.terms, source.components, plain(data))
    book = Book(source.id, source.root, folder, data, source.components, [], [], [], source.changelog,
                source.prose_only, {}, source.provenance, source.games, language=lang)
    items = source_items(source)
    sections = {key[5:]: text for key, (text, _, _) in items.items() if key.startswith("rule:")}
    book.chapters = _translated_chapters(source, book, context, sections, info, found)
    book.rules = {rule.id: rule for chapter in book.chapters for rule in chapter.rules}
    for rule in (r for r in book.rules.values() if f"rule:{r.id}" in info.places):
        for ref, line in find_cross_refs(rule):
            if ref not in book.rules:
                found.add(SourceError(rule.file, line, f"cross-reference to unknown rule ID '{ref}'"
                                                       f"{rule_hint(ref, book.rules)}", rule=rule.id))
        for text, line in broken_cross_refs(rule):
            found.add(SourceError(rule.file, line, f"malformed cross-reference '{text}': write [[rule.id]]",
                                  rule=rule.id))
    book.glossary = _translated_glossary(source, book, context, info, found)
    book.questions = _translated_questions(source, book, info, found)
    info.sources = _recorded(source, folder, found)
    found.raise_if_any()
    # The covers print the translation's texts over its own words (each was checked at its line above).
    book.cover_words = cover_words(data, context.plain, shown_path(folder / "book.yaml", source.root), found)
    found.raise_if_any()
    for key in items:
        book.status[key] = status_of(key, items[key][0], info)
    for word in info.terms.printed:  # printed with the source's word: reported where it is printed
        book.status[f"term:{word}"] = "missing"
    return book, info


def _contexts(terms: Terms, components: Any, data: dict[str, Any]) -> _Contexts:
    return _Contexts(terms, {**terms.context(components), "book": data},
                     {**terms.context(components, tagged=True), "book": data} if terms.missing else None)


def status_of(key: str, source_text: str, info: Translation) -> str:
    if key not in info.places:
        return "missing"
    return "current" if info.sources.get(key) == text_hash(source_text) else "stale"


def stray_translation_files(folder: Path, root: Path) -> list[SourceError]:
    """Files in ``<book>/<lang>/`` that are none of a translation's files (the build would ignore them)."""
    problems = []
    for path in sorted(p for p in folder.iterdir() if not p.name.startswith(".")):
        if path.name == "chapters" and path.is_dir():
            continue
        if path.name in TRANSLATION_FILES and not path.is_dir():
            continue
        close = difflib.get_close_matches(path.name, [*TRANSLATION_FILES, "chapters"], n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"a translation's files are {', '.join(TRANSLATION_FILES)}"
        problems.append(SourceError(shown_path(path, root), None, f"unknown file in the translation folder ({hint}); "
                                                                  "the build would ignore it"))
    return problems


def _load(found: Collector, book: Book, path: Path, kind: str) -> Any:
    """A translation file parsed and checked against its schema; None when absent or unusable."""
    shown = shown_path(path, book.root)
    if not confine.exists(path):
        return None
    try:
        value = load_yaml(path, shown, root=book.root)
    except SourceError as error:
        found.add(error)
        return None
    problems = schema.validate(value, kind, shown, book.prefix)
    found.extend(problems)
    return None if problems else value


def _translated_data(source: Book, folder: Path, info: Translation, found: Collector) -> dict[str, Any]:
    """book.yaml with the translation's title, subtitle and cover texts (the rest is the source's)."""
    data = copy.copy(source.data)  # keeps the source's line numbers for everything not translated
    data["index"] = []
    path = folder / "book.yaml"
    raw = _load(found, source, path, "translation_book")
    if not isinstance(raw, dict):
        return data
    shown = shown_path(path, source.root)
    if raw.get("language", info.lang) != info.lang:  # a copied folder keeps its book.yaml: say which one is wrong
        found.add(SourceError(shown, line_of(raw, "language"), f"language '{raw['language']}' in the '{info.lang}' "
                                                               f"translation's folder (the folder names the "
                                                               f"language: write 'language: {info.lang}')"))
    found.extend(textpolicy.field_errors(raw, shown, "translated book", plain=("title", "subtitle")))
    for key in ("title", "subtitle"):
        if isinstance(raw.get(key), str):
            data[key] = raw[key]
            info.places[f"book:{key}"] = (shown, line_of(raw, key))
            found.extend(compare_text(str(source.data.get(key, "")), raw[key], shown, line_of(raw, key), key))
    # The index's words are the language's own (none unless the translation lists them): the source's would be
    # looked for in vain, or found in the wrong sense.
    data["index"] = [str(word) for word in raw.get("index") or []]
    cover = raw.get("cover")
    if isinstance(cover, dict):
        data["cover"] = _translated_cover(source, cover, shown, _contexts(info.terms, source.components,
                                                                          plain(source.data)), found)
        info.places["book:cover"] = (shown, line_of(raw, "cover"))
    return data


def _translated_cover(source: Book, cover: dict[str, Any], shown: str, context: _Contexts,
                      found: Collector) -> dict[str, Any]:
    merged = dict(source.data.get("cover") or {})
    original = source.data.get("cover") or {}
    if isinstance(cover.get("blurb"), str):
        found.extend(compare_text(str(original.get("blurb", "")), cover["blurb"], shown, line_of(cover, "blurb"),
                                  "cover blurb"))
        _check_rendering(cover["blurb"], context, shown, line_of(cover, "blurb"), found)
        merged["blurb"] = cover["blurb"]
    if isinstance(cover.get("alt"), str):  # the artwork's words (the artwork itself is the source's)
        merged["alt"] = cover["alt"]
    for key in ("components", "credits"):
        values, wanted = cover.get(key), original.get(key) or []
        if not isinstance(values, list):
            continue
        if len(values) != len(wanted):
            found.add(SourceError(shown, line_of(cover, key), f"cover {key}: {len(values)} entries, the source has "
                                                              f"{len(wanted)} (translate each, in the same order)"))
        for index, (text, before) in enumerate(zip(values, wanted, strict=False)):
            found.extend(compare_text(str(before), text, shown, line_of(values, index), f"cover {key} entry "
                                                                                          f"{index + 1}"))
            _check_rendering(text, context, shown, line_of(values, index), found)
        merged[key] = list(values) + list(wanted[len(values):])
    return merged


def _check_rendering(text: str, context: _Contexts, shown: str, line: int | None, found: Collector) -> str | None:
    """``text`` rendered over the translation's data (None, and the problem collected, when it fails)."""
    try:
        rendered = render_template(text, context.plain, shown, line)
    except SourceError as error:
        found.add(error)
        return None
    context.note_printed(shown, "", lambda tagged: (render_template(text, tagged, shown, line), line))
    return rendered


def _translated_chapters(source: Book, book: Book, context: _Contexts, sections: dict[str, str],
                         info: Translation, found: Collector) -> list[Chapter]:
    chapters = []
    owner = {rule.id: chapter for chapter in source.chapters for rule in chapter.rules}
    for name, original in zip(source.data["chapters"], source.chapters, strict=False):
        path = book.folder / "chapters" / name
        shown = shown_path(path, book.root)
        translated: dict[str, Rule] = {}
        if confine.exists(path):
            try:
                raw_text = confine.read_text(book.root, path, shown)
                text, lines = render_chapter(raw_text, context.plain, shown)
                loaded = parse_chapter(text, shown, int(original.number), book.prefix, lines)
            except SourceError as error:
                found.add(error)
                raw_text, loaded = "", None
            else:
                context.note_printed(shown, raw_text, functools.partial(render_chapter, raw_text, file=shown))
            if loaded is not None:
                translated = check_rules(original, loaded, owner, found)
                raw = raw_sections(raw_text)
                for rule_id, rule in translated.items():
                    info.places[f"rule:{rule_id}"] = (rule.file, rule.line)
                    if rule_id in raw:
                        found.extend(compare_text(sections.get(rule_id, ""), raw[rule_id].text, shown,
                                                  raw[rule_id].line, f"rule {source.rules[rule_id].number}",
                                                  rule_id))
        rules = [_merged(rule, translated.get(rule.id)) for rule in original.rules]
        chapters.append(Chapter(original.id, rules[0].title if rules else original.title, original.number,
                                rules[0].file if rules else original.file, rules))
    _check_unlisted(source, book, found)
    return chapters


def _merged(original: Rule, translated: Rule | None) -> Rule:
    """The source rule's place (number, level, children) with the translation's words, or the source's words."""
    if translated is None:
        return dataclasses.replace(original, children=list(original.children), body_lines=list(original.body_lines))
    return dataclasses.replace(original, title=translated.title, file=translated.file, line=translated.line,
                               body=translated.body, body_lines=list(translated.body_lines),
                               children=list(original.children))


def _check_unlisted(source: Book, book: Book, found: Collector) -> None:
    folder = book.folder / "chapters"
    listed = {(folder / name).resolve() for name in source.data["chapters"]}
    # The top level only, as load/orphans.py checks the source's chapters (and no walk into a symlink loop).
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        resolved = path.resolve()
        if path.name.startswith(".") or resolved in listed or any(resolved in c.parents for c in listed):
            continue
        found.add(SourceError(shown_path(path, book.root), None, "not a chapter of the source (a translated chapter "
                                                                 "has the source chapter's file name); the build "
                                                                 "would ignore it"))


def sort_key(term: str) -> tuple[str, str]:
    """Alphabetical order that files É with E (as French dictionaries do) whatever the locale."""
    bare = "".join(c for c in unicodedata.normalize("NFD", term) if not unicodedata.combining(c))
    return bare.casefold(), term


def _translated_glossary(source: Book, book: Book, context: _Contexts, info: Translation,
                         found: Collector) -> list[GlossaryTerm]:
    path = book.folder / "glossary.yaml"
    shown = shown_path(path, book.root)
    raw = _load(found, book, path, "translation_glossary")
    originals = {term.term: term for term in source.glossary}
    raw_source = {str(e.get("term")): e for e in (_raw(source, "glossary.yaml") or []) if isinstance(e, dict)}
    terms: dict[str, GlossaryTerm] = {}
    alias_lines: dict[tuple[str, str], int | None] = {}
    for index, item in enumerate(raw or []):
        line = line_of(raw, index)
        original = originals.get(item["source"])
        if original is None:
            close = difflib.get_close_matches(item["source"], list(originals), n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else "name the source glossary's term"
            found.add(SourceError(shown, line_of(item, "source"), f"'source: {item['source']}' is not a term of "
                                                                  f"the source glossary ({hint})"))
            continue
        if original.term in terms:
            found.add(SourceError(shown, line, f"source term '{original.term}' is translated twice"))
            continue
        same = next((t for t in terms.values() if t.term.casefold() == item["term"].casefold()), None)
        if same is not None:
            found.add(SourceError(shown, line, f"glossary term '{item['term']}' appears twice (first at line "
                                               f"{same.line})"))
            continue
        if item["rule"] != original.rule:
            known = "" if item["rule"] in source.rules else " (no such rule)"
            found.add(SourceError(shown, line_of(item, "rule"), f"glossary term '{item['term']}' points to "
                                                                f"'{item['rule']}'{known}; its source term points to "
                                                                f"'{original.rule}'", rule=item["rule"]))
            continue
        found.extend(textpolicy.field_errors(item, shown, "glossary", plain=("term",)))
        source_definition = str(raw_source.get(original.term, {}).get("definition", ""))
        found.extend(compare_text(source_definition, item["definition"], shown, line_of(item, "definition"),
                                  f"glossary term '{item['term']}'", item["rule"]))
        definition = _check_rendering(item["definition"], context, shown, line_of(item, "definition"), found)
        if definition is None:
            continue
        aliases = [str(a) for a in item.get("aliases", [])]
        autolink = item.get("autolink", True)
        for key in ("aliases", "autolink"):
            values = item.get(key)
            for position, value in enumerate(values if isinstance(values, list) else []):
                alias_lines[item["term"], str(value)] = line_of(values, position)
        phrases = [item["term"], *aliases] if autolink is True else list(autolink or [])
        terms[original.term] = GlossaryTerm(item["term"], definition, original.rule, aliases, line, phrases)
        info.places[f"glossary:{original.term}"] = (shown, line)
    result = [terms.get(term.term) or copy.deepcopy(term) for term in source.glossary]
    _check_names_unique(list(terms.values()), alias_lines, shown, found)
    return sorted(result, key=lambda t: sort_key(t.term))


def _translated_questions(source: Book, book: Book, info: Translation, found: Collector) -> list[Question]:
    path = book.folder / "questions.yaml"
    shown = shown_path(path, book.root)
    raw = _load(found, book, path, "translation_questions")
    originals = {question.id: question for question in source.questions}
    translated: dict[str, Question] = {}
    for index, item in enumerate(raw or []):
        original = originals.get(item["id"])
        if original is None:
            found.add(SourceError(shown, line_of(item, "id"), f"designer question '{item['id']}' is not in the "
                                                              "source's questions.yaml"))
            continue
        if original.id in translated:
            found.add(SourceError(shown, line_of(raw, index), f"designer question '{original.id}' is translated "
                                                              "twice"))
            continue
        answers = item.get("answers") or {}
        for answer in answers:
            if answer not in original.answers:
                found.add(SourceError(shown, line_of(answers, answer), f"question {original.id}: answer "
                                                                       f"'{answer}' is not one of "
                                                                       f"{sorted(original.answers)}"))
        found.extend(textpolicy.field_errors(item, shown, "designer", plain=("question",), markdown=("note",)))
        found.extend(textpolicy.field_errors(answers, shown, "answer", markdown=list(answers)))
        found.extend(compare_text(question_text(dataclasses.asdict(original)), question_text(item), shown,
                                  line_of(raw, index), f"question {original.id}"))
        translated[original.id] = dataclasses.replace(
            original, question=item["question"], note=item.get("note") or original.note,
            answers={key: str(answers.get(key, text)) for key, text in original.answers.items()},
            rules=list(original.rules))
        info.places[f"question:{original.id}"] = (shown, line_of(raw, index))
    return [translated.get(q.id) or copy.deepcopy(q) for q in source.questions]


def _recorded(source: Book, folder: Path, found: Collector) -> dict[str, str]:
    path = folder / "sources.yaml"
    raw = _load(found, source, path, "translation_sources")
    return {str(key): str(value) for key, value in (raw or {}).items()}


# -- examples --------------------------------------------------------------------------------------------------

@dataclass
class TranslatedExample(Example):
    """An example in another language: its own title, text and captions over the source's steps and replay."""

    language: str = "en"
    status: str = "missing"
    captions: dict[str, str] = field(default_factory=dict)  # checkpoint name -> caption
    original: Example | None = field(default=None, repr=False)

    def caption(self, checkpoint: str, default: str | None = None) -> str | None:
        """The translated caption of ``checkpoint`` (the source's when it is not translated)."""
        return self.captions.get(checkpoint, default)


def examples_folder(book: Book) -> Path:
    return book.root / "examples" / book.id / book.language


def translate_examples(examples: list[Example], translation_book: Book) -> list[TranslatedExample]:
    """Each example with the translation's words; its steps are the same objects as the source's, so the replay
    (and every number the prose prints) is shared. Sets ``translation_book.status`` for examples; raises
    SourceError(s) for a bad translation file."""
    book = translation_book
    found = Collector()
    folder = examples_folder(book)
    recorded = _recorded(book, book.folder, Collector())  # already checked by load_translation
    by_id = {example.id: example for example in examples}
    if folder.is_dir():
        found.extend(_stray_example_translations(folder, book.root, list(by_id)))
    result = []
    for example in examples:
        path = folder / f"{example.id}.yaml"
        translated = _translated_example(example, path, book, found)
        key = f"example:{example.id}"
        if confine.exists(path):
            translated.status = "current" if recorded.get(key) == text_hash(example_text(example.raw)) else "stale"
        book.status[key] = translated.status
        result.append(translated)
    found.raise_if_any()
    return result


def _stray_example_translations(folder: Path, root: Path, ids: list[str]) -> list[SourceError]:
    problems = []
    for path in sorted(p for p in folder.iterdir() if not p.name.startswith(".")):
        shown = shown_path(path, root)
        if path.suffix != ".yaml" or path.is_dir():
            problems.append(SourceError(shown, None, "not an example translation (<example-id>.yaml); the build "
                                                     "would ignore it"))
        elif path.stem not in ids:
            close = difflib.get_close_matches(path.stem, ids, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else "name the file after the source example's ID"
            problems.append(SourceError(shown, None, f"no source example '{path.stem}' ({hint})"))
    return problems


def _translated_example(example: Example, path: Path, book: Book, found: Collector) -> TranslatedExample:
    copied = TranslatedExample(**{f.name: getattr(example, f.name) for f in dataclasses.fields(Example)},
                               language=book.language, original=example)
    source_captions = {str(s.data["checkpoint"]): str(s.caption) for s in example.steps
                       if s.kind == "checkpoint" and s.caption is not None}
    copied.captions = dict(source_captions)
    if not confine.exists(path):
        return copied
    raw = _load(found, book, path, "translation_example")
    if not isinstance(raw, dict):
        return copied
    shown = shown_path(path, book.root)
    rule = example.rules[0] if example.rules else None
    if raw.get("id", example.id) != example.id:
        found.add(SourceError(shown, line_of(raw, "id"), f"id '{raw['id']}' differs from the file's name "
                                                         f"'{example.id}'"))
    found.extend(textpolicy.field_errors(raw, shown, "example", plain=("title",), template=("text",)))
    text = raw.get("text") or ""
    if bool(text) != bool(example.text):
        found.add(SourceError(shown, line_of(raw, "text", 1), "the source example has no text to translate" if text
                              else "the source example has a text: translate it too", rule))
    first = line_of(raw, "text")
    first = first + 1 if first is not None and text.endswith("\n") else first
    found.extend(compare_text(example.text, text, shown, first, f"example '{example.id}' text", rule))
    found.extend(compare_text(example.title, raw["title"], shown, line_of(raw, "title"), f"example '{example.id}' "
                                                                                        "title", rule))
    captions = raw.get("captions") or {}
    checkpoints = [str(s.data["checkpoint"]) for s in example.steps if s.kind == "checkpoint"]
    for name, caption in captions.items():
        line = line_of(captions, name)
        if name not in source_captions:
            close = difflib.get_close_matches(str(name), checkpoints, n=1, cutoff=0.6)
            why = ("has no caption in the source" if name in checkpoints else
                   f"is not a checkpoint of '{example.id}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
            found.add(SourceError(shown, line, f"caption for checkpoint '{name}': the checkpoint {why}", rule))
            continue
        with found.collecting():
            textpolicy.check_plain(caption, shown, line, "caption")
        found.extend(compare_text(source_captions[name], caption, shown, line, f"caption '{name}'", rule))
        copied.captions[str(name)] = caption
    copied.title, copied.text = raw["title"], text
    copied.text_line, copied.file = line_of(raw, "text"), shown
    copied.status = "stale"
    return copied


def marked_sources(recorded: dict[str, str], items: dict[str, tuple[str, str, int | None]],
                   keys: Iterable[str]) -> dict[str, str]:
    """``recorded`` with the current source hash of each of ``keys``, in the order of the source's items."""
    updated = dict(recorded)
    for key in keys:
        updated[key] = text_hash(items[key][0])
    order = {key: index for index, key in enumerate(items)}
    return dict(sorted(updated.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
