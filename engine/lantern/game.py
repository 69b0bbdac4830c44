"""The rules of Lantern: setup, the three steps of a zone, the Campfire, winning, losing and scoring."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from html import escape
from typing import Any

from rulepress.basegame import BaseGame, ComponentPicture, Figure, Frame, LegendEntry
from rulepress.marks import Box
from rulepress.protocol import Chance, DescriptionError, Event, Options, RuleViolation, decided

from . import actions as act
from . import pictures, render
from .actions import Action
from .combination import DICE, Combination, Dice
from .describe import describe_state
from .options import OPTIONS
from .render import draw
from .sheet import (
    ABILITIES,
    CONSTITUTION,
    POOLS,
    TARGETS,
    build_sheet,
)
from .snapshot import metrics, result, snapshot
from .solver import Budget, shared_solver, sub_multisets
from .state import ENTER, FIGHT, LEAVE, OVER, SETUP, LanternState

BOOK_ID = "lantern"

_ENTER = Action(act.ENTER)
_LEAVE = Action(act.LEAVE)
_REROLL = Action(act.REROLL)
_CONCEDE = Action(act.CONCEDE)
_LEAVE_ONLY = (_LEAVE,)
_BONUSES = tuple(Action(act.BONUS, target=ability) for ability in ABILITIES)  # built once: legal_actions picks
_ASSIGNS = {(face, target): Action(act.ASSIGN, face=face, target=target) for face in range(1, 7) for target in TARGETS}


@lru_cache(maxsize=1024)
def _fight_parts(dice: Dice) -> tuple[tuple[Action, ...], ...]:
    """Each fighting action on these dice, by the pool it uses (a sorted roll of six has 462 values)."""
    faces = sorted(set(dice))
    return (tuple(Action(act.STRIKE, face=f) for f in faces),
            tuple(Action(act.COUNTER, face=f, to=t) for f in faces for t in (f - 1, f + 1) if 1 <= t <= 6),
            tuple(Action(act.SPELL, face=f) for f in faces),
            tuple(Action(act.CONSTITUTION, faces=s) for s in sub_multisets(dice)))


def _swap(dice: Dice, old: Sequence[int], new: Sequence[int]) -> Dice:
    rest = list(dice)
    for face in old:
        rest.remove(face)
    rest.extend(new)
    rest.sort()
    return tuple(rest)


def _contains(dice: Dice, faces: Sequence[int]) -> bool:
    rest = list(dice)
    for face in faces:
        if face not in rest:
            return False
        rest.remove(face)
    return True


class LanternGame(BaseGame):
    """The fixed rules, the sheet and the options; states are :class:`LanternState`."""

    book_id = BOOK_ID
    OPTIONS = OPTIONS
    CHANCE = True  # the dice
    STATE_KEYS = None  # describe.py reads start.state's keys itself (schema.STATE_SCHEMA gives their shape)
    ACTION = Action
    FRAME = Frame(escape=escape)  # quotes escaped in the <desc>

    def __init__(self, components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> None:
        super().__init__(components, options)
        chosen = dict(self.options)
        sheet = self.sheet = build_sheet(components, six_wild_distinct=chosen["six_wild_distinct"])
        if not options or "score_overlap" not in options:
            chosen["score_overlap"] = sheet.score.resolution  # the data's recorded answer
        self.options = Options(chosen)  # a misspelt option read is refused at its line
        # The solver never needs more uses of one pool than a pool can hold.
        self.solver = shared_solver(max(sheet.cap, 6 + sheet.campfire_gain))
        self._loss_rule = chosen["loss_rule"]
        self._met: dict[tuple[Dice, int], bool] = {}
        self._fight_actions: dict[tuple[Dice, bool, bool, bool, bool], tuple[Action, ...]] = {}
        self._handlers = {
            act.REROLL: self._reroll, act.ASSIGN: self._assign, act.ENTER: self._enter,
            act.STRIKE: self._strike, act.COUNTER: self._counter, act.SPELL: self._spell,
            act.CONSTITUTION: self._constitution, act.BONUS: self._bonus, act.LEAVE: self._leave,
            act.CONCEDE: self._concede,
        }

    # -- protocol: states ---------------------------------------------------------------------

    def check_players(self, players: Sequence[str]) -> tuple[str, ...]:
        return tuple(players)  # a solo game: book.yaml's players (1) is what the loader holds examples to

    def start(self, players: tuple[str, ...], chance: Chance) -> LanternState:
        state = LanternState(chance, players)
        self._setup_roll(state, [])
        return state

    def describe(self, description: Mapping[str, Any], players: tuple[str, ...],
                 chance: Chance) -> LanternState:
        state = LanternState(chance, players)
        describe_state(self, state, description)
        return state

    def is_terminal(self, state: LanternState) -> bool:
        return state.phase == OVER

    def check_outcomes(self, outcomes: Sequence[Any], path: str = "chance") -> None:
        super().check_outcomes(outcomes, path)
        for value in outcomes:
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
                raise DescriptionError(path, f"a forced outcome is a die face 1-6, got {value!r}")

    def snapshot(self, state: LanternState) -> dict[str, Any]:
        return snapshot(self, state)

    def result(self, state: LanternState) -> dict[str, Any]:
        return result(self, state)

    def metrics(self, state: LanternState) -> dict[str, float | int | str | bool]:
        return metrics(self, state)

    def draw(self, state: LanternState) -> Figure:
        return draw(self, state)

    MARK = render.paint("mark")

    def legend(self) -> list[LegendEntry]:
        return pictures.legend(self)

    def component_pictures(self) -> list[ComponentPicture]:
        return pictures.components(self)

    def cover_art(self, width: float, height: float) -> list[str]:
        return pictures.cover(self, width, height)

    def attempt_places(self, step: Mapping[str, Any], places: Mapping[str, Box]) -> list[str]:
        return render.attempt_places(dict(step), dict(places))

    # -- protocol: actions --------------------------------------------------------------------

    def parse_action(self, state: LanternState, step: Mapping[str, Any]) -> Action:
        return act.parse_step(step)

    def format_action(self, state: LanternState, action: Action) -> str:
        return act.describe(action, self.sheet.names)

    def action_step(self, state: LanternState, action: Action) -> dict[str, Any]:
        return act.as_step(action)

    def legal_actions(self, state: LanternState) -> Sequence[Action]:
        phase = state.phase
        if phase == FIGHT:
            left = state.drawn[0] - state.crossed[0], state.drawn[1] - state.crossed[1]
            key = (state.dice, left[0] > 0, left[1] > 0, state.drawn[2] > state.crossed[2],
                   state.drawn[3] > state.crossed[3])
            moves = self._fight_actions.get(key)
            if moves is None:
                moves = self._fight_actions[key] = self._list_fight_actions(*key)
            return moves + (_CONCEDE,) if self.options["may_concede"] else moves
        if phase == ENTER:
            return (_ENTER,)
        if phase == LEAVE:
            if state.earned <= state.taken:
                return _LEAVE_ONLY
            return (*(_BONUSES[i] for i in range(len(ABILITIES)) if self.below_cap(state, i)), _LEAVE)
        if phase == SETUP:
            moves_list = [_REROLL] if self.reroll_problem(state) is None else []
            faces = sorted(set(state.dice))
            for target in TARGETS:
                if target not in state.assigned:
                    moves_list.extend(_ASSIGNS[f, target] for f in faces)
            return tuple(moves_list)
        return ()

    @staticmethod
    def _list_fight_actions(dice: Dice, strike: bool, counter: bool, spell: bool,
                            constitution: bool) -> tuple[Action, ...]:
        strikes, counters, spells, constitutions = _fight_parts(dice)
        return ((strikes if strike else ()) + (counters if counter else ()) + (spells if spell else ())
                + (constitutions if constitution else ()))

    def apply(self, state: LanternState, action: Action) -> list[Event]:
        if state.phase == OVER:
            rule = "ln.end.win" if state.outcome == "won" else "ln.end.loss"
            raise RuleViolation(rule, "The adventure is over: no further action is possible")
        handler = self._handlers.get(action.kind)
        if handler is None:
            raise RuleViolation("ln.play.journey", f"{action.kind!r} is not something an adventurer can do")
        events = handler(state, action)
        state.actions += 1
        return events

    # -- shared pieces ------------------------------------------------------------------------

    def combination(self, state: LanternState) -> Combination | None:
        return self.sheet.zone(state.zone).combination if state.zone else None

    def is_met(self, dice: Dice, zone: int) -> bool:
        key = (dice, zone)
        hit = self._met.get(key)
        if hit is None:
            combination = self.sheet.zone(zone).combination
            hit = self._met[key] = combination is not None and combination.is_met(dice)
        return hit

    def budget(self, state: LanternState) -> Budget:
        return Budget(*(state.drawn[i] - state.crossed[i] for i in range(4)))

    def below_cap(self, state: LanternState, pool: int) -> bool:
        cap = self.sheet.cap
        if (state.drawn[pool] < cap) != (state.left(pool) < cap):
            decided(state, "cap_counts")  # crossed circles decide whether this Ability is at the cap
        counted = state.drawn[pool] if self.options["cap_counts"] == "drawn" else state.left(pool)
        return counted < self.sheet.cap

    def _roll(self, state: LanternState, count: int) -> Dice:
        draw = state.chance.randint
        return tuple(sorted(draw(1, 6, "die") for _ in range(count)))

    def _cross_experience(self, state: LanternState, count: int, rule: str, events: list[Event], *,
                          source: str, bonus: bool) -> None:
        """Cross ``count`` experience circles, top row first; rows filled may earn an Ability circle."""
        if count <= 0:
            return
        before = state.experience
        after = min(self.sheet.experience_total, before + count)
        lost = before + count - after
        state.experience = after
        state.overflow += lost
        events.append(Event("experience", rule, {"source": source, "crossed": after - before,
                                                 "experience": after}))
        if lost:
            decided(state, "experience_overflow")
            events.append(Event("experience_full", "ln.sheet.experience", {"uncrossed": lost}))
        for name, end in zip(self.sheet.row_names, self.sheet.row_ends, strict=True):
            if before < end <= after:
                if source == "campfire":
                    decided(state, "campfire_row_bonus")  # a row filled by the Campfire, not in step 1 or 2
                elif bonus and state.earned:
                    decided(state, "row_bonus")  # a second row filled in one zone
                events.append(Event("row_filled", "ln.sheet.experience", {"row": name}))
                if bonus and not (self.options["row_bonus"] == "per_zone" and state.earned):
                    state.earned += 1
                    events.append(Event("bonus_earned", "ln.play.row-bonus", {"row": name}))

    def _count_ones(self, state: LanternState, rolled: Sequence[int], events: list[Event], *,
                    bonus: bool = True) -> None:
        ones = sum(1 for face in rolled if face == 1)
        state.ones += ones
        self._cross_experience(state, ones, "ln.play.experience", events, source="rolled 1", bonus=bonus)

    # -- setup ----------------------------------------------------------------------------------

    def _setup_roll(self, state: LanternState, events: list[Event]) -> None:
        rolled = self._roll(state, DICE)
        state.setup_roll = state.dice = rolled
        if 1 in rolled:
            decided(state, "setup_ones_cross")  # a 1 in the setup roll
        if state.setup_rerolls and sum(rolled) < self.sheet.reroll_below:
            decided(state, "setup_rerolls")  # the re-roll is weak again
        events.append(Event("setup_roll", "ln.setup.roll", {"dice": list(rolled), "sum": sum(rolled)}))
        if self.options["setup_ones_cross"]:
            self._count_ones(state, rolled, events, bonus=False)

    def reroll_problem(self, state: LanternState) -> str | None:
        if state.phase != SETUP:
            return "The adventurer's dice are re-rolled only during setup"
        if state.assigned:
            return "The setup dice may be re-rolled only before any of them is assigned"
        total = sum(state.setup_roll)
        if total >= self.sheet.reroll_below:
            return (f"A re-roll is allowed only when the dice sum to less than {self.sheet.reroll_below} "
                    f"(they sum to {total})")
        if state.setup_rerolls and self.options["setup_rerolls"] == "once":
            return "The setup dice may be re-rolled only once"
        return None

    def _reroll(self, state: LanternState, action: Action) -> list[Event]:
        problem = self.reroll_problem(state)
        if problem is not None:
            raise RuleViolation("ln.setup.reroll", problem)
        events = [Event("setup_reroll", "ln.setup.reroll", {"was": list(state.setup_roll),
                                                             "sum": sum(state.setup_roll)})]
        state.setup_rerolls += 1
        self._setup_roll(state, events)
        return events

    def _assign(self, state: LanternState, action: Action) -> list[Event]:
        names = self.sheet.names
        if state.phase != SETUP:
            raise RuleViolation("ln.setup.assign", "Dice are assigned only during setup")
        if action.target not in TARGETS:
            raise RuleViolation("ln.setup.assign", f"A die goes to one of {', '.join(TARGETS)}, "
                                                   f"not {action.target!r}")
        if action.target in state.assigned:
            raise RuleViolation("ln.setup.assign", f"{names[action.target]} already has its die "
                                                   f"(a {state.assigned[action.target]})")
        if action.face not in state.dice:
            raise RuleViolation("ln.setup.assign", f"No unassigned die shows a {action.face} "
                                                   f"(unassigned: {', '.join(map(str, state.dice))})")
        if not state.assigned and sum(state.setup_roll) < self.sheet.reroll_below:
            decided(state, "reroll_before_assigning")  # a weak roll kept: no re-roll once a die has its job
        state.dice = _swap(state.dice, (action.face,), ())
        state.assigned[action.target] = action.face
        events = [Event("assign", "ln.setup.assign", {"die": action.face, "to": action.target})]
        if action.target in POOLS:
            pool = POOLS.index(action.target)
            state.drawn[pool] += action.face
            events.append(Event("circles_drawn", "ln.setup.assign.abilities",
                                {"pool": action.target, "circles": action.face}))
        elif action.target == "experience":
            self._cross_experience(state, action.face, "ln.setup.assign.experience", events,
                                   source="setup die", bonus=False)
        else:
            state.campfire = action.face
            events.append(Event("campfire_circles", "ln.setup.assign.campfire", {"circles": action.face}))
        if len(state.assigned) == len(TARGETS):
            state.zone = 1
            state.phase = ENTER
            state.dice = ()
            events.append(Event("journey", "ln.play.journey", {"zone": 1}))
        return events

    # -- step 1 and the Campfire ------------------------------------------------------------------

    def _enter(self, state: LanternState, action: Action) -> list[Event]:
        if state.phase != ENTER:
            message = {SETUP: "Finish setup first: every die must be assigned",
                       FIGHT: "The zone's dice are already rolled: fight with Abilities and Constitution",
                       LEAVE: "Leave this zone (step 3) before entering the next"}[state.phase]
            raise RuleViolation("ln.play.enter", message)
        zone = self.sheet.zone(state.zone)
        if zone.is_campfire:
            return self._campfire(state)
        rolled = self._roll(state, DICE)
        state.dice = rolled
        state.rolls += 1
        events = [Event("enter", "ln.play.enter", {"zone": zone.number, "dice": list(rolled)})]
        self._count_ones(state, rolled, events)
        self._after_change(state, events, step=1)
        return events

    def _campfire(self, state: LanternState) -> list[Event]:
        state.drawn[CONSTITUTION] += self.sheet.campfire_gain
        if state.drawn[CONSTITUTION] > self.sheet.cap:
            decided(state, "constitution_uncapped")  # past 7: the cap is the Abilities', not Constitution's
        events = [Event("campfire", "ln.play.campfire", {"zone": state.zone, "constitution": self.sheet.campfire_gain,
                                                         "experience": state.campfire})]
        self._cross_experience(state, state.campfire, "ln.play.campfire", events, source="campfire",
                               bonus=self.options["campfire_row_bonus"])
        state.campfire_used = True
        state.phase = LEAVE
        return events

    # -- step 2 -----------------------------------------------------------------------------------

    def _use(self, state: LanternState, pool: int, face_rule: str, faces: Sequence[int]) -> None:
        """Validate a use of ``pool`` on dice showing ``faces`` (raises, changes nothing)."""
        name = self.sheet.names[POOLS[pool]]
        if state.phase != FIGHT:
            raise RuleViolation("ln.fight.use", f"{name} is used only while fighting a zone's enemies (step 2)")
        if state.drawn[pool] <= state.crossed[pool]:
            raise RuleViolation("ln.fight.use", f"No {name} circle is left to cross")
        if not faces:
            raise RuleViolation(face_rule, f"{name} must re-roll at least one die")
        if not _contains(state.dice, faces):
            shown = ", ".join(map(str, state.dice))
            raise RuleViolation(face_rule, f"No die shows {' and '.join(map(str, faces))} (showing: {shown})")

    def _cross_circle(self, state: LanternState, pool: int, events: list[Event]) -> None:
        state.crossed[pool] += 1
        events.append(Event("circle_crossed", "ln.fight.use",
                            {"pool": POOLS[pool], "left": state.drawn[pool] - state.crossed[pool]}))

    def _turned_one(self, state: LanternState, new: int, events: list[Event]) -> None:
        if new == 1:
            decided(state, "turned_ones_cross")
        if new == 1 and self.options["turned_ones_cross"]:
            self._cross_experience(state, 1, "ln.play.experience", events, source="turned 1", bonus=True)

    def _strike(self, state: LanternState, action: Action) -> list[Event]:
        self._use(state, 0, "ln.fight.critical-strike", (action.face,))
        events: list[Event] = []
        self._cross_circle(state, 0, events)
        new = 7 - action.face
        state.dice = _swap(state.dice, (action.face,), (new,))
        events.append(Event("critical_strike", "ln.fight.critical-strike", {"die": action.face, "to": new}))
        self._turned_one(state, new, events)
        self._after_change(state, events, step=2)
        return events

    def _counter(self, state: LanternState, action: Action) -> list[Event]:
        self._use(state, 1, "ln.fight.counterattack", (action.face,))
        if {action.face, action.to} == {1, 6}:
            raise RuleViolation("ln.fight.counterattack",
                                "Counterattack never turns a 6 into a 1 or a 1 into a 6")
        if abs(action.face - action.to) != 1:
            raise RuleViolation("ln.fight.counterattack",
                                f"Counterattack adds or subtracts exactly 1: a {action.face} can become "
                                + " or ".join(str(t) for t in (action.face - 1, action.face + 1) if 1 <= t <= 6))
        events: list[Event] = []
        self._cross_circle(state, 1, events)
        state.dice = _swap(state.dice, (action.face,), (action.to,))
        events.append(Event("counterattack", "ln.fight.counterattack", {"die": action.face, "to": action.to}))
        self._turned_one(state, action.to, events)
        self._after_change(state, events, step=2)
        return events

    def _spell(self, state: LanternState, action: Action) -> list[Event]:
        self._use(state, 2, "ln.fight.magic-spell", (action.face,))
        events: list[Event] = []
        self._cross_circle(state, 2, events)
        rolled = self._roll(state, 1)
        state.dice = _swap(state.dice, (action.face,), rolled)
        events.append(Event("magic_spell", "ln.fight.magic-spell", {"die": action.face, "rolled": rolled[0]}))
        self._count_ones(state, rolled, events)
        self._after_change(state, events, step=2)
        return events

    def _constitution(self, state: LanternState, action: Action) -> list[Event]:
        self._use(state, 3, "ln.fight.constitution", action.faces)
        events: list[Event] = []
        self._cross_circle(state, 3, events)
        rolled = self._roll(state, len(action.faces))
        state.dice = _swap(state.dice, action.faces, rolled)
        events.append(Event("constitution", "ln.fight.constitution",
                            {"dice": list(action.faces), "rolled": list(rolled)}))
        self._count_ones(state, rolled, events)
        self._after_change(state, events, step=2)
        return events

    def _concede(self, state: LanternState, action: Action) -> list[Event]:
        if not self.options["may_concede"]:
            raise RuleViolation("ln.end.loss", "An adventurer cannot give up: the fight goes on while the "
                                               "combination can still be reached")
        if state.phase != FIGHT:
            raise RuleViolation("ln.end.loss", "Only a fight can be given up")
        events: list[Event] = []
        self._lose(state, "gave up the fight", events)
        return events

    def _after_change(self, state: LanternState, events: list[Event], *, step: int) -> None:
        """After the dice changed: the enemies are defeated, the fight goes on, or it is lost."""
        zone = self.sheet.zone(state.zone)
        combination = zone.combination
        if combination is not None and combination.six_wild and len(set(state.dice)) == 1:
            decided(state, "six_wild_distinct")  # six of a kind against six wild symbols
        if self.is_met(state.dice, zone.number):
            self._defeat(state, zone.number, combination, events, step)
            return
        state.phase = FIGHT
        self._note_loss_decisions(state, combination)
        reason = self.out_of_reach(state, combination)
        if reason is not None:
            self._lose(state, reason, events)

    def _note_loss_decisions(self, state: LanternState, combination: Combination | None) -> None:
        """Mark ln.q5 where its answers disagree on whether the fight is lost now, and ln.q6 where a fight goes on
        that Critical Strike and Counterattack cannot win for certain (giving up would be a real choice)."""
        assert combination is not None
        drawn, crossed = state.drawn, state.crossed
        cs, ca, ms, con = drawn[0] - crossed[0], drawn[1] - crossed[1], drawn[2] - crossed[2], drawn[3] - crossed[3]
        certain = self.solver.certain(state.dice, combination, cs, ca)
        possible = bool(con) or self.solver.reachable(state.dice, combination, cs, ca, ms)
        if not certain and (possible or cs + ca + ms + con):
            decided(state, "loss_rule")
        if not certain and possible:
            decided(state, "may_concede")

    def out_of_reach(self, state: LanternState, combination: Combination | None) -> str | None:
        """Why the fight is lost under the loss rule chosen (ln.q5), or None while it goes on."""
        assert combination is not None
        drawn, crossed = state.drawn, state.crossed
        cs, ca, ms, con = drawn[0] - crossed[0], drawn[1] - crossed[1], drawn[2] - crossed[2], drawn[3] - crossed[3]
        rule = self._loss_rule
        if rule == "exhausted":
            return None if cs + ca + ms + con else "no Ability or Constitution circle is left"
        if rule == "certain":
            if self.solver.certain(state.dice, combination, cs, ca):
                return None
            return "Critical Strike and Counterattack can no longer reach the combination for certain"
        if con or self.solver.reachable(state.dice, combination, cs, ca, ms):
            return None
        return "no circles are left with which the combination could be reached"

    def _defeat(self, state: LanternState, zone: int, combination: Combination | None, events: list[Event],
                step: int) -> None:
        assert combination is not None
        decided(state, "fight_ends_when_met")  # the combination shows: the fight ends here
        events.append(Event("defeat", "ln.play.defeat", {"zone": zone, "step": step, "dice": list(state.dice)}))
        if combination.six_wild:
            for target in combination.targets:
                if _contains(state.dice, target):
                    events.append(Event("six_wild", "ln.fight.six-wild", {"triples": [target[0], target[3]]}))
                    break
        elif combination.wild:
            events.append(Event("wild", "ln.fight.wild", {"wild": combination.wild}))
        if zone == self.sheet.dragon_zone:
            state.zones_cleared += 1
            state.phase = OVER
            state.outcome = "won"
            state.end_reason = "the Dragon is defeated"
            events.append(Event("win", "ln.end.win", {"zone": zone}))
            self._score(state, events)
        else:
            state.phase = LEAVE

    def _lose(self, state: LanternState, reason: str, events: list[Event]) -> None:
        state.phase = OVER
        state.outcome = "lost"
        state.end_reason = reason
        events.append(Event("loss", "ln.end.loss", {"zone": state.zone, "reason": reason}))
        decided(state, "score_on_loss")
        if self.options["score_on_loss"]:
            self._score(state, events)

    def score(self, state: LanternState) -> int | None:
        """Ability and Constitution circles crossed, once the adventure is over and scored."""
        if state.phase != OVER or (state.outcome == "lost" and not self.options["score_on_loss"]):
            return None
        return sum(state.crossed)

    def title(self, state: LanternState) -> str | None:
        score = self.score(state)
        if score is None:
            return None
        return self.sheet.score.title(score, self.options["score_overlap"]).title

    def _score(self, state: LanternState, events: list[Event]) -> None:
        score = sum(state.crossed)
        if self.sheet.score.title(score, "better") != self.sheet.score.title(score, "worse"):
            decided(state, "score_overlap")
        events.append(Event("score", "ln.end.score", {"score": score}))
        band = self.sheet.score.title(score, self.options["score_overlap"])
        events.append(Event("title", "ln.end.titles", {"title": band.title, "band": band.label()}))

    # -- step 3 -----------------------------------------------------------------------------------

    def _bonus(self, state: LanternState, action: Action) -> list[Event]:
        names = self.sheet.names
        if state.phase != LEAVE:
            raise RuleViolation("ln.play.row-bonus", "A circle for a filled experience row is added only in "
                                                     "step 3, on leaving the zone")
        if action.target not in ABILITIES:
            raise RuleViolation("ln.play.row-bonus", f"The circle for a filled row goes next to an Ability "
                                                     f"(Critical Strike, Counterattack or Magic Spell), "
                                                     f"not {names[action.target]}")
        if state.earned <= state.taken:
            raise RuleViolation("ln.play.row-bonus", "No experience row was filled in this zone's steps 1 "
                                                     "and 2 (or its circle is already added)")
        pool = ABILITIES.index(action.target)
        if not self.below_cap(state, pool):
            what = "drawn" if self.options["cap_counts"] == "drawn" else "left"
            raise RuleViolation("ln.sheet.cap", f"{names[action.target]} already has {self.sheet.cap} circles "
                                                f"{what}: no more may be drawn")
        state.drawn[pool] += 1
        state.taken += 1
        state.bonuses += 1
        return [Event("bonus", "ln.play.row-bonus", {"ability": action.target, "drawn": state.drawn[pool]})]

    def _leave(self, state: LanternState, action: Action) -> list[Event]:
        if state.phase != LEAVE:
            message = {SETUP: "The journey has not begun: finish setup first",
                       ENTER: "Enter the zone first",
                       FIGHT: "A zone is left only once its enemies are defeated"}[state.phase]
            raise RuleViolation("ln.play.leave", message)
        events = [Event("leave", "ln.play.leave", {"zone": state.zone})]
        if state.earned > state.taken:
            counted = state.drawn if self.options["cap_counts"] == "drawn" else [state.left(i) for i in range(3)]
            if all(counted[pool] >= self.sheet.cap for pool in range(len(ABILITIES))):
                decided(state, "row_circle_lost")  # every Ability at the cap: the filled row's circle is lost
            events.append(Event("bonus_forfeited", "ln.play.row-bonus", {"circles": state.earned - state.taken}))
        state.zones_cleared += 1
        state.zone += 1
        state.earned = state.taken = 0
        state.dice = ()
        state.phase = ENTER
        return events
