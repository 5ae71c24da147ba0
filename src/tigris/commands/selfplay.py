"""tigris selfplay: bots' games with their positions labelled, data for a learned evaluation."""

from tigris.commands.options import POSITIVE, add_backend, add_board, add_command, add_jobs, add_seed, whole
from tigris.errors import UsageError

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Play games between copies of one bot in parallel worker processes (or on a dask cluster:
--backend dask --scheduler ADDRESS), pick positions spread
over each game's decisions, and label every position with the game's result (each
player's share of the first place) and with a search's chances there (every player's
chance of finishing first, as tigris hint gives it, searched from what the player to
move can see) and with that search's policy target (its visits of its moves, or with
--policy-target completed-q Gumbel AlphaZero's improved policy from its values, with
shrunk-q that policy from values shrunk toward the root's by their visits). With
--labels cap (playout cap randomisation) no position is searched twice: a share
--full-share of each game's decisions is searched at --label-iterations by the bot itself
and labelled, the others at its own budget. Each game is appended to OUT/positions.jsonl
as it finishes; the same command again continues the run (docs/FORMATS.md:
tigris-selfplay/3).
"""


def add_to(sub):
    from tigris.runs.selfplay import DEFAULT_BOT, FULL_SHARE, LABEL_ITERATIONS, LABELS, MAX_GAMES, POSITIONS
    from tigris.runs.targets import POLICY_TARGETS

    p = add_command(sub, "selfplay", run,
                    help="bots' games with their positions labelled, for a learned evaluation",
                    description=DESCRIPTION)
    p.add_argument("--out", required=True, metavar="DIR", help="the run's folder, continued if it exists")
    p.add_argument("--games", type=whole(1, MAX_GAMES), default=100,
                   help=f"games to play (default 100, at most {MAX_GAMES:,})")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help="players a game (default 2)")
    p.add_argument("--bot", default=DEFAULT_BOT, help=f"the bot in every seat (default {DEFAULT_BOT})")
    add_board(p, "the side of the board (default classic)")
    p.add_argument("--variants", nargs="*", default=[], metavar="VARIANT",
                   help="english, buildings (default none)")
    p.add_argument("--positions", type=whole(1, 1000), default=POSITIONS,
                   help=f"positions labelled a game (default {POSITIONS}; with --labels cap, "
                        f"at most this many)")
    p.add_argument("--label-iterations", type=POSITIVE, default=LABEL_ITERATIONS,
                   help=f"iterations of each label's search (default {LABEL_ITERATIONS})")
    p.add_argument("--label-bot", metavar="BOT",
                   help=f"the ismcts configuration the labels search with (default {DEFAULT_BOT})")
    p.add_argument("--labels", choices=LABELS, default="separate",
                   help="separate: --positions positions of each game searched again by the "
                        "label bot; cap: the game's own searches, a share --full-share in full "
                        "(default separate)")
    p.add_argument("--policy-target", choices=POLICY_TARGETS, default="visits",
                   help="visits: the root's visits as shares; completed-q: Gumbel AlphaZero's "
                        "improved policy from the search's values; shrunk-q: the same from values "
                        "shrunk toward the root's by their visits, sharper (default visits)")
    p.add_argument("--full-share", type=float, default=FULL_SHARE,
                   help=f"with --labels cap: the share of decisions searched in full and "
                        f"labelled (default {FULL_SHARE})")
    add_seed(p, "base seed of the deals and the bots")
    add_jobs(p)
    add_backend(p)


def run(args):
    """tigris selfplay: play and label games into a folder, or continue it."""
    import os

    from tigris.runs import selfplay

    s = selfplay.settings(games=args.games, players=args.players, bot=args.bot,
                          board=args.board or "classic", variants=args.variants, seed=args.seed,
                          positions=args.positions, label_bot=args.label_bot,
                          label_iterations=args.label_iterations, labels=args.labels,
                          policy_target=args.policy_target, full_share=args.full_share)
    lines = selfplay.run(s, args.out, jobs=args.jobs or os.cpu_count() or 1,
                         reads=[args.bot, args.label_bot], backend=args.backend,
                         scheduler=args.scheduler)
    positions = sum(len(line.get("positions", [])) for line in lines)
    failed = sum("error" in line for line in lines)
    print(f"{len(lines)} games, {positions:,} labelled positions in {args.out}/positions.jsonl"
          + (f" ({failed} games failed: their lines say why)" if failed else ""))
    if lines and failed == len(lines):
        first = next(line for line in lines if "error" in line)
        raise UsageError(f"all {failed} games failed (game {first['game']}: {first['error'][:200]}): "
                         f"{args.out} holds no data to train on; failed games are not played "
                         f"again: fix the cause, then run in a new folder")
