"""Type information for the compiled evaluator (cython_core/tigris/_eval.pyx): the rewards the
search backs up, the expansion priors, the calibrated win chance.  ``tigris.evaluator`` is the
way in; the weights' defaults are the table's (``tigris.knobs``), never this module's."""

from collections.abc import Mapping, Sequence
from pathlib import Path

from typing_extensions import disjoint_base

from tigris._game import Game

INF: float
CALIBRATION_FILE: Path

def set_calibration(coefficients: Mapping[int, Sequence[float]]) -> None: ...

@disjoint_base
class Evaluator:
    # weights: every weight of tigris.knobs.WEIGHTS, checked by tigris.knobs.check_weights.
    def __init__(self, weights: dict[str, float]) -> None: ...
    @property
    def weights(self) -> dict[str, float]: ...
    def rewards(self, game: Game) -> list[float]: ...
    def standing(self, game: Game, player: int) -> float: ...
    # The chances the search backs up beside its rewards (_eval.pxd: evaluate_chances).
    def win_chances(self, game: Game) -> list[float]: ...
    def priors(self, game: Game) -> tuple[list[int], list[float]]: ...
    def prior(self, game: Game, action: int) -> float: ...
