"""The ``tigris`` command.

    tigris demo                      a seeded game between random players, shown as it goes
    tigris show FILE [--move N]      a position or game record as a board diagram
    tigris hint FILE                 the best moves for the player to move
    tigris bots                      the bot configurations and their settings
    tigris bench [core|search]       speed of the compiled core or of the search, on one core
"""

import argparse
import json
import random
import sys

import tigris
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

    p = sub.add_parser("hint", help="the best moves for the player to move in a position or record",
                       description="Search the decision at hand in a position (tigris-position/1) or "
                                   "a game record (after its last move, or --move N) with ISMCTS, "
                                   "from what the player to move can see, and print the best moves "
                                   "with visit share, estimated win probability and the expected "
                                   "continuation.")
    p.add_argument("file", metavar="FILE", help="position or record JSON file, or games.jsonl:K")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, help="search time (default 5 seconds)")
    budget.add_argument("--iterations", type=int, help="search iterations instead of time")
    p.add_argument("--top", type=int, default=5, help="moves to show (default 5)")
    p.add_argument("--jobs", type=int, default=1, help="parallel search workers (default 1)")
    p.add_argument("--bot", default="ismcts-fast", help="ISMCTS configuration to search with")
    p.add_argument("--seed", type=int, help="search seed (default: the bot's)")
    p.add_argument("--move", type=int, metavar="N", help="for a record: hint after N moves")
    p.add_argument("--json", action="store_true", help="print the hints as JSON")
    p.set_defaults(run=cmd_hint)

    p = sub.add_parser("bots", help="list the bot configurations and their settings",
                       description="List the bot configurations found in ./bots/ and among those "
                                   "that come with tigris, with their kind, description and settings.")
    p.set_defaults(run=cmd_bots)

    p = sub.add_parser("bench", help="measure the speed of the compiled core",
                       description="Measure random games per second, decisions per second, copy "
                                   "and apply+undo times on one core; every figure is a median.")
    p.add_argument("part", nargs="?", default="core", choices=("core", "search"),
                   help="core: random games, copy, apply+undo; search: ISMCTS iterations per second")
    p.add_argument("--games", type=int, default=1000, help="random games per repeat (default 1000)")
    p.add_argument("--repeats", type=int, default=5, help="repeats per figure (default 5)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(run=cmd_bench)
    return parser


def cmd_demo(args):
    from tigris.record import to_record

    rng = random.Random(args.seed)
    g = tigris.Game(players=args.players, seed=args.seed)
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

    data = records.load(path)
    if isinstance(data, dict) and str(data.get("format", "")).startswith("tigris-game/"):
        return records.replay(data, upto=move)
    if move is not None:
        raise PositionError("--move applies to game records, not positions")
    return tigris.Game.from_position(data)


def cmd_hint(args):
    from tigris.hint import format_table, hint

    g = _game_of(args.file, args.move)
    try:
        hints = hint(g, seconds=args.seconds, iterations=args.iterations, top=args.top,
                     jobs=args.jobs, bot=args.bot, seed=args.seed)
    except ValueError as e:
        print(f"tigris hint: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"player": g.current_player, "decision": g.decision, "hints": hints}, indent=2))
    else:
        print(format_table(g, hints))


def cmd_bots(args):
    from tigris import bots

    for name in bots.available():
        kind, params, description = bots.describe(name)
        settings = ", ".join(f"{k}={v}" for k, v in params.items() if v is not None)
        print(f"{name:<16} {kind:<7} {description}")
        print(f"{'':<16} {'':<7} {settings}")


def cmd_bench(args):
    from tqdm import tqdm

    from tigris import bench

    print(f"machine: {bench.machine()}", file=sys.stderr)
    if args.part == "search":
        with tqdm(total=3 * args.repeats, desc="searches", unit="run", file=sys.stderr) as bar:
            rows = bench.bench_search(repeats=args.repeats, progress=bar.update)
    else:
        with tqdm(total=3 * args.repeats, desc="random games", unit="run", file=sys.stderr) as bar:
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
