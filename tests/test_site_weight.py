"""The site's weight (issue 31): the whole built site of the bundled books, PDFs excluded, at most 30 MiB.

Read from the suite's one full build (tests/conftest.py, real_site).  What weighs most is said by kind when the budget
is passed: the pages, Pyodide (gzipped, rulepress/render/in_browser.py), the referee's bundles and positions, the
frames (packed in their pages, rulepress/render/stepper.py).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("real-build")

BUDGET = 30 * 2**20  # bytes, the PDFs excluded


def weights(site: Path) -> Counter[str]:
    """Bytes of every published file but the PDFs, by kind (the first folder that says it, else the suffix)."""
    found: Counter[str] = Counter()
    for path in site.rglob("*"):
        if not path.is_file():
            continue
        parts = path.relative_to(site).parts
        if parts[0] == "pdf":
            continue
        kind = next((part for part in ("pyodide", "referee", "frames") if part in parts), path.suffix or "other")
        found[kind] += path.stat().st_size
    return found


def test_the_site_without_its_pdfs_weighs_at_most_30_mib(real_site: Path) -> None:
    found = weights(real_site)
    total = sum(found.values())
    said = ", ".join(f"{kind} {size / 2**20:.1f} MiB" for kind, size in found.most_common(6))
    assert total <= BUDGET, f"the site weighs {total / 2**20:.1f} MiB without its PDFs ({said})"
    assert "frames" not in found  # the frames travel packed in their pages


def test_the_weight_counts_every_file_but_the_pdfs(tmp_path: Path) -> None:
    (tmp_path / "pdf").mkdir()
    (tmp_path / "pdf" / "book.pdf").write_bytes(b"x" * 100)
    (tmp_path / "assets" / "vendor" / "pyodide").mkdir(parents=True)
    (tmp_path / "assets" / "vendor" / "pyodide" / "pyodide.asm.wasm.gz").write_bytes(b"x" * 7)
    (tmp_path / "index.html").write_bytes(b"x" * 3)
    assert weights(tmp_path) == Counter({"pyodide": 7, ".html": 3})


def test_each_language_carries_only_its_own_search_support(real_site: Path) -> None:
    """mkdocs-material brings lunr's support for some thirty languages and a word splitter for Thai; a site loads
    only its own language's (English is lunr's own)."""
    lunr = "assets/javascripts/lunr"
    assert not list((real_site / lunr).rglob("*.js"))
    assert sorted(p.name for p in (real_site / "fr" / lunr).rglob("*.js")) == ["lunr.fr.min.js",
                                                                               "lunr.stemmer.support.min.js"]
    assert not list(real_site.rglob("*.map"))
