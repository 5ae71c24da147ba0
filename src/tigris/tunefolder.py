"""A tuning run's folder (``tigris tune --out DIR``), read back and checked.

``tune --resume`` and ``tune --plot`` read what a run saved: its settings (``tune.json``)
and its history (``history.csv``, a row per iteration); ``tune --plot`` also the result of
a finished run (``result.json``, ``read_result``).  Each is checked as records and
positions are: a file that was edited, truncated, or belongs to another run is refused
with one line naming the file, the line and the field (a TuneError), never taken in
part or as something else.  The one repair is a torn last row -- a run killed while
writing it, so the line has no end -- which is ignored, and cut off when the run is
resumed (that iteration is played again).

>>> from tigris.tunefolder import read_settings
>>> read_settings("results/no-such-run")
Traceback (most recent call last):
    ...
tigris.errors.TuneError: results/no-such-run/tune.json: No such file or directory
"""

import csv
import io
import math
import os
import warnings
from pathlib import Path

from tigris.errors import TuneError, excerpt
from tigris.files import open_update, utf8_text
from tigris.sources import read_json, read_source

SPEC_FILE = "tune.json"
HISTORY_FILE = "history.csv"
RESULT_FILE = "result.json"               # written at the end; read back by read_result
VERIFICATION_FILE = "verification.jsonl"  # the verification's games, one record a line
SCORES = {"spsa": ("score_plus", "score_minus"), "bayes": ("score",),   # per method
          "tbpsa": ("score",)}
METHODS = tuple(SCORES)
# the trials asked before each trial (whole, below its number): a method whose optimiser
# keeps a state is replayed in the order it was asked and told
TOLD = {"tbpsa": "told"}
BOUNDS_SLACK = 1e-4     # of a range: values are written with 6 significant digits
DECISIONS = ("H1 accepted", "H0 accepted", "not significant")   # a verification's SPRT


__all__ = ["read_settings", "read_history", "read_result", "as_text",
           "field_text", "SPEC_FILE", "HISTORY_FILE", "RESULT_FILE", "VERIFICATION_FILE", "SCORES", "METHODS",
           "TOLD", "DECISIONS"]


def as_text(name):
    """A bot's name or path as the history writes it: UTF-8 text, each byte of a file name
    that is not UTF-8 as U+FFFD (the history is text; the name itself is in tune.json)."""
    return utf8_text(name)


def field_text(field):
    """An iteration's opponents (the other seats of its table) as the history's
    ``opponent`` column writes them: each ``as_text``, joined by " + "."""
    return " + ".join(as_text(o) for o in field)


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def read_settings(out):
    """The settings a run saved in DIR/tune.json, checked field by field: ``bot``,
    ``name`` (text), ``params`` (a list of ``{name, low, high, integer}`` with low below
    high), ``opponents`` (a list of names), ``budget`` (4 or more), ``seed``,
    ``verify_games`` (0 or more), ``players`` (2 to 4), ``method`` (one of METHODS;
    spsa when missing: saved before there was a choice) and ``iteration_games`` (a
    multiple of 2 * players; 2 * players when missing, as every run played before)."""
    path = Path(out) / SPEC_FILE
    spec = read_json(path, TuneError)
    if not isinstance(spec, dict):
        raise TuneError(f"{path}: not the settings of a tuning run (not a JSON object)")
    spec.setdefault("method", "spsa")

    def bad(field, what):
        return TuneError(f"{path}: field {field} must be {what}, not {excerpt(_at(spec, field))}")

    for field in ("bot", "name"):
        if not isinstance(spec.get(field), str):
            raise bad(field, "text")
    for field, least in (("budget", 4), ("seed", None), ("verify_games", 0)):
        if not _whole(spec.get(field)) or (least is not None and spec[field] < least):
            raise bad(field, "a whole number" if least is None else
                      f"a whole number of at least {least}")
    if spec.get("players") not in (2, 3, 4) or isinstance(spec.get("players"), bool):
        raise bad("players", "2, 3 or 4")
    if spec["method"] not in METHODS:
        raise bad("method", " or ".join(METHODS))
    table = 2 * spec["players"]
    spec.setdefault("iteration_games", table)
    if not (_whole(spec["iteration_games"]) and spec["iteration_games"] >= table
            and spec["iteration_games"] % table == 0):
        raise bad("iteration_games", f"a multiple of {table}")
    opponents = spec.get("opponents")
    if not (isinstance(opponents, list) and opponents
            and all(isinstance(o, str) for o in opponents)):
        raise bad("opponents", "a list of bot names")
    params = spec.get("params")
    if not (isinstance(params, list) and params):
        raise bad("params", "a list of parameters")
    for i, p in enumerate(params):
        field = f"params[{i}]"
        if not (isinstance(p, dict) and isinstance(p.get("name"), str) and p["name"]):
            raise bad(f"{field}.name", "a parameter name")
        if not (_number(p.get("low")) and _number(p.get("high")) and p["low"] < p["high"]):
            raise bad(f"{field}.low/high", "finite numbers, low below high")
        if not isinstance(p.get("integer", False), bool):
            raise bad(f"{field}.integer", "true or false")
    if len({p["name"] for p in params}) != len(params):
        raise TuneError(f"{path}: field params names a parameter twice")
    return spec


def _at(spec, field):
    """The value at a field such as ``params[1].low`` (None if there is none)."""
    value = spec
    for part in field.replace("]", "").replace("[", ".").split("."):
        part = part.split("/")[0]
        try:
            value = value[int(part)] if isinstance(value, list) else value.get(part)
        except (ValueError, IndexError, AttributeError):
            return None
    return value


def read_history(path, method, params, opponents=None, repair=False, players=2, games=None):
    """The rows (dicts of the written text) of a history of a `method` run over `params`
    (``{name, low, high}`` dicts), checked: the header holds iteration, games, opponent,
    the method's scores and each parameter; row K (from 1) is iteration K, of K times
    `games` games (default 2 * `players`), against the ``players - 1`` opponents from
    ``opponents[(K - 1) % len(opponents)]`` on (when given), with scores from 0 to 1
    and every other column a finite number, each parameter's within its bounds.  A TuneError
    names the file, line and field of the first that is not.  A torn last row (no newline
    after it) is ignored with a warning (cut off the file with `repair`); a file whose lines
    end otherwise (a carriage return alone) is refused, never cut.  A missing or empty file
    has no rows."""
    path = Path(path)
    if not os.path.lexists(path):
        return []
    data = read_source(path, TuneError)
    end = data.rfind(b"\n") + 1                # after it: a row whose write was cut short
    torn = data[end:]
    if b"\r" in torn.rstrip(b"\r"):
        # lines that end in \r alone (edited elsewhere): not a row cut short, and cutting
        # them off would drop every iteration the run played
        line = data[:end].count(b"\n") + 1
        raise TuneError(f"{path}: line {line} holds a line break that is "
                        f"not a newline: not the history this program writes (restore its line "
                        f"ends, or start the run again without --resume)")
    if torn:
        warnings.warn(f"{path}: the last row has no end (a write cut short); ignoring it"
                      + (": its iteration is played again" if repair else ""), stacklevel=2)
    if repair and end < len(data):
        with open_update(path) as f:            # never through a link
            f.truncate(end)
    try:
        text = data[:end].decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise TuneError(f"{path}: line {line} is not UTF-8 text") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        lines = [(reader.line_num, row) for row in reader]
    except csv.Error as e:
        raise TuneError(f"{path}: line {reader.line_num + 1} is not CSV ({e})") from None
    lines = [(n, row) for n, row in lines if row]          # blank lines
    if not lines:
        return []
    (_, header), body = lines[0], lines[1:]
    names = [p["name"] for p in params]
    told = [TOLD[method]] if method in TOLD else []
    for column in ["iteration", "games", "opponent", *SCORES[method], *told, *names]:
        if column not in header:
            raise TuneError(f"{path}: line 1 has no column {excerpt(column)}: not the history "
                            f"of this run")
    if len(set(header)) != len(header):
        raise TuneError(f"{path}: line 1 names a column twice")
    bounds = {p["name"]: (p["low"], p["high"]) for p in params}
    rows = []
    for k, (n, values) in enumerate(body, start=1):
        if len(values) != len(header):
            raise TuneError(f"{path}: line {n} has {len(values)} fields, the header {len(header)}")
        row = dict(zip(header, values))
        rows.append(_checked_row(path, n, k, row, method, bounds, opponents, players,
                                 games or 2 * players))
    return rows


def _checked_row(path, n, k, row, method, bounds, opponents, players, games):
    """`row` (line `n` of the file, iteration `k`) once every field reads; else TuneError."""
    def field(name, what):
        return TuneError(f"{path}: line {n}: {name} must be {what}, not {excerpt(row[name])}")

    for name, expected in (("iteration", k), ("games", games * k)):
        if row[name].strip() != str(expected):
            raise field(name, f"{expected} (row {k} of the history)")
    if opponents:
        table = field_text([opponents[(k - 1 + j) % len(opponents)] for j in range(players - 1)])
        if row["opponent"] != table:
            raise field("opponent", f"{excerpt(table)}, the opponents of iteration {k}")
    for name, value in row.items():
        if name in ("iteration", "games", "opponent"):
            continue
        try:
            x = float(value)
        except ValueError:
            raise field(name, "a number") from None
        if not math.isfinite(x):
            raise field(name, "a finite number")
        if name in SCORES[method] and not 0 <= x <= 1:
            raise field(name, "a score from 0 to 1")
        if name == TOLD.get(method) and not (x.is_integer() and 0 <= x < k):
            raise field(name, f"a whole number from 0 to {k - 1} (the scores told before "
                              f"iteration {k} was asked)")
        param = name.removesuffix("_plus").removesuffix("_minus")     # SPSA's theta+-
        if param in bounds:
            low, high = bounds[param]
            slack = BOUNDS_SLACK * (high - low)
            if not low - slack <= x <= high + slack:
                raise field(name, f"within its bounds [{low:g}, {high:g}]")
    return row


# ---------------------------------------------------------------------------------------
# The result of a finished run
# ---------------------------------------------------------------------------------------

def read_result(out):
    """The result a finished run saved in DIR/result.json, checked field by field:
    ``theta`` (a number per parameter), ``bot_file`` (text) and ``verification``, an
    SPRT's (``test`` "sprt"): ``decision`` (one of DECISIONS, agreeing with ``llr`` and
    its ``bounds``), the test's ``elo0``, ``elo1``, ``alpha`` and ``beta``,
    ``max_games``, ``games`` (``wins`` + ``draws`` + ``losses``), ``score`` and ``ci95``
    (null without games), ``errors`` and ``file``.  A verification written before there
    was an SPRT (no ``test``: ``games``, ``score``, ``ci95``, ``errors``, ``significant``,
    ``file``) reads as it is, with ``test`` "interval".  Anything else is a TuneError
    naming the file and the field.

    >>> from tigris.tunefolder import read_result
    >>> read_result("results/no-such-run")
    Traceback (most recent call last):
        ...
    tigris.errors.TuneError: results/no-such-run/result.json: No such file or directory
    """
    path = Path(out) / RESULT_FILE
    result = read_json(path, TuneError)
    if not isinstance(result, dict):
        raise TuneError(f"{path}: not the result of a tuning run (not a JSON object)")
    theta = result.get("theta")
    if not (isinstance(theta, dict) and theta and all(_number(x) for x in theta.values())):
        raise _bad(path, "theta", "an object of numbers by parameter", theta)
    if not isinstance(result.get("bot_file"), str):
        raise _bad(path, "bot_file", "text", result.get("bot_file"))
    v = result.get("verification")
    if not isinstance(v, dict):
        raise _bad(path, "verification", "an object", v)
    v = dict(v, test=v.get("test", "interval"))         # a file written before the SPRT
    _check_verification(path, v)
    return dict(result, verification=v)


def _bad(path, field, what, value):
    return TuneError(f"{path}: field {field} must be {what}, not {excerpt(value)}")


def _count(x):
    return _whole(x) and x >= 0


def _share(x):
    return _number(x) and 0 <= x <= 1


def _interval(x):
    return isinstance(x, list) and len(x) == 2 and all(map(_share, x)) and x[0] <= x[1]


def _check_verification(path, v):
    """``read_result``'s check of the verification `v` (its ``test`` set) of `path`."""
    def check(field, ok, what):
        if not ok(v.get(field)):
            raise _bad(path, f"verification.{field}", what, v.get(field))

    check("file", lambda x: isinstance(x, str), "text")
    check("games", _count, "a whole number of at least 0")
    check("errors", _count, "a whole number of at least 0")
    if v["test"] == "interval":
        check("score", lambda x: x is None or _share(x), "a score from 0 to 1")
        check("ci95", _interval, "[low, high], from 0 to 1")
        check("significant", lambda x: isinstance(x, bool), "true or false")
        return
    if v["test"] != "sprt":
        raise _bad(path, "verification.test", "sprt", v["test"])
    for field in ("wins", "draws", "losses"):
        check(field, _count, "a whole number of at least 0")
    if v["wins"] + v["draws"] + v["losses"] != v["games"]:
        raise _bad(path, "verification.games", "wins + draws + losses", v["games"])
    check("max_games", lambda x: _whole(x) and x >= 1, "a whole number of at least 1")
    for field in ("llr", "elo0", "elo1"):
        check(field, _number, "a finite number")
    if v["elo0"] >= v["elo1"]:
        raise _bad(path, "verification.elo1", f"above elo0 ({v['elo0']:g})", v["elo1"])
    for field in ("alpha", "beta"):
        check(field, lambda x: _number(x) and 0 < x < 1, "a number between 0 and 1")
    check("bounds", lambda x: isinstance(x, list) and len(x) == 2 and all(map(_number, x))
          and x[0] < x[1], "[lower, upper], two finite numbers")
    low, high = v["bounds"]
    check("decision", lambda x: x in DECISIONS and x == (
        "H1 accepted" if v["llr"] >= high else "H0 accepted" if v["llr"] <= low
        else "not significant"), f"the one the LLR {v['llr']:.2f} and its bounds give")
    if v["games"]:
        mean = (v["wins"] + v["draws"] / 2) / v["games"]
        check("score", lambda x: _share(x) and math.isclose(x, mean, abs_tol=1e-9),
              f"(wins + draws / 2) / games, {mean:.4g}")
        check("ci95", lambda x: _interval(x) and x[0] <= v["score"] <= x[1],
              "[low, high] around the score, from 0 to 1")
    else:
        check("score", lambda x: x is None, "null (no game counted)")
        check("ci95", lambda x: x is None, "null (no game counted)")
