"""The mutable state of one game of Last Lantern (the rules live in the game, not here)."""

from __future__ import annotations

from rulepress.memory import Memory
from rulepress.protocol import Chance, Event

LOCATIONS = ("rabbit", "snail", "owl", "wolf")
COLOURS = ("black", "yellow", "orange", "blue", "purple")


class Placed:
    """A tile lying on the Canopy (or the Basilisk board)."""

    __slots__ = ("tile", "player", "mask", "mark", "round", "abandoned")

    def __init__(self, tile: str, player: int, mask: int, mark: int, round_: int, abandoned: bool) -> None:
        self.tile = tile
        self.player = player  # who placed it; -1 for an abandoned tile on the Basilisk board
        self.mask = mask
        self.mark = mark  # bit of its flower square, -1 for none
        self.round = round_
        self.abandoned = abandoned


class State:
    __slots__ = (
        "players",
        "n",
        "chance",
        "round",
        "phase",
        "over",
        "result",
        # Voices in the Fog
        "tile_bag",
        "location_tile",
        "location_familiars",
        "choices",
        "to_resolve",
        "takes_familiar",
        "borrow_pending",
        "refused",
        # players
        "hands",
        "familiars",
        "crossed",
        "crossed_now",
        "started",
        "flower",
        "pending_ability",
        # board
        "placed",
        "occ",
        "tilecov",
        "fireflies",
        "board_black",
        "placed_now",
        "serpents",
        "serpent_flipped",
        "serpent_mask",
        # fireflies outside the board
        "bag",
        "supply",
        "lantern_fireflies",
        # Path Astray and the challenge boards
        "abandoned",
        "track",
        "lake",
        "lake_occ",
        "lake_round_first",
        "removed",
        "ability_supply",
        # the flow of the Lanterns phase and the game end
        "stage",
        "lantern_queue",
        "draw_queue",
        "draw_owner",
        "orange_pending",
        "purple_pending",
        "blocked",
        "blue_next",
        "end_triggered",
        "end_reasons",
        "actions",
        "draws_made",
        "drawn",
        "drawn_colours",
        "pending_events",
        "track_reached",
        "decisions",
        "memory",
    )

    def __init__(self, chance: Chance) -> None:
        self.players: tuple[str, ...] = ()
        self.n = 0
        self.chance = chance
        self.round = 1
        self.phase = "draw"
        self.over = False
        self.result: dict[str, object] | None = None
        self.tile_bag: list[str] = []
        self.location_tile: dict[str, str | None] = {}
        self.location_familiars: dict[str, int] = {}
        self.choices: list[str | None] = []
        self.to_resolve: list[str] = []
        self.takes_familiar: list[tuple[int, str]] = []  # (player, location) still to take from an empty one
        self.borrow_pending: list[tuple[int, str]] = []
        self.refused: set[tuple[int, int, str]] = set()
        self.hands: list[list[str]] = []
        self.familiars: list[dict[str, int]] = []
        self.crossed: list[set[int]] = []
        self.crossed_now: list[set[int]] = []
        self.started: list[bool] = []
        self.flower: list[str] = []
        self.pending_ability: tuple[int, str] | None = None
        self.placed: dict[str, Placed] = {}
        self.occ = 0  # squares covered by any tile (Serpent tiles included)
        self.tilecov = 0  # squares covered by Tree and Ability tiles
        self.fireflies: dict[int, str] = {}
        self.board_black = 0
        self.placed_now: list[str] = []
        self.serpents: list[str] = []  # Serpent tile on each icon
        self.serpent_flipped: list[bool] = []
        self.serpent_mask = 0
        self.bag: dict[str, int] = {}
        self.supply: dict[str, int] = {}
        self.lantern_fireflies: list[int] = []
        self.abandoned: list[str] = []
        self.track: list[str] = []
        self.lake: dict[str, int] = {}
        self.lake_occ = 0
        self.lake_round_first = False
        self.removed: list[str] = []
        self.ability_supply: list[str] = []
        self.stage = ""
        self.lantern_queue: list[int] = []
        self.draw_queue: list[int] = []
        self.draw_owner = -1
        self.orange_pending: list[int] = []
        self.purple_pending: list[str] = []
        self.blocked = False
        self.blue_next = False
        self.end_triggered = False
        self.end_reasons: list[str] = []
        self.actions = 0
        self.draws_made = 0
        self.drawn: dict[
            int, int
        ] = {}  # Fireflies each player drew in the latest Lanterns phase or final draw
        self.drawn_colours: dict[str, int] = {}
        self.pending_events: list[Event] = []  # what setup did, reported with the first action
        self.track_reached = 0  # the furthest Path Astray space a tile has ever landed on (Back on Track empties)
        self.decisions: dict[str, int] = {}  # how often each engine decision took effect (protocol.decided)
        self.memory: Memory | None = None  # what each seat was shown (rulepress.memory; the base class begins it)

    def clone(self) -> State:
        twin = State.__new__(State)
        for name in State.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.chance = self.chance.clone()
        twin.memory = self.memory.copy() if self.memory is not None else None  # sharing its trail: costs nothing
        twin.result = dict(self.result) if self.result is not None else None
        twin.tile_bag = list(self.tile_bag)
        twin.location_tile = dict(self.location_tile)
        twin.location_familiars = dict(self.location_familiars)
        twin.choices = list(self.choices)
        twin.to_resolve = list(self.to_resolve)
        twin.takes_familiar = list(self.takes_familiar)
        twin.borrow_pending = list(self.borrow_pending)
        twin.refused = set(self.refused)
        twin.hands = [list(h) for h in self.hands]
        twin.familiars = [dict(f) for f in self.familiars]
        twin.crossed = [set(c) for c in self.crossed]
        twin.crossed_now = [set(c) for c in self.crossed_now]
        twin.started = list(self.started)
        twin.flower = list(self.flower)
        # Placed records are never mutated after creation, so sharing them is safe
        twin.placed = dict(self.placed)
        twin.fireflies = dict(self.fireflies)
        twin.placed_now = list(self.placed_now)
        twin.serpents = list(self.serpents)
        twin.serpent_flipped = list(self.serpent_flipped)
        twin.bag = dict(self.bag)
        twin.supply = dict(self.supply)
        twin.lantern_fireflies = list(self.lantern_fireflies)
        twin.abandoned = list(self.abandoned)
        twin.track = list(self.track)
        twin.lake = dict(self.lake)
        twin.removed = list(self.removed)
        twin.ability_supply = list(self.ability_supply)
        twin.lantern_queue = list(self.lantern_queue)
        twin.draw_queue = list(self.draw_queue)
        twin.orange_pending = list(self.orange_pending)
        twin.purple_pending = list(self.purple_pending)
        twin.end_reasons = list(self.end_reasons)
        twin.drawn = dict(self.drawn)
        twin.drawn_colours = dict(self.drawn_colours)
        twin.pending_events = list(self.pending_events)
        twin.decisions = dict(self.decisions)
        return twin
