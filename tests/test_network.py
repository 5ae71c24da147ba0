"""The learned evaluation: its features (seen by the player to move, seats counted from
them), the weights file (written, read back, checked), the compiled forward pass held to
numpy's, the knob that puts it into the search, and the shipped network."""

import json
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest

import tigris
from tigris import _net, bots, knobs, network, search
from tigris.errors import UsageError
from tigris.search import Search

from helpers import random_game

SETUPS = [dict(players=n, board=b, variants=v) for n in (2, 3, 4) for b in ("classic", "advanced")
          for v in ((), ("english",), ("buildings",))]


def positions(count, seed=0, players=None):
    """`count` positions of random games over every setup (of `players`, if given), the
    game not over."""
    rng = random.Random(seed)
    setups = [s for s in SETUPS if players in (None, s["players"])]
    out = []
    while len(out) < count:
        setup = setups[len(out) % len(setups)]
        g = random_game(rng.getrandbits(30), rng.randrange(0, 200), **setup)
        if not g.is_over:
            out.append(g)
    return out


def random_arrays(h1=24, h2=12, seed=0, scale=0.3):
    rng = np.random.default_rng(seed)
    shapes = {"w_sparse": (network.N_SPARSE, h1), "w_dense": (network.N_DENSE, h1), "b1": (h1,),
              "w2": (h2, h1), "b2": (h2,), "w3": (network.N_OUTPUTS, h2), "b3": (network.N_OUTPUTS,)}
    return {k: rng.normal(0, scale, shape).astype(np.float32) for k, shape in shapes.items()}


@pytest.fixture(scope="module")
def net():
    return network.Network(random_arrays())


# ---------------------------------------------------------------------------
# Features
# ---------------------------------------------------------------------------

def test_features_are_in_range_and_each_on_once():
    for g in positions(120):
        active, dense = network.encode(g)
        assert active.dtype == np.int32 and dense.dtype == np.float32 and dense.shape == (network.N_DENSE,)
        assert len(set(active.tolist())) == len(active) and 0 < len(active) <= _net.MAX_ACTIVE
        assert ((0 <= active) & (active < network.N_SPARSE)).all()
        assert np.isfinite(dense).all() and np.abs(dense).max() < 50


def test_features_see_what_the_mover_sees_and_nothing_else():
    """The other players' hidden tiles (dealt otherwise, as a determinization deals them)
    leave the features as they are; the mover's own hand changes them."""
    for g in positions(60, seed=1):
        me = g.current_player
        for seed in (1, 2):
            other = g.determinize(me, seed)
            a, b = network.encode(g), network.encode(other)
            assert sorted(a[0].tolist()) == sorted(b[0].tolist()) and a[1].tolist() == b[1].tolist()
    g = positions(1, seed=2)[0]
    raw = g.raw_state()
    me = g.current_player
    hand = raw["hand"][me]
    c, d = [k for k in range(4) if hand[k] > 0][0], [k for k in range(4) if raw["bag"][k] > 0][0]
    if c != d:
        hand[c] -= 1
        hand[d] += 1
        raw["bag"][c] += 1
        raw["bag"][d] -= 1
        h = tigris.Game(players=g.players, seed=0, board=g.board)
        h.load_raw_state(raw)
        assert network.encode(h)[1].tolist() != network.encode(g)[1].tolist()


def rotated(g, k):
    """The same position with every player moved k seats on (player q sits at q + k)."""
    raw = g.raw_state()
    n = raw["players"]

    def seat(q):
        return (q + k) % n

    for key in ("leader", "hand", "swapped", "score", "treasures", "catastrophes"):
        raw[key] = [raw[key][(q - k) % n] for q in range(n)]
    squares = raw["squares"]
    for i, code in enumerate(squares):
        if code >= 16:
            q, c = (code - 16) // 4, (code - 16) % 4
            squares[i] = 16 + 4 * seat(q) + c
    for key in ("active", "c_attacker", "c_defender"):
        raw[key] = seat(raw[key])
    h = tigris.Game(players=n, seed=0, board=g.board, variants=g.variants)
    h.load_raw_state(raw)
    return h


def test_seats_rotate_consistently(net):
    """Moving every player k seats on gives the mover the same features, and the network
    the same chances, moved k seats on."""
    for g in positions(60, seed=3):
        n = g.players
        for k in range(1, n):
            h = rotated(g, k)
            assert h.current_player == (g.current_player + k) % n
            assert sorted(network.encode(h)[0].tolist()) == sorted(network.encode(g)[0].tolist())
            assert network.encode(h)[1].tolist() == network.encode(g)[1].tolist()
            cg, ch = net.evaluate(g)[0], net.evaluate(h)[0]
            assert [ch[(q + k) % n] for q in range(n)] == pytest.approx(cg, abs=1e-6)    # the rows summed in another order


# ---------------------------------------------------------------------------
# The forward pass
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_compiled_forward_pass_equals_numpy_on_1000_positions(net):
    worst = 0.0
    for g in positions(1000, seed=4):
        chances, scores = net.evaluate(g)
        ref_chances, ref_scores = net.forward(g)
        assert sum(chances) == pytest.approx(1, abs=1e-9) and len(chances) == g.players
        worst = max(worst, np.abs(np.subtract(chances, ref_chances)).max(),
                    np.abs(np.subtract(scores, ref_scores)).max() / 10)
    assert worst < 1e-4


@pytest.mark.parametrize("widths", [(1, 1), (16, 16), (65, 33)])
def test_any_widths_are_computed_alike(widths):
    """The compiled pass pads the layers to whole blocks of units: any width gives what
    numpy gives."""
    net = network.Network(random_arrays(*widths, seed=sum(widths)))
    assert net.widths == widths
    for g in positions(100, seed=widths[0]):
        chances, scores = net.evaluate(g)
        ref_chances, ref_scores = net.forward(g)
        assert np.allclose(chances, ref_chances, atol=1e-4) and np.allclose(scores, ref_scores, atol=1e-3)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_shipped_networks_equal_numpy_and_their_files_are_whole(players):
    shipped = network.load(players=players)
    assert shipped.path == network.SHIPPED[players]
    meta = shipped.meta
    assert meta["format"] in network.FORMATS and meta["feature_version"] == network.FEATURE_VERSION
    assert meta["positions"] > 0 and meta["held_out_positions"] > 0 and meta["data"]
    # its value trained on games of the count it serves, and calibrated for it on held-out
    # games (a policy trained on a frozen value says where that value came from)
    value = meta.get("value_from", meta)
    assert players in {source["players"] for source in value["data"]}
    for calibration in (meta["calibration"], value["calibration"]):
        for n, c in calibration.items():
            assert int(n) in (2, 3, 4) and 0 <= c["ece"] <= 1 and c["positions"] > 0
    assert str(players) in value["calibration"]
    assert shipped.has_policy and meta["policy_version"] == network.POLICY_VERSION
    for g in positions(100, seed=5, players=players):
        assert shipped.evaluate(g)[0] == pytest.approx(shipped.forward(g)[0], abs=1e-4)
    assert network.load(players=players) is shipped          # read once per process


def test_a_search_judges_by_the_network_of_its_number_of_players(monkeypatch):
    asked = []
    real = network.load
    monkeypatch.setattr(network, "load", lambda path=None, players=2: asked.append(players) or real(path, players))
    for players in (2, 3, 4):
        g = tigris.Game(players=players, seed=1)
        search.run(g, iterations=20, evaluator="net", rollout_depth=0)
        bots.make("greedy", evaluator="net").choose(g)
    assert set(asked) == {2, 3, 4}
    with pytest.raises(UsageError, match="players must be 2, 3 or 4"):
        network.load(players=5)


# ---------------------------------------------------------------------------
# The weights file
# ---------------------------------------------------------------------------

def test_a_network_saved_and_read_back_is_the_same(tmp_path, net):
    arrays = random_arrays(seed=7)
    path = tmp_path / "net.npz"
    network.save(path, arrays, {"note": "test"})
    back = network.load(path)
    assert back.meta["note"] == "test" and back.widths == (24, 12)
    g = positions(1, seed=6)[0]
    assert back.evaluate(g) == network.Network(arrays).evaluate(g)


def broken_files(tmp_path):
    good = random_arrays(seed=8)

    def write(name, arrays, meta=None, raw_meta=None):
        path = tmp_path / name
        data = dict(arrays)
        data["meta"] = np.frombuffer(raw_meta if raw_meta is not None else json.dumps(
            meta if meta is not None else {"format": network.FORMAT,
                                           "feature_version": network.FEATURE_VERSION}).encode(), dtype=np.uint8)
        with open(path, "wb") as f:
            np.savez(f, **data)
        return path

    nan = dict(good, b1=good["b1"].copy())
    nan["b1"][0] = np.nan
    yield write("nan.npz", nan), "not finite"
    yield write("shape.npz", dict(good, w2=good["w2"][:, :3])), "w2: shape"
    yield write("dtype.npz", dict(good, b3=good["b3"].astype(np.float64))), "float32"
    yield write("missing.npz", {k: v for k, v in good.items() if k != "w3"}), "missing w3"
    yield write("version.npz", good, {"format": network.FORMAT, "feature_version": 0}), "feature_version"
    yield write("format.npz", good, {"format": "other"}), "format"
    yield write("meta.npz", good, raw_meta=b"{not json"), "meta"
    text = tmp_path / "text.npz"
    text.write_text("hello")
    yield text, f"not a {network.FORMAT} file"
    torn = tmp_path / "torn.npz"
    network.save(torn, good, {})
    torn.write_bytes(torn.read_bytes()[:200])
    yield torn, f"not a {network.FORMAT} file"
    yield tmp_path, "not a file"
    yield tmp_path / "absent.npz", "cannot read"


def test_broken_weights_files_are_refused_by_name(tmp_path):
    for path, words in broken_files(tmp_path):
        with pytest.raises(UsageError) as e:
            network.load(path)
        assert words in str(e.value) and str(path) in str(e.value), path


def test_a_pickle_in_a_weights_file_is_never_loaded(tmp_path):
    path = tmp_path / "pickled.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("meta.npy", b"\x93NUMPY\x01\x00v\x00{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"
                   + b" " * 50 + b"\n" + b"cos\nsystem\n")
        for name in network.ARRAYS:
            z.writestr(f"{name}.npy", b"")
    with pytest.raises(UsageError, match=f"not a {network.FORMAT} file"):
        network.load(path)


# ---------------------------------------------------------------------------
# The knob
# ---------------------------------------------------------------------------

def test_the_evaluator_knob_is_checked():
    with pytest.raises(ValueError, match="evaluator must be one of heuristic, net"):
        knobs.check("ismcts", {"evaluator": "nnue"})
    with pytest.raises(ValueError, match="network must be a string"):
        knobs.check("greedy", {"network": 3})
    with pytest.raises(UsageError, match="absent.npz: cannot read"):
        bots.make("ismcts", iterations=10, evaluator="net", network="absent.npz").choose(tigris.Game(seed=1))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_network_knob_names_a_generation_a_file_or_the_default(players):
    """Empty: the default generation's file for the count; a generation's name: its own;
    anything with a folder or ending in .npz: that file."""
    line = "2p" if players == 2 else "3p4p"
    own = network.NETWORKS / f"gen1-{line}.npz"
    assert "gen1" in network.generations(players)
    assert network.path_of("gen1", players) == own == network.generation_file("gen1", players)
    assert network.from_knobs("net", "gen1", players).path == own
    default = network.default(players)
    assert default == {2: "gen2", 3: "gen1", 4: "gen1"}[players] == network.DEFAULT[line]
    assert network.path_of("", players) == network.NETWORKS / f"{default}-{line}.npz" == network.SHIPPED[players]
    assert network.from_knobs("net", default, players) is network.load(players=players)
    for path in ("nets/mine.npz", "mine.npz", "./gen1", "/abs/olute", "gen1.npz"):
        assert network.path_of(path, players) == Path(path)
    assert network.from_knobs("heuristic", "gen1", players) is None


@pytest.mark.parametrize("name", ["gen9", "mynet", "Gen1", "gen1 ", "..", "x" * 5000])
def test_a_generation_the_package_does_not_ship_is_refused_naming_those_it_does(name):
    with pytest.raises(UsageError) as e:
        network.path_of(name, 2)
    said = str(e.value)
    assert said.startswith(repr(name)[:10]) and "is not a shipped network generation (shipped: gen1, gen2)" in said
    assert "./NAME" in said and len(said) < 300 and "\n" not in said
    with pytest.raises(UsageError, match="not a shipped network generation"):
        bots.make("ismcts", iterations=5, evaluator="net", network=name)


def test_a_generation_is_shipped_by_its_files(tmp_path, monkeypatch):
    """A generation is in the folder with a file of one line or both; names are listed
    sorted, whatever else the folder holds (a folder in a file's place is none)."""
    monkeypatch.setattr(network, "NETWORKS", tmp_path)
    for name in ("b-2p.npz", "b-3p4p.npz", "a-2p.npz", "a-3p4p.npz", "half-2p.npz", "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "dir-2p.npz").mkdir()
    (tmp_path / "dir-3p4p.npz").mkdir()
    assert network.generations() == ["a", "b", "half"] and network.generations(3) == ["a", "b"]
    assert network.path_of("b", 4) == tmp_path / "b-3p4p.npz"
    assert network.path_of("half", 2) == tmp_path / "half-2p.npz"
    with pytest.raises(UsageError, match="the network generation half has no file for 3 players"):
        network.path_of("half", 3)
    with pytest.raises(UsageError, match="'dir' is not a shipped network generation \\(shipped: a, b, half\\)"):
        network.path_of("dir", 2)
    with pytest.raises(UsageError, match=f"'{network.default(2)}' is not a shipped network generation"):
        network.path_of("", 2)                  # the default's files gone: said, not a crash


def test_the_network_changes_what_the_search_backs_up():
    g = positions(1, seed=9)[0]
    s_h = Search(g, seed=1, rollout_depth=0)
    s_n = Search(g, seed=1, rollout_depth=0, evaluator="net")
    s_h.step(iterations=300)
    s_n.step(iterations=300)
    assert s_h.stats().children != s_n.stats().children
    # A leaf's value is the network's chance: the root's mean reward is one.
    root = s_n.stats().children
    assert all(0 <= ch.value <= 1 for ch in root)


def test_the_network_share_mixes_the_two_evaluations():
    """net_share 0 searches as the heuristic does; between 0 and 1 the tree differs from
    both."""
    g = positions(1, seed=12)[0]

    def children(**knobs):
        s = Search(g, seed=2, rollout_depth=3, **knobs)
        s.step(iterations=300)
        return s.stats().children

    heuristic = children()
    assert children(evaluator="net", net_share=0.0) == heuristic
    mixed, net = children(evaluator="net", net_share=0.3), children(evaluator="net")
    assert mixed != heuristic and mixed != net
    with pytest.raises(ValueError, match="net_share must be between 0 and 1"):
        knobs.check("ismcts", {"net_share": 1.5})


def test_the_mix_is_one_function_of_the_search_that_the_greedy_bot_calls(net):
    """leaf_rewards is the search's judgement of a rollout's end: the network's chances
    mixed with the evaluator's rewards by the share, a finished game's first place shared
    exactly; the greedy bot judges its moves by it."""
    from tigris._search import leaf_rewards
    from tigris.evaluator import Evaluator

    evaluator = Evaluator()
    for g in positions(5, seed=13):
        own, chances = evaluator.rewards(g), net.evaluate(g, raw=True)[0]    # the search's
        assert leaf_rewards(g, evaluator.weights, None, 0.5) == own
        assert leaf_rewards(g, evaluator.weights, net, 1.0) == list(chances)
        assert leaf_rewards(g, evaluator.weights, net, 0.3) == [0.3 * c + 0.7 * r for c, r in zip(chances, own)]
    over = random_game(5, 100_000, players=3)
    assert over.is_over
    winners = over.ranking()[0]
    assert leaf_rewards(over, evaluator.weights, net, 0.5) == [1 / len(winners) if p in winners else 0.0
                                                               for p in range(3)]
    bot = bots.make("greedy", seed=1, evaluator="net", net_share=0.3)
    g = positions(1, seed=14)[0]
    assert bot.value(g, 1) == leaf_rewards(g, bot.evaluator.weights, bot._network(2), 0.3)[1]


def test_greedy_and_pimc_play_with_the_network():
    g = positions(1, seed=10)[0]
    for kind, params in (("greedy", {}), ("pimc", {"iterations": 100, "determinizations": 2})):
        bot = bots.make(kind, seed=1, evaluator="net", **params)
        assert g.is_legal(bot.choose(g))
        assert bot.params["evaluator"] == "net"


def test_evaluations_are_timed_for_the_benchmark(net):
    g = positions(1, seed=11)[0]
    assert _net.time_evaluations(net, g, 100) > 0 and _net.time_evaluations(None, g, 100) > 0
    with pytest.raises(ValueError, match="count"):
        _net.time_evaluations(net, g, 0)


def test_a_generation_may_ship_one_line_and_each_line_has_its_default(tmp_path, monkeypatch):
    """The 2-player networks and the 3-and-4-player ones improve apart: a generation of
    one line only is shipped for its counts, named for the others in one line."""
    import shutil

    folder = tmp_path / "networks"
    shutil.copytree(network.NETWORKS, folder)
    shutil.copy(folder / "gen1-2p.npz", folder / "gen2-2p.npz")
    monkeypatch.setattr(network, "NETWORKS", folder)
    monkeypatch.setattr(network, "DEFAULT", {"2p": "gen2", "3p4p": "gen1"})
    assert network.generations() == ["gen1", "gen2"] and network.generations(3) == ["gen1"]
    assert network.path_of("", 2) == folder / "gen2-2p.npz"
    assert network.path_of("", 4) == folder / "gen1-3p4p.npz"
    with pytest.raises(tigris.errors.UsageError, match="the network generation gen2 has no file for "
                                                       r"3 players \(its generations for 3: gen1\)"):
        network.path_of("gen2", 3)
