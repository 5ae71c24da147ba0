#!/usr/bin/env python3
"""Fit the calibration of the hints' chances (``tigris.chance``) to the outcomes of games.

    python tools/fit_hint_chance.py seed1.jsonl --positions 500 --seed 1 --jobs 2
    python tools/fit_hint_chance.py seed2.jsonl --positions 1000 --seed 2 --jobs 2
    python tools/fit_hint_chance.py seed1.jsonl seed2.jsonl --fit src/tigris/chance.json
    python tools/fit_hint_chance.py plain.jsonl --positions 300 --seed 0 --games-bot plain.toml
    python tools/fit_hint_chance.py plain.jsonl --measure

The first collects: on the positions of ``tigris bench calibration`` (games of
``ismcts-fast`` at 300 iterations a move, or of ``--games-bot`` at
``--games-iterations`` or its own, three positions a game) from ``--seed``, the
search of ``--iterations`` of ``--bot`` (default the hints'; the shipped fit came from
searches of ``ismcts-heuristic`` on its own games, when it was ``ismcts-fast``) with the
same seed, and keeps one JSON line a
position with the search's own chances after the move it plays, as a hint reads them
(averaged over the move's visits), the mover and every player's share of the first place.  Lines are appended as they come: run it again
after a kill and it goes on.  The bench measures with seed 0, so fit on other seeds.

The last fits the map of ``tigris.chance`` by maximum likelihood on the samples of every
file given, one set of coefficients per player count, and writes them
(``tigris-chance/1``); those three commands made the shipped fit (some 6 minutes of 2
cores for 500 positions a player count, 17 for 1,000).  Before it writes, it measures
the fit on samples it did not see: the games are dealt into ``--folds`` parts (a game's
positions stay together), each part's chances calibrated by the fit on the others, and
the expected calibration error of the mover's chance over all parts, and the log loss,
are printed per player count beside those of the map in use (``tigris.chance.load()``, or ``--against FILE``) on the
same samples.  ``--measure`` fits nothing: per player count, the ECE of the map in use
(or ``--against``) on the samples given, beside what a calibrated chance would read on
them (``tigris.calibration.calibrated_floor``: the median and 95th percentile of 200 draws
of the outcomes from the chances), the mean chance and the mean outcome.
"""

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

from joblib import delayed

from tigris import chance
from tigris.calibration import calibrated_floor, expected_calibration_error
from tigris.runs import bench
from tigris.commands.options import JOBS, POSITIVE, whole
from tigris.errors import UsageError
from tigris.files import check_target, open_append
from tigris.hints import DEFAULT_BOT
from tigris.sources import check_source
from tigris._plumbing import jsonl
from tigris._plumbing.work import Run


def read(path, repair=False):
    """The samples of a file, each checked (``chance.sample_problem``); a UsageError names
    the file, the line and what is wrong.  A torn last line (a killed collection) is
    ignored with a warning, and cut off when `repair` is set."""
    check_source(path)
    values, torn = jsonl.read(path)
    for lineno, sample in values:
        problem = chance.sample_problem(sample)
        if problem:
            raise UsageError(f"{path}: line {lineno}: {problem}")
    jsonl.settle(path, torn, repair)
    return [sample for _, sample in values]


def collect(path, positions, seed, iterations, jobs, bot=DEFAULT_BOT, games_bot=None):
    done = {(s["seed"], s["move"]) for s in read(path, repair=True)} if path.exists() else set()
    check_target(path, option="SAMPLES")
    with Run(jobs, True, total=bench.calibration_runs(positions), desc="games, then searches",
             unit="task") as run:
        found = bench.calibration_positions(positions, seed, run, games_bot)
        todo = [p for p in found if (p["seed"], len(p["moves"])) not in done]
        run.bar.update(len(found) - len(todo))
        with open_append(path) as f:
            def save(sample):
                jsonl.append(f, sample)
                run.bar.update()

            run.tasks([delayed(bench.calibration_sample)(p, bot, iterations, seed)
                       for p in todo], save)


def cross_validated(samples, folds, seed, against):
    """Per player count with samples: ``(positions, ECE of the map `against`, ECE of the
    fit cross-validated, mean chance of each, mean outcome, log loss of each)`` of the
    mover (the log loss, of every player's chance against the shares of the first place,
    is the figure the fit minimises, and less noisy than the ECE), the games (samples of
    one ``seed``) dealt at random into `folds` parts, each part calibrated by the fit on
    the others."""
    games = sorted({s["seed"] for s in samples})
    random.Random(seed).shuffle(games)
    part = {g: k % folds for k, g in enumerate(games)}
    held = [[] for _ in range(folds)]
    for k in range(folds):
        model = chance.fit([s for s in samples if part[s["seed"]] != k])
        held[k] = [(s, model) for s in samples if part[s["seed"]] == k]
    rows = {}
    for players in (2, 3, 4):
        mine = [(s, m) for fold in held for s, m in fold if s["players"] == players]
        if not mine:
            continue
        old = [chance.calibrated(s["raw"], s["mover"], against)[s["mover"]] for s, _ in mine]
        new = [chance.calibrated(s["raw"], s["mover"], m)[s["mover"]] for s, m in mine]
        won = [s["outcome"][s["mover"]] for s, _ in mine]
        rows[players] = (len(mine), expected_calibration_error(old, won),
                         expected_calibration_error(new, won), statistics.fmean(old),
                         statistics.fmean(new), statistics.fmean(won),
                         _log_loss(mine, against), _log_loss(mine, None))
    return rows


def read_all(paths):
    """The samples of every file of `paths` (``read``); a UsageError if there are none."""
    samples = [sample for path in paths for sample in read(path)]
    if not samples:
        raise UsageError(f"no samples in {', '.join(map(str, paths))}: collect some first")
    return samples


def measured(samples, against):
    """Per player count with samples, and ``"all"`` of them: ``(positions, ECE of the
    mover's chance by the map `against`, the calibrated floor's median and 95th
    percentile, mean chance, mean outcome)``."""
    rows = {}
    for players in (2, 3, 4, "all"):
        mine = [s for s in samples if players in ("all", s["players"])]
        if not mine:
            continue
        shown = [chance.calibrated(s["raw"], s["mover"], against)[s["mover"]] for s in mine]
        won = [s["outcome"][s["mover"]] for s in mine]
        rows[players] = (len(mine), expected_calibration_error(shown, won), *calibrated_floor(shown),
                         statistics.fmean(shown), statistics.fmean(won))
    return rows


def _log_loss(pairs, model):
    """The mean cross-entropy of the calibrated chances (by `model`, or each sample's own
    fit when None) against the shares of the first place."""
    total = 0.0
    for s, own in pairs:
        chances = chance.calibrated(s["raw"], s["mover"], model or own)
        total -= sum(o * math.log(max(c, 1e-12)) for o, c in zip(s["outcome"], chances))
    return total / len(pairs)


def _map(path):
    """The map of the file `path` (None: the one in use); a UsageError if it is not one."""
    try:
        return chance.load(path) if path else chance.load()
    except ValueError as e:
        raise UsageError(str(e)) from None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("samples", type=Path, nargs="+",
                    help="the samples file (JSON lines) to collect into, or the files to fit")
    ap.add_argument("--positions", type=whole(1, 30_000), default=500,
                    help="per player count (default 500)")
    ap.add_argument("--seed", type=whole(0, 1_000_000), default=1,
                    help="of the games and the searches; with --fit, of the folds (default 1)")
    ap.add_argument("--iterations", type=POSITIVE, default=20_000, help="per search (default 20000)")
    ap.add_argument("--jobs", type=JOBS, default=1, help="parallel workers (default 1)")
    ap.add_argument("--bot", default=DEFAULT_BOT, help=f"the searches' ismcts configuration "
                                                       f"(default {DEFAULT_BOT}, as hints)")
    ap.add_argument("--games-bot", metavar="BOT",
                    help="collect: the bot (a name or a file) whose games give the positions "
                         "(default ismcts-fast at 300 iterations a move)")
    ap.add_argument("--games-iterations", type=POSITIVE, metavar="N",
                    help="collect: the --games-bot's iterations a move (default: its own)")
    ap.add_argument("--fit", type=Path, metavar="OUT", help="fit the samples and write the coefficients")
    ap.add_argument("--measure", action="store_true",
                    help="fit nothing: the ECE of the map in use (or --against) on the samples, beside "
                         "what a calibrated chance would read")
    ap.add_argument("--folds", type=whole(2, 100), default=2,
                    help="parts of the games for measuring the fit on samples it did not see "
                         "(default 2)")
    ap.add_argument("--against", type=Path, metavar="FILE",
                    help="the tigris-chance/1 map to compare with (default: the one in use)")
    args = ap.parse_args(argv)
    if args.fit is not None and args.measure:
        ap.error("--measure fits nothing: leave out --fit")
    if args.games_iterations is not None and args.games_bot is None:
        ap.error("--games-iterations is the --games-bot's: name the bot too")
    try:
        if args.fit is None and not args.measure:
            if len(args.samples) != 1:
                ap.error("collect into one samples file (several are for --fit or --measure)")
            bench.check_hint_bot(args.bot)
            games_bot = None if args.games_bot is None else (args.games_bot, args.games_iterations)
            bench.check_games_bot(games_bot)
            collect(args.samples[0], args.positions, args.seed, args.iterations, args.jobs, args.bot, games_bot)
            return 0
        if args.measure:
            against = _map(args.against)
            rows = measured(read_all(args.samples), against)
            for players, (n, ece, floor, high, mean, won) in rows.items():
                label = "all" if players == "all" else f"{players} players"
                print(f"{label}, {n} positions: ECE of the mover's chance {ece:.4f} (a calibrated chance "
                      f"here: median {floor:.4f}, 95th percentile {high:.4f}); mean chance {mean:.3f}, "
                      f"outcome {won:.3f}")
            return 0
        check_target(args.fit, reads=[*args.samples, *([args.against] if args.against else [])], option="--fit")
        samples = read_all(args.samples)
        if any("seed" not in s for s in samples):
            raise UsageError("a sample without its game's seed cannot be held out by game: "
                             "collect the samples again with this tool")
        against = _map(args.against)
        model = chance.fit(samples)
        checked = cross_validated(samples, args.folds, args.seed, against)
    except UsageError as e:
        print(f"fit_hint_chance: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"fit_hint_chance: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("fit_hint_chance: interrupted; the samples collected are kept: run the same "
              "command again to continue", file=sys.stderr)
        return 130
    names = ", ".join(path.name for path in args.samples)
    chance.save(model, args.fit, note=f"fitted by tools/fit_hint_chance.py on {len(samples)} "
                                       f"positions of {names}")
    for players, row in sorted(model.items()):
        print(f"{players} players: {', '.join(f'{x:.4f}' for x in row)}")
        if players in checked:
            n, ece_old, ece_new, mean_old, mean_new, won, loss_old, loss_new = checked[players]
            print(f"  {args.folds}-fold cross-validated by game, {n} positions: ECE of the "
                  f"mover's chance {ece_old:.4f} (map in use) -> {ece_new:.4f} (this fit); "
                  f"mean chance {mean_old:.3f} -> {mean_new:.3f} (outcome {won:.3f}); "
                  f"log loss {loss_old:.4f} -> {loss_new:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
