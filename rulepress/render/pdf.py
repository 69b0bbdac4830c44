"""The print editions, made with WeasyPrint: trim and bleed, shipped fonts, TOC and glossary with page numbers.

Fonts come only from ``rulepress/fonts/``: fontconfig is pointed at that folder alone before WeasyPrint
loads, so nothing the system happens to have can slip into a book.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import markdown

from rulepress.render import markdown as render
from rulepress.verify.gate import BookCheck

FONTS = Path(__file__).parent.parent / "fonts"
TEMPLATES = Path(__file__).parent / "templates"
MARKDOWN_EXTENSIONS = ["attr_list", "md_in_html", "tables", "def_list"]


def _isolate_fonts() -> None:
    folder = Path(tempfile.gettempdir()) / f"rulepress-fontconfig-{os.getuid()}"
    folder.mkdir(exist_ok=True)
    conf = folder / "fonts.conf"
    text = (f'<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
            f"  <dir>{FONTS}</dir>\n  <cachedir>{folder / 'cache'}</cachedir>\n</fontconfig>\n")
    if not conf.exists() or conf.read_text() != text:
        conf.write_text(text)
    os.environ["FONTCONFIG_FILE"] = str(conf)


_isolate_fonts()

import weasyprint  # noqa: E402  (must load after fontconfig is pointed at the shipped fonts)


@dataclass
class PrintInput:
    check: BookCheck
    diagrams: Path  # folder holding this book's SVG diagrams (the site's own files)
    designer: bool = False
    impact: dict[str, Any] | None = None


def _linker(check: BookCheck, diagrams: Path) -> render.Linker:
    return render.Linker(
        rule=lambda rule_id: f"#{rule_id}",
        example=lambda example_id: f"#{example_id}",
        diagram=lambda example_id, cp: (diagrams / render.diagram_name(example_id, cp)).as_uri(),
        glossary=lambda: "",
    )


def _html(markdown_text: str) -> str:
    return markdown.markdown(markdown_text, extensions=MARKDOWN_EXTENSIONS)


def print_html(job: PrintInput) -> str:
    check, book = job.check, job.check.book
    link = _linker(check, job.diagrams)
    chapters = [{"id": c.id, "html": _html(render.chapter_markdown(c, book, link))} for c in book.chapters]
    toc = [{"id": r.id, "label": f"{r.number} {r.title}", "level": r.level}
           for c in book.chapters for r in c.rules if r.level <= 2]
    examples = [{"html": _html(render.example_markdown(r, book, link, heading="##"))} for r in check.results]
    designer = []
    if job.designer:
        assert check.trace is not None
        designer = [
            {"id": "designer-questions", "title": "Designer questions",
             "html": _html(render.questions_markdown(book, link, job.impact))},
            {"id": "change-log", "title": "Change log", "html": _html(render.changelog_markdown(book, link))},
            {"id": "rule-coverage", "title": "Rule coverage",
             "html": _html(render.coverage_markdown(book, check.trace, link))},
        ]
    width, height = book.trim
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    return env.get_template("print.html").render(
        book=book, facts=render.book_facts(book), chapters=chapters, toc=toc, examples=examples,
        glossary=[{"term": t.term, "slug": render.term_slug(t.term), "definition": t.definition, "rule": t.rule,
                   "number": book.rules[t.rule].number} for t in book.glossary],
        designer=designer, width=width, height=height, fonts=FONTS.as_uri(),
        edition_label="Designer edition" if job.designer else "")


def _blank_pages(count: int, width: str, height: str) -> list[Any]:
    page_css = f"@page {{ size: {width} {height}; bleed: 3mm; margin: 0 }} div {{ break-after: page }}"
    body = "".join('<div style="height:1px"></div>' for _ in range(count))
    document = weasyprint.HTML(string=f"<style>{page_css}</style>{body}").render()
    return list(document.pages[:count])


def write_pdf(job: PrintInput, target: Path, timing: dict[str, float] | None = None) -> int:
    """Render the book to ``target``; returns the page count (a multiple of 4 for saddle stitching).

    ``timing`` receives seconds spent in our own HTML generation ("own") and in WeasyPrint ("tool").
    """
    start = time.perf_counter()
    source = print_html(job)
    middle = time.perf_counter()
    document = weasyprint.HTML(string=source, base_url=str(job.diagrams)).render()
    pages = list(document.pages)
    padding = (-len(pages)) % 4
    if padding:
        width, height = job.check.book.trim
        pages += _blank_pages(padding, width, height)
    document = document.copy(pages)
    target.parent.mkdir(parents=True, exist_ok=True)
    document.write_pdf(target)
    if timing is not None:
        timing["own"] = timing.get("own", 0.0) + middle - start
        timing["tool"] = timing.get("tool", 0.0) + time.perf_counter() - middle
    return len(pages)
