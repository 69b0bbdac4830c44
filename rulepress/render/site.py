"""The website's pages, generated through mkdocs' own event hooks (see rulepress/render/mkdocs_hooks.py).

``pages()`` returns every generated file (Markdown pages and SVG diagrams) for a verified report;
the hooks hand them to mkdocs-material, which does all the rendering, theming and search.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from rulepress.analyze.report import designer_markdown
from rulepress.load.book import Book
from rulepress.render import markdown as render
from rulepress.render.palette import svg_rgb
from rulepress.render.player_text import check_player_text
from rulepress.verify.gate import BookCheck, Report

PREPARED: SiteInput | None = None  # set by `rulepress build` before it runs mkdocs
TIMING: dict[str, float] = {}  # seconds the hooks spent generating pages (our work inside mkdocs' run)


@dataclass
class SiteInput:
    report: Report
    impacts: dict[str, dict[str, Any]] = field(default_factory=dict)  # book -> question -> impact


def chapter_page(book_id: str, chapter_id: str) -> str:
    return f"{book_id}/rules/{chapter_id}.md"


def example_page(book_id: str, example_id: str) -> str:
    return f"{book_id}/examples/{example_id}.md"


def linker(check: BookCheck, page: str) -> render.Linker:
    book = check.book
    here = posixpath.dirname(page)

    def rel(target: str) -> str:
        return posixpath.relpath(target, here) if here else target

    def rule(rule_id: str) -> str:
        return rel(chapter_page(book.id, book.rules[rule_id].chapter)) + f"#{rule_id}"

    return render.Linker(
        rule=rule,
        example=lambda example_id: rel(example_page(book.id, example_id)),
        diagram=lambda example_id, cp: rel(f"{book.id}/diagrams/{render.diagram_name(example_id, cp)}"),
        glossary=lambda: rel(f"{book.id}/glossary.md"),
    )


class PlayerTextError(Exception):
    """Player pages that show rule IDs or engine notation (one message per passage)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def pages(prepared: SiteInput) -> dict[str, str]:
    """Every generated file; raises PlayerTextError when a player page shows designer material."""
    files: dict[str, str] = {"index.md": _home(prepared.report)}
    problems: list[str] = []
    for check in prepared.report.books:
        generated = _book_pages(check, prepared.impacts.get(check.book.id))
        problems += player_problems(check.book, generated)
        files.update(generated)
    if problems:
        raise PlayerTextError(problems)
    return files


def player_text_problems(report: Report) -> list[str]:
    """Every rule ID or piece of engine notation on the site's player pages, for the publish stage to refuse on
    before mkdocs runs (the hooks refuse too, but mkdocs reports a hook's error only as a generic abort)."""
    return [problem for check in report.books
            for problem in player_problems(check.book, _book_pages(check, None))]


def is_player_page(path: str) -> bool:
    """Pages of the player edition: everything but the designer section; diagrams (SVG) are read too."""
    return path.endswith((".md", ".svg")) and "/designer/" not in path


def player_problems(book: Book, files: dict[str, str]) -> list[str]:
    return [problem for path, text in files.items() if is_player_page(path)
            for problem in check_player_text(text, book, f"site page {path}")]


def book_of(path: str, report: Report) -> Book | None:
    """The book a site page belongs to (its first folder), or None for the home page."""
    head = path.split("/", 1)[0]
    return next((check.book for check in report.books if check.book.id == head and "/" in path), None)


def book_style(book: Book) -> dict[str, str]:
    """The book's colour and mark (``color:`` and ``mark:`` in book.yaml) for its pages' header and menu."""
    return {"title": book.title, "color": str(book.data.get("color") or ""), "mark": str(book.data.get("mark") or "")}


def nav(report: Report) -> list[Any]:
    entries: list[Any] = [{"Home": "index.md"}]
    for check in report.books:
        book = check.book
        entries.append({book.title: [
            {"About this book": f"{book.id}/index.md"},
            {"Rules": [{f"{c.number}. {c.title}": chapter_page(book.id, c.id)} for c in book.chapters]},
            {"Examples": [f"{book.id}/examples/index.md"]
             + [{r.example.title: example_page(book.id, r.example.id)} for r in check.results]},
            {"Glossary": f"{book.id}/glossary.md"},
            {"For the designer": [{"Designer questions": f"{book.id}/designer/questions.md"},
                                  {"Change log": f"{book.id}/designer/changelog.md"},
                                  {"Rule coverage": f"{book.id}/designer/coverage.md"}]},
        ]})
    return entries


def _home(report: Report) -> str:
    lines = ["# Rulebooks", "",
             "Every worked example in these books is replayed against an executable rules engine on every "
             "build; a book is published only when its text, its examples and its engine agree.", ""]
    for check in report.books:
        book = check.book
        facts = " · ".join(f"{label}: {value}" for label, value in render.book_facts(book))
        lines += [f"## [{render.escape_md(book.title)}]({book.id}/index.md)", "", facts, "",
                  f"{len(book.rules)} rules, {len(check.results)} verified examples. "
                  f'<a href="pdf/{book.id}.pdf">Print edition (PDF)</a> · '
                  f'<a href="pdf/{book.id}-digital.pdf">Digital edition (PDF)</a>', ""]
    return "\n".join(lines) + "\n"


def _book_pages(check: BookCheck, impact: dict[str, Any] | None) -> dict[str, str]:
    book = check.book
    files: dict[str, str] = {}
    by_rule = render.examples_by_rule(check.results)
    index = f"{book.id}/index.md"
    link = linker(check, index)
    facts = "\n".join(f"| {label} | {value} |" for label, value in render.book_facts(book))
    chapters = "\n".join(f"{c.number}. [{c.title}]({posixpath.relpath(chapter_page(book.id, c.id), book.id)})"
                         for c in book.chapters)
    files[index] = (f"# {book.title}\n\n{book.data.get('subtitle', '')}\n\n| | |\n|---|---|\n{facts}\n\n"
                    f"## Contents\n\n{chapters}\n\n"
                    f"- [Worked examples](examples/index.md) ({len(check.results)}, all verified)\n"
                    f"- [Glossary](glossary.md)\n- [For the designer](designer/questions.md)\n\n"
                    f'<a class="md-button" href="../pdf/{book.id}.pdf">Print edition (PDF)</a> '
                    f'<a class="md-button" href="../pdf/{book.id}-digital.pdf">Digital edition (accessible PDF)</a> '
                    f'<a class="md-button" href="../pdf/{book.id}-designer.pdf">Designer edition (PDF)</a>\n')
    for chapter in book.chapters:
        page = chapter_page(book.id, chapter.id)
        files[page] = render.chapter_markdown(chapter, book, linker(check, page), by_rule)
    page = f"{book.id}/examples/index.md"
    link = linker(check, page)
    # Where an example comes from (seed or authored) is a designer's note: the player edition leaves it out.
    rows = "\n".join(f"| [{r.example.title}]({link.example(r.example.id)}) | "
                     f"{', '.join(book.rules[x].number for x in r.example.rules)} | "
                     f"{'✔ verified' if r.ok else r.status} |" for r in check.results)
    files[page] = (f"# Worked examples\n\nEach example below is replayed against the rules engine on every "
                   f"build.\n\n| example | rules | status |\n|---|---|---|\n{rows}\n")
    for result in check.results:
        page = example_page(book.id, result.example.id)
        files[page] = render.example_markdown(result, book, linker(check, page), heading="#")
        for name, checkpoint in result.checkpoints.items():
            if checkpoint.svg is not None:
                # Engines draw in CMYK (device-cmyk, for press); browsers get the same colours as sRGB.
                files[f"{book.id}/diagrams/{render.diagram_name(result.example.id, name)}"] = svg_rgb(checkpoint.svg)
    page = f"{book.id}/glossary.md"
    files[page] = "# Glossary\n\n" + render.glossary_markdown(book, linker(check, page))
    page = f"{book.id}/designer/questions.md"
    open_count = sum(q.status == "open" for q in book.questions)
    files[page] = (f"# Designer questions\n\n{open_count} open of {len(book.questions)}. Each question names "
                   "the rules it touches, every answer, the answer the text and the engine assume now, and the "
                   "engine option that implements it.\n\n"
                   + render.questions_markdown(book, linker(check, page), impact)
                   + designer_markdown(book.root, book.id))
    page = f"{book.id}/designer/changelog.md"
    files[page] = "# Change log\n\n" + render.changelog_markdown(book, linker(check, page))
    page = f"{book.id}/designer/coverage.md"
    assert check.trace is not None
    files[page] = "# Rule coverage\n\n" + render.coverage_markdown(book, check.trace, linker(check, page))
    return files
