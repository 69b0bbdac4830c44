"""The pattern notation for a zone's required dice combination, and matching dice against it.

A combination is written as six space-separated tokens, one per die drawn on the sheet:

* ``1`` .. ``6``: a die that must show that face;
* ``X``: a wild die, any face (rule ln.fight.wild);
* any other capital letter (``A``, ``B``, ...): a group; every die marked with the same letter must
  show the same face, whichever it is.  Different letters may show the same face.

Six ``X`` together are not "anything": the six-wild rule (ln.fight.six-wild) reads them as
``A A A B B B``, and an engine option decides whether the two triples must differ.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from itertools import product

from rulepress.protocol import DescriptionError

FACES = (1, 2, 3, 4, 5, 6)
WILD = "X"
DICE = 6

Dice = tuple[int, ...]


@dataclass(frozen=True)
class Combination:
    """A parsed combination: fixed faces, groups of equal dice and free (wild) dice."""

    notation: str
    fixed: tuple[int, ...]
    groups: tuple[int, ...]
    wild: int
    distinct_groups: bool
    six_wild: bool

    @cached_property
    def targets(self) -> tuple[Dice, ...]:
        """Every sorted multiset of faces that the non-wild dice must show (one per way to fill the groups)."""
        seen: set[Dice] = set()
        for values in product(FACES, repeat=len(self.groups)):
            if self.distinct_groups and len(set(values)) < len(values):
                continue
            faces = list(self.fixed)
            for size, value in zip(self.groups, values, strict=True):
                faces.extend([value] * size)
            seen.add(tuple(sorted(faces)))
        return tuple(sorted(seen))

    def __hash__(self) -> int:  # every solver cache looks a combination up with the dice: hashed once
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self.notation, self.fixed, self.groups, self.wild, self.distinct_groups, self.six_wild))

    def is_met(self, dice: Dice) -> bool:
        """Whether the dice showing already form the combination."""
        have = Counter(dice)
        return any(not (Counter(target) - have) for target in self.targets)

    def tokens(self) -> tuple[str, ...]:
        return tuple(self.notation.split())


def parse(notation: str, *, six_wild_distinct: bool = False, path: str = "combination") -> Combination:
    """Read a combination written in the notation above."""
    tokens = notation.split()
    if len(tokens) != DICE:
        raise DescriptionError(path, f"a combination names exactly {DICE} dice, got {len(tokens)}: {notation!r}")
    fixed: list[int] = []
    groups: dict[str, int] = {}
    wild = 0
    for token in tokens:
        if token == WILD:
            wild += 1
        elif token.isdigit() and int(token) in FACES:
            fixed.append(int(token))
        elif len(token) == 1 and token.isalpha() and token.isupper():
            groups[token] = groups.get(token, 0) + 1
        else:
            raise DescriptionError(path, f"unknown token {token!r} in {notation!r} "
                                         "(use 1-6, X for a wild die, or a capital letter for a group)")
    if wild == DICE:
        # Six wilds would accept any roll; the text gives them their own meaning instead.
        return Combination(notation, (), (3, 3), 0, six_wild_distinct, True)
    return Combination(notation, tuple(sorted(fixed)), tuple(sorted(groups.values(), reverse=True)),
                       wild, False, False)
