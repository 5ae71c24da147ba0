"""Type information for the compiled learned evaluation (cython_core/tigris/_net.pyx): a
position's features as its player to move sees them, the network's forward pass and its
policy over the legal actions.
``tigris.network`` is the way in: it reads and checks the weights file."""

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from tigris._game import Game

FEATURE_VERSION: int
SQ_CODES: int
F_SQUARES: int
F_BUILDINGS: int
F_MONUMENTS: int
F_PHASE: int
F_ACTIONS_LEFT: int
F_PLAYERS: int
F_BOARD: int
F_VARIANTS: int
F_ACTIVE: int
F_CONFLICT: int
F_CONFLICT_COLOUR: int
F_ATTACKER: int
F_DEFENDER: int
F_STAGE: int
F_WARS: int
F_SEATS: int
N_SPARSE: int
MAX_ACTIVE: int
D_SEAT: int
D_OWN_HAND: int
D_UNSEEN: int
D_PROGRESS: int
D_STRENGTH: int
D_TURN: int
D_LEADERS: int
LEADER_FEATURES: int
N_DENSE: int
N_OUTPUTS: int
MAX_HIDDEN: int
LANES: int
POLICY_VERSION: int
P_GROUPS: int
G_TILE: int
G_LEADER: int
G_CATASTROPHE: int
G_TREASURE: int
G_MONUMENT: int
G_BUILDING: int
P_STRIDE: int
PAT_NEIGHBOUR: int
PAT_TREASURE_NEXT: int
PAT_KINGDOMS: int
PAT_REGIONS: int
PAT_SCORES_MINE: int
PAT_SCORES_THEIRS: int
PAT_REVOLT: int
PAT_OWN_KINGDOM: int
PAT_TEMPLES: int
PAT_STRENGTH: int
PAT_MOVE: int
PAT_ON: int
PAT_TREASURE_ON: int
PAT_COLOUR_RANK: int
N_PATTERNS: int
MAX_PATTERNS: int
NB_EMPTY: int
NB_SAME: int
NB_TEMPLE: int
NB_OTHER: int
NB_DOWN: int
NB_CATASTROPHE: int
NB_MINE_SAME: int
NB_MINE: int
NB_THEIRS_SAME: int
NB_THEIRS: int
NB_OFF: int
SCORE_SCALE: float

def encode(game: Game) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]: ...
def time_evaluations(network: Network | None, game: Game, count: int) -> float: ...
def time_policy(network: Network, game: Game, count: int) -> float: ...
def policy_inputs(games: Iterable[Game]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                                  npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...

@disjoint_base
class Network:
    # The arrays as the weights file holds them (tigris.network.ARRAYS), float32.
    @property
    def arrays(self) -> tuple[npt.NDArray[np.float32], ...]: ...
    def __init__(self, w_sparse: Any, w_dense: Any, b1: Any, w2: Any, b2: Any, w3: Any, b3: Any,
                 wp: Any = None, bp: Any = None, emb: Any = None, abias: Any = None, pat: Any = None) -> None: ...
    @property
    def has_policy(self) -> bool: ...
    def evaluate(self, game: Game) -> tuple[list[float], list[float]]: ...
    def policy(self, game: Game) -> dict[int, float]: ...
