"""tigris tune on a dask cluster: the same history and bot as local workers for the same
--jobs, bad --backend/--scheduler/--sprt refused in one line before anything is written,
a lost scheduler said in one line and the run resumed; the SPRT verification's
result.json, read back (and a result.json of before the SPRT)."""

import json
import re
import signal
import sys
import threading

import pytest

from tigris.commands import main
from tigris.errors import TuneError
from tigris.tune import verification_text
from tigris.tunefolder import read_result

from processes import dask_cluster
from waiting import until


def argv(bot, out, *more):
    return ["tune", bot, "--param", "exploration=0.1:2.0", "--param", "rollout_depth=0:6:int",
            "--opponent", "random", "--opponent", "greedy", "--seed", "3", "--name", "tiny-tuned",
            "--out", str(out), *more]


def one_line(err, prog="tigris tune"):
    """The one line of an error on stderr (progress bars aside)."""
    lines = [line.split("\r")[-1] for line in err.split("\n")]
    lines = [line for line in lines if line.strip() and not re.search(r"\d+%\|", line)]
    assert len(lines) == 1 and "Traceback" not in err, err[-3000:]
    assert lines[0].startswith(f"{prog}: "), lines[0]
    return lines[0]


def untimed(path):
    """The verification's records without their thinking times and CPU times."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return [dict(r, seconds=None, cpu_seconds=None, moves=[m["move"] for m in r["moves"]])
            for r in records]


@pytest.mark.slow
def test_a_dask_cluster_gives_the_same_history_bot_and_verification(tmp_path, tiny_bot, capsys):
    distributed = pytest.importorskip("dask.distributed")
    # --jobs 5: two iterations proposed at once, on either backend
    more = ["--budget", "16", "--verify-games", "6", "--jobs", "5"]
    assert main(argv(tiny_bot, tmp_path / "local", *more)) == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        assert main(argv(tiny_bot, tmp_path / "dask", *more, "--backend", "dask",
                         "--scheduler", cluster.scheduler_address)) == 0
    said = capsys.readouterr().out
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert (dask / "history.csv").read_text() == (local / "history.csv").read_text()
    assert len((local / "history.csv").read_text().splitlines()) == 5
    assert (dask / "tiny-tuned.toml").read_text() == (local / "tiny-tuned.toml").read_text()
    here, there = read_result(local), read_result(dask)
    assert here["theta"] == there["theta"]
    assert ({k: v for k, v in here["verification"].items() if k != "file"}
            == {k: v for k, v in there["verification"].items() if k != "file"})
    assert untimed(dask / "verification.jsonl") == untimed(local / "verification.jsonl")
    v = here["verification"]
    assert v["test"] == "sprt" and v["max_games"] == 6 and v["games"] + v["errors"] <= 6
    sentence = verification_text(v, "tiny-tuned", tiny_bot)
    assert said.count(sentence) == 2 and "SPRT(H0: elo <= 0, H1: elo >= 50)" in sentence


@pytest.mark.parametrize("more, message", [
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler names the dask scheduler: give --backend dask with it"),
    (["--backend", "dask"], "the dask backend needs --scheduler ADDRESS"),
    (["--backend", "spark"], "invalid choice: 'spark'"),
    (["--sprt", "elo0=30", "elo1=10"], "--sprt: elo1 (10.0) must be above elo0 (30.0)"),
    (["--sprt", "elo=5"], "--sprt: 'elo=5' is not KEY=VALUE"),
    (["--sprt", "elo0=0", "elo1=20", "alpha=2"], "--sprt: alpha and beta must be between 0 and 1"),
])
def test_bad_backends_and_tests_are_one_line_before_anything_is_written(tmp_path, tiny_bot, capsys,
                                                                         more, message):
    out = tmp_path / "run"
    assert main(argv(tiny_bot, out, "--budget", "4", *more)) != 0
    assert message in one_line(capsys.readouterr().err)
    assert not out.exists()


@pytest.mark.slow
def test_a_scheduler_out_of_reach_is_one_line_before_anything_is_written(tmp_path, tiny_bot, capsys,
                                                                        short_connect_timeout):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "run"
    assert main(argv(tiny_bot, out, "--budget", "4", "--backend", "dask",
                     "--scheduler", "tcp://127.0.0.1:1")) == 1
    assert "cannot reach the dask scheduler at 'tcp://127.0.0.1:1'" in one_line(capsys.readouterr().err)
    assert not out.exists()


@pytest.mark.slow
def test_a_scheduler_lost_mid_run_is_one_line_and_resume_goes_on(tmp_path, tiny_bot, capsys):
    out = tmp_path / "run"
    history = out / "history.csv"
    more = ["--budget", "24", "--verify-games", "2", "--jobs", "2"]
    with dask_cluster() as (address, scheduler):
        def kill_after_the_first_iteration():
            until(lambda: history.exists() and len(history.read_text().splitlines()) > 1, fail=False)
            scheduler.send_signal(signal.SIGKILL)

        killer = threading.Thread(target=kill_after_the_first_iteration)
        killer.start()
        code = main(argv(tiny_bot, out, *more, "--backend", "dask", "--scheduler", address))
        killer.join()
    line = one_line(capsys.readouterr().err)
    assert code == 1 and f"lost the dask scheduler at {address}" in line
    assert f"the history so far is in {history}; continue with --resume" in line
    kept = len(history.read_text().splitlines()) - 1
    assert 0 < kept < 6 and not (out / "result.json").exists()
    # the rest on this machine's workers, with the same --jobs
    assert main(argv(tiny_bot, out, *more, "--resume")) == 0
    assert len(history.read_text().splitlines()) == 7
    assert read_result(out)["verification"]["max_games"] == 2


# ---------------------------------------------------------------------------------------
# result.json read back: the SPRT's fields checked, a file of before the SPRT still read
# ---------------------------------------------------------------------------------------

SPRT_RESULT = {"theta": {"exploration": 0.9}, "bot_file": "run/tiny-tuned.toml", "verification": {
    "test": "sprt", "decision": "H1 accepted", "llr": 3.01, "bounds": [-2.944, 2.944],
    "elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05, "max_games": 200, "games": 40,
    "wins": 30, "draws": 2, "losses": 8, "score": 0.775, "ci95": [0.625, 0.877], "errors": 0,
    "file": "run/verification.jsonl"}}
OLD_RESULT = {"theta": {"exploration": 0.9}, "bot_file": "run/tiny-tuned.toml", "verification": {
    "games": 40, "score": 0.6, "ci95": [0.446, 0.737], "errors": 0, "significant": False,
    "file": "run/verification.jsonl"}}


def _saved(tmp_path, result):
    (tmp_path / "result.json").write_text(json.dumps(result))
    return tmp_path


def test_a_result_reads_back_and_says_its_decision_without_a_margin(tmp_path):
    v = read_result(_saved(tmp_path, SPRT_RESULT))["verification"]
    text = verification_text(v, "tiny-tuned", "tiny")
    assert text == ("verification, tiny-tuned vs tiny, SPRT(H0: elo <= 0, H1: elo >= 50): 77.5% over "
                    "40 games (95% interval 62.5%-87.7%); LLR 3.01 crossed the upper bound 2.94: H1 "
                    "accepted, tiny-tuned is stronger than tiny (the test estimates no margin)")
    low = dict(SPRT_RESULT["verification"], decision="H0 accepted", llr=-3.5)
    assert "crossed the lower bound -2.94: H0 accepted, tiny-tuned is not 50 Elo stronger than tiny" \
        in verification_text(low, "tiny-tuned", "tiny")
    none = dict(SPRT_RESULT["verification"], decision="not significant", llr=0.4)
    assert verification_text(none, "tiny-tuned", "tiny").endswith(
        "LLR 0.40 within (-2.94, 2.94): not significant in the most games (--verify-games 200)")
    assert all("Elo stronger" not in verification_text(dict(SPRT_RESULT["verification"], **d), "a", "b")
               for d in ({}, {"decision": "not significant", "llr": 0.4}))


def test_a_result_of_before_the_sprt_still_reads(tmp_path):
    v = read_result(_saved(tmp_path, OLD_RESULT))["verification"]
    assert v["test"] == "interval" and v["significant"] is False
    assert verification_text(v, "tiny-tuned", "tiny") == (
        "verification, tiny-tuned vs tiny: 60.0% over 40 games (95% interval 44.6%-73.7%); not "
        "significant: the interval includes 50%")


@pytest.mark.parametrize("change, message", [
    ({"decision": "H0 accepted"}, "field verification.decision must be the one the LLR 3.01 and its bounds give"),
    ({"decision": "accepted"}, "field verification.decision"),
    ({"wins": 31}, "field verification.games must be wins + draws + losses, not 40"),
    ({"score": 0.5}, "field verification.score must be (wins + draws / 2) / games"),
    ({"ci95": [0.8, 0.9]}, "field verification.ci95 must be [low, high] around the score"),
    ({"llr": float("nan")}, "field verification.llr must be a finite number"),
    ({"elo1": -10}, "field verification.elo1 must be above elo0 (0)"),
    ({"alpha": 1}, "field verification.alpha must be a number between 0 and 1"),
    ({"max_games": 0}, "field verification.max_games must be a whole number of at least 1"),
    ({"test": "wilson"}, "field verification.test must be sprt, not 'wilson'"),
    ({"games": 0, "wins": 0, "draws": 0, "losses": 0}, "field verification.score must be null"),
])
def test_an_edited_result_is_refused_naming_the_field(tmp_path, change, message):
    result = dict(SPRT_RESULT, verification=dict(SPRT_RESULT["verification"], **change))
    with pytest.raises(TuneError, match=re.escape(f"{tmp_path / 'result.json'}: {message}")):
        read_result(_saved(tmp_path, result))


def test_the_plot_says_the_verification_or_warns_in_one_line(tmp_path, tiny_bot, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "run"
    assert main(argv(tiny_bot, out, "--budget", "4", "--verify-games", "2", "--jobs", "1")) == 0
    said = capsys.readouterr().out
    sentence = next(line for line in said.splitlines() if line.startswith("verification,"))
    assert main(["tune", "--plot", str(out)]) == 0
    captured = capsys.readouterr().out
    assert "traces drawn" in captured and sentence in captured.splitlines()
    (out / "result.json").write_text(json.dumps(dict(OLD_RESULT, verification={})))
    assert main(["tune", "--plot", str(out)]) == 0
    warned = one_line(capsys.readouterr().err)
    assert "result.json: field verification.file must be text" in warned
    assert warned.endswith("the verification is not shown")


def test_the_plot_without_matplotlib_is_one_line_naming_the_extra(tmp_path, tiny_bot, capsys, monkeypatch):
    out = tmp_path / "run"
    assert main(argv(tiny_bot, out, "--budget", "4", "--verify-games", "2", "--jobs", "1")) == 0
    capsys.readouterr()
    for name in ("matplotlib", "matplotlib.pyplot"):
        monkeypatch.setitem(sys.modules, name, None)        # an import of it raises ImportError
    assert main(["tune", "--plot", str(out)]) == 1
    said = one_line(capsys.readouterr().err)
    assert "plotting needs matplotlib" in said and "[plot]" in said
    assert not list(out.glob("*.png"))
