"""The policy head: a probability for each legal action, from the position as its player to
move sees it; compiled and numpy alike; its patterns; its weights file; the search that
expands and ranks the root by it, honestly."""

import json
import random

import numpy as np
import pytest

import tigris
from tigris import _net, bots, constants, network, search
from tigris.errors import UsageError

from helpers import random_game
from test_network import SETUPS, positions, random_arrays

DECISIONS = ("action", "support", "war_order", "monument", "treasure", "building")


def policy_arrays(h1=24, h2=12, hp=16, seed=0, scale=0.3):
    """A network's arrays with a policy head, random."""
    arrays = random_arrays(h1, h2, seed=seed, scale=scale)
    rng = np.random.default_rng(seed + 100)
    shapes = {"wp": (hp, h1), "bp": (hp,), "emb": (constants.N_ACTIONS, hp), "abias": (constants.N_ACTIONS,),
              "pat": (network.N_PATTERNS,)}
    arrays.update({k: rng.normal(0, scale, shape).astype(np.float32) for k, shape in shapes.items()})
    return arrays


@pytest.fixture(scope="module")
def net():
    return network.Network(policy_arrays())


@pytest.fixture(scope="module")
def net_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "policy.npz"
    network.save(path, policy_arrays(seed=1), {"note": "a random policy"})
    return str(path)


def decisions_of_every_kind(per_kind=6, seed=0):
    """Positions of random games whose decision is of each kind, on every setup."""
    rng = random.Random(seed)
    found = {kind: [] for kind in DECISIONS}
    for k in range(3000):
        setup = SETUPS[k % len(SETUPS)]
        g = tigris.Game(seed=rng.getrandbits(30), **setup)
        while not g.is_over:
            if len(found[g.decision]) < per_kind:
                found[g.decision].append(g.copy(stack=False))
            g.apply(rng.choice(g.legal_actions()))
        if all(len(v) >= per_kind for v in found.values()):
            break
    return found


# ---------------------------------------------------------------------------
# The policy's probabilities
# ---------------------------------------------------------------------------

def test_the_policy_is_a_distribution_over_the_legal_actions_of_every_decision(net):
    found = decisions_of_every_kind()
    assert all(found[kind] for kind in DECISIONS), {k: len(v) for k, v in found.items()}
    for kind, games in found.items():
        for g in games:
            prob = net.policy(g)
            assert sorted(prob) == sorted(g.legal_actions()), kind     # 0 elsewhere: never named
            assert sum(prob.values()) == pytest.approx(1, abs=1e-9)
            assert all(0 < p <= 1 for p in prob.values())


@pytest.mark.slow
def test_compiled_policy_equals_numpy_on_1000_positions(net):
    worst = 0.0
    for g in positions(1000, seed=11):
        prob, ref = net.policy(g), net.policy_forward(g)
        assert prob.keys() == ref.keys()
        worst = max(worst, max(abs(prob[a] - ref[a]) for a in prob))
    assert worst < 1e-4


@pytest.mark.parametrize("widths", [(1, 1, 1), (16, 16, 16), (65, 33, 20)])
def test_any_policy_width_is_computed_alike(widths):
    net = network.Network(policy_arrays(*widths, seed=sum(widths)))
    for g in positions(60, seed=widths[2]):
        prob, ref = net.policy(g), net.policy_forward(g)
        assert max(abs(prob[a] - ref[a]) for a in prob) < 1e-4


def test_patterns_are_in_their_actions_group():
    """Each action with a square has its patterns in its group's block, at most
    MAX_PATTERNS; the others have none."""
    for g in positions(120, seed=12):
        position, action, offsets, patterns = network.policy_inputs([g])
        assert (position == 0).all() and sorted(action.tolist()) == sorted(g.legal_actions())
        ends = np.append(offsets[1:], len(patterns))
        for a, b, e in zip(action, offsets, ends):
            pats = patterns[b:e]
            assert len(pats) <= _net.MAX_PATTERNS
            if constants.A_WITHDRAW <= a < constants.A_CATASTROPHE or constants.A_SWAP <= a < constants.A_MONUMENT \
                    or a in (constants.A_NO_MONUMENT, constants.A_NO_BUILDING):
                assert len(pats) == 0, a
            else:
                assert len(pats) >= 4 and len(set(pats // _net.P_STRIDE)) == 1, a     # neighbours and counts


def test_a_scoring_tile_has_the_pattern_that_says_so():
    """A tile joined to a kingdom where the mover's leader of its colour stands scores for
    the mover (R33): the pattern PAT_SCORES_MINE is on exactly for the tiles that
    tile_scores_for says score."""
    from tigris.evaluator import Evaluator

    judge = Evaluator()                 # its prior_scoring_tile (3.0) marks the scoring tiles
    seen = 0
    for g in positions(300, seed=13):
        if g.decision != "action":
            continue
        scoring = {a for a, p in zip(*judge.priors(g)) if a < constants.A_LEADER and p == 3.0}
        _, action, offsets, patterns = network.policy_inputs([g])
        ends = np.append(offsets[1:], len(patterns))
        for a, b, e in zip(action, offsets, ends):
            if a >= constants.A_LEADER:
                continue
            colour = a // constants.NSQ
            mine = colour * _net.P_STRIDE + _net.PAT_SCORES_MINE in patterns[b:e]
            assert mine == (int(a) in scoring), (a, mine)
            seen += mine
    assert seen > 20


def test_the_policy_sees_what_the_mover_sees_and_nothing_else(net):
    """The others' hidden tiles, dealt otherwise, leave the policy as it is."""
    for g in positions(60, seed=14):
        me = g.current_player
        for seed in (1, 2):
            assert net.policy(g.determinize(me, seed)) == net.policy(g)


def test_a_network_without_a_policy_head_says_so():
    plain = network.Network(random_arrays())
    assert not plain.has_policy
    with pytest.raises(ValueError, match="no policy head"):
        plain.policy(tigris.Game(players=2, seed=1))
    with pytest.raises(ValueError, match="all of wp"):
        network.Network({**random_arrays(), "wp": np.zeros((4, 24), np.float32)})


# ---------------------------------------------------------------------------
# The weights file
# ---------------------------------------------------------------------------

def test_a_policy_network_saved_and_read_back_is_the_same(tmp_path, net):
    arrays = policy_arrays(seed=3)
    network.save(tmp_path / "p.npz", arrays, {"note": 1})
    back = network.load(tmp_path / "p.npz")
    assert back.has_policy and back.meta["format"] == network.FORMAT
    g = positions(1, seed=15)[0]
    assert back.policy(g) == network.Network(arrays).policy(g)
    assert back.evaluate(g) == network.Network(arrays).evaluate(g)


@pytest.mark.parametrize("change, words", [
    (lambda a: {k: v for k, v in a.items() if k != "pat"}, "missing pat"),
    (lambda a: dict(a, emb=a["emb"][:, :5]), "emb: shape"),
    (lambda a: dict(a, abias=a["abias"][:100]), "abias: shape"),
    (lambda a: dict(a, pat=np.full_like(a["pat"], np.inf)), "pat: holds values that are not finite"),
])
def test_a_damaged_policy_head_is_refused_by_name(tmp_path, change, words):
    import json

    arrays = change(policy_arrays(seed=4))
    arrays["meta"] = np.frombuffer(json.dumps({"format": network.FORMAT, "feature_version": network.FEATURE_VERSION,
                                               "policy_version": network.POLICY_VERSION}).encode(), np.uint8)
    path = tmp_path / "bad.npz"
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(UsageError, match=words):
        network.load(path)


def test_a_policy_of_other_inputs_is_refused(tmp_path):
    network.save(tmp_path / "p.npz", policy_arrays(seed=6), {})
    data = dict(np.load(tmp_path / "p.npz"))
    meta = json.loads(data["meta"].tobytes())
    meta["policy_version"] = network.POLICY_VERSION - 1
    data["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    with open(tmp_path / "old.npz", "wb") as f:
        np.savez(f, **data)
    with pytest.raises(UsageError, match="policy_version .* train the network again"):
        network.load(tmp_path / "old.npz")


def test_a_colour_has_one_rank_among_the_movers_scores():
    """Each coloured move has the pattern of its colour's rank, the ranks of the four
    colours a permutation, the weakest colour ranked 0."""
    for g in positions(80, seed=17):
        if g.decision != "action":
            continue
        _, action, offsets, patterns = network.policy_inputs([g])
        ends = np.append(offsets[1:], len(patterns))
        ranks = {}
        for a, b, e in zip(action, offsets, ends):
            if a < constants.A_WITHDRAW:
                colour = (a % (4 * constants.NSQ)) // constants.NSQ
                base = (a // constants.NSQ) * _net.P_STRIDE + _net.PAT_COLOUR_RANK
                found = [p - base for p in patterns[b:e] if base <= p < base + 4]
                assert len(found) == 1
                ranks.setdefault(colour, found[0])
                assert ranks[colour] == found[0]
        scores = g.raw_state()["score"][g.current_player]
        for c, r in ranks.items():
            assert r == sum(scores[k] < scores[c] or (scores[k] == scores[c] and k < c) for k in range(4))


def test_a_first_version_weights_file_is_read(tmp_path):
    """A tigris-network/1 file (no policy head) still loads and evaluates."""
    import json

    arrays = dict(random_arrays(seed=5))
    arrays["meta"] = np.frombuffer(json.dumps({"format": "tigris-network/1",
                                               "feature_version": network.FEATURE_VERSION}).encode(), np.uint8)
    with open(tmp_path / "old.npz", "wb") as f:
        np.savez(f, **arrays)
    old = network.load(tmp_path / "old.npz")
    assert not old.has_policy and len(old.evaluate(tigris.Game(players=2, seed=1))[0]) == 2


# ---------------------------------------------------------------------------
# In the search
# ---------------------------------------------------------------------------

def test_priors_net_needs_a_network_with_a_policy_head(tmp_path):
    g = tigris.Game(players=2, seed=1)
    with pytest.raises(ValueError, match="priors"):
        search.Search(g, priors="net", evaluator="net", network=str(tmp_path / "absent.npz"))
    network.save(tmp_path / "plain.npz", random_arrays(), {})
    with pytest.raises(ValueError, match="policy head"):
        search.Search(g, priors="net", evaluator="net", network=str(tmp_path / "plain.npz"))
    with pytest.raises(ValueError, match="policy head"):
        search.Search(g, priors="net")                  # no network at all
    with pytest.raises(ValueError, match="priors must be one of"):
        search.Search(g, priors="policy")


def test_the_root_is_ordered_by_the_policy(net_file):
    """With priors = net the root's moves are tried in the order of the policy's
    probabilities (the first UCB visits go to them in turn)."""
    g = random_game(5, 40)
    probs = network.load(net_file).policy(g)
    s = search.Search(g, seed=1, priors="net", evaluator="net", network=net_file, widening=2.0)
    s.step(iterations=3)
    tried = [ch.action for ch in s.stats().children]
    assert set(tried) <= set(probs) and len(tried) == 3
    assert sorted(tried, key=lambda a: -probs[a]) == sorted(probs, key=lambda a: -probs[a])[:3]


@pytest.mark.parametrize("params", [dict(policy_visits=1), dict(policy_visits=4, policy_exploration=2.0),
                                    dict(root="halving", halving_scale=1.0, candidates=16, root_lookahead=30.0,
                                         net_share=0.5, policy_visits=1)])
def test_the_policy_search_is_honest(net_file, params):
    """Two games that differ only in what the player to move cannot see give the same
    choice and the same statistics with the policy's priors."""
    from test_search import midgame_pair

    a, b = midgame_pair()
    conf = dict(iterations=400, priors="net", evaluator="net", network=net_file, **params)
    for seed in (1, 2):
        bot_a, bot_b = bots.make("ismcts", seed=seed, **conf), bots.make("ismcts", seed=seed, **conf)
        assert bot_a.choose(a) == bot_b.choose(b)
        assert bot_a.last.children == bot_b.last.children
    cheat_a, cheat_b = bots.make("cheat", seed=1, **conf), bots.make("cheat", seed=1, **conf)
    cheat_a.choose(a)
    cheat_b.choose(b)
    assert cheat_a.last.children != cheat_b.last.children     # the pair does differ


@pytest.mark.slow
def test_the_policy_search_plays_whole_games_on_every_setup(net_file):
    """Every third setup's game played to its end by the policy's search, as the runs play
    it (``play_out``: over, or stopped at the turn limit, for a game of leaders moved back
    and forth never empties the bag): each choice legal (``apply`` refuses any other),
    every player ranked."""
    from tigris.play.runner import MAX_TURNS, play_out

    ended = 0
    for setup in SETUPS[::3]:
        g = tigris.Game(seed=2, **setup)
        seated = [bots.make("ismcts", iterations=10, priors="net", evaluator="net", network=net_file,
                           rollout_depth=2, seed=3 + p) for p in range(g.players)]
        play_out(g, seated)
        ranked = sorted(p for tied in g.ranking() for p in tied)
        assert (g.is_over or g.turn == MAX_TURNS) and ranked == list(range(g.players)), setup
        ended += g.is_over
    assert ended, "no game came to its end"


def test_policy_knobs_are_checked():
    g = tigris.Game(players=2, seed=1)
    with pytest.raises(ValueError, match="policy_visits must be >= 0"):
        search.Search(g, policy_visits=-1)
    with pytest.raises(ValueError, match="policy_exploration must be <= 1000"):
        search.Search(g, policy_exploration=1e9)


def test_policy_evaluations_are_timed_for_the_benchmark(net):
    g = positions(1, seed=16)[0]
    assert _net.time_policy(net, g, 100) > 0
    with pytest.raises(ValueError, match="no policy head"):
        _net.time_policy(network.Network(random_arrays()), g, 10)
