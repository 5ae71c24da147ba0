#!/usr/bin/env python3
"""How often a gate's SPRT promotes a candidate of a given true strength, and after how
many games: simulated matches of games won or lost (the gates' games have no draws to
speak of), each test looked at after every game, as ``tigris.match`` does with one job.

    python tools/gate_power.py                                # tigris learn's gate: SPRT(0, 30)
    python tools/gate_power.py --max-games 400 800 --true 0 20 28 40 --runs 4000

For each true Elo difference and most games: the share of matches that accept H1 (the
candidate promoted), that accept H0, and the mean number of games played (a match
undecided at the most games counts them all).  The LLR of each game is the one of
``tigris.ratings.sprt_llr`` with wins and losses only: ``ln(s1 / s0)`` for a win,
``ln((1 - s1) / (1 - s0))`` for a loss, ``s = 1 / (1 + 10 ** (-elo / 400))``.
"""

import argparse
import math
import sys

import numpy as np

from tigris.commands.options import whole
from tigris.ratings import expected_score, sprt_bounds

MAX_ELO = 1000          # an Elo difference given: beyond it every game is won or lost
CELLS = 4_000_000       # games simulated at once (a chunk of matches), so memory stays small


def elo(text):
    """An argparse type: a finite Elo difference, at most MAX_ELO either way."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and abs(value) <= MAX_ELO):
        raise argparse.ArgumentTypeError(f"must be from -{MAX_ELO} to {MAX_ELO}, not {text}")
    return value


def power(true_elo, elo0, elo1, max_games, runs=4000, alpha=0.05, beta=0.05, seed=0):
    """(share accepting H1, share accepting H0, mean games) of `runs` simulated matches
    of at most `max_games` games between bots `true_elo` apart.

    >>> h1, h0, games = power(70, 0, 30, 400, runs=500)
    >>> h1 > 0.9 and h0 < 0.01 and games < 400
    True
    """
    lower, upper = sprt_bounds(alpha, beta)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    win, loss = math.log(s1 / s0), math.log((1 - s1) / (1 - s0))
    rng = np.random.default_rng(seed)
    never = max_games + 1
    h1 = h0 = games = 0
    chunk = max(1, CELLS // max_games)
    for start in range(0, runs, chunk):
        wins = rng.random((min(chunk, runs - start), max_games)) < expected_score(true_elo)
        llr = np.cumsum(np.where(wins, win, loss), axis=1)
        up = np.where((llr >= upper).any(axis=1), (llr >= upper).argmax(axis=1), never)
        down = np.where((llr <= lower).any(axis=1), (llr <= lower).argmax(axis=1), never)
        h1 += int((up < down).sum())
        h0 += int((down < up).sum())
        games += int(np.where(up < down, up + 1, np.where(down < up, down + 1, max_games)).sum())
    return h1 / runs, h0 / runs, games / runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elo0", type=elo, default=0.0, help="the SPRT's elo0 (default 0, as tigris learn)")
    ap.add_argument("--elo1", type=elo, default=30.0, help="the SPRT's elo1 (default 30, as tigris learn)")
    ap.add_argument("--max-games", type=whole(1, 100_000), nargs="+", default=[400, 800],
                    help="the gate's most games (default 400 800)")
    ap.add_argument("--true", type=elo, nargs="+", default=[-20, 0, 20, 28, 40, 50, 70],
                    help="the candidate's true Elo over the current bot (default -20 0 20 28 40 50 70)")
    ap.add_argument("--runs", type=whole(1, 1_000_000), default=4000,
                    help="simulated matches each (default 4000, at most 1,000,000)")
    ap.add_argument("--seed", type=whole(0, 2**32 - 1), default=0, help="of the simulation (default 0)")
    args = ap.parse_args(argv)
    if args.elo1 <= args.elo0:
        ap.error("--elo1 must be above --elo0")
    print(f"SPRT({args.elo0:g}, {args.elo1:g}), alpha = beta = 0.05, {args.runs} matches each")
    print("| true Elo | most games | promoted (H1) | H0 | mean games |")
    print("|---:|---:|---:|---:|---:|")
    for true in args.true:
        for most in args.max_games:
            h1, h0, games = power(true, args.elo0, args.elo1, most, args.runs, seed=args.seed)
            print(f"| {true:+g} | {most} | {100 * h1:.0f}% | {100 * h0:.0f}% | {games:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
