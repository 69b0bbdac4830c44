"""The rules of rules_src/tic-tac-toe/: marking squares, three in a row, a full grid; and the diagram."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rulepress.basegame import BaseGame, Box, Figure, Move, cmyk, shape, text
from rulepress.protocol import Chance, DescriptionError, Event, RuleViolation

BOOK_ID = "tic-tac-toe"
MARKS = ("x", "o")  # the first player listed marks x and starts (OpenSpiel's player 0)
CROSS, NOUGHT, CELL, TOP = cmyk(0, 80, 95, 0), cmyk(90, 45, 0, 0), 100, 36  # the diagram's palette (CMYK), sizes


@dataclass
class State:
    players: list[str]
    marks: dict[str, str] = field(default_factory=dict)  # square -> "x" or "o"
    line: list[str] = field(default_factory=list)  # the winning line, once there is one
    current = property(lambda self: self.players[len(self.marks) % 2])  # whose turn it is
    winner = property(lambda self: self.players[MARKS.index(self.marks[self.line[0]])] if self.line else None)


class TicTacToe(BaseGame):
    book_id = BOOK_ID
    PLAYERS_RULE, STATE_KEYS, CHANCE = "ttt.play.players", ("grid",), False  # no chance: none is seeded

    def __init__(self, components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> None:
        super().__init__(components, options)
        size = int(components["grid"]["size"])
        self.rows = [[f"{chr(ord('a') + c)}{r + 1}" for c in range(size)] for r in range(size)]
        self.squares = [square for row in self.rows for square in row]
        diagonals = [[row[i] for i, row in enumerate(self.rows)], [row[-1 - i] for i, row in enumerate(self.rows)]]
        self.lines = self.rows + [list(column) for column in zip(*self.rows, strict=True)] + diagonals
        self.through = {square: [line for line in self.lines if square in line] for square in self.squares}
        self.ACTIONS, self.HEIGHT = {"mark": {"square": self.squares}}, TOP + CELL * size + 14

    def start(self, players: list[str], chance: Chance | None) -> State:  # CHANCE is False: None
        return State(players)

    def describe(self, description: Mapping[str, Any], players: list[str], chance: Chance | None) -> State:
        """``{grid: ["x..", ".o.", "..."]}``: rows top to bottom as OpenSpiel prints them, "." for empty."""
        grid, size = description.get("grid"), len(self.rows)
        if not (isinstance(grid, list) and len(grid) == size and all(
                isinstance(row, str) and len(row) == size and not set(row) - {"x", "o", "."} for row in grid)):
            raise DescriptionError("start.state.grid", f"the grid is {size} rows of {size} characters: x, o or .")
        state = State(players, {sq: c for row, got in zip(self.rows, grid, strict=True)
                                for sq, c in zip(row, got, strict=True) if c != "."})
        crosses, noughts = (list(state.marks.values()).count(mark) for mark in MARKS)
        if crosses - noughts not in (0, 1):
            raise DescriptionError("start.state.grid", f"x starts, so x has as many marks as o or one more "
                                                       f"(x {crosses}, o {noughts})", "ttt.play.turn")
        state.line = self.winning_line(state, self.lines)
        return state

    def winning_line(self, state: State, lines: list[list[str]]) -> list[str]:
        # An empty square stands for itself, so one value in the set means one mark all along the line.
        return next((line for line in lines if len({state.marks.get(sq, sq) for sq in line}) == 1), [])

    def moves(self, state: State) -> list[Move]:  # the empty squares: check() still decides
        return [Move.of(state.current, "mark", square=sq) for sq in self.squares if sq not in state.marks]

    def is_terminal(self, state: State) -> bool:  # a line, or a full grid (faster than "no legal move")
        return bool(state.line) or len(state.marks) == len(self.squares)

    def check(self, state: State, move: Move) -> None:
        if state.line or len(state.marks) == len(self.squares):  # the game is over
            why = f"{state.winner} has won" if state.line else "the grid is full"
            raise RuleViolation("ttt.play.win" if state.line else "ttt.play.draw", f"the game is over: {why}")
        if move.player != state.current:
            raise RuleViolation("ttt.play.turn", f"it is {state.current}'s turn, not {move.player}'s")
        if move["square"] in state.marks:
            raise RuleViolation("ttt.play.empty", f"{move['square']} is already marked")

    def perform(self, state: State, move: Move) -> list[Event]:
        mark, square = MARKS[len(state.marks) % 2], move["square"]  # check() made sure it is the mover's turn
        state.marks[square] = mark
        events = [Event("mark", "ttt.play.turn", {"player": move.player, "mark": mark, "square": square})]
        state.line = self.winning_line(state, self.through[square])  # only a line through the new mark can be new
        if state.line:
            events.append(Event("win", "ttt.play.win", {"player": move.player, "line": list(state.line)}))
        elif len(state.marks) == len(self.squares):
            events.append(Event("draw", "ttt.play.draw", {}))
        return events

    def snapshot(self, state: State) -> dict[str, Any]:
        return {"grid": ["".join(state.marks.get(square, ".") for square in row) for row in self.rows],
                "turn": None if self.is_terminal(state) else state.current, "marks": len(state.marks),
                "winner": state.winner, "line": list(state.line)}

    def result(self, state: State) -> dict[str, Any]:
        winner = state.winner
        returns = [0, 0] if winner is None else [1 if player == winner else -1 for player in state.players]
        return {"winner": winner, "draw": winner is None and self.is_terminal(state), "returns": returns}

    def draw(self, state: State) -> Figure:  # a square (grid.1.0, its row and column; b2) is where marks go
        left, d, winner = (self.WIDTH - CELL * len(self.rows)) / 2, CELL * 0.28, state.winner
        status = f"{winner} wins" if winner else "A draw" if self.is_terminal(state) else f"{state.current} to play"
        parts, places = [text(self.WIDTH / 2, 22, status, 14, weight="bold")], {}
        for r, row in enumerate(self.rows):
            for c, square in enumerate(row):
                box = places[f"grid.{r}.{c}"] = places[square] = Box(left + c * CELL, TOP + r * CELL, CELL, CELL)
                (x, y), (cx, cy) = (box.x, box.y), box.centre
                parts += [shape("rect", x=x, y=y, width=CELL, height=CELL), text(x + 6, y + 16, square, 10, "start")]
                if state.marks.get(square) == "x":
                    path = f"M{cx - d},{cy - d}L{cx + d},{cy + d}M{cx - d},{cy + d}L{cx + d},{cy - d}"
                    parts.append(shape("path", stroke=CROSS, line_width=8, d=path))
                elif state.marks.get(square) == "o":
                    parts.append(shape("circle", stroke=NOUGHT, line_width=8, cx=cx, cy=cy, r=d))
        if state.line:
            (x1, y1), (x2, y2) = (places[square].centre for square in (state.line[0], state.line[-1]))
            parts.append(shape("line", line_width=4, x1=x1, y1=y1, x2=x2, y2=y2))
        return Figure(parts, places=places)
