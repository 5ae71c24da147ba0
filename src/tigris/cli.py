"""The ``tigris`` command.

    tigris demo                      a short demonstration tournament (about a minute)
    tigris play                      one game between bots, shown as it goes
    tigris play --you SEAT ...       you at the table against bots, at this terminal
    tigris tournament [SPEC] ...     bots against each other in parallel, with ratings
    tigris standings DIR             the standings of a results folder
    tigris match A B --sprt ...      paired games until a sequential test decides
    tigris replay DIR --game K       step through a finished game
    tigris show FILE [--move N]      a position or game record as a board diagram
    tigris hint FILE                 the best moves for the player to move
    tigris analyse RECORD [--out F]  computer analysis of a finished game: best moves, mistakes
    tigris view RECORD|DIR --out P   a game (or a results folder) as HTML pages to step through
    tigris tune BOT --param ...      tuning of a bot's numeric parameters (SPSA or Bayes)
    tigris bots                      the bot configurations and their settings
    tigris bench [PART]              speed of the core or the search; how decisive hints are
"""

import argparse
import contextlib
import json
import math
import os
import signal
import sys
import threading
import warnings
from pathlib import Path

import tigris
from tigris._game import VARIANTS
from tigris.search import MAX_ITERATIONS
from tigris.analysis import THRESHOLDS
from tigris.boards import BOARD_NAMES
from tigris.bots.config import MAX_SECONDS
from tigris.errors import ConfigError, IllegalActionError, PositionError, RecordError, UsageError
from tigris.files import check_target, write_text
from tigris.hint import DEFAULT_BOT
from tigris.sources import check_source
from tigris.tournament import MAX_GAMES

MESSAGE_LIMIT = 600       # characters of an error line; the rest is cut
SEED = 0                  # the default --seed of every command


def main(argv=None):
    """Run the tigris command with `argv` (default: sys.argv[1:]); returns the exit status.
    Bad input is reported as one line 'tigris COMMAND: message' and status 1, never a
    traceback; Ctrl-C ends a run with 130, SIGTERM with 143."""
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:                          # named with the command they were given to
            prog = f"tigris {args.command}" if getattr(args, "command", None) else "tigris"
            raise _ArgumentError(prog, f"unrecognized arguments: {' '.join(extra)} "
                                       f"(see {prog} --help)")
    except _ArgumentError as e:
        _report(e.prog, str(e))
        return 2
    except SystemExit as e:               # --help
        return e.code
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    prog = f"tigris {args.command}"
    with _terminate_as_interrupt() as received, _warnings_as_lines(prog):
        try:
            return args.run(args) or 0
        except KeyboardInterrupt as e:
            # Ctrl-C, or SIGTERM: the runners have stopped their workers and kept the
            # finished games; the message says where
            _report(prog, str(e) or "interrupted")
            return 128 + (received[0] if received else signal.SIGINT)
        except BrokenPipeError:            # the output was cut short (| head): nothing to report
            with contextlib.suppress(OSError):
                sys.stderr.close()
            return 0
        except OSError as e:               # a file that cannot be read or written
            _report(prog, f"{e.filename}: {e.strerror}" if e.filename and e.strerror else str(e))
            return 1
        except (UsageError, PositionError, RecordError, IllegalActionError) as e:
            # the package's documented errors: an option, a bot or tournament configuration
            # (ConfigError), a run (TournamentError), a file's content; the message names it
            _report(prog, str(e) or type(e).__name__)
            return 1
        except (ValueError, OverflowError, EOFError) as e:
            # a bad value met anywhere else; OverflowError: a number too large for the
            # compiled core
            _report(prog, str(e) or type(e).__name__)
            return 1


def _report(prog, message):
    """The one line of an error: ``tigris COMMAND: message`` on stderr."""
    text = " ".join(str(message).split())          # one line, whatever the message holds
    if text.startswith(f"{prog}: "):
        text = text[len(prog) + 2:]
    command = prog.split()[-1]
    while text.startswith(f"{command}: "):       # a prefix that only repeats the command
        text = text[len(command) + 2:]
    if len(text) > MESSAGE_LIMIT:
        text = text[:MESSAGE_LIMIT] + "..."
    print(f"{prog}: {text}", file=sys.stderr)


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM takes the path of Ctrl-C: the runners stop their workers and keep the
    finished games.  Yields a list that receives the signal number.  A second SIGTERM
    during the clean-up ends the process at once (the workers then end themselves)."""
    received = []
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield received                    # not ours to handle (ignored, or handled by the host)
        return

    def handler(signum, frame):
        received.append(signum)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def _warnings_as_lines(prog):
    """Warnings (a torn games.jsonl line repaired, ...) as one line each, without the
    source line Python prints with them."""
    with warnings.catch_warnings():
        warnings.showwarning = lambda message, *rest, **kw: _report(prog, f"warning: {message}")
        yield


class _ArgumentError(Exception):
    def __init__(self, prog, message):
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """Option errors as one line, ``tigris COMMAND: message`` (exit status 2)."""

    def error(self, message):
        raise _ArgumentError(self.prog, f"{message} (see {self.prog} --help)")


def _whole(low=None, high=None):
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


def _seconds(text):
    """An argparse type: a positive, finite number of seconds (at most a day)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(f"must be above 0 and at most {MAX_SECONDS:g}, not {text}")
    return value


def _points(mark):
    """An argparse type: a drop of win chance in percentage points, from 1 to 100, as the
    fraction the analysis takes."""
    def parse(text):
        """`text` percentage points as a fraction; ArgumentTypeError if out of range."""
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not (math.isfinite(value) and 0 < value <= 100):
            raise argparse.ArgumentTypeError(f"{mark} must be above 0 and at most 100 points, "
                                             f"not {text}")
        if value < 1:           # a fraction, as thresholds were once given: say so, not guess
            raise argparse.ArgumentTypeError(f"{mark} is in percentage points ({value * 100:g} "
                                             f"for a drop of {value:g}); give at least 1")
        return value / 100
    return parse


# The marks' default thresholds, as the analysis's help and its report give them: points.
THRESHOLD_POINTS = {name: round(drop * 100) for name, drop in THRESHOLDS.items()}
MAX_JOBS = max(64, 4 * (os.cpu_count() or 1))
POSITIVE = _whole(1)                # argparse types: a count of at least 1,
JOBS = _whole(1, MAX_JOBS)          # a number of worker processes,
COUNT = _whole(0)                   # a count that may be 0


def _game_source(p, move_help):
    """The arguments that name a game: FILE, and --move N within a record."""
    p.add_argument("file", metavar="FILE", help="position or record JSON file, or games.jsonl:K")
    p.add_argument("--move", type=int, metavar="N", help=move_help)


def build_parser():
    """The argparse parser of every subcommand, each with its run function (cmd_NAME)."""
    parser = _Parser(
        prog="tigris", description="Monte Carlo tree search toolkit for Tigris & Euphrates.")
    parser.add_argument("--version", action="version", version=f"tigris {tigris.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("demo", help="a short demonstration tournament (about 30 seconds on 2 cores)",
                       description="Play the built-in demonstration tournament (random, greedy and "
                                   "ismcts-fast, 2 players, 24 games) and print the standings. "
                                   "Results go to --out (default results/demo); running it again "
                                   "continues or reprints that tournament.")
    p.add_argument("--out", metavar="DIR", default="results/demo", help="results folder")
    p.add_argument("--jobs", type=JOBS, help="parallel games (default: all cores)")
    p.set_defaults(run=cmd_demo)

    p = sub.add_parser("play", help="play one game between bots, or sit at the table yourself",
                       description="Play one game between bots (default: random players), print "
                                   "the board every few turns and the final ranking, and optionally "
                                   "write the game record.  With --you, you play the seats named "
                                   "(0 moves first) at this terminal against the bots: type moves "
                                   "in the engine's notation (Tab completes them) or the commands "
                                   "moves, hint, undo, board, save FILE, quit, help.  The record "
                                   "is kept up to date in --record (default tigris-game-SEED.json; "
                                   "an existing file is refused, never written over).  A game left "
                                   "with quit (or end of input, or Ctrl-C) goes on with --resume "
                                   "FILE: the record is replayed and checked, its seats (humans and "
                                   "bots), players, board, variants and seed are the game's, and "
                                   "its moves keep being added to FILE.")
    p.add_argument("--you", nargs="+", type=COUNT, metavar="SEAT",
                   help="the seats you play (0 to 3; several for several people at one terminal)")
    p.add_argument("--bots", nargs="+", metavar="BOT",
                   help="one bot per seat, or per seat left by --you; one bot fills every seat "
                        f"(default: random, with --you {DEFAULT_BOT})")
    p.add_argument("--players", type=int, choices=(2, 3, 4),
                   help="players (default: one per bot, or 2)")
    # --seed and --board default to None so that --resume can tell what was given
    p.add_argument("--seed", type=int, help=f"deal and bot seed (default {SEED})")
    p.add_argument("--board", choices=BOARD_NAMES,
                   help="board side (default classic; advanced: the 14-treasure side)")
    p.add_argument("--variant", action="append", default=[], choices=tuple(VARIANTS),
                   dest="variants", help="play a variant (english, buildings); repeat for both")
    p.add_argument("--every", type=COUNT, default=10, metavar="TURNS",
                   help="show the board every TURNS turns (default 10; 0: only the end)")
    p.add_argument("--record", metavar="FILE", help="write the game record (tigris-game/1 JSON) here")
    p.add_argument("--resume", metavar="FILE",
                   help="go on with the game of a record left unfinished at the table (the "
                        "seats, board, variants and seed are the record's; options given too "
                        "must agree with it); its moves keep being added to FILE")
    p.add_argument("--hint-bot", default=DEFAULT_BOT, metavar="BOT",
                   help=f"with --you: the configuration the hint command searches with (default {DEFAULT_BOT})")
    p.set_defaults(run=cmd_play)

    p = sub.add_parser("tournament", help="play bots against each other and rate them",
                       description="Play a tournament from a spec file (a TOML file such as "
                                   "tournaments/demo.toml) or from --bots; every deal is played in "
                                   "every seating. Finished games go to OUT/games.jsonl at once; "
                                   "standings to OUT/summary.md.")
    p.add_argument("spec", nargs="?", metavar="SPEC", help="tournament spec (TOML)")
    p.add_argument("--bots", nargs="+", metavar="BOT", help="bot names or files (instead of a spec)")
    p.add_argument("--games", type=_whole(1, MAX_GAMES),
                   help="total games (default 20; rounded up to full seatings)")
    p.add_argument("--players", type=int, choices=(2, 3, 4), help="players per game (default 2)")
    p.add_argument("--seed", type=int, help=f"base seed of the deals (default {SEED})")
    p.add_argument("--board", choices=("classic", "advanced"), help="board side (default classic)")
    p.add_argument("--name", help="tournament name (default: the spec's file name)")
    p.add_argument("--jobs", type=JOBS, help="parallel games (default: all cores)")
    p.add_argument("--out", metavar="DIR", help="results folder (default results/NAME)")
    p.add_argument("--resume", metavar="DIR", help="continue the tournament in DIR")
    p.add_argument("--backend", choices=("loky", "dask"), default="loky",
                   help="loky: processes on this machine; dask: a dask.distributed cluster")
    p.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler address (tcp://host:8786)")
    p.set_defaults(run=cmd_tournament)

    p = sub.add_parser("standings", help="print the standings of a tournament results folder",
                       description="Recompute and print the standings and the head-to-head table "
                                   "from DIR/games.jsonl.")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=cmd_standings)

    p = sub.add_parser("match", help="paired games between two bots until an SPRT decides",
                       description="Play paired games (each deal in both seatings) between bots A "
                                   "and B until a sequential probability ratio test accepts H1 (A is "
                                   "elo1 stronger) or H0 (A is elo0 stronger), or --max-games; "
                                   "prints the score, the LLR and the decision.")
    p.add_argument("a", metavar="A", help="first bot (the candidate)")
    p.add_argument("b", metavar="B", help="second bot (the reference)")
    p.add_argument("--sprt", nargs="+", metavar="KEY=VALUE", default=["elo0=0", "elo1=20"],
                   help="elo0=.. elo1=.. [alpha=0.05] [beta=0.05] (default elo0=0 elo1=20)")
    p.add_argument("--max-games", type=_whole(1, MAX_GAMES), default=2000,
                   help="stop after this many games")
    p.add_argument("--jobs", type=JOBS, help="parallel games (default: all cores)")
    p.add_argument("--seed", type=int, default=SEED, help=f"base seed of the deals (default {SEED})")
    p.add_argument("--out", metavar="DIR", help="save the games and the standings in DIR, a results folder")
    p.set_defaults(run=cmd_match)

    p = sub.add_parser("replay", help="step through a finished game",
                       description="Print a finished game move by move with the board: the K-th "
                                   "game of a results folder, or a record file.")
    p.add_argument("source", metavar="DIR_OR_RECORD")
    p.add_argument("--game", type=COUNT, metavar="K", help="game number in the results folder (0-based, "
                                                         "as in games.jsonl's \"game\" field)")
    p.add_argument("--every", type=COUNT, default=1, metavar="N", help="board every N moves (default 1)")
    p.add_argument("--step", action="store_true", help="wait for Enter after each board")
    p.set_defaults(run=cmd_replay)

    p = sub.add_parser("show", help="print a position or a game record as a board diagram",
                       description="Print the board of a position (tigris-position/1) or of a game "
                                   "record (tigris-game/1) after its last move or after --move N. "
                                   "A game from a tournament's games.jsonl is named FILE:K (K-th game).")
    _game_source(p, "for a record: the state after N moves")
    p.add_argument("--moves", action="store_true", help="for a record: also list the moves")
    p.set_defaults(run=cmd_show)

    p = sub.add_parser("hint", help="the best moves for the player to move in a position or record",
                       description="Search the decision at hand in a position (tigris-position/1) or "
                                   "a game record (after its last move, or --move N) with ISMCTS, "
                                   "from what the player to move can see, and print the best moves "
                                   "with visit share, estimated win probability and the expected "
                                   "continuation.")
    _game_source(p, "for a record: hint after N moves")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=_seconds, help="search time (default 5 seconds)")
    budget.add_argument("--iterations", type=_whole(1, MAX_ITERATIONS),
                        help="search iterations instead of time")
    p.add_argument("--top", type=POSITIVE, default=5, help="moves to show (default 5)")
    p.add_argument("--jobs", type=JOBS, default=1, help="parallel search workers (default 1)")
    p.add_argument("--bot", default=DEFAULT_BOT, help=f"ISMCTS configuration to search with (default {DEFAULT_BOT})")
    p.add_argument("--seed", type=int, default=SEED, help=f"search seed (default {SEED})")
    p.add_argument("--json", action="store_true", help="print the hints as JSON")
    p.set_defaults(run=cmd_hint)

    p = sub.add_parser("analyse", help="computer analysis of a finished game: best moves, "
                                       "win chances, mistakes",
                       description="Search every decision of the chosen players in a game record "
                                   "(tigris-game/1, or games.jsonl:K) from what the player could "
                                   "see, and write per decision the engine's best move, the "
                                   "calibrated chance to finish first before and after the move "
                                   "played, the played move's rank and a mark when the chance "
                                   "drops by at least a threshold; then print a summary per "
                                   "player. Rows go to --out as they finish: running the same "
                                   "command again continues it, or reprints the summary.")
    p.add_argument("record", metavar="RECORD", help="game record JSON file, or games.jsonl:K")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=_seconds, help="time of each search")
    budget.add_argument("--iterations", type=_whole(1, MAX_ITERATIONS),
                        help="iterations of each search (default 10,000); a decision takes one "
                             "search, more if the move played was not among the engine's finalists")
    p.add_argument("--players", nargs="+", type=COUNT, metavar="P",
                   help="the players whose decisions to analyse (default: all)")
    p.add_argument("--jobs", type=JOBS, default=1, help="decisions searched in parallel (default 1)")
    p.add_argument("--bot", help="ISMCTS configuration to search with (default hint: its values "
                                 "are calibrated win chances)")
    p.add_argument("--seed", type=int, default=SEED,
                   help=f"base seed of the searches (default {SEED})")
    for mark, least in THRESHOLD_POINTS.items():
        p.add_argument(f"--{mark}", type=_points(mark), metavar="POINTS",
                       help=f"least drop of win chance, in percentage points, marked {mark} "
                            f"(default {least})")
    p.add_argument("--out", metavar="FILE",
                   help="the analysis (tigris-analysis/1 JSON lines), continued if it exists "
                        "(default: RECORD's name with .analysis.jsonl, in this folder)")
    p.set_defaults(run=cmd_analyse)

    p = sub.add_parser("tune", help="tune a bot's numeric parameters over games (SPSA or Bayes)",
                       description="Tune numeric parameters of BOT over games against an opponent. "
                                   "--method spsa: each iteration plays theta+ and theta- on one "
                                   "deal in both seatings; gains a_k = a/(A+k)^0.602, c_k = "
                                   "c/k^0.101 with defaults from the ranges. --method bayes: "
                                   "optuna's TPE sampler proposes each trial, which plays two deals "
                                   "in both seatings; the answer is the trial whose 5 nearest "
                                   "trials scored best. Writes OUT/history.csv as it goes, "
                                   "OUT/NAME.toml at the end, and verifies it against BOT. "
                                   "tune --plot OUT draws the traces.")
    p.add_argument("bot", nargs="?", metavar="BOT", help="the bot to tune (name or file)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=LOW:HIGH[:int]",
                   help="a parameter and its range; repeat for several")
    p.add_argument("--opponent", action="append", default=[], metavar="BOT",
                   help="opponent bot(s), used in turn; repeat for several")
    p.add_argument("--method", choices=("spsa", "bayes"), default="spsa",
                   help="spsa (default) or bayes (optuna's TPE sampler; pip install optuna)")
    p.add_argument("--budget", type=_whole(4), default=400, help="games to play (4 per iteration; default 400)")
    p.add_argument("--jobs", type=JOBS, help="parallel games (default: all cores)")
    p.add_argument("--seed", type=int, default=SEED,
                   help=f"seed of the deals and the perturbations (default {SEED})")
    p.add_argument("--name", help="name of the tuned bot (default BOT-tuned)")
    p.add_argument("--verify-games", type=_whole(0, MAX_GAMES), default=0,
                   help="games of the final check, tuned vs BOT (default: a tenth of the budget, >= 20)")
    p.add_argument("--out", metavar="DIR", help="results folder (default results/NAME)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its history")
    p.add_argument("--plot", metavar="DIR", help="draw DIR/traces.png from a run's history and stop")
    p.set_defaults(run=cmd_tune)

    p = sub.add_parser("view", help="a game or a results folder as HTML pages to step through",
                       description="Write a game record (or FILE:K, the K-th game of a games.jsonl) "
                                   "as one HTML page that opens offline: the board after every "
                                   "move, scores, hands, the move list, and with --analysis the "
                                   "win chance over the game and the marked moves. For a results "
                                   "folder, write an index (standings, head to head, the games) "
                                   "and a page per game into the folder --out.")
    p.add_argument("source", metavar="RECORD_OR_DIR", help="game record, games.jsonl:K, or results folder")
    p.add_argument("--analysis", metavar="FILE", help="an analysis of the record (tigris-analysis/1)")
    p.add_argument("--out", metavar="PATH", required=True,
                   help="the HTML file of a record's page, or the folder of a results folder's pages")
    p.set_defaults(run=cmd_view)

    p = sub.add_parser("calibrate", help="fit the win-chance model on recorded bot games",
                       description="Read finished games (tournament folders, games.jsonl files or "
                                   "records), take the position after every K-th move, fit the "
                                   "win-chance model (a softmax over the players' standings, with a "
                                   "share of upsets) per player count, report its expected "
                                   "calibration error on held-out games (two-fold, by deal) beside "
                                   "that of the search's rewards today, and write the coefficients.")
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="tournament folder, games.jsonl or record")
    p.add_argument("--every", type=POSITIVE, default=4, metavar="K", help="a position every K moves (default 4)")
    p.add_argument("--out", metavar="FILE", help="write the coefficients here (the package's "
                                                 "own file is src/tigris/calibration.json)")
    p.add_argument("--plot", metavar="PNG", help="draw a reliability diagram (needs matplotlib)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(run=cmd_calibrate)

    p = sub.add_parser("bots", help="list the bot configurations and their settings",
                       description="List the bot configurations found in ./bots/ and among those "
                                   "that come with tigris, with their kind, description and settings "
                                   "(the evaluator's weights only where they differ from the "
                                   "defaults); --knobs lists every knob of every kind instead.")
    p.add_argument("--knobs", action="store_true",
                   help="list every knob a bot file may set: kind, name, default and meaning")
    p.set_defaults(run=cmd_bots)

    p = sub.add_parser("bench", help="measure the speed of the core and the search, and how decisive hints are",
                       description="core: random games per second, decisions per second, copy and "
                                   "apply+undo times on one core; search: ISMCTS iterations per "
                                   "second; every figure is a median. decisive: on 24 mid-game "
                                   "positions of greedy games (8 each with 2, 3 and 4 players), how "
                                   "often hints with seeds 1, 2 and 3 name the same top move, and "
                                   "the top move's share of the root visits.")
    p.add_argument("part", nargs="?", default="core", choices=("core", "search", "decisive"),
                   help="core: random games, copy, apply+undo; search: ISMCTS iterations per "
                        "second; decisive: agreement of hints between seeds")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"decisive: the configuration the hints search with (default {DEFAULT_BOT}, as tigris hint)")
    p.add_argument("--iterations", type=_whole(1, MAX_ITERATIONS), default=20_000,
                   help="decisive: iterations per hint (default 20000)")
    # Bounded so that a typo cannot start a run of days (or overflow a C int).
    p.add_argument("--games", type=_whole(1, 1_000_000), default=1000,
                   help="random games per repeat (default 1000, at most 1,000,000)")
    p.add_argument("--repeats", type=_whole(1, 1000), default=5,
                   help="repeats per figure (default 5, at most 1000)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(run=cmd_bench)
    return parser


DEMO = {"name": "demo", "bots": ["random", "greedy", "ismcts-fast"], "players": 2, "games": 24, "seed": 1}


def cmd_demo(args):
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


PLAY_BOARD = "classic"       # play's default --board (None in the parser, for --resume)


def cmd_play(args):
    """tigris play: one game between bots, shown as it goes; its record saved on request."""
    from tigris import bots as botlib
    from tigris.runner import TURN_LIMIT, goes_on, record_of

    if args.resume is not None:
        return _resume_at_the_table(args)
    if args.you is not None:
        return _play_at_the_table(args)
    if args.bots and not 2 <= len(args.bots) <= 4:
        raise UsageError(f"--bots: a game has 2 to 4 players, one bot per seat; {len(args.bots)} "
                         f"bots given")
    players = args.players or (len(args.bots) if args.bots else 2)
    names = args.bots or ["random"] * players
    if len(names) != players:
        raise UsageError(f"--bots names {len(names)} bots for {players} players")
    seed = SEED if args.seed is None else args.seed
    if args.record:                  # before the game: not a bot file read, a regular file
        check_target(args.record, reads=names, option="--record")
    try:
        seats = [botlib.load(name, seed=seed * 10 + i) for i, name in enumerate(names)]
    except ValueError as e:
        raise ConfigError(f"--bots: {e}") from None
    g = tigris.Game(players=players, seed=seed, board=args.board or PLAY_BOARD,
                    variants=tuple(dict.fromkeys(args.variants)))
    last_shown = -1
    while goes_on(g):
        if args.every and g.turn % args.every == 0 and g.turn != last_shown and g.decision == "action":
            print(f"--- turn {g.turn} ---")
            print(g)
            last_shown = g.turn
        g.apply(seats[g.current_player].choose(g))
    print(f"--- final position, turn {g.turn}, after {len(g.history)} decisions ---")
    print(g)
    if not g.is_over:
        print(f"the game did not end: {TURN_LIMIT}")
    _print_result(g)
    if args.record:
        write_text(args.record, json.dumps(record_of(g, names)) + "\n")
        print(f"record written to {args.record}")


def _play_at_the_table(args):
    """tigris play --you SEAT...: human seats at this terminal against bots."""
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
    seed = SEED if args.seed is None else args.seed
    table_names = [seat.HUMAN] * players
    for s, name in zip(open_seats, names):
        table_names[s] = name
    seats = _table_seats(table_names, seed, "--bots")
    _check_hint_bot(args)
    record = Path(args.record) if args.record else _free_name(f"tigris-game-{seed}", ".json")
    _check_new_record(record)
    game = tigris.Game(players=players, seed=seed, board=args.board or PLAY_BOARD,
                       variants=tuple(dict.fromkeys(args.variants)))
    seat.use_terminal()
    table = seat.Table(game, seats, table_names, record, colour=seat.colour_wanted(),
                       hint_bot=args.hint_bot)
    table.save()                     # a record file that cannot be written stops us here
    table.write(f"you play seat{'s' * (len(you) > 1)} {', '.join(map(str, you))} of {players}; "
                f"the record is kept in {record}; type help for the commands")
    table.play()


def _table_seats(names, seed, option):
    """The bots of a table by seat (None for a human seat), each with its seed."""
    from tigris import bots as botlib
    from tigris import seat

    try:
        return [None if name == seat.HUMAN else botlib.load(name, seed=seed * 10 + s)
                for s, name in enumerate(names)]
    except ValueError as e:
        raise ConfigError(f"{option}: {e}") from None


def _check_hint_bot(args):
    from tigris import bots as botlib

    try:
        botlib.configuration(args.hint_bot)
    except ValueError as e:
        raise ConfigError(f"--hint-bot: {e}") from None


def _check_new_record(record):
    """A new game's record file must not exist yet: an existing one (a game left with
    quit, above all) would be emptied at the first prompt."""
    from tigris import record as records

    check_target(record, option="--record")          # a folder, a device
    if not record.exists():
        return
    try:
        held = records.load(record)
    except (ValueError, OSError):
        held = None
    if isinstance(held, dict) and str(held.get("format", "")).startswith("tigris-game/"):
        raise UsageError(f"--record {record} holds a game already: go on with it with "
                         f"tigris play --resume {record}, or name another file")
    raise UsageError(f"--record {record} exists: name a new file (a record is never "
                     f"written over)")


def _resume_at_the_table(args):
    """tigris play --resume FILE: the game of a record left unfinished, at this terminal;
    its moves keep being added to FILE."""
    from tigris import seat

    path = check_target(args.resume, option="--resume")
    if not path.exists():
        raise UsageError(f"--resume {path}: no such file")
    rec = _load(path)
    with _reading(path, RecordError):
        game, names = seat.unfinished_game(rec)
    _check_resume_options(args, game, names, path)
    _check_hint_bot(args)
    seats = _table_seats(names, game.seed, f"--resume {path}")
    seat.use_terminal()
    table = seat.Table(game, seats, names, path, colour=seat.colour_wanted(),
                       hint_bot=args.hint_bot)
    humans = [s for s, bot in enumerate(seats) if bot is None]
    table.write(f"resumed after move {len(game.history)}, turn {game.turn}: you play "
                f"seat{'s' * (len(humans) > 1)} {', '.join(map(str, humans))} of {game.players}; "
                f"the record is kept in {path}; type help for the commands")
    table.play()


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
        (args.record is not None and not _same_file(args.record, path),
         f"--record: a resumed game is kept in its own file, {path}"),
    ]
    for wrong, message in checks:
        if wrong:
            raise UsageError(message)


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _free_name(stem, suffix):
    """A file name in the current folder that no file has yet: STEM.SUFFIX, STEM-2.SUFFIX..."""
    path, k = Path(stem + suffix), 1
    while path.exists():
        k += 1
        path = Path(f"{stem}-{k}{suffix}")
    return path


def cmd_tournament(args):
    """tigris tournament: run (or resume) a tournament and print its standings."""
    from tigris import tournament

    if args.scheduler is not None and args.backend != "dask":
        raise UsageError("--scheduler names the dask scheduler: give --backend dask with it")
    if args.resume:
        given = [f"--{k}" for k in ("games", "players", "seed", "board", "name", "out")
                 if getattr(args, k) is not None]
        if args.spec or args.bots or given:
            raise UsageError(f"--resume DIR continues the tournament saved in DIR as it was set "
                             f"up; give no {'spec or bots' if args.spec or args.bots else ', '.join(given)} "
                             f"with it")
        summary = tournament.run(out=args.resume, jobs=args.jobs, resume=True,
                                 backend=args.backend, scheduler=args.scheduler)
        out = args.resume
    else:
        if bool(args.spec) == bool(args.bots):
            raise UsageError("give a spec file or --bots (one of them)")
        spec = tournament.load_spec(args.spec) if args.spec else tournament.Spec(bots=args.bots, name="tournament")
        for key in ("games", "players", "seed", "board", "name"):
            if getattr(args, key) is not None:
                setattr(spec, key, getattr(args, key))
        spec.check(where=args.spec)
        shared = spec.shared_seats()
        if shared:
            print(f"note: {spec.players} seats and {len(spec.bots)} bots: {shared} plays two seats "
                  f"at every table", file=sys.stderr)
        out = args.out or f"results/{spec.name}"
        summary = tournament.run(spec, out=out, jobs=args.jobs, backend=args.backend,
                                 scheduler=args.scheduler)
    print(tournament.format_summary(summary))
    print(f"\nresults in {out}/ (games.jsonl, summary.md, summary.json)")


def cmd_standings(args):
    """tigris standings: the tables of a results folder, computed again."""
    from tigris import tournament

    summary = tournament.load_summary(args.dir)
    print(json.dumps(summary, indent=2) if args.json else tournament.format_summary(summary))


def cmd_match(args):
    """tigris match: paired games between two bots, with an SPRT if asked."""
    from tigris import match

    params = match.parse_sprt(args.sprt)
    result = match.sprt_match(args.a, args.b, max_games=args.max_games, jobs=args.jobs,
                              seed=args.seed, out=args.out, **params)
    print(match.format_result(result))


def cmd_replay(args):
    """tigris replay: step through a recorded game (a record file or a tournament's game)."""
    from tigris import record as records
    from tigris.tournament import read_games

    if Path(args.source).is_dir():
        if args.game is None:
            raise UsageError("name the game with --game K")
        recs = read_games(args.source, repair=False, game=args.game)
        if not recs:
            raise UsageError(f"{args.source}: no game {args.game} in games.jsonl")
        rec, source = recs[0], f"{args.source}/games.jsonl, game {args.game}"
    else:
        if args.game is not None:
            raise UsageError("--game K picks a game of a results folder; this is a file")
        rec, source = _load(args.source), args.source
    with _reading(source, RecordError):
        if not isinstance(rec, dict) or not str(rec.get("format", "")).startswith("tigris-game/"):
            raise RecordError("not a game record (tigris-game/1)")
        records.replay(rec)              # every move checked before any is shown
    moves = rec["moves"]
    bots = rec.get("bots") if isinstance(rec.get("bots"), list) else []
    title = f"game {rec['game']}" if isinstance(rec.get("game"), int) else Path(args.source).name
    print(f"{title}: {', '.join(f'player {i}: {b}' for i, b in enumerate(bots)) or 'bots not recorded'}")
    for n, g in records.steps(rec):
        if n:
            print(f"{n:4}. player {g.history[-1][1]}: {g.action_str(g.history[-1][0])}")
        if n == len(moves) or (args.every and n % args.every == 0):
            print(g)
            if args.step and n < len(moves):
                try:
                    input("-- Enter for the next move --")
                except EOFError:
                    print()                      # end the prompt's line
                    raise UsageError(f"end of input after move {n} of {len(moves)}: "
                                     f"replay stopped") from None
    if rec.get("error"):
        print(f"the game stopped with an error: {rec['error']}")
    elif g.is_over:
        _print_result(g)


def _print_result(g):
    for place, players in enumerate(g.ranking(), start=1):
        for p in players:
            s = g.score(p)
            print(f"{place}. player {p}: {g.final_score(p)} "
                  f"(red {s['red']}, blue {s['blue']}, green {s['green']}, black {s['black']}, "
                  f"treasures {s['treasures']})")


def cmd_show(args):
    """tigris show: the board of a position or of a record after a move."""
    g = _game_of(args.file, args.move)
    if args.moves:
        for n, (a, p, forced, _) in enumerate(g.history, start=1):
            extra = f"  (then {', '.join(g.action_str(f) for f in forced)})" if forced else ""
            print(f"{n:4}. player {p}: {g.action_str(a)}{extra}")
    print(g)
    if g.is_over:
        _print_result(g)


def _game_of(path, move=None):
    """The game of a position or record file (a record after `move` moves)."""
    from tigris import record as records

    data = _load(path)
    if isinstance(data, dict) and str(data.get("format", "")).startswith("tigris-game/"):
        moves = data.get("moves")
        if move is not None and isinstance(moves, list) and not 0 <= move <= len(moves):
            raise UsageError(f"--move {move} is out of range: the record has {len(moves)} moves "
                             f"(give 0 to {len(moves)})")
        with _reading(path, RecordError):
            return records.replay(data, upto=move)
    if move is not None:
        raise UsageError("--move applies to game records, not positions")
    with _reading(path, PositionError):
        return tigris.Game.from_position(data)


def _load(path):
    """The JSON of a position or record file, or of line K of FILE:K."""
    from tigris import record as records

    # a pipe would block and /dev/zero be read forever: regular files only
    check_source(path, RecordError)
    with _reading(path, RecordError):
        return records.load(path)


@contextlib.contextmanager
def _reading(path, error):
    """Any failure while a file's content is read or checked is a problem of the file:
    raise `error` naming it (the loaders' own errors keep their class and message)."""
    head, sep, index = str(path).rpartition(":")
    file = head if sep and index.isdigit() else str(path)     # FILE:K names a line of FILE
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


def cmd_hint(args):
    """tigris hint: the best moves for the player to move in a position or a record."""
    from tigris.hint import format_table, hint

    g = _game_of(args.file, args.move)
    hints = hint(g, seconds=args.seconds, iterations=args.iterations, top=args.top,
                 jobs=args.jobs, bot=args.bot, seed=args.seed)
    if args.json:
        print(json.dumps(hints.as_dict(g), indent=2))
    else:
        print(format_table(g, hints))


def cmd_analyse(args):
    """tigris analyse: every decision of a recorded game searched again, then a summary."""
    from tigris import analysis

    rec = _load(args.record)
    out = args.out or _analysis_name(args.record)
    header, rows = analysis.run(
        rec, out, source=args.record, iterations=args.iterations, seconds=args.seconds,
        players=args.players, jobs=args.jobs, bot=args.bot or analysis.DEFAULT_BOT,
        seed=args.seed, thresholds={"inaccuracy": args.inaccuracy, "mistake": args.mistake,
                                    "blunder": args.blunder})
    print(analysis.format_summary(analysis.summarize(header, rows)))
    print(f"\nanalysis in {out} ({analysis.FORMAT}, a line per decision)")


def _analysis_name(source):
    """The default analysis file of a record: its name with .analysis.jsonl, in the current
    folder; line K of a JSON-lines file gives NAME-K (a results folder's games.jsonl:3 gives
    games-3.analysis.jsonl)."""
    from tigris.files import source_file

    file = Path(source_file(source))
    line = str(source)[len(str(file)) + 1:]
    return Path(file.stem + (f"-{line}" if line else "") + ".analysis.jsonl")


def cmd_tune(args):
    """tigris tune: SPSA or Bayes over numeric bot knobs, then a verification match."""
    from tigris import tune

    if args.plot:
        print(f"traces drawn in {tune.plot(args.plot)}")
        return
    if not args.bot:
        raise UsageError("name the bot to tune (or give --plot DIR)")
    spec = tune.TuneSpec(bot=args.bot, params=[tune.parse_param(p) for p in args.param],
                         opponents=args.opponent, budget=args.budget, seed=args.seed,
                         name=args.name, verify_games=args.verify_games, method=args.method)
    spec.check()
    out = args.out or f"results/{spec.name}"
    result = tune.tune(spec, out, jobs=args.jobs, resume=args.resume)
    v = result["verification"]
    print(f"tuned: {', '.join(f'{k} = {v_:.4g}' for k, v_ in result['theta'].items())}")
    print(f"bot file: {result['bot_file']}")
    if v["score"] is not None:
        verdict = ("" if v["significant"] else
                   "; not significant: the interval includes 50%, play more --verify-games")
        print(f"verification, tuned vs {args.bot}: {v['score']:.1%} over {v['games']} games "
              f"(95% interval {v['ci95'][0]:.1%}-{v['ci95'][1]:.1%}){verdict}")
    print(f"verification games: {v['file']} (tigris view {v['file']}:1 --out game.html)")
    print(f"history: {out}/{tune.HISTORY_FILE}; traces: tigris tune --plot {out}")


def cmd_view(args):
    """tigris view: a game record's page, or the index and game pages of a results folder."""
    from tqdm import tqdm

    from tigris import record as records, view

    out = Path(args.out)
    if Path(args.source).is_dir():
        if args.analysis:
            raise UsageError("--analysis goes with one game record, not a results folder")
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {out} is a file; a results folder's pages go to a folder")
        bars = []                        # opened at the first page: not before an error

        def progress(done, total):
            if not bars:
                bars.append(tqdm(total=total, desc="pages", unit="game", file=sys.stderr, leave=False))
            bars[0].update(done - bars[0].n)
        try:
            written = view.write_results(args.source, out, progress=progress)
        finally:
            for bar in bars:
                bar.close()
        print(f"{len(written['pages'])} game pages and their index written to {written['index']}")
        return
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; name the HTML file to write (game.html)")
    check_target(out, reads=[args.source, args.analysis], option="--out")
    _not_a_folder_file(out, args.source)
    rec = _load(args.source)
    with _reading(args.source, RecordError):
        if not isinstance(rec, dict) or rec.get("format") != records.FORMAT:
            raise RecordError(f"not a game record ({records.FORMAT})")
        game = records.replay(rec)       # every move checked before the page is built
    analysis = None
    if args.analysis:
        from tigris import analysis as analyses

        with _reading(args.analysis, RecordError):
            analysis = analyses.read_analysis(args.analysis)
            view.check_analysis(rec, *analysis)          # names the first move that differs
            if analysis[0].get("record") != analyses.record_hash(game):
                raise RecordError(f"the analysis is of another game (record "
                                  f"{str(analysis[0].get('record'))[:40]!r}, this game's "
                                  f"{analyses.record_hash(game)!r})")
    title = view.game_title(rec) if "game" in rec else Path(args.source).name
    print(f"page written to {view.write_game(rec, out, analysis, title=title)}")


def _not_a_folder_file(out, source):
    """Refuse an --out that is a file of the results folder a source such as
    DIR/games.jsonl:K belongs to (its spec or summaries): a page there breaks the folder."""
    from tigris import tournament
    from tigris.files import source_file

    file = Path(source_file(source))
    if file.name != tournament.GAMES_FILE or not out.exists():
        return
    for name in (tournament.SPEC_FILE, "summary.json", "summary.md"):
        if _same_file(out, file.parent / name):
            raise UsageError(f"--out {out} is a file of the results folder {file.parent}; "
                             f"name another file")


def cmd_calibrate(args):
    """tigris calibrate: fit the win-chance model on recorded games and measure it."""
    from tigris import calibration, plotting

    # what is written is checked before the games are read: not one of them, a regular file
    reads = [Path(s) / "games.jsonl" if Path(s).is_dir() else s for s in args.sources]
    for target, option in ((args.out, "--out"), (args.plot, "--plot")):
        if target:
            check_target(target, reads=reads, option=option)
    if args.plot:
        plotting.pyplot(calibration.NEEDS_MATPLOTLIB)
    samples = calibration.read_samples(args.sources, every=args.every)
    result = calibration.calibrate(samples)
    if args.json:
        print(json.dumps({"report": result["report"],
                          "coefficients": {str(n): c for n, c in result["model"].items()}}, indent=2))
    else:
        print(calibration.format_report(result))
    if args.out:
        calibration.save_model(result["model"], args.out,
                               note=f"fitted by tigris calibrate on {len(samples)} positions")
        print(f"coefficients written to {args.out}", file=sys.stderr)
    if args.plot:
        print(f"reliability diagram drawn in {calibration.plot(result, args.plot)}", file=sys.stderr)


def cmd_bots(args):
    """tigris bots: the named bot configurations, or with --knobs every knob of every kind."""
    from tigris import bots, knobs

    if args.knobs:                      # the table of knobs (tigris.knobs), kind by kind
        for kind, kind_knobs in knobs.KINDS.items():
            print(f"{kind}:")
            for key, (typ, default, meaning) in kind_knobs.items():
                print(f"  {key:<20} {typ.__name__:<5} {str(default):<6} {meaning}")
        return 0
    broken = []
    for name in bots.available():
        try:
            kind, params, description = bots.describe(name)
        except ValueError as e:          # listed below the good ones, one line each
            broken.append(str(e))
            continue
        settings = ", ".join(f"{k}={v}" for k, v in params.items()
                             if v is not None and not knobs.is_default_weight(k, v))
        print(f"{name:<16} {kind:<7} {description}")
        print(f"{'':<16} {'':<7} {settings}")
    for message in broken:
        _report("tigris bots", message)
    return 1 if broken else 0


def cmd_bench(args):
    """tigris bench: the speed of the core (random games, copies, apply+undo) or of the
    search, or how decisive the hints are."""
    from tqdm import tqdm

    from tigris import bench

    if args.part == "decisive":
        bench.check_hint_bot(args.bot)
    print(f"machine: {bench.machine()}", file=sys.stderr)
    if args.part == "search":
        with tqdm(total=bench.search_runs(args.repeats), desc="searches", unit="run", file=sys.stderr) as bar:
            rows = bench.bench_search(repeats=args.repeats, progress=bar.update)
    elif args.part == "decisive":
        with tqdm(total=bench.decisive_runs(), desc="hints", unit="hint", file=sys.stderr) as bar:
            rows = bench.bench_decisive(bot=args.bot, iterations=args.iterations, progress=bar.update)
    else:
        with tqdm(total=bench.core_runs(args.repeats), desc="random games", unit="run",
                  file=sys.stderr) as bar:
            rows = bench.bench_core(games=args.games, repeats=args.repeats, progress=bar.update)
    column = "value" if args.part == "decisive" else "median"
    if args.json:
        print(json.dumps({"machine": bench.machine(),
                          "figures": [{"figure": n, column: v, "unit": u} for n, v, u in rows]},
                         indent=2))
    else:
        print(f"machine: {bench.machine()}")
        print(bench.format_rows(rows, column))


if __name__ == "__main__":
    sys.exit(main())
