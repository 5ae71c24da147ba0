"""Benchmarks, on one core: the speed of the compiled core (``tigris bench core``) and of
the search (``bench search``), and how decisive the hints are (``bench decisive``); and,
on worker processes, how well the hint's win chance is calibrated (``bench calibration``).

Every speed figure is the median of several repeats; the machine is reported with it,
since absolute numbers mean little without it.
"""

import itertools
import math
import os
import platform
import random
import statistics
import time
import timeit

import tigris
from tigris import _bench
from tigris.boards import BOARD_NAMES
from tigris.constants import VARIANTS
from tigris.hints import DEFAULT_BOT as HINT_BOT
from tigris.play import seeds
from tigris.play.seeds import CALIBRATION_SEEDS    # its deals: seeds.calibration_seed

__all__ = ["machine", "core_runs", "bench_core", "search_runs", "bench_search",
           "midgame_positions", "check_hint_bot", "decisive_runs", "bench_decisive",
           "REGRET_BUDGETS", "REGRET_REFERENCE", "REGRET_WITHIN", "regret_runs", "bench_regret",
           "CALIBRATION_BOT", "CALIBRATION_BOT_ITERATIONS", "CALIBRATION_SEEDS", "POSITIONS_PER_GAME",
           "SUM_TOLERANCE", "calibration_seed", "calibration_games", "calibration_runs",
           "calibration_positions", "calibration_sample", "check_games_bot",
           "bench_calibration", "format_rows"]


def machine():
    """A one-line description of this machine."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}")


def _median(values):
    return statistics.median(values)


#: The random-game figures: (players, board, variants, label suffix).  The first three are
#: the classic board without variants; the others add the advanced board and the variants.
RANDOM_GAME_SETUPS = (
    (2, "classic", (), ""),
    (3, "classic", (), ""),
    (4, "classic", (), ""),
    (2, "advanced", (), ", advanced board"),
    (3, "advanced", (), ", advanced board"),
    (4, "advanced", (), ", advanced board"),
    (2, "classic", ("english", "buildings"), ", english + buildings"),
    (2, "advanced", ("english", "buildings"), ", advanced board, english + buildings"),
)


def core_runs(repeats=5):
    """How many times bench_core calls its progress callback."""
    return len(RANDOM_GAME_SETUPS) * repeats


def bench_core(games=1000, repeats=5, seed=1, progress=None):
    """Measure the core; returns a list of (figure, value, unit) rows."""
    rows = []
    for players, board, variants, suffix in RANDOM_GAME_SETUPS:
        board_index = BOARD_NAMES.index(board)
        bits = sum(VARIANTS[v] for v in variants)
        n = games if players == 2 else games // 2
        rates, action_rates = [], []
        for r in range(repeats):
            seconds, decisions = _bench.random_games(players, n, seed + r, board_index, bits)
            rates.append(n / seconds)
            action_rates.append(decisions / seconds)
            if progress:
                progress()
        rows.append((f"random {players}-player games per second{suffix}", _median(rates),
                     "games/s"))
        rows.append((f"random {players}-player decisions per second{suffix}",
                     _median(action_rates), "decisions/s"))
    rows.append(("state copy (compiled)",
                 _median([_bench.copy_time(2, 200_000, seed + r) for r in range(repeats)]) * 1e9, "ns"))
    rows.append(("apply + undo (compiled, every legal action of 200 positions)",
                 _median([_bench.apply_undo_time(2, 200, seed + r)[0] for r in range(repeats)]) * 1e9, "ns"))
    g = tigris.Game(players=2, seed=seed)
    rng_actions = _midgame(g, seed)
    rows.append(("Game.copy(stack=False) from Python",
                 _median(timeit.repeat(lambda: g.copy(stack=False), number=20_000, repeat=repeats)) / 20_000 * 1e9,
                 "ns"))
    rows.append(("Game.copy() with undo history, from Python",
                 _median(timeit.repeat(g.copy, number=20_000, repeat=repeats)) / 20_000 * 1e9, "ns"))

    def apply_undo():
        for a in rng_actions:
            g.apply(a)
            g.undo()

    per_call = len(rng_actions)
    rows.append(("Game.apply + Game.undo from Python (legality checked)",
                 _median(timeit.repeat(apply_undo, number=20, repeat=repeats)) / (20 * per_call) * 1e9, "ns"))
    rows.append(("state size", _bench.state_size(), "bytes"))
    return rows


#: The search figures: (rollout policy, cut-off in decisions (-1: the game's end), label).
SEARCH_SETUPS = (
    ("random", 0, "heuristic", "0 (evaluate the leaf)"),
    ("random", 10, "heuristic", "10"),
    ("random", -1, "heuristic", "full game"),
    ("greedy", 10, "heuristic", "10, greedy rollouts"),
    ("random", 0, "net", "0, the network"),
    ("greedy", 10, "net", "10, greedy rollouts, the network"),
)
EVALUATIONS = 200_000           # evaluations timed, per repeat


#: ismcts-fast's search with the heuristic's priors and with the policy's (the bot's own
#: knobs otherwise): (label, knobs).
MIX_SETUPS = (("ismcts-fast's mix, the heuristic's priors", {"priors": "heuristic"}),
              ("ismcts-fast's mix, the policy's priors", {"priors": "net"}))


def search_runs(repeats=5):
    """How many times bench_search calls its progress callback."""
    from tigris import network

    policy = 1 + len(MIX_SETUPS) if network.load().has_policy else 0
    return (len(SEARCH_SETUPS) + 2 + policy) * repeats


def bench_search(repeats=5, iterations=20_000, seed=3, progress=None):
    """ISMCTS iterations per second on a fixed mid-game 2-player position, one core, with
    uniformly random rollouts cut off after 0 and 10 decisions and at the game's end, and
    with greedy rollouts (the plain configuration's epsilon, 0.1) cut off after 10, all
    with progressive widening 2.0, by the heuristic evaluation and by the shipped network;
    at cut-off 10 the share of the time spent outside the random rollouts (determinization,
    tree descent, expansion, evaluation, backup); and evaluations per second of the
    position, by the heuristic and by the network (its features and forward pass); the
    policy's evaluations per second (every legal action of the position) and ismcts-fast's
    iterations per second with the heuristic's priors and with the policy's, side by side
    (with the shipped 2-player network, if it has a policy head)."""
    from tigris import bots, network
    from tigris._net import time_evaluations, time_policy
    from tigris.knobs import SEARCH_CONFIG
    from tigris.search import PLAIN, Search

    g = tigris.Game(players=2, seed=seed)
    _midgame(g, seed, decisions=30)
    rows, overhead = [], []
    net = network.load()
    for label, which in (("the heuristic", None), ("the network", net)):
        rates = []
        for r in range(repeats):
            rates.append(EVALUATIONS / time_evaluations(which, g, EVALUATIONS))
            if progress:
                progress()
        rows.append((f"evaluations per second, {label}", _median(rates), "evaluations/s"))
    if net.has_policy:
        rates = []
        for r in range(repeats):
            rates.append(EVALUATIONS / 10 / time_policy(net, g, EVALUATIONS // 10))
            if progress:
                progress()
        rows.append((f"policy evaluations per second ({len(g.legal_actions())} legal actions)", _median(rates),
                     "evaluations/s"))
        mix = {k: v for k, v in bots.configuration("ismcts-fast").params.items() if k in SEARCH_CONFIG}
        # the two priors take turns, round after round, so that a drift of the machine's
        # load falls on both
        mixes: dict[str, list[float]] = {label: [] for label, _ in MIX_SETUPS}
        for r in range(repeats):
            for label, knobs in MIX_SETUPS:
                s = Search(g, **{**mix, **knobs}, seed=r)
                t = time.perf_counter()
                s.step(iterations=iterations)
                mixes[label].append(iterations / (time.perf_counter() - t))
                if progress:
                    progress()
        rows.extend((f"ISMCTS iterations per second, {label}", _median(rates), "iterations/s")
                    for label, rates in mixes.items())
    for rollout, depth, evaluator, label in SEARCH_SETUPS:
        its = iterations // 20 if depth < 0 else iterations     # whole games are slow
        rates = []
        for r in range(repeats):
            s = Search(g, **{**PLAIN, "rollout_depth": depth, "rollout": rollout, "widening": 2.0,
                             "evaluator": evaluator}, seed=r)
            s.measure_rollouts()
            t = time.perf_counter()
            s.step(iterations=its)
            elapsed = time.perf_counter() - t
            rates.append(its / elapsed)
            if depth == 10 and rollout == "random":
                overhead.append(1 - s.rollout_seconds / elapsed)
            if progress:
                progress()
        rows.append((f"ISMCTS iterations per second, rollout cut-off {label}", _median(rates), "iterations/s"))
    rows.append(("search overhead at cut-off 10 (time outside rollouts)", 100 * _median(overhead), "%"))
    return rows


def midgame_positions(per_count=8, seed=1):
    """Mid-game positions from greedy bot games, ``per_count`` each with 2, 3 and 4
    players: the player to move at an action decision with a choice, somewhere between
    30% and 70% of the game's moves.  Reproducible from ``seed``."""
    import random

    from tigris import bots
    from tigris.play.runner import bot_seed, play_out

    rng = random.Random(seed)
    out = []
    for players in (2, 3, 4):
        for k in range(per_count):
            game_seed = rng.getrandbits(31)
            g = tigris.Game(players=players, seed=game_seed)
            play_out(g, [bots.make("greedy", seed=bot_seed(game_seed, 0, p)) for p in range(players)])
            played = [a for a, _, _, _ in g.history]
            stop = rng.randrange(int(0.3 * len(played)), int(0.7 * len(played)))
            g = tigris.Game(players=players, seed=game_seed)          # the same game again,
            for a in played:                                          # up to the position
                if len(g.history) >= stop and g.decision == "action" and len(g.legal_actions()) >= 2:
                    break
                g.apply(a)
            out.append(g)
    return out


def check_hint_bot(bot):
    """Raise ConfigError unless `bot` names an ismcts configuration, which hints search with."""
    from tigris import bots
    from tigris.errors import ConfigError

    kind = bots.configuration(bot).kind
    if kind != "ismcts":
        raise ConfigError(f"hints need an ismcts bot configuration, not a {kind} one")


def decisive_runs(per_count=8, seeds=3):
    """How many times bench_decisive calls its progress callback."""
    return 3 * per_count * seeds


def bench_decisive(bot=HINT_BOT, iterations=20_000, per_count=8, seeds=(1, 2, 3), progress=None):
    """How decisive the hints are, and whether their groups of equals hold what another
    seed finds: on the positions of ``midgame_positions``, a hint with each seed
    (every move); whether they name the same top plan, whether each seed's top plan is
    among every other seed's equals (``hints.ranked``), how many equals a hint shows and
    how often two or more, and the top plan's share of the root visits (median over
    every search).  Rows per player count and in all."""
    from tigris.hints import hint, plan_key

    check_hint_bot(bot)                 # a bad bot is named before any game is played
    same, held, pairs, sizes, shares = {}, {}, [], [], []
    for g in midgame_positions(per_count):
        tops, groups = [], []
        for seed in seeds:
            rows = hint(g, iterations=iterations, bot=bot, seed=seed, top=10_000, progress=False)
            tops.append(plan_key(rows[0]["plan"]))
            groups.append({plan_key(r["plan"]) for r in rows if r["equal"]})
            sizes.append(len(groups[-1]))
            shares.append(rows[0]["share"])
            if progress:
                progress()
        inside = [tops[i] in groups[j] for i in range(len(seeds)) for j in range(len(seeds)) if i != j]
        pairs.extend(inside)
        same.setdefault(g.players, []).append(len(set(tops)) == 1)
        held.setdefault(g.players, []).append(all(inside))
    named = ", ".join(map(str, seeds))
    rows = []
    for n in (2, 3, 4):
        rows.append((f"same top plan for seeds {named}, {n} players",
                     100 * statistics.fmean(same[n]), "%"))
        rows.append((f"each seed's top plan among the other seeds' equals, {n} players",
                     100 * statistics.fmean(held[n]), "%"))
    every = [a for n in same for a in same[n]]
    rows.append((f"same top plan, all {len(every)} positions", 100 * statistics.fmean(every), "%"))
    rows.append((f"each seed's top plan among the other seeds' equals, all {len(every)} positions",
                 100 * statistics.fmean([a for n in held for a in held[n]]), "%"))
    rows.append(("a seed's top plan among another seed's equals, all pairs",
                 100 * statistics.fmean(pairs), "%"))
    rows.append(("hints with two or more equal plans",
                 100 * statistics.fmean([k >= 2 for k in sizes]), "%"))
    rows.append(("median number of equal plans", _median(sizes), "plans"))
    rows.append(("median share of the root visits on the top plan", 100 * _median(shares), "%"))
    return rows


REGRET_BUDGETS = (20_000, 100_000)     # the hints' iterations whose regret is measured
REGRET_REFERENCE = 400_000             # the deep reference's
REGRET_WITHIN = 0.02                   # a top plan this close to the reference's best is as good


def regret_runs(per_count=8):
    """How many times bench_regret calls its progress callback."""
    return 3 * per_count * (len(REGRET_BUDGETS) + 1)


def bench_regret(bot=HINT_BOT, per_count=8, seed=1, budgets=REGRET_BUDGETS,
                 reference=REGRET_REFERENCE, progress=None):
    """What a hint's top plan costs against a deep search: on the positions of
    ``midgame_positions``, a hint of each of `budgets` iterations (seed `seed`), and the
    reference, an analysis of its top move at `reference` iterations
    (``analysis.analyse_decision``: the reference's best against the move searched alone,
    as deeply): the regret is the drop, the mover's chance lost by playing the hint's
    move instead of the reference's best (0 when they agree).  Rows per budget: the share
    of positions within REGRET_WITHIN, the mean and the largest regret, and how many
    equal plans the hints showed (median)."""
    from tigris import analysis, bots
    from tigris.hints import hint

    check_hint_bot(bot)
    conf = bots.configuration(bot)
    engine = (conf.kind, conf.name, conf.params)
    regrets = {b: [] for b in budgets}
    equals = {b: [] for b in budgets}
    for g in midgame_positions(per_count):
        tops = {}
        for b in budgets:
            h = hint(g, iterations=b, bot=bot, seed=seed, top=1, progress=False)
            tops[b] = h[0]["action"]
            equals[b].append(h.equals)
            if progress:
                progress()
        judged = {}
        for action in tops.values():
            if action not in judged:
                task = analysis.Decision(len(g.history) + 1, g, action)
                judged[action] = analysis.analyse_decision(task, engine, {"iterations": reference},
                                                           seed, analysis.THRESHOLDS)["drop"]
        if progress:
            progress()
        for b in budgets:
            regrets[b].append(max(0.0, judged[tops[b]]))
    rows = []
    for b in budgets:
        r = regrets[b]
        rows.append((f"top plan within {REGRET_WITHIN} of a {reference:,}-iteration search's best, "
                     f"{b:,} iterations, {len(r)} positions",
                     100 * statistics.fmean([x <= REGRET_WITHIN for x in r]), "%"))
        rows.append((f"mean regret, {b:,} iterations", statistics.fmean(r), "chance"))
        rows.append((f"largest regret, {b:,} iterations", max(r), "chance"))
        rows.append((f"median number of equal plans, {b:,} iterations", _median(equals[b]), "plans"))
    return rows


#: The bots that play the games of ``bench calibration``: ismcts-fast at a small budget,
#: whose games are like the tournament games the win chance was fitted on (an ismcts-fast
#: game of some 160 decisions takes under a second at 300 iterations, against about three
#: at its own 1,000); greedy games would be played by the very evaluation the chance is
#: read from.
CALIBRATION_BOT = "ismcts-fast"
CALIBRATION_BOT_ITERATIONS = 300
MAX_GAMES = 100_000              # games per player count that the seed layout holds
POSITIONS_PER_GAME = 3           # one early, one in the middle, one late
SUM_TOLERANCE = 0.001            # how far every player's chances may sum from 1


def calibration_seed(seed, players, game):
    """The deal seed of game number `game` with `players` players of a calibration run
    with base `seed` (0 to 1,000,000)."""
    if not 0 <= game < MAX_GAMES:
        raise ValueError(f"a calibration run holds at most {MAX_GAMES:,} games per player count")
    return seeds.calibration_seed(seed, players, game)


def calibration_games(positions):
    """How many games per player count give `positions` positions."""
    return -(-positions // POSITIONS_PER_GAME)


def calibration_runs(positions=1000):
    """How many tasks bench_calibration's progress bar counts: 3 player counts' games and
    positions."""
    return 3 * (calibration_games(positions) + positions)


def _games_bot(games_bot, seed):
    """A seat of a calibration game: `games_bot` ((name or file, iterations or None for
    its own); None: CALIBRATION_BOT at CALIBRATION_BOT_ITERATIONS) with its seed."""
    from tigris import bots

    name, iterations = games_bot or (CALIBRATION_BOT, CALIBRATION_BOT_ITERATIONS)
    return bots.load(name, seed=seed, **({} if iterations is None else {"iterations": iterations}))


def check_games_bot(games_bot):
    """`games_bot` ((name or file, iterations or None)) if a calibration game can seat it,
    else a UsageError naming it: a bot that loads (its iterations, if given, a knob of it)."""
    from tigris.errors import ConfigError, UsageError

    if games_bot is None:
        return None
    try:
        _games_bot(games_bot, 0)
    except (ConfigError, ValueError, TypeError, OSError) as e:
        raise UsageError(f"the calibration games' bot {games_bot[0]}: {e}") from None
    return games_bot


def _calibration_game(players, game_seed, games_bot=None):
    """Play one calibration game to its end with `games_bot` in every seat (default
    CALIBRATION_BOT at CALIBRATION_BOT_ITERATIONS; ``_games_bot``) and pick
    POSITIONS_PER_GAME of its decisions: one at random in each part of its action
    decisions with a choice (early, middle, late).  A game stopped at MAX_TURNS is
    played again with other bot seeds, so every outcome is a real one.  Returns the
    moves, the picked decisions (numbers of moves played before them) and each player's
    share of the first place."""
    from tigris.calibration import first_shares
    from tigris.play.runner import bot_seed, play_out

    for attempt in itertools.count():
        g = tigris.Game(players=players, seed=game_seed)
        seated = [_games_bot(games_bot, bot_seed(game_seed, attempt, p)) for p in range(players)]
        choices = []

        def note(g):                  # a decision with a choice: a position to ask about
            if g.decision == "action" and len(g.legal_actions()) >= 2:
                choices.append(len(g.history))

        play_out(g, seated, before=note)
        if g.is_over:
            break
    rng = random.Random(game_seed)
    parts = [choices[k * len(choices) // POSITIONS_PER_GAME:(k + 1) * len(choices) // POSITIONS_PER_GAME]
             for k in range(POSITIONS_PER_GAME)]
    return {"players": players, "seed": game_seed, "moves": [a for a, _, _, _ in g.history],
            "picked": [rng.choice(part) for part in parts if part],
            "outcome": first_shares(g.ranking(), players)}


def _replayed(players, game_seed, moves):
    g = tigris.Game(players=players, seed=game_seed)
    for a in moves:
        g.apply(a)
    return g


def calibration_positions(per_count=1000, seed=0, run=None, games_bot=None):
    """``per_count`` positions each with 2, 3 and 4 players from calibration games
    (seeds from ``calibration_seed``; played by `games_bot`, as ``_calibration_game``),
    in order: dicts of ``players``, ``seed`` (the game's), ``moves`` (played up to the
    position), ``mover`` and ``outcome`` (each player's share of the first place in the
    finished game).  The games are played by `run` (a ``work.Run``; default one worker
    and no progress bar), each advancing its bar.  Reproducible from `seed`."""
    from joblib import delayed

    from tigris._plumbing.work import Run

    if run is None:
        with Run(1, progress=False) as run:
            return calibration_positions(per_count, seed, run, games_bot)
    games = []

    def save(game):
        games.append(game)
        run.bar.update()

    run.tasks([delayed(_calibration_game)(n, calibration_seed(seed, n, k), games_bot)
               for n in (2, 3, 4) for k in range(calibration_games(per_count))], save,
              name=_task_name, died=_died)
    out = []
    for n in (2, 3, 4):
        picked = [(game, stop) for game in games if game["players"] == n for stop in game["picked"]]
        for game, stop in picked[:per_count]:
            moves = game["moves"][:stop]
            out.append({"players": n, "seed": game["seed"], "moves": moves,
                        "mover": _replayed(n, game["seed"], moves).current_player,
                        "outcome": game["outcome"]})
    return out


def _calibration_hint(position, bot, iterations, seed):
    """The default hint's figures for one calibration position: the top row's ``win``
    and, when the rows have them, every player's ``chances``."""
    from tigris.hints import hint

    g = _replayed(position["players"], position["seed"], position["moves"])
    row = hint(g, iterations=iterations, bot=bot, seed=seed, top=1, progress=False)[0]
    return {"win": row["win"], "chances": row.get("chances")}


def calibration_sample(position, bot, iterations, seed):
    """What a fit of the hint's chances learns from at one calibration position: the
    search's own estimate of every player's chance after the move it plays, as a hint
    reads it (``hints.reading``: averaged over the move's visits), before the calibration
    of ``tigris.chance`` (``raw``), with the position's ``players``, ``mover``,
    ``outcome``, ``seed`` and ``move`` (moves played)."""
    from tigris.hints import hint_bot, reading, root_statistics

    g = _replayed(position["players"], position["seed"], position["moves"])
    engine = hint_bot(bot, 1, seed)
    stats, _ = root_statistics(g, engine, iterations=iterations, progress=False)
    played = engine.pick(stats)
    child = next(ch for ch in stats.children if ch.action == played)
    return {"players": position["players"], "seed": position["seed"],
            "move": len(position["moves"]), "mover": position["mover"],
            "outcome": position["outcome"], "raw": list(reading(child)[0])}


def bench_calibration(positions=1000, iterations=20_000, seed=0, jobs=1, bot=None, progress=True,
                      games_bot=None):
    """How well the hint's win chance is calibrated: on ``calibration_positions``
    (`positions` per player count, from seed `seed`, of games of `games_bot`: (name or
    file, iterations or None for its own), default CALIBRATION_BOT at
    CALIBRATION_BOT_ITERATIONS), a hint of `iterations` with configuration `bot`
    (default: the default hint's) and seed `seed`, its top row's ``win`` read as the
    chance of the player to move to finish first, against the share of the first place
    the player took.  Games and hints run on `jobs` workers under one progress bar.  Rows
    per player count and in all: positions, expected calibration error (ten bins, as
    ``tigris calibrate``), what a calibrated chance would read on these positions
    (``tigris.calibration.calibrated_floor``), mean chance, mean outcome, and, when the rows give every
    player's ``chances``, the largest deviation of their sum from 1; then the time taken."""
    from joblib import delayed

    from tigris.hints import DEFAULT_BOT
    from tigris._plumbing.work import Run

    bot = bot or DEFAULT_BOT
    check_hint_bot(bot)                 # a bad bot is named before any game is played
    check_games_bot(games_bot)
    start = time.perf_counter()
    with Run(jobs, progress, total=calibration_runs(positions), desc="games, then hints", unit="task") as run:
        found = calibration_positions(positions, seed, run, games_bot)
        hints = []

        def save(result):
            hints.append(result)
            run.bar.update()

        run.tasks([delayed(_calibration_hint)(p, bot, iterations, seed) for p in found], save,
                  name=_task_name, died=_died)
    seconds = time.perf_counter() - start
    rows = []
    for label, which in [(f"{n} players", (n,)) for n in (2, 3, 4)] + [("all", (2, 3, 4))]:
        chosen = [(p, h) for p, h in zip(found, hints) if p["players"] in which]
        rows.extend(_calibration_rows(label, chosen))
    rows.append((f"time, {len(found)} positions on {jobs} worker{'s' * (jobs > 1)}", seconds / 60, "minutes"))
    return rows


def _task_name(task):
    """What ``work.Run`` calls a calibration task: its game, or its position's hint."""
    fn, args, _ = task
    if fn is _calibration_game:
        return f"the calibration game of {args[0]} players (seed {args[1]})"
    p = args[0]
    return (f"the hint of a calibration position ({p['players']} players, seed {p['seed']}, "
            f"after {len(p['moves'])} moves)")


def _died(task, why):
    """A calibration task whose worker process died twice: the benchmark stops."""
    from tigris.errors import TournamentError

    raise TournamentError(f"{_task_name(task)}: {why}; a benchmark keeps nothing of a run that "
                          f"stops: run it again (with fewer --jobs if memory is short)")


def _calibration_rows(label, chosen):
    """The calibration figures of (position, hint) pairs, labelled `label`."""
    from tigris.calibration import calibrated_floor, expected_calibration_error

    chances = [h["win"] for _, h in chosen]
    outcomes = [p["outcome"][p["mover"]] for p, _ in chosen]
    median, high = calibrated_floor(chances)
    rows = [(f"positions, {label}", len(chosen), "positions"),
            (f"expected calibration error of the mover's chance, {label}",
             expected_calibration_error(chances, outcomes), "chance"),
            (f"the same of a calibrated chance here, median, {label}", median, "chance"),
            (f"the same of a calibrated chance here, 95th percentile, {label}", high, "chance"),
            (f"mean chance of the mover, {label}", statistics.fmean(chances), "chance"),
            (f"mean outcome of the mover (first place; shared: its share), {label}",
             statistics.fmean(outcomes), "share")]
    if all(h["chances"] is not None for _, h in chosen):
        deviations = [abs(math.fsum(h["chances"]) - 1) for _, h in chosen]
        rows.append((f"largest deviation of the players' chances' sum from 1, {label}",
                     max(deviations), "chance"))
        rows.append((f"positions whose chances sum to 1 within {SUM_TOLERANCE}, {label}",
                     100 * sum(d <= SUM_TOLERANCE for d in deviations) / len(deviations), "%"))
    return rows


def _midgame(g, seed, decisions=40):
    import random
    rng = random.Random(seed)
    for _ in range(decisions):
        g.apply(rng.choice(g.legal_actions()))
    while g.decision != "action":
        g.apply(rng.choice(g.legal_actions()))
    return g.legal_actions()


def format_rows(rows, column="median", decimals=2):
    """The bench figures (name, value, unit), or (name, value, unit, (low, high)) with a
    95% interval in the value's unit, as a text table; `column` heads the values, shown
    with `decimals` decimals below 100 (whole numbers from 100 on, and counts); a column
    of intervals, to one decimal, follows the values when any row has one."""
    def shown(value, decimals=decimals):
        if isinstance(value, int):
            return f"{value:,}"               # a count
        return f"{value:,.0f}" if value >= 100 else f"{value:,.{decimals}f}"

    width = max(len(row[0]) for row in rows)
    intervals = {k: f"{shown(row[3][0], 1)} to {shown(row[3][1], 1)}" for k, row in enumerate(rows)
                 if len(row) > 3}
    span = max((len(t) for t in intervals.values()), default=0)
    span = max(span, len("95% interval")) if intervals else 0
    head = f"{'figure':<{width}}  {column:>12}" + (f"  {'95% interval':>{span}}" if span else "")
    rule = f"{'-' * width}  {'-' * 12}" + (f"  {'-' * span}" if span else "")
    lines = [f"{head}  unit", f"{rule}  ----"]
    for k, (name, value, unit, *_) in enumerate(rows):
        cells = f"{name:<{width}}  {shown(value):>12}"
        if span:
            cells += f"  {intervals.get(k, ''):>{span}}"
        lines.append(f"{cells}  {unit}")
    return "\n".join(lines)
