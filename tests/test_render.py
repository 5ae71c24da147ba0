"""The text diagram: pieces at the right squares, the players and the decision below."""

import random

import pytest

import tigris
from tigris.boards import layout
from tigris.constants import NSQ
from tigris.notation import square_name
from tigris.position import FORMAT, from_position
from tigris.render import render

from helpers import hand

TEMPLES = sorted(layout("classic")[1])
RIVERS = layout("classic")[0]


def grid(text):
    """{square name: token} read back from the diagram's grid."""
    lines = text.splitlines()
    header = next(k for k, line in enumerate(lines) if line.split() == list("ABCDEFGHIJKLMNOP"))
    cells = {}
    for r in range(11):
        line = lines[header + 1 + r]
        assert line[:3].strip() == str(r + 1)
        assert line.split()[-1] == str(r + 1)
        for c in range(16):
            cells[square_name(r * 16 + c)] = line[3 + 4 * c: 7 + 4 * c].strip()
    assert lines[header + 12].split() == list("ABCDEFGHIJKLMNOP")
    return cells


def test_starting_board():
    g = tigris.Game(players=2, seed=1)
    cells = grid(str(g))
    for i in range(NSQ):
        name = square_name(i)
        if i in TEMPLES:
            assert cells[name] == "r*", name
        elif i in RIVERS:
            assert cells[name] == "~", name
        else:
            assert cells[name] == ".", name
    assert cells["G5"] == "." and cells["E1"] == "~" and cells["K1"] == "r*"


def test_pieces_at_their_squares():
    sq = {square_name(i): "red+treasure" for i in TEMPLES}
    sq.update({"H3": "black:down", "I3": "black:down", "H4": "black:down", "I4": "black:down",
               "C4": "catastrophe", "J1": "king:1", "G3": "red", "G4": "priest:0", "E2": "blue",
               "A1": "green", "P1": "black"})
    sq["B2"] = "red"           # its treasure was collected
    d = {"format": FORMAT, "squares": sq, "bag": None,
         "monuments": [{"colours": "red-black", "at": "H3"}],
         "players": [{"hand": hand(red=2, blue=4), "treasures": 1, "catastrophes": 1,
                      "score": hand(red=3, black=1)},
                     {"hand": hand(green=5), "swapped_face_down": 2}],
         "to_move": 1, "actions_left": 1, "turn": 7}
    g = from_position(d)
    text = str(g)
    assert text == render(g)
    cells = grid(text)
    assert cells["H3"] == cells["I3"] == cells["H4"] == cells["I4"] == "#k"
    assert cells["C4"] == "XX"
    assert cells["J1"] == "K1"         # player 1's king
    assert cells["G4"] == "P0"         # player 0's priest
    assert cells["G3"] == "r" and cells["E2"] == "b" and cells["A1"] == "g" and cells["P1"] == "k"
    assert cells["B2"] == "r" and cells["K1"] == "r*"
    assert cells["E1"] == "~" and cells["G5"] == "."
    lines = text.splitlines()
    p0 = next(k for k, line in enumerate(lines) if line.startswith("Player 0"))
    p1 = next(k for k, line in enumerate(lines) if line.startswith("Player 1"))
    block0, block1 = "\n".join(lines[p0:p1]), "\n".join(lines[p1:p1 + 3])
    assert "score red 3, blue 0, green 0, black 1; treasures 1" in block0
    assert "hand 6: red 2, blue 4, green 0, black 0; catastrophes left 1" in block0
    assert "leaders in supply: farmer, trader, king; on the board: priest G4" in block0
    assert "hand 5: red 0, blue 0, green 5, black 0; catastrophes left 2; face-down discards 2" \
        in block1
    assert "leaders in supply: priest, farmer, trader; on the board: king J1" in block1
    assert lines[p1].startswith("Player 1 (to move)")
    bag = sum(g.raw_state()["bag"])
    assert f"Bag: {bag} tiles" in text
    assert "Monuments built: red-black H3" in text
    assert "Turn 7: player 1 to move, 1 action left. Decision: action by player 1" in text
    assert "Legend:" in text


def test_monument_tile_with_treasure_and_unification_marks():
    sides = {"E5": "red", "F5": "green", "E4": "king:0", "D5": "priest:0",
             "H5": "red", "H4": "king:1", "I5": "priest:1"}
    sq = {square_name(i): "red+treasure" for i in TEMPLES}
    sq.update(sides)
    d = {"format": FORMAT, "squares": sq, "bag": None,
         "players": [{"hand": hand(red=2, green=2, black=2)},
                     {"hand": hand(red=1, blue=1, green=2, black=2)}]}
    g = from_position(d)
    g.apply("tile black G5")
    text = str(g)
    assert grid(text)["G5"] == "k!"
    assert "Decision: war_order by player 0" in text
    assert "unification tile G5; wars left: red, black; tile placed on G5" in text
    g.apply("war red")
    text = str(g)
    assert "war of the priests (red support)" in text
    assert "attacker player 0, priest on D5: strength 1, committed not yet" in text
    assert "defender player 1, priest on I5: strength 1" in text
    assert "Player 0 (to move, deciding)" in text


def test_face_down_treasure_token():
    sq = {square_name(i): "red+treasure" for i in TEMPLES}
    sq.update({"A1": "red:down", "B1": "red:down", "A2": "red:down", "B2": "red:down+treasure"})
    d = {"format": FORMAT, "squares": sq, "bag": None,
         "monuments": [{"colours": "red-green", "at": "A1"}],
         "players": [{"hand": hand(red=6)}, {"hand": hand(red=6)}]}
    cells = grid(str(from_position(d)))
    assert cells["B2"] == "#r*" and cells["A1"] == "#r"


def test_lines_short_and_board_matches_state_in_random_games():
    for players in (2, 3, 4):
        rng = random.Random(players)
        g = tigris.Game(players=players, seed=players)
        while True:
            text = str(g)
            assert max(len(line) for line in text.splitlines()) < 100
            raw = g.raw_state()
            cells = grid(text)
            for i in range(NSQ):
                code, token = raw["squares"][i], cells[square_name(i)]
                if code == 0:
                    assert token == ("~" if i in RIVERS else ".")
                elif code >= 16:
                    assert token == "PFTK"[(code - 16) % 4] + str((code - 16) // 4)
                elif code == 9:
                    assert token == "XX"
                else:
                    assert token.lstrip("#")[0] == "rbgk"[(code - 1) % 4]
                    assert token.startswith("#") == (code >= 5)
                    assert ("*" in token) == bool(raw["treasure"][i])
            for p in range(players):
                assert f"hand {sum(raw['hand'][p])}: " in text
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_actions()))
        assert "Game over after turn" in text and "Ranking: 1. player" in text


# -- unknown hands and bag are shown as unknown (issue 9) ---------------------------------

def player_block(text, p):
    lines = text.splitlines()
    k = next(k for k, line in enumerate(lines) if line.startswith(f"Player {p}"))
    return "\n".join(lines[k:k + 3])


def test_unknown_hands_and_bag_show_their_size_only():
    """A position with null hands and bag was shown with the tiles dealt at random in their
    place, as if they were known."""
    g = tigris.Game(players=3, seed=5)
    h = from_position(g.to_position(player=1), seed=9)
    text = str(h)
    for p in (0, 2):
        assert "    hand 6: unknown; catastrophes left 2" in player_block(text, p)
    counts = ", ".join(f"{c} {n}" for c, n in g.hand(1).items())
    assert f"    hand 6: {counts}; catastrophes left 2" in player_block(text, 1)
    bag = sum(g.raw_state()["bag"])
    assert f"Bag: {bag} tiles (colours unknown)" in text
    assert "Bag: {} tiles (red".format(bag) in str(g)          # full knowledge: colours
    # Still unknown after a move (the loader's deal is not what the players hold).
    h.apply(h.legal_actions()[0])
    assert "hand 6: unknown" in player_block(str(h), 2)


def test_show_command_on_a_position_with_unknowns(tmp_path, capsys):
    import json
    from tigris.commands import main
    g = tigris.Game(players=2, seed=6)
    path = tmp_path / "view.json"
    path.write_text(json.dumps(g.to_position(player=0)))
    main(["show", str(path)])
    out = capsys.readouterr().out
    assert "hand 6: unknown" in player_block(out, 1) and "colours unknown" in out
    assert "hand 6: unknown" not in player_block(out, 0)


def test_hint_refuses_a_player_whose_own_hand_is_unknown():
    """A hint would recommend tiles the player may not hold."""
    g = tigris.Game(players=2, seed=7)
    h = from_position(g.to_position(player=1))         # player 0 is to move
    with pytest.raises(ValueError, match=r"^player 0's hand is unknown \(null in the "
                                         r"position\): a hint would recommend tiles"):
        tigris.hint(h, iterations=50, progress=False)
    view = from_position(g.to_position(player=0))
    assert len(tigris.hint(view, iterations=50, top=2, progress=False)) == 2


def test_a_revolt_is_fought_with_red_support_whatever_the_leaders():
    """A revolt of kings is fought with temples (RULES.md A-7): the diagram says red
    support, not the kings' black."""
    g = tigris.Game(players=2, seed=1)
    for move in ("leader king F4", "tile black A11", "leader king G3"):
        g.apply(move)
    assert g.decision == "support"
    assert "revolt of the kings (red support)" in str(g)
    assert "black support" not in str(g)
