#!/usr/bin/env python3
"""How often a hint's first row, the engine's play, is visibly the best of what it shows.

    python tools/hint_first_row.py                          # the 24 mid-game positions
    python tools/hint_first_row.py --suite SUITE            # a position suite's positions
    python tools/hint_first_row.py game.json --move 60 pos.json results/t1/games.jsonl:3

On each position (a position or record file, FILE:K of a games.jsonl, the positions of
a ``tigris-suite/1`` file, or by default ``tigris bench``'s 24 mid-game positions of
greedy games, 8 with each of 2, 3 and 4 players), a hint of ``--iterations`` with each
of ``--seeds`` (``tigris.hint``, ``--top`` plans shown), and per hint whether its first
row is, by the figures it shows: the best or not told apart from the best (no plan marked
above it), the highest chance shown (no plan reads higher than the first beside it, even
within the errors), and clearly the best (every other plan marked below it); with how
many plans are marked equal and above it.  Prints the shares and medians, one line each (``--json``: a list).
"""

import argparse
import json
import statistics
import sys

from tigris.commands.options import COUNT, POSITIVE


def positions(files=(), move=None, suite=None, per_count=8):
    """The games to hint at: the files named (a record after `move` moves, else its
    end), the positions of the suite file `suite`, or the mid-game positions of greedy
    games (`per_count` per player count)."""
    import tigris
    from tigris.commands.games import game_of
    from tigris.runs import bench
    from tigris.runs import suite as suites

    if suite:
        return [tigris.Game.from_position(e["position"]) for e in suites.read_suite(suite)["positions"]]
    if files:
        return [game_of(f, move) for f in files]
    return bench.midgame_positions(per_count)


def first_row(hints):
    """What a hint's rows show of its first: (no plan marked above it, no plan reading
    higher than it as shown, even within the errors, every other plan marked below it,
    plans marked equal, above).  A plan is read against the first as the hint shows it
    beside the plan (``first``: the first when it had the plan's visits)."""
    from tigris.hints import shown

    rest = hints[1:]
    marks = [h["mark"] for h in rest]
    highest = all(shown(h["win"]) <= shown(h["first"]["win"]) for h in rest)
    return ("above" not in marks, highest, all(m == "below" for m in marks),
            marks.count("equal"), marks.count("above"))


def figures(games, iterations=20_000, seeds=(1, 2, 3), bot="ismcts-fast", top=8, progress=None):
    """The figures over a hint of each of `games` with each of `seeds`: (name, value,
    unit) rows."""
    import tigris

    seen = []
    for g in games:
        for seed in seeds:
            hints = tigris.hint(g, iterations=iterations, seed=seed, bot=bot, top=top, progress=False)
            seen.append(first_row(hints))
            if progress:
                progress()
    n = len(seen)
    share = lambda k: 100 * sum(row[k] for row in seen) / n      # noqa: E731
    return [(f"hints, {len(games)} positions x {len(seeds)} seeds, {iterations:,} iterations", n, "hints"),
            ("first row the best or not told apart from it (no plan marked above it)", share(0), "%"),
            ("first row the highest chance shown", share(1), "%"),
            ("first row clearly the best (every other plan marked below it)", share(2), "%"),
            ("median plans marked equal to the first", statistics.median(r[3] for r in seen), "plans"),
            ("hints with a plan marked above the first", 100 * sum(r[4] > 0 for r in seen) / n, "%")]


def main(argv=None):
    p = argparse.ArgumentParser(prog="tools/hint_first_row.py", description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="position or record files (FILE:K for a games.jsonl line)")
    p.add_argument("--move", type=COUNT, help="for records: the position after N moves (default: the end)")
    p.add_argument("--suite", help="the positions of a tigris-suite/1 file instead")
    p.add_argument("--iterations", type=POSITIVE, default=20_000, help="a hint's iterations (default 20,000)")
    p.add_argument("--seeds", type=COUNT, nargs="+", default=[1, 2, 3], help="the hints' seeds (default 1 2 3)")
    p.add_argument("--bot", default="ismcts-fast", help="the ismcts configuration to hint with")
    p.add_argument("--top", type=POSITIVE, default=8, help="plans a hint shows (default 8)")
    p.add_argument("--json", action="store_true", help="the figures as a JSON list")
    args = p.parse_args(argv)
    try:
        games = positions(args.files, args.move, args.suite)
        rows = figures(games, args.iterations, args.seeds, args.bot, args.top)
    except (ValueError, OSError) as e:     # the toolkit's errors name the file and the field
        sys.exit(f"tools/hint_first_row.py: {e}")
    if args.json:
        print(json.dumps([{"figure": n, "value": v, "unit": u} for n, v, u in rows], indent=1))
    else:
        for name, value, unit in rows:
            print(f"{name}: {value:.1f}%" if unit == "%" else f"{name}: {value:g} {unit}")


if __name__ == "__main__":
    main()
