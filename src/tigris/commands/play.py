"""tigris play: one game between bots, shown as it goes; or people at the table with
--you, and a game left at the table taken up again with --resume."""

import json

from tigris._game import VARIANTS
from tigris.commands.games import print_result
from tigris.commands.options import (COUNT, PLAY_BOARD, add_board, add_bots, add_command, add_force,
                                     add_players, add_seed, fresh_seed)
from tigris.errors import ConfigError, UsageError
from tigris.files import check_new, write_text
from tigris import hints
from tigris.bots import DEFAULT as DEFAULT_BOT

__all__ = ["DESCRIPTION", "add_to", "run"]

DESCRIPTION = """\
Play one game between bots (default: random players), print the board every few turns
and the final ranking, and optionally write the game record.  Without --seed every game
is a new deal, its seed printed (and recorded) so that --seed plays it again.  With --you, you play the
seats named (0 moves first) at this terminal against the bots: type moves in the
engine's notation (Tab completes them) or the commands moves, hint, undo, board, save
FILE, quit, help.  The record is kept up to date in --record (default
tigris-game-TIME.json; an existing file is refused unless --force).  A game left
with quit (or end of input, or Ctrl-C) goes on with --resume FILE: the record is
replayed and checked, its seats (humans and bots), players, board, variants and seed are
the game's, and its moves keep being added to FILE.
"""


def add_to(sub):
    p = add_command(sub, "play", run,
                    help="play one game between bots, or sit at the table yourself",
                    description=DESCRIPTION)
    p.add_argument("--you", nargs="+", type=COUNT, metavar="SEAT",
                   help="the seats you play (0 to 3; several for several people at one terminal)")
    add_bots(p, "one bot per seat, or per seat left by --you; one bot fills every seat "
                f"(default: random, with --you {DEFAULT_BOT})")
    add_players(p, "players (default: one per bot, or 2)")
    # --seed and --board default to None so that --resume can tell what was given
    add_seed(p, "deal and bot seed", default=None)
    add_board(p, "board side (default classic; advanced: the 14-treasure side)")
    p.add_argument("--variant", action="append", default=[], choices=tuple(VARIANTS),
                   dest="variants", help="play a variant (english, buildings); repeat for both")
    p.add_argument("--every", type=COUNT, default=10, metavar="TURNS",
                   help="show the board every TURNS turns (default 10; 0: only the end)")
    p.add_argument("--record", metavar="FILE", help="write the game record (tigris-game/1 JSON) here")
    add_force(p, "the --record file")
    p.add_argument("--resume", metavar="FILE",
                   help="go on with the game of a record left unfinished at the table (the "
                        "seats, board, variants and seed are the record's; options given too "
                        "must agree with it); its moves keep being added to FILE")
    p.add_argument("--hint-bot", default=hints.DEFAULT_BOT, metavar="BOT",
                   help="with --you: the configuration the hint command searches with "
                        f"(default {hints.DEFAULT_BOT})")


def run(args):
    """tigris play: one game between bots, shown as it goes; its record saved on request."""
    import tigris
    from tigris import bots as botlib
    from tigris.commands import terminal
    from tigris.play.runner import TURN_LIMIT, bot_seed, play_out, record_of

    if args.resume is not None:
        return terminal.resume(args)
    if args.you is not None:
        return terminal.play(args)
    names = _bot_names(args)
    seed = fresh_seed() if args.seed is None else args.seed
    if args.record:                  # before the game: not a bot file read, a regular file
        check_new(args.record, "--record", args.force, reads=names)
    try:
        bots = [botlib.load(name, seed=bot_seed(seed, 0, i)) for i, name in enumerate(names)]
    except ValueError as e:
        raise ConfigError(f"--bots: {e}") from None
    g = tigris.Game(players=len(names), seed=seed, board=args.board or PLAY_BOARD,
                    variants=tuple(dict.fromkeys(args.variants)))
    if args.seed is None:
        print(f"seed {seed} (--seed {seed} plays this game again)")
    shown = set()

    def show(g):                      # the board every --every turns, once a turn
        if args.every and g.turn % args.every == 0 and g.turn not in shown and g.decision == "action":
            print(f"--- turn {g.turn} ---")
            print(g)
            shown.add(g.turn)

    play_out(g, bots, before=show)
    print(f"--- final position, turn {g.turn}, after {len(g.history)} decisions ---")
    print(g)
    if not g.is_over:
        print(f"the game did not end: {TURN_LIMIT}")
    print_result(g)
    if args.record:
        write_text(args.record, json.dumps(record_of(g, names)) + "\n")
        print(f"record written to {args.record}")


def _bot_names(args):
    """The bot of each seat of a game between bots: --bots, or random players."""
    if args.bots and not 2 <= len(args.bots) <= 4:
        raise UsageError(f"--bots: a game has 2 to 4 players, one bot per seat; {len(args.bots)} "
                         f"bots given")
    players = args.players or (len(args.bots) if args.bots else 2)
    names = args.bots or ["random"] * players
    if len(names) != players:
        raise UsageError(f"--bots names {len(names)} bots for {players} players")
    return names
