"""Tournaments: bots play each other in parallel; every finished game is saved at once.

A tournament is a set of bots, players per game, a number of games, a base seed and seat
rotation: each deal (seed) is played in every seating of its table (2 players: both
seatings; 3-4 players: every rotation), so the luck of the deal cancels out.

>>> import tempfile
>>> from tigris.tournament import Spec, run
>>> spec = Spec(bots=["random", "greedy"], players=2, games=4, seed=1)
>>> summary = run(spec, tempfile.mkdtemp(), jobs=2, progress=False)   # a folder of results
>>> summary["games"], summary["standings"]["bots"][0]["name"]
(4, 'greedy')

The result folder holds ``tournament.json`` (the spec and the bots' settings),
``games.jsonl`` (one ``tigris-game/1`` record per finished game, appended and flushed as
soon as the game ends, so a killed run loses no finished game), ``summary.json`` and
``summary.md``.  ``run(..., resume=True)`` plays only the games that are missing.
"""

import itertools
import json
import math
import os
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from joblib import delayed, parallel_config
from tqdm import tqdm

import tigris
from tigris import bots as botlib
from tigris import parallel
from tigris.errors import ConfigError, Interrupted, TournamentError, UsageError
from tigris.runner import (append_record, bot_settings, cut_torn, deal_games, deal_seed,
                           first_places, game_tasks, play_game, read_json_lines)
from tigris.tomlfile import read_toml

SPEC_FILE = "tournament.json"
GAMES_FILE = "games.jsonl"
MAX_GAMES = 1_000_000     # the schedule is built in memory


@dataclass
class Spec:
    """What to play.  ``games`` is the total number of games, rounded up so that every
    deal is played in all its seatings."""

    bots: list[str]
    players: int = 2
    games: int = 20
    seed: int = 0
    board: str = "classic"
    variants: list[str] = field(default_factory=list)
    name: str = "tournament"

    def check(self, where="tournament", bots=True):
        """Raise ConfigError naming `where` and the field for anything wrong; with
        `bots`, also load every bot's configuration."""
        pre = f"{where}: " if where else ""
        if not isinstance(self.bots, list) or not all(isinstance(b, str) for b in self.bots):
            raise ConfigError(f"{pre}bots must be a list of bot names, not {self.bots!r}")
        if len(self.bots) < 2:
            raise ConfigError(f"{pre}a tournament needs at least two bots, got {self.bots}")
        if len(set(self.bots)) != len(self.bots):
            raise ConfigError(f"{pre}a bot is listed twice in {self.bots}")
        if not _whole(self.players) or self.players not in (2, 3, 4):
            raise ConfigError(f"{pre}players must be 2, 3 or 4, not {self.players!r}")
        if not _whole(self.games) or not 1 <= self.games <= MAX_GAMES:
            raise ConfigError(f"{pre}games must be a whole number from 1 to {MAX_GAMES:,}, "
                                  f"not {self.games!r}")
        if not _whole(self.seed):
            raise ConfigError(f"{pre}seed must be a whole number, not {self.seed!r}")
        if not isinstance(self.variants, list) or not all(isinstance(v, str) for v in self.variants):
            raise ConfigError(f"{pre}variants must be a list of names, not {self.variants!r}")
        if not isinstance(self.name, str) or not self.name:
            raise ConfigError(f"{pre}name must be a non-empty string, not {self.name!r}")
        try:
            tigris.Game(players=self.players, seed=0, board=self.board, variants=tuple(self.variants))
        except (ValueError, TypeError) as e:
            raise ConfigError(f"{pre}{e}") from None
        for name in self.bots if bots else ():
            try:
                botlib.describe(name)          # the file exists and its settings are valid
            except ValueError as e:
                raise ConfigError(f"{pre}{e}") from None
        return self

    def shared_seats(self):
        """With fewer bots than seats, the bot that plays two seats of every table (the
        tables repeat the bots in turn), else None."""
        return self.bots[0] if len(self.bots) < self.players else None


def _whole(x):
    return isinstance(x, int) and not isinstance(x, bool)


def load_spec(path):
    """A Spec from a TOML file; unknown keys and bad values name the file and the key."""
    path = Path(path)
    data = read_toml(path)
    known = [f.name for f in fields(Spec)]
    unknown = [k for k in data if k not in known]
    if unknown:
        raise ConfigError(f"{path}: unknown key{'s' if len(unknown) > 1 else ''} "
                              f"{', '.join(map(repr, unknown))}; valid keys: {', '.join(known)}")
    if "bots" not in data:
        raise ConfigError(f"{path}: missing 'bots' (a list of bot names)")
    data.setdefault("name", path.stem)
    return Spec(**data).check(where=str(path))


# ---------------------------------------------------------------------------------------
# The schedule
# ---------------------------------------------------------------------------------------

def tables(spec):
    """The line-ups that share the deals: every pair for 2 players; for 3-4 players every
    combination of bots (or, with fewer bots than seats, bots repeated in turn)."""
    if len(spec.bots) >= spec.players:
        return [list(t) for t in itertools.combinations(spec.bots, spec.players)]
    return [[spec.bots[i % len(spec.bots)] for i in range(spec.players)]]


def schedule(spec):
    """Every game of the tournament: game number, deal seed, bot per seat.  Deals go to
    the tables in turn, so each bot meets each other bot about equally often; each deal
    is played in every seating of its table."""
    lineups = tables(spec)
    games = []
    for d in range(math.ceil(spec.games / spec.players)):
        games += deal_games(lineups[d % len(lineups)], deal_seed(spec.seed, d), len(games))
    return games


# ---------------------------------------------------------------------------------------
# The results folder
# ---------------------------------------------------------------------------------------

def read_games(out, repair=True):
    """The records in DIR/games.jsonl.  A torn last line (a run killed while writing) is
    reported with a warning, ignored, and cut off the file when `repair` is set."""
    path = Path(out) / GAMES_FILE
    if not path.exists():
        return []
    values, torn = read_json_lines(path)
    for lineno, rec in values:
        if rec is None or not _is_record(rec):
            raise TournamentError(f"{path}: line {lineno} is not a game record")
    if torn is not None:
        warnings.warn(f"{path}: the last line is torn (an interrupted write); ignoring it")
        if repair:
            cut_torn(path, torn)
    return [rec for _, rec in values]


def _read_spec_file(path):
    """(Spec, bot settings) saved in a results folder's tournament.json."""
    try:
        saved = json.loads(Path(path).read_text(encoding="utf-8"))
        spec = Spec(**saved["spec"])
        settings = {k: tuple(v) for k, v in saved["bots"].items()}
    except OSError as e:
        raise TournamentError(f"{path}: {e.strerror}") from None
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise TournamentError(f"{path}: not a tournament file written by tigris "
                              f"({type(e).__name__}: {e})") from None
    return spec, settings


def _is_record(rec):
    """Whether a games.jsonl entry has what the standings read: a game number, the bots,
    and a result (ranking and final scores per seat) unless the game failed."""
    if not (isinstance(rec, dict) and _whole(rec.get("game")) and isinstance(rec.get("bots"), list)
            and all(isinstance(b, str) for b in rec["bots"]) and isinstance(rec.get("moves", []), list)
            and all(isinstance(m, dict) for m in rec.get("moves", []))):
        return False
    result = rec.get("result")
    if rec.get("error") or result is None:
        return True
    seats = len(rec["bots"])
    return (isinstance(result, dict) and isinstance(result.get("ranking"), list)
            and all(isinstance(p, list) and p and all(_whole(s) and 0 <= s < seats for s in p)
                    for p in result["ranking"])
            and isinstance(result.get("final"), list) and len(result["final"]) == seats)


def _writable(out: str | os.PathLike[str]) -> Path:
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise TournamentError(f"cannot write results to {out}: {e.strerror}") from None
    return out


def run(spec: Spec | None = None, out: str | os.PathLike[str] = "results",
        jobs: int | None = None, resume: bool = False, backend: str = "loky",
        scheduler: Any = None, progress: bool = True) -> dict[str, Any]:
    """Play the tournament (or the missing games of one, with `resume`); returns the
    summary.  `jobs` defaults to all cores; `backend="dask"` sends the games to the
    dask.distributed scheduler at `scheduler` (an address, or a Client)."""
    if not resume:
        if spec is None:
            raise UsageError("no tournament given: name bots or a spec file")
        spec.check()
    folder = _writable(out)
    spec_path = folder / SPEC_FILE
    if resume:
        if not spec_path.exists():
            raise TournamentError(f"{folder}: no {SPEC_FILE} here, nothing to resume")
        spec, settings = _read_spec_file(spec_path)
        spec.check(where=str(spec_path), bots=False)      # the bots' settings are saved
        missing = [b for b in spec.bots if b not in settings]
        if missing:
            raise TournamentError(f"{spec_path}: no saved settings for {', '.join(missing)}")
    else:
        assert spec is not None                           # refused above
        if (folder / GAMES_FILE).exists() and (folder / GAMES_FILE).stat().st_size > 0:
            raise TournamentError(f"{folder} already holds games of a tournament: continue it "
                                  f"with --resume {folder}, or choose another --out")
        settings = bot_settings(spec.bots)
        spec_path.write_text(json.dumps({"spec": asdict(spec), "bots": settings}, indent=2) + "\n")
    done = {rec["game"]: rec for rec in read_games(folder)}
    todo = [job for job in schedule(spec) if job["game"] not in done]
    spec_dict = asdict(spec)
    if todo:
        _play(todo, done, settings, spec_dict, folder, jobs, backend, scheduler, progress)
    return write_summary(folder, spec, list(done.values()))


def _play(todo, done, settings, spec_dict, out, jobs, backend, scheduler, progress):
    n_jobs = jobs or os.cpu_count() or 1
    client = None
    if backend == "dask":
        client = _dask_client(scheduler)
        config = parallel_config(backend="dask")
        tasks = (delayed(play_game)(job, settings, spec_dict) for job in todo)
    elif backend == "loky":
        config = parallel_config(backend="loky", n_jobs=n_jobs)
        tasks = game_tasks(todo, settings, spec_dict)
    else:
        raise UsageError(f"unknown backend {backend!r}: use loky (this machine) or dask")
    started = time.perf_counter()
    bar = tqdm(total=len(todo), desc=spec_dict["name"], unit="game", disable=not progress,
               file=sys.stderr, smoothing=0.1)
    path = out / GAMES_FILE
    if path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
        with open(path, "ab") as f:
            f.write(b"\n")                   # a last record whose newline was lost
    results = None
    try:
        with open(path, "ab") as f, config:
            results = parallel.run(n_jobs if backend == "loky" else -1, tasks, generator=True, ordered=False)
            for rec in results:
                append_record(f, rec)
                done[rec["game"]] = rec
                bar.update()
                minutes = (time.perf_counter() - started) / 60
                bar.set_postfix(per_min=f"{bar.n / minutes:.1f}" if minutes else "-",
                                leader=_leader(done.values()))
    except KeyboardInterrupt:
        parallel.stop(results)
        bar.close()
        raise Interrupted(f"interrupted: {len(done)} finished games are saved in {out / GAMES_FILE}; "
                          f"continue with --resume {out}") from None
    finally:
        bar.close()
        if client is not None and not hasattr(scheduler, "submit"):
            client.close()


def _dask_client(scheduler):
    try:
        from dask.distributed import Client
    except ImportError:
        raise TournamentError("the dask backend needs dask.distributed: "
                              "pip install 'tigris[distributed]'") from None
    if scheduler is None:
        raise UsageError("the dask backend needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    if hasattr(scheduler, "submit"):
        return scheduler
    try:
        return Client(scheduler, timeout="10s")
    except OSError as e:
        raise TournamentError(f"cannot reach the dask scheduler at {scheduler}: {e}") from None


def _leader(records):
    """The bot with the best share of wins so far (for the progress bar)."""
    wins, played = {}, {}
    for rec in records:
        if not rec.get("result"):
            continue
        for name in set(rec["bots"]):
            played[name] = played.get(name, 0) + rec["bots"].count(name)
            wins[name] = wins.get(name, 0) + first_places(rec["bots"], rec["result"]["ranking"], name)
    if not played:
        return "-"
    best = max(played, key=lambda n: wins.get(n, 0) / played[n])
    return f"{best} {wins.get(best, 0) / played[best]:.0%}"


# ---------------------------------------------------------------------------------------
# Standings
# ---------------------------------------------------------------------------------------

def results_of(records):
    """The records as the rating functions take them: per game the bots, ranking, final
    scores, length, each seat's mean thinking time, and the deal (the bootstrap resamples
    whole deals, since the seatings of a deal belong together)."""
    games = []
    for rec in records:
        if rec.get("error") or not rec.get("result"):
            games.append({"bots": rec.get("bots"), "error": rec.get("error", "no result")})
            continue
        moves = rec.get("moves", [])
        per_seat = [[m["seconds"] for m in moves if m.get("player") == seat and "seconds" in m]
                    for seat in range(len(rec["bots"]))]
        games.append({"bots": rec["bots"], "ranking": rec["result"]["ranking"],
                      "final": rec["result"]["final"], "decisions": len(moves),
                      "seconds_per_move": [sum(t) / len(t) if t else 0.0 for t in per_seat],
                      "deal": rec.get("deal_seed")})
    return games


def summarize(spec, records):
    """The summary of a tournament's records: standings, head to head, failed games."""
    from tigris import ratings

    try:
        games = results_of(sorted(records, key=lambda r: r["game"]))
        table = ratings.standings(games, bots=spec.bots)
        h2h = ratings.head_to_head([g for g in games if "error" not in g])
    except (ValueError, TypeError, KeyError, IndexError) as e:     # an edited games.jsonl
        raise TournamentError(f"{GAMES_FILE}: a game record is malformed ({e})") from None
    errors = [{"game": r["game"], "deal_seed": r.get("deal_seed"), "bots": r["bots"],
               "error": str(r["error"])} for r in records if r.get("error")]
    return {"tournament": asdict(spec), "games": len(records), "scheduled": len(schedule(spec)),
            "standings": table, "head_to_head": h2h, "errors": errors}


def write_summary(out, spec, records):
    """Write OUT/summary.json and OUT/summary.md; returns the summary."""
    summary = summarize(spec, records)
    out = Path(out)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "summary.md").write_text(format_summary(summary) + "\n")
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    """The summary as Markdown: standings and head-to-head tables."""
    from tigris import ratings

    spec = summary["tournament"]
    lines = [f"# {spec['name']}", "",
             f"{summary['games']} of {summary['scheduled']} games played; {spec['players']} players, "
             f"{spec['board']} board, seed {spec['seed']}, bots: {', '.join(spec['bots'])}.", "",
             ratings.format_standings(summary["standings"]), "",
             "## Head to head (row bot's score against the column bot)", "",
             ratings.format_head_to_head(summary["head_to_head"])]
    if summary["errors"]:
        lines += ["", "## Games that failed", ""]
        lines += [f"- game {e['game']} (deal {e['deal_seed']}, {', '.join(e['bots'])}): {e['error']}"
                  for e in summary["errors"]]
    return "\n".join(lines)


def load_summary(out: str | os.PathLike[str]) -> dict[str, Any]:
    """Standings recomputed from a results folder (``tigris standings DIR``)."""
    out = Path(out)
    spec_path = out / SPEC_FILE
    if not spec_path.exists():
        raise TournamentError(f"{out}: no {SPEC_FILE}; is this a tournament results folder?")
    spec, _ = _read_spec_file(spec_path)
    return summarize(spec, read_games(out, repair=False))
