"""The search bots: ISMCTS (the real player), PIMC, and the cheating reference.

Each decision is searched from a determinization of the true game for the player to
move: the search never holds the hidden tiles of the real game, only a world dealt from
what that player cannot see (docs/DESIGN.md).  ``cheat`` alone searches the true state; it
is a reference ceiling and says so (``honest = False``).
"""

import math
import random
from dataclasses import replace
from pathlib import Path

from tigris._plumbing import renamed
from tigris.belief import Belief
from tigris.bots.random_moves import RandomMoves
from tigris.knobs import SEARCH_CONFIG
from tigris.search import (
    MARGIN_UNKNOWN,
    ChildStats,
    Halving,
    RootStats,
    Search,
    choose,
    configure,
)

__all__ = ["ISMCTSBot", "PIMCBot", "CheatBot", "merge"]

# The most visited line kept after each root child: long enough to reach past the
# searching player's own next decision, where the tree is that deep.
PV_DEPTH = 12


def _grow(world, config, net, iterations, seconds, determinize, seed, steps=1, report=None,
          determinizations=None, only=None):
    """One tree of the search `config` (``search.Config``, checked) judging by `net` (the
    network, or its file in a worker process, which reads it once; None: the heuristic):
    its root statistics (with `only`, the root searching those actions alone).  It grows
    in `steps` steps, the iterations shared out exactly (a time budget: each step its
    share of the time), with ``report(iterations so far)`` after each.  Every step
    continues the tree with a random stream of its own: the same budget in one step or in
    several grows different trees (each reproducible)."""
    if isinstance(net, Path):
        from tigris import network

        net = network.load(net)
    # A halving root shares out the whole budget: the first step's unless told otherwise.
    plan = {"plan_iterations": iterations or 0, "plan_seconds": seconds or 0.0} if steps > 1 else {}
    s = Search(world, determinize=determinize, determinizations=determinizations, seed=seed, only=only,
               config=config, net=net, **plan)
    # One step takes the budget as it is, for the search to check.
    share = seconds if steps == 1 else seconds / steps if seconds else None
    for k in range(steps):
        part = iterations * (k + 1) // steps - iterations * k // steps if iterations else 0
        if part or not iterations:
            s.step(part, share or 0.0)
        if report is not None:
            report(s.iterations)
    return s.stats(pv_depth=PV_DEPTH)


def split(iterations, parts):
    """An iteration budget shared out exactly, each part at least one iteration (None: a
    time budget, nothing to share)."""
    if not iterations:
        return [None] * parts
    return [max(1, iterations // parts + (1 if k < iterations % parts else 0)) for k in range(parts)]


def merge(stats_list):
    """Root-parallel merge of the trees' root statistics (``RootStats``) into one
    ``RootStats``: visits and availability add up, values, each player's chances (along
    the best lines, and over the visits) and the score margin are visit-weighted, the
    standard errors of the searching player's chance and margin add up as those of
    independent estimates, the spreads of its chance over the visits pool (the sums of
    squares add up), so do a child's records of each halving (``_pooled``), and a child's
    halving rounds and the trees' are the most any tree gave; one tree's statistics are
    its own (``best`` left to the bot).  Statistics as dicts (until 2.1) are still taken,
    with a DeprecationWarning (removed in 2.2)."""
    if any(not isinstance(s, RootStats) for s in stats_list):
        renamed.warn("merge() of root statistics as dicts", "give tigris.search.RootStats records")
        stats_list = [RootStats.of(s) for s in stats_list]
    if len(stats_list) == 1:
        # their own mean, as the tree gave them: nothing to recompute (a search pays it
        # for every root child of every decision)
        return replace(stats_list[0], best=None)
    player = stats_list[0].player
    by_action = {}                  # each action's children, tree by tree
    for stats in stats_list:
        for ch in stats.children:
            same = by_action.get(ch.action)
            if same is None:
                by_action[ch.action] = [ch]
            else:
                same.append(ch)
    children = [_merged(same, player) for same in by_action.values()]
    children.sort(key=lambda ch: (-ch.visits, -ch.value, ch.action))
    return RootStats(iterations=sum(s.iterations for s in stats_list),
                     nodes=sum(s.nodes for s in stats_list), player=player,
                     children=tuple(children), rounds=max(s.rounds for s in stats_list))


def _merged(same, player):
    """The ``ChildStats`` of one action from its children in the trees, `same` (``merge``):
    sums in the trees' order from 0.0, in plain loops (a search of several trees pays
    this for every root child of every decision)."""
    first = same[0]
    n = len(first.chances)
    visits = avail = rounds = 0
    value_sum = square_sum = error_sum = margin_sum = margin_error_sum = prior = 0.0
    chance_sums, mean_sums = [0.0] * n, [0.0] * n
    halving_parts = []
    pv, pv_visits, line = first.pv, first.pv_visits, first.line
    for ch in same:
        v = ch.visits
        prior = max(prior, ch.prior or 0.0)      # each tree's from its own deal
        rounds = max(rounds, ch.rounds)
        visits += v
        avail += ch.avail
        value_sum += ch.value * v
        error_sum += (ch.error * v) ** 2
        margin_sum += ch.margin * v
        margin_error_sum += (ch.margin_error * v) ** 2
        for p, chance in enumerate(ch.chances):
            chance_sums[p] += chance * v
        mean = ch.mean if ch.mean is not None else ch.chances     # no mean: the line's
        for p, chance in enumerate(mean):
            mean_sums[p] += chance * v
        square_sum += (ch.spread ** 2 + mean[player] ** 2) * v
        halving_parts.extend(ch.halvings)
        if v > 0 and len(ch.pv) > len(pv):
            pv, pv_visits, line = ch.pv, ch.pv_visits, ch.line
    if not visits:
        uniform = (1.0 / n,) * n
        return ChildStats(action=first.action, visits=0, avail=avail, value=0.0, chances=uniform, error=0.5,
                          margin=0.0, margin_error=MARGIN_UNKNOWN, line=line, mean=uniform, spread=0.0,
                          rounds=rounds, halvings=_pooled(halving_parts, player), prior=prior, pv=pv,
                          pv_visits=pv_visits)
    mean = tuple([c / visits for c in mean_sums])
    return ChildStats(
        action=first.action, visits=visits, avail=avail, value=value_sum / visits,
        chances=tuple([c / visits for c in chance_sums]), error=math.sqrt(error_sum) / visits,
        margin=margin_sum / visits, margin_error=math.sqrt(margin_error_sum) / visits, line=line, mean=mean,
        spread=math.sqrt(max(square_sum / visits - mean[player] ** 2, 0.0)),
        rounds=rounds, halvings=_pooled(halving_parts, player), prior=prior,
        pv=pv, pv_visits=pv_visits)


def _pooled(parts, player):
    """How a move stood at each halving (``Halving``), the trees' records of the same
    halving pooled as the children are: visits added, the chances visit-weighted, the
    spreads of `player`'s chance pooled."""
    by_halving = {}
    for part in parts:
        by_halving.setdefault(part.halving, []).append(part)
    pooled = []
    for halving, same in sorted(by_halving.items()):
        n = sum(x.visits for x in same)
        mean = tuple(sum(x.mean[p] * x.visits for x in same) / n for p in range(len(same[0].mean)))
        squares = sum((x.spread ** 2 + x.mean[player] ** 2) * x.visits for x in same) / n
        pooled.append(Halving(halving=halving, visits=n, mean=mean,
                              spread=math.sqrt(max(squares - mean[player] ** 2, 0.0))))
    return tuple(pooled)


class ISMCTSBot(RandomMoves):
    """Single-observer ISMCTS; with ``workers`` > 1 the trees grow in parallel processes
    (root parallelism) and their root statistics are merged.  With ``random_share``, some
    decisions are a random legal move instead (``tigris.bots.random_moves``)."""

    kind = "ismcts"
    honest = True
    determinize = True

    def __init__(self, name="ismcts", **params):
        self.name = name
        self.params = params
        self.rng = random.Random(params["seed"])
        self.options = {k: params[k] for k in SEARCH_CONFIG}
        self.config = configure(self.options)     # checked once: every tree takes it as it is
        self._networks = {}         # by the number of players: (its file, the network), or None
        self.last = None            # root statistics of the last decision
        self.belief = None          # determinization = belief: the Belief of the player to move
        self.random_moves(params.get("random_share", 0.0), params["seed"])

    def choose(self, game):
        """The action id to play: the only legal one, a random one (``random_share``), else
        the pick of the analysis (whose root statistics stay in ``last``)."""
        legal = game.legal_actions()
        self.last = None
        move = self.random_move(game, legal)
        if move is not None:
            return move
        if len(legal) == 1:
            return legal[0]
        self.last = self.root_statistics(game)
        return self.pick(self.last)

    def pick(self, stats):
        """The action to play from the root statistics."""
        return choose(stats.children, self.params["final"])

    def root_statistics(self, game, iterations=None, seconds=None, progress=None, steps=1, *,
                        only=None):
        """Root statistics for the decision at hand, merged over the trees: ``iterations``
        (run), ``nodes``, ``player`` and ``children``, best first, each with its
        ``action``, ``visits``, ``avail`` (the visits in which it was legal), ``value``
        (the player's mean reward, which ``final = "value"`` plays by), ``chances`` (each
        player's chance of finishing first, a shared first as its share, estimated along
        the child's best line: ``tigris.search``), ``error`` (the standard error of the
        player's chance there), ``line`` (how many moves of ``pv`` that best line takes),
        ``mean`` (each player's chance averaged over the child's own visits), ``spread``
        (the standard deviation of the player's chance over them), ``rounds`` (the
        halving rounds it lasted), ``halvings`` (how it stood at each halving: visits,
        mean, spread), ``prior`` (the move's prior as the root ranked it), ``margin`` (the
        player's expected final score minus the best other player's, read along the same
        line), ``margin_error`` (its standard error), ``pv`` (the most visited line after
        it, as (action, player) pairs) and ``pv_visits`` (the visits of the child and of
        each node of that line); with ``rounds``, the halvings done.  ``only``
        holds the root to those of its legal actions.

        ``iterations`` or ``seconds``, if given, is the budget of this decision instead of
        the bot's.  ``progress(done, total, iterations)`` is called once the trees have
        started to grow (``done`` 0), then each time a part of them is done: a step of a
        tree grown in this process, or a tree grown by a worker process; ``iterations``
        counts the iterations of the parts done.  ``steps`` > 1 grows each tree of this
        process in that many steps, for a progress display: the trees then differ from
        those grown in one step (see ``_grow``), as reproducibly.  The random numbers
        drawn from the bot's generator do not depend on either."""
        iterations, seconds = self._budget(iterations, seconds)
        world = self.world(game)
        n = self.params["workers"]
        seeds = [self.rng.getrandbits(63) for _ in range(n)]
        rows = self.determinizations(game)
        return merge(self._trees([world] * n, split(iterations, n), seconds, seeds, progress, steps,
                                 rows, only=only))

    def analyse(self, game, *args, **kwargs):
        """Deprecated since 2.1, removed in 2.2: ``root_statistics`` (an analysis is
        ``tigris.analysis``'s review of a whole game)."""
        renamed.warn("ISMCTSBot.analyse", "use ISMCTSBot.root_statistics")
        return self.root_statistics(game, *args, **kwargs)

    def _budget(self, iterations, seconds):
        """The budget of a decision: the one given, else the bot's."""
        if iterations is None and seconds is None:
            return self.params["iterations"], self.params["seconds"]
        return iterations, seconds

    def _trees(self, worlds, shares, seconds, seeds, progress, steps, determinizations=None, only=None):
        """The root statistics of a tree per world (grown with its share of the iterations,
        `seconds` and its seed, determinizing from `determinizations` if given), in the order of the
        worlds: in this process with one worker, else by the worker processes (root
        parallelism)."""
        n = self.params["workers"]
        if n == 1:
            trees, total, done, ran = [], len(worlds) * steps, 0, 0

            def report(iterations):              # after each step of a tree
                nonlocal done
                done += 1
                progress(done, total, ran + iterations)

            if progress is not None:
                progress(0, total, 0)
            net = self.network(worlds[0].players)
            for world, share, seed in zip(worlds, shares, seeds):
                trees.append(_grow(world, self.config, net, share, seconds, self.determinize, seed,
                                   steps, report if progress is not None else None, determinizations,
                                   only=only))
                ran += trees[-1].iterations
            return trees
        # The worker machinery is loaded only when workers start: a bot that searches in
        # this process (and ``import tigris``) never loads joblib.
        from joblib import delayed

        from tigris._plumbing import parallel as workers
        runs, trees = None, []
        try:
            path = self.network(worlds[0].players, file=True)       # each worker reads it once
            runs = workers.run(n, [delayed(_grow)(world, self.config, path, share, seconds, self.determinize,
                                                  seed, determinizations=determinizations, only=only)
                                   for world, share, seed in zip(worlds, shares, seeds)], generator=True)
            if progress is not None:
                progress(0, len(worlds), 0)
            for tree in runs:
                trees.append(tree)
                if progress is not None:
                    progress(len(trees), len(worlds), sum(t.iterations for t in trees))
        except KeyboardInterrupt:
            workers.stop(runs)          # an interruption between two results leaves them running
            raise
        return trees

    def network(self, players, file=False):
        """The network this bot's evaluator reads in games of `players` (with `file`, its
        weights file), looked up and read once per number of players; None for the
        heuristic."""
        if players not in self._networks:
            found = None
            if self.config.knobs["evaluator"] == "net":
                from tigris import network

                path = network.path_of(self.config.knobs["network"], players)
                found = (path, network.load(path, players))
            self._networks[players] = found
        found = self._networks[players]
        return None if found is None else found[0 if file else 1]

    def world(self, game):
        """What the search starts from: a world consistent with what the player sees."""
        return game.determinize(game.current_player, self.rng.getrandbits(63))

    def belief_of(self, game):
        """With ``determinization = "belief"``: the belief of the player to move, brought
        up to date with the game (a new one for another player or another game); else
        None."""
        if self.params.get("determinization", "uniform") != "belief":
            return None
        p = game.current_player
        if self.belief is None or self.belief.player != p:
            self.belief = Belief(p, particles=self.params["belief_particles"],
                                 temperature=self.params["belief_temperature"],
                                 seed=self.params["seed"])
        return self.belief.update(game)

    def determinizations(self, game):
        """What the search determinizes from: the belief's determinizations, or None
        (uniform)."""
        belief = self.belief_of(game)
        return belief.determinizations() if belief is not None else None

    def deals(self, game):
        """The former name of ``determinizations`` (a deal is a game's starting tiles):
        deprecated since 2.1, removed in 2.2."""
        renamed.warn("ISMCTSBot.deals", "use ISMCTSBot.determinizations")
        return self.determinizations(game)


class CheatBot(ISMCTSBot):
    """Searches the true state, hidden tiles included: a reference ceiling for measuring
    how much hidden information costs, never a real player."""

    kind = "cheat"
    honest = False
    determinize = False

    def world(self, game):
        """The true state, hidden tiles and all."""
        return game.copy(stack=False)


class PIMCBot(ISMCTSBot):
    """Perfect-information Monte Carlo: several determinizations, each searched as if it
    were the truth; each tree votes for its best action, ties go to total visits."""

    kind = "pimc"
    determinize = False

    def root_statistics(self, game, iterations=None, seconds=None, progress=None, steps=1, *,
                        only=None):
        """As ISMCTSBot.root_statistics, with each child's ``votes``: the trees that chose it.
        Children are ranked by votes, then visits."""
        iterations, seconds = self._budget(iterations, seconds)
        k = self.params["determinizations"]
        p = game.current_player
        belief = self.belief_of(game)
        if belief is not None and belief.usable:
            worlds = [belief.world(self.rng) for _ in range(k)]
        else:
            worlds = [game.determinize(p, self.rng.getrandbits(63)) for _ in range(k)]
        seeds = [self.rng.getrandbits(63) for _ in range(k)]
        secs = seconds / k if seconds else None
        trees = self._trees(worlds, split(iterations, k), secs, seeds, progress, steps,
                            only=only)
        merged = merge(trees)
        votes = {}
        for tree in trees:
            if tree.children:
                best = choose(tree.children, self.params["final"])
                votes[best] = votes.get(best, 0) + 1
        children = [replace(ch, votes=votes.get(ch.action, 0)) for ch in merged.children]
        children.sort(key=lambda ch: (-ch.votes, -ch.visits, ch.action))
        return replace(merged, children=tuple(children))

    def pick(self, stats):
        """The most voted action (ties: the most visited)."""
        return stats.children[0].action
