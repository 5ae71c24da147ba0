"""Squares: the board's geometry and what a square code holds.

The Python modules that read a raw state (``Game.raw_state()``): legality explanations,
positions and the diagram, ask here which squares are neighbours and what a code means;
the codes themselves are in ``tigris.constants``.
"""

from tigris.constants import (ROWS, COLS, NSQ, COLOURS, LEADERS, EMPTY, TILE0, DOWN0,
                              CATASTROPHE, LEADER0)

__all__ = ["neighbours", "block", "is_tile", "is_face_down", "is_leader", "tile_colour",
           "leader_of", "leader_code", "describe"]


def _neighbour_table():
    table = []
    for i in range(NSQ):
        r, c = divmod(i, COLS)
        table.append(tuple((r + dr) * COLS + c + dc
                           for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                           if 0 <= r + dr < ROWS and 0 <= c + dc < COLS))
    return tuple(table)


#: Square -> the squares next to it (up, down, left, right; 2 to 4 of them).
NEIGHBOURS = _neighbour_table()


def neighbours(i):
    """The squares orthogonally next to square i."""
    return NEIGHBOURS[i]


def block(top):
    """The four squares of the 2x2 square whose top-left square is ``top`` (a monument's
    place), or None when ``top`` is on the bottom row or the right column."""
    r, c = divmod(top, COLS)
    if r == ROWS - 1 or c == COLS - 1:
        return None
    return (top, top + 1, top + COLS, top + COLS + 1)


# -- square codes ----------------------------------------------------------------------

def is_tile(code):
    """A face-up tile (a red one is a temple)."""
    return TILE0 <= code < DOWN0


def is_face_down(code):
    """A face-down (monument) tile."""
    return DOWN0 <= code < CATASTROPHE


def is_leader(code):
    """Whether a square code is a leader."""
    return code >= LEADER0


def tile_colour(code):
    """The colour of a tile, face up or face down."""
    return (code - TILE0) % 4


def leader_of(code):
    """(player, colour) of a leader's code."""
    return divmod(code - LEADER0, 4)


def leader_code(player, colour):
    """The square code of `player`'s leader of `colour`."""
    return LEADER0 + 4 * player + colour


def describe(code, treasure=False):
    """What a square holds, in words: "nothing", "a red tile with a treasure",
    "player 0's king", ..."""
    if code == EMPTY:
        return "nothing"
    if code == CATASTROPHE:
        return "a catastrophe"
    if is_leader(code):
        p, c = leader_of(code)
        return f"player {p}'s {LEADERS[c]}"
    with_treasure = " with a treasure" if treasure else ""
    if is_face_down(code):
        return f"a face-down {COLOURS[tile_colour(code)]} monument tile{with_treasure}"
    return f"a {COLOURS[tile_colour(code)]} tile{with_treasure}"
