#!/usr/bin/env python3
"""What the OpenSpiel adapter costs: random games per second played through OpenSpiel's
state (tigris.interop.openspiel: every decision and every draw a move, the draws chance
nodes) against the same games played on ``tigris.Game`` from Python (the core drawing)
and in compiled code (``Game.random_playout``).

    python tools/openspiel_speed.py --players 2 --games 200

Each way plays the same uniformly random games of the same setup on one core, in
``--rounds`` alternating rounds (each round every way in turn, ``--games`` games each), and
prints the median round's games per second, decisions per second and the adapter's
slowdown against ``tigris.Game`` (the median of the rounds' ratios: a shared machine's
load falls on every way alike).  ``--observe`` also reads every player's
observation vector and information state at every decision (what a learner would).
"""

import argparse
import random
import statistics
import sys
import time

import tigris
from tigris.errors import UsageError


def through_game(players, games, seed):
    """(seconds, decisions) of `games` random games on tigris.Game from Python."""
    start, decisions = time.perf_counter(), 0
    for k in range(games):
        g, rng = tigris.Game(players=players, seed=seed + k), random.Random(seed + k)
        while not g.is_over:
            g.apply(rng.choice(g.legal_actions()))
            decisions += 1
    return time.perf_counter() - start, decisions


def compiled(players, games, seed):
    """(seconds, decisions) of `games` random games in compiled code."""
    start, decisions = time.perf_counter(), 0
    for k in range(games):
        decisions += tigris.Game(players=players, seed=seed + k).random_playout(seed + k)
    return time.perf_counter() - start, decisions


def through_openspiel(players, games, seed, observe=False):
    """(seconds, decisions) of `games` random games through OpenSpiel's state, chance
    nodes sampled by their odds (decisions: the players' moves, draws left out)."""
    from tigris.interop import openspiel

    game = openspiel.load(players=players)
    start, decisions = time.perf_counter(), 0
    for k in range(games):
        state, rng = game.new_initial_state(), random.Random(seed + k)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, odds = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, odds)[0])
                continue
            if observe:
                for p in range(players):
                    state.observation_tensor(p)
                    state.information_state_string(p)
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    return time.perf_counter() - start, decisions


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--games", type=int, default=200, help="random games each way (default 200)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--observe", action="store_true",
                    help="through OpenSpiel, also read every player's observation and information state")
    args = ap.parse_args(argv)
    try:
        if args.games < 1:
            raise UsageError(f"--games must be at least 1, not {args.games}")
        if args.rounds < 1:
            raise UsageError(f"--rounds must be at least 1, not {args.rounds}")
        ways = [("tigris.Game from Python", lambda: through_game(args.players, args.games, args.seed)),
                ("tigris.Game.random_playout", lambda: compiled(args.players, args.games, args.seed)),
                ("OpenSpiel state" + (" observed" if args.observe else ""),
                 lambda: through_openspiel(args.players, args.games, args.seed, args.observe))]
        rounds = [[run() for _, run in ways] for _ in range(args.rounds)]
    except (UsageError, ImportError) as e:
        print(f"openspiel_speed: {e}", file=sys.stderr)
        return 2
    print(f"{args.games} random games of {args.players} players each way, {args.rounds} alternating rounds "
          f"(medians)")
    for i, (name, _) in enumerate(ways):
        seconds = statistics.median(r[i][0] for r in rounds)
        decisions = rounds[0][i][1]                 # the same games every round
        ratio = statistics.median(r[i][0] / r[0][0] for r in rounds)
        print(f"{name:32} {args.games / seconds:9.1f} games/s {decisions / seconds:11.0f} decisions/s "
              f"{ratio:6.2f}x tigris.Game's time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
