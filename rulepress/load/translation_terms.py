"""Display words for the component data's words in a translation (``rules_src/<book>/<lang>/terms.yaml``).

Chapters are templates over ``components.yaml``, so ``{{ t.flower.type }}`` prints the data's own word ("poppy").
A translation maps each such word to its display word (``poppy: coquelicot``). Only the translation's *text
rendering* sees the mapping: its template context holds :class:`DataWord`s, which print the translated word but
compare and hash as the source's value, so ``{% if t.flower.type == 'poppy' %}``, ``in`` tests and lookups behave as
in the source. The book's ``components`` (what ``checks:`` and the engines see) stay the source's data, untouched.

Mapped are the string *values* that are words (two letters in a row); keys, values under an ``id`` key, names such
as ``T03``, ``d4`` or ``ll.q1``, lane letters, patterns (``#..``) and numbers print as they are. A word without a
display word prints the source's word and, where a text prints it, is reported as the missing item ``term:<word>``
with the file and line that print it: that is found by rendering the text once more with each untranslated word
tagged (:meth:`Terms.printed`), so only words a text really prints are reported, whatever filters they went through.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rulepress.errors import SourceError
from rulepress.load import textpolicy
from rulepress.load.problems import Collector
from rulepress.load.yamlsrc import line_of

_WORD = re.compile(r"[^\W\d_]{2}")  # two letters in a row: a word, not a lane letter, a pattern or a number
_NAME = re.compile(r"[A-Za-z]*\d+[A-Za-z\d]*|[a-z]+(\.[a-z0-9-]+)+")  # T03, d4, M1, ll.q1: names print as they are
_TAG = re.compile("\ue000([0-9]+)\ue001")  # private-use characters: in no rule text, and no case change alters them


class DataWord(str):
    """A string of the component data as a translation prints it: the translation's word, equal to (and hashed
    as) the source's value."""

    source: str

    def __new__(cls, text: str, source: str) -> DataWord:
        word = super().__new__(cls, text)
        word.source = source
        return word

    def __eq__(self, other: object) -> bool:
        return self.source == (other.source if isinstance(other, DataWord) else other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.source)

    def __reduce__(self) -> tuple[type[DataWord], tuple[str, str]]:  # copies and pickles keep both spellings
        return DataWord, (str(self), self.source)


def needs_term(value: Any, key: Any = None) -> bool:
    """Whether ``value`` (found under ``key``) is a word of the data a translation gives a display word."""
    return (isinstance(value, str) and key != "id" and _WORD.search(value) is not None
            and _NAME.fullmatch(value) is None)


def data_words(components: Any) -> dict[str, tuple[Any, Any]]:
    """Every word of the data, in order, with the container and key (or index) of its first place (for its line)."""
    found: dict[str, tuple[Any, Any]] = {}
    for container, place, value, key in _leaves(components, None):
        if needs_term(value, key):
            found.setdefault(value, (container, place))
    return found


def _leaves(value: Any, key: Any) -> Iterator[tuple[Any, Any, Any, Any]]:
    """(container, key or index, value, key) of each leaf; a list's items count as found under the list's key."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for place, item in items:
        name = place if isinstance(value, dict) else key
        if isinstance(item, (dict, list)):
            yield from _leaves(item, name)
        else:
            yield value, place, item, name


@dataclass
class Terms:
    """A translation's display words (source word -> translated word) and the data words it lacks."""

    words: dict[str, str]
    file: str  # the terms file, as shown
    missing: list[str] = field(default_factory=list)  # words of the data with no display word, in the data's order
    printed: dict[str, list[tuple[str, int | None]]] = field(default_factory=dict)  # missing word -> where printed

    def context(self, components: Any, tagged: bool = False) -> Any:
        """``components`` as plain dicts and lists whose words print translated (``tagged``: each missing word
        carries a tag, to find where a text prints it)."""
        index = {word: number for number, word in enumerate(self.missing)}

        def mapped(value: Any, key: Any) -> Any:
            if isinstance(value, dict):
                return {name: mapped(item, name) for name, item in value.items()}
            if isinstance(value, list):
                return [mapped(item, key) for item in value]
            if not needs_term(value, key):
                return value
            if value in self.words:
                return DataWord(self.words[value], value)
            return DataWord(f"\ue000{index[value]}\ue001{value}" if tagged else value, value)

        return mapped(components, None)

    def note_printed(self, text: str, file: str, lines: list[int] | int | None, template: str = "") -> None:
        """Record each missing word ``text`` (rendered over the tagged context) prints, with its line: ``lines``
        gives each rendered line's source line (a chapter), or is the first line of the text (a YAML field)."""
        source_lines = template.split("\n")
        for number, line in enumerate(text.split("\n")):
            if isinstance(lines, list):
                where: int | None = lines[number] if number < len(lines) else None
            else:
                where = None if lines is None else lines + number
            if where is not None and source_lines != [""]:
                where = _printing_line(source_lines, where)
            for match in _TAG.finditer(line):
                index = int(match.group(1))
                if index < len(self.missing):
                    places = self.printed.setdefault(self.missing[index], [])
                    if (file, where) not in places:
                        places.append((file, where))


def _printing_line(source_lines: list[str], line: int) -> int:
    """The line of the ``{{ … }}`` that printed a word rendered on ``line``: a loop's second and later rows are
    marked with the line after the loop's body (the ``{% endfor %}``), so look up to the nearest expression."""
    for candidate in range(min(line, len(source_lines)), 0, -1):
        if "{{" in source_lines[candidate - 1]:
            return candidate
    return line


def load_terms(raw: Any, components: Any, shown: str, components_file: str, found: Collector) -> Terms:
    """The display words of ``raw`` (the parsed, schema-checked terms file, or None); each term for a word the data
    does not have, and each display word that is not plain text, is reported."""
    words = data_words(components)
    terms: dict[str, str] = {}
    for key, value in (raw or {}).items():
        line = line_of(raw, key)
        if key not in words:
            close = difflib.get_close_matches(str(key), list(words), n=1, cutoff=0.6)
            known = ", ".join(f"'{word}'" for word in list(words)[:8]) + (", ..." if len(words) > 8 else "")
            hint = f"did you mean '{close[0]}'?" if close else f"its words: {known}" if words else "it has no words"
            found.add(SourceError(shown, line, f"'{key}' is not a word of {components_file} ({hint}); a term gives "
                                               "the display word of a word the component data prints"))
            continue
        with found.collecting():
            textpolicy.check_plain(value, shown, line, f"the display word of '{key}'")
        terms[key] = value
    return Terms(terms, shown, [word for word in words if word not in terms])


def source_place(components: Any, word: str) -> int | None:
    """The line of ``word``'s first place in the component data."""
    place = data_words(components).get(word)
    return None if place is None else line_of(place[0], place[1])
