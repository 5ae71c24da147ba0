"""Computer analysis of a finished game: every decision of the chosen players searched
again, the engine's best move beside the move played, the win chance before and after
it, and a mark where the move played lost much of it.

>>> from tigris import analysis, record
>>> rec = record.load("my-game.json")                                  # doctest: +SKIP
>>> header, rows = analysis.run(rec, "my-game.analysis.jsonl", source="my-game.json",
...                             iterations=10_000, jobs=2)             # doctest: +SKIP
>>> print(analysis.format_summary(analysis.summarize(header, rows)))  # doctest: +SKIP
>>> header, rows = analysis.read_analysis("my-game.analysis.jsonl")   # doctest: +SKIP

The win chance
--------------
The search is the ``hint`` configuration by default: ISMCTS backing up the calibrated
win chance (``eval_calibrated = 1``), so a root child's value is the mover's chance to
finish first (a shared first place counts as its share) after that move.  Each decision
is searched from the position before the move, as the mover saw it: the bot deals
afresh everything the mover could not see, so the analysis never uses the real hidden
tiles.

- ``win_before``: the value of the engine's best move (the root's most visited child).
- ``win_after``: the mover's chance after the move played, read in the first way that
  applies (the row's ``after_from`` says which):

  1. ``best``: the move played is the engine's best; ``win_after = win_before``.
  2. ``root``: the move played got at least ``RELIABLE_VISITS`` visits and
     ``RELIABLE_SHARE`` of the root's: its own value at the root.  Sequential halving
     at the root gives the few finalists most of the budget and the other moves a
     handful of visits each, whose mean is noise; so only a finalist's value is read.
  3. ``end``: the move ended the game: the mover's share of the first place.
  4. ``search``: a second search, with the same budget, of the position after the
     move, from a world dealt anew from what the mover could see then
     (``Game.determinize``): if the mover decides next, the value of the best move
     there; in a 2-player game where the opponent decides next, 1 minus the
     opponent's best value (calibrated chances of the players add up to 1); with 3
     or 4 players, the other players' decisions are played by their own searches,
     each its best move, up to the mover's next decision, whose best value is read
     (or the game's end, read as in 3).
  5. ``static``: a safeguard, if that walk needs more than ``MAX_REPLIES`` searches:
     the calibrated chance of the position reached, without search.

- ``drop = win_before - win_after``.  A negative drop (the move played looks better
  than the engine's pick, within the noise) counts as 0 for the marks and the means.
- ``mark``: ``"blunder"`` for a drop of at least 0.20 (of win chance: 20 percentage
  points), ``"mistake"`` from 0.10, ``"inaccuracy"`` from 0.05 (``THRESHOLDS``;
  ``run(..., thresholds=...)`` and ``tigris analyse --inaccuracy/--mistake/--blunder``
  change them), else null.
- A decision with a single legal move is not searched: a ``forced`` row.

Every decision is searched by one process with a seed of its own (``decision_seed``:
the base seed and the move number), so the rows do not depend on the order of the
decisions or the number of jobs (with an iteration budget; a time budget is not
reproducible).

The file (``tigris-analysis/1``)
--------------------------------
JSON lines.  Line 1 is the header::

    {"format": "tigris-analysis/1", "record": hash of the game's setup and moves,
     "source": the record as given, "moves": moves in the record, "decisions": the
     decisions of the chosen players, "bot": configuration name, "iterations": N or
     "seconds": S (per search), "seed": base seed, "players": [chosen players],
     "thresholds": {"inaccuracy": .., "mistake": .., "blunder": ..}}

then one line per decision analysed, in any order (the jobs finish in any order;
``read_analysis`` sorts them by move)::

    {"move": n (1-based number of the move in the record: the position before it is
     the state after n - 1 moves, tigris show --move n-1), "player": p, "decision":
     "action", "support", ..., "played": notation, "best": notation, "win_before":
     float, "win_after": float, "drop": float, "rank": the move played in the engine's
     order (1 = its best; null if the search never visited it), "legal": legal moves,
     "mark": null | "inaccuracy" | "mistake" | "blunder", "visits": the move played's
     root visits, "iterations": the root's, "after_from": "best" | "root" | "end" |
     "search" | "static" | "forced", "continuation": the engine's expected line after
     its best move, as "player N: move" strings}

Floats are rounded to 4 decimals.  A forced row has ``win_before`` and ``win_after``
null, ``drop`` 0, ``rank`` 1 and ``legal`` 1.

Resuming: each row is appended (in one write) as soon as its decision is done; running
the same analysis again skips the decisions already in the file.  A file whose header
differs in the record, the bot, the budget, the seed, the players or the thresholds is
refused, naming the field; a torn last line (a run killed while writing) is cut off
with a warning.  Every line read back is checked (``read_analysis``): the header's
fields and each row's, by type and range, and on resuming each row against the
game's decision at its move; a UsageError names the file, the line and the field.
"""

import hashlib
import json
import math
import warnings
from pathlib import Path

from tigris import bots as botlib
from tigris import knobs, work
from tigris import record as records
from tigris.errors import ConfigError, Interrupted, RecordError, UsageError, excerpt
from tigris.evaluator import Evaluator
from tigris.files import check_target
from tigris.hints import continuation
from tigris.runner import append_record, cut_torn, read_json_lines
from tigris.sources import check_source

__all__ = ["FORMAT", "DEFAULT_BOT", "THRESHOLDS", "RELIABLE_VISITS", "RELIABLE_SHARE",
           "MAX_REPLIES", "SAME", "decision_seed", "record_hash", "mark",
           "check_thresholds", "decisions", "analyse_decision", "run", "read_analysis",
           "summarize", "format_summary"]

FORMAT = "tigris-analysis/1"
DEFAULT_BOT = "hint"             # backs up the calibrated win chance: values are chances
DEFAULT_ITERATIONS = 10_000      # per search: about a tenth of a second
THRESHOLDS = {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.20}   # least drop of each mark
MARKS = ("blunder", "mistake", "inaccuracy")                          # worst first
RELIABLE_VISITS = 30             # a non-best move's root value is read from this many visits
RELIABLE_SHARE = 0.05            # ... and this share of the root's visits
MAX_REPLIES = 16                 # searches of other players' decisions before the mover's next
DECIMALS = 4
# What a resumed analysis must share with the file's header (source may differ: the
# same game given by another path).
SAME = ("record", "bot", "iterations", "seconds", "seed", "players", "thresholds", "moves",
        "decisions")
AFTER_FROM = ("best", "root", "end", "search", "static", "forced")   # how win_after was read


def decision_seed(seed, move):
    """The search seed of the decision before move number `move` of an analysis with base
    `seed`: every decision draws its own random numbers, whoever searches it."""
    return (seed * 1_000_003 + move * 7_919) % (1 << 62)


def record_hash(game):
    """A short hash of a replayed game's setup and moves (each with its draws and forced
    follow-ups): the same game whichever file or spelling it came from."""
    rec = records.to_record(game)
    key = {k: rec[k] for k in ("board", "variants", "players", "seed", "deal", "moves")}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def mark(drop, thresholds=THRESHOLDS):
    """The mark of a drop of win chance: the worst whose threshold it reaches, else None."""
    for name in MARKS:
        if drop >= thresholds[name]:
            return name
    return None


def check_thresholds(thresholds=None):
    """The thresholds (``THRESHOLDS`` for those not given), each above 0 and at most 1,
    inaccuracy <= mistake <= blunder; a UsageError names the one that is wrong."""
    given = thresholds or {}
    unknown = [k for k in given if k not in THRESHOLDS]
    if unknown:
        raise UsageError(f"thresholds: unknown {', '.join(map(repr, unknown))}; "
                         f"known: {', '.join(THRESHOLDS)}")
    out = {}
    for name, default in THRESHOLDS.items():
        value = given.get(name)
        value = default if value is None else value
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not (math.isfinite(value) and 0 < value <= 1):
            raise UsageError(f"{name} must be a drop of win chance above 0 and at most 1, "
                             f"not {excerpt(value)}")
        out[name] = float(value)
    if not out["inaccuracy"] <= out["mistake"] <= out["blunder"]:
        raise UsageError(f"thresholds must grow: inaccuracy {out['inaccuracy']:g} <= mistake "
                         f"{out['mistake']:g} <= blunder {out['blunder']:g}")
    return out


# ---------------------------------------------------------------------------------------
# One decision
# ---------------------------------------------------------------------------------------

def decisions(rec, players=None, source="record"):
    """(header fields, tasks) of a record: ``record``, ``moves``, ``players`` (sorted; all
    when None) and ``decisions``; a task per decision of those players: ``move``,
    ``before`` and ``after`` (copies of the game around it) and ``action`` (the id
    played).  The record is replayed move by move: a RecordError names `source` and the
    move; a UsageError a player not in the game."""
    states, actions = [], []
    try:
        for n, g in records.steps(rec):
            states.append(g.copy(stack=False))
            if n:
                actions.append(g.history[-1][0])
        game_hash = record_hash(g)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError) as e:
        what = str(e) if isinstance(e, ValueError) else f"{type(e).__name__}: {e}"
        raise RecordError(f"{source}: {what}") from None
    n_players = states[0].players
    if players is None:
        players = list(range(n_players))
    for p in players:
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < n_players:
            raise UsageError(f"players: {excerpt(p)} is not a player of this {n_players}-player "
                             f"game (0 to {n_players - 1})")
    players = sorted(set(players))
    tasks = [{"move": n, "before": states[n - 1], "after": states[n], "action": actions[n - 1]}
             for n in range(1, len(states)) if states[n - 1].current_player in players]
    fields = {"record": game_hash, "moves": len(actions), "decisions": len(tasks),
              "players": players}
    return fields, tasks


def analyse_decision(task, engine, budget, seed, thresholds):
    """The row of one decision (see the module's docstring).  `engine` is the search bot's
    ``(kind, name, params)``, `budget` ``{"iterations": N}`` or ``{"seconds": S}``, `seed`
    the analysis's base seed."""
    before, after, played = task["before"], task["after"], task["action"]
    p = before.current_player
    legal = before.legal_actions()
    row = {"move": task["move"], "player": p, "decision": before.decision,
           "played": before.action_str(played)}
    if len(legal) == 1:
        return dict(row, best=row["played"], win_before=None, win_after=None, drop=0.0, rank=1,
                    legal=1, mark=None, visits=0, iterations=0, after_from="forced",
                    continuation=[])
    kind, name, params = engine
    bot = botlib.CLASSES[kind](name=name, **dict(params, seed=decision_seed(seed, task["move"]),
                                                workers=1))
    stats = bot.analyse(before, **budget)
    children = stats["children"]
    total = sum(ch["visits"] for ch in children) or 1
    best = children[0]
    ranks = {ch["action"]: k for k, ch in enumerate(children, start=1) if ch["visits"] > 0}
    mine = next((ch for ch in children if ch["action"] == played), None)
    win_before = best["value"]
    if played == best["action"]:
        win_after, how = win_before, "best"
    elif mine is not None and mine["visits"] >= max(RELIABLE_VISITS, RELIABLE_SHARE * total):
        win_after, how = mine["value"], "root"
    else:
        win_after, how = _searched_after(bot, p, after, budget)
    win_before, win_after = round(win_before, DECIMALS), round(win_after, DECIMALS)
    drop = round(win_before - win_after, DECIMALS)
    return dict(row, best=before.action_str(best["action"]), win_before=win_before,
                win_after=win_after, drop=drop, rank=ranks.get(played), legal=len(legal),
                mark=mark(drop, thresholds), visits=mine["visits"] if mine else 0,
                iterations=stats["iterations"], after_from=how,
                continuation=continuation(before, best))


def _searched_after(bot, p, after, budget):
    """(player p's chance after the move, how it was read) by searching on from a world
    dealt from what p could see: the module docstring's steps 3 to 5."""
    if after.is_over:
        return Evaluator().win_chances(after)[p], "end"
    world = after.determinize(p, bot.rng.getrandbits(63))
    for _ in range(MAX_REPLIES):
        stats = bot.analyse(world, **budget)        # searched by whoever decides in the world
        best = stats["children"][0]
        if world.current_player == p:
            return best["value"], "search"
        if world.players == 2:
            return 1.0 - best["value"], "search"
        world.apply(best["action"])
        if world.is_over:
            return Evaluator().win_chances(world)[p], "end"
    return Evaluator().win_chances(world)[p], "static"


# ---------------------------------------------------------------------------------------
# A whole game
# ---------------------------------------------------------------------------------------

def run(rec, out, source="record", iterations=None, seconds=None, players=None, jobs=1,
        bot=DEFAULT_BOT, seed=0, thresholds=None, progress=True):
    """Analyse the decisions of `players` (default: all) in the game record `rec` (a
    ``tigris-game/1`` dict; `source` names it in messages and the header) and append a
    row per decision to the file `out`; returns ``(header, rows sorted by move)``.

    The budget of each search is `iterations` (default DEFAULT_ITERATIONS) or
    `seconds`; `jobs` processes search decisions side by side; `bot` names an ismcts
    configuration (default ``hint``); `seed` is the base seed.  An `out` that holds
    part of the same analysis is continued; one that holds anything else is refused
    (UsageError, naming the field that differs), never overwritten.  Ctrl-C stops the
    workers and raises Interrupted saying what is kept."""
    if iterations is not None and seconds is not None:
        raise UsageError("give iterations or seconds, not both")
    if seconds is not None:
        budget = {"seconds": knobs.check_value("ismcts", "seconds", seconds, where="seconds")}
    else:
        iterations = DEFAULT_ITERATIONS if iterations is None else iterations
        budget = {"iterations": knobs.check_value("ismcts", "iterations", iterations,
                                                   where="iterations")}
    seed = knobs.check_value("ismcts", "seed", seed, where="seed")
    thresholds = check_thresholds(thresholds)
    searcher = botlib.configuration(bot)     # read once; the workers get its knobs
    if searcher.kind != "ismcts":
        raise ConfigError(f"the analysis needs an ismcts bot configuration, not a "
                          f"{searcher.kind} one ({searcher.name})")
    out = Path(out)
    if out.is_dir():
        raise UsageError(f"{out}: is a folder; name a file for the analysis")
    check_target(out, reads=[source], option="--out")    # appended to: a regular file
    fields, tasks = decisions(rec, players, source)
    header = {"format": FORMAT, "record": fields["record"], "source": str(source),
              "moves": fields["moves"], "decisions": fields["decisions"], "bot": searcher.name,
              **budget, "seed": seed, "players": fields["players"], "thresholds": thresholds}
    game = {t["move"]: (t["before"].current_player, t["before"].action_str(t["action"]))
            for t in tasks}
    header, done = _resume(out, header, game)
    todo = [t for t in tasks if t["move"] not in done]
    if todo:
        engine = (searcher.kind, searcher.name, searcher.params)
        _analyse(todo, done, out, header, engine, budget, seed, thresholds, jobs, progress)
    return header, sorted(done.values(), key=lambda r: r["move"])


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
            if not out.read_bytes().endswith(b"\n"):
                with open(out, "ab") as f:
                    f.write(b"\n")            # a last row whose newline was lost
            return old, {r["move"]: r for r in rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "ab") as f:
        append_record(f, header)
    return header, {}


def _analyse(todo, done, out, header, engine, budget, seed, thresholds, jobs, progress):
    """Search the decisions of `todo` in `jobs` processes, appending each row to `out`
    as it comes and adding it to `done`."""
    from joblib import delayed         # imported when workers run: the command line stays quick

    tasks = [delayed(analyse_decision)(task, engine, budget, seed, thresholds) for task in todo]
    serious = sum(r["mark"] in ("mistake", "blunder") for r in done.values())

    def save(row):
        nonlocal serious
        append_record(f, row)
        done[row["move"]] = row
        serious += row["mark"] in ("mistake", "blunder")
        run.bar.update()
        run.bar.set_postfix_str(f"{serious} mistakes and blunders")

    try:
        with open(out, "ab") as f, work.Run(jobs, progress, total=header["decisions"],
                                            initial=len(done), desc="analysis", unit="decision",
                                            smoothing=0.1) as run:
            run.tasks(tasks, save)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: {len(done)} of {header['decisions']} decisions are "
                          f"analysed in {out}; run the same command again to continue") from None


def read_analysis(path, repair=False, game=None):
    """``(header, rows sorted by move)`` of an analysis file; ``(None, [])`` for an empty
    one.  A torn last line (a run killed while writing) is ignored with a warning, and
    cut off the file when `repair` is set.  Every line is checked: the first must be a
    ``tigris-analysis/1`` header, every other one a row with every field of the format
    (``_header_problem``, ``_row_problem``); a UsageError names the file, the line and
    the field of the first that is not.  `game`, ``(header, {move: (player, played)})``
    of an analysis and the decisions it may hold, also holds each row to those decisions
    when the file's header agrees with that header (else the caller names the field
    that differs).  Of two rows of one move the first is kept."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{path}: is a folder, not an analysis file")
    check_source(path)                   # a pipe would block the reading
    values, torn = read_json_lines(path)
    if torn is not None and not values and not torn[2].startswith(b'{"format": "' + FORMAT.encode()):
        values, torn = [(torn[0], None)], None        # a lone line that is not ours
    header, rows = None, {}
    for lineno, item in values:
        if header is None:
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
            rows.setdefault(item["move"], item)
    if torn is not None:
        warnings.warn(f"{path}: the last line is torn (an interrupted write); ignoring it")
        if repair:
            cut_torn(path, torn)
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
    try:
        if not isinstance(h.get("thresholds"), dict) or set(h["thresholds"]) != set(THRESHOLDS):
            raise UsageError(f"must name {', '.join(THRESHOLDS)}")
        check_thresholds(h["thresholds"])
    except UsageError as e:
        return f"header field thresholds: {e}"
    return None


ROW_FIELDS = ("move", "player", "decision", "played", "best", "win_before", "win_after", "drop",
              "rank", "legal", "mark", "visits", "iterations", "after_from", "continuation")


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
    for field in ("win_before", "win_after"):
        if forced and r[field] is not None:
            return bad(field, "null in a forced row")
        if not forced and not (_number(r[field]) and 0 <= r[field] <= 1):
            return bad(field, "a win chance from 0 to 1")
    if not _number(r["drop"]):
        return bad("drop", "a number")
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
    ``mistakes``, ``blunders``, ``mean_drop`` (over the searched decisions, a negative
    drop counted as 0) and ``best_share`` (the searched decisions where the move played
    was the engine's best); with the header's source, bot and budget and the count of
    ``analysed`` and ``marked`` rows (those with a mark, by move)."""
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
            "best_share": mean([r["rank"] == 1 for r in searched])})
    return {"source": header.get("source"), "bot": header.get("bot"),
            "iterations": header.get("iterations"), "seconds": header.get("seconds"),
            "seed": header.get("seed"), "decisions": header.get("decisions"), "analysed": len(rows),
            "players": players, "marked": [r for r in rows if r["mark"]]}


def format_summary(summary):
    """The summary as text: a line on the analysis, a row per player (``matched``: the
    share of its searched decisions where it played the engine's best move), then the
    marked moves."""
    budget = (f"{summary['iterations']:,} iterations" if summary["iterations"] is not None
              else f"{summary['seconds']:g} seconds")
    lines = [f"analysis of {summary['source']}: {summary['analysed']} of {summary['decisions']} "
             f"decisions, {summary['bot']} at {budget} a search, seed {summary['seed']}",
             f"{'player':>6} {'decisions':>9} {'forced':>6} {'matched':>9} {'mean drop':>9} "
             f"{'inaccuracies':>12} {'mistakes':>8} {'blunders':>8}"]
    for s in summary["players"]:
        best = "-" if s["best_share"] is None else f"{s['best_share']:.0%}"
        drop = "-" if s["mean_drop"] is None else f"{s['mean_drop']:.1%}"
        lines.append(f"{s['player']:>6} {s['decisions']:>9} {s['forced']:>6} {best:>9} {drop:>9} "
                     f"{s['inaccuracies']:>12} {s['mistakes']:>8} {s['blunders']:>8}")
    if summary["marked"]:
        lines.append("")
        for r in summary["marked"]:
            lines.append(f"move {r['move']}, player {r['player']}, {r['mark']}: played "
                         f"{r['played']} ({r['win_before']:.1%} -> {r['win_after']:.1%}), "
                         f"best {r['best']}")
    return "\n".join(lines)
