"""mkdocs event hooks: the site's pages come from the verified books, rendered by mkdocs-material.

Run by ``rulepress build`` (which verifies first and hands over its report) or by a plain
``mkdocs build``/``mkdocs serve``, which verifies here and refuses to build when the books disagree.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from rulepress import account
from rulepress.render import site, site_fixes
from rulepress.render.typography import typeset_html
from rulepress.verify.gate import verify

_prepared: site.SiteInput | None = None


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _prepared
    prepared = site.PREPARED
    if prepared is None:
        report = verify(Path(config.config_file_path).parent)
        if not report.ok:
            raise PluginError("rulepress: the books do not agree with their engines:\n  "
                              + "\n  ".join(report.failures()))
        prepared = site.SiteInput(report)
    _prepared = prepared
    config.nav = site.nav(prepared.report, prepared.lang)
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    assert _prepared is not None
    start = time.perf_counter()
    try:
        with account.part("site: pages generated, with their player-text check"):
            generated = site.pages(_prepared)
    except site.PlayerTextError as exc:
        raise PluginError("rulepress: the player edition shows designer material:\n  "
                          + "\n  ".join(exc.problems)) from None
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    site.TIMING["pages"] = site.TIMING.get("pages", 0.0) + time.perf_counter() - start
    return files


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """The page's text in its language's typography (French spacing and quotation marks; text nodes only)."""
    with account.part("site: typography"):
        return typeset_html(html, config.theme["language"])


def on_page_context(context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Any) -> dict[str, Any]:
    """A book's pages carry its title, colour and mark, and a language switcher that leads to the same page in
    the other languages (both used by site_src/overrides)."""
    assert _prepared is not None
    book = site.book_of(page.file.src_uri, _prepared.report, _prepared.lang)
    context["rp_book"] = site.book_style(book) if book else None
    context["rp_alternate"] = site.alternates(_prepared.report, _prepared.lang, page.file.src_uri)
    return context


def on_post_build(config: MkDocsConfig) -> None:
    assert _prepared is not None
    site_dir = Path(config.site_dir)
    books = {check.book.id: check.book.title for check in site.site_checks(_prepared.report, _prepared.lang)}
    site_fixes.name_books(site_dir, books)
    # pdf/ and the language sites come after mkdocs has built this one.
    later = {"pdf"} if _prepared.lang is not None else {"pdf", *site.site_languages(_prepared.report)}
    # Not hidden folders: mkdocs writes none, the build renders its PDFs into one meanwhile (.pdf/, then pdf/).
    folders = {path.name for path in site_dir.iterdir() if path.is_dir() and not path.name.startswith(".")} | later
    site_fixes.relative_404(site_dir, sorted(folders))
