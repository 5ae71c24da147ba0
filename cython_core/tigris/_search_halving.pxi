# The sequential-halving root (included by _search.pyx: one C file, see there): after a
# UCB phase, the root shares each phase of its planned budget evenly among the candidates
# still in the running and drops the worse half, until one is left.

# Halving's ranking (Danihelka et al. 2022): sigma = halving_scale * (HALVING_VISITS + the
# most visits of a candidate); a prior of 0 counts as PRIOR_FLOOR, so its log is finite.
cdef double HALVING_VISITS = 50.0
cdef double PRIOR_FLOOR = 1e-3


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


cdef bint keep_snapshots(Tree* t) noexcept nogil:
    """Keep each candidate as it stands at this halving (``Snapshot``); False if out of
    memory.  Not at the first halving, which picks the candidates from the UCB phase's
    uneven visits."""
    cdef int k, p
    cdef int64_t cap
    cdef Snapshot* grown
    cdef Snapshot* sn
    cdef const Node* nd
    if t.halved == 0:
        return True
    if t.nsnapshots + t.nsurvivors > t.capsnapshots:
        cap = max(<int64_t>2 * t.capsnapshots, <int64_t>t.nsnapshots + t.nsurvivors + 64)
        grown = <Snapshot*>realloc(t.snapshots, <size_t>cap * sizeof(Snapshot))
        if grown == NULL:
            return False
        t.snapshots = grown
        t.capsnapshots = <int32_t>cap
    for k in range(t.nsurvivors):
        nd = &t.nodes[t.survivors[k]]
        sn = &t.snapshots[t.nsnapshots]
        sn.node = t.survivors[k]
        sn.halving = t.halved
        sn.visits = nd.visits
        for p in range(MAX_PLAYERS):
            sn.chance[p] = nd.chance[p]
        sn.chance_sq = nd.chance_sq
        t.nsnapshots += 1
    return True


cdef bint halve(Tree* t, const Config* cfg, int player, int candidates) noexcept nogil:
    """Keep the better half of the root's candidates by halving_score (ties: the older
    child, which has the better prior), each kept as it stood first (``keep_snapshots``).
    The first halving instead takes the best `candidates` of every child the UCB phase
    expanded.  False if out of memory."""
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
    if not keep_snapshots(t):
        return False
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
    if t.halved == 0:
        t.nsurvivors = min(t.nsurvivors, candidates)
    else:
        t.nsurvivors = (t.nsurvivors + 1) // 2
    for k in range(t.nsurvivors):         # the dropped keep the phases they were in
        nd[t.survivors[k]].rounds = <uint8_t>(t.halved + 1)
    return True


cdef bint halving_begun(Tree* t, const Config* cfg, int player, double spent) noexcept nogil:
    """Sequential halving at the root (Karnin, Koren & Somekh 2013, as in SHOT and Gumbel
    MuZero), after a phase of UCB: the tree's planned budget falls into equal phases.  The
    first is UCB trying every move (in prior order, as far as its visits go); then the
    `candidates` children best by halving_score go on, each phase sharing its visits
    evenly among those still in the running and then dropping the worse half, until one
    is left; the last phase is its own, so the decision is the most visited child.
    Does the halvings that `spent` (the share of the plan used) makes due; whether the
    UCB phase is over (t.stop set when out of memory)."""
    cdef int m = min(cfg.candidates, t.norder), last = 1 + halvings(m)
    cdef int due = <int>(spent * (last + 1))
    if due > last:
        due = last
    while t.halved < due and t.nodes[0].nchildren > 0:
        if not halve(t, cfg, player, m):
            t.stop = STOP_MEMORY
            return False
        t.halved += 1
        t.cursor = 0
        t.round = 0
    return t.nsurvivors >= 0


cdef int32_t halving_pick(Tree* t, const Config* cfg, int player, double spent,
                          uint64_t* stream) noexcept nogil:
    """The root child this iteration visits once the halving has begun (NO_NODE before,
    or with t.stop set when out of memory): the candidates in turn, a round at a time.
    Every visit of a round gets the same random `stream`, so the candidates are compared
    on the same determinization of the hidden tiles and the same rollout draws (common
    random numbers): the luck of the draw cancels out of their differences."""
    cdef int32_t pick
    cdef uint64_t z
    if not halving_begun(t, cfg, player, spent):
        return NO_NODE
    pick = t.survivors[t.cursor]
    z = cfg.seed ^ (<uint64_t>t.halved * <uint64_t>0xD1B54A32D192ED03) ^ (<uint64_t>t.round * <uint64_t>0x9E3779B97F4A7C15)
    stream[0] = splitmix(&z)
    t.cursor += 1
    if t.cursor == t.nsurvivors:
        t.cursor = 0
        t.round += 1
    return pick
