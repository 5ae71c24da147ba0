# The deals from a belief (included by _search.pyx: one C file, see there): each
# iteration's determinization of what the searching player cannot see, uniform or drawn
# from a belief's weighted deals, and the rows those deals are given as.

# A belief's deals (Search's deals): per player a hand and face-down discards by colour,
# then the bag; at most MAX_DEALS of them.
cdef enum:
    DEAL_BYTES = MAXP * 8 + NCOL
MAX_DEALS = 1 << 16


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


cdef int keep_deals(Search search, deals) except -1:
    """Keep a belief's deals in `search` (``deals``: ``(rows, weights)``, a row of DEAL_BYTES
    numbers per deal, see ``deal_row``), each checked against the root: the searching
    player's hand and discards as they are, the others' hand sizes and discard counts,
    and every colour's unseen total.  None: uniform determinizations."""
    cdef int k, q, c, n, p = search.player
    cdef uint8_t* row
    search.cfg.ndeals = 0
    if deals is None:
        return 0
    if not search.cfg.determinize:
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
    unseen = [search.root.bag[c] + sum(search.root.hand[q][c] + search.root.swapped[q][c]
                                     for q in range(search.root.nplayers) if q != p)
              for c in range(NCOL)]
    free(search.deals)                    # a second __init__ replaces the first's
    free(search.deal_cum)
    search.deals = <uint8_t*>malloc(n * DEAL_BYTES)
    search.deal_cum = <double*>malloc(n * sizeof(double))
    if search.deals == NULL or search.deal_cum == NULL:
        raise MemoryError("deals")
    total, weight = 0.0, sum(weights)
    for k in range(n):
        values = list(rows[k])
        if len(values) != DEAL_BYTES or not all(isinstance(v, int) and 0 <= v <= 255 for v in values):
            raise ValueError(f"deals: row {k} must hold {DEAL_BYTES} whole numbers 0-255")
        for q in range(search.root.nplayers):
            if q == p:
                continue
            if sum(values[8 * q:8 * q + 4]) != hand_size(&search.root, q) or \
                    sum(values[8 * q + 4:8 * q + 8]) != sum(search.root.swapped[q][c] for c in range(NCOL)):
                raise ValueError(f"deals: row {k} gives player {q} a hand or discards of "
                                 f"another size than the position's")
        dealt = [values[8 * MAXP + c] + sum(values[8 * q + c] + values[8 * q + 4 + c]
                                            for q in range(search.root.nplayers) if q != p)
                 for c in range(NCOL)]
        if dealt != unseen:
            raise ValueError(f"deals: row {k} deals {dealt} tiles of each colour unseen by "
                             f"player {p}, the position {unseen}")
        row = search.deals + k * DEAL_BYTES
        for c in range(DEAL_BYTES):
            row[c] = values[c]
        total += weights[k]
        search.deal_cum[k] = total / weight
    search.deal_cum[n - 1] = 1.0
    search.cfg.deals = search.deals
    search.cfg.deal_cum = search.deal_cum
    search.cfg.ndeals = n
    return 0


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
