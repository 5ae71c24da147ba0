"""The position suite: positions whose answers are fixed once, by searches far stronger
than a hint, against which ``tigris bench decisive`` and ``bench regret`` judge hints.

The suite's positions come from games of several bots (``MIXES``: greedy, ismcts-heuristic
at 300 iterations, ismcts-fast, levels 3 and 5, seats of different bots, some with a tenth
of the moves random), ``PER_COUNT`` each with 2, 3 and 4 players, three a game: one at
random in each third of its action decisions with a choice (early, middle, late), each
kept as the mover sees it (a ``tigris-position/1``).  Each position's reference is
``SEEDS`` searches of ``ITERATIONS`` iterations with each of two settings (``SETTINGS``):
``ismcts-fast``'s knobs (the policy orders the root and the expansions), and the same
with the hand-written priors and a root of ``WIDE_CANDIDATES`` candidates, so that a move
the policy overlooks is still searched.  A searched move's value is the mover's chance
(as a hint calibrates it) along its best line, the mean over the searches that gave it at
least ``JUDGED_SHARE`` of their iterations; a move no search gave that much is not judged.
The reference's best moves are those within ``WITHIN`` of the highest value.

``make_suite`` (``tigris bench suite --make RUN``) plays the games and runs the searches
on worker processes, appending each game's positions and each search's root to the file
RUN as it finishes (a killed run loses only the searches under way, and the same command
continues it); once all are in, it writes the suite (``tigris-suite/1``) to the file
named by ``out`` (compressed by gzip if its name ends in ``.gz``).  The same settings
give the same suite, byte for byte.  The shipped suite is ``SHIPPED``
(``tigris/suite.json.gz``): a made suite becomes it by copying the file there.  Every
suite and run file read back is checked field by field (``read_suite``, ``read_run``): a
UsageError names the file, the position and the field.
``docs/FORMATS.md`` describes both files.
"""

import functools
import gzip
import hashlib
import json
import math
import random
import statistics
import time
import zlib
from pathlib import Path

import tigris
from tigris._plumbing.locks import holding
from tigris.errors import PositionError, TournamentError, UsageError, difference, excerpt
from tigris.hints import DEFAULT_BOT as HINT_BOT
from tigris.play import seeds

__all__ = ["FORMAT", "RUN_FORMAT", "SHIPPED", "PER_COUNT", "ITERATIONS", "SEEDS", "WIDE_CANDIDATES",
           "JUDGED_SHARE", "WITHIN", "PHASES", "REFERENCE_BOT", "SETTINGS", "MIXES",
           "HINT_SEEDS", "REGRET_BUDGETS", "settings", "planned", "deal_seed", "reference_seed",
           "play_game", "reference_search", "reference_of", "make_suite", "suite_bytes", "read_run",
           "read_suite", "bench_policy", "policy_figures", "policy_judged", "policy_score",
           "load_suite", "judge", "summary_rows", "bench_decisive", "bench_regret"]

FORMAT = "tigris-suite/1"              # the suite file
RUN_FORMAT = "tigris-suite-run/1"      # the file a making run appends to
SHIPPED = Path(tigris.__file__).resolve().parent / "suite.json.gz"
PER_COUNT = 36             # positions a player count: 12 games, two of each mix
ITERATIONS = 1_000_000     # a reference search's
SEEDS = 3                  # reference searches of each setting
WIDE_CANDIDATES = 128      # the wide setting's root
JUDGED_SHARE = 0.001       # a search judges the moves it gave this share of its iterations
WITHIN = 0.02              # a move this close to the reference's highest value is as good
PHASES = ("early", "middle", "late")
REFERENCE_BOT = "ismcts-fast"
#: The reference's settings: (name, knobs changed from REFERENCE_BOT's).
SETTINGS: tuple[tuple[str, dict[str, object]], ...] = (
            ("policy", {}),
            ("wide", {"priors": "heuristic", "candidates": WIDE_CANDIDATES}))
#: Who plays the suite's games: (label, the bots by seat as (configuration, iterations or
#: None for its own), the share of moves played at random instead).  A game of `players`
#: seats the bots in turn from the game's number on.
MIXES = (
    ("greedy", (("greedy", None),), 0.0),
    ("ismcts-heuristic-300", (("ismcts-heuristic", 300),), 0.0),
    ("ismcts-fast", (("ismcts-fast", None),), 0.0),
    ("level-3+random", (("level-3", None),), 0.1),
    ("level-5", (("level-5", None),), 0.0),
    ("mixed+random", (("greedy", None), ("level-5", None), ("ismcts-heuristic", 300),
                      ("ismcts-fast", None)), 0.1),
)
HINT_SEEDS = (1, 2, 3)                 # bench decisive's hints
REGRET_BUDGETS = (20_000, 100_000)     # bench regret's hints (seed 1)
MAX_GAMES = 100_000                    # games a player count that the seed layout holds
DECIMALS = 4
MAX_ID = 40                            # characters of a position's id


# ---------------------------------------------------------------------------------------
# Making the suite
# ---------------------------------------------------------------------------------------

def settings():
    """``{name: every search knob}`` of the reference's settings (REFERENCE_BOT's knobs
    with each setting's changes; no budget, seed or workers: a search is given them)."""
    from tigris import bots

    base = bots.configuration(REFERENCE_BOT).params
    drop = ("iterations", "seconds", "seed", "workers")
    return {name: {k: v for k, v in {**base, **changes}.items() if k not in drop}
            for name, changes in SETTINGS}


def games_of(per_count):
    """How many games give `per_count` positions of a player count (three a game)."""
    return -(-per_count // len(PHASES))


def deal_seed(seed, players, game):
    """The deal of game number `game` with `players` players of a suite of base `seed`."""
    if not 0 <= game < MAX_GAMES:
        raise UsageError(f"a suite holds at most {MAX_GAMES * len(PHASES):,} positions a player count")
    return seeds.suite_seed(seed, players, game)


def planned(per_count):
    """The ids of a suite's positions, in order: ``P-G-PHASE`` (players, game number,
    phase), `per_count` a player count."""
    out = []
    for n in (2, 3, 4):
        ids = [f"{n}-{g}-{phase}" for g in range(games_of(per_count)) for phase in PHASES]
        out.extend(ids[:per_count])
    return out


def reference_seed(seed, index, k):
    """The seed of reference search `k` (from 0) of the position numbered `index` of a
    suite of base `seed`: every search draws its own random numbers, and none a hint's."""
    return seeds.reference_seed(seed, index, k)


class _Mixed:
    """A seat that plays `bot`'s move, or a random legal one with chance `share`."""

    def __init__(self, bot, share, seed):
        self.bot, self.share, self.rng = bot, share, random.Random(seed)

    def choose(self, game):
        if self.share and self.rng.random() < self.share:
            return self.rng.choice(game.legal_actions())
        return self.bot.choose(game)


def _note(g, choices):
    """Note a decision with a choice, a position to pick, in `choices`."""
    if g.decision == "action" and len(g.legal_actions()) >= 2:
        choices.append(len(g.history))


def play_game(players, number, seed, mix, phases=PHASES):
    """Play game number `number` with `players` players of a suite of base `seed`, by the
    mix `mix` (an item of MIXES), and pick its positions: one at random in each third of
    its action decisions with a choice, for each of `phases`.  A game stopped at the
    turn limit is played again with other bot seeds (at most five times).  Returns the
    positions' entries (without reference)."""
    from tigris import bots
    from tigris.play.runner import bot_seed, play_out

    label, seats, share = mix
    game_seed = deal_seed(seed, players, number)
    for attempt in range(5):
        g = tigris.Game(players=players, seed=game_seed)
        chosen = []
        for p in range(players):
            name, iterations = seats[(p + number) % len(seats)]
            knobs = {"seed": bot_seed(game_seed, attempt, p)}
            if iterations is not None:
                knobs["iterations"] = iterations
            chosen.append(_Mixed(bots.load(name, **knobs), share, bot_seed(game_seed, attempt, p, 1)))
        choices: list[int] = []
        play_out(g, chosen, before=lambda g, choices=choices: _note(g, choices))
        if g.is_over:
            break
    played = [a for a, _, _, _ in g.history]
    rng = random.Random(game_seed)
    thirds = len(PHASES)
    picks = {}
    for k, phase in enumerate(PHASES):          # every third draws, whichever are kept
        part = choices[k * len(choices) // thirds:(k + 1) * len(choices) // thirds]
        if part:
            picks[phase] = rng.choice(part)
    out = []
    for phase in phases:
        if phase not in picks:
            continue
        at = tigris.Game(players=players, seed=game_seed)
        for a in played[:picks[phase]]:
            at.apply(a)
        out.append({"id": f"{players}-{number}-{phase}", "players": players, "bots": label,
                    "game_seed": game_seed, "played": picks[phase], "length": len(played),
                    "phase": phase, "position": at.to_position(player=at.current_player)})
    return out


def reference_search(entry, index, setting, knobs, k, iterations, seed):
    """One reference search of the position `entry` (numbered `index`): the setting
    `setting`'s `knobs`, search number `k`, `iterations`.  Returns its line of the run
    file: every root move it visited, as ``[move, visits, value]``, most visited first
    (value: the mover's calibrated chance along its best line)."""
    from tigris import bots, chance

    g = tigris.Game.from_position(entry["position"])
    bot = bots.CLASSES["ismcts"](name=f"reference {setting}",
                                 **dict(knobs, seed=reference_seed(seed, index, k), workers=1,
                                        iterations=iterations, seconds=None))
    stats = bot.root_statistics(g, iterations=iterations)
    mover = g.current_player
    moves = [[g.action_str(ch.action), ch.visits,
              round(chance.calibrated(list(ch.chances), mover)[mover], DECIMALS)]
             for ch in stats.children if ch.visits > 0]
    return {"search": [entry["id"], setting, k], "iterations": stats.iterations, "moves": moves}


def reference_of(searches, judged_share=JUDGED_SHARE, within=WITHIN):
    """A position's reference from its searches' lines: ``judged`` (``{move: [value,
    visits, searches]}``, best first: the mean value over the searches that gave the move
    at least `judged_share` of their iterations, its visits in all searches, how many
    judged it), ``best`` (the moves within `within` of the highest value, best first)
    and ``unjudged`` (how many moves were searched but judged by none)."""
    values, visits = {}, {}
    for s in searches:
        least = max(1.0, judged_share * s["iterations"])
        for move, n, value in s["moves"]:
            visits[move] = visits.get(move, 0) + n
            values.setdefault(move, [])
            if n >= least:
                values[move].append(value)
    judged = {m: [round(statistics.fmean(v), DECIMALS), visits[m], len(v)]
              for m, v in values.items() if v}
    order = sorted(judged, key=lambda m: (-judged[m][0], -judged[m][1], m))
    judged = {m: judged[m] for m in order}
    return {"judged": judged, "best": _best(judged, within),
            "unjudged": sum(1 for v in values.values() if not v)}


def _best(judged, within):
    """The judged moves within `within` of the highest value, best first (as ordered)."""
    if not judged:
        return []
    top = max(v[0] for v in judged.values())
    return [m for m, v in judged.items() if v[0] >= top - within - 1e-9]


def _run_header(per_count, iterations, seeds, seed, mixes):
    from tigris import __version__
    from tigris.analysis import engine_digest

    from tigris import bots

    knobs = settings()
    engines = [engine_digest("ismcts", knobs[name], n) for name in knobs for n in (2, 3, 4)]
    # the games' bots too: a bot file or a network changed makes other positions
    for name in sorted({bot for _, seats, _ in mixes for bot, _ in seats}):
        conf = bots.configuration(name)
        engines += [engine_digest(conf.kind, conf.params, n) for n in (2, 3, 4)]
    return {"format": RUN_FORMAT, "tigris": __version__, "per_count": per_count,
            "iterations": iterations, "seeds": seeds, "seed": seed,
            "judged_share": JUDGED_SHARE, "within": WITHIN, "settings": knobs,
            "mixes": [[label, [list(s) for s in seats], share] for label, seats, share in mixes],
            "engine": hashlib.sha256(json.dumps(engines).encode()).hexdigest()[:16]}


#: What a continued run must share with its file's header.
SAME = ("per_count", "iterations", "seeds", "seed", "judged_share", "within", "settings", "mixes",
        "engine")


def make_suite(run, out, per_count=PER_COUNT, iterations=ITERATIONS, seeds=SEEDS, seed=0, jobs=1,
               progress=True, force=False, mixes=MIXES):
    """Make the suite: play its games and run its reference searches on `jobs` workers,
    appending each game's positions and each search to the file `run` (continued if it
    holds part of the same run; refused, naming the field, if it holds another), then
    write the suite to `out` (refused if it exists, unless `force`).  Returns the
    suite.  Ctrl-C stops the workers and raises Interrupted saying what is kept."""
    from tigris.files import check_new, check_target

    run, out = Path(run), Path(out)
    for what, value, low in (("positions", per_count, 1), ("iterations", iterations, 1),
                             ("seeds", seeds, 1), ("seed", seed, 0)):
        if not (isinstance(value, int) and not isinstance(value, bool) and value >= low):
            raise UsageError(f"{what} must be a whole number from {low}, not {excerpt(value)}")
    deal_seed(seed, 4, games_of(per_count) - 1)          # the seed layout holds the games
    check_target(run, option="--make", in_folder=True)
    check_new(out, "--out", force, reads=[run])
    if out.absolute() == run.absolute():
        raise UsageError(f"--out {out} is the run's file (--make); name another file for the suite")
    return _make(run, out, per_count, iterations, seeds, seed, jobs, progress, mixes)


@holding("run", file=True)       # one run at a time on a file
def _make(run, out, per_count, iterations, seeds, seed, jobs, progress, mixes):
    from joblib import delayed

    from tigris._plumbing import jsonl, work
    from tigris.errors import Interrupted
    from tigris.files import open_append, write_bytes

    header = _run_header(per_count, iterations, seeds, seed, mixes)
    header, positions, searches = _resume(run, header)
    ids = planned(per_count)
    index = {pid: k for k, pid in enumerate(ids)}
    names = [name for name, _ in SETTINGS]
    knobs = header["settings"]
    games = [(n, g) for n in (2, 3, 4) for g in range(games_of(per_count))]
    todo_games = [(n, g) for n, g in games
                  if any(f"{n}-{g}-{ph}" in index and f"{n}-{g}-{ph}" not in positions for ph in PHASES)]
    done_games = len(games) - len(todo_games)

    def search_tasks():
        return [delayed(reference_search)(positions[pid], index[pid], name, knobs[name], k,
                                          iterations, seed)
                for pid in ids if pid in positions for name in names for k in range(seeds)
                if (pid, name, k) not in searches]

    expected = len(games) + len(ids) * len(names) * seeds

    def kept():
        return (f"{len(positions)} positions and {len(searches)} of their reference searches are "
                f"kept in {run}; run the same command again to continue")

    def died(task, why):
        raise TournamentError(f"{_task_name(task)}: {why}; {kept()}")

    try:
        with open_append(run) as f, work.Run(jobs, progress, total=expected,
                                             initial=done_games + len(searches),
                                             desc="suite: games, then searches", unit="task",
                                             smoothing=0.05) as making:
            def save_game(entries):
                jsonl.append(f, {"game": entries})
                for e in entries:
                    if e["id"] in index:
                        positions.setdefault(e["id"], e)
                making.bar.update()

            def save_search(line):
                jsonl.append(f, line)
                searches.setdefault(tuple(line["search"]), line)
                making.bar.update()

            making.tasks([delayed(play_game)(n, g, seed, mixes[g % len(mixes)],
                                          [ph for ph in PHASES if f"{n}-{g}-{ph}" in index])
                       for n, g in todo_games], save_game, name=_task_name, died=died)
            making.tasks(search_tasks(), save_search, name=_task_name, died=died)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: {kept()}") from None
    suite = _suite(header, ids, positions, searches)
    write_bytes(out, suite_bytes(suite, out))
    return suite


def _task_name(task):
    """What ``work.Run`` calls a task of the making: its game or its search."""
    fn, args, _ = task
    if fn is play_game:
        return f"the suite's game {args[1]} of {args[0]} players"
    return f"reference search {args[4] + 1} ({args[2]}) of position {args[0]['id']}"


def _resume(run, header):
    """(the run file's header, its positions by id, its searches by (id, setting, k)),
    after checking its header against `header`; a new or empty file gets `header`."""
    from tigris._plumbing import jsonl
    from tigris.files import open_append
    from tigris.sources import open_source

    if run.exists() and run.stat().st_size:
        old, positions, searches = read_run(run, repair=True)
        if old is not None:
            for key in SAME:
                if old.get(key) != header.get(key):
                    field, was, now = difference(old.get(key), header.get(key), key)
                    raise UsageError(f"{run} holds another suite's run: its {field} is "
                                     f"{excerpt(was, 60)}, not {excerpt(now, 60)}; "
                                     f"choose another file, or the same settings to continue it")
            with open_source(run) as f:     # a last line whose newline was lost
                f.seek(-1, 2)
                ended = f.read(1) == b"\n"
            if not ended:
                with open_append(run) as f:
                    f.write(b"\n")
            return old, positions, searches
    with open_append(run) as f:
        jsonl.append(f, header)
    return header, {}, {}


def _suite(header, ids, positions, searches):
    """The suite of a finished run."""
    names = [name for name, _ in SETTINGS]
    missing = [pid for pid in ids if pid in positions and any(
        (pid, name, k) not in searches for name in names for k in range(header["seeds"]))]
    if missing:                      # cannot happen after a run that returned
        raise TournamentError(f"position {missing[0]}: its reference searches are not all done")
    entries = []
    for pid in ids:
        if pid not in positions:
            continue                 # a game with too few decisions for a third
        lines = [searches[(pid, name, k)] for name in names for k in range(header["seeds"])]
        entries.append(dict(positions[pid], reference=reference_of(lines, header["judged_share"],
                                                                   header["within"])))
    keys = ("tigris", "per_count", "iterations", "seeds", "seed", "judged_share", "within",
            "settings", "mixes", "engine")
    return {"format": FORMAT, **{k: header[k] for k in keys}, "positions": entries}


def suite_bytes(suite, path):
    """The suite as the file `path` holds it: JSON text, its header then one position a
    line, compressed by gzip (the same bytes every time) if the name ends in ``.gz``."""
    head = {k: v for k, v in suite.items() if k != "positions"}
    lines = [json.dumps({k: v for k, v in p.items() if k != "game"}, separators=(",", ":"))
             for p in suite["positions"]]
    text = json.dumps(head)[:-1] + ', "positions": [\n' + ",\n".join(lines) + "\n]}\n"
    data = text.encode("utf-8")
    return gzip.compress(data, mtime=0) if str(path).endswith(".gz") else data


def _unzipped(data, path):
    """The bytes of a file read whole, unzipped if its name ends in ``.gz``: at most
    ``sources.MAX_BYTES`` of them, and a file that is not gzip said in one line."""
    from tigris.sources import MAX_BYTES

    if not str(path).endswith(".gz"):
        return data
    unzip = zlib.decompressobj(wbits=31)
    try:
        out = unzip.decompress(data, MAX_BYTES + 1)
    except zlib.error as e:
        raise UsageError(f"{path}: not a gzip file ({e})") from None
    if len(out) > MAX_BYTES:
        raise UsageError(f"{path}: larger than {MAX_BYTES // 2**20} MB unzipped, not a suite of tigris's")
    if not unzip.eof:
        raise UsageError(f"{path}: a gzip file cut short")
    return out


# ---------------------------------------------------------------------------------------
# Reading it back
# ---------------------------------------------------------------------------------------

def _whole(value, least=0):
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


_HEAD = {"tigris": "text", "per_count": "a whole number from 1", "iterations": "a whole number from 1",
         "seeds": "a whole number from 1", "seed": "a whole number from 0",
         "judged_share": "a number above 0, at most 1", "within": "a number from 0 to 1",
         "settings": "the settings' knobs by name", "mixes": "the games' bots, [label, seats, share] each",
         "engine": "16 hexadecimal digits"}


def _head_problem(h):
    """What is wrong with the header fields of a suite or a run file (None if nothing)."""
    def bad(field):
        return f"field {field} must be {_HEAD[field]}, not {excerpt(h.get(field))}"

    checks = {
        "tigris": isinstance(h.get("tigris"), str),
        "per_count": _whole(h.get("per_count"), 1),
        "iterations": _whole(h.get("iterations"), 1),
        "seeds": _whole(h.get("seeds"), 1),
        "seed": _whole(h.get("seed")),
        "judged_share": _number(h.get("judged_share")) and 0 < h["judged_share"] <= 1,
        "within": _number(h.get("within")) and 0 <= h["within"] <= 1,
        "settings": (isinstance(h.get("settings"), dict)
                     and list(h["settings"]) == [name for name, _ in SETTINGS]
                     and all(isinstance(v, dict) for v in h["settings"].values())),
        "mixes": (isinstance(h.get("mixes"), list) and h["mixes"]
                  and all(isinstance(m, list) and len(m) == 3 and isinstance(m[0], str)
                          and isinstance(m[1], list) and m[1] and _number(m[2]) and 0 <= m[2] <= 1
                          for m in h["mixes"])),
        "engine": (isinstance(h.get("engine"), str) and len(h["engine"]) == 16
                   and all(c in "0123456789abcdef" for c in h["engine"])),
    }
    for field, ok in checks.items():
        if not ok:
            return bad(field)
    return None


_ENTRY = ("id", "players", "bots", "game_seed", "played", "length", "phase", "position")


def _entry_problem(e, ids=None):
    """What is wrong with a position's entry (its reference aside; None if nothing), and
    its game (None if it is wrong).  `ids`, if given, are the ids it may have."""
    if not isinstance(e, dict):
        return "not a position's entry (not a JSON object)", None
    missing = [f for f in _ENTRY if f not in e]
    if missing:
        return f"no field {missing[0]}", None

    def bad(field, what):
        return f"field {field} must be {what}, not {excerpt(e[field])}", None

    if not (isinstance(e["id"], str) and 0 < len(e["id"]) <= MAX_ID and e["id"].isprintable()):
        return bad("id", f"text of 1 to {MAX_ID} characters")
    if ids is not None and e["id"] not in ids:
        return bad("id", "one of the run's planned positions (PLAYERS-GAME-PHASE)")
    if e["players"] not in (2, 3, 4) or isinstance(e["players"], bool):
        return bad("players", "2, 3 or 4")
    if not isinstance(e["bots"], str):
        return bad("bots", "text")
    if not _whole(e["game_seed"]):
        return bad("game_seed", "a whole number")
    if not _whole(e["played"]):
        return bad("played", "a whole number")
    if not (_whole(e["length"]) and e["length"] >= e["played"]):
        return bad("length", f"a whole number from played ({e['played']})")
    if e["phase"] not in PHASES:
        return bad("phase", " or ".join(PHASES))
    if not isinstance(e["position"], dict):
        return bad("position", "a tigris-position/1 object")
    try:
        g = tigris.Game.from_position(e["position"])
    except (PositionError, ValueError, TypeError, KeyError) as x:
        return f"field position: {' '.join(str(x).split())[:200]}", None
    if g.players != e["players"]:
        return bad("players", f"the position's number of players ({g.players})")
    if g.is_over or g.decision != "action" or len(g.legal_actions()) < 2:
        return "field position: not an action decision with a choice", None
    if g.current_player in g.unknown["hands"]:
        return "field position: the mover's hand is unknown", None
    return None, g


def _reference_problem(r, g, most, within):
    """What is wrong with a position's reference (None if nothing): every judged move a
    legal move of `g` in notation, judged by 1 to `most` searches; ``best`` the moves
    within `within` of the highest value."""
    from tigris.notation import str_to_action

    if not (isinstance(r, dict) and set(r) == {"judged", "best", "unjudged"}):
        return f"field reference must be an object of judged, best and unjudged, not {excerpt(r)}"
    judged = r["judged"]
    if not (isinstance(judged, dict) and judged):
        return f"field reference.judged must be the judged moves, not {excerpt(judged)}"
    for move, v in judged.items():
        try:
            action = str_to_action(move)
            legal = g.is_legal(action) and g.action_str(action) == move
        except ValueError:
            legal = False
        if not legal:
            return f"field reference.judged: {excerpt(move)} is not a legal move of the position"
        if not (isinstance(v, list) and len(v) == 3 and _number(v[0]) and 0 <= v[0] <= 1
                and _whole(v[1], 1) and _whole(v[2], 1) and v[2] <= most):
            return (f"field reference.judged[{excerpt(move)}] must be [value from 0 to 1, visits, "
                    f"searches from 1 to {most}], not {excerpt(v)}")
    if r["best"] != _best(judged, within) or not r["best"]:
        return (f"field reference.best must be the judged moves within {within} of the highest "
                f"value, not {excerpt(r['best'])}")
    if not _whole(r["unjudged"]):
        return f"field reference.unjudged must be a whole number, not {excerpt(r['unjudged'])}"
    return None


def read_suite(path):
    """The suite in the file `path`, every field checked; a file that is not a whole
    ``tigris-suite/1`` raises a UsageError naming the file, the position and the field.
    Each position's entry gets its game (``game``, not in the file)."""
    from tigris.sources import parse_json, read_source

    data = parse_json(_unzipped(read_source(path), path), where=str(path))
    problem = _suite_problem(data)
    if problem:
        raise UsageError(f"{path}: {problem}")
    return data


def _suite_problem(data):
    """What is wrong with a suite (None if nothing); each entry is given its ``game``."""
    if not (isinstance(data, dict) and data.get("format") == FORMAT):
        return f"not a {FORMAT} file (no format {FORMAT!r} field)"
    known = {"format", "positions", *_HEAD}
    extra = [k for k in data if k not in known]
    if extra:
        return f"unknown field {excerpt(extra[0])}"
    problem = _head_problem(data)
    if problem:
        return problem
    entries = data.get("positions")
    if not (isinstance(entries, list) and entries):
        return f"field positions must be a list of positions, not {excerpt(entries)}"
    seen = set()
    most = data["seeds"] * len(data["settings"])
    for k, e in enumerate(entries):
        pid = e.get("id") if isinstance(e, dict) else None
        named = isinstance(pid, str) and 0 < len(pid) <= MAX_ID and pid.isprintable()
        where = f"positions[{k}]" + (f" ({pid})" if named else "")
        problem, g = _entry_problem(e)
        if problem is None:
            extra = [f for f in e if f not in (*_ENTRY, "reference")]
            if extra:
                problem = f"unknown field {excerpt(extra[0])}"
            elif "reference" not in e:
                problem = "no field reference"
            elif e["id"] in seen:
                problem = "field id: a second position of this id"
            else:
                problem = _reference_problem(e["reference"], g, most, data["within"])
        if problem:
            return f"{where}: {problem}"
        seen.add(e["id"])
        e["game"] = g
    return None


def load_suite(path=None):
    """The suite of the file `path`, else the shipped one (``SHIPPED``); a missing
    shipped suite is said in one line with what to do."""
    if path is None:
        if not SHIPPED.exists():
            raise UsageError(f"no position suite is shipped with this tigris ({SHIPPED.name} is not in "
                             f"the package yet): make one with tigris bench suite --make RUN --out "
                             f"SUITE and name it with --suite SUITE, or use --midgame for the 24 "
                             f"mid-game positions of greedy games")
        path = SHIPPED
    return read_suite(path)


def read_run(path, repair=False):
    """(header, positions by id, searches by (id, setting, k)) of a run file; (None, {},
    {}) for an empty one.  A torn last line (a run killed while writing) is ignored with
    a warning, and cut off the file when `repair` is set.  Every line is checked: a
    UsageError names the file, the line and the field of the first that is wrong."""
    from tigris._plumbing import jsonl

    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{path}: is a folder, not a suite's run file")
    values, torn = jsonl.read(path)
    header, positions, searches = None, {}, {}
    names = [name for name, _ in SETTINGS]
    for lineno, item in values:
        if header is None:
            if not (isinstance(item, dict) and item.get("format") == RUN_FORMAT):
                raise UsageError(f"{path}: not a {RUN_FORMAT} file (line {lineno} is not its header); "
                                 f"name another file for the suite's run")
            problem = _head_problem(item)
            header = item
            ids = set(planned(item["per_count"])) if problem is None else set()
        elif isinstance(item, dict) and set(item) == {"game"}:
            problem = None
            if not (isinstance(item["game"], list) and len(item["game"]) <= len(PHASES)):
                problem = f"field game must be a game's positions, not {excerpt(item['game'])}"
            for e in item["game"] if problem is None else ():
                problem, _ = _entry_problem(e, ids)
                if problem:
                    problem = f"a position of the game: {problem}"
                    break
                positions.setdefault(e["id"], e)
        elif isinstance(item, dict) and set(item) == {"search", "iterations", "moves"}:
            problem = _search_problem(item, positions, names, header)
            if problem is None:
                searches.setdefault(tuple(item["search"]), item)
        else:
            problem = "not a line of a suite's run (a game's positions or a search)"
        if problem:
            raise UsageError(f"{path}: line {lineno}: {problem}")
    jsonl.settle(path, torn, repair)
    return header, positions, searches


def _search_problem(item, positions, names, header):
    """What is wrong with a search's line (None if nothing)."""
    key = item["search"]
    if not (isinstance(key, list) and len(key) == 3 and key[0] in positions and key[1] in names
            and _whole(key[2]) and key[2] < header["seeds"]):
        return (f"field search must be [a position of an earlier line, a setting "
                f"({', '.join(names)}), a search number under {header['seeds']}], not {excerpt(key)}")
    if not _whole(item["iterations"], 1):
        return f"field iterations must be a whole number from 1, not {excerpt(item['iterations'])}"
    moves = item["moves"]
    if not (isinstance(moves, list) and moves and all(
            isinstance(m, list) and len(m) == 3 and isinstance(m[0], str) and _whole(m[1], 1)
            and _number(m[2]) and 0 <= m[2] <= 1 for m in moves)):
        return f"field moves must be [move, visits, value from 0 to 1] each, not {excerpt(moves)}"
    return None


# ---------------------------------------------------------------------------------------
# Judging hints by it
# ---------------------------------------------------------------------------------------

def judge(entry, move):
    """The reference's judgement of `move` (notation) at the position `entry`: ``(value,
    regret)`` (the regret: the highest value less the move's), or None when no reference
    search visited it enough to judge it."""
    judged = entry["reference"]["judged"]
    if move not in judged:
        return None
    top = max(v[0] for v in judged.values())
    return judged[move][0], max(0.0, round(top - judged[move][0], DECIMALS))


def _share_row(label, hits, unit="%"):
    """A share of positions as a row: (label with its count, percent, unit, 95% interval)."""
    from tigris.ratings import wilson_interval

    n = len(hits)
    k = sum(hits)
    low, high = wilson_interval(k, n)
    return (f"{label} ({k} of {n})", 100 * k / n, unit, (100 * low, 100 * high))


def _counts(suite):
    """The player counts in the suite, with every count's label and the whole."""
    counts = sorted({e["players"] for e in suite["positions"]})
    return [(f"{n} players", (n,)) for n in counts] + [("all", tuple(counts))]


def _positions_run(suite, task, jobs, progress, desc):
    """``task(entry)`` (a delayed call) for every position of the suite on `jobs`
    workers, each position advancing one bar; the results in the suite's order and the
    minutes taken."""
    from tigris._plumbing import work

    start = time.perf_counter()
    results = []

    def save(result):
        results.append(result)
        run.bar.update()

    def died(task, why):
        raise TournamentError(f"{_position_name(task)}: {why}; a benchmark keeps nothing of a run "
                              f"that stops: run it again (with fewer --jobs if memory is short)")

    with work.Run(jobs, progress, total=len(suite["positions"]), desc=desc, unit="position") as run:
        run.tasks([task(e) for e in suite["positions"]], save, name=_position_name, died=died)
    return results, (time.perf_counter() - start) / 60


def _position_name(task):
    return f"the hints of the suite's position {task[1][0]['id']}"


def _bare(entry):
    """What a worker needs of an entry: its id and its position."""
    return {"id": entry["id"], "position": entry["position"]}


def _decisive_position(entry, bot, iterations, seeds):
    """The hints of one position with each seed: their top plans (``plan_key``), each
    one's equals, how many equals, the top plan's share of the root's visits and its
    first move."""
    from tigris.hints import hint, plan_key

    g = tigris.Game.from_position(entry["position"])
    out = {"tops": [], "groups": [], "sizes": [], "shares": [], "moves": []}
    for seed in seeds:
        rows = hint(g, iterations=iterations, bot=bot, seed=seed, top=10_000, progress=False)
        out["tops"].append(plan_key(rows[0]["plan"]))
        out["groups"].append([plan_key(r["plan"]) for r in rows if r["equal"]])
        out["sizes"].append(rows.equals)
        out["shares"].append(rows[0]["share"])
        out["moves"].append(rows[0]["move"])
    return out


def bench_decisive(suite, bot=HINT_BOT, iterations=20_000, seeds=HINT_SEEDS, jobs=1, progress=True):
    """How decisive the hints are on the suite: at each position a hint of `iterations`
    with each of `seeds` by configuration `bot`; per player count and in all, the share
    of positions whose hints name the same top plan and of those where each seed's top
    plan is among every other seed's equals (each with its 95% interval), and in all the
    pairs of seeds, the hints with two or more equals, the median number of equals and
    of the top plan's share of the root's visits; then the minutes taken on `jobs`
    workers."""
    from joblib import delayed

    from tigris.runs.bench import check_hint_bot

    check_hint_bot(bot)
    seeds = tuple(seeds)
    found, minutes = _positions_run(
        suite, lambda e: delayed(_decisive_position)(_bare(e), bot, iterations, seeds),
        jobs, progress, "decisive: positions")
    same, held, pairs = [], [], []
    for r in found:
        groups = [set(map(tuple, g)) for g in r["groups"]]
        tops = [tuple(t) for t in r["tops"]]
        inside = [tops[i] in groups[j] for i in range(len(seeds)) for j in range(len(seeds)) if i != j]
        pairs.extend(inside)
        same.append(len(set(tops)) == 1)
        held.append(all(inside))
    named = ", ".join(map(str, seeds))
    rows = []
    players = [e["players"] for e in suite["positions"]]
    for label, counts in _counts(suite):
        pick = [k for k, n in enumerate(players) if n in counts]
        rows.append(_share_row(f"same top plan for seeds {named}, {label}", [same[k] for k in pick]))
        rows.append(_share_row(f"each seed's top plan among the other seeds' equals, {label}",
                               [held[k] for k in pick]))
        rows.append((f"median number of equal plans, {label}",
                     statistics.median(s for k in pick for s in found[k]["sizes"]), "plans"))
    sizes = [s for r in found for s in r["sizes"]]
    if pairs:
        rows.append(("a seed's top plan among another seed's equals, all pairs",
                     100 * statistics.fmean(pairs), "%"))
    rows.append(("hints with two or more equal plans", 100 * statistics.fmean([s >= 2 for s in sizes]), "%"))
    rows.append(("median share of the root visits on the top plan",
                 100 * statistics.median(s for r in found for s in r["shares"]), "%"))
    rows.append(((f"time, {len(found)} positions, {iterations:,} iterations a hint, on {jobs} "
                  f"worker{'s' * (jobs > 1)}"), minutes, "minutes"))
    return rows


def _regret_position(entry, bot, budgets, seed):
    """The top move and the number of equals of a hint of each of `budgets`."""
    from tigris.hints import hint

    g = tigris.Game.from_position(entry["position"])
    out = {"moves": [], "equals": []}
    for b in budgets:
        rows = hint(g, iterations=b, bot=bot, seed=seed, top=1, progress=False)
        out["moves"].append(rows[0]["move"])
        out["equals"].append(rows.equals)
    return out


def bench_regret(suite, bot=HINT_BOT, budgets=REGRET_BUDGETS, seed=1, jobs=1, progress=True):
    """Whether the hints' top plans are right by the suite's reference: at each position
    a hint of each of `budgets` iterations (seed `seed`), its first move judged by the
    reference.  Rows per budget: per player count and in all, the share of positions
    where the top plan is among the reference's best (within its ``within`` of the
    highest value; a move no reference search judged counts as a miss) with its 95%
    interval; how many top plans were not judged; the mean and the largest regret of the
    judged ones; the median number of equal plans; then the minutes taken."""
    from joblib import delayed

    from tigris.runs.bench import check_hint_bot

    check_hint_bot(bot)
    budgets = tuple(budgets)
    found, minutes = _positions_run(
        suite, lambda e: delayed(_regret_position)(_bare(e), bot, budgets, seed),
        jobs, progress, "regret: positions")
    entries = suite["positions"]
    rows = []
    for k, b in enumerate(budgets):
        judged = [judge(e, r["moves"][k]) for e, r in zip(entries, found)]
        right = [j is not None and r["moves"][k] in e["reference"]["best"]
                 for e, r, j in zip(entries, found, judged)]
        for label, counts in _counts(suite):
            pick = [i for i, e in enumerate(entries) if e["players"] in counts]
            rows.append(_share_row(f"top plan within {suite['within']} of the reference's best, "
                                   f"{b:,} iterations, {label}", [right[i] for i in pick]))
        regrets = [j[1] for j in judged if j is not None]
        rows.append((f"top plans the reference did not judge (counted as misses), {b:,} iterations",
                     sum(j is None for j in judged), "positions"))
        if regrets:
            rows.append((f"mean regret of the judged top plans, {b:,} iterations",
                         statistics.fmean(regrets), "chance"))
            rows.append((f"largest regret, {b:,} iterations", max(regrets), "chance"))
        rows.append((f"median number of equal plans, {b:,} iterations",
                     statistics.median(r["equals"][k] for r in found), "plans"))
    rows.append(((f"time, {len(found)} positions, hints of {' and '.join(f'{b:,}' for b in budgets)} "
                  f"iterations, on {jobs} worker{'s' * (jobs > 1)}"), minutes, "minutes"))
    return rows


def bench_policy(suite, network=""):
    """How good a network's policy is by the suite's reference (no search: the policy
    alone): at each position, whether its most probable move is among the reference's
    best, and the share of its probability on those moves (what self-play's targets teach
    it to put there), per player count and in all, with 95% intervals; its mean entropy
    (how sharp it is); how many of its top moves the reference did not judge (counted as
    misses), and the mean regret of the judged ones.  `network` is a ``network`` knob's
    value (empty: the shipped default), read for each position's number of players.  The
    same reference labels for every generation: the policy's quality, compared across
    networks and self-play targets.  A generation that ships one line only (``gen2``: 2
    players) is judged on that line's positions."""
    from tigris import network as networks

    if network and networks.names_generation(network):
        shipped = [e for e in suite["positions"] if network in networks.generations(e["players"])]
        if shipped and len(shipped) < len(suite["positions"]):
            suite = dict(suite, positions=shipped)
    entries = suite["positions"]
    policies = _policies(entries, network)
    tops, judged, right = _judged(entries, policies)
    on_best = [_on_best(e, g, prior) for e, (g, prior) in zip(entries, policies)]
    entropy = [-sum(p * math.log(p) for p in prior.values() if p > 0) for _, prior in policies]
    rows = []
    for label, counts in _counts(suite):
        pick = [i for i, e in enumerate(entries) if e["players"] in counts]
        rows.append(_share_row(f"the policy's top move among the reference's best, {label}",
                               [right[i] for i in pick]))
    for label, counts in _counts(suite):
        pick = [on_best[i] for i, e in enumerate(entries) if e["players"] in counts]
        rows.append(_mean_row(f"the policy's share on the reference's best moves, {label}", pick, "%"))
    for label, counts in _counts(suite):
        rows.append((f"the policy's mean entropy, {label}",
                     statistics.fmean(entropy[i] for i, e in enumerate(entries) if e["players"] in counts),
                     "nats"))
    rows.append(("top moves the reference did not judge (counted as misses)",
                 sum(j is None for j in judged), "positions"))
    regrets = [j[1] for j in judged if j is not None]
    if regrets:
        rows.append(("mean regret of the judged top moves", statistics.fmean(regrets), "chance"))
    return rows


def _mean_row(label, values, unit):
    """A mean over positions as a row, with the 95% interval of a mean (+- 1.96 standard
    errors; none for a single position)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return (f"{label} ({len(values)} positions)", mean, unit)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return (f"{label} ({len(values)} positions)", mean, unit, (mean - half, mean + half))


def _policies(entries, network):
    """Each of the suite's positions `entries` as a game, with the policy of the network
    the knob `network` names for its number of players: [(game, {action: probability})]."""
    from tigris import network as networks

    out = []
    for e in entries:
        g = tigris.Game.from_position(e["position"])
        net = networks.from_knobs("net", network, g.players)
        if net is None or not net.has_policy:
            raise UsageError(f"network {network or 'the default'}: no policy head to judge")
        out.append((g, net.policy(g)))
    return out


def _judged(entries, policies):
    """``policy_judged`` of the policies ``_policies`` gave."""
    tops = [g.action_str(max(prior, key=lambda a: (prior[a], -a))) for g, prior in policies]
    judged = [judge(e, move) for e, move in zip(entries, tops)]
    right = [j is not None and move in e["reference"]["best"] for e, move, j in zip(entries, tops, judged)]
    return tops, judged, right


def policy_judged(entries, network=""):
    """The policy's most probable move at each of the suite's positions `entries`
    (``bench_policy``): (the moves, each one's ``judge`` result, whether each is among
    the reference's best)."""
    return _judged(entries, _policies(entries, network))


def policy_score(network, players, suite=None):
    """How many of the suite's positions of `players` (player counts) a network's policy
    alone gets right, its most probable move among the reference's best: (right,
    positions).  `suite` defaults to the shipped one (``load_suite``, read once a process:
    a loop judges each generation with it)."""
    return policy_figures(network, players, suite)[:2]


def policy_figures(network, players, suite=None):
    """``policy_score``'s (right, positions), and the mean share of the policy's
    probability on the reference's best moves at those positions, in percent
    (``bench_policy``'s)."""
    entries = [e for e in (suite or _shipped())["positions"] if e["players"] in players]
    policies = _policies(entries, network)
    return (sum(_judged(entries, policies)[2]), len(entries),
            statistics.fmean(_on_best(e, g, prior) for e, (g, prior) in zip(entries, policies)))


def _on_best(entry, game, prior):
    """The share of `prior`'s probability on the suite's best moves at `entry`, in percent."""
    return 100 * sum(p for a, p in prior.items() if game.action_str(a) in entry["reference"]["best"])


@functools.lru_cache(maxsize=1)
def _shipped():
    """The shipped suite, read and checked once (``policy_score`` only reads it)."""
    return load_suite()


def summary_rows(suite):
    """What a suite holds: its positions by player count, phase and the games' bots, its
    reference's budget, and how many moves its references judged."""
    entries = suite["positions"]
    rows = [(f"positions, {label}", sum(e["players"] in counts for e in entries), "positions")
            for label, counts in _counts(suite)]
    rows += [(f"positions, {phase}", sum(e["phase"] == phase for e in entries), "positions")
             for phase in PHASES]
    for label in dict.fromkeys(e["bots"] for e in entries):
        rows.append((f"positions from games of {label}", sum(e["bots"] == label for e in entries),
                     "positions"))
    rows.append(((f"reference searches a position ({suite['seeds']} of each of "
                  f"{', '.join(suite['settings'])})"), suite["seeds"] * len(suite["settings"]), "searches"))
    rows.append(("iterations of a reference search", suite["iterations"], "iterations"))
    rows.append(("judged moves a position (median)",
                 statistics.median(len(e["reference"]["judged"]) for e in entries), "moves"))
    rows.append(("positions with two or more best moves",
                 sum(len(e["reference"]["best"]) > 1 for e in entries), "positions"))
    return rows

