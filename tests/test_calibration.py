"""The win-chance model (tigris.calibration, tigris calibrate): the fit recovers a known
model, chances add up to 1, the command runs on a tiny sample and refuses bad input."""

import json
import math
import random
import sys

import numpy as np
import pytest

import tigris
from tigris import calibration
from tigris.evaluator import Evaluator
from tigris.commands import main
from tigris.errors import UsageError
from tigris.record import to_record


def random_record(players, seed):
    g = tigris.Game(players=players, seed=seed)
    rng = random.Random(seed)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    rec = to_record(g, bots=["random"] * players)
    rec["deal_seed"] = seed
    return rec


@pytest.fixture(scope="module")
def games_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("calibrate") / "games.jsonl"
    recs = [random_record(2, s) for s in range(4)] + [random_record(3, s) for s in range(10, 14)]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_the_fit_recovers_a_known_model():
    rng = np.random.default_rng(1)
    true = [0.4, 0.6, -0.2, 0.1]          # b0, b1, b2 and a tenth of upsets
    samples = []
    for k in range(3000):
        standings = list(rng.normal(0, 3, size=3))
        drawn, taken = rng.uniform(), rng.uniform()
        p = calibration._probabilities(np.array(true), np.array([standings]),
                                       np.array([[1.0, drawn, taken]]))[0]
        winner = rng.choice(3, p=p)
        samples.append(calibration.Sample(3, standings, drawn, taken,
                                          [1.0 if q == winner else 0.0 for q in range(3)], k))
    model = calibration.fit(samples)
    assert model[3] == pytest.approx(true, abs=0.12)
    chances = calibration.predict(model, samples)
    outcome = [x.first for x in samples]
    assert calibration.expected_calibration_error(sum(chances, []), sum(outcome, [])) < 0.03


def test_shared_first_places_count_as_their_share():
    assert calibration.first_shares([[0, 2], [1]], 3) == [0.5, 0.0, 0.5]


def test_win_chances_add_up_to_one_for_every_player_count():
    ev = Evaluator()
    for players in (2, 3, 4):
        g = tigris.Game(players=players, seed=players)
        rng = random.Random(players)
        for _ in range(60):
            g.apply(rng.choice(g.legal_actions()))
        chances = ev.win_chances(g)
        assert len(chances) == players and sum(chances) == pytest.approx(1.0)
        assert all(0.0 < c < 1.0 for c in chances)
    fresh = tigris.Game(players=4, seed=1)
    assert ev.win_chances(fresh) == pytest.approx([0.25] * 4)
    g.random_playout(1)
    assert sum(ev.win_chances(g)) == pytest.approx(1.0) and max(ev.win_chances(g)) >= 0.5


def test_calibrate_on_a_tiny_sample(games_file, tmp_path, capsys):
    out = tmp_path / "calibration.json"
    assert main(["calibrate", str(games_file), "--every", "10", "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {r["players"]: r for r in report["report"]}
    assert set(rows) == {2, 3, "all"} and rows[2]["deals"] == 4
    assert all(0.0 <= r["ece_model"] <= 1.0 and 0.0 <= r["ece_search"] <= 1.0 for r in rows.values())
    model = calibration.load_model(out)
    assert set(model) == {2, 3} and all(len(c) == 4 and 0 < c[3] < 1 for c in model.values())
    assert main(["calibrate", str(games_file), "--every", "10"]) == 0
    assert "ECE model" in capsys.readouterr().out


def test_calibrate_refuses_what_it_cannot_use(tmp_path, capsys):
    assert main(["calibrate", str(tmp_path / "missing")]) == 1
    assert "no such file" in capsys.readouterr().err
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(random_record(2, 1)) + "\n")
    assert main(["calibrate", str(one)]) == 1
    assert "at least two finished games" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    for version, coefficients, message in ((1, "[1, 2, 3]", "player count 2-4"),
                                           (2, "[1, 2, 3, 1.5]", "upset share"),
                                           (2, "[1, 2, 3]", "4 finite numbers")):
        broken.write_text(f'{{"format": "tigris-calibration/{version}", '
                          f'"coefficients": {{"{5 if version == 1 else 2}": {coefficients}}}}}')
        with pytest.raises(UsageError, match=f"not a calibration file.*{message}"):
            calibration.load_model(broken)


def test_a_first_format_file_loads_without_upsets(tmp_path):
    old = tmp_path / "old.json"
    old.write_text('{"format": "tigris-calibration/1", "coefficients": {"2": [1, -0.5, 0.25]}}')
    assert calibration.load_model(old) == {2: [1.0, -0.5, 0.25, 0.0]}


def test_the_shipped_model_loads():
    model = calibration.load_model()
    assert set(model) == {2, 3, 4}
    assert all(len(c) == 4 and all(math.isfinite(v) for v in c) and 0 <= c[3] < 1
               for c in model.values())


def test_the_compiled_win_chances_are_the_models():
    model, ev = calibration.load_model(), Evaluator()
    for players in (2, 3, 4):
        g = tigris.Game(players=players, seed=5)
        start = g.raw_state()
        bag0, treasures0 = sum(start["bag"]), sum(start["treasure"])
        rng = random.Random(5)
        for _ in range(150):
            g.apply(rng.choice(g.legal_actions()))
        drawn, taken = calibration.progress(g.raw_state(), bag0, treasures0)
        sample = calibration.Sample(players, [ev.standing(g, p) for p in range(players)],
                                    drawn, taken, [], 0)
        assert ev.win_chances(g) == pytest.approx(calibration.predict(model, [sample])[0], abs=1e-9)


def test_the_reliability_diagram_is_drawn_or_its_library_named(games_file, tmp_path, capsys):
    png = tmp_path / "reliability.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert main(["calibrate", str(games_file), "--every", "10", "--plot", str(png)]) == 1
        assert "pip install matplotlib" in capsys.readouterr().err
    else:
        assert main(["calibrate", str(games_file), "--every", "10", "--plot", str(png)]) == 0
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_without_matplotlib_the_diagram_names_the_extra_before_any_work(games_file, tmp_path,
                                                                        capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)          # import fails
    monkeypatch.setattr(calibration, "read_samples", lambda *a, **kw: pytest.fail("read"))
    assert main(["calibrate", str(games_file), "--plot", str(tmp_path / "r.png")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'tigris-euphrates[plot]'" in err


@pytest.mark.parametrize("option", ["--out", "--plot"])
def test_calibrate_never_writes_over_what_it_reads_nor_a_device(games_file, tmp_path, capsys,
                                                                option):
    before = games_file.read_bytes()
    for target, message in ((games_file, "is the file this command reads"),
                            ("/dev/null", "not a regular file (a device)")):
        assert main(["calibrate", str(games_file), "--every", "10", option, str(target)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{option} {target}" in err and message in err
    assert games_file.read_bytes() == before
    # the games of a tournament folder are among what it reads
    assert main(["calibrate", str(games_file.parent), "--every", "10", option,
                 str(games_file)]) == 1
    assert "is the file this command reads" in capsys.readouterr().err
    assert games_file.read_bytes() == before
