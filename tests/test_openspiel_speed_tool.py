"""tools/openspiel_speed.py: random games through the OpenSpiel adapter against
tigris.Game, each way the same number of whole games."""

import pytest

from processes import tool

pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

speed = tool("openspiel_speed")


def test_each_way_plays_whole_games(capsys):
    assert speed.main(["--games", "2", "--players", "3", "--observe", "--rounds", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "2 random games of 3 players each way, 2 alternating rounds (medians)"
    assert [line.split("  ")[0] for line in lines[1:]] == [
        "tigris.Game from Python", "tigris.Game.random_playout", "OpenSpiel state observed"]
    assert lines[1].endswith("1.00x tigris.Game's time")
    # whole games: some hundreds of decisions each
    assert speed.through_openspiel(2, 3, 5)[1] > 3 * 100
    assert speed.through_game(2, 3, 5)[1] > 3 * 100


def test_no_games_is_a_usage_error(capsys):
    assert speed.main(["--games", "0"]) == 2
    assert capsys.readouterr().err == "openspiel_speed: --games must be at least 1, not 0\n"


def test_no_rounds_is_a_usage_error(capsys):
    assert speed.main(["--rounds", "0"]) == 2
    assert capsys.readouterr().err == "openspiel_speed: --rounds must be at least 1, not 0\n"
