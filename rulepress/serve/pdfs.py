"""A book's PDFs after each good preview build, in a process of their own so the preview stays quick.

The child verifies the book again (its replays come from the cache) and renders its editions (reused from
the cache when unchanged) into a scratch folder; when it succeeds the PDFs replace the previous ones in the
session's ``pdf/`` folder, which every preview site links to.  A newer change to the same book stops the
older job: its PDFs would be stale on arrival.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path


def render_book(root: Path, book: str, out: Path) -> int:
    """The child's work: 0 and the book's PDFs in ``out/pdf``, or 1 and the problems on stderr."""
    from rulepress.analyze.impact import cached_impacts
    from rulepress.publish.build import Timings
    from rulepress.publish.pdfpool import render_editions
    from rulepress.verify.gate import verify

    report = verify(root, [book], draw=True)
    if not report.ok:
        for problem in report.failures():
            print(problem, file=sys.stderr)
        return 1
    impacts = {check.book.id: cached_impacts(root, check) for check in report.books}
    # One core: the preview keeps the other.  No preflight: a preview's PDFs are not published (a build checks its own).
    render_editions(report, impacts, out, Timings(), workers=1, preflight=False)
    return 0


class Background:
    """At most one PDF job per book; ``done(book)`` is called (from a waiting thread) when one succeeds."""

    def __init__(self, root: Path, folder: Path, say: Callable[[str], None], done: Callable[[str], None]) -> None:
        self.root = root
        self.folder = folder  # pdf/ holds the latest good PDFs; jobs write under pdf-jobs/
        self.say = say
        self.done = done
        self.running: dict[str, subprocess.Popen[bytes]] = {}
        self.lock = threading.Lock()
        self.numbers = itertools.count(1)
        self.waiting: list[threading.Thread] = []  # each job's waiter, which removes its scratch folder

    @property
    def pdfs(self) -> Path:
        return self.folder / "pdf"

    def start(self, book: str) -> None:
        with self.lock:
            old = self.running.pop(book, None)
            if old is not None:
                old.terminate()
            out = self.folder / "pdf-jobs" / f"{book}-{next(self.numbers)}"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            job = subprocess.Popen([sys.executable, "-m", "rulepress.serve.pdfs", str(self.root), book, str(out)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            self.running[book] = job
        waiter = threading.Thread(target=self._wait, args=(book, job, out), daemon=True)
        waiter.start()
        with self.lock:
            self.waiting = [thread for thread in self.waiting if thread.is_alive()] + [waiter]

    def _wait(self, book: str, job: subprocess.Popen[bytes], out: Path) -> None:
        _, errors = job.communicate()
        with self.lock:
            current = self.running.get(book) is job
            if current:
                self.running.pop(book)
        try:
            if not current:  # stopped for a newer change, or the session is ending
                return
            if job.returncode != 0:
                self.say(f"PDFs of {book} not made:")
                for line in errors.decode(errors="replace").strip().splitlines()[-20:]:
                    self.say(f"  - {line}")
                return
            self.pdfs.mkdir(parents=True, exist_ok=True)
            for made in sorted((out / "pdf").glob("*.pdf")):
                os.replace(made, self.pdfs / made.name)
            self.say(f"PDFs of {book} ready")
            self.done(book)
        finally:
            shutil.rmtree(out, ignore_errors=True)

    def stop(self) -> None:
        with self.lock:
            jobs, self.running = list(self.running.values()), {}
        for job in jobs:
            job.terminate()
            job.wait(timeout=30)
        with self.lock:
            waiting, self.waiting = self.waiting, []
        for waiter in waiting:  # their scratch folders are gone when the session is
            waiter.join(timeout=30)


def link_pdfs(source: Path, site: Path) -> None:
    """Put the latest PDFs into a preview site (hard links: they are never rewritten in place)."""
    if not source.is_dir():
        return
    target = site / "pdf"
    target.mkdir(parents=True, exist_ok=True)
    for made in source.glob("*.pdf"):
        (target / made.name).unlink(missing_ok=True)
        try:
            os.link(made, target / made.name)
        except OSError:
            shutil.copy(made, target / made.name)


def main(argv: list[str]) -> int:
    from rulepress.errors import SourceError

    sys.dont_write_bytecode = True  # the engines' folders are watched: no bytecode written into them
    try:
        return render_book(Path(argv[0]), argv[1], Path(argv[2]))
    except SourceError as exc:
        print(str(exc), file=sys.stderr)
    except Exception as exc:  # the parent prints this line: a message, not a traceback
        print(f"rendering failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
