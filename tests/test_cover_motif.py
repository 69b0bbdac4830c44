"""The motif a book without cover art gets (rulepress.render.cover.motif): the same drawing every time for one
book, laid out around the middle of the cover, in two rings of its colours."""

from __future__ import annotations

import math
import re

from rulepress.render.cover import motif
from rulepress.render.palette import DEFAULT_GAME, HOUSE

PALETTE = {"amber": (0, 35, 90, 0), "rose": (0, 70, 20, 0), "jade": (70, 0, 50, 10), **HOUSE, **DEFAULT_GAME}


def _centres(svg: str) -> list[tuple[float, float]]:
    circles = [(float(x), float(y)) for x, y in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', svg)]
    rects = [(float(x), float(y)) for x, y in re.findall(r'rotate\(-?\d+ ([\d.]+) ([\d.]+)\)', svg)]
    return circles + rects


def test_a_books_motif_is_the_same_every_time_and_another_books_is_not() -> None:
    assert motif(PALETTE, "mini", None) == motif(PALETTE, "mini", None)
    assert motif(PALETTE, "mini", None)[0] != motif(PALETTE, "maxi", None)[0]


def test_the_motif_rings_the_middle_of_the_cover() -> None:
    svg, discs, tiles = motif(PALETTE, "mini", None, width=120, height=96)
    centres = _centres(svg)
    assert len(centres) == discs + tiles == svg.count("<circle") + svg.count("<rect") and discs and tiles
    mean_x = sum(x for x, _ in centres) / len(centres)
    mean_y = sum(y for _, y in centres) / len(centres)
    assert abs(mean_x - 60) < 6 and abs(mean_y - 48) < 6  # around the middle, not to one side
    angles = {round(math.degrees(math.atan2(y - 48, x - 60)) // 45) for x, y in centres}
    assert len(angles) == 8  # all the way round: a ring, not a clump


def test_a_book_without_art_gets_its_own_motif_on_every_cover() -> None:
    from types import SimpleNamespace

    from rulepress.render.cover import cover_art
    from rulepress.render.strings import strings

    book = SimpleNamespace(id="mini", data={})
    first = cover_art(book, None, PALETTE, None, strings("en"))  # type: ignore[arg-type]
    assert first.svg == cover_art(book, None, PALETTE, None, strings("en")).svg == motif(PALETTE, "mini", None)[0]


def _book(cover: dict[str, object]) -> object:
    from types import SimpleNamespace

    from rulepress.load.book import cover_words
    from rulepress.load.problems import Collector

    data = {"title": "Mini Stones", "cover": cover}
    found = Collector()
    words = cover_words(data, {"pile": {"start": 7}, "book": data}, "rules_src/mini/book.yaml", found)
    found.raise_if_any()
    return SimpleNamespace(id="mini", data=data, cover_words=words, path=lambda name: f"rules_src/mini/{name}")


def test_the_cover_texts_are_the_books_templates_over_its_components() -> None:
    from rulepress.render.cover import CoverText, cover_text

    told = cover_text(_book({"blurb": "Take stones from a pile of {{ pile.start }}.", "components": ["{{ pile.start }} "
                             "stones"], "credits": ["Game: {{ book.title }}"], "ink": "accent"}), PALETTE)  # type: ignore[arg-type]
    assert told == CoverText("Take stones from a pile of 7.", ["7 stones"], ["Game: Mini Stones"], "cover", "accent")
    assert cover_text(_book({}), PALETTE) == CoverText()  # type: ignore[arg-type]


def test_a_cover_colour_the_palette_lacks_is_refused_naming_book_yaml() -> None:
    import pytest

    from rulepress.errors import SourceError
    from rulepress.render.cover import cover_text

    with pytest.raises(SourceError) as caught:
        cover_text(_book({"background": "mauve"}), PALETTE)  # type: ignore[arg-type]
    assert str(caught.value) == ("rules_src/mini/book.yaml: cover.background: 'mauve' is not a colour of the game's "
                                 f"palette (known: {', '.join(sorted(PALETTE))})")


def test_a_cover_text_naming_what_the_components_lack_is_refused_naming_book_yaml() -> None:
    import pytest

    from rulepress.errors import SourceError

    with pytest.raises(SourceError) as caught:
        _book({"blurb": "A pile of {{ pile.nope }}."})
    assert str(caught.value).startswith("rules_src/mini/book.yaml")
    assert "unknown template variable in {{ pile.nope }}: 'dict object' has no attribute 'nope'" in str(caught.value)
