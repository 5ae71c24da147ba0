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


def test_a_suite_s_positions_are_read_from_its_file_or_from_its_run_being_made(tmp_path, capsys):
    from tigris.runs import suite as suites

    mixes = (("greedy", (("greedy", None),), 0.0),)
    run, out = tmp_path / "run.jsonl", tmp_path / "suite.json.gz"
    suites.make_suite(run, out, per_count=1, iterations=200, seeds=1, seed=3, mixes=mixes, progress=False)
    from_suite = first_row.suite_positions(out)
    assert [e["id"] for e in from_suite] == suites.planned(1) == ["2-0-early", "3-0-early", "4-0-early"]
    assert [e["position"] for e in first_row.suite_positions(run)] == [e["position"] for e in from_suite]
    first_row.main(["--suite", str(run), "--iterations", "200", "--seeds", "1", "--json"])
    figures = {f["figure"]: f for f in json.loads(capsys.readouterr().out)}
    assert figures["hints, 3 positions x 1 seeds, 200 iterations"]["value"] == 3
    for n in (2, 3, 4):                     # a hint a count: each share 0 or 100, its interval around it
        share = figures[f"first row the best or not told apart from it (no plan marked above it), {n} players"]
        low, high = share["interval"]
        assert share["value"] in (0, 100) and low <= share["value"] <= high
    begun = tmp_path / "begun.jsonl"                  # the header alone: no game played yet
    begun.write_text(run.read_text().splitlines()[0] + "\n")
    with pytest.raises(SystemExit, match=r"begun.jsonl: 0 of the suite's 3 positions are played so far"):
        first_row.main(["--suite", str(begun)])


def test_a_pipe_for_a_suite_is_refused_unopened(tmp_path):
    import os

    fifo = tmp_path / "suite.fifo"
    os.mkfifo(fifo)
    with pytest.raises(SystemExit, match="suite.fifo: .*not a file"):
        first_row.main(["--suite", str(fifo)])
