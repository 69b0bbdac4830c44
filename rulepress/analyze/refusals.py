"""Refusal rules in simulated play: which ones the players' near misses provoke, and which nothing provokes.

Policies only choose legal actions, so a rule that refuses (a :class:`~rulepress.protocol.RuleViolation`) never
fires as an event.  To see whether it ever matters, some simulated games are *probed*: at a few of their states,
legal actions with one field changed are tried on a copy, and the rule each refusal names is counted.  Half the
changes take a value the same field has in another legal action (the same light on another tile, the same plant of
another card); the other half a value no legal action has: a component the book has (``inventory``: the Wolf in a
3-player game, a tile not in play) or a number just outside the ones listed (a seat that does not play).
A refusal rule no probe provokes in any game is reported (``refusal-never-provoked``): what it forbids is never
even within one change of what players do.

The engine's refusal rules are read from its source: every ``RuleViolation("rule", ...)`` with a literal rule
(``refusal_rules``).  Probing is seeded from the game's seed alone, so it is the same on any number of workers.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Sequence
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


def near_misses(legal: Sequence[Any], rng: random.Random, most: int = PROBES,
                elsewhere: Sequence[Any] = ()) -> list[Any]:
    """Unlisted actions one field away from listed ones (``NamedTuple`` actions; others give none): the field takes
    another legal action's value, or (every other try) one of ``elsewhere`` or a number next to the listed ones,
    of the field's own type."""
    listed = set(legal)
    found: list[Any] = []
    for attempt in range(most * 4):
        if len(found) >= most or not legal:
            break
        action = legal[rng.randrange(len(legal))]
        fields = getattr(action, "_fields", ())
        if not fields:
            break
        name = fields[rng.randrange(len(fields))]
        value = getattr(action, name)
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
    refused: set[str] = set()
    for action in near_misses(legal, rng, most, elsewhere):
        try:
            game.apply(game.clone(state), action)
        except RuleViolation as refusal:
            refused.add(refusal.rule)
        except (DescriptionError, TypeError, ValueError, KeyError, IndexError):
            continue  # not an action of this game at all (a field out of its range): no rule to count
    return refused


def refusal_rules(folder: Path, root: Path, prefix: str) -> dict[str, list[str]]:
    """Rule ID -> every ``file:line`` of the engine where ``RuleViolation(<that rule literal>, ...)`` is made."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        try:
            tree = ast.parse(engine_source.read(path))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            first = node.args[0]
            if name == "RuleViolation" and isinstance(first, ast.Constant) and isinstance(first.value, str) \
                    and first.value.startswith(f"{prefix}."):
                found.setdefault(first.value, []).append(f"{relative(path, root)}:{node.lineno}")
    return found
