"""An example's frames (rulepress.verify.frames.make_frame) as a table: what each frame of the site's step-through
holds (its diagram, its words, whose view, the position to try a move in, as the state codec's
JSON) and what it refuses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from rulepress.codec import state_codec
from rulepress.protocol import PUBLIC
from rulepress.verify.frames import FrameError, make_frame

SVG = '<svg xmlns="http://www.w3.org/2000/svg"><desc>Two  stones\n left</desc><circle r="1"/></svg>'


@dataclass
class Pile:
    stones: int


class Drawn:
    """A game without a narrator: its diagram's <desc> is its words."""

    def __init__(self, svg: str) -> None:
        self.svg = svg

    def render_svg(self, state: Any, caption: str | None = None) -> str:
        return self.svg

    def snapshot(self, state: Any) -> dict[str, Any]:
        return {"stones": state.stones}


@pytest.mark.parametrize(("svg", "alt"), [(SVG, "Two stones left"),
                                          ('<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"/></svg>', "")])
def test_a_frame_holds_the_diagram_its_words_and_the_position(svg: str, alt: str) -> None:
    game = Drawn(svg)
    frame = make_frame(game, Pile(2), 3, ["en", "fr"], None, None, "render_svg (engine/x.py:1)")
    assert (frame.step, frame.svgs, frame.alts, frame.seat, frame.player) == (3, {"en": svg, "fr": svg},
                                                                               {"en": alt, "fr": alt}, None, None)
    assert frame.position is not None and state_codec(game).loads(frame.position) == Pile(2)


@pytest.mark.parametrize(("step", "svg", "says"), [
    (0, "<svg", "the diagram of the starting position from render_svg (engine/x.py:1) is not well-formed XML: "
                "unclosed token: line 1, column 0"),
    (2, '<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>',
     "the diagram of the position after step 2 from render_svg (engine/x.py:1) holds <script>: a diagram is drawn, "
     "not scripted or embedded"),
])
def test_a_frame_refuses_a_diagram_the_gate_would(step: int, svg: str, says: str) -> None:
    with pytest.raises(FrameError) as caught:
        make_frame(Drawn(svg), Pile(2), step, ["en"], None, None, "render_svg (engine/x.py:1)")
    assert str(caught.value) == says


class Seen(Drawn):
    """A game with an observer: each seat sees the pile, nobody anything else (nothing is hidden)."""

    def render_svg(self, state: Any, caption: str | None = None, seat: str | None = None) -> str:
        return self.svg

    def clone(self, state: Any) -> Any:
        return Pile(state.stones)


class Observer:
    hidden: dict[str, str] = {}

    def view(self, state: Any, seat: str) -> dict[str, Any]:
        return {"stones": state.stones, "seat": seat}

    def resample(self, state: Any, seat: str, part: str, rng: Any) -> Any:
        return state


@pytest.mark.parametrize(("seat", "shown"), [("Ann", "Ann"), (None, PUBLIC)])
def test_a_frame_told_from_a_seat_shows_that_seats_view(seat: str | None, shown: str) -> None:
    game = Seen(SVG)
    frame = make_frame(game, Pile(2), 1, ["en"], Observer(), seat, "render_svg (engine/x.py:1)")  # type: ignore[arg-type]
    assert (frame.seat, frame.player, frame.alts) == (shown, seat, {"en": "Two stones left"})
    assert frame.position is not None and state_codec(game).loads(frame.position) == Pile(2)
