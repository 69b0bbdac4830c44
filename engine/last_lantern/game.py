"""The Game object: fixed rules and components, and the protocol methods over a State."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

from rulepress.basegame import BaseGame, ComponentPicture, Figure, Frame, LegendEntry
from rulepress.change import Change
from rulepress.marks import Box, Marks
from rulepress.protocol import Chance, DescriptionError, Event, RuleViolation

from . import abilities, astray, fog, journey, legal, pictures, render, snapshot, steps
from .actions import Action
from .describe import describe_state
from .fireflies import return_familiar, threshold
from .flow import advance, choose_crossing
from .geometry import Canopy, Lake
from .observer import LastLanternObserver
from .options import OPTIONS, resolve
from .pieces import Pieces, read_tiles
from .setup import active_steps, setup
from .state import LOCATIONS, State

BOOK_ID = "last-lantern"


class LastLantern:
    """The rules for one player count: board, pieces, options and the numbers of the components."""

    def __init__(self, components: Mapping[str, Any], opt: Mapping[str, Any], n: int) -> None:
        self.opt = dict(opt)
        self.n = n
        self.components = components
        key = f"p{n}"
        canopy_data = components["canopy"]
        layout = canopy_data["layouts"][key]
        basilisk = components["challenges"]["basilisk"]["layouts"][key] if opt["basilisk"] else None
        beyond = int(basilisk["depth"]) if basilisk else int(canopy_data["overhang"])
        self.canopy = Canopy(
            layout, int(canopy_data["lanes_per_path"]), beyond, basilisk["icons"] if basilisk else None
        )
        self.lake = Lake(components["challenges"]["frozen_lake"]["rows"]) if opt["lake"] else None
        self.tiles = read_tiles(components, bool(opt["glow"]))
        self.pieces = Pieces(components, self.tiles, self.canopy, self.lake, bool(opt["flip"]))
        self.locations = LOCATIONS if n == 4 else LOCATIONS[:3]
        self.n_lanterns = len(self.canopy.lantern_rows)
        loss = components["loss"]
        self.black_loss = int(loss["black"])
        self.black_hard = int(loss["black_hard"])
        self.glow_black = int(components["challenges"]["glow_black"])
        self.lighting = int(components["abilities"]["lighting"])
        self.track_icons = tuple(int(i) for i in components["track"]["icons"])
        serpents = components["challenges"]["serpent_tiles"]["list"]
        self.serpent_reward = {e["id"]: int(e["reward"]) for e in serpents}
        self.blossoms_needed = int(components["challenges"]["blossoms_needed"])
        self.flower_types = tuple(components["tree_tiles"]["flower_types"])
        self.opt_first_tile_own = opt["first_tile"] == "own"
        self.opt_reach_through = opt["ability_reach"] == "through"
        self.opt_first_phase = opt["first_abandoned"] == "phase"
        self.tree_ids = [t.id for t in self.tiles.values() if t.kind in ("tree", "mushroom")]
        self.ability_ids = [t.id for t in self.tiles.values() if t.kind == "ability"]
        self.tree_only_ids = tuple(t for t in self.tree_ids if self.tiles[t].kind == "tree")  # the tile bag's
        self.setup_steps = active_steps(self.opt)
        # Each path's lanes by name ("ab"), for the setup's characters event: the same every game of this count.
        self.path_names = tuple("".join(self.canopy.names[lane] for lane in lanes)
                                for lanes in self.canopy.path_lanes[:n])
        # Every choice of a location exists once, so listing them only picks tuples.
        self.choose_actions = tuple(tuple(Action("choose", p, where=loc) for loc in self.locations)
                                    for p in range(n))
        self.threshold = threshold(self)
        self.placements: dict[tuple[int, str, int, int], list[Action]] = {}  # legal._tree_placements' lists

    def setup(self, players: Sequence[str], chance: Chance) -> State:
        return setup(self, players, chance)


Handler = tuple[
    Callable[[LastLantern, State, Action], None], Callable[[LastLantern, State, Action, list[Event]], None]
]


def _check_lantern(g: LastLantern, s: State, a: Action) -> None:
    if s.phase != "lantern-order":
        raise RuleViolation("ll.lantern.order", "Nobody is waiting to resolve a lantern crossing")
    if a.player not in s.lantern_queue:
        raise RuleViolation("ll.lantern.order", f"{s.players[a.player]} has no lantern crossing to resolve")


def _do_lantern(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    events.append(Event("lantern-order", "ll.lantern.order", {"player": s.players[a.player]}))
    choose_crossing(g, s, a.player, events)


def _check_return(g: LastLantern, s: State, a: Action) -> None:
    if s.phase != "orange" or a.player not in s.orange_pending:
        raise RuleViolation(
            "ll.challenge.eerie.orange", f"{s.players[a.player]} has no Familiar to return now"
        )
    if a.where not in ("rabbit", "snail", "owl") or not s.familiars[a.player][a.where]:
        raise RuleViolation(
            "ll.challenge.eerie.orange",
            f"{s.players[a.player]} has no {a.where} to return (a Rabbit, Snail or Owl)",
        )


def _do_return(g: LastLantern, s: State, a: Action, events: list[Event]) -> None:
    s.orange_pending.remove(a.player)
    return_familiar(s, a.player, a.where, events)


# The rule each kind of action is taken under: an action naming a seat that does not exist breaks it.
SEAT_RULES: dict[str, str] = {
    "choose": "ll.fog.choose", "resolve": "ll.fog.reveal", "take-from": "ll.fog.reveal.empty",
    "go-without": "ll.fog.reveal.empty", "give": "ll.fog.reveal.no-trade", "place": "ll.journey.place",
    "cannot-place": "ll.journey.place.stuck", "back-on-track": "ll.ability.back-on-track",
    "lighting-the-way": "ll.ability.lighting", "through-the-fog": "ll.ability.fog",
    "guiding-hand": "ll.ability.guiding-hand", "lantern": "ll.lantern.order", "return": "ll.challenge.eerie.orange",
}

HANDLERS: dict[str, Handler] = {
    "draw": (fog.check_draw, fog.do_draw),
    "choose": (fog.check_choose, fog.do_choose),
    "resolve": (fog.check_resolve, fog.do_resolve),
    "take-from": (fog.check_take_from, fog.do_take_from),
    "go-without": (fog.check_go_without, fog.do_go_without),
    "give": (fog.check_give, fog.do_give),
    "place": (journey.check_place, journey.do_place),
    "cannot-place": (journey.check_cannot_place, journey.do_cannot_place),
    "done": (journey.check_done, journey.do_done),
    "back-on-track": (abilities.check_back_on_track, abilities.do_back_on_track),
    "lighting-the-way": (abilities.check_lighting, abilities.do_lighting),
    "through-the-fog": (abilities.check_through_the_fog, abilities.do_through_the_fog),
    "guiding-hand": (abilities.check_guiding_hand, abilities.do_guiding_hand),
    "lantern": (_check_lantern, _do_lantern),
    "return": (_check_return, _do_return),
    "astray": (astray.check_astray, astray.do_astray),
}


class LastLanternGame(BaseGame):
    """The protocol object: one per option set; the rules for each player count are built on demand."""

    book_id = BOOK_ID
    OPTIONS = OPTIONS
    CHANCE = True  # the tile bag, the Firefly bag and the draws from them
    STATE_KEYS = None  # describe.py reads start.state's keys itself (schema.STATE_SCHEMA gives their shape)
    ACTION = Action
    OBSERVER = LastLanternObserver  # the hidden choices and the bags' next draws (observer.py)
    # Diagrams as wide as the paths need, sized by the page; the font named once; one part a line; quotes escaped in
    # the <desc>.
    FRAME = Frame(printed=False, lines=True, escape=escape)

    def __init__(self, components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> None:
        super().__init__(components, options)
        self._rules: dict[int, LastLantern] = {}

    def resolve_options(self, given: Mapping[str, Any] | None) -> Mapping[str, Any]:
        return resolve(given)  # the base's, and Frozen Lake and Basilisk refused together

    def rules(self, n: int) -> LastLantern:
        if n not in self._rules:
            lo, hi = int(self.components["players"]["min"]), int(self.components["players"]["max"])
            if not lo <= n <= hi:
                raise DescriptionError("players", f"Last Lantern is played by {lo} to {hi} players, not {n}")
            self._rules[n] = LastLantern(self.components, self.options, n)
        return self._rules[n]

    def check_players(self, players: Sequence[str]) -> Sequence[str]:
        if len(set(players)) != len(players):
            raise DescriptionError("players", "player names must differ")
        self.rules(len(players))  # refuses a player count the book does not allow
        return players

    def start(self, players: Sequence[str], chance: Chance) -> State:
        return self.rules(len(players)).setup(players, chance)

    def describe(self, description: Mapping[str, Any], players: Sequence[str],
                 chance: Chance) -> State:
        g = self.rules(len(players))
        return describe_state(g, g.setup(players, chance), description)

    def legal_actions(self, state: State) -> list[Action]:
        if state.over:
            return []
        return legal.actions(self._rules.get(state.n) or self.rules(state.n), state)

    def parse_action(self, state: State, step: Mapping[str, Any]) -> Action:
        return steps.parse(self.rules(state.n), state, step)

    def format_action(self, state: State, action: Action) -> str:
        return steps.describe(self.rules(state.n), state, action)

    def action_step(self, state: State, action: Action) -> dict[str, Any]:
        return steps.as_step(self.rules(state.n), state, action)

    def check(self, state: State, action: Action) -> None:
        if state.over:
            raise RuleViolation("ll.overview.goal", "The game is over")
        handler = HANDLERS.get(action.do)
        if handler is None:
            raise DescriptionError("do", f"unknown action {action.do!r}")
        rule = SEAT_RULES.get(action.do)
        if rule is not None and not 0 <= action.player < state.n:
            raise RuleViolation(rule, f"There is no player {action.player} (players are 0 to {state.n - 1})")
        handler[0](self._rules.get(state.n) or self.rules(state.n), state, action)

    def perform(self, state: State, action: Action) -> list[Event]:
        g = self._rules.get(state.n) or self.rules(state.n)
        events: list[Event] = state.pending_events
        state.pending_events = []
        HANDLERS[action.do][1](g, state, action, events)
        advance(g, state, events)
        state.actions += 1
        return events

    def is_terminal(self, state: State) -> bool:
        return state.over

    def snapshot(self, state: State) -> dict[str, Any]:
        g = self.rules(state.n)
        snap = snapshot.snapshot(g, state)
        snap["legal_actions"] = len(self.legal_actions(state))
        return snap

    def result(self, state: State) -> dict[str, Any]:
        if state.result is None:
            return {"over": False, "round": state.round}
        return {"over": True, **state.result}

    def metrics(self, state: State) -> dict[str, float | int | str | bool]:
        res = state.result or {}
        return {
            "rounds": state.round,
            "won": bool(res.get("won", False)),
            "over": state.over,
            "reason": str(res.get("reason", "unfinished")),
            "black": state.board_black,
            "actions": state.actions,
            "track": len(state.track),
            "tiles_on_paths": sum(1 for pl in state.placed.values() if not pl.abandoned),
            "draws": state.draws_made,
            "players": state.n,
        }

    def draw(self, state: State, seat: str | None = None) -> Figure:
        shown = self.observer.bag_shown if isinstance(self.observer, LastLanternObserver) else True
        return render.draw(self.rules(state.n), state, seat, shown)

    MARK = render.paint("mark")

    def mark(self, change: Change, places: Mapping[str, Box], width: float, height: float,
             labels: Sequence[Box] = ()) -> Marks:
        """The base's marks, with the spaces a refused placement named outlined as the tile it would have been."""
        spots = dict(places)
        for step in change.steps:
            cells = step.step.get("cells")
            if step.refused_by is not None and isinstance(cells, list):
                boxes = [spots[f"spaces.{cell}"] for cell in cells if f"spaces.{cell}" in spots]
                if boxes:
                    left, top = min(b.x for b in boxes), min(b.y for b in boxes)
                    spots[_cells_key(cells)] = Box(left, top, max(b.x + b.width for b in boxes) - left,
                                                   max(b.y + b.height for b in boxes) - top)
        return super().mark(change, spots, width, height, labels)

    def attempt_places(self, step: Mapping[str, Any], places: Mapping[str, Box]) -> list[str]:
        """A refused step's source (the tile in its player's hand, the player's Familiars) and target (the spaces it
        named, the tile on the track)."""
        player, tile, cells = step.get("player"), step.get("tile"), step.get("cells")
        source = next((p for p in (f"players.{player}.hand.{tile}", f"track.{tile}", f"players.{player}.hand",
                                   f"players.{player}.familiars") if p in places), None)
        target = _cells_key(cells) if isinstance(cells, list) and _cells_key(cells) in places else None
        if target is None and isinstance(step.get("to"), str) and f"players.{step['to']}.familiars" in places:
            target = f"players.{step['to']}.familiars"
        return [p for p in (source, target) if p is not None]

    def action_places(self, state: Any, action: Any, places: Mapping[str, Box]) -> list[str]:
        """A move's source (the tile in the hand, the Familiars) then each space a tile covers: a reader clicks the
        tile, then the spaces, and the move is the one left."""
        step = self.action_step(state, action)
        cells = step.get("cells")
        spaces = [f"spaces.{cell}" for cell in cells if f"spaces.{cell}" in places] if isinstance(cells, list) else []
        return [*self.attempt_places(step, places), *spaces]

    def arrow_wanted(self, source: str, target: str) -> bool:
        """A tile laid from a hand (the players' table, under the paths) is outlined where it lands: an arrow
        across the whole board would hide it."""
        return not source.startswith("players.")

    def legend(self) -> list[LegendEntry]:
        return pictures.legend(self)

    def component_pictures(self) -> list[ComponentPicture]:
        return pictures.components(self)

    def cover_art(self, width: float, height: float) -> list[str]:
        return pictures.cover(self, width, height)


def _cells_key(cells: list[Any]) -> str:
    return "cells:" + ",".join(map(str, cells))

