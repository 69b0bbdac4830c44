"""Explicit chance nodes from an engine that draws inside ``apply``.

An engine draws every random outcome through its state's :class:`~rulepress.protocol.Chance`, in the middle of
``start`` or ``apply``.  OpenSpiel wants each draw as a chance node, with its outcomes and their probabilities, before
the draw.  :class:`ExplicitChance` is a ``Chance`` that uses forced outcomes as any ``Chance`` does, and at a draw
with none left raises :class:`NeedChance` with that draw's outcomes: the adapter then stands at a chance node, and
once an outcome is chosen it runs the same ``start`` or ``apply`` again on a fresh copy with the chosen outcomes
forced (the engine is deterministic given its forced outcomes: that is what makes examples replay).  A draw with a
single possible outcome is no node: it is taken at once.

A shuffle is a chance node per card from the top down (the outcome names the card that comes out next, each name
as likely as its count among those left), until the cards left all have one name: the order in which the bundled
engines' ``Chance.shuffle`` takes forced outcomes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from rulepress.protocol import Chance, DescriptionError, _Shuffled


class NeedChance(Exception):  # noqa: N818  (a signal, not an error: the state is at a chance node)
    """A draw with no forced outcome left: ``outcomes`` are its ``(outcome, probability)`` pairs, in the order the
    population gives them, ``what`` what is drawn (``card``, ``Firefly``); :attr:`at` is its place among the game's
    outcomes as :meth:`Chance.drawn` lists them."""

    def __init__(self, outcomes: list[tuple[Any, float]], what: str, chance: Chance | None = None,
                 partial: int = 0) -> None:
        super().__init__(what)
        self.outcomes = outcomes
        self.what = what
        self._chance, self._partial = chance, partial

    @property
    def at(self) -> int:
        return (len(self._chance.drawn()) if self._chance is not None else 0) + self._partial


def _weighted(values: Iterable[Any]) -> list[tuple[Any, int]]:
    """Each distinct value with how many times it occurs, in order of first occurrence (equality, not hashing)."""
    counted: list[list[Any]] = []
    index: dict[Any, int] = {}
    for value in values:
        try:
            at = index.get(value)
        except TypeError:  # unhashable: compared one by one
            at = next((i for i, (known, _) in enumerate(counted) if known == value), None)
        else:
            if at is None:
                index[value] = len(counted)
        if at is None:
            counted.append([value, 1])
        else:
            counted[at][1] += 1
    return [(value, count) for value, count in counted]


def _node(weights: list[tuple[Any, int]], what: str, chance: Chance, partial: int = 0) -> NeedChance:
    total = sum(count for _, count in weights)
    return NeedChance([(value, count / total) for value, count in weights], what, chance, partial)


class ExplicitChance(Chance):
    """A ``Chance`` that stops at every unforced draw with more than one possible outcome (:class:`NeedChance`)."""

    __slots__ = ()

    def __init__(self, forced: Iterable[Any] = ()) -> None:
        super().__init__(0, forced)

    def draw_from(self, population: Sequence[Any], what: str = "outcome") -> Any:
        weights = _weighted(population)
        if len(weights) == 1:
            return self._taken(weights[0][0])
        if not self.forced:
            raise _node(weights, what, self)
        return super().draw_from(population, what)

    def draw_counted(self, counts: Mapping[Any, int], what: str = "outcome") -> Any:
        weights = [(key, count) for key, count in counts.items() if count > 0]
        if len(weights) == 1:
            return self._taken(weights[0][0])
        if not self.forced:
            raise _node(weights, what, self)
        return super().draw_counted(counts, what)

    def randint(self, low: int, high: int, what: str = "roll") -> int:
        if low == high:
            return int(self._taken(low))
        if not self.forced:
            raise _node([(value, 1) for value in range(low, high + 1)], what, self)
        return super().randint(low, high, what)

    def _taken(self, value: Any) -> Any:
        """A draw with one possible outcome: no node, and no chosen outcome used up (the outcomes chosen so far are
        the nodes', in order)."""
        self._log.append(value)
        return value

    def shuffle(self, items: list[Any], what: str = "item", *, name: Callable[[Any], Any] | None = None,
                names: Collection[Any] | None = None, top: str = "first") -> None:
        if top not in ("first", "last"):
            raise ValueError(f"top must be 'first' or 'last', not {top!r}")
        label = name or (lambda item: item)
        left = list(items) if top == "first" else list(reversed(items))  # top first
        order: list[Any] = []
        while left:
            weights = _weighted(label(item) for item in left)
            if len(weights) == 1:
                break
            if not self.forced:
                raise _node(weights, what, self, len(order))
            value = self.forced.popleft()
            at = next((i for i, item in enumerate(left) if label(item) == value), None)
            if at is None:
                raise DescriptionError("chance", f"forced {what} {value!r} is not possible here")
            order.append(left.pop(at))
        order += left
        items[:] = order if top == "first" else order[::-1]
        self._log.append(_Shuffled(tuple(order), name))

    @classmethod
    def taking_over(cls, chance: Chance | None) -> ExplicitChance:
        """An explicit chance that goes on from ``chance`` (its outcomes so far kept, none forced)."""
        twin = cls()
        if chance is not None:
            twin._log = list(chance._log)
        return twin

    def clone(self) -> ExplicitChance:
        twin = ExplicitChance.__new__(ExplicitChance)
        twin.rng = random.Random()
        twin.rng.setstate(self.rng.getstate())
        twin.forced = type(self.forced)(self.forced)
        twin._log = list(self._log)
        return twin
