"""tigris view in a real browser: headless Chromium driven by selenium steps through a
game page (buttons, arrow keys, the slider, the move list, the graph) and compares what
the page shows with the engine's position at that move (the browser: browsers.py)."""

import io
import json
import shutil

import pytest

import tigris
from tigris import bots, record, tournament, view

from browsers import browser_or_skip

try:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError:                      # reported by the browser fixture (conftest.py)
    pass

NAMES = ["greedy <b>one</b>", "greedy & two"]


@pytest.fixture(scope="module")
def game():
    """A finished game with wars, monuments and buildings, its positions after every move,
    and hand-made analysis rows."""
    g = tigris.Game(players=2, seed=1, variants=("buildings",))
    a, b = bots.make("greedy", seed=1), bots.make("greedy", seed=2)
    while not g.is_over:
        g.apply((a if g.current_player == 0 else b).choose(g))
    rec = record.to_record(g, bots=NAMES)
    positions = [gm.to_position() for _, gm in record.steps(rec)]
    rows = []
    for n, m in enumerate(rec["moves"], start=1):
        first = 0.5 + 0.3 * n / len(rec["moves"])            # player 1 pulls ahead
        win = first if m["player"] else 1 - first
        rows.append({"move": n, "player": m["player"], "played": m["move"], "best": "pass",
                     "chances": [1 - first, first], "win_before": win, "win_after": win - 0.02,
                     "margin_before": 1.5, "margin_after": 0.5, "drop": 1.0, "rank": 1,
                     "mark": {7: "blunder", 20: "mistake", 33: "inaccuracy"}.get(n)})
    luck = [[5, 0, 0.03], [6, 1, -0.01], [9, 0, 0.01]]        # hand-made too
    return rec, positions, ({"format": "tigris-analysis/3", "record": "-", "luck": luck,
                             "measure": "margin"}, rows)


@pytest.fixture(scope="module")
def page(game, tmp_path_factory):
    rec, _, analysis = game
    path = tmp_path_factory.mktemp("view") / "game.html"
    view.write_game(rec, path, analysis=analysis, title="a game")
    return path.as_uri()


@pytest.fixture
def opened(browser, page):
    """The game page, freshly loaded at its first position."""
    browser.get(page)
    browser.execute_script("window.scrollTo(0, 0)")
    return browser


SHOWN = """
const out = {move: parseInt(document.getElementById('move-number').textContent, 10),
             squares: {}, scores: [], hands: [], hand_colours: [], to_move: [],
             slider: parseInt(document.getElementById('slider').value, 10),
             current: Array.from(document.querySelectorAll('#moves li.current')).map(li => li.dataset.step),
             monuments: Array.from(document.querySelectorAll('#pieces .monument')).map(
               m => ({colours: m.dataset.monument, at: m.dataset.at})),
             unification: Array.from(document.querySelectorAll('#pieces .unification')).map(u => u.dataset.square)};
for (const g of document.querySelectorAll('#pieces .piece')) out.squares[g.dataset.square] = g.dataset.token;
for (const card of document.querySelectorAll('#players .player')) {
  const score = {};
  for (const chip of card.querySelectorAll('.score')) score[chip.dataset.colour] = parseInt(chip.textContent, 10);
  out.scores.push(score);
  out.hands.push(parseInt(card.querySelector('.hand-size').textContent, 10));
  const colours = {red: 0, blue: 0, green: 0, black: 0};
  for (const t of card.querySelectorAll('.hand .tile')) colours[t.dataset.colour] += 1;
  out.hand_colours.push(colours);
  if (card.classList.contains('to-move')) out.to_move.push(parseInt(card.dataset.player, 10));
}
return out;
"""


def shown(browser):
    """What the page shows: the move number, the board's squares, scores, hands, ..."""
    return browser.execute_script(SHOWN)


def check(browser, positions, n=None):
    """The page shows the engine's position after its move number (which is `n` if
    given); returns that number."""
    s = shown(browser)
    if n is not None:
        assert s["move"] == n
    n = s["move"]
    pos = positions[n]
    assert s["slider"] == n and s["current"] == [str(n)]
    assert s["squares"] == pos["squares"], f"move {n}"
    assert s["monuments"] == pos["monuments"], f"move {n}"
    assert s["unification"] == ([pos["pending"]["unification"]]
                                if pos.get("pending", {}).get("unification") else [])
    for p, player in enumerate(pos["players"]):
        assert s["scores"][p] == player["score"], f"move {n}, player {p}"
        assert s["hands"][p] == sum(player["hand"].values()), f"move {n}, player {p}"
        assert s["hand_colours"][p] == player["hand"], f"move {n}, player {p}"
    over = pos.get("pending", {}).get("decision") == "over"
    assert s["to_move"] == ([] if over else [pos["to_move"]])
    return n


def press(browser, key, times=1):
    """Press `key` on the page (the element with the focus gets it, as from a person)."""
    ActionChains(browser).send_keys(key * times).perform()


def test_the_page_loads_without_errors_and_shows_the_start(opened, game):
    _, positions, _ = game
    errors = [e for e in opened.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    check(opened, positions, 0)
    assert opened.find_element(By.ID, "move-count").text == str(len(positions) - 1)
    assert len(opened.find_elements(By.CSS_SELECTOR, "#legend .item")) >= 12


def test_every_move_by_the_arrow_keys_shows_the_engines_position(opened, game):
    _, positions, _ = game
    for n in range(1, len(positions)):
        press(opened, Keys.ARROW_RIGHT)
        check(opened, positions, n)
    press(opened, Keys.ARROW_RIGHT)                 # past the end: stays
    check(opened, positions, len(positions) - 1)
    press(opened, Keys.ARROW_LEFT, 3)
    check(opened, positions, len(positions) - 4)
    press(opened, Keys.HOME)
    check(opened, positions, 0)
    press(opened, Keys.END)
    check(opened, positions, len(positions) - 1)
    assert "Game over" in opened.find_element(By.ID, "status").text


def test_the_buttons_step_through_the_game(opened, game):
    _, positions, _ = game
    last = len(positions) - 1
    assert not opened.find_element(By.ID, "next").get_attribute("disabled")
    assert opened.find_element(By.ID, "prev").get_attribute("disabled")
    for n in range(1, 4):
        opened.find_element(By.ID, "next").click()
        check(opened, positions, n)
    opened.find_element(By.ID, "prev").click()
    check(opened, positions, 2)
    opened.find_element(By.ID, "last").click()
    check(opened, positions, last)
    assert opened.find_element(By.ID, "next").get_attribute("disabled")
    opened.find_element(By.ID, "first").click()
    check(opened, positions, 0)


def test_the_slider_goes_to_a_move(opened, game):
    _, positions, _ = game
    slider = opened.find_element(By.ID, "slider")
    width = slider.size["width"]
    # offsets are from the element's centre: this is a tenth of the way along
    ActionChains(opened).move_to_element_with_offset(slider, int(width * (0.1 - 0.5)), 0).click().perform()
    n = check(opened, positions)
    assert 0 < n < len(positions) // 2
    slider.send_keys(Keys.ARROW_RIGHT)             # one move per key, also on the slider
    check(opened, positions, n + 1)


def test_clicking_a_move_in_the_list_goes_there(opened, game):
    _, positions, _ = game
    war = next(n for n, p in enumerate(positions) if p.get("pending", {}).get("unification"))
    item = opened.find_element(By.CSS_SELECTOR, f'#moves li[data-step="{war}"]')
    opened.execute_script("arguments[0].scrollIntoView({block: 'center'})", item)
    item.click()
    check(opened, positions, war)
    assert len(opened.find_elements(By.CSS_SELECTOR, "#pieces .conflict")) == 2
    # the current move is scrolled into view in the list
    assert opened.execute_script("""
        const list = document.getElementById('moves'), li = list.querySelector('li.current');
        return li.offsetTop >= list.scrollTop &&
               li.offsetTop + li.offsetHeight <= list.scrollTop + list.clientHeight;""")


def test_copy_position_gives_the_engines_position(opened, game):
    _, positions, _ = game
    n = 57
    opened.find_element(By.CSS_SELECTOR, f'#moves li[data-step="{n}"]').click()
    opened.find_element(By.ID, "copy-position").click()
    text = opened.find_element(By.ID, "position-text")
    assert text.is_displayed()
    assert opened.find_element(By.ID, "copy-status").text
    data = json.loads(text.get_attribute("value"))
    assert data == positions[n]
    assert tigris.Game.from_position(data).to_position() == positions[n]
    # the text follows the shown position (the arrow keys move the text's caret here)
    opened.find_element(By.ID, "next").click()
    assert json.loads(text.get_attribute("value")) == positions[n + 1]


def test_the_analysis_graph_and_marks(opened, game):
    rec, positions, (_, rows) = game
    assert opened.find_element(By.ID, "graph").is_displayed()
    assert len(opened.find_elements(By.CSS_SELECTOR, "#graph .win-line")) == 2
    assert len(opened.find_elements(By.CSS_SELECTOR, "#graph .mark-dot")) == 3
    marks = {7: "??", 20: "?", 33: "?!"}
    for n, mark in marks.items():
        li = opened.find_element(By.CSS_SELECTOR, f'#moves li[data-step="{n}"]')
        assert li.find_element(By.CSS_SELECTOR, ".mark").get_attribute("textContent") == mark
        assert "best" in li.get_attribute("title")
    graph = opened.find_element(By.ID, "graph")
    opened.execute_script("arguments[0].scrollIntoView({block: 'center'})", graph)
    # the middle of the plot (its left margin is 36 of 640 units, the right 10)
    x = int(graph.size["width"] * ((36 + (640 - 46) / 2) / 640) - graph.size["width"] / 2)
    ActionChains(opened).move_to_element_with_offset(graph, x, 0).click().perform()
    n = check(opened, positions)
    assert abs(n - (len(positions) - 1) / 2) <= 2


def test_the_luck_of_the_draws_beside_the_analysis(opened, game):
    """Issue 42: the luck of the tiles drawn, per player over the game and per move."""
    luck = opened.find_element(By.ID, "luck")
    assert luck.is_displayed() and "player 0 +4.0%, player 1 -1.0%" in luck.text
    opened.find_element(By.CSS_SELECTOR, '#moves li[data-step="5"]').click()
    assert "Luck of the draws: player 0 +3.0%." in opened.find_element(By.TAG_NAME, "body").text


def test_a_screenshot_is_not_blank(opened, game):
    from PIL import Image

    press(opened, Keys.END)
    image = Image.open(io.BytesIO(opened.get_screenshot_as_png())).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert len(colours) > 50
    assert max(count for count, _ in colours) < 0.8 * image.width * image.height
    # the tile colours are there: a strong red, blue and green
    pixels = {c for _, c in colours}
    assert any(r > 180 and g < 90 and b < 80 for r, g, b in pixels)
    assert any(b > 180 and r < 80 for r, g, b in pixels)
    assert any(g > 130 and r < 80 and b < 100 for r, g, b in pixels)


def test_names_from_the_record_show_as_text(opened, game):
    text = opened.find_element(By.ID, "players").text
    assert NAMES[0] in text and NAMES[1] in text
    assert not opened.find_elements(By.CSS_SELECTOR, "#players b b, #players script")
    with pytest.raises(NoAlertPresentException):
        opened.switch_to.alert.text


def test_the_address_keeps_the_move(browser, page, game):
    _, positions, _ = game
    browser.get(page + "#move=12")
    check(browser, positions, 12)
    press(browser, Keys.ARROW_RIGHT)
    assert browser.current_url.endswith("#move=13")


def test_without_a_browser_the_tests_skip_but_fail_under_ci(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium and chromedriver not installed"):
        browser_or_skip()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the browser tests"):
        browser_or_skip()


def test_the_index_of_a_results_folder_links_the_game_pages(browser, tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    tournament.run(tournament.Spec(bots=["random", "greedy"], games=2, name="t"), out=out,
                   jobs=1, progress=False)
    written = view.write_results(out, out / "pages")
    browser.get(written["index"].as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings tbody tr")
    assert {r.find_elements(By.TAG_NAME, "td")[1].text for r in rows} == {"random", "greedy"}
    browser.find_element(By.CSS_SELECTOR, '#games tr[data-game="1"] a').click()
    assert browser.current_url.split("#")[0].endswith("game-1.html")
    rec = next(r for r in tournament.read_games(out, repair=False) if r["game"] == 1)
    assert browser.find_element(By.ID, "move-count").text == str(len(rec["moves"]))
    positions = [g.to_position() for _, g in record.steps(rec)]
    press(browser, Keys.END)
    check(browser, positions, len(positions) - 1)
    browser.find_element(By.CSS_SELECTOR, "a.back").click()
    assert browser.current_url.split("#")[0].endswith("index.html")


def test_a_revolt_is_labelled_with_red_support(browser, tmp_path_factory):
    """A revolt of kings is fought with temples (RULES.md A-7): the page says red support,
    not the kings' black; a war keeps its own colour."""
    g = tigris.Game(players=2, seed=1)
    for move in ("leader king F4", "tile black A11", "leader king G3"):
        g.apply(move)
    path = tmp_path_factory.mktemp("revolt") / "revolt.html"
    view.write_game(record.to_record(g, bots=["human", "greedy"]), path, title="a revolt")
    browser.get(path.as_uri() + "#move=3")
    status = browser.find_element(By.ID, "status").text
    assert "Revolt of the kings (red support)" in status
    assert "black support" not in status


def test_a_resigned_game_says_game_over_at_its_last_move(browser, tmp_path_factory):
    """A game that ended by a resignation is over at its last move: the status line says
    so with the reason and the places (not whose turn it would be); the moves before it
    are shown as they were."""
    g = tigris.Game(players=2, seed=1)
    for move in ("leader king F4", "tile black A11"):
        g.apply(move)
    rec = record.to_record(g, bots=["human", "greedy"])
    rec["result"] = record.result(g, "player 0 resigned", resigned=0)
    path = tmp_path_factory.mktemp("resigned") / "resigned.html"
    view.write_game(rec, path, title="a resignation")
    browser.get(path.as_uri() + "#move=2")
    status = browser.find_element(By.ID, "status").text
    assert "Game over (player 0 resigned): 1. player 1" in status, status
    # issue 55: nobody is to move in a game that is over (the badge stayed)
    assert not browser.find_elements(By.CSS_SELECTOR, "#players .to-move, #players .to-move-badge")
    browser.get(path.as_uri() + "#move=1")
    browser.refresh()
    assert "Game over" not in browser.find_element(By.ID, "status").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#players .to-move-badge")) == 1
