"""The player edition's words (rulepress.render.player_text.check_player_text) as a table: each row a page's text,
Markdown, HTML or an SVG diagram, and every message the check gives it, whole: file, line, what was found, in
its context."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from rulepress.render.player_text import check_player_text


def _said(line: int, what: str, found: str, context: str) -> str:
    return (f"play.md:{line}: {what} '{found}' in the player edition of Mini Stones (…{context}…); it belongs in "
            "the designer edition")


ROWS: list[tuple[str, str, list[str]]] = [
    ("clean", "Take one to three stones.\n\nThe last stone wins.", []),
    ("a rule ID", "Take stones (mini.play.take) now.",
     [_said(1, "rule ID", "mini.play.take", "Take stones (mini.play.take) now.")]),
    ("on its own line", "Intro.\n\nSee mini.play.win.",
     [_said(3, "rule ID", "mini.play.win", "See mini.play.win.")]),
    ("link targets and attribute lists are not text", "See [the rule](play.md#mini.play.take){#x .y} here.", []),
    ("a credit cites its source as it is", '<p class="credit">Solver: from the rulebook (dusk_in_refill)</p>', []),
    ("an image's alternative text is read", '<img alt="the dusk_in_refill option" src="a.png">',
     [_said(1, "engine name", "dusk_in_refill", "the dusk_in_refill option")]),
    ("one message a passage, in reading order", "Ann did do: light, tile: b2, then [1, 2] and mini.play.take",
     [_said(1, "example step", "do: light,", "Ann did do: light, tile: b2, then [1, 2] and min"),
      _said(1, "example step", "tile: b2,", "Ann did do: light, tile: b2, then [1, 2] and mini.play.tak"),
      _said(1, "list in brackets", "[1, 2]", "did do: light, tile: b2, then [1, 2] and mini.play.take"),
      _said(1, "rule ID", "mini.play.take", "ht, tile: b2, then [1, 2] and mini.play.take")]),
    ("passages that touch are two", "mini.play.take[1, 2]",
     [_said(1, "rule ID", "mini.play.take", "mini.play.take[1, 2]"),
      _said(1, "list in brackets", "[1, 2]", "mini.play.take[1, 2]")]),
    ("french typography is undone", "Ann : do\u00a0: light, tile\u202f: b2, « \u00a0Solver: x »",
     [_said(1, "example step", "do: light,", "Ann : do: light, tile: b2, « Solver: x »"),
      _said(1, "example step", "tile: b2,", "Ann : do: light, tile: b2, « Solver: x »"),
      _said(1, "solver output", "Solver:", "Ann : do: light, tile: b2, « Solver: x »")]),
    ("a soft hyphen hides nothing", "the dusk\u00ad_in\u00ad_refill option",
     [_said(1, "engine name", "dusk_in_refill", "the dusk_in_refill option")]),
    ("the context is 30 characters either side", "A" * 40 + " mini.play.take " + "B" * 40,
     [_said(1, "rule ID", "mini.play.take", "A" * 29 + " mini.play.take " + "B" * 29)]),
    ("an html page", '<!DOCTYPE html><html><body>\n<p title="last_stone">x</p>\n<script>mini.play.win</script>\n'
                     '<p class="credit">from the rulebook (a)</p> then mini.play.take\n</body></html>',
     [_said(2, "engine name", "last_stone", "last_stone"),
      _said(4, "rule ID", "mini.play.take", "then mini.play.take")]),
    ("an svg diagram", "<?xml version='1.0' encoding='utf-8'?>\n<svg xmlns='http://www.w3.org/2000/svg'>"
                       "<text>rule mini.play.win</text></svg>",
     [_said(2, "rule ID", "mini.play.win", "rule mini.play.win")]),
]


@pytest.mark.parametrize(("text", "messages"), [(text, messages) for _, text, messages in ROWS],
                         ids=[name for name, _, _ in ROWS])
def test_a_player_page_is_told_every_piece_of_notation_it_prints(mini: Path, text: str, messages: list[str]) -> None:
    book = SimpleNamespace(prefix="mini", engine_package="mini", root=mini, title="Mini Stones", id="mini")
    assert check_player_text(text, book, "play.md") == messages  # type: ignore[arg-type]
