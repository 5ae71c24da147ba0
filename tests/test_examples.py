"""The six worked examples of RULES.md section 6, as tests.

Every example is built as a ``tigris-position/1`` dict: only the pieces the example lists
are on the board, besides the 10 starting temples with their treasures.  Coordinates in
the comments are RULES.md's ``(row, col)``; the code uses board labels (``(4, 6)`` = G5).
Dynasties map to players: Lion = 0, Bull = 1 (examples 1-4); Archer = 0, Bull = 1,
Lion = 2 (example 5); Lion = 0, Bull = 1, Potter = 2, Archer = 3 (example 6).
"""


from tigris import notation

from helpers import (CATASTROPHE, DOWN, EMPTY, TEMPLES, UP, bag_size, code, game, hand,
                     hand_size, leader_at, legal, out, play, same_region, score, sq, treasure_on)

# ---------------------------------------------------------------------------
# Example 1: revolt ending in a tie
# ---------------------------------------------------------------------------

LION, BULL = 0, 1

EXAMPLE1 = {
    sq(4, 8): "priest:1",                                   # Bull's priest
    sq(3, 8): "red", sq(4, 7): "red",                       # Bull's two adjacent temples
    sq(3, 10): "red", sq(5, 10): "red", sq(4, 11): "red",   # three leaderless temples
    sq(4, 9): "black",
}


def example1(variants=()):
    return game(EXAMPLE1, [hand(red=3, blue=1, green=1, black=1), hand(red=4, black=2)],
                variants=variants)


def test_example1_priest_placement_is_legal_and_starts_a_revolt():
    g = example1()
    assert "leader priest K5" in legal(g)          # (4, 10)
    play(g, "leader priest K5")
    assert g.decision == "support"
    assert g.current_player == LION                # the attacker commits first
    raw = g.raw_state()
    assert (raw["c_att_base"], raw["c_def_base"]) == (3, 2)
    assert raw["c_attacker"] == LION and raw["c_defender"] == BULL
    # Red support whatever happens: Lion may commit 0..3 red tiles.
    assert legal(g) == {f"support {n}" for n in range(4)}


def test_example1_tie_goes_to_the_defender():
    g = example1()
    board_before = [code(g, s) for s in EXAMPLE1]
    play(g, "leader priest K5", "support 2")
    assert g.decision == "support" and g.current_player == BULL
    play(g, "support 3")                           # 3 + 2 : 2 + 3 -> tie -> Bull wins
    assert leader_at(g, LION, "priest") is None    # back to Lion's supply
    assert leader_at(g, BULL, "priest") == "I5"
    assert g.score(BULL) == {"red": 1, "blue": 0, "green": 0, "black": 0, "treasures": 0}
    assert g.score(LION) == {"red": 0, "blue": 0, "green": 0, "black": 0, "treasures": 0}
    assert out(g) == {"red": 5, "blue": 0, "green": 0, "black": 0}
    assert [code(g, s) for s in EXAMPLE1] == board_before   # no board tile removed
    assert code(g, "K5") == EMPTY
    assert g.hand(LION)["red"] == 1 and g.hand(BULL)["red"] == 1
    # The revolt was Lion's first action; his second one is next.
    assert (g.decision, g.current_player, g.actions_left) == ("action", LION, 1)


def test_example1_both_hands_refilled_at_end_of_lions_turn():
    g = example1()
    play(g, "leader priest K5", "support 2", "support 3")
    assert hand_size(g, LION) == 4 and hand_size(g, BULL) == 3   # nobody refills yet
    bag = bag_size(g)
    play(g, "pass")
    assert hand_size(g, LION) == 6 and hand_size(g, BULL) == 6
    assert bag_size(g) == bag - 5
    assert g.active_player == BULL and g.actions_left == 2


def test_example1_english_variant_same_commits_are_legal():
    g = example1(variants=["english"])
    play(g, "leader priest K5")
    assert "support 2" in legal(g)                 # 3 + 2 > 2
    play(g, "support 2")
    options = legal(g)
    assert "support 3" in options                  # exactly enough to tie (5 : 5)
    assert not options & {"support 1", "support 2", "support 4"}
    play(g, "support 3")
    assert leader_at(g, LION, "priest") is None
    assert g.score(BULL)["red"] == 1
    assert out(g)["red"] == 5


def test_example1_first_round_check():
    """Attacker 1 adjacent + 3 committed vs defender 1 + 0: 4 : 1, attacker wins +1 red,
    then places a 4th temple into the kingdom (+1 red) and draws 4 tiles at the end."""
    g = game({"I5": "priest:1", "I4": "red", "J5": "black", "K4": "red"},
             [hand(red=4, black=2), hand(red=2, black=4)])
    play(g, "leader priest K5")
    raw = g.raw_state()
    assert (raw["c_att_base"], raw["c_def_base"]) == (1, 1)
    play(g, "support 3", "support 0")
    assert leader_at(g, BULL, "priest") is None
    assert leader_at(g, LION, "priest") == "K5"
    assert g.score(LION)["red"] == 1 and g.score(BULL)["red"] == 0
    assert out(g)["red"] == 3
    bag = bag_size(g)
    play(g, "tile red L5")                         # into the kingdom, next to his priest
    assert g.score(LION)["red"] == 2
    # That was Lion's second action: the turn ended and he drew 3 + 1 = 4 tiles.
    assert g.active_player == BULL and not g.is_over
    assert hand_size(g, LION) == 6 and hand_size(g, BULL) == 6
    assert bag - bag_size(g) == 4


# ---------------------------------------------------------------------------
# Example 2: war over traders; the kings' conflict vanishes
# ---------------------------------------------------------------------------

EXAMPLE2 = {
    # Lion's side
    sq(4, 4): "red", sq(4, 5): "green", sq(3, 4): "king:0", sq(5, 4): "trader:0",
    # Bull's side
    sq(4, 7): "green", sq(4, 8): "green", sq(4, 9): "red",
    sq(3, 9): "king:1", sq(5, 9): "trader:1",
}


def example2(variants=()):
    return game(EXAMPLE2, [hand(black=1, green=4, red=1), hand(green=1, red=3, blue=2)],
                variants=variants)


def test_example2_unification_and_war_order():
    g = example2()
    play(g, "tile black G5")                       # (4, 6) touches exactly two kingdoms
    assert g.score(LION) == {"red": 0, "blue": 0, "green": 0, "black": 0, "treasures": 0}
    assert g.decision == "war_order" and g.current_player == LION
    assert legal(g) == {"war green", "war black"}
    assert g.raw_state()["unif"] == notation.square_index("G5")


def test_example2_green_war_and_vanishing_king_conflict():
    g = example2()
    play(g, "tile black G5", "war green")
    raw = g.raw_state()
    assert g.decision == "support" and g.current_player == LION
    assert raw["c_attacker"] == LION and raw["c_defender"] == BULL
    assert (raw["c_att_base"], raw["c_def_base"]) == (1, 2)
    play(g, "support 4")
    assert g.current_player == BULL
    play(g, "support 1")                           # 5 : 3 -> Lion wins
    assert leader_at(g, BULL, "trader") is None
    assert code(g, "H5") == EMPTY and code(g, "I5") == EMPTY
    assert g.score(LION)["green"] == 3             # 2 removed + 1 leader
    assert g.score(BULL) == {"red": 0, "blue": 0, "green": 0, "black": 0, "treasures": 0}
    assert out(g) == {"red": 0, "blue": 0, "green": 7, "black": 0}
    # The kings' conflict vanished: both kings stay, nobody scores black.
    assert leader_at(g, LION, "king") == "E4" and leader_at(g, BULL, "king") == "J4"
    assert g.score(LION)["black"] == 0 and g.score(BULL)["black"] == 0
    assert code(g, "J5") == UP["red"]
    # Marker gone, the uniting tile stays unscored in Lion's kingdom.
    assert g.raw_state()["unif"] == 255
    assert code(g, "G5") == UP["black"]
    assert same_region(g, "G5", "E4")
    assert not same_region(g, "J4", "E4")
    # No monument, no treasure: Lion's second action.
    assert (g.decision, g.current_player, g.actions_left) == ("action", LION, 1)
    assert g.score(LION)["treasures"] == 0


def test_example2_english_variant_defender_must_tie_exactly():
    g = example2(variants=["english"])
    play(g, "tile black G5", "war green")
    assert "support 4" in legal(g)                 # 1 + 4 > 2
    play(g, "support 4")
    # Bull (2 on the board) could only commit exactly 3 to reach 5; he holds 1 green, so
    # committing 1 is illegal: he commits nothing (the only option, applied by the engine).
    assert g.decision != "support"
    assert leader_at(g, BULL, "trader") is None
    assert g.hand(BULL)["green"] == 1
    assert out(g)["green"] == 6                    # Lion's 4 + the 2 removed
    assert g.score(LION)["green"] == 3


# ---------------------------------------------------------------------------
# Example 3: red war with the temple exception
# ---------------------------------------------------------------------------

EXAMPLE3 = {
    sq(4, 4): "red", sq(4, 5): "red", sq(5, 4): "priest:0",
    sq(4, 7): "red", sq(4, 8): "red", sq(4, 9): "red", sq(3, 8): "priest:1", sq(5, 9): "king:1",
}


def example3(bull_red=2, variants=()):
    return game(EXAMPLE3, [hand(red=2, green=1, black=3), hand(red=bull_red, blue=6 - bull_red)],
                variants=variants)


def test_example3_red_war_keeps_the_temple_next_to_the_kings():
    g = example3()
    play(g, "tile green G5")
    # Only the priests conflict: no war order to choose.
    raw = g.raw_state()
    assert g.decision == "support" and g.current_player == LION
    assert raw["c_colour"] == 0 and (raw["c_att_base"], raw["c_def_base"]) == (2, 3)
    assert g.score(LION)["green"] == 0
    play(g, "support 2", "support 0")              # 4 : 3 -> Lion wins
    assert leader_at(g, BULL, "priest") is None
    assert code(g, "H5") == EMPTY                  # touches no leader
    assert code(g, "I5") == EMPTY                  # touches only the losing priest
    assert code(g, "J5") == UP["red"]              # touches Bull's king: kept
    assert leader_at(g, BULL, "king") == "J6"      # still has a temple
    assert g.score(LION) == {"red": 3, "blue": 0, "green": 0, "black": 0, "treasures": 0}
    assert g.score(BULL) == {"red": 0, "blue": 0, "green": 0, "black": 0, "treasures": 0}
    assert out(g) == {"red": 4, "blue": 0, "green": 0, "black": 0}   # 2 committed + 2 removed
    assert g.hand(LION)["red"] == 0 and g.hand(BULL)["red"] == 2
    assert g.raw_state()["unif"] == 255
    assert code(g, "G5") == UP["green"]
    assert (g.decision, g.current_player, g.actions_left) == ("action", LION, 1)


def test_example3_english_variant_defender_ties_with_one():
    g = example3(bull_red=1, variants=["english"])
    play(g, "tile green G5")
    assert "support 2" in legal(g)                 # 2 + 2 > 3
    play(g, "support 2")
    assert legal(g) == {"support 0", "support 1"}  # 0, or exactly enough to tie
    play(g, "support 1")                           # 4 : 4 -> Bull wins
    assert leader_at(g, LION, "priest") is None
    assert leader_at(g, BULL, "priest") == "I4"


# ---------------------------------------------------------------------------
# Example 4: farm on a river, scoring and a corner treasure
# ---------------------------------------------------------------------------

def example4(bull_leader="farmer"):
    return game({sq(1, 2): "black", sq(1, 3): "black", sq(1, 5): "black",
                 sq(1, 0): "trader:0", sq(2, 1): f"{bull_leader}:1"},
                [hand(blue=2, red=2, black=2), hand(red=3, green=3)])


def test_example4_farm_scores_for_bull_and_lion_takes_the_corner_treasure():
    g = example4()
    assert "tile blue E2" in legal(g)              # (1, 4) is a river square
    play(g, "tile blue E2")
    assert g.score(BULL) == {"red": 0, "blue": 1, "green": 0, "black": 0, "treasures": 0}
    assert g.score(LION) == {"red": 0, "blue": 0, "green": 0, "black": 0, "treasures": 1}
    assert not treasure_on(g, "B2")                # the corner treasure was taken
    assert treasure_on(g, "F3")                    # the normal one stays
    assert sum(g.raw_state()["treasure"]) == 9
    # Only one legal choice: the engine took it itself.
    assert (g.decision, g.current_player, g.actions_left) == ("action", LION, 1)


def test_example4_variant_bulls_king_takes_the_blue_point():
    g = example4(bull_leader="king")
    play(g, "tile blue E2")
    assert g.score(BULL)["blue"] == 1
    assert g.score(LION)["blue"] == 0
    assert g.score(LION)["treasures"] == 1 and not treasure_on(g, "B2")


# ---------------------------------------------------------------------------
# Example 5: monument, orphaned leader, end-of-turn scoring
# ---------------------------------------------------------------------------

ARCHER, BULL5, LION5 = 0, 1, 2

EXAMPLE5 = {
    sq(5, 8): "red", sq(5, 9): "red", sq(7, 7): "red", sq(4, 10): "red",
    sq(7, 8): "priest:0", sq(4, 8): "farmer:1", sq(5, 10): "king:2",
}


def example5():
    return game(EXAMPLE5, [hand(red=3, blue=3), hand(green=3, black=3), hand(red=2, blue=2, black=2)])


def test_example5_tile_scores_and_monument_is_offered():
    g = example5()
    play(g, "tile red J7")                         # (6, 9)
    assert g.score(ARCHER)["red"] == 1
    assert g.decision == "monument" and g.current_player == ARCHER
    assert legal(g) == {"monument red-blue I6", "monument red-green I6",
                        "monument red-black I6", "no-monument"}


def test_example5_monument_flips_and_orphans_the_farmer():
    g = example5()
    play(g, "tile red J7", "monument red-blue I6")
    for s in ("I6", "J6", "I7", "J7"):
        assert code(g, s) == DOWN["red"], s
    assert treasure_on(g, "I7")                    # the treasure stays on (6, 8)
    assert g.raw_state()["monument"][0] == notation.square_index("I6")     # red-blue
    assert leader_at(g, ARCHER, "priest") == "I8"  # still has (7, 7)
    assert leader_at(g, LION5, "king") == "K6"     # still has (4, 10)
    assert leader_at(g, BULL5, "farmer") is None   # its only temple is face down
    assert g.score(LION5)["treasures"] == 0 and g.score(ARCHER)["treasures"] == 0
    assert g.score(ARCHER)["red"] == 1             # building scores nothing
    assert (g.decision, g.current_player, g.actions_left) == ("action", ARCHER, 1)


def test_example5_end_of_turn_monument_points():
    g = example5()
    play(g, "tile red J7", "monument red-blue I6", "pass")
    assert g.score(ARCHER)["red"] == 2             # 1 for the tile + 1 at the end of the turn
    assert g.score(ARCHER)["blue"] == 0
    assert g.active_player == BULL5
    play(g, "pass")                                # Bull's turn
    play(g, "pass")                                # Lion's turn: his king never scores red/blue
    assert g.score(LION5) == {"red": 0, "blue": 0, "green": 0, "black": 0, "treasures": 0}


def test_example5_red_black_monument_would_feed_lions_king():
    g = example5()
    play(g, "tile red J7", "monument red-black I6", "pass")
    assert g.score(ARCHER)["red"] == 2 and g.score(ARCHER)["black"] == 0
    assert g.score(LION5)["black"] == 0            # not Lion's turn
    play(g, "pass")                                # Bull
    assert g.score(LION5)["black"] == 0
    play(g, "pass")                                # Lion: +1 black at the end of his turn
    assert g.score(LION5)["black"] == 1
    play(g, "pass", "pass", "pass")
    assert g.score(LION5)["black"] == 2            # every one of Lion's turns


def test_example5_continuation_catastrophe_orphans_the_priest():
    g = example5()
    play(g, "tile red J7", "monument red-blue I6", "pass")
    assert g.active_player == BULL5
    options = legal(g)
    assert "catastrophe I7" not in options         # treasure + monument
    assert "catastrophe J6" not in options         # monument
    assert "catastrophe H8" in options
    out_before = out(g)["red"]
    play(g, "catastrophe H8")                      # (7, 7)
    assert code(g, "H8") == CATASTROPHE
    assert out(g)["red"] == out_before + 1
    assert leader_at(g, ARCHER, "priest") is None  # (6, 8) is face down
    assert leader_at(g, LION5, "king") == "K6"
    assert g.raw_state()["catastrophes"][BULL5] == 1
    scores = [g.score(p) for p in range(3)]
    assert scores[ARCHER]["red"] == 2 and scores[BULL5]["red"] == 0


# ---------------------------------------------------------------------------
# Example 6: final scoring
# ---------------------------------------------------------------------------

LION6, BULL6, POTTER6, ARCHER6 = 0, 1, 2, 3
EXAMPLE6_SCORES = {
    LION6: (score(red=10, blue=7, green=13, black=12), 3),
    BULL6: (score(red=10, blue=11, green=14, black=10), 0),
    POTTER6: (score(red=11, blue=9, green=12, black=10), 3),
    ARCHER6: (score(red=6, blue=12, green=15, black=22), 3),
}


def example6():
    """The final turn: 9 treasures collected, 1 left (I7).  Lion has just swapped (his
    first action) and has one action left; the game ends at the end of his turn."""
    taken = [t for t in TEMPLES if t != "I7"]
    players = range(4)
    return game({}, [hand(red=2, blue=2, green=1, black=1)] * 4, to_move=LION6, actions_left=1,
                scores=[EXAMPLE6_SCORES[p][0] for p in players],
                treasures=[EXAMPLE6_SCORES[p][1] for p in players], taken=taken)


def test_example6_game_ends_with_one_treasure_left():
    g = example6()
    assert not g.is_over                           # only checked at the end of a turn
    play(g, "pass")
    assert g.is_over
    assert g.decision == "over"


def test_example6_final_vectors():
    g = example6()
    play(g, "pass")
    assert g.final_vector(POTTER6) == (11, 11, 11, 12)
    assert g.final_vector(LION6) == (10, 10, 12, 13)
    assert g.final_vector(BULL6) == (10, 10, 11, 14)
    assert g.final_vector(ARCHER6) == (9, 12, 15, 22)
    assert [g.final_score(p) for p in (POTTER6, LION6, BULL6, ARCHER6)] == [11, 10, 10, 9]


def test_example6_ranking():
    g = example6()
    play(g, "pass")
    # Potter 1st; Lion and Bull tie on 10, 10 and Lion's 12 beats Bull's 11; Archer 4th.
    assert g.ranking() == [[POTTER6], [LION6], [BULL6], [ARCHER6]]
