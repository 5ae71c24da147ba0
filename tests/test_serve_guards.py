"""tigris serve answers its own pages only, and bounds what a client may make it do: the
Host must be one of its addresses, a change must come from its pages (Origin) as JSON,
a request must arrive in time and the connections are capped under the open-file limit;
a seat is a bot by name, an analysis's budget is capped; odd addresses and names are a
4xx naming the field; Ctrl-C does not wait for a bot's move."""

import json
import logging
import os
import shutil
import socket
import time
import urllib.error
import urllib.request

import psutil
import pytest

import tigris
from tigris import bots, record, tournament
from tigris.errors import UsageError

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import serving  # noqa: E402
from processes import ctrl_c  # noqa: E402
from serving import serve_process  # noqa: E402
from waiting import until  # noqa: E402
from tigris.web.app import Addresses, create_app  # noqa: E402
from tigris.web.server import REQUEST_SECONDS  # noqa: E402

NEW_GAME = {"players": 2, "seats": ["human", "random"], "seed": 1}


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A game record and a results folder, made once."""
    made = tmp_path_factory.mktemp("made")
    g = tigris.Game(players=2, seed=4)
    a = bots.make("greedy", seed=1)
    for _ in range(30):
        g.apply(a.choose(g))
    (made / "game.json").write_text(json.dumps(record.to_record(g, bots=["greedy", "greedy"])))
    tournament.run(tournament.Spec(bots=["random", "greedy"], games=2, seed=3, name="t"),
                   out=made / "t", jobs=1, progress=False)
    return made


@pytest.fixture
def folder(made, tmp_path):
    """A folder of the test's own with a game record and a results folder (copies: a
    test may write beside them)."""
    shutil.copytree(made, tmp_path, dirs_exist_ok=True)
    return tmp_path


def untouched(app, folder):
    """Nothing was made: no table, no search, no position, no game file."""
    return (not app.state.tables and not app.state.tasks._tasks and not app.state.positions
            and not (folder / "games").exists())


def state_changing_routes(key="nothing"):
    """Every route that changes something, with a valid body."""
    g = tigris.Game(players=2, seed=1)
    return [("/api/games", NEW_GAME), ("/api/resume", {"page": "/record/0/game.json"}),
            ("/api/hint", {"position": g.to_position(), "seconds": 1}),
            ("/api/analysis", {"page": "/record/0/game.json", "iterations": 10}),
            ("/api/positions", g.to_position()), ("/api/position", g.to_position()),
            ("/api/edit", {"position": g.to_position(), "square": "C2", "piece": "red"}),
            (f"/api/hint/{key}/stop", {}), (f"/api/analysis/{key}/stop", {}),
            (f"/api/games/{key}/move?key=k", {"player": 0, "move": "pass", "version": 0}),
            (f"/api/games/{key}/undo?key=k", {"player": 0, "version": 0}),
            (f"/api/games/{key}/resign?key=k", {"player": 0, "version": 0}),
            (f"/api/games/{key}/resume?key=k", {"player": 0})]


# ---------------------------------------------------------------------------------------
# Host, Origin, content type
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("host", ["evil.example:8765", "evil.example", "tigris.test:8766", "tigris.test",
                                  "tigris.test.:8765", "127.0.0.1:8765", "[::1]:8765", "tigris.test:8765:1",
                                  "tigris.test:+8765", "", "tigris.test:99999", "xn--tigris.test:8765"])
@pytest.mark.slow
def test_a_host_not_the_server_s_is_refused(folder, host):
    app = create_app([folder])
    client = serving.client(app)
    for path in ("/", "/record/0/game.json", "/results/0/t/", "/play", "/api/hint/x"):
        answer = client.get(path, headers={"Host": host})
        assert answer.status_code in (400, 421), (path, answer.status_code)
        assert str(folder) not in answer.text
    answer = client.post("/api/games", json=NEW_GAME, headers={"Host": host})
    assert answer.status_code in (400, 421) and untouched(app, folder)


def test_the_addresses_a_server_answers_to():
    loopback = Addresses()
    assert loopback.listen("127.0.0.1", 8000) == ["127.0.0.1:8000", "localhost:8000"]
    assert Addresses().listen("::1", 8000) == ["[::1]:8000", "localhost:8000"]
    assert loopback.allows("LOCALHOST:8000") and loopback.allows("127.0.0.1:8000")
    assert not loopback.allows("127.0.0.1:8001") and not loopback.allows("127.0.0.1")
    assert not loopback.allows("localhost.:8000") and not loopback.allows("evil.example:8000")
    assert loopback.allows_origin("http://localhost:8000") and not loopback.allows_origin("https://localhost:8000")
    assert not loopback.allows_origin("http://localhost:8000/x") and not loopback.allows_origin("null")
    other = Addresses()
    added = other.listen("0.0.0.0", 80, names=["tigris.lan", "tigris.example:8080", "::2"])
    assert "[::1]:80" not in added                                      # not reached by IPv4
    assert "0.0.0.0:80" in added and "localhost:80" in added and "tigris.lan:80" in added
    assert "tigris.example:8080" in added and "[::2]:80" in added
    assert other.allows("tigris.lan") and other.allows(socket.gethostname().lower() + ":80")
    one = Addresses()
    assert one.listen("192.0.2.7", 8765) == ["192.0.2.7:8765"]           # an address of its own
    with pytest.raises(UsageError, match="not a host name"):
        Addresses().listen("127.0.0.1", 80, names=["a b"])


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"}, {"Origin": "null"}, {"Origin": ""},
    {"Origin": "https://tigris.test:8765"}, {"Origin": "http://tigris.test:8766"},
    {"Origin": "http://tigris.test:8765.evil.example"},
    {"Origin": None}, {"Origin": None, "Sec-Fetch-Site": "cross-site"},
    {"Origin": None, "Sec-Fetch-Site": "same-site"},
])
@pytest.mark.slow
def test_a_change_from_another_origin_is_refused(folder, headers):
    app = create_app([folder])
    client = serving.client(app)
    headers = {k: v for k, v in headers.items() if v is not None}
    client.headers.pop("Origin")
    for path, body in state_changing_routes():
        answer = client.post(path, json=body, headers=headers)
        assert answer.status_code == 403 and "this server's own pages" in answer.json()["error"], path
    assert untouched(app, folder)


def test_a_change_from_the_server_s_pages_is_taken(folder):
    app = create_app([folder])
    client = serving.client(app)
    assert client.post("/api/games", json=NEW_GAME).status_code == 201
    client.headers.pop("Origin")                       # a browser that sends no Origin
    answer = client.post("/api/games", json=NEW_GAME, headers={"Sec-Fetch-Site": "same-origin"})
    assert answer.status_code == 201
    assert len(app.state.tables) == 2


@pytest.mark.parametrize("content_type", [None, "text/plain", "text/plain;charset=UTF-8",
                                          "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                                          "application/jsonp", "application/json-patch+json", "text/json"])
@pytest.mark.slow
def test_a_change_that_is_not_json_is_refused(folder, content_type):
    app = create_app([folder])
    client = serving.client(app)
    headers = {} if content_type is None else {"Content-Type": content_type}
    for path, body in state_changing_routes():
        answer = client.post(path, content=json.dumps(body).encode(), headers=headers)
        assert answer.status_code == 415 and "application/json" in answer.json()["error"], path
    assert client.post("/api/games", data={"players": "2"}).status_code == 415          # a form
    assert client.post("/api/games", files={"players": b"2"}).status_code == 415        # multipart
    assert untouched(app, folder)


def test_playing_on_is_a_post_and_gets_every_seat(folder):
    g = tigris.Game(players=2, seed=5)
    g.apply(g.legal_actions()[0])
    (folder / "table.json").write_text(json.dumps(record.to_record(g, bots=["human", "human"])))
    app = create_app([folder])
    client = serving.client(app)
    assert client.get("/resume/0/table.json").status_code in (404, 405)             # no GET changes
    assert client.get("/api/resume").status_code == 405 and not app.state.tables
    front = client.get("/").text
    assert 'data-page="/record/0/table.json"' in front and 'href="/resume/' not in front
    answer = client.post("/api/resume", json={"page": "/record/0/table.json"})
    assert answer.status_code == 201 and set(answer.json()["seats"]) == {"0", "1"}
    for body in ({"page": "/results/0/t/game/0"}, {"page": "/record/0/../x.json"}, {"page": 3}, {}):
        assert 400 <= client.post("/api/resume", json=body).status_code < 500


# ---------------------------------------------------------------------------------------
# On the wire: slow clients and many connections
# ---------------------------------------------------------------------------------------

def slow_connections(address, count):
    """`count` connections that each send the start of a request's head and no more."""
    host, port = address[len("http://"):].rstrip("/").split(":")
    socks = []
    for _ in range(count):
        s = socket.create_connection((host, int(port)), timeout=10)
        s.sendall(b"GET / HTTP/1.1\r\nHost: " + f"{host}:{port}".encode() + b"\r\nX-Slow: ")
        socks.append(s)
    return socks


def answered(address, timeout=10):
    with urllib.request.urlopen(address, timeout=timeout) as answer:
        return answer.status


@pytest.fixture
def servers():
    running = serving.Servers()
    yield running
    running.stop()


def test_a_request_that_trickles_is_cut_off(folder, servers):
    address = servers(folder, server_options={"request_seconds": 1})
    sock, = slow_connections(address, 1)
    start = time.monotonic()
    sock.settimeout(10)
    for _ in range(5):                        # a byte now and then does not keep it open
        time.sleep(0.4)
        try:
            sock.sendall(b"x")
        except OSError:
            break
    assert sock.recv(100) == b"" and time.monotonic() - start < 5
    sock.close()


def test_slow_connections_do_not_shut_the_others_out(folder, servers, caplog):
    address = servers(folder, server_options={"max_connections": 20})
    socks = slow_connections(address, 60)
    try:
        start = time.monotonic()
        for _ in range(5):
            assert answered(address) == 200
        assert time.monotonic() - start < 5
        alive = 0
        for s in socks:                       # the oldest ones were pushed out
            s.settimeout(0.05)
            try:
                alive += s.recv(1) != b""
            except socket.timeout:
                alive += 1
            except OSError:
                pass
        assert alive <= 20
    finally:
        for s in socks:
            s.close()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.slow
def test_1100_slow_connections_under_1024_open_files(folder):
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1300:
        pytest.skip(f"this process may open {hard} files, not the 1,100 connections of the test")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1300), hard))
    process, address = serve_process([str(folder), "--port", "0"], cwd=folder, files=1024)
    socks = []
    try:
        start = time.monotonic()
        socks = slow_connections(address, 1100)
        assert answered(address) == 200
        # answered by pushing the oldest out, before the first would have been cut off
        assert time.monotonic() - start < REQUEST_SECONDS
    finally:
        for s in socks:
            s.close()
        ctrl_c(process)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    err = process.stderr.read()
    assert "Traceback" not in err and "Too many open files" not in err, err[-2000:]


@pytest.mark.slow
def test_the_command_answers_at_its_names_only(folder):
    process, address = serve_process([str(folder), "--port", "0", "--name", "tigris.lan"], cwd=folder)
    port = address.rstrip("/").rsplit(":", 1)[1]
    try:
        also = process.stdout.readline()
        assert f"http://localhost:{port}/" in also and f"http://tigris.lan:{port}/" in also
        for host, status in ((f"localhost:{port}", 200), (f"tigris.lan:{port}", 200),
                             (f"evil.example:{port}", 421), (f"127.0.0.1:{int(port) + 1}", 421)):
            request = urllib.request.Request(address, headers={"Host": host})
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    got = answer.status
            except urllib.error.HTTPError as e:
                got = e.code
            assert got == status, host
    finally:
        ctrl_c(process)


# ---------------------------------------------------------------------------------------
# Budgets, seats by name, odd input
# ---------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("iterations", [10_001, 2_147_483_646, 10 ** 30, 0, -1, 1.5, "500", True, None])
def test_an_analysis_budget_is_capped(folder, iterations):
    app = create_app([folder])
    client = serving.client(app)
    answer = client.post("/api/analysis", json={"page": "/record/0/game.json", "iterations": iterations})
    assert answer.status_code == 400 and "iterations must be a whole number from 1 to 10,000" in answer.json()["error"]
    assert not app.state.tasks._tasks


def bot_file(folder, name, text):
    (folder / "bots").mkdir(exist_ok=True)
    (folder / "bots" / f"{name}.toml").write_text(text)


@pytest.mark.parametrize("seat", ["/etc/passwd", "/etc/shadow", "/etc", "/dev/null", "/dev/zero",
                                  "../../etc/passwd", "bots/mine.toml", "ismcts-fast.toml", "nothing.toml",
                                  "/proc/self/environ", "x" * 100_000, "ismcts-fast\x00", "MINE"])
@pytest.mark.slow
def test_a_seat_is_a_bot_by_name_never_a_path(folder, seat, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    bot_file(elsewhere, "mine", 'kind = "random"\n')
    bot_file(folder, "mine", 'kind = "random"\n')
    seat = seat if seat != "bots/mine.toml" else str(elsewhere / "bots" / "mine.toml")
    app = create_app([folder])
    client = serving.client(app)
    answer = client.post("/api/games", json={"players": 2, "seats": ["human", seat]})
    assert answer.status_code == 400
    message = answer.json()["error"]
    assert message.startswith("seats[1]: unknown bot") and len(message) < 400
    for word in ("folder", "device", "exist", "regular", "permission", "TOML"):
        assert word not in message.split(";")[0], message
    assert untouched(app, folder)


def test_the_server_s_bots_are_the_shipped_ones_and_its_folders(folder):
    bot_file(folder, "mine", 'kind = "greedy"\n')
    bot_file(folder, "sneaky", 'kind = "cheat"\niterations = 10\n')
    bot_file(folder, "slow", 'kind = "ismcts"\nseconds = 3600.0\n')
    bot_file(folder, "deep", 'kind = "ismcts"\niterations = 10000000\n')
    bot_file(folder, "wide", f'kind = "ismcts"\niterations = 100\nworkers = {os.cpu_count() + 1}\n')
    bot_file(folder, "broken", 'kind = "ismcts"\niterations = "many"\n')
    (folder / "bots" / "up.toml").symlink_to(folder.parent / "outside.toml")
    (folder.parent / "outside.toml").write_text('kind = "random"\n')
    app = create_app([folder])
    client = serving.client(app)
    form = client.get("/play").text
    assert 'value="mine"' in form and 'value="ismcts-fast"' in form
    for name in ("sneaky", "slow", "deep", "wide", "broken", "up", "cheat"):
        assert f'value="{name}"' not in form, name
    assert client.post("/api/games", json={"players": 2, "seats": ["human", "mine"]}).status_code == 201
    for name, message in (("sneaky", "reads the hidden tiles"), ("slow", "searches 3600 seconds a move"),
                          ("deep", "searches 10,000,000 iterations"), ("wide", "cores"),
                          ("broken", "the bot broken cannot play"), ("up", "unknown bot")):
        answer = client.post("/api/games", json={"players": 2, "seats": ["human", name]})
        error = answer.json()["error"]
        assert answer.status_code == 400 and message in error and str(folder) not in error, (name, error)


@pytest.mark.slow
@pytest.mark.parametrize("player", ["\u00b2", "1" * 5000, "-1", "0x1", " 1", "\u0661", "", "1e3"])
def test_an_odd_player_in_the_address_is_a_400(folder, player, caplog):
    app = create_app([folder])
    client = serving.client(app, raise_server_exceptions=False)
    game = client.post("/api/games", json=NEW_GAME).json()
    key = game["seats"]["0"].split("key=")[1]
    for path in (f"/api/games/{game['id']}", f"/play/{game['id']}"):
        answer = client.get(path, params={"player": player, "key": key})
        assert answer.status_code == 400 and "player must be a seat" in answer.text, (path, answer.text[:200])
        assert len(answer.text) < 2000
    answer = client.get(f"/api/games/{game['id']}", params={"player": "0", "key": "\u00e9" * 5000})
    assert answer.status_code == 403
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or len(r.getMessage()) > 1000]


def test_a_huge_seat_name_is_a_short_400(folder, caplog):
    app = create_app([folder])
    client = serving.client(app, raise_server_exceptions=False)
    answer = client.post("/api/games", json={"players": 2, "seats": ["human", "y" * 100_000]})
    assert answer.status_code == 400 and len(answer.text) < 600 and "seats[1]" in answer.text
    assert not [r for r in caplog.records if len(r.getMessage()) > 1000]


# ---------------------------------------------------------------------------------------
# Stopping
# ---------------------------------------------------------------------------------------

def post(address, path, body):
    request = urllib.request.Request(address.rstrip("/") + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "Origin": address.rstrip("/")})
    with urllib.request.urlopen(request, timeout=20) as answer:
        return json.loads(answer.read())


@pytest.mark.slow
def test_ctrl_c_does_not_wait_for_a_bot_s_move(folder):
    bot_file(folder, "slow", 'kind = "ismcts"\nseconds = 60.0\n')
    process, address = serve_process([str(folder), "--port", "0"], cwd=folder)
    try:
        game = post(address, "/api/games", {"players": 2, "seats": ["slow", "human"], "seed": 1})
        seat = game["seats"]["1"]
        with urllib.request.urlopen(address.rstrip("/") + "/api" + seat[:seat.index("?")].replace("/play", "/games")
                                    + seat[seat.index("?"):], timeout=20) as answer:
            assert json.loads(answer.read())["thinking"]
        children = until(lambda: psutil.Process(process.pid).children(recursive=True), 20,
                         what="the bot's search in a process of its own")
        start = time.monotonic()
        assert ctrl_c(process, timeout=30) == 130
        assert time.monotonic() - start < 10
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    psutil.wait_procs(children, timeout=5)
    assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert "Traceback" not in process.stderr.read()
