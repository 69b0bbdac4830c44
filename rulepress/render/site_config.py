"""The site's mkdocs configuration: the package's defaults with the project's own ``mkdocs.yml`` merged over them.

A project needs no ``mkdocs.yml``.  One that has its own adds to the defaults (``theme/defaults.yml``): its site
name and description, colours (``theme.palette``), extra pages (``nav``, from its ``site_src/`` folder or the
``docs_dir`` it names), extra CSS and JavaScript, Markdown extensions and plugins.  What would make the site
depend on the network or lose its offline search is refused, with the file, the line and the reason: web fonts,
a theme other than mkdocs-material, disabling the search, offline or rulepress plugins, a stylesheet, script or
polyfill fetched from elsewhere.  Whatever mkdocs itself finds wrong in the merged configuration it says in its
own words (rulepress/publish/build.py passes them on with this file's name).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rulepress.data import package_path
from rulepress.errors import SourceError
from rulepress.load.site_folders import PAGES
from rulepress.load.yamlsrc import line_of, load_yaml, parse_yaml, plain

CONFIG = "mkdocs.yml"  # a project's own configuration, beside rules_src/
REQUIRED_PLUGINS = {"search": "the site's search", "offline": "search and navigation from file:// without a server",
                    "rulepress": "the books' pages"}
_REMOTE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)  # http:, https:, data:, //cdn...


def theme_folder() -> Path:
    """The package's site theme: ``overrides/`` (templates over mkdocs-material's), ``assets/``, the defaults."""
    return package_path("render", "theme")


def overrides_folder() -> Path:
    return theme_folder() / "overrides"


def assets() -> list[str]:
    """The packaged files every site carries, as paths in the site (``assets/rulepress.css``...)."""
    base = theme_folder()
    return sorted(path.relative_to(base).as_posix() for path in (base / "assets").rglob("*") if path.is_file())


def defaults() -> dict[str, Any]:
    text = (theme_folder() / "defaults.yml").read_text(encoding="utf-8")
    return plain(parse_yaml(text, "rulepress/render/theme/defaults.yml"))


def _entry_name(entry: Any) -> str:
    """The name of a list entry written ``name`` or ``{name: options}`` (plugins, Markdown extensions)."""
    return next(iter(entry)) if isinstance(entry, dict) else str(entry)


def plugin_name(entry: Any) -> str:
    return _entry_name(entry).removeprefix("material/")  # mkdocs-material's names for the same plugins


def site_config(root: Path) -> dict[str, Any]:
    """The merged configuration of the project at ``root``, as ``mkdocs.config.load_config`` keywords.

    Raises :class:`SourceError` (``mkdocs.yml`` and the line) for what a project may not change."""
    merged = defaults()
    path = root / CONFIG
    own: dict[str, Any] = {}
    if path.is_file():
        read = load_yaml(path, CONFIG, root=root)
        if read is None:
            read = {}
        if not isinstance(read, dict):
            raise SourceError(CONFIG, line_of(read, default=1), "is not a mapping of mkdocs settings")
        _refuse(read)
        own = plain(read)
    for key, value in own.items():
        if key == "theme":
            merged["theme"] = {**merged["theme"], **({"name": value} if isinstance(value, str) else value)}
        elif key in ("extra_css", "extra_javascript"):
            merged[key] = _union(merged.get(key, []), value)
        elif key == "extra":
            extra = {**merged["extra"], **value}
            extra["polyfills"] = _union(merged["extra"]["polyfills"], value.get("polyfills") or [])
            merged["extra"] = extra
        elif key == "plugins":
            merged["plugins"] = _by_name(merged["plugins"], value, plugin_name)
        elif key == "markdown_extensions":
            merged["markdown_extensions"] = _by_name(merged["markdown_extensions"], value, _entry_name)
        else:
            merged[key] = value
    if "docs_dir" not in own:
        if (root / PAGES).is_dir():
            merged["docs_dir"] = PAGES
        else:  # no pages of its own: the theme's folder, whose assets are the site's
            merged["docs_dir"] = str(theme_folder())
            merged["exclude_docs"] = "overrides/\n/defaults.yml\n"
    return merged


def _union(first: list[Any], second: list[Any]) -> list[Any]:
    return first + [item for item in second if item not in first]


def _by_name(first: list[Any], second: list[Any], name: Any) -> list[Any]:
    """Entries (``name`` or ``{name: options}``) of both, the second's options over the first's."""
    merged: dict[str, Any] = {name(entry): entry for entry in first}
    for entry in second:
        key = name(entry)
        old = merged.get(key)
        if isinstance(entry, dict) and isinstance(old, dict):
            entry = {next(iter(entry)): {**(old[next(iter(old))] or {}), **(entry[next(iter(entry))] or {})}}
        elif not isinstance(entry, dict) and old is not None:
            entry = old  # named again without options: the defaults' options stay
        merged[key] = entry
    return list(merged.values())


def _refuse(config: dict[str, Any]) -> None:
    """What a project's mkdocs.yml may not change, each refused at its line."""

    def refused(container: Any, key: Any, message: str) -> SourceError:
        return SourceError(CONFIG, line_of(container, key, line_of(config, None)), message)

    for key, kinds, shape in _SHAPES:  # what the merge adds to: anything else would be merged into nonsense
        if key in config and not isinstance(config[key], kinds):
            found = "a list" if isinstance(config[key], list) else f"{plain(config[key])!r}"
            raise refused(config, key, f"{key}: {shape} is expected, not {found} (the defaults' are added to it)")
    extra = config.get("extra")
    if isinstance(extra, dict) and "polyfills" in extra and not isinstance(extra["polyfills"], list):
        raise refused(extra, "polyfills", "extra.polyfills: a list is expected (the defaults' are added to it)")
    theme = config.get("theme")
    if isinstance(theme, str):
        theme = {"name": theme}
        if theme["name"] != "material":
            raise refused(config, "theme", f"theme: '{theme['name']}': rulepress's site is built on mkdocs-material "
                                           "(its templates and offline search need it); leave theme.name out")
    if isinstance(theme, dict):
        if theme.get("name", "material") != "material":
            raise refused(theme, "name", f"theme.name: '{theme['name']}': rulepress's site is built on "
                                         "mkdocs-material (its templates and offline search need it); leave it out")
        if "font" in theme and theme["font"] is not False:
            raise refused(theme, "font", f"theme.font: {plain(theme['font'])!r}: web fonts are fetched from Google "
                                         "Fonts, and the site must work offline; leave theme.font out")
    for entry, at, index in _entries(config, "plugins"):
        name = plugin_name(entry)
        options = entry[next(iter(entry))] if isinstance(entry, dict) else None
        if name in REQUIRED_PLUGINS and isinstance(options, dict) and options.get("enabled", True) is not True:
            raise refused(at, index, f"plugins: '{name}' may not be disabled: it gives {REQUIRED_PLUGINS[name]}")
    if "site_dir" in config:
        raise refused(config, "site_dir", "site_dir: rulepress build publishes into site/ (or --site-dir DIR), "
                                          "checked and swapped in whole; leave site_dir out")
    for key in ("extra_css", "extra_javascript"):
        for entry, at, index in _entries(config, key):
            _local(entry.get("path") if isinstance(entry, dict) else entry, f"{key}", at, index, refused)
    extra = config.get("extra")
    if isinstance(extra, dict):
        for entry, at, index in _entries(extra, "polyfills"):
            _local(entry, "extra.polyfills", at, index, refused)


_SHAPES = [("theme", (str, dict), "a theme name or a mapping"), ("extra", dict, "a mapping"),
           ("plugins", list, "a list"), ("markdown_extensions", list, "a list"), ("extra_css", list, "a list"),
           ("extra_javascript", list, "a list")]


def _entries(container: dict[str, Any], key: str) -> list[tuple[Any, Any, int]]:
    value = container.get(key)
    return [(entry, value, index) for index, entry in enumerate(value)] if isinstance(value, list) else []


def _local(link: Any, key: str, at: Any, index: int, refused: Any) -> None:
    if isinstance(link, str) and _REMOTE.match(link):
        raise refused(at, index, f"{key}: '{link}' is fetched from outside the site, and the site must work "
                                 "offline: put the file in the project's pages and name it by its path there")


def project_setting(root: Path, key: str) -> tuple[int | None, Any]:
    """The line and value of ``key`` in the project's own mkdocs.yml ((None, None) when it does not set it)."""
    path = root / CONFIG
    if not path.is_file():
        return None, None
    try:
        read = load_yaml(path, CONFIG, root=root)
    except SourceError:
        return None, None
    if not isinstance(read, dict) or key not in read:
        return None, None
    return line_of(read, key), plain(read[key])
