"""The text diagram that ``str(game)`` prints.

An 11 x 16 grid with column letters A-P and row numbers 1-11 (the board labels of
``tigris.notation``), one token per square, a legend, and below it the players, the bag, the
monuments and the decision at hand.  Full knowledge: hands are shown with their colours,
except what the position the game was loaded from left unknown (``Game.unknown``): those
hands and the bag are shown by size only, since their colours were dealt at random.
Every line is shorter than 100 characters.

``render(game, viewer=p)`` is the diagram player p may see (the other hands and the bag by
size only), and ``colour=True`` paints the board's tokens with ANSI colours for a terminal.
"""

import re

from tigris import boards
from tigris.constants import (COLOURS, LEADERS, COLS, ROWS, NONE, EMPTY, CATASTROPHE, CONFLICTS,
                              RED)
from tigris.notation import square_name, monument_name
from tigris.squares import is_face_down, is_leader, leader_of, tile_colour

__all__ = ["render", "decision_line"]

TILE_LETTERS = "rbgk"           # red, blue, green, black (k: black, as in CMYK)
LEADER_LETTERS = "PFTK"         # priest, farmer, trader, king
CELL = 4

LEGEND = (
    "Legend: . land  ~ river  r b g k tile (red blue green black)  #r face-down monument tile",
    "        * treasure  ^ civilization building  ! unification tile  XX catastrophe",
    "        P0 F0 T0 K0: priest, farmer, trader, king of player 0",
)


def square_text(raw, i, rivers):
    """The token of square i of a raw state (at most 3 characters)."""
    code = raw["squares"][i]
    if code == EMPTY:
        return "~" if i in rivers else "."
    if code == CATASTROPHE:
        return "XX"
    if is_leader(code):
        p, c = leader_of(code)
        return f"{LEADER_LETTERS[c]}{p}"
    c = tile_colour(code)
    text = ("#" if is_face_down(code) else "") + TILE_LETTERS[c]
    if raw["treasure"][i]:
        text += "*"
    if not is_face_down(code) and raw["building"][c] == i:
        text += "^"
    if raw["unif"] == i:
        text += "!"
    return text


def grid_lines(raw, board):
    """The board as rows of text: column letters, then one line per row with its number."""
    rivers = boards.layout(board)[0]
    lines = ["   " + "".join(chr(ord("A") + c).rjust(CELL) for c in range(COLS))]
    for r in range(ROWS):
        cells = "".join(square_text(raw, r * COLS + c, rivers).rjust(CELL) for c in range(COLS))
        lines.append(f"{r + 1:>3}{cells}   {r + 1}")
    lines.append(lines[0])
    return lines


def _counts(values):
    return ", ".join(f"{COLOURS[c]} {values[c]}" for c in range(4))


# ANSI colours of a terminal: tiles by colour, leaders by their owner, rivers dim
TILE_ANSI = {"r": "1;31", "b": "1;34", "g": "1;32", "k": "1;37;40"}
PLAYER_ANSI = ("1;35", "1;36", "1;33", "1;91")
RIVER_ANSI = "2;34"
TOKEN = re.compile(r"(?<=\s)(#?[rbgk][*^!]*|[PFTK][0-3]|XX|~)(?=\s|$)")


def paint(line):
    """A board line with its tokens in ANSI colours (the line's layout is unchanged)."""
    def one(m):
        token = m.group(1)
        if token == "~":
            code = RIVER_ANSI
        elif token == "XX":
            code = "1;7"
        elif token[0] in LEADER_LETTERS:
            code = PLAYER_ANSI[int(token[1])]
        else:
            code = TILE_ANSI[token.lstrip("#")[0]] + (";2" if token[0] == "#" else "")
        return f"\x1b[{code}m{token}\x1b[0m"
    return TOKEN.sub(one, line)


def player_lines(game, raw, p, viewer=None):
    """Player p's lines under the board: score, treasures, catastrophes, hand (or its size,
    where the hand is unknown or, for a `viewer`, another player's)."""
    score = raw["score"][p]
    marks = []
    if p == raw["active"] and not game.is_over:
        marks.append("to move")
    if p == game.current_player and game.decision != "action" and not game.is_over:
        marks.append("deciding")
    head = f"Player {p}" + (f" ({', '.join(marks)})" if marks else "")
    supply = [LEADERS[c] for c in range(4) if raw["leader"][p][c] == NONE]
    on_board = [f"{LEADERS[c]} {square_name(raw['leader'][p][c])}" for c in range(4)
                if raw["leader"][p][c] != NONE]
    hand = raw["hand"][p]
    if p in game.unknown["hands"]:
        shown = "unknown"
    elif viewer is not None and viewer != p:
        shown = "hidden"
    else:
        shown = _counts(hand)
    lines = [
        f"{head}: score {_counts(score)}; treasures {raw['treasures'][p]}",
        f"    hand {sum(hand)}: {shown}; catastrophes left {raw['catastrophes'][p]}; "
        f"face-down discards {sum(raw['swapped'][p])}",
        f"    leaders in supply: {', '.join(supply) or 'none'}; "
        f"on the board: {', '.join(on_board) or 'none'}",
    ]
    return lines


def support_colour(kind, colour):
    """The colour of the tiles that support a conflict of leaders of `colour`: a war's own
    colour, a revolt's always red (temples, RULES.md A-7)."""
    return RED if kind == "revolt" else colour


def decision_line(game, raw):
    """What happens now: the decision at hand, the conflict in progress, or the result."""
    decision = game.decision
    if decision == "over":
        places = "; ".join(f"{k + 1}. player{'s' if len(ps) > 1 else ''} "
                           f"{', '.join(map(str, ps))}" for k, ps in enumerate(game.ranking()))
        return [f"Game over after turn {raw['turn']}. Ranking: {places}"]
    who = game.current_player
    lines = [f"Turn {raw['turn']}: player {raw['active']} to move, "
             f"{raw['actions_left']} action{'s' if raw['actions_left'] != 1 else ''} left. "
             f"Decision: {decision} by player {who}"]
    if raw["c_kind"]:
        kind = CONFLICTS[raw["c_kind"]]
        c = raw["c_colour"]
        committed = raw["c_att_commit"] if raw["c_stage"] == 1 else "not yet"
        support = COLOURS[support_colour(kind, c)]
        lines.append(f"    {kind} of the {LEADERS[c]}s ({support} support)")
        lines.append(f"    attacker player {raw['c_attacker']}, {LEADERS[c]} on "
                     f"{square_name(raw['c_att_sq'])}: strength {raw['c_att_base']}, "
                     f"committed {committed}")
        lines.append(f"    defender player {raw['c_defender']}, {LEADERS[c]} on "
                     f"{square_name(raw['c_def_sq'])}: strength {raw['c_def_base']}")
    extra = []
    if raw["unif"] != NONE:
        extra.append(f"unification tile {square_name(raw['unif'])}")
    if raw["wars"]:
        extra.append("wars left: " + ", ".join(COLOURS[c] for c in range(4)
                                               if raw["wars"] & (1 << c)))
    if raw["placed"] != NONE:
        extra.append(f"tile placed on {square_name(raw['placed'])}")
    if raw["t_trader"] != NONE:
        extra.append(f"trader on {square_name(raw['t_trader'])} takes a treasure")
    if extra:
        lines.append("    " + "; ".join(extra))
    return lines


def render(game, viewer=None, colour=False):
    """The text diagram of ``game``: full knowledge, or what player `viewer` may see (the
    board, the scores, the own hand; the other hands and the bag by size).  `colour`:
    the board's tokens in ANSI colours."""
    raw = game.raw_state()
    lines = [f"Tigris & Euphrates, {raw['players']} players, {game.board} board"
             + (f", variants: {', '.join(game.variants)}" if game.variants else "")]
    grid = grid_lines(raw, game.board)
    lines += [paint(line) for line in grid] if colour else grid
    lines += LEGEND
    lines.append("")
    for p in range(raw["players"]):
        lines += player_lines(game, raw, p, viewer)
    bag = raw["bag"]
    colours = "colours unknown" if game.unknown["bag"] or viewer is not None else _counts(bag)
    lines.append(f"Bag: {sum(bag)} tiles ({colours})")
    lines.append(f"Out of game: {_counts(raw['out'])}")
    built = [f"{monument_name(m)} {square_name(at)}" for m, at in enumerate(raw["monument"])
             if at != NONE]
    lines.append(f"Monuments built: {', '.join(built) or 'none'}")
    if "buildings" in game.variants:
        placed = [f"{COLOURS[c]} {square_name(at)}" for c, at in enumerate(raw["building"])
                  if at != NONE]
        supply = [COLOURS[c] for c in range(4) if raw["building"][c] == NONE]
        lines.append(f"Buildings on the board: {', '.join(placed) or 'none'}; "
                     f"in the supply: {', '.join(supply) or 'none'}")
    lines += decision_line(game, raw)
    return "\n".join(lines)
