"""What the runners share (tournaments, SPRT matches, SPSA tuning): the deals and their
seatings, one game between bots as a worker plays it, and the score of a game.

A job is one game to play: ``{"game": number, "deal_seed": seed of the deal, "seats":
[bot name per seat]}``; ``settings`` maps each bot name to ``(kind, params)``, resolved
by the parent so that workers (even remote ones) need no files.

>>> from tigris.play.runner import deal_games, deal_seed
>>> jobs = deal_games(["ismcts-fast", "greedy"], deal_seed(5, 0), first_game=0)
>>> [(job["game"], job["deal_seed"], job["seats"]) for job in jobs]
[(0, 5000015, ['ismcts-fast', 'greedy']), (1, 5000015, ['greedy', 'ismcts-fast'])]

This module is imported by every worker: keep it light (no statistics libraries).
"""

import time
import traceback

import tigris
from tigris import bots as botlib
from tigris.record import result, to_record
from tigris.play.seeds import bot_seed, deal_seed    # the seed rules (play.seeds), named here for the runners

__all__ = ["first_of_two", "MAX_TURNS", "TURN_LIMIT", "deal_seed", "bot_seed", "seatings", "deal_games", "bot_settings", "goes_on",
           "play_out", "record_of", "play_game", "game_tasks", "game_name", "failed_game", "first_places",
           "score"]

# Bots may shuffle leaders about for ever without playing a tile (nothing then ends the
# game); a game that reaches this many turns, several times the longest seen, is stopped
# and ranked as it stands (record.result's "adjudicated").
MAX_TURNS = 1000
TURN_LIMIT = f"turn limit: stopped after {MAX_TURNS} turns, ranked on the scores so far"


def seatings(table):
    """Every rotation of a table's bots, so each bot sits in each seat once: with 2
    players, both seatings.  The seatings of one deal share its luck, which cancels out."""
    return [table[r:] + table[:r] for r in range(len(table))]


def deal_games(table, seed_of_deal, first_game):
    """The jobs of one deal: a game per seating of `table`, numbered from `first_game`."""
    return [{"game": first_game + k, "deal_seed": seed_of_deal, "seats": seats}
            for k, seats in enumerate(seatings(table))]


def bot_settings(names, shelf=None):
    """{name: (kind, params)} of bot names or files, read from `shelf` (a run's
    ``bots.Shelf``, which reads each file once; without, a shelf of their own); a bot that
    does not load raises the ValueError of ``bots.configuration``."""
    return (shelf or botlib.Shelf()).settings(names)


def goes_on(game):
    """Whether a bots' game is to be played on: not over, and short of MAX_TURNS."""
    return not game.is_over and game.turn < MAX_TURNS


def play_out(game, seats, before=None, timings=None):
    """Play `game` on, each decision by the bot of the player to move (``seats``: one a
    player, each with ``choose(game)``), while it ``goes_on``: the one loop of a game
    between bots, for tournaments, ``tigris play`` and the benchmarks.  ``before(game)``,
    if given, is called before each decision; the seconds each decision took are appended
    to ``timings`` if given (a list: those played stay in it if a bot raises)."""
    while goes_on(game):
        if before is not None:
            before(game)
        t = time.perf_counter()
        action = seats[game.current_player].choose(game)
        if timings is not None:
            timings.append(time.perf_counter() - t)
        game.apply(action)


def record_of(game, bots, timings=None):
    """The record of a bots' game played while goes_on: a game stopped at MAX_TURNS is
    ranked as it stands, its result saying so."""
    rec = to_record(game, bots=bots, timings=timings)
    if not game.is_over:
        rec["result"] = result(game, adjudicated=TURN_LIMIT)
    return rec


def play_game(job, settings, spec_dict, wrap=None):
    """Play one job; returns its record (``tigris-game/1`` with the game number, deal seed
    and run name, the wall seconds of its play, ``seconds``, and ``cpu_seconds``, the CPU
    time of this process over the whole game, the bots' threads included: what the game
    cost its worker).  A game that raises is returned as a record with its error and the
    moves played so far.  `spec_dict` gives ``players``, ``board``, ``variants``, the base
    ``seed`` and the run's ``name``.  ``wrap(bot, k)``, if given, is what plays seat k
    for its bot (self-play's labelling seat)."""
    seats = job["seats"]
    g = None
    timings = []
    cpu = time.process_time()
    try:
        g = tigris.Game(players=spec_dict["players"], seed=job["deal_seed"], board=spec_dict["board"],
                        variants=tuple(spec_dict["variants"]))
        players = []
        for seat, name in enumerate(seats):
            kind, params = settings[name]
            seed = bot_seed(spec_dict["seed"], job["game"], seat)
            bot = botlib.CLASSES[kind](name=name, **dict(params, seed=seed))
            players.append(wrap(bot, seat) if wrap is not None else bot)
        started = time.perf_counter()
        play_out(g, players, timings=timings)
        rec = record_of(g, seats, timings)
        rec["seconds"] = round(time.perf_counter() - started, 3)
    except Exception as e:            # recorded, never fatal: the run goes on
        rec = to_record(g, bots=seats, timings=timings) if g is not None else {
            "format": "tigris-game/1", "bots": seats}
        rec["result"] = None
        rec["error"] = f"{type(e).__name__}: {e}"
        rec["traceback"] = traceback.format_exc(limit=6)
    rec.update({"game": job["game"], "deal_seed": job["deal_seed"], "tournament": spec_dict["name"],
                "cpu_seconds": round(time.process_time() - cpu, 3)})
    return rec


def game_tasks(jobs, settings, spec_dict):
    """``play_game`` of each job, as joblib tasks (a generator) for ``parallel.run``."""
    from joblib import delayed         # imported when games run: ``import tigris.play.runner`` stays light

    return (delayed(play_game)(job, settings, spec_dict) for job in jobs)


def game_name(task):
    """"game N" of a task of ``game_tasks``: what ``work.Run`` says of it."""
    return f"game {task[1][0]['game']}"


def failed_game(task, why):
    """The record of the game of a task of ``game_tasks`` that did not end in its worker
    (``work.Run``'s `died`: its worker process died twice), as ``play_game`` records a
    game that raised: no moves, no result, `why` as its error."""
    job, _, spec_dict = task[1]
    return {"format": "tigris-game/1", "bots": job["seats"], "players": spec_dict["players"],
            "board": spec_dict["board"], "variants": list(spec_dict["variants"]),
            "seed": job["deal_seed"], "moves": [], "result": None, "error": why,
            "game": job["game"], "deal_seed": job["deal_seed"], "tournament": spec_dict["name"]}


# ---------------------------------------------------------------------------------------
# Scores
# ---------------------------------------------------------------------------------------

def first_places(bots, ranking, name):
    """The first places of bot `name` in one game: 1 for each of its seats ranked first
    alone, 1/k for each of its seats among k that share the first place.  `bots` names the
    bot of each seat; `ranking` lists the seats place by place, first place first."""
    first = ranking[0]
    return sum(1 / len(first) for seat, bot in enumerate(bots) if bot == name and seat in first)


def first_of_two(record, a, b):
    """What bot `a` scored against bot `b` in a finished game record, by first places: 1
    when `a` took the first place and `b` did not, 0 the other way round, 1/2 when both
    or neither did (with two players, ``score(record, a)``); None for a game that
    failed."""
    if record.get("error") or not record.get("result"):
        return None
    first = [record["bots"][seat] for seat in record["result"]["ranking"][0]]
    return 0.5 + ((a in first) - (b in first)) / 2


def score(record, name):
    """What bot `name` scored in a finished game record: its first places per seat it held
    (a win 1, a shared first place of 2 seats 1/2, else 0); None for a game that failed."""
    if record.get("error") or not record.get("result"):
        return None
    bots = record["bots"]
    return first_places(bots, record["result"]["ranking"], name) / bots.count(name)
