"""Notation: squares and actions as users type and read them."""

import re

import pytest

import tigris
from tigris.constants import (N_ACTIONS, A_TILE, A_LEADER, A_WITHDRAW, A_CATASTROPHE, A_SWAP,
                              A_PASS, A_SUPPORT, A_WAR, A_MONUMENT, A_NO_MONUMENT, A_TREASURE,
                              A_BUILDING, A_NO_BUILDING, N_SWAPS, NSQ, SWAPS, SWAP_INDEX)
from tigris.notation import action_to_str, str_to_action, square_name, square_index


def test_every_action_round_trips():
    texts = set()
    for a in range(N_ACTIONS):
        text = action_to_str(a)
        assert str_to_action(text) == a, text
        assert str_to_action(text.upper()) == a
        assert str_to_action("  " + text.replace(" ", "   ") + " ") == a
        texts.add(text)
    assert len(texts) == N_ACTIONS


def test_known_action_texts():
    assert action_to_str(A_TILE + 0 * NSQ + 70) == "tile red G5"
    assert action_to_str(A_TILE + 1 * NSQ + 4) == "tile blue E1"
    assert action_to_str(A_LEADER + 3 * NSQ + 70) == "leader king G5"
    assert action_to_str(A_WITHDRAW + 2) == "withdraw trader"
    assert action_to_str(A_CATASTROPHE + 175) == "catastrophe P11"
    assert action_to_str(A_PASS) == "pass"
    assert action_to_str(A_SUPPORT + 3) == "support 3"
    assert action_to_str(A_WAR + 2) == "war green"
    assert action_to_str(A_MONUMENT + 0 * NSQ + 85) == "monument red-blue F6"
    assert action_to_str(A_NO_MONUMENT) == "no-monument"
    assert action_to_str(A_TREASURE + 17) == "treasure B2"
    assert action_to_str(A_BUILDING + 3 * NSQ + 70) == "building black G5"
    assert action_to_str(A_NO_BUILDING) == "no-building"
    assert str_to_action("swap red red blue") == A_SWAP + SWAP_INDEX[(2, 1, 0, 0)]
    assert action_to_str(str_to_action("swap blue red red")) == "swap red red blue"


def test_alternative_spellings():
    assert str_to_action("Tile RED g5") == str_to_action("tile red G5")
    assert str_to_action("leader black G5") == str_to_action("leader king G5")     # by colour
    assert str_to_action("withdraw green") == str_to_action("withdraw trader")
    assert str_to_action("monument blue-red F6") == str_to_action("monument red-blue F6")
    assert str_to_action("monument black-green A1") == str_to_action("monument green-black A1")
    assert str_to_action("nomonument") == A_NO_MONUMENT
    assert str_to_action("support 0") == A_SUPPORT


def test_swap_table():
    assert len(SWAPS) == N_SWAPS == 209
    assert len(set(SWAPS)) == 209
    assert all(1 <= sum(s) <= 6 for s in SWAPS)
    assert A_SWAP + len(SWAPS) == A_PASS


def test_squares():
    assert square_name(70) == "G5"
    assert square_index("G5") == 70 == square_index(" g5 ")
    assert square_name(0) == "A1" and square_name(175) == "P11"
    assert square_index("P11") == 175 and square_index("A11") == 160
    for i in range(NSQ):
        assert square_index(square_name(i)) == i
    names = {square_name(i) for i in range(NSQ)}
    assert len(names) == NSQ == 176
    for bad in ("Q1", "A0", "A12", "G", "5G", "", "GG5", "G5.5", "G-1", "AA1"):
        with pytest.raises(ValueError):
            square_index(bad)


def test_out_of_range_action_id():
    with pytest.raises(ValueError, match="outside the action space"):
        action_to_str(N_ACTIONS)
    with pytest.raises(ValueError, match="outside the action space"):
        action_to_str(-1)


MALFORMED = [
    ("", "empty action"),
    ("   ", "empty action"),
    ("tile", "'tile' takes 2 arguments (tile COLOUR SQ), not 0"),
    ("tile red", "'tile' takes 2 arguments (tile COLOUR SQ), not 1"),
    ("tile red G5 now", "'tile' takes 2 arguments (tile COLOUR SQ), not 3"),
    ("tile purple G5", "'purple' is not a colour"),
    ("tile red Z5", "'Z5' is not a square (columns A-P, rows 1-11"),
    ("tile red G12", "'G12' is not a square"),
    ("leader wizard G5", "'wizard' is not a leader"),
    ("withdraw", "'withdraw' takes 1 argument (withdraw LEADER), not 0"),
    ("catastrophe", "'catastrophe' takes 1 argument"),
    ("swap", "a swap discards 1 to 6 tiles"),
    ("swap red red red red red red red", "a swap discards 1 to 6 tiles"),
    ("swap red pink", "'pink' is not a colour"),
    ("support 7", "support takes a number of tiles from 0 to 6"),
    ("support -1", "support takes a number of tiles from 0 to 6"),
    ("support many", "support takes a number of tiles from 0 to 6"),
    ("war pink", "'pink' is not a colour"),
    ("monument red-red G5", "'red-red' is not a monument"),
    ("monument red G5", "'red' is not a monument"),
    ("monument red-blue", "'monument' takes 2 arguments"),
    ("pass now", "'pass' takes 0 arguments (pass), not 1"),
    ("treasure", "'treasure' takes 1 argument"),
    ("fly G5", "unknown action 'fly'"),
]


@pytest.mark.parametrize("text,detail", MALFORMED)
def test_malformed_text_raises(text, detail):
    with pytest.raises(tigris.IllegalActionError) as e:
        str_to_action(text)
    assert detail in str(e.value)
    assert repr(text) in str(e.value)
    # the whole grammar only where the verb is unknown; else the detail says what is wrong
    unknown = not text.strip() or text.split()[0] == "fly"
    assert ("actions are written" in str(e.value)) == unknown


@pytest.mark.parametrize("text,detail", MALFORMED[:8])
def test_malformed_text_through_the_game(text, detail):
    g = tigris.Game(players=2, seed=1)
    before = g.state_bytes()
    with pytest.raises(tigris.IllegalActionError, match=re.escape(detail)):
        g.apply(text)
    with pytest.raises(tigris.IllegalActionError):
        g.parse_action(text)
    assert g.state_bytes() == before
    assert g.history == []


def test_illegal_action_ids_raise():
    g = tigris.Game(players=2, seed=1)
    before = g.state_bytes()
    with pytest.raises(tigris.IllegalActionError, match="outside the action space"):
        g.apply(N_ACTIONS)
    with pytest.raises(tigris.IllegalActionError, match="outside the action space"):
        g.apply(-5)
    assert g.state_bytes() == before


def test_game_action_str_and_parse():
    g = tigris.Game(players=2, seed=1)
    for a in g.legal_actions():
        assert g.parse_action(g.action_str(a)) == a
    assert issubclass(tigris.IllegalActionError, ValueError)


# -- action ids are real ints (issue 9) ----------------------------------------------------

NOT_ACTION_IDS = [0.9, 1.0, True, False, None, [3], float("nan"), 2**63, -2**31 - 1, -1,
                  N_ACTIONS, 10**5000]


@pytest.mark.parametrize("value", NOT_ACTION_IDS, ids=range(len(NOT_ACTION_IDS)))
def test_values_that_are_no_action_id_are_refused_everywhere(value):
    """apply(0.9), apply(True) were applied as ints and apply(2**63) raised OverflowError;
    every entry point now raises IllegalActionError naming the action."""
    g = tigris.Game(players=2, seed=1)
    before = g.state_bytes()
    for call in (g.apply, g.is_legal, g.action_str, action_to_str):
        with pytest.raises(tigris.IllegalActionError, match=r"^action ") as e:
            call(value)
        assert len(str(e.value)) < 200
    with pytest.raises(tigris.IllegalActionError, match=r"^action .*notation is a string"):
        g.parse_action(value)
    assert g.state_bytes() == before and g.history == []


def test_fractional_ids_next_to_legal_ones_are_refused():
    g = tigris.Game(players=2, seed=1)
    a = g.legal_actions()[0]
    with pytest.raises(tigris.IllegalActionError, match=r"not a float"):
        g.apply(a + 0.9)
    with pytest.raises(tigris.IllegalActionError, match=r"outside the action space"):
        g.apply(-2**31 - 1)
    assert g.history == []


def test_integer_like_ids_are_accepted():
    np = pytest.importorskip("numpy")
    g = tigris.Game(players=2, seed=1)
    a = g.legal_actions()[0]
    assert g.is_legal(np.int64(a)) and g.action_str(np.int32(a)) == g.action_str(a)
    g.apply(np.int16(a))
    assert g.history[0][0] == a and type(g.history[0][0]) is int


def test_bad_text_is_quoted_briefly():
    huge = "tile red " + "x" * 1_000_000
    with pytest.raises(tigris.IllegalActionError) as e:
        str_to_action(huge)
    assert len(str(e.value)) < 600 and "(1000009 characters)" in str(e.value)
    with pytest.raises(ValueError) as e:
        square_index("G" * 100_000)
    assert len(str(e.value)) < 200
    with pytest.raises(tigris.IllegalActionError, match=r"support takes a number of tiles"):
        str_to_action("support " + "9" * 5000)


def test_excerpt():
    from tigris.errors import excerpt
    assert excerpt("king:0") == "'king:0'" and excerpt(None) == "None" and excerpt(1.5) == "1.5"
    assert excerpt(10**5000) == "a 5001-digit number"
    long = excerpt("y" * 10**7)
    assert long.endswith("(10000000 characters)") and len(long) < 80
    assert len(excerpt(list(range(10**6)))) < 60
    assert len(excerpt({"a": ["b" * 10**6]})) < 60
    assert excerpt([10**5000]) == "a list"
