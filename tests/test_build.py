"""The gate and the build: a disagreement publishes nothing, and what is published is print-ready."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from rulepress.cli import main
from rulepress.errors import BuildRefused
from rulepress.publish.build import build
from rulepress.render import pdf


def tree_digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_build_publishes_site_and_pdfs(mini: Path) -> None:
    build(mini)
    site = mini / "site"
    for page in ("index.html", "mini/rules/mini.play.html", "mini/examples/mini-last-stone.html",
                 "mini/glossary.html", "mini/designer/questions.html", "mini/designer/coverage.html",
                 "mini/diagrams/mini-last-stone--end.svg", "pdf/mini.pdf", "pdf/mini-designer.pdf",
                 "search/search_index.js"):
        assert (site / page).is_file(), page
    rules = (site / "mini/rules/mini.play.html").read_text()
    assert 'id="mini.play.take"' in rules and "1.1 Taking stones" in rules
    # cross-reference rendered by number and title (print hides the title and adds the page)
    assert 'rule 1.1<span class="ref-title"> (Taking stones)</span>' in rules
    example = (site / "mini/examples/mini-last-stone.html").read_text()
    assert "Verified" in example and "../diagrams/mini-last-stone--end.svg" in example
    assert "Ben takes the last 2 and Ben wins." in example  # prose filled from the replay


def test_site_works_offline(mini: Path) -> None:
    build(mini)
    for page in (mini / "site").rglob("*.html"):
        text = page.read_text()
        external = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(https?:)?//[^"]+"', text)
        assert not external, f"{page}: loads {external}"
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text


def test_wrong_expectation_refuses_and_keeps_last_good_site(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(mini)
    before = tree_digest(mini / "site")
    example = mini / "examples/mini/mini-last-stone.yaml"
    example.write_text(example.read_text().replace("expect: {pile: 0, winner: Ben}", "expect: {pile: 1, winner: Ben}"))
    assert main(["--root", str(mini), "build"]) == 1
    err = capsys.readouterr().err
    assert "mini-last-stone" in err and "pile expected 1, got 0" in err
    assert tree_digest(mini / "site") == before
    assert not [p for p in mini.iterdir() if "staging" in p.name]


def test_rendering_failure_keeps_last_good_site(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(mini)
    before = tree_digest(mini / "site")

    def broken(*args: object) -> int:
        raise ValueError("template exploded")

    monkeypatch.setattr(pdf, "write_pdf", broken)
    with pytest.raises(BuildRefused) as refused:
        build(mini)
    assert "template exploded" in refused.value.problems[0]
    assert tree_digest(mini / "site") == before


def test_pdf_is_print_ready(mini: Path) -> None:
    build(mini)
    reader = PdfReader(mini / "site/pdf/mini.pdf")
    assert len(reader.pages) % 4 == 0
    mm = 72 / 25.4
    for page in reader.pages:
        trim, bleed = page.trimbox, page.bleedbox
        assert float(trim.width) == pytest.approx(105 * mm, abs=0.1)  # A6, from book.yaml
        assert float(trim.height) == pytest.approx(148 * mm, abs=0.1)
        assert float(bleed.width) == pytest.approx((105 + 6) * mm, abs=0.1)
        assert float(bleed.left) == pytest.approx(float(trim.left) - 3 * mm, abs=0.1)
    assert_fonts_embedded_and_shipped(reader)
    text = "".join(page.extract_text() for page in reader.pages)
    assert "Contents" in text and "Glossary" in text
    assert "Designer questions" not in text  # the player edition leaves the designer pages out
    designer = "".join(p.extract_text() for p in PdfReader(mini / "site/pdf/mini-designer.pdf").pages)
    assert "Designer questions" in designer and "mini.q1" in designer


def assert_fonts_embedded_and_shipped(reader: PdfReader) -> None:
    fonts = set()
    for page in reader.pages:
        resources = page.get("/Resources")
        for font in (resources.get("/Font") or {}).values() if resources else []:
            font = font.get_object()
            descriptor = font.get("/FontDescriptor")
            if descriptor is None:
                descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
            descriptor = descriptor.get_object()
            assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")), font["/BaseFont"]
            fonts.add(str(font["/BaseFont"]).split("+", 1)[-1])
    assert fonts, "no fonts at all"
    # Only the families declared from rulepress/fonts/ can appear: fontconfig sees no other font.
    assert all(name.startswith("Rulepress-") for name in fonts), fonts


def test_pdf_workers_leave_no_temporary_files(mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """WeasyPrint copies the book fonts into a temporary folder it removes only on garbage collection, which a PDF
    worker process never reaches: 2.8 MB were left in /tmp per PDF until the build gave it a folder of its own."""
    import tempfile

    monkeypatch.setenv("RULEPRESS_JOBS", "2")  # worker processes, where the leak was
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    build(mini)
    assert (mini / "site" / "pdf" / "mini.pdf").is_file()
    assert sorted(path.name for path in scratch.iterdir()) == []
    assert sorted(path.name for path in (mini / ".rulepress-cache" / "staging").iterdir()) == []


def test_lint_warnings_are_one_line_with_a_count_by_kind(mini: Path) -> None:
    """A newcomer's build says how many lint warnings of each kind and the command that lists them, not a wall."""
    chapter = mini / "rules_src/mini/chapters/play.md"
    chapter.write_text(chapter.read_text() + "\nA stone may go on a space next to another space. Place the "
                       "Moon Token on any space next to it.\n")
    lines = build(mini)
    lint_lines = [line for line in lines if line.startswith("warning:")]
    assert lint_lines == ["warning: lint: 2 warning(s) no designer question tracks (term-undefined 1, "
                          "word-undefined 1); `rulepress lint` lists them"]
    assert not any("Moon Token" in line for line in lines)  # the findings themselves: `rulepress lint`
