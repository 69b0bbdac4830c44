"""Every book as an OpenSpiel game (``pip install rulepress[openspiel]``), and competent players from OpenSpiel.

:func:`load` turns an engine (a :class:`rulepress.protocol.Game`) into a ``pyspiel.Game`` registered with OpenSpiel
(:mod:`rulepress.openspiel.game`), so that OpenSpiel's algorithms (CFR, MCTS, IS-MCTS, exploitability) run on any
book unchanged; :mod:`rulepress.openspiel.players` makes players of named strengths (``mcts:400``) from them.

Nothing imports this package unless OpenSpiel is asked for: ``pyspiel`` is an optional extra.
"""

from __future__ import annotations

from rulepress.openspiel.game import RulepressGame, RulepressState, load, register, short_name

__all__ = ["RulepressGame", "RulepressState", "load", "register", "short_name"]
