"""The compiled move generator against a slow, plain reading of the rules.

The reference below recomputes regions from scratch for every candidate (R3, R4) and
applies R16-R22 (leaders), R28-R31 (tiles), R37-R40 (catastrophes) and R43 (swaps)
literally, so any shortcut in the compiled generator that changes the set shows up."""

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
            if squares[i] == EMPTY or (1 <= squares[i] <= 4 and not raw["treasure"][i]):
                legal.add(notation.A_CATASTROPHE + i)
    for counts in itertools.product(*(range(h + 1) for h in hand)):
        if 1 <= sum(counts) <= 6:
            legal.add(notation.A_SWAP + notation.SWAP_INDEX[counts])
    legal.add(notation.A_PASS)
    return legal


@pytest.mark.parametrize("players", [2, 3, 4])
def test_move_generator_matches_the_rules(players):
    checked = 0
    for seed in range(6):
        rng = random.Random(seed)
        g = tigris.Game(players=players, seed=seed)
        step = 0
        while not g.is_over:
            legal = g.legal_actions()
            assert len(legal) == len(set(legal)), "an action listed twice"
            if g.decision == "action" and step % 7 == 0:
                assert set(legal) == reference_actions(g), f"seed {seed}, step {step}"
                checked += 1
            g.apply(rng.choice(legal))
            step += 1
    assert checked > 50
