"""tigris hint: the best moves for the player to move in a position or a record."""

import json

from tigris.commands.games import game_of
from tigris.commands.options import (POSITIVE, add_budget, add_command, add_game_source, add_jobs,
                                     add_json, add_seed)
from tigris.hints import DEFAULT_BOT

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Search the decision at hand in a position (tigris-position/1) or a game record (after
its last move, or --move N) with ISMCTS, from what the player to move can see, and print
the plans: #1 the one the engine plays, then the others by how they read against it.
A plan is the move to make with the mover's decisions of the turn the search has
settled on (the same actions in either order one plan). Each row gives its visits,
every player's chance of finishing first (a shared first counted as its share: the
search's estimate averaged over the plan's visits, calibrated against the outcomes of
games), the standard error of the mover's chance from the plan's own visits, #1's
chance when it had the plan's visits, and a mark: = when the two cannot be told apart
(their intervals overlap), < or > when the plan reads below or above it beyond both.
Notes say what the search cannot tell apart and how much longer would, and why the
first plans: the expected final scores before and after, what the plan does, the likely
line."""


def add_to(sub):
    p = add_command(sub, "hint", run,
                    help="the best moves for the player to move in a position or record",
                    description=DESCRIPTION)
    add_game_source(p, "for a record: hint after N moves")
    add_budget(p, "search time (default 5 seconds)", "search iterations instead of time")
    p.add_argument("--top", type=POSITIVE, default=5, help="plans to show (default 5)")
    add_jobs(p, "parallel search workers (default 1)", default=1)
    p.add_argument("--bot", default=DEFAULT_BOT, help=f"ISMCTS configuration to search with (default {DEFAULT_BOT})")
    add_seed(p, "search seed")
    add_json(p, "the hints")


def run(args):
    """tigris hint: the best moves for the player to move in a position or a record."""
    from tigris.hints import format_table, hint

    g = game_of(args.file, args.move)
    hints = hint(g, seconds=args.seconds, iterations=args.iterations, top=args.top,
                 workers=args.jobs, bot=args.bot, seed=args.seed)
    if args.json:
        print(json.dumps(hints.as_dict(g), indent=2))
    else:
        print(format_table(g, hints))
