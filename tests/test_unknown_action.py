"""A misspelt action name is answered with the action meant, in every bundled engine and in the base class (issue 31
B: help in the book's own words; the referee shows the engine's message as it is)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulepress.load.book import load_book
from rulepress.protocol import DescriptionError, meant
from rulepress.verify.engines import load_engine

from .conftest import ROOT

# book root, book, engine package, a step with a misspelt action, how the message begins
CASES = [
    (ROOT, "lantern-moths", "lantern_moths", {"player": "Ann", "do": "plnt"},
     "unknown action 'plnt' (did you mean 'plant'? actions: draw, plant, light, flip, pass, discard)"),
    (ROOT, "last-lantern", "last_lantern", {"do": "palce"}, "unknown action 'palce' (did you mean 'place'? known: "),
    (ROOT, "lantern", "lantern", {"do": "asign"}, "unknown action 'asign' (did you mean 'assign'? known: "),
    (ROOT / "samples" / "tic-tac-toe", "tic-tac-toe", "tic_tac_toe", {"player": "X", "do": "mrak", "square": "b2"},
     "unknown action 'mrak' (did you mean 'mark'? actions: mark)"),
]


@pytest.mark.parametrize(("root", "book_id", "package", "step", "says"), CASES, ids=[c[1] for c in CASES])
def test_a_misspelt_action_is_answered_with_the_one_meant(root: Path, book_id: str, package: str,
                                                          step: dict[str, str], says: str) -> None:
    spec = load_engine(package, root)
    book = load_book(root, book_id)
    game = spec.make_game(book.components, None)
    state = game.new_state(["X", "O"] if book_id == "tic-tac-toe" else ["Ann", "Ben"], 1)
    with pytest.raises(DescriptionError) as error:
        game.parse_action(state, step)
    assert error.value.message.startswith(says), error.value.message


def test_a_name_far_from_any_gets_the_list_alone() -> None:
    assert meant("xyzzy", ["plant", "light"]) == ""
    assert meant("Light", ["plant", "light"]) == "did you mean 'light'? "
