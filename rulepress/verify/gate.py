"""The gate: load every source, check it, replay every example; collect every problem."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from rulepress.errors import SourceError
from rulepress.load.book import Book, book_ids, load_book
from rulepress.load.examples import Example, load_examples
from rulepress.project import load_engine
from rulepress.verify import trace
from rulepress.verify.replay import ExampleResult, replay


@dataclass
class BookCheck:
    book: Book
    engine: ModuleType
    examples: list[Example]
    results: list[ExampleResult] = field(default_factory=list)
    trace: trace.Trace | None = None


@dataclass
class Report:
    books: list[BookCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and all(r.ok for b in self.books for r in b.results)

    @property
    def results(self) -> list[ExampleResult]:
        return [r for b in self.books for r in b.results]

    def failures(self) -> list[str]:
        return self.problems + [r.message for r in self.results if not r.ok]


def load_checked_book(root: Path, book_id: str) -> BookCheck:
    """Load one book with its engine and examples; raises SourceError on the first bad input."""
    book = load_book(root, book_id)
    try:
        engine = load_engine(book.engine_package, root)
    except SyntaxError as exc:
        raise SourceError(exc.filename or f"engine/{book.engine_package}", exc.lineno,
                          f"engine '{book.engine_package}' does not parse: {exc.msg}") from exc
    except Exception as exc:  # any failure while importing an engine is the engine's, named as such
        raise SourceError(book.path("book.yaml"), None, f"engine '{book.engine_package}' cannot be "
                                                        f"imported: {type(exc).__name__}: {exc}") from exc
    if getattr(engine, "BOOK_ID", None) != book.id:
        raise SourceError(book.path("book.yaml"), None, f"engine '{book.engine_package}' says it implements "
                                                        f"'{getattr(engine, 'BOOK_ID', None)}', not '{book.id}'")
    return BookCheck(book, engine, load_examples(book))


def verify(root: Path, only: list[str] | None = None, *, draw: bool = True) -> Report:
    report = Report()
    try:
        ids = book_ids(root)
    except SourceError as exc:
        report.problems.append(str(exc))
        return report
    for book_id in only or ids:
        if book_id not in ids:
            report.problems.append(f"rules_src/{book_id}: no such book (books: {', '.join(ids)})")
            continue
        try:
            check = load_checked_book(root, book_id)
        except SourceError as exc:
            report.problems.append(str(exc))
            continue
        report.problems.extend(check_options(check))
        check.results = [replay(example, check.book, check.engine, draw=draw) for example in check.examples]
        check.trace = trace.build_trace(check, root)
        report.problems.extend(check.trace.problems)
        report.books.append(check)
    return report


def check_options(check: BookCheck) -> list[str]:
    """Each designer question's assumed answer must be what the engine does by default."""
    problems = []
    specs = {spec.name: spec for spec in getattr(check.engine, "OPTIONS", ())}
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
