"""Win chances calibrated on bot games (``tigris calibrate``).

The model gives each player of a position the probability of finishing first (a shared
first place counts as its share) as a softmax over the players' standings (the
evaluator's ``standing``: the final score so far, in points):

    P(p first) = (1 - u) * exp(beta * standing_p) / sum_q exp(beta * standing_q) + u / n,
    beta = b0 + b1 * drawn + b2 * taken,

where ``drawn`` is the share of the bag drawn since the deal and ``taken`` the share of the
treasures taken that the game may take before it ends: what a point of lead is worth
may change as the game goes on.  ``u`` is the share of upsets: the chance, whatever the
standings say, that the game is decided by what they do not see (a lost war, a
monument), spread evenly over the n players; without it the softmax is overconfident
at both ends (a 3% prediction came true 12% of the time with 2 players).  The
probabilities add up to 1 by construction, for 2, 3 and 4 players alike.  One
(b0, b1, b2, u) per player count is fitted by maximum likelihood (scipy.optimize) on
positions of recorded games; ``calibration.json`` in the package holds the shipped fit.

The compiled evaluator computes the same chances with the shipped coefficients
(``tigris.evaluator.Evaluator().win_chances(game)``), and blends them into the search's
rewards by the knob ``eval_calibrated``.

>>> from tigris import calibration
>>> model = calibration.load_model()                   # the shipped coefficients
"""

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from tigris import record as records
from tigris._plumbing import jsonl
from tigris._plumbing import plotting
from tigris.evaluator import Evaluator
from tigris.errors import RecordError, UsageError
from tigris.files import write_bytes, write_text
from tigris.sources import check_source, read_json

__all__ = ["NEEDS_MATPLOTLIB", "Sample", "progress", "first_shares", "samples_of",
           "read_samples", "fit", "predict", "reliability", "expected_calibration_error", "calibrated_floor",
           "plot_reliability", "save_model", "load_model", "calibrate", "format_report", "plot"]

SHIPPED = Path(__file__).resolve().parent / "calibration.json"
FORMAT = "tigris-calibration/2"        # /1 files (no upset share, u = 0) still load
FORMATS = ("tigris-calibration/1", FORMAT)
COEFFICIENTS = 4                       # b0, b1, b2, u
BINS = 10                # reliability bins of width 0.1
FLOOR_DRAWS = 200        # calibrated_floor's draws of the outcomes
NEEDS_MATPLOTLIB = "a reliability diagram needs matplotlib"
LAST_TREASURES = 2       # R83: the game ends when no more than two treasures are left


@dataclass
class Sample:
    """One position of a recorded game: its player count, each player's standing, the
    progress features, each player's share of the first place at the end, its game (the
    deal seed where the record has one, so both seatings of a deal stay together when
    games are split into a fitting and a measuring half), and the rewards the search
    backs up for the position (for comparison)."""

    players: int
    standings: list
    drawn: float
    taken: float
    first: list
    game: int
    rewards: list = field(default_factory=list)


def progress(raw, bag0, treasures0):
    """(drawn, taken): shares of the bag drawn since the deal and of the treasures taken
    of those the game may take."""
    drawn = 1.0 - sum(raw["bag"]) / bag0 if bag0 else 1.0
    room = treasures0 - LAST_TREASURES
    taken = (treasures0 - sum(raw["treasure"])) / room if room > 0 else 1.0
    return min(1.0, max(0.0, drawn)), min(1.0, max(0.0, taken))


def first_shares(ranking, players):
    """Each player's share of the first place: 1/k for each of k tied winners."""
    share = [0.0] * players
    for p in ranking[0]:
        share[p] = 1.0 / len(ranking[0])
    return share


def samples_of(rec, game_id=0, every=4, evaluator=None):
    """The positions after every `every`-th move of a finished record, as Samples; none
    for a game that failed or did not finish.  The record is replayed and checked move by
    move (RecordError names what is wrong), and the first place is the engine's."""
    if not isinstance(rec, dict):
        raise RecordError(f"a game record is a JSON object, not {type(rec).__name__}")
    if rec.get("error"):
        return []
    if isinstance(rec.get("deal_seed"), int) and not isinstance(rec["deal_seed"], bool):
        game_id = rec["deal_seed"]
    evaluator = evaluator or Evaluator()
    positions, bag0, treasures0, g = [], None, None, None
    for k, g in records.steps(rec):
        raw = g.raw_state()
        if bag0 is None:
            bag0, treasures0 = sum(raw["bag"]), sum(raw["treasure"])
        if g.is_over:
            break
        if k % every == 0:
            positions.append(([evaluator.standing(g, p) for p in range(g.players)],
                              *progress(raw, bag0, treasures0), evaluator.rewards(g)))
    if g is None or not g.is_over:
        return []
    first = first_shares(g.ranking(), g.players)
    return [Sample(g.players, standings, drawn, taken, first, game_id, rewards)
            for standings, drawn, taken, rewards in positions]


def read_samples(paths, every=4):
    """The Samples of every finished game in `paths`: tournament folders (their
    games.jsonl), games.jsonl files or single record files."""
    samples, game_id = [], 0
    for path in map(Path, paths):
        for rec in _records(path):
            try:
                samples.extend(samples_of(rec, game_id, every))
            except RecordError as e:
                raise UsageError(f"{path}: game {game_id + 1}: {e}") from None
            game_id += 1
    return samples


def _records(path):
    """The records of a tournament folder, a games.jsonl file or a record file; a
    UsageError or RecordError names the file and line of anything unreadable."""
    if path.is_dir():
        path = path / "games.jsonl"
    if not os.path.lexists(path):
        raise UsageError(f"{path}: no such file")
    check_source(path)                  # a pipe, a device, a socket: said in one line
    if path.suffix != ".jsonl":
        yield records.load(path)
        return
    for k, rec in jsonl.Lines(path):          # a regular file, a bounded line at a time
        if rec is None:
            raise UsageError(f"{path}: line {k} is not JSON (or nests too deeply)")
        yield rec


# ---------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------

def _arrays(samples):
    s = np.array([x.standings for x in samples], dtype=float)
    z = np.array([[1.0, x.drawn, x.taken] for x in samples])
    y = np.array([x.first for x in samples], dtype=float)
    return s, z, y


def _probabilities(coef, s, z):
    """The model's chances for standings s (rows) with features z, coef = (b0, b1, b2, u)."""
    beta = z @ coef[:3]
    logits = beta[:, None] * s
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    return (1 - coef[3]) * e / e.sum(axis=1, keepdims=True) + coef[3] / s.shape[1]


def fit(samples):
    """Coefficients (b0, b1, b2, u) per player count, by maximum likelihood:
    {n: [b0, b1, b2, u]}.  u is fitted as a logistic of a free number, so it stays in (0, 1)."""
    model = {}
    for n in sorted({x.players for x in samples}):
        s, z, y = _arrays([x for x in samples if x.players == n])

        def coefficients(free):
            return np.append(free[:3], 1.0 / (1.0 + np.exp(-free[3])))

        def loss(free):
            p = _probabilities(coefficients(free), s, z)
            return -(y * np.log(np.clip(p, 1e-12, 1.0))).sum() / len(s)

        found = minimize(loss, x0=np.array([0.3, 0.0, 0.0, -4.0]), method="BFGS")
        model[n] = [float(c) for c in coefficients(found.x)]
    return model


def predict(model, samples):
    """Each sample's win chances under `model` (rows of probabilities, in order)."""
    rows = [None] * len(samples)
    for n in {x.players for x in samples}:
        which = [k for k, x in enumerate(samples) if x.players == n]
        s, z, _ = _arrays([samples[k] for k in which])
        for k, p in zip(which, _probabilities(np.array(model[n]), s, z)):
            rows[k] = [float(v) for v in p]
    return rows


# ---------------------------------------------------------------------------------------
# How good a prediction is
# ---------------------------------------------------------------------------------------

def reliability(probabilities, outcomes, bins=BINS):
    """Per bin of predicted probability (width 1/bins): (mean prediction, mean outcome,
    count) over every (position, player) pair, for a reliability diagram."""
    p = np.asarray(probabilities, dtype=float).ravel()
    y = np.asarray(outcomes, dtype=float).ravel()
    which = np.minimum((p * bins).astype(int), bins - 1)
    rows = []
    for b in range(bins):
        mask = which == b
        if mask.any():
            rows.append((float(p[mask].mean()), float(y[mask].mean()), int(mask.sum())))
    return rows


def expected_calibration_error(probabilities, outcomes, bins=BINS):
    """ECE: the count-weighted mean gap between prediction and outcome over the bins."""
    rows = reliability(probabilities, outcomes, bins)
    total = sum(r[2] for r in rows)
    return sum(abs(r[0] - r[1]) * r[2] for r in rows) / total if total else math.nan


def calibrated_floor(chances, draws=FLOOR_DRAWS, seed=0):
    """What the expected calibration error reads for a chance that is calibrated, on
    positions with these `chances`: each draw takes every position's outcome to be a
    first place with its chance (independently), then the error of the chances against
    those outcomes; (median, 95th percentile) over `draws` draws.  An error below the
    95th percentile is within what the positions can tell from a calibrated one (the
    positions of one game share its outcome, so the true floor is somewhat higher)."""
    rng = np.random.default_rng(seed)
    p = np.asarray(chances, dtype=float)
    errors = [expected_calibration_error(p.tolist(), (rng.random(len(p)) < p).astype(float).tolist())
              for _ in range(draws)]
    return float(np.median(errors)), float(np.percentile(errors, 95))


# ---------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------

def save_model(model, path, note=""):
    """Write the coefficients as JSON (``tigris-calibration/1``)."""
    data = {"format": FORMAT, "model": "(1 - u) * softmax(beta * standing) + u / players, "
                                       "beta = b0 + b1*drawn + b2*taken; coefficients b0, b1, b2, u",
            "coefficients": {str(n): c for n, c in sorted(model.items())}, "note": note}
    write_text(path, json.dumps(data, indent=2) + "\n")


def load_model(path=SHIPPED):
    """The coefficients of a calibration file (default: the shipped one):
    {n: [b0, b1, b2, u]} (a ``tigris-calibration/1`` file has no u: 0)."""
    try:
        data = read_json(path, ValueError)
        if data.get("format") not in FORMATS:
            raise ValueError(f"not a {FORMAT} file")
        length = COEFFICIENTS if data["format"] == FORMAT else 3
        model = {int(n): [float(c) for c in coef] for n, coef in data["coefficients"].items()}
        if any(n not in (2, 3, 4) or len(c) != length or not all(map(math.isfinite, c))
               for n, c in model.items()):
            raise ValueError(f"coefficients must be {length} finite numbers per player count 2-4")
        if any(not 0 <= c[3] < 1 for c in model.values() if len(c) > 3):
            raise ValueError("the upset share u must be at least 0 and below 1")
        return {n: c + [0.0] * (COEFFICIENTS - len(c)) for n, c in model.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise UsageError(f"{path}: not a calibration file ({e})") from None


# ---------------------------------------------------------------------------------------
# The calibration run (tigris calibrate)
# ---------------------------------------------------------------------------------------

def calibrate(samples):
    """Two-fold cross-validation, then a fit on every game: {"model", "report", "held_out"}.
    The games are split by deal (even and odd numbers; the games of one deal in every
    seating stay on one side); each half is predicted by the model fitted on the other,
    so every position is predicted once by a model that never saw its game.  ``report``
    rows: players, deals, positions, the held-out ECE of the model over both halves and
    in each (``ece_folds``), and that of the search's rewards today; ``held_out`` keeps
    the held-out predictions for a diagram."""
    if not samples:
        raise UsageError("no positions to calibrate on: give tournament folders or records "
                         "of finished games")
    halves = [[x for x in samples if x.game % 2 == k] for k in (0, 1)]
    counts = sorted({x.players for x in samples})
    missing = [n for n in counts if not all(any(x.players == n for x in half) for half in halves)]
    if missing:
        raise UsageError(f"{', '.join(map(str, missing))}-player games: at least two finished "
                         "games are needed (one to fit, one to measure)")
    folds = [(fit(halves[1 - k]), halves[k]) for k in (0, 1)]      # (model, what it predicts)
    report, held = [], {"model": [], "search": [], "outcome": []}
    for n in counts + [None]:
        pooled = {"model": [], "search": [], "outcome": []}
        per_fold = []
        for model, part in folds:
            part = [x for x in part if n is None or x.players == n]
            model_p, outcome = predict(model, part), [x.first for x in part]
            per_fold.append(expected_calibration_error(_flat(model_p), _flat(outcome)))
            pooled["model"] += model_p
            pooled["search"] += [x.rewards for x in part]
            pooled["outcome"] += outcome
        if n is not None:
            for key in held:
                held[key] += pooled[key]
        report.append({"players": n or "all",
                       "deals": len({x.game for x in samples if n is None or x.players == n}),
                       "positions": sum(1 for x in samples if n is None or x.players == n),
                       "ece_model": expected_calibration_error(_flat(pooled["model"]), _flat(pooled["outcome"])),
                       "ece_folds": per_fold,
                       "ece_search": expected_calibration_error(_flat(pooled["search"]), _flat(pooled["outcome"]))})
    return {"model": fit(samples), "report": report, "held_out": held}


def _flat(rows):
    return [v for row in rows for v in row]


def format_report(result):
    """The calibration run as text: a row per player count and one over all."""
    lines = [f"{'players':>7} {'deals':>6} {'positions':>9} {'ECE model':>10} {'halves':>13} "
             f"{'ECE search':>11}"]
    for r in result["report"]:
        halves = " / ".join(f"{e:.3f}" for e in r["ece_folds"])
        lines.append(f"{r['players']:>7} {r['deals']:>6} {r['positions']:>9} "
                     f"{r['ece_model']:>10.3f} {halves:>13} {r['ece_search']:>11.3f}")
    lines.append("held-out ECE: the even-numbered deals predicted by the model fitted on the odd "
                 "ones and the other way round (both halves, then each); 'search': the rewards "
                 "the search backs up today")
    for n, c in sorted(result["model"].items()):
        lines.append(f"{n} players: b0 = {c[0]:.4f}, b1 (bag drawn) = {c[1]:.4f}, "
                     f"b2 (treasures taken) = {c[2]:.4f}, u (upsets) = {c[3]:.4f}")
    return "\n".join(lines)


def plot(result, path):
    """A reliability diagram of the held-out predictions (needs matplotlib, the ``plot``
    extra): PNG at `path`."""
    held = result["held_out"]
    curves = []
    for key, label in (("model", "calibrated model"), ("search", "search reward today")):
        ece = expected_calibration_error(_flat(held[key]), _flat(held["outcome"]))
        curves.append((f"{label} (ECE {ece:.3f})", reliability(_flat(held[key]), _flat(held["outcome"]))))
    return plot_reliability(curves, path, "Win chance on held-out positions of bot games",
                            "predicted chance to finish first")


def plot_reliability(curves, path, title, xlabel):
    """A reliability diagram (needs matplotlib, the ``plot`` extra) of `curves`, each
    (label, the bins of ``reliability``), against the diagonal: PNG at `path`."""
    plt = plotting.pyplot(NEEDS_MATPLOTLIB)
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect")
    for label, rows in curves:
        ax.plot([r[0] for r in rows], [r[1] for r in rows], marker="o", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of first places")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    ax.set_title(title)
    fig.tight_layout()
    write_bytes(path, plotting.png(fig, dpi=110))
    return path
