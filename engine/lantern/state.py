"""The mutable state of one adventure (kept apart from the fixed rules in :mod:`.game`)."""

from __future__ import annotations

from rulepress.protocol import Chance

from .combination import Dice

SETUP, ENTER, FIGHT, LEAVE, OVER = "setup", "enter", "fight", "leave", "over"
PHASES = (SETUP, ENTER, FIGHT, LEAVE, OVER)


class LanternState:
    """Everything written on the sheet plus where in the turn the adventurer is.

    ``drawn``/``crossed`` hold one count per pool in the sheet's order (Critical Strike,
    Counterattack, Magic Spell, Constitution).  During setup ``dice`` holds the dice not yet
    assigned; afterwards it holds the six dice showing, always sorted (which die is which never
    matters to the rules).
    """

    __slots__ = ("phase", "zone", "dice", "setup_roll", "assigned", "setup_rerolls", "drawn", "crossed",
                 "experience", "overflow", "campfire", "campfire_used", "earned", "taken", "zones_cleared",
                 "outcome", "end_reason", "chance", "actions", "rolls", "ones", "bonuses", "players", "decisions")

    def __init__(self, chance: Chance, players: tuple[str, ...]) -> None:
        self.phase = SETUP
        self.zone = 0
        self.dice: Dice = ()
        self.setup_roll: Dice = ()
        self.assigned: dict[str, int] = {}
        self.setup_rerolls = 0
        self.drawn = [0, 0, 0, 0]
        self.crossed = [0, 0, 0, 0]
        self.experience = 0  # experience circles crossed
        self.overflow = 0  # 1s that found no experience circle left (ln.q9)
        self.campfire = 0  # circles drawn in the Campfire scroll
        self.campfire_used = False
        self.earned = 0  # Ability circles earned in this zone by filled rows
        self.taken = 0  # ... and already added
        self.zones_cleared = 0
        self.outcome: str | None = None  # "won" or "lost"
        self.end_reason = ""
        self.chance = chance
        self.actions = 0
        self.rolls = 0
        self.ones = 0
        self.bonuses = 0
        self.players = players
        self.decisions: dict[str, int] = {}  # how often each engine decision took effect (protocol.decided)

    def left(self, pool: int) -> int:
        return self.drawn[pool] - self.crossed[pool]

    def clone(self) -> LanternState:
        twin = LanternState.__new__(LanternState)
        for name in LanternState.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.assigned = dict(self.assigned)
        twin.drawn = list(self.drawn)
        twin.crossed = list(self.crossed)
        twin.decisions = dict(self.decisions)
        twin.chance = self.chance.clone()
        return twin
