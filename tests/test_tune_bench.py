"""tigris bench tune: the planted knobs' table holds together, a tiny run writes its
report and resumes, and bad options are one line.  The benchmark's figures are measured
(docs/results.md), not tested."""

import json
from pathlib import Path

import pytest

from tigris import knobs
from tigris.commands import main
from tigris.errors import TuneError
from tigris.runs import tunebench
from tigris.play.runner import deal_seed
from tigris.tune import tunable
from tigris.tunefolder import HISTORY_FILE, METHODS


@pytest.mark.parametrize("row", tunebench.PLANTED, ids=lambda row: row.name)
def test_each_planted_knob_starts_outside_its_good_region_and_the_shipped_value_inside(row):
    p, shipped = row.param, tunebench.shipped_value(row.name)
    low, high = row.good
    assert p.low <= low < high <= p.high
    assert not row.inside(row.planted) and row.distance(row.planted) > 0
    assert row.inside(shipped) and row.distance(shipped) == 0
    for value in (p.low, p.high, row.planted, low, high, shipped):
        assert p.low <= value <= p.high
        knobs.check("ismcts", {row.name: p.played(value)}, where=row.name)
    assert p.integer == (knobs.KNOBS[row.name].type is int)
    assert row.measured and "tigris tournament" in row.measured
    assert row.name in tunable("ismcts")


def test_there_are_at_least_three_planted_knobs_each_once():
    names = [row.name for row in tunebench.PLANTED]
    assert len(names) >= 3 and len(set(names)) == len(names)


def test_no_match_deals_a_game_of_a_tuning_run():
    # The tuning of seed S deals from deal_seed(S, 0) up, fewer than a base seed's deals.
    assert deal_seed(1_000_000, 1_000_002) < deal_seed(tunebench.MATCH_SEEDS, 0)


@pytest.fixture
def quick(monkeypatch, tmp_path):
    """The benchmark's steps as they are, on a bot whose games are quick: 10 iterations a
    move, short rollouts, the hand-written evaluation and priors."""
    bot = tmp_path / "quick.toml"
    bot.write_text('kind = "ismcts"\niterations = 10\nrollout_depth = 2\n')
    monkeypatch.setattr(tunebench, "BOT", str(bot))
    monkeypatch.setattr(tunebench, "ITERATIONS", 10)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*give no signal")      # two iterations may well not
def test_a_tiny_run_writes_its_report_and_resumes(tmp_path, quick):
    row = tunebench.PLANTED[0]
    out = tmp_path / "bench"

    def bench(games=2, iteration_games=0):
        return tunebench.run(method="spsa", budget=8, knobs=[row.name], seed=3, jobs=2,
                             progress=False, out=out, games=games, iteration_games=iteration_games)

    result = bench()
    assert json.loads((out / tunebench.RESULT_FILE).read_text()) == result
    assert result["method"] == "spsa" and result["budget"] == 8
    assert result["iteration_games"] == 4
    (knob,) = result["knobs"]
    assert knob["knob"] == row.name and knob["planted"] == row.planted
    assert row.param.low <= knob["tuned"] <= row.param.high
    assert knob["inside"] == row.inside(knob["tuned"])
    assert result["found"] == (1 if knob["inside"] else 0)        # the knobs tuned into their region
    assert knob["distance"] == pytest.approx(row.distance(knob["tuned"]))
    for key in ("against_planted", "against_shipped"):
        match = knob[key]
        assert match["games"] == 2 and 0 <= match["ci95"][0] <= match["score"] <= match["ci95"][1] <= 1
    assert len((out / row.name / HISTORY_FILE).read_text().splitlines()) == 1 + 2

    # Run again: every step is found done; nothing is played over but tune's own check.
    games = (out / row.name / "against-shipped" / "games.jsonl").read_text()
    (out / tunebench.RESULT_FILE).unlink()
    assert bench() == result
    assert (out / row.name / "against-shipped" / "games.jsonl").read_text() == games

    # Other settings in the same folder are refused, not mixed in.
    with pytest.raises(TuneError, match="other settings"):
        bench(games=4)
    with pytest.raises(TuneError, match="other settings"):
        bench(iteration_games=8)


def test_the_games_go_to_the_backend_asked(tmp_path, quick, monkeypatch):
    """--backend and --scheduler reach the tuning and both matches; --iteration-games the
    tuning."""
    from tigris import tournament, tune

    calls = []

    def fake_tune(spec, folder, **kw):
        calls.append(("tune", spec.iteration_games, kw["backend"], kw["scheduler"]))
        (Path(folder) / "tuned.toml").write_text(Path(spec.bot).read_text())
        return {"bot_file": str(Path(folder) / "tuned.toml"),
                "theta": {spec.params[0].name: spec.params[0].high}}

    def fake_tournament(spec, folder, **kw):
        calls.append(("match", kw["backend"], kw["scheduler"]))
        row = {"name": spec.bots[0], "games": 2, "wins": 1, "win_rate": 0.5,
               "win_rate_ci": (0.1, 0.9), "elo": 0.0, "elo_ci": None}
        return {"standings": {"bots": [row]}}

    monkeypatch.setattr(tune, "tune", fake_tune)
    monkeypatch.setattr(tournament, "run", fake_tournament)
    row = tunebench.PLANTED[0]
    tunebench.run(budget=8, knobs=[row.name], out=tmp_path / "b", games=2, iteration_games=8,
                  backend="dask", scheduler="tcp://somewhere:8786", progress=False)
    address = "tcp://somewhere:8786"
    assert calls == [("tune", 8, "dask", address), ("match", "dask", address),
                     ("match", "dask", address)]


def test_the_rows_say_each_knob_and_the_count_found():
    match = {"games": 200, "wins": 120, "score": 0.6, "ci95": [0.53, 0.67], "elo": 70,
             "elo_ci95": [20, 120]}
    result = {"method": "spsa", "budget": 2000, "found": 1, "knobs": [
        {"knob": "epsilon", "planted": 1.0, "shipped": 0.2, "good": [0.0, 0.5], "tuned": 0.3,
         "distance": 0.0, "against_planted": match, "against_shipped": dict(match, score=0.5)}]}
    figures = {name: (value, unit) for name, value, unit in tunebench.rows(result)}
    assert figures["epsilon: tuned value (planted 1, shipped 0.2)"] == (0.3, "value")
    against = "epsilon: tuned against the planted bot, 200 games (95% interval 53.0-67.0)"
    assert figures[against] == (60.0, "%")
    assert figures["knobs tuned into their good region (spsa, 2000 games each)"] == (1, "of 1")


@pytest.mark.parametrize("argv, option", [
    (["--knob", "nothing"], "--knob"),
    (["--knob", tunebench.PLANTED[0].name, tunebench.PLANTED[0].name], "--knob"),
    (["--method", "guess"], "--method"),
    (["--budget", "3"], "--budget"),
    (["--budget", "0"], "--budget"),
    (["--games", "1"], "--games"),
    (["--iteration-games", "6"], "--iteration-games"),
    (["--iteration-games", "8", "--budget", "4"], "--budget"),
    (["--backend", "dask"], "--scheduler"),
    (["--scheduler", "tcp://nowhere:8786"], "--scheduler"),
])
def test_bad_options_are_one_line_naming_the_option(argv, option, tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(["bench", "tune", "--out", str(out), *argv]) in (1, 2)
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("tigris bench: ")
    assert option in err and "Traceback" not in err
    assert not out.exists()                                 # refused before anything is written


def test_the_methods_offered_are_the_tuners():
    for method in METHODS:
        tunebench.check(method=method, budget=4, knobs=None, games=2)
    with pytest.raises(TuneError, match="choose one of " + ", ".join(METHODS)):
        tunebench.check(method="guess")


def test_the_command_prints_the_rows_and_says_where_the_report_is(tmp_path, monkeypatch, capsys):
    row = tunebench.PLANTED[0]
    match = {"games": 2, "wins": 1, "score": 0.5, "ci95": [0.1, 0.9], "elo": 0, "elo_ci95": None}
    result = {"method": "spsa", "budget": 8, "found": 0, "knobs": [
        {"knob": row.name, "planted": 1.0, "shipped": 0.2, "good": [0.0, 0.5], "tuned": 0.9,
         "distance": 0.4, "against_planted": match, "against_shipped": match}]}
    calls = []
    monkeypatch.setattr(tunebench, "run", lambda **kw: calls.append(kw) or result)
    out = tmp_path / "bench"
    assert main(["bench", "tune", "--knob", row.name, "--budget", "8", "--games", "2",
                 "--out", str(out), "--jobs", "1"]) == 0
    assert calls == [{"method": "spsa", "budget": 8, "knobs": [row.name], "seed": 0, "jobs": 1,
                      "out": str(out), "games": 2, "iteration_games": 0, "backend": "loky",
                      "scheduler": None}]
    captured = capsys.readouterr()
    assert f"{row.name}: distance to the good region [0, 0.5]" in captured.out
    assert "knobs tuned into their good region (spsa, 8 games each)" in captured.out
    assert f"report: {out / tunebench.RESULT_FILE}" in captured.err
