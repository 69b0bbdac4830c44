"""``rulepress build``: verify, then render site and PDFs into staging, then swap it in atomically."""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from rulepress import account
from rulepress.analyze.impact import cached_impacts, impacts_cached
from rulepress.analyze.translation_status import cached_gate_findings
from rulepress.errors import BuildRefused, SourceError, counted, os_problem
from rulepress.publish.lock import build_lock
from rulepress.publish.swap import (
    check_replaceable,
    check_target,
    finish,
    new_staging,
    publish,
    signals_held,
    sweep_leftovers,
)
from rulepress.render import site as site_pages
from rulepress.store import empty_trash
from rulepress.verify.gate import Report, verify

# A warning that means something the output needs was not there: the output is wrong, not just imperfect.
_MISSING_RESOURCE = re.compile(
    r"fail|error|cannot|could not|unable to|not found|no such|does not exist|missing|unreadable|"
    r"no anchor|undefined anchor|does not contain an anchor|unrecognized relative link|without a base uri|"
    r"malformed url|\.notdef|no source for", re.IGNORECASE)
_DATA_URI = re.compile(r"(data:[\w.+/-]+;base64,)([A-Za-z0-9+/=]{40,})")


SITE_FIRST = 3.0  # seconds the PDFs wait for the site's process before they start alongside it


@dataclass
class Timings:
    verify: float = 0.0
    site: float = 0.0
    pdf: dict[str, float] = field(default_factory=dict)
    pages: dict[str, int] = field(default_factory=dict)
    own: float = 0.0  # page generation inside the site and PDF runs (verify is counted separately)
    tools: float = 0.0  # mkdocs and WeasyPrint themselves
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds by part, every process's (rulepress/account.py)


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt is for SIGINT: cleanup runs, nothing is published, exit 143.

    A BaseException, so no ``except Exception`` in rulepress or its libraries can swallow it.
    """


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []
        self.sites: dict[str | None, list[logging.LogRecord]] = {}  # each language site's run's (see render_site)

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    @property
    def messages(self) -> list[str]:
        return [record.getMessage() for record in self.records]

    def fatal(self, tool: str) -> list[str]:
        """Errors, and warnings about a missing or unreadable resource: either means wrong output."""
        return self.fatal_of(self.records, tool)

    @staticmethod
    def fatal_of(records: list[logging.LogRecord], tool: str) -> list[str]:
        return _unique(f"{tool}: {_tidy(record.getMessage())}" for record in records
                       if record.levelno >= logging.ERROR or _MISSING_RESOURCE.search(record.getMessage()))

    def harmless(self) -> list[str]:
        return _unique(_tidy(record.getMessage()) for record in self.records
                       if record.levelno < logging.ERROR and not _MISSING_RESOURCE.search(record.getMessage()))


def _tidy(message: str) -> str:
    """One readable line: an inline diagram's base64 shortened to its first bytes, no dangling colon."""
    message = _DATA_URI.sub(lambda m: f"{m.group(1)}{m.group(2)[:24]}…({len(m.group(2))} chars)", message)
    return " ".join(message.split()).rstrip(": ")


def _unique(messages: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(messages))  # each edition repeats the same problem; say it once


@contextmanager
def _logged(name: str) -> Iterator[_Collect]:
    """Collect the warnings and errors logger ``name`` (and its children) emit inside the block."""
    handler = _Collect()
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


class _Interrupts:
    """SIGINT and SIGTERM raise (KeyboardInterrupt, Terminated) until the build commits, and are remembered.

    Remembered because a library may swallow the exception (one raised inside a cffi callback of Pango,
    say, is printed and dropped) and carry on with content missing; ``check`` raises again, and the build
    calls it after each rendering step and right before publishing.  Once the swap is done (``commit``) the
    build has published a complete site, and a late signal no longer has anything to stop.
    """

    def __init__(self) -> None:
        self.received: list[int] = []
        self.committed = False
        self.holding = False

    def check(self) -> None:
        if self.received and not self.committed:
            raise Terminated() if self.received[0] == signal.SIGTERM else KeyboardInterrupt()

    def commit(self) -> None:
        self.committed = True

    @contextmanager
    def held(self) -> Iterator[None]:
        """A signal inside is only remembered; ``check`` afterwards decides.

        Blocking the signals (``signals_held``) is not enough on its own: it blocks them for the main thread
        only, and a helper thread (a process pool's, say) still takes the signal, after which Python runs the
        handler in the main thread at its next bytecode, between two renames.
        """
        self.holding = True
        try:
            with signals_held():
                yield
        finally:
            self.holding = False

    def handler(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)
        if not self.holding and not _in_finalizer(frame):
            self.check()


def _in_finalizer(frame: FrameType | None) -> bool:
    """Whether the signal came while an object was being finalized (WeasyPrint's ``FontConfiguration.__del__``):
    Python prints an exception raised there as "Exception ignored in ..." and drops it, so it is only remembered
    and the build's next ``check`` raises it."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


@contextmanager
def _interrupts() -> Iterator[_Interrupts]:
    guard = _Interrupts()
    if threading.current_thread() is not threading.main_thread():
        yield guard  # signals are only delivered to the main thread; nothing to install
        return
    previous = {signum: signal.signal(signum, guard.handler) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield guard
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def gate(root: Path, strict: bool, books: list[str] | None = None) -> Report:
    """Everything that must hold before anything is rendered."""
    from rulepress.analyze import lint
    from rulepress.analyze.changes import unlogged_changes
    from rulepress.analyze.record import unreviewed

    with account.part("verify: sources loaded, examples replayed, diagrams drawn"):
        report = verify(root, books or None, draw=True, site=True)  # the site's sources too, at their lines
    lint_problems = []
    for check in report.books:
        report.warnings.extend(unlogged_changes(root, check.book))
        errors, warnings = lint.gate_findings(check.book)
        lint_problems += errors  # an error of the text against its data that no designer question tracks
        report.lint_warnings.extend(warnings)
        errors, warnings = cached_gate_findings(check)
        lint_problems += errors  # an undeclared translation; missing or stale items only warn (refused if strict)
        report.warnings.extend(warnings)
    problems = report.failures() + lint_problems + (report.warnings + report.lint_warnings if strict else [])
    if not problems:  # no unchecked example in the player editions; their text is checked as it is rendered
        problems = unreviewed(report)  # (the site's by the plugin, see render_site; each PDF's by render/pdf.py)
    if problems:
        raise BuildRefused(problems)
    return report


def render_site(root: Path, report: Report, impacts: dict[str, Any], staging: Path,
                prepare: Callable[[str | None, Any], bool | None] | None = None) -> _Collect:
    """Run mkdocs into ``staging``, then once more into ``staging/<lang>`` for each language some book is
    translated into (see rulepress/render/site.py); returns what the ``mkdocs`` logger warned about meanwhile
    (``sites``: what each run did).

    ``prepare(lang, config)``, when given, is called before each run and says whether it is a dirty build, or
    (None) that the site in ``lang`` is in place already and need not be built (the incremental builds of
    rulepress/publish/incremental.py add their plugin there)."""
    import copy
    import io

    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    from rulepress.render.mkdocs_plugin import plugin_of
    from rulepress.render.site_config import CONFIG

    site_pages.TIMING.clear()
    others = site_pages.site_languages(report)
    merged = checked_site_config(root)
    with _logged("mkdocs") as logged:
        for lang in [None, *others]:  # the root first: mkdocs empties its site folder before building
            prepared = site_pages.SiteInput(report, impacts, lang)
            # A book with translations: every site gets its language and the switcher.
            overrides = site_pages.language_config(merged, report, lang) if others else {}
            target = staging if lang is None else staging / lang
            start = len(logged.records)
            try:
                # Relative paths in it are the project's: mkdocs reads them against the file's folder.
                # A copy each time: mkdocs consumes the settings it is given (it pops plugins' options).
                config = load_config(io.BytesIO(b"{}"), config_file_path=str(root / CONFIG),
                                     **copy.deepcopy({**merged, **overrides, "site_dir": str(target)}))
            except Abort:  # mkdocs said what is wrong (logged); the message itself only says "aborted"
                raise BuildRefused(_config_problems(root, logged.records[start:])) from None
            plugin_of(config).prepared = prepared  # the plugin verifies nothing again
            dirty = prepare(lang, config) if prepare is not None else False
            try:
                if dirty is not None:
                    mkdocs_build(config, dirty=dirty)
            except Exception:
                # The plugin checks the player pages it generates (no rule IDs, no engine notation): mkdocs
                # reports that only as an abort, so the problems themselves are the refusal.
                if prepared.refused:
                    raise BuildRefused(prepared.refused) from None
                if _sandbox_refused(sys.exc_info()[1]):  # a project's template: its file and line
                    raise BuildRefused([str(_template_error(sys.exc_info()[1], root))]) from None
                said = _Collect.fatal_of(logged.records[start:], "mkdocs")
                if said:  # a plugin's or the theme's error: mkdocs logged its words, then aborted
                    raise BuildRefused(said) from None
                template = _template_error(sys.exc_info()[1], root)
                if template:
                    raise BuildRefused([template]) from None
                raise
            logged.sites[lang] = logged.records[start:]
    return logged


def checked_site_config(root: Path) -> dict[str, Any]:
    """The site's configuration (the package's defaults, the project's mkdocs.yml over them), refused with the file
    and line for what a project may not change, and with mkdocs' own words for what mkdocs finds wrong.  The build
    asks before it renders anything, so a bad mkdocs.yml costs no PDF."""
    import copy
    import io

    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    from rulepress.render.site_config import CONFIG, site_config

    try:
        merged = site_config(root)
    except SourceError as exc:
        raise BuildRefused([str(exc)]) from None
    with _logged("mkdocs") as logged:
        try:
            load_config(io.BytesIO(b"{}"), config_file_path=str(root / CONFIG), **copy.deepcopy(merged))
        except Abort:
            raise BuildRefused(_config_problems(root, logged.records)) from None
    return merged


def _sandbox_refused(exc: BaseException | None) -> bool:
    import jinja2.sandbox

    return isinstance(exc, jinja2.sandbox.SecurityError)


def _template_error(exc: BaseException | None, root: Path) -> str | None:
    """A theme template's error (Jinja's), with the template's file (the project's, relative to it) and line."""
    import jinja2

    from rulepress.errors import relative

    if not isinstance(exc, jinja2.TemplateError):
        return None
    filename = getattr(exc, "filename", None)
    line = getattr(exc, "lineno", None)
    if filename is None:  # a runtime error (the sandbox's refusal): the project's template frame Jinja left
        import traceback

        project = root.resolve()
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename.endswith((".html", ".xml")) and Path(frame.filename).resolve().is_relative_to(project):
                filename, line = frame.filename, frame.lineno
    where = relative(Path(filename), root) if filename else getattr(exc, "name", None) or "a theme template"
    return f"{where}{f':{line}' if line else ''}: mkdocs: {type(exc).__name__}: {exc}"


def _config_problems(root: Path, records: list[logging.LogRecord]) -> list[str]:
    """mkdocs' own lines about the configuration ("Config value 'key': what is wrong"), each with the file and,
    when the project's mkdocs.yml sets that key, its line and value."""
    from rulepress.render.site_config import CONFIG, project_setting

    problems = []
    for record in records:
        if record.levelno < logging.ERROR:
            continue
        lines = record.getMessage().splitlines()
        if any(line.lstrip().startswith('File "') for line in lines[1:]):  # a traceback: its first and last lines
            lines = [lines[0], lines[-1]]
        said = _tidy("\n".join(lines))
        key = re.match(r"Config value '([^']+)'", said)
        line, value = project_setting(root, key.group(1)) if key else (None, None)
        where = f"{CONFIG}:{line}" if line else CONFIG
        problems.append(f"{where}: mkdocs: {said}" + (f" (the value: {value!r})" if line else ""))
    return problems or [f"{CONFIG}: mkdocs refused the configuration and said nothing more"]


def expected_pages(report: Report) -> list[str]:
    """The HTML pages a complete site has: the home page and every page in each book's navigation."""
    pages = ["index.html"]

    def walk(entry: Any) -> None:
        if isinstance(entry, str):
            pages.append(entry.removesuffix(".md") + ".html")
        elif isinstance(entry, dict):
            for value in entry.values():
                walk(value)
        elif isinstance(entry, list):
            for value in entry:
                walk(value)

    walk(site_pages.nav(report))
    for lang in site_pages.site_languages(report):  # each language's site, in its folder
        start = len(pages)
        pages.append("index.html")
        walk(site_pages.nav(report, lang))
        pages[start:] = [f"{lang}/{page}" for page in pages[start:]]
    return sorted(set(pages))


def staged_problems(staging: Path, report: Report) -> list[str]:
    """What is missing or wrong in a finished staging folder; empty when it may be published."""
    from rulepress.publish.preflight import preflight_staged

    problems = [f"{page}: page missing from the rendered site" for page in expected_pages(report)
                if not (staging / page).is_file() or (staging / page).stat().st_size == 0]
    return problems + preflight_staged(staging, report)


def _render(root: Path, report: Report, staging: Path, timings: Timings, strict: bool,
            interrupted: Callable[[], None]) -> list[str]:
    """Site and PDFs into ``staging``; refuses on any error or missing resource; returns harmless warnings."""
    from rulepress.publish import pdfpool
    from rulepress.publish.sitestore import cached_site

    def site(impacts: dict[str, Any]) -> Callable[[], tuple[list[str], float, float]]:
        def make() -> tuple[list[str], float, float]:  # a copy when nothing it shows changed
            start = time.perf_counter()
            try:
                with account.part("site: mkdocs and Material (navigation, theme, Markdown, search index, files)"):
                    mkdocs = cached_site(root, report, impacts, staging, render_site)
            except OSError as exc:  # mkdocs writes pages without naming them: the folder it was writing, then
                raise BuildRefused([f"site: {os_problem(exc, staging)}"]) from exc
            problems = mkdocs.fatal("mkdocs") + ([f"mkdocs: {w}" for w in mkdocs.harmless()] if strict else [])
            if problems:
                raise BuildRefused(problems)
            return mkdocs.harmless(), time.perf_counter() - start, site_pages.TIMING.get("pages", 0.0)
        return make

    def work_out_impacts() -> dict[str, Any]:
        with account.part("question impacts: every example replayed under every other answer"):
            return {check.book.id: cached_impacts(root, check) for check in report.books}

    one_core = pdfpool.workers_wanted(2) == 1
    jobs: dict[str, pdfpool.Alongside] = {}
    impacts: dict[str, Any] = {}
    designer_impacts: Callable[[], dict[str, Any] | None] | None = None
    if one_core or all(impacts_cached(root, check) for check in report.books):
        # The site is made in a process of its own while this one renders the PDFs, into a hidden folder (mkdocs
        # leaves those alone when it empties the site's) that becomes pdf/ once both are done.  With one core the
        # site comes first, as it did.
        impacts = work_out_impacts()
        jobs["site"] = pdfpool.Alongside(site(impacts), inline=one_core)
    else:
        # A cold build: working out the question impacts (every example under every other answer) takes seconds
        # the player editions, which do not show them, need not wait for.  The site and the designer editions
        # start once they are there.
        jobs["impacts"] = pdfpool.Alongside(work_out_impacts, name="question impacts")

        def arrived() -> dict[str, Any] | None:
            if "site" not in jobs:
                if not jobs["impacts"].done():
                    return None
                impacts.update(jobs["impacts"].result())
                jobs["site"] = pdfpool.Alongside(site(impacts))
            return impacts
        designer_impacts = arrived

    def check_alongside() -> None:
        for job in jobs.values():
            job.check()

    try:
        if "site" in jobs and jobs["site"].process is not None:
            # The PDFs wait a moment for the site, as `rulepress serve` has them follow it: after an edit the site
            # takes a second or two, and the PDF workers would take the cores it needs.  A full site, which takes
            # longer, has them start meanwhile.
            jobs["site"].reader.poll(SITE_FIRST)
        with _logged("weasyprint") as weasy:
            try:
                pdfpool.render_editions(report, impacts, staging, timings, folder=".pdf",
                                        check_alongside=check_alongside, designer_impacts=designer_impacts)
            except BaseException as exc:  # a FatalURLFetchingError is one, so it has to be named to be refused
                # Looked up, not imported: the build's process need not load WeasyPrint (its PDF workers do), and
                # such an error, raised here or sent back by a worker, has loaded its module.
                urls = sys.modules.get("weasyprint.urls")
                if urls is None or not isinstance(exc, urls.FatalURLFetchingError):
                    raise
                from rulepress.render.fetch import RefusedURL

                cause = f" ({exc.__cause__})" if exc.__cause__ and not isinstance(exc, RefusedURL) else ""
                raise BuildRefused([f"weasyprint: {exc}{cause}"] + weasy.fatal("weasyprint")) from exc
        if "site" not in jobs:  # every PDF came from the cache before the impacts were there
            while designer_impacts is not None and designer_impacts() is None:
                time.sleep(0.05)
        harmless, timings.site, generating = jobs["site"].result()
    finally:
        for job in jobs.values():
            job.stop()
    if (staging / ".pdf").is_dir():
        os.replace(staging / ".pdf", staging / "pdf")
    timings.own += generating
    timings.tools += timings.site - generating
    interrupted()
    if weasy.fatal("weasyprint"):
        raise BuildRefused(weasy.fatal("weasyprint"))
    return harmless + [f"weasyprint: {w}" for w in weasy.harmless()]


def build(root: Path, strict: bool = False, site_dir: Path | None = None, timings: Timings | None = None,
          books: list[str] | None = None, wait: float = 30.0) -> list[str]:
    """Publish ``site/`` (HTML and PDFs) only if every check passes; otherwise leave it untouched.

    Only one build of a project runs at a time (the second waits up to ``wait`` seconds, then refuses);
    a SIGINT or SIGTERM aborts the build before anything is published.
    """
    timings = timings or Timings()
    account.taken()  # this build's account starts here
    try:
        with account.part("build's process: lock, staging, forking and waiting for the other processes"):
            return _build(root, strict, site_dir, timings, books, wait)
    finally:
        timings.cpu = account.taken()


def _build(root: Path, strict: bool, site_dir: Path | None, timings: Timings, books: list[str] | None,
           wait: float) -> list[str]:
    root = root.resolve()
    target = (site_dir or root / "site").resolve()
    check_target(root, target)
    check_replaceable(root, target)  # a read-only site/ is found now, not after every PDF is made
    with _interrupts() as interrupts, build_lock(root, wait):
        swept = sweep_leftovers(root, target)
        start = time.perf_counter()
        with account.part("gate: lint, change log, translations' files, review"):
            report = gate(root, strict, books)
            checked_site_config(root)  # before anything is rendered
        timings.verify = time.perf_counter() - start
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = new_staging(root, target)
        try:
            warnings = _render(root, report, staging, timings, strict, interrupts.check)
            with account.part("preflight: the staged folder (pages there, print and digital in register)"):
                problems = staged_problems(staging, report)
            if problems:
                raise BuildRefused(problems)
            finish(staging)
            check_target(root, target)  # it may have changed while we rendered
            with interrupts.held():  # from here a signal waits until the swap is done, then finds it committed
                interrupts.check()  # the last moment an interrupt can stop the swap
                publish(staging, target)
                interrupts.commit()
            empty_trash(root)  # the kept sites the site's process pruned
        except BuildRefused:
            raise
        except OSError as exc:  # a full disk, a folder it may not write: what it hit, by name
            raise BuildRefused([f"rendering failed: {os_problem(exc, staging)}"]) from exc
        except Exception as exc:  # a broken template or page: report it, keep the last good site
            raise BuildRefused([f"rendering failed: {type(exc).__name__}: {exc}"]) from exc
        finally:  # also after KeyboardInterrupt and Terminated, which pass through the except clauses above
            with interrupts.held():  # a second Ctrl-C must not leave half a staging folder behind
                shutil.rmtree(staging, ignore_errors=True)
            interrupts.check()  # one that came meanwhile still stops an unpublished build
    lines = [f"verified {counted(len(report.results), 'example')} in {counted(len(report.books), 'book')} "
             f"({timings.verify:.2f} s)",
             f"site: {target} ({timings.site:.2f} s)"]
    lines += [f"pdf: {target / 'pdf' / (name + '.pdf')} ({timings.pages[name]} pages, {seconds:.2f} s)"
              for name, seconds in timings.pdf.items()]
    if swept:
        lines.append(f"removed {counted(len(swept), 'folder')} left by killed builds")
    lines += [f"warning: {w}" for w in report.warnings + warnings]
    from rulepress.analyze import lint

    linted = lint.summary(report.lint_warnings)  # one line, not one per finding: `rulepress lint` lists them
    return lines + ([f"warning: {linted}"] if linted else [])
