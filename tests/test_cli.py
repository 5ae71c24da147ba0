"""The tigris command: every subcommand runs, and bad input gives a clear message."""

import json

import pytest

from tigris.cli import main


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
    assert "eval_scale" not in out              # weights at their defaults are left out
    assert main(["bots", "--knobs"]) == 0
    out = capsys.readouterr().out
    assert "greedy:" in out and "pimc:" in out and "determinizations" in out
    line = next(l for l in out.splitlines() if l.split()[:1] == ["eval_scale"])
    assert "2.0" in line and "logistic" in line


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
