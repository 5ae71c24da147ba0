"""A tournament's games.jsonl read back one line at a time, every line held to the
tournament's schedule, and the finished games kept as the standings need them.

A line is a game of the tournament when its game number is in the schedule, its bots
(seat by seat) and its deal's seed are the schedule's for that number, and its
``tournament`` is the tournament's name; a game number is there at most once.  Anything
else (a line of another tournament, a game appended twice) is refused with a
``TournamentError`` naming the file and the line: the standings are never computed from
games that are not the tournament's, and ``--resume`` plays nothing until the file is
put right.

:class:`Tally` keeps what the standings read of each game in a few tens of bytes (seats,
ranking, final scores, decisions, mean seconds per seat, deal), not the ~80 KB of its
record, and the first places so far, so a run's leader costs nothing per game.

>>> from tigris.results import Tally
>>> from types import SimpleNamespace
>>> spec = SimpleNamespace(bots=["a", "b"], players=2, games=2, seed=0, name="t")
>>> tally = Tally(spec)
>>> tally.add({"game": 1, "deal_seed": 0, "bots": ["b", "a"], "moves": [],
...            "result": {"ranking": [[1], [0]], "final": [3, 5]}})
>>> len(tally), 1 in tally, tally.leader()
(1, True, 'a 100%')
"""

import json
import math
import warnings
from array import array
from pathlib import Path

from tigris.errors import TournamentError, excerpt
from tigris.runner import first_places
from tigris.schedule import Schedule

__all__ = ["JsonLines", "Tally", "check_game", "check_fields", "lines_of", "scan", "cut_torn"]


class JsonLines:
    """The lines of a file written by ``runner.append_record``, read one at a time:
    iterating gives ``(line number, value)`` for each line that is not blank (the value
    None for a line that is not JSON, nor UTF-8).  A last line that is not JSON -- a write
    cut short by a killed run -- is not given: it is left in ``torn`` as ``(line number,
    offset)`` once the iteration is over."""

    def __init__(self, path):
        self.path = Path(path)
        self.torn = None

    def __iter__(self):
        held = None                 # a line that is not JSON: torn if nothing follows it
        offset = 0
        with open(self.path, "rb") as f:
            for lineno, line in enumerate(f, start=1):
                start, offset = offset, offset + len(line)
                if not line.strip():
                    continue
                if held is not None:
                    yield held[0], None
                    held = None
                try:
                    value = json.loads(line)
                except (ValueError, RecursionError):      # not JSON, or not UTF-8
                    value = None
                if value is None:
                    held = (lineno, start)
                else:
                    yield lineno, value
        self.torn = held


def cut_torn(path, torn):
    """Cut the torn last line that ``JsonLines`` found off the file."""
    with open(path, "r+b") as f:
        f.truncate(torn[1])


# ---------------------------------------------------------------------------------------
# One line against the schedule
# ---------------------------------------------------------------------------------------

def _whole(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _number(x):
    """A finite number that a float holds."""
    return _whole(x) and abs(x) < 2**53 or isinstance(x, float) and math.isfinite(x)


def check_game(rec, spec, schedule, where):
    """Raise TournamentError(`where`: ...) unless `rec` is a game of the tournament
    `spec` (scheduled as `schedule` says) whose fields the standings can read."""
    if not isinstance(rec, dict):
        raise TournamentError(f"{where}: not a game record")
    game, bots = rec.get("game"), rec.get("bots")
    if not _whole(game) or not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
        raise TournamentError(f"{where}: not a game record (it needs a game number and bots)")
    job = schedule[game] if 0 <= game < len(schedule) else None
    if (job is None or bots != job["seats"] or rec.get("deal_seed") != job["deal_seed"]
            or rec.get("tournament") != spec.name):
        raise TournamentError(
            f"{where}: game {excerpt(game)} ({excerpt(bots)}, deal {excerpt(rec.get('deal_seed'))}, "
            f"tournament {excerpt(rec.get('tournament'))}) is not a game of this tournament"
            + (f" (its game {game} is {excerpt(job['seats'])}, deal {job['deal_seed']}, tournament "
               f"{excerpt(spec.name)})" if job else f" (games 0 to {len(schedule) - 1})"))
    check_fields(rec, where)


def check_fields(rec, where):
    """Raise TournamentError(`where`: ...) unless the fields of game record `rec` (a dict
    with a game number and bots) that the standings read are sound: moves and their
    timings, the error, the result's ranking and final scores."""
    game, bots = excerpt(rec["game"]), rec["bots"]
    moves = rec.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, dict) for m in moves):
        raise TournamentError(f"{where}: game {game}: moves must be a list of moves")
    for n, m in enumerate(moves, start=1):
        if "seconds" in m and not (_number(m["seconds"]) and m["seconds"] >= 0):
            raise TournamentError(f"{where}: game {game}: move {n}: seconds must be a number, "
                                  f"not {excerpt(m['seconds'])}")
    error, result = rec.get("error"), rec.get("result")
    if error is not None and not isinstance(error, str):
        raise TournamentError(f"{where}: game {game}: error must be text, not {excerpt(error)}")
    if error or result is None:
        return
    seats = len(bots)
    if not isinstance(result, dict):
        raise TournamentError(f"{where}: game {game}: result must be an object")
    ranking, final = result.get("ranking"), result.get("final")
    if not (isinstance(ranking, list) and all(isinstance(p, list) and p and all(_whole(s) for s in p)
                                              for p in ranking)
            and sorted(s for p in ranking for s in p) == list(range(seats))):
        raise TournamentError(f"{where}: game {game}: result.ranking must place each of the "
                              f"{seats} seats once, not {excerpt(ranking)}")
    if not (isinstance(final, list) and len(final) == seats and all(_number(x) for x in final)):
        raise TournamentError(f"{where}: game {game}: result.final must be {seats} scores, "
                              f"not {excerpt(final)}")


# ---------------------------------------------------------------------------------------
# What the standings keep of a game
# ---------------------------------------------------------------------------------------

class Tally:
    """The finished games of a tournament as the standings read them, in columns of
    numbers (a few tens of bytes a game); ``game in tally`` and ``len(tally)`` say which
    and how many are done; ``leader()`` is the bot with the best share of first places."""

    def __init__(self, spec):
        self.players = spec.players
        self._done = bytearray(len(Schedule(spec.bots, spec.players, spec.games, spec.seed)))
        self._count = 0
        self._number = array("q")      # per rated game: its number,
        self._seating = array("I")     # its seats (an index into _seatings),
        self._ranking = array("I")     # its ranking (an index into _rankings),
        self._final = array("d")       # `players` final scores,
        self._decisions = array("I")   # its decisions,
        self._seconds = array("d")     # `players` mean seconds per move,
        self._deal = array("q")        # and its deal's seed
        self._seatings, self._rankings = {}, {}
        self.failed = []               # per failed game: {"game", "deal_seed", "bots", "error"}
        self._wins, self._seats = {}, {}

    def __len__(self):
        return self._count

    def __contains__(self, game):
        return 0 <= game < len(self._done) and bool(self._done[game])

    def add(self, rec):
        """Count a checked record (``check_game``) of a game not yet counted."""
        game, bots = rec["game"], rec["bots"]
        self._done[game] = 1
        self._count += 1
        result = rec.get("result")
        if rec.get("error") or not result:
            self.failed.append({"game": game, "deal_seed": rec.get("deal_seed"), "bots": bots,
                                "error": str(rec.get("error") or "no result")})
            return
        ranking = tuple(tuple(sorted(place)) for place in result["ranking"])
        self._number.append(game)
        self._seating.append(self._index(self._seatings, tuple(bots)))
        self._ranking.append(self._index(self._rankings, ranking))
        self._final.extend(float(x) for x in result["final"])
        moves = rec.get("moves", [])
        self._decisions.append(len(moves))
        totals, counts = [0.0] * len(bots), [0] * len(bots)
        for m in moves:
            seat = m.get("player")
            if "seconds" in m and _whole(seat) and 0 <= seat < len(bots):
                totals[seat] += m["seconds"]
                counts[seat] += 1
        self._seconds.extend(t / c if c else 0.0 for t, c in zip(totals, counts))
        self._deal.append(rec["deal_seed"])
        for name in set(bots):
            self._seats[name] = self._seats.get(name, 0) + bots.count(name)
            self._wins[name] = self._wins.get(name, 0) + first_places(bots, ranking, name)

    @staticmethod
    def _index(table, key):
        return table.setdefault(key, len(table))

    def leader(self):
        """"NAME RATE" of the bot with the best share of first places so far, or "-"."""
        if not self._seats:
            return "-"
        best = max(self._seats, key=lambda n: self._wins[n] / self._seats[n])
        return f"{best} {self._wins[best] / self._seats[best]:.0%}"

    def games(self, failed=True):
        """The games as ``ratings.standings`` takes them, by game number (and, with
        `failed`, the failed ones as ``{"bots", "error"}``)."""
        seatings = list(self._seatings)
        rankings = [[list(place) for place in r] for r in self._rankings]
        p = self.players
        rated = sorted(range(len(self._number)), key=self._number.__getitem__)
        errors = sorted(self.failed, key=lambda e: e["game"]) if failed else []
        e = 0
        for i in rated:
            while e < len(errors) and errors[e]["game"] < self._number[i]:
                yield {"bots": errors[e]["bots"], "error": errors[e]["error"]}
                e += 1
            yield {"bots": list(seatings[self._seating[i]]), "ranking": rankings[self._ranking[i]],
                   "final": [_plain(x) for x in self._final[i * p:(i + 1) * p]],
                   "decisions": self._decisions[i],
                   "seconds_per_move": list(self._seconds[i * p:(i + 1) * p]),
                   "deal": self._deal[i]}
        for err in errors[e:]:
            yield {"bots": err["bots"], "error": err["error"]}


def _plain(x):
    """A final score as it was written: a whole number as an int."""
    return int(x) if x.is_integer() else x


# ---------------------------------------------------------------------------------------
# A whole games.jsonl
# ---------------------------------------------------------------------------------------

def lines_of(path, repair=True):
    """``(line number, value)`` of each line of a games.jsonl (``JsonLines``); a torn last
    line is reported with a warning, ignored, and cut off the file when `repair` is set."""
    lines = JsonLines(path)
    yield from lines
    if lines.torn is not None:
        warnings.warn(f"{path}: the last line is torn (an interrupted write); ignoring it")
        if repair:
            cut_torn(path, lines.torn)


def scan(path, spec, repair=True, each=None):
    """The Tally of the games in `path` (a games.jsonl; none if it is missing), each line
    checked against `spec`'s schedule; `each(record)` is called for every game (for the
    readers that want the records too).  A torn last line is reported with a warning,
    ignored, and cut off the file when `repair` is set."""
    path = Path(path)
    schedule = Schedule(spec.bots, spec.players, spec.games, spec.seed)
    tally = Tally(spec)
    if not path.exists():
        return tally
    for lineno, rec in lines_of(path, repair):
        where = f"{path}:{lineno}"
        check_game(rec, spec, schedule, where)
        if rec["game"] in tally:
            raise TournamentError(f"{where}: game {rec['game']} again (first on line "
                                  f"{_first_line(path, rec['game'])}); a game is kept once: "
                                  f"remove one of the two lines")
        tally.add(rec)
        if each is not None:
            each(rec)
    return tally


def _first_line(path, game):
    for lineno, rec in JsonLines(path):
        if isinstance(rec, dict) and rec.get("game") == game:
            return lineno
    return None
