#!/usr/bin/env python3
"""How often a gate's SPRT promotes a candidate of a given true strength, and after how
many games: simulated matches of pairs of games won or lost (each deal in both seatings;
the gates' games have no draws to speak of), the test looked at after every pair, as
``tigris.match`` does with one or two jobs.

    python tools/gate_power.py                                # tigris learn's gate: SPRT(0, 30)
    python tools/gate_power.py --max-games 400 800 --true 0 20 28 40 --runs 4000
    python tools/gate_power.py --test games deals --seat 0.11  # the two tests side by side

A deal may favour a seat: the candidate wins with chance ``s + seat`` in the seating the
deal favours it and ``s - seat`` in the other, ``s = 1 / (1 + 10 ** (-elo / 400))`` at
the true Elo (``--seat 0``: independent games; the 2-player gates' pairs here split as
often as ``--seat`` 0.11 makes them).  For each true Elo difference and most games: the
share of matches that accept H1 (the candidate promoted), that accept H0, and the mean
number of games played (a match undecided at the most games counts them all), by the
test of deals (``tigris.ratings.sprt_llr_deals``, what ``tigris.match`` uses) or of
games (``tigris.ratings.sprt_llr`` with wins and losses only: ``ln(s1 / s0)`` a win,
``ln((1 - s1) / (1 - s0))`` a loss).
"""

import argparse
import math
import sys

import numpy as np

from tigris.commands.options import whole
from tigris.ratings import expected_score, sprt_bounds

MAX_ELO = 1000          # an Elo difference given: beyond it every game is won or lost
CELLS = 4_000_000       # games simulated at once (a chunk of matches), so memory stays small
TESTS = ("deals", "games")
SEAT = 0.11             # how much a 2-player deal favoured a seat in the gates here
MISSING = 1e-3          # a pair's result never seen counts this many times, as in sprt_llr


def elo(text):
    """An argparse type: a finite Elo difference, at most MAX_ELO either way."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and abs(value) <= MAX_ELO):
        raise argparse.ArgumentTypeError(f"must be from -{MAX_ELO} to {MAX_ELO}, not {text}")
    return value


def seat(text):
    """An argparse type: how much a deal favours a seat, from 0 to 0.5."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 0.5:
        raise argparse.ArgumentTypeError(f"must be from 0 to 0.5, not {text}")
    return value


def deals_llr(won, split, lost, s0, s1):
    """``sprt_llr_deals`` of pairs at once: arrays of the pairs won whole, split and lost
    whole so far (values 1, 1/2, 0; a pair with a draw, 1/4 or 3/4, is never seen), its
    theta found by bisection on every cell."""
    none = np.zeros_like(split)
    counts = [np.where(c > 0, c, MISSING) for c in (lost, none, split, none, won)]
    n = sum(counts)
    p = [c / n for c in counts]
    values = (0.0, 0.25, 0.5, 0.75, 1.0)

    def log_ratio(s):
        # theta solving sum p(a) (a - s) / (1 + theta (a - s)) = 0, between its poles
        margin = 1e-6 * np.minimum.reduce(p)
        low, high = -1 / (1 - s) + margin, 1 / s - margin
        for _ in range(45):                 # the bracket narrowed to 1e-13 of its width
            mid = (low + high) / 2
            f = sum(q * (a - s) / (1 + mid * (a - s)) for q, a in zip(p, values))
            low, high = np.where(f > 0, mid, low), np.where(f > 0, high, mid)
        theta = (low + high) / 2
        return [np.log1p(theta * (a - s)) for a in values]       # ln(p(a) / q_s(a))

    at0, at1 = log_ratio(s0), log_ratio(s1)
    return n * sum(q * (x0 - x1) for q, x0, x1 in zip(p, at0, at1))


def power(true_elo, elo0, elo1, max_games, runs=4000, alpha=0.05, beta=0.05, seed=0, test="deals",
          seat=SEAT):
    """(share accepting H1, share accepting H0, mean games) of `runs` simulated matches
    of at most `max_games` games (pairs of them) between bots `true_elo` apart, by the
    test of `test` ("deals" or "games"), deals favouring a seat by `seat`.

    >>> h1, h0, games = power(70, 0, 30, 400, runs=500)
    >>> h1 > 0.9 and h0 < 0.01 and games < 400
    True
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, not {test!r}")
    lower, upper = sprt_bounds(alpha, beta)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    s = expected_score(true_elo)
    favoured, other = min(1.0, s + seat), max(0.0, s - seat)
    rng = np.random.default_rng(seed)
    pairs = max_games // 2
    never = pairs + 1
    h1 = h0 = games = 0
    chunk = max(1, CELLS // (2 * pairs))
    for start in range(0, runs, chunk):
        draws = rng.random((min(chunk, runs - start), pairs, 2))    # a match's draws together
        first, second = draws[..., 0] < favoured, draws[..., 1] < other
        if test == "games":
            wins = first.astype(np.int64) + second
            llr = np.cumsum(wins * math.log(s1 / s0) + (2 - wins) * math.log((1 - s1) / (1 - s0)), axis=1)
        else:
            won, lost = np.cumsum(first & second, axis=1), np.cumsum(~first & ~second, axis=1)
            llr = deals_llr(won, np.arange(1, pairs + 1) - won - lost, lost, s0, s1)
        up = np.where((llr >= upper).any(axis=1), (llr >= upper).argmax(axis=1), never)
        down = np.where((llr <= lower).any(axis=1), (llr <= lower).argmax(axis=1), never)
        h1 += int((up < down).sum())
        h0 += int((down < up).sum())
        games += 2 * int(np.where(up < down, up + 1, np.where(down < up, down + 1, pairs)).sum())
    return h1 / runs, h0 / runs, games / runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elo0", type=elo, default=0.0, help="the SPRT's elo0 (default 0, as tigris learn)")
    ap.add_argument("--elo1", type=elo, default=30.0, help="the SPRT's elo1 (default 30, as tigris learn)")
    ap.add_argument("--max-games", type=whole(2, 100_000), nargs="+", default=[400, 800],
                    help="the gate's most games (default 400 800)")
    ap.add_argument("--true", type=elo, nargs="+", default=[-20, 0, 20, 28, 40, 50, 70],
                    help="the candidate's true Elo over the current bot (default -20 0 20 28 40 50 70)")
    ap.add_argument("--test", choices=TESTS, nargs="+", default=["deals"],
                    help="the test's outcome: a deal's mean score (tigris.match's) or a game (default deals)")
    ap.add_argument("--seat", type=seat, default=SEAT,
                    help=f"how much a deal favours a seat, in chances of a win (default {SEAT})")
    ap.add_argument("--runs", type=whole(1, 1_000_000), default=4000,
                    help="simulated matches each (default 4000, at most 1,000,000)")
    ap.add_argument("--seed", type=whole(0, 2**32 - 1), default=0, help="of the simulation (default 0)")
    args = ap.parse_args(argv)
    if args.elo1 <= args.elo0:
        ap.error("--elo1 must be above --elo0")
    print(f"SPRT({args.elo0:g}, {args.elo1:g}), alpha = beta = 0.05, {args.runs} matches each, "
          f"deals favouring a seat by {args.seat:g}")
    print("| true Elo | most games | test | promoted (H1) | H0 | mean games |")
    print("|---:|---:|---|---:|---:|---:|")
    for true in args.true:
        for most in args.max_games:
            for test in args.test:
                h1, h0, games = power(true, args.elo0, args.elo1, most, args.runs, seed=args.seed, test=test,
                                      seat=args.seat)
                print(f"| {true:+g} | {most} | {test} | {100 * h1:.0f}% | {100 * h0:.0f}% | {games:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
