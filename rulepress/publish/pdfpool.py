"""Every edition of every book, rendered in parallel processes and reused from the content-hash cache.

WeasyPrint is pure CPU work in one thread, so the editions are spread over processes, one per core.  Each
edition lays itself out (:func:`rulepress.render.pdf.lay_out`: once, whatever its page count), so none waits for
another: the longest start first, and the short ones fill the workers' last minutes.

Workers are forked: a job holds a book's engine (a module, which does not pickle), so each worker finds its
job by index in :data:`_JOBS`, set before the fork.  What WeasyPrint logs in a worker is sent back and logged
again in the build's process, where the build decides which warnings refuse the output.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rulepress import account, environment, progress
from rulepress.errors import BuildRefused, os_problem
from rulepress.publish.pdfstore import edition_inputs, get_pdf, pdf_key, put_pdf, source_epoch
from rulepress.publish.preflight import placed, preflight_key, preflight_passed
from rulepress.render import pdf
from rulepress.render import weasyprint_patches as patches
from rulepress.store import Store

if TYPE_CHECKING:
    from rulepress.verify.gate import Report


@dataclass
class Job:
    name: str  # "<book>", "<book>-digital", "<book>-designer": the file name without .pdf
    edition: str
    target: Path
    printing: pdf.PrintInput
    lang: str | None = None  # a translation's language (None: the book's own)
    digital: int | None = None  # a print job's: the index of its digital edition's job, made from its layout


class WorkerDied(Exception):
    """The pool broke: a worker ended without answering (killed, out of memory).  ``dead``: pid -> exit code of
    the workers found dead when it broke (the pool ends the others right after)."""

    def __init__(self, dead: dict[int, int]) -> None:
        super().__init__("a PDF worker process died")
        self.dead = dead


def _ending(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}" + (" (out of memory?)" if -code == signal.SIGKILL else "")
    return f"ended with exit code {code}" if code is not None else "ended without a word"


def edition_failure(job: Job, exc: BaseException) -> str:
    """A failed edition as one line naming it: the edition, and for a disk or permission error the file."""
    what = f"pdf {job.name} ({job.edition} edition of {job.printing.check.book.id})"
    if isinstance(exc, OSError):
        return f"{what}: {os_problem(exc, job.target)}"
    return f"{what}: {type(exc).__name__}: {exc}"


@dataclass
class Done:
    pages: int
    layout: pdf.Layout
    own: float = 0.0
    tool: float = 0.0
    seconds: float = 0.0
    logs: tuple[tuple[str, int, str], ...] = ()  # (logger, level, message) seen in a worker
    reused: bool = False
    passed: str = ""  # the preflight key of the PDF, when the worker's preflight passed it
    digest: str = ""  # the PDF's SHA-256, and where its objects are (a player's edition), from that preflight's read
    placement: Any = None
    cpu: dict[str, float] = field(default_factory=dict)  # the worker's CPU account of the job (rulepress/account.py)
    worker: tuple[int, float] = (0, 0.0)  # the worker's process ID and CPU time so far, when the job was done
    digital: Done | None = None  # a print job's: its digital edition, made with it


_JOBS: list[Job] = []
_STARTED: Any = None  # shared with the workers: the pid of the worker that took each job (0: none yet)
_READY = False  # whether this worker has made itself ready for its jobs (its first one)
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def workers_wanted(jobs: int) -> int:
    """One process per core this process may run on (``$RULEPRESS_JOBS`` overrides), never more than jobs."""
    cores = environment.jobs() or len(os.sched_getaffinity(0))
    return max(1, min(cores, jobs))


class _Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append((record.name, record.levelno, record.getMessage()))


def _preflight(job: Job, check: bool) -> tuple[str, str, Any]:
    """The PDF's preflight key if it passes, else "" (the build's check of the staging folder then reports why);
    the PDF's SHA-256 and its placement (``preflight.placed``).  ``check`` False: nothing (not asked for)."""
    import hashlib

    if not check:
        return "", "", None
    from rulepress.publish import preflight
    from rulepress.render.languages import untranslated

    book = job.printing.check.book
    # A complete translation's player editions are held to its language's fixed words (the designer's parts are
    # in English); as preflight_staged does.
    lang = job.lang if job.lang and job.edition != "designer" and not untranslated(job.printing.check) else None
    data = job.target.read_bytes()
    with account.part("preflight: PDFs read back and checked"):
        findings, placement = preflight.preflight_read(job.target, job.edition, book, lang, data)
    passed = "" if findings else preflight_key(data, preflight.label(job.edition, book, lang))
    return passed, hashlib.sha256(data).hexdigest(), placement


def _work(index: int, epoch: int, captured: bool, check: bool = False,
          impact: dict[str, Any] | None = None) -> Done | BaseException:
    """Render job ``index`` (in a worker, or in the build's process when ``captured`` is False); ``check``: and
    preflight it there, where it runs in parallel with the other PDFs rather than after all of them.  ``impact``:
    a designer edition's question impact, worked out after the worker was forked (see ``render_editions``)."""
    global _READY
    if captured and not _READY:  # a worker's first job: what it took to be ready for it
        _READY = True
        with account.part("PDF workers: start-up (fork, WeasyPrint imported)"):
            account.add({"PDF workers: start-up (fork, WeasyPrint imported)": time.process_time()})
            pdf.weasyprint  # noqa: B018  (imported in the worker: the build's process need not load it)
    job = _JOBS[index]
    if captured and _STARTED is not None:
        _STARTED[index] = os.getpid()  # if this worker dies, the build can say which edition it was making
    if impact is not None:
        job.printing.impact = impact
    handler = _Captured()
    logger = logging.getLogger("weasyprint")
    if captured:
        logger.addHandler(handler)
    start = time.perf_counter()
    try:
        split: dict[str, float] = {}
        screen = _JOBS[job.digital] if job.digital is not None else None
        if screen is not None and captured and _STARTED is not None:
            _STARTED[job.digital] = os.getpid()
        digital = pdf.Digital(screen.printing, screen.target) if screen is not None else None
        with account.part("PDF: the rest of a job (fetcher, fonts' scratch folder, log)"):
            # Dated with the sources' date, not the clock's, and identified by its name: a cached PDF and a fresh
            # one are the same bytes (only a print edition, PDF/X, carries either).
            job.printing.stamp = pdf.Stamp(epoch, job.name)
            pages = pdf.write_pdf(job.printing, job.target, split, digital)
            assert job.printing.layout is not None
            passed, digest, placement = _preflight(job, check)
            made = None
            if screen is not None and digital is not None:
                assert screen.printing.layout is not None
                seconds = sum(digital.timing.values())
                passed_too, digest_too, placement_too = _preflight(screen, check)
                made = Done(digital.pages, screen.printing.layout, digital.timing.get("own", 0.0),
                            digital.timing.get("tool", 0.0), seconds, passed=passed_too, digest=digest_too,
                            placement=placement_too)
        seconds = time.perf_counter() - start - (made.seconds if made is not None else 0.0)
        return Done(pages, job.printing.layout, split.get("own", 0.0), split.get("tool", 0.0), seconds,
                    tuple(handler.seen), passed=passed, digest=digest, placement=placement,
                    cpu=account.taken() if captured else {},
                    worker=(os.getpid(), time.process_time()) if captured else (0, 0.0), digital=made)
    except BaseException as exc:  # returned, not raised: one that does not pickle would break the pool
        named = _named(job, exc)
        if not captured:
            if named is exc:
                raise
            raise named from exc
        exc = named
        try:
            pickle.loads(pickle.dumps(exc))
            return exc
        except Exception:  # an exception that does not survive pickling is told by its text
            return RuntimeError(f"{type(exc).__name__}: {exc}")
    finally:
        logger.removeHandler(handler)


def _named(job: Job, exc: BaseException) -> BaseException:
    """A failure while rendering ``job`` as the build reports it: WeasyPrint's (or the renderer's) own words, with
    the PDF and the book it concerns.  The build's own refusals, a refused fetch (build.py names it) and interrupts
    pass as they are."""
    from rulepress.errors import BuildRefused, SourceError

    urls = sys.modules.get("weasyprint.urls")
    if not isinstance(exc, Exception) or isinstance(exc, BuildRefused) or (
            urls is not None and isinstance(exc, urls.FatalURLFetchingError)):
        return exc
    if isinstance(exc, SourceError):
        return BuildRefused([str(exc)])
    if isinstance(exc, OSError):  # a full disk, a permission: the file it hit, whoever's code hit it
        return BuildRefused([edition_failure(job, exc)])
    frames = traceback.extract_tb(exc.__traceback__)
    tool = "WeasyPrint" if any(f"{os.sep}weasyprint{os.sep}" in frame.filename for frame in frames) else "rendering"
    book = job.printing.check.book.path("book.yaml")
    return BuildRefused([f"pdf/{job.name}.pdf ({book}): {tool}: {type(exc).__name__}: {exc}"])


def _quiet_worker(parent: int) -> None:
    account.taken()  # the build's account, as forked: not this worker's
    # Ctrl-C reaches the whole process group: the build's process decides, and terminates the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # A build killed outright (SIGKILL) cannot end its workers: the kernel does, so none writes into a staging
    # folder after the next build swept it.
    libc = ctypes.util.find_library("c")
    if libc is not None:
        ctypes.CDLL(libc, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the build died before the line above took effect
        os._exit(1)


# The designer's parts: about half a book more; a print job writes its digital edition too (from its layout).
_EDITION_WEIGHT = {"print": 1.4, "designer": 1.5}


def _length(job: Job) -> float:
    """A rough measure of an edition's length in print: its rules' text, and about a third of a page per diagram."""
    check = job.printing.check
    return _EDITION_WEIGHT[job.edition] * (sum(len(rule.body) for rule in check.book.rules.values()) + 1000 * sum(
        len(result.checkpoints) for result in check.results))


class Alongside:
    """``work()`` in a process of its own (forked now) while this one goes on: the build's site (mkdocs, one core's
    work) is made while the PDFs render.  ``result()`` waits and returns its value or raises its exception (a
    :class:`~rulepress.errors.BuildRefused` with its problems); ``check()`` raises it early when it has failed.

    ``inline``: ``work()`` runs here and now instead (one core, or tests that count calls in this process).
    """

    def __init__(self, work: Callable[[], Any], inline: bool = False, name: str = "site") -> None:
        self.name = name  # what the process makes, for its error message
        self.process: multiprocessing.process.BaseProcess | None = None
        self.outcome: tuple[str, Any] | None = None
        if inline:
            self.outcome = self._run(work)
            return
        context = multiprocessing.get_context("fork")
        self.reader, writer = context.Pipe(duplex=False)
        parent = os.getpid()

        def child() -> None:
            _quiet_worker(parent)  # dies with the build, leaves Ctrl-C to it
            with account.part(f"{name}: its process (fork, what its parts do not name)"):
                outcome = self._run(work)
            taken = account.taken()
            taken[f"{name}: its process (fork, what its parts do not name)"] += time.process_time() - sum(
                taken.values())  # the CPU before the part began: the fork
            writer.send((*outcome, taken))
            writer.close()

        self.process = context.Process(target=child, daemon=True)
        self.process.start()
        writer.close()

    @staticmethod
    def _run(work: Callable[[], Any]) -> tuple[str, Any]:
        from rulepress.errors import BuildRefused

        try:
            return "value", work()
        except BuildRefused as exc:  # its problems, not its text, are what the build reports
            return "refused", exc.problems
        except Exception as exc:  # told by its type and text: it may not survive pickling
            return "error", f"{type(exc).__name__}: {exc}"

    def _receive(self, wait: bool) -> tuple[str, Any] | None:
        if self.outcome is None and self.process is not None and (wait or self.reader.poll()):
            try:
                kind, value, taken = self.reader.recv()
                account.add(taken)
                self.outcome = (kind, value)
            except EOFError:  # killed, or died without a word
                self.process.join()
                self.outcome = ("error", f"the {self.name}'s process ended with exit code {self.process.exitcode}")
            self.process.join()
        return self.outcome

    def _raise(self, outcome: tuple[str, Any]) -> Any:
        from rulepress.errors import BuildRefused

        kind, value = outcome
        if kind == "refused":
            raise BuildRefused(value)
        if kind == "error":  # as the build reports a failure of its own process
            raise BuildRefused([f"rendering failed: {value}"])
        return value

    def done(self) -> bool:
        """Whether ``result()`` would answer at once."""
        return self._receive(wait=False) is not None

    def check(self) -> None:
        outcome = self._receive(wait=False)
        if outcome is not None and outcome[0] != "value":
            self._raise(outcome)

    def result(self) -> Any:
        outcome = self._receive(wait=True)
        assert outcome is not None
        return self._raise(outcome)

    def stop(self) -> None:
        """End the process if it still runs (the build failed or was interrupted meanwhile)."""
        if self.process is not None and self.process.is_alive():
            self.process.terminate()
            self.process.join()


def _dead_workers(pool: ProcessPoolExecutor | None) -> dict[int, int]:
    """pid -> exit code of the pool's workers that have ended (asked as the pool breaks)."""
    processes = list((getattr(pool, "_processes", None) or {}).items())  # None once shut down
    ended = set(multiprocessing.connection.wait([process.sentinel for _, process in processes], timeout=0))
    dead = {}
    for pid, process in processes:
        if process.sentinel in ended:
            process.join(timeout=5)  # its pipe closes a moment before the kernel has its exit code
        if process.exitcode is not None:
            dead[pid] = process.exitcode
    return dead


def _died(jobs: list[Job], results: dict[int, Done], died: WorkerDied) -> list[str]:
    """Which editions a dead worker was making (from the pids the workers noted), one line each."""
    lines = []
    for index, job in enumerate(jobs):
        pid = _STARTED[index] if _STARTED is not None else 0
        if index not in results and pid in died.dead:
            lines.append(f"pdf {job.name} ({job.edition} edition of {job.printing.check.book.id}): the worker "
                         f"process rendering it {_ending(died.dead[pid])}; nothing was published")
    if not lines:
        codes = ", ".join(_ending(code) for code in died.dead.values()) or "ended"
        unfinished = ", ".join(job.name for index, job in enumerate(jobs) if index not in results)
        lines.append(f"pdf: a worker process {codes} before it took a job (unfinished: {unfinished})")
    return lines


def _jobs(report: Report, impacts: dict[str, Any], staging: Path, folder: str = "pdf") -> list[Job]:
    from rulepress.render.languages import pdf_name, translations

    jobs = []
    # Each book in its source language, then each translation (<book>-<lang>...): the same drawings serve both.
    books = [(check, None) for check in report.books]
    books += [(check, lang) for lang, checks in translations(report).items() for check in checks]
    for check, lang in books:
        book_id = check.book.id
        diagrams = staging / book_id / "diagrams"
        diagrams.mkdir(parents=True, exist_ok=True)
        at = {}
        for edition in pdf.EDITIONS:
            at[edition] = len(jobs)
            name = pdf_name(book_id, lang) + pdf.SUFFIX[edition]
            printing = pdf.PrintInput(check, diagrams, impact=impacts.get(book_id) if edition == "designer" else None,
                                      edition=edition)
            jobs.append(Job(name, edition, staging / folder / f"{name}.pdf", printing, lang))
        jobs[at["print"]].digital = at["digital"]
    return jobs


def render_editions(report: Report, impacts: dict[str, Any], staging: Path, timings: Any,
                    workers: int | None = None, store: Store | None = None, preflight: bool = True,
                    folder: str = "pdf", check_alongside: Callable[[], None] | None = None,
                    designer_impacts: Callable[[], dict[str, Any] | None] | None = None) -> None:
    """Every edition of every book (:func:`rulepress.render.pdf.write_pdf`; a print edition with its digital one,
    made from its layout), in parallel and cached: the same bytes whichever way they are made.

    ``timings`` is the build's ``Timings``: seconds per PDF are each edition's own rendering time (and its
    preflight's, when ``preflight``: each new PDF is read back by its worker, and a pass is cached for the
    build's check of the staging folder).  The PDFs go to ``staging/folder``.

    ``check_alongside()`` raises the failure of what the build makes meanwhile (its site); it is called before
    the first PDF and after each.  ``designer_impacts()``: the question impacts are still being worked out (a
    cold build does that while the player editions render); it is polled, and returns them once they are there,
    and the designer editions wait for them.
    """
    if not report.books:
        return
    root = report.books[0].book.root
    patches.in_force()  # said once, here, rather than by each worker
    with _temporary_files_in(root):
        jobs = _jobs(report, impacts, staging, folder)
        (staging / folder).mkdir(parents=True, exist_ok=True)
        editions = _Editions(jobs, store or Store(root), source_epoch(root), workers or workers_wanted(len(jobs)),
                             preflight, check_alongside or (lambda: None), designer_impacts)
        editions.run()
    editions.record(timings)


@contextmanager
def _temporary_files_in(root: Path) -> Iterator[None]:
    """Point ``tempfile`` (here and in the workers forked meanwhile) at a folder in the project's staging area:
    what a killed worker leaves there (WeasyPrint's font copies) the next build's sweep removes."""
    import secrets
    import shutil
    import tempfile

    from rulepress.publish.lock import cache_dir

    area = cache_dir(root) / "staging"
    area.mkdir(parents=True, exist_ok=True)
    folder = area / f"tmp-{os.getpid()}-{secrets.token_hex(4)}"
    folder.mkdir()
    saved = tempfile.tempdir
    tempfile.tempdir = str(folder)
    try:
        yield
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(folder, ignore_errors=True)


class _Editions:
    """One :func:`render_editions`: which jobs wait, which run, which are done, and the pool they run in.

    A job is reused from the cache or rendered: in the pool's worker processes, the longest first and never more
    at once than there are workers (so that the last to finish are short ones), or, with one worker, here, one at
    a time.  A print job brings its digital edition with it.  Designer jobs are held until their question
    impacts arrive (``designer_impacts``)."""

    def __init__(self, jobs: list[Job], store: Store, epoch: int, workers: int, preflight: bool,
                 check_alongside: Callable[[], None],
                 designer_impacts: Callable[[], dict[str, Any] | None] | None) -> None:
        self.jobs, self.store, self.epoch, self.workers, self.preflight = jobs, store, epoch, workers, preflight
        self.check_alongside = check_alongside
        self.designer_impacts = designer_impacts
        self.results: dict[int, Done] = {}
        self.landed: queue.Queue[tuple[int, Done | BaseException, str]] = queue.Queue()
        self.keys: dict[int, str] = {}  # each job's cache key, once looked up
        self.digital = {job.digital for job in jobs if job.digital is not None}  # made with their print jobs
        self.held = [index for index, job in enumerate(jobs)
                     if job.edition == "designer"] if designer_impacts is not None else []
        self.late: set[int] = set()  # the held ones, once released: forked before their impact was there
        self.pending = self._longest_first([index for index in range(len(jobs))
                                            if index not in self.held and index not in self.digital])
        self.here: list[tuple[int, str]] = []  # (job, cache key) to render in this process, with one worker
        self.running = 0  # jobs in the workers
        self.pool = _Pool(workers, self.landed) if workers > 1 else None
        self.spent: dict[int, float] = {}  # each worker's CPU time when it sent its last job back
        self.parts: dict[int, float] = {}  # the part of it its jobs' accounts name

    def _longest_first(self, indexes: list[int]) -> list[int]:
        return sorted(indexes, key=lambda index: -_length(self.jobs[index])) if self.workers > 1 else indexes

    def run(self) -> None:
        global _JOBS, _STARTED
        _JOBS = self.jobs
        _STARTED = multiprocessing.get_context("fork").RawArray("q", len(self.jobs)) if self.pool else None
        shown = progress.bar(len(self.jobs), "PDF editions", unit="pdf")
        try:
            self.check_alongside()
            if self.held and self.pool is None:  # nothing to do meanwhile in this process
                self._wait_for_impacts()
            self._fill()
            while len(self.results) < len(self.jobs):
                self._release_if_impacts_arrived()
                self._render_one_here()
                try:
                    index, done, key = self.landed.get(timeout=0.05 if self.held else None)
                except queue.Empty:
                    self.check_alongside()
                    continue
                self._land(index, done, key)
                shown.update()
                self.check_alongside()
                self._cache_results(index, self.results[index], key)
                self._fill()
            if self.pool is not None:
                self.pool.shut_down()
            account.add({"PDF workers: between jobs (the pool's plumbing, results sent back)":
                         sum(self.spent[pid] - self.parts[pid] for pid in self.spent)})
        finally:
            shown.close()
            if self.pool is not None:
                self.pool.end()  # an error or an interrupt: no worker outlives the build
            _JOBS, _STARTED = [], None

    # -- what runs next ------------------------------------------------------------------------------------------

    def _fill(self) -> None:
        while self.pending and (self.pool is None or self.running < self.workers):
            self.running += self._start(self.pending.pop(0))

    def _start(self, index: int) -> bool:
        """Reuse job ``index`` from the cache, or queue it; True when it went to a worker.  A print job and its
        digital edition's are reused together or made together (the digital one from its layout)."""
        begun = time.perf_counter()
        job = self.jobs[index]
        kept = {one: self._looked_up(one) for one in ([index] if job.digital is None else [index, job.digital])}
        if all(data is not None for data in kept.values()):
            for one, data in kept.items():
                assert data is not None
                self._reuse(one, data, time.perf_counter() - begun)
            return False
        if self.pool is None:  # rendered in the loop, one at a time, so that check_alongside() comes after each
            self.here.append((index, self.keys[index]))
            return False
        impact = self.jobs[index].printing.impact if index in self.late else None
        self.pool.submit(index, self.keys[index], self.epoch, self.preflight, impact)
        return True

    def _looked_up(self, index: int) -> tuple[bytes, dict[str, Any]] | None:
        job = self.jobs[index]
        with account.part("cache: PDF keys (each edition's HTML) and kept PDFs looked up"):
            inputs = edition_inputs(job.printing.check, job.name, job.printing.impact)
            key = self.keys[index] = pdf_key(inputs, job.edition, None, job.printing.check.book, self.epoch)
            return get_pdf(self.store, key)

    def _reuse(self, index: int, kept: tuple[bytes, dict[str, Any]], seconds: float) -> None:
        data, meta = kept
        self.jobs[index].target.write_bytes(data)
        layout = pdf.Layout(meta["layout"]["gutter_mm"], meta["layout"]["index_pages"])
        self.landed.put((index, Done(meta["pages"], layout, seconds=seconds, reused=True), self.keys[index]))

    def _render_one_here(self) -> None:
        if self.here and self.landed.empty():
            index, key = self.here.pop(0)
            try:
                self.landed.put((index, _work(index, self.epoch, False, self.preflight), key))
            except OSError as exc:  # a full disk, a folder it may not write: the edition and the file
                raise BuildRefused([edition_failure(self.jobs[index], exc)]) from exc

    # -- the designer editions' impacts --------------------------------------------------------------------------

    def _wait_for_impacts(self) -> None:
        assert self.designer_impacts is not None
        while (found := self.designer_impacts()) is None:
            self.check_alongside()
            time.sleep(0.05)
        self._release(found)

    def _release_if_impacts_arrived(self) -> None:
        if self.held and self.designer_impacts is not None and (found := self.designer_impacts()) is not None:
            self._release(found)
            self._fill()

    def _release(self, impacts: dict[str, Any]) -> None:
        for index in self.held:
            self.jobs[index].printing.impact = impacts.get(self.jobs[index].printing.check.book.id)
        self.late.update(self.held)
        self.pending = self._longest_first(self.pending + self.held)
        self.held = []

    # -- what came back ------------------------------------------------------------------------------------------

    def _land(self, index: int, done: Done | BaseException, key: str) -> None:
        """A job's result (or failure) as it came back: refused, or recorded with its logs and CPU account."""
        if isinstance(done, WorkerDied):
            raise BuildRefused(_died(self.jobs, self.results, done)) from None
        if isinstance(done, OSError):
            raise BuildRefused([edition_failure(self.jobs[index], done)]) from done
        if isinstance(done, BaseException):
            raise done
        digital = self.jobs[index].digital
        if done.digital is not None and digital is not None:  # the print job's digital edition: landed with it
            self.landed.put((digital, done.digital, self.keys[digital]))
        account.add(done.cpu)
        if done.worker[0]:  # what the worker spent beyond its jobs' parts: the pool's plumbing
            pid, total = done.worker
            self.spent[pid] = total
            self.parts[pid] = self.parts.get(pid, 0.0) + sum(done.cpu.values())
        if self.pool is not None and not done.reused and index not in self.digital:
            self.running -= 1
        for name, level, message in done.logs:
            logging.getLogger(name).log(level, "%s", message)
        self.results[index] = done

    def _cache_results(self, index: int, done: Done, key: str) -> None:
        """What a job made kept for the next build: its preflight's pass, where its objects are, the PDF."""
        if done.passed:
            preflight_passed(done.passed, self.store)
        if done.placement is not None:
            placed(done.digest, done.placement)
        if not done.reused:
            with account.part("cache: PDFs kept"):
                put_pdf(self.store, key, self.jobs[index].target,
                        {"pages": done.pages, "layout": {"gutter_mm": done.layout.gutter_mm,
                                                         "index_pages": done.layout.index_pages}})

    def record(self, timings: Any) -> None:
        """Each edition's layout, seconds and pages into the jobs and the build's ``timings``, in the order the
        one-at-a-time loop reports them."""
        for index, job in enumerate(self.jobs):
            done = self.results[index]
            job.printing.layout = done.layout
            timings.pdf[job.name] = done.seconds
            timings.pages[job.name] = done.pages
            timings.own += done.own
            timings.tools += done.tool


class _Pool:
    """The worker processes, forked at the first job the cache lacks (a full hit forks nothing): processes, not a
    ``multiprocessing.Pool``, so that one that dies fails the build rather than hangs it.  What each job comes back
    with (or the failure it came to) goes to ``landed``."""

    def __init__(self, workers: int, landed: queue.Queue[tuple[int, Done | BaseException, str]]) -> None:
        self.workers = workers
        self.landed = landed
        self.executor: ProcessPoolExecutor | None = None
        self.closed = False

    def submit(self, index: int, key: str, epoch: int, preflight: bool, impact: dict[str, Any] | None) -> None:
        """Job ``index`` (``_work``) to a worker, forking them first if need be."""
        if self.executor is None:
            self.executor = ProcessPoolExecutor(self.workers, multiprocessing.get_context("fork"), _quiet_worker,
                                                (os.getpid(),))
        executor = self.executor

        def landed(future: Future[Done | BaseException]) -> None:
            try:
                self.landed.put((index, future.result(), key))
            except BrokenProcessPool:  # called as the pool breaks, before it ends the other workers
                self.landed.put((index, WorkerDied(_dead_workers(executor)), key))
            except BaseException as exc:  # cancelled
                self.landed.put((index, exc, key))

        try:
            future = executor.submit(_work, index, epoch, True, preflight, impact)
        except BrokenProcessPool:  # a worker died while the jobs were handed out: as if this one had landed
            self.landed.put((index, WorkerDied(_dead_workers(executor)), key))
            return
        future.add_done_callback(landed)

    def shut_down(self) -> None:
        if self.executor is not None:
            self.executor.shutdown()
        self.closed = True

    def end(self) -> None:
        if self.executor is None or self.closed:
            return
        workers = list(getattr(self.executor, "_processes", {}).values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
            worker.join()
