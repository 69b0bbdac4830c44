"""Rule provenance (``rules_src/<book>/provenance.yaml``): where each rule comes from.

Each entry names a rule and says which passage of the source text (the seed) it carries over, which designer
questions record why it was added or decided, or both::

    lm.turn.light:
      source: "Light: 'Turn one of your unlit wick tokens to its lit side'"   # seed section and a short quote
      questions: [lm.q17]        # designer questions that decided or added something (optional)
      added: false               # true when the rule states something the seed does not

``added: true`` marks a rule that states something the seed does not (an extra condition, a tie-break, what
happens at a limit, a reconstructed component fact); it must name the question that records the decision, so
nothing the rewrite or an engine invented goes unasked.  A rule that only picks one reading of something the
seed leaves ambiguous names its question without being marked added.  Quotes (in single quotes inside
``source``) are at most :data:`MAX_QUOTE_WORDS` words, and each must be the seed's own words: when book.yaml names
the seed (``source: seed.txt``, a file in the book's folder) and it is there, a quote it does not hold is an error
at its line (its parts around an ellipsis in order; case, spacing, curly quotes and dashes aside).  A book that names
no seed, or whose seed is not there, cannot have its quotes checked: :func:`unchecked` says why, and lint warns of
each quote (``quote-unchecked``).  :func:`missing` lists the rules with no entry at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rulepress.errors import SourceError
from rulepress.load import confine
from rulepress.load.confine import shown as shown_path
from rulepress.load.problems import Collector
from rulepress.load.rules import rule_hint
from rulepress.load.yamlsrc import line_of, load_yaml

if TYPE_CHECKING:
    from rulepress.load.book import Book

FILE_NAME = "provenance.yaml"
KEYS = ("source", "questions", "added")
MAX_QUOTE_WORDS = 12  # a quote locates the passage; longer ones start copying the seed's sentences
MAX_SEED_BYTES = 4 * 1024 * 1024  # a rulebook's text; the bundled seeds are 5 to 20 kB
# A quote is text in single quotes; an apostrophe inside a word (Zone's) neither opens nor closes one.
QUOTE = re.compile(r"(?<!\w)'(.+?)'(?!\w)")
ELLIPSIS = ("...", "\u2026")


@dataclass(frozen=True)
class Provenance:
    rule: str
    source: str | None
    questions: tuple[str, ...]
    added: bool
    line: int | None
    source_line: int | None = field(default=None, compare=False)  # the line of its ``source``


def provenance_path(book: Book) -> Path:
    return book.folder / FILE_NAME


def load_provenance(book: Book) -> dict[str, Provenance]:
    """The book's provenance entries by rule ID ({} when the book has no provenance.yaml).

    Raises :class:`SourceError` (or :class:`~rulepress.load.problems.SourceErrors`, all problems at once) for an
    unknown rule or question ID, an unknown key, a wrongly typed value, an entry with neither source nor
    questions, and ``added: true`` without a question.
    """
    path = provenance_path(book)
    if not confine.exists(path):
        return {}
    shown = shown_path(path, book.root)
    data = load_yaml(path, shown, root=book.root)
    found = parse_provenance(data, shown, set(book.rules), {q.id for q in book.questions})
    seed = seed_text(book)
    if seed is not None:
        check_quotes(found, seed, shown, str(book.data.get("source")))
    return found


def _normal(text: str) -> str:
    """Text as quotes are matched: lower case, one space for any run of white space, straight quotes, hyphens."""
    text = text.translate(_PLAIN_MARKS)
    return " ".join(text.split()).lower()


_PLAIN_MARKS = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                              "\u2014": "-", "\u00a0": " "})


def seed_path(book: Book) -> Path | None:
    """The seed book.yaml names (``source:``), or None when it names none."""
    named = book.data.get("source") if isinstance(book.data, dict) else None
    return book.folder / named if isinstance(named, str) else None


def seed_text(book: Book) -> str | None:
    """The seed's text, normalised for matching, when book.yaml names one that is there (read as any source:
    inside the project, a regular file); None otherwise (:func:`unchecked` says why)."""
    path = seed_path(book)
    if path is None or not confine.exists(path):
        return None
    shown = shown_path(path, book.root)
    text = confine.read_text(book.root, path, shown, MAX_SEED_BYTES)
    return _normal(text)


def unchecked(book: Book) -> str | None:
    """Why the book's quotes cannot be checked against its seed, or None when they are."""
    path = seed_path(book)
    if path is None:
        return "book.yaml names no source text to check it against (source: seed.txt)"
    if not confine.exists(path):
        return f"book.yaml's source, {shown_path(path, book.root)}, is not there"
    return None


def quote_found(quote: str, seed: str) -> bool:
    """Whether ``seed`` (normalised) holds ``quote``: its parts around each ellipsis, in order."""
    place = 0
    for part in re.split(r"\.\.\.|\u2026", quote):
        wanted = _normal(part)
        if not wanted:
            continue
        place = seed.find(wanted, place)
        if place < 0:
            return False
        place += len(wanted)
    return True


def check_quotes(entries: dict[str, Provenance], seed: str, shown: str, seed_name: str) -> None:
    """Raise every quote of ``entries`` that the seed does not hold, each at its entry's line."""
    found = Collector()
    for entry in entries.values():
        for quote in QUOTE.findall(entry.source or ""):
            if not quote_found(quote, seed):
                found.add(SourceError(shown, entry.source_line or entry.line, f"the quote '{quote}' is not in the "
                                      f"source text ({seed_name}, book.yaml's source): quote its own words",
                                      rule=entry.rule))
    found.raise_if_any()


def parse_provenance(data: Any, shown: str, rule_ids: set[str], question_ids: set[str]) -> dict[str, Provenance]:
    """Check the parsed ``data`` of the file shown as ``shown`` against the book's rule and question IDs."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SourceError(shown, line_of(data, default=1), "provenance must be a mapping from rule ID to its "
                                                           "entry (source, questions, added)")
    found = Collector()
    result: dict[str, Provenance] = {}
    for rule, entry in data.items():
        line = line_of(data, rule)
        if not isinstance(rule, str) or rule not in rule_ids:
            found.add(SourceError(shown, line, f"unknown rule ID '{rule}'{rule_hint(rule, rule_ids)}", rule=str(rule)))
            continue
        try:
            result[rule] = _entry(rule, entry, line, shown, question_ids, found)
        except SourceError as error:
            found.add(error)
    found.raise_if_any()
    return result


def _entry(rule: str, entry: Any, line: int | None, shown: str, question_ids: set[str],
           found: Collector) -> Provenance:
    def error(message: str, at: int | None = line) -> SourceError:
        return SourceError(shown, at, message, rule=rule)

    if not isinstance(entry, dict):
        raise error("an entry must be a mapping with 'source', 'questions' and/or 'added'")
    for key in entry:
        if key not in KEYS:
            found.add(error(f"unknown key '{key}' (allowed: {', '.join(KEYS)})", line_of(entry, key, line)))
    source = entry.get("source")
    if source is not None and (not isinstance(source, str) or not source.strip()):
        raise error("'source' must be a non-empty text: the seed's section and a short quote",
                    line_of(entry, "source", line))
    if source is not None:
        for quote in QUOTE.findall(source):
            words = len([word for word in quote.split() if word not in ELLIPSIS])
            if words > MAX_QUOTE_WORDS:
                found.add(error(f"the quote '{quote}' has {words} words: quote at most {MAX_QUOTE_WORDS}, enough "
                                "to find the passage in the seed", line_of(entry, "source", line)))
    questions = entry.get("questions") or []
    if not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
        raise error("'questions' must be a list of question IDs", line_of(entry, "questions", line))
    for index, question in enumerate(questions):
        if question not in question_ids:
            found.add(error(f"unknown question ID '{question}'", line_of(questions, index, line)))
    added = entry.get("added", False)
    if not isinstance(added, bool):
        raise error("'added' must be true or false", line_of(entry, "added", line))
    if source is None and not questions:
        raise error("neither a source passage nor a designer question: say where the rule comes from")
    if added and not questions:
        raise error("'added: true' needs a designer question recording why the rule was added",
                    line_of(entry, "added", line))
    return Provenance(rule, source, tuple(questions), added, line, line_of(entry, "source", line))


def missing(book: Book, provenance: dict[str, Provenance]) -> list[str]:
    """The book's rule IDs, in book order, that have no provenance entry."""
    return [rule for rule in book.rules if rule not in provenance]
