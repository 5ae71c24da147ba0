"""tools/random_marks.py: games of a bot that plays some moves at random, analysed, and
how often the analysis marks the random moves and the others."""

import json

import pytest

from tigris import analysis, record
from tigris.errors import UsageError

from processes import tool

marks = tool("random_marks")
ARGS = ["--shares", "0.5", "--games", "2", "--bot", "level-2", "--opponent", "level-2",
        "--iterations", "20", "--jobs", "1"]


@pytest.mark.slow
def test_the_games_their_random_moves_and_the_table(tmp_path, capsys):
    out = tmp_path / "run"
    marks.main([str(out), *ARGS])
    table = capsys.readouterr().out.splitlines()
    assert table[0].startswith("| p | games | marks per game")
    assert table[2].startswith("| 0.5 | 2 | ")
    for k in range(2):
        rec = record.load(out / "p0.5" / f"game-{k}.json")
        random = json.loads((out / "p0.5" / f"game-{k}.random.json").read_text())
        assert random["seat"] == k % 2 and random["random"]
        # every random move is the bot's, at a decision with a choice
        for n, g in record.steps(rec):
            if n + 1 in random["random"]:
                assert g.current_player == random["seat"] and len(g.legal_actions()) > 1
        assert rec["bots"][k % 2] == "level-2 random_share=0.5"
        header, rows = analysis.read_analysis(out / "p0.5" / f"game-{k}.margin.analysis.jsonl")
        assert header["players"] == [k % 2] and header["measure"] == "margin"
        assert header["decisions"] == len(rows)
    # Run again: nothing played or searched, the same table; another measure analyses the
    # same games into files of its own; other games are refused, naming the setting.
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    marks.main([str(out), *ARGS])
    assert capsys.readouterr().out.splitlines() == table
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    marks.main([str(out), *ARGS, "--measure", "win"])
    assert (out / "p0.5" / "game-1.win.analysis.jsonl").is_file()
    with pytest.raises(UsageError, match="settings.json: this run's games is 2, not 3"):
        marks.main([str(out), *ARGS, "--games", "3"])


def test_the_figures_count_random_and_other_moves_apart():
    def row(move, mark, forced=False):
        return {"move": move, "mark": mark, "after_from": "forced" if forced else "searched"}

    games = [([row(1, "mistake"), row(3, None), row(5, "inaccuracy"), row(7, None, forced=True)], {1, 3}),
             ([row(2, None), row(4, "blunder")], {4})]
    f = marks.figures(games)
    assert f["random"] == (2, 3) and f["other"] == (1, 2)        # marked, moves
    assert f["kinds"]["random"] == {"inaccuracy": 0, "mistake": 1, "blunder": 1}
    assert f["kinds"]["other"] == {"inaccuracy": 1, "mistake": 0, "blunder": 0}
    assert f["marks"][0] == 1.5 and f["games"] == 2            # marks: 2 and 1


@pytest.mark.parametrize("argv, message", [(["--shares", "1.5"], "random_share must be between 0 and 1"),
                                           (["--shares", "0.5", "0.5"], "each share once"),
                                           (["--games", "0"], "at least 1"),
                                           (["--opponent", "nobody"], "unknown bot 'nobody'")])
def test_bad_settings_are_refused_before_anything_is_written(tmp_path, argv, message):
    with pytest.raises(ValueError, match=message):
        marks.main([str(tmp_path / "run"), *argv])
    assert not (tmp_path / "run").exists()
