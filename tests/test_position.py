"""Positions (tigris-position/1): round trips, players' views, validation, dealing."""

import copy
import json
import random
import re

import pytest

import tigris
from tigris.boards import layout
from tigris.constants import A_SUPPORT, NONE, SUPPLY
from tigris.notation import square_name, square_index
from tigris.position import FORMAT, from_position, to_position

from helpers import finished_random_games, hand, tiles, unseen_pool

TEMPLES = sorted(layout("classic")[1])


def base_squares():
    return {square_name(i): "red+treasure" for i in TEMPLES}


def position(squares=None, hands=None, **extra):
    """A valid hand-written position: the starting temples, given pieces, unknown bag."""
    sq = base_squares()
    sq.update(squares or {})
    hands = hands or [hand(2, 2, 1, 1), hand(1, 1, 2, 2)]
    d = {"format": FORMAT, "squares": sq, "players": [{"hand": h} for h in hands], "bag": None}
    d.update(extra)
    return d


def without_rng(raw):
    raw = dict(raw)
    raw.pop("rng")
    return raw


def states(players, seed, every=1, **setup):
    """Random mid-game states of one game (every decision kind that comes up)."""
    rng = random.Random(seed)
    g = tigris.Game(players=players, seed=seed, **setup)
    k = 0
    while not g.is_over:
        if k % every == 0 or g.decision != "action":
            yield g
        g.apply(rng.choice(g.legal_actions()))
        k += 1
    yield g


# -- round trips ----------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_round_trip_full_knowledge_mid_game(players):
    seen = set()
    for seed in range(12):
        for g in states(players, 100 * players + seed, every=3):
            d = to_position(g)
            assert json.loads(json.dumps(d)) == d
            h = from_position(d, seed=seed)
            assert without_rng(h.raw_state()) == without_rng(g.raw_state())
            assert to_position(h) == d
            assert h.current_player == g.current_player
            assert h.legal_actions() == g.legal_actions()
            seen.add(g.decision)
            if g.decision != "action":
                assert d["pending"]["decision"] == g.decision
            else:
                assert "pending" not in d
    assert {"action", "support", "treasure", "over"} <= seen


@pytest.mark.slow
def test_round_trip_every_board_and_variant(combo):
    seen = set()
    for seed in range(8):
        for g in states(2 + seed % 3, seed, every=9, **combo):
            d = to_position(g)
            assert (d["board"], tuple(d["variants"])) == (combo["board"], combo["variants"])
            h = from_position(json.loads(json.dumps(d)), seed=seed)
            assert without_rng(h.raw_state()) == without_rng(g.raw_state())
            assert to_position(h) == d
            assert h.legal_actions() == g.legal_actions()
            marks = [t for t in d["squares"].values() if "+building" in t]
            assert len(marks) == sum(b != NONE for b in g.raw_state()["building"])
            seen.add(g.decision)
            if marks:
                seen.add("building on the board")
            p = g.current_player
            view = from_position(to_position(g, player=p), seed=seed)
            assert view.legal_actions() == g.legal_actions()
    assert {"action", "support", "treasure"} <= seen
    if "buildings" in combo["variants"]:
        assert {"building", "building on the board"} <= seen


def test_round_trip_treasure_decision_after_a_monument():
    """The placed tile is face down (in the monument) while the trader's owner chooses."""
    g = from_position(position({"H7": "trader:0", "H8": "red", "I6": "red", "J6": "red",
                                "J8": "black", "J9": "blue", "J10": "black", "K10": "black"},
                               hands=[hand(red=2, black=4), hand(1, 1, 2, 2)]))
    g.apply("tile red J7")
    g.apply("monument red-blue I6")
    assert g.decision == "treasure" and g.legal_actions()
    d = to_position(g)
    assert d["pending"] == {"decision": "treasure", "placed": "J7", "trader": "H7"}
    assert d["squares"]["J7"] == "red:down"
    h = from_position(d)
    assert without_rng(h.raw_state()) == without_rng(g.raw_state())
    bad = copy.deepcopy(d)
    bad["pending"]["decision"] = "monument"
    del bad["pending"]["trader"]
    with pytest.raises(tigris.PositionError, match=r"^pending\.placed: J7 holds a face-down"):
        from_position(bad)


def test_round_trip_covers_wars_and_monuments():
    """Search random games until war_order, war support and monument decisions came up."""
    wanted = {"war_order", "war", "monument"}
    found = set()
    for seed in range(400):
        for g in states(2 + seed % 3, seed, every=50):
            raw = g.raw_state()
            kind = ("war" if raw["c_kind"] == 2 else g.decision)
            if kind not in wanted:
                continue
            found.add(kind)
            d = to_position(g)
            pending = d["pending"]
            if kind in ("war", "war_order"):
                assert pending["unification"] == square_name(raw["unif"])
                assert "wars_left" in pending
            if kind == "war":
                assert pending["conflict"]["kind"] == "war"
            if kind == "monument":
                assert pending["placed"] == square_name(raw["placed"])
            h = from_position(d)
            assert without_rng(h.raw_state()) == without_rng(raw)
            assert to_position(h) == d
        if found == wanted:
            break
    assert found == wanted


@pytest.mark.parametrize("players", [2, 3, 4])
def test_round_trip_after_random_playout(players):
    for g in finished_random_games(players, range(10)):
        d = to_position(g)
        assert d["pending"] == {"decision": "over"}
        h = from_position(d)
        assert h.is_over
        assert without_rng(h.raw_state()) == without_rng(g.raw_state())
        assert to_position(h) == d
        assert h.ranking() == g.ranking()


def test_game_methods_delegate():
    g = tigris.Game(players=3, seed=4)
    d = g.to_position()
    assert d == to_position(g)
    h = tigris.Game.from_position(d)
    assert without_rng(h.raw_state()) == without_rng(g.raw_state())
    assert g.to_position(player=1) == to_position(g, 1)


def test_loaded_game_plays_on_and_is_seeded():
    g = tigris.Game(players=2, seed=8)
    d = to_position(g)
    a, b, c = from_position(d, seed=1), from_position(d, seed=1), from_position(d, seed=2)
    assert a.raw_state()["rng"] == b.raw_state()["rng"] != c.raw_state()["rng"]
    assert a.random_playout(3) == b.random_playout(3)
    assert a.state_bytes() == b.state_bytes()
    assert a.is_over


def test_pending_revolt_form():
    # RULES.md example 1: Lion (0) places his priest at K5 next to Bull's (1) kingdom.
    d = position({"I5": "priest:1", "I4": "red", "H5": "red", "K4": "red", "K6": "red",
                  "L5": "red", "J5": "black"},
                 hands=[hand(red=3, blue=3), hand(red=3, green=3)])
    g = from_position(d)
    g.apply("leader priest K5")
    assert g.decision == "support" and g.current_player == 0
    pending = to_position(g)["pending"]
    assert pending == {"decision": "support", "conflict": {
        "kind": "revolt", "colour": "red",
        "attacker": {"player": 0, "leader": "K5", "strength": 3, "committed": None},
        "defender": {"player": 1, "leader": "I5", "strength": 2}}}
    g.apply("support 2")
    pending = to_position(g)["pending"]
    assert pending["conflict"]["attacker"]["committed"] == 2
    assert g.current_player == 1
    # The same decision written by hand, strengths left out: computed from the board.
    by_hand = to_position(g)
    for side in by_hand["pending"]["conflict"].values():
        if isinstance(side, dict):
            del side["strength"]
    h = from_position(by_hand)
    assert without_rng(h.raw_state()) == without_rng(g.raw_state())
    g.apply("support 3")       # 5 : 5, the defender wins (R51)
    assert g.score(1)["red"] == 1 and g.score(0)["red"] == 0
    assert "K5" not in to_position(g)["squares"]
    assert to_position(g)["out_of_game"]["red"] == 5


# -- players' views -------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_views_hide_what_they_must(players):
    for seed in range(4):
        for g in states(players, seed, every=25):
            full = to_position(g)
            raw = g.raw_state()
            for p in range(players):
                v = to_position(g, p)
                assert v["bag"] is None
                for q, entry in enumerate(v["players"]):
                    if q == p:
                        assert entry["hand"] == full["players"][q]["hand"]
                        assert entry["swapped_colours"] == full["players"][q]["swapped_colours"]
                        assert "hand_size" not in entry
                    else:
                        assert entry["hand"] is None
                        assert entry["hand_size"] == sum(raw["hand"][q])
                        assert "swapped_colours" not in entry
                    assert entry["swapped_face_down"] == sum(raw["swapped"][q])
                    assert entry["score"] == full["players"][q]["score"]
                public = {k: v[k] for k in v if k not in ("players", "bag")}
                assert public == {k: full[k] for k in full if k not in ("players", "bag")}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_view_loads_consistently(players):
    for seed in range(3):
        for g in states(players, 10 + seed, every=20):
            raw = g.raw_state()
            for p in range(players):
                v = to_position(g, p)
                h = from_position(v, seed=seed)
                hr = h.raw_state()
                for key in raw:
                    if key not in ("hand", "swapped", "bag", "rng"):
                        assert hr[key] == raw[key], key
                assert hr["hand"][p] == raw["hand"][p]
                assert hr["swapped"][p] == raw["swapped"][p]
                for q in range(players):
                    assert sum(hr["hand"][q]) == sum(raw["hand"][q])
                    assert sum(hr["swapped"][q]) == sum(raw["swapped"][q])
                assert unseen_pool(hr, p) == unseen_pool(raw, p)
                if g.current_player == p and g.decision in ("action", "support"):
                    assert h.legal_actions() == g.legal_actions()
                # The loaded view shows the same view again.
                assert to_position(h, p) == v


def test_unknown_hands_change_with_the_seed():
    g = tigris.Game(players=3, seed=21)
    v = to_position(g, 0)
    deals = {}
    for seed in range(20):
        raw = from_position(v, seed=seed).raw_state()
        deals[seed] = (raw["hand"][1], raw["hand"][2], raw["bag"])
        assert from_position(v, seed=seed).raw_state()["hand"] == raw["hand"]     # same seed, same deal
        assert raw["hand"][0] == g.raw_state()["hand"][0]
    assert len(set(map(repr, deals.values()))) > 10


def test_unknown_swapped_colours_are_dealt():
    d = position(hands=[hand(2, 2, 1, 1), hand(1, 1, 2, 2)])
    d["players"][1]["swapped_face_down"] = 4
    d["players"][0]["swapped_face_down"] = 2
    d["players"][0]["swapped_colours"] = hand(black=2)
    for seed in range(5):
        raw = from_position(d, seed=seed).raw_state()
        assert sum(raw["swapped"][1]) == 4
        assert raw["swapped"][0] == [0, 0, 0, 2]
        totals = [10 + 3, 3, 3, 3 + 2]       # board + hands + known discards
        for c in range(4):
            assert totals[c] + raw["bag"][c] + raw["swapped"][1][c] == SUPPLY[c]


def test_unknown_hand_with_known_bag_gets_exactly_the_rest():
    g = tigris.Game(players=2, seed=5)
    d = to_position(g)
    truth = d["players"][1]["hand"]
    d["players"][1]["hand"] = None
    d["players"][1]["hand_size"] = 6
    for seed in range(5):
        assert from_position(d, seed=seed).hand(1) == truth


def test_defaults():
    d = {"format": FORMAT, "squares": base_squares(),
         "players": [{"hand": hand(red=6)}, {"hand": None, "hand_size": 6}]}
    g = from_position(d)
    assert g.board == "classic" and g.variants == ()
    assert g.decision == "action" and g.current_player == 0 and g.actions_left == 2
    assert g.turn == 0
    for p in range(2):
        assert g.score(p) == {"red": 0, "blue": 0, "green": 0, "black": 0, "treasures": 0}
    raw = g.raw_state()
    assert raw["catastrophes"] == [2, 2] and raw["swapped"] == [[0] * 4, [0] * 4]
    assert raw["out"] == [0] * 4 and raw["monument"] == [NONE] * 6
    assert sum(raw["bag"]) == 153 - 10 - 12
    assert sum(raw["hand"][1]) == 6


def test_advanced_board_position():
    temples = sorted(layout("advanced")[1])
    d = {"format": FORMAT, "board": "advanced",
         "squares": {square_name(i): "red+treasure" for i in temples},
         "players": [{"hand": hand(red=6)}, {"hand": hand(blue=6)}]}
    g = from_position(d)
    assert g.board == "advanced"
    assert to_position(g)["board"] == "advanced"
    # The classic temples are not the advanced board's.
    rejects(dict(d, squares=base_squares()), r"^squares\.K1: a treasure on a square that is not "
                                             r"one of the advanced board's temple squares")
    rejects(dict(d, board="classic"), r"^squares\.E1: red tile on a river square")


def test_monument_and_catastrophe_position():
    d = position({"H3": "black:down", "I3": "black:down", "H4": "black:down",
                  "I4": "black:down", "C4": "catastrophe", "G3": "red", "G4": "king:1"},
                 monuments=[{"colours": "red-black", "at": "H3"}])
    d["players"][1]["catastrophes"] = 1
    g = from_position(d)
    raw = g.raw_state()
    assert raw["monument"][2] == square_index("H3")
    assert raw["squares"][square_index("C4")] == 9
    assert raw["leader"][1][3] == square_index("G4")
    assert to_position(g)["monuments"] == [{"colours": "red-black", "at": "H3"}]


# -- validation -----------------------------------------------------------------------

def rejects(d, match):
    with pytest.raises(tigris.PositionError, match=match):
        from_position(d)


def test_rejects_bad_format_board_variants():
    # issue 55: a newer format says a newer tigris wrote it, and which this one reads
    rejects(position(format="tigris-position/2"),
            rf"^format: tigris-position/2 was written by a newer tigris; this one \({re.escape(tigris.__version__)}\) "
            r"reads tigris-position/1$")
    rejects(position(format="tigris-position/0"), r"^format: expected 'tigris-position/1', not 'tigris-position/0'")
    d = position()
    del d["format"]
    rejects(d, r"^format: ")
    rejects(position(board="hexagonal"), r"^board: unknown board 'hexagonal'")
    rejects(position(variants=["wonders"]), r"^variants: unknown variant 'wonders'")
    rejects(position(variants=["english", "english"]), r"^variants: a variant is listed twice")
    assert from_position(position(variants=["english"])).variants == ("english",)
    both = from_position(position(variants=["buildings", "english"])).variants
    assert both == ("english", "buildings")
    rejects(position(variants="english"), r"^variants: ")
    rejects(position(colour="red"), r"^colour: unknown field")
    rejects("not a position", r"^position: ")


def test_rejects_bad_players():
    rejects(position(hands=[hand(red=6)]), r"^players: 1 players")
    rejects(position(hands=[hand(red=1)] * 5), r"^players: 5 players")
    d = position()
    d["players"][1] = {"score": hand()}
    rejects(d, r"^players\[1\]\.hand: missing")
    d = position()
    d["players"][1] = {"hand": None}
    rejects(d, r"^players\[1\]\.hand_size: required")
    rejects(position(hands=[tiles(red=4, blue=3), hand()]), r"^players\[0\]\.hand: 7 tiles")
    rejects(position(hands=[hand(), {"purple": 1}]), r"^players\[1\]\.hand\.purple: not a colour")
    rejects(position(hands=[hand(), {"red": -1}]), r"^players\[1\]\.hand\.red: ")
    rejects(position(hands=[hand(), {"red": 1.5}]), r"^players\[1\]\.hand\.red: expected a whole")
    d = position()
    d["players"][0]["hand_size"] = 4
    rejects(d, r"^players\[0\]\.hand_size: 4, but the hand holds 6")
    d = position()
    d["players"][0]["catastrophes"] = 3
    rejects(d, r"^players\[0\]\.catastrophes: 3 is out of range")
    d = position()
    d["players"][1]["swapped_face_down"] = 2
    d["players"][1]["swapped_colours"] = hand(red=3)
    rejects(d, r"^players\[1\]\.swapped_colours: 3 tiles, but swapped_face_down is 2")
    d = position()
    d["players"][0]["nickname"] = "Lion"
    rejects(d, r"^players\[0\]\.nickname: unknown field")


def test_rejects_bad_squares():
    rejects(position({"Q5": "red"}), r"^squares\.Q5: 'Q5' is not a square")
    rejects(position({"G5": "purple"}), r"^squares\.G5: 'purple' is not a square token")
    rejects(position({"G5": 3}), r"^squares\.G5: expected a token")
    rejects(position({"G5": "blue"}), r"^squares\.G5: blue tile on a land square")
    rejects(position({"E1": "red"}), r"^squares\.E1: red tile on a river square")
    rejects(position({"E1": "black:down"}), r"^squares\.E1: face-down black tile on a river")
    rejects(position({"E2": "king:0", "F2": "red"}), r"^squares\.E2: king:0 on a river square")
    rejects(position({"G5": "red+treasure"}), r"^squares\.G5: a treasure on a square that is "
                                              r"not one of the classic board's temple")
    rejects(position({"K1": "black+treasure"}), r"^squares\.K1: a treasure lies only on")
    rejects(position({"G5": "king:0+treasure"}), r"^squares\.G5: 'king:0\+treasure' is not")
    rejects(position({"J1": "king:0", "L1": "king:0"}), r"^squares\.L1: king:0 is also on J1")
    rejects(position({"G5": "king:0"}), r"^squares\.G5: king:0 is not next to a face-up red")
    rejects(position({"J1": "king:2"}), r"^squares\.J1: 'king:2': player 2 is not in this "
                                       r"2-player game")
    rejects(position({"J1": "king"}), r"^squares\.J1: 'king': a leader is written with its owner")
    rejects(position({"G5": "red", "g5": "black"}), r"^squares\.g5: the same square as G5")
    # A leader next to a face-down red tile only (R5).
    rejects(position({"H3": "red:down", "I3": "red:down", "H4": "red:down", "I4": "red:down",
                      "J3": "king:0"}, monuments=[{"colours": "red-blue", "at": "H3"}]),
            r"^squares\.J3: king:0 is not next to a face-up red tile")


def test_rejects_bad_monuments():
    four = {"H3": "black:down", "I3": "black:down", "H4": "black:down", "I4": "black:down"}
    rejects(position(four), r"^squares\.H3: a face-down tile that is not part of a listed monument")
    rejects(position(four, monuments=[{"colours": "red-blue", "at": "H3"}]),
            r"^monuments\[0\]\.colours: the red-blue monument stands on black tiles")
    rejects(position(four, monuments=[{"colours": "red-black", "at": "H3"},
                                      {"colours": "black-red", "at": "H3"}]),
            r"^monuments\[1\]\.colours: the red-black monument is listed twice")
    rejects(position(four, monuments=[{"colours": "red-black", "at": "H2"}]),
            r"^monuments\[0\]\.at: the 2x2 square at H2 is not four face-down tiles")
    rejects(position(four, monuments=[{"colours": "red-black", "at": "P2"}]),
            r"^monuments\[0\]\.at: P2 is on the board's edge")
    rejects(position(four, monuments=[{"colours": "red-red", "at": "H3"}]),
            r"^monuments\[0\]\.colours: ")
    rejects(position(four, monuments=[{"colours": "red-black"}]), r"^monuments\[0\]\.at: missing")
    mixed = dict(four, I4="red:down")
    rejects(position(mixed, monuments=[{"colours": "red-black", "at": "H3"}]),
            r"^monuments\[0\]\.at: .* not four face-down tiles of one colour")
    eight = dict(four, J3="black:down", K3="black:down", J4="black:down", K4="black:down")
    rejects(position(eight, monuments=[{"colours": "red-black", "at": "H3"},
                                       {"colours": "blue-black", "at": "I3"}]),
            r"^monuments\[1\]\.at: overlaps the red-black monument")


def test_rejects_impossible_tile_totals():
    g = tigris.Game(players=2, seed=3)
    d = to_position(g)
    d["bag"]["red"] += 1
    rejects(d, r"^tiles\.red: the position accounts for 58 red tiles \(board 10, hands \d+, "
               r"bag \d+, out_of_game 0, face-down discards 0\), but the game has 57")
    d = to_position(g)
    d["out_of_game"]["green"] = 1
    rejects(d, r"^tiles\.green: the position accounts for 31 green tiles")
    d = to_position(g)
    d["bag"]["black"] -= 1
    rejects(d, r"^tiles\.black: the position accounts for 29 black tiles")
    # Too many tiles even with the bag unknown.
    rejects(position(out_of_game={"blue": 35}), r"^tiles\.blue: the position accounts for 38")


def test_rejects_unknowns_that_cannot_fit():
    g = tigris.Game(players=2, seed=3)
    d = to_position(g)
    d["players"][1]["hand"] = None
    d["players"][1]["hand_size"] = 5          # the known bag leaves 6 tiles unseen
    rejects(d, r"^tiles: 6 tiles are unaccounted for \(red \d+, blue \d+, green \d+, black \d+\), "
               r"but the unknown hands and face-down discards \(players\[1\] hand 5\) need "
               r"exactly 5")
    d = position(out_of_game={"red": 41, "blue": 34, "green": 27, "black": 27})
    d["players"][1] = {"hand": None, "hand_size": 6, "swapped_face_down": 3}
    rejects(d, r"^tiles: 8 tiles are unaccounted for .* \(players\[1\] hand 6, players\[1\] "
               r"face-down discards 3\) need 9$")


def test_rejects_wrong_treasure_and_catastrophe_counts():
    sq = base_squares()
    sq["K1"] = "red"
    rejects(position(sq), r"^treasures: 9 on the board \+ 0 collected = 9, but the classic board "
                          r"has 10")
    d = position(sq)
    d["players"][0]["treasures"] = 2
    rejects(d, r"^treasures: 9 on the board \+ 2 collected = 11")
    d["players"][0]["treasures"] = 1
    assert from_position(d).score(0)["treasures"] == 1
    rejects(position({"C4": "catastrophe"}), r"^catastrophes: 1 catastrophe tiles on the board, "
                                             r"but the players have played 0")
    d = position()
    d["players"][1]["catastrophes"] = 0
    rejects(d, r"^catastrophes: 0 catastrophe tiles on the board, but the players have played 2")


def test_rejects_bad_turn_fields():
    rejects(position(to_move=2), r"^to_move: 2 is out of range \(0\.\.1\)")
    rejects(position(to_move="0"), r"^to_move: expected a whole number")
    rejects(position(actions_left=3), r"^actions_left: 3 is out of range")
    rejects(position(actions_left=0), r"^actions_left: 0 actions left")
    rejects(position(turn=-1), r"^turn: ")


def test_rejects_two_leaders_of_a_colour_in_one_kingdom():
    # Both kings next to the temple K1: one kingdom, no pending conflict.
    rejects(position({"J1": "king:0", "L1": "king:1"}),
            r"^squares\.L1: king:1 is in the same kingdom as king:0 on J1")
    # In separate kingdoms it is fine.
    from_position(position({"J1": "king:0", "B1": "king:1"}))


def revolt_position(**conflict_changes):
    d = position({"I5": "priest:1", "I4": "red", "H5": "red", "K4": "red", "K6": "red",
                  "L5": "red", "J5": "black", "K5": "priest:0"},
                 hands=[hand(red=3, blue=3), hand(red=3, green=3)], actions_left=1)
    d["pending"] = {"decision": "support", "conflict": {
        "kind": "revolt", "colour": "red",
        "attacker": {"player": 0, "leader": "K5", "strength": 3, "committed": None},
        "defender": {"player": 1, "leader": "I5", "strength": 2}}}
    d["pending"]["conflict"].update(conflict_changes)
    return d


def test_pending_conflict_written_by_hand():
    g = from_position(revolt_position())
    assert g.decision == "support" and g.current_player == 0
    assert g.legal_actions() == [A_SUPPORT + k for k in range(4)]
    rejects(revolt_position(kind="duel"), r"^pending\.conflict\.kind: 'duel'")
    rejects(revolt_position(colour="black"), r"^pending\.conflict\.attacker\.leader: K5 holds "
                                             r"player 0's priest, not player 0's king$")
    rejects(revolt_position(attacker={"player": 0, "leader": "K5", "strength": 4}),
            r"^pending\.conflict\.attacker\.strength: 4 given, but the board gives 3")
    rejects(revolt_position(defender={"player": 0, "leader": "K5"}),
            r"^pending\.conflict\.defender\.player: the same player as the attacker")
    rejects(revolt_position(attacker={"player": 0, "leader": "K5", "committed": 9}),
            r"^pending\.conflict\.attacker\.committed: 9 is out of range")
    d = revolt_position()
    del d["pending"]["conflict"]
    rejects(d, r"^pending\.conflict: a support decision needs the conflict")
    d = revolt_position()
    d["pending"]["decision"] = "bidding"
    rejects(d, r"^pending\.decision: 'bidding' is not a decision")
    d = revolt_position()
    d["pending"]["unification"] = "J5"
    rejects(d, r"^pending\.unification: a revolt has no unification tile")
    d = revolt_position()
    del d["pending"]
    rejects(d, r"^squares\.I5: priest:1 is in the same kingdom as priest:0 on K5")
    d = revolt_position()
    d["pending"]["conflict"]["kind"] = "war"
    rejects(d, r"^pending\.unification: a war needs the unification tile")


def test_pending_other_decisions_checked():
    d = position({"J1": "trader:0"}, actions_left=1)
    d["pending"] = {"decision": "treasure", "trader": "J1"}
    rejects(d, r"^pending\.trader: the trader's kingdom holds 1 treasure")
    d["pending"] = {"decision": "treasure", "trader": "K1"}
    rejects(d, r"^pending\.trader: K1 holds a red tile, not a trader")
    d["pending"] = {"decision": "treasure"}
    rejects(d, r"^pending\.trader: a treasure decision needs the trader")
    d["pending"] = {"decision": "monument", "placed": "K1"}
    rejects(d, r"^pending\.placed: no monument can be built with the tile on K1")
    d["pending"] = {"decision": "monument"}
    rejects(d, r"^pending\.placed: a monument decision needs the tile just placed")
    d["pending"] = {"decision": "war_order", "unification": "K1", "wars_left": ["red"]}
    rejects(d, r"^pending\.wars_left: a war_order decision needs at least two colours")
    d["pending"] = {"decision": "war_order", "unification": "K1", "wars_left": ["red", "pink"]}
    rejects(d, r"^pending\.wars_left\[1\]: 'pink' is not a colour")
    d["pending"] = {"decision": "support", "priority": 1}
    rejects(d, r"^pending\.priority: unknown field")
    d["pending"] = {"decision": "building"}
    rejects(d, r"^pending\.decision: 'building' needs the \"buildings\" variant")


# -- hand-written positions play on as RULES.md's worked examples -----------------------

def test_example_2_war_over_traders_from_a_position():
    g = war_of_traders()
    assert to_position(g)["pending"] == {"decision": "war_order", "unification": "G5",
                                         "wars_left": ["green", "black"], "placed": "G5"}
    g.apply("war green")
    conflict = to_position(g)["pending"]["conflict"]
    assert conflict["attacker"] == {"player": 0, "leader": "E6", "strength": 1,
                                    "committed": None}
    assert conflict["defender"] == {"player": 1, "leader": "J6", "strength": 2}
    g.apply("support 4")
    g.apply("support 1")
    d = to_position(g)
    assert "pending" not in d and g.score(0)["green"] == 3
    assert d["out_of_game"]["green"] == 7
    assert all(x not in d["squares"] for x in ("H5", "I5", "J6"))
    assert d["squares"]["J4"] == "king:1" and d["squares"]["G5"] == "black"


def test_example_3_red_war_keeps_the_kings_temple():
    g = from_position(position(
        {"E5": "red", "F5": "red", "E6": "priest:0", "H5": "red", "I5": "red", "J5": "red",
         "I4": "priest:1", "J6": "king:1"},
        hands=[hand(red=2, green=2, black=2), hand(blue=5, green=1)]))
    g.apply("tile green G5")
    g.apply("support 2")          # Bull has no red tile: his "support 0" is forced
    d = to_position(g)
    assert g.score(0)["red"] == 3
    assert "H5" not in d["squares"] and "I5" not in d["squares"] and "I4" not in d["squares"]
    assert d["squares"]["J5"] == "red" and d["squares"]["J6"] == "king:1"
    assert d["out_of_game"]["red"] == 4


def test_example_5_monument_from_a_position():
    g = from_position(position(
        {"I6": "red", "J6": "red", "H8": "red", "K5": "red", "I8": "priest:0",
         "I5": "farmer:1", "K6": "king:2"},
        hands=[hand(red=2, blue=4), hand(blue=6), hand(green=6)]))
    g.apply("tile red J7")
    assert g.decision == "monument" and g.score(0)["red"] == 1
    g.apply("monument red-blue I6")
    d = to_position(g)
    assert d["monuments"] == [{"colours": "red-blue", "at": "I6"}]
    assert d["squares"]["I7"] == "red:down+treasure"
    assert "I5" not in d["squares"]                    # the farmer lost its temple
    assert d["squares"]["I8"] == "priest:0" and d["squares"]["K6"] == "king:2"
    g.apply("pass")
    assert g.score(0)["red"] == 2


# -- robustness -------------------------------------------------------------------------

JUNK = [None, -1, 0, 3, 7, 300, 70000, "x", "G5", "red", "king:0", "red:down", [], {},
        ["red"], {"red": 1}, 1.5, True, "catastrophe", "E1"]


def _paths(o, pre=()):
    yield pre
    if isinstance(o, dict):
        for k, v in o.items():
            yield from _paths(v, pre + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from _paths(v, pre + (i,))


@pytest.mark.slow
def test_corrupted_positions_raise_only_position_errors():
    rng = random.Random(0)
    samples = []
    for seed in range(12):
        for k, g in enumerate(states(2 + seed % 3, seed, every=1)):
            if k == 10 + 7 * seed or g.is_over:
                samples += [to_position(g), to_position(g, 0)]
                break
    errors = loaded = 0
    for trial in range(3000):
        d = copy.deepcopy(rng.choice(samples))
        paths = list(_paths(d))[1:]
        for _ in range(rng.choice((1, 2))):
            path = rng.choice(paths)
            o = d
            try:
                for key in path[:-1]:
                    o = o[key]
                if rng.random() < 0.2 and isinstance(o, dict):
                    del o[path[-1]]
                else:
                    o[path[-1]] = rng.choice(JUNK)
            except (KeyError, IndexError, TypeError):
                pass
        try:
            h = from_position(d, seed=trial)
        except tigris.PositionError as e:
            assert re.match(r"^[\w\[\].]+: ", str(e)), str(e)
            errors += 1
            continue
        loaded += 1
        h.legal_actions()
        to_position(h)
        h.random_playout(trial)
        assert h.is_over
    assert errors > 1000 and loaded > 100


# -- pending decisions are the board's (issue 9) --------------------------------------

def war_of_traders():
    """RULES.md example 2 at its war_order decision: green and black wars at G5."""
    g = from_position(position(
        {"E5": "red", "F5": "green", "E4": "king:0", "E6": "trader:0",
         "H5": "green", "I5": "green", "J5": "red", "J4": "king:1", "J6": "trader:1"},
        hands=[hand(green=4, black=2), hand(red=5, green=1)]))
    g.apply("tile black G5")
    return g


def test_war_order_over_wars_that_do_not_exist_is_refused():
    """The position of issue 9: a lone red tile on G7 and a war_order decision over red and
    green loaded, and "war red" then read leader[255]."""
    d = to_position(tigris.Game(players=2, seed=1))
    d["squares"]["G7"] = "red"
    d["bag"]["red"] -= 1
    d["actions_left"] = 1
    d["pending"] = {"decision": "war_order", "unification": "G7", "wars_left": ["red", "green"]}
    rejects(d, r"^pending\.wars_left: red is no war at the unification tile G7: no two priests "
               r"stand on two sides of it \(R56\)$")
    g = war_of_traders()
    d = to_position(g)
    assert from_position(d).legal_actions() == g.legal_actions()
    d["pending"]["wars_left"] = ["green", "black", "red"]
    rejects(d, r"^pending\.wars_left: red is no war at the unification tile G5")
    d["pending"]["wars_left"] = ["green", "blue"]
    rejects(d, r"^pending\.wars_left: blue is no war")
    d["pending"]["wars_left"] = ["green", "black"]
    del d["squares"]["J6"]                     # player 1's trader gone: no green war
    d["out_of_game"]["green"] = 0
    rejects(d, r"^pending\.wars_left: green is no war at the unification tile G5")


def test_war_support_lists_exactly_the_other_wars():
    g = war_of_traders()
    g.apply("war green")
    d = to_position(g)
    assert d["pending"]["wars_left"] == ["black"]
    assert from_position(d).legal_actions() == g.legal_actions()
    d["pending"]["wars_left"] = []
    rejects(d, r"^pending\.wars_left: black is a war at the unification tile G5 too \(two kings "
               r"on two sides of it\); list it \(R59\)$")
    d["pending"]["wars_left"] = ["green", "black"]
    rejects(d, r"^pending\.wars_left: green is the war being fought")


def test_conflict_attackers_follow_R48_and_R60():
    g = war_of_traders()
    g.apply("war green")
    d = to_position(g)
    conflict = d["pending"]["conflict"]
    conflict["attacker"], conflict["defender"] = (
        {"player": 1, "leader": "J6", "committed": None}, {"player": 0, "leader": "E6"})
    rejects(d, r"^pending\.conflict\.attacker\.player: player 1, but R60 makes player 0 the "
               r"attacker")
    d = revolt_position()
    d["to_move"] = 1
    rejects(d, r"^pending\.conflict\.attacker\.player: player 0, but the attacker in a revolt "
               r"is the player to move, 1, who placed the leader \(R48\)")


def test_placed_tile_during_wars_is_the_unification_tile():
    d = to_position(war_of_traders())
    assert d["pending"]["placed"] == "G5"
    del d["pending"]["placed"]
    assert from_position(d).raw_state()["placed"] == square_index("G5")
    d["pending"]["placed"] = "F5"
    rejects(d, r"^pending\.placed: F5, but the tile just placed is the unification tile G5 "
               r"\(R32\)")
    d = revolt_position()
    d["pending"]["placed"] = "J5"
    rejects(d, r"^pending\.placed: no tile is being placed in a revolt")


def test_no_second_same_coloured_pair_beside_a_pending_conflict():
    d = revolt_position()
    d["squares"].update({"J4": "king:0", "J6": "king:1"})
    rejects(d, r"^squares\.J6: king:1 is in the same kingdom as king:0 on J4")


def test_a_pending_decision_leaves_one_action_or_none():
    """Issue 9: actions_left 2 was accepted together with a pending decision."""
    d = revolt_position()
    d["actions_left"] = 2
    rejects(d, r"^actions_left: 2 actions left, but a 'support' decision is pending")
    for left in (0, 1):
        d["actions_left"] = left
        assert from_position(d).actions_left == left
    g = tigris.Game(players=2, seed=4)
    g.random_playout(1)
    d = to_position(g)
    d["actions_left"] = 2                       # nothing is left once the game is over
    assert from_position(d).actions_left == 0 and to_position(from_position(d))["actions_left"] == 0


def test_values_are_read_without_huge_conversions_or_echoes():
    """Issue 9: "king:²" and a 5,000-digit owner raised plain ValueErrors from int(); a huge
    value in a field was echoed whole."""
    rejects(position({"J1": "king:\u00b2"}), r"^squares\.J1: 'king:\u00b2': a leader is written "
                                             r"with its owner")
    with pytest.raises(tigris.PositionError, match=r"^squares\.J1: .*is not in this 2-player "
                                                   r"game$") as e:
        from_position(position({"J1": "king:" + "1" * 5000}))
    assert len(str(e.value)) < 200
    d = position()
    d["players"][0]["hand"]["red"] = 10**5000
    rejects(d, r"^players\[0\]\.hand\.red: a 5001-digit number is out of range \(0\.\.6\)$")
    for field, value in (("format", "x" * 10**7), ("to_move", "0" * 10**6),
                         ("variants", ["english"] * 10**5 + [5])):
        d = position(**{field: value})
        with pytest.raises(tigris.PositionError, match=rf"^{field}: ") as e:
            from_position(d)
        assert len(str(e.value)) < 300
    d = position()
    d["squares"]["G" * 10**6] = "red"
    with pytest.raises(tigris.PositionError, match=r"^squares\.'GGG") as e:
        from_position(d)
    assert len(str(e.value)) < 300
    d = position()
    d["players"][0]["x" * 10**6] = 1
    with pytest.raises(tigris.PositionError, match=r"^players\[0\]\.'xxx.*: unknown field") as e:
        from_position(d)
    assert len(str(e.value)) < 300


def test_turn_is_bounded_and_seed_is_an_int():
    assert from_position(position(turn=65535)).turn == 65535
    rejects(position(turn=65536), r"^turn: 65536 is out of range \(0\.\.65535\)")
    for seed in (1.5, "1", None, True):
        with pytest.raises(ValueError, match=r"^seed must be a whole number"):
            from_position(position(), seed=seed)


# -- what a position leaves unknown stays unknown (issue 9) ------------------------------

def test_unknowns_are_remembered_and_written_back_as_unknown():
    g = tigris.Game(players=3, seed=8)
    while g.decision != "action" or g.turn < 4 or not any(
            sum(g.raw_state()["swapped"][p]) for p in range(3)):
        g.apply(random.Random(len(g.history)).choice(g.legal_actions()))
    view = to_position(g, 1)
    h = from_position(view, seed=3)
    swapped = sorted(p for p in (0, 2) if view["players"][p]["swapped_face_down"])
    assert h.unknown == {"hands": [0, 2], "swapped_colours": swapped, "bag": True}
    full = to_position(h)                   # not the random deal, in full knowledge too
    assert full["bag"] is None and full["players"][1] == view["players"][1]
    for p in (0, 2):
        assert full["players"][p]["hand"] is None and full["players"][p]["hand_size"] == 6
        assert ("swapped_colours" in full["players"][p]) == (p not in swapped)
    assert to_position(h, 1) == view and to_position(h, 0)["players"][0]["hand"] is None
    assert h.copy().unknown == h.copy(stack=False).unknown == h.unknown
    import pickle
    assert pickle.loads(pickle.dumps(h)).unknown == h.unknown
    h.apply(h.legal_actions()[0])
    d = to_position(h)
    assert d["players"][0]["hand"] is None and d["bag"] is None
    assert d["players"][1]["hand"] == _counts_of(h.hand(1))
    assert from_position(d, seed=1).unknown == h.unknown
    # A game that knows everything leaves nothing unknown.
    assert g.unknown == {"hands": [], "swapped_colours": [], "bag": False}
    assert from_position(to_position(g)).unknown == g.unknown


def _counts_of(counts):
    return {c: counts[c] for c in ("red", "blue", "green", "black")}


# -- raw states (unpickling) --------------------------------------------------------------

RAW_CASES = [
    ("squares", 0, 300, r"squares\[0\]: 300 does not fit"),
    ("squares", 5, 12, r"squares\[5\]: 12 is not a square code"),
    ("squares", 5, 16 + 4 * 2, r"squares\[5\]: 24 does not fit"),      # player 2 of 2
    ("treasure", 3, 2, r"treasure\[3\]: 2 does not fit"),
    ("leader", (0, 1), 200, r"leader\[0\]\[1\]: 200 is neither a square"),
    ("leader", (0, 1), 40, r"leader\[0\]\[1\]: square 40 holds code 0, not this leader"),
    ("hand", (1, 2), 7, r"hand\[1\]\[2\]: 7 does not fit"),
    ("hand", (1, 2), 1.0, r"hand\[1\]\[2\]: expected a whole number"),
    ("score", (0, 0), 40000, r"score\[0\]\[0\]: 40000 does not fit"),
    ("bag", 0, -1, r"bag\[0\]: -1 does not fit"),
    ("monument", 2, 15, r"monument\[2\]: 15 is not the top-left square"),
    ("active", None, 2, r"active: 2 does not fit \(0\.\.1\)"),
    ("c_attacker", None, 255, r"c_attacker: 255 does not fit"),
    ("phase", None, 7, r"phase: 7 does not fit"),
    ("c_colour", None, 4, r"c_colour: 4 does not fit"),
    ("t_trader", None, 200, r"t_trader: 200 is neither a square"),
    ("turn", None, 65536, r"turn: 65536 does not fit"),
    ("rng", None, 2**64, r"rng: .* does not fit"),
    ("players", None, 5, r"players: 5 does not fit"),
    ("board", None, 9, r"board: 9 does not fit"),
]

RAW_CHILD = r'''
import pickle, sys
import tigris
cases = eval(sys.argv[1])
g = tigris.Game(players=2, seed=2)
assert pickle.loads(pickle.dumps(g)).state_bytes() == g.state_bytes()
unpickle, args = g.__reduce__()
for key, index, value, _ in cases:
    raw = g.raw_state()
    if index is None:
        raw[key] = value
    elif isinstance(index, tuple):
        raw[key][index[0]][index[1]] = value
    else:
        raw[key][index] = value
    h = g.copy()
    for load in (h.load_raw_state, lambda raw: unpickle(raw, *args[1:])):
        try:
            load(raw)
            print("loaded")
        except ValueError as e:
            print(str(e))
    assert h.state_bytes() == g.state_bytes()
print("done")
'''


def test_raw_states_must_fit_their_fields():
    """Game.load_raw_state (reachable from unpickling) wrote Python ints into uint8 fields (a
    player count of 5 wrote past the arrays): run where a crash cannot stop the tests."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    run = subprocess.run([sys.executable, "-c", RAW_CHILD, repr(RAW_CASES)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert lines[-1] == "done" and len(lines) == 2 * len(RAW_CASES) + 1
    for k, (key, _, _, match) in enumerate(RAW_CASES):
        assert re.match(r"^raw state: " + match, lines[2 * k]), lines[2 * k]
        assert key in lines[2 * k + 1] and lines[2 * k + 1] != "loaded"


def test_a_view_is_of_a_player():
    g = tigris.Game(players=2, seed=3)
    for player in (True, 1.0, 2, -1, "0"):
        with pytest.raises(ValueError, match=r"^player .* is not in this 2-player game"):
            to_position(g, player)
