"""tools/gate_power.py: how often tigris learn's gate promotes a candidate of a given
strength, by simulated SPRTs."""

import pytest

from processes import tool

gate = tool("gate_power")


def test_a_gate_promotes_a_stronger_candidate_more_often_and_with_more_games():
    weak = gate.power(0, 0, 30, 400, runs=2000)
    short = gate.power(28, 0, 30, 400, runs=2000)
    long = gate.power(28, 0, 30, 800, runs=2000)
    assert weak[0] <= 0.05                                   # alpha: a candidate at elo0 is rarely promoted
    assert weak[0] < short[0] < long[0] and short[2] < long[2] <= 800
    assert gate.power(-200, 0, 30, 800, runs=500)[1] == 1.0  # a far weaker one is always refused
    assert gate.power(28, 0, 30, 400, runs=2000) == short    # seeded


def test_the_table(capsys):
    assert gate.main(["--true", "0", "70", "--max-games", "100", "--runs", "200"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "SPRT(0, 30), alpha = beta = 0.05, 200 matches each"
    assert out[1] == "| true Elo | most games | promoted (H1) | H0 | mean games |" and len(out) == 5
    with pytest.raises(SystemExit):
        gate.main(["--elo0", "30", "--elo1", "0"])
    assert "--elo1 must be above --elo0" in capsys.readouterr().err
    for bad, says in ((["--elo1", "inf"], "must be from -1000 to 1000, not inf"),
                      (["--true", "nan"], "must be from -1000 to 1000, not nan"),
                      (["--runs", "10000000"], "must be from 1 to 1,000,000")):
        with pytest.raises(SystemExit):
            gate.main(bad)
        assert says in capsys.readouterr().err


def test_matches_simulated_in_chunks_are_the_same_matches(monkeypatch):
    whole = gate.power(28, 0, 30, 400, runs=300)
    monkeypatch.setattr(gate, "CELLS", 400 * 7)          # 7 matches at a time: the same draws
    assert gate.power(28, 0, 30, 400, runs=300) == whole
