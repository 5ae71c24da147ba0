"""Positions: a game state as JSON-ready data (``tigris-position/1``, see docs/FORMATS.md).

``to_position(game, player=None)`` writes a position; ``from_position(d, seed=0)`` reads
one back into a ``Game``, rejecting a malformed or impossible position with a
``PositionError`` whose message starts with the field at fault, for example
``squares.G5: blue tile on a land square`` or ``players[1].hand: 7 tiles, a hand holds at
most 6``.

Full knowledge (``player=None``) gives every hand, the bag and every player's
``swapped_colours``.  A player's view (``player=p``) gives the other players'
``"hand": null`` with their ``"hand_size"``, ``"bag": null``, and omits the other
players' ``swapped_colours`` (only ``swapped_face_down`` is public).  When loading, what
is unknown (null hands, missing ``swapped_colours``, a null bag) is dealt from the unseen
pool -- the supply minus the board, ``out_of_game``, the known hands, the known face-down
discards and a known bag -- uniformly at random with ``random.Random(seed)`` (``seed``
is an int).  The game's own RNG (future draws) is seeded from ``seed`` too.  The game
remembers what was unknown (``Game.unknown``): its diagram shows those hands and the bag
by size only, and ``to_position`` writes them back as unknown, not as the random deal.

Top-level fields (defaults in brackets)::

    format        "tigris-position/1" (required)
    board         "classic" | "advanced"                                   ["classic"]
    variants      list of variant names                                     [[]]
    squares       {"G5": token, ...}; squares not listed are empty          [{}]
    monuments     [{"colours": "red-blue", "at": "F6"}, ...] (top-left)     [[]]
    players       list of 2-4 player objects (required)
    bag           {"red": n, ...} or null (unknown)                         [null]
    out_of_game   tiles removed face up, {"red": n, ...}                    [zeros]
    to_move       the player whose turn it is                               [0]
    actions_left  actions of that turn not yet begun: 2, 1 (0 while the
                  turn's last action is being resolved); with a pending
                  decision 1 or 0 (ignored once the game is over)           [2]
    turn          turns completed since the start, 0..65535 (the count
                  stops at 65535 rather than wrap)                          [0]
    pending       the decision in progress, when it is not "action"        [absent]

Square tokens: a tile colour (``red``), ``:down`` for a face-down monument tile,
``+treasure`` when a treasure lies on it (``red:down+treasure``), ``+building`` when the
civilization building of the tile's colour stands on it (buildings variant; face-up tiles
only: ``red+building``, ``red+treasure+building``), ``catastrophe``, or a leader with its
owner (``king:0``).  Marks may come in either order; positions are written with
``+treasure`` first.  A building not on the board is in the supply.

Player object: ``hand`` ({"red": n, ...}, or null with ``hand_size``), ``score``
({"red": n, ...}, [zeros]), ``treasures`` [0], ``catastrophes`` (left, [2]),
``swapped_face_down`` (tiles discarded face down so far, [0]) and ``swapped_colours``
(their colours, {"red": n, ...}; optional: dealt at random when absent).

The pending decision (present only when the decision is not "action")::

    "pending": {
      "decision": "support" | "war_order" | "monument" | "treasure" | "building" | "over",
      "conflict": {                          # only while a conflict is being resolved
        "kind": "revolt" | "war",
        "colour": "red",                     # colour of the two leaders in conflict
        "attacker": {"player": 0, "leader": "E5", "strength": 3,
                     "committed": 2},        # null while the attacker has not committed
        "defender": {"player": 1, "leader": "F5", "strength": 2}
      },
      "unification": "G5",                   # the uniting tile, during wars
      "wars_left": ["black", "green"],       # colours still to fight besides the current one
      "placed": "G5",                        # the tile placed by the current action, when set
      "trader": "B2"                         # treasure decision: the trader whose owner takes one
    }

A "building" decision (buildings variant) is ``{"decision": "building", "placed": "G5"}``:
the active player puts the building of G5's colour on a tile of a line of 3 or more through
G5, or declines (R95-R96); the monument decision, if any, follows it.

``strength`` is the board strength (revolt: temples next to the leader; war: face-up
tiles of the war colour on the leader's side); it may be omitted and is then computed.
The pending decision must be the one the board holds: a revolt's leaders share a kingdom
and the attacker is the player to move (R48); a war's leaders stand on two sides of the
unification tile, the attacker by R60; ``wars_left`` lists exactly the other colours with
two leaders on two sides of it (R56, R59), and ``placed`` (if given) is the unification
tile.
The player to decide follows from the pending decision: the attacker, then the defender,
commits support; the active player chooses the war order, the building and the monument;
the trader's owner takes the treasure.
"""

import random

from tigris import boards, notation
from tigris._game import Game
from tigris.constants import (NSQ, NONE, TURN_MAX, COLOURS, LEADERS, SUPPLY, DECISIONS,
                              CONFLICTS, MONUMENTS, EMPTY, TILE0, DOWN0, CATASTROPHE, RED, GREEN,
                              PH_ACTION, PH_SUPPORT, PH_WAR_ORDER, PH_MONUMENT, PH_TREASURE,
                              PH_BUILDING, PH_OVER, NO_CONFLICT, REVOLT, WAR)
from tigris.errors import PositionError, excerpt, newer_format
from tigris.squares import (block, describe, is_face_down, is_leader, is_tile, leader_code,
                            leader_of, neighbours, tile_colour)

__all__ = ["FORMAT", "to_position", "from_position"]

FORMAT = "tigris-position/1"
KINDS = {name: kind for kind, name in enumerate(CONFLICTS) if name}      # "revolt", "war"

TOP_KEYS = ("format", "board", "variants", "squares", "monuments", "players", "bag",
            "out_of_game", "to_move", "actions_left", "turn", "pending")
PLAYER_KEYS = ("hand", "hand_size", "score", "treasures", "catastrophes",
               "swapped_face_down", "swapped_colours")
PENDING_KEYS = ("decision", "conflict", "unification", "wars_left", "placed", "trader")
CONFLICT_KEYS = ("kind", "colour", "attacker", "defender")
SIDE_KEYS = ("player", "leader", "strength", "committed")


# ---------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------

def _counts(values):
    return {COLOURS[c]: int(values[c]) for c in range(4)}


def square_token(raw, i):
    """The position token of square i of a raw state, or None for an empty square."""
    code = raw["squares"][i]
    if code == EMPTY:
        return None
    if code == CATASTROPHE:
        return "catastrophe"
    if is_leader(code):
        p, c = leader_of(code)
        return f"{LEADERS[c]}:{p}"
    if is_tile(code):
        token = COLOURS[tile_colour(code)]
    elif is_face_down(code):
        token = COLOURS[tile_colour(code)] + ":down"
    else:
        raise ValueError(f"square {notation.square_name(i)} holds the unknown code {code}")
    if raw["treasure"][i]:
        token += "+treasure"
    if is_tile(code) and raw["building"][tile_colour(code)] == i:
        token += "+building"
    return token


def to_position(game, player=None):
    """The position of ``game`` as a dict: full knowledge, or what ``player`` can see.
    What the position ``game`` was loaded from left unknown stays unknown (``null``), not
    the tiles the loader dealt at random in its place."""
    raw = game.raw_state()
    unknown = game.unknown
    n = raw["players"]
    if player is not None and (isinstance(player, bool) or not isinstance(player, int)
                               or not 0 <= player < n):
        raise ValueError(f"player {excerpt(player)} is not in this {n}-player game")
    squares = {}
    for i in range(NSQ):
        token = square_token(raw, i)
        if token is not None:
            squares[notation.square_name(i)] = token
    monuments = [{"colours": notation.monument_name(m), "at": notation.square_name(at)}
                 for m, at in enumerate(raw["monument"]) if at != NONE]
    players = []
    for p in range(n):
        entry = {}
        if (player is None or player == p) and p not in unknown["hands"]:
            entry["hand"] = _counts(raw["hand"][p])
        else:
            entry["hand"] = None
            entry["hand_size"] = sum(raw["hand"][p])
        entry["score"] = _counts(raw["score"][p])
        entry["treasures"] = raw["treasures"][p]
        entry["catastrophes"] = raw["catastrophes"][p]
        entry["swapped_face_down"] = sum(raw["swapped"][p])
        if (player is None or player == p) and p not in unknown["swapped_colours"]:
            entry["swapped_colours"] = _counts(raw["swapped"][p])
        players.append(entry)
    d = {
        "format": FORMAT,
        "board": game.board,
        "variants": list(game.variants),
        "squares": squares,
        "monuments": monuments,
        "players": players,
        "bag": _counts(raw["bag"]) if player is None and not unknown["bag"] else None,
        "out_of_game": _counts(raw["out"]),
        "to_move": raw["active"],
        "actions_left": raw["actions_left"],
        "turn": raw["turn"],
    }
    if raw["phase"] != PH_ACTION:
        d["pending"] = _pending(raw)
    return d


def _pending(raw):
    sq = notation.square_name
    pending = {"decision": DECISIONS[raw["phase"]]}
    if raw["c_kind"] != NO_CONFLICT:
        attacker = {"player": raw["c_attacker"], "leader": sq(raw["c_att_sq"]),
                    "strength": raw["c_att_base"],
                    "committed": raw["c_att_commit"] if raw["c_stage"] == 1 else None}
        defender = {"player": raw["c_defender"], "leader": sq(raw["c_def_sq"]),
                    "strength": raw["c_def_base"]}
        pending["conflict"] = {"kind": CONFLICTS[raw["c_kind"]],
                               "colour": COLOURS[raw["c_colour"]],
                               "attacker": attacker, "defender": defender}
    if raw["unif"] != NONE:
        pending["unification"] = sq(raw["unif"])
    if raw["wars"] or raw["unif"] != NONE:
        pending["wars_left"] = [COLOURS[c] for c in range(4) if raw["wars"] & (1 << c)]
    if raw["placed"] != NONE:
        pending["placed"] = sq(raw["placed"])
    if raw["t_trader"] != NONE:
        pending["trader"] = sq(raw["t_trader"])
    return pending


# ---------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------

def _fail(field, reason):
    raise PositionError(f"{field}: {reason}")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _int(v, field, lo, hi=None):
    if not _is_int(v):
        _fail(field, f"expected a whole number, not {excerpt(v)}")
    if v < lo or (hi is not None and v > hi):
        _fail(field, f"{excerpt(v)} is out of range ({lo}..{hi})" if hi is not None
              else f"{excerpt(v)} is below {lo}")
    return v


def _key(key):
    """A dict key as it may appear in a field name: short plain strings as they are,
    anything else quoted briefly."""
    if isinstance(key, str) and len(key) <= 20 and key.isprintable() and "." not in key:
        return key
    return excerpt(key, 20)


def _check_keys(obj, known, field):
    if not isinstance(obj, dict):
        _fail(field, f"expected an object, not {type(obj).__name__}")
    for key in obj:
        if key not in known:
            where = f"{field}.{_key(key)}" if field else _key(key)
            _fail(where, f"unknown field (known: {', '.join(known)})")


def _colour_counts(v, field, hi=None, default=None):
    """{"red": n, ...} -> [n_red, n_blue, n_green, n_black]; missing colours count 0."""
    if v is None and default is not None:
        return list(default)
    if not isinstance(v, dict):
        _fail(field, f"expected colour counts like {{\"red\": 1, \"blue\": 0, ...}}, not "
                     f"{excerpt(v)}")
    counts = [0, 0, 0, 0]
    for key, n in v.items():
        if key not in COLOURS:
            _fail(f"{field}.{_key(key)}", f"not a colour ({', '.join(COLOURS)})")
        counts[COLOURS.index(key)] = _int(n, f"{field}.{key}", 0, hi)
    return counts


def _square(text, field):
    if not isinstance(text, str):
        _fail(field, f"expected a square like \"G5\", not {excerpt(text)}")
    try:
        return notation.square_index(text)
    except ValueError as e:
        _fail(field, str(e))


def _colour(text, field):
    if not isinstance(text, str) or text.lower() not in COLOURS:
        _fail(field, f"{excerpt(text)} is not a colour ({', '.join(COLOURS)})")
    return COLOURS.index(text.lower())


def _parse_token(token, field, nplayers):
    """A square token -> (code, treasure, building)."""
    if not isinstance(token, str):
        _fail(field, f"expected a token like \"red\", \"red:down+treasure\", \"catastrophe\" "
                     f"or \"king:0\", not {excerpt(token)}")
    t, *marks = token.strip().lower().split("+")
    for mark in marks:
        if mark not in ("treasure", "building") or marks.count(mark) > 1:
            _bad_token(token, field)
    treasure = int("treasure" in marks)
    building = "building" in marks
    if t == "catastrophe" and not marks:
        return CATASTROPHE, 0, False
    name, sep, rest = t.partition(":")
    if name in LEADERS and not marks:
        if not sep or not (rest.isascii() and rest.isdigit()):
            _fail(field, f"{excerpt(token)}: a leader is written with its owner, e.g. "
                         f"\"{name}:0\"")
        p = int(rest) if len(rest) < 3 else nplayers     # no 5,000-digit int() here
        if p >= nplayers:
            _fail(field, f"{excerpt(token)}: player {rest if len(rest) < 9 else excerpt(rest, 12)} is not in this "
                         f"{nplayers}-player game")
        return leader_code(p, LEADERS.index(name)), 0, False
    if name in COLOURS and (not sep or rest == "down"):
        c = COLOURS.index(name)
        if building and sep:
            _fail(field, f"{excerpt(token)}: a building stands only on a face-up tile (a monument "
                         "tile returns it to the supply, R100)")
        return (DOWN0 + c if sep else TILE0 + c), treasure, building
    _bad_token(token, field)


def _bad_token(token, field):
    _fail(field, f"{excerpt(token)} is not a square token (a colour such as \"red\", \"red:down\", "
                 f"\"red+treasure\", \"red:down+treasure\", \"red+building\", "
                 f"\"catastrophe\", or a leader with its owner such as \"king:0\")")


def from_position(d, seed=0):
    """A ``Game`` from a position dict; raises PositionError naming the field and reason.

    Read in the order of the format: the setup, the squares, the monuments, the players,
    the tiles out of play, then what is unknown is dealt, then the turn and the pending
    decision; checks that need the board's regions run on the loaded game."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be a whole number, not {excerpt(seed)}")
    if not isinstance(d, dict):
        raise PositionError(f"position: expected a JSON object, not {type(d).__name__}")
    _check_keys(d, TOP_KEYS, "")
    if d.get("format") != FORMAT:
        _fail("format", newer_format(d.get("format"), FORMAT) or f"expected {FORMAT!r}, not {excerpt(d.get('format'))}")

    game, board, variants = _read_setup(d)
    raw = game.raw_state()          # the template; every field is filled in below
    _read_squares(d, raw, board, variants)
    _read_monuments(d, raw)
    hands, swapped, unknown = _read_players(d["players"], raw, board)
    bag = _read_out_of_play(d, raw, board)
    _deal_unknown(raw, hands, swapped, bag, unknown, seed)
    strengths = _read_turn(d, raw, variants, seed)

    unknown_parts = {"hands": [p for kind, p, _ in unknown if kind == "hand"],
                     "swapped_colours": [p for kind, p, _ in unknown if kind == "swapped"],
                     "bag": bag is None}
    _load(game, raw, unknown_parts)
    game.seed = seed
    _check_kingdoms(game, raw)
    if raw["phase"] == PH_SUPPORT:
        _fill_strengths(game, raw, strengths)
        _load(game, raw, unknown_parts)
    _check_options(game, raw)
    return game


def _read_setup(d):
    """Board, variants and the number of players: a game set up with them (its state is
    the template the position fills in), the board name and the variant names."""
    board = d.get("board", "classic")
    if board not in boards.BOARD_NAMES:
        _fail("board", f"unknown board {excerpt(board)} (boards: {', '.join(boards.BOARD_NAMES)})")
    variants = d.get("variants", [])
    if variants is None:
        variants = []
    if not isinstance(variants, (list, tuple)) or not all(isinstance(v, str) for v in variants):
        _fail("variants", f"expected a list of variant names, not {excerpt(variants)}")
    if len(set(variants)) != len(variants):
        _fail("variants", "a variant is listed twice")
    plist = d.get("players")
    if not isinstance(plist, list):
        _fail("players", "expected a list of 2 to 4 player objects")
    n = len(plist)
    if not 2 <= n <= 4:
        _fail("players", f"{n} players; a game has 2 to 4")
    try:
        game = Game(players=n, board=board, variants=tuple(variants))
    except ValueError as e:
        _fail("variants", str(e))
    return game, board, variants


def _read_squares(d, raw, board, variants):
    """The board's tiles, leaders, treasures and buildings into raw; each square token
    checked against the board (rivers, temples) and the leaders against R19."""
    n = raw["players"]
    rivers, temples, _ = boards.layout(board)
    raw["squares"] = [EMPTY] * NSQ
    raw["treasure"] = [0] * NSQ
    raw["leader"] = [[NONE] * 4 for _ in range(n)]
    raw["building"] = [NONE] * 4
    squares = d.get("squares", {})
    if squares is None:
        squares = {}
    if not isinstance(squares, dict):
        _fail("squares", "expected an object mapping squares to tokens, e.g. {\"G5\": \"red\"}")
    seen = {}
    for label, token in squares.items():
        field = f"squares.{_key(label)}"
        i = _square(label, field)
        if i in seen:
            _fail(field, f"the same square as {seen[i]}")
        seen[i] = label
        field = f"squares.{notation.square_name(i)}"
        code, treasure, building = _parse_token(token, field, n)
        river = i in rivers
        if is_tile(code) or is_face_down(code):
            c = tile_colour(code)
            what = f"{COLOURS[c]} tile" if is_tile(code) else f"face-down {COLOURS[c]} tile"
            if c == 1 and not river:
                _fail(field, f"{what} on a land square (blue tiles go on rivers only)")
            if c != 1 and river:
                _fail(field, f"{what} on a river square (only blue tiles go on rivers)")
        elif is_leader(code):
            p, c = leader_of(code)
            if river:
                _fail(field, f"{LEADERS[c]}:{p} on a river square (leaders stand on land)")
            if raw["leader"][p][c] != NONE:
                _fail(field, f"{LEADERS[c]}:{p} is also on "
                             f"{notation.square_name(raw['leader'][p][c])}; each leader is "
                             "on the board at most once")
            raw["leader"][p][c] = i
        if treasure:
            if i not in temples:
                _fail(field, f"a treasure on a square that is not one of the {board} board's "
                             "temple squares")
            if code not in (TILE0 + RED, DOWN0 + RED):
                _fail(field, "a treasure lies only on its starting red temple tile")
        if building:
            c = code - TILE0
            if "buildings" not in variants:
                _fail(field, "a building needs the \"buildings\" variant")
            if raw["building"][c] != NONE:
                _fail(field, f"the {COLOURS[c]} building is also on "
                             f"{notation.square_name(raw['building'][c])}; there is one "
                             "building per colour")
            raw["building"][c] = i
        raw["squares"][i] = code
        raw["treasure"][i] = treasure
    for p in range(n):
        for c in range(4):
            i = raw["leader"][p][c]
            if i != NONE and not any(raw["squares"][j] == TILE0 + RED for j in neighbours(i)):
                _fail(f"squares.{notation.square_name(i)}",
                      f"{LEADERS[c]}:{p} is not next to a face-up red tile (temple)")


def _read_monuments(d, raw):
    """The monuments into raw: each on four face-down tiles of one of its colours, and
    every face-down tile under a listed monument."""
    monuments = d.get("monuments", [])
    if monuments is None:
        monuments = []
    if not isinstance(monuments, list):
        _fail("monuments", "expected a list like [{\"colours\": \"red-blue\", \"at\": \"F6\"}]")
    raw["monument"] = [NONE] * 6
    covered = {}
    for k, mon in enumerate(monuments):
        field = f"monuments[{k}]"
        _check_keys(mon, ("colours", "at"), field)
        if not isinstance(mon.get("colours"), str):
            _fail(f"{field}.colours", "expected two colours like \"red-blue\"")
        try:
            m = notation.monument_index(mon["colours"])
        except ValueError as e:
            _fail(f"{field}.colours", str(e))
        if "at" not in mon:
            _fail(f"{field}.at", "missing (the top-left square of the monument)")
        top = _square(mon["at"], f"{field}.at")
        name = notation.monument_name(m)
        if raw["monument"][m] != NONE:
            _fail(f"{field}.colours", f"the {name} monument is listed twice")
        four = block(top)
        if four is None:
            _fail(f"{field}.at", f"{notation.square_name(top)} is on the board's edge; "
                                 "\"at\" is the top-left square of a 2x2 square")
        codes = {raw["squares"][i] for i in four}
        if len(codes) != 1 or not is_face_down(next(iter(codes))):
            _fail(f"{field}.at", f"the 2x2 square at {notation.square_name(top)} is not four "
                                 "face-down tiles of one colour (write them as \"red:down\")")
        colour = tile_colour(next(iter(codes)))
        if colour not in MONUMENTS[m]:
            _fail(f"{field}.colours", f"the {name} monument stands on {COLOURS[colour]} tiles; "
                                      "one of its colours must be the tiles' colour")
        for i in four:
            if i in covered:
                _fail(f"{field}.at", f"overlaps the {covered[i]} monument at "
                                     f"{notation.square_name(i)}")
            covered[i] = name
        raw["monument"][m] = top
    for i in range(NSQ):
        if is_face_down(raw["squares"][i]) and i not in covered:
            _fail(f"squares.{notation.square_name(i)}",
                  "a face-down tile that is not part of a listed monument")


def _read_players(plist, raw, board):
    """Scores, treasures and catastrophes into raw; returns the hands and face-down
    discards (None where unknown) and what is unknown, as (kind, player, size)."""
    hands, swapped = [], []
    unknown = []        # (kind, player, size) dealt at random by _deal_unknown
    temples = boards.layout(board)[1]
    raw["score"], raw["treasures"], raw["catastrophes"] = [], [], []
    for p, entry in enumerate(plist):
        field = f"players[{p}]"
        _check_keys(entry, PLAYER_KEYS, field)
        if "hand" not in entry:
            _fail(f"{field}.hand", "missing: give the colour counts, or null with hand_size")
        hand = entry["hand"]
        if hand is None:
            if "hand_size" not in entry:
                _fail(f"{field}.hand_size", "required when the hand is unknown (null)")
            size = _int(entry["hand_size"], f"{field}.hand_size", 0, 6)
            hands.append(None)
            unknown.append(("hand", p, size))
        else:
            counts = _colour_counts(hand, f"{field}.hand", 6)
            if sum(counts) > 6:
                _fail(f"{field}.hand", f"{sum(counts)} tiles; a hand holds at most 6")
            if "hand_size" in entry and entry["hand_size"] != sum(counts):
                _fail(f"{field}.hand_size", f"{excerpt(entry['hand_size'])}, but the hand holds "
                                            f"{sum(counts)} tiles")
            hands.append(counts)
        raw["score"].append(_colour_counts(entry.get("score"), f"{field}.score", 30000,
                                           default=(0, 0, 0, 0)))
        raw["treasures"].append(_int(entry.get("treasures", 0), f"{field}.treasures", 0,
                                     len(temples)))
        raw["catastrophes"].append(_int(entry.get("catastrophes", 2), f"{field}.catastrophes",
                                        0, 2))
        down = entry.get("swapped_face_down")
        colours = entry.get("swapped_colours")
        if down is not None:
            down = _int(down, f"{field}.swapped_face_down", 0, sum(SUPPLY))
        if colours is not None:
            counts = _colour_counts(colours, f"{field}.swapped_colours", sum(SUPPLY))
            if down is not None and sum(counts) != down:
                _fail(f"{field}.swapped_colours", f"{sum(counts)} tiles, but swapped_face_down "
                                                  f"is {down}")
            swapped.append(counts)
        elif down:
            swapped.append(None)
            unknown.append(("swapped", p, down))
        else:
            swapped.append([0, 0, 0, 0])
    return hands, swapped, unknown


def _read_out_of_play(d, raw, board):
    """The tiles out of game into raw, and the treasures and catastrophes checked against
    the board; returns the bag's colour counts, or None when it is unknown."""
    bag = d.get("bag")
    bag = None if bag is None else _colour_counts(bag, "bag", sum(SUPPLY))
    raw["out"] = _colour_counts(d.get("out_of_game"), "out_of_game", sum(SUPPLY),
                                default=(0, 0, 0, 0))
    temples = boards.layout(board)[1]
    on_board = sum(raw["treasure"])
    collected = sum(raw["treasures"])
    if on_board + collected != len(temples):
        _fail("treasures", f"{on_board} on the board + {collected} collected = "
                           f"{on_board + collected}, but the {board} board has {len(temples)}")
    played = sum(2 - c for c in raw["catastrophes"])
    placed_cat = raw["squares"].count(CATASTROPHE)
    if placed_cat != played:
        _fail("catastrophes", f"{placed_cat} catastrophe tiles on the board, but the players "
                              f"have played {played} (2 each minus those left)")
    return bag


def _deal_unknown(raw, hands, swapped, bag, unknown, seed):
    """Every tile accounted for; the unseen pool (the supply minus all that is known) dealt
    uniformly at random (``random.Random(seed)``) to what is unknown; the hands, discards
    and bag into raw."""
    parts = {"board": [0] * 4, "hands": [0] * 4, "bag": bag or [0] * 4,
             "out_of_game": raw["out"], "face-down discards": [0] * 4}
    for code in raw["squares"]:
        if is_tile(code) or is_face_down(code):
            parts["board"][tile_colour(code)] += 1
    for c in range(4):
        parts["hands"][c] = sum(h[c] for h in hands if h is not None)
        parts["face-down discards"][c] = sum(s[c] for s in swapped if s is not None)
    pool = []
    for c in range(4):
        used = sum(part[c] for part in parts.values())
        pool.append(SUPPLY[c] - used)
        if used > SUPPLY[c] or (not unknown and bag is not None and used != SUPPLY[c]):
            detail = ", ".join(f"{k} {v[c]}" for k, v in parts.items()
                               if bag is not None or k != "bag")
            _fail(f"tiles.{COLOURS[c]}", f"the position accounts for {used} {COLOURS[c]} tiles "
                                         f"({detail}), but the game has {SUPPLY[c]}")
    need = sum(size for _, _, size in unknown)
    have = sum(pool)
    if need > have or (bag is not None and need != have):
        unseen = ", ".join(f"{COLOURS[c]} {pool[c]}" for c in range(4))
        wants = ", ".join(f"players[{p}] {'hand' if kind == 'hand' else 'face-down discards'} "
                          f"{size}" for kind, p, size in unknown) or "nothing"
        exactly = "exactly " if bag is not None else ""
        _fail("tiles", f"{have} tiles are unaccounted for ({unseen}), but the unknown hands and "
                       f"face-down discards ({wants}) need {exactly}{need}"
                       + (" and the bag is given" if bag is not None else ""))
    rnd = random.Random(seed)
    tiles = [c for c in range(4) for _ in range(pool[c])]
    rnd.shuffle(tiles)
    for kind, p, size in unknown:
        dealt = [0, 0, 0, 0]
        for c in tiles[:size]:
            dealt[c] += 1
        del tiles[:size]
        if kind == "hand":
            hands[p] = dealt
        else:
            swapped[p] = dealt
    if bag is None:
        bag = [0, 0, 0, 0]
        for c in tiles:
            bag[c] += 1
    raw["hand"], raw["swapped"], raw["bag"] = hands, swapped, bag


def _read_turn(d, raw, variants, seed):
    """Whose turn, the actions left, the turn count, the game's RNG (seeded from
    ``seed``) and the pending decision into raw; returns the conflict strengths given
    (or None)."""
    raw["active"] = _int(d.get("to_move", 0), "to_move", 0, raw["players"] - 1)
    raw["actions_left"] = _int(d.get("actions_left", 2), "actions_left", 0, 2)
    raw["turn"] = _int(d.get("turn", 0), "turn", 0, TURN_MAX)
    raw["rng"] = random.Random(seed).getrandbits(64)
    return _read_pending(d.get("pending"), raw, raw["players"], variants)


def _load(game, raw, unknown):
    """Load the raw state; the checks above leave nothing for load_raw_state to refuse,
    but if they missed something it is still a PositionError."""
    try:
        game.load_raw_state(raw, unknown=unknown)
    except ValueError as e:
        _fail("position", str(e))


def _read_pending(pending, raw, n, variants):
    """Fill the decision fields of raw; returns the conflict strengths given (or None)."""
    raw.update(phase=PH_ACTION, placed=NONE, unif=NONE, c_kind=NO_CONFLICT, c_colour=0,
               c_attacker=0, c_defender=0, c_att_sq=NONE, c_def_sq=NONE, c_att_base=0,
               c_def_base=0, c_att_commit=0, c_stage=0, wars=0, t_trader=NONE)
    if pending is None:
        if raw["actions_left"] == 0:
            _fail("actions_left", "0 actions left, but no decision is pending; a turn in its "
                                  "action decision has 1 or 2 actions left")
        return None
    _check_keys(pending, PENDING_KEYS, "pending")
    decision = pending.get("decision")
    if decision not in DECISIONS:
        _fail("pending.decision", f"{excerpt(decision)} is not a decision ({', '.join(DECISIONS)})")
    if decision == "building" and "buildings" not in variants:
        _fail("pending.decision", "'building' needs the \"buildings\" variant")
    phase = DECISIONS.index(decision)
    raw["phase"] = phase
    if phase == PH_ACTION:
        if len(pending) > 1:
            _fail("pending", "an \"action\" decision carries nothing else; leave \"pending\" out")
        if raw["actions_left"] == 0:
            _fail("actions_left", "0 actions left in an action decision")
        return None
    if phase == PH_OVER:
        raw["actions_left"] = 0         # nothing is left to do in a finished game
    elif raw["actions_left"] == 2:
        _fail("actions_left", f"2 actions left, but a {decision!r} decision is pending: an "
                              "action is being resolved, so 1 (the turn's first action) or 0 "
                              "(its second) is left")
    _read_pending_squares(pending, raw, phase)
    conflict = pending.get("conflict")
    strengths = None
    if phase == PH_SUPPORT:
        if conflict is None:
            _fail("pending.conflict", "a support decision needs the conflict being resolved")
        strengths = _read_conflict(conflict, raw, n)
    elif conflict is not None:
        _fail("pending.conflict", f"a conflict is resolved only in a support decision, not in "
                                  f"{decision!r}")
    _check_pending_fits(raw, phase, decision)
    return strengths


def _read_pending_squares(pending, raw, phase):
    """The squares a pending decision names: the tile just placed, the unification tile
    and its wars, the trader whose owner takes treasures."""
    squares = raw["squares"]
    sq = notation.square_name
    if "placed" in pending:
        i = _square(pending["placed"], "pending.placed")
        # After a monument the placed tile is face down while the treasures are handed out.
        flipped = phase == PH_TREASURE and is_face_down(squares[i])
        if not is_tile(squares[i]) and not flipped:
            _fail("pending.placed", f"{sq(i)} holds {describe(squares[i])}, not a face-up tile")
        raw["placed"] = i
    if "unification" in pending:
        i = _square(pending["unification"], "pending.unification")
        if not is_tile(squares[i]):
            _fail("pending.unification", f"{sq(i)} holds {describe(squares[i])}, not a "
                                         "face-up tile")
        raw["unif"] = i
        # R32: the uniting tile is the tile the current action placed.
        if "placed" not in pending:
            raw["placed"] = i
        elif raw["placed"] != i:
            _fail("pending.placed", f"{sq(raw['placed'])}, but the tile just placed is the "
                                    f"unification tile {sq(i)} (R32)")
    if "wars_left" in pending:
        wl = pending["wars_left"]
        if not isinstance(wl, list):
            _fail("pending.wars_left", "expected a list of colours")
        for k, c in enumerate(wl):
            raw["wars"] |= 1 << _colour(c, f"pending.wars_left[{k}]")
        if raw["wars"] and raw["unif"] == NONE:
            _fail("pending.wars_left", "wars need a unification tile (pending.unification)")
    if "trader" in pending:
        i = _square(pending["trader"], "pending.trader")
        if not (is_leader(squares[i]) and leader_of(squares[i])[1] == GREEN):
            _fail("pending.trader", f"{sq(i)} holds {describe(squares[i])}, not a trader")
        raw["t_trader"] = i


def _check_pending_fits(raw, phase, decision):
    """What each kind of decision needs of the squares named, and what it cannot have."""
    if phase == PH_WAR_ORDER:
        if raw["unif"] == NONE:
            _fail("pending.unification", "a war_order decision needs the unification tile")
        if bin(raw["wars"]).count("1") < 2:
            _fail("pending.wars_left", "a war_order decision needs at least two colours to "
                                       "choose from")
    if phase in (PH_MONUMENT, PH_BUILDING) and raw["placed"] == NONE:
        _fail("pending.placed", f"a {decision} decision needs the tile just placed")
    if phase == PH_TREASURE and raw["t_trader"] == NONE:
        _fail("pending.trader", "a treasure decision needs the trader whose owner chooses")
    if phase != PH_TREASURE and raw["t_trader"] != NONE:
        _fail("pending.trader", f"a trader is named only in a treasure decision, not in "
                                f"{decision!r}")
    if phase in (PH_MONUMENT, PH_TREASURE, PH_OVER, PH_BUILDING) and raw["unif"] != NONE:
        _fail("pending.unification", f"the unification tile is gone once the wars are over "
                                     f"(decision {decision!r})")
    if raw["placed"] != NONE and (phase == PH_OVER or raw["c_kind"] == REVOLT):
        _fail("pending.placed", "no tile is being placed " + (
            "once the game is over" if phase == PH_OVER else
            "in a revolt: it follows a leader's move (R47)"))


def _read_conflict(conflict, raw, n):
    _check_keys(conflict, CONFLICT_KEYS, "pending.conflict")
    kind = conflict.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        _fail("pending.conflict.kind", f"{excerpt(kind)}; expected \"revolt\" or \"war\"")
    colour = _colour(conflict.get("colour"), "pending.conflict.colour")
    raw["c_kind"], raw["c_colour"] = KINDS[kind], colour
    if kind == "war" and raw["unif"] == NONE:
        _fail("pending.unification", "a war needs the unification tile")
    if kind == "revolt" and raw["unif"] != NONE:
        _fail("pending.unification", "a revolt has no unification tile")
    sides = {}
    for role in ("attacker", "defender"):
        field = f"pending.conflict.{role}"
        side = conflict.get(role)
        _check_keys(side, SIDE_KEYS if role == "attacker" else SIDE_KEYS[:3], field)
        p = _int(side.get("player"), f"{field}.player", 0, n - 1)
        if "leader" not in side:
            _fail(f"{field}.leader", "missing (the square of the leader in conflict)")
        i = _square(side["leader"], f"{field}.leader")
        if raw["squares"][i] != leader_code(p, colour):
            _fail(f"{field}.leader", f"{notation.square_name(i)} holds "
                                     f"{describe(raw['squares'][i])}, not "
                                     f"player {p}'s {LEADERS[colour]}")
        sides[role] = (p, i, side)
    if sides["attacker"][0] == sides["defender"][0]:
        _fail("pending.conflict.defender.player", "the same player as the attacker")
    if kind == "revolt" and sides["attacker"][0] != raw["active"]:
        _fail("pending.conflict.attacker.player", f"player {sides['attacker'][0]}, but the "
                                                  f"attacker in a revolt is the player to move, "
                                                  f"{raw['active']}, who placed the leader (R48)")
    committed = sides["attacker"][2].get("committed")
    raw["c_attacker"], raw["c_att_sq"] = sides["attacker"][0], sides["attacker"][1]
    raw["c_defender"], raw["c_def_sq"] = sides["defender"][0], sides["defender"][1]
    if committed is None:
        raw["c_stage"], raw["c_att_commit"] = 0, 0
    else:
        raw["c_stage"] = 1
        raw["c_att_commit"] = _int(committed, "pending.conflict.attacker.committed", 0, 6)
    strengths = {}
    for role in ("attacker", "defender"):
        strength = sides[role][2].get("strength")
        strengths[role] = None if strength is None else _int(
            strength, f"pending.conflict.{role}.strength", 0, 176)
    return strengths


def _war_colours(raw, side_labels, side_kingdom):
    """R56/R67: the colours with two leaders in different kingdoms touching the unification
    tile (sides computed without it), as the core finds them."""
    touching = {side_labels[j] for j in neighbours(raw["unif"])
                if side_labels[j] is not None and side_kingdom[side_labels[j]]}
    wars = set()
    if len(touching) < 2:
        return wars
    for c in range(4):
        sides = {side_labels[raw["leader"][p][c]] for p in range(raw["players"])
                 if raw["leader"][p][c] != NONE} & touching
        if len(sides) >= 2:
            wars.add(c)
    return wars


def _check_wars(raw, side_labels, side_kingdom):
    """The wars of a war_order or war support decision are the wars the board holds."""
    sq = notation.square_name
    unif = sq(raw["unif"])
    real = _war_colours(raw, side_labels, side_kingdom)
    listed = {c for c in range(4) if raw["wars"] & (1 << c)}
    fighting = raw["c_colour"] if raw["phase"] == PH_SUPPORT else None
    for c in sorted(listed):
        if c == fighting:
            _fail("pending.wars_left", f"{COLOURS[c]} is the war being fought; wars_left lists "
                                       "the others")
        if c not in real:
            _fail("pending.wars_left", f"{COLOURS[c]} is no war at the unification tile {unif}: "
                                       f"no two {LEADERS[c]}s stand on two sides of it (R56)")
    for c in sorted(real - listed - {fighting}):
        _fail("pending.wars_left", f"{COLOURS[c]} is a war at the unification tile {unif} "
                                   f"too (two {LEADERS[c]}s on two sides of it); list it (R59)")


def _attacker_by_r60(raw, owners):
    """R60: the active player if he owns one of the two leaders, else the first owner
    clockwise from him."""
    n = raw["players"]
    for k in range(n):
        q = (raw["active"] + k) % n
        if q in owners:
            return q
    return None


def _check_kingdoms(game, raw):
    """On the loaded game: no kingdom holds two leaders of a colour except a pending
    conflict's (R3, R4), and the wars listed are the wars the board holds."""
    sq = notation.square_name
    phase = raw["phase"]
    if raw["unif"] != NONE:
        # During wars each side is a kingdom of its own (R57).
        side_labels, side_kingdom = game.regions(without=raw["unif"])
    else:
        side_labels, side_kingdom = game.regions()
    revolt = (raw["c_att_sq"], raw["c_def_sq"]) if raw["c_kind"] == REVOLT else ()
    for c in range(4):
        where = {}
        for p in range(raw["players"]):
            i = raw["leader"][p][c]
            if i == NONE:
                continue
            j = where.get(side_labels[i])
            if j is not None and not (c == raw["c_colour"] and i in revolt and j in revolt):
                q = leader_of(raw["squares"][j])[0]
                _fail(f"squares.{sq(i)}", f"{LEADERS[c]}:{p} is in the same kingdom as "
                                          f"{LEADERS[c]}:{q} on {sq(j)}; a pending "
                                          "conflict must be given in \"pending\"")
            where[side_labels[i]] = i
    if phase == PH_WAR_ORDER or (phase == PH_SUPPORT and raw["c_kind"] == WAR):
        _check_wars(raw, side_labels, side_kingdom)


def _fill_strengths(game, raw, strengths):
    """A support decision on the loaded game: the conflict's leaders stand where the
    conflict needs them; the board strengths (R49, R61) into raw, checked against those
    the position gives."""
    sq = notation.square_name
    att, dfn = raw["c_att_sq"], raw["c_def_sq"]
    colour = raw["c_colour"]
    if raw["c_kind"] == REVOLT:
        labels, _ = game.regions()
        if labels[att] != labels[dfn]:
            _fail("pending.conflict", f"the revolt's leaders on {sq(att)} and {sq(dfn)} "
                                      "are not in one kingdom")
        # R49: a revolt's board strength is the temples next to each leader.
        bases = [sum(raw["squares"][j] == TILE0 + RED for j in neighbours(i))
                 for i in (att, dfn)]
    else:
        side_labels, _ = game.regions(without=raw["unif"])
        touching = {side_labels[j] for j in neighbours(raw["unif"])} - {None}
        for role, i in (("attacker", att), ("defender", dfn)):
            if side_labels[i] not in touching:
                _fail(f"pending.conflict.{role}.leader",
                      f"the leader on {sq(i)} is on no side of the unification tile "
                      f"{sq(raw['unif'])}")
        if side_labels[att] == side_labels[dfn]:
            _fail("pending.conflict", f"the war's leaders on {sq(att)} and {sq(dfn)} are "
                                      "on the same side of the unification tile")
        first = _attacker_by_r60(raw, {raw["c_attacker"], raw["c_defender"]})
        if first != raw["c_attacker"]:
            _fail("pending.conflict.attacker.player",
                  f"player {raw['c_attacker']}, but R60 makes player {first} the attacker "
                  f"(the player to move if he owns one of the two {LEADERS[colour]}s, else "
                  "the first owner clockwise from him)")
        # R61: a war's board strength is the tiles of its colour on each leader's side.
        bases = [sum(1 for j in range(NSQ) if side_labels[j] == side_labels[i]
                     and raw["squares"][j] == TILE0 + colour) for i in (att, dfn)]
    for role, key, base in (("attacker", "c_att_base", bases[0]),
                            ("defender", "c_def_base", bases[1])):
        if strengths[role] is not None and strengths[role] != base:
            _fail(f"pending.conflict.{role}.strength",
                  f"{strengths[role]} given, but the board gives {base}")
        raw[key] = base


def _check_options(game, raw):
    """On the loaded game: the pending decision can be taken (a treasure to take, a
    legal option, a monument or building to choose)."""
    sq = notation.square_name
    phase = raw["phase"]
    if phase == PH_TREASURE:
        labels, _ = game.regions()
        region = labels[raw["t_trader"]]
        count = sum(1 for i in range(NSQ) if raw["treasure"][i] and labels[i] == region)
        if count < 2:
            _fail("pending.trader", f"the trader's kingdom holds {count} treasure(s); a "
                                    "treasure is taken only from a kingdom with 2 or more")
    if phase not in (PH_OVER,) and not game.legal_actions():
        _fail("pending", f"the {DECISIONS[phase]!r} decision has no legal option here")
    if phase == PH_MONUMENT and len(game.legal_actions()) < 2:
        _fail("pending.placed", f"no monument can be built with the tile on "
                                f"{sq(raw['placed'])}")
    if phase == PH_BUILDING and len(game.legal_actions()) < 2:
        _fail("pending.placed", f"no building can be put on a line through the tile on "
                                f"{sq(raw['placed'])} (R95, R96)")
