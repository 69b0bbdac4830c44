"""The PDF editions, made with WeasyPrint from one template: print, digital and designer.

- print (``<book>.pdf``): PDF/X-4, every colour CMYK (``device-cmyk``) with the output intent from
  ``rulepress/color/``, trim and 3 mm bleed, mirrored margins whose gutter grows with the page count (the text
  block keeps its width: the outer margin gives what the gutter takes), a page count that is a multiple of 4
  (padded with intended pages before the back cover);
- digital (``<book>-digital.pdf``): the print edition's pages, made from its layout (``digital_from_press``:
  no bleed, no filler pages, the text block centred, covers of its own), RGB (the same palette, converted through
  the book's own output intent as it is written: ``weasyprint_patches.in_screen_colours``), tagged, titled, alt
  text on every diagram;
- designer (``<book>-designer.pdf``): the print layout plus the designer's parts.

Fonts come only from ``rulepress/fonts/``: fontconfig is pointed at that folder alone before WeasyPrint
loads, so nothing the system happens to have can slip into a book.

Each edition is laid out once (:func:`lay_out`): the body (covers to the index's first page) in one pass, then
the index, the filler pages and the back cover in a small second one numbered on from the body, with the page
numbers the body's layout gave.  The gutter depends on the final page count, but not the text block's width,
so the laid-out pages are moved sideways to it instead of laid out again.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import html
import math
import os
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import markdown
from markupsafe import Markup

from rulepress import account, audience
from rulepress.analyze.report import cached_designer_markdown  # the plots: drawn once, not on every build
from rulepress.errors import BuildRefused
from rulepress.i18n import language
from rulepress.proof import Proof
from rulepress.render import book_figures, cover, page_flow, turn_summary
from rulepress.render import markdown as render
from rulepress.render import palette as colours
from rulepress.render import weasyprint_patches as patches
from rulepress.render.player_text import check_player_text
from rulepress.render.typography import soft_hyphens, sort_key, typeset_html
from rulepress.verify.gate import BookCheck

FONTS = Path(__file__).parent.parent / "fonts"
TEMPLATES = Path(__file__).parent / "templates"
MARKDOWN_EXTENSIONS = ["attr_list", "md_in_html", "tables", "def_list"]
EDITIONS = ("print", "digital", "designer")
SUFFIX = {"print": "", "digital": "-digital", "designer": "-designer"}
BASE_GUTTER_MM = 15.0  # the inner margin of the press editions up to 32 pages
OUTER_MM = 14.0  # their outer margin at that gutter: it shrinks as the gutter grows (see ``margins``)
MIN_OUTER_MM = 8.0  # never less: running heads and folios sit on the outer edge (the safe area is 5 mm)
# The pages a press edition may need before its back cover to reach a multiple of 4 (each one page): a player aid
# (the turn summary, full size), the box's contents as a checklist (book.yaml's cover.components; without them,
# the game at a glance: its chapters and sections with their pages) and one page for notes, never more.  PADDING
# says which of them each count needs; where 3 are needed, the index is first set denser (3 columns), which may
# save a page and need none.
FILLERS = ("aid", "box", "notes")
PADDING = {0: (), 1: ("notes",), 2: ("aid", "notes"), 3: ("aid", "box", "notes")}
PX_PER_MM = 96 / 25.4  # WeasyPrint lays out in CSS pixels


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
    stamp: Stamp | None = None  # what its PDF is dated and identified by (a print edition's; None: undated)
    fragments: dict[str, Any] | None = field(default=None, repr=False)  # its HTML parts, made once (print_html)

    def __post_init__(self) -> None:
        self.edition = self.edition or ("designer" if self.designer else "print")
        if self.edition not in EDITIONS:
            raise ValueError(f"unknown edition {self.edition!r} (known: {', '.join(EDITIONS)})")
        self.designer = self.edition == "designer"

    @property
    def cmyk(self) -> bool:
        """Print and designer editions are laid out for press: CMYK colours, trim and bleed."""
        return self.edition != "digital"

    @property
    def screen(self) -> Proof | None:
        """For a screen (the digital edition): the book's proof, every ink's screen colour; None for press."""
        return None if self.cmyk else self.check.proof


@dataclass(frozen=True)
class Stamp:
    """What makes a print edition's PDF the same bytes every time: its date (the sources', not the clock:
    rulepress/publish/pdfstore.py ``source_epoch``), set as the document's metadata, and the name its PDF/X
    document ID is derived from."""

    epoch: int  # seconds since 1970-01-01 UTC
    name: str  # the edition's file name without .pdf

    @property
    def date(self) -> str:
        """The date as WeasyPrint's metadata takes it (W3C, in UTC)."""
        return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(self.epoch))


@dataclass
class Layout:
    """The page-dependent parts of an edition's layout, as it settled."""

    gutter_mm: float = BASE_GUTTER_MM
    index_pages: dict[str, list[int]] = field(default_factory=dict)  # term slug -> pages it is used on
    # term slug -> (the section it is used in, its page), in the book's order; "" for its glossary entry
    index_uses: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    rule_pages: dict[str, int] = field(default_factory=dict)  # rule ID -> the page its heading is on (the aid's)
    word_anchors: dict[str, list[str]] = field(default_factory=dict)  # index word slug -> its uses' anchors


def gutter_mm(pages: int) -> float:
    """The inner margin: 15 mm, and 1 mm more for every 32 pages past the first 32 (the spine eats them)."""
    return BASE_GUTTER_MM + max(0, math.ceil(pages / 32) - 1)


def margins(gutter: float) -> tuple[float, float]:
    """(inner, outer) margins of a press page for ``gutter``: the outer margin gives up what the gutter takes past
    15 mm, so the text block's width, and with it every page break, is the same for any gutter, down to
    ``MIN_OUTER_MM`` (a book of over 220 pages), past which the text block narrows."""
    return gutter, max(MIN_OUTER_MM, BASE_GUTTER_MM + OUTER_MM - gutter)


@dataclass
class Tail:
    """What the part after the body (index, fillers, back cover) is laid out with, from the body's layout."""

    first: int  # the page number the index starts on
    fillers: tuple[str, ...] = ()  # filler pages to lay out (FILLERS); the ones the page count does not need go
    dense: bool = False  # the index set in 3 columns, smaller (where it saves the press edition 3 filler pages)


# -- diagrams -----------------------------------------------------------------------------------------


def _data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def _diagrams(check: BookCheck, screen: Proof | None) -> dict[tuple[str, str], str]:
    """Each checkpoint's SVG as a data URI: the engine's CMYK drawing for press, its RGB form for screens."""
    found = {}
    for result in check.results:
        for name, checkpoint in result.checkpoints.items():
            if checkpoint.svg is not None:
                svg = checkpoint.svg if screen is None else screen.svg(checkpoint.svg)
                # Named inside, so that two checkpoints drawing the same position still get their own alt text.
                label = re.sub(r"-+", "-", f"{result.example.id} {name}")  # "--" may not appear in a comment
                found[(result.example.id, name)] = _data_uri(f"{svg}<!-- {label} -->")
    return found


def _narrator(check: BookCheck) -> tuple[Any, Any] | None:
    """The engine's narration and a game to narrate with, when the engine has them."""
    narrate = check.engine.narration
    if narrate is None:
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
                    said = narrate.narrate_state(game, checkpoint.shown)
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
_INDEX_WORD = re.compile(r'<span class="index-word" data-word="(word-[a-z0-9-]+)">')
_RULE_OR_USE = re.compile(r'<h[1-3][^>]* id="([^"]+)"|<(?:a class="term"|span class="index-word") '
                          r'id="(ix-(?:term|word)-[a-z0-9-]+-\d+)"')
_USE = re.compile(r"ix-((?:term|word)-[a-z0-9-]+)-\d+")


def _mark_terms(fragment: str, counter: Iterator[int]) -> str:
    """Give every glossary-term link and index word (``render.mark_index_words``) an anchor of its own, so the
    index can find the page it is on."""
    fragment = _TERM_LINK.sub(lambda m: f'<a class="term" id="ix-{m.group(1)}-{next(counter)}" href="#{m.group(1)}">',
                              fragment)
    return _INDEX_WORD.sub(lambda m: f'<span class="index-word" id="ix-{m.group(1)}-{next(counter)}">', fragment)


def _example_blocks(fragment: str) -> str:
    """Keep an example's title, its marks, its rules line and the paragraph that opens it together on one page
    (``.example-lead``); its diagrams and steps follow, each diagram whole, the steps breaking between steps."""
    rules = fragment.find("<p><em>")  # the rules line: the lead's last paragraph but one
    if rules < 0:
        return fragment
    end = fragment.index("</p>", rules) + len("</p>")
    following = re.match(r"\s*<p>", fragment[end:])
    if following:
        end = fragment.index("</p>", end + following.end()) + len("</p>")
    # The rules line is marked: a diagram the page flow sets first goes under it (render/page_flow.py), whatever
    # the lead holds above it (the designer edition's "verified" line).
    lead = fragment[:rules] + '<p class="example-rules">' + fragment[rules + len("<p>"):end]
    return f'<div class="example-lead">{lead}</div>{fragment[end:]}'


def examples_beside_rules(book: Any) -> bool:
    """Whether the book's PDFs print each example beside its rules (book.yaml ``examples: beside-rules``, the
    default) rather than in a chapter of their own (``examples: chapter``)."""
    return book.data.get("examples", "beside-rules") == "beside-rules"


def _use_sections(fragment: str, sections: dict[str, str]) -> dict[str, str]:
    """Each glossary-term use's anchor in a chapter's HTML and the section (a rule ID) it stands in."""
    found, current = {}, ""
    for match in _RULE_OR_USE.finditer(fragment):
        if match.group(1):
            current = sections.get(match.group(1), current)  # an example's heading is not a rule: still in it
        else:
            found[match.group(2)] = current
    return found


def _linker(check: BookCheck, uris: dict[tuple[str, str], str]) -> render.Linker:
    return render.Linker(
        rule=lambda rule_id: f"#{rule_id}",
        example=lambda example_id: f"#{example_id}",
        diagram=lambda example_id, cp: uris[(example_id, cp)],
        glossary=lambda: "",
    )


def page_ranges(pages: Any) -> str:
    """Page numbers as a reader's index prints them: "3–5, 9" (runs of consecutive pages joined)."""
    numbers = sorted(set(pages))
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs)


IRREGULAR_PLURALS = {"die": "dice", "mouse": "mice", "child": "children", "foot": "feet", "tooth": "teeth",
                     "man": "men", "woman": "women", "person": "people", "œil": "yeux", "ciel": "cieux"}
MAX_SUB_ENTRIES = 6  # past this many sections, an index entry's sub-entries are its chapters


def _plural_of(word: str, of: str) -> bool:
    return (word == of or word in (of + "s", of + "es", of + "x") or IRREGULAR_PLURALS.get(of) == word
            or (of.endswith("y") and word == of[:-1] + "ies")
            or (of.endswith(("f", "fe")) and word == of.rstrip("e")[:-1] + "ves")
            or (of.endswith("al") and word == of[:-2] + "aux"))


def inflection_of(name: str, term: str) -> bool:
    """Whether ``name`` is ``term`` or ``term`` with words in the plural ("Dusk cards", "Fireflies", "wild dice",
    "Wolves", "Lueurs étranges"): an index folds it into the entry instead of printing "Dusk cards, see Dusk card"."""
    ours, theirs = name.lower().split(), term.lower().split()
    return len(ours) == len(theirs) and all(_plural_of(a, b) for a, b in zip(ours, theirs, strict=True))


def _word_rule(book: Any, word: str) -> str | None:
    """The rule an index word names, if any: the first whose title is the word ("Draw": rule 4.3 Draw)."""
    wanted = word.casefold()
    return next((rule.id for rule in book.rules.values() if rule.title.casefold() == wanted and not rule.designer),
                None)


def _entry(book: Any, name: str, target: str, uses: list[tuple[str, int]], own: str) -> dict[str, Any]:
    """An index entry: the pages of its own section (and glossary entry) and, when it is used in more than one
    other section, a sub-entry for each (each chapter, past ``MAX_SUB_ENTRIES``)."""
    elsewhere: dict[str, list[int]] = {}
    for section, page in uses:
        if section not in ("", own):
            elsewhere.setdefault(section, []).append(page)
    if len(elsewhere) > MAX_SUB_ENTRIES:  # by chapter, so that an entry stays a few lines long
        chapters: dict[str, list[int]] = {}
        for section, pages in elsewhere.items():
            chapters.setdefault(book.rules[section].chapter, []).extend(pages)
        elsewhere = chapters
    if len(elsewhere) > 1:
        main = [page for section, page in uses if section in ("", own)]
        subs = [{"name": book.rules[section].title, "pages": page_ranges(pages)}
                for section, pages in elsewhere.items()]
    else:
        main, subs = [page for _, page in uses], []
    return {"name": name, "slug": target, "see": "", "pages": page_ranges(main), "subs": subs}


def head_word(name: str) -> str:
    """An index entry's head as the glossary's terms are written, whatever the case a word or a term's other name is
    listed in: its first letter a capital ("fight": Fight, "start player": Start player, "sac": Sac), the rest as
    listed ("Back on Track")."""
    return name[:1].upper() + name[1:]


def _index(book: Any, layout: Layout) -> list[dict[str, Any]]:
    """The index: every glossary term and every word book.yaml's ``index`` lists (the actions, the main nouns of
    play), in the book's language's alphabetical order (accents with their letter in French), with the pages of
    its definition (a term's rule and glossary entry; the rule a word names, if any) and, when it is used in more
    than one section, a sub-entry for each section with its pages; every other name of a term as a "see" entry,
    except its plural, folded into it.  A word links to the rule it names, else to its first use.  Every head is
    written as the glossary's terms are (:func:`head_word`)."""
    entries = []
    sections = render.sections(book)
    names = {term.term.casefold() for term in book.glossary}
    for term in book.glossary:
        slug = render.term_slug(term.term)
        entries.append(_entry(book, head_word(term.term), slug, layout.index_uses.get(slug, []), sections[term.rule]))
        named = [term.term]
        for alias in term.aliases:
            names.add(alias.casefold())
            if not any(inflection_of(alias, other) for other in named):
                entries.append({"name": head_word(alias), "slug": slug, "see": term.term, "pages": "", "subs": []})
            named.append(alias)
    for word in book.data.get("index") or []:
        slug = render.word_slug(word)
        uses = layout.index_uses.get(slug, [])
        rule = _word_rule(book, word)
        if word.casefold() in names or not uses:
            continue  # a glossary term already (its entry is the term's), or never used where the index looks
        first = min((anchor for anchor in layout.word_anchors.get(slug, [])), default="", key=_anchor_order)
        entries.append(_entry(book, head_word(word), rule or first, uses, sections[rule] if rule else ""))
    lang = render.words(book).lang
    return sorted(entries, key=lambda e: sort_key(e["name"], lang))


def _anchor_order(anchor: str) -> int:
    return int(anchor.rsplit("-", 1)[1])


def _tokens(uris: dict[tuple[str, str], str]) -> tuple[dict[tuple[str, str], str], Callable[[str], str]]:
    """A short stand-in for each diagram's data URI, and a function putting the URIs back into HTML.

    Markdown's link pattern scans a whole data URI (tens of kB) at every image: a third of a book's conversion
    time.  The stand-ins carry a random part, so no text in the sources can name one."""
    nonce = secrets.token_hex(8)
    short = {key: f"rulepress-{nonce}-{number}.svg" for number, key in enumerate(uris)}
    back = {token: uris[key] for key, token in short.items()}
    pattern = re.compile(rf"rulepress-{nonce}-\d+\.svg")
    return short, lambda fragment: pattern.sub(lambda m: back[m.group(0)], fragment)


def _fragments(job: PrintInput) -> dict[str, Any]:
    """The edition's chapters, examples, contents and designer's parts as HTML: made once per job, since an
    edition's HTML is asked for more than once (checked whole, then laid out as body and tail)."""
    if job.fragments is None:
        base = _base_fragments(job)
        job.fragments = {**base, **_chapters(job, base)}
    return job.fragments


def _base_fragments(job: PrintInput) -> dict[str, Any]:
    """The contents, the designer's parts, the examples a player's book prints and how each is made as HTML."""
    check, book = job.check, job.check.book
    t = render.words(book)
    uris = _diagrams(check, job.screen)
    alts = _alt_texts(check, uris)
    drawn = book_figures.figure_files(check.figures, t.lang)  # the components, the setup diagram, the key
    shown = {name: _data_uri(svg if job.screen is None else job.screen.svg(svg)) for name, svg in drawn.items()}
    short, restore = _tokens({**uris, **{("figure", name): uri for name, uri in shown.items()}})
    link = _linker(check, short)
    placed = book_figures.placed(check.figures, t, lambda name, svg: short[("figure", name)])
    # The key to the diagrams, once: under the components section, else before the book's first diagram.
    legend = "" if book_figures.keyed_with_components(check.figures) else book_figures.legend_markdown(
        check.figures, t, lambda name, svg: shown[name])

    # The language's "p." and "rule", and the engines' own "rule" (their messages, printed in the designer's steps).
    joined = (t("page_abbrev"), t("rule_ref", number="").strip(), "rule")

    def as_html(markdown_text: str) -> str:
        # Break points and tied references once per edition, here (print_html lays out the page three times).
        return restore(typeset_html(_html(markdown_text), t.lang, hyphenate=True, joined=joined, spacing=False))

    beside = examples_beside_rules(book)
    reader = audience.DESIGNER if job.designer else audience.PLAYERS
    # A player's book prints the player's examples alone (rulepress/audience.py).
    results = [r for r in check.results if job.designer or not audience.designer_only(r.example, book)]
    def example_html(result: Any) -> str:
        text = render.example_markdown(result, book, link, heading="###" if beside else "##",
                                       designer=job.designer, verified=False, audience=reader)
        return _example_blocks(_with_alt(as_html(text), alts))

    toc = [{"id": r.id, "label": f"{r.number} {r.title}", "level": r.level}
           for c in book.chapters for r in c.rules if r.level <= 2 and (job.designer or not r.designer)]
    designer = []
    if job.designer:
        assert check.trace is not None
        designer = [
            {"id": "designer-questions", "title": t("designer_questions"),
             "html": as_html(render.questions_markdown(book, link, job.impact))},
            {"id": "play-analysis", "title": t("simulated_play"),
             "html": as_html(cached_designer_markdown(book.root, book.id, t, book, cmyk=job.cmyk,
                                                     heading=False))},
            {"id": "change-log", "title": t("change_log"), "html": as_html(render.changelog_markdown(book, link))},
            {"id": "rule-coverage", "title": t("rule_coverage"),
             "html": as_html(render.coverage_markdown(book, check.trace, link))},
        ]
    return {"toc": toc, "designer": designer, "beside": beside, "results": results, "reader": reader,
            "example_html": example_html, "as_html": as_html, "link": link, "placed": placed, "legend": legend}


def _chapters(job: PrintInput, base: dict[str, Any]) -> dict[str, Any]:
    """The chapters, each example boxed after the section its rules place it in (``example_sections``), marked
    with its ID for the page flow (``rulepress.render.page_flow``); or the examples in a chapter of their own."""
    check, book = job.check, job.check.book
    reader, results, example_html, as_html = base["reader"], base["results"], base["example_html"], base["as_html"]
    legend = base["legend"]  # the key to the diagrams, before the first example that prints one (unless placed)
    slots: dict[str, str] = {}  # a placeholder in a chapter's Markdown -> the examples it stands for, as HTML
    after: dict[str, str] = {}
    drawing: set[str] = set()  # the placeholders whose examples print a diagram
    if base["beside"]:
        for rule_id, results_here in render.example_sections(book, results, reader).items():
            slot = f"rulepress-examples-{secrets.token_hex(8)}"
            after[rule_id] = f'<div class="{slot}"></div>'
            slots[after[rule_id]] = ('<aside class="examples">' + "".join(
                f'<section class="example" data-example="{html.escape(r.example.id)}">{example_html(r)}</section>'
                for r in results_here) + "</aside>")
            if any(cp.svg for r in results_here for cp in r.checkpoints.values()):
                drawing.add(after[rule_id])
    counter = iter(range(1, 1_000_000))
    chapters = []
    sections = render.sections(book)
    uses: dict[str, str] = {}
    keyed = False
    for chapter in book.chapters:
        if reader == audience.PLAYERS and chapter.rules[0].designer:
            continue  # a chapter for the designer alone (its examples are the designer's too)
        fragment = as_html(render.chapter_markdown(chapter, book, base["link"], designer=job.designer,
                                                   trace=check.trace, after=after, audience=reader,
                                                   index_words=list(book.data.get("index") or []),
                                                   figures=base["placed"]))
        for placeholder, examples in slots.items():
            if legend and not keyed and placeholder in drawing and placeholder in fragment:
                examples = examples.replace('<aside class="examples">', '<aside class="examples">' + legend, 1)
                keyed = True
            fragment = fragment.replace(placeholder, examples)
        fragment = _mark_terms(fragment, counter)
        uses.update(_use_sections(fragment, sections))
        chapters.append({"id": chapter.id, "html": fragment, "aid": "aid" in chapter.rules[0].classes})
    examples = [] if base["beside"] else [{"html": example_html(r)} for r in results]
    if examples and legend and not keyed:
        examples[0]["html"] = legend + examples[0]["html"]
    return {"chapters": chapters, "examples": examples, "uses": uses}


@functools.cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["css_string"] = _css_string
    return env.get_template("print.html")


def print_html(job: PrintInput, layout: Layout | None = None, part: str = "book", tail: Tail | None = None) -> str:
    """The edition's HTML: the whole book (``part="book"``, its index without page numbers), the body alone
    ("body": up to the index's first page), the rest ("tail": the index with ``layout``'s page numbers, up to
    ``tail.fillers`` filler pages and the back cover, its pages numbered from ``tail.first``), or the two covers
    alone ("covers": all a digital edition lays out of its own, ``digital_from_press``)."""
    if part not in ("book", "body", "tail", "covers") or (part == "tail") != (tail is not None):
        raise ValueError(f"part {part!r} with tail {tail!r}")
    layout = layout or Layout()
    check, book = job.check, job.check.book
    t = render.words(book)
    # The covers need none of the book's text (made once per edition, and a digital edition lays out nothing else).
    parts = _fragments(job) if part != "covers" else {"chapters": [], "toc": [], "examples": [], "designer": [],
                                                        "beside": True}
    game = colours.game_palette(check.engine.palette)
    back = cover.cover_text(book, game)
    # The book's own SVG, its engine's drawing of its game, or the motif drawn from its palette.
    art = cover.cover_art(book, check.cover_art, game, job.screen, t, check.figures.cover)
    palette = {name: colours.css(value, job.screen) for name, value in {**game, **colours.HOUSE}.items()}
    palette["cover"] = colours.css(game[back.background], job.screen)
    palette["cover_ink"] = colours.css(game[back.ink], job.screen)
    width, height = book.trim
    # A player's book says "version", never "edition": the workshop's word (rulepress/audience.py).
    label = {"print": "", "digital": t("screen_label"), "designer": t("designer_edition")}[job.edition]
    facts = render.book_facts(book)
    if not job.designer:
        facts = [(t("version") if name == t("edition") else name, value) for name, value in facts]
    aid = turn_summary.summary_html(turn_summary.turn_summary(book, t, layout.rule_pages), t)
    inner, outer = margins(layout.gutter_mm)
    if not job.cmyk:  # on screen the text block is centred: no gutter
        inner = outer = (inner + outer) / 2
    first = tail.first if tail is not None else 1
    side = first % 2 == 0  # a tail starting on a left-hand page follows a page that sets the side, dropped later
    page = _template().render(
        book=book, facts=facts, chapters=parts["chapters"], toc=parts["toc"],
        turn_summary=aid, aid_title=t("turn_summary"),
        examples=parts["examples"],
        glossary=[{"term": term.term, "slug": render.term_slug(term.term),
                   "definition": soft_hyphens(term.definition, t.lang),
                   "rule": term.rule,
                   "number": book.rules[term.rule].number}
                  for term in sorted(book.glossary, key=lambda entry: sort_key(entry.term, t.lang))],
        index=_index(book, layout) if part in ("book", "tail") else [], part=part,
        fillers=tail.fillers if tail is not None else (), dense=bool(tail and tail.dense),
        glance=turn_summary.summary_html(turn_summary.at_a_glance(book, layout.rule_pages), t)
        if tail is not None and "box" in tail.fillers and not back.components else "",
        first_page=first - side, side=side,
        beside=parts["beside"], designer=parts["designer"], width=width, height=height, fonts=FONTS.as_uri(),
        edition=job.edition,
        edition_label=label, colour=palette, profile=check.proof.path.as_uri() if job.cmyk else "",
        gutter=f"{inner:g}mm", outer=f"{outer:g}mm", cover=back,
        artwork=_data_uri(art.svg), artwork_alt=art.alt, t=t, lang=t.lang)
    # French spacing and quotation marks, in text nodes only (the break points are the fragments', _fragments).
    return typeset_html(page, t.lang)


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
        match = _USE.fullmatch(anchor)
        if match or anchor.startswith("term-"):
            used.setdefault(match.group(1) if match else anchor, set()).add(number)
    return {slug: sorted(pages) for slug, pages in used.items()}


def _uses(anchors: dict[str, int], sections: dict[str, str], book: Any) -> dict[str, list[tuple[str, int]]]:
    """Term slug -> (section, page) of each of its uses and of the rule defining it, and ("", page) for its
    glossary entry."""
    found: dict[str, set[tuple[str, int]]] = {}
    rule_sections = render.sections(book)
    for term in book.glossary:
        if term.rule in anchors:
            found.setdefault(render.term_slug(term.term), set()).add((rule_sections[term.rule], anchors[term.rule]))
    for word in book.data.get("index") or []:
        rule = _word_rule(book, word)
        if rule is not None and rule in anchors:  # the rule the word names: part of its entry's main pages
            found.setdefault(render.word_slug(word), set()).add((rule_sections[rule], anchors[rule]))
    for anchor, number in anchors.items():
        match = _USE.fullmatch(anchor)
        if match:
            found.setdefault(match.group(1), set()).add((sections.get(anchor, ""), number))
        elif anchor.startswith("term-"):
            found.setdefault(anchor, set()).add(("", number))
    return {slug: sorted(pairs, key=lambda pair: (pair[1], pair[0])) for slug, pairs in found.items()}


def _render(job: PrintInput, layout: Layout, part: str = "book", tail: Tail | None = None,
            timing: dict[str, float] | None = None) -> Any:
    from rulepress.render.fetch import ProjectFetcher  # only the build's and the project's own files

    start = time.perf_counter()
    fetcher = ProjectFetcher(job.diagrams.parent.parent, job.check.book.root, colours.COLOR)
    with account.part("PDF: pages generated (the edition's HTML)"):
        source = print_html(job, layout, part=part, tail=tail)
    middle = time.perf_counter()
    import weasyprint  # here, not at the top: see __getattr__

    # The body's examples are set as page floats (render/page_flow.py): no diagram leaves its page mostly empty.
    floats = page_flow.floats() if part in ("book", "body") else contextlib.nullcontext()
    with account.part("PDF: WeasyPrint lays out"), floats:
        document = weasyprint.HTML(string=source, base_url=str(job.diagrams), url_fetcher=fetcher).render()
    if timing is not None:
        timing["own"] = timing.get("own", 0.0) + middle - start
        timing["tool"] = timing.get("tool", 0.0) + time.perf_counter() - middle
    return document


def _join(job: PrintInput, body: Any, tail: Any, first: int) -> tuple[list[Any], int]:
    """The body's pages before the index, then the tail's: the index, the filler pages a press edition needs to
    reach a multiple of 4 (``PADDING``: those laid out that it does not need are dropped) and the back cover; with
    the number of filler pages it needed."""
    anchors = _anchor_pages(tail)
    if anchors.get("back-cover") != len(tail.pages):
        raise BuildRefused([f"{job.check.book.path('book.yaml')}: the back cover runs over "
                            f"{len(tail.pages) - anchors.get('back-cover', len(tail.pages)) + 1} pages in the "
                            f"{job.edition} edition: shorten its cover blurb, components or credits, or its "
                            "turn_summary (the groups and rules the player aid prints)"])
    if (overlap := _back_cover_overflow(tail.pages[-1])) > 0:
        raise BuildRefused([f"{job.check.book.path('book.yaml')}: the back cover's texts and turn summary run "
                            f"{overlap / PX_PER_MM:.1f} mm under its facts line in the {job.edition} edition: "
                            "shorten its cover blurb, components or credits, or its turn_summary (the groups and "
                            "rules the player aid prints)"])
    laid = sorted((kind for kind in FILLERS if f"filler-{kind}" in anchors), key=lambda k: anchors[f"filler-{k}"])
    starts = [anchors[f"filler-{kind}"] for kind in laid] + [anchors["back-cover"]]
    index = tail.pages[anchors["index"] - 1:starts[0] - 1]
    needed = (-(first - 1 + len(index) + 1)) % 4 if job.cmyk else 0
    kept = []
    for kind in PADDING[needed] if set(PADDING[needed]) <= set(laid) else ():  # laid out once the count is known
        at = laid.index(kind)
        page = tail.pages[starts[at] - 1:starts[at + 1] - 1]
        if len(page) != 1:
            raise RuntimeError(f"{job.check.book.id} {job.edition} edition: the {kind} page was laid out on "
                               f"{len(page)} pages")
        kept += page
    return [*body.pages[:first - 1], *index, *kept, tail.pages[-1]], needed


def _back_cover_overflow(page: Any) -> float:
    """How far (CSS px) the back cover's flowing content reaches below the top of its facts line (0 or less: it
    ends above it)."""
    from weasyprint.formatting_structure import boxes

    bottom, line = 0.0, None

    def walk(box: Any, inside_line: bool) -> None:
        nonlocal bottom, line
        element = getattr(box, "element", None)
        classes = (element.get("class") or "").split() if element is not None else []
        if "facts-line" in classes and getattr(box, "element_tag", None) == "p":
            line = box.position_y if line is None else min(line, box.position_y)
            inside_line = True
        if isinstance(box, (boxes.LineBox, boxes.ReplacedBox)) and not inside_line:
            bottom = max(bottom, box.position_y + box.margin_height())
            return
        for child in getattr(box, "children", ()):
            walk(child, inside_line)

    walk(page._page_box, False)
    return bottom - line if line is not None else 0.0


def _move_gutter(pages: list[Any], dx_mm: float) -> list[Any]:
    """``pages`` with each mirrored page's content moved ``dx_mm`` away from the spine (right on right-hand pages,
    left on left-hand ones; the covers stay): the same pages a layout with a gutter ``dx_mm`` wider gives, since
    the text block keeps its width (``margins``); WeasyPrint's boxes and backgrounds moved as its own layout
    places them (``weasyprint_patches.move_sideways``, only while the patches are in force)."""

    def shift(number: int, page: Any) -> float:
        if not dx_mm or patches.page_type(page) == "cover":
            return 0.0
        return dx_mm * PX_PER_MM * (1 if number % 2 else -1)  # page 1 is a right-hand page: its spine on the left

    return patches.move_sideways(pages, shift)


def lay_out(job: PrintInput, timing: dict[str, float] | None = None,
            guess: float = BASE_GUTTER_MM) -> tuple[Any, Layout, Any]:
    """The edition laid out once: the body (covers to the index's first page), then the index with the pages
    the body's layout gave its terms, the filler pages and the back cover (the tail), numbered on from the body;
    the two joined, and the mirrored pages moved sideways to the gutter the page count asks for.

    The body's pages do not depend on the tail (the index comes last, after the designer's parts), nor on the
    gutter while the text block keeps its width: only past that (over 220 pages, see ``margins``) is the book
    laid out again, with the gutter the first layout found; and, without rulepress's patches to WeasyPrint
    (rulepress/render/weasyprint_patches.py), whenever the gutter is not the one guessed, since the pages cannot
    be moved then.  Returns the joined document, its layout, and the tail's document (kept alive until the PDF is
    written: its pages' fonts belong to it).
    """
    for _ in range(3):
        layout = Layout(guess)
        body = _render(job, layout, "body", timing=timing)
        anchors = _anchor_pages(body)
        layout.index_pages = _used_pages(anchors)
        layout.index_uses = _uses(anchors, _fragments(job)["uses"], job.check.book)
        layout.rule_pages = {rule_id: anchors[rule_id] for rule_id in job.check.book.rules if rule_id in anchors}
        for anchor in anchors:
            if (match := _USE.fullmatch(anchor)) and match.group(1).startswith("word-"):
                layout.word_anchors.setdefault(match.group(1), []).append(anchor)
        first = anchors["index"]
        if set(body.pages[first - 1].anchors) != {"index"}:  # the body's last page is dropped for the tail's
            raise RuntimeError(f"{job.check.book.id} {job.edition} edition: the index does not start a page")
        # The tail without fillers says how many the page count needs; then laid out with exactly those (a page
        # dropped from between two others would leave the folios after it one too high).
        tail = _render(job, layout, "tail", Tail(first), timing)
        pages, needed = _join(job, body, tail, first)
        dense = False
        if needed == 3:  # a page too many: a denser index may save it, and the three fillers with it
            denser = _render(job, layout, "tail", Tail(first, dense=True), timing)
            tighter, still = _join(job, body, denser, first)
            if still < needed:
                tail, pages, needed, dense = denser, tighter, still, True
        if needed:
            tail = _render(job, layout, "tail", Tail(first, PADDING[needed], dense), timing)
            pages, _ = _join(job, body, tail, first)
        gutter = gutter_mm(len(pages))
        movable = not job.cmyk or gutter == guess or patches.in_force()  # a screen edition has no gutter
        if sum(margins(gutter)) == sum(margins(guess)) and movable:
            start = time.perf_counter()
            layout.gutter_mm = gutter
            with account.part("PDF: pages joined, gutter moved"):
                if job.cmyk:  # the digital edition's margins are even: no gutter to move to
                    pages = _move_gutter(pages, gutter - guess)
                document = body.copy(pages)
            if timing is not None:
                timing["own"] = timing.get("own", 0.0) + time.perf_counter() - start
            return document, layout, tail
        guess = gutter
        del body, tail, pages  # before the next pass: two laid-out books at once are a worker's peak memory
    raise RuntimeError(f"{job.check.book.id} {job.edition} edition: the gutter did not settle in 3 layouts")


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


@dataclass
class Digital:
    """A digital edition made from its print edition's layout (``write_pdf``): what to make, and what it came to."""

    job: PrintInput  # edition "digital"
    target: Path
    timing: dict[str, float] = field(default_factory=dict)  # as ``write_pdf``'s: "own" and "tool" seconds
    pages: int = 0


def press_for(screen: PrintInput) -> PrintInput:
    """The print edition whose layout a digital edition is made from."""
    return PrintInput(screen.check, screen.diagrams, edition="print", fragments=screen.fragments)


def write_pdf(job: PrintInput, target: Path | None, timing: dict[str, float] | None = None,
              digital: Digital | None = None) -> int:
    """Render the edition to ``target``; returns the page count (a multiple of 4 for the press editions).

    ``timing`` receives seconds spent in our own HTML generation ("own") and in WeasyPrint ("tool").
    ``digital``: the print edition's digital edition too, made from the same layout (``digital_from_press``);
    ``target`` None: that one alone (the print edition is laid out for it, not written).  A digital ``job`` is
    made that way, from its print edition's layout, while rulepress's patches to WeasyPrint are in force
    (rulepress/render/weasyprint_patches.py); without them every edition is laid out from its own HTML.
    """
    if job.edition == "digital" and patches.in_force():
        wanted = Digital(job, target) if target is not None else None
        write_pdf(press_for(job), None, None, wanted)
        if timing is not None and wanted is not None:
            for key, seconds in wanted.timing.items():
                timing[key] = timing.get(key, 0.0) + seconds
        return wanted.pages if wanted is not None else 0
    if digital is not None and job.edition != "print":
        raise ValueError(f"a digital edition is made from the print edition's layout, not the {job.edition}'s")
    split: dict[str, float] = {}
    start = time.perf_counter()
    if job.edition != "designer":  # rule IDs and engine notation belong to the designer edition alone
        # The whole book, checked as one (the messages give its lines): the body and tail laid out below add
        # only page numbers and the filler pages' fixed words to it.
        with account.part("PDF: player-text check (the whole edition's HTML, made for it)"):
            name = target.name if target is not None else f"{job.check.book.id}.pdf"
            problems = check_player_text(print_html(job), job.check.book, f"pdf/{name}")
        if problems:
            raise BuildRefused(problems)
    split["own"] = time.perf_counter() - start
    with font_scratch(), patches.speed_ups() as patched:
        document, layout, tail = lay_out(job, split)
        job.layout = layout
        pages = len(document.pages)
        if target is not None:
            middle = time.perf_counter()
            _write(document, job, target)
            split["tool"] = split.get("tool", 0.0) + time.perf_counter() - middle
        if digital is not None and patched:  # after the print edition is written: its pages are moved for the screen
            _write_digital(document, layout, digital)
        elif digital is not None:  # laid out from its own HTML
            digital.pages = write_pdf(digital.job, digital.target, digital.timing)
        del document, tail  # their fonts live in the scratch folder
    if timing is not None:
        for key, seconds in split.items():
            timing[key] = timing.get(key, 0.0) + seconds
    return pages


def _write(document: Any, job: PrintInput, target: Path) -> None:
    """``document`` (``job``'s, laid out) written to ``target``: a print edition as PDF/X-4, dated with its stamp
    (the document's metadata) and identified by it; a digital one tagged."""
    target.parent.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {"print": {"pdf_variant": "pdf/x-4"}, "digital": {"pdf_tags": True}}.get(job.edition, {})
    stamp = job.stamp if job.edition == "print" else None
    if stamp is not None:  # PDF/X needs both dates: WeasyPrint puts in the clock's for any it is not given
        document.metadata.created = document.metadata.modified = stamp.date
    with account.part("PDF: WeasyPrint writes"), \
            patches.document_id(stamp.name, stamp.epoch) if stamp is not None else contextlib.nullcontext():
        document.write_pdf(target, **options)


def _write_digital(press: Any, layout: Layout, digital: Digital) -> None:
    """``digital`` written from ``press``, its print edition's document as laid out (and written) with ``layout``."""
    job = digital.job
    split = digital.timing
    start = time.perf_counter()
    # What the digital edition's HTML has of its own (its covers' words; the rest is the print edition's, checked).
    with account.part("PDF: player-text check (the whole edition's HTML, made for it)"):
        problems = check_player_text(print_html(job, layout, part="covers"), job.check.book,
                                     f"pdf/{digital.target.name}")
    if problems:
        raise BuildRefused(problems)
    split["own"] = split.get("own", 0.0) + time.perf_counter() - start
    covers = _render(job, layout, "covers", timing=split)
    with account.part("PDF: pages joined, gutter moved"):
        start = time.perf_counter()
        document = digital_from_press(press, covers, layout)
        split["own"] += time.perf_counter() - start
    job.layout = layout
    middle = time.perf_counter()
    digital.target.parent.mkdir(parents=True, exist_ok=True)
    assert job.screen is not None
    with account.part("PDF: WeasyPrint writes"), patches.in_screen_colours(job.screen):
        document.write_pdf(digital.target, pdf_tags=True)
    split["tool"] = split.get("tool", 0.0) + time.perf_counter() - middle
    digital.pages = len(document.pages)
    del covers, document


def digital_from_press(press: Any, covers: Any, layout: Layout) -> Any:
    """The digital edition from its print edition's laid-out (and written) pages: the same pages, without the
    filler pages a press needs, moved sideways so that the text block is centred, trimmed (no bleed), between
    ``covers``, the digital edition's own covers (laid out for a page without bleed, with its edition's words).

    Its title, language and the rest of its metadata are the covers' (the digital edition's HTML); its colours
    are the screen's when it is written under ``weasyprint_patches.in_screen_colours``.  The text block has the same
    width on both (``margins``), so every line breaks alike: what the preflight's register check reads back."""
    inner = [page for page in press.pages[1:-1] if not any(anchor.startswith("filler-") for anchor in page.anchors)]
    gutter = layout.gutter_mm
    moved = _move_gutter([press.pages[0], *inner], sum(margins(gutter)) / 2 - gutter)[1:]
    printed = {id(page) for page in inner}
    pages = []
    for page in moved:
        page = patches.page_again(page) if id(page) in printed else page  # not moved (no shift): not the print's
        page.bleed = dict.fromkeys(page.bleed, 0)
        pages.append(page)
    return covers.copy([covers.pages[0], *pages, covers.pages[-1]])
