"""The tigris command: every subcommand runs, and bad input gives a clear message."""

import json

import pytest

from tigris.commands import main


def test_play_writes_a_record_that_show_replays(tmp_path, capsys):
    record = tmp_path / "demo.json"
    assert main(["play", "--seed", "3", "--every", "0", "--record", str(record)]) == 0
    out = capsys.readouterr().out
    assert "final position" in out and "1. player" in out
    rec = json.loads(record.read_text())
    assert rec["format"] == "tigris-game/1" and rec["result"]["ranking"]
    assert main(["show", str(record), "--move", "4", "--moves"]) == 0
    out = capsys.readouterr().out
    assert "   4. player" in out and "   5. player" not in out


def test_show_a_position(tmp_path, capsys):
    import tigris

    path = tmp_path / "pos.json"
    path.write_text(json.dumps(tigris.Game(players=3, seed=2).to_position()))
    assert main(["show", str(path)]) == 0
    assert "A   B   C" in capsys.readouterr().out


@pytest.mark.parametrize("content, message", [
    (None, "No such file"),
    ("{", "not JSON"),
    ('{"format": "tigris-position/1", "board": "hexagonal"}', "board"),
])
def test_show_rejects_bad_files(tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    assert main(["show", str(path)]) == 1
    assert message in capsys.readouterr().err


def test_bench_runs_small(capsys):
    assert main(["bench", "--games", "4", "--repeats", "1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["figures"]
    assert any(f["figure"].startswith("random 2-player games") and f["median"] > 0 for f in figures)


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_bots_lists_the_configurations_and_every_knob(capsys):
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    assert "ismcts-fast" in out and "exploration=0.7" in out
    # issue 55: a line for players (its strength, its Elo) beside the one on the search
    assert "level-3          ismcts  a casual player: +127 Elo over level 2" in out
    assert "                         level 3 of 6: ismcts-fast at 30 iterations" in out
    assert "eval_scale" not in out              # weights at their defaults are left out
    assert main(["bots", "--knobs"]) == 0
    out = capsys.readouterr().out
    assert "greedy:" in out and "pimc:" in out and "determinizations" in out
    line = next(l for l in out.splitlines() if l.split()[:1] == ["eval_scale"])
    assert "2.0" in line and "logistic" in line


def _subparsers():
    import argparse

    from tigris.commands import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def test_every_command_with_a_seed_defaults_to_the_same_one():
    from tigris.commands import SEED

    defaults = {name: next(a.default for a in sub._actions if a.dest == "seed")
                for name, sub in _subparsers().items()
                if any(a.dest == "seed" for a in sub._actions)}
    assert {"play", "hint", "analyse", "match", "tune", "tournament"} <= set(defaults)
    # a tournament's --seed overrides its spec's, whose own default is the same; play's is
    # None so that --resume can tell a seed given from none (a new game draws a fresh one)
    from tigris.tournament import Spec
    assert defaults.pop("tournament") is None and Spec(bots=["a", "b"]).seed == SEED
    assert defaults.pop("play") is None
    # learn's is None so that a continued loop takes its folder's; a new one the default
    assert defaults.pop("learn") is None and _subparsers()["learn"].get_default("setting_defaults")["seed"] == SEED
    assert set(defaults.values()) == {SEED}, defaults


def test_the_analysis_thresholds_are_given_in_points_as_reported():
    from tigris import analysis
    from tigris.commands import THRESHOLD_POINTS
    from tigris.commands.options import as_threshold

    assert THRESHOLD_POINTS == {"margin": {"inaccuracy": 0.75, "mistake": 1.5, "blunder": 3.0},
                                "win": {"inaccuracy": 5, "mistake": 10, "blunder": 20}}
    args = _subparsers()["analyse"].parse_args(["g.json", "--mistake", "12.5"])
    assert args.mistake == 12.5 and args.measure == "margin" and args.out is None
    # points of margin as they are; percentage points of win chance as a fraction
    assert as_threshold("mistake", 12.5, "margin") == 12.5
    assert as_threshold("mistake", 12.5, "win") == 0.125
    assert THRESHOLD_POINTS["margin"] == analysis.THRESHOLDS["margin"]
    assert {k: v / 100 for k, v in THRESHOLD_POINTS["win"].items()} == analysis.THRESHOLDS["win"]


def test_analyse_writes_beside_the_current_folder_by_default(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["play", "--bots", "random", "random", "--record", "g.json", "--every", "0"]) == 0
    capsys.readouterr()
    assert main(["analyse", "g.json", "--iterations", "10", "--players", "0"]) == 0
    assert "analysis in g.analysis.jsonl" in capsys.readouterr().out
    assert (tmp_path / "g.analysis.jsonl").is_file()
    from tigris.commands.analyse import analysis_name
    assert str(analysis_name("results/t/games.jsonl:3")) == "games-3.analysis.jsonl"


def test_play_numbers_the_last_turn_as_the_board_does(capsys):
    assert main(["play", "--bots", "random", "random", "--every", "0"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("--- final position"))
    over = next(line for line in out.splitlines() if line.startswith("Game over after turn"))
    turn = int(over.split("after turn ")[1].split(".")[0])
    assert header.startswith(f"--- final position, turn {turn}, after ")


def test_play_checks_its_record_file_before_the_game(tmp_path, capsys):
    bot = tmp_path / "mine.toml"
    bot.write_text('kind = "greedy"\n')
    for target, message in ((bot, "is the file this command reads"),
                            ("/dev/null", "not a regular file (a device)"),
                            (tmp_path, "not a regular file (a folder)")):
        assert main(["play", "--bots", str(bot), "random", "--every", "0",
                     "--record", str(target)]) == 1
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1
        assert f"--record {target}" in captured.err and message in captured.err
    assert bot.read_text() == 'kind = "greedy"\n'


def test_match_checks_its_games_file_before_the_first_game(tmp_path, capsys):
    (tmp_path / "m" / "games.jsonl").mkdir(parents=True)
    assert main(["match", "greedy", "random", "--max-games", "2", "--jobs", "1",
                 "--out", str(tmp_path / "m")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "games.jsonl is not a regular file (a folder)" in err


@pytest.mark.parametrize("command", [["show", "{record}", "--moves"], ["show", "{games}:2"],
                                     ["replay", "{record}", "--every", "0"],
                                     ["replay", "{folder}", "--game", "0", "--every", "0"],
                                     ["hint", "{record}", "--move", "3", "--iterations", "20"],
                                     ["analyse", "{record}", "--iterations", "10", "--players", "0"]])
def test_a_command_replays_its_record_once(command, tmp_path, monkeypatch, capsys):
    from tigris import record, tournament

    monkeypatch.chdir(tmp_path)
    assert main(["play", "--bots", "random", "random", "--record", "g.json", "--every", "0"]) == 0
    rec = json.loads((tmp_path / "g.json").read_text())
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / tournament.GAMES_FILE).write_text(
        "".join(json.dumps(dict(rec, game=k)) + "\n" for k in range(2)))
    replays = []
    real = record.replay
    monkeypatch.setattr(record, "replay", lambda rec, upto=None: replays.append(upto) or real(rec, upto))
    paths = {"record": "g.json", "games": f"t/{tournament.GAMES_FILE}", "folder": "t"}
    assert main([part.format(**paths) for part in command]) == 0
    # reading a results folder replays each of its lines once, to check its result
    checked = 2 if "{folder}" in command else 0
    assert len(replays) == 1 + checked, command


def test_a_match_of_bots_on_a_time_budget_saves_a_folder_that_reads_back(tmp_path, capsys):
    """A bot with seconds (iterations saved as null) is read back from the results folder."""
    bot = tmp_path / "quick.toml"
    bot.write_text('kind = "ismcts"\nseconds = 0.002\nrollout_depth = 2\n')
    assert main(["match", str(bot), "random", "--max-games", "2", "--jobs", "1", "--out", str(tmp_path / "m")]) == 0
    assert "in 2 games" in capsys.readouterr().out
    assert main(["standings", str(tmp_path / "m")]) == 0
    from tigris import knobs

    assert knobs.check("ismcts", {"iterations": None, "seconds": 0.1})["iterations"] is None
    with pytest.raises(ValueError, match="iterations must be a whole number"):
        knobs.check("ismcts", {"iterations": None})


def test_play_without_a_seed_deals_a_new_game_each_time_and_says_its_seed(tmp_path, capsys):
    seeds, records = [], []
    for k in range(3):
        out = tmp_path / f"g{k}.json"
        assert main(["play", "--bots", "random", "random", "--every", "0", "--record", str(out)]) == 0
        said = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("seed "))
        seeds.append(int(said.split()[1]))
        records.append(json.loads(out.read_text()))
    assert len(set(seeds)) == 3 and [r["seed"] for r in records] == seeds
    assert main(["play", "--bots", "random", "random", "--every", "0", "--seed", str(seeds[0]),
                 "--record", str(tmp_path / "again.json")]) == 0
    assert "seed " not in capsys.readouterr().out.splitlines()[0]
    again = json.loads((tmp_path / "again.json").read_text())
    assert [m["move"] for m in again["moves"]] == [m["move"] for m in records[0]["moves"]]


def test_play_refuses_a_record_in_a_missing_folder_before_the_game(tmp_path, monkeypatch, capsys):
    """Issue 42: --record missing-folder/x.json played the whole game and failed only at
    the write, losing the game."""
    from tigris.play import runner

    played = []
    monkeypatch.setattr(runner, "play_out", lambda *a, **k: played.append(1))
    assert main(["play", "--bots", "random", "random", "--record",
                 str(tmp_path / "missing" / "x.json")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no folder" in err and "missing" in err
    assert played == [] and not (tmp_path / "missing").exists()


def test_view_help_names_the_analysis_file_not_an_old_format(capsys):
    """Issue 42: tigris view --help named tigris-analysis/1, a format no longer read."""
    assert main(["view", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "analysis/1" not in out and "RECORD.analysis.jsonl" in out



@pytest.mark.parametrize("signum, status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_an_interruption_inside_an_exec_of_a_string_keeps_the_exit_status(tmp_path, signum, status):
    # An import under way when the signal comes may run exec() of a string (scipy's
    # does); CPython then marks a `python -m` process to end by SIGINT, whatever the
    # status main returns.
    import subprocess
    import sys

    from processes import _env, as_in_a_terminal

    (tmp_path / "interrupted.py").write_text(f"""
import sys
from tigris.commands import bots, main

def run(args):
    exec("import os, signal, time; os.kill(os.getpid(), signal.{signum}); time.sleep(30)")

bots.run = run
sys.exit(main(["bots"]))
""")
    done = subprocess.run([sys.executable, "-m", "interrupted"], capture_output=True, text=True,
                          timeout=120, env=_env(), cwd=tmp_path, preexec_fn=as_in_a_terminal)
    assert done.returncode == status, done.stderr
    assert done.stderr == "tigris bots: interrupted\n"
