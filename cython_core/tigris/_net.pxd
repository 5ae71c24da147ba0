# The C-level interface of the learned evaluation: a position's features as the player to
# move sees it, and a small network over them that gives every player's chance of
# finishing first.  The search (_search.pyx) calls net_chances without the GIL; Python
# sees this module through tigris.network.

from libc.stdint cimport int32_t

from tigris._core cimport State, MAXP, NSQ

cpdef enum:
    FEATURE_VERSION = 2
    # Sparse features (each 0 or 1), by block; their offsets, in this order:
    SQ_CODES = 26           # per square: tile up (4), face down (4), catastrophe, treasure,
                            #   leader of colour c owned by the seat r after the mover (16)
    F_SQUARES = 0
    F_BUILDINGS = 4576      # building of colour c on a square (civilization buildings)
    F_MONUMENTS = 5280      # monument m built
    F_PHASE = 5286          # the decision at hand (PH_ACTION .. PH_OVER)
    F_ACTIONS_LEFT = 5293   # actions not yet begun this turn: 0, 1, 2
    F_PLAYERS = 5296        # 2, 3 or 4 players
    F_BOARD = 5299          # classic, advanced
    F_VARIANTS = 5301       # english, buildings
    F_ACTIVE = 5303         # whose turn it is, as a seat after the mover
    F_CONFLICT = 5307       # no conflict, revolt, war
    F_CONFLICT_COLOUR = 5310
    F_ATTACKER = 5314       # seat after the mover
    F_DEFENDER = 5318
    F_STAGE = 5322          # attacker commits, defender commits
    F_WARS = 5324           # colours still to be fought
    F_SEATS = 5328          # the seats that play
    N_SPARSE = 5332
    MAX_ACTIVE = 416        # sparse features on at once, whatever the state's bytes: at most two
                            #   a square (352), 4 buildings, 6 monuments, 9 of the decision,
                            #   4 wars and 4 seats
    # Dense features (numbers of about unit size):
    D_SEAT = 11             # per seat after the mover: scores by colour (4), final score
                            #   vector (4), treasures, catastrophes left, tiles in hand
    D_OWN_HAND = 44         # the mover's tiles by colour
    D_UNSEEN = 48           # tiles the mover cannot see by colour (bag and others' hands)
    D_PROGRESS = 52         # tiles left in the bag, treasures left on the board
    D_STRENGTH = 54         # the conflict's attacker and defender strengths, committed tiles
    D_TURN = 57
    D_LEADERS = 58          # per seat after the mover and colour (LEADER_FEATURES each): the
                            #   leader on the board, the temples beside it (its strength in a
                            #   revolt), in its kingdom the tiles of its colour (its strength in
                            #   a war), the monuments of its colour (a point a turn) and the
                            #   treasures
    LEADER_FEATURES = 5
    N_DENSE = 138
    N_OUTPUTS = 8           # per seat after the mover: a logit of finishing first, a score
    MAX_HIDDEN = 1024
    LANES = 16              # units summed at once, in registers: the layers' widths are
                            #   padded to a multiple of it with units that are never on


cdef struct Net:
    int h1                  # first hidden layer's width, padded to a multiple of LANES
    int h2                  # second hidden layer's width, padded likewise
    const float* w_sparse   # [N_SPARSE][h1]: the row of each sparse feature
    const float* w_dense    # [N_DENSE][h1]
    const float* b1         # [h1]
    const float* w2t        # [h1][h2]: the second layer, a row per first-layer unit
    const float* b2         # [h2]
    const float* w3t        # [h2][N_OUTPUTS]: the outputs, a row per second-layer unit
    const float* b3         # [N_OUTPUTS]


# The features of `s` as its player to move sees them: the sparse ones on into
# active[0..return), the dense ones into dense[0..N_DENSE).
cdef int features(const State* s, int32_t* active, float* dense) noexcept nogil
# Every player's chance of finishing first (by seat, adding up to 1), and, unless NULL,
# each player's final score as the network predicts it.  `s` must not be over.
cdef void net_chances(const Net* net, const State* s, double* chance, double* score) noexcept nogil


cdef class Network:
    cdef Net net
    cdef readonly object arrays     # the weights as the file holds them
    cdef object _padded             # the layers as net reads them: padded, w2 and w3 transposed
