"""tigris bench: the speed of the core and the search, how decisive hints are, how well
their win chance is calibrated, and whether the tuner finds planted knobs."""

import json
import sys
from pathlib import Path

from tigris.commands.options import add_backend, add_command, add_force, add_jobs, add_json, whole
from tigris.errors import UsageError
from tigris.hints import DEFAULT_BOT
from tigris.knobs import MAX_ITERATIONS

__all__ = ["DESCRIPTION", "add_to", "run"]

MAX_POSITIONS = 30_000   # per player count: 10,000 games, well within a seed's deals
MAX_SEED = 1_000_000


DESCRIPTION = """\
core: random games per second, decisions per second, copy and apply+undo times on one
core; search: ISMCTS iterations per second; every figure is a median. decisive: on the
position suite shipped with tigris (or --suite FILE), positions of games of several bots,
each with a reference computed once by far deeper searches, how often hints with seeds 1,
2 and 3 name the same top plan and how often each seed's top plan is among the other
seeds' equals, with 95% intervals, per player count and in all, how many equals a hint
shows, and the top plan's share of the root visits. regret: on the same suite, how often
the top plan of a hint of 20,000 and of 100,000 iterations is among the reference's best
(within 0.02 of its highest value; a plan the reference did not judge is a miss), with
95% intervals, and the chance it gives up. With --midgame, both on the former 24
mid-game positions of greedy games, regret against the same bot's search of 400,000
iterations. suite: what a suite holds; with --make RUN, make the suite again: its games,
then for each position --seeds searches of --iterations (default 3 of 1,000,000) with
ismcts-fast's knobs and as many with the hand-written priors over a root of 128
candidates, each appended to RUN as it finishes (run the same command again to continue
a run that stopped), then the suite written to --out (default suite.json.gz beside
RUN), which becomes the shipped one when copied to tigris/suite.json.gz. policy: on the
same suite, no search, how often a network's policy (--network: a generation's name or
a file; default the shipped one) puts its most probable move among the reference's
best and what share of its probability lies on those moves, with 95% intervals, and its
mean entropy: the policy's quality, by the same labels for every generation. calibration:
on positions of ismcts-fast games (300 iterations a move; --games-bot another bot's, at
--games-iterations if given) with 2, 3 and 4 players, from deal seeds no fit saw
(7,000,000,000 + 1,000,000 x SEED + ...), three a game (early, middle, late), the
expected calibration error of the hint's win chance of the player to move against the
share of the first place that player took, beside what a calibrated chance would read on
the same positions (median and 95th percentile of 200 draws of the outcomes), and whether
every player's chances sum to 1. serve: how long tigris serve takes to
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
                   choices=("core", "search", "decisive", "regret", "suite", "policy", "calibration", "serve",
                            "tune"),
                   help="core: random games, copy, apply+undo; search: ISMCTS iterations per "
                        "second; decisive: agreement of hints between seeds; regret: hints "
                        "against the position suite's reference; suite: the position suite, or "
                        "--make it; calibration: calibration of the hint's win chance; "
                        "serve: tigris serve's answer times while hint searches run, and a "
                        "move and the bot's reply at a table; tune: the tuner on knobs planted "
                        "at bad values")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help="decisive, regret, calibration: the configuration the hints search with "
                        f"(default {DEFAULT_BOT}, as tigris hint)")
    p.add_argument("--iterations", type=whole(1, MAX_ITERATIONS), default=None,
                   help="decisive, calibration: iterations per hint (default 20000); suite --make: "
                        "iterations of a reference search (default 1000000)")
    p.add_argument("--positions", type=whole(1, MAX_POSITIONS), default=None,
                   help=f"calibration: positions per player count (default 1000, at most {MAX_POSITIONS:,}); "
                        f"suite --make: positions per player count (default 36)")
    p.add_argument("--games-bot", metavar="BOT",
                   help="calibration: the bot (a name or a file) that plays the games whose positions "
                        "are asked about (default ismcts-fast at 300 iterations a move)")
    p.add_argument("--games-iterations", type=whole(1, MAX_ITERATIONS), metavar="N",
                   help="calibration: the --games-bot's iterations a move (default: its own)")
    p.add_argument("--suite", metavar="FILE",
                   help="decisive, regret, suite, policy: the position suite (default the one shipped)")
    p.add_argument("--network", metavar="NETWORK",
                   help="policy: the network whose policy is judged, a generation's name or a file "
                        "(default the shipped one)")
    p.add_argument("--midgame", action="store_true",
                   help="decisive, regret: the former 24 mid-game positions of greedy games instead "
                        "of the suite")
    p.add_argument("--make", metavar="RUN",
                   help="suite: make the suite again, appending its games and searches to the file "
                        "RUN (continued if it holds part of the same run)")
    p.add_argument("--seeds", type=whole(1, 100), default=None,
                   help="suite --make: reference searches of each setting a position (default 3)")
    add_force(p, "the suite file of suite --make")
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=0,
                   help="calibration: seed of the games and the hints; tune: of the tuning "
                        "and the matches; suite --make: of the games and the searches (default 0, "
                        "at most 1,000,000)")
    add_jobs(p, "decisive, regret, suite --make, calibration, tune: parallel workers (default: "
                "tune all cores, the others 1)")
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
    p.add_argument("--out", metavar="DIR", help="tune: the benchmark's folder (default results/bench-tune); "
                                                "suite --make: the suite file (default suite.json.gz "
                                                "beside RUN; gzip if it ends in .gz)")
    add_json(p, "the figures")


SUITE_PARTS = ("decisive", "regret", "suite", "policy")     # the parts that read the suite


def _suite(args, jobs):
    """The position suite the part `args.part` reads (made first with ``suite --make``),
    or None for a part that reads none: read before any line of output, so a missing or
    damaged one is one line."""
    from tigris.runs import suite as suites

    if args.part not in SUITE_PARTS or args.part in ("decisive", "regret") and args.midgame:
        return None
    if args.part == "suite" and args.make:
        out = Path(args.out) if args.out else Path(args.make).parent / "suite.json.gz"
        made = suites.make_suite(args.make, out, per_count=args.positions or suites.PER_COUNT,
                                 iterations=args.iterations or suites.ITERATIONS,
                                 seeds=args.seeds or suites.SEEDS, seed=args.seed, jobs=jobs,
                                 force=args.force)
        print(f"suite: {out}, {len(made['positions'])} positions; copy it to tigris/suite.json.gz "
              f"to ship it", file=sys.stderr)
        return suites.read_suite(out)
    return suites.load_suite(args.suite)


def _suite_rows(args, suite, iterations, jobs):
    """The rows of a part that reads the suite."""
    from tigris.runs import suite as suites

    if args.part == "decisive":
        return suites.bench_decisive(suite, bot=args.bot, iterations=iterations, jobs=jobs)
    if args.part == "regret":
        return suites.bench_regret(suite, bot=args.bot, jobs=jobs)
    if args.part == "policy":
        return suites.bench_policy(suite, network=args.network or "")
    return suites.summary_rows(suite)


def run(args):
    """tigris bench: the speed of the core (random games, copies, apply+undo) or of the
    search, how decisive and how right the hints are, the position suite, or how well the
    hints' win chance is calibrated."""
    from tqdm import tqdm

    from tigris.runs import bench

    if args.part in ("decisive", "regret", "calibration"):
        bench.check_hint_bot(args.bot)
    if args.games_iterations is not None and args.games_bot is None:
        raise UsageError("--games-iterations is the --games-bot's: name the bot too")
    games_bot = None if args.games_bot is None else (args.games_bot, args.games_iterations)
    if args.part == "calibration":
        bench.check_games_bot(games_bot)
    jobs = args.jobs or 1
    suite = _suite(args, jobs)
    if args.part == "tune":
        from tigris.runs import tunebench

        games = 200 if args.games is None else args.games
        tunebench.check(args.method, args.budget, args.knob, games,   # before any line of output
                        args.iteration_games, args.backend, args.scheduler)
    print(f"machine: {bench.machine()}", file=sys.stderr)
    iterations = args.iterations or 20_000
    if args.part == "search":
        with tqdm(total=bench.search_runs(args.repeats), desc="searches", unit="run", file=sys.stderr) as bar:
            rows = bench.bench_search(repeats=args.repeats, progress=bar.update)
    elif args.part == "decisive" and args.midgame:
        with tqdm(total=bench.decisive_runs(), desc="hints", unit="hint", file=sys.stderr) as bar:
            rows = bench.bench_decisive(bot=args.bot, iterations=iterations, progress=bar.update)
    elif args.part == "regret" and args.midgame:
        with tqdm(total=bench.regret_runs(), desc="searches", unit="search", file=sys.stderr) as bar:
            rows = bench.bench_regret(bot=args.bot, progress=bar.update)
    elif suite is not None:
        rows = _suite_rows(args, suite, iterations, jobs)
    elif args.part == "serve":
        from tigris.web import app as serve
        from tigris.web import bench as table

        serve.require_server()
        with tqdm(total=4 * 40 + table.TABLE_MOVES, desc="requests", unit="request", file=sys.stderr) as bar:
            rows = table.bench_latency(progress=bar.update) + table.bench_table(progress=bar.update)
    elif args.part == "calibration":
        rows = bench.bench_calibration(positions=args.positions or 1000, iterations=iterations,
                                       seed=args.seed, jobs=jobs, bot=args.bot, games_bot=games_bot)
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
    column = "value" if args.part in (*SUITE_PARTS, "calibration", "tune") else "median"
    if args.json:
        print(json.dumps({"machine": bench.machine(),
                          "figures": [dict({"figure": n, column: v, "unit": u},
                                           **({"interval": list(rest[0])} if rest else {}))
                                      for n, v, u, *rest in rows]},
                         indent=2))
    else:
        print(f"machine: {bench.machine()}")
        print(bench.format_rows(rows, column, decimals=3 if args.part in ("regret", "calibration") else 2))
