"""The calibration of the search's chances (tigris.chance): the map, its errors, its fit
and its file."""

import json
import math
import random

import pytest

from tigris import chance


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_chances_shown_add_up_to_one_and_keep_their_order(players):
    rng = random.Random(players)
    for _ in range(200):
        raw = [rng.random() for _ in range(players)]
        raw = [c / sum(raw) for c in raw]
        mover = rng.randrange(players)
        shown = chance.calibrated(raw, mover)
        assert math.fsum(shown) == pytest.approx(1, abs=1e-12)
        assert all(0 < c < 1 for c in shown)
        others = [p for p in range(players) if p != mover]
        # Among the players who do not decide, the map keeps the order of their chances.
        for p in others:
            for q in others:
                if raw[p] < raw[q]:
                    assert shown[p] <= shown[q]


def test_a_decision_not_searched_stays_unknown():
    assert all(math.isnan(c) for c in chance.calibrated([math.nan, math.nan], 0))
    assert math.isnan(chance.error([math.nan, math.nan], 0, 0.01))


def test_the_identity_shows_the_search_as_it_is():
    model = {n: chance.IDENTITY for n in (2, 3, 4)}
    assert chance.calibrated([0.25, 0.5, 0.25], 1, model) == pytest.approx([0.25, 0.5, 0.25])
    assert chance.error([0.3, 0.7], 0, 0.02, model) == pytest.approx(0.02, rel=1e-3)


def test_the_error_follows_the_maps_slope():
    # A flattening map (a < 1) shrinks differences, and so errors.
    flat = {n: (0.5, 0.0, 0.0) for n in (2, 3, 4)}
    assert chance.error([0.6, 0.4], 0, 0.02, flat) < 0.02
    # A certain chance moves nowhere: its error is 0 (to the step of the derivative).
    assert chance.error([1.0, 0.0], 0, 0.02) == pytest.approx(0, abs=1e-3)


def test_a_fit_recovers_the_map_that_made_the_outcomes():
    truth = {2: (0.8, -0.3, 0.1), 3: (1.2, -0.1, 0.05), 4: chance.IDENTITY}
    rng = random.Random(5)
    samples = []
    for players in (2, 3):
        for _ in range(4000):
            raw = [rng.random() ** 2 for _ in range(players)]
            raw = [c / sum(raw) for c in raw]
            mover = rng.randrange(players)
            p = chance.calibrated(raw, mover, truth)
            first = rng.choices(range(players), weights=p)[0]
            outcome = [1.0 if q == first else 0.0 for q in range(players)]
            samples.append({"players": players, "raw": raw, "mover": mover, "outcome": outcome})
    model = chance.fit(samples)
    for players in (2, 3):
        assert model[players] == pytest.approx(truth[players], abs=0.12)
    assert model[4] == chance.IDENTITY                 # no samples: left as it is


def test_the_file_round_trips_and_a_bad_one_is_named(tmp_path):
    model = {2: (1.0, -0.2, 0.1), 3: (0.8, -0.1, 0.0), 4: (0.7, 0.0, 0.2)}
    path = tmp_path / "chance.json"
    chance.save(model, path, note="test")
    assert chance.load(path) == model
    data = json.loads(path.read_text())
    data["coefficients"]["3"] = [1.0, 0.0, 1.5]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="3 players must be \\[a, b, u\\]"):
        chance.load(path)
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ValueError, match="not a tigris-chance/1 file"):
        chance.load(path)


def test_the_shipped_fit_loads_and_pulls_the_movers_estimate_down():
    # The winner's curse: a search's choice reads high, so a mover's estimate above its
    # fair share comes out lower (by a < 1, or b < 0, or both).
    model = chance.load()
    assert set(model) == {2, 3, 4}
    for players, (a, b, u) in model.items():
        assert 0 < a < 2 and -1 < b < 1 and 0 <= u < 1
        for lead in (0.1, 0.3):
            raw = [1 / players + lead] + [(1 - 1 / players - lead) / (players - 1)] * (players - 1)
            assert chance.calibrated(raw, 0)[0] < raw[0]


def test_the_share_of_upsets_stays_finite_wherever_the_fit_wanders():
    """A fit of games with no upsets drives the third coordinate far below 0; the share
    it stands for must stay a number (it overflowed once, at -709)."""
    assert chance._share(-1e6) == 0.0 and chance._share(1e6) == 1.0
    assert chance._share(0.0) == 0.5
    assert chance._share(2.0) == pytest.approx(1 / (1 + math.exp(-2.0)))


def test_a_sample_is_checked_before_a_fit_learns_from_it():
    good = {"players": 2, "mover": 1, "raw": [0.4, 0.6], "outcome": [0.0, 1.0]}
    assert chance.sample_problem(good) is None
    for bad, what in ((dict(good, players=5), "players"), (dict(good, mover=2), "mover"),
                      (dict(good, raw=[0.4, 0.7]), "raw"), (dict(good, outcome=[1.0]), "outcome"),
                      (dict(good, raw=[math.nan, 1.0]), "raw"), ([good], "not a sample")):
        assert what in chance.sample_problem(bad)


def test_the_fitting_tool_reads_its_samples_back(tmp_path):
    """tools/fit_hint_chance.py reads the samples it collects through the package's one
    JSON-lines reader: a torn last line is left out, and cut off on a resume."""
    import warnings

    from tigris._plumbing import jsonl

    tool = _tool()
    path = tmp_path / "samples.jsonl"
    sample = {"players": 2, "mover": 0, "raw": [0.6, 0.4], "outcome": [1, 0], "seed": 1, "move": 3}
    with open(path, "ab") as f:
        jsonl.append(f, sample)
        f.write(b'{"players": 2, "mo')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert tool.read(path, repair=True) == [sample]
    assert "torn" in str(caught[0].message)
    assert path.read_bytes().endswith(b'"move": 3}\n')


def _tool():
    from processes import tool

    return tool("fit_hint_chance")


def test_the_fitting_tool_measures_its_fit_on_games_it_did_not_see(tmp_path, capsys):
    """Searches that read the mover 15 points high: the fit, measured on held-out games,
    beats the identity map it is compared with, and the file is written after."""
    import json
    import random

    rng = random.Random(3)
    path = tmp_path / "samples.jsonl"
    with open(path, "w") as f:
        for game in range(400):
            true = rng.uniform(0.1, 0.75)
            raw = min(0.99, true + 0.15)
            won = float(rng.random() < true)
            for move in range(3):                   # three positions of a game share its seed
                f.write(json.dumps({"players": 2, "mover": 0, "raw": [raw, 1 - raw],
                                    "outcome": [won, 1 - won], "seed": game, "move": move}) + "\n")
    identity = tmp_path / "identity.json"
    chance.save({n: chance.IDENTITY for n in (2, 3, 4)}, identity)
    tool = _tool()
    rows = tool.cross_validated(tool.read(path), 2, 0, chance.load(identity))
    n, ece_identity, ece_fit, mean_identity, mean_fit, won, loss_identity, loss_fit = rows[2]
    assert n == 1200 and set(rows) == {2}
    assert ece_fit < ece_identity - 0.05 and abs(mean_identity - won - 0.15) < 0.03
    assert loss_fit < loss_identity
    assert abs(mean_fit - won) < 0.03
    out = tmp_path / "fit.json"
    assert tool.main([str(path), "--fit", str(out), "--against", str(identity)]) == 0
    printed = capsys.readouterr().out
    assert "2-fold cross-validated by game, 1200 positions" in printed
    assert chance.load(out)[2][1] < 0                 # the mover pulled down
    kept = identity.read_bytes()                        # never over the map it compares with
    assert tool.main([str(path), "--fit", str(identity), "--against", str(identity)]) == 1
    assert identity.read_bytes() == kept and "reads" in capsys.readouterr().err
    with pytest.raises(SystemExit):                   # argparse: --folds from 2
        tool.main([str(path), "--fit", str(out), "--folds", "1"])
    assert "--folds" in capsys.readouterr().err


def test_the_fitting_tool_refuses_samples_it_cannot_hold_out(tmp_path, capsys):
    import json

    path = tmp_path / "samples.jsonl"
    path.write_text(json.dumps({"players": 2, "mover": 0, "raw": [0.5, 0.5],
                                "outcome": [1, 0]}) + "\n")
    assert _tool().main([str(path), "--fit", str(tmp_path / "fit.json")]) == 1
    assert "without its game's seed" in capsys.readouterr().err
    assert not (tmp_path / "fit.json").exists()


def test_the_fitting_tool_measures_a_map_beside_what_a_calibrated_chance_reads(tmp_path, capsys):
    """--measure fits and writes nothing: the map in use on samples whose chances are the
    truth reads within the calibrated floor; a map that reads the mover high does not."""
    import json
    import random

    rng = random.Random(5)
    path = tmp_path / "samples.jsonl"
    with open(path, "w") as f:
        for game in range(1500):
            true = rng.uniform(0.1, 0.9)
            won = float(rng.random() < true)
            f.write(json.dumps({"players": 2, "mover": 0, "raw": [true, 1 - true],
                                "outcome": [won, 1 - won], "seed": game, "move": 1}) + "\n")
    identity = tmp_path / "identity.json"
    chance.save({n: chance.IDENTITY for n in (2, 3, 4)}, identity)
    high = tmp_path / "high.json"
    chance.save({n: (1.0, 0.6, 0.0) for n in (2, 3, 4)}, high)       # the mover pushed up
    tool = _tool()
    n, ece, floor, top, mean, won = tool.measured(tool.read(path), chance.load(identity))[2]
    assert n == 1500 and 0 < floor <= top and ece <= top and abs(mean - won) < 0.03
    assert tool.measured(tool.read(path), chance.load(identity))["all"][:2] == (n, ece)    # one count here
    n, ece_high, _, top_high, mean_high, _ = tool.measured(tool.read(path), chance.load(high))[2]
    assert ece_high > top_high and mean_high > won + 0.05
    before = sorted(p.name for p in tmp_path.iterdir())
    assert tool.main([str(path), "--measure", "--against", str(identity)]) == 0
    assert capsys.readouterr().out.startswith("2 players, 1500 positions: ECE of the mover's chance")
    assert sorted(p.name for p in tmp_path.iterdir()) == before           # nothing written
    with pytest.raises(SystemExit):
        tool.main([str(path), "--measure", "--fit", str(tmp_path / "x.json")])
    assert "--measure fits nothing" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tool.main([str(path), "--games-iterations", "400"])
    assert "name the bot too" in capsys.readouterr().err
    assert tool.main([str(tmp_path / "new.jsonl"), "--games-bot", "no-such-bot"]) == 1
    assert "the calibration games' bot no-such-bot" in capsys.readouterr().err
    (tmp_path / "empty.jsonl").write_text("")
    for mode in (["--measure"], ["--fit", str(tmp_path / "fit.json")]):   # nothing to fit or measure
        assert tool.main([str(tmp_path / "empty.jsonl"), *mode]) == 1
        assert "no samples in" in capsys.readouterr().err
    assert not (tmp_path / "fit.json").exists()
