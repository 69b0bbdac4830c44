"""Load a book's sources (rules_src/<book>/) into one validated model."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rulepress.audience import PLAYERS, for_audience
from rulepress.errors import SourceError, excerpt
from rulepress.load import checks, confine, orphans, profile, schema, textpolicy
from rulepress.load.confine import shown as shown_path
from rulepress.load.problems import Collector
from rulepress.load.provenance import Provenance, load_provenance
from rulepress.load.rules import (
    Chapter,
    Rule,
    broken_cross_refs,
    find_cross_refs,
    load_chapter,
    render_template,
    rule_hint,
)
from rulepress.load.yamlsrc import line_of, load_yaml, plain

TRIM_SIZES = {"A4": ("210mm", "297mm"), "A5": ("148mm", "210mm"), "A6": ("105mm", "148mm")}
QUESTION_STATUSES = ("open", "answered", "dropped")
QUESTION_SOURCES = ("seed", "reconstructed", "engine")


@dataclass
class GlossaryTerm:
    term: str
    definition: str
    rule: str
    aliases: list[str]
    line: int | None
    autolink: list[str] = field(default_factory=list)  # the phrases in rule text that link to this entry


@dataclass
class Question:
    id: str
    question: str
    rules: list[str]
    answers: dict[str, str]
    assumed: str
    status: str
    option: str | None
    option_values: dict[str, Any]
    source: str
    note: str
    line: int | None
    # The findings this question answers, by subject ("rule:lm.night.deck-out", "word:adjacent", "data:score.bands"):
    # a finding is "tracked by" a question only by subject, never because they share a rule.
    tracks: list[str] = field(default_factory=list)
    # Where the question matters in play: engine options to play it under (a challenge) and player counts, each
    # an entry {options: {...}, players: [...]}; empty: where its option's rules are played (docs/ANALYSIS.md).
    simulated_with: list[dict[str, Any]] = field(default_factory=list)

    def option_value(self, answer: str) -> Any:
        return self.option_values.get(answer, answer)

    @property
    def order(self) -> tuple[int, tuple[Any, ...]]:
        """Open first, then answered, then dropped; within each, ll.q2 before ll.q10."""
        status = QUESTION_STATUSES.index(self.status)
        return status, tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", self.id))


@dataclass
class ChangeEntry:
    edition: str
    title: str
    rules: list[str]
    why: str
    line: int | None


@dataclass
class CoverWords:
    """book.yaml ``cover``'s texts as both covers print them: each a template over the component data, rendered
    once, as the book loads (a translation's over its own words)."""

    blurb: str = ""
    components: list[str] = field(default_factory=list)
    credits: list[str] = field(default_factory=list)


@dataclass
class Book:
    id: str
    root: Path
    folder: Path
    data: dict[str, Any]
    components: dict[str, Any]
    chapters: list[Chapter]
    glossary: list[GlossaryTerm]
    questions: list[Question]
    changelog: list[ChangeEntry]
    prose_only: dict[str, str]
    rules: dict[str, Rule] = field(default_factory=dict)
    provenance: dict[str, Provenance] = field(default_factory=dict)  # where each rule comes from, by rule ID
    games: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)  # engine games by options
    language: str = "en"  # a translation (load/translations.py) carries its own language and item status
    status: dict[str, str] = field(default_factory=dict)  # item key (rule:<id>...) -> current, stale or missing
    cover_words: CoverWords = field(default_factory=CoverWords)

    @property
    def title(self) -> str:
        return str(self.data["title"])

    @property
    def engine_package(self) -> str:
        return str(self.data["engine"])

    @property
    def prefix(self) -> str:
        return str(self.data["rule_prefix"])

    @property
    def trim(self) -> tuple[str, str]:
        trim = self.data.get("trim", "A5")
        if isinstance(trim, dict):
            return str(trim["width"]), str(trim["height"])
        return TRIM_SIZES[str(trim)]

    def path(self, name: str) -> str:
        return shown_path(self.folder / name, self.root)

    def rule_label(self, rule_id: str) -> str:
        rule = self.rules.get(rule_id)
        return f"rule {rule.number}, {rule_id}" if rule else rule_id


BOOK_ID = re.compile(r"[a-z0-9][a-z0-9-]*")  # as schemas/book.yaml's id; matched whole, never with "$"
REQUIRED_BOOK_KEYS = ("id", "title", "edition", "players", "engine", "rule_prefix", "chapters")
SAFE_CHAPTER = re.compile(r"(?!/)(?!.*(^|/)\.\.(/|$))[^\\]+\.md")  # as schemas/book.yaml: no '..', not absolute


def book_ids(root: Path) -> list[str]:
    """Every book under rules_src/, in the order their book.yaml ``order`` gives (then by name)."""
    books = root / "rules_src"
    if not books.is_dir():
        raise SourceError("rules_src", None, f"no rules_src/ folder in {root} (is --root the project?)")
    found = []
    for folder in sorted(books.iterdir()):
        book_file = folder / "book.yaml"
        if confine.exists(book_file):
            data = load_yaml(book_file, shown_path(book_file, root), root=root)
            order = data.get("order", 99) if isinstance(data, dict) else 99
            # A wrong type here is reported by load_book's schema check; sorting must not fail first.
            found.append((order if isinstance(order, int) and not isinstance(order, bool) else 99, folder.name))
    return [name for _, name in sorted(found)]


def load_book(root: Path, book_id: str) -> Book:
    """The book ``book_id`` with every source checked; raises SourceError (one problem) or SourceErrors (all the
    problems found, up to problems.MAX_PROBLEMS) when any source is bad."""
    if not BOOK_ID.fullmatch(book_id):  # a name from the command line: no "../", no newline, no control character
        raise SourceError("rules_src", None, f"{excerpt(book_id)} is not a book ID (a folder of rules_src/: lower case "
                                             "letters, digits and '-')")
    folder = root / "rules_src" / book_id
    shown = shown_path(folder / "book.yaml", root)
    if not confine.exists(folder / "book.yaml"):
        raise SourceError(shown, None, f"no book '{book_id}' (missing book.yaml)")
    data = load_yaml(folder / "book.yaml", shown, root=root)
    found = Collector()
    found.extend(schema.validate(data, "book", shown, _prefix_of(data)))
    found.extend(orphans.stray_book_files(folder, root))
    if not _usable(data):
        # Without a mapping, an ID, a prefix and chapter names there is nothing further to check against.
        found.raise_if_any()
    if data["id"] != book_id:
        found.add(SourceError(shown, line_of(data, "id"), f"id '{data['id']}' differs from its folder '{book_id}'"))
    components = _source(found, root, folder, "components.yaml", "components", data["rule_prefix"], {})
    book = Book(book_id, root, folder, data, components if isinstance(components, dict) else {}, [], [], [], [], {})
    if components is None:
        # Chapters and definitions are templates over the component data: without it, every variable would be
        # reported missing. Check the other files' shape and stop.
        for name in ("glossary", "questions", "changelog", "prose_only"):
            _source(found, root, folder, f"{name}.yaml", name, book.prefix, [])
        found.raise_if_any()
    _check_arithmetic(book, found)
    found.extend(textpolicy.field_errors(data, shown, "book", plain=textpolicy.BOOK_FIELDS))
    context = {**plain(book.components), "book": plain(data)}
    book.cover_words = cover_words(book.data, context, book.path("book.yaml"), found)
    found.extend(profile.check_output_intent(book, shown))
    complete = _load_chapters(book, context, found)
    found.extend(orphans.unlisted_chapters(folder, root, [c for c in data["chapters"] if SAFE_CHAPTER.fullmatch(c)],
                                           line_of(data, "chapters")))
    for chapter in book.chapters:
        for rule in chapter.rules:
            if rule.id in book.rules:
                first = book.rules[rule.id]
                found.add(SourceError(rule.file, rule.line, f"rule ID used twice (first at {first.file}:"
                                                            f"{first.line})", rule=rule.id))
            else:
                book.rules[rule.id] = rule
    for rule in book.rules.values():
        for ref, line in find_cross_refs(rule):
            if ref not in book.rules and complete:
                found.add(SourceError(rule.file, line, f"cross-reference to unknown rule ID '{ref}'"
                                                       f"{rule_hint(ref, book.rules)}", rule=rule.id))
        if not rule.designer and complete:
            # A player's book prints this rule, but not a rule for the designer alone (load/audience.py).
            shown = {ref for ref, _ in find_cross_refs(replace(rule, body=for_audience(rule.body, PLAYERS)))}
            for ref, line in find_cross_refs(rule):
                if ref in shown and ref in book.rules and book.rules[ref].designer:
                    found.add(SourceError(rule.file, line, f"cross-reference to '{ref}', a rule for the designer "
                                                           "alone, in text the player's books print: mark the "
                                                           "passage [...]{.designer}, or the rule", rule=rule.id))
        for text, line in broken_cross_refs(rule):
            found.add(SourceError(rule.file, line, f"malformed cross-reference '{text}': write [[rule.id]], with no "
                                                   "spaces and closed on the same line", rule=rule.id))
    # A chapter that failed to load leaves its rule IDs unknown; checking references against an incomplete set
    # would report every reference to them as well, burying the real problem.
    rules = RuleCheck(book, found, complete)
    book.glossary = _load_glossary(book, context, rules)
    _check_turn_summary(book, rules)
    for term in book.glossary:
        if term.rule in book.rules and book.rules[term.rule].designer:
            found.add(SourceError(book.path("glossary.yaml"), term.line, f"'{term.term}' is defined by "
                                  f"'{term.rule}', a rule for the designer alone: the player's books print the "
                                  "glossary, so its terms need rules they print", rule=term.rule))
    book.questions = _load_questions(book, rules)
    book.changelog = _load_changelog(book, rules)
    book.prose_only = _load_prose_only(book, rules)
    _check_component_questions(book, book.components, found)
    questions_loaded = not any(str(error.file) == book.path("questions.yaml") for error in found.errors)
    if complete and questions_loaded:  # provenance names rules and questions: checkable once all of them loaded
        with found.collecting():
            book.provenance = load_provenance(book)
    found.raise_if_any()
    return book


def _prefix_of(data: Any) -> str | None:
    prefix = data.get("rule_prefix") if isinstance(data, dict) else None
    return prefix if isinstance(prefix, str) and re.fullmatch(r"[a-z]+", prefix) else None


def _usable(data: Any) -> bool:
    """Whether book.yaml has what the rest of the load reads (the schema reports everything else)."""
    if not isinstance(data, dict) or not all(key in data for key in REQUIRED_BOOK_KEYS):
        return False
    chapters, checks_ = data["chapters"], data.get("checks") or []
    return (isinstance(data["id"], str) and _prefix_of(data) is not None
            and isinstance(chapters, list) and all(isinstance(name, str) for name in chapters)
            and isinstance(checks_, list)
            and all(isinstance(c, dict) and isinstance(c.get("expr"), str) for c in checks_))


def _source(found: Collector, root: Path, folder: Path, name: str, kind: str, prefix: str, empty: Any) -> Any:
    """An optional source file of the book, parsed and checked against its schema; None when it is unusable."""
    path = folder / name
    shown = shown_path(path, root)
    if not confine.exists(path):
        return empty
    try:
        value = load_yaml(path, shown, root=root)
    except SourceError as error:
        found.add(error)
        return None
    value = empty if value is None else value
    problems = schema.validate(value, kind, shown, prefix)
    found.extend(problems)
    return None if problems else value


def _load_chapters(book: Book, context: dict[str, Any], found: Collector) -> bool:
    """Load every chapter book.yaml lists; True when all of them loaded."""
    shown = book.path("book.yaml")
    complete = True
    for number, name in enumerate(book.data["chapters"], start=1):
        line = line_of(book.data["chapters"], number - 1)
        if not SAFE_CHAPTER.fullmatch(name):  # already reported by the schema
            complete = False
            continue
        path = book.folder / "chapters" / name
        try:
            confine.check_regular(book.root, path)
        except confine.PathRefused as refused:
            found.add(SourceError(shown, line, f"chapter file '{name}': {refused.reason}"))
            complete = False
            continue
        try:
            shown_as = shown_path(path, book.root)
            book.chapters.append(load_chapter(book.root, path, shown_as, context, number, book.prefix))
        except SourceError as error:
            found.add(error)
            complete = False
    return complete


def _check_component_questions(book: Book, data: Any, found: Collector) -> None:
    """A reconstructed component names the designer question recording the gap: that question must exist."""
    children = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in children:
        if key == "question" and isinstance(value, str) and value not in {q.id for q in book.questions}:
            found.add(SourceError(book.path("components.yaml"), line_of(data, key),
                                  f"unknown designer question '{value}' (questions.yaml has no such ID)"))
        else:
            _check_component_questions(book, value, found)


def cover_words(data: dict[str, Any], context: dict[str, Any], shown: str, found: Collector) -> CoverWords:
    """The cover's texts (``data``: book.yaml's) rendered over ``context`` in the sandbox, now, at their own lines,
    rather than first when the PDFs are rendered; a text that fails is collected and left empty."""
    cover = data.get("cover")
    if not isinstance(cover, dict):
        return CoverWords()

    def rendered(text: Any, line: int | None) -> str:
        if not isinstance(text, str):
            return ""
        with found.collecting():
            return render_template(text, context, shown, line).strip()
        return ""

    def each(key: str) -> list[str]:
        values = cover.get(key)
        return [rendered(value, line_of(values, index)) for index, value in enumerate(values)] \
            if isinstance(values, list) else []

    return CoverWords(rendered(cover.get("blurb", ""), line_of(cover, "blurb")), each("components"), each("credits"))


def _check_arithmetic(book: Book, found: Collector) -> None:
    shown = book.path("book.yaml")
    data = plain(book.components)
    for index, check in enumerate(book.data.get("checks", []) or []):
        line = line_of(book.data.get("checks"), index)
        expr = str(check["expr"])
        try:
            ok = checks.evaluate(expr, data)
            detail = "" if ok else checks.describe_failure(expr, data)
        except checks.CheckError as exc:
            found.add(SourceError(shown, line, f"check '{expr}': {exc}"))
            continue
        if not ok:
            why = check.get("why", "")
            found.add(SourceError(shown, line, f"component check failed: {expr} ({detail})"
                                               + (f"; {why}" if why else "")))


def _check_turn_summary(book: Book, rules: RuleCheck) -> None:
    """book.yaml's ``turn_summary`` names rules of the book that the player's books print (its back cover does)."""
    shown = book.path("book.yaml")
    for group in book.data.get("turn_summary") or []:
        ids = [group["heading"], *(group.get("rules") or [])]
        for rule_id in rules.require(shown, line_of(group, "heading"), ids, "turn_summary"):
            if rule_id in book.rules and book.rules[rule_id].designer:
                rules.found.add(SourceError(shown, line_of(group, "heading"), f"turn_summary names '{rule_id}', a "
                                            "rule for the designer alone: the player's back cover prints it",
                                            rule=rule_id))


@dataclass
class RuleCheck:
    """Reports rule IDs a source names that the book does not have (unless the rules are incomplete)."""

    book: Book
    found: Collector
    complete: bool

    def require(self, file: str, line: int | None, ids: list[str], what: str) -> list[str]:
        """``ids`` as a list; each unknown one is reported at its own line when ``ids`` knows it, else ``line``."""
        for index, rule_id in enumerate(ids):
            if self.complete and rule_id not in self.book.rules:
                self.found.add(SourceError(file, line_of(ids, index, default=line),
                                           f"{what} names unknown rule ID '{rule_id}'"
                                           f"{rule_hint(rule_id, self.book.rules)}", rule=rule_id))
        return [str(r) for r in ids]


def _load_glossary(book: Book, context: dict[str, Any], rules: RuleCheck) -> list[GlossaryTerm]:
    shown = book.path("glossary.yaml")
    raw = _source(rules.found, book.root, book.folder, "glossary.yaml", "glossary", book.prefix, [])
    terms: list[GlossaryTerm] = []
    first: dict[str, int | None] = {}
    alias_lines: dict[tuple[str, str], int | None] = {}
    for index, item in enumerate(raw or []):
        line = line_of(raw, index)
        term = item["term"]
        if term.casefold() in first:
            rules.found.add(SourceError(shown, line, f"glossary term '{term}' appears twice (first at line "
                                                     f"{first[term.casefold()]})"))
            continue
        first[term.casefold()] = line
        rules.found.extend(textpolicy.field_errors(item, shown, "glossary", plain=("term",)))
        rules.require(shown, line_of(item, "rule"), [item["rule"]], f"glossary term '{term}'")
        try:
            definition = render_template(item["definition"], context, shown, line_of(item, "definition"))
        except SourceError as error:
            rules.found.add(error)
            continue
        aliases = list(item.get("aliases", []))
        # A term that is also a common word ("set up") can name the phrases to link, or opt out (false).
        autolink = item.get("autolink", True)
        phrases = [term, *aliases] if autolink is True else list(autolink or [])
        for key in ("aliases", "autolink"):  # printed (index, links) like the term: plain text too
            values = item.get(key)
            for position, value in enumerate(values if isinstance(values, list) else []):
                alias_lines[term, str(value)] = line_of(values, position)
                with rules.found.collecting():
                    textpolicy.check_plain(str(value), shown, line_of(values, position), f"glossary {key[:-1]}")
        terms.append(GlossaryTerm(term, definition, item["rule"], aliases, line, phrases))
    _check_names_unique(terms, alias_lines, shown, rules.found)
    return sorted(terms, key=lambda t: t.term.lower())


def _check_names_unique(terms: list[GlossaryTerm], alias_lines: dict[tuple[str, str], int | None], shown: str,
                        found: Collector) -> None:
    """A phrase names one entry: an alias may not be another entry's term or alias (which would it link to?)."""
    owner: dict[str, GlossaryTerm] = {term.term.casefold(): term for term in terms}
    for term in terms:
        for alias in term.aliases:
            other = owner.setdefault(alias.casefold(), term)
            if other is not term:
                line = alias_lines.get((term.term, alias), term.line)
                found.add(SourceError(shown, line, f"alias '{alias}' of glossary term '{term.term}' already names "
                                                   f"'{other.term}' (line {other.line})"))


def _load_questions(book: Book, rules: RuleCheck) -> list[Question]:
    shown = book.path("questions.yaml")
    raw = _source(rules.found, book.root, book.folder, "questions.yaml", "questions", book.prefix, [])
    questions: list[Question] = []
    seen: dict[str, int | None] = {}
    for index, item in enumerate(raw or []):
        line = line_of(raw, index)
        qid = item["id"]
        if qid in seen:
            rules.found.add(SourceError(shown, line, f"designer question '{qid}' appears twice (first at line "
                                                     f"{seen[qid]})"))
            continue
        seen[qid] = line
        rules.found.extend(textpolicy.field_errors(item, shown, "designer", plain=("question",), markdown=("note",)))
        rules.found.extend(textpolicy.field_errors(item["answers"], shown, "answer", markdown=list(item["answers"]),
                                                   plain_keys=True))
        answers = dict(item["answers"])
        assumed = item["assumed"]
        if assumed not in answers:
            rules.found.add(SourceError(shown, line_of(item, "assumed"), f"question {qid}: assumed answer "
                                                                         f"'{assumed}' is not one of "
                                                                         f"{sorted(answers)}"))
        option_values = dict(item.get("option_values") or {})
        for answer in option_values:
            if answer not in answers:
                rules.found.add(SourceError(shown, line_of(item["option_values"], answer),
                                            f"question {qid}: option_values names '{answer}', which is not one "
                                            f"of its answers {sorted(answers)}"))
        ids = rules.require(shown, line_of(item, "rules"), item["rules"], f"question {qid}")
        tracks = item.get("tracks") or []
        for position, subject in enumerate(tracks):  # a finding about a rule names it: rule:ID, outcome:ID
            kind, _, rule_id = str(subject).partition(":")
            if kind in ("rule", "outcome"):
                rules.require(shown, line_of(tracks, position, default=line), [rule_id],
                              f"question {qid}'s track '{subject}'")
        questions.append(Question(qid, item["question"], ids, answers, assumed, item["status"], item.get("option"),
                                  plain(option_values), item.get("source", "seed"), item.get("note") or "", line,
                                  [str(t) for t in item.get("tracks") or []], plain(item.get("simulated_with") or [])))
    return questions


def _load_changelog(book: Book, rules: RuleCheck) -> list[ChangeEntry]:
    shown = book.path("changelog.yaml")
    raw = _source(rules.found, book.root, book.folder, "changelog.yaml", "changelog", book.prefix, [])
    entries = []
    for edition in raw or []:
        rules.found.extend(textpolicy.field_errors(edition, shown, "change-log", plain=("edition",)))
        for entry_index, entry in enumerate(edition["entries"]):
            entry_line = line_of(edition["entries"], entry_index)
            rules.found.extend(textpolicy.field_errors(entry, shown, "change", plain=("title",), markdown=("why",)))
            ids = rules.require(shown, line_of(entry, "rules", entry_line), entry["rules"],
                                f"change '{entry['title']}'")
            entries.append(ChangeEntry(edition["edition"], entry["title"], ids, entry["why"], entry_line))
    return entries


def _load_prose_only(book: Book, rules: RuleCheck) -> dict[str, str]:
    shown = book.path("prose_only.yaml")
    raw = _source(rules.found, book.root, book.folder, "prose_only.yaml", "prose_only", book.prefix, {})
    for rule_id in raw or {}:
        rules.require(shown, line_of(raw, rule_id), [rule_id], "prose-only entry")
    return {str(k): str(v) for k, v in (raw or {}).items()}
