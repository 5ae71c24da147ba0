"""The server's answer times for ``tigris bench serve``: how long a page takes while hint
searches run (``bench_latency``), and a table's (``bench_table``): a person's move and
the bot's reply as a seat's page gets them.  The page no longer loads again after a move: the move's
answer holds the game and the page's data, which the viewer draws in place, and the
bot's reply comes with the page's next look (``?drawn=V``).  So the figures are these
API round trips, the size of the data a move brings, and, for comparison, a seat's page
loaded whole (what every move cost the server before; the browser's parsing and drawing
of a page came on top of it).

>>> rows = bench_latency(searches=1) + bench_table(moves=20)      # doctest: +SKIP
"""

import json
import random
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlparse

__all__ = ["bench_latency", "bench_table", "TABLE_MOVES"]

TABLE_MOVES = 30            # a person's moves a run times (the bot replies to about half)
LOOK_SECONDS = 0.01         # how often the benchmark asks for the bot's reply (a page: 0.3 s)


def bench_latency(searches=2, requests=40, seconds=8.0, progress=None):
    """How long a page takes while hint searches run: a server on a free port of
    127.0.0.1 (a folder with one game record), the front page and a game page asked
    `requests` times each with no search running, then again while `searches` searches
    of `seconds` each run.  Rows of (figure, median, unit) as ``tigris bench`` prints
    them, in milliseconds, with the slowest answer of each series."""
    import tigris
    from tigris import bots, record
    from tigris.web.app import create_app
    from tigris.web.server import listen, server

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
            rows.append(("searches still running at the end", app.state.tasks.running(), "searches"))
            return rows
        finally:
            running_server.should_exit = True
            thread.join(timeout=10)
            app.state.tasks.close()


def bench_table(moves: int = TABLE_MOVES, seed: int = 1, progress=None) -> list:
    """A server on a free port of 127.0.0.1 with a table of a person against ``random``
    (a bot that takes no time, so the figures are the server's): `moves` of the
    person's moves, each chosen at random, timed from the request to the answer with the
    page's data; the bot's whole turn after the person's, timed from that answer until
    the seat's view holds the bot's last move and its data; and the seat's page loaded
    whole before each move.  Rows of (figure, median, unit) as ``tigris bench`` prints
    them; `progress` is called after each move."""
    from tigris.web import app as serve

    with tempfile.TemporaryDirectory() as folder:
        app = serve.create_app([folder], workers=1)
        sock = serve.listen("127.0.0.1", 0)
        address = f"http://127.0.0.1:{sock.getsockname()[1]}"
        running = serve.server(app, sock)
        thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        try:
            return _timed_game(_Client(address), moves, random.Random(seed), seed, progress)
        finally:
            running.should_exit = True
            thread.join(timeout=10)
            app.state.tasks.close()


class _Client:
    """Requests as a seat's page makes them (JSON, the server's Origin), timed."""

    def __init__(self, address):
        self.address = address

    def __call__(self, path, body=None):
        """(the answer's JSON or text, milliseconds, bytes)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.address + path, data=data, headers={
            "Content-Type": "application/json", "Origin": self.address})
        start = time.perf_counter()
        with urllib.request.urlopen(request, timeout=60) as answer:
            raw = answer.read()
            kind = answer.headers.get("Content-Type", "")
        ms = 1000 * (time.perf_counter() - start)
        return (json.loads(raw) if kind.startswith("application/json") else raw), ms, len(raw)


def _timed_game(call, moves, rng, seed, progress):
    game, _, _ = call("/api/games", {"players": 2, "seats": ["human", "random"], "seed": seed})
    page = game["seats"]["0"]
    ident, key = urlparse(page).path.rsplit("/", 1)[1], parse_qs(urlparse(page).query)["key"][0]
    look = f"/api/games/{ident}?player=0&key={key}"
    view, _, _ = call(look)
    made, replies, loads, sizes = [], [], [], []
    for _ in range(moves):
        view = _until(call, look, view["version"], lambda v: v["over"] or v["legal"] or v["error"])
        if view["over"] or view["error"]:
            break
        loads.append(call(page)[1])                         # the page a move loaded before
        move = rng.choice(view["legal"])["move"]
        view, ms, size = call(f"/api/games/{ident}/move?key={key}",
                              {"player": 0, "move": move, "version": view["version"]})
        made.append(ms)
        sizes.append(size / 1000)
        if view["thinking"]:                                 # the bot's turn: until it is in
            start = time.perf_counter()
            view = _until(call, look, view["version"], lambda v: not v["thinking"])
            replies.append(1000 * (time.perf_counter() - start))
        if progress:
            progress()
    return [
        ("a person's move, answered with the page's data (drawn in place, no page load)",
         statistics.median(made), "ms"),
        ("a person's move, answered with the page's data, slowest", max(made), "ms"),
        ("the data a move's answer brings", statistics.median(sizes), "KB"),
        ("the bot's reply (random, its whole turn) until the page has its data",
         statistics.median(replies) if replies else 0.0, "ms"),
        ("a seat's page loaded whole (every move did before; the server's part)",
         statistics.median(loads), "ms"),
    ]


def _until(call, look, drawn, condition):
    """The seat's view once `condition` holds of it, asking as a page does: with the
    version it has drawn, taking the page's data whenever the game changed."""
    while True:
        view, _, _ = call(f"{look}&drawn={drawn}")
        if "data" in view:
            drawn = view["version"]
        if condition(view):
            return view
        time.sleep(LOOK_SECONDS)
