"""Tuning numeric bot parameters over games (``tigris tune``): SPSA, a model-based search or
an evolution strategy for noise.

``method="spsa"``: simultaneous perturbation stochastic approximation, as engine-testing
frameworks use it.  At iteration k every parameter is nudged by +-c_k at once (a random
sign each), the bot at theta+ and the bot at theta- each play the same deal against an
opponent in every seating, and theta moves by a_k times the estimated gradient

    g_i = (score(theta+) - score(theta-)) / (2 c_k delta_i),   theta_i += a_k g_i,

with gains a_k = a / (A + k)^0.602 and c_k = c / k^0.101.

``method="bayes"``: optuna's tree-structured Parzen estimator (multivariate, so knobs that
interact are modelled together) proposes each trial's parameters from the scores of every
trial so far; a trial plays two deals in every seating.  Its answer is the trial whose
neighbourhood scored best (``Bayes.best``): one trial's four games are too few to trust.

``method="tbpsa"``: nevergrad's TBPSA (test-based population-size adaptation), an
evolution strategy made for noisy objectives: a population around a mean, the mean moved
towards the better half, the population larger when the scores are noisier.  A trial
plays as Bayes's does; its answer is the population's mean (``Nevergrad.best``).

Each plays the same games an iteration (``TuneSpec.iteration_games``: 2 x players unless
set, four with 2 players), so one budget buys the same games whichever it is.
Parameters are real numbers inside their bounds; integer ones are rounded only when a bot
is made to play.

>>> from tigris.tune import TuneSpec, parse_param, tune
>>> spec = TuneSpec(bot="ismcts-fast", params=[parse_param("exploration=0.1:2.0")],
...                 opponents=["greedy"], budget=400, method="bayes")
>>> tune(spec, "results/tune-c")                            # doctest: +SKIP
"""

import csv
import json
import math
import random
import time
import tomllib
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from tigris import bots as botlib
from tigris import knobs
from tigris._plumbing import plotting, work
from tigris.errors import ConfigError, Interrupted, TuneError, excerpt, install_hint
from tigris.files import check_target, open_append, utf8_text, write_bytes, write_text
from tigris._plumbing.locks import holding
from tigris.play.runner import GameSpec, bot_settings, deal_games, deal_seed, failed_game, game_tasks, score
from tigris.play.seeds import trial_seed
from tigris._plumbing.tomlfile import toml_string
from tigris.tunefolder import (HISTORY_FILE, METHODS, RESULT_FILE, SCORES, SPEC_FILE, TOLD,
                              VERIFICATION_FILE, field_text, read_history, read_settings)

__all__ = ["TuneSpec", "verification_text", "Param", "tune", "SPSA", "Bayes", "Nevergrad", "check_name", "no_signal",
           "parse_param", "tunable", "plot", "GAMES", "SECOND_DEALS", "batch_of", "verify_games",
           "field_of"]

ALPHA = 0.602            # a_k decay (Spall's recommended values)
GAMMA = 0.101            # c_k decay
VERIFY_DEALS = 500_000   # the verification's deals are numbered from here
SECOND_DEALS = 250_000   # a Bayes trial's second deal: its number plus this
NEIGHBOURS = 5           # Bayes.best: the trials whose scores are averaged around each


# ---------------------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------------------

@dataclass
class Param:
    name: str
    low: float
    high: float
    integer: bool = False

    def clip(self, x):
        """x inside the bounds."""
        return min(self.high, max(self.low, x))

    def played(self, x):
        """The value a bot plays with: inside the bounds, rounded if integer."""
        x = self.clip(x)
        return int(round(x)) if self.integer else x


def parse_param(text):
    """``"exploration=0.1:2.0"`` or ``"rollout_depth=2:60:int"`` -> Param."""
    name, sep, rng = str(text).partition("=")
    parts = rng.split(":")
    if not sep or not name or len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "int"):
        raise TuneError(f"--param {text!r}: write NAME=LOW:HIGH or NAME=LOW:HIGH:int")
    try:
        low, high = float(parts[0]), float(parts[1])
    except ValueError:
        raise TuneError(f"--param {text!r}: the bounds must be numbers") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise TuneError(f"--param {text!r}: the bounds must be finite numbers")
    if low >= high:
        raise TuneError(f"--param {text!r}: the range is empty (LOW must be below HIGH)")
    return Param(name, low, high, integer=len(parts) == 3)


def tunable(kind):
    """The numeric knobs of a bot kind, which can be tuned."""
    return [k for k, (typ, _, _) in knobs.KINDS[kind].items()
            if typ in (int, float) and k not in ("seed", "workers")]


# ---------------------------------------------------------------------------------------
# The SPSA core (no games: tests drive it with synthetic objectives)
# ---------------------------------------------------------------------------------------

class SPSA:
    """Maximises a noisy objective over box-bounded parameters.

    ``c`` and ``a`` default from the ranges: c_i is a tenth of the range, and a_i is set
    so that a score difference of 0.5 on the first iteration moves theta_i by about c_i/2.
    ``A`` is a tenth of the planned iterations (stability early on)."""

    def __init__(self, params, theta0, iterations, c=None, a=None, A=None, seed=0):
        self.params = list(params)
        self.theta = [p.clip(x) for p, x in zip(self.params, theta0)]
        self.A = A if A is not None else max(1.0, 0.1 * iterations)
        self.c = c or [(p.high - p.low) / 10 for p in self.params]
        self.a = a or [ci * ci * (self.A + 1) ** ALPHA for ci in self.c]
        self.rng = random.Random(seed)

    def gains(self, k):
        """(a_k, c_k) per parameter at iteration k (1-based)."""
        return ([ai / (self.A + k) ** ALPHA for ai in self.a], [ci / k ** GAMMA for ci in self.c])

    def perturb(self, k):
        """(delta, theta+, theta-) for iteration k."""
        _, ck = self.gains(k)
        delta = [self.rng.choice((-1, 1)) for _ in self.params]
        plus = [p.clip(t + c * d) for p, t, c, d in zip(self.params, self.theta, ck, delta)]
        minus = [p.clip(t - c * d) for p, t, c, d in zip(self.params, self.theta, ck, delta)]
        return delta, plus, minus

    def update(self, k, delta, score_plus, score_minus):
        """Move theta by a_k times the gradient estimated from the two scores of iteration k."""
        ak, ck = self.gains(k)
        for i, p in enumerate(self.params):
            g = (score_plus - score_minus) / (2 * ck[i] * delta[i])
            self.theta[i] = p.clip(self.theta[i] + ak[i] * g)
        return list(self.theta)


class Bayes:
    """Maximises a noisy objective over box-bounded parameters with optuna's TPE sampler.

    ``ask()`` gives a trial's parameters (the first is ``theta0``), ``tell(theta, score)``
    its score, in any order of asks; ``best()`` the answer.  The sampler is seeded afresh
    per trial from ``seed`` and the trial's number, so a run replayed from its history
    (``tell`` without ``ask``) goes on as the uninterrupted run would have."""

    def __init__(self, params, theta0, seed=0):
        try:
            import optuna
        except ImportError:
            raise TuneError("--method bayes needs optuna: pip install optuna "
                            f"(or {install_hint('tune')})") from None
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.optuna = optuna
        self.params = list(params)
        self.theta0 = [p.clip(x) for p, x in zip(self.params, theta0)]
        self.seed = seed
        self.space = {p.name: optuna.distributions.FloatDistribution(p.low, p.high) for p in self.params}
        self.study = optuna.create_study(direction="maximize")
        self.pending = {}                   # a trial's parameters (as a tuple) -> its optuna trial
        self.results = []                   # (theta, score) of every trial told

    def ask(self):
        """The next trial's parameters."""
        number = len(self.study.trials)
        if number == 0:
            self.study.enqueue_trial(dict(zip(self.space, self.theta0)))
        with warnings.catch_warnings():     # multivariate TPE is marked experimental
            warnings.simplefilter("ignore", self.optuna.exceptions.ExperimentalWarning)
            self.study.sampler = self.optuna.samplers.TPESampler(
                seed=trial_seed(self.seed, number), multivariate=True)
        trial = self.study.ask(self.space)
        theta = [trial.params[p.name] for p in self.params]
        self.pending[tuple(theta)] = trial
        return theta

    def tell(self, theta, score):
        """Record a trial's score (a trial of a replayed history is added as finished)."""
        trial = self.pending.pop(tuple(theta), None)
        if trial is not None:
            self.study.tell(trial, score)
        else:
            self.study.add_trial(self.optuna.trial.create_trial(
                params=dict(zip(self.space, theta)), distributions=self.space, value=score))
        self.results.append((list(theta), score))

    def best(self):
        """The parameters of the trial whose neighbourhood scored best: the mean score of
        its NEIGHBOURS nearest trials (itself included; distances in ranges scaled to
        [0, 1]).  Averaging neighbours damps the luck of one trial's few games, and the
        sampler puts its trials close together where the scores are good."""
        if not self.results:
            return list(self.theta0)
        scaled = [[(x - p.low) / (p.high - p.low) for p, x in zip(self.params, theta)]
                  for theta, _ in self.results]

        def around(i):
            near = sorted(range(len(scaled)), key=lambda j: math.dist(scaled[i], scaled[j]))
            return sum(self.results[j][1] for j in near[:NEIGHBOURS]) / min(NEIGHBOURS, len(near))

        best = max(range(len(self.results)), key=lambda i: (around(i), -i))
        return list(self.results[best][0])


class Nevergrad:
    """Maximises a noisy objective over box-bounded parameters with one of nevergrad's
    optimisers: ``optimizer`` names it in nevergrad's registry ("TBPSA", made for noisy
    objectives: a population whose mean moves, its size growing with the noise).  The
    parameters are searched in their ranges scaled to [0, 1], starting at `theta0` with
    steps of SIGMA of a range.

    ``ask(k)`` gives trial k's parameters and ``told``, the scores told before it;
    ``tell(k, score)`` its score, in any interleaving.  The optimiser keeps a state, so a
    run is replayed by asking and telling again in the order of the first run (``tune``'s
    history keeps each trial's ``told``), which asks the same trials again.  ``best()``
    is the optimiser's recommendation (TBPSA's population mean, not one lucky trial).

    >>> from tigris.tune import Nevergrad, Param
    >>> m = Nevergrad([Param("x", 0.0, 4.0)], [3.0], "TBPSA", trials=40, seed=1)
    >>> for k in range(1, 41):
    ...     theta, told = m.ask(k)
    ...     m.tell(k, 1 - abs(theta[0] - 1) / 4)        # best at x = 1
    >>> round(m.best()[0], 1) < 3.0
    True
    """

    SIGMA = 0.2

    def __init__(self, params, theta0, optimizer, trials, seed=0):
        try:
            import nevergrad as ng
            import numpy as np
        except ImportError:
            raise TuneError(f"--method {optimizer.lower()} needs nevergrad: pip install nevergrad "
                            f"(or {install_hint('tune')})") from None
        self.np = np
        self.params = list(params)
        self.low = np.array([p.low for p in self.params], dtype=float)
        self.span = np.array([p.high - p.low for p in self.params], dtype=float)
        start = np.clip((np.array([p.clip(x) for p, x in zip(self.params, theta0)]) - self.low)
                        / self.span, 0.0, 1.0)
        space = ng.p.Array(init=start, lower=0.0, upper=1.0).set_mutation(sigma=self.SIGMA)
        space.random_state = np.random.RandomState(seed % 2**32)
        with warnings.catch_warnings():      # nevergrad's notes on its own choices
            warnings.simplefilter("ignore")
            self.opt = ng.optimizers.registry[optimizer](parametrization=space, budget=max(1, trials),
                                                         num_workers=1)
        self.asked = {}                      # trial -> nevergrad's candidate, until told
        self.told = 0

    def _theta(self, unit):
        return [float(x) for x in self.low + self.span * self.np.asarray(unit, dtype=float)]

    def ask(self, k):
        """``(theta, told)``: trial `k`'s parameters, and the scores told before it."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            candidate = self.opt.ask()
        self.asked[k] = candidate
        return self._theta(candidate.value), self.told

    def tell(self, k, score):
        """Trial `k`'s score (higher is better; nevergrad minimises its negative)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.opt.tell(self.asked.pop(k), -float(score))
        self.told += 1

    def best(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self._theta(self.opt.provide_recommendation().value)


# ---------------------------------------------------------------------------------------
# The methods over games: what an iteration plays, what it writes to the history
# ---------------------------------------------------------------------------------------

class _SPSAGames:
    """Iteration k: theta+ and theta- on one deal, each in every seating."""

    label = "SPSA"
    scores = SCORES["spsa"]

    def __init__(self, spec, theta0):
        self.params = spec.params
        self.spsa = SPSA(spec.params, theta0, spec.iterations, seed=spec.seed)

    def columns(self):
        names = [p.name for p in self.params]
        return list(self.scores) + names + [f"{n}_plus" for n in names] + [f"{n}_minus" for n in names]

    def propose(self, k):
        """({bot label: theta}, what update needs)."""
        delta, plus, minus = self.spsa.perturb(k)
        return {"plus": plus, "minus": minus}, (delta, plus, minus)

    @staticmethod
    def tasks(k, spec, field):
        """theta+ and theta- each on the iteration's deals (the same ones: their luck
        cancels out), against the `field`, in every seating."""
        games, out = spec.games_per_iteration, []
        for d in range(games // (2 * spec.players)):
            seed_of_deal = _deal(spec, k, d)
            for label in ("plus", "minus"):
                out += deal_games([label, *field], seed_of_deal, games * k + len(out))
        return out

    def update(self, k, memo, scores):
        """Take iteration k's scores; the history row's values after iteration and games."""
        delta, plus, minus = memo
        sp, sm = _mean(scores["plus"]), _mean(scores["minus"])
        self.spsa.update(k, delta, sp, sm)
        # the scores exactly (a third of a first place is no decimal): a replay steps by them
        return [repr(sp), repr(sm)] + [f"{x:.6g}" for x in self.spsa.theta + plus + minus]

    def replay(self, rows):
        """The run's state after the iterations `rows` of its history."""
        for k, row in enumerate(rows, start=1):
            delta, _, _ = self.spsa.perturb(k)
            self.spsa.update(k, delta, float(row["score_plus"]), float(row["score_minus"]))

    def theta(self):
        return list(self.spsa.theta)


class _BayesGames:
    """Iteration k: the trial's parameters on two deals, each in every seating."""

    label = "Bayes (optuna TPE)"
    scores = SCORES["bayes"]

    def __init__(self, spec, theta0):
        self.params = spec.params
        self.bayes = Bayes(spec.params, theta0, seed=spec.seed)

    def columns(self):
        return ["score"] + [p.name for p in self.params]

    def propose(self, k):
        theta = self.bayes.ask()
        return {"trial": theta}, theta

    @staticmethod
    def tasks(k, spec, field):
        """The trial on the iteration's deals against the `field`, in every seating."""
        games, out = spec.games_per_iteration, []
        for d in range(games // spec.players):
            out += deal_games(["trial", *field], _deal(spec, k, d), games * k + len(out))
        return out

    def update(self, k, theta, scores):
        s = _mean(scores["trial"])
        self.bayes.tell(theta, s)
        return [repr(s)] + [repr(x) for x in theta]

    def replay(self, rows):
        for row in rows:
            self.bayes.tell([float(row[p.name]) for p in self.params], float(row["score"]))

    def theta(self):
        return self.bayes.best()


class _TBPSAGames(_BayesGames):
    """Iteration k: nevergrad's TBPSA's trial on two deals, each in every seating; the
    history keeps the scores told before each trial was asked, to replay the optimiser."""

    label = "TBPSA (nevergrad)"
    scores = SCORES["tbpsa"]

    def __init__(self, spec, theta0):
        self.params = spec.params
        self.history = None                 # the file, for the messages of a replay
        self.opt = Nevergrad(spec.params, theta0, "TBPSA", spec.iterations, seed=spec.seed)

    def columns(self):
        return ["score", TOLD["tbpsa"]] + [p.name for p in self.params]

    def propose(self, k):
        theta, told = self.opt.ask(k)
        return {"trial": theta}, (theta, told)

    def update(self, k, memo, scores):
        theta, told = memo
        s = _mean(scores["trial"])
        self.opt.tell(k, s)
        return [repr(s), str(told)] + [repr(x) for x in theta]

    def replay(self, rows):
        """Ask and tell again in the first run's order: each trial asked once as many
        scores are told as its row says, then told its score; a trial the optimiser does
        not ask again (another version of nevergrad, an edited history) is a TuneError."""
        asked = 0
        for k, row in enumerate(rows, start=1):
            while asked < len(rows) and int(float(rows[asked][TOLD["tbpsa"]])) == self.opt.told:
                asked += 1
                theta, _ = self.opt.ask(asked)
                written = [float(rows[asked - 1][p.name]) for p in self.params]
                if any(abs(a - b) > 1e-9 * max(1.0, abs(b)) for a, b in zip(theta, written)):
                    raise TuneError(f"{self.history or HISTORY_FILE}: iteration {asked}: the method "
                                    f"asks {_setting(self.params, theta)} there, the history holds "
                                    f"{_setting(self.params, written)} (written by another version "
                                    f"of nevergrad, or edited): start the run again in another folder")
            if asked < k:
                raise TuneError(f"{self.history or HISTORY_FILE}: iteration {k}: its {TOLD['tbpsa']} "
                                f"does not follow the iterations before it (edited?): start the "
                                f"run again in another folder")
            self.opt.tell(k, float(row["score"]))

    def theta(self):
        return self.opt.best()


def _setting(params, theta):
    return " ".join(f"{p.name}={x:.6g}" for p, x in zip(params, theta))


GAMES = {"spsa": _SPSAGames, "bayes": _BayesGames, "tbpsa": _TBPSAGames}

FURTHER_DEALS = 1_000_000  # an iteration's third deal on: d times this, plus its number


def _deal(spec, k, d):
    """The seed of iteration `k`'s deal `d` (from 0): its number, then SECOND_DEALS plus
    it (so that a run of four games an iteration plays the deals it always did), then
    clear of those and of the verification's."""
    return deal_seed(spec.seed, k if d == 0 else SECOND_DEALS + k if d == 1 else FURTHER_DEALS * d + k)


def field_of(spec, k):
    """The other seats of iteration `k`'s line-up: ``players - 1`` opponents taken in turn
    from ``spec.opponents``, from the k-th on (with 2 players, one opponent a turn).

    >>> from tigris.tune import TuneSpec, field_of
    >>> spec = TuneSpec(bot="ismcts-fast", params=[], opponents=["greedy", "random"], players=3)
    >>> field_of(spec, 1), field_of(spec, 2)
    (['greedy', 'random'], ['random', 'greedy'])
    """
    n = len(spec.opponents)
    return [spec.opponents[(k - 1 + j) % n] for j in range(spec.players - 1)]


# ---------------------------------------------------------------------------------------
# Tuning with games
# ---------------------------------------------------------------------------------------

@dataclass
class TuneSpec:
    bot: str
    params: list
    opponents: list
    budget: int = 400
    seed: int = 0
    name: str | None = None        # None: BOT-tuned
    verify_games: int = 0          # 0: verify_games(budget), a tenth of it, at least 200
    players: int = 2               # the tuned bot in a line-up of players - 1 opponents
    method: str = "spsa"
    iteration_games: int = 0       # 0: 2 * players (a deal in every seating, twice)

    def __post_init__(self):
        self._shelf = botlib.Shelf()        # not a field: the bot files, read once for this run

    def settings(self, names):
        """{name: (kind, params)} of bot names or files, each file read once for this run."""
        return bot_settings(names, self._shelf)

    def check(self):
        """The bot's kind and its knobs; raises ConfigError or TuneError naming what is wrong."""
        try:
            kind, base = self.settings([self.bot])[self.bot]
        except ValueError as e:
            raise ConfigError(str(e)) from None
        names = tunable(kind)
        if not names:
            raise TuneError(f"{self.bot}: a {kind} bot has no numeric parameters to tune")
        for p in self.params:
            if p.name not in names:
                raise TuneError(f"--param {p.name}: not a numeric parameter of a {kind} bot; "
                                f"tunable: {', '.join(names)}")
            if knobs.KINDS[kind][p.name][0] is int and not p.integer:
                p.integer = True            # an int knob is played rounded, whatever was written
            try:
                knobs.check(kind, {p.name: p.played(p.low)}, where=f"--param {p.name}")
                knobs.check(kind, {p.name: p.played(p.high)}, where=f"--param {p.name}")
            except ValueError as e:
                raise TuneError(str(e)) from None
        if len({p.name for p in self.params}) != len(self.params):
            raise TuneError("--param: a parameter is named twice")
        if not self.params:
            raise TuneError("give at least one --param NAME=LOW:HIGH")
        if not self.opponents:
            raise TuneError("give at least one --opponent")
        for o in self.opponents:
            try:
                botlib.find(o)
            except ValueError as e:
                raise ConfigError(f"--opponent: {e}") from None
        if self.method not in METHODS:
            raise TuneError(f"--method {self.method}: choose one of {', '.join(METHODS)}")
        if isinstance(self.players, bool) or self.players not in (2, 3, 4):
            raise TuneError(f"--players {excerpt(self.players)}: 2, 3 or 4")
        seated = 2 * self.players           # a deal in every seating, for theta+ and theta-
        if self.iteration_games == 0:
            self.iteration_games = seated
        if isinstance(self.iteration_games, bool) or not isinstance(self.iteration_games, int) \
                or self.iteration_games < seated or self.iteration_games % seated:
            raise TuneError(f"--iteration-games {excerpt(self.iteration_games)}: a multiple of "
                            f"{seated} (each deal in all {self.players} seatings, twice)")
        if self.budget < self.iteration_games:
            raise TuneError(f"--budget {self.budget}: an iteration plays {self.iteration_games} "
                            f"games; give at least {self.iteration_games}")
        if self.name is None:
            self.name = f"{Path(str(self.bot)).stem}-tuned"
        check_name(self.name)
        return kind, base

    @property
    def games_per_iteration(self):
        """The games of an iteration: ``iteration_games``, or 2 * players unless set."""
        return self.iteration_games or 2 * self.players

    @property
    def iterations(self):
        """Iterations: each plays ``games_per_iteration`` games (SPSA: theta+ and theta-
        on the same deals in every seating; Bayes and TBPSA: a trial on twice as many
        deals)."""
        return max(1, self.budget // self.games_per_iteration)


def check_name(name):
    """A tuned bot's name, once it is a plain file name (the bot file is DIR/NAME.toml):
    not empty, no folder separator, not ``.`` or ``..``, no control character; else a
    TuneError naming --name."""
    if not isinstance(name, str) or not name or name in (".", "..") \
            or any(c in "/\\" or ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        raise TuneError(f"--name {excerpt(name)}: the tuned bot's name must be a plain file "
                        f"name (no folder separator, not . or .., no control character)")
    return name


def _bot_params(base, params, theta):
    out = dict(base)
    for p, x in zip(params, theta):
        out[p.name] = p.played(x)
    if any(p.name == "seconds" for p in params):
        out["iterations"] = None
    if any(p.name == "iterations" for p in params):
        out["seconds"] = None
    return out


SPRT = {"elo0": 0.0, "elo1": 50.0}     # the verification's test unless --sprt says otherwise
VERIFY_FLOOR = 200       # the verification's most games, unless --verify-games: at least this
GAMES_PER_JOB = 4        # an iteration's games: a batch proposes one iteration per 4 --jobs


def batch_of(jobs):
    """How many iterations are proposed at once (their bots chosen before any of their
    games is in): ceil(jobs / 4), one iteration's four games per four workers.  A
    function of ``--jobs`` alone, never of the backend or of the cluster's size, since
    the batch changes the history: the same seed and `jobs` give the same history.csv
    with local workers and on a dask cluster.

    >>> from tigris.tune import batch_of
    >>> batch_of(1), batch_of(4), batch_of(6), batch_of(16)
    (1, 1, 2, 4)
    """
    return max(1, math.ceil(jobs / GAMES_PER_JOB))


def verify_games(budget):
    """The verification's most games when ``--verify-games`` is not given: a tenth of
    the budget, at least VERIFY_FLOOR (fewer games rarely let the SPRT decide).

    >>> from tigris.tune import verify_games
    >>> verify_games(400), verify_games(4000)
    (200, 400)
    """
    return max(VERIFY_FLOOR, budget // 10)


def tune(spec, out, jobs=None, progress=True, resume=False, backend="loky", scheduler=None,
         sprt=None):
    """Tune by ``spec.method`` (or continue the run from DIR/history.csv), write the tuned
    bot file and verify it against the original (``verify``: an SPRT, as ``tigris
    match``, with the settings `sprt`, default elo0=0 elo1=50).  Returns a dict with
    theta, the bot file and the verification, as DIR/result.json holds them.

    `jobs` (default: all cores) sets how many iterations are proposed at once
    (``batch_of``) and how often the verification's test looks; with `backend` "loky"
    it is also the number of worker processes.  With `backend` "dask" the games go to
    the dask.distributed scheduler `scheduler` (an address, or a Client), and the same
    `jobs` gives the same history as local workers would.

    >>> tune(spec, "results/tune-c", jobs=8, backend="dask",
    ...      scheduler="tcp://host:8786", sprt={"elo1": 30})     # doctest: +SKIP
    """
    from tigris import match
    from tigris._plumbing.backends import Backend

    where = Backend(backend, jobs, scheduler)          # checked before anything is written
    test = match.check_sprt(**{**SPRT, **(sprt or {})})
    return _tune(spec, out, where, test, progress, resume)


@holding("out")                   # one run at a time in a folder
def _tune(spec, out, where, test, progress, resume):
    """``tune`` in the folder `out`, which it holds, on the Backend `where`."""
    out = Path(out)
    kind, base = spec.check()
    # Everything the run writes at its end is checked before its first game.
    reads = [spec.bot, *spec.opponents]
    bot_path = check_target(out / f"{spec.name}.toml", reads=reads, option="--name")
    for name in (SPEC_FILE, HISTORY_FILE, RESULT_FILE, VERIFICATION_FILE):
        check_target(out / name, reads=reads, option="--out")
    _check_bot_text(bot_text(spec, kind, base), kind, bot_path)
    saved_form = {"bot": spec.bot, "params": [asdict(p) for p in spec.params],
                  "opponents": spec.opponents, "budget": spec.budget, "seed": spec.seed,
                  "name": spec.name, "verify_games": spec.verify_games, "players": spec.players,
                  "method": spec.method, "iteration_games": spec.games_per_iteration}
    history = out / HISTORY_FILE
    theta0 = [base[p.name] if base.get(p.name) is not None else (p.low + p.high) / 2 for p in spec.params]
    method = GAMES[spec.method](spec, theta0)
    done_rows = []
    if resume:
        saved = read_settings(out)
        if saved != saved_form:
            raise TuneError(f"{out / SPEC_FILE}: the run saved there has other settings; "
                            f"resume it with the same ones (or use another --out)")
        if not history.exists():            # lost: starting over would drop its iterations
            raise TuneError(f"{history}: missing, or a link to nothing: the run in {out} has no "
                            f"history to resume (restore it, or start the run again without --resume)")
        done_rows = read_history(history, spec.method, saved_form["params"], spec.opponents,
                                 players=spec.players, games=spec.games_per_iteration,
                                 repair=True)
    elif history.exists() and history.stat().st_size:
        raise TuneError(f"{out} already holds a tuning run: continue it with --resume, or choose another --out")
    with where:              # a scheduler out of reach is said before the first file is written
        out.mkdir(parents=True, exist_ok=True)
        write_text(out / SPEC_FILE, json.dumps(saved_form, indent=2) + "\n")
        method.history = history
        method.replay(done_rows)
        # each iteration's scores, for the warning on no signal
        outcomes = [[float(row[c]) for c in method.scores] for row in done_rows]
        _iterate(spec, method, kind, base, history, len(done_rows) + 1, outcomes, where, progress)
        _warn_if_no_signal(outcomes, spec)
        theta = method.theta()
        tuned = _bot_params(base, spec.params, theta)
        bot_file = write_bot(out, spec, kind, tuned, method.label)
        check, games = verify(spec, kind, base, tuned, where, test, progress,
                              kept=f"the tuned bot is in {bot_file}, not yet verified: "
                                   f"--resume verifies it")
    check["file"] = str(write_text(out / VERIFICATION_FILE,
                                   "".join(json.dumps(r) + "\n" for r in games)))
    result = {"theta": {p.name: p.played(x) for p, x in zip(spec.params, theta)},
              "bot_file": str(bot_file), "verification": check}
    write_text(out / RESULT_FILE, json.dumps(result, indent=2) + "\n")
    return result


def _iterate(spec, method, kind, base, history, start, outcomes, where, progress):
    """Iterations `start` to the last, ``batch_of(jobs)`` at a time (a batch's bots are
    proposed before any of its games): each iteration's row goes to the history, and its
    scores to `outcomes`, as soon as its four games are in.  The bar counts the games and
    shows the best setting so far."""
    opp_settings = spec.settings(spec.opponents)
    batch = batch_of(where.jobs)
    header = ["iteration", "games", "opponent"] + method.columns()
    new_file = not history.exists() or history.stat().st_size == 0
    kept = f"the history so far is in {history}; continue with --resume"
    try:
        games = spec.games_per_iteration
        with work.Run(where.workers, progress, total=games * spec.iterations, initial=games * (start - 1),
                      desc=f"tuning {spec.bot} ({spec.method})", unit="game") as run, \
                open_append(history, text=True) as f:
            writer = csv.writer(f)
            if new_file:
                writer.writerow(header)
            best = _Best(run.bar, spec.params, method)
            for k in range(start, spec.iterations + 1, batch):
                plan = []
                for i in range(k, min(spec.iterations, k + batch - 1) + 1):
                    thetas, memo = method.propose(i)
                    field = field_of(spec, i)
                    settings = dict(opp_settings)
                    for label, theta in thetas.items():
                        settings[label] = (kind, _bot_params(base, spec.params, theta))
                    plan.append((i, memo, field, list(thetas), settings, method.tasks(i, spec, field)))
                _play_batch(run, plan, spec, method, writer, f, outcomes, best, where.lost(kept))
            best.show(force=True)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: {kept}") from None


def _play_batch(run, plan, spec, method, writer, f, outcomes, best, errors):
    """The games of a batch's iterations (`plan`, in order); an iteration's records
    update the method, and its row is written to the history (the file `f`) at once.
    `errors`: what a lost scheduler says (``Backend.lost``).  A game whose worker process
    dies twice counts as failed (``work.Run``)."""
    games = spec.games_per_iteration
    tasks = [task for i, _, _, _, settings, js in plan
             for task in game_tasks(js, settings, _game_spec(spec, i))]
    iteration_of = {task.game: i for i, _, _, _, _, js in plan for task in js}
    records = []

    def save(rec):
        records.append(rec)
        run.bar.update()
        if len(records) % games:
            return
        i, memo, field, labels, _, js = plan[len(records) // games - 1]
        recs = records[-games:]
        scores = {label: [score(r, label) for r, task in zip(recs, js) if label in task.seats]
                  for label in labels}
        for label, got in scores.items():
            if all(x is None for x in got):          # no score to tell the method
                why = next((r["error"] for r in recs if r.get("error")), "no result")
                raise TuneError(f"iteration {i}: every game of the {label} setting failed "
                                f"({excerpt(why, 200)}); the history keeps the iterations "
                                f"before it: run the same command with --resume once the "
                                f"cause is fixed")
        values = method.update(i, memo, scores)      # the scores first
        writer.writerow([i, games * i, field_text(field)] + values)
        f.flush()
        outcomes.append([float(x) for x in values[:len(method.scores)]])
        best.show()

    run.tasks(tasks, save, errors=errors, died=failed_game,
              name=lambda call: f"game {call[1][0].game} (iteration {iteration_of[call[1][0].game]})")


class _Best:
    """The tuning bar's postfix: the best setting so far (``method.theta()``), as
    ``best exploration=0.71 rollout_depth=12``.  A Bayes run's best is a search over
    every trial (most of a second at 1,000 trials), so it is asked again only once ten
    times its cost has passed, and not at all for a hidden bar."""

    def __init__(self, bar, params, method):
        self.bar, self.params, self.method = bar, params, method
        self.cost, self.shown = 0.0, -math.inf

    def show(self, force=False):
        now = time.monotonic()
        if self.bar.disable or not (force or now - self.shown >= 10 * self.cost):
            return
        theta = self.method.theta()
        self.cost, self.shown = time.monotonic() - now, now
        self.bar.set_postfix_str("best " + " ".join(
            f"{p.name}={p.played(x):.4g}" for p, x in zip(self.params, theta)))


def no_signal(outcomes):
    """How many iterations (each its list of scores) won every game or lost every game:
    their theta+ and theta- (or their trial and the others) cannot be told apart."""
    return sum(all(x == 1 for x in scores) or all(x == 0 for x in scores)
               for scores in outcomes)


def _warn_if_no_signal(outcomes, spec):
    """A warning when at least half of the iterations won (or lost) every game: the
    opponent is too weak (or too strong) for the scores to say anything."""
    flat = no_signal(outcomes)
    if outcomes and 2 * flat >= len(outcomes):
        # a file name that is not UTF-8 shown with U+FFFD: a warning is text to print
        warnings.warn(f"{flat} of {len(outcomes)} iterations won or lost every game against "
                      f"{utf8_text(', '.join(spec.opponents))}: they give no signal to tune by; choose an "
                      f"opponent of about the strength of {Path(str(spec.bot)).stem}", stacklevel=2)


def _game_spec(spec, i):
    """The game spec of iteration `i`'s games (-1: the verification's)."""
    return GameSpec(players=spec.players, seed=spec.seed, name=f"{spec.name}-{i}")


def _mean(scores):
    """The mean of the games that finished (``_play_batch`` stops a run where none did)."""
    scores = [s for s in scores if s is not None]
    return sum(scores) / len(scores)


def write_bot(out, spec, kind, params, method="SPSA"):
    """DIR/NAME.toml: the tuned configuration, with a comment saying how it was tuned.
    The text is checked to read back as this configuration before it is written."""
    path = Path(out) / f"{spec.name}.toml"
    text = bot_text(spec, kind, params, method)
    _check_bot_text(text, kind, path)
    write_text(path, text)
    botlib.load(path)                       # it must load
    return path


def bot_text(spec, kind, params, method="SPSA"):
    """The TOML of a tuned bot.  Free text (the bot's path, the opponents) is written as
    escaped TOML strings, in the comments too: a quote or a newline in a file name can
    neither break the file nor add a line to it."""
    ranges = ", ".join(f"{p.name} in [{p.low:g}, {p.high:g}]{' (int)' if p.integer else ''}"
                       for p in spec.params)
    lines = [f"# Tuned by {method} from {toml_string(spec.bot)}: {ranges};",
             f"# {spec.budget} games against {', '.join(map(toml_string, spec.opponents))}, "
             f"seed {spec.seed}.",
             "# Copy this file into bots/ to use it by name.",
             f"kind = {toml_string(kind)}",
             f"description = {toml_string(f'{spec.bot} tuned by {method} ({spec.budget} games)')}"]
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, float):
            value = float(f"{value:.4g}")      # what SPSA can tell apart, not float noise
        text = toml_string(value) if isinstance(value, str) else json.dumps(value)
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def _check_bot_text(text, kind, path):
    """A TuneError unless `text` is TOML of a `kind` bot whose knobs check."""
    try:
        table = tomllib.loads(text)
        knobs.check(kind, {k: v for k, v in table.items() if k not in knobs.META},
                     where=str(path))
    except (tomllib.TOMLDecodeError, ValueError) as e:
        raise TuneError(f"{path}: the tuned bot's file would not load ({e})") from None


def verify(spec, kind, base, tuned, backend, test, progress=True, kept=""):
    """The SPRT of the tuned bot against the original: ``match.play_sprt``, the test of
    ``tigris match`` with the settings `test` (``match.check_sprt``), over paired games on
    deals apart from the tuning's, stopped when it decides or after ``spec.verify_games``
    (default ``verify_games(budget)``), on the entered Backend `backend`, whose ``jobs``
    set how often the test looks.  Returns ``(check, records)``: the check as
    result.json holds it (``tunefolder.read_result``): the decision ("H1 accepted", "H0
    accepted", or "not significant" at the most games), the LLR and its bounds, the
    test's settings, the games and the score with its 95% interval.  With 3 or 4
    players both sit in each line-up with ``players - 2`` of the opponents (taken in turn
    from the first), every seating of a deal played, and a game scores by first places
    (``runner.first_of_two``: a game another player wins is a draw between them)."""
    from tigris import match
    from tigris.ratings import wilson_interval
    from tigris.tunefolder import DECISIONS

    most = spec.verify_games or verify_games(spec.budget)
    n = spec.players
    others = [spec.opponents[j % len(spec.opponents)] for j in range(n - 2)]
    deals = math.ceil(most / n)
    games = (task for d in range(deals)             # deals apart from the tuning's
             for task in deal_games(["tuned", "original", *others],
                                   deal_seed(spec.seed, VERIFY_DEALS + d), n * d))
    settings = {**spec.settings(others), "tuned": (kind, tuned), "original": (kind, base)}
    records = []
    r = match.play_sprt("tuned", "original", settings, _game_spec(spec, -1), games, n * deals, test,
                        most, backend.jobs, progress, save=records.append, kept=kept,
                        backend=backend, desc="verification", per_deal=n)
    points = r["wins"] + r["draws"] / 2
    decision = dict(zip(("H1", "H0", None), DECISIONS))[r["decision"]]
    check = {"test": "sprt", "decision": decision, "llr": r["llr"],
             "bounds": list(r["bounds"]), **test, "max_games": most, "games": r["games"],
             "wins": r["wins"], "draws": r["draws"], "losses": r["losses"],
             "score": points / r["games"] if r["games"] else None,
             "ci95": list(wilson_interval(points, r["games"])) if r["games"] else None,
             "errors": len(records) - r["games"]}
    return check, records


# ---------------------------------------------------------------------------------------
# Plot
# ---------------------------------------------------------------------------------------

def plot(out):
    """DIR/traces.png: each parameter's trace over the iterations (needs matplotlib, the
    ``plot`` extra)."""
    out = Path(out)
    path = check_target(out / "traces.png", option="--plot")
    if not (out / HISTORY_FILE).exists():
        raise TuneError(f"{out}: no {HISTORY_FILE} with iterations to plot")
    spec = read_settings(out)
    rows = read_history(out / HISTORY_FILE, spec["method"], spec["params"], spec["opponents"],
                        players=spec["players"], games=spec["iteration_games"])
    if not rows:
        raise TuneError(f"{out}: no {HISTORY_FILE} with iterations to plot")
    plt = plotting.pyplot(f"plotting needs matplotlib (the numbers are in {out / HISTORY_FILE})")
    names = [p["name"] for p in spec["params"]]
    its = [int(r["iteration"]) for r in rows]
    trials = spec["method"] != "spsa"      # a point per trial, else theta's trace
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 2.6 * len(names)), squeeze=False)
    for ax, name, p in zip(axes[:, 0], names, spec["params"]):
        values = [float(r[name]) for r in rows]
        if trials:      # each trial's parameters, coloured by its score
            dots = ax.scatter(its, values, c=[float(r["score"]) for r in rows], cmap="viridis",
                              vmin=0, vmax=1, s=14)
        else:
            ax.plot(its, values, label=name)
        ax.set_ylim(p["low"], p["high"])
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
        plotting.whole_numbers(ax.xaxis)             # iterations and trials
        if p.get("integer"):
            plotting.whole_numbers(ax.yaxis)
    if trials:
        fig.colorbar(dots, ax=axes[:, 0].tolist(), label="trial score")
    axes[-1, 0].set_xlabel("trial" if trials else "iteration")
    fig.suptitle(f"{GAMES[spec['method']].label}: {spec['bot']} against "
                 f"{', '.join(spec['opponents'])}")
    if not trials:
        fig.tight_layout()         # (the colour bar's layout is its own)
    return write_bytes(path, plotting.png(fig, dpi=100))


def verification_text(v, tuned, bot):
    """A verification (``read_result``'s, or ``tune``'s) in one sentence, the tuned bot
    named `tuned` and the original `bot`: the score and its 95% interval, then which
    bound of the SPRT the LLR crossed, or "not significant"; no Elo margin, which the
    test does not estimate (``match.verdict``).

    >>> from tigris.tune import verification_text
    >>> v = {"test": "sprt", "decision": "not significant", "llr": 1.2, "bounds": [-2.94, 2.94],
    ...      "elo0": 0, "elo1": 50, "max_games": 200, "games": 200, "score": 0.55,
    ...      "ci95": [0.481, 0.617]}
    >>> print(verification_text(v, "fast-tuned", "fast"))
    verification, fast-tuned vs fast, SPRT(H0: elo <= 0, H1: elo >= 50): 55.0% over 200 games (95% interval 48.1%-61.7%); LLR 1.20 within (-2.94, 2.94): not significant in the most games (--verify-games 200)
    """
    from tigris import match

    if v["score"] is None:
        said = f"no game counted ({v['errors']} failed)"
    else:
        said = (f"{v['score']:.1%} over {v['games']} games (95% interval "
                f"{v['ci95'][0]:.1%}-{v['ci95'][1]:.1%})")
    if v.get("test", "interval") == "interval":      # written before the SPRT
        return (f"verification, {tuned} vs {bot}: {said}" + ("" if v["significant"] else
                "; not significant: the interval includes 50%"))
    decision = {"H1 accepted": "H1", "H0 accepted": "H0"}.get(v["decision"])
    text = match.verdict(dict(v, a=tuned, b=bot, decision=decision),
                         undecided=f"not significant in the most games (--verify-games "
                                   f"{v['max_games']})")
    return (f"verification, {tuned} vs {bot}, SPRT(H0: elo <= {v['elo0']:g}, H1: elo >= "
            f"{v['elo1']:g}): {said}; {text}")
