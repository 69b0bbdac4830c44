"""Load a book's sources (rules_src/<book>/) into one validated model."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulepress.errors import SourceError, relative
from rulepress.load import checks
from rulepress.load.rules import Chapter, Rule, find_cross_refs, load_chapter, render_template
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
    games: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)  # engine games by options

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
        return relative(self.folder / name, self.root)

    def rule_label(self, rule_id: str) -> str:
        rule = self.rules.get(rule_id)
        return f"rule {rule.number}, {rule_id}" if rule else rule_id


REQUIRED_BOOK_KEYS = ("id", "title", "edition", "players", "engine", "rule_prefix", "chapters")


def book_ids(root: Path) -> list[str]:
    """Every book under rules_src/, in the order their book.yaml ``order`` gives (then by name)."""
    found = []
    for folder in sorted((root / "rules_src").iterdir()):
        book_file = folder / "book.yaml"
        if book_file.is_file():
            data = load_yaml(book_file, relative(book_file, root))
            order = data.get("order", 99) if isinstance(data, dict) else 99
            found.append((order, folder.name))
    return [name for _, name in sorted(found)]


def load_book(root: Path, book_id: str) -> Book:
    folder = root / "rules_src" / book_id
    shown = relative(folder / "book.yaml", root)
    if not (folder / "book.yaml").is_file():
        raise SourceError(shown, None, f"no book '{book_id}' (missing book.yaml)")
    data = load_yaml(folder / "book.yaml", shown)
    if not isinstance(data, dict):
        raise SourceError(shown, 1, "book.yaml must be a mapping")
    for key in REQUIRED_BOOK_KEYS:
        if key not in data:
            raise SourceError(shown, 1, f"book.yaml needs '{key}'")
    if data["id"] != book_id:
        raise SourceError(shown, line_of(data, "id"), f"id '{data['id']}' differs from its folder '{book_id}'")
    trim = data.get("trim", "A5")
    if not isinstance(trim, dict) and str(trim) not in TRIM_SIZES:
        raise SourceError(shown, line_of(data, "trim"), f"unknown trim size '{trim}' (use A4, A5, A6 or "
                                                         "{width: …, height: …})")
    components = _load_optional(folder / "components.yaml", root, {})
    if not isinstance(components, dict):
        raise SourceError(relative(folder / "components.yaml", root), 1, "components.yaml must be a mapping")
    book = Book(book_id, root, folder, data, components, [], [], [], [], {})
    _check_arithmetic(book)
    context = {**plain(components), "book": plain(data)}
    for number, name in enumerate(data["chapters"], start=1):
        path = folder / "chapters" / str(name)
        if not path.is_file():
            raise SourceError(shown, line_of(data["chapters"], number - 1), f"chapter file '{name}' not found")
        book.chapters.append(load_chapter(path, relative(path, root), context, number, book.prefix))
    for chapter in book.chapters:
        for rule in chapter.rules:
            if rule.id in book.rules:
                first = book.rules[rule.id]
                raise SourceError(rule.file, rule.line, f"rule ID used twice (first at {first.file}:{first.line})",
                                  rule=rule.id)
            book.rules[rule.id] = rule
    for rule in book.rules.values():
        for ref, line in find_cross_refs(rule):
            if ref not in book.rules:
                raise SourceError(rule.file, line, f"cross-reference to unknown rule ID '{ref}'", rule=rule.id)
    book.glossary = _load_glossary(book, context)
    book.questions = _load_questions(book)
    book.changelog = _load_changelog(book)
    book.prose_only = _load_prose_only(book)
    return book


def _load_optional(path: Path, root: Path, empty: Any) -> Any:
    if not path.is_file():
        return empty
    value = load_yaml(path, relative(path, root))
    return empty if value is None else value


def _check_arithmetic(book: Book) -> None:
    shown = book.path("book.yaml")
    data = plain(book.components)
    for index, check in enumerate(book.data.get("checks", []) or []):
        line = line_of(book.data.get("checks"), index)
        expr = check.get("expr") if isinstance(check, dict) else check
        try:
            ok = checks.evaluate(str(expr), data)
            detail = "" if ok else checks.describe_failure(str(expr), data)
        except checks.CheckError as exc:
            raise SourceError(shown, line, f"check '{expr}': {exc}") from exc
        if not ok:
            why = check.get("why", "") if isinstance(check, dict) else ""
            raise SourceError(shown, line, f"component check failed: {expr} ({detail})"
                                           + (f"; {why}" if why else ""))


def _require_rules(book: Book, file: str, line: int | None, ids: Any, what: str) -> list[str]:
    if isinstance(ids, str):
        ids = [ids]
    if not isinstance(ids, list):
        raise SourceError(file, line, f"{what}: 'rules' must be a list of rule IDs")
    for rule_id in ids:
        if rule_id not in book.rules:
            raise SourceError(file, line, f"{what} names unknown rule ID '{rule_id}'", rule=str(rule_id))
    return [str(r) for r in ids]


def _entries(book: Book, name: str) -> tuple[str, list[Any]]:
    shown = book.path(name)
    raw = _load_optional(book.folder / name, book.root, [])
    if not isinstance(raw, list):
        raise SourceError(shown, 1, f"{name} must be a list")
    return shown, raw


def _load_glossary(book: Book, context: dict[str, Any]) -> list[GlossaryTerm]:
    shown, raw = _entries(book, "glossary.yaml")
    terms = []
    for index, item in enumerate(raw):
        line = line_of(raw, index)
        if not isinstance(item, dict) or not {"term", "definition", "rule"} <= item.keys():
            raise SourceError(shown, line, "a glossary entry needs 'term', 'definition' and 'rule'")
        _require_rules(book, shown, line, [item["rule"]], f"glossary term '{item['term']}'")
        definition = render_template(str(item["definition"]), context, shown, line_of(item, "definition"))
        aliases = [str(a) for a in item.get("aliases", []) or []]
        # A term that is also a common word ("set up") can name the phrases to link, or opt out (false).
        autolink = item.get("autolink", True)
        phrases = [str(item["term"]), *aliases] if autolink is True else [str(p) for p in (autolink or [])]
        terms.append(GlossaryTerm(str(item["term"]), definition, str(item["rule"]), aliases, line, phrases))
    return sorted(terms, key=lambda t: t.term.lower())


def _load_questions(book: Book) -> list[Question]:
    shown, raw = _entries(book, "questions.yaml")
    questions, seen = [], set()
    for index, item in enumerate(raw):
        line = line_of(raw, index)
        needed = {"id", "question", "rules", "answers", "assumed", "status"}
        if not isinstance(item, dict) or not needed <= item.keys():
            raise SourceError(shown, line, f"a designer question needs {', '.join(sorted(needed))}")
        qid = str(item["id"])
        if qid in seen:
            raise SourceError(shown, line, f"designer question '{qid}' appears twice")
        seen.add(qid)
        answers = {str(k): str(v) for k, v in dict(item["answers"]).items()}
        assumed = str(item["assumed"])
        if assumed not in answers:
            raise SourceError(shown, line_of(item, "assumed"), f"question {qid}: assumed answer '{assumed}' is "
                                                                f"not one of {sorted(answers)}")
        if item["status"] not in QUESTION_STATUSES:
            raise SourceError(shown, line_of(item, "status"), f"question {qid}: status must be one of "
                                                               f"{', '.join(QUESTION_STATUSES)}")
        source = str(item.get("source", "seed"))
        if source not in QUESTION_SOURCES:
            raise SourceError(shown, line_of(item, "source"), f"question {qid}: source must be one of "
                                                               f"{', '.join(QUESTION_SOURCES)}")
        option_values = {str(k): v for k, v in dict(item.get("option_values") or {}).items()}
        questions.append(Question(
            qid, str(item["question"]), _require_rules(book, shown, line, item["rules"], f"question {qid}"),
            answers, assumed, str(item["status"]), item.get("option"), option_values, source,
            str(item.get("note", "") or ""), line))
    return questions


def _load_changelog(book: Book) -> list[ChangeEntry]:
    shown, raw = _entries(book, "changelog.yaml")
    entries = []
    for index, edition in enumerate(raw):
        line = line_of(raw, index)
        if not isinstance(edition, dict) or "edition" not in edition or "entries" not in edition:
            raise SourceError(shown, line, "a change-log edition needs 'edition' and 'entries'")
        for entry_index, entry in enumerate(edition["entries"] or []):
            entry_line = line_of(edition["entries"], entry_index)
            if not isinstance(entry, dict) or not {"title", "rules", "why"} <= entry.keys():
                raise SourceError(shown, entry_line, "a change-log entry needs 'title', 'rules' and 'why'")
            rules = _require_rules(book, shown, entry_line, entry["rules"], f"change '{entry['title']}'")
            entries.append(ChangeEntry(str(edition["edition"]), str(entry["title"]), rules,
                                       str(entry["why"]), entry_line))
    return entries


def _load_prose_only(book: Book) -> dict[str, str]:
    shown = book.path("prose_only.yaml")
    raw = _load_optional(book.folder / "prose_only.yaml", book.root, {})
    if not isinstance(raw, dict):
        raise SourceError(shown, 1, "prose_only.yaml must map rule IDs to reasons")
    for rule_id, reason in raw.items():
        _require_rules(book, shown, line_of(raw, rule_id), [rule_id], "prose-only entry")
        if not reason:
            raise SourceError(shown, line_of(raw, rule_id), f"prose-only rule {rule_id} needs a reason",
                              rule=str(rule_id))
    return {str(k): str(v) for k, v in raw.items()}
