"""tigris analyse: every decision of a recorded game searched again, then a summary."""

from pathlib import Path

from tigris.analysis import DEFAULT_MEASURE, FORMAT, MARGIN_SHARE, MEASURES
from tigris.commands.games import load
from tigris.commands.options import (COUNT, THRESHOLD_POINTS, add_budget, add_command, add_jobs,
                                     add_seed, as_threshold, points)
from tigris.files import split_source

__all__ = ["DESCRIPTION", "add_to", "run", "analysis_name"]

MARKS = ("inaccuracy", "mistake", "blunder")     # the options' order: the least mark first


DESCRIPTION = """\
Search every decision of the chosen players in a game record (tigris-game/1, or
games.jsonl:K) from what the player could see, as tigris hint searches it, and write per
decision the engine's best move, every player's chance to finish first before the move,
the mover's expected score margin (its final score minus the best other player's) and
chance after the move played (that move searched alone from the same position), the
played move's rank and a mark when the margin (or with --measure win, the chance) drops
by at least a threshold and by more than the search's noise; then print a summary per
player. Rows go to --out as they finish: running the same command again continues it, or
reprints the summary.
"""


def add_to(sub):
    p = add_command(sub, "analyse", run,
                    help="computer analysis of a finished game: best moves, win chances, mistakes",
                    description=DESCRIPTION)
    p.add_argument("record", metavar="RECORD", help="game record JSON file, or games.jsonl:K")
    add_budget(p, "time of each search",
               "iterations of each search (default 10,000); a decision takes one "
               "search, and a shorter one of the move played if it was not the engine's "
               "best (and of up to six moves the search passed over)")
    p.add_argument("--players", nargs="+", type=COUNT, metavar="P",
                   help="the players whose decisions to analyse (default: all)")
    add_jobs(p, "decisions searched in parallel (default 1)", default=1)
    p.add_argument("--bot", help="ISMCTS configuration to search with (default ismcts-hint, as "
                                 "tigris hint; for the margin with margin_share "
                                 f"{MARGIN_SHARE:g} unless its file sets it)")
    add_seed(p, "base seed of the searches")
    p.add_argument("--measure", choices=MEASURES, default=DEFAULT_MEASURE,
                   help="what a drop is measured in: margin, the mover's expected final score "
                        "minus the best other player's, in points (the default: it still "
                        "moves once a game is decided), or win, its chance of finishing first")
    margin, win = THRESHOLD_POINTS["margin"], THRESHOLD_POINTS["win"]
    for mark in MARKS:
        p.add_argument(f"--{mark}", type=points(mark), metavar="POINTS",
                       help=f"least drop marked {mark}: points of margin (default "
                            f"{margin[mark]:g}), or with --measure win percentage points of "
                            f"win chance (default {win[mark]:g})")
    p.add_argument("--out", metavar="FILE",
                   help=f"the analysis ({FORMAT} JSON lines), continued if it exists "
                        "(default: RECORD's name with .analysis.jsonl, in this folder)")


def run(args):
    """tigris analyse: every decision of a recorded game searched again, then a summary."""
    from tigris import analysis

    rec = load(args.record)
    out = args.out or analysis_name(args.record)
    thresholds = {mark: as_threshold(mark, getattr(args, mark), args.measure) for mark in MARKS}
    header, rows = analysis.run(
        rec, out, source=args.record, iterations=args.iterations, seconds=args.seconds,
        players=args.players, jobs=args.jobs, bot=args.bot or analysis.DEFAULT_BOT,
        seed=args.seed, measure=args.measure, thresholds=thresholds)
    print(analysis.format_summary(analysis.summarize(header, rows)))
    print(f"\nanalysis in {out} ({analysis.FORMAT}, a line per decision)")


def analysis_name(source):
    """The default analysis file of a record: its name with .analysis.jsonl, in the current
    folder; line K of a JSON-lines file gives NAME-K (a results folder's games.jsonl:3 gives
    games-3.analysis.jsonl)."""
    file, line = split_source(source)
    return Path(Path(file).stem + (f"-{line}" if line else "") + ".analysis.jsonl")
