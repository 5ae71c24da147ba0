"""Type information for the compiled search (cython_core/tigris/_search.pyx): ``Search``, a tree
grown in steps, and the helpers around it.  ``tigris.search`` is the way in; the knobs'
defaults are the table's (``tigris.knobs``), never this module's."""

from collections.abc import Iterable, Sequence
from typing import Any

from typing_extensions import disjoint_base

from tigris._game import Game
from tigris._net import Network
from tigris.errors import IllegalActionError as IllegalActionError

MAX_ITERATIONS: int
MAX_DETERMINIZATIONS: int
ROLLOUTS: dict[str, int]
ROOTS: dict[str, int]
PRIORS: dict[str, int]

#: One child of the root in ``Search.stats()["children"]``: action, visits, avail,
#: value (mean reward of the searching player), chances (each player's chance of
#: finishing first, read at the end of the child's best line; they add up to 1), error
#: (the standard error of the searching player's chance there), margin (its final score
#: minus the best other player's, expected there) and margin_error (its standard error),
#: line (how many moves of pv that best line takes), mean (each player's chance averaged
#: over the child's own visits), spread (the standard deviation of the searching player's
#: chance over them), rounds (the halving rounds it lasted), halvings (how it stood at
#: each halving from the second while in the running: dicts of halving, visits, mean and
#: spread), prior, pv (a list of (action, player)) and pv_visits (the visits of the child
#: and of each node of pv).
_Child = dict[str, Any]

@disjoint_base
class Search:
    player: int
    iterations: int
    final: str
    # config: every knob of tigris.knobs.SEARCH_CONFIG, checked by tigris.knobs.search_config.
    def __init__(self, game: Game, config: dict[str, Any], *, seed: int, plan_iterations: int = 0,
                 plan_seconds: float = 0.0, determinize: bool = True,
                 determinizations: tuple[Iterable[Sequence[int]], Iterable[float]] | None = None,
                 only: Iterable[int] | None = None, net: Network | None = None) -> None: ...
    def measure_rollouts(self, on: bool = True) -> None: ...
    @property
    def rollout_seconds(self) -> float: ...
    def step(self, iterations: int = 0, seconds: float = 0.0) -> int: ...
    def stats(self, pv_depth: int = 6) -> dict[str, Any]: ...

def determinization_row(game: Game) -> list[int]: ...
def leaf_rewards(game: Game, weights: dict[str, float], net: Network | None,
                 net_share: float) -> list[float]: ...
def choose(children: Sequence[_Child], final: str) -> int: ...
