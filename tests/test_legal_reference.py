"""The compiled move generator against a slow, plain reading of the rules.

The reference below recomputes regions from scratch for every candidate (R3, R4) and
applies R16-R22 (leaders), R28-R31 (tiles), R37-R40 (catastrophes; R39/R100 with
buildings) and R43 (swaps) literally, so any shortcut in the compiled generator that
changes the set shows up.  Support decisions are checked against R49/R61 (strengths from
the board) and R50/R62 (with R93-R94 in the English variant), building decisions against
R95-R96.  Every board side with every combination of variants is played."""

import itertools
import random

import pytest

import tigris
from tigris import notation
from tigris.boards import layout

EMPTY, CATASTROPHE, LEADER0 = 0, 9, 16


def neighbours(i):
    r, c = divmod(i, 16)
    return [(r + dr) * 16 + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < 11 and 0 <= c + dc < 16]


def regions(squares):
    """R3/R4: {square: region id}, and the set of region ids holding a leader."""
    label, kingdoms, next_id = {}, set(), 0
    for start, code in enumerate(squares):
        if start in label or not (1 <= code <= 8 or code >= LEADER0):
            continue
        todo = [start]
        label[start] = next_id
        while todo:
            j = todo.pop()
            if squares[j] >= LEADER0:
                kingdoms.add(next_id)
            for n in neighbours(j):
                if n not in label and (1 <= squares[n] <= 8 or squares[n] >= LEADER0):
                    label[n] = next_id
                    todo.append(n)
        next_id += 1
    return label, kingdoms


def kingdoms_next_to(i, squares):
    label, kingdoms = regions(squares)
    return {label[n] for n in neighbours(i) if n in label and label[n] in kingdoms}


def reference_actions(g):
    raw = g._raw()
    squares = list(raw["squares"])
    rivers, _, _ = layout(g.board)
    p = raw["active"]
    hand = raw["hand"][p]
    legal = set()
    for i in range(176):
        if squares[i] != EMPTY:
            continue
        for c in range(4):
            if hand[c] and (i in rivers) == (c == 1) and len(kingdoms_next_to(i, squares)) <= 2:
                legal.add(notation.A_TILE + c * 176 + i)
    for c in range(4):
        at = raw["leader"][p][c]
        board = list(squares)
        if at != 255:
            board[at] = EMPTY
            legal.add(notation.A_WITHDRAW + c)
        for i in range(176):
            if (i == at or board[i] != EMPTY or i in rivers
                    or not any(board[n] == 1 for n in neighbours(i))):
                continue
            if len(kingdoms_next_to(i, board)) <= 1:
                legal.add(notation.A_LEADER + c * 176 + i)
    if raw["catastrophes"][p] > 0:
        for i in range(176):
            if squares[i] == EMPTY or (1 <= squares[i] <= 4 and not raw["treasure"][i]
                                       and i not in raw["building"]):
                legal.add(notation.A_CATASTROPHE + i)
    for counts in itertools.product(*(range(h + 1) for h in hand)):
        if 1 <= sum(counts) <= 6:
            legal.add(notation.A_SWAP + notation.SWAP_INDEX[counts])
    legal.add(notation.A_PASS)
    return legal


def reference_support(g):
    """R49 (revolt: temples next to each leader) or R61 (war: face-up tiles of the war colour
    on each side, the unification tile taken away), then R50/R62 and R93-R94."""
    raw = g._raw()
    squares = raw["squares"]
    att, dfn, colour = raw["c_att_sq"], raw["c_def_sq"], raw["c_colour"]
    if raw["c_kind"] == 1:
        base = [sum(squares[n] == 1 for n in neighbours(i)) for i in (att, dfn)]
        support = 0
    else:
        board = list(squares)
        board[raw["unif"]] = EMPTY
        label, _ = regions(board)
        base = [sum(1 for j in label if label[j] == label[i] and board[j] == 1 + colour)
                for i in (att, dfn)]
        support = colour
    assert [raw["c_att_base"], raw["c_def_base"]] == base
    have = raw["hand"][g.current_player][support]
    options = set(range(have + 1))
    if "english" in g.variants:
        if raw["c_stage"] == 0:
            options = {n for n in options if n == 0 or base[0] + n > base[1]}
        else:
            total = base[0] + raw["c_att_commit"]
            options = {n for n in options if n == 0 or base[1] + n == total}
    return {notation.A_SUPPORT + n for n in options}


def reference_buildings(g):
    """R95-R96: lines of 3+ face-up tiles of the placed tile's colour through it; a
    building on the board moves only to a strictly longer line and not at all when it
    stands on a line through the placed tile."""
    raw = g._raw()
    squares = raw["squares"]
    placed = raw["placed"]
    colour = squares[placed] - 1

    def line(i, dr, dc):
        r, c = divmod(i, 16)
        cells = [i]
        for sign in (-1, 1):
            rr, cc = r + sign * dr, c + sign * dc
            while 0 <= rr < 11 and 0 <= cc < 16 and squares[rr * 16 + cc] == squares[i]:
                cells.append(rr * 16 + cc)
                rr, cc = rr + sign * dr, cc + sign * dc
        return cells

    lines = [line(placed, 0, 1), line(placed, 1, 0)]
    at = raw["building"][colour]
    legal = {notation.A_NO_BUILDING}
    if at != 255 and any(at in cells for cells in lines):
        return legal
    beat = 2 if at == 255 else max(2, len(line(at, 0, 1)), len(line(at, 1, 0)))
    for cells in lines:
        if len(cells) > beat:
            legal |= {notation.A_BUILDING + colour * 176 + i for i in cells}
    return legal


def test_every_setup_is_played(combo):
    g = tigris.Game(players=2, seed=1, **combo)
    assert g.board == combo["board"] and g.variants == combo["variants"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_move_generator_matches_the_rules(players, combo):
    base = combo == dict(board="classic", variants=())
    checked = {"action": 0, "support": 0, "building": 0}
    for seed in range(6 if base else 2):
        rng = random.Random(seed)
        g = tigris.Game(players=players, seed=seed, **combo)
        step = 0
        while not g.is_over:
            legal = g.legal_actions()
            assert len(legal) == len(set(legal)), "an action listed twice"
            where = f"seed {seed}, step {step}"
            if g.decision == "action" and step % (7 if base else 11) == 0:
                assert set(legal) == reference_actions(g), where
                checked["action"] += 1
            elif g.decision == "support":
                assert set(legal) == reference_support(g), where
                checked["support"] += 1
            elif g.decision == "building":
                assert set(legal) == reference_buildings(g), where
                checked["building"] += 1
            g.apply(rng.choice(legal))
            step += 1
    assert checked["action"] > (50 if base else 10)
    assert checked["support"] > 0
    assert checked["building"] > 0 or "buildings" not in combo["variants"]
