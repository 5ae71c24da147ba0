"""The folders a server reads (``tigris serve``): a request's folder number and path
resolved inside its folder (links followed, only regular files read), the front page's
listing of results folders and game records, and the file a game page shows, with its
analysis file beside it (written only where it stays in the folder)."""

import contextlib
import os
from pathlib import Path

from tigris.errors import RecordError, UsageError, excerpt, newer_format

__all__ = ["MAX_LISTED", "MAX_EXAMINED", "MAX_RECORD", "RESULTS_MARK", "ANALYSIS_SUFFIX", "NotFound",
           "Folders", "is_kind", "stays_inside", "walk", "is_number", "read_json_or_none", "read_record",
           "record_file", "game_of_results", "game_of_page", "analysis_path", "analysis_file_fit"]

MAX_LISTED = 500            # entries of the front page per folder
MAX_EXAMINED = 2000         # .json files of a folder read to find its game records
MAX_RECORD = 8 << 20        # bytes of a game record the front page reads (a game's is far less)
RESULTS_MARK = "games.jsonl"
ANALYSIS_SUFFIX = ".analysis.jsonl"   # a game's analysis file: its record's name, then this


class NotFound(LookupError):
    """A request for something the folders do not hold (a 404, with its message)."""


class Folders:
    """The folders a server may read, numbered in the order given; ``file`` and
    ``folder`` turn a request's folder number and relative path into a path inside
    that folder, or raise NotFound."""

    def __init__(self, folders):
        self.roots = []
        for folder in folders:
            path = Path(folder)
            if not path.is_dir():
                raise UsageError(f"{folder}: not a folder; name folders of results and game records to serve")
            self.roots.append(path.resolve())
        if not self.roots:
            raise UsageError("give at least one folder to serve")
        self._states = {}                 # what a listed file holds, by (path, time, size)

    def _inside(self, root, relative):
        if not (isinstance(root, int) and 0 <= root < len(self.roots)):
            raise NotFound(f"no folder {excerpt(root)}: the server has {len(self.roots)}")
        base = self.roots[root]
        if "\x00" in relative:
            raise NotFound("no such path")
        try:
            path = (base / relative).resolve()
        except (OSError, RuntimeError):                   # a name too long, a loop of links
            raise NotFound(f"{excerpt(relative)}: no such path") from None
        if path != base and base not in path.parents:
            raise NotFound(f"{excerpt(relative)}: not inside the served folder")
        return path

    def folder(self, root, relative):
        """A folder inside folder `root`."""
        path = self._inside(root, relative)
        if not is_kind(path, "dir"):
            raise NotFound(f"{excerpt(relative)}: no such folder")
        return path

    def file(self, root, relative):
        """A regular file inside folder `root` (never a pipe, a device or a folder, nor
        the seats' keys a table keeps beside its record: ``tables.seats_file``)."""
        from tigris.web.tables import seats_record

        path = self._inside(root, relative)
        if not is_kind(path, "file") or seats_record(path) is not None:
            raise NotFound(f"{excerpt(relative)}: no such file")
        return path

    def results(self, root, relative):
        """A results folder inside folder `root`: the files its page reads
        (``games.jsonl``, ``tournament.json``) must be regular files inside it, not links
        out of it."""
        from tigris import tournament

        folder = self.folder(root, relative)
        for name in (tournament.GAMES_FILE, tournament.SPEC_FILE):
            if not stays_inside(folder, folder / name):
                raise NotFound(f"{excerpt(relative)}: its {name} leads out of the folder")
        return folder

    def listing(self):
        """Per folder: its results folders and its game records, as paths relative to
        it, at most two levels down, each list at most MAX_LISTED long; links out of the
        folder left out.  A record is ``{"path", "unfinished", "game"}``: its ``.json``
        file holds a game record (``tigris-game/1``), ``unfinished`` says it may be played
        on (``record_state``), ``game`` which game it records (``tables.game_key``); other
        JSON files (a hint, a tuning's or a run's settings) are not listed."""
        from tigris import tournament

        out = []
        for root in self.roots:
            results, candidates = [], []
            for here, dirs, files in walk(root, levels=3):
                rel = here.relative_to(root)
                if RESULTS_MARK in files and all(stays_inside(here, here / name) for name in
                                                 (tournament.GAMES_FILE, tournament.SPEC_FILE)):
                    results.append(rel.as_posix())
                candidates.extend((rel / f).as_posix() for f in files
                                  if f.endswith(".json") and f not in ("tournament.json", "summary.json")
                                  and stays_inside(root, here / f))
            games = []
            for rel in sorted(candidates)[:MAX_EXAMINED]:
                state, game = self._record(root / rel)
                if state is not None and len(games) < MAX_LISTED:
                    games.append({"path": rel, "unfinished": state == "unfinished", "game": game})
            out.append({"folder": str(root), "results": sorted(results)[:MAX_LISTED], "records": games})
        return out

    def record_state(self, path):
        """What the file `path` holds, read once per change (its size and time): None if
        not a game record (or larger than MAX_RECORD), "unfinished" for a game that may
        be played on (no result yet, a person at one of its seats), else "finished" (its
        page shows it; a game of bots alone is not played on)."""
        return self._record(path)[0]

    def _record(self, path):
        """``(record_state, game_key)`` of the file `path`, read once per change."""
        import stat

        from tigris import record as records
        from tigris.session import HUMAN
        from tigris.sources import json_or_none, read_source
        from tigris.web.tables import game_key

        try:
            st = path.stat()
        except OSError:
            return None, None
        if not stat.S_ISREG(st.st_mode):              # a pipe would block the reading
            return None, None
        key = (path, st.st_mtime_ns, st.st_size)
        if key not in self._states:
            rec = None
            if st.st_size <= MAX_RECORD:
                with contextlib.suppress(OSError, UsageError):     # replaced since: unread
                    rec = json_or_none(read_source(path, limit=MAX_RECORD))
            if not isinstance(rec, dict) or rec.get("format") != records.FORMAT:
                state = None
            else:
                bots = rec.get("bots")
                people = isinstance(bots, list) and HUMAN in bots
                state = "unfinished" if rec.get("result") is None and people and not rec.get("error") else "finished"
            if len(self._states) >= 4 * MAX_EXAMINED:
                self._states.clear()
            self._states[key] = (state, game_key(rec) if state is not None else None)
        return self._states[key]


def is_kind(path, kind):
    """Whether `path` is a regular file or a folder (``kind``); False where the system
    cannot tell (a name too long, no permission)."""
    try:
        return path.is_file() if kind == "file" else path.is_dir()
    except OSError:
        return False


def stays_inside(folder, path):
    """Whether `path` (in `folder`, maybe a link) is missing or leads to a place inside
    `folder` (resolved)."""
    try:
        if not os.path.lexists(path):
            return True
        target = Path(path).resolve()
    except (OSError, RuntimeError):
        return False
    return Path(folder).resolve() in target.parents


def walk(root, levels):
    """os.walk of `root`, `levels` deep, without following links out of it, hidden
    folders skipped."""
    root = Path(root)
    for here, dirs, files in os.walk(root):
        here = Path(here)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and not (here / d).is_symlink())
        if len(here.relative_to(root).parts) >= levels - 1:
            dirs[:] = []
        yield here, dirs, files


def is_number(text, digits):
    """Whether `text` is a whole number of at most `digits` ASCII digits."""
    return text.isascii() and text.isdigit() and len(text) <= digits


def read_json_or_none(path):
    """What the file `path` holds, if JSON (else None: reading it to play on says why)."""
    from tigris.sources import read_json

    try:
        return read_json(path, RecordError)
    except RecordError:
        return None


def read_record(path):
    """The game record in the file `path`, checked to be one."""
    from tigris import record as records
    from tigris.sources import read_json

    rec = read_json(path, RecordError)
    if not isinstance(rec, dict) or rec.get("format") != records.FORMAT:
        said = newer_format(rec.get("format") if isinstance(rec, dict) else None, records.FORMAT)
        raise RecordError(f"{path.name}: " + (f"format: {said}" if said else f"not a game record ({records.FORMAT})"))
    return rec


def record_file(served, page):
    """The file of a record's page (/record/R/PATH)."""
    from urllib.parse import unquote

    parts = page.split("/")
    if len(parts) >= 4 and parts[0] == "" and parts[1] == "record" and is_number(parts[2], 4):
        return served.file(int(parts[2]), unquote("/".join(parts[3:])))
    raise UsageError(f"page: {excerpt(page)} is not a record's page (/record/R/PATH)")


def game_of_results(folder, k):
    """Game `k` of a results folder."""
    from tigris import view

    _, recs = view.read_results(folder)
    for rec in recs:
        if rec["game"] == k:
            return rec
    raise NotFound(f"game {k}: not in {folder.name} (its games: {recs[0]['game']} to {recs[-1]['game']})")


def game_of_page(served, page, check=lambda path, rec: path):
    """What a game page's path shows, for its analysis: ``(record, folder, analysis
    file, source)``, the folder the one served that holds it and the source as
    ``tigris analyse`` would be given it there.  /record/R/PATH (its file and record
    passed by `check`), or /results/R/PATH/game/K."""
    from urllib.parse import unquote

    from tigris import tournament

    parts = page.split("/")
    if len(parts) >= 4 and parts[0] == "" and parts[1] == "record" and is_number(parts[2], 4):
        path, root = record_file(served, page), served.roots[int(parts[2])]
        rec = read_record(path)
        check(path, rec)
        return rec, root, analysis_path(path), path.relative_to(root).as_posix()
    if len(parts) >= 5 and parts[0] == "" and parts[1] == "results" and is_number(parts[2], 4) \
            and parts[-2] == "game" and is_number(parts[-1], 9):
        root, k = served.roots[int(parts[2])], int(parts[-1])
        folder = served.results(int(parts[2]), unquote("/".join(parts[3:-2])))
        source = f"{(folder / tournament.GAMES_FILE).relative_to(root).as_posix()}:{k}"
        return game_of_results(folder, k), root, analysis_path(folder, k), source
    raise UsageError(f"page: {excerpt(page)} is not a game's page (/record/... or /results/.../game/K)")


def analysis_path(path, k=None):
    """The analysis file of the record `path` (NAME.analysis.jsonl beside it), or of game
    `k` of the results folder `path` (games-K.analysis.jsonl in it): the names ``tigris
    analyse`` gives them."""
    from tigris import tournament

    if k is None:
        return path.with_name(path.stem + ANALYSIS_SUFFIX)
    return path / f"{Path(tournament.GAMES_FILE).stem}-{k}{ANALYSIS_SUFFIX}"


def analysis_file_fit(root, out):
    """UsageError unless the analysis file `out` may be written: it stays in the served
    folder `root` (a link may not lead out of it), is a regular file if it is there, and
    its folder (which holds its lock file too) and it may be written to."""
    if not stays_inside(root, out):
        raise UsageError(f"{out.name} leads out of the served folder: the analysis is not written there")
    if os.path.lexists(out) and not is_kind(out, "file"):
        raise UsageError(f"{out.name} is not a file: the analysis is not written there; move it away")
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write the analysis {out.name}: its folder is not writable by this "
                         f"server's user; nothing is analysed")
    if out.exists() and not os.access(out, os.W_OK):
        raise UsageError(f"cannot write the analysis {out.name}: the file is not writable by this "
                         f"server's user; nothing is analysed")
    return out
