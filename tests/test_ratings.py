"""Tournament statistics (tigris.ratings) against hand-computed values and synthetic
results drawn from known strengths."""

import json
import math

import choix
import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import binomtest

from tigris.ratings import (format_head_to_head, format_standings, head_to_head, sprt_bounds, sprt_llr_deals,
                            sprt_decision, sprt_llr, standings, wilson_interval)

ELO = 400 / math.log(10)


def game(bots, ranking, final=None, decisions=100, seconds=0.01, **extra):
    return {"bots": list(bots), "ranking": ranking, "final": final or [0] * len(bots),
            "decisions": decisions, "seconds_per_move": seconds, **extra}


def duel(a, b, a_wins, b_wins, ties=0):
    """2-player games, seats alternating: a_wins won by a, b_wins by b, ties drawn."""
    games = []
    for k, outcome in enumerate(["a"] * a_wins + ["b"] * b_wins + ["t"] * ties):
        bots = [a, b] if k % 2 == 0 else [b, a]
        sa, sb = bots.index(a), bots.index(b)
        ranking = [[sa], [sb]] if outcome == "a" else [[sb], [sa]] if outcome == "b" else [[0, 1]]
        games.append(game(bots, ranking))
    return games


def rows(result):
    return {r["name"]: r for r in result["bots"]}


def sample_rankings(strengths, seats_per_game, n, seed, lineups=None):
    """Plackett-Luce rankings drawn from log-strengths: sorting strength + Gumbel noise
    (the exponential race) gives exactly the Plackett-Luce distribution."""
    rng = np.random.default_rng(seed)
    names = list(strengths)
    games = []
    for k in range(n):
        bots = (lineups[k % len(lineups)] if lineups
                else [names[i] for i in rng.permutation(len(names))[:seats_per_game]])
        noisy = [strengths[b] + rng.gumbel() for b in bots]
        order = sorted(range(len(bots)), key=lambda s: -noisy[s])
        games.append(game(bots, [[s] for s in order]))
    return games


def centred(strengths):
    mean = sum(strengths.values()) / len(strengths)
    return {b: ELO * (v - mean) for b, v in strengths.items()}


# ---------------------------------------------------------------------------------------
# Bradley-Terry (2 players)
# ---------------------------------------------------------------------------------------

def test_two_bots_three_to_one_is_190_elo():
    result = standings(duel("A", "B", 300, 100))
    a, b = rows(result)["A"], rows(result)["B"]
    assert result["model"] == "bradley-terry" and result["games"] == 400
    # P(A beats B) = 3/4 = 1 / (1 + 10^(-d/400))  =>  d = 400 log10(3) = 190.85
    assert a["elo"] - b["elo"] == pytest.approx(400 * math.log10(3), abs=0.5)
    assert a["elo"] + b["elo"] == pytest.approx(0, abs=1e-6)
    assert (a["games"], a["wins"], a["win_rate"]) == (400, 300, 0.75)
    assert [r["name"] for r in result["bots"]] == ["A", "B"]


def test_three_bots_transitive_strengths_exactly():
    # strengths 4 : 2 : 1, results in exactly the expected proportions, so the
    # maximum-likelihood fit is the truth: Elo = 400 log10(w), mean 0 -> +120.4, 0, -120.4
    games = duel("A", "B", 200, 100) + duel("A", "C", 200, 50) + duel("B", "C", 200, 100)
    r = rows(standings(games))
    step = 400 * math.log10(2)
    assert r["A"]["elo"] == pytest.approx(step, abs=0.5)
    assert r["B"]["elo"] == pytest.approx(0, abs=0.5)
    assert r["C"]["elo"] == pytest.approx(-step, abs=0.5)
    assert [b["name"] for b in standings(games)["bots"]] == ["A", "B", "C"]


def test_bradley_terry_is_choix_maximum_likelihood():
    games = duel("A", "B", 70, 30) + duel("B", "C", 55, 45) + duel("A", "C", 20, 5)
    r = rows(standings(games, resamples=0))
    pairs = []
    index = {"A": 0, "B": 1, "C": 2}
    for g in games:
        pairs.append((index[g["bots"][g["ranking"][0][0]]], index[g["bots"][g["ranking"][1][0]]]))
    params = choix.opt_pairwise(3, pairs, alpha=1e-6)
    expected = ELO * (params - params.mean())
    for name, k in index.items():
        assert r[name]["elo"] == pytest.approx(expected[k], abs=0.5)


def test_a_2_player_draw_is_half_a_win_each_way():
    # 50 wins and 50 draws: A scores 75 of 100, as in 3-to-1, so 190.8 Elo apart
    result = standings(duel("A", "B", 50, 0, ties=50))
    a, b = rows(result)["A"], rows(result)["B"]
    assert a["elo"] - b["elo"] == pytest.approx(400 * math.log10(3), abs=0.5)
    assert (a["wins"], b["wins"]) == (75, 25)
    assert head_to_head(duel("A", "B", 50, 0, ties=50))["A"]["B"] == {"games": 100, "score": 75}


def test_a_bot_that_wins_everything_is_large_but_finite():
    r = rows(standings(duel("A", "B", 20, 0)))
    gap = r["A"]["elo"] - r["B"]["elo"]
    assert 400 < gap < 5000


def test_a_perfect_score_has_a_one_sided_likelihood_interval():
    """Issue 42: 12-0 read "+556 (+556, +556)", every resample as one-sided as the games.
    By hand, Bradley-Terry: the profile log-likelihood of a gap d is 12 ln(sigmoid(d)),
    supremum 0; the bound is where it falls by chi2(1).ppf(.95)/2 = 1.9207:
    sigmoid(d) = exp(-1.9207/12) = .8521, d = ln(.8521/.1479) = 1.7512, 304.2 Elo;
    with the mean at 0, A's lower bound is half of it."""
    result = standings(duel("A", "B", 12, 0))
    r = rows(result)
    low, high = r["A"]["elo_ci"]
    assert high is None and low == pytest.approx(ELO * 1.7512 / 2, abs=1.0)
    assert r["B"]["elo_ci"][0] is None and r["B"]["elo_ci"][1] == pytest.approx(-low, abs=1.0)
    assert low < r["A"]["elo"]
    text = format_standings(result)
    assert f"{r['A']['elo']:+.0f} (+152, +inf)" in text and "likelihood-ratio interval" in text
    assert result["interval"] == "likelihood"
    assert json.loads(json.dumps(result))["bots"][0]["elo_ci"] == [pytest.approx(low), None]


def test_a_bot_that_never_won_is_bounded_below_the_others_and_not_the_zero():
    """Issue 42: in a 6-game tournament random (0 of 4 won) read "-693 (-770, +227)", its
    upper bound above greedy's rating.  Now its interval is open below, its upper bound
    under the bots it lost to, and the Elo counts from the two that beat each other."""
    games = duel("greedy", "random", 2, 0) + duel("ismcts", "random", 2, 0) + \
        duel("greedy", "ismcts", 1, 1)
    result = standings(games)
    r = rows(result)
    low, high = r["random"]["elo_ci"]
    assert low is None and high < min(r["greedy"]["elo"], r["ismcts"]["elo"])
    assert sorted(result["zero"]) == ["greedy", "ismcts"]
    assert r["greedy"]["elo"] + r["ismcts"]["elo"] == pytest.approx(0, abs=1e-6)
    for name in ("greedy", "ismcts"):
        bot_low, bot_high = r[name]["elo_ci"]
        assert bot_low < r[name]["elo"] < bot_high                 # both sides bounded
    assert "mean of greedy, ismcts = 0" in format_standings(result) or \
        "mean of ismcts, greedy = 0" in format_standings(result)


def test_a_resample_without_a_bots_games_does_not_rate_it(monkeypatch):
    """A bootstrap resample that drew none of a bot's games fits it by the regularisation
    alone; the bot's interval is the percentiles over the resamples that hold its games."""
    import tigris.ratings as module
    games = duel("A", "B", 60, 40) + duel("C", "A", 2, 1)       # C is item 2, in 3 games
    fits, original = [], module._ilsr

    def spy(n_items, groups, counts, *args, **kwargs):
        params = original(n_items, groups, counts, *args, **kwargs)
        with_c = sum(counts[cols][(orders == 2).any(axis=1)].sum() for orders, cols in groups)
        fits.append((with_c > 0, ELO * (params - params.mean())))
        return params

    monkeypatch.setattr(module, "_ilsr", spy)
    result = standings(games, resamples=400)
    boots = fits[1:]                                     # fits[0] is the point estimate
    assert len(boots) == 400 and 10 < sum(not met for met, _ in boots) < 100
    kept = [elo[2] for met, elo in boots if met]
    expected = tuple(np.percentile(kept, [2.5, 97.5]))
    assert rows(result)["C"]["elo_ci"] == pytest.approx(expected)
    every = tuple(np.percentile([elo[2] for _, elo in boots], [2.5, 97.5]))
    assert rows(result)["C"]["elo_ci"] != pytest.approx(every)


# ---------------------------------------------------------------------------------------
# Intervals
# ---------------------------------------------------------------------------------------

def test_elo_intervals_contain_the_estimate_and_shrink_with_more_games():
    widths = []
    for n in (100, 1600):
        r = rows(standings(duel("A", "B", 3 * n // 4, n // 4)))
        for bot in r.values():
            low, high = bot["elo_ci"]
            assert low <= bot["elo"] <= high
        widths.append(r["A"]["elo_ci"][1] - r["A"]["elo_ci"][0])
    # the standard error falls as 1/sqrt(games): 16 times the games, about 1/4 the width
    assert widths[1] < widths[0] / 2.5
    assert widths[1] > 0


def test_elo_interval_is_about_the_normal_approximation():
    # 400 games at p = 3/4: sd of d = ELO * sqrt(1 / (n p (1-p))) = 17.4 Elo, so the
    # 95% interval for A (half of the difference above the mean) is about +-17 Elo
    a = rows(standings(duel("A", "B", 300, 100)))["A"]
    half_width = (a["elo_ci"][1] - a["elo_ci"][0]) / 2
    sd_diff = ELO / math.sqrt(400 * 0.75 * 0.25)
    assert half_width == pytest.approx(1.96 * sd_diff / 2, rel=0.25)


@pytest.mark.slow
def test_bootstrap_is_deterministic_for_the_same_input():
    games = sample_rankings({"A": 0.5, "B": 0.0, "C": -0.5}, 3, 150, seed=4)
    assert standings(games) == standings(list(games))
    assert standings(games, seed=1) != standings(games, seed=2)


def test_bootstrap_resamples_whole_deals_when_given():
    games = duel("A", "B", 60, 40)
    for k, g in enumerate(games):
        g["deal"] = k // 2
    result = standings(games)
    r = rows(result)
    assert result["resampled"] == "deals" and "resamples of the deals" in format_standings(result)
    assert r["A"]["elo_ci"][0] <= r["A"]["elo"] <= r["A"]["elo_ci"][1]
    assert result == standings(games)
    assert standings(duel("A", "B", 60, 40))["resampled"] == "games"


def test_a_single_deal_has_no_interval_not_a_zero_width_one():
    games = duel("A", "B", 2, 0)
    for g in games:
        g["deal"] = 7                          # both seatings of one deal
    result = standings(games)
    r = rows(result)
    assert r["A"]["elo"] > 300 and r["A"]["elo_ci"] is None and r["B"]["elo_ci"] is None
    text = format_standings(result)
    assert f"{r['A']['elo']:+.0f} (n/a)" in text and "a single deal has nothing to resample" in text
    assert json.loads(json.dumps(result))["bots"][0]["elo_ci"] is None
    assert rows(standings(duel("A", "B", 1, 0)))["A"]["elo_ci"] is None       # a single game
    assert rows(standings(duel("A", "B", 3, 1), resamples=0))["A"]["elo_ci"] is None
    two = duel("A", "B", 3, 1)
    for k, g in enumerate(two):
        g["deal"] = k // 2
    low, high = rows(standings(two))["A"]["elo_ci"]                  # two deals: an interval
    assert low < high


def test_anchor_bot_is_zero():
    r = rows(standings(duel("A", "B", 300, 100), anchor="B"))
    assert r["B"]["elo"] == pytest.approx(0, abs=1e-9)
    assert r["A"]["elo"] == pytest.approx(400 * math.log10(3), abs=0.5)
    assert r["B"]["elo_ci"] == pytest.approx((0, 0), abs=1e-9)
    with pytest.raises(ValueError, match="anchor"):
        standings(duel("A", "B", 3, 1), anchor="C")


# ---------------------------------------------------------------------------------------
# Win rates
# ---------------------------------------------------------------------------------------

def test_wilson_interval_by_hand():
    # 3 of 10: p = .3, z = 1.959964; centre = (.3 + z^2/20) / (1 + z^2/10) = .35551,
    # half = z / (1 + z^2/10) * sqrt(.021 + z^2/400) = .24771  ->  (.1078, .6032)
    low, high = wilson_interval(3, 10)
    assert (low, high) == pytest.approx((0.107791, 0.603222), abs=1e-6)
    ci = binomtest(75, 100).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_interval(75, 100) == pytest.approx((ci.low, ci.high), abs=1e-12)
    # fractional wins (shared first places): 37.5 of 50
    assert wilson_interval(37.5, 50) == pytest.approx((0.615134, 0.849192), abs=1e-6)
    assert wilson_interval(0, 5)[0] == 0 and wilson_interval(5, 5)[1] == 1


def test_standings_win_rate_interval_is_wilson():
    a = rows(standings(duel("A", "B", 3, 7)))["A"]
    assert a["win_rate"] == 0.3
    assert a["win_rate_ci"] == pytest.approx((0.107791, 0.603222), abs=1e-6)


def test_a_shared_first_place_is_split():
    games = [game(["A", "B", "C"], [[0, 1], [2]], final=[5, 5, 3]),
             game(["A", "B", "C"], [[2], [0], [1]], final=[4, 2, 6]),
             game(["A", "B", "C"], [[0, 1, 2]], final=[1, 1, 1])]
    r = rows(standings(games))
    assert r["A"]["wins"] == pytest.approx(0.5 + 1 / 3)
    assert r["B"]["wins"] == pytest.approx(0.5 + 1 / 3)
    assert r["C"]["wins"] == pytest.approx(1 + 1 / 3)
    assert sum(b["wins"] for b in r.values()) == pytest.approx(3)
    assert r["A"]["mean_final"] == pytest.approx(10 / 3)


# ---------------------------------------------------------------------------------------
# Plackett-Luce (3-4 players)
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4])
def test_plackett_luce_recovers_known_strengths(players):
    strengths = {"A": 1.0, "B": 0.5, "C": 0.0, "D": -0.6}
    result = standings(sample_rankings(strengths, players, 1500, seed=players), resamples=50)
    assert result["model"] == "plackett-luce"
    assert [r["name"] for r in result["bots"]] == ["A", "B", "C", "D"]
    truth = centred(strengths)
    for r in result["bots"]:
        assert r["elo"] == pytest.approx(truth[r["name"]], abs=30)
        assert r["elo_ci"][0] <= r["elo"] <= r["elo_ci"][1]


@pytest.mark.slow
def test_plackett_luce_is_choix_maximum_likelihood():
    games = sample_rankings({"A": 0.8, "B": 0.2, "C": 0.0, "D": -0.4}, 4, 300, seed=9)
    index = {"A": 0, "B": 1, "C": 2, "D": 3}
    data = [tuple(index[g["bots"][place[0]]] for place in g["ranking"]) for g in games]
    params = choix.opt_rankings(4, data, alpha=1e-6)
    expected = ELO * (params - params.mean())
    r = rows(standings(games, resamples=0))
    for name, k in index.items():
        assert r[name]["elo"] == pytest.approx(expected[k], abs=0.5)


@pytest.mark.slow
def test_plackett_luce_with_one_bot_in_several_seats():
    # 4-player games between two bots, two seats each (A A B B in rotations); the seats
    # are Plackett-Luce items sharing their bot's strength.  The estimate is the
    # maximum of that likelihood (computed here directly) and near the truth.
    strengths = {"A": 0.4, "B": -0.4}
    lineups = [["A", "A", "B", "B"], ["A", "B", "B", "A"], ["B", "B", "A", "A"],
               ["B", "A", "A", "B"]]
    games = sample_rankings(strengths, 4, 1200, seed=5, lineups=lineups)

    def nll(theta):
        value = 0.0
        for g in games:
            left = [theta[0] if g["bots"][place[0]] == "A" else theta[1] for place in g["ranking"]]
            for k in range(len(left) - 1):
                value -= left[k] - np.logaddexp.reduce(left[k:])
        return value

    fit = minimize(lambda t: nll([t[0], -t[0]]), [0.0]).x[0]
    r = rows(standings(games, resamples=50))
    assert r["A"]["elo"] - r["B"]["elo"] == pytest.approx(2 * ELO * fit, abs=0.5)
    truth = 0.8 * ELO
    assert r["A"]["elo"] - r["B"]["elo"] == pytest.approx(truth, abs=40)
    assert r["A"]["games"] == 1200 and r["A"]["wins"] + r["B"]["wins"] == pytest.approx(1200)


def test_plackett_luce_ties_count_both_orders():
    # A B C, A and B tied first every time: A and B equal, both above C
    games = [game(["A", "B", "C"], [[0, 1], [2]]), game(["C", "A", "B"], [[1, 2], [0]]),
             game(["B", "C", "A"], [[0, 2], [1]])] * 10
    r = rows(standings(games))
    assert r["A"]["elo"] == pytest.approx(r["B"]["elo"], abs=1e-6)
    assert r["A"]["elo"] - r["C"]["elo"] > 900
    assert r["C"]["elo_ci"][0] is None                   # C never beat A or B: open below


def test_first_place_elo_fits_the_winner_alone():
    # A wins with Luce's chance among the seats (two A seats, two B seats); the places
    # below are drawn at random, as by bots that play only to win.  The whole-ranking fit
    # reads the random places as evidence of equality; the first-place fit finds the gap,
    # and is the maximum of the winner's likelihood (computed here directly).
    strengths = {"A": 0.5, "B": -0.5}
    lineups = [["A", "A", "B", "B"], ["A", "B", "B", "A"], ["B", "B", "A", "A"],
               ["B", "A", "A", "B"]]
    rng = np.random.default_rng(3)
    games = []
    for k in range(1600):
        bots = lineups[k % 4]
        noisy = [strengths[b] + rng.gumbel() for b in bots]
        first = max(range(4), key=lambda s: noisy[s])
        rest = [int(s) for s in rng.permutation([s for s in range(4) if s != first])]
        games.append(game(bots, [[first]] + [[s] for s in rest]))

    def nll(t):
        value = 0.0
        for g in games:
            wins_a = g["bots"][g["ranking"][0][0]] == "A"
            value -= (t if wins_a else -t) - np.log(2 * np.exp(t) + 2 * np.exp(-t))
        return value

    fit = minimize(lambda t: nll(t[0]), [0.0]).x[0]
    result = standings(games, resamples=50)
    r = rows(result)
    gap = r["A"]["first_elo"] - r["B"]["first_elo"]
    assert gap == pytest.approx(2 * ELO * fit, abs=0.5)
    assert gap == pytest.approx(ELO, abs=60)
    assert r["A"]["elo"] - r["B"]["elo"] < gap / 2
    low, high = r["A"]["first_elo_ci"]
    assert low <= r["A"]["first_elo"] <= high
    text = format_standings(result)
    assert "first-place Elo (95% CI)" in text and "First-place Elo:" in text
    assert f"{r['A']['first_elo']:+.0f} ({low:+.0f}, {high:+.0f})" in text


def test_first_place_elo_is_for_three_players_and_more():
    result = standings(duel("A", "B", 6, 4))
    assert all(r["first_elo"] is None and r["first_elo_ci"] is None for r in result["bots"])
    assert "first-place" not in format_standings(result).lower()


# ---------------------------------------------------------------------------------------
# Bookkeeping
# ---------------------------------------------------------------------------------------

def test_error_games_are_skipped_and_counted():
    games = duel("A", "B", 6, 4) + [{"bots": ["A", "B"], "error": "RuntimeError: boom"}] * 2
    result = standings(games)
    assert result["errors"] == 2 and result["games"] == 10
    assert rows(result)["A"]["games"] == 10
    assert head_to_head(games)["A"]["B"]["games"] == 10


def test_listed_bots_without_games_and_self_play():
    games = duel("A", "B", 6, 4) + [game(["C", "C"], [[1], [0]])]
    result = standings(games, bots=["A", "B", "C", "D"])
    r = rows(result)
    assert [b["name"] for b in result["bots"]][-2:] == ["C", "D"]
    assert r["D"]["games"] == 0 and r["D"]["win_rate"] is None and r["D"]["elo"] is None
    assert r["C"]["games"] == 1 and r["C"]["wins"] == 1 and r["C"]["elo"] is None
    assert format_standings(result)


def test_no_games():
    result = standings([], bots=["A", "B"])
    assert result["model"] is None and result["games"] == 0
    assert all(r["elo"] is None for r in result["bots"])
    assert "A" in format_standings(result)


def test_means_per_bot_including_per_seat_lists():
    games = [game(["A", "B"], [[0], [1]], final=[8, 4], decisions=100, seconds=0.5),
             {"bots": ["B", "A"], "ranking": [[1], [0]], "final": [3, 6], "decisions": 300,
              "seconds_per_move": [0.2, 0.1]}]
    r = rows(standings(games))
    assert r["A"]["mean_final"] == 7 and r["B"]["mean_final"] == 3.5
    assert r["A"]["mean_decisions"] == 200
    assert r["A"]["seconds_per_move"] == pytest.approx(0.3)
    assert r["B"]["seconds_per_move"] == pytest.approx(0.35)


def test_a_bad_ranking_is_refused():
    with pytest.raises(ValueError, match="game 1"):
        standings([game(["A", "B"], [[0], [1]]), game(["A", "B"], [[0], [0]])])


# ---------------------------------------------------------------------------------------
# Head to head
# ---------------------------------------------------------------------------------------

def test_head_to_head_tiny_example():
    games = [game(["A", "B", "C"], [[2], [0, 1]]),       # C first, A and B tied
             game(["B", "A"], [[0], [1]]),               # B beats A
             game(["A", "A", "B", "C"], [[0], [2], [3], [1]]),
             {"bots": ["A", "C"], "error": "x"}]
    m = head_to_head(games)
    # A-B: tie (.5), loss (0), then seat 0 above B (1) and seat 1 below B (0)
    assert m["A"]["B"] == {"games": 4, "score": 1.5}
    assert m["B"]["A"] == {"games": 4, "score": 2.5}
    # A-C: below (0); seat 0 above C (1), seat 1 below C (0)
    assert m["A"]["C"] == {"games": 3, "score": 1.0}
    assert m["C"]["A"] == {"games": 3, "score": 2.0}
    assert m["B"]["C"] == {"games": 2, "score": 1.0}
    assert "A" not in m["A"]
    for a in m:
        for b in m[a]:
            assert m[a][b]["score"] + m[b][a]["score"] == m[a][b]["games"]
    assert list(m) == ["C", "B", "A"]         # by share of points: 3/5, 3.5/6, 2.5/7


# ---------------------------------------------------------------------------------------
# Text tables
# ---------------------------------------------------------------------------------------

def test_format_standings_is_a_markdown_table():
    games = duel("A", "B", 30, 10) + [{"bots": ["A", "B"], "error": "x"}]
    result = standings(games)
    text = format_standings(json.loads(json.dumps(result)))   # as read back from summary.json
    lines = text.splitlines()
    assert lines[0].startswith("| #") and "Elo (95% CI)" in lines[0]
    assert set(lines[1]) <= set("|-: ")
    assert len({len(line) for line in lines[:4]}) == 1
    assert "| A " in lines[2] and "| B " in lines[3]
    assert "75.0%" in lines[2] and "Bradley-Terry" in text
    assert "1 game failed" in text


def test_format_head_to_head_is_a_markdown_table():
    text = format_head_to_head(head_to_head(duel("A", "B", 3, 1)))
    lines = text.splitlines()
    assert len(lines) == 4 and len({len(line) for line in lines}) == 1
    assert "3/4 (75%)" in lines[2] and "1/4 (25%)" in lines[3]
    assert format_head_to_head({}) == "(no games)"


# ---------------------------------------------------------------------------------------
# SPRT
# ---------------------------------------------------------------------------------------

def test_sprt_bounds():
    low, high = sprt_bounds(0.05, 0.05)
    assert low == pytest.approx(-2.944439, abs=1e-6) and high == pytest.approx(2.944439, abs=1e-6)
    assert sprt_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


def test_sprt_llr_by_hand():
    s1 = 1 / (1 + 10 ** (-20 / 400))                   # .528751; s0 = .5
    # wins and losses only: the most likely results with mean s are W with chance s,
    # L with 1 - s, so LLR = W ln(s1/s0) + L ln((1-s1)/(1-s0)) = 33.545 - 23.688 = 9.857
    assert sprt_llr(600, 0, 400, 0, 20) == pytest.approx(
        600 * math.log(s1 / 0.5) + 400 * math.log((1 - s1) / 0.5), abs=1e-3)
    assert sprt_llr(600, 0, 400, 0, 20) == pytest.approx(9.857, abs=1e-3)
    # the quadratic approximation: mean .6, var .24:
    # 1000 * .028751 * (1.2 - 1.028751) / .48 = 10.2573
    assert sprt_llr(600, 0, 400, 0, 20, approximate=True) == pytest.approx(10.2573, abs=1e-3)
    # with draws, 30 W 40 D 30 L: mean .5, var .15: 100 * .028751 * (-.028751) / .3
    assert sprt_llr(30, 40, 30, 0, 20, approximate=True) == pytest.approx(-0.27554, abs=1e-4)
    assert sprt_llr(0, 0, 0, 0, 20) == 0
    assert sprt_llr(60, 0, 40, 0, 20) > sprt_llr(50, 0, 50, 0, 20)
    # symmetric: B's view of the same games with the hypotheses mirrored
    assert sprt_llr(40, 10, 50, 0, 20) == pytest.approx(sprt_llr(50, 10, 40, 0, -20), abs=1e-9)


@pytest.mark.parametrize("results", [(500, 0, 500), (300, 400, 300), (1000, 0, 1000),
                                     (560, 100, 440)])
def test_sprt_llr_matches_the_approximation_over_many_mixed_games(results):
    exact, approx = sprt_llr(*results, 0, 20), sprt_llr(*results, 0, 20, approximate=True)
    assert exact == pytest.approx(approx, rel=0.03)


def test_sprt_llr_stays_sane_on_few_or_one_sided_games():
    assert sprt_llr(1, 0, 0, 0, 20) == pytest.approx(math.log(1 / (1 + 10 ** -0.05) / 0.5),
                                                     abs=0.01)
    assert sprt_llr(1, 0, 0, 0, 20, approximate=True) > 10     # why it is not the default
    assert sprt_llr(20, 0, 1, 0, 20) < 1.2
    assert sprt_llr(0, 50, 0, 0, 20) == pytest.approx(-2.95, abs=0.05)
    assert sprt_llr(2.5, 1, 1.5, 0, 20) > 0                       # fractional counts


@pytest.mark.parametrize("wins, draws, losses",
                         [(3, 1, 1), (600, 0, 400), (30, 40, 30), (0, 0, 5), (7, 0, 0)])
def test_deals_of_one_game_are_the_games(wins, draws, losses):
    scores = [1.0] * wins + [0.5] * draws + [0.0] * losses
    assert sprt_llr_deals(scores, 1, 0, 20) == pytest.approx(sprt_llr(wins, draws, losses, 0, 20), abs=1e-12)


def test_the_llr_of_deals_by_hand():
    s1 = 1 / (1 + 10 ** (-30 / 400))
    # deals won or lost whole, 60 and 40: as many wins and losses of one game each (the
    # four values between them counted 0.001 times, as draws are)
    assert sprt_llr_deals([1.0] * 60 + [0.0] * 40, 2, 0, 30) == pytest.approx(
        60 * math.log(s1 / 0.5) + 40 * math.log((1 - s1) / 0.5), abs=0.01)
    assert sprt_llr_deals([], 2, 0, 30) == 0
    # B's view of the same deals, the hypotheses mirrored
    deals = [1.0, 0.75, 0.5, 0.5, 0.25, 0.0, 1.0]
    assert sprt_llr_deals(deals, 2, 0, 30) == pytest.approx(
        sprt_llr_deals([1 - d for d in deals], 2, 0, -30), abs=1e-9)
    # three seatings a deal: means in sixths
    assert sprt_llr_deals([1 / 6, 5 / 6, 1.0], 3, 0, 30) > 0


def test_deals_split_by_their_seat_say_more_than_their_games():
    """Pairs each won once by each side are what the deal gave the seat: counted as
    deals, they are no noise, and the same games lean further to the side that won
    whole deals.  Pairs won or lost whole are the reverse: twice a game's weight."""
    split = [1.0] * 30 + [0.5] * 60 + [0.0] * 20          # 120 wins, 100 losses
    assert sprt_llr_deals(split, 2, 0, 30) > 1.1 * sprt_llr(120, 0, 100, 0, 30) > 0
    whole = [1.0] * 60 + [0.0] * 50                       # the same games
    assert 0 < sprt_llr_deals(whole, 2, 0, 30) < sprt_llr(120, 0, 100, 0, 30)


@pytest.mark.parametrize("scores, per_deal", [([0.3], 2), ([1.5], 2), ([-0.25], 2), ([0.5], 0), ([0.5], 1.0)])
def test_a_deal_score_its_games_cannot_make_is_refused(scores, per_deal):
    with pytest.raises(ValueError):
        sprt_llr_deals(scores, per_deal, 0, 30)


def run_sprt(pattern, elo0=0, elo1=20, limit=20000):
    """Play the results of ``pattern`` (1, 0.5, 0) round and round until a decision."""
    w = d = l = 0
    for n in range(1, limit + 1):
        s = pattern[(n - 1) % len(pattern)]
        w, d, l = w + (s == 1), d + (s == 0.5), l + (s == 0)
        decision = sprt_decision(sprt_llr(w, d, l, elo0, elo1))
        if decision:
            return decision, n
    return None, limit


def test_sprt_decisions_on_synthetic_sequences():
    decision, n = run_sprt([1, 0, 1, 0, 1])          # 60%: about +70 Elo
    assert decision == "H1" and 100 < n < 1000
    decision, n = run_sprt([1, 0])                   # 50%: 0 Elo
    assert decision == "H0" and 1000 < n < 5000
    decision, n = run_sprt([1, 0.5, 0.5, 0])         # 50% with draws
    assert decision == "H0"
    decision, n = run_sprt([1])                      # only wins: H1, but not at once
    assert decision == "H1" and 20 < n < 100
    decision, n = run_sprt([0])
    assert decision == "H0" and n < 100
    # a short sequence continues
    assert sprt_decision(sprt_llr(6, 0, 4, 0, 20)) is None
    assert sprt_decision(10.0) == "H1" and sprt_decision(-3.0) == "H0"
    assert sprt_decision(2.0) is None
    assert sprt_decision(3.0, alpha=0.01, beta=0.01) is None       # bounds +-4.595
