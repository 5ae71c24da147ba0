"""The position editor's changes (tigris.web.editing, the ``tigris serve`` position page's
clicks): every placement the rules refuse is refused with the rule, by the rules' own
code; the placements they allow do what the rules make them do, and the position still
adds up."""

import doctest

import pytest

import tigris
from tigris.errors import PositionError, UsageError
from tigris.web import editing

from helpers import down, hand, position, tiles

# A board with a piece of every kind: three kingdoms around the empty J7 (king:0 beside the
# temple on I7, priest:1 beside the red tile on K7, farmer:1 beside the one on J6), a black
# tile on G5, player 1's catastrophe on A1 and a red-blue monument on I2-J3.
SQUARES = {"H7": "king:0", "K7": "red", "L7": "priest:1", "J6": "red", "J5": "farmer:1",
           "G5": "black", "A1": "catastrophe", **down("red", "I2")}


def board(**changes):
    """The position of SQUARES, a known bag; `changes` replace fields of ``position``."""
    setup = dict(monuments={"red-blue": "I2"}, bag=tiles(red=20, blue=10, green=10, black=10),
                 catastrophes=[2, 1])
    setup.update(changes)
    return position(setup.pop("squares", SQUARES), [hand(red=2, blue=1, green=1, black=2),
                                                    hand(red=1, blue=2, green=2, black=1)], **setup)


# (square, piece, the rule's words): every placement the rules refuse for a piece the
# editor puts, with the reason tigris.legality gives for the core's refusal.
REFUSED = [
    # catastrophes, R37-R40, R79
    ("B2", "catastrophe:0", "a treasure lies on the square (R39, R79)"),
    ("H7", "catastrophe:0", "a leader stands on the square (R39)"),
    ("I2", "catastrophe:0", "a face-down monument tile lies on the square (R39, R74)"),
    ("A1", "catastrophe:0", "a catastrophe already lies on the square (R40)"),
    # tiles, R28-R31, R40
    ("G5", "red", "the square is not empty (R28): G5 holds a black tile"),
    ("H7", "green", "the square is not empty (R28): H7 holds player 0's king"),
    ("I2", "black", "the square is not empty (R28): I2 holds a face-down red monument tile"),
    ("A1", "red", "the square is not empty (R40): A1 holds a catastrophe"),
    ("B2", "red+treasure", "the square is not empty (R28)"),
    ("D6", "blue", "blue tiles may only be placed on river squares (R29)"),
    ("J9", "red", "only blue tiles may be placed on a river square (R29)"),
    ("J7", "red", "the tile would unite three kingdoms (R31)"),
    # leaders, R17-R21
    ("J9", "king:1", "a leader may not stand on a river square (R18)"),
    ("G5", "king:1", "the square is not empty (R17): G5 holds a black tile"),
    ("A1", "king:1", "the square is not empty (R17): A1 holds a catastrophe"),
    ("L7", "king:0", "the square is not empty (R17): L7 holds player 1's priest"),
    ("D6", "king:1", "no temple next to the square (R19)"),
    ("H2", "king:1", "a face-down monument tile is not a temple (R5)"),
    ("J7", "trader:0", "the leader would connect three kingdoms (R20)"),
    ("H7", "king:0", "the king already stands on H7; a move must change its square (R21)"),
]


@pytest.mark.parametrize("square, piece, rule", REFUSED)
def test_a_placement_the_rules_refuse_is_refused_with_the_rule(square, piece, rule):
    with pytest.raises(PositionError) as refused:
        editing.put(board(), square, piece)
    assert str(refused.value).startswith(f"squares.{square}: ") and rule in str(refused.value)


def test_a_catastrophe_never_lands_on_a_building_nor_without_one_left():
    squares = dict(SQUARES, E5="green+building", A2="catastrophe")
    pos = board(squares=squares, variants=["buildings"], catastrophes=[2, 0])
    with pytest.raises(PositionError, match=r"squares\.E5: the civilization building stands on the square \(R39\)"):
        editing.put(pos, "E5", "catastrophe:0")
    with pytest.raises(PositionError, match=r"squares\.C5: no catastrophe tiles left \(R37\): player 1 has played"):
        editing.put(pos, "C5", "catastrophe:1")
    changed, did = editing.put(pos, "C5", "catastrophe:0")            # player 0 has two
    assert changed["squares"]["C5"] == "catastrophe" and changed["players"][0]["catastrophes"] == 1


def test_issue_55_a_catastrophe_on_a_treasure_temple_leaves_the_position_as_it_was():
    """The editor took the temple away, gave its treasure to the player to move and put
    the catastrophe there; R79 keeps every treasure on its temple."""
    pos = tigris.Game(players=2, seed=0).to_position()
    for temple in ("B2", "K1", "F10"):
        with pytest.raises(PositionError, match=f"squares.{temple}: a treasure lies on the square"):
            editing.put(pos, temple, "catastrophe:1")


def test_a_catastrophe_does_what_the_rules_make_it_do():
    """The tile under it out of the game (R38), a leader left without a temple back to its
    owner (R42), one catastrophe fewer for its player (R37)."""
    pos = board()
    changed, did = editing.put(pos, "K7", "catastrophe:0")
    assert changed["squares"]["K7"] == "catastrophe" and "L7" not in changed["squares"]
    assert changed["out_of_game"]["red"] == pos["out_of_game"]["red"] + 1
    assert changed["players"][0]["catastrophes"] == 1 and changed["bag"] == pos["bag"]
    assert did == ["the red tile on K7 out of the game",
                   "priest:1 on L7 back to its owner: no temple next to it (R42)",
                   "player 0 has 1 catastrophe left"]
    changed, _ = editing.put(pos, "J9", "catastrophe:1")                 # an empty river square
    assert changed["squares"]["J9"] == "catastrophe" and changed["players"][1]["catastrophes"] == 0


def test_tiles_and_leaders_go_where_the_rules_let_them_and_the_position_adds_up():
    pos = board()
    changed, did = editing.put(pos, "J8", "green")
    assert changed["squares"]["J8"] == "green" and changed["bag"]["green"] == 9 and did == []
    changed, did = editing.put(pos, "J9", "blue")
    assert changed["squares"]["J9"] == "blue" and changed["bag"]["blue"] == 9
    changed, did = editing.put(pos, "I8", "king:0")                     # moved, still beside I7
    assert changed["squares"]["I8"] == "king:0" and "H7" not in changed["squares"]
    assert did == ["moved from H7"]
    changed, did = editing.put(pos, "K8", "trader:0")                   # joins priest:1's kingdom
    assert changed["squares"]["K8"] == "trader:0" and did == []
    changed, did = editing.put(dict(pos, bag=None), "J8", "black")      # an unknown bag stays unknown
    assert changed["squares"]["J8"] == "black" and changed["bag"] is None
    with pytest.raises(PositionError, match="no black tile left in the bag"):
        editing.put(dict(pos, bag=dict(pos["bag"], black=0), out_of_game=dict(pos["out_of_game"], black=26)),
                    "J8", "black")


def test_what_stands_on_a_square_is_taken_away_back_where_it_came_from():
    pos = board(squares=dict(SQUARES, E5="green+building"), variants=["buildings"])
    changed, did = editing.put(pos, "B2", "")
    assert "B2" not in changed["squares"] and changed["bag"]["red"] == 21
    assert changed["players"][0]["treasures"] == 1
    assert did == ["the red tile on B2 back to the bag", "its treasure to player 0, the player to move"]
    changed, did = editing.put(pos, "A1", "")
    assert "A1" not in changed["squares"] and changed["players"][1]["catastrophes"] == 2
    changed, did = editing.put(pos, "E5", "")
    assert "E5" not in changed["squares"] and did[-1] == "the green building back to the supply"
    changed, did = editing.put(pos, "L7", "")
    assert "L7" not in changed["squares"] and did == ["the priest of player 1 back to the supply"]
    assert editing.put(pos, "C5", "") == (tigris.Game.from_position(pos).to_position(), [])   # nothing there
    # a change that leaves a position that is none: the field at fault
    with pytest.raises(PositionError, match=r"squares\.H7: king:0 is not next to a face-up red tile"):
        editing.put(pos, "I7", "")
    with pytest.raises(PositionError, match=r"monuments\[0\]\.at"):
        editing.put(pos, "I2", "")


def test_a_treasure_put_comes_from_those_collected():
    pos = board(taken=("K1",), treasures=[0, 1], squares=dict(SQUARES, K1=None))
    with pytest.raises(PositionError, match="not one of the classic board's temple squares"):
        editing.put(pos, "C5", "red+treasure")
    changed, did = editing.put(pos, "K1", "red+treasure")
    assert changed["squares"]["K1"] == "red+treasure" and changed["players"][1]["treasures"] == 0
    assert did == ["the treasure from player 1"]
    with pytest.raises(PositionError, match="no treasure to put"):
        editing.put(board(), "C5", "red+treasure")


@pytest.mark.parametrize("square, piece, message", [
    ("Z9", "red", "square: "), (5, "red", "square: "), ("C5", "purple", "piece: "),
    ("C5", "king:2", "piece: "), ("C5", None, "piece: "),
])
def test_a_square_or_a_piece_that_is_none_is_named(square, piece, message):
    with pytest.raises(UsageError, match=message):
        editing.put(board(), square, piece)


def test_the_examples_of_the_module_run():
    assert doctest.testmod(editing).failed == 0
