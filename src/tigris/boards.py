"""Board layouts as data: the rules code never branches on a board's name.

Each board is an 11 x 16 grid, row 0 at the top, column 0 at the left:
``~`` river, ``T`` starting temple with a treasure, ``*`` starting temple whose treasure
must be taken first (the classic board's framed corner treasures; on the advanced side
the six outside the rivers), ``.`` land.  See RULES.md sections 1 and 2.

The compiled core reads these layouts when it is imported, so this module imports nothing
of the package: the grids' shape is the core's ROWS x COLS (tests/test_boards.py checks).
"""

__all__ = ["BOARDS", "BOARD_NAMES", "layout"]

BOARDS = {
    "classic": (
        "....~~~~~.T.~...",
        ".*..~.......~..*",
        "...~~T......~~..",
        "~~~~.........~~~",
        ".............T~~",
        "..............~.",
        "~~~~....T...~~~.",
        ".*.~~~~.....~...",
        "......~~~~~~~.*.",
        ".....T..........",
        "..........T.....",
    ),
    "advanced": (
        "..~~T....T.....~",
        "..~~..........T~",
        ".*~~...........~",
        "..~...T....T~~~~",
        "..~.........~...",
        "..~T........~..*",
        "..~~........~~..",
        "*..~~~.T....T~..",
        ".....~~~.....~..",
        "....*.~~~~~~~~..",
        "......~..*....*.",
    ),
}

#: Board names in the order of their index in the compiled core.
BOARD_NAMES = tuple(BOARDS)


def layout(name):
    """Return ``(rivers, temples, special)``: frozen sets of square indices (row * 16 + col),
    read once a board (the rules and the pages ask for them at every turn).

    >>> from tigris.boards import layout
    >>> rivers, temples, special = layout("classic")
    >>> len(temples), len(special), special <= temples
    (10, 4, True)
    """
    return _LAYOUTS[name]


def _read(grid):
    rivers, temples, special = set(), set(), set()
    for r, line in enumerate(grid):
        for c, ch in enumerate(line):
            i = r * len(line) + c
            if ch == "~":
                rivers.add(i)
            elif ch in "T*":
                temples.add(i)
                if ch == "*":
                    special.add(i)
    return frozenset(rivers), frozenset(temples), frozenset(special)


_LAYOUTS = {name: _read(grid) for name, grid in BOARDS.items()}
