"""Hints for the player to move: the best plans by ISMCTS, each with its visits, every
player's chance of finishing first, the standard error of the mover's and the expected
continuation, the plans the search cannot tell apart from its choice ranked as equals
(``hint``, also ``tigris.hint``, returns ``Hints``; ``format_table`` writes them as text).

A plan is the mover's actions of the turn: a move and the second action the search has
settled on after it (``plans``), so "tile red G5 + leader king C8" is one row, whichever
order the search tried.  Its chances are the search's own estimate along the plan's best
line (``tigris.search``), calibrated against the outcomes of games (``tigris.chance``):
one figure, the same in ``tigris hint``, the terminal seat, ``tigris analyse`` and the
viewer.  Only the plans the search examined are ranked: those holding at least
``SEARCHED`` of the root's visits (and its choice, whatever it holds); a plan seen less
has a chance that is a few rollouts' noise, so it is never ranked above one that was
searched, never an equal, and is kept apart (``searched`` false, ``rank`` None, with the
search's ``prior`` of it).  The searched plans within ``EQUAL`` standard errors of the
difference from the search's choice (its most visited plan) are its equals, ``rank`` 1
and ``equal`` true, most visited first; the other searched plans follow by the mover's
chance.

>>> import tigris
>>> g = tigris.Game(players=2, seed=7)
>>> hints = tigris.hint(g, iterations=2000, top=3, seed=1, progress=False)
>>> [h["move"] for h in hints] == [g.action_str(h["action"]) for h in hints]
True
>>> list(hints[0])           # win: the mover's chance; error: its standard error
['rank', 'equal', 'searched', 'move', 'action', 'plan', 'visits', 'share', 'prior', 'win', 'error', 'chances', 'continuation']
>>> abs(sum(hints[0]["chances"]) - 1) < 1e-6, hints[0]["win"] == hints[0]["chances"][g.current_player]
(True, True)
>>> hints[0]["rank"], hints[0]["equal"], hints.equals >= 1      # the choice and its equals
(1, True, True)
>>> all(h["searched"] for h in hints), hints.unsearched > 0     # the rest: seen too little
(True, True)
>>> hints.iterations, hints.bot, hints.seed       # what the search spent (and .seconds)
(2000, 'ismcts-fast', 1)
"""

import math
import sys
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tigris.errors import ConfigError, UsageError, excerpt

if TYPE_CHECKING:
    from tigris import bots
    from tigris._game import Game

__all__ = ["CHUNKS", "DEFAULT_BOT", "EQUAL", "SEARCHED", "ROW_KEYS", "SEED_SPREAD", "Hints", "continuation",
           "format_table", "hint", "hints_of", "plan_key", "plans", "ranked", "searched", "searcher",
           "shown_continuation"]

CHUNKS = 20          # progress steps of a search in this process (one worker)
DEFAULT_BOT = "ismcts-fast"   # the configuration hints search with unless told otherwise
EQUAL = 2.0          # standard errors of a difference within which two plans are equals
# The share of the root's visits from which a plan counts as searched (ranked, maybe an
# equal).  A halving root of 32 candidates gives this to the 8 that reach its fourth
# phase, about 3% each; a move seen only in the first phases holds under 1.5%.
SEARCHED = 0.02
# A tree's standard error of a chance counts its own visits' spread; searches of one
# position with other seeds differ by this much more (the spread between seeds 1-3 of
# a well-visited plan's chance at 20,000 iterations, beyond the trees' own errors:
# docs/results.md), which every error shown includes.
SEED_SPREAD = 0.009
# A row of a hint, in this order (docs/FORMATS.md describes each).
ROW_KEYS = ("rank", "equal", "searched", "move", "action", "plan", "visits", "share", "prior", "win",
            "error", "chances", "continuation")


def hint(game: "Game", seconds: float | None = None, iterations: int | None = None,
         top: int = 5, jobs: int = 1, bot: "str | bots.Bot" = DEFAULT_BOT,
         seed: int | None = None, progress: "bool | Callable[[int, int, int], Any] | None" = None) -> "Hints":
    """Rank the moves of ``game.current_player`` by the analysis of an ISMCTS bot.

    Give ``seconds`` (default 5) or ``iterations``: the whole budget, shared out exactly
    among ``jobs`` worker processes.  ``bot`` names the configuration whose search knobs
    are used, ``seed`` replaces its seed; a bot object (an ISMCTS bot made or loaded)
    searches with its own workers and random numbers instead.  ``progress``
    shows a progress bar (default: for searches of a second or 20,000 iterations and
    more); a function instead is called as ``progress(done, total, iterations)`` as the
    search goes (``ISMCTSBot.root_statistics``), as the server's pages follow a hint.
    Returns ``Hints``: a list of up to ``top`` dicts of the plans the search
    examined, best first (``ranked``): ``rank`` (1 for the equals of the search's choice,
    else 2, 3, ...), ``equal``, ``searched`` (true), ``move`` (the plan's first move, in
    notation), ``action`` (its id), ``plan`` (the notation of the mover's actions of this
    turn, the first move first), ``visits``, ``share`` (of the root visits), ``prior``
    (the search's prior of the move: the policy's probability, or the heuristic's
    weight), ``win`` (the mover's chance of finishing first), ``error`` (its standard
    error), ``chances`` (every player's chance, a shared first counted as its share; they
    add up to 1) and ``continuation`` (the expected decisions after the plan, as "player
    N: move" strings, as deep as the tree reaches); with the search's ``iterations``,
    ``seconds``, ``bot``, ``seed``, ``equals`` (how many plans are equals, shown or not)
    and ``unsearched`` (how many plans it examined too little to rank) as attributes.
    A decision with one legal move is not searched: its row has NaN chances and error."""
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
    engine = searcher(bot, jobs, seed)
    legal = game.legal_actions()
    if len(legal) == 1:
        only = {"action": legal[0], "visits": 1, "chances": [float("nan")] * game.players,
                "error": float("nan"), "pv": []}
        return hints_of(game, {"iterations": 0, "children": [only]}, engine, 0.0, top)
    stats, spent = searched(game, engine, seconds, iterations, progress)
    return hints_of(game, stats, engine, spent, top)


def hints_of(game: "Game", stats: dict[str, Any], engine: Any, seconds: float, top: int) -> "Hints":
    """The ``Hints`` of a search of `game` by the bot `engine` (its root statistics,
    ``stats``, and the `seconds` it took): the `top` best plans it examined, the counts
    of its equals and of the plans it did not examine enough to rank."""
    rows = ranked(game, stats["children"])
    shown = [r for r in rows if r["searched"]]
    return Hints(shown[:top], iterations=stats["iterations"], seconds=seconds, bot=engine.name,
                 seed=engine.params["seed"], equals=sum(r["equal"] for r in rows),
                 unsearched=len(rows) - len(shown))


class Hints(list[dict[str, Any]]):
    """The ranked moves of a hint (a list of dicts, best first) with what the search
    spent: ``iterations`` (in all trees), ``seconds`` (wall clock), ``bot`` (the
    configuration's name), ``seed`` (the bot's seed), ``equals`` (the plans within the
    noise of the choice, shown or not) and ``unsearched`` (the plans it examined too
    little to rank, never shown)."""

    def __init__(self, rows: Iterable[dict[str, Any]], iterations: int, seconds: float,
                 bot: str, seed: int, equals: int = 1, unsearched: int = 0) -> None:
        super().__init__(rows)
        self.iterations, self.seconds = iterations, seconds            # what the search spent
        self.bot, self.seed = bot, seed                                # who searched
        self.equals, self.unsearched = equals, unsearched              # what the rows leave out

    def as_dict(self, game: "Game") -> dict[str, Any]:
        """The hint as JSON-ready data: who decides, the search's budget, how many plans
        are equals of its choice (shown or not), how many it did not examine enough to
        rank, the plans."""
        return {"player": game.current_player, "decision": game.decision, "bot": self.bot,
                "seed": self.seed, "iterations": self.iterations,
                "seconds": round(self.seconds, 3), "equals": self.equals,
                "unsearched": self.unsearched, "searched_share": SEARCHED, "hints": list(self)}


def searcher(bot, jobs, seed):
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


def searched(game, engine, seconds=None, iterations=None, progress=None):
    """(the root statistics of `engine`'s search of the decision, as the hint searches
    it, the seconds taken): the chances in them are the search's own estimates, before
    calibration.  `progress` as ``hint`` takes it."""
    start = time.perf_counter()
    if callable(progress):
        stats = engine.root_statistics(game, iterations=iterations, seconds=seconds, progress=progress,
                                       steps=CHUNKS)
    else:
        show = progress if progress is not None else (seconds or 0) >= 1 or (iterations or 0) >= 20_000
        stats = _with_bar(engine, game, seconds, iterations, show)
    return stats, time.perf_counter() - start


def _with_bar(engine, game, seconds, iterations, show):
    """The bot's root statistics of the decision, with a progress bar (shown if `show`) that
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
        return engine.root_statistics(game, iterations=iterations, seconds=seconds, progress=report,
                                      steps=CHUNKS)
    finally:
        if bar is not None:
            bar.close()


def plans(game, children):
    """The plans of a search of `game` from its root statistics (``children``, the
    search's choice first): a dict a plan, in the children's order.  A plan is the
    mover's actions of this turn: a root move and, if its best line goes on with the
    mover's next action of the same turn as far as the search has settled it (``line``:
    the line its chances are read at), that action too; the mover's other decisions on
    the way (a war to resolve, a treasure to take) are part of the continuation.  So a
    second action among many near-equal ones is left open.  ``chances`` and ``error`` are
    the search's own; the same actions in the other order are one plan, the first kept."""
    total = sum(ch["visits"] for ch in children) or 1
    rows, seen = [], set()
    for ch in children:
        row = _plan(game, ch, total)
        key = plan_key(row["plan"])
        if key not in seen:
            seen.add(key)
            rows.append(row)
    return rows


def plan_key(plan):
    """What makes two plans (their moves' notation, as a row gives it) one: the same
    actions, in either order."""
    return tuple(sorted(plan))


def _plan(game, child, total):
    """The plan that begins with the root `child`."""
    g = game.copy(stack=False)
    mover, turn = game.current_player, game.turn
    plan, steps = [game.action_str(child["action"])], 1
    g.apply(child["action"])
    for k, (action, player) in enumerate(child.get("pv", [])[:child.get("line", 0)], start=1):
        if g.is_over or player != mover or g.current_player != mover or g.turn != turn \
                or not g.is_legal(action):
            break                 # another player decides, or a deal the mover cannot see
        if g.decision == "action":
            plan.append(g.action_str(action))
            steps = k + 1
        g.apply(action)
    return {"move": plan[0], "action": child["action"], "plan": plan, "visits": child["visits"],
            "share": child["visits"] / total, "prior": child.get("prior"), "chances": child["chances"],
            "error": child["error"], "continuation": continuation(game, child)[steps - 1:]}


def ranked(game, children):
    """The rows of a hint from the root statistics of a search of `game` (``plans``):
    every player's chance calibrated (``tigris.chance``); the plans the search examined
    (``searched``: at least SEARCHED of the visits, or its choice) within its noise of
    its choice (the first) first, as equals (``equal``, rank 1), by visits, then the
    other examined plans by the mover's chance, ranked 2, 3, ...; last the plans it did
    not examine, by visits, unranked (``rank`` None)."""
    from tigris import chance

    mover = game.current_player
    rows = plans(game, children)
    for row in rows:
        raw = row["chances"]
        row["chances"] = chance.calibrated(raw, mover)
        row["win"] = row["chances"][mover]
        row["error"] = chance.error(raw, mover, math.hypot(row["error"], SEED_SPREAD))
    if not rows or math.isnan(rows[0]["win"]):
        for row in rows:
            row.update(rank=1, equal=True, searched=True)
        return [{k: row[k] for k in ROW_KEYS} for row in rows]
    best = rows[0]                    # the search's choice
    for row in rows:
        noise = math.hypot(best["error"], row["error"])
        row["searched"] = row is best or row["share"] >= SEARCHED
        row["equal"] = row["searched"] and (row is best or best["win"] - row["win"] <= EQUAL * noise)
    rows = ([r for r in rows if r["equal"]]
            + sorted((r for r in rows if r["searched"] and not r["equal"]), key=lambda r: -r["win"])
            + [r for r in rows if not r["searched"]])
    for k, row in enumerate(rows, start=1):
        row["rank"] = 1 if row["equal"] else k if row["searched"] else None
    return [{k: row[k] for k in ROW_KEYS} for row in rows]


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
    """The hints as a text table: a line on the search, then a row a plan, with each
    player's chance of finishing first in a column per player (the mover's marked *) and
    the standard error of the mover's; equals ranked ``1=``."""
    mover = game.current_player
    rows = [f"player {mover} to decide ({game.decision}); best plans:"]
    if isinstance(hints, Hints):
        rows.append(f"{hints.bot}, seed {hints.seed}: {hints.iterations:,} iterations in "
                    f"{hints.seconds:.1f} s")
    rows.append("P0, P1, ...: each player's chance of finishing first (a shared first as "
                "its share); * decides; +-: the standard error of its chance, in points")
    equals = getattr(hints, "equals", sum(h["equal"] for h in hints))
    if equals > 1:
        rows.append(f"1=: {equals} plans within the search's noise of its choice (the first "
                    "shown here, most visited first): it cannot tell them apart at this budget")
    unsearched = getattr(hints, "unsearched", 0)
    if unsearched:
        rows.append(f"{unsearched} other plans hold under {SEARCHED:.0%} of the visits each: "
                    "too little searched to rank, not shown")
    width = max([24] + [len(" + ".join(h["plan"])) for h in hints])
    players = "".join(f"{f'P{p}' + ('*' if p == mover else ''):>7}" for p in range(game.players))
    rows.append(f"{'#':>3}  {'plan':<{width}} {'visits':>8} {'share':>6}{players}{'+-':>6}  continuation")
    for h in hints:
        rank = f"{h['rank'] or '-'}{'=' if h['equal'] and equals > 1 else ''}"
        cont = "; ".join(shown_continuation(h["continuation"], mover))
        chances = "".join(f"{c:>7.1%}" for c in h["chances"])
        error = "" if math.isnan(h["error"]) else f"{100 * h['error']:.1f}"
        rows.append(f"{rank:>3}  {' + '.join(h['plan']):<{width}} {h['visits']:>8} "
                    f"{h['share']:>6.1%}{chances}{error:>6}  {cont}")
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
