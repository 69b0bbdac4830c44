"""Refusals probed where they apply (rulepress.analyze.refusals): actions no legal action is, built from the values
of a refusal's own condition and the gaps of the listed ones, tried at every position of the book's examples and
in play; a refusal the examples show but no player meets says so, and names who played."""

from __future__ import annotations

import random
from pathlib import Path
from typing import NamedTuple

import pytest

from rulepress.analyze import refusals
from rulepress.analyze.analysis import Run, Verdicts, refusal_table, unprovoked_refusals
from rulepress.analyze.plan import Config
from rulepress.analyze.tally import Tally
from rulepress.verify.gate import BookCheck, load_checked_book


class Move(NamedTuple):
    do: str
    player: int
    where: str


@pytest.fixture(scope="module")
def last(root: Path) -> BookCheck:
    return load_checked_book(root, "last-lantern")


def test_a_refusals_condition_gives_the_values_to_try(root: Path) -> None:
    found = refusals.conditions(root / "engine" / "last_lantern", "ll")
    assert {"wolf", 4} <= set(found["ll.fog.choose.wolf"])  # if a.where == "wolf" and s.n < 4: raise ...
    assert "wolf" in refusals.condition_values(root / "engine" / "last_lantern")


def test_unlisted_actions_take_values_no_legal_action_has() -> None:
    legal = [Move("choose", 0, "rabbit"), Move("choose", 0, "owl"), Move("choose", 2, "rabbit")]
    tried = set(refusals.unlisted(legal, ["wolf", "rabbit", "done"], random.Random(0), 100))
    assert Move("choose", 0, "wolf") in tried  # a value of the condition no legal action has
    assert Move("choose", 1, "rabbit") in tried and Move("choose", 3, "rabbit") in tried  # a gap, one past
    assert Move("done", 0, "rabbit") in tried  # another kind of action, not legal now
    assert not tried & set(legal) and Move("choose", 0, "rabbit") not in tried
    assert len(refusals.unlisted(legal, ["wolf"], random.Random(0), 2)) == 2
    drawn = refusals.some_unlisted(legal, ["wolf"], random.Random(0), 6)  # in play: a few, none listed
    assert drawn and not set(drawn) & set(legal)
    assert all(any(sum(a != b for a, b in zip(move, one, strict=True)) == 1 for one in legal) for move in drawn)


def test_the_kinds_offered_read_from_do_are_the_kinds_named() -> None:
    from rulepress.analyze.simulate import action_kinds, kinds_offered

    legal = [Move("choose", 0, "rabbit"), Move("done", 1, "")]
    named = action_kinds(object())  # type: ignore[arg-type]
    assert kinds_offered(None, legal, named) == {named(None, a) for a in legal} == {"choose", "done"}

    class Numbered(NamedTuple):
        kind: int

    assert kinds_offered(None, [Numbered(0), Numbered(3)], lambda state, a: f"k{a.kind}") == {"k0", "k3"}


def test_the_wolf_is_refused_at_the_examples_positions_with_fewer_than_four_players(last: BookCheck,
                                                                                     root: Path) -> None:
    values = list(refusals.condition_values(root / "engine" / "last_lantern"))
    found = refusals.from_examples(last.book, last.engine, last.examples, values)
    by_id = {example.id: example for example in last.examples}
    assert found["ll.fog.choose.wolf"]
    assert all(len(by_id[name].players) < 4 for name in found["ll.fog.choose.wolf"])  # the rule's own condition


def test_a_refusal_the_examples_show_and_no_player_meets(root: Path) -> None:
    """Lantern's cap is in no example's position; the cap's finding says who played and how many games were
    probed, never that the situation does not arise when a player's games show it."""
    check = load_checked_book(root, "lantern")
    tally = Tally()
    tally.probed = 3
    runs = [Run(Config("solver play", "solver"), tally)]
    table = refusal_table(root, check, runs)
    assert table["ln.sheet.cap"]["examples"] == [] and table["ln.sheet.cap"]["examples_probed"] == len(check.examples)
    assert table["ln.sheet.cap"]["by_player"] == {"solver": [0, 3]}
    assert table["ln.fight.counterattack"]["examples"]  # a refusal an example's position provokes
    verdicts = Verdicts([], [])
    unprovoked_refusals(root, check, runs, 0.05, verdicts)
    cap = next(f for f in verdicts.findings if f.subject == "refusal:ln.sheet.cap")
    assert cap.kind == "refusal-never-provoked" and cap.evidence["played_by"] == ["solver"]
    assert "solver play 3 probed games" in cap.message and f"{len(check.examples)} examples" in cap.message
    shown = [f for f in verdicts.findings if f.kind == "refusal-only-in-examples"]
    assert shown and all(f.evidence["examples"] and f.evidence["played_by"] == ["solver"] for f in shown)
    assert not any(f.subject == "refusal:ln.fight.counterattack" and f.kind == "refusal-never-provoked"
                   for f in verdicts.findings)
