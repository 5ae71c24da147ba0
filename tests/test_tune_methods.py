"""The tuning methods beside SPSA and Bayes: nevergrad's TBPSA on a synthetic noisy
objective, replayed from its history exactly, and in a tiny real run that a kill does
not change."""

import csv
import os
import random

import pytest

from tigris.tune import Nevergrad, Param, TuneError, tune

from test_tune import killed_and_resumed, tiny_spec

pytest.importorskip("nevergrad")


@pytest.fixture(autouse=True)
def in_repo(monkeypatch):
    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def win_chance(x):
    """A game's score at knob value x: 50% at the good value 1.0, falling to about 18%
    (-250 Elo) at 3.0, the planted start."""
    elo = -65 * (x - 1.0) ** 2
    return 1 / (1 + 10 ** (-elo / 400))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tbpsa_brings_a_planted_knob_back_through_game_noise(seed):
    """Scores of four games a trial (the noise of real tuning), 400 trials: the
    recommendation lands near the good value, far from where it started."""
    luck = random.Random(seed)
    m = Nevergrad([Param("x", 0.0, 4.0)], [3.0], "TBPSA", trials=400, seed=seed)
    for k in range(1, 401):
        theta, told = m.ask(k)
        assert told == k - 1 and 0.0 <= theta[0] <= 4.0
        m.tell(k, sum(luck.random() < win_chance(theta[0]) for _ in range(4)) / 4)
    assert abs(m.best()[0] - 1.0) < 0.7, m.best()


def test_asked_and_told_again_in_the_same_order_it_asks_the_same_trials():
    """Two trials asked before the first is told (a batch), then the rest one by one:
    a second optimiser replaying the asks and tells in that order asks the same."""
    def run(m, scores):
        out = [m.ask(1), m.ask(2)]
        m.tell(1, scores[0])
        m.tell(2, scores[1])
        for k in range(3, 12):
            out.append(m.ask(k))
            m.tell(k, scores[k - 1])
        return out

    scores = [random.Random(4).random() for _ in range(11)]
    params = [Param("x", 0.0, 1.0), Param("y", -5.0, 5.0)]
    first = run(Nevergrad(params, [0.5, 0.0], "TBPSA", trials=11, seed=9), scores)
    again = run(Nevergrad(params, [0.5, 0.0], "TBPSA", trials=11, seed=9), scores)
    assert first == again
    assert [told for _, told in first] == [0, 0] + list(range(2, 11))


@pytest.mark.slow
def test_a_tiny_tbpsa_run_resumes_to_the_same_history_and_refuses_an_edited_one(tmp_path, tiny_bot):
    spec = tiny_spec(tiny_bot, 24, "tbpsa")
    result = tune(spec, tmp_path / "run", jobs=2, progress=False)
    rows = list(csv.DictReader(open(tmp_path / "run" / "history.csv")))
    assert [int(r["iteration"]) for r in rows] == list(range(1, 7))
    assert [int(r["told"]) for r in rows] == list(range(6))          # one at a time at 2 jobs
    assert "Tuned by TBPSA (nevergrad)" in open(result["bot_file"]).read()

    # killed in the middle of writing the fourth row: --resume plays it again, to the same end
    again = tmp_path / "again"
    resumed = killed_and_resumed(spec, again, 3)
    assert open(again / "history.csv").read() == open(tmp_path / "run" / "history.csv").read()
    assert resumed["theta"] == result["theta"]

    # a history edited by hand is not the method's: refused, and left as it was
    lines = open(again / "history.csv").read().splitlines(keepends=True)
    fields = lines[2].split(",")
    fields[-1] = "3\n"                                    # iteration 2's rollout_depth
    (again / "history.csv").write_text("".join(lines[:2]) + ",".join(fields))
    edited = open(again / "history.csv").read()
    with pytest.raises(TuneError, match="iteration 2: the method asks"):
        tune(spec, again, jobs=2, progress=False, resume=True)
    assert open(again / "history.csv").read() == edited
