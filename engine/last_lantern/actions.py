"""The action tuple shared by every rule module."""

from __future__ import annotations

from typing import NamedTuple


class Action(NamedTuple):
    """One decision.  Which fields matter depends on ``do``:

    * ``draw``, ``done``: nothing else;
    * ``choose``: player, where (location);
    * ``resolve``: where (location), player (takes the tile), other (takes the Familiar);
    * ``take-from``: player, where (Familiar kind), other (giver), agreed;  ``go-without``: player;
    * ``place``: player, tile, mask, orient;  ``cannot-place``: player, tile;
    * ``back-on-track``: player, tile;  ``lighting-the-way``: player;
      ``through-the-fog``: player, tile, other (who receives it);
      ``guiding-hand``: player, where (kind), other (receiver), third (giver or -1), agreed;
      abilities carry ``payers`` when familiars may be pooled;
    * ``lantern``: player (who resolves their crossing next);  ``return``: player, where (kind);
    * ``astray``: tile, mask and orient (Frozen Lake or Basilisk board; 0 and -1 for the track);
    * ``give``: player, other, where (always refused: Familiars are never traded).
    """

    do: str
    player: int = -1
    tile: str = ""
    mask: int = 0
    orient: int = -1
    where: str = ""
    other: int = -1
    third: int = -1
    payers: tuple[int, ...] = ()
    agreed: bool = False
