"""tigris serve, the server alone: what it serves from its folders and nothing else (path
traversal, links out, devices), bounded and checked request bodies, escaped names, a
running tournament's page, and the command (address printed, host warned, stopped by
Ctrl-C without a process left)."""

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import psutil
import pytest

import tigris
from tigris import analysis, bots, record, tournament
from tigris.commands import main

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import serving  # noqa: E402
from processes import as_in_a_terminal, ctrl_c  # noqa: E402
from waiting import until  # noqa: E402
from tigris.web.app import MAX_BODY, create_app  # noqa: E402

JSON = {"Content-Type": "application/json"}

NAME = "<script>alert(1)</script>"
FILE_NAME = "<img src=x onerror=alert(1)>.json"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A folder with a finished tournament, a game record and a broken one."""
    root = tmp_path_factory.mktemp("served")
    tournament.run(tournament.Spec(bots=["random", "greedy"], games=2, seed=3, name="t"),
                   out=root / "t", jobs=1, progress=False)
    g = tigris.Game(players=2, seed=4)
    a, b = bots.make("greedy", seed=1), bots.make("random", seed=2)
    while not g.is_over:
        g.apply((a if g.current_player == 0 else b).choose(g))
    rec = record.to_record(g, bots=[NAME, "random & co"])
    (root / "game.json").write_text(json.dumps(rec))
    broken = dict(rec, moves=rec["moves"][:5] + [{"player": 0, "move": "tile red Z99"}])
    (root / "broken.json").write_text(json.dumps(broken))
    (root / FILE_NAME).write_text(json.dumps(rec))
    return root


@pytest.fixture(scope="module")
def client(folder):
    return serving.client(create_app([folder]))


def test_the_front_page_lists_results_and_records_escaped(client):
    page = client.get("/")
    assert page.status_code == 200
    assert 'href="/results/0/t/"' in page.text and 'href="/record/0/game.json"' in page.text
    assert FILE_NAME not in page.text and "&lt;img src=x onerror=alert(1)&gt;" in page.text


def test_the_front_page_offers_play_on_only_for_unfinished_game_records(tmp_path):
    """Issue 42: a game to play on is an unfinished game record with a person's seat; a
    finished game (a bots-only one too) gets its page only; JSON files that are not game
    records (a hint, a tuning's or a run's settings, results) are not listed as games."""
    unfinished = short_record(seats=("human", "greedy"))
    g = tigris.Game(players=2, seed=4)
    a, b = bots.make("greedy", seed=1), bots.make("random", seed=2)
    while not g.is_over:
        g.apply((a if g.current_player == 0 else b).choose(g))
    finished = record.to_record(g, bots=["greedy", "random"])
    files = {"mine.json": unfinished, "sub/bots-only.json": finished,
             "won.json": record.to_record(g, bots=["human", "random"]),
             "stopped.json": short_record(seats=("greedy", "random")),
             "hint.json": {"format": "tigris-hint/1", "hints": []}, "tune.json": {"bots": ["a"]},
             "result.json": {"winner": 0}, "selfplay.json": [1, 2], "empty.json": None}
    for name, value in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("{" if value is None else json.dumps(value))
    page = serving.client(create_app([tmp_path])).get("/").text
    records = page.split('<ul class="records">', 1)[1].split("</ul>", 1)[0]
    assert re.findall(r'data-page="([^"]+)"', records) == ["/record/0/mine.json"]
    assert re.findall(r'href="([^"]+)"', records) == ["/record/0/mine.json", "/record/0/stopped.json",
                                                      "/record/0/sub/bots-only.json", "/record/0/won.json"]
    for name in ("hint.json", "tune.json", "result.json", "selfplay.json", "empty.json"):
        assert name not in records


def test_the_standings_page_links_back_to_the_folders(client):
    """Issue 42: a results folder's page leads back to the front page."""
    index = client.get("/results/0/t/").text
    header = index.split("<header>", 1)[1].split("</header>", 1)[0]
    assert re.search(r'<a class="back" id="back" href="/">', header)


def test_folder_paths_are_shown_as_they_are_written(tmp_path):
    """Issue 42: the front page's folder headings (h2, in capitals elsewhere) show a path
    as it is written: the style of its class undoes the headings' capitals."""
    folder = tmp_path / "MixedCase-Folder"
    folder.mkdir()
    page = serving.client(create_app([folder])).get("/").text
    heading = re.search(r'<h2 class="([^"]*)">([^<]*)</h2>', page)
    assert heading and heading.group(2) == str(folder) and "path" in heading.group(1).split()
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]
    assert re.search(r"(^|\n)h2 \{[^}]*text-transform: uppercase", style)         # the headings' capitals
    rule = re.search(r"(^|\n)\.path \{([^}]*)\}", style)                           # undone for a path
    assert rule and "text-transform: none" in rule.group(2)


def test_a_results_folder_and_its_games(client):
    assert client.get("/results/0/t", follow_redirects=False).status_code == 307
    index = client.get("/results/0/t/")
    assert index.status_code == 200 and 'href="game/0"' in index.text and "Standings" in index.text
    assert 'http-equiv="refresh"' not in index.text                   # the tournament is over
    game = client.get("/results/0/t/game/1")
    assert game.status_code == 200 and 'id="board"' in game.text and 'href="../"' in game.text
    missing = client.get("/results/0/t/game/99")
    assert missing.status_code == 404 and "game 99: not in t" in missing.text


def test_a_running_tournament_reloads_its_page(folder, client):
    running = folder / "running"
    tournament.run(tournament.Spec(bots=["random", "greedy"], games=4, seed=3, name="r"),
                   out=running, jobs=1, progress=False)
    lines = (running / "games.jsonl").read_text().splitlines()
    (running / "games.jsonl").write_text("\n".join(lines[:2]) + "\n")    # 2 of 4 so far
    page = client.get("/results/0/running/")
    assert page.status_code == 200 and 'http-equiv="refresh"' in page.text and 'id="running"' in page.text


def test_a_record_is_drawn_and_its_names_escaped(client):
    page = client.get("/record/0/game.json")
    assert page.status_code == 200 and 'id="board"' in page.text
    assert NAME not in page.text
    quoted = client.get("/record/0/" + urllib.request.quote(FILE_NAME))
    assert quoted.status_code == 200 and NAME not in quoted.text and FILE_NAME not in quoted.text


def test_a_broken_record_is_a_400_naming_the_move(client):
    page = client.get("/record/0/broken.json")
    assert page.status_code == 400 and "move 6" in page.text and "Traceback" not in page.text


@pytest.mark.parametrize("path", [
    "/record/0/../../../etc/passwd", "/record/0/%2e%2e/%2e%2e/etc/passwd",
    "/record/0/..%2f..%2f..%2fetc%2fpasswd", "/record/0//etc/passwd", "/record/0/%00",
    "/results/0/../", "/results/0/%2e%2e/", "/results/7/t/", "/record/-1/game.json",
    "/record/0/t", "/record/0/nothing.json", "/results/0/game.json/", "/record/0/" + "a" * 5000,
    "/results/0/" + "b/" * 3000, "/record/0/" + "x" * 300 + "/y.json",
])
def test_nothing_outside_the_folders_is_served(client, path):
    answer = client.get(path)
    assert answer.status_code == 404, path
    assert "root:" not in answer.text and "Traceback" not in answer.text


def test_links_out_of_a_folder_and_devices_are_not_followed(tmp_path):
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    (outside / "secret.json").write_text('{"format": "tigris-game/1"}')
    (inside / "link.json").symlink_to(outside / "secret.json")
    (inside / "up").symlink_to(outside)
    os.mkfifo(inside / "pipe.json")
    (inside / "null.json").symlink_to("/dev/null")
    client = serving.client(create_app([inside]))
    for path in ("/record/0/link.json", "/record/0/up/secret.json", "/record/0/pipe.json",
                 "/record/0/null.json"):
        assert client.get(path).status_code == 404, path


def test_links_out_of_a_results_folder_are_not_followed(tmp_path):
    inside, outside = tmp_path / "in", tmp_path / "out"
    tournament.run(tournament.Spec(bots=["random", "greedy"], games=2, seed=3, name="secret"),
                   out=outside, jobs=1, progress=False)
    for name, links in (("games-out", ["games.jsonl"]), ("spec-out", ["tournament.json"]),
                        ("both-out", ["games.jsonl", "tournament.json"])):
        (inside / name).mkdir(parents=True)
        for f in ("games.jsonl", "tournament.json"):
            if f in links:
                (inside / name / f).symlink_to(outside / f)
            else:
                (inside / name / f).write_bytes((outside / f).read_bytes())
    client = serving.client(create_app([inside]))
    front = client.get("/").text
    assert "games-out" not in front and "spec-out" not in front and "both-out" not in front
    for name in ("games-out", "spec-out", "both-out"):
        for path in (f"/results/0/{name}/", f"/results/0/{name}/game/0"):
            answer = client.get(path)
            assert answer.status_code == 404 and "leads out of the folder" in answer.text, path
            assert "secret" not in answer.text and str(outside) not in answer.text
        answer = client.post("/api/analysis", json={"page": f"/results/0/{name}/game/0", "iterations": 5})
        assert answer.status_code == 404 and not client.app.state.tasks._tasks


def test_a_position_is_checked(client):
    g = tigris.Game(players=3, seed=2)
    answer = client.post("/api/position", json=g.to_position())
    assert answer.status_code == 200
    assert answer.json() == {"players": 3, "to_move": g.current_player, "decision": g.decision,
                             "over": False, "legal": len(g.legal_actions())}
    bad = dict(g.to_position(), players=[])
    answer = client.post("/api/position", json=bad)
    assert answer.status_code == 400 and "players" in answer.json()["error"]


@pytest.mark.parametrize("body, message", [
    (b"{", "not JSON"), (b"\xff\xfe", "not UTF-8"), (b"[1, 2]", "position"),
    (b'"' + b"x" * 1000 + b'"', "position"), (b"[" * 100_000, "not JSON"),
])
def test_malformed_bodies_are_a_400_with_a_message(client, body, message):
    answer = client.post("/api/position", content=body, headers=JSON)
    assert answer.status_code == 400 and message in answer.json()["error"]


def test_oversized_bodies_are_refused(client):
    answer = client.post("/api/position", content=b" " * (MAX_BODY + 1), headers=JSON)
    assert answer.status_code == 413 and "larger than" in answer.json()["error"]

    def chunks():                                     # no declared length: counted as it comes
        for _ in range(MAX_BODY // 65536 + 2):
            yield b" " * 65536

    answer = client.post("/api/position", content=chunks(), headers=JSON)
    assert answer.status_code == 413
    assert client.get("/api/position").status_code == 405


def test_pages_carry_the_security_headers(client):
    headers = client.get("/").headers
    assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]


# ---------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------

def test_bad_options_are_one_line(tmp_path, capsys):
    assert main(["serve", str(tmp_path / "nowhere")]) == 1
    err = capsys.readouterr().err.strip()
    assert "nowhere: not a folder" in err and "\n" not in err
    assert main(["serve", "--port", "70000"]) == 2
    assert "must be from 0 to 65,535" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["serve", str(tmp_path), "--games", str(tmp_path / "file")]) == 1
    err = capsys.readouterr().err.strip()
    assert "file: not a folder; the games played are saved in a folder" in err and "\n" not in err
    assert (tmp_path / "file").read_text() == "x"


def _serve(args, cwd):
    """A `tigris serve` process and the address it printed."""
    process = subprocess.Popen([sys.executable, "-m", "tigris", "serve", *args], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=as_in_a_terminal)
    line = process.stdout.readline()
    match = re.search(r"http://\S+/", line)
    assert match, (line, process.stderr.read() if process.poll() is not None else "")
    return process, match.group(0)


@pytest.mark.slow
def test_the_command_prints_its_address_serves_and_stops_on_ctrl_c(folder):
    process, address = _serve([str(folder), "--port", "0"], cwd=folder)
    try:
        assert address.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(address, timeout=10) as answer:
            assert answer.status == 200 and b"/results/0/t/" in answer.read()
    finally:
        code = ctrl_c(process)
    assert code == 130                                # Ctrl-C, as every command ends on it
    assert process.stderr.read().strip() == "tigris serve: interrupted"


@pytest.mark.slow
def test_another_host_is_warned_of(folder):
    process, address = _serve([str(folder), "--port", "0", "--host", "0.0.0.0"], cwd=folder)
    try:
        assert address.startswith("http://0.0.0.0:")
    finally:
        ctrl_c(process)
    assert "other machines can reach this server" in process.stderr.read()


# ---------------------------------------------------------------------------------------
# Hints in worker processes
# ---------------------------------------------------------------------------------------

def hint_workers():
    """This process's search workers still running (processes multiprocessing spawned)."""
    return [p for p in psutil.Process().children(recursive=True)
            if "spawn_main" in " ".join(p.cmdline())]


def wait_for(client, key, states=("done", "stopped", "failed"), timeout=60, kind="hint"):
    """The state of the search `key` once it is one of `states`."""
    def state():
        now = client.get(f"/api/{kind}/{key}").json()
        return now if now["state"] in states else None

    return until(state, timeout, what=f"search {key} to reach {' or '.join(states)}")


def test_a_hint_runs_in_a_worker_and_reports_its_progress(folder):
    g = tigris.Game(players=2, seed=6)
    with serving.client(create_app([folder])) as client:
        answer = client.post("/api/hint", json={"position": g.to_position(), "seconds": 0.5})
        assert answer.status_code == 202
        key = answer.json()["id"]
        state = wait_for(client, key)
        assert state["state"] == "done" and state["progress"] == 1 and state["iterations"] > 0
        result = state["result"]
        assert result["player"] == g.current_player and result["hints"]
        legal = set(g.legal_actions())
        for row in result["hints"]:
            assert row["action"] in legal and abs(sum(row["chances"]) - 1) < 1e-6
        assert result["hints"][0]["rank"] == 1 and result["hints"][0]["equal"]
        assert result["equals"] >= 1
    assert not hint_workers()                                      # no worker left


def test_a_search_stops_when_asked_or_forgotten_and_its_process_ends(folder):
    g = tigris.Game(players=3, seed=6)
    with serving.client(create_app([folder], idle=1)) as client:
        key = client.post("/api/hint", json={"position": g.to_position(), "seconds": 30}).json()["id"]
        wait_for(client, key, states=("running",))
        assert client.post(f"/api/hint/{key}/stop", json={}).json()["state"] == "stopped"
        assert client.get(f"/api/hint/{key}").json()["state"] == "stopped"
        forgotten = client.post("/api/hint", json={"position": g.to_position(), "seconds": 30}).json()["id"]
        jobs = client.app.state.tasks._tasks              # looked at without asking (a GET would)
        until(lambda: jobs[forgotten].state == "stopped", 30, what="the search nobody asks for to stop")
        assert client.get(f"/api/hint/{forgotten}").json()["state"] == "stopped"
        assert client.app.state.tasks.running() == 0
        assert not hint_workers()


def test_a_search_whose_process_is_killed_fails_saying_so_and_the_next_one_works(folder):
    g = tigris.Game(players=2, seed=6)
    with serving.client(create_app([folder])) as client:
        key = client.post("/api/hint", json={"position": g.to_position(), "seconds": 30}).json()["id"]
        wait_for(client, key, states=("running",))
        psutil.Process(client.app.state.tasks._tasks[key].process.pid).kill()
        state = wait_for(client, key)
        assert state["state"] == "failed" and state["error"] == (
            "the search's process died (SIGKILL: killed by hand, or for want of memory)")
        again = client.post("/api/hint", json={"position": g.to_position(), "seconds": 0.3}).json()["id"]
        assert wait_for(client, again)["state"] == "done"
    assert not hint_workers()


def say_half_and_die(messages):
    """A search's process that dies (SIGKILL) half way through writing a message."""
    import signal
    import struct

    os.write(messages._writer.fileno(), struct.pack("!i", 10_000) + b"half a message")
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_message_cut_short_by_a_search_s_death_does_not_hang_the_searches(folder):
    import threading

    from tigris.web.jobs import Tasks, _Task

    searches = Tasks(workers=1)
    key = searches._add(_Task(say_half_and_die, (), None))
    seen = []

    def look():
        seen.append(until(lambda: searches.state(key)["state"] != "running" and searches.state(key),
                          30, what="the search to end"))

    looking = threading.Thread(target=look, daemon=True)
    looking.start()
    looking.join(timeout=40)
    hung = looking.is_alive()
    if hung:                                     # reading the half message: let it end
        searches._tasks[key].messages._writer.close()
        looking.join(timeout=10)
    searches.close()
    assert not hung, "reading a message cut short waited for ever"
    assert seen[0]["state"] == "failed" and "SIGKILL" in seen[0]["error"]


@pytest.mark.slow
def test_eight_searches_at_once_wait_for_two_workers(folder):
    with serving.client(create_app([folder], workers=2)) as client:
        keys = [client.post("/api/hint", json={"position": tigris.Game(players=2 + k % 3, seed=k).to_position(),
                                               "seconds": 0.3}).json()["id"] for k in range(8)]
        assert client.app.state.tasks.running() == 2
        states = [client.get(f"/api/hint/{k}").json()["state"] for k in keys]
        assert states.count("waiting") == 6
        assert all(wait_for(client, k)["state"] == "done" for k in keys)


@pytest.mark.parametrize("body, status, message", [
    ({"position": {"format": "x"}, "seconds": 1}, 400, "format"),
    ({"position": None}, 400, "position"),
    ({"seconds": 1}, 400, "a hint request is"),
    ({"position": {}, "seconds": 1, "bot": "x"}, 400, "a hint request is"),
    ([1], 400, "a hint request is"),
])
def test_bad_hint_requests_are_a_400(client, body, status, message):
    answer = client.post("/api/hint", json=body)
    assert answer.status_code == status and message in answer.json()["error"]


@pytest.mark.parametrize("seconds", [0, -1, 61, "3", None, True, 1e400])
def test_a_hint_budget_is_checked(client, seconds):
    g = tigris.Game(players=2, seed=1)
    answer = client.post("/api/hint", content=json.dumps({"position": g.to_position(), "seconds": seconds}),
                         headers=JSON)
    assert answer.status_code == 400 and "seconds must be" in answer.json()["error"]


def test_unknown_searches_are_a_404(client):
    assert client.get("/api/hint/nothing").status_code == 404
    assert client.post("/api/hint/nothing/stop", json={}).status_code == 404


def test_a_finished_game_gets_no_hint(client):
    g = tigris.Game(players=2, seed=1)
    a = bots.make("greedy", seed=1)
    while not g.is_over:
        g.apply(a.choose(g))
    answer = client.post("/api/hint", json={"position": g.to_position(), "seconds": 1})
    assert answer.status_code == 400 and "the game is over" in answer.json()["error"]


def test_game_pages_load_the_hint_panel_and_nothing_else(client):
    page = client.get("/record/0/game.json").text
    assert '<script type="module" src="/assets/hint.js"></script>' in page
    assert client.get("/assets/hint.js").headers["content-type"].startswith("text/javascript")
    assert 'from "./panel.js"' in client.get("/assets/hint.js").text
    assert client.get("/assets/viewer.css").status_code == 404
    assert client.get("/assets/..%2f__init__.py").status_code == 404


def test_the_latency_benchmark_runs_searches_beside_the_pages():
    from tigris.web.bench import bench_latency

    rows = bench_latency(searches=1, requests=3, seconds=3)
    figures = {name: (value, unit) for name, value, unit in rows}
    assert figures["the front page, 1 search running"][1] == "ms"
    assert all(value > 0 for value, unit in figures.values() if unit == "ms")
    assert figures["searches still running at the end"] == (1, "searches")
    assert not hint_workers()


def test_the_table_benchmark_times_a_move_and_the_bot_s_reply_drawn_in_place():
    """Issue 42: tigris bench serve times a person's move answered with the page's data
    (drawn in place, the page no longer loads again), the bot's reply, and beside them
    a seat's page loaded whole; no worker is left."""
    from tigris.web.bench import bench_table

    rows = bench_table(moves=4)
    figures = {name: (value, unit) for name, value, unit in rows}
    move = "a person's move, answered with the page's data (drawn in place, no page load)"
    reply = "the bot's reply (random, its whole turn) until the page has its data"
    assert figures[move][1] == figures[reply][1] == "ms"
    assert figures["the data a move's answer brings"][1] == "KB"
    assert all(value > 0 for value, unit in figures.values())
    assert not hint_workers()


@pytest.mark.slow
def test_a_whole_game_analysed_in_a_worker_then_drawn(folder, tmp_path):
    import shutil

    shutil.copytree(folder, tmp_path / "served")
    served = tmp_path / "served"
    with serving.client(create_app([served])) as client:
        for page, file in (("/record/0/game.json", served / "game.analysis.jsonl"),
                           ("/results/0/t/game/1", served / "t" / "games-1.analysis.jsonl")):
            answer = client.post("/api/analysis", json={"page": page, "iterations": 30})
            assert answer.status_code == 202, answer.text
            key = answer.json()["id"]
            state = wait_for(client, key, timeout=120, kind="analysis")
            assert state["state"] == "done" and state["progress"] == 1
            header, rows = analysis.read_analysis(file)              # tigris analyse's file
            assert header["decisions"] == len(rows) == header["moves"] == state["result"]["analysed"] > 0
            assert header["iterations"] == 30 and header["luck"]
            data = game_data(client.get(page).text)
            assert len(data["analysis"]) == len(rows) and data["luck"] == header["luck"]
        (served / FILE_NAME).with_name(Path(FILE_NAME).stem + ".analysis.jsonl").write_bytes(
            (served / "game.analysis.jsonl").read_bytes())
        other = client.get(f"/record/0/{urllib.request.quote(FILE_NAME)}")      # the same game: drawn
        assert other.status_code == 200 and game_data(other.text)["analysis"] and "<img" not in other.text


@pytest.mark.parametrize("body, message", [
    ({"page": "/etc/passwd"}, "not a game's page"),
    ({"page": "/record/0/../../etc/passwd"}, "not inside the served folder"),
    ({"page": "/results/0/t/game/99"}, "game 99"),
    ({"page": "/record/0/game.json", "iterations": 0}, "iterations"),
    ({"page": 3}, "an analysis request is"),
])
def test_bad_analysis_requests_are_refused(client, body, message):
    answer = client.post("/api/analysis", json=body)
    assert answer.status_code in (400, 404) and message in answer.json()["error"], answer.text


# ---------------------------------------------------------------------------------------
# Analyses are files (issue 42): RECORD.analysis.jsonl beside the record, tigris analyse's
# ---------------------------------------------------------------------------------------

def game_data(page):
    """The data a game page draws (its JSON element)."""
    return json.loads(page.split('id="game-data">', 1)[1].split("</script>", 1)[0])


def analysis_panel(page):
    """What a game page tells its analysis panel of the analysis file."""
    return json.loads(page.split('id="analysis-file">', 1)[1].split("</script>", 1)[0])


def short_record(seed=8, moves=12, seats=("human", "greedy")):
    """An unfinished game of `moves` moves (quick to analyse)."""
    g = tigris.Game(players=2, seed=seed)
    a = bots.make("greedy", seed=1)
    for _ in range(moves):
        g.apply(a.choose(g))
    return record.to_record(g, bots=list(seats))


def test_an_analysis_worker_reports_each_row_as_it_is_written(tmp_path):
    """The worker of a page's analysis (in a process of its own, as the server starts
    it) says its progress row by row, from what the file already held, then done."""
    import multiprocessing

    from tigris.web import jobs

    out = tmp_path / "game.analysis.jsonl"
    rec = short_record(moves=6)
    analysis.run(rec, out, source="game.json", iterations=10, progress=False)
    out.write_text("".join(out.read_text().splitlines(keepends=True)[:3]))   # 2 of 6 rows kept
    context = multiprocessing.get_context("spawn")
    messages = context.Queue()
    worker = context.Process(target=jobs._analyse,
                             args=(rec, out, "game.json", {"iterations": 10}, messages))
    worker.start()
    said = [messages.get(timeout=120) for _ in range(6)]
    worker.join(timeout=60)
    assert worker.exitcode == 0
    assert [message[0] for message in said] == ["progress"] * 5 + ["done"]
    shares = [share for _, share, _ in said[:5]]
    assert shares == pytest.approx([2 / 6, 3 / 6, 4 / 6, 5 / 6, 1.0])
    iterations = [n for _, _, n in said[:5]]
    assert iterations == sorted(iterations) and iterations[0] > 0
    assert said[5][1] == {"file": out.name, "decisions": 6, "analysed": 6,
                          "iterations": iterations[-1]}


@pytest.fixture
def short(tmp_path):
    """A folder with a short game record, game.json, and its analysis file's path."""
    (tmp_path / "game.json").write_text(json.dumps(short_record()))
    return tmp_path, tmp_path / "game.analysis.jsonl"


def test_an_analysis_file_beside_the_record_is_drawn_at_once(short):
    """Issue 42: the file tigris analyse wrote beside the record is on the game's page:
    its rows (the graph and the marks) and the luck of the draws."""
    folder, out = short
    header, rows = analysis.run(short_record(), out, source="game.json", iterations=10, progress=False)
    page = serving.client(create_app([folder])).get("/record/0/game.json").text
    data = game_data(page)
    assert [r["move"] for r in data["analysis"]] == [r["move"] for r in rows] and len(rows) == 12
    assert data["luck"] == header["luck"] and data["luck"]
    assert analysis_panel(page) == {"file": "game.analysis.jsonl", "state": "complete", "analysed": 12,
                                    "decisions": 12, "iterations": 10, "seconds": None}


def test_the_browsers_analysis_is_a_file_that_outlives_the_server(short):
    """Issue 42: the analysis started from the page is the record's analysis file, the
    file tigris analyse writes and continues; a server started again draws it."""
    folder, out = short
    with serving.client(create_app([folder])) as client:
        assert analysis_panel(client.get("/record/0/game.json").text)["state"] == "none"
        answer = client.post("/api/analysis", json={"page": "/record/0/game.json", "iterations": 10})
        assert answer.status_code == 202 and answer.json()["file"] == "game.analysis.jsonl"
        state = wait_for(client, answer.json()["id"], timeout=60, kind="analysis")
        assert state["state"] == "done" and state["result"]["analysed"] == 12, state
    header, rows = analysis.read_analysis(out)
    assert (header["source"], header["iterations"], header["decisions"], len(rows)) == ("game.json", 10, 12, 12)
    assert sorted(p.name for p in folder.iterdir()) == ["game.analysis.jsonl", "game.json"]   # no lock left
    again = serving.client(create_app([folder])).get("/record/0/game.json?analysis=0123456789abcdef")
    assert again.status_code == 200 and len(game_data(again.text)["analysis"]) == 12
    assert analysis.run(short_record(), out, source="game.json", iterations=10, progress=False) == (header, rows)


@pytest.mark.parametrize("measure", ["margin", "win"])
def test_a_part_of_an_analysis_is_continued_at_its_own_budget(short, measure):
    """A file part done is continued as it was begun: its budget, its measure."""
    folder, out = short
    analysis.run(short_record(), out, source="game.json", iterations=10, progress=False,
                 measure=measure)
    out.write_text("".join(out.read_text().splitlines(keepends=True)[:5]))     # the header and 4 rows
    with serving.client(create_app([folder])) as client:
        page = client.get("/record/0/game.json").text
        assert analysis_panel(page)["state"] == "partial" and len(game_data(page)["analysis"]) == 4
        refused = client.post("/api/analysis", json={"page": "/record/0/game.json", "iterations": 500})
        assert refused.status_code == 400 and "at 10 iterations a decision" in refused.json()["error"]
        answer = client.post("/api/analysis", json={"page": "/record/0/game.json"})
        assert wait_for(client, answer.json()["id"], timeout=60, kind="analysis")["state"] == "done"
    header, rows = analysis.read_analysis(out)
    assert header["iterations"] == 10 and header["measure"] == measure and len(rows) == 12


def test_part_of_an_analysis_by_another_engine_is_drawn_not_continued(short):
    """Rows of another version or another bot setting would not mix with new ones: the
    page draws what the file holds and refuses to add to it, the file left as it is."""
    folder, out = short
    analysis.run(short_record(), out, source="game.json", iterations=10, progress=False)
    lines = out.read_text().splitlines(keepends=True)
    header = dict(json.loads(lines[0]), engine="0" * 16)
    out.write_text(json.dumps(header) + "\n" + "".join(lines[1:5]))
    before = out.read_bytes()
    with serving.client(create_app([folder])) as client:
        page = client.get("/record/0/game.json").text
        assert analysis_panel(page)["state"] == "partial" and len(game_data(page)["analysis"]) == 4
        refused = client.post("/api/analysis", json={"page": "/record/0/game.json"})
        assert refused.status_code == 400 and "by another engine" in refused.json()["error"]
        assert "move it away" in refused.json()["error"] and str(folder) not in refused.json()["error"]
    assert out.read_bytes() == before


def test_an_analysis_is_not_started_twice_and_its_stop_keeps_the_rows(short):
    folder, out = short
    with serving.client(create_app([folder])) as client:
        body = {"page": "/record/0/game.json", "iterations": 10_000}
        key = client.post("/api/analysis", json=body).json()["id"]
        again = client.post("/api/analysis", json=body)
        assert again.status_code == 409 and "under way" in again.json()["error"]
        until(lambda: out.exists() and len(out.read_text().splitlines()) >= 2, 60, what="a row written")
        assert client.post(f"/api/analysis/{key}/stop", json={}).json()["state"] == "stopped"
        until(lambda: not hint_workers(), 10, what="the worker to end")
        kept = analysis.read_analysis(out)[1]
        assert kept and sorted(p.name for p in folder.iterdir()) == ["game.analysis.jsonl", "game.json"]
        assert analysis_panel(client.get("/record/0/game.json").text)["analysed"] == len(kept)
        answer = client.post("/api/analysis", json={"page": "/record/0/game.json"})   # goes on
        assert answer.status_code == 202
        client.post(f"/api/analysis/{answer.json()['id']}/stop", json={})


def test_an_analysis_file_held_by_another_run_is_said_so(short):
    """tigris analyse at work on the same file: the page's analysis fails in words."""
    from tigris._plumbing.locks import hold

    folder, out = short
    with serving.client(create_app([folder])) as client, hold(out, file=True):
        key = client.post("/api/analysis", json={"page": "/record/0/game.json", "iterations": 10}).json()["id"]
        state = wait_for(client, key, timeout=60, kind="analysis")
    assert state["state"] == "failed" and "game.analysis.jsonl is in use by another run" in state["error"]
    assert str(folder) not in state["error"] and not out.exists()


@pytest.mark.parametrize("content, message", [
    ("another game", "holds an analysis of another game"),
    ('{"format": "tigris-hint/1"}\n', "holds something else than an analysis of this game"),
    ("not json\n", "holds something else than an analysis of this game"),
])
def test_an_analysis_file_that_holds_something_else_is_left_as_it_is(short, content, message):
    folder, out = short
    if content == "another game":
        analysis.run(short_record(seed=9), out, source="other.json", iterations=10, progress=False)
    else:
        out.write_text(content)
    before = out.read_bytes()
    client = serving.client(create_app([folder]))
    page = client.get("/record/0/game.json")
    assert page.status_code == 200 and game_data(page.text)["analysis"] is None
    panel = analysis_panel(page.text)
    assert panel["state"] == "refused" and str(folder) not in panel["problem"]
    answer = client.post("/api/analysis", json={"page": "/record/0/game.json", "iterations": 10})
    assert answer.status_code == 400 and message in answer.json()["error"], answer.text
    assert "move it away" in answer.json()["error"] and out.read_bytes() == before
    assert not client.app.state.tasks._tasks


def test_an_analysis_is_refused_where_it_cannot_be_written(short, tmp_path_factory, monkeypatch):
    folder, out = short
    client = serving.client(create_app([folder]))
    outside = tmp_path_factory.mktemp("outside") / "elsewhere.jsonl"
    out.symlink_to(outside)                                  # a link out of the served folder
    answer = client.post("/api/analysis", json={"page": "/record/0/game.json", "iterations": 10})
    assert answer.status_code == 400 and "leads out of the served folder" in answer.json()["error"]
    assert analysis_panel(client.get("/record/0/game.json").text)["state"] == "refused"  # nor read
    out.unlink()
    folder.chmod(0o555)
    real = os.access
    if os.geteuid() == 0:                                    # root writes anywhere: its checks as a user's
        monkeypatch.setattr(os, "access", lambda path, mode, **kw: real(path, mode, **kw) and not (
            mode & os.W_OK and not os.stat(path).st_mode & 0o222))
    try:
        answer = client.post("/api/analysis", json={"page": "/record/0/game.json", "iterations": 10})
    finally:
        folder.chmod(0o755)
    assert answer.status_code == 400 and "its folder is not writable" in answer.json()["error"]
    assert not out.exists() and not outside.exists() and not client.app.state.tasks._tasks


def conflict_position():
    """A position of a greedy game whose decision is a revolt's support."""
    g = tigris.Game(players=2, seed=1)
    a = bots.make("greedy", seed=1)
    while g.decision != "support":
        g.apply(a.choose(g))
    return g.to_position()


def test_positions_are_set_up_checked_and_shown(client):
    start = client.get("/position")
    assert start.status_code == 200 and "/assets/edit.js" in start.text
    revolt = conflict_position()
    answer = client.post("/api/positions", json=revolt)
    assert answer.status_code == 201 and answer.json()["decision"] == "support"
    page = client.get(f"/position/{answer.json()['id']}").text
    data = json.loads(page.split('id="game-data">', 1)[1].split("</script>", 1)[0])
    assert data["steps"][0]["decision"] == "support" and data["moves"] == []
    bad = dict(revolt, squares=dict(revolt["squares"], A1="king:7"))
    answer = client.post("/api/positions", json=bad)
    assert answer.status_code == 400 and "A1" in answer.json()["error"]
    assert client.get("/position/nothing").status_code == 404


def test_a_record_of_a_newer_format_says_so(tmp_path):
    """Issue 55: a record a newer tigris wrote is not "not a game record": its page says
    which format this tigris reads, and its version."""
    rec = record.to_record(tigris.Game(players=2, seed=1), bots=["random", "random"])
    (tmp_path / "newer.json").write_text(json.dumps(dict(rec, format="tigris-game/2")))
    answer = serving.client(create_app([tmp_path])).get("/record/0/newer.json")
    assert answer.status_code == 400
    assert (f"newer.json: format: tigris-game/2 was written by a newer tigris; this one ({tigris.__version__}) "
            "reads tigris-game/1") in answer.text


def test_the_editor_puts_a_piece_only_where_the_rules_let_it(client):
    """Issue 55: a catastrophe on a treasure temple is refused with the rule (it took the
    temple away and gave its treasure to the player to move); a piece the rules allow is
    put, with what else it did; a body that is no edit is named."""
    start = tigris.Game(players=2, seed=0).to_position()
    answer = client.post("/api/edit", json={"position": start, "square": "B2", "piece": "catastrophe:0"})
    assert answer.status_code == 400
    assert answer.json()["error"] == "squares.B2: a treasure lies on the square (R39, R79)"
    answer = client.post("/api/edit", json={"position": start, "square": "C2", "piece": "catastrophe:0"})
    assert answer.status_code == 200 and answer.json()["did"] == ["player 0 has 1 catastrophe left"]
    changed = answer.json()["position"]
    assert changed["squares"]["C2"] == "catastrophe" and changed["players"][0]["catastrophes"] == 1
    assert client.post("/api/positions", json=changed).status_code == 201
    for body in ({"position": start, "square": "C2"}, [start], {"position": start, "square": "C2", "piece": "gold"}):
        answer = client.post("/api/edit", json=body)
        assert answer.status_code == 400 and "piece" in answer.json()["error"]


def test_a_position_page_holds_what_the_editor_draws_in_place(client):
    """The editor (edit.js) draws a changed position in place from its page: the page's
    data, the elements of the two columns it swaps by id, the header, and the viewer's
    script (the one inline script without a type) that it runs again; its note of a
    refused click goes after the board's frame."""
    from html.parser import HTMLParser

    class Page(HTMLParser):
        def __init__(self):
            super().__init__()
            self.stack, self.children, self.viewers, self.headers = [], {"left": [], "side": []}, 0, 0

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if tag == "script" and not attrs:
                self.viewers += 1
            self.headers += tag == "header"
            if self.stack and self.stack[-1] in self.children and "id" in attrs:
                self.children[self.stack[-1]].append(attrs["id"])
            if tag not in ("input", "br", "meta", "path", "rect", "line"):
                self.stack.append(attrs.get("id"))

        def handle_endtag(self, tag):
            if tag not in ("input", "br", "meta", "path", "rect", "line") and self.stack:
                self.stack.pop()

    key = client.post("/api/positions", json=tigris.Game(players=2, seed=0).to_position()).json()["id"]
    page = Page()
    page.feed(client.get(f"/position/{key}").text)
    assert page.viewers == 1 and page.headers == 1
    assert {"board-wrap", "controls", "legend"} <= set(page.children["left"])
    assert {"status", "players", "supply", "moves", "copy"} <= set(page.children["side"])
    assert 'id="game-data"' in client.get(f"/position/{key}").text


def test_the_scripts_share_one_helper_module_and_take_the_game_from_python():
    """The panels import what they share from panel.js (no globals between them), and no
    script carries a copy of the game's constants: the pages hand them over."""
    from tigris import constants, view
    from tigris.web.pages import ASSETS

    static = Path(view.__file__).parent / "web" / "static"
    scripts = {name: (static / name).read_text(encoding="utf-8") for name in ASSETS}
    scripts["viewer.js"] = (Path(view.__file__).parent / "viewer.js").read_text(encoding="utf-8")
    for name, text in scripts.items():
        assert "window.tigrisPanel" not in text, name
        for names in (constants.COLOURS, constants.LEADERS, constants.TILE_NAMES):
            assert ", ".join(f'"{n}"' for n in names) not in text, f"{name} copies {names}"
        if name not in ("panel.js", "viewer.js"):
            assert 'import { h' in text and 'from "./panel.js";' in text, name
    page = view.position_page(tigris.Game(players=2, seed=0))
    rules = page.split('id="rules-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(rules) == {"colours": list(constants.COLOURS), "leaders": list(constants.LEADERS),
                                 "tiles": list(constants.TILE_NAMES), "rows": constants.ROWS,
                                 "cols": constants.COLS}
