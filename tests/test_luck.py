"""The luck of the tiles drawn (tigris.luck): each draw's luck is the drawer's chance
after it against the mean over the draws the bag could have given."""

import json
import math
import statistics

import pytest

import tigris
from tigris import analysis, bots, record
from tigris.play import luck
from tigris.constants import COLOURS
from tigris.errors import UsageError


def played(seed, players=2, kind="random"):
    g = tigris.Game(players=players, seed=seed)
    seats = [bots.make(kind, seed=seed + p) for p in range(players)]
    while not g.is_over:
        g.apply(seats[g.current_player].choose(g))
    return record.to_record(g, bots=[kind] * players)


class RedCounter:
    """A stand-in network: a player's chance is the share of red tiles in its hand, so a
    draw's luck is known by hand."""

    def evaluate(self, game):
        n = game.players
        reds = [game.hand(p).get("red", 0) / 6 if game.hand_size(p) else 0.0 for p in range(n)]
        return reds, [0.0] * n


def test_a_draws_luck_is_its_reds_against_the_bags_expectation():
    """With the chance the share of red tiles in hand, a draw of k tiles from a bag of B
    with R red is lucky by exactly (reds drawn - k R / B) / 6."""
    rec = played(3)
    draws = luck.of_game(rec, net=RedCounter())
    assert draws and all(d["move"] >= 1 for d in draws)
    before = None
    checked = 0
    for n, game in record.steps(rec):
        if before is not None:
            _, _, _, drawn = game.history[-1]
            for d in (d for d in draws if d["move"] == n):
                mine = [c for q, c in drawn if q == d["player"]]
                if any(q != d["player"] for q, _ in drawn):
                    continue                      # others drew too: the bag moved
                bag = before.raw_state()["bag"]
                expected = len(mine) * bag[0] / sum(bag)
                assert d["drawn"] == [COLOURS[c] for c in mine]
                assert d["luck"] == pytest.approx((mine.count(0) - expected) / 6, abs=1e-4)
                checked += 1
        before = game.copy(stack=False)
    assert checked >= 10
    assert luck.of_game(rec, net=RedCounter()) == draws          # exact: no seed, no spread


def test_the_draws_a_bag_can_give_are_every_set_of_colours_at_its_chance():
    """outcomes enumerates each set of colours once, at its hypergeometric chance: the
    chances sum to 1 and the expected count of each colour is k times its share."""
    for bag, k in (([3, 0, 5, 1], 4), ([1, 1, 1, 1], 4), ([20, 15, 9, 12], 6), ([0, 2, 0, 0], 2)):
        drawn = list(luck.outcomes(bag, k))
        assert len({c for c, _ in drawn}) == len(drawn)
        assert all(len(c) == k and list(c) == sorted(c) for c, _ in drawn)
        assert sum(w for _, w in drawn) == pytest.approx(1)
        for colour in range(4):
            mean = sum(w * c.count(colour) for c, w in drawn)
            assert mean == pytest.approx(k * bag[colour] / sum(bag))
    assert len(list(luck.outcomes([20, 15, 9, 12], 6))) == math.comb(6 + 3, 3)


def test_summed_luck_is_near_zero_between_equal_bots():
    """The estimate is unbiased: over games between equal bots each player's summed luck
    has mean 0 (here within three standard errors over a few games; results.md has the
    figure over 200)."""
    totals = [luck.totals(luck.of_game(played(seed)), 2)
              for seed in range(6)]
    for p in range(2):
        values = [t[p] for t in totals]
        se = statistics.stdev(values) / math.sqrt(len(values))
        assert abs(statistics.mean(values)) <= 3 * se + 1e-3


def test_the_analysis_sums_the_luck_and_checks_it_when_read(tmp_path):
    rec = played(4)
    out = tmp_path / "a.jsonl"
    header, rows = analysis.run(rec, out, iterations=20, players=[0], jobs=1, progress=False)
    assert header["luck"] and all(len(d) == 3 for d in header["luck"])
    summary = analysis.summarize(header, rows)
    assert summary["players"][0]["luck"] == pytest.approx(
        sum(v for _, p, v in header["luck"] if p == 0), abs=1e-3)
    assert "luck" in analysis.format_summary(summary).splitlines()[2]     # the columns' names
    lines = out.read_text().splitlines()
    bad = json.loads(lines[0])
    bad["luck"][0] = [bad["luck"][0][0], 0, 7]
    (tmp_path / "bad.jsonl").write_text("\n".join([json.dumps(bad), *lines[1:]]) + "\n")
    with pytest.raises(UsageError, match="luck, entry 0"):
        analysis.read_analysis(tmp_path / "bad.jsonl")
    old = json.loads(lines[0])
    del old["luck"]                              # a file written before luck was
    (tmp_path / "old.jsonl").write_text("\n".join([json.dumps(old), *lines[1:]]) + "\n")
    header, rows = analysis.read_analysis(tmp_path / "old.jsonl")
    assert analysis.summarize(header, rows)["players"][0]["luck"] is None
