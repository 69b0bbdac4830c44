"""Refusal rules in simulated play and in the book's examples: which ones a probe provokes, and which nothing does.

Policies only choose legal actions, so a rule that refuses (a :class:`~rulepress.protocol.RuleViolation`) never
fires as an event.  To see whether it ever matters, actions no legal action is are tried on a copy of a position,
and the rule each refusal names is counted.  The positions:

* some simulated games are *probed* (one in ``PROBED_GAMES``, at a few of their states and lightly at the others);
* every position of every example of the book (``from_examples``): each example replayed to each of its steps.

The actions tried: a legal action with one field changed to a value another legal action has (the same light on
another tile: ``near_misses``), and, systematically, one legal action of each kind with one field set to a value no
legal action gives it (``unlisted``): a literal of a refusal's own condition (``conditions``: ``if a.where ==
"wolf" and s.n < 4`` gives the Wolf), a component the book has (``inventory``), a number in a gap of or just
outside the ones listed (the Ability at the cap, a seat that does not play).  A refusal rule no probe provokes,
in play or in an example, is reported (``refusal-never-provoked``).

The engine's refusal rules are read from its source: every ``RuleViolation("rule", ...)`` with a literal rule
(``refusal_rules``).  Probing is seeded from the game's seed (an example's from its ID) alone, so it is the same
on any number of workers.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from rulepress.errors import relative
from rulepress.load import engine_source
from rulepress.protocol import DescriptionError, RuleViolation

PROBED_GAMES = 50  # one game in this many is probed (game index 0, 50, 100...): 5-7% more play (measured)
PROBE_AT = frozenset({0, 2, 6, 14, 30, 60, 120})  # the actions of a probed game before which it is probed
PROBES = 24  # near misses tried per probed state
BETWEEN = 2  # and at every other state of a probed game: a refusal's situation (an Ability at the cap as a row
# fills) comes up where it comes up, seldom at the fixed moments


def probed(index: int) -> bool:
    return index % PROBED_GAMES == 0


def _fields_drawn(legal: Sequence[Any], rng: random.Random, most: int,
                  found: list[Any]) -> Iterator[tuple[int, Any, str, Any]]:
    """The draws :func:`near_misses` and :func:`some_unlisted` start from: a legal action and one of its fields (the
    try's number, the action, the field's name and value), at most four tries for each action wanted.  It stops once
    ``found`` (the caller's, added to between draws) holds ``most``, or at an action with no fields."""
    for attempt in range(most * 4):
        if len(found) >= most or not legal:
            return
        action = legal[rng.randrange(len(legal))]
        fields = getattr(action, "_fields", ())
        if not fields:
            return
        name = fields[rng.randrange(len(fields))]
        yield attempt, action, name, getattr(action, name)


def near_misses(legal: Sequence[Any], rng: random.Random, most: int = PROBES,
                elsewhere: Sequence[Any] = ()) -> list[Any]:
    """Unlisted actions one field away from listed ones (``NamedTuple`` actions; others give none): the field takes
    another legal action's value, or (every other try) one of ``elsewhere`` or a number next to the listed ones,
    of the field's own type."""
    listed = set(legal)
    found: list[Any] = []
    for attempt, action, name, value in _fields_drawn(legal, rng, most, found):
        if attempt % 2:
            pool = [v for v in elsewhere if type(v) is type(value)]
            if isinstance(value, int) and not isinstance(value, bool):
                pool += [value - 1, value + 1, -1, max(getattr(a, name) for a in legal
                                                       if type(getattr(a, name, None)) is int) + 1]
            if not pool:
                continue
            candidate = action._replace(**{name: pool[rng.randrange(len(pool))]})
        else:
            other = legal[rng.randrange(len(legal))]
            if type(other) is not type(action):
                continue
            candidate = action._replace(**{name: getattr(other, name)})
        if candidate not in listed and candidate not in found:
            found.append(candidate)
    return found


def probe(game: Any, state: Any, legal: Sequence[Any], rng: random.Random, elsewhere: Sequence[Any] = (),
          most: int = PROBES) -> set[str]:
    """The rules that refuse near misses of ``legal`` in ``state`` (tried on copies; ``state`` is not touched);
    ``elsewhere``: values no legal action need have (the book's components, by name)."""
    return tried(game, state, [*near_misses(legal, rng, most - most // 2, elsewhere),
                               *some_unlisted(legal, elsewhere, rng, most // 2)])


def some_unlisted(legal: Sequence[Any], values: Sequence[Any], rng: random.Random, most: int) -> list[Any]:
    """A few of :func:`unlisted`'s actions, drawn without listing them all (in play, where a game is probed at
    every state and the book's components number hundreds): a legal action, a field, a value of its type."""
    listed = set(legal)
    by_type: dict[type, list[Any]] = {}
    for value in values:
        by_type.setdefault(type(value), []).append(value)
    found: list[Any] = []
    for _, action, name, value in _fields_drawn(legal, rng, most, found):
        pool = by_type.get(type(value), [])
        if isinstance(value, int) and not isinstance(value, bool):
            pool = [*pool, value - 1, value + 1]
        if not pool:
            continue
        candidate = action._replace(**{name: pool[rng.randrange(len(pool))]})
        if candidate not in listed and candidate not in found:
            found.append(candidate)
    return found


def unlisted(legal: Sequence[Any], values: Sequence[Any], rng: random.Random, most: int) -> list[Any]:
    """Actions no legal action is, systematically: one legal action of each kind with one field (not its kind) set
    to a value no legal action gives that field: one of ``values`` (the literals of the refusals' conditions, the
    book's components) of the field's own type, or a number just outside the listed ones.  At most ``most``,
    drawn with ``rng`` when there are more."""
    listed = set(legal)
    first: dict[Any, Any] = {}
    for action in legal:
        first.setdefault((type(action), getattr(action, "do", getattr(action, "kind", None))), action)
    found: list[Any] = []
    for action in first.values():
        for name in getattr(action, "_fields", ()):
            value = getattr(action, name)
            if not isinstance(value, str | int) or isinstance(value, bool):
                continue
            have = {getattr(a, name) for a in legal if type(a) is type(action)}
            pool = [v for v in values if type(v) is type(value) and v not in have]
            if isinstance(value, int):  # the gaps between the listed numbers too (the Ability at the cap)
                low, high = min(v for v in have if type(v) is int), max(v for v in have if type(v) is int)
                pool += [v for v in range(low - 1, high + 2) if v not in have] if high - low <= GAPS else \
                    [low - 1, high + 1]
            for other in dict.fromkeys(pool):
                candidate = action._replace(**{name: other})
                if candidate not in listed:
                    found.append(candidate)
    found = list(dict.fromkeys(found))
    return rng.sample(found, most) if len(found) > most else found


def tried(game: Any, state: Any, actions: Sequence[Any]) -> set[str]:
    """The rules that refuse ``actions`` in ``state`` (each tried on a copy)."""
    refused: set[str] = set()
    for action in actions:
        try:
            game.apply(game.clone(state), action)
        except RuleViolation as refusal:
            refused.add(refusal.rule)
        except (DescriptionError, TypeError, ValueError, KeyError, IndexError, AttributeError):
            continue  # not an action of this game at all (a field out of its range): no rule to count
    return refused


EXAMPLE_PROBES = 200  # unlisted actions tried at each position of an example
GAPS = 64  # the widest range of a numeric field whose unlisted numbers are all tried


def from_examples(book: Any, engine: Any, examples: Sequence[Any], values: Sequence[Any]) -> dict[str, list[str]]:
    """Refusal rule -> the examples at a position of which an unlisted action (:func:`unlisted`) is refused by it:
    each example is replayed step by step (its forced chance, its actions; an ``illegal:`` step is not played) and
    probed before each action.  An example the walk cannot follow (a state only its own replay can build) stops
    where it fails: what it reached still counts."""
    from rulepress.verify.replay import make_game

    found: dict[str, list[str]] = {}
    for example in examples:
        rng = random.Random(f"{example.id}:refusals")
        seen: dict[Any, None] = dict.fromkeys(values)  # and what the example's legal actions held so far
        try:
            game = make_game(engine, book, example.options)
            if "setup" in example.start:
                forced = example.start.get("chance")
                state = game.new_state(example.players, example.seed, forced) if forced else \
                    game.new_state(example.players, example.seed)
            else:
                state = game.state_from_description(example.start["state"], example.players, example.seed)
            for step in example.steps:
                if step.kind == "chance":
                    game.force_chance(state, step.data["chance"])
                    continue
                if step.kind != "action":
                    continue
                legal = game.legal_actions(state)
                seen.update(dict.fromkeys(v for a in legal for v in getattr(a, "_asdict", dict)().values()
                                          if isinstance(v, str | int)))
                for rule in tried(game, state, unlisted(legal, list(seen), rng, EXAMPLE_PROBES)):
                    found.setdefault(rule, [])
                    if example.id not in found[rule]:
                        found[rule].append(example.id)
                if step.illegal is None:
                    game.apply(state, game.parse_action(state, step.data))
        except Exception:  # noqa: BLE001 - the walk is a probe, the example's replay (the gate) judges it
            continue
    return found


@cache
def condition_values(folder: Path) -> tuple[Any, ...]:
    """Every literal of every refusal's condition in the engine at ``folder`` (worked out once per process)."""
    return tuple(dict.fromkeys(v for values in conditions(folder, "").values() for v in values))


def conditions(folder: Path, prefix: str) -> dict[str, list[Any]]:
    """Refusal rule -> the literal values (strings, numbers) the ``if`` tests guarding its ``RuleViolation`` compare
    with: ``if a.where == "wolf" and s.n < 4`` gives ``wolf`` and 4, values an action may take to meet it."""
    found: dict[str, list[Any]] = {}
    for path in sorted(folder.rglob("*.py")):
        try:
            tree = ast.parse(engine_source.read(path))
        except (SyntaxError, ValueError):
            continue
        parent = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            rule = _refused_rule(node, prefix)
            if rule is None:
                continue
            values = found.setdefault(rule, [])
            below, above = node, parent.get(node)
            while above is not None and not isinstance(above, ast.FunctionDef | ast.AsyncFunctionDef):
                if isinstance(above, ast.If) and below is not above.test:
                    values += [c.value for c in ast.walk(above.test) if isinstance(c, ast.Constant)
                               and isinstance(c.value, str | int) and not isinstance(c.value, bool)
                               and c.value not in values]
                below, above = above, parent.get(above)
    return found


def _refused_rule(node: ast.AST, prefix: str) -> str | None:
    if not (isinstance(node, ast.Call) and node.args):
        return None
    name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
    first = node.args[0]
    if name == "RuleViolation" and isinstance(first, ast.Constant) and isinstance(first.value, str) \
            and (not prefix or first.value.startswith(f"{prefix}.")):
        return first.value
    return None


def refusal_rules(folder: Path, root: Path, prefix: str) -> dict[str, list[str]]:
    """Rule ID -> every ``file:line`` of the engine where ``RuleViolation(<that rule literal>, ...)`` is made."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        try:
            tree = ast.parse(engine_source.read(path))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            rule = _refused_rule(node, prefix)
            if rule is not None:
                found.setdefault(rule, []).append(f"{relative(path, root)}:{node.lineno}")
    return found
