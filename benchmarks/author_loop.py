"""The author's loop in `nox -s bench`: a cold build against the bare tools, a rebuild after one rule edit, the
preview's save-to-page time, and the peak memory of a build's process tree.  Everything runs on a copy of the
project in a temporary folder (its own `.rulepress-cache/`), never on the checkout."""

from __future__ import annotations

import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from rulepress.publish.build import Timings, build
from rulepress.publish.pdfpool import workers_wanted


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def copy_project(root: Path, target: Path) -> Path:
    """The content, mkdocs.yml, the theme and the hooks file mkdocs.yml names: what a build reads."""
    for name in ("rules_src", "examples", "engine", "site_src", "reports"):
        if (root / name).is_dir():
            shutil.copytree(root / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(root / "mkdocs.yml", target / "mkdocs.yml")
    hooks = target / "rulepress" / "render"
    hooks.mkdir(parents=True)
    shutil.copy(root / "rulepress" / "render" / "mkdocs_hooks.py", hooks / "mkdocs_hooks.py")
    return target


def edit_one_rule(root: Path) -> Path:
    """Append a sentence to the first paragraph of the first book's first chapter."""
    chapter = sorted((root / "rules_src").glob("*/chapters/*.md"))[0]
    lines = chapter.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.strip() and not line.startswith(("#", "{", "<", "|", "-")))
    lines[at] = lines[at].rstrip("\n") + f" (Edited at {time.time():.0f}.)\n"
    chapter.write_text("".join(lines), encoding="utf-8")
    return chapter


def bare_tools(root: Path, folder: Path) -> float:
    """mkdocs on the generated pages written out as plain files (no hooks), then WeasyPrint on each edition's
    generated HTML, one after another: the tools' own time for the same pages."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    from rulepress.analyze.impact import saved_impacts
    from rulepress.render import pdf, site
    from rulepress.verify.gate import verify

    report = verify(root, draw=True)
    impacts = {check.book.id: saved_impacts(root, check) for check in report.books}
    docs = folder / "docs"
    shutil.copytree(root / "site_src", docs, ignore=shutil.ignore_patterns("overrides"))
    for path, text in site.pages(site.SiteInput(report, impacts)).items():
        (docs / path).parent.mkdir(parents=True, exist_ok=True)
        (docs / path).write_text(text, encoding="utf-8")
    htmls = []
    for check in report.books:
        for edition in pdf.EDITIONS:
            job = pdf.PrintInput(check, docs / check.book.id / "diagrams", edition=edition,
                                 impact=impacts.get(check.book.id) if edition == "designer" else None)
            htmls.append((pdf.print_html(job), str(job.diagrams)))
    start = time.perf_counter()
    config = load_config(str(root / "mkdocs.yml"), docs_dir=str(docs), site_dir=str(folder / "site"),
                         nav=site.nav(report), hooks=[])
    mkdocs_build(config)
    for index, (html, base) in enumerate(htmls):
        pdf.weasyprint.HTML(string=html, base_url=base).write_pdf(folder / f"{index}.pdf")
    return time.perf_counter() - start


def bench_author_loop(root: Path, runs: int) -> None:
    from rulepress.serve.session import Session

    print("\n## The author's loop (a copy of the project; medians)")
    cold, tools, again, edited, checked, preview = [], [], [], [], [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as scratch:
            project = copy_project(root, Path(scratch) / "project")
            start = time.perf_counter()
            build(project, site_dir=Path(scratch) / "site")
            cold.append(time.perf_counter() - start)
            tools.append(bare_tools(project, Path(scratch) / "bare"))
            start = time.perf_counter()
            build(project, site_dir=Path(scratch) / "site")
            again.append(time.perf_counter() - start)
            edit_one_rule(project)
            timings = Timings()
            start = time.perf_counter()
            build(project, site_dir=Path(scratch) / "site", timings=timings)
            edited.append(time.perf_counter() - start)
            checked.append(timings.verify + timings.site)
            session = Session(project, Path(scratch) / "serve", say=lambda line: None)
            session.start()
            edit_one_rule(project)
            start = time.perf_counter()
            session.update()
            preview.append(time.perf_counter() - start)
    ratios = [c / t for c, t in zip(cold, tools, strict=True)]
    print(f"cold build (empty cache) {_median(cold):.1f} s vs the bare tools one after another "
          f"{_median(tools):.1f} s: {_median(ratios):.2f}x (goal <= 0.6x)")
    print(f"rebuild, nothing changed: {_median(again):.1f} s")
    print(f"rebuild after a one-rule edit: {_median(edited):.1f} s in all, verification and site "
          f"{_median(checked):.1f} s (goal <= 2 s)")
    print(f"preview: save of one rule to the re-verified page rebuilt {_median(preview):.1f} s (goal <= 2 s; "
          f"the browser's reload comes on top)")


def bench_tree_memory(root: Path) -> None:
    """Peak RSS of a cold build's own process and of its largest PDF worker (a child process measures both)."""
    print("\n## Peak memory of a cold build (process tree)")
    with tempfile.TemporaryDirectory() as scratch:
        project = copy_project(root, Path(scratch) / "project")
        code = ("import resource; from pathlib import Path; from rulepress.publish.build import build; "
                f"build(Path({str(project)!r}), site_dir=Path({scratch!r}) / 'site'); "
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
                "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    own, workers = (int(value) / 1024 for value in done.stdout.split()[-2:])
    count = workers_wanted(9)
    # Workers are forked from the build: most of their pages are shared, so the sum overstates the tree.
    print(f"build process {own:.0f} MiB, largest PDF worker {workers:.0f} MiB (goal < 200 MiB), "
          f"{count} worker(s): at most {own + workers * count:.0f} MiB together")


@contextlib.contextmanager
def uncached() -> Iterator[None]:
    """Builds inside make everything afresh (``RULEPRESS_CACHE=0``): what a build costs, not what the cache saves."""
    before = os.environ.get("RULEPRESS_CACHE")
    os.environ["RULEPRESS_CACHE"] = "0"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("RULEPRESS_CACHE")
        else:
            os.environ["RULEPRESS_CACHE"] = before
