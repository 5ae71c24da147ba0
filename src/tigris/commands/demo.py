"""tigris demo: the demonstration tournament (resumed if its folder holds one)."""

import sys
from pathlib import Path

from tigris.commands.options import add_command, add_jobs, add_results_folder

__all__ = ["DEMO", "DESCRIPTION", "add_to", "run"]

DEMO = {"name": "demo", "bots": ["random", "greedy", "ismcts-fast"], "players": 2, "games": 24, "seed": 1}

DESCRIPTION = """\
Play the built-in demonstration tournament (random, greedy and ismcts-fast, 2 players,
24 games) and print the standings. Results go to --out (default results/demo); running
it again continues or reprints that tournament.
"""


def add_to(sub):
    p = add_command(sub, "demo", run,
                    help="a short demonstration tournament (about 30 seconds on 2 cores)",
                    description=DESCRIPTION)
    add_results_folder(p, "results folder", default="results/demo")
    add_jobs(p)


def run(args):
    """tigris demo: the demonstration tournament (resumed if its folder holds one)."""
    from tigris import tournament

    again = (Path(args.out) / tournament.SPEC_FILE).exists()
    if again:
        print(f"continuing the demonstration saved in {args.out}", file=sys.stderr)
    summary = tournament.run(None if again else tournament.Spec(**DEMO), out=args.out,
                             jobs=args.jobs, resume=again)
    print(tournament.format_summary(summary))
    print(f"\nresults in {args.out}/ (games.jsonl, summary.md); replay a game with "
          f"tigris replay {args.out} --game 0")
