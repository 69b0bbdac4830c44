"""Polyomino shapes and their orientations.

A shape is read from rows of ``#`` and ``.``; its cells are numbered in reading order so that a mark
(a flower) can name the cell it sits on.  Orientations keep that numbering, so two orientations with
the same squares but the flower on a different square stay distinct.
"""

from __future__ import annotations

from typing import NamedTuple

Cell = tuple[int, int]  # (lane offset, step offset)


class Orientation(NamedTuple):
    cells: tuple[Cell, ...]  # in the shape's cell order, normalised so the minimum offsets are 0
    mark: int  # index of the marked cell, or -1
    flipped: bool
    turns: int  # quarter turns


def parse_rows(rows: list[str]) -> tuple[Cell, ...]:
    """Cells of a shape drawn as rows; a row is a lane, a column a step."""
    cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"]
    if not cells:
        raise ValueError("a shape needs at least one '#'")
    return tuple(cells)


def _normalise(cells: list[Cell]) -> tuple[Cell, ...]:
    ml = min(c[0] for c in cells)
    ms = min(c[1] for c in cells)
    return tuple((c[0] - ml, c[1] - ms) for c in cells)


def orientations(cells: tuple[Cell, ...], mark: int = -1, flips: bool = True) -> tuple[Orientation, ...]:
    """Every distinct way to lay the shape: four turns, and their mirror images when ``flips``."""
    seen: set[tuple[frozenset[Cell], Cell | None]] = set()
    out: list[Orientation] = []
    for flipped in (False, True) if flips else (False,):
        base = [(lane, -step) for lane, step in cells] if flipped else list(cells)
        current = base
        for turn in range(4):
            norm = _normalise(current)
            key = (frozenset(norm), norm[mark] if mark >= 0 else None)
            if key not in seen:
                seen.add(key)
                out.append(Orientation(norm, mark, flipped, turn))
            current = [(step, -lane) for lane, step in current]
    return tuple(out)
