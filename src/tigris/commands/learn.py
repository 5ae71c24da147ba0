"""tigris learn: expert iteration, generation after generation (needs the train extra)."""

import argparse
import inspect

from tigris.commands.options import POSITIVE, add_backend, add_command, add_force, add_jobs, seconds, whole

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Improve the network of a line (--players 2, or --players 3 4 for the 3-and-4-player
network) by expert iteration, one generation after another: the current bot (--bot's
knobs with the current network) plays itself and its deeper search labels the positions
(tigris selfplay), a network is trained from the current one on the last --window
generations' data (tigris train), and an SPRT at equal time (--seconds a move) between
it and the current bot (tigris match; with 3 and 4 players, at both, the current bot in
the other seats) makes it the current one when it accepts H1. Everything goes to OUT:
OUT/generations.jsonl gets a line per generation (the commands of its stages, seeds,
CPU and wall seconds, losses, the candidate's policy alone on the position suite of
tigris bench policy, the gate's result and Elo), OUT/gen-K/ its data, network
and bot files, OUT/current.toml the current bot. The same command again continues
where a run stopped (killed at any stage), without running a finished stage again, also
when OUT was kept without its self-play data (OUT/gen-K/selfplay), or its record alone
(learn.json, generations.jsonl, gen-K/stages.json and clock.json, the current network)
was copied to another folder or machine; the settings not given are then the folder's own
(OUT/learn.json: tigris learn OUT goes on; a loop of a bot file of one's own is given
--bot again), and other settings are refused, naming the option. Ctrl-C or SIGTERM stops
it keeping what is done. Self-play and the gates run in worker processes here, or on a dask cluster
(--backend dask --scheduler ADDRESS). Needs PyTorch: pip install 'tigris-euphrates[train]'.
"""


def add_to(sub):
    from tigris.knobs import MAX_ITERATIONS
    from tigris.runs.learn import (DEFAULT_BOT, FULL_SHARE, GAMES, LABELS, MAX_GATE_GAMES, MAX_SEED, MAX_WINDOW,
                                   POLICY_TARGET, POSITIONS, SECONDS, WINDOW, settings)
    from tigris.runs.selfplay import LABELS as LABEL_KINDS
    from tigris.runs.selfplay import MAX_GAMES
    from tigris.runs.targets import POLICY_TARGETS
    from tigris.runs.train import EPOCHS, MAX_EPOCHS, PATIENCE
    from tigris.tournament import MAX_GAMES as MAX_MATCH_GAMES

    p = add_command(sub, "learn", run, help="expert iteration, generation after generation: self-play, "
                                            "training, a gate", description=DESCRIPTION)
    p.add_argument("out", metavar="OUT", help="the loop's folder, continued if it exists")
    p.add_argument("--players", type=int, nargs="+", choices=(2, 3, 4), default=[2],
                   help="the line: 2, or 3 4 (self-play at 4 players, gates at 3 and 4; default 2)")
    p.add_argument("--generations", type=POSITIVE, metavar="N",
                   help="how many more generations to run (default: until stopped)")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"the bot whose knobs every generation plays with, with its own network (an "
                        f"ismcts bot with evaluator and priors \"net\"; default {DEFAULT_BOT})")
    p.add_argument("--start", metavar="NETWORK",
                   help="the first current network: a shipped generation or a file (default: the "
                        "shipped default's for the line)")
    p.add_argument("--games", type=whole(1, MAX_GAMES), default=GAMES,
                   help=f"self-play games a generation (default {GAMES})")
    p.add_argument("--positions", type=whole(1, 1000), default=POSITIONS,
                   help=f"positions labelled a game (default {POSITIONS})")
    p.add_argument("--label-iterations", type=POSITIVE,
                   help="iterations of each label's search (default: the bot's own)")
    p.add_argument("--labels", choices=LABEL_KINDS, default=LABELS,
                   help=f"separate or cap, as tigris selfplay's (default {LABELS}: the game's own searches)")
    p.add_argument("--policy-target", choices=POLICY_TARGETS, default=POLICY_TARGET,
                   help=f"{', '.join(POLICY_TARGETS)}, as tigris selfplay's (default {POLICY_TARGET}); a "
                        f"continued loop may change it, for the self-plays not yet begun")
    p.add_argument("--full-share", type=float, default=FULL_SHARE,
                   help=f"with --labels cap: the share of decisions searched in full (default {FULL_SHARE}: "
                        f"every one)")
    p.add_argument("--window", type=whole(1, MAX_WINDOW), default=WINDOW,
                   help=f"the last W generations' self-play data trains the next; older data is deleted "
                        f"(default {WINDOW})")
    p.add_argument("--epochs", type=whole(1, MAX_EPOCHS), default=EPOCHS,
                   help=f"training's most epochs a generation (default {EPOCHS})")
    p.add_argument("--patience", type=whole(1, MAX_EPOCHS), default=PATIENCE,
                   help=f"training stops after this many epochs without a better held-out loss "
                        f"(default {PATIENCE})")
    p.add_argument("--train-value", action=argparse.BooleanOptionalAction, default=False,
                   help="train the value too (default: the value is kept frozen, the policy trained); "
                        "a continued loop may change it, for the trainings not yet begun")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=seconds, default=SECONDS,
                        help=f"the gate's time a move, each bot (default {SECONDS})")
    budget.add_argument("--gate-iterations", type=whole(1, MAX_ITERATIONS), metavar="N",
                        help="gate at N iterations a move instead of a time (its games then repeat)")
    p.add_argument("--sprt", nargs="+", metavar="KEY=VALUE", default=["elo0=0", "elo1=30"],
                   help="the gate's test: elo0=.. elo1=.. [alpha=0.05] [beta=0.05] (default elo0=0 elo1=30)")
    p.add_argument("--max-gate-games", type=whole(1, MAX_MATCH_GAMES), default=MAX_GATE_GAMES,
                   help=f"a gate's most games (default {MAX_GATE_GAMES}); a continued loop may change it, "
                        f"for the gates not yet begun")
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=0,
                   help="base seed of every stage's seeds (default 0)")
    p.add_argument("--report", action="store_true",
                   help="run nothing: print the generations of OUT so far as a table (each network's Elo "
                        "over the first one along its line of promotions, its policy on the position suite)")
    p.add_argument("--plot", metavar="PNG",
                   help="with --report: also draw that Elo per generation into the PNG file (needs matplotlib)")
    add_force(p, "the --plot file")
    add_jobs(p)
    add_backend(p)
    # The options that set the loop, learn.settings' arguments: not given, a setting is the
    # folder's own (a loop goes on with `tigris learn OUT`), else its default; the defaults
    # are kept aside and the options read None.
    options = inspect.signature(settings).parameters
    p.set_defaults(setting_defaults={dest: p.get_default(dest) for dest in options}, **dict.fromkeys(options))


def run(args):
    """tigris learn: run generations of the loop in OUT, or continue them."""
    from tigris.runs import learn, train

    if args.report or args.plot:
        return report(args)
    train.require_torch()                       # before anything is written
    s = learn.settings(**_settings(args))
    lines = learn.run(s, args.out, generations=args.generations, jobs=args.jobs, backend=args.backend,
                      scheduler=args.scheduler)
    current = lines[-1]["current"] if lines else 0
    promoted = sum(line["promoted"] for line in lines)
    print(f"{args.out}: {len(lines)} generations ({promoted} promoted); the current network is generation "
          f"{current}'s, {args.out}/gen-{current}/network.npz (its bot: {args.out}/current.toml)")


def _settings(args):
    """learn.settings' arguments: those given, else the folder's own (OUT/learn.json),
    else the defaults."""
    from tigris import bots
    from tigris.errors import ConfigError, UsageError
    from tigris.match import parse_sprt
    from tigris.runs import learn

    given = {dest: getattr(args, dest) for dest in args.setting_defaults if getattr(args, dest) is not None}
    folder = learn.folder_settings(args.out)
    if {"seconds", "gate_iterations"} & set(given):          # the gate's budget is one of the two
        folder.pop("seconds", None)
        folder.pop("gate_iterations", None)
    if "bot" in folder and "bot" not in given:
        try:
            bots.configuration(folder["bot"], network=False)
        except ConfigError:
            raise UsageError(f"{args.out}: its loop plays with {folder['bot']!r}'s knobs, which is not a "
                             f"shipped bot nor one in ./bots: give --bot with its file") from None
    kw = {**args.setting_defaults, **folder, **given}
    if isinstance(kw["sprt"], list):                         # words on the command line
        kw["sprt"] = parse_sprt(kw["sprt"])
    return kw


def report(args):
    """tigris learn OUT --report [--plot PNG]: the loop's generations so far, run nothing."""
    from pathlib import Path

    from tigris.errors import UsageError
    from tigris.files import check_new
    from tigris.runs import generations, learn

    if not args.report:
        raise UsageError("--plot draws the report: give --report too")
    if not (Path(args.out) / learn.LOG).is_file():
        raise UsageError(f"{args.out}: no {learn.LOG}: not a tigris learn folder, or no generation has "
                         f"finished in it yet")
    if args.plot:
        check_new(args.plot, "--plot", args.force, reads=[Path(args.out) / learn.LOG])
    table = generations.rows(learn.read_generations(args.out))
    print(generations.markdown(table))
    if args.plot:
        generations.plot(table, args.plot)
        print(f"the picture: {args.plot}")
