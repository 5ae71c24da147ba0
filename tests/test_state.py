"""The game's public state interface (raw_state, load_raw_state, regions, state_bytes,
apply with draws, redeal) and the layering around it: the compiled Game imports nothing
from the modules that read it."""

import random
import re
from pathlib import Path

import pytest

import tigris
from tigris import _game
from tigris.constants import NSQ
from tigris.notation import square_name

from helpers import game, hand, random_game
from helpers import regions as reference_regions

ROOT = Path(__file__).resolve().parent.parent

# What the compiled Game may import as it is imported: the layers below it.
BELOW_THE_GAME = {"tigris._core", "tigris.boards", "tigris.constants", "tigris.errors",
                  "tigris.notation"}
# ... and inside the methods that need them, when called: the text forms above it.
TEXT_FORMS = {"tigris.legality", "tigris.position", "tigris.render"}


def played(players, seed, moves=40):
    return random_game(seed, moves, players=players)


def imports(source, indent):
    """The tigris modules `source` imports: at the top level (`indent` "") or indented."""
    imported = set(re.findall(rf"^{indent}(?:from|c?import)\s+(tigris(?:\.\w+)?)", source, re.M))
    imported |= {f"tigris.{m.strip()}" for line in re.findall(rf"^{indent}from tigris import (.+)$",
                                                              source, re.M)
                 for m in line.split(",")}
    return imported - {"tigris"}


def test_the_compiled_game_imports_nothing_from_above_as_it_is_imported():
    """The text forms above _game.pyx (positions, the diagram, the reasons for a refusal)
    are imported inside the methods that use them, once the package is loaded: importing
    _game loads none of them, and position.py, which imports Game, forms no cycle."""
    source = (ROOT / "cython_core" / "tigris" / "_game.pyx").read_text(encoding="utf-8")
    assert imports(source, "") <= BELOW_THE_GAME, sorted(imports(source, "") - BELOW_THE_GAME)
    inside = imports(source, r"\s+") - imports(source, "")
    assert inside <= TEXT_FORMS, sorted(inside - TEXT_FORMS)


def test_the_text_forms_are_imported_when_used():
    g = game({}, [hand(red=6), hand(red=6)])
    assert str(g).startswith("Tigris & Euphrates, 2 players")
    h = tigris.Game.from_position(g.to_position())
    assert h.state_bytes() == g.state_bytes() and isinstance(h, tigris.Game)
    with pytest.raises(tigris.IllegalActionError, match=r"^tile green A1: no green tile in hand"):
        g.apply("tile green A1")
    with pytest.raises(tigris.IllegalActionError, match=r"^tile green A1: no green tile in hand"):
        g.parse_action("tile green A1")
    assert not hasattr(_game, "attach")


def test_raw_state_round_trips_and_refuses_bad_fields():
    g = played(3, 2)
    raw = g.raw_state()
    h = tigris.Game(players=3, seed=9)
    h.load_raw_state(raw)
    assert h.state_bytes() == g.state_bytes() and h.raw_state() == raw
    assert not h.history_complete and h.history == []
    raw["squares"][5] = 300
    before = h.state_bytes()
    with pytest.raises(ValueError, match=r"^raw state: squares\[5\]: 300 does not fit"):
        h.load_raw_state(raw)
    assert h.state_bytes() == before


def test_load_raw_state_records_what_is_unknown():
    g = played(2, 3)
    h = tigris.Game(players=2, seed=1)
    h.load_raw_state(g.raw_state(), unknown={"hands": [1], "bag": True})
    assert h.unknown == {"hands": [1], "swapped_colours": [], "bag": True}
    assert h.to_position()["players"][1]["hand"] is None
    before = h.state_bytes()
    for bad, match in (({"hands": [2]}, r"unknown\.hands: player 2 is not in this 2-player"),
                       ({"hands": 5}, r"unknown\.hands: expected a list of players"),
                       ({"cards": [0]}, r"unknown: expected a dict"),
                       ([1], r"unknown: expected a dict")):
        with pytest.raises(ValueError, match=match):
            h.load_raw_state(g.raw_state(), unknown=bad)
        assert h.state_bytes() == before and h.unknown["hands"] == [1]
    h.load_raw_state(g.raw_state())
    assert h.unknown == {"hands": [], "swapped_colours": [], "bag": False}


def test_regions_are_the_boards():
    """regions() and regions(without=square) against the tests' own flood fill (R3, R4)."""
    for seed in range(4):
        g = played(2 + seed % 3, seed, moves=60)
        squares = g.raw_state()["squares"]
        skip = next(i for i in range(NSQ) if squares[i])
        for without in (None, skip):
            labels, kingdoms = g.regions(without=without)
            ref, ref_kingdoms = reference_regions(
                g, None if without is None else square_name(without))
            assert {i for i in range(NSQ) if labels[i] is not None} == set(ref)
            same = {(labels[i], ref[i]) for i in ref}
            assert len(same) == len({r for r, _ in same}) == len({r for _, r in same})
            assert {r for r, k in same if k in ref_kingdoms} == {
                r for r in range(len(kingdoms)) if kingdoms[r]}


@pytest.mark.parametrize("without", [-1, NSQ, 255, 2 ** 70, 1.0, True, "G5"])
def test_regions_refuse_what_is_no_square(without):
    with pytest.raises(ValueError, match="without"):
        tigris.Game(players=2, seed=1).regions(without=without)


def test_apply_with_draws_replays_or_refuses():
    g = tigris.Game(players=2, seed=5)
    rng = random.Random(5)
    while not any(draws for _, _, _, draws in g.history):
        g.apply(rng.choice(g.legal_actions()))
    a, player, _, draws = g.history[-1]
    g.undo()
    before = g.state_bytes()
    other = [(p, (c + 1) % 4) for p, c in draws]
    for bad in (draws[:-1], draws + [draws[0]], [(1 - p, c) for p, c in draws], [[0]], [5]):
        with pytest.raises(ValueError):
            g.apply(a, draws=bad)
        assert g.state_bytes() == before
    g.apply(a, draws=draws)
    assert g.history[-1][3] == draws
    g.undo()
    try:
        g.apply(a, draws=other)
    except ValueError:
        assert g.state_bytes() == before        # a colour the bag has run out of
    else:
        assert g.history[-1][3] == other        # the draws given, not the RNG's


def test_redeal():
    g = tigris.Game(players=2, seed=1)
    deal = [(p, c) for p in (0, 1) for c in (0, 0, 1, 1, 2, 3)]
    g.redeal(deal)
    assert g.deal == deal and g.history_complete
    assert g.hand(0) == g.hand(1) == {"red": 2, "blue": 2, "green": 1, "black": 1}
    before = g.state_bytes()
    for bad, match in ((deal[:-1], "player 1 is dealt 5 tiles, not 6"),
                       (deal + [(2, 0)], "player 2 is not in this game"),
                       ([(0, 2)] * 31, "no green tile left to deal"),
                       ([(0, "red")], r"a draw is a \(player, colour\) pair")):
        with pytest.raises(ValueError, match=match):
            g.redeal(bad)
        assert g.state_bytes() == before and g.deal == deal
    g.apply(g.legal_actions()[0])
    with pytest.raises(ValueError, match="only a game just set up"):
        g.redeal(deal)
