"""The search: single-observer ISMCTS over the information set of the player to move.

``Search`` grows one tree in steps; ``run`` searches a decision in one go.  Its knobs are
rows of the table in ``tigris.knobs`` (``SEARCH_CONFIG``): those given by name are checked
there, the others take the table's defaults, which are the bots' (greedy rollouts,
progressive widening).  ``PLAIN`` names the plain configuration: uniformly random
rollouts and no widening.  The tree itself is compiled (``tigris._search``).

>>> import tigris
>>> from tigris.search import PLAIN, Search, run
>>> game = tigris.Game(players=2, seed=7)
>>> s = Search(game, exploration=0.7, rollout_depth=10, seed=1, **PLAIN)
>>> s.step(iterations=500)
500
>>> s.step(seconds=0.05) > 0
True
>>> stats = s.stats()
>>> stats["iterations"] == s.iterations, game.is_legal(stats["best"])
(True, True)
>>> game.is_legal(run(game, iterations=200, seed=2)["best"])
True
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tigris import _search
from tigris._game import Game
from tigris._search import MAX_DEALS, choose, deal_row
from tigris.knobs import MAX_ITERATIONS, MAX_ROLLOUT_DEPTH, search_config

__all__ = ["Search", "Config", "configure", "run", "choose", "deal_row", "PLAIN", "MAX_ITERATIONS",
           "MAX_ROLLOUT_DEPTH", "MAX_DEALS"]

#: The plain configuration: uniformly random rollouts, no progressive widening (the
#: other knobs at the table's defaults).  The benchmarks and the tests search with it.
PLAIN = {"rollout": "random", "epsilon": 0.1, "widening": 0.0}


@dataclass(frozen=True)
class Config:
    """The search's knobs, every one of ``SEARCH_CONFIG`` checked (``configure``): what a
    bot checks once and each of its trees takes as it is (``items``: (knob, value) pairs,
    as a worker process receives them)."""

    items: tuple[tuple[str, Any], ...]

    @property
    def knobs(self) -> dict[str, Any]:
        """The knobs by name (a new dict)."""
        return dict(self.items)


def configure(knobs: dict[str, Any]) -> Config:
    """The Config of these knobs (``search_config``: those given checked, the rest at their
    defaults); a ValueError names an unknown or bad one."""
    return Config(tuple(search_config(knobs).items()))


class Search(_search.Search):
    """A search tree over the information set of the player to move in `game`, grown in
    steps so callers can show progress (see the module's example).

    Knobs by name (``tigris.knobs.SEARCH_CONFIG``, the evaluator's weights among them),
    each checked by the table, which gives its range or choices and meaning; the others
    at the table's defaults.  Anything else raises a ValueError naming the knob.
    ``root="halving"`` shares out the tree's whole budget in phases: ``plan_iterations``
    or ``plan_seconds``, else the first step's budget.

    ``seed`` is any int, of which the low 64 bits are used (seeds equal modulo 2**64
    search alike); ``determinize`` False searches the state as given (the perfect-
    information baselines); ``deals`` are a belief's (``tigris.belief.Belief.deals``);
    ``only`` holds the root to some of its legal actions (an analysis searches the move
    played alone this way).  ``evaluator="net"`` judges the rollouts' ends by a learned
    evaluation (``tigris.network``; ``network`` names its file, the one shipped for the game's
    number of players if empty).
    A tree takes at most MAX_ITERATIONS iterations in all.

    Attributes: ``player`` (the searching player, to move at the root), ``iterations``
    (run in all steps) and ``final`` (how ``stats()`` picks ``best``: "visits" or "value").
    """

    def __init__(self, game: Game, *, seed: int = 0, plan_iterations: int = 0, plan_seconds: float = 0.0,
                 determinize: bool = True,
                 deals: tuple[Iterable[Sequence[int]], Iterable[float]] | None = None,
                 only: Iterable[int] | None = None, config: Config | None = None,
                 net: Any = None, **knobs: Any) -> None:
        """`config`, if given, holds the knobs checked (``configure``, none then given by
        name), and `net` the network its ``evaluator = "net"`` reads for this game (looked
        up by the caller, once); else the knobs are checked here and the network looked
        up."""
        if config is None:
            config = configure(knobs)
        elif knobs:
            raise TypeError(f"knobs by name ({', '.join(knobs)}) or a checked config, not both")
        knobs = config.knobs
        if net is None and knobs["evaluator"] == "net":
            from tigris.network import from_knobs      # numpy: only when a search is made

            net = from_knobs("net", knobs["network"], game.players)
        super().__init__(game, knobs, seed=seed, plan_iterations=plan_iterations,
                         plan_seconds=plan_seconds, determinize=determinize, deals=deals, only=only,
                         net=net)


def run(game: Game, *, iterations: int = 0, seconds: float = 0.0, **options: Any) -> dict[str, Any]:
    """Search the decision of `game` for its current player in one go: the root
    statistics (``Search.stats``); `options` as ``Search`` takes them."""
    s = Search(game, **options)
    s.step(iterations, seconds)
    return s.stats()
