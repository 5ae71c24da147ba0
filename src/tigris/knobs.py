"""The knobs: every setting of the bots, the search and the evaluator, stated once.

``KNOBS`` holds a row per knob: its type, default, range (numbers), choices (strings) and
meaning.  Everything else reads it: which bot kinds have which knobs (``KINDS``), the
checks of bot files, ``bots.make`` and ``tigris tune --param`` (``check``), the compiled
search and evaluator, which take their knobs checked here and have no defaults of their
own (``search_config``, ``check_weights``), ``tigris bots --knobs`` and the
documentation's tables.  The evaluator's weights are rows like any other (``WEIGHTS``
names them): knobs of every bot that evaluates.

A bot file (TOML) names its kind and sets knobs; everything else takes the defaults:

    kind = "ismcts"
    summary = "quick and fair: for tournaments"
    description = "fast ISMCTS for tournaments"
    iterations = 1000
    exploration = 0.7

>>> from tigris import knobs
>>> knobs.KNOBS["widening"].default, knobs.KNOBS["epsilon"].low, knobs.KNOBS["epsilon"].high
(2.0, 0.0, 1.0)
>>> knobs.check("ismcts", {"iterations": 50, "rollout": "random"})["rollout"]
'random'
>>> knobs.check_weights({"eval_leader": 0.5})["eval_leader"]
0.5
"""

import difflib
import math
import os
from typing import Any, NamedTuple

from tigris._plumbing import checks
from tigris._plumbing.renamed import old_names
from tigris.constants import N_ACTIONS
from tigris.errors import excerpt

__all__ = ["Knob", "KNOBS", "WEIGHTS", "PATHS", "SEARCH_CONFIG", "KINDS", "CHOICES", "RANGES", "META",
           "MAX_ITERATIONS", "MAX_ROLLOUT_DEPTH", "MAX_TREES", "MAX_SECONDS", "MAX_WORKERS",
           "defaults", "valid", "check", "check_value", "check_knob", "check_weights", "default_weights",
           "search_config", "is_default_weight"]

# What the compiled search holds: node ids and visit counts are int32, and every iteration
# adds at most one node and one root visit, so a tree takes at most MAX_ITERATIONS
# iterations in all; the rollout depth is a C int.
MAX_ITERATIONS = 2**31 - 2
MAX_ROLLOUT_DEPTH = 2**31 - 1
# Trees per decision: a sane limit on processes and memory.  A time budget: at most a day,
# as a longer one is a typo that never ends.
MAX_TREES = 1024
MAX_SECONDS = 86_400.0
# Each of a bot's ``workers`` is a process searching at once: more than this machine's
# cores only share them, at the memory of a process each.  A bot's settings read back
# (a results folder made elsewhere) are held to MAX_TREES alone (``here=False``).
MAX_WORKERS = os.cpu_count() or 1
INF = math.inf


class Knob(NamedTuple):
    """A knob's row: a number lies in [low, high] (floats also finite), a string is one of
    ``choices``; None as a default means "not set" (seconds: a budget of iterations)."""

    type: type
    default: Any
    meaning: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()


def _weight(default: float, low: float, high: float, meaning: str) -> Knob:
    return Knob(float, default, meaning, low, high)


# The evaluator's weights (fields of the Weights struct in _eval.pxd, in its order).  The
# defaults are the values the evaluator was built with; the ranges keep the search sound (a
# prior below 0 could never be expanded first, a scale of 0 would divide by zero).
_WEIGHT_ROWS = {
    "eval_second_colour": _weight(0.25, -INF, INF, "evaluation: weight of a point of the second weakest colour"),
    "eval_third_colour": _weight(0.05, -INF, INF, "evaluation: weight of a point of the third weakest colour"),
    "eval_fourth_colour": _weight(0.01, -INF, INF, "evaluation: weight of a point of the strongest colour"),
    "eval_leader": _weight(0.3, -INF, INF, "evaluation: worth of each leader on the board, in points"),
    "eval_scale": _weight(2.0, 0.01, INF, "evaluation: the standing gap (points) that a reward's logistic divides by"),
    "eval_calibrated": _weight(0.0, 0.0, 1.0, "evaluation: share of the calibrated win chance in a reward (0: the logistic alone)"),
    "prior_scoring_tile": _weight(3.0, 0.0, INF, "expansion prior of a tile that scores at once"),
    "prior_tile": _weight(1.0, 0.0, INF, "expansion prior of any other tile"),
    "prior_leader": _weight(1.5, 0.0, INF, "expansion prior of placing or moving a leader"),
    "prior_withdraw": _weight(0.3, 0.0, INF, "expansion prior of withdrawing a leader"),
    "prior_catastrophe": _weight(0.4, 0.0, INF, "expansion prior of a catastrophe"),
    "prior_swap": _weight(0.2, 0.0, INF, "expansion prior of a swap"),
    "prior_pass": _weight(0.1, 0.0, INF, "expansion prior of passing"),
    "prior_monument": _weight(1.2, 0.0, INF, "expansion prior of building a monument"),
    "prior_no_monument": _weight(0.8, 0.0, INF, "expansion prior of declining a monument"),
    "prior_other": _weight(1.0, 0.0, INF, "expansion prior of support, war order, treasure and building decisions"),
}

# A seed is any 64-bit value, signed or unsigned (a TOML integer); bots derive the
# searches' seeds from it.
KNOBS = {
    "iterations": Knob(int, 1000, "search iterations per decision (or give seconds)", 1, MAX_ITERATIONS),
    "seconds": Knob(float, None, "wall-clock seconds per decision instead of iterations", 0.0, MAX_SECONDS),
    "exploration": Knob(float, 0.7, "UCB exploration constant", 0.0, INF),
    "rollout": Knob(str, "greedy", "rollout policy: random or greedy (epsilon-greedy)",
                    choices=("random", "greedy")),
    "epsilon": Knob(float, 0.2, "share of random decisions in greedy rollouts", 0.0, 1.0),
    "rollout_depth": Knob(int, 10, "decisions played before the evaluation; 0 evaluates the leaf, "
                                   "-1 plays to the end", -1, MAX_ROLLOUT_DEPTH),
    "final": Knob(str, "visits", "final move choice: visits (most visited) or value (best mean)",
                  choices=("visits", "value")),
    "widening": Knob(float, 2.0, "progressive widening: at most widening * sqrt(visits) children; 0 is off",
                     0.0, INF),
    "root": Knob(str, "ucb", "how the root shares out its visits: ucb (as any node) or halving "
                             "(sequential halving)", choices=("ucb", "halving")),
    "candidates": Knob(int, 16, "root = halving: the moves it starts from, the best after a phase of UCB",
                       1, N_ACTIONS),
    "halving_scale": Knob(float, 0.1, "root = halving: weight of a move's mean reward against its log prior",
                          0.0, INF),
    "workers": Knob(int, 1, "root-parallel workers (processes) whose statistics are merged", 1, MAX_TREES),
    "seed": Knob(int, 0, "random seed: with one worker and iterations, choices are reproducible",
                 -2**63, 2**64 - 1),
    **_WEIGHT_ROWS,
    "evaluator": Knob(str, "heuristic", "what judges a position: heuristic (the standing, with the weights "
                                        "above) or net (the learned evaluation, tigris.network)",
                      choices=("heuristic", "net")),
    "network": Knob(str, "", "evaluator = net: a shipped generation's name (gen1) or a weights file "
                             "(tigris-network/2); empty: the default generation, for the game's "
                             "number of players"),
    "root_lookahead": Knob(float, 0.0, "weight of each root move's one-ply value (the evaluator's, "
                                       "on the first determinization) in its prior; 0: the priors alone",
                           0.0, 1000.0),
    "net_share": Knob(float, 1.0, "evaluator = net: the network's share of a position's value, the rest "
                                  "the heuristic's", 0.0, 1.0),
    "priors": Knob(str, "heuristic", "what orders the expansions and the root's moves: heuristic (the prior "
                                     "weights above) or net (the network's policy; evaluator = net, a "
                                     "network with a policy head)", choices=("heuristic", "net")),
    "policy_visits": Knob(int, 1, "priors = net: the visits from which a node expands by the policy (before: "
                                  "by the prior weights); its policy is evaluated once", 0, MAX_ITERATIONS),
    "policy_exploration": Knob(float, 0.0, "PUCT's term: a child's policy probability times sqrt(availability) "
                                           "/ (1 + visits), times this, added to its UCB score; 0: off",
                               0.0, 1000.0),
    "margin_share": Knob(float, 0.0, "share of the mover's score margin (its final score minus the best "
                                     "other player's, as the evaluator predicts it at a rollout's end) in "
                                     "a position's value, through a logistic; 0: the chances alone",
                         0.0, 1.0),
    "margin_scale": Knob(float, 10.0, "margin_share: the margin (points) that its logistic divides by",
                         0.1, 1000.0),
    "determinizations": Knob(int, 8, "determinizations, each searched as perfect information", 1, MAX_TREES),
    "determinization": Knob(str, "uniform", "how determinizations deal the unseen tiles: uniform, or "
                                            "belief (weighted by what the others' play reveals)",
                            choices=("uniform", "belief")),
    "belief_particles": Knob(int, 64, "determinization = belief: the particles (worlds) it keeps", 1, 4096),
    # Fitted on games of ismcts-fast with the heuristic, now ismcts-heuristic (docs/results.md, "Belief").
    "belief_temperature": Knob(float, 0.75, "determinization = belief: the temperature of the softmax "
                                           "over priors that weighs the others' moves", 0.001, 1000.0),
    # The openspiel kind: OpenSpiel's searches of the game (tigris.interop.openspiel).
    "algorithm": Knob(str, "ismcts", "kind = openspiel: OpenSpiel's search, ismcts (its IS-MCTS over the "
                                     "player's information state) or mcts (its MCTS on each of "
                                     "determinizations worlds, their root visits added)",
                      choices=("ismcts", "mcts")),
    "rollouts": Knob(int, 1, "kind = openspiel: uniformly random playouts to the end that judge each new "
                             "leaf (compiled, as OpenSpiel's random-rollout evaluator plays them)", 1, 1000),
    # A weaker player for measurements (tools/random_marks.py): an analysis must find its
    # random moves.
    "random_share": Knob(float, 0.0, "the share of its decisions the bot plays as a uniformly random "
                                     "legal move instead of its own (drawn from its seed); 0: none",
                         0.0, 1.0),
}

#: The knobs that name a file (a string of any value; empty: the shipped file; ``network``
#: may name a shipped generation instead, ``tigris.network.path_of``).
PATHS = ("network",)
#: The evaluator's weights, in the order of the Weights struct's fields.
WEIGHTS = tuple(_WEIGHT_ROWS)
# The search's knobs, in two runs: how the tree grows and chooses, and what judges and
# orders its moves (the weights between them).
_TREE = ("exploration", "rollout", "epsilon", "rollout_depth", "final", "widening", "root", "candidates",
         "halving_scale")
_JUDGES = ("evaluator", "network", "net_share", "root_lookahead", "priors", "policy_visits",
           "policy_exploration", "margin_share", "margin_scale")
#: What the compiled search takes as its configuration, every one of them (its seed, budget
#: and deals are arguments of their own).
SEARCH_CONFIG = (*_TREE, *WEIGHTS, *_JUDGES)

# Which kinds of bot have which knobs (docs/DESIGN.md).  The search bots have the search's
# knobs, a budget, workers and a seed; the honest ones (ismcts, pimc) also choose how their
# determinizations deal the tiles their player cannot see (tigris.belief).
_SEARCH_BOT = ("iterations", "seconds", *_TREE, "workers", "seed", *WEIGHTS, *_JUDGES)
_BELIEF = ("determinization", "belief_particles", "belief_temperature")
# Every bot that decides for itself may also play some of its decisions at random.
_RANDOM = ("random_share",)


def _kind(names: tuple[str, ...], **meanings: str) -> dict[str, tuple[type, Any, str]]:
    """A kind's knobs as name -> (type, default, meaning), a meaning given here replacing
    the table's (a seed means less to a bot without a search)."""
    return {name: (KNOBS[name].type, KNOBS[name].default, meanings.get(name, KNOBS[name].meaning))
            for name in names}


KINDS = {
    "random": _kind(("seed",), seed="random seed"),
    "greedy": _kind(("seed", *WEIGHTS, "evaluator", "network", "net_share", *_RANDOM),
                    seed="random seed (determinization and ties)"),
    "ismcts": _kind(_SEARCH_BOT + _BELIEF + _RANDOM),
    "pimc": _kind(_SEARCH_BOT + ("determinizations",) + _BELIEF + _RANDOM),
    "cheat": _kind(_SEARCH_BOT + _RANDOM),
    "openspiel": _kind(("algorithm", "iterations", "seconds", "exploration", "rollouts", "determinizations",
                        "seed"),
                       iterations="simulations per decision (mcts: shared out over the determinizations)",
                       seconds="wall-clock seconds per decision instead of iterations (ismcts only)",
                       exploration="UCT's exploration constant",
                       determinizations="algorithm = mcts: the worlds dealt from what the player cannot "
                                        "see, each searched by OpenSpiel's MCTS"),
}

#: The strings a knob may be: name -> choices.
CHOICES = {name: knob.choices for name, knob in KNOBS.items() if knob.choices}
#: The range of each numeric knob (floats must also be finite, seconds above 0).
RANGES = {name: (knob.low, knob.high) for name, knob in KNOBS.items() if knob.low is not None}
#: The keys of a bot file that are not knobs: its kind, the bot it extends (its knobs
#: taken, the file's own replacing them), and two lines about it, for players
#: (``summary``: its strength in words and its measured Elo) and on how it searches
#: (``description``).
META = ("kind", "extends", "description", "summary")


def is_default_weight(key: str, value: Any) -> bool:
    """Whether `key` is an evaluator weight at its default (listings leave those out)."""
    return key in _WEIGHT_ROWS and value == KNOBS[key].default


def valid(key: str) -> str:
    """A knob's valid values in words (the documentation's tables): its choices, or its
    range ("any" for every finite number)."""
    knob = KNOBS[key]
    if key in PATHS:
        return "a shipped generation, a file, or empty for the default generation"
    if knob.choices:
        return " or ".join(knob.choices)
    if knob.low is None:
        return "any"
    if key == "seconds":
        return f"above 0, at most {knob.high:g}"
    if key == "workers":
        return f"{knob.low} to the machine's cores (at most {knob.high})"
    if knob.low == -INF:
        return "any finite number" if knob.high == INF else f"at most {knob.high}"
    return f"at least {knob.low}" if knob.high == INF else f"{knob.low} to {knob.high}"


def defaults(kind: str) -> dict[str, Any]:
    """Every knob of a `kind` bot at its default: name -> value."""
    return {key: spec[1] for key, spec in KINDS[kind].items()}


def default_weights() -> dict[str, float]:
    """Every weight of the evaluator at its default: name -> value."""
    return {name: KNOBS[name].default for name in WEIGHTS}


def check(kind: str, params: dict[str, Any], where: str = "bot", here: bool = True) -> dict[str, Any]:
    """Return the full, checked parameters of a bot of `kind`; raise ValueError naming
    `where`, the key and the valid values for anything wrong.  With `here`, the bot is to
    play on this machine: ``workers`` at most its cores (MAX_WORKERS), and a ``network``
    only with ``evaluator = "net"``, which alone reads it.  Without, the settings are
    read back from a run made elsewhere (a results folder), and held to the table alone."""
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValueError(f"{where}: unknown kind {excerpt(kind)}; kinds: {', '.join(KINDS)}")
    spec = KINDS[kind]
    article = "an" if kind[:1] in "aeiou" else "a"
    _refuse_unknown(params, spec, f"{where}: unknown key", f" for {article} {kind} bot; valid keys")
    out = defaults(kind)
    for key, value in params.items():
        if key == "iterations" and value is None and params.get("seconds") is not None:
            out[key] = None         # a time budget, as a results folder saves a bot's knobs
            continue
        out[key] = check_value(kind, key, value, where, here)
    if "seconds" in spec and "seconds" in params and out["seconds"] is not None and "iterations" not in params:
        out["iterations"] = None
    if "seconds" in spec and out.get("iterations") is None and out.get("seconds") is None:
        raise ValueError(f"{where}: give iterations or seconds")
    if out.get("algorithm") == "mcts" and out.get("seconds") is not None:
        raise ValueError(f"{where}: algorithm = \"mcts\" takes iterations, not seconds (OpenSpiel's MCTS "
                         f"has no clock)")
    if here and params.get("network") and out.get("evaluator") != "net":
        # read only by the learned evaluation: without it the file would be ignored unsaid
        raise ValueError(f"{where}: network {excerpt(params['network'])} is read only with "
                         f"evaluator = \"net\" (here {excerpt(out.get('evaluator'))}): set "
                         f"evaluator = \"net\" to use it, or leave network out")
    return out


def check_value(kind: str, key: str, value: Any, where: str | None = None, here: bool = True) -> Any:
    """One knob of a `kind` bot, checked (ints given for floats become floats); the
    ValueError names `where` (if given) and the key."""
    return check_knob(key, value, where, meaning=KINDS[kind][key][2], here=here)


def check_knob(key: str, value: Any, where: str | None = None, meaning: str | None = None,
               here: bool = True) -> Any:
    """One knob of the table, checked (ints given for floats become floats); the
    ValueError names `where` (if given) and the key, and says what the knob means.  With
    `here`, ``workers`` is held to this machine's cores (MAX_WORKERS)."""
    if key == "seconds" and value is None:
        return None
    checked, problem = _checked(KNOBS[key], key, value, meaning or KNOBS[key].meaning)
    if not problem and here and key == "workers" and checked > MAX_WORKERS:
        problem = (f"workers must be at most {MAX_WORKERS}, this machine's cores (a process "
                   f"each), not {excerpt(value)}")
    if problem:
        raise ValueError(f"{where}: {problem}" if where else problem)
    return checked


def check_weights(weights: dict[str, Any]) -> dict[str, float]:
    """Every weight of the evaluator: those given checked, the rest at their defaults; a
    ValueError names an unknown or bad one."""
    _refuse_unknown(weights, _WEIGHT_ROWS, "unknown weight", "; weights")
    return {name: check_knob(name, weights[name]) if name in weights else KNOBS[name].default
            for name in WEIGHTS}


def search_config(knobs: dict[str, Any]) -> dict[str, Any]:
    """The configuration of the compiled search: every knob of ``SEARCH_CONFIG``, those
    given checked, the rest at their defaults (the bots'); a ValueError names an unknown
    or bad one."""
    _refuse_unknown(knobs, SEARCH_CONFIG, "unknown knob", " of the search; its knobs")
    return {name: check_knob(name, knobs[name]) if name in knobs else KNOBS[name].default
            for name in SEARCH_CONFIG}


def _refuse_unknown(given, known, noun, tail):
    """A ValueError "NOUN[s] 'a', 'b'TAIL: the known keys" for the keys of `given` that
    are not in `known`."""
    unknown = [k for k in given if k not in known]
    if unknown:
        guess = difflib.get_close_matches(str(unknown[0]), list(known), n=1)
        hint = f"; did you mean {guess[0]!r}?" if guess else ""
        raise ValueError(f"{noun}{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}"
                         f"{tail}: {_key_list(known)}{hint}")


def _key_list(known) -> str:
    """The known keys, a run of the evaluation's or the priors' weights shortened to its
    prefix, so that the list stays one readable line (``tigris bots --knobs`` lists all)."""
    out: list[str] = []
    for key in known:
        family = key.split("_")[0] + "_*" if key in _WEIGHT_ROWS and key.split("_")[0] != key else key
        if family not in out:
            out.append(family)
    return ", ".join(out)


def _checked(knob, key, value, meaning):
    """(the value, None) or (None, what is wrong with it): a string among its choices, or a
    number checked by ``tigris._plumbing.checks`` (ints given for floats become floats)."""
    if knob.type is str:
        if not isinstance(value, str):
            return None, f"{key} must be a string ({meaning}), not {excerpt(value)}"
        if knob.choices and value not in knob.choices:
            return None, f"{key} must be one of {', '.join(knob.choices)}, not {excerpt(value)}"
        return value, None
    low = -math.inf if knob.low is None else knob.low
    high = math.inf if knob.high is None else knob.high
    check = checks.whole if knob.type is int else checks.number
    try:
        value = check(key, value, low, high, meaning)
    except ValueError as e:
        return None, str(e)
    if key == "seconds" and value <= 0:         # a budget of no time searches nothing
        return None, f"seconds must be > 0, not {excerpt(value)}"
    return value, None


# TABLE, the former name of KNOBS
__getattr__ = old_names(__name__, {"TABLE": "KNOBS"})
