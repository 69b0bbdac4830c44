"""The gate: load every source, check it, replay every example; collect every problem."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from rulepress import i18n, progress
from rulepress.cmyk import game_palette
from rulepress.errors import SourceError, bounded, relative
from rulepress.load import site_folders
from rulepress.load.book import Book, book_ids, load_book
from rulepress.load.examples import Example, collect_examples, load_examples
from rulepress.load.orphans import stray_example_folders
from rulepress.load.problems import Collector, lines_of
from rulepress.load.profile import output_intent
from rulepress.load.translations import Translation
from rulepress.load.yamlsrc import line_of
from rulepress.proof import Proof
from rulepress.protocol import EngineSpec
from rulepress.store import enabled as store_enabled
from rulepress.store import key_of, sources_digest, watched_digest
from rulepress.verify import closure, decisions, diagram, figures, trace, translated
from rulepress.verify.cached import catalog_problems, replay_all, replay_inputs
from rulepress.verify.engines import check_book_engine, engine_folder, game_problems, load_engine
from rulepress.verify.limits import EngineFault, engine_guard, replay_seconds
from rulepress.verify.replay import ExampleResult, make_game

MAX_PROBLEMS = 100
"""Problems listed by :meth:`Report.failures` (a broken engine can fail every example at once)."""


@dataclass
class BookCheck:
    book: Book
    engine: EngineSpec
    examples: list[Example]
    results: list[ExampleResult] = field(default_factory=list)
    trace: trace.Trace | None = None
    # A digest of the files this check was made from (the book's sources and examples, its engine), when none
    # of them changed while it was made; None otherwise.  What is made from the check alone (its site pages, its
    # translations' findings) is kept under it: a serve session keeps a book's last good check while the files
    # on disk say something else, so the files' digest now would be the wrong key for it.  None too with
    # RULEPRESS_CACHE=0 (nothing is kept).
    inputs: str | None = None
    # The book in each language it is translated into, checked with it (rulepress/verify/translated.py); the
    # renderers read these, never the translation's files.
    translations: dict[str, BookCheck] = field(default_factory=dict)
    translation: Translation | None = None  # a translated check's: what its files recorded (hashes, places)
    figures: figures.BookFigures = field(default_factory=figures.BookFigures)  # the key, components, setup, cover
    cover_art: str | None = None  # the SVG book.yaml's ``cover.art`` names, checked (check_cover); None: none
    # What the book's inks look like on a screen: through its own output intent (a translation prints with its
    # source's), for every colour of the site, the referee and the digital edition.
    proof: Proof = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.proof = Proof.of(output_intent(self.book))


@dataclass
class Report:
    books: list[BookCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    lint_warnings: list[str] = field(default_factory=list)  # said as one count by kind (rulepress lint lists them)

    @property
    def ok(self) -> bool:
        return not self.problems and all(r.ok for b in self.books for r in b.results)

    @property
    def results(self) -> list[ExampleResult]:
        return [r for b in self.books for r in b.results]

    def failures(self, most: int = MAX_PROBLEMS) -> list[str]:
        """Every problem and failed example, one line each: at most ``most``, then how many more there are."""
        every = self.problems + [r.message for r in self.results if not r.ok]
        if len(every) <= most:
            return every
        return every[:most] + [f"... and {len(every) - most} more problem(s) not shown (fix these first)"]


def book_sources_digest(root: Path, book_id: str) -> str:
    """A book's sources and examples (its translations are inside them)."""
    return key_of(sources_digest(root / "rules_src" / book_id), sources_digest(root / "examples" / book_id))


def load_checked_book(root: Path, book_id: str) -> BookCheck:
    """Load one book with its engine and examples; raises SourceError on the first bad input."""
    book = load_book(root, book_id)
    check = BookCheck(book, load_book_engine(book), load_examples(book))
    check.cover_art = cover_art(book)
    return check


def cover_art(book: Book) -> str | None:
    """The SVG book.yaml's ``cover.art`` names, checked (rulepress/verify/diagram.py); None when it names none.
    Raises SourceError at its line."""
    cover = book.data.get("cover")
    return diagram.cover_art(book) if isinstance(cover, Mapping) and cover.get("art") else None


def load_book_engine(book: Book) -> EngineSpec:
    """The engine ``book.yaml`` names, its declaration held to the book (rulepress/verify/engines.py); a failure
    while importing it is reported against the engine's line."""
    package = book.engine_package
    folder = book.root / "engine" / package
    if not (folder / "__init__.py").is_file():
        raise SourceError(book.path("book.yaml"), line_of(book.data, "engine"),
                          f"engine '{package}' not found (expected {relative(folder, book.root)}/__init__.py)")
    engine = load_engine(package, book.root)
    check_book_engine(book, engine)
    return engine


def load_every_example(book: Book) -> tuple[list[Example], list[str]]:
    """Every example that loads, and each problem of those that do not (stray files too), one line each."""
    found = Collector()
    examples = collect_examples(book, found)
    problems = [line for error in found.errors for line in lines_of(error)]
    return examples, problems + ([f"... and {found.more} more problem(s) not shown"] if found.more else [])


FULL_COLLECTIONS_HELD = 1_000_000
"""Python's third threshold while a verification runs (see :func:`full_collections_held`)."""
_HOLDING = threading.Lock()
_holders: list[tuple[int, int, int]] = []  # the thresholds to restore, one per verification running


@contextmanager
def full_collections_held() -> Iterator[None]:
    """Python's full garbage collections held off inside the block, its thresholds restored when the last such
    block ends.  A verification builds a report that lives to its end (every example's snapshots, transcripts,
    sources: hundreds of thousands of objects), and a full collection walks all of it each time the heap grows by
    a quarter: a tenth of the gate's time, to find nothing.  The young generations are still collected as ever
    (a cycle made and dropped meanwhile goes soon after); what reaches the old one waits for the next full
    collection after the block."""
    with _HOLDING:
        saved = gc.get_threshold()
        _holders.append(saved)
        if len(_holders) == 1:
            gc.set_threshold(saved[0], saved[1], max(saved[2], FULL_COLLECTIONS_HELD))
    try:
        yield
    finally:
        with _HOLDING:
            first = _holders[0]
            _holders.pop()
            if not _holders:
                gc.set_threshold(*first)


def verify(root: Path, only: list[str] | None = None, *, draw: bool = True, site: bool | None = None) -> Report:
    """Check every book (or ``only`` these) and replay every example; every problem is reported, not the first.

    A book that fails to load, or whose engine fails to import, is one problem and the others still run; an
    example whose engine hangs, exits or crashes is that example's error and the others still run.  ``site``: the
    project's site sources too (its ``mkdocs.yml``, the folders it names and their files: load/site_folders.py);
    by default when every book is checked.
    """
    root = root.resolve()  # a relative root read the engine's catalogs from elsewhere: "narrate.po: file not found"
    with full_collections_held():
        return _verify(root, only, draw=draw, site=site)


def _verify(root: Path, only: list[str] | None, *, draw: bool, site: bool | None) -> Report:
    report = Report()
    keeping = store_enabled()
    if site if site is not None else only is None:
        report.problems.extend(str(problem) for problem in site_folders.site_problems(root))
    try:
        ids = book_ids(root)
    except SourceError as exc:
        report.problems.append(str(exc))
        return report
    report.problems.extend(str(error) for error in stray_example_folders(root, ids))
    report.problems.extend(f"rules_src/{folder.name}: a folder with no book.yaml; the build would ignore it"
                           for folder in sorted((root / "rules_src").iterdir())
                           if folder.is_dir() and folder.name not in ids)
    for book_id in only or ids:
        if book_id not in ids:
            report.problems.append(bounded(f"rules_src/{book_id}: no such book (books: {', '.join(ids)})"))
            continue
        # Before anything is read, what the check is made from, to keep what is made of it under (nothing is kept
        # with RULEPRESS_CACHE=0: no digest to work out).
        sources = book_sources_digest(root, book_id) if keeping else None
        try:
            book = load_book(root, book_id)
            engine_files = watched_digest(root / "engine" / book.engine_package) if keeping else None
            engine = load_book_engine(book)
        except SourceError as exc:
            report.problems.extend(lines_of(exc))  # every problem of the book's sources, one line each
            continue
        examples, problems = load_every_example(book)
        report.problems.extend(problems)
        check = BookCheck(book, engine, examples)
        report.problems.extend(check_cover(check))
        report.problems.extend(check_game(book, engine))
        report.problems.extend(closure.browser_problems(book, engine))
        # The engine's narration catalogs, for each language the book is published in (rulepress.i18n).
        languages = list(i18n.book_languages(book.data))
        report.problems.extend(catalog_problems(book.root / 'engine' / book.engine_package, languages, root))
        report.problems.extend(check_options(check))
        try:
            shared: str | None = replay_inputs(book, engine)
        except OSError:  # a file vanished under us: each replay finds out
            shared = None
        # Each replay is reused while its inputs are unchanged (rulepress/verify/cached.py).
        check.results = replay_all(check.examples, check.book, check.engine, draw=draw, shared=shared,
                                   shown=lambda examples, book_id=book_id: progress.iterate(
                                       examples, f"verify {book_id}", unit="example"))
        check.figures, drawn = figures.book_figures(book, engine, check.examples)
        report.problems.extend(drawn)
        check.trace = trace.build_trace(check, root)
        report.problems.extend(check.trace.problems)
        # Every engine decision names a designer question (rulepress.verify.decisions): an error stops the build.
        for problem in decisions.check_decisions(book, engine, root):
            (report.problems if problem.severity == "error" else report.warnings).append(str(problem))
        for rule_id, inside in decisions.decisions_by_rule(book, engine, root).items():
            if rule_id in check.trace.rules:
                check.trace.rules[rule_id].decisions = inside
        # Its translations, over these replays: a bad translation file is a problem here, at its line.
        report.problems.extend(translated.translate(check))
        if keeping and sources is not None and engine_files is not None and (
                book_sources_digest(root, book_id), watched_digest(root / "engine" / book.engine_package)) \
                == (sources, engine_files):  # nothing changed meanwhile: the check is of these files
            check.inputs = key_of(book_id, str(root), sources, engine_files)
            for translation in check.translations.values():
                translation.inputs = check.inputs
        report.books.append(check)
    return report


def check_cover(check: BookCheck) -> list[str]:
    """book.yaml's cover colours must be names in the engine's palette (its EngineSpec's ``palette``), and its artwork
    (``cover.art``) plain SVG with words saying what it shows: checked here, at their lines, rather than when the
    PDFs are already being rendered; the artwork, checked, is the check's (``cover_art``) for the renderers."""
    book, engine = check.book, check.engine
    cover = book.data.get("cover")
    try:
        check.cover_art = cover_art(book)
    except SourceError as exc:
        return [str(exc)]
    if not isinstance(cover, Mapping) or not ({"background", "ink"} & set(cover)):
        return []
    known = game_palette(engine.palette)
    shown = book.path("book.yaml")
    return [str(SourceError(shown, line_of(cover, key), f"cover.{key}: '{cover[key]}' is not a colour of the "
                                                        f"game's palette (known: {', '.join(sorted(known))})"))
            for key in ("background", "ink") if key in cover and cover[key] not in known]


def check_game(book: Book, engine: EngineSpec) -> list[str]:
    """What the engine declares it is (players, chance, information, options) against the game it makes, with the
    book's default answers; a game that cannot be made is left to the replays, which each report it."""
    folder = engine_folder(engine)
    try:
        with engine_guard(folder, book.root, replay_seconds(), crashes=True):
            game = make_game(engine, book, {})
    except EngineFault:  # a game that cannot be made: every replay reports it, at its own step
        return []
    try:
        with engine_guard(folder, book.root, replay_seconds(), crashes=True):
            return game_problems(engine, game, book.root)
    except EngineFault as fault:  # the game was made, but asking it what it is failed: nothing else reports that
        return [f"{relative(folder, book.root)}: engine '{engine.package}': what the game is could not be held to "
                f"its ENGINE declaration: {fault}"]


def check_options(check: BookCheck) -> list[str]:
    """Each designer question's assumed answer must be what the engine does by default."""
    problems = []
    specs = {spec.name: spec for spec in check.engine.options}
    shown = check.book.path("questions.yaml")
    for question in check.book.questions:
        if question.option is None or question.status == "dropped":
            continue
        spec = specs.get(question.option)
        if spec is None:
            problems.append(f"{shown}:{question.line}: question {question.id} names engine option "
                            f"'{question.option}', which engine '{check.book.engine_package}' does not have "
                            f"(it has: {', '.join(sorted(specs)) or 'none'})")
            continue
        for answer in question.answers:
            if question.option_value(answer) not in spec.choices:
                problems.append(f"{shown}:{question.line}: question {question.id}: answer '{answer}' maps to "
                                f"{question.option_value(answer)!r}, which option '{spec.name}' does not offer "
                                f"({list(spec.choices)})")
        wanted = question.option_value(question.assumed)
        if wanted != spec.default:
            kind = "answered" if question.status == "answered" else "assumed"
            problems.append(f"{shown}:{question.line}: question {question.id} is {kind} '{question.assumed}' "
                            f"({question.option}={wanted!r}) but the engine's default is {spec.default!r}")
    return problems
