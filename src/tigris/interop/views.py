"""What one player may see of a game, as the learning frameworks take it: a flat vector
of fixed size (``SIZE`` floats, in the named pieces of ``PIECES``), the legal actions as
a mask, and the same view as text.

The view holds what the position format shows the player (``Game.to_position(p)``):
the board, every public count, the player's own hand and face-down discards, and of the
others only how many tiles they hold and have discarded.  Players keep their seat
numbers (the vector says whose view it is).  The OpenSpiel and PettingZoo adapters
share it, so the two frameworks see the same thing.
"""

import json
import math

import numpy as np

from tigris.boards import layout
from tigris.constants import (CATASTROPHE, DOWN0, LEADER0, MAXP, N_ACTIONS, NCOL, NMONUMENTS, NO_CONFLICT,
                              NONE, NSQ, PH_OVER, TILE0, TURN_MAX, VARIANTS)

__all__ = ["PIECES", "SIZE", "HIGH", "pieces", "encode", "action_mask", "view_text"]

# What each square may hold, one plane each: face-up tiles, face-down (monument) tiles,
# a catastrophe, and the leaders (player * 4 + colour).
_CODES = ([TILE0 + c for c in range(NCOL)] + [DOWN0 + c for c in range(NCOL)] + [CATASTROPHE]
          + [LEADER0 + k for k in range(MAXP * NCOL)])
_PLANE = np.full(256, -1, np.int64)        # square code -> its plane, -1 for none (empty)
_PLANE[_CODES] = np.arange(len(_CODES))
_SQUARES = np.arange(NSQ)
# The squares a decision in progress points at: the tile just placed, the unification
# tile of wars, the trader whose owner takes a treasure, the two leaders in conflict.
_MARKS = ("placed", "unif", "t_trader", "c_att_sq", "c_def_sq")
_PLAYER_FIELDS = 16             # hand 4, hand size, score 4, treasures, catastrophes, discards, own discards 4

#: The vector's pieces in order: (name, shape).
PIECES = (
    ("squares", (len(_CODES), NSQ)),            # what stands on each square
    ("treasure", (NSQ,)),
    ("building", (NSQ,)),                       # a civilization building (buildings variant)
    ("river", (NSQ,)),
    ("monument", (NMONUMENTS, NSQ)),            # each monument's top-left square
    ("marks", (len(_MARKS), NSQ)),
    ("players", (MAXP, _PLAYER_FIELDS)),        # by seat; the others' hands and discards as counts
    ("observer", (MAXP,)),
    ("seats", (MAXP,)),                         # which seats are in the game
    ("to_move", (MAXP,)),                       # the player whose turn it is
    ("deciding", (MAXP,)),                      # the player who decides now
    ("actions_left", (3,)),
    ("decision", (PH_OVER + 1,)),
    ("conflict", (3 + NCOL + 2 * MAXP + 4,)),   # kind, colour, attacker, defender, strengths, stage
    ("wars_left", (NCOL,)),
    ("bag", (1,)),                              # tiles in the bag
    ("out_of_game", (NCOL,)),
    ("variants", (len(VARIANTS),)),
    ("turn", (1,)),
)
#: The vector's length.
SIZE = sum(math.prod(shape) for _, shape in PIECES)
#: No entry is above this (the turn counter's limit): the vector lies in [0, HIGH].
HIGH = float(TURN_MAX)

_RIVERS = {name: sorted(layout(name)[0]) for name in ("classic", "advanced")}


def pieces(vector):
    """The named pieces of a view `vector` (views into it, shaped as ``PIECES`` says)."""
    out, at = {}, 0
    for name, shape in PIECES:
        size = math.prod(shape)
        out[name] = vector[at:at + size].reshape(shape)
        at += size
    return out


def encode(game, player, out=None, hand=None):
    """The view of `player` of `game` as a float32 vector of ``SIZE`` (written into
    `out` when given, and returned).  `hand` (colour counts) replaces the player's hand
    (the OpenSpiel game while it deals)."""
    raw = game.raw_state()
    vector = np.zeros(SIZE, np.float32) if out is None else out
    vector.fill(0.0)
    v = pieces(vector)
    planes = _PLANE[raw["squares"]]
    filled = planes >= 0
    v["squares"][planes[filled], _SQUARES[filled]] = 1.0
    v["treasure"][:] = raw["treasure"]
    v["building"][[at for at in raw["building"] if at != NONE]] = 1.0
    v["river"][_RIVERS[game.board]] = 1.0
    for m, at in enumerate(raw["monument"]):
        if at != NONE:
            v["monument"][m, at] = 1.0
    for k, key in enumerate(_MARKS):
        if raw[key] != NONE and (key not in ("c_att_sq", "c_def_sq") or raw["c_kind"] != NO_CONFLICT):
            v["marks"][k, raw[key]] = 1.0
    n = raw["players"]
    for p in range(n):
        row = v["players"][p]
        held = (hand if hand is not None and p == player else raw["hand"][p])
        if p == player:
            row[0:4] = held
            row[12:16] = raw["swapped"][p]
        row[4] = sum(held)
        row[5:9] = raw["score"][p]
        row[9] = raw["treasures"][p]
        row[10] = raw["catastrophes"][p]
        row[11] = sum(raw["swapped"][p])
    v["observer"][player] = 1.0
    v["seats"][:n] = 1.0
    _decision(raw, v, None if game.is_over else game.current_player)
    v["bag"][0] = sum(raw["bag"])
    v["out_of_game"][:] = raw["out"]
    for k, bit in enumerate(VARIANTS.values()):
        v["variants"][k] = 1.0 if raw["variants"] & bit else 0.0
    v["turn"][0] = raw["turn"]
    return vector


def _decision(raw, v, deciding):
    """The decision at hand into the pieces `v`: whose turn, who decides (None: nobody,
    the game is over), the conflict."""
    v["to_move"][raw["active"]] = 1.0
    v["actions_left"][raw["actions_left"]] = 1.0
    v["decision"][raw["phase"]] = 1.0
    if raw["c_kind"] != NO_CONFLICT:
        c = v["conflict"]
        c[raw["c_kind"] - 1] = 1.0
        c[3 + raw["c_colour"]] = 1.0
        c[3 + NCOL + raw["c_attacker"]] = 1.0
        c[3 + NCOL + MAXP + raw["c_defender"]] = 1.0
        c[3 + NCOL + 2 * MAXP:] = (raw["c_att_base"], raw["c_def_base"], raw["c_att_commit"], raw["c_stage"])
    if deciding is not None:
        v["deciding"][deciding] = 1.0
    for c in range(NCOL):
        if raw["wars"] >> c & 1:
            v["wars_left"][c] = 1.0


def action_mask(game):
    """The legal actions of the decision at hand as a vector of ``N_ACTIONS`` int8 (1: legal)."""
    mask = np.zeros(N_ACTIONS, np.int8)
    mask[game.legal_actions()] = 1
    return mask


def view_text(game, player):
    """The view of `player` as one line of JSON: the position format's view
    (``Game.to_position(player)``), keys sorted."""
    return json.dumps(game.to_position(player), sort_keys=True, separators=(",", ":"))
