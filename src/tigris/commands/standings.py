"""tigris standings: the tables of a results folder, computed again."""

import json

from tigris.commands.options import add_command, add_json

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Recompute and print the standings and the head-to-head table from DIR/games.jsonl.
"""


def add_to(sub):
    p = add_command(sub, "standings", run,
                    help="print the standings of a tournament results folder",
                    description=DESCRIPTION)
    p.add_argument("dir", metavar="DIR")
    add_json(p, "the summary")


def run(args):
    """tigris standings: the tables of a results folder, computed again."""
    from tigris import tournament

    summary = tournament.load_summary(args.dir)
    print(json.dumps(summary, indent=2) if args.json else tournament.format_summary(summary))
