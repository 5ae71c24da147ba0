"""The knob ``random_share``: a bot that plays some of its decisions as a uniformly random
legal move, a weaker player of a known kind (an analysis must find its random moves:
docs/results.md, "Analysis").

>>> import tigris
>>> from tigris import bots
>>> bot = bots.make("greedy", random_share=0.5, seed=3)
>>> game = tigris.Game(players=2, seed=1)
>>> game.is_legal(bot.choose(game)), isinstance(bot.last_random, bool)
(True, True)

Each decision with more than one legal move is random with the probability
``random_share``, drawn from a stream of the bot's seed of its own, so the draws do not
depend on the bot's other knobs or on what its search drew; a decision with one legal
move is never random.  ``last_random`` says whether the bot's last decision was one: the
bot's own knowledge of its move, which shows nothing of any hand.
"""

import random

__all__ = ["RandomMoves"]


class RandomMoves:
    """What every bot that decides for itself shares: ``random_move(game, legal)`` before
    it decides (see the module), and ``last_random``."""

    last_random = False

    def random_moves(self, share, seed):
        """Play the share `share` of the decisions at random, drawn from `seed`'s stream."""
        self.random_share = share
        self.random_draws = random.Random(f"random_share {seed}")
        self.last_random = False

    def random_move(self, game, legal):
        """A uniformly random action of `legal` (the decision's legal moves) with the
        probability ``random_share`` when there is a choice, else None: the bot decides."""
        self.last_random = (self.random_share > 0 and len(legal) > 1
                            and self.random_draws.random() < self.random_share)
        return self.random_draws.choice(legal) if self.last_random else None
