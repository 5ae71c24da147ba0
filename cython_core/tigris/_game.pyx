# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The Python face of the game core: a thin wrapper around the C state.

Rules live in _core.pyx; notation, positions, records and rendering live in the pure
Python modules of the package.  This class only moves data across the boundary.

Layers: at its own import this module imports only what lies below it (the core,
constants, notation, errors, boards).  Positions, the diagram and the reasons for a
refusal read a game through its public state interface (``raw_state``, ``regions``) from
the modules above it; ``Game.from_position``, ``to_position``, ``str(game)`` and the
messages of ``apply`` import them inside the method, when called: by then the package is
loaded, so importing this module loads nothing above it and no import cycle can form.
"""

import operator

from libc.string cimport memcpy
from libc.stdlib cimport realloc
from libc.stdint cimport uint8_t, int32_t, uint64_t

from tigris._core cimport *
from tigris._core cimport determinize as c_determinize, random_playout as c_random_playout

cdef extern from "Python.h":
    bint PyLong_CheckExact(object o)
    long long PyLong_AsLongLongAndOverflow(object o, int* overflow) except? -1

from tigris.errors import IllegalActionError, excerpt
from tigris.boards import BOARD_NAMES
from tigris import notation
from tigris.constants import COLOURS, DECISIONS, VARIANTS

# Why the core stopped a game it found inconsistent (State.error; see _core.pxd).
STATE_ERRORS = {
    ERR_WAR: "no two leaders of the war's colour stand on two sides of the unification "
             "tile (R56, R60)",
    ERR_CONFLICT: "a leader of the conflict is not on the board",
    ERR_TRADER: "the treasure decision names no trader on the board",
    ERR_STUCK: "a decision has no legal option",
}


def _whole(v, what):
    """v as a Python int: ints and numpy integers, never a bool or a float."""
    if type(v) is int:
        return v
    try:
        if isinstance(v, (bool, str)):
            raise TypeError
        return operator.index(v)
    except TypeError:
        raise ValueError(f"{what} must be a whole number, not {excerpt(v)}") from None


cdef inline int _fast_id(a):
    """A plain int in the action space as a C int, else -1 (the caller then asks
    notation.action_id, which accepts numpy integers and explains a refusal)."""
    cdef int overflow = 0
    cdef long long v
    if not PyLong_CheckExact(a):
        return -1
    v = PyLong_AsLongLongAndOverflow(a, &overflow)
    if overflow or v < 0 or v >= N_ACTIONS:
        return -1
    return <int>v


cdef uint64_t _seed64(seed) except? 0:
    return (<uint64_t>(_whole(seed, "seed") & 0xFFFFFFFFFFFFFFFF)) ^ <uint64_t>0x5DEECE66D


cdef class Game:
    """A game of Tigris & Euphrates: ``players`` 2 to 4, ``seed`` any int (the bag's
    draws), ``board`` "classic" or "advanced", ``variants`` a list of "english" and
    "buildings".  ``seed`` stays readable as ``game.seed``.

    >>> import tigris
    >>> g = tigris.Game(players=2, seed=7)
    >>> g.apply("tile red A1")
    >>> g.actions_left
    1
    >>> g.undo()
    >>> g.actions_left
    2
    """

    # Attributes are declared in src/tigris/_game.pxd, so the search can reach the state.

    def __cinit__(self):
        aux_init(&self.aux)
        self.s.aux = &self.aux
        self._log = []
        self._deal = []
        self._complete = False
        self._unknown = _NOTHING_UNKNOWN

    def __dealloc__(self):
        aux_free(&self.aux)

    def __init__(self, players=2, seed=0, board="classic", variants=()):
        players = _check_setup(players, board)
        bits = _variant_bits(variants)
        self.seed = _whole(seed, "seed")
        new_game(&self.s, players, BOARD_NAMES.index(board), bits, _seed64(self.seed))
        self._deal = self._take_draws()
        self.aux.ntrail = 0     # the deal is not undoable
        self._complete = True

    @staticmethod
    def _blank(players, board="classic", variants=()):
        """A game with an empty, unvalidated state, for unpickling to fill in."""
        cdef Game g = Game.__new__(Game)
        players = _check_setup(players, board)
        bits = _variant_bits(variants)
        g.seed = None
        new_game(&g.s, players, BOARD_NAMES.index(board), bits, 0)
        g._deal = []
        g.aux.ntrail = 0
        g.aux.ndraw = 0
        return g

    def copy(self, stack=True):
        """An independent copy.  With ``stack=False`` the copy cannot undo past this point
        and keeps no move log (the fast path for search)."""
        cdef Game g = Game.__new__(Game)
        copy_state(&g.s, &self.s)
        g.s.aux = &g.aux
        g.seed = self.seed
        g._unknown = self._unknown
        if stack:
            aux_copy(&g.aux, &self.aux)
            g._log = list(self._log)
            g._deal = list(self._deal)
            g._complete = self._complete
        return g

    def __reduce__(self):
        # Pickling (for worker processes) keeps the state, not the undo history.
        return (_unpickle, (self.raw_state(), self.seed, self.board, self.variants,
                            self._unknown))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # -- the decision at hand -------------------------------------------------------

    @property
    def players(self):
        """The number of players, 2 to 4."""
        return self.s.nplayers

    @property
    def board(self):
        """The board side: "classic" or "advanced"."""
        return BOARD_NAMES[self.s.board]

    @property
    def variants(self):
        """The variants in play, a tuple of names ("english", "buildings")."""
        return tuple(name for name, bit in VARIANTS.items() if self.s.variants & bit)

    @property
    def current_player(self):
        """The player who must decide now (a defender commits support on another's turn)."""
        return current_player(&self.s)

    @property
    def active_player(self):
        """The player whose turn it is."""
        return self.s.active

    @property
    def decision(self):
        """The decision at hand: action, support, war_order, monument, treasure, building
        or over."""
        return DECISIONS[self.s.phase]

    @property
    def actions_left(self):
        """The active player's actions not yet begun this turn: 2, 1, or 0 while the
        second is being resolved."""
        return self.s.actions_left

    @property
    def is_over(self):
        """Whether the game has ended (R83, R84)."""
        return self.s.phase == PH_OVER

    @property
    def turn(self):
        """Turns completed since the start (stops at 65535)."""
        return self.s.turn

    def legal_actions(self):
        """The ids of the legal actions of the decision at hand, in the order the rules
        code lists them (the same order for the same position; not sorted: sort them
        where an order is required, as the OpenSpiel adapter does); ``action_str``
        writes them."""
        cdef int32_t buf[N_ACTIONS]
        cdef int n = legal_actions(&self.s, buf)
        return [buf[i] for i in range(n)]

    def is_legal(self, a):
        """Whether action id ``a`` is legal now.  A value that is no action id at all (not
        an int, or outside 0..3746) raises IllegalActionError."""
        cdef int k = _fast_id(a)
        return self._legal(k if k >= 0 else notation.action_id(a))

    cdef bint _legal(self, int a):
        cdef int32_t buf[N_ACTIONS]
        cdef int n = legal_actions(&self.s, buf)
        cdef int i
        for i in range(n):
            if buf[i] == a:
                return True
        return False

    # -- notation --------------------------------------------------------------------

    def action_str(self, a):
        """The notation of an action id, e.g. ``"tile red G5"``."""
        return notation.action_to_str(a)

    def parse_action(self, text):
        """The id of a legal action written in notation; raises IllegalActionError naming
        the reason when it is malformed or illegal now."""
        a = notation.str_to_action(text)
        if not self._legal(a):
            self._refuse(a)
        return a

    cdef _refuse(self, int a):
        from tigris.legality import why_illegal     # above this module: see the docstring
        raise IllegalActionError(f"{notation.action_to_str(a)}: {why_illegal(self, a)}")

    # -- playing ----------------------------------------------------------------------

    def apply(self, action, draws=None):
        """Apply an action (id or notation).  Decisions that then have a single option
        are applied too; ``undo()`` takes them back together.

        ``draws`` replays a record: the (player, colour) pairs of the tiles this apply
        draws, used instead of the game's random draws.  ValueError, with nothing
        applied, if they are not what the action draws or not in the bag."""
        cdef int a
        if isinstance(action, str):
            a = self.parse_action(action)
        else:
            a = _fast_id(action)
            if a < 0:
                a = notation.action_id(action)
            if not self._legal(a):
                self._refuse(a)
        if draws is not None:
            self._apply_drawing(a, draws)
        else:
            self._apply(a)

    cdef _apply(self, int a):
        player = current_player(&self.s)
        push_mark(&self.s)
        self.aux.nauto = 0
        self.aux.ndraw = 0
        apply_with_forced(&self.s, a)
        if self.s.error:
            # Only a corrupt loaded state gets here; nothing stays applied.
            error = self.s.error
            undo_to_mark(&self.s)
            self.aux.ndraw = 0
            raise IllegalActionError(f"{notation.action_to_str(a)}: cannot be carried out, the "
                                     f"game state is inconsistent: {STATE_ERRORS[error]}")
        autos = [self.aux.autolog[i] for i in range(self.aux.nauto)]
        self._log.append((a, player, autos, self._take_draws()))

    def undo(self):
        """Back to exactly the state before the last ``apply``."""
        if not undo_to_mark(&self.s):
            raise IndexError("nothing to undo")
        self._log.pop()

    def _take_draws(self):
        """The draws logged since the last call, as (player, colour) pairs."""
        draws = [(self.aux.drawlog[i] >> 2, self.aux.drawlog[i] & 3) for i in range(self.aux.ndraw)]
        self.aux.ndraw = 0
        return draws

    cdef _apply_drawing(self, int a, draws):
        """Apply the legal action ``a`` with its tile draws given (see apply)."""
        cdef int i
        draws = [_draw(d) for d in draws]
        colours = [c for _, c in draws]
        self.aux.forced = <uint8_t*>_realloc_bytes(self.aux.forced, len(colours))
        for i in range(len(colours)):
            self.aux.forced[i] = colours[i]
        self.aux.nforced = len(colours)
        self.aux.iforced = 0
        self.aux.forced_error = 0
        try:
            self._apply(a)
            error = self.aux.forced_error
            used = self.aux.iforced
            made = self._log[len(self._log) - 1][3]
        finally:
            self.aux.nforced = 0
            self.aux.iforced = 0
        if error or used != len(colours) or draws != made:
            self.undo()
            if error:
                raise ValueError("a recorded draw is not in the bag")
            raise ValueError(f"the record gives {len(colours)} draws where the game makes {len(made)}"
                             if used != len(colours) or len(made) != len(colours)
                             else "the recorded draws go to other players than the game's")

    @property
    def history(self):
        """Every apply so far as (action, player, forced follow-ups, draws)."""
        return list(self._log)

    def redeal(self, deal):
        """Deal the starting hands again as ``deal`` gives them: (player, colour) pairs in
        the order drawn, as a record stores them, instead of the deal the seed made (every
        hand goes back to the bag first).  Only before the first apply.  ValueError, with
        nothing changed, if a draw names no player of this game or a colour the bag has
        run out of, or if a hand does not come to 6 tiles."""
        if self._log or not self._complete:
            raise ValueError("only a game just set up is dealt again")
        raw = self.raw_state()
        n = raw["players"]
        for p in range(n):
            for c in range(NCOL):
                raw["bag"][c] += raw["hand"][p][c]
                raw["hand"][p][c] = 0
        deal = [_draw(d) for d in deal]
        for p, c in deal:
            if not 0 <= p < n:
                raise ValueError(f"player {excerpt(p)} is not in this game")
            if raw["bag"][c] == 0:
                raise ValueError(f"no {COLOURS[c]} tile left to deal")
            raw["bag"][c] -= 1
            raw["hand"][p][c] += 1
        for p in range(n):
            if sum(raw["hand"][p]) != HAND:
                raise ValueError(f"player {p} is dealt {sum(raw['hand'][p])} tiles, not {HAND}")
        seed = self.seed
        self.load_raw_state(raw)
        self.seed = seed
        self._deal = deal
        self._complete = True

    @property
    def history_complete(self):
        """True when ``deal`` and ``history`` replay this game from its setup: a game made
        with ``Game(...)`` or replayed from a record, and its copies with their history.
        False for a game loaded from a position or unpickled, a ``copy(stack=False)``, a
        determinization and a game after ``random_playout``: its record would not replay."""
        return self._complete

    @property
    def unknown(self):
        """What the position this game was loaded from left unknown, and the loader dealt at
        random: ``{"hands": [players], "swapped_colours": [players], "bag": bool}`` (all
        empty for a game that knows everything)."""
        hands, swapped, bag = self._unknown
        return {"hands": sorted(hands), "swapped_colours": sorted(swapped), "bag": bag}

    def _set_unknown(self, hands=(), swapped=(), bag=False):
        hands, swapped = frozenset(hands), frozenset(swapped)
        for p in hands | swapped:
            self._check_player(p)
        self._unknown = (hands, swapped, bool(bag))

    @property
    def deal(self):
        """The draws of the initial deal, as (player, colour) pairs."""
        return list(self._deal)

    # -- results ----------------------------------------------------------------------

    def score(self, p):
        """Player p's points by colour, with "treasures": {"red": 3, ..., "treasures": 1}."""
        p = self._check_player(p)
        d = {COLOURS[c]: self.s.score[p][c] for c in range(NCOL)}
        d["treasures"] = self.s.treasures[p]
        return d

    def hand(self, p):
        """The colours in player p's hand (hidden information: a bot must not read an
        opponent's): {"red": 2, "blue": 0, ...}."""
        p = self._check_player(p)
        return {COLOURS[c]: self.s.hand[p][c] for c in range(NCOL)}

    def hand_size(self, p):
        """How many tiles p holds (public, unlike their colours)."""
        p = self._check_player(p)
        return hand_size(&self.s, p)

    def final_score(self, p):
        """R88: the lowest colour total after the treasures are added where they help most."""
        return self.final_vector(p)[0]

    def final_vector(self, p):
        """R90: the ascending colour totals after treasures (compared lexicographically)."""
        cdef int v[4]
        p = self._check_player(p)
        final_vector(&self.s, p, v)
        return (v[0], v[1], v[2], v[3])

    def ranking(self):
        """Places, best first: ``[[1], [0]]`` means player 1 won.  Ties share a place (R89)."""
        vectors = {p: self.final_vector(p) for p in range(self.s.nplayers)}
        places = []
        for v in sorted(set(vectors.values()), reverse=True):
            places.append([p for p in range(self.s.nplayers) if vectors[p] == v])
        return places

    def _check_player(self, p):
        if type(p) is not int or not 0 <= p < self.s.nplayers:
            if type(p) is not int:
                p = _whole(p, "a player")
            if not 0 <= p < self.s.nplayers:
                raise ValueError(f"player {excerpt(p)} is not in this {self.s.nplayers}-player game")
        return p

    # -- hidden information and playouts ---------------------------------------------

    def determinize(self, player, seed):
        """A copy in which all that `player` cannot see is resampled (see docs/DESIGN.md, Hidden information)."""
        cdef uint64_t sd = _seed64(seed)
        player = self._check_player(player)
        g = self.copy(stack=False)
        c_determinize(&(<Game>g).s, player, sd)
        (<Game>g).aux.ntrail = 0
        return g

    def random_playout(self, seed=0):
        """Play uniformly random decisions to the end in compiled code (no undo, no log);
        returns how many decisions were played."""
        cdef uint64_t sd = _seed64(seed)
        cdef int n
        cdef State before
        copy_state(&before, &self.s)
        self.s.aux = NULL
        with nogil:
            n = c_random_playout(&self.s, sd)
        if self.s.error:
            # Only a corrupt loaded state gets here: put it back as it was.
            error = self.s.error
            copy_state(&self.s, &before)
            self.s.aux = &self.aux
            raise IllegalActionError(f"random playout: a decision cannot be carried out, the "
                                     f"game state is inconsistent: {STATE_ERRORS[error]}")
        self.s.aux = &self.aux
        self.aux.ntrail = 0
        self.aux.nmarks = 0
        self._log.clear()
        self._complete = False      # the moves played are not logged
        return n

    # -- the state as data: for positions, records, diagrams and tests ---------------

    def state_bytes(self):
        """The exact game state as bytes (caches and history excluded): equal bytes,
        equal states."""
        return (<char*>&self.s)[:state_bytes(&self.s)]

    def raw_state(self):
        """Every field of the C state (``State`` in _core.pxd) as plain Python data: a dict
        of ints and lists of ints, indices not notation.  Squares hold the square codes
        of ``tigris.constants`` (read them with ``tigris.squares``); squares, colours,
        players and decisions are indices; ``NONE`` (255) is "no square".  Changing the
        dict changes nothing; ``load_raw_state`` writes one back."""
        cdef State* s = &self.s
        n = s.nplayers
        return {
            "squares": [s.sq[i] for i in range(NSQ)],
            "treasure": [s.treasure[i] for i in range(NSQ)],
            "leader": [[s.leader[p][c] for c in range(NCOL)] for p in range(n)],
            "hand": [[s.hand[p][c] for c in range(NCOL)] for p in range(n)],
            "bag": [s.bag[c] for c in range(NCOL)],
            "out": [s.out[c] for c in range(NCOL)],
            "swapped": [[s.swapped[p][c] for c in range(NCOL)] for p in range(n)],
            "score": [[s.score[p][c] for c in range(NCOL)] for p in range(n)],
            "treasures": [s.treasures[p] for p in range(n)],
            "catastrophes": [s.catastrophes[p] for p in range(n)],
            "monument": [s.monument[m] for m in range(NMONUMENTS)],
            "building": [s.building[c] for c in range(NCOL)],
            "players": n, "board": s.board, "variants": s.variants,
            "active": s.active, "actions_left": s.actions_left, "phase": s.phase,
            "placed": s.placed, "unif": s.unif,
            "c_kind": s.c_kind, "c_colour": s.c_colour, "c_attacker": s.c_attacker,
            "c_defender": s.c_defender, "c_att_sq": s.c_att_sq, "c_def_sq": s.c_def_sq,
            "c_att_base": s.c_att_base, "c_def_base": s.c_def_base,
            "c_att_commit": s.c_att_commit, "c_stage": s.c_stage,
            "wars": s.wars, "t_trader": s.t_trader, "turn": s.turn, "rng": s.rng,
        }

    def load_raw_state(self, d, unknown=None):
        """Overwrite the state with a dict of the form ``raw_state()`` returns.  No rule
        checks: callers (positions) validate first; but every value must fit its field and
        every index the core follows must point inside its array (ValueError naming the
        field otherwise, with the state unchanged).  Clears the undo history, which then
        no longer replays the game (``history_complete`` is False).  ``unknown`` says what
        the state's source left unknown, in the form of ``Game.unknown``."""
        cdef State* s = &self.s
        cdef int p, c, i
        _check_raw(d)
        new_unknown = _NOTHING_UNKNOWN if unknown is None else _unknown_of(unknown, d["players"])
        n = d["players"]
        for i in range(NSQ):
            s.sq[i] = d["squares"][i]
            s.treasure[i] = d["treasure"][i]
        for p in range(MAXP):
            for c in range(NCOL):
                s.leader[p][c] = d["leader"][p][c] if p < n else NONE
                s.hand[p][c] = d["hand"][p][c] if p < n else 0
                s.swapped[p][c] = d["swapped"][p][c] if p < n else 0
                s.score[p][c] = d["score"][p][c] if p < n else 0
            s.treasures[p] = d["treasures"][p] if p < n else 0
            s.catastrophes[p] = d["catastrophes"][p] if p < n else 0
        for c in range(NCOL):
            s.bag[c] = d["bag"][c]
            s.out[c] = d["out"][c]
            s.building[c] = d["building"][c]
        for i in range(NMONUMENTS):
            s.monument[i] = d["monument"][i]
        s.nplayers = n
        s.board = d["board"]
        s.variants = d["variants"]
        for key in ("active", "actions_left", "phase", "placed", "unif", "c_kind", "c_colour",
                    "c_attacker", "c_defender", "c_att_sq", "c_def_sq", "c_att_base",
                    "c_def_base", "c_att_commit", "c_stage", "wars", "t_trader", "turn"):
            setattr_state(s, key, d[key])
        s.rng = d["rng"]
        s.error = ERR_NONE
        s.cache_valid = 0
        self.aux.ntrail = 0
        self.aux.nmarks = 0
        self._log = []
        self._deal = []
        self._complete = False
        self._unknown = new_unknown

    def regions(self, without=None):
        """R3/R4 as the core sees them: ``(labels, kingdoms)``, the region number of each
        square (None for a square that connects nothing: empty, river, catastrophe) and,
        per region number, whether it holds a leader (a kingdom).  ``without``: a square
        taken as empty, e.g. the unification tile while wars are fought (R57) or a leader
        about to move."""
        cdef uint8_t label[NSQ]
        cdef uint8_t kingdom[NSQ]
        cdef int n, skip
        if without is None:
            # Labelled afresh rather than copied from the cache, whose numbers may have
            # gaps: the numbering seen from Python is always the scan order.
            n = compute_regions(&self.s, NONE, label, kingdom)
        else:
            square = without if type(without) is int else _whole(without, "without")
            if not 0 <= square < NSQ:
                raise ValueError(f"without: {excerpt(without)} is not a square index "
                                 f"(0..{NSQ - 1})")
            skip = square
            n = compute_regions(&self.s, skip, label, kingdom)
        return ([None if label[i] == NONE else label[i] for i in range(NSQ)],
                [bool(kingdom[r]) for r in range(n)])

    def _region_cache_agrees(self):
        """Tests: whether the core's cached regions, if it holds them now, split the board
        into the same regions with the same kingdoms as labelling it afresh (the cache is
        updated piece by piece, and its numbers may differ)."""
        cdef uint8_t label[NSQ]
        cdef uint8_t kingdom[NSQ]
        cdef int i
        if not self.s.cache_valid:
            return True
        compute_regions(&self.s, NONE, label, kingdom)
        fresh_of, cached_of = {}, {}
        for i in range(NSQ):
            if (label[i] == NONE) != (self.s.label[i] == NONE):
                return False
            if label[i] == NONE:
                continue
            if fresh_of.setdefault(self.s.label[i], label[i]) != label[i]:
                return False
            if cached_of.setdefault(label[i], self.s.label[i]) != self.s.label[i]:
                return False
            if bool(kingdom[label[i]]) != bool(self.s.kingdom[self.s.label[i]]):
                return False
            if self.s.label[i] >= self.s.nregions:
                return False
        return True

    # -- text (from the modules above, imported when called: see the docstring) ------

    def to_position(self, player=None):
        """The position of this game as a ``tigris-position/1`` dict: full knowledge, or
        what ``player`` can see (tigris.position)."""
        from tigris.position import to_position
        return to_position(self, player)

    @staticmethod
    def from_position(d, seed=0):
        """A game from a ``tigris-position/1`` dict; PositionError naming the field and
        the reason for a malformed or impossible one (tigris.position)."""
        from tigris.position import from_position
        return from_position(d, seed)

    def __str__(self):
        """The board diagram (tigris.render)."""
        from tigris.render import render
        return render(self)

    def __repr__(self):
        return (f"<tigris.Game {self.s.nplayers} players, turn {self.s.turn}, "
                f"{DECISIONS[self.s.phase]} by player {current_player(&self.s)}>")


cdef void setattr_state(State* s, str key, value) except *:
    cdef int v = value      # _check_raw has bounded every value
    if key == "active": s.active = v
    elif key == "actions_left": s.actions_left = v
    elif key == "phase": s.phase = v
    elif key == "placed": s.placed = v
    elif key == "unif": s.unif = v
    elif key == "c_kind": s.c_kind = v
    elif key == "c_colour": s.c_colour = v
    elif key == "c_attacker": s.c_attacker = v
    elif key == "c_defender": s.c_defender = v
    elif key == "c_att_sq": s.c_att_sq = v
    elif key == "c_def_sq": s.c_def_sq = v
    elif key == "c_att_base": s.c_att_base = v
    elif key == "c_def_base": s.c_def_base = v
    elif key == "c_att_commit": s.c_att_commit = v
    elif key == "c_stage": s.c_stage = v
    elif key == "wars": s.wars = v
    elif key == "t_trader": s.t_trader = v
    elif key == "turn": s.turn = v


cdef void* _realloc_bytes(void* p, size_t n):
    return realloc(p, n if n > 0 else 1)


_NOTHING_UNKNOWN = (frozenset(), frozenset(), False)


def _unknown_of(unknown, n):
    """The (hands, swapped colours, bag) that a dict of the form ``Game.unknown`` returns
    (keys may be missing) gives for an n-player game; ValueError naming the bad part."""
    keys = ("hands", "swapped_colours", "bag")
    if not isinstance(unknown, dict) or not set(unknown) <= set(keys):
        raise ValueError(f"unknown: expected a dict like {{'hands': [1], "
                         f"'swapped_colours': [], 'bag': True}}, not {excerpt(unknown)}")
    players = []
    for key in keys[:2]:
        try:
            listed = frozenset(unknown.get(key, ()))
        except TypeError:
            raise ValueError(f"unknown.{key}: expected a list of players, not "
                             f"{excerpt(unknown[key])}") from None
        for p in listed:
            if type(p) is not int or not 0 <= p < n:
                raise ValueError(f"unknown.{key}: player {excerpt(p)} is not in this "
                                 f"{n}-player game")
        players.append(listed)
    return (players[0], players[1], bool(unknown.get("bag", False)))


def _draw(d):
    """A (player, colour) draw as a pair of ints; ValueError for anything else."""
    try:
        p, c = d
    except (TypeError, ValueError):
        raise ValueError(f"a draw is a (player, colour) pair, not {excerpt(d)}") from None
    if type(p) is not int or type(c) is not int or not 0 <= c < NCOL:
        raise ValueError(f"a draw is a (player, colour) pair, not {excerpt(d)}")
    return (p, c)


def _unpickle(raw, seed, board, variants, unknown=_NOTHING_UNKNOWN):
    g = Game._blank(raw["players"], board, variants)
    g.load_raw_state(raw)
    if g.decision != "over" and not g.legal_actions():
        raise ValueError("raw state: the decision at hand has no legal option")
    g.seed = seed
    g._set_unknown(*unknown)
    return g


def _check_setup(players, board):
    """The player count as an int; ValueError unless it is 2, 3 or 4 and the board known."""
    if type(players) is not int or players not in (2, 3, 4):
        if isinstance(players, bool) or not isinstance(players, int):
            players = _whole(players, "players")
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, not {excerpt(players)}")
    if not isinstance(board, str) or board not in BOARD_NAMES:
        raise ValueError(f"unknown board {excerpt(board)}; boards: {', '.join(BOARD_NAMES)}")
    return players


def _variant_bits(variants):
    """The variant bits of a list of variant names (or of one name)."""
    bits = 0
    if isinstance(variants, str):
        variants = (variants,)
    try:
        names = list(variants)
    except TypeError:
        raise ValueError(f"variants must be a list of variant names such as ['english'], "
                         f"not {excerpt(variants)}") from None
    for v in names:
        if not isinstance(v, str) or v not in VARIANTS:
            raise ValueError(f"unknown variant {excerpt(v)}; variants: {', '.join(VARIANTS)}")
        bits |= VARIANTS[v]
    return bits


# ---------------------------------------------------------------------------
# Validation of raw states (load_raw_state): every value fits its C field, and every index the
# core follows (players, squares, colours, phases) points inside its array.
# ---------------------------------------------------------------------------

def _raw_fail(field, reason):
    raise ValueError(f"raw state: {field}: {reason}")


def _raw_int(v, field, lo, hi):
    if type(v) is not int or not lo <= v <= hi:
        if isinstance(v, bool) or not isinstance(v, int):
            _raw_fail(field, f"expected a whole number, not {excerpt(v)}")
        if not lo <= v <= hi:
            _raw_fail(field, f"{excerpt(v)} does not fit ({lo}..{hi})")
    return v


def _raw_list(v, field, length):
    if not isinstance(v, (list, tuple)) or len(v) != length:
        _raw_fail(field, f"expected a list of {length}, not {excerpt(v)}")
    return v


def _raw_square(v, field):
    """A square index or NONE (255)."""
    v = _raw_int(v, field, 0, NONE)
    if NSQ <= v < NONE:
        _raw_fail(field, f"{v} is neither a square (0..{NSQ - 1}) nor none ({NONE})")
    return v


def _check_raw(d):
    if not isinstance(d, dict):
        _raw_fail("state", f"expected a dict, not {type(d).__name__}")
    n = _raw_int(d.get("players"), "players", 2, MAXP)
    _raw_int(d.get("board"), "board", 0, len(BOARD_NAMES) - 1)
    _raw_int(d.get("variants"), "variants", 0, V_ENGLISH | V_BUILDINGS)
    squares = _raw_list(d.get("squares"), "squares", NSQ)
    treasure = _raw_list(d.get("treasure"), "treasure", NSQ)
    for i in range(NSQ):
        code = _raw_int(squares[i], f"squares[{i}]", 0, LEADER0 + 4 * n - 1)
        if CATASTROPHE < code < LEADER0:
            _raw_fail(f"squares[{i}]", f"{code} is not a square code")
        _raw_int(treasure[i], f"treasure[{i}]", 0, 1)
    leaders = _raw_list(d.get("leader"), "leader", n)
    for key, lo, hi in (("hand", 0, HAND), ("swapped", 0, 255), ("score", -32768, 32767)):
        rows = _raw_list(d.get(key), key, n)
        for p in range(n):
            row = _raw_list(rows[p], f"{key}[{p}]", NCOL)
            for c in range(NCOL):
                _raw_int(row[c], f"{key}[{p}][{c}]", lo, hi)
        if key == "hand":
            for p in range(n):
                if sum(rows[p]) > HAND:
                    _raw_fail(f"hand[{p}]", f"{sum(rows[p])} tiles, more than {HAND}")
    for p in range(n):
        row = _raw_list(leaders[p], f"leader[{p}]", NCOL)
        for c in range(NCOL):
            at = _raw_square(row[c], f"leader[{p}][{c}]")
            if at != NONE and squares[at] != LEADER0 + 4 * p + c:
                _raw_fail(f"leader[{p}][{c}]", f"square {at} holds code {squares[at]}, not "
                                               "this leader")
    for i in range(NSQ):
        if squares[i] >= LEADER0:
            p, c = divmod(squares[i] - LEADER0, 4)
            if leaders[p][c] != i:
                _raw_fail(f"squares[{i}]", f"a leader that leader[{p}][{c}] does not place here")
    for key in ("treasures", "catastrophes"):
        row = _raw_list(d.get(key), key, n)
        for p in range(n):
            _raw_int(row[p], f"{key}[{p}]", 0, 255)
    for key in ("bag", "out"):
        row = _raw_list(d.get(key), key, NCOL)
        for c in range(NCOL):
            _raw_int(row[c], f"{key}[{c}]", 0, 255)
    row = _raw_list(d.get("building"), "building", NCOL)
    for c in range(NCOL):
        _raw_square(row[c], f"building[{c}]")
    row = _raw_list(d.get("monument"), "monument", NMONUMENTS)
    for m in range(NMONUMENTS):
        at = _raw_square(row[m], f"monument[{m}]")
        if at != NONE and (at // COLS == ROWS - 1 or at % COLS == COLS - 1):
            _raw_fail(f"monument[{m}]", f"{at} is not the top-left square of a 2x2 square")
    for key in ("active", "c_attacker", "c_defender"):
        _raw_int(d.get(key), key, 0, n - 1)
    for key in ("placed", "unif", "t_trader", "c_att_sq", "c_def_sq"):
        _raw_square(d.get(key), key)
    for key, hi in (("actions_left", 2), ("phase", PH_OVER), ("c_kind", WAR),
                    ("c_colour", NCOL - 1), ("c_att_base", 255), ("c_def_base", 255),
                    ("c_att_commit", 255), ("c_stage", 1), ("wars", (1 << NCOL) - 1),
                    ("turn", TURN_MAX)):
        _raw_int(d.get(key), key, 0, hi)
    _raw_int(d.get("rng"), "rng", 0, 0xFFFFFFFFFFFFFFFF)
