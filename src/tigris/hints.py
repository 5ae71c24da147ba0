"""Move hints for the player to move: the best moves by ISMCTS, with visit share, each
player's chance of finishing first and the expected continuation (``hint``, also
``tigris.hint``, returns ``Hints``; ``format_table`` writes them as text).

The chances are those of the calibrated model of ``tigris.calibration`` (a shared first
counted as its share), estimated by the search along each move's best line: the mean
at the end of its most visited line (``tigris.search``), not a mean over the
exploration.  How well calibrated they are as a search's estimate is not measured here.

>>> import tigris
>>> g = tigris.Game(players=2, seed=7)
>>> hints = tigris.hint(g, iterations=2000, top=3, seed=1, progress=False)
>>> [h["move"] for h in hints] == [g.action_str(h["action"]) for h in hints]
True
>>> sorted(hints[0])         # also share, chances, win (the mover's chance), continuation
['action', 'chances', 'continuation', 'move', 'share', 'visits', 'win']
>>> abs(sum(hints[0]["chances"]) - 1) < 1e-6, hints[0]["win"] == hints[0]["chances"][g.current_player]
(True, True)
>>> hints.iterations, hints.bot, hints.seed       # what the search spent (and .seconds)
(2000, 'ismcts-fast', 1)
"""

import sys
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tigris.errors import ConfigError, UsageError, excerpt

if TYPE_CHECKING:
    from tigris import bots
    from tigris._game import Game

__all__ = ["CHUNKS", "DEFAULT_BOT", "Hints", "continuation", "format_table", "hint",
           "shown_continuation"]

CHUNKS = 20          # progress steps of a search in this process (one worker)
DEFAULT_BOT = "ismcts-fast"   # the configuration hints search with unless told otherwise


def hint(game: "Game", seconds: float | None = None, iterations: int | None = None,
         top: int = 5, jobs: int = 1, bot: "str | bots.Bot" = DEFAULT_BOT,
         seed: int | None = None, progress: bool | None = None) -> "Hints":
    """Rank the moves of ``game.current_player`` by the analysis of an ISMCTS bot.

    Give ``seconds`` (default 5) or ``iterations``: the whole budget, shared out exactly
    among ``jobs`` worker processes.  ``bot`` names the configuration whose search knobs
    are used, ``seed`` replaces its seed; a bot object (an ISMCTS bot made or loaded)
    searches with its own workers and random numbers instead.  ``progress``
    shows a progress bar (default: for searches of a second or 20,000 iterations and
    more).  Returns ``Hints``: a list of up to ``top`` dicts, best first: ``move``
    (notation), ``action``, ``visits``, ``share`` (of the root visits), ``chances`` (each
    player's chance of finishing first, a shared first counted as its share, estimated
    from the search's best line with the calibrated model of ``tigris.calibration``; they
    add up to 1), ``win`` (the chance of the player to move, from ``chances``) and
    ``continuation`` (the expected next decisions, as "player N: move" strings, as deep as
    the tree reaches); with the search's ``iterations``, ``seconds``, ``bot`` and ``seed``
    as attributes.  A decision with one legal move is not searched: its row has NaN
    chances."""
    # The bots (and their search) load at the first hint: ``import tigris`` stays light.
    from tigris import knobs

    if game.is_over:
        raise ValueError("the game is over: there is no move to hint")
    if game.current_player in game.unknown["hands"]:
        raise ValueError(f"player {game.current_player}'s hand is unknown (null in the "
                         "position): a hint would recommend tiles the player may not hold; "
                         "give the hand to get a hint")
    if seconds is None and iterations is None:
        seconds = 5.0
    # A bot's budget checks: finite positive seconds, an iteration count a tree holds.
    if seconds is not None:
        seconds = knobs.check_value("ismcts", "seconds", seconds)
    if iterations is not None:
        iterations = knobs.check_value("ismcts", "iterations", iterations)
    if not isinstance(top, int) or isinstance(top, bool) or top < 1:
        raise ValueError(f"top must be a whole number of moves, at least 1, not {excerpt(top)}")
    engine = _engine(bot, jobs, seed)
    legal = game.legal_actions()
    if len(legal) == 1:
        only = {"action": legal[0], "visits": 1, "chances": [float("nan")] * game.players, "pv": []}
        return Hints([_row(game, only, 1)], iterations=0, seconds=0.0, bot=engine.name,
                     seed=engine.params["seed"])
    show = progress if progress is not None else (seconds or 0) >= 1 or (iterations or 0) >= 20_000
    start = time.perf_counter()
    stats = _analyse(engine, game, seconds, iterations, show)
    spent = time.perf_counter() - start
    total = sum(ch["visits"] for ch in stats["children"]) or 1
    return Hints([_row(game, ch, total) for ch in stats["children"][:top]],
                 iterations=stats["iterations"], seconds=spent, bot=engine.name,
                 seed=engine.params["seed"])


class Hints(list[dict[str, Any]]):
    """The ranked moves of a hint (a list of dicts, best first) with what the search
    spent: ``iterations`` (in all trees), ``seconds`` (wall clock), ``bot`` (the
    configuration's name) and ``seed`` (the bot's seed)."""

    def __init__(self, rows: Iterable[dict[str, Any]], iterations: int, seconds: float,
                 bot: str, seed: int) -> None:
        super().__init__(rows)
        self.iterations = iterations
        self.seconds = seconds
        self.bot = bot
        self.seed = seed

    def as_dict(self, game: "Game") -> dict[str, Any]:
        """The hint as JSON-ready data: who decides, the search's budget, the moves."""
        return {"player": game.current_player, "decision": game.decision, "bot": self.bot,
                "seed": self.seed, "iterations": self.iterations,
                "seconds": round(self.seconds, 3), "hints": list(self)}


def _engine(bot, jobs, seed):
    """The ISMCTS bot that searches: a configuration, read once, with `jobs` workers and
    `seed`; or a bot object as it is."""
    from tigris import bots, knobs

    if not isinstance(bot, str):
        kind = getattr(bot, "kind", None)
        if kind != "ismcts":
            raise ConfigError(f"hints need an ismcts bot, not a {kind or type(bot).__name__} one")
        if seed is not None or jobs not in (1, bot.params["workers"]):
            raise UsageError("jobs and seed apply to a bot configuration name: a bot object "
                             "searches with its own workers and random numbers")
        return bot
    overrides = {"workers": knobs.check_value("ismcts", "workers", jobs, where="jobs")}
    if seed is not None:
        overrides["seed"] = knobs.check_value("ismcts", "seed", seed, where="seed")
    conf = bots.configuration(bot)
    if conf.kind != "ismcts":
        raise ConfigError(f"hints need an ismcts bot configuration, not a {conf.kind} one")
    return conf.bot(**overrides)


def _analyse(engine, game, seconds, iterations, show):
    """The bot's analysis of the decision, with a progress bar (shown if `show`) that
    counts the steps of a search in this process, or the workers that are done."""
    from tqdm import tqdm        # loaded by the first search, not by ``import tigris``

    bar = None

    def report(done, total, ran):
        nonlocal bar
        if bar is None:          # the search has started: its workers are running
            bar = tqdm(total=total, desc="searching", unit="step" if engine.params["workers"] == 1
                       else "worker", disable=not show, file=sys.stderr, leave=False)
        bar.update(done - bar.n)
        bar.set_postfix_str(f"{ran:,} iterations")

    try:
        return engine.analyse(game, iterations=iterations, seconds=seconds, progress=report,
                              steps=CHUNKS)
    finally:
        if bar is not None:
            bar.close()


def _row(game, ch, total):
    return {"move": game.action_str(ch["action"]), "action": ch["action"], "visits": ch["visits"],
            "share": ch["visits"] / total, "win": ch["chances"][game.current_player],
            "chances": ch["chances"], "continuation": continuation(game, ch)}


def continuation(game, child):
    """The expected continuation after a root child of a search of ``game`` (a dict with
    its ``action`` and its most visited line, ``pv``: (action, player) pairs), as
    "player N: move" strings."""
    line, g = [], game.copy(stack=False)
    g.apply(child["action"])
    for action, player in child.get("pv", []):
        line.append(f"player {player}: {g.action_str(action)}")
    return line


def format_table(game, hints):
    """The hints as a text table: a line on the search, then a row a move, with each
    player's chance of finishing first in a column per player (the mover's marked *)."""
    mover = game.current_player
    rows = [f"player {mover} to decide ({game.decision}); best moves:"]
    if isinstance(hints, Hints):
        rows.append(f"{hints.bot}, seed {hints.seed}: {hints.iterations:,} iterations in "
                    f"{hints.seconds:.1f} s")
    rows.append("P0, P1, ...: each player's chance of finishing first (a shared first as "
                "its share); * decides")
    players = "".join(f"{f'P{p}' + ('*' if p == mover else ''):>7}" for p in range(game.players))
    rows.append(f"{'#':>2}  {'move':<24} {'visits':>8} {'share':>6}{players}  continuation")
    for k, h in enumerate(hints, start=1):
        cont = "; ".join(shown_continuation(h["continuation"], mover))
        chances = "".join(f"{c:>7.1%}" for c in h["chances"])
        rows.append(f"{k:>2}  {h['move']:<24} {h['visits']:>8} {h['share']:>6.1%}{chances}  {cont}")
    return "\n".join(rows)


def shown_continuation(line, player):
    """The part of a continuation a table shows: up to and including `player`'s first
    decision after another player's (the reply to the reply), or all of a shorter line."""
    mine = f"player {player}:"
    replied = False
    for k, step in enumerate(line):
        if not step.startswith(mine):
            replied = True
        elif replied:
            return line[:k + 1]
    return line
