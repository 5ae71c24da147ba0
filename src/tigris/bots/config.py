"""Bot configurations: the knobs of each kind of bot, their defaults, and checking them.

A bot file (TOML) names its kind and sets knobs; everything else takes the defaults:

    kind = "ismcts"
    description = "fast ISMCTS for tournaments"
    iterations = 1000
    exploration = 0.7
"""

import math

from tigris._eval import WEIGHTS
from tigris._search import MAX_ITERATIONS, MAX_ROLLOUT_DEPTH
from tigris.constants import N_ACTIONS
from tigris.errors import excerpt

__all__ = ["KINDS", "META", "MAX_TREES", "MAX_SECONDS", "is_default_weight", "defaults",
           "check", "check_value"]

# The evaluator's weights (tigris._eval.WEIGHTS): knobs of every bot that evaluates.
EVALUATOR = {name: (float, default, meaning) for name, (default, _, _, meaning) in WEIGHTS.items()}

# Knobs shared by the search bots (see docs/DESIGN.md).
SEARCH = {
    "iterations": (int, 1000, "search iterations per decision (or give seconds)"),
    "seconds": (float, None, "wall-clock seconds per decision instead of iterations"),
    "exploration": (float, 0.7, "UCB exploration constant"),
    "rollout": (str, "greedy", "rollout policy: random or greedy (epsilon-greedy)"),
    "epsilon": (float, 0.2, "share of random decisions in greedy rollouts"),
    "rollout_depth": (int, 10, "decisions played before the evaluation; 0 evaluates the leaf, -1 plays to the end"),
    "final": (str, "visits", "final move choice: visits (most visited) or value (best mean)"),
    "widening": (float, 2.0, "progressive widening: at most widening * sqrt(visits) children; 0 is off"),
    "root": (str, "ucb", "how the root shares out its visits: ucb (as any node) or halving (sequential halving)"),
    "candidates": (int, 16, "root = halving: the moves it starts from, the best after a phase of UCB"),
    "halving_scale": (float, 0.1, "root = halving: weight of a move's mean reward against its log prior"),
    "workers": (int, 1, "root-parallel workers (processes) whose statistics are merged"),
    "seed": (int, 0, "random seed: with one worker and iterations, choices are reproducible"),
    **EVALUATOR,
}

# Knobs of the honest searches (ismcts, pimc): how their determinizations deal the tiles
# their player cannot see (tigris.belief).
BELIEF = {
    "determinization": (str, "uniform", "how determinizations deal the unseen tiles: uniform, or "
                                        "belief (weighted by what the others' play reveals)"),
    "belief_particles": (int, 64, "determinization = belief: the particles (worlds) it keeps"),
    "belief_temperature": (float, 0.75, "determinization = belief: the temperature of the softmax "
                                       "over priors that weighs the others' moves"),
}

KINDS = {
    "random": {"seed": (int, 0, "random seed")},
    "greedy": {"seed": (int, 0, "random seed (determinization and ties)"), **EVALUATOR},
    "ismcts": dict(SEARCH, **BELIEF),
    "pimc": dict(SEARCH, determinizations=(int, 8, "determinizations, each searched as perfect information"),
                 **BELIEF),
    "cheat": dict(SEARCH),
}

CHOICES = {"rollout": ("random", "greedy"), "final": ("visits", "value"), "root": ("ucb", "halving"),
           "determinization": ("uniform", "belief")}
META = ("kind", "description")

# The range of each numeric knob (floats must also be finite, seconds above 0).  The upper
# bounds are what the compiled search holds (node ids and visit counts are int32, the
# rollout depth a C int), trees per decision a sane limit on processes and memory, and a
# seed any 64-bit value, signed or unsigned (a TOML integer; bots derive the searches'
# seeds from it); a time budget at most a day, as a longer one is a typo that never ends.
MAX_TREES = 1024
MAX_SECONDS = 86_400.0
RANGES = {
    "iterations": (1, MAX_ITERATIONS),
    "seconds": (0.0, MAX_SECONDS),
    "exploration": (0.0, math.inf),
    "epsilon": (0.0, 1.0),
    "rollout_depth": (-1, MAX_ROLLOUT_DEPTH),
    "widening": (0.0, math.inf),
    "candidates": (1, N_ACTIONS),
    "halving_scale": (0.0, math.inf),
    "workers": (1, MAX_TREES),
    "determinizations": (1, MAX_TREES),
    "belief_particles": (1, 4096),
    "belief_temperature": (0.001, 1000.0),
    "seed": (-2**63, 2**64 - 1),
    **{name: (low, high) for name, (_, low, high, _) in WEIGHTS.items()},
}


def is_default_weight(key, value):
    """Whether `key` is an evaluator weight at its default (listings leave those out)."""
    return key in EVALUATOR and value == EVALUATOR[key][1]


def defaults(kind):
    """Every knob of a `kind` bot at its default: name -> value."""
    return {key: spec[1] for key, spec in KINDS[kind].items()}


def check(kind, params, where="bot"):
    """Return the full, checked parameters of a bot of `kind`; raise ValueError naming
    `where`, the key and the valid values for anything wrong."""
    if kind not in KINDS:
        raise ValueError(f"{where}: unknown kind {kind!r}; kinds: {', '.join(KINDS)}")
    spec = KINDS[kind]
    unknown = [k for k in params if k not in spec]
    if unknown:
        raise ValueError(f"{where}: unknown key{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(map(repr, unknown))} for a {kind} bot; valid keys: "
                         f"{', '.join(spec)}")
    out = defaults(kind)
    for key, value in params.items():
        out[key] = check_value(kind, key, value, where)
    if "seconds" in spec and "seconds" in params and out["seconds"] is not None and "iterations" not in params:
        out["iterations"] = None
    if "seconds" in spec and out.get("iterations") is None and out.get("seconds") is None:
        raise ValueError(f"{where}: give iterations or seconds")
    return out


def check_value(kind, key, value, where=None):
    """One knob of a `kind` bot, checked (ints given for floats become floats); the
    ValueError names `where` (if given) and the key."""
    if key == "seconds" and value is None:
        return None
    checked, problem = _checked(KINDS[kind][key], key, value)
    if problem:
        raise ValueError(f"{where}: {problem}" if where else problem)
    return checked


def _checked(spec, key, value):
    """(the value, None) or (None, what is wrong with it)."""
    typ, _, meaning = spec
    given = value
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            value = float(value)
        except OverflowError:                   # an int beyond any double
            value = math.inf
    if not isinstance(value, typ) or isinstance(value, bool):
        return None, (f"{key} must be {typ.__name__ if typ is not str else 'a string'} ({meaning}), "
                      f"not {excerpt(given)}")
    if key in CHOICES and value not in CHOICES[key]:
        return None, f"{key} must be one of {', '.join(CHOICES[key])}, not {excerpt(given)}"
    if typ is float and not math.isfinite(value):
        return None, f"{key} must be a finite number ({meaning}), not {excerpt(given)}"
    if key not in RANGES:
        return value, None
    low, high = RANGES[key]
    if key == "epsilon" and not low <= value <= high:
        return None, f"epsilon must be between 0 and 1, not {excerpt(given)}"
    if value < low or (key == "seconds" and value <= 0):
        return None, f"{key} must be {'>' if key == 'seconds' else '>='} {low}, not {excerpt(given)}"
    if value > high:
        return None, f"{key} must be <= {high}, not {excerpt(given)}"
    return value, None
