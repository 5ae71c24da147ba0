"""Random games in 2, 3 and 4 player modes, on both board sides with every combination of
variants, checking the invariants after every action: tiles conserved, no kingdom with two
leaders of a colour once a decision completes, every leader next to a temple, buildings on
face-up tiles of their colour, scores never decreasing, apply+undo restoring the exact
state, copies independent of their source, the core's cached regions the same as
labelled afresh."""

import random

import pytest

import tigris
from tigris.constants import COLOURS, DOWN0, NONE, RED, REVOLT, SUPPLY, TILE0
from tigris.squares import leader_code, neighbours

TEMPLE = TILE0 + RED        # square code of a face-up red tile


def tile_totals(raw):
    totals = [0, 0, 0, 0]
    for code in raw["squares"]:
        if TILE0 <= code < DOWN0 + 4:       # face up or face down
            totals[(code - TILE0) % 4] += 1
    for c in range(4):
        totals[c] += raw["bag"][c] + raw["out"][c]
        for p in range(raw["players"]):
            totals[c] += raw["hand"][p][c] + raw["swapped"][p][c]
    return totals

def check_invariants(g, previous_scores):
    raw = g.raw_state()
    assert tile_totals(raw) == list(SUPPLY)
    labels, kingdom = g.regions()
    assert g._region_cache_agrees(), "the core's cached regions went stale"
    for p in range(g.players):
        for c in range(4):
            at = raw["leader"][p][c]
            if at == NONE:
                continue
            assert raw["squares"][at] == leader_code(p, c)
            assert any(raw["squares"][n] == TEMPLE for n in neighbours(at)), "leader without temple"
    if g.decision == "action":
        for c in range(4):
            regions = [labels[raw["leader"][p][c]] for p in range(g.players) if raw["leader"][p][c] != NONE]
            assert len(regions) == len(set(regions)), "two leaders of one colour in a kingdom"
    for p in range(g.players):
        assert all(len(raw["hand"][p]) == 4 for p in range(g.players))
        assert sum(raw["hand"][p]) <= 6
        score = g.score(p)
        for key, value in score.items():
            assert value >= previous_scores[p][key], f"score {key} of player {p} went down"
        previous_scores[p] = score
    for c, at in enumerate(raw["building"]):
        if at != NONE:
            assert "buildings" in g.variants
            assert raw["squares"][at] == TILE0 + c, "a building off a face-up tile of its colour"
    on_board = sum(raw["treasure"])
    assert on_board + sum(raw["treasures"]) == len(tigris.boards.layout(g.board)[1])
    if not g.is_over:
        assert on_board >= 1


def play_checked(players, seed, undo_every_action=True, **setup):
    rng = random.Random(seed)
    g = tigris.Game(players=players, seed=seed, **setup)
    scores = [g.score(p) for p in range(players)]
    check_invariants(g, scores)
    steps = 0
    while not g.is_over:
        legal = g.legal_actions()
        assert legal, "no legal action in a running game"
        a = rng.choice(legal)
        if undo_every_action:
            before = g.state_bytes()
            g.apply(a)
            after = g.state_bytes()
            g.undo()
            assert g.state_bytes() == before, f"undo of {g.action_str(a)} did not restore the state"
            g.apply(a)
            assert g.state_bytes() == after, "re-applying after undo gave another state"
        else:
            g.apply(a)
        check_invariants(g, scores)
        steps += 1
    return g, steps


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_invariants(players, combo):
    # 100 games per player count on the classic board without variants, 40 on each of the
    # seven other setups: 1,140 in all.
    games = 100 if combo == dict(board="classic", variants=()) else 40
    for seed in range(games):
        g, steps = play_checked(players, 1000 * players + seed, undo_every_action=seed % 4 == 0,
                                **combo)
        assert g.is_over and steps > 0
        ranking = g.ranking()
        assert sorted(p for place in ranking for p in place) == list(range(players))


def test_undo_walks_back_a_whole_game(combo):
    rng = random.Random(5)
    g = tigris.Game(players=3, seed=5, **combo)
    states = [g.state_bytes()]
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
        states.append(g.state_bytes())
    for expected in reversed(states[:-1]):
        g.legal_actions()           # the core's cached regions are up to date: undo keeps them so
        g.undo()
        assert g.state_bytes() == expected
        assert g._region_cache_agrees()
    with pytest.raises(IndexError):
        g.undo()


def test_copies_are_independent(combo):
    rng = random.Random(11)
    g = tigris.Game(players=2, seed=11, **combo)
    for _ in range(30):
        g.apply(rng.choice(g.legal_actions()))
    snapshot = g.state_bytes()
    for stack in (True, False):
        c = g.copy(stack=stack)
        assert c.state_bytes() == snapshot
        c.random_playout(seed=3)
        assert c.is_over
        assert g.state_bytes() == snapshot
        g.apply(rng.choice(g.legal_actions()))
        g.undo()
        assert g.state_bytes() == snapshot
    c = g.copy()
    c.undo()                              # the copy keeps the undo history
    g.undo()
    assert c.state_bytes() == g.state_bytes()


def test_same_seed_same_game():
    a = tigris.Game(players=4, seed=99)
    b = tigris.Game(players=4, seed=99)
    assert a.state_bytes() == b.state_bytes()
    assert a.random_playout(7) == b.random_playout(7)
    assert a.state_bytes() == b.state_bytes()
    c = tigris.Game(players=4, seed=100)
    assert c.raw_state()["hand"] != tigris.Game(players=4, seed=99).raw_state()["hand"]


def test_forced_decisions_are_applied_and_undone_together(combo):
    # Play until some apply triggers a forced follow-up, then check undo takes both back.
    for seed in range(200):
        rng = random.Random(seed)
        g = tigris.Game(players=2, seed=seed, **combo)
        while not g.is_over:
            before = g.state_bytes()
            g.apply(rng.choice(g.legal_actions()))
            if g.history[-1][2]:
                g.undo()
                assert g.state_bytes() == before
                return
    pytest.fail("no forced decision in 200 random games")


def test_random_playout_counts_decisions_and_ends(combo):
    g = tigris.Game(players=2, seed=3, **combo)
    n = g.random_playout(seed=3)
    assert g.is_over and n > 20
    assert g.legal_actions() == []


def test_variants_come_up_in_random_games():
    """The random games above do reach building decisions, buildings on the board and
    support decisions that the English variant narrows."""
    seen = set()
    for seed in range(40):
        rng = random.Random(seed)
        g = tigris.Game(players=2 + seed % 3, seed=seed, variants=("english", "buildings"))
        while not g.is_over:
            if g.decision == "building":
                seen.add("building decision")
            if any(b != NONE for b in g.raw_state()["building"]):
                seen.add("building on the board")
            if g.decision == "support":
                raw = g.raw_state()
                have = g.hand(g.current_player)[COLOURS[RED if raw["c_kind"] == REVOLT else
                                                        raw["c_colour"]]]
                if len(g.legal_actions()) < have + 1:
                    seen.add("narrowed support")
            g.apply(rng.choice(g.legal_actions()))
    assert seen == {"building decision", "building on the board", "narrowed support"}
