"""The combination solver: can this roll still beat the zone, and what is the cheapest way?

Given the dice showing, a zone's :class:`Combination` and the circles left, the solver decides

* whether the deterministic Abilities alone (Critical Strike, Counterattack) reach the combination
  for certain, and the cheapest such plan (fewest circles crossed);
* whether the combination can be reached at all when re-rolls (Magic Spell, Constitution) are
  counted as able to show any face: the engine's default loss test (rule ln.end.loss);
* which re-rolls could help and, for a re-roll plan, the probability that right after it the
  combination is met or certain with the Critical Strike and Counterattack circles still left.

Costs are triples ``(critical_strike, counterattack, magic_spell)``.  A die showing ``x`` can serve
a required face ``y`` by Counterattack alone (``|x - y|`` circles, never wrapping), by one Critical
Strike and then Counterattack (``|7 - x - y|``), or by one Magic Spell counted as "any face"
(possibility only).  Using Critical Strike twice on a die undoes it, and Counterattack before a
Critical Strike is the same as after it with the opposite sign, so these are every useful path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import factorial

from .combination import FACES, Combination, Dice

Cost = tuple[int, int, int]
INFINITE = 1 << 20
REROLLS_CACHED = 40_000  # positions whose re-roll plans are remembered, then forgotten at once (memory stays bounded)

ABILITY_NAMES = {"critical_strike": "Critical Strike", "counterattack": "Counterattack",
                 "magic_spell": "Magic Spell", "constitution": "Constitution"}
_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _serve(x: int, y: int) -> tuple[Cost, ...]:
    direct: Cost = (0, abs(x - y), 0)
    if direct == (0, 0, 0):
        return (direct,)
    options = {direct, (1, abs(7 - x - y), 0), (0, 0, 1)}
    return tuple(sorted(_pareto(options)))


def _pareto(points: set[Cost]) -> tuple[Cost, ...]:
    """The points no other point beats or equals in every coordinate."""
    kept: list[Cost] = []
    for p in sorted(points):
        _, b, c = p
        for q in kept:  # each sorts before p, so its first coordinate is never larger
            if q[1] <= b and q[2] <= c:
                break
        else:
            kept.append(p)
    return tuple(kept)


SERVE: dict[tuple[int, int], tuple[Cost, ...]] = {(x, y): _serve(x, y) for x in FACES for y in FACES}


def _outcomes(count: int) -> tuple[tuple[Dice, float], ...]:
    """Every sorted result of rolling ``count`` dice, with its probability."""
    total = 6 ** count
    result = []
    for faces in combinations_with_replacement(FACES, count):
        ways = factorial(count)
        for n in Counter(faces).values():
            ways //= factorial(n)
        result.append((faces, ways / total))
    return tuple(result)


OUTCOMES: dict[int, tuple[tuple[Dice, float], ...]] = {k: _outcomes(k) for k in range(1, 7)}

# A multiset of dice as one number, a base-7 digit per face (no face shows more than six times), so that the code
# of a roll added to the dice kept is the code of the dice after the re-roll: no tuple is built or sorted.
_WEIGHT = {face: 7 ** (face - 1) for face in FACES}


def _code(dice: Iterable[int]) -> int:
    return sum(_WEIGHT[face] for face in dice)


OUTCOME_CODES: dict[int, tuple[tuple[int, float], ...]] = {
    k: tuple((_code(faces), p) for faces, p in outcomes) for k, outcomes in OUTCOMES.items()}
# Every sorted roll of up to six dice by its code (what a code stands for when a cache misses).
DICE_OF_CODE: dict[int, Dice] = {_code(faces): faces for k in range(0, 7)
                                 for faces in combinations_with_replacement(FACES, k)}


@lru_cache(maxsize=4096)
def sub_multisets(dice: Dice) -> tuple[Dice, ...]:
    """Every distinct non-empty sorted selection of the dice (what a re-roll may pick)."""
    found: set[Dice] = set()
    if list(dice) == sorted(dice):  # as dice always are: pick how many of each face, not which dice
        faces = sorted(set(dice))
        for counts in product(*(range(dice.count(face) + 1) for face in faces)):
            found.add(tuple(face for face, count in zip(faces, counts, strict=True) for _ in range(count)))
        found.discard(())
    else:
        n = len(dice)
        for mask in range(1, 1 << n):
            found.add(tuple(dice[i] for i in range(n) if mask >> i & 1))
    return tuple(sorted(found, key=lambda s: (len(s), s)))


def remove(dice: Dice, faces: Dice) -> Dice:
    """``dice`` without one die per face in ``faces`` (all must be present)."""
    rest = list(dice)
    for face in faces:
        rest.remove(face)
    return tuple(rest)


@dataclass(frozen=True)
class Budget:
    """Circles left (drawn and not crossed) per Ability and Constitution."""

    critical_strike: int = 0
    counterattack: int = 0
    magic_spell: int = 0
    constitution: int = 0


@dataclass(frozen=True)
class Move:
    """One deterministic use of an Ability on a die showing ``face``."""

    ability: str
    face: int
    to: int

    def describe(self) -> str:
        return f"{ABILITY_NAMES[self.ability]}: {self.face} → {self.to}"


@dataclass(frozen=True)
class Plan:
    """A sequence of deterministic moves that assembles the combination."""

    moves: tuple[Move, ...]
    critical_strike: int
    counterattack: int

    @property
    def cost(self) -> int:
        return self.critical_strike + self.counterattack

    def needs(self) -> str:
        """The plan in words: "one Counterattack", "one Critical Strike and two Counterattacks"."""
        parts = []
        for ability, count in (("critical_strike", self.critical_strike), ("counterattack", self.counterattack)):
            if count:
                word = _NUMBER_WORDS[count] if count < len(_NUMBER_WORDS) else str(count)
                parts.append(f"{word} {ABILITY_NAMES[ability]}{'s' if count > 1 else ''}")
        return " and ".join(parts) if parts else "nothing"


@dataclass(frozen=True)
class Reroll:
    """A re-roll plan: these dice re-rolled with Magic Spells (one circle each) or one Constitution."""

    ability: str
    faces: Dice
    circles: int
    probability: float

    def describe(self) -> str:
        faces = ", ".join(map(str, self.faces))
        return f"{ABILITY_NAMES[self.ability]} re-roll of {faces}: {self.probability:.1%}"


@dataclass(frozen=True)
class Report:
    """The solver's verdict on one position."""

    dice: Dice
    combination: str
    budget: Budget
    met: bool
    certain: bool
    possible: bool
    plan: Plan | None
    cheapest_cost: int | None
    rerolls: tuple[Reroll, ...] = field(default=())

    @property
    def needs(self) -> str:
        if self.met:
            return "nothing: the combination is showing"
        if self.plan is not None:
            return self.plan.needs()
        if self.possible:
            return "luck: only a re-roll can still reach it"
        return "more than the circles left: the combination is out of reach"

    def as_dict(self, top: int = 5) -> dict[str, object]:
        """Plain data for snapshots and the site (the best ``top`` re-rolls)."""
        return {
            "met": self.met,
            "certain": self.certain,
            "possible": self.possible,
            "cheapest_cost": self.cheapest_cost,
            "needs": self.needs,
            "plan": [m.describe() for m in self.plan.moves] if self.plan else [],
            "plan_uses": ({"critical_strike": self.plan.critical_strike,
                           "counterattack": self.plan.counterattack} if self.plan else {}),
            "rerolls": [{"ability": r.ability, "faces": list(r.faces), "circles": r.circles,
                         "probability": round(r.probability, 4)} for r in self.rerolls[:top]],
            "best_reroll": self.rerolls[0].describe() if self.rerolls else None,
        }


class Solver:
    """Solves positions; caches are shared by every call (the answers depend on no game state).

    Frontiers are built on costs packed into one int, a field per coordinate with a guard bit above each, so that
    adding two costs is one addition and "no coordinate larger" one subtraction and mask (a SWAR compare): the
    solver's first calls, before its caches are warm, are most of what a simulated game of Lantern costs.
    """

    def __init__(self, limit: int = 7) -> None:
        # No Ability can have more than ``limit`` circles left, so costs above it are never usable.
        self.limit = limit
        bits = (limit + 5).bit_length()  # a field holds a usable cost plus one die's (at most 5 more)
        self._shift = shift = bits + 1  # and a guard bit above it
        self._mask = (1 << bits) - 1
        self._guards = (1 << bits) * (1 + (1 << shift) + (1 << 2 * shift))
        self._limits = self._pack((limit, limit, limit)) | self._guards
        self._serve = {key: tuple(self._pack(cost) for cost in costs) for key, costs in SERVE.items()}
        self._frontiers: dict[tuple[Dice, Dice], tuple[int, ...]] = {}
        self._zone: dict[tuple[Dice, Combination], tuple[Cost, ...]] = {}
        self._min_ca: dict[tuple[Dice, Combination], tuple[int, ...]] = {}
        self._rerolls: dict[tuple[Dice, Combination, int, int, int, bool], tuple[Reroll, ...]] = {}
        self._success: dict[tuple[Dice, Combination, int, int, int], float] = {}
        self._min_ca_by_code: dict[Combination, dict[int, tuple[int, ...]]] = {}

    # -- frontiers ------------------------------------------------------------------------------

    def _pack(self, cost: Cost) -> int:
        return (cost[0] << 2 * self._shift) | (cost[1] << self._shift) | cost[2]

    def _unpack(self, packed: int) -> Cost:
        shift, mask = self._shift, self._mask
        return (packed >> 2 * shift & mask, packed >> shift & mask, packed & mask)

    def _pareto_packed(self, points: Iterable[int]) -> list[int]:
        """:func:`_pareto` on packed costs within the limit.  In sorted order every kept cost comes before the
        next, so only its last two coordinates can beat it: ``best[b]`` is the least third coordinate kept with a
        second of at most ``b`` (it never rises with ``b``), and a cost is beaten when that is no larger."""
        shift, mask, limit = self._shift, self._mask, self.limit
        best = [INFINITE] * (limit + 1)
        kept: list[int] = []
        for p in sorted(points):
            b, c = p >> shift & mask, p & mask
            if best[b] <= c:
                continue
            kept.append(p)
            for j in range(b, limit + 1):
                if best[j] <= c:
                    break
                best[j] = c
        return kept

    def _packed_frontier(self, dice: Dice, need: Dice) -> tuple[int, ...]:
        """Pareto-minimal packed costs for ``dice`` to show every face of ``need`` (other dice free)."""
        key = (dice, need)
        hit = self._frontiers.get(key)
        if hit is not None:
            return hit
        if not need:
            result: tuple[int, ...] = (0,)
        else:
            y, rest_need = need[0], need[1:]
            points: set[int] = set()
            previous = 0
            for i, x in enumerate(dice):
                if x == previous:
                    continue
                previous = x
                child = self._packed_frontier(dice[:i] + dice[i + 1:], rest_need)
                for cost in self._serve[x, y]:
                    points.update([cost + p for p in child])
            limits, guards = self._limits, self._guards  # costs past the limit dropped first: none is usable
            result = tuple(self._pareto_packed([p for p in points if (limits - p) & guards == guards]))
        self._frontiers[key] = result
        return result

    def _frontier(self, dice: Dice, need: Dice) -> tuple[Cost, ...]:
        """Pareto-minimal costs for ``dice`` to show every face of ``need`` (other dice free)."""
        return tuple(self._unpack(p) for p in self._packed_frontier(dice, need))

    def frontier(self, dice: Dice, combination: Combination) -> tuple[Cost, ...]:
        """Pareto-minimal (Critical Strike, Counterattack, Magic Spell) costs to reach the combination."""
        key = (dice, combination)
        hit = self._zone.get(key)
        if hit is None:
            points: set[int] = set()
            for target in combination.targets:
                points.update(self._packed_frontier(dice, target))
            hit = self._zone[key] = tuple(self._unpack(p) for p in self._pareto_packed(points))
        return hit

    def min_counterattacks(self, dice: Dice, combination: Combination) -> tuple[int, ...]:
        """``t[k]``: the fewest Counterattacks that finish it with at most ``k`` Critical Strikes, no spells."""
        key = (dice, combination)
        hit = self._min_ca.get(key)
        if hit is None:
            table = [INFINITE] * (self.limit + 1)
            for cs, ca, ms in self.frontier(dice, combination):
                if ms == 0:
                    for k in range(cs, self.limit + 1):
                        table[k] = min(table[k], ca)
            hit = self._min_ca[key] = tuple(table)
        return hit

    # -- verdicts -------------------------------------------------------------------------------

    def certain(self, dice: Dice, combination: Combination, critical_strike: int, counterattack: int) -> bool:
        """Whether Critical Strike and Counterattack alone reach it within these circles."""
        return self.min_counterattacks(dice, combination)[min(critical_strike, self.limit)] <= counterattack

    def possible(self, dice: Dice, combination: Combination, budget: Budget) -> bool:
        """Whether some sequence of uses could reach it, re-rolls counted as showing any face."""
        if budget.constitution > 0:
            return True  # one Constitution may re-roll all six dice into the combination
        return self.reachable(dice, combination, budget.critical_strike, budget.counterattack, budget.magic_spell)

    def reachable(self, dice: Dice, combination: Combination, critical_strike: int, counterattack: int,
                  magic_spell: int) -> bool:
        """:meth:`possible` without Constitution: some frontier cost fits these circles."""
        for cs, ca, ms in self.frontier(dice, combination):
            if cs <= critical_strike and ca <= counterattack and ms <= magic_spell:
                return True
        return False

    def cheapest(self, dice: Dice, combination: Combination, budget: Budget) -> Plan | None:
        """The certain plan crossing the fewest circles within the budget (None when there is none)."""
        best: tuple[tuple[int, int, int], Cost] | None = None
        for cost in self.frontier(dice, combination):
            cs, ca, ms = cost
            if ms or cs > budget.critical_strike or ca > budget.counterattack:
                continue
            # Among equally cheap plans keep the Abilities balanced: spend from the fuller one.
            rank = (cs + ca, -min(budget.critical_strike - cs, budget.counterattack - ca), cs)
            if best is None or rank < best[0]:
                best = (rank, cost)
        if best is None:
            return None
        cost = best[1]
        for target in combination.targets:
            moves = self._moves(dice, target, cost)
            if moves is not None:
                return Plan(tuple(moves), cost[0], cost[1])
        raise AssertionError("a frontier cost without a plan")  # the frontier is built from these paths

    def _moves(self, dice: Dice, need: Dice, cost: Cost) -> list[Move] | None:
        """Moves reaching ``need`` with exactly ``cost`` (None when this target cannot)."""
        if not need:
            return [] if cost == (0, 0, 0) else None
        if not any(p[0] <= cost[0] and p[1] <= cost[1] and p[2] <= cost[2] for p in self._frontier(dice, need)):
            return None
        y, rest_need = need[0], need[1:]
        previous = 0
        for i, x in enumerate(dice):
            if x == previous:
                continue
            previous = x
            for a, b, c in SERVE[x, y]:
                if c:
                    continue
                left = (cost[0] - a, cost[1] - b, cost[2] - c)
                if min(left) < 0:
                    continue
                rest = self._moves(dice[:i] + dice[i + 1:], rest_need, left)
                if rest is not None:
                    return _die_path(x, y, flip=bool(a)) + rest
        return None

    def success_probability(self, dice: Dice, combination: Combination, budget: Budget, ability: str,
                            faces: Dice) -> float:
        """The chance that re-rolling ``faces`` leaves the combination met or certain.

        ``ability`` is ``magic_spell`` (one circle per die) or ``constitution`` (one circle); what
        counts afterwards is only the Critical Strike and Counterattack circles left.
        """
        return self._success_after(remove(dice, faces), len(faces), combination, budget.critical_strike,
                                   budget.counterattack)

    def _success_after(self, rest: Dice, count: int, combination: Combination, critical_strike: int,
                       counterattack: int) -> float:
        """:meth:`success_probability` from the dice kept and the number re-rolled: it depends on nothing else,
        so it is worked out once (the same sum, in the same order, as a loop over :data:`OUTCOMES`)."""
        cs = min(critical_strike, self.limit)
        ca = min(counterattack, self.limit)  # no frontier cost needs more, so more than the limit is the limit
        key = (rest, combination, cs, ca, count)
        hit = self._success.get(key)
        if hit is not None:
            return hit
        tables = self._min_ca_by_code.get(combination)
        if tables is None:
            tables = self._min_ca_by_code[combination] = {}
        base = _code(rest)
        total = 0.0
        for code, p in OUTCOME_CODES[count]:
            table = tables.get(base + code)
            if table is None:
                table = tables[base + code] = self.min_counterattacks(DICE_OF_CODE[base + code], combination)
            if table[cs] <= ca:
                total += p
        self._success[key] = total
        return total

    def rerolls(self, dice: Dice, combination: Combination, budget: Budget) -> tuple[Reroll, ...]:
        """Every re-roll that could help, best chance first (cheaper first on ties)."""
        # Only these parts of the budget change the answer; more than six spells never matter.
        key = (dice, combination, min(budget.critical_strike, self.limit), min(budget.counterattack, self.limit),
               min(budget.magic_spell, len(dice)), budget.constitution > 0)
        hit = self._rerolls.get(key)
        if hit is None:
            if len(self._rerolls) >= REROLLS_CACHED:
                self._rerolls.clear()  # a long simulation would keep tens of MB more: start again instead
            hit = self._rerolls[key] = self._list_rerolls(dice, combination, budget)
        return hit

    def _list_rerolls(self, dice: Dice, combination: Combination, budget: Budget) -> tuple[Reroll, ...]:
        found: list[Reroll] = []
        constitution = budget.constitution > 0
        for faces in sub_multisets(dice):
            spell = len(faces) <= budget.magic_spell
            if not (spell or constitution):
                continue
            # The same chance whichever Ability re-rolls them: only the circles left after it count.
            p = self.success_probability(dice, combination, budget, "magic_spell", faces)
            if p > 0:
                if spell:
                    found.append(Reroll("magic_spell", faces, len(faces), p))
                if constitution:
                    found.append(Reroll("constitution", faces, 1, p))
        found.sort(key=lambda r: (-r.probability, r.circles, r.ability != "magic_spell", len(r.faces), r.faces))
        return tuple(found)

    def solve(self, dice: Dice, combination: Combination, budget: Budget, *, rerolls: bool = True) -> Report:
        """The full verdict on a position."""
        dice = tuple(sorted(dice))
        met = combination.is_met(dice)
        plan = Plan((), 0, 0) if met else self.cheapest(dice, combination, budget)
        return Report(
            dice=dice, combination=combination.notation, budget=budget, met=met,
            certain=plan is not None, possible=met or self.possible(dice, combination, budget), plan=plan,
            cheapest_cost=plan.cost if plan is not None else None,
            rerolls=self.rerolls(dice, combination, budget) if rerolls and plan is None else (),
        )


def _die_path(x: int, y: int, *, flip: bool) -> list[Move]:
    moves: list[Move] = []
    if flip:
        moves.append(Move("critical_strike", x, 7 - x))
        x = 7 - x
    step = 1 if y > x else -1
    while x != y:
        moves.append(Move("counterattack", x, x + step))
        x += step
    return moves


_SOLVERS: dict[int, Solver] = {}


def shared_solver(limit: int = 7) -> Solver:
    """One solver (and its caches) per circle limit, shared by every game built with it."""
    solver = _SOLVERS.get(limit)
    if solver is None:
        solver = _SOLVERS[limit] = Solver(limit)
    return solver


def solve(dice: Dice, combination: Combination, budget: Budget, *, limit: int = 7,
          rerolls: bool = True) -> Report:
    """Solve one position (see :class:`Report`)."""
    return shared_solver(limit).solve(dice, combination, budget, rerolls=rerolls)
