"""tigris bench: the speed of the core and the search, how decisive hints are, how well
their win chance is calibrated, and whether the tuner finds planted knobs."""

import json
import sys
from pathlib import Path

from tigris.commands.options import add_backend, add_command, add_jobs, add_json, whole
from tigris.hints import DEFAULT_BOT
from tigris.knobs import MAX_ITERATIONS

__all__ = ["DESCRIPTION", "add_to", "run"]

MAX_POSITIONS = 30_000   # per player count: 10,000 games, well within a seed's deals
MAX_SEED = 1_000_000


DESCRIPTION = """\
core: random games per second, decisions per second, copy and apply+undo times on one
core; search: ISMCTS iterations per second; every figure is a median. decisive: on 24
mid-game positions of greedy games (8 each with 2, 3 and 4 players), how often hints
with seeds 1, 2 and 3 name the same top plan, how often each seed's top plan is among
the other seeds' equals, how many equals a hint shows, and the top plan's share of the
root visits. regret: on the same positions, how much of the mover's chance the top plan
of a hint of 20,000 and of 100,000 iterations gives up against a search of 400,000
(the best move of that search against the hint's, searched alone as deeply). calibration: on positions of ismcts-fast games (300 iterations a move) with 2,
3 and 4 players, from deal seeds no fit saw (7,000,000,000 + 1,000,000 x SEED + ...),
three a game (early, middle, late), the expected calibration error of the hint's win
chance of the player to move against the share of the first place that player took,
and whether every player's chances sum to 1. serve: how long tigris serve takes to
answer a page, with no search running and while two hint searches run, and at a table
against random: a person's move answered with the page's data (the page draws it in
place, it no longer loads again after a move), the bot's reply until the page has it,
and a seat's page loaded whole as every move did before (needs the serve extra). tune: a
benchmark of the tuner with known answers: knobs of ismcts-fast (100 iterations a move)
planted at values measured to cost 100 Elo or more, each tuned back by --method with
--budget games against the shipped bot into OUT/KNOB/ (resumed if run again), then the
tuned bot against the planted and the shipped one, --games each: the tuned value, whether
it lies in the region measured to be as good as the shipped value, and the two scores
with their 95% intervals (OUT/bench.json).
"""


def add_to(sub):
    p = add_command(sub, "bench", run,
                    help="measure the speed of the core and the search, how decisive and how "
                         "well calibrated hints are, and whether tuning finds planted knobs",
                    description=DESCRIPTION)
    p.add_argument("part", nargs="?", default="core",
                   choices=("core", "search", "decisive", "regret", "calibration", "serve", "tune"),
                   help="core: random games, copy, apply+undo; search: ISMCTS iterations per "
                        "second; decisive: agreement of hints between seeds; regret: hints "
                        "against a deep search; calibration: calibration of the hint's win chance; "
                        "serve: tigris serve's answer times while hint searches run, and a "
                        "move and the bot's reply at a table; tune: the tuner on knobs planted "
                        "at bad values")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help="decisive, regret, calibration: the configuration the hints search with "
                        f"(default {DEFAULT_BOT}, as tigris hint)")
    p.add_argument("--iterations", type=whole(1, MAX_ITERATIONS), default=20_000,
                   help="decisive, calibration: iterations per hint (default 20000)")
    p.add_argument("--positions", type=whole(1, MAX_POSITIONS), default=1000,
                   help=f"calibration: positions per player count (default 1000, at most {MAX_POSITIONS:,})")
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=0,
                   help="calibration: seed of the games and the hints; tune: of the tuning "
                        "and the matches (default 0, at most 1,000,000)")
    add_jobs(p, "calibration, tune: parallel workers (default: calibration 1, tune all cores)")
    # Bounded so that a typo cannot start a run of days (or overflow a C int).
    p.add_argument("--games", type=whole(1, 1_000_000), default=None,
                   help="core: random games per repeat (default 1000); tune: games of each "
                        "match of the tuned bot (default 200); at most 1,000,000")
    p.add_argument("--repeats", type=whole(1, 1000), default=5,
                   help="repeats per figure (default 5, at most 1000)")
    p.add_argument("--method", default="spsa",
                   help="tune: the tuning method, as tigris tune --method (default spsa)")
    p.add_argument("--budget", type=whole(1, 1_000_000), default=2000,
                   help="tune: games of each knob's tuning (default 2000)")
    p.add_argument("--iteration-games", type=whole(4, 1_000_000), default=0, metavar="G",
                   help="tune: games of each tuning iteration, a multiple of 4 (default 4, as "
                        "tigris tune)")
    add_backend(p)
    p.add_argument("--knob", nargs="+", metavar="NAME",
                   help="tune: the planted knobs to tune (default all of them)")
    p.add_argument("--out", metavar="DIR", help="tune: the benchmark's folder (default results/bench-tune)")
    add_json(p, "the figures")


def run(args):
    """tigris bench: the speed of the core (random games, copies, apply+undo) or of the
    search, how decisive the hints are, or how well their win chance is calibrated."""
    from tqdm import tqdm

    from tigris.runs import bench

    if args.part in ("decisive", "regret", "calibration"):
        bench.check_hint_bot(args.bot)
    if args.part == "tune":
        from tigris.runs import tunebench

        games = 200 if args.games is None else args.games
        tunebench.check(args.method, args.budget, args.knob, games,   # before any line of output
                        args.iteration_games, args.backend, args.scheduler)
    print(f"machine: {bench.machine()}", file=sys.stderr)
    if args.part == "search":
        with tqdm(total=bench.search_runs(args.repeats), desc="searches", unit="run", file=sys.stderr) as bar:
            rows = bench.bench_search(repeats=args.repeats, progress=bar.update)
    elif args.part == "decisive":
        with tqdm(total=bench.decisive_runs(), desc="hints", unit="hint", file=sys.stderr) as bar:
            rows = bench.bench_decisive(bot=args.bot, iterations=args.iterations, progress=bar.update)
    elif args.part == "regret":
        with tqdm(total=bench.regret_runs(), desc="searches", unit="search", file=sys.stderr) as bar:
            rows = bench.bench_regret(bot=args.bot, progress=bar.update)
    elif args.part == "serve":
        from tigris.web import app as serve
        from tigris.web import bench as table

        serve.require_server()
        with tqdm(total=4 * 40 + table.TABLE_MOVES, desc="requests", unit="request", file=sys.stderr) as bar:
            rows = serve.bench_latency(progress=bar.update) + table.bench_table(progress=bar.update)
    elif args.part == "calibration":
        rows = bench.bench_calibration(positions=args.positions, iterations=args.iterations, seed=args.seed,
                                       jobs=args.jobs or 1, bot=args.bot)
    elif args.part == "tune":
        result = tunebench.run(method=args.method, budget=args.budget, knobs=args.knob, seed=args.seed,
                               jobs=args.jobs, out=args.out, games=games,
                               iteration_games=args.iteration_games, backend=args.backend,
                               scheduler=args.scheduler)
        print(f"report: {Path(args.out or tunebench.OUT) / tunebench.RESULT_FILE}", file=sys.stderr)
        rows = tunebench.rows(result)
    else:
        with tqdm(total=bench.core_runs(args.repeats), desc="random games", unit="run",
                  file=sys.stderr) as bar:
            rows = bench.bench_core(games=args.games or 1000, repeats=args.repeats, progress=bar.update)
    column = "value" if args.part in ("decisive", "regret", "calibration", "tune") else "median"
    if args.json:
        print(json.dumps({"machine": bench.machine(),
                          "figures": [{"figure": n, column: v, "unit": u} for n, v, u in rows]},
                         indent=2))
    else:
        print(f"machine: {bench.machine()}")
        print(bench.format_rows(rows, column, decimals=3 if args.part in ("regret", "calibration") else 2))
