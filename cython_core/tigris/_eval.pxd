# The C-level interface of the evaluator: what the search knows of a position beyond the
# rules.  As OpenSpiel keeps its Evaluator (evaluate, prior) apart from MCTS, the search
# (_search.pyx) and the greedy bot reach these judgements only through this module:
# rewards for a position, priors for actions, and the greedy rollout policy.

cimport cython
from libc.stdint cimport int32_t, uint8_t, uint64_t

from tigris._core cimport *


# Every number the evaluator weighs with.  Each field is a knob of the same name (bot
# files, bots.make, tigris tune --param), whose default, range and meaning are a row of
# tigris.knobs' table, in the order of these fields.
cdef struct Weights:
    # standing(p): how well p stands, in points of the final score.
    double eval_second_colour   # per point of p's second weakest colour (after treasures)
    double eval_third_colour    # per point of the third weakest colour
    double eval_fourth_colour   # per point of the strongest colour
    double eval_leader          # per leader p has on the board: a promise of points
    # Heuristic rewards: logistic((standing - best opponent's standing) / eval_scale).
    double eval_scale           # the standing gap that moves a reward from 1/2 to about 0.73
    # ... blended with the calibrated win chance (tigris.calibration): 0 none, 1 only it.
    double eval_calibrated
    # Expansion priors by kind of action: a higher prior is expanded first.
    double prior_scoring_tile   # a tile that scores a point for its player at once (R33)
    double prior_tile           # any other tile
    double prior_leader         # a leader placed or moved
    double prior_withdraw       # a leader withdrawn
    double prior_catastrophe    # a catastrophe
    double prior_swap           # a swap of tiles
    double prior_pass           # passing an action
    double prior_monument       # building a monument
    double prior_no_monument    # declining a monument
    double prior_other          # support, war order, treasure, building decisions


# Rewards, one per player in [0, 1]: the final ranking once the game is over (first 1,
# last 0, ties share), else each player's standing against the best opponent's.
cdef void evaluate(const State* s, const Weights* w, float* reward) noexcept nogil
# The same rewards and, beside them, each player's chance of finishing first (a finished
# game: its first place, 1/k for each of k tied winners; else win_chances), from one
# computation of the standings; `chance` NULL: the rewards alone.
cdef void evaluate_chances(const State* s, const Weights* w, float* reward, double* chance) noexcept nogil
# Each player's chance of finishing first, as evaluate_chances gives it.
cdef void state_chances(const State* s, const Weights* w, double* chance) noexcept nogil
# `first`, unless NULL: each player's share of the first place.
cdef void terminal_rewards(const State* s, double first_share, float* reward, double* first) noexcept nogil
# `chance`, unless NULL: the calibrated win chances (win_chances).
cdef void heuristic_rewards(const State* s, const Weights* w, float* reward, double* chance) noexcept nogil
cdef double standing(const State* s, const Weights* w, int p) noexcept nogil
# The calibrated chance of each player to finish first, from their standings.
cdef void win_chances(const State* s, const double* standings, double* chance) noexcept nogil

# The expansion prior of each of n actions (for the player to move) into out[0..n).
cdef void priors(State* s, const Weights* w, const int32_t* actions, int n, double* out) noexcept nogil

# One action's prior, for a loop that looks at a few actions of many (the search's inner
# expansions): scorer_table once, then prior per action.  Inline here so that the loop
# pays no call per action.
cdef void scorer_table(State* s, uint8_t* scorer) noexcept nogil


@cython.cdivision(True)            # the .pyx file's directives do not reach a .pxd
@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline int tile_scores_for(const State* s, const uint8_t* scorer, int a, int p) noexcept nogil:
    """1 if tile action a would score a point for p right away (R33), else 0."""
    cdef int c = a // NSQ, i = a % NSQ, k, n, r = NONE
    for k in range(NNBR[i]):
        n = NBR[i][k]
        if s.label[n] != NONE and s.kingdom[s.label[n]]:
            if r != NONE and s.label[n] != r:
                return 0            # two kingdoms: a unification scores nothing
            r = s.label[n]
    return r != NONE and scorer[4 * r + c] == p


cdef inline double prior(const State* s, const Weights* w, const uint8_t* scorer, int a,
                         int p) noexcept nogil:
    """Which untried action to expand first: points now, then board play, swaps and
    passing last."""
    if a < A_LEADER:
        return w.prior_scoring_tile if tile_scores_for(s, scorer, a, p) else w.prior_tile
    if a < A_WITHDRAW:
        return w.prior_leader
    if a < A_CATASTROPHE:
        return w.prior_withdraw
    if a < A_SWAP:
        return w.prior_catastrophe
    if a < A_PASS:
        return w.prior_swap
    if a == A_PASS:
        return w.prior_pass
    if a >= A_MONUMENT and a < A_NO_MONUMENT:
        return w.prior_monument
    if a == A_NO_MONUMENT:
        return w.prior_no_monument
    return w.prior_other


# The greedy rollout policy's choice: a random tile that scores for the mover, else a
# random action that is neither a swap nor a pass, else any; -1 if none is legal.
cdef int greedy_action(State* s, uint64_t* x) noexcept nogil


cdef class Evaluator:
    cdef Weights w
