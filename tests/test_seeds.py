"""The seed rules, each stated once (``tigris.play.seeds``): every run keeps the seeds it
always had (the values below were computed by the formulas as they stood in each
module), and no other module of the package writes a seed formula's constants."""

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from tigris import analysis
from tigris.play import runner, seeds
from tigris.runs import bench, learn, selfplay, suite

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "tigris"


@pytest.mark.parametrize("args, expected", [
    ((0, 0), 0), ((5, 0), 5000015), ((22, 17), 22000083), ((-3, 4), -3000005),
    ((10**12, 999), 1000003000000000999)])
def test_deal_seeds_are_as_they_were(args, expected):
    assert seeds.deal_seed(*args) == runner.deal_seed(*args) == expected


@pytest.mark.parametrize("args, expected", [
    ((0, 0, 0), 0), ((5, 3, 1), 353783), ((7, 0, 2, 40), 619489955), ((-9, 12, 3, 1), 16671343),
    ((10**12, 10**6, 3, 500), 7919112471931503)])
def test_bot_seeds_are_as_they_were(args, expected):
    assert seeds.bot_seed(*args) == runner.bot_seed(*args) == expected


@pytest.mark.parametrize("args, expected", [
    ((0, 0, 0), 0), ((3, 5, 17), 3039621), ((-2, 9, 100), 4611686018425459269)])
def test_label_seeds_are_as_they_were(args, expected):
    seed, game, move = args
    run = SimpleNamespace(seed=seed)            # self-play's settings, as far as the seed goes
    assert seeds.label_seed(*args) == selfplay._label_seed(run, game, move) == expected


@pytest.mark.parametrize("args, expected", [
    ((0, 0), 0), ((1, 7), 1055436), ((-5, 200), 4611686018423971689), ((2**40, 3), 1099514926310907085)])
def test_decision_seeds_are_as_they_were(args, expected):
    assert seeds.decision_seed(*args) == analysis.decision_seed(*args) == expected


@pytest.mark.parametrize("args, expected", [((0, 0, 0), 12345678), ((1, 5, 2), 13594734),
                                            ((-3, 100, 7), 10870672)])
def test_reference_seeds_are_as_they_were(args, expected):
    assert seeds.reference_seed(*args) == suite.reference_seed(*args) == expected


@pytest.mark.parametrize("args, suite_seed, calibration_seed", [
    ((0, 2, 0), 8000200000, 7000200000), ((1, 3, 5), 8001300005, 7001300005),
    ((4, 4, 99999), 8004499999, 7004499999)])
def test_the_deals_of_suites_and_calibrations_are_as_they_were(args, suite_seed, calibration_seed):
    assert suite.deal_seed(*args) == seeds.suite_seed(*args) == suite_seed
    assert bench.calibration_seed(*args) == seeds.calibration_seed(*args) == calibration_seed


@pytest.mark.parametrize("args, expected", [((0, 0, "selfplay"), 0), ((3, 2, "gate"), 900008),
                                            ((1, 5, "train"), 300016)])
def test_the_stages_of_a_learning_loop_are_seeded_as_they_were(args, expected):
    assert learn.stage_seed(*args) == expected


@pytest.mark.parametrize("args, expected", [((0, 0), 0), ((3, 7), 3000016), ((-1, 2), 4293967295),
                                            ((10**6, 5), 3570587333)])
def test_the_trials_of_a_bayes_tuning_are_seeded_as_they_were(args, expected):
    assert seeds.trial_seed(*args) == expected


def test_no_other_module_writes_a_seed_rule():
    """The constants of the seed rules appear in ``play/seeds.py`` alone."""
    constants = re.compile(r"1_000_003|7_919|104_729|15_485_863|12_345_678|1 << 62|"
                           r"[78]_000_000_000")
    found = [f"{path.relative_to(PACKAGE)}:{n}" for path in sorted(PACKAGE.rglob("*.py"))
             if path.name != "seeds.py" and "interop" not in path.parts
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if constants.search(line.split("#")[0]) and ">>>" not in line]
    assert found == []
