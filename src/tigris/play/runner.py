"""What the runners share (tournaments, SPRT matches, SPSA tuning): the deals and their
seatings, one game between bots as a worker plays it, and the score of a game.

A task is one game to play (``Task``: its number, the seed of its deal, the bot name of
each seat); ``settings`` maps each bot name to ``(kind, params)``, resolved by the parent
so that workers (even remote ones) need no files; the game spec (``GameSpec``) is what
every game of the run is played with.  Both are frozen records, read by attribute, that
pickle (a worker, even a remote one, gets them as they are).

>>> from tigris.play.runner import GameSpec, deal_games, deal_seed
>>> tasks = deal_games(["ismcts-fast", "greedy"], deal_seed(5, 0), first_game=0)
>>> [(task.game, task.deal_seed, task.seats) for task in tasks]
[(0, 5000015, ('ismcts-fast', 'greedy')), (1, 5000015, ('greedy', 'ismcts-fast'))]
>>> GameSpec(players=2, seed=5, name="t")
GameSpec(players=2, seed=5, name='t', board='classic', variants=())

This module is imported by every worker: keep it light (no statistics libraries).
"""

import time
import traceback
from dataclasses import dataclass

import tigris
from tigris import bots as botlib
from tigris._plumbing import renamed
from tigris.record import result, to_record
from tigris.play.seeds import bot_seed, deal_seed    # the seed rules (play.seeds), named here for the runners

__all__ = ["Task", "GameSpec", "first_of_two", "MAX_TURNS", "TURN_LIMIT", "deal_seed", "bot_seed", "seatings", "deal_games", "bot_settings", "goes_on",
           "play_out", "record_of", "play_game", "game_tasks", "game_name", "failed_game", "first_places",
           "score"]

# Bots may shuffle leaders about for ever without playing a tile (nothing then ends the
# game); a game that reaches this many turns, several times the longest seen, is stopped
# and ranked as it stands (record.result's "adjudicated").
MAX_TURNS = 1000
TURN_LIMIT = f"turn limit: stopped after {MAX_TURNS} turns, ranked on the scores so far"


@dataclass(frozen=True)
class Task(renamed.DictReads):
    """One game of a run to play: its number ``game``, the seed of its deal ``deal_seed``
    and the bot name of each seat, ``seats`` (a tuple: a list given is taken as one).
    Tasks were dicts until 2.1: ``task["seats"]`` still reads a field (``seats`` as a
    list), with a DeprecationWarning (removed in 2.2; read the attribute)."""

    game: int
    deal_seed: int
    seats: tuple[str, ...]

    def __post_init__(self):
        object.__setattr__(self, "seats", tuple(self.seats))

    _since = "a run's tasks are records since 2.1"
    _given, _instead = "a task", "give a play.runner.Task"      # Task.of(a dict)

    def _old_form(self):
        return {"game": self.game, "deal_seed": self.deal_seed, "seats": list(self.seats)}


@dataclass(frozen=True)
class GameSpec(renamed.DictReads):
    """What every game of a run is played with, handed to each worker beside its tasks:
    the ``players``, the run's base ``seed`` (of its bots' seeds: ``bot_seed``), its
    ``name`` (each record's ``tournament``), the ``board`` and the ``variants`` (a tuple:
    a list given is taken as one).  A game spec was a dict until 2.1: ``GameSpec.of``
    takes one, and ``spec["players"]`` reads a field, each with a DeprecationWarning."""

    players: int
    seed: int
    name: str
    board: str = "classic"
    variants: tuple[str, ...] = ()

    _since = "a run's game spec is a record since 2.1"
    _given, _instead = "a game spec", "give a play.runner.GameSpec"

    def __post_init__(self):
        object.__setattr__(self, "variants", tuple(self.variants))

    def _old_form(self):
        return {"players": self.players, "board": self.board, "variants": list(self.variants),
                "seed": self.seed, "name": self.name}


def seatings(lineup):
    """Every rotation of a line-up's bots, so each bot sits in each seat once: with 2
    players, both seatings.  The seatings of one deal share its luck, which cancels out."""
    return [lineup[r:] + lineup[:r] for r in range(len(lineup))]


def deal_games(lineup, seed_of_deal, first_game):
    """The tasks of one deal: a game per seating of `lineup`, numbered from `first_game`."""
    return [Task(first_game + k, seed_of_deal, tuple(seats))
            for k, seats in enumerate(seatings(list(lineup)))]


def bot_settings(names, shelf=None):
    """{name: (kind, params)} of bot names or files, read from `shelf` (a run's
    ``bots.Shelf``, which reads each file once; without, a shelf of their own); a bot that
    does not load raises the ValueError of ``bots.configuration``."""
    return (shelf or botlib.Shelf()).settings(names)


def goes_on(game):
    """Whether a bots' game is to be played on: not over, and short of MAX_TURNS."""
    return not game.is_over and game.turn < MAX_TURNS


def play_out(game, bots=None, before=None, timings=None, *, seats=None):
    """Play `game` on, each decision by the bot of the player to move (``bots``: one a
    player, each with ``choose(game)``), while it ``goes_on``: the one loop of a game
    between bots, for tournaments, ``tigris play`` and the benchmarks.  ``before(game)``,
    if given, is called before each decision; the seconds each decision took are appended
    to ``timings`` if given (a list: those played stay in it if a bot raises).  ``seats``,
    the former name of ``bots``, is deprecated (since 2.1, removed in 2.2)."""
    if seats is not None:
        renamed.warn("play_out(seats=...)", "the bots are play_out(bots=...)")
        bots = seats
    if bots is None:
        raise TypeError("play_out() needs the bots, one a player")
    while goes_on(game):
        if before is not None:
            before(game)
        t = time.perf_counter()
        action = bots[game.current_player].choose(game)
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


def play_game(task, settings, spec, wrap=None):
    """Play one task (a ``Task``: a game) of a run with the game spec `spec` (a
    ``GameSpec``); returns its record (``tigris-game/1`` with the game number, deal seed
    and run name, the wall seconds of its play, ``seconds``, and ``cpu_seconds``, the CPU
    time of this process over the whole game, the bots' threads included: what the game
    cost its worker).  A game that raises is returned as a record with its error and the
    moves played so far.  ``wrap(bot, k)``, if given, is what plays seat k for its bot
    (self-play's labelling seat).  A task or spec given as a dict, their form until 2.1,
    is deprecated (removed in 2.2)."""
    task, spec = Task.of(task), GameSpec.of(spec)
    seats = list(task.seats)
    g = None
    timings = []
    cpu = time.process_time()
    try:
        g = tigris.Game(players=spec.players, seed=task.deal_seed, board=spec.board,
                        variants=spec.variants)
        bots = []
        for seat, name in enumerate(seats):
            kind, params = settings[name]
            seed = bot_seed(spec.seed, task.game, seat)
            bot = botlib.CLASSES[kind](name=name, **dict(params, seed=seed))
            bots.append(wrap(bot, seat) if wrap is not None else bot)
        started = time.perf_counter()
        play_out(g, bots, timings=timings)
        rec = record_of(g, seats, timings)
        rec["seconds"] = round(time.perf_counter() - started, 3)
    except Exception as e:            # recorded, never fatal: the run goes on
        rec = to_record(g, bots=seats, timings=timings) if g is not None else {
            "format": "tigris-game/1", "bots": seats}
        rec["result"] = None
        rec["error"] = f"{type(e).__name__}: {e}"
        rec["traceback"] = traceback.format_exc(limit=6)
    rec.update({"game": task.game, "deal_seed": task.deal_seed, "tournament": spec.name,
                "cpu_seconds": round(time.process_time() - cpu, 3)})
    return rec


def game_tasks(tasks, settings, spec):
    """``play_game`` of each task, as joblib delayed calls (a generator) for ``parallel.run``;
    each call's arguments are its ``Task``, `settings` and the ``GameSpec`` `spec`."""
    from joblib import delayed         # imported when games run: ``import tigris.play.runner`` stays light

    spec = GameSpec.of(spec)
    return (delayed(play_game)(Task.of(task), settings, spec) for task in tasks)


def game_name(call):
    """"game N" of a delayed call of ``game_tasks``: what ``work.Run`` says of it."""
    return f"game {call[1][0].game}"


def failed_game(call, why):
    """The record of the game of a delayed call of ``game_tasks`` that did not end in its worker
    (``work.Run``'s `died`: its worker process died twice), as ``play_game`` records a
    game that raised: no moves, no result, `why` as its error."""
    task, _, spec = call[1]
    return {"format": "tigris-game/1", "bots": list(task.seats), "players": spec.players,
            "board": spec.board, "variants": list(spec.variants),
            "seed": task.deal_seed, "moves": [], "result": None, "error": why,
            "game": task.game, "deal_seed": task.deal_seed, "tournament": spec.name}


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
