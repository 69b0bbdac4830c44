"""The project's own site files, held to the content policy rule text meets: no script, nothing from elsewhere.

A project's pages folder (``site_src/``, or mkdocs.yml's ``docs_dir``) is copied into the site, its Markdown pages
rendered; its theme's ``custom_dir`` holds templates and assets every page uses; a Markdown extension that includes
files reads its own folders (rulepress/load/mkdocs_yml.py).  Each file there that a browser reads is checked here,
one located problem each (the file, the line, the column):

- a Markdown page: its front matter (a few keys, plain text) and its text as :func:`textpolicy.check_markdown`
  checks rule text (no raw HTML beyond the typographic tags, no attribute lists, links and images only to files
  beside it), but for images of its own folder;
- an HTML or SVG file among the pages: no script (no ``<script>``, no ``on…=`` handler, no ``javascript:``), no
  redirect (``<meta http-equiv=refresh>``, ``<base>``), and every address in it a relative one inside the site:
  ``src``, ``href``, ``srcset``, ``poster``, ``data``, ``xlink:href``, ``action``, and ``url()`` in a style;
- a template of the theme folder: no address from elsewhere in what it fetches (``<script src>``, ``<link href>``,
  ``<img src>``...), no ``javascript:``, no redirect; its own scripts may stay;
- a stylesheet: no ``@import`` or ``url()`` from elsewhere (CSS escapes decoded first); ``data:`` images may stay.

Scripts of the project's own (``extra_javascript``) are its files, named in mkdocs.yml, and are not read here.
"""

from __future__ import annotations

import difflib
import html
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from rulepress.errors import SourceError, excerpt
from rulepress.load import confine, mkdocs_yml, textpolicy
from rulepress.load.yamlsrc import line_of, parse_yaml

PAGE_SUFFIXES = (".md", ".markdown")
MARKUP_SUFFIXES = (".html", ".htm", ".xhtml", ".svg", ".xml")
STYLE_SUFFIXES = (".css",)
FRONT_KEYS = {"title", "description", "subtitle", "icon", "status", "hide", "search", "tags"}
HIDE = {"navigation", "toc", "footer", "path", "tags", "feedback"}
URL_ATTRIBUTES = {"src", "href", "srcset", "poster", "data", "xlink:href", "action", "formaction", "background",
                  "manifest", "ping", "cite", "longdesc", "codebase", "archive", "lowsrc", "dynsrc", "imagesrcset"}
LINK_TAGS = {"a", "area"}  # an address a reader follows; every other is fetched by the browser
_FRONT = re.compile(r"\A(---[ \t]*\n)(.*?\n)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t\n]?|\\(.)")
_CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)|@import\s+(['\"])(.*?)\3", re.IGNORECASE | re.DOTALL)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_DATA_IMAGE = re.compile(r"data:image/(png|gif|jpeg|webp|avif|svg\+xml)[;,]", re.IGNORECASE)
_SCRIPT_SCHEMES = ("javascript:", "vbscript:", "data:text/html", "data:application", "data:text/javascript")
MOST_BYTES = confine.MAX_SOURCE_BYTES  # a page or stylesheet read to be checked (larger ones are refused)


def problems(root: Path) -> list[SourceError]:
    """Every file of the project's site folders that breaks the policy, one problem each (its first), by file."""
    try:
        config = mkdocs_yml.read(root)
    except SourceError:
        return []  # said by mkdocs_yml.problems
    pages = mkdocs_yml.pages_folder(root, config)
    theme = mkdocs_yml.theme_folder(root, config)
    found: list[SourceError] = []
    seen: set[Path] = set()
    folders = [(pages, "page")] if pages is not None else []
    folders += [(theme, "theme")] if theme is not None else []
    folders += [(folder, "page") for _, folder in mkdocs_yml.include_folders(root, config)]
    for folder, kind in folders:
        if folder.resolve() == root.resolve():
            continue  # refused in mkdocs.yml
        for path in _files(root, folder):
            if path in seen:
                continue
            seen.add(path)
            problem = _check(root, path, "theme" if theme is not None and _within(path, theme) else kind)
            if problem is not None:
                found.append(problem)
    return found


def _within(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


def _files(root: Path, folder: Path) -> list[Path]:
    """The regular files under ``folder`` that stay inside the project (confinement's problems are
    rulepress/load/site_folders.py's to say)."""
    try:
        start = confine.confined(root, folder)
    except confine.PathRefused:
        return []
    if not start.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() not in PAGE_SUFFIXES + MARKUP_SUFFIXES + STYLE_SUFFIXES:
            continue
        try:
            confine.check_regular(root, path)
        except confine.PathRefused:
            continue
        found.append(path)
    return found


def _check(root: Path, path: Path, kind: str) -> SourceError | None:
    shown = confine.shown(path, root)
    try:
        text = confine.read_text(root, path, shown, MOST_BYTES)
    except SourceError as error:
        return error
    suffix = path.suffix.lower()
    try:
        if suffix in PAGE_SUFFIXES and kind == "page":
            check_page(text, shown)
        elif suffix in MARKUP_SUFFIXES:
            check_markup(text, shown, template=kind == "theme" and suffix in (".html", ".htm"))
        elif suffix in STYLE_SUFFIXES:
            check_style(text, shown, 1)
    except SourceError as error:
        return error
    return None


# --- Markdown pages ------------------------------------------------------------------------------------------

def check_page(text: str, shown: str) -> None:
    """A Markdown page of the site's own: its front matter, then its text as rule text is checked."""
    first = 1
    front = _FRONT.match(text)
    if front:
        _front_matter(front.group(2), shown)
        first = 1 + front.group(0).count("\n")
        body = text[front.end():]
    else:
        body = text
    textpolicy.check_markdown(body, shown, first, page=True)


def _front_matter(text: str, shown: str) -> None:
    data = parse_yaml(text, shown)
    offset = 1  # the "---" line
    if data is None:
        return
    if not isinstance(data, dict):
        raise SourceError(shown, 2, "a page's front matter is a mapping (title, description, hide, ...)")
    for key, value in data.items():
        line = (line_of(data, key) or 1) + offset
        if key not in FRONT_KEYS:
            close = difflib.get_close_matches(str(key), sorted(FRONT_KEYS), n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else f"known keys: {', '.join(sorted(FRONT_KEYS))}"
            raise SourceError(shown, line, f"unknown key {excerpt(key)} in the page's front matter ({hint})")
        if key == "hide":
            if not isinstance(value, list) or not all(item in HIDE for item in value):
                raise SourceError(shown, line, f"hide is a list of {', '.join(sorted(HIDE))}")
        elif key == "search":
            if not isinstance(value, dict) or not set(value) <= {"exclude", "boost"} or not all(
                    isinstance(item, bool | int | float) for item in value.values()):
                raise SourceError(shown, line, "search is a mapping of exclude (true or false) and boost (a number)")
        elif key == "tags":
            for tag in value if isinstance(value, list) else [value]:
                _plain(tag, shown, line, "a tag")
        else:
            _plain(value, shown, line, key)


def _plain(value: Any, shown: str, line: int, field: str) -> None:
    if not isinstance(value, str):
        raise SourceError(shown, line, f"{field} is text, not {type(value).__name__}")
    textpolicy.check_plain(value, shown, line, field)
    if re.search(r"[\"<>`]", value):
        raise SourceError(shown, line, f"{field} is plain text: {excerpt(value)} holds a quote or angle bracket "
                                       "(the site writes it into its HTML as it is)")


# --- HTML, SVG and templates ---------------------------------------------------------------------------------

def address_problem(url: str, followed: bool, template: bool = False) -> str | None:
    """Why ``url`` (an attribute's value) may not be in a site file: a script, or an address from elsewhere (a
    link a reader follows, ``followed``, may lead elsewhere only from a template: ``https:`` or ``mailto:``)."""
    seen = re.sub(r"[\x00-\x20\x7f]+", "", _unescape(url)).lower()
    if seen.startswith(_SCRIPT_SCHEMES):
        return f"'{seen.split(':')[0]}:' runs a script"
    if template:
        if "{{" in url or "{%" in url:
            seen = re.sub(r"\{\{.*?\}\}|\{%.*?%\}", "", seen)  # what the template fills in is its own
        if followed and seen.startswith(("https:", "http:", "mailto:")):
            return None
        if re.match(r"^[a-z][a-z0-9+.-]*:", seen) or seen.startswith(("//", "\\\\", "/\\", "\\/")):
            return "it is fetched from elsewhere, and the site fetches nothing"
        return None
    return textpolicy.url_problem(url)


def _unescape(text: str) -> str:
    return html.unescape(text)


class _Markup(HTMLParser):
    def __init__(self, shown: str, template: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.shown = shown
        self.template = template
        self.problem: SourceError | None = None
        self.in_style = False

    def _refuse(self, message: str) -> None:
        if self.problem is None:
            line, offset = self.getpos()
            self.problem = SourceError(self.shown, line, f"{message} (column {offset + 1})")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        what = "a site page" if not self.template else "a theme template"
        if tag == "script" and not self.template:
            self._refuse(f"<script> is not allowed in {what}: a page runs no script")
        if tag == "base":
            self._refuse(f"<base> is not allowed in {what}: it sends every relative address elsewhere")
        if tag == "meta" and any(key == "http-equiv" and (value or "").strip().lower() == "refresh"
                                 for key, value in attrs):
            self._refuse(f"<meta http-equiv=refresh> is not allowed in {what}: it sends the reader elsewhere")
        for key, value in attrs:
            if key.startswith("on") and not self.template:
                self._refuse(f"<{tag}> with attribute '{key}' is not allowed in {what}: a page runs no script")
            elif key == "style" and value:
                self._style(value)
            elif key in URL_ATTRIBUTES and value is not None:
                urls = [part.strip().split(" ")[0] for part in value.split(",")] if "srcset" in key else [value]
                for url in urls:
                    problem = address_problem(url, tag in LINK_TAGS and key == "href", self.template)
                    if problem:
                        self._refuse(f"<{tag} {key}={excerpt(url)}>: {problem}; "
                                     + ("a template fetches only files of the site" if self.template
                                        else textpolicy.PAGE_LINK_RULE))
        self.in_style = tag == "style"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.in_style = False

    def handle_endtag(self, tag: str) -> None:
        self.in_style = False

    def handle_data(self, data: str) -> None:
        if self.in_style:
            self._style(data)

    def _style(self, css: str) -> None:
        try:
            check_style(css, self.shown, self.getpos()[0])
        except SourceError as error:
            if self.problem is None:
                self.problem = error


def check_markup(text: str, shown: str, template: bool = False) -> None:
    """An HTML or SVG file of the site's own (``template``: a theme template, which may hold its own scripts)."""
    parser = _Markup(shown, template)
    parser.feed(text)
    parser.close()
    if parser.problem is not None:
        raise parser.problem


# --- stylesheets -------------------------------------------------------------------------------------------

def _css_unescaped(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        if match.group(1):
            code = int(match.group(1), 16)
            return chr(code) if 0 < code <= 0x10FFFF else "\ufffd"
        return match.group(2)

    return _CSS_ESCAPE.sub(one, text)


def check_style(css: str, shown: str, first_line: int) -> None:
    """A stylesheet (or a style attribute): no ``@import`` or ``url()`` a browser would fetch from elsewhere."""
    for match in _CSS_URL.finditer(_CSS_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), css)):
        url = _css_unescaped(match.group(2) if match.group(2) is not None else match.group(4) or "").strip()
        seen = re.sub(r"[\x00-\x20\x7f]+", "", url).lower()
        if _DATA_IMAGE.match(seen) or seen.startswith("#") or not seen:
            continue
        problem = None
        if re.match(r"^[a-z][a-z0-9+.-]*:", seen):
            problem = f"'{seen.split(':')[0]}:' is fetched from elsewhere"
        elif seen.startswith(("/", "\\")):
            problem = "an absolute address leaves the site (or names another host)"
        if problem:
            line = first_line + css.count("\n", 0, match.start())
            raise SourceError(shown, line, f"{excerpt(url)} in a stylesheet: {problem}, and the site fetches "
                                           "nothing: put the file in the site's pages and name it by a relative path")
