"""The luck of the tiles drawn: how much each draw moved its drawer's chance of winning,
against what the bag could have given, as backgammon analysers report luck per roll.

>>> from tigris import record
>>> from tigris.runs import luck
>>> rec = record.load("my-game.json")                                   # doctest: +SKIP
>>> draws = luck.of_game(rec)                                           # doctest: +SKIP
>>> luck.totals(draws, players=2)                                       # doctest: +SKIP
[0.0412, -0.0388]

A move that ends a turn (R15, R81) or swaps tiles (R43) draws tiles from the bag; its
record holds them (``Game.history``: each apply's ``(player, colour)`` draws).  For each
player who drew in a move:

    luck = chance(the tiles drawn) - mean chance(tiles the bag could have given)

where ``chance`` is the drawer's chance of finishing first in the position right after
the move, as the drawer sees it (its own hand, not the others'), read by the shipped
value network (``tigris.network``) with the drawer to decide, and the mean is over
``samples`` draws of the same sizes, in the same order of players, from the bag as it
was before the move (the others' draws stay as they were).  A sum of the luck over a
game near 0 is average luck; positive, the player drew better than the bag's average.
Draws that end the game count 0 (nothing is left to use them for).
"""

import random

from tigris import network as networks
from tigris import record as records
from tigris.constants import COLOURS, PH_ACTION

__all__ = ["SAMPLES", "of_game", "of_replay", "totals"]

SAMPLES = 32        # alternative draws per move: the mean's standard error ~ 1/sqrt(32)


def of_game(rec, samples=SAMPLES, seed=0, net=None):
    """Every draw's luck: a list of ``{"move": n, "player": p, "drawn": [colours],
    "luck": float}`` (rounded to 4 decimals), in the order of the moves.  `rec` is a
    game record (checked as it is replayed); `net`, a network (default: the shipped one
    for the game's number of players)."""
    states, moves = [], []
    for n, game in records.steps(rec):
        states.append(game.copy(stack=False))
        if n:
            moves.append((game.history[-1][0], game.history[-1][3]))
    return of_replay(states, moves, samples, seed, net)


def of_replay(states, moves, samples=SAMPLES, seed=0, net=None):
    """``of_game`` of a game already replayed: `states`, the game before each move and
    after the last; `moves`, each move's ``(action, draws)`` as ``Game.history`` has
    them (``tigris.analysis.replayed`` gives both)."""
    rng = random.Random(seed)
    net = net or networks.load(players=states[0].players)
    out = []
    for n, (action, draws) in enumerate(moves, start=1):
        before, game = states[n - 1], states[n]
        if not draws or game.is_over:
            continue
        bag = _bag(before)
        for p in dict.fromkeys(d[0] for d in draws):
            actual = _chance(game, p, net)
            others = [_chance(_drawn(before, action, draws, p, bag, rng), p, net)
                      for _ in range(samples)]
            out.append({"move": n, "player": p,
                        "drawn": [COLOURS[c] for q, c in draws if q == p],
                        "luck": round(actual - sum(others) / len(others), 4)})
    return out


def totals(draws, players):
    """Each player's summed luck over `draws` (``of_game``'s list)."""
    sums = [0.0] * players
    for d in draws:
        sums[d["player"]] += d["luck"]
    return [round(s, 4) for s in sums]


def _bag(game):
    """The bag's tiles, one colour index each."""
    return [c for c, k in enumerate(game.raw_state()["bag"]) for _ in range(k)]


def _drawn(before, action, draws, p, bag, rng):
    """The move applied again to `before`, `p`'s tiles drawn afresh from the bag less the
    others' draws in the move (theirs stay as they were: given them, `p`'s draw is a
    uniform one from what is left)."""
    left = list(bag)
    for q, c in draws:
        if q != p:
            left.remove(c)
    rng.shuffle(left)
    fresh = iter(left)
    game = before.copy(stack=False)
    game.apply(action, draws=[(q, next(fresh)) if q == p else (q, c) for q, c in draws])
    return game


def _chance(game, p, net):
    """`p`'s chance of finishing first, by the network, with `p` to decide: the network
    reads the position as its player to decide sees it, so the others' hands stay
    unseen."""
    raw = game.raw_state()
    if raw["active"] != p or raw["phase"] != PH_ACTION:
        raw.update(active=p, actions_left=2, phase=PH_ACTION)
        game = game.copy(stack=False)
        game.load_raw_state(raw)
    chances, _ = net.evaluate(game)
    return chances[p]
