"""Random agents through a game of the PettingZoo environment (the ``pettingzoo``
extra), each choosing among the legal actions its observation's mask gives.

    python examples/pettingzoo_random_agents.py [PLAYERS]
"""

import sys

from tigris.interop.pettingzoo import env


def play(players: int = 3, seed: int = 1) -> dict[str, float]:
    """One game of `players` random agents from `seed`; each agent's reward at the end."""
    table = env(players=players)
    table.reset(seed=seed)
    for agent in table.agents:
        table.action_space(agent).seed(seed)
    final = {}
    for agent in table.agent_iter():
        observation, reward, termination, truncation, _ = table.last()
        if termination or truncation:
            final[agent] = reward
            table.step(None)
            continue
        table.step(table.action_space(agent).sample(observation["action_mask"]))
    return final


if __name__ == "__main__":
    given = sys.argv[1] if len(sys.argv) > 1 else "3"
    if given not in ("2", "3", "4"):
        sys.exit(f"pettingzoo_random_agents.py: PLAYERS is 2, 3 or 4, not {given!r}")
    players = int(given)
    for agent, reward in sorted(play(players).items()):
        print(f"{agent}: {reward:g}")
