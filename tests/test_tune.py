"""Tuning, SPSA and Bayes: each core on a synthetic objective, tiny real runs, resume, errors."""

import csv
import json
import os
import random
import re
import sys

import pytest

from tigris import bots
from tigris.commands import main
from tigris.errors import ConfigError, UsageError
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


def tiny_spec(bot, budget, method="spsa"):
    """A tuning of exploration and rollout_depth of `bot` against random, 2 verification games."""
    return TuneSpec(bot=bot, params=[parse_param("exploration=0.1:2.0"),
                                     parse_param("rollout_depth=0:6:int")],
                    opponents=["random"], budget=budget, seed=2, verify_games=2, method=method)


def killed_and_resumed(spec, folder, rows):
    """The result of the run of `spec` in `folder` killed in the middle of writing its
    history's row `rows` + 1 (the rows before kept), then run again with resume."""
    tune(spec, folder, jobs=2, progress=False)
    lines = open(folder / "history.csv").read().splitlines(keepends=True)
    (folder / "history.csv").write_text("".join(lines[:rows + 1]) + lines[rows + 1][:10])
    return tune(spec, folder, jobs=2, progress=False, resume=True)


def test_a_tiny_tuning_run_writes_history_and_a_loadable_bot(tmp_path, tiny_bot):
    spec = tiny_spec(tiny_bot, 12)
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
    resumed = killed_and_resumed(spec, again, 1)
    assert [int(r["iteration"]) for r in csv.DictReader(open(again / "history.csv"))] == [1, 2, 3]
    assert resumed["theta"] == result["theta"]


@pytest.mark.slow
def test_a_tiny_bayes_run_plays_the_same_games_per_iteration_and_resumes(tmp_path, tiny_bot):
    spec = tiny_spec(tiny_bot, 16, "bayes")
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
    resumed = killed_and_resumed(spec, again, 2)
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


# ---------------------------------------------------------------------------------------
# The files of a run: checked before any game is played, written so that they read back
# ---------------------------------------------------------------------------------------

def test_toml_strings_are_escaped_as_the_spec_says():
    import tomllib

    from tigris._plumbing.tomlfile import toml_string
    for text in ['plain', 'a "quoted" name', 'back\\slash', 'new\nline', 'tab\there',
                 'nul\x00 del\x7f bell\x07', 'é \u2028 ☃', '"""', "'", '\\u0041']:
        assert tomllib.loads(f"x = {toml_string(text)}")["x"] == text
    lone = toml_string("lone \udcff")            # a file name that is not UTF-8
    assert tomllib.loads(f"x = {lone}")["x"] == "lone \ufffd"


def test_a_bot_path_with_quotes_and_newlines_gives_a_bot_file_that_loads(tmp_path):
    folder = tmp_path / 'odd "folder"\nwith a line'
    folder.mkdir()
    bot = folder / "tiny.toml"
    bot.write_text('kind = "ismcts"\niterations = 30\nrollout_depth = 2\nexploration = 0.7\n')
    spec = TuneSpec(bot=str(bot), params=[parse_param("exploration=0.1:2.0")],
                    opponents=["random"], budget=4, seed=1, verify_games=2)
    result = tune(spec, tmp_path / "run", jobs=1, progress=False)
    conf = bots.configuration(result["bot_file"])
    assert conf.kind == "ismcts" and str(bot) in conf.description
    text = open(result["bot_file"]).read()
    assert all(line.startswith(("#", "kind =", "description =", "iterations =", "rollout_depth =",
                                "exploration =")) or "=" in line for line in text.splitlines())
    # the same run resumes (its settings and bot file read back)
    again = tune(spec, tmp_path / "run", jobs=1, progress=False, resume=True)
    assert again["theta"] == result["theta"]


@pytest.mark.parametrize("name", ["../../escaped", "a/b", "..", ".", "", "two\nlines",
                                  "bell\x07", "back\\slash"])
def test_a_name_that_is_not_a_plain_file_name_is_refused_before_any_game(tmp_path, tiny_bot,
                                                                         capsys, name):
    argv = ["tune", tiny_bot, "--param", "exploration=0.1:2.0", "--opponent", "random",
            "--budget", "4", "--out", str(tmp_path / "run"), "--name", name]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("tigris tune: --name") and "file name" in err
    assert not (tmp_path / "run").exists() and not (tmp_path.parent / "escaped.toml").exists()


def test_a_bot_file_that_cannot_be_written_is_found_before_any_game(tmp_path, tiny_bot, capsys):
    run = tmp_path / "run"
    (run / "tiny-tuned.toml").mkdir(parents=True)
    argv = ["tune", tiny_bot, "--param", "exploration=0.1:2.0", "--opponent", "random",
            "--budget", "4", "--out", str(run), "--name", "tiny-tuned"]
    assert main(argv) == 1
    assert "tiny-tuned.toml is not a regular file (a folder)" in capsys.readouterr().err
    assert not (run / "history.csv").exists()
    # nor over the bot it tunes
    own = run / "own.toml"
    own.write_text(open(tiny_bot).read())
    assert main(["tune", str(own), "--param", "exploration=0.1:2.0", "--opponent", "random",
                 "--budget", "4", "--out", str(run), "--name", "own"]) == 1
    assert "is the file this command reads" in capsys.readouterr().err
    assert not (run / "history.csv").exists()


# ---------------------------------------------------------------------------------------
# What a run tells: no signal, the verification's games and its significance, the plots
# ---------------------------------------------------------------------------------------

def test_an_opponent_that_gives_no_signal_is_warned_of(tmp_path, tiny_bot, monkeypatch, capsys):
    import tigris.tune as tuning
    monkeypatch.setattr(tuning, "score", lambda rec, name: 1.0 if name != "random" else 0.0)
    argv = ["tune", tiny_bot, "--param", "exploration=0.1:2.0", "--opponent", "random",
            "--budget", "12", "--verify-games", "2", "--jobs", "1", "--out", str(tmp_path / "run")]
    assert main(argv) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warned) == 1
    assert warned[0].startswith("tigris tune: warning: 3 of 3 iterations won or lost every game "
                                "against random: they give no signal")


def test_an_iteration_whose_games_all_failed_stops_the_run_and_keeps_the_history(
        tmp_path, tiny_bot, monkeypatch, capsys):
    """No score is made up for a setting none of whose games finished (once 0.5, above an
    even share with 3 or 4 players): the run stops naming the iteration, the rows before
    it kept, and --resume goes on from there."""
    import tigris.tune as tuning
    real = tuning.score
    monkeypatch.setattr(tuning, "score", lambda rec, name: None if name == "minus" and
                        rec["game"] >= 2 * 4 else real(rec, name))
    out = tmp_path / "run"
    argv = ["tune", tiny_bot, "--param", "exploration=0.1:2.0", "--opponent", "random",
            "--budget", "12", "--verify-games", "2", "--jobs", "2", "--out", str(out)]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("tigris tune: iteration 2: every game of the minus setting failed")
    assert [r["iteration"] for r in csv.DictReader(open(out / "history.csv"))] == ["1"]
    monkeypatch.setattr(tuning, "score", real)
    assert main(argv + ["--resume"]) == 0
    assert [r["iteration"] for r in csv.DictReader(open(out / "history.csv"))] == ["1", "2", "3"]


def play_or_die(task, settings, spec):
    """``play_game``, but game 5 (iteration 1's second) kills its worker process (SIGKILL),
    every time."""
    import signal

    from tigris.play.runner import play_game

    if task.game == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return play_game(task, settings, spec)


@pytest.mark.slow
def test_a_game_whose_worker_dies_twice_fails_and_the_tuning_goes_on(tmp_path, tiny_bot,
                                                                     monkeypatch, capsys):
    from joblib import delayed

    import tigris.tune as tuning

    monkeypatch.setattr(tuning, "game_tasks", lambda tasks, settings, spec: (
        delayed(play_or_die)(task, settings, spec) for task in tasks))
    out = tmp_path / "run"
    assert main(["tune", tiny_bot, "--param", "exploration=0.1:2.0", "--opponent", "random",
                 "--budget", "12", "--verify-games", "2", "--jobs", "2", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert re.search(r"tigris tune: warning: a worker process died \(killed \(SIGKILL\).*"
                     r"game 5 \(iteration 1\)", err), err
    assert [r["iteration"] for r in csv.DictReader(open(out / "history.csv"))] == ["1", "2", "3"]


def test_the_verification_games_are_saved_and_can_be_viewed(tmp_path, tiny_bot, capsys):
    out = tmp_path / "run"
    argv = ["tune", tiny_bot, "--param", "exploration=0.1:2.0", "--opponent", "random",
            "--budget", "4", "--verify-games", "4", "--jobs", "1", "--out", str(out)]
    assert main(argv) == 0
    said = capsys.readouterr().out
    games = out / "verification.jsonl"
    lines = games.read_text().splitlines()
    assert len(lines) == 4 and f"verification games: {games}" in said
    assert {tuple(sorted(json.loads(line)["bots"])) for line in lines} == {("original", "tuned")}
    assert main(["view", f"{games}:2", "--out", str(tmp_path / "g.html")]) == 0


@pytest.mark.parametrize("decision, llr, said", [
    ("H1 accepted", 3.1, "LLR 3.10 crossed the upper bound 2.94: H1 accepted, tiny-tuned is stronger than"),
    ("H0 accepted", -3.0, "LLR -3.00 crossed the lower bound -2.94: H0 accepted, tiny-tuned is not 50 Elo"),
    ("not significant", 1.2, "LLR 1.20 within (-2.94, 2.94): not significant in the most games"),
])
def test_a_verification_says_the_bound_crossed_or_not_significant(tmp_path, tiny_bot, monkeypatch,
                                                                   capsys, decision, llr, said):
    import tigris.tune as tuning
    check = {"test": "sprt", "decision": decision, "llr": llr, "bounds": [-2.944, 2.944],
             "elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05, "max_games": 200,
             "games": 40, "wins": 10, "draws": 0, "losses": 30, "score": 0.25,
             "ci95": [0.142, 0.402], "errors": 0, "file": "v.jsonl"}
    monkeypatch.setattr(tuning, "tune", lambda *a, **kw: {
        "theta": {"exploration": 0.5}, "bot_file": "b.toml", "verification": check})
    assert main(["tune", tiny_bot, "--param", "exploration=0.1:2.0", "--opponent", "random",
                 "--name", "tiny-tuned"]) == 0
    line = next(s for s in capsys.readouterr().out.splitlines() if s.startswith("verification,"))
    assert said in line and "25.0% over 40 games (95% interval 14.2%-40.2%)" in line
    assert "by about" not in line and "Elo stronger than" not in line.replace("not 50 Elo", "")


def test_the_verification_decision_agrees_with_its_llr_and_reads_back(tmp_path, tiny_bot):
    from tigris.tunefolder import read_result
    spec = TuneSpec(bot=tiny_bot, params=[parse_param("exploration=0.1:2.0")],
                    opponents=["random"], budget=4, seed=1, verify_games=2)
    result = tune(spec, tmp_path / "run", jobs=1, progress=False, sprt={"elo1": 30})
    v = result["verification"]
    low, high = v["bounds"]
    assert v["decision"] == ("H1 accepted" if v["llr"] >= high else "H0 accepted"
                             if v["llr"] <= low else "not significant")
    assert (v["elo0"], v["elo1"], v["max_games"]) == (0, 30, 2)
    assert read_result(tmp_path / "run") == json.loads(json.dumps(result))


def test_without_matplotlib_plots_name_the_extra(tmp_path, tiny_bot, monkeypatch, capsys):
    spec = TuneSpec(bot=tiny_bot, params=[parse_param("exploration=0.1:2.0")],
                    opponents=["random"], budget=4, seed=1, verify_games=2)
    tune(spec, tmp_path / "p", jobs=1, progress=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)          # import fails
    assert main(["tune", "--plot", str(tmp_path / "p")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'tigris-euphrates[plot]'" in err


def test_the_plot_draws_a_png(tmp_path, tiny_bot, capsys):
    spec = TuneSpec(bot=tiny_bot, params=[parse_param("exploration=0.1:2.0"),
                                          parse_param("rollout_depth=0:6:int")],
                    opponents=["random"], budget=8, seed=1, verify_games=2)
    tune(spec, tmp_path / "p", jobs=1, progress=False)
    assert main(["tune", "--plot", str(tmp_path / "p")]) == 0
    png = tmp_path / "p" / "traces.png"
    assert png.read_bytes().startswith(b"\x89PNG") and str(png) in capsys.readouterr().out


def test_the_plot_s_whole_number_axes_have_whole_ticks(tmp_path, tiny_bot, monkeypatch):
    """Issue 55: an integer knob's axis and the iterations' showed ticks like 2.25."""
    pytest.importorskip("matplotlib")
    from tigris._plumbing import plotting

    spec = TuneSpec(bot=tiny_bot, params=[parse_param("exploration=0.1:2.0"),
                                          parse_param("rollout_depth=2:4:int")],
                    opponents=["random"], budget=8, seed=1, verify_games=2)
    tune(spec, tmp_path / "p", jobs=1, progress=False)
    drawn, real = {}, plotting.png

    def png(fig, dpi=100):
        fig.canvas.draw()
        for ax in fig.axes:
            if ax.get_ylabel():
                drawn[ax.get_ylabel()] = (list(ax.get_xticks()), list(ax.get_yticks()))
        return real(fig, dpi)

    monkeypatch.setattr(plotting, "png", png)
    plot(tmp_path / "p")
    assert set(drawn) == {"exploration", "rollout_depth"}
    for name, (xs, ys) in drawn.items():
        assert all(x == int(x) for x in xs), (name, xs)
    assert all(y == int(y) for y in drawn["rollout_depth"][1]), drawn["rollout_depth"]
    assert any(y != int(y) for y in drawn["exploration"][1])          # a real knob keeps its fractions


# ---------------------------------------------------------------------------------------
# A saved run read back: its settings and history are checked, line and field
# ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("saved")
    bot = folder / "tiny.toml"
    bot.write_text('kind = "ismcts"\niterations = 30\nrollout_depth = 2\nexploration = 0.7\n')
    spec = TuneSpec(bot=str(bot), params=[parse_param("exploration=0.1:2.0")],
                    opponents=["random", "greedy"], budget=12, seed=3, verify_games=2)
    tune(spec, folder / "run", jobs=1, progress=False)
    return folder / "run", spec


def edited(saved_run, tmp_path, history=None, settings=None):
    """A copy of the saved run with its history text and/or settings replaced."""
    import shutil
    run = tmp_path / "copy"
    shutil.copytree(saved_run[0], run)
    if history is not None:
        (run / "history.csv").write_text(history(open(run / "history.csv").read()))
    if settings is not None:
        data = json.load(open(run / "tune.json"))
        settings(data)
        (run / "tune.json").write_text(json.dumps(data))
    return run


def cell(text, line, column, value):
    """`text` (CSV) with one field replaced."""
    rows = list(csv.reader(text.splitlines()))
    rows[line - 1][rows[0].index(column)] = value
    return "".join(",".join(r) + "\r\n" for r in rows)


@pytest.mark.parametrize("change, message", [
    (lambda t: cell(t, 3, "score_plus", "1.5"), "line 3: score_plus must be a score from 0 to 1"),
    (lambda t: cell(t, 2, "exploration", "nan"), "line 2: exploration must be a finite number"),
    (lambda t: cell(t, 2, "exploration", "9"), "line 2: exploration must be within its bounds"),
    (lambda t: cell(t, 3, "score_minus", ""), "line 3: score_minus must be a number"),
    (lambda t: cell(t, 3, "iteration", "7"), "line 3: iteration must be 2"),
    (lambda t: cell(t, 2, "opponent", "cheat"), "line 2: opponent must be 'random'"),
    (lambda t: cell(t, 1, "score_plus", "score"), "line 1 has no column 'score_plus'"),
    (lambda t: t.splitlines()[0] + "\r\n" + t.splitlines()[1] + ",1\r\n", "line 2 has 9 fields"),
    (lambda t: t + t.splitlines()[1] + "\r\n", "line 5: iteration must be 4"),
])
@pytest.mark.slow
def test_a_hand_edited_history_is_refused_naming_line_and_field(saved_run, tmp_path, capsys,
                                                                 change, message):
    run = edited(saved_run, tmp_path, history=change)
    before = (run / "history.csv").read_bytes()
    assert main(["tune", "--plot", str(run)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{run / 'history.csv'}: " in err and message in err, err
    with pytest.raises(TuneError, match=message.replace("(", r"\(").replace("[", r"\[")):
        tune(saved_run[1], run, jobs=1, progress=False, resume=True)
    assert (run / "history.csv").read_bytes() == before          # never cut or rewritten


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(params="x"), "field params must be a list of parameters"),
    (lambda d: d["params"][0].update(low=5), "field params[0].low/high must be finite numbers"),
    (lambda d: d["params"][0].pop("name"), "field params[0].name must be a parameter name"),
    (lambda d: d.update(method="grid"), "field method must be spsa or bayes"),
    (lambda d: d.update(players=True), "field players must be 2, 3 or 4"),
    (lambda d: d.update(opponents=[]), "field opponents must be a list of bot names"),
    (lambda d: d.update(budget=None), "field budget must be a whole number of at least 4"),
])
def test_hand_edited_settings_are_refused_naming_the_field(saved_run, tmp_path, capsys,
                                                           change, message):
    run = edited(saved_run, tmp_path, settings=change)
    assert main(["tune", "--plot", str(run)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{run / 'tune.json'}: {message}" in err, err


def test_a_history_of_another_method_or_another_run_is_refused(saved_run, tmp_path):
    run = edited(saved_run, tmp_path, settings=lambda d: d.update(method="bayes"))
    with pytest.raises(TuneError, match="line 1 has no column 'score'"):
        plot(run)


def test_an_opponent_whose_file_name_is_not_utf8_is_kept_as_it_is(tmp_path, tiny_bot):
    opponent = os.fsdecode(bytes(tmp_path) + b"/opp\xff.toml")
    with open(os.fsencode(opponent), "w") as f:
        f.write('kind = "random"\n')
    spec = TuneSpec(bot=tiny_bot, params=[parse_param("exploration=0.1:2.0")],
                    opponents=[opponent], budget=8, seed=1, verify_games=2)
    result = tune(spec, tmp_path / "run", jobs=1, progress=False)
    assert bots.configuration(result["bot_file"]).kind == "ismcts"
    assert tune(spec, tmp_path / "run", jobs=1, progress=False, resume=True) == result
    history = tmp_path / "run" / "history.csv"
    assert "opp\ufffd.toml" in history.read_text(encoding="utf-8")
    history.write_bytes(history.read_bytes().replace(b"\r\n2,", b"\r\n\xff,", 1))
    with pytest.raises(TuneError, match="history.csv: line 3 is not UTF-8 text"):
        plot(tmp_path / "run")


@pytest.mark.parametrize("how, message", [
    ("lines ended by a carriage return alone", "line 1 holds a line break that is not a newline"),
    ("deleted", "history.csv: missing, or a link to nothing"),
    ("a link to nothing", "history.csv: it is a symbolic link"),
])
def test_resume_refuses_a_history_it_cannot_read_instead_of_dropping_it(saved_run, tmp_path, how,
                                                                        message):
    run = edited(saved_run, tmp_path)
    history = run / "history.csv"
    if how.startswith("lines"):
        history.write_bytes(history.read_bytes().replace(b"\r\n", b"\r"))
    else:
        history.unlink()
        if how.startswith("a link"):
            history.symlink_to(tmp_path / "nowhere" / "history.csv")
    kept = history.read_bytes() if history.exists() else None
    with pytest.raises((TuneError, UsageError), match=message):
        tune(saved_run[1], run, jobs=1, progress=False, resume=True)
    assert (history.read_bytes() if history.exists() else None) == kept     # nothing cut


def test_a_last_row_without_its_end_is_ignored_with_a_warning(saved_run, tmp_path):
    from tigris.tunefolder import read_history, read_settings

    run = edited(saved_run, tmp_path)
    history = run / "history.csv"
    settings = read_settings(run)
    rows = read_history(history, "spsa", settings["params"], settings["opponents"])
    history.write_bytes(history.read_bytes().rstrip(b"\r\n"))     # the write cut short
    with pytest.warns(UserWarning, match="history.csv: the last row has no end"):
        assert read_history(history, "spsa", settings["params"], settings["opponents"]) == rows[:-1]


def test_a_fifo_in_place_of_a_history_does_not_hang(saved_run, tmp_path, capsys):
    run = edited(saved_run, tmp_path)
    (run / "history.csv").unlink()
    os.mkfifo(run / "history.csv")
    assert main(["tune", "--plot", str(run)]) == 1
    assert "history.csv: a pipe, not a file" in capsys.readouterr().err


def test_the_plot_is_never_drawn_over_a_pipe(saved_run, tmp_path, capsys):
    run = edited(saved_run, tmp_path)
    os.mkfifo(run / "traces.png")
    assert main(["tune", "--plot", str(run)]) == 1
    assert "traces.png is not a regular file (a pipe)" in capsys.readouterr().err


def test_a_toml_file_that_is_a_pipe_is_refused_unopened(tmp_path):
    from tigris._plumbing.tomlfile import read_toml
    os.mkfifo(tmp_path / "spec.toml")
    with pytest.raises(ConfigError, match="spec.toml: a pipe, not a file"):
        read_toml(tmp_path / "spec.toml")
