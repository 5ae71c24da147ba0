"""The table of the levels to play against (docs/results.md, "Levels"): the games of each
adjacent pair of levels, one results folder a pair, fitted together.

    python tools/ladder.py FOLDER...        # each from tigris tournament --bots A B

Each pair's gap is its own two-bot fit (Bradley-Terry, the interval from the deals'
bootstrap, or the likelihood's one-sided one after a perfect score).  The Elo with
random = 0 is the joint fit of all the games with the first level at 0, shifted by what
random's games allow: random won none of its games against level 1, so its gap is only
bounded below, and every level's Elo above random is "at least" that much.
"""

import sys

from tigris import ratings
from tigris.tournament import read_games, results_of


def pair(folder):
    """(weaker, stronger, games, the stronger's score, gap, gap's interval)."""
    games = results_of(read_games(folder))
    rows = ratings.standings(games)["bots"]
    if len(rows) != 2 or not games:
        raise ValueError(f"{folder}: not the games of one pair of bots ({len(rows)} bots, "
                         f"{len(games)} games)")
    strong, weak = rows[0], rows[1]
    gap = strong["elo"] - weak["elo"]
    low, high = strong["elo_ci"] or (None, None)
    # with the mean at 0 the gap is twice a bot's rating, its interval too
    interval = tuple(None if v is None else 2 * v for v in (low, high))
    return weak["name"], strong["name"], len(games), strong["wins"], gap, interval


def main(folders):
    pairs = [pair(f) for f in folders]
    games = [g for f in folders for g in results_of(read_games(f))]
    first = pairs[0][1]
    joint = {r["name"]: r for r in ratings.standings(games, anchor=first)["bots"]}
    bottom = pairs[0][0]
    above = -joint[bottom]["elo_ci"][1]       # the first level is at least this above random
    print("| level | games against the level below | its score | gap (95% CI) | Elo, random = 0 |")
    print("|---|---:|---:|---|---:|")
    for weak, strong, n, wins, gap, (low, high) in pairs:
        if high is None:                     # a perfect score: a bound, no estimate
            said = f"at least {low:+.0f}"
        else:
            said = f"{gap:+.0f} ({low:+.0f}, {high:+.0f})"
        elo = joint[strong]["elo"] + above
        print(f"| {strong} | {n} | {wins:g} of {n} | {said} | at least {elo:+.0f} |")
    print(f"\n{bottom} = 0; it won none of its {pairs[0][2]} games, so {first} is at least "
          f"{above:+.0f} above it (the likelihood's bound) and the others with it.")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: python tools/ladder.py FOLDER FOLDER...  (one results folder a pair)")
    try:
        main(sys.argv[1:])
    except (ValueError, OSError) as e:    # the toolkit's errors name the folder and field
        sys.exit(f"tools/ladder.py: {e}")
