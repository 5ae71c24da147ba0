"""tools/suite_roots.py: where a search's choice leaves the suite's best moves."""

import json

import pytest

from processes import tool

roots = tool("suite_roots")


def test_the_figures_of_the_first_positions(capsys):
    roots.main(["--first", "3", "--iterations", "400", "--json"])
    out = json.loads(capsys.readouterr().out)
    found = out["positions"]
    assert [f["id"] for f in found] == ["2-0-early", "2-0-middle", "2-0-late"]
    figures = {f["figure"]: f["value"] for f in out["figures"]}
    right = sum(f["right"] for f in found)
    assert figures[f"chosen move among the reference's best, 2 players ({right} of 3)"] == pytest.approx(100 * right / 3)
    missed = sum(v for k, v in figures.items() if k.startswith("misses whose"))
    assert missed == 3 - right
    for f in found:
        assert f["rounds"] >= 1 and all(r >= 0 for r in f["best_rounds"].values())
        assert f["right"] == (f["move"] in f["best_rounds"])


@pytest.mark.parametrize("best_rounds, why", [
    ({}, roots.FIRST),                                    # none expanded
    ({"tile red A1": 0, "tile red A2": 0}, roots.FIRST),
    ({"tile red A1": 2, "tile red A2": 0}, roots.LATER),
    ({"tile red A1": 5}, roots.LAST),                     # in the last halving's pair
])
def test_where_a_miss_left_the_best_moves(best_rounds, why):
    assert roots.why_missed({"rounds": 6, "best_rounds": best_rounds}) == why


def test_a_bot_without_a_search_is_refused_in_one_line():
    with pytest.raises(SystemExit) as e:
        roots.main(["--bot", "greedy", "--first", "1"])
    assert str(e.value).startswith("tools/suite_roots.py: ") and "greedy" in str(e.value)
