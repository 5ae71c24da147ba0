"""tigris match: paired games between two bots until a sequential test decides."""

from tigris.commands.options import add_backend, add_command, add_jobs, add_results_folder, add_seed, whole
from tigris.errors import TournamentError
from tigris.tournament import MAX_GAMES

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Play paired games (each deal in both seatings) between bots A and B until a sequential
probability ratio test accepts H1 (A is elo1 stronger) or H0 (A is elo0 stronger), or
--max-games; prints the score, the LLR and the decision.  The test's outcome is a deal,
its mean score over its seatings (so the seat a deal favours is no noise to it).  With
--players 3 or 4, A and B sit at each table with the --field bots and each deal is
played in every seating; a game counts by first places (one a field bot wins is a draw
between A and B).  With --out DIR the games are saved as they end, and the same command
with --resume continues a stopped match there, its games counted first (with the same
--jobs, as if it had not stopped).  The games run in worker processes here, or on a dask
cluster (--backend dask --scheduler ADDRESS).
"""


def add_to(sub):
    p = add_command(sub, "match", run, help="paired games between two bots until an SPRT decides",
                    description=DESCRIPTION)
    p.add_argument("a", metavar="A", help="first bot (the candidate)")
    p.add_argument("b", metavar="B", help="second bot (the reference)")
    p.add_argument("--sprt", nargs="+", metavar="KEY=VALUE", default=["elo0=0", "elo1=20"],
                   help="elo0=.. elo1=.. [alpha=0.05] [beta=0.05] (default elo0=0 elo1=20)")
    p.add_argument("--max-games", type=whole(1, MAX_GAMES), default=2000,
                   help="stop after this many games")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2,
                   help="players a game (default 2)")
    p.add_argument("--field", action="append", default=[], metavar="BOT",
                   help="the bot of a seat beyond A's and B's, once per seat (3 players: one, "
                        "4 players: two; each another bot)")
    add_jobs(p)
    add_seed(p, "base seed of the deals")
    add_results_folder(p, "save the games and the standings in DIR, a results folder")
    p.add_argument("--resume", action="store_true",
                   help="continue the match saved in --out DIR (the same bots and options): its "
                        "games count, and the test goes on from them")
    add_backend(p)


def run(args):
    """tigris match: paired games between two bots, with an SPRT if asked."""
    from tigris import match

    params = match.parse_sprt(args.sprt)
    result = match.sprt_match(args.a, args.b, max_games=args.max_games, jobs=args.jobs,
                              seed=args.seed, out=args.out, players=args.players,
                              field=args.field, resume=args.resume, backend=args.backend,
                              scheduler=args.scheduler, **params)
    print(match.format_result(result))
    if result["failed"] and not result["games"]:
        first = result["first_failure"]
        raise TournamentError(f"all {result['failed']} games failed, nothing is counted "
                              f"({first if len(first) <= 200 else first[:200] + '...'})"
                              + (f"; {args.out}/summary.md lists them" if args.out else ""))
