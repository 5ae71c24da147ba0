"""tigris analyse: the rows of a recorded game's analysis, their marks and summary, resuming,
jobs, honesty, and the command on bad input.  Budgets are tiny: what is checked is how
rows are made and kept, not how good the engine's judgement is."""

import json
import math
import os
import re
from pathlib import Path

import pytest

import tigris
from tigris import analysis, bots, record
from tigris.bots.search import ISMCTSBot
from tigris.commands import main
from tigris.errors import Interrupted, RecordError, UsageError
from tigris.search import ChildStats, RootStats

from helpers import greedy_record

REPO = Path(__file__).resolve().parent.parent
ITERATIONS = 40


@pytest.fixture(autouse=True)
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)                   # bot names are found in ./bots


@pytest.fixture(scope="module")
def rec2():
    return greedy_record(2, 10)


@pytest.fixture(scope="module")
def full(rec2, tmp_path_factory):
    """An uninterrupted analysis of rec2: (path, header, rows)."""
    path = tmp_path_factory.mktemp("full") / "a.jsonl"
    header, rows = analysis.run(rec2, path, iterations=ITERATIONS, seed=3, progress=False)
    return path, header, rows


def run(rec, path, **kw):
    kw = {"iterations": ITERATIONS, "seed": 3, "progress": False, **kw}
    return analysis.run(rec, path, **kw)


# ---------------------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------------------

def test_every_decision_gets_a_row_with_the_documented_fields(rec2, full):
    path, header, rows = full
    assert header["format"] == analysis.FORMAT == "tigris-analysis/3" and header["players"] == [0, 1]
    assert header["measure"] == "margin" and header["thresholds"] == analysis.THRESHOLDS["margin"]
    assert header["decisions"] == header["moves"] == len(rec2["moves"]) == len(rows)
    assert [r["move"] for r in rows] == list(range(1, len(rows) + 1))
    for r, move in zip(rows, rec2["moves"]):
        assert r["player"] == move["player"] and r["played"] == move["move"]
        assert 0 <= r["win_before"] <= 1 and 0 <= r["win_after"] <= 1 and r["noise"] >= 0
        # every player's chance before the move, adding up to 1; the mover's is win_before
        assert len(r["chances"]) == 2 and sum(r["chances"]) == pytest.approx(1, abs=1e-3)
        assert r["chances"][r["player"]] == r["win_before"]
        # the drop is the margin's: the best move's against the move played's
        assert abs(r["margin_before"]) < 100 and abs(r["margin_after"]) < 100
        assert r["drop"] == pytest.approx(r["margin_before"] - r["margin_after"], abs=2e-4)
        assert r["mark"] == analysis.mark(r["drop"], header["thresholds"], r["noise"])
        assert r["rank"] is None or 1 <= r["rank"] <= r["legal"]
        assert r["after_from"] in ("best", "searched") and isinstance(r["equal"], bool)
    assert analysis.read_analysis(path) == (header, rows)


def test_the_engines_own_moves_rank_first_without_a_mark(tmp_path):
    # Each move of this record is what the analysis's search (same seed, same budget,
    # its knobs) finds best at that decision.
    g = tigris.Game(players=2, seed=11)
    kind, name, params = analysis.engine_of(bots.configuration(analysis.DEFAULT_BOT), "margin")
    for n in range(1, 7):
        bot = bots.CLASSES[kind](name=name, **dict(params, seed=analysis.decision_seed(3, n),
                                                    workers=1))
        g.apply(bot.root_statistics(g, iterations=ITERATIONS).children[0].action)
    _, rows = run(record.to_record(g), tmp_path / "a.jsonl")
    assert len(rows) == 6
    for r in rows:
        assert (r["rank"], r["equal"]) == (1, True)
        # The engine's best, unless a move its search passed over read better alone.
        if r["after_from"] == "best":
            assert (r["played"], r["drop"], r["noise"], r["mark"]) == (r["best"], 0.0, 0.0, None)
        else:
            assert r["best"] != r["played"] and r["drop"] > 0


@pytest.fixture
def plain_chances(monkeypatch):
    """The search's chances shown as they are (no calibration): the figures of a faked
    search are those a row shows."""
    from tigris import chance

    monkeypatch.setattr(chance, "_shipped", {n: chance.IDENTITY for n in (2, 3, 4)})


def fake_analyse(mover, played, played_chance, error=0.001, margins=(5.0, -1.0),
                 margin_error=0.01, others=()):
    """An ISMCTSBot.root_statistics whose first search puts a move other than `played` first
    (the mover's chance 0.6 and margin ``margins[0]``, 600 visits) and `played` second
    (20 visits), and whose search of `played` alone gives it `played_chance` and the
    margin ``margins[1]``; each chance with standard error `error`, each margin
    `margin_error`.  `others`, (chance, margin, visits) each, are more moves of the first
    search, whose searches alone read the same.  Also returns the searches made, as
    (game, only, budget)."""
    calls = []

    def child(action, visits, chance, margin):
        chances = [(1 - chance)] * 2
        chances[mover] = chance
        return ChildStats(action=action, visits=visits, avail=visits, value=chance, chances=tuple(chances),
                          error=error, margin=margin, margin_error=margin_error)

    def analyse(self, game, only=None, **budget):
        calls.append((game, only, budget))
        rest = [a for a in game.legal_actions() if a != played]
        more = {a: (c, m, v) for a, (c, m, v) in zip(rest[1:], others)}
        if only is not None:
            chance, margin, _ = more.get(only[0], (played_chance, margins[1], 0))
            return RootStats(iterations=budget.get("iterations", 1), nodes=0, player=mover,
                             children=(child(only[0], 600, chance, margin),))
        return RootStats(iterations=620 + sum(v for _, _, v in others), nodes=0, player=mover,
                         children=(child(rest[0], 600, 0.6, margins[0]), child(played, 20, 0.3, -9.0),
                                   *(child(a, v, c, m) for a, (c, m, v) in more.items())))

    return analyse, calls


def decide(task, measure="margin", thresholds=None):
    """The row of `task` by the shipped bot's knobs at 1,000 iterations, seed 0."""
    conf = bots.configuration(analysis.DEFAULT_BOT)
    return analysis.analyse_decision(task, analysis.engine_of(conf, measure), {"iterations": 1000},
                                     0, thresholds or analysis.THRESHOLDS[measure], measure)


@pytest.mark.parametrize("value, mark", [(0.58, None), (0.52, "inaccuracy"),
                                         (0.45, "mistake"), (0.30, "blunder")])
def test_a_drop_of_win_chance_is_marked_by_its_thresholds(rec2, monkeypatch, plain_chances, value,
                                                          mark):
    _, tasks = analysis.decisions(rec2)
    task = tasks[4]
    mover = task.before.current_player
    analyse, calls = fake_analyse(mover, task.action, value)
    monkeypatch.setattr(ISMCTSBot, "root_statistics", analyse)
    row = decide(task, "win")
    assert (row["rank"], row["after_from"], row["visits"]) == (2, "searched", 20)
    assert row["win_before"] == 0.6 and row["win_after"] == value
    assert (row["margin_before"], row["margin_after"]) == (5.0, -1.0)
    assert row["drop"] == pytest.approx(0.6 - value)
    assert row["mark"] == mark
    # The move played was searched alone, from the same position, as deeply as the best.
    assert [(only, budget) for _, only, budget in calls] == [
        (None, {"iterations": 1000}), ([task.action], {"iterations": 600})]
    assert calls[1][0] is task.before


def test_a_drop_within_the_noise_is_not_marked(rec2, monkeypatch, plain_chances):
    _, tasks = analysis.decisions(rec2)
    task = tasks[4]
    analyse, _ = fake_analyse(task.before.current_player, task.action, 0.48, error=0.05,
                              margins=(2.0, -1.0), margin_error=2.0)
    monkeypatch.setattr(ISMCTSBot, "root_statistics", analyse)
    win = decide(task, "win")
    # A drop of 12 points is a mistake by the thresholds, but the two chances' errors
    # (5 points each, with the spread between seeds) leave it within the noise.
    assert win["drop"] == pytest.approx(0.12) and win["noise"] > 0.06
    assert win["mark"] is None
    assert analysis.mark(0.12, analysis.THRESHOLDS["win"], 0.01) == "mistake"
    # So with the margin: 3 points, a mistake by its thresholds, with 2 points of error each.
    margin = decide(task)
    assert margin["drop"] == pytest.approx(3.0) and margin["noise"] > 2.8
    assert margin["mark"] is None
    assert analysis.mark(3.0, analysis.THRESHOLDS["margin"], 0.1) is not None


def test_the_margin_finds_the_best_move_among_those_the_search_passed_over(rec2, monkeypatch,
                                                                         plain_chances):
    """A move the search tried less, whose chance reads a little below its choice's but
    whose margin reads above it, is searched alone: by the margin it is the best, and the
    drop is measured from it; by the win chance the choice stays the best."""
    _, tasks = analysis.decisions(rec2)
    task = tasks[4]
    before = task.before
    analyse, calls = fake_analyse(before.current_player, task.action, 0.3,
                                  margins=(5.0, -1.0), others=[(0.58, 8.0, 100)])
    monkeypatch.setattr(ISMCTSBot, "root_statistics", analyse)
    rest = [a for a in before.legal_actions() if a != task.action]
    row = decide(task)
    assert row["best"] == before.action_str(rest[1]) and row["after_from"] == "searched"
    assert (row["margin_before"], row["margin_after"], row["drop"]) == (8.0, -1.0, 9.0)
    assert (row["win_before"], row["win_after"]) == (0.58, 0.3)
    spread = math.hypot(0.01, analysis.MARGIN_SEED_SPREAD)
    assert row["noise"] == pytest.approx(math.hypot(spread, spread), abs=1e-4)
    assert row["mark"] == "blunder"
    assert [only for _, only, _ in calls] == [None, [rest[1]], [task.action]]
    calls.clear()
    win = decide(task, "win")
    assert win["best"] == before.action_str(rest[0]) and win["margin_before"] == 5.0
    assert [only for _, only, _ in calls] == [None, [task.action]]


@pytest.mark.parametrize("players, which", [(2, 1), (3, 1), (4, 2)])
def test_a_turn_ending_action_is_judged_like_any_other(monkeypatch, players, which):
    """The action that ends a turn is searched as the mover saw it, the move played held
    alone at the root of the mover's search: never by another player's search."""
    rec = greedy_record(players, 8, seed=2)
    _, tasks = analysis.decisions(rec)
    task = next(t for t in tasks[which:] if t.before.current_player != t.after.current_player
                and t.before.decision == "action")
    mover = task.before.current_player
    real, searched = ISMCTSBot.root_statistics, []

    def spy(self, game, **kw):
        searched.append((game.current_player, kw.get("only")))
        return real(self, game, **kw)

    monkeypatch.setattr(ISMCTSBot, "root_statistics", spy)
    conf = bots.configuration(analysis.DEFAULT_BOT)
    row = analysis.analyse_decision(task, analysis.engine_of(conf, "margin"), {"iterations": 200},
                                    0, analysis.THRESHOLDS["margin"])
    assert all(player == mover for player, _ in searched)
    # The decision, then single moves searched alone: moves passed over, the move played.
    assert searched[0][1] is None
    assert all(only is not None and len(only) == 1 for _, only in searched[1:])
    assert len(searched) <= 2 + analysis.RIVALS
    if row["after_from"] == "searched":
        assert (mover, [task.action]) in searched[1:]
    else:
        assert row["after_from"] == "best"
    assert 0 <= row["win_after"] <= 1 and len(row["chances"]) == players


@pytest.mark.parametrize("old, why", [("tigris-analysis/1", "whose chances were read another way"),
                                      ("tigris-analysis/2", "marked by the win chance alone")])
def test_an_analysis_of_an_earlier_format_is_refused_with_a_word(tmp_path, capsys, rec2, old, why):
    path = tmp_path / "old.analysis.jsonl"
    path.write_text(json.dumps({"format": old, "record": "0" * 16}) + "\n")
    kept = path.read_bytes()
    with pytest.raises(UsageError, match=f"earlier tigris \\({old}, {why}.*\\); analyse the game "
                                         f"again into another file"):
        analysis.read_analysis(path)
    (tmp_path / "record.json").write_text(json.dumps(rec2))
    assert main(["analyse", str(tmp_path / "record.json"), "--iterations", "10",
                 "--out", str(path)]) == 1
    assert f"({old}, {why}" in one_line(capsys.readouterr().err)
    assert path.read_bytes() == kept


@pytest.mark.slow
def test_a_scripted_game_has_its_bad_move_marked_and_no_other(tmp_path):
    """Every move the engine's own choice (the analysis's search: same seed, same
    budget) but move 5, the king moved to the corner P1,
    where the search gives the mover nine points less of win chance: by the win chance,
    only move 5 is marked.  The scenario is the gen1 network's, searched with
    ``ismcts-fast-gen1`` (the knobs of the default analysis's search but for its
    ``policy_visits``), so a new default does not move it."""
    budget, name = 2000, "ismcts-fast-gen1"
    g = tigris.Game(players=2, seed=11)
    conf = bots.configuration(name)

    def knobs(c):
        return {k: v for k, v in c.params.items() if k not in ("network", "policy_visits")}

    assert knobs(conf) == knobs(bots.configuration(analysis.DEFAULT_BOT))
    for n in range(1, 11):
        if n == 5:
            g.apply("leader king P1")
            continue
        bot = conf.bot(seed=analysis.decision_seed(3, n), workers=1)
        g.apply(bot.root_statistics(g, iterations=budget).children[0].action)
    _, rows = run(record.to_record(g), tmp_path / "a.jsonl", iterations=budget, measure="win", bot=name)
    marked = {r["move"]: r["mark"] for r in rows if r["mark"]}
    assert list(marked) == [5], rows[4]
    bad = rows[4]
    assert bad["played"] == "leader king P1" and bad["after_from"] == "searched"
    assert bad["drop"] > analysis.THRESHOLDS["win"]["inaccuracy"] and bad["drop"] > 2 * bad["noise"]
    assert all(r["rank"] == 1 and r["mark"] is None for r in rows if r["move"] != 5)


def gifts(game):
    """The mover's tile moves that score for another player and not for the mover."""
    me, out = game.current_player, []
    for action in game.legal_actions():
        if not game.action_str(action).startswith("tile "):
            continue
        after = game.copy()
        after.apply(action)
        gained = [sum(after.score(q).values()) - sum(game.score(q).values())
                  for q in range(game.players)]
        if gained[me] == 0 and sum(gained) > 0:
            out.append(action)
    return out


def lost_game_with_gifts(seed=7, after=110, count=2):
    """A greedy game that player 1 loses by playing nine moves in ten at random; after
    move `after` it plays greedy's moves, but for `count` tiles it places where they
    score for player 0 and not for itself (each gives a point away, where a greedy tile
    takes one): the record to a few moves past the last, and those moves' numbers."""
    g = tigris.Game(players=2, seed=seed)
    seats = [bots.make("greedy", seed=1), bots.make("greedy", seed=2, random_share=0.9)]
    given = []
    while not g.is_over and not (len(given) == count and len(g.history) > given[-1] + 5):
        n = len(g.history) + 1
        if n > after:
            if seats[1].random_share:
                seats[1] = bots.make("greedy", seed=2)
            if g.current_player == 1 and g.decision == "action" and len(given) < count and gifts(g):
                given.append(n)
                g.apply(gifts(g)[0])
                continue
        g.apply(seats[g.current_player].choose(g))
    return record.to_record(g), given


@pytest.mark.slow
def test_a_lost_games_mistakes_are_found(tmp_path):
    """Late in a lost game (a win chance under 10%, which a move barely moves) the moves
    that give points away are marked: the margin, the player's final score against the
    best other player's, still moves.  The win chance does not: by it, they pass."""
    rec, given = lost_game_with_gifts()
    assert len(given) == 2
    header, rows = run(rec, tmp_path / "a.jsonl", players=[1], iterations=1000)
    assert header["measure"] == "margin"
    by_move = {r["move"]: r for r in rows}
    for n in given:
        r = by_move[n]
        assert r["win_before"] < 0.1 and r["margin_before"] < -3, r
        assert r["mark"] is not None and r["drop"] > 2 * r["noise"], r
        assert r["drop"] >= header["thresholds"]["inaccuracy"], r
        assert abs(r["win_before"] - r["win_after"]) < analysis.THRESHOLDS["win"]["inaccuracy"], r


def test_the_analysis_sees_only_what_the_mover_saw(tmp_path):
    # Two deals that differ only in player 1's hand (and so in the bag): player 0's
    # first turn looks the same to player 0, and so must its analysis.
    rec = greedy_record(2, 2, seed=8)
    other = json.loads(json.dumps(rec))
    hand1 = [d for d in other["deal"] if d[0] == 1]
    colours = ["red", "blue", "green", "black"]
    for d in hand1:
        d[1] = colours[(colours.index(d[1]) + 1) % 4]
    assert record.replay(other).state_bytes() != record.replay(rec).state_bytes()
    _, rows = run(rec, tmp_path / "a.jsonl", players=[0])
    _, rows_other = run(other, tmp_path / "b.jsonl", players=[0])
    assert len(rows) == 2 and rows == rows_other


# ---------------------------------------------------------------------------------------
# The summary
# ---------------------------------------------------------------------------------------

def test_the_summary_counts_the_rows(rec2, tmp_path):
    small = {"inaccuracy": 0.001, "mistake": 0.005, "blunder": 0.01}   # marks to count
    header, rows = run(rec2, tmp_path / "a.jsonl", thresholds=small)
    assert header["thresholds"] == small
    summary = analysis.summarize(header, rows)
    assert summary["analysed"] == summary["decisions"] == len(rows)
    for s in summary["players"]:
        mine = [r for r in rows if r["player"] == s["player"]]
        assert s["decisions"] == len(mine) and s["forced"] == 0
        for key, name in (("inaccuracies", "inaccuracy"), ("mistakes", "mistake"),
                          ("blunders", "blunder")):
            assert s[key] == sum(r["mark"] == name for r in mine)
        assert s["best_share"] == round(sum(r["after_from"] == "best" for r in mine) / len(mine), 4)
        assert s["mean_drop"] == round(sum(max(0, r["drop"]) for r in mine) / len(mine), 4)
    assert summary["marked"] == [r for r in rows if r["mark"]]
    assert sum(s["decisions"] for s in summary["players"]) == len(rows)
    text = analysis.format_summary(summary)
    assert f"{len(rows)} of {len(rows)} decisions" in text
    assert len([r for r in rows if r["mark"]]) == text.count(", player ")


def test_marks_and_thresholds():
    win = analysis.THRESHOLDS["win"]
    assert [analysis.mark(d, win) for d in (-0.3, 0.0, 0.0499, 0.05, 0.1, 0.1999, 0.2, 1.0)] == \
        [None, None, None, "inaccuracy", "mistake", "mistake", "blunder", "blunder"]
    assert analysis.check_thresholds({"mistake": 0.15}, "win") == {"inaccuracy": 0.05, "mistake": 0.15,
                                                                    "blunder": 0.2}
    for bad in ({"mistake": 0.3}, {"blunder": 0}, {"inaccuracy": float("nan")}, {"worst": 0.5},
                {"blunder": 2.0}):
        with pytest.raises(UsageError):
            analysis.check_thresholds(bad, "win")
    # The margin's, in points: the default measure's.
    margin = analysis.THRESHOLDS["margin"]
    assert analysis.check_thresholds() == analysis.check_thresholds(None, "margin") == margin
    assert analysis.mark(margin["mistake"]) == analysis.mark(margin["mistake"], margin) == "mistake"
    assert analysis.mark(margin["blunder"] * 10, margin, noise=margin["blunder"] * 5) is None
    assert analysis.check_thresholds({"blunder": 50}, "margin")["blunder"] == 50.0
    for bad in ({"blunder": 101}, {"mistake": margin["blunder"] + 1}, {"inaccuracy": -1}):
        with pytest.raises(UsageError, match="thresholds must grow|at most 100 points"):
            analysis.check_thresholds(bad, "margin")
    with pytest.raises(UsageError, match="measure must be margin or win, not 'score'"):
        analysis.check_thresholds(None, "score")


# ---------------------------------------------------------------------------------------
# Resuming, jobs, the file
# ---------------------------------------------------------------------------------------

def test_an_interrupted_analysis_continues_where_it_stopped(rec2, full, tmp_path, monkeypatch):
    real, calls = analysis.analyse_decision, []

    def stopping(task, *args):
        calls.append(task.move)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(task, *args)

    monkeypatch.setattr(analysis, "analyse_decision", stopping)
    path = tmp_path / "a.jsonl"
    with pytest.raises(Interrupted, match="3 of 10 decisions are analysed"):
        run(rec2, path)
    assert len(path.read_text().splitlines()) == 1 + 3
    calls.clear()
    monkeypatch.setattr(analysis, "analyse_decision", lambda task, *a: calls.append(task.move)
                        or real(task, *a))
    header, rows = run(rec2, path)
    assert sorted(calls) == list(range(4, 11))            # only the missing ones
    assert (header, rows) == full[1:]
    calls.clear()
    assert run(rec2, path) == full[1:] and calls == []    # finished: nothing searched


def test_each_row_is_told_as_it_is_written_and_a_resume_starts_from_the_file(rec2, full,
                                                                            tmp_path):
    told = []
    path = tmp_path / "a.jsonl"
    write_lines(path, lines_of(full[0])[:4])                 # the header and 3 rows
    header, rows = run(rec2, path, on_row=lambda *a: told.append(a))
    iterations = [sum(r["iterations"] for r in rows[:k]) for k in range(len(rows) + 1)]
    assert told == [(k, 10, iterations[k]) for k in range(3, 11)]
    told.clear()
    run(rec2, path, on_row=lambda *a: told.append(a))        # finished: told once
    assert told == [(10, 10, iterations[10])]


def test_two_jobs_give_the_rows_of_one(tmp_path):
    rec = greedy_record(3, 8, seed=4)
    one = run(rec, tmp_path / "one.jsonl", iterations=30, jobs=1)
    two = run(rec, tmp_path / "two.jsonl", iterations=30, jobs=2)
    assert one == two and len(one[1]) == 8


def test_a_torn_last_line_is_repaired_with_a_warning(rec2, full, tmp_path):
    path = tmp_path / "a.jsonl"
    text = full[0].read_text()
    path.write_text(text[:len(text) - 30])              # the last row cut in the middle
    with pytest.warns(UserWarning, match="torn"):
        header, rows = analysis.read_analysis(path)
    assert len(rows) == len(full[2]) - 1
    with pytest.warns(UserWarning, match="torn"):
        assert run(rec2, path) == full[1:]
    assert path.read_text().count("\n") == len(full[2]) + 1
    assert analysis.read_analysis(path) == full[1:]


@pytest.mark.parametrize("change, field", [({"seed": 4}, "seed"), ({"iterations": 41}, "iterations"),
                                           ({"seconds": 1.0, "iterations": None}, "iterations"),
                                           ({"players": [1]}, "players"),
                                           ({"thresholds": {"blunder": 5.0}}, "thresholds"),
                                           ({"measure": "win"}, "measure"),
                                           ({"bot": "ismcts-strong"}, "bot"), ({"record": None}, "record")])
def test_another_analysis_in_the_file_is_refused_and_kept(rec2, full, tmp_path, change, field):
    path = tmp_path / "a.jsonl"
    path.write_bytes(full[0].read_bytes())
    kw = dict(change)
    rec = greedy_record(2, 10, seed=6) if kw.pop("record", False) is None else rec2
    with pytest.raises(UsageError, match=f"its {field} is"):
        run(rec, path, **kw)
    assert path.read_bytes() == full[0].read_bytes()


def test_an_analysis_by_another_engine_is_not_continued(rec2, full, tmp_path):
    """A bot file edited between two runs into one file keeps its name but changes what
    the rows mean: the file is refused and kept; so is one written before the header
    named its engine, which reads back all the same."""
    bot = tmp_path / "mine.toml"
    bot.write_text('kind = "ismcts"\nexploration = 0.7\n')
    path = tmp_path / "a.jsonl"
    whole = run(rec2, path, bot=str(bot), players=[0])
    write_lines(path, lines_of(path)[:-1])                  # a run stopped before the last row
    kept = path.read_bytes()
    bot.write_text('kind = "ismcts"\nexploration = 0.9\n')
    with pytest.raises(UsageError, match="another engine .* settings of mine"):
        run(rec2, path, bot=str(bot), players=[0])
    assert path.read_bytes() == kept
    bot.write_text('kind = "ismcts"\nexploration = 0.7\n')
    assert run(rec2, path, bot=str(bot), players=[0]) == whole

    items = lines_of(full[0])
    del items[0]["engine"]
    older = write_lines(tmp_path / "older.jsonl", items)
    assert analysis.read_analysis(older) == (items[0], full[2])
    assert run(rec2, older) == (items[0], full[2])         # finished: read, nothing added
    del items[-1]
    write_lines(older, items)
    with pytest.raises(UsageError, match="another engine"):
        run(rec2, older)
    assert lines_of(older) == items


def test_the_engine_digest_follows_the_knobs_and_the_network(tmp_path):
    params = {"exploration": 0.7, "network": ""}
    shipped = analysis.engine_digest("ismcts", params, 2)
    assert shipped == analysis.engine_digest("ismcts", dict(params), 2)
    assert shipped != analysis.engine_digest("ismcts", {**params, "exploration": 0.8}, 2)
    assert shipped != analysis.engine_digest("ismcts", params, 3)     # the 3-4-player network
    net = tmp_path / "net.npz"
    net.write_bytes(b"one")
    one = analysis.engine_digest("ismcts", {**params, "network": str(net)}, 2)
    net.write_bytes(b"two")                                           # replaced, same name
    assert one != analysis.engine_digest("ismcts", {**params, "network": str(net)}, 2)


def test_the_engine_digest_reads_the_file_a_generation_names(tmp_path, monkeypatch):
    """network = "gen1" is the bytes of gen1's file for the count; a new default changes
    the digest of an empty network, not of the generation named; an unknown one is left
    to the search to refuse."""
    import shutil

    from tigris import network

    def digest(name, players=2):
        return analysis.engine_digest("ismcts", {"network": name}, players)

    pinned, default = digest("gen1"), digest("")
    assert pinned != digest("gen1", 3)                                # the 3-4-player file
    assert digest("gen9") == digest("gen9")
    folder = tmp_path / "networks"
    shutil.copytree(network.NETWORKS, folder)
    (folder / "gen2-2p.npz").write_bytes(b"two")
    (folder / "gen2-3p4p.npz").write_bytes(b"three")
    monkeypatch.setattr(network, "NETWORKS", folder)
    monkeypatch.setattr(network, "DEFAULT", {"2p": "gen2", "3p4p": "gen2"})
    assert digest("gen1") == pinned and digest("") != default


def test_the_same_game_from_another_file_continues(rec2, full, tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(full[0].read_bytes())
    respelled = dict(json.loads(json.dumps(rec2)), bots=None)     # same setup and moves
    assert run(respelled, path, source="elsewhere.json") == full[1:]


def test_a_file_that_is_not_an_analysis_is_never_overwritten(rec2, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec2))
    with pytest.raises(UsageError, match="not a tigris-analysis/3 file"):
        run(rec2, path)
    assert json.loads(path.read_text()) == rec2
    with pytest.raises(UsageError, match="is a folder"):
        run(rec2, tmp_path)


def test_a_bad_record_names_the_source_and_the_move(rec2, tmp_path):
    bad = dict(rec2, moves=rec2["moves"][:3] + [{"player": 1, "move": "fly away"}])
    with pytest.raises(RecordError, match=r"^game\.json: move 4"):
        run(bad, tmp_path / "a.jsonl", source="game.json")
    assert not (tmp_path / "a.jsonl").exists()


def test_a_result_its_moves_do_not_give_is_refused(rec2, tmp_path, capsys):
    g = tigris.Game(players=2, seed=4)
    seats = [bots.make("greedy", seed=s) for s in range(2)]
    while not g.is_over:
        g.apply(seats[g.current_player].choose(g))
    finished = record.to_record(g, bots=["greedy", "greedy"])
    lie = json.loads(json.dumps(finished))
    lie["result"]["final"] = lie["result"]["final"][::-1] if len(set(lie["result"]["final"])) > 1 \
        else [x + 1 for x in lie["result"]["final"]]
    with pytest.raises(RecordError, match=r"^game\.json: result\.final: the replay gives"):
        run(lie, tmp_path / "a.jsonl", source="game.json")
    unfinished = dict(rec2, result=finished["result"])      # a result before the end
    with pytest.raises(RecordError, match=r"^game\.json: result: the replay gives None"):
        run(unfinished, tmp_path / "a.jsonl", source="game.json")
    assert not (tmp_path / "a.jsonl").exists()
    (tmp_path / "lie.json").write_text(json.dumps(lie))
    assert main(["analyse", str(tmp_path / "lie.json"), "--iterations", "20",
                 "--out", str(tmp_path / "b.jsonl")]) == 1
    assert "result.final" in one_line(capsys.readouterr().err)


# ---------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def files(rec2, full, tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    paths = {"dir": d, "analysis": full[0]}
    for name, text in (("record.json", json.dumps(rec2)), ("games.jsonl", json.dumps(rec2) + "\n"),
                       ("not-json.json", "{"),
                       ("position.json", json.dumps(tigris.Game(players=2, seed=1).to_position())),
                       ("bad-move.json", json.dumps(dict(rec2, moves=[{"player": 0, "move": "fly away"}])))):
        (d / name).write_text(text)
        paths[name] = d / name
    return paths


def one_line(err, prog="tigris analyse"):
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "%|" not in line]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prog}: ")
    return lines[0]


def test_the_command_analyses_and_reprints_the_summary(files, tmp_path, capsys):
    out = tmp_path / "a.jsonl"
    argv = ["analyse", f"{files['games.jsonl']}:1", "--iterations", "20", "--players", "1",
            "--out", str(out)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "player decisions forced   matched" in first and f"analysis in {out}" in first
    header, rows = analysis.read_analysis(out)
    assert header["source"] == f"{files['games.jsonl']}:1" and header["iterations"] == 20
    mine = [m for m in json.loads(files["record.json"].read_text())["moves"] if m["player"] == 1]
    assert [r["played"] for r in rows] == [m["move"] for m in mine]
    assert {r["player"] for r in rows} == {1} and header["decisions"] == len(mine)
    assert main(argv) == 0
    assert capsys.readouterr().out == first


CASES = [
    (["{dir}/missing.json"], "No such file or directory"),
    (["{not-json.json}"], "not JSON"),
    (["{position.json}"], "tigris-game/1"),
    (["{bad-move.json}"], "move 1"),
    (["{record.json}", "--players", "2"], "players: 2 is not a player"),
    (["{record.json}", "--out-is", "{dir}"], "is a folder"),
    (["{record.json}", "--out-is", "{record.json}"], "is the file this command reads"),
    (["{record.json}", "--out-is", "{analysis}", "--seed", "3"], "its iterations is 40, not 10"),
    (["{record.json}", "--bot", "greedy"], "ismcts"),
    (["{record.json}", "--bot", "nobody"], "unknown bot 'nobody'"),
    (["{record.json}", "--blunder", "1"], "thresholds must grow"),
]


@pytest.mark.parametrize("argv, expected", CASES, ids=[" ".join(c[0][1:]) or c[0][0] for c in CASES])
def test_bad_input_is_one_line_and_status_1(files, tmp_path, capsys, argv, expected):
    argv = [re.sub(r"\{([^}]+)\}", lambda m: str(files[m.group(1)]), a) for a in argv]
    out = str(tmp_path / "new.jsonl")
    if "--out-is" in argv:
        k = argv.index("--out-is")
        out = argv.pop(k + 1)
        argv.pop(k)
    before = Path(out).read_bytes() if Path(out).is_file() else None
    assert main(["analyse", *argv, "--iterations", "10", "--out", out]) == 1
    captured = capsys.readouterr()
    assert expected in one_line(captured.err)
    assert "Traceback" not in captured.out + captured.err
    if before is not None:
        assert Path(out).read_bytes() == before
    elif not Path(out).is_dir():
        assert not Path(out).exists()


@pytest.mark.parametrize("argv, expected", [(["--iterations", "0"], "--iterations"),
                                            (["--seconds", "nan"], "--seconds"),
                                            (["--jobs", "0"], "--jobs"),
                                            (["--players", "x"], "--players"),
                                            (["--mistake", "200"],
                                             "mistake must be above 0 and at most 100 points"),
                                            (["--inaccuracy", "nan"], "inaccuracy must be"),
                                            (["--measure", "win", "--blunder", "0.2"],
                                             "--blunder is in percentage points of win chance (20 "
                                             "for a drop of 0.2); give at least 1"),
                                            (["--measure", "points"], "--measure")])
def test_bad_options_are_one_line(files, tmp_path, capsys, argv, expected):
    assert main(["analyse", str(files["record.json"]), *argv, "--out", str(tmp_path / "a")]) != 0
    assert expected in one_line(capsys.readouterr().err)


def test_the_out_file_defaults_to_the_records_name_in_this_folder(files, tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["analyse", str(files["record.json"]), "--iterations", "10", "--players", "1"]) == 0
    assert "analysis in record.analysis.jsonl" in capsys.readouterr().out
    assert analysis.read_analysis(tmp_path / "record.analysis.jsonl")[0]["iterations"] == 10


# ---------------------------------------------------------------------------------------
# An analysis file read back: every row checked, and held to its game
# ---------------------------------------------------------------------------------------

def lines_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_lines(path, items):
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    return path


def test_rows_of_another_game_are_refused_on_resume(rec2, full, tmp_path, capsys):
    other = tmp_path / "other.jsonl"
    run(greedy_record(2, 14, seed=6), other)
    mixed = write_lines(tmp_path / "mixed.jsonl", lines_of(full[0]) + lines_of(other)[1:])
    before = mixed.read_bytes()
    with pytest.raises(UsageError, match=r"mixed\.jsonl: line 12: .*not a decision of this game"):
        run(rec2, mixed)
    (tmp_path / "record.json").write_text(json.dumps(rec2))
    argv = ["analyse", str(tmp_path / "record.json"), "--iterations", str(ITERATIONS),
            "--seed", "3", "--out", str(mixed)]
    assert main(argv) == 1
    assert "not a decision of this game" in one_line(capsys.readouterr().err)
    assert mixed.read_bytes() == before


def test_a_row_whose_move_differs_from_the_record_is_refused(rec2, full, tmp_path):
    items = lines_of(full[0])
    items[3] = dict(items[3], played="pass" if items[3]["played"] != "pass" else "swap red")
    path = write_lines(tmp_path / "a.jsonl", items)
    with pytest.raises(UsageError, match=r"a\.jsonl: line 4: not a decision of this game"):
        run(rec2, path)


@pytest.mark.parametrize("field, value, message", [
    ("win_before", None, "win_before must be a win chance from 0 to 1"),
    ("margin_before", None, "margin_before must be a margin of points"),
    ("margin_after", 1e9, "margin_after must be a margin of points"),
    ("margin_after", "missing", "no field margin_after"),
    ("noise", 500, "noise must be a number from 0 to 100"),
    ("rank", "missing", "no field rank"),
    ("rank", 0, "rank must be"),
    ("drop", "a lot", "drop must be a number"),
    ("mark", "oops", "mark must be"),
    ("played", 5, "played must be"),
    ("continuation", "x", "continuation must be"),
    ("move", 10_000, "move must be"),
    ("player", 7, "player must be"),
])
def test_a_hand_edited_row_is_refused_naming_the_line_and_field(rec2, full, tmp_path, capsys,
                                                                field, value, message):
    items = lines_of(full[0])
    searched = next(k for k, r in enumerate(items) if k and r["after_from"] != "forced")
    if value == "missing":
        del items[searched][field]
    else:
        items[searched][field] = value
    path = write_lines(tmp_path / "a.jsonl", items)
    with pytest.raises(UsageError, match=f"a\\.jsonl: line {searched + 1}: {message}"):
        analysis.read_analysis(path)
    # the command that reads it says so in one line (view too)
    (tmp_path / "record.json").write_text(json.dumps(rec2))
    assert main(["analyse", str(tmp_path / "record.json"), "--iterations", str(ITERATIONS),
                 "--seed", "3", "--out", str(path)]) == 1
    assert f"line {searched + 1}: {message}" in one_line(capsys.readouterr().err)
    assert main(["view", str(tmp_path / "record.json"), "--analysis", str(path),
                 "--out", str(tmp_path / "g.html")]) == 1
    assert f"line {searched + 1}: {message}" in one_line(capsys.readouterr().err, "tigris view")


@pytest.mark.parametrize("change, message", [
    ({"players": "0"}, "players must be"),
    ({"thresholds": {"blunder": "big"}}, "thresholds"),
    ({"iterations": None}, "iterations"),
    ({"decisions": -1}, "decisions must be"),
    ({"record": 5}, "record must be"),
    ({"engine": "not a digest"}, "engine must be 16 hexadecimal digits"),
    ({"measure": None}, "measure must be margin or win"),
    ({"measure": "score"}, "measure must be margin or win"),
    ({"thresholds": {"inaccuracy": 0.05, "mistake": 0.1, "blunder": 0.2, "worst": 1}},
     "thresholds: must name inaccuracy, mistake, blunder"),
    ({"thresholds": {"inaccuracy": 1, "mistake": 2, "blunder": 400}}, "at most 100 points"),
])
def test_a_hand_edited_header_is_refused_naming_the_field(full, tmp_path, change, message):
    items = lines_of(full[0])
    items[0].update(change)
    path = write_lines(tmp_path / "a.jsonl", items)
    with pytest.raises(UsageError, match=f"a\\.jsonl: line 1: .*{message}"):
        analysis.read_analysis(path)


@pytest.mark.parametrize("value", [[], {"v": 3}, None, 3])
def test_a_header_whose_format_is_no_text_is_not_an_analysis(full, tmp_path, value):
    items = lines_of(full[0])
    items[0]["format"] = value
    with pytest.raises(UsageError, match="not a tigris-analysis/3 file"):
        analysis.read_analysis(write_lines(tmp_path / "a.jsonl", items))


def test_a_forced_row_reads_with_no_win_chances(full, tmp_path):
    items = lines_of(full[0])
    items[2].update(chances=None, win_before=None, win_after=None, margin_before=None,
                    margin_after=None, drop=0.0, noise=None, rank=1,
                    equal=True, legal=1, mark=None, visits=0, iterations=0, after_from="forced",
                    continuation=[])
    rows = analysis.read_analysis(write_lines(tmp_path / "a.jsonl", items))[1]
    assert rows[1]["win_before"] is None and analysis.summarize(items[0], rows)
    items[2]["win_before"] = 0.5
    with pytest.raises(UsageError, match="line 3: win_before must be null in a forced row"):
        analysis.read_analysis(write_lines(tmp_path / "a.jsonl", items))
    items[2].update(win_before=None, margin_after=-2.0)
    with pytest.raises(UsageError, match="line 3: margin_after must be null in a forced row"):
        analysis.read_analysis(write_lines(tmp_path / "a.jsonl", items))


def test_analyse_never_writes_over_the_record_or_a_device(rec2, tmp_path, capsys):
    record_file = tmp_path / "record.json"
    record_file.write_text(json.dumps(rec2))
    before = record_file.read_bytes()
    for out, message in ((record_file, "is the file this command reads"),
                         ("/dev/null", "not a regular file (a device)")):
        assert main(["analyse", str(record_file), "--iterations", "10", "--out", str(out)]) == 1
        assert message in one_line(capsys.readouterr().err)
    assert record_file.read_bytes() == before
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert main(["analyse", str(record_file), "--iterations", "10", "--out", str(fifo)]) == 1
    assert "not a regular file (a pipe)" in one_line(capsys.readouterr().err)


def test_a_row_whose_win_chance_is_not_a_chance_is_refused():
    from tigris.analysis import _row_problem

    header = {"moves": 3, "players": [0, 1], "measure": "margin"}
    row = {"move": 1, "player": 0, "decision": "action", "played": "pass", "best": "pass",
           "chances": [0.5, 0.5], "win_before": 0.5, "win_after": 0.5, "margin_before": -3.25,
           "margin_after": -3.25, "drop": 0.0, "noise": 0.0,
           "rank": 1, "equal": True, "legal": 5, "mark": None, "visits": 1, "iterations": 1,
           "after_from": "best", "continuation": []}
    assert _row_problem(row, header) is None
    for value in (-1, 1.5, 1e308):
        assert "win_before must be a win chance" in _row_problem(dict(row, win_before=value), header)
        assert "win_after must be a win chance" in _row_problem(dict(row, win_after=value), header)
    for chances in ([0.5, 0.6], [0.5], [1.5, -0.5], "0.5", [], None):
        assert "chances must be every player's chance" in _row_problem(dict(row, chances=chances), header)
    assert "equal must be true or false" in _row_problem(dict(row, equal=1), header)


def test_every_field_of_a_row_is_documented_in_formats():
    from tigris.analysis import ROW_FIELDS, ROW_OPTIONAL

    text = (REPO / "docs" / "FORMATS.md").read_text()
    start = text.index("## Analyses (`tigris-analysis/3`)")
    section = text[start:text.index("\n## ", start)]
    documented = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            documented |= {name.strip().strip("`") for name in line.split("|")[1].split(",")}
    assert documented == set(ROW_FIELDS) | set(ROW_OPTIONAL)


@pytest.mark.parametrize("row, words", [
    (dict(after_from="best", equal=True, mark=None, rank=1, best="tile red G5"), "the engine's choice"),
    (dict(after_from="searched", equal=True, mark=None, rank=1, best="tile red G5"),
     "one of the engine's equal choices (its choice: tile red G5)"),
    (dict(after_from="searched", equal=True, mark="mistake", rank=1, best="tile red G5"),
     "the engine's choice: tile red G5 (this move: its 1st)"),
    (dict(after_from="searched", equal=False, mark=None, rank=12, best="pass"),
     "the engine's choice: pass (this move: its 12th)"),
    (dict(after_from="searched", equal=False, mark="blunder", rank=None, best="pass"),
     "the engine's choice: pass (this move: not examined)"),
    (dict(after_from="forced", equal=True, mark=None, rank=1, best="pass"), "the only legal move"),
])
def test_the_verdict_names_the_engines_choice_unless_the_move_was_it(row, words):
    """A move played among the engine's equals is one of its equal choices, never "its
    choice too"; any other names the engine's choice, in the terminal, the page and the
    file alike."""
    from tigris.analysis import verdict

    assert verdict(row) == words


def analyse_or_die(task, *args):
    """``analyse_decision``, but move 3's kills its worker process (SIGKILL), every time."""
    import signal

    if task.move == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return analysis.analyse_decision(task, *args)


@pytest.mark.slow
def test_a_decision_whose_worker_dies_twice_stops_the_run_keeping_the_rows(rec2, tmp_path,
                                                                           monkeypatch):
    monkeypatch.setattr(analysis, "analyse_decision", analyse_or_die)
    path = tmp_path / "a.jsonl"
    with pytest.warns(UserWarning, match=r"worker process died.*move 3\b"), \
            pytest.raises(UsageError, match=r"^move 3: its worker process died twice \(killed "
                                            r"\(SIGKILL\).*\); 2 of 10 decisions are analysed in "
                                            r".*a.jsonl; run the same command again to continue$"):
        run(rec2, path, jobs=2)
    header, rows = analysis.read_analysis(path)
    assert [r["move"] for r in rows] == [1, 2]          # in order: those before it are kept
    monkeypatch.undo()
    monkeypatch.chdir(REPO)
    assert run(rec2, path, jobs=1)[1] == run(rec2, tmp_path / "b.jsonl", jobs=1)[1]
