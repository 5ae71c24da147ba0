# The game as the search sees it (_search.pyx and its parts): every operation the search
# needs of a game, and this project's game, Tigris & Euphrates, behind them.  The search's
# own files name nothing of the game beyond this file (tests/test_search_layout.py checks),
# as OpenSpiel's MCTS reaches its game through State (legal_actions, apply_action, clone,
# resample_from_infostate, current_player, returns) and mctx through its recurrent_fn.
#
# The interface is static: each operation is an inline function, which the C compiler
# inlines into the search's one C file, so that it costs what the call it wraps costs (no
# table of function pointers in the hot loop).  A second game is a second file with the
# same names, cimported by _search.pyx instead of this one.
#
# What a game provides:
#   GameState, Game                 its C state (a plain struct, copied by value) and the
#                                   Python class that holds one (`game_state` reads it)
#   MAX_PLAYERS, NUM_ACTIONS        bounds: players of a game, the fixed action ids 0..N-1
#   game_players, game_to_move      the players; the one who decides now
#   game_over, game_broken          whether the game has ended; whether a rule step found
#                                   the state inconsistent (never in a valid game)
#   game_legal, game_apply          the legal actions (into an array of NUM_ACTIONS);
#                                   play one (the search copies, never undoes)
#   game_copy                       a copy of a state that the search may play on
#   game_reseed                     a new stream for the chance events still to come
#   game_random_action,             the rollouts' choices: uniform, and the greedy policy's
#     game_greedy_action
#   game_determinize                one world uniform among those a player cannot tell apart
#   DETERMINIZATION_BYTES,          a world given as a row of bytes (a belief's
#     game_put_determinization,     determinization): put it into a state, read it from a
#     game_determinization_row,     game, and check it against the position searched
#     game_check_determinization    (ValueError naming the row)
#   game_heuristic_values,          the rewards in [0, 1] and each player's chance of
#     game_terminal_values          finishing first: by the evaluator's Weights, and of a
#                                   finished game
#   game_final_scores               each player's final score were the game to end now
#   game_net_values, game_net_policy  the learned evaluation (Net, kept alive by a Network):
#                                   chances and predicted scores; the policy over actions
#   game_priors, PriorContext,      the evaluator's expansion priors: of a list of actions
#     game_prior_context,           at once, or one action at a time after one context per
#     game_prior                    position (the inner expansions look at a few of many)

cimport cython
from libc.stdint cimport int32_t, uint8_t, uint64_t

from tigris._core cimport (State, MAXP, NCOL, NSQ, N_ACTIONS, PH_OVER, ERR_NONE,
                           current_player, legal_actions, apply_action, copy_state,
                           random_action, hand_size, final_vector)
from tigris._core cimport determinize as core_determinize
from tigris._eval cimport (Weights, evaluate_chances, terminal_rewards, priors, prior,
                           scorer_table, greedy_action)
from tigris._game cimport Game
from tigris._net cimport Net, Network, net_chances, net_policy


ctypedef State GameState

cdef enum:
    MAX_PLAYERS = MAXP
    NUM_ACTIONS = N_ACTIONS
    # A determinization's row: per seat a hand and face-down discards by colour (8 bytes),
    # then the bag.
    DETERMINIZATION_BYTES = MAXP * 8 + NCOL


cdef struct PriorContext:
    uint8_t scorer[4 * NSQ]     # per region and colour: who scores a tile there (R33)


cdef inline GameState* game_state(Game game):
    """The C state of a Python game (read, copied: never changed)."""
    return &game.s


cdef inline int game_players(const GameState* s) noexcept nogil:
    return s.nplayers


cdef inline int game_to_move(const GameState* s) noexcept nogil:
    return current_player(s)


cdef inline bint game_over(const GameState* s) noexcept nogil:
    return s.phase == PH_OVER


cdef inline bint game_broken(const GameState* s) noexcept nogil:
    return s.error != ERR_NONE


cdef inline int game_legal(GameState* s, int32_t* out) noexcept nogil:
    return legal_actions(s, out)


cdef inline void game_apply(GameState* s, int a) noexcept nogil:
    apply_action(s, a)


cdef inline void game_copy(GameState* dst, const GameState* src) noexcept nogil:
    copy_state(dst, src)


cdef inline void game_reseed(GameState* s, uint64_t seed) noexcept nogil:
    s.rng = seed                # the bag's order: its draws are the game's chance events


cdef inline int game_random_action(GameState* s, uint64_t* x) noexcept nogil:
    return random_action(s, x)


cdef inline int game_greedy_action(GameState* s, uint64_t* x) noexcept nogil:
    return greedy_action(s, x)


cdef inline void game_determinize(GameState* s, int player, uint64_t seed) noexcept nogil:
    core_determinize(s, player, seed)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline void game_put_determinization(GameState* s, int player, const uint8_t* row) noexcept nogil:
    """Give the others' hands and face-down discards and the bag as `row` holds them."""
    cdef int q, c
    for q in range(s.nplayers):
        if q != player:
            for c in range(NCOL):
                s.hand[q][c] = row[8 * q + c]
                s.swapped[q][c] = row[8 * q + 4 + c]
    for c in range(NCOL):
        s.bag[c] = row[8 * MAXP + c]


cdef inline list game_determinization_row(const GameState* s):
    """The hidden part of a state as a determinization's row: each player's hand and
    face-down discards by colour, then the bag."""
    cdef int q, c
    row = [0] * DETERMINIZATION_BYTES
    for q in range(s.nplayers):
        for c in range(NCOL):
            row[8 * q + c] = s.hand[q][c]
            row[8 * q + 4 + c] = s.swapped[q][c]
    for c in range(NCOL):
        row[8 * MAXP + c] = s.bag[c]
    return row


cdef inline int game_check_determinization(const GameState* root, int player, list values,
                                           int k) except -1:
    """Check row `k` (DETERMINIZATION_BYTES whole numbers 0-255) against `root` as
    `player` sees it: that player's hand and discards as they are, the others' hand sizes
    and discard counts, and every colour's unseen total; ValueError naming the row if not.
    (Plain loops: Cython cannot compile a generator expression in a .pxd's function.)"""
    cdef int q, c, held, discarded, given_held, given_discarded
    cdef int unseen[NCOL]
    cdef int given[NCOL]
    for c in range(NCOL):
        unseen[c] = root.bag[c]
        given[c] = values[8 * MAXP + c]
    for q in range(root.nplayers):
        if q == player:
            continue
        held = discarded = given_held = given_discarded = 0
        for c in range(NCOL):
            unseen[c] += root.hand[q][c] + root.swapped[q][c]
            given[c] += values[8 * q + c] + values[8 * q + 4 + c]
            discarded += root.swapped[q][c]
            given_held += values[8 * q + c]
            given_discarded += values[8 * q + 4 + c]
        if given_held != hand_size(root, q) or given_discarded != discarded:
            raise ValueError(f"determinizations: row {k} gives player {q} a hand or discards "
                             f"of another size than the position's")
    for c in range(NCOL):
        if given[c] != unseen[c]:
            raise ValueError(f"determinizations: row {k} gives {[given[c] for c in range(NCOL)]} "
                             f"tiles of each colour unseen by player {player}, the position "
                             f"{[unseen[c] for c in range(NCOL)]}")
    return 0


cdef inline void game_heuristic_values(const GameState* s, const Weights* w, float* reward,
                                       double* chance) noexcept nogil:
    evaluate_chances(s, w, reward, chance)


cdef inline void game_terminal_values(const GameState* s, float* reward, double* chance) noexcept nogil:
    """A finished game's: its ranking's rewards, and first place (shared among tied winners)."""
    terminal_rewards(s, 1.0, reward, chance)


cdef inline void game_final_scores(const GameState* s, double* score) noexcept nogil:
    """Each player's final score were the game to end here (the weakest colour after
    treasures, R86-R88): a finished game's, or a position's as it stands."""
    cdef int v[4]
    cdef int p
    for p in range(s.nplayers):
        final_vector(s, p, v)
        score[p] = v[0]


cdef inline void game_net_values(const Net* net, const GameState* s, double* chance,
                                 double* score) noexcept nogil:
    net_chances(net, s, chance, score)


cdef inline void game_net_policy(const Net* net, GameState* s, const int32_t* actions, int n,
                                 double* prob, bint normalise) noexcept nogil:
    net_policy(net, s, actions, n, prob, normalise)


cdef inline void game_priors(GameState* s, const Weights* w, const int32_t* actions, int n,
                             double* out) noexcept nogil:
    priors(s, w, actions, n, out)


cdef inline void game_prior_context(GameState* s, PriorContext* ctx) noexcept nogil:
    scorer_table(s, ctx.scorer)


cdef inline double game_prior(const GameState* s, const Weights* w, const PriorContext* ctx,
                              int a, int mover) noexcept nogil:
    return prior(s, w, ctx.scorer, a, mover)
