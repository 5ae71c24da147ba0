"""Move hints from Python and from the command line."""

import json

import pytest

import tigris
from tigris.cli import main
from tigris.record import to_record


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
    with pytest.raises(ValueError, match="positive"):
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

    rows = bench.bench_search(repeats=1, iterations=400)
    names = [r[0] for r in rows]
    assert any("cut-off 10" in n for n in names) and any("overhead" in n for n in names)
    assert all(r[1] > 0 for r in rows)
