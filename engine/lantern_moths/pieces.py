"""The game's pieces, built from the book's component data (rules_src/lantern-moths/components.yaml).

The text prints its numbers from the same mappings, so a deck of 54 cards in the book is a deck of
54 cards here.  Cards are small integers (fast to move between zones); each has a *kind* such as
``amber-2``, ``ghost`` or ``dusk``, and cards of one kind are interchangeable in play.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rulepress.protocol import DescriptionError

GHOST_COLOUR = -1
DUSK_COLOUR = -2
GHOST = "ghost"
DUSK = "dusk"
GREY = "grey"


@dataclass(frozen=True)
class Pieces:
    colours: tuple[str, ...]
    kind_names: tuple[str, ...]      # card kinds: coloured moths, then ghost, then dusk
    kind_colour: tuple[int, ...]     # colour index, GHOST_COLOUR or DUSK_COLOUR
    kind_value: tuple[int, ...]      # printed value (ghost: its scoring value; dusk: 0)
    kind_index: Mapping[str, int]
    kind_count: tuple[int, ...]
    ghost_kind: int
    dusk_kind: int
    card_kind: tuple[int, ...]       # card id -> kind
    tile_names: tuple[str, ...]      # tile kinds: one per colour, then grey (same index as the colour)
    tile_index: Mapping[str, int]
    tile_count: tuple[int, ...]
    grey: int
    cell_names: tuple[str, ...]      # garden places, row by row from the top left
    cell_index: Mapping[str, int]
    column_labels: tuple[str, ...]
    row_labels: tuple[str, ...]
    rows: int
    columns: int
    middle: int
    orthogonal: tuple[tuple[int, ...], ...]
    surrounding: tuple[tuple[int, ...], ...]   # orthogonal and diagonal neighbours
    min_players: int
    max_players: int
    untested_players: int
    hand_size: int
    deal: int
    actions_per_turn: int
    tile_limit: int
    wicks_per_player: int
    dusk_after_round: int
    ending_dusk: int
    set_size: int
    set_bonus: int
    ghost_value: int

    @property
    def card_count(self) -> int:
        return len(self.card_kind)


def _get(data: Any, path: str) -> Any:
    node = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise DescriptionError(f"components.{path}", f"the component data has no '{path}'")
        node = node[part]
    return node


def _count(data: Any, path: str, minimum: int = 0) -> int:
    value = _get(data, path)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise DescriptionError(f"components.{path}", f"'{path}' must be a whole number of at least {minimum}")
    return value


def _names(data: Any, path: str) -> tuple[str, ...]:
    value = _get(data, path)
    if not isinstance(value, list) or not value or len(set(map(str, value))) != len(value):
        raise DescriptionError(f"components.{path}", f"'{path}' must be a list of distinct names")
    return tuple(str(v) for v in value)


def _require(ok: bool, path: str, rule: str, message: str) -> None:
    if not ok:
        raise DescriptionError(f"components.{path}", f"{message} (rule {rule})")


def build_pieces(components: Mapping[str, Any]) -> Pieces:
    """Check the component data adds up and turn it into pieces (DescriptionError otherwise)."""
    colours = _names(components, "colours.names")
    per_colour = _count(components, "colours.per_colour", 1)
    values = _get(components, "colours.values")
    _require(isinstance(values, list) and len(values) == per_colour
             and all(isinstance(v, int) and not isinstance(v, bool) for v in values),
             "colours.values", "lm.components.colours", "each colour needs one printed value per card")
    low, high = _count(components, "deck.moths.value_min", 1), _count(components, "deck.moths.value_max", 1)
    _require(all(low <= v <= high for v in values), "colours.values",
             "lm.components.colours", f"printed values run from {low} to {high}")
    coloured = _count(components, "deck.moths.coloured")
    ghosts = _count(components, "deck.moths.ghost")
    dusk = _count(components, "deck.dusk", 1)
    _require(coloured == len(colours) * per_colour, "deck.moths.coloured",
             "lm.components.deck", "the coloured moths must be the colours times the cards per colour")
    _require(_count(components, "deck.moths.total") == coloured + ghosts, "deck.moths.total",
             "lm.components.deck", "the moth cards are the coloured moths plus the Ghost Moths")
    _require(_count(components, "deck.total") == coloured + ghosts + dusk, "deck.total",
             "lm.components.deck", "the deck is the moth cards plus the Dusk cards")

    kind_names: list[str] = []
    kind_colour: list[int] = []
    kind_value: list[int] = []
    kind_count: list[int] = []
    for colour_index, colour in enumerate(colours):
        for value in sorted(set(values)):
            kind_names.append(f"{colour}-{value}")
            kind_colour.append(colour_index)
            kind_value.append(value)
            kind_count.append(values.count(value))
    ghost_value = _count(components, "deck.moths.ghost_value")
    kind_names += [GHOST, DUSK]
    kind_colour += [GHOST_COLOUR, DUSK_COLOUR]
    kind_value += [ghost_value, 0]
    kind_count += [ghosts, dusk]
    card_kind = tuple(kind for kind, count in enumerate(kind_count) for _ in range(count))

    per_tile_colour = _count(components, "tile_colours.per_colour", 1)
    grey_tiles = _count(components, "tiles.grey", 1)
    _require(_count(components, "tiles.coloured") == per_tile_colour * len(colours), "tiles.coloured",
             "lm.components.tiles", "every colour needs the same number of tiles")
    total_tiles = _count(components, "tiles.total")
    _require(total_tiles == per_tile_colour * len(colours) + grey_tiles, "tiles.total",
             "lm.components.tiles", "the tiles are the coloured tiles plus the grey tile")

    rows, columns = _count(components, "garden.rows", 1), _count(components, "garden.columns", 1)
    column_names = _names(components, "coordinates.columns")
    row_names = _names(components, "coordinates.rows")
    _require(len(column_names) == columns and len(row_names) == rows, "coordinates",
             "lm.components.garden", "one label per row and per column")
    _require(rows * columns == total_tiles, "garden",
             "lm.components.garden", "the grid has one place per garden tile")
    cell_names = tuple(f"{column_names[c]}{row_names[r]}" for r in range(rows) for c in range(columns))
    middle_name = str(_get(components, "garden.middle"))
    _require(middle_name in cell_names, "garden.middle", "lm.setup.garden",
             f"'{middle_name}' is not a place in the garden")

    def neighbours(cell: int, diagonal: bool) -> tuple[int, ...]:
        r, c = divmod(cell, columns)
        found = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if (dr, dc) == (0, 0) or (not diagonal and dr and dc):
                    continue
                if 0 <= r + dr < rows and 0 <= c + dc < columns:
                    found.append((r + dr) * columns + c + dc)
        return tuple(found)

    min_players = _count(components, "players.min", 1)
    max_players = _count(components, "players.max", min_players)
    lanterns = _count(components, "lanterns", 1)
    per_player = _count(components, "wicks.per_player", 1)
    _require(lanterns >= max_players, "lanterns", "lm.components.lanterns", "one lantern board per player")
    _require(_count(components, "wicks.total") == per_player * lanterns, "wicks.total",
             "lm.components.wicks", "every lantern board comes with the same number of wicks")
    deal = _count(components, "deal", 1)
    _require(coloured + ghosts >= deal * max_players, "deal", "lm.setup.deal", "not enough moths to deal")
    ending_dusk = _count(components, "night.ending_dusk", 1)
    _require(ending_dusk <= dusk, "night.ending_dusk", "lm.night.fourth", "more Dusk cards than exist")

    tile_names = (*colours, GREY)
    return Pieces(
        colours=colours,
        kind_names=tuple(kind_names),
        kind_colour=tuple(kind_colour),
        kind_value=tuple(kind_value),
        kind_index={name: i for i, name in enumerate(kind_names)},
        kind_count=tuple(kind_count),
        ghost_kind=len(kind_names) - 2,
        dusk_kind=len(kind_names) - 1,
        card_kind=card_kind,
        tile_names=tile_names,
        tile_index={name: i for i, name in enumerate(tile_names)},
        tile_count=(*[per_tile_colour] * len(colours), grey_tiles),
        grey=len(colours),
        cell_names=cell_names,
        cell_index={name: i for i, name in enumerate(cell_names)},
        column_labels=column_names,
        row_labels=row_names,
        rows=rows,
        columns=columns,
        middle=cell_names.index(middle_name),
        orthogonal=tuple(neighbours(cell, False) for cell in range(rows * columns)),
        surrounding=tuple(neighbours(cell, True) for cell in range(rows * columns)),
        min_players=min_players,
        max_players=max_players,
        untested_players=_count(components, "players.untested", max_players + 1),
        hand_size=_count(components, "hand_size", 1),
        deal=deal,
        actions_per_turn=_count(components, "actions_per_turn", 1),
        tile_limit=_count(components, "tile_limit", 1),
        wicks_per_player=per_player,
        dusk_after_round=_count(components, "night.dusk_after_round", 1),
        ending_dusk=ending_dusk,
        set_size=_count(components, "scoring.set_size", 1),
        set_bonus=_count(components, "scoring.set_bonus"),
        ghost_value=ghost_value,
    )
