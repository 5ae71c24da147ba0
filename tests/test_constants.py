"""The game's constants: tigris.constants against the compiled core.

The numbers come from the core (``cpdef enum`` in ``_core.pxd``); what the Python side adds
-- names by index, the action space's layout, the swap and monument tables -- must agree
with what the core does, and no module may write a constant again."""

import ast
import random
import re
from pathlib import Path

import pytest

import tigris
from tigris import _core, constants
from tigris.constants import (A_BUILDING, A_CATASTROPHE, A_LEADER, A_MONUMENT, A_NO_BUILDING,
                              A_NO_MONUMENT, A_PASS, A_SUPPORT, A_SWAP, A_TILE, A_TREASURE,
                              A_WAR, A_WITHDRAW, BLACK, BLUE, COLS, CATASTROPHE, COLOURS, CONFLICTS,
                              DECISIONS, DOWN0, EMPTY, GREEN, HAND, LEADER0, LEADERS, MONUMENTS,
                              N_ACTIONS, N_SWAPS, NCOL, NMONUMENTS, NONE, NSQ, RED, SWAPS,
                              SWAP_INDEX, TILE0, VARIANTS)
from tigris.notation import square_index
from tigris.squares import block, leader_code, neighbours

from helpers import game, hand

ROOT = Path(__file__).resolve().parent.parent


def test_every_number_is_the_cores():
    numbers = [name for name in constants.__all__ if isinstance(getattr(constants, name), int)]
    assert len(numbers) > 20 and "NCOL" in numbers               # the core's numbers are there
    for name in numbers:
        assert getattr(constants, name) == getattr(_core, name), name


def test_names_follow_the_cores_numbering():
    assert len(COLOURS) == len(LEADERS) == NCOL
    assert [COLOURS[c] for c in (RED, BLUE, GREEN, BLACK)] == ["red", "blue", "green", "black"]
    assert LEADERS[RED] == "priest" and LEADERS[BLACK] == "king"
    assert len(DECISIONS) == constants.PH_OVER + 1
    for name in DECISIONS:
        assert DECISIONS.index(name) == getattr(constants, "PH_" + name.upper())
    assert CONFLICTS[constants.REVOLT] == "revolt" and CONFLICTS[constants.WAR] == "war"
    assert CONFLICTS[constants.NO_CONFLICT] is None
    for name, bit in VARIANTS.items():
        assert tigris.Game(variants=[name]).variants == (name,)
        assert bit == getattr(constants, "V_" + name.upper())


def test_the_action_space_is_laid_out_end_to_end():
    blocks = [(A_TILE, NCOL * NSQ), (A_LEADER, NCOL * NSQ), (A_WITHDRAW, NCOL),
              (A_CATASTROPHE, NSQ), (A_SWAP, N_SWAPS), (A_PASS, 1), (A_SUPPORT, HAND + 1),
              (A_WAR, NCOL), (A_MONUMENT, NMONUMENTS * NSQ), (A_NO_MONUMENT, 1),
              (A_TREASURE, NSQ), (A_BUILDING, NCOL * NSQ), (A_NO_BUILDING, 1)]
    end = 0
    for start, size in blocks:
        assert start == end
        end = start + size
    assert end == N_ACTIONS


def test_swap_and_monument_tables():
    assert len(SWAPS) == N_SWAPS == len(set(SWAPS))
    assert set(SWAPS) == {(r, b, g, k) for r in range(7) for b in range(7) for g in range(7)
                          for k in range(7) if 1 <= r + b + g + k <= HAND}
    assert all(SWAP_INDEX[counts] == k for k, counts in enumerate(SWAPS))
    assert len(MONUMENTS) == NMONUMENTS
    assert set(MONUMENTS) == {(a, b) for a in range(NCOL) for b in range(a + 1, NCOL)}


def test_the_core_offers_the_swaps_of_the_table():
    held = (2, 1, 0, 3)
    g = game({}, [hand(red=2, blue=1, black=3), hand(red=6)])
    offered = {a - A_SWAP for a in g.legal_actions() if A_SWAP <= a < A_PASS}
    assert offered == {k for k, counts in enumerate(SWAPS)
                       if all(counts[c] <= held[c] for c in range(NCOL))}


def test_the_core_writes_the_square_codes():
    """Random games: every tile, leader and catastrophe action leaves on its square the
    code tigris.constants gives it, and a built monument's four tiles lie face down."""
    seen = set()
    for seed in range(6):
        rng = random.Random(seed)
        g = tigris.Game(players=2 + seed % 3, seed=seed)
        while not g.is_over:
            a = rng.choice(g.legal_actions())
            player = g.current_player
            g.apply(a)
            raw = g.raw_state()
            if a < A_LEADER:
                c, i = divmod(a - A_TILE, NSQ)
                if raw["squares"][i] == TILE0 + c:
                    seen.add("tile")        # else removed at once by a war or a monument
            elif a < A_WITHDRAW:
                c, i = divmod(a - A_LEADER, NSQ)
                if raw["leader"][player][c] == i:
                    assert raw["squares"][i] == leader_code(player, c) >= LEADER0
                    seen.add("leader")
            elif a < A_CATASTROPHE:
                assert raw["leader"][player][a - A_WITHDRAW] == NONE
                seen.add("withdraw")
            elif a < A_SWAP:
                assert raw["squares"][a - A_CATASTROPHE] == CATASTROPHE
                seen.add("catastrophe")
            for m, top in enumerate(raw["monument"]):
                if top != NONE:
                    codes = {raw["squares"][i] for i in block(top)}
                    assert len(codes) == 1 and codes.pop() - DOWN0 in MONUMENTS[m]
        assert all(code == EMPTY or code < LEADER0 or code - LEADER0 < 4 * g.players
                   for code in raw["squares"])
    assert seen == {"tile", "leader", "withdraw", "catastrophe"}


def test_a_monument_by_its_action_id():
    """R69: the blue tile on P5 completes a blue 2x2 at O4; the blue-green monument there
    turns its four tiles face down."""
    g = game({"O4": "blue", "P4": "blue", "O5": "blue"}, [hand(blue=2, red=4), hand(red=6)])
    top = square_index("O4")
    g.apply(A_TILE + BLUE * NSQ + top + COLS + 1)
    m = MONUMENTS.index((BLUE, GREEN))
    assert A_MONUMENT + m * NSQ + top in g.legal_actions()
    g.apply(A_MONUMENT + m * NSQ + top)
    raw = g.raw_state()
    assert [raw["squares"][i] for i in block(top)] == [DOWN0 + BLUE] * 4
    assert raw["monument"][m] == top


def test_neighbours_are_the_orthogonal_squares():
    assert sorted(neighbours(0)) == [1, 16]
    assert sorted(neighbours(70)) == [54, 69, 71, 86]
    assert sorted(neighbours(NSQ - 1)) == [NSQ - 17, NSQ - 2]
    assert block(0) == (0, 1, 16, 17) and block(15) is None and block(NSQ - 16) is None


def _python_files():
    for folder in ("src/tigris", "tests"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def _plain(value):
    return tuple(_plain(v) for v in value) if isinstance(value, (list, tuple)) else value


def constants_written(source):
    """(line, name) of every assignment in ``source`` that writes a constant of
    tigris.constants by hand: its name given its value as a literal, or several of its
    names unpacked at once (``A, B = range(2)``)."""
    names = set(constants.__all__)
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, (ast.Tuple, ast.List)):
                leaves = [t.id for t in target.elts if isinstance(t, ast.Name)]
                if isinstance(node.value, (ast.Tuple, ast.List)) and len(node.value.elts) == len(leaves):
                    pairs = list(zip(leaves, node.value.elts))
                elif len(names.intersection(leaves)) >= 2:
                    found += [(node.lineno, name) for name in leaves if name in names]
                    continue
                else:
                    pairs = []
            elif isinstance(target, ast.Name):
                pairs = [(target.id, node.value)]
            else:
                pairs = []
            for name, value in pairs:
                if name not in names:
                    continue
                try:
                    literal = ast.literal_eval(value)
                except ValueError:
                    continue
                if _plain(literal) == _plain(getattr(constants, name)):
                    found.append((node.lineno, name))
    return found


def test_the_check_finds_constants_written_again():
    source = ("NONE = 255\nEMPTY, TILE0, DOWN0 = 0, 1, 5\nA, PH_ACTION, PH_SUPPORT = range(3)\n"
              "COLOURS = ['red', 'blue', 'green', 'black']\nREVOLT = {'I5': 'priest:1'}\n"
              "NSQ = other.NSQ\nSUPPLY = list(constants.SUPPLY)\n")
    assert constants_written(source) == [(1, "NONE"), (2, "EMPTY"), (2, "TILE0"), (2, "DOWN0"),
                                         (3, "PH_ACTION"), (3, "PH_SUPPORT"), (4, "COLOURS")]


@pytest.mark.slow
@pytest.mark.parametrize("path", list(_python_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_writes_a_constant_again(path):
    """The constants are imported from tigris.constants, never written anew (a copy would
    drift from the core)."""
    if path == ROOT / "src" / "tigris" / "constants.py":
        return
    found = constants_written(path.read_text(encoding="utf-8"))
    assert not found, f"written again (import them from tigris.constants): {found}"


@pytest.mark.parametrize("path", sorted(p for p in (ROOT / "cython_core").rglob("*")
                                         if p.suffix in (".pyx", ".pxi")),
                         ids=lambda p: p.name)
def test_no_compiled_module_writes_a_constant_again(path):
    """The compiled modules cimport the numbers from _core.pxd; of the Python names, only
    _core.pyx builds the tables it owns (SWAPS, MONUMENTS)."""
    owned = {"SWAPS", "MONUMENTS"} if path.name == "_core.pyx" else set()
    names = set(constants.__all__) - owned
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        target = line.split("=")[0].strip() if re.match(r"[A-Z_]+( *, *[A-Z_]+)* *=[^=]", line) else ""
        written = names.intersection(t.strip() for t in target.split(","))
        assert not written, f"line {number} writes {sorted(written)}; cimport it from _core.pxd"
