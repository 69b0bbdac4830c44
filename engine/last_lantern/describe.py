"""An arbitrary position from an example's ``start.state`` (format in README.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rulepress.protocol import DescriptionError

from .placement import anchor_of
from .state import COLOURS, LOCATIONS, Placed

if TYPE_CHECKING:
    from .game import LastLantern
    from .state import State

KEYS = {
    "round",
    "phase",
    "paths",
    "tiles",
    "placed_by",
    "flower_at",
    "fireflies",
    "bag",
    "lanterns",
    "familiars",
    "track",
    "lake",
    "hands",
    "abandoned",
    "locations",
    "choices",
    "ability_tiles",
    "serpents",
    "flipped",
    "flowers",
    "blocked",
    "blue_next",
    "removed",
}
PHASES = ("draw", "choose", "journey")


def _grid_cells(text: str, letters: str, width: int, key: str) -> dict[str, list[tuple[int, int]]]:
    """Letters of a picture: one line per lane (or lake row); returns letter -> [(line, column)]."""
    out: dict[str, list[tuple[int, int]]] = {}
    for raw in str(text).splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        head, _, body = line.strip().partition(" ")
        if head not in letters:
            raise DescriptionError(
                key, f"line {raw!r} must start with a lane letter ({letters[0]}-{letters[-1]})"
            )
        row = letters.index(head)
        chars = [ch for ch in body if ch not in " |"]
        if len(chars) > width:
            raise DescriptionError(key, f"line {head} has {len(chars)} spaces, the board has {width}")
        for col, ch in enumerate(chars):
            if ch not in ".~":
                out.setdefault(ch, []).append((row, col))
    return out


def _player(s: State, name: Any, key: str) -> int:
    if str(name) not in s.players:
        raise DescriptionError(key, f"unknown player {name!r}")
    return s.players.index(str(name))


def _tile(g: LastLantern, legend: Mapping[str, Any], letter: str, key: str) -> str:
    tile = legend.get(letter)
    if tile is None:
        raise DescriptionError(key, f"letter {letter!r} is not in the tiles legend")
    if str(tile) not in g.tiles:
        raise DescriptionError(f"tiles.{letter}", f"unknown tile {tile!r}")
    return str(tile)


def _lay_mark(g: LastLantern, tile: str, mask: int, lays_kind: str, flower: int, key: str) -> int:
    grid = g.lake if lays_kind == "lake" and g.lake is not None else g.canopy
    lays = (g.pieces.lake_lays if lays_kind == "lake" else g.pieces.canopy_lays)[g.pieces.signature[tile]]
    for lay in lays:
        anchor = anchor_of(lay, mask, grid.columns, grid.stride)
        if anchor >= 0:
            mark = anchor + lay.mark if lay.mark >= 0 else -1
            if flower < 0 or mark == flower:
                return mark
    raise DescriptionError(
        key,
        f"the spaces drawn for {tile} are not the shape {g.tiles[tile].shape}"
        + (" with its flower there" if flower >= 0 else ""),
    )


def describe_state(g: LastLantern, s: State, d: Mapping[str, Any]) -> State:
    unknown = set(d) - KEYS
    if unknown:
        raise DescriptionError(
            f"state.{sorted(unknown)[0]}", f"unknown key (known: {', '.join(sorted(KEYS))})"
        )
    c = g.canopy
    s.pending_events = []  # a described game did not just go through setup
    s.round = int(d.get("round", 1))
    phase = str(d.get("phase", "draw"))
    if phase not in PHASES:
        raise DescriptionError("state.phase", f"a described game starts in one of {PHASES}")
    # YAML reads digit letters as numbers: compare as text
    legend = {str(k): v for k, v in (d.get("tiles", {}) or {}).items()}
    used: set[str] = set()

    def use(tile: str, key: str) -> None:
        if tile in used:
            raise DescriptionError(key, f"tile {tile} appears twice")
        used.add(tile)

    # tiles on the Canopy (and the Basilisk board)
    placed_by = {str(k): v for k, v in (d.get("placed_by", {}) or {}).items()}
    flower_at = {str(k): v for k, v in (d.get("flower_at", {}) or {}).items()}
    for letter, cells in _grid_cells(d.get("paths", ""), c.names, c.rows - 1, "state.paths").items():
        tile = _tile(g, legend, letter, "state.paths")
        use(tile, "state.paths")
        mask = sum(1 << c.index(lane, col + 1) for lane, col in cells)
        if mask & s.serpent_mask:
            raise DescriptionError("state.paths", f"{tile} lies on a Serpent tile")
        flower = (
            c.cell(flower_at[letter], "flower", f"state.flower_at.{letter}") if letter in flower_at else -1
        )
        mark = _lay_mark(g, tile, mask, "canopy", flower, f"state.paths ({letter})")
        if letter in placed_by:
            who = str(placed_by[letter])
            player = -1 if who == "abandoned" else _player(s, who, f"state.placed_by.{letter}")
        elif mask & c.beyond_mask and g.opt["basilisk"]:
            player = -1
        else:
            player = _default_owner(g, mask)
        s.placed[tile] = Placed(tile, player, mask, mark, s.round - 1, player < 0)
        s.occ |= mask
        if player >= 0:
            s.tilecov |= mask
            s.started[player] = True
    # fireflies on spaces
    for name, colour in (d.get("fireflies", {}) or {}).items():
        cell = c.cell(str(name), "Firefly space", f"state.fireflies.{name}")
        if colour not in COLOURS:
            raise DescriptionError(f"state.fireflies.{name}", f"unknown colour {colour!r}")
        if s.occ >> cell & 1 and not s.serpent_mask >> cell & 1:
            raise DescriptionError(f"state.fireflies.{name}", "a covered space holds no Firefly")
        if not (c.spaces | (c.beyond_mask if g.opt["basilisk"] else 0)) >> cell & 1:
            raise DescriptionError(f"state.fireflies.{name}", "Fireflies lie only on spaces")
        s.fireflies[cell] = str(colour)
        s.board_black += colour == "black"
    # the Frozen Lake
    if d.get("lake"):
        if g.lake is None:
            raise DescriptionError("state.lake", "the Frozen Lake is not in play")
        rows = "\n".join(
            f"{chr(65 + i)} {line}" for i, line in enumerate(str(d["lake"]).strip().splitlines())
        )
        for letter, cells in _grid_cells(rows, "ABCDEFGHIJ", g.lake.columns, "state.lake").items():
            tile = _tile(g, legend, letter, "state.lake")
            use(tile, "state.lake")
            mask = sum(1 << g.lake.index(col, row) for row, col in cells)
            if mask & ~g.lake.spaces:
                raise DescriptionError("state.lake", f"{tile} lies off the Frozen Lake")
            _lay_mark(g, tile, mask, "lake", -1, f"state.lake ({letter})")
            s.lake[tile] = mask
            s.lake_occ |= mask
    for i, tile in enumerate(d.get("track", []) or []):
        tile = _known(g, tile, f"state.track[{i}]")
        use(tile, f"state.track[{i}]")
        s.track.append(tile)
    if len(s.track) > len(g.track_icons):
        raise DescriptionError("state.track", f"the track has {len(g.track_icons)} spaces")
    for i, tile in enumerate(d.get("removed", []) or []):
        tile = _known(g, tile, f"state.removed[{i}]")
        use(tile, f"state.removed[{i}]")
        s.removed.append(tile)
    _players_part(g, s, d, use)
    _phase_part(g, s, d, phase, use)
    # whatever is not elsewhere is in the bags
    s.tile_bag = [t for t in g.tree_ids if t not in used]
    if "ability_tiles" in d:
        s.ability_supply = []
        for i, tile in enumerate(d["ability_tiles"] or []):
            tile = _known(g, tile, f"state.ability_tiles[{i}]")
            if g.tiles[tile].kind != "ability" or tile in used:
                raise DescriptionError(f"state.ability_tiles[{i}]", f"{tile} is not a free Ability tile")
            s.ability_supply.append(tile)
    else:
        s.ability_supply = [t for t in g.ability_ids if t not in used]
    _fireflies_part(g, s, d)
    return s


def _known(g: LastLantern, tile: Any, key: str) -> str:
    if str(tile) not in g.tiles:
        raise DescriptionError(key, f"unknown tile {tile!r}")
    return str(tile)


def _default_owner(g: LastLantern, mask: int) -> int:
    """The player whose own lanes the tile lies in (a tile only on a shared column: the upper path)."""
    c = g.canopy
    for p in range(c.n_paths):
        if mask & sum(c.lane_mask[lane] for lane in c.private[p]):
            return p
    for p in range(c.n_paths):
        if mask & c.path_mask[p]:
            return p
    return 0


def _players_part(g: LastLantern, s: State, d: Mapping[str, Any], use: Any) -> None:
    c = g.canopy
    if "familiars" in d:
        per_kind = int(g.components["familiars"]["per_kind"])
        s.familiars = [{k: 0 for k in LOCATIONS} for _ in s.players]
        for name, held in (d["familiars"] or {}).items():
            p = _player(s, name, f"state.familiars.{name}")
            for kind, n in (held or {}).items():
                kind = str(kind).rstrip("s")
                if kind not in g.locations:
                    raise DescriptionError(f"state.familiars.{name}", f"{kind!r} is not in play")
                s.familiars[p][kind] = int(n)
        for kind in LOCATIONS:
            left = (per_kind if kind in g.locations else 0) - sum(f[kind] for f in s.familiars)
            if left < 0:
                raise DescriptionError("state.familiars", f"there are only {per_kind} {kind}s")
            s.location_familiars[kind] = left
    for name, flower in (d.get("flowers", {}) or {}).items():
        p = _player(s, name, f"state.flowers.{name}")
        if flower not in g.flower_types:
            raise DescriptionError(f"state.flowers.{name}", f"flower types are {', '.join(g.flower_types)}")
        s.flower[p] = str(flower)
    if "lanterns" in d:
        for name, lanterns in (d["lanterns"] or {}).items():
            p = _player(s, name, f"state.lanterns.{name}")
            for k in lanterns or []:
                if not 1 <= int(k) <= g.n_lanterns:
                    raise DescriptionError(
                        f"state.lanterns.{name}", f"lanterns are numbered 1-{g.n_lanterns}"
                    )
                s.crossed[p].add(int(k) - 1)
    else:
        from .journey import crosses

        for pl in s.placed.values():
            if pl.player >= 0:
                for k in range(g.n_lanterns):
                    if crosses(g, pl.player, pl.mask, k):
                        s.crossed[pl.player].add(k)
    per_player = int(g.components["lanterns"]["per_player"])
    s.lantern_fireflies = [
        per_player * s.n - sum(1 for p in range(s.n) if k in s.crossed[p]) for k in range(g.n_lanterns)
    ]
    if g.opt["branches"]:
        if "serpents" in d:
            chosen = [str(x) for x in d["serpents"] or []]
            if (
                len(chosen) != len(c.serpent_icons)
                or len(set(chosen)) != len(chosen)
                or any(x not in g.serpent_reward for x in chosen)
            ):
                raise DescriptionError(
                    "state.serpents",
                    f"name {len(c.serpent_icons)} different Serpent tiles, one per serpent icon",
                )
            s.serpents = chosen
        for icon in d.get("flipped", []) or []:
            if not 1 <= int(icon) <= len(c.serpent_icons):
                raise DescriptionError("state.flipped", "serpent icons are numbered from 1")
            s.serpent_flipped[int(icon) - 1] = True
    s.blocked = bool(d.get("blocked", False))
    s.blue_next = bool(d.get("blue_next", False))


def _phase_part(g: LastLantern, s: State, d: Mapping[str, Any], phase: str, use: Any) -> None:
    s.phase = phase
    s.choices = [None] * s.n
    if phase == "choose":
        locations = d.get("locations")
        if not locations:
            raise DescriptionError(
                "state.locations", "a game described at the choice names the tiles beside the locations"
            )
        s.location_tile = {loc: None for loc in g.locations}
        for loc, tile in locations.items():
            if loc not in g.locations:
                raise DescriptionError(f"state.locations.{loc}", f"{loc!r} is not a location in play")
            tile = _known(g, tile, f"state.locations.{loc}")
            use(tile, f"state.locations.{loc}")
            s.location_tile[loc] = tile
        for name, loc in (d.get("choices", {}) or {}).items():
            s.choices[_player(s, name, f"state.choices.{name}")] = str(loc)
    elif phase == "journey":
        s.stage = "journey"
        for name, tiles in (d.get("hands", {}) or {}).items():
            p = _player(s, name, f"state.hands.{name}")
            for tile in [tiles] if isinstance(tiles, str) else list(tiles or []):
                tile = _known(g, tile, f"state.hands.{name}")
                use(tile, f"state.hands.{name}")
                s.hands[p].append(tile)
        for i, tile in enumerate(d.get("abandoned", []) or []):
            tile = _known(g, tile, f"state.abandoned[{i}]")
            use(tile, f"state.abandoned[{i}]")
            s.abandoned.append(tile)
    elif d.get("hands") or d.get("abandoned") or d.get("locations"):
        raise DescriptionError(
            "state.phase", "hands, abandoned tiles and locations belong to the choose or journey phase"
        )


def _fireflies_part(g: LastLantern, s: State, d: Mapping[str, Any]) -> None:
    totals = dict(s.bag)
    for colour, n in s.supply.items():
        totals[colour] = totals.get(colour, 0) + n
    totals["yellow"] += sum(int(g.components["lanterns"]["per_player"]) * s.n for _ in range(g.n_lanterns))
    if "bag" in d:
        s.bag = {colour: 0 for colour in totals}
        for colour, n in (d["bag"] or {}).items():
            if colour not in totals:
                raise DescriptionError(f"state.bag.{colour}", f"no {colour} Fireflies in this game")
            s.bag[colour] = int(n)
    on_board: dict[str, int] = {}
    for colour in s.fireflies.values():
        on_board[colour] = on_board.get(colour, 0) + 1
    for colour, total in totals.items():
        left = total - s.bag.get(colour, 0) - on_board.get(colour, 0)
        if colour == "yellow":
            left -= sum(s.lantern_fireflies)
        if left < 0:
            raise DescriptionError("state.bag", f"more {colour} Fireflies than the game has ({total})")
        s.supply[colour] = left
