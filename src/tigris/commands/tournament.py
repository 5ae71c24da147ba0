"""tigris tournament: bots against each other in parallel, with ratings."""

import sys
import warnings

from tigris.commands.options import (add_backend, add_board, add_bots, add_command, add_jobs,
                                     add_players, add_results_folder, add_seed, whole)
from tigris.errors import TournamentError, UsageError
from tigris.tournament import MAX_GAMES

__all__ = ["DESCRIPTION", "add_to", "run"]

# the options that change a tournament's setup: none of them goes with --resume
SETUP = ("games", "players", "seed", "board", "name")


DESCRIPTION = """\
Play a tournament from a spec file (a TOML file such as tournaments/demo.toml) or from
--bots; every deal is played in every seating. Finished games go to OUT/games.jsonl at
once; standings to OUT/summary.md.
"""


def add_to(sub):
    p = add_command(sub, "tournament", run, help="play bots against each other and rate them",
                    description=DESCRIPTION)
    p.add_argument("spec", nargs="?", metavar="SPEC", help="tournament spec (TOML)")
    add_bots(p, "bot names or files (instead of a spec)")
    p.add_argument("--games", type=whole(1, MAX_GAMES),
                   help="total games (default 20; rounded up to full seatings)")
    add_players(p, "players per game (default 2)")
    add_seed(p, "base seed of the deals", default=None)
    add_board(p, "board side (default classic)")
    p.add_argument("--name", help="tournament name (default: the spec's file name)")
    add_jobs(p)
    add_results_folder(p)
    p.add_argument("--resume", metavar="DIR", help="continue the tournament in DIR")
    add_backend(p)


def run(args):
    """tigris tournament: run (or resume) a tournament and print its standings."""
    from tigris import tournament

    if args.resume:
        given = [f"--{k}" for k in (*SETUP, "out") if getattr(args, k) is not None]
        if args.spec or args.bots or given:
            raise UsageError(f"--resume DIR continues the tournament saved in DIR as it was set "
                             f"up; give no {'spec or bots' if args.spec or args.bots else ', '.join(given)} "
                             f"with it")
        summary = tournament.run(out=args.resume, jobs=args.jobs, resume=True,
                                 backend=args.backend, scheduler=args.scheduler)
        out = args.resume
    else:
        spec = _spec(args)
        out = args.out or f"results/{spec.name}"
        summary = tournament.run(spec, out=out, jobs=args.jobs, backend=args.backend,
                                 scheduler=args.scheduler)
    print(tournament.format_summary(summary))
    print(f"\nresults in {out}/ (games.jsonl, summary.md, summary.json)")
    _failures(summary, out)


def _failures(summary, out):
    """The run's last line when games failed: an error (status 1) when every game it
    played failed, else a warning saying how many did."""
    played, errors = summary["played"], summary["errors"]
    if not errors:
        return
    first = errors[0]
    again = f"fix the cause, then play them again with --resume {out}"
    if played["failed"] and not played["games"]:
        raise TournamentError(f"all {played['failed']} games of this run failed (game {first['game']}: "
                              f"{_cut(first['error'], 200)}); nothing new is rated: {again}")
    warnings.warn(f"{len(errors)} of {summary['scheduled']} games failed and are not rated "
                  f"(game {first['game']}: {_cut(first['error'], 120)}; {out}/summary.md lists "
                  f"them): {again}", stacklevel=2)


def _spec(args):
    """The tournament of a spec file or --bots, with the options given, checked."""
    from tigris import tournament

    if bool(args.spec) == bool(args.bots):
        raise UsageError("give a spec file or --bots (one of them)")
    spec = tournament.load_spec(args.spec) if args.spec else tournament.Spec(bots=args.bots, name="tournament")
    for key in SETUP:
        if getattr(args, key) is not None:
            setattr(spec, key, getattr(args, key))
    spec.check(where=args.spec)
    shared = spec.shared_seats()
    if shared:
        print(f"note: {spec.players} seats and {len(spec.bots)} bots: {shared} plays two seats "
              f"at every table", file=sys.stderr)
    return spec


def _cut(text, limit):
    return text if len(text) <= limit else text[:limit] + "..."
