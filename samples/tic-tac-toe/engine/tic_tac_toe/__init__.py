"""Tic-tac-toe: the sample engine on rulepress.basegame (docs/ENGINE.md), replaying OpenSpiel's record."""

from .game import BOOK_ID, TicTacToe

make_game = TicTacToe  # make_game(components, options) -> the game
__all__ = ["BOOK_ID", "TicTacToe", "make_game"]
