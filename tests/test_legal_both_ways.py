"""Legal actions checked both ways, for every bundled engine, from states reached by random play.

* every action ``legal_actions`` lists is accepted by ``apply`` (on a copy; the original state stays as it was);
* actions it does NOT list are refused with a RuleViolation naming a rule of that book, leaving the state
  unchanged.  The unlisted actions are made three ways: a listed action with one field changed to a value that
  field takes in some other legal action; legal actions of other states; and the engine's own parse of random
  steps written with the keys and values its book's examples use.

An unlisted action that ``apply`` accepts with exactly the effect of a listed one is another spelling of that
action (the same dice in another order), not a rules bug; it is counted, not failed.  Seeds and counts are
fixed, so a failure replays the same way.
"""

from __future__ import annotations

import copy
import random
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rulepress.load.book import Book, load_book
from rulepress.load.yamlsrc import load_yaml
from rulepress.protocol import DescriptionError, RuleViolation
from rulepress.verify.engines import load_engine

from .conftest import ROOT

BOOKS = ("lantern-moths", "last-lantern", "lantern")
SEEDS = range(5)  # games per player count
STATES = 14  # states examined per game, spread over it
LISTED = 12  # listed actions applied per state (all of them when fewer)
UNLISTED = 24  # unlisted actions tried per state


@dataclass
class Findings:
    """What the walk found: failures (one line each) and how much was checked."""

    failures: list[str] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def _vocabulary(book: Book) -> tuple[dict[str, set[str]], dict[str, list[Any]], list[list[str]]]:
    """From the book's examples: the keys each ``do`` takes, the values each key takes, the player lists."""
    keys: dict[str, set[str]] = defaultdict(set)
    values: dict[str, list[Any]] = defaultdict(list)
    players: list[list[str]] = []
    for path in sorted((book.root / "examples" / book.id).glob("*.yaml")):
        raw = load_yaml(path)
        if raw.get("players") and raw["players"] not in players:
            players.append(list(raw["players"]))
        for step in raw.get("steps") or []:
            if isinstance(step, dict) and "do" in step:
                keys[step["do"]].update(k for k in step if k not in ("do", "illegal", "note", "player"))
                for key, value in step.items():
                    if key not in ("illegal", "note", "player") and value not in values[key]:
                        values[key].append(copy.deepcopy(value))
    return keys, values, players


def _states(game: Any, players: list[str], seed: int) -> Iterator[Any]:
    """States of one random game (fixed seed), about STATES of them spread from setup to the end."""
    rng = random.Random(seed)
    state = game.new_state(players, seed)
    trail = [game.clone(state)]
    while not game.is_terminal(state) and len(trail) < 400:
        actions = game.legal_actions(state)
        if not actions:
            break
        try:
            game.apply(state, actions[rng.randrange(len(actions))])
        except RuleViolation:  # a listed action refused: the state before it reports that
            break
        trail.append(game.clone(state))
    step = max(1, len(trail) // STATES)
    yield from trail[::step][:STATES]
    if game.is_terminal(state):
        yield state  # the end: nothing is legal any more


def _perturbed(action: Any, pool: dict[str, list[Any]], rng: random.Random) -> Any | None:
    """``action`` with one field set to a value that field has in some other legal action."""
    fields = getattr(action, "_fields", ())
    choices = [(name, value) for name in fields for value in pool[name] if value != getattr(action, name)]
    if not choices:
        return None
    name, value = rng.choice(choices)
    return action._replace(**{name: value})


def _effect(game: Any, state: Any, action: Any) -> tuple[Any, Any] | None:
    """What ``action`` does to a copy of ``state`` (snapshot and events), None when it is refused."""
    twin = game.clone(state)
    try:
        events = game.apply(twin, action)
    except RuleViolation:
        return None
    return game.snapshot(twin), [e.as_dict() for e in events]


def _check_state(game: Any, book: Book, state: Any, vocabulary: tuple[Any, Any, Any], others: list[Any],
                 pool: dict[str, list[Any]], rng: random.Random, found: Findings) -> None:
    where = book.id
    before = copy.deepcopy(game.snapshot(state))
    listed = list(game.legal_actions(state))
    shown = f"round {before.get('round', '?')} phase {before.get('phase', '?')}"
    effects: dict[int, Any] = {}
    for index in sorted(rng.sample(range(len(listed)), min(LISTED, len(listed)))):
        action = listed[index]
        twin = game.clone(state)
        try:
            game.apply(twin, action)
        except RuleViolation as exc:
            found.failures.append(f"{where} ({shown}): listed action {action!r} refused by {exc.rule}: {exc.message}")
        except Exception as exc:  # noqa: BLE001 - any crash on a listed action is a finding
            found.failures.append(f"{where} ({shown}): listed action {action!r} crashed: {type(exc).__name__}: {exc}")
        found.checked["listed"] += 1
        if game.snapshot(state) != before:
            found.failures.append(f"{where} ({shown}): applying {action!r} to a clone changed the original")
            return

    def listed_effects() -> list[Any]:
        if not effects:
            for number, action in enumerate(listed):
                effects[number] = _effect(game, state, action)
        return list(effects.values())

    candidates = _candidates(game, book, state, listed, vocabulary, others, pool, rng, found, shown, before)
    for source, action in candidates[:UNLISTED]:
        twin = game.clone(state)
        try:
            events = game.apply(twin, action)
        except RuleViolation as exc:
            found.checked[f"refused ({source})"] += 1
            if exc.rule not in book.rules:
                found.failures.append(f"{where} ({shown}): {action!r} ({source}) refused by '{exc.rule}', which is "
                                      f"no rule of {book.id}")
            if game.snapshot(twin) != before:
                found.failures.append(f"{where} ({shown}): refusing {action!r} ({source}) by {exc.rule} changed "
                                      "the state")
            continue
        except Exception as exc:  # noqa: BLE001 - a crash instead of a refusal is a finding
            found.failures.append(f"{where} ({shown}): unlisted {action!r} ({source}) crashed instead of being "
                                  f"refused: {type(exc).__name__}: {exc}")
            continue
        effect = (game.snapshot(twin), [e.as_dict() for e in events])
        if effect in listed_effects():
            found.checked["another spelling of a listed action"] += 1
        else:
            found.failures.append(f"{where} ({shown}): {action!r} ({source}) is not listed as legal but apply "
                                  f"accepted it: {[e['kind'] for e in effect[1]]}")


def _candidates(game: Any, book: Book, state: Any, listed: list[Any], vocabulary: tuple[Any, Any, Any],
                others: list[Any], pool: dict[str, list[Any]], rng: random.Random, found: Findings, shown: str,
                before: Any) -> list[tuple[str, Any]]:
    """Unlisted actions, shuffled: perturbed, from other states, parsed from random steps."""
    where = book.id
    made: list[tuple[str, Any]] = []
    for action in rng.sample(listed, min(len(listed), 10)):
        twin = _perturbed(action, pool, rng)
        if twin is not None:
            made.append(("perturbed", twin))
    made += [("other state", a) for a in rng.sample(others, min(len(others), 10))]
    keys, values, _ = vocabulary
    players = list(getattr(state, "players", ()))
    for _ in range(12):
        do = rng.choice(sorted(keys))
        step: dict[str, Any] = {"do": do}
        for key in sorted(keys[do]):
            if rng.random() < 0.85:
                step[key] = copy.deepcopy(rng.choice(values[key]))
        if players:
            step["player"] = rng.choice(players)
        twin = game.clone(state)
        try:
            action = game.parse_action(twin, step)
        except DescriptionError:
            continue
        except RuleViolation as exc:
            found.checked["refused while parsing"] += 1
            if exc.rule not in book.rules:
                found.failures.append(f"{where} ({shown}): parsing {step} refused by '{exc.rule}', which is no "
                                      f"rule of {book.id}")
            if game.snapshot(twin) != before:
                found.failures.append(f"{where} ({shown}): parsing {step} changed the state")
            continue
        made.append((f"parsed from {step}", action))
    unlisted = [(source, action) for source, action in made if action not in listed]
    rng.shuffle(unlisted)
    return unlisted


def walk(book_id: str, root: Path = ROOT) -> Findings:
    book = load_book(root, book_id)
    engine = load_engine(book.engine_package, root)
    game = engine.make_game(book.components, {})
    vocabulary = _vocabulary(book)
    low, high = book.data["players"]["min"], book.data["players"]["max"]
    casts = {len(p): p for p in vocabulary[2] if low <= len(p) <= high}
    found = Findings()
    seen: list[Any] = []
    pool: dict[str, list[Any]] = defaultdict(list)
    for count in sorted(casts):
        for seed in SEEDS:
            rng = random.Random(f"{book_id}-{count}-{seed}")
            for state in _states(game, casts[count], seed):
                listed = list(game.legal_actions(state))
                for action in listed:
                    for name in getattr(action, "_fields", ()):
                        value = getattr(action, name)
                        if value not in pool[name] and len(pool[name]) < 40:
                            pool[name].append(value)
                others = [a for a in seen if a not in listed]
                _check_state(game, book, state, vocabulary, others, pool, rng, found)
                found.checked["states"] += 1
                seen = (seen + rng.sample(listed, min(3, len(listed))))[-60:]
    return found


@pytest.mark.parametrize("book_id", BOOKS)
def test_legal_actions_both_ways(book_id: str) -> None:
    found = walk(book_id)
    assert found.checked["states"] >= 40 and found.checked["listed"] >= 200, dict(found.checked)
    assert sum(n for k, n in found.checked.items() if k.startswith("refused (")) >= 300, dict(found.checked)
    assert not found.failures, f"{len(found.failures)} finding(s):\n" + "\n".join(found.failures[:12])


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_the_walk_passes_a_sound_engine(mini: Path) -> None:
    found = walk("mini", mini)
    assert found.failures == [] and found.checked["listed"] > 50 and found.checked["refused (other state)"] > 20


def test_the_walk_finds_an_action_accepted_but_not_listed(mini: Path) -> None:
    _edit(mini / "engine/mini/__init__.py", "if not 1 <= stones <= min(self.most, state.pile):",
          "if not 1 <= stones <= state.pile:")
    found = walk("mini", mini)
    assert found.failures and all("is not listed as legal but apply accepted it: ['take'" in f
                                  for f in found.failures), found.failures[:3]


def test_the_walk_finds_a_listed_action_refused(mini: Path) -> None:
    _edit(mini / "engine/mini/__init__.py", "list(range(1, min(self.most, state.pile) + 1))",
          "list(range(1, min(self.most, state.pile) + 2))")
    found = walk("mini", mini)
    assert found.failures and all("refused by mini.play.take: take 1 to 3 stones" in f for f in found.failures)


def test_the_walk_finds_a_refusal_that_changes_the_state(mini: Path) -> None:
    _edit(mini / "engine/mini/__init__.py", "        if not 1 <= stones <= min(self.most, state.pile):\n",
          "        if not 1 <= stones <= min(self.most, state.pile):\n            state.turn = 1 - state.turn\n")
    found = walk("mini", mini)
    assert any(f.endswith("by mini.play.take changed the state") for f in found.failures), found.failures[:3]


def _setup_state(engine_package: str, book_id: str, players: list[str]) -> tuple[Any, Any]:
    book = load_book(ROOT, book_id)
    game = load_engine(engine_package, ROOT).make_game(book.components, {})
    return game, game.new_state(players, 0)


def test_lantern_refuses_an_assignment_to_no_target() -> None:
    game, state = _setup_state("lantern", "lantern", ["Adventurer"])
    action = game.legal_actions(state)[0]._replace(target="")
    with pytest.raises(RuleViolation) as refused:
        game.apply(state, action)
    assert refused.value.rule == "ln.setup.assign"


def test_last_lantern_refuses_a_placement_by_player_minus_one() -> None:
    game, state = _setup_state("last_lantern", "last-lantern", ["Milo", "Howard"])
    rng = random.Random(0)
    while not any(a.do == "place" and a.player == 1 for a in game.legal_actions(state)):
        actions = game.legal_actions(state)
        game.apply(state, actions[rng.randrange(len(actions))])
    action = next(a for a in game.legal_actions(state) if a.do == "place" and a.player == 1)._replace(player=-1)
    with pytest.raises(RuleViolation) as refused:
        game.apply(state, action)
    assert refused.value.rule.startswith("ll.")
