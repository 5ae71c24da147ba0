"""The table in the browser (``tigris serve``): a local web application over the folders
it is given, on a real ASGI server (Starlette on uvicorn, the ``serve`` extra).

>>> from tigris.web.app import create_app
>>> app = create_app(["results"])            # doctest: +SKIP
>>> run(app, host="127.0.0.1", port=8000)     # doctest: +SKIP

What it serves:

======================================  ==================================================
``GET /``                               the folders: their results folders and game
                                        records (an unfinished one to play on); links
                                        to a new game and a position
``GET /results/R/PATH/``                a results folder (standings, head to head, the
                                        games); while its tournament runs, the page
                                        reloads itself as games finish
``GET /results/R/PATH/game/K``          game K of that folder on the board, with its
                                        analysis file (``games-K.analysis.jsonl``)
``GET /record/R/PATH``                  a game record (``tigris-game/1``) on the board,
                                        with the analysis file beside it
                                        (``NAME.analysis.jsonl``) drawn
``POST /api/resume``                    a saved table's game played on (``tigris.web.tables``):
                                        its seats' addresses (to the server's host alone)
``GET /play``, ``/play/ID``             a new game's form; a person's seat at a game
                                        (``?player=P&key=K``), or, when the game is
                                        saved and at no table, a page that plays it on
                                        (``POST /api/games/ID/resume``)
``GET /position``, ``/position/ID``     a position to set up and ask hints of
``POST /api/position(s)``               a position checked (``tigris-position/1``: what is
                                        to decide, or the engine's message naming the
                                        field); with an ``s``, also kept for its page
``POST /api/edit``                      the editor's change of a position: a piece put on a
                                        square where the rules let it go, or taken away
                                        (``tigris.web.editing``): the new position, or the
                                        rule that refuses it
``POST /api/hint``, ``GET`` and         a hint search in a worker process
``POST .../ID/stop``                    (``tigris.web.jobs``): started, its progress and
                                        result, stopped
``POST /api/analysis`` and so on        a whole game's analysis, likewise, written to
                                        its analysis file as ``tigris analyse`` writes
                                        it (a part there is continued)
``POST /api/games``, ``GET`` and        a table: made (its seats' addresses), a seat's
``POST .../ID/move|undo|resign``        view, a person's move, undo, resign (each names
                                        the ``version`` it was made at: 409 when stale);
                                        the page's data with them when the game changed
                                        (``?drawn=V``: the version the page shows)
``POST /api/games/ID/resume``           a seat's own "play on" (its key in the address):
                                        a saved game seated again at the same addresses
======================================  ==================================================

A game page has a hint panel and an analysis panel, a seat's page its moves to click,
a position's page an editor (``hint.js``, ``analyse.js``, ``play.js``, ``edit.js``,
sharing ``panel.js``).

R is the number of a folder the server was given (``/`` lists them) and PATH a path
inside it.  Whatever a request says, a path is resolved (links followed) and must stay
inside its folder, and only regular files are read (``Folders``).  Besides the games
played (in the games folder), a page writes only a game's analysis, beside its record
(``_analysis_file_fit``: a file of the folder, never through a link out of it, and
refused where the server may not write).  Request bodies are bounded (``MAX_BODY``);
bad input is a 4xx answer with a message, never a traceback; every name and text taken
from a file is HTML-escaped (``tigris.view`` draws the pages).
Pages are computed in Starlette's thread pool and searches in worker processes, never in
the event loop.

A seat's address (its table's id and its key) is kept beside the record by the server
(``tables.seats_file``), so it outlives its tab and the server.  The server's host, the
person at its machine (a request from a loopback address, or from the address it was
reached at: ``_from_host``), is shown every seat of every game on the front page and is
given them by "play on"; a person at a seat over the network gets neither, and plays on
from their seat's own address.

Only the server's own pages drive it (``_Guard``): a request whose ``Host`` is not an
address the server listens on is refused (421, so a page of another name that resolves
here, DNS rebinding, reads nothing); a request that changes something is a POST of
``Content-Type: application/json`` (415 otherwise, so no form and no ``text/plain`` body
of another site's page gets in without a preflight, which is never granted) whose
``Origin`` is the server's (or, without one, ``Sec-Fetch-Site: same-origin``): 403
otherwise.  A client of the API sends ``Origin: http://HOST:PORT``.  On the wire
(``server``): a request must arrive whole within ``REQUEST_SECONDS``, an idle connection
is closed after ``KEEP_ALIVE_SECONDS``, and at most ``max_connections`` are held (a new
one pushes out the oldest that waits for its request), under the open-file limit.
"""

import contextlib
import html
import itertools
import json
import os
import re
import secrets
import threading
from pathlib import Path

from tigris.errors import PositionError, RecordError, UsageError, excerpt, install_hint, newer_format

__all__ = ["MAX_BODY", "DEFAULT_PORT", "LOCAL_HOSTS", "Folders", "Addresses", "create_app", "listen",
           "server", "connection_cap", "run", "require_server", "bench_latency"]

MAX_BODY = 1 << 20          # bytes a request body may hold: a position or a record is far less
DEFAULT_PORT = 8765
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
REFRESH_SECONDS = 5         # how often a running tournament's page reloads itself
MAX_LISTED = 500            # entries of the front page per folder
MAX_EXAMINED = 2000         # .json files of a folder read to find its game records
MAX_RECORD = 8 << 20        # bytes of a game record the front page reads (a game's is far less)
RESULTS_MARK = "games.jsonl"
# The package's files a page may load: the scripts of its panels, every one in static/.
ASSETS = {path.name: "text/javascript" for path in sorted((Path(__file__).parent / "static").glob("*.js"))}
# The panels, each a module that imports what they share from panel.js.
HINT_PANEL = '<script type="module" src="/assets/hint.js"></script>\n'
PLAY_PANEL = '<script type="module" src="/assets/play.js"></script>\n'
ANALYSIS_PANEL = '<script type="module" src="/assets/analyse.js"></script>\n'
EDIT_PANEL = '<script type="module" src="/assets/edit.js"></script>\n'
MAX_POSITIONS = 1000        # positions set up that a server keeps
ANALYSIS_SUFFIX = ".analysis.jsonl"   # a game's analysis file: its record's name, then this
MAX_TABLES = 256            # games a server holds at once
MAX_CONNECTIONS = 500       # connections held at once (fewer under a low open-file limit)
REQUEST_SECONDS = 10.0      # a request (its head and body) must arrive whole within this
KEEP_ALIVE_SECONDS = 5      # an idle connection is closed after this
MAX_HEAD = 16 * 1024        # bytes of a request's line and headers
BACKLOG = 128               # connections the system queues before they are accepted


def require_server():
    """Starlette and uvicorn, or a UsageError saying how to install them."""
    from importlib.util import find_spec

    missing = [name for name in ("starlette", "uvicorn") if find_spec(name) is None]
    if missing:
        raise UsageError(f"tigris serve needs {' and '.join(missing)}, not installed: "
                         f"{install_hint('serve')}")


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
        if not _is(path, "dir"):
            raise NotFound(f"{excerpt(relative)}: no such folder")
        return path

    def file(self, root, relative):
        """A regular file inside folder `root` (never a pipe, a device or a folder, nor
        the seats' keys a table keeps beside its record: ``tables.seats_file``)."""
        from tigris.web.tables import seats_record

        path = self._inside(root, relative)
        if not _is(path, "file") or seats_record(path) is not None:
            raise NotFound(f"{excerpt(relative)}: no such file")
        return path

    def results(self, root, relative):
        """A results folder inside folder `root`: the files its page reads
        (``games.jsonl``, ``tournament.json``) must be regular files inside it, not links
        out of it."""
        from tigris import tournament

        folder = self.folder(root, relative)
        for name in (tournament.GAMES_FILE, tournament.SPEC_FILE):
            if not _stays(folder, folder / name):
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
            for here, dirs, files in _walk(root, levels=3):
                rel = here.relative_to(root)
                if RESULTS_MARK in files and all(_stays(here, here / name) for name in
                                                 (tournament.GAMES_FILE, tournament.SPEC_FILE)):
                    results.append(rel.as_posix())
                candidates.extend((rel / f).as_posix() for f in files
                                  if f.endswith(".json") and f not in ("tournament.json", "summary.json")
                                  and _stays(root, here / f))
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
        from tigris.seat import HUMAN
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


def _is(path, kind):
    """Whether `path` is a regular file or a folder (``kind``); False where the system
    cannot tell (a name too long, no permission)."""
    try:
        return path.is_file() if kind == "file" else path.is_dir()
    except OSError:
        return False


def _stays(folder, path):
    """Whether `path` (in `folder`, maybe a link) is missing or leads to a place inside
    `folder` (resolved)."""
    try:
        if not os.path.lexists(path):
            return True
        target = Path(path).resolve()
    except (OSError, RuntimeError):
        return False
    return Path(folder).resolve() in target.parents


def _walk(root, levels):
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


# ---------------------------------------------------------------------------------------
# The application
# ---------------------------------------------------------------------------------------

def create_app(folders, max_body=MAX_BODY, refresh=REFRESH_SECONDS, workers=2, idle=None,
               games=None, hosts=()):
    """The Starlette application serving `folders` (see the module's docstring); a
    running tournament's page reloads every `refresh` seconds; at most `workers`
    searches (hints and the bots' moves) run at once, and a hint nobody asks about for
    `idle` seconds is stopped; games played are saved in `games` (default: the folder
    ``games`` of the first folder).  It answers to the addresses `hosts` (``host:port``;
    a name alone is port 80) and to those ``server`` adds as it listens: to none before,
    so an application no server listens for answers nothing but a test client that
    names one of `hosts`."""
    require_server()
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import ClientDisconnect
    from starlette.routing import Route

    from tigris.web import tables as playing

    state = _Served(folders, refresh, workers, idle, games, hosts, run_in_threadpool)
    routes = [Route(path, _endpoint(handler, run_in_threadpool), methods=[method])
              for method, path, handler in ROUTES]

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        await run_in_threadpool(state.close)           # no search outlives the server, no lock

    async def not_found(request, exc):
        return _error(request, 404, str(exc))

    async def bad_input(request, exc):
        status = (exc.status if isinstance(exc, playing.SaveFailed) else 403 if isinstance(exc, playing.NotYours)
                  else 409 if isinstance(exc, (playing.Stale, Held, playing.InUse)) else 400)
        return _error(request, status, str(exc))

    async def http_error(request, exc):
        return _error(request, exc.status_code, exc.detail)

    async def gone(request, exc):                     # the client went away mid-request
        return _Answer.empty(400)

    async def internal(request, exc):
        return _error(request, 500, "the server could not answer this request")

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={
        NotFound: not_found, UsageError: bad_input, RecordError: bad_input, PositionError: bad_input,
        HTTPException: http_error, ClientDisconnect: gone, Exception: internal})
    app.add_middleware(_BodyLimit, limit=max_body)
    app.add_middleware(_Guard, addresses=state.addresses)
    app.add_middleware(_SecurityHeaders)
    app.state.served = state
    app.state.folders = state.folders
    app.state.addresses = state.addresses
    app.state.searches = state.searches
    app.state.tables = state.tables
    app.state.positions = state.positions
    return app


class Held(UsageError):
    """A record whose game a table plays (409): not shown whole, not played on twice; or
    whose analysis is under way (409): not started twice."""


class _Served:
    """What one server holds: its folders, addresses and searches, the games at its
    tables and the positions set up on its board.  Every handler below is given it."""

    def __init__(self, folders, refresh, workers, idle, games, hosts, in_thread):
        from tigris.web import jobs

        self.folders = Folders(folders)
        self.addresses = Addresses(hosts)
        self.searches = jobs.Searches(workers, jobs.IDLE if idle is None else idle)
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
                   for here, _, files in _walk(root, levels=3) for name in files
                   if (record := tables.seats_record(here / name)) is not None
                   and _stays(root, record) and _is(record, "file"))
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
        (``Played.addresses``)."""
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
        self.searches.close()

    @contextlib.contextmanager
    def analysing(self, out):
        """Room for an analysis of the file `out`: Held (409) while one of it is being
        started or is under way at this server (a second would search every decision
        again, and find the file held)."""
        with self.analyses_lock:
            key = self.analyses.get(out)
            if out in self.analysing_now or (key is not None and self.searches.under_way(key)):
                raise Held(f"{out.name}: an analysis of this game is under way at this server already; "
                           f"its page shows it once it is done")
            self.analysing_now.add(out)
        try:
            yield
        finally:
            with self.analyses_lock:
                self.analysing_now.discard(out)


class _Answer:
    """What a handler returns, made a Starlette response by ``_endpoint``: a page (HTML),
    an object (JSON), a redirect, an asset or nothing, with its status."""

    def __init__(self, kind, body=None, status=200, media=None):
        self.kind, self.body, self.status, self.media = kind, body, status, media

    @classmethod
    def page(cls, text):
        return cls("html", text)

    @classmethod
    def json(cls, data, status=200):
        return cls("json", data, status)

    @classmethod
    def redirect(cls, url):
        return cls("redirect", url, 307)

    @classmethod
    def asset(cls, text, media):
        return cls("asset", text, media=media)

    @staticmethod
    def empty(status):
        from starlette.responses import Response

        return Response(status_code=status)

    def response(self):
        from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

        if self.kind == "html":
            return HTMLResponse(self.body, status_code=self.status)
        if self.kind == "json":
            return JSONResponse(self.body, status_code=self.status)
        if self.kind == "redirect":
            return RedirectResponse(self.body, status_code=self.status)
        if self.kind == "asset":
            return Response(self.body, media_type=self.media)
        return self.empty(self.status)


def _endpoint(handler, in_thread):
    """A Starlette endpoint of `handler`(served, request): a coroutine is awaited in the
    event loop (it reads the body and sends its work to the thread pool), anything else
    runs in the thread pool, as a page is computed."""
    import inspect

    if inspect.iscoroutinefunction(handler):
        async def endpoint(request):
            return (await handler(request.app.state.served, request)).response()
    else:
        async def endpoint(request):
            return (await in_thread(handler, request.app.state.served, request)).response()
    endpoint.__name__ = handler.__name__
    return endpoint


# The pages: the folders, a results folder and its games, a record, a new game's form, a
# seat at a table, a position's editor, and the panels' scripts.

def front(served, request):
    return _Answer.page(_front_page(served.folders, served.under_way(), host=_from_host(request)))


def results(served, request):
    root, rel = _where(request)
    if not request.url.path.endswith("/"):      # the games' links are relative to it
        return _Answer.redirect(request.url.path + "/")
    return _Answer.page(_results_page(served.folders.results(root, rel), served.refresh))


def results_game(served, request):
    root, rel = _where(request)
    folder, k = served.folders.results(root, rel), request.path_params["game"]
    rec = _results_game(folder, k)
    return _Answer.page(_game_page(rec, (served.folders.roots[root], _analysis_path(folder, k)),
                                   back="../", partial=True))


def record_page(served, request):
    root, rel = _where(request)
    path = served.folders.file(root, rel)
    rec = _read_record(path)
    served.not_at_a_table(path, rec)
    return _Answer.page(_game_page(rec, (served.folders.roots[root], _analysis_path(path)),
                                   title=path.name, back="/"))


def new_game_page(served, request):
    from tigris.web import tables

    return _Answer.page(_new_game_page(tables.table_bots(served.folders.roots)))


def play_page(served, request):
    from tigris import view

    ident = request.path_params["key"]
    if ident not in served.tables:                   # a game saved: its seat's page plays it on
        path, keys = served.saved_table(ident)
        player = _kept_seat(request, keys)
        return _Answer.page(_seat_again_page(path.name, player))
    played = served.table(request)
    player = _seat_of(request, played)
    rec, version = played.page()
    drawn = f'<script type="application/json" id="play-data">{{"version": {version}}}</script>\n'
    return _Answer.page(view.game_page(rec, title=f"{played.path.name}: player {player}",
                                       back="/", viewer=player, partial=True,
                                       extra=drawn + PLAY_PANEL + HINT_PANEL))


def position_page(served, request):
    import tigris
    from tigris import view

    key = request.path_params.get("key")
    if key is None:                                  # the start of a new 2-player game
        game, title = tigris.Game(players=2, seed=0), "a position (a new game's start)"
    else:
        if key not in served.positions:
            raise NotFound(f"no position {excerpt(key)} (the server keeps the last {MAX_POSITIONS})")
        game, title = _loaded(served.positions[key]), "a position"
    return _Answer.page(view.position_page(game, title=title, back="/", extra=EDIT_PANEL + HINT_PANEL))


def asset(served, request):
    name = request.path_params["name"]
    if name not in ASSETS:
        raise NotFound(f"no asset {excerpt(name)}")
    return _Answer.asset((Path(__file__).parent / "static" / name).read_text(encoding="utf-8"), ASSETS[name])


def no_icon(served, request):
    return _Answer("empty", status=204)


# The jobs: positions checked, changed by the editor and kept, hints and analyses searched in
# worker processes.

async def position(served, request):
    body = await _json_body(request)
    return _Answer.json(_position_summary(await served.in_thread(_loaded, body)))


async def position_new(served, request):
    body = await _json_body(request)
    game = await served.in_thread(_loaded, body)
    if len(served.positions) >= MAX_POSITIONS:
        served.positions.pop(next(iter(served.positions)))      # the oldest goes
    key = secrets.token_hex(6)
    served.positions[key] = body
    return _Answer.json({"id": key, **_position_summary(game)}, 201)


async def edit(served, request):
    from tigris.web import editing

    body = await _json_body(request)
    if not isinstance(body, dict) or set(body) != {"position", "square", "piece"}:
        raise UsageError('an edit is {"position": a tigris-position/1 object, "square": a square like "G5", '
                         '"piece": what to put there, "" to take away what stands there}')
    changed, did = await served.in_thread(editing.put, body["position"], body["square"], body["piece"])
    return _Answer.json({"position": changed, "did": did})


async def hint_start(served, request):
    body = await _json_body(request)
    if not isinstance(body, dict) or set(body) - {"position", "seconds"} or "position" not in body:
        raise UsageError('a hint request is {"position": a tigris-position/1 object, "seconds": a number}')
    key = await served.in_thread(served.searches.start, body["position"], body.get("seconds", 3))
    return _Answer.json({"id": key}, 202)


async def analysis_start(served, request):
    body = await _json_body(request)
    if not isinstance(body, dict) or set(body) - {"page", "iterations"} or not isinstance(body.get("page"), str):
        raise UsageError('an analysis request is {"page": the game page\'s path, "iterations": a number}')
    return await served.in_thread(_analysis_started, served, body)


def _analysis_started(served, body):
    """An analysis of the game of the page ``body["page"]`` into its analysis file (see
    ``_analysis_path``), started; the file checked first (``_analysis_file_fit``,
    ``jobs.analysis_settings``), and one analysis of a file at a time."""
    from tigris.web import jobs

    if "iterations" in body:
        jobs.check_iterations(body["iterations"])
    rec, root, out, source = _game_of_page(served.folders, body["page"], served.not_at_a_table)
    with served.analysing(out):
        key = served.searches.start_analysis(rec, _analysis_file_fit(root, out), source, body.get("iterations"))
        served.analyses[out] = key
    return _Answer.json({"id": key, "file": out.name}, 202)


def search_state(served, request):
    return _Answer.json(_known(served.searches.state, request.path_params["key"]))


def search_stop(served, request):
    return _Answer.json(_known(served.searches.stop, request.path_params["key"]))


# The tables: a game made or played on, a seat's view, a person's move, undo, resign.

async def game_new(served, request):
    from tigris.web import tables

    body = await _json_body(request)
    known = {"players", "board", "variants", "seats", "seed"}
    if not isinstance(body, dict) or set(body) - known:
        raise UsageError(f"a new game is an object of {', '.join(sorted(known))}")
    with served.new_table():
        played = await served.in_thread(lambda: tables.Played.new(
            served.games, searches=served.searches, bots=tables.table_bots(served.folders.roots), **body))
        served.tables[played.id] = played
    return _seats(played)


async def resume(served, request):
    from tigris.web import tables

    body = await _json_body(request)
    if not isinstance(body, dict) or set(body) != {"page"} or not isinstance(body["page"], str):
        raise UsageError('play on: {"page": the record\'s page, /record/R/PATH}')
    if not _from_host(request):
        raise tables.NotYours("a saved game is played on at the machine that runs the server (its front page "
                              "gives every seat), or by a seat from its own address")
    path = await served.in_thread(_record_file, served.folders, body["page"])
    rec = await served.in_thread(_read_json_or_none, path)
    with served.new_table(path, rec):
        played = await served.in_thread(tables.Played.resume, path, served.searches,
                                        tables.table_bots(served.folders.roots), served.tables)
        served.tables[played.id] = played
    return _seats(played)


async def game_resume(served, request):
    """A seat's own "play on" (``POST /api/games/ID/resume?key=K``, ``{"player": P}``):
    the game saved with the table ID's seats seated again at the same addresses, the key
    checked first; a table under way answers that seat alone too."""
    from tigris.web import tables

    body = await _json_body(request)
    if not isinstance(body, dict) or set(body) != {"player"}:
        raise UsageError("play on at a seat: an object of player")
    ident = request.path_params["key"]
    if ident in served.tables:
        played = served.tables[ident]
        return _seats(played, [_seat_of(request, played, body["player"])], 200)
    path, keys = await served.in_thread(served.saved_table, ident)
    player = _kept_seat(request, keys, body["player"])       # before anything is seated
    rec = await served.in_thread(_read_json_or_none, path)
    with served.new_table(path, rec):
        played = await served.in_thread(tables.Played.resume, path, served.searches,
                                        tables.table_bots(served.folders.roots), served.tables)
        if played.id != ident:                                # its seats were made anew meanwhile
            await served.in_thread(played.close)
            raise Held(f"{path.name}: its seats have new addresses; the front page of the server's "
                       f"machine gives them")
        served.tables[played.id] = played
    return _seats(played, [player])


def game_state(served, request):
    """A seat's view; ``?drawn=V``, the version its page shows: with the page's data to
    redraw when the game's is another."""
    played = served.table(request)
    raw = request.query_params.get("drawn")
    if raw is not None and not _number(raw, 9):
        raise UsageError(f"drawn must be the version the page shows, not {excerpt(raw)}")
    return _Answer.json(played.seen_by(_seat_of(request, played), None if raw is None else int(raw)))


def _game_action(name):
    """The handler of a person's `name` (move, undo, resign) at a table."""
    async def act(served, request):
        played = served.table(request)
        body = await _json_body(request)
        fields = {"player", "move", "version"} if name == "move" else {"player", "version"}
        if not isinstance(body, dict) or set(body) != fields:
            raise UsageError(f"{name}: an object of {', '.join(sorted(fields))}")
        version = body["version"]
        if not (isinstance(version, int) and not isinstance(version, bool) and version >= 0):
            raise UsageError(f"version must be the game's version the page saw, not {excerpt(version)}")
        player = _seat_of(request, played, body["player"])
        args = (player, body["move"]) if name == "move" else (player,)
        await served.in_thread(lambda: getattr(played, name)(*args, version=version))
        # the page's data with it (the game changed since the page's version): drawn in place
        return _Answer.json(await served.in_thread(played.seen_by, player, version))
    act.__name__ = f"game_{name}"
    return act


def _seat_of(request, played, player=None):
    """The seat a request is for (``player`` and its ``key``, in the address)."""
    return played.seat(_player_of(request, player), request.query_params.get("key"))


def _player_of(request, player=None):
    """``player``, or the one of the address (``?player=P``): a number."""
    if player is None:
        raw = request.query_params.get("player", "")
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 3):
            raise UsageError(f"player must be a seat number, not {excerpt(raw)}")
        player = int(raw)
    return player


def _kept_seat(request, keys, player=None):
    """The seat a request is for at a game saved with its seats' `keys`
    (``tables.kept_seats``), once the address's key is that seat's (403 otherwise)."""
    from tigris.web import tables

    player = _player_of(request, player)
    if not (isinstance(player, int) and not isinstance(player, bool) and 0 <= player <= 3):
        raise UsageError(f"player must be a seat, 0 to 3, not {excerpt(player)}")
    if not tables.key_fits(keys, player, request.query_params.get("key")):
        raise tables.NotYours(f"this is not player {player}'s seat: its page's address holds its key")
    return player


def _seats(played, players=None, status=201):
    """A table's answer: its id, its file and the address of each seat of `players`
    (default: every person's)."""
    addresses = played.addresses()
    return _Answer.json({"id": played.id, "file": played.path.name,
                         "seats": {p: addresses[p] for p in (sorted(addresses) if players is None else players)}},
                        status)


def _from_host(request):
    """Whether a request comes from the server's machine, as a page of the person who
    runs it: from a loopback address, or from the very address it reached (this machine
    speaking to itself over the network).  A proxy on this machine would make every
    request the host's: none is put in front of the server."""
    import ipaddress

    client, server = request.client, request.scope.get("server")
    if client is None or not client.host:
        return False
    if server and client.host == server[0]:
        return True
    try:
        ip = ipaddress.ip_address(client.host.split("%")[0])
    except ValueError:
        return False
    return ip.is_loopback or (ip.version == 6 and ip.ipv4_mapped is not None and ip.ipv4_mapped.is_loopback)


# Every route: (method, path, handler), the pages first, then the jobs, then the tables.
ROUTES = (
    ("GET", "/", front),
    ("GET", "/favicon.ico", no_icon),
    ("GET", "/results/{root:int}/game/{game:int}", results_game),
    ("GET", "/results/{root:int}/{path:path}/game/{game:int}", results_game),
    ("GET", "/results/{root:int}/{path:path}", results),
    ("GET", "/record/{root:int}/{path:path}", record_page),
    ("GET", "/assets/{name}", asset),
    ("GET", "/play", new_game_page),
    ("GET", "/play/{key}", play_page),
    ("GET", "/position", position_page),
    ("GET", "/position/{key}", position_page),
    ("POST", "/api/position", position),
    ("POST", "/api/positions", position_new),
    ("POST", "/api/edit", edit),
    ("POST", "/api/hint", hint_start),
    ("GET", "/api/hint/{key}", search_state),
    ("POST", "/api/hint/{key}/stop", search_stop),
    ("POST", "/api/analysis", analysis_start),
    ("GET", "/api/analysis/{key}", search_state),
    ("POST", "/api/analysis/{key}/stop", search_stop),
    ("POST", "/api/resume", resume),
    ("POST", "/api/games", game_new),
    ("GET", "/api/games/{key}", game_state),
    ("POST", "/api/games/{key}/move", _game_action("move")),
    ("POST", "/api/games/{key}/undo", _game_action("undo")),
    ("POST", "/api/games/{key}/resign", _game_action("resign")),
    ("POST", "/api/games/{key}/resume", game_resume),
)


def _known(method, key):
    """`method`(key) of the searches, a NotFound for an id they do not know."""
    try:
        return method(key)
    except KeyError:
        raise NotFound(f"no search {excerpt(key)} (a finished one is forgotten after a while)") from None


def _where(request):
    return request.path_params["root"], request.path_params.get("path", "")


async def _json_body(request):
    """The request's body as JSON (a 400 with the parser's message otherwise)."""
    from starlette.exceptions import HTTPException

    raw = await request.body()
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise HTTPException(400, "the body is not UTF-8 text") from None
    except (ValueError, RecursionError) as e:
        raise HTTPException(400, f"the body is not JSON ({excerpt(str(e), 80)})") from None


def _error(request, status, message):
    """An error answer: JSON for the API, a short page otherwise."""
    from starlette.responses import HTMLResponse, JSONResponse

    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    text = html.escape(message)
    return HTMLResponse(f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
                        f"{status}</title></head><body><h1>{status}</h1><p class=\"error\">{text}</p>"
                        f"<p><a href=\"/\">the folders</a></p></body></html>", status_code=status)


class _BodyLimit:
    """Refuses a request whose body is larger than `limit` bytes (413), by its declared
    length or as it arrives, before the application reads it whole."""

    def __init__(self, app, limit):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await _too_large(scope, send, self.limit)
        seen = 0

        async def limited():
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge()
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _too_large(scope, send, self.limit)


class _TooLarge(Exception):
    pass


async def _too_large(scope, send, limit):
    from starlette.responses import JSONResponse

    response = JSONResponse({"error": f"the body is larger than {limit:,} bytes"}, status_code=413)
    await response(scope, None, send)


class _SecurityHeaders:
    """Pages that no other site may frame, whose types the browser must not guess, and
    that load nothing from elsewhere."""

    HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
               (b"referrer-policy", b"no-referrer"),
               (b"content-security-policy",
                b"default-src 'self'; script-src 'self' 'unsafe-inline'; "
                b"style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")]

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        async def with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + self.HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


class Addresses:
    """The addresses a server answers to, as a browser names them in ``Host`` and
    ``Origin``: ``host:port``, lower case, an IPv6 address in brackets.

    >>> from tigris.web.app import Addresses
    >>> a = Addresses(["127.0.0.1:8765"])
    >>> a.allows("127.0.0.1:8765"), a.allows("evil.example:8765"), a.allows_origin("http://127.0.0.1:8765")
    (True, False, True)
    """

    def __init__(self, names=()):
        self.names = []
        for name in names:
            self.add(name)

    def add(self, name):
        """Answer to `name` (``host:port``, or a host alone: port 80)."""
        canonical = _authority(name)
        if canonical is None:
            raise UsageError(f"{excerpt(name)}: not a host name or address (with its port)")
        if canonical not in self.names:
            self.names.append(canonical)

    def listen(self, host, port, names=()):
        """Answer to a server listening on `host`:`port`: that address, the names of
        this machine where the address is all of them (0.0.0.0, ::), ``localhost`` where
        it is this machine's alone, and `names` (host names, with or without a port).
        Returns the addresses added, in the order to print them."""
        import ipaddress

        wanted = [host]
        try:
            ip = ipaddress.ip_address(host.split("%")[0])
        except ValueError:
            ip = None
        # the loopback addresses of the socket's family (an IPv4 socket is not reached at ::1)
        loopback = ["127.0.0.1"] if ip is None or ip.version == 4 else ["::1"]
        if host == "localhost" or (ip is not None and ip.is_loopback):
            wanted += ["localhost", *loopback]
        elif ip is not None and ip.is_unspecified:
            wanted += ["localhost", *loopback] + [n for n in _machine_names()
                                                  if ip.version == 6 or ":" not in n]
        added = []
        for name in wanted + list(names):
            canonical = _authority(_with_port(name, port))
            if canonical is None:
                raise UsageError(f"{excerpt(name)}: not a host name or address (with its port)")
            if canonical not in self.names:
                self.names.append(canonical)
                added.append(canonical)
        return added

    def allows(self, host):
        """Whether a request's ``Host`` is one of the server's addresses."""
        return _authority(host) in self.names

    def allows_origin(self, origin):
        """Whether an ``Origin`` is a page of this server (``http://`` and an address)."""
        origin = origin.strip().lower()
        return origin.startswith("http://") and self.allows(origin[len("http://"):])


def _with_port(name, port):
    """`name` (a host name or address, maybe with its port) with `port` unless it names
    one; an IPv6 address in brackets."""
    if name.startswith("["):
        return name if ":" in name.rsplit("]", 1)[-1] else f"{name}:{port}"
    if name.count(":") > 1:                             # an IPv6 address alone
        return f"[{name}]:{port}"
    return name if ":" in name else f"{name}:{port}"


def _authority(text):
    """`text` (a Host header, or a name and port) as ``host:port`` in lower case (port
    80 when none is given), or None if it is not one."""
    if not isinstance(text, str):
        return None
    text = text.strip().lower()
    if not text or not text.isascii() or any(c in text for c in " \t/\\@?#%,;"):
        return None
    if text.startswith("["):
        end = text.find("]")
        host, rest = text[:end + 1], text[end + 1:]
        if end < 2:
            return None
    else:
        host, sep, port = text.partition(":")
        rest = sep + port
    if rest == "":
        port = 80
    elif rest[:1] == ":" and _number(rest[1:], 5) and rest[1:]:
        port = int(rest[1:])
    else:
        return None
    if not host or port > 65535:
        return None
    return f"{host}:{port}"


def _machine_names():
    """This machine's names and addresses, as other machines may reach it: its host
    name (and full name), their addresses and the address of its way out."""
    import socket

    names = []
    try:
        hostname = socket.gethostname()
        names += [hostname, socket.getfqdn()]
        names += [info[4][0] for info in socket.getaddrinfo(hostname, None, proto=socket.IPPROTO_TCP)]
    except OSError:
        pass
    try:                                    # no packet is sent: the route is looked up
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            names.append(probe.getsockname()[0])
    except OSError:
        pass
    return [n.split("%")[0] for n in names if n]


class _Guard:
    """Only the server's own pages drive it (see the module's docstring): the Host must
    be an address of `addresses` (421), and a request that changes something (any
    method but GET, HEAD, OPTIONS) must come from one of its pages (``Origin``, or
    ``Sec-Fetch-Site: same-origin``; 403) with a JSON body (415)."""

    SAFE = ("GET", "HEAD", "OPTIONS")

    def __init__(self, app, addresses):
        self.app, self.addresses = app, addresses

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                from starlette.requests import Request

                return await _error(Request(scope), *refusal)(scope, receive, send)
        await self.app(scope, receive, send)

    def refusal(self, scope):
        """(status, message) when the request is refused, else None."""
        headers = {}
        for key, value in scope.get("headers") or []:
            headers.setdefault(key, []).append(value.decode("latin-1"))
        hosts = headers.get(b"host", [])
        if len(hosts) != 1:
            return 400, "a request names its Host, once"
        if not self.addresses.allows(hosts[0]):
            return 421, (f"this server does not answer to {excerpt(hosts[0], 60)}: open it at the "
                         f"address it printed")
        if scope["method"] in self.SAFE:
            return None
        origins = headers.get(b"origin", [])
        if origins:
            if len(origins) > 1 or not self.addresses.allows_origin(origins[0]):
                return 403, (f"a change comes from this server's own pages, not from "
                             f"{excerpt(origins[0], 60)}")
        elif headers.get(b"sec-fetch-site") not in (["same-origin"], ["none"]):
            return 403, "a change comes from this server's own pages: the request names no Origin"
        types = headers.get(b"content-type", [])
        if len(types) != 1 or types[0].split(";")[0].strip().lower() != "application/json":
            given = excerpt(types[0], 60) if len(types) == 1 else "none" if not types else "two"
            return 415, f"the body must be JSON, sent as Content-Type: application/json (not {given})"
        return None


# ---------------------------------------------------------------------------------------
# Pages (computed in the thread pool)
# ---------------------------------------------------------------------------------------

def _front_page(served, live=(), host=False):
    """The folders' results folders and game records (``Folders.listing``: other JSON
    files are not listed), each record with its page.  A record whose game a table plays
    (one of `live`, ``_Served.under_way``: known by its file, device and inode, or its
    game, ``tables.game_key``) is named, not linked.  To the server's `host` alone
    (``_from_host``), the people's seats of every game under way and of every unfinished
    record whose seats are kept (``tables.kept_seats``) are linked (class ``seat``), the
    games under way whose record is not listed (``--games`` outside the folders) in a
    section of their own, and an
    unfinished record's "play on" button asks for a table (POST /api/resume) and opens
    its first person's seat.  A folder's path is shown as it is written (class ``path``:
    never in capitals)."""
    from tigris import view
    from tigris.web import tables

    by_file = {file: k for k, (file, _, _, _) in enumerate(live) if file is not None}
    by_game = {key: k for k, (_, key, _, _) in enumerate(live) if key is not None}
    listed = set()

    def seat_links(addresses):
        links = ", ".join(f'<a class="seat" href="{html.escape(url, quote=True)}">player {p}</a>'
                          for p, url in sorted(addresses.items()))
        return f' <span class="seats">seats: {links}</span>' if host and links else ""

    sections = []
    for r, entry in enumerate(served.listing()):
        items = [f'<li><a href="/results/{r}/{_url(rel, "/")}">{html.escape(rel if rel != "." else entry["folder"])}</a></li>'
                 for rel in entry["results"]]
        games = []
        for game in entry["records"]:
            rel, path = game["path"], served.roots[r] / game["path"]
            at = by_file.get(tables.file_id(path)) if live else None
            at = by_game.get(game["game"]) if at is None and live else at
            if at is not None:
                listed.add(at)
                games.append(f'<li class="at-table">{html.escape(rel)} (at a table of this server)'
                             f'{seat_links(live[at][3])}</li>')
            elif game["unfinished"]:
                page = f"/record/{r}/{_url(rel)}"
                kept = tables.kept_seats(path, game["game"]) if host else None
                addresses = {p: tables.seat_address(kept[0], p, key) for p, key in kept[1].items()} if kept else {}
                play_on = f' <button type="button" class="resume" data-page="{page}">play on</button>' if host else ""
                games.append(f'<li class="unfinished"><a href="{page}">{html.escape(rel)}</a>'
                             f'{play_on}{seat_links(addresses)}</li>')
            else:
                games.append(f'<li class="finished"><a href="/record/{r}/{_url(rel)}">{html.escape(rel)}</a></li>')
        sections.append(f'<section class="folder"><h2 class="path">{html.escape(entry["folder"])}</h2>'
                        f'<h3>Results folders</h3><ul class="results">{"".join(items) or "<li>none</li>"}</ul>'
                        f'<h3>Game records</h3><ul class="records">{"".join(games) or "<li>none</li>"}</ul>'
                        f'</section>')
    elsewhere = [f'<li class="at-table">{html.escape(name)}{seat_links(addresses)}</li>'
                 for k, (_, _, name, addresses) in enumerate(live) if k not in listed]
    if host and elsewhere:
        sections.append('<section id="tables"><h2>At this server\'s tables (not listed above)</h2>'
                        f'<ul class="records">{"".join(elsewhere)}</ul></section>')
    return view.plain_page("tigris", "<header><h1>tigris</h1><p class=\"setup\">the folders this "
                           "server reads; <a id=\"new-game\" href=\"/play\">a new game</a>; "
                           "<a id=\"set-up\" href=\"/position\">set up a position</a></p></header>"
                           "<main id=\"folders\">" + "".join(sections) + "</main>" + _RESUME_SCRIPT)


def _seat_again_page(name, player):
    """The page of a seat whose game is saved at no table (after a restart): it plays
    the game on from the seat's own address (``POST /api/games/ID/resume``, the key of
    its address) and loads itself again, the seat's page then; or says why not."""
    from tigris import view

    body = f"""<header><a class="back" href="/">&larr; the folders</a><h1>{html.escape(name)}: player {player}</h1></header>
<main><p id="seat-resume">This game is saved; its table is being set again...</p>
<p id="seat-resume-error" class="error"></p></main>
<script>
(async function () {{
  "use strict";
  const here = new URL(location.href), id = here.pathname.split("/").pop();
  const r = await fetch("/api/games/" + id + "/resume?key=" + encodeURIComponent(here.searchParams.get("key") || ""),
    {{ method: "POST", headers: {{ "Content-Type": "application/json" }},
      body: JSON.stringify({{ player: parseInt(here.searchParams.get("player"), 10) }}) }});
  if (r.ok) {{ location.reload(); return; }}
  const data = await r.json().catch(() => ({{}}));
  document.getElementById("seat-resume").textContent = "This game could not be set again:";
  document.getElementById("seat-resume-error").textContent = data.error || String(r.status);
}})();
</script>"""
    return view.plain_page(f"{name}: player {player}", body)


# "play on": a table for a saved game, every person's seat kept for the first seat's page
_RESUME_SCRIPT = """<p id="resume-error" class="error"></p>
<script>
(function () {
  "use strict";
  document.addEventListener("click", async ev => {
    const button = ev.target.closest("button.resume");
    if (!button) return;
    button.disabled = true;
    const r = await fetch("/api/resume", { method: "POST", headers: { "Content-Type": "application/json" },
                                           body: JSON.stringify({ page: button.dataset.page }) });
    const data = await r.json().catch(() => ({}));
    button.disabled = false;
    if (!r.ok) { document.getElementById("resume-error").textContent = data.error || String(r.status); return; }
    const seats = Object.values(data.seats);
    if (seats.length > 1) sessionStorage.setItem("tigris-seats-" + data.id, JSON.stringify(data.seats));
    location.href = seats[0];
  });
})();
</script>"""


def _seat_options(table_bots):
    """The bots of a seat's choice (HTML options) among `table_bots` that may sit at a
    table (honest, their move bounded, a bot file): first the levels (``level-K``, by K),
    then the others by name, each named with its line for players (its ``summary``);
    every option holds that line (``data-summary``) and how it searches (its
    ``description``: its title, and ``data-about``), for the lines below the seats."""
    import re

    from tigris.web import tables as playing

    levels, others = [], []
    for name in sorted(table_bots):
        try:
            conf = playing.check_seats([name, playing.HUMAN], table_bots)[0]
        except UsageError:                   # dishonest, too slow, or not a bot file
            continue
        row = (name, f"{name}: {conf.summary}" if conf.summary else name, conf.summary, conf.description)
        level = re.fullmatch(r"level-(\d{1,3})", name)
        if level:
            levels.append((int(level[1]), *row))
        else:
            others.append((0, *row))

    def option(name, text, summary, about):
        summary, about = html.escape(summary, quote=True), html.escape(about, quote=True)
        return (f'<option value="{html.escape(name, quote=True)}" title="{about}" '
                f'data-summary="{summary}" data-about="{about}">{html.escape(text)}</option>')

    groups = []
    if levels:
        groups.append('<optgroup label="levels (1 the weakest)">'
                      + "".join(option(*row[1:]) for row in sorted(levels)) + "</optgroup>")
    if others:
        groups.append('<optgroup label="the other bots">'
                      + "".join(option(*row[1:]) for row in others) + "</optgroup>")
    return "".join(groups)


def _new_game_page(table_bots):
    """The form of a new game: players, board, variants, who sits where (a person or
    one of `table_bots`, ``tables.table_bots``, that may sit at a table)."""
    from tigris import view
    from tigris.constants import VARIANTS

    options = _seat_options(table_bots)
    bot_choice = options.replace('value="ismcts-fast" ', 'value="ismcts-fast" selected ')
    # each label holds its words and its select in one row of its own (viewer.css): they
    # cannot part, whatever the width
    seats = "".join(
        f'<label class="seat" data-seat="{p}"><span class="who">player {p}</span> <select name="seat{p}">'
        f'<option value="human"{" selected" if p == 0 else ""}>a person</option>'
        + (options if p == 0 else bot_choice) + '</select></label>' for p in range(4))
    variants = "".join(f'<label><input type="checkbox" name="variant" value="{v}"> {v}</label> '
                       for v in VARIANTS)
    body = f"""<header><a class="back" href="/">&larr; the folders</a><h1>A new game</h1></header>
<main id="new-game"><form id="new-game-form">
<p id="game-setup"><label>players <select name="players" id="players">
<option>2</option><option>3</option><option>4</option></select></label>
<label>board <select name="board"><option>classic</option><option>advanced</option></select></label>
{variants}<label>seed <input name="seed" type="number" min="0" placeholder="random"></label></p>
<div id="seats">{seats}</div>
<ul id="seat-about" class="hint"></ul>
<p><button type="submit" id="start">Start</button> <span id="new-game-error" class="error"></span></p>
</form></main>
<script>
(function () {{
  "use strict";
  const form = document.getElementById("new-game-form");
  function seatsShown() {{
    const n = parseInt(form.players.value, 10), about = [];
    for (const l of document.querySelectorAll("label.seat")) {{
      const p = parseInt(l.dataset.seat, 10), chosen = form["seat" + p].selectedOptions[0];
      l.hidden = p >= n;
      if (!l.hidden && chosen && (chosen.dataset.summary || chosen.dataset.about)) {{
        // the line for players, then how the bot searches, smaller
        const li = document.createElement("li"), how = document.createElement("div");
        li.textContent = "player " + p + ", " + chosen.value + ": " + (chosen.dataset.summary || chosen.dataset.about);
        how.className = "technical";
        how.textContent = chosen.dataset.summary ? chosen.dataset.about : "";
        li.append(how);
        about.push(li);
      }}
    }}
    document.getElementById("seat-about").replaceChildren(...about);
  }}
  form.addEventListener("change", seatsShown);
  seatsShown();
  form.addEventListener("submit", async ev => {{
    ev.preventDefault();
    const n = parseInt(form.players.value, 10);
    const body = {{ players: n, board: form.board.value,
      variants: [...form.querySelectorAll("input[name=variant]:checked")].map(e => e.value),
      seats: [...Array(n).keys()].map(p => form["seat" + p].value) }};
    if (form.seed.value !== "") body.seed = parseInt(form.seed.value, 10);
    const r = await fetch("/api/games", {{ method: "POST", headers: {{ "Content-Type": "application/json" }},
                                         body: JSON.stringify(body) }});
    const data = await r.json().catch(() => ({{}}));
    if (!r.ok) {{ document.getElementById("new-game-error").textContent = data.error || String(r.status); return; }}
    const seats = Object.values(data.seats);
    if (seats.length > 1) sessionStorage.setItem("tigris-seats-" + data.id, JSON.stringify(data.seats));
    location.href = seats[0];
  }});
}})();
</script>"""
    return view.plain_page("A new game", body)


def _url(rel, end=""):
    """`rel` (a path relative to a folder, "." the folder) in a URL, then `end`."""
    from urllib.parse import quote

    return "" if rel == "." else quote(rel, safe="/") + end


def _results_page(folder, refresh):
    from tigris import view

    summary, recs = view.read_results(folder)
    entries = []
    for rec in recs:
        entries.append({"rec": rec, "page": f"game/{rec['game']}", "problem": None})
    scheduled = summary.get("scheduled")
    # failed games are not played, but a run that is over has tried them
    running = bool(scheduled) and summary["games"] + len(summary.get("errors") or []) < scheduled
    return view.index_page(summary, entries, refresh=refresh if running else None, back=("/", "the folders"))


def _results_game(folder, k):
    """Game `k` of a results folder."""
    from tigris import view

    _, recs = view.read_results(folder)
    for rec in recs:
        if rec["game"] == k:
            return rec
    raise NotFound(f"game {k}: not in {folder.name} (its games: {recs[0]['game']} to {recs[-1]['game']})")


def _read_json_or_none(path):
    """What the file `path` holds, if JSON (else None: reading it to play on says why)."""
    from tigris.sources import read_json

    try:
        return read_json(path, RecordError)
    except RecordError:
        return None


def _read_record(path):
    """The game record in the file `path`, checked to be one."""
    from tigris import record as records
    from tigris.sources import read_json

    rec = read_json(path, RecordError)
    if not isinstance(rec, dict) or rec.get("format") != records.FORMAT:
        said = newer_format(rec.get("format") if isinstance(rec, dict) else None, records.FORMAT)
        raise RecordError(f"{path.name}: " + (f"format: {said}" if said else f"not a game record ({records.FORMAT})"))
    return rec


def _number(text, digits):
    """Whether `text` is a whole number of at most `digits` ASCII digits."""
    return text.isascii() and text.isdigit() and len(text) <= digits


def _record_file(served, page):
    """The file of a record's page (/record/R/PATH)."""
    from urllib.parse import unquote

    parts = page.split("/")
    if len(parts) >= 4 and parts[0] == "" and parts[1] == "record" and _number(parts[2], 4):
        return served.file(int(parts[2]), unquote("/".join(parts[3:])))
    raise UsageError(f"page: {excerpt(page)} is not a record's page (/record/R/PATH)")


def _game_of_page(served, page, check=lambda path, rec: path):
    """What a game page's path shows, for its analysis: ``(record, folder, analysis
    file, source)``, the folder the one served that holds it and the source as
    ``tigris analyse`` would be given it there.  /record/R/PATH (its file and record
    passed by `check`), or /results/R/PATH/game/K."""
    from urllib.parse import unquote

    from tigris import tournament

    parts = page.split("/")
    if len(parts) >= 4 and parts[0] == "" and parts[1] == "record" and _number(parts[2], 4):
        path, root = _record_file(served, page), served.roots[int(parts[2])]
        rec = _read_record(path)
        check(path, rec)
        return rec, root, _analysis_path(path), path.relative_to(root).as_posix()
    if len(parts) >= 5 and parts[0] == "" and parts[1] == "results" and _number(parts[2], 4) \
            and parts[-2] == "game" and _number(parts[-1], 9):
        root, k = served.roots[int(parts[2])], int(parts[-1])
        folder = served.results(int(parts[2]), unquote("/".join(parts[3:-2])))
        source = f"{(folder / tournament.GAMES_FILE).relative_to(root).as_posix()}:{k}"
        return _results_game(folder, k), root, _analysis_path(folder, k), source
    raise UsageError(f"page: {excerpt(page)} is not a game's page (/record/... or /results/.../game/K)")


def _analysis_path(path, k=None):
    """The analysis file of the record `path` (NAME.analysis.jsonl beside it), or of game
    `k` of the results folder `path` (games-K.analysis.jsonl in it): the names ``tigris
    analyse`` gives them."""
    from tigris import tournament

    if k is None:
        return path.with_name(path.stem + ANALYSIS_SUFFIX)
    return path / f"{Path(tournament.GAMES_FILE).stem}-{k}{ANALYSIS_SUFFIX}"


def _analysis_file_fit(root, out):
    """UsageError unless the analysis file `out` may be written: it stays in the served
    folder `root` (a link may not lead out of it), is a regular file if it is there, and
    its folder (which holds its lock file too) and it may be written to."""
    if not _stays(root, out):
        raise UsageError(f"{out.name} leads out of the served folder: the analysis is not written there")
    if os.path.lexists(out) and not _is(out, "file"):
        raise UsageError(f"{out.name} is not a file: the analysis is not written there; move it away")
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write the analysis {out.name}: its folder is not writable by this "
                         f"server's user; nothing is analysed")
    if out.exists() and not os.access(out, os.W_OK):
        raise UsageError(f"cannot write the analysis {out.name}: the file is not writable by this "
                         f"server's user; nothing is analysed")
    return out


def _game_page(rec, where, title=None, back=None, partial=False):
    """A game's page with its hint and analysis panels, and the analysis in its file
    (``where``: the served folder and the file, ``_analysis_path``) drawn if it holds one
    of this game (``_analysis_on_page``); a record that does not replay is a RecordError
    naming the move, unless `partial` (a results folder's game that stopped with an
    error: its page up to the last good move)."""
    from tigris import view

    try:
        replayed = view.replay_steps(rec, partial=partial)
    except RecordError as e:
        raise RecordError(f"{title or view.game_title(rec)}: {e}") from None
    analysis, about = _analysis_on_page(rec, *where, replayed)
    panel = f'<script type="application/json" id="analysis-file">{view.script_json(about)}</script>\n'
    return view.game_page(rec, analysis, title=title, back=back, partial=partial, replayed=replayed,
                          extra=HINT_PANEL + panel + ANALYSIS_PANEL)


def _analysis_on_page(rec, root, out, replayed):
    """``(analysis, about)``: the analysis file `out` read for the page of `rec`
    (``replayed``) if it holds part or all of this game's analysis, ``(header, rows)``,
    else None; ``about`` tells the page's panel: the ``file``'s name, its ``state``
    ("none", "partial", "complete", or "refused" with the ``problem``), the decisions
    ``analysed`` of the ``decisions`` and the budget (``iterations`` or ``seconds``)."""
    from tigris import analysis as analyses
    from tigris import view

    about = {"file": out.name, "state": "none"}
    if not os.path.lexists(out):
        return None, about
    try:
        if not (_stays(root, out) and _is(out, "file")):
            raise UsageError("not a file of the served folder")
        header, rows = analyses.read_analysis(out)
        if header is None:
            return None, about                            # empty: an analysis writes it anew
        if replayed.stopped is not None or header["record"] != analyses.record_hash(replayed.game):
            raise UsageError(f"an analysis of another game (its source: {excerpt(header['source'], 60)})")
        view.check_analysis(rec, header, rows, replayed.moves)
    except (UsageError, RecordError) as e:
        problem = str(e).replace(str(out), out.name)
        return None, dict(about, state="refused", problem=problem)
    done = len(rows) >= header["decisions"]
    return (header, rows), dict(about, state="complete" if done else "partial", analysed=len(rows),
                                decisions=header["decisions"], iterations=header.get("iterations"),
                                seconds=header.get("seconds"))


def _loaded(body):
    """The game of a position (``tigris-position/1`` data), checked: a PositionError
    names the field."""
    from tigris import position

    return position.from_position(body)


def _position_summary(game):
    """What a position holds for its player to move."""
    return {"players": game.players, "to_move": game.current_player, "decision": game.decision,
            "over": game.is_over, "legal": 0 if game.is_over else len(game.legal_actions())}


def listen(host="127.0.0.1", port=DEFAULT_PORT):
    """A socket bound to `host`:`port` (0: a free port) and listening, so that
    connections wait from now on; UsageError if it cannot be."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except (OSError, OverflowError) as e:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port} ({getattr(e, 'strerror', None) or e})") from None
    return sock


def server(app, sock, names=(), max_connections=None, request_seconds=REQUEST_SECONDS):
    """A uvicorn server of `app` (``create_app``) for the listening socket `sock`
    (``listen``): the app answers to the socket's address and to `names` (a host name,
    with or without a port: ``Addresses.listen``); on the wire, a request must arrive
    whole within `request_seconds`, an idle connection is closed after
    KEEP_ALIVE_SECONDS, and at most `max_connections` (default: ``connection_cap()``)
    are held.  Serve with ``.run(sockets=[sock])``."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    app.state.addresses.listen(host, port, names)
    cap = max_connections or connection_cap()
    config = uvicorn.Config(app, log_level="warning", http=_guarded_protocol(cap, request_seconds),
                            ws="none", lifespan="on", backlog=BACKLOG, timeout_keep_alive=KEEP_ALIVE_SECONDS,
                            limit_concurrency=cap + BACKLOG, h11_max_incomplete_event_size=MAX_HEAD,
                            timeout_graceful_shutdown=3, server_header=False)
    return uvicorn.Server(config)


def connection_cap():
    """MAX_CONNECTIONS, or fewer under a low open-file limit: room is left for the
    connections accepted at once (BACKLOG) and for the searches' pipes and the files
    read, so that accepting never runs out of files."""
    try:
        import resource
    except ImportError:                          # not a POSIX system
        return MAX_CONNECTIONS
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, soft - BACKLOG - 256))


def _more_files(wanted=4096):
    """Raise this process's open-file limit towards `wanted` (up to the hard limit)."""
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            pass


_PROTOCOLS: dict = {}            # the guarded protocol classes made, by (cap, seconds)


def _guarded_protocol(cap, seconds):
    """uvicorn's HTTP/1.1 protocol (h11) with the guards uvicorn lacks: a request must
    arrive whole within `seconds` of its connection's start or of the last answer
    (uvicorn has no timeout for a request's head: a client could trickle it forever),
    and at most `cap` connections are held: a new one pushes out the oldest that waits
    for a request, or is closed if all are answering one."""
    if (cap, seconds) in _PROTOCOLS:
        return _PROTOCOLS[cap, seconds]
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11(H11Protocol):
        _deadline = None
        _waiting_since = None          # when it began to wait for a request; None: answering

        def connection_made(self, transport):
            super().connection_made(transport)
            held = [c for c in self.connections if not c.transport.is_closing()]
            if len(held) > cap:
                waiting = [c for c in held if c is not self and c._waiting_since is not None]
                if not waiting:
                    transport.close()
                    return
                min(waiting, key=lambda c: c._waiting_since).transport.close()
            self._wait()

        def _wait(self):
            self._waiting_since = self.loop.time()
            self._cancel()
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _cancel(self):
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self):
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def handle_events(self):
            super().handle_events()
            if self.cycle is not None and not self.cycle.response_complete:
                self._waiting_since = None          # a request under way
                if not self.cycle.more_body:
                    self._cancel()                  # it has arrived whole

        def on_response_complete(self):
            if not self.transport.is_closing():
                self._wait()
            super().on_response_complete()

        def connection_lost(self, exc):
            self._cancel()
            super().connection_lost(exc)

    _PROTOCOLS[cap, seconds] = GuardedH11
    return GuardedH11


def run(app, host="127.0.0.1", port=DEFAULT_PORT, announce=print, names=()):
    """Serve `app` on `host`:`port` (0: a free port) with uvicorn until Ctrl-C; the
    address goes to `announce` once the socket is bound, then the other addresses it
    answers to (`names` among them)."""
    import socket

    _more_files()
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    try:
        uvicorn_server = server(app, sock, names=[host, *names])
    except UsageError:
        sock.close()
        raise
    shown = f"[{host}]" if sock.family == socket.AF_INET6 else host
    announce(f"tigris serve: http://{shown}:{bound}/  (Ctrl-C stops it)")
    others = [n for n in app.state.addresses.names if n != _authority(_with_port(host, bound))]
    if others:
        announce("it answers at " + ", ".join(f"http://{n}/" for n in others) + " as well; at no other name")
    uvicorn_server.run(sockets=[sock])


def bench_latency(searches=2, requests=40, seconds=8.0, progress=None):
    """How long a page takes while hint searches run: a server on a free port of
    127.0.0.1 (a folder with one game record), the front page and a game page asked
    `requests` times each with no search running, then again while `searches` searches
    of `seconds` each run.  Rows of (figure, median, unit) as ``tigris bench`` prints
    them, in milliseconds, with the slowest answer of each series."""
    import statistics
    import tempfile
    import threading
    import time
    import urllib.request

    import tigris
    from tigris import bots, record

    with tempfile.TemporaryDirectory() as folder:
        g = tigris.Game(players=2, seed=1)
        player = bots.make("greedy", seed=1)
        for _ in range(40):
            g.apply(player.choose(g))
        Path(folder, "game.json").write_text(json.dumps(record.to_record(g, bots=["a", "b"])))
        app = create_app([folder], workers=searches)
        sock = listen("127.0.0.1", 0)
        address = f"http://127.0.0.1:{sock.getsockname()[1]}"
        running_server = server(app, sock)
        thread = threading.Thread(target=running_server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()

        def timed(path):
            start = time.perf_counter()
            with urllib.request.urlopen(address + path, timeout=30) as answer:
                answer.read()
            return 1000 * (time.perf_counter() - start)

        def series(path):
            times = []
            for _ in range(requests):
                times.append(timed(path))
                time.sleep(0.02)
                if progress:
                    progress()
            return times

        try:
            rows = []
            for label, path in (("the front page", "/"), ("a game page", "/record/0/game.json")):
                timed(path)                              # the first answer imports the pages' code
                quiet = series(path)
                rows.append((f"{label}, no search running", statistics.median(quiet), "ms"))
                rows.append((f"{label}, no search running, slowest", max(quiet), "ms"))
            body = json.dumps({"position": g.to_position(), "seconds": seconds}).encode()
            running = f"{searches} search{'es' if searches != 1 else ''} running"
            for _ in range(searches):
                request = urllib.request.Request(address + "/api/hint", data=body,
                                                 headers={"Content-Type": "application/json", "Origin": address})
                urllib.request.urlopen(request, timeout=30).read()
            time.sleep(1.0)                              # the workers have started searching
            for label, path in (("the front page", "/"), ("a game page", "/record/0/game.json")):
                busy = series(path)
                rows.append((f"{label}, {running}", statistics.median(busy), "ms"))
                rows.append((f"{label}, {running}, slowest", max(busy), "ms"))
            rows.append(("searches still running at the end", app.state.searches.running(), "searches"))
            return rows
        finally:
            running_server.should_exit = True
            thread.join(timeout=10)
            app.state.searches.close()
