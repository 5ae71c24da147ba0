"""A player's belief about the tiles it cannot see, from what the others' play reveals.

Every determinization of the plain search (an assignment of the tiles the searching
player cannot see) deals the unseen tiles uniformly.  A belief weighs the
determinizations by the game's history as the searching player saw it: a particle
filter whose particles are whole worlds, each replaying the public moves from a deal of
the first hands that agrees with what the player saw then.

- **Hard constraints.**  A particle must be able to make every observed move: a tile
  placed face up was in its player's hand, a support of N tiles needs N tiles of the
  colour, an engine-played follow-up (a forced "support 0" of a defender without tiles)
  must be forced in the particle too, and the tiles the player drew itself must have
  been in the particle's bag.  A particle that cannot is dropped (weight 0).
- **Soft evidence.**  Each other player's move is weighed by its probability under a
  cheap policy model (``move_likelihood``): the player picks a kind of move by a softmax
  at ``temperature`` over the search's priors of the kinds it has (a tile that scores at
  once, a leader, another tile, a catastrophe, a swap, a pass...), the square within a
  kind telling nothing.  A player who could score a red point and played something
  else makes the worlds where it held red less likely.  (A softmax over every legal
  move instead would favour hands of few colours, which have fewer moves, whatever was
  played.)  A face-down swap is seen by its size only: the particle picks its colours
  uniformly among its own swaps of that size.
- **Resampling.**  After each move the weights are normalised; when the effective
  number of particles falls below half, they are drawn again by weight (systematic
  resampling).  If every particle is dropped (the model was wrong somewhere), the
  belief starts again from uniform determinizations of the current position and counts a
  reset.

Honest by construction: ``observations`` is the only reader of the game's history and
returns what the player saw (the moves, a swap's size, the player's own draws, the
engine's follow-ups); the first hands are dealt by ``Game.determinize`` for the player.
Two games that differ only in tiles the player never saw give the same observations
and, with the same seed, the same belief.  A game without a complete history (loaded
from a position) has none to learn from: ``determinizations`` returns None and the
search deals uniformly.  (A deal is a game's starting tiles; ``deals``, this method's
former name, is an alias.)

>>> import tigris
>>> from tigris.belief import Belief
>>> from tigris import bots
>>> game, bot = tigris.Game(players=2, seed=3), bots.make("random", seed=2)
>>> for _ in range(8):
...     game.apply(bot.choose(game))
>>> belief = Belief(player=0, particles=64, temperature=1.0, seed=1)
>>> belief = belief.update(game)         # the history so far, as player 0 saw it
>>> rows, weights = belief.determinizations()   # for tigris.search.Search(..., determinizations=...)
>>> len(rows) == len(weights) and 0 < len(rows) <= 64   # the particles of weight > 0
True
>>> shares = belief.colour_shares(1)     # expected share of each colour in player 1's hand
>>> round(sum(shares), 6)
1.0
"""

import math
import random

from tigris._plumbing import renamed
from tigris.constants import A_SWAP, N_SWAPS, SWAPS
from tigris.evaluator import Evaluator
from tigris.knobs import KNOBS
from tigris.search import determinization_row

__all__ = ["Belief", "observations", "move_likelihood"]

# The bots' knobs belief_particles and belief_temperature, at their defaults.
PARTICLES = KNOBS["belief_particles"].default
TEMPERATURE = KNOBS["belief_temperature"].default


def observations(game, player):
    """The game's history as `player` saw it: per decision ``(move, mover, forced,
    draws)``: the action id (for another player's face-down swap, ``("swap", size)``),
    the player who decided, the engine's follow-up action ids, and the draws in their
    order as (player, colour), another player's colour unseen: (player, None)."""
    seen = []
    for action, mover, forced, draws in game.history:
        if mover != player and _is_swap(action):
            move = ("swap", _swap_size(action))
        else:
            move = action
        seen.append((move, mover, tuple(forced),
                     tuple((q, c if q == player else None) for q, c in draws)))
    return seen


def _is_swap(action):
    return A_SWAP <= action < A_SWAP + N_SWAPS


def _swap_size(action):
    return sum(SWAPS[action - A_SWAP])


class Belief:
    """Particles over the worlds `player` cannot tell apart, weighted by the others'
    play (see the module docstring).  Feed it the game with ``update`` before each use."""

    def __init__(self, player, particles=PARTICLES, temperature=TEMPERATURE, seed=0,
                 evaluator=None):
        self.player = player
        self.particles = particles
        self.temperature = temperature
        self.rng = random.Random(seed)
        self.seed = seed
        self.evaluator = evaluator or Evaluator()
        self.worlds = []          # the particles: Games at the current point
        self.weights = []         # their normalised weights
        self.seen = []            # the observations taken in so far
        self.start = None         # the player's view of the first position
        self.resets = 0           # times every particle was dropped
        self.usable = False       # False: no history to learn from; determinize uniformly

    # ----------------------------------------------------------------------------------
    # Keeping up with the game
    # ----------------------------------------------------------------------------------

    def update(self, game):
        """Take in the decisions made since the last update (or start afresh if the
        game is another one, or was taken back)."""
        if not game.history_complete:
            self.usable = False
            return self
        seen = observations(game, self.player)
        start = _first_position(game, self.player)
        if start != self.start or seen[:len(self.seen)] != self.seen:
            self._restart(game, start)
        for k in range(len(self.seen), len(seen)):
            self._observe(seen[k], lambda: _after(game, k + 1))
            self.seen.append(seen[k])
        self.usable = True
        return self

    def _restart(self, game, start):
        first = _after(game, 0)
        self.rng = random.Random(self.seed)
        self.worlds = [first.determinize(self.player, self.rng.getrandbits(63))
                       for _ in range(self.particles)]
        self.weights = [1.0 / self.particles] * self.particles
        self.seen = []
        self.start = start
        self.resets = 0

    def _observe(self, observation, reached):
        """One decision: every particle makes it (or is dropped), weighed by the model.
        `reached()` is the game after it, for a reset."""
        move, mover, forced, draws = observation
        likelihood = [0.0] * len(self.worlds)
        for k, world in enumerate(self.worlds):
            if self.weights[k] > 0:
                likelihood[k] = self._replay(world, move, mover, forced, draws)
        weights = [w * l for w, l in zip(self.weights, likelihood)]
        total = sum(weights)
        if total <= 0 or not math.isfinite(total):
            # Nothing explains the move: start again from uniform determinizations of
            # the position reached (what the player sees of it, nothing more).
            self.resets += 1
            now = reached()
            self.worlds = [now.determinize(self.player, self.rng.getrandbits(63))
                           for _ in range(self.particles)]
            self.weights = [1.0 / self.particles] * self.particles
            return
        self.weights = [w / total for w in weights]
        if 1.0 / sum(w * w for w in self.weights) < self.particles / 2:
            self._resample()

    def _replay(self, world, move, mover, forced, draws):
        """Make the observed decision in one particle; its likelihood there (0: the
        particle cannot have seen it)."""
        if world.is_over or world.current_player != mover:
            return 0.0
        if mover == self.player:
            action, likelihood = move, 1.0          # the player knows its own moves
        else:
            actions, priors = self.evaluator.priors(world)
            if isinstance(move, tuple):             # a face-down swap of this many tiles
                swaps = [k for k, a in enumerate(actions)
                         if _is_swap(a) and _swap_size(a) == move[1]]
                if not swaps:
                    return 0.0
                k = swaps[self.rng.randrange(len(swaps))]
            else:
                k = next((k for k, a in enumerate(actions) if a == move), None)
                if k is None:
                    return 0.0
            action = actions[k]
            likelihood = move_likelihood(priors, priors[k], self.temperature)
        try:
            world.apply(action, draws=self._draws(world, draws))
        except ValueError:                          # illegal here, or the bag lacks the tiles
            return 0.0
        if tuple(world.history[-1][2]) != forced:
            return 0.0
        return likelihood

    def _draws(self, world, draws):
        """The draws of a decision in a particle: the player's own as they were, the
        others' drawn from what the particle's bag holds besides."""
        if not draws:
            return []
        bag = list(world.raw_state()["bag"])
        for q, c in draws:
            if c is not None:
                bag[c] -= 1
        if min(bag) < 0:
            raise ValueError("the particle's bag lacks the player's draws")
        out = []
        for q, c in draws:
            if c is None:
                total = sum(bag)
                if total <= 0:
                    raise ValueError("the particle's bag is empty")
                u, c = self.rng.random() * total, 0
                while c < 3 and u >= bag[c]:
                    u -= bag[c]
                    c += 1
                bag[c] -= 1
            out.append((q, c))
        return out

    def _resample(self):
        """Systematic resampling: particles drawn again by weight, equally weighted."""
        n = self.particles
        cumulative, total = [], 0.0
        for w in self.weights:
            total += w
            cumulative.append(total)
        u, k, chosen = self.rng.random() / n, 0, []
        for i in range(n):
            target = u + i / n
            while k < n - 1 and cumulative[k] < target:
                k += 1
            chosen.append(k)
        worlds, taken = [], set()
        for k in chosen:
            # the first draw of a particle keeps it; the others are copies of it, with
            # their history (a test takes a particle back to a decision it saw)
            worlds.append(self.worlds[k] if k not in taken else self.worlds[k].copy())
            taken.add(k)
        self.worlds = worlds
        self.weights = [1.0 / n] * n

    # ----------------------------------------------------------------------------------
    # What the search draws from
    # ----------------------------------------------------------------------------------

    def determinizations(self):
        """The particles' determinizations (their hidden tiles, a row each:
        ``tigris.search.determinization_row``) and weights, ``(rows, weights)`` for
        ``tigris.search.Search(..., determinizations=...)``; None when the belief is not
        usable (a game without its history)."""
        if not self.usable:
            return None
        live = [(w, world) for w, world in zip(self.weights, self.worlds) if w > 0]
        return [determinization_row(world) for _, world in live], [w for w, _ in live]

    def deals(self):
        """The former name of ``determinizations`` (a deal is a game's starting tiles):
        deprecated since 2.1, removed in 2.2."""
        renamed.warn("Belief.deals", "use Belief.determinizations")
        return self.determinizations()

    def world(self, rng):
        """One particle's world, drawn by weight (a copy: the search may play on it)."""
        k = rng.choices(range(len(self.worlds)), weights=self.weights)[0]
        return self.worlds[k].copy(stack=False)

    def colour_shares(self, other):
        """The expected share of each colour (red, blue, green, black) in player
        `other`'s hand under the belief."""
        shares = [0.0] * 4
        for w, world in zip(self.weights, self.worlds):
            hand = world.raw_state()["hand"][other]
            size = sum(hand)
            if size:
                for c in range(4):
                    shares[c] += w * hand[c] / size
        return shares


def move_likelihood(priors, chosen, temperature):
    """The policy model's probability of choosing a move of prior `chosen` where the
    legal moves have these `priors`: a softmax at `temperature` over the distinct
    priors (the kinds of move at hand)."""
    kinds = set(priors)
    top = max(kinds)
    return math.exp((chosen - top) / temperature) / sum(math.exp((v - top) / temperature)
                                                       for v in kinds)


def _after(game, n):
    """The game after its first `n` decisions (a copy)."""
    g = game.copy()
    while len(g.history) > n:
        g.undo()
    return g


def _first_position(game, player):
    """What `player` saw of the game's first position (a key: another game, or another
    seat, starts the belief afresh)."""
    return repr(_after(game, 0).to_position(player=player))


# ---------------------------------------------------------------------------------------
# Measuring the model and the belief on recorded games
# ---------------------------------------------------------------------------------------

def fit_temperature(records, temperatures=(0.25, 0.5, 1.0, 2.0, 4.0, 8.0), evaluator=None):
    """The policy model's mean log-likelihood of the recorded decisions (the true states,
    every decision with a choice) at each temperature: ``{temperature: mean}``, the best
    the largest."""
    from tigris import record as records_

    evaluator = evaluator or Evaluator()
    cases = []
    for rec in records:
        for n, game in records_.steps(rec):
            if n < len(rec["moves"]):
                actions, priors = evaluator.priors(game)
                if len(actions) > 1:
                    played = game.parse_action(rec["moves"][n]["move"])
                    cases.append((priors, priors[actions.index(played)]))
    return {t: sum(math.log(move_likelihood(p, c, t)) for p, c in cases) / max(1, len(cases))
            for t in temperatures}


def accuracy(rec, player, every=8, particles=PARTICLES, temperature=TEMPERATURE, seed=0):
    """How well `player`'s belief knows the other hands along a recorded game: at every
    `every`-th decision of the player, the mean probability the belief gives the colour
    of a tile truly in another hand (its expected share of that colour), beside the same
    for a uniform determinization (the unseen tiles' shares).  Returns ``(belief, uniform,
    positions)``, the means over the positions and the other players."""
    from tigris import record as records_

    belief = Belief(player, particles=particles, temperature=temperature, seed=seed)
    scores, uniform, decisions = [], [], 0
    for n, game in records_.steps(rec):
        if game.is_over or game.current_player != player:
            continue
        decisions += 1
        if decisions % every:
            continue
        belief.update(game)
        raw = game.raw_state()
        pool = [raw["bag"][c] + sum(raw["hand"][q][c] + raw["swapped"][q][c]
                                    for q in range(game.players) if q != player) for c in range(4)]
        for q in range(game.players):
            hand = raw["hand"][q]
            if q == player or not sum(hand):
                continue
            shares = belief.colour_shares(q)
            scores.append(sum(hand[c] * shares[c] for c in range(4)) / sum(hand))
            uniform.append(sum(hand[c] * pool[c] for c in range(4)) / sum(hand) / sum(pool))
    if not scores:
        return None, None, 0
    return sum(scores) / len(scores), sum(uniform) / len(uniform), len(scores)
