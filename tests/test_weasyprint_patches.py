"""rulepress's changes to WeasyPrint, in one module (rulepress/render/weasyprint_patches.py), for the one version
constraints.txt pins: each replaced or private name is there, they apply on that version only, and on any other
the PDFs are made without them, the preflight still checking their page numbers."""

from __future__ import annotations

import importlib
import re
import time
import uuid
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from rulepress.publish import pagechecks
from rulepress.publish.preflight import preflight_pdf
from rulepress.render import pdf, weasyprint_patches
from rulepress.verify.gate import verify

from .conftest import ROOT

weasyprint = pdf.weasyprint  # imported there, after fontconfig is pointed at the shipped fonts


def test_the_patches_are_read_against_the_pinned_weasyprint() -> None:
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", (ROOT / "constraints.txt").read_text(), re.MULTILINE))
    assert pins["weasyprint"] == weasyprint_patches.READ_AGAINST == weasyprint.__version__
    assert weasyprint_patches.installed() == weasyprint_patches.READ_AGAINST and weasyprint_patches.in_force()


def _resolve(name: str, page: Any) -> Any:
    """The object a dotted name of INTERNALS names (an attribute a laid-out page or page box has, on them)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            if part == "_page_box":
                found = page
            elif part == "page_type":
                found = page._page_box
            found = getattr(found, part)
        return found
    raise AssertionError(name)


def test_every_name_listed_is_there_and_every_patch_names_its_report() -> None:
    page = weasyprint.HTML(string="<p>x</p>").render().pages[0]
    for internal in weasyprint_patches.INTERNALS:
        assert _resolve(internal.name, page) is not None, internal.name
        for part in internal.by.split(", "):
            function = getattr(weasyprint_patches, part)
            assert "Upstream report, ready to file:" in (function.__doc__ or "") or part in ("page_again",
                                                                                            "page_type"), part
    for function in (weasyprint_patches.svg_worked_out_once, weasyprint_patches.references_twice,
                     weasyprint_patches.in_screen_colours, weasyprint_patches.move_sideways,
                     weasyprint_patches.document_id):
        report = (function.__doc__ or "").split("Upstream report, ready to file:")[1]
        for part in ("Title:", "What WeasyPrint does:", "Reproduction::", "Suggested fix:"):
            assert part in report, (function.__name__, part)
        assert "Why it is" in report, function.__name__


def _replaced() -> tuple[Any, ...]:
    import weasyprint.svg as svg
    import weasyprint.text.line_break as line_break
    from weasyprint.css.targets import TargetCollector
    from weasyprint.pdf import metadata
    from weasyprint.pdf.stream import Stream

    return (svg.color, svg.size, line_break.split_first_line, TargetCollector.collect_missing_counters,
            TargetCollector.cache_target_page_counters, Stream.set_color, metadata.uuid4)


def test_on_the_pinned_version_the_speed_ups_are_in_force() -> None:
    before = _replaced()
    with weasyprint_patches.speed_ups() as patched:
        assert patched
        during = _replaced()
    assert [a is b for a, b in zip(before, during, strict=True)] == [False] * 5 + [True] * 2
    assert _replaced() == before  # and put back


@pytest.fixture
def another_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(weasyprint_patches, "installed", lambda: "71.0")
    monkeypatch.setattr(weasyprint_patches, "_WARNED", set())


def test_another_version_warns_once_and_patches_nothing(another_version: None, capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    before = _replaced()
    assert not weasyprint_patches.in_force() and not weasyprint_patches.in_force()
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and said.startswith("rulepress: warning: WeasyPrint 71.0 is installed") \
        and "read against 70.0 (constraints.txt pins it)" in said
    with weasyprint_patches.speed_ups() as patched, weasyprint_patches.document_id("mini", 0):
        assert not patched and _replaced() == before


def test_another_version_makes_the_editions_the_plain_way(another_version: None, mini: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the patches: the digital edition is laid out from its own sRGB HTML (nothing of WeasyPrint is
    replaced while any edition is made), and the preflight still reads every page reference's number back."""
    report = verify(mini, draw=True)
    check = report.books[0]
    before = _replaced()
    seen: list[Any] = []
    real = pdf.lay_out

    def laid_out(job: pdf.PrintInput, *args: Any, **kwargs: Any) -> Any:
        assert _replaced() == before
        seen.append(job.edition)
        return real(job, *args, **kwargs)

    monkeypatch.setattr(pdf, "lay_out", laid_out)
    checked: list[str] = []
    references = pagechecks.references_right

    def numbers_read(read: Any) -> Any:
        checked.append(read.name)
        return references(read)

    monkeypatch.setattr(pagechecks, "references_right", numbers_read)
    press = pdf.PrintInput(check, tmp_path / "diagrams", edition="print", stamp=pdf.Stamp(0, "mini"))
    screen = pdf.PrintInput(check, tmp_path / "diagrams", edition="digital")
    pdf.write_pdf(press, tmp_path / "mini.pdf", None, pdf.Digital(screen, tmp_path / "mini-digital.pdf"))
    assert seen == ["print", "digital"]
    for name in ("mini.pdf", "mini-digital.pdf"):
        assert preflight_pdf(tmp_path / name, book=check.book) == [], name
    assert len(checked) == 2


def test_the_print_editions_date_is_its_stamp_in_the_documents_metadata(mini: Path, tmp_path: Path) -> None:
    """Not the clock's: the date WeasyPrint is given (``metadata.created``/``modified``), in the document
    information and the XMP, and the same bytes twice."""
    check = verify(mini, draw=True).books[0]
    made = []
    for attempt in range(2):
        job = pdf.PrintInput(check, tmp_path / "diagrams", edition="print", stamp=pdf.Stamp(1700000000, "mini"))
        pdf.write_pdf(job, tmp_path / f"{attempt}.pdf")
        made.append((tmp_path / f"{attempt}.pdf").read_bytes())
        time.sleep(1.1)  # a clock's date would differ
    assert made[0] == made[1]
    with pikepdf.open(tmp_path / "0.pdf") as document:
        assert str(document.docinfo["/CreationDate"]) == str(document.docinfo["/ModDate"]) == "D:20231114221320+00'00"
        with document.open_metadata() as xmp:
            assert xmp["xmp:CreateDate"] == xmp["xmp:ModifyDate"] == "2023-11-14T22:13:20+00:00"
            assert xmp["xmpMM:DocumentID"] == f"xmp.did:{uuid.uuid5(uuid.NAMESPACE_URL, 'rulepress:mini:1700000000')}"
