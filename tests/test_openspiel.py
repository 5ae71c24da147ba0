"""The OpenSpiel adapter (tigris.interop.openspiel): OpenSpiel's own checks of a game,
its states against tigris.Game move for move, the chance nodes' odds, what each player
sees, errors in OpenSpiel's kind, serialization, and tigris's bots as OpenSpiel bots."""

import pickle
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

import tigris  # noqa: E402
import tigris.constants  # noqa: E402
from tigris import bots  # noqa: E402
from tigris.constants import N_ACTIONS  # noqa: E402
from tigris.interop import openspiel as tos  # noqa: E402
from tigris.interop import views  # noqa: E402

CHANCE = pyspiel.PlayerId.CHANCE
SETUPS = [dict(players=2), dict(players=3, variants=("english",)),
          dict(players=4, board="advanced", variants=("buildings",)),
          dict(players=2, variants=("english", "buildings"))]
QUICK = settings(max_examples=60, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))


def game_of(players=2, board="classic", variants=(), **more):
    return tos.load(players=players, board=board, variants="+".join(variants), **more)


def dealt(setup, seed=0):
    """The OpenSpiel state after the deal tigris.Game(seed=seed) makes, and that Game."""
    g = tigris.Game(seed=seed, **setup)
    s = game_of(**setup).new_initial_state()
    for _, c in g.deal:
        s.apply_action(c)
    return s, g


def play_along(seed, setup):
    """A game of random decisions played by tigris.Game and by the OpenSpiel state at
    once, the state's chance nodes given the colours the Game drew: at every decision
    they agree on the position (every field but the core's random stream), the player to
    decide and the legal actions; every draw is an outcome with the bag's odds; at the
    end, on the returns."""
    rng = random.Random(seed)
    s, g = dealt(setup, seed)
    while not g.is_over:
        assert not s.is_terminal()
        mine, theirs = s._play.game.raw_state(), g.raw_state()
        mine.pop("rng"), theirs.pop("rng")
        assert mine == theirs
        assert s.current_player() == g.current_player
        legal = g.legal_actions()
        assert s.legal_actions() == sorted(legal)
        a = rng.choice(legal)
        bag = theirs["bag"]
        g.apply(a)
        s.apply_action(a)
        for _, c in g.history[-1][3]:
            assert s.current_player() == CHANCE
            assert dict(s.chance_outcomes())[c] == bag[c] / sum(bag)
            bag[c] -= 1
            s.apply_action(c)
    assert s.is_terminal()
    first = g.ranking()[0]
    assert s.returns() == [1 / len(first) if p in first else 0.0 for p in range(g.players)]
    return len(g.history)


# -- OpenSpiel's own checks -----------------------------------------------------------------

@pytest.mark.parametrize("setup", [SETUPS[0], SETUPS[2]])
def test_openspiel_random_simulation_test(setup):
    """pyspiel.random_sim_test: the checks OpenSpiel's compiled tests run on every game
    (chance outcomes, legal actions sorted, observations and information states of every
    player, clones, serialization at every move)."""
    pyspiel.random_sim_test(game_of(**setup), num_sims=1, serialize=True, verbose=False)


def test_final_scores_pass_the_random_simulation_test():
    game = game_of(players=3, returns="final_scores")
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("setup", SETUPS)
def test_openspiel_random_simulation_test_many_games(setup):
    pyspiel.random_sim_test(game_of(**setup), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("setup", [SETUPS[1], pytest.param(SETUPS[2], marks=pytest.mark.slow)])
def test_the_checks_openspiel_runs_on_its_python_games(setup):
    """games_sim_test's sim_game, as OpenSpiel runs it on its games written in Python:
    pickled games and states, clones that stay equal, returns in range."""
    from open_spiel.python.tests import games_sim_test

    np.random.seed(1)
    games_sim_test.GamesSimTest().sim_game(game_of(**setup))


# -- the same game as tigris.Game --------------------------------------------------------

@pytest.mark.parametrize("chunk", range(8))
def test_states_agree_with_tigris_game_move_for_move(chunk):
    """240 random games in all, over the player counts, boards and variants."""
    moves = [play_along(seed, SETUPS[seed % len(SETUPS)]) for seed in range(chunk * 30, chunk * 30 + 30)]
    assert sum(moves) > 30 * 100            # whole games


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
def test_states_agree_with_tigris_game_on_many_games(chunk):
    """200 more, in four parts that the test workers share."""
    for seed in range(1000 + 50 * chunk, 1050 + 50 * chunk):
        play_along(seed, SETUPS[seed % len(SETUPS)])


def test_the_deal_is_chance_with_the_bags_odds():
    s = game_of(players=3).new_initial_state()
    assert s.current_player() == CHANCE
    # the supply but the ten temples on the board at the start
    bag = [57 - 10, 36, 30, 30]
    assert s.chance_outcomes() == [(c, n / 143) for c, n in enumerate(bag)]
    s.apply_action(0)
    assert s.chance_outcomes()[0] == (0, 46 / 142)
    assert s.action_to_string(CHANCE, 3) == "draw black"
    for _ in range(17):
        s.apply_action(s.chance_outcomes()[-1][0])
    assert s.current_player() == 0 and s.move_number() == 18


def test_a_swap_waits_for_its_draws():
    s, g = dealt(dict(players=2), seed=4)
    swap = next(a for a in s.legal_actions() if s.action_to_string(0, a).startswith("swap"))
    s.apply_action(swap)
    n = len(s.action_to_string(0, swap).split()) - 1
    for k in range(n):
        assert s.current_player() == CHANCE
        assert s.information_state_string(1).endswith("discarded: red 0 blue 0 green 0 black 0")
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.current_player() == 0 and s._play.game.actions_left == 1


def test_returns_share_the_first_place():
    s, _ = dealt(dict(players=3), seed=2)
    s._play.game = tigris.Game(players=3, seed=2)
    s._play.game.random_playout(3)
    vectors = [s._play.game.final_vector(p) for p in range(3)]
    best = max(vectors)
    winners = [p for p in range(3) if vectors[p] == best]
    assert s.returns() == [1 / len(winners) if p in winners else 0.0 for p in range(3)]
    assert sum(s.returns()) == 1.0


def test_a_tie_for_first_shares_the_return():
    s, _ = dealt(dict(players=3), seed=2)
    game = s._play.game
    raw = game.raw_state()
    raw["score"] = [[3, 3, 3, 3], [3, 3, 3, 3], [1, 2, 3, 4]]
    raw["phase"] = tigris.constants.PH_OVER
    game.load_raw_state(raw)
    assert s.returns() == [0.5, 0.5, 0.0]
    scores = game_of(players=3, returns="final_scores").new_initial_state()
    scores._play = s._play
    assert scores.returns() == [3.0, 3.0, 1.0]


def test_max_turns_stops_a_game():
    game = game_of(players=2, max_turns=3)
    s = game.new_initial_state()
    rng = random.Random(0)
    while not s.is_terminal():
        s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()))
    assert s._play.game.turn == 3 and not s._play.game.is_over
    assert sorted(s.returns(), reverse=True)[0] > 0 and sum(s.returns()) == 1.0
    assert game.max_game_length() == 2 * 6 + 3 * tos.MOVES_PER_TURN


# -- what each player sees -----------------------------------------------------------------

def test_a_resampled_state_is_the_same_to_its_player():
    s, g = dealt(dict(players=3), seed=5)
    rng = random.Random(5)
    for _ in range(60):
        if s.is_chance_node():
            s.apply_action(s.chance_outcomes()[0][0])
        else:
            s.apply_action(rng.choice(s.legal_actions()))
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    p = s.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    other = s.resample_from_infostate(p, sampler)
    assert other.information_state_string(p) == s.information_state_string(p)
    assert other.observation_string(p) == s.observation_string(p)
    assert other.observation_tensor(p) == s.observation_tensor(p)
    assert other.legal_actions() == s.legal_actions()
    # what it could not see was dealt again
    hands = [[s._play.game.hand(q) for q in range(3) if q != p] for s in (s, other)]
    assert hands[0] != hands[1]
    for q in range(3):
        if q != p:
            assert other.information_state_string(q) != s.information_state_string(q)


def test_a_player_sees_its_own_tiles_and_only_counts_of_the_others():
    s, g = dealt(dict(players=2), seed=6)
    text = s.information_state_string(0)
    assert "hand: " + " ".join(f"{c} {n}" for c, n in g.hand(0).items()) in text
    assert "hand: " + " ".join(f"{c} {n}" for c, n in g.hand(1).items()) not in text
    pieces = views.pieces(np.array(s.observation_tensor(0), np.float32))
    assert list(pieces["players"][0][:4]) == list(g.hand(0).values())
    assert list(pieces["players"][1][:4]) == [0, 0, 0, 0] and pieces["players"][1][4] == 6
    assert '"hand":null' in s.observation_string(0)


def test_the_information_state_remembers_the_public_history():
    s, _ = dealt(dict(players=2), seed=7)
    a = s.legal_actions()[0]
    s.apply_action(a)
    assert f"0: {s.action_to_string(0, a)}" in s.information_state_string(1)


def test_the_information_state_vector_is_the_view_and_what_the_history_showed():
    game = tos.load(players=3)
    assert game.get_type().provides_information_state_tensor
    assert game.observation_tensor_size() == views.SIZE
    assert game.information_state_tensor_size() == tos.RECALL_SIZE
    g = tigris.Game(players=3, seed=12)
    s = game.new_initial_state()
    for _, c in g.deal:
        s.apply_action(c)
    rng = random.Random(12)
    placed, committed = np.zeros((1, 4, 4)), np.zeros((1, 4, 4))
    supports = 0
    while not g.is_over:
        p = g.current_player
        a = rng.choice(g.legal_actions())
        hand = list(g.hand(p).values())
        g.apply(a)
        s.apply_action(a)
        for q, c in g.history[-1][3]:
            s.apply_action(c)
            hand[c] += q == p
        words = s.action_to_string(p, a).split()
        if words[0] == "tile":
            placed[0][p][tigris.constants.COLOURS.index(words[1])] += 1
        elif words[0] == "support":
            # what the hand lost, the tiles drawn since counted back: the tiles committed
            committed[0][p] += np.array(hand) - list(g.hand(p).values())
            supports += 1
        for viewer in range(3):
            t = np.array(s.information_state_tensor(viewer), np.float32)
            assert list(t[:views.SIZE]) == s.observation_tensor(viewer)
            assert (t[views.SIZE:] == np.concatenate([placed[0].ravel(), committed[0].ravel()])).all()
    assert supports > 0 and committed.sum() > 0


def test_a_resampled_state_has_the_same_information_state_vector():
    s, _ = dealt(dict(players=2), seed=13)
    rng = random.Random(13)
    while len(s.history()) < 300 or s.is_chance_node():
        s.apply_action(rng.choice([c for c, _ in s.chance_outcomes()]) if s.is_chance_node()
                       else rng.choice(s.legal_actions()))
    p = s.current_player()
    other = s.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert other.information_state_tensor(p) == s.information_state_tensor(p)
    assert other.information_state_tensor(1 - p) != s.information_state_tensor(1 - p)


# -- errors in OpenSpiel's kind, with tigris's reason ------------------------------------

@QUICK
@given(st.integers(-5, N_ACTIONS + 5))
def test_any_action_is_applied_or_refused_with_the_reason(action):
    s, _ = dealt(dict(players=2), seed=8)
    before, history = str(s), s.history()
    if action in s.legal_actions():
        s.apply_action(action)
        return
    # -1 is OpenSpiel's "no action", which it refuses itself
    # an id outside the action space is refused by its number, a legal id by its move's name
    reason = r"^tigris: action id -?\d+ is outside the action space" if not 0 <= action < N_ACTIONS \
        else r"^tigris: .+: .+"
    with pytest.raises(pyspiel.SpielError, match=reason if action != -1 else "kInvalidAction"):
        s.apply_action(action)
    assert str(s) == before and s.history() == history


@QUICK
@given(st.integers(-3, 7))
def test_any_draw_is_drawn_or_refused(colour):
    s = game_of().new_initial_state()
    if 0 <= colour < 4:
        s.apply_action(colour)
        assert s.history() == [colour]
    else:
        with pytest.raises(pyspiel.SpielError, match="^tigris: draw" if colour != -1 else "kInvalidAction"):
            s.apply_action(colour)


def test_a_colour_the_bag_has_run_out_of_is_refused():
    s, _ = dealt(dict(players=2), seed=9)
    s._play.action, s._play.drawers, s._play.bag = s.legal_actions()[0], (0,), [0, 1, 0, 0]
    with pytest.raises(pyspiel.SpielError, match="the bag holds red 0, blue 1"):
        s.apply_action(0)


PARAMETERS = st.fixed_dictionaries({}, optional={
    "players": st.integers(-1, 6), "board": st.sampled_from(["classic", "advanced", "", "big"]),
    "variants": st.sampled_from(["", "english", "english+buildings", "chess", "+", "english+x"]),
    "returns": st.sampled_from(["first_places", "final_scores", "points"]),
    "max_turns": st.integers(-2, 3)})


@QUICK
@given(PARAMETERS)
def test_any_parameters_make_a_game_or_a_spiel_error(params):
    try:
        game = pyspiel.load_game("tigris", params)
    except pyspiel.SpielError as e:
        assert str(e).startswith("tigris: ") and "\n" not in str(e)
        return
    assert game.num_players() == params.get("players", 2)
    assert not game.new_initial_state().is_terminal()


def test_an_unknown_parameter_is_openspiels_error():
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'player'"):
        pyspiel.load_game("tigris(player=3)")


def test_a_bad_parameter_names_it():
    with pytest.raises(pyspiel.SpielError, match="^tigris: players must be 2, 3 or 4, not 5$"):
        pyspiel.load_game("tigris(players=5)")
    with pytest.raises(pyspiel.SpielError, match="^tigris: variants: unknown variant 'chess'"):
        pyspiel.load_game("tigris(variants=english+chess)")


def test_resampling_while_tiles_are_drawn_is_refused():
    s = game_of().new_initial_state()
    s.apply_action(0)
    with pytest.raises(pyspiel.SpielError, match="resampled at a decision"):
        s.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))


# -- serialization ---------------------------------------------------------------------------

def test_a_state_serialized_and_read_back_plays_on_the_same():
    s, _ = dealt(dict(players=3, variants=("english",)), seed=10)
    rng = random.Random(10)
    for _ in range(80):
        s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()))
    for text in (pyspiel.serialize_game_and_state(s.get_game(), s),):
        game, back = pyspiel.deserialize_game_and_state(text)
        assert str(game) == str(s.get_game())
        for copy in (back, pickle.loads(pickle.dumps(s)), s.clone()):
            assert str(copy) == str(s) and copy.history() == s.history()
            assert [copy.information_state_string(p) for p in range(3)] == \
                [s.information_state_string(p) for p in range(3)]
            assert copy.legal_actions() == s.legal_actions()


def test_a_game_unpickled_makes_states():
    game = pickle.loads(pickle.dumps(game_of(players=4)))
    assert game.new_initial_state().chance_outcomes()[0] == (0, 47 / 143)
    assert len(game.deal_order) == 24


# -- tigris's bots in OpenSpiel --------------------------------------------------------------

def test_tigris_bots_play_openspiels_evaluation():
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    game = game_of(players=3)
    players = [tos.TigrisBot(bots.make("random", seed=k)) for k in range(2)]
    players.append(tos.TigrisBot(bots.make("greedy", seed=2)))
    returns = evaluate_bots(game.new_initial_state(), players, np.random.RandomState(0))
    assert sorted(returns)[-1] > 0 and sum(returns) == pytest.approx(1.0)


def test_state_of_a_position():
    g = tigris.Game(players=2, seed=11)
    g.apply(g.legal_actions()[0])
    s = tos.state_of(g)
    assert s.current_player() == g.current_player and s.legal_actions() == sorted(g.legal_actions())
    assert s.tigris_game().state_bytes() == g.state_bytes()
