"""Tuning for 3 and 4 players: the tuned bot at a table of opponents taken in turn,
scored by first places, iterations of a chosen number of games, and a verification of
the tuned bot against the original at the same tables."""

import csv
import json
import os

import pytest

from tigris.play.runner import first_of_two, score
from tigris.tune import TuneSpec, field_of, parse_param, tune
from tigris.tunefolder import read_history, read_result


@pytest.fixture(autouse=True)
def in_repo(monkeypatch):
    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def game(bots, ranking):
    return {"bots": bots, "result": {"ranking": ranking}}


def test_two_bots_score_against_each_other_by_first_places():
    """1 when a wins and b does not, 0 the other way, 1/2 when both or neither do; with
    two players it is a's score."""
    assert first_of_two(game(["a", "b", "c"], [[0], [2], [1]]), "a", "b") == 1
    assert first_of_two(game(["a", "b", "c"], [[1], [0, 2]]), "a", "b") == 0
    assert first_of_two(game(["a", "b", "c"], [[2], [0], [1]]), "a", "b") == 0.5     # c won
    assert first_of_two(game(["a", "b", "c"], [[0, 1], [2]]), "a", "b") == 0.5
    assert first_of_two({"bots": ["a", "b"], "error": "boom", "result": None}, "a", "b") is None
    for ranking in ([[0], [1]], [[1], [0]], [[0, 1]]):
        assert first_of_two(game(["a", "b"], ranking), "a", "b") == score(game(["a", "b"], ranking), "a")


def test_the_field_takes_the_opponents_in_turn():
    spec = TuneSpec(bot="ismcts-fast", params=[], opponents=["greedy", "random", "level-2"], players=4)
    assert [field_of(spec, k) for k in (1, 2, 3, 4)] == [
        ["greedy", "random", "level-2"], ["random", "level-2", "greedy"],
        ["level-2", "greedy", "random"], ["greedy", "random", "level-2"]]
    two = TuneSpec(bot="ismcts-fast", params=[], opponents=["greedy", "random"])
    assert [field_of(two, k) for k in (1, 2, 3)] == [["greedy"], ["random"], ["greedy"]]


@pytest.mark.slow
def test_a_three_player_tune_plays_its_tables_and_resumes_to_the_same_history(tmp_path, tiny_bot):
    spec = TuneSpec(bot=tiny_bot, params=[parse_param("exploration=0.1:2.0")],
                    opponents=["greedy", "random"], budget=24, seed=3, verify_games=6,
                    players=3, iteration_games=12)
    result = tune(spec, tmp_path / "run", jobs=2, progress=False)
    rows = list(csv.DictReader(open(tmp_path / "run" / "history.csv")))
    assert [(int(r["iteration"]), int(r["games"]), r["opponent"]) for r in rows] == [
        (1, 12, "greedy + random"), (2, 24, "random + greedy")]
    assert all(0 <= float(r[c]) <= 1 for r in rows for c in ("score_plus", "score_minus"))
    settings = json.loads((tmp_path / "run" / "tune.json").read_text())
    assert settings["players"] == 3 and settings["iteration_games"] == 12
    # the verification: both bots at each table, with one opponent, every seating
    games = [json.loads(line) for line in open(tmp_path / "run" / "verification.jsonl")]
    assert games and all(sorted(g["bots"]) == sorted(["tuned", "original", "greedy"]) for g in games)
    assert {tuple(g["bots"]) for g in games[:3]} == {("tuned", "original", "greedy"),
                                                     ("original", "greedy", "tuned"),
                                                     ("greedy", "tuned", "original")}
    v = read_result(tmp_path / "run")["verification"]
    assert v["games"] == len(games) - v["errors"] and v["max_games"] == 6

    again = tmp_path / "again"
    tune(spec, again, jobs=2, progress=False)
    lines = open(again / "history.csv").read().splitlines(keepends=True)
    (again / "history.csv").write_text("".join(lines[:2]) + lines[2][:15])
    resumed = tune(spec, again, jobs=2, progress=False, resume=True)
    assert open(again / "history.csv").read() == open(tmp_path / "run" / "history.csv").read()
    assert resumed["theta"] == result["theta"]
    # read back as this run's: another table size, another count of games, is not
    with pytest.raises(Exception, match="games must be 8"):
        read_history(again / "history.csv", "spsa", settings["params"], spec.opponents,
                     players=3, games=8)
    with pytest.raises(Exception, match="opponent must be"):
        read_history(again / "history.csv", "spsa", settings["params"], spec.opponents,
                     players=2, games=12)
