"""Components you can see (issue 27 C): each book's components section (a picture and the count of every kind of
component, from its data), its setup diagram, the key to its diagrams and a cover of its own game, all drawn by the
book's engine; and the defaults a designer's engine gets from the base class."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rulepress.basegame import BaseGame, ComponentPicture
from rulepress.project import find_root
from rulepress.render import book_figures, cover, palette
from rulepress.render.strings import strings
from rulepress.verify import diagram
from rulepress.verify.figures import BookFigures
from rulepress.verify.figures import book_figures as draw_figures
from rulepress.verify.gate import Report, load_checked_book, verify

from .conftest import checks_of

ROOT = find_root(Path(__file__).parent)
BOOKS = ("lantern-moths", "last-lantern", "lantern")


def figures_of(book_id: str, root: Path = ROOT) -> BookFigures:
    check = load_checked_book(root, book_id)
    found, problems = draw_figures(check.book, check.engine, check.examples)
    assert problems == []
    return found


@pytest.fixture(scope="module")
def drawn() -> dict[str, BookFigures]:
    return {book_id: figures_of(book_id) for book_id in BOOKS}


def test_every_component_is_pictured_and_counted_from_the_data(drawn: dict[str, BookFigures]) -> None:
    data = {book_id: load_checked_book(ROOT, book_id).book.components for book_id in BOOKS}
    counts = {book_id: {shown.names["en"]: shown.count for shown in figures.components}
              for book_id, figures in drawn.items()}
    lm = data["lantern-moths"]
    assert counts["lantern-moths"] == {"Moth cards": lm["deck"]["moths"]["coloured"],
                                       "Ghost Moths": lm["deck"]["moths"]["ghost"], "Dusk cards": lm["deck"]["dusk"],
                                       "Garden tiles": lm["tiles"]["total"],
                                       "Wick tokens": lm["wicks"]["total"], "Lantern boards": lm["lanterns"]}
    ll = counts["last-lantern"]
    assert ll["Tree tiles"] == data["last-lantern"]["tree_tiles"]["total"] == 48
    assert ll["Ability tiles"] == 12 and ll["Familiars"] == 16 and ll["Fireflies"] == 48
    assert counts["lantern"] == {"Six-sided dice": data["lantern"]["dice"]["count"], "Adventure sheet": 1}
    for figures in drawn.values():
        for shown in figures.components:
            assert all(diagram.problem(svg) is None for svg in shown.svgs.values())


def test_the_tree_tiles_are_one_picture_sheet_with_every_tile(drawn: dict[str, BookFigures]) -> None:
    sheet = next(s for s in drawn["last-lantern"].components if s.names["en"] == "Tree tiles").svgs["en"]
    names = set(re.findall(r">(T\d\d)<", sheet))
    assert names == {f"T{n:02d}" for n in range(1, 49)}
    french = next(s for s in drawn["last-lantern"].components if s.names["en"] == "Tree tiles")
    assert french.names["fr"] == "Tuiles Arbre"  # in every language of the book


def test_each_book_has_a_setup_diagram_and_a_key(drawn: dict[str, BookFigures]) -> None:
    for book_id, figures in drawn.items():
        assert figures.setup, book_id
        svg = figures.setup["en"]
        assert "<title>After setup</title>" in svg and diagram.problem(svg) is None
        assert figures.setup_captions["en"].startswith("After setup: ")
        assert figures.legend and "Key to the diagrams" in figures.legend["en"]
        assert "Struck-out arrow: a move the rules refuse" in figures.legend["en"]
    assert drawn["lantern-moths"].setup_after == "lm.setup.start"  # the setup chapter's last section
    assert drawn["lantern-moths"].components_after == "lm.components"
    assert "Légende des schémas" in drawn["last-lantern"].legend["fr"]


def test_each_cover_is_drawn_from_its_own_game(drawn: dict[str, BookFigures]) -> None:
    covers = {book_id: figures.cover for book_id, figures in drawn.items()}
    assert all(covers.values()) and len(set(covers.values())) == 3  # no template in three colours
    for book_id, svg in covers.items():
        check = load_checked_book(ROOT, book_id)
        game = palette.game_palette(check.engine.palette)
        art = cover.cover_art(check.book, check.cover_art, game, None, strings("en"), svg)  # for press
        assert art.svg == svg and "Cover artwork: " in art.alt and "ringed by discs and tiles" not in art.alt
        screen = cover.cover_art(check.book, check.cover_art, game, check.proof, strings("en"), svg)
        assert "device-cmyk" not in screen.svg and screen.svg == check.proof.svg(svg)  # through the book's profile


def test_the_components_section_and_setup_diagram_go_where_the_book_says(drawn: dict[str, BookFigures]) -> None:
    figures = drawn["lantern-moths"]
    placed = book_figures.placed(figures, strings("en"), lambda name, svg: f"figures/{name}")
    section = placed["lm.components"]
    assert section.count('<figure class="small"') + section.count('<figure class="wide"') == len(figures.components)
    assert "6 × Dusk cards" in section and section.count('<figure class="legend">') == 1  # the key, once, under them
    assert section.count("components-row") < len(figures.components)  # small pictures share a row
    assert 'src="figures/component-1.svg"' in section and 'alt="44 × Moth cards (4 colours of 11' in section
    assert 'class="setup-diagram"' in placed["lm.setup.start"]


def test_book_yaml_may_place_the_figures_and_name_the_setup_players(mini: Path) -> None:
    book = mini / "rules_src/mini/book.yaml"
    book.write_text(book.read_text() + "figures:\n  components: mini.play.tke\n  setup: mini.nothing\n"
                                       "  players: [Zed, Yan]\n")
    report = verify(mini, draw=False)
    line = book.read_text().splitlines().index("  setup: mini.nothing") + 1
    assert f"rules_src/mini/book.yaml:{line}: figures.setup: no rule 'mini.nothing' in the book" in report.problems
    assert (f"rules_src/mini/book.yaml:{line - 1}: figures.components: no rule 'mini.play.tke' in the book (did you "
            f"mean 'mini.play.take'?)") in report.problems


class _Counted(BaseGame):
    book_id = "counted"

    def start(self, players: list[str], chance: Any) -> dict[str, Any]:
        return {}

    def snapshot(self, state: Any) -> dict[str, Any]:
        return {}

    def draw(self, state: Any) -> list[str]:
        return []


def test_the_base_class_pictures_every_counted_entry_and_draws_a_cover_from_them() -> None:
    game = _Counted({"cards": {"total": 54}, "tokens": {"count": 12}, "players": {"min": 2, "max": 4},
                     "hand_size": 5, "rules": {"cap": 7}})
    pictures = game.component_pictures()
    assert [(p.name, p.count) for p in pictures] == [("Cards", 54), ("Tokens", 12)]
    assert all(isinstance(p, ComponentPicture) for p in pictures)
    art = game.cover_art(120, 96)
    assert art and len(art) == 2 and all(part.startswith("<g transform=") for part in art)
    assert _Counted({"rules": {"cap": 7}}).cover_art(120, 96) is None  # nothing to draw: the palette's motif


@pytest.mark.parametrize(("root", "book_id", "after"), [(ROOT, "lantern-moths", "components-sheet"),
                                                         (ROOT / "samples" / "tic-tac-toe", "tic-tac-toe", "example")])
def test_the_print_edition_prints_the_key_once(root: Path, book_id: str, after: str, bundled: Report) -> None:
    """Under the components section, or before the first diagram of a book without one: not in every chapter."""
    from rulepress.render import pdf

    report = checks_of(bundled, book_id) if root == ROOT else verify(root, [book_id])
    [check] = report.books
    html = pdf.print_html(pdf.PrintInput(check, root / "site" / book_id / "diagrams"))
    assert html.count('<figure class="legend">') == 1
    key, first_diagram = html.index('<figure class="legend">'), html.index('<figure class="diagram"')
    assert key < first_diagram and html.rfind(after, 0, key) > 0


def test_a_figure_the_engine_cannot_draw_is_the_book_s_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    check = load_checked_book(ROOT, "lantern-moths")
    kind = type(check.engine.make_game(check.book.components))

    def broken(self: Any) -> list[ComponentPicture]:
        raise ValueError("no such card")

    monkeypatch.setattr(kind, "component_pictures", broken)
    monkeypatch.setattr(kind, "cover_art", lambda self, width, height: ["<script>alert(1)</script>"])
    found, problems = draw_figures(check.book, check.engine, check.examples)
    assert found.components == [] and found.cover is None
    assert "lantern-moths: component_pictures() failed: ValueError: no such card" in problems  # (engine code: its line)
    assert "lantern-moths: the cover's artwork from cover_art() holds <script>: a diagram is drawn, not scripted " \
           "or embedded" in problems
    assert found.legend and found.setup  # what can be drawn still is
