"""Why an action is illegal: the reason, in words, with the rule it breaks (RULES.md).

``why_illegal(game, action_id)`` is called by ``Game.apply`` and ``Game.parse_action`` for
an action that is not among ``game.legal_actions()``; the engine's legality lives in the
compiled core, and this module only explains a refusal.  It reads the state through
``game.raw_state()`` and ``game.regions()`` and changes nothing.  ``Game`` imports it
inside the method that refuses an action, when called: the compiled module imports
nothing above it as it is imported.
"""

from tigris import boards, notation
from tigris.constants import (A_TILE, A_LEADER, A_WITHDRAW, A_CATASTROPHE, A_SWAP, A_PASS,
                              A_SUPPORT, A_WAR, A_MONUMENT, A_NO_MONUMENT, A_TREASURE,
                              A_BUILDING, A_NO_BUILDING, N_ACTIONS, NSQ, COLS, ROWS, COLOURS,
                              LEADERS, MONUMENTS, SWAPS, NONE, EMPTY, TILE0, DOWN0, CATASTROPHE,
                              REVOLT)
from tigris.notation import square_name, monument_name
from tigris.squares import block, describe, is_face_down, is_leader, is_tile, neighbours

__all__ = ["why_illegal"]


def _kind(a):
    if a < A_LEADER:
        return "tile"
    if a < A_WITHDRAW:
        return "leader"
    if a < A_CATASTROPHE:
        return "withdraw"
    if a < A_SWAP:
        return "catastrophe"
    if a < A_PASS:
        return "swap"
    if a == A_PASS:
        return "pass"
    if a < A_WAR:
        return "support"
    if a < A_MONUMENT:
        return "war"
    if a <= A_NO_MONUMENT:
        return "monument"
    if a < A_BUILDING:
        return "treasure"
    return "building"


_DECISION_OF = {"tile": "action", "leader": "action", "withdraw": "action",
                "catastrophe": "action", "swap": "action", "pass": "action",
                "support": "support", "war": "war_order", "monument": "monument",
                "treasure": "treasure", "building": "building"}


def _describe(raw, i):
    """What lies on square i, in words."""
    return describe(raw["squares"][i], raw["treasure"][i])


def _kingdoms_next_to(i, labels, kingdom):
    return {labels[j] for j in neighbours(i) if labels[j] is not None and kingdom[labels[j]]}


def why_illegal(game, a):
    """The reason action id ``a`` is not legal in ``game`` now, naming the rule."""
    if not isinstance(a, int) or not 0 <= a < N_ACTIONS:
        return f"action id {a!r} is outside the action space 0..{N_ACTIONS - 1}"
    if game.is_legal(a):
        return "the action is legal"
    if game.is_over:
        return "the game is over"
    raw = game.raw_state()
    kind = _kind(a)
    decision = game.decision
    if kind == "building" and "buildings" not in game.variants:
        return "the civilization-buildings variant is not in play"
    if _DECISION_OF[kind] != decision:
        return (f"it is not the time for that: the decision is {decision!r} "
                f"by player {game.current_player}")
    reason = {"tile": _tile, "leader": _leader, "withdraw": _withdraw,
              "catastrophe": _catastrophe, "swap": _swap, "support": _support,
              "war": _war, "monument": _monument, "treasure": _treasure,
              "building": _building}.get(kind)
    text = reason(game, raw, a) if reason else None
    return text or ("not legal in this position (no specific rule check explains it; "
                    "legal now: " + _sample(game) + ")")


def _sample(game, limit=5):
    legal = game.legal_actions()
    shown = ", ".join(notation.action_to_str(x) for x in legal[:limit])
    return shown + (f" and {len(legal) - limit} more" if len(legal) > limit else "")


# -- the action decision -------------------------------------------------------------

def _tile(game, raw, a):
    c, i = divmod(a - A_TILE, NSQ)
    p = raw["active"]
    colour = COLOURS[c]
    if raw["hand"][p][c] == 0:
        return f"no {colour} tile in hand (player {p} holds {_hand_text(raw['hand'][p])})"
    if raw["squares"][i] != EMPTY:
        rule = "R40" if raw["squares"][i] == CATASTROPHE else "R28"
        return f"the square is not empty ({rule}): {square_name(i)} holds {_describe(raw, i)}"
    river = i in boards.layout(game.board)[0]
    if c == 1 and not river:
        return "blue tiles may only be placed on river squares (R29)"
    if c != 1 and river:
        return "only blue tiles may be placed on a river square (R29)"
    labels, kingdom = game.regions()
    k = len(_kingdoms_next_to(i, labels, kingdom))
    if k >= 3:
        words = {3: "three", 4: "four"}.get(k, str(k))
        return f"the tile would unite {words} kingdoms (R31)"
    return None


def _leader(game, raw, a):
    c, i = divmod(a - A_LEADER, NSQ)
    p = raw["active"]
    name = LEADERS[c]
    at = raw["leader"][p][c]
    if at == i:
        return f"the {name} already stands on {square_name(i)}; a move must change its square (R21)"
    if raw["squares"][i] != EMPTY:
        return f"the square is not empty (R17): {square_name(i)} holds {_describe(raw, i)}"
    if i in boards.layout(game.board)[0]:
        return "a leader may not stand on a river square (R18)"
    near = [raw["squares"][j] for j in neighbours(i)]
    if TILE0 not in near:
        if DOWN0 in near:
            return ("no temple next to the square (R19): a face-down monument tile is not a "
                    "temple (R5)")
        return "no temple next to the square (R19)"
    # R21: a leader that moves is first taken off its square.
    labels, kingdom = game.regions(without=None if at == NONE else at)
    k = len(_kingdoms_next_to(i, labels, kingdom))
    if k >= 2:
        words = {2: "two", 3: "three", 4: "four"}.get(k, str(k))
        return f"the leader would connect {words} kingdoms (R20)"
    return None


def _withdraw(game, raw, a):
    c = a - A_WITHDRAW
    p = raw["active"]
    if raw["leader"][p][c] == NONE:
        return f"player {p}'s {LEADERS[c]} is not on the board (R22)"
    return None


def _catastrophe(game, raw, a):
    i = a - A_CATASTROPHE
    p = raw["active"]
    code = raw["squares"][i]
    if raw["catastrophes"][p] == 0:
        return f"no catastrophe tiles left (R37): player {p} has played both"
    if raw["treasure"][i]:
        return "a treasure lies on the square (R39, R79)"
    if code == CATASTROPHE:
        return "a catastrophe already lies on the square (R40)"
    if is_leader(code):
        return f"a leader stands on the square (R39): {_describe(raw, i)}"
    if is_face_down(code):
        return "a face-down monument tile lies on the square (R39, R74)"
    if is_tile(code) and raw["building"][code - TILE0] == i:
        return "the civilization building stands on the square (R39)"
    return None


def _hand_text(hand):
    parts = [f"{hand[c]} {COLOURS[c]}" for c in range(4) if hand[c]]
    return ", ".join(parts) if parts else "no tiles"


def _swap(game, raw, a):
    p = raw["active"]
    want = SWAPS[a - A_SWAP]
    hand = raw["hand"][p]
    for c in range(4):
        if want[c] > hand[c]:
            return (f"the swap discards {want[c]} {COLOURS[c]} tile{'s' if want[c] > 1 else ''}, "
                    f"but player {p} holds {hand[c]} (R43; hand: {_hand_text(hand)})")
    return None


# -- the other decisions ---------------------------------------------------------------

def _support(game, raw, a):
    n = a - A_SUPPORT
    p = game.current_player
    c = 0 if raw["c_kind"] == REVOLT else raw["c_colour"]
    have = raw["hand"][p][c]
    if n > have:
        rule = ("R50: revolts are fought with red tiles" if raw["c_kind"] == REVOLT
                else f"R62: a {COLOURS[c]} war is fought with {COLOURS[c]} tiles")
        return f"player {p} has only {have} {COLOURS[c]} tile{'s' if have != 1 else ''} ({rule})"
    if "english" in game.variants and n > 0:
        att, dfn = raw["c_att_base"], raw["c_def_base"]
        if raw["c_stage"] == 0:
            return (f"English variant (R93): the attacker commits only if his total beats the "
                    f"defender's {dfn} on the board; {att} + {n} = {att + n} does not")
        total = att + raw["c_att_commit"]
        need = total - dfn
        if need <= 0:
            return (f"English variant (R94): the defender's {dfn} already ties or beats the "
                    f"attacker's {total}; he commits nothing")
        if need > have:
            return (f"English variant (R94): the defender commits exactly enough to tie "
                    f"({need} to reach {total}) or nothing, and holds only {have}")
        return (f"English variant (R94): the defender commits exactly enough to tie "
                f"({need} to reach {total}) or nothing, not {n}")
    return None


def _war(game, raw, a):
    c = a - A_WAR
    pending = [COLOURS[k] for k in range(4) if raw["wars"] & (1 << k)]
    if c not in [COLOURS.index(x) for x in pending]:
        return (f"no war in {COLOURS[c]} is pending (R59; to choose from: "
                f"{', '.join(pending) or 'none'})")
    return None


def _monument(game, raw, a):
    if a == A_NO_MONUMENT:
        return None
    m, top = divmod(a - A_MONUMENT, NSQ)
    name = monument_name(m)
    placed = raw["placed"]
    if raw["monument"][m] != NONE:
        return (f"the {name} monument is already built (on {square_name(raw['monument'][m])}) "
                "(R70)")
    four = block(top)
    if four is None:
        return (f"no 2x2 square has its top-left corner on {square_name(top)}, at the edge of "
                "the board")
    if placed not in four:
        return (f"the 2x2 square at {square_name(top)} does not hold the tile just placed on "
                f"{square_name(placed)} (R69, R72)")
    codes = {raw["squares"][i] for i in four}
    if len(codes) != 1 or not is_tile(next(iter(codes))):
        return (f"the 2x2 square at {square_name(top)} is not four face-up tiles of one colour "
                "(R69)")
    colour = next(iter(codes)) - TILE0
    if colour not in MONUMENTS[m]:
        return (f"the {name} monument needs a square of one of its colours; the square at "
                f"{square_name(top)} is {COLOURS[colour]} (R70)")
    return None


def _treasure(game, raw, a):
    i = a - A_TREASURE
    trader = raw["t_trader"]
    if not raw["treasure"][i]:
        return f"there is no treasure on {square_name(i)}"
    labels, _ = game.regions()
    if labels[i] is None or labels[i] != labels[trader]:
        return (f"the treasure on {square_name(i)} is not in the kingdom of the trader on "
                f"{square_name(trader)} (R76)")
    _, _, special = boards.layout(game.board)
    if i not in special and any(raw["treasure"][j] and labels[j] == labels[trader]
                                for j in special):
        kind = "corner treasure" if game.board == "classic" else "treasure outside the rivers"
        return f"the treasure must be a {kind} first (R77)"
    return None


def _line(raw, i, step):
    """R95: the squares of the unbroken line of face-up tiles of i's colour through i,
    horizontal (step 1) or vertical (step COLS)."""
    code = raw["squares"][i]
    line = [i]
    for direction in (-1, 1):
        j = i
        while True:
            r, c = divmod(j, COLS)
            nr, nc = (r, c + direction) if step == 1 else (r + direction, c)
            if not (0 <= nr < ROWS and 0 <= nc < COLS) or raw["squares"][nr * COLS + nc] != code:
                break
            j = nr * COLS + nc
            line.append(j)
    return sorted(line)


def _building(game, raw, a):
    if a == A_NO_BUILDING:
        return None
    c, i = divmod(a - A_BUILDING, NSQ)
    colour = COLOURS[c]
    placed = raw["placed"]
    tile = raw["squares"][placed] - TILE0
    if tile != c:
        return (f"the tile placed on {square_name(placed)} is {COLOURS[tile]}: only the "
                f"{COLOURS[tile]} building may go on its line (R95)")
    lines = [_line(raw, placed, step) for step in (1, COLS)]
    if not any(i in line and len(line) >= 3 for line in lines):
        return (f"{square_name(i)} is not on a line of 3 or more face-up {colour} tiles "
                f"through the tile placed on {square_name(placed)} (R95)")
    b = raw["building"][c]
    if b == NONE:
        return None
    if any(b in line for line in lines):
        return (f"the {colour} building on {square_name(b)} already stands on a line through "
                f"{square_name(placed)}; extending its own line does not move it (R96)")
    own = max(len(_line(raw, b, step)) for step in (1, COLS))
    new = max(len(line) for line in lines if i in line)
    if new <= own:
        return (f"the {colour} building on {square_name(b)} stands on a line of {own}; it "
                f"moves only to a strictly longer line, and this one has {new} (R96)")
    return None
