"""Site builds that render again only the pages whose Markdown changed: the preview's and the build's.

mkdocs renders every page on every build, and most of a build is that; after a one-rule edit most pages
are the same.  When no site's navigation changed (the root site's nor any language's), the previous site is
copied and mkdocs runs its own ``dirty`` build over it, with every generated page whose Markdown is unchanged
marked as not modified.  Its search index then holds only the pages rendered again: the entries of the others
are carried over from the previous index, in the order a full build writes them, so the result is byte for
byte what a full build makes.  A language's site whose generated files are all the same as last time (an edit
of a book that is not translated leaves the translations' site so) is not built at all: mkdocs' output is a
function of those files and of what every page shows.  When a navigation or what every page shows changed (a
title, a new example, a book's colour, the theme, the date in the sitemap) every page shows it: a full build.
``Renderer.state`` is what the next build compares with; rulepress/publish/sitestore.py keeps it with each site.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files

from rulepress import usercache
from rulepress.errors import BuildRefused
from rulepress.store import code_digest, enabled, key_of

_SEARCH = Path("search") / "search_index.json"


def _name(lang: str | None) -> str:
    return lang or ""  # the root site's state is under ""


def _folder(lang: str | None) -> str:
    return f"{lang}/" if lang else ""


class _Unchanged(BasePlugin):  # type: ignore[type-arg]
    """Marks unchanged generated pages as not modified; merges the search index afterwards."""

    def __init__(self, previous: dict[str, Any] | None, previous_index: list[dict[str, Any]],
                 templates: bool = False) -> None:
        self.templates = templates  # whether the theme's compiled templates are cached
        self.previous: dict[str, str] = (previous or {}).get("pages", {})
        self.previous_titles: dict[str, str] = (previous or {}).get("titles", {})
        self.previous_index = previous_index
        self.pages: dict[str, str] = {}  # every generated page now: src_uri -> Markdown
        self.titles: dict[str, str] = {}  # every page's title now: src_uri -> title
        self.order: dict[str, int] = {}  # page URL -> its place in the build (the search index's order)
        self.rendered: set[str] = set()  # URLs of the pages rendered again
        self.skipped: set[str] = set()  # src_uris of the pages not rendered again
        self.files: str | None = None  # a digest of every file the rulepress hooks generated

    @event_priority(-100)  # after the rulepress hooks have added the generated pages
    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        from rulepress.render.mkdocs_plugin import plugin_of

        prepared = plugin_of(config).prepared
        if prepared is not None and prepared.generated is not None:
            self.files = _files_digest(prepared.generated)
        for file in files:
            if file.generated_by is None or not file.src_uri.endswith(".md"):
                continue
            text = file.content_string
            self.pages[file.src_uri] = text
            if self.previous.get(file.src_uri) == text and file.src_uri in self.previous_titles:
                file.is_modified = lambda: False  # type: ignore[method-assign]
                self.skipped.add(file.src_uri)
            else:
                self.rendered.add(file.url)
        return files

    def on_nav(self, nav: Any, config: MkDocsConfig, files: Files) -> Any:
        # A page not read again has no title of its own, and the navigation of every page shows it: the last one.
        for file in files.documentation_pages():
            if file.src_uri in self.skipped and file.page is not None:
                file.page.title = self.previous_titles[file.src_uri]  # type: ignore[misc]
        return nav

    @event_priority(-100)
    def on_env(self, env: Any, config: MkDocsConfig, files: Files) -> Any:
        if self.templates and not callable(env.autoescape):  # (a function would decide per name)
            # mkdocs makes a new Jinja environment for every build, which compiles every theme template again
            # (a second or so a site); Jinja's bytecode cache keeps the compiled code, checked against each source,
            # in this process and, for the installed themes only, in the user's own cache (never the store:
            # nothing read from a project's cache may run).
            env.bytecode_cache = _CachedTemplates(_environment_digest(env))
        pages = files.documentation_pages()
        self.titles = {file.src_uri: file.page.title for file in pages
                       if file.page is not None and file.page.title is not None}
        # mkdocs builds the pages in this order, and the search plugin indexes them as they are built.
        for place, file in enumerate(pages):
            self.order.setdefault(file.url, place)
            if file.page is not None:
                self.order.setdefault(file.page.url, place)
        return env

    @event_priority(-100)  # after the search and offline plugins and the hooks have written the index
    def on_post_build(self, config: MkDocsConfig) -> None:
        index = Path(config.site_dir) / _SEARCH
        if not index.is_file():
            return
        data = json.loads(index.read_text(encoding="utf-8"))
        fresh = self.rendered | {_page(doc) for doc in data.get("docs", [])}  # also pages mkdocs found modified
        kept = [doc for doc in self.previous_index if _page(doc) not in fresh]
        last = len(self.order)
        ranked = [(self.order.get(_page(doc), last), 0, n, doc) for n, doc in enumerate(kept)]
        ranked += [(self.order.get(_page(doc), last), 1, n, doc) for n, doc in enumerate(data.get("docs", []))]
        data["docs"] = [doc for *_, doc in sorted(ranked, key=lambda item: item[:3])]
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))  # as rulepress/render/site_fixes.py
        index.write_text(text, encoding="utf-8")
        script = index.with_suffix(".js")
        if script.is_file():  # the offline plugin's copy for file://
            script.write_text(f"var __index = {text}", encoding="utf-8")


COMPILED: dict[str, bytes] = {}  # this process's compiled theme templates, for each environment
MOST_COMPILED = 1000
TEMPLATES = "templates"  # the user's cache's kind (rulepress/usercache.py): never a project's cache


def _installed_themes() -> tuple[Path, ...]:
    import material
    import mkdocs

    from rulepress.render.site_config import theme_folder

    return tuple(Path(module.__file__).resolve().parent for module in (material, mkdocs)) + (
        theme_folder().resolve(),)


class _CachedTemplates(jinja2.BytecodeCache):
    """Jinja's compiled templates, cached in this process; those of the installed themes (mkdocs-material's,
    mkdocs', rulepress's: installed code, as Python's own ``__pycache__`` is) also in the user's cache, each sealed
    with the store's key and checked against its template's source by Jinja.  A project's own templates (its
    ``custom_dir``) are compiled afresh in each process: nothing compiled from a project is ever read back from
    disk, and a project's ``.rulepress-cache/`` holds no code at all."""

    def __init__(self, environment: str) -> None:
        self.environment = environment
        self.shipped: dict[str, bool] = {}  # bucket key -> whether its template is an installed theme's
        self.themes = _installed_themes()

    def get_bucket(self, environment: jinja2.Environment, name: str, filename: str | None,
                   source: str) -> jinja2.bccache.Bucket:
        # Before Jinja's get_bucket, which loads the bucket at once: load_bytecode must know whose template it is
        # (set after, the user's cache was written and never read: every process compiled the themes again).
        self.shipped[self.get_cache_key(name, filename)] = filename is not None and any(
            Path(filename).resolve().is_relative_to(theme) for theme in self.themes)
        return super().get_bucket(environment, name, filename, source)

    def _user_cache_key(self, bucket: jinja2.bccache.Bucket) -> str | None:
        """The key of the bucket in the user's cache, or None for a template that is not an installed theme's."""
        return key_of(self.environment, bucket.key) if self.shipped.get(bucket.key) else None

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = COMPILED.get(key_of(self.environment, bucket.key))
        kept = self._user_cache_key(bucket)
        if data is None and kept is not None:
            data = usercache.read(TEMPLATES, kept, 16 * 1024 * 1024)
        if data is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if len(COMPILED) >= MOST_COMPILED:
            del COMPILED[next(iter(COMPILED))]
        data = bucket.bytecode_to_string()
        COMPILED[key_of(self.environment, bucket.key)] = data
        kept = self._user_cache_key(bucket)
        if kept is not None:
            usercache.write(TEMPLATES, kept, data, MOST_COMPILED)


def _environment_digest(env: jinja2.Environment) -> str:
    """What else a template compiles to depends on: the environment's syntax and extensions, and the versions."""
    from importlib.metadata import version

    settings = (env.block_start_string, env.block_end_string, env.variable_start_string, env.variable_end_string,
                env.comment_start_string, env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix,
                env.trim_blocks, env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline, env.optimized,
                env.autoescape, getattr(env, "newstyle_gettext", None))
    return key_of(code_digest(), type(env).__name__, repr(settings), repr(sorted(env.extensions)), version("jinja2"),
                  version("mkdocs"),
                  version("mkdocs-material"))[:32]


def _page(doc: dict[str, Any]) -> str:
    return str(doc.get("location", "")).split("#")[0]


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "'dirty' build" not in record.getMessage()  # asked for on purpose


class Renderer:
    """Site builds: full the first time and whenever a navigation or what every page shows changes, dirty
    otherwise, and none at all for a language's site whose generated files are all the same.

    ``state`` (plain JSON) is what the last good build made: per site (``""`` for the root, else its language)
    the navigation, every generated page's Markdown and every page's title, a digest of every generated file
    and what its run warned about, and the ``fingerprint`` of what else the pages show that the build was made
    with (the theme, mkdocs.yml, rulepress itself, the books' styles and languages, the build date).
    """

    def __init__(self, state: dict[str, Any] | None = None, share: bool = False) -> None:
        self.state: dict[str, Any] = state or {}
        self.rendered: set[str] | None = None  # URLs rendered by the last build; None: all of them
        # Whether a language site left as it is may share its files with the previous site (hard links): only
        # when nothing ever writes into either (a serve session's own sites), never for a site to be published.
        self.share = share

    def render(self, root: Path, report: Any, impacts: dict[str, Any], previous: Path | None, target: Path,
               render: Callable[..., Any] | None = None, fingerprint: str = "",
               copy: Callable[[Path], bool] | None = None) -> Any:
        """Build into ``target`` (from ``previous``, the last good site, when that is enough); returns the
        mkdocs log collector of the build, as ``render`` (:func:`rulepress.publish.build.render_site`) does.

        ``copy(target)``, when given, puts ``previous`` into ``target`` instead of a plain copy (a kept site, each
        file checked as it is copied out); False (a damaged kept site): a full build instead."""
        from rulepress.publish.build import render_site
        from rulepress.render import site as site_pages

        render = render or render_site
        langs = [None, *site_pages.site_languages(report)]
        navs = {_name(lang): json.dumps(site_pages.nav(report, lang), sort_keys=True) for lang in langs}
        fingerprint = key_of(fingerprint, _shown_everywhere(report, langs))
        sites = self.state.get("sites", {})
        dirty = (previous is not None and self.state.get("fingerprint") == fingerprint
                 and set(sites) == set(navs)
                 and all((previous / _folder(lang) / _SEARCH).is_file() and sites[_name(lang)].get("nav") == navs[
                         _name(lang)] and sites[_name(lang)].get("pages") for lang in langs))
        if dirty and copy is not None and not copy(target):  # the previous site is damaged: a full build
            dirty = False
        # Each site's generated files, made now (kept per book, see rulepress/render/site.py) to see which sites
        # read exactly what their last build read: their output is in place, and mkdocs need not run for them.
        early: dict[str, dict[str, str]] = {}
        for lang in langs:
            if dirty and sites[_name(lang)].get("files"):
                try:
                    early[_name(lang)] = site_pages.pages(site_pages.SiteInput(report, impacts, lang))
                except site_pages.PlayerTextError as exc:  # refused now, as mkdocs' run would refuse it
                    raise BuildRefused(exc.problems) from None
        skipped = {name for name, files in early.items() if _files_digest(files) == sites[name]["files"]}
        if dirty and copy is None:
            assert previous is not None
            shared = [lang for lang in langs if lang is not None and lang in skipped] if self.share else []
            _copy_site(previous, target, shared)
        plugins: dict[str, _Unchanged] = {}
        templates = enabled()

        def prepare(lang: str | None, config: MkDocsConfig) -> bool | None:
            from rulepress.render.mkdocs_plugin import plugin_of

            name = _name(lang)
            prepared = plugin_of(config).prepared
            if name in early and prepared is not None:
                prepared.generated = early[name]  # the same report, impacts and language
            if name in skipped:
                # What that run warned about is said again, as running it again would.
                for logger, level, message in sites[name].get("warnings", []):
                    logging.getLogger(logger).log(level, "%s", message)
                return None
            index = []
            if dirty:  # read before mkdocs writes this build's
                index = json.loads((Path(config.site_dir) / _SEARCH).read_text(encoding="utf-8")).get("docs", [])
            plugins[name] = _Unchanged(sites.get(name) if dirty else None, index, templates)
            config.plugins["rulepress-preview"] = plugins[name]
            return dirty

        quiet = _Quiet()
        logging.getLogger("mkdocs.commands.build").addFilter(quiet)
        try:
            logged = render(root, report, impacts, target, prepare=prepare)
        finally:
            logging.getLogger("mkdocs.commands.build").removeFilter(quiet)
        if not logged.fatal("mkdocs") and set(plugins) | skipped == set(navs):
            runs = getattr(logged, "sites", {})
            state: dict[str, Any] = {}
            for lang in langs:
                name = _name(lang)
                if name in skipped:
                    state[name] = sites[name]
                    continue
                plugin = plugins[name]
                files = plugin.files
                warnings = [[r.name, r.levelno, r.getMessage()] for r in runs.get(lang, [])]
                state[name] = {"nav": navs[name], "pages": plugin.pages, "titles": plugin.titles, "files": files,
                               "warnings": warnings}
            self.state = {"fingerprint": fingerprint, "sites": state}
            rendered = {_folder(name or None) + url for name, plugin in plugins.items() for url in plugin.rendered}
            self.rendered = rendered if dirty else None
        return logged


def _shown_everywhere(report: Any, langs: list[str | None]) -> str:
    """What every page of a site shows besides its own Markdown and the theme: the languages (the switcher), each
    book's title, colour and mark (its pages' header), and the date in the sitemap."""
    from mkdocs.utils import get_build_date

    from rulepress.render import site as site_pages

    return json.dumps({"langs": langs, "date": get_build_date(), "books": {
        _name(lang): [site_pages.book_style(check.book) for check in site_pages.site_checks(report, lang)]
        for lang in langs}}, sort_keys=True)


def _files_digest(files: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(files, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _copy_site(previous: Path, target: Path, shared: list[str]) -> None:
    """``previous`` into ``target``, mtimes kept (a dirty build compares them): copied, since mkdocs writes into
    it in place, except the language sites in ``shared`` (hard links: mkdocs does not run for them)."""
    for lang in shared:
        shutil.copytree(previous / lang, target / lang, copy_function=link_or_copy, dirs_exist_ok=True)
    shutil.copytree(previous, target, copy_function=shutil.copy2, dirs_exist_ok=True,
                    ignore=lambda folder, names: shared if Path(folder) == previous else [])


def link_or_copy(source: str, target: str) -> None:
    """A hard link to ``source`` (same bytes, same mtime, no copy), or a copy where links cannot be made."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
