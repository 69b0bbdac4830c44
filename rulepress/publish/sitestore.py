"""The site kept in the store: its key, the few kept last, and a build that starts from them.

A site is kept whole (a folder, with the store's manifest of every file's digest) under what it is made from
(:func:`site_key`): each book's sources, examples and engine (its pages are made from them), the saved impacts,
the merged site configuration, every file of the folders it names (``docs_dir``, ``theme.custom_dir``, a Markdown
extension's include folders) and the build date mkdocs stamps into ``sitemap.xml``.  A site
whose inputs changed starts from the one kept last: only the pages whose Markdown changed are rendered again
(rulepress/publish/incremental.py), the same bytes as a full build.  Files a build did not write again are hard
links between kept sites (never to a published one).  A kept site is copied out file by file, each checked
against the manifest: one damaged file and the kept site is discarded, and the site made again.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rulepress import account
from rulepress.publish.incremental import Renderer
from rulepress.store import (
    Store,
    code_digest,
    declare,
    key_of,
    prune,
    prune_now,
    sources_digest,
    tree_digest,
    watched_digest,
)

if TYPE_CHECKING:
    from rulepress.verify.gate import Report

SITES = declare("site", keep=3)  # each is a whole copy of the site


class Replayed:
    """What a kept site's mkdocs run warned about, answering as the build's log collector does."""

    def __init__(self, warnings: list[str]) -> None:
        self.warnings = warnings

    def fatal(self, tool: str) -> list[str]:
        return []  # a site with a fatal warning was refused, never kept

    def harmless(self) -> list[str]:
        return list(self.warnings)


def site_key(root: Path, report: Report, impacts: Mapping[str, Any]) -> str:
    """The site's inputs: each book's sources, examples and engine, the impacts, the theme and mkdocs' date.

    The pages are a function of these (a replay, of its example, engine and components), so hashing them is
    enough, and much cheaper than generating every page to hash it.
    """
    from mkdocs.utils import get_build_date

    parts: list[str | bytes] = [theme_digest(root), get_build_date(), json.dumps(impacts, sort_keys=True, default=repr)]
    for check in report.books:
        book = check.book
        parts += [book.id, tree_digest(root / "rules_src" / book.id), tree_digest(root / "examples" / book.id),
                  watched_digest(book.root / "engine" / book.engine_package), " ".join(r.status for r in check.results)]
    return key_of(*parts)


def theme_digest(root: Path) -> str:
    """What every page shows besides its own Markdown: rulepress (its theme and plugin), the project's merged site
    configuration (mkdocs.yml over the packaged defaults), and every file of the folders it has mkdocs read: its
    pages folder (``docs_dir``, else ``site_src/``), its theme's ``custom_dir`` and the folders a Markdown extension
    includes files from, names and bytes (rulepress/load/site_folders.py)."""
    from rulepress.load import site_folders
    from rulepress.render.site_config import site_config

    parts: list[str | bytes] = [code_digest(), json.dumps(site_config(root), sort_keys=True, default=str)]
    for folder in site_folders.folders(root):
        parts += [str(folder.relative_to(root)) if folder.is_relative_to(root) else str(folder), sources_digest(folder)]
    return key_of(*parts)


def _state(data: bytes) -> dict[str, Any]:
    state = json.loads(data.decode("utf-8"))
    if not isinstance(state, dict):
        raise TypeError("not a site's state")
    return state


def _warnings(data: bytes) -> list[str]:
    warnings = json.loads(data)["warnings"]
    if not isinstance(warnings, list) or not all(isinstance(line, str) for line in warnings):
        raise TypeError("not a site's warnings")
    return warnings


def latest_site(store: Store) -> tuple[str, dict[str, Any]] | tuple[None, None]:
    """The key of the kept site used last and the state its build left (see rulepress/publish/incremental.py)."""
    if not store.enabled:
        return None, None
    for key in store.recent(SITES, ".json"):
        state = store.load(SITES, key, _state, ".state")
        if state is not None and store.path(SITES, key).is_dir():
            return key, state
    return None, None


def cached_site(root: Path, report: Report, impacts: dict[str, Any], staging: Path,
                render: Callable[..., Any], store: Store | None = None) -> Any:
    """``render(root, report, impacts, staging)`` (the build's mkdocs run), or a copy of the site the same inputs
    gave last time.  Returns what was warned about, as ``render`` does.

    When the inputs changed, the site kept last is the start: only the pages whose Markdown changed are rendered
    again (:mod:`rulepress.publish.incremental`, as the preview does; the same bytes as a full build), unless a
    navigation or the theme changed.  Every kept file is checked as it is copied out.
    """
    from rulepress.render import site as site_pages

    store = store or Store(root)
    key = site_key(root, report, impacts)
    warnings = store.load(SITES, key, _warnings, ".json")
    if warnings is not None and store.copy_folder(SITES, key, staging):
        site_pages.TIMING.clear()
        return Replayed(warnings)
    previous, state = latest_site(store)
    renderer = Renderer(state)

    def start_from(target: Path) -> bool:  # the previous kept site, each file checked, or False
        return previous is not None and store.copy_folder(SITES, previous, target)

    logged = renderer.render(root, report, impacts, store.path(SITES, previous) if previous else None, staging,
                             render=render, fingerprint=theme_digest(root), copy=start_from)
    if store.enabled and not logged.fatal("mkdocs"):
        with account.part("cache: the site kept, old entries pruned"):
            cache_site(store, key, staging, logged.harmless(), renderer.state, previous)
            prune_now(store)
    return logged


def cache_site(store: Store, key: str, staging: Path, warnings: list[str], state: dict[str, Any] | None = None,
              previous: str | None = None) -> None:
    """Keep the rendered site (then the few newest are kept: each is a whole site), with the ``state`` the next
    build's incremental rendering starts from.  A file the build did not write again is a hard link to the one
    in ``previous`` (the key of the kept site it started from); not the PDFs the build renders meanwhile."""
    if not store.put_folder(SITES, key, staging, ignore=shutil.ignore_patterns(".pdf"), previous=previous):
        return
    if state:
        store.put(SITES, key, json.dumps(state, ensure_ascii=False).encode(), ".state")
    store.put(SITES, key, json.dumps({"warnings": warnings}).encode(), ".json")  # last: marks it whole
    prune(store, SITES)
