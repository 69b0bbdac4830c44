"""The site's mkdocs configuration: the package's defaults with the project's own ``mkdocs.yml`` merged over them.

A project needs no ``mkdocs.yml``.  One that has its own adds to the defaults (``theme/defaults.yml``): its site
name and description, colours (``theme.palette``), extra pages (``nav``, from its ``site_src/`` folder or the
``docs_dir`` it names), extra CSS and JavaScript of its own, Markdown extensions.  What it may set, and what each
value may name, is checked first, at its line (rulepress/load/mkdocs_yml.py: nothing run, fetched or read outside
the project).  Whatever mkdocs itself finds wrong in the merged configuration it says in its own words
(rulepress/publish/build.py passes them on with this file's name).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rulepress.data import package_path
from rulepress.errors import SourceError
from rulepress.load import mkdocs_yml
from rulepress.load.mkdocs_yml import PAGES
from rulepress.load.yamlsrc import line_of, load_yaml, parse_yaml, plain

CONFIG = "mkdocs.yml"  # a project's own configuration, beside rules_src/
REQUIRED_PLUGINS = mkdocs_yml.PLUGINS


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


plugin_name = mkdocs_yml.plugin_name


def site_config(root: Path) -> dict[str, Any]:
    """The merged configuration of the project at ``root``, as ``mkdocs.config.load_config`` keywords.

    Raises :class:`SourceError` (``mkdocs.yml`` and the line) for what a project may not set
    (rulepress/load/mkdocs_yml.py checks it as every source is checked)."""
    merged = defaults()
    read = mkdocs_yml.checked(root)
    own: dict[str, Any] = plain(read) if isinstance(read, dict) else {}
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
    merged["markdown_extensions"] = [_reading_only(entry, root, read) for entry in merged["markdown_extensions"]]
    return merged


def _reading_only(entry: Any, root: Path, read: Any) -> Any:
    """An extension that reads files (pymdownx.snippets, pymdownx.b64) with the folders it may read named whole: the
    ones mkdocs.yml gives (checked, inside the project), else the project's pages, else none.  Never its own
    default, the folder the command happens to run in."""
    name = _entry_name(entry).removeprefix("markdown.extensions.")
    option = mkdocs_yml.READS_FILES.get(name)
    if option is None:
        return entry
    options = dict(entry[next(iter(entry))] or {}) if isinstance(entry, dict) else {}
    named = options.get(option)
    folders = [named] if isinstance(named, str) else list(named or [])
    if not folders:
        pages = mkdocs_yml.pages_folder(root, read)
        folders = [str(pages)] if pages is not None else []
    absolute = [str((root / folder).resolve()) for folder in folders]
    if name == "pymdownx.b64":
        options[option] = absolute[0] if absolute else str((root / ".rulepress-no-files").resolve())
    else:
        options[option] = absolute
        options["restrict_base_path"] = True
    return {_entry_name(entry): options}


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
