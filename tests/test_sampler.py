"""The core's uniform sampler (what random_playout and random rollouts play) against
enumerate-then-choose: at fixed positions, draws from it land only on legal actions and
are spread uniformly over them (a chi-square test), leader moves that the rules forbid
included in what it must reject."""

import random

import pytest
from scipy.stats import chisquare

import tigris
from tigris._eval import _policy_draws
from tigris.constants import A_LEADER, EMPTY, NONE, RED, TILE0
from tigris.squares import neighbours

DRAWS_PER_ACTION = 60


def positions(players, seed, combo, count=4):
    """Action decisions of a random game (uniform choices from the legal list) after some
    twenty decisions each, with leaders on the board by then."""
    rng = random.Random(seed)
    g = tigris.Game(players=players, seed=seed, **combo)
    found = []
    steps = 0
    while not g.is_over and len(found) < count:
        legal = g.legal_actions()
        steps += 1
        if g.decision == "action" and steps > 20 * (len(found) + 1) and len(legal) > 1:
            found.append(g.copy(stack=False))
        g.apply(rng.choice(legal))
    return found


def check_uniform(g, seed):
    legal = g.legal_actions()
    draws = _policy_draws(g, DRAWS_PER_ACTION * len(legal), seed=seed)
    assert len(draws) == DRAWS_PER_ACTION * len(legal)
    counts = dict.fromkeys(legal, 0)
    for a in draws:
        assert a in counts, f"the sampler drew {g.action_str(a)}, which is not legal"
        counts[a] += 1
    assert min(counts.values()) > 0, "a legal action was never drawn"
    return chisquare(list(counts.values())).pvalue


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_sampler_is_uniform_over_the_legal_actions(players, combo):
    pvalues = []
    for k, g in enumerate(positions(players, 40 + players, combo)):
        pvalues.append(check_uniform(g, seed=k))
    assert len(pvalues) >= 3
    # Seeds are fixed, so this is reproducible; a sampler that favoured a kind of action
    # (a block of the count off by a few) would give p-values far below this.
    assert min(pvalues) > 1e-4, pvalues


def near_temple_squares(g):
    """Empty land squares next to a face-up red tile: where the sampler counts the moves
    of a leader on the board before it checks them."""
    raw = g.raw_state()
    rivers = set(tigris.boards.layout(g.board)[0])
    return [i for i in range(176)
            if raw["squares"][i] == EMPTY and i not in rivers
            and any(raw["squares"][n] == TILE0 + RED for n in neighbours(i))]


def test_leader_moves_it_must_reject_are_never_drawn():
    # Positions where a leader on the board may not go to some square next to a temple
    # (there it would touch two kingdoms): the sampler counts the square, draws it now
    # and then, and must draw again.
    found = 0
    for seed in range(40):
        for g in positions(2, 900 + seed, dict(board="classic", variants=()), count=3):
            legal = set(g.legal_actions())
            raw = g.raw_state()
            p = g.current_player
            near = near_temple_squares(g)
            if any(raw["leader"][p][c] != NONE and A_LEADER + c * 176 + i not in legal
                   for c in range(4) for i in near):
                found += 1
                assert check_uniform(g, seed) > 1e-4
        if found >= 3:
            break
    assert found >= 3


def test_other_decisions_and_finished_games():
    g = tigris.Game(players=2, seed=3)
    rng = random.Random(3)
    seen = set()
    while not g.is_over:
        legal = g.legal_actions()
        if g.decision != "action" and g.decision not in seen and len(legal) > 1:
            seen.add(g.decision)
            assert check_uniform(g, 1) > 1e-4
        g.apply(rng.choice(legal))
    assert _policy_draws(g, 5) == [] and _policy_draws(g, 5, greedy=True) == []
    with pytest.raises(ValueError):
        _policy_draws(g, -1)


def greedy_support(g):
    """What the greedy rollout policy chooses among, by its definition: the tiles that score
    for the mover at once (the evaluator's prior marks them), else every legal action but
    the swaps and the pass, else every legal action."""
    from tigris.evaluator import Evaluator
    from tigris.constants import A_LEADER as FIRST_LEADER, A_SWAP

    legal = g.legal_actions()
    if g.decision != "action":
        return legal
    ev = Evaluator()
    weights = ev.weights
    scoring = [a for a in legal if a < FIRST_LEADER
               and ev.prior(g, a) == weights["prior_scoring_tile"]]
    board = [a for a in legal if a < A_SWAP]
    return scoring or board or legal


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_policy_is_uniform_over_its_choice(players, combo):
    checked = 0
    for k, g in enumerate(positions(players, 70 + players, combo)):
        support = greedy_support(g)
        draws = _policy_draws(g, DRAWS_PER_ACTION * len(support), seed=k, greedy=True)
        counts = dict.fromkeys(support, 0)
        for a in draws:
            assert a in counts, f"the greedy policy drew {g.action_str(a)}, outside its choice"
            counts[a] += 1
        if len(support) > 1:
            assert chisquare(list(counts.values())).pvalue > 1e-4
            checked += 1
    assert checked >= 2
