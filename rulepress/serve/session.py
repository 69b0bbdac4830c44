"""One ``rulepress serve`` session: the last good check of every book, the problems of each, the site built
from them; on a change, only the books it reaches are verified again and the site is rebuilt."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rulepress.analyze.impact import cached_impacts
from rulepress.errors import BuildRefused, SourceError
from rulepress.load import site_folders
from rulepress.load.book import book_ids
from rulepress.publish.incremental import Renderer
from rulepress.serve import banner, watcher
from rulepress.serve.pdfs import Background, link_pdfs
from rulepress.verify.engines import Kept, forget_engine, restore_engine
from rulepress.verify.gate import BookCheck, Report, verify

SITE = ""  # the problems key of the site itself (mkdocs, the theme's templates), which belong to no book
PROJECT = "rules_src"  # and of the list of books (a folder no book can be named after: books live inside it)
_EMPTY = ("<!doctype html><html><head><meta charset=\"utf-8\"><title>rulepress serve</title></head><body>"
          "<h1>No good build yet</h1><p>Fix the problems above; this page reloads by itself.</p></body></html>")


def _discard(site: Path) -> None:
    """Remove a site no longer served: renamed away at once, deleted by a thread of its own (hundreds of files,
    which the author need not wait for)."""
    trash = site.with_name(f".old-{site.name}-{time.monotonic_ns()}")
    try:
        site.rename(trash)
    except OSError:
        shutil.rmtree(site, ignore_errors=True)
        return
    threading.Thread(target=shutil.rmtree, args=(trash,), kwargs={"ignore_errors": True}, daemon=True).start()


class Session:
    def __init__(self, root: Path, folder: Path, only: list[str] | None = None,
                 say: Callable[[str], None] = print, pdfs: bool = False) -> None:
        self.root = root.resolve()
        self.folder = folder
        self.only = only or None
        self.say = say
        self.checks: dict[str, BookCheck] = {}  # the last good check of each book
        self.problems: dict[str, list[str]] = {}  # book id (or SITE) -> its problems now, as the CLI prints them
        self.stamp: watcher.Stamp = {}
        self.stale: set[str] = set()  # engines whose code on disk failed: their last good modules stand in
        self.site: Path = folder / "site-0"
        self.previous: Path | None = None  # the site served before self.site, kept until the next swap
        self.generation = 0
        self.lock = threading.Lock()  # the site folder switches while PDF jobs finish in other threads
        self.background = Background(self.root, folder, say, self.pdfs_ready) if pdfs else None
        self.renderer = Renderer(share=True)  # the session's sites are its own, only ever read

    # -- what there is ---------------------------------------------------------------------------------------

    def books(self) -> list[str]:
        try:
            ids = book_ids(self.root)
        except SourceError as exc:
            self.problems[PROJECT] = [str(exc)]
            return sorted(self.checks)
        self.problems.pop(PROJECT, None)
        return [book for book in ids if not self.only or book in self.only]

    def engines(self) -> dict[str, str]:
        return {book: check.book.engine_package for book, check in self.checks.items()}

    def placed(self) -> list[tuple[str, list[str]]]:
        """Every problem now, with the pages it concerns (see :mod:`rulepress.serve.banner`)."""
        chapters = {c.file: f"{book}/rules/{c.id}.html" for book, check in self.checks.items()
                    for c in check.book.chapters}
        engines = {package: book for book, package in self.engines().items()}
        return [(problem, ["*"] if book not in self.checks else banner.pages_of(problem, book, chapters, engines))
                for book, problems in self.problems.items() for problem in problems]

    # -- doing it --------------------------------------------------------------------------------------------

    def start(self) -> None:
        self.stamp = watcher.stamp(self.root)
        self.render(self.verify(self.books()))

    def stop(self) -> None:
        if self.background is not None:
            self.background.stop()

    def pdfs_ready(self, book: str) -> None:
        if self.background is not None:
            with self.lock:
                link_pdfs(self.background.pdfs, self.site)

    def update(self) -> bool:
        """Verify again what the changes since the last look reach and rebuild the site; False if nothing changed."""
        now = watcher.stamp(self.root)
        paths = watcher.changed(self.stamp, now)
        self.stamp = now
        if not paths:
            return False
        reached = watcher.reach(paths, self.engines(), watcher.site_tops(self.root))
        # An engine whose new code failed is still on disk: a book that uses it must try it again, not pass
        # with the old modules kept for rendering.
        retry = {package for book, package in self.engines().items() if book in reached.books} & self.stale
        purged: dict[str, Kept] = {package: forget_engine(self.root, package) for package in reached.engines | retry}
        known = self.books()
        gone_books = set(self.checks) - set(known)
        for gone in gone_books:
            self.checks.pop(gone)
            self.problems.pop(gone, None)
        self.say(f"changed: {', '.join(paths)}")
        renewed = self.verify(sorted(reached.books & set(known)))
        for package, kept in purged.items():
            users = [book for book, check in self.checks.items() if check.book.engine_package == package]
            if any(book not in renewed for book in users):
                # The last good pages were made with the old engine, and rendering finds it by name: the
                # broken new one must not stand in for it until it verifies.
                restore_engine(kept)
                self.stale.add(package)
            else:
                self.stale.discard(package)
        # A book that fails keeps its last good check, so the site has nothing new to show unless a check was
        # renewed, the theme changed, a book went away, or the last rendering failed (it may work now).
        if renewed or reached.site or gone_books or self.problems.get(SITE):
            self.render(renewed, full=reached.site)
        return True

    def verify(self, books: list[str]) -> list[str]:
        """Verify ``books`` again; returns those whose check was renewed (they verified)."""
        renewed = []
        for book in books:
            start = time.perf_counter()
            report = verify(self.root, [book], draw=True)
            found = [check for check in report.books if check.book.id == book]
            failures = report.failures()
            if found and not failures:
                self.checks[book] = found[0]
                renewed.append(book)
            self.problems[book] = failures
            state = f"{len(failures)} problem(s)" if failures else "ok"
            self.say(f"verified {book}: {len(report.results)} examples, {state} ({time.perf_counter() - start:.2f} s)")
            for problem in failures:
                self.say(f"  - {problem}")
        return renewed

    def _site_folder_problems(self) -> list[str]:
        """mkdocs.yml, the folders it names and their files (load/site_folders.py), before anything reads them."""
        return [str(problem) for problem in site_folders.site_problems(self.root)]

    def render(self, renewed: list[str], full: bool = False) -> None:
        """The site from every book's last good check into a new folder; the old one stays if this fails.

        Only the pages whose Markdown changed are rendered again (:mod:`rulepress.publish.incremental`), unless ``full``
        (the theme changed).  Then the PDFs of the ``renewed`` books follow in the background (when the session
        makes PDFs).
        """
        start = time.perf_counter()
        checks = [self.checks[book] for book in self.books() if book in self.checks]
        report = Report(books=checks)
        self.generation += 1
        target = self.folder / f"site-{self.generation}"
        problems = self._site_folder_problems()  # before mkdocs or the cache reads a file of them
        if not problems:
            try:
                impacts: dict[str, Any] = {check.book.id: cached_impacts(self.root, check) for check in checks}
                previous = None if full or not (self.site / "index.html").is_file() else self.site
                problems = self.renderer.render(self.root, report, impacts, previous, target).fatal("mkdocs")
            except BuildRefused as refused:  # a bad mkdocs.yml, a page the players must not see: its own lines
                problems = list(refused.problems)
            except Exception as exc:  # a broken template or page: reported like the build reports it
                problems = [f"rendering failed: {type(exc).__name__}: {exc}"]
        self.problems[SITE] = problems
        if problems:
            shutil.rmtree(target, ignore_errors=True)
            for problem in problems:
                self.say(f"  - {problem}")
            if not (self.site / "index.html").is_file():  # nothing good yet: a page for the banner to be on
                self.site.mkdir(parents=True, exist_ok=True)
                (self.site / "index.html").write_text(_EMPTY, encoding="utf-8")
            return
        with self.lock:
            if self.background is not None:
                link_pdfs(self.background.pdfs, target)
            # The site before stays a build longer: a request that looked it up just before the swap still finds
            # every file of it (the preview never answers 404 for a page, a stylesheet or the search index that
            # a complete build has).
            old, self.site = self.site, target
            if self.previous is not None:
                _discard(self.previous)
            self.previous = old
        self.say(f"site rebuilt ({time.perf_counter() - start:.2f} s)")
        if self.background is not None:
            for book in renewed:
                self.background.start(book)
