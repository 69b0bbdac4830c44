"""Engine narration in every language: gettext message catalogs, read with Babel, so translators never touch code.

An engine says every word a player reads through a :class:`Translator` (``_ = translator(__name__).gettext``):
the English sentence is the message ID itself, with named ``str.format`` placeholders
(``_("{player} lays {tile} on {spaces}.").format(...)``) so a translation can put the words in its own order.
Translations live beside the engine in ``engine/<package>/locale/<lang>/LC_MESSAGES/narrate.po``; the
language is chosen by the caller with ``with language("fr"): ...`` (a context variable, so nothing is passed
through the engine's functions).

A ``.po`` file is content, not code: it is read within the engine's folder and bounded in size, its syntax is
checked strictly (:mod:`rulepress.load.po`: a string left open is an error at its line, the plural forms are
bounded), and a message whose translation is fuzzy, empty or does not fill in exactly the placeholders of its
message ID is left out, so the narration falls back to English rather than failing or formatting attacker-chosen
fields.
:func:`catalog_problems` reports each of those (file and line), with every message missing or obsolete; the
gate runs it for each language a book declares.
"""

from __future__ import annotations

import gettext
import re
import string
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from io import BytesIO, StringIO
from pathlib import Path
from typing import Any

from babel.core import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS
from babel.messages.extract import extract as extract_messages
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileError, read_po

from rulepress.errors import SourceError, relative
from rulepress.load import confine, engine_source, po

SOURCE_LANGUAGE = "en"
"""The language engines are written in: their message IDs are the English narration."""

DOMAIN = "narrate"
LOCALE_FOLDER = "locale"
MAX_CATALOG_BYTES = 512 * 1024  # a whole game's narration is a few kilobytes

_language: ContextVar[str] = ContextVar("rulepress_language", default=SOURCE_LANGUAGE)
# Each engine folder's catalog in the current ``language`` block, looked up at its first message there: an engine
# says dozens of messages a move, and looking at the file's time and size for each was most of narrating.  A
# catalog saved meanwhile is read at the next block (`rulepress serve` narrates each move in its own).
_in_block: ContextVar[dict[Path, gettext.NullTranslations] | None] = ContextVar("rulepress_catalogs", default=None)


@contextmanager
def language(lang: str | None) -> Iterator[str]:
    """Narrate in ``lang`` inside the block (``None``: the source language)."""
    token = _language.set(lang or SOURCE_LANGUAGE)
    catalogs = _in_block.set({})
    try:
        yield _language.get()
    finally:
        _in_block.reset(catalogs)
        _language.reset(token)


def current_language() -> str:
    return _language.get()


def in_languages(languages: Iterable[str], say: Callable[[], str]) -> dict[str, str]:
    """``say()`` once in each language, in order: ``{"en": "...", "fr": "..."}``."""
    said = {}
    for lang in languages:
        with language(lang):
            said[lang] = say()
    return said


def book_languages(data: Mapping[str, Any]) -> list[str]:
    """The languages a book is published in, source first, from its ``book.yaml`` (``language``, ``translations``).

    Values that are not language tags are the schema's to report; here they are ignored (a tag becomes part of a
    catalog's path, so ``../x`` must never get that far)."""
    source = data.get("language")
    source = source if _is_tag(source) else SOURCE_LANGUAGE
    more = data.get("translations")
    extra = [lang for lang in more if _is_tag(lang)] if isinstance(more, list) else []
    return list(dict.fromkeys([source, *extra]))


def _is_tag(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[a-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})*", value) is not None


def N_(message: str) -> str:  # noqa: N802 - the name gettext's extractors look for
    """Marks a message for extraction where it is defined; it is translated where it is said (``_(NAMES[k])``)."""
    return message


def NP_(context: str, message: str) -> str:  # noqa: N802 - named like N_
    """Like :func:`N_`, for a message said with a context (``pgettext(context, PHASES[p])``): the context tells
    translators, and the catalog, one ``orange`` (a phase) from another (a colour)."""
    return message


# Babel's Python keywords, and NP_: context first, then the message.
KEYWORDS: dict[str, Any] = {**DEFAULT_KEYWORDS, "NP_": ((1, "c"), 2)}


@lru_cache(maxsize=256)  # asked for on every message an engine says, to see whether the catalog changed
def catalog_path(folder: Path, lang: str) -> Path:
    """``engine/<package>/locale/<lang>/LC_MESSAGES/narrate.po``."""
    return folder / LOCALE_FOLDER / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def template_path(folder: Path) -> Path:
    """``engine/<package>/locale/narrate.pot``: every message the engine says, for translators to start from."""
    return folder / LOCALE_FOLDER / f"{DOMAIN}.pot"


# -- placeholders -----------------------------------------------------------------------------------------------

def placeholders(text: str) -> frozenset[str]:
    """The ``{...}`` fields of a format string, as written (``{n}``, ``{tile}``); ValueError when it does not parse."""
    return frozenset("{" + name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}"
                     for _, name, spec, conv in string.Formatter().parse(text) if name is not None)


def _ids(message: Message) -> tuple[str, ...]:
    return tuple(message.id) if isinstance(message.id, list | tuple) else (message.id,)


def _strings(message: Message) -> tuple[str, ...]:
    return tuple(message.string) if isinstance(message.string, list | tuple) else (message.string,)


def _flaw(message: Message, plurals: int) -> str | None:
    """Why a catalog entry cannot be used (None when it can)."""
    strings = _strings(message)
    if message.fuzzy:
        return "is marked fuzzy (a guess to review): check it and remove the fuzzy flag"
    if not all(strings):  # Babel reads a missing plural form as an empty one
        empty = [str(n) for n, text in enumerate(strings, start=1) if not text]
        return ("has no translation" if len(empty) == len(strings)
                else f"has no translation for plural form {', '.join(empty)} (of {len(strings)})")
    if message.pluralizable and len(strings) != plurals:
        return f"has {len(strings)} plural forms, but the catalog's Plural-Forms header says {plurals}"
    try:
        wanted = frozenset().union(*(placeholders(i) for i in _ids(message)))
        for text in strings:
            found = placeholders(text)
            if found != wanted:
                lost, added = sorted(wanted - found), sorted(found - wanted)
                what = "; ".join(part for part in (f"drops {', '.join(lost)}" if lost else "",
                                                   f"adds {', '.join(added)}, which the engine does not fill in"
                                                   if added else "") if part)
                return f"translation {text!r} {what} (it must use exactly {', '.join(sorted(wanted)) or 'no field'})"
    except ValueError as exc:
        return f"translation is not a valid format string ({exc}; write a literal brace as {{{{ or }}}})"
    return None


# -- reading catalogs -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Read:
    catalog: Catalog | None
    problem: str | None = None  # why the file as a whole cannot be used
    line: int | None = None
    missing: bool = False
    column: int | None = None


def _read(folder: Path, lang: str, shown: str) -> _Read:
    """The catalog of ``lang`` for the engine in ``folder``, or why it cannot be read."""
    path = catalog_path(folder, lang)
    if not confine.exists(path):
        return _Read(None, missing=True)
    try:
        # Inside the engine's folder only, bounded, and UTF-8 (a bad byte is named by line and column).
        text = confine.decode(confine.read_bytes(folder, path, shown, MAX_CATALOG_BYTES), shown)
        po.check(text, shown)  # strictly: Babel reads `msgstr "Lapin` as "Lapi" and would hang on nplurals=10**11
        catalog = read_po(StringIO(text), abort_invalid=True)
        _compiled(catalog)  # the header's Plural-Forms must be one gettext can evaluate
    except SourceError as exc:
        return _Read(None, exc.message, exc.line, column=exc.column)
    except PoFileError as exc:
        return _Read(None, f"not a valid .po file: {exc}", getattr(exc, "lineno", None))
    except (ValueError, UnknownLocaleError) as exc:  # a header gettext or Babel cannot take (Plural-Forms, Language)
        return _Read(None, f"the header cannot be used: {exc}")
    return _Read(catalog)


def _compiled(catalog: Catalog) -> gettext.GNUTranslations:
    """``catalog`` as gettext's own translations: its lookup and Plural-Forms evaluation, no hand-written parser."""
    data = BytesIO()
    write_mo(data, catalog)
    data.seek(0)
    try:
        return gettext.GNUTranslations(data)
    except OSError as exc:  # gettext's word for a catalog it cannot parse
        raise ValueError(str(exc)) from exc


@lru_cache(maxsize=64)
def _translations(folder: Path, lang: str, stamp: tuple[int, int]) -> gettext.NullTranslations:
    """The usable entries of one catalog as gettext translations (English for anything left out)."""
    catalog = _read(folder, lang, str(catalog_path(folder, lang))).catalog
    if catalog is None:
        return gettext.NullTranslations()
    for message in list(catalog)[1:]:  # [0] is the header
        if _flaw(message, catalog.num_plurals) is not None:
            catalog.delete(message.id, message.context)
    return _compiled(catalog)


def _stamp(path: Path) -> tuple[int, int]:
    try:
        info = path.stat()
    except OSError:
        return (0, -1)
    return (info.st_mtime_ns, info.st_size)


class Translator:
    """An engine's words in the current :func:`language`: ``gettext``, ``ngettext``, ``pgettext``, ``npgettext``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _now(self) -> gettext.NullTranslations | None:
        lang = _language.get()
        if lang == SOURCE_LANGUAGE:
            return None
        in_block = _in_block.get()
        found = in_block.get(self.folder) if in_block is not None else None
        if found is None:
            # Keyed by the file's time and size: `rulepress serve` sees a saved catalog without a restart.
            found = _translations(self.folder, lang, _stamp(catalog_path(self.folder, lang)))
            if in_block is not None:
                in_block[self.folder] = found
        return found

    def gettext(self, message: str) -> str:
        found = self._now()
        return message if found is None else found.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        found = self._now()
        if found is None:
            return singular if n == 1 else plural
        return found.ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        found = self._now()
        return message if found is None else found.pgettext(context, message)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        found = self._now()
        if found is None:
            return singular if n == 1 else plural
        return found.npgettext(context, singular, plural, n)


def translator(module: str) -> Translator:
    """The translator of the engine package that module ``module`` (``__name__``) belongs to."""
    file = getattr(sys.modules.get(module), "__file__", None)
    if file is None:
        raise ValueError(f"module {module!r} has no file: pass an engine module's __name__")
    return Translator(Path(file).resolve().parent)


# -- the check --------------------------------------------------------------------------------------------------

Key = tuple[str | None, str]  # (context, message ID)


@dataclass(frozen=True)
class Said:
    """One message an engine says, where it says it."""

    ids: tuple[str, ...]  # (singular,) or (singular, plural)
    context: str | None
    where: str  # the first place, "narrate.py:42"
    files: tuple[str, ...] = ()  # every file that says it ("narrate.py", "render.py")
    comments: tuple[str, ...] = ()  # "# TRANSLATORS: ..." comments just above it, for the template


COMMENT_TAG = "TRANSLATORS:"


def extract(folder: Path) -> dict[Key, Said]:
    """Every message the engine in ``folder`` marks for translation, with Babel's Python extractor."""
    found: dict[Key, Said] = {}
    for source in sorted(folder.rglob("*.py")):
        if "__pycache__" in source.parts:
            continue
        name = str(source.relative_to(folder))
        text = engine_source.read(source, errors="strict").encode("utf-8")
        for line, message, comments, context in _messages(text):
            ids = tuple(message) if isinstance(message, tuple) else (message,)
            key = (context, ids[0])
            known = found.get(key) or Said(ids, context, f"{name}:{line}")
            found[key] = Said(known.ids, context, known.where, tuple(dict.fromkeys([*known.files, name])),
                              tuple(dict.fromkeys([*known.comments, *comments])))
    return found


@lru_cache(maxsize=256)
def _messages(text: bytes) -> tuple[tuple[int, Any, tuple[str, ...], str | None], ...]:
    """Babel's extraction of one engine file's text, once per text in this process: the gate and the site both
    ask, again for every book built in a session."""
    return tuple((line, message, tuple(comments), context) for line, message, comments, context in extract_messages(
        "python", BytesIO(text), keywords=KEYWORDS, comment_tags=(COMMENT_TAG,), strip_comment_tags=True))


def _language_name(lang: str) -> str:
    try:
        return str(Locale.parse(lang).english_name)
    except (ValueError, UnknownLocaleError):
        return lang


def catalog_problems(folder: Path, languages: Iterable[str], root: Path) -> list[str]:
    """Every reason the engine in ``folder`` would not narrate in each of ``languages`` (file and line each)."""
    wanted = [lang for lang in languages if lang != SOURCE_LANGUAGE]
    if not wanted:
        return []
    try:
        said = extract(folder)
    except (SyntaxError, UnicodeDecodeError, OSError) as exc:  # the import checks the same files: rare
        return [f"{relative(folder, root)}: its messages cannot be extracted: {exc}"]
    if not said:
        return []  # an engine without translatable narration: nothing to translate
    problems = []
    for lang in wanted:
        path = catalog_path(folder, lang)
        shown = relative(path, root)
        read = _read(folder, lang, shown)
        if read.missing:
            problems.append(f"{shown}: no {_language_name(lang)} catalog for the engine's narration, which the book "
                            f"declares; start it from {relative(template_path(folder), root)} (nox -s catalogs)")
            continue
        if read.catalog is None:
            where = f":{read.line}" + (f":{read.column}" if read.column else "") if read.line else ""
            problems.append(f"{shown}{where}: {read.problem}")
            continue
        problems += _entry_problems(read.catalog, said, lang, shown, relative(folder, root))
    return problems


def _entry_problems(catalog: Catalog, said: dict[Key, Said], lang: str, shown: str, engine: str) -> list[str]:
    problems = []
    if str(catalog.locale or "") != lang:
        problems.append(f"{shown}: its header says Language: {catalog.locale or '(none)'}, expected {lang}")
    entries = {(m.context, _ids(m)[0]): m for m in list(catalog)[1:]}
    for key, message in entries.items():
        label = _label(key)
        if key not in said:
            problems.append(f"{shown}:{message.lineno}: {label} is no longer said by the engine (obsolete): "
                            "delete it (nox -s catalogs)")
            continue
        flaw = _flaw(message, catalog.num_plurals)
        if flaw is not None:
            problems.append(f"{shown}:{message.lineno}: {label} {flaw}; until then it is narrated in English")
        elif _ids(message) != said[key].ids:
            problems.append(f"{shown}:{message.lineno}: {label} has the plural {_ids(message)[1:]!r} but "
                            f"{engine}/{said[key].where} says {said[key].ids[1:]!r}")
    for message in catalog.obsolete.values():
        problems.append(f"{shown}:{message.lineno}: obsolete entry ({_label((message.context, _ids(message)[0]))}, "
                        "#~): delete it")
    for key, where in said.items():
        if key not in entries:
            problems.append(f"{shown}: no translation of {_label(key)} ({engine}/{where.where}); it is narrated "
                            "in English")
    return problems


def _label(key: Key) -> str:
    context, message = key
    return f'"{message}"' + (f" (context {context})" if context else "")
