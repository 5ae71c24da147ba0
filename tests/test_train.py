"""tigris train: self-play data to a weights file the search plays with, end to end on a
tiny run; a stopped run continues; bad input named."""

import json
import signal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tigris
from tigris import network
from tigris.runs import selfplay
from tigris.commands import main
from tigris.errors import UsageError

from helpers import FAST_BOT, tiny_selfplay
from processes import command, interrupt

pytest.importorskip("torch", reason="training needs the train extra (PyTorch)")

from tigris.runs import train  # noqa: E402

FAST = FAST_BOT


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return tiny_selfplay(tmp_path_factory.mktemp("train"))


@pytest.mark.slow
def test_self_play_to_a_network_the_search_plays_with(data, tmp_path):
    d = train.dataset([data], result_every=5)
    assert len(d) > 24 and d.labelled.sum() == 24 and not d.labelled.all()
    assert (d.chance.sum(axis=1) == pytest.approx(1, abs=1e-5)) and (d.seats[:, :2] == 1).all()
    meta = train.fit(d, tmp_path / "net", hidden=(8, 4), epochs=1, progress=False, threads=1)
    assert meta["epochs"] == 1 and meta["positions"] == len(d) and meta["hidden"] == [8, 4]
    net = network.load(tmp_path / "net" / "network.npz")
    assert net.widths == (8, 4) and net.meta["calibration"]["2"]["positions"] > 0
    log = [json.loads(line) for line in (tmp_path / "net" / "log.jsonl").read_text().splitlines()]
    assert [e["epoch"] for e in log] == [1] and log[0]["held_out_chance"] > 0
    g = tigris.Game(players=2, seed=3)
    bot = tigris.bots.make("ismcts", iterations=50, evaluator="net",
                           network=str(tmp_path / "net" / "network.npz"), rollout_depth=0)
    assert g.is_legal(bot.choose(g))


def test_the_exported_network_is_the_trained_model(data, tmp_path):
    """The weights file computes what the PyTorch model computes."""
    import torch

    d = train.dataset([data])
    model = train._model(torch, (8, 4))
    arrays = train.arrays_of(model)
    rows = np.arange(len(d))
    with torch.no_grad():
        out = model(*train._batch(torch, d, rows)[:3]).numpy()
    for i in rows[:10]:
        logits, scores = network.forward(arrays, d.indices[d.indptr[i]:d.indptr[i + 1]], d.dense[i])
        assert logits == pytest.approx(out[i, :4], abs=1e-4)
        assert scores == pytest.approx(out[i, 4:] * network.SCORE_SCALE, abs=1e-3)


def policy_model(torch, seed):
    """A model with a policy head whose every weight counts (the biases and pattern
    weights, zeros at first, drawn too)."""
    torch.manual_seed(seed)
    model = train._model(torch, (8, 4), policy_width=4)
    with torch.no_grad():
        model.abias.weight.normal_(0.0, 0.5)
        model.pat.weight.normal_(0.0, 0.5)
    return model


def policy_batch(torch, d, count=6):
    rows = np.array([i for i in range(len(d)) if d.policy[i] is not None][:count])
    return rows, train._batch(torch, d, rows)


def test_the_trained_policy_is_the_weights_files(data):
    """The weights file's policy is the PyTorch model's, position by position."""
    import torch

    d = train.dataset([data])
    model = policy_model(torch, 5)
    rows, batch = policy_batch(torch, d)
    position, action, offsets, patterns, _, _ = batch[6]
    with torch.no_grad():
        logits = model.policy(model.trunk(*batch[:3]), position, action, offsets, patterns)
    net = network.Network(train.arrays_of(model))
    for j, i in enumerate(rows):
        here = position == j
        want = net.policy(d.positions[i])
        assert len(want) == int(here.sum()) > 1
        assert torch.softmax(logits[here], 0).numpy() == pytest.approx(
            [want[a] for a in action[here].tolist()], abs=1e-5)


def test_the_policy_s_gradients_are_those_of_the_embedding_modules(data):
    """The head gathers its weights by index_select and adds the patterns' up by
    index_add (quicker to train): the logits and every gradient are what PyTorch's
    embedding modules give."""
    import torch

    d = train.dataset([data])
    model = policy_model(torch, 6)
    _, batch = policy_batch(torch, d)
    position, action, offsets, patterns, target, count = batch[6]

    def loss_of(policy):
        model.zero_grad()
        logits = policy(model.trunk(*batch[:3]), position, action, offsets, patterns)
        segment = torch.unique_consecutive(position, return_inverse=True)[1]
        loss = -(target * train._segment_log_softmax(torch, logits, segment, count)).sum()
        loss.backward()
        return logits.detach(), {name: p.grad.clone() for name, p in model.named_parameters()
                                 if p.grad is not None}

    def by_modules(h, position, action, offsets, patterns):
        g = torch.relu(model.context(h))
        return (model.abias(action)[:, 0] + (model.emb(action) * g[position]).sum(dim=1)
                + model.pat(patterns, offsets)[:, 0])

    logits, grads = loss_of(model.policy)
    want_logits, want_grads = loss_of(by_modules)
    assert torch.allclose(logits, want_logits, atol=1e-5)
    assert grads.keys() == want_grads.keys() and {"pat.weight", "emb.weight", "sparse.weight"} <= grads.keys()
    for name in grads:
        assert torch.allclose(grads[name], want_grads[name], atol=1e-5), name
    assert grads["pat.weight"].abs().sum() > 0 and grads["emb.weight"].abs().sum() > 0


def test_the_games_train_alike_in_whatever_order_they_finished(data, tmp_path):
    """A folder's lines are in the order its games finished, which its workers' speed
    decides: the positions (and so the batches of every epoch) follow the game numbers."""
    shuffled = tmp_path / "shuffled"
    shuffled.mkdir()
    (shuffled / "selfplay.json").write_bytes((data / "selfplay.json").read_bytes())
    lines = (data / "positions.jsonl").read_text().splitlines(keepends=True)
    (shuffled / "positions.jsonl").write_text("".join(lines[::-1]))
    a, b = train.dataset([data]), train.dataset([shuffled])
    for name in ("indptr", "indices", "dense", "chance", "score", "game"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert [p[0].tolist() for p in a.policy] == [p[0].tolist() for p in b.policy]


def test_a_stopped_run_continues_and_another_is_refused(data, tmp_path):
    d = train.dataset([data])
    train.fit(d, tmp_path / "net", hidden=(8, 4), epochs=1, patience=5, progress=False, threads=1)
    meta = train.fit(d, tmp_path / "net", hidden=(8, 4), epochs=2, patience=5, progress=False, threads=1)
    assert meta["epochs"] == 2
    assert (tmp_path / "net" / "log.jsonl").read_text().count("\n") == 2
    with pytest.raises(UsageError, match="another run"):
        train.fit(d, tmp_path / "net", hidden=(6, 4), epochs=3, progress=False, threads=1)


# Enough positions for two batches an epoch, so that the order of the data matters.
KILLED_RUN = ["--hidden", "8", "4", "--result-every", "1", "--epochs", "6", "--patience", "6"]


def _outcome(out):
    """What a run in folder `out` made: its network's arrays and metadata, and its log's
    lines without the seconds (which differ from run to run)."""
    net = network.load(out / "network.npz")
    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    return net.named_arrays, net.meta, [{k: v for k, v in e.items() if k != "seconds"} for e in log]


def _same_run(a, b):
    (arrays_a, meta_a, log_a), (arrays_b, meta_b, log_b) = a, b
    assert log_a == log_b                                       # every loss, to the digit logged
    for name in arrays_a:
        assert np.abs(arrays_a[name] - arrays_b[name]).max() <= 1e-7, name
    for key in ("epochs", "best_epoch", "held_out_loss", "calibration"):
        assert meta_a[key] == meta_b[key], key


@pytest.mark.slow
def test_a_run_killed_and_continued_ends_as_an_uninterrupted_one(data, tmp_path):
    """kill -9 after the checkpoint of epoch 1, again (the continued run) after that of
    epoch 3, and the same command to the end: the network and every loss of the log are an
    uninterrupted run's (the same command, run in this process: one start of PyTorch
    fewer)."""
    def train_into(out):
        return ["-u", "-m", "tigris", "train", str(data), "--out", str(out), *KILLED_RUN]

    assert main(train_into(tmp_path / "whole")[3:]) == 0
    whole = _outcome(tmp_path / "whole")
    assert len(whole[2]) == 6
    for epoch in (1, 3):
        code, _, err, left = interrupt(train_into(tmp_path / "killed"), f"epoch {epoch}: held-out",
                                         delay=0, signum=signal.SIGKILL)
        assert code == -signal.SIGKILL and left == [], (code, err[-2000:])
        logged = (tmp_path / "killed" / "log.jsonl").read_text().count("\n")
        assert epoch <= logged < 6                   # killed mid-run, its checkpoint written
    done = command(train_into(tmp_path / "killed"))
    assert done.returncode == 0, done.stderr[-2000:]
    _same_run(_outcome(tmp_path / "killed"), whole)


class Stop(Exception):
    """The process ending there (a test's stand-in for kill -9)."""


@pytest.fixture(scope="module")
def two_batches(data):
    """The positions of `data` with every decision's (``--result-every 1``): two batches
    of training positions, so that the order of the data matters."""
    return train.dataset([data], result_every=1)


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_run_stopped_around_its_checkpoint_ends_as_an_uninterrupted_one(two_batches, tmp_path, monkeypatch,
                                                                          when):
    """A run stopped just before the checkpoint of epoch 2 is written, or just after it
    (before the log and the weights are), continues to the uninterrupted run's log and
    network."""
    d = two_batches
    run = {"hidden": (8, 4), "epochs": 3, "patience": 3, "progress": False, "threads": 1}
    train.fit(d, tmp_path / "whole", **run)
    write, written = train.write_bytes, []

    def stopping(path, data):
        if path.name == "checkpoint.pt":
            written.append(path)
            if len(written) == 2:
                if when == "after":
                    write(path, data)
                raise Stop
        return write(path, data)

    monkeypatch.setattr(train, "write_bytes", stopping)
    with pytest.raises(Stop):
        train.fit(d, tmp_path / "stopped", **run)
    monkeypatch.undo()
    train.fit(d, tmp_path / "stopped", **run)
    _same_run(_outcome(tmp_path / "stopped"), _outcome(tmp_path / "whole"))


@pytest.fixture(scope="module")
def positions(data):
    """The positions of `data`, encoded."""
    return train.dataset([data])


@pytest.fixture(scope="module")
def checkpoint(positions, tmp_path_factory):
    """A run's checkpoint after one epoch, as ``torch.load`` gives it, and the options
    that continue it."""
    import torch

    out = tmp_path_factory.mktemp("checkpoint")
    train.fit(positions, out, hidden=(8, 4), epochs=1, progress=False, threads=1)
    return torch.load(out / "checkpoint.pt", weights_only=True), ["--hidden", "8", "4", "--epochs", "2"]


@pytest.mark.slow
@given(damage=st.data())
@settings(max_examples=40, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_a_checkpoint_cut_or_flipped_anywhere_is_refused_in_one_line_or_continues(positions, checkpoint,
                                                                                   tmp_path_factory, damage):
    """A checkpoint cut short, or with a bit flipped (in its zip records and pickled
    structure, at either end, or anywhere: mostly in a tensor's bytes), is refused in one
    line naming the file, or continues when the flip left it a valid checkpoint of this
    run; nothing else (no other exception, crash or hang)."""
    import io

    import torch

    saved, _ = checkpoint
    buffer = io.BytesIO()
    torch.save(saved, buffer)
    good = buffer.getvalue()
    end = damage.draw(st.sampled_from(["start", "end", "anywhere"]))
    at = damage.draw(st.integers(0, 4095) if end == "start" else st.integers(len(good) - 4096, len(good) - 1)
                     if end == "end" else st.integers(0, len(good) - 1))
    if damage.draw(st.booleans()):
        damaged = good[:at]
    else:
        damaged = bytearray(good)
        damaged[at] ^= 1 << damage.draw(st.integers(0, 7))
        damaged = bytes(damaged)
    out = tmp_path_factory.mktemp("damaged")
    (out / "checkpoint.pt").write_bytes(damaged)
    try:
        train.fit(positions, out, hidden=(8, 4), epochs=2, progress=False, threads=1)
    except UsageError as e:
        assert str(e).startswith(str(out / "checkpoint.pt")) and "\n" not in str(e), str(e)


class Shell:
    """Unpickled, it runs a command: what a weights-only load must refuse."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        import os

        return os.system, (self.command,)


def _poison(saved, marker):
    """Ways to damage a checkpoint (its dict), each with what the error must say."""
    import copy

    import torch

    def changed(change):
        damaged = copy.deepcopy(saved)
        change(damaged)
        return damaged

    def drop(*names):
        return lambda c: [c.pop(name) for name in names]

    def first_param(c):
        return c["optimizer"]["state"][0]

    def fill(t, value):
        t.view(-1)[0] = value

    return {
        "earlier": (changed(drop("log", "data_order", "torch_generator")), "holds no log, data_order, torch_generator"),
        "code": ({**saved, "log": Shell(f"touch {marker}")}, "a weights-only load refuses it"),
        "not a dict": ([1, 2], "not a checkpoint of tigris train"),
        "tensor settings": (changed(lambda c: c["settings"].update(seed=torch.tensor([0, 0]))), "another run's"),
        "epoch": (changed(lambda c: c["state"].update(epoch=-1)), "state: epoch must be"),
        "log length": (changed(lambda c: c["log"].append(c["log"][0])), "log: must be a line for each of the 1"),
        "log value": (changed(lambda c: c["log"][0].update(held_out_chance=float("nan"))),
                      "log: line 1: held_out_chance must be a finite number"),
        "weight shape": (changed(lambda c: c["model"].update({"hidden.bias": torch.zeros(3)})),
                         "model: hidden.bias must be a tensor of torch.float32 and shape (4,)"),
        "weight dtype": (changed(lambda c: c["model"].update({"hidden.bias": torch.zeros(4, dtype=torch.int64)})),
                         "model: hidden.bias must be a tensor"),
        "weight nan": (changed(lambda c: fill(c["model"]["out.bias"], float("nan"))),
                       "model: out.bias holds values that are not finite"),
        "extra weight": (changed(lambda c: c["model"].update({"extra": torch.zeros(1)})),
                         "model: 'extra' is not a weight of this network"),
        "missing weight": (changed(lambda c: c["model"].pop("out.bias")), "model: no out.bias"),
        "moment shape": (changed(lambda c: first_param(c).update(exp_avg=torch.zeros(2, 2))),
                         "optimizer: sparse.weight: exp_avg must be a tensor of torch.float32"),
        "negative moment": (changed(lambda c: fill(first_param(c)["exp_avg_sq"], -1.0)),
                            "optimizer: sparse.weight: exp_avg_sq holds negative values"),
        "infinite moment": (changed(lambda c: fill(first_param(c)["exp_avg"], float("inf"))),
                            "optimizer: sparse.weight: exp_avg holds values that are not finite"),
        "step 0": (changed(lambda c: first_param(c).update(step=torch.tensor(0.0))),
                   "optimizer: sparse.weight: step must be a whole number of at least 1"),
        "unknown parameter": (changed(lambda c: c["optimizer"]["state"].update({99: first_param(c)})),
                              "optimizer: holds the state of a parameter 99"),
        "no moments": (changed(lambda c: c["optimizer"].pop("state")), "optimizer: must hold the state"),
        "data order": (changed(lambda c: c["data_order"]["state"].update(state=-1)),
                       "data_order: must be the state of numpy's PCG64 generator"),
        "generator size": (changed(lambda c: c.update(torch_generator=c["torch_generator"][:100])),
                           "torch_generator: must be PyTorch's generator state"),
        "generator content": (changed(lambda c: c["torch_generator"].zero_()), "Invalid mt19937 state"),
    }


POISONS = ["earlier", "code", "not a dict", "tensor settings", "epoch", "log length", "log value", "weight shape",
           "weight dtype", "weight nan", "extra weight", "missing weight", "moment shape", "negative moment",
           "infinite moment", "step 0", "unknown parameter", "no moments", "data order", "generator size",
           "generator content"]


@pytest.mark.parametrize("poison", [*POISONS, "cut short"])
def test_a_damaged_checkpoint_is_refused_in_one_line(data, checkpoint, tmp_path, capsys, poison):
    """A checkpoint cut short, of an earlier version, or with any part of the wrong kind,
    shape or range, is refused in one line naming the file and the part (never a
    traceback); it is left as it was, and a weights-only load runs no code."""
    import io

    import torch

    saved, options = checkpoint
    marker = tmp_path / "ran"
    out = tmp_path / "net"
    out.mkdir()
    buffer = io.BytesIO()
    if poison == "cut short":
        torch.save(saved, buffer)
        damaged, said = buffer.getvalue()[:-1000], "failed reading zip archive"
    else:
        value, said = _poison(saved, marker)[poison]
        torch.save(value, buffer)
        damaged = buffer.getvalue()
    (out / "checkpoint.pt").write_bytes(damaged)
    assert main(["train", str(data), "--out", str(out), *options]) == 1
    err = capsys.readouterr().err               # after the progress bar of the encoding
    assert "Traceback" not in err and err.endswith("\n"), err
    line = err.splitlines()[-1]
    assert line.startswith(f"tigris train: {out / 'checkpoint.pt'}") and said in line, line
    assert (out / "checkpoint.pt").read_bytes() == damaged and not marker.exists()


def test_the_command_names_bad_input(data, tmp_path, capsys):
    assert main(["train", str(tmp_path / "absent"), "--out", str(tmp_path / "n")]) == 1
    assert "absent: is not a folder" in capsys.readouterr().err
    before = (data / "positions.jsonl").read_bytes()
    for option in (["--plot", str(data / "positions.jsonl")], ["--plot", str(data / "selfplay.json")]):
        assert main(["train", str(data), "--out", str(tmp_path / "n"), *option]) == 1
        assert "is the file this command reads" in capsys.readouterr().err
    assert (data / "positions.jsonl").read_bytes() == before
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "selfplay.json").write_text('{"format": "tigris-selfplay/1", "players": 7}')
    assert main(["train", str(broken), "--out", str(tmp_path / "n")]) == 1
    assert "players must be a whole number from 2 to 4" in capsys.readouterr().err
    assert main(["train", str(data), "--out", str(tmp_path / "n"), "--label-weight", "2"]) == 2
    assert "label-weight" in capsys.readouterr().err
    target = tmp_path / "file"
    target.write_text("x")
    assert main(["train", str(data), "--out", str(target)]) == 1
    assert "is not a folder" in capsys.readouterr().err


def test_the_command_trains_and_draws_the_reliability_diagram(data, tmp_path, capsys):
    png = tmp_path / "reliability.png"
    assert main(["train", str(data), "--out", str(tmp_path / "n"), "--epochs", "1", "--hidden", "8", "4",
                 "--result-every", "3", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "network.npz: epoch 1 of 1" in out and "2 players" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert network.load(tmp_path / "n" / "network.npz").widths == (8, 4)


@pytest.mark.slow
def test_a_tiny_expert_iteration_round_trip(tmp_path):
    """Self-play with the heuristic's priors, a network with a policy head trained on its
    visits, self-play again with that policy in the search (expert iteration), and its
    data trains the next generation from the last."""
    bot = tmp_path / "fast.toml"
    bot.write_text(FAST)
    first = selfplay.settings(games=2, bot=str(bot), positions=4, label_iterations=80)
    selfplay.run(first, tmp_path / "gen0", progress=False)
    d = train.dataset([tmp_path / "gen0"])
    assert d.has_policy and sum(p is not None for p in d.policy) == len(d)
    meta = train.fit(d, tmp_path / "net1", hidden=(8, 4), epochs=1, progress=False, threads=1)
    assert meta["policy_width"] == train.POLICY_WIDTH
    net1 = network.load(tmp_path / "net1" / "network.npz")
    assert net1.has_policy
    policy_bot = tmp_path / "policy.toml"
    policy_bot.write_text(FAST + f'evaluator = "net"\nnetwork = "{tmp_path / "net1" / "network.npz"}"\n'
                                 'priors = "net"\n')
    second = selfplay.settings(games=2, bot=str(policy_bot), label_bot=str(policy_bot), positions=4,
                               label_iterations=80, seed=1)
    lines = selfplay.run(second, tmp_path / "gen1", progress=False)
    assert all("error" not in line and line["positions"] for line in lines)
    d2 = train.dataset([tmp_path / "gen1"])
    recalibration = {"2": {"temperature": 1.1, "mover_bias": -0.2}}
    network.save(tmp_path / "net1" / "network.npz", net1.named_arrays,
                 {**net1.meta, "recalibration": recalibration})
    meta2 = train.fit(d2, tmp_path / "net2", epochs=1, progress=False, threads=1,
                      init=tmp_path / "net1" / "network.npz", freeze_value=True)
    net2 = network.load(tmp_path / "net2" / "network.npz")
    for a, b in zip(net1.arrays[:7], net2.arrays[:7]):        # the value, weight for weight
        assert (a == b).all()
    assert meta2["value_from"]["file"] == "network.npz" and meta2["freeze_value"]
    assert net2.meta["recalibration"] == recalibration        # fitted to the same value
