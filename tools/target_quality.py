#!/usr/bin/env python3
"""How good each self-play policy target is before a network trains on it: at each of
the position suite's positions, a bot's own search (as self-play runs it) makes every
target of ``tigris.runs.targets``, and each is judged by the suite's reference.

    python tools/target_quality.py --iterations 1000 --seeds 3

Printed per player count and target: how often the target's most probable move is among
the reference's best (with a 95% interval over the positions: a position's searches are
not independent of each other, so the interval is that of the positions' own shares,
mean +- 1.96 standard errors), and the mean share of its
probability on those moves (what a policy trained on it learns to put there).  The
bot's network's policy alone (``prior``) is the baseline a target must beat: a target no
better than the policy it came from teaches that policy nothing.  ``--grid`` adds the
completed-q transform at other scales and shrinks (``targets.completed_q``'s
``scale`` and ``shrink``), the measurements that chose ``shrunk-q``'s.
"""

import argparse
import statistics
import sys

import tigris
from tigris import bots
from tigris import network as networks
from tigris.errors import ConfigError, UsageError
from tigris.knobs import MAX_ITERATIONS
from tigris.runs import targets
from tigris.runs.suite import load_suite, read_suite

MAX_SEEDS = 100
GRID = [(scale, shrink) for shrink in (0.0, 10.0, 30.0) for scale in (0.03, 0.1, 0.3, 1.0)]


def target_makers(grid):
    """name -> function(root statistics, prior) -> {action: probability}."""
    makers = {kind: (lambda stats, prior, kind=kind: _shares(targets.policy_target(kind, stats, prior)))
              for kind in targets.POLICY_TARGETS}
    for scale, shrink in (GRID if grid else []):
        makers[f"completed-q scale {scale:g} shrink {shrink:g}"] = (
            lambda stats, prior, scale=scale, shrink=shrink: dict(targets.completed_q(
                stats.children, prior, scale=scale, shrink=shrink)))
    return makers


def judge(suite, bot, iterations, seeds, grid=False, progress=None):
    """{players: {target: [(right, share on the best), ...]}}, a pair a position (the
    means over its `seeds` searches, `iterations` each), by the bot configuration `bot`
    (an ismcts bot that searches with its network's policy)."""
    conf = bots.configuration(bot)
    if conf.kind != "ismcts" or conf.params.get("priors") != "net":
        raise UsageError(f"--bot {bot}: an ismcts bot with priors \"net\" makes these targets")
    makers = target_makers(grid)
    results = {}
    for index, entry in enumerate(suite["positions"]):
        game = tigris.Game.from_position(entry["position"])
        best = {game.parse_action(move) for move in entry["reference"]["best"]}
        prior = networks.from_knobs("net", conf.params["network"], game.players).policy(game)
        rows = results.setdefault(game.players, {name: [] for name in ["prior", *makers]})
        rows["prior"].append(_score(prior, best))
        scores = {name: [] for name in makers}
        for seed in range(seeds):
            searcher = conf.bot(seed=1000 * index + seed, workers=1)
            stats = searcher.root_statistics(game, iterations=iterations)
            for name, make in makers.items():
                scores[name].append(_score(make(stats, prior), best))
        for name, pairs in scores.items():
            rows[name].append(tuple(statistics.fmean(x) for x in zip(*pairs)))
        if progress:
            progress(index + 1, len(suite["positions"]))
    return results


def _shares(target):
    """{action: share} of a target's [[action, weight], ...] (the visits are counts)."""
    total = sum(w for _, w in target)
    return {a: w / total for a, w in target}


def _score(target, best):
    """(whether the most probable move is among `best`, the probability on `best`)."""
    top = max(target, key=lambda a: (target[a], -a))
    return float(top in best), sum(p for a, p in target.items() if a in best)


def interval(values):
    """The mean of `values` and its 95% interval (normal, by their standard error)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="ismcts-fast", help="the searching bot (default ismcts-fast)")
    parser.add_argument("--iterations", type=int, default=1000, help="iterations a search (default 1000)")
    parser.add_argument("--seeds", type=int, default=3, help="searches of each position (default 3)")
    parser.add_argument("--suite", metavar="FILE", help="a suite file (default the shipped one)")
    parser.add_argument("--grid", action="store_true", help="also completed-q at other scales and shrinks")
    args = parser.parse_args(argv)
    try:
        if not 1 <= args.iterations <= MAX_ITERATIONS or not 1 <= args.seeds <= MAX_SEEDS:
            raise UsageError(f"--iterations must be 1 to {MAX_ITERATIONS:,} and --seeds 1 to {MAX_SEEDS}")
        suite = read_suite(args.suite) if args.suite else load_suite()
        tell = (lambda done, total: print(f"\r{done} of {total} positions", end="", file=sys.stderr)
                ) if sys.stderr.isatty() else None
        results = judge(suite, args.bot, args.iterations, args.seeds, args.grid, tell)
    except (UsageError, ConfigError) as e:
        print(f"target_quality: {e}", file=sys.stderr)
        return 1
    if tell:
        print(file=sys.stderr)
    for players, rows in sorted(results.items()):
        print(f"{players} players, {len(rows['prior'])} positions, {args.seeds} searches each")
        print(f"  {'target':<40} {'top move among the best':>24} {'95% interval':>14} {'share on the best':>18}")
        for name, scores in rows.items():
            right, low, high = interval([r for r, _ in scores])
            print(f"  {name:<40} {right:>24.1%} {f'{low:.1%}-{high:.1%}':>14} "
                  f"{statistics.fmean(s for _, s in scores):>18.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
