"""A project's own ``mkdocs.yml``: a source like any other, checked at its file and line before anything reads it.

The project's configuration is merged over rulepress's site defaults (rulepress/render/site_config.py), and mkdocs
would do whatever it says: run hooks and plugins, have Markdown extensions read files anywhere, add scripts,
stylesheets and icons from other hosts, a tracker, a repository widget, raw HTML in the footer.  So it is held to
what the rest of the content meets.  Its shape is a JSON Schema (``schemas/mkdocs.yaml``: every key a book may set,
with "did you mean" for a misspelt one, and each key mkdocs reads but a book may not set refused with its reason);
what its values name is checked here:

- plugins: only the packaged ones (search, offline, rulepress), none disabled;
- Markdown extensions: a list of those that run nothing of the project's and fetch nothing; the ones that read
  files (``pymdownx.snippets``, ``pymdownx.b64``) only from folders of the project, which are confined like the
  pages (rulepress/load/site_folders.py) and whose files are held to the pages' policy;
- stylesheets, scripts, polyfills, the logo and the favicon: files of the project's pages (or rulepress's own
  assets), named by a path a browser reads as that file: anything it would fetch from elsewhere (``https:``,
  ``//host``, ``\\\\host``, ``/\\host``, ``data:``) is refused, as is a name holding quotes or angle brackets;
- pages of the navigation: files of the project's pages (a missing one is an error, not mkdocs' warning), or a
  link (``https:``, ``http:``, ``mailto:``);
- every text it shows (the site's name and description, the copyright, labels): plain text, no markup.

Every refusal is a :class:`SourceError` naming ``mkdocs.yml`` and the line.  YAML tags (``!ENV``,
``!!python/name:``) are refused by the YAML reader itself: nothing in the file names code.
"""

from __future__ import annotations

import difflib
import functools
import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rulepress.errors import SourceError, excerpt
from rulepress.load import confine, schema, textpolicy
from rulepress.load.yamlsrc import line_of, load_yaml

CONFIG = "mkdocs.yml"  # a project's own configuration, beside rules_src/
PAGES = "site_src"  # a project's own pages and assets, when its mkdocs.yml (or none) names no docs_dir

PLUGINS = {"search": "the site's search", "offline": "search and navigation from file:// without a server",
           "rulepress": "the books' pages"}
"""The packaged plugins (rulepress/render/theme/defaults.yml names them all) and what each gives."""
SEARCH_OPTIONS = {"lang", "separator", "pipeline", "enabled"}

# Markdown extensions a project may add: Python-Markdown's and pymdown-extensions' that run nothing of the
# project's, fetch nothing and read no file (the two that read files are checked below).
EXTENSIONS = frozenset({
    "abbr", "admonition", "attr_list", "def_list", "footnotes", "md_in_html", "tables", "toc", "sane_lists",
    "smarty", "meta", "nl2br", "wikilinks", "fenced_code", "codehilite", "legacy_attrs", "legacy_em",
    "pymdownx.arithmatex", "pymdownx.betterem", "pymdownx.blocks.admonition", "pymdownx.blocks.details",
    "pymdownx.blocks.tab", "pymdownx.blocks.caption", "pymdownx.blocks.definition", "pymdownx.caret",
    "pymdownx.critic", "pymdownx.details", "pymdownx.escapeall", "pymdownx.extra", "pymdownx.fancylists",
    "pymdownx.highlight", "pymdownx.inlinehilite", "pymdownx.keys", "pymdownx.magiclink", "pymdownx.mark",
    "pymdownx.pathconverter", "pymdownx.progressbar", "pymdownx.saneheaders", "pymdownx.smartsymbols",
    "pymdownx.striphtml", "pymdownx.superfences", "pymdownx.tabbed", "pymdownx.tasklist", "pymdownx.tilde",
    "pymdownx.snippets", "pymdownx.b64",
})
READS_FILES = {"pymdownx.snippets": "base_path", "pymdownx.b64": "base_path"}  # the option naming where from
REFUSED_EXTENSIONS = {
    "pymdownx.emoji": "draws emoji with images from a CDN, and the site fetches nothing",
    "pymdownx.blocks.html": "writes raw HTML elements with any attributes into the pages",
    "markdown_include.include": "reads any file a page names",
    "mdx_include": "reads any file or URL a page names",
}
# Options that name Python functions (a YAML tag would be needed, and tags are refused): none may be set.
CODE_OPTIONS = {"slugify", "slugify_function", "custom_fences", "emoji_index", "emoji_generator", "format",
                "validator", "callback", "custom_icons", "inline_syntax", "block_syntax", "highlight_code_function"}
_URLS = "is for fetching URLs, which the site never does"
SNIPPETS_REFUSED = {"url_download": "fetches the URLs a page names when the site is built",
                    "url_request_headers": _URLS, "url_max_size": _URLS, "url_timeout": _URLS, "max_retries": _URLS,
                    "backoff_factor": _URLS}
B64_REFUSED = {"root_path": "reads an absolute path's image from another folder"}

LINK_SCHEMES = ("https:", "http:", "mailto:")  # what a link a reader follows may be (never fetched)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:")
_CONTROLS = re.compile(r"[\x00-\x20\x7f]")
_HTML_SPECIAL = re.compile(r"[\"'<>`]")
_LINK = re.compile(r"(https?://|mailto:)[^\s\"'<>\\`]+")


def read(root: Path) -> Any:
    """The project's ``mkdocs.yml`` as read (with its lines), or None when it has none."""
    path = root / CONFIG
    if not confine.exists(path):
        return None
    return load_yaml(path, CONFIG, root=root)


def pages_folder(root: Path, config: Any) -> Path | None:
    """The project's pages folder (``docs_dir``, else ``site_src/`` when there is one); None without pages."""
    named = config.get("docs_dir") if isinstance(config, dict) else None
    if isinstance(named, str):
        return root / named
    return root / PAGES if (root / PAGES).is_dir() else None


def theme_folder(root: Path, config: Any) -> Path | None:
    """The theme's ``custom_dir`` of the project, when it names one."""
    theme = config.get("theme") if isinstance(config, dict) else None
    named = theme.get("custom_dir") if isinstance(theme, dict) else None
    return root / named if isinstance(named, str) else None


def include_folders(root: Path, config: Any) -> list[tuple[str, Path]]:
    """The folders a Markdown extension reads files from (``pymdownx.snippets``' and ``pymdownx.b64``'s
    ``base_path``), each with its extension's name; an extension that names none reads the pages folder."""
    found: list[tuple[str, Path]] = []
    for name, options, _, _ in _extensions(config):
        if name not in READS_FILES:
            continue
        given = options.get(READS_FILES[name]) if isinstance(options, dict) else None
        named = [given] if isinstance(given, str) else given if isinstance(given, list) else []
        for folder in named:
            if isinstance(folder, str):
                found.append((name, root / folder))
        if not named:
            pages = pages_folder(root, config)
            if pages is not None:
                found.append((name, pages))
    return found


def problems(root: Path) -> list[SourceError]:
    """Every reason the project's ``mkdocs.yml`` may not be used, sorted by line (empty when it may, or it has
    none).  A file that cannot be read at all is one problem."""
    try:
        config = read(root)
    except SourceError as exc:
        return [exc]
    if config is None:
        return []
    if not isinstance(config, dict):
        return [SourceError(CONFIG, line_of(config, default=1), "is not a mapping of mkdocs settings")]
    found = schema.validate(config, "mkdocs", CONFIG)
    found += _Policy(root, config).problems()
    unique: dict[tuple[int, str], SourceError] = {}
    for problem in found:
        unique.setdefault((problem.line or 0, problem.message), problem)
    return [unique[key] for key in sorted(unique)]


def checked(root: Path) -> Any:
    """The project's ``mkdocs.yml`` (None without one), raising the first of its :func:`problems`."""
    found = problems(root)
    if found:
        raise found[0]
    return read(root)


def _extensions(config: Any) -> Iterator[tuple[str, Any, Any, int]]:
    """Each Markdown extension the file names: its name (``markdown.extensions.`` dropped), options, list, index."""
    listed = config.get("markdown_extensions") if isinstance(config, dict) else None
    for index, entry in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(entry, dict) and len(entry) == 1:
            name, options = next(iter(entry.items()))
        elif isinstance(entry, str):
            name, options = entry, None
        else:
            continue
        if isinstance(name, str):
            yield name.removeprefix("markdown.extensions."), options, listed, index


def plugin_name(entry: Any) -> str:
    name = next(iter(entry)) if isinstance(entry, dict) and entry else entry
    return str(name).removeprefix("material/")  # mkdocs-material's names for the same plugins


def site_path_problem(value: str) -> str | None:
    """Why a browser would not read ``value`` (a stylesheet's, a script's, an image's path in the site) as a file of
    the site itself, or None when it would.  Every way a browser resolves a URL counts: it drops spaces and control
    characters, decodes the page's HTML entities, reads ``\\`` as ``/`` and ``//host`` (so ``\\\\host`` and
    ``/\\host`` too) as another host."""
    seen = _CONTROLS.sub("", html.unescape(value)).lower()
    if _SCHEME.match(seen):
        scheme = seen.split(":")[0]
        if scheme in ("javascript", "vbscript"):
            return f"a '{scheme}:' address runs a script"
        if scheme == "data":
            return "a 'data:' address carries its own content, no file of the project"
        return f"'{scheme}:' is fetched from elsewhere"
    if seen.startswith(("//", "\\\\", "/\\", "\\/")):
        return "a browser reads it as another host's"
    if seen.startswith(("/", "\\")):
        return "an absolute path leaves the site: from file:// it names the reader's own disk"
    if "\\" in value:
        return "a browser reads '\\' as '/'"
    if _HTML_SPECIAL.search(value):
        return "quotes, angle brackets and backticks would break out of the page's HTML"
    if _CONTROLS.search(value) or value != html.unescape(value):
        return "spaces, control characters and HTML entities are read otherwise by a browser"
    if "?" in value or "#" in value:
        return "a query or a fragment names no file"
    if ".." in value.split("/"):
        return "'..' leaves the site's pages"
    return None


class _Policy:
    """The checks of what the file's values name, each problem at its line."""

    def __init__(self, root: Path, config: dict[str, Any]) -> None:
        self.root = root
        self.config = config
        self.found: list[SourceError] = []
        self.pages = pages_folder(root, config)
        self.theme = theme_folder(root, config)

    def problems(self) -> list[SourceError]:
        self._text_fields()
        self._plugins()
        self._extensions()
        for key in ("extra_css", "extra_javascript"):
            listed = self.config.get(key)
            for index, entry in enumerate(listed if isinstance(listed, list) else []):
                path = entry.get("path") if isinstance(entry, dict) else entry
                self._file(path, f"{key}[{index + 1}]", listed, index)
        extra = self.config.get("extra")
        if isinstance(extra, dict):
            polyfills = extra.get("polyfills")
            for index, path in enumerate(polyfills if isinstance(polyfills, list) else []):
                self._file(path, f"extra.polyfills[{index + 1}]", polyfills, index)
            if isinstance(extra.get("homepage"), str):
                self._link_or_page(extra["homepage"], "extra.homepage", extra, "homepage", page=False)
            social = extra.get("social")
            for index, item in enumerate(social if isinstance(social, list) else []):
                if isinstance(item, dict) and isinstance(item.get("link"), str):
                    self._link_or_page(item["link"], f"extra.social[{index + 1}].link", item, "link", page=False)
        theme = self.config.get("theme")
        if isinstance(theme, dict):
            for key in ("logo", "favicon"):
                self._file(theme.get(key), f"theme.{key}", theme, key)
        self._nav(self.config.get("nav"), "nav", self.config, "nav")
        return self.found

    def _refuse(self, container: Any, key: Any, message: str) -> None:
        self.found.append(SourceError(CONFIG, line_of(container, key, line_of(self.config, None)), message))

    # --- text -----------------------------------------------------------------------------------------------

    def _text(self, value: Any, field: str, container: Any, key: Any) -> None:
        if not isinstance(value, str):
            return
        try:
            textpolicy.check_plain(value, CONFIG, line_of(container, key), field)
        except SourceError as error:
            self.found.append(SourceError(CONFIG, error.line, error.message))
            return
        if _HTML_SPECIAL.search(value.replace("'", "")):  # an apostrophe is text; the rest ends an attribute
            self._refuse(container, key, f"{field} is plain text: {excerpt(value)} holds a quote or angle bracket "
                                         "(the site writes it into its HTML as it is)")

    def _text_fields(self) -> None:
        for key in ("site_name", "site_description", "site_author", "copyright"):
            self._text(self.config.get(key), key, self.config, key)
        theme = self.config.get("theme")
        palettes = theme.get("palette") if isinstance(theme, dict) else None
        for palette in palettes if isinstance(palettes, list) else [palettes]:
            toggle = palette.get("toggle") if isinstance(palette, dict) else None
            if isinstance(toggle, dict):
                self._text(toggle.get("name"), "theme.palette.toggle.name", toggle, "name")
        extra = self.config.get("extra")
        if isinstance(extra, dict):
            for index, item in enumerate(extra.get("social") or [] if isinstance(extra.get("social"), list) else []):
                if isinstance(item, dict):
                    self._text(item.get("name"), f"extra.social[{index + 1}].name", item, "name")
            status = extra.get("status")
            for name, label in status.items() if isinstance(status, dict) else []:
                self._text(label, f"extra.status.{name}", status, name)

    # --- plugins and extensions ------------------------------------------------------------------------------

    def _plugins(self) -> None:
        listed = self.config.get("plugins")
        for index, entry in enumerate(listed if isinstance(listed, list) else []):
            if not isinstance(entry, str | dict) or (isinstance(entry, dict) and len(entry) != 1):
                continue  # the schema's
            name = plugin_name(entry)
            options = entry[next(iter(entry))] if isinstance(entry, dict) else None
            where = f"plugins[{index + 1}]"
            if name not in PLUGINS:
                close = difflib.get_close_matches(name, list(PLUGINS), n=1, cutoff=0.6)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                self._refuse(listed, index, f"{where}: {excerpt(name)} is not a plugin rulepress ships (search, "
                                            f"offline, rulepress): a plugin is Python that runs at every build{hint}")
                continue
            if options is None:
                continue
            if not isinstance(options, dict):
                self._refuse(listed, index, f"{where}: the options of '{name}' must be a mapping")
                continue
            if options.get("enabled", True) is not True:
                self._refuse(listed, index, f"plugins: '{name}' may not be disabled: it gives {PLUGINS[name]}")
            allowed = SEARCH_OPTIONS if name == "search" else {"enabled"}
            for option in options:
                if option not in allowed:
                    close = difflib.get_close_matches(str(option), sorted(allowed), n=1, cutoff=0.6)
                    hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(sorted(allowed))}"
                    self._refuse(options, option, f"{where}: '{name}' takes no option {excerpt(option)} ({hint})")
            if name == "search":
                self._search(options, where)

    def _search(self, options: dict[str, Any], where: str) -> None:
        lang = options.get("lang")
        for code in [lang] if isinstance(lang, str) else lang if isinstance(lang, list) else []:
            if not isinstance(code, str) or not re.fullmatch(r"[a-z]{2,3}", code):
                self._refuse(options, "lang", f"{where}: search.lang: {excerpt(code)} is not a language code (en)")
        pipeline = options.get("pipeline")
        if pipeline is not None and (not isinstance(pipeline, list) or not all(
                step in ("stemmer", "stopWordFilter", "trimmer") for step in pipeline)):
            self._refuse(options, "pipeline", f"{where}: search.pipeline is a list of stemmer, stopWordFilter and "
                                              "trimmer")
        if "separator" in options and not isinstance(options["separator"], str):
            self._refuse(options, "separator", f"{where}: search.separator is a regular expression's text")

    def _extensions(self) -> None:
        for name, options, listed, index in _extensions(self.config):
            where = f"markdown_extensions[{index + 1}]"
            if name in REFUSED_EXTENSIONS:
                self._refuse(listed, index, f"{where}: '{name}' {REFUSED_EXTENSIONS[name]}: leave it out")
                continue
            if name not in EXTENSIONS:
                close = difflib.get_close_matches(name, sorted(EXTENSIONS), n=1, cutoff=0.7)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                self._refuse(listed, index, f"{where}: {excerpt(name)} is not a Markdown extension a rulepress site "
                                            "may use (Python-Markdown's and pymdown-extensions' that run and fetch "
                                            f"nothing){hint}")
                continue
            if options is None:
                continue
            if not isinstance(options, dict):
                self._refuse(listed, index, f"{where}: the options of '{name}' must be a mapping")
                continue
            for option, value in options.items():
                self._option(name, str(option), value, options, where)

    def _option(self, name: str, option: str, value: Any, options: dict[str, Any], where: str) -> None:
        said = f"{where}: {name}.{option}"
        known = known_options(name)
        if known is not None and option not in known:
            close = difflib.get_close_matches(option, sorted(known), n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else f"it takes: {', '.join(sorted(known)) or 'none'}"
            self._refuse(options, option, f"{where}: '{name}' has no option {excerpt(option)} ({hint})")
            return
        if option in CODE_OPTIONS:
            self._refuse(options, option, f"{said} names Python code, and a project's site runs none: leave it out")
            return
        if not _plain_value(value):
            self._refuse(options, option, f"{said}: an option is a word, a number or a list of them")
            return
        if isinstance(value, str):
            self._text(value, said, options, option)
        if name == "pymdownx.snippets":
            if option in SNIPPETS_REFUSED and value not in (False, None, 0, {}, []):
                self._refuse(options, option, f"{said} {SNIPPETS_REFUSED[option]}: leave it out")
            elif option == "restrict_base_path" and value is not True:
                self._refuse(options, option, f"{said}: false would let a page include any file on the disk")
            elif option == "auto_append":
                for file in value if isinstance(value, list) else [value]:
                    problem = site_path_problem(str(file))
                    if problem:
                        self._refuse(options, option, f"{said}: {excerpt(file)}: {problem}")
        if name == "pymdownx.b64" and ((option in B64_REFUSED and value) or (option == "restrict_path"
                                                                             and value is not True)):
            self._refuse(options, option, f"{said}: a page may show only images of the project's own folders")
        if name in READS_FILES and option == READS_FILES[name]:
            for folder in value if isinstance(value, list) else [value]:
                self._include_folder(folder, said, options, option)

    def _include_folder(self, folder: Any, said: str, options: dict[str, Any], option: str) -> None:
        if not isinstance(folder, str) or not folder:
            self._refuse(options, option, f"{said}: a folder of the project, by its path from mkdocs.yml")
            return
        path = self.root / folder
        try:
            resolved = confine.confined(self.root, path)
        except confine.PathRefused as exc:
            self._refuse(options, option, f"{said}: {excerpt(folder)} {exc.reason}: a page may include only files "
                                          "of the project")
            return
        if resolved == self.root.resolve():
            self._refuse(options, option, f"{said}: {excerpt(folder)} is the whole project (its caches, its "
                                          "virtualenv...); name the folder that holds what pages include")
        elif not resolved.is_dir():
            self._refuse(options, option, f"{said}: {excerpt(folder)} is not a folder of the project")

    # --- files and links -------------------------------------------------------------------------------------

    def _file(self, path: Any, field: str, container: Any, key: Any) -> None:
        """``path`` must be a file the site is made of: in the project's pages, its theme folder, or rulepress's
        own assets (assets/rulepress.css...)."""
        if not isinstance(path, str):
            return
        problem = site_path_problem(path)
        if problem is None and not self._is_site_file(path):
            problem = "there is no such file in the site's pages"
        if problem:
            where = confine.shown(self.pages, self.root) if self.pages is not None else PAGES
            self._refuse(container, key, f"{field}: {excerpt(path)} is not a file of the project ({problem}), and "
                                         f"the site fetches nothing: put the file in {where}/ and name it by its "
                                         "path there")

    def _is_site_file(self, path: str) -> bool:
        from rulepress.data import package_path  # the packaged assets every site carries

        folders = [folder for folder in (self.pages, self.theme) if folder is not None]
        for folder in folders:
            try:
                if confine.confined(self.root, folder / path).is_file():
                    return True
            except confine.PathRefused:
                continue
        return path.startswith("assets/") and (package_path("render", "theme") / path).is_file()

    def _link_or_page(self, value: str, field: str, container: Any, key: Any, page: bool = True) -> bool:
        """A link a reader follows (``https:``, ``http:``, ``mailto:``) or, with ``page``, a page of the site's
        own; anything else is refused.  True when it is a link."""
        if _SCHEME.match(_CONTROLS.sub("", html.unescape(value)).lower()):
            if value.lower().startswith(LINK_SCHEMES) and _LINK.fullmatch(value):
                return True
            self._refuse(container, key, f"{field}: {excerpt(value)} is not a link a reader may follow (https:, "
                                         "http: or mailto:, with no spaces, quotes or angle brackets)")
            return False
        if not page:
            problem = site_path_problem(value)
            if problem:
                self._refuse(container, key, f"{field}: {excerpt(value)}: {problem}")
            return False
        problem = site_path_problem(value)
        if problem is None and (self.pages is None or not _inside_file(self.root, self.pages, value)):
            problem = (f"no such page in {confine.shown(self.pages, self.root)}/" if self.pages is not None
                       else f"the project has no pages folder ({PAGES}/)")
        if problem:
            self._refuse(container, key, f"{field}: {excerpt(value)} is not a page of the site ({problem}); the "
                                         "navigation lists the project's own pages and links")
        return False

    def _nav(self, entries: Any, where: str, container: Any, key: Any) -> None:
        if not isinstance(entries, list):
            return
        for index, entry in enumerate(entries):
            place = f"{where}[{index + 1}]"
            if isinstance(entry, str):
                self._link_or_page(entry, place, entries, index)
            elif isinstance(entry, dict) and len(entry) == 1:
                title, target = next(iter(entry.items()))
                self._text(str(title), f"{place} (its title)", entry, title)
                if isinstance(target, list):
                    self._nav(target, f"{place}.{title}", entry, title)
                elif isinstance(target, str):
                    self._link_or_page(target, f"{place}.{title}", entry, title)


@functools.cache
def known_options(name: str) -> frozenset[str] | None:
    """The options the Markdown extension ``name`` (one of :data:`EXTENSIONS`) declares, as Python-Markdown reads
    them from the extension made without any; None if it cannot be made (mkdocs says why, in its own words)."""
    import markdown

    try:
        extension = markdown.Markdown().build_extension(name, {})
    except Exception:
        return None
    return frozenset(key for key in extension.getConfigs() if not key.startswith("_"))


def _inside_file(root: Path, folder: Path, path: str) -> bool:
    try:
        found = confine.confined(root, folder / path)
    except confine.PathRefused:
        return False
    return found.is_file() and found.is_relative_to(folder.resolve())


def _plain_value(value: Any) -> bool:
    if isinstance(value, str | int | float | bool) or value is None:
        return True
    if isinstance(value, list):
        return all(isinstance(item, str | int | float | bool) for item in value)
    return False
