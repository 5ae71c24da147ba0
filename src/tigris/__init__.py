"""tigris: a Monte Carlo tree search toolkit for Tigris & Euphrates.

>>> import tigris
>>> g = tigris.Game(players=2, seed=7)
>>> g.decision, g.current_player
('action', 0)
"""

# The one version number: the package metadata reads it from here (pyproject.toml),
# ``tigris --version`` prints it, CHANGELOG.md says what each version added.
__version__ = "2.0.0"

from tigris.errors import IllegalActionError, PositionError, RecordError
from tigris._game import Game
from tigris.hints import hint

__all__ = ["Game", "IllegalActionError", "PositionError", "RecordError", "hint"]
