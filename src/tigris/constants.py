"""The game's constants, in one place: every number comes from the compiled core.

The core declares them once (``cpdef enum`` in ``_core.pxd``, the swap and monument tables
built by ``_core.pyx``); this module re-exports them with the names that go with them, and
every Python module imports them from here.  ``tests/test_constants.py`` fails if a name
here and the core's numbering ever disagree, or if a module writes a constant again.

Board: ``ROWS`` x ``COLS`` squares, square index ``row * COLS + col`` (``NSQ`` squares);
``NONE`` (255) is "no square": a leader or building in the supply, a monument not built.

Square codes (``Game.raw_state()["squares"]``; ``tigris.squares`` reads them)::

    EMPTY                   nothing
    TILE0 + c               face-up tile of colour c
    DOWN0 + c               face-down (monument) tile of colour c
    CATASTROPHE             catastrophe tile
    LEADER0 + 4 * p + c     leader of colour c owned by player p

Action ids (``N_ACTIONS`` in all; ``tigris.notation`` writes and reads them)::

    A_TILE + c * NSQ + i        tile of colour c on square i
    A_LEADER + c * NSQ + i      leader of colour c to square i (from the supply or moved)
    A_WITHDRAW + c              withdraw the leader of colour c
    A_CATASTROPHE + i           catastrophe on square i
    A_SWAP + k                  discard SWAPS[k] (red, blue, green, black) and redraw
    A_PASS
    A_SUPPORT + n               commit n tiles to a conflict
    A_WAR + c                   fight the war of colour c next
    A_MONUMENT + m * NSQ + i    build monument m (colours MONUMENTS[m]) with top-left i
    A_NO_MONUMENT
    A_TREASURE + i              take the treasure on square i
    A_BUILDING + c * NSQ + i    civilization building of colour c on square i
    A_NO_BUILDING
"""

from tigris import _core
from tigris._core import (
    # board
    ROWS, COLS, NSQ, NONE,
    # colours, players, hands, monuments
    NCOL, RED, BLUE, GREEN, BLACK, MAXP, HAND, NMONUMENTS,
    # square codes
    EMPTY, TILE0, DOWN0, CATASTROPHE, LEADER0,
    # decisions (State.phase)
    PH_ACTION, PH_SUPPORT, PH_WAR_ORDER, PH_MONUMENT, PH_TREASURE, PH_BUILDING, PH_OVER,
    # conflict kinds (State.c_kind)
    NO_CONFLICT, REVOLT, WAR,
    # variant bits (State.variants)
    V_ENGLISH, V_BUILDINGS,
    # the action space
    A_TILE, A_LEADER, A_WITHDRAW, A_CATASTROPHE, A_SWAP, N_SWAPS, A_PASS, A_SUPPORT, A_WAR,
    A_MONUMENT, A_NO_MONUMENT, A_TREASURE, A_BUILDING, A_NO_BUILDING, N_ACTIONS,
    # the turn counter stops there rather than wrap
    TURN_MAX,
)

#: Colour names by colour index (RED, BLUE, GREEN, BLACK).
COLOURS = ("red", "blue", "green", "black")
#: Leader names by colour index: the priest is red, the farmer blue, ...
LEADERS = ("priest", "farmer", "trader", "king")
#: What a tile of each colour is (RULES.md, "Conventions"): a red temple, a blue farm, ...
TILE_NAMES = ("temple", "farm", "market", "settlement")
#: Decision names by phase (PH_ACTION ... PH_OVER).
DECISIONS = ("action", "support", "war_order", "monument", "treasure", "building", "over")
#: Conflict names by kind (NO_CONFLICT, REVOLT, WAR).
CONFLICTS = (None, "revolt", "war")
#: Variant names and their bits.
VARIANTS = {"english": V_ENGLISH, "buildings": V_BUILDINGS}

#: Swap index -> (red, blue, green, black) tiles discarded, and back.
SWAPS = _core.SWAPS
SWAP_INDEX = {counts: k for k, counts in enumerate(SWAPS)}
#: Monument index -> its two colours (ascending).
MONUMENTS = _core.MONUMENTS
#: Tiles of each colour in the game.
SUPPLY = tuple(_core.supply())

__all__ = [
    "ROWS", "COLS", "NSQ", "NONE",
    "NCOL", "RED", "BLUE", "GREEN", "BLACK", "MAXP", "HAND", "NMONUMENTS",
    "EMPTY", "TILE0", "DOWN0", "CATASTROPHE", "LEADER0",
    "PH_ACTION", "PH_SUPPORT", "PH_WAR_ORDER", "PH_MONUMENT", "PH_TREASURE", "PH_BUILDING",
    "PH_OVER",
    "NO_CONFLICT", "REVOLT", "WAR",
    "V_ENGLISH", "V_BUILDINGS",
    "A_TILE", "A_LEADER", "A_WITHDRAW", "A_CATASTROPHE", "A_SWAP", "N_SWAPS", "A_PASS",
    "A_SUPPORT", "A_WAR", "A_MONUMENT", "A_NO_MONUMENT", "A_TREASURE", "A_BUILDING",
    "A_NO_BUILDING", "N_ACTIONS",
    "TURN_MAX",
    "COLOURS", "LEADERS", "TILE_NAMES", "DECISIONS", "CONFLICTS", "VARIANTS",
    "SWAPS", "SWAP_INDEX", "MONUMENTS", "SUPPLY",
]
