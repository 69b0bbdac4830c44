"""What the steps a diagram illustrates changed, as data any engine's drawing can show (no stage).

The replay keeps the position before and after every step (rulepress/verify/replay.py).  :func:`differences`
compares two snapshots (or, with hidden information, two views of the diagram's seat) as plain data, so it works
for any engine: each path that changed (``garden.b2.moths``, ``hands.Ann``), the list items or mapping keys that
left it or reached it, and a scalar's old and new value.  An item that leaves one path and reaches another in the
same step is a :class:`Movement` (a card from a hand to a tile).  A step the rules refused changed nothing: it keeps
what it tried (its step's keys) and the rule that refused it, as the book numbers it.

A :class:`Change` is what one diagram illustrates: its moment ("After step 3", in the diagram's language) and its
steps, numbered as the example's list of steps numbers them.  ``rulepress.basegame.BaseGame.render_svg`` takes it
(``change=``) and marks it over the engine's drawing (rulepress/marks.py: outlines, numbered callouts, arrows, a
struck-out arrow for a refused move) wherever the engine says it draws each part of the snapshot (``places``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from rulepress.data import package_path
from rulepress.protocol import HIDDEN

_SCALARS = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class Difference:
    """One path of the snapshot that a step changed."""

    path: str  # dotted, as an example's ``expect`` names it: "garden.b2.moths"
    removed: tuple[Any, ...] = ()  # list items that left it, or the key of a mapping entry that went
    added: tuple[Any, ...] = ()  # list items that reached it, or the key of a mapping entry that came
    was: Any = None  # a scalar's value before (None for a list or an entry)
    now: Any = None  # and after


@dataclass(frozen=True)
class Movement:
    """An item that left one path and reached another in the same step (a card from a hand to a tile)."""

    item: Any
    source: str
    target: str


@dataclass(frozen=True)
class StepChange:
    """One step a diagram illustrates."""

    number: int  # as the example's list of steps numbers it (1, 2, ...): the diagram's callouts say it
    step: Mapping[str, Any] = field(default_factory=dict)  # what the example's step says (player, do, arguments)
    differences: tuple[Difference, ...] = ()
    refused_by: str | None = None  # the refusing rule as the book numbers it ("4.4"); a refused step changes nothing
    said: str = ""  # the step in players' words (the engine's narration) in the diagram's language

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(d.path for d in self.differences)

    @property
    def movements(self) -> tuple[Movement, ...]:
        return movements(self.differences)


@dataclass(frozen=True)
class Change:
    """What a diagram illustrates: the moment it shows and the steps around it.

    ``coming``: the steps follow the position drawn (a diagram before the moves it shows), else they led to it.
    ``words``: the marks' words in the diagram's language (``refused``: "not allowed: rule {number}")."""

    moment: str
    steps: tuple[StepChange, ...] = ()
    coming: bool = False
    words: Mapping[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        """Whether there is anything to mark: a step that changed something, or one the rules refused."""
        return any(step.differences or step.refused_by for step in self.steps)

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path some step changed, once, in order."""
        return tuple(dict.fromkeys(path for step in self.steps for path in step.paths))

    def word(self, key: str, **values: Any) -> str:
        text = self.words.get(key) or english_words()[key]
        return text.format(**values) if values else text


def differences(before: Any, after: Any, path: str = "") -> list[Difference]:
    """Where two plain values differ: a mapping by its keys; a list of scalars that keeps its length position by
    position (a string that keeps its length character by character: a grid's row), one that grows or shrinks as the
    items that left and came (its order aside: a hand sorted anew is the same hand); any other list item by item when
    the lengths agree."""
    if isinstance(before, _SCALARS) and type(before) is type(after) and before == after:
        return []  # (containers are walked: True == 1 would hide a yes/no turned into a number inside one)
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        found: list[Difference] = []
        for key in [*before, *(k for k in after if k not in before)]:
            inner = f"{path}.{key}" if path else str(key)
            if key not in after:
                found.append(Difference(inner, removed=(key,)))
            elif key not in before:
                found.append(Difference(inner, added=(key,)))
            else:
                found += differences(before[key], after[key], inner)
        return found
    if isinstance(before, list | tuple) and isinstance(after, list | tuple):
        if all(isinstance(item, _SCALARS) for item in (*before, *after)):
            if len(before) == len(after) and all(type(a) is type(b) and a == b
                                                 for a, b in zip(before, after, strict=True)):
                return []
            gone, came = Counter(map(_key, before)) - Counter(map(_key, after)), \
                Counter(map(_key, after)) - Counter(map(_key, before))
            if not gone and not came:  # the same items in another order
                return [Difference(path or "value")]
            if len(before) == len(after):  # items changed in place: each position that changed (a row of a grid)
                return [d for index, (old, new) in enumerate(zip(before, after, strict=True))
                        if not (type(old) is type(new) and old == new)
                        for d in _in_place(f"{path}.{index}" if path else str(index), old, new)]
            return [Difference(path or "value", _items(before, gone), _items(after, came))]
        if len(before) == len(after):
            return [d for index, (old, new) in enumerate(zip(before, after, strict=True))
                    for d in differences(old, new, f"{path}.{index}" if path else str(index))]
        return [Difference(path or "value")]
    return [Difference(path or "value", was=before, now=after)]


def _in_place(path: str, old: Any, new: Any) -> list[Difference]:
    """An item of a list that changed in place: a string that keeps its length is a row of cells, each changed
    character its own path (``grid.2.0``: row 2, column 0, as a grid printed as rows reads)."""
    if isinstance(old, str) and isinstance(new, str) and len(old) == len(new):
        return [Difference(f"{path}.{column}", (a,), (b,), a, b)
                for column, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    return [Difference(path, (old,), (new,), old, new)]


def _key(item: Any) -> tuple[str, Any]:
    return type(item).__name__, item  # True and 1 stay two items


def _items(values: Sequence[Any], wanted: Counter[tuple[str, Any]]) -> tuple[Any, ...]:
    """The items of ``values`` that ``wanted`` counts, in their order in ``values``."""
    left, out = Counter(wanted), []
    for item in values:
        if left[_key(item)] > 0:
            left[_key(item)] -= 1
            out.append(item)
    return tuple(out)


def movements(found: Sequence[Difference]) -> tuple[Movement, ...]:
    """Items (strings: cards, tiles, tokens by name) that left one path and reached another."""
    moved = []
    for gone in found:
        for item in gone.removed:
            if not isinstance(item, str) or item == HIDDEN:  # a hidden card is no one in particular
                continue
            moved += [Movement(item, gone.path, came.path) for came in found
                      if came.path != gone.path and item in came.added]
    return tuple(dict.fromkeys(moved))


def place_of(path: str, places: Mapping[str, Any]) -> str | None:
    """The place drawn for ``path``: the longest key of ``places`` that is the path or a dotted prefix of it."""
    while path:
        if path in places:
            return path
        path = path.rpartition(".")[0]
    return None


@cache
def english_words() -> dict[str, str]:
    return mark_words("en")


@cache
def mark_words(lang: str) -> dict[str, str]:
    """The words of a diagram's moment and marks in ``lang``: the ``moment_*`` and ``mark_*`` entries of the book's
    fixed words (``rulepress/render/strings/<lang>.yaml``, read here as data), English where a language lacks one."""
    import yaml

    found: dict[str, str] = {}
    for name in dict.fromkeys(["en", lang]):
        path = package_path("render", "strings", f"{name}.yaml")
        if not path.is_file():
            continue
        table = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        found.update({key: str(value) for key, value in table.items()
                      if isinstance(key, str) and key.startswith(("moment_", "mark_"))})
    return found


def moment(words: Mapping[str, str], numbers: Sequence[int], coming: bool, setup: bool = False,
           refused: bool = False) -> str:
    """A diagram's moment in words: "After step 3", "Before steps 1–4", "At the start" (``setup``: "After setup")."""
    if not numbers:
        return words["moment_setup" if setup else "moment_start"]
    first, last = numbers[0], numbers[-1]
    if refused and first == last:
        return words["moment_refused"].format(step=first)
    kind = "before" if coming else "after"
    if first == last:
        return words[f"moment_{kind}"].format(step=first)
    return words[f"moment_{kind}_steps"].format(first=first, last=last)
