"""A network's recalibration: the chances a person reads (``Network.evaluate``) are the
raw ones recalibrated per number of players, the search reads them raw, a file's fit is
checked when it is read, and the fit finds a recalibration planted in the results."""

import json
import types

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tigris
from tigris import network
from tigris.errors import UsageError
from tigris.runs import selfplay, train

from processes import tool as tools
from test_network import positions, random_arrays


def tool():
    return tools("recalibrate_network")


@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=4), st.data())
def test_recalibrate_keeps_chances_and_moves_the_mover_as_its_terms_say(weights, data):
    chances = np.array(weights) / sum(weights)
    mover = data.draw(st.integers(0, len(chances) - 1))
    assert recal(chances, mover, 1.0, 0.0) == pytest.approx(chances.tolist())
    temperature = data.draw(st.floats(0.2, 5.0))
    bias = data.draw(st.floats(-3.0, 3.0))
    out = recal(chances, mover, temperature, bias)
    assert sum(out) == pytest.approx(1.0) and all(0 <= c <= 1 for c in out)
    # a higher mover's bias gives the mover more, at any temperature
    assert recal(chances, mover, temperature, bias + 0.5)[mover] >= out[mover] - 1e-12
    # a temperature above 1 brings the chances nearer to equal
    spread = max(chances) - min(chances)
    assert max(recal(chances, mover, 2.0, 0.0)) - min(recal(chances, mover, 2.0, 0.0)) <= spread + 1e-12


def recal(chances, mover, temperature, bias):
    return network.recalibrate(chances, mover, temperature, bias).tolist()


def test_rows_are_recalibrated_as_each_alone():
    rows = np.array([[0.7, 0.2, 0.1], [0.2, 0.3, 0.5]])
    together = network.recalibrate(rows, 0, 1.3, -0.2)
    assert np.allclose(together, [recal(r, 0, 1.3, -0.2) for r in rows])


def recalibrated_file(tmp_path, fits):
    arrays = random_arrays(seed=21)
    path = tmp_path / "recal.npz"
    network.save(path, arrays, {"recalibration": fits})
    return path, arrays


def test_a_person_reads_the_chances_recalibrated_and_the_search_reads_them_raw(tmp_path):
    from tigris._search import leaf_rewards
    from tigris.evaluator import Evaluator

    path, arrays = recalibrated_file(tmp_path, {"2": {"temperature": 1.5, "mover_bias": -0.4}})
    net, plain = network.load(path), network.Network(arrays)
    assert net.recalibration == {2: (1.5, -0.4)}
    weights = Evaluator().weights
    for g in positions(20, seed=22, players=2):
        raw, scores = net.evaluate(g, raw=True)
        assert (raw, scores) == plain.evaluate(g)
        shown, same_scores = net.evaluate(g)
        assert same_scores == scores
        assert shown == pytest.approx(recal(raw, g.current_player, 1.5, -0.4))
        assert net.forward(g)[0] == pytest.approx(shown, abs=1e-4)     # numpy's pass alike
        assert leaf_rewards(g, weights, net, 1.0) == list(raw)          # the search: raw
    for g in positions(5, seed=23, players=3):                           # no fit for 3: raw
        assert net.evaluate(g) == plain.evaluate(g)


@pytest.mark.parametrize("fits, words", [
    ([1, 2], "recalibration: not an object"),
    ({"5": {"temperature": 1.0, "mover_bias": 0.0}}, "'5' is not a number of players"),
    ({"2": 1.0}, "2: not an object"),
    ({"2": {"mover_bias": 0.0}}, "temperature must be a number from 0.1 to 10"),
    ({"2": {"temperature": 0.0, "mover_bias": 0.0}}, "temperature must be"),
    ({"2": {"temperature": "1", "mover_bias": 0.0}}, "temperature must be"),
    ({"2": {"temperature": True, "mover_bias": 0.0}}, "temperature must be"),
    ({"3": {"temperature": 1.0, "mover_bias": 9.0}}, "mover_bias must be a number from -5 to 5"),
])
def test_a_bad_recalibration_is_refused_by_name(tmp_path, fits, words):
    path = tmp_path / "bad.npz"
    data = dict(random_arrays(seed=24))
    meta = {"format": network.FORMAT, "feature_version": network.FEATURE_VERSION, "recalibration": fits}
    data["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **data)
    with pytest.raises(UsageError) as e:
        network.load(path)
    assert words in str(e.value) and str(path) in str(e.value)
    with pytest.raises(UsageError, match="recalibration"):
        network.save(tmp_path / "other.npz", random_arrays(seed=24), {"recalibration": fits})


def test_the_fit_finds_a_recalibration_planted_in_the_results(monkeypatch):
    """Results drawn from chances recalibrated by a planted (temperature, bias): the fit
    on the raw chances finds the planted terms again."""
    rng = np.random.default_rng(25)
    n, planted = 20_000, (1.4, -0.3)
    raw = rng.dirichlet([2, 2, 2], size=n)
    truth = network.recalibrate(raw, 0, *planted)
    winner = (rng.random(n)[:, None] > truth.cumsum(axis=1)).sum(axis=1)
    result = np.zeros((n, 4))
    result[np.arange(n), winner] = 1
    data = types.SimpleNamespace(players=np.full(n, 3), result=result)
    monkeypatch.setattr(train, "predict",
                        lambda arrays, data, rows: np.pad(raw[rows], ((0, 0), (0, 1))))
    temperature, bias = train.fit_recalibration(None, data, np.arange(n), 3)
    assert temperature == pytest.approx(planted[0], abs=0.1)
    assert bias == pytest.approx(planted[1], abs=0.1)
    with pytest.raises(UsageError, match="no position of a 2-player game"):
        train.fit_recalibration(None, data, np.arange(n), 2)


@pytest.mark.slow
def test_the_tool_writes_a_recalibrated_copy_and_never_over_what_it_read(tmp_path, capsys):
    bot = tmp_path / "fast.toml"
    bot.write_text('kind = "ismcts"\niterations = 30\nrollout_depth = 2\n')
    games = tmp_path / "selfplay"
    selfplay.run(selfplay.settings(games=6, bot=str(bot), positions=6, label_iterations=10),
                 games, progress=False)
    source = tmp_path / "net.npz"
    network.save(source, random_arrays(seed=26), {"note": "kept"})
    recalibrate = tool()
    out = tmp_path / "out.npz"
    assert recalibrate.main([str(source), str(games), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "2 players: temperature" in said and "2-fold cross-validated" in said
    back, before = network.load(out), network.load(source)
    assert back.meta["note"] == "kept" and set(back.recalibration) == {2}
    fit = back.meta["recalibration"]["2"]
    assert fit["positions"] > 0 and fit["cross_validated_after"]["positions"] == fit["positions"]
    for a, b in zip(back.arrays, before.arrays):
        assert np.array_equal(a, b)                                   # the search plays as before
    g = tigris.Game(players=2, seed=4)
    assert back.evaluate(g, raw=True) == before.evaluate(g)
    assert recalibrate.main([str(source), str(games), "--out", str(source)]) == 1
    assert "is the file this command reads" in capsys.readouterr().err
    assert recalibrate.main([str(source), str(games), "--out", str(out), "--folds", "1"]) == 1
    assert "--folds" in capsys.readouterr().err
