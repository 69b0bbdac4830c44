"""The guides shipped with rulepress (package data), printed by ``rulepress guide NAME``.

Each guide has this one source; the repository's ``docs/`` points here, so a designer who installed rulepress
reads what a contributor reads."""

from __future__ import annotations

from importlib import resources

GUIDES = {
    "engine": "writing a game engine",
    "formats": "the book's source files",
    "analysis": "simulated play and lint",
    "translations": "translated editions",
}


def guide_text(name: str) -> str:
    """The guide ``name`` (one of :data:`GUIDES`) as Markdown."""
    if name not in GUIDES:
        raise KeyError(f"no guide '{name}' (guides: {', '.join(GUIDES)})")
    return (resources.files(__package__) / f"{name}.md").read_text(encoding="utf-8")
