"""Hints for the player to move: the plans of ISMCTS, the one the engine plays first, each
with its visits, every player's chance of finishing first, the standard error of the
mover's from its own visits, how it compares with the first, and for the first few why
(``hint``, also ``tigris.hint``, returns ``Hints``; ``format_table`` writes them as text).

A plan is the move to make now, with the mover's other decisions of the turn that the
search has settled on after it (``plans``): "tile red G5 + leader king C8" is one row,
whichever order the search tried.  The second action of a turn is rarely settled: the
search spreads the visits after a move over many second actions (the most tried of them
holds a few percent at 20,000 iterations) and decides it at the mover's next decision,
so most plans are one move.  A plan's chances are the search's estimate averaged over
its own visits (``reading``: the same measure for every plan), calibrated against the
outcomes of games (``tigris.chance``): one figure, the same in ``tigris hint``, the
terminal seat, ``tigris analyse`` and the viewer.  Its standard error comes from its
visits and the spread of the chances they backed up, so a plan seen ten times less
reads about three times less sure.

The first row is the plan the engine plays (the bot's own final choice).  A move's chance
over more visits reads lower where they try more of the mover's own next actions (each
new second action is tried a while), so two moves compare fairly only at equal visits:
each other plan the search examined (``searched``: at least ``SEARCHED`` of the root's
visits) carries ``first``, the first's chance and error when it had the plan's visits
(``then``: at the halving that dropped the plan's move, where a halving root had given
both the same visits), and the plans follow by how they read against it.  Each is marked
against it by the figures as shown, to a tenth of a point (``versus``): ``equal`` when
the two intervals (chance +- error) overlap, else ``above`` or ``below``; so no plan
shown as an equal reads clearly better or worse, and a plan that reads better than the
engine's play says so.  An equal gives ``longer``: how many times the iterations would
tell it from the first, if their difference held.  The plans seen less are kept apart
(``searched`` false, ``rank`` None, with the search's ``prior`` of them).  ``notes`` says
in words what the marks and the search's schedule mean for this hint.

The first ``WHY_ROWS`` rows say why (``why``), from what the engine already has:
``scores``, every player's final score as the network's score head expects it before
and after the plan (None without a network); ``does``, what the plan's own actions do
in words (``tigris.events``: conflicts begun, leaders and tiles removed, points,
treasures, monuments); ``replies``, the likely line after it, each decision with the
share of the visits the search gave it there (how settled it is); ``then``, what that
line does.  The hidden tiles are never read: the plan and its line are played on deals
of what the mover cannot see, the scores the mean over ``WHY_DEALS`` of them, the words
those of the first deal in which the most of the line is legal; what the line does (a
conflict's winner) is what the likely line gives, not a certainty.

>>> import tigris
>>> g = tigris.Game(players=2, seed=7)
>>> hints = tigris.hint(g, iterations=2000, top=3, seed=1, progress=False)
>>> [h["move"] for h in hints] == [g.action_str(h["action"]) for h in hints]
True
>>> list(hints[0])[:9]
['rank', 'mark', 'equal', 'searched', 'move', 'action', 'plan', 'visits', 'share']
>>> list(hints[0])[9:]      # win: the mover's chance; error: its standard error
['rounds', 'prior', 'win', 'error', 'first', 'chances', 'longer', 'continuation', 'why']
>>> abs(sum(hints[0]["chances"]) - 1) < 1e-6, hints[0]["win"] == hints[0]["chances"][g.current_player]
(True, True)
>>> hints[0]["rank"], hints[0]["mark"], hints.equals >= 1      # the engine's play
(1, 'choice', True)
>>> all(h["searched"] for h in hints), hints.unsearched > 0     # the rest: seen too little
(True, True)
>>> hints.iterations, hints.bot, hints.seed       # what the search spent (and .seconds)
(2000, 'ismcts-hint', 1)
>>> sorted(hints[0]["why"]), len(hints[0]["why"]["scores"]["after"])   # why, by player
(['does', 'replies', 'scores', 'then'], 2)
"""

import math
import sys
import time
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tigris._plumbing.renamed import old_names
from tigris.errors import ConfigError, UsageError, excerpt
from tigris.events import conflicts_begun, what_happened

if TYPE_CHECKING:
    from tigris import bots
    from tigris._game import Game
    from tigris.search import RootStats

__all__ = ["CHUNKS", "DEFAULT_BOT", "EQUAL", "LONGEST", "MARKS", "SEARCHED", "ROW_KEYS", "WHY_DEALS",
           "WHY_ROWS", "Hints", "continuation", "format_table", "hint", "hints_of", "longer", "network_of",
           "notes", "own_error", "plan_key", "plans", "ranked", "reading", "search_hint", "root_statistics", "hint_bot",
           "settled", "shown", "shown_continuation", "then", "versus", "why"]

CHUNKS = 20          # progress steps of a search in this process (one worker)
# The configuration hints search with unless told otherwise: ismcts-fast's, but with the
# hand-written priors at a node's first visits, which name the best moves more often at a
# hint's budget (docs/results.md, "Hints": "A search of their own").
DEFAULT_BOT = "ismcts-hint"
# Standard errors of a difference within which an analysis (tigris.analysis) counts the drop
# of a move played as the search's noise.  A hint marks its plans by what it shows instead:
# the chances' intervals, overlapping or not (``versus``).
EQUAL = 2.0
# The share of the root's visits from which a plan counts as searched (ranked, marked).  A
# halving root of 32 candidates gives this to the 8 that reach its fourth phase, about 3%
# each; a move seen only in the first phases holds under 1.5%.
SEARCHED = 0.02
# A chance's spread over few visits may read 0: it is taken as PRIOR_WEIGHT visits of spread
# PRIOR_SPREAD more (a chance's spread between moves of one position), as the tree's own
# error of a line is (tigris._search), so that a plan seen a few times is never certain.
PRIOR_SPREAD = 0.2
PRIOR_WEIGHT = 8.0
LONGEST = 100        # a budget this many times the hint's and more is "more than" it
WHY_ROWS = 3         # the first rows that say why
WHY_DEALS = 8        # deals of the hidden tiles a plan is played on for its why: the scores' mean
# How a row compares with the first (``mark``): the first itself, then by the intervals.
MARKS = ("choice", "equal", "above", "below")
# A row of a hint, in this order (docs/FORMATS.md describes each).
ROW_KEYS = ("rank", "mark", "equal", "searched", "move", "action", "plan", "visits", "share", "rounds",
            "prior", "win", "error", "first", "chances", "longer", "continuation", "why")


def hint(game: "Game", seconds: float | None = None, iterations: int | None = None,
         top: int = 5, workers: int = 1, bot: "str | bots.Bot" = DEFAULT_BOT,
         seed: int | None = None, progress: "bool | Callable[[int, int, int], Any] | None" = None,
         jobs: int | None = None) -> "Hints":
    """Rank the plans of ``game.current_player`` by the search of an ISMCTS bot.

    Give ``seconds`` (default 5) or ``iterations``: the whole budget, shared out exactly
    among ``workers`` worker processes (``jobs``, its former name, is deprecated since 2.1,
    removed in 2.2).  ``bot`` names the configuration whose search knobs
    are used, ``seed`` replaces its seed; a bot object (an ISMCTS bot made or loaded)
    searches with its own workers and random numbers instead.  ``progress``
    shows a progress bar (default: for searches of a second or 20,000 iterations and
    more); a function instead is called as ``progress(done, total, iterations)`` as the
    search goes (``ISMCTSBot.root_statistics``), as the server's pages follow a hint.
    Returns ``Hints``: a list of up to ``top`` dicts of the plans the search
    examined, the engine's play first (``ranked``): ``rank`` (the row's place),
    ``mark`` (``choice`` for the first; ``equal``, ``above`` or ``below`` it: against
    ``first``, the first's ``win`` and ``error`` when it had the plan's visits), ``equal``
    (the first or marked equal), ``searched`` (true), ``move`` (the plan's first move,
    in notation), ``action`` (its id), ``plan`` (the notation of the mover's settled
    decisions of this turn, the first move first), ``visits``, ``share`` (of the root
    visits), ``rounds`` (the halving rounds the move lasted), ``prior`` (the search's
    prior of the move: the policy's probability, or the heuristic's weight), ``win``
    (the mover's chance of finishing first), ``error`` (its standard error),
    ``chances`` (every player's chance, a shared first counted as its share; they add up
    to 1), ``longer`` (for an equal: the multiple of the iterations that would tell it
    from the first), ``continuation`` (the expected decisions after the plan, as
    "player N: move" strings, as deep as the tree reaches) and ``why`` (the first
    ``WHY_ROWS`` rows: ``why``; else None); with the search's
    ``iterations``, ``seconds``, ``bot``, ``seed``, ``equals`` (the first and the plans
    marked equal, shown or not), ``unsearched`` (how many plans it examined too little
    to rank), ``rounds`` (its halving rounds) and ``notes`` (sentences on the marks and
    the schedule) as attributes.  A decision with one legal move is not searched: its
    row has NaN chances and error."""
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
    if jobs is not None:
        warnings.warn("hint(jobs=...) is deprecated: use hint(workers=...) (removed in tigris 2.2)",
                      DeprecationWarning, stacklevel=2)
        workers = jobs
    return search_hint(game, hint_bot(bot, workers, seed), seconds, iterations, top, progress)


def search_hint(game: "Game", engine: Any, seconds: float | None = None, iterations: int | None = None,
                top: int = 5, progress: "bool | Callable[[int, int, int], Any] | None" = None) -> "Hints":
    """``hint``'s search, of what ``hint`` checks (a game not over whose mover's hand is
    known, a budget, `top`) with the bot `engine` (``hint_bot``'s), checking nothing
    again: a server's worker searches what the server checked."""
    from tigris.search import ChildStats, RootStats

    legal = game.legal_actions()
    if len(legal) == 1:
        only = ChildStats(action=legal[0], visits=1, chances=(float("nan"),) * game.players,
                          error=float("nan"))
        return hints_of(game, RootStats(iterations=0, nodes=0, player=game.current_player,
                                        children=(only,)), engine, 0.0, top)
    stats, spent = root_statistics(game, engine, seconds, iterations, progress)
    return hints_of(game, stats, engine, spent, top)


def hints_of(game: "Game", stats: "RootStats", engine: Any, seconds: float, top: int) -> "Hints":
    """The ``Hints`` of a search of `game` by the bot `engine` (its root statistics,
    ``stats``, and the `seconds` it took): the plan the bot plays and the `top` - 1 best
    others it examined, the first ``WHY_ROWS`` with their reasons, the counts of the
    equals and of the plans it did not examine enough to rank, and the notes."""
    children = stats.children
    choice = engine.pick(stats) if stats.iterations else children[0].action
    rows = ranked(game, children, choice)
    shown_rows = [r for r in rows if r["searched"]][:top]
    if stats.iterations:
        net = network_of(engine, game.players)
        by_action = {ch.action: ch for ch in children}
        for row in shown_rows[:WHY_ROWS]:
            child = by_action[row["action"]]
            row["why"] = why(game, child, settled(game, child)[1], net)
    result = Hints(shown_rows, iterations=stats.iterations, seconds=seconds, bot=engine.name,
                   seed=engine.params["seed"], equals=sum(r["equal"] for r in rows),
                   unsearched=sum(not r["searched"] for r in rows), rounds=stats.rounds)
    result.notes = notes(result, stats.rounds)
    return result


class Hints(list[dict[str, Any]]):
    """The ranked plans of a hint (a list of dicts, the engine's play first) with what the
    search spent: ``iterations`` (in all trees), ``seconds`` (wall clock), ``bot`` (the
    configuration's name), ``seed`` (the bot's seed), ``equals`` (the first and the
    plans marked equal, shown or not), ``unsearched`` (the plans it examined too little
    to rank, never shown), ``rounds`` (the halving rounds of its root, 0 for a UCB root)
    and ``notes`` (sentences on what the marks and the schedule mean here)."""

    def __init__(self, rows: Iterable[dict[str, Any]], iterations: int, seconds: float,
                 bot: str, seed: int, equals: int = 1, unsearched: int = 0, rounds: int = 0,
                 notes: list[str] | None = None) -> None:
        super().__init__(rows)
        self.iterations, self.seconds = iterations, seconds            # what the search spent
        self.bot, self.seed = bot, seed                                # who searched
        self.equals, self.unsearched = equals, unsearched              # what the rows leave out
        self.rounds, self.notes = rounds, list(notes or [])           # its schedule, in words

    def as_dict(self, game: "Game") -> dict[str, Any]:
        """The hint as JSON-ready data: who decides, the search's budget, how many plans
        are marked equal to its play (shown or not), how many it did not examine enough
        to rank, its halving rounds, the notes, the plans."""
        return {"player": game.current_player, "decision": game.decision, "bot": self.bot,
                "seed": self.seed, "iterations": self.iterations,
                "seconds": round(self.seconds, 3), "equals": self.equals,
                "unsearched": self.unsearched, "searched_share": SEARCHED, "rounds": self.rounds,
                "notes": self.notes, "hints": list(self)}


def hint_bot(bot, workers, seed):
    """The ISMCTS bot that searches for a hint: a configuration, read once, with `workers`
    workers and `seed`; or a bot object as it is."""
    from tigris import bots, knobs

    if not isinstance(bot, str):
        kind = getattr(bot, "kind", None)
        if kind != "ismcts":
            raise ConfigError(f"hints need an ismcts bot, not a {kind or type(bot).__name__} one")
        if seed is not None or workers not in (1, bot.params["workers"]):
            raise UsageError("workers and seed apply to a bot configuration name: a bot object "
                             "searches with its own workers and random numbers")
        return bot
    overrides = {"workers": knobs.check_value("ismcts", "workers", workers, where="workers")}
    if seed is not None:
        overrides["seed"] = knobs.check_value("ismcts", "seed", seed, where="seed")
    conf = bots.configuration(bot)
    if conf.kind != "ismcts":
        raise ConfigError(f"hints need an ismcts bot configuration, not a {conf.kind} one")
    return conf.bot(**overrides)


def root_statistics(game, engine, seconds=None, iterations=None, progress=None):
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
    mover's decisions of this turn that the search has settled: a root move and, if its
    best line goes on with the mover's next action of the same turn as far as the search
    has settled it (``line``: the moves along which each was the most visited of its
    decision, with at least a quarter of its visits), that action too; the mover's other
    decisions on the way (a war to resolve, a treasure to take) are part of the
    continuation.  So a second action among many near-equal ones is left open.
    ``chances`` are the search's own, averaged over the move's visits (``mean``; the
    line's reading where a search gives no mean), ``error`` their standard error from
    the visits and their spread (``own_error``); the same actions in the other order are
    one plan, the first kept."""
    from tigris.search import child_records

    children = child_records(children, "tigris.hints.plans")
    total = sum(ch.visits for ch in children) or 1
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


def own_error(visits, spread):
    """The standard error of a chance averaged over `visits` whose standard deviation is
    `spread`, with the prior spread of ``PRIOR_WEIGHT`` visits more (a plan seen a few
    times is never certain); 0.5, a chance's widest spread, for no visits."""
    if visits < 1:
        return 0.5
    var = (visits * spread * spread + PRIOR_WEIGHT * PRIOR_SPREAD * PRIOR_SPREAD) / (visits + PRIOR_WEIGHT)
    return math.sqrt(var / visits)


def settled(game, child):
    """(the notation of the plan that begins with the root `child`, how many of the
    decisions from the move on it takes): the move, and the mover's next action of the
    turn if the child's best line (``line``) reaches it."""
    child = _record(child, "settled")
    g = game.copy(stack=False)
    mover, turn = game.current_player, game.turn
    plan, steps = [game.action_str(child.action)], 1
    g.apply(child.action)
    for k, (action, player) in enumerate(child.pv[:child.line], start=1):
        if g.is_over or player != mover or g.current_player != mover or g.turn != turn \
                or not g.is_legal(action):
            break                 # another player decides, or a deal the mover cannot see
        if g.decision == "action":
            plan.append(g.action_str(action))
            steps = k + 1
        g.apply(action)
    return plan, steps


def reading(child):
    """(every player's chance after the root `child` as a hint reads it, before its
    calibration; the standard error of the searching player's): the search's chances
    averaged over the child's own visits and their error from those visits and their
    spread (``own_error``); the line's reading and error of statistics without them."""
    child = _record(child, "reading")
    if child.mean is not None:
        return list(child.mean), own_error(child.visits, child.spread)
    return list(child.chances), child.error


def _plan(game, child, total):
    """The plan that begins with the root `child`."""
    plan, steps = settled(game, child)
    chances, error = reading(child)
    return {"move": plan[0], "action": child.action, "plan": plan, "visits": child.visits,
            "share": child.visits / total, "rounds": child.rounds, "prior": child.prior,
            "chances": chances, "error": error, "continuation": continuation(game, child)[steps - 1:],
            "_halvings": child.halvings}


def shown(x):
    """A chance or an error as the hint shows it: in tenths of a point (an int), rounded
    half up as a page's script rounds it."""
    return math.floor(1000 * x + 0.5)


def versus(first, row):
    """How `row` reads against the `first` row, by their ``win`` and ``error`` as shown
    (``shown``): "equal" when the intervals win +- error overlap (touching counts),
    else "above" or "below"."""
    gap = shown(row["win"]) - shown(first["win"])
    if abs(gap) <= shown(first["error"]) + shown(row["error"]):
        return "equal"
    return "above" if gap > 0 else "below"


def longer(first, row):
    """For a row marked equal to the `first`: how many times the iterations would tell the
    two apart if the difference of their chances held (each error shrinks with the root
    of its visits, and a search's schedule gives each plan the same share of a larger
    budget): at least 2, rounded up; None when they read the same as shown, or when it
    would take more than ``LONGEST`` times."""
    gap = abs(row["win"] - first["win"])
    if shown(row["win"]) == shown(first["win"]) or gap <= 0:
        return None
    factor = math.ceil(((first["error"] + row["error"]) / gap) ** 2)
    return max(2, factor) if factor <= LONGEST else None


def ranked(game, children, choice=None):
    """The rows of a hint from the root statistics of a search of `game` (``plans``):
    every player's chance calibrated (``tigris.chance``), and its error; first the plan
    of the action `choice` (default: the first child, the most visited), the engine's
    play; then the other plans the search examined (``searched``: at least SEARCHED of
    the visits), each with ``first``, the first's chance and error when it had the
    plan's visits (``then``), and marked against it (``versus``), by how they read
    against it, their ``rank`` their place; last the plans it did not examine enough, by
    visits, unranked (``rank`` and ``mark`` None)."""
    from tigris import chance
    from tigris.search import child_records

    mover = game.current_player
    children = child_records(children, "tigris.hints.ranked")
    if choice is not None:        # the engine's play first: its plan is the one kept
        children = sorted(children, key=lambda ch: ch.action != choice)
    rows = plans(game, children)
    for row in rows:
        raw = row["chances"]
        row["chances"] = chance.calibrated(raw, mover)
        row["win"] = row["chances"][mover]
        row["error"] = chance.error(raw, mover, row["error"])
        row["longer"], row["why"], row["first"] = None, None, None
    if not rows or math.isnan(rows[0]["win"]):
        for row in rows:
            row.update(rank=1, mark="choice", equal=True, searched=True)
        return [{k: row[k] for k in ROW_KEYS} for row in rows]
    best = rows[0]
    for row in rows:
        row["searched"] = row is best or row["share"] >= SEARCHED
        if row is not best and row["searched"]:
            row["first"] = then(best, row, mover)
    others = sorted((r for r in rows[1:] if r["searched"]),
                    key=lambda r: (r["first"]["win"] - r["win"], -r["visits"]))
    rows = [best] + others + [r for r in rows if not r["searched"]]
    for k, row in enumerate(rows, start=1):
        if row is best:
            row.update(rank=1, mark="choice", equal=True)
        elif row["searched"]:
            row.update(rank=k, mark=versus(row["first"], row))
            row["equal"] = row["mark"] == "equal"
            if row["equal"]:
                row["longer"] = longer(row["first"], row)
        else:
            row.update(rank=None, mark=None, equal=False)
    return [{k: row[k] for k in ROW_KEYS} for row in rows]


def then(first, row, mover):
    """How the `first` row read when it had the visits of `row`: its chance of `mover`
    and its error (``win``, ``error``, calibrated) at the halving that dropped `row`'s
    move (``halving``), where a halving root had given both the same visits (``visits``:
    the first's then).  A move's chance over more visits reads lower where they try more
    of the mover's own next actions (each new one tried a while), so moves compare fairly
    at equal visits.  Where the search gave no such halving (a root by UCB, a move never
    a candidate), the first row as it reads in the end (``halving`` None)."""
    from tigris import chance

    at = row["_halvings"][-1].halving if row["_halvings"] else None
    record = next((r for r in first["_halvings"] if r.halving == at), None)
    if record is None:
        return {"win": first["win"], "error": first["error"], "visits": first["visits"], "halving": None}
    raw = list(record.mean)
    error = chance.error(raw, mover, own_error(record.visits, record.spread))
    return {"win": chance.calibrated(raw, mover)[mover], "error": error, "visits": record.visits,
            "halving": at}


def notes(hints, rounds):
    """Sentences on a hint's rows (``Hints``, the engine's play first) that the marks and
    figures alone do not say: the plans that read above the engine's play, those it
    cannot tell from it and how much longer a search would take to tell them, and the
    share of visits a halving root's schedule gives by the rounds a move lasted (its
    `rounds` in all)."""
    said = []
    if len(hints) < 2 or math.isnan(hints[0]["win"]):
        return said
    above = [h for h in hints if h["mark"] == "above"]
    if above:
        one = len(above) == 1
        when = (f" after round{'' if one else 's'} {_listed([str(h['rounds']) for h in above])} of "
                f"{rounds}" if rounds else "")
        same = " at the same visits" if all(h["first"]["halving"] is not None for h in above) else ""
        said.append(f"{_names(above)} read{'s' if one else ''} above #1{same}, beyond "
                    f"both errors: the search dropped {'it' if one else 'them'}{when} by its own value "
                    f"(the measure it searches by, not this chance) and the moves' priors as they stood "
                    f"then; a longer search may choose otherwise.")
    equal = [h for h in hints if h["mark"] == "equal"]
    if equal:
        said.append(f"The search cannot tell {_names(equal)} from #1 at this budget: their "
                    f"intervals overlap.")
        told = [h for h in equal if h["longer"]]
        if told:
            said.append("To tell them apart if the differences held: " + ", ".join(
                f"#{h['rank']} about {h['longer']} times as long a search ({_budget(hints, h['longer'])})"
                for h in told) + ".")
        same = [h for h in equal if not h["longer"]]
        if same:
            said.append(f"{_names(same)}: even a search {LONGEST} times as long would likely not tell "
                        f"{'them' if len(same) > 1 else 'it'} from #1 (the chances read the same, or "
                        f"nearly).")
    apart = [h for h in hints[1:] if h["first"] and h["first"]["halving"] is None]
    if apart:
        said.append(f"{_names(apart)}: compared with #1 as it reads in the end; the search never had "
                    f"{'them' if len(apart) > 1 else 'it'} at the same visits as #1.")
    if rounds:
        groups = {}
        for h in hints[1:]:
            groups.setdefault(h["rounds"], []).append(h)
        dropped = [f"{_names(g)} after round {r}" if r else f"{_names(g)} before the first"
                   for r, g in sorted(groups.items(), reverse=True)]
        said.append(f"Visits follow the search's schedule (sequential halving, {rounds} rounds): it "
                    f"halves its candidates each round and the last one left holds the most, so a "
                    f"share tells how long a move lasted, not how much better it is. Dropped: "
                    f"{'; '.join(dropped)}.")
    return said


def _names(rows):
    """The rows' numbers in words: #2; #2 and #5; #2, #4 and #5."""
    return _listed([f"#{r['rank']}" for r in rows])


def _listed(words):
    """a; a and b; a, b and c."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _budget(hints, factor):
    """A budget `factor` times the hint's, in its own unit."""
    if hints.iterations:
        return f"{factor * hints.iterations:,} iterations"
    return f"{factor * hints.seconds:.0f} s"


# ---------------------------------------------------------------------------
# Why a plan: a few facts the engine already has about it, each checkable
# ---------------------------------------------------------------------------

def network_of(engine, players):
    """The network whose score head a hint's reasons read (``why``): the one the search
    `engine` (an ismcts bot) evaluates with in a game of `players`, or None (a search by
    the hand-written evaluation)."""
    from tigris import network

    params = engine.params
    if params.get("evaluator") != "net":
        return None
    return network.from_knobs("net", params.get("network", ""), players)


def why(game, child, steps, net, shown=None):
    """The reasons of the plan that begins with the root `child` of a search of `game`
    (its ``action``, ``pv`` and ``pv_visits``) and takes its first `steps` decisions
    (the move and the mover's settled decisions of the turn after it, ``settled``), read
    with the network `net` (None: no scores): a dict of ``scores``, ``does``, ``then``
    and ``replies`` (see the module's docstring).  `shown` is how many decisions of the
    line to give (default: up to the mover's next decision after another player's, as
    the table shows the continuation)."""
    child = _record(child, "why")
    mover = game.current_player
    pv, visits = list(child.pv), list(child.pv_visits)
    planned = [child.action] + [a for a, _ in pv[:steps - 1]]
    after = pv[steps - 1:]
    if shown is None:
        shown = len(shown_continuation([f"player {p}:" for _, p in after], mover))
    after = after[:shown]
    words, before, later = None, [], []
    for seed in range(WHY_DEALS):
        d = game.determinize(mover, seed)          # what the mover cannot see, dealt afresh
        if net is not None:
            before.append(net.evaluate(d)[1])
        does = _played(d, planned)                 # the mover's own decisions: legal in every deal
        if does is None:
            continue
        if net is not None:
            later.append(net.evaluate(d)[1] if not d.is_over
                         else [float(d.final_score(p)) for p in range(d.players)])
        if words is not None and len(words[2]) == len(after):
            continue                               # the whole line is told already
        then, replies = [], []
        for k, (action, player) in enumerate(after):
            if d.is_over or d.current_player != player or not d.is_legal(action):
                break                              # impossible in this deal
            j = steps + k                          # the decision's node in pv_visits
            share = visits[j] / visits[j - 1] if j < len(visits) and visits[j - 1] else None
            replies.append({"player": player, "move": d.action_str(action),
                            "share": None if share is None else round(share, 3)})
            then += _played(d, [action])
        if words is None or len(replies) > len(words[2]):
            words = (does, then, replies)
    does, then, replies = words if words is not None else ([], [], [])
    scores = {"before": _mean(before), "after": _mean(later)} if before and later else None
    return {"scores": scores, "does": does, "then": then, "replies": replies}


def _played(game, actions):
    """Apply `actions` to `game` in turn: what they did, in words; None if one of them is
    not legal there."""
    said = []
    for action in actions:
        if game.is_over or not game.is_legal(action):
            return None
        before = game.raw_state()
        game.apply(action)
        said += conflicts_begun(before, game) + what_happened(before, game)
    return said


def _mean(rows):
    """The mean of lists of per-player figures, to a tenth of a point."""
    return [round(sum(col) / len(col), 1) for col in zip(*rows)]


def continuation(game, child):
    """The expected continuation after a root child of a search of ``game`` (a
    ``tigris.search.ChildStats``: its ``action`` and its most visited line, ``pv``:
    (action, player) pairs), as "player N: move" strings."""
    child = _record(child, "continuation")
    line, g = [], game.copy(stack=False)
    g.apply(child.action)
    for action, player in child.pv:
        line.append(f"player {player}: {g.action_str(action)}")
    return line


def _record(child, where):
    """The root `child` as a record: a dict (deprecated, ``tigris.search.child_records``) made one."""
    from tigris.search import ChildStats, child_records

    return child if isinstance(child, ChildStats) else child_records([child], f"tigris.hints.{where}")[0]


def format_table(game, hints):
    """The hints as text: a line on the search, a row a plan with each player's chance of
    finishing first in a column per player (the mover's marked *), the standard error of
    the mover's and its mark against the first row (``MARKS``: blank, =, > or <); then
    the notes, and why for the first rows (``why``)."""
    mover = game.current_player
    rows = [f"player {mover} to decide ({game.decision}); best plans: #1 is the engine's play, the "
            "others follow by how they read against it"]
    if isinstance(hints, Hints):
        rows.append(f"{hints.bot}, seed {hints.seed}: {hints.iterations:,} iterations in "
                    f"{hints.seconds:.1f} s")
    rows.append("P0, P1, ...: each player's chance of finishing first (a shared first as its "
                "share), averaged over the plan's visits; * decides; +-: the standard error of its "
                "chance, in points, from the plan's own visits")
    rows.append("#1 then: #1's chance and +- when it had the plan's visits (the search compares "
                "moves at equal visits); vs #1: = the plan's and #1's then overlap, < below, > above, "
                "beyond both")
    unsearched = getattr(hints, "unsearched", 0)
    if unsearched:
        rows.append(f"{unsearched} other plans hold under {SEARCHED:.0%} of the visits each: "
                    "too little searched to rank, not shown")
    width = max([24] + [len(" + ".join(h["plan"])) for h in hints])
    players = "".join(f"{f'P{p}' + ('*' if p == mover else ''):>7}" for p in range(game.players))
    rows.append(f"{'#':>3} {'vs #1':<5}  {'plan':<{width}} {'visits':>8} {'share':>6}{players}{'+-':>6}"
                f"{'#1 then':>11}  continuation")
    for h in hints:
        cont = "; ".join(shown_continuation(h["continuation"], mover))
        chances = "".join(f"{_points(c) + '%':>7}" for c in h["chances"])
        error = "" if math.isnan(h["error"]) else _points(h["error"])
        first = h.get("first")
        earlier = f"{_points(first['win'])}+-{_points(first['error'])}" if first else ""
        rows.append(f"{h['rank'] or '-':>3} {SIGNS.get(h['mark'], ''):<5}  {' + '.join(h['plan']):<{width}} "
                    f"{h['visits']:>8} {h['share']:>6.1%}{chances}{error:>6}{earlier:>11}  {cont}")
    rows += getattr(hints, "notes", [])
    for h in hints:
        if h.get("why"):
            rows += _why_lines(h, mover)
    return "\n".join(rows)


# A row's mark as the table shows it.
SIGNS = {"choice": "", "equal": "=", "above": ">", "below": "<"}


def _points(x):
    """A chance or an error in points as the table shows it (``shown``): 81.4."""
    return "nan" if math.isnan(x) else f"{shown(x) / 10:.1f}"


def _why_lines(h, mover):
    """The lines of a row's reasons (``why``)."""
    why = h["why"]
    lines = [f"why #{h['rank']} {' + '.join(h['plan'])}:"]
    if why["scores"]:
        before, after = why["scores"]["before"], why["scores"]["after"]
        lines.append("  expected final scores (the network's): " + ", ".join(
            f"P{p}{'*' if p == mover else ''} {b:.1f} -> {a:.1f}"
            for p, (b, a) in enumerate(zip(before, after))))
    if why["does"]:
        lines.append("  it does: " + "; ".join(why["does"]))
    if why["replies"]:
        lines.append("  likely line: " + "; ".join(
            f"player {r['player']}: {r['move']}"
            + ("" if r["share"] is None else f" ({r['share']:.0%} of the visits there)")
            for r in why["replies"]))
    if why["then"]:
        lines.append("  then: " + "; ".join(why["then"]))
    return lines


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


# the former names of hint_bot and root_statistics
__getattr__ = old_names(__name__, {"searcher": "hint_bot", "searched": "root_statistics"})
