# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Single-observer information set MCTS (Cowling, Powley & Whitehouse 2012) in compiled code.

One tree over the searching player's information set.  Every iteration draws a fresh
determinization of what that player cannot see, descends only through actions legal in
it, and ranks children by UCB over *availability* counts (how often the child's action
was legal when its parent was visited).  Each node keeps a reward per player, and the
player to move at a node maximises their own: the defender's support and the trader
owner's treasure choice inside another player's turn included.

The root may instead share its visits out by sequential halving (``root="halving"``,
``halving_pick``): a best-arm identification that spends the budget on a few candidates
and ends with one clear choice, where UCB spreads it over every move tried.

The same loop serves the perfect-information baselines: `determinize = 0` searches the
given state as it is (the `cheat` reference and each tree of `pimc`), re-drawing only the
bag order per iteration.

Python sees this module through `tigris.search` only; the game is reached through one
interface, _search_game.pxd (legal actions, apply, copy, determinize, the player to move,
rewards, priors and the greedy rollout policy), whose inline functions the C compiler
sees through, and which alone names the game: a second game is a second such file.  The
evaluator's weights are knobs of the search.  The declarations with their fields are in _search.pxd; the parts
(the tree and UCB, the halving root, the determinizations, the loop) are the _search_*.pxi
files included below, and this file holds the Python face.  `Search` takes its knobs checked by
the table (tigris.knobs) and has no defaults of its own; it checks its other arguments
and the budgets before the compiled loop sees them (ValueError naming them), and a
running search polls for signals about ten times a second, so Ctrl-C stops it.
"""

import math

from libc.math cimport sqrt, log, exp
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from tigris._rng cimport splitmix
from tigris._search_game cimport *
from tigris._plumbing import checks
from tigris.errors import IllegalActionError
from tigris.knobs import MAX_ITERATIONS

# Node ids, visit and availability counts are int32: the limits of a tree and of a
# rollout's depth are the knobs' (tigris.knobs states them, with their reasons).
cdef int32_t C_MAX_ITERATIONS = MAX_ITERATIONS
cdef int32_t MAX_NODES = C_MAX_ITERATIONS + 1

# The knobs' strings as the C side holds them.
ROLLOUTS = {"random": ROLLOUT_RANDOM, "greedy": ROLLOUT_GREEDY}
ROOTS = {"ucb": ROOT_UCB, "halving": ROOT_HALVING}
PRIORS = {"heuristic": PRIORS_HEURISTIC, "net": PRIORS_NET}


# The search's parts, one concept each, are files included into this one module rather
# than modules of their own: one module is one C file, in which the C compiler may inline
# the per-node steps (UCB, a child's selection, an expansion) into the loop, and every call
# between the parts is a direct call.  A cdef function cimported from another module is
# called through a pointer, never inlined.  They share the declarations of _search.pxd.
include "_search_tree.pxi"          # the tree and UCB: nodes, selection, widening, expansion
include "_search_halving.pxi"       # the sequential-halving root
include "_search_determinizations.pxi"  # each iteration's determinization, uniform or a belief's
include "_search_loop.pxi"          # the loop: determinize, descend, roll out, back up


# ---------------------------------------------------------------------------
# What a tree reports
# ---------------------------------------------------------------------------

# A root child's chances are read at the end of its best line: the most visited child is
# followed while it holds at least LINE_MIN_VISITS visits (fewer: its mean is noise, a
# standard error of about 0.06 on a chance) and LINE_MIN_SHARE of its parent's (less:
# its mover has not settled on it; under progressive widening a decision among many
# near-equal moves spreads its visits over them, and the most visited is one of many).
cdef int32_t LINE_MIN_VISITS = 64
cdef double LINE_MIN_SHARE = 0.25


cdef int32_t most_visited_child(const Tree* t, int32_t node) noexcept nogil:
    """The child of `node` with the most visits (the first of equals), or NO_NODE."""
    cdef int32_t c = t.nodes[node].first_child, best = NO_NODE
    while c != NO_NODE:
        if best == NO_NODE or t.nodes[c].visits > t.nodes[best].visits:
            best = c
        c = t.nodes[c].next_sibling
    return best


cdef int32_t best_line_end(const Tree* t, int32_t node) noexcept nogil:
    """The deepest node of `node`'s best line: the most visited child followed while it
    has LINE_MIN_VISITS visits and LINE_MIN_SHARE of its parent's."""
    cdef int32_t c = most_visited_child(t, node)
    while (c != NO_NODE and t.nodes[c].visits >= LINE_MIN_VISITS
           and t.nodes[c].visits >= LINE_MIN_SHARE * t.nodes[node].visits):
        node = c
        c = most_visited_child(t, node)
    return node


cdef int line_length(const Tree* t, int32_t node) noexcept nogil:
    """How many moves below `node` its best line takes (best_line_end)."""
    cdef int32_t end = best_line_end(t, node)
    cdef int k = 0
    while end != node:
        end = t.nodes[end].parent
        k += 1
    return k


cdef list line_chances(const Tree* t, int32_t node, int nplayers):
    """Each player's chance of finishing first after `node`, read at the end of its best
    line.  Not `node`'s own mean: that mixes in every reply tried below it, the bad ones
    that exploration visits too, while the most visited reply is its mover's best.  The
    float sums are scaled to add up to 1, as each rollout's chances do."""
    cdef const Node* end = &t.nodes[best_line_end(t, node)]
    cdef double total = 0.0
    cdef int p
    for p in range(nplayers):
        total += end.chance[p]
    if total <= 0:
        return [1.0 / nplayers] * nplayers          # never visited: nothing known
    return [end.chance[p] / total for p in range(nplayers)]


# A chance's spread over a node's visits is measured, but from few visits it may read 0,
# and a move visited a few times is read at itself, a mean over the replies exploration
# tried, not along a best line: its spread is taken as PRIOR_WEIGHT visits of spread
# PRIOR_SPREAD more (a chance's spread between moves of one position), so a move seen a
# few times is never certain.
cdef double PRIOR_SPREAD = 0.2
cdef double PRIOR_WEIGHT = 8.0


cdef list mean_chances(const Node* nd, int nplayers):
    """Each player's chance of finishing first averaged over the visits of `nd` (scaled
    to add up to 1, as line_chances)."""
    cdef double total = 0.0
    cdef int p
    for p in range(nplayers):
        total += nd.chance[p]
    if total <= 0:
        return [1.0 / nplayers] * nplayers
    return [nd.chance[p] / total for p in range(nplayers)]


cdef double spread(const Node* nd, int player):
    """The standard deviation of the searching `player`'s chance over the visits of `nd`
    (0 unvisited): with their number, the standard error of its mean."""
    cdef double n = nd.visits, mean
    if n < 1:
        return 0.0
    mean = nd.chance[player] / n
    return sqrt(max(nd.chance_sq / n - mean * mean, 0.0))


cdef dict snapshot(const Snapshot* sn, int nplayers, int player):
    """A candidate as it stood at a halving: the ``halving``, its ``visits``, each
    player's ``mean`` chance over them (as ``mean_chances``) and the ``spread`` of the
    searching `player`'s (as ``spread``)."""
    cdef double total = 0.0, n = sn.visits, mean
    cdef int p
    for p in range(nplayers):
        total += sn.chance[p]
    mean = sn.chance[player] / n if n >= 1 else 0.0
    return {"halving": sn.halving, "visits": sn.visits,
            "mean": [sn.chance[p] / total for p in range(nplayers)] if total > 0
            else [1.0 / nplayers] * nplayers,
            "spread": sqrt(max(sn.chance_sq / n - mean * mean, 0.0)) if n >= 1 else 0.0}


cdef double line_error(const Tree* t, int32_t node, int player):
    """The standard error of the searching `player`'s chance read at the end of `node`'s
    best line: the spread of the chances its visits backed up (with the prior above)
    over the root of their number.  The visits are each a determinization of their own;
    those of one tree are not independent, so this is the search's own measure, not a
    bound."""
    cdef const Node* end = &t.nodes[best_line_end(t, node)]
    cdef double n = end.visits, mean, var
    if n < 1:
        return 0.5                                  # nothing known: a chance's widest spread
    mean = end.chance[player] / n
    var = max(end.chance_sq / n - mean * mean, 0.0)
    var = (n * var + PRIOR_WEIGHT * PRIOR_SPREAD * PRIOR_SPREAD) / (n + PRIOR_WEIGHT)
    return sqrt(var / n)


# The score margin's spread, as the chance's above: taken as MARGIN_PRIOR_WEIGHT visits of
# spread MARGIN_PRIOR_SPREAD points more, so that a move seen a few times is never certain.
cdef double MARGIN_PRIOR_SPREAD = 5.0
cdef double MARGIN_PRIOR_WEIGHT = 8.0


cdef double line_margin(const Tree* t, int32_t node):
    """The searching player's expected final-score margin against the best other player
    after `node`, read at the end of its best line as its chances are (``line_chances``):
    0 if never visited."""
    cdef const Node* end = &t.nodes[best_line_end(t, node)]
    return end.margin / end.visits if end.visits >= 1 else 0.0


cdef double line_margin_error(const Tree* t, int32_t node):
    """The standard error of ``line_margin``, as ``line_error`` is the chance's: the spread
    of the margins its visits backed up (with the prior above) over the root of their
    number."""
    cdef const Node* end = &t.nodes[best_line_end(t, node)]
    cdef double n = end.visits, mean, var
    if n < 1:
        return MARGIN_PRIOR_SPREAD
    mean = end.margin / n
    var = max(end.margin_sq / n - mean * mean, 0.0)
    var = (n * var + MARGIN_PRIOR_WEIGHT * MARGIN_PRIOR_SPREAD * MARGIN_PRIOR_SPREAD) / (n + MARGIN_PRIOR_WEIGHT)
    return sqrt(var / n)


# ---------------------------------------------------------------------------
# Python face
# ---------------------------------------------------------------------------

cdef class Search:
    """A search tree over the information set of the player to move in `game`, grown in
    steps (``tigris.search.Search`` is the way in: it checks the knobs against the table).

    ``config`` is every knob of ``tigris.knobs.SEARCH_CONFIG`` (the evaluator's weights
    among them), already checked by ``tigris.knobs.search_config``: this module has no
    defaults of its own and trusts those values.  The other arguments are checked here:
    ``seed`` any int, of which the low 64 bits are used; ``plan_iterations`` or
    ``plan_seconds``, the tree's whole budget for a halving root (0: the first step's);
    ``determinize`` (False: the state as given); ``determinizations``, a belief's; ``only``,
    the legal actions the root searches (None: all); ``net``, a learned evaluation
    (``tigris.network``) that judges the rollouts' ends instead of the heuristic and,
    with the knob ``priors`` "net", orders the expansions by its policy head.

    Attributes: ``player`` (the searching player, to move at the root), ``iterations``
    (run in all steps) and ``final`` (how ``stats()`` picks ``best``: "visits" or "value").
    """

    def __cinit__(self):
        memset(&self.tree, 0, sizeof(Tree))
        self.tree.nsurvivors = -1

    def __dealloc__(self):
        free(self.determinizations)
        free(self.determinization_cum)
        free(self.tree.nodes)
        free(self.tree.policies)
        free(self.tree.order)
        free(self.tree.survivors)
        free(self.tree.survivor_prior)
        free(self.tree.snapshots)
        free(self.tree.order_prior)
        free(self.root_only)

    def __init__(self, Game game not None, dict config not None, *, seed, plan_iterations=0,
                 plan_seconds=0.0, bint determinize=True, determinizations=None, only=None,
                 Network net=None):
        plan_iterations = checks.whole("plan_iterations", plan_iterations, 0, MAX_ITERATIONS)
        plan_seconds = checks.number("plan_seconds", plan_seconds, 0.0)
        seed = checks.whole("seed", seed, -math.inf, math.inf)
        if game.is_over:
            raise ValueError("the game is over: there is nothing to search")
        game_copy(&self.root, game_state(game))
        self.player = game_to_move(&self.root)
        self.final = config["final"]
        self.iterations = 0
        self.cfg.exploration = config["exploration"]
        self.cfg.rollout = ROLLOUTS[config["rollout"]]
        self.cfg.epsilon = config["epsilon"]
        self.cfg.rollout_depth = config["rollout_depth"]
        self.cfg.widening = config["widening"]
        self.cfg.root = ROOTS[config["root"]]
        self.cfg.candidates = config["candidates"]
        self.cfg.halving_scale = config["halving_scale"]
        self.cfg.weights = config          # the struct's fields by name (Weights, the game's evaluator)
        # The network itself comes read (tigris.search.Search reads the file the knob names).
        if (config["evaluator"] == "net") != (net is not None) or not isinstance(config["network"], str):
            raise ValueError(f"evaluator {config['evaluator']!r} with "
                             f"{'a network' if net is not None else 'no network'}: a network "
                             f"goes with evaluator 'net' alone")
        self.network = net
        self.cfg.net_share = config["net_share"]
        self.cfg.root_lookahead = config["root_lookahead"]
        self.cfg.net = &net.net if net is not None else NULL
        if config["priors"] == "net" and (net is None or not net.has_policy):
            raise ValueError("priors 'net' needs a network with a policy head (evaluator 'net' and "
                             "a network file that has one)")
        self.cfg.priors = PRIORS[config["priors"]]
        self.cfg.policy_visits = config["policy_visits"]
        self.cfg.policy_exploration = config["policy_exploration"]
        self.cfg.margin_share = config["margin_share"]
        self.cfg.margin_scale = config["margin_scale"]
        self.cfg.plan_iterations = plan_iterations
        self.cfg.plan_seconds = plan_seconds
        self.cfg.determinize = determinize
        keep_determinizations(self, determinizations)
        keep_only_actions(self, game, only)
        self.cfg.timing = 0
        self.cfg.rollout_seconds = 0
        self.cfg.seed = (<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)) ^ <uint64_t>0xA0761D6478BD642F

    def measure_rollouts(self, bint on=True):
        """Time the rollouts from now on (rollout_seconds), for benchmarks."""
        self.cfg.timing = on

    @property
    def rollout_seconds(self):
        """Seconds spent in rollouts while measure_rollouts was on."""
        return self.cfg.rollout_seconds

    def step(self, iterations=0, seconds=0.0):
        """Grow the tree by `iterations`, or for `seconds` (0: no limit of that kind); returns
        the iterations run.  A time budget runs at least one iteration, and ends early if the
        tree is full.  Ctrl-C (any signal handler that raises) stops the search within about
        0.1 s and propagates; the tree keeps the iterations that completed."""
        cdef int32_t used = self.tree.nodes[0].visits if self.tree.n else 0
        iterations = checks.whole("iterations", iterations, 0, MAX_ITERATIONS)
        if iterations > MAX_ITERATIONS - used:
            raise ValueError(f"iterations must be at most {MAX_ITERATIONS - used} (a tree takes "
                             f"{MAX_ITERATIONS} in all and has run {used}), not {iterations}")
        seconds = checks.number("seconds", seconds, 0.0)
        if iterations <= 0 and seconds <= 0:
            raise ValueError("give iterations or seconds (a budget) for the search")
        if self.cfg.plan_iterations == 0 and self.cfg.plan_seconds == 0:
            # Halving shares out a whole budget: unless planned, the first step's.
            self.cfg.plan_iterations = iterations
            self.cfg.plan_seconds = seconds
        self.cfg.iterations = iterations
        self.cfg.seconds = seconds
        try:
            with nogil:
                search(&self.tree, &self.root, self.player, &self.cfg)
        finally:
            self.iterations += self.cfg.done
        return self.cfg.done

    def stats(self, int pv_depth=6):
        """Root statistics: ``children`` (action, visits, avail, value = mean reward of the
        searching player, chances = each player's chance of finishing first, a shared
        first as its share, estimated along the child's best line (``line_chances``),
        error = the standard error of the searching player's chance there
        (``line_error``), margin = the searching player's expected final score minus the
        best other player's there (``line_margin``), margin_error = its standard error
        (``line_margin_error``), line = how many moves of pv that best line takes, mean = each
        player's chance averaged over the child's own visits, spread = the standard
        deviation of the searching player's chance over them (``spread``), rounds = the
        halving phases it took part in (0: never a candidate, or a UCB root), halvings =
        how it stood at each halving from the second while it was in the running (dicts
        of halving, visits, mean and spread, as above: ``snapshot``), prior = the
        move's prior as the root ranked it (the policy's probability, or the heuristic's
        weight, times its one-ply factor with root_lookahead), pv = the most visited
        line after it, as (action, player) pairs), pv_visits = the visits of the child and
        of each node of that line), ``best``, ``nodes``, ``rounds`` (the halvings done so
        far)."""
        halvings = {}                      # node: how it stood at each halving, in order
        for k in range(self.tree.nsnapshots):
            halvings.setdefault(self.tree.snapshots[k].node, []).append(
                snapshot(&self.tree.snapshots[k], game_players(&self.root), self.player))
        children = []
        c = self.tree.nodes[0].first_child if self.tree.n else NO_NODE
        k = self.tree.nodes[0].nchildren - 1 if self.tree.n else 0     # newest first: the last in order
        while c != NO_NODE:
            nd = self.tree.nodes[c]
            children.append({"action": nd.action, "visits": nd.visits, "avail": nd.avail,
                             "value": nd.reward[self.player] / nd.visits if nd.visits else 0.0,
                             "chances": line_chances(&self.tree, c, game_players(&self.root)),
                             "error": line_error(&self.tree, c, self.player),
                             "margin": line_margin(&self.tree, c),
                             "margin_error": line_margin_error(&self.tree, c),
                             "line": line_length(&self.tree, c),
                             "mean": mean_chances(&self.tree.nodes[c], game_players(&self.root)),
                             "spread": spread(&self.tree.nodes[c], self.player),
                             "rounds": nd.rounds,
                             "halvings": halvings.get(c, []),
                             "prior": self.tree.order_prior[k] if 0 <= k < self.tree.norder else 0.0,
                             "pv": self._line(c, pv_depth),
                             "pv_visits": self._line_visits(c, pv_depth)})
            c = nd.next_sibling
            k -= 1
        children.sort(key=lambda ch: (-ch["visits"], -ch["value"], ch["action"]))   # as choose() ranks
        return {"iterations": self.iterations, "nodes": self.tree.n, "player": self.player,
                "children": children, "best": choose(children, self.final) if children else None,
                "rounds": self.tree.halved if self.tree.nsurvivors >= 0 else 0}

    cdef list _line(self, int32_t node, int depth):
        """The most visited continuation below `node`: (action, player) pairs."""
        cdef int32_t best
        line = []
        while len(line) < depth:
            best = most_visited_child(&self.tree, node)
            if best == NO_NODE or self.tree.nodes[best].visits <= 1:
                break
            line.append((self.tree.nodes[best].action, self.tree.nodes[best].mover))
            node = best
        return line

    cdef list _line_visits(self, int32_t node, int depth):
        """The visits of `node` and of each node of its most visited continuation
        (``_line``): a move's against the node's before it, how settled its mover was."""
        cdef int32_t best
        visits = [self.tree.nodes[node].visits]
        while len(visits) <= depth:
            best = most_visited_child(&self.tree, node)
            if best == NO_NODE or self.tree.nodes[best].visits <= 1:
                break
            visits.append(self.tree.nodes[best].visits)
            node = best
        return visits


cdef keep_only_actions(Search search, Game game, only):
    """Hold the root to the actions of `only` (None: every legal one), each legal."""
    if only is None:
        return
    actions = list(only)
    if not actions:
        raise ValueError("only: give at least one action for the root to search")
    for a in actions:
        try:
            legal = not isinstance(a, bool) and isinstance(a, int) and game.is_legal(a)
        except ValueError as e:                    # an id outside the action space
            raise ValueError(f"only: {e}") from None
        if not legal:
            raise ValueError(f"only: {a!r} is not a legal action of the position searched")
    search.root_only = <int32_t*>malloc(len(actions) * sizeof(int32_t))
    if search.root_only == NULL:
        raise MemoryError()
    for k, a in enumerate(actions):
        search.root_only[k] = a
    search.cfg.root_only = search.root_only
    search.cfg.nroot_only = len(actions)


def leaf_rewards(Game game not None, dict weights not None, Network net, double net_share):
    """Each player's reward at `game` as a search judges a rollout's end (``leaf_values``,
    in double precision): the evaluator's with `weights` (every weight by name, as
    ``tigris.knobs.check_weights`` gives them), or with `net` its chances of finishing
    first mixed with them by `net_share`.  The greedy bot's judgement of a move."""
    cdef Config cfg
    cdef float reward[MAX_PLAYERS]
    cdef double chance[MAX_PLAYERS]
    cdef double value[MAX_PLAYERS]
    memset(&cfg, 0, sizeof(Config))
    cfg.weights = weights
    cfg.net = &net.net if net is not None else NULL
    cfg.net_share = net_share
    leaf_values(game_state(game), &cfg, value, reward, chance, NULL)
    return [value[p] for p in range(game_players(game_state(game)))]


def choose(children, final):
    """The action to play from (merged) root statistics by the knob `final`: "visits",
    the most visited, or "value", the best mean value among the children visited at least
    a tenth as often as the most visited one."""
    if not children:
        raise ValueError("no root statistics to choose from")
    if final == "value":
        most = max(ch["visits"] for ch in children)
        pool = [ch for ch in children if ch["visits"] * 10 >= most]
        return max(pool, key=lambda ch: (ch["value"], ch["visits"], -ch["action"]))["action"]
    return max(children, key=lambda ch: (ch["visits"], ch["value"], -ch["action"]))["action"]
