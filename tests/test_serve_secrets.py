"""What a game at tigris serve keeps from its seats while it is live: a seat's bot reads
no file outside the served folders, its network checked when the seat is made."""

import shutil
from urllib.parse import parse_qs, urlparse

import pytest

from tigris import network

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import serving  # noqa: E402
import waiting  # noqa: E402
from tigris.web.app import create_app  # noqa: E402


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
    ("nets", "nets: a folder, not a file"),
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


@pytest.mark.parametrize("where", ["nets/mine.npz", "ABSOLUTE"])
def test_a_seat_s_own_network_in_the_served_folder_plays(served, where):
    net_bot(served, str(served / "nets" / "mine.npz") if where == "ABSOLUTE" else where)
    with serving.client(create_app([served])) as client:
        assert 'value="netbot"' in client.get("/play").text
        game = table(client, {"players": 2, "seats": ["netbot", "human"], "seed": 5})
        v = waiting.until(lambda: (s := view(client, game, 1).json())["moves"] >= 1 or s["error"], 60,
                          what="the bot's move")
        v = view(client, game, 1).json()
        assert not v["error"] and v["moves"] >= 1
