"""Games at tigris serve's tables: seats checked, a person's moves and the bots' (in worker
processes) until the end, the record written after every move and played on after a
restart, what a seat may see (the others' hands and swaps hidden), undo and resign."""

import html
import json
from urllib.parse import parse_qs, urlparse

import pytest

import tigris
from tigris import record, view
from tigris.errors import RecordError
from tigris.notation import public

pytest.importorskip("starlette")

import serving  # noqa: E402
import waiting  # noqa: E402
from tigris.web.app import create_app  # noqa: E402


class Seat:
    """A person's seat at a game: its id, number and key, from its page's address."""

    def __init__(self, link):
        url = urlparse(link)
        query = parse_qs(url.query)
        self.id, self.player, self.key = url.path.rsplit("/", 1)[1], int(query["player"][0]), query["key"][0]

    def view(self, client, until=lambda v: True, timeout=60):
        """The seat's view once `until` holds of it (or the last one after `timeout`)."""
        seen = []

        def look():
            seen.append(client.get(f"/api/games/{self.id}?player={self.player}&key={self.key}").json())
            return until(seen[-1])

        waiting.until(look, timeout, every=0.05, fail=False)
        return seen[-1]

    def post(self, client, action, **body):
        """POST `action` for this seat, at the game's version now unless `body` names one."""
        body.setdefault("version", self.view(client)["version"])
        return client.post(f"/api/games/{self.id}/{action}?key={self.key}", json={"player": self.player, **body})


def my_turn_or_over(v):
    return v["over"] or bool(v["legal"]) or bool(v["error"])


def play_to_the_end(client, seat, pick=lambda legal: legal[-1], most=None):
    """The seat's `pick` at each of its turns until the game ends, or `most` moves: the
    last view, and the moves made."""
    moves = 0
    while True:
        v = seat.view(client, my_turn_or_over)
        assert not v["error"], v["error"]
        if v["over"] or moves == most:
            return v, moves
        # at the version of the view that offered the move (nobody else moves on one's turn)
        answer = seat.post(client, "move", move=pick(v["legal"])["move"], version=v["version"])
        assert answer.status_code == 200, answer.text
        moves += 1


def play_for(client, seat, moves):
    """The seat's first legal move, `moves` times (fewer if the game ends), then its
    resignation: the game over, its view."""
    v, _ = play_to_the_end(client, seat, pick=lambda legal: legal[0], most=moves)
    if not v["over"]:                                   # at its turn: no bot moves meanwhile
        answer = seat.post(client, "resign", version=v["version"])
        assert answer.status_code == 200, answer.text
    return seat.view(client)


@pytest.fixture
def client(tmp_path):
    with serving.client(create_app([tmp_path])) as c:
        yield c


def new(client, **body):
    """A new game; its answer, and its first person's seat."""
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    game = answer.json()
    return game, Seat(game["seats"][min(game["seats"])])


@pytest.mark.slow
def test_a_game_against_bots_to_its_end_saved_after_every_move(client, tmp_path):
    game, seat = new(client, players=3, seats=["human", "random", "greedy"], seed=4)
    path = tmp_path / "games" / game["file"].rsplit("/", 1)[-1]
    v, moves = play_to_the_end(client, seat, pick=lambda legal: legal[0])
    rec = json.loads(path.read_text())
    assert v["over"] and rec["result"] == v["result"] and rec["bots"] == ["human", "random", "greedy"]
    final = record.replay(rec)                                    # every move checked, the result too
    assert final.is_over and len(rec["moves"]) == v["moves"] and moves > 10
    assert sum(1 for m in rec["moves"] if m["player"] == 0) == moves


@pytest.mark.slow
def test_the_record_is_written_after_each_move_and_played_on_after_a_restart(tmp_path):
    with serving.client(create_app([tmp_path])) as client:
        game, seat = new(client, players=2, seats=["human", "random"], seed=2)
        for _ in range(3):
            v = seat.view(client, my_turn_or_over)
            seat.post(client, "move", move=v["legal"][0]["move"])
            v = seat.view(client, my_turn_or_over)
            saved = json.loads(next((tmp_path / "games").glob("*.json")).read_text())
            assert len(saved["moves"]) == v["moves"] and saved["result"] is None
    name = next((tmp_path / "games").glob("*.json")).name
    with serving.client(create_app([tmp_path])) as client:              # the server again
        answer = client.post("/api/resume", json={"page": f"/record/0/games/{name}"})
        assert answer.status_code == 201 and "?player=0&key=" in answer.json()["seats"]["0"]
        seat = Seat(answer.json()["seats"]["0"])
        assert seat.view(client)["moves"] == v["moves"]
        v, _ = play_to_the_end(client, seat)
        assert v["over"]
        finished = client.post("/api/resume", json={"page": f"/record/0/games/{name}"})
        assert finished.status_code == 400 and "nothing to resume" in finished.text


def test_a_seat_sees_its_own_hand_and_no_one_else_s(client):
    game, seat = new(client, players=3, seats=["human", "random", "human"], seed=9)
    v = seat.view(client, my_turn_or_over)
    hands = [p["hand"] for p in v["position"]["players"]]
    assert hands[0] is not None and hands[1] is None and hands[2] is None
    assert v["position"]["bag"] is None
    page = client.get(f"/play/{seat.id}?player=0&key={seat.key}").text
    data = json.loads(page.split('id="game-data">', 1)[1].split("</script>", 1)[0])
    assert all(step["pos"]["players"][p]["hand"] is None for step in data["steps"] for p in (1, 2))
    # No other seat is shown without its key: not a bot's, not another person's.
    other = Seat(game["seats"]["2"])
    for player, key, status, message in ((1, seat.key, 400, "is a bot"), (2, seat.key, 403, "not player 2's seat"),
                                         (2, "", 403, "not player 2's seat"),
                                         (0, other.key, 403, "not player 0's seat")):
        for path in (f"/api/games/{seat.id}?player={player}&key={key}",
                     f"/play/{seat.id}?player={player}&key={key}"):
            answer = client.get(path)
            assert answer.status_code == status and message in html.unescape(answer.text), path
    answer = client.post(f"/api/games/{seat.id}/move?key={seat.key}",
                         json={"player": 2, "move": "pass", "version": v["version"]})
    assert answer.status_code == 403 and "not player 2's seat" in answer.text
    assert client.get(f"/api/games/{seat.id}").status_code == 400


def test_the_others_swaps_are_shown_without_their_colours():
    assert public("swap red blue") == "swap 2 tiles" and public("swap black") == "swap 1 tile"
    assert public("tile red G5") == "tile red G5"
    g = tigris.Game(players=2, seed=1)
    g.apply("swap red")
    rec = record.to_record(g)
    mover = rec["moves"][0]["player"]
    assert view.replay_steps(rec, viewer=mover).moves[0]["text"] == "swap red"
    assert view.replay_steps(rec, viewer=1 - mover).moves[0]["text"] == "swap 1 tile"


def test_undo_goes_back_to_the_seat_s_previous_decision(client):
    game, seat = new(client, players=2, seats=["human", "random"], seed=3)
    v = seat.view(client, my_turn_or_over)
    assert not v["can_undo"]
    assert seat.post(client, "undo").status_code == 400
    for _ in range(3):
        v = seat.view(client, my_turn_or_over)
        seat.post(client, "move", move=v["legal"][0]["move"])
    v = seat.view(client, my_turn_or_over)
    last_own = max(e["n"] for e in v["events"] if e["player"] == 0)
    after = seat.post(client, "undo").json()
    assert after["moves"] == last_own - 1 and after["to_move"] == 0 and after["legal"]


def test_resigning_ends_the_game_with_the_seat_last(client, tmp_path):
    game, seat = new(client, players=3, seats=["human", "random", "random"], seed=5)
    seat.view(client, my_turn_or_over)
    v = seat.post(client, "resign").json()
    assert v["over"] and v["result"]["ranking"][-1] == [0] and v["result"]["resigned"] == 0
    rec = json.loads(next((tmp_path / "games").glob("*.json")).read_text())
    assert record.replay(rec).players == 3                        # the result checks out on replay
    rec["result"]["resigned"] = 7
    with pytest.raises(RecordError, match="resigned must be a player"):
        record.replay(rec)
    assert seat.post(client, "move", move="pass").status_code == 400


def test_undo_after_resigning_takes_back_the_resignation_alone(client, tmp_path):
    """Issue 42: undo after a resignation reopened the game and took back the move before
    it too.  It takes back the resignation alone: the game goes on from the same
    position, the moves before it kept, the record's result null again; only the player
    who resigned may, and a game whose record was shown stays over."""
    game, seat = new(client, players=2, seats=["human", "random"], seed=3)
    for _ in range(3):
        v = seat.view(client, my_turn_or_over)
        assert seat.post(client, "move", move=v["legal"][0]["move"]).status_code == 200
    before = seat.view(client, my_turn_or_over)
    path = tmp_path / "games" / record_name(game)
    kept = json.loads(path.read_text())["moves"]
    resigned = seat.post(client, "resign").json()
    assert resigned["over"] and resigned["can_undo"] and json.loads(path.read_text())["result"]["resigned"] == 0
    answer = seat.post(client, "undo")
    assert answer.status_code == 200, answer.text
    after = answer.json()
    assert not after["over"] and after["result"] is None and after["moves"] == before["moves"]
    assert after["position"] == before["position"] and after["legal"] == before["legal"]
    rec = json.loads(path.read_text())
    assert rec["moves"] == kept and rec["result"] is None
    assert seat.post(client, "move", move=after["legal"][0]["move"]).status_code == 200    # it goes on
    # a resignation whose record was shown since stays
    seat.view(client, my_turn_or_over)
    assert seat.post(client, "resign").status_code == 200
    assert client.get(f"/record/0/games/{record_name(game)}").status_code == 200
    answer = seat.post(client, "undo")
    assert answer.status_code == 400 and "over" in answer.json()["error"]


def test_only_the_player_who_resigned_takes_it_back(client):
    game, seat = new(client, players=2, seats=["human", "human"], seed=13)
    other = Seat(game["seats"]["1"])
    first, second = (seat, other) if seat.view(client)["to_move"] == 0 else (other, seat)
    assert first.post(client, "move", move=first.view(client)["legal"][0]["move"]).status_code == 200
    assert second.post(client, "resign").status_code == 200
    assert not first.view(client)["can_undo"] and first.post(client, "undo").status_code == 400
    assert second.view(client)["can_undo"] and second.post(client, "undo").status_code == 200
    assert not first.view(client)["over"]


def test_the_new_game_form_offers_the_levels_with_their_descriptions(client):
    """Issue 42: the bots level-1 .. level-6 are offered by name, each with its
    description, before the other bots.  Issue 55: each is named by its line for
    players (its strength and Elo, the file's summary), how it searches beside it."""
    from tigris import bots

    page = html.unescape(client.get("/play").text)
    seat1 = page.split('<select name="seat1">', 1)[1].split("</select>", 1)[0]
    levels = [f"level-{k}" for k in range(1, 7)]
    for name in levels + ["ismcts-fast", "random"]:
        conf = bots.configuration(name)
        about, summary = conf.description, conf.summary
        assert "Elo" in summary and "iterations" not in summary
        option = seat1.split(f'<option value="{name}" ', 1)[1].split("</option>", 1)[0]
        assert f'data-about="{about}"' in option and f'data-summary="{summary}"' in option
        assert option.split(">", 1)[1] == f"{name}: {summary}"
    assert [seat1.index(f'value="{name}"') for name in levels] == sorted(seat1.index(f'value="{name}"')
                                                                          for name in levels)
    assert seat1.index('value="level-6"') < seat1.index('value="greedy"')
    assert 'id="seat-about"' in page


def test_a_seat_s_view_brings_its_page_s_data_when_the_game_changed(client):
    """The page redraws in place: a move's answer holds the page's data (as its page
    embeds it), and so does a look with an older version drawn, never one with the
    version the page shows."""
    game, seat = new(client, players=2, seats=["human", "random"], seed=3)
    v = seat.view(client, my_turn_or_over)
    look = f"/api/games/{seat.id}?player=0&key={seat.key}"
    assert "data" not in client.get(look).json()
    assert "data" not in client.get(f"{look}&drawn={v['version']}").json()
    assert client.get(f"{look}&drawn=x").status_code == 400
    moved = seat.post(client, "move", move=v["legal"][0]["move"]).json()
    page = client.get(f"/play/{seat.id}?player=0&key={seat.key}").text
    embedded = json.loads(page.split('id="game-data">', 1)[1].split("</script>", 1)[0])
    drawn = json.loads(page.split('id="play-data">', 1)[1].split("</script>", 1)[0])["version"]
    if drawn == moved["version"]:                               # the bot has not moved yet
        assert moved["data"] == embedded
    assert len(moved["data"]["steps"]) == moved["moves"] + 1
    assert all(step["pos"]["players"][1]["hand"] is None for step in moved["data"]["steps"])
    later = client.get(f"{look}&drawn={v['version']}").json()
    assert later["data"]["moves"] and len(later["data"]["steps"]) == later["moves"] + 1


def test_a_bot_s_move_is_taken_in_without_a_page_asking(tmp_path):
    """A bot's move is taken in once it is made, and the next bot's started: with nobody
    looking at the game, a person's move is followed by both bots' turns, saved."""
    from tigris.web.jobs import Tasks
    from tigris.web.tables import Table

    tasks = Tasks(workers=1)
    table = Table.new(tmp_path, players=3, seats=["human", "random", "random"], seed=4, searches=tasks)
    try:
        moves = 0
        while table.game.current_player == 0:         # the person's turn: two actions
            table.move(0, table.game.legal_actions()[0], version=table.version)
            moves += 1
        waiting.until(lambda: table.game.current_player == 0 and table.job is None, 60,
                      what="both bots' turns, taken in unasked")
        with table.lock:              # the table's thread may be between a move and its save
            history = list(table.game.history)
            rec = json.loads(table.path.read_text())
        assert len(history) > moves + 2 and len({p for _, p, _, _ in history}) == 3
        assert len(rec["moves"]) == len(history)
    finally:
        table.close()
        tasks.close()


def test_a_page_s_data_made_a_move_at_a_time_is_the_whole_replay_s(tmp_path):
    """A seat's page data is made from the last one when the game went on (the new moves
    replayed alone), anew after an undo: at every version, for each seat, it is the data
    of the whole record replayed for that seat."""
    import random

    from tigris.web.tables import Table

    table = Table.new(tmp_path, players=3, seats=["human"] * 3, seed=11)
    rng = random.Random(2)
    try:
        for step in range(120):
            game = table.game
            if game.is_over:
                break
            player = game.current_player
            if step % 17 == 16 and table._can_undo(player):
                table.undo(player, version=table.version)
            else:
                table.move(player, rng.choice(game.legal_actions()), version=table.version)
            rec, version = table.page()
            for seat in range(3) if step % 5 == 0 else (player,):
                whole = view.game_data(rec, partial=True, replayed=view.replay_steps(rec, True, seat))
                assert table._page_data(rec, seat, version) == whole, (step, seat)
        assert step == 119 and max(len(kept[3].moves) for kept in table.drawn.values()) > 60
    finally:
        table.close()


@pytest.mark.parametrize("body, message", [
    ({"players": 5}, "players must be 2, 3 or 4"),
    ({"players": 2, "seats": ["human"]}, "one a player"),
    ({"players": 2, "seats": ["random", "random"]}, "at least one 'human'"),
    ({"players": 2, "seats": ["human", "cheat"]}, "reads the hidden tiles"),
    ({"players": 2, "seats": ["human", "nobody"]}, "unknown bot"),
    ({"players": 2, "seats": ["human", 3]}, "seats[1]"),
    ({"players": 2, "board": "round"}, "board"),
    ({"players": 2, "variants": ["fast"]}, "variant"),
    ({"players": 2, "colour": "red"}, "a new game is an object of"),
    ({"players": "2"}, "players must be 2, 3 or 4"),
    ({"players": 2, "seats": "human"}, "seats: a list"),
    ({"players": 2, "variants": "english"}, "variants: a list"),
    ({"players": 2, "seed": 10 ** 30}, "seed must be a whole number"),
    ({"players": 2, "seed": True}, "seed must be a whole number"),
])
def test_a_new_game_is_checked(client, body, message):
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 400 and message in answer.json()["error"]


def test_moves_out_of_turn_illegal_or_for_a_bot_are_refused(client):
    game, seat = new(client, players=2, seats=["human", "greedy"], seed=6)
    version = seat.view(client, my_turn_or_over)["version"]
    for body, message in (({"player": 1, "move": "pass"}, "is a bot"),
                          ({"player": 0, "move": "tile red Z1"}, "not a legal move"),
                          ({"player": 0, "move": "monument red-blue A1"}, "not a legal move"),
                          ({"player": 2, "move": "pass"}, "player must be a seat"),
                          ({"player": 0, "version": None}, "move: an object of"),
                          ({"player": 0, "move": 10 ** 9}, "not a legal move"),
                          ({"player": 0, "move": "pass", "version": "1"}, "version must be")):
        body = {"version": version, **body}
        answer = client.post(f"/api/games/{seat.id}/move?key={seat.key}", json=body)
        assert answer.status_code == 400 and message in answer.json()["error"], (body, answer.text)
    assert client.get("/api/games/nothing").status_code == 404
    assert client.get(f"/api/games/{seat.id}?player=x&key={seat.key}").status_code == 400


@pytest.mark.slow
def test_eight_games_at_once_with_their_hints(client):
    from concurrent.futures import ThreadPoolExecutor

    seats = [new(client, players=2 + k % 3, seats=["human"] + ["random"] * (1 + k % 3), seed=20 + k)[1]
             for k in range(8)]
    hints = []
    for seat in seats[:4]:                                # searches beside the games
        position = seat.view(client, my_turn_or_over)["position"]
        hints.append(client.post("/api/hint", json={"position": position, "seconds": 1}).json()["id"])
    with ThreadPoolExecutor(8) as pool:
        ends = list(pool.map(lambda seat: play_for(client, seat, 12), seats))
    assert all(v["over"] and v["result"] for v in ends)
    for key in hints:
        state = waiting.until(lambda: (s := client.get(f"/api/hint/{key}").json()["state"]) not in
                              ("waiting", "running") and s, what=f"hint {key} to end")
        assert state == "done"


def test_a_new_game_never_writes_over_a_saved_one(client, tmp_path):
    first, _ = new(client, players=2, seats=["human", "random"], seed=7)
    second, _ = new(client, players=2, seats=["human", "random"], seed=7)
    assert first["file"] != second["file"]
    saved = sorted((tmp_path / "games").glob("*.json"))
    assert len(saved) == 2 and all(json.loads(p.read_text())["seed"] == 7 for p in saved)


# ---------------------------------------------------------------------------------------
# A table's record out of reach: one table a game, a version a write, a save undone
# ---------------------------------------------------------------------------------------

def record_name(game):
    return game["file"].rsplit("/", 1)[-1]


def test_a_game_under_way_is_not_shown_whole(client):
    game, seat = new(client, players=2, seats=["human", "random"], seed=11)
    page = f"/record/0/games/{record_name(game)}"
    seat.view(client, my_turn_or_over)
    answer = client.get(page)
    assert answer.status_code == 409 and "played at a table" in answer.text and '"hand"' not in answer.text
    answer = client.post("/api/analysis", json={"page": page, "iterations": 10})
    assert answer.status_code == 409 and "played at a table" in answer.json()["error"]
    assert all(job.future is not None for job in client.app.state.tasks._tasks.values())   # bots' moves only
    front = client.get("/").text
    assert "(at a table of this server)" in front and f'href="{page}"' not in front
    v = seat.post(client, "resign").json()
    assert v["over"] and v["can_undo"]                           # the resignation may be taken back...
    assert client.get(page).status_code == 200                   # over: the record, every hand
    assert not seat.view(client)["can_undo"]                     # ... until the record was shown
    assert seat.post(client, "undo").status_code == 400            # and it stays over


def test_a_game_is_held_by_one_table(client, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    game, seat = new(client, players=2, seats=["human", "random"], seed=12)
    page = {"page": f"/record/0/games/{record_name(game)}"}
    answer = client.post("/api/resume", json=page)
    assert answer.status_code == 409 and "at a table" in answer.json()["error"]
    assert len(client.app.state.tables) == 1
    # a game saved, played on from two pages at once: one table
    g = tigris.Game(players=2, seed=3)
    g.apply(g.legal_actions()[0])
    (tmp_path / "saved.json").write_text(json.dumps(record.to_record(g, bots=["human", "human"])))
    with ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(lambda _: client.post("/api/resume", json={"page": "/record/0/saved.json"}).status_code,
                              range(6)))
    assert sorted(codes) == [201] + [409] * 5, codes
    assert len(client.app.state.tables) == 2


def test_a_move_made_at_an_old_version_is_refused(client, tmp_path):
    game, seat = new(client, players=2, seats=["human", "human"], seed=13)
    other = Seat(game["seats"]["1"])
    first = seat if seat.view(client)["to_move"] == 0 else other
    v = first.view(client)
    assert first.post(client, "move", move=v["legal"][0]["move"], version=v["version"]).status_code == 200
    path = tmp_path / "games" / record_name(game)
    saved = path.read_text()
    for action, body in (("move", {"move": v["legal"][1]["move"]}), ("undo", {}), ("resign", {})):
        answer = first.post(client, action, version=v["version"], **body)         # the page saw the old state
        assert answer.status_code == 409 and "moved on" in answer.json()["error"], action
    assert path.read_text() == saved and first.view(client)["version"] == v["version"] + 1
    play = client.get("/assets/play.js").text
    assert "version: state.version" in play and "e.status === 409" in play


def test_every_seat_of_a_game_played_on_goes_on(tmp_path):
    with serving.client(create_app([tmp_path])) as client:
        game, seat = new(client, players=2, seats=["human", "human"], seed=14)
        seats = {s.player: s for s in (Seat(link) for link in game["seats"].values())}
        for _ in range(4):
            v = seats[0].view(client)
            mover = seats[v["to_move"]]
            assert mover.post(client, "move", move=mover.view(client)["legal"][0]["move"]).status_code == 200
    with serving.client(create_app([tmp_path])) as client:                # the server again
        answer = client.post("/api/resume", json={"page": f"/record/0/games/{record_name(game)}"})
        assert answer.status_code == 201
        seats = {s.player: s for s in (Seat(link) for link in answer.json()["seats"].values())}
        assert set(seats) == {0, 1}
        moved = {0: 0, 1: 0}
        while min(moved.values()) < 3:                                  # both seats play on
            v = seats[0].view(client)
            assert not v["over"]
            mover = seats[v["to_move"]]
            answer = mover.post(client, "move", move=mover.view(client)["legal"][0]["move"])
            assert answer.status_code == 200, answer.text
            moved[mover.player] += 1
        rec = json.loads((tmp_path / "games" / record_name(game)).read_text())
        assert len(record.replay(rec).history) == v["moves"] + 1


def test_a_game_refused_at_the_table_limit_writes_nothing_and_starts_nothing(client, tmp_path, monkeypatch):
    from tigris.web import served

    monkeypatch.setattr(served, "MAX_TABLES", 2)
    for seed in (1, 2):
        new(client, players=2, seats=["random", "human"], seed=seed)
    searches = client.app.state.tasks
    jobs = len(searches._tasks)
    answer = client.post("/api/games", json={"players": 2, "seats": ["random", "human"], "seed": 3})
    assert answer.status_code == 400 and "already holds 2 games" in answer.json()["error"]
    assert len(list((tmp_path / "games").glob("*.json"))) == 2 and len(searches._tasks) == jobs
    g = tigris.Game(players=2, seed=3)
    (tmp_path / "saved.json").write_text(json.dumps(record.to_record(g, bots=["random", "human"])))
    assert client.post("/api/resume", json={"page": "/record/0/saved.json"}).status_code == 400
    assert len(searches._tasks) == jobs and len(client.app.state.tables) == 2


def full_disk(monkeypatch, when=lambda rec: True):
    """Every record written from now on (`when` it holds) fails as on a full disk."""
    import errno

    from tigris import files

    write_text = files.write_text

    def no_space(path, text, encoding="utf-8"):
        if when(json.loads(text)):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return write_text(path, text, encoding)

    monkeypatch.setattr(files, "write_text", no_space)


def test_a_move_that_cannot_be_saved_is_taken_back(client, tmp_path, monkeypatch):
    game, seat = new(client, players=2, seats=["human", "random"], seed=15)
    path = tmp_path / "games" / record_name(game)
    v = seat.view(client, my_turn_or_over)
    saved = path.read_text()
    with monkeypatch.context() as m:
        full_disk(m)
        for action, body in (("move", {"move": v["legal"][0]["move"]}), ("resign", {})):
            answer = seat.post(client, action, **body)
            assert answer.status_code == 507, answer.text
            assert "could not be saved (No space left on device) and is taken back" in answer.json()["error"]
        after = seat.view(client)
        assert (after["moves"], after["version"], after["over"]) == (v["moves"], v["version"], False)
        assert path.read_text() == saved
        assert json.loads(saved)["moves"] == record.to_record(
            client.app.state.tables[seat.id].game)["moves"]              # the record and the game agree
        answer = client.post("/api/games", json={"players": 2, "seats": ["human", "random"], "seed": 16})
        assert answer.status_code == 507 and len(list(path.parent.glob("*.json"))) == 1
    # the disk has room again: the same move is made and saved
    assert seat.post(client, "move", move=v["legal"][0]["move"]).status_code == 200
    assert len(json.loads(path.read_text())["moves"]) > v["moves"]


def test_a_bot_s_move_that_cannot_be_saved_is_searched_again(client, tmp_path, monkeypatch):
    game, seat = new(client, players=2, seats=["human", "random"], seed=17)
    path = tmp_path / "games" / record_name(game)
    with monkeypatch.context() as m:
        full_disk(m, when=lambda rec: rec["moves"] and rec["moves"][-1]["player"] == 1)   # the bot's
        v = seat.view(client, my_turn_or_over)
        while not v["error"]:
            assert seat.post(client, "move", move=v["legal"][0]["move"]).status_code == 200
            v = seat.view(client, lambda view: my_turn_or_over(view) or view["thinking"])
            # the bot's move is taken in once made, and searched again at the next look
            # when it could not be saved: the page sees the error as the bot thinks again
            v = seat.view(client, lambda view: view["error"] or (my_turn_or_over(view) and not view["thinking"]))
        assert "the bot's move could not be saved" in v["error"]
        rec = json.loads(path.read_text())
        assert len(rec["moves"]) == v["moves"] and rec["moves"][-1]["player"] == 0
    v = seat.view(client, lambda view: my_turn_or_over(view) and not view["error"])
    assert not v["error"] and v["to_move"] == 0
    rec = json.loads(path.read_text())
    assert len(rec["moves"]) == v["moves"] and rec["moves"][-1]["player"] == 1



def test_a_bot_whose_worker_is_killed_moves_again_and_the_table_goes_on(client):
    """A worker of the bots' moves killed (SIGKILL: by hand, or for want of memory) breaks
    the pool the moves share: the bot's next move is made in a new pool, and the table
    goes on (twice over)."""
    import psutil

    game, seat = new(client, players=2, seats=["human", "random"], seed=3)
    mine, kills, bot_moves_at_kill = 0, 0, None
    while kills < 2 or seat.view(client)["moves"] - mine <= bot_moves_at_kill:
        v = seat.view(client, lambda view: view["over"] or view["legal"])
        assert not v["over"] and v["legal"], v            # the bot has moved: the table goes on
        bot_moves = v["moves"] - mine
        pool = client.app.state.tasks._pool
        if pool is not None and kills < 2 and bot_moves != bot_moves_at_kill:
            for worker in list(pool._processes.values()):   # the bot has moved: its pool is there
                psutil.Process(worker.pid).kill()
            kills, bot_moves_at_kill = kills + 1, bot_moves
        assert seat.post(client, "move", move=v["legal"][0]["move"]).status_code == 200
        mine += 1
