"""The search contract (DESIGN.md "Search" and "Public API"): information honesty,
availability counts, the N-player backup, searches that start inside a conflict or a
treasure choice, the evaluation, and a strength smoke test.

Positions are ``tigris-position/1`` dicts holding the 10 starting temples (as in
test_rules.py) built with full knowledge, so that two games can differ in exactly what
the player to move cannot see: the other hands, the bag and the others' face-down swap
discards, with the same unseen pool.
"""

import math

import pytest

import tigris
from tigris import bots, search
from tigris.evaluator import Evaluator
from tigris.search import PLAIN
from tigris.constants import N_ACTIONS

from helpers import COLOURS, TEMPLES, finished_random_games, hand, position, score, tiles, unseen_pool
from processes import interrupt, python

EVALUATOR = Evaluator()             # the default weights, as the bots use them

# ---------------------------------------------------------------------------
# Position helpers
# ---------------------------------------------------------------------------

def with_hidden(d, changes, bag_from=None):
    """A copy of position `d` in which players' hands / face-down discards are replaced
    (``changes = {p: {"hand": {...}, "swapped": {...}}}``) and the bag absorbs the
    difference, so that the unseen pool and out_of_game stay exactly the same."""
    import copy
    e = copy.deepcopy(d)
    bag = dict(e["bag"])
    for p, change in changes.items():
        entry = e["players"][p]
        if "hand" in change:
            new = hand(**change["hand"])
            assert sum(new.values()) == sum(entry["hand"].values()), "hand sizes are public"
            for c in COLOURS:
                bag[c] += entry["hand"][c] - new[c]
            entry["hand"] = new
        if "swapped" in change:
            new = tiles(**change["swapped"])
            assert sum(new.values()) == entry["swapped_face_down"], "discard counts are public"
            for c in COLOURS:
                bag[c] += entry["swapped_colours"][c] - new[c]
            entry["swapped_colours"] = new
    assert all(v >= 0 for v in bag.values()), bag
    e["bag"] = bag
    return e


def load(d, seed=0):
    return tigris.Game.from_position(d, seed=seed)


def public_view(g, p):
    """Everything player p may see (the player's own position dict)."""
    return g.to_position(p)


def act(g, text):
    return g.parse_action(text)


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------

# A middle game: both dynasties have kingdoms, scores, treasures collected, swaps made.
MIDGAME_SQUARES = {
    "H5": "red", "G5": "king:0", "G6": "black", "H6": "green", "I5": "priest:0",
    "J5": "red", "H4": "green",
    "K10": "trader:1", "J10": "black", "J11": "king:1", "L11": "green",
    "F9": "farmer:1", "G9": "blue",
}


def midgame(hand1=None, swapped1=None, bag=None, players=2):
    hands = [hand(red=2, blue=1, green=1, black=2), hand1 or hand(red=1, blue=2, green=2, black=1)]
    swapped = [hand(blue=1, green=1), swapped1 or hand(red=1, black=2)]
    scores = [score(red=2, blue=1, green=3, black=1), score(red=1, blue=2, green=1, black=2)]
    treasures = [1, 0]
    if players == 3:
        hands.append(hand(red=3, green=1, black=2))
        swapped.append(None)
        scores.append(score(red=1, blue=1, green=1, black=1))
        treasures.append(0)
    return position(MIDGAME_SQUARES, hands, scores=scores, treasures=treasures, taken=("B2",),
                    swapped=swapped,
                    bag=bag or tiles(red=30, blue=20, green=15, black=15), turn=12)


def midgame_pair():
    """Two games differing only in what player 0 (to move) cannot see."""
    a = midgame()
    b = with_hidden(a, {1: {"hand": hand(green=3, black=3), "swapped": hand(blue=2, green=1)}})
    return load(a), load(b)


# The last action of the game (2 treasures left): player 0's king on A1 next to the
# temple B1; catastrophes leave C2 as the kingdom's only open land neighbour.  Player 0
# (4, 6, 6, 6 after treasures) trails player 1 (5, 5, 5, 5); only a black point wins.
LAST_TAKEN = tuple(t for t in TEMPLES if t not in ("K11", "O9"))
FORCED_WIN = {"A1": "king:0", "B1": "red", "A2": "catastrophe", "C1": "catastrophe",
              "B3": "catastrophe"}
WINNING_MOVE = "tile black C2"


def forced_win(hand1=None):
    return position(FORCED_WIN,
                    [hand(red=2, blue=1, green=2, black=1),
                     hand1 or hand(red=2, blue=2, green=1, black=1)],
                    actions_left=1, taken=LAST_TAKEN, treasures=[4, 4],
                    scores=[score(red=6, blue=6, green=6), score(red=5, blue=5, green=5, black=1)],
                    bag=tiles(red=20, blue=20, green=20, black=20))


def revolt(stage, attacker_hand=None, defender_hand=None, bag=None):
    """The game's last action is a revolt of kings around the temple H5 (1 : 1).
    Player 0 attacks (king I5), player 1 defends (king G5); whoever wins it wins the
    game (the winner's red point decides).  The unseen pool holds one red tile."""
    pending = {"decision": "support",
               "conflict": {"kind": "revolt", "colour": "black",
                            "attacker": {"player": 0, "leader": "I5",
                                         "committed": None if stage == 0 else 1},
                            "defender": {"player": 1, "leader": "G5"}}}
    return position({"H5": "red", "G5": "king:1", "I5": "king:0"},
                    [attacker_hand or hand(red=3, green=1),
                     defender_hand or hand(red=1, green=2)],
                    actions_left=0, taken=LAST_TAKEN, treasures=[4, 4],
                    scores=[score(blue=6, green=6, black=6), score(red=1, blue=5, green=5, black=5)],
                    bag=bag or tiles(blue=1, black=2), pending=pending)


def midgame_revolt(stage):
    """The same revolt as the first action of a turn in a game that goes on (all treasures
    on the board): what happens after the conflict depends on the hidden hands."""
    pending = {"decision": "support",
               "conflict": {"kind": "revolt", "colour": "black",
                            "attacker": {"player": 0, "leader": "I5",
                                         "committed": None if stage == 0 else 1},
                            "defender": {"player": 1, "leader": "G5"}}}
    squares = {"H5": "red", "G5": "king:1", "I5": "king:0", "H6": "black", "H4": "green",
               "J11": "priest:0", "F9": "farmer:1", "G9": "blue"}
    return position(squares, [hand(red=2, blue=1, green=1, black=1), hand(red=2, green=2, black=2)],
                    actions_left=1, scores=[score(red=2, green=1), score(black=2, blue=1)],
                    bag=tiles(red=30, blue=20, green=15, black=15), pending=pending)


def treasure_choice(hand0=None):
    """Player 1's trader (I10) heads a kingdom holding the treasures of F10 and K11 (neither
    a corner one) on player 0's turn: player 1 chooses which to take."""
    squares = {"G10": "green", "H10": "green", "I10": "trader:1", "I11": "red",
               "J10": "green", "K10": "green", "E5": "king:0", "F5": "red", "F4": "black"}
    return position(squares,
                    [hand0 or hand(red=2, blue=1, green=2), hand(red=1, blue=2, green=1, black=2)],
                    actions_left=1, bag=tiles(red=30, blue=20, green=15, black=15),
                    pending={"decision": "treasure", "trader": "I10"})


def search_stats(g, iterations=400, seed=5, **options):
    options = {"exploration": 0.7, "rollout": "greedy", "epsilon": 0.2, "rollout_depth": 10,
               "widening": 2.0, **options}
    return search.run(g, iterations=iterations, seed=seed, **options)


HONEST_KINDS = [("ismcts", dict(iterations=300)),
                ("ismcts", dict(iterations=300, root="halving", halving_scale=1.0)),
                ("pimc", dict(iterations=300, determinizations=4)),
                # (these positions have no history: the belief deals uniformly; its own
                # honesty over a history is tests/test_belief.py's)
                ("ismcts", dict(iterations=300, determinization="belief")),
                ("pimc", dict(iterations=300, determinizations=4, determinization="belief")),
                ("greedy", {}),
                # the learned evaluation judges determinizations alone
                ("ismcts", dict(iterations=300, evaluator="net", rollout_depth=0)),
                # ismcts-strong's mix: rollouts, the UCB root
                ("ismcts", dict(iterations=300, evaluator="net", net_share=0.3)),
                # ismcts-fast's (and the hints'): halving over 32 candidates ranked by
                # their one-ply values, which are the determinization's too
                ("ismcts", dict(iterations=300, root="halving", halving_scale=1.0, candidates=32,
                                evaluator="net", net_share=0.5, root_lookahead=30.0)),
                # and with the shipped network's policy ordering its expansions and root
                ("ismcts", dict(iterations=300, root="halving", halving_scale=1.0, candidates=32,
                                evaluator="net", net_share=0.5, root_lookahead=30.0, priors="net")),
                ("pimc", dict(iterations=300, determinizations=4, evaluator="net")),
                ("greedy", dict(evaluator="net"))]


# ---------------------------------------------------------------------------
# The positions are what the tests claim
# ---------------------------------------------------------------------------

def test_midgame_pair_differs_only_in_what_player_0_cannot_see():
    a, b = midgame_pair()
    assert a.current_player == b.current_player == 0
    assert public_view(a, 0) == public_view(b, 0)
    assert unseen_pool(a.raw_state(), 0) == unseen_pool(b.raw_state(), 0)
    assert a.hand(1) != b.hand(1)
    assert a.raw_state()["swapped"][1] != b.raw_state()["swapped"][1]
    assert a.raw_state()["bag"] != b.raw_state()["bag"]
    assert a.state_bytes() != b.state_bytes()


def test_forced_win_position_has_exactly_one_winning_action():
    g = load(forced_win())
    winners = []
    for a in g.legal_actions():
        g.apply(a)
        assert g.is_over
        if g.ranking()[0] == [0]:
            winners.append(g.action_str(a))
        g.undo()
    assert winners == [WINNING_MOVE]
    assert len(g.legal_actions()) > 300


# ---------------------------------------------------------------------------
# Information honesty
# ---------------------------------------------------------------------------

HONEST_IDS = [k + ("-halving" if p.get("root") == "halving" else "")
              + ("-belief" if p.get("determinization") == "belief" else "")
              + ("-net" if p.get("evaluator") == "net" else "")
              + ("-leaf" if p.get("rollout_depth") == 0 else "")
              + ("-lookahead" if p.get("root_lookahead") else "")
              + ("-policy" if p.get("priors") == "net" else "") for k, p in HONEST_KINDS]


@pytest.mark.parametrize("kind,params", HONEST_KINDS, ids=HONEST_IDS)
def test_hidden_information_does_not_change_the_choice(kind, params):
    a, b = midgame_pair()
    for seed in (1, 2):
        bot_a = bots.make(kind, seed=seed, **params)
        bot_b = bots.make(kind, seed=seed, **params)
        choice_a, choice_b = bot_a.choose(a), bot_b.choose(b)
        assert choice_a == choice_b
        assert choice_a in a.legal_actions()
        if kind != "greedy":
            assert bot_a.last.children == bot_b.last.children
            assert bot_a.last.iterations == bot_b.last.iterations == params["iterations"]


@pytest.mark.parametrize("kind,params", HONEST_KINDS, ids=HONEST_IDS)
def test_hidden_information_does_not_change_later_choices_either(kind, params):
    """The same bot object keeps deciding: its RNG stream stays in step in both games."""
    a, b = midgame_pair()
    bot_a = bots.make(kind, seed=3, **params)
    bot_b = bots.make(kind, seed=3, **params)
    for _ in range(3):
        assert bot_a.choose(a) == bot_b.choose(b)


def test_bag_order_does_not_change_the_choice():
    """The same position loaded with other seeds differs only in the game's RNG (the order
    of future draws), which nobody can see."""
    d = midgame()
    a, b = load(d, seed=0), load(d, seed=99)
    assert a.raw_state()["rng"] != b.raw_state()["rng"] and public_view(a, 0) == public_view(b, 0)
    for kind, params in HONEST_KINDS:
        bot_a, bot_b = bots.make(kind, seed=5, **params), bots.make(kind, seed=5, **params)
        assert bot_a.choose(a) == bot_b.choose(b), kind
        if kind != "greedy":
            assert bot_a.last.children == bot_b.last.children, kind


def test_bots_are_honest_except_cheat():
    for kind in ("random", "greedy", "ismcts", "pimc"):
        assert bots.make(kind).honest is True
    assert bots.make("cheat").honest is False


def test_cheat_sees_the_hidden_difference():
    """The pair is a real test: the bot that searches the true state sees a difference."""
    a, b = midgame_pair()
    bot_a = bots.make("cheat", iterations=300, seed=1)
    bot_b = bots.make("cheat", iterations=300, seed=1)
    bot_a.choose(a)
    bot_b.choose(b)
    assert bot_a.last.children != bot_b.last.children


def test_other_hands_swapped_around_in_three_players():
    """Player 0 cannot tell apart worlds where players 1 and 2 hold each other's hands."""
    d = with_hidden(midgame(players=3), {2: {"hand": hand(red=4, blue=2)}})
    e = with_hidden(d, {1: {"hand": d["players"][2]["hand"]}, 2: {"hand": d["players"][1]["hand"]}})
    assert e["bag"] == d["bag"]
    a, b = load(d), load(e)
    assert public_view(a, 0) == public_view(b, 0) and a.hand(1) != b.hand(1)
    for kind, params in HONEST_KINDS:
        bot_a, bot_b = bots.make(kind, seed=7, **params), bots.make(kind, seed=7, **params)
        assert bot_a.choose(a) == bot_b.choose(b), kind
        if kind != "greedy":
            assert bot_a.last.children == bot_b.last.children, kind


@pytest.mark.parametrize("kind", ["random", "greedy", "ismcts", "pimc", "cheat"])
def test_choose_leaves_the_true_game_untouched(kind):
    a, _ = midgame_pair()
    before, history = a.state_bytes(), a.history
    legal = a.legal_actions()
    params = {} if kind in ("random", "greedy") else {"iterations": 200}
    choice = bots.make(kind, seed=1, **params).choose(a)
    assert choice in legal
    assert a.state_bytes() == before
    assert a.history == history
    assert a.legal_actions() == legal


def test_reproducible_with_a_fixed_seed():
    a, _ = midgame_pair()
    first = bots.make("ismcts", iterations=300, seed=11)
    second = bots.make("ismcts", iterations=300, seed=11)
    assert first.choose(a) == second.choose(a)
    assert first.last == second.last
    other = bots.make("ismcts", iterations=300, seed=12)
    other.choose(a)
    assert other.last.children != first.last.children      # the seed matters


def test_search_object_is_honest_too():
    """The compiled Search over the information set gives the same tree for both games."""
    a, b = midgame_pair()
    assert search_stats(a) == search_stats(b)
    # ... while searching the given state as it is does not.
    assert search_stats(a, determinize=False) != search_stats(b, determinize=False)


# ---------------------------------------------------------------------------
# Availability counts, root statistics, the forced win
# ---------------------------------------------------------------------------

def test_root_statistics_are_consistent():
    a, _ = midgame_pair()
    stats = search_stats(a, iterations=500)
    children = stats.children
    assert stats.iterations == 500 and stats.player == 0
    assert sum(ch.visits for ch in children) == 500          # one root child per iteration
    assert len({ch.action for ch in children}) == len(children)
    legal = set(a.legal_actions())
    for ch in children:
        assert ch.action in legal
        assert 1 <= ch.visits <= ch.avail <= stats.iterations
        assert 0.0 <= ch.value <= 1.0
    # progressive widening (2 sqrt(n)) keeps the root far below its 600+ legal actions
    assert len(children) <= 2.0 * (500 + 1) ** 0.5 + 1
    assert stats.best == search.choose(children, "visits")
    assert children[0].visits == max(ch.visits for ch in children)


@pytest.mark.parametrize("root", ["halving", "ucb"])
def test_each_root_child_reports_its_own_mean_spread_rounds_and_line_visits(root):
    """A hint reads every move alike from its own visits (issue 55): each root child's
    chances averaged over them (``mean``), their spread, the halving rounds it lasted and
    the visits along its line, the child's own first."""
    a, _ = midgame_pair()
    options = dict(exploration=0.7, rollout_depth=4, widening=2.0, root=root, candidates=8, seed=2)
    s = search.Search(a, **options)
    s.step(iterations=2400)
    stats = s.stats(pv_depth=8)
    children = stats.children
    for ch in children:
        assert sum(ch.mean) == pytest.approx(1.0) and all(0 <= c <= 1 for c in ch.mean)
        assert 0.0 <= ch.spread <= 0.5
        assert ch.pv_visits[0] == ch.visits and len(ch.pv_visits) == len(ch.pv) + 1
        assert list(ch.pv_visits) == sorted(ch.pv_visits, reverse=True)
        assert all(v >= 2 for v in ch.pv_visits[1:])       # a line goes on through nodes seen twice
    # the spread of the mover's chance over the visits: the chances vary from deal to deal
    assert max(ch.spread for ch in children) > 0.01
    rounds = [ch.rounds for ch in children]
    if root == "ucb":
        assert stats.rounds == 0 and set(rounds) == {0}
        assert all(ch.halvings == () for ch in children)
    else:
        # 8 candidates: 3 halvings to one, and the first picks the candidates: 4 in all.
        assert stats.rounds == 4 and children[0].rounds == 4
        assert sorted(rounds, reverse=True)[:8] == [4, 3, 2, 2, 1, 1, 1, 1]
        assert sum(r > 0 for r in rounds) == 8
        # a move that lasted more rounds had more visits
        for x in children:
            for y in children:
                if x.rounds > y.rounds:
                    assert x.visits > y.visits
        # How each candidate stood at each halving from the second: the one left at the
        # end at every one, a dropped move last at the halving that dropped it, as it
        # stands now (never visited again), and at each halving the candidates had the
        # same visits since the first, give or take the UCB phase's.
        assert [h.halving for h in children[0].halvings] == [1, 2, 3]
        for ch in children:
            marks = ch.halvings
            assert [h.halving for h in marks] == list(range(1, min(ch.rounds, 3) + 1))
            assert all(sum(h.mean) == pytest.approx(1.0) and h.spread >= 0 for h in marks)
            assert [h.visits for h in marks] == sorted(h.visits for h in marks)
            if marks and ch is not children[0]:
                assert marks[-1].visits == ch.visits and marks[-1].mean == pytest.approx(ch.mean)
        for halving in (1, 2, 3):
            then = [h.visits for ch in children for h in ch.halvings if h.halving == halving]
            assert len(then) == {1: 8, 2: 4, 3: 2}[halving]
            assert max(then) - min(then) <= 200        # the UCB phase's uneven share apart


def test_availability_counts_at_the_root_without_widening():
    """Every root action is legal in every determinization (the searcher knows their own
    options), so a child created at iteration k has been available at every iteration
    since: avail = iterations - k + 1, and no two children share a creation time."""
    a, _ = midgame_pair()
    n_legal = len(a.legal_actions())
    iterations = n_legal + 200
    stats = search_stats(a, iterations=iterations, widening=0.0)
    avails = sorted((ch.avail for ch in stats.children), reverse=True)
    assert len(avails) == n_legal
    assert avails == list(range(iterations, iterations - n_legal, -1))


def test_root_children_are_available_in_every_determinization():
    """The attacker's commitments depend only on his own hand: each root child is legal in
    every determinization, so the first one tried was available at every iteration, and
    none was visited more often than it was available."""
    g = load(revolt(stage=0))
    stats = search_stats(g, iterations=2000, exploration=3.0, widening=0.0)
    assert {g.action_str(ch.action) for ch in stats.children} == {
        "support 0", "support 1", "support 2", "support 3"}
    assert sorted(ch.avail for ch in stats.children) == [1997, 1998, 1999, 2000]
    for ch in stats.children:
        assert ch.visits <= ch.avail <= stats.iterations
    assert sum(ch.visits for ch in stats.children) == 2000


def test_forced_win_in_one_action_is_found():
    g = load(forced_win())
    for seed in (1, 2, 3):
        bot = bots.make("ismcts", iterations=200, seed=seed)
        assert g.action_str(bot.choose(g)) == WINNING_MOVE
        best = bot.last.children[0]
        assert g.action_str(best.action) == WINNING_MOVE
        assert best.value == 1.0
        assert all(ch.value == 0.0 for ch in bot.last.children[1:])


def test_forced_win_found_by_visits_not_only_by_the_prior():
    """Other tiles in the king's kingdom score too (the same expansion prior); without
    widening every legal action is tried and UCB must single out the winner."""
    g = load(forced_win())
    stats = search_stats(g, iterations=1500, widening=0.0, rollout="random")
    assert len(stats.children) == len(g.legal_actions())
    top = stats.children[0]
    assert g.action_str(top.action) == WINNING_MOVE
    assert top.visits > 3 * stats.children[1].visits
    for final in ("visits", "value"):
        bot = bots.make("ismcts", iterations=1500, widening=0.0, final=final, seed=4)
        assert g.action_str(bot.choose(g)) == WINNING_MOVE


def test_halving_root_puts_most_visits_on_the_forced_win():
    """Sequential halving at the root: the UCB phase tries every move (no widening), the
    winner survives each halving and takes the last phase, so it holds far more visits
    than any other move, whatever the seed."""
    g = load(forced_win())
    for seed in (1, 2, 3):
        stats = search_stats(g, iterations=2000, seed=seed, widening=0.0, root="halving")
        top, second = stats.children[:2]
        assert g.action_str(top.action) == WINNING_MOVE and top.value == 1.0
        assert top.visits >= 2000 // 6 and top.visits > 2 * second.visits


def test_root_lookahead_puts_the_move_with_the_best_one_ply_value_first():
    """root_lookahead scales each root move's prior by its one-ply value: the winning
    move (value 1, every other move loses) is tried first whatever the seed, where the
    priors alone rank it among the other scoring tiles of C2."""
    g = load(forced_win())

    def first_tried(seed, lookahead):
        stats = search_stats(g, iterations=1, seed=seed, root_lookahead=lookahead)
        assert len(stats.children) == 1
        return g.action_str(stats.children[0].action)

    assert all(first_tried(seed, 30.0) == WINNING_MOVE for seed in range(1, 9))
    assert any(first_tried(seed, 0.0) != WINNING_MOVE for seed in range(1, 9))
    for root in ("ucb", "halving"):
        stats = search_stats(g, iterations=600, seed=2, root=root, root_lookahead=30.0)
        assert g.action_str(stats.children[0].action) == WINNING_MOVE


def test_root_lookahead_is_checked():
    for bad in (-1.0, float("nan"), float("inf"), "30"):
        with pytest.raises(ValueError, match="root_lookahead"):
            bots.make("ismcts", root_lookahead=bad)


def halving_phases(candidates):
    """The phases of a halving root with this many candidates: UCB, the halvings, the last."""
    return 2 + math.ceil(math.log2(candidates))


@pytest.mark.parametrize("budget", ["one step", "four steps", "seconds"])
def test_halving_root_shares_its_planned_budget_out_in_phases(budget):
    """However the budget is given, the phases are shares of the whole plan: the move left
    at the end holds at least the last phase's share of the visits and half the one
    before, the runner-up a share of that phase, and only the candidates have more
    visits than the whole UCB phase."""
    a, _ = midgame_pair()
    options = dict(PLAIN, exploration=0.7, rollout="greedy", rollout_depth=4, widening=2.0, root="halving",
                   candidates=8, seed=2)
    if budget == "one step":
        s = search.Search(a, **options)
        s.step(iterations=2400)
    elif budget == "four steps":
        s = search.Search(a, plan_iterations=2400, **options)
        for _ in range(4):
            s.step(iterations=600)
    else:
        s = search.Search(a, **options)
        s.step(seconds=0.4)
    stats = s.stats()
    visits = sorted((ch.visits for ch in stats.children), reverse=True)
    if budget == "seconds":
        # a time budget's phases are shares of the clock, which a loaded machine gives
        # unevenly: what the clock cannot move is that the halvings were done and the
        # move left at the end holds the most
        assert stats.rounds == halving_phases(8) - 1 and visits[0] > visits[1]      # all but UCB
        return
    n = sum(visits)
    phase = n / halving_phases(8)
    assert visits[0] >= 0.9 * 1.5 * phase              # the last phase and the final halving
    assert visits[0] > visits[1] >= 0.9 * phase / 2
    assert sum(v > phase + 1 for v in visits) <= 8     # the UCB phase gives no move more


def test_halving_plan_knobs_are_checked():
    a, _ = midgame_pair()
    for key, value in (("plan_iterations", -1), ("plan_iterations", 2 ** 63), ("plan_iterations", 1.5),
                       ("plan_seconds", NAN), ("plan_seconds", -1.0), ("plan_seconds", INF)):
        with pytest.raises(ValueError, match=f"^{key}"):
            search.Search(a, root="halving", **{key: value})


@pytest.mark.parametrize("kind", ["pimc", "cheat"])
def test_forced_win_found_by_the_other_search_bots(kind):
    g = load(forced_win())
    bot = bots.make(kind, iterations=400, seed=1)
    assert g.action_str(bot.choose(g)) == WINNING_MOVE


def test_greedy_takes_the_forced_win():
    g = load(forced_win())
    assert g.action_str(bots.make("greedy", seed=1).choose(g)) == WINNING_MOVE


def test_forced_win_is_found_whatever_the_hidden_tiles():
    a = load(forced_win())
    b = load(with_hidden(forced_win(), {1: {"hand": hand(black=6)}}))
    bot_a, bot_b = bots.make("ismcts", iterations=200, seed=9), bots.make("ismcts", iterations=200, seed=9)
    assert bot_a.choose(a) == bot_b.choose(b) == act(a, WINNING_MOVE)
    assert bot_a.last.children == bot_b.last.children


# ---------------------------------------------------------------------------
# N players: rewards per player, each mover maximises their own
# ---------------------------------------------------------------------------

def three_player_last_action():
    """Player 2 moves last.  Player 2's king (A1) kingdom is open only at C2; player 0's
    king (P11, temple O11) kingdom is open at N11, O10, P10.  After treasures: player 0
    (4, 7, 7, 7), player 1 (5, 5, 5, 5), player 2 (4, 6, 6, 6).  A black point wins for
    whoever's kingdom gets it; anything else leaves player 1 the winner."""
    squares = dict(FORCED_WIN, A1="king:2", **{"P11": "king:0", "O11": "red"})
    return position(squares,
                    [hand(red=1, blue=1, green=2, black=2), hand(red=2, blue=2, green=1, black=1),
                     hand(red=2, blue=1, green=2, black=1)],
                    to_move=2, actions_left=1, taken=LAST_TAKEN, treasures=[3, 3, 2],
                    scores=[score(red=7, blue=7, green=7, black=1),
                            score(red=5, blue=5, green=5, black=2),
                            score(red=6, blue=6, green=6, black=2)],
                    bag=tiles(red=20, blue=20, green=20, black=20))


def test_three_player_position_outcomes():
    g = load(three_player_last_action())
    assert g.current_player == 2
    outcomes, revolts = {}, []
    for a in g.legal_actions():
        g.apply(a)
        if g.is_over:
            outcomes[g.action_str(a)] = g.ranking()[0]
        else:               # player 2's king moved next to player 0's: a revolt
            assert g.decision == "support" and g.action_str(a).startswith("leader king")
            revolts.append(g.action_str(a))
        g.undo()
    assert sorted(revolts) == ["leader king N11", "leader king O10"]
    assert outcomes[WINNING_MOVE] == [2]
    assert outcomes["tile black O10"] == [0]
    assert outcomes["pass"] == [1]


def test_three_player_search_uses_the_searching_players_rewards():
    g = load(three_player_last_action())
    terminal = {}
    for a in g.legal_actions():
        g.apply(a)
        if g.is_over:
            terminal[a] = EVALUATOR.rewards(g)
        g.undo()
    bot = bots.make("ismcts", iterations=600, seed=2)
    assert g.action_str(bot.choose(g)) == WINNING_MOVE
    stats = bot.last
    assert stats.player == 2
    for ch in stats.children:
        assert 0.0 <= ch.value <= 1.0
        # Terminal after one action: each child's mean is exactly player 2's reward there.
        if ch.action in terminal:
            assert ch.value == pytest.approx(terminal[ch.action][2], abs=1e-6)
    values = {g.action_str(ch.action): ch.value for ch in stats.children}
    assert values[WINNING_MOVE] == 1.0
    if "tile black O10" in values:                 # player 0 wins: player 2 is last
        assert values["tile black O10"] == 0.0


def test_three_player_terminal_rewards_are_per_player():
    g = load(three_player_last_action())
    g.apply(WINNING_MOVE)
    assert EVALUATOR.rewards(g) == pytest.approx([0.0, 0.5, 1.0])
    g.undo()
    g.apply("tile black O10")
    assert EVALUATOR.rewards(g) == pytest.approx([1.0, 0.5, 0.0])
    g.undo()
    g.apply("pass")
    assert EVALUATOR.rewards(g) == pytest.approx([0.5, 1.0, 0.0])


def test_opponent_nodes_maximise_the_opponents_reward():
    """The attacker (player 0) searches his commitment.  The defender answers by maximising
    his own reward: committing 1 red (a tie, defended) whenever he holds the one unseen
    red tile, i.e. in half the worlds.  So 'support 1' is worth about 0.5 to the attacker,
    'support 0' nothing and 'support 2' or more a sure win."""
    g = load(revolt(stage=0))
    assert (g.decision, g.current_player) == ("support", 0)
    stats = search_stats(g, iterations=3000, exploration=3.0, widening=0.0, seed=1)
    values = {g.action_str(ch.action): ch.value for ch in stats.children}
    assert values["support 0"] == 0.0
    assert values["support 2"] == 1.0 and values["support 3"] == 1.0
    assert 0.3 < values["support 1"] < 0.7
    bot = bots.make("ismcts", iterations=500, seed=1)
    assert g.action_str(bot.choose(g)) in ("support 2", "support 3")


# ---------------------------------------------------------------------------
# Searches that start inside a conflict or a treasure choice
# ---------------------------------------------------------------------------

def revolt_defender_pair():
    a = revolt(stage=1, attacker_hand=hand(red=2, green=1))
    b = with_hidden(a, {0: {"hand": hand(blue=1, black=2)}})
    return load(a), load(b)


def test_defender_search_in_a_revolt_ignores_the_attackers_hand():
    a, b = revolt_defender_pair()
    assert (a.decision, a.current_player, a.active_player) == ("support", 1, 0)
    assert public_view(a, 1) == public_view(b, 1) and a.hand(0) != b.hand(0)
    assert search_stats(a) == search_stats(b)
    for kind, params in HONEST_KINDS:
        bot_a, bot_b = bots.make(kind, seed=2, **params), bots.make(kind, seed=2, **params)
        choice = bot_a.choose(a)
        assert choice == bot_b.choose(b), kind
        # 2 : 1 after the attacker's 1; the defender's 1 red ties and wins the game.
        assert a.action_str(choice) == "support 1", kind
        if kind != "greedy":
            assert bot_a.last.player == 1
            assert bot_a.last.children == bot_b.last.children, kind


@pytest.mark.parametrize("stage", [0, 1])
def test_search_inside_a_conflict_of_a_game_that_goes_on(stage):
    """Attacker (stage 0) or defender (stage 1) searching: the opponent's hand and the bag
    do not change the statistics, though they change the true state's future."""
    a = midgame_revolt(stage)
    searcher, other = (0, 1) if stage == 0 else (1, 0)
    changed = hand(blue=2, green=2, black=1) if other == 0 else hand(blue=3, green=1, black=2)
    b = with_hidden(a, {other: {"hand": changed}})
    ga, gb = load(a), load(b)
    assert (ga.decision, ga.current_player) == ("support", searcher)
    assert public_view(ga, searcher) == public_view(gb, searcher)
    assert ga.hand(other) != gb.hand(other)
    assert search_stats(ga) == search_stats(gb)
    for kind, params in HONEST_KINDS:
        bot_a, bot_b = bots.make(kind, seed=6, **params), bots.make(kind, seed=6, **params)
        assert bot_a.choose(ga) == bot_b.choose(gb), kind
        if kind != "greedy":
            assert bot_a.last.player == searcher
            assert bot_a.last.children == bot_b.last.children, kind
    # the pair is a real test: searching the true state tells the two games apart
    cheat_a, cheat_b = bots.make("cheat", iterations=300, seed=6), bots.make("cheat", iterations=300, seed=6)
    cheat_a.choose(ga)
    cheat_b.choose(gb)
    assert cheat_a.last.children != cheat_b.last.children


def test_defender_search_values_are_the_defenders():
    a, _ = revolt_defender_pair()
    stats = search_stats(a, iterations=300, widening=0.0)
    values = {a.action_str(ch.action): ch.value for ch in stats.children}
    assert stats.player == 1
    assert values == {"support 0": 0.0, "support 1": 1.0}


def test_attacker_search_in_a_revolt_ignores_the_defenders_hand():
    a = revolt(stage=0)
    b = with_hidden(a, {1: {"hand": hand(blue=1, green=1, black=1)}})   # red now in the bag
    ga, gb = load(a), load(b)
    assert public_view(ga, 0) == public_view(gb, 0) and ga.hand(1) != gb.hand(1)
    assert search_stats(ga) == search_stats(gb)
    # cheat knows whether the defender holds the red tile, and its values show it
    assert search_stats(ga, determinize=False) != search_stats(gb, determinize=False)


def test_treasure_choice_searched_by_the_traders_owner():
    a = treasure_choice()
    b = with_hidden(a, {0: {"hand": hand(black=3, blue=2)}})
    ga, gb = load(a), load(b)
    assert (ga.decision, ga.current_player, ga.active_player) == ("treasure", 1, 0)
    assert {ga.action_str(x) for x in ga.legal_actions()} == {"treasure F10", "treasure K11"}
    assert public_view(ga, 1) == public_view(gb, 1) and ga.hand(0) != gb.hand(0)
    sa, sb = search_stats(ga), search_stats(gb)
    assert sa == sb
    assert sa.player == 1
    assert {ch.action for ch in sa.children} == set(ga.legal_actions())
    for kind, params in HONEST_KINDS:
        bot_a, bot_b = bots.make(kind, seed=4, **params), bots.make(kind, seed=4, **params)
        choice = bot_a.choose(ga)
        assert choice == bot_b.choose(gb) and choice in ga.legal_actions(), kind
        if kind != "greedy":
            assert bot_a.last.player == 1
            assert bot_a.last.children == bot_b.last.children, kind
    # taking the treasure is the trader owner's gain whichever is taken
    ga.apply(sa.best)
    assert ga.score(1)["treasures"] == 1 and ga.current_player == 0


# ---------------------------------------------------------------------------
# The evaluation
# ---------------------------------------------------------------------------

def finished(scores, treasures):
    n = len(scores)
    return load(position({}, [hand(red=1)] * n, taken=LAST_TAKEN, treasures=treasures,
                         scores=scores, pending={"decision": "over"}))


def test_terminal_rewards_two_players():
    g = finished([score(red=5, blue=5, green=5, black=5), score(blue=9, green=9, black=9)],
                 [4, 4])
    assert g.is_over and g.ranking() == [[0], [1]]
    assert EVALUATOR.rewards(g) == [1.0, 0.0]
    g = finished([score(red=3, blue=5, green=5, black=5), score(red=5, blue=3, green=5, black=5)],
                 [4, 4])
    assert g.ranking() == [[0, 1]]
    assert EVALUATOR.rewards(g) == [0.5, 0.5]


def test_terminal_rewards_three_and_four_players():
    g = finished([score(red=5, blue=5, green=5, black=5), score(red=5, blue=5, green=5, black=5),
                  score(red=1, blue=1, green=1, black=1)], [3, 3, 2])
    assert g.ranking() == [[0, 1], [2]]
    assert EVALUATOR.rewards(g) == pytest.approx([0.75, 0.75, 0.0])
    g = finished([score(red=6, blue=6, green=6, black=6), score(red=2, blue=2, green=2, black=2),
                  score(red=4, blue=4, green=4, black=4), score(red=3, blue=3, green=3, black=3)],
                 [2, 2, 2, 2])
    assert g.ranking() == [[0], [2], [3], [1]]
    assert EVALUATOR.rewards(g) == pytest.approx([1.0, 0.0, 2 / 3, 1 / 3])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_terminal_rewards_follow_the_ranking_of_random_games(players):
    for g in finished_random_games(players, range(4)):
        rewards = EVALUATOR.rewards(g)
        places = g.ranking()
        better = 0
        for tied in places:
            for p in tied:
                expected = 1.0 - (better + (len(tied) - 1) * 0.5) / (players - 1)
                assert rewards[p] == pytest.approx(expected)
            better += len(tied)


def test_heuristic_rewards_in_the_open_interval_and_symmetric_in_two_players():
    for seed in range(3):
        g = tigris.Game(players=2, seed=seed)
        bot = bots.make("random", seed=seed)
        for _ in range(120):
            if g.is_over:
                break
            r = EVALUATOR.rewards(g)
            assert len(r) == 2
            assert all(0.0 < v < 1.0 for v in r)
            assert sum(r) == pytest.approx(1.0, abs=1e-6)
            g.apply(bot.choose(g))


def test_heuristic_rewards_three_players_and_who_leads():
    g = load(midgame(players=3))
    r = EVALUATOR.rewards(g)
    assert len(r) == 3 and all(0.0 < v < 1.0 for v in r)
    ahead = load(position({}, [hand(red=1)] * 2,
                          scores=[score(red=5, blue=5, green=5, black=5), score(red=1)]))
    r = EVALUATOR.rewards(ahead)
    assert r[0] > 0.5 > r[1] and sum(r) == pytest.approx(1.0)


def test_evaluation_and_prior_do_not_change_the_game():
    a, _ = midgame_pair()
    before = a.state_bytes()
    EVALUATOR.rewards(a)
    for x in a.legal_actions()[:50]:
        EVALUATOR.prior(a, x)
    assert a.state_bytes() == before


def test_search_refuses_a_finished_game_and_an_empty_budget():
    g = finished([score(red=5), score(red=4)], [4, 4])
    with pytest.raises(ValueError, match="over"):
        search.run(g, iterations=10, **PLAIN)
    a, _ = midgame_pair()
    with pytest.raises(ValueError, match="budget"):
        search.Search(a, **PLAIN).step()
    with pytest.raises(ValueError, match="no root statistics"):
        search.choose([], "visits")


def test_search_grows_in_steps():
    a, _ = midgame_pair()
    s = search.Search(a, seed=3, **PLAIN)
    assert s.step(100) == 100
    assert s.step(150) == 150
    stats = s.stats()
    assert stats.iterations == 250
    assert sum(ch.visits for ch in stats.children) == 250


# ---------------------------------------------------------------------------
# Bad knobs and budgets are refused; a running search stops on Ctrl-C
# ---------------------------------------------------------------------------

NAN, INF = math.nan, math.inf
HUGE = 10 ** 400                     # an int beyond any double

BAD_KNOBS = [
    ("exploration", NAN), ("exploration", INF), ("exploration", -INF), ("exploration", -0.5),
    ("exploration", HUGE), ("exploration", "0.7"), ("exploration", True),
    ("epsilon", NAN), ("epsilon", INF), ("epsilon", 1.5), ("epsilon", -0.1),
    ("widening", NAN), ("widening", INF), ("widening", -1.0),
    ("rollout_depth", 2 ** 31), ("rollout_depth", -2), ("rollout_depth", 2 ** 63), ("rollout_depth", 2.0),
    ("root", "halve"), ("root", None), ("candidates", 0), ("candidates", -1), ("candidates", 2 ** 63),
    ("candidates", 4.0), ("candidates", N_ACTIONS + 1), ("halving_scale", -0.1), ("halving_scale", NAN),
    ("seed", 1.5), ("seed", "1"), ("seed", None),
]


def knob_id(case):
    key, value = case
    return f"{key}={'10**400' if value is HUGE else repr(value)}"


@pytest.mark.parametrize("key,value", BAD_KNOBS, ids=map(knob_id, BAD_KNOBS))
def test_search_refuses_bad_knobs_naming_them(key, value):
    a, _ = midgame_pair()
    with pytest.raises(ValueError) as e:
        search.Search(a, **{key: value})
    assert str(e.value).startswith(key), str(e.value)
    assert len(str(e.value)) < 160                   # a huge value is quoted by its size


BAD_BUDGETS = [
    ("iterations", 2 ** 63), ("iterations", search.MAX_ITERATIONS + 1), ("iterations", -1),
    ("iterations", 2.5), ("iterations", True), ("iterations", "10"),
    ("seconds", NAN), ("seconds", INF), ("seconds", -INF), ("seconds", -1.0), ("seconds", HUGE),
    ("seconds", "1"),
]


@pytest.mark.parametrize("key,value", BAD_BUDGETS, ids=map(knob_id, BAD_BUDGETS))
def test_search_step_refuses_bad_budgets_naming_them(key, value):
    a, _ = midgame_pair()
    s = search.Search(a, seed=1, **PLAIN)
    # Both budgets, so that a search which wrongly accepts the value still ends.
    budget = {"iterations": 10, "seconds": 0.05, key: value}
    with pytest.raises(ValueError) as e:
        s.step(**budget)
    assert str(e.value).startswith(key), str(e.value)
    assert s.iterations == 0 and s.stats().nodes == 0
    with pytest.raises(ValueError, match=f"^{key}"):
        search.run(a, **budget, **PLAIN)


def test_a_tree_takes_at_most_max_iterations_in_all():
    a, _ = midgame_pair()
    s = search.Search(a, seed=1, **PLAIN)
    s.step(iterations=10)
    with pytest.raises(ValueError) as e:
        s.step(iterations=search.MAX_ITERATIONS - 5, seconds=0.05)
    assert "iterations must be at most 2147483636" in str(e.value) and "has run 10" in str(e.value)
    assert s.iterations == 10


def test_a_time_budget_runs_at_least_one_iteration():
    a, _ = midgame_pair()
    s = search.Search(a, seed=1, **PLAIN)
    assert s.step(seconds=1e-12) >= 1
    assert s.stats().best in a.legal_actions()


def test_the_prior_refuses_what_is_not_an_action():
    a, _ = midgame_pair()
    for bad in (-1, 3747, 2 ** 63, 1.0, True):
        with pytest.raises(ValueError, match="^action"):
            EVALUATOR.prior(a, bad)
    with pytest.raises(TypeError):
        EVALUATOR.rewards(None)


def test_no_knob_or_budget_crashes_the_search_or_the_search_bots():
    """In a child process: every bad knob and budget, given to the compiled search and to
    the search bots built without the configuration check (as tournament workers build
    them), is refused with a ValueError; extreme but valid knobs search normally."""
    code = f"""
import math, tigris
from tigris import search
from tigris import knobs
from tigris.bots import CLASSES
nan, inf, HUGE = math.nan, math.inf, 10 ** 400
g = tigris.Game(players=2, seed=3)
for key, value in {[(k, v) for k, v in BAD_KNOBS if k != "seed"]!r}:
    for kind in ("ismcts", "pimc", "cheat"):
        params = dict(knobs.defaults(kind), iterations=200)
        params[key] = value
        try:
            CLASSES[kind](**params).choose(g)
        except ValueError as e:
            assert str(e).startswith(key), e
        else:
            raise SystemExit(f"{{kind}} accepted {{key}}={{value!r}}")
for seconds in (nan, inf, -1.0, HUGE):
    try:
        CLASSES["ismcts"](**dict(knobs.defaults("ismcts"), iterations=None, seconds=seconds)).choose(g)
    except ValueError as e:
        assert str(e).startswith("seconds"), e
    else:
        raise SystemExit(f"accepted seconds={{seconds!r}}")
legal = g.legal_actions()
for options in ({{"exploration": 1e308}}, {{"exploration": 0.0}}, {{"widening": 1e308}},
                {{"widening": 1e-300}}, {{"rollout_depth": 2 ** 31 - 1, "rollout": "greedy",
                                        "epsilon": 0.0}}, {{"seed": -2 ** 200}},
                {{"root": "halving", "candidates": 1}},
                {{"root": "halving", "candidates": {N_ACTIONS}, "widening": 0.0}}):
    assert search.run(g, iterations=300, **{{**search.PLAIN, **options}}).best in legal, options
print("ok")
"""
    r = python(code)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stdout, r.stderr[-3000:])


SEARCH_FOR_TEN_MINUTES = """
import sys, tigris
from tigris import search
s = search.Search(tigris.Game(players=2, seed=1), seed=1, **search.PLAIN)
print("searching", flush=True)
try:
    s.step(seconds=600)
except KeyboardInterrupt:
    stats = s.stats()
    assert stats.iterations == s.iterations == sum(ch.visits for ch in stats.children) > 0
    assert s.step(iterations=50) == 50          # the tree grows on
    print("interrupted", flush=True)
    sys.exit(130)
"""


def test_ctrl_c_stops_a_running_search():
    code, out, err, left = interrupt(["-c", SEARCH_FOR_TEN_MINUTES], "searching", timeout=15)
    assert code == 130, (code, out, err[-3000:])
    assert out.split() == ["searching", "interrupted"] and err == "", (out, err)
    assert left == []


def test_choose_final_rule():
    children = [{"action": 1, "visits": 100, "value": 0.5},
                {"action": 2, "visits": 20, "value": 0.9},
                {"action": 3, "visits": 5, "value": 1.0}]
    assert search.choose(children, "visits") == 1
    assert search.choose(children, "value") == 2        # 3 has too few visits to count


# ---------------------------------------------------------------------------
# Strength smoke test
# ---------------------------------------------------------------------------

def play_game(players, seed):
    g = tigris.Game(players=len(players), seed=seed)
    while not g.is_over:
        g.apply(players[g.current_player].choose(g))
    return g


@pytest.mark.slow
def test_ismcts_beats_random():
    wins = 0
    for seed in range(6):
        ismcts = bots.make("ismcts", iterations=200, seed=seed)
        rnd = bots.make("random", seed=seed)
        seat = seed % 2
        g = play_game([ismcts, rnd] if seat == 0 else [rnd, ismcts], seed)
        wins += g.ranking()[0] == [seat]
    assert wins >= 5


def test_greedy_beats_random():
    wins = 0
    for seed in range(4):
        seat = seed % 2
        greedy, rnd = bots.make("greedy", seed=seed), bots.make("random", seed=seed)
        g = play_game([greedy, rnd] if seat == 0 else [rnd, greedy], 100 + seed)
        wins += g.ranking()[0] == [seat]
    assert wins >= 3
