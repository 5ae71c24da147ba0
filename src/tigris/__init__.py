"""tigris: a Monte Carlo tree search toolkit for Tigris & Euphrates.

>>> import tigris
>>> g = tigris.Game(players=2, seed=7)
>>> g.decision, g.current_player
('action', 0)
"""

from tigris.errors import IllegalActionError, PositionError, RecordError
from tigris._game import Game
from tigris.hint import hint

__all__ = ["Game", "IllegalActionError", "PositionError", "RecordError", "hint"]
