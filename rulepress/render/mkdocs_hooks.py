"""mkdocs event hooks: the site's pages come from the verified books, rendered by mkdocs-material.

Run by ``rulepress build`` (which verifies first and hands over its report) or by a plain
``mkdocs build``/``mkdocs serve``, which verifies here and refuses to build when the books disagree.
"""

from __future__ import annotations

import time
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from rulepress.render import site
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
    config.nav = site.nav(prepared.report)
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    assert _prepared is not None
    start = time.perf_counter()
    for path, content in site.pages(_prepared).items():
        files.append(File.generated(config, path, content=content))
    site.TIMING["pages"] = site.TIMING.get("pages", 0.0) + time.perf_counter() - start
    return files
