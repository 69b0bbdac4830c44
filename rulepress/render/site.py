"""The website's pages, generated through rulepress's mkdocs plugin (rulepress/render/mkdocs_plugin.py).

``pages()`` returns every generated file (Markdown pages and SVG diagrams) for a verified report;
the plugin hands them to mkdocs-material, which does all the rendering, theming and search.

The site is one mkdocs project per language: the source language's at the site's root (today's URLs), and
one under ``<lang>/`` for each language some book is translated into, holding those books' translations
(``SiteInput.lang``). Each language site has its own ``theme.language`` (``<html lang>``, the theme's words),
its own search stemmer and a language switcher to the others (``language_config``).
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from typing import Any

from rulepress.analyze.report import cached_designer_markdown  # the plots: drawn once, not on every build
from rulepress.load.book import Book
from rulepress.render import book_figures, in_browser, languages, stepper
from rulepress.render import markdown as render
from rulepress.render.player_text import check_player_text
from rulepress.render.strings import Strings, strings
from rulepress.render.typography import typeset
from rulepress.store import Store, code_digest, declare, key_of, tree_digest, watched_digest
from rulepress.verify.gate import BookCheck, Report

PAGES = declare("pages", keep=60)  # a book's site pages in one language, kept under its check (pages_key)
PLAYER = declare("player", keep=5000)  # a player page's pass of the player-text check, kept under its text
# The designer's pages answer what the rules say about a word far less often than the rules and examples do: the
# search (mkdocs-material's, which reads a page's ``search.boost``) ranks them below.
DESIGNER_SEARCH = "---\nsearch:\n  boost: 0.1\n---\n\n"
TIMING: dict[str, float] = {}  # seconds the plugin spent generating pages (our work inside mkdocs' run)


@dataclass
class SiteInput:
    """What the site in one language is made from: the gate's report (the books, their translations), the question
    impacts; handed to the mkdocs plugin's instance (rulepress/render/mkdocs_plugin.py, ``plugin_of``)."""

    report: Report
    impacts: dict[str, dict[str, Any]] = field(default_factory=dict)  # book -> question -> impact
    lang: str | None = None  # None: the source language's site (the root); else the translations' site <lang>/
    refused: list[str] = field(default_factory=list)  # what ``pages`` refused on (mkdocs says only "aborted")
    generated: dict[str, str] | None = None  # what ``pages`` gave, once it has (asked before mkdocs runs too)


def site_languages(report: Report) -> list[str]:
    """The languages that get a site of their own under ``<lang>/`` (those some book is translated into)."""
    return list(languages.translations(report))


def site_checks(report: Report, lang: str | None) -> list[BookCheck]:
    """The books of the site in ``lang`` (None: the source language): a translated site has only the books
    translated into its language."""
    return report.books if lang is None else languages.translations(report).get(lang, [])


def site_words(report: Report, lang: str | None) -> Strings:
    return strings(languages.source_language(report) if lang is None else lang)


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
    """Every generated file of the site in ``prepared.lang``; raises PlayerTextError when a player page shows
    designer material."""
    if prepared.generated is not None:
        return prepared.generated
    lang = prepared.lang
    checks = site_checks(prepared.report, lang)
    files: dict[str, str] = {"index.md": _home(checks, site_words(prepared.report, lang), lang)}
    problems: list[str] = []
    for check in checks:
        generated, found = _checked_pages(prepared.report, check, prepared.impacts.get(check.book.id), lang)
        problems += found
        files.update(generated)
    if problems:
        prepared.refused = problems
        raise PlayerTextError(problems)
    prepared.generated = files
    return files


def _checked_pages(report: Report, check: BookCheck, impact: dict[str, Any] | None,
                   lang: str | None) -> tuple[dict[str, str], list[str]]:
    """A book's pages in ``lang`` and what its player pages show that they must not; pages that show nothing of
    the kind are kept in the store and reused while the book's check, its impact and the saved reports are the
    same (:func:`pages_key`): after an edit, only the edited book's pages are made again."""
    source = next((c for c in report.books if c.book.id == check.book.id), check)  # a translation's: its source's
    key = pages_key(source, impact, lang)
    store = Store(check.book.root)
    kept = store.load(PAGES, key, _pages) if key is not None else None
    if kept is not None:
        return kept, []
    made = _book_pages(check, impact, lang)
    problems = player_problems(check.book, made, _where(lang))
    # The frames' SVGs were made to be read by the check: the pages carry them packed (render/stepper.py).
    generated = {path: text for path, text in made.items() if not stepper.is_frame(path)}
    if key is not None and not problems:
        store.put(PAGES, key, json.dumps(generated, ensure_ascii=False).encode())
    return generated, problems


def _pages(data: bytes) -> dict[str, str]:
    files = json.loads(data)
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise TypeError("not a book's pages")
    return files


def pages_key(check: BookCheck, impact: Any, lang: str | None) -> str | None:
    """What a book's site pages in ``lang`` are made from: its check (see ``BookCheck.inputs``), its question
    impact and the saved reports (the designer's analysis); None when the check cannot say what it was made
    from."""
    if check.inputs is None:
        return None
    return key_of(code_digest(), check.inputs, str(lang), json.dumps(impact, sort_keys=True, default=repr),
                  tree_digest(check.book.root / "reports"), " ".join(r.status for r in check.results))


def _where(lang: str | None) -> str:
    return "" if lang is None else f"{lang}/"


def player_text_problems(report: Report) -> list[str]:
    """Every rule ID or piece of engine notation on the site's player pages (every language's), for the publish
    stage to refuse on before mkdocs runs (the plugin refuses too, but mkdocs reports a plugin's error only as a
    generic abort)."""
    return [problem for lang in [None, *site_languages(report)] for check in site_checks(report, lang)
            for problem in player_problems(check.book, _book_pages(check, None, lang), _where(lang))]


def is_player_page(path: str) -> bool:
    """Pages of the player edition: everything but the designer section; diagrams (SVG) are read too."""
    return path.endswith((".md", ".svg")) and "/designer/" not in path


def player_problems(book: Book, files: dict[str, str], folder: str = "") -> list[str]:
    # A page that passed is not read again while it and what it is checked against (the book's rule prefix, the
    # engine's notation) are the same: after an edit, the book's other pages are as they were.
    engine = watched_digest(book.root / "engine" / book.engine_package)
    store = Store(book.root)
    problems = []
    for path, text in files.items():
        if not is_player_page(path):
            continue
        key = key_of(code_digest(), text, book.prefix, book.engine_package, str(book.root), engine)
        if store.get(PLAYER, key) == b"passed":
            continue
        found = check_player_text(text, book, f"site page {folder}{path}")
        if not found:
            store.put(PLAYER, key, b"passed")
        problems += found
    return problems


def book_of(path: str, report: Report, lang: str | None = None) -> Book | None:
    """The book a site page belongs to (its first folder), or None for the home page."""
    head = path.split("/", 1)[0]
    return next((check.book for check in site_checks(report, lang) if check.book.id == head and "/" in path), None)


def book_style(book: Book) -> dict[str, str]:
    """The book's colour and mark (``color:`` and ``mark:`` in book.yaml) for its pages' header and menu."""
    return {"title": book.title, "color": str(book.data.get("color") or ""), "mark": str(book.data.get("mark") or "")}


def nav(report: Report, lang: str | None = None) -> list[Any]:
    """The site's navigation in ``lang`` (None: the source language's site)."""
    t = site_words(report, lang)

    def label(text: str) -> str:  # a title from the sources, in the language's typography like the pages
        return typeset(text, t.lang)

    entries: list[Any] = [{t("home"): "index.md"}]
    for check in site_checks(report, lang):
        book = check.book
        entries.append({label(book.title): [
            {t("about_book"): f"{book.id}/index.md"},
            {t("rules"): [{label(f"{c.number}. {c.title}"): chapter_page(book.id, c.id)} for c in book.chapters]},
            {t("examples"): [f"{book.id}/examples/index.md"]
             + [{label(r.example.title): example_page(book.id, r.example.id)} for r in check.results]},
            {t("glossary"): f"{book.id}/glossary.md"},
            {t("for_designer"): [{t("designer_questions"): f"{book.id}/designer/questions.md"},
                                 {t("change_log"): f"{book.id}/designer/changelog.md"},
                                 {t("rule_coverage"): f"{book.id}/designer/coverage.md"}]},
        ]})
    return entries


def language_config(root_config: dict[str, Any], report: Report, lang: str | None) -> dict[str, Any]:
    """The settings of mkdocs.yml (``root_config``, as read) that the site in ``lang`` overrides: its theme's
    language, its search stemmer, its name, and its language switcher (mkdocs-material's ``extra.alternate``;
    the plugin points each page's links at the same page in the other languages, see ``alternates``)."""
    t = site_words(report, lang)
    theme = dict(root_config.get("theme") or {})
    theme["language"] = t.lang
    plugins: list[Any] = []
    for plugin in root_config.get("plugins") or []:
        name = next(iter(plugin)) if isinstance(plugin, dict) else plugin
        if name in ("search", "material/search"):
            options = dict(plugin[name] or {}) if isinstance(plugin, dict) else {}
            options["lang"] = [t.lang]  # lunr's stemmer for the language, shipped with the theme (no CDN)
            plugin = {name: options}
        plugins.append(plugin)
    extra = dict(root_config.get("extra") or {})
    # Each language's home page, relative to this site's root: the theme makes them relative to each page and
    # looks for each language's sitemap.xml beside them (the per-page switcher is the plugin's, see alternates).
    extra["alternate"] = alternates(report, lang, "index.md")
    overrides: dict[str, Any] = {"theme": theme, "plugins": plugins, "extra": extra}
    if lang is not None:  # the source language's site keeps the project's own name
        overrides.update(site_name=t("site_name"), site_description=t("site_description"))
    return overrides


def alternates(report: Report, lang: str | None, page: str) -> list[dict[str, str]]:
    """The language switcher of ``page`` (a path in the site in ``lang``): each language's site, at the same
    page when that site has it, else at its home page; links relative to the page (printed as they are by
    site_src/overrides/partials/alternate.html)."""
    others = site_languages(report)
    if not others:
        return []
    here = "" if lang is None else "../"
    book = page.split("/", 1)[0] if "/" in page else None
    choices: list[dict[str, str]] = []
    for other in [None, *others]:
        t = site_words(report, other)
        folder = "" if other is None else f"{other}/"
        shown = book is None or any(check.book.id == book for check in site_checks(report, other))
        target = page.removesuffix(".md") + ".html" if shown else "index.html"
        link = posixpath.relpath(f"{here}{folder}{target}", posixpath.dirname(page) or ".")
        choices.append({"name": t("language_name"), "link": link, "lang": t.lang})
    return choices


def _home(checks: list[BookCheck], t: Strings, lang: str | None) -> str:
    lines = [f"# {t('home_title')}", "", t("home_intro"), ""]
    pdf = "pdf" if lang is None else "../pdf"  # the PDFs are the root site's, one folder up from a language's
    for check in checks:
        book = check.book
        name = languages.pdf_name(book.id, lang)
        facts = " · ".join(f"{label}: {value}" for label, value in render.book_facts(book))
        lines += [f"## [{render.escape_md(book.title)}]({book.id}/index.md)", "",
                  facts, "",
                  t("book_counts", rules=len(book.rules), examples=len(check.results)) + " "
                  f'<a href="{pdf}/{name}.pdf">{t("print_pdf")}</a> · '
                  f'<a href="{pdf}/{name}-digital.pdf">{t("digital_pdf")}</a>', ""]
    return "\n".join(lines) + "\n"


def _book_pages(check: BookCheck, impact: dict[str, Any] | None, lang: str | None = None) -> dict[str, str]:
    book = check.book
    t = render.words(book)
    name = languages.pdf_name(book.id, lang)
    pdf = "../pdf" if lang is None else "../../pdf"
    files: dict[str, str] = {}
    by_rule = render.examples_by_rule(check.results)
    index = f"{book.id}/index.md"
    link = linker(check, index)
    facts = "\n".join(f"| {label} | {value} |" for label, value in render.book_facts(book))
    chapters = "\n".join(f"{c.number}. [{c.title}]({posixpath.relpath(chapter_page(book.id, c.id), book.id)})"
                         for c in book.chapters)
    files[index] = (f"# {book.title}\n\n{book.data.get('subtitle', '')}\n\n| | |\n|---|---|\n{facts}\n\n"
                    f"## {t('contents')}\n\n{chapters}\n\n"
                    f"- [{t('worked_examples')}](examples/index.md) "
                    f"{t('examples_verified_count', count=len(check.results))}\n"
                    f"- [{t('glossary')}](glossary.md)\n- [{t('for_designer')}](designer/questions.md)\n\n"
                    f'<a class="md-button" href="{pdf}/{name}.pdf">{t("print_pdf")}</a> '
                    f'<a class="md-button" href="{pdf}/{name}-digital.pdf">{t("digital_pdf_accessible")}</a> '
                    f'<a class="md-button" href="{pdf}/{name}-designer.pdf">{t("designer_pdf")}</a>\n')
    drawn = book_figures.figure_files(check.figures, t.lang)  # the components, the setup diagram, the key
    files.update({f"{book.id}/figures/{name}": check.proof.svg(svg) for name, svg in drawn.items()})

    def figure_at(page: str) -> book_figures.Source:
        return lambda name, svg: posixpath.relpath(f"{book.id}/figures/{name}", posixpath.dirname(page))
    for chapter in book.chapters:
        page = chapter_page(book.id, chapter.id)
        files[page] = render.chapter_markdown(chapter, book, linker(check, page), by_rule,
                                              figures=book_figures.placed(check.figures, t, figure_at(page)))
    page = f"{book.id}/examples/index.md"
    link = linker(check, page)
    # Where an example comes from (seed or authored) is a designer's note: the player edition leaves it out.
    rows = "\n".join(f"| [{r.example.title}]({link.example(r.example.id)}) | "
                     f"{', '.join(book.rules[x].number for x in r.example.rules)} | "
                     f"{t('verified_short') if r.ok else r.status} |" for r in check.results)
    files[page] = (f"# {t('worked_examples')}\n\n{t('examples_intro')}\n\n"
                   f"| {t('column_example')} | {t('column_rules')} | {t('column_status')} |\n|---|---|---|\n"
                   f"{rows}\n")
    tries = in_browser.wanted(book)
    for result in check.results:
        page = example_page(book.id, result.example.id)
        block, shown = stepper.example_block(result, book, t, page, lang, tries, check.proof)
        key = book_figures.legend_markdown(check.figures, t, figure_at(page), folded=True) if any(
            cp.svg for cp in result.checkpoints.values()) or result.frames else ""
        files[page] = render.example_markdown(result, book, linker(check, page), heading="#") + "\n" + key + block
        files.update(shown)
        for name, checkpoint in result.checkpoints.items():
            if checkpoint.svg is not None:
                # Engines draw in CMYK (device-cmyk, for press); browsers get the same inks as sRGB, through the
                # book's own output intent.
                diagram = f"{book.id}/diagrams/{render.diagram_name(result.example.id, name)}"
                files[diagram] = check.proof.svg(checkpoint.svg)
    if tries and any(name.startswith(f"{stepper.referee_folder(book.id)}/") for name in files):
        files[f"{stepper.referee_folder(book.id)}/config.json"] = stepper.referee_config(
            check.results, book, check.engine, t, f"{book.id}/examples", check.proof)
    page = f"{book.id}/glossary.md"
    files[page] = f"# {t('glossary')}\n\n" + render.glossary_markdown(book, linker(check, page))
    page = f"{book.id}/designer/questions.md"
    open_count = sum(q.status == "open" for q in book.questions)
    files[page] = (f"{DESIGNER_SEARCH}# {t('designer_questions')}\n\n"
                   f"{t('questions_intro', open=open_count, total=len(book.questions))}\n\n"
                   + render.questions_markdown(book, linker(check, page), impact)
                   + cached_designer_markdown(book.root, book.id, t, book))
    page = f"{book.id}/designer/changelog.md"
    files[page] = f"{DESIGNER_SEARCH}# {t('change_log')}\n\n" + render.changelog_markdown(book, linker(check, page))
    page = f"{book.id}/designer/coverage.md"
    assert check.trace is not None
    files[page] = (f"{DESIGNER_SEARCH}# {t('rule_coverage')}\n\n"
                   + render.coverage_markdown(book, check.trace, linker(check, page)))
    return files
