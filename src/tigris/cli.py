"""The ``tigris`` command.

    tigris demo                      a seeded game between random players, shown as it goes
                                     (--board advanced, --variant english/buildings)
    tigris show FILE [--move N]      a position or game record as a board diagram
    tigris bench [core]              speed of the compiled core on one core
"""

import argparse
import json
import random
import sys

import tigris
from tigris._game import VARIANTS
from tigris.boards import BOARD_NAMES
from tigris.errors import PositionError, RecordError


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        return args.run(args) or 0
    except (PositionError, RecordError, tigris.IllegalActionError) as e:
        print(f"tigris {args.command}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"tigris {args.command}: interrupted", file=sys.stderr)
        return 130


def build_parser():
    parser = argparse.ArgumentParser(
        prog="tigris", description="Monte Carlo tree search toolkit for Tigris & Euphrates.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("demo", help="play a seeded game between random players and show it",
                       description="Play one game with uniformly random decisions, print the board "
                                   "every few turns and the final ranking, and optionally write the "
                                   "game record.")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players (default 2)")
    p.add_argument("--seed", type=int, default=1, help="deal and decisions seed (default 1)")
    p.add_argument("--board", default="classic", choices=BOARD_NAMES,
                   help="board side (default classic; advanced: the 14-treasure side)")
    p.add_argument("--variant", action="append", default=[], choices=tuple(VARIANTS),
                   dest="variants", help="play a variant (english, buildings); repeat for both")
    p.add_argument("--every", type=int, default=10, metavar="TURNS",
                   help="show the board every TURNS turns (default 10; 0: only the end)")
    p.add_argument("--record", metavar="FILE", help="write the game record (tigris-game/1 JSON) here")
    p.set_defaults(run=cmd_demo)

    p = sub.add_parser("show", help="print a position or a game record as a board diagram",
                       description="Print the board of a position (tigris-position/1) or of a game "
                                   "record (tigris-game/1) after its last move or after --move N. "
                                   "A game from a tournament's games.jsonl is named FILE:K (K-th game).")
    p.add_argument("file", metavar="FILE", help="position or record JSON file, or games.jsonl:K")
    p.add_argument("--move", type=int, metavar="N", help="for a record: the state after N moves")
    p.add_argument("--moves", action="store_true", help="for a record: also list the moves")
    p.set_defaults(run=cmd_show)

    p = sub.add_parser("bench", help="measure the speed of the compiled core",
                       description="Measure random games per second, decisions per second, copy "
                                   "and apply+undo times on one core; every figure is a median.")
    p.add_argument("part", nargs="?", default="core", choices=("core",), help="what to measure")
    p.add_argument("--games", type=int, default=1000, help="random games per repeat (default 1000)")
    p.add_argument("--repeats", type=int, default=5, help="repeats per figure (default 5)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(run=cmd_bench)
    return parser


def cmd_demo(args):
    from tigris.record import to_record

    rng = random.Random(args.seed)
    g = tigris.Game(players=args.players, seed=args.seed, board=args.board,
                    variants=tuple(dict.fromkeys(args.variants)))
    last_shown = -1
    while not g.is_over:
        if args.every and g.turn % args.every == 0 and g.turn != last_shown and g.decision == "action":
            print(f"--- turn {g.turn} ---")
            print(g)
            last_shown = g.turn
        g.apply(rng.choice(g.legal_actions()))
    print(f"--- final position after {g.turn + 1} turns, {len(g.history)} decisions ---")
    print(g)
    _print_result(g)
    if args.record:
        with open(args.record, "w", encoding="utf-8") as f:
            json.dump(to_record(g, bots=["random"] * g.players), f)
            f.write("\n")
        print(f"record written to {args.record}")


def _print_result(g):
    for place, players in enumerate(g.ranking(), start=1):
        for p in players:
            s = g.score(p)
            print(f"{place}. player {p}: {g.final_score(p)} "
                  f"(red {s['red']}, blue {s['blue']}, green {s['green']}, black {s['black']}, "
                  f"treasures {s['treasures']})")


def cmd_show(args):
    from tigris import record as records

    data = records.load(args.file)
    if isinstance(data, dict) and data.get("format", "").startswith("tigris-game/"):
        g = records.replay(data, upto=args.move)
        if args.moves:
            for n, (a, p, forced, _) in enumerate(g.history, start=1):
                extra = f"  (then {', '.join(g.action_str(f) for f in forced)})" if forced else ""
                print(f"{n:4}. player {p}: {g.action_str(a)}{extra}")
        print(g)
        if g.is_over:
            _print_result(g)
    else:
        if args.move is not None:
            raise PositionError("--move applies to game records, not positions")
        print(tigris.Game.from_position(data))


def cmd_bench(args):
    from tqdm import tqdm

    from tigris import bench

    print(f"machine: {bench.machine()}", file=sys.stderr)
    with tqdm(total=bench.core_runs(args.repeats), desc="random games", unit="run",
              file=sys.stderr) as bar:
        rows = bench.bench_core(games=args.games, repeats=args.repeats, progress=bar.update)
    if args.json:
        print(json.dumps({"machine": bench.machine(),
                          "figures": [{"figure": n, "median": v, "unit": u} for n, v, u in rows]},
                         indent=2))
    else:
        print(f"machine: {bench.machine()}")
        print(bench.format_rows(rows))


if __name__ == "__main__":
    sys.exit(main())
