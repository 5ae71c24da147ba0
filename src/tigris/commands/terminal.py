"""tigris play --you and --resume: people playing at this terminal, against bots.  A
game holds its record's lock while it is played (``locks.hold``), so no server's table
and no other terminal plays the same record at once."""

import time
from pathlib import Path

from tigris._plumbing.locks import hold
from tigris.commands.games import load, reading, same_file
from tigris.commands.options import PLAY_BOARD, secret_seed
from tigris.errors import ConfigError, RecordError, UsageError
from tigris.files import check_new, check_target
from tigris.bots import DEFAULT as DEFAULT_BOT

__all__ = ["play", "resume"]


def play(args):
    """tigris play --you SEAT...: human seats at this terminal against bots."""
    import tigris
    from tigris import seat

    you = list(dict.fromkeys(args.you))
    if len(you) != len(args.you):
        raise UsageError(f"--you names a seat twice: {' '.join(map(str, args.you))}")
    if max(you) > 3:
        raise UsageError(f"--you {max(you)}: a game has at most 4 seats, 0 to 3")
    names = args.bots or [DEFAULT_BOT]
    players = args.players or (max(len(you) + (len(names) if args.bots else 1), max(you) + 1))
    if not 2 <= players <= 4:
        raise UsageError(f"a game has 2 to 4 players; --you and --bots make {players}")
    if max(you) >= players:
        raise UsageError(f"--you {max(you)}: a {players}-player game has seats 0 to {players - 1}")
    open_seats = [s for s in range(players) if s not in you]
    if len(names) == 1:
        names = names * len(open_seats)
    if len(names) != len(open_seats):
        raise UsageError(f"--bots names {len(names)} bots for the seats --you leaves "
                         f"({', '.join(map(str, open_seats)) or 'none'}); give one per seat, "
                         f"or one for all")
    if seat.HUMAN in names:                  # the record's mark of a person, not a bot
        raise UsageError(f"--bots: {seat.HUMAN!r} is no bot; --you names the people's seats")
    seed = secret_seed() if args.seed is None else args.seed     # shown once the game is over
    table_names = [seat.HUMAN] * players
    for s, name in zip(open_seats, names):
        table_names[s] = name
    seats = _table_seats(table_names, seed, "--bots")
    _check_hint_bot(args)
    # named by the time, never by the seed: the seed deals every hidden tile
    record = (Path(args.record) if args.record
              else _free_name(f"tigris-game-{time.strftime('%Y%m%d-%H%M%S')}", ".json"))
    _check_new_record(record, args.force)
    game = tigris.Game(players=players, seed=seed, board=args.board or PLAY_BOARD,
                       variants=tuple(dict.fromkeys(args.variants)))
    with hold(record, file=True):
        _check_new_record(record, args.force)   # again, held: no other run made it meanwhile
        table = _table(args, game, seats, table_names, record)
        table.save()                     # a record file that cannot be written stops us here
        _welcome(table, "", you, record)


def resume(args):
    """tigris play --resume FILE: the game of a record left unfinished, at this terminal;
    its moves keep being added to FILE."""
    from tigris import seat

    path = check_target(args.resume, option="--resume")
    if not path.exists():
        raise UsageError(f"--resume {path}: no such file")
    with hold(path, file=True):          # read once no server or terminal plays it
        rec = load(path)
        with reading(path, RecordError):
            game, names = seat.unfinished_game(rec)
        _check_resume_options(args, game, names, path)
        _check_hint_bot(args)
        seats = _table_seats(names, game.seed, f"--resume {path}")
        table = _table(args, game, seats, names, path)
        humans = [s for s, bot in enumerate(seats) if bot is None]
        _welcome(table, f"resumed after move {len(game.history)}, turn {game.turn}: ", humans, path)


def _table(args, game, seats, names, record):
    """The table of `game` at this terminal, its record kept in `record`."""
    from tigris import seat

    seat.use_terminal()
    return seat.Terminal(game, seats, names, record, colour=seat.colour_wanted(),
                         hint_bot=args.hint_bot)


def _welcome(table, opening, humans, record):
    """Say who plays which seat and where the record is kept, then play."""
    table.write(f"{opening}you play seat{'s' * (len(humans) > 1)} {', '.join(map(str, humans))} "
                f"of {table.game.players}; the record is kept in {record}; type help for the "
                f"commands")
    table.play()


def _table_seats(names, seed, option):
    """The bots of a table by seat (None for a human seat), each with its seed."""
    from tigris import bots as botlib
    from tigris import seat
    from tigris.play.runner import bot_seed

    try:
        return [None if name == seat.HUMAN else botlib.load(name, seed=bot_seed(seed, 0, s))
                for s, name in enumerate(names)]
    except ValueError as e:
        raise ConfigError(f"{option}: {e}") from None


def _check_hint_bot(args):
    from tigris import bots as botlib

    try:
        botlib.configuration(args.hint_bot)
    except ValueError as e:
        raise ConfigError(f"--hint-bot: {e}") from None


def _check_new_record(record, force=False):
    """A new game's record file must not exist yet unless `force`: an existing one (a
    game left with quit, above all) would be emptied at the first prompt."""
    from tigris import record as records

    check_target(record, option="--record", in_folder=True)          # a folder, a device
    if force or not record.exists():
        return
    try:
        held = records.load(record)
    except (ValueError, OSError):
        held = None
    if isinstance(held, dict) and str(held.get("format", "")).startswith("tigris-game/"):
        raise UsageError(f"--record {record} holds a game already: go on with it with "
                         f"tigris play --resume {record}, or name another file")
    check_new(record, "--record")         # the one wording of an existing file refused


def _check_resume_options(args, game, names, path):
    """Options given with --resume must say what the record says (they cannot change the
    game); UsageError naming the first that does not."""
    from tigris import seat

    humans = [s for s, name in enumerate(names) if name == seat.HUMAN]
    bots = [name for name in names if name != seat.HUMAN]
    seats = ", ".join(map(str, humans))
    checks = [
        (args.you is not None and sorted(set(args.you)) != humans,
         f"--you {' '.join(map(str, args.you or []))}: the record's human "
         f"seat{'s are' if len(humans) > 1 else ' is'} {seats}"),
        (args.players is not None and args.players != game.players,
         f"--players {args.players}: the record's game has {game.players} players"),
        (args.seed is not None and args.seed != game.seed,
         f"--seed {args.seed}: the record's game has seed {game.seed}"),
        (args.board is not None and args.board != game.board,
         f"--board {args.board}: the record's game is on the {game.board} board"),
        (bool(args.variants) and set(args.variants) != set(game.variants),
         f"--variant: the record's game has "
         f"{'variants ' + ', '.join(game.variants) if game.variants else 'no variant'}"),
        (bool(args.bots) and args.bots != bots
         and not (len(args.bots) == 1 and set(bots) == set(args.bots)),
         f"--bots {' '.join(args.bots or [])}: the record's bots are {' '.join(bots)}"),
        (args.record is not None and not same_file(args.record, path),
         f"--record: a resumed game is kept in its own file, {path}"),
    ]
    for wrong, message in checks:
        if wrong:
            raise UsageError(message)


def _free_name(stem, suffix):
    """A file name in the current folder that no file has yet: STEM.SUFFIX, STEM-2.SUFFIX..."""
    path, k = Path(stem + suffix), 1
    while path.exists():
        k += 1
        path = Path(f"{stem}-{k}{suffix}")
    return path
