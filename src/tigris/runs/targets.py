"""A position's training targets from a search's own root statistics: what self-play
labels a position with (``tigris.runs.selfplay``), below the hints and their calibrated
chances, so a map fitted for what people read never changes the next network's data.

The value target is the chances of the search's choice, as its tree backed them up (each
player's chance of finishing first along the most visited child's best line).  The policy
target is one of ``POLICY_TARGETS``:

* ``"visits"``: the root's visits of its moves, as shares.  With a halving root these
  follow the halving's schedule as much as the search's judgement: a candidate dropped in
  the first round has its visits whatever it was worth.
* ``"completed-q"``: the improved policy of Gumbel AlphaZero (Danihelka et al., 2022): the
  policy's logits plus a monotone transform of each move's value, the values of moves the
  search did not visit completed by the root's mixed value.  It says which moves the
  search found better than the policy thought, from a few dozen visits as well as from
  thousands, and it moves the policy where the search's values point, not where its
  schedule spent its visits.
* ``"shrunk-q"``: the same improved policy, each visited move's value first shrunk toward
  the root's mixed value as if it had SHRINK more visits of that value, and the transform
  ten times as steep (``SHRUNK_SCALE``).  A move seen a few times with a lucky value no
  longer outranks the moves the search examined well, so the target can be sharp: on the
  position suite the share of its probability on the reference's best moves is 0.58 to
  0.69 against completed-q's 0.42 to 0.48 (docs/results.md, "Sharper targets").

>>> from tigris.runs.targets import completed_q
>>> from tigris.search import ChildStats
>>> children = [ChildStats(action=1, visits=30, value=0.6), ChildStats(action=2, visits=10, value=0.4)]
>>> target = completed_q(children, {1: 0.25, 2: 0.5, 3: 0.25})
>>> [a for a, _ in target], round(sum(p for _, p in target), 6)
([1, 2, 3], 1.0)
>>> dict(target)[1] > 0.25 and dict(target)[2] < 0.5   # the better move gains on its prior
True
"""

import math

from tigris.search import child_records

__all__ = ["POLICY_TARGETS", "NEEDS_PRIOR", "C_VISIT", "C_SCALE", "SHRINK", "SHRUNK_SCALE", "value_target",
           "visits", "completed_q", "policy_target"]

POLICY_TARGETS = ("visits", "completed-q", "shrunk-q")
NEEDS_PRIOR = ("completed-q", "shrunk-q")       # the targets made with the policy's prior
# sigma(q) = (C_VISIT + max visits) * C_SCALE * q, Gumbel MuZero's transform of a value in
# [0, 1].  A move's value here is its mean reward, a chance-like number in [0, 1] already:
# it is not rescaled by the values the tree saw (a rescaling would make two moves of
# three visits each and values 0.50 and 0.52 a choice of 1 in 25).
C_VISIT = 50.0
C_SCALE = 0.1
# shrunk-q: a move's value counts as its visits' mean and SHRINK visits of the mixed value,
# then the transform's scale is SHRUNK_SCALE (a steeper one without the shrinking puts
# the target's weight on moves of a few lucky visits: docs/results.md, "Sharper targets").
SHRINK = 30.0
SHRUNK_SCALE = 1.0
# A completed-q target keeps at most MAX_MOVES moves, none below MIN_SHARE (then shares
# again): the long tail of a few hundred legal moves would make each position kilobytes,
# and says little the cross-entropy would notice.
MIN_SHARE = 0.002
MAX_MOVES = 48


def value_target(stats):
    """Every player's chance of finishing first at the root of `stats` (a search's root
    statistics, ``ISMCTSBot.root_statistics``): the chances of its most visited move."""
    return list(stats.children[0].chances)


def visits(children):
    """``[[action, visits], ...]`` of the moves the root visited (its ``children``,
    ``tigris.search.ChildStats``), most visited first."""
    children = child_records(children, "tigris.runs.targets.visits")
    return sorted(([ch.action, ch.visits] for ch in children if ch.visits > 0),
                  key=lambda av: (-av[1], av[0]))


def completed_q(children, prior, scale=C_SCALE, shrink=0.0):
    """Gumbel AlphaZero's improved policy, ``[[action, probability], ...]`` (most likely
    first, at most MAX_MOVES, none below MIN_SHARE, adding up to 1): softmax over the legal moves
    of ``log prior + sigma(q)``, where q is a move's value (its mean reward) for the
    moves the root visited, and for the others the root's mixed value m (the visited moves'
    values weighted by their priors), and ``sigma(q) = (C_VISIT + max visits) * scale *
    q``.  With `shrink` k, a visited move's q is ``(visits * value + k * m) / (visits +
    k)``.  `prior` maps every
    legal action to the policy's probability of it (``Network.policy``); `children` are
    the root's (``tigris.search.ChildStats``)."""
    children = child_records(children, "tigris.runs.targets.completed_q")
    seen = {ch.action: ch for ch in children if ch.visits > 0}
    if not seen:
        raise ValueError("no move was visited: a search of at least one iteration is needed")
    weight = sum(prior.get(a, 0.0) for a in seen)
    if weight > 0:
        mixed = sum(prior.get(a, 0.0) * ch.value for a, ch in seen.items()) / weight
    else:
        mixed = sum(ch.value * ch.visits for ch in seen.values()) / sum(
            ch.visits for ch in seen.values())
    steep = (C_VISIT + max(ch.visits for ch in seen.values())) * scale
    floor = min(p for p in prior.values() if p > 0) if any(p > 0 for p in prior.values()) else 1.0
    logits = {}
    for action, p in prior.items():
        if action in seen:
            ch = seen[action]
            q = (ch.visits * ch.value + shrink * mixed) / (ch.visits + shrink)
        else:
            q = mixed
        logits[action] = math.log(max(p, floor * 1e-3)) + steep * q
    top = max(logits.values())
    weights = {a: math.exp(z - top) for a, z in logits.items()}
    total = sum(weights.values())
    ranked = sorted(((w / total, a) for a, w in weights.items()), key=lambda pa: (-pa[0], pa[1]))
    kept = [(p, a) for p, a in ranked[:MAX_MOVES] if p >= MIN_SHARE] or ranked[:1]
    norm = sum(p for p, _ in kept)
    return [[a, round(p / norm, 6)] for p, a in kept]


def policy_target(kind, stats, prior=None):
    """The policy target of `kind` (``POLICY_TARGETS``) from root statistics `stats`;
    ``"completed-q"`` and ``"shrunk-q"`` need `prior`, the policy's probability of every
    legal move."""
    if kind == "visits":
        return visits(stats.children)
    if kind in NEEDS_PRIOR:
        if prior is None:
            raise ValueError(f"the {kind} target needs the policy's prior of every legal move")
        if kind == "shrunk-q":
            return completed_q(stats.children, prior, scale=SHRUNK_SCALE, shrink=SHRINK)
        return completed_q(stats.children, prior)
    raise ValueError(f"policy target must be one of {', '.join(POLICY_TARGETS)}, not {kind!r}")
