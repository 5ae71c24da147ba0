"""Text for squares and actions, as users type and read them.

Squares: column letter A-P from the left, row number 1-11 from the top, so square
index ``row * 16 + col`` = ``(4, 6)`` is ``G5``.  Actions (case-insensitive)::

    tile red G5          leader king G5       withdraw king        catastrophe G5
    swap red red blue    pass                 support 3            war green
    monument red-blue G5 no-monument          treasure B2
    building red G5      no-building          (civilization-buildings variant)
"""

import operator

from tigris.errors import IllegalActionError, excerpt
from tigris.constants import (ROWS, COLS, NSQ, COLOURS, LEADERS, MONUMENTS, SWAPS, SWAP_INDEX,
                              A_TILE, A_LEADER, A_WITHDRAW, A_CATASTROPHE, A_SWAP, A_PASS,
                              A_SUPPORT, A_WAR, A_MONUMENT, A_NO_MONUMENT, A_TREASURE,
                              A_BUILDING, A_NO_BUILDING, N_ACTIONS)

__all__ = ["action_to_str", "str_to_action", "action_id", "square_name", "square_index",
           "monument_name", "monument_index", "public", "SYNTAX"]

USAGE = ("tile COLOUR SQ | leader LEADER SQ | withdraw LEADER | catastrophe SQ | "
         "swap COLOUR... | pass | support N | war COLOUR | monument C1-C2 SQ | no-monument | "
         "treasure SQ | building COLOUR SQ | no-building")


def action_id(a):
    """``a`` as an action id: a real int (numpy integers too, never a bool or a float) in
    the action space 0..3746; raises IllegalActionError for anything else."""
    if type(a) is not int:
        try:
            if isinstance(a, bool) or isinstance(a, str):
                raise TypeError
            a = operator.index(a)
        except TypeError:
            raise IllegalActionError(f"action {excerpt(a)}: an action is an int id "
                                     f"(0..{N_ACTIONS - 1}) or notation such as 'tile red G5', "
                                     f"not {_a(type(a).__name__)}") from None
    if not 0 <= a < N_ACTIONS:
        raise IllegalActionError(f"action id {excerpt(a)} is outside the action space "
                                 f"0..{N_ACTIONS - 1}")
    return a


def _a(noun):
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def square_name(i):
    """``square_name(70) == "G5"``."""
    row, col = divmod(i, COLS)
    return f"{chr(ord('A') + col)}{row + 1}"


def square_index(text):
    """``square_index("G5") == 70``; raises ValueError for anything else."""
    t = text.strip().upper()
    digits = t[1:]
    if (len(t) >= 2 and "A" <= t[0] <= "P" and digits.isascii() and digits.isdigit()
            and digits[0] != "0" and 1 <= int(digits) <= ROWS):
        return (int(t[1:]) - 1) * COLS + ord(t[0]) - ord("A")
    raise ValueError(f"{excerpt(text)} is not a square (columns A-P, rows 1-11, e.g. G5)")


def colour_index(text):
    """Colour index from its name (``red``); ValueError naming the text otherwise."""
    try:
        return COLOURS.index(text.lower())
    except ValueError:
        raise ValueError(f"{excerpt(text)} is not a colour ({', '.join(COLOURS)})") from None


def leader_index(text):
    """Leader colour from its name (``king``) or colour (``black``)."""
    t = text.lower()
    if t in LEADERS:
        return LEADERS.index(t)
    if t in COLOURS:
        return COLOURS.index(t)
    raise ValueError(f"{excerpt(text)} is not a leader ({', '.join(LEADERS)})")


def monument_name(m):
    """The notation of monument m: its two colours, ``red-blue``."""
    a, b = MONUMENTS[m]
    return f"{COLOURS[a]}-{COLOURS[b]}"


def monument_index(text):
    """Monument index from its two colours in either order (``blue-red``)."""
    parts = text.lower().split("-")
    if len(parts) == 2:
        a, b = sorted(colour_index(p) for p in parts)
        if (a, b) in MONUMENTS:
            return MONUMENTS.index((a, b))
    raise ValueError(f"{excerpt(text)} is not a monument (two colours, e.g. red-blue)")


def action_to_str(a):
    """The notation of action id ``a``; IllegalActionError if ``a`` is no action id."""
    a = action_id(a)
    if a < A_LEADER:
        return f"tile {COLOURS[a // NSQ]} {square_name(a % NSQ)}"
    if a < A_WITHDRAW:
        c, i = divmod(a - A_LEADER, NSQ)
        return f"leader {LEADERS[c]} {square_name(i)}"
    if a < A_CATASTROPHE:
        return f"withdraw {LEADERS[a - A_WITHDRAW]}"
    if a < A_SWAP:
        return f"catastrophe {square_name(a - A_CATASTROPHE)}"
    if a < A_PASS:
        counts = SWAPS[a - A_SWAP]
        return "swap " + " ".join(COLOURS[c] for c in range(4) for _ in range(counts[c]))
    if a == A_PASS:
        return "pass"
    if a < A_WAR:
        return f"support {a - A_SUPPORT}"
    if a < A_MONUMENT:
        return f"war {COLOURS[a - A_WAR]}"
    if a < A_NO_MONUMENT:
        m, i = divmod(a - A_MONUMENT, NSQ)
        return f"monument {monument_name(m)} {square_name(i)}"
    if a == A_NO_MONUMENT:
        return "no-monument"
    if a < A_BUILDING:
        return f"treasure {square_name(a - A_TREASURE)}"
    if a < A_NO_BUILDING:
        c, i = divmod(a - A_BUILDING, NSQ)
        return f"building {COLOURS[c]} {square_name(i)}"
    return "no-building"


def public(move):
    """A move's notation as the other players see it: a swap's tiles are discarded face
    down (R43), so it names how many, not their colours ("swap red blue" -> "swap 2
    tiles"); any other move as it is."""
    words = move.split()
    if words and words[0] == "swap":
        n = len(words) - 1
        return f"swap {n} tile{'s' if n != 1 else ''}"
    return move


def str_to_action(text):
    """The action id of a notation string; raises IllegalActionError if it is malformed."""
    if not isinstance(text, str):
        raise IllegalActionError(f"action {excerpt(text)}: notation is a string such as "
                                 f"'tile red G5', not {_a(type(text).__name__)}")
    words = text.strip().split()             # the readers ignore case; errors quote as typed
    try:
        return _parse(words)
    except (ValueError, IndexError) as e:
        detail = str(e) if isinstance(e, ValueError) and str(e) else "malformed"
        # the whole grammar only when the verb is unknown: otherwise the detail says it
        known = bool(words) and (words[0].lower() in FORMS or words[0].lower() == "swap")
        grammar = "" if known else f"; actions are written {USAGE}"
        raise IllegalActionError(f"{excerpt(text)}: {detail}{grammar}") from None


def support_count(text):
    """The tiles a support commits, 0 to 6, from its digit."""
    if not (text.isascii() and text.isdigit()) or len(text) > 1 or int(text) > 6:
        raise ValueError(f"support takes a number of tiles from 0 to 6, not {excerpt(text)}")
    return int(text)


# verb: its form, as USAGE writes it
SYNTAX = {"tile": "tile COLOUR SQ", "leader": "leader LEADER SQ", "withdraw": "withdraw LEADER",
          "catastrophe": "catastrophe SQ", "pass": "pass", "support": "support N",
          "war": "war COLOUR", "monument": "monument C1-C2 SQ", "no-monument": "no-monument",
          "nomonument": "no-monument", "treasure": "treasure SQ", "building": "building COLOUR SQ",
          "no-building": "no-building", "nobuilding": "no-building"}

# verb: (the first id of its kind, the readers of its arguments).  An action with two
# arguments is base + first * NSQ + second (a colour, leader or monument, then a square).
FORMS = {
    "tile": (A_TILE, (colour_index, square_index)),
    "leader": (A_LEADER, (leader_index, square_index)),
    "withdraw": (A_WITHDRAW, (leader_index,)),
    "catastrophe": (A_CATASTROPHE, (square_index,)),
    "pass": (A_PASS, ()),
    "support": (A_SUPPORT, (support_count,)),
    "war": (A_WAR, (colour_index,)),
    "monument": (A_MONUMENT, (monument_index, square_index)),
    "no-monument": (A_NO_MONUMENT, ()),
    "nomonument": (A_NO_MONUMENT, ()),
    "treasure": (A_TREASURE, (square_index,)),
    "building": (A_BUILDING, (colour_index, square_index)),
    "no-building": (A_NO_BUILDING, ()),
    "nobuilding": (A_NO_BUILDING, ()),
}


def _parse(words):
    if not words:
        raise ValueError("empty action")
    verb, args = words[0].lower(), words[1:]
    if verb == "swap":
        if not 1 <= len(args) <= 6:
            raise ValueError("a swap discards 1 to 6 tiles")
        counts = [0, 0, 0, 0]
        for w in args:
            counts[colour_index(w)] += 1
        return A_SWAP + SWAP_INDEX[tuple(counts)]
    if verb not in FORMS:
        raise ValueError(f"unknown action {excerpt(verb)}")
    base, readers = FORMS[verb]
    if len(args) != len(readers):
        n = len(readers)
        raise ValueError(f"{excerpt(verb)} takes {n} argument{'s' if n != 1 else ''} "
                         f"({SYNTAX[verb]}), not {len(args)}")
    offset = 0
    for read, word in zip(readers, args):
        offset = offset * NSQ + read(word)
    return base + offset
