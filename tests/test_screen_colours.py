"""Screen colours come from the book's own output intent (book.yaml ``output_intent``, rulepress/proof.py): its site's
diagrams and step-through frames, the referee's colour table, the digital edition's HTML and what WeasyPrint writes
of it.  (Last Lantern's, read back from the real build: tests/test_books_published.py.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rulepress.cmyk import DEFAULT_GAME, HOUSE, game_palette
from rulepress.load.profile import shipped
from rulepress.proof import Proof
from rulepress.publish import pdfread
from rulepress.render import pdf, site, stepper
from rulepress.verify.gate import verify

FOGRA39, SWOP = Proof.of(shipped("fogra39")), Proof.of(shipped("swop"))
ACCENT = (15, 35, 100, 0)  # Last Lantern's accent and lantern (engine/last_lantern/render.py)
STONE = "device-cmyk(0 0 0 0.55)"  # the mini engine's stones
# The inks the mini engine draws its diagrams in, having no palette (tests/fixtures/mini/engine/mini/__init__.py):
# its stones, and the mark round a pile the illustrated steps changed; the digital edition prints both (the setup
# diagram, the examples' diagrams).
MINI_INKS = ((0, 0, 0, 55), (0, 85, 90, 0))


def test_each_profile_gives_its_own_screen_colours() -> None:
    assert (FOGRA39.rgb(ACCENT), SWOP.rgb(ACCENT)) == ("#dfa803", "#dba628")
    assert (FOGRA39.rgb((0, 0, 0, 100)), SWOP.rgb((0, 0, 0, 100))) == ("#201f1e", "#231f20")
    assert FOGRA39.rgb((0, 0, 0, 0)) == SWOP.rgb((0, 0, 0, 0)) == "#ffffff"
    svg = '<rect fill="device-cmyk(0 0 0 1)" stroke="device-cmyk(0% 0% 0% 100%)"/>'
    assert FOGRA39.svg(svg) == '<rect fill="#201f1e" stroke="#201f1e"/>'
    assert SWOP.svg(svg) == '<rect fill="#231f20" stroke="#231f20"/>'


def test_a_proof_is_made_once_per_profile_and_converts_each_colour_once(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Proof.of(shipped("fogra39")) is FOGRA39 and FOGRA39 is not SWOP
    proof = Proof(shipped("fogra39"))
    converted: list[object] = []
    transform = proof.transform()
    monkeypatch.setattr(proof, "transform", lambda: converted.append(1) or transform)
    for _ in range(3):
        assert proof.svg(f'<a fill="{STONE}"/><b fill="{STONE}"/>') == '<a fill="#939393"/><b fill="#939393"/>'
    assert len(converted) == 1


def _fogra39(project: Path) -> None:
    book = project / "rules_src" / "mini" / "book.yaml"
    book.write_text(book.read_text() + "output_intent: fogra39\n")


def test_a_books_screen_is_its_own_profiles(mini: Path, tmp_path: Path) -> None:
    """A book printed on FOGRA39: its site's diagrams, frames and referee table, its digital edition's HTML and
    PDF are in FOGRA39's colours, never SWOP's (the default's)."""
    _fogra39(mini)
    report = verify(mini, draw=True)
    assert report.ok, report.failures()
    check = report.books[0]
    assert check.proof is FOGRA39
    grey, swop_grey = FOGRA39.written(STONE), SWOP.written(STONE)
    assert grey != swop_grey
    files = site.pages(site.SiteInput(report))
    drawn = [text for name, text in files.items() if name.startswith("mini/diagrams/")]
    for packed in re.findall(r'data-frames="([^"]+)"', files["mini/examples/mini-last-stone.md"]):  # the frames
        pack = stepper.decode_pack(packed)
        drawn += [stepper.unpack_frame(pack, index) for index in range(len(pack["frames"]))]
    assert drawn and all(swop_grey not in text and "device-cmyk" not in text for text in drawn)
    assert sum(grey in text for text in drawn) >= 2  # a diagram and a frame with stones (the last is empty)
    config = json.loads(files[f"{stepper.referee_folder('mini')}/config.json"])
    assert config["colours"][STONE] == grey
    digital = pdf.PrintInput(check, tmp_path / "diagrams", edition="digital")
    html = pdf.print_html(digital)
    assert FOGRA39.rgb((0, 0, 0, 100)) in html and SWOP.rgb((0, 0, 0, 100)) not in html
    target = tmp_path / "mini-digital.pdf"
    pdf.write_pdf(digital, target)
    inks = [*HOUSE.values(), *game_palette(check.engine.palette).values(), *MINI_INKS]
    written = {colour for _, colour in pdf_colours(target)}
    assert {FOGRA39.rgb(HOUSE["ink"]), FOGRA39.rgb(DEFAULT_GAME["accent"])} <= written
    assert written <= {FOGRA39.rgb(ink) for ink in inks}, "every colour is one of the book's inks, through FOGRA39"
    assert {FOGRA39.rgb(ink) for ink in MINI_INKS} <= written  # the diagrams are printed, through FOGRA39 too


def pdf_colours(path: Path) -> set[tuple[str, str]]:
    """The colours a PDF's pages set, as (operator, #rrggbb) for RGB ones (WeasyPrint writes 0-1 values)."""
    with pdfread.read(path, "digital", colours=True) as read:
        found = set()
        for page in read.pages:
            for colour in page.colours:
                if colour.operator in ("rg", "RG") and len(colour.operands) == 3:
                    found.add((colour.operator.lower(),
                               "#" + "".join(f"{round(float(v) * 255):02x}" for v in colour.operands)))
        return found



def test_the_referee_shows_an_ink_the_build_never_saw_through_the_books_profile() -> None:
    """The referee (in the browser, no LittleCMS) has the build's table of the inks it saw, and the book's profile
    sampled on a grid: an ink drawn only after a reader's move comes out close to the profile's own conversion
    (these within 12 of 255 levels; the coarse 5-level grid is off by up to about 30 in the darkest mixes), on
    the grid exactly, and not what another profile gives."""
    from rulepress.render.browser.referee import on_grid
    from rulepress.render.palette import GRID_LEVELS

    grid = FOGRA39.grid(GRID_LEVELS)
    assert len(grid) == len(GRID_LEVELS) ** 4
    assert on_grid(("0.25", "0.5", "0", "1"), grid) == FOGRA39.rgb((25, 50, 0, 100))
    for ink in [ACCENT, (5, 45, 80, 0), (80, 30, 100, 20), (0, 0, 0, 55), (33, 7, 61, 12)]:
        shown = on_grid(tuple(f"{v}%" for v in ink), grid)
        exact = FOGRA39.rgb(ink)
        assert max(abs(int(shown[i:i + 2], 16) - int(exact[i:i + 2], 16)) for i in (1, 3, 5)) <= 12, (ink, shown)
    assert on_grid(("0.15", "0.35", "1", "0"), SWOP.grid(GRID_LEVELS)) != on_grid(("0.15", "0.35", "1", "0"), grid)
