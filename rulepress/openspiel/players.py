"""Competent players for any book, with no policy code: OpenSpiel's MCTS and IS-MCTS at named strengths.

A player is named ``KIND:SIMULATIONS``: ``mcts:50``, ``mcts:400`` (Monte Carlo tree search over the whole state, for a
game whose seats see everything) or ``ismcts:400`` (information-set MCTS, searching over the states the seat cannot
tell apart, drawn by the observer's ``resample``).  Both evaluate a leaf by one random playout, and sample chance from
the engine's own outcomes (the adapter's chance nodes).  ``KIND:SIMULATIONS+POLICY`` (``ismcts:50+cooperative``)
plays its playouts with one of the book's own policies instead: in a game that random play always loses, a random
playout tells one move from another by nothing.  ``ismcts`` for a book without an observer falls back to
``mcts`` (nothing is hidden); ``mcts`` for a book with hidden information searches the true state: it sees what its
seat could not (:func:`describe` says so).

:func:`policy` gives a player as a rulepress policy, ``(game, state, rng) -> action`` on the engine's own states,
so that ``rulepress analyze`` plays it as it plays a book's own policies: the search's random numbers come from the
``rng`` the game gives it, so the same seed plays the same game in any process.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from rulepress.openspiel.game import RulepressGame, adopt, load
from rulepress.openspiel.kind import returns
from rulepress.protocol import Chance, Game, observer_of

Policy = Callable[[Game, Any, random.Random], Any]

KINDS = ("mcts", "ismcts")
NAME = re.compile(r"(mcts|ismcts):([1-9][0-9]{0,5})(?:\+([A-Za-z_][A-Za-z0-9_-]*))?")
UCT_C = 2.0  # OpenSpiel's examples' exploration constant for returns in [-1, 1]


@dataclass(frozen=True)
class Searcher:
    """A named strength: the kind of search and its simulations per decision."""

    kind: str
    simulations: int
    rollout: str | None = None  # a book policy that plays the playouts (None: random)

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.simulations}" + (f"+{self.rollout}" if self.rollout else "")


def parse(name: str) -> Searcher | None:
    """``mcts:400`` -> the searcher; None for a name that is not one (``random``, a book's own policy)."""
    found = NAME.fullmatch(name)
    return Searcher(found.group(1), int(found.group(2)), found.group(3)) if found else None


def effective(searcher: Searcher, game: Game) -> Searcher:
    """The search a book gets: IS-MCTS needs an observer to draw what a seat cannot see; without one, MCTS."""
    if searcher.kind == "ismcts" and observer_of(game) is None:
        return Searcher("mcts", searcher.simulations, searcher.rollout)
    return searcher


def describe(searcher: Searcher, game: Game) -> str:
    """What the player is, in a sentence a report prints."""
    used = effective(searcher, game)
    if used != searcher:
        return (f"{searcher.name}: the book has no observer (nothing is hidden), so perfect-information "
                f"{used.name} plays")
    if used.kind == "mcts" and observer_of(game) is not None:
        return f"{used.name}: perfect-information search, which sees what its seat could not (hidden cards, bags)"
    what = "information-set search over what the seat cannot see" if used.kind == "ismcts" else "tree search"
    playouts = f", playouts by the book's policy '{used.rollout}'" if used.rollout else ""
    return f"{used.name}: {what}, {used.simulations} simulations a decision{playouts}"


class PolicyPlayout(mcts.Evaluator):  # type: ignore[misc]
    """A leaf's value: one playout to the end by a book's policy, chance drawn from a seed the search gives."""

    def __init__(self, game: RulepressGame, rollout: Policy, rng: np.random.RandomState) -> None:
        self.game, self.rollout, self.rng = game, rollout, rng

    def evaluate(self, state: Any) -> Any:
        working = state.clone()
        while working.is_chance_node():
            outcomes, chances = zip(*working.chance_outcomes(), strict=True)
            working.apply_action(int(self.rng.choice(outcomes, p=chances)))
        if working.is_terminal():
            return np.array(working.returns())
        engine = self.game.shared.engine
        native = engine.clone(working.native())
        seed = int(self.rng.randint(1 << 31))
        if getattr(native, "chance", None) is not None:
            drawn = native.chance._log
            native.chance = Chance(seed)  # a playout draws from a seed, not from chance nodes
            native.chance._log = list(drawn)
        pick = random.Random(seed)
        played = 0
        while not engine.is_terminal(native) and played < MAX_PLAYOUT:
            engine.apply(native, self.rollout(engine, native, pick))
            played += 1
        return np.array(returns(self.game.shared.kind, engine.result(native), self.game.shared.players))

    def prior(self, state: Any) -> list[tuple[int, float]]:
        """Half the prior on the move the book's policy would make, the rest spread evenly: the search (PUCT) tries
        the policy's move first and leaves it only for one its playouts show better."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        engine, native = self.game.shared.engine, state.native()
        twin = engine.clone(native)
        if getattr(twin, "chance", None) is not None:
            drawn = twin.chance._log
            twin.chance = Chance(int(self.rng.randint(1 << 31)))
            twin.chance._log = list(drawn)
        wanted = self.rollout(engine, twin, random.Random(int(self.rng.randint(1 << 31))))
        even = 0.5 / len(legal)
        return [(action, even + (0.5 if state.engine_action(action) == wanted else 0.0)) for action in legal]


MAX_PLAYOUT = 100_000


def _bot(game: RulepressGame, searcher: Searcher, seed: int, rollout: Policy | None = None) -> Any:
    rng = np.random.RandomState(seed % (1 << 32))
    evaluator = (PolicyPlayout(game, rollout, rng) if rollout is not None
                 else mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng))
    if searcher.kind == "ismcts":
        selection = ismcts.ChildSelectionPolicy.PUCT if rollout is not None else ismcts.ChildSelectionPolicy.UCT
        bot = ismcts.ISMCTSBot(game, evaluator, UCT_C, searcher.simulations, random_state=rng,
                               final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                               use_observation_string=False, allow_inconsistent_action_sets=True,
                               child_selection_policy=selection)
        # The worlds it searches drawn from its own seeded numbers (OpenSpiel's default sampler is seeded anew).
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng.uniform))
        return bot
    selection = mcts.SearchNode.puct_value if rollout is not None else mcts.SearchNode.uct_value
    return mcts.MCTSBot(game, UCT_C, searcher.simulations, evaluator, solve=False, random_state=rng,
                        child_selection_fn=selection)


def choose(game: RulepressGame, native: Any, searcher: Searcher, seed: int, rollout: Policy | None = None) -> Any:
    """The engine action ``searcher`` chooses in ``native`` (an engine state), its search seeded with ``seed``
    (``rollout``: the book policy its playouts use, None for random playouts)."""
    state = adopt(game, native)
    legal = state.legal_actions()
    if len(legal) == 1:
        return state.engine_action(legal[0])
    bot = _bot(game, searcher, seed, rollout)
    return state.engine_action(bot.step(state))


def policy(name: str, counts: tuple[int, int] | None = None, policies: Mapping[str, Policy] | None = None) -> Policy:
    """The player ``name`` (``mcts:50``) as a rulepress policy; ``counts``: the book's fewest and most players."""
    searcher = parse(name)
    if searcher is None:
        raise ValueError(f"{name!r} is not a player (players: mcts:N, ismcts:N)")
    rollout = None
    if searcher.rollout is not None:
        if not policies or searcher.rollout not in policies:
            raise ValueError(f"{name!r}: the book has no policy {searcher.rollout!r} to play the playouts")
        rollout = policies[searcher.rollout]
    games: dict[tuple[int, int], RulepressGame] = {}

    def play(game: Game, state: Any, rng: random.Random) -> Any:
        seats = len(getattr(state, "players", ()) or ()) or (counts or (1, 1))[0]
        key = (id(game), seats)
        if key not in games:
            games[key] = load(game, seats, counts)
        return choose(games[key], state, effective(searcher, game), rng.getrandbits(32), rollout)

    return play


def names(given: Sequence[str]) -> list[Searcher]:
    return [s for s in (parse(name) for name in given) if s is not None]
