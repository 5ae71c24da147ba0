"""Expert iteration, generation after generation (``tigris learn``): the current bot plays
itself and its deeper search labels the positions (``tigris.runs.selfplay``), a network
is trained from the current one on the data of the last generations
(``tigris.runs.train``), and an SPRT at equal time between the candidate and the current
bot (``tigris.match``) decides whether the candidate becomes the current one.

>>> from tigris.runs import learn
>>> s = learn.settings(players=(2,), games=600)                   # doctest: +SKIP
>>> learn.run(s, "loops/2p", generations=3, jobs=2)               # doctest: +SKIP

A line of the loop improves the networks of its player counts (``LINES``): the 2-player
one self-plays and gates at 2 players; the 3-and-4-player one self-plays at 4 and gates
at 3 and then at 4, a seat or two of each table taken by the current bot (the field),
and promotes on H1 at both.  Every generation's bots are ``bot``'s knobs with its own
network: ``bot.toml`` at the bot's budget (self-play, labels), ``gate.toml`` at the
gate's (``seconds`` a move, or ``iterations``).

The folder (``tigris-learn/1``)
-------------------------------
``learn.json``: the settings (``settings``), written once; ``generations.jsonl``: a line
per finished generation (``docs/FORMATS.md``); ``current.toml``: the current bot.
``gen-0/``: the starting network (``network.npz``, a copy of ``start``'s file) and its
bots (``bot.toml``, ``gate.toml``).  ``gen-K/``: ``selfplay/`` (a ``tigris selfplay``
folder), ``train/`` (a ``tigris train`` folder), ``network.npz`` (the candidate, copied
from ``train/`` once training ends), ``bot.toml``, ``gate.toml``, ``field-1.toml`` and
``field-2.toml`` (the current bot's ``gate.toml`` under other names: a gate's field),
``gate-P/`` (the gate at P players, a results folder), ``clock.json`` (each stage's
wall seconds and this process's CPU seconds in it, added up over the runs that did it)
and ``stages.json`` (each finished stage's entry, as the generation's line holds it).
Only the self-play data of the generations the next one trains on is kept (``window``).

A finished stage is not run again while what it made is there (self-play: its data, or
the network trained on it; training: the network; a gate: its folder), so the folder goes
on where it stopped without its self-play data and its training folders
(``gen-K/selfplay/``, ``gen-K/train/``: the bulk of it; deleted to make room, or a copy
kept without them).  Only a generation whose training had not finished plays its
self-play again (the same games); a later one trains on the window's data that is there,
and its line names the folders it trained on.

The loop's record (``learn.json``, ``generations.jsonl``, each ``gen-K/stages.json`` and
``clock.json``, the current network) names no path of the machine: the log's commands name
the folder's paths relative to it, and each run writes the current bot's files again.
Copied elsewhere (a repository), it goes on from its next generation there.

The same call again continues where a run stopped, killed at any stage: self-play
continues its folder, training its checkpoint, the gate its games (``sprt_match``'s
``resume``), each as if it had not stopped where it is deterministic (self-play and
training; a gate at a fixed number of iterations too, at the same ``jobs``).  Settings
other than the folder's are refused, naming the field, except ``CHANGEABLE``'s: a gate's
most games, whether the value trains and self-play's policy target may change between
runs, for the gates, trainings and self-plays not yet begun (``learn.json`` then holds the
new value; each generation's line its gate's own ``--max-games``, its training's own
``--freeze-value`` or not and its self-play's own ``--policy-target``).
"""

import contextlib
import inspect
import json
import math
import os
import shlex
import shutil
import sys
import time
from pathlib import Path

from tigris import bots as botlib
from tigris import knobs
from tigris._plumbing import checks, jsonl, locks
from tigris._plumbing.tomlfile import toml_string
from tigris.errors import Interrupted, UsageError, excerpt
from tigris.files import check_target, open_append, write_bytes, write_text
from tigris.play import seeds
from tigris.runs import selfplay
from tigris.runs.train import EPOCHS, MAX_EPOCHS, PATIENCE
from tigris.sources import read_json, read_source

__all__ = ["FORMAT", "LINES", "DEFAULT_BOT", "GAMES", "LABELS", "POLICY_TARGET", "FULL_SHARE", "POSITIONS",
           "LABEL_ITERATIONS", "WINDOW", "SECONDS", "SPRT", "MAX_GATE_GAMES", "MAX_SEED", "MAX_WINDOW", "LOG",
           "settings", "folder_settings", "run", "read_generations", "stage_seed"]

FORMAT = "tigris-learn/1"
LINES = ((2,), (3, 4))            # the player counts a loop improves: a network file each
DEFAULT_BOT = "ismcts-fast"       # its knobs, with each generation's network
# A generation's labels come from every decision's own search (labels "cap", every
# decision in full, at the bot's own iterations): nine times the labelled positions a CPU
# hour of separate 5,000-iteration searches (docs/results.md, "Cheaper targets: labelled
# positions per CPU hour").  The target is shrunk-q: its first generation was promoted,
# +60 Elo, where three of completed-q's from the same bot read +7, -18 and -15
# (docs/results.md, "Sharper targets").
GAMES = 1200                      # self-play games a generation: about 170,000 positions with 2 players
LABELS = "cap"
POLICY_TARGET = "shrunk-q"
FULL_SHARE = 1.0
POSITIONS = 1000                  # labels a game at most: with every decision searched in full, all of them
LABEL_ITERATIONS = None           # the label searches': None, the bot's own iterations
WINDOW = 3                        # generations whose self-play data trains the next
MAX_WINDOW = 1000
SECONDS = 0.1                     # the gate's time a move, each bot
SPRT = {"elo0": 0.0, "elo1": 30.0}
# A candidate some 30 Elo stronger, what a generation has gained here, is promoted by
# SPRT(0, 30) in 58% of gates of at most 800 games, 24% of 400 (tools/gate_power.py).
MAX_GATE_GAMES = 800
MAX_SEED = 999_999                # a stage's seed stays a tournament's (stage_seed)
GENERATIONS = 100_000             # generations of one base seed before the next seed's
LOG = "generations.jsonl"
SETTINGS_FILE = "learn.json"
STAGES = ("selfplay", "train", "gate")
# The option of each setting, for a rerun whose settings differ.
_OPTIONS = {"params": "--bot (its knobs)", "gate": "--seconds or --gate-iterations", "sprt": "--sprt"}
# Settings a continued loop may change, and what they decide from then on: only stages not
# yet begun (a gate under way keeps the most games it began with, a training under way its
# value frozen or not), so no finished stage reads otherwise.
CHANGEABLE = {"max_gate_games": "the gates not yet begun", "train_value": "the trainings not yet begun",
              "policy_target": "the self-plays not yet begun"}


def settings(players=(2,), bot=DEFAULT_BOT, start=None, games=GAMES, positions=POSITIONS,
             label_iterations=LABEL_ITERATIONS, labels=LABELS, policy_target=POLICY_TARGET,
             full_share=FULL_SHARE, window=WINDOW, seconds=SECONDS, gate_iterations=None,
             sprt=None, max_gate_games=MAX_GATE_GAMES, train_value=False, epochs=EPOCHS,
             patience=PATIENCE, seed=0):
    """A loop's settings, checked (a UsageError names the option): the line `players`
    (``LINES``); `bot`, an ismcts configuration searching with its network, whose knobs
    every generation plays with; `start`, the first network (a generation's name or a
    file; default the shipped default's); self-play's `games`, `positions`,
    `label_iterations` (None: the bot's own ``iterations``), `labels`, `policy_target` and
    `full_share` (``selfplay.settings``); training on the last `window` generations' data for at most
    `epochs` (`patience`), the value frozen unless `train_value`; the gate's budget, a
    move each (`seconds`, or `gate_iterations` in its place), its SPRT (`sprt`: elo0,
    elo1, alpha, beta) and `max_gate_games`; the base `seed`."""
    from tigris.match import check_sprt
    from tigris.tournament import MAX_GAMES

    line = tuple(sorted(players)) if isinstance(players, (list, tuple)) else None
    if line not in LINES:
        raise UsageError(f"--players must be 2 (the 2-player line) or 3 4 (the 3-and-4-player line), "
                         f"not {excerpt(players)}")
    conf = botlib.configuration(bot)
    if conf.kind != "ismcts" or conf.params.get("evaluator") != "net" or conf.params.get("priors") != "net":
        raise UsageError(f"--bot {conf.path}: the loop's bot must be an ismcts configuration that searches "
                         f"with its network (evaluator = \"net\", priors = \"net\"): each generation gives "
                         f"it its own")
    if label_iterations is None:
        label_iterations = conf.params.get("iterations")
        if label_iterations is None:
            raise UsageError(f"--bot {conf.path} has no iterations a move (it plays by time): give "
                             f"--label-iterations")
    selfplay.settings(games=games, players=max(line), bot=bot, positions=positions,
                      label_bot=bot if labels == "separate" else None, label_iterations=label_iterations,
                      labels=labels, policy_target=policy_target, full_share=full_share, seed=seed)
    try:
        for name, value, low, high in (("window", window, 1, MAX_WINDOW), ("seed", seed, 0, MAX_SEED),
                                       ("max gate games", max_gate_games, 1, MAX_GAMES),
                                       ("epochs", epochs, 1, MAX_EPOCHS), ("patience", patience, 1, MAX_EPOCHS)):
            checks.whole(name, value, low, high)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if gate_iterations is not None:
        gate = {"seconds": None, "iterations": knobs.check_value("ismcts", "iterations", gate_iterations,
                                                                 where="gate iterations")}
    else:
        gate = {"seconds": knobs.check_value("ismcts", "seconds", seconds, where="seconds"), "iterations": None}
    s = {"format": FORMAT, "players": list(line), "bot": conf.name, "params": conf.given,
         "start": _start(start, line), "games": games, "positions": positions,
         "label_iterations": label_iterations, "labels": labels, "policy_target": policy_target,
         "full_share": full_share if labels == "cap" else None, "window": window, "gate": gate,
         "sprt": check_sprt(**(SPRT if sprt is None else sprt)), "max_gate_games": max_gate_games,
         "train_value": bool(train_value), "epochs": epochs, "patience": patience, "seed": seed}
    return json.loads(json.dumps(s))          # as learn.json holds them


def folder_settings(out):
    """The keyword arguments of ``settings`` that made the loop in the folder `out` (its
    learn.json), or {} when it holds none: a continued run takes from them what it is not
    given (``tigris learn OUT`` alone goes on).  A learn.json that is not a loop's
    settings is refused, naming the file and the field."""
    path = Path(out) / SETTINGS_FILE
    if not (path.exists() or path.is_symlink()):
        return {}
    check_target(path, option="cannot write")     # a file the loop writes: never read through a link
    s = read_json(path)
    if not isinstance(s, dict) or s.get("format") != FORMAT:
        raise UsageError(f"{path}: not the settings of a tigris learn folder ({FORMAT})")
    # learn.json holds settings's arguments by their names, the gate's budget as "gate"
    keys = [key for key in inspect.signature(settings).parameters if key not in ("seconds", "gate_iterations")]
    missing = [key for key in (*keys, "gate") if key not in s]
    gate = s.get("gate")
    if missing or not isinstance(gate, dict) or set(gate) != {"seconds", "iterations"}:
        field = missing[0] if missing else "gate"
        raise UsageError(f"{path}: {field}: missing or not a loop's setting; put the folder's learn.json back")
    if not isinstance(s["bot"], str) or not s["bot"]:
        raise UsageError(f"{path}: bot must be a bot's name, not {excerpt(s['bot'])}")
    kw = {key: s[key] for key in keys}
    kw.update(seconds=gate["seconds"] if gate["seconds"] is not None else SECONDS,
              gate_iterations=gate["iterations"])
    if kw["full_share"] is None:                   # held only with labels "cap"
        kw["full_share"] = FULL_SHARE
    return kw


def _start(start, line):
    """The first network of a loop of the line `line`, as its settings name it: a shipped
    generation's name, or a file's absolute path; it must have a policy head."""
    from tigris import network

    name = start or network.default(line[0])
    path = network.path_of(name, line[0])          # a UsageError for a generation not shipped
    if not network.load(path).has_policy:
        raise UsageError(f"--start {path}: the network has no policy head, which the bot's "
                         f"priors = \"net\" needs")
    return name if network.names_generation(name) else str(Path(name).resolve())


def stage_seed(seed, generation, stage):
    """The seed of `stage` (``STAGES``) of generation `generation` of a loop of base
    `seed`: apart for every stage and generation (their deals never meet)."""
    return seeds.stage_seed(seed, generation, STAGES.index(stage), GENERATIONS, len(STAGES))


def run(s, out, generations=None, jobs=None, progress=True, backend="loky", scheduler=None):
    """Run `generations` more generations of the loop of settings `s` (``settings``) in
    the folder `out` (None: until stopped), continuing what it holds; returns the lines
    of its generations.jsonl.  The games run on `jobs` worker processes here, or on the
    dask cluster of `scheduler` (`backend` "dask").  Ctrl-C (or SIGTERM at the command
    line) raises Interrupted, saying in one line what is kept."""
    from tigris._plumbing.backends import Backend
    from tigris.record import MAX_NAME

    Backend(backend, jobs, scheduler)             # refused before anything is written
    if generations is not None:
        try:
            checks.whole("generations", generations, 1, GENERATIONS - 1)
        except ValueError as e:
            raise UsageError(str(e)) from None
    out = Path(out).resolve()                     # the bots' files are named by absolute paths
    if len(str(out / f"gen-{GENERATIONS}" / "field-2.toml")) > MAX_NAME:
        raise UsageError(f"{out}: a path this long cannot name the gate's bots in their game records "
                         f"(at most {MAX_NAME} characters): choose a shorter folder")
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: is not a folder; name a folder for the loop")
    with locks.hold(out):                         # one run at a time in a folder
        return _Loop(s, out, jobs, progress, backend, scheduler).run(generations)


def read_generations(out, repair=False):
    """The lines of `out`/generations.jsonl, each checked (a UsageError names the file,
    the line and the field); a torn last line is ignored with a warning, and cut off the
    file when `repair` is set."""
    path = Path(out) / LOG
    if not path.exists():
        return []
    values, torn = jsonl.read(path)
    lines = []
    for lineno, item in values:
        problem = _line_problem(item, len(lines) + 1, lines[-1]["current"] if lines else 0)
        if problem:
            raise UsageError(f"{path}: line {lineno}: {problem}")
        lines.append(item)
    jsonl.settle(path, torn, repair)
    return lines


def _line_problem(line, k, before):
    """What is wrong with the line of generation `k`, the current network being
    generation `before`'s until then, or None."""
    if not isinstance(line, dict):
        return "not a generation's line (not a JSON object)"
    if type(line.get("generation")) is not int or line["generation"] != k:
        return f"generation must be {k} (the lines number them from 1), not {excerpt(line.get('generation'))}"
    if not isinstance(line.get("promoted"), bool):
        return f"promoted must be true or false, not {excerpt(line.get('promoted'))}"
    want = k if line["promoted"] else before
    if type(line.get("current")) is not int or line["current"] != want:
        return f"current must be {want} (the current network after it), not {excerpt(line.get('current'))}"
    if type(line.get("from")) is not int or not 0 <= line["from"] < k:
        return f"from must be the generation it started from (0 to {k - 1}), not {excerpt(line.get('from'))}"
    for stage in ("selfplay", "train"):
        if not isinstance(line.get(stage), dict):
            return f"{stage} must be an object (the stage's entry), not {excerpt(line.get(stage))}"
    gates = line.get("gate")
    if not isinstance(gates, dict) or not gates or not all(
            p in ("2", "3", "4") and isinstance(g, dict) for p, g in gates.items()):
        return f"gate must be an object of the gates by player count (\"2\", \"3\", \"4\"), not {excerpt(gates)}"
    judged = line.get("suite")          # since generations were judged on the suite
    if judged is not None and not (isinstance(judged, dict) and all(
            type(judged.get(f)) is int for f in ("policy_right", "positions"))
            and 0 <= judged["policy_right"] <= judged["positions"]
            and (judged.get("policy_share") is None or (type(judged["policy_share"]) in (int, float)
                                                        and 0 <= judged["policy_share"] <= 100))):
        return (f"suite must be {{\"policy_right\": R, \"positions\": N, \"policy_share\": S}}, "
                f"0 <= R <= N, 0 <= S <= 100 (S absent before it was measured), not {excerpt(judged)}")
    entries = [(stage, line[stage]) for stage in ("selfplay", "train")]
    entries += [(f"gate.{p}", g) for p, g in gates.items()]
    for where, entry in [("", line)] + entries:
        for field in _NUMBERS:
            value = entry.get(field)
            if value is not None and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                                          and math.isfinite(value) and value >= _LEAST.get(field, -math.inf)):
                return f"{where + '.' if where else ''}{field} must be a number, not {excerpt(value)}"
        for field in ("elo_ci", "first_elo_ci"):
            ci = entry.get(field)
            if ci is not None and not (isinstance(ci, list) and len(ci) == 2 and all(
                    x is None or (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x))
                    for x in ci)):
                return f"{where}.{field} must be [low, high] (each a number or null), not {excerpt(ci)}"
    return None


# The numbers of a generation's line read back (``tigris.runs.generations``), where they
# are given: each checked to be one (and at least _LEAST's).
_NUMBERS = ("games", "positions", "wins", "draws", "losses", "cpu_seconds", "wall_seconds", "held_out_policy",
            "held_out_top_move", "elo", "first_elo")
_LEAST = {"games": 0, "positions": 0, "wins": 0, "draws": 0, "losses": 0, "cpu_seconds": 0, "wall_seconds": 0}


class _Loop:
    """A run of the loop of settings `s` in the folder `out`, which it holds."""

    def __init__(self, s, out, jobs, progress, backend, scheduler):
        self.s, self.out, self.progress = s, out, progress
        self.jobs = jobs or os.cpu_count() or 1
        self.where = {"backend": backend, "scheduler": scheduler}
        self.at = None                # (generation, stage, its folder) under way

    def gen(self, k):
        return self.out / f"gen-{k}"

    def say(self, text):
        """A line on stderr: a stage starts or ends."""
        if self.progress:
            print(f"learn: {text}", file=sys.stderr, flush=True)

    def run(self, generations):
        """The loop: the folder settled, then the generations, each logged as it ends."""
        self._writable(self.out, (SETTINGS_FILE, LOG, "current.toml"))
        for key, was, now in _hold_settings(self.out, self.s):
            self.say(f"{key.replace('_', ' ')} {was} -> {now}, for {CHANGEABLE[key]}")
        lines = read_generations(self.out, repair=True)
        self._start()
        # The current bot's files written again: they name its network by this folder's
        # path, which a folder copied elsewhere (its lasting record: FORMATS.md) changes.
        current = lines[-1]["current"] if lines else 0
        if current:
            self._bots(current)
        self._current(current)
        self._prune(len(lines))
        made = 0
        try:
            while generations is None or made < generations:
                k = len(lines) + 1
                line = self.generation(k, lines[-1]["current"] if lines else 0)
                self.at = None
                jsonl.end_last_line(self.out / LOG)
                with open_append(self.out / LOG) as f:
                    jsonl.append(f, line)
                lines.append(line)
                made += 1
                self._current(line["current"])
                self._prune(k)
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted{self._kept()}; {self.out / LOG} holds {len(lines)} finished "
                              f"generations; run the same command again to continue") from None
        return lines

    def _writable(self, folder, names):
        """The files `names` of `folder` that the loop writes, each missing or a regular
        file (never a link, a pipe, a device): refused before the work that writes them."""
        for name in names:
            check_target(folder / name, option="cannot write")

    def _kept(self):
        """What the stage under way keeps, in words (empty between stages)."""
        if self.at is None:
            return ""
        k, stage, folder = self.at
        kept = {"selfplay": f"its finished games are in {folder / 'positions.jsonl'}",
                "train": f"its finished epochs are kept in {folder / 'checkpoint.pt'}",
                "gate": f"its finished games are in {folder / 'games.jsonl'}"}[stage.split("-")[0]]
        return f" in generation {k}'s {_STAGE_NAMES.get(stage, stage)}: {kept}"

    def _start(self):
        """Generation 0: the starting network's copy and its bots."""
        from tigris import network

        net = self.gen(0) / "network.npz"
        self._writable(self.gen(0), _FILES)
        if not net.exists():
            self.gen(0).mkdir(exist_ok=True)
            write_bytes(net, read_source(network.path_of(self.s["start"], self.s["players"][0])))
        self._bots(0)

    def _bots(self, k):
        """Write generation `k`'s bot files: ``bot.toml`` (the bot's budget) and
        ``gate.toml`` (the gate's), each the bot's knobs with `k`'s network."""
        folder, s = self.gen(k), self.s
        given = dict(s["params"], network=str(folder / "network.npz"))
        gate = {key: v for key, v in given.items() if key not in ("iterations", "seconds")}
        gate.update({key: v for key, v in s["gate"].items() if v is not None})
        said = f"generation {k} of the tigris learn loop in {self.out}: {s['bot']}'s knobs with its network"
        _write_bot(folder / "bot.toml", given, said)
        _write_bot(folder / "gate.toml", gate, f"{said}, at the gate's budget")

    def _current(self, k):
        """OUT/current.toml: the bot of generation `k`, now the current one."""
        text = read_source(self.gen(k) / "bot.toml").decode("utf-8")
        write_text(self.out / "current.toml", f"# the current bot of this loop: generation {k}'s\n{text}")

    def _prune(self, k):
        """After generation `k`: the self-play data that no later generation trains on,
        deleted (the window's generations are kept)."""
        for i in range(1, k - self.s["window"] + 2):
            folder = self.gen(i) / "selfplay"
            if folder.is_dir() and not folder.is_symlink():
                shutil.rmtree(folder)

    def generation(self, k, current):
        """Generation `k` from the current network, generation `current`'s: its line."""
        self.gen(k).mkdir(exist_ok=True)
        self._writable(self.gen(k), _FILES)
        self.say(f"generation {k}, from generation {current}'s network")
        line = {"generation": k, "from": current}
        # A finished self-play is run again only if its data is gone before the training
        # that needs it is done (the folder kept without its self-play data).
        data = (self.gen(k) / "selfplay").is_dir() or (self.gen(k) / "network.npz").exists()
        played = self._stage(k, "selfplay", lambda: self._selfplay(k, current), reuse=data)
        trained = self._stage(k, "train", lambda: self._train(k, current),
                              reuse=(self.gen(k) / "network.npz").exists())
        suite = self._suite(k)
        self._bots(k)
        gates = {}
        for p in self.s["players"]:
            refused = [q for q, g in gates.items() if g.get("decision") != "H1"]
            if refused:
                gates[str(p)] = {"status": "skipped", "why": f"the gate at {refused[0]} players did not "
                                                            f"accept H1: no promotion"}
                continue
            gates[str(p)] = self._stage(k, f"gate-{p}", lambda p=p: self._gate(k, current, p),
                                        reuse=(self.gen(k) / f"gate-{p}").is_dir())
        promoted = all(g.get("decision") == "H1" for g in gates.values())
        stages = [played, trained, *gates.values()]
        line.update(promoted=promoted, current=k if promoted else current,
                    network=f"gen-{k}/network.npz", bot=f"gen-{k}/bot.toml", selfplay=played,
                    train=trained, suite=suite, gate=gates,
                    wall_seconds=round(sum(e.get("wall_seconds", 0) for e in stages), 1),
                    cpu_seconds=round(sum(e.get("cpu_seconds", 0) for e in stages), 1))
        self.say(f"generation {k}: " + (f"promoted: generation {k}'s network is the current one" if promoted
                                        else f"not promoted: generation {current}'s stays the current one"))
        return line

    def _suite(self, k):
        """Generation `k`'s policy on the shipped position suite (``suite.policy_score``,
        the positions of the line's player counts): the same fixed answers for every
        generation, in a second or two."""
        from tigris.runs import suite

        right, positions, share = suite.policy_figures(str(self.gen(k) / "network.npz"), self.s["players"])
        self.say(f"generation {k}: its policy alone right at {right} of the suite's {positions} positions, "
                 f"{share:.1f}% of it on the best moves")
        return {"policy_right": right, "positions": positions, "policy_share": round(share, 2)}

    def _stage(self, k, stage, fn, reuse=True):
        """Run a stage of generation `k`: its lines said, its seconds counted
        (``clock.json``), an error named with the generation and the stage; its entry,
        kept in the generation's ``stages.json`` once it ends.  A stage kept there is not
        run again (unless `reuse` is False): its entry is the one kept, so a loop goes on
        from its folder kept without the self-play data."""
        name = _STAGE_NAMES.get(stage, stage)
        done = _read_stages(self.gen(k) / STAGES_FILE)
        if stage in done and reuse:
            self.say(f"generation {k}: {name} done before: {_summary(stage, done[stage])}")
            return done[stage]
        self.at = (k, stage, self.gen(k) / ("train" if stage == "train" else stage))
        self.say(f"generation {k}: {name}")
        try:
            with self._clock(k, stage):
                entry = fn()
        except UsageError as e:
            raise type(e)(f"generation {k}, {name}: {e}") from None
        clock = _read_clock(self.gen(k) / "clock.json")[stage]
        entry["wall_seconds"] = clock["wall_seconds"]
        entry["cpu_seconds"] = round(clock["cpu_seconds"] + entry.pop("worker_cpu_seconds", 0.0), 3)
        self.say(f"generation {k}: {name} done: {_summary(stage, entry)}, {entry['cpu_seconds']:,.0f} CPU "
                 f"seconds, {entry['wall_seconds']:,.0f} s")
        done[stage] = entry
        write_text(self.gen(k) / STAGES_FILE, json.dumps(done, indent=1) + "\n")
        return entry

    @contextlib.contextmanager
    def _clock(self, k, stage):
        """Add the wall seconds of what runs within, and this process's CPU seconds, to
        the stage's in generation `k`'s clock.json (also when it is interrupted).  The
        CPU seconds of the games, which their lines count wherever they ran, are left out
        when they ran in this process (a run of one job)."""
        from tigris._plumbing.work import tasks_cpu_seconds

        wall, cpu, tasks = time.perf_counter(), time.process_time(), tasks_cpu_seconds()
        try:
            yield
        finally:
            own = time.process_time() - cpu - (tasks_cpu_seconds() - tasks)
            path = self.gen(k) / "clock.json"
            clock = _read_clock(path)
            spent = clock.setdefault(stage, {"wall_seconds": 0.0, "cpu_seconds": 0.0})
            spent["wall_seconds"] = round(spent["wall_seconds"] + time.perf_counter() - wall, 3)
            spent["cpu_seconds"] = round(spent["cpu_seconds"] + max(own, 0.0), 3)
            write_text(path, json.dumps(clock, indent=2) + "\n")

    def _selfplay(self, k, current):
        """Generation `k`'s self-play by generation `current`'s bot: its entry."""
        s, folder = self.s, self.gen(k) / "selfplay"
        bot = str(self.gen(current) / "bot.toml")
        seed = stage_seed(s["seed"], k, "selfplay")
        label_bot = bot if s["labels"] == "separate" else None
        # A self-play under way keeps the target it began with (--policy-target may change).
        target = _begun_target(folder) or s["policy_target"]
        sp = selfplay.settings(games=s["games"], players=max(s["players"]), bot=bot, positions=s["positions"],
                               label_bot=label_bot, label_iterations=s["label_iterations"],
                               labels=s["labels"], policy_target=target,
                               full_share=s["full_share"] or selfplay.FULL_SHARE, seed=seed)
        lines = selfplay.run(sp, folder, jobs=self.jobs, progress=self.progress, reads=[bot], **self.where)
        failed = [line for line in lines if "error" in line]
        if len(failed) == len(lines):
            raise UsageError(f"all {len(lines)} games failed (game {failed[0]['game']}: "
                             f"{failed[0]['error'][:200]}): nothing to train on; fix the cause, delete "
                             f"{folder} and run the same command again")
        bot = Path(bot)
        command = ["selfplay", "--out", folder, "--games", s["games"], "--players", max(s["players"]),
                   "--bot", bot, *(["--label-bot", bot] if label_bot else []), "--positions", s["positions"],
                   "--label-iterations", s["label_iterations"], "--labels", s["labels"],
                   "--policy-target", target,
                   *(["--full-share", s["full_share"]] if s["full_share"] is not None else []), "--seed", seed]
        return {"status": "done", "command": _command(command, self.out), "seed": seed,
                "folder": f"gen-{k}/selfplay",
                "games": len(lines) - len(failed), "failed": len(failed),
                "positions": sum(len(line["positions"]) for line in lines if "error" not in line),
                "worker_cpu_seconds": sum(line.get("cpu_seconds", 0.0) for line in lines)}

    def _train(self, k, current):
        """Generation `k`'s training from generation `current`'s network on the window's
        self-play data, then its network copied beside its bots: its entry."""
        from tigris import network
        from tigris.runs import train

        s, folder, net = self.s, self.gen(k) / "train", self.gen(k) / "network.npz"
        # The window's self-play data, but that of a generation whose folder was kept
        # without it (its own is always here: self-play runs again if it is not).
        window = [self.gen(i) / "selfplay" for i in range(max(1, k - s["window"] + 1), k + 1)
                  if i == k or (self.gen(i) / "selfplay").is_dir()]
        left = [i for i in range(max(1, k - s["window"] + 1), k) if self.gen(i) / "selfplay" not in window]
        if left and not net.exists():
            self.say(f"generation {k}: training without the self-play data of generation"
                     f"{'s' * (len(left) > 1)} {', '.join(map(str, left))}, which is not in {self.out}")
        init = self.gen(current) / "network.npz"
        seed = stage_seed(s["seed"], k, "train")
        # A training under way keeps its value frozen or not (--train-value may change).
        begun = train.begun_with(folder) if not net.exists() else None
        freeze = begun.get("freeze_value") is True if begun else not s["train_value"]
        if not net.exists():                      # else trained, and copied: a stage done
            train.require_torch()
            data = train.dataset(window, progress=self.progress)
            train.fit(data, folder, epochs=s["epochs"], patience=s["patience"], seed=seed,
                      progress=self.progress, init=init, freeze_value=freeze)
            write_bytes(net, read_source(folder / "network.npz"))
        meta = network.load(net).meta
        freeze = meta.get("freeze_value", freeze)
        best = _log_line(folder / "log.jsonl", meta["best_epoch"])
        command = ["train", *window, "--out", folder, "--init", init,
                   *(["--freeze-value"] if freeze else []), "--epochs", s["epochs"],
                   "--patience", s["patience"], "--seed", seed]
        return {"status": "done", "command": _command(command, self.out), "seed": seed,
                "folders": [f"{path.parent.name}/selfplay" for path in window],
                "positions": meta["positions"], "held_out_positions": meta["held_out_positions"],
                "epochs": meta["epochs"], "best_epoch": meta["best_epoch"],
                "held_out_loss": meta["held_out_loss"],
                **{key: best[key] for key in ("held_out_chance", "held_out_score", "held_out_policy",
                                              "held_out_top_move")},
                "calibration_error": {n: c["ece"] for n, c in meta["calibration"].items()},
                "train_seconds": meta["train_seconds"], "network": f"gen-{k}/network.npz"}

    def _gate(self, k, current, players):
        """Generation `k`'s candidate against generation `current`'s bot at `players`,
        both at the gate's budget: its entry."""
        from tigris import match, tournament

        s, folder = self.s, self.gen(k) / f"gate-{players}"
        a, b = str(self.gen(k) / "gate.toml"), str(self.gen(current) / "gate.toml")
        field = [self.gen(k) / f"field-{i}.toml" for i in range(1, players - 1)]
        for path in field:                        # the current bot under other names
            write_text(path, read_source(b).decode("utf-8"))
        field = [str(path) for path in field]
        seed = stage_seed(s["seed"], k, "gate")
        begun = (folder / tournament.SPEC_FILE).exists()
        # A gate under way keeps the most games it began with (--max-gate-games may change).
        most = tournament.read_spec_file(folder / tournament.SPEC_FILE)[0].games if begun else s["max_gate_games"]
        r = match.sprt_match(a, b, max_games=most, jobs=self.jobs, seed=seed, out=folder,
                             players=players, field=field, progress=self.progress,
                             desc=f"gate at {players} players", resume=begun, **self.where, **s["sprt"])
        if not r["games"]:
            first = (r["first_failure"] or "")[:200]
            raise UsageError(f"all {r['failed']} games failed, nothing is counted ({first}); "
                             f"{folder}/summary.md lists them")
        records = tournament.read_games(folder)
        sprt = [f"{key}={s['sprt'][key]:g}" for key in match.KEYS]
        command = ["match", Path(a), Path(b), "--sprt", *sprt, "--max-games", most, "--players", players,
                   *[word for name in field for word in ("--field", Path(name))], "--seed", seed,
                   "--jobs", self.jobs, "--out", folder]
        entry = {"status": "done", "command": _command(command, self.out), "seed": seed,
                 "folder": f"gen-{k}/gate-{players}",
                 **{key: r[key] for key in ("decision", "games", "wins", "draws", "losses", "failed")},
                 "score": round((r["wins"] + r["draws"] / 2) / r["games"], 4), "llr": round(r["llr"], 4),
                 "bounds": [round(x, 4) for x in r["bounds"]]}
        entry.update(_elo(records, a, b, [a, b, *field]))
        entry["worker_cpu_seconds"] = sum(rec.get("cpu_seconds", 0.0) for rec in records)
        return entry


# The files the loop writes in a generation's folder (its stages' folders are theirs).
_FILES = ("network.npz", "bot.toml", "gate.toml", "field-1.toml", "field-2.toml", "clock.json", "stages.json")
STAGES_FILE = "stages.json"        # each finished stage's entry, as the generation's line will hold it
# What the lines on stderr call the stages.
_STAGE_NAMES = {"selfplay": "self-play", "train": "training", "gate-2": "gate at 2 players",
                "gate-3": "gate at 3 players", "gate-4": "gate at 4 players"}


def _begun_target(folder):
    """The policy target of the self-play begun in `folder` (its selfplay.json), or None:
    none is begun, or its settings do not say (self-play then names the problem)."""
    if not (folder / "selfplay.json").is_file():
        return None
    targets = selfplay.read_settings(folder).get("targets")
    policy = targets.get("policy") if isinstance(targets, dict) else None
    return policy if isinstance(policy, str) else None


def _summary(stage, entry):
    """A stage's result in a few words, for its end's line."""
    if stage == "selfplay":
        return (f"{entry['games']} games" + (f" ({entry['failed']} failed)" if entry["failed"] else "")
                + f", {entry['positions']:,} positions")
    if stage == "train":
        return (f"epoch {entry['best_epoch']} of {entry['epochs']}, held-out loss {entry['held_out_loss']:.4f}, "
                f"top move {entry['held_out_top_move']:.1%}")
    elo = "" if entry["elo"] is None else f", {entry['elo']:+.0f} Elo"
    return (f"{entry['decision'] or 'no decision'} after {entry['games']} games "
            f"(+{entry['wins']} ={entry['draws']} -{entry['losses']}, LLR {entry['llr']:.2f}){elo}")


def _elo(records, a, b, table):
    """The candidate `a`'s Elo over the current bot `b` (the standings' fit, `b` at 0)
    with its 95% interval, from a gate's records; with 3 or 4 players, also its
    first-place Elo (the gate counts first places); and each one's seconds a move."""
    from tigris import ratings, tournament

    standings = ratings.standings(tournament.results_of(records), bots=table, anchor=b)
    rows = {row["name"]: row for row in standings["bots"]}

    def interval(ci):
        return None if ci is None else [None if x is None else round(x, 1) for x in ci]

    row = rows[a]
    out = {"elo": None if row["elo"] is None else round(row["elo"], 1), "elo_ci": interval(row["elo_ci"])}
    if standings["model"] == ratings.PLACKETT_LUCE:
        out.update(first_elo=None if row["first_elo"] is None else round(row["first_elo"], 1),
                   first_elo_ci=interval(row["first_elo_ci"]))
    out["seconds_per_move"] = {who: None if rows[name]["seconds_per_move"] is None
                               else round(rows[name]["seconds_per_move"], 4)
                               for who, name in (("candidate", a), ("current", b))}
    return out


def _log_line(path, epoch):
    """The line of epoch `epoch` of a training folder's log.jsonl."""
    values, _ = jsonl.read(path)
    for _, line in values:
        if isinstance(line, dict) and line.get("epoch") == epoch:
            return line
    raise UsageError(f"{path}: no line of epoch {epoch}, the network's best")


def _command(words, out):
    """A command line of tigris as run in the loop's folder `out`, its words quoted for a
    shell: the paths in `out` (``Path`` words) relative to it, so the log names no path of
    this machine and holds for the folder copied elsewhere."""
    def word(w):
        if isinstance(w, Path) and w.is_relative_to(out):
            return str(w.relative_to(out))
        return str(w)
    return shlex.join(["tigris", *(word(w) for w in words)])


def _write_bot(path, given, description):
    """The bot file `path`: an ismcts configuration of the knobs `given`."""
    lines = ['kind = "ismcts"', f"description = {toml_string(description)}"]
    lines += [f"{key} = {toml_string(v) if isinstance(v, str) else json.dumps(v)}" for key, v in given.items()]
    write_text(path, "\n".join(lines) + "\n")


def _hold_settings(out, s):
    """Hold the folder's settings to `s`: a new folder gets them; another loop's folder
    is refused, naming the field and its option, except that the settings of
    ``CHANGEABLE`` take `s`'s values from now on.  Returns those changed: (key, was, now)."""
    path = out / SETTINGS_FILE
    if path.exists():
        old = read_json(path)
        if not isinstance(old, dict) or old.get("format") != FORMAT:
            raise UsageError(f"{path}: not the settings of a tigris learn folder ({FORMAT})")
        for key, value in s.items():
            if old.get(key) != value and key not in CHANGEABLE:
                option = _OPTIONS.get(key, f"--{key.replace('_', '-')}")
                raise UsageError(f"{out} holds another loop: its {key} is {excerpt(old.get(key), 60)}, not "
                                 f"{excerpt(value, 60)}; give the same {option} to continue it, or choose "
                                 f"another folder")
        changed = [key for key in CHANGEABLE if old.get(key) != s[key]]
        if changed:                               # the settings file says what the next gates do
            write_text(path, json.dumps(dict(old, **{key: s[key] for key in changed}), indent=2) + "\n")
        return [(key, old.get(key), s[key]) for key in changed]
    elif (out / LOG).exists() or any(out.glob("gen-*")):
        raise UsageError(f"{out} holds generations without their {SETTINGS_FILE}: put it back, or choose "
                         f"another folder")
    else:
        write_text(path, json.dumps(s, indent=2) + "\n")
    return []


def _read_stages(path):
    """A generation's stages.json: its finished stages' entries by stage (none yet: {})."""
    if not path.exists():
        return {}
    done = read_json(path)
    known = set(STAGES[:2]) | {f"gate-{p}" for p in (2, 3, 4)}
    fine = isinstance(done, dict) and all(
        stage in known and isinstance(entry, dict) and entry.get("status") == "done"
        and all(type(entry.get(key)) in (int, float) and 0 <= entry[key] < math.inf
                for key in ("wall_seconds", "cpu_seconds"))
        for stage, entry in done.items())
    if not fine:
        raise UsageError(f"{path}: not the finished stages of a generation (each stage's entry, its status "
                         f"done); delete it to run its stages again")
    return done


def _read_clock(path):
    """A generation's clock.json: per stage its wall and CPU seconds (none yet: {})."""
    if not path.exists():
        return {}
    clock = read_json(path)
    fine = isinstance(clock, dict) and all(
        isinstance(spent, dict) and set(spent) == {"wall_seconds", "cpu_seconds"}
        and all(type(x) in (int, float) and 0 <= x < math.inf for x in spent.values())
        for spent in clock.values())
    if not fine:
        raise UsageError(f"{path}: not a clock of a generation's stages (each its wall_seconds and "
                         f"cpu_seconds); delete it to count them again from now")
    return clock
