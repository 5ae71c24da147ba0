"""Bot configuration (DESIGN.md "Search" knobs, "Public API" bots): ``bots.make``,
``bots.load``, the shipped bot files, overrides, clear errors, and root-parallel workers."""

import json
import math
import os
import random
import re
import signal
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import tigris
from tigris.knobs import default_weights
from tigris import bots
from tigris import knobs
from tigris._plumbing import tomlfile
from tigris.commands import main
from tigris.errors import ConfigError
from tigris.bots import search
from tigris.search import ChildStats, RootStats

from helpers import game, hand, legal, play
from processes import interrupt, python

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "bots").glob("*.toml"))
SEARCH_KEYS = ("iterations", "seconds", "exploration", "rollout", "epsilon", "rollout_depth",
               "final", "workers", "seed")


@pytest.fixture
def in_repo(monkeypatch):
    """Named bots are looked up in ./bots first: run from the repository root."""
    monkeypatch.chdir(ROOT)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------
# bots.make
# ---------------------------------------------------------------------------

def test_make_every_kind():
    for kind in ("random", "greedy", "ismcts", "pimc", "cheat"):
        bot = bots.make(kind, seed=4)
        assert bot.kind == kind and bot.name == kind
        assert bot.params["seed"] == 4
        g = tigris.Game(players=2, seed=1)
        if kind in ("ismcts", "pimc", "cheat"):
            bot = bots.make(kind, iterations=50, seed=4)
        assert bot.choose(g) in g.legal_actions()


def test_make_defaults_and_design_knobs():
    bot = bots.make("ismcts", iterations=1000, exploration=0.7, seed=1)
    for key in SEARCH_KEYS:
        assert key in bot.params, key
    assert bot.params["iterations"] == 1000 and bot.params["exploration"] == 0.7
    assert bot.params["rollout"] in ("random", "greedy")
    assert bot.params["final"] in ("visits", "value")
    assert bots.make("pimc").params["determinizations"] >= 1
    assert bots.make("ismcts", exploration=1).params["exploration"] == 1.0     # ints for floats
    assert isinstance(bots.make("ismcts", exploration=1).params["exploration"], float)
    assert bots.make("ismcts", name="mine").name == "mine"


def test_make_with_seconds_instead_of_iterations():
    bot = bots.make("ismcts", seconds=0.05, seed=1)
    assert bot.params["iterations"] is None and bot.params["seconds"] == 0.05
    g = tigris.Game(players=2, seed=3)
    assert bot.choose(g) in g.legal_actions()
    assert bot.last.iterations > 0
    assert sum(ch.visits for ch in bot.last.children) == bot.last.iterations


def test_make_unknown_key_lists_the_valid_keys():
    with pytest.raises(ValueError) as e:
        bots.make("ismcts", iteratons=100)
    msg = str(e.value)
    assert "iteratons" in msg and "valid keys" in msg
    for key in SEARCH_KEYS:
        assert key in msg, key
    with pytest.raises(ValueError, match="determinizations"):
        bots.make("ismcts", determinizations=4)        # a pimc knob
    with pytest.raises(ValueError, match="valid keys: seed"):
        bots.make("greedy", iterations=10)


def test_make_unknown_kind_lists_the_kinds():
    with pytest.raises(ValueError) as e:
        bots.make("mcts", iterations=10)
    msg = str(e.value)
    assert "mcts" in msg
    for kind in ("random", "greedy", "ismcts", "pimc", "cheat"):
        assert kind in msg


@pytest.mark.parametrize("key,value,words", [
    ("iterations", -5, ["iterations", "-5", ">= 1"]),
    ("iterations", 0, ["iterations", ">= 1"]),
    ("iterations", "100", ["iterations", "whole number", "'100'"]),
    ("iterations", 10.5, ["iterations", "whole number", "10.5"]),
    ("iterations", True, ["iterations", "True"]),
    ("seconds", 0, ["seconds", "> 0"]),
    ("seconds", -1.0, ["seconds"]),
    ("seconds", "5", ["seconds", "a number"]),
    ("exploration", -0.1, ["exploration", ">= 0"]),
    ("exploration", "high", ["exploration", "a number", "'high'"]),
    ("rollout", "foo", ["rollout", "random", "greedy", "'foo'"]),
    ("rollout", 1, ["rollout", "string"]),
    ("epsilon", 2, ["epsilon", "between 0 and 1", "2"]),
    ("epsilon", -0.5, ["epsilon"]),
    ("rollout_depth", -2, ["rollout_depth", ">= -1"]),
    ("rollout_depth", 2.5, ["rollout_depth", "whole number"]),
    ("final", "best", ["final", "visits", "value", "'best'"]),
    ("workers", 0, ["workers", ">= 1"]),
    ("widening", -1.0, ["widening"]),
    ("root", "gumbel", ["root", "ucb", "halving", "'gumbel'"]),
    ("candidates", 0, ["candidates", ">= 1"]),
    ("candidates", 2.0, ["candidates", "whole number"]),
    ("halving_scale", -0.5, ["halving_scale", ">= 0"]),
    ("seed", "1", ["seed", "whole number"]),
    ("random_share", 1.5, ["random_share", "between 0 and 1", "1.5"]),
    ("random_share", "half", ["random_share", "a number", "'half'"]),
    ("margin_share", -0.1, ["margin_share", "between 0 and 1"]),
    ("margin_scale", 0, ["margin_scale", ">= 0.1"]),
])
def test_make_bad_values_give_clear_errors(key, value, words):
    with pytest.raises(ValueError) as e:
        bots.make("ismcts", **{key: value})
    msg = str(e.value)
    assert msg.startswith("bots.make('ismcts')"), msg
    for w in words:
        assert w in msg, (w, msg)


NAN, INF, HUGE = math.nan, math.inf, 10 ** 400

# Not finite, or beyond what the search holds (node ids and visit counts are int32, the
# rollout depth a C int), or more trees per decision than MAX_TREES.
OUT_OF_REACH = [
    ("exploration", NAN), ("exploration", INF), ("exploration", -INF), ("exploration", HUGE),
    ("epsilon", NAN), ("epsilon", INF), ("widening", NAN), ("widening", INF), ("widening", HUGE),
    ("seconds", NAN), ("seconds", INF), ("seconds", HUGE),
    ("iterations", 2 ** 31 - 1), ("iterations", 2 ** 63), ("iterations", HUGE),
    ("rollout_depth", 2 ** 31), ("rollout_depth", HUGE),
    ("workers", knobs.MAX_TREES + 1), ("workers", 2 ** 63), ("workers", knobs.MAX_WORKERS + 1),
    ("seed", 2 ** 64), ("seed", -2 ** 63 - 1), ("seed", HUGE),
]


def knob_id(case):
    key, value = case
    return f"{key}={'10**400' if value is HUGE else repr(value)}"


@pytest.mark.parametrize("kind", ["ismcts", "pimc", "cheat"])
@pytest.mark.parametrize("key,value", OUT_OF_REACH, ids=map(knob_id, OUT_OF_REACH))
def test_make_refuses_knobs_out_of_reach(kind, key, value):
    with pytest.raises(ValueError) as e:
        bots.make(kind, **{key: value})
    msg = str(e.value)
    assert msg.startswith(f"bots.make({kind!r}): {key} must be"), msg
    assert len(msg) < 160, msg                      # a huge value is quoted by its size


def test_workers_are_bounded_by_the_machines_cores(tmp_path, capsys):
    # Each worker is a process searching at once: 1,024 of them (16 measured: 18
    # processes, 774 MB) only share this machine's cores.
    cores = os.cpu_count() or 1
    assert knobs.MAX_WORKERS == cores
    with pytest.raises(ValueError, match=rf"workers must be at most {cores}, this machine's cores"):
        bots.make("ismcts", workers=cores + 1)
    path = tmp_path / "many.toml"
    path.write_text(f'kind = "ismcts"\nworkers = {cores + 1}\n')
    assert main(["play", "--bots", str(path), "random"]) == 1
    err = capsys.readouterr().err.strip()
    assert f"many.toml: workers must be at most {cores}" in err and "\n" not in err
    # a bot's settings read back (a results folder made on a bigger machine) are not
    assert knobs.check("ismcts", {"workers": cores + 1}, here=False)["workers"] == cores + 1


def test_a_network_without_the_net_evaluator_is_refused_naming_both_knobs(tmp_path, capsys):
    # It was ignored without a word: the bot played with the hand-written evaluation.
    path = tmp_path / "mine.toml"
    path.write_text('kind = "ismcts"\nnetwork = "my-network.npz"\n')
    assert main(["play", "--bots", str(path), "random"]) == 1
    err = capsys.readouterr().err.strip()
    assert ("mine.toml: network 'my-network.npz' is read only with evaluator = \"net\" (here "
            "'heuristic')") in err and "\n" not in err
    with pytest.raises(ValueError, match="network 'x.npz' is read only with evaluator"):
        bots.make("greedy", network="x.npz")
    assert bots.make("greedy", network="", evaluator="heuristic").params["network"] == ""


def test_make_accepts_the_limits():
    bot = bots.make("ismcts", iterations=2 ** 31 - 2, rollout_depth=2 ** 31 - 1, workers=knobs.MAX_WORKERS,
                    exploration=1e300, widening=1e300, seed=2 ** 64 - 1)
    assert bot.params["iterations"] == 2 ** 31 - 2
    assert bots.make("pimc", determinizations=knobs.MAX_TREES).params["determinizations"] == 1024
    for seed in (-2 ** 63, 2 ** 64 - 1):
        g = tigris.Game(players=2, seed=1)
        assert bots.make("ismcts", iterations=30, seed=seed).choose(g) in g.legal_actions()
        assert bots.make("greedy", seed=seed).choose(g) in g.legal_actions()
    with pytest.raises(ValueError, match="determinizations must be <= 1024"):
        bots.make("pimc", determinizations=1025)
    for kind in ("random", "greedy"):
        with pytest.raises(ValueError, match="seed must be <= 18446744073709551615"):
            bots.make(kind, seed=2 ** 64)


@pytest.mark.parametrize("text,key", [
    ("exploration = nan", "exploration"), ("exploration = inf", "exploration"),
    ("epsilon = -nan", "epsilon"), ("widening = +inf", "widening"), ("seconds = inf", "seconds"),
    ("seconds = nan", "seconds"), ("iterations = 99999999999999999999", "iterations"),
    ("rollout_depth = 3000000000", "rollout_depth"), ("workers = 5000", "workers"),
    ("seed = 99999999999999999999", "seed"),
])
def test_bot_file_with_a_value_out_of_reach_names_file_and_key(tmp_path, text, key):
    for kind in ("ismcts", "pimc"):
        path = write(tmp_path, f"{kind}.toml", f'kind = "{kind}"\n{text}\n')
        with pytest.raises(ValueError) as e:
            bots.load(path)
        assert str(e.value).startswith(f"{path}: {key} must be"), str(e.value)
    path = write(tmp_path, "many.toml", 'kind = "pimc"\ndeterminizations = 100000\n')
    with pytest.raises(ValueError, match="determinizations must be <= 1024"):
        bots.load(path)


def test_load_refuses_overrides_out_of_reach(in_repo):
    for key, value in OUT_OF_REACH:
        with pytest.raises(ValueError) as e:
            bots.load("ismcts-fast", **{key: value})
        assert f"{key} must be" in str(e.value) and "ismcts-fast.toml" in str(e.value), str(e.value)


def test_search_workers_start_with_ctrl_c_held_back():
    """Workers leave SIGINT to their parent, which stops them (a worker interrupted while
    it starts would print a traceback); the parent's own signal mask is as it was.  In a
    child process, so that no pool started earlier is reused."""
    r = python("""
import json, signal
from joblib import delayed
from tigris._plumbing.parallel import run
def mask(_):
    return sorted(map(int, signal.pthread_sigmask(signal.SIG_BLOCK, [])))
print(json.dumps([run(2, [delayed(mask)(k) for k in range(2)]), mask(None)]))
""")
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads(r.stdout) == [[[signal.SIGINT], [signal.SIGINT]], []], r.stdout


def test_ctrl_c_stops_a_bot_with_two_workers():
    """A terminal's Ctrl-C reaches the workers too: the choice stops at once, without a
    traceback from any process, and no worker outlives it."""
    code = """
import sys, tigris
from tigris import bots
bot = bots.make("ismcts", seconds=600, workers=2, seed=1)
g = tigris.Game(players=2, seed=1)
try:
    # inside the try, whole (one write): the Ctrl-C may come as soon as it is seen
    sys.stdout.write("searching\\n")
    sys.stdout.flush()
    bot.choose(g)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""
    for delay in (0.0, 1.0):                # while the workers start, and while they search
        status, out, err, left = interrupt(["-c", code], "searching", delay=delay, timeout=15)
        assert status == 130, (status, out, err[-3000:])
        assert out.split() == ["searching", "interrupted"] and err == "", (out, err[-3000:])
        assert left == []


def test_make_bad_pimc_and_simple_values():
    with pytest.raises(ValueError, match="determinizations must be >= 1"):
        bots.make("pimc", determinizations=0)
    with pytest.raises(ValueError, match="determinizations must be a whole number"):
        bots.make("pimc", determinizations="8")
    with pytest.raises(ValueError, match="seed must be a whole number"):
        bots.make("random", seed=1.5)


def test_make_needs_a_budget():
    with pytest.raises(ValueError, match="iterations must be a whole number .*give seconds.*not None"):
        bots.make("ismcts", iterations=None)


def test_load_with_seconds_override_searches_by_time(in_repo):
    assert bots.make("ismcts", seconds=0.5).params["iterations"] is None
    bot = bots.load("ismcts-fast", seconds=0.5)
    assert bot.params["seconds"] == 0.5
    assert bot.params["iterations"] is None


# ---------------------------------------------------------------------------
# bots.load, bot files
# ---------------------------------------------------------------------------

def test_shipped_bot_files_exist():
    names = {p.stem for p in SHIPPED}
    assert {"random", "greedy", "ismcts-fast", "ismcts-strong", "pimc", "cheat"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_every_shipped_bot_file_loads(path):
    with open(path, "rb") as f:
        data = tomllib.load(f)
    given = {k: v for k, v in data.items() if k not in ("kind", "extends", "description", "summary")}
    if "extends" in data:                 # its knobs over those of the one it extends
        with open(path.parent / f"{data['extends']}.toml", "rb") as f:
            base = tomllib.load(f)
        assert "extends" not in base and data.get("kind", base["kind"]) == base["kind"]
        data = {"kind": base["kind"], **data}
        given = {**{k: v for k, v in base.items() if k not in knobs.META}, **given}
    if data["kind"] == "openspiel":
        pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    bot = bots.load(path)
    assert bot.kind == data["kind"]
    assert bot.name == path.stem
    for key, value in given.items():
        assert bot.params[key] == value, key
    c = bots.configuration(path)
    assert c.kind == data["kind"] and c.description == data.get("description", "")
    assert c.summary == data["summary"] and c.description       # a line for players, one on its search
    assert c.params == bot.params and c.name == path.stem
    assert c.given == given and c.extends == data.get("extends", "")
    assert bot.honest is (data["kind"] != "cheat")


def test_each_level_tells_players_its_measured_elo():
    """Issue 55: the seats' descriptions were written for engineers; each level's
    summary gives its Elo over random as docs/results.md's ladder measured it."""
    page = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    ladder = page[page.index("## Levels to play against"):]
    rows = re.findall(r"^\| `(level-\d)` \|.*\| ([^|]+) \|$", ladder, flags=re.M)
    assert [name for name, _ in rows] == [f"level-{k}" for k in range(1, 7)]
    for name, elo in rows:
        summary = bots.configuration(name).summary
        assert re.search(rf"{re.escape(elo.strip())}( Elo)? over random", summary), (name, summary)


@pytest.mark.parametrize("text", ["12", "true", "[1, 2]", "{a = 1}"])
def test_a_summary_or_a_description_that_is_no_text_is_refused(tmp_path, text):
    """Not taken as it is (a page escaping a number failed on it): the file and the key."""
    for key in ("summary", "description"):
        path = tmp_path / f"{key}.toml"
        path.write_text(f'kind = "random"\n{key} = {text}\n', encoding="utf-8")
        with pytest.raises(ConfigError, match=f"{key}.toml: {key} must be a string"):
            bots.configuration(path)


def test_load_by_name(in_repo):
    assert set(p.stem for p in SHIPPED) <= set(bots.available())
    for path in SHIPPED:
        bot = bots.load(path.stem)
        assert bot.name == path.stem
        assert bot.params == bots.load(path).params
    kind, params, description = bots.describe("cheat")
    assert kind == "cheat" and "NOT A REAL PLAYER" in description


def test_load_unknown_name_lists_the_known_bots(in_repo):
    with pytest.raises(ValueError) as e:
        bots.load("ismcts-turbo")
    msg = str(e.value)
    assert "ismcts-turbo" in msg and "known bots" in msg
    for path in SHIPPED:
        assert path.stem in msg, path.stem


def test_load_missing_file():
    with pytest.raises(ValueError, match="does not exist"):
        bots.load("no/such/bot.toml")


def test_a_folder_named_as_a_bot_file_is_said_to_be_one(tmp_path):
    (tmp_path / "bot.toml").mkdir()
    with pytest.raises(ValueError, match=r"is not a regular file \(a folder\)"):
        bots.load(tmp_path / "bot.toml")


def test_load_with_overrides(in_repo):
    bot = bots.load("ismcts-fast", seed=3)
    base = bots.load("ismcts-fast")
    assert bot.params["seed"] == 3
    assert {k: v for k, v in bot.params.items() if k != "seed"} == \
           {k: v for k, v in base.params.items() if k != "seed"}
    assert bot.name == "ismcts-fast"
    bot = bots.load("ismcts-fast", iterations=50, rollout="random")
    assert bot.params["iterations"] == 50 and bot.params["rollout"] == "random"
    bot = bots.load("ismcts-fast", seconds=0.5)      # seconds instead of the file's iterations
    assert bot.params["seconds"] == 0.5
    with pytest.raises(ValueError, match="iteratons"):
        bots.load("ismcts-fast", iteratons=5)
    with pytest.raises(ValueError, match="epsilon"):
        bots.load("ismcts-fast", epsilon=2)
    with pytest.raises(ValueError, match="valid keys: seed"):
        bots.load("greedy", iterations=5)


def test_overridden_seed_changes_the_search(in_repo):
    g = tigris.Game(players=2, seed=2)
    a = bots.load("ismcts-fast", iterations=200, seed=3)
    b = bots.load("ismcts-fast", iterations=200, seed=3)
    c = bots.load("ismcts-fast", iterations=200, seed=4)
    for bot in (a, b, c):
        bot.choose(g)
    assert a.last == b.last
    assert c.last.children != a.last.children


def test_bot_file_with_a_bad_key_names_the_file(tmp_path):
    path = write(tmp_path, "mybot.toml", 'kind = "ismcts"\niteratons = 100\n')
    with pytest.raises(ValueError) as e:
        bots.load(path)
    msg = str(e.value)
    assert str(path) in msg and "iteratons" in msg and "valid keys" in msg


@pytest.mark.parametrize("text,words", [
    ('kind = "ismcts"\niterations = -5\n', ["iterations", "-5"]),
    ('kind = "ismcts"\nrollout = "foo"\n', ["rollout", "foo"]),
    ('kind = "ismcts"\nepsilon = 2\n', ["epsilon"]),
    ('kind = "ismcts"\niterations = "many"\n', ["iterations", "many"]),
    ('kind = "pimc"\ndeterminizations = 0\n', ["determinizations"]),
    ('kind = "greedy"\nrandom_share = -0.5\n', ["random_share", "-0.5"]),
    ('kind = "random"\nrandom_share = 0.5\n', ["random_share", "random bot"]),
    ('iterations = 100\n', ["kind"]),
    ('kind = "alphazero"\n', ["alphazero", "ismcts"]),
    ('kind = "ismcts"\niterations = \n', ["TOML"]),
])
def test_bot_file_with_a_bad_value_names_the_file(tmp_path, text, words):
    path = write(tmp_path, "broken.toml", text)
    with pytest.raises(ValueError) as e:
        bots.load(path)
    msg = str(e.value)
    assert str(path) in msg, msg
    for w in words:
        assert w in msg, (w, msg)


def test_bot_file_by_path_with_overrides(tmp_path):
    path = write(tmp_path, "quick.toml",
                 'kind = "pimc"\ndescription = "a quick one"\niterations = 80\n'
                 'determinizations = 4\nseed = 1\n')
    bot = bots.load(path, seed=9)
    assert bot.kind == "pimc" and bot.name == "quick"
    assert bot.params["iterations"] == 80 and bot.params["determinizations"] == 4
    assert bot.params["seed"] == 9
    with pytest.raises(ValueError) as e:
        bots.load(path, determinizations=-1)
    assert str(path) in str(e.value)


def test_knobs_reach_the_search():
    """A bot's knobs are those its trees are grown with."""
    bot = bots.make("ismcts", iterations=120, exploration=1.3, rollout="random", epsilon=0.5,
                    rollout_depth=-1, final="value", widening=0.0, candidates=5, seed=2, eval_leader=0.6)
    assert bot.options == {"exploration": 1.3, "rollout": "random", "epsilon": 0.5,
                           "rollout_depth": -1, "final": "value", "widening": 0.0, "root": "ucb",
                           "candidates": 5, "halving_scale": 0.1, **default_weights(), "eval_leader": 0.6,
                            "evaluator": "heuristic", "network": "", "net_share": 1.0,
                            "root_lookahead": 0.0, "priors": "heuristic", "policy_visits": 1,
                            "policy_exploration": 0.0, "margin_share": 0.0, "margin_scale": 10.0}
    g = tigris.Game(players=2, seed=5)
    bot.choose(g)
    assert bot.last.iterations == 120
    assert len(bot.last.children) == min(120, len(g.legal_actions()))    # no widening


# ---------------------------------------------------------------------------
# Root parallelism (joblib)
# ---------------------------------------------------------------------------

def test_merged_trees_pool_how_each_move_stood_at_each_halving():
    """Two halving trees merged: a move's records of each halving pooled as the moves
    are (visits added, chances visit-weighted), the halvings in order."""
    g = tigris.Game(players=2, seed=8)
    bot = bots.make("ismcts", iterations=1200, root="halving", candidates=8, seed=5)
    view = g.determinize(g.current_player, 1)
    trees = [search._grow(view, bot.config, bot.network(view.players), 1200, None, True, s) for s in (3, 4)]
    merged = search.merge(trees)
    assert any(ch.halvings for ch in merged.children)
    for m in merged.children:
        parts = [h for t in trees for ch in t.children if ch.action == m.action for h in ch.halvings]
        assert [r.halving for r in m.halvings] == sorted({h.halving for h in parts})
        for record in m.halvings:
            same = [h for h in parts if h.halving == record.halving]
            assert record.visits == sum(h.visits for h in same)
            assert record.mean[0] == pytest.approx(sum(h.mean[0] * h.visits for h in same)
                                                      / record.visits)
            squares = sum((h.spread ** 2 + h.mean[0] ** 2) * h.visits for h in same) / record.visits
            assert record.spread == pytest.approx(math.sqrt(max(squares - record.mean[0] ** 2, 0)), abs=1e-9)


def test_two_workers_merge_their_trees():
    g = tigris.Game(players=2, seed=8)
    bot = bots.make("ismcts", iterations=400, workers=2, seed=5)
    choice = bot.choose(g)
    assert choice in g.legal_actions()
    merged = bot.last
    assert merged.iterations == 400                      # 200 per worker
    assert sum(ch.visits for ch in merged.children) == 400
    assert merged.player == 0
    for ch in merged.children:
        assert ch.visits <= ch.avail <= 400
    # The merge is exactly that of the two workers' trees, grown from the same view with
    # the seeds the bot draws.
    rng = random.Random(5)
    view = g.determinize(g.current_player, rng.getrandbits(63))
    seeds = [rng.getrandbits(63) for _ in range(2)]
    trees = [search._grow(view, bot.config, bot.network(view.players), 200, None, True, s) for s in seeds]
    assert [t.iterations for t in trees] == [200, 200]
    expected = search.merge(trees)
    assert [(c.action, c.visits, c.avail) for c in merged.children] == \
           [(c.action, c.visits, c.avail) for c in expected.children]
    for got, want in zip(merged.children, expected.children):
        assert got.value == pytest.approx(want.value)
    # Each child's mean chances are visit-weighted, its spread pooled over both trees'
    # visits, its rounds the most either gave; the line's visits go with the line.
    for m in merged.children:
        parts = [ch for t in trees for ch in t.children if ch.action == m.action]
        n = sum(ch.visits for ch in parts)
        mean = sum(ch.mean[0] * ch.visits for ch in parts) / n
        squares = sum((ch.spread ** 2 + ch.mean[0] ** 2) * ch.visits for ch in parts) / n
        assert m.mean[0] == pytest.approx(mean)
        assert m.spread == pytest.approx(math.sqrt(max(squares - mean ** 2, 0.0)), abs=1e-9)
        assert m.rounds == max(ch.rounds for ch in parts)
        assert len(m.pv_visits) == len(m.pv) + 1
    assert merged.rounds == max(t.rounds for t in trees)
    by_action = {}
    for t in trees:
        for ch in t.children:
            by_action[ch.action] = by_action.get(ch.action, 0) + ch.visits
    assert {c.action: c.visits for c in merged.children} == by_action
    # reproducible with a fixed seed even in parallel
    again = bots.make("ismcts", iterations=400, workers=2, seed=5)
    assert again.choose(g) == choice and again.last == merged


def test_pimc_iterations_are_shared_by_the_determinizations():
    g = tigris.Game(players=2, seed=9)
    bot = bots.make("pimc", iterations=240, determinizations=4, seed=1)
    choice = bot.choose(g)
    assert bot.last.iterations == 240
    assert sum(ch.visits for ch in bot.last.children) == 240
    assert sum(ch.votes for ch in bot.last.children) == 4
    assert choice == bot.last.children[0].action
    assert bot.last.children[0].votes == max(ch.votes for ch in bot.last.children)


def test_merge_weights_values_and_chances_by_visits():
    a = RootStats(iterations=10, nodes=5, player=1, children=(
        ChildStats(action=7, visits=6, avail=10, value=1.0, chances=(0.0, 1.0), error=0.03, margin=4.0,
                   margin_error=0.3),
        ChildStats(action=8, visits=4, avail=9, value=0.0, chances=(1.0, 0.0), error=0.1, margin=-2.0,
                   margin_error=1.0)))
    b = RootStats(iterations=10, nodes=6, player=1, children=(
        ChildStats(action=7, visits=2, avail=10, value=0.0, chances=(1.0, 0.0), error=0.04, margin=-4.0,
                   margin_error=0.4),
        ChildStats(action=9, visits=8, avail=10, value=0.5, chances=(0.5, 0.5), error=0.02, margin=1.5,
                   margin_error=0.2, line=1, pv=((1, 0),))))
    m = search.merge([a, b])
    assert m.iterations == 20 and m.nodes == 11 and m.player == 1
    got = {c.action: (c.visits, c.avail, c.value, c.chances) for c in m.children}
    assert got == {7: (8, 20, 0.75, (0.25, 0.75)), 8: (4, 9, 0.0, (1.0, 0.0)),
                   9: (8, 10, 0.5, (0.5, 0.5))}
    assert [c.action for c in m.children] == [7, 9, 8]
    # The errors of a visit-weighted mean of independent estimates: (6/8)^2 0.03^2 + (2/8)^2 0.04^2.
    errors = {c.action: c.error for c in m.children}
    assert errors[7] == pytest.approx((0.75 ** 2 * 0.03 ** 2 + 0.25 ** 2 * 0.04 ** 2) ** 0.5)
    assert errors[8] == pytest.approx(0.1) and errors[9] == pytest.approx(0.02)
    # The score margin likewise: (6 * 4 + 2 * -4) / 8, its error as the chance's.
    margins = {c.action: (c.margin, c.margin_error) for c in m.children}
    assert margins[7] == pytest.approx((2.0, (0.75 ** 2 * 0.3 ** 2 + 0.25 ** 2 * 0.4 ** 2) ** 0.5))
    assert margins[8] == pytest.approx((-2.0, 1.0)) and margins[9] == pytest.approx((1.5, 0.2))
    assert {c.action: c.line for c in m.children} == {7: 0, 8: 0, 9: 1}


def test_installed_package_brings_its_bots(tmp_path, monkeypatch):
    if not bots.PACKAGED.is_dir():
        pytest.skip("running from the source tree: the bot configurations are installed with the package")
    monkeypatch.chdir(tmp_path)                      # no ./bots here
    assert {"random", "greedy", "ismcts-fast", "pimc"} <= set(bots.available())
    assert bots.load("ismcts-fast").params["iterations"] == 1000


def test_shipped_searches_use_the_network_and_the_baseline_does_not():
    # The equal-time matches of docs/results.md ("A learned evaluation") compare
    # ismcts-fast and ismcts-strong with the network against the same searches with the
    # heuristic alone; ismcts-heuristic is ismcts-fast before the network (and the root's
    # one-ply ranking and wider halving that came with it), knob for knob.
    evaluator = {"evaluator", "net_share", "root_lookahead", "candidates", "priors", "policy_visits"}
    fast, heuristic = bots.describe("ismcts-fast")[1], bots.describe("ismcts-heuristic")[1]
    assert (fast["evaluator"], fast["net_share"], fast["network"]) == ("net", 0.5, "")
    assert (fast["priors"], heuristic["priors"]) == ("net", "heuristic")
    old = bots.describe("ismcts-fast-2.0")[1]             # ismcts-fast before the policy
    assert {k: v for k, v in old.items() if k not in ("priors", "policy_visits", "network")} == \
        {k: v for k, v in fast.items() if k not in ("priors", "policy_visits", "network")}
    assert old["priors"] == "heuristic" and old["network"] == "gen1"     # the network 2.0 shipped
    assert (fast["root_lookahead"], fast["candidates"]) == (30.0, 32)
    assert (heuristic["evaluator"], heuristic["net_share"], heuristic["root_lookahead"],
            heuristic["candidates"]) == ("heuristic", 1.0, 0.0, 16)
    assert {k: v for k, v in fast.items() if k not in evaluator} == \
        {k: v for k, v in heuristic.items() if k not in evaluator}
    strong = bots.describe("ismcts-strong")[1]
    assert (strong["evaluator"], strong["net_share"], strong["iterations"]) == ("net", 0.3, 10_000)
    from tigris.hints import DEFAULT_BOT
    from tigris.runs.selfplay import DEFAULT_BOT as SELFPLAY_BOT
    assert DEFAULT_BOT == "ismcts-hint"               # hints search with the network
    hint, opponent = bots.configuration(DEFAULT_BOT), bots.configuration(bots.DEFAULT)
    assert hint.extends == "ismcts-fast" == bots.DEFAULT
    # ... as the default opponent does, but with the hand-written priors at a node's first visits
    assert {k: v for k, v in hint.params.items() if v != opponent.params[k]} == {"policy_visits": 30}
    assert SELFPLAY_BOT == "ismcts-heuristic"         # a first generation needs none


# ---------------------------------------------------------------------------
# greedy's commitments in the English variant (R93-R94)
# ---------------------------------------------------------------------------

# test_variants.py's revolt: Lion's priest K5 (strength 1) against Bull's I5 (strength 2).
REVOLT = {"I5": "priest:1", "I4": "red", "H5": "red", "J5": "black", "K4": "red"}


def english_revolt(lion_red, bull_red):
    g = game(REVOLT, [hand(red=lion_red, black=6 - lion_red),
                      hand(red=bull_red, blue=6 - bull_red)], variants=["english"])
    play(g, "leader priest K5")
    return g


def test_greedy_defender_ties_when_the_tie_needs_several_tiles():
    g = english_revolt(3, 2)
    play(g, "support 3")                             # 4 : 2, Bull ties with exactly 2
    assert legal(g) == {"support 0", "support 2"}
    assert g.action_str(bots.make("greedy").choose(g)) == "support 2"


def test_greedy_attacker_commits_the_least_that_wins_when_counts_are_skipped():
    g = english_revolt(2, 2)                         # 1 + 2 > 2 is the only winning count
    assert legal(g) == {"support 0", "support 2"}
    assert g.action_str(bots.make("greedy").choose(g)) == "support 2"


def test_greedy_english_war_defender_ties():
    """Example 2's green war (test_variants.py): after Lion's 3, Bull ties with 2."""
    g = game({"E5": "red", "F5": "green", "E4": "king:0", "E6": "trader:0",
              "H5": "green", "I5": "green", "J5": "red", "J4": "king:1", "J6": "trader:1"},
             [hand(black=1, green=4, red=1), hand(green=2, red=3, blue=1)], variants=["english"])
    play(g, "tile black G5", "war green", "support 3")
    assert legal(g) == {"support 0", "support 2"}
    assert g.action_str(bots.make("greedy").choose(g)) == "support 2"


# ---------------------------------------------------------------------------
# The analysis: budget, progress and steps
# ---------------------------------------------------------------------------

def test_analysis_reports_progress_without_changing_it():
    g = tigris.Game(players=2, seed=8)
    calls = []
    plain = bots.make("ismcts", iterations=300, seed=5).root_statistics(g)
    watched = bots.make("ismcts", iterations=300, seed=5).root_statistics(
        g, progress=lambda *a: calls.append(a))
    assert watched == plain
    assert calls == [(0, 1, 0), (1, 1, 300)]
    # In steps, for a progress display: every step reported, the budget exact.
    calls.clear()
    stepped = bots.make("ismcts", iterations=300, seed=5).root_statistics(
        g, progress=lambda *a: calls.append(a), steps=7)
    assert stepped.iterations == 300
    assert [c[:2] for c in calls] == [(k, 7) for k in range(8)]
    assert [c[2] for c in calls] == [300 * k // 7 for k in range(8)]
    again = bots.make("ismcts", iterations=300, seed=5).root_statistics(g, steps=7)
    assert again == stepped                                   # reproducible in steps too


def test_analysis_budget_replaces_the_bots():
    g = tigris.Game(players=2, seed=8)
    bot = bots.make("ismcts", iterations=50, seed=5)
    assert bot.root_statistics(g).iterations == 50
    assert bot.root_statistics(g, iterations=120).iterations == 120
    timed = bots.make("ismcts", seconds=30.0, seed=5)
    assert timed.root_statistics(g, iterations=80).iterations == 80      # not 30 seconds


def test_pimc_and_workers_report_each_tree():
    g = tigris.Game(players=2, seed=9)
    calls = []
    bot = bots.make("pimc", iterations=240, determinizations=4, seed=1)
    stats = bot.root_statistics(g, progress=lambda *a: calls.append(a), steps=2)
    assert [c[:2] for c in calls] == [(k, 8) for k in range(9)] and calls[-1][2] == 240
    assert sum(ch.votes for ch in stats.children) == 4
    calls.clear()
    bot = bots.make("ismcts", iterations=301, workers=2, seed=5)
    assert bot.root_statistics(g, progress=lambda *a: calls.append(a), steps=5).iterations == 301
    assert calls == [(0, 2, 0), (1, 2, 151), (2, 2, 301)]      # a tree per worker, in one step


def test_a_bot_file_is_read_once(tmp_path, monkeypatch):
    path = write(tmp_path, "quick.toml", 'kind = "ismcts"\nseconds = 2.0\nworkers = 1\n')
    reads = []
    read = tomlfile.read_source
    monkeypatch.setattr(tomlfile, "read_source", lambda path, *a: reads.append(str(path)) or read(path, *a))
    bot = bots.load(path, iterations=40, seed=3)
    assert len(reads) == 1
    assert bot.params["iterations"] == 40 and bot.params["seconds"] is None


@pytest.mark.slow
@pytest.mark.parametrize("record", ["ismcts-fast-2.0-seed11-2p.json", "ismcts-fast-2.0-seed12-3p.json"])
def test_the_old_default_plays_its_games_move_for_move(record):
    """ismcts-fast-2.0 is ismcts-fast as version 2.0 shipped it: the games that version
    recorded (tigris play --bots ismcts-fast ... --seed S, by 2.0, which seeded the bot in
    seat i with S * 10 + i) come again, move for move, network and all."""
    from tigris.play.runner import play_out, record_of

    old = json.loads((Path(__file__).parent / "data" / record).read_text())
    n, seed = old["players"], old["seed"]
    g = tigris.Game(players=n, seed=seed)
    play_out(g, [bots.load("ismcts-fast-2.0", seed=seed * 10 + i) for i in range(n)])
    again = record_of(g, ["ismcts-fast-2.0"] * n)
    assert [m["move"] for m in again["moves"]] == [m["move"] for m in old["moves"]]
    assert again["result"] == old["result"]


def test_the_old_name_of_root_statistics_still_answers_with_a_warning():
    g = tigris.Game(players=2, seed=3)
    with pytest.warns(DeprecationWarning, match="root_statistics"):
        old = bots.make("ismcts", iterations=200, seed=5).analyse(g)
    assert old == bots.make("ismcts", iterations=200, seed=5).root_statistics(g)


@pytest.mark.parametrize("network, said", [
    ("/etc/passwd", "network: /etc/passwd: not a tigris-network/2 file"),
    ("/dev/zero", "network: /dev/zero: a device, not a file"),
    ("missing.npz", "network: missing.npz: cannot read the network"),
    ("gen9", "network: 'gen9' is not a shipped network generation"),
])
def test_a_bot_file_is_checked_whole_when_loaded_its_network_read(tmp_path, capsys, network, said):
    """A network that cannot be read refuses the bot as it is loaded, in one line naming
    the bot file: not as every game it plays fails."""
    path = write(tmp_path, "netbot.toml", f'kind = "ismcts"\niterations = 5\nevaluator = "net"\n'
                                          f'network = "{network}"\n')
    with pytest.raises(ConfigError, match=f"netbot.toml: {said}"):
        bots.load(path)
    assert main(["tournament", "--bots", str(path), "random", "--games", "2", "--jobs", "1",
                 "--out", str(tmp_path / "t")]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and said in err
    assert not (tmp_path / "t" / "games.jsonl").exists()


def test_a_bot_file_may_name_a_generation_whose_every_file_is_read(tmp_path, monkeypatch):
    """network = "gen1" is the shipped generation's files, one for each number of
    players, each read as the bot is loaded: priors = "net" needs the policy head in all."""
    import shutil

    from tigris import network

    import numpy as np

    path = write(tmp_path, "p.toml", 'kind = "ismcts"\niterations = 5\nevaluator = "net"\n'
                                     'priors = "net"\nnetwork = "gen1"\n')
    assert bots.load(path).params["network"] == "gen1"
    folder = tmp_path / "networks"
    shutil.copytree(network.NETWORKS, folder)
    monkeypatch.setattr(network, "NETWORKS", folder)
    with np.load(folder / "gen1-3p4p.npz") as z:            # the 3-and-4-player file's value alone
        kept = {name: z[name] for name in network.ARRAYS}
        meta = json.loads(z["meta"].tobytes())
    network.save(folder / "gen1-3p4p.npz", kept, {k: v for k, v in meta.items() if k != "policy_version"})
    with pytest.raises(ConfigError, match="p.toml: network 'gen1': priors = \"net\" needs a network with "
                                          "a policy head"):
        bots.load(path)
    (folder / "gen1-3p4p.npz").write_bytes(b"damaged")
    with pytest.raises(ConfigError, match="p.toml: network: .*gen1-3p4p.npz: not a tigris-network"):
        bots.load(path)


def test_a_network_without_a_policy_head_is_refused_for_priors_net(tmp_path):
    from tigris import network

    import numpy as np

    source = tmp_path / "value-only.npz"
    with np.load(network.SHIPPED[2]) as z:
        kept = {name: z[name] for name in network.ARRAYS}
        meta = json.loads(z["meta"].tobytes())
    network.save(source, kept, {k: v for k, v in meta.items() if k not in ("policy_version",)})
    path = write(tmp_path, "p.toml", f'kind = "ismcts"\niterations = 5\nevaluator = "net"\n'
                                     f'priors = "net"\nnetwork = "{source}"\n')
    with pytest.raises(ConfigError, match="priors = \"net\" needs a network with a policy head"):
        bots.load(path)


# ---------------------------------------------------------------------------
# random_share: a share of the decisions played at random
# ---------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(share=st.floats(0.0, 1.0), seed=st.integers(0, 2 ** 32), moves=st.integers(1, 30))
def test_random_share_plays_legal_moves_and_tells_which_were_random(share, seed, moves):
    g = tigris.Game(players=2, seed=seed % 997)
    bot = bots.make("greedy", random_share=share, seed=seed)
    assert bot.params["random_share"] == share
    for _ in range(moves):
        legal = g.legal_actions()
        action = bot.choose(g)
        assert action in legal
        if len(legal) == 1 or share == 0.0:
            assert not bot.last_random           # a forced decision is never drawn
        elif share == 1.0:
            assert bot.last_random
        g.apply(action)
        if g.is_over:
            break


def play_seat(bot, seed, decisions):
    """The moves `bot` plays for both seats of a game of `seed`, and which were random."""
    g = tigris.Game(players=2, seed=seed)
    moves = []
    for _ in range(decisions):
        moves.append((bot.choose(g), bot.last_random))
        g.apply(moves[-1][0])
    return moves


@pytest.mark.parametrize("kind", ["greedy", "ismcts"])
def test_random_share_draws_from_its_own_stream_of_the_seed(kind):
    budget = {"iterations": 30} if kind == "ismcts" else {}
    plain = play_seat(bots.make(kind, seed=4, **budget), 3, 40)
    # a share of 0 is the bot as it was; the same seed plays the same game again
    assert play_seat(bots.make(kind, seed=4, random_share=0.0, **budget), 3, 40) == plain
    half = play_seat(bots.make(kind, seed=4, random_share=0.5, **budget), 3, 40)
    assert half == play_seat(bots.make(kind, seed=4, random_share=0.5, **budget), 3, 40)
    drawn = sum(r for _, r in half)
    assert 8 <= drawn <= 32 and not all(r for _, r in half)
    # until the first random move the bot plays its own moves
    first = next(k for k, (_, r) in enumerate(half) if r)
    assert half[:first] == plain[:first]


def test_a_random_move_of_a_search_bot_is_not_searched():
    bot = bots.make("ismcts", iterations=30, seed=2, random_share=1.0)
    g = tigris.Game(players=2, seed=5)
    assert g.is_legal(bot.choose(g)) and bot.last_random and bot.last is None
    bot = bots.make("ismcts", iterations=30, seed=2)
    bot.choose(g)
    assert not bot.last_random and bot.last is not None
