#!/usr/bin/env python3
"""How often a hint's first row, the engine's play, is visibly the best of what it shows.

    python tools/hint_first_row.py                          # the 24 mid-game positions
    python tools/hint_first_row.py --suite SUITE            # a position suite's positions
    python tools/hint_first_row.py --suite RUN.jsonl        # those of a suite being made
    python tools/hint_first_row.py game.json --move 60 pos.json results/t1/games.jsonl:3

On each position (a position or record file, FILE:K of a games.jsonl, the positions of
a ``tigris-suite/1`` file or of a suite's run file (``tigris bench suite --make``: its
positions are the suite's while its reference searches are still under way), or by
default ``tigris bench``'s 24 mid-game positions of greedy games, 8 with each of 2, 3 and
4 players), a hint of ``--iterations`` with each of ``--seeds`` (``tigris.hint``,
``--top`` plans shown), and per hint whether its first row is, by the figures it shows:
the best or not told apart from the best (no plan marked above it), the highest chance
shown (no plan reads higher than the first beside it, even within the errors), and
clearly the best (every other plan marked below it); with how many plans are marked equal
and above it.  Prints the shares (with 95% Wilson intervals; the first per player count
too) and medians, one line each (``--json``: a list).
"""

import argparse
import json
import statistics
import sys

from tigris.commands.options import COUNT, POSITIVE
from tigris.hints import DEFAULT_BOT


def positions(files=(), move=None, suite=None, per_count=8):
    """The games to hint at: the files named (a record after `move` moves, else its
    end), the positions of the suite file `suite`, or the mid-game positions of greedy
    games (`per_count` per player count)."""
    import tigris
    from tigris.commands.games import game_of
    from tigris.runs import bench
    from tigris.runs import suite as suites

    if suite:
        return [tigris.Game.from_position(e["position"]) for e in suite_positions(suite)]
    if files:
        return [game_of(f, move) for f in files]
    return bench.midgame_positions(per_count)


def suite_positions(path):
    """The positions of a suite file, or of a suite's run file (in the suite's order; a
    run whose games are not all played yet is refused, naming how many are)."""
    from tigris.errors import UsageError
    from tigris.runs import suite as suites
    from tigris.sources import check_source

    with open(check_source(path), "rb") as f:          # a pipe or a device refused unopened
        head = f.readline()
    try:
        is_run = json.loads(head).get("format") == suites.RUN_FORMAT
    except (ValueError, AttributeError):       # a suite (gzip'd or not), or neither: read_suite says
        is_run = False
    if not is_run:
        return suites.read_suite(path)["positions"]
    header, found, _ = suites.read_run(path)
    ids = suites.planned(header["per_count"])
    if set(ids) - set(found):
        raise UsageError(f"{path}: {len(found)} of the suite's {len(ids)} positions are played so far: "
                         f"run its making command until its games are in")
    return [found[i] for i in ids]


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


def figures(games, iterations=20_000, seeds=(1, 2, 3), bot=DEFAULT_BOT, top=8, progress=None):
    """The figures over a hint of each of `games` with each of `seeds`: (name, value,
    unit) rows."""
    import tigris

    seen, counts = [], []
    for g in games:
        for seed in seeds:
            hints = tigris.hint(g, iterations=iterations, seed=seed, bot=bot, top=top, progress=False)
            seen.append(first_row(hints))
            counts.append(g.players)
            if progress:
                progress()
    best = "first row the best or not told apart from it (no plan marked above it)"
    rows = [(f"hints, {len(games)} positions x {len(seeds)} seeds, {iterations:,} iterations", len(seen), "hints"),
            _share(best, [r[0] for r in seen])]
    rows += [_share(f"{best}, {n} players", [r[0] for r, c in zip(seen, counts) if c == n])
             for n in sorted(set(counts)) if len(set(counts)) > 1]
    return rows + [_share("first row the highest chance shown", [r[1] for r in seen]),
                   _share("first row clearly the best (every other plan marked below it)", [r[2] for r in seen]),
                   ("median plans marked equal to the first", statistics.median(r[3] for r in seen), "plans"),
                   _share("hints with a plan marked above the first", [r[4] > 0 for r in seen])]


def _share(name, hits):
    """A share of hints as a row: (name, percent, "%", its 95% Wilson interval in percent)."""
    from tigris.ratings import wilson_interval

    low, high = wilson_interval(sum(hits), len(hits))
    return (name, 100 * sum(hits) / len(hits), "%", (100 * low, 100 * high))


def main(argv=None):
    p = argparse.ArgumentParser(prog="tools/hint_first_row.py", description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="position or record files (FILE:K for a games.jsonl line)")
    p.add_argument("--move", type=COUNT, help="for records: the position after N moves (default: the end)")
    p.add_argument("--suite", help="the positions of a tigris-suite/1 file instead")
    p.add_argument("--iterations", type=POSITIVE, default=20_000, help="a hint's iterations (default 20,000)")
    p.add_argument("--seeds", type=COUNT, nargs="+", default=[1, 2, 3], help="the hints' seeds (default 1 2 3)")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"the ismcts configuration to hint with (default {DEFAULT_BOT})")
    p.add_argument("--top", type=POSITIVE, default=8, help="plans a hint shows (default 8)")
    p.add_argument("--json", action="store_true", help="the figures as a JSON list")
    args = p.parse_args(argv)
    try:
        games = positions(args.files, args.move, args.suite)
        rows = figures(games, args.iterations, args.seeds, args.bot, args.top)
    except (ValueError, OSError) as e:     # the toolkit's errors name the file and the field
        sys.exit(f"tools/hint_first_row.py: {e}")
    if args.json:
        print(json.dumps([dict({"figure": r[0], "value": r[1], "unit": r[2]},
                               **({"interval": list(r[3])} if len(r) > 3 else {})) for r in rows], indent=1))
    else:
        for name, value, unit, *interval in rows:
            if unit == "%":
                print(f"{name}: {value:.1f}% ({interval[0][0]:.1f}-{interval[0][1]:.1f})")
            else:
                print(f"{name}: {value:g} {unit}")


if __name__ == "__main__":
    main()
