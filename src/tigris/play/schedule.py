"""A tournament's games, each computed from its number: a schedule of a million games is
a few numbers, not a list.

The line-ups share the deals: every combination of ``players`` of the bots, in the order
of ``itertools.combinations`` (with fewer bots than seats, the bots repeated in turn: a
single line-up).  Deal ``d`` goes to line-up ``d mod lineups`` and is played in every
seating of it (``runner.seatings``), so game ``k`` is seating
``k mod players`` of deal ``k // players``, whose seed is ``runner.deal_seed(seed, d)``.

>>> from tigris.play.schedule import Schedule
>>> s = Schedule(["a", "b", "c"], players=2, games=5, seed=1)
>>> len(s), s[3]
(6, Task(game=3, deal_seed=1000004, seats=('c', 'a')))
>>> [task.seats for task in s][:4]
[('a', 'b'), ('b', 'a'), ('a', 'c'), ('c', 'a')]
"""

import math
from collections.abc import Sequence

from tigris._plumbing import renamed
from tigris.play.runner import Task, deal_seed

__all__ = ["Schedule", "combination"]


def combination(items, size, index):
    """The `index`-th combination of `size` of `items` in the order of
    ``itertools.combinations``, without listing the ones before it."""
    chosen, start, n = [], 0, len(items)
    for slot in range(size):
        for i in range(start, n):
            below = math.comb(n - i - 1, size - slot - 1)   # combinations that start with items[i]
            if index < below:
                chosen.append(items[i])
                start = i + 1
                break
            index -= below
    return chosen


class Schedule(Sequence):
    """The games of a tournament: ``len`` of them (``games`` rounded up to whole deals),
    and ``schedule[k]`` the task of game ``k`` (a ``runner.Task``)."""

    def __init__(self, bots, players, games, seed):
        self.bots = list(bots)
        self.players = players
        self.seed = seed
        self.deals = math.ceil(games / players)
        self.lineups = math.comb(len(self.bots), players) if len(self.bots) >= players else 1

    def __len__(self):
        return self.deals * self.players

    def lineup(self, deal):
        """The bots of deal number `deal`'s line-up, seat by seat in its first seating."""
        if len(self.bots) < self.players:
            return [self.bots[i % len(self.bots)] for i in range(self.players)]
        return combination(self.bots, self.players, deal % self.lineups)

    def table(self, deal):
        """Deprecated since 2.1, removed in 2.2: ``lineup``."""
        renamed.warn("Schedule.table", "use Schedule.lineup")
        return self.lineup(deal)

    @property
    def tables(self):
        """Deprecated since 2.1, removed in 2.2: ``lineups``, how many line-ups share the deals."""
        renamed.warn("Schedule.tables", "use Schedule.lineups")
        return self.lineups

    def __getitem__(self, game):
        if not isinstance(game, int) or isinstance(game, bool):
            raise TypeError(f"a game number is a whole number, not {type(game).__name__}")
        if game < 0:
            game += len(self)
        if not 0 <= game < len(self):
            raise IndexError(f"no game {game} in a schedule of {len(self)}")
        deal, rotation = divmod(game, self.players)
        lineup = self.lineup(deal)
        return Task(game, deal_seed(self.seed, deal), tuple(lineup[rotation:] + lineup[:rotation]))

    def __iter__(self):
        for game in range(len(self)):
            yield self[game]
