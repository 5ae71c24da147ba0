# The C-level interface of the learned evaluation: a position's features as the player to
# move sees it, and a small network over them that gives every player's chance of
# finishing first and, when it has a policy head, a probability for each legal action.
# The search (_search.pyx) calls net_chances and net_policy without the GIL; Python sees
# this module through tigris.network.

from libc.stdint cimport int32_t, uint8_t

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
    # The policy: a logit per legal action, the sum of the action's bias, its embedding
    # times a context computed from the first layer, and the weights of its patterns:
    # what lies around the action's square, as the mover sees it.  Actions without a
    # square (withdraw, swap, pass, support, war order, declining) have no pattern.
    POLICY_VERSION = 1      # the policy's inputs (these patterns): a file of another is refused
    P_GROUPS = 15           # actions with a square, by group: tiles (4 colours), leaders (4),
                            #   catastrophe, treasure, monument, buildings (4 colours)
    G_TILE = 0              # + colour
    G_LEADER = 4            # + colour
    G_CATASTROPHE = 8
    G_TREASURE = 9
    G_MONUMENT = 10
    G_BUILDING = 11         # + colour
    P_STRIDE = 48           # pattern features of a group; their offsets, in this order:
    PAT_NEIGHBOUR = 0       # + the class (NB_*) of each neighbouring square: one feature a
                            #   neighbour, so the weight counts as often as the class is there
    PAT_TREASURE_NEXT = 11  # a neighbour holds a treasure (once per such neighbour)
    PAT_KINGDOMS = 12       # + kingdoms next to the square: 0, 1, 2 or more (a war)
    PAT_REGIONS = 15        # + regions next to the square: 0, 1, 2, 3 or more
    PAT_SCORES_MINE = 19    # a tile that scores a point for the mover at once (R33)
    PAT_SCORES_THEIRS = 20  # ... for another player
    PAT_REVOLT = 21         # a leader joins a kingdom holding another's leader of its colour
    PAT_OWN_KINGDOM = 22    # a leader joins a kingdom holding one of the mover's leaders
    PAT_TEMPLES = 23        # + temples next to the square: 0, 1, 2, 3 or more
    PAT_STRENGTH = 27       # + tiles of the action's colour in the one region it joins:
                            #   0, 1-2, 3-5, 6 or more (no such region: none)
    PAT_MOVE = 31           # a leader moved on the board, not placed from the supply
    PAT_ON = 32             # + the class of the square itself (a catastrophe's target)
    PAT_TREASURE_ON = 43    # a treasure lies on the square itself
    PAT_COLOUR_RANK = 44    # + the rank of the action's colour among the mover's scores: 0 the
                            #   weakest (the one the final score counts, R84) to 3 the strongest
    N_PATTERNS = 720        # P_GROUPS * P_STRIDE
    MAX_PATTERNS = 24       # pattern features of one action at most (4 neighbours, 2 each; 10 more)
    # A neighbouring square's class, from the mover's side and the action's colour:
    NB_EMPTY = 0
    NB_SAME = 1             # a face-up tile of the action's colour
    NB_TEMPLE = 2           # a red tile (a temple) when the action's colour is another
    NB_OTHER = 3            # a face-up tile of another colour
    NB_DOWN = 4             # a face-down tile (under a monument)
    NB_CATASTROPHE = 5
    NB_MINE_SAME = 6        # the mover's leader of the action's colour
    NB_MINE = 7             # another leader of the mover's
    NB_THEIRS_SAME = 8      # another player's leader of the action's colour
    NB_THEIRS = 9           # another player's leader of another colour
    NB_OFF = 10             # (the square itself only) never a neighbour class


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
    # The policy head, or hp = 0 for a network without one.
    int hp                  # the policy context's width, padded to a multiple of LANES
    const float* wpt        # [h1][hp]: the context layer, a row per first-layer unit
    const float* bp         # [hp]
    const float* emb        # [N_ACTIONS][hp]: each action's embedding
    const float* abias      # [N_ACTIONS]: each action's bias
    const float* pat        # [N_PATTERNS]: each pattern feature's weight


# The features of `s` as its player to move sees them: the sparse ones on into
# active[0..return), the dense ones into dense[0..N_DENSE).
cdef int features(const State* s, int32_t* active, float* dense) noexcept nogil
# Every player's chance of finishing first (by seat, adding up to 1), and, unless NULL,
# each player's final score as the network predicts it.  `s` must not be over.
cdef void net_chances(const Net* net, const State* s, double* chance, double* score) noexcept nogil
# The pattern features of action `a` for the player to move in `s` into out (at most
# MAX_PATTERNS); how many.  `ctx` is pattern_context(s)'s, for a state whose regions are
# up to date.
cdef struct SquareView:
    # What the patterns read around a square whatever the action's colour, worked out
    # once a context for the four colours of tile (and the leaders) placed there.
    uint8_t kingdoms            # kingdoms next to the square
    uint8_t nregions            # regions next to it, and which (their kingdom flags in `kingdom`)
    uint8_t temples             # red tiles next to it
    uint8_t treasures           # neighbours holding a treasure
    uint8_t region[4]
    uint8_t kingdom[4]
cdef struct PatternContext:
    int mover
    uint8_t rank[4]             # per colour: its rank among the mover's scores (0: the weakest)
    uint8_t owner[NSQ][4]       # per region and colour: the owner of that leader in it, or NONE
    uint8_t mine[NSQ]           # per region: 1 if it holds a leader of the mover's
    uint8_t tiles[NSQ][4]       # per region and colour: face-up tiles
    uint8_t scorer[4 * NSQ]     # per region and colour: who scores such a tile there (R33)
    uint8_t seen[NSQ]           # per square: 1 once `square` holds its view
    SquareView square[NSQ]
    uint8_t nbclass[5][32]      # per colour of an action (4: none) and square code: its class (NB_*)
cdef void pattern_context(State* s, PatternContext* ctx) noexcept nogil
cdef int action_patterns(const State* s, PatternContext* ctx, int a, int32_t* out) noexcept nogil
# The policy's probability of each of the n `actions` (the legal actions of `s`, which
# must not be over; a softmax over them alone) into prob; with `normalise` false, their
# logits instead (the same order, at a cost of no exponential).  The network must have a
# policy head (hp > 0).
cdef void net_policy(const Net* net, State* s, const int32_t* actions, int n, double* prob,
                     bint normalise=*) noexcept nogil


cdef class Network:
    cdef Net net
    cdef readonly object arrays     # the weights as the file holds them
    cdef object _padded             # the layers as net reads them: padded, w2 and w3 transposed
