"""Board geometry as bit masks.

The Canopy is a grid of lanes (the text's "columns", top of the board first) and steps (distance from
the start, 0 being the borderless start spaces).  Cell ``(lane, step)`` is bit ``step * stride + lane``;
the stride leaves one empty bit after the last lane so that shifting a mask by one lane never wraps
onto the next step.  Placement legality is then a handful of shifts and ANDs over whole boards.

Past the goal line lie ``beyond`` more steps: with the Basilisk they are the Basilisk board's spaces,
otherwise they are the table past the board's edge that a crossing tile may hang over.

The Frozen Lake is a second, separate grid with the same encoding.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any

from rulepress.protocol import DescriptionError

from .shapes import Orientation

LANE_LETTERS = "abcdefghijklmnopqrstuvwxyz"
LAKE_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def bits(mask: int) -> Iterable[int]:
    """The set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class Grid:
    """A rectangle of cells addressed by (column, row) with a padded stride."""

    def __init__(self, columns: int, rows: int) -> None:
        self.columns = columns
        self.rows = rows
        self.stride = columns + 1
        self._depths: dict[int, int] = {}
        self._spreads: dict[int, float] = {}

    def index(self, column: int, row: int) -> int:
        return row * self.stride + column

    def column_row(self, index: int) -> tuple[int, int]:
        return index % self.stride, index // self.stride

    def dilate(self, mask: int, within: int) -> int:
        """Cells edge-adjacent to ``mask`` (not in it), limited to ``within``."""
        s = self.stride
        return ((mask << 1) | (mask >> 1) | (mask << s) | (mask >> s)) & within & ~mask

    def depth(self, mask: int) -> int:
        """The rows of ``mask``'s cells added up (a placement's distance from the start), once per mask."""
        found = self._depths.get(mask)
        if found is None:
            found = 0
            cells, stride = mask, self.stride
            while cells:
                low = cells & -cells
                found += (low.bit_length() - 1) // stride
                cells ^= low
            self._depths[mask] = found
        return found

    def spread(self, mask: int) -> float:
        """``depth(mask) / max(1, squares) * 4``: how far from the start a placement lies on average, times four
        (the cooperative policy's first term), once per mask."""
        found = self._spreads.get(mask)
        if found is None:
            found = self._spreads[mask] = self.depth(mask) / max(1, mask.bit_count()) * 4
        return found

    def offsets(self, orientation: Orientation) -> tuple[int, ...]:
        return tuple(step * self.stride + lane for lane, step in orientation.cells)


class Canopy(Grid):
    """The Canopy board for one player count (cover board in place)."""

    def __init__(
        self,
        layout: Mapping[str, Any],
        lanes_per_path: int,
        beyond: int,
        basilisk_icons: Mapping[str, int] | None,
    ) -> None:
        self.lanes: int = int(layout["lanes"])
        self.length: int = int(layout["length"])
        self.beyond = beyond
        super().__init__(self.lanes, self.length + beyond + 1)
        self.names = LANE_LETTERS[: self.lanes]
        self.n_paths = len(layout["paths"])
        self.private: list[tuple[int, ...]] = []
        self.shared: list[tuple[int, ...]] = []
        for path in layout["paths"]:
            priv = tuple(self.names.index(x) for x in path["private"])
            if len(priv) != lanes_per_path:
                raise ValueError(f"a path has {lanes_per_path} lanes of its own")
            self.private.append(priv)
            self.shared.append(tuple(self.names.index(x) for x in path["shared"]))
        self.lantern_rows: tuple[int, ...] = tuple(int(r) for r in layout["lantern_rows"])
        self.row_mask = [
            sum(1 << self.index(lane, step) for lane in range(self.lanes)) for step in range(self.rows)
        ]
        self.spaces = sum(self.row_mask[1 : self.length + 1])  # path spaces (all lanes)
        self.beyond_mask = sum(self.row_mask[self.length + 1 :])  # past the goal line
        self.start_mask = self.row_mask[0]
        self.path_lanes = [tuple(sorted(p + s)) for p, s in zip(self.private, self.shared, strict=True)]
        self.lane_mask = [
            sum(1 << self.index(lane, step) for step in range(self.rows)) for lane in range(self.lanes)
        ]
        self.path_mask = [
            sum(self.lane_mask[lane] for lane in lanes) & self.spaces for lanes in self.path_lanes
        ]
        shared_lanes = {lane for lanes in self.shared for lane in lanes}
        self.shared_mask = sum(self.lane_mask[lane] for lane in shared_lanes) & self.spaces
        # a Tree tile stays in its player's lanes, also past the goal line
        self.tree_area = [
            sum(self.lane_mask[lane] for lane in lanes) & (self.spaces | self.beyond_mask)
            for lanes in self.path_lanes
        ]
        self.board_area = self.spaces | self.beyond_mask
        # The complements the placement checks test against, made once (each ``~`` makes a new big integer).
        self.off_board = ~self.board_area
        self.off_tree = [~area for area in self.tree_area]
        self.off_path = [self.spaces & ~path for path in self.path_mask]
        self.yellow = [self.row_mask[r] for r in self.lantern_rows]
        self.any_yellow = sum(self.yellow)  # every lantern's yellow spaces (most tiles cover none)
        self.before_yellow = [self.row_mask[r - 1] for r in self.lantern_rows]
        self.before_rows = [sum(self.row_mask[1:r]) for r in self.lantern_rows]  # every path row behind a lantern
        self.serpent_icons: list[int] = []
        for pair in layout.get("serpent_icons", []):
            self.serpent_icons.append(sum(1 << self.cell(name, "serpent icon") for name in pair))
        self.basilisk_icons: dict[int, int] = {}
        if basilisk_icons is not None:
            for name, count in basilisk_icons.items():
                idx = self.cell(name, "Basilisk icon")
                if not self.beyond_mask >> idx & 1:
                    raise ValueError(f"Basilisk icon {name} is not on the Basilisk board")
                self.basilisk_icons[idx] = int(count)

    def name(self, index: int) -> str:
        lane, step = self.column_row(index)
        return f"{self.names[lane]}{step}"

    def cell(self, name: str, what: str = "space", path: str = "") -> int:
        text = str(name).strip()
        if len(text) < 2 or text[0] not in self.names or not text[1:].isdigit():
            raise DescriptionError(
                path,
                f"{what} {name!r} is not a space of this board "
                f"(lanes {self.names[0]}-{self.names[-1]}, steps 1-{self.rows - 1})",
            )
        step = int(text[1:])
        if step >= self.rows:
            raise DescriptionError(path, f"{what} {name!r} is past the end of the board")
        return self.index(self.names.index(text[0]), step)

    def cells(self, names: Sequence[str], path: str = "") -> int:
        mask = 0
        for i, name in enumerate(names):
            mask |= 1 << self.cell(name, path=f"{path}[{i}]")
        return mask

    def names_of(self, mask: int) -> list[str]:
        """The names of ``mask``'s spaces, lane by lane (each lane's steps in order); each mask sorted once."""
        known = self._names_of.get(mask)
        if known is None:
            order, names = self._named
            found = []
            rest = mask
            while rest:  # bits(mask), without a generator: a placement's cells are named once per new mask
                low = rest & -rest
                found.append(low.bit_length() - 1)
                rest ^= low
            found.sort(key=order.__getitem__)
            known = self._names_of[mask] = tuple([names[i] for i in found])
        return list(known)

    @cached_property
    def _names_of(self) -> dict[int, tuple[str, ...]]:
        return {}

    @cached_property
    def space_names(self) -> dict[int, str]:
        """:meth:`name` of every space of the board, by index (events name spaces often)."""
        return self._named[1]

    @cached_property
    def _named(self) -> tuple[list[tuple[int, int]], dict[int, str]]:
        """Each index's place in names_of's order and its name, worked out once (events name spaces often)."""
        size = self.stride * (self.rows + 1)
        return ([(i % self.stride, i // self.stride) for i in range(size)],
                {i: self.name(i) for i in range(size) if i % self.stride < len(self.names)})

    def owners_of_lane(self, lane: int) -> list[int]:
        return [p for p, lanes in enumerate(self.path_lanes) if lane in lanes]


class Lake(Grid):
    """The Frozen Lake board: columns A.. from the left, rows 1.. from the top."""

    def __init__(self, rows: Sequence[str]) -> None:
        width = max(len(r) for r in rows)
        super().__init__(width, len(rows))
        self.spaces = 0
        self.icons: dict[int, int] = {}
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch == "x":
                    continue
                idx = self.index(c, r)
                self.spaces |= 1 << idx
                if ch in "12":
                    self.icons[idx] = int(ch)

    def name(self, index: int) -> str:
        column, row = self.column_row(index)
        return f"{LAKE_LETTERS[column]}{row + 1}"

    def cell(self, name: str, path: str = "") -> int:
        text = str(name).strip()
        if len(text) < 2 or text[0] not in LAKE_LETTERS[: self.columns] or not text[1:].isdigit():
            raise DescriptionError(
                path, f"{name!r} is not a Frozen Lake space (A1-{LAKE_LETTERS[self.columns - 1]}{self.rows})"
            )
        idx = self.index(LAKE_LETTERS.index(text[0]), int(text[1:]) - 1)
        if not 0 < int(text[1:]) <= self.rows or not self.spaces >> idx & 1:
            raise DescriptionError(path, f"{name!r} is not a Frozen Lake space")
        return idx

    def cells(self, names: Sequence[str], path: str = "") -> int:
        mask = 0
        for i, name in enumerate(names):
            mask |= 1 << self.cell(name, f"{path}[{i}]")
        return mask

    def names_of(self, mask: int) -> list[str]:
        return [self.name(i) for i in bits(mask)]
