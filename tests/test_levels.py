"""The levels to play against stay put: each names the network generation it plays with,
so a new default network changes none of their moves, while a bot that follows the
default (an empty ``network``) moves with it."""

import shutil
import tomllib
from pathlib import Path

import pytest

import tigris
from tigris import bots, network

from test_policy import policy_arrays

ROOT = Path(__file__).resolve().parent.parent
#: The bots whose play is fixed: the levels that search, and ismcts-fast as 2.0 shipped it.
PINNED = ("level-2", "level-3", "level-4", "level-5", "level-6", "ismcts-fast-2.0", "ismcts-fast-gen1")
NEW = "gen3"                 # a generation after the shipped ones


def new_default(tmp_path, monkeypatch):
    """Make the package as shipping a new default does: the shipped generations' files
    beside a new one, NEW (random weights, a policy head), in the networks folder, and
    DEFAULT and SHIPPED naming it."""
    folder = tmp_path / "networks"
    shutil.copytree(network.NETWORKS, folder)
    monkeypatch.setattr(network, "NETWORKS", folder)
    shipped = network.generations()
    for players in (2, 3):
        network.save(network.generation_file(NEW, players), policy_arrays(seed=players, scale=1.0), {})
    monkeypatch.setattr(network, "DEFAULT", {"2p": NEW, "3p4p": NEW})
    monkeypatch.setattr(network, "SHIPPED", {n: network.generation_file(NEW, n) for n in (2, 3, 4)})
    assert NEW not in shipped and network.generations() == shipped + [NEW]


def moves(name, players, decisions, seed=7, **knobs):
    """The first `decisions` moves of a seeded game whose every seat is the bot `name`."""
    g = tigris.Game(players=players, seed=seed)
    seats = [bots.load(name, seed=seed * 10 + i, **knobs) for i in range(players)]
    played = []
    for _ in range(decisions):
        action = seats[g.current_player].choose(g)
        played.append(action)
        g.apply(action)
    return played


@pytest.mark.parametrize("name, players, decisions", [
    *((name, 2, 12) for name in PINNED if name != "level-6"),
    ("level-6", 2, 5),                      # 3,000 iterations a move
    ("level-3", 3, 12),                     # the 3-and-4-player network
])
def test_a_level_plays_the_same_moves_when_the_default_network_changes(
        tmp_path, monkeypatch, name, players, decisions):
    before = moves(name, players, decisions)
    new_default(tmp_path, monkeypatch)
    assert moves(name, players, decisions) == before
    # the same bot following the default moves with it: the comparison can fail
    assert moves(name, players, decisions, network="") != before


def test_a_bot_that_follows_the_default_network_moves_with_it(tmp_path, monkeypatch):
    assert bots.describe("ismcts-fast")[1]["network"] == ""
    before, default = moves("ismcts-fast", 2, 12), network.default(2)
    new_default(tmp_path, monkeypatch)
    assert moves("ismcts-fast", 2, 12) != before
    assert moves("ismcts-fast", 2, 12, network=default) == before


@pytest.mark.parametrize("players", [2, 3])
def test_ismcts_fast_gen1_is_ismcts_fast_with_gen1(players):
    """The bot kept when gen2 became the 2-player default: ismcts-fast's knobs with gen1,
    so with 3 and 4 players (whose default is still gen1) it plays as ismcts-fast does,
    and with 2 as ismcts-fast played before gen2."""
    assert network.default(2) != "gen1" and network.default(3) == "gen1"
    kept = moves("ismcts-fast-gen1", players, 12)
    assert kept == moves("ismcts-fast", players, 12, network="gen1")
    assert (kept == moves("ismcts-fast", players, 12)) == (players == 3)


@pytest.mark.parametrize("name", [f"level-{k}" for k in range(1, 7)] + ["ismcts-fast-2.0", "ismcts-fast-gen1"])
def test_every_level_names_its_network_or_reads_none(name):
    """A level reads no network (greedy judging by the heuristic) or names a shipped
    generation, never the default (an empty network), which a new one replaces; its
    description says which."""
    data = tomllib.loads((ROOT / "bots" / f"{name}.toml").read_text(encoding="utf-8"))
    params = bots.describe(name)[1]
    if params.get("evaluator") != "net":
        assert name == "level-1" and "network" not in data
        return
    assert data["network"] in network.generations()
    assert data["network"] in data["description"]
