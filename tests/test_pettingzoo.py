"""The PettingZoo environment (tigris.interop.pettingzoo): PettingZoo's API and seed
tests, each agent's honest view, rewards, and errors as PettingZoo's games give them."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pettingzoo", reason="the pettingzoo extra is not installed")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from tigris.constants import N_ACTIONS  # noqa: E402
from tigris.errors import IllegalActionError  # noqa: E402
from tigris.interop import views  # noqa: E402
from tigris.interop.pettingzoo import env, raw_env  # noqa: E402
from tigris.notation import str_to_action  # noqa: E402

from processes import ROOT, script  # noqa: E402

QUICK = settings(max_examples=60, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoos_api_test(players):
    api_test(env(players=players, variants=["english"]), num_cycles=200)


def test_pettingzoos_seed_test():
    seed_test(lambda: env(players=3), num_cycles=200)


def play_out(table, seed):
    """A whole game of random legal actions; each agent's reward at the end."""
    table.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = {}
    for agent in table.agent_iter():
        observation, reward, termination, truncation, _ = table.last()
        if termination or truncation:
            final[agent] = reward
            table.step(None)
        else:
            table.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return final


def test_a_game_pays_the_first_places():
    final = play_out(env(players=3), seed=2)
    assert sorted(final) == ["player_0", "player_1", "player_2"]
    assert sum(final.values()) == pytest.approx(1.0) and max(final.values()) > 0


def test_final_scores_and_a_truncated_game():
    table = raw_env(players=2, returns="final_scores", max_turns=2)
    final = play_out(table, seed=3)
    assert table.game.turn == 2 and not table.game.is_over
    assert final == {f"player_{p}": float(table.game.final_score(p)) for p in range(2)}


def test_the_same_seed_deals_the_same_game():
    a, b = raw_env(), raw_env()
    a.reset(seed=5), b.reset(seed=5)
    assert a.game.state_bytes() == b.game.state_bytes()
    b.reset(seed=6)
    assert a.game.state_bytes() != b.game.state_bytes()


def test_each_agent_sees_its_own_hand_and_only_the_mover_has_moves():
    table = raw_env(players=2)
    table.reset(seed=7)
    mover = table.agent_selection
    other = next(a for a in table.agents if a != mover)
    mine, theirs = table.observe(mover), table.observe(other)
    assert mine["action_mask"].sum() == len(table.game.legal_actions()) and theirs["action_mask"].sum() == 0
    seat = table.possible_agents.index(other)
    pieces = views.pieces(theirs["observation"])
    assert list(pieces["players"][seat][:4]) == list(table.game.hand(seat).values())
    assert list(pieces["players"][1 - seat][:4]) == [0, 0, 0, 0]
    # what it cannot see changes nothing of its observation
    hidden = table.game.determinize(seat, 1)
    assert np.array_equal(views.encode(hidden, seat), theirs["observation"])
    assert not np.array_equal(views.encode(hidden, 1 - seat), mine["observation"])


def test_the_raw_environment_refuses_an_illegal_action_with_the_reason():
    table = raw_env()
    table.reset(seed=8)
    before = table.game.state_bytes()
    with pytest.raises(IllegalActionError, match=r"^player_0: tile red E1: only blue tiles .+ \(R29\)$"):
        table.step(str_to_action("tile red E1"))
    assert table.game.state_bytes() == before


def test_the_wrapped_environment_ends_the_game_on_an_illegal_action():
    table = env()
    table.reset(seed=8)
    mask = table.observe("player_0")["action_mask"]
    table.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(table.terminations.values())
    assert table.last()[1] in (0, -1)


@QUICK
@given(st.integers(0, N_ACTIONS - 1))
def test_any_action_is_played_or_refused(action):
    table = raw_env(players=3)
    table.reset(seed=9)
    legal = action in table.game.legal_actions()
    try:
        table.step(action)
    except IllegalActionError as e:
        assert not legal and str(e).startswith("player_0: ") and "\n" not in str(e)
    else:
        assert legal


@QUICK
@given(st.fixed_dictionaries({}, optional={
    "players": st.integers(0, 6), "board": st.sampled_from(["classic", "advanced", "x"]),
    "variants": st.sampled_from([[], ["english"], ["chess"], "buildings"]),
    "returns": st.sampled_from(["first_places", "final_scores", "x"]), "max_turns": st.integers(-1, 2),
    "render_mode": st.sampled_from([None, "ansi", "human"])}))
def test_any_parameters_make_an_environment_or_a_value_error(params):
    try:
        table = raw_env(**params)
    except ValueError as e:
        assert "\n" not in str(e)
        return
    table.reset(seed=0)
    assert len(table.agents) == params.get("players", 2)


def test_the_example_steps_random_agents_through_a_game(tmp_path):
    done = script(ROOT / "examples" / "pettingzoo_random_agents.py", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rewards = dict(line.split(": ") for line in done.stdout.splitlines())
    assert sorted(rewards) == ["player_0", "player_1"] and sum(map(float, rewards.values())) == 1.0
    bad = script(ROOT / "examples" / "pettingzoo_random_agents.py", "five", cwd=tmp_path)
    assert bad.returncode == 1 and "PLAYERS is 2, 3 or 4" in bad.stderr and "Traceback" not in bad.stderr
