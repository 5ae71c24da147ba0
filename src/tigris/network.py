"""The learned evaluation: a network's weights file, and the network's judgement of a
position (every player's chance of finishing first, and their final scores) and, when it
has a policy head, of its moves (a probability for each legal action).

The search evaluates the network in compiled code (``tigris._net``) from the arrays this
module reads and checks; ``forward`` and ``policy_forward`` are the same passes in numpy,
the references the compiled ones are held to.  Training (``tigris.runs.train``) needs PyTorch;
reading and evaluating a network needs numpy only.

>>> import tigris
>>> from tigris import network
>>> net = network.load(players=3)          # the shipped network for 3-player games
>>> chances, scores = net.evaluate(tigris.Game(players=3, seed=1))
>>> round(sum(chances), 6)
1.0

The package ships its networks by *generation* (``generations()``) in two lines that
improve apart, each a file in ``networks/``: ``NAME-2p.npz`` for 2 players and
``NAME-3p4p.npz`` for 3 and 4 (each trained on games of the counts it serves; a generation
may have a file of one line only).  The knob ``network`` names a generation (``"gen1"``)
or a file of one's own, which serves every count; empty, it is the default generation of
the game's line (``DEFAULT``, by line; ``SHIPPED``: the default files by number of
players).  ``path_of`` says which file a value means.  A bot that names its generation
plays alike when a later one becomes the default.

>>> network.path_of("gen1", 3).name
'gen1-3p4p.npz'

The weights file (``tigris-network/2``)
---------------------------------------
A numpy ``.npz`` archive (read without pickles) of float32 arrays, the layers of
``ARRAYS`` (``w_sparse`` [N_SPARSE, h1], ``w_dense`` [N_DENSE, h1], ``b1`` [h1], ``w2``
[h2, h1], ``b2`` [h2], ``w3`` [8, h2], ``b3`` [8]), optionally the policy head's,
``POLICY_ARRAYS`` (``wp`` [hp, h1], ``bp`` [hp], ``emb`` [N_ACTIONS, hp], ``abias``
[N_ACTIONS], ``pat`` [N_PATTERNS]), all or none, and ``meta``, the UTF-8 bytes of a JSON
object: ``format``, ``feature_version`` (the encoding in ``tigris._net``, which must
match), ``policy_version`` with a policy head (its inputs in ``tigris._net``, which must
match too), what training wrote about its data, losses and calibration (``calibration``: the
held-out calibration error by number of players), and optionally ``recalibration``: by
number of players (``"2"``, ``"3"``, ``"4"``), the ``temperature`` and ``mover_bias``
that ``evaluate`` applies to the chances (``recalibrate``).  Every array is checked
(names, shapes, finite values) when the file is read, and the recalibration too.  A
``tigris-network/1`` file (no policy head) is read as before.

The recalibration is for the chances a person reads (``evaluate``; the luck of
``tigris.play.luck``): the search reads the raw outputs, a ranking signal, so that a
recalibration fitted again on new games never changes how a bot plays.
"""

import functools
import io
import json
import zipfile
from pathlib import Path

import numpy as np

from tigris import _net
from tigris._net import (FEATURE_VERSION, N_DENSE, N_OUTPUTS, N_PATTERNS, N_SPARSE, POLICY_VERSION, SCORE_SCALE,
                         encode, policy_inputs)
from tigris.constants import N_ACTIONS
from tigris.errors import UsageError, excerpt
from tigris.files import write_bytes
from tigris.sources import MAX_BYTES, check_source, parse_json, read_source

__all__ = ["FORMAT", "FORMATS", "ARRAYS", "POLICY_ARRAYS", "DEFAULT", "NETWORKS", "SHIPPED", "Network", "load", "default",
           "save", "from_knobs", "path_of", "generations", "generation_file", "names_generation", "recalibrate",
           "forward", "policy_forward", "encode", "policy_inputs", "FEATURE_VERSION", "N_SPARSE", "N_DENSE",
           "N_OUTPUTS", "N_PATTERNS", "POLICY_VERSION", "SCORE_SCALE"]

FORMAT = "tigris-network/2"
FORMATS = ("tigris-network/1", FORMAT)        # /1: written before the policy head, read alike
ARRAYS = ("w_sparse", "w_dense", "b1", "w2", "b2", "w3", "b3")
POLICY_ARRAYS = ("wp", "bp", "emb", "abias", "pat")
#: The folder of the shipped networks: a generation NAME is NAME-2p.npz and NAME-3p4p.npz.
NETWORKS = Path(__file__).resolve().parent / "networks"
#: Which line of networks serves games of a number of players: a generation's file of it
#: is NAME-LINE.npz.
_FILES = {2: "2p", 3: "3p4p", 4: "3p4p"}
#: The generation an empty ``network`` knob means, by line (docs/results.md, "The
#: policy", tells how each was made).  A new default is its file in NETWORKS and this line.
DEFAULT = {"2p": "gen2", "3p4p": "gen1"}
MAX_WIDTH = _net.MAX_HIDDEN
#: The recalibration's bounds: a temperature that flattens or sharpens the chances up to
#: tenfold, and a shift of the mover's logit of at most 5 (a factor of about 150).
TEMPERATURES = (0.1, 10.0)
MAX_MOVER_BIAS = 5.0


class Network(_net.Network):
    """A network's weights and what training wrote about them (``meta``), as ``load``
    reads them; ``evaluate(game)`` gives every player's chance of finishing first and
    predicted final score, from the position as its player to move sees it."""

    def __init__(self, arrays, meta=None):
        policy = {name: arrays[name] for name in POLICY_ARRAYS if name in arrays}
        super().__init__(*(arrays[name] for name in ARRAYS), **policy)
        self.meta = dict(meta or {})
        self.path = None

    @property
    def named_arrays(self):
        """The arrays as the weights file holds them: name -> array."""
        return dict(zip(ARRAYS + POLICY_ARRAYS, self.arrays))

    @property
    def recalibration(self):
        """{players: (temperature, mover_bias)}: the recalibration of the chances by
        number of players (empty: none), as the file's meta holds it."""
        return {int(n): (c["temperature"], c["mover_bias"])
                for n, c in self.meta.get("recalibration", {}).items()}

    def evaluate(self, game, raw=False):
        """Every player's chance of finishing first and predicted final score, by player
        (two lists), as the player to decide sees the position; the chances recalibrated
        for the game's number of players (``recalibrate``) unless `raw` (what the search
        reads) or the file has no recalibration for it.  The game must not be over."""
        chances, scores = super().evaluate(game)
        return self._recalibrated(game, chances, raw), scores

    def _recalibrated(self, game, chances, raw):
        fit = None if raw else self.recalibration.get(game.players)
        return chances if fit is None else recalibrate(chances, game.current_player, *fit).tolist()

    @property
    def widths(self):
        """The hidden layers' widths (h1, h2)."""
        return self.arrays[2].shape[0], self.arrays[4].shape[0]

    def forward(self, game, raw=False):
        """``evaluate`` in numpy (the reference the compiled pass is held to)."""
        active, dense = encode(game)
        logits, scores = forward(dict(zip(ARRAYS, self.arrays)), active, dense)
        n, v = game.players, game.current_player
        e = np.exp(logits[:n] - logits[:n].max())
        e /= e.sum()
        return (self._recalibrated(game, [float(e[(p - v) % n]) for p in range(n)], raw),
                [float(scores[(p - v) % n]) for p in range(n)])

    def policy_forward(self, game):
        """``policy`` in numpy (the reference the compiled pass is held to)."""
        active, dense = encode(game)
        _, actions, offsets, patterns = policy_inputs([game])
        prob = policy_forward(self.named_arrays, active, dense, actions, offsets, patterns)
        return {int(a): float(p) for a, p in zip(actions, prob)}


def forward(arrays, active, dense):
    """The network's outputs for one position's features (``encode``): the seats'
    logits of finishing first and their final scores (both counted from the mover)."""
    h = arrays["b1"] + arrays["w_sparse"][active].sum(axis=0) + dense @ arrays["w_dense"]
    h = np.maximum(h, 0)
    h = np.maximum(arrays["b2"] + arrays["w2"] @ h, 0)
    out = arrays["b3"] + arrays["w3"] @ h
    return out[:4], out[4:] * SCORE_SCALE


def recalibrate(chances, mover, temperature, mover_bias):
    """Chances (one a player, adding up to 1; or rows of them) recalibrated: the mover's
    logit shifted by `mover_bias`, every logit divided by `temperature`, normalised
    again; an array of the same shape.  A network trained partly on a search's own
    estimates reads the player to decide too high or too low on the games of a later
    search; this is the two-number fit (temperature scaling, with a term for the mover)
    of ``tools/recalibrate_network.py``.

    >>> from tigris.network import recalibrate
    >>> recalibrate([0.6, 0.4], 0, 1.0, 0.0).round(3).tolist()
    [0.6, 0.4]
    >>> recalibrate([0.6, 0.4], 0, 2.0, 0.0).round(3).tolist()
    [0.551, 0.449]
    """
    z = np.log(np.maximum(np.asarray(chances, dtype=float), 1e-300))
    z[..., mover] += mover_bias
    z = z / temperature
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _check_recalibration(meta, path):
    """Refuse a recalibration that is not {"2"|"3"|"4": {"temperature": T, "mover_bias":
    b}} with T and b finite numbers within their bounds (other keys of an entry say how
    it was fitted)."""
    cal = meta.get("recalibration", {})
    where = f"{path}: meta: recalibration"
    if not isinstance(cal, dict):
        raise UsageError(f"{where}: not an object, but {excerpt(cal)}")
    for n, fit in cal.items():
        if n not in ("2", "3", "4"):
            raise UsageError(f"{where}: {excerpt(n)} is not a number of players (2, 3 or 4)")
        if not isinstance(fit, dict):
            raise UsageError(f"{where}: {n}: not an object, but {excerpt(fit)}")
        for key, (low, high) in (("temperature", TEMPERATURES),
                                 ("mover_bias", (-MAX_MOVER_BIAS, MAX_MOVER_BIAS))):
            value = fit.get(key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not low <= value <= high:
                raise UsageError(f"{where}: {n}: {key} must be a number from {low:g} to "
                                 f"{high:g}, not {excerpt(value)}")


def policy_forward(arrays, active, dense, actions, offsets, patterns):
    """The policy's probabilities of `actions` (a position's legal actions), from the
    position's features (``encode``) and the actions' patterns (``policy_inputs``: the
    pattern features of action k are ``patterns[offsets[k]:offsets[k + 1]]``)."""
    h = np.maximum(arrays["b1"] + arrays["w_sparse"][active].sum(axis=0) + dense @ arrays["w_dense"], 0)
    g = np.maximum(arrays["bp"] + arrays["wp"] @ h, 0)
    logits = arrays["abias"][actions] + arrays["emb"][actions] @ g
    ends = list(offsets[1:]) + [len(patterns)]
    logits = logits + np.array([arrays["pat"][patterns[b:e]].sum() for b, e in zip(offsets, ends)])
    e = np.exp(logits - logits.max())
    return e / e.sum()


def save(path, arrays, meta):
    """Write a weights file (``tigris-network/2``) of these arrays (name -> array; the
    policy head's all or none) and metadata (JSON-able)."""
    meta = dict(meta, format=FORMAT, feature_version=FEATURE_VERSION)
    if "emb" in arrays:
        meta["policy_version"] = POLICY_VERSION
    names = ARRAYS + (POLICY_ARRAYS if "emb" in arrays else ())
    data = {name: np.ascontiguousarray(arrays[name], dtype=np.float32) for name in names}
    _check_arrays(data, path)
    _check_recalibration(meta, path)
    data["meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **data)
    write_bytes(path, buffer.getvalue())        # in one piece: a stopped write leaves the old file


def generation_file(name: str, players: int) -> Path:
    """The weights file of the shipped generation `name` for games of `players` (whether
    or not the package holds it: ``generations()``)."""
    if players not in _FILES:
        raise UsageError(f"players must be 2, 3 or 4, not {excerpt(players)}")
    return NETWORKS / f"{name}-{_FILES[players]}.npz"


def default(players: int) -> str:
    """The name of the default generation for games of `players` (``DEFAULT``)."""
    if players not in _FILES:
        raise UsageError(f"players must be 2, 3 or 4, not {excerpt(players)}")
    return DEFAULT[_FILES[players]]


def generations(players: int | None = None) -> list[str]:
    """The names of the shipped generations, sorted: those with a file in ``NETWORKS``
    (with `players`, a file for that number of players)."""
    names = {p.name.rsplit("-", 1)[0] for line in set(_FILES.values()) for p in NETWORKS.glob(f"*-{line}.npz")}
    counts = [players] if players is not None else list(_FILES)
    return sorted(n for n in names if any(_shipped(n, p) for p in counts))


def _shipped(name: str, players: int) -> bool:
    """Whether the package holds a file of generation `name` for games of `players`."""
    try:
        return generation_file(name, players).is_file()
    except (OSError, ValueError):           # a name too long for a file's, say
        return False


def names_generation(network: str | None) -> bool:
    """Whether a ``network`` knob's value is a generation's name rather than a file's:
    not empty, no folder in it, not ending in ``.npz``."""
    if not network:
        return False
    return not any(sep in network for sep in ("/", "\\")) and not network.endswith(".npz")


def path_of(network: str | None, players: int = 2) -> Path:
    """The weights file the knob ``network`` means for games of `players`: empty, the
    default generation's (``DEFAULT``); a generation's name (``names_generation``), that
    shipped generation's; else the file it names.  A UsageError for a generation the
    package does not ship lists those it does."""
    if network and not names_generation(network):
        return Path(network)
    name = network or default(players)
    if not _shipped(name, players):
        if name in generations():
            raise UsageError(f"the network generation {name} has no file for {players} players "
                             f"(its generations for {players}: {', '.join(generations(players))})")
        shipped = ", ".join(generations()) or "none"
        raise UsageError(f"{excerpt(name)} is not a shipped network generation (shipped: {shipped}); "
                         f"a file of one's own is named with a folder (./NAME) or ending in .npz")
    return generation_file(name, players)


#: The default generation's files by the number of players (read ``path_of("")`` rather:
#: this is fixed as the package is imported).
SHIPPED = {players: generation_file(default(players), players) for players in _FILES}


@functools.lru_cache(maxsize=8)
def _cached(path, stamp):
    return _read(path)


def load(path=None, players=2):
    """The network of a weights file (without `path`, the default generation's for games
    of `players`), checked: a UsageError names the file and what is wrong.  Reading the
    same unchanged file again gives the same object.  (A knob's value, which may name a
    generation, is ``from_knobs``'s.)"""
    path = Path(path) if path is not None else path_of("", players)
    try:
        st = path.stat()
    except OSError as e:
        raise UsageError(f"{path}: cannot read the network ({e.strerror or e})") from None
    check_source(path)                              # a regular file, never a pipe or a device
    return _cached(str(path.resolve()), (st.st_size, st.st_mtime_ns))


def _archive(path):
    """The bytes of the weights file `path` (``sources.read_source``: a regular file, at
    most ``MAX_BYTES``) as a file object for ``np.load``, once its members unpacked would
    also fit in ``MAX_BYTES`` (a small archive may unpack to gigabytes)."""
    data = io.BytesIO(read_source(path))
    try:
        with zipfile.ZipFile(data) as z:
            unpacked = sum(member.file_size for member in z.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as e:
        raise UsageError(f"{path}: not a {FORMAT} file ({excerpt(str(e), 80)})") from None
    if unpacked > MAX_BYTES:
        raise UsageError(f"{path}: not a {FORMAT} file (its arrays would take "
                         f"{unpacked // 2**20} MB)")
    data.seek(0)
    return data


def _read(path):

    try:
        with np.load(_archive(path), allow_pickle=False) as z:
            names = set(z.files)
            expected = set(ARRAYS) | {"meta"} | (set(POLICY_ARRAYS) if names & set(POLICY_ARRAYS) else set())
            if names != expected:
                missing, extra = sorted(expected - names), sorted(names - expected)
                raise UsageError(f"{path}: not a {FORMAT} file (" +
                                 (f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}") + ")")
            data = {name: z[name] for name in expected}
    except UsageError:
        raise
    except Exception as e:      # a damaged archive makes zipfile, zlib or numpy's header parser raise anything
        raise UsageError(f"{path}: not a {FORMAT} file ({excerpt(str(e), 80)})") from None
    meta_bytes = data.pop("meta")
    try:
        if meta_bytes.dtype != np.uint8 or meta_bytes.ndim != 1:
            raise ValueError("not bytes")
        meta = parse_json(meta_bytes.tobytes(), ValueError, "its bytes")
    except (ValueError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: meta: not a JSON object ({excerpt(str(e), 60)})") from None
    if not isinstance(meta, dict) or meta.get("format") not in FORMATS:
        raise UsageError(f"{path}: meta: format must be {' or '.join(map(repr, FORMATS))}, not "
                         f"{excerpt(meta.get('format') if isinstance(meta, dict) else meta)}")
    if meta.get("feature_version") != FEATURE_VERSION:
        raise UsageError(f"{path}: meta: feature_version {excerpt(meta.get('feature_version'))} is not this "
                         f"version's encoding ({FEATURE_VERSION}); train the network again")
    if "emb" in data and meta.get("policy_version") != POLICY_VERSION:
        raise UsageError(f"{path}: meta: policy_version {excerpt(meta.get('policy_version'))} is not this "
                         f"version's policy inputs ({POLICY_VERSION}); train the network again")
    _check_arrays(data, path)
    _check_recalibration(meta, path)
    net = Network(data, meta)
    net.path = Path(path)
    return net


def from_knobs(evaluator, network="", players=2):
    """The network the knobs ``evaluator`` and ``network`` name for games of `players`
    (the file ``path_of`` gives: empty, the default generation's for that count), or None
    for the heuristic evaluator."""
    return load(path_of(network, players), players) if evaluator == "net" else None


def _check_arrays(data, path):
    """Refuse arrays of the wrong kind, shape or with values that are not finite."""
    for name in ARRAYS + tuple(n for n in POLICY_ARRAYS if n in data):
        a = data[name]
        if a.dtype != np.float32:
            raise UsageError(f"{path}: {name}: float32 values expected, not {a.dtype}")
        if not np.isfinite(a).all():
            raise UsageError(f"{path}: {name}: holds values that are not finite")
    if data["b1"].ndim != 1 or data["b2"].ndim != 1:
        raise UsageError(f"{path}: b1 and b2 must be vectors")
    h1, h2 = data["b1"].shape[0], data["b2"].shape[0]
    if not (1 <= h1 <= MAX_WIDTH and 1 <= h2 <= MAX_WIDTH):
        raise UsageError(f"{path}: hidden layers of {h1} and {h2}: each must be 1 to {MAX_WIDTH} wide")
    shapes = {"w_sparse": (N_SPARSE, h1), "w_dense": (N_DENSE, h1), "b1": (h1,), "w2": (h2, h1),
              "b2": (h2,), "w3": (N_OUTPUTS, h2), "b3": (N_OUTPUTS,)}
    if "emb" in data:
        if data["bp"].ndim != 1:
            raise UsageError(f"{path}: bp must be a vector")
        hp = data["bp"].shape[0]
        if not 1 <= hp <= MAX_WIDTH:
            raise UsageError(f"{path}: a policy context of {hp}: it must be 1 to {MAX_WIDTH} wide")
        shapes.update(wp=(hp, h1), bp=(hp,), emb=(N_ACTIONS, hp), abias=(N_ACTIONS,), pat=(N_PATTERNS,))
    for name, shape in shapes.items():
        if data[name].shape != shape:
            raise UsageError(f"{path}: {name}: shape {data[name].shape}, expected {shape}")
