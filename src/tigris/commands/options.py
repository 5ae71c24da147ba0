"""The argument types and the options that several commands declare alike."""

import argparse
import math
import os

from tigris.analysis import THRESHOLDS
from tigris.boards import BOARD_NAMES
from tigris.errors import UsageError
from tigris.knobs import MAX_ITERATIONS, MAX_SECONDS

__all__ = ["SEED", "PLAY_BOARD", "MAX_JOBS", "THRESHOLD_POINTS", "POSITIVE", "JOBS", "COUNT", "whole",
           "seconds", "points", "as_threshold", "add_command", "add_seed", "fresh_seed", "secret_seed", "add_jobs", "add_backend", "add_players", "add_board", "add_bots",
           "add_json", "add_force", "add_budget", "add_game_source", "add_results_folder"]

SEED = 0                  # the default --seed of every command
PLAY_BOARD = "classic"    # play's default --board (None in its parser, for --resume)


def whole(low=None, high=None):
    """An argparse type: a whole number in [low, high]."""
    def parse(text):
        """The whole number `text` writes, within the bounds; ArgumentTypeError otherwise."""
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if (low is not None and value < low) or (high is not None and value > high):
            if high is None:
                raise argparse.ArgumentTypeError(f"must be {low} or more, not {value}")
            raise argparse.ArgumentTypeError(f"must be from {low} to {high:,}, not {value}")
        return value
    return parse


def seconds(text):
    """An argparse type: a positive, finite number of seconds (at most a day)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(f"must be above 0 and at most {MAX_SECONDS:g}, not {text}")
    return value


def points(mark):
    """An argparse type: a drop in points, above 0 and at most 100: of margin (points of
    final score) or of win chance (percentage points), as the analysis's measure says
    (``as_threshold`` makes it the threshold the analysis takes)."""
    def parse(text):
        """`text` as a number of points; ArgumentTypeError if out of range."""
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not (math.isfinite(value) and 0 < value <= 100):
            raise argparse.ArgumentTypeError(f"{mark} must be above 0 and at most 100 points, "
                                             f"not {text}")
        return value
    return parse


def as_threshold(mark, value, measure):
    """The threshold of `mark` the analysis takes for `value` points of `measure` (None:
    not given): points of margin as they are, percentage points of win chance as a
    fraction; a UsageError for a win chance's drop under 1 point, a fraction as
    thresholds were once given (said, not guessed)."""
    if value is None or measure != "win":
        return value
    if value < 1:
        raise UsageError(f"--{mark} is in percentage points of win chance ({value * 100:g} for "
                         f"a drop of {value:g}); give at least 1")
    return value / 100


# The marks' default thresholds, as the analysis's help and its report give them: points
# of margin, percentage points of win chance.
THRESHOLD_POINTS = {measure: {name: round(drop * 100) if measure == "win" else drop
                              for name, drop in marks.items()}
                    for measure, marks in THRESHOLDS.items()}
MAX_JOBS = max(64, 4 * (os.cpu_count() or 1))
POSITIVE = whole(1)                 # argparse types: a count of at least 1,
JOBS = whole(1, MAX_JOBS)           # a number of worker processes,
COUNT = whole(0)                    # a count that may be 0


def add_command(sub, name, run, help, description):
    """The parser of the command `name` among the subparsers `sub`, run by `run`;
    `description` is a paragraph whose lines are joined by spaces."""
    p = sub.add_parser(name, help=help, description=description.strip().replace("\n", " "))
    p.set_defaults(run=run)
    return p


def add_seed(p, what, default=SEED):
    """--seed: `what` the seed seeds.  A default of None lets the command tell a seed
    given from none: it draws a fresh one (``fresh_seed``)."""
    said = "a fresh one, printed" if default is None else default
    p.add_argument("--seed", type=int, default=default, help=f"{what} (default {said})")


def fresh_seed():
    """A new game's seed when none is given: drawn from the system's randomness, small
    enough to type again (every game a new deal, and --seed N plays it again)."""
    import secrets

    return secrets.randbelow(1_000_000)


def secret_seed():
    """A seed for a game people play, when none is given: 63 bits of the system's
    randomness.  It is the game's secret while the game is live (it deals every hidden
    tile), so it is never shown before the end, and too large for anyone to search the
    deals for the one that gives the hand they see (a million seeds can be tried in a
    second)."""
    import secrets

    return secrets.randbits(63)


def add_jobs(p, what="parallel games (default: all cores)", default=None):
    """--jobs: how many worker processes."""
    p.add_argument("--jobs", type=JOBS, default=default, help=what)


def add_backend(p):
    """--backend and --scheduler: where the games run (tigris.backends)."""
    p.add_argument("--backend", choices=("loky", "dask"), default="loky",
                   help="loky: processes on this machine; dask: a dask.distributed cluster")
    p.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler address (tcp://host:8786)")


def add_players(p, what):
    """--players: 2, 3 or 4 players a game."""
    p.add_argument("--players", type=int, choices=(2, 3, 4), help=what)


def add_board(p, what):
    """--board: the side of the board (default None: the command's own default)."""
    p.add_argument("--board", choices=BOARD_NAMES, help=what)


def add_bots(p, what):
    """--bots BOT...: bot names or files."""
    p.add_argument("--bots", nargs="+", metavar="BOT", help=what)


def add_json(p, what):
    """--json: print `what` as JSON instead of text."""
    p.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def add_force(p, what):
    """--force: replace the existing file(s) `what` names; without it an existing one is
    refused (``files.check_new``: the rule of every file a user names)."""
    p.add_argument("--force", action="store_true", help=f"replace {what} if it exists (else an "
                                                        f"existing file is refused)")


def add_results_folder(p, what="results folder (default results/NAME)", default=None):
    """--out DIR: a results folder."""
    p.add_argument("--out", metavar="DIR", default=default, help=what)


def add_budget(p, seconds_help, iterations_help):
    """--seconds or --iterations (one of them): the budget of a search."""
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=seconds, help=seconds_help)
    budget.add_argument("--iterations", type=whole(1, MAX_ITERATIONS), help=iterations_help)


def add_game_source(p, move_help):
    """The arguments that name a game: FILE, and --move N within a record."""
    p.add_argument("file", metavar="FILE", help="position or record JSON file, or games.jsonl:K")
    p.add_argument("--move", type=int, metavar="N", help=move_help)
