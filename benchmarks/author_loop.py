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
    """The content, the project's marker and mkdocs.yml: what a build reads (the theme and plugin are rulepress's)."""
    for name in ("rules_src", "examples", "engine", "site_src", "reports"):
        if (root / name).is_dir():
            shutil.copytree(root / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("rulepress.yaml", "mkdocs.yml"):
        if (root / name).is_file():
            shutil.copy(root / name, target / name)
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
    """mkdocs on the generated pages written out as plain files (no plugin), one run per language's site, then
    WeasyPrint on each edition's generated HTML (each translation's too), one after another, each laid out once:
    the tools' own time for the same pages."""
    import io

    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    from rulepress.analyze.impact import saved_impacts
    from rulepress.render import pdf, site
    from rulepress.render.languages import translations
    from rulepress.render.site_config import overrides_folder, site_config, theme_folder
    from rulepress.verify.gate import verify

    report = verify(root, draw=True)
    impacts = {check.book.id: saved_impacts(root, check) for check in report.books}
    settings = site_config(root)  # the same settings, the rulepress plugin's work done beforehand instead
    settings["plugins"] = [entry for entry in settings["plugins"] if entry != "rulepress"]
    settings["theme"] = {**settings["theme"], "custom_dir": str(overrides_folder())}
    sites = []
    for lang in [None, *site.site_languages(report)]:
        docs = folder / "docs" / (lang or "root")
        shutil.copytree(theme_folder() / "assets", docs / "assets")
        for path, text in site.pages(site.SiteInput(report, impacts, lang)).items():
            (docs / path).parent.mkdir(parents=True, exist_ok=True)
            (docs / path).write_text(text, encoding="utf-8")
        overrides = site.language_config(settings, report, lang) if len(site.site_languages(report)) else {}
        sites.append((docs, folder / "site" / (lang or ""), site.nav(report, lang), overrides))
    htmls = []
    books = [(check, None) for check in report.books]
    books += [(check, lang) for lang, checks in translations(report).items() for check in checks]
    for check, _ in books:
        for edition in pdf.EDITIONS:
            job = pdf.PrintInput(check, folder / "docs" / "root" / check.book.id / "diagrams", edition=edition,
                                 impact=impacts.get(check.book.id) if edition == "designer" else None)
            htmls.append((pdf.print_html(job), str(job.diagrams)))
    start = time.perf_counter()
    for docs, target, nav, overrides in sites:
        config = load_config(io.BytesIO(b"{}"), config_file_path=str(root / "mkdocs.yml"),
                             **{**settings, **overrides, "docs_dir": str(docs), "site_dir": str(target), "nav": nav,
                                "exclude_docs": ""})
        mkdocs_build(config)
    for index, (html, base) in enumerate(htmls):
        pdf.weasyprint.HTML(string=html, base_url=base).write_pdf(folder / f"{index}.pdf")
    return time.perf_counter() - start


def _verdict(value: float, goal: float) -> str:
    return "PASS" if value <= goal else "FAIL"


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
            tools.append(bare_tools(project, Path(scratch) / "bare"))  # right after: the same load on the machine
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
    ratio = _median([c / t for c, t in zip(cold, tools, strict=True)])
    print(f"cold build (empty cache) {_median(cold):.1f} s vs the bare tools one after another "
          f"{_median(tools):.1f} s: {ratio:.2f}x (goal <= 0.6x): {_verdict(ratio, 0.6)}")
    print(f"rebuild, nothing changed: {_median(again):.1f} s")
    print(f"rebuild after a one-rule edit: {_median(edited):.1f} s in all (the edited book's PDFs included); "
          f"verification and site {_median(checked):.1f} s (goal <= 2 s): {_verdict(_median(checked), 2.0)}")
    print(f"preview: save of one rule to the re-verified page rebuilt {_median(preview):.1f} s (goal <= 2 s; "
          f"the browser's reload comes on top): {_verdict(_median(preview), 2.0)}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")


def bench_tree_memory(root: Path) -> None:
    """Peak RSS of a cold build's own process, and of its largest child (a PDF worker or the site's process)."""
    print("\n## Peak memory of a cold build (process tree)")
    with tempfile.TemporaryDirectory() as scratch:
        project = copy_project(root, Path(scratch) / "project")
        # The process's own high-water mark (VmHWM), not getrusage's ru_maxrss: Linux carries ru_maxrss over an
        # exec, so a child started by a large process (this one, after the builds above) reported its parent's
        # peak (408 MiB for a build whose own peak was 101 MiB).
        code = ("import resource; from pathlib import Path; from rulepress.publish.build import build; "
                f"build(Path({str(project)!r}), site_dir=Path({scratch!r}) / 'site'); "
                "own = next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM')); "
                "print(own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    own, child = (int(value) / 1024 for value in done.stdout.split()[-2:])
    count = workers_wanted(9)
    # The build's process holds the verified books and drives the rest; mkdocs runs in a child (alongside the
    # PDFs), WeasyPrint in the workers.  Children are forked: most of their pages are shared with the build's
    # process, so the sum below overstates the tree.  The goal is the build's own process.
    print(f"build process {own:.0f} MiB (goal < 200 MiB): {_verdict(own, 199.9)}; largest child (a PDF worker or "
          f"the site's process) {child:.0f} MiB; {count} worker(s) + the site's process: at most "
          f"{own + child * (count + 1):.0f} MiB together")


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
