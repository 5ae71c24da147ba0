"""The compiled move generator against a slow, plain reading of the rules.

The reference below computes regions from scratch for every board it reads (R3, R4) and
applies R16-R22 (leaders), R28-R31 (tiles), R37-R40 (catastrophes; R39/R100 with
buildings) and R43 (swaps) literally, so any shortcut in the compiled generator that
changes the set shows up.  Support decisions are checked against R49/R61 (strengths from
the board) and R50/R62 (with R93-R94 in the English variant), building decisions against
R95-R96.  Every board side with every combination of variants is played."""

import itertools
import random

import pytest

import tigris
from tigris.boards import layout
from tigris.constants import (A_BUILDING, A_CATASTROPHE, A_LEADER, A_NO_BUILDING, A_PASS,
                              A_SUPPORT, A_SWAP, A_TILE, A_WITHDRAW, BLUE, COLS, DOWN0, EMPTY,
                              LEADER0, NONE, NSQ, RED, REVOLT, ROWS, SWAP_INDEX, TILE0)
from tigris.squares import neighbours

from helpers import board_regions

TEMPLE = TILE0 + RED


def connects(code):
    """R3: tiles (face up or down) and leaders connect; catastrophes do not."""
    return TILE0 <= code < DOWN0 + 4 or code >= LEADER0


def regions(squares):
    """R3/R4: {square: region id}, and the set of region ids holding a leader."""
    return board_regions(squares)


def kingdoms_next_to(i, found):
    """The kingdoms (regions with a leader, R4) next to square `i`, of the board's
    regions `found` (``regions``: a function of the board alone, so one board's serve
    all its candidates)."""
    label, kingdoms = found
    return {label[n] for n in neighbours(i) if n in label and label[n] in kingdoms}


def reference_actions(g):
    raw = g.raw_state()
    squares = list(raw["squares"])
    rivers, _, _ = layout(g.board)
    p = raw["active"]
    hand = raw["hand"][p]
    legal = set()
    found = regions(squares)
    for i in range(NSQ):
        if squares[i] != EMPTY:
            continue
        for c in range(4):
            if (hand[c] and (i in rivers) == (c == BLUE)
                    and len(kingdoms_next_to(i, found)) <= 2):
                legal.add(A_TILE + c * NSQ + i)
    for c in range(4):
        at = raw["leader"][p][c]
        board = list(squares)
        if at != NONE:
            board[at] = EMPTY
            legal.add(A_WITHDRAW + c)
        found = regions(board)                  # the board without the leader moved (R18)
        for i in range(NSQ):
            if (i == at or board[i] != EMPTY or i in rivers
                    or not any(board[n] == TEMPLE for n in neighbours(i))):
                continue
            if len(kingdoms_next_to(i, found)) <= 1:
                legal.add(A_LEADER + c * NSQ + i)
    if raw["catastrophes"][p] > 0:
        for i in range(NSQ):
            if squares[i] == EMPTY or (TILE0 <= squares[i] < DOWN0 and not raw["treasure"][i]
                                       and i not in raw["building"]):
                legal.add(A_CATASTROPHE + i)
    for counts in itertools.product(*(range(h + 1) for h in hand)):
        if 1 <= sum(counts) <= 6:
            legal.add(A_SWAP + SWAP_INDEX[counts])
    legal.add(A_PASS)
    return legal


def reference_support(g):
    """R49 (revolt: temples next to each leader) or R61 (war: face-up tiles of the war colour
    on each side, the unification tile taken away), then R50/R62 and R93-R94."""
    raw = g.raw_state()
    squares = raw["squares"]
    att, dfn, colour = raw["c_att_sq"], raw["c_def_sq"], raw["c_colour"]
    if raw["c_kind"] == REVOLT:
        base = [sum(squares[n] == TEMPLE for n in neighbours(i)) for i in (att, dfn)]
        support = 0
    else:
        board = list(squares)
        board[raw["unif"]] = EMPTY
        label, _ = regions(board)
        base = [sum(1 for j in label if label[j] == label[i] and board[j] == TILE0 + colour)
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
    return {A_SUPPORT + n for n in options}


def reference_buildings(g):
    """R95-R96: lines of 3+ face-up tiles of the placed tile's colour through it; a
    building on the board moves only to a strictly longer line and not at all when it
    stands on a line through the placed tile."""
    raw = g.raw_state()
    squares = raw["squares"]
    placed = raw["placed"]
    colour = squares[placed] - TILE0

    def line(i, dr, dc):
        r, c = divmod(i, COLS)
        cells = [i]
        for sign in (-1, 1):
            rr, cc = r + sign * dr, c + sign * dc
            while 0 <= rr < ROWS and 0 <= cc < COLS and squares[rr * COLS + cc] == squares[i]:
                cells.append(rr * COLS + cc)
                rr, cc = rr + sign * dr, cc + sign * dc
        return cells

    lines = [line(placed, 0, 1), line(placed, 1, 0)]
    at = raw["building"][colour]
    legal = {A_NO_BUILDING}
    if at != NONE and any(at in cells for cells in lines):
        return legal
    beat = 2 if at == NONE else max(2, len(line(at, 0, 1)), len(line(at, 1, 0)))
    for cells in lines:
        if len(cells) > beat:
            legal |= {A_BUILDING + colour * NSQ + i for i in cells}
    return legal


def test_every_setup_is_played(combo):
    g = tigris.Game(players=2, seed=1, **combo)
    assert g.board == combo["board"] and g.variants == combo["variants"]


@pytest.mark.slow
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
            if g.decision == "action":
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
    assert checked["action"] > (300 if base else 100)
    assert checked["support"] > 0
    assert checked["building"] > 0 or "buildings" not in combo["variants"]
