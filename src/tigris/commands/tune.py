"""tigris tune: SPSA, Bayes or TBPSA over numeric bot knobs, then a verification match."""

from tigris.commands.options import (add_backend, add_command, add_jobs, add_players,
                                     add_results_folder, add_seed, whole)
from tigris.errors import UsageError
from tigris.tournament import MAX_GAMES

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Tune numeric parameters of BOT over games against opponents (with --players 3 or 4, BOT
at a table of opponents taken in turn, scored by first places). --method spsa: each
iteration plays theta+ and theta- on the same deals in every seating; gains a_k =
a/(A+k)^0.602, c_k = c/k^0.101 with defaults from the ranges. --method bayes: optuna's
TPE sampler proposes each trial, which plays twice as many deals; the answer is the
trial whose 5 nearest trials scored best. --method tbpsa: nevergrad's TBPSA, an
evolution strategy for noisy scores, trials as bayes's; the answer is its population's
mean. Writes OUT/history.csv as it goes and OUT/NAME.toml at the end, then verifies NAME
against BOT by the SPRT of tigris match (with 3 or 4 players both at each table, by
first places) until H1 or H0 is accepted, or not significant after --verify-games; the
verdict goes to OUT/result.json. --jobs sets how many iterations are proposed at once
(one per 4 jobs), so the same --seed and --jobs give the same history with --backend
loky or dask. tune --plot OUT draws the traces.
"""


def add_to(sub):
    p = add_command(sub, "tune", run,
                    help="tune a bot's numeric parameters over games (SPSA, Bayes or TBPSA)",
                    description=DESCRIPTION)
    p.add_argument("bot", nargs="?", metavar="BOT", help="the bot to tune (name or file)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=LOW:HIGH[:int]",
                   help="a parameter and its range; repeat for several")
    p.add_argument("--opponent", action="append", default=[], metavar="BOT",
                   help="opponent bot(s), used in turn; repeat for several")
    p.add_argument("--method", choices=("spsa", "bayes", "tbpsa"), default="spsa",
                   help="spsa (default), bayes (optuna's TPE sampler) or tbpsa (nevergrad's "
                        "evolution strategy for noise); the last two need the tune extra")
    p.add_argument("--budget", type=whole(4), default=400,
                   help="games to play (--iteration-games per iteration; default 400)")
    add_players(p, "players a game (default 2): BOT at a table of PLAYERS - 1 opponents, "
                   "taken in turn from the --opponent list; it scores by first places")
    p.add_argument("--iteration-games", type=whole(4), default=0, metavar="G",
                   help="games an iteration plays: a multiple of 2 x players (default 2 x "
                        "players: theta+ and theta- each on a deal in every seating, or a trial "
                        "on two)")
    add_jobs(p, "parallel games (default: all cores) and iterations proposed at once, one per "
                "4 jobs; with --backend dask only the latter, so the same --jobs gives the same "
                "history on either backend")
    add_backend(p)
    add_seed(p, "seed of the deals and the perturbations")
    p.add_argument("--name", help="name of the tuned bot (default BOT-tuned)")
    p.add_argument("--sprt", nargs="+", metavar="KEY=VALUE",
                   help="the verification's test, as tigris match's: elo0=.. elo1=.. [alpha=0.05] "
                        "[beta=0.05] (default elo0=0 elo1=50)")
    p.add_argument("--verify-games", type=whole(0, MAX_GAMES), default=0,
                   help="most games of the verification, NAME vs BOT (default: a tenth of the "
                        "budget, at least 200)")
    add_results_folder(p)
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its history")
    p.add_argument("--plot", metavar="DIR",
                   help="draw DIR/traces.png from a run's history (and say its verification) and stop")


def run(args):
    """tigris tune: SPSA, Bayes or TBPSA over numeric bot knobs, then a verification match."""
    from tigris import match, tune, tunefolder

    if args.plot:
        print(f"traces drawn in {tune.plot(args.plot)}")
        _said_verification(args.plot)
        return
    if not args.bot:
        raise UsageError("name the bot to tune (or give --plot DIR)")
    sprt = match.parse_sprt(args.sprt or [])       # tune.SPRT's elo0 and elo1 unless given
    spec = tune.TuneSpec(bot=args.bot, params=[tune.parse_param(p) for p in args.param],
                         opponents=args.opponent, budget=args.budget, seed=args.seed,
                         name=args.name, verify_games=args.verify_games, method=args.method,
                         players=args.players or 2, iteration_games=args.iteration_games)
    spec.check()
    out = args.out or f"results/{spec.name}"
    result = tune.tune(spec, out, jobs=args.jobs, resume=args.resume, backend=args.backend,
                       scheduler=args.scheduler, sprt=sprt)
    v = result["verification"]
    print(f"tuned: {', '.join(f'{k} = {v_:.4g}' for k, v_ in result['theta'].items())}")
    print(f"bot file: {result['bot_file']}")
    print(tune.verification_text(v, spec.name, args.bot))
    print(f"verification games: {v['file']} (tigris view {v['file']}:1 --out game.html)")
    print(f"history: {out}/{tunefolder.HISTORY_FILE}; result: {out}/{tunefolder.RESULT_FILE}; "
          f"traces: tigris tune --plot {out}")


def _said_verification(out):
    """After the traces: the verification of a finished run in `out`, as its result.json
    says it (one warning line if the file cannot be read; a run still going has none)."""
    import warnings
    from pathlib import Path

    from tigris import tune, tunefolder
    from tigris.errors import TuneError

    if not (Path(out) / tunefolder.RESULT_FILE).exists():
        return
    try:
        result = tunefolder.read_result(out)
        settings = tunefolder.read_settings(out)
    except TuneError as e:
        warnings.warn(f"{e}; the verification is not shown", stacklevel=2)
        return
    print(tune.verification_text(result["verification"], settings["name"], settings["bot"]))
