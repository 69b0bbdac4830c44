"""Site builds that render again only the pages whose Markdown changed: the preview's and the build's.

mkdocs renders every page on every build, and most of a build is that; after a one-rule edit most pages
are the same.  When no site's navigation changed (the root site's nor any language's), the previous site is
copied and mkdocs runs its own ``dirty`` build over it, with every generated page whose Markdown is unchanged
marked as not modified.  Its search index then holds only the pages rendered again: the entries of the others
are carried over from the previous index, in the order a full build writes them, so the result is byte for
byte what a full build makes.  When a navigation changed (a title, a new example) every page shows it: a full
build.  ``Renderer.state`` is what the next build compares with; rulepress/cache.py keeps it with each site.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files

_SEARCH = Path("search") / "search_index.json"


def _name(lang: str | None) -> str:
    return lang or ""  # the root site's state is under ""


def _folder(lang: str | None) -> str:
    return f"{lang}/" if lang else ""


class _Unchanged(BasePlugin):  # type: ignore[type-arg]
    """Marks unchanged generated pages as not modified; merges the search index afterwards."""

    def __init__(self, previous: dict[str, Any] | None, previous_index: list[dict[str, Any]]) -> None:
        self.previous: dict[str, str] = (previous or {}).get("pages", {})
        self.previous_titles: dict[str, str] = (previous or {}).get("titles", {})
        self.previous_index = previous_index
        self.pages: dict[str, str] = {}  # every generated page now: src_uri -> Markdown
        self.titles: dict[str, str] = {}  # every page's title now: src_uri -> title
        self.order: dict[str, int] = {}  # page URL -> its place in the build (the search index's order)
        self.rendered: set[str] = set()  # URLs of the pages rendered again
        self.skipped: set[str] = set()  # src_uris of the pages not rendered again

    @event_priority(-100)  # after the rulepress hooks have added the generated pages
    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
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


def _page(doc: dict[str, Any]) -> str:
    return str(doc.get("location", "")).split("#")[0]


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "'dirty' build" not in record.getMessage()  # asked for on purpose


class Renderer:
    """Site builds: full the first time and whenever a navigation changes, dirty otherwise.

    ``state`` (plain JSON) is what the last good build made: per site (``""`` for the root, else its language)
    the navigation, every generated page's Markdown and every page's title, and the ``fingerprint`` of what
    else the pages show (the theme, mkdocs.yml, rulepress itself) that the build was made with.
    """

    def __init__(self, state: dict[str, Any] | None = None) -> None:
        self.state: dict[str, Any] = state or {}
        self.rendered: set[str] | None = None  # URLs rendered by the last build; None: all of them

    def render(self, root: Path, report: Any, impacts: dict[str, Any], previous: Path | None, target: Path,
               render: Callable[..., Any] | None = None, fingerprint: str = "") -> Any:
        """Build into ``target`` (from ``previous``, the last good site, when that is enough); returns the
        mkdocs log collector of the build, as ``render`` (:func:`rulepress.publish.build.render_site`) does."""
        from rulepress.publish.build import render_site
        from rulepress.render import site as site_pages

        render = render or render_site
        langs = [None, *site_pages.site_languages(report)]
        navs = {_name(lang): json.dumps(site_pages.nav(report, lang), sort_keys=True) for lang in langs}
        sites = self.state.get("sites", {})
        dirty = (previous is not None and self.state.get("fingerprint") == fingerprint
                 and set(sites) == set(navs)
                 and all((previous / _folder(lang) / _SEARCH).is_file() and sites[_name(lang)].get("nav") == navs[
                         _name(lang)] and sites[_name(lang)].get("pages") for lang in langs))
        if dirty:
            assert previous is not None
            shutil.copytree(previous, target, copy_function=shutil.copy2, dirs_exist_ok=True)  # mtimes kept
        plugins: dict[str, _Unchanged] = {}

        def prepare(lang: str | None, config: MkDocsConfig) -> bool:
            index = []
            if dirty:  # read before mkdocs writes this build's
                index = json.loads((Path(config.site_dir) / _SEARCH).read_text(encoding="utf-8")).get("docs", [])
            plugins[_name(lang)] = _Unchanged(sites.get(_name(lang)) if dirty else None, index)
            config.plugins["rulepress-preview"] = plugins[_name(lang)]
            return dirty

        quiet = _Quiet()
        logging.getLogger("mkdocs.commands.build").addFilter(quiet)
        try:
            logged = render(root, report, impacts, target, prepare=prepare)
        finally:
            logging.getLogger("mkdocs.commands.build").removeFilter(quiet)
        if not logged.fatal("mkdocs") and set(plugins) == set(navs):
            self.state = {"fingerprint": fingerprint, "sites": {
                name: {"nav": navs[name], "pages": plugin.pages, "titles": plugin.titles}
                for name, plugin in plugins.items()}}
            rendered = {_folder(name or None) + url for name, plugin in plugins.items() for url in plugin.rendered}
            self.rendered = rendered if dirty else None
        return logged
