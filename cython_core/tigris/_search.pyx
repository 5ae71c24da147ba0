# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Single-observer information set MCTS (Cowling, Powley & Whitehouse 2012) in compiled code.

One tree over the searching player's information set.  Every iteration deals a fresh
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

Python sees this module through `Search` / `run(game, ...)` only; the game is reached through the
core's C interface (legal_actions, apply_action, copy_state, determinize), the rewards,
priors and greedy rollout policy through the evaluator's (_eval.pxd), whose weights are
knobs of the search.  The declarations with their fields are in _search.pxd.  `Search` checks
every knob and budget before the compiled loop sees it (ValueError naming the knob), and a
running search polls for signals about ten times a second, so Ctrl-C stops it.
"""

import math

from libc.math cimport sqrt, log
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from tigris._core cimport *
from tigris._core cimport determinize as c_determinize
from tigris._eval cimport Weights, evaluate, priors, prior, scorer_table, greedy_action
from tigris._game cimport Game
from tigris import checks
from tigris._eval import check_weights
from tigris.errors import IllegalActionError, excerpt

cdef extern from "Python.h":
    # Declared without an exception clause: search() records the failure and returns
    # through its clean-up before the exception propagates.
    int check_signals "PyErr_CheckSignals" ()

# Node ids, visit and availability counts are int32.  Every iteration adds at most one node
# and one root visit, so a tree takes at most this many iterations in all.
MAX_ITERATIONS = 2**31 - 2
cdef int32_t C_MAX_ITERATIONS = MAX_ITERATIONS
cdef int32_t MAX_NODES = C_MAX_ITERATIONS + 1
MAX_ROLLOUT_DEPTH = 2**31 - 1                  # a C int
cdef double POLL_SECONDS = 0.1                 # how often a running search checks for signals
# Ties between equal priors are broken by a random jitter far below any prior's step.
cdef double ROOT_JITTER = 1e-9                 # times a draw in [0, 1e6): the root's order
cdef double NODE_JITTER = 1e-6                 # times a draw in [0, 1e3): an inner expansion
# Halving's ranking (Danihelka et al. 2022): sigma = halving_scale * (HALVING_VISITS + the
# most visits of a candidate); a prior of 0 counts as PRIOR_FLOOR, so its log is finite.
cdef double HALVING_VISITS = 50.0
cdef double PRIOR_FLOOR = 1e-3


# A belief's deals (Search's deals): per player a hand and face-down discards by colour,
# then the bag; at most MAX_DEALS of them.
cdef enum:
    DEAL_BYTES = MAXP * 8 + NCOL
MAX_DEALS = 1 << 16

cdef enum:
    NLOG = 1 << 16
cdef float LOG[NLOG]                 # log(n) for UCB: one lookup instead of a log per child
cdef int _k
LOG[0] = 0
for _k in range(1, NLOG):
    LOG[_k] = log(<double>_k)


cdef inline double log_count(int32_t n) noexcept nogil:
    return LOG[n] if n < NLOG else log(<double>n)


cdef double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


cdef int32_t new_node(Tree* t, int32_t parent, int action, int mover) noexcept nogil:
    """The new node's id, or NO_NODE (t.error set) if the tree cannot grow."""
    cdef Node* nd
    cdef Node* grown
    cdef int64_t cap
    if t.n == t.cap:
        cap = <int64_t>t.cap * 2 if t.cap else 1024
        if cap > MAX_NODES:
            cap = MAX_NODES
        grown = <Node*>realloc(t.nodes, <size_t>cap * sizeof(Node)) if cap > t.n else NULL
        if grown == NULL:
            t.error = STOP_MEMORY
            return NO_NODE
        t.nodes = grown
        t.cap = <int32_t>cap
    nd = &t.nodes[t.n]
    memset(nd, 0, sizeof(Node))
    nd.parent = parent
    nd.first_child = NO_NODE
    nd.next_sibling = NO_NODE
    nd.action = action
    nd.mover = mover
    if parent != NO_NODE:
        nd.next_sibling = t.nodes[parent].first_child
        t.nodes[parent].first_child = t.n
        t.nodes[parent].nchildren += 1
    t.n += 1
    return t.n - 1


cdef void rollout(State* s, const Config* cfg, uint64_t* x) noexcept nogil:
    """Play the simulation phase: up to cfg.rollout_depth decisions, each uniformly random
    or, in greedy rollouts, the policy's choice except for a share epsilon of them."""
    cdef int played = 0, a
    while s.phase != PH_OVER and (cfg.rollout_depth < 0 or played < cfg.rollout_depth):
        # The core's samplers: no list of legal actions is made.
        if cfg.rollout == ROLLOUT_GREEDY and (splitmix(x) % 1000000) >= cfg.epsilon * 1000000:
            a = greedy_action(s, x)
        else:
            a = random_action(s, x)
        if a < 0:
            break               # never in a valid game
        apply_action(s, a)
        played += 1


cdef inline double ucb(const Node* nd, int mover, double exploration) noexcept nogil:
    """UCB over availability: the mover's mean reward plus exploration * sqrt(ln(avail) /
    visits).  Every ranked child has been visited: the iteration that expands a child
    also visits it (one that fails halfway stops the search)."""
    return nd.reward[mover] / nd.visits + exploration * sqrt(log_count(nd.avail) / nd.visits)


cdef inline int32_t best_child(Tree* t, int32_t node, int mover, double exploration,
                               const uint32_t* legal_mark, uint32_t stamp,
                               bint count_avail) noexcept nogil:
    """The child of `node` with the mover's highest UCB among those legal now
    (legal_mark[action] == stamp; all children when legal_mark is NULL), the first one
    if every score is NaN; NO_NODE if none is legal.  With `count_avail`, each child
    looked at is counted available first (the root: one pass instead of two)."""
    cdef int32_t c = t.nodes[node].first_child, best = NO_NODE
    cdef double score, best_score = -1e300
    cdef Node* nd
    while c != NO_NODE:
        nd = &t.nodes[c]
        if legal_mark == NULL or legal_mark[nd.action] == stamp:
            if count_avail:
                nd.avail += 1
            score = ucb(nd, mover, exploration)
            if best == NO_NODE or score > best_score:
                best_score = score
                best = c
        c = nd.next_sibling
    return best


cdef inline bint may_widen(const Node* nd, int32_t legal_children, const Config* cfg) noexcept nogil:
    """Progressive widening: whether a node with `legal_children` children legal now may
    take one more (always when none is legal)."""
    return (cfg.widening <= 0 or legal_children == 0 or
            nd.nchildren < cfg.widening * sqrt(nd.visits + 1.0))


cdef int halvings(int m) noexcept nogil:
    """ceil(log2(m)): the halvings that take m candidates down to one."""
    cdef int k = 0, r = 1
    while r < m:
        r *= 2
        k += 1
    return k


cdef double plan_spent(const Tree* t, const Config* cfg, double step_start) noexcept nogil:
    """The share of the tree's planned budget spent so far: root visits against the planned
    iterations, or seconds against the planned seconds, whichever is further along."""
    cdef double spent = 0.0
    if cfg.plan_iterations > 0:
        spent = t.nodes[0].visits / <double>cfg.plan_iterations
    if cfg.plan_seconds > 0:
        spent = max(spent, (t.elapsed + now() - step_start) / cfg.plan_seconds)
    return spent


cdef inline double halving_score(const Tree* t, int k, int player, double sigma) noexcept nogil:
    """Gumbel MuZero's ranking of a candidate without the noise: log prior + sigma * mean
    reward.  The prior decides while the evidence is thin; sigma grows with the visits."""
    cdef const Node* nd = &t.nodes[t.survivors[k]]
    return log(t.survivor_prior[k] + PRIOR_FLOOR) + sigma * nd.reward[player] / nd.visits


cdef bint halve(Tree* t, const Config* cfg, int player, int candidates) noexcept nogil:
    """Keep the better half of the root's candidates by halving_score (ties: the older
    child, which has the better prior).  The first halving instead takes the best
    `candidates` of every child the UCB phase expanded.  False if out of memory."""
    cdef int32_t c, k, j, n, most = 0
    cdef double v, sigma, p
    cdef double* score
    cdef Node* nd = t.nodes
    if t.nsurvivors < 0:
        n = nd[0].nchildren
        t.survivors = <int32_t*>malloc(max(n, 1) * sizeof(int32_t))
        t.survivor_prior = <double*>malloc(max(n, 1) * sizeof(double))
        if t.survivors == NULL or t.survivor_prior == NULL:
            free(t.survivors)
            free(t.survivor_prior)
            t.survivors = NULL
            t.survivor_prior = NULL
            return False
        c = nd[0].first_child              # newest first: fill from the back
        for k in range(n - 1, -1, -1):
            t.survivors[k] = c
            t.survivor_prior[k] = t.order_prior[k]      # children are expanded in order
            c = nd[c].next_sibling
        t.nsurvivors = n
    score = <double*>malloc(max(t.nsurvivors, 1) * sizeof(double))
    if score == NULL:
        return False
    for k in range(t.nsurvivors):
        most = max(most, nd[t.survivors[k]].visits)
    sigma = cfg.halving_scale * (HALVING_VISITS + most)
    for k in range(t.nsurvivors):
        score[k] = halving_score(t, k, player, sigma)
    for k in range(1, t.nsurvivors):      # stable insertion sort, best score first
        c = t.survivors[k]
        p = t.survivor_prior[k]
        v = score[k]
        j = k
        while j > 0 and score[j - 1] < v:
            t.survivors[j] = t.survivors[j - 1]
            t.survivor_prior[j] = t.survivor_prior[j - 1]
            score[j] = score[j - 1]
            j -= 1
        t.survivors[j] = c
        t.survivor_prior[j] = p
        score[j] = v
    free(score)
    if t.phase == 0:
        t.nsurvivors = min(t.nsurvivors, candidates)
    else:
        t.nsurvivors = (t.nsurvivors + 1) // 2
    return True


cdef bint halving_begun(Tree* t, const Config* cfg, int player, double spent) noexcept nogil:
    """Sequential halving at the root (Karnin, Koren & Somekh 2013, as in SHOT and Gumbel
    MuZero), after a phase of UCB: the tree's planned budget falls into equal phases.  The
    first is UCB trying every move (in prior order, as far as its visits go); then the
    `candidates` children best by halving_score go on, each phase sharing its visits
    evenly among those still in the running and then dropping the worse half, until one
    is left; the last phase is its own, so the decision is the most visited child.
    Does the halvings that `spent` (the share of the plan used) makes due; whether the
    UCB phase is over (t.error set when out of memory)."""
    cdef int m = min(cfg.candidates, t.norder), last = 1 + halvings(m)
    cdef int due = <int>(spent * (last + 1))
    if due > last:
        due = last
    while t.phase < due and t.nodes[0].nchildren > 0:
        if not halve(t, cfg, player, m):
            t.error = STOP_MEMORY
            return False
        t.phase += 1
        t.turn = 0
        t.round = 0
    return t.nsurvivors >= 0


cdef int32_t halving_pick(Tree* t, const Config* cfg, int player, double spent,
                          uint64_t* stream) noexcept nogil:
    """The root child this iteration visits once the halving has begun (NO_NODE before,
    or with t.error set when out of memory): the candidates in turn, a round at a time.
    Every visit of a round gets the same random `stream`, so the candidates are compared
    on the same deal of the hidden tiles and the same rollout draws (common random
    numbers): the luck of the deal cancels out of their differences."""
    cdef int32_t pick
    cdef uint64_t z
    if not halving_begun(t, cfg, player, spent):
        return NO_NODE
    pick = t.survivors[t.turn]
    z = cfg.seed ^ (<uint64_t>t.phase * <uint64_t>0xD1B54A32D192ED03) ^ (<uint64_t>t.round * <uint64_t>0x9E3779B97F4A7C15)
    stream[0] = splitmix(&z)
    t.turn += 1
    if t.turn == t.nsurvivors:
        t.turn = 0
        t.round += 1
    return pick


cdef inline int32_t expand(Tree* t, int32_t node, int action, int mover, State* d,
                           bint* expanded) noexcept nogil:
    """Add the child for `action` (available once: now) and play it in d."""
    cdef int32_t c = new_node(t, node, action, mover)
    if c == NO_NODE:
        return NO_NODE
    t.nodes[c].avail = 1
    apply_action(d, action)
    expanded[0] = True
    return c


cdef int32_t select_or_expand(Tree* t, int32_t node, State* d, const Config* cfg, uint64_t* x,
                              int32_t* legal, const int32_t* order, int norder,
                              uint32_t* legal_mark, uint32_t* child_mark,
                              uint32_t stamp, int32_t pick, bint* expanded) noexcept nogil:
    """One step down from `node` in determinization d: count availability, then either
    expand an untried legal action or pick the best child by UCB (at a halving root,
    `pick` unless it is NO_NODE).  Applies the action.  At the root, `order` holds its
    legal actions best prior first (they are the same in every determinization: the
    decision is the searching player's).  Returns NO_NODE (t.error set) when it cannot go
    on: no legal action, or no memory for a child."""
    cdef int n, k, a, mover = current_player(d), best_a = -1
    cdef int32_t c, best, legal_children = 0
    cdef double pr, best_pr = -1.0
    cdef Node* nd
    cdef uint8_t scorer[4 * NSQ]
    if order != NULL:
        # The root: every child is legal in every determinization, and children were
        # expanded in `order`, so the next untried action is order[nchildren].
        legal_children = t.nodes[node].nchildren
        if pick != NO_NODE:
            c = t.nodes[node].first_child
            while c != NO_NODE:
                t.nodes[c].avail += 1
                c = t.nodes[c].next_sibling
            apply_action(d, t.nodes[pick].action)
            return pick
        # A halving root tries every move in its UCB phase: the halving does the narrowing.
        if ((cfg.root == ROOT_HALVING or may_widen(&t.nodes[node], legal_children, cfg))
                and legal_children < norder):
            c = t.nodes[node].first_child
            while c != NO_NODE:
                t.nodes[c].avail += 1
                c = t.nodes[c].next_sibling
            return expand(t, node, order[legal_children], mover, d, expanded)
        best = best_child(t, node, mover, cfg.exploration, NULL, 0, True)
    else:
        n = legal_actions(d, legal)
        for k in range(n):
            legal_mark[legal[k]] = stamp
        c = t.nodes[node].first_child
        while c != NO_NODE:
            nd = &t.nodes[c]
            child_mark[nd.action] = stamp
            if legal_mark[nd.action] == stamp:
                nd.avail += 1
                legal_children += 1
            c = nd.next_sibling
        if may_widen(&t.nodes[node], legal_children, cfg) and legal_children < n:
            scorer_table(d, scorer)
            for k in range(n):
                a = legal[k]
                if child_mark[a] == stamp:
                    continue
                pr = prior(d, &cfg.weights, scorer, a, mover) + (splitmix(x) % 1000) * NODE_JITTER
                if pr > best_pr:
                    best_pr = pr
                    best_a = a
            return expand(t, node, best_a, mover, d, expanded)
        best = best_child(t, node, mover, cfg.exploration, legal_mark, stamp, False)
    if best == NO_NODE:
        t.error = STOP_NO_ACTION
        return NO_NODE
    apply_action(d, t.nodes[best].action)
    return best


cdef int root_order(State* d, const Weights* w, int32_t* order, double* key, uint64_t* x) noexcept nogil:
    """The root's legal actions sorted by prior, best first, ties in random order, and
    their priors in key (each with its jitter); how many."""
    cdef int n, k, j
    cdef int32_t a
    cdef double v
    n = legal_actions(d, order)
    priors(d, w, order, n, key)
    for k in range(n):
        key[k] += (splitmix(x) % 1000000) * ROOT_JITTER
    for k in range(1, n):               # insertion sort: a few hundred actions, once a search
        a = order[k]
        v = key[k]
        j = k
        while j > 0 and key[j - 1] < v:
            key[j] = key[j - 1]
            order[j] = order[j - 1]
            j -= 1
        key[j] = v
        order[j] = a
    return n


cdef void deal_unseen(State* d, int player, const Config* cfg, uint64_t seed) noexcept nogil:
    """One determinization of what `player` cannot see: uniform among the worlds that
    agree with what the player sees, or, with a belief, one of its deals drawn by weight
    (the deal sets the other hands and face-down discards and the bag; the draws from
    the bag stay random)."""
    cdef uint64_t x = seed
    cdef double u
    cdef int lo = 0, hi, mid, q, c
    cdef const uint8_t* deal
    if cfg.ndeals == 0:
        c_determinize(d, player, x)
        return
    u = (splitmix(&x) >> 11) * (1.0 / 9007199254740992.0)
    hi = cfg.ndeals - 1
    while lo < hi:                          # the first deal whose cumulative weight exceeds u
        mid = (lo + hi) // 2
        if cfg.deal_cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    deal = cfg.deals + lo * DEAL_BYTES
    for q in range(d.nplayers):
        if q != player:
            for c in range(NCOL):
                d.hand[q][c] = deal[8 * q + c]
                d.swapped[q][c] = deal[8 * q + 4 + c]
    for c in range(NCOL):
        d.bag[c] = deal[8 * MAXP + c]
    d.rng = splitmix(&x)


cdef int search(Tree* t, const State* root, int player, Config* cfg) except -1 nogil:
    """Run iterations until the budget is spent, the tree is full (MAX_ITERATIONS) or a
    signal handler raises; cfg.done counts the iterations that ran.  Returns -1 with the
    exception set (KeyboardInterrupt, MemoryError, ...) if it stopped on an error; the tree
    then holds the iterations that completed."""
    cdef State d
    cdef int32_t* legal = <int32_t*>malloc(N_ACTIONS * sizeof(int32_t))
    cdef uint32_t* legal_mark = <uint32_t*>malloc(N_ACTIONS * sizeof(uint32_t))
    cdef uint32_t* child_mark = <uint32_t*>malloc(N_ACTIONS * sizeof(uint32_t))
    cdef uint64_t x = cfg.seed
    cdef uint32_t stamp = 0
    cdef float reward[MAXP]
    cdef long it = 0, room
    cdef int32_t node
    cdef int p
    cdef bint expanded
    cdef double start = now()
    cdef double deadline = start + cfg.seconds
    cdef double poll = start + POLL_SECONDS
    cdef double t0, clock
    cdef uint64_t paired = 0               # a halving round's stream, shared by its visits
    cdef uint64_t* rng
    cdef int32_t pick
    cfg.done = 0
    t.error = STOP_NONE
    x ^= <uint64_t>t.n * <uint64_t>0x9E3779B97F4A7C15      # a later step continues, not repeats
    if legal == NULL or legal_mark == NULL or child_mark == NULL:
        t.error = STOP_MEMORY
    else:
        memset(legal_mark, 0, N_ACTIONS * sizeof(uint32_t))
        memset(child_mark, 0, N_ACTIONS * sizeof(uint32_t))
    if t.error == STOP_NONE and t.n == 0:
        copy_state(&d, root)
        if cfg.determinize:
            deal_unseen(&d, player, cfg, splitmix(&x))
        free(t.order)                    # left by a step that ran out of memory
        free(t.order_prior)
        t.order = <int32_t*>malloc(N_ACTIONS * sizeof(int32_t))
        t.order_prior = <double*>malloc(N_ACTIONS * sizeof(double))
        if t.order != NULL and t.order_prior != NULL:
            t.norder = root_order(&d, &cfg.weights, t.order, t.order_prior, &x)
            new_node(t, NO_NODE, -1, player)     # sets t.error if out of memory
        else:
            free(t.order)
            free(t.order_prior)
            t.order = NULL
            t.order_prior = NULL
            t.error = STOP_MEMORY
    room = C_MAX_ITERATIONS - t.nodes[0].visits if t.error == STOP_NONE else 0
    while t.error == STOP_NONE:
        if cfg.iterations > 0 and it >= cfg.iterations:
            break
        if it >= room:
            break                           # the tree is full (the caller's budget allowed for it)
        if (it & 15) == 0 and it > 0:
            clock = now()
            if cfg.seconds > 0 and clock >= deadline:
                break
            if clock >= poll:
                # Ctrl-C: the loop runs without the GIL, so Python's handlers run here.
                poll = clock + POLL_SECONDS
                with gil:
                    if check_signals() != 0:
                        t.error = STOP_SIGNAL
                if t.error != STOP_NONE:
                    break
        rng = &x
        pick = NO_NODE
        if cfg.root == ROOT_HALVING:
            pick = halving_pick(t, cfg, player, plan_spent(t, cfg, start), &paired)
            if t.error != STOP_NONE:
                break
            if pick != NO_NODE:
                rng = &paired
        copy_state(&d, root)
        if cfg.determinize:
            deal_unseen(&d, player, cfg, splitmix(rng))
        else:
            d.rng = splitmix(rng)        # the bag order is chance, even for a perfect-information search
        node = 0
        expanded = False
        while d.phase != PH_OVER and not expanded:
            stamp += 1
            if stamp == 0:
                # 2**32 steps: clear the marks, or stale ones would pass for current.
                memset(legal_mark, 0, N_ACTIONS * sizeof(uint32_t))
                memset(child_mark, 0, N_ACTIONS * sizeof(uint32_t))
                stamp = 1
            node = select_or_expand(t, node, &d, cfg, rng, legal, t.order if node == 0 else NULL, t.norder,
                                    legal_mark, child_mark, stamp, pick if node == 0 else NO_NODE,
                                    &expanded)
            if node == NO_NODE:
                break
        if node == NO_NODE:
            break                        # t.error says why; this iteration is not counted
        if cfg.timing:
            t0 = now()
            rollout(&d, cfg, rng)
            cfg.rollout_seconds += now() - t0
        else:
            rollout(&d, cfg, rng)
        if d.error != ERR_NONE:
            t.error = STOP_INCONSISTENT      # not counted: the rewards of a broken state mean nothing
            break
        evaluate(&d, &cfg.weights, reward)
        while node != NO_NODE:
            t.nodes[node].visits += 1
            for p in range(d.nplayers):
                t.nodes[node].reward[p] += reward[p]
            node = t.nodes[node].parent
        it += 1
    free(legal)
    free(legal_mark)
    free(child_mark)
    cfg.done = it
    t.elapsed += now() - start
    if t.error == STOP_SIGNAL:
        return -1                        # the handler's exception is set
    if t.error == STOP_MEMORY:
        with gil:
            raise MemoryError("the search tree cannot grow: out of memory")
    if t.error == STOP_NO_ACTION:
        with gil:
            raise RuntimeError("the search reached a position without a legal action")
    if t.error == STOP_INCONSISTENT:
        with gil:
            raise IllegalActionError("the search cannot go on: the game state is inconsistent "
                                     "(a rule step found no leader, trader or tile it needs)")
    return 0


# ---------------------------------------------------------------------------
# Python face
# ---------------------------------------------------------------------------

cdef class Search:
    """A search tree over the information set of the player to move in `game`, grown in
    steps so callers can show progress:

    >>> import tigris
    >>> from tigris._search import Search
    >>> game = tigris.Game(players=2, seed=7)
    >>> s = Search(game, exploration=0.7, rollout_depth=10, seed=1)
    >>> s.step(iterations=500)
    500
    >>> s.step(seconds=0.05) > 0
    True
    >>> stats = s.stats()
    >>> stats["iterations"] == s.iterations, game.is_legal(stats["best"])
    (True, True)

    Knobs: ``exploration`` >= 0, ``epsilon`` in [0, 1], ``widening`` >= 0 (finite numbers);
    ``root``: "ucb" (the root as any node) or "halving" (sequential halving over the
    ``candidates`` moves best after a UCB phase, ranked by
    ``log prior + halving_scale * (50 + most visits) * mean reward``, in phases of the
    tree's whole budget:
    ``plan_iterations`` or ``plan_seconds``, else the first step's budget);
    ``rollout_depth`` from -1 (to the end) to MAX_ROLLOUT_DEPTH; ``seed`` any int, of which
    the low 64 bits are used (seeds equal modulo 2**64 search alike); and the evaluator's
    weights by name (``tigris._eval.WEIGHTS``: ``eval_leader=0.5``, ``prior_pass=0.0``...).
    Anything else raises a ValueError naming the knob.  A tree takes at most
    MAX_ITERATIONS iterations in all.

    Attributes: ``player`` (the searching player, to move at the root), ``iterations``
    (run in all steps) and ``final`` (how ``stats()`` picks ``best``: "visits" or "value").
    """

    def __cinit__(self):
        memset(&self.tree, 0, sizeof(Tree))
        self.tree.nsurvivors = -1

    def __dealloc__(self):
        free(self.deals)
        free(self.deal_cum)
        free(self.tree.nodes)
        free(self.tree.order)
        free(self.tree.survivors)
        free(self.tree.survivor_prior)
        free(self.tree.order_prior)

    def __init__(self, Game game not None, *, exploration=0.7, rollout="random", epsilon=0.1,
                 rollout_depth=10, final="visits", widening=0.0, root="ucb", candidates=16,
                 halving_scale=0.1, plan_iterations=0, plan_seconds=0.0, bint determinize=True,
                 deals=None, seed=0, **weights):
        if rollout not in ("random", "greedy"):
            raise ValueError(f"rollout must be 'random' or 'greedy', not {excerpt(rollout)}")
        if root not in ("ucb", "halving"):
            raise ValueError(f"root must be 'ucb' or 'halving', not {excerpt(root)}")
        candidates = checks.whole("candidates", candidates, 1, N_ACTIONS)
        halving_scale = checks.number("halving_scale", halving_scale, 0.0)
        plan_iterations = checks.whole("plan_iterations", plan_iterations, 0, MAX_ITERATIONS)
        plan_seconds = checks.number("plan_seconds", plan_seconds, 0.0)
        if final not in ("visits", "value"):
            raise ValueError(f"final must be 'visits' or 'value', not {excerpt(final)}")
        exploration = checks.number("exploration", exploration, 0.0)
        epsilon = checks.number("epsilon", epsilon, 0.0, 1.0)
        widening = checks.number("widening", widening, 0.0)
        rollout_depth = checks.whole("rollout_depth", rollout_depth, -1, MAX_ROLLOUT_DEPTH)
        seed = checks.whole("seed", seed, -math.inf, math.inf)
        self.cfg.weights = check_weights(weights)
        if game.is_over:
            raise ValueError("the game is over: there is nothing to search")
        copy_state(&self.root, &game.s)
        self.player = current_player(&self.root)
        self.final = final
        self.iterations = 0
        self.cfg.exploration = exploration
        self.cfg.rollout = ROLLOUT_RANDOM if rollout == "random" else ROLLOUT_GREEDY
        self.cfg.epsilon = epsilon
        self.cfg.rollout_depth = rollout_depth
        self.cfg.widening = widening
        self.cfg.root = ROOT_UCB if root == "ucb" else ROOT_HALVING
        self.cfg.candidates = candidates
        self.cfg.halving_scale = halving_scale
        self.cfg.plan_iterations = plan_iterations
        self.cfg.plan_seconds = plan_seconds
        self.cfg.determinize = determinize
        self._set_deals(deals)
        self.cfg.timing = 0
        self.cfg.rollout_seconds = 0
        self.cfg.seed = (<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)) ^ <uint64_t>0xA0761D6478BD642F

    def _set_deals(self, deals):
        """Keep a belief's deals (``deals``: ``(rows, weights)``, a row of DEAL_BYTES
        numbers per deal, see ``deal_row``), each checked against the root: the searching
        player's hand and discards as they are, the others' hand sizes and discard counts,
        and every colour's unseen total.  None: uniform determinizations."""
        cdef int k, q, c, n, p = self.player
        cdef uint8_t* row
        self.cfg.ndeals = 0
        if deals is None:
            return
        if not self.cfg.determinize:
            raise ValueError("deals: a search without determinization takes none")
        try:
            rows, weights = deals
            rows, weights = list(rows), [float(w) for w in weights]
        except (TypeError, ValueError):
            raise ValueError("deals: expected (rows, weights)") from None
        n = len(rows)
        if n == 0 or n != len(weights) or n > MAX_DEALS:
            raise ValueError(f"deals: 1 to {MAX_DEALS} rows with a weight each, not {len(rows)} "
                             f"rows and {len(weights)} weights")
        if not all(math.isfinite(w) and w >= 0 for w in weights) or sum(weights) <= 0:
            raise ValueError("deals: the weights must be finite, at least 0, and not all 0")
        unseen = [self.root.bag[c] + sum(self.root.hand[q][c] + self.root.swapped[q][c]
                                         for q in range(self.root.nplayers) if q != p)
                  for c in range(NCOL)]
        free(self.deals)                    # a second __init__ replaces the first's
        free(self.deal_cum)
        self.deals = <uint8_t*>malloc(n * DEAL_BYTES)
        self.deal_cum = <double*>malloc(n * sizeof(double))
        if self.deals == NULL or self.deal_cum == NULL:
            raise MemoryError("deals")
        total, weight = 0.0, sum(weights)
        for k in range(n):
            values = list(rows[k])
            if len(values) != DEAL_BYTES or not all(isinstance(v, int) and 0 <= v <= 255 for v in values):
                raise ValueError(f"deals: row {k} must hold {DEAL_BYTES} whole numbers 0-255")
            for q in range(self.root.nplayers):
                if q == p:
                    continue
                if sum(values[8 * q:8 * q + 4]) != hand_size(&self.root, q) or \
                        sum(values[8 * q + 4:8 * q + 8]) != sum(self.root.swapped[q][c] for c in range(NCOL)):
                    raise ValueError(f"deals: row {k} gives player {q} a hand or discards of "
                                     f"another size than the position's")
            dealt = [values[8 * MAXP + c] + sum(values[8 * q + c] + values[8 * q + 4 + c]
                                                for q in range(self.root.nplayers) if q != p)
                     for c in range(NCOL)]
            if dealt != unseen:
                raise ValueError(f"deals: row {k} deals {dealt} tiles of each colour unseen by "
                                 f"player {p}, the position {unseen}")
            row = self.deals + k * DEAL_BYTES
            for c in range(DEAL_BYTES):
                row[c] = values[c]
            total += weights[k]
            self.deal_cum[k] = total / weight
        self.deal_cum[n - 1] = 1.0
        self.cfg.deals = self.deals
        self.cfg.deal_cum = self.deal_cum
        self.cfg.ndeals = n

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
        searching player, pv = the most visited line after it), ``best``, ``nodes``."""
        children = []
        c = self.tree.nodes[0].first_child if self.tree.n else NO_NODE
        while c != NO_NODE:
            nd = self.tree.nodes[c]
            children.append({"action": nd.action, "visits": nd.visits, "avail": nd.avail,
                             "value": nd.reward[self.player] / nd.visits if nd.visits else 0.0,
                             "pv": self._line(c, pv_depth)})
            c = nd.next_sibling
        children.sort(key=lambda ch: (-ch["visits"], -ch["value"], ch["action"]))   # as choose() ranks
        return {"iterations": self.iterations, "nodes": self.tree.n, "player": self.player,
                "children": children, "best": choose(children, self.final) if children else None}

    cdef list _line(self, int32_t node, int depth):
        """The most visited continuation below `node`: (action, player) pairs."""
        cdef int32_t c, best
        cdef int best_v
        line = []
        while len(line) < depth:
            best, best_v = NO_NODE, 1
            c = self.tree.nodes[node].first_child
            while c != NO_NODE:
                if self.tree.nodes[c].visits > best_v:
                    best, best_v = c, self.tree.nodes[c].visits
                c = self.tree.nodes[c].next_sibling
            if best == NO_NODE:
                break
            line.append((self.tree.nodes[best].action, self.tree.nodes[best].mover))
            node = best
        return line


def deal_row(Game game not None):
    """The hidden part of a game's state as a row of a belief's deals (Search's
    ``deals``): each player's hand and face-down discards by colour, then the bag."""
    cdef int q, c
    row = [0] * DEAL_BYTES
    for q in range(game.s.nplayers):
        for c in range(NCOL):
            row[8 * q + c] = game.s.hand[q][c]
            row[8 * q + 4 + c] = game.s.swapped[q][c]
    for c in range(NCOL):
        row[8 * MAXP + c] = game.s.bag[c]
    return row


def run(Game game not None, *, iterations=0, seconds=0.0, **options):
    """Search the decision of `game` for its current player in one go; see Search."""
    s = Search(game, **options)
    s.step(iterations, seconds)
    return s.stats()


def choose(children, final="visits"):
    """The action to play from (merged) root statistics: most visits, or the best mean
    value among the children visited at least a tenth as often as the most visited one."""
    if not children:
        raise ValueError("no root statistics to choose from")
    if final == "value":
        most = max(ch["visits"] for ch in children)
        pool = [ch for ch in children if ch["visits"] * 10 >= most]
        return max(pool, key=lambda ch: (ch["value"], ch["visits"], -ch["action"]))["action"]
    return max(children, key=lambda ch: (ch["visits"], ch["value"], -ch["action"]))["action"]
