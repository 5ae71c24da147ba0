# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The learned evaluation in compiled code: features of a position and the network's
forward pass, in single precision, without the GIL.

A position is seen by its player to move, as the rules let that player see it: the board,
every score and treasure, their own hand and only the number of the tiles they cannot see.
Seats are counted from the mover (0 the mover, 1 the next to play, ...), so one network
serves every seat, and the outputs are turned back to seats here.  Inside the search the
state is a determinization, so the mover's hand is the one dealt to it there, never a
hidden tile of the real game.

The network is small on purpose (docs/DESIGN.md, "The learned evaluation"): a first layer
that sums the rows of the sparse features that are on (Stockfish's NNUE does the same,
there incrementally), a second hidden layer, and per seat a logit of finishing first and a
final score.  Python sees this module through ``tigris.network``, which reads and checks
the weights file; ``Network`` here only holds checked arrays.
"""

from libc.math cimport exp, expf
from libc.string cimport memset
from libc.stdint cimport int32_t, uint8_t

from tigris._core cimport *
from tigris._game cimport Game
from tigris._eval cimport Weights, evaluate_chances, scorer_table
from tigris._plumbing import checks

# One block of LANES units of a layer, summed in four 4-float registers (GCC's and
# clang's vector types: SSE on x86-64, NEON on arm64): the bias, plus the row of every
# sparse input that is on, plus each dense input times its row.  Plain loops kept the
# sums in memory, or, after unroll-and-jam, made them scalar: this takes half the
# instructions.  Rows are `stride` floats apart, loaded unaligned.
cdef extern from *:
    """
    typedef float tg_f4 __attribute__((vector_size(16)));
    typedef float tg_f4u __attribute__((vector_size(16), aligned(4)));

    static inline void tg_block(float *out, const float *bias, long stride,
                                const float *sparse, const int32_t *active, int na,
                                const float *dense, const int32_t *on, const float *value, int nd) {
        tg_f4 a0 = *(const tg_f4u *)(bias), a1 = *(const tg_f4u *)(bias + 4),
              a2 = *(const tg_f4u *)(bias + 8), a3 = *(const tg_f4u *)(bias + 12);
        for (int k = 0; k < na; k++) {
            const float *r = sparse + active[k] * stride;
            a0 += *(const tg_f4u *)(r);
            a1 += *(const tg_f4u *)(r + 4);
            a2 += *(const tg_f4u *)(r + 8);
            a3 += *(const tg_f4u *)(r + 12);
        }
        for (int k = 0; k < nd; k++) {
            const float *r = dense + on[k] * stride;
            tg_f4 x = {value[k], value[k], value[k], value[k]};
            a0 += x * *(const tg_f4u *)(r);
            a1 += x * *(const tg_f4u *)(r + 4);
            a2 += x * *(const tg_f4u *)(r + 8);
            a3 += x * *(const tg_f4u *)(r + 12);
        }
        *(tg_f4u *)(out) = a0;
        *(tg_f4u *)(out + 4) = a1;
        *(tg_f4u *)(out + 8) = a2;
        *(tg_f4u *)(out + 12) = a3;
    }
    """
    void tg_block(float* out, const float* bias, long stride, const float* sparse,
                  const int32_t* active, int na, const float* dense, const int32_t* on,
                  const float* value, int nd) noexcept nogil

SCORE_SCALE = 10.0          # the network's score outputs are final scores over this
cdef float C_SCORE_SCALE = 10.0


cdef inline int seat(const State* s, int q, int viewer) noexcept nogil:
    """Player q as a seat counted from the viewer: 0 the viewer, 1 the next, ..."""
    return (q - viewer + s.nplayers) % s.nplayers


cdef struct Regions:
    # Per region (a label of the state's regions): its face-up tiles and monuments of each
    # colour, and its treasures.
    uint8_t tiles[NSQ][NCOL]
    uint8_t monuments[NSQ][NCOL]
    uint8_t treasures[NSQ]


cdef void count_regions(const State* s, Regions* g) noexcept nogil:
    cdef int i, m, code, at
    memset(g, 0, sizeof(Regions))
    ensure_regions(<State*>s)                   # the regions are a cache, not the position
    for i in range(NSQ):
        code = s.sq[i]
        if s.label[i] == NONE:
            continue
        if code >= TILE0 and code < DOWN0:
            g.tiles[s.label[i]][code - TILE0] += 1
        if s.treasure[i]:
            g.treasures[s.label[i]] += 1
    # Squares are checked against NSQ below: a state's bytes never index beyond a table.
    for m in range(NMONUMENTS):
        at = s.monument[m]
        if at < NSQ and s.label[at] != NONE:
            g.monuments[s.label[at]][MONUMENT_COLOURS[m][0]] += 1
            g.monuments[s.label[at]][MONUMENT_COLOURS[m][1]] += 1


cdef int board_features(const State* s, int v, int32_t* active, int k) noexcept nogil:
    """The squares' pieces (leaders by their owner's seat from `v`), the buildings and the
    monuments, on into `active` from `k`; the count after them."""
    cdef int i, c, m, q, code
    for i in range(NSQ):
        code = s.sq[i]
        if code >= LEADER0:
            q = (code - LEADER0) // 4
            active[k] = F_SQUARES + i * SQ_CODES + 10 + 4 * seat(s, q, v) + (code - LEADER0) % 4
            k += 1
        elif code >= TILE0 and code < DOWN0:
            active[k] = F_SQUARES + i * SQ_CODES + code - TILE0
            k += 1
        elif code >= DOWN0 and code < CATASTROPHE:
            active[k] = F_SQUARES + i * SQ_CODES + 4 + code - DOWN0
            k += 1
        elif code == CATASTROPHE:
            active[k] = F_SQUARES + i * SQ_CODES + 8
            k += 1
        if s.treasure[i]:
            active[k] = F_SQUARES + i * SQ_CODES + 9
            k += 1
    for c in range(NCOL):
        if s.building[c] < NSQ:
            active[k] = F_BUILDINGS + c * NSQ + s.building[c]
            k += 1
    for m in range(NMONUMENTS):
        if s.monument[m] < NSQ:
            active[k] = F_MONUMENTS + m
            k += 1
    return k


cdef int decision_features(const State* s, int v, int32_t* active, int k, float* dense) noexcept nogil:
    """The setup and the decision at hand (phase, actions left, a conflict and its
    strengths, the wars to fight), on into `active` from `k`; the count after them."""
    cdef int c, n = s.nplayers
    active[k] = F_PHASE + (s.phase if s.phase <= PH_OVER else PH_OVER); k += 1
    active[k] = F_ACTIONS_LEFT + (s.actions_left if s.actions_left < 3 else 2); k += 1
    active[k] = F_PLAYERS + n - 2; k += 1
    active[k] = F_BOARD + (1 if s.board else 0); k += 1
    if s.variants & V_ENGLISH:
        active[k] = F_VARIANTS; k += 1
    if s.variants & V_BUILDINGS:
        active[k] = F_VARIANTS + 1; k += 1
    active[k] = F_ACTIVE + seat(s, s.active, v); k += 1
    active[k] = F_CONFLICT + (s.c_kind if s.c_kind <= WAR else 0); k += 1
    if s.c_kind != NO_CONFLICT:
        active[k] = F_CONFLICT_COLOUR + s.c_colour % 4; k += 1
        active[k] = F_ATTACKER + seat(s, s.c_attacker % n, v); k += 1
        active[k] = F_DEFENDER + seat(s, s.c_defender % n, v); k += 1
        active[k] = F_STAGE + (1 if s.c_stage else 0); k += 1
        dense[D_STRENGTH] = s.c_att_base * 0.1
        dense[D_STRENGTH + 1] = s.c_def_base * 0.1
        dense[D_STRENGTH + 2] = s.c_att_commit * 0.1
    for c in range(NCOL):
        if s.wars & (1 << c):
            active[k] = F_WARS + c; k += 1
    return k


cdef void leader_features(const State* s, int q, int r, const Regions* g, float* dense) noexcept nogil:
    """Player q's leaders on the board (q in seat `r`): each its temples beside it and what
    its kingdom holds of its colour (tiles, monuments) and of treasures."""
    cdef int c, m, at, temples, f
    for c in range(NCOL):
        at = s.leader[q][c]
        if at >= NSQ:                       # in the supply
            continue
        temples = 0
        for m in range(NNBR[at]):
            if s.sq[NBR[at][m]] == TILE0 + RED:
                temples += 1
        f = D_LEADERS + LEADER_FEATURES * (NCOL * r + c)
        dense[f] = 1.0
        dense[f + 1] = temples * 0.25
        if s.label[at] != NONE:
            dense[f + 2] = g.tiles[s.label[at]][c] * 0.1
            dense[f + 3] = g.monuments[s.label[at]][c] * 0.5
            dense[f + 4] = g.treasures[s.label[at]] * 0.25


cdef int features(const State* s, int32_t* active, float* dense) noexcept nogil:
    cdef int v = current_player(s), n = s.nplayers, k = 0, c, q, r, total
    cdef int fv[4]
    cdef int unseen
    cdef Regions regions
    memset(dense, 0, N_DENSE * sizeof(float))
    count_regions(s, &regions)
    k = board_features(s, v, active, k)
    k = decision_features(s, v, active, k, dense)
    for q in range(n):                      # each seat: its scores, hand size and leaders
        r = seat(s, q, v)
        active[k] = F_SEATS + r; k += 1
        final_vector(s, q, fv)
        total = 0
        for c in range(NCOL):
            dense[D_SEAT * r + c] = s.score[q][c] * 0.1
            dense[D_SEAT * r + 4 + c] = fv[c] * 0.1
            total += s.hand[q][c]
        dense[D_SEAT * r + 8] = s.treasures[q] * 0.2
        dense[D_SEAT * r + 9] = s.catastrophes[q] * 0.5
        dense[D_SEAT * r + 10] = total / 6.0
        leader_features(s, q, r, &regions, dense)
    total = 0
    for c in range(NCOL):                   # what the player to move sees of the tiles
        dense[D_OWN_HAND + c] = s.hand[v][c] / 6.0
        unseen = s.bag[c]
        for q in range(n):
            if q != v:
                unseen += s.hand[q][c] + s.swapped[q][c]
        dense[D_UNSEEN + c] = unseen * 0.05
        total += s.bag[c]
    dense[D_PROGRESS] = total * 0.01
    dense[D_PROGRESS + 1] = treasures_on_board(s) * 0.1
    dense[D_TURN] = s.turn * 0.01
    return k


cdef int first_layer(const Net* net, const State* s, int32_t* on, float* value) noexcept nogil:
    """The first hidden layer of `s`'s features after the ReLU, as the units that are on:
    their indices into on, their values into value; how many."""
    cdef int32_t active[MAX_ACTIVE]
    cdef float dense[N_DENSE]
    cdef float h1[MAX_HIDDEN]
    cdef int na = features(s, active, dense), nd = 0, h, k, c, block
    cdef int H1 = net.h1
    for k in range(N_DENSE):
        if dense[k] != 0:
            on[nd] = k
            value[nd] = dense[k]
            nd += 1
    # LANES units at a time (tg_block), over the inputs that are on.
    for block in range(H1 // LANES):
        c = block * LANES
        tg_block(&h1[c], net.b1 + c, H1, net.w_sparse + c, active, na, net.w_dense + c, on, value, nd)
    nd = 0
    for h in range(H1):                         # ReLU: about half the units are off
        if h1[h] > 0:
            on[nd] = h
            value[nd] = h1[h]
            nd += 1
    return nd


cdef void net_chances(const Net* net, const State* s, double* chance, double* score) noexcept nogil:
    cdef int32_t on[MAX_HIDDEN]                 # the first layer's units that are on
    cdef float value[MAX_HIDDEN]
    cdef float h2[MAX_HIDDEN]
    cdef float out[N_OUTPUTS]
    cdef int nd = first_layer(net, s, on, value), j, k, c, block, q, r, n = s.nplayers
    cdef int H2 = net.h2, v = current_player(s)
    cdef const float* row
    cdef float x
    cdef double top = -1e300, total = 0.0
    for block in range(H2 // LANES):
        c = block * LANES
        tg_block(&h2[c], net.b2 + c, H2, NULL, NULL, 0, net.w2t + c, on, value, nd)
    for k in range(N_OUTPUTS):
        out[k] = net.b3[k]
    for j in range(H2):
        x = h2[j]
        if x > 0:
            row = net.w3t + j * N_OUTPUTS
            for k in range(N_OUTPUTS):
                out[k] += x * row[k]
    # A softmax over the seats that play; seat r is player (viewer + r) % n.
    for r in range(n):
        if out[r] > top:
            top = out[r]
    for r in range(n):
        total += exp(out[r] - top)
    for r in range(n):
        q = (v + r) % n
        chance[q] = exp(out[r] - top) / total
        if score != NULL:
            score[q] = out[4 + r] * C_SCORE_SCALE


# ---------------------------------------------------------------------------
# The policy
# ---------------------------------------------------------------------------

cdef inline int neighbour_class(int code, int colour, int mover) noexcept nogil:
    """A square's class (NB_*) for an action of `colour` (NONE: none) by `mover`."""
    cdef int q, c
    if code == EMPTY:
        return NB_EMPTY
    if code >= LEADER0:
        q = (code - LEADER0) // 4
        c = (code - LEADER0) % 4
        if q == mover:
            return NB_MINE_SAME if c == colour else NB_MINE
        return NB_THEIRS_SAME if c == colour else NB_THEIRS
    if code >= TILE0 and code < DOWN0:
        c = code - TILE0
        if c == colour:
            return NB_SAME
        return NB_TEMPLE if c == RED else NB_OTHER
    if code >= DOWN0 and code < CATASTROPHE:
        return NB_DOWN
    return NB_CATASTROPHE


cdef void pattern_context(State* s, PatternContext* ctx) noexcept nogil:
    """What the patterns read of the position, once a state: the rank of each colour among
    the mover's scores, and per region the owner of each colour's leader, whether the
    mover has a leader there, its face-up tiles by colour, and who scores a tile of each
    colour joined to it."""
    cdef int i, q, c, r, code, n, k
    ensure_regions(s)
    n = s.nregions
    ctx.mover = current_player(s)
    for c in range(NCOL):           # ties by colour order: the rank is a total order
        ctx.rank[c] = 0
        for k in range(NCOL):
            if s.score[ctx.mover][k] < s.score[ctx.mover][c] or (s.score[ctx.mover][k] == s.score[ctx.mover][c]
                                                                 and k < c):
                ctx.rank[c] += 1
    memset(ctx.owner, NONE, n * 4)
    memset(ctx.mine, 0, n)
    memset(ctx.seen, 0, NSQ)
    for c in range(5):
        for code in range(32):
            ctx.nbclass[c][code] = neighbour_class(code, c if c < 4 else NONE, ctx.mover)
    memset(ctx.tiles, 0, n * 4)
    for i in range(NSQ):
        code = s.sq[i]
        if code >= TILE0 and code < DOWN0 and s.label[i] != NONE:
            ctx.tiles[s.label[i]][code - TILE0] += 1
    for q in range(s.nplayers):
        for c in range(NCOL):
            i = s.leader[q][c]
            if i >= NSQ or s.label[i] == NONE:
                continue
            r = s.label[i]
            ctx.owner[r][c] = q
            if q == ctx.mover:
                ctx.mine[r] = 1
    scorer_table(s, ctx.scorer)


cdef inline int bucket(int n, int top) noexcept nogil:
    return n if n < top else top


cdef SquareView* square_view(const State* s, PatternContext* ctx, int i) noexcept nogil:
    """The view of square i (SquareView), worked out at its first call of the context."""
    cdef SquareView* v = &ctx.square[i]
    cdef int k, k2, j, r
    cdef bint seen
    if ctx.seen[i]:
        return v
    ctx.seen[i] = 1
    v.kingdoms = 0
    v.nregions = 0
    v.temples = 0
    v.treasures = 0
    for k in range(NNBR[i]):
        j = NBR[i][k]
        if s.treasure[j]:
            v.treasures += 1
        if s.sq[j] == TILE0 + RED:
            v.temples += 1
        r = s.label[j]
        if r == NONE:
            continue
        seen = False
        for k2 in range(v.nregions):
            if v.region[k2] == r:
                seen = True
        if not seen:
            v.region[v.nregions] = r
            v.kingdom[v.nregions] = 1 if s.kingdom[r] else 0
            v.kingdoms += v.kingdom[v.nregions]
            v.nregions += 1
    return v


cdef inline int action_square(int a, int* group, int* colour) noexcept nogil:
    """The square of action `a`, its pattern group and its colour (NONE if it has none),
    or NONE for an action with no square."""
    colour[0] = NONE
    if a < A_LEADER:
        colour[0] = a // NSQ
        group[0] = G_TILE + colour[0]
        return a % NSQ
    if a < A_WITHDRAW:
        colour[0] = (a - A_LEADER) // NSQ
        group[0] = G_LEADER + colour[0]
        return (a - A_LEADER) % NSQ
    if a >= A_CATASTROPHE and a < A_SWAP:
        group[0] = G_CATASTROPHE
        return a - A_CATASTROPHE
    if a >= A_TREASURE and a < A_BUILDING:
        group[0] = G_TREASURE
        return a - A_TREASURE
    if a >= A_MONUMENT and a < A_NO_MONUMENT:
        group[0] = G_MONUMENT
        return (a - A_MONUMENT) % NSQ
    if a >= A_BUILDING and a < A_NO_BUILDING:
        colour[0] = (a - A_BUILDING) // NSQ
        group[0] = G_BUILDING + colour[0]
        return (a - A_BUILDING) % NSQ
    return NONE


cdef int action_patterns(const State* s, PatternContext* ctx, int a, int32_t* out) noexcept nogil:
    cdef int group, colour, i, k, r, base, m = 0
    cdef SquareView* v
    cdef const uint8_t* cls
    i = action_square(a, &group, &colour)
    if i == NONE:
        return 0                                # no square: bias and context alone
    base = group * P_STRIDE
    v = square_view(s, ctx, i)
    cls = ctx.nbclass[colour if colour != NONE else 4]
    for k in range(NNBR[i]):
        out[m] = base + PAT_NEIGHBOUR + cls[s.sq[NBR[i][k]] & 31]; m += 1
    for k in range(v.treasures):
        out[m] = base + PAT_TREASURE_NEXT; m += 1
    out[m] = base + PAT_KINGDOMS + bucket(v.kingdoms, 2); m += 1
    out[m] = base + PAT_REGIONS + bucket(v.nregions, 3); m += 1
    out[m] = base + PAT_TEMPLES + bucket(v.temples, 3); m += 1
    out[m] = base + PAT_ON + cls[s.sq[i] & 31]; m += 1
    if s.treasure[i]:
        out[m] = base + PAT_TREASURE_ON; m += 1
    if colour == NONE:
        return m
    out[m] = base + PAT_COLOUR_RANK + ctx.rank[colour]; m += 1
    if v.nregions == 1:
        k = ctx.tiles[v.region[0]][colour]
        out[m] = base + PAT_STRENGTH + (0 if k == 0 else 1 if k <= 2 else 2 if k <= 5 else 3); m += 1
    if group < G_LEADER and v.kingdoms == 1:
        # R33: a tile joined to one kingdom scores for the owner of its colour's leader
        # there (or of the king); joined to two, it starts a war and scores nothing yet.
        for k in range(v.nregions):
            if v.kingdom[k]:
                r = ctx.scorer[4 * v.region[k] + colour]
                if r == ctx.mover:
                    out[m] = base + PAT_SCORES_MINE; m += 1
                elif r != NONE:
                    out[m] = base + PAT_SCORES_THEIRS; m += 1
    elif group >= G_LEADER and group < G_CATASTROPHE:
        if s.leader[ctx.mover][colour] < NSQ:
            out[m] = base + PAT_MOVE; m += 1
        if v.kingdoms == 1:
            for k in range(v.nregions):
                if v.kingdom[k]:
                    r = v.region[k]
                    if ctx.owner[r][colour] != NONE and ctx.owner[r][colour] != ctx.mover:
                        out[m] = base + PAT_REVOLT; m += 1
                    if ctx.mine[r]:
                        out[m] = base + PAT_OWN_KINGDOM; m += 1
    return m


cdef extern from *:
    """
    /* The dot product of an action's embedding with the context, LANES floats at a time. */
    static inline float tg_dot(const float *row, const float *g, int width) {
        tg_f4 a = {0, 0, 0, 0};
        for (int k = 0; k < width; k += 4)
            a += *(const tg_f4u *)(row + k) * *(const tg_f4u *)(g + k);
        return a[0] + a[1] + a[2] + a[3];
    }
    """
    float tg_dot(const float* row, const float* g, int width) noexcept nogil


cdef void net_policy(const Net* net, State* s, const int32_t* actions, int n, double* prob,
                     bint normalise=True) noexcept nogil:
    cdef int32_t on[MAX_HIDDEN]
    cdef float value[MAX_HIDDEN]
    cdef float g[MAX_HIDDEN]
    cdef int32_t pats[MAX_PATTERNS]
    cdef PatternContext ctx
    cdef int nd = first_layer(net, s, on, value), HP = net.hp, k, j, c, block, a, npat
    cdef float even, odd, top = -1e30
    cdef double total = 0.0
    for block in range(HP // LANES):
        c = block * LANES
        tg_block(&g[c], net.bp + c, HP, NULL, NULL, 0, net.wpt + c, on, value, nd)
    for k in range(HP):
        if g[k] < 0:
            g[k] = 0
    pattern_context(s, &ctx)
    for k in range(n):
        a = actions[k]
        npat = action_patterns(s, &ctx, a, pats)
        # Two sums, so that the additions of the patterns' weights do not wait on each other.
        even = net.abias[a] + tg_dot(net.emb + <long>a * HP, g, HP)
        odd = 0
        for j in range(0, npat - 1, 2):
            even += net.pat[pats[j]]
            odd += net.pat[pats[j + 1]]
        if npat & 1:
            even += net.pat[pats[npat - 1]]
        prob[k] = even + odd
        if even + odd > top:
            top = even + odd
    if not normalise:
        return
    for k in range(n):
        prob[k] = expf(<float>prob[k] - top)
        total += prob[k]
    for k in range(n):
        prob[k] /= total


# ---------------------------------------------------------------------------
# Python face
# ---------------------------------------------------------------------------

def encode(Game game not None):
    """The features of `game`'s position as its player to move sees it: the indices of
    the sparse features that are on (int32, ascending in blocks) and the dense ones
    (float32, N_DENSE)."""
    import numpy as np                  # here: the search imports this module, the command line too

    cdef int32_t active[MAX_ACTIVE]
    dense = np.zeros(N_DENSE, dtype=np.float32)
    cdef float[::1] d = dense
    cdef int k, n = features(&game.s, active, &d[0])
    return np.array([active[k] for k in range(n)], dtype=np.int32), dense


cdef class Network:
    """A network's weights (float32, C order, shapes checked by tigris.network) and its
    forward pass; the policy head's arrays (``wp``, ``bp``, ``emb``, ``abias``, ``pat``)
    all given, or none.  The search reads them through ``net`` without the GIL; this
    object keeps the arrays alive."""

    def __init__(self, w_sparse, w_dense, b1, w2, b2, w3, b3, wp=None, bp=None, emb=None, abias=None,
                 pat=None):
        import numpy as np

        policy = (wp, bp, emb, abias, pat)
        has_policy = all(a is not None for a in policy)
        if not has_policy and any(a is not None for a in policy):
            raise ValueError("the policy head needs all of wp, bp, emb, abias and pat, or none")
        given = (w_sparse, w_dense, b1, w2, b2, w3, b3) + (policy if has_policy else ())
        arrays = [np.ascontiguousarray(a, dtype=np.float32) for a in given]
        h1, h2 = arrays[2].shape[0], arrays[4].shape[0]
        hp = arrays[8].shape[0] if has_policy and arrays[8].ndim == 1 else 0
        shapes = [(N_SPARSE, h1), (N_DENSE, h1), (h1,), (h2, h1), (h2,), (N_OUTPUTS, h2), (N_OUTPUTS,),
                  (hp, h1), (hp,), (N_ACTIONS, hp), (N_ACTIONS,), (N_PATTERNS,)]
        names = ("w_sparse", "w_dense", "b1", "w2", "b2", "w3", "b3", "wp", "bp", "emb", "abias", "pat")
        for name, a, shape in zip(names, arrays, shapes):
            if a.shape != shape:
                raise ValueError(f"{name}: shape {a.shape}, expected {shape}")
        if not 1 <= h1 <= MAX_HIDDEN or not 1 <= h2 <= MAX_HIDDEN or (has_policy and not 1 <= hp <= MAX_HIDDEN):
            raise ValueError(f"hidden layers of {h1}, {h2}" + (f" and a policy context of {hp}" if has_policy else "")
                             + f": each must be 1 to {MAX_HIDDEN} wide")
        self.arrays = tuple(arrays)             # a tuple: net points into these, so none is replaced
        # Widths padded to whole LANES with units whose weights and biases are 0: a padded
        # first-layer unit is never on, a padded second-layer or context unit adds nothing.
        p1, p2, pp = -(-h1 // LANES) * LANES, -(-h2 // LANES) * LANES, -(-hp // LANES) * LANES
        ws_p, wd_p = np.zeros((N_SPARSE, p1), np.float32), np.zeros((N_DENSE, p1), np.float32)
        b1_p, w2t_p = np.zeros(p1, np.float32), np.zeros((p1, p2), np.float32)
        b2_p, w3t_p = np.zeros(p2, np.float32), np.zeros((p2, N_OUTPUTS), np.float32)
        ws_p[:, :h1], wd_p[:, :h1], b1_p[:h1] = arrays[0], arrays[1], arrays[2]
        w2t_p[:h1, :h2], b2_p[:h2], w3t_p[:h2] = arrays[3].T, arrays[4], arrays[5].T
        # The policy's: its context layer transposed as w2 is, the embeddings padded.
        wpt_p, bp_p = np.zeros((p1, max(pp, LANES)), np.float32), np.zeros(max(pp, LANES), np.float32)
        emb_p = np.zeros((N_ACTIONS, max(pp, LANES)), np.float32)
        abias_p, pat_p = np.zeros(N_ACTIONS, np.float32), np.zeros(N_PATTERNS, np.float32)
        if has_policy:
            wpt_p[:h1, :hp], bp_p[:hp], emb_p[:, :hp] = arrays[7].T, arrays[8], arrays[9]
            abias_p[:], pat_p[:] = arrays[10], arrays[11]
        self._padded = (ws_p, wd_p, b1_p, w2t_p, b2_p, w3t_p, wpt_p, bp_p, emb_p, abias_p, pat_p)
        cdef float[:, ::1] ws = ws_p, wd = wd_p, m2 = w2t_p, m3 = w3t_p, mp = wpt_p, me = emb_p
        cdef float[::1] v1 = b1_p, v2 = b2_p, v3 = arrays[6], vp = bp_p, va = abias_p, vt = pat_p
        self.net.h1 = p1
        self.net.h2 = p2
        self.net.w_sparse = &ws[0, 0]
        self.net.w_dense = &wd[0, 0]
        self.net.b1 = &v1[0]
        self.net.w2t = &m2[0, 0]
        self.net.b2 = &v2[0]
        self.net.w3t = &m3[0, 0]
        self.net.b3 = &v3[0]
        self.net.hp = pp
        self.net.wpt = &mp[0, 0]
        self.net.bp = &vp[0]
        self.net.emb = &me[0, 0]
        self.net.abias = &va[0]
        self.net.pat = &vt[0]

    @property
    def has_policy(self):
        """Whether the network has a policy head."""
        return self.net.hp > 0

    def evaluate(self, Game game not None):
        """Every player's chance of finishing first and predicted final score, by player
        (two lists); the game must not be over."""
        cdef double chance[MAXP]
        cdef double score[MAXP]
        cdef int p
        if game.s.phase == PH_OVER:
            raise ValueError("the game is over: its result needs no evaluation")
        net_chances(&self.net, &game.s, chance, score)
        return [chance[p] for p in range(game.s.nplayers)], [score[p] for p in range(game.s.nplayers)]

    def policy(self, Game game not None):
        """The policy's probability of each legal action of `game`'s decision, as its
        player to move sees it: {action: probability}, adding up to 1."""
        cdef int32_t actions[N_ACTIONS]
        cdef double prob[N_ACTIONS]
        cdef int k, n
        cdef State s
        n = policy_decision(self, game, &s, actions)
        net_policy(&self.net, &s, actions, n, prob)
        return {actions[k]: prob[k] for k in range(n)}


def policy_inputs(games):
    """What the policy reads of each game's decision, for training: the arrays
    ``position`` (the game's index), ``action`` (each legal action, game by game),
    ``offsets`` (where each action's patterns begin in ``patterns``) and ``patterns``
    (every action's pattern features, ``action_patterns``), int64 for PyTorch."""
    import numpy as np

    cdef Game game
    cdef State s
    cdef PatternContext ctx
    cdef int32_t actions[N_ACTIONS]
    cdef int32_t pats[MAX_PATTERNS]
    cdef int k, j, n, m
    cdef long rows = 0, total = 0, r = 0, t = 0
    games = list(games)
    for index, game in enumerate(games):        # how many rows and patterns: the arrays' sizes
        if game.s.phase == PH_OVER:
            raise ValueError(f"game {index} is over: it has no decision")
        copy_state(&s, &game.s)
        n = legal_actions(&s, actions)
        pattern_context(&s, &ctx)
        rows += n
        for k in range(n):
            total += action_patterns(&s, &ctx, actions[k], pats)
    position = np.empty(rows, dtype=np.int64)
    action = np.empty(rows, dtype=np.int64)
    offsets = np.empty(rows, dtype=np.int64)
    patterns = np.empty(total, dtype=np.int64)
    cdef long[::1] vp = position, va = action, vo = offsets, vt = patterns
    for index, game in enumerate(games):
        copy_state(&s, &game.s)
        n = legal_actions(&s, actions)
        pattern_context(&s, &ctx)
        for k in range(n):
            m = action_patterns(&s, &ctx, actions[k], pats)
            vp[r] = index
            va[r] = actions[k]
            vo[r] = t
            r += 1
            for j in range(m):
                vt[t] = pats[j]
                t += 1
    return position, action, offsets, patterns


cdef int policy_decision(Network network, Game game, State* s, int32_t* actions) except -1:
    """Copy `game`'s state into `s` (no auxiliary record) and its legal actions into
    `actions`, their number returned; a ValueError when `network` has no policy head or
    the game has no decision."""
    if network.net.hp == 0:
        raise ValueError("this network has no policy head")
    if game.s.phase == PH_OVER:
        raise ValueError("the game is over: it has no decision")
    copy_state(s, &game.s)
    s.aux = NULL
    return legal_actions(s, actions)


def time_policy(Network network not None, Game game not None, count):
    """Seconds that `count` evaluations of the policy over `game`'s legal actions take,
    timed without the GIL (features, context, every legal action's logit, the softmax):
    the benchmark's figure."""
    from time import perf_counter

    cdef int32_t actions[N_ACTIONS]
    cdef double prob[N_ACTIONS]
    cdef long k, n
    cdef int na
    cdef State s
    cdef double sink = 0
    na = policy_decision(network, game, &s, actions)
    n = checks.whole("count", count, 1, 10**9)
    start = perf_counter()
    with nogil:
        for k in range(n):
            net_policy(&network.net, &s, actions, na, prob)
            sink += prob[0]
    elapsed = perf_counter() - start
    global _sink
    _sink = sink
    return elapsed


def time_evaluations(Network network, Game game not None, count):
    """Seconds that `count` evaluations of `game`'s position take, timed without the GIL:
    by `network` (its features and forward pass), or with None by the heuristic (the
    evaluator at its default weights: standings and win chances).  The benchmark's figure."""
    from time import perf_counter

    from tigris.knobs import default_weights
    cdef double chance[MAXP]
    cdef float reward[MAXP]
    cdef Weights w = default_weights()
    cdef long k, n
    cdef double sink = 0
    if game.s.phase == PH_OVER:
        raise ValueError("the game is over: its result needs no evaluation")
    n = checks.whole("count", count, 1, 10**9)
    start = perf_counter()
    with nogil:
        for k in range(n):
            if network is None:
                evaluate_chances(&game.s, &w, reward, chance)
            else:
                net_chances(&network.net, &game.s, chance, NULL)
            sink += chance[0]
    elapsed = perf_counter() - start
    global _sink
    _sink = sink                # kept, so the compiler keeps the loop that sums it
    return elapsed
