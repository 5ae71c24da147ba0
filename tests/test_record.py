"""Game records: replay reproduces the game exactly, without the RNG; bad records are
rejected with the move number and the reason."""

import copy
import json
import random

import pytest

import tigris
from tigris.record import load, replay, to_record


def played(players, seed, **setup):
    rng = random.Random(seed)
    g = tigris.Game(players=players, seed=seed, **setup)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    return g


def without_rng(g):
    raw = g._raw()
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
