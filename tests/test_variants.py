"""The English variant (R93-R94) and the civilization buildings (R95-R100, R36, R39,
R64, R71), as tests on positions built for them.  Coordinates in comments are RULES.md's
``(row, col)``; the code uses board labels (``(4, 6)`` = G5)."""

import pytest

import tigris
from tigris import notation

from helpers import (CATASTROPHE, COLOURS, EMPTY, NONE, UP, code, game, hand, leader_at, legal,
                     play, position, pts)


def forced(g):
    """The decisions the engine applied itself in the last apply, in notation."""
    return [g.action_str(a) for a in g.history[-1][2]]


def building(g, colour):
    i = g.raw_state()["building"][COLOURS.index(colour)]
    return None if i == NONE else notation.square_name(i)


def refused(g, text, reason):
    before = g.state_bytes()
    with pytest.raises(tigris.IllegalActionError) as e:
        g.apply(text)
    assert reason in str(e.value), str(e.value)
    assert g.state_bytes() == before


# ---------------------------------------------------------------------------
# English variant (R93-R94)
# ---------------------------------------------------------------------------

# Bull's priest on I5 (4,8) with two temples I4, H5; a black tile J5 joins K5 to it.
# Lion's priest on K5 (4,10) has one temple, K4: board strengths 1 (Lion) : 2 (Bull).
REVOLT = {"I5": "priest:1", "I4": "red", "H5": "red", "J5": "black", "K4": "red"}


def revolt(lion_red, bull_red, variants=("english",)):
    g = game(REVOLT, [hand(red=lion_red, black=6 - lion_red),
                      hand(red=bull_red, blue=6 - bull_red)], variants=variants)
    g.apply("leader priest K5")
    return g


def test_R93_attacker_commits_only_enough_to_win():
    g = revolt(3, 2)
    raw = g.raw_state()
    assert (raw["c_att_base"], raw["c_def_base"]) == (1, 2)
    assert (g.decision, g.current_player) == ("support", 0)
    assert legal(g) == {"support 0", "support 2", "support 3"}      # 1 + 2 > 2; more is fine
    refused(g, "support 1", "English variant (R93)")
    # Without the variant every count is legal.
    assert legal(revolt(3, 2, variants=())) == {f"support {n}" for n in range(4)}


def test_R94_defender_ties_exactly_or_commits_nothing():
    g = revolt(3, 2)
    play(g, "support 2")                           # 3 : 2, Bull needs exactly 1
    assert (g.decision, g.current_player) == ("support", 1)
    assert legal(g) == {"support 0", "support 1"}
    refused(g, "support 2", "English variant (R94)")
    play(g, "support 1")                           # 3 : 3, tie: Bull wins
    assert leader_at(g, 0, "priest") is None and leader_at(g, 1, "priest") == "I5"
    assert g.score(1) == pts(red=1)


def test_R94_defender_who_cannot_tie_commits_nothing():
    g = revolt(3, 0)
    g.apply("support 3")                           # 4 : 2, Bull would need 2, holds 0 red
    assert forced(g) == ["support 0"]
    g = revolt(3, 1)
    g.apply("support 3")                           # Bull would need 2, holds 1: forced 0
    assert forced(g) == ["support 0"]
    assert g.hand(1)["red"] == 1
    assert leader_at(g, 1, "priest") is None and g.score(0) == pts(red=1)


def test_R93_R94_attacker_who_cannot_win_and_defender_already_ahead():
    """Lion holds 1 red: 1 + 1 = 2 does not beat 2, so he commits nothing; Bull is then
    already ahead and commits nothing either: both decisions are applied by the engine."""
    g = revolt(1, 2)
    assert forced(g) == ["support 0", "support 0"]
    assert g.decision == "action" and g.actions_left == 1
    assert leader_at(g, 0, "priest") is None and g.score(1) == pts(red=1)
    assert g.hand(0)["red"] == 1 and g.hand(1)["red"] == 2
    # Without the variant both have a choice.
    g = revolt(1, 2, variants=())
    assert g.decision == "support" and legal(g) == {"support 0", "support 1"}


def test_R93_attacker_already_ahead_may_commit_anything():
    # Lion's priest with three temples (example 1) against Bull's two.
    g = game({"I5": "priest:1", "I4": "red", "H5": "red", "J5": "black", "K4": "red",
              "K6": "red", "L5": "red"},
             [hand(red=2, black=4), hand(red=3, blue=3)], variants=["english"])
    play(g, "leader priest K5")
    raw = g.raw_state()
    assert (raw["c_att_base"], raw["c_def_base"]) == (3, 2)
    assert legal(g) == {"support 0", "support 1", "support 2"}
    play(g, "support 0")                           # 3 : 2, Bull needs exactly 1
    assert legal(g) == {"support 0", "support 1"}


def test_R93_R94_wars():
    """Example 2's green war: Lion 1 : Bull 2 on the board."""
    example2 = {"E5": "red", "F5": "green", "E4": "king:0", "E6": "trader:0",
                "H5": "green", "I5": "green", "J5": "red", "J4": "king:1", "J6": "trader:1"}
    g = game(example2, [hand(black=1, green=4, red=1), hand(green=2, red=3, blue=1)],
             variants=["english"])
    play(g, "tile black G5", "war green")
    assert legal(g) == {"support 0", "support 2", "support 3", "support 4"}
    play(g, "support 3")                           # 4 : 2, Bull needs exactly 2
    assert legal(g) == {"support 0", "support 2"}
    play(g, "support 2")                           # 4 : 4 -> Bull wins
    assert leader_at(g, 0, "trader") is None
    assert g.score(1)["green"] == 2                # Lion's F5 + his trader


def test_english_variant_in_positions_and_records():
    from tigris.record import replay, to_record
    g = revolt(3, 2)
    d = g.to_position()
    assert d["variants"] == ["english"]
    h = tigris.Game.from_position(d)
    assert legal(h) == legal(g)
    play(g, "support 2", "support 1")
    rec = to_record(tigris.Game(players=2, seed=4, variants=("english",)))
    assert rec["variants"] == ["english"]
    assert replay(rec).variants == ("english",)


# ---------------------------------------------------------------------------
# Civilization buildings (R95-R100, R36, R39, R64, R71)
# ---------------------------------------------------------------------------

B = ("buildings",)


def test_R95_building_on_any_tile_of_a_line_of_three():
    g = game({"E5": "red", "F5": "red"}, [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red G5")                         # E5 F5 G5: a line of 3
    assert (g.decision, g.current_player) == ("building", 0)
    assert legal(g) == {"building red E5", "building red F5", "building red G5",
                        "no-building"}
    refused(g, "building red H5", "not on a line of 3 or more face-up red tiles")
    refused(g, "building black G5", "only the red building may go on its line (R95)")
    play(g, "building red F5")
    assert building(g, "red") == "F5"
    assert (g.decision, g.actions_left) == ("action", 1)
    assert g.to_position()["squares"]["F5"] == "red+building"


def test_R95_no_line_no_offer_and_declining():
    g = game({"E5": "red"}, [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red F5")                         # a line of 2: nothing offered
    assert g.decision == "action"
    play(g, "tile red G5", "no-building")
    assert building(g, "red") is None and g.decision == "action"
    # Without the variant no building decision ever comes.
    g = game({"E5": "red", "F5": "red"}, [hand(red=3, black=3), hand(red=6)])
    play(g, "tile red G5")
    assert g.decision == "action"


def test_R95_vertical_and_crossing_lines():
    g = game({"G4": "red", "G6": "red", "E5": "red", "F5": "red"},
             [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red G5")                         # E5-G5 across, G4-G6 down
    assert legal(g) == {"building red E5", "building red F5", "building red G5",
                        "building red G4", "building red G6", "no-building"}
    assert len(g.legal_actions()) == 6             # G5 listed once


BUILT = {"E5": "red", "F5": "red+building", "G5": "red"}


def test_R96_building_moves_only_to_a_strictly_longer_line():
    # An equal line (3) elsewhere: nothing offered.
    g = game({**BUILT, "L3": "red", "L4": "red"}, [hand(red=3, black=3), hand(red=6)],
             variants=B)
    play(g, "tile red L5")
    assert g.decision == "action" and building(g, "red") == "F5"
    # A longer line (4): the building may move to any of its tiles.
    g = game({**BUILT, "L3": "red", "L4": "red", "L6": "red"},
             [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red L5")
    assert legal(g) == {"building red L3", "building red L4", "building red L5",
                        "building red L6", "no-building"}
    refused(g, "building red E5", "not on a line of 3 or more")
    play(g, "building red L6")
    assert building(g, "red") == "L6"
    assert g.to_position()["squares"]["F5"] == "red"


def test_R96_building_left_alone_by_a_war_moves_to_any_line_of_three():
    """Wars may leave the building's tile on a line shorter than 3 (R98); a new line of 3
    is then longer than the building's."""
    g = game({"L3": "green+building", "C5": "green", "D5": "green"},
             [hand(green=3, black=3), hand(red=6)], variants=B)
    play(g, "tile green B5")
    assert legal(g) == {"building green B5", "building green C5", "building green D5",
                        "no-building"}
    # Two tiles are never a line (R95), however short the building's own.
    g = game({"L3": "green+building", "D5": "green"}, [hand(green=3, black=3), hand(red=6)],
             variants=B)
    play(g, "tile green C5")
    assert g.decision == "action"


def test_R96_extending_the_buildings_own_line_offers_nothing():
    g = game(BUILT, [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red H5")                         # E5-H5: the building's own line, now 4
    assert g.decision == "action" and building(g, "red") == "F5"
    # The building's line is measured now: a new line must beat 4.
    play(g, "tile red L5")
    g = game({"E5": "red", "F5": "red+building", "G5": "red", "H5": "red", "L3": "red",
              "L4": "red", "L6": "red"}, [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red L5")                         # 4 is not longer than 4
    assert g.decision == "action"


def test_R96_R97_building_of_another_colour_is_untouched():
    g = game({**BUILT, "L3": "black", "L4": "black"}, [hand(red=3, black=3), hand(red=6)],
             variants=B)
    play(g, "tile black L5")
    assert legal(g) == {"building black L3", "building black L4", "building black L5",
                        "no-building"}
    play(g, "building black L4")
    assert building(g, "black") == "L4" and building(g, "red") == "F5"


@pytest.mark.parametrize("leader", ["priest", "king"])
def test_R36_R97_extra_point_with_the_building_in_the_kingdom(leader):
    """Player 1's priest (or king, standing in for a missing priest) on F6 next to the
    building's line E5-G5: a red tile joining the kingdom scores 1 + 1 for the building."""
    g = game({**BUILT, "F6": f"{leader}:1"}, [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red D5")
    assert g.score(1) == pts(red=2) and g.score(0) == pts()
    # Without the variant's building: 1.
    g = game({"E5": "red", "F5": "red", "G5": "red", "F6": f"{leader}:1"},
             [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red D5", "no-building")
    assert g.score(1) == pts(red=1)


def test_R97_only_the_buildings_colour_and_kingdom():
    g = game({**BUILT, "F6": "king:1"}, [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile black F4")                       # black: no black building
    assert g.score(1) == pts(black=1)
    # A red tile in another kingdom: no extra point.
    g = game({**BUILT, "I6": "priest:1"}, [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red J6")                         # next to I6, far from the building
    assert g.score(1) == pts(red=1)


def test_R97_building_in_a_leaderless_region_the_tile_joins():
    """E5-G5 (with the building) is leaderless; H5 joins it to I5's kingdom."""
    g = game({**BUILT, "I5": "red", "I6": "priest:1"}, [hand(red=3, black=3), hand(red=6)],
             variants=B)
    play(g, "tile red H5")
    assert g.score(1) == pts(red=2)


# Green war: Lion (0) with trader E4, temple E5, market F5; Bull (1) with trader H4,
# temple I4 and markets H5, I5 (the green building), J5.  G5 unites them.
WAR = {"E4": "trader:0", "E5": "red", "F5": "green", "H4": "trader:1", "I4": "red",
       "H5": "green", "I5": "green+building", "J5": "green"}


def test_R64_R98_building_tile_supports_and_survives_a_lost_war():
    g = game(WAR, [hand(black=1, green=4, red=1), hand(green=1, red=3, blue=2)], variants=B)
    play(g, "tile black G5")
    raw = g.raw_state()
    assert g.decision == "support"
    assert (raw["c_att_base"], raw["c_def_base"]) == (1, 3)    # the building's tile counts
    play(g, "support 4", "support 0")              # 5 : 3 -> Lion wins
    assert leader_at(g, 1, "trader") is None
    assert code(g, "H5") == EMPTY and code(g, "J5") == EMPTY
    assert code(g, "I5") == UP["green"] and building(g, "green") == "I5"
    assert g.score(0)["green"] == 3                # 2 removed + the leader, not the building's
    assert g.decision == "action"


def test_R99_war_first_then_the_line_must_still_exist():
    # Lion wins: H5, J5 go (I5 keeps the building), so F5-G5 is only 2 long: no offer.
    g = game(WAR, [hand(green=5, red=1), hand(green=1, red=3, blue=2)], variants=B)
    play(g, "tile green G5", "support 4", "support 0")
    assert g.decision == "action" and building(g, "green") == "I5"
    # Bull wins: Lion's F5 goes; G5-J5 is a line of 3 with the building on it: nothing.
    g = game(WAR, [hand(green=5, red=1), hand(green=1, red=3, blue=2)], variants=B)
    play(g, "tile green G5", "support 0", "support 0")
    assert code(g, "F5") == EMPTY and g.decision == "action"
    # Without a building on the board the surviving line G5-J5 is offered after the war.
    war = dict(WAR, I5="green")
    g = game(war, [hand(green=5, red=1), hand(green=1, red=3, blue=2)], variants=B)
    play(g, "tile green G5", "support 0", "support 0")
    assert (g.decision, g.current_player) == ("building", 0)
    assert legal(g) == {"building green G5", "building green H5", "building green I5",
                        "building green J5", "no-building"}


def test_R39_R100_catastrophe_refused_on_the_buildings_tile():
    g = game(BUILT, [hand(red=3, black=3), hand(red=6)], variants=B)
    assert "catastrophe F5" not in legal(g) and "catastrophe E5" in legal(g)
    refused(g, "catastrophe F5", "the civilization building stands on the square (R39)")
    play(g, "catastrophe E5")
    assert code(g, "E5") == CATASTROPHE and building(g, "red") == "F5"


def test_R100_building_before_monument_and_a_flipped_building_returns():
    squares = {"E5": "red", "F5": "red", "E6": "red", "G6": "red", "H6": "red"}
    g = game(squares, [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red F6")                         # line E6-H6 and the 2x2 E5-F6
    assert g.decision == "building"
    play(g, "building red G6")
    assert g.decision == "monument"
    play(g, "monument red-green E5")
    assert building(g, "red") == "G6"              # not on the monument: stays
    g = game(squares, [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red F6", "building red F6", "monument red-green E5")
    assert building(g, "red") is None              # flipped: back to the supply
    assert code(g, "F6") == 5 + 0                  # face down
    assert "+building" not in " ".join(g.to_position()["squares"].values())


def test_buildings_in_positions():
    g = game({**BUILT, "L3": "black+building"}, [hand(red=3, black=3), hand(red=6)],
             variants=B)
    assert building(g, "red") == "F5" and building(g, "black") == "L3"
    d = g.to_position()
    assert d["squares"]["F5"] == "red+building"
    assert tigris.Game.from_position(d).state_bytes() == g.state_bytes()
    d["squares"]["K1"] = "red+building+treasure"   # marks in either order
    d["squares"]["F5"] = "red"
    h = tigris.Game.from_position(d)
    assert building(h, "red") == "K1"
    assert h.to_position()["squares"]["K1"] == "red+treasure+building"


@pytest.mark.parametrize("squares, variants, match", [
    ({"F5": "red+building"}, (), r"^squares\.F5: a building needs the \"buildings\" variant"),
    ({"F5": "red+building", "L3": "red+building"}, B, r"^squares\.(F5|L3): the red building is "
                                                      r"also on (F5|L3)"),
    ({"F5": "priest:0+building"}, B, r"^squares\.F5: 'priest:0\+building' is not a square token"),
    ({"F5": "red+building+building"}, B, r"^squares\.F5: .* is not a square token"),
    ({"F5": "catastrophe+building"}, B, r"^squares\.F5: .* is not a square token"),
])
def test_buildings_in_positions_rejected(squares, variants, match):
    d = position(squares, [hand(red=6), hand(red=6)], variants=variants)
    with pytest.raises(tigris.PositionError, match=match):
        tigris.Game.from_position(d)


def test_building_on_a_face_down_tile_rejected():
    squares = {s: "red:down" for s in ("E5", "F5", "E6", "F6")}
    squares["F5"] = "red:down+building"
    d = position(squares, [hand(red=6), hand(red=6)], variants=B,
                 monuments={"red-blue": "E5"})
    with pytest.raises(tigris.PositionError, match=r"^squares\.F5: .*face-up tile"):
        tigris.Game.from_position(d)


def test_pending_building_decision_in_positions():
    g = game({"E5": "red", "F5": "red"}, [hand(red=3, black=3), hand(red=6)], variants=B)
    play(g, "tile red G5")
    d = g.to_position()
    assert d["pending"] == {"decision": "building", "placed": "G5"}
    h = tigris.Game.from_position(d)
    assert h.decision == "building" and legal(h) == legal(g)
    d["pending"]["placed"] = "E5"                   # E5 is on the same line: fine
    assert tigris.Game.from_position(d).decision == "building"
    d["squares"]["K3"] = "red"
    d["bag"] = None
    d["pending"]["placed"] = "K3"
    with pytest.raises(tigris.PositionError, match=r"^pending\.placed: no building can be put"):
        tigris.Game.from_position(d)
    del d["pending"]["placed"]
    with pytest.raises(tigris.PositionError, match=r"^pending\.placed: a building decision "
                                                   r"needs the tile just placed"):
        tigris.Game.from_position(d)


def test_buildings_rendered():
    g = game({**BUILT, "B2": "red+treasure+building", "F5": "red"},
             [hand(red=3, black=3), hand(red=6)], variants=B)
    text = str(g)
    assert "variants: buildings" in text
    assert "Buildings on the board: red B2; in the supply: blue, green, black" in text
    row2 = next(line for line in text.splitlines() if line.startswith("  2 "))
    assert "r*^" in row2.split()
    assert max(len(line) for line in text.splitlines()) < 100
