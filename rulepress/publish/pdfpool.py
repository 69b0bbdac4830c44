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
import uuid
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


@contextmanager
def reproducible(epoch: int, name: str) -> Iterator[None]:
    """WeasyPrint stamps PDF/X files with the time and a random document ID: make both follow the sources.

    The date is :func:`~rulepress.publish.pdfstore.source_epoch`, the ID a UUID derived from the edition's name,
    so a cached PDF and a fresh one are the same bytes.
    """
    from weasyprint.pdf import metadata, pdfx

    saved = pdfx.localtime, metadata.uuid4
    pdfx.localtime = lambda *_: time.gmtime(epoch)  # type: ignore[assignment]
    metadata.uuid4 = lambda: uuid.uuid5(uuid.NAMESPACE_URL, f"rulepress:{name}:{epoch}")  # type: ignore[assignment]
    try:
        yield
    finally:
        pdfx.localtime, metadata.uuid4 = saved  # type: ignore[assignment]


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
            # The digital edition is written in the print edition's ``reproducible``: its date; the ID it sets is
            # PDF/X's, which only the print edition has.
            with reproducible(epoch, job.name):
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
                    folder: str = "pdf", between: Callable[[], None] | None = None,
                    later: Callable[[], dict[str, Any] | None] | None = None) -> None:
    """Every edition of every book (:func:`rulepress.render.pdf.write_pdf`; a print edition with its digital one,
    made from its layout), in parallel and cached: the same bytes whichever way they are made.

    ``timings`` is the build's ``Timings``: seconds per PDF are each edition's own rendering time (and its
    preflight's, when ``preflight``: each new PDF is read back by its worker, and a pass is remembered for the
    build's check of the staging folder).  The PDFs go to ``staging/folder``; ``between()`` is called before
    the first and after each PDF (the build stops there when its site, made meanwhile, failed).

    ``later``: the question impacts are still being worked out (a cold build does that while the player editions
    render); it is polled, and returns them once they are there.  The designer editions wait for them.
    """
    if not report.books:
        return
    root = report.books[0].book.root
    with _temporary_files_in(root):
        _render_editions(report, impacts, staging, timings, workers, store, preflight, folder, between, root, later)


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


def _render_editions(report: Report, impacts: dict[str, Any], staging: Path, timings: Any, workers: int | None,
                     store: Store | None, preflight: bool, folder: str, between: Callable[[], None] | None,
                     root: Path, later: Callable[[], dict[str, Any] | None] | None = None) -> None:
    global _JOBS, _STARTED
    store = store or Store(root)
    epoch = source_epoch(root)
    jobs = _jobs(report, impacts, staging, folder)
    (staging / folder).mkdir(parents=True, exist_ok=True)
    between = between or (lambda: None)
    between()
    results: dict[int, Done] = {}
    finished: queue.Queue[tuple[int, Done | BaseException, str]] = queue.Queue()
    count = workers or workers_wanted(len(jobs))
    _JOBS = jobs
    _STARTED = multiprocessing.get_context("fork").RawArray("q", len(jobs)) if count > 1 else None
    pool: ProcessPoolExecutor | None = None  # forked at the first PDF the cache lacks: a full hit forks nothing
    closed = False
    shown = progress.bar(len(jobs), "PDF editions", unit="pdf")
    waiting: list[tuple[int, str]] = []  # (job, cache key) to render in this process, with one worker
    # Designer editions wait for the question impacts when they are still being worked out (``later``).
    held = [index for index, job in enumerate(jobs) if job.edition == "designer"] if later is not None else []
    late: set[int] = set()  # the held ones, once released: their workers were forked before their impact was there
    poll = later or (lambda: {})
    keys: dict[int, str] = {}  # each job's cache key, once looked up
    digital = {job.digital for job in jobs if job.digital is not None}  # made with their print jobs
    running = 0  # jobs in the pool's workers: never more than there are workers, so that the longest go first
    spent: dict[int, float] = {}  # each worker's CPU time when it sent its last job back
    parts: dict[int, float] = {}  # the part of it its jobs' accounts name

    def length(index: int) -> float:
        return -_length(jobs[index])

    try:
        def looked_up(index: int) -> tuple[str, Any]:
            job = jobs[index]
            with account.part("cache: PDF keys (each edition's HTML) and kept PDFs looked up"):
                inputs = edition_inputs(job.printing.check, job.name, job.printing.impact)
                key = pdf_key(inputs, job.edition, None, job.printing.check.book, epoch)
                keys[index] = key
                return key, get_pdf(store, key)

        def start(index: int) -> bool:
            """Reuse job ``index`` from the cache, or queue it; True when it went to a worker.  A print job and
            its digital edition's are reused together or made together (the digital one from its layout)."""
            nonlocal pool
            job = jobs[index]
            begun = time.perf_counter()
            key, kept = looked_up(index)
            pair = [(index, key, kept)]
            if job.digital is not None:
                pair.append((job.digital, *looked_up(job.digital)))
            if all(kept is not None for _, _, kept in pair):
                for one, key, (data, meta) in pair:
                    jobs[one].target.write_bytes(data)
                    layout = pdf.Layout(meta["layout"]["gutter_mm"], meta["layout"]["index_pages"])
                    finished.put((one, Done(meta["pages"], layout, seconds=time.perf_counter() - begun,
                                            reused=True), key))
                return False
            if count == 1:  # rendered in the loop below, one at a time, so that between() comes after each
                waiting.append((index, key))
                return False
            if pool is None:  # processes, not a multiprocessing.Pool: one that dies fails the build, not hangs it
                pool = ProcessPoolExecutor(count, multiprocessing.get_context("fork"), _quiet_worker, (os.getpid(),))

            def landed(future: Future[Done | BaseException]) -> None:
                try:
                    finished.put((index, future.result(), key))
                except BrokenProcessPool:  # called as the pool breaks, before it ends the other workers
                    finished.put((index, WorkerDied(_dead_workers(pool)), key))
                except BaseException as exc:  # cancelled
                    finished.put((index, exc, key))

            impact = job.printing.impact if index in late else None  # worked out after the workers were forked
            try:
                future = pool.submit(_work, index, epoch, True, preflight, impact)
            except BrokenProcessPool:  # a worker died while the jobs were handed out: as if this one had landed
                finished.put((index, WorkerDied(_dead_workers(pool)), key))
                return True
            future.add_done_callback(landed)
            return True

        def fill() -> None:
            nonlocal running
            while pending and (count == 1 or running < count):
                running += start(pending.pop(0))

        def release(found: dict[str, Any]) -> None:
            for index in held:
                jobs[index].printing.impact = found.get(jobs[index].printing.check.book.id)
            late.update(held)
            pending[:] = sorted(pending + held, key=length) if count > 1 else pending + held
            held.clear()

        # In parallel the longest first: the last to finish are then short ones, and the workers end close together.
        pending = [index for index in range(len(jobs)) if index not in held and index not in digital]
        if count > 1:
            pending.sort(key=length)
        if held and count == 1:  # nothing to do meanwhile in this process
            while (found := poll()) is None:
                between()
                time.sleep(0.05)
            release(found)
        fill()
        while len(results) < len(jobs):
            if held and (found := poll()) is not None:
                release(found)
                fill()
            if waiting and finished.empty():
                index, key = waiting.pop(0)
                try:
                    finished.put((index, _work(index, epoch, False, preflight), key))
                except OSError as exc:  # a full disk, a folder it may not write: the edition and the file
                    raise BuildRefused([edition_failure(jobs[index], exc)]) from exc
            try:
                index, done, key = finished.get(timeout=0.05 if held else None)
            except queue.Empty:
                between()
                continue
            if isinstance(done, WorkerDied):
                raise BuildRefused(_died(jobs, results, done)) from None
            if isinstance(done, OSError):
                raise BuildRefused([edition_failure(jobs[index], done)]) from done
            if isinstance(done, BaseException):
                raise done
            if done.digital is not None:  # the print job's digital edition: landed with it
                finished.put((jobs[index].digital, done.digital, keys[jobs[index].digital]))  # type: ignore[index]
            account.add(done.cpu)
            if done.worker[0]:  # what the worker spent beyond its jobs' parts: the pool's plumbing
                pid, total = done.worker
                spent[pid] = total
                parts[pid] = parts.get(pid, 0.0) + sum(done.cpu.values())
            if count > 1 and not done.reused and index not in digital:
                running -= 1
            for name, level, message in done.logs:
                logging.getLogger(name).log(level, "%s", message)
            results[index] = done
            shown.update()
            between()
            if done.passed:
                preflight_passed(done.passed, store)
            if done.placement is not None:
                placed(done.digest, done.placement)
            if not done.reused:
                with account.part("cache: PDFs kept"):
                    put_pdf(store, key, jobs[index].target,
                            {"pages": done.pages, "layout": {"gutter_mm": done.layout.gutter_mm,
                                                             "index_pages": done.layout.index_pages}})
            fill()
        if pool is not None:
            pool.shutdown()
            closed = True
        account.add({"PDF workers: between jobs (the pool's plumbing, results sent back)":
                     sum(spent[pid] - parts[pid] for pid in spent)})
    finally:
        shown.close()
        if pool is not None and not closed:  # an error or an interrupt: no worker outlives the build
            workers = list(getattr(pool, "_processes", {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for worker in workers:
                worker.terminate()
                worker.join()
        _JOBS, _STARTED = [], None
    for index, job in enumerate(jobs):  # in the order the one-at-a-time loop reports them
        done = results[index]
        job.printing.layout = done.layout
        timings.pdf[job.name] = done.seconds
        timings.pages[job.name] = done.pages
        timings.own += done.own
        timings.tools += done.tool
