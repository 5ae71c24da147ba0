#!/usr/bin/env python3
"""Where a search's choice leaves the position suite's best moves: at the root's first
halving, or at a later one.

    python tools/suite_roots.py                             # the shipped suite, the hints' bot
    python tools/suite_roots.py --bot mine.toml --iterations 100000 --jobs 2
    python tools/suite_roots.py --suite suite.json.gz --first 12 --json

On each position of a suite (``tigris bench suite``; the shipped one by default, or its
first ``--first`` positions), one search of ``--iterations`` with ``--seed`` by an ismcts
configuration with a halving root, as a hint searches, and its root's statistics: whether
the move it chooses is among the reference's best (``tigris bench regret``'s figure),
and whether one of the reference's best moves was among the candidates the first
halving kept (the UCB phase tries every move; the first halving keeps ``candidates`` of
them by log prior and mean reward).  Each miss is one of three: the best moves were all
passed over at the first halving (the root never searched them in earnest), all dropped
at a later one, or one was in the last halving's pair and lost the decision there.  Prints the
shares with their 95% Wilson intervals (per player count too), one line each, and the
misses by position (``--json``: the figures and the positions as JSON).
"""

import argparse
import json
import sys

from tigris.commands.options import COUNT, POSITIVE
from tigris.hints import DEFAULT_BOT

FIRST, LATER, LAST = "passed over at the first halving", "dropped at a later halving", "lost the last halving"


def position_roots(entry, bot, iterations, seed):
    """One search of the suite's position `entry`: its id, player count, the chosen
    move, whether it is among the reference's best, its regret, the halving rounds it
    lasted, and of the reference's best moves the rounds each lasted (0: not kept by the
    first halving)."""
    import tigris
    from tigris.hints import hint_bot, root_statistics
    from tigris.notation import action_to_str
    from tigris.runs import suite as suites

    g = tigris.Game.from_position(entry["position"])
    stats, _ = root_statistics(g, hint_bot(bot, 1, seed), iterations=iterations, progress=False)
    chosen = action_to_str(stats.children[0].action)          # the choice comes first
    best = set(entry["reference"]["best"])
    judged = suites.judge(entry, chosen)
    return {"id": entry["id"], "players": entry["players"], "move": chosen, "right": chosen in best,
            "regret": None if judged is None else judged[1], "rounds": stats.children[0].rounds,
            "best_rounds": {action_to_str(c.action): c.rounds for c in stats.children
                            if action_to_str(c.action) in best}}


def why_missed(found):
    """Where a miss (`found` of ``position_roots``, its move not among the best) left the
    best moves: FIRST, LATER or LAST."""
    most = max(found["best_rounds"].values(), default=0)
    if most == 0:
        return FIRST
    return LAST if most >= found["rounds"] - 1 else LATER      # in the final halving's pair


def figures(found):
    """The rows over the positions' searches: (name, value, unit[, interval])."""
    from tigris.runs.suite import _share_row as share        # "(k of n)", percent, its interval

    counts = sorted({f["players"] for f in found})
    groups = [(f"{n} players", [f for f in found if f["players"] == n]) for n in counts]
    groups += [("all", found)] if len(counts) > 1 else []
    rows = []
    for label, part in groups:
        rows.append(share(f"chosen move among the reference's best, {label}", [f["right"] for f in part]))
    for label, part in groups:
        rows.append(share(f"a best move among the first halving's candidates, {label}",
                           [max(f["best_rounds"].values(), default=0) >= 1 for f in part]))
    misses = [why_missed(f) for f in found if not f["right"]]
    for why in (FIRST, LATER, LAST):
        rows.append((f"misses whose best moves were {why}" if why != LAST else
                     f"misses whose best move {why}", misses.count(why), "positions"))
    regrets = [f["regret"] for f in found if f["regret"] is not None]
    if regrets:
        rows.append(("mean regret of the chosen moves", sum(regrets) / len(regrets), "chance"))
    return rows


def run(suite, bot=DEFAULT_BOT, iterations=20_000, seed=1, jobs=1, first=None):
    """The searches of the suite's positions (its `first` ones if given) on `jobs`
    workers, in the suite's order."""
    from joblib import delayed

    from tigris._plumbing import parallel

    entries = suite["positions"][:first] if first else suite["positions"]
    return parallel.run(jobs, [delayed(position_roots)(e, bot, iterations, seed) for e in entries])


def main(argv=None):
    p = argparse.ArgumentParser(prog="tools/suite_roots.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", help="a tigris-suite/1 file (default: the shipped suite)")
    p.add_argument("--first", type=POSITIVE, help="its first N positions only")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"the ismcts configuration to search with (default {DEFAULT_BOT})")
    p.add_argument("--iterations", type=POSITIVE, default=20_000, help="a search's iterations (default 20,000)")
    p.add_argument("--seed", type=COUNT, default=1, help="the searches' seed (default 1)")
    p.add_argument("--jobs", type=POSITIVE, default=1, help="worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="the figures and the positions as JSON")
    args = p.parse_args(argv)
    from tigris.runs import bench
    from tigris.runs import suite as suites

    try:
        bench.check_hint_bot(args.bot)
        found = run(suites.load_suite(args.suite), args.bot, args.iterations, args.seed, args.jobs, args.first)
    except (ValueError, OSError) as e:     # the toolkit's errors name the file and the field
        sys.exit(f"tools/suite_roots.py: {e}")
    rows = figures(found)
    if args.json:
        print(json.dumps({"figures": [dict({"figure": r[0], "value": r[1], "unit": r[2]},
                                           **({"interval": list(r[3])} if len(r) > 3 else {})) for r in rows],
                          "positions": found}, indent=1))
        return
    for name, value, unit, *interval in rows:
        if unit == "%":
            print(f"{name}: {value:.1f}% ({interval[0][0]:.1f}-{interval[0][1]:.1f})")
        else:
            print(f"{name}: {value:.4g} {unit}")
    for f in found:
        if not f["right"]:
            best = sorted(f["best_rounds"].items(), key=lambda x: -x[1])
            named = ", ".join(f"{m} ({r})" for m, r in best[:4]) + (f" and {len(best) - 4} more" if len(best) > 4 else "")
            print(f"  {f['id']}: {f['move']} ({f['rounds']} rounds), regret {f['regret']}; {why_missed(f)}: "
                  f"{named or 'none expanded'}")


if __name__ == "__main__":
    main()
