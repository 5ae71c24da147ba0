"""The evaluator: rewards for a position, priors for actions, and the win chance.

What the search knows of Tigris & Euphrates beyond its rules, apart from the tree search
(as OpenSpiel keeps its Evaluator apart from MCTS).  Every number it weighs with is a
knob (``tigris.knobs.WEIGHTS``: default, range and meaning in the table); ``Evaluator``
takes those given by name, checked there, the others at their defaults.  The evaluation
itself is compiled (``tigris._eval``).

>>> import tigris
>>> from tigris.evaluator import Evaluator
>>> g = tigris.Game(players=2, seed=7)
>>> Evaluator().rewards(g)                      # even at the start
[0.5, 0.5]
>>> Evaluator(prior_pass=2.0).prior(g, g.parse_action("pass"))
2.0
"""


from tigris import _eval
from tigris._eval import set_calibration
from tigris.knobs import check_weights

__all__ = ["Evaluator", "set_calibration"]


class Evaluator(_eval.Evaluator):
    """The evaluation with these weights (the others at their defaults; see
    ``tigris.knobs``):

    >>> import tigris
    >>> from tigris.evaluator import Evaluator
    >>> ev = Evaluator(eval_leader=0.5)
    >>> game = tigris.Game(players=2, seed=7)
    >>> [0 <= r <= 1 for r in ev.rewards(game)]         # one reward per player
    [True, True]
    >>> ev.prior(game, game.parse_action("leader king F9")) > ev.prior(game, game.parse_action("pass"))
    True
    >>> ev.weights["eval_leader"]                       # every weight: name -> value
    0.5
    """

    def __init__(self, **weights: float) -> None:
        super().__init__(check_weights(weights))
