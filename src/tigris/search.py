"""The search: single-observer ISMCTS over the information set of the player to move.

``Search`` grows one tree in steps; ``run`` searches a decision in one go.  Its knobs are
rows of the table in ``tigris.knobs`` (``SEARCH_CONFIG``): those given by name are checked
there, the others take the table's defaults, which are the bots' (greedy rollouts,
progressive widening).  ``PLAIN`` names the plain configuration: uniformly random
rollouts and no widening.  The tree itself is compiled (``tigris._search``).

>>> import tigris
>>> from tigris.search import PLAIN, Search, run
>>> game = tigris.Game(players=2, seed=7)
>>> s = Search(game, exploration=0.7, rollout_depth=10, seed=1, **PLAIN)
>>> s.step(iterations=500)
500
>>> s.step(seconds=0.05) > 0
True
>>> stats = s.stats()
>>> stats.iterations == s.iterations, game.is_legal(stats.best)
(True, True)
>>> game.is_legal(run(game, iterations=200, seed=2).best)
True

A search's root statistics are records (``RootStats``, each child a ``ChildStats``):
frozen, read by attribute, written as the dicts they were (``to_dict``).
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from tigris import _search
from tigris._game import Game
from tigris._plumbing import renamed
from tigris._plumbing.renamed import DictReads, old_names
from tigris._search import MAX_DETERMINIZATIONS
from tigris.knobs import MAX_ITERATIONS, MAX_ROLLOUT_DEPTH, search_config

__all__ = ["Search", "Config", "configure", "run", "choose", "determinization_row", "RootStats",
           "ChildStats", "Halving", "child_records", "PLAIN", "MARGIN_UNKNOWN", "MAX_ITERATIONS", "MAX_ROLLOUT_DEPTH",
           "MAX_DETERMINIZATIONS"]

#: The plain configuration: uniformly random rollouts, no progressive widening (the
#: other knobs at the table's defaults).  The benchmarks and the tests search with it.
PLAIN = {"rollout": "random", "epsilon": 0.1, "widening": 0.0}
#: The standard error of the score margin of a move no tree visited: nothing known, as a
#: tree says of a child it never visited (its MARGIN_PRIOR_SPREAD, in points).
MARGIN_UNKNOWN = 5.0


@dataclass(frozen=True)
class Config:
    """The search's knobs, every one of ``SEARCH_CONFIG`` checked (``configure``): what a
    bot checks once and each of its trees takes as it is (``items``: (knob, value) pairs,
    as a worker process receives them)."""

    items: tuple[tuple[str, Any], ...]

    @property
    def knobs(self) -> dict[str, Any]:
        """The knobs by name (a new dict)."""
        return dict(self.items)


def configure(knobs: dict[str, Any]) -> Config:
    """The Config of these knobs (``search_config``: those given checked, the rest at their
    defaults); a ValueError names an unknown or bad one."""
    return Config(tuple(search_config(knobs).items()))


class _Readable(DictReads):
    """Root statistics were dicts until 2.1: ``stats["children"]`` and
    ``stats.get("rounds", 0)`` still read a field, with a DeprecationWarning."""

    __slots__ = ()
    _since = "root statistics are records since 2.1"


@dataclass(frozen=True, slots=True)
class Halving(_Readable):
    """How a root child stood at one halving of a halving root (from the second, while it
    was in the running): its ``visits`` then, each player's chance averaged over them
    (``mean``) and the standard deviation of the searching player's (``spread``)."""

    halving: int
    visits: int
    mean: tuple[float, ...]
    spread: float

    def to_dict(self) -> dict[str, Any]:
        """As the search wrote it: a dict, ``mean`` a list."""
        return {"halving": self.halving, "visits": self.visits, "mean": list(self.mean),
                "spread": self.spread}


@dataclass(frozen=True, slots=True)
class ChildStats(_Readable):
    """One child of the root: a move and what the search found of it.

    ``action`` and its ``visits``; ``avail`` (the visits in which it was legal); ``value``
    (the searching player's mean reward, which ``final = "value"`` plays by);
    ``chances`` (each player's chance of finishing first, a shared first as its share,
    read at the end of the child's best line) and ``error`` (the standard error of the
    searching player's there); ``margin`` (its final score minus the best other
    player's, expected there) and ``margin_error``; ``line`` (how many moves of ``pv``
    that best line takes); ``mean`` (each player's chance averaged over the child's own
    visits; None where a search gave none) and ``spread`` (the standard deviation of the
    searching player's over them); ``rounds`` (the halving rounds it lasted) and
    ``halvings`` (``Halving``: how it stood at each); ``prior`` (the move's prior as the
    root ranked it; None where a search gave none); ``pv`` (the most visited line after
    it, (action, player) pairs) and ``pv_visits`` (the visits of the child and of each
    node of that line); ``votes`` (a PIMC bot's: the trees that chose it; else None).
    The defaults are a move no search has looked into."""

    action: int
    visits: int
    avail: int = 0
    value: float = 0.0
    chances: tuple[float, ...] = ()
    error: float = 0.5
    margin: float = 0.0
    margin_error: float = MARGIN_UNKNOWN
    line: int = 0
    mean: tuple[float, ...] | None = None
    spread: float = 0.0
    rounds: int = 0
    halvings: tuple[Halving, ...] = ()
    prior: float | None = None
    pv: tuple[tuple[int, int], ...] = ()
    pv_visits: tuple[int, ...] = ()
    votes: int | None = None

    @classmethod
    def of(cls, child: "dict[str, Any] | ChildStats") -> "ChildStats":
        """The record of a child as the compiled search gives it, a dict (the keys it lacks
        at their defaults); a record as it is."""
        if isinstance(child, ChildStats):
            return child
        known = {k: v for k, v in child.items() if k in cls.__dataclass_fields__}
        for k in ("chances", "mean", "pv_visits"):
            if known.get(k) is not None:
                known[k] = tuple(known[k])
        if "pv" in known:
            known["pv"] = tuple((a, p) for a, p in known["pv"])
        if "halvings" in known:
            known["halvings"] = tuple(h if isinstance(h, Halving) else
                                      Halving(h["halving"], h["visits"], tuple(h["mean"]), h["spread"])
                                      for h in known["halvings"])
        return cls(**known)

    def to_dict(self) -> dict[str, Any]:
        """As the search wrote it: a dict of lists (``pv`` a list of (action, player)
        tuples, ``halvings`` of dicts), ``mean``, ``prior`` and ``votes`` left out when None."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in ("mean", "prior", "votes"):
                continue
            if f.name == "halvings":
                value = [h.to_dict() for h in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


@dataclass(frozen=True, slots=True)
class RootStats(_Readable):
    """The root statistics of a search (one tree's, ``Search.stats``, or a bot's merged
    over its trees, ``tigris.bots.search.merge``): the ``iterations`` run, the ``nodes``
    grown, the searching ``player``, the ``children`` (``ChildStats``) best first, the
    move ``best`` a tree chose by its ``final`` knob (None for merged statistics, which a
    bot picks from, and for a root without children) and the halving ``rounds`` done.

    Until 2.1 these were dicts: ``stats["children"]`` still reads, with a warning."""

    iterations: int
    nodes: int
    player: int
    children: tuple[ChildStats, ...]
    best: int | None = None
    rounds: int = 0

    @classmethod
    def of(cls, stats: "dict[str, Any] | RootStats") -> "RootStats":
        """The record of a tree's statistics as the compiled search gives them, a dict
        (``best`` and ``rounds`` at their defaults if it lacks them); a record as it is."""
        if isinstance(stats, RootStats):
            return stats
        return cls(iterations=stats["iterations"], nodes=stats["nodes"], player=stats["player"],
                   children=tuple(ChildStats.of(ch) for ch in stats["children"]),
                   best=stats.get("best"), rounds=stats.get("rounds", 0))

    def to_dict(self) -> dict[str, Any]:
        """As a dict: the fields, ``children`` a list of dicts (``ChildStats.to_dict``)."""
        return {"iterations": self.iterations, "nodes": self.nodes, "player": self.player,
                "children": [ch.to_dict() for ch in self.children], "best": self.best,
                "rounds": self.rounds}


def child_records(children: Iterable["ChildStats | dict[str, Any]"], where: str) -> list[ChildStats]:
    """`children` as records: a public function that took dicts (until 2.1) still takes
    them, with a DeprecationWarning naming it, `where` (removed in 2.2)."""
    children = list(children)
    out = [ChildStats.of(ch) for ch in children]
    if any(not isinstance(ch, ChildStats) for ch in children):
        renamed.warn(f"{where} of root children as dicts", "give tigris.search.ChildStats records",
                     stacklevel=3)
    return out


def choose(children: Sequence[ChildStats], final: str) -> int:
    """The action to play from (merged) root statistics' children by the knob `final`:
    "visits", the most visited, or "value", the best mean value among the children
    visited at least a tenth as often as the most visited one (the compiled search's
    rule, ``tigris._search.choose``)."""
    return _search.choose([{"action": ch.action, "visits": ch.visits, "value": ch.value}
                           if isinstance(ch, ChildStats) else ch for ch in children], final)


def determinization_row(game: Game) -> list[int]:
    """The hidden tiles of `game`'s state as a row (every hand and face-down discard by
    colour, then the bag), as ``Search(determinizations=)`` takes a belief's."""
    return _search.determinization_row(game)


class Search(_search.Search):
    """A search tree over the information set of the player to move in `game`, grown in
    steps so callers can show progress (see the module's example).

    Knobs by name (``tigris.knobs.SEARCH_CONFIG``, the evaluator's weights among them),
    each checked by the table, which gives its range or choices and meaning; the others
    at the table's defaults.  Anything else raises a ValueError naming the knob.
    ``root="halving"`` shares out the tree's whole budget in phases: ``plan_iterations``
    or ``plan_seconds``, else the first step's budget.

    ``seed`` is any int, of which the low 64 bits are used (seeds equal modulo 2**64
    search alike); ``determinize`` False searches the state as given (the perfect-
    information baselines); ``determinizations`` are a belief's (``tigris.belief.Belief.
    determinizations``: rows of hidden tiles, ``determinization_row``, and their weights;
    ``deals``, its former name, is deprecated);
    ``only`` holds the root to some of its legal actions (an analysis searches the move
    played alone this way).  ``evaluator="net"`` judges the rollouts' ends by a learned
    evaluation (``tigris.network``; ``network`` names its file, the one shipped for the game's
    number of players if empty).
    A tree takes at most MAX_ITERATIONS iterations in all.

    Attributes: ``player`` (the searching player, to move at the root), ``iterations``
    (run in all steps) and ``final`` (how ``stats()`` picks ``best``: "visits" or "value").
    ``stats()`` gives the root statistics as a ``RootStats``.
    """

    def __init__(self, game: Game, *, seed: int = 0, plan_iterations: int = 0, plan_seconds: float = 0.0,
                 determinize: bool = True,
                 determinizations: tuple[Iterable[Sequence[int]], Iterable[float]] | None = None,
                 only: Iterable[int] | None = None, config: Config | None = None,
                 net: Any = None, **knobs: Any) -> None:
        """`config`, if given, holds the knobs checked (``configure``, none then given by
        name), and `net` the network its ``evaluator = "net"`` reads for this game (looked
        up by the caller, once); else the knobs are checked here and the network looked
        up."""
        if "deals" in knobs:
            renamed.warn("Search(deals=...)", "use Search(determinizations=...)")
            if determinizations is not None:
                raise TypeError("determinizations or deals (its former name), not both")
            determinizations = knobs.pop("deals")
        if config is None:
            config = configure(knobs)
        elif knobs:
            raise TypeError(f"knobs by name ({', '.join(knobs)}) or a checked config, not both")
        knobs = config.knobs
        if net is None and knobs["evaluator"] == "net":
            from tigris.network import from_knobs      # numpy: only when a search is made

            net = from_knobs("net", knobs["network"], game.players)
        super().__init__(game, knobs, seed=seed, plan_iterations=plan_iterations,
                         plan_seconds=plan_seconds, determinize=determinize,
                         determinizations=determinizations, only=only, net=net)

    def stats(self, pv_depth: int = 6) -> RootStats:  # type: ignore[override]
        """The root statistics (``RootStats``), the children's lines `pv_depth` moves at most."""
        return RootStats.of(super().stats(pv_depth))


def run(game: Game, *, iterations: int = 0, seconds: float = 0.0, **options: Any) -> RootStats:
    """Search the decision of `game` for its current player in one go: the root
    statistics (``Search.stats``); `options` as ``Search`` takes them."""
    s = Search(game, **options)
    s.step(iterations, seconds)
    return s.stats()


# the former names of determinization_row and MAX_DETERMINIZATIONS (a deal is a game's
# starting tiles)
__getattr__ = old_names(__name__, {"deal_row": "determinization_row", "MAX_DEALS": "MAX_DETERMINIZATIONS"})
