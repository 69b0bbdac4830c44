"""The PDF editions, made with WeasyPrint from one template: print, digital and designer.

- print (``<book>.pdf``): PDF/X-4, every colour CMYK (``device-cmyk``) with the output intent from
  ``rulepress/color/``, trim and 3 mm bleed, mirrored margins whose gutter grows with the page count, a page
  count that is a multiple of 4 (padded with intended pages before the back cover);
- digital (``<book>-digital.pdf``): RGB (the same palette, converted), tagged, titled, alt text on every
  diagram, no bleed;
- designer (``<book>-designer.pdf``): the print layout plus the designer's parts.

Fonts come only from ``rulepress/fonts/``: fontconfig is pointed at that folder alone before WeasyPrint
loads, so nothing the system happens to have can slip into a book.
"""

from __future__ import annotations

import base64
import html
import math
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
import markdown
from markupsafe import Markup

from rulepress.cache import cached_designer_markdown  # the plots: drawn once, not on every build
from rulepress.errors import BuildRefused
from rulepress.i18n import language
from rulepress.render import cover
from rulepress.render import markdown as render
from rulepress.render import palette as colours
from rulepress.render.player_text import check_player_text
from rulepress.render.typography import sort_key, typeset_html
from rulepress.verify.gate import BookCheck

if TYPE_CHECKING:
    from rulepress.verify.gate import Report

FONTS = Path(__file__).parent.parent / "fonts"
TEMPLATES = Path(__file__).parent / "templates"
MARKDOWN_EXTENSIONS = ["attr_list", "md_in_html", "tables", "def_list"]
EDITIONS = ("print", "digital", "designer")
SUFFIX = {"print": "", "digital": "-digital", "designer": "-designer"}
OUTER_MM = 14.0  # the outer margin of the press editions (the template's @page :left/:right)


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


def __getattr__(name: str) -> Any:
    """``pdf.weasyprint``, loaded on first use (after fontconfig is pointed at the shipped fonts, above): a build's
    own process lays out no page, so only its PDF workers hold WeasyPrint (tens of MB)."""
    if name == "weasyprint":
        import weasyprint

        return weasyprint
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class PrintInput:
    check: BookCheck
    diagrams: Path  # the book's folder of site diagrams: base URL and readable folder (the PDFs embed their own)
    designer: bool = False
    impact: dict[str, Any] | None = None
    edition: str = ""  # "print", "digital" or "designer"; by default from ``designer``
    layout: Layout | None = None  # set by ``write_pdf``: the layout the edition settled on

    def __post_init__(self) -> None:
        self.edition = self.edition or ("designer" if self.designer else "print")
        if self.edition not in EDITIONS:
            raise ValueError(f"unknown edition {self.edition!r} (known: {', '.join(EDITIONS)})")
        self.designer = self.edition == "designer"

    @property
    def cmyk(self) -> bool:
        """Print and designer editions are laid out for press: CMYK colours, trim and bleed."""
        return self.edition != "digital"


@dataclass
class Layout:
    """What a rendering pass takes from the previous one: the page-dependent parts of the layout."""

    gutter_mm: float = 0.0
    index_pages: dict[str, list[int]] = field(default_factory=dict)  # term slug -> pages it is used on


def gutter_mm(pages: int) -> float:
    """The inner margin: 15 mm, and 1 mm more for every 32 pages past the first 32 (the spine eats them)."""
    return 15.0 + max(0, math.ceil(pages / 32) - 1)


# -- diagrams -----------------------------------------------------------------------------------------


def _data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def _diagrams(check: BookCheck, cmyk: bool) -> dict[tuple[str, str], str]:
    """Each checkpoint's SVG as a data URI: the engine's CMYK drawing for press, its RGB form for screens."""
    found = {}
    for result in check.results:
        for name, checkpoint in result.checkpoints.items():
            if checkpoint.svg is not None:
                svg = checkpoint.svg if cmyk else colours.svg_rgb(checkpoint.svg)
                # Named inside, so that two checkpoints drawing the same position still get their own alt text.
                label = re.sub(r"-+", "-", f"{result.example.id} {name}")  # "--" may not appear in a comment
                found[(result.example.id, name)] = _data_uri(f"{svg}<!-- {label} -->")
    return found


def _narrator(check: BookCheck) -> tuple[Any, Any] | None:
    """The engine's ``narrate`` module and a game to narrate with, when the engine has them."""
    narrate = getattr(check.engine, "narrate", None)
    if narrate is None or not hasattr(narrate, "narrate_state"):
        return None
    return narrate, check.engine.make_game(check.book.components)  # the default answers: as the book says


_DESC = re.compile(r"<desc>(.*?)</desc>", re.DOTALL)


def _alt_texts(check: BookCheck, uris: dict[tuple[str, str], str]) -> dict[str, str]:
    """Alt text per diagram URI: its caption, then the engine's own words for the position shown."""
    narrator = _narrator(check)
    alts = {}
    for result in check.results:
        for name, checkpoint in result.checkpoints.items():
            uri = uris.get((result.example.id, name))
            if uri is None:
                continue
            said = ""
            if narrator is not None:
                narrate, game = narrator
                with language(check.book.language):  # the engine's catalog for the edition's language
                    said = narrate.narrate_state(game, checkpoint.snapshot)
            elif checkpoint.svg and (found := _DESC.search(checkpoint.svg)):
                said = html.unescape(found.group(1))
            caption = (checkpoint.caption or name).rstrip(".")
            alts[uri] = f"{render.words(check.book)('diagram_alt', caption=caption)} {said}".strip()
    return alts


def _with_alt(fragment: str, alts: dict[str, str]) -> str:
    """Replace each diagram's alt (its caption) by the full text alternative."""
    def one(match: re.Match[str]) -> str:
        src = match.group(2)
        alt = alts.get(src)
        return match.group(0) if alt is None else f'<img alt="{html.escape(alt)}" src="{src}"'

    return re.sub(r'<img alt="([^"]*)" src="([^"]+)"', one, fragment)


# -- the HTML ------------------------------------------------------------------------------------------


def _html(markdown_text: str) -> str:
    return markdown.markdown(markdown_text, extensions=MARKDOWN_EXTENSIONS)


_TERM_LINK = re.compile(r'<a class="term" href="#(term-[a-z0-9-]+)">')


def _mark_terms(fragment: str, counter: Iterator[int]) -> str:
    """Give every glossary-term link an anchor of its own, so the index can find the page it is on."""
    return _TERM_LINK.sub(lambda m: f'<a class="term" id="ix-{m.group(1)}-{next(counter)}" href="#{m.group(1)}">',
                          fragment)


def _example_blocks(fragment: str) -> str:
    """Keep an example's title, verified mark, rules line and first paragraph together on one page, with its
    diagram when the diagram comes right after that paragraph; the rest may break anywhere."""
    paragraphs = [m.start() for m in re.finditer(r"<p>", fragment)]  # the rules line, then the example's text
    stops = [len(fragment), fragment.find('<div class="transcript"')] + paragraphs[2:3]
    end = min(stop for stop in stops if stop > 0)
    figure = fragment.find("<figure")
    if 0 <= figure < end:
        end = fragment.index("</figure>", figure) + len("</figure>")
    return f'<div class="example-lead">{fragment[:end]}</div>{fragment[end:]}'


def _linker(check: BookCheck, uris: dict[tuple[str, str], str]) -> render.Linker:
    return render.Linker(
        rule=lambda rule_id: f"#{rule_id}",
        example=lambda example_id: f"#{example_id}",
        diagram=lambda example_id, cp: uris[(example_id, cp)],
        glossary=lambda: "",
    )


def _index(book: Any, used: dict[str, list[int]]) -> list[dict[str, Any]]:
    """Every glossary term and alias, in the book's language's alphabetical order (accents with their letter in
    French), with the pages it is used on and its definition's."""
    entries = []
    for term in book.glossary:
        slug = render.term_slug(term.term)
        for name in [term.term, *term.aliases]:
            entries.append({"name": name, "slug": slug, "see": term.term if name != term.term else "",
                            "pages": used.get(slug, []), "rule": term.rule})
    lang = render.words(book).lang
    return sorted(entries, key=lambda e: sort_key(e["name"], lang))


def print_html(job: PrintInput, layout: Layout | None = None, part: str = "book", fillers: int = 0,
               anchors: dict[str, int] | None = None) -> str:
    """The edition's HTML; ``part="fillers"`` gives only the ``fillers`` pages that pad it before the back cover
    (``anchors`` then gives the page numbers they cite)."""
    layout = layout or Layout(gutter_mm=gutter_mm(0))
    check, book = job.check, job.check.book
    t = render.words(book)
    uris = _diagrams(check, job.cmyk)
    alts = _alt_texts(check, uris)
    link = _linker(check, uris)
    counter = iter(range(1, 1_000_000))
    chapters = [{"id": c.id, "html": _mark_terms(_html(render.chapter_markdown(c, book, link, designer=job.designer)),
                                                  counter)}
                for c in book.chapters]
    toc = [{"id": r.id, "label": f"{r.number} {r.title}", "level": r.level}
           for c in book.chapters for r in c.rules if r.level <= 2]
    examples = [{"html": _example_blocks(_with_alt(_html(render.example_markdown(r, book, link, heading="##",
                                                                                designer=job.designer)),
                                                   alts))}
                for r in check.results]
    designer = []
    if job.designer:
        assert check.trace is not None
        designer = [
            {"id": "designer-questions", "title": t("designer_questions"),
             "html": _html(render.questions_markdown(book, link, job.impact))},
            {"id": "play-analysis", "title": t("simulated_play"),
             "html": _html(cached_designer_markdown(book.root, book.id, cmyk=job.cmyk, heading=False))},
            {"id": "change-log", "title": t("change_log"), "html": _html(render.changelog_markdown(book, link))},
            {"id": "rule-coverage", "title": t("rule_coverage"),
             "html": _html(render.coverage_markdown(book, check.trace, link))},
        ]
    game = colours.game_palette(check.engine)
    back = cover.cover_text(book, game)
    palette = {name: colours.css(value, job.cmyk) for name, value in {**game, **colours.HOUSE}.items()}
    palette["cover"] = colours.css(game[back.background], job.cmyk)
    palette["cover_ink"] = colours.css(game[back.ink], job.cmyk)
    width, height = book.trim
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["css_string"] = _css_string
    label = {"print": "", "digital": t("digital_edition"), "designer": t("designer_edition")}[job.edition]
    page = env.get_template("print.html").render(
        book=book, facts=render.book_facts(book), chapters=chapters, toc=toc, examples=examples,
        glossary=[{"term": term.term, "slug": render.term_slug(term.term), "definition": term.definition,
                   "rule": term.rule,
                   "number": book.rules[term.rule].number}
                  for term in sorted(book.glossary, key=lambda entry: sort_key(entry.term, t.lang))],
        index=_index(book, layout.index_pages), part=part, fillers=fillers, pages=anchors or {},
        first_filler=(anchors or {}).get("back-cover", 0),
        at_a_glance=[e for e in toc if e["level"] == 1],
        designer=designer, width=width, height=height, fonts=FONTS.as_uri(), edition=job.edition,
        edition_label=label, colour=palette, profile=colours.PROFILE.as_uri() if job.cmyk else "",
        gutter=f"{layout.gutter_mm:g}mm", half=f"{(layout.gutter_mm + OUTER_MM) / 2:g}mm", cover=back,
        artwork=_data_uri(cover.artwork(game, book.id, job.cmyk)), t=t, lang=t.lang)
    return typeset_html(page, t.lang)  # French spacing and quotation marks, in text nodes only


def _css_string(text: str) -> Markup:
    """``text`` as a CSS string literal, for generated content (``content: ", p. "``) in the template's style."""
    escaped = "".join(ch if ch.isalnum() or ch in " .,;:!?'-" else f"\\{ord(ch):06x}" for ch in text)
    return Markup(f'"{escaped}"')


# -- rendering -------------------------------------------------------------------------------------------


def _anchor_pages(document: Any) -> dict[str, int]:
    """Every anchor (HTML id) and the page (1-based) it landed on, read back from WeasyPrint's layout."""
    return {anchor: number for number, page in enumerate(document.pages, start=1) for anchor in page.anchors}


def _used_pages(anchors: dict[str, int]) -> dict[str, list[int]]:
    """Term slug -> the pages its uses (and its glossary entry) are on."""
    used: dict[str, set[int]] = {}
    for anchor, number in anchors.items():
        match = re.fullmatch(r"ix-(term-[a-z0-9-]+)-\d+", anchor)
        if match or anchor.startswith("term-"):
            used.setdefault(match.group(1) if match else anchor, set()).add(number)
    return {slug: sorted(pages) for slug, pages in used.items()}


def _render(job: PrintInput, layout: Layout, part: str = "book", fillers: int = 0,
            anchors: dict[str, int] | None = None) -> Any:
    from rulepress.publish.fetch import ProjectFetcher  # only the build's and the project's own files

    fetcher = ProjectFetcher(job.diagrams.parent.parent, job.check.book.root, colours.COLOR)
    source = print_html(job, layout, part=part, fillers=fillers, anchors=anchors)
    import weasyprint  # here, not at the top: see __getattr__

    return weasyprint.HTML(string=source, base_url=str(job.diagrams), url_fetcher=fetcher).render()


def lay_out(job: PrintInput, settled: Layout | None = None, passes: int = 3) -> tuple[Any, Layout]:
    """Render until the index's page numbers and the gutter agree with the pages they are printed on.

    ``settled`` is a layout already found for the same text block (the print edition's, reused by the digital
    and designer editions, which paginate the same up to the index): one pass then.
    """
    if settled is not None:
        return _render(job, settled), settled
    layout = Layout(gutter_mm=gutter_mm(0))
    for _ in range(passes):
        document = _render(job, layout)
        pages = len(document.pages)
        wanted = Layout(gutter_mm(pages + (-pages) % 4), _used_pages(_anchor_pages(document)))
        if wanted == layout:
            return document, layout
        layout = wanted
        del document  # before the next pass: two laid-out books at once are a worker's peak memory
    raise RuntimeError(f"{job.check.book.id} {job.edition} edition: the index page numbers did not settle in "
                       f"{passes} passes")


def _with_fillers(job: PrintInput, layout: Layout, document: Any) -> Any:
    """Pad a press edition to a multiple of 4 with intended pages, placed before the back cover."""
    count = (-len(document.pages)) % 4
    if not job.cmyk or not count:
        return document
    anchors = _anchor_pages(document)
    # The first filler takes the back cover's place; the template starts the fillers on that side of the spread.
    anchors["back-cover"] = len(document.pages)
    fillers = _render(job, layout, part="fillers", fillers=count, anchors=anchors)
    pages = fillers.pages[1:] if len(document.pages) % 2 == 0 else fillers.pages  # drop the side-setting page
    if len(pages) != count:
        raise RuntimeError(f"{job.check.book.id}: {count} filler pages asked for, {len(pages)} laid out")
    return document.copy([*document.pages[:-1], *pages, document.pages[-1]])


@contextmanager
def font_scratch() -> Iterator[None]:
    """A temporary folder of our own for WeasyPrint's copies of the @font-face fonts, removed afterwards.

    WeasyPrint copies each book font into a ``mkdtemp`` folder it deletes only when its font configuration is
    garbage-collected: never in a PDF worker, which exits without collecting (2.8 MB left in the temporary
    folder per PDF).  A killed worker leaves this folder inside the one :func:`rulepress.publish.pdfpool`
    points ``tempfile`` at, in the project's staging area, which the next build sweeps.
    """
    folder = tempfile.mkdtemp(prefix="rulepress-fonts-")
    saved = tempfile.tempdir
    tempfile.tempdir = folder
    try:
        yield
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(folder, ignore_errors=True)


def write_pdf(job: PrintInput, target: Path, timing: dict[str, float] | None = None,
              settled: Layout | None = None) -> int:
    """Render the edition to ``target``; returns the page count (a multiple of 4 for the press editions).

    ``timing`` receives seconds spent in our own HTML generation ("own") and in WeasyPrint ("tool");
    ``settled`` is the print edition's layout, which the other editions reuse (see ``lay_out``).
    """
    start = time.perf_counter()
    page_html = print_html(job)  # timed on its own: the passes below repeat it, WeasyPrint's layout dominates
    if job.edition != "designer":  # rule IDs and engine notation belong to the designer edition alone
        problems = check_player_text(page_html, job.check.book, f"pdf/{target.name}")
        if problems:
            raise BuildRefused(problems)
    middle = time.perf_counter()
    with font_scratch():
        document, layout = lay_out(job, settled)
        job.layout = layout
        document = _with_fillers(job, layout, document)
        target.parent.mkdir(parents=True, exist_ok=True)
        options: dict[str, Any] = {"pdf_variant": "pdf/x-4"} if job.edition == "print" else {}
        if job.edition == "digital":
            options["pdf_tags"] = True
        document.write_pdf(target, **options)
        pages = len(document.pages)
        del document  # its fonts live in the scratch folder
    if timing is not None:
        timing["own"] = timing.get("own", 0.0) + middle - start
        timing["tool"] = timing.get("tool", 0.0) + time.perf_counter() - middle
    return pages


def render_editions(report: Report, impacts: dict[str, Any], staging: Path, timings: Any) -> None:
    """Every edition of every book into ``staging/pdf``; ``timings`` is the build's ``Timings``."""
    from rulepress.render.languages import pdf_name, translations

    books = [(check, None) for check in report.books]
    books += [(check, lang) for lang, checks in translations(report).items() for check in checks]
    for check, lang in books:
        book_id = check.book.id
        diagrams = staging / book_id / "diagrams"
        diagrams.mkdir(parents=True, exist_ok=True)
        settled: Layout | None = None
        for edition in EDITIONS:  # print first: the others reuse its settled layout
            name = pdf_name(book_id, lang) + SUFFIX[edition]
            start = time.perf_counter()
            job = PrintInput(check, diagrams, impact=impacts.get(book_id) if edition == "designer" else None,
                             edition=edition)
            split: dict[str, float] = {}
            timings.pages[name] = write_pdf(job, staging / "pdf" / f"{name}.pdf", split, settled)
            settled = settled or job.layout
            timings.pdf[name] = time.perf_counter() - start
            timings.own += split["own"]
            timings.tools += split["tool"]
