"""Tigris & Euphrates as an OpenSpiel game, and tigris's bots as OpenSpiel bots.

Importing this module registers the game ``"tigris"`` with OpenSpiel (the
``openspiel`` extra: ``pip install 'tigris-euphrates[openspiel]'``)::

    import pyspiel
    import tigris.interop.openspiel
    game = pyspiel.load_game("tigris", {"players": 3, "variants": "english"})

Parameters: ``players`` 2 to 4 [2]; ``board`` "classic" or "advanced" ["classic"];
``variants`` variant names joined by "+" ("english+buildings"; "" for none) [""];
``returns`` "first_places" or "final_scores" ["first_places"]; ``max_turns`` [1000],
the turns after which a game still going stops (OpenSpiel needs a bound on a game's
length; passing forever is legal in the rules, and no game played to win comes near it).

The rules are the compiled core's (``tigris.Game``): a state holds a ``Game`` and every
decision goes through it.  The draws are OpenSpiel's explicit chance nodes: the starting
deal, and every tile an action draws (a swap, the refills at the end of a turn), one
node per tile, its outcomes the colours left in the bag (outcome = colour index, red,
blue, green, black), each as likely as its share of the bag.  A decision that draws
waits for its chance nodes and is then applied with those draws (``Game.apply(action,
draws=...)``); a decision with a single option is applied with the one before it, as
``Game.apply`` does.  Player actions are the core's action ids (0..3746) and read and
write as tigris's notation ("tile red G5").

Returns, at the end: with ``returns = "first_places"`` (constant-sum, they add up to 1)
a player ranked first alone gets 1, each of k players sharing the first place 1/k, every
other player 0, as tigris's tournaments count a game; with ``"final_scores"`` (general
sum) each player's final score, the weakest colour after treasures (R88).

Imperfect information: the information state of a player is the public history (every
decision, a swap as the number of tiles, and who drew a tile) with what that player
holds now (its hand, its face-down discards, the tiles it has drawn while a draw is
under way); the order in which its own tiles came is left out, which changes nothing
it may do.  The observation is the position as the player sees it (the position
format's view; ``tigris.interop.views`` as a vector): the others' hands and discards as
counts, the bag as its size.  ``resample_from_infostate`` deals what the player cannot
see again, uniformly over the tiles it has not seen (``Game.determinize``, as tigris's
own search does).  The information-state vector is the observation vector followed by
what the public history adds to it in a fixed size (``RECALL_PIECES``): for each seat, the
tiles of each colour it has placed and the tiles of each colour it has committed to
conflicts (both public when they happen; the committed ones leave the board with the
conflict, so the position no longer shows whose they were).

``TigrisBot(bot)`` makes any tigris bot an OpenSpiel bot (``pyspiel.Bot``).
OpenSpiel's compiled bots (``pyspiel.MCTSBot``, ``pyspiel.ISMCTSBot``) crash the
interpreter on every game written in Python in open-spiel 2.0.2 (its own
``python_tic_tac_toe`` too): use the Python ones (``open_spiel.python.algorithms``),
as tigris's ``openspiel`` bot kind does.
"""

import random

import numpy as np

try:
    import pyspiel
except ImportError:         # pragma: no cover - the extra is missing
    from tigris.errors import install_hint

    raise ImportError(f"the OpenSpiel adapter needs OpenSpiel: {install_hint('openspiel')}") from None

from tigris import notation
from tigris._game import Game
from tigris.constants import (A_LEADER, A_SUPPORT, A_TILE, A_WAR, COLOURS, HAND, MAXP, N_ACTIONS, NCOL, NSQ,
                              RED, REVOLT, SUPPLY, VARIANTS)
from tigris.errors import IllegalActionError, excerpt
from tigris.interop import views
from tigris.interop.returns import RETURNS
from tigris.interop.returns import returns as returns_of

__all__ = ["NAME", "PARAMETERS", "MOVES_PER_TURN", "RECALL_PIECES", "RECALL_SIZE", "TigrisGame", "TigrisState",
           "TigrisBot", "load", "state_of", "variants_of"]

#: The game's short name in OpenSpiel.
NAME = "tigris"
#: The parameters and their defaults.
PARAMETERS = {"players": 2, "board": "classic", "variants": "", "returns": "first_places",
              "max_turns": 1000}
#: A bound on the moves of one turn, chance nodes included: two actions, each with at
#: most 3 war orders, 4 conflicts of 2 supports, a building, a monument and 10
#: treasures (24), and at most 12 tiles drawn by swaps and 4 x 6 by the refills.
MOVES_PER_TURN = 2 * 24 + 12 + 4 * 6
#: What the information-state vector adds to the view (``views.PIECES``), in order:
#: (name, shape), by seat and colour.
RECALL_PIECES = (("placed", (MAXP, NCOL)), ("committed", (MAXP, NCOL)))
#: The information-state vector's length.
RECALL_SIZE = views.SIZE + 2 * MAXP * NCOL
# Points of a colour are far below this in any game: every tile scores at most twice
# (placed, then won in a conflict), leaders once, monuments once a turn each.
_MAX_POINTS = 2 * sum(SUPPLY) + 16

_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Tigris & Euphrates",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def _refuse(reason):
    """OpenSpiel's error for a bad parameter or action, with tigris's reason."""
    return pyspiel.SpielError(f"{NAME}: {reason}")


def variants_of(text):
    """The variant names of the ``variants`` parameter ("english+buildings"); SpielError
    naming an unknown one."""
    if not isinstance(text, str):
        raise _refuse(f"variants must be a string of names joined by '+', not {excerpt(text)}")
    names = [v.strip() for v in text.split("+") if v.strip()]
    for v in names:
        if v not in VARIANTS:
            raise _refuse(f"variants: unknown variant {excerpt(v)}; variants: {', '.join(VARIANTS)}")
    return tuple(names)


class TigrisGame(pyspiel.Game):
    """The game (see the module): ``pyspiel.load_game("tigris", {...})`` makes one."""

    def __init__(self, params=None):
        params = {**PARAMETERS, **(params or {})}
        scores = self._derive(params)
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=NCOL,
            num_players=params["players"],
            min_utility=0.0,
            max_utility=float(_MAX_POINTS + 6 * self.max_turns) if scores else 1.0,
            utility_sum=None if scores else 1.0,
            max_game_length=HAND * params["players"] + MOVES_PER_TURN * self.max_turns,
        )
        super().__init__(_TYPE if not scores else _general_sum(), info, params)

    # A game unpickled by OpenSpiel is made without __init__: what it derives from its
    # parameters is derived again when first asked for.
    _DERIVED = ("setup", "board", "variants", "returns", "max_turns", "deal_order", "full_bag")

    def __getattr__(self, name):
        if name not in TigrisGame._DERIVED:
            raise AttributeError(name)
        self._derive({**PARAMETERS, **self.get_parameters()})
        return getattr(self, name)

    def _derive(self, params):
        """Check the parameters (SpielError naming the bad one) and keep what the states
        need; whether the returns are final scores."""
        players, board, returns, max_turns = (params[k] for k in ("players", "board", "returns", "max_turns"))
        variants = variants_of(params["variants"])
        try:
            setup = Game(players, 0, board, variants)       # the parameters' checks are the core's
        except ValueError as e:
            raise _refuse(e) from None
        if returns not in RETURNS:
            raise _refuse(f"returns must be {' or '.join(RETURNS)}, not {excerpt(returns)}")
        if type(max_turns) is not int or max_turns < 1:
            raise _refuse(f"max_turns must be a whole number of turns, at least 1, not {excerpt(max_turns)}")
        self.setup, self.board, self.variants = setup, board, variants
        self.returns, self.max_turns = returns, max_turns
        # the order of the starting deal, and the bag it is drawn from
        self.deal_order = [p for p, _ in setup.deal]
        raw = setup.raw_state()
        self.full_bag = [raw["bag"][c] + sum(raw["hand"][p][c] for p in range(players)) for c in range(NCOL)]
        return returns == "final_scores"

    def new_initial_state(self):
        """The state before the deal: a chance node."""
        return TigrisState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of information states (perfect recall) or observations."""
        if params:
            raise ValueError(f"{NAME}: the observer takes no parameters, not {excerpt(params)}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return _Observer(recall)


def _general_sum():
    """The game type with final scores as returns."""
    fields = {k: getattr(_TYPE, k) for k in (
        "short_name", "long_name", "dynamics", "chance_mode", "information", "reward_model",
        "max_num_players", "min_num_players", "provides_information_state_string",
        "provides_information_state_tensor", "provides_observation_string",
        "provides_observation_tensor", "parameter_specification")}
    return pyspiel.GameType(utility=pyspiel.GameType.Utility.GENERAL_SUM, **fields)


class _Play:
    """A state's own data, in one object that OpenSpiel's clone copies cheaply (the
    game without its undo history, the lists shallowly)."""

    __slots__ = ("game", "limit", "events", "dealt", "action", "drawers", "drawn", "bag", "shown")

    def __init__(self, game, limit, events, dealt, action=None, drawers=(), drawn=(), bag=(), shown=None):
        self.game = game            # tigris.Game: the position (a placeholder while dealing)
        self.limit = limit          # the turns after which the game stops (max_turns)
        self.events = events        # the public history, one line each
        self.dealt = dealt          # the starting deal so far: colours in deal order (None once dealt)
        self.action = action        # the decision waiting for its draws, or None
        self.drawers = drawers      # who draws each of its tiles
        self.drawn = drawn          # the colours drawn so far
        self.bag = bag              # the bag's colour counts now (while drawing)
        # the tiles each seat has placed and committed, by colour (RECALL_PIECES)
        self.shown = np.zeros((2, MAXP, NCOL), np.float32) if shown is None else shown

    def __deepcopy__(self, memo):
        return _Play(self.game.copy(stack=False), self.limit, list(self.events),
                     None if self.dealt is None else list(self.dealt), self.action,
                     self.drawers, list(self.drawn), list(self.bag), self.shown.copy())

    def __getstate__(self):
        return (self.game, self.limit, self.events, self.dealt, self.action, self.drawers, self.drawn,
                self.bag, self.shown)

    def __setstate__(self, data):
        (self.game, self.limit, self.events, self.dealt, self.action, self.drawers, self.drawn, self.bag,
         self.shown) = data


def _shown(game, action):
    """What deciding `action` in `game` shows every player that the position will not:
    (piece, colour, tiles) into ``_Play.shown`` (0 placed, 1 committed), or None."""
    if A_TILE <= action < A_LEADER:
        return 0, (action - A_TILE) // NSQ, 1
    if A_SUPPORT <= action < A_WAR:
        raw = game.raw_state()
        # R50: a revolt is fought with red tiles; a war with the leaders' colour
        return 1, RED if raw["c_kind"] == REVOLT else raw["c_colour"], action - A_SUPPORT
    return None


class TigrisState(pyspiel.State):
    """A state of the game (see the module)."""

    def __init__(self, game, play=None):
        super().__init__(game)
        if play is None:
            play = _Play(game.setup.copy(stack=False), game.max_turns, [], [], bag=list(game.full_bag))
        self._play = play

    @property
    def _rules(self):
        return self.get_game()

    # -- the decision at hand -------------------------------------------------------

    def current_player(self):
        """The player to decide, or chance, or terminal."""
        t = self._play
        if t.dealt is not None or t.action is not None:
            return pyspiel.PlayerId.CHANCE
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return t.game.current_player

    def is_terminal(self):
        t = self._play
        return (t.dealt is None and t.action is None
                and (t.game.is_over or t.game.turn >= t.limit))

    def _legal_actions(self, player):
        # OpenSpiel wants them ascending; the core lists them in its own order
        return sorted(self._play.game.legal_actions())

    def _drawer(self):
        """Who draws the tile of the chance node at hand."""
        t = self._play
        if t.dealt is not None:
            return self._rules.deal_order[len(t.dealt)]
        return t.drawers[len(t.drawn)]

    def chance_outcomes(self):
        """The colours in the bag, each with its share of the bag."""
        bag = self._play.bag
        total = sum(bag)
        return [(c, n / total) for c, n in enumerate(bag) if n]

    # -- playing --------------------------------------------------------------------

    def _apply_action(self, action):
        if self.is_chance_node():
            self._draw(action)
        else:
            self._decide(action)

    def _decide(self, action):
        t = self._play
        player = t.game.current_player
        shown = _shown(t.game, action)
        try:
            t.game.apply(action)
        except IllegalActionError as e:
            raise _refuse(e) from None
        if shown is not None:
            t.shown[shown[0], player, shown[1]] += shown[2]
        a, _, autos, draws = t.game.history[-1]
        t.events.append(f"{player}: {notation.public(notation.action_to_str(a))}")
        if draws:
            # The core drew them from its own stream: take the decision back, and let
            # OpenSpiel's chance nodes draw them.
            bag = t.game.raw_state()["bag"]
            for _, c in draws:
                bag[c] += 1
            t.game.undo()
            t.action, t.drawers, t.drawn, t.bag = a, tuple(p for p, _ in draws), [], bag
        else:
            t.events.extend(f"forced: {notation.action_to_str(x)}" for x in autos)

    def _draw(self, colour):
        t = self._play
        if type(colour) is not int or not 0 <= colour < NCOL or not t.bag[colour]:
            raise _refuse(f"draw {excerpt(colour)}: the bag holds "
                          + ", ".join(f"{COLOURS[c]} {n}" for c, n in enumerate(t.bag)))
        t.events.append(f"{self._drawer()} draws")
        t.bag[colour] -= 1
        if t.dealt is not None:
            t.dealt.append(colour)
            if len(t.dealt) == len(self._rules.deal_order):
                game = self._rules.setup.copy()
                game.redeal(list(zip(self._rules.deal_order, t.dealt)))
                t.game, t.dealt = game, None
            return
        t.drawn.append(colour)
        if len(t.drawn) == len(t.drawers):
            t.game.apply(t.action, draws=list(zip(t.drawers, t.drawn)))
            autos = t.game.history[-1][2]
            t.events.extend(f"forced: {notation.action_to_str(x)}" for x in autos)
            t.action, t.drawers, t.drawn, t.bag = None, (), [], []

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            if type(action) is int and 0 <= action < NCOL:
                return f"draw {COLOURS[action]}"
            raise _refuse(f"draw {excerpt(action)}: a draw is a colour index, 0 to {NCOL - 1}")
        try:
            return notation.action_to_str(action)
        except IllegalActionError as e:
            raise _refuse(e) from None

    # -- results --------------------------------------------------------------------

    def returns(self):
        """Each player's return: 0 until the end (see the module)."""
        if not self.is_terminal():
            return [0.0] * self._play.game.players
        return returns_of(self._play.game, self._rules.returns)

    # -- hidden information ---------------------------------------------------------

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state the same to `player_id` with what it cannot see dealt again: the
        others' hands and face-down discards, and the bag (``Game.determinize``)."""
        t = self._play
        if t.dealt or t.action is not None:
            raise _refuse("a state is resampled at a decision, not while tiles are drawn")
        if not isinstance(player_id, int) or not 0 <= player_id < t.game.players:
            raise _refuse(f"player {excerpt(player_id)} is not in this {t.game.players}-player game")
        clone = self.clone()
        if t.dealt is None:
            seed = int(probability_sampler() * 2**53)
            clone._play.game = t.game.determinize(player_id, seed)
        return clone

    def playout_returns(self, seed):
        """The returns at the end of a game of uniformly random decisions from here (the
        tiles still to draw drawn with their odds, the rest in compiled code,
        ``Game.random_playout``, to the game's end): a search's judge of a leaf."""
        game = self._decided(random.Random(seed))
        if not game.is_over:
            game.random_playout(seed)
        return returns_of(game, self._rules.returns)

    def _decided(self, rng):
        """A copy of the game at a decision: the draws under way finished at random."""
        t = self._play
        if t.dealt is None and t.action is None:
            return t.game.copy(stack=False)
        bag, drawn = list(t.bag), list(t.dealt if t.dealt is not None else t.drawn)
        drawers = self._rules.deal_order if t.dealt is not None else t.drawers
        while len(drawn) < len(drawers):
            c = rng.choices(range(NCOL), bag)[0]
            bag[c] -= 1
            drawn.append(c)
        if t.dealt is not None:
            game = self._rules.setup.copy()
            game.redeal(list(zip(drawers, drawn)))
            return game
        game = t.game.copy(stack=False)
        game.apply(t.action, draws=list(zip(drawers, drawn)))
        return game

    def private_lines(self, player):
        """What `player` holds that the others do not see, as lines of text."""
        t = self._play
        if t.dealt is not None:
            mine = [COLOURS[c] for p, c in zip(self._rules.deal_order, t.dealt) if p == player]
            return [f"dealt: {' '.join(mine)}"]
        raw = t.game.raw_state()
        lines = ["hand: " + " ".join(f"{COLOURS[c]} {raw['hand'][player][c]}" for c in range(NCOL)),
                 "discarded: " + " ".join(f"{COLOURS[c]} {raw['swapped'][player][c]}" for c in range(NCOL))]
        mine = [COLOURS[c] for p, c in zip(t.drawers, t.drawn) if p == player]
        if mine:
            lines.append(f"drawing: {' '.join(mine)}")
        return lines

    def tigris_game(self):
        """A copy of the position as a ``tigris.Game`` (at a decision)."""
        t = self._play
        if t.dealt is not None or t.action is not None:
            raise _refuse("a chance node is no decision: the tiles are being drawn")
        return t.game.copy()

    def __str__(self):
        t = self._play
        if t.dealt is not None:
            return "Dealing: " + ", ".join(f"player {p} {COLOURS[c]}"
                                           for p, c in zip(self._rules.deal_order, t.dealt))
        text = str(t.game)
        if t.action is not None:
            drawn = ", ".join(f"player {p} {COLOURS[c]}" for p, c in zip(t.drawers, t.drawn))
            text += (f"\nDrawing for {notation.action_to_str(t.action)}: {len(t.drawers)} tiles"
                     f"{'; drawn ' + drawn if drawn else ''}")
        return text


class _Observer:
    """OpenSpiel's observer: the view of ``tigris.interop.views`` as a vector, and as
    text the information state (with `recall`) or the observation."""

    def __init__(self, recall):
        self.recall = recall
        self.tensor = np.zeros(RECALL_SIZE if recall else views.SIZE, np.float32)
        self.dict = views.pieces(self.tensor[:views.SIZE])
        if recall:
            shown = self.tensor[views.SIZE:].reshape(2, MAXP, NCOL)
            self.dict.update((name, shown[k]) for k, (name, _) in enumerate(RECALL_PIECES))

    def set_from(self, state, player):
        t = state._play
        hand = None
        if t.dealt is not None:
            hand = [0] * NCOL
            for p, c in zip(state._rules.deal_order, t.dealt):
                if p == player:
                    hand[c] += 1
        views.encode(t.game, player, out=self.tensor[:views.SIZE], hand=hand)
        if self.recall:
            self.tensor[views.SIZE:] = t.shown.ravel()

    def string_from(self, state, player):
        t = state._play
        rules = state._rules
        head = (f"{NAME} players={t.game.players} board={rules.board} "
                f"variants={'+'.join(rules.variants)} player={player}")
        if self.recall:
            return "\n".join([head, *t.events, *state.private_lines(player)])
        view = "" if t.dealt is not None else views.view_text(t.game, player)
        return "\n".join([head, view, *state.private_lines(player)])


def load(**params):
    """The game with these parameters (``pyspiel.load_game(NAME, params)``)."""
    return pyspiel.load_game(NAME, params)


def state_of(game, rules=None):
    """An OpenSpiel state at the position of the tigris ``Game`` `game` (a copy), of
    `rules` (a TigrisGame; by default one with the game's players, board and variants).
    Its history starts there: what came before is not known to it."""
    if rules is None:
        rules = load(players=game.players, board=game.board, variants="+".join(game.variants))
    return TigrisState(rules, _Play(game.copy(stack=False), rules.max_turns, [], None))


class TigrisBot(pyspiel.Bot):
    """A tigris bot (``tigris.bots``) as an OpenSpiel bot: ``step(state)`` is the bot's
    ``choose`` of the state's position.  A bot decides from what the player to move may
    see unless ``bot.honest`` is False (``cheat``)."""

    def __init__(self, bot):
        super().__init__()
        self.bot = bot

    def step(self, state):
        return self.bot.choose(state.tigris_game())

    def restart_at(self, state):
        pass

    def inform_action(self, state, player, action):
        pass

    def provides_policy(self):
        return False


pyspiel.register_game(_TYPE, TigrisGame)
