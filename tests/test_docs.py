"""The README and docs/ hold together: every relative link (and its #anchor) resolves, every page keeps to the
project's line limit, and docs/SESSIONS.md names every nox session of noxfile.py, as it says it does."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from .conftest import ROOT

# The guides are the installed tool's own pages (`rulepress guide NAME`): held to the same line limit and links.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "rulepress" / "guides").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def links(page: Path) -> list[str]:
    """The relative targets a page links to (outside code blocks and inline code)."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for a Markdown page's headings: lower case, punctuation dropped, spaces as hyphens."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """The relative links of ``page`` whose file is missing or outside ``root``, or whose #anchor is no heading."""
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page.resolve()
        if not where.exists() or root.resolve() not in (where, *where.parents):
            broken.append(target)
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    assert not broken_links(page), f"{page.relative_to(ROOT)}: broken links {broken_links(page)}"


def test_the_link_check_finds_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text("# The site's configuration\n")
    (tmp_path / "outside.md").write_text("# Out\n")
    page = tmp_path / "docs" / "page.md"
    page.write_text("# Top\n\nSee [a](missing.md), [b](page.md#top), [c](other.md#the-sites-configuration),\n"
                    "[d](other.md#nowhere), [e](#top), [f](#gone), [g](../outside.md), `[h](code.md)`,\n"
                    "[i](https://example.org).\n\n```\n[j](fenced.md)\n```\n")
    assert links(page) == ["missing.md", "page.md#top", "other.md#the-sites-configuration", "other.md#nowhere",
                           "#top", "#gone", "../outside.md"]
    assert broken_links(page, tmp_path) == ["missing.md", "other.md#nowhere", "#gone"]
    assert broken_links(page, tmp_path / "docs") == ["missing.md", "other.md#nowhere", "#gone", "../outside.md"]


LINE_LIMIT = 120  # the project's own (pyproject.toml's ruff line-length), for prose as for code


def long_lines(page: Path) -> list[int]:
    """The numbers of ``page``'s lines over :data:`LINE_LIMIT` characters (tables and code blocks too: a table too
    wide for the limit reads better as a list)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    return [number for number, line in enumerate(lines, 1) if len(line) > LINE_LIMIT]


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_page_keeps_to_the_line_limit(page: Path) -> None:
    assert not long_lines(page), f"{page.relative_to(ROOT)}: lines over {LINE_LIMIT} characters: {long_lines(page)}"


def test_the_line_limit_counts_characters_not_bytes(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("─" * LINE_LIMIT + "\n| " + "x" * LINE_LIMIT + " |\n", encoding="utf-8")
    assert long_lines(page) == [2]


def test_sessions_page_names_every_nox_session() -> None:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    sessions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)
                and any("session" in ast.unparse(decorator) for decorator in node.decorator_list)}
    named = set(re.findall(r"`nox -s ([a-z]+)", (ROOT / "docs" / "SESSIONS.md").read_text(encoding="utf-8")))
    assert sessions and sessions <= named, f"docs/SESSIONS.md does not name {sorted(sessions - named)}"
    assert named <= sessions, f"docs/SESSIONS.md names sessions noxfile.py lacks: {sorted(named - sessions)}"
