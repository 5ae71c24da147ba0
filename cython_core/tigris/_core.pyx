# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The rules of Tigris & Euphrates on plain C data.

Every function below runs without the GIL and touches no Python object.  The rule
numbers (R..) refer to RULES.md.  A state mutates only through put8/put16/put64, which
record the old value on the undo trail when the state has one (``s.aux``).
"""

from libc.string cimport memcpy, memset
from libc.stdlib cimport malloc, realloc, free
from libc.stdint cimport uint8_t, int16_t, uint16_t, int32_t, uint64_t

from tigris.boards import layout, BOARD_NAMES

# ---------------------------------------------------------------------------
# Static tables: geometry, boards, swaps, monuments
# ---------------------------------------------------------------------------

cdef enum:
    MAXBOARDS = 4

cdef uint8_t RIVER[MAXBOARDS][NSQ]
cdef uint64_t RIVER_BITS[MAXBOARDS][NWORDS]
cdef uint64_t NOT_COL0[NWORDS]      # every square but those of the first column
cdef uint64_t NOT_COL15[NWORDS]     # ... of the last column
cdef uint64_t ON_BOARD[NWORDS]      # every square
cdef uint8_t TEMPLE[MAXBOARDS][NSQ]
cdef uint8_t SPECIAL[MAXBOARDS][NSQ]
cdef uint8_t TSQ[MAXBOARDS][16]     # starting temple squares of each board
cdef uint8_t NTSQ[MAXBOARDS]
cdef uint8_t SWAP_ID[HAND + 1][HAND + 1][HAND + 1][HAND + 1]   # counts -> swap index
cdef uint8_t SUPPLY[NCOL]           # 57 red, 36 blue, 30 green, 30 black

cdef int _init_tables() except -1:
    cdef int r, c, i, n, k, a, b, g
    for r in range(ROWS):
        for c in range(COLS):
            i = r * COLS + c
            n = 0
            if r > 0:
                NBR[i][n] = i - COLS; n += 1
            if r < ROWS - 1:
                NBR[i][n] = i + COLS; n += 1
            if c > 0:
                NBR[i][n] = i - 1; n += 1
            if c < COLS - 1:
                NBR[i][n] = i + 1; n += 1
            NNBR[i] = n
    k = 0
    for n in range(1, HAND + 1):
        for r in range(n, -1, -1):
            for b in range(n - r, -1, -1):
                for g in range(n - r - b, -1, -1):
                    SWAP_COUNTS[k][RED] = r
                    SWAP_COUNTS[k][BLUE] = b
                    SWAP_COUNTS[k][GREEN] = g
                    SWAP_COUNTS[k][BLACK] = n - r - b - g
                    SWAP_ID[r][b][g][n - r - b - g] = k
                    k += 1
    assert k == N_SWAPS
    k = 0
    for a in range(NCOL):
        for b in range(a + 1, NCOL):
            MONUMENT_COLOURS[k][0] = a
            MONUMENT_COLOURS[k][1] = b
            k += 1
    memset(NOT_COL0, 0, sizeof(NOT_COL0)); memset(NOT_COL15, 0, sizeof(NOT_COL15))
    memset(ON_BOARD, 0, sizeof(ON_BOARD))
    for i in range(NSQ):
        bit_set(ON_BOARD, i)
        if i % COLS != 0:
            bit_set(NOT_COL0, i)
        if i % COLS != COLS - 1:
            bit_set(NOT_COL15, i)
    SUPPLY[RED] = 57; SUPPLY[BLUE] = 36; SUPPLY[GREEN] = 30; SUPPLY[BLACK] = 30
    assert len(BOARD_NAMES) <= MAXBOARDS
    for k, name in enumerate(BOARD_NAMES):
        rivers, temples, special = layout(name)
        memset(RIVER[k], 0, NSQ); memset(TEMPLE[k], 0, NSQ); memset(SPECIAL[k], 0, NSQ)
        n = 0
        for i in sorted(temples):
            TEMPLE[k][i] = 1
            TSQ[k][n] = i
            n += 1
        NTSQ[k] = n
        memset(RIVER_BITS[k], 0, sizeof(RIVER_BITS[k]))
        for i in rivers:
            RIVER[k][i] = 1
            bit_set(RIVER_BITS[k], i)
        for i in special:
            SPECIAL[k][i] = 1
    return 0

_init_tables()


def supply():
    """Tiles of each colour in the game (red, blue, green, black)."""
    return [SUPPLY[c] for c in range(NCOL)]


#: The swap table: swap index -> (red, blue, green, black) tiles discarded (A_SWAP + index).
SWAPS = tuple(tuple(SWAP_COUNTS[k][c] for c in range(NCOL)) for k in range(N_SWAPS))

#: The monuments: monument index -> its two colours (A_MONUMENT + index * NSQ + square).
MONUMENTS = tuple((MONUMENT_COLOURS[m][0], MONUMENT_COLOURS[m][1]) for m in range(NMONUMENTS))


def board_squares(int board):
    """(rivers, temples, special) square lists of a board index, as the core sees them."""
    return ([i for i in range(NSQ) if RIVER[board][i]],
            [i for i in range(NSQ) if TEMPLE[board][i]],
            [i for i in range(NSQ) if SPECIAL[board][i]])


# ---------------------------------------------------------------------------
# Square sets as bit masks
# ---------------------------------------------------------------------------

cdef extern from *:
    int popcount64 "__builtin_popcountll"(uint64_t) nogil
    int lowest_bit "__builtin_ctzll"(uint64_t) nogil


cdef inline void bit_set(uint64_t* m, int i) noexcept nogil:
    m[i >> 6] |= (<uint64_t>1) << (i & 63)


cdef inline void bit_put(uint64_t* m, int i, bint on) noexcept nogil:
    cdef uint64_t b = (<uint64_t>1) << (i & 63)
    if on:
        m[i >> 6] |= b
    else:
        m[i >> 6] &= ~b


cdef inline int bits_count(const uint64_t* m) noexcept nogil:
    return popcount64(m[0]) + popcount64(m[1]) + popcount64(m[2])


cdef inline void bits_next_to(const uint64_t* m, uint64_t* out) noexcept nogil:
    """The squares orthogonally next to a square of m (R3's neighbours).  A row is 16
    bits, so up and down are shifts by 16 across the words, left and right shifts by 1
    that must not wrap from one row's end to the next row's start."""
    cdef int w
    cdef uint64_t up, down, left, right
    for w in range(NWORDS):
        down = m[w] << 16                               # square i - 16 in m: i below it
        if w > 0:
            down |= m[w - 1] >> 48
        up = m[w] >> 16
        if w < NWORDS - 1:
            up |= m[w + 1] << 48
        right = m[w] << 1
        if w > 0:
            right |= m[w - 1] >> 63
        left = m[w] >> 1
        if w < NWORDS - 1:
            left |= m[w + 1] << 63
        out[w] = (up | down | (right & NOT_COL0[w]) | (left & NOT_COL15[w])) & ON_BOARD[w]


cdef inline int bits_select(const uint64_t* m, int k) noexcept nogil:
    """The square of the k-th (from 0, in square order) member of m; k < bits_count(m)."""
    cdef int w = 0, n
    cdef uint64_t v
    while True:
        n = popcount64(m[w])
        if k < n:
            break
        k -= n
        w += 1
    v = m[w]
    while k > 0:
        v &= v - 1                                      # drop the lowest member
        k -= 1
    return (w << 6) + lowest_bit(v)


# ---------------------------------------------------------------------------
# The undo trail: the only way the state changes
# ---------------------------------------------------------------------------

cdef void aux_init(Aux* x) noexcept nogil:
    memset(x, 0, sizeof(Aux))


cdef void aux_free(Aux* x) noexcept nogil:
    free(x.trail); free(x.marks); free(x.drawlog); free(x.forced); free(x.autolog)
    memset(x, 0, sizeof(Aux))


cdef void* _grow(void* p, int* cap, int need, size_t item) noexcept nogil:
    cdef int c = cap[0]
    if need <= c:
        return p
    if c < 64:
        c = 64
    while c < need:
        c *= 2
    p = realloc(p, c * item)
    cap[0] = c
    return p


cdef void aux_copy(Aux* dst, const Aux* src) noexcept nogil:
    aux_init(dst)
    dst.trail = <TrailEntry*>_grow(NULL, &dst.captrail, src.ntrail, sizeof(TrailEntry))
    memcpy(dst.trail, src.trail, src.ntrail * sizeof(TrailEntry))
    dst.ntrail = src.ntrail
    dst.marks = <int32_t*>_grow(NULL, &dst.capmarks, src.nmarks, sizeof(int32_t))
    memcpy(dst.marks, src.marks, src.nmarks * sizeof(int32_t))
    dst.nmarks = src.nmarks


cdef inline void _record(State* s, void* field, int width, uint64_t old) noexcept nogil:
    cdef Aux* x = s.aux
    x.trail = <TrailEntry*>_grow(x.trail, &x.captrail, x.ntrail + 1, sizeof(TrailEntry))
    x.trail[x.ntrail].off = <uint16_t>(<char*>field - <char*>s)
    x.trail[x.ntrail].width = width
    x.trail[x.ntrail].old = old
    x.ntrail += 1


cdef inline void put8(State* s, uint8_t* field, int v) noexcept nogil:
    if s.aux != NULL:
        _record(s, field, 1, field[0])
    field[0] = <uint8_t>v


cdef inline void put16(State* s, int16_t* field, int v) noexcept nogil:
    if s.aux != NULL:
        _record(s, field, 2, <uint16_t>field[0])
    field[0] = <int16_t>v


cdef inline void put64(State* s, uint64_t* field, uint64_t v) noexcept nogil:
    if s.aux != NULL:
        _record(s, field, 8, field[0])
    field[0] = v


cdef inline void put_square(State* s, int i, int code) noexcept nogil:
    cdef int before = s.sq[i]
    put8(s, &s.sq[i], code)
    if s.cache_valid:
        keep_regions(s, i, before)


cdef void push_mark(State* s) noexcept nogil:
    cdef Aux* x = s.aux
    x.marks = <int32_t*>_grow(x.marks, &x.capmarks, x.nmarks + 1, sizeof(int32_t))
    x.marks[x.nmarks] = x.ntrail
    x.nmarks += 1


cdef int undo_to_mark(State* s) noexcept nogil:
    """Pop the trail back to the last mark.  Returns 0 if there is nothing to undo."""
    cdef Aux* x = s.aux
    cdef TrailEntry* e
    cdef char* base = <char*>s
    if x == NULL or x.nmarks == 0:
        return 0
    x.nmarks -= 1
    while x.ntrail > x.marks[x.nmarks]:
        x.ntrail -= 1
        e = &x.trail[x.ntrail]
        if e.width == 1:
            if e.off < NSQ and s.cache_valid:
                # A square (sq is the state's first field): the regions follow it back.
                put_square_back(s, e.off, e.old)
            else:
                (<uint8_t*>(base + e.off))[0] = <uint8_t>e.old
        elif e.width == 2:
            (<uint16_t*>(base + e.off))[0] = <uint16_t>e.old
        else:
            (<uint64_t*>(base + e.off))[0] = e.old
    return 1


cdef inline void put_square_back(State* s, int i, int code) noexcept nogil:
    """Undo's put_square: the same change of the cached regions, nothing recorded."""
    cdef int before = s.sq[i]
    s.sq[i] = code
    keep_regions(s, i, before)


# ---------------------------------------------------------------------------
# Randomness and tile draws
# ---------------------------------------------------------------------------

cdef inline uint64_t next_random(State* s) noexcept nogil:
    cdef uint64_t x = s.rng
    cdef uint64_t r = splitmix(&x)
    put64(s, &s.rng, x)
    return r


cdef inline int bag_size(const State* s) noexcept nogil:
    return s.bag[0] + s.bag[1] + s.bag[2] + s.bag[3]


cdef int hand_size(const State* s, int p) noexcept nogil:
    return s.hand[p][0] + s.hand[p][1] + s.hand[p][2] + s.hand[p][3]


cdef int draw_tile(State* s, int p) noexcept nogil:
    """Draw one tile from the bag into p's hand.  Returns 0 if the bag is empty."""
    cdef int total = bag_size(s)
    cdef int c = -1
    cdef int r
    cdef Aux* x = s.aux
    if total == 0:
        return 0
    if x != NULL and x.iforced < x.nforced:
        c = x.forced[x.iforced]
        x.iforced += 1
        if c < 0 or c >= NCOL or s.bag[c] == 0:
            x.forced_error = 1
            c = -1
    if c < 0:
        r = <int>(next_random(s) % <uint64_t>total)
        c = 0
        while r >= s.bag[c]:
            r -= s.bag[c]
            c += 1
    put8(s, &s.bag[c], s.bag[c] - 1)
    put8(s, &s.hand[p][c], s.hand[p][c] + 1)
    if x != NULL:
        x.drawlog = <uint8_t*>_grow(x.drawlog, &x.capdraw, x.ndraw + 1, 1)
        x.drawlog[x.ndraw] = p * 4 + c
        x.ndraw += 1
    return 1


# ---------------------------------------------------------------------------
# Setup (R7-R10)
# ---------------------------------------------------------------------------

cdef void new_game(State* s, int nplayers, int board, int variants, uint64_t seed) noexcept nogil:
    cdef int i, p, c, k
    cdef Aux* keep = s.aux
    memset(s, 0, sizeof(State))
    s.aux = keep
    memset(s.leader, NONE, sizeof(s.leader))
    memset(s.monument, NONE, sizeof(s.monument))
    memset(s.building, NONE, sizeof(s.building))
    s.nplayers = nplayers
    s.board = board
    s.variants = variants
    s.placed = NONE
    s.unif = NONE
    s.t_trader = NONE
    s.c_att_sq = NONE
    s.c_def_sq = NONE
    s.rng = seed
    for c in range(NCOL):
        s.bag[c] = SUPPLY[c]
    # R8: a red tile and a treasure on each starting temple.
    for k in range(NTSQ[board]):
        i = TSQ[board][k]
        s.sq[i] = TILE0 + RED
        s.treasure[i] = 1
        s.bag[RED] -= 1
    # R7: two catastrophes each.  R9: six tiles each.
    for p in range(nplayers):
        s.catastrophes[p] = 2
    for p in range(nplayers):
        for i in range(HAND):
            draw_tile(s, p)
    s.active = 0
    s.actions_left = 2
    s.phase = PH_ACTION


cdef void copy_state(State* dst, const State* src) noexcept nogil:
    memcpy(dst, src, sizeof(State))
    dst.aux = NULL


# ---------------------------------------------------------------------------
# Regions and kingdoms (R3, R4)
# ---------------------------------------------------------------------------

cdef inline bint connects(int code) noexcept nogil:
    """R3: tiles (face up or down) and leaders connect; empty squares and catastrophes do not."""
    return (code >= TILE0 and code < CATASTROPHE) or code >= LEADER0


cdef inline bint is_leader(int code) noexcept nogil:
    return code >= LEADER0


cdef inline bint is_temple(int code) noexcept nogil:
    """R5: a temple is a face-up red tile."""
    return code == TILE0 + RED


cdef inline void flood(const State* s, int start, int old, int skip, int region, uint8_t* label,
                       uint8_t* kingdom, uint8_t* touched, int stamp) noexcept nogil:
    """Give `region` to square `start` and to every square connected to it that still has
    the label `old` (NONE: unlabelled connecting squares other than `skip`), and set
    kingdom[region] to whether a leader is among them.  With `touched`, every square looked
    at gets touched[i] = stamp."""
    cdef uint8_t stack[NSQ]
    cdef int j, k, n, top = 1
    kingdom[region] = 0
    label[start] = region
    stack[0] = start
    while top > 0:
        top -= 1
        j = stack[top]
        if is_leader(s.sq[j]):
            kingdom[region] = 1
        for k in range(NNBR[j]):
            n = NBR[j][k]
            if touched != NULL:
                touched[n] = stamp
            if label[n] == old and n != skip and (old != NONE or connects(s.sq[n])):
                label[n] = region
                stack[top] = n
                top += 1


cdef int compute_regions(const State* s, int skip, uint8_t* label, uint8_t* kingdom) noexcept nogil:
    """Label the regions, treating square `skip` (or none, NONE) as empty.

    kingdom[r] is 1 when region r holds a leader.  Returns the number of regions."""
    cdef int i, nreg = 0
    memset(label, NONE, NSQ)
    for i in range(NSQ):
        if label[i] != NONE or i == skip or not connects(s.sq[i]):
            continue
        flood(s, i, NONE, skip, nreg, label, kingdom, NULL, 0)
        nreg += 1
    return nreg


cdef void ensure_regions(State* s) noexcept nogil:
    """Label the regions and fill the square sets unless they are up to date (they follow
    the board afterwards: keep_regions)."""
    cdef int i
    if not s.cache_valid:
        s.nregions = compute_regions(s, NONE, s.label, s.kingdom)
        for i in range(NSQ):
            put_bits(s, i)
        s.cache_valid = 1


cdef inline void put_bits(State* s, int i) noexcept nogil:
    """Square i's membership of the cached square sets, from its code."""
    cdef int code = s.sq[i]
    bit_put(s.empty_bits, i, code == EMPTY)
    bit_put(s.piece_bits, i, connects(code))
    bit_put(s.temple_bits, i, is_temple(code))
    bit_put(s.up_bits, i, code >= TILE0 and code < DOWN0)


cdef void keep_regions(State* s, int i, int before) noexcept nogil:
    """Bring the cached regions up to date after square i changed from `before`, or drop
    them.  A piece put on an empty square only joins its neighbours' regions (or starts
    one), a tile turned face down connects as before, and a piece taken away can only
    split its own region (labelled again from its neighbours).  Region numbers stay
    below nregions but may have gaps: numbers of merged regions are not reused (a piece on
an empty square adds at most one, so they run out only on a nearly full board)."""
    cdef int code = s.sq[i]
    put_bits(s, i)
    if connects(code) and connects(before):
        if is_leader(code) or is_leader(before):
            s.cache_valid = 0           # a kingdom may have changed (never happens today)
    elif connects(code):
        join_regions(s, i)
    elif connects(before):
        split_region(s, i)
    # else: empty to catastrophe or back, nothing connects either way


cdef void split_region(State* s, int i) noexcept nogil:
    """The piece on square i was taken away: what is left of its region may fall apart.
    Every part is connected to one of i's neighbours, so flooding from them labels the
    parts afresh (new numbers), kingdoms included."""
    cdef int k, n, old = s.label[i]
    if old == NONE or s.nregions > NSQ - 2 * NCOL:
        s.cache_valid = 0               # out of numbers: see join_regions
        return
    s.label[i] = NONE
    s.kingdom[old] = 0
    for k in range(NNBR[i]):
        n = NBR[i][k]
        if s.label[n] == old:
            flood(s, n, old, NONE, s.nregions, s.label, s.kingdom, NULL, 0)
            s.nregions += 1


cdef void join_regions(State* s, int i) noexcept nogil:
    """The piece just put on empty square i joins the regions next to it into one (the
    first one's number), or starts a region of its own."""
    cdef int k, j, r, into = NONE
    for k in range(NNBR[i]):
        r = s.label[NBR[i][k]]
        if r == NONE or r == into:
            continue
        if into == NONE:
            into = r
            continue
        for j in range(NSQ):
            if s.label[j] == r:
                s.label[j] = into
        s.kingdom[into] |= s.kingdom[r]
        s.kingdom[r] = 0
    if into == NONE:
        if s.nregions >= NSQ - NCOL:
            # Out of numbers: regions_without_leader numbers up to four more regions,
            # and the arrays hold NSQ.  A full labelling numbers them from 0 again.
            s.cache_valid = 0
            return
        into = s.nregions
        s.nregions += 1
        s.kingdom[into] = 0
    s.label[i] = into
    if is_leader(s.sq[i]):
        s.kingdom[into] = 1


cdef inline int adjacent_kingdoms(const State* s, int i, const uint8_t* label, const uint8_t* kingdom,
                                  uint8_t* found) noexcept nogil:
    """The distinct kingdoms next to square i (written to found), and how many."""
    cdef int k, n, r, m = 0, j
    cdef bint seen
    for k in range(NNBR[i]):
        n = NBR[i][k]
        r = label[n]
        if r == NONE or not kingdom[r]:
            continue
        seen = False
        for j in range(m):
            if found[j] == r:
                seen = True
        if not seen:
            found[m] = r
            m += 1
    return m


cdef inline bint touches_temple(const State* s, int i) noexcept nogil:
    cdef int k
    for k in range(NNBR[i]):
        if is_temple(s.sq[NBR[i][k]]):
            return True
    return False


cdef inline int leader_in_region(const State* s, int colour, int region, const uint8_t* label) noexcept nogil:
    """Square of the leader of `colour` in `region`, or NONE."""
    cdef int p, at
    for p in range(s.nplayers):
        at = s.leader[p][colour]
        if at != NONE and label[at] == region:
            return at
    return NONE


cdef inline int owner_at(const State* s, int i) noexcept nogil:
    return (s.sq[i] - LEADER0) >> 2


cdef int treasures_on_board(const State* s) noexcept nogil:
    cdef int k, n = 0
    for k in range(NTSQ[s.board]):
        n += s.treasure[TSQ[s.board][k]]
    return n


# ---------------------------------------------------------------------------
# Who decides now
# ---------------------------------------------------------------------------

cdef int current_player(const State* s) noexcept nogil:
    if s.phase == PH_SUPPORT:
        return s.c_attacker if s.c_stage == 0 else s.c_defender
    if s.phase == PH_TREASURE and has_trader(s):
        return owner_at(s, s.t_trader)
    return s.active


cdef inline bint has_trader(const State* s) noexcept nogil:
    """Whether t_trader names a leader's square (a corrupt state may name "none")."""
    return s.t_trader < NSQ and is_leader(s.sq[s.t_trader])


cdef inline int support_colour(const State* s) noexcept nogil:
    """R50: revolts are fought with red tiles; R62: wars with the war colour."""
    return RED if s.c_kind == REVOLT else s.c_colour


# ---------------------------------------------------------------------------
# Legal actions
# ---------------------------------------------------------------------------

cdef int regions_without_leader(const State* s, int at, uint8_t* label, uint8_t* kingdom,
                                uint8_t* touched, int stamp) noexcept nogil:
    """The cached regions as they are with the leader on `at` lifted (R21).  Only that
    leader's region can change; every square of it stays connected to one of the leader's
    neighbours, so flooding from those neighbours labels it again.  Squares next to the
    changed part (and the leader's own square) get touched[i] = stamp: only their kingdom
    counts can differ from the cached ones.  Needs valid caches."""
    cdef int old = s.label[at], nreg = s.nregions, d, i
    memcpy(label, s.label, NSQ)
    memcpy(kingdom, s.kingdom, nreg)
    label[at] = NONE
    touched[at] = stamp
    for d in range(NNBR[at]):
        i = NBR[at][d]
        touched[i] = stamp
        if label[i] != old:
            continue
        flood(s, i, old, NONE, nreg, label, kingdom, touched, stamp)
        nreg += 1
    return nreg


cdef struct Survey:
    # What the legal main actions of the player to move are made of (legal_main_actions
    # lists them, random_main_action draws one without listing them), as square sets.
    uint64_t land[NWORDS]          # empty land squares touching at most two kingdoms
    uint64_t river[NWORDS]         # the same on rivers
    uint64_t near_temple[NWORDS]   # empty land squares next to a temple
    uint64_t leader_ok[NWORDS]     # ... that also touch at most one kingdom
    uint64_t two[NWORDS]           # empty squares touching two kingdoms or more
    int nland, nriver, ntemple, nleader
    int nkingdoms
    uint64_t kingdom[MAXP * NCOL][NWORDS]   # the squares of each kingdom
    uint64_t around[MAXP * NCOL][NWORDS]    # the empty squares next to each kingdom
    uint8_t owner[MAXP * NCOL][NCOL]        # who owns its leader of each colour, NONE


cdef void survey(State* s, Survey* sv) noexcept nogil:
    """Where tiles (R28-R31) and leaders (R16-R22) may go: the empty squares by how many
    kingdoms they touch (counted bit-sliced: one, two, three or more), and those next to
    a temple.  A kingdom is a region with a leader, so the leaders name them all."""
    cdef int i, k, p, c, r, w, nk = 0
    cdef uint64_t v
    cdef uint8_t slot[NSQ]                  # region -> its kingdom's index, NONE if none
    cdef uint64_t near[NWORDS]
    cdef uint64_t one[NWORDS]
    cdef uint64_t three[NWORDS]
    cdef const uint64_t* rivers = RIVER_BITS[s.board]
    ensure_regions(s)
    memset(slot, NONE, NSQ)
    for p in range(s.nplayers):
        for c in range(NCOL):
            i = s.leader[p][c]
            if i >= NSQ or s.label[i] == NONE:
                continue
            if slot[s.label[i]] == NONE:
                slot[s.label[i]] = nk
                memset(sv.kingdom[nk], 0, sizeof(sv.kingdom[nk]))
                memset(sv.owner[nk], NONE, sizeof(sv.owner[nk]))
                nk += 1
            sv.owner[slot[s.label[i]]][c] = p
    if nk:
        for w in range(NWORDS):
            v = s.piece_bits[w]
            while v:
                i = (w << 6) + lowest_bit(v)
                v &= v - 1
                k = slot[s.label[i]]
                if k != NONE:
                    sv.kingdom[k][w] |= (<uint64_t>1) << (i & 63)
    memset(one, 0, sizeof(one))
    memset(sv.two, 0, sizeof(sv.two))
    memset(three, 0, sizeof(three))
    for k in range(nk):
        bits_next_to(sv.kingdom[k], near)
        for w in range(NWORDS):
            v = near[w] & s.empty_bits[w]
            sv.around[k][w] = v
            three[w] |= sv.two[w] & v
            sv.two[w] |= one[w] & v
            one[w] |= v
    bits_next_to(s.temple_bits, near)
    for w in range(NWORDS):
        sv.land[w] = s.empty_bits[w] & ~rivers[w] & ~three[w]
        sv.river[w] = s.empty_bits[w] & rivers[w] & ~three[w]
        sv.near_temple[w] = s.empty_bits[w] & ~rivers[w] & near[w]
        sv.leader_ok[w] = sv.near_temple[w] & ~sv.two[w]
    sv.nkingdoms = nk
    sv.nland = bits_count(sv.land)
    sv.nriver = bits_count(sv.river)
    sv.ntemple = bits_count(sv.near_temple)
    sv.nleader = bits_count(sv.leader_ok)


cdef inline int bits_list(const uint64_t* m, int base, int32_t* out) noexcept nogil:
    """Write base + square for every member of m, in square order; how many."""
    cdef int w, n = 0
    cdef uint64_t v
    for w in range(NWORDS):
        v = m[w]
        while v:
            out[n] = base + (w << 6) + lowest_bit(v)
            n += 1
            v &= v - 1
    return n


cdef inline bint leader_may_move(const State* s, const Survey* sv, int i, const uint8_t* lab,
                                 const uint8_t* kin, const uint8_t* touched, int stamp) noexcept nogil:
    """R21: whether a leader lifted from the board (regions_without_leader gave lab, kin
    and touched) may go to near_temple square i: it touches at most one kingdom then."""
    cdef uint8_t found[4]
    if touched[i] != stamp:
        return not (sv.two[i >> 6] >> (i & 63)) & 1
    return adjacent_kingdoms(s, i, lab, kin, found) <= 1


cdef void catastrophe_squares(const State* s, uint64_t* out) noexcept nogil:
    """R37-R39: where a catastrophe may go: an empty square or a face-up tile that holds
    no treasure (they lie on the board's temple squares only) and no building (R100).
    Needs the square sets."""
    cdef int w, k, i, c
    for w in range(NWORDS):
        out[w] = s.empty_bits[w] | s.up_bits[w]
    for k in range(NTSQ[s.board]):
        i = TSQ[s.board][k]
        if s.treasure[i] and s.sq[i] != EMPTY:
            bit_put(out, i, False)
    for c in range(NCOL):
        i = s.building[c]
        if i < NSQ and s.sq[i] == TILE0 + c:
            bit_put(out, i, False)


cdef int legal_main_actions(State* s, int32_t* out) noexcept nogil:
    """R13: tiles (R28-R31), leaders (R16-R22), catastrophes (R37-R40; never on a building's
    tile, R39/R100), swaps (R43), pass."""
    cdef int n = 0, p = s.active, i, c, k, m, at, r, b, g, blk
    cdef Survey sv
    cdef int32_t squares[NSQ]
    cdef uint64_t cat[NWORDS]
    cdef uint8_t lab[NSQ]
    cdef uint8_t kin[NSQ]
    cdef uint8_t touched[NSQ]
    survey(s, &sv)
    memset(touched, 0, NSQ)
    for c in range(NCOL):
        if s.hand[p][c] > 0:
            n += bits_list(&sv.river[0] if c == BLUE else &sv.land[0], A_TILE + c * NSQ, out + n)
    for c in range(NCOL):
        at = s.leader[p][c]
        if at == NONE:
            n += bits_list(sv.leader_ok, A_LEADER + c * NSQ, out + n)
        else:
            regions_without_leader(s, at, lab, kin, touched, c + 1)
            m = bits_list(sv.near_temple, 0, squares)
            for k in range(m):
                if leader_may_move(s, &sv, squares[k], lab, kin, touched, c + 1):
                    out[n] = A_LEADER + c * NSQ + squares[k]
                    n += 1
            out[n] = A_WITHDRAW + c
            n += 1
    if s.catastrophes[p] > 0:
        catastrophe_squares(s, cat)
        n += bits_list(cat, A_CATASTROPHE, out + n)
    for r in range(min(s.hand[p][RED], HAND) + 1):
        for b in range(min(s.hand[p][BLUE], HAND - r) + 1):
            for g in range(min(s.hand[p][GREEN], HAND - r - b) + 1):
                for blk in range(min(s.hand[p][BLACK], HAND - r - b - g) + 1):
                    if r + b + g + blk > 0:
                        out[n] = A_SWAP + SWAP_ID[r][b][g][blk]
                        n += 1
    out[n] = A_PASS
    n += 1
    return n


cdef int random_main_action(State* s, uint64_t* x, bint board_only) noexcept nogil:
    """A main action drawn uniformly from legal_main_actions without listing them, or with
    `board_only` from those that are neither a swap nor the pass (-1 if there is none):
    count the options of each kind, draw one index, make only that action.  A leader
    already on the board is counted with every square next to a temple; a square it may
    not move to is drawn again (rejection keeps the draw uniform over the legal actions,
    and its withdrawal is always legal), so its region is only relabelled without it (a
    flood) when such a move comes up."""
    cdef int p = s.active, c, k, at, i, total = 0, ncat = 0, nswap = 1, lifted = -1, stamp = 0
    cdef int block[NCOL]
    cdef Survey sv
    cdef uint64_t cat[NWORDS]
    cdef uint8_t lab[NSQ]
    cdef uint8_t kin[NSQ]
    cdef uint8_t touched[NSQ]
    cdef int32_t buf[N_ACTIONS]
    if hand_size(s, p) > HAND:
        # Only a corrupt state: the swaps are then not the product below.
        k = legal_main_actions(s, buf)
        return buf[splitmix(x) % <uint64_t>k]
    survey(s, &sv)
    for c in range(NCOL):
        if s.hand[p][c] > 0:
            total += sv.nriver if c == BLUE else sv.nland
        block[c] = sv.nleader if s.leader[p][c] == NONE else sv.ntemple + 1
        total += block[c]
        nswap *= s.hand[p][c] + 1
    nswap -= 1                                              # all but swapping nothing
    if board_only:
        nswap = 0
    else:
        total += nswap + 1                                  # and the pass
    if s.catastrophes[p] > 0:
        catastrophe_squares(s, cat)
        ncat = bits_count(cat)
        total += ncat
    if total == 0:
        return -1
    while True:
        k = <int>(splitmix(x) % <uint64_t>total)
        for c in range(NCOL):
            if s.hand[p][c] == 0:
                continue
            if c == BLUE:
                if k < sv.nriver:
                    return A_TILE + c * NSQ + bits_select(sv.river, k)
                k -= sv.nriver
            else:
                if k < sv.nland:
                    return A_TILE + c * NSQ + bits_select(sv.land, k)
                k -= sv.nland
        for c in range(NCOL):
            if k >= block[c]:
                k -= block[c]
                continue
            at = s.leader[p][c]
            if at == NONE:
                return A_LEADER + c * NSQ + bits_select(sv.leader_ok, k)
            if k == sv.ntemple:
                return A_WITHDRAW + c
            i = bits_select(sv.near_temple, k)
            if lifted != c:
                if lifted < 0 or stamp == 255:
                    memset(touched, 0, NSQ)
                    stamp = 0
                stamp += 1
                regions_without_leader(s, at, lab, kin, touched, stamp)
                lifted = c
            if leader_may_move(s, &sv, i, lab, kin, touched, stamp):
                return A_LEADER + c * NSQ + i
            k = -1                                          # not legal: draw again
            break
        if k < 0:
            continue
        if k < ncat:
            return A_CATASTROPHE + bits_select(cat, k)
        k -= ncat
        if k < nswap:
            return A_SWAP + swap_of_index(s.hand[p], k + 1)
        return A_PASS


cdef int random_scoring_tile(State* s, uint64_t* x) noexcept nogil:
    """A tile placement drawn uniformly from those that score a point at once for the
    player to move (R33: a tile next to exactly one kingdom, whose leader of the tile's
    colour, or else its king for red, blue and green, is theirs), -1 if there is none or
    this is not an action decision."""
    cdef int p = s.active, k, c, w, q, total = 0, n
    cdef Survey sv
    cdef uint64_t cand[MAXP * NCOL][NCOL][NWORDS]
    cdef int count[MAXP * NCOL][NCOL]
    if s.phase != PH_ACTION:
        return -1
    survey(s, &sv)
    for k in range(sv.nkingdoms):
        for c in range(NCOL):
            count[k][c] = 0
            if s.hand[p][c] == 0:
                continue
            q = sv.owner[k][c]
            if q == NONE and c != BLACK:
                q = sv.owner[k][BLACK]
            if q != p:
                continue
            for w in range(NWORDS):
                # next to this kingdom and to no other, where a tile of c may go
                cand[k][c][w] = sv.around[k][w] & ~sv.two[w] & (sv.river[w] if c == BLUE else sv.land[w])
            n = bits_count(cand[k][c])
            count[k][c] = n
            total += n
    if total == 0:
        return -1
    n = <int>(splitmix(x) % <uint64_t>total)
    for k in range(sv.nkingdoms):
        for c in range(NCOL):
            if n < count[k][c]:
                return A_TILE + c * NSQ + bits_select(cand[k][c], n)
            n -= count[k][c]
    return -1


cdef inline int swap_of_index(const uint8_t* hand, int j) noexcept nogil:
    """The swap whose counts are the digits of j in the mixed radix (hand[c] + 1)."""
    cdef int counts[NCOL]
    cdef int c
    for c in range(NCOL):
        counts[c] = j % (hand[c] + 1)
        j //= hand[c] + 1
    return SWAP_ID[counts[0]][counts[1]][counts[2]][counts[3]]


cdef int random_action(State* s, uint64_t* x) noexcept nogil:
    """A legal action of the decision at hand drawn uniformly at random, -1 if there is
    none (the game is over, or a corrupt state is stuck)."""
    cdef int32_t buf[N_ACTIONS]
    cdef int n
    if s.phase == PH_ACTION:
        return random_main_action(s, x, False)
    n = legal_actions(s, buf)
    if n == 0:
        return -1
    return buf[splitmix(x) % <uint64_t>n]


cdef int monument_squares(const State* s, int placed, uint8_t* tops) noexcept nogil:
    """R69: top-left squares of the 2x2 squares holding `placed` whose 4 tiles are face up
    and of one colour."""
    cdef int n = 0, dr, dc, r, c, t, code
    r = placed // COLS
    c = placed % COLS
    code = s.sq[placed]
    for dr in range(2):
        for dc in range(2):
            if r - dr < 0 or c - dc < 0 or r - dr + 1 >= ROWS or c - dc + 1 >= COLS:
                continue
            t = (r - dr) * COLS + (c - dc)
            if s.sq[t] == code and s.sq[t + 1] == code and s.sq[t + COLS] == code and s.sq[t + COLS + 1] == code:
                tops[n] = t
                n += 1
    return n


cdef int legal_monuments(const State* s, int32_t* out) noexcept nogil:
    cdef uint8_t tops[4]
    cdef int n = 0, k, m, colour, nt
    if s.placed >= NSQ:
        return 0            # no tile placed (only a corrupt state asks)
    nt = monument_squares(s, s.placed, tops)
    colour = s.sq[s.placed] - TILE0
    for m in range(NMONUMENTS):
        if s.monument[m] != NONE:
            continue
        if MONUMENT_COLOURS[m][0] != colour and MONUMENT_COLOURS[m][1] != colour:
            continue
        for k in range(nt):
            out[n] = A_MONUMENT + m * NSQ + tops[k]
            n += 1
    return n


cdef inline int line_through(const State* s, int i, int step, int* first) noexcept nogil:
    """R95: the unbroken horizontal (step 1) or vertical (step COLS) line of face-up tiles
    of square i's colour through i.  Returns its length; its first square goes to first."""
    cdef int code = s.sq[i], a = i, b = i
    if step == 1:
        while a % COLS > 0 and s.sq[a - 1] == code:
            a -= 1
        while b % COLS < COLS - 1 and s.sq[b + 1] == code:
            b += 1
    else:
        while a >= COLS and s.sq[a - COLS] == code:
            a -= COLS
        while b + COLS < NSQ and s.sq[b + COLS] == code:
            b += COLS
    first[0] = a
    return (b - a) // step + 1


cdef int legal_buildings(const State* s, int32_t* out) noexcept nogil:
    """R95-R96: where the building of the placed tile's colour may go: any tile of a line
    of 3 or more face-up tiles of that colour through the placed tile.  A building already
    on the board moves only to a line strictly longer than its own (the longer of its
    tile's two lines, measured now; a line of 3 always beats a building left on a shorter
    one by a war); if the building stands on a line through the placed tile, nothing is
    offered (BGA: the placed tile extends the building's own line)."""
    cdef int i = s.placed, code, c, b, beat = 2, d, k, j, n = 0, step
    cdef int first[2]
    cdef int length[2]
    if i >= NSQ:
        return 0            # no tile placed (only a corrupt state asks)
    code = s.sq[i]
    if code < TILE0 or code >= DOWN0:
        return 0
    c = code - TILE0
    b = s.building[c]
    for d in range(2):
        step = 1 if d == 0 else COLS
        length[d] = line_through(s, i, step, &first[d])
        if b != NONE and b >= first[d] and b <= first[d] + (length[d] - 1) * step \
                and (b - first[d]) % step == 0:
            return 0
    if b != NONE:
        for d in range(2):
            k = line_through(s, b, 1 if d == 0 else COLS, &j)
            if k > beat:
                beat = k
    for d in range(2):
        if length[d] <= beat:
            continue
        step = 1 if d == 0 else COLS
        for k in range(length[d]):
            j = first[d] + k * step
            if d == 1 and j == i and length[0] > beat:
                continue        # the placed tile is on both lines: list it once
            out[n] = A_BUILDING + c * NSQ + j
            n += 1
    return n


cdef int legal_treasures(State* s, int32_t* out) noexcept nogil:
    """R77: treasures of the trader's kingdom; special ones first."""
    cdef int n = 0, k, i, region, special = 0
    if not has_trader(s):
        return 0            # a corrupt state: random_playout and apply stop on it
    ensure_regions(s)
    region = s.label[s.t_trader]
    for k in range(NTSQ[s.board]):
        i = TSQ[s.board][k]
        if s.treasure[i] and s.label[i] == region and SPECIAL[s.board][i]:
            special = 1
    for k in range(NTSQ[s.board]):
        i = TSQ[s.board][k]
        if s.treasure[i] and s.label[i] == region and (SPECIAL[s.board][i] or not special):
            out[n] = A_TREASURE + i
            n += 1
    return n


cdef int legal_support(const State* s, int32_t* out) noexcept nogil:
    """R50/R62: the attacker, then the defender, commits 0 to all of his tiles of the
    support colour.  English variant: R93, the attacker commits only a number that makes
    his total strictly greater than the defender's board strength; R94, the defender
    commits only exactly enough to tie the attacker's total.  Committing nothing (0) is
    always legal."""
    cdef int p = current_player(s)
    cdef int top = s.hand[p][support_colour(s)]
    cdef int n = 1, k, lo = 1
    out[0] = A_SUPPORT
    if s.variants & V_ENGLISH:
        if s.c_stage == 0:
            lo = s.c_def_base - s.c_att_base + 1       # fewest tiles that win (R93)
            if lo < 1:
                lo = 1
        else:
            lo = s.c_att_base + s.c_att_commit - s.c_def_base   # exactly a tie (R94)
            if lo < 1 or lo > top:
                return 1
            top = lo
    for k in range(lo, top + 1):
        out[n] = A_SUPPORT + k
        n += 1
    return n


cdef int legal_actions(State* s, int32_t* out) noexcept nogil:
    """Write the legal action ids of the decision at hand to out; return how many."""
    cdef int n = 0, k
    if s.phase == PH_ACTION:
        return legal_main_actions(s, out)
    if s.phase == PH_SUPPORT:
        return legal_support(s, out)
    if s.phase == PH_WAR_ORDER:
        for k in range(NCOL):
            if s.wars & (1 << k):
                out[n] = A_WAR + k
                n += 1
        return n
    if s.phase == PH_MONUMENT:
        n = legal_monuments(s, out)
        out[n] = A_NO_MONUMENT
        return n + 1
    if s.phase == PH_TREASURE:
        return legal_treasures(s, out)
    if s.phase == PH_BUILDING:
        n = legal_buildings(s, out)
        out[n] = A_NO_BUILDING
        return n + 1
    return 0


# ---------------------------------------------------------------------------
# Leaders on and off the board
# ---------------------------------------------------------------------------

cdef inline void set_leader(State* s, int p, int c, int i) noexcept nogil:
    put_square(s, i, LEADER0 + 4 * p + c)
    put8(s, &s.leader[p][c], i)


cdef inline void return_leader(State* s, int p, int c) noexcept nogil:
    """The leader goes back to its owner's supply (R22, R25, R52, R64)."""
    cdef int at = s.leader[p][c]
    if at != NONE:
        put_square(s, at, EMPTY)
        put8(s, &s.leader[p][c], NONE)


cdef void return_orphaned_leaders(State* s) noexcept nogil:
    """R25/R71: every leader with no adjacent temple goes back to its owner."""
    cdef int p, c, at
    for p in range(s.nplayers):
        for c in range(NCOL):
            at = s.leader[p][c]
            if at != NONE and not touches_temple(s, at):
                return_leader(s, p, c)


cdef inline void add_score(State* s, int p, int c, int points) noexcept nogil:
    put16(s, &s.score[p][c], s.score[p][c] + points)


cdef inline void remove_tile_from_game(State* s, int i) noexcept nogil:
    """A face-up tile leaves the board for good (war losses, catastrophes)."""
    cdef int c = s.sq[i] - TILE0
    put_square(s, i, EMPTY)
    put8(s, &s.out[c], s.out[c] + 1)


# ---------------------------------------------------------------------------
# The flow of an action: begin, resolve triggers (R14), end the action, end the turn
# ---------------------------------------------------------------------------

cdef void finish_action(State* s) noexcept nogil:
    if s.phase == PH_OVER:
        return
    put8(s, &s.placed, NONE)
    if s.actions_left == 0:
        end_turn(s)
    else:
        put8(s, &s.phase, PH_ACTION)


cdef void distribute_treasures(State* s) noexcept nogil:
    """R76: a kingdom with a trader and >= 2 treasures hands them to the trader's owner
    one at a time until one is left.  Traders are served clockwise from the active player."""
    cdef int k, p, at, region, count, i
    ensure_regions(s)
    for k in range(s.nplayers):
        p = (s.active + k) % s.nplayers
        at = s.leader[p][GREEN]
        if at == NONE:
            continue
        region = s.label[at]
        count = 0
        for i in range(NTSQ[s.board]):
            if s.treasure[TSQ[s.board][i]] and s.label[TSQ[s.board][i]] == region:
                count += 1
        if count >= 2:
            put8(s, &s.t_trader, at)
            put8(s, &s.phase, PH_TREASURE)
            return
    put8(s, &s.t_trader, NONE)
    finish_action(s)


cdef void offer_building(State* s) noexcept nogil:
    """R95, R99-R100 (buildings variant): after a tile placement and its wars, and before
    the monument choice, the active player may put or move the building of the tile's
    colour when the tile stands on a line of 3 or more."""
    cdef int32_t opts[2 * COLS]
    if s.variants & V_BUILDINGS and s.placed != NONE and legal_buildings(s, opts) > 0:
        put8(s, &s.phase, PH_BUILDING)
    else:
        offer_monument(s)


cdef void offer_monument(State* s) noexcept nogil:
    """R69-R70: after a tile placement (and its wars), offer a monument if one can be built."""
    cdef int32_t opts[NMONUMENTS * 4]
    if s.placed != NONE and legal_monuments(s, opts) > 0:
        put8(s, &s.phase, PH_MONUMENT)
    else:
        distribute_treasures(s)


cdef void score_monuments(State* s) noexcept nogil:
    """R75: the active player scores 1 per monument colour for each of his leaders of that
    colour in the monument's kingdom."""
    cdef int m, k, c, at, p = s.active
    ensure_regions(s)
    for m in range(NMONUMENTS):
        if s.monument[m] == NONE:
            continue
        for k in range(2):
            c = MONUMENT_COLOURS[m][k]
            at = s.leader[p][c]
            if at != NONE and s.label[at] == s.label[s.monument[m]]:
                add_score(s, p, c, 1)


cdef void end_game(State* s) noexcept nogil:
    put8(s, &s.phase, PH_OVER)
    put8(s, &s.actions_left, 0)


cdef void fail(State* s, int code) noexcept nogil:
    """A rule step found the state inconsistent, which only a corrupt loaded state can be:
    end the game (so every loop over decisions stops) and leave the reason in s.error,
    which the Python wrapper turns into an exception, instead of indexing with "none"."""
    if s.error == ERR_NONE:
        put8(s, &s.error, code)
    end_game(s)


cdef bint refill_hands(State* s) noexcept nogil:
    """R81: everyone below 6 draws back up, active player first, then clockwise.
    R84: returns False (the game ends) when the bag cannot supply all that is needed;
    the tiles that are there are still drawn in that order."""
    cdef int k, p
    for k in range(s.nplayers):
        p = (s.active + k) % s.nplayers
        while hand_size(s, p) < HAND:
            if not draw_tile(s, p):
                return False
    return True


cdef void end_turn(State* s) noexcept nogil:
    """R15: monument points, refills, then the game-end checks (R83, R84)."""
    score_monuments(s)
    if not refill_hands(s):
        end_game(s)
        return
    if treasures_on_board(s) <= 2:
        end_game(s)
        return
    put8(s, &s.active, (s.active + 1) % s.nplayers)
    put8(s, &s.actions_left, 2)
    put8(s, &s.phase, PH_ACTION)
    if s.turn < TURN_MAX:       # stop counting rather than wrap to 0
        put16(s, <int16_t*>&s.turn, s.turn + 1)


# ---------------------------------------------------------------------------
# Conflicts: revolts (R47-R55) and wars (R56-R68)
# ---------------------------------------------------------------------------

cdef int adjacent_temples(const State* s, int i) noexcept nogil:
    cdef int k, n = 0
    for k in range(NNBR[i]):
        if is_temple(s.sq[NBR[i][k]]):
            n += 1
    return n


cdef void begin_conflict(State* s, int kind, int colour, int att_sq, int def_sq, int att_base, int def_base) noexcept nogil:
    put8(s, &s.c_kind, kind)
    put8(s, &s.c_colour, colour)
    put8(s, &s.c_attacker, owner_at(s, att_sq))
    put8(s, &s.c_defender, owner_at(s, def_sq))
    put8(s, &s.c_att_sq, att_sq)
    put8(s, &s.c_def_sq, def_sq)
    put8(s, &s.c_att_base, att_base)
    put8(s, &s.c_def_base, def_base)
    put8(s, &s.c_att_commit, 0)
    put8(s, &s.c_stage, 0)
    put8(s, &s.phase, PH_SUPPORT)


cdef void clear_conflict(State* s) noexcept nogil:
    put8(s, &s.c_kind, NO_CONFLICT)
    put8(s, &s.c_colour, 0)
    put8(s, &s.c_attacker, 0)
    put8(s, &s.c_defender, 0)
    put8(s, &s.c_att_sq, NONE)
    put8(s, &s.c_def_sq, NONE)
    put8(s, &s.c_att_base, 0)
    put8(s, &s.c_def_base, 0)
    put8(s, &s.c_att_commit, 0)
    put8(s, &s.c_stage, 0)


cdef bint check_revolt(State* s, int p, int c) noexcept nogil:
    """R47-R49: a leader placed into a kingdom with a same-coloured leader starts a revolt."""
    cdef int at = s.leader[p][c]
    cdef int other
    ensure_regions(s)
    for other in range(s.nplayers):
        if other != p and s.leader[other][c] != NONE and s.label[s.leader[other][c]] == s.label[at]:
            begin_conflict(s, REVOLT, c, at, s.leader[other][c],
                           adjacent_temples(s, at), adjacent_temples(s, s.leader[other][c]))
            return True
    return False


cdef int war_colours(State* s, uint8_t* label, uint8_t* kingdom) noexcept nogil:
    """R56/R67: colours whose two leaders sit in different kingdoms that touch the
    unification tile (sides computed without it).  Returns a bit mask."""
    cdef uint8_t sides[4]
    cdef int nsides, c, p, at, k, mask = 0, count, first
    if s.unif >= NSQ:
        return 0            # no unification tile: no war (only a corrupt state asks)
    compute_regions(s, s.unif, label, kingdom)
    nsides = adjacent_kingdoms(s, s.unif, label, kingdom, sides)
    if nsides < 2:
        return 0
    for c in range(NCOL):
        count = 0
        first = NONE
        for p in range(s.nplayers):
            at = s.leader[p][c]
            if at == NONE:
                continue
            for k in range(nsides):
                if label[at] == sides[k]:
                    if count == 0:
                        first = label[at]
                        count = 1
                    elif label[at] != first:
                        count = 2
        if count == 2:
            mask |= 1 << c
    return mask


cdef int count_side(const State* s, int region, int colour, const uint8_t* label) noexcept nogil:
    """R61: face-up tiles of the war colour on one side."""
    cdef int i, n = 0
    for i in range(NSQ):
        if label[i] == region and s.sq[i] == TILE0 + colour:
            n += 1
    return n


cdef void begin_war(State* s, int c) noexcept nogil:
    """R60-R61: the attacker is the active player if he owns one of the leaders, else the
    first owner clockwise from him."""
    cdef uint8_t label[NSQ]
    cdef uint8_t kingdom[NSQ]
    cdef int p, k, a = NONE, d = NONE, q
    cdef int sq_a, sq_d
    if s.unif >= NSQ:
        fail(s, ERR_WAR)
        return
    war_colours(s, label, kingdom)
    put8(s, &s.wars, s.wars & ~(1 << c))
    for k in range(s.nplayers):
        q = (s.active + k) % s.nplayers
        if s.leader[q][c] != NONE and label[s.leader[q][c]] != NONE:
            if _touches_unif(s, label, s.leader[q][c]):
                if a == NONE:
                    a = q
                else:
                    d = q
    if d == NONE:
        # No two leaders of the colour at the unification tile: a loaded war that is none.
        fail(s, ERR_WAR)
        return
    sq_a = s.leader[a][c]
    sq_d = s.leader[d][c]
    begin_conflict(s, WAR, c, sq_a, sq_d,
                   count_side(s, label[sq_a], c, label), count_side(s, label[sq_d], c, label))


cdef bint _touches_unif(const State* s, const uint8_t* label, int at) noexcept nogil:
    cdef int k, n
    for k in range(NNBR[s.unif]):
        n = NBR[s.unif][k]
        if label[n] != NONE and label[n] == label[at]:
            return True
    return False


cdef void next_war_or_done(State* s) noexcept nogil:
    """R59/R67/R68: fight the remaining wars in the active player's order; when none is
    left the unification marker goes and the action goes on to the monument check."""
    cdef uint8_t label[NSQ]
    cdef uint8_t kingdom[NSQ]
    cdef int mask = war_colours(s, label, kingdom)
    cdef int c
    put8(s, &s.wars, mask)
    if mask == 0:
        put8(s, &s.unif, NONE)
        offer_building(s)
        return
    for c in range(NCOL):
        if mask == (1 << c):
            begin_war(s, c)
            return
    put8(s, &s.phase, PH_WAR_ORDER)


cdef void resolve_revolt(State* s, int winner_attacks) noexcept nogil:
    """R51-R53: the loser's leader goes home, the winner scores one red point."""
    cdef int loser_sq = s.c_def_sq if winner_attacks else s.c_att_sq
    cdef int winner = s.c_attacker if winner_attacks else s.c_defender
    cdef int loser
    if not conflict_leader(s, loser_sq):
        fail(s, ERR_CONFLICT)
        return
    loser = owner_at(s, loser_sq)
    return_leader(s, loser, s.c_colour)
    add_score(s, winner, RED, 1)
    clear_conflict(s)
    distribute_treasures(s)


cdef void resolve_war(State* s, int winner_attacks) noexcept nogil:
    """R64-R66: the loser's leader goes home and his side loses its tiles of the war colour,
    except treasure tiles, temples next to another leader (red war) and (R98) the tile of
    the building of the war colour, which supported the loser but is neither removed nor
    scored."""
    cdef uint8_t label[NSQ]
    cdef uint8_t kingdom[NSQ]
    cdef int c = s.c_colour
    cdef int loser_sq = s.c_def_sq if winner_attacks else s.c_att_sq
    cdef int winner = s.c_attacker if winner_attacks else s.c_defender
    cdef int loser
    cdef int region, i, k, n, removed = 0
    cdef bint kept
    if not conflict_leader(s, loser_sq):
        fail(s, ERR_CONFLICT)
        return
    loser = owner_at(s, loser_sq)
    compute_regions(s, s.unif, label, kingdom)
    region = label[loser_sq]
    for i in range(NSQ):
        if label[i] != region or s.sq[i] != TILE0 + c or s.treasure[i] or s.building[c] == i:
            continue
        kept = False
        if c == RED:
            for k in range(NNBR[i]):
                n = NBR[i][k]
                if is_leader(s.sq[n]) and n != loser_sq:
                    kept = True
        if not kept:
            remove_tile_from_game(s, i)
            removed += 1
    return_leader(s, loser, c)
    add_score(s, winner, c, removed + 1)
    clear_conflict(s)
    next_war_or_done(s)


cdef inline bint conflict_leader(const State* s, int at) noexcept nogil:
    """Whether square `at` holds a leader of the conflict's colour (a corrupt loaded
    conflict may name "none" or another piece)."""
    return at < NSQ and is_leader(s.sq[at]) and ((s.sq[at] - LEADER0) & 3) == s.c_colour


cdef void commit_support(State* s, int n) noexcept nogil:
    """R50/R62: attacker then defender commit tiles from hand, face up and out of the game.
    R51/R63: the attacker wins only with a strictly greater total."""
    cdef int p = current_player(s)
    cdef int colour = support_colour(s)
    put8(s, &s.hand[p][colour], s.hand[p][colour] - n)
    put8(s, &s.out[colour], s.out[colour] + n)
    if s.c_stage == 0:
        put8(s, &s.c_att_commit, n)
        put8(s, &s.c_stage, 1)
        return
    cdef bint attacker_wins = s.c_att_base + s.c_att_commit > s.c_def_base + n
    if s.c_kind == REVOLT:
        resolve_revolt(s, attacker_wins)
    else:
        resolve_war(s, attacker_wins)


# ---------------------------------------------------------------------------
# The actions (R13)
# ---------------------------------------------------------------------------

cdef void place_tile(State* s, int c, int i) noexcept nogil:
    """R28-R35: place a tile; score it (one kingdom) or unite two kingdoms (war check).
    R36/R97 (buildings variant): a scored tile scores one more when the building of its
    colour is in the kingdom."""
    cdef uint8_t found[4]
    cdef int k, p = s.active, at, points = 1
    ensure_regions(s)
    k = adjacent_kingdoms(s, i, s.label, s.kingdom, found)
    at = NONE
    if k == 1:
        at = leader_in_region(s, c, found[0], s.label)
        if at == NONE:
            at = leader_in_region(s, BLACK, found[0], s.label)
        if at != NONE and s.building[c] != NONE and joins_region(s, i, s.label[s.building[c]]):
            points = 2
    put8(s, &s.hand[p][c], s.hand[p][c] - 1)
    put_square(s, i, TILE0 + c)
    put8(s, &s.placed, i)
    if at != NONE:
        add_score(s, owner_at(s, at), c, points)
    if k == 2:
        put8(s, &s.unif, i)
        next_war_or_done(s)
    else:
        offer_building(s)


cdef inline bint joins_region(const State* s, int i, int region) noexcept nogil:
    """Whether a tile on square i joins `region` (a region next to i); with the labels as
    they are before the tile is placed."""
    cdef int k
    for k in range(NNBR[i]):
        if s.label[NBR[i][k]] == region:
            return True
    return False


cdef void place_leader(State* s, int c, int i) noexcept nogil:
    """R16-R24: place a leader from supply or move it; a revolt may follow."""
    cdef int p = s.active
    if s.leader[p][c] != NONE:
        put_square(s, s.leader[p][c], EMPTY)
    set_leader(s, p, c, i)
    if not check_revolt(s, p, c):
        distribute_treasures(s)


cdef void withdraw_leader(State* s, int c) noexcept nogil:
    return_leader(s, s.active, c)
    distribute_treasures(s)


cdef void place_catastrophe(State* s, int i) noexcept nogil:
    """R37-R42: the catastrophe destroys a face-up tile; leaders left without a temple go home."""
    cdef int p = s.active, k, n, code = s.sq[i]
    put8(s, &s.catastrophes[p], s.catastrophes[p] - 1)
    if code != EMPTY:
        remove_tile_from_game(s, i)
    put_square(s, i, CATASTROPHE)
    if code == TILE0 + RED:
        for k in range(NNBR[i]):
            n = NBR[i][k]
            if is_leader(s.sq[n]) and not touches_temple(s, n):
                return_leader(s, owner_at(s, n), (s.sq[n] - LEADER0) & 3)
    distribute_treasures(s)


cdef void swap_tiles(State* s, int k) noexcept nogil:
    """R43-R44: discard face down, draw as many; an empty bag ends the game at once."""
    cdef int p = s.active, c, n = 0, i
    for c in range(NCOL):
        n += SWAP_COUNTS[k][c]
        put8(s, &s.hand[p][c], s.hand[p][c] - SWAP_COUNTS[k][c])
        put8(s, &s.swapped[p][c], s.swapped[p][c] + SWAP_COUNTS[k][c])
    for i in range(n):
        if not draw_tile(s, p):
            end_game(s)
            return
    finish_action(s)


cdef void build_monument(State* s, int m, int top) noexcept nogil:
    """R71: flip the four tiles; a building on them goes back to the supply (R100); orphaned
    leaders go home."""
    cdef int k, i, b
    cdef int squares[4]
    squares[0] = top; squares[1] = top + 1; squares[2] = top + COLS; squares[3] = top + COLS + 1
    for k in range(4):
        i = squares[k]
        put_square(s, i, s.sq[i] - TILE0 + DOWN0)
        for b in range(NCOL):
            if s.building[b] == i:
                put8(s, &s.building[b], NONE)
    put8(s, &s.monument[m], top)
    return_orphaned_leaders(s)


cdef void place_building(State* s, int c, int i) noexcept nogil:
    """R95-R96: the building of colour c goes on square i, from the supply or moved from
    its old line."""
    put8(s, &s.building[c], i)


cdef void take_treasure(State* s, int i) noexcept nogil:
    cdef int p
    if not has_trader(s):
        fail(s, ERR_TRADER)
        return
    p = owner_at(s, s.t_trader)
    put8(s, &s.treasure[i], 0)
    put8(s, &s.treasures[p], s.treasures[p] + 1)
    distribute_treasures(s)


cdef void apply_action(State* s, int a) noexcept nogil:
    """Apply one legal action id (legality is the caller's business)."""
    if s.phase == PH_ACTION:
        put8(s, &s.actions_left, s.actions_left - 1)
        if a < A_LEADER:
            place_tile(s, a // NSQ, a % NSQ)
        elif a < A_WITHDRAW:
            place_leader(s, (a - A_LEADER) // NSQ, (a - A_LEADER) % NSQ)
        elif a < A_CATASTROPHE:
            withdraw_leader(s, a - A_WITHDRAW)
        elif a < A_SWAP:
            place_catastrophe(s, a - A_CATASTROPHE)
        elif a < A_PASS:
            swap_tiles(s, a - A_SWAP)
        else:
            # Passing gives up the remaining action(s).
            put8(s, &s.actions_left, 0)
            finish_action(s)
    elif s.phase == PH_SUPPORT:
        commit_support(s, a - A_SUPPORT)
    elif s.phase == PH_WAR_ORDER:
        begin_war(s, a - A_WAR)
    # The decisions after the wars come in the order of the rules: the building (R96),
    # the monument (R69), the treasures (R76).
    elif s.phase == PH_BUILDING:
        if a != A_NO_BUILDING:
            place_building(s, (a - A_BUILDING) // NSQ, (a - A_BUILDING) % NSQ)
        offer_monument(s)
    elif s.phase == PH_MONUMENT:
        if a != A_NO_MONUMENT:
            build_monument(s, (a - A_MONUMENT) // NSQ, (a - A_MONUMENT) % NSQ)
        distribute_treasures(s)
    elif s.phase == PH_TREASURE:
        take_treasure(s, a - A_TREASURE)


cdef int single_option(State* s) noexcept nogil:
    """The only legal action of a decision that has exactly one, else -1."""
    cdef int32_t buf[N_ACTIONS]
    if s.phase == PH_OVER:
        return -1
    if s.phase == PH_SUPPORT:
        if legal_support(s, buf) == 1:
            return A_SUPPORT       # no tiles of the colour, or (R93, R94) none that count
        return -1
    if s.phase == PH_ACTION and hand_size(s, s.active) > 0:
        return -1          # swapping and passing are both legal
    if s.phase == PH_MONUMENT or s.phase == PH_BUILDING:
        return -1          # declining is always an option besides at least one square
    if legal_actions(s, buf) == 1:
        return buf[0]
    return -1


cdef void apply_with_forced(State* s, int a) noexcept nogil:
    """Apply an action, then every following decision that has exactly one option."""
    cdef Aux* x = s.aux
    apply_action(s, a)
    a = single_option(s)
    while a >= 0:
        if x != NULL:
            x.autolog = <int32_t*>_grow(x.autolog, &x.capauto, x.nauto + 1, sizeof(int32_t))
            x.autolog[x.nauto] = a
            x.nauto += 1
        apply_action(s, a)
        a = single_option(s)


# ---------------------------------------------------------------------------
# Final scoring (R86-R90)
# ---------------------------------------------------------------------------

cdef void final_vector(const State* s, int p, int* v) noexcept nogil:
    """The colour totals after giving each treasure to the lowest colour, sorted ascending."""
    cdef int c, t, lo, j, tmp
    for c in range(NCOL):
        v[c] = s.score[p][c]
    for t in range(s.treasures[p]):
        lo = 0
        for c in range(1, NCOL):
            if v[c] < v[lo]:
                lo = c
        v[lo] += 1
    for c in range(1, NCOL):
        j = c
        while j > 0 and v[j - 1] > v[j]:
            tmp = v[j]; v[j] = v[j - 1]; v[j - 1] = tmp
            j -= 1


# ---------------------------------------------------------------------------
# Playouts and determinization
# ---------------------------------------------------------------------------

cdef int random_playout(State* s, uint64_t seed) noexcept nogil:
    """Play uniformly random legal decisions to the end; return how many were played."""
    cdef int a, played = 0
    cdef uint64_t x = seed
    while s.phase != PH_OVER:
        a = random_action(s, &x)
        if a < 0:
            fail(s, ERR_STUCK)
            break
        apply_action(s, a)
        played += 1
    return played


cdef void determinize(State* s, int p, uint64_t seed) noexcept nogil:
    """Resample everything p cannot see: the other hands, the others' face-down discards and
    the bag, uniformly among the worlds that agree with what p sees.  Reseeds the RNG."""
    cdef int pool[NCOL]
    cdef int q, c, k, total = 0, r
    cdef uint64_t x = seed
    for c in range(NCOL):
        pool[c] = s.bag[c]
        for q in range(s.nplayers):
            if q != p:
                pool[c] += s.hand[q][c] + s.swapped[q][c]
        total += pool[c]
    for q in range(s.nplayers):
        if q == p:
            continue
        for k in range(2):
            r = hand_size(s, q) if k == 0 else (s.swapped[q][0] + s.swapped[q][1] + s.swapped[q][2] + s.swapped[q][3])
            for c in range(NCOL):
                if k == 0:
                    put8(s, &s.hand[q][c], 0)
                else:
                    put8(s, &s.swapped[q][c], 0)
            while r > 0:
                c = _take_from_pool(pool, &total, &x)
                if k == 0:
                    put8(s, &s.hand[q][c], s.hand[q][c] + 1)
                else:
                    put8(s, &s.swapped[q][c], s.swapped[q][c] + 1)
                r -= 1
    for c in range(NCOL):
        put8(s, &s.bag[c], pool[c])
    put64(s, &s.rng, splitmix(&x))


cdef inline int _take_from_pool(int* pool, int* total, uint64_t* x) noexcept nogil:
    cdef int r = <int>(splitmix(x) % <uint64_t>total[0])
    cdef int c = 0
    while r >= pool[c]:
        r -= pool[c]
        c += 1
    pool[c] -= 1
    total[0] -= 1
    return c
