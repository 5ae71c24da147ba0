"""The server's routes (``tigris serve``): each a handler of (served, request) that
returns an ``Answer`` (a page, JSON, a redirect, an asset), and ``ROUTES``, the table of
(method, path, handler) that ``tigris.web.app.create_app`` serves; the pages first, then
the jobs (positions, the editor, hints, analyses), then the tables."""

import json
import secrets
from pathlib import Path

from tigris.errors import UsageError, excerpt
from tigris.web.folders import (NotFound, analysis_file_fit, analysis_path, game_of_page, game_of_results,
                                 is_number, read_json_or_none, read_record, record_file)
from tigris.web.pages import (ASSETS, EDIT_PANEL, HINT_PANEL, PLAY_PANEL, front_page, game_page, new_game_form,
                              results_page, seat_again_page)
from tigris.web.served import Held

__all__ = ["MAX_POSITIONS", "Answer", "endpoint", "ROUTES"]

MAX_POSITIONS = 1000        # positions set up that a server keeps


class Answer:
    """What a handler returns, made a Starlette response by ``endpoint``: a page (HTML),
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


def endpoint(handler, in_thread):
    """A Starlette endpoint of ``handler(served, request)``: a coroutine is awaited in the
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


def front(served, request):
    return Answer.page(front_page(served.folders, served.under_way(), host=_from_host(request)))


def results(served, request):
    root, rel = _where(request)
    if not request.url.path.endswith("/"):      # the games' links are relative to it
        return Answer.redirect(request.url.path + "/")
    return Answer.page(results_page(served.folders.results(root, rel), served.refresh))


def results_game(served, request):
    root, rel = _where(request)
    folder, k = served.folders.results(root, rel), request.path_params["game"]
    rec = game_of_results(folder, k)
    return Answer.page(game_page(rec, (served.folders.roots[root], analysis_path(folder, k)),
                                   back="../", partial=True))


def record_page(served, request):
    root, rel = _where(request)
    path = served.folders.file(root, rel)
    rec = read_record(path)
    served.not_at_a_table(path, rec)
    return Answer.page(game_page(rec, (served.folders.roots[root], analysis_path(path)),
                                   title=path.name, back="/"))


def new_game_page(served, request):
    from tigris.web import tables

    return Answer.page(new_game_form(tables.table_bots(served.folders.roots)))


def play_page(served, request):
    from tigris import view

    ident = request.path_params["key"]
    if ident not in served.tables:                   # a game saved: its seat's page plays it on
        path, keys = served.saved_table(ident)
        player = _kept_seat(request, keys)
        return Answer.page(seat_again_page(path.name, player))
    played = served.table(request)
    player = _seat_of(request, played)
    rec, version = played.page()
    drawn = f'<script type="application/json" id="play-data">{{"version": {version}}}</script>\n'
    return Answer.page(view.game_page(rec, title=f"{played.path.name}: player {player}",
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
    return Answer.page(view.position_page(game, title=title, back="/", extra=EDIT_PANEL + HINT_PANEL))


def asset(served, request):
    name = request.path_params["name"]
    if name not in ASSETS:
        raise NotFound(f"no asset {excerpt(name)}")
    return Answer.asset((Path(__file__).parent / "static" / name).read_text(encoding="utf-8"), ASSETS[name])


def no_icon(served, request):
    return Answer("empty", status=204)


async def position(served, request):
    body = await _json_body(request)
    return Answer.json(_position_summary(await served.in_thread(_loaded, body)))


async def position_new(served, request):
    body = await _json_body(request)
    game = await served.in_thread(_loaded, body)
    if len(served.positions) >= MAX_POSITIONS:
        served.positions.pop(next(iter(served.positions)))      # the oldest goes
    key = secrets.token_hex(6)
    served.positions[key] = body
    return Answer.json({"id": key, **_position_summary(game)}, 201)


async def edit(served, request):
    from tigris.web import editing

    body = await _json_body(request)
    if not isinstance(body, dict) or set(body) != {"position", "square", "piece"}:
        raise UsageError('an edit is {"position": a tigris-position/1 object, "square": a square like "G5", '
                         '"piece": what to put there, "" to take away what stands there}')
    changed, did = await served.in_thread(editing.put, body["position"], body["square"], body["piece"])
    return Answer.json({"position": changed, "did": did})


async def hint_start(served, request):
    body = await _json_body(request)
    if not isinstance(body, dict) or set(body) - {"position", "seconds"} or "position" not in body:
        raise UsageError('a hint request is {"position": a tigris-position/1 object, "seconds": a number}')
    key = await served.in_thread(served.tasks.start, body["position"], body.get("seconds", 3))
    return Answer.json({"id": key}, 202)


async def analysis_start(served, request):
    body = await _json_body(request)
    if not isinstance(body, dict) or set(body) - {"page", "iterations"} or not isinstance(body.get("page"), str):
        raise UsageError('an analysis request is {"page": the game page\'s path, "iterations": a number}')
    return await served.in_thread(_analysis_started, served, body)


def _analysis_started(served, body):
    """An analysis of the game of the page ``body["page"]`` into its analysis file (see
    ``analysis_path``), started; the file checked first (``analysis_file_fit``,
    ``jobs.analysis_settings``), and one analysis of a file at a time."""
    from tigris.web import jobs

    if "iterations" in body:
        jobs.check_iterations(body["iterations"])
    rec, root, out, source = game_of_page(served.folders, body["page"], served.not_at_a_table)
    with served.analysing(out):
        key = served.tasks.start_analysis(rec, analysis_file_fit(root, out), source, body.get("iterations"))
        served.analyses[out] = key
    return Answer.json({"id": key, "file": out.name}, 202)


def search_state(served, request):
    return Answer.json(_known(served.tasks.state, request.path_params["key"]))


def search_stop(served, request):
    return Answer.json(_known(served.tasks.stop, request.path_params["key"]))


async def game_new(served, request):
    from tigris.web import tables

    body = await _json_body(request)
    known = {"players", "board", "variants", "seats", "seed"}
    if not isinstance(body, dict) or set(body) - known:
        raise UsageError(f"a new game is an object of {', '.join(sorted(known))}")
    with served.new_table():
        played = await served.in_thread(lambda: tables.Table.new(
            served.games, searches=served.tasks, bots=tables.table_bots(served.folders.roots), **body))
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
    path = await served.in_thread(record_file, served.folders, body["page"])
    rec = await served.in_thread(read_json_or_none, path)
    with served.new_table(path, rec):
        played = await served.in_thread(tables.Table.resume, path, served.tasks,
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
    rec = await served.in_thread(read_json_or_none, path)
    with served.new_table(path, rec):
        played = await served.in_thread(tables.Table.resume, path, served.tasks,
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
    if raw is not None and not is_number(raw, 9):
        raise UsageError(f"drawn must be the version the page shows, not {excerpt(raw)}")
    return Answer.json(played.seen_by(_seat_of(request, played), None if raw is None else int(raw)))


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
        return Answer.json(await served.in_thread(played.seen_by, player, version))
    act.__name__ = f"game_{name}"
    return act


def _seat_of(request, played, player=None):
    """The seat a request is for (``player`` and its ``key``, in the address)."""
    return played.check_key(_player_of(request, player), request.query_params.get("key"))


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
    return Answer.json({"id": played.id, "file": played.path.name,
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


def _loaded(body):
    """The game of a position (``tigris-position/1`` data), checked: a PositionError
    names the field."""
    from tigris import position

    return position.from_position(body)


def _position_summary(game):
    """What a position holds for its player to move."""
    return {"players": game.players, "to_move": game.current_player, "decision": game.decision,
            "over": game.is_over, "legal": 0 if game.is_over else len(game.legal_actions())}
