"""The mutable state of one game of Lantern Moths (kept apart from the fixed rules in game.py)."""

from __future__ import annotations

from typing import NamedTuple

from rulepress.memory import Memory
from rulepress.protocol import Chance, Event

UNKNOWN_TILE = -1   # a face-down place whose tile is not yet decided: it is drawn from the pool when flipped

PLAY = 0      # the current player takes actions
DISCARD = 1   # the current player discards down to the hand size (only with option discard_source=hand_limit)
OVER = 2      # the night has ended and the game is scored

PHASE_NAMES = ("play", "discard", "over")

FOURTH_DUSK = "fourth-dusk"
DECK_OUT = "deck-out"


class Action(NamedTuple):
    kind: int      # one of the action kinds in actions.py
    player: int    # seat index
    arg: int       # Draw: 0 deck, 1 discard pile; Plant/Discard: card kind; otherwise -1
    cell: int      # Plant/Light/Flip: garden place; otherwise -1


class State:
    """Every card is in exactly one zone: deck, discard, a hand, a tile, a lantern, the Dusk row,
    the Dusk cards set aside, or the box (cards a described state leaves out of the game)."""

    __slots__ = (
        "players", "hands", "deck", "discard", "lanterns", "tile_at", "face_up", "moths", "wicks",
        "ghost_block", "unlit", "dusk_row", "set_aside", "box", "tile_pool", "round", "start", "current",
        "actions_taken", "taken", "lit", "phase", "dusk_shuffled", "ending", "last_round", "chance",
        "action_count", "log", "decisions", "memory",
    )

    players: tuple[str, ...]
    hands: list[list[int]]          # cards per seat
    deck: list[int]                 # the top card is the last one
    discard: list[int]              # the top card is the last one
    lanterns: list[list[int]]       # captured moths per seat
    tile_at: list[int]              # tile kind per place, or UNKNOWN_TILE (face down, not yet decided)
    face_up: list[bool]
    moths: list[list[int]]          # moth cards per place, in planting order
    wicks: list[list[int]]          # owners of the lit wicks beside each place, in lighting order
    ghost_block: list[bool]         # a Ghost Moth was planted on this place during this round
    unlit: list[int]                # unlit wicks each seat holds
    dusk_row: list[int]             # Dusk cards laid face up in the middle
    set_aside: list[int]            # Dusk cards not yet shuffled into the deck
    box: list[int]                  # cards a described state leaves out of the game
    tile_pool: list[int]            # tiles not yet placed (drawn when an undecided place is flipped)
    round: int
    start: int                      # the start player's seat
    current: int                    # the seat whose turn it is
    actions_taken: int              # actions taken in the current turn
    taken: list[str]                # their names, for snapshots
    lit: bool                       # the current player has taken Light this turn
    phase: int
    dusk_shuffled: bool
    ending: str | None              # why the night is ending (FOURTH_DUSK or DECK_OUT), or None
    last_round: int                 # when ending: the round after whose end the game is over
    chance: Chance
    action_count: int
    log: list[Event]                # what setup did (a new game's events before any action)
    decisions: dict[str, int]       # how often each engine decision took effect (rulepress.protocol.decided)
    memory: Memory | None           # what each seat was shown (rulepress.memory; the base class begins it)

    @property
    def n(self) -> int:
        return len(self.players)

    def clone(self) -> State:
        twin = State.__new__(State)
        twin.players = self.players
        twin.hands = [list(h) for h in self.hands]
        twin.deck = list(self.deck)
        twin.discard = list(self.discard)
        twin.lanterns = [list(lantern) for lantern in self.lanterns]
        twin.tile_at = list(self.tile_at)
        twin.face_up = list(self.face_up)
        twin.moths = [list(m) for m in self.moths]
        twin.wicks = [list(w) for w in self.wicks]
        twin.ghost_block = list(self.ghost_block)
        twin.unlit = list(self.unlit)
        twin.dusk_row = list(self.dusk_row)
        twin.set_aside = list(self.set_aside)
        twin.box = list(self.box)
        twin.tile_pool = list(self.tile_pool)
        twin.round = self.round
        twin.start = self.start
        twin.current = self.current
        twin.actions_taken = self.actions_taken
        twin.taken = list(self.taken)
        twin.lit = self.lit
        twin.phase = self.phase
        twin.dusk_shuffled = self.dusk_shuffled
        twin.ending = self.ending
        twin.last_round = self.last_round
        twin.chance = self.chance.clone()
        twin.action_count = self.action_count
        twin.log = list(self.log)
        twin.decisions = dict(self.decisions)
        twin.memory = self.memory.copy() if self.memory is not None else None  # sharing its trail: costs nothing
        return twin

    def zones(self) -> dict[str, list[int]]:
        """Every zone and the cards in it (for invariant checks)."""
        found: dict[str, list[int]] = {"deck": self.deck, "discard": self.discard, "dusk_row": self.dusk_row,
                                       "set_aside": self.set_aside, "box": self.box}
        for seat, name in enumerate(self.players):
            found[f"hand:{name}"] = self.hands[seat]
            found[f"lantern:{name}"] = self.lanterns[seat]
        for cell, cards in enumerate(self.moths):
            found[f"tile:{cell}"] = cards
        return found
