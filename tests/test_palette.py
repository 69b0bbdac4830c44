"""The inks as the editions print them (rulepress.render.palette): a CMYK colour's component as written, the
colour each edition writes, and a print SVG turned into the screen's colours."""

from __future__ import annotations

import pytest

from rulepress.render.palette import _component, css, device_cmyk, rgb, svg_rgb


@pytest.mark.parametrize(("written", "percent"), [("85%", 85.0), ("0%", 0.0), ("12.5%", 12.5), ("0.85", 85.0),
                                                  ("1", 100.0), ("0", 0.0)])
def test_a_component_is_read_as_a_percentage(written: str, percent: float) -> None:
    assert _component(written) == pytest.approx(percent)


@pytest.mark.parametrize("colour", [(0, 0, 0, 100), (85, 60, 20, 45), (0, 55, 90, 10)])
def test_print_writes_the_inks_and_screens_the_profiles_rgb(colour: tuple[int, int, int, int]) -> None:
    assert css(colour, print_edition=True) == device_cmyk(colour)
    assert css(colour, print_edition=False) == rgb(colour)
    assert rgb(colour).startswith("#") and len(rgb(colour)) == 7 and rgb(colour) != rgb((0, 0, 0, 0))


def test_a_print_svg_gets_the_screen_colour_of_every_ink_written_either_way() -> None:
    ink, paper = (85, 60, 20, 45), (0, 3, 15, 0)
    svg = (f'<svg><rect fill="{device_cmyk(ink)}"/><text fill="device-cmyk(0 0.03 0.15 0)">x</text>'
           f'<path stroke="device-cmyk( 0.85, 0.6, 0.2, 0.45 )"/></svg>')
    assert svg_rgb(svg) == (f'<svg><rect fill="{rgb(ink)}"/><text fill="{rgb(paper)}">x</text>'
                            f'<path stroke="{rgb(ink)}"/></svg>')
    assert svg_rgb('<svg><rect fill="#123456"/></svg>') == '<svg><rect fill="#123456"/></svg>'
