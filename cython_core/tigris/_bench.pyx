# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Timing loops over the C state, so benchmarks measure the core and not Python calls."""

from libc.stdint cimport int32_t, uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from tigris._core cimport *
from tigris._core cimport random_playout as c_random_playout


cdef double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


def random_games(int players, int games, uint64_t seed, int board=0, int variants=0):
    """Play `games` uniformly random games from fresh deals on a board (index) with variant
    bits; returns (seconds, decisions)."""
    cdef State s
    cdef int g
    cdef long decisions = 0
    cdef uint64_t x = seed
    cdef double t0, t1
    with nogil:
        t0 = now()
        for g in range(games):
            s.aux = NULL
            new_game(&s, players, board, variants, splitmix(&x))
            decisions += c_random_playout(&s, splitmix(&x))
        t1 = now()
    return t1 - t0, decisions


def copy_time(int players, int repeats, uint64_t seed):
    """Seconds per state copy (C level), on a mid-game state."""
    cdef State s, d
    cdef int i
    cdef double t0, t1
    s.aux = NULL
    new_game(&s, players, 0, 0, seed)
    _advance(&s, 60, seed)
    with nogil:
        t0 = now()
        for i in range(repeats):
            copy_state(&d, &s)
            s.turn = s.turn ^ (d.turn & 1)     # keep the copy from being optimised away
        t1 = now()
    return (t1 - t0) / repeats


def apply_undo_time(int players, int positions, uint64_t seed):
    """Seconds per apply+undo pair (C level) over every legal action of `positions`
    mid-game states; the state is checked to come back byte for byte."""
    cdef State s, before
    cdef Aux aux
    cdef int32_t buf[N_ACTIONS]
    cdef int n, i, k
    cdef long pairs = 0
    cdef double total = 0, t0
    cdef uint64_t x = seed
    aux_init(&aux)
    try:
        for k in range(positions):
            s.aux = NULL
            new_game(&s, players, 0, 0, splitmix(&x))
            _advance(&s, 20 + k % 100, splitmix(&x))
            if s.phase == PH_OVER:
                continue
            s.aux = &aux
            n = legal_actions(&s, buf)
            copy_state(&before, &s)
            with nogil:
                t0 = now()
                for i in range(n):
                    push_mark(&s)
                    apply_with_forced(&s, buf[i])
                    undo_to_mark(&s)
                total += now() - t0
            pairs += n
            s.aux = NULL
            assert (<bytes>(<char*>&s)[:state_bytes(&s)]) == (<bytes>(<char*>&before)[:state_bytes(&before)])
    finally:
        aux_free(&aux)
    return total / pairs, pairs


cdef void _advance(State* s, int decisions, uint64_t seed) noexcept nogil:
    cdef int32_t buf[N_ACTIONS]
    cdef int n, i
    cdef uint64_t x = seed
    for i in range(decisions):
        if s.phase == PH_OVER:
            return
        n = legal_actions(s, buf)
        apply_action(s, buf[splitmix(&x) % <uint64_t>n])


def state_size():
    """The size of the C state in bytes (what copy() copies)."""
    return sizeof(State)
