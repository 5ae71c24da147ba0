"""tigris: a Monte Carlo tree search toolkit for Tigris & Euphrates.

>>> import tigris
>>> g = tigris.Game(players=2, seed=7)
>>> g.decision, g.current_player
('action', 0)
"""

# The one version number (tigris._plumbing.release: the package metadata reads it there).
from tigris._plumbing.release import VERSION
from tigris.errors import IllegalActionError, PositionError, RecordError
from tigris._game import Game
from tigris.hints import hint

__version__ = VERSION

__all__ = ["Game", "IllegalActionError", "PositionError", "RecordError", "hint"]
