"""Kuhn poker: the sample engine with chance and hidden information, replaying OpenSpiel's record.

``ENGINE`` is its one declaration (rulepress guide engine, "The package"): OpenSpiel's ``kuhn_poker`` game type.
"""

from rulepress.protocol import EngineSpec

from . import narrate
from .game import BOOK_ID, KuhnPoker

ENGINE = EngineSpec(
    book_id=BOOK_ID,
    make_game=KuhnPoker,  # KuhnPoker(components, options) is the game
    min_num_players=2,
    max_num_players=2,
    chance_mode="explicit_stochastic",  # the deal, drawn through the state's Chance
    information="imperfect_information",  # each player sees only their own card (observer.py)
    utility="zero_sum",  # what one wins the other loses
    narration=narrate,
    notation=narrate.NOTATION,
)
__all__ = ["ENGINE", "KuhnPoker"]
