"""tools/target_quality.py: self-play's policy targets judged by the position suite's
references before any network trains on them."""

import pytest

import tigris
from tigris import network
from tigris.runs import suite as suites

from processes import tool

quality = tool("target_quality")


@pytest.fixture(scope="module")
def small_suite():
    """The shipped suite's first two positions of each player count."""
    whole = suites.load_suite()
    picked = [e for n in (2, 3, 4) for e in [e for e in whole["positions"] if e["players"] == n][:2]]
    return dict(whole, positions=picked)


def test_each_target_is_judged_at_each_position_against_its_reference(small_suite):
    results = quality.judge(small_suite, "ismcts-fast", iterations=40, seeds=2)
    assert sorted(results) == [2, 3, 4]
    for players, rows in results.items():
        assert list(rows) == ["prior", "visits", "completed-q", "shrunk-q"]
        assert all(len(scores) == 2 for scores in rows.values())         # a pair a position
        for name, scores in rows.items():
            for right, share in scores:
                assert right in (0.0, 0.5, 1.0) and 0.0 <= share <= 1.0 + 1e-9
                assert share > 0 or right == 0                           # a right top move has weight
        # the prior's by hand: the default network's most probable move among the best
        entries = [e for e in small_suite["positions"] if e["players"] == players]
        for entry, (right, share) in zip(entries, rows["prior"]):
            game = tigris.Game.from_position(entry["position"])
            best = {game.parse_action(m) for m in entry["reference"]["best"]}
            prior = network.from_knobs("net", "", players).policy(game)
            assert right == (max(prior, key=lambda a: (prior[a], -a)) in best)
            assert share == pytest.approx(sum(prior[a] for a in best))


def test_the_grid_adds_the_transform_s_scales_and_shrinks_shrunk_q_among_them():
    from types import SimpleNamespace

    from tigris.runs import targets
    from tigris.search import ChildStats

    makers = quality.target_makers(grid=True)
    assert len(makers) == 3 + len(quality.GRID)
    stats = SimpleNamespace(children=[ChildStats(action=1, visits=40, value=0.6),
                                      ChildStats(action=2, visits=3, value=0.7)])
    prior = {1: 0.5, 2: 0.3, 3: 0.2}
    shrunk = makers[f"completed-q scale {targets.SHRUNK_SCALE:g} shrink {targets.SHRINK:g}"](stats, prior)
    assert shrunk == pytest.approx(makers["shrunk-q"](stats, prior))
    assert shrunk != pytest.approx(makers["completed-q"](stats, prior))


def test_a_bot_that_makes_no_such_target_is_one_line(capsys):
    assert quality.main(["--bot", "greedy", "--iterations", "10", "--seeds", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("target_quality: --bot greedy") and err.count("\n") == 1


@pytest.mark.parametrize("args", [["--iterations", "0"], ["--iterations", str(10**20)], ["--seeds", "1000"]])
def test_a_budget_out_of_range_is_one_line(capsys, args):
    assert quality.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("target_quality: --iterations must be 1 to") and err.count("\n") == 1
