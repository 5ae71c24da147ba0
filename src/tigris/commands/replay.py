"""tigris replay: step through a finished game, a record file or a results folder's."""

from pathlib import Path

from tigris.commands.games import load, print_result, reading
from tigris.commands.options import COUNT, add_command
from tigris.errors import RecordError, UsageError

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Print a finished game move by move, and the board at the end: the K-th game of a results
folder, or a record file.  --every N shows the board every N moves too; --step shows it
after each move and waits (Enter for the next, q to stop).
"""


def add_to(sub):
    p = add_command(sub, "replay", run, help="step through a finished game",
                    description=DESCRIPTION)
    p.add_argument("source", metavar="DIR_OR_RECORD")
    p.add_argument("--game", type=COUNT, metavar="K", help="game number in the results folder (0-based, "
                                                         "as in games.jsonl's \"game\" field)")
    p.add_argument("--every", type=COUNT, metavar="N",
                   help="board every N moves (default: the last board only; with --step, 1)")
    p.add_argument("--step", action="store_true",
                   help="wait after each board: Enter for the next, q to stop")


def run(args):
    """tigris replay: step through a recorded game (a record file or a tournament's game)."""
    rec, source = _record(args)
    with reading(source, RecordError):
        if not isinstance(rec, dict) or not str(rec.get("format", "")).startswith("tigris-game/"):
            raise RecordError("not a game record (tigris-game/1)")
        every = args.every if args.every is not None else 1 if args.step else 0
        shown, g = _shown(rec, every)           # every move checked before any is shown
    bots = rec.get("bots") if isinstance(rec.get("bots"), list) else []
    title = f"game {rec['game']}" if isinstance(rec.get("game"), int) else Path(args.source).name
    print(f"{title}: {', '.join(f'player {i}: {b}' for i, b in enumerate(bots)) or 'bots not recorded'}")
    total = len(shown) - 1
    for n, (line, board) in enumerate(shown):
        if line:
            print(line)
        if board is not None:
            print(board)
            if args.step and n < total and not _next(n, total):
                return
    if rec.get("error"):
        print(f"the game stopped with an error: {rec['error']}")
    elif g.is_over:
        print_result(g)


def _next(n, total):
    """Wait for the reader after move `n`: True to go on, False when they typed q."""
    try:
        answer = input("-- Enter for the next move, q to stop --")
    except EOFError:
        print()                      # end the prompt's line
        raise UsageError(f"end of input after move {n} of {total}: replay stopped") from None
    if answer.strip().lower() in ("q", "quit"):
        print(f"stopped after move {n} of {total}")
        return False
    return True


def _record(args):
    """The record to replay and how messages name it: game --game K of a results folder,
    or a record file (FILE:K: the K-th line of a games.jsonl)."""
    from tigris.tournament import read_games

    if Path(args.source).is_dir():
        if args.game is None:
            raise UsageError(f"{args.source} is a results folder: name the game with --game K")
        recs = read_games(args.source, repair=False, game=args.game)
        if not recs:
            raise UsageError(f"{args.source}: no game {args.game} in games.jsonl")
        return recs[0], f"{args.source}/games.jsonl, game {args.game}"
    if not Path(args.source).exists():
        raise UsageError(f"{args.source}: no such record file or results folder")
    if args.game is not None:
        raise UsageError(f"--game K picks a game of a results folder; {args.source} is a file")
    return load(args.source), args.source


def _shown(rec, every):
    """One replay of a record, every move and the result checked: after each move, its
    line and the board if it is shown (every `every` moves, and the last), and the game
    at the end."""
    from tigris import record as records

    total = len(rec["moves"]) if isinstance(rec.get("moves"), list) else 0
    shown = []
    for n, g in records.steps(rec):
        line = f"{n:4}. player {g.history[-1][1]}: {g.action_str(g.history[-1][0])}" if n else ""
        shown.append((line, str(g) if n == total or (every and n % every == 0) else None))
    records.check_result(rec, g)
    return shown, g
