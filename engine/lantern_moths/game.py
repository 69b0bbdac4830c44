"""The Lantern Moths game: fixed pieces and options, on rulepress.basegame (docs/ENGINE.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rulepress.basegame import BaseGame, ComponentPicture, Figure, LegendEntry
from rulepress.marks import Box
from rulepress.protocol import Chance, DescriptionError, Event

from . import actions, render, snapshot, turn
from .describe import describe_state
from .observer import LanternMothsObserver
from .options import OPTIONS, Options
from .pieces import build_pieces
from .setup import check_players, new_state
from .state import Action, State

BOOK_ID = "lantern-moths"


class LanternMothsGame(BaseGame):
    book_id = BOOK_ID
    OPTIONS = OPTIONS
    CHANCE = True  # the deck's shuffles and the tiles under face-down places
    STATE_KEYS = None  # describe.py reads start.state's keys itself (schema.STATE_SCHEMA gives their shape)
    ACTION = Action
    OBSERVER = LanternMothsObserver  # hands, the deck, face-down lanterns and tiles (observer.py)

    def __init__(self, components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> None:
        super().__init__(components, options)
        self.opts = Options(**self.options)
        self.pieces = build_pieces(components)
        pieces = self.pieces
        cells = range(len(pieces.cell_names))
        self.cells = tuple(cells)
        self.adjacency = pieces.surrounding if self.opts.flip_adjacency == "diagonal" else pieces.orthogonal
        # Every possible action exists once, so legal_actions only picks tuples and never builds them.
        seats = range(pieces.max_players)
        kinds = range(len(pieces.kind_names))
        self.draw_table = tuple((Action(actions.DRAW, s, actions.FROM_DECK, -1),
                                 Action(actions.DRAW, s, actions.FROM_DISCARD, -1)) for s in seats)
        self.plant_table = tuple(tuple(tuple(Action(actions.PLANT, s, k, c) for c in cells) for k in kinds)
                                 for s in seats)
        self.light_table = tuple(tuple(Action(actions.LIGHT, s, -1, c) for c in cells) for s in seats)
        self.flip_table = tuple(tuple(Action(actions.FLIP, s, -1, c) for c in cells) for s in seats)
        self.pass_table = tuple(Action(actions.PASS, s, -1, -1) for s in seats)
        self.discard_table = tuple(tuple(Action(actions.DISCARD, s, k, -1) for k in kinds) for s in seats)
        self._views: dict[tuple[bool, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def garden_view(self, face_up: list[bool]) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
        """The face-up places, the face-down places that may be flipped (touching a face-up one), in order, and
        whether a face-down place touches the face-up ones at a corner only (where lm.q1's answer matters): a
        function of which places are face up, so worked out once per pattern (a garden has a few hundred)."""
        key = tuple(face_up)
        view = self._views.get(key)
        if view is None:
            up = tuple(c for c in self.cells if face_up[c])
            flippable = tuple(c for c in self.cells if not face_up[c] and any(face_up[o] for o in self.adjacency[c]))
            orthogonal, surrounding = self.pieces.orthogonal, self.pieces.surrounding
            corner_only = any(not face_up[c] and not any(face_up[o] for o in orthogonal[c])
                              and any(face_up[o] for o in surrounding[c]) for c in self.cells)
            view = self._views[key] = (up, flippable, corner_only)
        return view

    # --- building states -------------------------------------------------------------------------

    def check_players(self, players: Sequence[str]) -> tuple[str, ...]:
        return check_players(self, players)

    def start(self, players: tuple[str, ...], chance: Chance) -> State:
        return new_state(self, players, chance)

    def describe(self, description: Mapping[str, Any], players: tuple[str, ...],
                 chance: Chance) -> State:
        return describe_state(self, description, players, chance)

    def check_outcomes(self, outcomes: Sequence[Any], path: str = "chance") -> None:
        """Outcomes are card kinds (the top cards after the next shuffle, in order) or tile names
        (what the next flips of undecided face-down places reveal)."""
        super().check_outcomes(outcomes, path)
        known = set(self.pieces.kind_names) | set(self.pieces.tile_names)
        for outcome in outcomes:
            if not isinstance(outcome, str) or outcome not in known:
                raise DescriptionError(path, f"unknown outcome {outcome!r}: name a card "
                                             f"({', '.join(self.pieces.kind_names)}) or a tile "
                                             f"({', '.join(self.pieces.tile_names)})")

    # --- playing -----------------------------------------------------------------------------------

    def legal_actions(self, state: State) -> list[Action]:
        return turn.legal_actions(self, state)

    def apply(self, state: State, action: Action) -> list[Event]:
        events = turn.apply_action(self, state, action)
        if state.log:
            # A new game's setup events are reported with its first action.
            events[:0] = state.log
            state.log = []
        self.remember(state, action, events)
        return events

    def parse_action(self, state: State, step: Mapping[str, Any]) -> Action:
        return actions.parse_action(self, state, step)

    def format_action(self, state: State, action: Action) -> str:
        return actions.format_action(self, state, action)

    def action_step(self, state: State, action: Action) -> dict[str, Any]:
        return actions.action_step(self, state, action)

    def setup_events(self, state: State) -> list[Event]:
        """What setup did, for a state no action has been applied to yet."""
        return list(state.log)

    # --- looking ---------------------------------------------------------------------------------

    def is_terminal(self, state: State) -> bool:
        return turn.OVER == state.phase

    def snapshot(self, state: State) -> dict[str, Any]:
        return snapshot.snapshot(self, state)

    def result(self, state: State) -> dict[str, Any]:
        return snapshot.result(self, state)

    def metrics(self, state: State) -> dict[str, float | int | str | bool]:
        return snapshot.metrics(self, state)

    MARK = render.MARK

    def draw(self, state: State, seat: str | None = None) -> Figure:
        return render.draw(self, state, seat)

    def attempt_places(self, step: Mapping[str, Any], places: Mapping[str, Box]) -> list[str]:
        return render.attempt_places(self, step, places)

    def legend(self) -> list[LegendEntry]:
        return render.legend(self)

    def component_pictures(self) -> list[ComponentPicture]:
        return render.components(self)

    def cover_art(self, width: float, height: float) -> list[str]:
        return render.cover(self, width, height)
