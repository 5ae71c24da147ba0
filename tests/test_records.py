"""The root statistics are records (``tigris.search.RootStats``, ``ChildStats``,
``Halving``): frozen, and what was published from them before they were (a hint's JSON,
an analysis's rows, the statistics themselves as dicts) is unchanged.  The expected data
were written by the code that passed dicts, for the seeds below, when the default bot
searched with the gen1 network: the hint and the analysis name that bot,
``ismcts-fast-gen1``."""

import dataclasses
import json
import pickle
import random
from pathlib import Path

import pytest

import tigris
from tigris import analysis, bots, search
from tigris.bots.search import PV_DEPTH
from tigris.search import ChildStats, Halving, RootStats

from helpers import greedy_record

BEFORE = json.loads((Path(__file__).parent / "data" / "root-statistics-before-records.json")
                    .read_text(encoding="utf-8"))


def as_json(x):
    """`x` as JSON reads it back (tuples as lists, NaN kept)."""
    return json.loads(json.dumps(x, allow_nan=True))


@pytest.fixture(scope="module")
def tree():
    return search.run(tigris.Game(players=2, seed=7), iterations=120, seed=2, root="halving")


def test_a_trees_statistics_convert_to_the_dict_the_search_gave(tree):
    assert as_json(tree.to_dict()) == BEFORE["run"]
    assert any(ch.halvings for ch in tree.children)         # the halvings are converted too


def close(a, b):
    """`a` and `b` alike but for the last bits of their floats."""
    if isinstance(a, float) or isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12, abs=1e-15)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == b


def test_a_bots_merged_statistics_convert_to_the_dict_merge_gave():
    stats = bots.make("pimc", seed=4, iterations=60, determinizations=3).root_statistics(tigris.Game(seed=6))
    assert stats.best is None                               # merged: the bot picks
    assert as_json(stats.to_dict()) == dict(BEFORE["pimc"], best=None)


def test_a_bot_of_one_tree_gives_that_trees_statistics():
    """Its tree's statistics as the search gave them, where a merge of one tree once
    recomputed them (the same to the last bits of a float)."""
    g = tigris.Game(players=3, seed=5)
    bot = bots.make("ismcts", seed=4, iterations=120, root="halving", workers=1)
    stats = bot.root_statistics(g)
    draws = random.Random(4)                                # the bot's: its world, then its tree's seed
    world = g.determinize(g.current_player, draws.getrandbits(63))
    tree = search.Search(world, seed=draws.getrandbits(63), config=bot.config)
    tree.step(120)
    assert stats == dataclasses.replace(tree.stats(pv_depth=PV_DEPTH), best=None)
    assert close(as_json(stats.to_dict()), dict(BEFORE["ismcts"], best=None))
    assert not close(0.1, 0.1 + 1e-9) and not close([1], [1, 2])


def test_a_hints_json_is_unchanged():
    g = tigris.Game(players=2, seed=2)
    hint = tigris.hint(g, iterations=400, workers=1, seed=3, top=4, progress=False,
                       bot="ismcts-fast-gen1").as_dict(g)
    assert hint.pop("seconds") >= 0                          # wall clock: never the same
    assert as_json(hint) == dict(BEFORE["hint"], bot="ismcts-fast-gen1")     # the bot named, as asked


def test_an_analysiss_rows_are_unchanged():
    _, tasks = analysis.decisions(greedy_record(2, 4))
    engine = analysis.engine_of(bots.configuration("ismcts-fast-gen1"), analysis.DEFAULT_MEASURE)
    rows = [analysis.analyse_decision(t, engine, {"iterations": 60}, 3, analysis.check_thresholds())
            for t in tasks]
    assert as_json(rows) == BEFORE["analysis"]


def test_the_records_are_frozen_and_slotted(tree):
    child = tree.children[0]
    halving = next(h for ch in tree.children for h in ch.halvings)
    for rec, field in ((tree, "iterations"), (child, "visits"), (halving, "visits")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(rec, field, 0)
        assert not hasattr(rec, "__dict__")
    assert isinstance(tree.children, tuple) and isinstance(child.chances, tuple)
    assert isinstance(child.halvings, tuple) and isinstance(halving, Halving)


def test_the_records_cross_to_a_worker_process_and_back(tree):
    assert pickle.loads(pickle.dumps(tree)) == tree


def test_a_dict_of_the_search_makes_the_same_record(tree):
    assert RootStats.of(tree.to_dict()) == tree
    assert ChildStats.of(tree.children[0].to_dict()) == tree.children[0]


def test_the_old_dict_access_reads_with_a_warning(tree):
    with pytest.warns(DeprecationWarning, match=r"\.children"):
        children = tree["children"]
    with pytest.warns(DeprecationWarning, match=r"\.visits"):
        assert children[0]["visits"] == tree.children[0].visits
    with pytest.warns(DeprecationWarning, match=r"\.rounds"):
        assert tree.get("rounds", 0) == tree.rounds
    assert tree.get("no such field", 7) == 7
    with pytest.raises(KeyError):
        tree["no such field"]
