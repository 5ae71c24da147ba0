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
from tigris import _game, legality, position, render
from tigris._game import Game
from tigris.hint import hint

# The compiled Game sits below the modules that read it; they give it its text forms here,
# so that no import points from the bottom layer upwards.
_game.attach(to_position=position.to_position, from_position=position.from_position,
             render=render.render, why_illegal=legality.why_illegal)

__all__ = ["Game", "IllegalActionError", "PositionError", "RecordError", "hint"]
