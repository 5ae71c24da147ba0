"""What a game at tigris serve keeps from its seats while it is live: its seed (every
hand and every later draw follows from it) is in no name, page, answer, message or log;
one writer per record, across processes too (a second server, a game at the terminal);
a record is known by its file, so a hard link or an old copy of a live record is that
record; a seat is never lost (its key kept beside the record for the server alone, the
front page linking it to the server's host, a restart keeping it); and a seat's bot
reads no file outside the served folders, its network checked when the seat is made."""

import html
import json
import os
import re
import shutil
import stat
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlparse

import pytest

import tigris
from tigris import network, record
from tigris._plumbing import locks
from tigris.commands import main

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import serving  # noqa: E402
import waiting  # noqa: E402
from processes import ctrl_c  # noqa: E402
from tigris.web import tables  # noqa: E402
from tigris.web.app import create_app  # noqa: E402

PEOPLE = {"players": 2, "seats": ["human", "human"]}


def seats_of(answer):
    """{player: (game id, key)} of a new table's answer."""
    out = {}
    for p, link in answer["seats"].items():
        url = urlparse(link)
        out[int(p)] = (url.path.rsplit("/", 1)[1], parse_qs(url.query)["key"][0])
    return out


def view(client, game, player):
    key = game["keys"][player]
    return client.get(f"/api/games/{game['id']}?player={player}&key={key}")


def table(client, body):
    """A new table (its answer, with each person's ``keys``)."""
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    game = answer.json()
    game["keys"] = {p: key for p, (_, key) in seats_of(game).items()}
    game["answer"] = answer.text
    return game


def move(client, game):
    """A person whose turn it is makes their first legal move: the answer."""
    def mover():
        for player in game["keys"]:
            v = view(client, game, player).json()
            if v["legal"]:
                return player, v
        return None

    player, v = waiting.until(mover, 60, what="a person's turn")
    return client.post(f"/api/games/{game['id']}/move?key={game['keys'][player]}",
                       json={"player": player, "move": v["legal"][0]["move"], "version": v["version"]})


def saved(folder, name="saved.json", seats=("human", "human"), seed=3):
    """A game left unfinished in `folder`, two moves in."""
    g = tigris.Game(players=2, seed=seed)
    for _ in range(2):
        g.apply(g.legal_actions()[0])
    path = folder / name
    path.write_text(json.dumps(record.to_record(g, bots=list(seats))))
    return path


# ---------------------------------------------------------------------------------------
# The seed: never where a seat reads while the game is live
# ---------------------------------------------------------------------------------------

def test_a_seed_drawn_for_a_game_reaches_no_seat_while_it_is_live(tmp_path, caplog):
    with serving.client(create_app([tmp_path])) as client:
        shown = []
        for body in (PEOPLE, {"players": 2, "seats": ["human", "random"]}):
            game = table(client, body)
            path = tmp_path / "games" / game["file"]
            seed = json.loads(path.read_text())["seed"]
            page = f"/record/0/games/{game['file']}"
            shown = [game["answer"], client.get("/").text,
                     client.get(page).text,                                       # 409: live
                     client.post("/api/analysis", json={"page": page, "iterations": 5}).text,
                     client.post("/api/resume", json={"page": page}).text]
            for player, key in game["keys"].items():
                shown += [client.get(f"/play/{game['id']}?player={player}&key={key}").text,
                          view(client, game, player).text]
            answer = move(client, game)
            assert answer.status_code == 200, answer.text
            shown.append(answer.text)
            for text in shown:
                assert str(seed) not in text
            assert not [r for r in caplog.records if str(seed) in r.getMessage()]
        # a seed chosen is in no name either: the other people at the table may not know it
        chosen = table(client, {**PEOPLE, "seed": 987_654_321})
        assert "987654321" not in chosen["answer"] and "987654321" not in client.get("/").text


def test_a_seed_is_drawn_from_the_whole_range_a_record_holds(tmp_path):
    """2**31 deals can be searched for the one that gives a seat's own hand: a seed is
    drawn from 63 bits (eight seeds all under 2**31 would happen once in 2**256)."""
    played = [tables.Table.new(tmp_path, seats=["human", "human"]) for _ in range(8)]
    for p in played:
        p.close()
    seeds = [p.game.seed for p in played]
    assert all(0 <= s < 1 << 63 for s in seeds) and max(seeds) >= 1 << 31
    assert not any(str(s) in p.path.name for s, p in zip(seeds, played))


def test_records_of_the_old_names_still_play_on(tmp_path):
    """Records named game-DATE-TIME-SEED.json (as the server named them before) load."""
    (tmp_path / "games").mkdir()
    saved(tmp_path / "games", name="game-20240102-030405-1234.json")
    with serving.client(create_app([tmp_path])) as client:
        answer = client.post("/api/resume", json={"page": "/record/0/games/game-20240102-030405-1234.json"})
        assert answer.status_code == 201 and answer.json()["file"] == "game-20240102-030405-1234.json"


# ---------------------------------------------------------------------------------------
# One writer per record: a second server, a game at the terminal
# ---------------------------------------------------------------------------------------

def test_two_servers_on_one_folder_seat_a_record_once(tmp_path, capsys, monkeypatch):
    """Two servers over one folder (two applications: a lock is held per open file, so
    they exclude each other as two processes do): the second neither seats, shows nor
    analyses a record the first plays, and says who holds it; a move the first
    acknowledged is kept; once the first lets go, the second plays on from it."""
    path = saved(tmp_path)
    page = {"page": "/record/0/saved.json"}
    with serving.client(create_app([tmp_path])) as a, serving.client(create_app([tmp_path])) as b:
        first = a.post("/api/resume", json=page)
        assert first.status_code == 201
        second = b.post("/api/resume", json=page)
        error = second.json()["error"]
        assert second.status_code == 409 and not b.app.state.tables
        assert error.startswith("saved.json is in use by another run") and f"pid {os.getpid()}" in error
        assert str(tmp_path) not in error and "\n" not in error
        shown = b.get("/record/0/saved.json")
        assert shown.status_code == 409 and "in use by another run" in shown.text and '"hand"' not in shown.text
        assert b.post("/api/analysis", json={**page, "iterations": 5}).status_code == 409
        game = {"id": first.json()["id"], "keys": {p: k for p, (_, k) in seats_of(first.json()).items()}}
        assert move(a, game).status_code == 200
        moves = len(json.loads(path.read_text())["moves"])
        assert moves == 3
        # nor does a game at the terminal take it
        monkeypatch.chdir(tmp_path)
        assert main(["play", "--resume", str(path)]) == 1
        err = capsys.readouterr().err
        assert "saved.json is in use by another run" in err and err.count("\n") == 1
    with serving.client(create_app([tmp_path])) as b:          # the first server stopped
        answer = b.post("/api/resume", json=page)
        assert answer.status_code == 201
        game = {"id": answer.json()["id"], "keys": {p: k for p, (_, k) in seats_of(answer.json()).items()}}
        assert view(b, game, 0).json()["moves"] == moves


def test_a_record_played_at_the_terminal_is_not_seated_by_the_server(tmp_path):
    path = saved(tmp_path)
    with serving.client(create_app([tmp_path])) as client, locks.hold(path, file=True):
        answer = client.post("/api/resume", json={"page": "/record/0/saved.json"})
        assert answer.status_code == 409 and f"pid {os.getpid()}" in answer.json()["error"]
        assert client.get("/record/0/saved.json").status_code == 409
    with serving.client(create_app([tmp_path])) as client:
        assert client.post("/api/resume", json={"page": "/record/0/saved.json"}).status_code == 201


def test_a_finished_game_lets_go_of_its_record(tmp_path):
    """A game over (not by a resignation its player may take back) is the record of any
    server or terminal again."""
    with serving.client(create_app([tmp_path])) as a, serving.client(create_app([tmp_path])) as b:
        game = table(a, PEOPLE)
        page = f"/record/0/games/{game['file']}"
        v = view(a, game, 0).json()
        player = v["to_move"]
        resigned = a.post(f"/api/games/{game['id']}/resign?key={game['keys'][player]}",
                          json={"player": player, "version": v["version"]})
        assert resigned.status_code == 200
        assert b.get(page).status_code == 409            # the resignation may yet be taken back
        assert a.get(page).status_code == 200            # shown: it stays over
        assert b.get(page).status_code == 200


def post(address, path, body):
    request = urllib.request.Request(address + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "Origin": address})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.mark.slow
def test_two_server_processes_on_one_folder_lose_no_move(tmp_path):
    path = saved(tmp_path)
    page = {"page": "/record/0/saved.json"}
    process, address = serving.serve_process([str(tmp_path), "--port", "0"], cwd=tmp_path)
    address = address.rstrip("/")
    try:
        status, first = post(address, "/api/resume", page)
        assert status == 201
        with serving.client(create_app([tmp_path])) as b:
            second = b.post("/api/resume", json=page)
            assert second.status_code == 409
            assert f"pid {process.pid}: tigris serve" in second.json()["error"]
            game_id, key = seats_of(first)[1]              # the second action of the turn is 1's
            with urllib.request.urlopen(f"{address}/api/games/{game_id}?player=1&key={key}", timeout=30) as a:
                v = json.loads(a.read())
            status, after = post(address, f"/api/games/{game_id}/move?key={key}",
                                 {"player": 1, "move": v["legal"][0]["move"], "version": v["version"]})
            assert status == 200 and after["moves"] == 3
            assert b.post("/api/resume", json=page).status_code == 409
    finally:
        assert ctrl_c(process, timeout=30) in (0, 130)
    with serving.client(create_app([tmp_path])) as b:
        answer = b.post("/api/resume", json=page)
        assert answer.status_code == 201
        game = {"id": answer.json()["id"], "keys": {p: k for p, (_, k) in seats_of(answer.json()).items()}}
        assert view(b, game, 0).json()["moves"] == 3 == len(json.loads(path.read_text())["moves"])
    assert not list(tmp_path.glob(".*.lock"))


# ---------------------------------------------------------------------------------------
# A record is known by its file: a hard link, an old copy
# ---------------------------------------------------------------------------------------

def test_a_hard_link_to_a_live_record_is_that_record(tmp_path):
    with serving.client(create_app([tmp_path])) as client:
        game = table(client, PEOPLE)
        live = tmp_path / "games" / game["file"]
        os.link(live, tmp_path / "x.json")

        def refused():
            answer = client.get("/record/0/x.json")
            assert answer.status_code == 409 and '"hand"' not in answer.text
            answer = client.post("/api/analysis", json={"page": "/record/0/x.json", "iterations": 5})
            assert answer.status_code == 409
            answer = client.post("/api/resume", json={"page": "/record/0/x.json"})
            assert answer.status_code == 409 and len(client.app.state.tables) == 1
            assert "x.json (at a table of this server)" in client.get("/").text
            assert not client.app.state.tasks._tasks

        refused()
        assert move(client, game).status_code == 200        # the record replaced: x.json an old copy
        assert not os.path.samefile(live, tmp_path / "x.json")
        refused()


# ---------------------------------------------------------------------------------------
# A seat's bot reads nothing outside the served folders
# ---------------------------------------------------------------------------------------

def net_bot(folder, network_path, name="netbot"):
    (folder / "bots").mkdir(exist_ok=True)
    (folder / "bots" / f"{name}.toml").write_text(
        f'kind = "greedy"\nevaluator = "net"\nnetwork = "{network_path}"\n')


@pytest.fixture
def served(tmp_path):
    """A served folder with a network of its own (nets/mine.npz), a bad one, a link out of
    it, and a good network beside it, outside."""
    folder = tmp_path / "served"
    (folder / "nets").mkdir(parents=True)
    shutil.copy(network.SHIPPED[2], folder / "nets" / "mine.npz")
    (folder / "nets" / "bad.npz").write_bytes(b"not a network")
    shutil.copy(network.SHIPPED[2], tmp_path / "outside.npz")
    (folder / "nets" / "up.npz").symlink_to(tmp_path / "outside.npz")
    return folder


@pytest.mark.parametrize("network_path, message", [
    ("/etc/passwd", "names a file outside the served folders"),
    ("/dev/zero", "names a file outside the served folders"),
    ("../outside.npz", "names a file outside the served folders"),
    ("OUTSIDE", "names a file outside the served folders"),
    ("nets/up.npz", "names a file outside the served folders"),
    ("nets/bad.npz", "nets/bad.npz: not a tigris-network"),
    ("nets/missing.npz", "nets/missing.npz: cannot read the network"),
    ("nets/", "nets: a folder, not a file"),
    ("nets", "'nets' is not a shipped network generation (shipped: gen1, gen2)"),   # no folder: a generation's name
    ("gen9", "netbot.toml: 'gen9' is not a shipped network generation (shipped: gen1, gen2)"),
])
def test_a_seat_s_network_is_a_file_of_the_served_folders_checked_when_the_seat_is_made(
        served, network_path, message):
    net_bot(served, str(served.parent / "outside.npz") if network_path == "OUTSIDE" else network_path)
    app = create_app([served])
    client = serving.client(app)
    answer = client.post("/api/games", json={"players": 2, "seats": ["human", "netbot"]})
    error = answer.json()["error"]
    assert answer.status_code == 400 and error.startswith("seats[1]: the bot netbot cannot play") \
        and message in error, error
    assert "/etc" not in error and "/dev" not in error and str(served.parent) not in error
    assert not app.state.tables and not (served / "games").exists()
    assert 'value="netbot"' not in client.get("/play").text


@pytest.mark.parametrize("where", ["nets/mine.npz", "ABSOLUTE", "gen1"])
def test_a_seat_s_own_network_in_the_served_folder_plays(served, where):
    """A file of the served folder, or a generation the package ships (its own file)."""
    net_bot(served, str(served / "nets" / "mine.npz") if where == "ABSOLUTE" else where)
    with serving.client(create_app([served])) as client:
        assert 'value="netbot"' in client.get("/play").text
        game = table(client, {"players": 2, "seats": ["netbot", "human"], "seed": 5})
        v = waiting.until(lambda: (s := view(client, game, 1).json())["moves"] >= 1 or s["error"], 60,
                          what="the bot's move")
        v = view(client, game, 1).json()
        assert not v["error"] and v["moves"] >= 1


def test_a_seat_s_generation_that_cannot_serve_is_refused_without_the_package_s_folder(
        served, tmp_path, monkeypatch):
    folder = tmp_path / "package" / "networks"
    shutil.copytree(network.NETWORKS, folder)
    (folder / "gen1-2p.npz").write_bytes(b"damaged")
    monkeypatch.setattr(network, "NETWORKS", folder)
    net_bot(served, "gen1")
    app = create_app([served])
    answer = serving.client(app).post("/api/games", json={"players": 2, "seats": ["human", "netbot"]})
    error = answer.json()["error"]
    assert answer.status_code == 400 and error.startswith(
        "seats[1]: the bot netbot cannot play: bots/netbot.toml: the package's networks/gen1-2p.npz: "
        "not a tigris-network"), error
    assert str(tmp_path) not in error and not app.state.tables


# ---------------------------------------------------------------------------------------
# A seat is never lost: its key kept beside the record, for the server alone
# ---------------------------------------------------------------------------------------

def front_seats(client):
    """The seats' addresses the front page links, in its order."""
    return [html.unescape(a) for a in re.findall(r'<a class="seat" href="([^"]+)"', client.get("/").text)]


def seated_again(client, game, player, key=None):
    """A seat's own "play on" (its page does it after a restart): the answer."""
    key = game["keys"][player] if key is None else key
    return client.post(f"/api/games/{game['id']}/resume?key={key}", json={"player": player})


def test_a_seat_is_linked_from_the_front_page_and_kept_across_a_restart(tmp_path):
    """The tab closed, the front page links every seat of a game under way; after a
    restart it links them again at the same addresses, and an old address seats the game
    again (its page asks, by a POST: a GET changes nothing)."""
    with serving.client(create_app([tmp_path])) as client:
        game = table(client, PEOPLE)
        addresses = [game["seats"]["0"], game["seats"]["1"]]
        assert front_seats(client) == addresses
        assert move(client, game).status_code == 200
        assert front_seats(client) == addresses
    with serving.client(create_app([tmp_path])) as client:             # the server again
        assert front_seats(client) == addresses
        page = client.get(addresses[1])
        assert page.status_code == 200 and 'id="seat-resume"' in page.text and not client.app.state.tables
        answer = seated_again(client, game, 1)
        assert answer.status_code == 201 and answer.json()["seats"] == {"1": addresses[1]}
        assert view(client, game, 1).json()["moves"] == 1
        page = client.get(addresses[1]).text                          # the seat's own page now
        assert 'id="play-data"' in page and 'id="seat-resume"' not in page
        again = seated_again(client, game, 0)                         # seated already: that seat
        assert again.status_code == 200 and again.json()["seats"] == {"0": addresses[0]}
        assert len(client.app.state.tables) == 1 and front_seats(client) == addresses
        assert move(client, game).status_code == 200


def test_a_game_saved_outside_the_served_folders_keeps_its_seats_too(tmp_path):
    """Games saved in a folder the server does not list (``--games``): the front page links
    their seats in a section of their own, and an old address seats the game again."""
    served, games = tmp_path / "served", tmp_path / "elsewhere"
    served.mkdir()
    with serving.client(create_app([served], games=games)) as client:
        game = table(client, PEOPLE)
        assert front_seats(client) == [game["seats"]["0"], game["seats"]["1"]]
        assert 'id="tables"' in client.get("/").text
    with serving.client(create_app([served], games=games)) as client:
        assert 'id="seat-resume"' in client.get(game["seats"]["1"]).text
        assert seated_again(client, game, 1).status_code == 201
        assert view(client, game, 1).status_code == 200


def test_a_saved_seat_opens_to_its_own_key_alone(tmp_path):
    with serving.client(create_app([tmp_path])) as client:
        game = table(client, PEOPLE)
    with serving.client(create_app([tmp_path])) as client:
        for player, key in ((0, game["keys"][1]), (1, ""), (0, "x" * 12)):
            page = client.get(f"/play/{game['id']}", params={"player": player, "key": key})
            assert page.status_code == 403 and f"not player {player}&#x27;s seat" in page.text
            answer = seated_again(client, game, player, key)
            assert answer.status_code == 403 and f"not player {player}'s seat" in answer.json()["error"]
        assert client.get("/play/0123456789ab?player=0&key=k").status_code == 404
        assert seated_again(client, dict(game, id="0123456789ab"), 0).status_code == 404
        assert client.get(f"/api/games/{game['id']}?player=0&key={game['keys'][0]}").status_code == 404
        assert not client.app.state.tables


def test_a_record_played_on_keeps_its_seats_from_then_on(tmp_path):
    """A record without kept seats (played at the terminal) gets them as it is played on;
    played on again after a restart, its seats are the same."""
    saved(tmp_path)
    answers = []
    for _ in range(2):
        with serving.client(create_app([tmp_path])) as client:
            answer = client.post("/api/resume", json={"page": "/record/0/saved.json"})
            assert answer.status_code == 201
            answers.append(answer.json())
            assert front_seats(client) == [answer.json()["seats"]["0"], answer.json()["seats"]["1"]]
    assert answers[0] == answers[1]


def test_the_seats_keys_are_the_server_s_alone_and_go_with_the_game(tmp_path):
    """The keys are kept in a file of the server's own beside the record, readable by its
    user alone: not in the record (a seat may read it once the game is over), never
    served or listed; once the game is over, the file goes."""
    with serving.client(create_app([tmp_path])) as client:
        game = table(client, PEOPLE)
        path = tmp_path / "games" / game["file"]
        kept = tables.seats_file(path)
        assert kept.parent == path.parent and kept.name.startswith(".")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        for key in game["keys"].values():
            assert key in kept.read_text() and key not in path.read_text()
        assert client.get(f"/record/0/games/{kept.name}").status_code == 404
        answer = client.post("/api/resume", json={"page": f"/record/0/games/{kept.name}"})
        assert answer.status_code == 404 and game["keys"][0] not in answer.text
        assert kept.name not in client.get("/").text
        v = view(client, game, 0).json()
        player = v["to_move"]
        resigned = client.post(f"/api/games/{game['id']}/resign?key={game['keys'][player]}",
                               json={"player": player, "version": v["version"]})
        assert resigned.status_code == 200 and kept.exists()          # it may yet be taken back
        assert client.get(f"/record/0/games/{game['file']}").status_code == 200   # shown: over for good
        assert not kept.exists() and not front_seats(client)


def test_a_seat_over_the_network_gets_no_other_seat(tmp_path):
    """The front page links the seats to the person who runs the server (on its machine)
    alone, and "play on" gives every seat to them alone: a person at a seat over the
    network reads neither, and plays on from their own seat's address."""
    app = create_app([tmp_path])
    host, away = serving.client(app), serving.client(app, client=serving.AWAY)
    game = table(host, PEOPLE)
    try:
        assert front_seats(host) == [game["seats"]["0"], game["seats"]["1"]]
        front = away.get("/").text
        assert not front_seats(away) and not any(key in front for key in game["keys"].values())
    finally:
        app.state.served.close()
    app = create_app([tmp_path])                                        # the server again
    host, away = serving.client(app), serving.client(app, client=serving.AWAY)
    try:
        front = away.get("/").text
        assert not front_seats(away) and 'class="resume"' not in front
        assert not any(key in front for key in game["keys"].values())
        answer = away.post("/api/resume", json={"page": f"/record/0/games/{game['file']}"})
        assert answer.status_code == 403 and not app.state.tables
        assert not any(key in answer.text for key in game["keys"].values())
        answer = seated_again(away, game, 1)
        assert answer.status_code == 201 and answer.json()["seats"] == {"1": game["seats"]["1"]}
        assert front_seats(host) == [game["seats"]["0"], game["seats"]["1"]]
    finally:
        app.state.served.close()
