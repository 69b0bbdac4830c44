"""The syntax of a gettext ``.po`` catalog, checked strictly before Babel reads it.

Babel's reader is lenient: it takes a string's text as whatever lies between the line's first and last
character, so ``msgstr "Lapin`` (its closing quote lost) is read as ``Lapi``, and a line that is no keyword and no
string is skipped.  A translator's typo must be an error at its line instead.  Every line is a comment (``#``), a
keyword with one string (``msgid "..."``, ``msgstr[1] "..."``, also after ``#~`` for an obsolete entry) or a
string continuing the one above; a string is closed, escapes only what Babel unescapes, and ends the line.

The header's ``Plural-Forms`` is bounded too: Babel makes a list of ``nplurals`` empty forms for every plural
entry, so ``nplurals=99999999999`` would hang the reader.
"""

from __future__ import annotations

import re

from rulepress.errors import SourceError, excerpt

MOST_PLURALS = 6  # the most plural forms any language has (CLDR: Arabic, Welsh)
_KEYWORD = re.compile(r"(msgctxt|msgid|msgid_plural|msgstr(?:\[(?P<index>[0-9]+)\])?)(?=[ \t\"])[ \t]*")
_STRING = re.compile(r'"(?:[^"\\]|\\[\\"ntr])*"')  # the escapes Babel's reader unescapes
_NPLURALS = re.compile(r"(?:^|;)\s*nplurals\s*=\s*([^;\s]*)")


def check(text: str, shown: str) -> None:
    """Raise a :class:`SourceError` at the first line of ``text`` (the catalog ``shown``) that is not .po syntax,
    or at the header's ``Plural-Forms`` when it asks for more than :data:`MOST_PLURALS` forms."""
    header: list[tuple[str, int]] = []  # the header's msgstr pieces, with their lines
    keyword = ""  # the keyword a continuation line continues
    entry: dict[str, str] = {}  # the current entry's msgctxt/msgid so far (to recognise the header)
    for number, raw in enumerate(text.split("\n"), start=1):  # lines as Babel counts them (only \n ends one)
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
            if line.startswith("|"):  # "#~|": an obsolete entry's previous msgid, a comment
                continue
        elif line.startswith("#") or not line:
            if not line:
                keyword, entry = "", {}
            continue
        if not line:
            continue
        column = raw.find(line) + 1
        found = _KEYWORD.match(line)
        if found:
            keyword = found.group(1)
            if keyword.startswith("msgstr[") and int(found.group("index")) >= MOST_PLURALS:
                raise SourceError(shown, number, f"{keyword}: no language has more than {MOST_PLURALS} plural forms",
                                  column=column)
            if keyword in ("msgctxt", "msgid"):
                entry = {} if keyword == "msgctxt" or "msgid" in entry else entry
            rest, at = line[found.end():], column + found.end()
        elif line.startswith('"'):
            if not keyword:
                raise SourceError(shown, number, "a string with no msgid or msgstr before it", column=column)
            rest, at = line, column
        else:
            raise SourceError(shown, number, f"not .po syntax: {excerpt(line, 40)} (expected msgid, msgstr, msgctxt, "
                                             "a quoted string or a # comment)", column=column)
        string = _string(rest, shown, number, at)
        entry[keyword] = entry.get(keyword, "") + string
        if keyword == "msgstr" and entry.get("msgid") == "" and "msgctxt" not in entry and not obsolete:
            header.append((string, number))
    _check_plurals(header, shown)


def _string(rest: str, shown: str, number: int, column: int) -> str:
    found = _STRING.match(rest)
    if found is None:
        if not rest.startswith('"'):
            raise SourceError(shown, number, "expected a quoted string", column=column)
        bad = re.search(r'\\(?![\\"ntr])', rest)
        closed = re.match(r'"(?:[^"\\]|\\.)*"', rest)
        if closed is None:
            raise SourceError(shown, number, "the string is not closed: it needs a \" at the end of the line",
                              column=column)
        assert bad is not None
        raise SourceError(shown, number, f"unknown escape {excerpt(rest[bad.start():bad.start() + 2])} (write \\\\ "
                                         "for a backslash; \\n, \\t, \\r and \\\" are the others)",
                          column=column + bad.start())
    after = rest[found.end():].strip()
    if after:
        raise SourceError(shown, number, f"text after the closing quote: {excerpt(after, 40)} (write a \" inside a "
                                         "string as \\\")", column=column + found.end())
    return found.group(0)[1:-1]


def _check_plurals(header: list[tuple[str, int]], shown: str) -> None:
    """The header's Plural-Forms (its msgstr joined, as Babel joins it), at the line of the piece it starts in."""
    joined = "".join(piece for piece, _ in header)
    starts, offset = [], 0
    for piece, number in header:
        starts.append((offset, number))
        offset += len(piece)
    for found in re.finditer(r"(?:^|\\n)Plural-Forms:([^\\]*)", joined):
        number = max(line for start, line in starts if start <= found.start(1))
        counted = _NPLURALS.search(found.group(1))
        value = counted.group(1) if counted else ""
        if not (value.isascii() and value.isdigit() and 1 <= int(value) <= MOST_PLURALS):
            raise SourceError(shown, number, f"the header cannot be used: Plural-Forms: nplurals={excerpt(value, 20)} "
                                             f"must be a whole number from 1 to {MOST_PLURALS} (no language has more)")
