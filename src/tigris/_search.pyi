"""Type information for the compiled search (cython_core/tigris/_search.pyx): ``Search``, a tree
grown in steps, and the helpers around it.  Bots (``tigris.bots``) and hints
(``tigris.hint()``) are the usual way in."""

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from typing_extensions import disjoint_base

from tigris._eval import check_weights as check_weights
from tigris._game import Game
from tigris.errors import IllegalActionError as IllegalActionError

MAX_ITERATIONS: int
MAX_ROLLOUT_DEPTH: int
MAX_DEALS: int

#: One child of the root in ``Search.stats()["children"]``: action, visits, avail,
#: value (mean reward of the searching player) and pv (a list of (action, player)).
_Child = dict[str, Any]

@disjoint_base
class Search:
    player: int
    iterations: int
    final: str
    def __init__(self, game: Game, *, exploration: float = 0.7,
                 rollout: Literal["random", "greedy"] = "random", epsilon: float = 0.1,
                 rollout_depth: int = 10, final: Literal["visits", "value"] = "visits",
                 widening: float = 0.0, root: Literal["ucb", "halving"] = "ucb",
                 candidates: int = 16, halving_scale: float = 0.1, plan_iterations: int = 0,
                 plan_seconds: float = 0.0, determinize: bool = True,
                 deals: tuple[Iterable[Sequence[int]], Iterable[float]] | None = None,
                 seed: int = 0, **weights: float) -> None: ...
    def measure_rollouts(self, on: bool = True) -> None: ...
    @property
    def rollout_seconds(self) -> float: ...
    def step(self, iterations: int = 0, seconds: float = 0.0) -> int: ...
    def stats(self, pv_depth: int = 6) -> dict[str, Any]: ...

def deal_row(game: Game) -> list[int]: ...
def run(game: Game, *, iterations: int = 0, seconds: float = 0.0,
        **options: Any) -> dict[str, Any]: ...
def choose(children: Sequence[_Child], final: str = "visits") -> int: ...
