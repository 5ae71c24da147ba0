"""Training the learned evaluation (``tigris train``): a network fitted to self-play
positions (``tigris selfplay``) with PyTorch on the CPU, exported as a weights file
(``tigris.network``) that the compiled search evaluates without PyTorch: the value (every
player's chance of finishing first, and the final scores) and, where the data has the
policy's labels, the policy (a probability for each legal action), fitted together.

PyTorch is an optional extra (``pip install 'tigris-euphrates[train]'``); nothing else in the
package imports this module.

>>> from tigris.runs import train
>>> data = train.dataset(["data/selfplay"])                     # doctest: +SKIP
>>> train.fit(data, "nets/gen1", hidden=(64, 32))               # doctest: +SKIP

The targets of a position, both counted in seats from its player to move:

* each player's chance of finishing first: ``label_weight`` times the game's result (its
  share of the first place) plus the rest times the label search's chances there
  (``selfplay``'s ``search``).  The result alone is unbiased but noisy, one game's luck;
  the search's chances are smooth but only as good as the search;
* each player's final score (over ``SCORE_SCALE``), an auxiliary target that gives every
  position a second, richer signal (KataGo's score target does the same);
* where the position has them (``tigris-selfplay/2``), the label search's visits of its
  legal actions, as shares: the policy's target, a cross-entropy over the legal actions
  alone (expert iteration: the policy learns what the search made of its priors).

``init`` starts from a weights file's arrays (its widths), the policy head's too if it
has one: a next generation starts from the last, and the shipped value network can be
given a policy head without losing what it knows.

Games, not positions, are split into training and held-out parts, so no held-out position
comes from a game the network saw.  Training stops when the held-out loss has not improved
for ``patience`` epochs and keeps the best epoch.  The folder ``out`` gets ``network.npz``
(the best epoch), ``log.jsonl`` (one line an epoch: the losses) and ``checkpoint.pt``,
from which the same command continues a run that was stopped, to the very network and log
an uninterrupted run makes: the checkpoint holds all that decides the rest (the weights, the
optimizer's moments, the random generators of the data order and of PyTorch, the
early-stopping state and the log).  It must be of the same settings and the same data (a
fingerprint of the folders' files), each part of the right shape, in range and finite, or
it is refused in one line naming the file and the field.
"""

import contextlib
import hashlib
import io
import json
import math
import os
import re
import time
from pathlib import Path

from tigris import record as records
from tigris.errors import Interrupted, UsageError, excerpt, install_hint
from tigris.files import check_target, write_bytes, write_text
from tigris._plumbing.locks import holding
from tigris.sources import open_source, read_source

__all__ = ["LABEL_WEIGHT", "SCORE_WEIGHT", "POLICY_WEIGHT", "HIDDEN", "POLICY_WIDTH", "HELD_OUT", "BATCH",
           "EPOCHS", "MAX_EPOCHS", "PATIENCE", "Data", "dataset", "data_files", "fingerprint", "check_out", "split",
           "fit", "begun_with", "require_torch", "arrays_of", "predict", "held_out_calibration", "fit_recalibration",
           "plot"]

LABEL_WEIGHT = 0.5          # the result's share of a position's chance target (the search's: the rest)
SCORE_WEIGHT = 0.25         # the score loss's weight beside the chances' cross-entropy
POLICY_WEIGHT = 1.0         # the policy's cross-entropy's weight beside them
HIDDEN = (64, 32)           # the hidden layers' widths (docs/DESIGN.md: why this size)
POLICY_WIDTH = 16           # the policy's context: one SSE block of LANES (docs/DESIGN.md)
HELD_OUT = 0.1              # the share of games held out
BATCH = 256
EPOCHS = 60
MAX_EPOCHS = 10_000
PATIENCE = 4
LEARNING_RATE = 2e-3
POLICY_LEARNING_RATE = 1e-2  # the policy head's: its pattern weights start at 0 and go to units
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
    the search ``labelled`` it; ``positions`` (the Game at each position that has a
    policy target, else None) and ``policy`` (its target: the legal actions visited and
    their shares, else None); ``reads``, the files they came from."""

    def __init__(self, folders, indptr, indices, dense, chance, score, seats, result, players, game, sources,
                 label_weight, labelled, positions, policy):
        self.label_weight, self.labelled = label_weight, labelled
        self.folders = [Path(folder) for folder in folders]
        self.reads = data_files(folders)
        self.indptr, self.indices, self.dense = indptr, indices, dense
        self.chance, self.score, self.seats, self.result = chance, score, seats, result
        self.players, self.game, self.sources = players, game, sources
        self.positions, self.policy = positions, policy

    @property
    def has_policy(self):
        """Whether any position has a policy target."""
        return any(p is not None for p in self.policy)

    def __len__(self):
        return len(self.dense)


def dataset(folders, label_weight=LABEL_WEIGHT, result_every=0, progress=False):
    """The labelled positions of self-play folders, encoded (see ``Data``), a folder's
    games in the order of their numbers (not of the file, whose order depends on how fast
    the workers were: the same games train the same network); with
    `result_every` k > 0, also every k-th other decision with a choice of each game, its
    chances' target the game's result alone (more positions, each noisier)."""
    np, netlib = _numeric()
    from tqdm import tqdm

    from tigris.runs import selfplay

    if not 0 <= label_weight <= 1:
        raise UsageError(f"label weight must be 0 to 1, not {label_weight}")
    indptr, indices, dense, chance, score, seats, result, players, games = [0], [], [], [], [], [], [], [], []
    labelled, positions, policy = [], [], []
    sources = []
    for number, folder in enumerate(folders):
        folder = Path(folder)
        settings = selfplay.read_settings(folder)
        # by game: the file holds them as they finished, which the number of workers decides
        lines = sorted((line for line in selfplay.read(folder / "positions.jsonl", settings)
                        if "error" not in line), key=lambda line: line["game"])
        sources.append({"folder": folder.name, "games": len(lines), "players": settings["players"],
                        "board": settings["board"], "variants": settings["variants"]})
        for lineno, line in enumerate(tqdm(lines, desc=f"encoding {folder.name}", unit="game",
                                           disable=not progress)):
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
                target = _policy_target(game, pos, folder, line["game"]) if pos is not None else None
                policy.append(target)
                positions.append(game.copy(stack=False) if target is not None else None)
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
                np.array(games), sources, label_weight, np.array(labelled), positions, policy)


def _policy_target(game, pos, folder, number):
    """A position's policy target, (legal actions, their shares of the visits), from its
    ``policy`` label (None for a first-version folder's position); every action must be
    legal there, or a UsageError names the folder, the game and the move."""
    np, _ = _numeric()
    visits = pos.get("policy")
    if visits is None:
        return None
    legal = set(game.legal_actions())
    for action, _count in visits:
        if action not in legal:
            raise UsageError(f"{folder / 'positions.jsonl'}: game {number}, move {pos['move']}: the policy "
                             f"names action {action}, which is not legal there")
    actions = np.array([a for a, _ in visits], dtype=np.int64)
    counts = np.array([c for _, c in visits], dtype=np.float64)
    return actions, (counts / counts.sum()).astype(np.float32)


def data_files(folders):
    """The files of self-play folders that training reads (never to be written)."""
    return [Path(folder) / name for folder in folders for name in ("selfplay.json", "positions.jsonl")]


def fingerprint(folders):
    """A digest of the self-play folders' files (SHA-256 of each, in order): what a
    checkpoint was trained on, so that a run continues only on the same data."""
    digest = hashlib.sha256()
    for path in data_files(folders):
        with open_source(path) as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()[:32]

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


def _model(torch, hidden, dropout=0.0, policy_width=0):
    _, netlib = _numeric()
    nn = torch.nn

    class Model(nn.Module):
        """The network of ``tigris._net``: sparse rows summed, dense features, the first
        hidden layer (the trunk); then two hidden layers with ReLU, per seat a logit and a
        score (the value); with ``policy_width``, the policy head: a context from the
        trunk, and per action its bias, its embedding times the context and the weights
        of its patterns."""

        def __init__(self):
            super().__init__()
            self.sparse = nn.EmbeddingBag(netlib.N_SPARSE, hidden[0], mode="sum")
            self.dense = nn.Linear(netlib.N_DENSE, hidden[0])
            self.hidden = nn.Linear(hidden[0], hidden[1])
            self.out = nn.Linear(hidden[1], netlib.N_OUTPUTS)
            self.drop = nn.Dropout(dropout)             # training only: eval() turns it off
            nn.init.normal_(self.sparse.weight, 0.0, 0.02)
            self.policy_width = policy_width
            if policy_width:
                self.context = nn.Linear(hidden[0], policy_width)
                self.emb = nn.Embedding(netlib.N_ACTIONS, policy_width)
                self.abias = nn.Embedding(netlib.N_ACTIONS, 1)
                self.pat = nn.EmbeddingBag(netlib.N_PATTERNS, 1, mode="sum")
                nn.init.normal_(self.emb.weight, 0.0, 0.02)
                nn.init.zeros_(self.abias.weight)
                nn.init.zeros_(self.pat.weight)

        def trunk(self, indices, offsets, dense):
            return self.drop(torch.relu(self.sparse(indices, offsets) + self.dense(dense)))

        def value(self, h):
            return self.out(torch.relu(self.hidden(h)))

        def forward(self, indices, offsets, dense):
            return self.value(self.trunk(indices, offsets, dense))

        def policy(self, h, position, action, offsets, patterns):
            """The logit of each legal action (rows: its position in the batch, its id,
            where its patterns begin).

            The weights are gathered by ``index_select`` and the patterns' summed by
            ``index_add``, whose gradients add up in one pass: the embedding modules'
            own backward passes sort their indices first, and with some 750,000 pattern
            rows a batch that sort was two thirds of an epoch."""
            g = torch.relu(self.context(h))
            rows = len(action)
            counts = torch.diff(offsets, append=torch.tensor([len(patterns)], dtype=offsets.dtype))
            row_of = torch.repeat_interleave(torch.arange(rows), counts)
            pattern_sums = torch.zeros(rows).index_add(
                0, row_of, torch.index_select(self.pat.weight[:, 0], 0, patterns))
            return (torch.index_select(self.abias.weight[:, 0], 0, action)
                    + (torch.index_select(self.emb.weight, 0, action) * g[position]).sum(dim=1)
                    + pattern_sums)

    return Model()


def _batch(torch, data, rows):
    """The tensors of positions `rows`: the features and the value's targets, then the
    policy's inputs and targets for those of them that have one (``_policy_batch``)."""
    np, _ = _numeric()
    starts, ends = data.indptr[rows], data.indptr[rows + 1]
    indices = np.concatenate([data.indices[s:e] for s, e in zip(starts, ends)])
    offsets = np.concatenate([[0], np.cumsum(ends - starts)[:-1]])
    t = torch.from_numpy
    return (t(indices), t(offsets.astype(np.int64)), t(data.dense[rows]), t(data.chance[rows]),
            t(data.score[rows]), t(data.seats[rows]), _policy_batch(torch, data, rows))


def _policy_batch(torch, data, rows):
    """The policy's rows for the positions of `rows` that have a target: each legal
    action's position (in the batch), id, patterns (``tigris.network.policy_inputs``) and
    target share (0 for an action the search did not visit); None if none has one."""
    np, netlib = _numeric()
    which = [k for k, i in enumerate(rows) if data.policy[i] is not None]
    if not which:
        return None
    position, action, offsets, patterns = netlib.policy_inputs([data.positions[rows[k]] for k in which])
    # Each visited action's share, found by (position, action) among the legal rows.
    keys = position * netlib.N_ACTIONS + action
    tkeys, shares = [], []
    for j, k in enumerate(which):
        actions, share = data.policy[rows[k]]
        tkeys.append(j * netlib.N_ACTIONS + actions)
        shares.append(share)
    tkeys, shares = np.concatenate(tkeys), np.concatenate(shares)
    order = np.argsort(tkeys)
    tkeys, shares = tkeys[order], shares[order]
    at = np.minimum(np.searchsorted(tkeys, keys), len(tkeys) - 1)
    target = np.where(tkeys[at] == keys, shares[at], 0.0).astype(np.float32)
    t = torch.from_numpy
    return (t(np.array(which, dtype=np.int64)[position]), t(action), t(offsets), t(patterns), t(target),
            len(which))


def _segment_log_softmax(torch, logits, segment, count):
    """log softmax of `logits` within each segment (the rows of one position)."""
    top = torch.full((count,), -math.inf).scatter_reduce(0, segment, logits.detach(), "amax")
    shifted = logits - top[segment]
    total = torch.zeros(count).index_add(0, segment, torch.exp(shifted))
    return shifted - torch.log(total)[segment]


def _losses(torch, model, batch):
    """The batch's mean cross-entropy of the chances, mean squared error of the scores,
    and the policy's mean cross-entropy over its positions with a target (0 without)
    with how many there are and how many of them the policy's best action is the
    search's most visited."""
    indices, offsets, dense, chance, score, seats, pol = batch
    h = model.trunk(indices, offsets, dense)
    out = model.value(h)
    logits = torch.where(seats > 0, out[:, :4], torch.full_like(out[:, :4], NEG))
    ce = -(chance * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    mse = (((out[:, 4:] - score) ** 2) * seats).sum(dim=1).mean()
    if pol is None or not model.policy_width:
        return ce, mse, torch.zeros(()), 0, 0
    position, action, poffsets, patterns, target, count = pol
    plogits = model.policy(h, position, action, poffsets, patterns)
    segment = torch.unique_consecutive(position, return_inverse=True)[1]
    logp = _segment_log_softmax(torch, plogits, segment, count)
    pce = -(target * logp).sum() / count
    # The top-1 agreement: the policy's best row against the target's, per position.
    with torch.no_grad():
        best = torch.full((count,), -math.inf).scatter_reduce(0, segment, plogits, "amax")
        most = torch.full((count,), -math.inf).scatter_reduce(0, segment, target, "amax")
        hit = torch.zeros(count).index_add(0, segment, ((plogits == best[segment])
                                                        & (target == most[segment])).float())
    return ce, mse, pce, count, int((hit > 0).sum())


def arrays_of(model):
    """The model's weights as the weights file holds them (``tigris.network.ARRAYS``, and
    ``POLICY_ARRAYS`` with a policy head)."""
    np, _ = _numeric()
    def a(t):
        return t.detach().cpu().numpy().astype(np.float32)
    arrays = {"w_sparse": a(model.sparse.weight), "w_dense": a(model.dense.weight).T.copy(),
              "b1": a(model.dense.bias), "w2": a(model.hidden.weight), "b2": a(model.hidden.bias),
              "w3": a(model.out.weight), "b3": a(model.out.bias)}
    if model.policy_width:
        arrays.update(wp=a(model.context.weight), bp=a(model.context.bias), emb=a(model.emb.weight),
                      abias=a(model.abias.weight)[:, 0].copy(), pat=a(model.pat.weight)[:, 0].copy())
    return arrays


def _load_arrays(torch, model, arrays):
    """Set the model's weights from a weights file's arrays (``arrays_of``'s inverse); the
    policy head's only where both have one."""
    t = torch.from_numpy
    with torch.no_grad():
        model.sparse.weight.copy_(t(arrays["w_sparse"]))
        model.dense.weight.copy_(t(arrays["w_dense"].T.copy()))
        model.dense.bias.copy_(t(arrays["b1"]))
        model.hidden.weight.copy_(t(arrays["w2"]))
        model.hidden.bias.copy_(t(arrays["b2"]))
        model.out.weight.copy_(t(arrays["w3"]))
        model.out.bias.copy_(t(arrays["b3"]))
        if model.policy_width and "emb" in arrays and arrays["bp"].shape[0] == model.policy_width:
            model.context.weight.copy_(t(arrays["wp"]))
            model.context.bias.copy_(t(arrays["bp"]))
            model.emb.weight.copy_(t(arrays["emb"]))
            model.abias.weight.copy_(t(arrays["abias"][:, None].copy()))
            model.pat.weight.copy_(t(arrays["pat"][:, None].copy()))


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


def fit_recalibration(arrays, data, rows, players):
    """The recalibration (``network.recalibrate``) of exported arrays for games of
    `players`, fitted on positions `rows` (those of other counts are left out): the
    ``(temperature, mover_bias)`` of the least cross-entropy between the recalibrated
    chances and the games' results, every seat's chance counted."""
    np, _ = _numeric()
    from scipy.optimize import minimize

    from tigris.network import recalibrate

    rows = np.asarray(rows)[data.players[rows] == players]
    if not len(rows):
        raise UsageError(f"no position of a {players}-player game to fit the recalibration on")
    chances = predict(arrays, data, rows)[:, :players]
    results = data.result[rows][:, :players]

    def loss(x):
        fitted = recalibrate(chances, 0, *x)
        return -(results * np.log(np.maximum(fitted, 1e-12))).sum(axis=1).mean()

    # the mover is seat 0 of ``predict``'s chances; temperatures kept within the file's bounds
    best = minimize(loss, (1.0, 0.0), method="L-BFGS-B", bounds=[(0.2, 5.0), (-3.0, 3.0)])
    return float(best.x[0]), float(best.x[1])


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
        raise UsageError(f"training needs PyTorch, which is not installed: {install_hint('train')}") from None
    return torch


@holding("out")                   # one run at a time in a folder
def fit(data, out, hidden=HIDDEN, epochs=EPOCHS, patience=PATIENCE, seed=0, progress=True, threads=None,
        learning_rate=LEARNING_RATE, weight_decay=WEIGHT_DECAY, dropout=DROPOUT, policy_width=None, init=None,
        freeze_value=False):
    """Train a network on `data` (``dataset``) into the folder `out` (see the module's
    docstring); returns the metadata written beside the weights.  `policy_width` (None:
    POLICY_WIDTH where the data has policy targets, else 0) sizes the policy's context;
    `init`, a weights file to start from (its widths replace `hidden`); `freeze_value`
    keeps the value's weights (the first layer among them) as `init` gave them, so that
    only the policy head learns: the network then judges positions exactly as `init`
    did."""
    np, netlib = _numeric()
    torch = require_torch()
    out = check_out(out, [*data.reads, *([init] if init is not None else [])])
    out.mkdir(parents=True, exist_ok=True)
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    if policy_width is None:
        policy_width = POLICY_WIDTH if data.has_policy else 0
    start_from = netlib.load(init) if init is not None else None
    if start_from is not None:
        hidden = start_from.widths
    train_rows, test_rows = split(data, seed=seed)
    model = _model(torch, hidden, dropout, policy_width)
    if start_from is not None:
        _load_arrays(torch, model, start_from.named_arrays)
    if freeze_value:
        _freeze_value(model, start_from, policy_width)
    opt = torch.optim.AdamW(_parameter_groups(model, learning_rate), lr=learning_rate, weight_decay=weight_decay)
    settings = {"hidden": list(hidden), "seed": seed, "learning_rate": learning_rate, "weight_decay": weight_decay,
                "dropout": dropout, "label_weight": data.label_weight, "positions": len(data),
                "held_out_positions": len(test_rows), "policy_width": policy_width,
                "policy_weight": POLICY_WEIGHT if policy_width else 0.0, "freeze_value": freeze_value,
                "init": start_from.meta.get("data_fingerprint", Path(init).name) if start_from is not None else None,
                "data_fingerprint": fingerprint(data.folders)}
    ckpt = out / "checkpoint.pt"
    order = np.random.default_rng(seed)         # the data's order, epoch after epoch
    state, log = _resume(torch, netlib, ckpt, settings, model, opt, order)
    test_batches = [_batch(torch, data, test_rows[k:k + 4096]) for k in range(0, len(test_rows), 4096)]
    try:
        with _deterministic(torch):
            while state["epoch"] < epochs and state["since"] < patience:
                train_loss, test_loss = _epoch(torch, model, opt, data, order.permutation(train_rows),
                                               test_batches, len(test_rows), state, progress)
                if not all(math.isfinite(x) for x in (*train_loss, *test_loss)):
                    raise UsageError(f"training diverged in epoch {state['epoch']} (a loss is not finite); "
                                     f"{ckpt} keeps the epoch before: lower the learning rate, or start again")
                _keep(torch, netlib, out, model, opt, order, settings, state, log, train_loss, test_loss)
                if progress:
                    print(_epoch_line(state, test_loss, policy_width))
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted after epoch {state['epoch']}: {ckpt} keeps it; run the same "
                          f"command again to continue") from None
    best = netlib.load(out / "network.npz")
    arrays = best.named_arrays
    # A frozen value never saw these games: every labelled position is held out for it.
    judged = np.arange(len(data)) if freeze_value else test_rows
    meta = dict(settings, epochs=state["epoch"], best_epoch=state["best_epoch"],
                held_out_loss=round(state["best"], 5), train_seconds=round(state["seconds"], 1),
                data=data.sources, score_weight=SCORE_WEIGHT, torch=torch.__version__,
                calibration=held_out_calibration(arrays, data, judged[data.labelled[judged]]))
    if freeze_value:
        # The value is init's, weight for weight: what it was trained on goes with it.
        meta["value_from"] = start_from.meta.get("value_from") or {
            "file": Path(init).name, **{k: start_from.meta[k] for k in ("data", "positions", "calibration")
                                        if k in start_from.meta}}
        if "recalibration" in start_from.meta:    # fitted to that value: it holds as it did
            meta["recalibration"] = start_from.meta["recalibration"]
    netlib.save(out / "network.npz", arrays, meta)
    return meta


def _freeze_value(model, start_from, policy_width):
    """Only the policy head of `model` learns: the value's weights stay `start_from`'s."""
    if start_from is None or not policy_width:
        raise UsageError("freezing the value needs a network to start from (--init) and a policy to train")
    for name, p in model.named_parameters():
        p.requires_grad = name.split(".")[0] in ("context", "emb", "abias", "pat")
    model.drop.p = 0.0              # the frozen trunk as the search computes it


@contextlib.contextmanager
def _deterministic(torch):
    """PyTorch's deterministic algorithms within, the caller's setting after.

    An epoch is then a function of the checkpoint alone, so that a continued run is the
    uninterrupted one bit for bit: with more than one thread, the backward pass of the
    policy's indexing (``g[position]``) otherwise adds up its rows in whatever order the
    threads reach them (runs differed by 1e-8).  The other kernels the model uses add up
    in a fixed order for a given number of threads (PyTorch's default: the cores), so a
    run continued on a machine with other cores may differ in the last bits."""
    before = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])


def _epoch(torch, model, opt, data, order, test_batches, tested, state, progress):
    """One epoch over the training rows in `order`, then the held-out losses; the epoch
    and its seconds counted in `state`.  Returns (training losses, held-out losses)."""
    began = time.perf_counter()
    train_loss = _train_epoch(torch, model, opt, data, order, state, progress)
    test_loss = _held_out(torch, model, test_batches, tested)
    state["epoch"] += 1
    state["seconds"] += time.perf_counter() - began
    return train_loss, test_loss


def _keep(torch, netlib, out, model, opt, order, settings, state, log, train_loss, test_loss):
    """After an epoch: its line logged, the checkpoint written (``_CHECKPOINT``: all that
    decides the rest of the run), then from it the log and, if they are the best yet, the
    weights (``_write_from``).  A run stopped before the checkpoint is written continues
    from the epoch before; one stopped after it, from this one."""
    total = test_loss[0] + SCORE_WEIGHT * test_loss[1] + settings["policy_weight"] * test_loss[2]
    if total < state["best"]:
        state.update(best=float(total), best_epoch=state["epoch"], since=0)
    else:
        state["since"] += 1
    log.append(_log_line(state, train_loss, test_loss))
    buffer = io.BytesIO()
    torch.save({"settings": settings, "model": model.state_dict(), "optimizer": opt.state_dict(), "state": state,
                "log": log, "data_order": order.bit_generator.state, "torch_generator": torch.get_rng_state()},
               buffer)
    write_bytes(out / "checkpoint.pt", buffer.getvalue())
    _write_from(netlib, out, model, state, log)


def _write_from(netlib, out, model, state, log):
    """The log and, when the checkpoint's epoch is the best so far, the weights, as the
    checkpoint (`model`, `state`, `log`) has them."""
    write_text(out / "log.jsonl", "".join(json.dumps(line) + "\n" for line in log))
    if state["epoch"] and state["since"] == 0:
        netlib.save(out / "network.npz", arrays_of(model), {"training": "in progress"})


def _epoch_line(state, test_loss, policy_width):
    """The progress line of an epoch."""
    policy = f", policy loss {test_loss[2]:.4f} (top move {test_loss[3]:.1%})" if policy_width else ""
    return (f"epoch {state['epoch']}: held-out chance loss {test_loss[0]:.4f}, score loss "
            f"{test_loss[1]:.4f}{policy}" + (" (best)" if state["since"] == 0 else ""))


def _parameter_groups(model, learning_rate):
    """The optimizer's groups: the policy head at POLICY_LEARNING_RATE (scaled as the
    learning rate is), everything else at the learning rate."""
    head = [p for name, p in model.named_parameters() if name.split(".")[0] in ("context", "emb", "abias", "pat")]
    ids = {id(p) for p in head}
    groups = [{"params": [p for p in model.parameters() if id(p) not in ids and p.requires_grad]}]
    if head:
        groups.append({"params": head, "lr": POLICY_LEARNING_RATE * learning_rate / LEARNING_RATE})
    return groups


def _train_epoch(torch, model, opt, data, order, state, progress):
    """One pass over the training positions in `order`; the mean losses (chance, score,
    policy, and the policy's top-move agreement)."""
    np, _ = _numeric()
    from tqdm import tqdm

    model.train()
    sums, policy_positions, hits = np.zeros(3), 0, 0
    weight = POLICY_WEIGHT if model.policy_width else 0.0
    for k in tqdm(range(0, len(order), BATCH), desc=f"epoch {state['epoch'] + 1}", unit="batch",
                  disable=not progress, leave=False):
        ce, mse, pce, count, hit = _losses(torch, model, _batch(torch, data, order[k:k + BATCH]))
        loss = ce + SCORE_WEIGHT * mse + weight * pce
        opt.zero_grad()
        loss.backward()
        opt.step()
        size = len(order[k:k + BATCH])
        sums += (ce.item() * size, mse.item() * size, pce.item() * count)
        policy_positions += count
        hits += hit
    return (sums[0] / len(order), sums[1] / len(order), sums[2] / max(policy_positions, 1),
            hits / max(policy_positions, 1))


def _held_out(torch, model, batches, positions):
    """The mean losses on the held-out batches, as ``_train_epoch`` gives them."""
    np, _ = _numeric()
    model.eval()
    sums, policy_positions, hits = np.zeros(3), 0, 0
    with torch.no_grad():
        for b in batches:
            ce, mse, pce, count, hit = _losses(torch, model, b)
            sums += (ce.item() * len(b[2]), mse.item() * len(b[2]), pce.item() * count)
            policy_positions += count
            hits += hit
    return (sums[0] / positions, sums[1] / positions, sums[2] / max(policy_positions, 1),
            hits / max(policy_positions, 1))


# The fields of a line of the log, in order.
_LOG = ("epoch", "train_chance", "train_score", "train_policy", "held_out_chance", "held_out_score",
        "held_out_policy", "held_out_top_move", "seconds")


def _log_line(state, train_loss, test_loss):
    """A line of ``log.jsonl``: the epoch's losses (Python's numbers: a weights-only load
    refuses numpy's)."""
    return dict(zip(_LOG, (state["epoch"], *(round(float(x), 5) for x in (*train_loss[:3], *test_loss[:3])),
                           round(float(test_loss[3]), 4), round(float(state["seconds"]), 1))))


# What a checkpoint holds: the run's settings, the model's and the optimizer's state dicts,
# the training state (``_STATE``), the log's lines, the state of the data order's generator
# (numpy's) and of PyTorch's (dropout's).
_CHECKPOINT = ("settings", "model", "optimizer", "state", "log", "data_order", "torch_generator")

# A checkpoint's training state: each field's type and what it may be.
_STATE = {"epoch": (int, f"a whole number from 0 to {MAX_EPOCHS:,}"), "best": (float, "a number, or infinity"),
          "best_epoch": (int, "a whole number up to the epoch"), "since": (int, "a whole number up to the epoch"),
          "seconds": (float, "a finite number of seconds")}


def _resume(torch, netlib, ckpt, settings, model, opt, order):
    """The training state and the log's lines to start from: the checkpoint's, when it is
    this run's, with the model, the optimizer, the data order's generator `order` and
    PyTorch's set as it has them, and the log and the best weights written again from it
    (a run may have stopped between the checkpoint and them); a new state and an empty log
    when there is no checkpoint.  A checkpoint of another run (settings or data), or
    damaged, is refused in one line naming the file and what is wrong."""
    state = {"epoch": 0, "best": math.inf, "best_epoch": 0, "since": 0, "seconds": 0.0}
    if not os.path.lexists(ckpt):
        return state, []
    saved = _load_checkpoint(torch, ckpt)
    old = saved["settings"]
    if isinstance(old, dict) and _differs(old.get("data_fingerprint"), settings["data_fingerprint"]) and \
            not _differs({k: v for k, v in old.items() if k != "data_fingerprint"},
                         {k: v for k, v in settings.items() if k != "data_fingerprint"}):
        raise UsageError(f"{ckpt} was trained on other data (data_fingerprint {excerpt(old.get('data_fingerprint'))}, "
                         f"these folders' is {settings['data_fingerprint']}); choose another folder")
    if _differs(old, settings):
        raise UsageError(f"{ckpt} is another run's ({excerpt(old, 80)}); choose another folder")
    missing = [name for name in _CHECKPOINT if name not in saved]
    if missing:                     # an earlier version's: its run cannot go on as it would have
        raise UsageError(f"{ckpt}: cannot continue from it (it holds no {', '.join(missing)}); {_AGAIN}")
    state = saved["state"]
    for part, problem in (("state", lambda: _state_problem(state)),
                          ("log", lambda: _log_problem(saved["log"], state["epoch"])),
                          ("model", lambda: _tensors_problem(torch, saved["model"], model.state_dict())),
                          ("optimizer", lambda: _optimizer_problem(torch, saved["optimizer"], model, opt)),
                          ("data_order", lambda: _order_problem(saved["data_order"])),
                          ("torch_generator", lambda: _generator_problem(torch, saved["torch_generator"]))):
        wrong = problem()
        if wrong:
            raise UsageError(f"{ckpt}: {part}: {wrong}; {_AGAIN}")
    try:
        model.load_state_dict(saved["model"])
        # The moments alone: the hyperparameters are this run's (its settings are the checkpoint's).
        opt.load_state_dict({"state": saved["optimizer"]["state"], "param_groups": opt.state_dict()["param_groups"]})
        order.bit_generator.state = saved["data_order"]
        torch.set_rng_state(saved["torch_generator"])
    except Exception as e:          # what the checks above let through: PyTorch's or numpy's own checks
        raise UsageError(f"{ckpt}: cannot continue from it ({_load_error(e)}); {_AGAIN}") from None
    _write_from(netlib, ckpt.parent, model, state, saved["log"])
    return state, saved["log"]


_AGAIN = "delete it to train again from the start"      # what a checkpoint that cannot go on leaves


def _load_checkpoint(torch, ckpt):
    """The checkpoint file `ckpt` as saved (a dict with its ``settings``), or a UsageError
    naming it."""
    data = read_source(ckpt)              # a regular file, never a pipe or a device; bounded
    try:
        saved = torch.load(io.BytesIO(data), weights_only=True)   # tensors and plain data: no code runs
        if not isinstance(saved, dict) or "settings" not in saved:
            raise ValueError("not a checkpoint of tigris train")
    except Exception as e:          # whatever a damaged file makes PyTorch raise
        raise UsageError(f"{ckpt}: cannot continue from it ({_load_error(e)}); {_AGAIN}") from None
    return saved


def begun_with(out):
    """The settings of the training begun in the folder `out` (its checkpoint's, as ``fit``
    saved them: ``freeze_value`` among them), or None when none has begun there."""
    ckpt = Path(out) / "checkpoint.pt"
    if not os.path.lexists(ckpt):
        return None
    settings = _load_checkpoint(require_torch(), ckpt)["settings"]
    if not isinstance(settings, dict):
        raise UsageError(f"{ckpt}: cannot continue from it (its settings are not a run's); {_AGAIN}")
    return settings


def _differs(saved, expected):
    """Whether a checkpoint's value differs from the run's (plain data): a tensor in its
    place, which compares element by element, differs."""
    try:
        return bool(saved != expected)
    except Exception:               # a tensor of several elements has no truth value
        return True


def _load_error(e):
    """What went wrong in loading a checkpoint, in a few words: the first sentence of
    PyTorch's message, and of a weights-only load's long explanation, what it refused
    (the paragraph before its pointer to the documentation)."""
    text = str(e)
    refused = text.startswith("Weights only load failed")
    if refused:
        paragraphs = [p for p in text.split("\n\n") if p.strip() and not p.startswith("Check the documentation")]
        text = paragraphs[-1].rpartition("WeightsUnpickler error:")[2]
    words = " ".join(re.split(r"\.\s", text.strip(), maxsplit=1)[0].split()).rstrip(".")
    words = (words[:100] + "...") if len(words) > 100 else words
    if isinstance(e, KeyError) or not words:            # KeyError's text is the key alone
        words = f"{type(e).__name__} {words}".strip()
    return f"a weights-only load refuses it: {words}" if refused else words


def _log_problem(log, epochs):
    """What is wrong with a checkpoint's log (a line for each of its `epochs`), or None."""
    if not isinstance(log, list) or len(log) != epochs:
        return f"must be a line for each of the {epochs} epochs, not {excerpt(log)}"
    for k, line in enumerate(log, 1):
        if not isinstance(line, dict) or set(line) != set(_LOG):
            return f"line {k} must hold {', '.join(_LOG)}, not {excerpt(line)}"
        if type(line["epoch"]) is not int or line["epoch"] != k:
            return f"line {k}: epoch must be {k}, not {excerpt(line['epoch'])}"
        for name in _LOG[1:]:
            value = line[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                return f"line {k}: {name} must be a finite number, not {excerpt(value)}"
    return None


def _tensor_problem(torch, value, like):
    """What is wrong with `value`, a tensor that must have the dtype and shape of `like`
    and finite values, or None."""
    if not isinstance(value, torch.Tensor) or value.layout != torch.strided or value.dtype != like.dtype \
            or value.shape != like.shape:
        shape = value.shape if isinstance(value, torch.Tensor) else None
        return (f"must be a tensor of {like.dtype} and shape {tuple(like.shape)}, not "
                f"{excerpt(value) if shape is None else f'one of {value.dtype} and shape {tuple(shape)}'}")
    if not torch.isfinite(value).all():
        return "holds values that are not finite"
    return None


def _tensors_problem(torch, saved, expected):
    """What is wrong with `saved`, tensors by name that must be `expected`'s names, each
    of its dtype and shape and finite, or None."""
    if not isinstance(saved, dict):
        return f"must be tensors by name, not {excerpt(saved)}"
    for name in saved:
        if name not in expected:
            return f"{excerpt(name)} is not a weight of this network"
    for name, like in expected.items():
        if name not in saved:
            return f"no {name}"
        wrong = _tensor_problem(torch, saved[name], like)
        if wrong:
            return f"{name} {wrong}"
    return None


def _optimizer_problem(torch, saved, model, opt):
    """What is wrong with a checkpoint's optimizer state (AdamW's: per parameter, by its
    number, its step count and its two moments), or None."""
    params = [p for group in opt.param_groups for p in group["params"]]
    names = {id(p): name for name, p in model.named_parameters()}
    if not isinstance(saved, dict) or not isinstance(saved.get("state"), dict):
        return "must hold the state of each parameter"
    for key, entry in saved["state"].items():
        if type(key) is not int or not 0 <= key < len(params):
            return f"holds the state of a parameter {excerpt(key)}, which the network has not"
        name = names[id(params[key])]
        if not isinstance(entry, dict) or set(entry) != {"step", "exp_avg", "exp_avg_sq"}:
            return f"{name} must hold step, exp_avg and exp_avg_sq, not {excerpt(entry)}"
        step = entry["step"]
        # a step of 0 would divide by 0 in the bias correction
        if not isinstance(step, torch.Tensor) or step.layout != torch.strided or step.dim() != 0 \
                or not step.is_floating_point() or not (math.isfinite(step.item()) and step.item() >= 1
                                                        and step.item() == int(step.item())):
            return f"{name}: step must be a whole number of at least 1, not {excerpt(step)}"
        for moment in ("exp_avg", "exp_avg_sq"):
            wrong = _tensor_problem(torch, entry[moment], params[key])
            if wrong:
                return f"{name}: {moment} {wrong}"
        if (entry["exp_avg_sq"] < 0).any():
            return f"{name}: exp_avg_sq holds negative values (a mean of squares)"
    return None


def _order_problem(value):
    """What is wrong with the state of the data order's generator (numpy's PCG64), or None."""
    def whole(x, bits):
        return type(x) is int and 0 <= x < 1 << bits

    if not (isinstance(value, dict) and set(value) == {"bit_generator", "state", "has_uint32", "uinteger"}
            and value["bit_generator"] == "PCG64" and isinstance(value["state"], dict)
            and set(value["state"]) == {"state", "inc"} and whole(value["state"]["state"], 128)
            and whole(value["state"]["inc"], 128) and value["has_uint32"] in (0, 1)
            and type(value["has_uint32"]) is int and whole(value["uinteger"], 32)):
        return f"must be the state of numpy's PCG64 generator, not {excerpt(value)}"
    return None


def _generator_problem(torch, value):
    """What is wrong with the state of PyTorch's generator, or None (its content is
    checked as it is set)."""
    like = torch.get_rng_state()
    if not isinstance(value, torch.Tensor) or value.layout != torch.strided or value.dtype != like.dtype \
            or value.shape != like.shape:
        return f"must be PyTorch's generator state ({like.numel()} bytes), not {excerpt(value)}"
    return None


def _state_problem(state):
    """What is wrong with a checkpoint's training state, or None."""
    if not isinstance(state, dict) or set(state) != set(_STATE):
        return f"must hold {', '.join(_STATE)}"
    for name, (kind, meaning) in _STATE.items():
        value = state[name]
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
            return f"{name} must be {meaning}, not {excerpt(value)}"
    if not 0 <= state["epoch"] <= MAX_EPOCHS:
        return f"epoch must be a whole number from 0 to {MAX_EPOCHS:,}, not {excerpt(state['epoch'])}"
    if math.isnan(state["best"]) or state["best"] == -math.inf:
        return f"best must be {_STATE['best'][1]}, not {state['best']}"
    if not 0 <= state["best_epoch"] <= state["epoch"] or not 0 <= state["since"] <= state["epoch"]:
        return "best_epoch and since must be whole numbers up to the epoch"
    if not (math.isfinite(state["seconds"]) and state["seconds"] >= 0):
        return f"seconds must be {_STATE['seconds'][1]}, not {state['seconds']}"
    return None
