"""Each thing done once, in the layer that owns it: a run reads each bot file once (the
files they extend included), whatever checks its command, its spec and its runner make."""

from collections import Counter
from pathlib import Path

import pytest

from tigris import bots
from tigris._plumbing import tomlfile
from tigris.commands import main


@pytest.fixture
def reads(monkeypatch):
    """The TOML files read, by name, as ``tomlfile.read_toml`` reads them."""
    counted = Counter()
    read = tomlfile.read_source

    def counting(path, *args):
        counted[Path(path).name] += 1
        return read(path, *args)

    monkeypatch.setattr(tomlfile, "read_source", counting)
    return counted


@pytest.fixture
def tiny(tmp_path):
    """Two bot files in `tmp_path`: a tiny ISMCTS, and one extending it at fewer
    iterations."""
    (tmp_path / "tiny.toml").write_text('kind = "ismcts"\niterations = 8\nrollout_depth = 2\n')
    (tmp_path / "child.toml").write_text('extends = "tiny"\niterations = 4\n')
    return tmp_path


@pytest.mark.slow
def test_a_tournament_reads_each_bot_file_once(tiny, reads, capsys):
    spec = tiny / "spec.toml"
    spec.write_text(f'bots = ["{tiny / "child.toml"}", "{tiny / "tiny.toml"}", "random"]\ngames = 6\n')
    assert main(["tournament", str(spec), "--jobs", "1", "--out", str(tiny / "out")]) == 0
    assert reads == {"spec.toml": 1, "child.toml": 1, "tiny.toml": 1, "random.toml": 1}


def test_a_tournament_of_bots_named_on_the_command_line_reads_each_once(tiny, reads, capsys):
    assert main(["tournament", "--bots", str(tiny / "child.toml"), "greedy", "--games", "2",
                 "--jobs", "1", "--out", str(tiny / "out")]) == 0
    assert reads == {"child.toml": 1, "tiny.toml": 1, "greedy.toml": 1}


def test_a_match_reads_each_bot_file_once(tiny, reads, capsys):
    assert main(["match", str(tiny / "child.toml"), str(tiny / "tiny.toml"), "--max-games", "2",
                 "--jobs", "1"]) == 0
    assert reads == {"child.toml": 1, "tiny.toml": 1}


def test_a_tuning_run_reads_each_bot_file_once(tiny, reads, capsys):
    assert main(["tune", str(tiny / "child.toml"), "--param", "exploration=0.3:1.5",
                 "--opponent", "random", "--budget", "4", "--verify-games", "2", "--jobs", "1",
                 "--out", str(tiny / "tu")]) == 0
    # the tuned bot's file is read back once as it is written: it must load
    assert reads == {"child.toml": 1, "tiny.toml": 1, "random.toml": 1, "child-tuned.toml": 1}


def test_a_shelf_reads_a_file_once_for_every_bot_that_names_it(tiny, reads):
    shelf = bots.Shelf()
    first = shelf.configuration(tiny / "child.toml")
    assert shelf.configuration(tiny / "child.toml") is first
    assert shelf.configuration(tiny / "tiny.toml").params["iterations"] == 8
    assert reads == {"child.toml": 1, "tiny.toml": 1}
    # without a shelf, each configuration is a reading of its own: an edit is seen
    (tiny / "tiny.toml").write_text('kind = "ismcts"\niterations = 9\n')
    assert bots.configuration(tiny / "tiny.toml").params["iterations"] == 9
    assert shelf.configuration(tiny / "tiny.toml").params["iterations"] == 8


def test_a_search_bot_checks_its_knobs_and_looks_its_network_up_once(monkeypatch):
    """Issue 56: every tree of every decision checked the same knobs again and looked the
    network up again: a bot does both once (its network once per number of players)."""
    from tigris import knobs, network
    from tigris import search as searchlib
    import tigris

    checks, lookups = [], []
    check, path_of = knobs.search_config, network.path_of
    monkeypatch.setattr(searchlib, "search_config", lambda k: checks.append(1) or check(k))
    monkeypatch.setattr(network, "path_of", lambda *a: lookups.append(a) or path_of(*a))
    bot = bots.load("level-2", seed=4)                  # the network, 10 iterations a decision
    lookups.clear()
    for players in (2, 2, 3):
        g = tigris.Game(players=players, seed=players)
        for _ in range(4):
            g.apply(bot.choose(g))
    pimc = bots.make("pimc", iterations=40, determinizations=4, seed=1)
    g = tigris.Game(players=2, seed=1)
    for _ in range(3):
        g.apply(pimc.choose(g))
    assert len(checks) == 2                              # a bot each
    assert [a[1] for a in lookups] == [2, 3]             # a lookup per number of players


def test_a_browser_hint_is_checked_in_the_server_alone(monkeypatch, reads):
    """Issue 56: the server checked a hint's request and its worker checked it all again
    (the bot file read, its knobs, the budget): the worker now takes what the server
    checked and searches."""
    import queue

    import tigris
    from tigris import hints, knobs
    from tigris._plumbing import parallel
    from tigris.web import jobs

    args = []
    monkeypatch.setattr(jobs.Tasks, "_add", lambda self, task: args.append(task.args) or "k")
    g = tigris.Game(players=2, seed=3)
    jobs.Tasks().start(g.to_position(), 0.2, "level-2")
    assert reads == {"level-2.toml": 1, "ismcts-fast.toml": 1}
    checked, searchers = [], []
    monkeypatch.setattr(knobs, "check", lambda *a, **k: checked.append(a))
    monkeypatch.setattr(hints, "searcher", lambda *a: searchers.append(a))
    monkeypatch.setattr(parallel, "watch", lambda parent: None)
    messages = queue.Queue()
    jobs._search(*args[0], messages)
    while (message := messages.get())[0] == "progress":
        pass
    assert message[0] == "done" and message[1]["bot"] == "level-2", message
    assert reads == {"level-2.toml": 1, "ismcts-fast.toml": 1}           # not again
    assert checked == [] and searchers == []
