"""A game or position named on the command line (FILE, or FILE:K: the K-th game of a
games.jsonl), read and checked, and a finished game's result printed."""

import contextlib
import os

from tigris.errors import IllegalActionError, PositionError, RecordError, UsageError
from tigris.files import source_file

__all__ = ["load", "reading", "game_of", "print_result", "same_file"]


def load(path):
    """The JSON of a position or record file, or of line K of FILE:K."""
    from tigris import record as records

    with reading(path, RecordError):
        return records.load(path)


@contextlib.contextmanager
def reading(path, error):
    """Any failure while a file's content is read or checked is a problem of the file:
    raise `error` naming it (the loaders' own errors keep their class and message)."""
    file = source_file(path)             # FILE:K names a line of FILE
    try:
        yield
    except UnicodeDecodeError:
        raise error(f"{file}: not UTF-8 text") from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError) as e:
        if isinstance(e, (PositionError, RecordError, UsageError, IllegalActionError)) \
                and str(e).startswith(file):
            raise
        cls = type(e) if isinstance(e, (PositionError, RecordError)) else error
        what = str(e) if isinstance(e, ValueError) else f"{type(e).__name__}: {e}"
        raise cls(f"{path}: {what}") from None


def game_of(path, move=None):
    """The game of a position or record file (a record after `move` moves): one replay."""
    import tigris
    from tigris import record as records

    data = load(path)
    if isinstance(data, dict) and str(data.get("format", "")).startswith("tigris-game/"):
        moves = data.get("moves")
        if move is not None and isinstance(moves, list) and not 0 <= move <= len(moves):
            raise UsageError(f"--move {move} is out of range: the record has {len(moves)} moves "
                             f"(give 0 to {len(moves)})")
        with reading(path, RecordError):
            return records.replay(data, upto=move)
    if move is not None:
        raise UsageError("--move applies to game records, not positions")
    with reading(path, PositionError):
        return tigris.Game.from_position(data)


def print_result(g):
    """The ranking of a finished game, each player's final score and its parts."""
    for place, players in enumerate(g.ranking(), start=1):
        for p in players:
            s = g.score(p)
            print(f"{place}. player {p}: {g.final_score(p)} "
                  f"(red {s['red']}, blue {s['blue']}, green {s['green']}, black {s['black']}, "
                  f"treasures {s['treasures']})")


def same_file(a, b):
    """Whether `a` and `b` name one file (False when either cannot be found)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
