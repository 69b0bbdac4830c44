"""Kuhn poker: the sample engine with chance and hidden information, replaying OpenSpiel's record."""

from . import narrate
from .game import BOOK_ID, KuhnPoker

make_game = KuhnPoker  # make_game(components, options) -> the game
__all__ = ["BOOK_ID", "KuhnPoker", "make_game", "narrate"]
