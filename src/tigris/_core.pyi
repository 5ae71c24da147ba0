"""Type information for the compiled rules module (cython_core/tigris/_core.pyx): the numbers of
the C state that tigris.constants re-exports with their meanings, and the tables of the
core.  Users read them through ``tigris.constants``."""

from tigris.boards import BOARD_NAMES as BOARD_NAMES

A_BUILDING: int
A_CATASTROPHE: int
A_LEADER: int
A_MONUMENT: int
A_NO_BUILDING: int
A_NO_MONUMENT: int
A_PASS: int
A_SUPPORT: int
A_SWAP: int
A_TILE: int
A_TREASURE: int
A_WAR: int
A_WITHDRAW: int
BLACK: int
BLUE: int
CATASTROPHE: int
COLS: int
DOWN0: int
EMPTY: int
ERR_CONFLICT: int
ERR_NONE: int
ERR_STUCK: int
ERR_TRADER: int
ERR_WAR: int
GREEN: int
HAND: int
LEADER0: int
MAXP: int
NCOL: int
NMONUMENTS: int
NONE: int
NO_CONFLICT: int
NSQ: int
NWORDS: int
N_ACTIONS: int
N_SWAPS: int
PH_ACTION: int
PH_BUILDING: int
PH_MONUMENT: int
PH_OVER: int
PH_SUPPORT: int
PH_TREASURE: int
PH_WAR_ORDER: int
RED: int
REVOLT: int
ROWS: int
TILE0: int
TURN_MAX: int
V_BUILDINGS: int
V_ENGLISH: int
WAR: int

#: swap index -> (red, blue, green, black) tiles discarded
SWAPS: tuple[tuple[int, int, int, int], ...]
#: monument index -> its two colours
MONUMENTS: tuple[tuple[int, int], ...]

def supply() -> list[int]: ...
def board_squares(board: int) -> tuple[list[int], list[int], list[int]]: ...
