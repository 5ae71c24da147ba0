"""The belief over unseen hands (tigris.belief) and the searches that deal from it."""

import pytest

import tigris
from tigris import bots, search
from tigris.belief import Belief, observations
from tigris.constants import COLOURS, CONFLICTS

RED = COLOURS.index("red")


def greedy_game(seed, decisions, players=2):
    g = tigris.Game(players=players, seed=seed)
    seats = [bots.load("greedy", seed=seed * 10 + s) for s in range(players)]
    while not g.is_over and len(g.history) < decisions:
        g.apply(seats[g.current_player].choose(g))
    return g


def test_observations_hold_only_what_the_player_saw():
    g = greedy_game(3, 150)
    seen = observations(g, 0)
    assert len(seen) == len(g.history)
    for (move, mover, forced, draws), (action, who, done, drawn) in zip(seen, g.history):
        assert mover == who and forced == tuple(done)
        assert all((q == 0) == (c is not None) for q, c in draws)
        if isinstance(move, tuple):
            assert mover != 0 and move[0] == "swap"
        else:
            assert move == action


def test_every_particle_could_have_made_every_move_it_saw():
    """The hard constraints: each particle replays the observed moves legally (a tile
    placed face up was in the hand, a commitment's tiles were there, a forced follow-up
    forced), so its own history reads as the player's observations."""
    g = greedy_game(4, 160)
    belief = Belief(0, particles=32, seed=2).update(g)
    assert belief.usable
    seen = observations(g, 0)
    live = [world for world, weight in zip(belief.worlds, belief.weights) if weight > 0]
    assert live
    for world in live:
        assert observations(world, 0)[-len(world.history):] == seen[-len(world.history):]
        # what the player sees now is the same in every particle
        assert world.to_position(player=0) == g.to_position(player=0)


def originals(belief, game):
    """The particles that have lived since the first position (not copies made by a
    resampling): their whole history is theirs, and undo takes them back."""
    return [w for w in belief.worlds if len(w.history) == len(game.history)]


def test_a_commitment_is_never_contradicted():
    """After a defender commits tiles in a conflict, every particle's defender held them
    when it did."""
    for seed in range(1, 60):
        g = greedy_game(seed, 400)
        supports = [k for k, (a, p, _, _) in enumerate(g.history)
                    if p == 1 and g.action_str(a).startswith("support ")
                    and int(g.action_str(a).split()[1]) > 0]
        if supports:
            break
    k = supports[0]
    upto = g.copy()
    while len(upto.history) > k + 1:
        upto.undo()
    committed = int(upto.action_str(upto.history[k][0]).split()[1])
    belief = Belief(0, particles=32, seed=1).update(upto)
    # every particle that made the move itself (not dealt afresh after it by a reset)
    kept = [w for w, weight in zip(belief.worlds, belief.weights) if w.history and weight > 0]
    assert kept
    for world in kept:
        before = world.copy()
        before.undo()                              # back to the decision
        raw = before.raw_state()
        # a revolt is supported with red (temple) tiles, a war with the leaders' colour
        colour = RED if CONFLICTS[raw["c_kind"]] == "revolt" else raw["c_colour"]
        assert raw["hand"][1][colour] >= committed


def scripted_declines(turns=16, seed=21):
    """A game in which player 1 places its priest by a temple, then passes every action
    although red tiles next to its kingdom would score it red points; player 0 passes.
    No tile is placed or drawn: only the declines tell about player 1's hand."""
    from tigris.evaluator import Evaluator
    ev = Evaluator()
    g = tigris.Game(players=2, seed=seed)
    declined = 0
    while g.turn < turns:
        legal = g.legal_actions()
        texts = [g.action_str(a) for a in legal]
        if g.current_player == 1 and not any(g.history[k][1] == 1 for k in range(len(g.history))):
            g.apply(legal[texts.index(next(t for t in texts if t.startswith("leader priest")))])
            continue
        if g.current_player == 1:
            declined += any(t.startswith("tile red") and ev.prior(g, a) >= 3.0
                            for a, t in zip(legal, texts))
        g.apply(legal[texts.index("pass")])
    return g, declined


def uniform_red_share(game, player, other, deals=400):
    total = 0.0
    for k in range(deals):
        hand = game.determinize(player, k).raw_state()["hand"][other]
        total += hand[RED] / sum(hand)
    return total / deals


def test_declining_red_points_lowers_the_red_in_that_hand():
    g, declined = scripted_declines()
    assert declined >= 5                        # red points were there to take, again and again
    belief = Belief(0, particles=256, seed=3).update(g)
    assert belief.resets == 0
    assert belief.colour_shares(1)[RED] < uniform_red_share(g, 0, 1) - 0.1
    # the same history without the soft evidence (a temperature that makes every move
    # alike) keeps the uniform share
    flat = Belief(0, particles=256, seed=3, temperature=1000.0).update(g)
    assert abs(flat.colour_shares(1)[RED] - uniform_red_share(g, 0, 1)) < 0.05


def test_the_same_history_and_seed_give_the_same_belief():
    g = greedy_game(5, 120)
    a = Belief(0, particles=32, seed=9).update(g)
    b = Belief(0, particles=32, seed=9).update(g)
    assert a.determinizations() == b.determinizations()
    c = Belief(0, particles=32, seed=10).update(g)
    assert c.determinizations() != a.determinizations()


def test_an_update_move_by_move_equals_one_update():
    g = greedy_game(6, 100)
    whole = Belief(0, particles=16, seed=4).update(g)
    steps = Belief(0, particles=16, seed=4)
    walk = g.copy()
    while walk.history:
        walk.undo()
    for action, _, _, draws in g.history:
        if walk.current_player == 0:
            steps.update(walk)
        walk.apply(action, draws=draws)
    steps.update(walk)
    assert steps.determinizations() == whole.determinizations()


def test_an_undo_or_another_game_starts_afresh():
    g = greedy_game(7, 80)
    belief = Belief(0, particles=16, seed=1).update(g)
    shorter = g.copy()
    for _ in range(10):
        shorter.undo()
    assert belief.update(shorter).determinizations() == Belief(0, particles=16, seed=1).update(shorter).determinizations()
    other = greedy_game(8, 80)
    assert belief.update(other).determinizations() == Belief(0, particles=16, seed=1).update(other).determinizations()


def test_a_position_without_history_deals_uniformly():
    g = greedy_game(9, 60)
    loaded = tigris.Game.from_position(g.to_position(player=0))
    belief = Belief(0, particles=8).update(loaded)
    assert not belief.usable and belief.determinizations() is None


def indistinguishable(game, player, seed=5):
    """Another game with a whole history that `player` cannot tell from `game`: a
    particle of the player's belief (one that lived from the first position) replayed
    from its own deal, with its own draws, holding other tiles in the other hands."""
    belief = Belief(player, particles=64, seed=seed).update(game)
    theirs = game.raw_state()["hand"]
    world = next(w for w in originals(belief, game) if w.raw_state()["hand"] != theirs)
    start = world.copy()
    while start.history:
        start.undo()
    hands = start.raw_state()["hand"]
    deal = [(p, c) for p in range(game.players) for c in range(4) for _ in range(hands[p][c])]
    again = tigris.Game(players=game.players, seed=game.seed, board=game.board,
                        variants=game.variants)
    again.redeal(deal)
    for action, _, _, draws in world.history:
        again.apply(action, draws=draws)
    return again


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["ismcts", "pimc"])
def test_the_belief_sees_only_what_the_player_saw(kind):
    """Two games that differ only in what player 0 never saw (player 1's hand, its draws,
    the bag) give player 0's belief search the same decision and the same statistics."""
    g = greedy_game(12, 140)
    while g.current_player != 0:
        g.apply(bots.load("greedy", seed=1).choose(g))
    worlds = [g, indistinguishable(g, 0)]
    assert observations(worlds[0], 0) == observations(worlds[1], 0)
    assert worlds[0].raw_state()["hand"][1] != worlds[1].raw_state()["hand"][1]
    results = []
    for w in worlds:
        bot = bots.make(kind, iterations=400, determinization="belief", belief_particles=32, seed=3)
        action = bot.choose(w)
        results.append((action, [(c.action, c.visits, c.value) for c in bot.last.children]))
    assert results[0] == results[1]


def test_search_determinizations_are_checked():
    g = greedy_game(13, 60)
    view = g.determinize(g.current_player, 1)
    row = search.determinization_row(g.determinize(g.current_player, 2))
    with pytest.raises(ValueError, match="weights"):
        search.Search(view, determinizations=([row], [0.0]), **search.PLAIN)
    bad = list(row)
    other = 1 - g.current_player
    bad[8 * other] += 1
    with pytest.raises(ValueError, match="determinizations: row 0 gives player .* another size"):
        search.Search(view, determinizations=([bad], [1.0]), **search.PLAIN)
    with pytest.raises(ValueError, match="without determinization"):
        search.Search(view, determinizations=([row], [1.0]), determinize=False, **search.PLAIN)
    s = search.Search(view, determinizations=([row], [1.0]), seed=1, **search.PLAIN)
    assert s.step(200) == 200


def test_the_knobs_are_checked():
    with pytest.raises(ValueError, match="determinization"):
        bots.make("ismcts", determinization="psychic")
    with pytest.raises(ValueError, match="belief_particles"):
        bots.make("ismcts", belief_particles=0)
    with pytest.raises(ValueError, match="belief_temperature"):
        bots.make("pimc", belief_temperature=0)
    with pytest.raises(ValueError, match="determinization"):
        bots.make("cheat", determinization="belief")
