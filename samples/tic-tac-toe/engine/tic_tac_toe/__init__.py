"""Tic-tac-toe: the sample engine on rulepress.basegame (rulepress guide engine), replaying OpenSpiel's record.

``ENGINE`` is its one declaration (rulepress guide engine, "The package"): OpenSpiel's ``tic_tac_toe`` game type.
"""

from rulepress.protocol import EngineSpec

from .game import BOOK_ID, TicTacToe

ENGINE = EngineSpec(
    book_id=BOOK_ID,
    make_game=TicTacToe,  # TicTacToe(components, options) is the game
    min_num_players=2,
    max_num_players=2,
    chance_mode="deterministic",
    information="perfect_information",
    utility="zero_sum",
)
__all__ = ["ENGINE", "TicTacToe"]
