"""The folders a project's site is built from, confined like every other source.

mkdocs copies its ``docs_dir`` into the site and reads a theme's ``custom_dir`` (both named by ``mkdocs.yml``;
here ``site_src/`` and ``site_src/overrides/``), and a Markdown extension that includes files reads its
``base_path`` folders (rulepress/load/mkdocs_yml.py); each follows every symlink in them: a link
``site_src/assets/leak.txt -> /etc/passwd`` would be published as a page of the site.  Before anything reads
them (mkdocs, the content-hash cache, the preview), each goes through :func:`rulepress.load.confine.tree_problems`:
no symlink out of the project, regular files only, bounded sizes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from rulepress.errors import SourceError
from rulepress.load import confine, mkdocs_yml

CONFIG = mkdocs_yml.CONFIG
PAGES = mkdocs_yml.PAGES  # a project's own pages and assets, when its mkdocs.yml (or none) names no docs_dir


class _Config(yaml.SafeLoader):
    """mkdocs.yml as plain data: its tags (``!ENV``, ``!relative``, ``!!python/name:``) are read as nothing, never
    run; only the folder names matter here."""


_Config.add_multi_constructor("", lambda loader, suffix, node: None)
_Config.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def folders(root: Path) -> list[Path]:
    """The folders ``mkdocs.yml`` (at ``root``) has mkdocs read: its ``docs_dir`` and its theme's ``custom_dir``."""
    config = root / CONFIG
    data: Any = {}
    if confine.exists(config):  # without one, the packaged defaults (rulepress/render/site_config.py) apply
        text = confine.read_text(root, config, CONFIG)
        try:
            data = yaml.load(text, Loader=_Config)  # noqa: S506 - a SafeLoader that constructs no tags
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise SourceError(CONFIG, mark.line + 1 if mark else None,
                              f"malformed YAML: {getattr(exc, 'problem', None) or exc}") from None
    data = data if isinstance(data, dict) else {}
    named = [data.get("docs_dir") or PAGES]
    theme = data.get("theme")
    if isinstance(theme, dict) and theme.get("custom_dir"):
        named.append(theme["custom_dir"])
    found = [root / str(name) for name in named if isinstance(name, str | Path)]
    for _, folder in mkdocs_yml.include_folders(root, data):  # those inside the project (mkdocs_yml refuses others)
        try:
            inside = confine.confined(root, folder) != root.resolve()
        except confine.PathRefused:
            inside = False
        if inside and folder not in found:
            found.append(folder)
    return found


def problems(root: Path) -> list[SourceError]:
    """Every reason the site's folders must not be read, one located problem each (empty when they may)."""
    found: list[SourceError] = []
    for folder in folders(root):
        found += [problem for problem in confine.tree_problems(root, folder) if problem not in found]
    return found


def site_problems(root: Path) -> list[SourceError]:
    """Every reason the project's site sources must not be used: its ``mkdocs.yml`` (rulepress/load/mkdocs_yml.py),
    the folders it has mkdocs read (:func:`problems`) and the pages, templates and stylesheets in them
    (rulepress/load/site_content.py); empty when the site may be built from them."""
    from rulepress.load import site_content

    found = mkdocs_yml.problems(root)
    try:
        found += [problem for problem in problems(root) if problem not in found]
    except SourceError as exc:  # mkdocs.yml itself cannot be read (said above)
        if exc not in found:
            found.append(exc)
    return found + [problem for problem in site_content.problems(root) if problem not in found]
