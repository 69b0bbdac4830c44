"""The rules of rules_src/kuhn-poker/: the deal, one round of betting, a fold or a showdown; and the diagram.

Written on rulepress.basegame (rulepress guide engine) with chance (the deal, drawn from the state's Chance, so an
example fixes it with ``start.chance``) and an observer (observer.py: each player sees only their own card).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rulepress.basegame import PAPER, BaseGame, Figure, Move, cmyk, shape, text
from rulepress.protocol import HIDDEN, PUBLIC, Chance, DescriptionError, Event, RuleViolation

from .observer import KuhnObserver

BOOK_ID = "kuhn-poker"
PASS, BET = "p", "b"  # OpenSpiel's letters for the betting history ("pb": a pass, then a bet)
CARD_BACK, CHIP = cmyk(90, 60, 0, 20), cmyk(0, 30, 95, 0)  # the diagram's palette, in CMYK percentages


@dataclass
class State:
    players: list[str]
    chance: Chance | None
    cards: dict[str, str] = field(default_factory=dict)  # each player's card
    aside: str | None = None  # the card set aside, face down
    history: list[str] = field(default_factory=list)  # PASS and BET, in order
    stakes: dict[str, int] = field(default_factory=dict)  # what each player has put in the pot
    winner: str | None = None
    shown: bool = False  # a showdown turned both cards face up
    log: list[Event] = field(default_factory=list)  # what the deal did, reported with the first action

    @property
    def current(self) -> str | None:
        return None if self.winner else self.players[len(self.history) % 2]

    def clone(self) -> State:
        return State(list(self.players), self.chance.clone() if self.chance else None, dict(self.cards), self.aside,
                     list(self.history), dict(self.stakes), self.winner, self.shown, list(self.log))


class KuhnPoker(BaseGame):
    book_id = BOOK_ID
    PLAYERS_RULE, STATE_KEYS = "kp.play.players", ("cards", "bets")
    ACTIONS = {"pass": {}, "bet": {}}
    OBSERVER = KuhnObserver
    HEIGHT = 250

    def __init__(self, components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> None:
        super().__init__(components, options)
        self.deck: list[str] = [str(card) for card in components["deck"]["cards"]]  # lowest first
        self.ante, self.bet = int(components["chips"]["ante"]), int(components["chips"]["bet"])

    # --- setting up --------------------------------------------------------------------------------

    def check_outcomes(self, outcomes: Sequence[Any], path: str = "chance") -> None:
        super().check_outcomes(outcomes, path)
        for outcome in outcomes:
            if outcome not in self.deck:
                raise DescriptionError(path, f"unknown card {outcome!r} (cards: {', '.join(self.deck)})")

    def start(self, players: list[str], chance: Chance | None) -> State:
        """Each player stakes the ante, then is dealt a card from what is left, first player first (OpenSpiel's
        two chance nodes: 3 outcomes, then 2); the last card is set aside."""
        assert chance is not None  # CHANCE is True: the base seeds one
        state = State(players, chance, stakes={player: self.ante for player in players})
        left = list(self.deck)
        for player in players:
            state.log.append(Event("stake", "kp.play.deal", {"player": player, "chips": self.ante}))
        for player in players:
            card = state.cards[player] = chance.draw_from(left, "card")
            left.remove(card)
            state.log.append(Event("deal", "kp.play.deal.hidden", {"player": player, "card": card}))
        state.aside = left[0]
        return state

    def describe(self, description: Mapping[str, Any], players: list[str], chance: Chance | None) -> State:
        """``{cards: {Ann: Jack, Ben: King}, bets: pb}``: the dealt cards and the betting so far (OpenSpiel's
        letters: p a pass, b a bet)."""
        cards, bets = description.get("cards"), description.get("bets", "")
        if not isinstance(cards, Mapping) or sorted(cards) != sorted(players) or len(set(cards.values())) != 2 \
                or not set(cards.values()) <= set(self.deck):
            raise DescriptionError("start.state.cards", f"cards names a different card of {', '.join(self.deck)} "
                                                        f"for each of {', '.join(players)}")
        if not isinstance(bets, str) or set(bets) - {PASS, BET}:
            raise DescriptionError("start.state.bets", "bets is the betting so far: p for a pass, b for a bet")
        state = State(players, chance, dict(cards), next(c for c in self.deck if c not in cards.values()),
                      stakes={player: self.ante for player in players})
        for letter in bets:
            move = Move.of(str(state.current), "pass" if letter == PASS else "bet")
            try:
                self.check(state, move)
            except RuleViolation as exc:
                raise DescriptionError("start.state.bets", f"the betting {bets!r} goes on after the hand has "
                                                           f"ended", exc.rule) from exc
            self.perform(state, move)
        state.log = []
        return state

    # --- playing -----------------------------------------------------------------------------------

    def moves(self, state: State) -> list[Move]:
        return [] if state.winner else [Move.of(str(state.current), do) for do in self.ACTIONS]

    def is_terminal(self, state: State) -> bool:
        return state.winner is not None

    def check(self, state: State, move: Move) -> None:
        if state.winner:
            raise RuleViolation("kp.end", f"the hand is over: {state.winner} has taken the pot")
        if move.player != state.current:
            raise RuleViolation("kp.bet.turn", f"it is {state.current}'s turn, not {move.player}'s")

    def perform(self, state: State, move: Move) -> list[Event]:
        events, state.log = state.log, []
        facing = BET in state.history  # a bet to answer: a pass folds, a bet calls
        state.history.append(PASS if move.do == "pass" else BET)
        if move.do == "bet":
            state.stakes[move.player] += self.bet
        events.append(Event(move.do, "kp.bet.actions", {"player": move.player, "answers_bet": facing}))
        other = state.players[1 - state.players.index(move.player)]
        if facing and move.do == "pass":
            state.winner = other
            events.append(Event("fold", "kp.end.fold", {"player": move.player, "winner": other}))
        elif facing or state.history == [PASS, PASS]:
            state.shown = True
            state.winner = max(state.players, key=lambda player: self.deck.index(state.cards[player]))
            events.append(Event("showdown", "kp.end.showdown", {"cards": dict(state.cards), "winner": state.winner}))
        if state.winner:
            won = self.returns(state)[state.winner]
            events.append(Event("winnings", "kp.end.winnings", {"winner": state.winner, "chips": won}))
        return events

    def returns(self, state: State) -> dict[str, int]:
        """What each player gains or loses (OpenSpiel's Returns): the winner gains what the loser put in."""
        if not state.winner:
            return {player: 0 for player in state.players}
        return {player: -state.stakes[player] if player != state.winner else
                sum(state.stakes.values()) - state.stakes[player] for player in state.players}

    # --- looking -----------------------------------------------------------------------------------

    def snapshot(self, state: State) -> dict[str, Any]:
        return {"cards": dict(state.cards), "set_aside": state.aside, "stakes": dict(state.stakes),
                "pot": sum(state.stakes.values()), "bets": "".join(state.history), "current": state.current,
                "over": state.winner is not None, "winner": state.winner, "shown": state.shown,
                "returns": self.returns(state)}

    def result(self, state: State) -> dict[str, Any]:
        returns = self.returns(state)
        return {"over": state.winner is not None, "winner": state.winner, "showdown": state.shown,
                "returns": [returns[player] for player in state.players]}

    def draw(self, state: State, seat: str | None = None) -> Figure:
        """Both hands (a card its seat cannot see face down), the pot and the betting; ``seat`` None: all face up."""
        seen = self.observer.view(state, seat) if seat is not None and self.observer else self.snapshot(state)
        status = (f"{state.winner} takes the pot" if state.winner else f"{state.current} to act")
        parts = [text(self.WIDTH / 2, 22, status, 14, weight="bold")]
        for number, player in enumerate(state.players):
            x = 40 + number * 300
            parts += [text(x + 50, 52, player, 12, weight="bold"),
                      text(x + 50, 208, f"staked {state.stakes[player]}", 11)]
            parts += _card(x + 15, 62, seen["cards"][player])
        parts += _card(215, 96, seen["set_aside"], small=True) + [text(240, 172, "set aside", 10)]
        pot = sum(state.stakes.values())
        parts += [shape("circle", fill=CHIP, cx=240, cy=200, r=12), text(240, 204, str(pot), 11, weight="bold"),
                  text(240, 228, f"pot: {pot} chips", 11)]
        said = {(PASS, False): "passed", (BET, False): "bet", (PASS, True): "folded", (BET, True): "called"}
        betting = ", ".join(f"{state.players[i % 2]} {said[letter, BET in state.history[:i]]}"
                            for i, letter in enumerate(state.history))
        parts.append(text(self.WIDTH / 2, 244, f"Betting: {betting or 'none yet'}", 10))
        who = "everyone" if seat == PUBLIC else seat
        desc = (f"{status}. " + "; ".join(f"{player}: {card}" for player, card in seen["cards"].items())
                + f". Pot {pot}." + (f" Drawn as {who} sees the table." if seat is not None else ""))
        return Figure(parts, self.HEIGHT, desc)


def _card(x: float, y: float, name: str, small: bool = False) -> list[str]:
    """A card: its name face up, or its back when the seat cannot see it (``hidden``)."""
    width, height = (50, 70) if small else (70, 100)
    if name == HIDDEN:  # its back: a small one (the card set aside) is labelled below it
        return [shape("rect", fill=CARD_BACK, x=x, y=y, width=width, height=height, rx=6),
                *([] if small else [text(x + width / 2, y + height / 2 + 4, "face down", 10, fill=PAPER)])]
    return [shape("rect", fill=PAPER, x=x, y=y, width=width, height=height, rx=6),
            text(x + width / 2, y + height / 2 + 5, name, 12 if small else 14, weight="bold")]
