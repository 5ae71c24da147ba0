"""Game records: replay reproduces the game exactly, without the RNG; bad records are
rejected with the move number and the reason."""

import copy
import json
import random
import re

import pytest

import tigris
from tigris.errors import RecordError
from tigris.record import load, replay, to_record


def played(players, seed, **setup):
    rng = random.Random(seed)
    g = tigris.Game(players=players, seed=seed, **setup)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    return g


def without_rng(g):
    raw = g.raw_state()
    raw.pop("rng")
    return raw


@pytest.mark.parametrize("players", [2, 3, 4])
def test_replay_reproduces_the_final_state(players):
    for seed in range(5):
        g = played(players, seed)
        rec = json.loads(json.dumps(to_record(g, bots=["random"] * players)))
        assert rec["format"] == "tigris-game/1"
        assert rec["result"]["ranking"] == g.ranking()
        r = replay(rec)
        assert without_rng(r) == without_rng(g)
        assert r.history == g.history


def test_replay_every_board_and_variant(combo):
    for seed in range(3):
        g = played(2 + seed, seed, **combo)
        rec = json.loads(json.dumps(to_record(g)))
        assert (rec["board"], tuple(rec["variants"])) == (combo["board"], combo["variants"])
        r = replay(rec)
        assert (r.board, r.variants) == (g.board, g.variants)
        assert without_rng(r) == without_rng(g)
        assert r.history == g.history


def test_replay_does_not_depend_on_the_rng():
    g = played(2, 3)
    rec = to_record(g)
    rec["seed"] = 12345                  # a different RNG stream: the stored draws rule
    assert without_rng(replay(rec)) == without_rng(g)


def test_partial_replay():
    g = played(2, 4)
    rec = to_record(g)
    r = replay(rec, upto=10)
    assert len(r.history) == 10
    assert r.history == g.history[:10]


def test_bad_move_names_the_move_number():
    g = played(2, 5)
    rec = to_record(g)
    bad = copy.deepcopy(rec)
    bad["moves"][6]["move"] = "tile blue A1"      # A1 is land: never legal for blue
    with pytest.raises(tigris.RecordError, match=r"move 7\b.*tile blue A1"):
        replay(bad)
    bad = copy.deepcopy(rec)
    bad["moves"][3]["player"] = (bad["moves"][3]["player"] + 1) % 2
    with pytest.raises(tigris.RecordError, match=r"move 4\b.*player"):
        replay(bad)
    bad = copy.deepcopy(rec)
    bad["moves"][2]["move"] = "dance"
    with pytest.raises(tigris.RecordError, match=r"move 3\b.*unknown action"):
        replay(bad)


def test_bad_draws_and_results_are_rejected():
    g = played(2, 6)
    rec = to_record(g)
    with_draws = next(i for i, m in enumerate(rec["moves"]) if m.get("draws"))
    bad = copy.deepcopy(rec)
    bad["moves"][with_draws]["draws"].append([0, "red"])
    with pytest.raises(tigris.RecordError, match=rf"move {with_draws + 1}\b.*draws"):
        replay(bad)
    bad = copy.deepcopy(rec)
    bad["moves"][with_draws]["draws"][0][1] = "purple"
    with pytest.raises(tigris.RecordError, match="draw is"):
        replay(bad)
    bad = copy.deepcopy(rec)
    bad["result"]["ranking"] = list(reversed(bad["result"]["ranking"]))
    if bad["result"]["ranking"] != rec["result"]["ranking"]:
        with pytest.raises(tigris.RecordError, match="result"):
            replay(bad)
    bad = copy.deepcopy(rec)
    bad["deal"] = bad["deal"][:-1]
    with pytest.raises(tigris.RecordError, match="deal"):
        replay(bad)
    with pytest.raises(tigris.RecordError, match="format"):
        replay({"format": "chess"})
    with pytest.raises(tigris.RecordError, match="not JSON"):
        replay("{")


def test_load_a_game_from_a_jsonl_file(tmp_path):
    games = [played(2, s) for s in (1, 2)]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(to_record(g)) + "\n" for g in games))
    assert load(f"{path}:2")["deal"] == to_record(games[1])["deal"]
    with pytest.raises(tigris.RecordError, match="holds 2"):
        load(f"{path}:3")
    with pytest.raises(tigris.RecordError, match="No such file"):
        load(tmp_path / "missing.json")


# -- the record's fields are checked (issue 9) ----------------------------------------------

@pytest.mark.parametrize("field, value, match", [
    ("deal", None, r"^deal: expected a list of \[player, colour\] draws, not None$"),
    ("deal", 7, r"^deal: expected a list"),
    ("deal", [[True, "red"]], r"^deal: a draw is \[player, colour\], not \[True, 'red'\]"),
    ("deal", [[10**5000, "red"]], r"^deal: player a 5001-digit number is not in this game$"),
    ("players", 10**30, r"^players: expected 2, 3 or 4, not 1000000000000000000000000000000$"),
    ("players", 2.0, r"^players: expected 2, 3 or 4, not 2\.0$"),
    ("players", True, r"^players: expected 2, 3 or 4"),
    ("seed", float("inf"), r"^seed: expected a whole number from -2\*\*63 to 2\*\*63 - 1, or null, not inf$"),
    ("seed", 1.5, r"^seed: expected a whole number from -2\*\*63"),
    ("seed", "7", r"^seed: expected a whole number from -2\*\*63"),
    ("seed", 2**64, r"^seed: expected a whole number from -2\*\*63 to 2\*\*63 - 1, or null, not 18446744073709551616$"),
    ("seed", -2**63 - 1, r"^seed: expected a whole number from -2\*\*63"),
    ("bots", {"random": 1}, r"^bots: expected a list of 2 names \(one per seat\) or null"),
    ("bots", ["random"], r"^bots: expected a list of 2 names"),
    ("bots", ["ran\x00dom", "random"], r"^bots\[0\]: a name is 1 to 200 printable characters"),
    ("bots", ["random", "\ud800"], r"^bots\[1\]: a name is 1 to 200 printable characters"),
    ("bots", ["", "random"], r"^bots\[0\]: a name is 1 to 200 printable characters"),
    ("notes", "mine", r"^'notes': not a field of a record"),
    ("board", ["classic"], r"^board: expected one of classic, advanced"),
    ("variants", "english", r"^variants: expected a list of variant names"),
    ("variants", ["welsh"], r"^variants: unknown variant 'welsh'"),
    ("format", "x" * 10**6, r"^format: expected 'tigris-game/1', got 'xxx"),
])
def test_bad_record_fields_name_the_field(field, value, match):
    """deal null, draws null, a huge player count or an infinite seed raised TypeError or
    OverflowError; now a RecordError naming the field, and quoting little of the value."""
    rec = to_record(played(2, 7))
    rec[field] = value
    with pytest.raises(tigris.RecordError, match=match) as e:
        replay(rec)
    assert len(str(e.value)) < 200


@pytest.mark.parametrize("newer", ["tigris-game/2", "tigris-game/10"])
def test_a_record_of_a_newer_format_says_a_newer_tigris_wrote_it(newer):
    """Issue 55: not "expected 'tigris-game/1'" alone: which version reads what."""
    rec = to_record(tigris.Game(players=2, seed=1), bots=None)
    with pytest.raises(RecordError, match=rf"^format: {newer} was written by a newer tigris; this one "
                                          rf"\({re.escape(tigris.__version__)}\) reads tigris-game/1$"):
        replay(dict(rec, format=newer))
    for older in ("tigris-game/0", "tigris-games/2", "tigris-game/2x"):
        with pytest.raises(RecordError, match=rf"^format: expected 'tigris-game/1', got '{older}'"):
            replay(dict(rec, format=older))


def test_bad_moves_name_the_move():
    rec = json.loads(json.dumps(to_record(played(2, 8))))
    k = next(i for i, m in enumerate(rec["moves"]) if m.get("draws"))
    for draws, match in ((None, "expected a list of"), (5, "expected a list of"),
                         ([[0, "red", 1]], "a draw is")):
        bad = copy.deepcopy(rec)
        bad["moves"][k]["draws"] = draws
        with pytest.raises(tigris.RecordError, match=rf"^move {k + 1} \(.*\): {match}"):
            replay(bad)
    bad = copy.deepcopy(rec)
    bad["moves"][3]["move"] = 1797
    with pytest.raises(tigris.RecordError, match=r"^move 4: the move is notation"):
        replay(bad)
    bad["moves"][3]["move"] = "pass " + "x" * 10**6
    with pytest.raises(tigris.RecordError, match=r"^move 4: 'pass xxx.*\(1000005 characters\)") as e:
        replay(bad)
    assert len(str(e.value)) < 600


def test_replay_refuses_moves_out_of_range():
    rec = to_record(played(2, 9))
    n = len(rec["moves"])
    assert len(replay(rec, upto=n).history) == n and replay(rec, upto=0).history == []
    for upto in (-1, n + 1, 10**30, 2.0):
        with pytest.raises(tigris.RecordError, match=rf"^move .*: out of range; the record "
                                                     rf"holds {n} moves"):
            replay(rec, upto=upto)


def test_to_record_needs_the_history_from_the_deal():
    """A game loaded from a position or copied with stack=False was written with deal [];
    after random_playout its moves were gone but a result was written."""
    g = tigris.Game(players=2, seed=10)
    for _ in range(12):
        g.apply(g.legal_actions()[0])
    assert g.history_complete and g.copy().history_complete
    assert without_rng(replay(to_record(g.copy()))) == without_rng(g)
    played_out = g.copy()
    played_out.random_playout(3)
    import pickle
    incomplete = [tigris.Game.from_position(g.to_position()), g.copy(stack=False),
                  g.determinize(0, 1), played_out, pickle.loads(pickle.dumps(g))]
    for h in incomplete:
        assert not h.history_complete
        with pytest.raises(tigris.RecordError, match=r"^to_record: this game's moves since its "
                                                     r"deal are unknown"):
            to_record(h)
    # A game replayed from its record has its history again, and records the same.
    r = replay(to_record(g))
    assert r.history_complete and to_record(r)["moves"] == to_record(g)["moves"]


def test_load_refuses_files_that_are_not_utf8(tmp_path):
    path = tmp_path / "game.json"
    path.write_bytes(b'{"format": "tigris-game/1", "x": "\xff\xfe"}')
    with pytest.raises(tigris.RecordError, match=r"game\.json: not UTF-8 text \(byte 34\)"):
        load(path)
    path.write_text(json.dumps(to_record(played(2, 1))) + "\n")
    with pytest.raises(tigris.RecordError, match=r"game '111.*\(5000 characters\) asked for, the file holds 1$") as e:
        load(f"{path}:" + "1" * 5000)
    assert len(str(e.value)) < 300 + len(str(path))
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(tigris.RecordError, match=r"not JSON"):
        load(path)


@pytest.mark.parametrize("field, value, match", [
    ("seconds", float("nan"), r"^move 1 \(.*\): seconds must be a number from 0, not nan$"),
    ("seconds", float("inf"), r"^move 1 \(.*\): seconds must be a number from 0, not inf$"),
    ("seconds", -1, r"^move 1 \(.*\): seconds must be a number from 0"),
    ("seconds", "0.1", r"^move 1 \(.*\): seconds must be a number from 0"),
    ("comment", "mine", r"^move 1 \(.*\): 'comment' is not a field of a move"),
])
def test_bad_move_fields_name_the_move(field, value, match):
    rec = to_record(played(2, 7))
    rec["moves"][0][field] = value
    with pytest.raises(tigris.RecordError, match=match):
        replay(json.loads(json.dumps(rec)))
