"""A tournament's games.jsonl read back one line at a time, every line held to the
tournament's schedule, and the finished games kept as the standings need them.

A line is a game of the tournament when its game number is in the schedule, its bots
(seat by seat) and its deal's seed are the schedule's for that number, and its
``tournament`` is the tournament's name; a finished game is there once.  Its result is
believed only once its moves are replayed from its setup (the tournament's players,
board and variants, the deal's seed): the ranking, the scores and the final scores must
be the replay's (``check_play``).  A failed game's line (its ``error``, or no result)
is a failure, not a result: nothing in it is believed, the game is not rated and
counts as not played, ``--resume`` plays it again (its new line follows), and the
standings say how many failed.  Anything else (a line of another
tournament, a game appended twice, a result its moves do not give) is refused with a
``TournamentError`` naming the file, the line and the field: the standings are never
computed from games that are not the tournament's, and ``--resume`` plays nothing until
the file is put right.

The replays are most of the reading's cost (about 2 ms a game); a games file above
``PARALLEL_BYTES`` is read by a worker process per core, each a part of it, and the
lines are taken in in their order, so the error named is the first line's either way.

:class:`Tally` keeps what the standings read of each game in a few tens of bytes (seats,
ranking, final scores, decisions, mean seconds per seat, deal), not the ~80 KB of its
record, and the first places so far, so a run's leader costs nothing per game.

>>> from tigris.play.results import Tally
>>> from types import SimpleNamespace
>>> spec = SimpleNamespace(bots=["a", "b"], players=2, games=2, seed=0, name="t")
>>> tally = Tally(spec)
>>> tally.add({"game": 1, "deal_seed": 0, "bots": ["b", "a"], "moves": [],
...            "result": {"ranking": [[1], [0]], "final": [3, 5]}})
>>> len(tally), 1 in tally, tally.leader()
(1, True, 'a 100%')
"""

import math
import os
from array import array
from pathlib import Path

from tigris._plumbing import jsonl
from tigris import record as records
from tigris.errors import RecordError, TournamentError, excerpt
from tigris.play.runner import MAX_TURNS, first_places
from tigris.play.schedule import Schedule
from tigris.sources import MAX_LINE, json_or_none, open_source

__all__ = ["Tally", "check_game", "check_fields", "check_play", "brief", "lines_of", "scan",
           "PARALLEL_BYTES"]

PARALLEL_BYTES = 64 * 2**20    # a games file at least this big is checked by several processes
PART_BYTES = 16 * 2**20        # each worker's task: a part of the file about this big


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
    task = schedule[game] if 0 <= game < len(schedule) else None
    if (task is None or bots != list(task.seats) or rec.get("deal_seed") != task.deal_seed
            or rec.get("tournament") != spec.name):
        raise TournamentError(
            f"{where}: game {excerpt(game)} ({excerpt(bots)}, deal {excerpt(rec.get('deal_seed'))}, "
            f"tournament {excerpt(rec.get('tournament'))}) is not a game of this tournament"
            + (f" (its game {game} is {excerpt(list(task.seats))}, deal {task.deal_seed}, tournament "
               f"{excerpt(spec.name)})" if task else f" (games 0 to {len(schedule) - 1})"))
    check_fields(rec, where)
    check_play(rec, where, spec)


def check_fields(rec, where):
    """Raise TournamentError(`where`: ...) unless the fields of game record `rec` (a dict
    with a game number and bots) that the standings read are sound: moves and their
    timings, the error, the result's ranking and final scores."""
    game, bots = excerpt(rec["game"]), rec["bots"]
    unknown = [key for key in rec if key not in records.KEYS and key not in records.RUN_KEYS]
    if unknown:
        raise TournamentError(f"{where}: game {game}: {excerpt(unknown[0], 30)} is not a field "
                              f"of a game's line (docs/FORMATS.md)")
    moves = rec.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, dict) for m in moves):
        raise TournamentError(f"{where}: game {game}: moves must be a list of moves")
    for n, m in enumerate(moves, start=1):
        if "seconds" in m:
            x = m["seconds"]
            # a finite number from 0 (a NaN fails every comparison), as JSON gives it
            if not (type(x) is float and 0.0 <= x < math.inf or type(x) is int and 0 <= x < 2**53):
                raise TournamentError(f"{where}: game {game}: move {n}: seconds must be a number, "
                                      f"not {excerpt(x)}")
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


def check_play(rec, where, spec=None):
    """Raise TournamentError(`where`: game K: FIELD: ...) unless the game of `rec` (a
    record whose fields ``check_fields`` passed) replays from its setup and ends with its
    result: its ranking, scores and final scores are the replay's.  With `spec`, its
    setup is also the tournament's (players, board, variants, and the deal's seed as its
    seed).  A tournament's game ends by the rules or at the turn limit (``adjudicated``);
    no one resigns.  A failed game (its ``error``) is counted, not rated: its moves are
    not replayed."""
    if rec.get("error"):
        return
    game = excerpt(rec["game"])
    if spec is not None:
        for field, want in (("players", spec.players), ("board", spec.board),
                            ("seed", rec.get("deal_seed"))):
            if rec.get(field) != want:
                raise TournamentError(f"{where}: game {game}: {field} is {excerpt(rec.get(field))}, "
                                      f"the tournament's is {excerpt(want)}")
        variants = rec.get("variants")
        if not (isinstance(variants, list) and all(isinstance(v, str) for v in variants)
                and sorted(variants) == sorted(spec.variants)):
            raise TournamentError(f"{where}: game {game}: variants are {excerpt(variants)}, the "
                                  f"tournament's are {excerpt(spec.variants)}")
    elif rec.get("players") != len(rec["bots"]):
        raise TournamentError(f"{where}: game {game}: players is {excerpt(rec.get('players'))}, "
                              f"but bots names {len(rec['bots'])} seats")
    try:
        played = records.replay(rec)          # every move, then the result against the replay
    except (RecordError, RecursionError) as e:
        what = str(e) if isinstance(e, RecordError) else "nested too deeply"
        raise TournamentError(f"{where}: game {game}: {what}") from None
    said = rec.get("result")
    if said is None:
        if played.is_over or played.turn >= MAX_TURNS:
            raise TournamentError(f"{where}: game {game}: result is null, but its moves end the "
                                  f"game (and the line has no error)")
        return
    if "resigned" in said:
        raise TournamentError(f"{where}: game {game}: result.resigned: no one resigns in a "
                              f"tournament")
    if "adjudicated" in said and (played.is_over or played.turn < MAX_TURNS):
        raise TournamentError(f"{where}: game {game}: result.adjudicated: a tournament's game is "
                              f"stopped only at the turn limit ({MAX_TURNS} turns), this one at "
                              f"turn {played.turn}{' (it is over)' if played.is_over else ''}")


def brief(rec):
    """What the standings read of a checked record, in a small tuple: ``(game,
    deal_seed, bots, error, ranking, final, decisions, seconds per seat)``; error None
    and the others set for a rated game, error the message (``"no result"`` for a game
    without one) and the others None for a failed one."""
    game, bots = rec["game"], tuple(rec["bots"])
    result = rec.get("result")
    if rec.get("error") or not result:
        return (game, rec.get("deal_seed"), bots, str(rec.get("error") or "no result"),
                None, None, None, None)
    moves = rec.get("moves", [])
    seats = len(bots)
    totals, counts = [0.0] * seats, [0] * seats
    for m in moves:
        if "seconds" in m:
            seat = m.get("player")
            if type(seat) is int and 0 <= seat < seats:
                totals[seat] += m["seconds"]
                counts[seat] += 1
    return (game, rec["deal_seed"], bots, None,
            tuple(tuple(sorted(place)) for place in result["ranking"]),
            tuple(float(x) for x in result["final"]), len(moves),
            tuple(t / c if c else 0.0 for t, c in zip(totals, counts)))


# ---------------------------------------------------------------------------------------
# What the standings keep of a game
# ---------------------------------------------------------------------------------------

class Tally:
    """The finished games of a tournament as the standings read them, in columns of
    numbers (a few tens of bytes a game); ``game in tally`` and ``len(tally)`` say which
    and how many are finished; ``failed`` holds the games whose last line is a failure
    (not results: ``--resume`` plays them again); ``leader()`` is the bot with the best
    share of first places."""

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
        self.failed = {}               # game: {"game", "deal_seed", "bots", "error"}, its last failure
        self._wins, self._seats = {}, {}

    def __len__(self):
        return self._count

    def __contains__(self, game):
        return 0 <= game < len(self._done) and bool(self._done[game])

    def add(self, rec):
        """Count a checked record (``check_game``) of a game not yet finished."""
        self.add_brief(brief(rec))

    def add_brief(self, line):
        """Count the ``brief`` of a checked record of a game not yet finished: a failure
        takes the place of the game's earlier one, a finished game ends its failures."""
        game, deal, bots, error, ranking, final, decisions, seconds = line
        if error is not None:
            self.failed[game] = {"game": game, "deal_seed": deal, "bots": list(bots), "error": error}
            return
        self.failed.pop(game, None)
        self._done[game] = 1
        self._count += 1
        self._number.append(game)
        self._seating.append(self._index(self._seatings, bots))
        self._ranking.append(self._index(self._rankings, ranking))
        self._final.extend(final)
        self._decisions.append(decisions)
        self._seconds.extend(seconds)
        self._deal.append(deal)
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
        errors = sorted(self.failed.values(), key=lambda e: e["game"]) if failed else []
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
    """``(line number, value)`` of each line of a games.jsonl (``jsonl.Lines``); a torn
    last line is reported with a warning, ignored, and cut off the file when `repair` is set."""
    lines = jsonl.Lines(path, TournamentError)
    yield from lines
    jsonl.settle(path, lines.torn, repair)


def scan(path, spec, repair=True, each=None, only=None, jobs=None):
    """The Tally of the games in `path` (a games.jsonl; none if it is missing), each line
    checked against `spec`'s schedule and replayed (``check_game``); `each(record)` is
    called for every line, or with `only` for game number `only`'s lines (for the readers
    that want records too: a failed game's line may be followed by the game's line again,
    played by ``--resume``, which is the one that counts).  A game finished is kept once;
    a line of a failed game is a failure, not a result (``Tally.failed``).  A torn last
    line is reported with a warning, ignored, and cut off the file when `repair` is set.
    A file of PARALLEL_BYTES or more is checked by `jobs` worker processes (default: one
    per core) unless every record is wanted."""
    path = Path(path)
    schedule = Schedule(spec.bots, spec.players, spec.games, spec.seed)
    tally = Tally(spec)
    if not os.path.lexists(path):           # a link to nothing is refused when opened
        return tally
    jobs = jobs or os.cpu_count() or 1
    with open_source(path, TournamentError) as f:      # a regular file, else refused here
        size = os.fstat(f.fileno()).st_size
    parallel = jobs > 1 and (each is None or only is not None) and size >= PARALLEL_BYTES
    lines = (_parts_checked(path, spec, only, jobs) if parallel
             else _lines_checked(path, spec, schedule, only, each is not None))
    held = None                      # a line that is not JSON: torn if nothing follows it
    try:
        for lineno, line, rec in lines:
            if held is not None:
                raise TournamentError(f"{path}:{held}: not a game record")
            if isinstance(line, str):                  # what is wrong with the line
                raise TournamentError(line)
            if line is None:
                held = lineno
                continue
            if line[0] in tally:
                raise TournamentError(f"{path}:{lineno}: game {line[0]} again (first on line "
                                      f"{_first_line(path, line[0])}); a finished game is kept "
                                      f"once: remove one of the two lines")
            tally.add_brief(line)
            if rec is not None and each is not None:
                each(rec)
    finally:
        close = getattr(lines, "close", None)
        if close is not None:
            close()                  # the workers of the parts not read are stopped
    jsonl.settle(path, held and (held, _offset_of_line(path, held)), repair)
    return tally


def _check_line(value, spec, schedule, where):
    """``(brief, None)`` of a line's value (None: not JSON) that is a game of the
    tournament, else ``(None, the message naming `where`)``."""
    if value is None:
        return None, None
    try:
        check_game(value, spec, schedule, where)
    except TournamentError as e:
        return None, str(e)
    return brief(value), None


def _lines_checked(path, spec, schedule, only, keep):
    """``(line number, brief or None or the message of what is wrong, record or None)`` of
    each line of `path` in turn, read here; the record given when `keep` (for game `only`
    alone, if set)."""
    lines = jsonl.Lines(path, TournamentError)
    for lineno, value in lines:
        line, problem = _check_line(value, spec, schedule, f"{path}:{lineno}")
        rec = value if keep and line is not None and (only is None or line[0] == only) else None
        yield lineno, problem if problem else line, rec
        if problem:
            return
    if lines.torn is not None:
        yield lines.torn[0], None, None


def _parts_checked(path, spec, only, jobs):
    """As ``_lines_checked``, each part of `path` checked by a worker process: the parts'
    lines come back in their order."""
    from joblib import delayed, parallel_config

    from tigris._plumbing import parallel

    parts = _parts(path)
    with parallel_config(backend="loky", n_jobs=jobs):   # this machine's cores, whatever runs it
        results = parallel.run(jobs, [delayed(_check_part)(path, spec, start, end, first, only)
                                      for start, end, first in parts], generator=True)
    try:
        for lines in results:
            yield from lines
    finally:
        parallel.stop(results)


def _parts(path):
    """``(start, end, first line number)`` of parts of `path` of about PART_BYTES, each
    ending after a newline (or at the end of the file)."""
    parts, start, lineno = [], 0, 1
    with open_source(path, TournamentError) as f:
        while True:
            f.seek(start)
            block = f.read(PART_BYTES)
            if not block:
                return parts
            end = block.rfind(b"\n") + 1
            while not end:                    # a line longer than a part: to its end
                if len(block) > MAX_LINE:
                    raise TournamentError(f"{path}: line {lineno} is longer than "
                                          f"{MAX_LINE // 2**20} MB, not a game of tigris's")
                more = f.read(PART_BYTES)
                if not more:
                    end = len(block)
                    break
                cut = more.find(b"\n")
                end = len(block) + cut + 1 if cut >= 0 else 0
                block += more if cut < 0 else more[:cut + 1]
            parts.append((start, start + end, lineno))
            lineno += block[:end].count(b"\n")
            start += end


def _check_part(path, spec, start, end, first, only):
    """The lines of bytes `start` to `end` of `path` (whose first is line `first`), as
    ``_lines_checked`` gives them, up to the first that is wrong: run by a worker."""
    with open_source(path, TournamentError) as f:
        f.seek(start)
        data = f.read(end - start)
    schedule = Schedule(spec.bots, spec.players, spec.games, spec.seed)
    out = []
    for lineno, text in enumerate(data.split(b"\n"), start=first):
        if not text.strip():
            continue
        value = json_or_none(text)
        line, problem = _check_line(value, spec, schedule, f"{path}:{lineno}")
        out.append((lineno, problem if problem else line,
                    value if only is not None and line is not None and line[0] == only else None))
        if problem:
            break
    return out


def _offset_of_line(path, lineno):
    """The offset in `path` where line `lineno` starts."""
    offset = 0
    with open_source(path, TournamentError) as f:
        for n, line in enumerate(iter(lambda: f.readline(MAX_LINE + 1), b""), start=1):
            if n == lineno:
                return offset
            offset += len(line)
    return offset


def _first_line(path, game):
    """The line of `path` where game `game` is first finished (not failed)."""
    for lineno, rec in jsonl.Lines(path, TournamentError):
        if (isinstance(rec, dict) and rec.get("game") == game and not rec.get("error")
                and rec.get("result")):
            return lineno
    return None
