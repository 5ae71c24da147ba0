"""The openspiel bot kind (tigris.bots.openspiel): OpenSpiel's IS-MCTS and MCTS as
tigris bots, loaded from files like every bot, honest, and playing tigris's matches."""

import pytest

pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

import tigris  # noqa: E402
from tigris import bots  # noqa: E402
from tigris.errors import ConfigError  # noqa: E402
from tigris.interop import openspiel as tos  # noqa: E402

from tigris.commands import main  # noqa: E402

QUICK = {"ismcts": dict(iterations=12), "mcts": dict(iterations=12, determinizations=3)}


def midgame(seed, players=2, moves=30):
    g = tigris.Game(players=players, seed=seed)
    for _ in range(moves):
        g.apply(g.legal_actions()[(seed + g.turn) % len(g.legal_actions())])
    return g


@pytest.mark.parametrize("algorithm", ["ismcts", "mcts"])
def test_it_plays_a_legal_move(algorithm):
    g = midgame(1, players=3)
    bot = bots.make("openspiel", algorithm=algorithm, seed=2, **QUICK[algorithm])
    assert bot.kind == "openspiel" and bot.honest
    assert g.is_legal(bot.choose(g))


@pytest.mark.parametrize("algorithm", ["ismcts", "mcts"])
def test_it_decides_from_its_players_view_only(algorithm):
    """The same choice whatever the others hold: the game, and a copy with every tile
    the player to move cannot see dealt again."""
    g = midgame(4)
    other = g.determinize(g.current_player, 99)
    assert other.hand(1 - g.current_player) != g.hand(1 - g.current_player)
    moves = [bots.make("openspiel", algorithm=algorithm, seed=5, **QUICK[algorithm]).choose(x) for x in (g, other)]
    assert moves[0] == moves[1]


def test_a_time_budget():
    bot = bots.make("openspiel", seconds=0.2, seed=1)
    assert bot.params["iterations"] is None
    assert midgame(6).is_legal(bot.choose(midgame(6)))


def test_mcts_takes_no_seconds(tmp_path):
    path = tmp_path / "clock.toml"
    path.write_text('kind = "openspiel"\nalgorithm = "mcts"\nseconds = 1.0\n')
    with pytest.raises(ConfigError, match=r"clock.toml: algorithm = \"mcts\" takes iterations, not seconds"):
        bots.load(path)
    with pytest.raises(ConfigError, match="algorithm must be one of ismcts, mcts, not 'alphazero'"):
        bots.make("openspiel", algorithm="alphazero")


def test_the_shipped_files():
    for name, algorithm in (("openspiel-ismcts", "ismcts"), ("openspiel-mcts", "mcts")):
        conf = bots.configuration(name)
        assert conf.kind == "openspiel" and conf.params["algorithm"] == algorithm


def test_a_leaf_is_judged_by_random_playouts():
    s = tos.state_of(midgame(7))
    values = s.playout_returns(3)
    assert sorted(values) in ([0.0, 1.0], [0.5, 0.5]) and s.playout_returns(3) == values
    s.apply_action(s.legal_actions()[0])
    while not s.is_chance_node() and not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    assert sum(s.playout_returns(4)) == 1.0          # halfway through the draws too


@pytest.mark.slow
def test_tigris_match_plays_it_and_reads_its_folder_back(tmp_path, capsys):
    path = tmp_path / "os.toml"
    path.write_text('kind = "openspiel"\nalgorithm = "mcts"\niterations = 4\ndeterminizations = 2\n')
    assert main(["match", str(path), "random", "--max-games", "2", "--jobs", "1", "--out", str(tmp_path / "m")]) == 0
    assert "in 2 games" in capsys.readouterr().out
    assert main(["standings", str(tmp_path / "m")]) == 0


def test_loading_the_bots_imports_no_framework():
    """OpenSpiel is imported when an openspiel bot is made, not with tigris.bots."""
    from processes import python

    done = python("import sys, tigris.bots\nprint(sorted({'pyspiel', 'tigris.interop.openspiel'} & set(sys.modules)))")
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
