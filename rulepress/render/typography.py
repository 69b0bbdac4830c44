"""A language's typography, applied to the text of rendered HTML (the site's pages and the PDFs' source).

French (the only language with rules here; every other language is left as written):

- a narrow no-break space (U+202F) before ``; ! ?`` and a no-break space (U+00A0) before ``:``, whatever
  space the author typed (none, a space, a newline);
- straight double quotes ``"…"`` become ``« … »``, and the inside of « » gets no-break spaces;
- terms sort by the Unicode Collation Algorithm (pyuca), so accents sort with their letter ("écluse" between
  "eau" and "Ecole"), not after "z" as code points would.

Only text nodes change. Tags and their attributes (``href``, ``src``, data URIs, and ``alt``, which is read
aloud rather than printed), comments, and the content of ``code``, ``pre``, ``kbd``, ``samp``, ``script``,
``style``, ``svg`` and ``math`` pass through byte for byte, as do URLs written out in the text; a text node with
nothing to change is passed through as it came, entities and all.

Hyphenation, for the PDFs (``typeset_html(..., hyphenate=True)``), in every language pyphen has patterns for:
every word of five letters or more gets soft hyphens (U+00AD) where pyphen's dictionary for ``lang`` allows a
break (the dictionaries WeasyPrint's ``hyphens: auto`` uses). WeasyPrint's own automatic hyphenation only ever
tries the first word of the next line, which left English justified with loose lines and almost no hyphens; with
every break point marked, the line breaker picks the best one (the template says ``hyphens: manual``). Never
hyphenated: headings, terms and tables (``NO_HYPHENS``), code, words with a capital (names), and words
joined to others by ``. - _ / @ #`` or digits (rule IDs, card IDs, commands, file names).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import cache, lru_cache

import pyphen

NBSP = "\u00a0"
SOFT_HYPHEN = "\u00ad"
NNBSP = "\u202f"
_SPACES = " \t\r\n\f" + NBSP + NNBSP + "\u2009"
_SP = f"[{re.escape(_SPACES)}]"

# A tag, a comment, a doctype or CDATA; quoted attribute values may hold ">".
_TAG = re.compile(r"<(?:!--.*?--|!\[CDATA\[.*?\]\]|![^>]*|/?[A-Za-z][^\s/>]*(?:[^>\"']|\"[^\"]*\"|'[^']*')*)>",
                  re.DOTALL)
_TAG_NAME = re.compile(r"<(/?)([A-Za-z][^\s/>]*)")
# Elements whose content is not prose: never typeset. script and style are raw text (their "<" is not a tag).
_VERBATIM = {"code", "pre", "kbd", "samp", "var", "svg", "math", "textarea"}
_RAW_TEXT = {"script", "style"}
# Phrasing elements: text on either side of them is one line of text, so spacing carries across them.
_INLINE = {"a", "abbr", "b", "bdi", "bdo", "cite", "code", "del", "dfn", "em", "i", "ins", "kbd", "mark", "q", "s",
           "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var"}

_URL = re.compile(r"(?:\b(?:https?|ftp|file)://|\bmailto:|\bwww\.)[^\s<>\"«»]+", re.IGNORECASE)
# Punctuation used as punctuation: followed by the end of the text, a space or more punctuation; "10:30",
# "a:b" and "?x=1" are not.
_PUNCT = re.compile(_SP + r"*([;!?]+|:)(?=$|" + _SP + r"|[»)\].,;:!?…'\"’”])")
_OPENERS = set("([{«‹—–-/'‘" + _SPACES)


def french(text: str, before: str = "") -> str:
    """French spacing and quotation marks in one run of plain text; ``before`` is the character that precedes
    it on the page (from an earlier text node), which decides whether a leading ``"`` opens or closes."""
    pieces = _URL.split(text)
    urls = _URL.findall(text)
    out = []
    for index, piece in enumerate(pieces):
        piece = _french_piece(piece, before)
        out.append(piece)
        if index < len(urls):
            out.append(urls[index])
            before = urls[index][-1]
        elif piece:
            before = piece[-1]
    return "".join(out)


def _french_piece(text: str, before: str) -> str:
    # Worked on with the preceding character in front, so that every rule sees the context it depends on.
    done = _french_rules(before + text)
    return done[len(before):] if done.startswith(before) else _french_rules(text)


def _french_rules(text: str) -> str:
    # Straight double quotes: an opening one follows the start of the text, a space or an opening bracket.
    chars: list[str] = []
    for char in text:
        if char == '"':
            char = "«" if not chars or chars[-1] in _OPENERS else "»"
        chars.append(char)
    text = "".join(chars)
    text = re.sub("«" + _SP + "*", "«" + NBSP, text)
    text = re.sub(r"(?<=[^" + re.escape(_SPACES) + "])" + _SP + "*»", NBSP + "»", text)

    def spaced(match: re.Match[str]) -> str:
        start = match.start()
        if start == 0 or text[start - 1] in "([{«" + _SPACES:
            return match.group(0)  # nothing on the line before it to space it from
        return (NBSP if match.group(1) == ":" else NNBSP) + match.group(1)

    return _PUNCT.sub(spaced, text)


RULES: dict[str, Callable[[str, str], str]] = {"fr": french}

# Elements whose words are never hyphenated: headings (and the running heads and bookmarks made from them), the
# title, terms being defined, table heads and cells, the contents, and a glossary term where it is used.  A table
# cell is set ragged, and WeasyPrint (70.x) takes a cell's text up to a soft hyphen as one unbreakable piece when
# it sizes the columns: one hyphenated word made a table wider than its page (Lantern's designer questions).
NO_HYPHENS = {"title", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "th", "td", "nav"}
MIN_WORD = 5  # letters; shorter words are never broken (with 2 letters at least on either side: CSS's "5 2 2")
# A run of lower-case letters, with what touches it on either side: a word joined to another by one of these, or
# to a digit, is part of a name (ll.components, amber-3, dusk_in_refill, --impact), never broken.
_WORD = re.compile(r"(?<![\w.\-_/@#:\u2010\u2011])([^\W\d_]+)(?![\w\-_/@#\u2010\u2011]|\.\w)")


@cache
def _dictionary(lang: str) -> pyphen.Pyphen | None:
    found = pyphen.language_fallback(lang.replace("-", "_"))
    return pyphen.Pyphen(lang=found, left=2, right=2) if found else None


@lru_cache(maxsize=65536)
def _hyphenated_word(word: str, lang: str) -> str:
    dictionary = _dictionary(lang)
    if dictionary is None or len(word) < MIN_WORD or not word.islower():
        return word
    return dictionary.inserted(word, hyphen=SOFT_HYPHEN)


def soft_hyphens(text: str, lang: str) -> str:
    """``text`` with soft hyphens where ``lang``'s dictionary allows a break (see the module's notes)."""
    if _dictionary(lang) is None:
        return text
    pieces = _URL.split(text)
    urls = _URL.findall(text)
    out = []
    for index, piece in enumerate(pieces):
        out.append(_WORD.sub(lambda m: _hyphenated_word(m.group(1), lang), piece))
        if index < len(urls):
            out.append(urls[index])
    return "".join(out)


def typeset(text: str, lang: str) -> str:
    """Plain text (a title, a navigation label) in ``lang``'s typography."""
    rule = RULES.get(lang)
    return rule(text, "") if rule else text


def typeset_html(source: str, lang: str, hyphenate: bool = False, joined: tuple[str, ...] = (),
                 spacing: bool = True) -> str:
    """An HTML document or fragment with ``lang``'s typography applied to its text nodes only; ``hyphenate``
    (the PDFs) also marks the break points of its words, and a word of ``joined`` ("rule", "p.") is tied to the
    number or rule ID that follows it by a no-break space, so that "rule 4.4" and "p. 11" are never split.
    ``spacing=False`` leaves the language's spacing and quotation marks to a later pass over the whole page."""
    spaces = RULES.get(lang) if spacing else None
    breaking = hyphenate and _dictionary(lang) is not None
    # before a number ("rule 4.4", "p. 11") or a rule ID ("rule ll.challenge.mix", in the designer's steps)
    tie = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, joined)) + r") (?=\d|[a-z]+\.[a-z])") if joined else None
    if spaces is None and not breaking and tie is None:
        return source

    def rule(text: str, before: str, plain: bool) -> str:
        text = spaces(text, before) if spaces else text
        text = tie.sub("\\1" + NBSP, text) if tie else text
        return soft_hyphens(text, lang) if breaking and plain else text

    out: list[str] = []
    last_text: int | None = None  # index in ``out`` of the last text node emitted
    before = ""
    skip: list[str] = []  # open verbatim elements
    unbroken: list[str] = []  # open elements whose words are not hyphenated
    position = 0
    while position < len(source):
        match = _TAG.search(source, position)
        end = match.start() if match else len(source)
        if end > position:
            segment = source[position:end]
            if skip:
                out.append(segment)
                before, last_text = html.unescape(segment)[-1:], None  # "`x` :" spaces from the code's end
            else:
                original = html.unescape(segment)
                text = original
                if last_text is not None and out[last_text].endswith("«" + NBSP):
                    text = text.lstrip(_SPACES)  # "«<em> mot": the quote already has its space
                stripped = out[last_text].rstrip(_SPACES) if last_text is not None else ""
                if (last_text is not None and text.lstrip(_SPACES)[:1] in tuple(";:!?»")
                        and stripped and not stripped.endswith("«") and stripped != out[last_text]):
                    # "word <em>!</em>": the space before the punctuation ended the previous text node.
                    text = out[last_text][len(stripped):] + text
                    out[last_text] = stripped
                    before = html.unescape(stripped)[-1:]
                changed = rule(text, before, not unbroken)
                out.append(segment if changed == original else html.escape(changed, quote=False))
                if changed:  # an emptied node ("«<em> </em>") leaves the context to the one before it
                    last_text, before = len(out) - 1, changed[-1]
        if match is None:
            break
        tag = match.group(0)
        position = match.end()
        name_match = _TAG_NAME.match(tag)
        if name_match is None:  # comment, doctype, CDATA
            out.append(tag)
            continue
        closing, name = name_match.group(1) == "/", name_match.group(2).lower()
        if name not in _INLINE:  # a new block (or a line break): nothing carries over into it
            before, last_text = "", None
        if not closing and name in _RAW_TEXT and not tag.endswith("/>"):
            close = re.compile(rf"</{name}\s*>", re.IGNORECASE).search(source, position)
            stop = close.end() if close else len(source)
            out.append(tag + source[position:stop])
            position = stop
            continue
        if name in NO_HYPHENS or (name == "a" and not closing and 'class="term"' in tag):
            if not closing and not tag.endswith("/>"):
                unbroken.append(name)
            elif closing and name in unbroken:
                while unbroken and unbroken.pop() != name:
                    pass
        elif closing and name == "a" and unbroken and unbroken[-1] == "a":
            unbroken.pop()
        if name in _VERBATIM:
            if not closing and not tag.endswith("/>"):
                skip.append(name)
            elif closing and name in skip:
                while skip and skip.pop() != name:
                    pass
        out.append(tag)
    return "".join(out)


@cache
def _collator() -> object:
    from pyuca import Collator  # loads the Unicode collation table (half a second): only when sorting

    return Collator()


def sort_key(text: str, lang: str) -> tuple[object, ...]:
    """A key that sorts ``text`` the way readers of ``lang`` expect; English keeps today's case-blind order.

    The Unicode Collation Algorithm's default table is right for French: accents and case are secondary and
    tertiary differences, so "Éclair" sorts among the e's and before "eclairs".
    """
    if lang == "en":
        return (text.lower(),)
    return tuple(_collator().sort_key(text))  # type: ignore[attr-defined]
