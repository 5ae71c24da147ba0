"""The scripts of examples/ run as a reader would run them, and do what they say."""

import json

import pytest

import tigris
from tigris.record import replay

from processes import ROOT, script

EXAMPLES = ROOT / "examples"


def run_example(name, *args, cwd):
    done = script(EXAMPLES / name, *args, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_play_a_game_writes_a_record_that_replays(tmp_path):
    out = run_example("play_a_game.py", tmp_path / "game.json", cwd=tmp_path)
    record = json.loads((tmp_path / "game.json").read_text())
    game = replay(record)
    assert game.is_over
    winner = game.ranking()[0][0]
    assert f"1. player {winner}: final score {game.final_score(winner)}" in out


def test_ask_for_a_hint_ranks_legal_moves(tmp_path):
    out = run_example("ask_for_a_hint.py", cwd=tmp_path)
    lines = out.splitlines()
    assert lines[0] == "player 1 to move; 4,000 iterations; #1 is the engine's play"
    game = tigris.Game(players=2, seed=11)
    game.apply("tile red G4")
    game.apply("tile black H5")
    rows = lines[1:4]
    assert [line[:2].strip() for line in rows] == ["1", "2", "3"]
    assert rows[0][3] == " " and all(line[3] in "=<>" for line in rows[1:])    # marks against #1
    plans = [line[5:].split("  ")[0].strip().split(" + ") for line in rows]
    assert all(game.parse_action(plan[0]) in game.legal_actions() for plan in plans)
    assert lines[4:] and all(not line[:2].strip().isdigit() for line in lines[4:])   # the notes


@pytest.mark.slow
def test_flat_monte_carlo_plays_a_legal_move(tmp_path):
    out = run_example("flat_monte_carlo.py", cwd=tmp_path)
    move = out.strip().removeprefix("flat Monte Carlo plays ")
    game = tigris.Game(players=2, seed=5)
    assert game.is_legal(game.parse_action(move))


@pytest.mark.slow
def test_small_tournament_saves_and_rates_its_games(tmp_path):
    out = run_example("small_tournament.py", tmp_path / "t", cwd=tmp_path)
    lines = (tmp_path / "t" / "games.jsonl").read_text().splitlines()
    assert len(lines) == 4
    assert "| greedy |" in out and "| random |" in out


@pytest.mark.parametrize("name", ["play_a_game.py", "small_tournament.py"])
def test_a_path_that_cannot_be_written_is_one_line(tmp_path, name):
    (tmp_path / "a-file").write_text("")
    done = script(EXAMPLES / name, tmp_path / "a-file" / "below", cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "a-file" in done.stderr
    assert done.stdout == ""                # refused before any game is played
