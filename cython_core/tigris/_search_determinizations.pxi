# The determinizations (included by _search.pyx: one C file, see there): each iteration's
# determinization of what the searching player cannot see, uniform or drawn from a
# belief's weighted determinizations, and the rows those are given as.

# A belief's determinizations (Search's determinizations): each a row of
# DETERMINIZATION_BYTES numbers that the game reads as the part of its state that the
# searching player cannot see (_search_game.pxd); at most MAX_DETERMINIZATIONS of them.
MAX_DETERMINIZATIONS = 1 << 16


cdef void draw_determinization(GameState* d, int player, const Config* cfg, uint64_t seed) noexcept nogil:
    """One determinization of what `player` cannot see: uniform among the worlds that
    agree with what the player sees, or, with a belief, one of its determinizations drawn
    by weight (the row sets what is hidden; the chance events to come stay random)."""
    cdef uint64_t x = seed
    cdef double u
    cdef int lo = 0, hi, mid
    if cfg.ndeterminizations == 0:
        game_determinize(d, player, x)
        return
    u = (splitmix(&x) >> 11) * (1.0 / 9007199254740992.0)
    hi = cfg.ndeterminizations - 1
    while lo < hi:                          # the first row whose cumulative weight exceeds u
        mid = (lo + hi) // 2
        if cfg.determinization_cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    game_put_determinization(d, player, cfg.determinizations + lo * DETERMINIZATION_BYTES)
    game_reseed(d, splitmix(&x))


cdef int keep_determinizations(Search search, determinizations) except -1:
    """Keep a belief's determinizations in `search` (``determinizations``: ``(rows,
    weights)``, a row of DETERMINIZATION_BYTES numbers each, see ``determinization_row``),
    each checked against the root by the game (``game_check_determinization``).  None:
    uniform determinizations."""
    cdef int k, c, n, p = search.player
    cdef uint8_t* row
    search.cfg.ndeterminizations = 0
    if determinizations is None:
        return 0
    if not search.cfg.determinize:
        raise ValueError("determinizations: a search without determinization takes none")
    try:
        rows, weights = determinizations
        rows, weights = list(rows), [float(w) for w in weights]
    except (TypeError, ValueError):
        raise ValueError("determinizations: expected (rows, weights)") from None
    n = len(rows)
    if n == 0 or n != len(weights) or n > MAX_DETERMINIZATIONS:
        raise ValueError(f"determinizations: 1 to {MAX_DETERMINIZATIONS} rows with a weight each, "
                         f"not {len(rows)} rows and {len(weights)} weights")
    if not all(math.isfinite(w) and w >= 0 for w in weights) or sum(weights) <= 0:
        raise ValueError("determinizations: the weights must be finite, at least 0, and not all 0")
    free(search.determinizations)         # a second __init__ replaces the first's
    free(search.determinization_cum)
    search.determinizations = <uint8_t*>malloc(n * DETERMINIZATION_BYTES)
    search.determinization_cum = <double*>malloc(n * sizeof(double))
    if search.determinizations == NULL or search.determinization_cum == NULL:
        raise MemoryError("determinizations")
    total, weight = 0.0, sum(weights)
    for k in range(n):
        values = list(rows[k])
        if len(values) != DETERMINIZATION_BYTES or not all(isinstance(v, int) and 0 <= v <= 255
                                                           for v in values):
            raise ValueError(f"determinizations: row {k} must hold {DETERMINIZATION_BYTES} whole "
                             f"numbers 0-255")
        game_check_determinization(&search.root, p, values, k)
        row = search.determinizations + k * DETERMINIZATION_BYTES
        for c in range(DETERMINIZATION_BYTES):
            row[c] = values[c]
        total += weights[k]
        search.determinization_cum[k] = total / weight
    search.determinization_cum[n - 1] = 1.0
    search.cfg.determinizations = search.determinizations
    search.cfg.determinization_cum = search.determinization_cum
    search.cfg.ndeterminizations = n
    return 0


def determinization_row(Game game not None):
    """The hidden part of a game's state as a row of a belief's determinizations (Search's
    ``determinizations``): for this game, each player's hand and face-down discards by
    colour, then the bag."""
    return game_determinization_row(game_state(game))
