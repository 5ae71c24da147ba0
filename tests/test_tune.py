"""Tuning, SPSA and Bayes: each core on a synthetic objective, tiny real runs, resume, errors."""

import csv
import os
import random

import pytest

from tigris import bots
from tigris.cli import main
from tigris.errors import ConfigError
from tigris.tune import SPSA, Bayes, Param, TuneError, TuneSpec, parse_param, plot, tune


@pytest.fixture(autouse=True)
def in_repo(monkeypatch):
    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


PARAMS = [Param("x", 0.0, 4.0), Param("y", 0.0, 100.0, integer=True)]


def noisy_objective(sd):
    """-(x - 1.3)^2 - (y - 42)^2 / 400 observed with noise: the optimum is inside PARAMS'
    box, far from where the tests start."""
    noise = random.Random(7)

    def f(theta):
        x, y = theta
        return -(x - 1.3) ** 2 - (y - 42) ** 2 / 400 + noise.gauss(0, sd)

    return f


def test_spsa_converges_on_a_noisy_objective():
    params, f = PARAMS, noisy_objective(0.05)
    spsa = SPSA(params, [3.5, 90.0], iterations=3000, seed=3)
    for k in range(1, 3001):
        delta, plus, minus = spsa.perturb(k)
        spsa.update(k, delta, f(plus), f(minus))
    x, y = spsa.theta
    assert abs(x - 1.3) < 0.15, x
    assert abs(y - 42) < 6, y


def test_spsa_respects_bounds():
    params = [Param("x", 0.0, 1.0)]
    spsa = SPSA(params, [0.5], iterations=100, seed=1)
    for k in range(1, 101):
        delta, plus, minus = spsa.perturb(k)
        assert 0.0 <= min(plus + minus) and max(plus + minus) <= 1.0
        spsa.update(k, delta, plus[0] * 100, minus[0] * 100)     # pushes hard upwards
    assert spsa.theta == [1.0]


def test_bayes_finds_the_optimum_of_a_noisy_objective():
    # The same objective as for SPSA, with noise as large as a few games' luck, on a
    # budget of 120 trials: the neighbourhood estimate lands near the optimum.
    params, f = PARAMS, noisy_objective(0.2)
    bayes = Bayes(params, [3.5, 90.0], seed=3)
    first = bayes.ask()
    assert first == [3.5, 90.0]                        # the bot as it is comes first
    bayes.tell(first, f(first))
    for _ in range(119):
        theta = bayes.ask()
        assert all(p.low <= x <= p.high for p, x in zip(params, theta))
        bayes.tell(theta, f(theta))
    x, y = bayes.best()
    assert abs(x - 1.3) < 0.5, x
    assert abs(y - 42) < 20, y


def test_bayes_replayed_from_its_history_goes_on_as_it_would_have():
    params = [Param("x", 0.0, 1.0)]
    whole, replayed = Bayes(params, [0.5], seed=5), Bayes(params, [0.5], seed=5)
    told = []
    for k in range(12):
        theta = whole.ask()
        told.append((theta, theta[0] * (1 - theta[0])))
        whole.tell(*told[-1])
    for theta, score in told[:7]:                       # a run killed after 7 trials
        replayed.tell(theta, score)
    for theta, score in told[7:]:
        assert replayed.ask() == theta
        replayed.tell(theta, score)
    assert replayed.best() == whole.best()


@pytest.fixture
def tiny_bot(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text('kind = "ismcts"\niterations = 30\nrollout_depth = 2\nexploration = 0.7\n')
    return str(path)


def test_a_tiny_tuning_run_writes_history_and_a_loadable_bot(tmp_path, tiny_bot):
    spec = TuneSpec(bot=tiny_bot, params=[parse_param("exploration=0.1:2.0"),
                                          parse_param("rollout_depth=0:6:int")],
                    opponents=["random"], budget=12, seed=2, verify_games=2)
    result = tune(spec, tmp_path / "run", jobs=2, progress=False)
    rows = list(csv.DictReader(open(tmp_path / "run" / "history.csv")))
    assert [int(r["iteration"]) for r in rows] == [1, 2, 3]
    assert all(0.1 <= float(r["exploration"]) <= 2.0 for r in rows)
    bot = bots.load(result["bot_file"])
    assert bot.params["exploration"] == pytest.approx(result["theta"]["exploration"])
    assert isinstance(bot.params["rollout_depth"], int)
    assert "Tuned by SPSA" in open(result["bot_file"]).read()
    v = result["verification"]
    assert v["games"] == 2 and 0 <= v["ci95"][0] <= v["score"] <= v["ci95"][1] <= 1

    # Interrupted after the first iteration (and in the middle of writing the second):
    # --resume continues to the same end.
    again = tmp_path / "again"
    tune(spec, again, jobs=2, progress=False)
    lines = open(again / "history.csv").read().splitlines(keepends=True)
    (again / "history.csv").write_text("".join(lines[:2]) + lines[2][:10])
    resumed = tune(spec, again, jobs=2, progress=False, resume=True)
    assert [int(r["iteration"]) for r in csv.DictReader(open(again / "history.csv"))] == [1, 2, 3]
    assert resumed["theta"] == result["theta"]


def test_a_tiny_bayes_run_plays_the_same_games_per_iteration_and_resumes(tmp_path, tiny_bot):
    spec = TuneSpec(bot=tiny_bot, params=[parse_param("exploration=0.1:2.0"),
                                          parse_param("rollout_depth=0:6:int")],
                    opponents=["random"], budget=16, seed=2, verify_games=2, method="bayes")
    result = tune(spec, tmp_path / "run", jobs=2, progress=False)
    rows = list(csv.DictReader(open(tmp_path / "run" / "history.csv")))
    assert [int(r["iteration"]) for r in rows] == [1, 2, 3, 4]
    assert [int(r["games"]) for r in rows] == [4, 8, 12, 16]
    assert float(rows[0]["exploration"]) == 0.7 and float(rows[0]["rollout_depth"]) == 2
    assert all(0 <= float(r["score"]) <= 1 for r in rows)
    assert "Tuned by Bayes" in open(result["bot_file"]).read()
    chosen = result["theta"]
    assert any(float(r["exploration"]) == pytest.approx(chosen["exploration"]) for r in rows)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pass
    else:
        assert plot(tmp_path / "run").stat().st_size > 0      # trials coloured by score

    again = tmp_path / "again"
    tune(spec, again, jobs=2, progress=False)
    lines = open(again / "history.csv").read().splitlines(keepends=True)
    (again / "history.csv").write_text("".join(lines[:3]) + lines[3][:12])
    resumed = tune(spec, again, jobs=2, progress=False, resume=True)
    assert open(again / "history.csv").read() == open(tmp_path / "run" / "history.csv").read()
    assert resumed["theta"] == result["theta"]
    # A run is continued only with the method it was started with.
    spec.method = "spsa"
    with pytest.raises(TuneError, match="other settings"):
        tune(spec, again, jobs=2, progress=False, resume=True)


@pytest.mark.parametrize("text, message", [
    ("exploration=2:1", "empty"),
    ("exploration=a:b", "numbers"),
    ("exploration", "NAME=LOW:HIGH"),
    ("exploration=0:1:float", "NAME=LOW:HIGH"),
])
def test_bad_parameter_specs(text, message):
    with pytest.raises(TuneError, match=message):
        parse_param(text)


def test_unknown_parameters_and_bots(tmp_path, tiny_bot):
    with pytest.raises(TuneError, match="not a numeric parameter.*tunable: iterations"):
        TuneSpec(bot=tiny_bot, params=[parse_param("temperature=0:1")], opponents=["random"]).check()
    with pytest.raises(TuneError, match="no numeric parameters"):
        TuneSpec(bot="random", params=[parse_param("seed=0:1")], opponents=["greedy"]).check()
    # The evaluator's weights are knobs of the greedy bot too.
    TuneSpec(bot="greedy", params=[parse_param("eval_leader=0:1")], opponents=["random"]).check()
    with pytest.raises(ConfigError, match="--opponent: unknown bot"):
        TuneSpec(bot=tiny_bot, params=[parse_param("exploration=0:1")], opponents=["nobody"]).check()
    with pytest.raises(TuneError, match="epsilon must be between 0 and 1"):
        TuneSpec(bot=tiny_bot, params=[parse_param("epsilon=0:2")], opponents=["random"]).check()
    assert main(["tune", tiny_bot, "--param", "exploration=1:0", "--opponent", "random"]) == 1


def test_plot_draws_or_says_how(tmp_path, tiny_bot):
    spec = TuneSpec(bot=tiny_bot, params=[parse_param("exploration=0.1:2.0")],
                    opponents=["random"], budget=4, seed=1, verify_games=2)
    tune(spec, tmp_path / "p", jobs=1, progress=False)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        with pytest.raises(TuneError, match="pip install matplotlib"):
            plot(tmp_path / "p")
    else:
        assert plot(tmp_path / "p").stat().st_size > 0
