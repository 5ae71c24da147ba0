# The deals from a belief (included by _search.pyx: one C file, see there): each
# iteration's determinization of what the searching player cannot see, uniform or drawn
# from a belief's weighted deals, and the rows those deals are given as.

# A belief's deals (Search's deals): each a row of DEAL_BYTES numbers that the game
# reads as the part of its state that the searching player cannot see
# (_search_game.pxd); at most MAX_DEALS of them.
MAX_DEALS = 1 << 16


cdef void deal_unseen(GameState* d, int player, const Config* cfg, uint64_t seed) noexcept nogil:
    """One determinization of what `player` cannot see: uniform among the worlds that
    agree with what the player sees, or, with a belief, one of its deals drawn by weight
    (the deal sets what is hidden; the chance events to come stay random)."""
    cdef uint64_t x = seed
    cdef double u
    cdef int lo = 0, hi, mid
    if cfg.ndeals == 0:
        game_determinize(d, player, x)
        return
    u = (splitmix(&x) >> 11) * (1.0 / 9007199254740992.0)
    hi = cfg.ndeals - 1
    while lo < hi:                          # the first deal whose cumulative weight exceeds u
        mid = (lo + hi) // 2
        if cfg.deal_cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    game_deal(d, player, cfg.deals + lo * DEAL_BYTES)
    game_reseed(d, splitmix(&x))


cdef int keep_deals(Search search, deals) except -1:
    """Keep a belief's deals in `search` (``deals``: ``(rows, weights)``, a row of DEAL_BYTES
    numbers per deal, see ``deal_row``), each checked against the root by the game
    (``game_check_deal``).  None: uniform determinizations."""
    cdef int k, c, n, p = search.player
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
        game_check_deal(&search.root, p, values, k)
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
    ``deals``): for this game, each player's hand and face-down discards by colour, then
    the bag."""
    return game_deal_row(game_state(game))
