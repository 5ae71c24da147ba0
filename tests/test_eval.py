"""The evaluator (tigris.evaluator): its weights struct against the table of knobs, what each
weight changes, and the weights reaching the search and the bots as knobs."""

import math

import pytest

import tigris
from tigris import bots, knobs, search
from tigris.evaluator import Evaluator
from tigris.knobs import WEIGHTS, check_weights, default_weights
from tigris.constants import A_LEADER, A_PASS, A_SWAP, A_TILE, A_WITHDRAW, NSQ, RED
from tigris.tune import tunable

from helpers import hand, position, score


def load(d, seed=0):
    return tigris.Game.from_position(d, seed=seed)


def test_the_weights_struct_and_the_table_agree():
    # The struct (_eval.pxd) comes back as a dict of its fields: the same names as the
    # table of knobs, in its order, each at its default.
    assert Evaluator().weights == default_weights()
    assert list(Evaluator().weights) == list(WEIGHTS)
    for name in WEIGHTS:
        knob = knobs.KNOBS[name]
        assert knob.type is float and knob.low <= knob.default <= knob.high and knob.meaning, name


def test_every_weight_is_a_knob_of_the_bots_that_evaluate_and_is_tunable():
    for kind in ("ismcts", "pimc", "cheat", "greedy"):
        for name in WEIGHTS:
            assert knobs.KINDS[kind][name][:2] == (float, knobs.KNOBS[name].default), (kind, name)
        assert set(WEIGHTS) <= set(tunable(kind))
    assert not set(WEIGHTS) & set(knobs.KINDS["random"])


def test_standing_weighs_the_colours_after_the_weakest_and_the_leaders():
    d = position({}, [hand(red=1)] * 2, scores=[score(red=1, blue=2, green=3, black=4), score()])
    g = load(d)
    ev = Evaluator()
    assert ev.standing(g, 0) == pytest.approx(1 + 0.25 * 2 + 0.05 * 3 + 0.01 * 4)
    ev = Evaluator(eval_second_colour=1.0, eval_third_colour=10.0, eval_fourth_colour=100.0)
    assert ev.standing(g, 0) == pytest.approx(1 + 2 + 30 + 400)
    assert ev.standing(g, 1) == 0.0
    start = tigris.Game(players=2, seed=1)
    start.apply(next(a for a in start.legal_actions() if A_LEADER <= a < A_WITHDRAW))
    assert Evaluator(eval_leader=0.7).standing(start, 0) == pytest.approx(0.7)
    with pytest.raises(ValueError, match="^player"):
        ev.standing(g, 2)


def test_the_scale_sets_how_sharply_a_lead_becomes_a_reward():
    d = position({}, [hand(red=1)] * 2, scores=[score(red=2, blue=2, green=2, black=2), score()])
    g = load(d)
    gap = Evaluator().standing(g, 0) - Evaluator().standing(g, 1)
    for scale in (0.5, 2.0, 8.0):
        r = Evaluator(eval_scale=scale).rewards(g)
        assert r[0] == pytest.approx(1 / (1 + math.exp(-gap / scale)), rel=1e-6)
        assert r[1] == pytest.approx(1 - r[0], abs=1e-6)


def test_each_prior_weight_is_the_prior_of_its_kind_of_action():
    g = tigris.Game(players=2, seed=3)
    legal = g.legal_actions()
    kinds = {"prior_leader": next(a for a in legal if A_LEADER <= a < A_WITHDRAW),
             "prior_swap": next(a for a in legal if A_SWAP <= a < A_PASS),
             "prior_pass": A_PASS,
             "prior_tile": next(a for a in legal if A_TILE <= a < A_LEADER)}
    for name, action in kinds.items():
        assert Evaluator(**{name: 7.5}).prior(g, action) == 7.5, name
        assert Evaluator().prior(g, action) == knobs.KNOBS[name].default, name


def test_a_scoring_tile_gets_its_own_prior():
    g = tigris.Game(players=2, seed=3)
    priests = range(A_LEADER + RED * NSQ, A_LEADER + (RED + 1) * NSQ)
    g.apply(next(a for a in g.legal_actions() if a in priests))
    ev = Evaluator(prior_scoring_tile=9.0, prior_tile=2.0)
    values = {ev.prior(g, a) for a in g.legal_actions() if a < A_LEADER}
    assert values == {9.0, 2.0}       # red tiles joined to the priest's kingdom score


BAD_WEIGHTS = [("eval_scale", 0.0), ("eval_scale", -1.0), ("eval_leader", math.inf),
               ("eval_second_colour", math.nan), ("prior_pass", -0.1), ("prior_tile", "1"),
               ("prior_swap", True)]


@pytest.mark.parametrize("key,value", BAD_WEIGHTS)
def test_bad_weights_are_refused_naming_them(key, value):
    with pytest.raises(ValueError, match=f"^{key}"):
        Evaluator(**{key: value})
    with pytest.raises(ValueError, match=f"^{key}"):
        search.Search(tigris.Game(players=2, seed=1), **{key: value})
    with pytest.raises(tigris.errors.ConfigError, match=key):
        bots.make("ismcts", **{key: value})
    with pytest.raises(tigris.errors.ConfigError, match=key):
        bots.make("greedy", **{key: value})


def test_unknown_weights_and_knobs_are_refused():
    with pytest.raises(ValueError, match="unknown weight 'eval_colour'"):
        check_weights({"eval_colour": 1.0})
    with pytest.raises(ValueError, match="unknown knob 'explore' of the search"):
        search.Search(tigris.Game(players=2, seed=1), explore=1.0)
    with pytest.raises(ValueError, match="unknown weight 'explore'"):
        Evaluator(explore=1.0)


def test_the_search_expands_by_the_priors_it_is_given():
    g = tigris.Game(players=2, seed=7)
    first = search.run(g, iterations=1, prior_pass=100.0, **search.PLAIN).children[0].action
    assert first == A_PASS
    assert search.run(g, iterations=1, **search.PLAIN).children[0].action != A_PASS


def test_bots_take_weights_from_their_files_and_arguments(tmp_path):
    f = tmp_path / "leaderless.toml"
    f.write_text('kind = "greedy"\neval_leader = -5.0\n')
    g = tigris.Game(players=2, seed=7)
    assert A_LEADER <= bots.make("greedy", seed=1).choose(g) < A_WITHDRAW
    shy = bots.load(str(f), seed=1)
    assert shy.params["eval_leader"] == -5.0
    assert not A_LEADER <= shy.choose(g) < A_WITHDRAW
    ismcts = bots.make("ismcts", iterations=50, eval_scale=0.5, prior_swap=0.0)
    assert ismcts.options["eval_scale"] == 0.5 and ismcts.options["prior_swap"] == 0.0
    assert ismcts.choose(g) in g.legal_actions()


def test_calibrated_rewards_are_the_win_chances_and_first_places():
    g = tigris.Game(players=3, seed=2)
    bot = bots.make("random", seed=2)
    for _ in range(80):
        g.apply(bot.choose(g))
    chances = Evaluator().win_chances(g)
    assert sum(chances) == pytest.approx(1.0)
    assert Evaluator(eval_calibrated=1.0).rewards(g) == pytest.approx(chances, abs=1e-6)
    half = Evaluator(eval_calibrated=0.5).rewards(g)
    plain = Evaluator().rewards(g)
    assert half == pytest.approx([(a + b) / 2 for a, b in zip(plain, chances)], abs=1e-6)
    g.random_playout(3)
    first = g.ranking()[0]
    shares = [1 / len(first) if p in first else 0.0 for p in range(3)]
    assert Evaluator().win_chances(g) == shares
    assert Evaluator(eval_calibrated=1.0).rewards(g) == pytest.approx(shares)
