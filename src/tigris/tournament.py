"""Tournaments: bots play each other in parallel; every finished game is saved at once.

A tournament is a set of bots, players per game, a number of games, a base seed and seat
rotation: each deal (seed) is played in every seating of its line-up (2 players: both
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

import hashlib
import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import tigris
from tigris import bots as botlib
from tigris import knobs
from tigris._plumbing import jsonl, locks
from tigris._plumbing import work
from tigris.errors import ConfigError, Interrupted, TournamentError, UsageError, excerpt
from tigris.files import check_target, open_append, write_text
from tigris.play.results import check_fields, check_play, lines_of, scan
from tigris.play.runner import GameSpec, bot_settings, failed_game, game_name, game_tasks
from tigris.play.schedule import Schedule
from tigris.sources import read_json
from tigris._plumbing.tomlfile import read_toml

__all__ = ["Spec", "run", "load_spec", "load_summary", "read_spec_file", "format_summary",
           "summarize", "SPEC_FILE", "GAMES_FILE", "MAX_GAMES", "schedule", "read_games",
           "write_spec_file", "writable_folder", "check_folder_files", "results_of", "write_summary", "last_lines"]

SPEC_FILE = "tournament.json"
GAMES_FILE = "games.jsonl"
MAX_GAMES = 1_000_000     # games of one tournament (the schedule is computed game by game)
MAX_SEED = 10**12         # base seeds from -MAX_SEED to MAX_SEED: every deal seed stays a plain number


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

    def __post_init__(self):
        self._shelf = botlib.Shelf()        # not a field: the bot files, read once for this spec

    def check(self, where="tournament", bots=True):
        """Raise ConfigError naming `where` and the field for anything wrong; with
        `bots`, also load every bot's configuration (``settings``)."""
        pre = f"{where}: " if where else ""
        if (not isinstance(self.bots, list)
                or not all(isinstance(b, str) and b for b in self.bots)):
            raise ConfigError(f"{pre}bots must be a list of bot names, not {excerpt(self.bots)}")
        if len(self.bots) < 2:
            raise ConfigError(f"{pre}bots: a tournament needs at least two bots, got "
                              f"{excerpt(self.bots)}")
        if len(set(self.bots)) != len(self.bots):
            raise ConfigError(f"{pre}bots: a bot is listed twice in {excerpt(self.bots)}")
        for name in self.bots:
            _text(name, f"{pre}bots: the bot name")
        if not _whole(self.players) or self.players not in (2, 3, 4):
            raise ConfigError(f"{pre}players must be 2, 3 or 4, not {excerpt(self.players)}")
        if not _whole(self.games) or not 1 <= self.games <= MAX_GAMES:
            raise ConfigError(f"{pre}games must be a whole number from 1 to {MAX_GAMES:,}, "
                              f"not {excerpt(self.games)}")
        if not _whole(self.seed) or not -MAX_SEED <= self.seed <= MAX_SEED:
            raise ConfigError(f"{pre}seed must be a whole number from {-MAX_SEED:,} to "
                              f"{MAX_SEED:,}, not {excerpt(self.seed)}")
        if not isinstance(self.board, str):
            raise ConfigError(f"{pre}board must be classic or advanced, not {excerpt(self.board)}")
        if not isinstance(self.variants, list) or not all(isinstance(v, str) for v in self.variants):
            raise ConfigError(f"{pre}variants must be a list of names, not {excerpt(self.variants)}")
        if not isinstance(self.name, str) or not self.name:
            raise ConfigError(f"{pre}name must be a non-empty string, not {excerpt(self.name)}")
        _text(self.name, f"{pre}name")
        try:
            tigris.Game(players=self.players, seed=0, board=self.board, variants=tuple(self.variants))
        except (ValueError, TypeError) as e:
            field_name = "variants" if "variant" in str(e) else "board"
            raise ConfigError(f"{pre}{field_name}: {e}") from None
        if bots:
            self.settings(where)
        return self

    def settings(self, where="tournament"):
        """{bot name: (kind, params)}: every bot's file read and checked, once for this
        spec whatever checks it again (a ConfigError naming `where` and the bot's file)."""
        try:
            return bot_settings(self.bots, self._shelf)
        except ValueError as e:
            raise ConfigError(f"{where}: {e}" if where else str(e)) from None

    def shared_seats(self):
        """With fewer bots than seats, the bot that plays two seats of every line-up (the
        tables repeat the bots in turn), else None."""
        return self.bots[0] if len(self.bots) < self.players else None


def _whole(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _text(name, what):
    """Refuse a name that is not text (a file name in another encoding is read with lone
    surrogates for its bytes): the records, the summary and the pages could not be
    written as UTF-8."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{what} {excerpt(name)} is not UTF-8 text (a file name in another "
                          f"encoding?): rename it") from None


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

def schedule(spec):
    """Every game of the tournament (game number, deal seed, bot per seat) as a
    ``tigris.play.schedule.Schedule``: computed game by game, never listed.  Deals go to the
    tables in turn, so each bot meets each other bot about equally often; each deal is
    played in every seating of its line-up."""
    return Schedule(spec.bots, spec.players, spec.games, spec.seed)


# ---------------------------------------------------------------------------------------
# The results folder
# ---------------------------------------------------------------------------------------

def read_games(out, repair=True, game=None):
    """The records in DIR/games.jsonl, each held to the tournament of DIR/tournament.json
    (``tigris.play.results``), a game's last line if it has several (failures, then the
    game played again by ``--resume``); with `game`, only that game's (a list of one, or
    empty), the others read and checked but not kept.  A torn last line (a run killed
    while writing) is reported with a warning, ignored, and cut off the file when
    `repair` is set."""
    out = Path(out)
    if (out / SPEC_FILE).exists():
        spec, _ = read_spec_file(out / SPEC_FILE)
        records = []
        scan(out / GAMES_FILE, spec, repair=repair, each=records.append, only=game)
        return last_lines(records)
    if (out / GAMES_FILE).exists():
        return [r for r in _unscheduled_games(out / GAMES_FILE, repair)
                if game is None or r["game"] == game]
    return []


def last_lines(records):
    """Of the `records` of a games.jsonl in their order, each game's last: a game that
    failed has the line of its replay after its failures."""
    return list({rec["game"]: rec for rec in records}.values())


def _unscheduled_games(path, repair):
    """The records of a games.jsonl without its tournament.json (a match folder of an
    earlier version): game records, a game number at most once."""
    records, first = [], {}
    for lineno, rec in lines_of(path, repair):
        where = f"{path}:{lineno}"
        if not (isinstance(rec, dict) and _whole(rec.get("game")) and rec["game"] >= 0
                and isinstance(rec.get("bots"), list) and rec["bots"]
                and all(isinstance(b, str) for b in rec["bots"])):
            raise TournamentError(f"{where}: not a game record (it needs a game number and bots)")
        if rec["game"] in first:
            raise TournamentError(f"{where}: game {excerpt(rec['game'])} again (first on line "
                                  f"{first[rec['game']]}); a game is kept once: remove one of the "
                                  f"two lines")
        first[rec["game"]] = lineno
        check_fields(rec, where)
        check_play(rec, where)                   # its moves replayed, its result theirs
        records.append(rec)
    return records


def write_spec_file(path, spec, settings):
    """Write a results folder's tournament.json: the spec, every bot's ``[kind, knobs]``
    and their digest (``_digest``), by which a reader knows a file edited since."""
    saved = {"spec": asdict(spec), "bots": settings}
    write_text(path, json.dumps(dict(saved, digest=_digest(saved)), indent=2) + "\n")


def _digest(saved):
    """The digest of a tournament.json's spec and bots: SHA-256 of their JSON (keys
    sorted), 16 hex digits.  The games were played with these settings, which their replay
    cannot check (a bot's knobs change its moves, not their legality): an edit is refused."""
    text = json.dumps({"spec": saved["spec"], "bots": saved["bots"]}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def read_spec_file(path):
    """(Spec, bot settings) of a results folder's tournament.json, every field checked:
    a TournamentError names the file and the field; a file whose spec or bots were edited
    since it was written (its ``digest``; a file of version 2.0 has none) is refused."""
    path = Path(path)
    saved = read_json(path, TournamentError)          # a pipe or a device refused unopened
    if not isinstance(saved, dict):
        raise TournamentError(f"{path}: not a tournament file (an object with spec and bots)")
    unknown = [k for k in saved if k not in ("spec", "bots", "digest")]
    if unknown:
        raise TournamentError(f"{path}: unknown key {excerpt(unknown[0])}; valid keys: spec, "
                              f"bots, digest")
    for key in ("spec", "bots"):
        if not isinstance(saved.get(key), dict):
            raise TournamentError(f"{path}: {key} must be an object, not {excerpt(saved.get(key))}")
    if "digest" in saved and saved["digest"] != _digest(saved):
        raise TournamentError(f"{path}: its spec or bots were edited since its games were "
                              f"played (digest {excerpt(saved['digest'], 20)}, its content's "
                              f"{_digest(saved)}): the games cannot say which settings played "
                              f"them; put the file back, or start a new results folder")
    known = [f.name for f in fields(Spec)]
    unknown = [k for k in saved["spec"] if k not in known]
    if unknown:
        raise TournamentError(f"{path}: spec: unknown key {excerpt(unknown[0])}; valid keys: "
                              f"{', '.join(known)}")
    if "bots" not in saved["spec"]:
        raise TournamentError(f"{path}: spec: missing 'bots'")
    spec = Spec(**saved["spec"])
    try:
        spec.check(where=f"{path}: spec", bots=False)      # the bots' settings are saved
    except ConfigError as e:
        raise TournamentError(str(e)) from None
    settings = {}
    for name in spec.bots:
        where = f"{path}: bots.{name}"
        if name not in saved["bots"]:
            raise TournamentError(f"{path}: bots: no settings for {name}")
        value = saved["bots"][name]
        if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)
                and isinstance(value[1], dict)):
            raise TournamentError(f"{where} must be [kind, knobs], not {excerpt(value)}")
        try:
            # made perhaps on another machine: its cores are not this one's (workers)
            settings[name] = (value[0], knobs.check(value[0], value[1], where=where, here=False))
        except ValueError as e:
            raise TournamentError(str(e)) from None
    return spec, settings


def writable_folder(out: str | os.PathLike[str]) -> Path:
    """The results folder `out`, created if needed, once a file can be written in it;
    else TournamentError."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=out, prefix=".write-test.")   # a new file: no link followed
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise TournamentError(f"cannot write results to {out}: {e.strerror}") from None
    return out


def run(spec: Spec | None = None, out: str | os.PathLike[str] = "results",
        jobs: int | None = None, resume: bool = False, backend: str = "loky",
        scheduler: Any = None, progress: bool = True) -> dict[str, Any]:
    """Play the tournament (or the missing games of one, with `resume`: those not
    played, and those that failed); returns the summary, with ``played``: this run's
    ``{"games": finished, "failed": failed}``.  `jobs` defaults to all cores;
    `backend="dask"` sends the games to the dask.distributed scheduler at `scheduler`
    (an address, or a Client).  A resumed folder's games.jsonl is read line by line and
    held to its tournament before any game is played; the run keeps a Tally of the
    games, not their records."""
    from tigris._plumbing.backends import Backend

    where = Backend(backend, jobs, scheduler)          # checked before anything is written
    if not resume:
        if spec is None:
            raise UsageError("no tournament given: name bots or a spec file")
        spec.check()
    folder = writable_folder(out)
    with locks.hold(folder):                           # one run at a time in a folder
        return _run(spec, folder, resume, where, progress)


def _run(spec, folder, resume, where, progress):
    """``run``'s work in `folder`, which this run holds."""
    check_folder_files(folder)
    spec_path = folder / SPEC_FILE
    if resume:
        if not spec_path.exists():
            raise TournamentError(f"{folder}: no {SPEC_FILE} here, nothing to resume")
        spec, settings = read_spec_file(spec_path)
        for name, (kind, params) in settings.items():     # the bots play here
            try:
                botlib.check_network(knobs.check(kind, params, where=f"{spec_path}: bots.{name}"),
                                     where=f"{spec_path}: bots.{name}")
            except ValueError as e:
                raise TournamentError(str(e)) from None
    else:
        assert spec is not None                           # refused above
        if (folder / GAMES_FILE).exists() and (folder / GAMES_FILE).stat().st_size > 0:
            raise TournamentError(f"{folder} already holds games of a tournament: continue it "
                                  f"with --resume {folder}, or choose another --out")
        settings = spec.settings()
        write_spec_file(spec_path, spec, settings)
    games = schedule(spec)
    tally = scan(folder / GAMES_FILE, spec)
    missing = len(games) - len(tally)
    played = {"games": 0, "failed": 0}
    if missing:
        todo = (task for task in games if task.game not in tally)
        game_spec = GameSpec(players=spec.players, seed=spec.seed, name=spec.name, board=spec.board,
                             variants=spec.variants)
        played = _play(todo, missing, tally, settings, game_spec, folder, where, progress)
    summary = summarize(spec, tally)
    write_summary(folder, summary)
    return dict(summary, played=played)


def _play(todo, missing, tally, settings, spec, out, backend, progress):
    """Play the games `todo` (tasks) with the game spec `spec` on `backend`; append each
    record to games.jsonl and count it as it comes.  Returns ``{"games": finished,
    "failed": failed}`` of the games played.  A game whose worker process died twice is
    recorded as failed (``work.Run``)."""
    started = time.perf_counter()
    path = out / GAMES_FILE
    jsonl.end_last_line(path)
    played = {"games": 0, "failed": 0}

    def save(rec):
        jsonl.append(f, rec)
        tally.add(rec)
        played["failed" if rec.get("error") or not rec.get("result") else "games"] += 1
        run.bar.update()
        minutes = (time.perf_counter() - started) / 60
        run.bar.set_postfix(per_min=f"{run.bar.n / minutes:.1f}" if minutes else "-",
                            leader=tally.leader())

    kept = f"{{}} finished games are saved in {path}; continue with --resume {out}"
    try:
        with backend, open_append(path) as f, work.Run(
                backend.workers, progress, total=missing, desc=spec.name, unit="game",
                smoothing=0.1) as run:
            run.tasks(game_tasks(todo, settings, spec), save, ordered=False,
                      errors=backend.lost(lambda: kept.format(len(tally))),
                      name=game_name, died=failed_game)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: {kept.format(len(tally))}") from None
    return played


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


def summarize(spec, tally):
    """The summary of a tournament's games (a ``results.Tally``): standings, head to
    head, failed games."""
    from tigris import ratings

    table = ratings.standings(tally.games(), bots=spec.bots)
    h2h = ratings.head_to_head(tally.games(failed=False))
    errors = sorted(tally.failed.values(), key=lambda e: e["game"])
    return {"tournament": asdict(spec), "games": len(tally), "scheduled": len(schedule(spec)),
            "standings": table, "head_to_head": h2h, "errors": errors}


SUMMARY_FILES = ("summary.json", "summary.md")


def check_folder_files(folder):
    """The files a run writes in the results folder `folder`, each a regular file or
    missing (never a link, a pipe, a device): refused before any game is played, so the
    games are never played for a summary that cannot be written."""
    for name in (SPEC_FILE, GAMES_FILE, *SUMMARY_FILES):
        check_target(Path(folder) / name, option="cannot write")


def write_summary(out, summary):
    """Write OUT/summary.json and OUT/summary.md of a summary; returns it.  Text that is
    not UTF-8 (a lone surrogate in a failed game's message) is written escaped."""
    out = Path(out)
    json_file, text_file = SUMMARY_FILES
    write_text(out / json_file, json.dumps(summary, indent=2) + "\n")
    write_text(out / text_file, format_summary(summary) + "\n")
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    """The summary as Markdown: standings and head-to-head tables."""
    from tigris import ratings

    spec = summary["tournament"]
    failed = len(summary["errors"])
    lines = [f"# {spec['name']}", "",
             f"{summary['games']} of {summary['scheduled']} games played"
             f"{f' ({failed} failed: see below)' if failed else ''}; {spec['players']} players, "
             f"{spec['board']} board, seed {spec['seed']}, bots: {', '.join(spec['bots'])}.", "",
             ratings.format_standings(summary["standings"]), "",
             "## Head to head (row bot's score against the column bot)", "",
             ratings.format_head_to_head(summary["head_to_head"])]
    if summary["errors"]:
        lines += ["", "## Games that failed", "",
                  "Not rated: a tournament's `--resume` plays them again.", ""]
        lines += [f"- game {e['game']} (deal {e['deal_seed']}, {', '.join(e['bots'])}): {e['error']}"
                  for e in summary["errors"]]
    # a lone surrogate (a failed game's message) is escaped: the text is always UTF-8
    return "\n".join(lines).encode("utf-8", "backslashreplace").decode("utf-8")


def load_summary(out: str | os.PathLike[str]) -> dict[str, Any]:
    """Standings recomputed from a results folder (``tigris standings DIR``): its
    tournament.json and every line of its games.jsonl are checked, and the lines are
    read one at a time."""
    out = Path(out)
    if not out.is_dir():
        raise TournamentError(f"{out}: {'not a folder' if os.path.lexists(out) else 'no such folder'}; "
                              f"a tournament results folder holds {SPEC_FILE} and {GAMES_FILE}")
    spec_path = out / SPEC_FILE
    if not spec_path.exists():
        raise TournamentError(f"{out}: no {SPEC_FILE}; is this a tournament results folder?")
    spec, _ = read_spec_file(spec_path)
    return summarize(spec, scan(out / GAMES_FILE, spec, repair=False))
