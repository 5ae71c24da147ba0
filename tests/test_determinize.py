"""determinize(p, seed) resamples only what p cannot see."""

import random

import tigris

from helpers import unseen_pool

HIDDEN = ("hand", "swapped", "bag", "rng")


def midgame(players, seed, steps=40, **setup):
    rng = random.Random(seed)
    g = tigris.Game(players=players, seed=seed, **setup)
    for _ in range(steps):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    return g


def test_keeps_what_the_player_sees():
    for players in (2, 3, 4):
        for seed in range(20):
            g = midgame(players, seed)
            raw = g.raw_state()
            for p in range(players):
                d = g.determinize(p, seed=seed + 100).raw_state()
                for key in raw:
                    if key not in HIDDEN:
                        assert d[key] == raw[key], key
                assert d["hand"][p] == raw["hand"][p]
                assert d["swapped"][p] == raw["swapped"][p]
                for q in range(players):
                    assert sum(d["hand"][q]) == sum(raw["hand"][q])
                    assert sum(d["swapped"][q]) == sum(raw["swapped"][q])
                assert unseen_pool(d, p) == unseen_pool(raw, p)


def test_changes_with_the_seed_and_leaves_the_source_alone():
    g = midgame(3, 1)
    before = g.state_bytes()
    worlds = {tuple(map(tuple, g.determinize(0, seed=s).raw_state()["hand"][1:])) for s in range(30)}
    assert len(worlds) > 5
    assert g.state_bytes() == before
    a = g.determinize(0, seed=4).raw_state()
    b = g.determinize(0, seed=4).raw_state()
    assert a == b
    assert a["rng"] != g.raw_state()["rng"]


def test_determinized_game_plays_on():
    g = midgame(2, 8)
    d = g.determinize(g.current_player, seed=2)
    assert d.legal_actions() == g.legal_actions()
    d.random_playout(seed=1)
    assert d.is_over


def test_every_board_and_variant(combo):
    for seed in range(4):
        g = midgame(2 + seed % 3, seed, steps=60, **combo)
        raw = g.raw_state()
        p = g.current_player
        d = g.determinize(p, seed=seed)
        assert (d.board, d.variants) == (g.board, g.variants)
        draw = d.raw_state()
        for key in raw:
            if key not in HIDDEN:
                assert draw[key] == raw[key], key
        assert unseen_pool(draw, p) == unseen_pool(raw, p)
        assert d.legal_actions() == g.legal_actions()
        d.random_playout(seed=seed)
        assert d.is_over
