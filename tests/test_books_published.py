"""The bundled books, built for real once: the site pages and the print-ready PDFs of every book."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pypdf import PdfReader

from rulepress.load.book import book_ids

from .conftest import ROOT
from .pdfpages import page_texts
from .test_build import assert_fonts_embedded_and_shipped

BOOKS = book_ids(ROOT)
MM = 72 / 25.4
TRIMS = {"A4": (210, 297), "A5": (148, 210), "A6": (105, 148)}


pytestmark = pytest.mark.xdist_group("real-build")


@pytest.fixture(scope="module")
def site(real_site: Path) -> Path:
    return real_site


@pytest.mark.parametrize("book", BOOKS)
def test_site_pages(site: Path, book: str) -> None:
    assert (site / "index.html").is_file()
    assert book in (site / "index.html").read_text()
    for page in ("index.html", "glossary.html", "examples/index.html", "designer/questions.html",
                 "designer/changelog.html", "designer/coverage.html"):
        assert (site / book / page).is_file(), page
    assert list((site / book / "diagrams").glob("*.svg")), "no diagrams"
    search = (site / "search" / "search_index.js").read_text()
    assert book in search


@pytest.mark.parametrize("book", BOOKS)
@pytest.mark.parametrize("edition", ["", "-designer"])
def test_pdf_print_ready(site: Path, book: str, edition: str) -> None:
    import yaml

    data = yaml.safe_load((ROOT / "rules_src" / book / "book.yaml").read_text())
    trim = data.get("trim", "A5")
    width, height = TRIMS[trim] if isinstance(trim, str) else (float(str(trim["width"]).rstrip("m")),
                                                              float(str(trim["height"]).rstrip("m")))
    reader = PdfReader(site / "pdf" / f"{book}{edition}.pdf")
    assert len(reader.pages) % 4 == 0
    for page in reader.pages:
        assert float(page.trimbox.width) == pytest.approx(width * MM, abs=0.1)
        assert float(page.trimbox.height) == pytest.approx(height * MM, abs=0.1)
        assert float(page.bleedbox.width) == pytest.approx((width + 6) * MM, abs=0.1)
        assert float(page.bleedbox.height) == pytest.approx((height + 6) * MM, abs=0.1)
    assert_fonts_embedded_and_shipped(reader)
    texts = page_texts(site / "pdf" / f"{book}{edition}.pdf")
    contents = texts[1]
    assert "Contents" in contents and any(ch.isdigit() for ch in contents)
    text = "".join(texts)
    assert ("Designer questions" in text) == (edition == "-designer")


def test_the_full_build_leaves_no_temporary_files(site: Path) -> None:
    """The build ran with its own temporary folder (conftest): WeasyPrint's copies of the book fonts (2.8 MB a PDF,
    left behind by PDF workers that exit without garbage collection) and everything else are gone."""
    temporary = site.parent / "tmp"
    assert temporary.is_dir()
    # Only fontconfig's cache of the shipped fonts stays, on purpose: one folder, reused by every later build.
    assert sorted(path.name for path in temporary.iterdir()) in ([], [f"rulepress-fontconfig-{os.getuid()}"])
    staging = site.parent / "project" / ".rulepress-cache" / "staging"
    assert not staging.exists() or sorted(path.name for path in staging.iterdir()) == []


def test_last_lanterns_screen_colours_are_fogra39s(site: Path) -> None:
    """Last Lantern names FOGRA39 (book.yaml ``output_intent``): its accent ink (15 35 100 0) is FOGRA39's
    #dfa803 on its site (diagrams, step-through, the referee's table) and in its digital editions, never the
    #dba628 SWOP would give; Lantern, on the default SWOP, shows SWOP's."""
    import json

    from rulepress.cmyk import device_cmyk
    from rulepress.load.profile import shipped
    from rulepress.proof import Proof
    from rulepress.render.stepper import referee_folder

    from .test_screen_colours import pdf_colours

    accent = (15, 35, 100, 0)
    fogra39, swop = Proof.of(shipped("fogra39")).rgb(accent), Proof.of(shipped("swop")).rgb(accent)
    assert (fogra39, swop) == ("#dfa803", "#dba628")
    for folder in (site / "last-lantern", site / "fr" / "last-lantern"):
        drawn = "".join(path.read_text() for path in sorted(folder.glob("*/*.svg")))
        assert fogra39 in drawn and swop not in drawn
        config = json.loads((folder.parent / referee_folder("last-lantern") / "config.json").read_text())
        assert config["colours"][device_cmyk(accent)] == fogra39
    for name in ("last-lantern-digital.pdf", "last-lantern-fr-digital.pdf"):
        written = {colour for _, colour in pdf_colours(site / "pdf" / name)}
        assert fogra39 in written and swop not in written, name
    lantern = Proof.of(shipped("swop"))
    drawn = "".join(path.read_text() for path in sorted((site / "lantern").glob("*/*.svg")))
    assert "device-cmyk" not in drawn and lantern.rgb((0, 0, 0, 100)) in drawn


def test_the_designer_pages_rank_below_the_rules_in_search(site: Path) -> None:
    """The search index carries the designer's pages with a low boost (mkdocs-material's ``search.boost``, from
    their front matter), every rules and examples page without one, in every language's site."""
    import json

    for index in [site / "search" / "search_index.json", *sorted(site.glob("*/search/search_index.json"))]:
        docs = json.loads(index.read_text(encoding="utf-8"))["docs"]
        designer = {doc["location"].split("#")[0] for doc in docs if "/designer/" in doc["location"]}
        assert designer, index
        assert all(doc.get("boost") == 0.1 for doc in docs if "/designer/" in doc["location"]), index
        assert not [doc["location"] for doc in docs if ("/rules/" in doc["location"] or "/examples/" in
                                                        doc["location"]) and "boost" in doc], index
