"""tools/gate_power.py: how often tigris learn's gate promotes a candidate of a given
strength, by simulated SPRTs."""

import pytest

from processes import tool

gate = tool("gate_power")


@pytest.mark.parametrize("test", ["deals", "games"])
def test_a_gate_promotes_a_stronger_candidate_more_often_and_with_more_games(test):
    weak = gate.power(0, 0, 30, 400, runs=1000, test=test)
    short = gate.power(28, 0, 30, 400, runs=1000, test=test)
    long = gate.power(28, 0, 30, 800, runs=1000, test=test)
    assert weak[0] <= 0.05                                   # alpha: a candidate at elo0 is rarely promoted
    assert weak[0] < short[0] < long[0] and short[2] < long[2] <= 800
    assert gate.power(-200, 0, 30, 800, runs=300, test=test)[1] == 1.0  # a far weaker one is always refused
    assert gate.power(28, 0, 30, 400, runs=1000, test=test) == short    # seeded


def test_the_llr_of_deals_is_the_package_s():
    import numpy as np

    from tigris.ratings import expected_score, sprt_llr_deals

    won, split, lost = np.array([3, 0, 60, 1]), np.array([5, 4, 0, 0]), np.array([1, 2, 40, 0])
    llr = gate.deals_llr(won, split, lost, 0.5, expected_score(30))
    for k in range(4):
        deals = [1.0] * won[k] + [0.5] * split[k] + [0.0] * lost[k]
        assert llr[k] == pytest.approx(sprt_llr_deals(deals, 2, 0, 30), abs=1e-6)


def test_deals_that_favour_a_seat_are_decided_sooner_by_the_test_of_deals():
    """With independent games the two tests are alike; with deals that favour a seat, the
    test of deals decides in fewer games, its errors no larger."""
    alike = [gate.power(40, 0, 30, 800, runs=1000, test=t, seat=0.0) for t in ("deals", "games")]
    assert alike[0][0] == pytest.approx(alike[1][0], abs=0.05)
    assert alike[0][2] == pytest.approx(alike[1][2], rel=0.06)
    deals, games = (gate.power(40, 0, 30, 800, runs=1000, test=t, seat=0.2) for t in ("deals", "games"))
    assert deals[2] < 0.9 * games[2] and deals[0] >= games[0] - 0.03
    equal = [gate.power(0, 0, 30, 800, runs=1000, test=t, seat=0.2)[0] for t in ("deals", "games")]
    assert max(equal) <= 0.06                                   # alpha either way
    with pytest.raises(ValueError, match="test must be one of"):
        gate.power(0, 0, 30, 100, test="pairs")


def test_the_table(capsys):
    assert gate.main(["--true", "0", "70", "--max-games", "100", "--runs", "200",
                      "--test", "deals", "games"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "SPRT(0, 30), alpha = beta = 0.05, 200 matches each, deals favouring a seat by 0.11"
    assert out[1] == "| true Elo | most games | test | promoted (H1) | H0 | mean games |" and len(out) == 7
    assert [row.split("|")[3].strip() for row in out[3:]] == ["deals", "games"] * 2
    with pytest.raises(SystemExit):
        gate.main(["--elo0", "30", "--elo1", "0"])
    assert "--elo1 must be above --elo0" in capsys.readouterr().err
    for bad, says in ((["--elo1", "inf"], "must be from -1000 to 1000, not inf"),
                      (["--true", "nan"], "must be from -1000 to 1000, not nan"),
                      (["--runs", "10000000"], "must be from 1 to 1,000,000"),
                      (["--seat", "0.7"], "must be from 0 to 0.5, not 0.7")):
        with pytest.raises(SystemExit):
            gate.main(bad)
        assert says in capsys.readouterr().err


def test_matches_simulated_in_chunks_are_the_same_matches(monkeypatch):
    whole = gate.power(28, 0, 30, 400, runs=300)
    monkeypatch.setattr(gate, "CELLS", 400 * 7)          # 7 matches at a time: the same draws
    assert gate.power(28, 0, 30, 400, runs=300) == whole
