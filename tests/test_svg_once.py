"""WeasyPrint's SVG drawing with its strings worked out once (rulepress/render/weasyprint_patches.py,
``svg_worked_out_once``): the same drawing, and in force."""

from __future__ import annotations

import base64
import importlib
from pathlib import Path

import pikepdf

from rulepress.render import pdf, weasyprint_patches

weasyprint = pdf.weasyprint  # imported there, after fontconfig is pointed at the shipped fonts

# The same fill again and again, with opacities WeasyPrint multiplies into the colour it parsed, and currentColor;
# texts sharing letters, in two sizes, two weights, two families, two styles and both directions.
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="60mm" height="20mm" viewBox="0 0 60 20" color="#336699">'
       + "".join(f'<rect x="{x}" y="2" width="4" height="4" fill="device-cmyk(0 0.5 1 0)" '
                 f'fill-opacity="{0.2 * (x % 5) + 0.2:.1f}" stroke="#102030" stroke-opacity="0.5"/>'
                 for x in range(0, 60, 6))
       + '<circle cx="30" cy="14" r="4" fill="currentColor"/>'
       + '<text x="2" y="12" font-size="3">Moth</text><text x="12" y="12" font-size="3">moth</text>'
       + '<text x="20" y="12" font-size="4">moth 2</text>'
       + '<text x="2" y="18" font-size="3" font-weight="bold">Moth</text>'
       + '<text x="30" y="18" font-size="3" font-family="serif">Moth</text>'
       + '<text x="38" y="18" font-size="3" font-family="serif" font-style="italic">Moth</text>'
       + '<text x="45" y="18" font-size="3" direction="rtl">Moth</text></svg>')


def contents(target: Path) -> list[bytes]:
    uri = "data:image/svg+xml;base64," + base64.b64encode(SVG.encode()).decode()
    weasyprint.HTML(string=f'<img src="{uri}"><img src="{uri}">').write_pdf(target)
    with pikepdf.open(target) as document:  # the pages' and their groups' drawings (a right-to-left text's)
        return [stream.read_bytes() for page in document.pages
                for stream in [page.obj.Contents, *page.obj.Resources.get("/XObject", {}).values()]]


def test_the_drawing_is_the_same_with_each_string_worked_out_once(tmp_path: Path) -> None:
    import weasyprint.svg as svg
    import weasyprint.text.line_break as line_break

    plain = contents(tmp_path / "plain.pdf")
    original = svg.color, svg.size, line_break.split_first_line
    with weasyprint_patches.svg_worked_out_once():
        assert (svg.color, svg.size, line_break.split_first_line) != original  # in force
        cached = contents(tmp_path / "cached.pdf")
        again = contents(tmp_path / "again.pdf")  # from the cache this time: opacities not multiplied twice
        assert svg.size.cache_info().hits > 0  # type: ignore[attr-defined]
    assert (svg.color, svg.size, line_break.split_first_line) == original  # and put back
    assert plain == cached == again
    assert b"/a0.2 gs" in plain[0] and b"/A0.5 gs" in plain[0]  # fill and stroke opacities drawn (alpha states)
    assert sum(drawing.count(b"TJ") for drawing in plain) == 2 * 29  # every letter but the space, in both


def test_each_letter_is_laid_out_once_per_style(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import weasyprint.text.line_break as line_break

    svg_style = importlib.import_module("weasyprint.svg.text").Style
    layouts: list[str] = []
    setups: list[str] = []
    split, setup = line_break.split_first_line, line_break.Layout.setup

    def counted(text: str, style: object, *args: object, **kwargs: object) -> object:
        if type(style) is svg_style:
            layouts.append(text)
        return split(text, style, *args, **kwargs)

    def set_up(self: object, style: object) -> None:
        if type(style) is svg_style:
            setups.append(getattr(self, "text", ""))
        setup(self, style)

    monkeypatch.setattr(line_break, "split_first_line", counted)
    monkeypatch.setattr(line_break.Layout, "setup", set_up)
    contents(tmp_path / "plain.pdf")
    plain_layouts, plain_setups = len(layouts), len(setups)
    layouts.clear()
    setups.clear()
    with weasyprint_patches.svg_worked_out_once():
        contents(tmp_path / "cached.pdf")
    # Each drawing: 7 texts, each laid out whole and letter by letter (26 letters), each letter set up again to
    # be drawn.
    assert (plain_layouts, plain_setups) == (2 * (7 + 30), 2 * (7 + 30 + 30))
    # Once: the 7 texts, and the letters of each style: "M o t h m" at size 3, "m o t h ␣ 2" at size 4, and the
    # four of "Moth" in bold, in serif, in italic serif and right to left; each letter set up to be drawn once.
    assert len(layouts) == 7 + 5 + 6 + 4 * 4
    assert len(setups) == len(layouts) + 5 + 6 + 4 * 4


def test_a_letter_is_laid_out_again_with_other_fonts(tmp_path: Path) -> None:
    """The same family name is another font in another document (its @font-face): each draws its own."""
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="40mm" height="10mm" viewBox="0 0 40 10">'
           '<text x="2" y="8" font-size="6" font-family="Book">Moth</text></svg>')
    uri = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()

    def embedded(font: str) -> list[bytes]:
        face = f"@font-face {{ font-family: Book; src: url({(pdf.FONTS / font).as_uri()}) }}"
        target = tmp_path / font.replace(".ttf", ".pdf")
        weasyprint.HTML(string=f'<style>{face}</style><img src="{uri}">').write_pdf(target)
        with pikepdf.open(target) as document:  # the font programs drawn with (named "Book" either way)
            return [font.DescendantFonts[0].FontDescriptor.FontFile2.read_bytes()
                    for page in document.pages for font in page.Resources.Font.values()]

    plain = embedded("DejaVuSans.ttf"), embedded("DejaVuSerif.ttf")
    with weasyprint_patches.svg_worked_out_once():
        assert (embedded("DejaVuSans.ttf"), embedded("DejaVuSerif.ttf")) == plain
    assert len(plain[0]) == 1 and plain[0] != plain[1]


def test_only_an_svg_text_is_looked_up() -> None:
    import math

    import weasyprint.text.line_break as line_break
    from weasyprint.css.properties import INITIAL_VALUES
    from weasyprint.text.fonts import FontConfiguration

    class Computed(dict):  # type: ignore[type-arg]  # a style of another kind than an SVG text's
        font_config = FontConfiguration()

    style = Computed(INITIAL_VALUES, font_family=["serif"], font_size=12)
    with weasyprint_patches.svg_worked_out_once():
        first, again = (line_break.split_first_line("Moth", style, None, math.inf, 0) for _ in range(2))
    assert first[0] is not again[0] and first[1:] == again[1:]
