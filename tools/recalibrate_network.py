#!/usr/bin/env python3
"""Fit a network's recalibration (``tigris.network.recalibrate``) to the results of games.

    python tools/recalibrate_network.py src/tigris/networks/gen1-3p4p.npz ece3 ece4 \
        --players 3 4 --out gen1-3p4p.npz

Reads the self-play folders given (only their positions and results count: the labels'
search does not enter) and fits the temperature and the mover's bias of each number of
players by least cross-entropy (``tigris.runs.train.fit_recalibration``).  How well a fit
does on games it has not seen is measured by cross-validation: the games dealt into
``--folds`` parts (seeded), each part's chances recalibrated by the fit on the others, and
the expected calibration error of the mover's chance over all of them, before and after.
The fit on every game is written with the network to ``--out`` (``recalibration`` in its
meta; other counts' fits kept).  The arrays are written unchanged, so a search plays as before; only
the chances ``Network.evaluate`` gives (and the luck read from them) move.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

from tigris import network
from tigris.calibration import expected_calibration_error
from tigris.errors import UsageError
from tigris.files import check_target
from tigris.runs import train


def folds_of(data, folds, seed):
    """Each position's part (0 to `folds` - 1): whole games to each, dealt at random."""
    games = np.unique(data.game)
    part = dict(zip(np.random.default_rng(seed).permutation(games), np.arange(len(games)) % folds))
    return np.array([part[g] for g in data.game])


def cross_validated(arrays, data, players, part):
    """The mover's chance on every position of `players`-player games, raw and as the
    fit on the other parts recalibrates it, with each position's result."""
    rows = np.flatnonzero(data.players == players)
    raw = train.predict(arrays, data, rows)[:, :players]
    fitted = np.empty_like(raw)
    for k in np.unique(part[rows]):
        inside = part[rows] == k
        fit = train.fit_recalibration(arrays, data, rows[~inside], players)
        fitted[inside] = network.recalibrate(raw[inside], 0, *fit)
    return raw[:, 0], fitted[:, 0], data.result[rows][:, 0]


def figures(chances, results):
    """The expected calibration error of `chances`, their mean and the results'."""
    return {"ece": round(float(expected_calibration_error(chances, results)), 4),
            "mean_chance": round(float(chances.mean()), 4),
            "mean_result": round(float(results.mean()), 4), "positions": int(len(results))}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("network", help="the weights file to recalibrate")
    p.add_argument("folders", nargs="+", help="self-play folders (tigris selfplay --out)")
    p.add_argument("--players", type=int, nargs="+", choices=(2, 3, 4),
                   help="the counts to fit (default: every count the folders hold)")
    p.add_argument("--folds", type=int, default=2,
                   help="parts of the games for the cross-validation (default 2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the parts (default 0)")
    p.add_argument("--out", required=True, help="the recalibrated weights file to write")
    args = p.parse_args(argv)
    try:
        if not 2 <= args.folds <= 100:
            raise UsageError(f"--folds must be 2 to 100, not {args.folds}")
        source = network.load(args.network)
        out = check_target(args.out, reads=[args.network], option="--out", in_folder=True)
        data = train.dataset(args.folders, progress=True)
        part = folds_of(data, args.folds, args.seed)
        arrays = source.named_arrays
        counts = args.players or sorted({int(n) for n in data.players})
        recalibration = dict(source.meta.get("recalibration", {}))
        for n in counts:
            rows = np.flatnonzero(data.players == n)
            fit = tuple(round(x, 4) for x in train.fit_recalibration(arrays, data, rows, n))
            raw, fitted, results = cross_validated(arrays, data, n, part)
            before, after = figures(raw, results), figures(fitted, results)
            print(f"{n} players: temperature {fit[0]:.3f}, mover's bias {fit[1]:+.3f}; "
                  f"{args.folds}-fold cross-validated ({after['positions']} positions, "
                  f"{len(np.unique(data.game[rows]))} games): ECE {before['ece']:.4f} -> "
                  f"{after['ece']:.4f}, mean chance {before['mean_chance']:.3f} -> "
                  f"{after['mean_chance']:.3f} (results {after['mean_result']:.3f})")
            recalibration[str(n)] = {
                "temperature": fit[0], "mover_bias": fit[1], "positions": int(len(rows)),
                "data": [Path(f).name for f in args.folders], "folds": args.folds,
                "seed": args.seed, "cross_validated_before": before,
                "cross_validated_after": after}
        network.save(out, arrays, {**source.meta, "recalibration": recalibration})
        print(f"wrote {out}")
    except UsageError as e:
        print(f"recalibrate_network: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    np.seterr(over="ignore")
    sys.exit(main())
