#!/usr/bin/env python3
"""Fit a network's recalibration (``tigris.network.recalibrate``) to the results of games.

    python tools/recalibrate_network.py src/tigris/network-3p4p.npz ece3 ece4 \
        --players 3 4 --out network-3p4p.npz

Reads the self-play folders given (only their positions and results count: the labels'
search does not enter), splits their games in two (``--held-out``, by game, seeded), fits
the temperature and the mover's bias of each number of players on the first part by
least cross-entropy (``tigris.runs.train.fit_recalibration``), reports the expected
calibration error of the mover's chance on the held-out part before and after, and
writes the network again to ``--out`` with the fit in its meta (``recalibration``; other
counts' fits kept).  The arrays are written unchanged, so a search plays as before; only
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


def measure(arrays, data, rows, players, fit=None):
    """The mover's chance on positions `rows` of `players`-player games (recalibrated by
    `fit`, if given): its expected calibration error, its mean and the results' mean."""
    rows = rows[data.players[rows] == players]
    chances = train.predict(arrays, data, rows)[:, :players]
    if fit is not None:
        chances = network.recalibrate(chances, 0, *fit)
    results = data.result[rows][:, 0]
    return {"ece": round(float(expected_calibration_error(chances[:, 0], results)), 4),
            "mean_chance": round(float(chances[:, 0].mean()), 4),
            "mean_result": round(float(results.mean()), 4), "positions": int(len(rows))}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("network", help="the weights file to recalibrate")
    p.add_argument("folders", nargs="+", help="self-play folders (tigris selfplay --out)")
    p.add_argument("--players", type=int, nargs="+", choices=(2, 3, 4),
                   help="the counts to fit (default: every count the folders hold)")
    p.add_argument("--held-out", type=float, default=0.5,
                   help="the share of games held out to measure the fit (default 0.5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the split (default 0)")
    p.add_argument("--out", required=True, help="the recalibrated weights file to write")
    args = p.parse_args(argv)
    try:
        if not 0 < args.held_out < 1:
            raise UsageError(f"--held-out must be between 0 and 1, not {args.held_out}")
        source = network.load(args.network)
        out = check_target(args.out, option="--out")
        if Path(out).resolve() == Path(args.network).resolve():
            raise UsageError(f"--out {args.out}: the network read; write the fit to another file")
        data = train.dataset(args.folders, progress=True)
        fit_rows, test_rows = train.split(data, args.held_out, args.seed)
        arrays = source.named_arrays
        counts = args.players or sorted({int(n) for n in data.players})
        recalibration = dict(source.meta.get("recalibration", {}))
        for n in counts:
            fit = tuple(round(x, 4) for x in train.fit_recalibration(arrays, data, fit_rows, n))
            before = measure(arrays, data, test_rows, n)
            after = measure(arrays, data, test_rows, n, fit)
            print(f"{n} players: temperature {fit[0]:.3f}, mover's bias {fit[1]:+.3f}; held out "
                  f"({after['positions']} positions): ECE {before['ece']:.4f} -> {after['ece']:.4f}, "
                  f"mean chance {before['mean_chance']:.3f} -> {after['mean_chance']:.3f} "
                  f"(results {after['mean_result']:.3f})")
            recalibration[str(n)] = {
                "temperature": fit[0], "mover_bias": fit[1],
                "positions": int((data.players[fit_rows] == n).sum()),
                "data": [Path(f).name for f in args.folders], "held_out": args.held_out,
                "seed": args.seed, "held_out_before": before, "held_out_after": after}
        network.save(out, arrays, {**source.meta, "recalibration": recalibration})
        print(f"wrote {out}")
    except UsageError as e:
        print(f"recalibrate_network: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    np.seterr(over="ignore")
    sys.exit(main())
