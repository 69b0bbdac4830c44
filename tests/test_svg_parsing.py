"""SVG attribute strings parsed once (rulepress/render/svg_parsing.py): the same drawing, and in force."""

from __future__ import annotations

import base64
from pathlib import Path

import pikepdf

from rulepress.render import pdf, svg_parsing

weasyprint = pdf.weasyprint  # imported there, after fontconfig is pointed at the shipped fonts

# The same fill again and again, with opacities WeasyPrint multiplies into the colour it parsed, and currentColor.
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="60mm" height="20mm" viewBox="0 0 60 20" color="#336699">'
       + "".join(f'<rect x="{x}" y="2" width="4" height="4" fill="device-cmyk(0 0.5 1 0)" '
                 f'fill-opacity="{0.2 * (x % 5) + 0.2:.1f}" stroke="#102030" stroke-opacity="0.5"/>'
                 for x in range(0, 60, 6))
       + '<circle cx="30" cy="14" r="4" fill="currentColor"/></svg>')


def contents(target: Path) -> list[bytes]:
    uri = "data:image/svg+xml;base64," + base64.b64encode(SVG.encode()).decode()
    weasyprint.HTML(string=f'<img src="{uri}"><img src="{uri}">').write_pdf(target)
    with pikepdf.open(target) as document:
        return [page.obj.Contents.read_bytes() for page in document.pages]


def test_the_drawing_is_the_same_with_each_string_parsed_once(tmp_path: Path) -> None:
    import weasyprint.svg as svg

    plain = contents(tmp_path / "plain.pdf")
    original = svg.color, svg.size
    with svg_parsing.parsed_once():
        assert (svg.color, svg.size) != original  # in force
        cached = contents(tmp_path / "cached.pdf")
        again = contents(tmp_path / "again.pdf")  # from the cache this time: opacities not multiplied twice
        assert svg.size.cache_info().hits > 0  # type: ignore[attr-defined]
    assert (svg.color, svg.size) == original  # and put back
    assert plain == cached == again
    assert b"/a0.2 gs" in plain[0] and b"/A0.5 gs" in plain[0]  # fill and stroke opacities drawn (alpha states)
