"""The adventure sheet and the other fixed numbers, built from ``components.yaml``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from rulepress.protocol import DescriptionError

from .combination import DICE, Combination, parse
from .score import ScoreTable, build_score_table

# Index of each pool of circles in the state's ``drawn``/``crossed`` lists (the sheet's order).
CRITICAL_STRIKE, COUNTERATTACK, MAGIC_SPELL, CONSTITUTION = range(4)
POOLS = ("critical_strike", "counterattack", "magic_spell", "constitution")
ABILITIES = POOLS[:3]
TARGETS = (*POOLS, "experience", "campfire")


@dataclass(frozen=True)
class Zone:
    number: int
    name: str
    enemy: str
    notation: str | None
    combination: Combination | None

    @property
    def is_campfire(self) -> bool:
        return self.combination is None


@dataclass(frozen=True)
class Sheet:
    names: Mapping[str, str]
    cap: int
    campfire_gain: int
    reroll_below: int
    row_names: tuple[str, ...]
    row_circles: tuple[int, ...]
    row_ends: tuple[int, ...]  # experience crossed when each row is full
    zones: tuple[Zone, ...]
    campfire_zone: int
    dragon_zone: int
    score: ScoreTable

    @property
    def experience_total(self) -> int:
        return self.row_ends[-1]

    def zone(self, number: int) -> Zone:
        return self.zones[number - 1]


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise DescriptionError(dotted, f"components.yaml lacks {dotted}")
        node = node[part]
    return node


def build_sheet(components: Mapping[str, Any], *, six_wild_distinct: bool) -> Sheet:
    """Read the sheet; anything the engine cannot play raises DescriptionError naming the key."""
    if _get(components, "dice.count") != DICE or _get(components, "dice.faces") != 6:
        raise DescriptionError("dice", "the engine plays with six six-sided dice")
    targets = tuple(_get(components, "setup.targets"))
    if targets != TARGETS:
        raise DescriptionError("setup.targets", f"expected the sheet's order {list(TARGETS)}")
    names = {key: str(_get(components, f"names.{key}")) for key in (*TARGETS, "zone")}
    row_names = tuple(str(n) for n in _get(components, "experience.row_names"))
    row_circles = tuple(int(n) for n in _get(components, "experience.row_circles"))
    if len(row_names) != len(row_circles) or not row_circles or min(row_circles) < 1:
        raise DescriptionError("experience", "every experience row needs a name and at least one circle")
    zone_list = _get(components, "zones.sheet.list")
    campfire_zone = int(_get(components, "zones.campfire"))
    dragon_zone = int(_get(components, "zones.dragon"))
    zones = []
    for index, entry in enumerate(zone_list, start=1):
        path = f"zones.sheet.list[{index - 1}]"
        if int(entry.get("number", 0)) != index:
            raise DescriptionError(path, f"zones are numbered 1, 2, ... in order; expected {index}")
        notation = entry.get("combination")
        if (index == campfire_zone) != (notation is None):
            raise DescriptionError(path, "the Campfire zone, and only it, has no combination")
        combination = None if notation is None else parse(str(notation), six_wild_distinct=six_wild_distinct,
                                                          path=f"{path}.combination")
        zones.append(Zone(index, str(entry.get("name", f"Zone {index}")), str(entry.get("enemy", "")),
                          None if notation is None else str(notation), combination))
    if len(zones) != int(_get(components, "zones.count")) or dragon_zone != len(zones):
        raise DescriptionError("zones", "zones.count zones are listed and the Dragon waits in the last one")
    return Sheet(
        names=names, cap=int(_get(components, "abilities.cap")),
        campfire_gain=int(_get(components, "constitution.campfire_gain")),
        reroll_below=int(_get(components, "setup.reroll_below")),
        row_names=row_names, row_circles=row_circles, row_ends=tuple(accumulate(row_circles)),
        zones=tuple(zones), campfire_zone=campfire_zone, dragon_zone=dragon_zone,
        score=build_score_table(_get(components, "score")),
    )
