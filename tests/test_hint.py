"""Move hints from Python and from the command line."""

import json

import pytest

import tigris
from tigris import bots
from tigris.cli import main
from tigris.hints import format_table, shown_continuation
from tigris.record import to_record

from processes import ROOT, interrupt, python


def test_hint_ranks_legal_moves_with_statistics():
    g = tigris.Game(players=2, seed=7)
    hints = tigris.hint(g, iterations=1500, top=4, progress=False)
    assert len(hints) == 4
    legal = set(g.legal_actions())
    assert all(h["action"] in legal and g.parse_action(h["move"]) == h["action"] for h in hints)
    visits = [h["visits"] for h in hints]
    assert visits == sorted(visits, reverse=True)
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
    assert data["bot"] == "ismcts-fast" and data["seed"] == 0
    assert data["iterations"] == 600 and data["seconds"] > 0
    assert set(data["hints"][0]) == {"move", "action", "visits", "share", "win", "chances",
                                     "continuation"}
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
    from tigris import bench

    calls = []
    rows = bench.bench_search(repeats=1, iterations=400, progress=lambda: calls.append(1))
    names = [r[0] for r in rows]
    assert any("cut-off 10" in n for n in names) and any("overhead" in n for n in names)
    assert any("greedy rollouts" in n for n in names)
    assert len(calls) == bench.search_runs(1)
    assert all(r[1] > 0 for r in rows)


def test_midgame_positions_are_reproducible_action_decisions_with_a_choice():
    from tigris import bench

    first = bench.midgame_positions(per_count=1, seed=4)
    again = bench.midgame_positions(per_count=1, seed=4)
    assert [g.players for g in first] == [2, 3, 4]
    assert [g.state_bytes() for g in first] == [g.state_bytes() for g in again]
    for g in first:
        assert g.decision == "action" and len(g.legal_actions()) >= 2 and not g.is_over
        assert len(g.history) >= 10


def test_bench_decisive_runs_small():
    from tigris import bench

    calls = []
    rows = bench.bench_decisive(bot="ismcts-fast", iterations=300, per_count=1,
                                progress=lambda: calls.append(1))
    assert len(calls) == bench.decisive_runs(per_count=1) == 9
    figures = dict((name, value) for name, value, _ in rows)
    assert set(figures) >= {"same top move for seeds 1, 2, 3, 2 players",
                            "same top move, all 3 positions",
                            "median share of the root visits on the top move"}
    assert figures["same top move, all 3 positions"] in (0, 100 / 3, 200 / 3, 100)
    assert 0 < figures["median share of the root visits on the top move"] <= 100


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
        r = python(f"import sys; from tigris.cli import main; sys.exit(main({['hint', str(pos), option, value]!r}))",
                   timeout=60)
        # Refused as an option value (argparse's status 2), in one line naming the option.
        assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stdout, r.stderr[-3000:])
        assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"tigris hint: argument {option}: "), r.stderr
        assert "Traceback" not in r.stderr


@pytest.mark.parametrize("jobs,delay", [(1, 1.0), (2, 0.0), (2, 1.0)])
def test_ctrl_c_stops_a_hint(tmp_path, jobs, delay):
    """A long hint stops on Ctrl-C (while its workers start, or while they search) with the
    usual one line and exit status 130; no worker outlives it."""
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(tigris.Game(players=2, seed=4).to_position(player=0)))
    code, out, err, left = interrupt(["-m", "tigris.cli", "hint", str(pos), "--seconds", "6000",
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
    from the same seed; the bot file is read once."""
    import tomllib

    from tigris import bots
    from tigris.hints import CHUNKS

    monkeypatch.chdir(ROOT)
    g = tigris.Game(players=2, seed=6)
    reads = []
    load = tomllib.load
    monkeypatch.setattr(tomllib, "load", lambda f: reads.append(f.name) or load(f))
    hints = tigris.hint(g, iterations=700, seed=3, top=10_000, progress=False)
    assert len(reads) == 1 and reads[0].endswith("ismcts-fast.toml")
    stats = bots.load("ismcts-fast", seed=3).analyse(g, iterations=700, steps=CHUNKS)
    assert [(h["action"], h["visits"]) for h in hints] == \
           [(ch["action"], ch["visits"]) for ch in stats["children"]]
    assert [h["chances"] for h in hints] == [ch["chances"] for ch in stats["children"]]
    assert [h["win"] for h in hints] == [ch["chances"][g.current_player] for ch in stats["children"]]


def test_hint_budget_is_exact_with_several_workers():
    g = tigris.Game(players=2, seed=2)
    hints = tigris.hint(g, iterations=1000, jobs=3, seed=1, top=10_000, progress=False)
    assert sum(h["visits"] for h in hints) == 1000          # 334 + 333 + 333, not 3 x 334


def test_hint_with_a_bot_object():
    from tigris import bots

    g = tigris.Game(players=2, seed=2)
    bot = bots.make("ismcts", iterations=50, seed=4)
    hints = tigris.hint(g, iterations=300, bot=bot, top=10_000, progress=False)
    assert sum(h["visits"] for h in hints) == 300            # the hint's budget, not the bot's
    with pytest.raises(ValueError, match="jobs and seed apply to a bot configuration name"):
        tigris.hint(g, iterations=300, bot=bot, seed=1)
    with pytest.raises(ValueError, match="hints need an ismcts bot, not a greedy one"):
        tigris.hint(g, iterations=300, bot=bots.make("greedy"))


def test_hints_carry_what_the_search_spent(capsys):
    g = tigris.Game(players=2, seed=4)
    hints = tigris.hint(g, iterations=900, jobs=1, seed=5, top=2, progress=False)
    assert len(hints) == 2 and hints.iterations == 900 and hints.seed == 5
    assert hints.bot == "ismcts-fast" and hints.seconds > 0
    table = format_table(g, hints)
    assert "ismcts-fast, seed 5: 900 iterations in" in table


def test_the_table_shows_the_continuation_to_the_players_reply():
    line = ["player 0: pass", "player 1: tile red A1", "player 1: pass", "player 0: tile blue E1",
            "player 0: pass", "player 1: pass"]
    assert shown_continuation(line, 0) == line[:4]
    assert shown_continuation(line[:3], 0) == line[:3]
    assert shown_continuation(line, 1) == line[:2]


def test_the_hint_configuration_backs_up_the_calibrated_win_chance():
    conf = bots.configuration("hint")
    assert conf.kind == "ismcts" and conf.params["eval_calibrated"] == 1.0
    g = tigris.Game(players=3, seed=4)
    hints = tigris.hint(g, iterations=600, bot="hint", top=3, progress=False)
    assert hints.bot == "hint" and all(0.0 <= h["win"] <= 1.0 for h in hints)


@pytest.mark.parametrize("bot", ["ismcts-fast", "hint"])
def test_a_move_that_wins_outright_takes_most_visits_and_a_certain_win(bot):
    from test_search import WINNING_MOVE, forced_win, load

    # Both search with sequential halving at the root: the winner takes the last of its
    # six phases (UCB, four halvings of 16 candidates, the winner alone) and its share
    # of the others, so it holds far more visits than any other move.
    g = load(forced_win())
    hints = tigris.hint(g, iterations=2000, bot=bot, progress=False)
    assert hints[0]["move"] == WINNING_MOVE
    assert hints[0]["share"] > 0.25 and hints[0]["visits"] > 2 * hints[1]["visits"]
    assert hints[0]["win"] == 1.0
    assert all(h["win"] < 0.5 for h in hints[1:])
