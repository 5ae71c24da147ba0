"""Self-play data for a learned evaluation (``tigris selfplay``): games between copies of
one bot, positions picked from each, every position labelled with the game's result and
with a search's chances there.

How positions get their labels (``targets``): ``"separate"`` picks ``positions`` of each
finished game, spread over its decisions, and searches each again with ``label_bot`` at
``label_iterations``; ``"cap"`` (playout cap randomisation, as KataGo's self-play) labels
the game's own searches: each decision is searched at ``label_iterations`` with the
probability ``full_share`` and labelled from that search, the others at the bot's own
budget and not labelled, so no search is made twice.  Either way the labels come from the
search's own root statistics (``tigris.runs.targets``: the chances of its choice, and a
policy target of ``policy_target``'s kind), never from the hints' calibrated figures.

>>> from tigris.runs import selfplay
>>> settings = selfplay.settings(games=2, label_iterations=500)    # doctest: +SKIP
>>> selfplay.run(settings, "data/selfplay", jobs=2)                # doctest: +SKIP

A run's settings are a frozen record (``Settings``), which its workers get as it is; the
folder's ``selfplay.json`` holds its dict (``Settings.to_dict``, without ``games``).

The folder (``tigris-selfplay/3``)
----------------------------------
``selfplay.json`` holds the run's settings (``SETTINGS``: the bot and its knobs, players,
board, variants, base seed, positions a game, the label search's bot, knobs and
iterations, and ``targets``), written once when the run starts; ``positions.jsonl`` one
line a game, in the order they finish::

    {"game": k, "deal_seed": the deal's seed, "record": the game (tigris-game/1),
     "first": each player's share of the first place (1/k for k tied winners),
     "scores": each player's final score,
     "positions": [{"move": n (the position after the record's first n moves),
                    "player": who decides there, "decision": its kind,
                    "search": every player's chance of finishing first from a search
                              of the position as that player sees it (the chances of
                              its choice: tigris.runs.targets), adding up to 1,
                    "policy": [[action, weight], ...]: the same search's policy
                              target, most weight first: its root's visits, or the
                              completed-q or shrunk-q probabilities (the policy's target:
                              ``tigris.runs.train``)},
                   ...]}

(In ``tigris-selfplay/2`` folders, still read, ``search`` is the hint's calibrated figure
and ``policy`` the root's visits.)

Each line also says what the game cost its worker process, ``cpu_seconds`` (its play
and its labels; a line written before this field was has none).
A game that failed is kept as ``{"game": k, "deal_seed": .., "error": message}``, so a
rerun does not play it again: a bot that raised, or a game whose worker process died
twice (it is played once more, alone, first: ``work.Run``).  Each position has two labels of its value, the outcome
(``first``) and the search's estimate (``search``), which training mixes by a weight of
its own, and one of its moves, the search's visits (``policy``).  A folder of the first
version (``tigris-selfplay/1``, without ``policy``) is still read: its positions train a
value alone.
The labels' search decides only from what the player to move can see (a determinization
of the others' tiles), so a position's ``search`` never uses the hidden tiles of the
game it comes from.

Running the same command again continues the run: the games already in the file are
skipped (with more ``games``, the new ones are played); other settings that differ from
the folder's are refused, naming the field; a torn
last line (a run killed while writing) is cut off with a warning; every line read back
is checked (``read``), and a UsageError names the file, the line and the field.
"""

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tigris import bots as botlib
from tigris import knobs
from tigris._plumbing import renamed
from tigris._plumbing import jsonl
from tigris._plumbing import checks, work
from tigris import record as records
from tigris.errors import Interrupted, UsageError, excerpt
from tigris.files import check_target, open_append, write_text
from tigris._plumbing.locks import holding
from tigris.play.runner import GameSpec, Task, deal_seed, play_game
from tigris.play.seeds import label_seed
from tigris.sources import read_json

__all__ = ["FORMAT", "FORMATS", "SETTINGS", "DEFAULT_BOT", "POSITIONS", "LABEL_ITERATIONS", "MAX_GAMES", "LABELS", "FULL_SHARE",
           "Settings", "settings", "pick", "label", "play_and_label", "run", "read", "read_settings"]

FORMAT = "tigris-selfplay/3"
# what read_settings accepts: /1 has no policy, /2 labels from the hints' calibrated chances
FORMATS = ("tigris-selfplay/1", "tigris-selfplay/2", FORMAT)
LABELS = ("separate", "cap")       # how positions are picked and searched (the docstring)
FULL_SHARE = 0.25                  # "cap": the share of decisions searched in full and labelled
# Plays the games and searches the labels unless told otherwise: the hand-written
# evaluation, so a first generation needs no network (about 1.5 s a game on one core).
# A next generation names its network's bots (--bot ismcts-fast --label-bot ismcts-fast).
DEFAULT_BOT = "ismcts-heuristic"
POSITIONS = 16                     # positions labelled per game, spread over its decisions
LABEL_ITERATIONS = 5_000           # the label search's (about 0.05 s a position)
MAX_GAMES = 1_000_000
SUM_TOLERANCE = 1e-6               # how far a position's chances may add up from 1
# The settings a run is made of, in selfplay.json; a rerun must give the same (the
# number of games may grow: a rerun with more plays the ones that are new).
SETTINGS = ("format", "bot", "params", "players", "board", "variants", "seed", "positions",
            "label_bot", "label_params", "label_iterations", "targets")


@dataclass(frozen=True)
class Settings(renamed.DictReads):
    """A run's settings, checked (``settings`` makes them): the bot (its name, ``kind``
    and knobs ``params``, read from its file, so the workers need none), the game
    (``players``, ``board``, ``variants``), the number of ``games``, the base ``seed``,
    the ``positions`` labelled a game, the label search's bot (``label_bot``,
    ``label_params``, ``label_iterations``) and how positions get their labels
    (``labels``, ``policy_target``, ``full_share``: the module's docstring).  The knobs'
    dicts are never written to.  ``to_dict`` is the dict ``selfplay.json`` holds (with
    ``games``).  Settings were dicts until 2.1: ``s["seed"]`` still reads a key of that
    dict, with a DeprecationWarning (removed in 2.2; read the attribute)."""

    bot: str
    kind: str
    params: dict[str, Any]
    players: int
    board: str
    variants: tuple[str, ...]
    games: int
    seed: int
    positions: int
    label_bot: str
    label_params: dict[str, Any]
    label_iterations: int
    labels: str = "separate"
    policy_target: str = "visits"
    full_share: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "variants", tuple(self.variants))

    def to_dict(self) -> dict[str, Any]:
        """The settings as a dict, in the order and the form ``selfplay.json`` holds them
        (there without ``games``)."""
        return {"format": FORMAT, "bot": self.bot, "kind": self.kind, "params": self.params,
                "players": self.players, "board": self.board, "variants": list(self.variants),
                "games": self.games, "seed": self.seed, "positions": self.positions,
                "label_bot": self.label_bot, "label_params": self.label_params,
                "label_iterations": self.label_iterations,
                "targets": {"labels": self.labels, "policy": self.policy_target,
                            "full_share": self.full_share}}

    @classmethod
    def _from_dict(cls, s):
        """Settings of a dict of ``to_dict``'s form (``Settings.of``: the settings until 2.1)."""
        how = s.get("targets") or {}           # how positions get their labels
        return cls(**{k: s[k] for k in ("bot", "kind", "params", "players", "board", "variants",
                                        "games", "seed", "positions", "label_bot", "label_params",
                                        "label_iterations")},
                   labels=how.get("labels", "separate"),
                   policy_target=how.get("policy", "visits"),
                   full_share=how.get("full_share"))

    _since = "self-play settings are records since 2.1"
    _given, _instead = "self-play settings", "give selfplay.settings(...)"    # Settings.of(a dict)

    def _old_form(self):
        return self.to_dict()


def settings(games, players=2, bot=DEFAULT_BOT, board="classic", variants=(), seed=0,
             positions=POSITIONS, label_bot=None, label_iterations=LABEL_ITERATIONS,
             labels="separate", policy_target="visits", full_share=FULL_SHARE):
    """A run's settings, checked: `games` games of `players` copies of `bot` (a name or
    a file; its knobs are read now, so the workers need no file), `positions` positions
    labelled a game by a search of `label_iterations` with `label_bot` (an ismcts
    configuration, default DEFAULT_BOT); with `labels` "cap", a share `full_share` of
    each game's decisions searched at `label_iterations` by the bot itself and labelled
    (`positions` then bounds the labels of a game); the policy target of
    `policy_target`'s kind (``tigris.runs.targets``).  Returns the ``Settings``."""
    from tigris.constants import VARIANTS
    from tigris.runs.targets import POLICY_TARGETS

    try:
        for name, value, low, high in (("games", games, 1, MAX_GAMES), ("players", players, 2, 4),
                                       ("positions", positions, 1, 1000)):
            checks.whole(name, value, low, high)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if board not in ("classic", "advanced"):
        raise UsageError(f"board must be classic or advanced, not {excerpt(board)}")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise UsageError(f"variants: unknown {excerpt(unknown[0])}; known: {', '.join(VARIANTS)}")
    if labels not in LABELS:
        raise UsageError(f"labels must be one of {', '.join(LABELS)}, not {excerpt(labels)}")
    if policy_target not in POLICY_TARGETS:
        raise UsageError(f"the policy target must be one of {', '.join(POLICY_TARGETS)}, not "
                         f"{excerpt(policy_target)}")
    try:
        full_share = checks.number("full share", full_share, 0.0, 1.0)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if labels == "cap" and full_share == 0:
        raise UsageError("full share must be above 0: the cap's labels are its full searches")
    seed = knobs.check_value("ismcts", "seed", seed, where="seed")
    label_iterations = knobs.check_value("ismcts", "iterations", label_iterations,
                                         where="label_iterations")
    conf = botlib.configuration(bot)
    if labels == "cap":
        if label_bot is not None and label_bot != bot:
            raise UsageError("with labels from the game's own searches (cap), the bot is the "
                             "label bot: leave --label-bot out")
        label_bot = bot
    labeller = botlib.configuration(label_bot or DEFAULT_BOT)
    if labeller.kind != "ismcts":
        raise UsageError(f"the labels need an ismcts bot configuration, not a {labeller.kind} "
                         f"one ({labeller.name})")
    return Settings(bot=conf.name, kind=conf.kind, params=conf.params, players=players,
                    board=board, variants=tuple(sorted(variants)), games=games, seed=seed,
                    positions=positions, label_bot=labeller.name, label_params=labeller.params,
                    label_iterations=label_iterations, labels=labels, policy_target=policy_target,
                    full_share=full_share if labels == "cap" else None)


def pick(choices, count):
    """`count` of the decisions `choices` (in order), spread evenly from the first to
    the last; all of them if there are no more."""
    if len(choices) <= count:
        return list(choices)
    if count == 1:
        return [choices[len(choices) // 2]]
    return [choices[round(k * (len(choices) - 1) / (count - 1))] for k in range(count)]


def label(game, label_params, iterations, seed, policy_target="visits"):
    """The labels of `game`'s decision from one search of that many iterations that sees
    only what the player to move can see: every player's chance of finishing first (the
    chances of the search's choice) and the policy target of `policy_target`'s kind
    (``tigris.runs.targets``)."""
    from tigris.bots.search import ISMCTSBot

    bot = ISMCTSBot(name="label", **dict(label_params, seed=seed, workers=1))
    return _labels(game, bot.root_statistics(game, iterations=iterations), label_params,
                   policy_target)


def _labels(game, stats, params, policy_target):
    """(chances, policy target) of a search's root statistics `stats` at `game`'s
    decision, the search's knobs `params`."""
    from tigris.runs import targets

    prior = _prior(game, stats, params) if policy_target in targets.NEEDS_PRIOR else None
    return targets.value_target(stats), targets.policy_target(policy_target, stats, prior)


def _prior(game, stats, params):
    """The prior of every legal move of `game`'s decision as the search ordered them: the
    network's policy (``priors = "net"``), else the hand-written priors of the moves the
    root ranked, the rest at the least of them."""
    if params.get("priors") == "net":
        from tigris.network import from_knobs

        return from_knobs(params["evaluator"], params["network"], game.players).policy(game)
    ranked = {ch.action: ch.prior or 0.0 for ch in stats.children}
    least = min((p for p in ranked.values() if p > 0), default=1.0)
    prior = {a: ranked.get(a) or least for a in game.legal_actions()}
    total = sum(prior.values())
    return {a: p / total for a, p in prior.items()}


def _label_seed(s, game_number, move):
    """The seed of the label search of move `move` of game `game_number` of the run with
    the Settings `s`."""
    return label_seed(s.seed, game_number, move)


def _position(move, game, chances, policy):
    """A labelled position: the decision of `game`, after the record's first `move` moves."""
    return {"move": move, "player": game.current_player, "decision": game.decision,
            "search": [round(c, 6) for c in chances], "policy": policy}


class _CapSeat:
    """A seat of a game whose own searches are the labels (playout cap randomisation):
    each decision with a choice is searched in full (``label_iterations``) with the
    probability ``full_share`` and labelled from that search, the others at the bot's
    own budget; ``positions`` keeps the labels, in the order of the game.  `s`: the
    run's Settings."""

    def __init__(self, bot, s, game_number, seat, positions):
        import random

        self.bot, self.s, self.positions = bot, s, positions
        self.draws = random.Random(_label_seed(s, game_number, 0) * 4 + seat)

    def choose(self, game):
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        full = self.draws.random() < self.s.full_share and len(self.positions) < self.s.positions
        move = self.bot.random_move(game, legal)        # the bot's random_share
        if move is not None and not full:
            return move
        stats = self.bot.root_statistics(game, iterations=self.s.label_iterations if full else None)
        if full:
            chances, policy = _labels(game, stats, self.s.label_params, self.s.policy_target)
            self.positions.append(_position(len(game.history), game, chances, policy))
        return self.bot.pick(stats) if move is None else move


def play_and_label(game_number, s):
    """Play game `game_number` of the run with the Settings `s` and label its positions: the
    line of ``positions.jsonl`` (see the module's docstring), with ``cpu_seconds``, the
    CPU time this process took for the game and its labels."""
    import time

    cpu = time.process_time()
    line = _play_and_label(game_number, s)
    return dict(line, cpu_seconds=round(time.process_time() - cpu, 3))


def _play_and_label(game_number, s):
    """``play_and_label``'s line but for its CPU time."""
    task = Task(game_number, deal_seed(s.seed, game_number), (s.bot,) * s.players)
    spec = GameSpec(players=s.players, seed=s.seed, name="selfplay", board=s.board,
                    variants=s.variants)
    from tigris.calibration import first_shares

    positions = []
    wrap = None
    if s.labels == "cap":
        def wrap(bot, k):
            return _CapSeat(bot, s, game_number, k, positions)
    rec = play_game(task, {s.bot: (s.kind, s.params)}, spec, wrap=wrap)
    line = {"game": game_number, "deal_seed": task.deal_seed}
    if rec.get("error"):
        return dict(line, error=rec["error"])
    choices, final = [], None
    for n, final in records.steps(rec):              # one replay: the decisions with a choice
        if s.labels == "separate" and not final.is_over and len(final.legal_actions()) >= 2:
            choices.append((n, final.copy(stack=False)))
    for n, g in pick(choices, s.positions):
        chances, policy = label(g, s.label_params, s.label_iterations,
                                _label_seed(s, game_number, n), s.policy_target)
        positions.append(_position(n, g, chances, policy))
    return dict(line, record=rec, first=first_shares(final.ranking(), s.players),
                scores=[final.final_score(p) for p in range(s.players)], positions=positions)


@holding("out")                   # one run at a time in a folder
def run(s, out, jobs=1, progress=True, reads=(), backend="loky", scheduler=None):
    """Play and label the games of the Settings `s` (``settings``) that the folder `out` does
    not hold yet, `jobs` at a time (or on the dask cluster of `scheduler`, with
    `backend` "dask": ``tigris.backends``), appending each game's line as it finishes;
    returns the lines, old and new, by game.  The files of `reads` (the bots' files) are
    never written to.  Ctrl-C stops the workers and raises Interrupted saying what is
    kept, as does a lost scheduler (a TournamentError).  A game whose worker process
    dies twice is kept as failed (see the module's docstring)."""
    from joblib import delayed         # imported when workers run: the command line stays quick

    from tigris._plumbing.backends import Backend

    s = Settings.of(s)                 # a dict, as until 2.1, with a DeprecationWarning
    where = Backend(backend, jobs, scheduler)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: is not a folder; name a folder for the self-play data")
    for name in ("selfplay.json", "positions.jsonl"):
        check_target(out / name, reads=reads, option="--out")
    out.mkdir(parents=True, exist_ok=True)
    done = _resume(out, s)
    todo = [k for k in range(s.games) if k not in done]
    data = out / "positions.jsonl"
    if todo:
        def kept():
            return f"{len(done)} of {s.games} games are in {data}; run the same command again to continue"

        try:
            with where, open_append(data) as f, work.Run(where.workers, progress, total=s.games,
                                                        initial=len(done), desc="self-play",
                                                        unit="game") as w:
                def save(line):
                    jsonl.append(f, line)
                    done[line["game"]] = line
                    w.bar.update()

                w.tasks([delayed(play_and_label)(k, s) for k in todo], save, ordered=False,
                        errors=where.lost(kept), name=lambda task: f"game {task[1][0]}",
                        died=lambda task, why: _failed(task[1][0], s, why))
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted: {kept()}") from None
    return [done[k] for k in sorted(done) if k < s.games]


def _failed(game_number, s, why):
    """The line of game `game_number` of the run with the Settings `s` that failed: `why`."""
    return {"game": game_number, "deal_seed": deal_seed(s.seed, game_number), "error": why}


def _resume(out, s):
    """The lines already in `out` by game, after holding its settings to the Settings `s`
    (a new folder gets them)."""
    path = out / "selfplay.json"
    new = s.to_dict()
    if path.exists():
        old = read_json(path)
        if isinstance(old, dict) and old.get("format") in FORMATS and old.get("format") != FORMAT:
            why = ("whose positions have no policy labels" if old["format"] == FORMATS[0] else
                   "whose labels are the hints' calibrated chances, not the search's own")
            raise UsageError(f"{path}: a {old['format']} folder, {why}; training still reads "
                             f"it, but a run goes on only in a new folder")
        if not isinstance(old, dict) or old.get("format") != FORMAT:
            raise UsageError(f"{path}: not a {FORMAT} folder's settings")
        for key in SETTINGS:
            if old.get(key) != new.get(key):
                raise UsageError(f"{out} holds another run: its {key} is {excerpt(old.get(key), 60)}, "
                                 f"not {excerpt(new.get(key), 60)}; choose another folder, or the "
                                 f"same {key} to continue it")
    elif (out / "positions.jsonl").exists():      # its labels' settings are unknown
        raise UsageError(f"{out} holds positions.jsonl without its selfplay.json: put it back, "
                         f"or choose another folder")
    else:
        write_text(path, json.dumps({k: v for k, v in new.items() if k != "games"}, indent=2) + "\n")
    data = out / "positions.jsonl"
    if not data.exists():
        return {}
    return {line["game"]: line for line in read(data, new, repair=True)}


def read_settings(folder):
    """The settings of the run in `folder` (its ``selfplay.json``), with the fields that
    reading its lines relies on checked; a UsageError names the file and the field."""
    from tigris.sources import read_json

    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"{folder}: is not a folder; a self-play folder holds selfplay.json and positions.jsonl")
    path = folder / "selfplay.json"
    s = read_json(path)
    if not isinstance(s, dict) or s.get("format") not in FORMATS:
        raise UsageError(f"{path}: not a self-play folder's settings (format {' or '.join(FORMATS)})")
    for name, low, high in (("players", 2, 4), ("positions", 1, 1000), ("seed", -2**63, 2**64 - 1)):
        if not _whole(s.get(name), low, high):
            raise UsageError(f"{path}: {name} must be a whole number from {low} to {high}, "
                             f"not {excerpt(s.get(name))}")
    if s.get("board") not in ("classic", "advanced") or not isinstance(s.get("variants"), list):
        raise UsageError(f"{path}: board must be classic or advanced and variants a list")
    return s


def read(path, s, repair=False):
    """The lines of a ``positions.jsonl`` of a run with settings `s` (its ``Settings``,
    or the dict of its ``selfplay.json``, ``read_settings``: a folder of an older format
    holds no Settings), each checked (``_problem``): a UsageError names the file, the
    line and the field.  A torn last line is ignored with a warning, and cut off the file
    when `repair` is set; of two lines of one game the first is kept."""
    path = Path(path)
    if isinstance(s, Settings):
        s = s.to_dict()
    values, torn = jsonl.read(path)          # a regular file, a bounded line at a time
    lines = {}
    for lineno, item in values:
        problem = _problem(item, s)
        if problem:
            raise UsageError(f"{path}: line {lineno}: {problem}")
        lines.setdefault(item["game"], item)
    jsonl.settle(path, torn, repair)
    return list(lines.values())


def _whole(value, low, high):
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _problem(line, s):
    """What is wrong with a line of a run with settings `s` (the dict of its
    ``selfplay.json``), or None."""
    if not isinstance(line, dict):
        return "not a self-play line (not a JSON object)"
    if not _whole(line.get("game"), 0, MAX_GAMES - 1):
        return f"game must be a game number (0 to {MAX_GAMES - 1:,}), not {excerpt(line.get('game'))}"
    if line.get("deal_seed") != deal_seed(s["seed"], line["game"]):
        return f"deal_seed {excerpt(line.get('deal_seed'))} is not game {line['game']}'s of this run"
    cpu = line.get("cpu_seconds", 0.0)
    if not (type(cpu) in (int, float) and 0 <= cpu < math.inf):
        return f"cpu_seconds must be a number of seconds from 0, not {excerpt(cpu)}"
    if "error" in line:
        return None if isinstance(line["error"], str) else "error must be text"
    n = s["players"]
    for field in ("first", "scores"):
        values = line.get(field)
        if not (isinstance(values, list) and len(values) == n
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                        for v in values)):
            return f"{field} must be a number per player, not {excerpt(values)}"
    if abs(math.fsum(line["first"]) - 1) > SUM_TOLERANCE:
        return f"first must add up to 1, not {excerpt(line['first'])}"
    rec = line.get("record")
    if not (isinstance(rec, dict) and isinstance(rec.get("moves"), list)):
        return "record must be a game record"
    problem = _result_problem(line, rec, n)
    if problem:
        return problem
    positions = line.get("positions")
    if not isinstance(positions, list) or len(positions) > s["positions"]:
        return f"positions must be a list of at most {s['positions']}"
    for k, p in enumerate(positions):
        where = f"positions[{k}]"
        if not isinstance(p, dict):
            return f"{where} must be an object"
        if not _whole(p.get("move"), 0, len(rec["moves"])):
            return f"{where}.move must be a move number of the record, not {excerpt(p.get('move'))}"
        if not _whole(p.get("player"), 0, n - 1):
            return f"{where}.player must be a player, not {excerpt(p.get('player'))}"
        if not isinstance(p.get("decision"), str):
            return f"{where}.decision must be text"
        chances = p.get("search")
        if not (isinstance(chances, list) and len(chances) == n
                and all(isinstance(c, (int, float)) and not isinstance(c, bool) and 0 <= c <= 1
                        for c in chances)
                and abs(math.fsum(chances) - 1) <= 1e-4):
            return f"{where}.search must be every player's chance, adding up to 1, not {excerpt(chances)}"
        if s.get("format", FORMAT) != FORMATS[0]:
            problem = _policy_problem(p.get("policy"), counts=s.get("format") == FORMATS[1])
            if problem:
                return f"{where}.policy {problem}"
    return None


def _result_problem(line, rec, n):
    """What is wrong with a line's record (replayed) or its first and scores, which
    must be the record's result, or None."""
    from tigris.calibration import first_shares

    try:
        records.replay(rec)                   # its moves, and its result against them
    except (ValueError, RecursionError) as e:
        return f"record: {e if isinstance(e, ValueError) else 'nested too deeply'}"
    result = rec.get("result")
    if rec.get("players") != n or not isinstance(result, dict):
        return f"record must be a finished {n}-player game"
    for field, want in (("first", first_shares(result["ranking"], n)), ("scores", result["final"])):
        if any(abs(x - y) > SUM_TOLERANCE for x, y in zip(line[field], want)):
            return f"{field} {excerpt(line[field])} is not its record's result ({excerpt(want)})"
    return None


def _policy_problem(weights, counts=False):
    """What is wrong with a position's ``policy`` (see the module's docstring), or None:
    [action, weight] pairs, each weight a positive finite number (with `counts`, as
    ``tigris-selfplay/2`` wrote them, a whole number of visits).  Whether each action is
    legal there is checked where the position is replayed (``tigris.runs.train.dataset``)."""
    from tigris.constants import N_ACTIONS

    if not isinstance(weights, list) or not weights:
        return f"must be a non-empty list of [action, weight], not {excerpt(weights)}"
    seen = set()
    for pair in weights:
        if not (isinstance(pair, list) and len(pair) == 2 and _whole(pair[0], 0, N_ACTIONS - 1)
                and (_whole(pair[1], 1, 2**62) if counts else
                     type(pair[1]) in (int, float) and 0 < pair[1] < math.inf)):
            return (f"must hold [action, weight] pairs (an action id, a positive "
                    f"{'count' if counts else 'number'}), not {excerpt(pair)}")
        if pair[0] in seen:
            return f"names action {pair[0]} twice"
        seen.add(pair[0])
    return None
