"""What one server holds (``tigris serve``): its folders and addresses, its searches,
the games at its tables, the positions set up on its board and the analyses under way;
every route's handler is given it (``Served``)."""

import contextlib
import itertools
import re
import threading
from pathlib import Path

from tigris.errors import UsageError, excerpt
from tigris.web.folders import MAX_EXAMINED, Folders, NotFound, is_kind, stays_inside, walk
from tigris.web.guard import Addresses

__all__ = ["MAX_TABLES", "Held", "Served"]

MAX_TABLES = 256            # games a server holds at once


class Held(UsageError):
    """A record whose game a table plays (409): not shown whole, not played on twice; or
    whose analysis is under way (409): not started twice."""


class Served:
    """What one server holds: its folders, addresses and searches, the games at its
    tables and the positions set up on its board.  Every handler below is given it."""

    def __init__(self, folders, refresh, workers, idle, games, hosts, in_thread):
        from tigris.web import jobs

        self.folders = Folders(folders)
        self.addresses = Addresses(hosts)
        self.tasks = jobs.Tasks(workers, jobs.IDLE if idle is None else idle)
        self.refresh = refresh
        self.in_thread = in_thread                   # Starlette's thread pool: pages and saves
        games_folder = Path(games) if games is not None else self.folders.roots[0] / "games"
        if games_folder.exists() and not games_folder.is_dir():
            raise UsageError(f"{games_folder}: not a folder; the games played are saved in a folder (--games)")
        self.games = games_folder.resolve()         # a table's file is named as Folders names it
        self.tables = {}                             # the games being played, by id
        self.saved = {}                              # records whose seats are kept, by their table's id
        self.making = set()                          # tables being made: a token, or a record's path
        self.positions = {}                          # positions set up on the board, by id
        self.analyses = {}                           # the last analysis of each file, by its path
        self.analysing_now = set()                   # analysis files whose analysis is being started
        self.analyses_lock = threading.Lock()

    def table(self, request):
        key = request.path_params["key"]
        if key not in self.tables:
            raise NotFound(f"no game {excerpt(key)} at this server (a game saved goes on from its record)")
        return self.tables[key]

    def saved_table(self, ident):
        """The record whose kept seats (``tables.kept_seats``) are those of the table
        `ident`, a game at no table of this server now: ``(path, {player: key})``, found
        among the records of the served folders and of the games folder; else NotFound."""
        from tigris.web import tables

        gone = NotFound(f"no game {excerpt(ident)} at this server (a game saved goes on from its record)")
        if not re.fullmatch(r"[0-9a-f]{12}", ident):
            raise gone
        for looked in (False, True):
            if looked:
                self._look_for_saved()
            path = self.saved.get(ident)
            kept = tables.kept_seats(path) if path is not None else None
            if kept is not None and kept[0] == ident:
                return path, kept[1]
        raise gone

    def _look_for_saved(self):
        """``saved`` made anew from the seats files beside the records of the served
        folders and the games folder (as far down as the front page looks, links out of
        a folder not followed)."""
        from tigris.web import tables

        found = {}
        records = (record for root in [*self.folders.roots, self.games]
                   for here, _, files in walk(root, levels=3) for name in files
                   if (record := tables.seats_record(here / name)) is not None
                   and stays_inside(root, record) and is_kind(record, "file"))
        for record in itertools.islice(records, MAX_EXAMINED):
            kept = tables.kept_seats(record)
            if kept is not None:
                found.setdefault(kept[0], record)
        self.saved = found

    def holders(self, file=None, key=None):
        """The tables whose game is the one of a record: the file itself (`file`, its
        device and inode: a hard link is the record) or a record of the same game (`key`,
        ``tables.game_key``: an old copy shows the same hands and seed)."""
        return [played for played in list(self.tables.values())
                if (file is not None and played.file == file) or (key is not None and played.key == key)]

    def not_at_a_table(self, path, rec=None):
        """The record `path` (`rec`, what it holds, if read) of a game no table plays
        now: a game under way shows the hands of every seat, so only its seats' pages
        show it (each as that seat may see it).  Known by the file and by the game
        (``holders``); a record another run (a server, the terminal) holds is held by it
        (409).  A game over whose record passes here stays over (no resignation taken
        back)."""
        from tigris._plumbing import locks
        from tigris.web import tables

        mine = self.holders(tables.file_id(path), tables.game_key(rec))
        playing = Held(f"{path.name}: this game is being played at a table of this server; "
                       f"each seat's page shows it as that seat may see it")
        for played in mine:                  # first: none goes on (none is marked shown for nothing)
            with played.lock:
                if not played.over:
                    raise playing
        for played in mine:
            if not played.show_whole():      # a resignation taken back meanwhile
                raise playing
        if not mine:
            who = locks.held_by(path, file=True)
            if who is not None:
                raise Held(f"{path.name} is in use by another run ({who}): a game played there is "
                           f"shown to each seat as that seat may see it")
        return path

    def under_way(self):
        """The games being played now: per table, what it is known by (``holders``: its
        record's file and its game) and its people's seats' addresses
        (``Table.addresses``)."""
        live = []
        for played in list(self.tables.values()):
            with played.lock:
                if not played.over:
                    live.append((played.file, played.key, played.path.name, played.addresses()))
        return live

    @contextlib.contextmanager
    def new_table(self, path=None, rec=None):
        """Room for one more table (MAX_TABLES), claimed before anything is written or
        started, and for `path` (a record played on; `rec`, what it holds) only one
        table: known by its file and its game (``holders``)."""
        from tigris.web import tables

        if len(self.tables) + len(self.making) >= MAX_TABLES:
            raise UsageError(f"this server already holds {MAX_TABLES} games; restart it to play more")
        token = object()
        if path is not None:
            token = (tables.file_id(path), tables.game_key(rec))
            if any(made[0] == token[0] or (made[1] is not None and made[1] == token[1])
                   for made in self.making if isinstance(made, tuple)):
                raise Held(f"{path.name}: this game is being seated at a table already")
            self.not_at_a_table(path, rec)
        self.making.add(token)
        try:
            yield
        finally:
            self.making.discard(token)

    def close(self):
        """The server stops: its tables let go of their records, its searches end."""
        for played in list(self.tables.values()):
            played.close()
        self.tasks.close()

    @contextlib.contextmanager
    def analysing(self, out):
        """Room for an analysis of the file `out`: Held (409) while one of it is being
        started or is under way at this server (a second would search every decision
        again, and find the file held)."""
        with self.analyses_lock:
            key = self.analyses.get(out)
            if out in self.analysing_now or (key is not None and self.tasks.under_way(key)):
                raise Held(f"{out.name}: an analysis of this game is under way at this server already; "
                           f"its page shows it once it is done")
            self.analysing_now.add(out)
        try:
            yield
        finally:
            with self.analyses_lock:
                self.analysing_now.discard(out)
