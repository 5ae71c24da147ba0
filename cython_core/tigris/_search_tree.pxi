# The tree and UCB (included by _search.pyx: one C file, see there): the node arena, the
# selection of a child by UCB over availability counts (with PUCT's term for the policy's
# prior), progressive widening, and the expansion of untried actions in prior order: the
# evaluator's priors, or the network's policy, evaluated once per node and kept in the
# node's policy list.

# Ties between equal priors are broken by a random jitter far below any prior's step.
cdef double ROOT_JITTER = 1e-9                 # times a draw in [0, 1e6): the root's order
cdef double NODE_JITTER = 1e-6                 # times a draw in [0, 1e3): an inner expansion

cdef enum:
    NLOG = 1 << 16
cdef float LOG[NLOG]                 # log(n) for UCB: one lookup instead of a log per child
cdef int _k
LOG[0] = 0
for _k in range(1, NLOG):
    LOG[_k] = log(<double>_k)


cdef inline double log_count(int32_t n) noexcept nogil:
    return LOG[n] if n < NLOG else log(<double>n)


cdef int32_t new_node(Tree* t, int32_t parent, int action, int mover) noexcept nogil:
    """The new node's id, or NO_NODE (t.stop set) if the tree cannot grow."""
    cdef Node* nd
    cdef Node* grown
    cdef int64_t cap
    if t.n == t.cap:
        cap = <int64_t>t.cap * 2 if t.cap else 1024
        if cap > MAX_NODES:
            cap = MAX_NODES
        grown = <Node*>realloc(t.nodes, <size_t>cap * sizeof(Node)) if cap > t.n else NULL
        if grown == NULL:
            t.stop = STOP_MEMORY
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
    nd.policy = NO_NODE
    if parent != NO_NODE:
        nd.next_sibling = t.nodes[parent].first_child
        t.nodes[parent].first_child = t.n
        t.nodes[parent].nchildren += 1
    t.n += 1
    return t.n - 1


cdef inline double ucb(const Node* nd, int mover, const Config* cfg) noexcept nogil:
    """UCB over availability: the mover's mean reward plus exploration * sqrt(ln(avail) /
    visits), plus PUCT's term for the policy's prior, policy_exploration * prior *
    sqrt(avail) / (1 + visits), when that knob is on.  Every ranked child has been
    visited: the iteration that expands a child also visits it (one that fails halfway
    stops the search)."""
    cdef double score = nd.reward[mover] / nd.visits + cfg.exploration * sqrt(log_count(nd.avail) / nd.visits)
    if cfg.policy_exploration > 0:
        score += cfg.policy_exploration * nd.prior * sqrt(<double>nd.avail) / (1.0 + nd.visits)
    return score


cdef inline int32_t best_child(Tree* t, int32_t node, int mover, const Config* cfg,
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
            score = ucb(nd, mover, cfg)
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


cdef inline int32_t expand(Tree* t, int32_t node, int action, int mover, GameState* d,
                           bint* expanded, double prior) noexcept nogil:
    """Add the child for `action` (available once: now; `prior` the policy's probability
    of it, or 0) and play it in d."""
    cdef int32_t c = new_node(t, node, action, mover)
    if c == NO_NODE:
        return NO_NODE
    t.nodes[c].avail = 1
    t.nodes[c].prior = <float>prior
    game_apply(d, action)
    expanded[0] = True
    return c


cdef int32_t new_policy_list(Tree* t) noexcept nogil:
    """A new, empty policy list's index, or NO_NODE if the arena cannot grow (the node
    then expands by the heuristic's priors)."""
    cdef PolicyList* grown
    cdef int64_t cap
    if t.npolicies == t.cappolicies:
        cap = <int64_t>t.cappolicies * 2 if t.cappolicies else 256
        if cap > MAX_NODES:
            cap = MAX_NODES
        grown = <PolicyList*>realloc(t.policies, <size_t>cap * sizeof(PolicyList)) if cap > t.npolicies else NULL
        if grown == NULL:
            return NO_NODE
        t.policies = grown
        t.cappolicies = <int32_t>cap
    t.policies[t.npolicies].n = 0
    t.npolicies += 1
    return t.npolicies - 1


cdef void fill_policy_list(PolicyList* pl, const int32_t* legal, const double* prob, int n,
                           const uint32_t* child_mark, uint32_t stamp) noexcept nogil:
    """The POLICY_LIST most probable of the n legal actions without a child, best first."""
    cdef int k, j, a
    cdef double p
    pl.n = 0
    for k in range(n):
        a = legal[k]
        p = prob[k]
        if child_mark[a] == stamp or (pl.n == POLICY_LIST and p <= pl.prob[POLICY_LIST - 1]):
            continue
        j = pl.n if pl.n < POLICY_LIST else POLICY_LIST - 1
        while j > 0 and pl.prob[j - 1] < p:       # insertion: the list stays sorted
            pl.action[j] = pl.action[j - 1]
            pl.prob[j] = pl.prob[j - 1]
            j -= 1
        pl.action[j] = <int16_t>a
        pl.prob[j] = <float>p
        if pl.n < POLICY_LIST:
            pl.n += 1


cdef int policy_pick(Tree* t, int32_t node, GameState* d, const Config* cfg, Scratch* sc, int n,
                     double* prior) noexcept nogil:
    """The untried action legal now that `node` expands next by the policy, its
    probability in prior (0 without PUCT's term, which alone reads it); -1 if there is none (or no memory for a list: the heuristic's
    priors decide).  The policy is evaluated once for a node, on the determinization at
    hand, and its best untried actions kept; again only when none of them is both legal
    now and untried."""
    cdef int32_t idx = t.nodes[node].policy
    cdef PolicyList* pl
    cdef int k, a, attempt
    for attempt in range(2):
        if idx != NO_NODE:
            pl = &t.policies[idx]
            for k in range(pl.n):
                a = pl.action[k]
                if sc.legal_mark[a] == sc.stamp and sc.child_mark[a] != sc.stamp:
                    prior[0] = pl.prob[k] if cfg.policy_exploration > 0 else 0.0
                    return a
            if attempt == 1:
                return -1
        else:
            idx = new_policy_list(t)
            if idx == NO_NODE:
                return -1
            t.nodes[node].policy = idx
        # PUCT's term needs the probabilities; the order alone, the logits (no exponential).
        game_net_policy(cfg.net, d, sc.legal, n, sc.prob, cfg.policy_exploration > 0)
        fill_policy_list(&t.policies[idx], sc.legal, sc.prob, n, sc.child_mark, sc.stamp)
    return -1


cdef int32_t select_or_expand(Tree* t, int32_t node, GameState* d, const Config* cfg, uint64_t* x,
                              Scratch* sc, bint at_root, int32_t pick, bint* expanded) noexcept nogil:
    """One step down from `node` in determinization d: count availability, then either
    expand an untried legal action or pick the best child by UCB (at a halving root,
    `pick` unless it is NO_NODE).  Applies the action.  At the root, t.order holds its
    legal actions best prior first (they are the same in every determinization: the
    decision is the searching player's).  Elsewhere the next untried action is the
    policy's (PRIORS_NET, once the node has policy_visits) or the best by the
    evaluator's prior.  Returns NO_NODE (t.stop set) when it cannot go on: no legal
    action, or no memory for a child."""
    cdef int n, k, a, mover = game_to_move(d), best_a = -1
    cdef int32_t c, best, legal_children = 0
    cdef double pr, best_pr = -1.0, policy_prior = 0.0
    cdef Node* nd
    cdef PriorContext context
    cdef uint32_t stamp = sc.stamp
    if at_root:
        # The root: every child is legal in every determinization, and children were
        # expanded in `order`, so the next untried action is order[nchildren].
        legal_children = t.nodes[node].nchildren
        if pick != NO_NODE:
            c = t.nodes[node].first_child
            while c != NO_NODE:
                t.nodes[c].avail += 1
                c = t.nodes[c].next_sibling
            game_apply(d, t.nodes[pick].action)
            return pick
        # A halving root tries every move in its UCB phase: the halving does the narrowing.
        if ((cfg.root == ROOT_HALVING or may_widen(&t.nodes[node], legal_children, cfg))
                and legal_children < t.norder):
            c = t.nodes[node].first_child
            while c != NO_NODE:
                t.nodes[c].avail += 1
                c = t.nodes[c].next_sibling
            return expand(t, node, t.order[legal_children], mover, d, expanded,
                          t.order_prior[legal_children] if cfg.priors == PRIORS_NET else 0.0)
        best = best_child(t, node, mover, cfg, NULL, 0, True)
    else:
        n = game_legal(d, sc.legal)
        for k in range(n):
            sc.legal_mark[sc.legal[k]] = stamp
        c = t.nodes[node].first_child
        while c != NO_NODE:
            nd = &t.nodes[c]
            sc.child_mark[nd.action] = stamp
            if sc.legal_mark[nd.action] == stamp:
                nd.avail += 1
                legal_children += 1
            c = nd.next_sibling
        if may_widen(&t.nodes[node], legal_children, cfg) and legal_children < n:
            if cfg.priors == PRIORS_NET and t.nodes[node].visits >= cfg.policy_visits:
                best_a = policy_pick(t, node, d, cfg, sc, n, &policy_prior)
            if best_a < 0:
                game_prior_context(d, &context)
                for k in range(n):
                    a = sc.legal[k]
                    if sc.child_mark[a] == stamp:
                        continue
                    pr = game_prior(d, &cfg.weights, &context, a, mover) + (splitmix(x) % 1000) * NODE_JITTER
                    if pr > best_pr:
                        best_pr = pr
                        best_a = a
            return expand(t, node, best_a, mover, d, expanded, policy_prior)
        best = best_child(t, node, mover, cfg, sc.legal_mark, stamp, False)
    if best == NO_NODE:
        t.stop = STOP_NO_ACTION
        return NO_NODE
    game_apply(d, t.nodes[best].action)
    return best


cdef int root_order(GameState* d, const Config* cfg, int32_t* order, double* key, uint64_t* x) noexcept nogil:
    """The root's legal actions sorted by prior, best first, ties in random order, and
    their priors in key (each with its jitter); how many.  With cfg.root_lookahead, each
    prior is scaled by exp(root_lookahead * (its move's one-ply value - the best's)):
    the evaluator's value for the mover after the move on this determinization."""
    cdef int n, k, j, mover
    cdef int32_t a
    cdef double v, best
    cdef GameState s
    cdef float reward[MAX_PLAYERS]
    cdef double chance[MAX_PLAYERS]
    cdef double* value
    n = game_legal(d, order)
    if cfg.priors == PRIORS_NET:
        game_net_policy(cfg.net, d, order, n, key, True)
    else:
        game_priors(d, &cfg.weights, order, n, key)
    if cfg.root_lookahead > 0 and n > 1:
        value = <double*>malloc(n * sizeof(double))
        if value != NULL:                       # out of memory: the priors alone
            mover = game_to_move(d)
            best = -1e300
            for k in range(n):
                game_copy(&s, d)
                game_apply(&s, order[k])
                leaf_value(&s, cfg, reward, chance, NULL)
                value[k] = reward[mover]
                if value[k] > best:
                    best = value[k]
            for k in range(n):
                key[k] *= exp(cfg.root_lookahead * (value[k] - best))
            free(value)
    for k in range(n):
        if cfg.priors == PRIORS_NET:
            key[k] *= 1.0 + (splitmix(x) % 1000000) * ROOT_JITTER
        else:
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
