"""What a move did, in words: conflicts won, leaders and tiles taken off the board, points
scored, treasures taken, monuments built.

The compiled game applies a decision together with the decisions that then have a
single option (a defender without tiles commits nothing), so one apply may fight a whole
conflict.  The words therefore come from comparing the state before the apply with the
state after it, and from the decisions applied (``Game.history[-1]``):

>>> import tigris
>>> from tigris.events import what_happened
>>> g = tigris.Game(players=2, seed=1)
>>> for move in ("leader king F4", "tile black A11", "leader king G3", "support 1"):
...     g.apply(move)
>>> before = g.raw_state()
>>> g.apply("support 0")
>>> for line in what_happened(before, g):
...     print(line)
player 1 wins the revolt of the kings against player 0: player 0's king leaves F4
player 1 scores 1 red
"""

from tigris.constants import (A_LEADER, A_SUPPORT, A_WAR, A_WITHDRAW, COLOURS,
                              CONFLICTS, EMPTY, LEADERS, NONE, NSQ, RED)
from tigris.notation import monument_name, square_name
from tigris.squares import is_tile, tile_colour

__all__ = ["what_happened", "conflicts_begun"]


def what_happened(before, game):
    """The sentences that tell what the last apply of `game` did; `before` is
    ``game.raw_state()`` taken just before it.  Empty when nothing but the move itself
    happened (a tile placed without scoring, a pass)."""
    after = game.raw_state()
    action, player, forced, _ = game.history[-1]
    decisions = [action, *forced]
    lines = _leaders_removed(before, after, action, player, decisions)
    lines += _tiles_removed(before, after)
    lines += _points(before, after)
    lines += _treasures(before, after)
    lines += [f"monument {monument_name(m)} built on {square_name(at)}"
              for m, at in enumerate(after["monument"]) if at != before["monument"][m]]
    return lines


def conflicts_begun(before, game):
    """The sentences that tell what conflict the last apply of `game` began and left to be
    fought (`before` as for ``what_happened``): kingdoms joined with wars to fight, or a
    revolt or war whose sides commit their support next.  Empty if none began."""
    after = game.raw_state()
    if after["wars"] and after["wars"] != before["wars"] and not after["c_kind"]:
        kinds = [f"{LEADERS[c]}s" for c in range(4) if after["wars"] >> c & 1]
        which = kinds[0] if len(kinds) == 1 else f"{', '.join(kinds[:-1])} and {kinds[-1]}"
        return [f"kingdoms joined: war{'s' * (len(kinds) > 1)} of the {which} to fight"]
    now, then = _conflict(after), _conflict(before)
    if now is None or now == then:
        return []
    attacker, defender = now["sides"]
    return [f"player {attacker} begins a {now['kind']} of the {LEADERS[now['colour']]}s against "
            f"player {defender} ({square_name(after['c_att_sq'])} against "
            f"{square_name(after['c_def_sq'])})"]


def _leaders_removed(before, after, action, player, decisions):
    """A sentence per leader that left the board (not withdrawn): the conflict it lost,
    with its winner, or its lost temple."""
    fought = any(A_SUPPORT <= d < A_WAR for d in decisions)
    conflict = _conflict(before)
    placed = divmod(action - A_LEADER, NSQ) if A_LEADER <= action < A_WITHDRAW else None
    withdrawn = action - A_WITHDRAW if A_WITHDRAW <= action < A_WITHDRAW + 4 else None
    lines = []
    for p in range(after["players"]):
        for c in range(4):
            if after["leader"][p][c] != NONE:
                continue
            was = before["leader"][p][c]
            if placed is not None and p == player and placed[0] == c:
                was = placed[1]                # placed by this move, and lost at once
            if was == NONE or (p == player and c == withdrawn):
                continue
            leaves = f"player {p}'s {LEADERS[c]} leaves {square_name(was)}"
            if not fought:
                lines.append(f"{leaves} (no temple next to it)")
                continue
            if conflict and conflict["colour"] == c and p in conflict["sides"]:
                kind = conflict["kind"]
                winner = next(q for q in conflict["sides"] if q != p)
            else:                              # a conflict begun and ended in this apply
                kind = "revolt" if placed is not None and placed[0] == c else "war"
                winner = _scorer(before, after, p, c, RED if kind == "revolt" else c)
            won = f"player {winner} wins" if winner is not None else f"player {p} loses"
            against = f" against player {p}" if winner is not None else ""
            lines.append(f"{won} the {kind} of the {LEADERS[c]}s{against}: {leaves}")
    return lines


def _conflict(raw):
    """The conflict being resolved in `raw`, or None."""
    if not raw["c_kind"]:
        return None
    return {"kind": CONFLICTS[raw["c_kind"]], "colour": raw["c_colour"],
            "sides": (raw["c_attacker"], raw["c_defender"])}


def _scorer(before, after, loser, c, colour):
    """The one player other than `loser` with a leader of colour `c` on the board who
    scored in `colour`: the winner of a conflict fought within one apply (None if that is
    not one player)."""
    scorers = [q for q in range(after["players"])
               if q != loser and after["leader"][q][c] != NONE
               and after["score"][q][colour] > before["score"][q][colour]]
    return scorers[0] if len(scorers) == 1 else None


def _tiles_removed(before, after):
    """Face-up tiles taken off the board (a war's losing supporters), by colour."""
    removed = {}
    for i, code in enumerate(before["squares"]):
        if is_tile(code) and after["squares"][i] == EMPTY:
            removed.setdefault(tile_colour(code), []).append(square_name(i))
    if not removed:
        return []
    parts = [f"{len(at)} {COLOURS[c]} ({' '.join(at)})" for c, at in sorted(removed.items())]
    n = sum(len(at) for at in removed.values())
    return [f"tile{'s' * (n != 1)} removed: {', '.join(parts)}"]


def _points(before, after):
    lines = []
    for p in range(after["players"]):
        gained = [(after["score"][p][c] - before["score"][p][c], COLOURS[c]) for c in range(4)]
        gained = [f"{n} {colour}" for n, colour in gained if n > 0]
        if gained:
            lines.append(f"player {p} scores {', '.join(gained)}")
    return lines


def _treasures(before, after):
    """Treasures taken, by player, with the squares they were on."""
    squares = [square_name(i) for i, t in enumerate(before["treasure"])
               if t and not after["treasure"][i]]
    takers = [(p, after["treasures"][p] - before["treasures"][p])
              for p in range(after["players"]) if after["treasures"][p] > before["treasures"][p]]
    where = f" from {' '.join(squares)}" if squares else ""
    return [f"player {p} takes {n} treasure{'s' * (n != 1)}"
            + (where if len(takers) == 1 else "") + f" ({after['treasures'][p]} in all)"
            for p, n in takers]
