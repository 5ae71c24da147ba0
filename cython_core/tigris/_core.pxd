# The C-level interface of the game core: plain C state, the action space, and the
# rule functions that the Python wrapper (_game.pyx) and the search (later modules)
# call without the GIL.  Nothing here touches a Python object.

from libc.stdint cimport uint8_t, int16_t, uint16_t, int32_t, uint64_t

# cpdef: the compiled module tigris._core exports these as Python ints too; the Python
# side imports them from there (tigris.constants), never writes them again.
cpdef enum:
    ROWS = 11
    COLS = 16
    NSQ = 176
    NWORDS = 3          # 64-bit words of a square set
    NCOL = 4            # colours: red, blue, green, black
    MAXP = 4
    HAND = 6
    NONE = 255          # "no square" / "in supply"

    RED = 0
    BLUE = 1
    GREEN = 2
    BLACK = 3

    # Square codes.  A face-down (monument) tile keeps its colour for display only.
    EMPTY = 0
    TILE0 = 1           # face-up tile of colour c: TILE0 + c
    DOWN0 = 5           # face-down tile of colour c: DOWN0 + c
    CATASTROPHE = 9
    LEADER0 = 16        # leader of colour c owned by p: LEADER0 + 4 * p + c

    # Decisions (phases).
    PH_ACTION = 0
    PH_SUPPORT = 1
    PH_WAR_ORDER = 2
    PH_MONUMENT = 3
    PH_TREASURE = 4
    PH_BUILDING = 5
    PH_OVER = 6

    # Conflict kinds.
    NO_CONFLICT = 0
    REVOLT = 1
    WAR = 2

    # Variant bits.
    V_ENGLISH = 1
    V_BUILDINGS = 2

    # The fixed action space.
    A_TILE = 0              # + colour * 176 + square
    A_LEADER = 704          # + colour * 176 + square (place from supply or move)
    A_WITHDRAW = 1408       # + colour
    A_CATASTROPHE = 1412    # + square
    A_SWAP = 1588           # + index into SWAP_COUNTS (209 multisets of 1-6 tiles)
    N_SWAPS = 209
    A_PASS = 1797
    A_SUPPORT = 1798        # + number of tiles committed, 0..6
    A_WAR = 1805            # + colour
    A_MONUMENT = 1809       # + monument * 176 + top-left square
    A_NO_MONUMENT = 2865
    A_TREASURE = 2866       # + square
    A_BUILDING = 3042       # + colour * 176 + square
    A_NO_BUILDING = 3746
    N_ACTIONS = 3747

    TURN_MAX = 65535

    NMONUMENTS = 6

    # State.error: a rule step found the state inconsistent (only a corrupt loaded state
    # can be) and stopped the game rather than index an array with "none".
    ERR_NONE = 0
    ERR_WAR = 1             # a war without two leaders of its colour at the unification tile
    ERR_CONFLICT = 2        # a conflict whose leaders are not on the board
    ERR_TRADER = 3          # a treasure decision without its trader
    ERR_STUCK = 4           # a decision with no legal option


cdef struct TrailEntry:
    uint16_t off        # byte offset of the field in State
    uint8_t width       # 1, 2 or 8 bytes
    uint64_t old


cdef struct Aux:
    # Undo trail: every mutation of a recording state pushes the old value here.
    TrailEntry* trail
    int ntrail
    int captrail
    int32_t* marks      # trail length at the start of each apply
    int nmarks
    int capmarks
    # Draw log (player * 4 + colour per tile drawn), for game records.
    uint8_t* drawlog
    int ndraw
    int capdraw
    # Draws fixed in advance (replaying a record): colours consumed before the RNG.
    uint8_t* forced
    int nforced
    int iforced
    int forced_error
    # Decisions the engine applied itself because they had exactly one option.
    int32_t* autolog
    int nauto
    int capauto


cdef struct State:
    # sq stays the first field: undo finds a square's trail entries by their offset.
    uint8_t sq[NSQ]             # square codes (EMPTY, TILE0+c, DOWN0+c, CATASTROPHE, LEADER0+4p+c)
    uint8_t treasure[NSQ]       # 1 if a treasure lies on the square
    uint8_t leader[MAXP][NCOL]  # square of each leader, NONE in supply
    uint8_t hand[MAXP][NCOL]    # hidden: tile colours in each hand
    uint8_t bag[NCOL]           # hidden: tile colours in the bag
    uint8_t out[NCOL]           # removed face up (conflicts, wars, catastrophes)
    uint8_t swapped[MAXP][NCOL] # hidden: colours each player discarded face down
    int16_t score[MAXP][NCOL]   # victory points of each player in each colour (R33)
    uint8_t treasures[MAXP]     # treasures each player holds: wild points at the end (R80)
    uint8_t catastrophes[MAXP]  # catastrophe tiles each player has left (2 at the start, R37)
    uint8_t monument[NMONUMENTS]  # top-left square of each built monument, NONE if not built
    uint8_t building[NCOL]      # civilization buildings variant: square or NONE
    uint8_t nplayers            # 2, 3 or 4
    uint8_t board               # index into boards.BOARD_NAMES (classic, advanced)
    uint8_t variants            # V_ENGLISH | V_BUILDINGS bits
    uint8_t active              # whose turn it is
    uint8_t actions_left        # actions not yet begun this turn
    uint8_t phase               # the decision at hand: PH_ACTION .. PH_OVER
    uint8_t placed              # square of the tile placed by the current action, or NONE
    uint8_t unif                # square of the unification tile while wars last, or NONE
    # The conflict being resolved (R47-R68); its fields are meaningful while c_kind is set.
    uint8_t c_kind              # NO_CONFLICT, REVOLT or WAR
    uint8_t c_colour            # colour of the leaders in conflict
    uint8_t c_attacker          # the player who attacks (placed the leader or tile)
    uint8_t c_defender          # the player whose leader is attacked
    uint8_t c_att_sq            # square of the attacking leader
    uint8_t c_def_sq            # square of the defending leader
    uint8_t c_att_base          # the attacker's strength on the board (temples, or tiles in a war)
    uint8_t c_def_base          # the defender's strength on the board
    uint8_t c_att_commit        # tiles the attacker committed from the hand
    uint8_t c_stage             # 0: attacker commits, 1: defender commits
    uint8_t wars                # colours still to be fought (bit mask)
    uint8_t t_trader            # square of the trader whose owner takes a treasure
    uint16_t turn               # turns ended since the start; stops at 65535 (TURN_MAX) rather than wrap
    uint64_t rng                # splitmix64 state of the bag's draws
    # ---- below: not part of the game state (caches and bookkeeping) ----
    uint8_t cache_valid         # 1 while label, kingdom and nregions describe sq
    uint8_t nregions            # regions in label
    uint8_t error               # ERR_*: why a rule step stopped the game, 0 normally
    uint8_t label[NSQ]          # region of each connecting square, NONE otherwise
    uint8_t kingdom[NSQ]        # per region: 1 if it holds a leader
    # Square sets as bit masks (square i is bit i % 64 of word i // 64; a row is 16 bits,
    # four rows to a word), kept with the regions: empty squares, squares that connect
    # (tiles and leaders), temples, face-up tiles.
    uint64_t empty_bits[NWORDS]
    uint64_t piece_bits[NWORDS]
    uint64_t temple_bits[NWORDS]
    uint64_t up_bits[NWORDS]
    Aux* aux                    # NULL: no undo trail, no logs (rollouts, search copies)


cdef extern from *:
    """
    #define TIGRIS_STATE_BYTES(s) ((size_t)((char*)&(s)->cache_valid - (char*)(s)))
    """
    size_t state_bytes "TIGRIS_STATE_BYTES"(State* s) nogil

# Static tables (filled at import).
cdef uint8_t NBR[NSQ][4]
cdef uint8_t NNBR[NSQ]
cdef uint8_t SWAP_COUNTS[N_SWAPS][NCOL]
cdef uint8_t MONUMENT_COLOURS[NMONUMENTS][2]

# Setup, copying, randomness.
cdef void new_game(State* s, int nplayers, int board, int variants, uint64_t seed) noexcept nogil
cdef void copy_state(State* dst, const State* src) noexcept nogil

# splitmix64 (Steele, Lea & Flood 2014): the random numbers of the core, the samplers and
# the search, in a module of their own (the search draws them whatever the game).
from tigris._rng cimport splitmix

# Queries.
cdef int current_player(const State* s) noexcept nogil
cdef int legal_actions(State* s, int32_t* out) noexcept nogil
cdef int hand_size(const State* s, int p) noexcept nogil
cdef int treasures_on_board(const State* s) noexcept nogil
cdef void ensure_regions(State* s) noexcept nogil
cdef int compute_regions(const State* s, int skip, uint8_t* label, uint8_t* kingdom) noexcept nogil
cdef void final_vector(const State* s, int p, int* v) noexcept nogil

# Playing.
cdef void apply_action(State* s, int a) noexcept nogil
cdef void apply_with_forced(State* s, int a) noexcept nogil
cdef int random_action(State* s, uint64_t* x) noexcept nogil
cdef int random_main_action(State* s, uint64_t* x, bint board_only) noexcept nogil
cdef int random_scoring_tile(State* s, uint64_t* x) noexcept nogil
cdef int random_playout(State* s, uint64_t seed) noexcept nogil
cdef void determinize(State* s, int p, uint64_t seed) noexcept nogil

# Undo trail.
cdef void aux_init(Aux* x) noexcept nogil
cdef void aux_free(Aux* x) noexcept nogil
cdef void aux_copy(Aux* dst, const Aux* src) noexcept nogil
cdef void push_mark(State* s) noexcept nogil
cdef int undo_to_mark(State* s) noexcept nogil
