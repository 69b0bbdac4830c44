"""Tiles read from the component data, and every way each can lie on the boards."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, NamedTuple

from .geometry import Canopy, Grid, Lake
from .shapes import Orientation, orientations, parse_rows


class TileSpec(NamedTuple):
    id: str
    kind: str  # "tree", "mushroom" or "ability"
    shape: str
    size: int
    flower: str | None  # flower type printed on the tile (Blossoms)
    flower_cell: int  # which square of the shape carries it, -1 for none
    glow: bool  # glow-shrooms printed on the tile (Glow-shrooms)


class Lay(NamedTuple):
    """One orientation of a tile on one grid."""

    offsets: tuple[int, ...]
    mask0: int  # its squares with the anchor at bit 0
    mark: int  # offset of the flower square, -1 for none
    span: int  # largest lane offset (anchors stay clear of the padding)


def read_tiles(components: Mapping[str, Any], glow: bool) -> dict[str, TileSpec]:
    shapes = {
        name: parse_rows(rows)
        for name, rows in components["shapes"].items()
        if name not in ("reconstructed", "question")
    }
    out: dict[str, TileSpec] = {}

    def add(entry: Mapping[str, Any], kind: str) -> None:
        shape = entry["shape"]
        flower = entry.get("flower")
        out[entry["id"]] = TileSpec(
            entry["id"],
            kind,
            shape,
            len(shapes[shape]),
            flower["type"] if flower else None,
            int(flower["cell"]) if flower else -1,
            bool(entry.get("glow", False)),
        )

    for entry in components["tree_tiles"]["tiles"]["list"]:
        add(entry, "tree")
    for entry in components["ability_tiles"]["list"]:
        add(entry, "ability")
    if glow:
        for entry in components["challenges"]["mushroom_tiles"]["list"]:
            add(entry, "mushroom")
    return out


@cache
def _lanes_ok(columns: int, rows: int, span: int) -> int:
    """Anchor cells from which a tile ``span`` lanes wide stays on a grid (the same for every tile)."""
    grid = Grid(columns, rows)
    mask = 0
    for row in range(rows):
        for column in range(columns - span):
            mask |= 1 << grid.index(column, row)
    return mask


class Pieces:
    """Orientations of every tile and where each may be anchored, computed once per game."""

    def __init__(
        self,
        components: Mapping[str, Any],
        tiles: Mapping[str, TileSpec],
        canopy: Canopy,
        lake: Lake | None,
        flips: bool,
    ) -> None:
        shapes = {
            name: parse_rows(rows)
            for name, rows in components["shapes"].items()
            if name not in ("reconstructed", "question")
        }
        self.tiles = tiles
        self.canopy = canopy
        self.lake = lake
        # tiles of the same shape and mark share their orientations
        self.signature: dict[str, tuple[str, int]] = {t.id: (t.shape, t.flower_cell) for t in tiles.values()}
        self.orient: dict[tuple[str, int], tuple[Orientation, ...]] = {}
        for sig in set(self.signature.values()):
            self.orient[sig] = orientations(shapes[sig[0]], sig[1], flips)
        self.canopy_lays = {sig: tuple(self._lay(canopy, o) for o in ors) for sig, ors in self.orient.items()}
        self.lake_lays = (
            {sig: tuple(self._lay(lake, o) for o in ors) for sig, ors in self.orient.items()}
            if lake is not None
            else {}
        )
        n = canopy.n_paths
        # Tree tiles: anchors inside the player's own lanes (rule 4); Ability tiles and abandoned tiles
        # on the Basilisk board: anchors anywhere on the board.
        self.tree_anchors = [
            {
                sig: tuple(self._anchors(canopy, lay, canopy.tree_area[p]) for lay in lays)
                for sig, lays in self.canopy_lays.items()
            }
            for p in range(n)
        ]
        self.board_anchors = {
            sig: tuple(self._anchors(canopy, lay, canopy.board_area) for lay in lays)
            for sig, lays in self.canopy_lays.items()
        }
        self.lake_anchors = (
            {
                sig: tuple(self._anchors(lake, lay, lake.spaces) for lay in lays)
                for sig, lays in self.lake_lays.items()
            }
            if lake is not None
            else {}
        )

    @staticmethod
    def _lay(grid: Grid, orientation: Orientation) -> Lay:
        offsets = grid.offsets(orientation)
        mask0 = 0
        for off in offsets:
            mask0 |= 1 << off
        mark = offsets[orientation.mark] if orientation.mark >= 0 else -1
        return Lay(offsets, mask0, mark, max(c[0] for c in orientation.cells))

    @staticmethod
    def _anchors(grid: Grid, lay: Lay, area: int) -> int:
        out = _lanes_ok(grid.columns, grid.rows, lay.span)
        for off in lay.offsets:
            out &= area >> off
        return out

    def lays(self, tile: str) -> tuple[Lay, ...]:
        return self.canopy_lays[self.signature[tile]]
