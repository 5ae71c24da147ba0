#!/usr/bin/env python3
"""How often networks' policies name the top move of self-play labels: the same reference
labels for every network, so two self-play targets (or two generations) are compared by
the policy they train, not by their own labels.

    python tools/policy_accuracy.py data/reference --network gen1 nets/a/network.npz

For each labelled position of the folders (their ``policy`` label: a search's visits),
each network's most probable legal move (no search) is compared with the label's most
visited move; a tie in the label counts any of its most visited moves.  Printed per
network: the share right with its 95% Wilson interval, the mean probability the policy
gives the label's top move, and the cross-entropy of the labels' visit shares under the
policy (nats; what training minimises, here on labels none of the networks saw).  Use a folder none of the networks trained on (another
seed), so the figure is a held-out one.
"""

import argparse
import math
import statistics
import sys

from tigris import network as networks
from tigris.errors import UsageError
from tigris.ratings import wilson_interval
from tigris.runs.train import dataset

TINY = 1e-9     # a probability floor: a label's move the policy gives 0 costs 20.7 nats, not infinity


def accuracy(data, net):
    """(right, judged, mean probability of the reference's top move, mean cross-entropy
    of the reference's shares) of `net`'s policy on the policy-labelled positions of
    `data` (``tigris.runs.train.Data``)."""
    right, judged, mass, entropy = 0, 0, [], []
    for game, target in zip(data.positions, data.policy):
        if game is None or target is None:
            continue
        actions, shares = target
        best = {int(a) for a, s in zip(actions, shares) if s == shares.max()}
        prior = net.policy(game)
        top = max(prior, key=lambda a: (prior[a], -a))
        right += top in best
        judged += 1
        mass.append(max(prior.get(a, 0.0) for a in best))
        entropy.append(-sum(float(s) * math.log(max(prior.get(int(a), 0.0), TINY)) for a, s in zip(actions, shares)))
    mean = (lambda xs: statistics.fmean(xs) if xs else float("nan"))
    return right, judged, mean(mass), mean(entropy)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", metavar="LABELS", help="self-play folders: the reference labels")
    parser.add_argument("--network", nargs="+", required=True, metavar="NET",
                        help="networks to judge: a generation's name (gen1) or a file")
    args = parser.parse_args(argv)
    try:
        data = dataset(args.folders, progress=sys.stderr.isatty())
        if not data.has_policy:
            raise UsageError(f"{', '.join(args.folders)}: no position has a policy label")
        players = {int(p) for p in data.players}
        if len(players) != 1:
            raise UsageError(f"the folders mix games of {sorted(players)} players: give one count's")
        count = players.pop()
        nets = {name: networks.from_knobs("net", name, count) for name in args.network}
        for name, net in nets.items():
            if not net.has_policy:
                raise UsageError(f"network {name}: no policy head to judge")
        print(f"{'network':<40} {'top move right':>16} {'95% interval':>16} {'mean p(top)':>12} "
              f"{'cross-entropy':>14}")
        for name in args.network:
            right, judged, mass, entropy = accuracy(data, nets[name])
            low, high = wilson_interval(right, judged)
            print(f"{name:<40} {right / judged:>15.1%} {f'{low:.1%}-{high:.1%}':>16} {mass:>12.3f} "
                  f"{entropy:>14.3f}   ({right} of {judged})")
    except UsageError as e:
        print(f"policy_accuracy: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
