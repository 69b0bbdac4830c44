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

from rulepress.load.book import book_ids
from rulepress.publish.build import Timings, build
from rulepress.publish.pdfpool import workers_wanted

# The goals of issue 32 on a quiet 2-core machine: a cold build at most 0.55 times the bare tools one after another,
# and a one-rule edit re-verified and its site made again in 1.5 s.
COLD_GOAL = 0.55
EDIT_GOAL = 1.5


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


def bare_tools(root: Path, folder: Path) -> tuple[float, float]:
    """mkdocs on the generated pages written out as plain files (no plugin), one run per language's site, then
    WeasyPrint on each edition's generated HTML (each translation's too), one after another, each laid out once
    and written as the build writes it (PDF/X-4, tagged): the tools' own time for the same pages, wall and CPU."""
    import copy
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
            # The same kind of file the build writes: WeasyPrint's PDF/X-4 and tagging are its own work.
            options = {"print": {"pdf_variant": "pdf/x-4"}, "digital": {"pdf_tags": True}}.get(edition, {})
            htmls.append((pdf.print_html(job), str(job.diagrams), options))
    start, cpu = time.perf_counter(), time.process_time()
    for docs, target, nav, overrides in sites:
        # A copy for each site: mkdocs' validation empties the extension entries it reads (dict.popitem).
        config = load_config(io.BytesIO(b"{}"), config_file_path=str(root / "mkdocs.yml"),
                             **copy.deepcopy({**settings, **overrides, "docs_dir": str(docs), "site_dir": str(target),
                                              "nav": nav, "exclude_docs": ""}))
        mkdocs_build(config)
    for index, (html, base, options) in enumerate(htmls):
        pdf.weasyprint.HTML(string=html, base_url=base).write_pdf(folder / f"{index}.pdf", **options)
    return time.perf_counter() - start, time.process_time() - cpu


# A cold build in a process of its own, so that its whole process tree's CPU can be counted (getrusage of the
# children, once reaped): it prints its wall time, what its own account names (rulepress/account.py) and how much
# CPU the interpreter and the imports took before the build began.
_COLD = """
import json, sys, time
from pathlib import Path
from rulepress.errors import BuildRefused
from rulepress.publish.build import Timings, build
started = time.process_time()
timings = Timings()
refused = []
begun = time.perf_counter()
try:
    build(Path(sys.argv[1]), site_dir=Path(sys.argv[2]), timings=timings)
except BuildRefused as exc:
    refused = exc.problems
wall = time.perf_counter() - begun
print(json.dumps({"wall": wall, "cpu": timings.cpu, "start-up": started, "refused": refused, "pdf": timings.pdf,
                  "verify": timings.verify, "site": timings.site}))
"""
START_UP = "start-up: interpreter, rulepress imported"
UNACCOUNTED = "unaccounted (no part names it: the processes' exits, the interpreter's own)"
# The parts that are mkdocs' and WeasyPrint's own work, which the bare tools do too (everything else is ours).
TOOL_PARTS = ("PDF: WeasyPrint lays out", "PDF: WeasyPrint writes",
              "site: mkdocs and Material (navigation, theme, Markdown, search index, files)")


def cold_build(project: Path, site: Path) -> tuple[float, dict[str, float], float, list[str]]:
    """A cold build of ``project`` in a child process: its wall time, its CPU by part (the start-up and an
    "unaccounted" line included, so that the parts add up to the total), the total CPU of its process tree,
    and what it refused (a build refused still did the work it is timed for)."""
    import json
    import resource

    def children() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before = children()
    done = subprocess.run([sys.executable, "-c", _COLD, str(project), str(site)], check=True, capture_output=True,
                          text=True)
    total = children() - before
    found = json.loads(done.stdout.splitlines()[-1])
    if os.environ.get("RULEPRESS_BENCH_VERBOSE"):
        print(f"(cold build: gate {found['verify']:.1f} s, site {found['site']:.1f} s, PDFs: "
              + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in found["pdf"].items()) + ")")
    account = {START_UP: found["start-up"], **found["cpu"]}
    account[UNACCOUNTED] = total - sum(account.values())
    return found["wall"], account, total, found["refused"]


def print_account(accounts: list[dict[str, float]], totals: list[float], tools_cpu: list[float],
                  walls: list[float]) -> None:
    """The median of each part over the cold builds, largest first, as a table that sums to the total."""
    names = sorted({name for account in accounts for name in account},
                   key=lambda name: -_median([account.get(name, 0.0) for account in accounts]))
    total = _median(totals)
    print(f"\n### A cold build's CPU, by part (median of {len(accounts)} builds; every process of the build)")
    print("| part | CPU s | share | whose |\n|---|---:|---:|---|")
    for name in names:
        seconds = _median([account.get(name, 0.0) for account in accounts])
        whose = "tools" if name in TOOL_PARTS else "" if name == UNACCOUNTED else "ours"
        print(f"| {name} | {seconds:.1f} | {seconds / total:.0%} | {whose} |")
    ours = _median([sum(v for k, v in account.items() if k not in TOOL_PARTS and k != UNACCOUNTED)
                    for account in accounts])
    tools = _median([sum(v for k, v in account.items() if k in TOOL_PARTS) for account in accounts])
    print(f"| **total** (getrusage of the build's process tree) | **{total:.1f}** | 100% | |")
    print(f"tools' parts {tools:.1f} s, ours {ours:.1f} s; the bare tools one after another took "
          f"{_median(tools_cpu):.1f} CPU s")
    cores = len(os.sched_getaffinity(0))
    idle = _median([cores * wall - total for wall, total in zip(walls, totals, strict=True)])
    print(f"{cores} cores × {_median(walls):.1f} s of wall time: {total:.1f} CPU s used, {idle:.1f} core-seconds idle "
          "(waiting on the one process still at work) or taken by other processes on the machine")


def bench_preflight(root: Path, folder: Path, runs: int = 3) -> None:
    """`rulepress preflight` on a build's PDFs (every check, each PDF read once, print and digital editions held to
    each other), in this process: CPU medians, by reader."""
    from rulepress import account
    from rulepress.load.book import load_book
    from rulepress.publish.pagechecks import register
    from rulepress.publish.preflight import preflight_read

    paths = sorted(folder.glob("*.pdf"))
    books = {path: next((load_book(root, book) for book in sorted(book_ids(root), key=len, reverse=True)
                         if path.stem == book or path.stem.startswith(f"{book}-")), None) for path in paths}
    totals, parts = [], []
    for _ in range(runs):
        account.taken()
        begun = time.process_time()
        with account.part("preflight: the checks"):
            placed = {path: preflight_read(path, None, books[path])[1] for path in paths}
            for path in paths:
                if (path.with_name(f"{path.stem}-digital.pdf")) in placed and placed[path] is not None:
                    register(placed[path], placed[path.with_name(f"{path.stem}-digital.pdf")])
        totals.append(time.process_time() - begun)
        parts.append(account.taken())
    names = sorted({name for found in parts for name in found})
    split = ", ".join(f"{name.removeprefix('preflight: ')} {_median([p.get(name, 0.0) for p in parts]):.2f} s"
                      for name in names)
    print(f"preflight of the {len(paths)} PDFs (every check, one read each): {_median(totals):.2f} CPU s "
          f"(goal < 8 s): {_verdict(_median(totals), 8.0)}; {split}")


def _verdict(value: float, goal: float) -> str:
    return "PASS" if value <= goal else "FAIL"


def bench_author_loop(root: Path, runs: int) -> None:
    from rulepress.serve.session import Session

    print("\n## The author's loop (a copy of the project; medians)")
    cold, tools, again, edited, checked, preview = [], [], [], [], [], []
    accounts, totals, tools_cpu = [], [], []
    preflighted = False
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as scratch:
            project = copy_project(root, Path(scratch) / "project")
            wall, account, total, refused = cold_build(project, Path(scratch) / "site")
            if not preflighted and not refused:
                bench_preflight(project, Path(scratch) / "site" / "pdf")
                preflighted = True
            if refused:
                print(f"(the cold build was refused, {len(refused)} problems, the first: {refused[0]})")
            cold.append(wall)
            accounts.append(account)
            totals.append(total)
            wall, cpu = bare_tools(project, Path(scratch) / "bare")  # right after: the same load on the machine
            tools.append(wall)
            tools_cpu.append(cpu)
            if refused:
                print(f"(the cold build was refused, {len(refused)} problems, the first: {refused[0]}; the rebuilds "
                      "and the preview are not timed)")
                continue
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
    print_account(accounts, totals, tools_cpu, cold)
    ratio = _median([c / t for c, t in zip(cold, tools, strict=True)])
    print(f"cold build (empty cache) {_median(cold):.1f} s vs the bare tools one after another "
          f"{_median(tools):.1f} s: {ratio:.2f}x (goal <= {COLD_GOAL}x): {_verdict(ratio, COLD_GOAL)}")
    print(f"rebuild, nothing changed: {_median(again):.1f} s")
    print(f"rebuild after a one-rule edit: {_median(edited):.1f} s in all (the edited book's PDFs included); "
          f"verification and site {_median(checked):.1f} s (goal <= {EDIT_GOAL} s): "
          f"{_verdict(_median(checked), EDIT_GOAL)}")
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
