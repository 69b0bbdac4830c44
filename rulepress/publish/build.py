"""``rulepress build``: verify, then render site and PDFs into staging, then swap it in atomically."""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulepress.analyze.impact import saved_impacts
from rulepress.errors import BuildRefused
from rulepress.publish.swap import publish
from rulepress.render import site as site_pages
from rulepress.verify.gate import Report, verify


@dataclass
class Timings:
    verify: float = 0.0
    site: float = 0.0
    pdf: dict[str, float] = field(default_factory=dict)
    pages: dict[str, int] = field(default_factory=dict)
    own: float = 0.0  # page generation inside the site and PDF runs (verify is counted separately)
    tools: float = 0.0  # mkdocs and WeasyPrint themselves


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _mkdocs_warnings() -> Iterator[_Collect]:
    handler = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def gate(root: Path, strict: bool) -> Report:
    """Everything that must hold before anything is rendered."""
    from rulepress.analyze.changes import unlogged_changes

    report = verify(root, draw=True)
    for check in report.books:
        report.warnings.extend(unlogged_changes(root, check.book))
    problems = report.failures() + (report.warnings if strict else [])
    if problems:
        raise BuildRefused(problems)
    return report


def render_site(root: Path, report: Report, impacts: dict[str, Any], staging: Path) -> list[str]:
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    site_pages.PREPARED = site_pages.SiteInput(report, impacts)
    site_pages.TIMING.clear()
    try:
        with _mkdocs_warnings() as warnings:
            config = load_config(str(root / "mkdocs.yml"), site_dir=str(staging))
            mkdocs_build(config)
        return warnings.messages
    finally:
        site_pages.PREPARED = None


def render_pdfs(report: Report, impacts: dict[str, Any], staging: Path, timings: Timings) -> None:
    from rulepress.render import pdf

    for check in report.books:
        book_id = check.book.id
        diagrams = staging / book_id / "diagrams"
        diagrams.mkdir(parents=True, exist_ok=True)
        for designer in (False, True):
            name = f"{book_id}-designer" if designer else book_id
            start = time.perf_counter()
            job = pdf.PrintInput(check, diagrams, designer, impacts[book_id] if designer else None)
            split: dict[str, float] = {}
            timings.pages[name] = pdf.write_pdf(job, staging / "pdf" / f"{name}.pdf", split)
            timings.pdf[name] = time.perf_counter() - start
            timings.own += split["own"]
            timings.tools += split["tool"]


def build(root: Path, strict: bool = False, site_dir: Path | None = None,
          timings: Timings | None = None) -> list[str]:
    """Publish ``site/`` (HTML and PDFs) only if every check passes; otherwise leave it untouched."""
    timings = timings or Timings()
    start = time.perf_counter()
    report = gate(root, strict)
    impacts = {check.book.id: saved_impacts(root, check) for check in report.books}
    timings.verify = time.perf_counter() - start
    target = (site_dir or root / "site").resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-staging-", dir=target.parent))
    try:
        start = time.perf_counter()
        warnings = render_site(root, report, impacts, staging)
        timings.site = time.perf_counter() - start
        generating = site_pages.TIMING.get("pages", 0.0)
        timings.own += generating
        timings.tools += timings.site - generating
        if strict and warnings:
            raise BuildRefused([f"mkdocs: {w}" for w in warnings])
        render_pdfs(report, impacts, staging, timings)
        publish(staging, target)
    except BuildRefused:
        raise
    except Exception as exc:  # a broken template or page: report it, keep the last good site
        raise BuildRefused([f"rendering failed: {type(exc).__name__}: {exc}"]) from exc
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    lines = [f"verified {len(report.results)} examples in {len(report.books)} books ({timings.verify:.2f} s)",
             f"site: {target} ({timings.site:.2f} s)"]
    lines += [f"pdf: {target / 'pdf' / (name + '.pdf')} ({timings.pages[name]} pages, {seconds:.2f} s)"
              for name, seconds in timings.pdf.items()]
    lines += [f"warning: {w}" for w in report.warnings + warnings]
    return lines
