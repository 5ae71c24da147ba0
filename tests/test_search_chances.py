"""Each player's chance of finishing first, backed up beside the rewards: the chances of
every root child add up to 1, a winning move reads as a certain win, and the rewards,
visits and choices of the search are those it had before the chances were added."""

import hashlib
import json

import pytest

from tigris.bots.search import merge
from tigris.search import PLAIN, run

from helpers import random_game
from test_search import WINNING_MOVE, forced_win, load


def played(players, board, seed, moves):
    """A position after `moves` random moves (drawn by Python's generator from `seed`)."""
    return random_game(seed, moves, players=players, board=board)


POSITIONS = {"2c": (2, "classic", 3, 40), "3a": (3, "advanced", 4, 25),
             "4c": (4, "classic", 5, 30), "2a": (2, "advanced", 6, 10)}
CONFIGS = {"default": {}, "plain": dict(PLAIN), "halving": {"root": "halving", "candidates": 8},
           "calib": {"eval_calibrated": 0.5, "rollout_depth": -1}, "value": {"final": "value"}}


@pytest.mark.slow
@pytest.mark.parametrize("name", POSITIONS)
@pytest.mark.parametrize("config", ["default", "halving", "calib"])
def test_every_childs_chances_add_up_to_one(name, config):
    g = played(*POSITIONS[name])
    stats = run(g, iterations=2000, seed=3, **CONFIGS[config])
    for ch in stats.children:
        assert len(ch.chances) == g.players
        assert all(0.0 <= c <= 1.0 for c in ch.chances)
        assert sum(ch.chances) == pytest.approx(1.0, abs=1e-6)


def test_merged_chances_are_weighted_by_visits_and_add_up_to_one():
    g = played(*POSITIONS["3a"])
    trees = [run(g, iterations=1000, seed=seed) for seed in (1, 2)]
    merged = {ch.action: ch for ch in merge(trees).children}
    for action, ch in merged.items():
        parts = [c for t in trees for c in t.children if c.action == action]
        for p in range(3):
            want = sum(c.chances[p] * c.visits for c in parts) / ch.visits
            assert ch.chances[p] == pytest.approx(want)
        assert sum(ch.chances) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("root", ["ucb", "halving"])
def test_the_winning_move_reads_as_a_certain_win(root):
    # Every move ends the game; only the winning one puts player 0 first.
    g = load(forced_win())
    stats = run(g, iterations=2000, seed=1, widening=0.0, root=root)
    top, others = stats.children[0], stats.children[1:]
    assert g.action_str(top.action) == WINNING_MOVE
    assert top.chances == (1.0, 0.0)
    assert others and all(ch.chances[0] < 0.5 for ch in others)


def digest(stats):
    """What the search decided from: each child's visits, availability and mean reward,
    the best move and the tree's size."""
    rows = [(c.action, c.visits, c.avail, repr(c.value)) for c in stats.children]
    return hashlib.sha256(json.dumps([rows, stats.best, stats.nodes]).encode()).hexdigest()[:16]


# Recorded from the search before it backed up the chances (seed 1, 3,000 iterations):
# backing them up must leave every figure the search decides from as it was.
DIGESTS = {
    "2c-default": "469089333e6f9e4b", "2c-plain": "f0474debf79646ca",
    "2c-halving": "51941338ab5c314e", "2c-calib": "ae8abaaf6d06117e",
    "2c-value": "469089333e6f9e4b",
    "3a-default": "f66b35009b3d6891", "3a-plain": "a6d9c5a05d62cf95",
    "3a-halving": "8cc1262ed32ef900", "3a-calib": "a910600797e0a4a5",
    "3a-value": "b820c54007015d67",
    "4c-default": "d8156a5a0441cf5e", "4c-plain": "5b1c0816bcb9e2cd",
    "4c-halving": "91c7fcaefd662bad", "4c-calib": "0a7865089e0a83cf",
    "4c-value": "d8156a5a0441cf5e",
    "2a-default": "097f8e3bbf3f5f3a", "2a-plain": "b014bac155b8d6b3",
    "2a-halving": "7c710eaa635cd0a5", "2a-calib": "367b36ef83b87f17",
    "2a-value": "0a7ecb6128723332",
}


@pytest.mark.slow
@pytest.mark.parametrize("key", DIGESTS)
def test_the_chances_change_nothing_the_search_decides_from(key):
    name, config = key.split("-")
    stats = run(played(*POSITIONS[name]), iterations=3000, seed=1, **CONFIGS[config])
    assert digest(stats) == DIGESTS[key]


# ---------------------------------------------------------------------------
# Each child's standard error, its line, and a root held to some actions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", POSITIONS)
def test_each_childs_error_shrinks_with_its_visits(name):
    g = played(*POSITIONS[name])
    stats = run(g, iterations=4000, seed=3, root="halving")
    children = stats.children
    for ch in children:
        assert 0 < ch.error <= 0.5 and ch.line >= 0
    # The most visited child, read along its best line, is known far better than a move
    # the search tried a few times (a prior of eight visits of spread 0.2 keeps the
    # latter wide).
    few = [ch for ch in children if 1 <= ch.visits <= 4]
    if few:
        assert children[0].error < min(ch.error for ch in few)
        assert all(ch.error > 0.05 for ch in few)


def test_a_root_held_to_one_action_searches_it_alone():
    g = played(*POSITIONS["2c"])
    legal = g.legal_actions()
    stats = run(g, iterations=1500, seed=3, only=[legal[-1]])
    assert [ch.action for ch in stats.children] == [legal[-1]]
    assert stats.children[0].visits == 1500 and stats.best == legal[-1]
    two = run(g, iterations=1500, seed=3, only=[legal[0], legal[1]], root="halving")
    assert {ch.action for ch in two.children} == {legal[0], legal[1]}


@pytest.mark.parametrize("only, message", [([], "at least one action"), ([-1], "only: .*outside"),
                                           ([True], "not a legal"), (["pass"], "not a legal")])
def test_a_root_held_to_no_legal_action_is_refused(only, message):
    g = played(*POSITIONS["2c"])
    with pytest.raises(ValueError, match=message):
        run(g, iterations=10, seed=3, only=only)


# ---------------------------------------------------------------------------
# The score margin beside the chances
# ---------------------------------------------------------------------------

def score_margin(game, player):
    """`player`'s final score as the game stands minus the best other player's."""
    return game.final_score(player) - max(game.final_score(q) for q in range(game.players)
                                          if q != player)


@pytest.mark.parametrize("name", ["2c", "3a", "4c"])
def test_a_childs_margin_is_the_movers_score_margin_where_its_line_ends(name):
    """Judged at once (no rollout, the heuristic: the scores as they stand), a child seen
    once reads the margin of the position its move leads to: the searching player's final
    score minus the best other player's (scores are public: every deal agrees)."""
    g = played(*POSITIONS[name])
    mover = g.current_player
    stats = run(g, iterations=200, seed=2, rollout_depth=0, **PLAIN)
    once = [ch for ch in stats.children if ch.visits == 1]
    assert once
    for ch in once:
        after = g.copy()
        after.apply(ch.action)
        assert ch.margin == pytest.approx(score_margin(after, mover), abs=1e-6)
        assert ch.margin_error > 0
    for ch in stats.children:
        assert abs(ch.margin) < 100 and 0 < ch.margin_error <= 5.0


def test_a_finished_game_backs_up_its_final_margin():
    # Every move ends the game: each child's margin is that game's final margin.
    g = load(forced_win())
    stats = run(g, iterations=500, seed=1, widening=0.0)
    for ch in stats.children:
        after = g.copy()
        after.apply(ch.action)
        assert after.is_over
        assert ch.margin == pytest.approx(score_margin(after, g.current_player))


def test_the_margin_share_plays_for_points_and_changes_nothing_at_zero():
    """margin_share 0 is the search as it was (every figure it decides from); with a share
    of 1 a child's value is the logistic of its margin over margin_scale alone."""
    import math

    g = played(*POSITIONS["2c"])
    plain = run(g, iterations=1500, seed=1)
    assert digest(run(g, iterations=1500, seed=1, margin_share=0.0)) == digest(plain)
    assert digest(run(g, iterations=1500, seed=1, margin_share=0.5)) != digest(plain)
    shared = run(g, iterations=200, seed=2, rollout_depth=0, margin_share=1.0, margin_scale=5.0,
                 **PLAIN)
    once = [ch for ch in shared.children if ch.visits == 1]
    assert once
    for ch in once:
        assert ch.value == pytest.approx(1 / (1 + math.exp(-ch.margin / 5.0)), abs=1e-6)
