"""Baselines without a search tree: uniform random, and one-ply greedy."""

import random

from tigris._search import leaf_rewards
from tigris.bots.random_moves import RandomMoves
from tigris.constants import A_SUPPORT
from tigris.evaluator import Evaluator

__all__ = ["RandomBot", "GreedyBot"]

SUPPORT_DECISION = "support"


class SeededBot:
    """A bot whose only knob is its seed."""

    kind: str                   # each bot class names its kind
    honest = True

    def __init__(self, seed=0, name=None):
        self.name = name or self.kind
        self.params = {"seed": seed}
        self.rng = random.Random(seed)


class RandomBot(SeededBot):
    """Plays a uniformly random legal decision."""

    kind = "random"

    def choose(self, game):
        """A legal action id, uniformly at random."""
        return self.rng.choice(game.legal_actions())


class GreedyBot(SeededBot, RandomMoves):
    """One ply: tries every legal decision on a determinization of what the player to move
    cannot see (apply, evaluate, undo) and keeps the best by the evaluator the search uses
    (``tigris.evaluator``, with the weights given as knobs); ties go to the expansion prior
    (points now first, swaps and passing last).  Conflicts use a support rule rather than
    the evaluation, which cannot see a commitment pay off.  With ``random_share``, some
    decisions are a random legal move instead (``tigris.bots.random_moves``)."""

    kind = "greedy"

    def __init__(self, seed=0, name=None, evaluator="heuristic", network="", net_share=1.0,
                 random_share=0.0, **weights):
        super().__init__(seed, name)
        self.evaluator = Evaluator(**weights)
        self.params.update(self.evaluator.weights)
        self.params.update(evaluator=evaluator, network=network, net_share=net_share,
                           random_share=random_share)
        self.random_moves(random_share, seed)
        self.net_share = net_share
        from tigris.network import from_knobs      # numpy: only when a bot is made

        from_knobs(evaluator, network)              # a file that cannot serve is refused now
        self._networks = {}                         # by the number of players

    def choose(self, game):
        """The legal action id with the best evaluation one ply ahead (see the class), or
        a random one (``random_share``)."""
        legal = game.legal_actions()
        move = self.random_move(game, legal)
        if move is not None:
            return move
        if len(legal) == 1:
            return legal[0]
        if game.decision == SUPPORT_DECISION:
            return support_choice(game, legal)
        p = game.current_player
        view = game.determinize(p, self.rng.getrandbits(63))
        best, best_key = None, None
        for a in legal:
            prior = self.evaluator.prior(view, a)
            view.apply(a)
            value = self.value(view, p)
            view.undo()
            key = (round(value, 9), prior, self.rng.random())
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    def _network(self, players):
        """The network for games of `players` (None: the heuristic), read once."""
        if players not in self._networks:
            from tigris.network import from_knobs

            self._networks[players] = from_knobs(self.params["evaluator"], self.params["network"], players)
        return self._networks[players]

    def value(self, game, p):
        """How well p stands after a move, as the search judges a rollout's end
        (``tigris._search.leaf_rewards``): the evaluator's reward, or with a network p's
        chance of finishing first mixed with it by ``net_share``."""
        return leaf_rewards(game, self.evaluator.weights, self._network(game.players), self.net_share)[p]


def support_choice(game, legal):
    """A sensible commitment.  The attacker commits what beats the defender even if the
    defender commits every tile he could hold, else the least that beats the board
    strength, else nothing.  The defender commits the least that ties (ties defend),
    or nothing when he cannot reach a tie."""
    raw = game.raw_state()      # only public fields: strengths, commitments, hand sizes
    # The counts he may commit: 0 to his tiles of the colour, but in the English variant
    # only those that win (R93) or exactly tie (R94), so they need not be consecutive.
    allowed = {a - A_SUPPORT for a in legal}
    att, dfn = raw["c_att_base"], raw["c_def_base"]
    if raw["c_stage"] == 0:
        defender_could = game.hand_size(raw["c_defender"])
        for target in (dfn + defender_could + 1, dfn + 1):
            need = max(0, target - att)
            if need in allowed:
                return A_SUPPORT + need
        return A_SUPPORT
    need = att + raw["c_att_commit"] - dfn
    if need > 0 and need in allowed:
        return A_SUPPORT + need
    return A_SUPPORT
