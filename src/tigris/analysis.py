"""Computer analysis of a finished game: every decision of the chosen players searched
again, the engine's best move beside the move played, the expected score margin and the
win chance before and after it, and a mark where the move played lost much of the
margin (or, as asked, of the win chance).

>>> from tigris import analysis, record
>>> rec = record.load("my-game.json")                                  # doctest: +SKIP
>>> header, rows = analysis.run(rec, "my-game.analysis.jsonl", source="my-game.json",
...                             iterations=10_000, jobs=2)             # doctest: +SKIP
>>> print(analysis.format_summary(analysis.summarize(header, rows)))  # doctest: +SKIP
>>> header, rows = analysis.read_analysis("my-game.analysis.jsonl")   # doctest: +SKIP

The measure
-----------
A mark is the cost of a move in the header's ``measure``:

- ``margin`` (the default): the mover's expected final score minus the best other
  player's, in points, as the search backs it up beside the chances (each rollout's end
  judged by the network's predicted final scores, a finished game by its own; read
  along a move's best line as the chances are: ``tigris.search``).  Once a game is
  decided a move barely moves the win chance, but it still costs points: a lost game's
  mistakes are found by the margin.  Its searches play for points too: the bot's knobs
  with ``margin_share = MARGIN_SHARE`` (``engine_of``), as a search for the chances
  alone plays on at random once the game is decided and its margins could not tell one
  move from another.
- ``win``: the mover's chance of finishing first, the figure of the hints (the bot's
  knobs as they are).

Whatever the measure, every row keeps both figures, the win chance as information.

The figures
-----------
Each decision is searched as ``tigris hint`` searches it (the ``ismcts-hint``
configuration by default, ``tigris.hints.ranked``): from the position before the move, as
the mover saw it (the bot deals afresh everything the mover could not see, so the
analysis never uses the real hidden tiles).  The chances are the calibrated chances of
finishing first of ``tigris.chance`` (a shared first place counts as its share).

- ``chances``: every player's chance before the move, with the engine's best plan (they
  add up to 1: the viewer's graph draws them); ``win_before`` is the mover's and
  ``margin_before`` its margin.  The best plan is the one with the best figure of the
  measure: the search's choice, unless a move it examined whose figure, with ``EQUAL``
  standard errors, reads above its choice's (the ``RIVALS`` highest such) reads better
  when searched alone as below.
- ``win_after`` and ``margin_after``: the mover's figures after the move played.  The
  engine's best move played: the same as before (``after_from = "best"``).  Any other
  move is searched alone (``after_from = "searched"``): the same search from the same
  position, from the mover's point of view, its root held to the move played (``only``)
  and given as many iterations as the search's choice had in the first search, so that
  both are read along lines of the same depth.  What kind of decision it is does not
  matter: a move that ends the turn is judged like any other, the other players' replies
  searched within the mover's tree, never by another player's search.  A move played
  that, so searched, reads above the best is itself the best (``after_from = "best"``).
- ``drop``, the figure before minus the figure after in the measure, and ``noise``, its
  standard error (the two figures' errors: a chance's from its move's own visits, as a
  hint gives it; a margin's with ``MARGIN_SEED_SPREAD`` points more, the spread between
  seeds).
- ``mark``: by the drop, at least the measure's threshold of ``"blunder"``, else of
  ``"mistake"``, else of ``"inaccuracy"`` (``THRESHOLDS``: of the margin 3, 1.5 and 0.75
  points; of the win chance 0.20, 0.10 and 0.05; ``run(..., thresholds=...)`` and
  ``tigris analyse --inaccuracy/--mistake/--blunder`` change them), and only where the
  drop is beyond the noise (more than ``tigris.hints.EQUAL`` times it), else null.  A
  negative drop (the move played looks better than the engine's pick, within the noise)
  counts as 0 for the marks and means.
- ``rank``: the move played in the hint's order (1 for the engine's plans within its
  noise, ``equal``); null if the search did not examine it (``tigris.hints.SEARCHED``).
- ``verdict``: the row in words, the same in the terminal, the page and the file
  (``verdict``): "the engine's choice"; "one of the engine's equal choices (its choice:
  MOVE)" for an unmarked equal; else "the engine's choice: MOVE (this move: its Nth)",
  or "(this move: not examined)".
- A decision with a single legal move is not searched: a ``forced`` row.

Every decision is searched by one process with a seed of its own (``decision_seed``:
the base seed and the move number), so the rows do not depend on the order of the
decisions or the number of jobs (with an iteration budget; a time budget is not
reproducible).

The file (``tigris-analysis/3``)
--------------------------------
JSON lines.  Line 1 is the header::

    {"format": "tigris-analysis/3", "record": hash of the game's setup and moves,
     "source": the record as given, "moves": moves in the record, "decisions": the
     decisions of the chosen players, "bot": configuration name, "engine": a digest of
     the version, the knobs searched with and the network file (``engine_digest``),
     "iterations": N or "seconds": S (per search), "seed": base seed, "players": [chosen
     players], "measure": "margin" | "win", "thresholds": {"inaccuracy": .., "mistake":
     .., "blunder": ..} (the measure's), "luck": [[move, player, luck], ...]}

``luck`` holds the luck of every draw of the game, every player's (``tigris.play.luck``: the
drawer's chance after the tiles drawn against its mean over the draws the bag could have
given); the summary adds it up per player.  A header written before it has none.

then one line per decision analysed, in any order (the jobs finish in any order;
``read_analysis`` sorts them by move)::

    {"move": n (1-based number of the move in the record: the position before it is
     the state after n - 1 moves, tigris show --move n-1), "player": p, "decision":
     "action", "support", ..., "played": notation, "best": notation (the first move of
     the engine's best plan), "chances": [every player's chance before the move],
     "win_before": float, "win_after": float, "margin_before": points, "margin_after":
     points, "drop": float (in the measure), "noise": float, "rank": the move played in
     the hint's order, "equal": whether it is among the engine's equals, "legal": legal
     moves, "mark": null | "inaccuracy" | "mistake" | "blunder", "visits": the move
     played's root visits in the first search, "iterations": its searches' in all,
     "after_from": "best" | "searched" | "forced", "continuation": the engine's expected
     line after its best plan, as "player N: move" strings, "verdict": the row in words}

Floats are rounded to 4 decimals.  A row without ``verdict`` (written before it was) is
given it when read.  A forced row has ``chances``, ``win_before``, ``win_after``,
``margin_before``, ``margin_after`` and ``noise`` null, ``drop`` 0, ``rank`` 1, ``equal``
true and ``legal`` 1.  Files of the earlier formats (``tigris-analysis/1``, whose
chances were read another way, and ``tigris-analysis/2``, marked by the win chance alone)
are refused with a word to analyse the game again.

Resuming: each row is appended (in one write) as soon as its decision is done; running
the same analysis again skips the decisions already in the file.  A file whose header
differs in the record, the bot, the budget, the seed, the players, the measure or the
thresholds is refused, naming the field, and so is one whose engine differs while
decisions are left to add (a file written before ``engine`` was too: another engine may
have written it); a torn last line (a run killed while writing) is cut off
with a warning.  Every line read back is checked (``read_analysis``): the header's
fields and each row's, by type and range, and on resuming each row against the
game's decision at its move; a UsageError names the file, the line and the field.
"""

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tigris import bots as botlib
from tigris import knobs
from tigris._plumbing import jsonl, renamed, work
from tigris import record as records
from tigris.errors import ConfigError, Interrupted, RecordError, UsageError, excerpt
from tigris.files import check_target, open_append
from tigris._plumbing.locks import holding
from tigris.hints import DEFAULT_BOT as DEFAULT_HINT_BOT
from tigris.hints import EQUAL, ranked
from tigris.play import seeds
from tigris.sources import open_source, read_source

__all__ = ["FORMAT", "Decision", "DEFAULT_BOT", "MEASURES", "DEFAULT_MEASURE", "THRESHOLDS", "MARGIN_SEED_SPREAD", "MARGIN_SHARE",
           "SAME", "ROW_FIELDS", "ROW_OPTIONAL", "RIVALS",
           "decision_seed", "record_hash", "engine_digest", "engine_of", "mark", "verdict", "check_thresholds",
           "check_measure", "replayed", "decisions",
           "analyse_decision", "run", "plan", "read_analysis", "summarize", "format_summary"]

FORMAT = "tigris-analysis/3"
# Earlier formats, refused with a word to analyse again: what they lack.
OLD_FORMATS = {"tigris-analysis/1": "whose chances were read another way",
               "tigris-analysis/2": "marked by the win chance alone, which stops moving once a "
                                    "game is decided"}
DEFAULT_BOT = DEFAULT_HINT_BOT   # searched as the hints search: the same figures
DEFAULT_ITERATIONS = 10_000      # per search: about a tenth of a second
RIVALS = 6                       # moves the search passed over, searched alone to check
# What a drop is measured in (the header's ``measure``): the mover's expected final score
# minus the best other player's, in points (``margin``: it still moves in a decided
# game), or its chance of finishing first (``win``).
MEASURES = ("margin", "win")
DEFAULT_MEASURE = "margin"
# The least drop of each mark, by measure: points of margin, or of win chance (a fraction).
THRESHOLDS = {"margin": {"inaccuracy": 0.75, "mistake": 1.5, "blunder": 3.0},
              "win": {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.20}}
MAX_THRESHOLD = {"margin": 100.0, "win": 1.0}     # a threshold's largest value, by measure
# A tree's standard error of a move's margin counts its own visits' spread; searches of one
# position with other seeds differ by this much more (points; docs/results.md,
# "Analysis").
MARGIN_SEED_SPREAD = 0.2
# The margin's analysis searches with this share of the margin in its values (the knob
# margin_share), unless the bot's file sets its own: a search for the chances alone plays
# on at random once a game is decided, and its margins cannot tell a move from another.
MARGIN_SHARE = 0.5
MARKS = ("blunder", "mistake", "inaccuracy")                          # worst first
DECIMALS = 4
# What a resumed analysis must share with the file's header (source may differ: the
# same game given by another path); and its engine (``engine_digest``) to add rows to it.
SAME = ("record", "bot", "iterations", "seconds", "seed", "players", "measure", "thresholds",
        "moves", "decisions")
AFTER_FROM = ("best", "searched", "forced")                          # how win_after was read


decision_seed = seeds.decision_seed        # the search seed of an analysis's decision


@dataclass(frozen=True)
class Decision(renamed.DictReads):
    """A decision to analyse: its move number ``move`` (the first move is 1), the game
    ``before`` it (a copy), the ``action`` played there, and the game ``after`` it (a
    copy; None where no one reads it).  Decisions were dicts until 2.1:
    ``decision["before"]`` still reads a field, with a DeprecationWarning."""

    move: int
    before: Any                   # a tigris.Game
    action: int
    after: Any = None
    _since = "an analysis's decisions are records since 2.1"
    _given, _instead = "a decision", "give an analysis.Decision"     # Decision.of(a dict)


def record_hash(game):
    """A short hash of a replayed game's setup and moves (each with its draws and forced
    follow-ups): the same game whichever file or spelling it came from."""
    rec = records.to_record(game)
    key = {k: rec[k] for k in ("board", "variants", "players", "seed", "deal", "moves")}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def engine_digest(kind, params, players):
    """A short digest of what decides an analysis's rows beside its budget and seed: the
    version of tigris, the bot's knobs and the bytes of the network file its search would
    read for `players` players.  A bot file edited, or a network replaced under the same
    name, between two runs into one file changes it, so their rows never mix."""
    from tigris import __version__
    from tigris import network as networks

    digest = hashlib.sha256(json.dumps([__version__, kind, params], sort_keys=True,
                                       default=str).encode("utf-8"))
    try:
        path = networks.path_of(params.get("network", ""), players)
    except ValueError:                       # an unknown generation fails in the search, not here
        return digest.hexdigest()[:16]
    if path.is_file():                       # a missing one fails in the search, not here
        digest.update(read_source(path))
    return digest.hexdigest()[:16]


def mark(drop, thresholds=None, noise=0.0):
    """The mark of a drop (in the measure of `thresholds`, by default the default
    measure's ``THRESHOLDS``): the worst whose threshold it reaches, else None; None too
    for a drop within the search's noise (at most EQUAL times `noise`, the drop's
    standard error)."""
    thresholds = THRESHOLDS[DEFAULT_MEASURE] if thresholds is None else thresholds
    if drop <= EQUAL * noise:
        return None
    for name in MARKS:
        if drop >= thresholds[name]:
            return name
    return None


def check_measure(measure=None):
    """The measure (``DEFAULT_MEASURE`` if None), one of ``MEASURES``; else a UsageError."""
    measure = DEFAULT_MEASURE if measure is None else measure
    if measure not in MEASURES:
        raise UsageError(f"measure must be {' or '.join(MEASURES)}, not {excerpt(measure)}")
    return measure


def check_thresholds(thresholds=None, measure=DEFAULT_MEASURE):
    """The thresholds of `measure` (its ``THRESHOLDS`` for those not given), each above 0
    and at most its ``MAX_THRESHOLD`` (points of margin, or a win chance's 1),
    inaccuracy <= mistake <= blunder; a UsageError names the one that is wrong."""
    defaults = THRESHOLDS[check_measure(measure)]
    given = thresholds or {}
    unknown = [k for k in given if k not in defaults]
    if unknown:
        raise UsageError(f"thresholds: unknown {', '.join(map(repr, unknown))}; "
                         f"known: {', '.join(defaults)}")
    what = ("a drop of margin above 0 and at most 100 points" if measure == "margin"
            else "a drop of win chance above 0 and at most 1")
    out = {}
    for name, default in defaults.items():
        value = given.get(name)
        value = default if value is None else value
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not (math.isfinite(value) and 0 < value <= MAX_THRESHOLD[measure]):
            raise UsageError(f"{name} must be {what}, not {excerpt(value)}")
        out[name] = float(value)
    if not out["inaccuracy"] <= out["mistake"] <= out["blunder"]:
        raise UsageError(f"thresholds must grow: inaccuracy {out['inaccuracy']:g} <= mistake "
                         f"{out['mistake']:g} <= blunder {out['blunder']:g}")
    return out


# ---------------------------------------------------------------------------------------
# One decision
# ---------------------------------------------------------------------------------------

def replayed(rec, source="record"):
    """``(states, moves, hash)`` of a record replayed once: a copy of the game before
    each move and after the last, each move's ``(action, draws)`` (``Game.history``),
    and the record's hash.  A RecordError names `source` and the move."""
    states, moves = [], []
    try:
        for n, g in records.steps(rec):
            states.append(g.copy(stack=False))
            if n:
                moves.append((g.history[-1][0], list(g.history[-1][3])))
        records.check_result(rec, g)          # a result its moves do not give is a lie
        return states, moves, record_hash(g)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError) as e:
        what = str(e) if isinstance(e, ValueError) else f"{type(e).__name__}: {e}"
        raise RecordError(f"{source}: {what}") from None


def decisions(rec, players=None, source="record", replay=None):
    """(header fields, tasks) of a record: ``record``, ``moves``, ``players`` (sorted; all
    when None) and ``decisions``; a ``Decision`` per decision of those players.  The
    record is replayed move by move (unless `replay`, ``replayed``'s answer, is given): a
    RecordError names `source` and the move; a UsageError a player not in the game."""
    states, moves, game_hash = replay or replayed(rec, source)
    actions = [action for action, _ in moves]
    n_players = states[0].players
    if players is None:
        players = list(range(n_players))
    for p in players:
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < n_players:
            raise UsageError(f"players: {excerpt(p)} is not a player of this {n_players}-player "
                             f"game (0 to {n_players - 1})")
    players = sorted(set(players))
    tasks = [Decision(n, states[n - 1], actions[n - 1], states[n])
             for n in range(1, len(states)) if states[n - 1].current_player in players]
    fields = {"record": game_hash, "moves": len(actions), "decisions": len(tasks),
              "players": players}
    return fields, tasks


def _ordinal(n):
    return f"{n}{'th' if 11 <= n % 100 <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def verdict(row):
    """An analysis row in words: whether the move played was the engine's choice, one of
    its equal choices, or another move (naming the engine's choice and where the move
    played stood)."""
    if row["after_from"] == "forced":
        return "the only legal move"
    if row["after_from"] == "best":
        return "the engine's choice"
    if row["equal"] and not row["mark"]:
        return f"one of the engine's equal choices (its choice: {row['best']})"
    where = f"its {_ordinal(row['rank'])}" if row["rank"] else "not examined"
    return f"the engine's choice: {row['best']} (this move: {where})"


def analyse_decision(task, engine, budget, seed, thresholds, measure=DEFAULT_MEASURE):
    """The row of one decision (see the module's docstring).  `engine` is the search bot's
    ``(kind, name, params)``, `budget` ``{"iterations": N}`` or ``{"seconds": S}``, `seed`
    the analysis's base seed, `thresholds` those of `measure`, what the best move and the
    drop are judged by.  `task` is a ``Decision``."""
    task = Decision.of(task)
    before, played = task.before, task.action
    p = before.current_player
    legal = before.legal_actions()
    row = {"move": task.move, "player": p, "decision": before.decision,
           "played": before.action_str(played)}
    if len(legal) == 1:
        row = dict(row, best=row["played"], chances=None, win_before=None, win_after=None,
                   margin_before=None, margin_after=None, drop=0.0, noise=None, rank=1,
                   equal=True, legal=1, mark=None, visits=0, iterations=0, after_from="forced",
                   continuation=[])
        return dict(row, verdict=verdict(row))
    kind, name, params = engine
    bot = botlib.CLASSES[kind](name=name, **dict(params, seed=decision_seed(seed, task.move),
                                                workers=1))
    stats = bot.root_statistics(before, **budget)
    rows = _with_margins(ranked(before, stats.children), stats.children)
    choice = rows[0]
    # The move played begins a row's plan, or is the later action of one whose other
    # order was kept.
    mine = next((r for r in rows if r["action"] == played), None) or \
        next((r for r in rows if row["played"] in r["plan"]), None)
    # A move searched alone, as deeply as the search's choice was: its row.
    alone = ({"iterations": max(1, choice["visits"])} if "iterations" in budget
             else {"seconds": budget["seconds"] * max(choice["share"], 0.01)})
    iterations = stats.iterations
    searched = {}

    def search_alone(action):
        nonlocal iterations
        if action not in searched:
            again = bot.root_statistics(before, only=[action], **alone)
            iterations += again.iterations
            searched[action] = _with_margins(ranked(before, again.children), again.children)[0]
        return searched[action]

    value, error = _MEASURED[measure]
    # Moves the search examined whose figure may read above its choice's (within their
    # noise) may be better moves it passed over: the most promising of them are searched
    # alone, as deeply.  (By the win chance these are the choice's equals; a decided game
    # makes every examined move an equal, and its margin tells them apart.)
    best = choice

    def hope(r):
        return value(r) + EQUAL * error(r)

    rivals = sorted((r for r in rows[1:] if r["searched"] and hope(r) > value(choice)),
                    key=lambda r: -hope(r))
    for rival in rivals[:RIVALS]:
        verified = search_alone(rival["action"])
        if value(verified) > value(best):
            best = verified
    if played == best["action"]:
        after, how = best, "best"
    else:
        after = search_alone(played)
        if value(after) > value(best):
            # searched alone, the move played reads above every other: it is the best
            best = after
            how = "best"
        else:
            how = "searched"
    noise = 0.0 if how == "best" else math.hypot(error(best), error(after))
    figures = {f"{k}_{when}": round(r[k], DECIMALS) for k in ("win", "margin")
               for when, r in (("before", best), ("after", after))}
    drop = round(figures[f"{measure}_before"] - figures[f"{measure}_after"], DECIMALS)
    row = dict(row, best=best["move"], chances=[round(c, DECIMALS) for c in best["chances"]],
               **figures, drop=drop, noise=round(noise, DECIMALS),
               rank=mine["rank"] if mine else None, equal=bool(mine and mine["equal"]),
               legal=len(legal), mark=mark(drop, thresholds, noise),
               visits=mine["visits"] if mine else 0, iterations=iterations, after_from=how,
               continuation=best["continuation"])
    return dict(row, verdict=verdict(row))


def _with_margins(rows, children):
    """The rows of a hint (``tigris.hints.ranked``) of a search whose root `children` they
    came from, each with the mover's expected score ``margin`` of its first move and that
    margin's standard error, ``margin_error`` (the tree's, with the spread between seeds,
    ``MARGIN_SEED_SPREAD``)."""
    by_action = {ch.action: ch for ch in children}
    for r in rows:
        ch = by_action[r["action"]]
        r["margin"] = ch.margin
        r["margin_error"] = math.hypot(ch.margin_error, MARGIN_SEED_SPREAD)
    return rows


# Each measure's figure of a row and its standard error.
_MEASURED = {"margin": (lambda r: r["margin"], lambda r: r["margin_error"]),
             "win": (lambda r: r["win"], lambda r: r["error"])}


# ---------------------------------------------------------------------------------------
# A whole game
# ---------------------------------------------------------------------------------------

@holding("out", file=True)        # one run at a time on a file
def run(rec, out, source="record", iterations=None, seconds=None, players=None, jobs=1,
        bot=DEFAULT_BOT, seed=0, thresholds=None, progress=True, on_row=None, measure=None):
    """Analyse the decisions of `players` (default: all) in the game record `rec` (a
    ``tigris-game/1`` dict; `source` names it in messages and the header) and append a
    row per decision to the file `out`; returns ``(header, rows sorted by move)``.

    The budget of each search is `iterations` (default DEFAULT_ITERATIONS) or
    `seconds`; `jobs` processes search decisions side by side; `bot` names an ismcts
    configuration (default ``hint``); `seed` is the base seed; `measure` what a drop is
    measured in (``MEASURES``, default ``DEFAULT_MEASURE``), `thresholds` its marks' least
    drops (default its ``THRESHOLDS``).  An `out` that holds
    part of the same analysis is continued; one that holds anything else is refused
    (UsageError, naming the field that differs), never overwritten.  `on_row`, if given,
    is called with ``(decisions done, decisions, their iterations)`` once the file is
    read and again after each row is written (``tigris serve`` reports its progress so).
    Ctrl-C stops the workers and raises Interrupted saying what is kept."""
    out = Path(out)
    if out.is_dir():
        raise UsageError(f"{out}: is a folder; name a file for the analysis")
    check_target(out, reads=[source], option="--out")    # appended to: a regular file
    header, tasks, engine = plan(rec, source, iterations, seconds, players, bot, seed, thresholds,
                                 measure)
    game = {t.move: (t.before.current_player, t.before.action_str(t.action)) for t in tasks}
    fresh = header["engine"]
    header, done = _resume(out, header, game)
    todo = [t for t in tasks if t.move not in done]
    if on_row:
        on_row(len(done), header["decisions"], sum(r["iterations"] for r in done.values()))
    if todo and header.get("engine") != fresh:
        raise UsageError(f"{out} holds part of an analysis by another engine (another version "
                         f"of tigris, other settings of {header['bot']} or another network: "
                         f"engine {excerpt(header.get('engine'), 20)}): new rows would not "
                         f"mix with its rows; choose another out file")
    if todo:
        budget = {k: header[k] for k in ("iterations", "seconds") if k in header}
        _analyse(todo, done, out, header, engine, budget, jobs, progress, on_row)
    return header, sorted(done.values(), key=lambda r: r["move"])


def plan(rec, source="record", iterations=None, seconds=None, players=None, bot=DEFAULT_BOT,
         seed=0, thresholds=None, measure=None):
    """(header, tasks, engine) of an analysis of `rec` (the options as ``run`` takes
    them, checked): the file's header, a task per decision (``decisions``) and the
    search bot's ``(kind, name, params)`` for ``analyse_decision``."""
    if iterations is not None and seconds is not None:
        raise UsageError("give iterations or seconds, not both")
    if seconds is not None:
        budget = {"seconds": knobs.check_value("ismcts", "seconds", seconds, where="seconds")}
    else:
        iterations = DEFAULT_ITERATIONS if iterations is None else iterations
        budget = {"iterations": knobs.check_value("ismcts", "iterations", iterations,
                                                   where="iterations")}
    seed = knobs.check_value("ismcts", "seed", seed, where="seed")
    measure = check_measure(measure)
    thresholds = check_thresholds(thresholds, measure)
    config = botlib.configuration(bot)     # read once; the workers get its knobs
    if config.kind != "ismcts":
        raise ConfigError(f"the analysis needs an ismcts bot configuration, not a "
                          f"{config.kind} one ({config.name})")
    kind, name, params = engine_of(config, measure)
    from tigris.play import luck           # with the network: not for the command line's start

    replay = replayed(rec, source)
    fields, tasks = decisions(rec, players, source, replay)
    header = {"format": FORMAT, "record": fields["record"], "source": str(source),
              "moves": fields["moves"], "decisions": fields["decisions"], "bot": config.name,
              "engine": engine_digest(kind, params, replay[0][0].players),
              **budget, "seed": seed, "players": fields["players"], "measure": measure,
              "thresholds": thresholds,
              "luck": [[d["move"], d["player"], d["luck"]]
                       for d in luck.of_replay(*replay[:2])]}
    return header, tasks, (kind, name, params)


def engine_of(conf, measure):
    """``(kind, name, params)`` of the search an analysis by `measure` makes with the bot
    configuration `conf` (``tigris.bots.Configuration``): its knobs, and for the margin
    ``margin_share = MARGIN_SHARE`` unless its file sets margin_share."""
    params = dict(conf.params)
    if check_measure(measure) == "margin" and "margin_share" not in conf.given:
        params["margin_share"] = MARGIN_SHARE
    return conf.kind, conf.name, params


def _resume(out, header, game):
    """(the file's header, the rows already in it by move), after checking its header
    against `header` (its source may differ) and its rows against `game` (see
    read_analysis); a new or empty file gets `header`."""
    if out.exists() and out.stat().st_size:
        old, rows = read_analysis(out, repair=True, game=(header, game))
        if old is not None:
            for key in SAME:
                if old.get(key) != header.get(key):
                    raise UsageError(f"{out} holds another analysis: its {key} is "
                                     f"{excerpt(old.get(key), 60)}, not "
                                     f"{excerpt(header.get(key), 60)}; choose another out "
                                     f"file, or the same {key} to continue it")
            with open_source(out) as f:
                f.seek(-1, os.SEEK_END)
                ended = f.read(1) == b"\n"
            if not ended:
                with open_append(out) as f:   # never through a link
                    f.write(b"\n")            # a last row whose newline was lost
            return old, {r["move"]: r for r in rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    with open_append(out) as f:
        jsonl.append(f, header)
    return header, {}


def _analyse(todo, done, out, header, engine, budget, jobs, progress, on_row=None):
    """Search the decisions of `todo` in `jobs` processes, appending each row to `out`
    as it comes and adding it to `done` (then telling `on_row`, as ``run`` says); the
    seed, the measure and the thresholds are the header's."""
    from joblib import delayed         # imported when workers run: the command line stays quick

    tasks = [delayed(analyse_decision)(task, engine, budget, header["seed"], header["thresholds"],
                                       header["measure"])
             for task in todo]

    def kept():
        return (f"{len(done)} of {header['decisions']} decisions are analysed in {out}; run the "
                f"same command again to continue")

    def died(task, why):              # the rows done are kept: the run stops on its decision
        raise UsageError(f"{_decision_name(task)}: {why}; {kept()}")
    serious = sum(r["mark"] in ("mistake", "blunder") for r in done.values())
    iterations = sum(r["iterations"] for r in done.values())

    def save(row):
        nonlocal serious, iterations
        jsonl.append(f, row)
        done[row["move"]] = row
        iterations += row["iterations"]
        if on_row:
            on_row(len(done), header["decisions"], iterations)
        serious += row["mark"] in ("mistake", "blunder")
        run.bar.update()
        run.bar.set_postfix_str(f"{serious} mistakes and blunders")

    try:
        with open_append(out) as f, work.Run(jobs, progress, total=header["decisions"],
                                            initial=len(done), desc="analysis", unit="decision",
                                            smoothing=0.1) as run:
            run.tasks(tasks, save, name=_decision_name, died=died)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: {kept()}") from None


def _decision_name(task):
    """What ``work.Run`` calls a task of ``analyse_decision``: its decision."""
    return f"move {task[1][0].move}"


def read_analysis(path, repair=False, game=None):
    """``(header, rows sorted by move)`` of an analysis file; ``(None, [])`` for an empty
    one.  A torn last line (a run killed while writing) is ignored with a warning, and
    cut off the file when `repair` is set.  Every line is checked: the first must be a
    ``FORMAT`` header, every other one a row with every field of the format
    (``_header_problem``, ``_row_problem``); a UsageError names the file, the line and
    the field of the first that is not.  `game`, ``(header, {move: (player, played)})``
    of an analysis and the decisions it may hold, also holds each row to those decisions
    when the file's header agrees with that header (else the caller names the field
    that differs).  Of two rows of one move the first is kept."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{path}: is a folder, not an analysis file")
    values, torn = jsonl.read(path)      # a regular file, a bounded line at a time
    if torn is not None and not values and not torn[2].startswith(b'{"format": "' + FORMAT.encode()):
        values, torn = [(torn[0], None)], None        # a lone line that is not ours
    header, rows = None, {}
    for lineno, item in values:
        if header is None:
            if isinstance(item, dict) and isinstance(item.get("format"), str) \
                    and item["format"] in OLD_FORMATS:
                raise UsageError(f"{path}: an analysis of an earlier tigris ({item['format']}, "
                                 f"{OLD_FORMATS[item['format']]}); analyse the game "
                                 f"again into another file")
            if not (isinstance(item, dict) and item.get("format") == FORMAT):
                raise UsageError(f"{path}: not a {FORMAT} file (line {lineno} is not its "
                                 f"header); name another file for the analysis")
            problem = _header_problem(item)
            header = item
            held = (game[1] if game is not None
                    and all(item.get(k) == game[0].get(k) for k in SAME) else None)
        else:
            problem = _row_problem(item, header, held)
        if problem:
            raise UsageError(f"{path}: line {lineno}: {problem}")
        if item is not header:
            item.setdefault("verdict", verdict(item))
            rows.setdefault(item["move"], item)
    jsonl.settle(path, torn, repair)
    return header, sorted(rows.values(), key=lambda r: r["move"])


def _whole(value, least=0):
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _header_problem(h):
    """What is wrong with a header's fields (None if nothing): the summary and a resumed
    run rely on each."""
    def bad(field, what):
        return f"header field {field} must be {what}, not {excerpt(h.get(field))}"

    for field in ("record", "source", "bot"):
        if not isinstance(h.get(field), str):
            return bad(field, "text")
    engine = h.get("engine")                 # optional: files written before it have none
    if engine is not None and not (isinstance(engine, str) and len(engine) == 16
                                   and all(c in "0123456789abcdef" for c in engine)):
        return bad("engine", "16 hexadecimal digits")
    if not _whole(h.get("moves")):
        return bad("moves", "a whole number")
    if not (_whole(h.get("decisions")) and h["decisions"] <= h["moves"]):
        return bad("decisions", f"a whole number up to moves ({h['moves']})")
    if not _whole(h.get("seed")):
        return bad("seed", "a whole number")
    iterations, seconds = h.get("iterations"), h.get("seconds")
    if not ((_whole(iterations, 1) and seconds is None)
            or (iterations is None and _number(seconds) and seconds > 0)):
        return bad("iterations", "a whole number (or seconds a number, not both)")
    players = h.get("players")
    if not (isinstance(players, list) and players and all(_whole(p) for p in players)
            and players == sorted(set(players))):
        return bad("players", "a sorted list of player numbers")
    if h.get("measure") not in MEASURES:
        return bad("measure", " or ".join(MEASURES))
    try:
        names = THRESHOLDS[h["measure"]]
        if not isinstance(h.get("thresholds"), dict) or set(h["thresholds"]) != set(names):
            raise UsageError(f"must name {', '.join(names)}")
        check_thresholds(h["thresholds"], h["measure"])
    except UsageError as e:
        return f"header field thresholds: {e}"
    return _luck_problem(h)


def _luck_problem(h):
    """What is wrong with a header's luck (optional: files written before it have none)."""
    draws = h.get("luck", [])
    if not isinstance(draws, list):
        return f"header field luck must be a list, not {excerpt(draws)}"
    for k, d in enumerate(draws):
        if not (isinstance(d, list) and len(d) == 3 and _whole(d[0], 1) and d[0] <= h["moves"]
                and _whole(d[1]) and d[1] < 4 and _number(d[2]) and -1 <= d[2] <= 1):
            return (f"header field luck, entry {k}: must be [move 1..{h['moves']}, player, "
                    f"a number from -1 to 1], not {excerpt(d)}")
    return None


ROW_FIELDS = ("move", "player", "decision", "played", "best", "chances", "win_before", "win_after",
              "margin_before", "margin_after", "drop", "noise", "rank", "equal", "legal", "mark",
              "visits", "iterations", "after_from", "continuation")
#: The fields a row may lack (written before they were): each is given it when read.
ROW_OPTIONAL = ("verdict",)
SUM_TOLERANCE = 0.001               # how far a row's chances, rounded, may add up from 1
MAX_MARGIN = 1000                   # points: far beyond any game's final scores


def _row_problem(r, header, game=None):
    """What is wrong with a row (None if nothing): every field of the format, of a type
    the summary can use, and the move and player within the header's; with `game`
    (``{move: (player, played)}``), one of the game's decisions."""
    if not isinstance(r, dict):
        return "not an analysis row (not a JSON object)"
    missing = [f for f in ROW_FIELDS if f not in r]
    if missing:
        return f"no field {missing[0]} (not an analysis row)"

    def bad(field, what):
        return f"{field} must be {what}, not {excerpt(r[field])}"

    if not (_whole(r["move"], 1) and r["move"] <= header["moves"]):
        return bad("move", f"a move number from 1 to {header['moves']}")
    if not (_whole(r["player"]) and r["player"] in header["players"]):
        return bad("player", f"one of the players analysed ({header['players']})")
    for field in ("decision", "played", "best"):
        if not isinstance(r[field], str):
            return bad(field, "text")
    if r["after_from"] not in AFTER_FROM:
        return bad("after_from", " or ".join(AFTER_FROM))
    forced = r["after_from"] == "forced"
    for field in ("win_before", "win_after", "margin_before", "margin_after", "noise"):
        if forced and r[field] is not None:
            return bad(field, "null in a forced row")
        if forced:
            continue
        if field.startswith("win") and not (_number(r[field]) and 0 <= r[field] <= 1):
            return bad(field, "a win chance from 0 to 1")
        if field.startswith("margin") and not (_number(r[field]) and abs(r[field]) <= MAX_MARGIN):
            return bad(field, f"a margin of points from -{MAX_MARGIN} to {MAX_MARGIN}")
        if field == "noise" and not (_number(r[field]) and 0 <= r[field] <= MAX_THRESHOLD[header["measure"]]):
            return bad(field, f"a number from 0 to {MAX_THRESHOLD[header['measure']]:g}")
    chances = r["chances"]
    if forced and chances is not None:
        return bad("chances", "null in a forced row")
    if not forced and not (isinstance(chances, list) and chances
                           and all(_number(c) and 0 <= c <= 1 for c in chances)
                           and abs(math.fsum(chances) - 1) <= SUM_TOLERANCE
                           and r["player"] < len(chances)):
        return bad("chances", "every player's chance from 0 to 1, adding up to 1")
    if not isinstance(r["equal"], bool):
        return bad("equal", "true or false")
    if not (_number(r["drop"]) and abs(r["drop"]) <= 2 * (MAX_MARGIN if header["measure"] == "margin" else 1)):
        return bad("drop", "a number (a difference of two figures of the measure)")
    if not (r["rank"] is None or _whole(r["rank"], 1)):
        return bad("rank", "a whole number from 1, or null")
    if not (_whole(r["legal"], 1) and (r["legal"] == 1) == forced):
        return bad("legal", "1 in a forced row, else above 1")
    if r["mark"] not in (None, *MARKS):
        return bad("mark", f"null or {', '.join(MARKS)}")
    for field in ("visits", "iterations"):
        if not _whole(r[field]):
            return bad(field, "a whole number")
    moves = r["continuation"]
    if not (isinstance(moves, list) and all(isinstance(x, str) for x in moves)):
        return bad("continuation", "a list of moves")
    if not isinstance(r.get("verdict", ""), str):
        return bad("verdict", "text")
    if game is not None:
        player, played = game.get(r["move"], (None, None))
        if (r["player"], r["played"]) != (player, played):
            found = (f"the record's move {r['move']} is {excerpt(played)} by player {player}"
                     if played is not None else f"the record has no decision {r['move']} of "
                                                f"the players analysed")
            return (f"not a decision of this game: {found}, the row's {excerpt(r['played'])} "
                    f"by player {r['player']}")
    return None


# ---------------------------------------------------------------------------------------
# The summary
# ---------------------------------------------------------------------------------------

def summarize(header, rows):
    """Per player of the header: ``decisions`` (rows), ``forced``, ``inaccuracies``,
    ``mistakes``, ``blunders``, ``mean_drop`` (over the searched decisions, in the
    header's measure, a negative drop counted as 0), ``best_share`` (the searched
    decisions where the move played was the engine's best, not only one of its equals)
    and ``luck`` (the summed luck of its draws, ``tigris.play.luck``; None in a file
    written before luck was); with the header's source, bot, budget and measure and the
    count of ``analysed`` and ``marked`` rows (those with a mark, by move)."""
    def mean(values):
        return round(sum(values) / len(values), DECIMALS) if values else None

    players = []
    for p in header["players"]:
        mine = [r for r in rows if r["player"] == p]
        searched = [r for r in mine if r["legal"] > 1]
        players.append({
            "player": p, "decisions": len(mine), "forced": len(mine) - len(searched),
            "inaccuracies": sum(r["mark"] == "inaccuracy" for r in mine),
            "mistakes": sum(r["mark"] == "mistake" for r in mine),
            "blunders": sum(r["mark"] == "blunder" for r in mine),
            "mean_drop": mean([max(0.0, r["drop"]) for r in searched]),
            "best_share": mean([r["after_from"] == "best" for r in searched]),
            "luck": (round(sum(v for _, q, v in header["luck"] if q == p), DECIMALS)
                     if "luck" in header else None)})
    return {"source": header.get("source"), "bot": header.get("bot"),
            "iterations": header.get("iterations"), "seconds": header.get("seconds"),
            "seed": header.get("seed"), "measure": header.get("measure", DEFAULT_MEASURE),
            "decisions": header.get("decisions"), "analysed": len(rows),
            "players": players, "marked": [r for r in rows if r["mark"]]}


# How each measure is told: its name in the summary, a drop and a figure.
MEASURE_WORDS = {"margin": "the expected score margin (the mover's final score minus the best "
                           "other player's), in points",
                 "win": "the win chance (the chance of finishing first)"}


def _figure(measure, value):
    """A figure of `measure` as text: points of margin, a win chance in per cent."""
    return f"{value:+.1f}" if measure == "margin" else f"{value:.1%}"


def format_summary(summary):
    """The summary as text: a line on the analysis and one on its measure, a row per
    player (``matched``: the share of its searched decisions where it played the
    engine's best move; ``mean drop``: in the measure), then the marked moves, each with
    its margin and win chance before and after."""
    budget = (f"{summary['iterations']:,} iterations" if summary["iterations"] is not None
              else f"{summary['seconds']:g} seconds")
    measure = summary.get("measure", DEFAULT_MEASURE)
    lines = [f"analysis of {summary['source']}: {summary['analysed']} of {summary['decisions']} "
             f"decisions, {summary['bot']} at {budget} a search, seed {summary['seed']}",
             f"marks by the drop of {MEASURE_WORDS[measure]}",
             f"{'player':>6} {'decisions':>9} {'forced':>6} {'matched':>9} {'mean drop':>9} "
             f"{'inaccuracies':>12} {'mistakes':>8} {'blunders':>8} {'luck':>7}"]
    for s in summary["players"]:
        best = "-" if s["best_share"] is None else f"{s['best_share']:.0%}"
        drop = ("-" if s["mean_drop"] is None else f"{s['mean_drop']:.2f}" if measure == "margin"
                else f"{s['mean_drop']:.1%}")
        luck_ = "-" if s.get("luck") is None else f"{s['luck']:+.1%}"
        lines.append(f"{s['player']:>6} {s['decisions']:>9} {s['forced']:>6} {best:>9} {drop:>9} "
                     f"{s['inaccuracies']:>12} {s['mistakes']:>8} {s['blunders']:>8} {luck_:>7}")
    if summary["marked"]:
        lines.append("")
        for r in summary["marked"]:
            lines.append(f"move {r['move']}, player {r['player']}, {r['mark']}: played "
                         f"{r['played']} (margin {_figure('margin', r['margin_before'])} -> "
                         f"{_figure('margin', r['margin_after'])}, win chance "
                         f"{_figure('win', r['win_before'])} -> {_figure('win', r['win_after'])}), "
                         f"{r.get('verdict') or verdict(r)}")
    return "\n".join(lines)
