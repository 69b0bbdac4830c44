"""The inks as the editions print them (rulepress.render.palette, rulepress.proof): a CMYK colour's component as
written, the colour each edition writes, and a print SVG turned into the screen's colours."""

from __future__ import annotations

import pytest

from rulepress.load.profile import shipped
from rulepress.proof import Proof, _percent
from rulepress.render.palette import css, device_cmyk

PROOF = Proof.of(shipped("fogra39"))


@pytest.mark.parametrize(("written", "percent"), [("85%", 85.0), ("0%", 0.0), ("12.5%", 12.5), ("0.85", 85.0),
                                                  ("1", 100.0), ("0", 0.0)])
def test_a_component_is_read_as_a_percentage(written: str, percent: float) -> None:
    assert _percent(written) == pytest.approx(percent)


@pytest.mark.parametrize("colour", [(0, 0, 0, 100), (85, 60, 20, 45), (0, 55, 90, 10)])
def test_print_writes_the_inks_and_screens_the_profiles_rgb(colour: tuple[int, int, int, int]) -> None:
    assert css(colour, None) == device_cmyk(colour)
    assert css(colour, PROOF) == PROOF.rgb(colour)
    assert PROOF.rgb(colour).startswith("#") and len(PROOF.rgb(colour)) == 7
    assert PROOF.rgb(colour) != PROOF.rgb((0, 0, 0, 0))


def test_a_print_svg_gets_the_screen_colour_of_every_ink_written_either_way() -> None:
    ink, paper = (85, 60, 20, 45), (0, 3, 15, 0)
    svg = (f'<svg><rect fill="{device_cmyk(ink)}"/><text fill="device-cmyk(0 0.03 0.15 0)">x</text>'
           f'<path stroke="device-cmyk( 0.85, 0.6, 0.2, 0.45 )"/></svg>')
    assert PROOF.svg(svg) == (f'<svg><rect fill="{PROOF.rgb(ink)}"/><text fill="{PROOF.rgb(paper)}">x</text>'
                              f'<path stroke="{PROOF.rgb(ink)}"/></svg>')
    assert PROOF.svg('<svg><rect fill="#123456"/></svg>') == '<svg><rect fill="#123456"/></svg>'
