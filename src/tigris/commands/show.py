"""tigris show: a position or game record as a board diagram."""

from tigris.commands.games import game_of, print_result
from tigris.commands.options import add_command, add_game_source

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Print the board of a position (tigris-position/1) or of a game record (tigris-game/1)
after its last move or after --move N. A game from a tournament's games.jsonl is named
FILE:K (K-th game).
"""


def add_to(sub):
    p = add_command(sub, "show", run, help="print a position or a game record as a board diagram",
                    description=DESCRIPTION)
    add_game_source(p, "for a record: the state after N moves")
    p.add_argument("--moves", action="store_true", help="for a record: also list the moves")


def run(args):
    """tigris show: the board of a position or of a record after a move."""
    g = game_of(args.file, args.move)
    if args.moves:
        for n, (a, p, forced, _) in enumerate(g.history, start=1):
            extra = f"  (then {', '.join(g.action_str(f) for f in forced)})" if forced else ""
            print(f"{n:4}. player {p}: {g.action_str(a)}{extra}")
    print(g)
    if g.is_over:
        print_result(g)
