"""The fixed words of the site and the PDFs ("Contents", "rule 4.4", "At a glance"...), one table per language.

Each table is plain data, ``rulepress/render/strings/<lang>.yaml``, checked against the English one when it is
first used: the same keys, every value a string, the same ``{placeholders}``. A problem names the file and the
line. ``strings(lang)`` gives the table; ``english_words(lang)`` the English words a ``lang`` edition must not
show (for the read-back check of the PDFs, publish/pdfchecks.py).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from rulepress.data import package_path
from rulepress.errors import SourceError
from rulepress.load.yamlsrc import line_of, load_yaml

FOLDER = package_path("render", "strings")
BASE = "en"


@dataclass(frozen=True)
class Strings:
    lang: str
    table: dict[str, str]

    def __call__(self, key: str, **values: Any) -> str:
        """The string ``key``, its ``{placeholders}`` filled in from ``values``."""
        text = self.table[key]
        return text.format(**values) if values else text


def _shown(path: Path) -> str:
    return f"rulepress/render/strings/{path.name}"


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def available() -> list[str]:
    return sorted(path.stem for path in FOLDER.glob("*.yaml"))


@cache
def _load(lang: str) -> dict[str, str]:
    path = FOLDER / f"{lang}.yaml"
    shown = _shown(path)
    if not re.fullmatch(r"[a-z]{2,3}(-[A-Z]{2})?", lang) or not path.is_file():
        raise SourceError(shown, None, f"no table of the site's and PDFs' fixed words for language '{lang}' "
                                       f"(have: {', '.join(available())}); write {shown} with the keys of "
                                       f"{_shown(FOLDER / (BASE + '.yaml'))}")
    data = load_yaml(path, shown)
    if not isinstance(data, dict):
        raise SourceError(shown, None, "must be a mapping of keys to strings")
    problems = [SourceError(shown, line_of(data, key), f"'{key}' must be a string, not {type(value).__name__}")
                for key, value in data.items() if not isinstance(value, str)]
    if lang != BASE:
        base = _load(BASE)
        problems += [SourceError(shown, None, f"'{key}' is missing (every key of {BASE}.yaml is needed)")
                     for key in base if key not in data]
        problems += [SourceError(shown, line_of(data, key), f"unknown key '{key}' ({BASE}.yaml has no such key)")
                     for key in data if key not in base]
        for key, value in data.items():
            if key in base and isinstance(value, str):
                try:
                    wanted, got = _fields(base[key]), _fields(value)
                except ValueError as exc:
                    problems.append(SourceError(shown, line_of(data, key), f"'{key}': {exc}"))
                    continue
                if wanted != got:
                    problems.append(SourceError(shown, line_of(data, key),
                                                f"'{key}' must use the placeholders {sorted(wanted) or 'none'} "
                                                f"as {BASE}.yaml does, not {sorted(got) or 'none'}"))
    if problems:
        raise problems[0] if len(problems) == 1 else SourceError(
            shown, problems[0].line, "; ".join(f"line {p.line}: {p.message}" if p.line else p.message
                                               for p in problems))
    return {str(key): str(value) for key, value in data.items()}


def strings(lang: str) -> Strings:
    """The fixed words in ``lang``; raises SourceError naming the table's file and line when it is wrong."""
    return Strings(lang, _load(lang))


def english_words(lang: str) -> list[str]:
    """Phrases of the English table that the ``lang`` table does not use: an edition in ``lang`` that shows one
    still has English in it (a string the renderer did not take from the table).

    A phrase is a run of two words or more between placeholders and punctuation ("Worked examples", "at a
    glance"), or one capitalised word of five letters or more ("Contents", "Glossary"): shorter single words
    ("rule", "see") are too easily part of a name or of the other language.
    """
    if lang == BASE:
        return []
    ours = " ".join(_load(lang).values())
    found: set[str] = set()
    for key, text in _load(BASE).items():
        if key == "language_name":
            continue
        for piece in re.split(r"\{[^}]*\}|[.,;:()✔]", text):
            words = re.findall(r"[A-Za-z][A-Za-z']*", piece)
            phrase = " ".join(words)
            if len(words) >= 2 or (words and len(phrase) >= 5 and phrase[0].isupper()):
                if not re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", ours):
                    found.add(phrase)
    return sorted(found, key=lambda p: (-len(p), p))
