"""Tigris & Euphrates as a PettingZoo environment (AEC: one agent acts at a time).

The ``pettingzoo`` extra (``pip install 'tigris-euphrates[pettingzoo]'``)::

    from tigris.interop.pettingzoo import env
    table = env(players=3)
    table.reset(seed=1)
    for agent in table.agent_iter():
        observation, reward, termination, truncation, info = table.last()
        mask = observation["action_mask"]
        table.step(None if termination or truncation else table.action_space(agent).sample(mask))

Agents ``player_0`` .. ``player_{n-1}`` are the seats; the agent to act is the one who
decides now (a defender commits support on another's turn).  An action is the core's
action id (``Discrete(3747)``; ``tigris.notation`` writes it), and ``Game.apply`` plays
it.  Each agent observes its own view (``tigris.interop.views``, the view the OpenSpiel
adapter gives): ``{"observation": float32 vector, "action_mask": int8 vector}``, the
mask all zeros but for the agent to act.  The draws are the game's own, from the seed
given to ``reset``.  At the end every agent's reward is its return, as the OpenSpiel
game's (``returns``: "first_places", 1 to the winner, 1/k each to k sharing the first
place, else 0; or "final_scores"); a game still going after ``max_turns`` turns is
truncated, rewarded as it stands.

``env(...)`` wraps the game as PettingZoo's classic games are: an illegal action ends
the game with a reward of -1 for the agent that played it; ``raw_env(...)`` refuses
it instead with an ``IllegalActionError`` naming the agent, the action and the rule.
Bad parameters raise ValueError naming them.
"""

from typing import Any

try:
    import gymnasium
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError:         # pragma: no cover - the extra is missing
    from tigris.errors import install_hint

    raise ImportError(f"the PettingZoo adapter needs PettingZoo: {install_hint('pettingzoo')}") from None

import numpy as np

from tigris import notation
from tigris._game import Game
from tigris.constants import N_ACTIONS
from tigris.errors import IllegalActionError, excerpt
from tigris.interop import views
from tigris.interop.returns import RETURNS
from tigris.interop.returns import returns as returns_of

__all__ = ["NAME", "env", "raw_env"]

#: The environment's name (PettingZoo's metadata).
NAME = "tigris_v0"


def env(**kwargs: Any) -> Any:
    """The environment wrapped as PettingZoo's classic games are (see the module): an
    ``AECEnv`` (PettingZoo ships no types, hence ``Any``); `kwargs` are ``raw_env``'s."""
    table = raw_env(**kwargs)
    table = wrappers.TerminateIllegalWrapper(table, illegal_reward=-1)
    table = wrappers.AssertOutOfBoundsWrapper(table)
    return wrappers.OrderEnforcingWrapper(table)


class raw_env(AECEnv):
    """The environment (see the module): ``players`` 2 to 4, ``board``, ``variants`` (a
    list of names), ``returns``, ``max_turns``, ``render_mode`` None or "ansi"."""

    metadata = {"render_modes": ["ansi"], "name": NAME, "is_parallelizable": False}

    def __init__(self, players=2, board="classic", variants=(), returns="first_places", max_turns=1000,
                 render_mode=None):
        super().__init__()
        self._setup = Game(players, 0, board, variants)       # the core checks them
        if returns not in RETURNS:
            raise ValueError(f"returns must be {' or '.join(RETURNS)}, not {excerpt(returns)}")
        if type(max_turns) is not int or max_turns < 1:
            raise ValueError(f"max_turns must be a whole number of turns, at least 1, not {excerpt(max_turns)}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {excerpt(render_mode)}")
        self.returns, self.max_turns, self.render_mode = returns, max_turns, render_mode
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self.agents = list(self.possible_agents)
        box = gymnasium.spaces.Box(0.0, views.HIGH, (views.SIZE,), np.float32)
        mask = gymnasium.spaces.Box(0, 1, (N_ACTIONS,), np.int8)
        self.observation_spaces = {a: gymnasium.spaces.Dict({"observation": box, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self.game = self._setup.copy()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        """A new game, its draws from `seed` (None: from fresh entropy)."""
        deal = int(np.random.default_rng(seed).integers(2**63))
        self.game = Game(self._setup.players, deal, self._setup.board, self._setup.variants)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]

    def observe(self, agent):
        p = self.possible_agents.index(agent)
        mask = np.zeros(N_ACTIONS, np.int8)
        if agent == self.agent_selection and not self.game.is_over:
            mask = views.action_mask(self.game)
        return {"observation": views.encode(self.game, p), "action_mask": mask}

    def step(self, action):
        """Play `action` (an action id) for the agent to act."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            self.game.apply(action)
        except IllegalActionError as e:
            raise IllegalActionError(f"{agent}: {e}") from None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        over, stopped = self.game.is_over, self.game.turn >= self.max_turns
        if over or stopped:
            for a, r in zip(self.possible_agents, returns_of(self.game, self.returns)):
                self.rewards[a] = r
            flags = self.terminations if over else self.truncations
            for a in self.agents:
                flags[a] = True
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
        self._accumulate_rewards()
        for a in self.agents:
            self.infos[a] = {"move": notation.public(notation.action_to_str(action)) if a != agent
                             else notation.action_to_str(action)}

    def render(self):
        """The board diagram with every hand (``str(game)``), for ``render_mode="ansi"``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make the environment with render_mode='ansi'")
            return None
        return str(self.game)

    def close(self):
        pass
