"""The English variant (R93-R94) and the civilization buildings (R95-R100, R36, R39,
R64, R71), as tests on positions built for them.  Coordinates in comments are RULES.md's
``(row, col)``; the code uses board labels (``(4, 6)`` = G5)."""

import pytest

import tigris
from tigris import notation

COLOURS = ("red", "blue", "green", "black")
LEADERS = ("priest", "farmer", "trader", "king")
TEMPLES = ("K1", "B2", "P2", "F3", "N5", "I7", "B8", "O9", "F10", "K11")
EMPTY, CATASTROPHE = 0, 9
UP = {c: 1 + i for i, c in enumerate(COLOURS)}
NONE = 255


def hand(**counts):
    assert set(counts) <= set(COLOURS) and sum(counts.values()) <= 6, counts
    return {c: counts.get(c, 0) for c in COLOURS}


def pts(**kw):
    d = {"red": 0, "blue": 0, "green": 0, "black": 0, "treasures": 0}
    d.update(kw)
    return d


def position(squares, hands, *, variants=(), to_move=0, actions_left=2, monuments=(),
             board="classic"):
    sq = {t: "red+treasure" for t in TEMPLES}
    sq.update(squares)
    sq = {k: v for k, v in sq.items() if v is not None}
    return {"format": "tigris-position/1", "board": board, "variants": list(variants),
            "squares": sq,
            "monuments": [{"colours": m, "at": at} for m, at in dict(monuments).items()],
            "players": [{"hand": dict(h)} for h in hands],
            "to_move": to_move, "actions_left": actions_left}


def game(*args, **kwargs):
    return tigris.Game.from_position(position(*args, **kwargs), seed=0)


def legal(g):
    return {g.action_str(a) for a in g.legal_actions()}


def play(g, *moves):
    for m in moves:
        options = legal(g)
        assert m in options, (f"{m!r} is not legal now ({g.decision} by player "
                              f"{g.current_player}); legal: {sorted(options)[:30]}")
        g.apply(m)


def forced(g):
    """The decisions the engine applied itself in the last apply, in notation."""
    return [g.action_str(a) for a in g.history[-1][2]]


def code(g, label):
    return g._raw()["squares"][notation.square_index(label)]


def leader_at(g, p, name):
    i = g._raw()["leader"][p][LEADERS.index(name)]
    return None if i == NONE else notation.square_name(i)


def building(g, colour):
    i = g._raw()["building"][COLOURS.index(colour)]
    return None if i == NONE else notation.square_name(i)


def refused(g, text, reason):
    before = g._state_bytes()
    with pytest.raises(tigris.IllegalActionError) as e:
        g.apply(text)
    assert reason in str(e.value), str(e.value)
    assert g._state_bytes() == before


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
    raw = g._raw()
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
    raw = g._raw()
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
