"""tigris serve in a real browser (headless Chromium, browsers.py): the folders, a results
folder whose standings follow a running tournament, and a game opened from it on the
board."""

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
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

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
    assert rows[0].find_elements(By.TAG_NAME, "td")[0].text == "(1) ="       # the search's choice
    # the top plans' squares outlined on the board, numbered as in the table
    outlined = {e.get_attribute("data-square") for e in browser.find_elements(By.CSS_SELECTOR, "#marks .hint-mark")}
    planned = {m.split()[-1] for r in rows[:3] for m in r.find_elements(By.TAG_NAME, "td")[1].text.split(" + ")
               if re.fullmatch(r"[A-P](1[01]|[1-9])", m.split()[-1])}
    assert outlined == planned
    legal = {g.action_str(x) for x in g.legal_actions()}
    assert all(r.find_elements(By.TAG_NAME, "td")[1].text.split(" + ")[0] in legal for r in rows)
    assert "within the search's noise" in browser.find_element(By.ID, "hint-status").text
    # A long search, stopped by moving to another position.
    browser.find_element(By.ID, "hint-seconds").send_keys("30 s")
    browser.find_element(By.ID, "hint-start").click()
    WebDriverWait(browser, 10, poll_frequency=POLL).until(lambda b: "Searching" in b.find_element(By.ID, "hint-status").text)
    browser.find_element(By.ID, "prev").click()
    assert not browser.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr")
    assert browser.find_element(By.ID, "hint-stop").get_attribute("hidden")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


# The page loads again after every move: an element found may be gone a moment later
# (stale, not found, or "does not belong to the document").
RELOADING = (WebDriverException,)
POLL = 0.05             # seconds between looks: selenium's 0.5 s default slows every move


def wait(browser, seconds=30):
    """A wait that looks again while the page reloads (it does after every move)."""
    return WebDriverWait(browser, seconds, poll_frequency=POLL, ignored_exceptions=RELOADING)


def _my_turn(browser):
    """Wait until the seat may move (True) or the game is over (False)."""
    def ready(b):
        text = b.find_element(By.ID, "play-status").text
        if text.startswith("The game is over"):
            return "over"
        if text.startswith("Your turn") and b.find_elements(By.CSS_SELECTOR, "#play-groups button"):
            return "turn"
        return False
    return wait(browser).until(ready) == "turn"


def _click_a_move(browser):
    """Choose the first kind of move, then its first square or choice.  A page that
    reloads between the two (the game moved on, its page is drawn again) loses the first
    click, and one loaded while the bot moved shows the move before the last ("Go to the
    last move to play"): as a person would, the test goes to the last move (End) and
    chooses the kind again until its squares or choices show."""
    def options(b):
        return (b.find_elements(By.CSS_SELECTOR, "#play-targets rect")
                or b.find_elements(By.CSS_SELECTOR, "#play-choices button"))

    def choose_kind(b):
        kinds = b.find_elements(By.CSS_SELECTOR, "#play-groups button")
        if not kinds:
            return False
        kinds[0].click()
        return True

    deadline = time.monotonic() + 120
    while True:
        wait(browser).until(choose_kind)
        try:
            # its squares or its choices, drawn once the click is handled (later under load)
            found = wait(browser, 10).until(options)
            break
        except TimeoutException:
            assert time.monotonic() < deadline, "no squares nor choices after choosing a kind of move"
            browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    before = browser.find_element(By.ID, "move-count").text
    found[0].click()
    wait(browser).until(lambda b: b.find_element(By.ID, "move-count").text != before)


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


def test_a_game_analysed_from_its_page(browser, serving, tmp_path):
    out = tmp_path / "t"
    tournament.run(tournament.Spec(bots=["random", "greedy"], games=2, seed=4, name="t"), out=out,
                   jobs=1, progress=False)
    browser.get(serving(tmp_path) + "results/0/t/game/0")
    browser.find_element(By.ID, "analysis-iterations").send_keys("quick")
    browser.find_element(By.ID, "analysis-start").click()
    wait(browser, 120).until(lambda b: "analysis=" in b.current_url)
    wait(browser).until(lambda b: not b.find_element(By.ID, "graph-wrap").get_attribute("hidden"))
    assert browser.find_elements(By.CSS_SELECTOR, "#graph *")
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
    plans = [r.find_elements(By.TAG_NAME, "td")[1].text
             for r in browser.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr")]
    assert plans and all(p.startswith("support ") for p in plans)
    refused = "/api/positions - Failed to load resource: the server responded with a status of 400"
    assert not [e for e in browser.get_log("browser")
                if e["level"] == "SEVERE" and refused not in e["message"]]       # but the wrong position


# ---------------------------------------------------------------------------------------
# Another site's page, and a name of another site that leads here
# ---------------------------------------------------------------------------------------

ATTACK = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>attack</title></head><body>
<iframe name="sink" id="sink"></iframe>
<script>
const SERVER = %(server)s, ROUTES = %(routes)s;
const sent = [];
function form(path, enctype, fields) {
  const f = document.createElement("form");
  f.method = "POST"; f.action = SERVER + path; f.enctype = enctype; f.target = "sink";
  for (const [k, v] of Object.entries(fields)) {
    const i = document.createElement("input"); i.name = k; i.value = v; f.appendChild(i);
  }
  document.body.appendChild(f);
  f.submit();
  return new Promise(done => setTimeout(done, 400));
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
    from tigris.web import app as serve

    g = tigris.Game(players=2, seed=2)
    g.apply(g.legal_actions()[0])
    (tmp_path / "saved.json").write_text(json.dumps(record.to_record(g, bots=["human", "random"])))
    seen = []
    refusal = serve._Guard.refusal

    def noted(self, scope):                     # what reached the server, and its answer
        answer = refusal(self, scope)
        kind = dict(scope["headers"]).get(b"content-type", b"").split(b";")[0].decode()
        seen.append((scope["method"], scope["path"], answer and answer[0], kind))
        return answer

    monkeypatch.setattr(serve._Guard, "refusal", noted)
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
    assert not app.state.searches._jobs and not app.state.positions
    assert list(app.state.tables) == [game["id"]]
    assert (table.version, len(table.game.history), sorted(p.name for p in tmp_path.rglob("*"))) == before


def test_a_move_clicked_on_a_stale_page_is_refused_and_the_page_reloads(browser, serving, tmp_path):
    """The game moves on behind the page's back (the same seat, from elsewhere): a click
    on the page's old state is refused (409), nothing is played twice, the page loads the
    game again."""
    import urllib.request

    address = serving(tmp_path)
    app = serving.running[-1][2]
    request = urllib.request.Request(address + "api/games", headers={"Content-Type": "application/json",
                                                                      "Origin": address.rstrip("/")},
                                     data=json.dumps({"players": 2, "seats": ["human", "human"], "seed": 3}).encode())
    game = json.loads(urllib.request.urlopen(request, timeout=10).read())
    table = app.state.tables[game["id"]]
    mover = table.game.current_player
    browser.get(address.rstrip("/") + game["seats"][str(mover)])
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


def test_a_hint_is_stopped_when_its_page_goes(browser, serving, tmp_path):
    """Stopping a search is a POST of JSON like any change: moving to another position
    stops it, and so does leaving the page (a request kept alive as the page goes)."""
    import tigris

    g = tigris.Game(players=2, seed=8)
    for _ in range(4):
        g.apply(g.legal_actions()[0])
    (tmp_path / "g.json").write_text(json.dumps(record.to_record(g, bots=["a", "b"])))
    address = serving(tmp_path)
    searches = serving.running[-1][2].state.searches
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
