# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The evaluator: rewards for a position, priors for actions, and the greedy rollout policy.

What the search knows of Tigris & Euphrates beyond its rules lives here, apart from the
tree search (as OpenSpiel keeps its Evaluator apart from MCTS).  Every number it weighs
with is a field of one ``Weights`` struct (``_eval.pxd``), and each is a knob of the
same name: ``tigris.knobs`` gives each its default, range and meaning, and this module
takes them checked from there, with no defaults of its own.  Python sees it through
``tigris.evaluator``.
"""

import json
import math
from pathlib import Path

from libc.math cimport exp, INFINITY
from libc.string cimport memset
from libc.stdint cimport uint8_t, int32_t, uint64_t

from tigris._core cimport *
from tigris._game cimport Game
from tigris._plumbing import checks

INF = math.inf

# The calibrated win chance (tigris.calibration): per player count, beta = b0 + b1 * drawn
# + b2 * taken and the upset share u, from the shipped calibration.json; and per board and
# player count the bag after the deal and the treasures at the start, against which
# progress is measured.
cdef double BETA[MAXP + 1][4]
cdef double BAG0[2][MAXP + 1]
cdef double TREASURES0[2]
CALIBRATION_FILE = Path(__file__).resolve().parent / "calibration.json"


def set_calibration(coefficients):
    """Use these win-chance coefficients, {players: (b0, b1, b2, u)}, in every evaluator
    (without u: 0)."""
    for n in range(2, MAXP + 1):
        b = list(coefficients.get(n, ())) + [0.0] * 4
        for k in range(3):
            BETA[n][k] = checks.number(f"calibration for {n} players", b[k], -INF, INF)
        BETA[n][3] = checks.number(f"upset share for {n} players", b[3], 0.0, 0.999999)


def _starting_tables():
    from tigris._game import Game
    from tigris.boards import BOARD_NAMES

    for b, board in enumerate(BOARD_NAMES):
        for n in range(2, MAXP + 1):
            raw = Game(players=n, seed=0, board=board).raw_state()
            BAG0[b][n] = sum(raw["bag"])
            TREASURES0[b] = sum(raw["treasure"])


def _shipped_calibration():
    """The shipped coefficients; none (all zero: equal chances) if the file is missing."""
    try:
        data = json.loads(CALIBRATION_FILE.read_text(encoding="utf-8"))
        return {int(n): c for n, c in data["coefficients"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


_starting_tables()
set_calibration(_shipped_calibration())


# ---------------------------------------------------------------------------
# Rewards: the rules' scoring, relative to the opponents
# ---------------------------------------------------------------------------

cdef double standing(const State* s, const Weights* w, int p) noexcept nogil:
    """How well p stands: the final score (weakest colour after treasures) first, the next
    colours a little, and a leader on the board as a promise of points."""
    cdef int v[4]
    cdef int c, leaders = 0
    final_vector(s, p, v)
    for c in range(NCOL):
        if s.leader[p][c] != NONE:
            leaders += 1
    return (v[0] + w.eval_second_colour * v[1] + w.eval_third_colour * v[2]
            + w.eval_fourth_colour * v[3] + w.eval_leader * leaders)


cdef int compare_vectors(const int* a, const int* b) noexcept nogil:
    """R89: compare ascending colour vectors lexicographically."""
    cdef int k
    for k in range(4):
        if a[k] != b[k]:
            return 1 if a[k] > b[k] else -1
    return 0


cdef void terminal_rewards(const State* s, double first_share, float* reward, double* first) noexcept nogil:
    """Final ranking as rewards in [0, 1]: first 1, last 0, ties share their places; with
    `first_share` > 0, blended with the first place as a win chance (1, or 1/k for k tied
    winners) by that share.  `first`, unless NULL, gets that first place per player."""
    cdef int v[MAXP][4]
    cdef int better[MAXP]
    cdef int p, q, n = s.nplayers, equal, cmp, winners = 0
    cdef double rank
    for p in range(n):
        final_vector(s, p, v[p])
    for p in range(n):
        better[p] = 0
        equal = 0
        for q in range(n):
            if q != p:
                cmp = compare_vectors(v[q], v[p])
                if cmp > 0:
                    better[p] += 1
                elif cmp == 0:
                    equal += 1
        winners += better[p] == 0
        # Places better+1 .. better+1+equal are shared: the mean of their rewards.
        reward[p] = 1.0 - (better[p] + equal * 0.5) / (n - 1)
    if first_share > 0:
        for p in range(n):
            rank = reward[p]
            reward[p] = (1.0 - first_share) * rank + (first_share / winners if better[p] == 0 else 0.0)
    if first != NULL:
        for p in range(n):
            first[p] = 1.0 / winners if better[p] == 0 else 0.0


cdef void heuristic_rewards(const State* s, const Weights* w, float* reward, double* chance) noexcept nogil:
    """A non-final position: each player's standing against the best opponent's, squashed
    into (0, 1) so it is comparable with terminal rewards; blended with the calibrated win
    chance by eval_calibrated.  `chance`, unless NULL, gets those win chances (the
    standings computed once for both)."""
    cdef double f[MAXP]
    cdef double own[MAXP]
    cdef double best, logistic
    cdef int p, q, n = s.nplayers
    for p in range(n):
        f[p] = standing(s, w, p)
    if chance == NULL and w.eval_calibrated > 0:
        chance = own
    if chance != NULL:
        win_chances(s, f, chance)
    for p in range(n):
        best = -INFINITY
        for q in range(n):
            if q != p and f[q] > best:
                best = f[q]
        logistic = 1.0 / (1.0 + exp(-(f[p] - best) / w.eval_scale))
        if w.eval_calibrated > 0:
            logistic = (1.0 - w.eval_calibrated) * logistic + w.eval_calibrated * chance[p]
        reward[p] = logistic


cdef void win_chances(const State* s, const double* standings, double* chance) noexcept nogil:
    """P(p finishes first) = (1 - u) * softmax over the players of beta * standing + u / n,
    with beta from the calibration for this player count and the progress of the game,
    and u its upset share (tigris.calibration fits them; the same formula)."""
    cdef int p, n = s.nplayers, b = 1 if s.board else 0
    cdef double drawn, taken, beta, top = -INFINITY, total = 0.0, room
    cdef double f[MAXP]
    drawn = 1.0 - (s.bag[0] + s.bag[1] + s.bag[2] + s.bag[3]) / BAG0[b][n] if BAG0[b][n] > 0 else 1.0
    room = TREASURES0[b] - 2               # R83: the game ends at two treasures left
    taken = (TREASURES0[b] - treasures_on_board(s)) / room if room > 0 else 1.0
    drawn = min(1.0, max(0.0, drawn))
    taken = min(1.0, max(0.0, taken))
    beta = BETA[n][0] + BETA[n][1] * drawn + BETA[n][2] * taken
    for p in range(n):
        f[p] = beta * standings[p]
        if f[p] > top:
            top = f[p]
    for p in range(n):
        chance[p] = exp(f[p] - top)
        total += chance[p]
    for p in range(n):
        chance[p] = (1.0 - BETA[n][3]) * chance[p] / total + BETA[n][3] / n


cdef void evaluate(const State* s, const Weights* w, float* reward) noexcept nogil:
    evaluate_chances(s, w, reward, NULL)


cdef void evaluate_chances(const State* s, const Weights* w, float* reward, double* chance) noexcept nogil:
    if s.phase == PH_OVER:
        terminal_rewards(s, w.eval_calibrated, reward, chance)
    else:
        heuristic_rewards(s, w, reward, chance)


cdef void state_chances(const State* s, const Weights* w, double* chance) noexcept nogil:
    cdef float reward[MAXP]             # computed beside them, not wanted
    evaluate_chances(s, w, reward, chance)


# ---------------------------------------------------------------------------
# Priors and the rollout policy: cheap judgements of an action
# ---------------------------------------------------------------------------

cdef void scorer_table(State* s, uint8_t* scorer) noexcept nogil:
    """scorer[4 * region + colour]: who scores a tile of that colour joined to that kingdom
    (R33: the owner of the same-coloured leader, else of the king), NONE if nobody."""
    cdef int q, c, k, r
    ensure_regions(s)
    memset(scorer, NONE, 4 * s.nregions)
    for k in range(NCOL):
        c = (BLACK + k) % NCOL                  # kings first, so leaders of the colour win
        for q in range(s.nplayers):
            if s.leader[q][c] == NONE:
                continue
            r = s.label[s.leader[q][c]]
            if c == BLACK:
                scorer[4 * r + RED] = q
                scorer[4 * r + BLUE] = q
                scorer[4 * r + GREEN] = q
            scorer[4 * r + c] = q


cdef void priors(State* s, const Weights* w, const int32_t* actions, int n, double* out) noexcept nogil:
    cdef uint8_t scorer[4 * NSQ]
    cdef int k, p = current_player(s)
    scorer_table(s, scorer)
    for k in range(n):
        out[k] = prior(s, w, scorer, actions[k], p)


cdef int greedy_action(State* s, uint64_t* x) noexcept nogil:
    """Epsilon-greedy's greedy half: a random tile that scores for the mover, else a random
    action that is neither a swap nor a pass, else anything (each uniform among its kind,
    drawn by the core's samplers without listing the legal actions); -1 if there is no
    legal action."""
    cdef int a
    if s.phase == PH_ACTION:
        a = random_scoring_tile(s, x)
        if a >= 0:
            return a
        a = random_main_action(s, x, True)
        if a >= 0:
            return a
    return random_action(s, x)


# ---------------------------------------------------------------------------
# Python face
# ---------------------------------------------------------------------------

def _policy_draws(Game game not None, int draws, uint64_t seed=0, bint greedy=False):
    """Tests: `draws` choices at the game's decision, drawn independently by the core's
    uniform sampler (what random_playout and random rollouts play) or, with `greedy`, by
    the greedy rollout policy; none of them applied."""
    cdef State work
    cdef uint64_t x = seed
    cdef int k, a
    if draws < 0:
        raise ValueError(f"draws: {draws} is negative")
    copy_state(&work, &game.s)
    out = []
    for k in range(draws):
        a = greedy_action(&work, &x) if greedy else random_action(&work, &x)
        if a < 0:
            break
        out.append(a)
    return out


cdef class Evaluator:
    """The evaluation with these weights: every field of the Weights struct by name,
    checked by ``tigris.knobs.check_weights`` (``tigris.evaluator.Evaluator`` takes them
    by name, the others at the table's defaults)."""

    def __init__(self, dict weights not None):
        self.w = weights

    @property
    def weights(self):
        """Every weight of this evaluator: name -> value (``tigris.knobs`` gives their meanings)."""
        return self.w

    def rewards(self, Game game not None):
        """The rewards the search backs up for this position, one per player in [0, 1]:
        the final ranking once the game is over (first 1, last 0, ties share their
        places), else each player's standing against the best opponent's through a
        logistic, as the single-precision floats the search adds up."""
        cdef float reward[MAXP]
        evaluate(&game.s, &self.w, reward)
        return [reward[p] for p in range(game.s.nplayers)]

    def standing(self, Game game not None, player):
        """How well `player` stands, in points: the final score (the weakest colour after
        treasures) plus the weighted next colours and leaders on the board."""
        player = checks.whole("player", player, 0, game.s.nplayers - 1)
        return standing(&game.s, &self.w, player)

    def win_chances(self, Game game not None):
        """Each player's calibrated chance to finish first (the model of tigris.calibration
        with the shipped coefficients); a finished game gives its first place, shared
        among tied winners.  The search backs these up beside its rewards."""
        cdef double chance[MAXP]
        cdef int p
        state_chances(&game.s, &self.w, chance)
        return [chance[p] for p in range(game.s.nplayers)]

    def priors(self, Game game not None):
        """The legal actions of the decision and the expansion prior of each (for the
        player to decide): two lists, ``(actions, priors)``."""
        cdef int32_t acts[N_ACTIONS]
        cdef double out[N_ACTIONS]
        cdef int n = legal_actions(&game.s, acts)
        if n <= 0:
            return [], []
        priors(&game.s, &self.w, acts, n, out)
        return [acts[k] for k in range(n)], [out[k] for k in range(n)]

    def prior(self, Game game not None, action):
        """The expansion prior of `action` for the player to move (higher: tried first)."""
        cdef int32_t a = checks.whole("action", action, 0, N_ACTIONS - 1)
        cdef double out
        priors(&game.s, &self.w, &a, 1, &out)
        return out
