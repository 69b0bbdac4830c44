"""Preview rebuilds that render again only the pages whose Markdown changed.

mkdocs renders every page on every build, and most of a build is that; after a one-rule edit most pages
are the same.  When the navigation is unchanged, the previous preview site is copied and mkdocs runs its own
``dirty`` build over it, with every generated page whose Markdown is unchanged marked as not modified.  Its
search index then holds only the pages rendered again: the entries of the others are carried over from the
previous index.  When the navigation changed (a title, a new example) every page shows it: a full build.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files

_SEARCH = Path("search") / "search_index.json"


class _Unchanged(BasePlugin):  # type: ignore[type-arg]
    """Marks unchanged generated pages as not modified; merges the search index afterwards."""

    def __init__(self, previous: dict[str, str], previous_index: list[dict[str, Any]],
                 titles: dict[str, str]) -> None:
        self.previous = previous
        self.previous_index = previous_index
        self.previous_titles = titles
        self.pages: dict[str, str] = {}  # every generated page now: src_uri -> Markdown
        self.titles: dict[str, str] = {}  # every page's title now: src_uri -> title
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
        self.titles = {file.src_uri: file.page.title for file in files.documentation_pages()
                       if file.page is not None and file.page.title is not None}
        return env

    @event_priority(-100)  # after the search and offline plugins and the hooks have written the index
    def on_post_build(self, config: MkDocsConfig) -> None:
        index = Path(config.site_dir) / _SEARCH
        if not index.is_file():
            return
        data = json.loads(index.read_text(encoding="utf-8"))
        kept = [doc for doc in self.previous_index if str(doc.get("location", "")).split("#")[0] not in self.rendered]
        data["docs"] = kept + data.get("docs", [])
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        index.write_text(text, encoding="utf-8")
        script = index.with_suffix(".js")
        if script.is_file():  # the offline plugin's copy for file://
            script.write_text(f"var __index = {text}", encoding="utf-8")


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "'dirty' build" not in record.getMessage()  # the preview asks for it on purpose


class Renderer:
    """The preview's site builds: full the first time and whenever the navigation changes, dirty otherwise."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        self.nav = ""
        self.titles: dict[str, str] = {}
        self.rendered: set[str] | None = None  # URLs rendered by the last build; None: all of them

    def render(self, root: Path, report: Any, impacts: dict[str, Any], previous: Path | None, target: Path) -> Any:
        """Build into ``target`` (from ``previous``, the last good site, when that is enough); returns the
        mkdocs log collector of the build, as :func:`rulepress.publish.build.render_site` does."""
        from mkdocs.commands.build import build as mkdocs_build
        from mkdocs.config import load_config

        from rulepress.publish.build import _logged
        from rulepress.render import site as site_pages

        nav = json.dumps(site_pages.nav(report), sort_keys=True)
        dirty = previous is not None and (previous / _SEARCH).is_file() and nav == self.nav and bool(self.pages)
        if dirty:
            assert previous is not None
            shutil.copytree(previous, target, copy_function=shutil.copy2)  # mtimes kept: theme files skip
            index = json.loads((previous / _SEARCH).read_text(encoding="utf-8")).get("docs", [])
        unchanged = _Unchanged(self.pages if dirty else {}, index if dirty else [], self.titles if dirty else {})
        site_pages.PREPARED = site_pages.SiteInput(report, impacts)
        quiet = _Quiet()
        logging.getLogger("mkdocs.commands.build").addFilter(quiet)
        try:
            with _logged("mkdocs") as logged:
                config = load_config(str(root / "mkdocs.yml"), site_dir=str(target))
                config.plugins["rulepress-preview"] = unchanged
                mkdocs_build(config, dirty=dirty)
        finally:
            site_pages.PREPARED = None
            logging.getLogger("mkdocs.commands.build").removeFilter(quiet)
        if not logged.fatal("mkdocs"):
            self.pages, self.nav, self.titles = unchanged.pages, nav, unchanged.titles
            self.rendered = unchanged.rendered if dirty else None
        return logged
