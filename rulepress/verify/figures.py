"""A book's figures beyond its examples, drawn by its engine: the key to the diagrams, the components section,
the setup diagram and the cover's artwork.

Each is the engine's own drawing (rulepress.basegame: ``legend``, ``component_pictures``, the state ``new_state``
gives, ``cover_art``), drawn here, under the gate's time limits like every other call into the engine, in each
language of the book, and checked as every diagram is (rulepress/verify/diagram.py).  What cannot be drawn is a
problem of the book, naming the engine's method; an engine that has none of these methods (one written on the bare
protocol) simply has no such figures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rulepress import i18n
from rulepress.change import Change, mark_words, moment
from rulepress.errors import SourceError
from rulepress.figures import PAPER, Figure, Frame, LegendEntry, legend_figure
from rulepress.load.book import Book
from rulepress.load.examples import Example
from rulepress.load.rules import rule_hint
from rulepress.load.yamlsrc import line_of
from rulepress.marks import MARK as _MARK
from rulepress.marks import Box, callout, outline, refused_arrow
from rulepress.protocol import PUBLIC, EngineSpec, narrator_of, observer_of, provided
from rulepress.verify import diagram
from rulepress.verify.limits import EngineFault, engine_guard, replay_seconds
from rulepress.verify.replay import engine_folder, make_game

FRAME = Frame()  # printed at 4 units a millimetre, as the examples' diagrams
COVER_SIZE = (120.0, 96.0)  # the front cover's artwork, in millimetres (render/cover.py)


@dataclass
class ComponentShown:
    """One kind of component, in each language: its name, count, note and picture."""

    names: dict[str, str]
    count: int
    notes: dict[str, str]
    svgs: dict[str, str]


@dataclass
class BookFigures:
    components: list[ComponentShown] = field(default_factory=list)
    components_after: str | None = None  # the rule whose own text the components section follows
    setup: dict[str, str] = field(default_factory=dict)  # the setup diagram in each language
    setup_alts: dict[str, str] = field(default_factory=dict)  # its text alternative
    setup_captions: dict[str, str] = field(default_factory=dict)  # "After setup: three players"
    setup_after: str | None = None  # the rule whose section the setup diagram follows
    legend: dict[str, str] = field(default_factory=dict)  # the key to the diagrams in each language
    legend_alts: dict[str, str] = field(default_factory=dict)
    cover: str | None = None  # the front cover's artwork (millimetres), CMYK


def book_figures(book: Book, engine: EngineSpec, examples: list[Example]) -> tuple[BookFigures, list[str]]:
    """Every figure the book's engine draws of the book, and the problems met drawing them."""
    found, problems = BookFigures(), []
    languages = i18n.book_languages(book.data)
    guard = engine_guard(engine_folder(engine), book.root, replay_seconds())
    try:
        with guard:
            game = make_game(engine, book, {})
    except Exception:  # an engine that cannot be built fails every example, each naming its line: said there
        return found, problems

    def drawing(what: str, draw: Callable[[], Any]) -> Any:
        try:
            with guard:
                return draw()
        except EngineFault as fault:
            problems.append(f"{book.id}: {what}: {fault}")
        except Exception as exc:
            place = guard.place_of(exc)
            problems.append(f"{book.id}: {what} failed: {type(exc).__name__}: {exc}" + (f" (in {place})" if place
                                                                                        else ""))
        return None

    placement = _placement(book, problems)
    found.components_after, found.setup_after = placement
    if (component_pictures := provided(game, "component_pictures")) is not None:
        pictures = drawing("component_pictures()", lambda: {lang: _in(lang, component_pictures)
                                                            for lang in languages})
        if pictures:
            found.components = _components(pictures, languages, problems, book)
    if provided(game, "legend") is not None:
        legend = drawing("legend()", lambda: {lang: _in(lang, lambda lang=lang: _legend(game, lang))
                                              for lang in languages})
        if legend:
            found.legend = legend
            found.legend_alts = {lang: _desc(svg) for lang, svg in legend.items()}
            problems += [f"{book.id}: the key to the diagrams ({lang}) {wrong}" for lang, svg in legend.items()
                         if (wrong := diagram.problem(svg))]
    setup = drawing("the setup diagram (new_state, render_svg)", lambda: _setup(game, book, examples, languages))
    if setup:
        found.setup, found.setup_alts, found.setup_captions = setup
        drawn_by = diagram.drawn_by(game, book.root)  # the engine's line, as an example's diagram names it
        problems += [f"{book.id}: the setup diagram ({lang}) from {drawn_by} {wrong}"
                     for lang, svg in found.setup.items() if (wrong := diagram.problem(svg))]
    if (cover_art := provided(game, "cover_art")) is not None:
        art = drawing("cover_art()", lambda: cover_art(*COVER_SIZE))
        if art:
            width, height = COVER_SIZE
            svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}mm" height="{height:g}mm" '
                   f'viewBox="0 0 {width:g} {height:g}" font-family="Rulepress Sans, DejaVu Sans, sans-serif">'
                   + "".join(art) + "</svg>")
            wrong = diagram.problem(svg)
            if wrong:
                problems.append(f"{book.id}: the cover's artwork from cover_art() {wrong}")
            else:
                found.cover = svg
    return found, problems


def _in(lang: str, say: Callable[[], Any]) -> Any:
    with i18n.language(lang):
        return say()


def _placement(book: Book, problems: list[str]) -> tuple[str | None, str | None]:
    """Where the components section and the setup diagram go: book.yaml's ``figures`` (a rule ID each), else the
    rule whose ID ends in ``.components`` and the last rule of the chapter whose ID ends in ``.setup``; a book
    with neither has both after its first rule's own text."""
    given = book.data.get("figures") or {}
    chosen: list[str | None] = []
    for key, suffix in (("components", ".components"), ("setup", ".setup")):
        wanted = given.get(key)
        if wanted is not None:
            if wanted not in book.rules:
                problems.append(str(SourceError(book.path("book.yaml"), line_of(given, key),
                                                f"figures.{key}: no rule '{wanted}' in the book"
                                                f"{rule_hint(wanted, book.rules)}")))
                chosen.append(None)
                continue
            chosen.append(str(wanted) if key == "components" else _section_end(book, str(wanted)))
            continue
        rule = next((r for r in book.rules if r.endswith(suffix)), None)
        if rule is None:
            chosen.append(chosen[0] if key == "setup" and chosen else next(iter(book.rules), None))
        else:
            chosen.append(rule if key == "components" else _section_end(book, rule))
    return chosen[0], chosen[1]


def _section_end(book: Book, rule_id: str) -> str:
    """The last rule of ``rule_id``'s section (its chapter, for a chapter's own rule)."""
    for chapter in book.chapters:
        ids = [r.id for r in chapter.rules]
        if rule_id not in ids:
            continue
        level = chapter.rules[ids.index(rule_id)].level
        last = rule_id
        for rule in chapter.rules[ids.index(rule_id) + 1:]:
            if rule.level <= level:
                break
            last = rule.id
        return last
    return rule_id


def _components(pictures: Mapping[str, Any], languages: list[str], problems: list[str],
                book: Book) -> list[ComponentShown]:
    first = list(pictures[languages[0]])
    shown = []
    for index, picture in enumerate(first):
        svgs, names, notes = {}, {}, {}
        for lang in languages:
            there = list(pictures[lang])
            one = there[index] if index < len(there) else picture
            names[lang], notes[lang] = str(one.name), str(one.note or "")
            svgs[lang] = _framed(one.figure, f"{one.name}: {one.count}")
            wrong = diagram.problem(svgs[lang])
            if wrong:
                problems.append(f"{book.id}: the picture of {one.name!r} from component_pictures() {wrong}")
        if not isinstance(picture.count, int) or isinstance(picture.count, bool) or picture.count < 0:
            problems.append(f"{book.id}: component_pictures(): {picture.name!r} has no whole count "
                            f"({picture.count!r})")
            continue
        shown.append(ComponentShown(names, picture.count, notes, svgs))
    return shown


def _framed(figure: Figure, desc: str, title: str | None = None) -> str:
    width = figure.width or 480
    height = figure.height or 360
    return FRAME.document(width + 4, height + 4, [f'<g transform="translate(2 2)">{"".join(figure.elements)}</g>'],
                          figure.desc or desc, figure.background or PAPER, title)


def _desc(svg: str) -> str:
    start, end = svg.find("<desc>"), svg.find("</desc>")
    from html import unescape

    return unescape(svg[start + 6:end]) if start >= 0 and end > start else ""


def mark_entries(words: Mapping[str, str]) -> list[LegendEntry]:
    """The key to the marks every diagram may carry (rulepress/marks.py), in the words of ``words``."""
    spot = Box(6, 5, 24, 14)
    return [
        LegendEntry([outline(spot, [3])], words["mark_legend_changed"]),
        LegendEntry([f'<path d="M2 18Q18 2 34 10" fill="none" stroke="{_MARK}" stroke-width="2.4"/>',
                     f'<path d="M34 10L25.8 11.6L28.3 5.1Z" fill="{_MARK}"/>', callout(18, 10, 2)],
                    words["mark_legend_moved"]),
        LegendEntry([refused_arrow(Box(0, 14, 4, 4), Box(32, 4, 4, 4), 4, 0.0)[0]], words["mark_legend_refused"]),
    ]


def _legend(game: Any, lang: str) -> str | None:
    entries = list(game.legend() or [])
    words = mark_words(lang)
    figure = legend_figure([*entries, *mark_entries(words)], words["mark_legend_title"])
    return _framed(figure, figure.desc or words["mark_legend_title"])


def _setup(game: Any, book: Book, examples: list[Example],
           languages: list[str]) -> tuple[dict[str, str], dict[str, str], dict[str, str]] | None:
    """The position after setup, for the book's setup players, drawn as everyone sees it."""
    players, seed = setup_players(book, examples)
    try:
        state = game.new_state(players, seed)
    except Exception:
        return None
    observer = observer_of(game)
    seat = PUBLIC if observer is not None else None
    narrator = narrator_of(game)
    svgs, alts, captions = {}, {}, {}
    for lang in languages:
        words = mark_words(lang)
        change = Change(moment(words, [], False, setup=True))
        with i18n.language(lang):
            svgs[lang] = diagram.render(game, state, None, seat, change)
            told = observer.view(state, seat) if observer is not None and seat is not None else game.snapshot(state)
            alts[lang] = narrator.narrate_state(game, told) if narrator is not None else _desc(svgs[lang])
        captions[lang] = f"{change.moment}: {', '.join(players)}"
    return svgs, alts, captions


def setup_players(book: Book, examples: list[Example]) -> tuple[list[str], int]:
    """Who the setup diagram is drawn for: book.yaml's ``figures.players``, else the players (and seed) of the
    book's first example that starts from a setup, else the fewest players the book allows."""
    given = (book.data.get("figures") or {}).get("players")
    if given:
        return [str(p) for p in given], 1
    for example in examples:
        if "setup" in example.start and "refused" not in example.start and "chance" not in example.start:
            return list(example.players), example.seed
    players = book.data.get("players") or {}
    fewest = players.get("min", 2) if isinstance(players, Mapping) else 2
    return [f"Player {n}" for n in range(1, int(fewest) + 1)], 1

