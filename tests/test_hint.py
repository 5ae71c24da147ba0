"""Move hints from Python and from the command line."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tigris
from tigris import bots
from tigris.commands import main
from tigris.hints import format_table, shown_continuation
from tigris.record import to_record
from tigris.search import ChildStats, Halving

from processes import ROOT, interrupt, python



def _identity_two_player(monkeypatch):
    """A 2-player game with the chance map the identity: the game, its legal actions, the
    mover, and ``ch(x)``, chances with the mover's x and the other's 1 - x."""
    from tigris import chance

    monkeypatch.setattr(chance, "_shipped", {n: chance.IDENTITY for n in (2, 3, 4)})
    g = tigris.Game(players=2, seed=7)
    m = g.current_player

    def ch(x):
        c = [1 - x, 1 - x]
        c[m] = x
        return c

    return g, g.legal_actions(), m, ch

def test_hint_ranks_legal_moves_with_statistics():
    g = tigris.Game(players=2, seed=7)
    hints = tigris.hint(g, iterations=1500, top=4, progress=False)
    assert len(hints) == 4
    legal = set(g.legal_actions())
    assert all(h["action"] in legal and g.parse_action(h["move"]) == h["action"] for h in hints)
    assert all(0 < h["share"] <= 1 and 0 <= h["win"] <= 1 for h in hints)
    assert sum(h["visits"] for h in hints) <= 1500
    # The continuation is a line of decisions after the move, by named players.
    line = next(h["continuation"] for h in hints if h["continuation"])
    assert line[0].startswith("player ")


def test_hint_is_reproducible_with_a_seed():
    g = tigris.Game(players=3, seed=2)
    a = tigris.hint(g, iterations=800, seed=5, progress=False)
    b = tigris.hint(g, iterations=800, seed=5, progress=False)
    assert a == b


def test_hint_errors():
    g = tigris.Game(players=2, seed=1)
    with pytest.raises(ValueError, match="^iterations must be >= 1, not 0"):
        tigris.hint(g, iterations=0)
    with pytest.raises(ValueError, match="ismcts"):
        tigris.hint(g, iterations=10, bot="greedy")
    g.random_playout(1)
    with pytest.raises(ValueError, match="over"):
        tigris.hint(g, iterations=10)


def test_hint_command_on_a_position_and_a_record(tmp_path, capsys):
    g = tigris.Game(players=2, seed=4)
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(g.to_position(player=0)))
    assert main(["hint", str(pos), "--iterations", "600", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "player 0 to decide" in out and out.count("\n") >= 4

    for _ in range(12):
        g.apply(g.legal_actions()[len(g.legal_actions()) // 2])
    rec = tmp_path / "game.json"
    rec.write_text(json.dumps(to_record(g)))
    assert main(["hint", str(rec), "--iterations", "600", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["player"] == g.current_player and data["hints"]
    assert data["bot"] == "ismcts-hint" and data["seed"] == 0
    assert data["iterations"] == 600 and data["seconds"] > 0
    assert list(data["hints"][0]) == ["rank", "mark", "equal", "searched", "move", "action", "plan", "visits",
                                      "share", "rounds", "prior", "win", "error", "first", "chances", "longer",
                                      "continuation", "why"]
    assert data["equals"] >= 1
    for h in data["hints"]:
        assert len(h["chances"]) == 2 and sum(h["chances"]) == pytest.approx(1.0, abs=1e-6)
        assert h["win"] == h["chances"][data["player"]]
    assert main(["hint", str(rec), "--move", "3", "--iterations", "300", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hints"]


def test_bots_command_lists_the_shipped_bots(capsys):
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    for name in ("random", "greedy", "ismcts-fast", "ismcts-strong", "pimc", "cheat"):
        assert name in out
    assert "REFERENCE CEILING" in out


def test_bench_search_runs_small(monkeypatch, capsys):
    from tigris.runs import bench

    calls = []
    rows = bench.bench_search(repeats=1, iterations=400, progress=lambda: calls.append(1))
    names = [r[0] for r in rows]
    assert any("cut-off 10" in n for n in names) and any("overhead" in n for n in names)
    assert any("greedy rollouts" in n for n in names)
    assert len(calls) == bench.search_runs(1)
    assert all(r[1] > 0 for r in rows)


@pytest.mark.slow
def test_midgame_positions_are_reproducible_action_decisions_with_a_choice():
    from tigris.runs import bench

    first = bench.midgame_positions(per_count=1, seed=4)
    again = bench.midgame_positions(per_count=1, seed=4)
    assert [g.players for g in first] == [2, 3, 4]
    assert [g.state_bytes() for g in first] == [g.state_bytes() for g in again]
    for g in first:
        assert g.decision == "action" and len(g.legal_actions()) >= 2 and not g.is_over
        assert len(g.history) >= 10


def test_bench_decisive_runs_small():
    from tigris.runs import bench

    calls = []
    rows = bench.bench_decisive(bot="ismcts-fast", iterations=300, per_count=1,
                                progress=lambda: calls.append(1))
    assert len(calls) == bench.decisive_runs(per_count=1) == 9
    figures = dict((name, value) for name, value, _ in rows)
    assert set(figures) >= {"same top plan for seeds 1, 2, 3, 2 players",
                            "same top plan, all 3 positions",
                            "each seed's top plan among the other seeds' equals, all 3 positions",
                            "median number of equal plans",
                            "median share of the root visits on the top plan"}
    # A share of 3 positions in percent (computed as 100 * k / 3 or k / 3 * 100).
    assert figures["same top plan, all 3 positions"] * 3 / 100 == pytest.approx(
        round(figures["same top plan, all 3 positions"] * 3 / 100))
    assert 0 <= figures["same top plan, all 3 positions"] <= 100
    # The same top plan for every seed is among every seed's equals.
    assert figures["each seed's top plan among the other seeds' equals, all 3 positions"] >= \
        figures["same top plan, all 3 positions"]
    assert 0 < figures["median share of the root visits on the top plan"] <= 100


# ---------------------------------------------------------------------------
# Bad budgets are refused; Ctrl-C stops a hint
# ---------------------------------------------------------------------------

def test_hint_refuses_bad_budgets_naming_them():
    """In a child process, since a budget wrongly accepted could search for ever."""
    code = """
import json, math, tigris
g = tigris.Game(players=2, seed=1)
cases = [("seconds", math.nan), ("seconds", math.inf), ("seconds", -math.inf), ("seconds", 0),
         ("seconds", -1.0), ("seconds", 10 ** 400), ("seconds", "5"), ("seconds", True),
         ("iterations", 2 ** 63), ("iterations", 2 ** 31 - 1), ("iterations", 0),
         ("iterations", 2.5), ("iterations", True), ("iterations", "10")]
out = []
for key, value in cases:
    other = {"iterations": 10} if key == "seconds" else {"seconds": 0.05}
    try:
        tigris.hint(g, progress=False, **other, **{key: value})
        out.append([key, None])
    except ValueError as e:
        out.append([key, str(e)])
print(json.dumps(out))
"""
    r = python(code)
    assert r.returncode == 0, (r.returncode, r.stderr[-3000:])
    results = json.loads(r.stdout)
    assert len(results) == 14
    for key, message in results:
        assert message is not None and message.startswith(key + " must be"), (key, message)
        assert len(message) < 160, message


def test_hint_command_refuses_a_nan_budget_in_one_line(tmp_path):
    """In a child process, since a budget wrongly accepted could search for ever."""
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(tigris.Game(players=2, seed=4).to_position(player=0)))
    for option, value in (("--seconds", "nan"), ("--seconds", "inf"), ("--iterations", str(2 ** 63))):
        r = python(f"import sys; from tigris.commands import main; sys.exit(main({['hint', str(pos), option, value]!r}))",
                   timeout=60)
        # Refused as an option value (argparse's status 2), in one line naming the option.
        assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stdout, r.stderr[-3000:])
        assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"tigris hint: argument {option}: "), r.stderr
        assert "Traceback" not in r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("jobs,delay", [(1, 1.0), (2, 0.0), (2, 1.0)])
def test_ctrl_c_stops_a_hint(tmp_path, jobs, delay):
    """A long hint stops on Ctrl-C (while its workers start, or while they search) with the
    usual one line and exit status 130; no worker outlives it."""
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(tigris.Game(players=2, seed=4).to_position(player=0)))
    code, out, err, left = interrupt(["-m", "tigris", "hint", str(pos), "--seconds", "6000",
                                      "--jobs", str(jobs)], "searching", stream="stderr",
                                     delay=delay, timeout=15)
    assert code == 130, (code, out, err[-3000:])
    # (A Ctrl-C that lands while the progress bar starts may leave it uncleared.)
    assert err.rstrip().endswith("tigris hint: interrupted") and "Traceback" not in err, err[-3000:]
    assert out == "" and left == []


# ---------------------------------------------------------------------------
# One search path: a hint is the bot's analysis
# ---------------------------------------------------------------------------

def test_hint_is_the_bots_analysis(monkeypatch):
    """A hint ranks the moves by the analysis of the bot it names, grown in the same steps
    from the same seed; the bot file (and the one it extends) is read once."""
    from tigris._plumbing import tomlfile

    from tigris import bots, chance
    from tigris.hints import CHUNKS, ranked

    monkeypatch.chdir(ROOT)
    g = tigris.Game(players=2, seed=6)
    reads = []
    read = tomlfile.read_source
    monkeypatch.setattr(tomlfile, "read_source", lambda path, *a: reads.append(str(path)) or read(path, *a))
    hints = tigris.hint(g, iterations=700, seed=3, top=10_000, progress=False)
    assert sorted(Path(r).name for r in reads) == ["ismcts-fast.toml", "ismcts-hint.toml"]
    stats = bots.load("ismcts-hint", seed=3).root_statistics(g, iterations=700, steps=CHUNKS)
    rows = ranked(g, stats.children)
    searched = [r for r in rows if r["searched"]]
    assert [dict(h, why=None) for h in hints] == searched and hints.equals == sum(h["equal"] for h in hints)
    assert hints.unsearched == sum(not r["searched"] for r in rows) > 0
    # The search's choice first, its chances (averaged over its visits) calibrated.
    first = stats.children[0]
    assert hints[0]["action"] == first.action and hints[0]["visits"] == first.visits
    assert hints[0]["chances"] == chance.calibrated(list(first.mean), g.current_player)
    assert {h["action"] for h in hints} <= {ch.action for ch in stats.children}


def test_hint_budget_is_exact_with_several_workers():
    g = tigris.Game(players=2, seed=2)
    # two workers (a hint's jobs are processes: at most the cores, and CI has two)
    hints = tigris.hint(g, iterations=1001, workers=2, seed=1, top=10_000, progress=False)
    assert hints.iterations == 1001                          # 501 + 500, not 2 x 501


def test_hint_with_a_bot_object():
    from tigris import bots

    g = tigris.Game(players=2, seed=2)
    bot = bots.make("ismcts", iterations=50, seed=4)
    hints = tigris.hint(g, iterations=300, bot=bot, top=10_000, progress=False)
    assert hints.iterations == 300                           # the hint's budget, not the bot's
    with pytest.raises(ValueError, match="workers and seed apply to a bot configuration name"):
        tigris.hint(g, iterations=300, bot=bot, seed=1)
    with pytest.raises(ValueError, match="hints need an ismcts bot, not a greedy one"):
        tigris.hint(g, iterations=300, bot=bots.make("greedy"))


def test_hints_carry_what_the_search_spent(capsys):
    g = tigris.Game(players=2, seed=4)
    hints = tigris.hint(g, iterations=900, workers=1, seed=5, top=2, progress=False)
    assert len(hints) == 2 and hints.iterations == 900 and hints.seed == 5
    assert hints.bot == "ismcts-hint" and hints.seconds > 0
    table = format_table(g, hints)
    assert "ismcts-hint, seed 5: 900 iterations in" in table


def test_the_table_shows_the_continuation_to_the_players_reply():
    line = ["player 0: pass", "player 1: tile red A1", "player 1: pass", "player 0: tile blue E1",
            "player 0: pass", "player 1: pass"]
    assert shown_continuation(line, 0) == line[:4]
    assert shown_continuation(line[:3], 0) == line[:3]
    assert shown_continuation(line, 1) == line[:2]


def test_the_calibrated_configuration_backs_up_the_calibrated_win_chance():
    conf = bots.configuration("ismcts-calibrated")
    assert conf.kind == "ismcts" and conf.params["eval_calibrated"] == 1.0
    g = tigris.Game(players=3, seed=4)
    hints = tigris.hint(g, iterations=600, bot="ismcts-calibrated", top=3, progress=False)
    assert hints.bot == "ismcts-calibrated" and all(0.0 <= h["win"] <= 1.0 for h in hints)


@pytest.mark.parametrize("bot", ["ismcts-fast", "ismcts-calibrated"])
def test_a_move_that_wins_outright_takes_most_visits_and_a_certain_win(bot):
    from test_search import WINNING_MOVE, forced_win, load

    # Both search with sequential halving at the root: the winner takes the last of its
    # six phases (UCB, four halvings of 16 candidates, the winner alone) and its share
    # of the others, so it holds far more visits than any other move.
    from tigris import chance

    g = load(forced_win())
    hints = tigris.hint(g, iterations=2000, bot=bot, progress=False)
    assert hints[0]["move"] == WINNING_MOVE
    assert hints[0]["share"] > 0.25 and hints[0]["visits"] > 2 * hints[1]["visits"]
    certain = [0.0] * g.players
    certain[g.current_player] = 1.0
    assert hints[0]["chances"] == chance.calibrated(certain, g.current_player)   # a certain win
    assert all(h["win"] < 0.5 for h in hints[1:])
    # The one winning move stands alone: every other plan reads below it.
    assert hints.equals == 1 and [h["mark"] for h in hints] == ["choice"] + ["below"] * (len(hints) - 1)


# ---------------------------------------------------------------------------
# Plans, equals and the ranking
# ---------------------------------------------------------------------------

def two_actions_either_order(game):
    """Two actions of the player to move, each legal after the other, that lead to the
    same position in either order."""
    legal = game.legal_actions()
    for a in legal:
        for b in legal:
            if b <= a:
                continue
            ab, ba = game.copy(stack=False), game.copy(stack=False)
            ab.apply(a)
            ba.apply(b)
            if ab.current_player == ba.current_player == game.current_player and \
                    ab.is_legal(b) and ba.is_legal(a):
                ab.apply(b)
                ba.apply(a)
                if ab.state_bytes() == ba.state_bytes():
                    return a, b
    raise AssertionError("no two actions commute here")


def child(action, visits, chances, error=0.005, pv=(), line=0, spread=None, rounds=0):
    """A root child as a search reports it: with `spread`, the chances are the mean over
    its visits and their spread (what a hint reads); without, the line's and its error."""
    return ChildStats(action=action, visits=visits, avail=visits, value=chances[0], chances=tuple(chances),
                      error=error, line=line, pv=tuple(pv), rounds=rounds,
                      mean=None if spread is None else tuple(chances), spread=spread or 0.0)


def test_two_orders_of_one_turn_are_one_plan_shown_once():
    from tigris.hints import plans, ranked

    g = tigris.Game(players=2, seed=7)
    p = g.current_player
    a, b = two_actions_either_order(g)
    children = [child(a, 900, (0.55, 0.45), pv=[(b, p)], line=1),
                child(b, 800, (0.54, 0.46), pv=[(a, p)], line=1),
                child(g.legal_actions()[-1], 100, (0.40, 0.60))]
    rows = plans(g, children)
    assert [r["plan"] for r in rows] == [[g.action_str(a), g.action_str(b)],
                                         [g.action_str(g.legal_actions()[-1])]]
    assert rows[0]["visits"] == 900
    shown = ranked(g, children)
    assert sum(set(r["plan"]) == {g.action_str(a), g.action_str(b)} for r in shown) == 1
    # A second action the search has not settled on (its line stops at the move) is left open.
    assert plans(g, [child(a, 900, (0.5, 0.5), pv=[(b, p)], line=0)])[0]["plan"] == [g.action_str(a)]


def test_a_real_search_shows_each_plan_once():
    g = tigris.Game(players=2, seed=7)
    hints = tigris.hint(g, iterations=5000, top=1000, seed=2, progress=False)
    keys = [tuple(sorted(h["plan"])) for h in hints]
    assert len(keys) == len(set(keys))


def test_one_winning_move_stands_alone_in_the_top_group(monkeypatch):
    from tigris import chance
    from tigris.hints import ranked

    monkeypatch.setattr(chance, "_shipped", {n: chance.IDENTITY for n in (2, 3, 4)})
    g = tigris.Game(players=2, seed=7)
    legal = g.legal_actions()
    mover = g.current_player
    win = [0.0, 0.0]
    win[mover] = 1.0
    lose = [0.6, 0.6]
    lose[mover] = 0.4
    children = [child(legal[0], 5000, win, spread=0.0)] + \
        [child(a, 300 - k, lose, spread=0.1) for k, a in enumerate(legal[1:20])]
    rows = ranked(g, children)
    assert [r["equal"] for r in rows] == [True] + [False] * 19
    assert [r["mark"] for r in rows] == ["choice"] + ["below"] * 19
    assert [r["rank"] for r in rows] == list(range(1, 21))


def test_a_plan_searched_too_little_is_never_ranked_above_a_searched_one(monkeypatch):
    """Whatever the chances and errors, the plans under SEARCHED of the visits come after
    every plan searched more, unranked and never equals; the choice is always ranked."""
    import random

    from tigris import chance
    from tigris.hints import SEARCHED, ranked

    monkeypatch.setattr(chance, "_shipped", {n: chance.IDENTITY for n in (2, 3, 4)})
    g = tigris.Game(players=2, seed=7)
    legal = g.legal_actions()
    m = g.current_player
    rng = random.Random(1)
    for _ in range(200):
        visits = sorted((rng.choice([0, 1, 3, 10, 50, 200, 1000, 4000]) for _ in range(12)), reverse=True)
        visits[0] += 1                  # the choice: the most visited
        children = []
        for a, v in zip(rng.sample(legal, 12), visits):
            x = rng.random()
            c = [1 - x, 1 - x]
            c[m] = x
            children.append(child(a, v, c, error=rng.choice([0.001, 0.02, 0.2])))
        rows = ranked(g, children)
        total = sum(visits)
        flags = [r["searched"] for r in rows]
        assert flags == sorted(flags, reverse=True)            # every searched row first
        assert rows[0]["action"] == children[0].action and rows[0]["rank"] == 1
        for r in rows[1:]:
            assert r["searched"] == (r["visits"] / total >= SEARCHED)
            assert r["rank"] is None if not r["searched"] else r["rank"] >= 1
            assert not (r["equal"] and not r["searched"])


def test_the_choice_first_then_the_others_by_the_movers_chance_each_marked(monkeypatch):
    """Issue 55: plans that read 4 points above the engine's play were ranked as its
    equals (1=), and the equals by visits before the others: the first row is the
    engine's play, the others follow by the chance shown, each marked by the figures."""
    from tigris.hints import ranked

    g, legal, m, ch = _identity_two_player(monkeypatch)

    children = [child(legal[0], 5000, ch(0.770), spread=0.05),       # the engine's play
                child(legal[1], 3000, ch(0.814), spread=0.05),       # reads well above it
                child(legal[2], 2000, ch(0.40), spread=0.05),        # clearly worse
                child(legal[3], 10, ch(0.47), spread=0.05),          # rough: too little searched to rank
                child(legal[4], 1000, ch(0.772), spread=0.05)]       # within its noise
    rows = ranked(g, children)
    assert [r["action"] for r in rows] == [legal[0], legal[1], legal[4], legal[2], legal[3]]
    assert [r["mark"] for r in rows] == ["choice", "above", "equal", "below", None]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, None]
    assert [r["equal"] for r in rows] == [True, False, True, False, False]
    assert [r["searched"] for r in rows] == [True, True, True, True, False]
    # the engine's play stays first whatever its place among the children
    again = ranked(g, [children[1], children[0], *children[2:]], choice=legal[0])
    assert [r["action"] for r in again] == [r["action"] for r in rows]


@st.composite
def root_statistics(draw):
    """Root children of a search with any visits, chances and spreads, some with how they
    stood at the halvings they lasted (the choice at every one), and the engine's choice
    among them."""
    n = draw(st.integers(2, 12))
    visits = draw(st.lists(st.integers(1, 20_000), min_size=n, max_size=n))
    chances = draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n))
    spreads = draw(st.lists(st.floats(0.0, 0.5), min_size=n, max_size=n))
    dropped = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))     # 0: never a candidate
    then = draw(st.lists(st.tuples(st.integers(1, 5000), st.floats(0.0, 1.0), st.floats(0.0, 0.5)),
                         min_size=5, max_size=5))
    choice = draw(st.integers(0, n - 1))
    return list(zip(visits, chances, spreads, dropped)), then, choice


@settings(max_examples=300, deadline=None, derandomize=True)
@given(root_statistics())
def test_the_marks_and_the_order_follow_the_figures_as_shown(stats):
    """Whatever the search reports, the first row is the engine's play and every other
    searched row is where its figures put it and marked as they, rounded as shown,
    say: never equal to the first with intervals apart, never above or below with
    intervals that overlap; an equal's `longer` is the least budget at which its
    intervals would part if the difference held.  A move is compared with #1 as #1 stood
    when it had the move's visits, at the halving that dropped the move."""
    from tigris import chance
    from tigris.hints import LONGEST, SEARCHED, ranked, shown

    g = tigris.Game(players=2, seed=7)
    legal = g.legal_actions()
    m = g.current_player

    def ch(x):
        c = [1 - x, 1 - x]
        c[m] = x
        return c

    found, then, choice = stats
    children = []
    for k, (a, (v, x, spread, dropped)) in enumerate(zip(legal, found)):
        children.append(child(a, v, ch(x), spread=spread))
        if k == choice:           # the choice stood at every halving
            children[-1] = replace(children[-1], halvings=tuple(
                Halving(halving=h, visits=w, mean=tuple(ch(y)), spread=z) for h, (w, y, z) in enumerate(then, start=1)))
        elif dropped:             # a move dropped at a halving: as it stands now, then
            children[-1] = replace(children[-1], halvings=(Halving(halving=dropped, visits=v, mean=tuple(ch(x)),
                                                                   spread=spread),))
    rows = ranked(g, children, choice=legal[choice])
    first = rows[0]
    assert first["action"] == legal[choice] and (first["rank"], first["mark"]) == (1, "choice")
    assert first["first"] is None
    total = sum(v for v, _, _, _ in found)
    searched = [r for r in rows[1:] if r["searched"]]
    assert all(r["visits"] / total >= SEARCHED for r in searched)
    gaps = [r["win"] - r["first"]["win"] for r in searched]
    assert gaps == sorted(gaps, reverse=True)            # by how they read against #1 then
    for k, r in enumerate(rows[1:], start=2):
        if not r["searched"]:
            assert (r["rank"], r["mark"], r["equal"], r["first"]) == (None, None, False, None)
            continue
        assert r["rank"] == k
        # #1 as it stood when it had this move's visits, else as it reads in the end
        dropped = found[legal.index(r["action"])][3]
        if dropped:
            visits, x, spread = then[dropped - 1]
            assert r["first"]["halving"] == dropped and r["first"]["visits"] == visits
            assert r["first"]["win"] == pytest.approx(chance.calibrated(ch(x), m)[m])
        else:
            assert r["first"] == {"win": first["win"], "error": first["error"], "visits": first["visits"],
                                  "halving": None}
        mine = r["first"]
        gap = shown(r["win"]) - shown(mine["win"])
        room = shown(r["error"]) + shown(mine["error"])
        assert r["mark"] == ("equal" if abs(gap) <= room else "above" if gap > 0 else "below")
        assert r["equal"] == (r["mark"] == "equal")
        if r["mark"] != "equal" or gap == 0:
            assert r["longer"] is None
        elif r["longer"] is not None:
            f, both = r["longer"], mine["error"] + r["error"]
            assert 2 <= f <= LONGEST
            assert both / f ** 0.5 <= abs(r["win"] - mine["win"]) + 1e-12     # apart at f times
            if f > 2:
                assert both / (f - 1) ** 0.5 > abs(r["win"] - mine["win"])    # not at f - 1
    # the chances are calibrated, adding up to 1
    assert all(sum(r["chances"]) == pytest.approx(1.0) for r in rows)
    assert all(r["win"] == r["chances"][m] for r in rows)


def test_a_plans_error_comes_from_its_own_visits_and_spread(monkeypatch):
    """Issue 55: "+-" read 0.8 to 1.0 for plans with ten times different visits (a
    spread between seeds added to every error): a plan seen ten times less, with the
    same spread of chances over its visits, reads about three times less sure."""
    from tigris import chance
    from tigris.hints import ranked

    monkeypatch.setattr(chance, "_shipped", {n: chance.IDENTITY for n in (2, 3, 4)})
    g = tigris.Game(players=2, seed=7)
    legal = g.legal_actions()
    c = [0.5, 0.5]
    children = [child(legal[0], 6000, c, error=0.002, spread=0.1),
                child(legal[1], 600, c, error=0.002, spread=0.1),
                child(legal[2], 600, c, error=0.002, spread=0.2)]
    rows = ranked(g, children)
    errors = {r["action"]: r["error"] for r in rows}
    assert errors[legal[1]] / errors[legal[0]] == pytest.approx(10 ** 0.5, rel=0.02)
    assert errors[legal[2]] / errors[legal[1]] == pytest.approx(2.0, rel=0.05)
    assert errors[legal[0]] == pytest.approx(0.1 / 6000 ** 0.5, rel=0.02)


def test_the_table_marks_each_row_against_the_first():
    g = tigris.Game(players=2, seed=7)
    hints = tigris.hint(g, iterations=3000, top=4, seed=1, progress=False)
    text = format_table(g, hints)
    assert "+-" in text and " + ".join(hints[0]["plan"]) in text
    assert "vs #1" in text and "best plans: #1 is the engine's play" in text
    lines = text.splitlines()
    head = next(k for k, line in enumerate(lines) if line.startswith("  # vs #1"))
    rows = lines[head + 1:head + 1 + len(hints)]
    assert [int(line[:3]) for line in rows] == [h["rank"] for h in hints] == list(range(1, len(hints) + 1))
    signs = {"choice": "", "equal": "=", "above": ">", "below": "<"}
    assert [line[4:9].strip() for line in rows] == [signs[h["mark"]] for h in hints]
    for note in hints.notes:
        assert note in text


def test_every_field_of_a_hint_is_documented_in_formats():
    from tigris.hints import ROW_KEYS

    text = (ROOT / "docs" / "FORMATS.md").read_text()
    start = text.index("## Hints (`tigris hint --json`)")
    section = text[start:text.index("\n## ", start)]
    for key in ("player", "decision", "bot", "seed", "iterations", "seconds", "equals", "unsearched",
                "searched_share", "rounds", "notes", "hints"):
        assert f"`{key}`" in section.split("|")[0], key
    documented = {line.split("|")[1].strip().strip("`") for line in section.splitlines()
                  if line.startswith("| `")}
    assert documented == set(ROW_KEYS)


@pytest.mark.slow
def test_bench_regret_runs_small():
    from tigris.runs import bench

    calls = []
    rows = bench.bench_regret(per_count=1, budgets=(200, 400), reference=1500,
                              progress=lambda: calls.append(1))
    assert len(calls) == 3 * 3
    figures = {name: value for name, value, _ in rows}
    within = [v for n, v in figures.items() if n.startswith("top plan within")]
    assert len(within) == 2 and all(v * 3 == pytest.approx(round(v * 3 / 100) * 100) for v in within)
    for b in ("200", "400"):
        assert 0 <= figures[f"mean regret, {b} iterations"] <= figures[f"largest regret, {b} iterations"] <= 1


def test_a_decision_not_searched_is_one_row_of_unknown_chances():
    """What a hint gives for a single legal move (the search is skipped): one row, rank 1,
    NaN chances and error, and a table that prints it."""
    import math

    from tigris.hints import Hints, ranked

    g = tigris.Game(players=3, seed=7)
    only = ChildStats(action=g.legal_actions()[0], visits=1, chances=(math.nan,) * 3, error=math.nan)
    rows = ranked(g, [only])
    assert len(rows) == 1 and (rows[0]["rank"], rows[0]["equal"], rows[0]["mark"]) == (1, True, "choice")
    assert all(math.isnan(c) for c in rows[0]["chances"]) and math.isnan(rows[0]["error"])
    text = format_table(g, Hints(rows, iterations=0, seconds=0.0, bot="ismcts-fast", seed=0))
    assert rows[0]["move"] in text and "nan" in text.lower()


# ---------------------------------------------------------------------------
# Issue 55: a table that teaches
# ---------------------------------------------------------------------------

def recorded(name, move):
    """The position after `move` moves of a game record in tests/data."""
    from tigris.commands.games import game_of

    return game_of(str(ROOT / "tests" / "data" / name), move)


def test_a_real_hint_leads_with_the_bots_play_and_reads_each_plan_by_its_own_visits():
    """Issue 55: at 20,000 iterations the #1 plan read 77.0% while two of its "1=" equals
    read 81.4% and 81.6%, every "+-" 0.8 to 1.0 whatever the visits, and eight plans were
    equals with the schedule's shares.  The first row is the bot's own play, each other
    plan is marked against #1 as it stood at the same visits by the intervals shown, a
    plan seen ten times less reads about three times less sure, and the notes say what
    the schedule's shares are.  The position's figures are the gen1 network's: the hint
    searches with ismcts-fast's knobs and that network (``ismcts-fast-gen1``)."""
    from tigris.hints import CHUNKS, shown

    g = recorded("ismcts-fast-2.0-seed11-2p.json", 59)
    hints = tigris.hint(g, iterations=20_000, seed=1, top=8, progress=False, bot="ismcts-fast-gen1")
    bot = bots.load("ismcts-fast-gen1", seed=1)
    assert hints[0]["action"] == bot.pick(bot.root_statistics(g, iterations=20_000, steps=CHUNKS))
    first = hints[0]
    for h in hints[1:]:
        then = h["first"]          # #1 when it had this plan's visits: the halving that dropped it
        assert then["halving"] == h["rounds"] and abs(then["visits"] - h["visits"]) < 0.1 * h["visits"]
        apart = abs(shown(h["win"]) - shown(then["win"])) > shown(h["error"]) + shown(then["error"])
        assert h["equal"] != apart
    # At this first action of a turn every move the search dropped read above its play as
    # they ended (36.6% against 37.2% to 39.7%): the play's mean over five times the visits
    # tries far more second actions.  At the same visits none reads above it.
    assert all(h["win"] > first["win"] for h in hints[1:])
    assert not [h for h in hints if h["mark"] == "above"]
    seen_least = min(hints, key=lambda h: h["visits"])
    assert first["visits"] >= 8 * seen_least["visits"]
    assert seen_least["error"] > 2 * first["error"]
    assert hints.rounds == 6 and any("sequential halving, 6 rounds" in n for n in hints.notes)


def test_a_plan_is_the_move_and_what_the_search_settled_of_the_turn():
    """Issue 55: plans of two actions never appeared.  The search spreads the visits after
    a move over many second actions and settles one only where it holds a quarter of
    them: the first plan's likely line shows the mover's next action with its share,
    under a quarter whenever the plan stops at the move."""
    g = recorded("ismcts-fast-2.0-seed11-2p.json", 59)
    assert g.actions_left == 2
    hints = tigris.hint(g, iterations=5000, seed=1, top=3, progress=False)
    mover = g.current_player
    for h in hints:
        line = h["why"]["replies"]
        assert len(h["plan"]) in (1, 2)
        nxt = next((r for r in line if r["player"] == mover), None)
        if len(h["plan"]) == 1 and nxt is not None and nxt["move"].split()[0] in ("tile", "leader", "catastrophe"):
            assert nxt["share"] < 0.25
        if len(h["plan"]) == 2:
            assert h["plan"][1] not in [r["move"] for r in line]


def test_the_reasons_never_read_the_hidden_tiles():
    """The why of a plan is the same whatever the hands the mover cannot see hold."""
    from tigris.hints import hint_bot, network_of, root_statistics, settled, why

    g = recorded("ismcts-fast-2.0-seed12-3p.json", 40)
    other = g.determinize(g.current_player, 77)           # the other hands dealt again
    assert other.raw_state()["hand"] != g.raw_state()["hand"]
    engine = hint_bot("ismcts-fast", 1, 3)
    stats, _ = root_statistics(g, engine, iterations=2000, progress=False)
    net = network_of(engine, g.players)
    for child in stats.children[:3]:
        steps = settled(g, child)[1]
        assert why(g, child, steps, net) == why(other, child, steps, net)


def test_the_reasons_say_what_a_plan_does_and_what_it_is_worth():
    """A revolt's plan says it begins it, the likely line who wins it, and the network's
    expected final scores before and after; a search without a network gives none."""
    from tigris import notation
    from tigris.hints import hint_bot, network_of, why

    g = tigris.Game(players=2, seed=1)
    for move in ("leader king F4", "tile black A11"):
        g.apply(move)
    child = ChildStats(action=g.parse_action("leader king G3"), visits=100,
                       pv=((notation.str_to_action("support 1"), 1),), pv_visits=(100, 60))
    w = why(g, child, 1, network_of(hint_bot("ismcts-fast", 1, 0), 2))
    assert w["does"] == ["player 1 begins a revolt of the kings against player 0 (G3 against F4)"]
    assert w["replies"] == [{"player": 1, "move": "support 1", "share": 0.6}]
    assert len(w["scores"]["before"]) == len(w["scores"]["after"]) == 2
    assert all(isinstance(x, float) and 0 <= x < 60 for x in w["scores"]["before"] + w["scores"]["after"])
    assert network_of(hint_bot("ismcts-heuristic", 1, 0), 2) is None
    assert why(g, child, 1, None)["scores"] is None


def test_the_notes_say_where_the_search_cannot_tell_plans_apart_and_how_much_longer(monkeypatch):
    """Where the marks say equal, the notes say so in words with the budget that would
    tell each equal from #1 if the difference held; a plan that reads above #1 is named;
    the shares are the schedule's."""
    from tigris.hints import Hints, notes, ranked

    g, legal, m, ch = _identity_two_player(monkeypatch)

    children = [child(legal[0], 5600, ch(0.500), spread=0.1, rounds=6),
                child(legal[1], 2800, ch(0.503), spread=0.1, rounds=5),     # apart at about 4x
                child(legal[2], 1400, ch(0.5001), spread=0.1, rounds=4),    # reads the same
                child(legal[3], 1400, ch(0.530), spread=0.1, rounds=4),     # above, beyond both
                child(legal[4], 630, ch(0.40), spread=0.1, rounds=3)]
    rows = [r for r in ranked(g, children) if r["searched"]]
    assert [r["mark"] for r in rows] == ["choice", "above", "equal", "equal", "below"]
    hint = Hints(rows, iterations=20_000, seconds=0.5, bot="ismcts-fast", seed=1, rounds=6)
    said = notes(hint, 6)
    assert said[0].startswith("#2 reads above #1, beyond both errors: the search dropped it after "
                              "round 4 of 6")
    assert said[1] == "The search cannot tell #3 and #4 from #1 at this budget: their intervals overlap."
    longer = rows[2]["longer"]
    assert 2 <= longer <= 10
    assert said[2] == (f"To tell them apart if the differences held: #3 about {longer} times as long "
                       f"a search ({longer * 20_000:,} iterations).")
    assert said[3].startswith("#4: even a search 100 times as long would likely not tell it from #1")
    assert said[4] == ("#2, #3, #4 and #5: compared with #1 as it reads in the end; the search never had "
                       "them at the same visits as #1.")
    assert said[5].endswith("Dropped: #3 after round 5; #2 and #4 after round 4; #5 after round 3.")


def test_the_command_line_shows_the_marks_the_notes_and_why(tmp_path, capsys):
    """`tigris hint` prints a mark a row that its own figures bear out, the notes and why
    for the first plans; `--json` gives the same, every field of the documented kind."""
    import math
    import re

    rec = ROOT / "tests" / "data" / "ismcts-fast-2.0-seed11-2p.json"
    assert main(["hint", str(rec), "--move", "59", "--iterations", "3000", "--seed", "1", "--top", "6"]) == 0
    text = capsys.readouterr().out
    assert "vs #1" in text and "why #1 " in text and "expected final scores (the network's)" in text
    lines = text.splitlines()
    head = next(k for k, line in enumerate(lines) if line.startswith("  # vs #1"))
    mover = [c for c in lines[head].split() if c.startswith("P")].index("P1*")   # the mover's column
    rows = []
    for line in lines[head + 1:]:
        m = re.match(r"^\s*(\d+) ([=<>]?)\s+(.+?)\s+(\d+)\s+([\d.]+)%((?:\s+[\d.]+%)+)\s+([\d.]+)"
                     r"(?:\s+([\d.]+)\+-([\d.]+))?", line)
        if not m:
            break
        chances = [float(x) for x in re.findall(r"([\d.]+)%", m[6])]
        then = (float(m[8]), float(m[9])) if m[8] else None
        rows.append((int(m[1]), m[2], chances[mover], float(m[7]), then))
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1)) and len(rows) >= 2
    assert rows[0][1] == "" and rows[0][4] is None
    for _, sign, w, e, (win, error) in rows[1:]:     # checked by eye: the figures printed
        apart = round(abs(w - win), 1) > round(e + error, 1)
        assert sign == ("=" if not apart else ">" if w > win else "<")
    assert main(["hint", str(rec), "--move", "59", "--iterations", "3000", "--seed", "1", "--top", "6",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data["rounds"], int) and all(isinstance(n, str) for n in data["notes"])
    assert data["notes"] and all(n in text for n in data["notes"])
    kinds = {"rank": int, "mark": str, "equal": bool, "searched": bool, "move": str, "action": int,
             "plan": list, "visits": int, "share": float, "rounds": int, "prior": float, "win": float,
             "error": float, "chances": list}
    for k, h in enumerate(data["hints"], start=1):
        assert all(isinstance(h[key], kind) for key, kind in kinds.items()), h
        assert h["rank"] == k and h["mark"] == ("choice" if k == 1 else h["mark"])
        assert h["mark"] in ("choice", "equal", "above", "below")
        assert h["longer"] is None or (h["mark"] == "equal" and isinstance(h["longer"], int))
        if k == 1:
            assert h["first"] is None
        else:
            assert set(h["first"]) == {"win", "error", "visits", "halving"}
            assert isinstance(h["first"]["win"], float) and isinstance(h["first"]["visits"], int)
            assert h["first"]["halving"] is None or isinstance(h["first"]["halving"], int)
        assert all(isinstance(x, str) for x in h["continuation"] + h["plan"])
        why = h["why"]
        if k > 3:
            assert why is None
            continue
        assert set(why) == {"scores", "does", "then", "replies"}
        assert set(why["scores"]) == {"before", "after"}
        assert all(len(why["scores"][w]) == 2 and all(math.isfinite(x) for x in why["scores"][w])
                   for w in ("before", "after"))
        assert all(isinstance(x, str) for x in why["does"] + why["then"])
        for r in why["replies"]:
            assert set(r) == {"player", "move", "share"} and r["player"] in (0, 1)
            assert r["share"] is None or 0 < r["share"] <= 1
        assert f"why #{k} {' + '.join(h['plan'])}:" in text


def test_the_modules_examples_run():
    import doctest

    from tigris import events, hints

    for module in (hints, events):
        assert doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed == 0, module.__name__
