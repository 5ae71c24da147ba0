"""The server (``tigris serve``): a local web application over the folders
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

The parts, one module each: ``folders`` (what a request may read), ``routes`` (the
handlers and their table), ``served`` (what one server holds), ``pages`` (the HTML),
``guard`` (the middleware in front of the routes) and ``server`` (the socket and
uvicorn); this module puts them together (``create_app``) and is the one the command
imports.

R is the number of a folder the server was given (``/`` lists them) and PATH a path
inside it.  Whatever a request says, a path is resolved (links followed) and must stay
inside its folder, and only regular files are read (``tigris.web.folders``).  Besides the games
played (in the games folder), a page writes only a game's analysis, beside its record
(``folders.analysis_file_fit``: a file of the folder, never through a link out of it, and
refused where the server may not write).  Request bodies are bounded (``MAX_BODY``);
bad input is a 4xx answer with a message, never a traceback; every name and text taken
from a file is HTML-escaped (``tigris.view`` draws the pages).
Pages are computed in Starlette's thread pool and searches in worker processes, never in
the event loop.

A seat's address (its table's id and its key) is kept beside the record by the server
(``tables.seats_file``), so it outlives its tab and the server.  The server's host, the
person at its machine (a request from a loopback address, or from the address it was
reached at: ``routes._from_host``), is shown every seat of every game on the front page and is
given them by "play on"; a person at a seat over the network gets neither, and plays on
from their seat's own address.

Only the server's own pages drive it (``tigris.web.guard``): a request whose ``Host`` is not an
address the server listens on is refused (421, so a page of another name that resolves
here, DNS rebinding, reads nothing); a request that changes something is a POST of
``Content-Type: application/json`` (415 otherwise, so no form and no ``text/plain`` body
of another site's page gets in without a preflight, which is never granted) whose
``Origin`` is the server's (or, without one, ``Sec-Fetch-Site: same-origin``): 403
otherwise.  A client of the API sends ``Origin: http://HOST:PORT``.  On the wire
(``tigris.web.server``): a request must arrive whole within ``REQUEST_SECONDS``, an idle connection
is closed after ``KEEP_ALIVE_SECONDS``, and at most ``max_connections`` are held (a new
one pushes out the oldest that waits for its request), under the open-file limit.
"""


import contextlib

from tigris.errors import PositionError, RecordError, UsageError, install_hint
from tigris.web.folders import Folders, NotFound
from tigris.web.guard import LOCAL_HOSTS, Addresses, BodyLimit, Guard, SecurityHeaders, error_answer
from tigris.web.routes import ROUTES, Answer, endpoint
from tigris.web.served import Held, Served
from tigris.web.server import DEFAULT_PORT, connection_cap, listen, run, server

__all__ = ["MAX_BODY", "DEFAULT_PORT", "LOCAL_HOSTS", "Folders", "Addresses", "create_app", "listen",
           "server", "connection_cap", "run", "require_server"]

MAX_BODY = 1 << 20          # bytes a request body may hold: a position or a record is far less
REFRESH_SECONDS = 5         # how often a running tournament's page reloads itself


def require_server():
    """Starlette and uvicorn, or a UsageError saying how to install them."""
    from importlib.util import find_spec

    missing = [name for name in ("starlette", "uvicorn") if find_spec(name) is None]
    if missing:
        raise UsageError(f"tigris serve needs {' and '.join(missing)}, not installed: "
                         f"{install_hint('serve')}")


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

    state = Served(folders, refresh, workers, idle, games, hosts, run_in_threadpool)
    routes = [Route(path, endpoint(handler, run_in_threadpool), methods=[method])
              for method, path, handler in ROUTES]

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        await run_in_threadpool(state.close)           # no search outlives the server, no lock

    async def not_found(request, exc):
        return error_answer(request, 404, str(exc))

    async def bad_input(request, exc):
        status = (exc.status if isinstance(exc, playing.SaveFailed) else 403 if isinstance(exc, playing.NotYours)
                  else 409 if isinstance(exc, (playing.Stale, Held, playing.InUse)) else 400)
        return error_answer(request, status, str(exc))

    async def http_error(request, exc):
        return error_answer(request, exc.status_code, exc.detail)

    async def gone(request, exc):                     # the client went away mid-request
        return Answer.empty(400)

    async def internal(request, exc):
        return error_answer(request, 500, "the server could not answer this request")

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={
        NotFound: not_found, UsageError: bad_input, RecordError: bad_input, PositionError: bad_input,
        HTTPException: http_error, ClientDisconnect: gone, Exception: internal})
    app.add_middleware(BodyLimit, limit=max_body)
    app.add_middleware(Guard, addresses=state.addresses)
    app.add_middleware(SecurityHeaders)
    app.state.served = state
    app.state.folders = state.folders
    app.state.addresses = state.addresses
    app.state.tasks = state.tasks
    app.state.tables = state.tables
    app.state.positions = state.positions
    return app
