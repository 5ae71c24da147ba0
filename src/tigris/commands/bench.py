"""tigris bench: the speed of the core and the search, and how decisive hints are."""

import json
import sys

from tigris.commands.options import add_command, add_json, whole
from tigris.hints import DEFAULT_BOT
from tigris.knobs import MAX_ITERATIONS

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
core: random games per second, decisions per second, copy and apply+undo times on one
core; search: ISMCTS iterations per second; every figure is a median. decisive: on 24
mid-game positions of greedy games (8 each with 2, 3 and 4 players), how often hints
with seeds 1, 2 and 3 name the same top move, and the top move's share of the root
visits.
"""


def add_to(sub):
    p = add_command(sub, "bench", run,
                    help="measure the speed of the core and the search, and how decisive hints are",
                    description=DESCRIPTION)
    p.add_argument("part", nargs="?", default="core", choices=("core", "search", "decisive"),
                   help="core: random games, copy, apply+undo; search: ISMCTS iterations per "
                        "second; decisive: agreement of hints between seeds")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"decisive: the configuration the hints search with (default {DEFAULT_BOT}, as tigris hint)")
    p.add_argument("--iterations", type=whole(1, MAX_ITERATIONS), default=20_000,
                   help="decisive: iterations per hint (default 20000)")
    # Bounded so that a typo cannot start a run of days (or overflow a C int).
    p.add_argument("--games", type=whole(1, 1_000_000), default=1000,
                   help="random games per repeat (default 1000, at most 1,000,000)")
    p.add_argument("--repeats", type=whole(1, 1000), default=5,
                   help="repeats per figure (default 5, at most 1000)")
    add_json(p, "the figures")


def run(args):
    """tigris bench: the speed of the core (random games, copies, apply+undo) or of the
    search, or how decisive the hints are."""
    from tqdm import tqdm

    from tigris import bench

    if args.part == "decisive":
        bench.check_hint_bot(args.bot)
    print(f"machine: {bench.machine()}", file=sys.stderr)
    if args.part == "search":
        with tqdm(total=bench.search_runs(args.repeats), desc="searches", unit="run", file=sys.stderr) as bar:
            rows = bench.bench_search(repeats=args.repeats, progress=bar.update)
    elif args.part == "decisive":
        with tqdm(total=bench.decisive_runs(), desc="hints", unit="hint", file=sys.stderr) as bar:
            rows = bench.bench_decisive(bot=args.bot, iterations=args.iterations, progress=bar.update)
    else:
        with tqdm(total=bench.core_runs(args.repeats), desc="random games", unit="run",
                  file=sys.stderr) as bar:
            rows = bench.bench_core(games=args.games, repeats=args.repeats, progress=bar.update)
    column = "value" if args.part == "decisive" else "median"
    if args.json:
        print(json.dumps({"machine": bench.machine(),
                          "figures": [{"figure": n, column: v, "unit": u} for n, v, u in rows]},
                         indent=2))
    else:
        print(f"machine: {bench.machine()}")
        print(bench.format_rows(rows, column))
