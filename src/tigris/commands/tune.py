"""tigris tune: SPSA or Bayes over numeric bot knobs, then a verification match."""

from tigris.commands.options import add_command, add_jobs, add_results_folder, add_seed, whole
from tigris.errors import UsageError
from tigris.tournament import MAX_GAMES

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Tune numeric parameters of BOT over games against an opponent. --method spsa: each
iteration plays theta+ and theta- on one deal in both seatings; gains a_k =
a/(A+k)^0.602, c_k = c/k^0.101 with defaults from the ranges. --method bayes: optuna's
TPE sampler proposes each trial, which plays two deals in both seatings; the answer is
the trial whose 5 nearest trials scored best. Writes OUT/history.csv as it goes,
OUT/NAME.toml at the end, and verifies it against BOT. tune --plot OUT draws the traces.
"""


def add_to(sub):
    p = add_command(sub, "tune", run,
                    help="tune a bot's numeric parameters over games (SPSA or Bayes)",
                    description=DESCRIPTION)
    p.add_argument("bot", nargs="?", metavar="BOT", help="the bot to tune (name or file)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=LOW:HIGH[:int]",
                   help="a parameter and its range; repeat for several")
    p.add_argument("--opponent", action="append", default=[], metavar="BOT",
                   help="opponent bot(s), used in turn; repeat for several")
    p.add_argument("--method", choices=("spsa", "bayes"), default="spsa",
                   help="spsa (default) or bayes (optuna's TPE sampler; pip install optuna)")
    p.add_argument("--budget", type=whole(4), default=400, help="games to play (4 per iteration; default 400)")
    add_jobs(p)
    add_seed(p, "seed of the deals and the perturbations")
    p.add_argument("--name", help="name of the tuned bot (default BOT-tuned)")
    p.add_argument("--verify-games", type=whole(0, MAX_GAMES), default=0,
                   help="games of the final check, tuned vs BOT (default: a tenth of the budget, >= 20)")
    add_results_folder(p)
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its history")
    p.add_argument("--plot", metavar="DIR", help="draw DIR/traces.png from a run's history and stop")


def run(args):
    """tigris tune: SPSA or Bayes over numeric bot knobs, then a verification match."""
    from tigris import tune, tunefolder

    if args.plot:
        print(f"traces drawn in {tune.plot(args.plot)}")
        return
    if not args.bot:
        raise UsageError("name the bot to tune (or give --plot DIR)")
    spec = tune.TuneSpec(bot=args.bot, params=[tune.parse_param(p) for p in args.param],
                         opponents=args.opponent, budget=args.budget, seed=args.seed,
                         name=args.name, verify_games=args.verify_games, method=args.method)
    spec.check()
    out = args.out or f"results/{spec.name}"
    result = tune.tune(spec, out, jobs=args.jobs, resume=args.resume)
    v = result["verification"]
    print(f"tuned: {', '.join(f'{k} = {v_:.4g}' for k, v_ in result['theta'].items())}")
    print(f"bot file: {result['bot_file']}")
    if v["score"] is not None:
        verdict = ("" if v["significant"] else
                   "; not significant: the interval includes 50%, play more --verify-games")
        print(f"verification, tuned vs {args.bot}: {v['score']:.1%} over {v['games']} games "
              f"(95% interval {v['ci95'][0]:.1%}-{v['ci95'][1]:.1%}){verdict}")
    print(f"verification games: {v['file']} (tigris view {v['file']}:1 --out game.html)")
    print(f"history: {out}/{tunefolder.HISTORY_FILE}; traces: tigris tune --plot {out}")
