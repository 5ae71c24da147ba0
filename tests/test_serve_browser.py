"""tigris serve in a real browser (headless Chromium, browsers.py): the folders, a results
folder whose standings follow a running tournament, and a game opened from it on the
board."""

import json
import socket
import threading
import time

import pytest

from tigris import record, tournament

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tigris.serve import create_app  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_log(browser):
    """Each test reads only its own console messages (the browser is shared)."""
    browser.get("about:blank")
    browser.get_log("browser")


class Servers:
    """Servers in threads of this process, each on a free port of 127.0.0.1."""

    def __init__(self):
        self.running = []

    def __call__(self, folder, **options):
        """Start one over `folder` (``create_app`` options): its address."""
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        server = uvicorn.Server(uvicorn.Config(create_app([folder], **options), log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        self.running.append((server, thread))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/"

    def stop(self):
        """Stop them all (a server that stops keeps nothing but its files)."""
        for server, thread in self.running:
            server.should_exit = True
            thread.join(timeout=10)
        self.running = []


@pytest.fixture
def serving():
    """serving(folder, **create_app options): the address of a server; stopped after the test."""
    servers = Servers()
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
    WebDriverWait(browser, 15).until(lambda b: standings_games(b) == 4)
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
    time.sleep(0.1)
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
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "move-number").text == "12")
    browser.find_element(By.ID, "hint-seconds").send_keys("1 s")
    browser.find_element(By.ID, "hint-start").click()
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr")
    assert rows[0].find_elements(By.TAG_NAME, "td")[0].text == "="           # the search's choice
    legal = {g.action_str(x) for x in g.legal_actions()}
    assert all(r.find_elements(By.TAG_NAME, "td")[1].text.split(" + ")[0] in legal for r in rows)
    assert "within the search's noise" in browser.find_element(By.ID, "hint-status").text
    # A long search, stopped by moving to another position.
    browser.find_element(By.ID, "hint-seconds").send_keys("30 s")
    browser.find_element(By.ID, "hint-start").click()
    WebDriverWait(browser, 10).until(lambda b: "Searching" in b.find_element(By.ID, "hint-status").text)
    browser.find_element(By.ID, "prev").click()
    assert not browser.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr")
    assert browser.find_element(By.ID, "hint-stop").get_attribute("hidden")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


# The page loads again after every move: an element found may be gone a moment later
# (stale, not found, or "does not belong to the document").
RELOADING = (WebDriverException,)


def wait(browser, seconds=30):
    """A wait that looks again while the page reloads (it does after every move)."""
    return WebDriverWait(browser, seconds, ignored_exceptions=RELOADING)


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
    """Choose the first kind of move, then its first square or choice."""
    browser.find_elements(By.CSS_SELECTOR, "#play-groups button")[0].click()
    targets = browser.find_elements(By.CSS_SELECTOR, "#play-targets rect")
    before = browser.find_element(By.ID, "move-count").text
    (targets[0] if targets else browser.find_elements(By.CSS_SELECTOR, "#play-choices button")[0]).click()
    wait(browser).until(lambda b: b.find_element(By.ID, "move-count").text != before)


def test_a_whole_game_against_random_by_clicks_with_undo_hint_and_resume(browser, serving, tmp_path):
    address = serving(tmp_path)
    browser.get(address)
    browser.find_element(By.ID, "new-game").click()
    browser.find_element(By.CSS_SELECTOR, 'select[name="seat1"] option[value="random"]').click()
    browser.find_element(By.CSS_SELECTOR, 'input[name="seed"]').send_keys("5")
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 10).until(lambda b: "/play/" in b.current_url)
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
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr"))
    _click_a_move(browser)
    # the server restarts: the game goes on from its record
    saved = sorted((tmp_path / "games").glob("*.json"))
    assert len(saved) == 1
    browser.get("about:blank")
    serving.stop()
    browser.get_log("browser")                          # the page's last polls of the stopped server
    address = serving(tmp_path)
    browser.get(address)
    browser.find_element(By.CSS_SELECTOR, 'a.resume[href$="' + saved[0].name + '"]').click()
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
