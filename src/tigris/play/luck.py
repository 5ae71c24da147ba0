"""The luck of the tiles drawn: how much each draw moved its drawer's chance of winning,
against what the bag could have given, as backgammon analysers report luck per roll.

>>> from tigris import record
>>> from tigris.play import luck
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
value network (``tigris.network``) with the drawer to decide, and the mean is exact:
over every set of colours the bag could have given the drawer (the same number of
tiles, from the bag as it was before the move, the others' draws in the move as they
were), each weighted by its chance of being drawn, as backgammon analysers average over
the 21 rolls.  Tiles differ only by colour, so a draw of k tiles has at most
C(k+3, 3) outcomes (84 for six).  The luck is the same every time it is computed; its
mean over many draws is 0.  A sum of the luck over a game near 0 is average luck;
positive, the player drew better than the bag's average.  Draws that end the game count
0 (nothing is left to use them for).
"""

import itertools
import math

from tigris import network as networks
from tigris import record as records
from tigris.constants import COLOURS, PH_ACTION

__all__ = ["of_game", "of_replay", "outcomes", "totals"]


def of_game(rec, net=None):
    """Every draw's luck: a list of ``{"move": n, "player": p, "drawn": [colours],
    "luck": float}`` (rounded to 4 decimals), in the order of the moves.  `rec` is a
    game record (checked as it is replayed); `net`, a network (default: the shipped one
    for the game's number of players)."""
    states, moves = [], []
    for n, game in records.steps(rec):
        states.append(game.copy(stack=False))
        if n:
            moves.append((game.history[-1][0], game.history[-1][3]))
    return of_replay(states, moves, net)


def of_replay(states, moves, net=None):
    """``of_game`` of a game already replayed: `states`, the game before each move and
    after the last; `moves`, each move's ``(action, draws)`` as ``Game.history`` has
    them (``tigris.analysis.replayed`` gives both)."""
    net = net or networks.load(players=states[0].players)
    out = []
    for n, (action, draws) in enumerate(moves, start=1):
        before, game = states[n - 1], states[n]
        if not draws or game.is_over:
            continue
        bag = before.raw_state()["bag"]
        for p in dict.fromkeys(d[0] for d in draws):
            left = list(bag)
            for q, c in draws:
                if q != p:
                    left[c] -= 1                 # the others' tiles were not in p's reach
            mine = [c for q, c in draws if q == p]
            expected = sum(chance * _chance(_drawn(before, action, draws, p, colours), p, net)
                           for colours, chance in outcomes(left, len(mine)))
            out.append({"move": n, "player": p, "drawn": [COLOURS[c] for c in mine],
                        "luck": round(_chance(game, p, net) - expected, 4)})
    return out


def totals(draws, players):
    """Each player's summed luck over `draws` (``of_game``'s list)."""
    sums = [0.0] * players
    for d in draws:
        sums[d["player"]] += d["luck"]
    return [round(s, 4) for s in sums]


def outcomes(bag, k):
    """Every draw of `k` tiles from `bag` (the tiles of each colour, by colour index):
    ``(colours, chance)`` pairs, `colours` one colour index per tile drawn, `chance` the
    multivariate hypergeometric chance of drawing those colours.  The chances sum to 1.

    >>> [(c, round(w, 3)) for c, w in outcomes([2, 1, 0, 0], 2)]
    [((0, 1), 0.667), ((0, 0), 0.333)]
    """
    ways = math.comb(sum(bag), k)
    for counts in _counts(bag, k):
        chance = math.prod(math.comb(n, m) for n, m in zip(bag, counts)) / ways
        yield tuple(itertools.chain.from_iterable([c] * m for c, m in enumerate(counts))), chance


def _counts(bag, k, colour=0):
    """The tiles of each colour a draw of `k` from `bag` can hold, from `colour` on."""
    if colour == len(bag) - 1:
        if k <= bag[colour]:
            yield (k,)
        return
    for m in range(min(k, bag[colour]) + 1):
        for rest in _counts(bag, k - m, colour + 1):
            yield (m, *rest)


def _drawn(before, action, draws, p, colours):
    """The move applied again to `before`, `p`'s tiles drawn as `colours` instead (in
    the order p drew them; a hand holds them whatever the order), the others' as they
    were."""
    fresh = iter(colours)
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
