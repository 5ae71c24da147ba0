"""The search bots: ISMCTS (the real player), PIMC, and the cheating reference.

Each decision is searched from a determinization of the true game for the player to
move: the search never holds the hidden tiles of the real game, only a world dealt from
what that player cannot see (DESIGN.md).  ``cheat`` alone searches the true state; it
is a reference ceiling and says so (``honest = False``).
"""

import random

from joblib import delayed

from tigris import _search
from tigris import parallel as workers

SEARCH_KEYS = ("exploration", "rollout", "epsilon", "rollout_depth", "final", "widening")


def _grow(view, options, iterations, seconds, determinize, seed):
    """One tree (one worker): its root statistics."""
    s = _search.Search(view, determinize=determinize, seed=seed, **options)
    s.step(iterations or 0, seconds or 0.0)
    return s.stats()


def split(iterations, parts):
    """An iteration budget shared out exactly (None: a time budget, nothing to share)."""
    if not iterations:
        return [None] * parts
    return [max(1, iterations // parts + (1 if k < iterations % parts else 0)) for k in range(parts)]


def merge(stats_list):
    """Root-parallel merge: visits and availability add up, values are visit-weighted."""
    by_action = {}
    for stats in stats_list:
        for ch in stats["children"]:
            m = by_action.setdefault(ch["action"], {"action": ch["action"], "visits": 0, "avail": 0,
                                                    "value_sum": 0.0, "pv": ch["pv"]})
            m["visits"] += ch["visits"]
            m["avail"] += ch["avail"]
            m["value_sum"] += ch["value"] * ch["visits"]
            if ch["visits"] > 0 and len(ch["pv"]) > len(m["pv"]):
                m["pv"] = ch["pv"]
    children = []
    for m in by_action.values():
        m["value"] = m.pop("value_sum") / m["visits"] if m["visits"] else 0.0
        children.append(m)
    children.sort(key=lambda ch: (-ch["visits"], -ch["value"], ch["action"]))
    return {"iterations": sum(s["iterations"] for s in stats_list),
            "nodes": sum(s["nodes"] for s in stats_list),
            "player": stats_list[0]["player"], "children": children}


class ISMCTSBot:
    """Single-observer ISMCTS; with ``workers`` > 1 the trees grow in parallel processes
    (root parallelism) and their root statistics are merged."""

    kind = "ismcts"
    honest = True
    determinize = True

    def __init__(self, name="ismcts", **params):
        self.name = name
        self.params = params
        self.rng = random.Random(params["seed"])
        self.options = {k: params[k] for k in SEARCH_KEYS}
        self.last = None            # root statistics of the last decision

    def choose(self, game):
        legal = game.legal_actions()
        self.last = None
        if len(legal) == 1:
            return legal[0]
        self.last = self.analyse(game)
        return self.pick(self.last)

    def pick(self, stats):
        """The action to play from the root statistics."""
        return _search.choose(stats["children"], self.params["final"])

    def analyse(self, game, iterations=None, seconds=None):
        """Root statistics for the decision at hand (merged over the workers)."""
        iterations = iterations if iterations is not None else self.params["iterations"]
        seconds = seconds if seconds is not None else self.params["seconds"]
        view = self.view(game)
        n = self.params["workers"]
        seeds = [self.rng.getrandbits(63) for _ in range(n)]
        shares = split(iterations, n)
        if n == 1:
            return merge([_grow(view, self.options, shares[0], seconds, self.determinize, seeds[0])])
        jobs = workers.run(n, [delayed(_grow)(view, self.options, share, seconds, self.determinize, seed)
                               for share, seed in zip(shares, seeds)])
        return merge(jobs)

    def view(self, game):
        """What the search starts from: a world consistent with what the player sees."""
        return game.determinize(game.current_player, self.rng.getrandbits(63))


class CheatBot(ISMCTSBot):
    """Searches the true state, hidden tiles included: a reference ceiling for measuring
    how much hidden information costs, never a real player."""

    kind = "cheat"
    honest = False
    determinize = False

    def view(self, game):
        return game.copy(stack=False)


class PIMCBot(ISMCTSBot):
    """Perfect-information Monte Carlo: several determinizations, each searched as if it
    were the truth; each tree votes for its best action, ties go to total visits."""

    kind = "pimc"
    determinize = False

    def analyse(self, game, iterations=None, seconds=None):
        iterations = iterations if iterations is not None else self.params["iterations"]
        seconds = seconds if seconds is not None else self.params["seconds"]
        k = self.params["determinizations"]
        p = game.current_player
        worlds = [game.determinize(p, self.rng.getrandbits(63)) for _ in range(k)]
        seeds = [self.rng.getrandbits(63) for _ in range(k)]
        shares = split(iterations, k)
        secs = seconds / k if seconds else None
        if self.params["workers"] == 1:
            trees = [_grow(w, self.options, n, secs, False, s) for w, n, s in zip(worlds, shares, seeds)]
        else:
            trees = workers.run(self.params["workers"], [delayed(_grow)(w, self.options, n, secs, False, s)
                                                      for w, n, s in zip(worlds, shares, seeds)])
        merged = merge(trees)
        votes = {}
        for tree in trees:
            if tree["children"]:
                best = _search.choose(tree["children"], self.params["final"])
                votes[best] = votes.get(best, 0) + 1
        for ch in merged["children"]:
            ch["votes"] = votes.get(ch["action"], 0)
        merged["children"].sort(key=lambda ch: (-ch["votes"], -ch["visits"], ch["action"]))
        return merged

    def pick(self, stats):
        return stats["children"][0]["action"]          # the most voted
