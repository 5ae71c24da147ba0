"""Training the learned evaluation (``tigris train``): a network fitted to self-play
positions (``tigris selfplay``) with PyTorch on the CPU, exported as a weights file
(``tigris.network``) that the compiled search evaluates without PyTorch.

PyTorch is an optional extra (``pip install 'tigris[train]'``); nothing else in the
package imports this module.

>>> from tigris import train
>>> data = train.dataset(["data/selfplay"])                     # doctest: +SKIP
>>> train.fit(data, "nets/gen1", hidden=(64, 32))               # doctest: +SKIP

The targets of a position, both counted in seats from its player to move:

* each player's chance of finishing first: ``label_weight`` times the game's result (its
  share of the first place) plus the rest times the label search's chances there
  (``selfplay``'s ``search``).  The result alone is unbiased but noisy, one game's luck;
  the search's chances are smooth but only as good as the search;
* each player's final score (over ``SCORE_SCALE``), an auxiliary target that gives every
  position a second, richer signal (KataGo's score target does the same).

Games, not positions, are split into training and held-out parts, so no held-out position
comes from a game the network saw.  Training stops when the held-out loss has not improved
for ``patience`` epochs and keeps the best epoch.  The folder ``out`` gets ``network.npz``
(the best epoch), ``log.jsonl`` (one line an epoch: the losses) and ``checkpoint.pt``,
from which the same command continues a run that was stopped.
"""

import io
import json
import math
import time
from pathlib import Path

from tigris import record as records
from tigris.errors import Interrupted, UsageError, excerpt
from tigris.files import check_target, write_bytes
from tigris.locks import holding
from tigris.sources import check_source

__all__ = ["LABEL_WEIGHT", "SCORE_WEIGHT", "HIDDEN", "HELD_OUT", "BATCH", "EPOCHS", "PATIENCE", "Data",
           "dataset", "data_files", "check_out", "split", "fit", "require_torch", "arrays_of", "predict", "held_out_calibration", "plot"]

LABEL_WEIGHT = 0.5          # the result's share of a position's chance target (the search's: the rest)
SCORE_WEIGHT = 0.25         # the score loss's weight beside the chances' cross-entropy
HIDDEN = (64, 32)           # the hidden layers' widths (docs/DESIGN.md: why this size)
HELD_OUT = 0.1              # the share of games held out
BATCH = 256
EPOCHS = 60
PATIENCE = 4
LEARNING_RATE = 2e-3
WEIGHT_DECAY = 1e-5
DROPOUT = 0.0
NEG = -1e4                  # the logit of a seat nobody sits in


def _numeric():
    """numpy and tigris.network, imported when training runs: the command line stays quick."""
    import numpy

    from tigris import network

    return numpy, network


class Data:
    """Positions as arrays: the sparse features (CSR: ``indptr``, ``indices``), ``dense``,
    the targets ``chance`` and ``score`` and the ``seats`` that play (each [n, 4], in seats
    from the mover), ``result`` (the game's first shares alone, for calibration), the
    ``players`` and the ``game`` (a number unique over the folders) of each, and whether
    the search ``labelled`` it; ``reads``, the files they came from."""

    def __init__(self, folders, indptr, indices, dense, chance, score, seats, result, players, game, sources,
                 label_weight, labelled):
        self.label_weight, self.labelled = label_weight, labelled
        self.reads = data_files(folders)
        self.indptr, self.indices, self.dense = indptr, indices, dense
        self.chance, self.score, self.seats, self.result = chance, score, seats, result
        self.players, self.game, self.sources = players, game, sources

    def __len__(self):
        return len(self.dense)


def dataset(folders, label_weight=LABEL_WEIGHT, result_every=0, progress=False):
    """The labelled positions of self-play folders, encoded (see ``Data``); with
    `result_every` k > 0, also every k-th other decision with a choice of each game, its
    chances' target the game's result alone (more positions, each noisier)."""
    np, netlib = _numeric()
    from tqdm import tqdm

    from tigris import selfplay

    if not 0 <= label_weight <= 1:
        raise UsageError(f"label weight must be 0 to 1, not {label_weight}")
    indptr, indices, dense, chance, score, seats, result, players, games = [0], [], [], [], [], [], [], [], []
    labelled = []
    sources = []
    for number, folder in enumerate(folders):
        folder = Path(folder)
        settings = selfplay.read_settings(folder)
        lines = [line for line in selfplay.read(folder / "positions.jsonl", settings) if "error" not in line]
        sources.append({"folder": folder.name, "games": len(lines), "players": settings["players"],
                        "board": settings["board"], "variants": settings["variants"]})
        for line in tqdm(lines, desc=f"encoding {folder.name}", unit="game", disable=not progress):
            n = settings["players"]
            wanted = {p["move"]: p for p in line["positions"]}
            others = 0
            for move, game in records.steps(line["record"]):
                if game.is_over:
                    break
                pos = wanted.get(move)
                if pos is None:
                    if not result_every or len(game.legal_actions()) < 2:
                        continue
                    others += 1
                    if others % result_every:
                        continue
                v = game.current_player
                active, d = netlib.encode(game)
                indices.append(active)
                indptr.append(indptr[-1] + len(active))
                dense.append(d)
                order = [(v + r) % n for r in range(n)]
                first = np.array([line["first"][q] for q in order] + [0.0] * (4 - n))
                if pos is None:
                    chance.append(first)
                else:
                    search = np.array([pos["search"][q] for q in order] + [0.0] * (4 - n))
                    chance.append(label_weight * first + (1 - label_weight) * search)
                labelled.append(pos is not None)
                result.append(first)
                score.append([line["scores"][q] / netlib.SCORE_SCALE for q in order] + [0.0] * (4 - n))
                seats.append([1.0] * n + [0.0] * (4 - n))
                players.append(n)
                games.append(number * 10_000_000 + line["game"])
    if len(dense) == 0:
        raise UsageError("the folders hold no labelled positions")
    f32 = np.float32
    return Data(folders, np.array(indptr, dtype=np.int64), np.concatenate(indices).astype(np.int64),
                np.array(dense, dtype=f32), np.array(chance, dtype=f32), np.array(score, dtype=f32),
                np.array(seats, dtype=f32), np.array(result, dtype=f32), np.array(players),
                np.array(games), sources, label_weight, np.array(labelled))


def data_files(folders):
    """The files of self-play folders that training reads (never to be written)."""
    return [Path(folder) / name for folder in folders for name in ("selfplay.json", "positions.jsonl")]


def check_out(out, reads=(), plot=None):
    """The folder `out` (and the diagram `plot`), once fit to be written: a folder or
    nothing yet, its files and the diagram none of the files `reads`."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: is not a folder; name a folder for the network")
    for name in ("network.npz", "log.jsonl", "checkpoint.pt"):
        check_target(out / name, reads=reads, option="--out")
    if plot is not None:
        check_target(plot, reads=[*reads, *(out / n for n in ("network.npz", "log.jsonl", "checkpoint.pt"))],
                     option="--plot")
    return out


def split(data, held_out=HELD_OUT, seed=0):
    """Positions' indices for training and held out, whole games to each part."""
    np, _ = _numeric()
    games = np.unique(data.game)
    rng = np.random.default_rng(seed)
    test_games = rng.choice(games, size=max(1, round(held_out * len(games))), replace=False)
    test = np.isin(data.game, test_games)
    return np.flatnonzero(~test), np.flatnonzero(test)


def _model(torch, hidden, dropout=0.0):
    _, netlib = _numeric()
    nn = torch.nn

    class Model(nn.Module):
        """The network of ``tigris._net``: sparse rows summed, dense features, two hidden
        layers with ReLU, per seat a logit and a score."""

        def __init__(self):
            super().__init__()
            self.sparse = nn.EmbeddingBag(netlib.N_SPARSE, hidden[0], mode="sum")
            self.dense = nn.Linear(netlib.N_DENSE, hidden[0])
            self.hidden = nn.Linear(hidden[0], hidden[1])
            self.out = nn.Linear(hidden[1], netlib.N_OUTPUTS)
            self.drop = nn.Dropout(dropout)             # training only: eval() turns it off
            nn.init.normal_(self.sparse.weight, 0.0, 0.02)

        def forward(self, indices, offsets, dense):
            h = self.drop(torch.relu(self.sparse(indices, offsets) + self.dense(dense)))
            return self.out(torch.relu(self.hidden(h)))

    return Model()


def _batch(torch, data, rows):
    """The tensors of positions `rows`."""
    np, _ = _numeric()
    starts, ends = data.indptr[rows], data.indptr[rows + 1]
    indices = np.concatenate([data.indices[s:e] for s, e in zip(starts, ends)])
    offsets = np.concatenate([[0], np.cumsum(ends - starts)[:-1]])
    t = torch.from_numpy
    return (t(indices), t(offsets.astype(np.int64)), t(data.dense[rows]), t(data.chance[rows]),
            t(data.score[rows]), t(data.seats[rows]))


def _losses(torch, model, batch):
    """The batch's mean cross-entropy of the chances and mean squared error of the scores."""
    indices, offsets, dense, chance, score, seats = batch
    out = model(indices, offsets, dense)
    logits = torch.where(seats > 0, out[:, :4], torch.full_like(out[:, :4], NEG))
    ce = -(chance * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    mse = (((out[:, 4:] - score) ** 2) * seats).sum(dim=1).mean()
    return ce, mse


def arrays_of(model):
    """The model's weights as the weights file holds them (``tigris.network.ARRAYS``)."""
    np, _ = _numeric()
    def a(t):
        return t.detach().cpu().numpy().astype(np.float32)
    return {"w_sparse": a(model.sparse.weight), "w_dense": a(model.dense.weight).T.copy(),
            "b1": a(model.dense.bias), "w2": a(model.hidden.weight), "b2": a(model.hidden.bias),
            "w3": a(model.out.weight), "b3": a(model.out.bias)}


def predict(arrays, data, rows):
    """The mover-seat chances (softmax over the seats that play) of positions `rows`, in
    numpy from exported arrays."""
    np, netlib = _numeric()
    out = np.empty((len(rows), 4))
    for k, i in enumerate(rows):
        logits, _ = netlib.forward(arrays, data.indices[data.indptr[i]:data.indptr[i + 1]], data.dense[i])
        n = int(data.players[i])
        e = np.exp(logits[:n] - logits[:n].max())
        out[k, :n] = e / e.sum()
        out[k, n:] = 0
    return out


def held_out_calibration(arrays, data, rows):
    """Per player count: the expected calibration error of the mover's chance of
    finishing first against the game's result, on positions `rows`."""
    from tigris.calibration import expected_calibration_error, reliability

    pred = predict(arrays, data, rows)
    out = {}
    for n in sorted(set(int(x) for x in data.players[rows])):
        m = data.players[rows] == n
        chances, results = pred[m, 0], data.result[rows][m, 0]
        out[str(n)] = {"ece": round(expected_calibration_error(chances, results), 4), "positions": int(m.sum()),
                       "diagram": [[round(a, 4), round(b, 4), c] for a, b, c in reliability(chances, results)]}
    return out


def plot(meta, path):
    """The reliability diagram of a network's held-out chances, from its metadata
    (``calibration``), per player count: PNG at `path` (needs matplotlib, the ``plot``
    extra)."""
    from tigris.calibration import plot_reliability

    curves = [(f"{n} players (ECE {c['ece']:.3f}, {c['positions']:,} positions)", c["diagram"])
              for n, c in sorted(meta["calibration"].items())]
    return plot_reliability(curves, path, "The network on held-out games",
                            "the network's chance that the player to move finishes first")


def require_torch():
    """PyTorch, or a UsageError saying how to install it (it is an optional extra)."""
    try:
        import torch
    except ImportError:
        raise UsageError("training needs PyTorch, which is not installed: pip install 'tigris[train]'") from None
    return torch


@holding("out")                   # one run at a time in a folder
def fit(data, out, hidden=HIDDEN, epochs=EPOCHS, patience=PATIENCE, seed=0, progress=True, threads=None,
        learning_rate=LEARNING_RATE, weight_decay=WEIGHT_DECAY, dropout=DROPOUT):
    """Train a network on `data` (``dataset``) into the folder `out` (see the module's
    docstring); returns the metadata written beside the weights."""
    np, netlib = _numeric()
    from tqdm import tqdm

    torch = require_torch()
    out = check_out(out, data.reads)
    out.mkdir(parents=True, exist_ok=True)
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    train_rows, test_rows = split(data, seed=seed)
    model = _model(torch, hidden, dropout)
    opt = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=weight_decay)
    settings = {"hidden": list(hidden), "seed": seed, "learning_rate": learning_rate, "weight_decay": weight_decay,
                "dropout": dropout, "label_weight": data.label_weight, "positions": len(data),
                "held_out_positions": len(test_rows)}
    state = {"epoch": 0, "best": math.inf, "best_epoch": 0, "since": 0, "seconds": 0.0}
    ckpt = out / "checkpoint.pt"
    if ckpt.exists():
        check_source(ckpt)
        try:
            saved = torch.load(ckpt, weights_only=True)      # tensors and plain data: no code runs
            if not isinstance(saved, dict) or not {"settings", "model", "optimizer", "state"} <= set(saved):
                raise ValueError("not a checkpoint of tigris train")
        except Exception as e:          # whatever a damaged file makes PyTorch raise
            raise UsageError(f"{ckpt}: cannot continue from it ({excerpt(str(e), 80)}); delete it "
                             f"to train again from the start") from None
        if saved.get("settings") != settings:
            raise UsageError(f"{ckpt} is another run's ({excerpt(saved.get('settings'), 80)}); "
                             f"choose another folder")
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["optimizer"])
        state = saved["state"]
    rng = np.random.default_rng(seed + state["epoch"])
    test_batches = [_batch(torch, data, test_rows[k:k + 4096]) for k in range(0, len(test_rows), 4096)]
    log = out / "log.jsonl"
    try:
        while state["epoch"] < epochs and state["since"] < patience:
            start = time.perf_counter()
            model.train()
            order = rng.permutation(train_rows)
            sums = np.zeros(2)
            for k in tqdm(range(0, len(order), BATCH), desc=f"epoch {state['epoch'] + 1}", unit="batch",
                          disable=not progress, leave=False):
                ce, mse = _losses(torch, model, _batch(torch, data, order[k:k + BATCH]))
                loss = ce + SCORE_WEIGHT * mse
                opt.zero_grad()
                loss.backward()
                opt.step()
                sums += (ce.item() * len(order[k:k + BATCH]), mse.item() * len(order[k:k + BATCH]))
            model.eval()
            with torch.no_grad():
                test = np.zeros(2)
                for b in test_batches:
                    ce, mse = _losses(torch, model, b)
                    test += (ce.item() * len(b[2]), mse.item() * len(b[2]))
            train_loss, test_loss = sums / len(order), test / len(test_rows)
            state["epoch"] += 1
            state["seconds"] += time.perf_counter() - start
            total = test_loss[0] + SCORE_WEIGHT * test_loss[1]
            if total < state["best"]:
                state.update(best=float(total), best_epoch=state["epoch"], since=0)
                netlib.save(out / "network.npz", arrays_of(model), {"training": "in progress"})
            else:
                state["since"] += 1
            with open(log, "a", encoding="utf-8") as f:
                f.write(json.dumps({"epoch": state["epoch"], "train_chance": round(train_loss[0], 5),
                                    "train_score": round(train_loss[1], 5), "held_out_chance": round(test_loss[0], 5),
                                    "held_out_score": round(test_loss[1], 5), "seconds": round(state["seconds"], 1)})
                        + "\n")
            buffer = io.BytesIO()
            torch.save({"settings": settings, "model": model.state_dict(), "optimizer": opt.state_dict(),
                        "state": state}, buffer)
            write_bytes(ckpt, buffer.getvalue())
            if progress:
                print(f"epoch {state['epoch']}: held-out chance loss {test_loss[0]:.4f}, score loss "
                      f"{test_loss[1]:.4f}{' (best)' if state['since'] == 0 else ''}")
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted after epoch {state['epoch']}: {ckpt} keeps it; run the same "
                          f"command again to continue") from None
    best = netlib.load(out / "network.npz")
    arrays = dict(zip(netlib.ARRAYS, best.arrays))
    meta = dict(settings, epochs=state["epoch"], best_epoch=state["best_epoch"],
                held_out_loss=round(state["best"], 5), train_seconds=round(state["seconds"], 1),
                data=data.sources, score_weight=SCORE_WEIGHT, torch=torch.__version__,
                calibration=held_out_calibration(arrays, data, test_rows[data.labelled[test_rows]]))
    netlib.save(out / "network.npz", arrays, meta)
    return meta
