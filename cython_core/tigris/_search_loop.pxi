# The search loop (included by _search.pyx: one C file, see there): each iteration draws
# a determinization (_search_determinizations.pxi), descends the tree (_search_tree.pxi;
# at a halving root, _search_halving.pxi picks the child), plays a rollout and backs the
# rewards up, each player's chance of finishing first and the searching player's score
# margin beside them, until the step's budget is spent.

cdef extern from "Python.h":
    # Declared without an exception clause: search() records the failure and returns
    # through its clean-up before the exception propagates.
    int check_signals "PyErr_CheckSignals" ()

cdef double POLL_SECONDS = 0.1                 # how often a running search checks for signals


cdef double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


cdef void rollout(GameState* s, const Config* cfg, uint64_t* x) noexcept nogil:
    """Play the simulation phase: up to cfg.rollout_depth decisions, each uniformly random
    or, in greedy rollouts, the policy's choice except for a share epsilon of them."""
    cdef int played = 0, a
    while not game_over(s) and (cfg.rollout_depth < 0 or played < cfg.rollout_depth):
        # The core's samplers: no list of legal actions is made.
        if cfg.rollout == ROLLOUT_GREEDY and (splitmix(x) % 1000000) >= cfg.epsilon * 1000000:
            a = game_greedy_action(s, x)
        else:
            a = game_random_action(s, x)
        if a < 0:
            break               # never in a valid game
        game_apply(s, a)
        played += 1


cdef inline void leaf_value(const GameState* d, const Config* cfg, float* reward, double* chance,
                            double* score) noexcept nogil:
    """The rewards, chances and final scores (`score`, unless NULL) a rollout's end backs
    up (``leaf_values``), the rewards as the single-precision floats the tree adds up.
    With cfg.margin_share, each reward is mixed by that share with the logistic of the
    player's score margin over cfg.margin_scale: a search that still plays for points
    once the chances have settled at 0 or 1."""
    cdef int p
    cdef double value[MAX_PLAYERS]
    cdef double own[MAX_PLAYERS]
    cdef double s = cfg.margin_share
    if score == NULL:
        score = own
    leaf_values(d, cfg, value, reward, chance, score)
    if s > 0:
        for p in range(game_players(d)):
            value[p] = (1 - s) * value[p] + s / (1.0 + exp(-score_margin(score, game_players(d), p)
                                                           / cfg.margin_scale))
    for p in range(game_players(d)):
        reward[p] = <float>value[p]


cdef inline double score_margin(const double* score, int nplayers, int player) noexcept nogil:
    """`player`'s score minus the best other player's."""
    cdef double best = -1e300
    cdef int q
    for q in range(nplayers):
        if q != player and score[q] > best:
            best = score[q]
    return score[player] - best


cdef inline void leaf_values(const GameState* d, const Config* cfg, double* value, float* reward,
                             double* chance, double* score) noexcept nogil:
    """The one place a position is judged at a rollout's end, by the search and by the
    greedy bot (``leaf_rewards``): `value` gets the evaluator's rewards; with a network,
    its chances of finishing first (a finished game: its first place, shared among tied
    winners), mixed with the evaluator's rewards by cfg.net_share; `chance` each player's
    chance of finishing first, mixed the same way; `score`, unless NULL, each player's
    final score: a finished game's, else the network's prediction, without a network the
    score as it stands (``game_final_scores``).  `reward` is scratch."""
    cdef int p
    cdef double net[MAX_PLAYERS]
    cdef double share = cfg.net_share
    if cfg.net == NULL or share <= 0:
        game_heuristic_values(d, &cfg.weights, reward, chance)
        for p in range(game_players(d)):
            value[p] = reward[p]
        if score != NULL:
            game_final_scores(d, score)
        return
    if game_over(d):
        game_terminal_values(d, reward, chance)
        for p in range(game_players(d)):
            value[p] = chance[p]            # 1/k for each of k tied winners, exactly
        if score != NULL:
            game_final_scores(d, score)
        return
    game_net_values(cfg.net, d, net, score)
    if share < 1:
        game_heuristic_values(d, &cfg.weights, reward, chance)
    for p in range(game_players(d)):
        if share < 1:
            chance[p] = share * net[p] + (1 - share) * chance[p]
            value[p] = share * net[p] + (1 - share) * reward[p]
        else:
            chance[p] = net[p]
            value[p] = net[p]


cdef int keep_only(int32_t* order, double* prior, int n, const int32_t* only, int nonly) noexcept nogil:
    """Keep, in their order, the actions of `order` (and their priors) that are in
    `only`; how many are left."""
    cdef int k, j, kept = 0
    for k in range(n):
        for j in range(nonly):
            if order[k] == only[j]:
                order[kept] = order[k]
                prior[kept] = prior[k]
                kept += 1
                break
    return kept


cdef inline void new_root(Tree* t, const GameState* root, int player, Config* cfg, uint64_t* x) noexcept nogil:
    """Create the root of an empty tree, with its actions in prior order (t.order), from
    one determinization; sets t.stop if out of memory."""
    cdef GameState d
    game_copy(&d, root)
    if cfg.determinize:
        draw_determinization(&d, player, cfg, splitmix(x))
    free(t.order)                    # left by a step that ran out of memory
    free(t.order_prior)
    t.order = <int32_t*>malloc(NUM_ACTIONS * sizeof(int32_t))
    t.order_prior = <double*>malloc(NUM_ACTIONS * sizeof(double))
    if t.order != NULL and t.order_prior != NULL:
        t.norder = root_order(&d, cfg, t.order, t.order_prior, x)
        if cfg.nroot_only > 0:
            t.norder = keep_only(t.order, t.order_prior, t.norder, cfg.root_only, cfg.nroot_only)
        new_node(t, NO_NODE, -1, player)     # sets t.stop if out of memory
    else:
        free(t.order)
        free(t.order_prior)
        t.order = NULL
        t.order_prior = NULL
        t.stop = STOP_MEMORY


cdef inline int32_t descend(Tree* t, GameState* d, Config* cfg, uint64_t* rng, Scratch* sc,
                            int32_t pick) noexcept nogil:
    """Walk down from the root in the determinization `d`, applying the actions chosen,
    until a node is expanded or the game ends; the node reached, or NO_NODE (t.stop says
    why).  `pick`: the halving root's choice of child, or NO_NODE."""
    cdef int32_t node = 0
    cdef bint expanded = False
    while not game_over(d) and not expanded:
        sc.stamp += 1
        if sc.stamp == 0:
            # 2**32 steps: clear the marks, or stale ones would pass for current.
            memset(sc.legal_mark, 0, NUM_ACTIONS * sizeof(uint32_t))
            memset(sc.child_mark, 0, NUM_ACTIONS * sizeof(uint32_t))
            sc.stamp = 1
        node = select_or_expand(t, node, d, cfg, rng, sc, node == 0, pick if node == 0 else NO_NODE,
                                &expanded)
        if node == NO_NODE:
            break
    return node


cdef inline void back_up(Tree* t, int32_t node, const float* reward, const double* chance,
                         double margin, int nplayers, int player) noexcept nogil:
    """Add one visit, the rewards and the chances (and the square of the searching
    `player`'s), and that player's score `margin` and its square, to `node` and every node
    above it."""
    cdef int p
    cdef float c[MAX_PLAYERS]
    cdef float sq = <float>(chance[player] * chance[player])
    cdef float m = <float>margin, msq = <float>(margin * margin)
    for p in range(nplayers):
        c[p] = <float>chance[p]
    while node != NO_NODE:
        t.nodes[node].visits += 1
        for p in range(nplayers):
            t.nodes[node].reward[p] += reward[p]
            t.nodes[node].chance[p] += c[p]
        t.nodes[node].chance_sq += sq
        t.nodes[node].margin += m
        t.nodes[node].margin_sq += msq
        node = t.nodes[node].parent


cdef int raise_stop(int error) except -1 with gil:
    """Raise the exception that a search's stop `error` stands for (STOP_SIGNAL: the
    signal handler's is already set); 0 for STOP_NONE."""
    if error == STOP_SIGNAL:
        return -1
    if error == STOP_MEMORY:
        raise MemoryError("the search tree cannot grow: out of memory")
    if error == STOP_NO_ACTION:
        raise RuntimeError("the search reached a position without a legal action")
    if error == STOP_INCONSISTENT:
        raise IllegalActionError("the search cannot go on: the game state is inconsistent "
                                 "(a rule step found no leader, trader or tile it needs)")
    return 0


cdef inline bint time_is_up(Tree* t, const Config* cfg, double deadline, double* poll) noexcept nogil:
    """Whether the step's time is spent, or a signal handler raised (t.stop = STOP_SIGNAL);
    the signals are checked every POLL_SECONDS."""
    cdef double clock = now()
    if cfg.seconds > 0 and clock >= deadline:
        return True
    if clock >= poll[0]:
        # Ctrl-C: the loop runs without the GIL, so Python's handlers run here.
        poll[0] = clock + POLL_SECONDS
        with gil:
            if check_signals() != 0:
                t.stop = STOP_SIGNAL
    return t.stop != STOP_NONE


cdef int search(Tree* t, const GameState* root, int player, Config* cfg) except -1 nogil:
    """Run iterations until the budget is spent, the tree is full (MAX_ITERATIONS) or a
    signal handler raises; cfg.done counts the iterations that ran.  Returns -1 with the
    exception set (KeyboardInterrupt, MemoryError, ...) if it stopped on an error; the tree
    then holds the iterations that completed."""
    cdef GameState d
    cdef Scratch sc
    cdef uint64_t x = cfg.seed
    cdef float reward[MAX_PLAYERS]
    cdef double chance[MAX_PLAYERS]
    cdef double score[MAX_PLAYERS]
    cdef long it = 0, room
    cdef int32_t node
    cdef double start = now()
    cdef double deadline = start + cfg.seconds
    cdef double poll = start + POLL_SECONDS
    cdef double t0
    cdef uint64_t paired = 0               # a halving round's stream, shared by its visits
    cdef uint64_t* rng
    cdef int32_t pick
    sc.legal = <int32_t*>malloc(NUM_ACTIONS * sizeof(int32_t))
    sc.legal_mark = <uint32_t*>malloc(NUM_ACTIONS * sizeof(uint32_t))
    sc.child_mark = <uint32_t*>malloc(NUM_ACTIONS * sizeof(uint32_t))
    sc.prob = <double*>malloc(NUM_ACTIONS * sizeof(double))
    sc.stamp = 0
    cfg.done = 0
    t.stop = STOP_NONE
    x ^= <uint64_t>t.n * <uint64_t>0x9E3779B97F4A7C15      # a later step continues, not repeats
    if sc.legal == NULL or sc.legal_mark == NULL or sc.child_mark == NULL or sc.prob == NULL:
        t.stop = STOP_MEMORY
    else:
        memset(sc.legal_mark, 0, NUM_ACTIONS * sizeof(uint32_t))
        memset(sc.child_mark, 0, NUM_ACTIONS * sizeof(uint32_t))
    if t.stop == STOP_NONE and t.n == 0:
        new_root(t, root, player, cfg, &x)
    room = C_MAX_ITERATIONS - t.nodes[0].visits if t.stop == STOP_NONE else 0
    while t.stop == STOP_NONE:
        if cfg.iterations > 0 and it >= cfg.iterations:
            break
        if it >= room:
            break                           # the tree is full (the caller's budget allowed for it)
        if (it & 15) == 0 and it > 0 and time_is_up(t, cfg, deadline, &poll):
            break
        rng = &x
        pick = NO_NODE
        if cfg.root == ROOT_HALVING:
            pick = halving_pick(t, cfg, player, plan_spent(t, cfg, start), &paired)
            if t.stop != STOP_NONE:
                break
            if pick != NO_NODE:
                rng = &paired
        game_copy(&d, root)
        if cfg.determinize:
            draw_determinization(&d, player, cfg, splitmix(rng))
        else:
            game_reseed(&d, splitmix(rng))  # chance is chance, even for a perfect-information search
        node = descend(t, &d, cfg, rng, &sc, pick)
        if node == NO_NODE:
            break                        # t.stop says why; this iteration is not counted
        if cfg.timing:
            t0 = now()
            rollout(&d, cfg, rng)
            cfg.rollout_seconds += now() - t0
        else:
            rollout(&d, cfg, rng)
        if game_broken(&d):
            t.stop = STOP_INCONSISTENT      # not counted: the rewards of a broken state mean nothing
            break
        leaf_value(&d, cfg, reward, chance, score)
        back_up(t, node, reward, chance, score_margin(score, game_players(&d), player), game_players(&d),
                player)
        it += 1
    free(sc.legal)
    free(sc.legal_mark)
    free(sc.child_mark)
    free(sc.prob)
    cfg.done = it
    t.elapsed += now() - start
    return raise_stop(t.stop)
