"""What rule text may contain (docs/CONTENT-POLICY.md): Markdown, a few typographic HTML tags, in-book links.

Rule text is published as a website and printed by WeasyPrint, which loads what a page points at.  So raw HTML
is refused except a typographic allowlist (nh3, the Ammonia sanitiser, has the last word on each tag), and links
may only stay inside the book: the build never goes online and never reads a file outside the book.
Plain-text fields (titles, question text, change-log titles, glossary terms) may hold no markup at all.

Every refusal is a SourceError naming the file, the line and the column.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable, Sequence
from html.parser import HTMLParser
from typing import Any

import nh3

from rulepress.errors import SourceError
from rulepress.load.yamlsrc import line_of

ALLOWED_TAGS = frozenset({"abbr", "br", "kbd", "sub", "sup"})
ALLOWED_ATTRIBUTES = {"abbr": {"title"}}
ALLOWED_SHOWN = "<abbr title>, <br>, <kbd>, <sub>, <sup>"
BOOK_FIELDS = ("title", "subtitle", "edition", "ages", "play_time", "mark")  # book.yaml's plain-text fields

LINK_RULE = ("links in rule text may only be cross-references ([[rule.id]]), relative links inside the book or "
             "#anchors (the build never goes online)")

PAGE_LINK_RULE = ("links and images in a site page may only be relative paths inside its folder or #anchors (the "
                  "site fetches nothing from elsewhere)")

_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{##.*?##\}", re.DOTALL)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_IMAGE = re.compile(r"!\[[^\]\n]*\]\s*[(\[]")
_INLINE_LINK = re.compile(r"\]\(\s*(<[^>\n]*>|[^\s)]*)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S*)", re.MULTILINE)
# Python-Markdown's attr_list turns "{: onclick=...}" or "{ style=... }" after a block or element into HTML
# attributes; "{#id}" and "{.class}" set nothing dangerous and stay allowed.
_ATTR_LIST = re.compile(r"\{:?[ \t]*[^{}\n]*=[^{}\n]*\}")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.\-]*:")


class _Tags(HTMLParser):
    """Every piece of markup in a text, with its position (the stdlib parser never raises on bad HTML)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, int, str, str, list[tuple[str, str | None]]]] = []

    def _add(self, kind: str, name: str, attrs: list[tuple[str, str | None]] | None = None) -> None:
        line, offset = self.getpos()
        self.found.append((line, offset, kind, name, attrs or []))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._add("start", tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self._add("end", tag)

    def handle_comment(self, data: str) -> None:
        self._add("comment", "<!--")

    def handle_decl(self, decl: str) -> None:
        self._add("declaration", "<!" + decl.split(" ")[0])

    def unknown_decl(self, data: str) -> None:
        self._add("declaration", "<![" + data.split("[")[0])

    def handle_pi(self, data: str) -> None:
        self._add("processing instruction", "<?")


def _markup(text: str) -> list[tuple[int, int, str, str, list[tuple[str, str | None]]]]:
    if "<" not in text:  # every kind of markup the parser reports opens with one; most texts have none
        return []
    parser = _Tags()
    parser.feed(text)
    parser.close()
    return parser.found


def _sanitised_keeps(name: str, attrs: list[tuple[str, str | None]]) -> bool:
    """nh3 decides: the tag passes when Ammonia, allowed only the typographic tags, keeps it whole."""
    written = "".join(f' {key}="{html.escape(value or "", quote=True)}"' for key, value in attrs)
    cleaned = nh3.clean(f"<{name}{written}>", tags=set(ALLOWED_TAGS), attributes=ALLOWED_ATTRIBUTES,
                        url_schemes=set(), link_rel=None, strip_comments=True)
    kept = [found for found in _markup(cleaned) if found[2] == "start"]
    return len(kept) == 1 and kept[0][3] == name and sorted(kept[0][4]) == sorted(attrs)


def url_problem(url: str) -> str | None:
    """Why ``url`` may not appear in rule text, or None when it stays inside the book."""
    # Browsers decode entities and drop tabs, newlines and other controls inside a URL ("java&#9;script:").
    target = re.sub(r"[\x00-\x20\x7f]+", "", html.unescape(url.strip("<>"))).lower()
    if not target or target.startswith("#"):
        return None
    if _SCHEME.match(target):
        return f"'{target.split(':')[0]}:' links are not allowed"
    if target.startswith(("/", "\\")):
        return "absolute paths are not allowed"
    if ".." in re.split(r"[/\\]", target.split("#")[0].split("?")[0]):
        return "links may not leave the book ('..')"
    return None


class _Place:
    """Turns an offset in the checked text into the file's line and column."""

    def __init__(self, text: str, shown: str, first_line: int | None, lines: Sequence[int] | None,
                 rule: str | None) -> None:
        self.text, self.shown, self.first_line, self.lines, self.rule = text, shown, first_line, lines, rule

    @functools.cached_property
    def starts(self) -> list[int]:  # found only for a refusal: most texts have none
        return [0] + [m.end() for m in re.finditer("\n", self.text)]

    def line(self, index: int) -> int | None:  # index: 0-based line of the checked text
        if self.lines is not None:
            return self.lines[index] if index < len(self.lines) else (self.lines[-1] if self.lines else None)
        return None if self.first_line is None else self.first_line + index

    def error(self, index: int, column: int, message: str) -> SourceError:
        return SourceError(self.shown, self.line(index), f"{message} (column {column + 1})", rule=self.rule)

    def at(self, offset: int, message: str) -> SourceError:
        index = next(i for i in range(len(self.starts) - 1, -1, -1) if self.starts[i] <= offset)
        return self.error(index, offset - self.starts[index], message)


def _blank_templates(text: str) -> str:
    """The source with its Jinja tags blanked out (keeping every position): the rendered text is checked too."""
    return _JINJA.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def check_markdown(text: str, shown: str, first_line: int | None = 1, rule: str | None = None, *,
                   lines: Sequence[int] | None = None, template: bool = False, page: bool = False) -> None:
    """Refuse raw HTML beyond the allowlist, images, attribute lists and links that leave the book.

    ``text`` starts at ``first_line`` of ``shown`` (or ``lines`` gives the file line of each of its lines, for
    rendered chapters).  ``template`` says ``text`` is Jinja source: its tags are skipped, to be checked once
    rendered.  ``page``: a page of the project's own site (``site_src/``), held to the same policy, except that it
    may show an image of its own folder (its target is checked as a link is: nothing from elsewhere).
    """
    what, link_rule = (("a site page", PAGE_LINK_RULE) if page else ("rule text", LINK_RULE))
    place = _Place(text, shown, first_line, lines, rule)
    if template:
        text = _blank_templates(text)
    for match in _AUTOLINK.finditer(text):
        problem = url_problem(match.group(1))
        if problem:
            raise place.at(match.start(), f"link <{match.group(1)}>: {problem}; {link_rule}")
    for line, offset, kind, name, attrs in _markup(text):
        if kind != "start" and kind != "end":
            raise place.error(line - 1, offset, f"an HTML {kind} ({name}…) is not allowed in {what}; write "
                                                "notes to yourself as {## … ##}" if not page else
                              f"an HTML {kind} ({name}…) is not allowed in {what}")
        if name not in ALLOWED_TAGS:
            raise place.error(line - 1, offset, f"raw HTML <{'/' if kind == 'end' else ''}{name}> is not allowed "
                                                f"in {what} (allowed: {ALLOWED_SHOWN})")
        if kind == "start" and not _sanitised_keeps(name, attrs):
            refused = [key for key, _ in attrs if key not in ALLOWED_ATTRIBUTES.get(name, set())] or ["as written"]
            raise place.error(line - 1, offset, f"<{name}> with attribute '{refused[0]}' is not allowed in {what} "
                                                f"(allowed: {ALLOWED_SHOWN})")
    if not page:
        for match in _IMAGE.finditer(text):
            raise place.at(match.start(), "images are not allowed in rule text: diagrams come from the engine")
    for pattern in (_INLINE_LINK, _REFERENCE):
        for match in pattern.finditer(text):
            problem = url_problem(match.group(1))
            if problem:
                raise place.at(match.start(1), f"link to '{match.group(1)}': {problem}; {link_rule}")
    for match in _ATTR_LIST.finditer(text):
        raise place.at(match.start(), f"attribute list '{match.group(0)}' is not allowed in {what}: it would "
                                      "set HTML attributes")


def check_plain(text: str, shown: str, line: int | None, field: str) -> None:
    """Refuse any markup in a plain-text field (a title, a question, a glossary term): no tags, no links."""
    place = _Place(text, shown, line, None, None)
    for found_line, offset, _, name, _ in _markup(text):
        raise place.error(found_line - 1, offset, f"{field} is plain text: HTML ({'<' + name.lstrip('<')}…) is "
                                                  "not allowed")
    for pattern in (_AUTOLINK, _IMAGE, _INLINE_LINK, _ATTR_LIST):
        for match in pattern.finditer(text):
            raise place.at(match.start(), f"{field} is plain text: links, images and attribute lists are not "
                                          "allowed")


def field_errors(item: Any, shown: str, what: str, *, plain: Iterable[Any] = (), markdown: Iterable[Any] = (),
                 template: Iterable[Any] = (), plain_keys: bool = False) -> list[SourceError]:
    """The policy's refusals for the string fields of the YAML mapping ``item`` (others are the schema's business).

    ``plain`` keys get :func:`check_plain`, ``markdown`` keys :func:`check_markdown`, ``template`` keys
    :func:`check_markdown` on Jinja source; ``plain_keys`` checks the keys themselves as plain text (answer names
    are printed too).  Returned, not raised, so a loader can collect them all.
    """
    errors: list[SourceError] = []
    for key in item if plain_keys and isinstance(item, dict) else ():
        try:
            check_plain(str(key), shown, line_of(item, key), f"{what} name".strip())
        except SourceError as error:
            errors.append(error)
    kinds = [(key, "plain") for key in plain] + [(key, "markdown") for key in markdown] + [
        (key, "template") for key in template]
    for key, kind in kinds:
        value = item.get(key) if isinstance(item, dict) else None
        if not isinstance(value, str):
            continue
        line = line_of(item, key)
        # A block scalar ("text: |", the only kind that ends in a newline) starts on the line after its key.
        first = line + 1 if line is not None and value.endswith("\n") else line
        try:
            if kind == "plain":
                check_plain(value, shown, first, f"{what} {key}".strip())
            else:
                check_markdown(value, shown, first, template=kind == "template")
        except SourceError as error:
            errors.append(error)
    return errors
