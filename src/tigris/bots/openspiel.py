"""The ``openspiel`` bot kind: OpenSpiel's searches playing the game through the
OpenSpiel adapter (``tigris.interop.openspiel``; the ``openspiel`` extra).

``algorithm = "ismcts"``: OpenSpiel's IS-MCTS (``open_spiel.python.algorithms.ismcts``),
its tree over information states, every simulation from a world
``resample_from_infostate`` deals; the budget ``iterations`` simulations or ``seconds``.
``algorithm = "mcts"``: OpenSpiel's MCTS (``open_spiel.python.algorithms.mcts``) on
``determinizations`` worlds dealt from what the player cannot see, the iterations shared
out over them and their root visits added; the most visited move is played.  Each new
leaf is judged by ``rollouts`` uniformly random playouts to the end in compiled code
(the policy of OpenSpiel's random-rollout evaluator, far faster), worth the game's
returns (first places).  Honest: the search starts from a determinization of the game
for the player to move, so it never holds the real hidden tiles.

OpenSpiel's compiled searches (``pyspiel.ISMCTSBot``, ``pyspiel.MCTSBot``) crash the
interpreter on games written in Python (open-spiel 2.0.2), so the Python ones are used.
"""

import random
import time

from tigris.errors import ConfigError, install_hint

__all__ = ["OpenSpielBot"]


def _adapter():
    """tigris.interop.openspiel, or a ConfigError saying which extra to install."""
    try:
        from tigris.interop import openspiel
    except ImportError:
        raise ConfigError(f"kind = \"openspiel\" needs OpenSpiel: {install_hint('openspiel')}") from None
    return openspiel


class OpenSpielBot:
    """OpenSpiel's IS-MCTS or MCTS as a tigris bot (see the module)."""

    kind = "openspiel"
    honest = True

    def __init__(self, name=None, algorithm="ismcts", iterations=1000, seconds=None, exploration=0.7,
                 rollouts=1, determinizations=8, seed=0):
        _adapter()                           # refused now, not at the first move
        self.name = name or self.kind
        self.params = {"algorithm": algorithm, "iterations": iterations, "seconds": seconds,
                       "exploration": exploration, "rollouts": rollouts,
                       "determinizations": determinizations, "seed": seed}
        self.rng = random.Random(seed)
        self._games = {}                     # the OpenSpiel game of each setup, made once

    def choose(self, game):
        """The action id OpenSpiel's search plays for ``game.current_player``."""
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        openspiel = _adapter()
        key = (game.players, game.board, game.variants)
        if key not in self._games:
            self._games[key] = openspiel.load(players=game.players, board=game.board,
                                              variants="+".join(game.variants))
        rules = self._games[key]
        world = game.determinize(game.current_player, self.rng.getrandbits(63))
        state = openspiel.state_of(world, rules)
        if self.params["algorithm"] == "mcts":
            return self._mcts(rules, state)
        return self._ismcts(rules, state)

    def _evaluator(self, np_rng):
        from open_spiel.python.algorithms import mcts

        rollouts = self.params["rollouts"]

        class Playouts(mcts.Evaluator):
            """Each leaf's value: the mean returns of random playouts in compiled code."""

            def evaluate(self, state):
                total = None
                for _ in range(rollouts):
                    r = state.playout_returns(int(np_rng.integers(2**63)))
                    total = r if total is None else [a + b for a, b in zip(total, r)]
                return [v / rollouts for v in total]

            def prior(self, state):
                if state.is_chance_node():
                    return state.chance_outcomes()
                legal = state.legal_actions()
                return [(a, 1.0 / len(legal)) for a in legal]

        return Playouts()

    def _ismcts(self, rules, state):
        import numpy as np
        from open_spiel.python.algorithms import ismcts

        seed = self.rng.getrandbits(32)
        search = ismcts.ISMCTSBot(rules, self._evaluator(np.random.default_rng(seed)),
                                  self.params["exploration"], 1,
                                  random_state=np.random.RandomState(seed))
        # OpenSpiel's loop (run_search) counts simulations only: this one also keeps time.
        search.reset()
        root = search.create_new_node(state)
        iterations, seconds = self.params["iterations"], self.params["seconds"]
        deadline = time.monotonic() + seconds if seconds else None
        done = 0
        while (iterations is None or done < iterations) and (deadline is None or time.monotonic() < deadline
                                                             or done == 0):
            search.run_simulation(search.sample_root_state(state))
            done += 1
        return self._most_visited({a: c.visits for a, c in root.child_info.items()}, state)

    def _mcts(self, rules, state):
        import numpy as np
        from open_spiel.python.algorithms import mcts

        k = self.params["determinizations"]
        visits = {}
        for i in range(k):
            share = max(1, self.params["iterations"] * (i + 1) // k - self.params["iterations"] * i // k)
            seed = self.rng.getrandbits(32)
            world = state.resample_from_infostate(state.current_player(), self.rng.random)
            search = mcts.MCTSBot(rules, self.params["exploration"], share,
                                  self._evaluator(np.random.default_rng(seed)), solve=False,
                                  random_state=np.random.RandomState(seed))
            for child in search.mcts_search(world).children:
                visits[child.action] = visits.get(child.action, 0) + child.explore_count
        return self._most_visited(visits, state)

    def _most_visited(self, visits, state):
        """The most visited legal action (ties at random); any legal one if none was."""
        legal = state.legal_actions()
        best = max((visits.get(a, 0) for a in legal), default=0)
        return self.rng.choice([a for a in legal if visits.get(a, 0) == best])
