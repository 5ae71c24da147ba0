"""tigris bench calibration: its positions from seeded bot games no fit saw, their
outcomes, and the calibration rows, on a few positions searched briefly."""

import json
import math

import pytest

import tigris
from tigris.calibration import calibrated_floor
from tigris.runs import bench
from tigris.commands import main
from tigris.play.runner import deal_seed


@pytest.fixture(scope="module")
def positions():
    return bench.calibration_positions(per_count=2, seed=5)


@pytest.mark.slow
def test_positions_are_reproducible_decisions_with_a_choice(positions):
    again = bench.calibration_positions(per_count=2, seed=5)
    assert positions == again
    assert [p["players"] for p in positions] == [2, 2, 3, 3, 4, 4]
    for p in positions:
        g = tigris.Game(players=p["players"], seed=p["seed"])
        for a in p["moves"]:
            g.apply(a)
        assert not g.is_over and g.decision == "action" and len(g.legal_actions()) >= 2
        assert p["mover"] == g.current_player
    assert bench.calibration_positions(per_count=1, seed=6)[0] != positions[0]      # another seed, other games


def test_positions_spread_over_the_game(positions):
    first, second = positions[:2]                     # the first two of one 2-player game
    assert first["seed"] == second["seed"] and len(first["moves"]) < len(second["moves"])


def test_outcomes_are_shares_of_the_first_place_that_sum_to_1(positions):
    for p in positions:
        assert len(p["outcome"]) == p["players"]
        assert math.isclose(sum(p["outcome"]), 1.0)
        assert all(share in (0.0, 1.0) or 0 < share < 1 for share in p["outcome"])


def test_game_seeds_are_none_a_tournament_deals():
    lowest = bench.calibration_seed(0, 2, 0)
    # A tournament's deals of seeds up to 6,999 lie below; midgame_positions' below 2**31.
    assert deal_seed(6_999, 999_999) < lowest and 2**31 < lowest
    assert bench.calibration_seed(0, 4, bench.MAX_GAMES - 1) < bench.calibration_seed(1, 2, 0)
    with pytest.raises(ValueError, match="at most"):
        bench.calibration_seed(0, 2, bench.MAX_GAMES)


@pytest.mark.slow
def test_calibration_rows_per_player_count_and_in_all():
    rows = bench.bench_calibration(positions=1, iterations=100, seed=5, progress=False)
    figures = {name: value for name, value, _ in rows}
    for label in ("2 players", "3 players", "4 players", "all"):
        ece = figures[f"expected calibration error of the mover's chance, {label}"]
        assert 0 <= ece <= 1
        assert 0 <= figures[f"mean chance of the mover, {label}"] <= 1
    assert figures["positions, all"] == 3
    # the hints give every player's chance: they sum to 1
    assert figures["largest deviation of the players' chances' sum from 1, all"] <= 0.001
    assert figures["positions whose chances sum to 1 within 0.001, all"] == 100      # percent


@pytest.mark.slow
def test_every_players_chances_are_checked_when_the_rows_give_them(monkeypatch):
    from tigris import hints

    def with_chances(game, **kw):
        n = game.players
        return [{"win": 0.5, "chances": [0.5] + [0.5 / (n - 1)] * (n - 2) + [0.5 / (n - 1) + 0.01]}]

    monkeypatch.setattr(hints, "hint", with_chances)        # one worker: searched in this process
    rows = bench.bench_calibration(positions=1, iterations=100, seed=5, progress=False)
    figures = {name: value for name, value, _ in rows}
    assert math.isclose(figures["largest deviation of the players' chances' sum from 1, all"], 0.01)
    assert figures["positions whose chances sum to 1 within 0.001, all"] == 0


@pytest.mark.slow
def test_bench_calibration_command_runs_small(capsys):
    assert main(["bench", "calibration", "--positions", "1", "--iterations", "50", "--json"]) == 0
    figures = {f["figure"]: f["value"] for f in json.loads(capsys.readouterr().out)["figures"]}
    assert figures["positions, all"] == 3
    assert "expected calibration error of the mover's chance, all" in figures


def test_format_rows_shows_counts_whole_and_chances_to_three_decimals():
    text = bench.format_rows([("positions", 3, "positions"), ("error", 0.1514, "chance")],
                             "value", decimals=3)
    assert " 3  positions" in text and "0.151  chance" in text


def game_or_die(players, game_seed, games_bot=None):
    """``_calibration_game``, but a 3-player game kills its worker process (SIGKILL),
    every time."""
    import os
    import signal

    if players == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return bench._calibration_game(players, game_seed, games_bot)


@pytest.mark.slow
def test_a_game_whose_worker_dies_twice_stops_the_bench_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(bench, "_calibration_game", game_or_die)
    assert main(["bench", "calibration", "--positions", "1", "--iterations", "50",
                 "--jobs", "2"]) == 1
    err = capsys.readouterr().err
    lines = [line for line in err.replace("\r", "\n").splitlines()
             if line.strip() and "%|" not in line and not line.startswith("machine:")]
    assert "Traceback" not in err
    assert lines[0].startswith("tigris bench: warning: a worker process died (killed (SIGKILL)")
    seed = bench.calibration_seed(0, 3, 0)
    assert lines[-1] == (f"tigris bench: the calibration game of 3 players (seed {seed}): its "
                         f"worker process died twice (killed (SIGKILL): out of memory, or killed "
                         f"by hand); a benchmark keeps nothing of a run that stops: run it again "
                         f"(with fewer --jobs if memory is short)")


def test_a_fit_learns_from_what_the_hint_shows():
    """The chances a calibration sample keeps, calibrated, are those of the hint's first
    row with the same bot, budget and seed: a fit maps what the hint reads."""
    from tigris import chance, hints

    g = tigris.Game(players=3, seed=4)
    for _ in range(9):
        g.apply(g.legal_actions()[len(g.legal_actions()) // 3])
    moves = [a for a, _, _, _ in g.history]
    position = {"players": 3, "seed": 4, "moves": moves, "mover": g.current_player,
                "outcome": [1.0, 0.0, 0.0]}
    sample = bench.calibration_sample(position, hints.DEFAULT_BOT, 600, 2)
    first = hints.hint(g, iterations=600, seed=2, top=1, progress=False)[0]
    assert chance.calibrated(sample["raw"], g.current_player) == first["chances"]


def test_the_positions_can_come_from_games_of_another_bot(positions):
    greedy = bench.calibration_positions(per_count=2, seed=5, games_bot=("greedy", None))
    assert [p["seed"] for p in greedy] == [p["seed"] for p in positions]      # the same deals
    assert [p["moves"] for p in greedy] != [p["moves"] for p in positions]    # other games
    for p in greedy:
        g = tigris.Game(players=p["players"], seed=p["seed"])
        for a in p["moves"]:
            g.apply(a)
        assert g.decision == "action" and p["mover"] == g.current_player


def test_a_calibrated_chance_s_error_is_what_the_positions_allow():
    assert calibrated_floor([0.0, 1.0] * 50) == (0.0, 0.0)     # certain chances: no error
    few = calibrated_floor([0.3, 0.6] * 50)
    many = calibrated_floor([0.3, 0.6] * 2000)
    assert 0 < many[0] <= many[1] < few[0] <= few[1] < 0.25            # fewer positions, more noise
    assert calibrated_floor([0.3, 0.6] * 50) == few               # seeded


def test_the_games_bot_is_checked_before_any_game(capsys):
    assert main(["bench", "calibration", "--games-iterations", "400"]) == 1
    assert "--games-iterations is the --games-bot's: name the bot too" in capsys.readouterr().err
    assert main(["bench", "calibration", "--games-bot", "no-such-bot"]) == 1
    err = capsys.readouterr().err
    assert "the calibration games' bot no-such-bot: unknown bot 'no-such-bot'" in err and "Traceback" not in err
    assert main(["bench", "calibration", "--games-bot", "greedy", "--games-iterations", "400"]) == 1
    assert "the calibration games' bot greedy:" in capsys.readouterr().err


@pytest.mark.slow
def test_the_command_reads_the_floor_beside_the_error(capsys):
    assert main(["bench", "calibration", "--positions", "1", "--iterations", "50", "--games-bot",
                 "ismcts-heuristic", "--games-iterations", "20", "--json"]) == 0
    figures = {f["figure"]: f["value"] for f in json.loads(capsys.readouterr().out)["figures"]}
    median = figures["the same of a calibrated chance here, median, all"]
    assert 0 <= median <= figures["the same of a calibrated chance here, 95th percentile, all"] <= 1
