"""Helpers shared by the tests: build ``tigris-position/1`` dicts and games from them on
the classic board, play moves in notation and read the outcome back from the raw state.

Squares are board labels (``"G5"``); RULES.md's ``(row, col)`` converts with ``sq``.
Players are plain indices.  The tests import what they use: ``from helpers import ...``.
"""

import random

import tigris
from tigris import constants, notation
# Square codes and names, re-exported for the tests; NONE: a leader or building off the board.
from tigris.constants import (CATASTROPHE, COLOURS, COLS, DOWN0, EMPTY, LEADER0, LEADERS, NONE,
                              NSQ, ROWS, TILE0)
from tigris.squares import neighbours

SUPPLY = dict(zip(COLOURS, constants.SUPPLY))
TEMPLES = ("K1", "B2", "P2", "F3", "N5", "I7", "B8", "O9", "F10", "K11")

UP = {c: TILE0 + i for i, c in enumerate(COLOURS)}      # face-up tile codes
DOWN = {c: DOWN0 + i for i, c in enumerate(COLOURS)}    # face-down tile codes


# ---------------------------------------------------------------------------
# Squares
# ---------------------------------------------------------------------------

def sq(row, col):
    """RULES.md (row, col) -> board label: sq(4, 6) == "G5"."""
    return notation.square_name(row * COLS + col)


def idx(label):
    return notation.square_index(label)


def down(colour, top_left):
    """Squares of a face-down 2x2 (monument) whose top-left square is `top_left`."""
    i = idx(top_left)
    return {notation.square_name(j): f"{colour}:down" for j in (i, i + 1, i + COLS, i + COLS + 1)}


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------

def tiles(red=0, blue=0, green=0, black=0):
    """{colour: count} with no limit: a bag, a score, tiles out of the game."""
    return {"red": red, "blue": blue, "green": green, "black": black}


score = tiles


def hand(red=0, blue=0, green=0, black=0):
    """A hand, {colour: count}, of at most 6 tiles (``tiles`` for more)."""
    counts = tiles(red, blue, green, black)
    assert sum(counts.values()) <= 6, counts
    return counts


SIX = hand(red=2, blue=1, green=1, black=2)


ZERO = {"red": 0, "blue": 0, "green": 0, "black": 0, "treasures": 0}


def pts(**kw):
    """A score as ``Game.score`` returns it: colours and treasures, zero unless given."""
    d = dict(ZERO)
    d.update(kw)
    return d


def _colour_of(token):
    return token.split("+")[0].split(":")[0]


def _monuments(monuments):
    """{colours: top-left} or a list of {"colours", "at"} dicts (or pairs) -> the list."""
    if isinstance(monuments, dict):
        monuments = monuments.items()
    return [dict(m) if isinstance(m, dict) else {"colours": m[0], "at": m[1]}
            for m in monuments]


def position(squares, hands, *, to_move=0, actions_left=2, scores=None, treasures=None,
             catastrophes=None, bag=None, out=None, swapped=None, taken=(), monuments=(),
             variants=(), board="classic", pending=None, turn=0):
    """A full-knowledge tigris-position/1 dict: the 10 starting temples (with treasures,
    except those in `taken`) plus `squares` (label -> token; None removes a temple).
    `monuments` maps colours to the top-left label, or lists {"colours", "at"} dicts.
    `swapped[p]` gives player p's face-down discards.  With a `bag` and no `out`, every
    tile not on the board, in a hand, in a discard pile or in the bag is out of the game.
    Catastrophes on the board are charged to the last players unless `catastrophes` is
    given."""
    board_squares = {t: "red" if t in taken else "red+treasure" for t in TEMPLES}
    board_squares.update(squares)
    board_squares = {k: v for k, v in board_squares.items() if v is not None}
    n = len(hands)
    swapped = swapped or [None] * n
    if catastrophes is None:
        catastrophes = [2] * n
        spent = sum(v == "catastrophe" for v in board_squares.values())
        for p in reversed(range(n)):
            while spent and catastrophes[p]:
                catastrophes[p] -= 1
                spent -= 1
    players = []
    for p in range(n):
        entry = {"hand": dict(hands[p]),
                 "score": dict(scores[p]) if scores else score(),
                 "treasures": treasures[p] if treasures else 0,
                 "catastrophes": catastrophes[p],
                 "swapped_face_down": sum(swapped[p].values()) if swapped[p] else 0}
        if swapped[p]:
            entry["swapped_colours"] = dict(swapped[p])
        players.append(entry)
    if bag is not None:
        bag = tiles(**bag)
        if out is None:
            out = {}
            for c in COLOURS:
                on_board = sum(1 for v in board_squares.values() if _colour_of(v) == c)
                out[c] = (SUPPLY[c] - on_board - sum(h[c] for h in hands) - bag[c]
                          - sum(s[c] for s in swapped if s))
                assert out[c] >= 0, (c, out[c])
    d = {"format": "tigris-position/1", "board": board, "variants": list(variants),
         "squares": board_squares, "monuments": _monuments(monuments), "players": players,
         "bag": bag, "out_of_game": tiles(**(out or {})), "to_move": to_move,
         "actions_left": actions_left, "turn": turn}
    if pending is not None:
        d["pending"] = pending
    return d


def game(*args, **kwargs):
    """The game of ``position(*args, **kwargs)``, seeded 0."""
    return tigris.Game.from_position(position(*args, **kwargs), seed=0)


# ---------------------------------------------------------------------------
# Playing
# ---------------------------------------------------------------------------

def legal(g):
    return {g.action_str(a) for a in g.legal_actions()}


def play(g, *moves):
    """Apply moves in notation, checking first that each is legal at that moment."""
    for m in moves:
        options = legal(g)
        assert m in options, (f"{m!r} is not legal now ({g.decision} by player "
                              f"{g.current_player}); legal: {sorted(options)[:30]}")
        g.apply(m)


# ---------------------------------------------------------------------------
# Reading the state
# ---------------------------------------------------------------------------

def code(g, label):
    return g.raw_state()["squares"][idx(label)]


def treasure_on(g, label):
    return g.raw_state()["treasure"][idx(label)] == 1


def leader_at(g, p, name):
    """Label of player p's leader, or None when it is in supply."""
    i = g.raw_state()["leader"][p][LEADERS.index(name)]
    return None if i == NONE else notation.square_name(i)


def out(g):
    return dict(zip(COLOURS, g.raw_state()["out"]))


def bag_size(g):
    return sum(g.raw_state()["bag"])


def hand_size(g, p):
    return sum(g.hand(p).values())


def unseen_pool(raw, p):
    """What player p cannot see in the raw state, as colour totals: the bag and the
    others' hands and face-down discards."""
    pool = list(raw["bag"])
    for q in range(raw["players"]):
        if q != p:
            for c in range(4):
                pool[c] += raw["hand"][q][c] + raw["swapped"][q][c]
    return pool


def finished_random_games(players, seeds, **setup):
    """Games of uniformly random decisions played to the end, one per seed."""
    for seed in seeds:
        g = tigris.Game(players=players, seed=seed, **setup)
        g.random_playout(seed)
        assert g.is_over
        yield g


def regions(g, skip=None):
    """R3/R4 from the board itself: {square: region number} over the squares that connect
    (tiles face up or down, leaders), treating `skip` as empty; and the set of regions
    holding a leader (kingdoms)."""
    return board_regions(g.raw_state()["squares"], None if skip is None else idx(skip))


def board_regions(squares, skip=None):
    """The same from square codes, square index `skip` (if any) as empty."""
    def connects(i):
        v = squares[i]
        return i != skip and (TILE0 <= v < DOWN0 + 4 or v >= LEADER0)

    label, kingdoms, r = {}, set(), -1
    for start in range(NSQ):
        if not connects(start) or start in label:
            continue
        r += 1
        stack = [start]
        label[start] = r
        while stack:
            i = stack.pop()
            if squares[i] >= LEADER0:
                kingdoms.add(r)
            for j in neighbours(i):
                if connects(j) and j not in label:
                    label[j] = r
                    stack.append(j)
    return label, kingdoms


def same_region(g, a, b, skip=None):
    """R3: a and b both connect (tiles face up or down, leaders) and are connected."""
    labels, _ = regions(g, skip)
    return labels.get(idx(a)) is not None and labels.get(idx(a)) == labels.get(idx(b))


def random_game(seed, moves, **setup):
    """A game of `setup` (players, board, variants) dealt from `seed` after `moves` random
    decisions, drawn by Python's generator from `seed` (fewer if the game ends)."""
    g = tigris.Game(seed=seed, **setup)
    rng = random.Random(seed)
    for _ in range(moves):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    return g


# A quick ismcts bot for runs that only need data of the right shape.
FAST_BOT = 'kind = "ismcts"\niterations = 60\nrollout_depth = 4\n'


def tiny_selfplay(folder, games=4, positions=6, seed=0):
    """A small self-play run of ``FAST_BOT`` in `folder`/selfplay (labels of 100
    iterations), its folder returned."""
    from tigris.runs import selfplay

    bot = folder / "fast.toml"
    bot.write_text(FAST_BOT)
    s = selfplay.settings(games=games, bot=str(bot), positions=positions, label_iterations=100, seed=seed)
    selfplay.run(s, folder / "selfplay", progress=False)
    return folder / "selfplay"


def greedy_record(players, moves, seed=5):
    """The record of the first `moves` decisions of a greedy game."""
    from tigris import bots, record

    g = tigris.Game(players=players, seed=seed)
    seats = [bots.make("greedy", seed=s) for s in range(players)]
    for _ in range(moves):
        g.apply(seats[g.current_player].choose(g))
    return record.to_record(g, bots=["greedy"] * players)
