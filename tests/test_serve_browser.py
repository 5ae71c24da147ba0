"""tigris serve in a real browser (headless Chromium, browsers.py): the folders, a results
folder whose standings follow a running tournament, and a game opened from it on the
board; games at a table, a seat found again after its tab closes or the server restarts,
and the new game's form."""

import json
import re
import time

import pytest

from tigris import record, tournament

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from selenium.common.exceptions import TimeoutException, WebDriverException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

import serving as serving_module  # noqa: E402
from waiting import until  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_log(browser):
    """Each test reads only its own console messages (the browser is shared)."""
    browser.get("about:blank")
    browser.get_log("browser")


@pytest.fixture
def serving():
    """serving(folder, **create_app options): the address of a server; stopped after the test."""
    servers = serving_module.Servers()
    yield servers
    servers.stop()


def standings_games(browser):
    rows = browser.find_elements(By.CSS_SELECTOR, "#games tbody tr")
    return len(rows)


def test_a_running_tournament_is_followed_and_its_games_opened(browser, serving, tmp_path):
    out = tmp_path / "t"
    tournament.run(tournament.Spec(bots=["random", "greedy"], games=4, seed=2, name="t"), out=out,
                   jobs=1, progress=False)
    lines = (out / "games.jsonl").read_text().splitlines(keepends=True)
    (out / "games.jsonl").write_text("".join(lines[:2]))            # the tournament so far
    address = serving(tmp_path, refresh=1)
    browser.get(address)
    browser.find_element(By.CSS_SELECTOR, 'a[href="/results/0/t/"]').click()
    assert standings_games(browser) == 2 and browser.find_element(By.ID, "running")
    with open(out / "games.jsonl", "a") as f:                       # two more games finish
        f.write("".join(lines[2:]))
    WebDriverWait(browser, 15, poll_frequency=POLL).until(lambda b: standings_games(b) == 4)
    assert not browser.find_elements(By.ID, "running")               # over: no more reloads
    browser.find_element(By.CSS_SELECTOR, '#games tr[data-game="3"] a').click()
    assert browser.current_url.endswith("/results/0/t/game/3")
    rec = next(r for r in tournament.read_games(out, repair=False) if r["game"] == 3)
    assert browser.find_element(By.ID, "move-count").text == str(len(rec["moves"]))
    drawn = browser.find_elements(By.CSS_SELECTOR, "#board *")
    assert len(drawn) > 100                                          # the board, drawn by the viewer
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    positions = [g.to_position() for _, g in record.steps(rec)]
    shown = browser.execute_script("return document.getElementById('slider').value")
    assert int(shown) == len(positions) - 1
    browser.find_element(By.CSS_SELECTOR, "a.back").click()
    assert browser.current_url.endswith("/results/0/t/")
    wait(browser).until(lambda b: b.execute_script("return document.readyState") == "complete")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_a_hint_of_the_shown_position_with_its_progress(browser, serving, tmp_path):
    import json

    import tigris
    from tigris import bots

    g = tigris.Game(players=2, seed=8)
    a = bots.make("greedy", seed=1)
    for _ in range(12):
        g.apply(a.choose(g))
    (tmp_path / "g.json").write_text(json.dumps(record.to_record(g, bots=["a", "b"])))
    browser.get(serving(tmp_path) + "record/0/g.json#move=12")
    WebDriverWait(browser, 10, poll_frequency=POLL).until(lambda b: b.find_element(By.ID, "move-number").text == "12")
    browser.find_element(By.ID, "hint-seconds").send_keys("1 s")
    browser.find_element(By.ID, "hint-start").click()
    WebDriverWait(browser, 30, poll_frequency=POLL).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr")
    cells = [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    # Issue 55: the panel showed "(1)(2)(3) =" and then unnumbered "=" rows.  Every row is
    # numbered by its place, #1 the engine's play, and each other row's mark is what its
    # figures, as shown, say against #1's then (at the same visits): = when the
    # intervals overlap, < or > beyond.
    assert [c[0] for c in cells] == [str(k) for k in range(1, len(rows) + 1)]
    assert cells[0][1] == "" and cells[0][5] == ""
    for c in cells[1:]:
        win, error = float(c[3].rstrip("%")), float(c[4])
        first, first_error = (float(x.rstrip("%")) for x in c[5].split(" \u00b1 "))
        apart = round(abs(win - first), 1) > round(error + first_error, 1)
        assert c[1] == ("=" if not apart else ">" if win > first else "<"), c
    # the top plans' squares outlined on the board, numbered as in the table
    marks = browser.find_elements(By.CSS_SELECTOR, "#marks .hint-mark")
    outlined = {e.get_attribute("data-square") for e in marks}
    planned = {m.split()[-1]: c[0] for c in cells[:3] for m in c[2].split(" + ")
               if re.fullmatch(r"[A-P](1[01]|[1-9])", m.split()[-1])}
    assert outlined == set(planned)
    assert {e.get_attribute("data-square"): e.find_element(By.TAG_NAME, "text").text for e in marks} == planned
    legal = {g.action_str(x) for x in g.legal_actions()}
    assert all(c[2].split(" + ")[0] in legal for c in cells)
    assert "#1 is the plan the engine plays" in browser.find_element(By.ID, "hint-status").text
    # the notes and the first plans' reasons, as `tigris hint` prints them
    assert browser.find_elements(By.CSS_SELECTOR, "#hint-notes li")
    why = browser.find_elements(By.CSS_SELECTOR, "#hint-why .why")
    assert len(why) == min(3, len(rows))
    for c, w in zip(cells, why):
        assert w.find_element(By.TAG_NAME, "strong").text == f"Why #{c[0]} {c[2]}"
    assert "expected final scores (the network's): P0" in why[0].text
    # A long search, stopped by moving to another position.
    browser.find_element(By.ID, "hint-seconds").send_keys("30 s")
    browser.find_element(By.ID, "hint-start").click()
    WebDriverWait(browser, 10, poll_frequency=POLL).until(lambda b: "Searching" in b.find_element(By.ID, "hint-status").text)
    browser.find_element(By.ID, "prev").click()
    assert not browser.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr")
    assert browser.find_element(By.ID, "hint-stop").get_attribute("hidden")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


# The page is drawn again in place after every move (never loaded again): an element
# found may be replaced a moment later (stale, not found, or "does not belong to the
# document").
RELOADING = (WebDriverException,)
POLL = 0.05             # seconds between looks: selenium's 0.5 s default slows every move


def wait(browser, seconds=30):
    """A wait that looks again while the page is drawn anew (it is after every move)."""
    return WebDriverWait(browser, seconds, poll_frequency=POLL, ignored_exceptions=RELOADING)


def _my_turn(browser):
    """Wait until the seat may move (True) or the game is over (False).  Each look is one
    script, not three calls: a whole game by clicks makes thousands of them."""
    def ready(b):
        return b.execute_script(
            "const text = document.getElementById('play-status').innerText;"
            "if (text.startsWith('The game is over')) return 'over';"
            "return text.startsWith('Your turn') && !!document.querySelector('#play-groups button') && 'turn';")
    return wait(browser).until(ready) == "turn"


def _move_count(browser):
    return browser.execute_script("return document.getElementById('move-count').innerText")


def _click_a_move(browser):
    """Play the first move offered: a move without a square by its button (one click),
    else the first kind of move, then its first square.  A page drawn anew between the
    two (the game moved on) loses the first click, and one that shows the move before
    the last ("Go to the last move to play") offers no square: as a person would, the
    test goes to the last move (End) and chooses again until the move is made."""
    def first(b):
        offered = b.find_elements(By.CSS_SELECTOR, "#play-groups button")
        return offered[0] if offered else False

    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "no move made by clicks"
        before = _move_count(browser)
        try:
            button = wait(browser).until(first)
            if "move" in button.get_attribute("class").split():
                if button.is_enabled():
                    button.click()                                       # one click
                    break
            else:
                button.click()
                # its squares, drawn once the click is handled (later under load)
                wait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#play-targets rect"))[0].click()
                break
        except (TimeoutException, WebDriverException):
            pass
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait(browser).until(lambda b: _move_count(b) != before)


def test_a_resignation_is_said_in_sentences_and_nobody_is_left_to_move(browser, serving, tmp_path):
    """Issue 55: the status ran the places into the undo note ("...2. player 0 Undo takes
    the resignation back."), and the "to move" badge stayed on a game that was over."""
    browser.get(serving(tmp_path))
    browser.find_element(By.ID, "new-game").click()
    browser.find_element(By.CSS_SELECTOR, 'select[name="seat1"] option[value="random"]').click()
    # the seat's line for players, and how it plays below it
    about = browser.find_element(By.CSS_SELECTOR, "#seat-about li").text
    assert about.startswith("player 1, random: plays any legal move at random: the zero of the Elo scale")
    assert browser.find_element(By.CSS_SELECTOR, "#seat-about li .technical").text == "uniformly random legal decisions"
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 60, poll_frequency=POLL).until(lambda b: "/play/" in b.current_url)
    assert _my_turn(browser)
    assert browser.find_elements(By.CSS_SELECTOR, "#players .to-move-badge")
    browser.find_element(By.ID, "play-resign").click()
    browser.switch_to.alert.accept()
    wait(browser).until(lambda b: b.find_element(By.ID, "play-status").text.startswith("The game is over"))
    status = browser.find_element(By.ID, "play-status").text
    assert status == ("The game is over (player 0 resigned): 1. player 1; 2. player 0. "
                      "Undo takes the resignation back."), status
    wait(browser).until(lambda b: not b.find_elements(By.CSS_SELECTOR, "#players .to-move, #players .to-move-badge"))
    browser.find_element(By.ID, "play-undo").click()                 # taken back: player 0 to move again
    wait(browser).until(lambda b: not b.find_element(By.ID, "play-status").text.startswith("The game is over"))
    assert _my_turn(browser)
    wait(browser).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#players .to-move-badge"))
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_a_whole_game_against_random_by_clicks_with_undo_hint_and_resume(browser, serving, tmp_path):
    address = serving(tmp_path)
    browser.get(address)
    browser.find_element(By.ID, "new-game").click()
    browser.find_element(By.CSS_SELECTOR, 'select[name="seat1"] option[value="random"]').click()
    browser.find_element(By.CSS_SELECTOR, 'input[name="seed"]').send_keys("5")
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 60, poll_frequency=POLL).until(lambda b: "/play/" in b.current_url)
    assert _my_turn(browser)
    # the others' hands are hidden from this seat
    cards = browser.find_elements(By.CSS_SELECTOR, "#players .player")
    assert "colours unknown" in cards[1].text and "colours unknown" not in cards[0].text
    for _ in range(3):
        assert _my_turn(browser)
        _click_a_move(browser)
    # undo: back to this seat's previous decision
    assert _my_turn(browser)
    moves = int(browser.find_element(By.ID, "move-count").text)
    browser.find_element(By.ID, "play-undo").click()
    wait(browser).until(lambda b: int(b.find_element(By.ID, "move-count").text) < moves)
    # a hint at this decision
    assert _my_turn(browser)
    browser.find_element(By.ID, "hint-seconds").send_keys("1 s")
    browser.find_element(By.ID, "hint-start").click()
    WebDriverWait(browser, 120, poll_frequency=POLL).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr"))
    _click_a_move(browser)
    # the server restarts: the game goes on from its record
    saved = sorted((tmp_path / "games").glob("*.json"))
    assert len(saved) == 1
    browser.get("about:blank")
    serving.stop()
    browser.get_log("browser")                          # the page's last polls of the stopped server
    address = serving(tmp_path)
    browser.get(address)
    browser.find_element(By.CSS_SELECTOR, 'button.resume[data-page$="' + saved[0].name + '"]').click()
    while _my_turn(browser):
        _click_a_move(browser)
    rec = json.loads(saved[0].read_text())
    assert rec["result"] and rec["bots"] == ["human", "random"]
    final = record.replay(rec)
    assert final.is_over
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_a_game_analysed_from_its_page_is_there_after_a_restart(browser, serving, tmp_path):
    """Issue 42: the analysis started on a record's page is written beside the record
    (game.analysis.jsonl, tigris analyse's file); the page draws it in place once done
    (no page load), and a server started again draws it at once.  The folder's path is shown as written."""
    import tigris
    from tigris import analysis, bots

    folder = tmp_path / "Games-Of-Mine"
    folder.mkdir()
    g = tigris.Game(players=2, seed=8)
    a = bots.make("greedy", seed=1)
    for _ in range(12):
        g.apply(a.choose(g))
    (folder / "game.json").write_text(json.dumps(record.to_record(g, bots=["human", "greedy"])))
    address = serving(folder)
    browser.get(address)
    assert browser.find_element(By.CSS_SELECTOR, "section.folder h2").text == str(folder)
    browser.get(address + "record/0/game.json")
    # the panel is made by a module script: looked for until it is there, and if it never
    # comes, the page's title and console say why
    status = until(lambda: browser.find_elements(By.ID, "analysis-status"), timeout=30, fail=False)
    assert status, f"no analysis panel on {browser.current_url} ({browser.title!r}): {browser.get_log('browser')}"
    assert "game.analysis.jsonl" in status[0].text
    assert browser.find_element(By.ID, "graph-wrap").get_attribute("hidden")
    Select(browser.find_element(By.ID, "analysis-iterations")).select_by_value("500")
    browser.execute_script("window.tigrisNotReloaded = true")
    browser.find_element(By.ID, "analysis-start").click()
    wait(browser, 120).until(lambda b: not b.find_element(By.ID, "graph-wrap").get_attribute("hidden"))
    # drawn in place: the page was not loaded again, and the panel says the file is complete
    assert browser.execute_script("return window.tigrisNotReloaded === true")
    assert browser.find_elements(By.CSS_SELECTOR, "#graph *")
    assert "drawn below the board" in browser.find_element(By.ID, "analysis-status").text
    assert not browser.find_element(By.ID, "analysis-start").is_displayed()
    header, rows = analysis.read_analysis(folder / "game.analysis.jsonl")
    assert header["iterations"] == 500 and len(rows) == header["decisions"] == 12
    # the server stops and starts again: the analysis is the file's
    browser.get("about:blank")
    serving.stop()
    browser.get(serving(folder) + "record/0/game.json")
    wait(browser).until(lambda b: not b.find_element(By.ID, "graph-wrap").get_attribute("hidden"))
    assert browser.find_elements(By.CSS_SELECTOR, "#graph *")
    assert "drawn below the board" in browser.find_element(By.ID, "analysis-status").text
    assert not browser.find_element(By.ID, "analysis-start").is_displayed()
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_a_position_edited_into_a_conflict_and_a_hint_asked_there(browser, serving, tmp_path):
    import tigris
    from tigris import bots

    g = tigris.Game(players=2, seed=1)
    a = bots.make("greedy", seed=1)
    while g.decision != "support":
        g.apply(a.choose(g))
    browser.get(serving(tmp_path))
    browser.find_element(By.ID, "set-up").click()
    # a piece put on the board by a click: a red temple from the bag on an empty square
    start = tigris.Game(players=2, seed=0).to_position()
    empty = next(sq for sq in ("H6", "G6", "F6", "H3") if sq not in start["squares"])
    browser.find_element(By.ID, "edit-piece").send_keys("put: red temple")
    cell = browser.find_element(By.CSS_SELECTOR, f'rect[data-cell="{empty}"]')
    ActionChains(browser).move_to_element(cell).click().perform()
    wait(browser, 10).until(lambda b: "/position/" in b.current_url or b.find_element(By.ID, "edit-error").text)
    assert "/position/" in browser.current_url, browser.find_element(By.ID, "edit-error").text
    wait(browser).until(lambda b: b.find_element(By.CSS_SELECTOR, f'g.piece[data-square="{empty}"]'))
    # a number out of range: the engine's message beside its field
    field = browser.find_element(By.CSS_SELECTOR, 'input[data-path="players.1.hand.red"]')
    field.clear()
    field.send_keys("9", Keys.TAB)
    wait(browser).until(lambda b: "out of range" in b.find_element(
        By.CSS_SELECTOR, '.field-error[data-for="players[1].hand"]').text)
    # a position with a revolt under way, pasted; a wrong one first: the field is named
    text = browser.find_element(By.ID, "edit-text")
    text.clear()
    bad = dict(g.to_position(), to_move=5)
    browser.execute_script("arguments[0].value = arguments[1]", text, json.dumps(bad))
    browser.find_element(By.ID, "edit-apply").click()
    wait(browser).until(lambda b: "to_move" in b.find_element(By.ID, "edit-error").text)
    browser.execute_script("arguments[0].value = arguments[1]", text, json.dumps(g.to_position()))
    browser.find_element(By.ID, "edit-apply").click()
    wait(browser).until(lambda b: "support" in b.find_element(By.ID, "status").text)
    browser.find_element(By.ID, "hint-seconds").send_keys("1 s")
    browser.find_element(By.ID, "hint-start").click()
    wait(browser).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr"))
    plans = [r.find_elements(By.TAG_NAME, "td")[2].text          # after the number and the mark
             for r in browser.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr")]
    assert plans and all(p.startswith("support ") for p in plans)
    refused = "/api/positions - Failed to load resource: the server responded with a status of 400"
    assert not [e for e in browser.get_log("browser")
                if e["level"] == "SEVERE" and refused not in e["message"]]       # but the wrong position


# ---------------------------------------------------------------------------------------
# Another site's page, and a name of another site that leads here
# ---------------------------------------------------------------------------------------

ATTACK = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>attack</title></head><body>
<script>
const SERVER = %(server)s, ROUTES = %(routes)s;
const sent = [];
let sinks = 0;
// a form posted into a frame of its own: done once the server's answer is loaded there
// (or after two seconds)
function form(path, enctype, fields) {
  const sink = document.createElement("iframe");
  sink.name = "sink" + ++sinks;
  document.body.appendChild(sink);
  const f = document.createElement("form");
  f.method = "POST"; f.action = SERVER + path; f.enctype = enctype; f.target = sink.name;
  for (const [k, v] of Object.entries(fields)) {
    const i = document.createElement("input"); i.name = k; i.value = v; f.appendChild(i);
  }
  document.body.appendChild(f);
  const answered = new Promise(done => { sink.onload = done; setTimeout(done, 2000); });
  f.submit();
  return answered;
}
(async () => {
  for (const [path, body] of ROUTES) {
    const text = JSON.stringify(body);
    const tries = [
      () => fetch(SERVER + path, { method: "POST", body: text }),                       // text/plain, no preflight
      () => fetch(SERVER + path, { method: "POST", mode: "no-cors", body: text,
                                   headers: { "Content-Type": "application/json" } }),    // the type dropped
      () => fetch(SERVER + path, { method: "POST", body: text, credentials: "include",
                                   headers: { "Content-Type": "application/json" } }),    // a preflight first
      () => fetch(SERVER + path, { method: "POST", mode: "no-cors", body: new Blob([text], { type: "text/plain" }) }),
      () => Promise.resolve(navigator.sendBeacon(SERVER + path, text)),
      () => Promise.resolve(navigator.sendBeacon(SERVER + path, new Blob([text], { type: "application/json" }))),
    ];
    for (const attempt of tries) {
      try { await attempt(); sent.push(path); } catch (e) { sent.push("refused by the browser: " + path); }
    }
    // a form whose text/plain body is the JSON itself: {"players": 2, ...,"x":"="}
    await form(path, "text/plain", { [text.slice(0, -1) + ', "x": "']: '"}' });
    await form(path, "application/x-www-form-urlencoded", { body: text });
    await form(path, "multipart/form-data", { body: text });
  }
  new Image().src = SERVER + "/resume/0/saved.json";            // what was once a GET that changed state
  await new Promise(done => setTimeout(done, 500));
  document.title = "done " + sent.length;
})();
</script></body></html>"""


def test_a_page_of_another_origin_changes_nothing(serving, tmp_path, monkeypatch):
    """A page of another site (served by a second HTTP server) tries every route that
    changes something, by fetch (text/plain, no-cors, with a preflight), beacons and
    forms (text/plain, urlencoded, multipart); then the same name served here (DNS
    rebinding, by Chromium's host rules): no file is written, no game, search or
    position made, the game under way untouched."""
    import http.server
    import threading
    import urllib.request

    import browsers
    import tigris
    from tigris.web import guard

    g = tigris.Game(players=2, seed=2)
    g.apply(g.legal_actions()[0])
    (tmp_path / "saved.json").write_text(json.dumps(record.to_record(g, bots=["human", "random"])))
    seen = []
    refusal = guard.Guard.refusal

    def noted(self, scope):                     # what reached the server, and its answer
        answer = refusal(self, scope)
        kind = dict(scope["headers"]).get(b"content-type", b"").split(b";")[0].decode()
        seen.append((scope["method"], scope["path"], answer and answer[0], kind))
        return answer

    monkeypatch.setattr(guard.Guard, "refusal", noted)
    address = serving(tmp_path)
    app = serving.running[-1][2]
    port = int(address.rstrip("/").rsplit(":", 1)[1])
    # a game under way, made by the server's own page: its id and a seat's key given away
    request = urllib.request.Request(address + "api/games", headers={"Content-Type": "application/json",
                                                                      "Origin": address.rstrip("/")},
                                     data=json.dumps({"players": 2, "seats": ["human", "human"], "seed": 3}).encode())
    game = json.loads(urllib.request.urlopen(request, timeout=10).read())
    key = game["seats"]["0"].split("key=")[1]
    table = app.state.tables[game["id"]]
    before = (table.version, len(table.game.history), sorted(p.name for p in tmp_path.rglob("*")))
    seen.clear()
    g0 = tigris.Game(players=2, seed=1)
    routes = [("/api/games", {"players": 2, "seats": ["human", "random"]}),
              ("/api/resume", {"page": "/record/0/saved.json"}),
              ("/api/hint", {"position": g0.to_position(), "seconds": 1}),
              ("/api/analysis", {"page": "/record/0/saved.json", "iterations": 10}),
              ("/api/positions", g0.to_position()), ("/api/position", g0.to_position()),
              ("/api/hint/x/stop", {}), ("/api/analysis/x/stop", {}),
              (f"/api/games/{game['id']}/move?key={key}", {"player": 0, "move": "pass", "version": table.version}),
              (f"/api/games/{game['id']}/undo?key={key}", {"player": 0, "version": table.version}),
              (f"/api/games/{game['id']}/resign?key={key}", {"player": 0, "version": table.version})]
    site = tmp_path.parent / (tmp_path.name + "-attacker")
    site.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(site), **kwargs)

        def log_message(self, *args):
            pass

    attacker = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    chromium = browsers.start("--host-resolver-rules=MAP attacker.test 127.0.0.1, MAP *.attacker.test 127.0.0.1")
    try:
        for page, server in (("cross-site.html", f"http://127.0.0.1:{port}"),        # another site's page
                             ("same-site.html", f"http://127.0.0.1:{port}")):
            (site / page).write_text(ATTACK % {"server": json.dumps(server), "routes": json.dumps(routes)})
        origin = f"http://attacker.test:{attacker.server_address[1]}"
        chromium.get(f"{origin}/cross-site.html")
        WebDriverWait(chromium, 120, poll_frequency=POLL).until(lambda b: b.title.startswith("done"))
        chromium.get(f"http://127.0.0.1:{attacker.server_address[1]}/same-site.html")   # only the port differs
        WebDriverWait(chromium, 120, poll_frequency=POLL).until(lambda b: b.title.startswith("done"))
        # DNS rebinding: a name of the attacker's that leads to this server
        (site / "rebound.html").write_text(ATTACK % {"server": '""', "routes": json.dumps(routes)})
        chromium.get(f"http://rebound.attacker.test:{port}/")
        assert "421" in chromium.title and str(tmp_path) not in chromium.page_source
        answer = chromium.execute_async_script(
            "const done = arguments[0]; fetch('/api/games', {method: 'POST', headers: {'Content-Type': "
            "'application/json'}, body: JSON.stringify({players: 2})}).then(r => done(r.status))")
        assert answer == 421
    finally:
        chromium.quit()
        attacker.shutdown()
    until(lambda: {path.split("?")[0] for path, _ in routes} <= {p for m, p, *_ in seen if m == "POST"}, 10,
          fail=False)                                       # the last requests handled
    posts = [(path, status, kind) for method, path, status, kind in seen if method == "POST"]
    assert posts and all(status in (403, 415, 421) for _, status, _ in posts), posts
    assert all(path.split("?")[0] in {p for p, _, _ in posts} for path, _ in routes)   # every route was tried
    assert {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data"} <= {k for _, _, k in posts}
    assert ("POST", "/api/games", 421, "application/json") in seen               # the rebound page
    assert any(method == "OPTIONS" for method, *_ in seen)                      # preflights, never granted
    assert ("GET", "/resume/0/saved.json", None, "") in seen                   # and answered 404
    assert not app.state.tasks._tasks and not app.state.positions
    assert list(app.state.tables) == [game["id"]]
    assert (table.version, len(table.game.history), sorted(p.name for p in tmp_path.rglob("*"))) == before


def _new_table(serving, tmp_path, seats, seed):
    """A server with a new table (POST /api/games): its address, the table's answer and the
    table."""
    import urllib.request

    address = serving(tmp_path)
    app = serving.running[-1][2]
    request = urllib.request.Request(address + "api/games", headers={"Content-Type": "application/json",
                                                                      "Origin": address.rstrip("/")},
                                     data=json.dumps({"players": len(seats), "seats": seats, "seed": seed}).encode())
    game = json.loads(urllib.request.urlopen(request, timeout=10).read())
    return address.rstrip("/"), game, app.state.tables[game["id"]]


def _turn_squares(rec):
    """The squares the moves of the record's last turn changed (a move's turn: the turn
    of the position before it), that turn's players, and the squares its last move
    changed alone."""
    steps = [(g.to_position()["turn"], g.to_position()["squares"]) for _, g in record.steps(rec)]
    turn, touched, players, k = steps[-2][0], set(), set(), len(steps) - 1
    last = None
    while k > 0 and steps[k - 1][0] == turn:
        before, after = steps[k - 1][1], steps[k][1]
        changed = {sq for sq in set(before) | set(after) if before.get(sq) != after.get(sq)}
        last = changed if last is None else last
        touched |= changed
        players.add(rec["moves"][k - 1]["player"])
        k -= 1
    return touched, players, last


def test_a_move_and_the_bot_s_reply_are_drawn_in_place_its_whole_turn_outlined(browser, serving, tmp_path):
    """Issue 42: a person's move and the bot's reply are drawn in place (the page is not
    loaded again: a mark set on it stays), and the board outlines every square the bot's
    last turn changed, both its actions and their follow-ups (only the second action's
    were)."""
    address, game, table = _new_table(serving, tmp_path, ["human", "random"], seed=4)
    browser.get(address + game["seats"]["0"])
    assert _my_turn(browser)
    browser.execute_script("window.tigrisNotReloaded = true")
    path = tmp_path / "games" / game["file"]
    for _ in range(2):                                   # the person's two actions, then the bot's turn
        moves = int(browser.find_element(By.ID, "move-count").text)
        _click_a_move(browser)
        assert int(browser.find_element(By.ID, "move-count").text) > moves
        assert browser.execute_script("return window.tigrisNotReloaded === true")
    assert _my_turn(browser)
    rec = json.loads(path.read_text())
    wait(browser).until(lambda b: b.find_element(By.ID, "move-count").text == str(len(rec["moves"])))
    touched, players, last = _turn_squares(rec)
    assert players == {1} and len(touched) > len(last)   # the bot's turn, its first action seen too
    outlined = browser.find_elements(By.CSS_SELECTOR, "#pieces rect.changed")
    assert len(outlined) == len(touched)
    assert {e.get_attribute("data-square") for e in outlined} == touched
    assert browser.find_element(By.ID, "move-number").text == str(len(rec["moves"]))   # at the last move
    assert browser.execute_script("return window.tigrisNotReloaded === true")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_a_move_without_a_square_is_one_click(browser, serving, tmp_path):
    """Issue 42: pass, support N and a swap took two clicks (its kind, then the move):
    each is a button of its own, played by one click, drawn in place."""
    address, game, table = _new_table(serving, tmp_path, ["human", "human"], seed=3)
    mover = table.game.current_player
    browser.get(address + game["seats"][str(mover)])
    assert _my_turn(browser)
    browser.execute_script("window.tigrisNotReloaded = true")
    swaps = {table.game.action_str(a) for a in table.game.legal_actions() if table.game.action_str(a).startswith("swap")}
    shown = {b.get_attribute("data-move") for b in browser.find_elements(By.CSS_SELECTOR, "#play-groups button.move")}
    assert shown == swaps | {"pass"}
    # the swaps, some thirty, folded under one line: hidden until it is opened
    folded = browser.find_elements(By.CSS_SELECTOR, "#play-swaps button.move")
    assert {b.get_attribute("data-move") for b in folded} == swaps and len(swaps) > 10
    assert not any(b.is_displayed() for b in folded)
    summary = browser.find_element(By.CSS_SELECTOR, "#play-swaps summary")
    assert summary.text == f"swap tiles ({len(swaps)} ways)"
    summary.click()
    assert all(b.is_displayed() for b in folded)
    browser.find_element(By.CSS_SELECTOR, '#play-groups button.move[data-move="pass"]').click()
    wait(browser).until(lambda b: b.find_element(By.ID, "move-count").text == "1")
    assert [table.game.action_str(a) for a, *_ in table.game.history] == ["pass"]
    assert browser.find_element(By.CSS_SELECTOR, "#status .last-text").text == "pass"
    assert browser.execute_script("return window.tigrisNotReloaded === true")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_a_move_clicked_on_a_stale_page_is_refused_and_the_page_reloads(browser, serving, tmp_path):
    """The game moves on behind the page's back (the same seat, from elsewhere): a click
    on the page's old state is refused (409), nothing is played twice, the page draws the
    game again as it is."""
    address, game, table = _new_table(serving, tmp_path, ["human", "human"], seed=3)
    mover = table.game.current_player
    browser.get(address + game["seats"][str(mover)])
    assert _my_turn(browser)
    browser.execute_script("window.setTimeout = () => 0;")          # the page stops looking
    time.sleep(1)                                                   # (its last look comes back)
    table.move(mover, table.game.legal_actions()[0], version=table.version)    # the game moves on
    assert (table.version, len(table.game.history)) == (1, 1)
    browser.find_elements(By.CSS_SELECTOR, "#play-groups button")[0].click()
    targets = browser.find_elements(By.CSS_SELECTOR, "#play-targets rect")
    (targets[0] if targets else browser.find_elements(By.CSS_SELECTOR, "#play-choices button")[0]).click()
    wait(browser).until(lambda b: b.find_element(By.ID, "move-count").text == "1")   # loaded again
    assert (table.version, len(table.game.history)) == (1, 1)                       # nothing played twice
    refused = "/move?key="
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors and all(refused in e["message"] and "409" in e["message"] for e in errors), errors


# ---------------------------------------------------------------------------------------
# A seat is never lost; the new game's form
# ---------------------------------------------------------------------------------------

def _close_the_tab(browser):
    """The seat's tab closed (its session's store with it), another one opened."""
    closing = browser.current_window_handle
    browser.switch_to.new_window("tab")
    fresh = browser.current_window_handle
    browser.switch_to.window(closing)
    browser.close()
    browser.switch_to.window(fresh)


def _address(browser):
    """The address of the page shown, without its move (``#move=N``)."""
    return browser.current_url.split("#", 1)[0]


def _front_seat(browser, address):
    """The address of the seat the front page links (its one game's first seat)."""
    browser.get(address)
    return browser.find_element(By.CSS_SELECTOR, "#folders a.seat").get_attribute("href")


def _not_expected(entries):
    """The console's errors but those of a page that looked for its game while the server
    was away or had not seated it yet (refused connections, a 404 that reloads it)."""
    return [e for e in entries if e["level"] == "SEVERE"
            and not any(m in e["message"] for m in ("ERR_CONNECTION_REFUSED", "ERR_EMPTY_RESPONSE",
                                                    "Failed to fetch", " 404 "))]


@pytest.mark.slow
def test_a_seat_is_found_again_after_its_tab_closes_and_after_restarts(browser, serving, tmp_path):
    """A game made in the browser, its tab closed: the front page links the seat, which
    plays on; the server restarts at the same address: the front page links it again, and
    the old address seats the game again and plays on; a seat's page left open while the
    server restarts takes the game up again by itself."""
    address = serving(tmp_path)
    port = int(address.rstrip("/").rsplit(":", 1)[1])
    browser.get(address)
    browser.find_element(By.ID, "new-game").click()
    browser.find_element(By.CSS_SELECTOR, 'select[name="seat1"] option[value="random"]').click()
    browser.find_element(By.ID, "start").click()
    wait(browser, 60).until(lambda b: "/play/" in b.current_url)
    seat = _address(browser)
    assert _my_turn(browser)
    _click_a_move(browser)
    _close_the_tab(browser)
    assert _front_seat(browser, address) == seat
    browser.find_element(By.CSS_SELECTOR, "#folders a.seat").click()
    assert _address(browser) == seat and _my_turn(browser)
    _click_a_move(browser)
    record_file = next((tmp_path / "games").glob("*.json"))
    moves = len(json.loads(record_file.read_text())["moves"])
    # the server restarts, no page of it open
    browser.get("about:blank")
    serving.stop()
    assert serving(tmp_path, port=port) == address
    assert _front_seat(browser, address) == seat
    assert not serving.running[-1][2].state.tables                    # a page looked at seats nothing
    browser.get(seat)                                                 # the old address
    wait(browser, 60).until(lambda b: b.find_elements(By.ID, "play-status"))
    assert _address(browser) == seat and _my_turn(browser)
    assert int(browser.find_element(By.ID, "move-count").text) >= moves
    _click_a_move(browser)
    # the server restarts while the seat's page is open: the page takes the game up again
    moves = len(json.loads(record_file.read_text())["moves"])
    serving.stop()
    assert serving(tmp_path, port=port) == address
    wait(browser, 60).until(lambda b: serving.running[-1][2].state.tables)
    assert _my_turn(browser) and _address(browser) == seat
    _click_a_move(browser)
    assert len(json.loads(record_file.read_text())["moves"]) > moves
    assert not _not_expected(browser.get_log("browser"))


# the boxes of each seat's label: its text (every text node of the label outside its
# select), its select and the label itself, and whether the label is one box
SEAT_BOXES = """
const box = r => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom});
return [...document.querySelectorAll("#new-game-form label.seat")].filter(l => l.offsetParent !== null).map(l => {
  const select = l.querySelector("select"), walk = document.createTreeWalker(l, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (select.contains(n) || !n.textContent.trim()) continue;
    const r = document.createRange();
    r.selectNodeContents(n);
    texts.push(r.getBoundingClientRect());
  }
  const text = {left: Math.min(...texts.map(r => r.left)), right: Math.max(...texts.map(r => r.right)),
                top: Math.min(...texts.map(r => r.top)), bottom: Math.max(...texts.map(r => r.bottom))};
  return {seat: l.dataset.seat, pieces: l.getClientRects().length, text: text,
          select: box(select.getBoundingClientRect()), label: box(l.getBoundingClientRect()), width: innerWidth};
});
"""


@pytest.mark.parametrize("width", [1280, 800, 500])
def test_each_seat_s_label_stays_beside_its_select(browser, serving, tmp_path, width):
    """With 4 players, at any width, each seat's label is one box that holds its text and
    its select side by side (the text did sit beside the next seat's select), within the
    page; a click on the text chooses its select; the seats not at the table are hidden."""
    address = serving(tmp_path)
    try:
        browser.set_window_size(width, 900)
        browser.get(address + "play")
        players = Select(browser.find_element(By.ID, "players"))
        players.select_by_visible_text("2")
        shown = [label.get_attribute("data-seat") for label in browser.find_elements(By.CSS_SELECTOR, "label.seat")
                 if label.is_displayed()]
        assert shown == ["0", "1"]
        players.select_by_visible_text("4")
        seats = browser.execute_script(SEAT_BOXES)
        assert [s["seat"] for s in seats] == ["0", "1", "2", "3"]
        for s in seats:
            text, select, label = s["text"], s["select"], s["label"]
            assert s["pieces"] == 1, s                                # not broken over two lines
            assert select["top"] <= (text["top"] + text["bottom"]) / 2 <= select["bottom"], s   # one row
            assert 0 <= select["left"] - text["right"] <= 24, s        # side by side
            assert all(label["left"] - 1 <= b["left"] and b["right"] <= label["right"] + 1
                       and label["top"] - 1 <= b["top"] and b["bottom"] <= label["bottom"] + 1
                       for b in (text, select)), s
            assert label["right"] <= s["width"], s                     # within the page
        for s in seats:                                                # a click on a label's words
            label = browser.find_element(By.CSS_SELECTOR, f'label.seat[data-seat="{s["seat"]}"]')
            browser.execute_script("document.activeElement.blur()")
            middle = ((s["label"]["left"] + s["label"]["right"]) / 2, (s["label"]["top"] + s["label"]["bottom"]) / 2)
            words = ((s["text"]["left"] + s["text"]["right"]) / 2, (s["text"]["top"] + s["text"]["bottom"]) / 2)
            ActionChains(browser).move_to_element_with_offset(
                label, int(words[0] - middle[0]), int(words[1] - middle[1])).click().perform()
            assert browser.execute_script("return document.activeElement.name") == f"seat{s['seat']}"
    finally:
        browser.set_window_size(1280, 900)
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_a_hint_is_stopped_when_its_page_goes(browser, serving, tmp_path):
    """Stopping a search is a POST of JSON like any change: moving to another position
    stops it, and so does leaving the page (a request kept alive as the page goes)."""
    import tigris

    g = tigris.Game(players=2, seed=8)
    for _ in range(4):
        g.apply(g.legal_actions()[0])
    (tmp_path / "g.json").write_text(json.dumps(record.to_record(g, bots=["a", "b"])))
    address = serving(tmp_path)
    searches = serving.running[-1][2].state.tasks
    for leave in ("another position", "the page"):
        browser.get(address + "record/0/g.json#move=4")
        WebDriverWait(browser, 10, poll_frequency=POLL).until(lambda b: b.find_element(By.ID, "move-number").text == "4")
        browser.find_element(By.ID, "hint-seconds").send_keys("30 s")
        browser.find_element(By.ID, "hint-start").click()
        WebDriverWait(browser, 10, poll_frequency=POLL).until(lambda b: "Searching" in b.find_element(By.ID, "hint-status").text)
        assert searches.running() == 1
        if leave == "the page":
            browser.get("about:blank")
        else:
            browser.find_element(By.ID, "prev").click()
        # long before nobody looked for IDLE
        assert until(lambda: searches.running() == 0, 5, fail=False), leave


# ---------------------------------------------------------------------------------------
# The position editor: every piece by click, refusals undone, the page drawn in place
# ---------------------------------------------------------------------------------------

def _editor(browser, serving, tmp_path):
    """The editor of a new game's start, with a mark that a page load would wipe out."""
    browser.get(serving(tmp_path) + "position")
    wait(browser, 10).until(lambda b: b.find_element(By.ID, "edit-panel").get_attribute("data-state") == "ready")
    browser.execute_script("window.tigrisNotReloaded = true")
    return Select(browser.find_element(By.ID, "edit-piece"))


def _editor_text(browser):
    return json.loads(browser.find_element(By.ID, "edit-text").get_attribute("value"))


def _done(browser, act):
    """Do `act`() in the editor and wait until the editor has made the change (or refused it)."""
    panel = browser.find_element(By.ID, "edit-panel")
    before = int(panel.get_attribute("data-done"))
    act()
    wait(browser).until(lambda b: int(b.find_element(By.ID, "edit-panel").get_attribute("data-done")) > before
                        and b.find_element(By.ID, "edit-panel").get_attribute("data-state") == "ready")


def _chosen(browser):
    """The value of the piece chosen in the editor's selector (one look: Select's
    first_selected_option asks the browser about every option)."""
    return browser.find_element(By.ID, "edit-piece").get_property("value")


def _put(browser, pieces, value, square):
    """Put the piece `value` of the selector on `square` by a click: the note beside the
    board (empty when the piece was put)."""
    if _chosen(browser) != value:
        pieces.select_by_value(value)
    cell = browser.find_element(By.CSS_SELECTOR, f'rect[data-cell="{square}"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", cell)
    _done(browser, lambda: ActionChains(browser).move_to_element(cell).click().perform())
    return browser.find_element(By.ID, "edit-board-error").text


def _set_field(browser, path, value):
    """Set the number field at `path` (as "players.1.hand.red"): its group's note."""
    field = browser.find_element(By.CSS_SELECTOR, f'input[data-path="{path}"]')
    _done(browser, lambda: field.send_keys(Keys.CONTROL, "a", Keys.NULL, str(value), Keys.TAB))
    field = browser.find_element(By.CSS_SELECTOR, f'input[data-path="{path}"]')
    return field.find_element(By.XPATH, "./ancestor::div[1]").find_element(By.CLASS_NAME, "field-error").text


def _on_board(browser):
    """{square: token} of the pieces drawn on the board, in one look (not two a piece)."""
    return browser.execute_script(
        "const on = {};"
        "for (const g of document.querySelectorAll('#pieces g.piece'))"
        "  on[g.getAttribute('data-square')] = g.getAttribute('data-token');"
        "return on;")


def _refused_severe(browser):
    """The console's errors but the server's refusals of positions and changes (400)."""
    refused = [f"/api/{route} - Failed to load resource: the server responded with a status of 400"
               for route in ("positions", "edit")]
    return [e for e in browser.get_log("browser")
            if e["level"] == "SEVERE" and not any(r in e["message"] for r in refused)]


# (piece, square, what the note beside the board says, or None when the piece is put)
EVERY_PIECE = [
    ("priest:0", "J9", "river"),                   # issue 42: a leader on a river square
    ("blue", "H6", "(R29)"),                       # a farm on land
    ("red", "J9", "(R29)"),                        # a temple on a river
    ("red+treasure", "H6", "no treasure to put"),  # every treasure is on the board yet
    ("king:0", "G3", None),                        # next to the temple on F3
    ("priest:1", "H6", "no temple next to"),       # R19
    ("red", "H6", None),
    ("priest:1", "H5", None),                      # next to the new temple
    ("blue", "J9", None),
    ("green", "G6", None),
    ("black", "G7", None),
    ("farmer:0", "I6", None),
    ("trader:1", "I8", None),
    ("king:0", "F4", None),                        # moved from G3
    ("catastrophe:1", "A1", None),                 # player 1: 1 left
    ("catastrophe:0", "B2", "(R39, R79)"),         # issue 55: never on a treasure
    ("catastrophe:0", "F4", "a leader stands"),    # nor on a leader (R39)
    ("catastrophe:0", "H6", None),                 # the temple out of the game, priest:1 home (R42)
    ("catastrophe:0", "G7", None),                 # the black tile out of the game; player 0: none left
    ("catastrophe:1", "A2", None),                 # player 1: none left
    ("catastrophe:1", "A3", "no catastrophe tiles left"),
    ("", "K1", None),                              # the temple back to the bag, its treasure to player 0
    ("red+treasure", "H3", "not one of the classic board's temple squares"),
    ("red+treasure", "K1", None),                  # the treasure from player 0
    ("red", "B2", "not empty (R28)"),              # taken away first...
    ("", "B2", None),                              # ... its treasure to player 0
    ("red", "B2", None),
    ("", "I8", None),                              # the trader back to its owner
]


def test_every_piece_put_by_click_refusals_undone_and_a_valid_position_at_the_end(browser, serving, tmp_path):
    """Issue 42: every kind of piece put on the board by a click, the refused ones with a
    note naming the square and the rule, each undone (the text and the board as before);
    the catastrophes lower their player's count, the chosen piece stays chosen, and the
    page is drawn in place (never loaded anew).  The text is a valid position of it all.
    Issue 55: a piece goes only where the rules let it (a catastrophe never on a treasure
    or a leader, a tile on an empty square), and a catastrophe does what they make it do
    (a leader left without a temple goes home, R42)."""
    import tigris
    from tigris import position

    pieces = _editor(browser, serving, tmp_path)
    start = tigris.Game(players=2, seed=0).to_position()
    for value, square, refusal in EVERY_PIECE:
        before, board_before = _editor_text(browser), _on_board(browser)
        note = _put(browser, pieces, value, square)
        if refusal:
            assert refusal in note and square in note, (value, square, note)
            assert (_editor_text(browser), _on_board(browser)) == (before, board_before), (value, square)
        else:
            assert note == "", (value, square, note)
            token = "catastrophe" if value.startswith("catastrophe") else value
            assert _on_board(browser).get(square) == (token or None), (value, square)
            assert _editor_text(browser)["squares"].get(square) == (token or None), (value, square)
        assert _chosen(browser) == value                                         # still chosen
    final = _editor_text(browser)
    game = position.from_position(final)
    squares = dict(start["squares"], K1="red+treasure", B2="red", H6="catastrophe", J9="blue",
                   G6="green", G7="catastrophe", I6="farmer:0", F4="king:0", A1="catastrophe",
                   A2="catastrophe")
    assert final["squares"] == squares == game.to_position()["squares"]
    assert [p["catastrophes"] for p in final["players"]] == [0, 0]
    assert [p["treasures"] for p in final["players"]] == [1, 0]
    assert final["out_of_game"] == {"red": 1, "blue": 0, "green": 0, "black": 1}
    assert final["bag"] == {c: start["bag"][c] - n for c, n in (("red", 1), ("blue", 1), ("green", 1),
                                                                 ("black", 1))}
    cards = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#players .player")]
    assert "catastrophes left 0" in cards[0] and "catastrophes left 0" in cards[1]
    assert re.search(r"/position/[0-9a-f]+$", browser.current_url)
    assert browser.execute_script("return window.tigrisNotReloaded === true")
    assert not _refused_severe(browser)


def test_a_refused_click_leaves_the_editor_working(browser, serving, tmp_path):
    """Issue 42: after a priest refused on J9 (a river), the next legal click and the next
    number field are made, not refused again with J9's error; a refused field goes back
    to its value and the next edit of it is made (its tile back to the bag)."""
    pieces = _editor(browser, serving, tmp_path)
    start = _editor_text(browser)
    assert "J9" in _put(browser, pieces, "priest:0", "J9")
    assert "J9" not in json.dumps(_editor_text(browser))
    assert _put(browser, pieces, "priest:0", "F9") == ""                 # next to the temple on F10
    assert _on_board(browser).get("F9") == "priest:0" and _editor_text(browser)["squares"]["F9"] == "priest:0"
    assert _set_field(browser, "players.0.score.green", 3) == ""
    assert _editor_text(browser)["players"][0]["score"]["green"] == 3
    assert "out of range" in _set_field(browser, "players.1.hand.red", 9)
    field = browser.find_element(By.CSS_SELECTOR, 'input[data-path="players.1.hand.red"]')
    assert field.get_attribute("value") == str(start["players"][1]["hand"]["red"])
    assert _set_field(browser, "players.1.hand.red", start["players"][1]["hand"]["red"] - 1) == ""
    after = _editor_text(browser)
    assert after["players"][1]["hand"]["red"] == start["players"][1]["hand"]["red"] - 1
    assert after["bag"]["red"] == start["bag"]["red"] + 1                # the tile back to the bag
    assert _put(browser, pieces, "green", "H6") == ""
    assert _editor_text(browser)["squares"]["H6"] == "green"
    assert browser.execute_script("return window.tigrisNotReloaded === true")
    browser.back()                                                       # the position before it
    wait(browser).until(lambda b: not b.find_elements(By.CSS_SELECTOR, 'g.piece[data-square="H6"]')
                        and "H6" not in _editor_text(b)["squares"] and "F9" in _editor_text(b)["squares"])
    assert not _refused_severe(browser)


def test_the_editors_fields_are_named_in_words(browser, serving, tmp_path):
    """Issue 42, item 8: no field is a letter (blue and black were both "B")."""
    _editor(browser, serving, tmp_path)
    labels = [label.text.strip() for label in browser.find_elements(By.CSS_SELECTOR, "#edit-fields label")]
    assert labels and all(len(label) > 1 for label in labels), labels
    for words in ("red", "blue", "green", "black", "treasures", "catastrophes left", "player to move",
                  "actions left"):
        assert words in labels, words
    names = {f.get_attribute("aria-label") for f in browser.find_elements(By.CSS_SELECTOR, "#edit-fields input")}
    assert {"player 1 hand black", "player 0 score blue", "player 0 catastrophes left", "bag green"} <= names


def test_keys_typed_in_the_editor_stay_in_it(browser, serving, tmp_path):
    """Home, End and the arrows move the caret in the editor's text, not the viewer from
    move to move (which took them from the text)."""
    _editor(browser, serving, tmp_path)
    text = browser.find_element(By.ID, "edit-text")
    browser.execute_script("arguments[0].value = 'ab'; arguments[0].focus();"
                           "arguments[0].setSelectionRange(2, 2)", text)
    text.send_keys(Keys.HOME, "x", Keys.END, "y", Keys.ARROW_LEFT, "z")
    assert text.get_attribute("value") == "xabzy"
