"""The table in the browser (``tigris serve``): a local web application over the folders
it is given, on a real ASGI server (Starlette on uvicorn, the ``serve`` extra).

>>> from tigris.serve import create_app
>>> app = create_app(["results"])            # doctest: +SKIP
>>> run(app, host="127.0.0.1", port=8000)     # doctest: +SKIP

What it serves:

======================================  ==================================================
``GET /``                               the folders: their results folders and game
                                        records; links to a new game and a position
``GET /results/R/PATH/``                a results folder (standings, head to head, the
                                        games); while its tournament runs, the page
                                        reloads itself as games finish
``GET /results/R/PATH/game/K``          game K of that folder on the board
``GET /record/R/PATH``                  a game record (``tigris-game/1``) on the board;
                                        ``?analysis=ID`` with a finished analysis drawn
``GET /resume/R/PATH``                  a saved table's game played on (``tigris.playing``)
``GET /play``, ``/play/ID``             a new game's form; a person's seat at a game
                                        (``?player=P&key=K``)
``GET /position``, ``/position/ID``     a position to set up and ask hints of
``POST /api/position(s)``               a position checked (``tigris-position/1``: what is
                                        to decide, or the engine's message naming the
                                        field); with an ``s``, also kept for its page
``POST /api/hint``, ``GET`` and         a hint search in a worker process
``POST .../ID/stop``                    (``tigris.searches``): started, its progress and
                                        result, stopped
``POST /api/analysis`` and so on        a whole game's analysis, likewise
``POST /api/games``, ``GET`` and        a table: made (its seats' addresses), a seat's
``POST .../ID/move|undo|resign``        view, a person's move, undo, resign
======================================  ==================================================

A game page has a hint panel and an analysis panel, a seat's page its moves to click,
a position's page an editor (``hint.js``, ``analyse.js``, ``play.js``, ``edit.js``,
sharing ``panel.js``).

R is the number of a folder the server was given (``/`` lists them) and PATH a path
inside it.  Whatever a request says, a path is resolved (links followed) and must stay
inside its folder, and only regular files are read (``Folders``).  Request bodies are
bounded (``MAX_BODY``); bad input is a 4xx answer with a message, never a traceback;
every name and text taken from a file is HTML-escaped (``tigris.view`` draws the pages).
Pages are computed in Starlette's thread pool and searches in worker processes, never in
the event loop.
"""

import html
import json
import os
import secrets
from pathlib import Path

from tigris.errors import PositionError, RecordError, UsageError, excerpt

__all__ = ["MAX_BODY", "DEFAULT_PORT", "LOCAL_HOSTS", "Folders", "create_app", "run", "require_server",
           "bench_latency"]

MAX_BODY = 1 << 20          # bytes a request body may hold: a position or a record is far less
DEFAULT_PORT = 8765
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
REFRESH_SECONDS = 5         # how often a running tournament's page reloads itself
MAX_LISTED = 500            # entries of the front page per folder
RESULTS_MARK = "games.jsonl"
# The package's files a page may load: the scripts of its panels.
ASSETS = {name: "text/javascript" for name in ("panel.js", "hint.js", "play.js", "analyse.js", "edit.js")}
PANELS = '<script src="/assets/panel.js"></script>\n'      # what the panels below share
HINT_PANEL = '<script src="/assets/hint.js"></script>\n'
PLAY_PANEL = '<script src="/assets/play.js"></script>\n'
ANALYSIS_PANEL = '<script src="/assets/analyse.js"></script>\n'
EDIT_PANEL = '<script src="/assets/edit.js"></script>\n'
MAX_POSITIONS = 1000        # positions set up that a server keeps
ANALYSIS_ITERATIONS = 2_000  # a decision's search when a page asks for an analysis
MAX_TABLES = 256            # games a server holds at once


def require_server():
    """Starlette and uvicorn, or a UsageError saying how to install them."""
    from importlib.util import find_spec

    missing = [name for name in ("starlette", "uvicorn") if find_spec(name) is None]
    if missing:
        raise UsageError(f"tigris serve needs {' and '.join(missing)}, not installed: "
                         f"pip install 'tigris[serve]'")


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
        """A regular file inside folder `root` (never a pipe, a device or a folder)."""
        path = self._inside(root, relative)
        if not _is(path, "file"):
            raise NotFound(f"{excerpt(relative)}: no such file")
        return path

    def listing(self):
        """Per folder: its results folders and its ``.json`` files (candidate records),
        as paths relative to it, at most two levels down, each list at most MAX_LISTED
        long."""
        out = []
        for root in self.roots:
            results, games = [], []
            for here, dirs, files in _walk(root, levels=3):
                rel = here.relative_to(root)
                if RESULTS_MARK in files:
                    results.append(rel.as_posix())
                games.extend((rel / f).as_posix() for f in files
                             if f.endswith(".json") and f not in ("tournament.json", "summary.json"))
            out.append({"folder": str(root), "results": sorted(results)[:MAX_LISTED],
                        "records": sorted(games)[:MAX_LISTED]})
        return out


def _is(path, kind):
    """Whether `path` is a regular file or a folder (``kind``); False where the system
    cannot tell (a name too long, no permission)."""
    try:
        return path.is_file() if kind == "file" else path.is_dir()
    except OSError:
        return False


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
               games=None):
    """The Starlette application serving `folders` (see the module's docstring); a
    running tournament's page reloads every `refresh` seconds; at most `workers`
    searches (hints and the bots' moves) run at once, and a hint nobody asks about for
    `idle` seconds is stopped; games played are saved in `games` (default: the folder
    ``games`` of the first folder)."""
    require_server()
    import contextlib

    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
    from starlette.routing import Route

    from tigris import searches as searchlib

    from tigris import playing

    served = Folders(folders)
    searches = searchlib.Searches(workers, searchlib.IDLE if idle is None else idle)
    games_folder = Path(games) if games is not None else served.roots[0] / "games"
    if games_folder.exists() and not games_folder.is_dir():
        raise UsageError(f"{games_folder}: not a folder; the games played are saved in a folder (--games)")
    tables = {}                                          # the games being played, by id

    def table(request):
        key = request.path_params["key"]
        if key not in tables:
            raise NotFound(f"no game {excerpt(key)} at this server (a game saved goes on from its record)")
        return tables[key]

    def seat_of(request, played, player=None):
        """The seat a request is for (``player`` and its ``key``, in the address)."""
        if player is None:
            raw = request.query_params.get("player", "")
            if not raw.isdigit():
                raise UsageError(f"player must be a seat number, not {excerpt(raw)}")
            player = int(raw)
        return played.seat(player, request.query_params.get("key"))

    def link(played, player):
        return f"/play/{played.id}?player={player}&key={played.keys[player]}"

    def keep(played):
        if len(tables) >= MAX_TABLES:
            raise UsageError(f"this server already holds {MAX_TABLES} games; restart it to play more")
        tables[played.id] = played
        return played

    async def game_new(request):
        body = await _json_body(request)
        known = {"players", "board", "variants", "seats", "seed"}
        if not isinstance(body, dict) or set(body) - known:
            raise UsageError(f"a new game is an object of {', '.join(sorted(known))}")
        played = keep(await run_in_threadpool(
            lambda: playing.Played.new(games_folder, searches=searches, **body)))
        return JSONResponse({"id": played.id, "file": str(played.path),
                             "seats": {p: link(played, p) for p in sorted(played.keys)}}, status_code=201)

    def game_state(request):
        played = table(request)
        return JSONResponse(played.view(seat_of(request, played)))

    def game_action(name):
        async def act(request):
            played = table(request)
            body = await _json_body(request)
            fields = {"player", "move"} if name == "move" else {"player"}
            if not isinstance(body, dict) or set(body) != fields:
                raise UsageError(f"{name}: an object of {', '.join(sorted(fields))}")
            player = seat_of(request, played, body["player"])
            args = (player, body["move"]) if name == "move" else (player,)
            await run_in_threadpool(getattr(played, name), *args)
            return JSONResponse(await run_in_threadpool(played.view, player))
        return act

    def play_page(request):
        played = table(request)
        player = seat_of(request, played)
        rec = playing.record(played)
        return HTMLResponse(view.game_page(rec, title=f"{played.path.name}: player {player}", back="/",
                                           viewer=player, partial=True, extra=PANELS + PLAY_PANEL + HINT_PANEL))

    def new_game_page(request):
        return HTMLResponse(_new_game_page())

    positions = {}                                       # positions set up on the board, by id

    async def position_new(request):
        body = await _json_body(request)
        game = await run_in_threadpool(_loaded, body)
        if len(positions) >= MAX_POSITIONS:
            positions.pop(next(iter(positions)))         # the oldest goes
        key = secrets.token_hex(6)
        positions[key] = body
        return JSONResponse({"id": key, **_position_summary(game)}, status_code=201)

    def position_page(request):
        key = request.path_params.get("key")
        if key is None:                                  # the start of a new 2-player game
            import tigris

            game, title = tigris.Game(players=2, seed=0), "a position (a new game's start)"
        else:
            if key not in positions:
                raise NotFound(f"no position {excerpt(key)} (the server keeps the last {MAX_POSITIONS})")
            game, title = _loaded(positions[key]), "a position"
        return HTMLResponse(view.position_page(game, title=title, back="/",
                                               extra=PANELS + EDIT_PANEL + HINT_PANEL))

    def resume(request):
        root, rel = _where(request)
        played = keep(playing.Played.resume(served.file(root, rel), searches))
        return RedirectResponse(link(played, min(played.keys)), status_code=303)

    def front(request):
        return HTMLResponse(_front_page(served))

    def results(request):
        root, rel = _where(request)
        if not request.url.path.endswith("/"):      # the games' links are relative to it
            return RedirectResponse(request.url.path + "/", status_code=307)
        return HTMLResponse(_results_page(served.folder(root, rel), refresh))

    def analysed(request):
        """The analysis (header, rows) named by the address's ``analysis``, or None."""
        key = request.query_params.get("analysis")
        if key is None:
            return None
        state = _known(searches.state, key)
        if state["state"] != "done" or not isinstance(state["result"], dict) or "rows" not in state["result"]:
            raise UsageError(f"the analysis {excerpt(key)} is {state['state']}, not done")
        return state["result"]["header"], state["result"]["rows"]

    def results_game(request):
        root, rel = _where(request)
        rec = _results_game(served.folder(root, rel), request.path_params["game"])
        return HTMLResponse(_game_page(rec, analysed(request), back="../", partial=True))

    def record_page(request):
        root, rel = _where(request)
        path = served.file(root, rel)
        return HTMLResponse(_game_page(_read_record(path), analysed(request), title=path.name, back="/"))

    async def analysis_start(request):
        body = await _json_body(request)
        if not isinstance(body, dict) or set(body) - {"page", "iterations"} or not isinstance(body.get("page"), str):
            raise UsageError('an analysis request is {"page": the game page\'s path, "iterations": a number}')
        rec = await run_in_threadpool(_record_of_page, served, body["page"])
        key = await run_in_threadpool(searches.start_analysis, rec, body.get("iterations", ANALYSIS_ITERATIONS))
        return JSONResponse({"id": key}, status_code=202)

    async def position(request):
        body = await _json_body(request)
        return JSONResponse(_position_summary(await run_in_threadpool(_loaded, body)))

    async def hint_start(request):
        body = await _json_body(request)
        if not isinstance(body, dict) or set(body) - {"position", "seconds"} or "position" not in body:
            raise UsageError('a hint request is {"position": a tigris-position/1 object, "seconds": a number}')
        key = await run_in_threadpool(searches.start, body["position"], body.get("seconds", 3))
        return JSONResponse({"id": key}, status_code=202)

    def hint_state(request):
        return JSONResponse(_known(searches.state, request.path_params["key"]))

    def hint_stop(request):
        return JSONResponse(_known(searches.stop, request.path_params["key"]))

    def asset(request):
        from importlib import resources

        name = request.path_params["name"]
        if name not in ASSETS:
            raise NotFound(f"no asset {excerpt(name)}")
        text = resources.files("tigris").joinpath(name).read_text(encoding="utf-8")
        return Response(text, media_type=ASSETS[name])

    def no_icon(request):
        return Response(status_code=204)

    routes = [
        Route("/", front),
        Route("/favicon.ico", no_icon),
        Route("/results/{root:int}/game/{game:int}", results_game),
        Route("/results/{root:int}/{path:path}/game/{game:int}", results_game),
        Route("/results/{root:int}/{path:path}", results),
        Route("/record/{root:int}/{path:path}", record_page),
        Route("/api/position", position, methods=["POST"]),
        Route("/api/hint", hint_start, methods=["POST"]),
        Route("/api/hint/{key}", hint_state),
        Route("/api/hint/{key}/stop", hint_stop, methods=["POST"]),
        Route("/api/analysis", analysis_start, methods=["POST"]),
        Route("/api/analysis/{key}", hint_state),
        Route("/api/analysis/{key}/stop", hint_stop, methods=["POST"]),
        Route("/assets/{name}", asset),
        Route("/play", new_game_page),
        Route("/position", position_page),
        Route("/position/{key}", position_page),
        Route("/api/positions", position_new, methods=["POST"]),
        Route("/play/{key}", play_page),
        Route("/resume/{root:int}/{path:path}", resume),
        Route("/api/games", game_new, methods=["POST"]),
        Route("/api/games/{key}", game_state),
        Route("/api/games/{key}/move", game_action("move"), methods=["POST"]),
        Route("/api/games/{key}/undo", game_action("undo"), methods=["POST"]),
        Route("/api/games/{key}/resign", game_action("resign"), methods=["POST"]),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        await run_in_threadpool(searches.close)      # no search outlives the server

    from tigris import view

    async def not_found(request, exc):
        return _error(request, 404, str(exc))

    async def bad_input(request, exc):
        return _error(request, 403 if isinstance(exc, playing.NotYours) else 400, str(exc))

    async def http_error(request, exc):
        return _error(request, exc.status_code, exc.detail)

    async def internal(request, exc):
        return _error(request, 500, "the server could not answer this request")

    from starlette.exceptions import HTTPException

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={
        NotFound: not_found, UsageError: bad_input, RecordError: bad_input, PositionError: bad_input,
        HTTPException: http_error, Exception: internal})
    app.add_middleware(_BodyLimit, limit=max_body)
    app.add_middleware(_SecurityHeaders)
    app.state.folders = served
    app.state.searches = searches
    app.state.tables = tables
    return app


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


# ---------------------------------------------------------------------------------------
# Pages (computed in the thread pool)
# ---------------------------------------------------------------------------------------

def _front_page(served):
    from tigris import view

    sections = []
    for r, entry in enumerate(served.listing()):
        items = [f'<li><a href="/results/{r}/{_url(rel, "/")}">{html.escape(rel if rel != "." else entry["folder"])}</a></li>'
                 for rel in entry["results"]]
        games = [f'<li><a href="/record/{r}/{_url(rel)}">{html.escape(rel)}</a> '
                 f'<a class="resume" href="/resume/{r}/{_url(rel)}">play on</a></li>'
                 for rel in entry["records"]]
        sections.append(f'<section class="folder"><h2>{html.escape(entry["folder"])}</h2>'
                        f'<h3>Results folders</h3><ul class="results">{"".join(items) or "<li>none</li>"}</ul>'
                        f'<h3>Game records</h3><ul class="records">{"".join(games) or "<li>none</li>"}</ul>'
                        f'</section>')
    return view.plain_page("tigris", "<header><h1>tigris</h1><p class=\"setup\">the folders this "
                           "server reads; <a id=\"new-game\" href=\"/play\">a new game</a>; "
                           "<a id=\"set-up\" href=\"/position\">set up a position</a></p></header>"
                           "<main id=\"folders\">" + "".join(sections) + "</main>")


def _new_game_page():
    """The form of a new game: players, board, variants, who sits where."""
    from tigris import bots, view
    from tigris.constants import VARIANTS

    honest = [name for name in bots.available() if name != "cheat"]
    options = "".join(f'<option value="{html.escape(n)}">{html.escape(n)}</option>' for n in honest)
    bot_choice = options.replace('value="ismcts-fast">', 'value="ismcts-fast" selected>')
    seats = "".join(
        f'<label class="seat" data-seat="{p}">player {p} <select name="seat{p}">'
        f'<option value="human"{" selected" if p == 0 else ""}>a person</option>'
        + (options if p == 0 else bot_choice) + '</select></label>' for p in range(4))
    variants = "".join(f'<label><input type="checkbox" name="variant" value="{v}"> {v}</label> '
                       for v in VARIANTS)
    body = f"""<header><a class="back" href="/">&larr; the folders</a><h1>A new game</h1></header>
<main id="new-game"><form id="new-game-form">
<p><label>players <select name="players" id="players">
<option>2</option><option>3</option><option>4</option></select></label>
<label>board <select name="board"><option>classic</option><option>advanced</option></select></label>
{variants}<label>seed <input name="seed" type="number" min="0" placeholder="random"></label></p>
<p id="seats">{seats}</p>
<p><button type="submit" id="start">Start</button> <span id="new-game-error" class="error"></span></p>
</form></main>
<script>
(function () {{
  "use strict";
  const form = document.getElementById("new-game-form");
  function seatsShown() {{
    const n = parseInt(form.players.value, 10);
    for (const l of document.querySelectorAll("label.seat")) l.hidden = parseInt(l.dataset.seat, 10) >= n;
  }}
  form.players.addEventListener("change", seatsShown);
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
    running = bool(scheduled) and summary["games"] < scheduled
    return view.index_page(summary, entries, refresh=refresh if running else None)


def _results_game(folder, k):
    """Game `k` of a results folder."""
    from tigris import view

    _, recs = view.read_results(folder)
    for rec in recs:
        if rec["game"] == k:
            return rec
    raise NotFound(f"game {k}: not in {folder.name} (its games: {recs[0]['game']} to {recs[-1]['game']})")


def _read_record(path):
    """The game record in the file `path`, checked to be one."""
    from tigris import record as records
    from tigris.sources import read_json

    rec = read_json(path, RecordError)
    if not isinstance(rec, dict) or rec.get("format") != records.FORMAT:
        raise RecordError(f"{path.name}: not a game record ({records.FORMAT})")
    return rec


def _record_of_page(served, page):
    """The record a game page's path shows: /record/R/PATH or /results/R/PATH/game/K."""
    from urllib.parse import unquote

    parts = page.split("/")
    if len(parts) >= 4 and parts[0] == "" and parts[1] == "record" and parts[2].isdigit():
        return _read_record(served.file(int(parts[2]), unquote("/".join(parts[3:]))))
    if len(parts) >= 5 and parts[1] == "results" and parts[2].isdigit() and parts[-2] == "game" \
            and parts[-1].isdigit():
        folder = served.folder(int(parts[2]), unquote("/".join(parts[3:-2])))
        return _results_game(folder, int(parts[-1]))
    raise UsageError(f"page: {excerpt(page)} is not a game's page (/record/... or /results/.../game/K)")


def _game_page(rec, analysis, title=None, back=None, partial=False):
    """A game's page with its hint and analysis panels (and the analysis, if given); a
    record that does not replay is a RecordError naming the move, unless `partial` (a
    results folder's game that stopped with an error: its page up to the last good move)."""
    from tigris import view

    try:
        replayed = view.replay_steps(rec, partial=partial)
        if analysis is not None:
            view.check_analysis(rec, *analysis, replayed.moves)
    except RecordError as e:
        raise RecordError(f"{title or view.game_title(rec)}: {e}") from None
    return view.game_page(rec, analysis, title=title, back=back, partial=partial, replayed=replayed,
                          extra=PANELS + HINT_PANEL + ANALYSIS_PANEL)


def _loaded(body):
    """The game of a position (``tigris-position/1`` data), checked: a PositionError
    names the field."""
    from tigris import position

    return position.from_position(body)


def _position_summary(game):
    """What a position holds for its player to move."""
    return {"players": game.players, "to_move": game.current_player, "decision": game.decision,
            "over": game.is_over, "legal": 0 if game.is_over else len(game.legal_actions())}


def run(app, host="127.0.0.1", port=DEFAULT_PORT, announce=print):
    """Serve `app` on `host`:`port` (0: a free port) with uvicorn until Ctrl-C; the
    address goes to `announce` once the socket is bound."""
    import socket

    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)            # connections wait from now on, before uvicorn accepts them
    except OSError as e:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port} ({e.strerror or e})") from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    announce(f"tigris serve: http://{shown}:{bound}/  (Ctrl-C stops it)")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])


def bench_latency(searches=2, requests=40, seconds=8.0, progress=None):
    """How long a page takes while hint searches run: a server on a free port of
    127.0.0.1 (a folder with one game record), the front page and a game page asked
    `requests` times each with no search running, then again while `searches` searches
    of `seconds` each run.  Rows of (figure, median, unit) as ``tigris bench`` prints
    them, in milliseconds, with the slowest answer of each series."""
    import socket
    import statistics
    import tempfile
    import threading
    import time
    import urllib.request

    import uvicorn

    import tigris
    from tigris import bots, record

    with tempfile.TemporaryDirectory() as folder:
        g = tigris.Game(players=2, seed=1)
        player = bots.make("greedy", seed=1)
        for _ in range(40):
            g.apply(player.choose(g))
        Path(folder, "game.json").write_text(json.dumps(record.to_record(g, bots=["a", "b"])))
        app = create_app([folder], workers=searches)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        address = f"http://127.0.0.1:{sock.getsockname()[1]}"
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
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
                                                 headers={"Content-Type": "application/json"})
                urllib.request.urlopen(request, timeout=30).read()
            time.sleep(1.0)                              # the workers have started searching
            for label, path in (("the front page", "/"), ("a game page", "/record/0/game.json")):
                busy = series(path)
                rows.append((f"{label}, {running}", statistics.median(busy), "ms"))
                rows.append((f"{label}, {running}, slowest", max(busy), "ms"))
            rows.append(("searches still running at the end", app.state.searches.running(), "searches"))
            return rows
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            app.state.searches.close()
