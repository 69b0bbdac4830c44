"""Each book its own cover: the SVG its book.yaml names (checked as a diagram is, with words for what it shows),
its engine's drawing of its own game, or a motif drawn from its own palette; never another game's drawing."""

from __future__ import annotations

import re
from pathlib import Path

import pikepdf
import pytest

from rulepress.errors import SourceError
from rulepress.load.book import load_book
from rulepress.render import cover, palette, pdf
from rulepress.render.strings import strings
from rulepress.verify import diagram
from rulepress.verify.engines import load_engine
from rulepress.verify.figures import book_figures
from rulepress.verify.gate import load_checked_book, verify

from .conftest import REAL_BUILD, ROOT

SAMPLE = ROOT / "samples" / "tic-tac-toe"
LANTERN = re.compile(r'width="14" height="20" rx="3"')  # the bundled books' lantern body


def art_of(root: Path, book_id: str, print_edition: bool = True) -> cover.Artwork:
    check = load_checked_book(root, book_id)
    drawn, _ = book_figures(check.book, check.engine, check.examples)
    return cover.cover_art(check.book, check.cover_art, palette.game_palette(check.engine.palette),
                           None if print_edition else check.proof, strings("en"), drawn.cover)


def test_a_book_without_art_gets_a_motif_of_its_own_palette_and_says_what_it_shows(mini: Path) -> None:
    art = art_of(mini, "mini")
    game = palette.game_palette(load_checked_book(mini, "mini").engine.palette)
    fills = set(re.findall(r'fill="([^"]+)"', art.svg))
    assert fills and fills <= {palette.device_cmyk(c) for c in cover.piece_colours(game)}
    assert not LANTERN.search(art.svg) and "<circle" in art.svg and "<rect" in art.svg
    discs, tiles = art.svg.count("<circle"), art.svg.count("<rect")
    assert art.alt == f"Cover artwork: {discs} discs and {tiles} tiles in two rings, in the game's colours"
    assert diagram.problem(art.svg) is None
    other = art_of(SAMPLE, "tic-tac-toe")
    assert other.svg != art.svg and not LANTERN.search(other.svg)  # another book, another motif
    assert "lantern" not in other.alt.lower()


def test_a_book_may_say_what_its_motif_shows(mini: Path) -> None:
    book = mini / "rules_src/mini/book.yaml"
    book.write_text(book.read_text() + "cover:\n  alt: \"Cover artwork: a heap of stones in the game's colours\"\n")
    assert art_of(mini, "mini").alt == "Cover artwork: a heap of stones in the game's colours"


def test_a_bundled_book_prints_its_engine_s_drawing_of_its_own_game() -> None:
    """No bundled book supplies an SVG: each cover is drawn by its engine from its own pieces (cover_art), and the
    three differ in more than their colours."""
    shapes = {}
    for book_id in ("lantern-moths", "last-lantern", "lantern"):
        assert not (ROOT / "rules_src" / book_id / "cover.svg").exists()
        printed = art_of(ROOT, book_id)
        check = load_checked_book(ROOT, book_id)
        assert printed.svg == book_figures(check.book, check.engine, check.examples)[0].cover
        assert printed.alt == check.book.data["cover"]["alt"] and "ringed by discs and tiles" not in printed.alt
        screen = art_of(ROOT, book_id, print_edition=False)
        assert "device-cmyk" not in screen.svg and screen.svg == check.proof.svg(printed.svg)
        shapes[book_id] = re.sub(r'(fill|stroke)="[^"]*"', "", printed.svg)
    assert len(set(shapes.values())) == 3  # not one template in three colours


def test_the_print_html_carries_the_art_and_its_words(mini: Path) -> None:
    check = load_checked_book(mini, "mini")
    html = pdf.print_html(pdf.PrintInput(check, mini / "diagrams", edition="digital"))
    art = art_of(mini, "mini", print_edition=False)
    assert '<img class="art" src="data:image/svg+xml;base64,' in html
    assert f'alt="{art.alt}"' in html.replace("&#39;", "'")


def with_art(mini: Path, svg: str | None, lines: str) -> Path:
    folder = mini / "rules_src" / "mini"
    if svg is not None:
        (folder / "cover.svg").write_text(svg)
    (folder / "book.yaml").write_text((folder / "book.yaml").read_text() + "cover:\n" + lines)
    return mini


GOOD = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>'


@pytest.mark.parametrize(("svg", "lines", "said"), [
    (GOOD, "  art: cover.svg\n", "cover.art needs cover.alt: the words saying what the artwork shows (the digital "
                                 "edition's readers hear them)"),
    (GOOD.replace("<circle", '<script>alert(1)</script><circle'), "  art: cover.svg\n  alt: A stone\n",
     "cover.art 'cover.svg' holds <script>: a diagram is drawn, not scripted or embedded"),
    (GOOD.replace("<circle", '<image href="https://example.org/x.png"/><circle'), "  art: cover.svg\n  alt: A stone\n",
     "cover.art 'cover.svg' links to 'https://example.org/x.png' from <image>: a diagram must be self-contained (no "
     "images, fonts or files from outside; the build never goes online)"),
    (None, "  art: nowhere.svg\n  alt: A stone\n", "cover.art 'nowhere.svg': file not found"),
    ("<svg", "  art: cover.svg\n  alt: A stone\n",
     "cover.art 'cover.svg' is not well-formed XML: unclosed token: line 1, column 0"),
])
def test_supplied_art_is_checked_like_a_diagram(mini: Path, svg: str | None, lines: str, said: str) -> None:
    with_art(mini, svg, lines)
    line = (mini / "rules_src/mini/book.yaml").read_text().splitlines().index("  art: " + lines.split()[1]) + 1
    report = verify(mini, draw=False)
    assert report.problems == [f"rules_src/mini/book.yaml:{line}: {said}"]
    with pytest.raises(SourceError):  # no check of the book is made without it
        load_checked_book(mini, "mini")
    with pytest.raises(ValueError, match="not checked by the gate"):  # and the renderer prints none unchecked
        cover.cover_art(load_book(mini, "mini"), None, palette.DEFAULT_GAME, None, strings("en"))


def test_supplied_art_stays_in_the_book_folder(mini: Path) -> None:
    (mini / "rules_src" / "elsewhere.svg").write_text(GOOD)
    with_art(mini, None, "  art: sub/../../elsewhere.svg\n  alt: A lantern\n")
    [problem] = verify(mini, draw=False).problems
    assert "cover.art 'sub/../../elsewhere.svg': " in problem and "outside the project root" in problem


@pytest.mark.xdist_group(REAL_BUILD)
def test_the_digital_editions_tell_their_covers_in_their_language(real_site: Path) -> None:
    """Read back from the built PDFs: the cover's figure carries the book's own words, the French edition's in
    French."""
    wanted = {"lantern-digital.pdf": "Cover artwork: the six dice tumbling out of a lantern's light, ringed by the "
                                     "adventure sheet's circles",
              "last-lantern-fr-digital.pdf": "Illustration de couverture : les chemins de la Canopée la nuit, des "
                                             "tuiles Arbre posées le long des chemins et des Lucioles qui brillent aux "
                                             "lignes des lanternes"}
    for name, alt in wanted.items():
        with pikepdf.open(real_site / "pdf" / name) as document:
            alts = [str(element.get("/Alt")) for element, _ in _figures(document.Root.StructTreeRoot)]
        assert alts[0].replace("\u202f", " ").replace("\u00a0", " ") == alt, (name, alts[:2])


def _figures(node: pikepdf.Object, path: str = "") -> list[tuple[pikepdf.Dictionary, str]]:
    found = []
    kids = node.get("/K")
    for kid in (kids if isinstance(kids, pikepdf.Array) else [kids] if kids is not None else []):
        if isinstance(kid, pikepdf.Dictionary):
            if kid.get("/S") == "/Figure":
                found.append((kid, path))
            found += _figures(kid, path + "/K")
    return found


def test_no_engine_palette_is_drawn_as_another_books(root: Path) -> None:
    """The bundled engines' palettes give different motifs: the art follows the book, not a house drawing."""
    motifs = {book: cover.motif(palette.game_palette(load_engine(package, root).palette), book, None)[0]
              for book, package in (("lantern-moths", "lantern_moths"), ("last-lantern", "last_lantern"),
                                    ("lantern", "lantern"))}
    assert len(set(motifs.values())) == 3
