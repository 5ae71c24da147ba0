"""The position editor's changes (``tigris serve``'s position page, ``static/edit.js``):
a piece put on a square, or what stands there taken away, the position still adding up.

A piece goes only where the rules let such a piece go, and the rules' own code decides:
the core's legal actions (``Game.is_legal``) of the position with the piece's owner to
move, a whole turn ahead and that piece at hand, and ``tigris.legality`` names the rule
a refusal breaks.  So a tile goes on an empty square of its kind (R28, R29, R40) that
unites at most two kingdoms (R31); a leader next to a temple, on an empty land square,
joining no two kingdoms (R16-R21; one already on the board moves, R21); a catastrophe on
an empty square or a face-up tile that holds no treasure and no building (R37-R40, R79,
R100), never on a leader, a monument or another catastrophe.  What stands on a square
is taken away first (the piece "empty") to put another there.

A catastrophe does what the rules make it do (the core plays it): the tile under it
leaves the game (R38) and a leader left without a temple goes back to its owner (R42).
Where the other pieces come from and go is the editor's own bookkeeping: a tile from the
bag (when the bag is known) and back to it; a treasure, with its temple, from the
treasures collected by the player to move, or else by the first player who has one, and
taken away, to the player to move; a catastrophe taken away back to the player with the
fewest left; a building under a tile taken away back to the supply; a leader to and from
its owner's supply.  The position that results is checked whole (``from_position``), so
a change that leaves a leader without a temple, a monument short of a tile or two leaders
of a colour in a kingdom is refused with the field at fault.

>>> import tigris
>>> start = tigris.Game(players=2, seed=0).to_position()
>>> put(start, "B2", "catastrophe:0")
Traceback (most recent call last):
  ...
tigris.errors.PositionError: squares.B2: a treasure lies on the square (R39, R79)
>>> after, did = put(start, "A1", "catastrophe:0")
>>> after["squares"]["A1"], after["players"][0]["catastrophes"], did
('catastrophe', 1, ['player 0 has 1 catastrophe left'])
"""

import copy

from tigris import notation
from tigris.constants import (A_CATASTROPHE, A_LEADER, A_TILE, COLOURS, EMPTY, LEADERS, NONE,
                              NO_CONFLICT, NSQ, PH_ACTION, TILE0)
from tigris.errors import PositionError, UsageError, excerpt
from tigris.legality import why_illegal
from tigris.position import from_position, to_position
from tigris.squares import is_face_down, is_leader, is_tile, leader_code, leader_of, tile_colour

__all__ = ["put", "pieces"]

TEMPLE = COLOURS[0]                # the temples' colour: treasures lie on them
# The decision fields of a raw state, as a turn's action decision holds them.
ACTION_DECISION = dict(phase=PH_ACTION, actions_left=2, placed=NONE, unif=NONE, c_kind=NO_CONFLICT,
                       c_colour=0, c_attacker=0, c_defender=0, c_att_sq=NONE, c_def_sq=NONE, c_att_base=0,
                       c_def_base=0, c_att_commit=0, c_stage=0, wars=0, t_trader=NONE)


def pieces(players):
    """The pieces the editor puts in a game of `players`: "" (take away what stands
    there), a tile's colour, ``red+treasure`` (a temple with its treasure),
    ``catastrophe:P`` and ``LEADER:P`` (player P's)."""
    return (["", *COLOURS, TEMPLE + "+treasure"] + [f"catastrophe:{p}" for p in range(players)]
            + [f"{leader}:{p}" for p in range(players) for leader in LEADERS])


def put(position, square, piece):
    """``(the position, what the editor did)``: `piece` (one of ``pieces``) put on
    `square` (as "G5") of `position` (``tigris-position/1`` data, checked first), and
    the list of what else the change did, in words.  A PositionError names the square and
    the rule the rules refuse it by, or the field of the position that results where that
    is no position (``from_position``'s message); a UsageError names a square or a piece
    that is none."""
    game = from_position(position)
    if not isinstance(square, str):
        raise UsageError(f"square: expected a square like \"G5\", not {excerpt(square)}")
    try:
        i = notation.square_index(square)
    except ValueError as e:
        raise UsageError(f"square: {e}") from None
    if piece not in pieces(game.players):
        raise UsageError(f"piece: {excerpt(piece)} is not a piece of a {game.players}-player game "
                         f"({', '.join(repr(p) for p in pieces(game.players))})")
    raw, did = game.raw_state(), []
    name, _, owner = piece.partition(":")
    if piece == "":
        _take_away(raw, i, did)
    elif name == "catastrophe":
        _catastrophe(game, raw, i, int(owner), did)
    elif name in LEADERS:
        _leader(game, raw, i, int(owner), LEADERS.index(name), did)
    else:
        _tile(game, raw, i, COLOURS.index(name.split("+")[0]), name.endswith("+treasure"), did)
    return _checked(game, raw), did


def _checked(game, raw):
    """The position of `game` with the state `raw`, checked whole: a conflict's board
    strengths are left out (the loader computes them from the board as it now is)."""
    changed = game.copy()
    changed.load_raw_state(raw, unknown=game.unknown)
    d = to_position(changed)
    conflict = d.get("pending", {}).get("conflict")
    if conflict:
        for side in ("attacker", "defender"):
            conflict[side].pop("strength", None)
    from_position(d)
    return d


def _judged(game, raw, player, action, square, hand=None):
    """A copy of the game in the state `raw` with `player` to move, a whole turn ahead
    (holding `hand` if given), where the core has judged `action` (onto `square`) legal;
    else the PositionError of the rule it breaks (``tigris.legality``)."""
    state = copy.deepcopy(raw)
    state.update(ACTION_DECISION, active=player)
    if hand is not None:
        state["hand"][player] = hand
    trial = game.copy()
    trial.load_raw_state(state)
    if not trial.is_legal(action):
        raise PositionError(f"squares.{notation.square_name(square)}: {why_illegal(trial, action)}")
    return trial


def _tile(game, raw, i, c, treasure, did):
    """A tile of colour `c` from the bag (a red one with a treasure if `treasure`)."""
    hand = [0, 0, 0, 0]
    hand[c] = 1
    _judged(game, raw, raw["active"], A_TILE + c * NSQ + i, i, hand)
    if not game.unknown["bag"]:
        if raw["bag"][c] == 0:
            raise PositionError(f"squares.{notation.square_name(i)}: no {COLOURS[c]} tile left in the bag")
        raw["bag"][c] -= 1
    raw["squares"][i] = TILE0 + c
    if treasure:
        first = raw["active"]
        holders = [p for p in [first, *range(raw["players"])] if raw["treasures"][p] > 0]
        if not holders:
            raise PositionError(f"squares.{notation.square_name(i)}: no treasure to put: they are all on "
                                "the board (a treasure put comes from those a player collected)")
        raw["treasures"][holders[0]] -= 1
        raw["treasure"][i] = 1
        did.append(f"the treasure from player {holders[0]}")


def _leader(game, raw, i, p, c, did):
    """Player `p`'s leader of colour `c` from the supply, or moved from its square."""
    _judged(game, raw, p, A_LEADER + c * NSQ + i, i)
    at = raw["leader"][p][c]
    if at != NONE:
        raw["squares"][at] = EMPTY
        did.append(f"moved from {notation.square_name(at)}")
    raw["squares"][i] = leader_code(p, c)
    raw["leader"][p][c] = i


def _catastrophe(game, raw, i, p, did):
    """Player `p`'s catastrophe, played by the core: the tile under it out of the game,
    the leaders it leaves without a temple back to their owners."""
    trial = _judged(game, raw, p, A_CATASTROPHE + i, i)
    trial.apply(A_CATASTROPHE + i)
    after = trial.raw_state()
    code = raw["squares"][i]
    if is_tile(code):
        did.append(f"the {COLOURS[tile_colour(code)]} tile on {notation.square_name(i)} out of the game")
    for q in range(raw["players"]):
        for colour in range(4):
            if raw["leader"][q][colour] != NONE and after["leader"][q][colour] == NONE:
                did.append(f"{LEADERS[colour]}:{q} on {notation.square_name(raw['leader'][q][colour])} back to "
                           "its owner: no temple next to it (R42)")
    for key in ("squares", "treasure", "leader", "out", "catastrophes"):
        raw[key] = after[key]
    left = raw["catastrophes"][p]
    did.append(f"player {p} has {left} catastrophe{'s' * (left != 1)} left")


def _take_away(raw, i, did):
    """What stands on square `i` back where it came from."""
    code, name = raw["squares"][i], notation.square_name(i)
    if code == EMPTY:
        return
    raw["squares"][i] = EMPTY
    if is_leader(code):
        p, c = leader_of(code)
        raw["leader"][p][c] = NONE
        did.append(f"the {LEADERS[c]} of player {p} back to the supply")
    elif is_tile(code) or is_face_down(code):
        c = tile_colour(code)
        raw["bag"][c] += 1
        did.append(f"the {COLOURS[c]} tile on {name} back to the bag")
        if raw["building"][c] == i:
            raw["building"][c] = NONE
            did.append(f"the {COLOURS[c]} building back to the supply")
        if raw["treasure"][i]:
            raw["treasure"][i] = 0
            raw["treasures"][raw["active"]] += 1
            did.append(f"its treasure to player {raw['active']}, the player to move")
    else:                                          # a catastrophe
        p = min(range(raw["players"]), key=lambda q: raw["catastrophes"][q])
        raw["catastrophes"][p] += 1
        did.append(f"the catastrophe on {name} back to player {p}")
