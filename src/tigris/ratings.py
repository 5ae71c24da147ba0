"""Tournament statistics: standings, Elo, head-to-head scores and the SPRT.

>>> from tigris.ratings import format_standings, standings
>>> games = [{"bots": ["ismcts", "greedy"], "ranking": [[0], [1]], "final": [9, 6],
...           "decisions": 240, "seconds_per_move": 0.05}] * 3
>>> result = standings(games)
>>> [(row["name"], row["wins"]) for row in result["bots"]]
[('ismcts', 3.0), ('greedy', 0.0)]
>>> print(format_standings(result).splitlines()[2])              # doctest: +NORMALIZE_WHITESPACE
| 1 | ismcts |     3 |    3 | 100.0% (43.9-100.0) | +436 (+9, +inf) |          9 |       240 |  0.050 |

A game result is a dict ``{"bots": [name per seat], "ranking": [[seats in first place],
[second], ...], "final": [final score per seat], "decisions": int, "seconds_per_move":
float}``; ``decisions`` and ``seconds_per_move`` may also be lists with one entry per
seat.  A result with an ``"error"`` key is a game that failed: it is counted, not rated.
An optional ``"deal"`` key groups the seatings of one deal; the bootstrap then resamples
whole deals (the seatings of a deal share its luck, so they are not independent games).

Elo
    The strength model is Bradley-Terry for 2-player games and Plackett-Luce for 3-4
    players (each seat is an item with its bot's strength ``w``; the ranking is built
    from first place down, each place taken by a remaining seat with probability
    ``w / sum of the remaining w``).  Both are fitted by maximum likelihood with
    ``choix``'s iterative Luce spectral ranking (``ilsr_pairwise`` /
    ``ilsr_rankings``), which converges to the same maximum-likelihood estimate as
    ``choix.opt_pairwise`` / ``opt_rankings`` but is tens of times faster (it matters:
    the intervals refit the model 200 times) and is exact when one bot sits in several
    seats of a game.  A small regularisation (``ALPHA``, a fraction of a virtual game
    between every two bots) keeps the rating of a bot that wins everything large but
    finite.  Ties (a shared place) count as every order of the tied seats, each with an
    equal share of the game's weight, so a 2-player draw is half a win each way.
    The order between two seats of the same bot says nothing about the bots: it only
    enters the likelihood through the shared strength.

    With 3-4 players there is a second fit, the **first-place Elo**: the same strengths,
    but only the first choice of each ranking counts (Luce's choice model of the winner
    among the seats; a shared first place is every tied seat's win, each with its share).
    Bots that play for first place alone, as the searches do, are measured by it; the
    whole-ranking fit also weighs who came second and third.  With 2 players the two fits
    are the same, so it is given only when the model is Plackett-Luce.

    ``elo = 400 / ln(10) * log-strength``, shifted so that the mean of the rated bots
    is 0 (or the ``anchor`` bot is 0): a difference ``d`` means an expected score of
    ``1 / (1 + 10 ** (-d / 400))`` between the two bots.

    The 95% interval is the 2.5 and 97.5 percentiles of the Elo over ``resamples``
    bootstrap resamples of the games (drawn with replacement, refitted), with a fixed
    seed: the same games give the same interval.  A single deal (or game) has nothing to
    resample, so it gets no interval (``None``; "n/a" in the table), not a zero-width one.
    A resample without any game of a bot does not rate it (its share of the resamples is
    left out of that bot's percentiles).

    When some bots never lost to the rest (or never beat them), the maximum does not
    exist (Zermelo's condition: the graph of wins is not strongly connected), every
    resample is as one-sided as the games, and a bootstrap would only echo the
    regularisation: a 12-0 score would read "+556 (+556, +556)".  The interval is then
    the likelihood-ratio one, the ratings whose profile log-likelihood (unregularised)
    lies within ``chi2(1).ppf(0.95) / 2`` of its supremum, and its open side is ``None``
    ("inf" in the table): 12-0 reads "+556 (+152, +inf)".  With a bot that never won
    (a random one among searches), the mean of all the bots is itself unbounded, so the
    zero is then the mean of the largest group of bots that beat each other (a
    strongly connected group of at least two), named under the table.

Win rate
    ``wins`` counts first places; a first place shared by ``k`` seats gives ``1/k`` to
    each.  The interval is Wilson's score interval, which takes fractional counts.

SPRT
    See :func:`sprt_llr` (of games), :func:`sprt_llr_deals` (of deals played in every
    seating), :func:`sprt_bounds` and :func:`sprt_decision`.
"""

import itertools
import math
from array import array
from collections import Counter
from typing import Any, NamedTuple

import numpy as np
from choix.convergence import NormOfDifferenceTest
from choix.utils import exp_transform, log_transform, statdist
from scipy import optimize, sparse, stats
from scipy.sparse import csgraph

from tigris.play.runner import first_places

__all__ = ["standings", "head_to_head", "format_standings", "format_head_to_head",
           "standings_cells", "head_to_head_cells", "wilson_interval", "expected_score",
           "sprt_llr", "sprt_llr_deals", "sprt_bounds", "sprt_decision", "interval_note", "zero_note",
           "BRADLEY_TERRY",
           "PLACKETT_LUCE",
           "FIRST_PLACE_NOTE"]

BRADLEY_TERRY = "bradley-terry"
PLACKETT_LUCE = "plackett-luce"

ELO_PER_NATURAL_LOG = 400 / math.log(10)    # Elo points per unit of log-strength
ALPHA = 0.01          # choix's I-LSR regularisation: rate of virtual comparisons per pair
BOOTSTRAP = "bootstrap"      # how an Elo interval was found (a result's "interval")
LIKELIHOOD = "likelihood"
RESAMPLES = 200       # bootstrap resamples for the Elo interval
SEED = 0              # bootstrap seed
CONFIDENCE = 0.95
FIRST_PLACE_NOTE = ("First-place Elo: the same fit over first places alone (Luce's choice of "
                    "the winner among the seats), for bots that play only to win.")
_MAX_ITER = 10_000    # I-LSR iterations (it converges in a few dozen on ordinary data)
_TOL = 1e-7


# ---------------------------------------------------------------------------------------
# Standings
# ---------------------------------------------------------------------------------------

def standings(games, bots=None, *, anchor=None, resamples=RESAMPLES, seed=SEED,
              alpha=ALPHA, confidence=CONFIDENCE):
    """Standings of the bots over finished games.

    ``bots`` (names) fixes which bots are listed even without a game; bots met in the
    games are added.  ``anchor`` names a bot whose Elo is set to 0 (default: the mean of
    the rated bots is 0).  Returns::

        {"bots": [row, ...],          # sorted by Elo, best first; unrated bots last
         "games": rated games, "errors": games with an "error" key,
         "model": "bradley-terry" | "plackett-luce" | None (no game),
         "anchor": anchor, "resamples": resamples, "resampled": "games" | "deals",
         "interval": "bootstrap" | "likelihood" | None,
         "zero": None | [names whose mean Elo is 0 when not all the rated bots],
         "confidence": confidence}

    where a row is ``{"name", "games", "wins", "win_rate", "win_rate_ci": (low, high),
    "elo", "elo_ci": (low, high), "first_elo", "first_elo_ci", "mean_final",
    "mean_decisions", "seconds_per_move"}``.  A bot without a game has ``None`` for the
    rates; a bot that only ever played itself has ``None`` for the Elo.  ``first_elo``
    (the fit of first places alone) is ``None`` unless the model is Plackett-Luce.
    ``elo_ci`` is ``None`` when the bootstrap has nothing to resample: a single deal (or
    game), or ``resamples=0``; a side of it is ``None`` when it is open (a likelihood
    interval of games that some bots never lost, or never won; see ``interval_note``).
    """
    played, errors = _parse(games)
    names = list(dict.fromkeys(list(bots or []) + [n for seats in dict.fromkeys(g.bots for g in played)
                                                   for n in seats]))
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor bot {anchor!r} played no game")

    model = None
    if played:
        model = BRADLEY_TERRY if all(len(g.bots) == 2 for g in played) else PLACKETT_LUCE
    elo, elo_ci, method, zero = _elo(played, anchor, resamples, seed, alpha, confidence)
    first, first_ci = {}, {}
    if model == PLACKETT_LUCE:
        first, first_ci, first_method, _ = _elo(played, anchor, resamples, seed, alpha,
                                                confidence, choices=1)
        method = LIKELIHOOD if LIKELIHOOD in (method, first_method) else method
    unit = "deals" if played and all(g.deal is not None for g in played) else "games"

    rows = [_row(name, played, confidence,
                 {"elo": elo.get(name), "elo_ci": elo_ci.get(name),
                  "first_elo": first.get(name), "first_elo_ci": first_ci.get(name)})
            for name in names]
    rows.sort(key=lambda r: (r["elo"] is None, -(r["elo"] or 0.0),
                             -(r["win_rate"] or 0.0), r["name"]))
    return {"bots": rows, "games": len(played), "errors": errors, "model": model,
            "anchor": anchor, "resamples": resamples, "resampled": unit,
            "interval": method, "zero": zero, "confidence": confidence}


class _Played(NamedTuple):
    """A rated game as the standings keep it; its bots and ranking tuples are shared with
    every game that has the same (the standings of many games hold little per game)."""
    bots: tuple
    ranking: tuple
    final: Any
    decisions: Any
    seconds_per_move: Any
    deal: Any


def _parse(games):
    """The games without an error, checked and normalised, and the number of errors."""
    played, errors, shared = [], 0, {}
    for i, game in enumerate(games):
        if "error" in game:
            errors += 1
            continue
        names = tuple(game["bots"])
        ranking = tuple(tuple(sorted(int(s) for s in place)) for place in game["ranking"])
        seats = [s for place in ranking for s in place]
        if sorted(seats) != list(range(len(names))) or not all(ranking):
            raise ValueError(f"game {i}: ranking {game['ranking']!r} does not place each of "
                             f"the {len(names)} seats exactly once")
        final = game.get("final")
        if final is not None and len(final) != len(names):
            raise ValueError(f"game {i}: {len(final)} final scores for {len(names)} seats")
        names = shared.setdefault(names, names)
        ranking = shared.setdefault(ranking, ranking)
        played.append(_Played(names, ranking, final, game.get("decisions"),
                              game.get("seconds_per_move"), game.get("deal")))
    return played, errors


def _row(name, played, confidence, elos):
    games, wins = 0, 0.0
    finals, decisions, seconds = [], [], []
    for g in played:
        if name not in g.bots:
            continue
        seats = [s for s, n in enumerate(g.bots) if n == name]
        games += 1
        wins += first_places(g.bots, g.ranking, name)
        if g.final is not None:
            finals += [g.final[s] for s in seats]
        for value, out in ((g.decisions, decisions), (g.seconds_per_move, seconds)):
            if isinstance(value, (list, tuple)):
                value = _mean([value[s] for s in seats if value[s] is not None])
            if value is not None:
                out.append(value)
    rate = wins / games if games else None
    return {"name": name, "games": games, "wins": wins, "win_rate": rate,
            "win_rate_ci": wilson_interval(wins, games, confidence) if games else None,
            **elos, "mean_final": _mean(finals), "mean_decisions": _mean(decisions),
            "seconds_per_move": _mean(seconds)}


def _mean(values):
    return sum(values) / len(values) if values else None


def _orderings(ids, ranking):
    """The orders of the bot ids that a game's ranking stands for, as a Counter, and
    their total: every order of the seats tied in a place counts (each once), then the
    seats are mapped to their bots.  A game with a single bot says nothing: empty."""
    if len(set(ids)) < 2:
        return Counter(), 0
    counts = Counter()
    for order in itertools.product(*(itertools.permutations(place) for place in ranking)):
        counts[tuple(ids[s] for place in order for s in place)] += 1
    common = math.gcd(*counts.values())
    counts = Counter({k: v // common for k, v in counts.items()})
    return counts, sum(counts.values())


def _elo(played, anchor, resamples, seed, alpha, confidence, choices=None):
    """Elo and bootstrap interval per rated bot (see the module docstring); ``choices=1``
    fits first places alone.

    The fits read counts, not games: each game adds its share (its orders, each
    ``count / total``) to the row of its deal (or of itself) in a sparse matrix of deals
    by distinct orders, and a bootstrap resample is the deals' multiplicities times that
    matrix.  Thousands of games cost no more per fit than a handful of distinct orders."""
    items = {}        # bot name -> item index, for bots in informative games
    for g in played:
        if len(set(g.bots)) >= 2:
            for n in g.bots:
                items.setdefault(n, len(items))
    if len(items) < 2:
        return {}, {}, None, None
    if anchor is not None and anchor not in items:
        raise ValueError(f"anchor bot {anchor!r} has no rated game (none against another bot)")
    ref = items[anchor] if anchor is not None else None
    # resample whole deals when the games say which deal they are, else single games
    by_deal = all(g.deal is not None for g in played)
    clusters, orders, shares = {}, {}, {}
    rows, cols, vals = array("l"), array("l"), array("d")
    for i, g in enumerate(played):
        key = (g.bots, g.ranking)
        if key not in shares:
            counts, total = _orderings([items.get(n, -1) for n in g.bots], g.ranking)
            shares[key] = [(orders.setdefault(o, len(orders)), c / total)
                           for o, c in counts.items()]
        row = clusters.setdefault(g.deal if by_deal else i, len(clusters))
        for col, share in shares[key]:
            rows.append(row)
            cols.append(col)
            vals.append(share)
    weights = sparse.csr_matrix((np.frombuffer(vals), (np.frombuffer(rows, dtype=np.int_),
                                                       np.frombuffer(cols, dtype=np.int_))),
                                shape=(len(clusters), len(orders)))
    by_length = {}
    for order, col in orders.items():
        by_length.setdefault(len(order), []).append((order, col))
    groups = [(np.array([o for o, _ in group], dtype=np.intp), np.array([c for _, c in group]))
              for group in by_length.values()]

    totals = np.asarray(weights.sum(axis=0)).ravel()
    labels = _components(len(items), groups, totals, choices)
    zero = [ref] if ref is not None else _zero_group(labels)

    def elos(counts, initial=None):
        params = _ilsr(len(items), groups, counts, alpha, initial, choices)
        return params, ELO_PER_NATURAL_LOG * (params - params[zero].mean())

    params, point = elos(totals)
    elo = {n: float(point[k]) for n, k in items.items()}
    names = list(items)
    zeroed = [names[k] for k in zero] if ref is None and len(zero) < len(items) else None
    if resamples < 1 or len(clusters) < 2:
        # one deal (or game) resampled is the same deal every time: no interval
        return elo, {n: None for n in items}, None, zeroed
    if labels.max() > 0:
        # every resample is as one-sided as the games: the bootstrap would only repeat
        # the regularisation, so the interval is the likelihood's own
        bounds = _profile_intervals(len(items), groups, totals, choices, zero, params, confidence)
        return elo, {n: bounds[k] for n, k in items.items()}, LIKELIHOOD, zeroed
    # a bot's games per deal, so that a resample without any of them does not rate it
    seen = np.zeros((len(orders), len(items)))
    for order, col in orders.items():
        seen[col, list(set(order))] = 1.0
    met = (weights @ seen) > 0
    rng = np.random.default_rng(seed)
    boot = np.empty((resamples, len(items)))
    for r in range(resamples):
        picks = rng.integers(0, len(clusters), size=len(clusters))
        times = np.bincount(picks, minlength=len(clusters)).astype(float)
        boot[r] = elos(weights.T @ times, initial=params)[1]
        boot[r, (met.T @ times) == 0] = np.nan
    tail = 100 * (1 - confidence) / 2
    low, high = np.nanpercentile(boot, [tail, 100 - tail], axis=0)
    ci = {n: (float(low[k]), float(high[k])) for n, k in items.items()}
    return elo, ci, BOOTSTRAP, zeroed


def _beats(orders, choices):
    """The (winner, loser) pairs of bot ids that the orders of one length stand for: each
    chosen place beats every later place (the first `choices` places are choices)."""
    pairs = []
    for i in range(min(orders.shape[1] - 1, choices or orders.shape[1])):
        for j in range(i + 1, orders.shape[1]):
            pairs.append(np.stack([orders[:, i], orders[:, j]], axis=1))
    return np.concatenate(pairs) if pairs else np.empty((0, 2), dtype=np.intp)


def _components(n_items, groups, counts, choices):
    """Zermelo's condition: the likelihood has a finite maximum when every bot beat, and
    was beaten by, every other through some chain of games (the graph of wins is strongly
    connected).  Returns each bot's strongly connected group (one group: a finite
    maximum; a group that never lost to the rest has a rating open above)."""
    pairs = [_beats(orders[counts[cols] > 0], choices) for orders, cols in groups]
    pairs = np.concatenate(pairs) if pairs else np.empty((0, 2), dtype=np.intp)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    graph = sparse.csr_matrix((np.ones(len(pairs)), (pairs[:, 1], pairs[:, 0])),
                              shape=(n_items, n_items))
    return csgraph.connected_components(graph, connection="strong")[1]


def _zero_group(labels):
    """The bots whose mean Elo is 0: all of them, unless the games split them into groups
    that never lost to each other's rest; then the largest such group, when there is one
    of at least two bots (the others' ratings are open on a side, and so would be a mean
    taken with them)."""
    sizes = np.bincount(labels)
    biggest = np.flatnonzero(sizes == sizes.max())
    if len(sizes) > 1 and len(biggest) == 1 and sizes.max() >= 2:
        return np.flatnonzero(labels == biggest[0])
    return np.arange(len(labels))


def _log_likelihood(theta, groups, counts, choices):
    """The Plackett-Luce log-likelihood of the weighted orders and its gradient."""
    value, grad = 0.0, np.zeros_like(theta)
    for orders, cols in groups:
        weight = counts[cols]
        keep = weight > 0
        orders, weight = orders[keep], weight[keep]
        th = theta[orders]
        for i in range(min(orders.shape[1] - 1, choices or orders.shape[1])):
            rest = th[:, i:]
            top = rest.max(axis=1, keepdims=True)
            exp = np.exp(rest - top)
            norm = exp.sum(axis=1)
            value += float(weight @ (th[:, i] - top[:, 0] - np.log(norm)))
            np.add.at(grad, orders[:, i], weight)
            np.add.at(grad, orders[:, i:], -weight[:, None] * exp / norm[:, None])
    return value, grad


def _profile_intervals(n_items, groups, counts, choices, zero, start, confidence):
    """Likelihood-ratio intervals of each bot's rating (relative to the mean of the bots
    `zero`): the ratings whose profile log-likelihood lies within ``chi2(1).ppf(confidence)
    / 2`` of its supremum, in Elo.  A side where the profile never falls that far is open:
    ``None`` (a bot that never lost has no upper bound)."""
    drop = float(stats.chi2.ppf(confidence, 1)) / 2
    zero = list(zero)

    def fit(k=None, t=0.0):
        """The best log-likelihood, and its ratings, with bot `k`'s rating held at `t`."""
        free = [j for j in range(n_items) if j != k]
        rest = [j for j in zero if j != k]
        theta = np.array(start, dtype=float)

        def negative(x):
            theta[free] = x
            if k is not None and k in zero:      # theta_k - mean(zero) = t
                theta[k] = (len(zero) * t + theta[rest].sum()) / (len(zero) - 1) \
                    if rest else t
            elif k is not None:
                theta[k] = t + theta[zero].mean()
            value, grad = _log_likelihood(theta, groups, counts, choices)
            if k is not None and k in zero and rest:
                grad[rest] += grad[k] / (len(zero) - 1)       # theta_k moves with them
            elif k is not None:
                grad[zero] += grad[k] / len(zero)
            return -value, -grad[free]

        result = optimize.minimize(negative, theta[free], jac=True, method="L-BFGS-B")
        negative(result.x)
        return -result.fun, theta

    top, best = fit()
    target = top - drop
    ceiling = 30.0           # log-strength units, 5,200 Elo: beyond, a side is open
    bounds = []
    for k in range(n_items):
        if zero == [k]:
            bounds.append((0.0, 0.0))
            continue
        centre = best[k] - best[zero].mean()
        sides = []
        for sign in (-1.0, 1.0):
            far = centre + sign * ceiling
            if fit(k, far)[0] > target:
                sides.append(None)
                continue
            edge = optimize.brentq(lambda t: fit(k, t)[0] - target, centre, far, xtol=0.01)
            sides.append(ELO_PER_NATURAL_LOG * edge)
        bounds.append(tuple(sides))
    return bounds



def _ilsr(n_items, groups, counts, alpha, initial, choices=None):
    """choix's iterative Luce spectral ranking (``ilsr_rankings``; a 2-player order is a
    pairwise comparison, which ``ilsr_pairwise`` counts the same way) over weighted
    orders: `groups` holds ``(orders, columns)`` per order length, `counts` each order's
    weight; only the first `choices` places of each order count (all when ``None``)."""
    converged = NormOfDifferenceTest(_TOL, order=1)
    params = initial
    for _ in range(_MAX_ITER):
        params = _lsr(n_items, groups, counts, alpha, params, choices)
        if converged(params):
            return params
    raise RuntimeError(f"the Elo fit did not converge in {_MAX_ITER} iterations")


def _lsr(n_items, groups, counts, alpha, params, choices=None):
    """One step of Luce spectral ranking: the Markov chain whose rate from each order's
    loser to its winner is the order's weight over the remaining strengths; a place
    after the first `choices` is not a choice (the first-place fit)."""
    strength = np.ones(n_items) if params is None else exp_transform(params)
    chain = alpha * np.ones((n_items, n_items))
    for orders, cols in groups:
        weight = counts[cols]
        remaining = strength[orders].sum(axis=1)
        for i in range(min(orders.shape[1] - 1, choices or orders.shape[1])):
            rate = weight / remaining
            for j in range(i + 1, orders.shape[1]):
                np.add.at(chain, (orders[:, j], orders[:, i]), rate)
            remaining = remaining - strength[orders[:, i]]
    chain -= np.diag(chain.sum(axis=1))
    return log_transform(statdist(chain))


def wilson_interval(successes, n, confidence=CONFIDENCE):
    """Wilson's score interval for a proportion; ``successes`` may be fractional.

    With ``p = successes / n`` and ``z`` the normal quantile of ``(1 + confidence) / 2``
    (1.95996 for 95%)::

        centre = (p + z^2 / 2n) / (1 + z^2 / n)
        half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)

    For whole counts this is ``scipy.stats.binomtest(k, n).proportion_ci(
    confidence_level, method="wilson")``, which takes integers only.
    """
    if n <= 0:
        raise ValueError("a win rate needs at least one game")
    p = successes / n
    z = float(stats.norm.ppf((1 + confidence) / 2))
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


# ---------------------------------------------------------------------------------------
# Head to head
# ---------------------------------------------------------------------------------------

def head_to_head(games):
    """Pairwise scores: ``{a: {b: {"games": n, "score": s}}}``.

    Over the games where both ``a`` and ``b`` played, for each pair of a seat of ``a``
    and a seat of ``b``: ``a`` scores 1 if ranked above, 0.5 if tied, 0 if below; ``n``
    counts those seat pairs.  So ``s[a][b] + s[b][a] == n``.  Games with an ``"error"``
    key are skipped.  Bots are listed by their overall share of the points, best first.
    """
    played, _ = _parse(games)
    table = {}
    for g in played:
        place = {s: k for k, seats in enumerate(g.ranking) for s in seats}
        for i, j in itertools.permutations(range(len(g.bots)), 2):
            a, b = g.bots[i], g.bots[j]
            if a == b:
                continue
            cell = table.setdefault(a, {}).setdefault(b, {"games": 0, "score": 0.0})
            cell["games"] += 1
            cell["score"] += 1.0 if place[i] < place[j] else 0.5 if place[i] == place[j] else 0.0

    def share(a):
        cells = table[a].values()
        return sum(c["score"] for c in cells) / sum(c["games"] for c in cells)

    order = sorted(table, key=lambda a: (-share(a), a))
    return {a: {b: table[a][b] for b in order if b in table[a]} for a in order}


# ---------------------------------------------------------------------------------------
# Text tables (Markdown-compatible)
# ---------------------------------------------------------------------------------------

def standings_cells(result):
    """The standings as plain-text cells: ``(head, rows)``, a row per bot, best first
    (place, bot, games, wins, win rate with its interval, Elo with its interval, with 3-4
    players the first-place Elo with its interval, mean final score, decisions, seconds
    per move).  The Markdown table here and the HTML index of ``tigris view`` are drawn
    from them; every column but the bot's name is a figure."""
    level = f"{result.get('confidence', CONFIDENCE):.0%}"
    first = result.get("model") == PLACKETT_LUCE
    head = ["#", "bot", "games", "wins", f"win rate ({level} CI)", f"Elo ({level} CI)",
            *([f"first-place Elo ({level} CI)"] if first else []),
            "mean final", "decisions", "s/move"]
    rows = []
    for k, r in enumerate(result["bots"], start=1):
        rate = "-"
        if r["win_rate"] is not None:
            lo, hi = r["win_rate_ci"]
            rate = f"{100 * r['win_rate']:.1f}% ({100 * lo:.1f}-{100 * hi:.1f})"
        elos = [_elo_cell(r["elo"], r["elo_ci"])]
        if first:
            elos.append(_elo_cell(r.get("first_elo"), r.get("first_elo_ci")))
        rows.append([str(k), str(r["name"]), str(r["games"]), _number(r["wins"]), rate, *elos,
                     _number(r["mean_final"], 2), _number(r["mean_decisions"], 1),
                     _number(r["seconds_per_move"], 3)])
    return head, rows


def _elo_cell(elo, interval):
    if elo is None:
        return "-"
    if interval is None:
        return f"{elo:+.0f} (n/a)"
    low = "-inf" if interval[0] is None else f"{interval[0]:+.0f}"
    high = "+inf" if interval[1] is None else f"{interval[1]:+.0f}"
    return f"{elo:+.0f} ({low}, {high})"


def format_standings(result):
    """The standings as a Markdown table, with a line on the model and the errors."""
    head, rows = standings_cells(result)
    rows = [[row[0], _cell(row[1]), *row[2:]] for row in rows]
    lines = _table(head, rows, right={c for c, h in enumerate(head) if c != 1 and "CI" not in h})
    model = {BRADLEY_TERRY: "Bradley-Terry", PLACKETT_LUCE: "Plackett-Luce"}.get(result["model"])
    if model:
        zero = zero_note(result)
        interval = interval_note(result)
        lines += ["", f"Elo: {model} maximum likelihood over {result['games']} games, "
                      f"{zero}; {interval}"]
        if result["model"] == PLACKETT_LUCE:
            lines += [FIRST_PLACE_NOTE]
    if result["errors"]:
        n = result["errors"]
        lines += ["", f"{n} game{'s' if n != 1 else ''} failed and {'are' if n != 1 else 'is'} "
                      f"not counted."]
    return "\n".join(lines)


def zero_note(result):
    """Which Elo the standings' ratings count from: the anchor, or a mean."""
    if result.get("anchor"):
        return f"{result['anchor']} = 0"
    if result.get("zero"):
        return f"mean of {', '.join(map(str, result['zero']))} = 0"
    return "mean of the bots = 0"


def interval_note(result):
    """How the standings' Elo intervals were found, as a sentence for under the table."""
    unit = result.get("resampled", "games")
    method = result.get("interval")
    if "interval" not in result and any(r.get("elo_ci") for r in result.get("bots", [])):
        method = BOOTSTRAP                   # standings written before the key existed
    if method == LIKELIHOOD:
        return ("likelihood-ratio interval: some bots never lost to the rest (or never beat "
                "them), so their rating is open on that side (inf) and a bootstrap would "
                "only repeat the regularisation.")
    if method == BOOTSTRAP:
        return f"interval from {result['resamples']} bootstrap resamples of the {unit}."
    if result.get("resamples"):
        return f"no interval (n/a): a single {unit[:-1]} has nothing to resample."
    return "no interval (no bootstrap resamples)."


def head_to_head_cells(matrix):
    """The head-to-head scores as plain-text cells: ``(names, rows)``, a row per bot
    (its name, then its points against each column bot out of the seat pairs that met,
    and as a share; "-" where they did not meet)."""
    names = list(matrix)
    names += [b for a in matrix for b in matrix[a] if b not in names]
    rows = []
    for a in names:
        row = [str(a)]
        for b in names:
            cell = matrix.get(a, {}).get(b)
            if a == b or not cell or not cell["games"]:
                row.append("-")
            else:
                row.append(f"{_number(cell['score'])}/{cell['games']} "
                           f"({100 * cell['score'] / cell['games']:.0f}%)")
        rows.append(row)
    return names, rows


def format_head_to_head(matrix):
    """The head-to-head scores as a Markdown table: the row bot's points against the
    column bot, out of the seat pairs that met, and as a share."""
    names, rows = head_to_head_cells(matrix)
    if not names:
        return "(no games)"
    rows = [[_cell(row[0]), *row[1:]] for row in rows]
    return "\n".join(_table([""] + [_cell(b) for b in names], rows,
                            right=set(range(1, len(names) + 1))))


def _number(x, digits=1):
    if x is None:
        return "-"
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.{digits}f}"


def _cell(text):
    return str(text).replace("|", "\\|")


def _table(head, rows, right=()):
    widths = [max(len(r[c]) for r in [head] + rows) for c in range(len(head))]

    def line(cells):
        return "| " + " | ".join(t.rjust(w) if c in right else t.ljust(w)
                                 for c, (t, w) in enumerate(zip(cells, widths))) + " |"

    rule = "|" + "|".join("-" * (w + 1) + ":" if c in right else "-" * (w + 2)
                          for c, w in enumerate(widths)) + "|"
    return [line(head), rule] + [line(r) for r in rows]


# ---------------------------------------------------------------------------------------
# SPRT: is A stronger than B?
# ---------------------------------------------------------------------------------------

def expected_score(elo):
    """Expected score of the stronger side at an Elo difference (logistic model):
    ``1 / (1 + 10 ** (-elo / 400))``."""
    return 1 / (1 + 10 ** (-elo / 400))


def sprt_llr(wins, draws, losses, elo0, elo1, *, approximate=False):
    """Log-likelihood ratio of H1 (A is ``elo1`` Elo stronger than B) against H0
    (``elo0``), from A's wins, draws and losses against B: the generalized SPRT of
    chess engine testing frameworks (fishtest's ``LLR_logistic``, fastchess), logistic
    Elo model ``score(e) = 1 / (1 + 10 ** (-e / 400))``.

    A game scores 1, 1/2 or 0; ``p`` is the observed share of each result (a count of 0
    is taken as 0.001, so that a run of wins alone is not certain), ``N`` the number of
    games.  For ``s`` in ``s0 = score(elo0)``, ``s1 = score(elo1)``, the most likely
    distribution of results whose mean score is ``s`` is::

        q_s(a) = p(a) / (1 + theta (a - s))
        with theta solving  sum over a of p(a) (a - s) / (1 + theta (a - s)) = 0

    (found with ``scipy.optimize.brentq``), and ``LLR = N * sum p(a) ln(q_s1(a) / q_s0(a))``.
    With wins and losses only this is ``W ln(s1 / s0) + L ln((1 - s1) / (1 - s0))``
    (up to the 0.001 draws).

    ``approximate=True`` gives the usual quadratic approximation instead::

        mean = (wins + draws / 2) / N,  var = sum p(a) (a - mean)^2
        LLR ~ N (s1 - s0) (2 mean - s0 - s1) / (2 var)

    It agrees with the exact value over many games of mixed results (600 wins 400
    losses: 10.26 against 9.857), but not over few or one-sided ones: it gives 11.2 for a
    single win and 5.8 for 20 wins and a loss (exact: 0.06 and 1.06), so a test run
    game by game would stop at once.  Counts may be fractional; no game gives 0.
    """
    counts = [float(losses), float(draws), float(wins)]
    if min(counts) < 0:
        raise ValueError("wins, draws and losses cannot be negative")
    return _llr((0.0, 0.5, 1.0), counts, elo0, elo1, approximate)


def sprt_llr_deals(scores, per_deal, elo0, elo1):
    """The LLR of ``sprt_llr`` from whole deals: `scores` are A's mean scores of deals
    each played `per_deal` times (once in each seating), a deal the unit of the test
    (fishtest's pentanomial model, for a pair of games).

    A deal's games are not independent: the deal favours one seat, and both bots sit in
    it once.  Counting the deal's mean as one outcome takes that out of the variance the
    test sees, so the test decides in fewer games when the deal matters, without a
    change of its error rates.  A mean is one of ``0, 1/(2 per_deal), ..., 1`` (a game
    scores 1, 1/2 or 0); as in ``sprt_llr``, a value no deal has is counted 0.001 times.
    With ``per_deal`` 1 this is ``sprt_llr`` of the games.

    >>> from tigris.ratings import sprt_llr, sprt_llr_deals
    >>> sprt_llr_deals([1.0, 0.5, 0.0, 1.0], 1, 0, 20) == sprt_llr(2, 1, 1, 0, 20)
    True

    Six pairs, three won in both seatings and three split (9 wins, 3 losses): the
    splits are the deal's doing, and the deals say more than the games would.

    >>> pairs = [1.0, 0.5, 0.5, 1.0, 0.5, 1.0]
    >>> round(sprt_llr_deals(pairs, 2, 0, 50), 2), round(sprt_llr(9, 0, 3, 0, 50), 2)
    (0.8, 0.74)
    """
    if not (isinstance(per_deal, int) and per_deal >= 1):
        raise ValueError("per_deal must be a whole number of games, at least 1")
    steps = 2 * per_deal
    counts = [0.0] * (steps + 1)
    for score in scores:
        k = round(score * steps)
        if not 0 <= k <= steps or abs(k - score * steps) > 1e-6:
            raise ValueError(f"a deal's mean score of {per_deal} games cannot be {score!r}")
        counts[k] += 1
    return _llr(tuple(k / steps for k in range(steps + 1)), counts, elo0, elo1)


def _llr(values, counts, elo0, elo1, approximate=False):
    """``sprt_llr``'s generalized LLR over outcomes worth `values`, seen `counts` times."""
    if sum(counts) == 0:
        return 0.0
    counts = [c if c > 0 else 1e-3 for c in counts]
    n = sum(counts)
    p = [c / n for c in counts]
    s0, s1 = expected_score(elo0), expected_score(elo1)
    if approximate:
        mean = sum(q * a for q, a in zip(p, values))
        var = sum(q * (a - mean) ** 2 for q, a in zip(p, values))
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)

    def most_likely(s):
        def f(theta):
            return sum(q * (a - s) / (1 + theta * (a - s)) for q, a in zip(p, values))
        # f falls from +inf to -inf between the poles at theta = -1/(1 - s) and 1/s
        margin = 1e-6 * min(p)
        theta = optimize.brentq(f, -1 / (1 - s) + margin, 1 / s - margin, xtol=1e-15)
        return [q / (1 + theta * (a - s)) for q, a in zip(p, values)]

    q0, q1 = most_likely(s0), most_likely(s1)
    return n * sum(q * math.log(b / a) for q, a, b in zip(p, q0, q1))


def sprt_bounds(alpha=0.05, beta=0.05):
    """Wald's bounds on the LLR: ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``;
    ``alpha`` is the chance of accepting H1 when H0 holds, ``beta`` the reverse
    (0.05 each: -2.944, +2.944)."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must be between 0 and 1")
    return (math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))


def sprt_decision(llr, alpha=0.05, beta=0.05):
    """``"H1"`` (accept elo1: A is stronger) once the LLR reaches the upper bound,
    ``"H0"`` (accept elo0) once it reaches the lower bound, else ``None``: play on."""
    lower, upper = sprt_bounds(alpha, beta)
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return None
