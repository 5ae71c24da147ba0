"""The ``tigris`` command: the table of its commands and ``main``, which turns every error
into one line.

Each command is a module of this package with ``add_to(subparsers)``, which declares the
command and its options, and ``run(args)``, its handler; ``COMMANDS`` lists them in the
order of ``tigris --help``.  A handler imports what it runs inside ``run``, so that
``tigris --help`` stays quick.  ``options`` holds the argument types and the options several
commands share, ``games`` the reading of a game or position named on the command line.

    tigris demo                      a short demonstration tournament (about 30 seconds)
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
    tigris serve [DIR...]            a server for the browser: play, hints, analyses, results
    tigris calibrate SOURCE...       the win-chance model fitted on recorded games
    tigris selfplay --out DIR        bots' games with their positions labelled, for training
    tigris train DIR... --out NET    a learned evaluation fitted to self-play data
    tigris learn OUT                 expert iteration: self-play, training, a gate, again
    tigris tune BOT --param ...      tuning of a bot's numeric parameters (SPSA or Bayes)
    tigris bots                      the bot configurations and their settings
    tigris bench [PART]              speed of the core or the search; how decisive hints are
"""

import argparse
import contextlib
import importlib
import signal
import sys
import threading
import warnings

import tigris
from tigris.commands.options import SEED, THRESHOLD_POINTS   # named here for scripts that build the parser
from tigris.errors import IllegalActionError, PositionError, RecordError, UsageError

__all__ = ["main", "build_parser", "report", "COMMANDS", "MESSAGE_LIMIT", "SEED",
           "THRESHOLD_POINTS"]

MESSAGE_LIMIT = 600       # characters of an error line; the rest is cut

# The commands in the order of tigris --help: each a module of tigris.commands, which
# declares it (add_to) and runs it (run).
COMMANDS = ("demo", "play", "tournament", "standings", "match", "replay", "show", "hint",
            "analyse", "tune", "view", "serve", "calibrate", "selfplay", "train", "learn", "bots",
            "bench")


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
        report(e.prog, str(e))
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
            _keep_the_exit_status()
            report(prog, str(e) or "interrupted")
            return 128 + (received[0] if received else signal.SIGINT)
        except BrokenPipeError:            # the output was cut short (| head): nothing to report
            with contextlib.suppress(OSError):
                sys.stderr.close()
            return 0
        except OSError as e:               # a file that cannot be read or written
            report(prog, f"{e.filename}: {e.strerror}" if e.filename and e.strerror else str(e))
            return 1
        except (UsageError, PositionError, RecordError, IllegalActionError) as e:
            # the package's documented errors: an option, a bot or tournament configuration
            # (ConfigError), a run (TournamentError), a file's content; the message names it
            report(prog, str(e) or type(e).__name__)
            return 1
        except (ValueError, OverflowError, EOFError) as e:
            # a bad value met anywhere else; OverflowError: a number too large for the
            # compiled core
            report(prog, str(e) or type(e).__name__)
            return 1


def report(prog, message):
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


def _keep_the_exit_status():
    """Have the process end with the status main() returns, not killed by SIGINT.

    CPython marks a ``python -m`` process to kill itself with SIGINT at exit when a
    KeyboardInterrupt leaves code run by ``exec`` of a string, even if it is caught
    further up; an import under way when the interruption came may run one (scipy's
    does).  Each such ``exec`` clears the mark as it starts, and a successful one leaves
    it cleared."""
    exec("None")


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
        warnings.showwarning = lambda message, *rest, **kw: report(prog, f"warning: {message}")
        yield


class _ArgumentError(Exception):
    def __init__(self, prog, message):
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """Option errors as one line, ``tigris COMMAND: message`` (exit status 2)."""

    def error(self, message):
        raise _ArgumentError(self.prog, f"{message} (see {self.prog} --help)")


def build_parser():
    """The argparse parser of every command, each with its run function."""
    parser = _Parser(
        prog="tigris", description="Monte Carlo tree search toolkit for Tigris & Euphrates.")
    parser.add_argument("--version", action="version", version=f"tigris {tigris.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"tigris.commands.{name}").add_to(sub)
    return parser

