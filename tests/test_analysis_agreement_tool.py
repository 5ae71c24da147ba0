"""tools/analysis_agreement.py: how far two analyses of one game agree, decision by decision."""

import json

import pytest

import tigris
from tigris import analysis, bots, record

from processes import tool

agreement_tool = tool("analysis_agreement")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """Two analyses of a greedy game's first 8 decisions, seeds 0 and 1, at 40 iterations."""
    g = tigris.Game(players=2, seed=5)
    seats = [bots.make("greedy", seed=s) for s in range(2)]
    for _ in range(8):
        g.apply(seats[g.current_player].choose(g))
    rec = record.to_record(g, bots=["greedy", "greedy"])
    folder = tmp_path_factory.mktemp("agree")
    paths = []
    for seed in (0, 1):
        path = folder / f"a{seed}.jsonl"
        analysis.run(rec, path, iterations=40, seed=seed, progress=False)
        paths.append(path)
    return paths


def test_the_same_analysis_agrees_with_itself_everywhere(pair):
    a = agreement_tool.agreement(analysis.read_analysis(pair[0]), analysis.read_analysis(pair[0]))
    assert a["same"] == a["decisions"] > 0 and a["share"] == 1 and not a["differ"]
    assert a["drop_median"] == 0 and a["marks"][0] == a["marks"][1] == a["both_marked"]


def test_the_counts_add_up_to_the_decisions_that_differ(pair):
    first, second = (analysis.read_analysis(p) for p in pair)
    a = agreement_tool.agreement(first, second)
    by_hand = sum(r0["mark"] != r1["mark"] for r0, r1 in zip(first[1], second[1])
                  if r0["after_from"] != "forced")
    assert a["decisions"] - a["same"] == by_hand == len(a["differ"])
    assert a["marked_against_none"] + a["other_weight"] == by_hand
    lo, hi = a["interval"]
    assert lo <= a["share"] <= hi


def test_another_game_or_measure_is_refused_in_one_line(pair, tmp_path, capsys):
    header, *rows = pair[1].read_text().splitlines()
    other = json.loads(header)
    other["measure"] = "win"
    other["thresholds"] = analysis.THRESHOLDS["win"]
    bad = tmp_path / "other.jsonl"
    bad.write_text("\n".join([json.dumps(other), *rows]) + "\n")
    assert agreement_tool.main([str(pair[0]), str(bad)]) == 1
    err = capsys.readouterr().err
    assert "differ in measure" in err and "Traceback" not in err
    assert agreement_tool.main([str(pair[0]), str(pair[1]), "--list"]) == 0
    assert "decisions: the same mark in" in capsys.readouterr().out
