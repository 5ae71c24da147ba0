"""tools/hint_first_row.py: how often a hint's first row is visibly the best of what it
shows, on positions named or the mid-game ones."""

import json

import pytest

from processes import ROOT, tool

first_row = tool("hint_first_row")


def test_the_figures_of_two_positions(capsys):
    record = str(ROOT / "tests" / "data" / "ismcts-fast-2.0-seed11-2p.json")
    other = str(ROOT / "tests" / "data" / "ismcts-fast-2.0-seed12-3p.json")
    first_row.main([record, other, "--move", "59", "--iterations", "600", "--seeds", "1", "2",
                    "--json"])
    figures = {f["figure"]: f["value"] for f in json.loads(capsys.readouterr().out)}
    assert figures["hints, 2 positions x 2 seeds, 600 iterations"] == 4
    best = figures["first row the best or not told apart from it (no plan marked above it)"]
    above = figures["hints with a plan marked above the first"]
    assert best + above == pytest.approx(100)
    clearly = figures["first row clearly the best (every other plan marked below it)"]
    assert 0 <= clearly <= best <= 100 and 0 <= figures["first row the highest chance shown"] <= 100


def test_what_a_hints_rows_show_of_its_first():
    then = {"win": 0.50, "error": 0.01}                    # the first, at each plan's visits

    def row(win, error, mark):
        return {"win": win, "error": error, "mark": mark, "first": then}

    hints = [dict(row(0.45, 0.01, "choice"), first=None), row(0.505, 0.01, "equal"),
             row(0.40, 0.01, "below")]
    assert first_row.first_row(hints) == (True, False, False, 1, 0)
    hints[1] = row(0.60, 0.01, "above")
    assert first_row.first_row(hints) == (False, False, False, 0, 1)
    assert first_row.first_row(hints[:1] + hints[2:]) == (True, True, True, 0, 0)


def test_a_bad_file_is_one_line(tmp_path):
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(SystemExit, match="^tools/hint_first_row.py: .*bad.json"):
        first_row.main([str(tmp_path / "bad.json")])
