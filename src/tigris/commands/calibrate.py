"""tigris calibrate: the win-chance model fitted on recorded games, and measured."""

import json
import sys
from pathlib import Path

from tigris.commands.options import POSITIVE, add_command, add_force, add_json
from tigris.files import check_new

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Read finished games (tournament folders, games.jsonl files or records), take the
position after every K-th move, fit the win-chance model (a softmax over the players'
standings, with a share of upsets) per player count, report its expected calibration
error on held-out games (two-fold, by deal) beside that of the search's rewards today,
and write the coefficients.
"""


def add_to(sub):
    p = add_command(sub, "calibrate", run, help="fit the win-chance model on recorded bot games",
                    description=DESCRIPTION)
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="tournament folder, games.jsonl or record")
    p.add_argument("--every", type=POSITIVE, default=4, metavar="K", help="a position every K moves (default 4)")
    p.add_argument("--out", metavar="FILE", help="write the coefficients here (the package's "
                                                 "own file is src/tigris/calibration.json)")
    p.add_argument("--plot", metavar="PNG", help="draw a reliability diagram (needs matplotlib)")
    add_json(p, "the report")
    add_force(p, "the --out and --plot files")


def run(args):
    """tigris calibrate: fit the win-chance model on recorded games and measure it."""
    from tigris import calibration
    from tigris._plumbing import plotting

    # what is written is checked before the games are read: not one of them, a regular file
    reads = [Path(s) / "games.jsonl" if Path(s).is_dir() else s for s in args.sources]
    for target, option in ((args.out, "--out"), (args.plot, "--plot")):
        if target:
            check_new(target, option, args.force, reads=reads, in_folder=False)
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
