"""The chance of finishing first that hints and analyses show: the search's estimate,
calibrated against the outcomes of games.

The search backs up every player's chance of finishing first (``tigris.search``: the
calibrated model of ``tigris.calibration`` at each rollout's end, read along a move's
best line).  That estimate is not yet a calibrated probability: a search picks the move
whose estimate is highest, so the mover's figure reads high (the winner's curse), and the
static model's spread is not the spread of a searched position.  This module maps it to
one that is, for n players:

    q_i = softmax_i(a * log c_i + b * [i is the mover]),   chance_i = (1 - u) * q_i + u / n,

with c the search's chances, ``a`` how far they are to be sharpened or flattened, ``b``
the mover's correction and ``u`` a share of upsets.  The chances add up to 1 by
construction.  One (a, b, u) per player count is fitted by maximum likelihood on searches
of positions of bot games against their outcomes (``tools/fit_hint_chance.py``;
``chance.json`` in the package holds the shipped fit, measured by ``tigris bench
calibration`` on games no fit saw).

>>> from tigris import chance
>>> c = chance.calibrated([0.6, 0.4], mover=0)
>>> round(sum(c), 9), c[0] < 0.6            # the mover's estimate reads high: pulled down
(1.0, True)
"""

import json
import math
from pathlib import Path

from tigris.sources import read_json

__all__ = ["FORMAT", "IDENTITY", "load", "calibrated", "error", "sample_problem", "fit", "save"]

FORMAT = "tigris-chance/1"
SHIPPED = Path(__file__).resolve().parent / "chance.json"
IDENTITY = (1.0, 0.0, 0.0)           # (a, b, u): the search's chances as they are
FLOOR = 1e-4                         # a chance of 0 counts as this, so its log is finite
_shipped = None


def load(path=SHIPPED):
    """The coefficients ``{players: (a, b, u)}`` of a ``tigris-chance/1`` file (the
    shipped one by default); a ValueError names what is wrong."""
    data = read_json(path, ValueError)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file")
    model = {}
    for players in (2, 3, 4):
        row = data.get("coefficients", {}).get(str(players))
        if not (isinstance(row, list) and len(row) == 3
                and all(isinstance(x, (int, float)) and math.isfinite(x) for x in row)
                and 0 <= row[2] < 1):
            raise ValueError(f"{path}: coefficients for {players} players must be [a, b, u] "
                             f"with 0 <= u < 1, not {row!r}")
        model[players] = tuple(float(x) for x in row)
    return model


def _model():
    global _shipped
    if _shipped is None:
        _shipped = load()
    return _shipped


def calibrated(raw, mover, model=None):
    """Every player's calibrated chance of finishing first from the search's chances
    `raw` (one per player) at a decision of player `mover`; `model` the coefficients
    (default: the shipped fit).  NaN chances (a decision not searched) stay NaN."""
    if any(math.isnan(c) for c in raw):
        return list(raw)
    a, b, u = (model or _model())[len(raw)]
    z = [a * math.log(max(c, FLOOR)) + (b if p == mover else 0.0) for p, c in enumerate(raw)]
    top = max(z)
    e = [math.exp(x - top) for x in z]
    total = sum(e)
    n = len(raw)
    return [(1 - u) * x / total + u / n for x in e]


def error(raw, mover, raw_error, model=None):
    """The standard error of the mover's calibrated chance, from the standard error
    `raw_error` of the search's own estimate (the delta method: the map's slope there,
    the others' chances shrinking in proportion as the mover's grows)."""
    if math.isnan(raw_error) or any(math.isnan(c) for c in raw):
        return float("nan")
    h, n = 1e-4, len(raw)
    rest = 1.0 - raw[mover]
    if rest > h:
        up = [c * (rest - h) / rest if p != mover else c + h for p, c in enumerate(raw)]
    else:                            # the mover holds (nearly) everything: step down instead
        h = -h
        up = [c - h / (n - 1) if p != mover else c + h for p, c in enumerate(raw)]
    slope = (calibrated(up, mover, model)[mover] - calibrated(raw, mover, model)[mover]) / h
    return abs(slope) * raw_error


def sample_problem(sample):
    """What is wrong with a sample that ``fit`` learns from, or None: a dict of the
    ``players`` (2 to 4), the search's chances ``raw`` and each player's share of the
    first place ``outcome`` (a number per player, from 0 to 1, adding up to 1), and the
    ``mover`` (a player)."""
    if not isinstance(sample, dict):
        return "not a sample (not a JSON object)"
    n = sample.get("players")
    if n not in (2, 3, 4) or isinstance(n, bool):
        return f"players must be 2, 3 or 4, not {sample.get('players')!r:.40}"
    mover = sample.get("mover")
    if isinstance(mover, bool) or not isinstance(mover, int) or not 0 <= mover < n:
        return f"mover must be a player from 0 to {n - 1}, not {mover!r:.40}"
    for field in ("raw", "outcome"):
        values = sample.get(field)
        if not (isinstance(values, list) and len(values) == n
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1
                        for v in values)
                and abs(math.fsum(values) - 1) <= 1e-6):
            return f"{field} must be a chance per player adding up to 1, not {values!r:.60}"
    return None


def fit(samples):
    """Fit (a, b, u) per player count by maximum likelihood: each sample a dict with the
    search's chances ``raw``, the ``mover`` and each player's share of the first place
    ``outcome`` (``tools/fit_hint_chance.py`` writes them)."""
    import numpy as np                     # fitting only: hints stay light
    from scipy.optimize import minimize

    model = {}
    for players in (2, 3, 4):
        mine = [s for s in samples if s["players"] == players]
        if not mine:
            model[players] = IDENTITY
            continue
        logs = np.log(np.maximum(np.array([s["raw"] for s in mine], dtype=float), FLOOR))
        movers = np.zeros_like(logs)
        movers[np.arange(len(mine)), [s["mover"] for s in mine]] = 1.0
        outcome = np.array([s["outcome"] for s in mine], dtype=float)

        def loss(x):
            a, b, u = x[0], x[1], _share(x[2])
            z = a * logs + b * movers
            z -= z.max(axis=1, keepdims=True)
            q = np.exp(z)
            q /= q.sum(axis=1, keepdims=True)
            q = (1 - u) * q + u / players
            return -float((outcome * np.log(q)).sum()) / len(mine)

        best = minimize(loss, np.array([1.0, 0.0, -4.0]), method="Nelder-Mead",
                        options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 4000})
        a, b, x = best.x
        model[players] = (float(a), float(b), _share(x))
    return model


def _share(x):
    """The logistic function, the share of upsets the fit's third coordinate stands for:
    finite wherever the search for the fit wanders (1 / (1 + exp(-x)) overflows below
    x = -709, where a fit with no upsets drives it)."""
    return 0.5 * (1.0 + math.tanh(0.5 * float(x)))


def save(model, path, note=""):
    """Write `model` as a ``tigris-chance/1`` file."""
    from tigris.files import write_text

    data = {"format": FORMAT,
            "model": "chance_i = (1 - u) * softmax_i(a * log c_i + b * [i is the mover]) + u / "
                     "players; coefficients a, b, u",
            "coefficients": {str(n): list(model[n]) for n in (2, 3, 4)}, "note": note}
    write_text(path, json.dumps(data, indent=2) + "\n")
