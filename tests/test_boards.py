"""The two board sides as data (RULES.md sections 1 and 2), checked square by square
against the lists written out in RULES.md, as the compiled core reads them; and the
advanced side in play: setup, the six treasures outside the rivers taken first (R77),
and the game end with two treasures left (R83)."""

import pytest

import tigris
from tigris import notation
from tigris._core import board_squares
from tigris.constants import A_TREASURE, COLS, NSQ, ROWS, SUPPLY
from tigris.boards import BOARDS, BOARD_NAMES, layout

from helpers import SIX, finished_random_games, legal


def squares(pairs):
    return {r * 16 + c for r, c in pairs}


def rows(spec):
    """{row: [cols]} -> set of square indices."""
    return {r * 16 + c for r, cols in spec.items() for c in cols}


# RULES.md section 2, "River squares (39)", written out as it is listed there.
ADVANCED_RIVERS = rows({
    0: [2, 3, 15],
    1: [2, 3, 15],
    2: [2, 3, 15],
    3: [2, 12, 13, 14, 15],
    4: [2, 12],
    5: [2, 12],
    6: [2, 3, 12, 13],
    7: [3, 4, 5, 13],
    8: [5, 6, 7, 13],
    9: [6, 7, 8, 9, 10, 11, 12, 13],
    10: [6],
})
ADVANCED_TEMPLES = squares([(0, 4), (0, 9), (1, 14), (2, 1), (3, 6), (3, 11), (5, 3), (5, 15),
                            (7, 0), (7, 7), (7, 12), (9, 4), (10, 9), (10, 14)])
# Outside the rivers: (10, 9), not BGA's (10, 8) (RULES.md section 2).
ADVANCED_OUTSIDE = squares([(2, 1), (7, 0), (9, 4), (5, 15), (10, 9), (10, 14)])
ADVANCED_INSIDE = squares([(0, 4), (0, 9), (1, 14), (3, 6), (3, 11), (5, 3), (7, 7), (7, 12)])

# RULES.md section 1.
CLASSIC_RIVERS = rows({
    0: [4, 5, 6, 7, 8, 12],
    1: [4, 12],
    2: [3, 4, 12, 13],
    3: [0, 1, 2, 3, 13, 14, 15],
    4: [14, 15],
    5: [14],
    6: [0, 1, 2, 3, 12, 13, 14],
    7: [3, 4, 5, 6, 12],
    8: [6, 7, 8, 9, 10, 11, 12],
})
CLASSIC_TEMPLES = squares([(0, 10), (1, 1), (1, 15), (2, 5), (4, 13), (6, 8), (7, 1), (8, 14),
                           (9, 5), (10, 10)])
CLASSIC_CORNERS = squares([(1, 1), (1, 15), (7, 1), (8, 14)])

EXPECTED = {
    "classic": (CLASSIC_RIVERS, CLASSIC_TEMPLES, CLASSIC_CORNERS),
    "advanced": (ADVANCED_RIVERS, ADVANCED_TEMPLES, ADVANCED_OUTSIDE),
}


def test_board_names():
    assert BOARD_NAMES == ("classic", "advanced")


@pytest.mark.parametrize("board", BOARD_NAMES)
def test_grid_is_the_cores_shape(board):
    grid = BOARDS[board]
    assert len(grid) == ROWS and all(len(line) == COLS for line in grid)


@pytest.mark.parametrize("board", BOARD_NAMES)
def test_layout_square_by_square(board):
    rivers, temples, special = EXPECTED[board]
    got = layout(board)
    core = board_squares(BOARD_NAMES.index(board))
    for i in range(NSQ):
        where = f"{board} {notation.square_name(i)} (row {i // 16}, col {i % 16})"
        assert (i in got[0]) == (i in rivers), f"{where}: river"
        assert (i in got[1]) == (i in temples), f"{where}: temple"
        assert (i in got[2]) == (i in special), f"{where}: special treasure"
        assert (i in core[0]) == (i in rivers), f"{where}: river in the core"
        assert (i in core[1]) == (i in temples), f"{where}: temple in the core"
        assert (i in core[2]) == (i in special), f"{where}: special treasure in the core"


def test_advanced_counts_and_partition():
    assert len(ADVANCED_RIVERS) == 39 and len(CLASSIC_RIVERS) == 41
    assert len(ADVANCED_TEMPLES) == 14 and len(CLASSIC_TEMPLES) == 10
    assert ADVANCED_OUTSIDE | ADVANCED_INSIDE == ADVANCED_TEMPLES
    assert not ADVANCED_OUTSIDE & ADVANCED_INSIDE
    assert not ADVANCED_TEMPLES & ADVANCED_RIVERS
    # BGA's typo: (10, 8) is no temple at all.
    assert 10 * 16 + 8 not in ADVANCED_TEMPLES


def land_areas(rivers):
    """Flood fill of the land squares with rivers as walls: a list of sets."""
    areas, seen = [], set()
    for start in range(NSQ):
        if start in rivers or start in seen:
            continue
        area, stack = {start}, [start]
        seen.add(start)
        while stack:
            i = stack.pop()
            r, c = divmod(i, 16)
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                j = rr * 16 + cc
                if 0 <= rr < 11 and 0 <= cc < 16 and j not in rivers and j not in seen:
                    seen.add(j)
                    area.add(j)
                    stack.append(j)
        areas.append(area)
    return areas


def test_advanced_outside_treasures_are_outside_the_big_area():
    """RULES.md section 2 (b): the 8 inside temples share the big area between the rivers;
    the 6 special ones lie in the other areas."""
    areas = land_areas(ADVANCED_RIVERS)
    big = max(areas, key=len)
    assert ADVANCED_INSIDE <= big
    assert not ADVANCED_OUTSIDE & big


@pytest.mark.parametrize("players", [2, 3, 4])
def test_advanced_setup(players):
    g = tigris.Game(players=players, seed=3, board="advanced")
    raw = g.raw_state()
    assert g.board == "advanced"
    for i in range(NSQ):
        assert raw["treasure"][i] == (i in ADVANCED_TEMPLES)
        assert raw["squares"][i] == (1 if i in ADVANCED_TEMPLES else 0)
    red, blue, green, black = SUPPLY
    assert sum(raw["hand"][p][0] for p in range(players)) + raw["bag"][0] == red - 14 == 43
    assert sum(sum(raw["hand"][p]) for p in range(players)) + sum(raw["bag"]) == 139
    assert all(sum(raw["hand"][p]) == 6 for p in range(players))


# ---------------------------------------------------------------------------
# The advanced board in play
# ---------------------------------------------------------------------------

def advanced(squares_, hands, taken=(), **extra):
    board = {notation.square_name(t): "red" if notation.square_name(t) in taken
             else "red+treasure" for t in ADVANCED_TEMPLES}
    board.update(squares_)
    players = [{"hand": dict(h), "treasures": 0, "catastrophes": 2} for h in hands]
    if taken:
        players[-1]["treasures"] = len(taken)
    d = {"format": "tigris-position/1", "board": "advanced", "squares": board,
         "players": players}
    d.update(extra)
    return tigris.Game.from_position(d, seed=1)


def test_advanced_board_labels():
    names = sorted(notation.square_name(i) for i in ADVANCED_OUTSIDE)
    assert names == ["A8", "B3", "E10", "J11", "O11", "P6"]


def test_R77_outside_treasures_first_on_the_advanced_board():
    """A kingdom holding the outside treasures (9,4) = E10 and (10,9) = J11 and the inside
    one (7,7) = H8: both outside ones go first, then the trader's owner keeps the last."""
    # A chain from E10 along the bottom row to J11 (G11 is a river square: a farm), and
    # from H11 up to H8 (H10 and H9 are river squares too).
    chain = {"E11": "black", "F11": "black", "G11": "blue", "H11": "black", "I11": "black",
             "H10": "blue", "H9": "blue"}
    g = advanced(chain, [SIX, SIX])
    assert "leader trader D10" in legal(g)
    g.apply("leader trader D10")
    # Three treasures in the kingdom (E10, J11 outside; H8 inside): two must go, the
    # outside ones first; the player chooses between them.
    assert (g.decision, g.current_player) == ("treasure", 0)
    assert legal(g) == {"treasure E10", "treasure J11"}
    g.apply("treasure J11")
    # One outside treasure left: the only option, taken by the engine; H8 stays.
    raw = g.raw_state()
    assert raw["treasure"][notation.square_index("E10")] == 0
    assert raw["treasure"][notation.square_index("J11")] == 0
    assert raw["treasure"][notation.square_index("H8")] == 1
    assert g.score(0)["treasures"] == 2
    assert g.history[-1][2] == [A_TREASURE + notation.square_index("E10")]
    assert (g.decision, g.actions_left) == ("action", 1)


def test_R77_bgas_typo_square_is_not_special():
    """(10, 8) = I11 carries no treasure; (10, 9) = J11 is the special one: with J11 and
    the inside (7, 7) = H8 in one kingdom, J11 must be taken (the engine does it)."""
    chain = {"I11": "black", "H11": "black", "H10": "blue", "H9": "blue"}
    g = advanced(chain, [SIX, SIX])
    g.apply("leader trader K11")
    raw = g.raw_state()
    assert raw["treasure"][notation.square_index("J11")] == 0
    assert raw["treasure"][notation.square_index("H8")] == 1
    assert g.score(0)["treasures"] == 1


def test_inside_treasures_are_free_choice_on_the_advanced_board():
    chain = {"H7": "black", "H6": "black", "H5": "black", "H4": "black"}   # H8 .. G4
    g = advanced(chain, [SIX, SIX])
    g.apply("leader trader I8")           # H8 (7,7) and G4 (3,6), both inside
    assert legal(g) == {"treasure H8", "treasure G4"}


def test_R83_advanced_game_ends_with_two_treasures_left():
    left = {notation.square_name(i) for i in (ADVANCED_INSIDE | ADVANCED_OUTSIDE)}
    keep = {"H8", "G4", "J1"}
    taken = tuple(sorted(left - keep))
    chain = {"H7": "black", "H6": "black", "H5": "black", "H4": "black"}
    g = advanced(chain, [SIX, SIX], taken=taken)
    assert sum(g.raw_state()["treasure"]) == 3
    g.apply("leader trader I8")           # H8 + G4 in one kingdom: one is taken
    g.apply("treasure G4")
    assert sum(g.raw_state()["treasure"]) == 2
    g.apply("pass")
    assert g.is_over


@pytest.mark.parametrize("players", [2, 3, 4])
def test_advanced_random_games_finish(players):
    for g in finished_random_games(players, range(5), board="advanced"):
        raw = g.raw_state()
        assert sum(raw["treasure"]) + sum(raw["treasures"]) == 14
        assert sum(raw["treasure"]) >= 1
