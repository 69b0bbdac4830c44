"""The ``rulepress`` mkdocs plugin (entry point group ``mkdocs.plugins``): the site's pages come from the verified
books, rendered by mkdocs-material with rulepress's theme overrides and assets (package data).

Named in a configuration as ``- rulepress``; the packaged defaults (rulepress/render/site_config.py) name it, so a
project's own ``mkdocs.yml`` need not.  Run by ``rulepress build``, which verifies first and hands its report to the
plugin instance of the configuration it loaded (:func:`plugin_of`, ``prepared``), or by a plain ``mkdocs build``/
``mkdocs serve`` of a configuration naming it, which verifies here and refuses to build when the books disagree.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import mkdocs
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from rulepress import account, progress
from rulepress.render import in_browser, site, site_config, site_fixes, stepper
from rulepress.render.typography import typeset_html
from rulepress.verify.gate import verify


def sandboxed(env: Any) -> Any:
    """A sandboxed copy of mkdocs' Jinja environment ``env``: the same loader, extensions (gettext), filters,
    tests, globals and policies."""
    from jinja2.sandbox import SandboxedEnvironment

    copy = SandboxedEnvironment(loader=env.loader, auto_reload=False, autoescape=env.autoescape,
                                extensions=[type(extension) for extension in env.extensions.values()])
    copy.filters.update(env.filters)
    copy.tests.update(env.tests)
    copy.globals.update(env.globals)
    copy.policies.update(env.policies)
    if hasattr(env, "newstyle_gettext"):
        copy.newstyle_gettext = env.newstyle_gettext  # type: ignore[attr-defined]
    return copy


def _published_from_inside(files: Files, config: MkDocsConfig) -> None:
    """Every file mkdocs would copy into the site (the pages folder's, every theme folder's) checked by its real
    path: a regular file inside the project, or inside the themes rulepress and mkdocs-material ship.  The folders
    were confined before mkdocs read them (rulepress/load/site_folders.py); this is the last word, at publication,
    so no way of naming a file (a symlink, a folder linked in after the check) publishes one from elsewhere."""
    import os
    import stat

    import material

    project = Path(config.config_file_path).parent.resolve()
    shipped = [Path(material.__file__).resolve().parent, Path(mkdocs.__file__).resolve().parent,
               site_config.theme_folder().resolve()]
    for file in files:
        source = file.abs_src_path
        if source is None or file.generated_by is not None:
            continue
        real = Path(os.path.realpath(source))
        if not (real.is_relative_to(project) or any(real.is_relative_to(folder) for folder in shipped)):
            raise PluginError(f"rulepress: {file.src_uri}: its file is {real}, outside the project: nothing from "
                              "outside it is published")
        try:
            regular = stat.S_ISREG(os.stat(real).st_mode)
        except OSError as exc:
            raise PluginError(f"rulepress: {file.src_uri}: cannot be read ({exc.strerror or exc})") from None
        if not regular:
            raise PluginError(f"rulepress: {file.src_uri}: not a regular file, and only files are published")


_LUNR = "assets/javascripts/lunr/"  # mkdocs-material's search languages, of which the search loads its site's own


def _needed(path: str, languages: list[str]) -> bool:
    """Whether a file the theme brings is one a reader's browser can ask for: not a source map (read by a
    developer's tools only), nor the search's support for a language the site does not search in (what
    mkdocs-material's search worker loads for ``languages``, and only that)."""
    if path.endswith(".map") and path.startswith("assets/"):
        return False
    if not path.startswith(_LUNR):
        return True
    wanted = {f"min/lunr.{lang}.min.js" for lang in languages if lang != "en"}
    wanted |= {"tinyseg.js" for lang in languages if lang == "ja"} | {"wordcut.js" for lang in languages
                                                                       if lang in ("hi", "th")}
    if len(languages) > 1:
        wanted.add("min/lunr.multi.min.js")
    if wanted:
        wanted.add("min/lunr.stemmer.support.min.js")
    return path.removeprefix(_LUNR) in wanted


def _search_languages(config: MkDocsConfig) -> list[str]:
    for name, plugin in config.plugins.items():
        if name in ("search", "material/search"):
            return list(plugin.config.get("lang") or [config.theme["language"]])
    return []


def _material_folder() -> Path:
    import material

    return Path(material.__file__).resolve().parent


class RulepressPlugin(BasePlugin):  # type: ignore[type-arg]
    """The books' pages and diagrams, each book's title, colour and mark, and the language switcher."""

    def __init__(self) -> None:
        super().__init__()
        self.prepared: site.SiteInput | None = None  # what the build verified, handed over before mkdocs runs
        self.extra_nav: list[Any] = []
        self._pages: Any = None  # the site phase's progress bar, from on_files to on_post_build

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        prepared = self.prepared
        if prepared is None:  # a plain `mkdocs build`: nobody verified the books yet
            report = verify(Path(config.config_file_path).parent)
            if not report.ok:
                raise PluginError("rulepress: the books do not agree with their engines:\n  "
                                  + "\n  ".join(report.failures()))
            prepared = site.SiteInput(report)
        self.prepared = prepared
        # The project's own pages (its mkdocs.yml's nav) follow the books'.
        self.extra_nav = list(config.nav or [])
        config.nav = site.nav(prepared.report, prepared.lang) + self.extra_nav
        # rulepress's templates over mkdocs-material's, under the project's own custom_dir if it has one.
        overrides = str(site_config.overrides_folder())
        if overrides not in config.theme.dirs:
            config.theme.dirs.insert(1 if config.theme.custom_dir else 0, overrides)
        return config

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        assert self.prepared is not None
        start = time.perf_counter()
        _published_from_inside(files, config)
        try:
            with account.part("site: pages generated, with their player-text check"):
                generated = site.pages(self.prepared)
        except site.PlayerTextError as exc:
            raise PluginError("rulepress: the player edition shows designer material:\n  "
                              + "\n  ".join(exc.problems)) from None
        theme = site_config.theme_folder()
        # Pyodide goes into the root site when some book lets readers try moves; a language's site uses the root's.
        tries = any(path.endswith("/referee/config.json") for path in generated)
        pyodide = tries and self.prepared.lang is None
        for path in site_config.assets():  # the stylesheet, the scripts and the offline search shim, from the package
            source = theme / path
            existing = files.get_file_from_path(path)
            if path.startswith(f"{in_browser.PYODIDE}/") and not pyodide:
                if existing is not None and existing.abs_src_path and Path(existing.abs_src_path) == source:
                    files.remove(existing)  # the docs folder is the theme's (see below): it collected Pyodide too
                continue
            # Pyodide's interpreter goes gzipped, its lock without packages (in_browser.py).
            lighter = in_browser.site_file(source.name) if path.startswith(f"{in_browser.PYODIDE}/") else None
            theirs = existing is not None and existing.abs_src_path and Path(existing.abs_src_path) == source
            if theirs and lighter is None:
                continue  # a project without pages of its own: the docs folder is the theme's
            if existing is not None and not theirs and existing.inclusion.is_included():
                raise PluginError(f"rulepress: {Path(config.docs_dir).name}/{path}: rulepress ships a file of this "
                                  "name; give yours another name (and list it under extra_css or extra_javascript)")
            if existing is not None:
                files.remove(existing)
            if lighter is not None:
                files.append(File.generated(config, f"{in_browser.PYODIDE}/{lighter[0]}", content=lighter[1]))
            else:
                files.append(File.generated(config, path, abs_src_path=str(source)))
        for path, content in generated.items():
            if in_browser.is_positions(path):  # gzipped: the page unpacks them (in_browser.py)
                files.append(File.generated(config, f"{path}.gz", content=in_browser.gzipped(content.encode())))
            else:
                files.append(File.generated(config, path, content=content))
        languages, theme_files = _search_languages(config), _material_folder()
        for file in [file for file in files if file.abs_src_path and not _needed(file.src_uri, languages)
                     and Path(file.abs_src_path).resolve().is_relative_to(theme_files)]:
            files.remove(file)
        for check in site.site_checks(self.prepared.report, self.prepared.lang):  # the referee's bundle (a zip)
            if f"{stepper.referee_folder(check.book.id)}/config.json" in generated:
                files.append(File.generated(config, f"{stepper.referee_folder(check.book.id)}/bundle.zip",
                                            content=in_browser.bundle(check.engine, check.book)))
        site.TIMING["pages"] = site.TIMING.get("pages", 0.0) + time.perf_counter() - start
        lang = self.prepared.lang
        self._pages = progress.bar(len(files.documentation_pages()), f"site ({lang})" if lang else "site", unit="page",
                                   line=1)
        return files

    @event_priority(100)  # before anything else uses the environment (incremental.py's template cache)
    def on_env(self, env: Any, config: MkDocsConfig, files: Files) -> Any:
        """The project's own theme templates (its ``custom_dir``) are content like the rest: mkdocs renders them in
        a plain Jinja environment, where ``{{ cycler.__init__.__globals__.os }}`` reaches any Python; with one, the
        site's templates run in Jinja's sandbox instead (no attribute that starts with ``_``, no unsafe call)."""
        if not config.theme.custom_dir:
            return env
        return sandboxed(env)

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """The page's text in its language's typography (French spacing and quotation marks; text nodes only)."""
        if self._pages is not None:
            self._pages.update(1)  # the site phase's progress: a page a step, on a terminal only (rulepress.progress)
        with account.part("site: typography"):
            return typeset_html(html, config.theme["language"])

    def on_page_context(self, context: dict[str, Any], page: Page, config: MkDocsConfig,
                        nav: Any) -> dict[str, Any]:
        """A book's pages carry its title, colour and mark, and a language switcher that leads to the same page in
        the other languages (both used by the theme's overrides, rulepress/render/theme/overrides)."""
        assert self.prepared is not None
        book = site.book_of(page.file.src_uri, self.prepared.report, self.prepared.lang)
        context["rp_book"] = site.book_style(book) if book else None
        context["rp_alternate"] = site.alternates(self.prepared.report, self.prepared.lang, page.file.src_uri)
        return context

    def on_post_build(self, config: MkDocsConfig) -> None:
        assert self.prepared is not None
        if self._pages is not None:
            self._pages.close()
            self._pages = None
        prepared = self.prepared
        site_dir = Path(config.site_dir)
        books = {check.book.id: check.book.title for check in site.site_checks(prepared.report, prepared.lang)}
        site_fixes.name_books(site_dir, books)
        # pdf/ and the language sites come after mkdocs has built this one.
        later = {"pdf"} if prepared.lang is not None else {"pdf", *site.site_languages(prepared.report)}
        # Not hidden folders: mkdocs writes none, the build renders its PDFs into one meanwhile (.pdf/, then pdf/).
        folders = {path.name for path in site_dir.iterdir() if path.is_dir() and not path.name.startswith(".")}
        site_fixes.relative_404(site_dir, sorted(folders | later))


def plugin_of(config: MkDocsConfig) -> RulepressPlugin:
    """The ``rulepress`` plugin instance of a loaded configuration (mkdocs makes it while it loads the
    configuration; the packaged defaults name it and a project may not disable it, rulepress/render/site_config.py).
    The build sets its ``prepared`` before mkdocs runs."""
    for plugin in config.plugins.values():
        if isinstance(plugin, RulepressPlugin):
            return plugin
    raise PluginError("rulepress: the configuration names no rulepress plugin")
