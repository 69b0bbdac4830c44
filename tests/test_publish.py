"""Publishing swaps a finished folder in whole; the old build is gone only after the new one is in place."""

from __future__ import annotations

from pathlib import Path

from rulepress.publish.swap import publish


def test_publish_replaces_existing(tmp_path: Path) -> None:
    site, staging = tmp_path / "site", tmp_path / "staging"
    site.mkdir()
    (site / "old.html").write_text("old")
    staging.mkdir()
    (staging / "new.html").write_text("new")
    publish(staging, site)
    assert [p.name for p in site.iterdir()] == ["new.html"]
    assert not staging.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_publish_first_time(tmp_path: Path) -> None:
    staging = tmp_path / "staging"
    staging.mkdir()
    (staging / "index.html").write_text("hi")
    publish(staging, tmp_path / "site")
    assert (tmp_path / "site" / "index.html").read_text() == "hi"
