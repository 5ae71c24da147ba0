"""Illegal actions are refused with the reason (and rule) in the message; nothing changes."""

import random
import re

import pytest

import tigris
from tigris.boards import layout
from tigris.legality import why_illegal
from tigris.notation import N_ACTIONS, square_name, str_to_action
from tigris.position import FORMAT, from_position

from helpers import hand

TEMPLES = sorted(layout("classic")[1])


def game(squares=None, hands=None, catastrophes=(2, 2), **extra):
    sq = {square_name(i): "red+treasure" for i in TEMPLES}
    sq.update(squares or {})
    hands = hands or [hand(2, 2, 1, 1), hand(1, 1, 2, 2)]
    d = {"format": FORMAT, "squares": sq, "bag": None,
         "players": [{"hand": h, "catastrophes": k} for h, k in zip(hands, catastrophes)]}
    d.update(extra)
    return from_position(d, seed=1)


def refused(g, text, reason):
    """g.apply(text) raises IllegalActionError whose message holds `reason` (plain text),
    and the game state is unchanged."""
    before = g.state_bytes()
    history = g.history
    with pytest.raises(tigris.IllegalActionError) as e:
        g.apply(text)
    message = str(e.value)
    assert reason in message, message
    assert message.startswith(g.action_str(str_to_action(text)) + ": ")
    assert g.state_bytes() == before
    assert g.history == history
    # The id and the notation give the same reason; parse_action refuses it too.
    with pytest.raises(tigris.IllegalActionError, match=re.escape(reason)):
        g.apply(str_to_action(text))
    with pytest.raises(tigris.IllegalActionError, match=re.escape(reason)):
        g.parse_action(text)
    assert g.state_bytes() == before
    return message


# Three kingdoms around G6: {G4 red, G5 priest:0}, {E6 red, F6 king:0}, {I6 red, H6 farmer:1};
# F4 red joins the first, so F5 touches two kingdoms and a temple.
THREE = {"G4": "red", "G5": "priest:0", "E6": "red", "F6": "king:0", "I6": "red",
         "H6": "farmer:1", "F4": "red"}


def test_tile_rules():
    g = game(THREE, hands=[hand(red=2, blue=2, black=2), hand(1, 1, 2, 2)])
    refused(g, "tile red E1", "only blue tiles may be placed on a river square (R29)")
    refused(g, "tile blue A1", "blue tiles may only be placed on river squares (R29)")
    refused(g, "tile red K1", "the square is not empty (R28): K1 holds a red tile with a treasure")
    refused(g, "tile red G5", "the square is not empty (R28): G5 holds player 0's priest")
    refused(g, "tile black G6", "the tile would unite three kingdoms (R31)")
    refused(g, "tile green A1", "no green tile in hand (player 0 holds 2 red, 2 blue, 2 black)")
    g.apply("tile black A1")                       # a legal one still works
    assert g.actions_left == 1


def test_tile_on_catastrophe_and_monument():
    four = {"H3": "black:down", "I3": "black:down", "H4": "black:down", "I4": "black:down",
            "C4": "catastrophe"}
    g = game(four, monuments=[{"colours": "red-black", "at": "H3"}], catastrophes=(2, 1))
    d_players = g.to_position()["players"]
    assert d_players[0]["catastrophes"] == 2 and sum(p["catastrophes"] for p in d_players) == 3
    refused(g, "tile red C4", "the square is not empty (R40): C4 holds a catastrophe")
    refused(g, "tile red H3", "the square is not empty (R28): H3 holds a face-down black monument")


def test_leader_rules():
    g = game(THREE)
    refused(g, "leader trader F5", "the leader would connect two kingdoms (R20)")
    refused(g, "leader trader G6", "no temple next to the square (R19)")
    refused(g, "leader trader A1", "no temple next to the square (R19)")
    refused(g, "leader trader E3", "a leader may not stand on a river square (R18)")
    refused(g, "leader trader G4", "the square is not empty (R17): G4 holds a red tile")
    refused(g, "leader priest G5", "the priest already stands on G5; a move must change its "
                                   "square (R21)")
    refused(g, "withdraw trader", "player 0's trader is not on the board (R22)")
    # Moving the king out of its kingdom to F5: with the king lifted, F5 touches one kingdom.
    g.apply("leader king F5")
    assert g.decision == "action"


def test_leader_next_to_face_down_temple_only():
    four = {"H3": "red:down", "I3": "red:down", "H4": "red:down", "I4": "red:down"}
    g = game(four, monuments=[{"colours": "red-blue", "at": "H3"}])
    refused(g, "leader king J3", "no temple next to the square (R19): a face-down monument tile "
                                 "is not a temple (R5)")


def test_catastrophe_rules():
    four = {"H3": "black:down", "I3": "black:down", "H4": "black:down", "I4": "black:down",
            "C4": "catastrophe", "J1": "king:0"}
    g = game(four, monuments=[{"colours": "red-black", "at": "H3"}], catastrophes=(2, 1))
    refused(g, "catastrophe K1", "a treasure lies on the square (R39, R79)")
    refused(g, "catastrophe H3", "a face-down monument tile lies on the square (R39")
    refused(g, "catastrophe J1", "a leader stands on the square (R39): player 0's king")
    refused(g, "catastrophe C4", "a catastrophe already lies on the square (R40)")
    g.apply("catastrophe A1")
    g.apply("catastrophe A2")       # the turn is over
    g.apply("pass")                 # player 1's turn
    assert g.current_player == 0
    refused(g, "catastrophe A3", "no catastrophe tiles left (R37)")


def test_swap_rule():
    g = game(hands=[hand(red=1, blue=5), hand(1, 1, 2, 2)])
    refused(g, "swap red red", "the swap discards 2 red tiles, but player 0 holds 1 (R43")
    refused(g, "swap green", "the swap discards 1 green tile, but player 0 holds 0 (R43")


def test_wrong_decision():
    g = game()
    refused(g, "support 1", "it is not the time for that: the decision is 'action' by player 0")
    refused(g, "war red", "it is not the time for that: the decision is 'action' by player 0")
    refused(g, "no-monument", "it is not the time for that: the decision is 'action'")
    refused(g, "monument red-blue A1", "it is not the time for that: the decision is 'action'")
    refused(g, "treasure B2", "it is not the time for that: the decision is 'action'")
    refused(g, "building red G5", "the civilization-buildings variant is not in play")
    refused(g, "no-building", "the civilization-buildings variant is not in play")


def revolt():
    """RULES.md example 1: Lion (0) places his priest at K5; Bull (1) defends from I5."""
    g = game({"I5": "priest:1", "I4": "red", "H5": "red", "K4": "red", "K6": "red",
              "L5": "red", "J5": "black"},
             hands=[hand(red=3, blue=3), hand(red=2, green=4)])
    g.apply("leader priest K5")
    assert g.decision == "support" and g.current_player == 0
    return g


def test_support_rules():
    g = revolt()
    refused(g, "support 4", "support 4: player 0 has only 3 red tiles (R50: revolts are fought "
                            "with red tiles)")
    refused(g, "tile red A1", "it is not the time for that: the decision is 'support' by player 0")
    refused(g, "pass", "it is not the time for that: the decision is 'support' by player 0")
    refused(g, "war red", "it is not the time for that: the decision is 'support' by player 0")
    g.apply("support 2")
    assert g.current_player == 1
    refused(g, "support 3", "support 3: player 1 has only 2 red tiles")
    refused(g, "leader king J1", "it is not the time for that: the decision is 'support' by "
                                 "player 1")
    g.apply("support 2")            # 3 + 2 > 2 + 2: the attacker wins
    assert g.score(0)["red"] == 1


def wars():
    """Two kingdoms joined by the black tile G5: priests (red) and kings (black) at war."""
    sides = {"E5": "red", "F5": "green", "E4": "king:0", "D5": "priest:0",
             "H5": "red", "H4": "king:1", "I5": "priest:1"}
    g = game(sides, hands=[hand(red=2, green=2, black=2), hand(red=1, blue=1, green=2, black=2)])
    g.apply("tile black G5")
    assert g.decision == "war_order" and g.current_player == 0
    return g


def test_war_order_and_war_support():
    g = wars()
    refused(g, "war green", "no war in green is pending (R59; to choose from: red, black)")
    refused(g, "war blue", "no war in blue is pending")
    refused(g, "support 0", "it is not the time for that: the decision is 'war_order' by player 0")
    refused(g, "tile red A1", "the decision is 'war_order'")
    g.apply("war black")
    assert g.decision == "support"
    refused(g, "support 2", "support 2: player 0 has only 1 black tile (R62: a black war is "
                            "fought with black tiles)")
    refused(g, "war red", "it is not the time for that: the decision is 'support' by player 0")


def monument_offer():
    g = game({"H10": "red", "I10": "red", "H11": "red", "A1": "red:down", "B1": "red:down",
              "A2": "red:down", "B2": "red:down+treasure"},
             hands=[hand(red=3, blue=3), hand(1, 1, 2, 2)],
             monuments=[{"colours": "red-blue", "at": "A1"}])
    g.apply("tile red I11")
    assert g.decision == "monument"
    return g


def test_monument_rules():
    g = monument_offer()
    refused(g, "monument red-blue H10", "the red-blue monument is already built (on A1) (R70)")
    refused(g, "monument blue-green H10", "the blue-green monument needs a square of one of its "
                                          "colours; the square at H10 is red (R70)")
    refused(g, "monument red-green C3", "the 2x2 square at C3 does not hold the tile just placed "
                                        "on I11 (R69, R72)")
    refused(g, "monument red-green G10", "the 2x2 square at G10 does not hold the tile just placed")
    refused(g, "monument red-green I10", "the 2x2 square at I10 is not four face-up tiles of one "
                                         "colour (R69)")
    refused(g, "monument red-green P7", "no 2x2 square has its top-left corner on P7")
    refused(g, "tile red A5", "it is not the time for that: the decision is 'monument' by player 0")
    g.apply("monument red-green H10")
    assert g.to_position()["squares"]["I11"] == "red:down"


def treasure_choice():
    """RULES.md example 4 as a pending decision: the trader on A2 owns a kingdom with the
    corner treasure B2 and the normal treasure F3."""
    g = game({"A2": "trader:0", "B3": "farmer:1", "C2": "black", "D2": "black", "E2": "blue",
              "F2": "black"}, actions_left=1,
             pending={"decision": "treasure", "trader": "A2", "placed": "E2"})
    assert g.decision == "treasure" and g.current_player == 0
    return g


def test_treasure_rules():
    g = treasure_choice()
    refused(g, "treasure F3", "the treasure must be a corner treasure first (R77)")
    refused(g, "treasure K1", "the treasure on K1 is not in the kingdom of the trader on A2 (R76)")
    refused(g, "treasure A1", "there is no treasure on A1")
    refused(g, "pass", "it is not the time for that: the decision is 'treasure' by player 0")
    g.apply("treasure B2")
    assert g.score(0)["treasures"] == 1


def test_treasure_example_4_in_play():
    g = game({"A2": "trader:0", "B3": "farmer:1", "C2": "black", "D2": "black", "F2": "black"},
             hands=[hand(blue=3, red=3), hand(1, 1, 2, 2)])
    g.apply("tile blue E2")
    # Bull's farmer scores the blue tile; the only option, the corner treasure, is taken.
    assert g.score(1)["blue"] == 1
    assert g.score(0)["treasures"] == 1
    assert "+treasure" not in g.to_position()["squares"]["B2"]
    assert g.to_position()["squares"]["F3"] == "red+treasure"


def test_game_over():
    g = tigris.Game(players=2, seed=3)
    g.random_playout(3)
    refused(g, "pass", "the game is over")
    refused(g, "tile red A1", "the game is over")


def test_why_illegal_of_a_legal_action():
    g = tigris.Game(players=2, seed=3)
    assert why_illegal(g, g.legal_actions()[0]) == "the action is legal"
    assert "outside the action space" in why_illegal(g, N_ACTIONS)


@pytest.mark.parametrize("players, setup", [
    (2, {}), (3, {}), (4, {}),
    (2, dict(board="advanced", variants=("english", "buildings"))),
    (3, dict(board="classic", variants=("english", "buildings"))),
])
@pytest.mark.slow
def test_every_illegal_action_gets_a_specific_reason(players, setup):
    """In random games, no illegal action falls through to the generic reason."""
    rng = random.Random(players)
    g = tigris.Game(players=players, seed=players, **setup)
    checked = 0
    step = 0
    while not g.is_over:
        legal = set(g.legal_actions())
        if g.decision != "action" or step % 15 == 0:
            for a in range(N_ACTIONS):
                if a not in legal:
                    reason = why_illegal(g, a)
                    assert not reason.startswith("not legal in this position"), (
                        g.action_str(a), reason)
                    checked += 1
        g.apply(rng.choice(sorted(legal)))
        step += 1
    assert checked > 10000
