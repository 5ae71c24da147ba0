"""What the runners share (tigris.play.runner) and the TOML reader (tigris.tomlfile)."""

import pytest

from tigris import ratings, tune
from tigris.play import runner
from tigris.errors import ConfigError, UsageError
from tigris._plumbing.tomlfile import read_toml
from tigris.play.results import Tally
from tigris.tournament import Spec, schedule


def test_deal_seeds_and_seatings():
    assert runner.deal_seed(0, 7) == 7
    assert runner.deal_seed(5, 3) == 5 * 1_000_003 + 3
    assert runner.seatings(["a", "b"]) == [["a", "b"], ["b", "a"]]
    assert runner.seatings(["a", "b", "c"]) == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]
    tasks = runner.deal_games(["a", "b"], 99, first_game=6)
    assert tasks == [runner.Task(game=6, deal_seed=99, seats=("a", "b")),
                     runner.Task(game=7, deal_seed=99, seats=("b", "a"))]


def test_the_runners_deal_with_the_shared_formula():
    games = schedule(Spec(bots=["a", "b", "c"], players=3, games=9, seed=4))
    assert [g.deal_seed for g in games] == [runner.deal_seed(4, d) for d in range(3) for _ in range(3)]
    assert [list(games[k].seats) for k in range(3)] == runner.seatings(["a", "b", "c"])
    # SPSA iteration k: theta+ and theta- each in both seatings of deal k; a Bayes trial
    # in both seatings of deal k and of a second deal of its own.
    spec = tune.TuneSpec(bot="ismcts-fast", params=[], opponents=["greedy"], seed=1)
    tasks = tune.GAMES["spsa"].tasks(2, spec, ["greedy"])
    assert [t.game for t in tasks] == [8, 9, 10, 11]
    assert {t.deal_seed for t in tasks} == {runner.deal_seed(1, 2)}
    assert [list(t.seats) for t in tasks] == [["plus", "greedy"], ["greedy", "plus"],
                                               ["minus", "greedy"], ["greedy", "minus"]]
    tasks = tune.GAMES["bayes"].tasks(2, spec, ["greedy"])
    assert [t.game for t in tasks] == [8, 9, 10, 11]
    assert [t.deal_seed for t in tasks] == [runner.deal_seed(1, 2)] * 2 + \
        [runner.deal_seed(1, tune.SECOND_DEALS + 2)] * 2
    assert [list(t.seats) for t in tasks] == [["trial", "greedy"], ["greedy", "trial"]] * 2
    # 3 players, 12 games an iteration: two deals, theta+ and theta- each in all three
    # seatings of both against the same two opponents
    spec = tune.TuneSpec(bot="ismcts-fast", params=[], opponents=["greedy", "random"], seed=1,
                         players=3, iteration_games=12)
    tasks = tune.GAMES["spsa"].tasks(2, spec, ["greedy", "random"])
    assert [t.game for t in tasks] == list(range(24, 36))
    assert [t.deal_seed for t in tasks] == [runner.deal_seed(1, 2)] * 6 + \
        [runner.deal_seed(1, tune.SECOND_DEALS + 2)] * 6
    assert [list(t.seats) for t in tasks[:6]] == runner.seatings(["plus", "greedy", "random"]) + \
        runner.seatings(["minus", "greedy", "random"])


def record(bots, ranking):
    return {"bots": bots, "result": {"ranking": ranking, "final": [0] * len(bots)}}


def test_first_places_and_scores():
    assert runner.first_places(["a", "b"], [[1], [0]], "b") == 1
    assert runner.first_places(["a", "b"], [[1], [0]], "a") == 0
    assert runner.first_places(["a", "b"], [[0, 1]], "a") == 0.5
    # a bot in two seats: each seat ranked first counts
    assert runner.first_places(["a", "b", "a"], [[0, 2], [1]], "a") == 1
    assert runner.first_places(["a", "b", "a"], [[0, 1], [2]], "a") == 0.5
    assert runner.score(record(["a", "b", "a"], [[0, 1], [2]]), "a") == 0.25    # per seat
    assert runner.score(record(["a", "b"], [[0], [1]]), "a") == 1
    assert runner.score({"bots": ["a", "b"], "result": None, "error": "boom"}, "a") is None


def test_ratings_and_the_progress_leader_count_wins_alike():
    games = [record(["a", "b"], [[0], [1]]), record(["b", "a"], [[0, 1]]),
             record(["a", "b", "a"], [[1], [0, 2]])]
    rows = {r["name"]: r for r in ratings.standings([dict(g, **g["result"]) for g in games],
                                                     resamples=0)["bots"]}
    assert rows["a"]["wins"] == 1 + 0.5 + 0 and rows["b"]["wins"] == 0 + 0.5 + 1
    # the progress bar counts per seat: a won 1.5 of 4 seats, b 1.5 of 3
    tally = Tally(Spec(bots=["a", "b"], players=2, games=4))
    for number, game in enumerate(games):
        tally.add(dict(game, game=number, deal_seed=0))
    assert tally.leader() == "b 50%"


def test_read_toml_names_the_file(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text('kind = "greedy"\n')
    assert read_toml(good) == {"kind": "greedy"}
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe")
    (tmp_path / "broken.toml").write_text("bots = [\n")
    for name, message in (("missing.toml", "No such file"), ("binary.toml", "not UTF-8"),
                          ("broken.toml", "not valid TOML")):
        with pytest.raises(ConfigError, match=f"{name}: .*{message}"):
            read_toml(tmp_path / name)
    with pytest.raises(UsageError, match="missing.toml"):
        read_toml(tmp_path / "missing.toml", error=UsageError)


def test_error_classes_say_what_went_wrong(tmp_path, monkeypatch):
    """An option is a UsageError, a bot or spec a ConfigError (both ValueErrors), and neither
    is a TournamentError, which is left to a run that cannot go as asked."""
    from tigris import bots, match
    from tigris.errors import TournamentError

    monkeypatch.chdir(tmp_path)
    for call, cls, message in [
        (lambda: match.parse_sprt(["elo=5"]), UsageError, "--sprt: 'elo=5'"),
        (lambda: match.sprt_match("greedy", "greedy"), UsageError, "two different bots"),
        (lambda: match.sprt_match("greedy", "nobody", progress=False), ConfigError,
         "bot B: unknown bot 'nobody'"),
        (lambda: bots.load("nobody"), ConfigError, "unknown bot 'nobody'"),
        (lambda: bots.make("ismcts", iteratons=5), ConfigError, "unknown key 'iteratons'"),
        (lambda: Spec(bots=["random"]).check(), ConfigError, "at least two bots"),
    ]:
        with pytest.raises(cls, match=message) as e:
            call()
        assert isinstance(e.value, ValueError) and not isinstance(e.value, TournamentError)
    (tmp_path / "typo.toml").write_text('kind = "ismcts"\niteratons = 50\n')
    with pytest.raises(ConfigError, match="typo.toml: unknown key 'iteratons'"):
        bots.load(tmp_path / "typo.toml")


def test_a_game_that_does_not_end_is_stopped_and_ranked_as_it_stands(monkeypatch, tmp_path):
    """Bots can move leaders about for ever without playing a tile; the runner stops such
    a game at MAX_TURNS (here 3) and ranks it on the scores so far.  The record says so,
    replays to the same result and counts in the ratings like any finished game."""
    from tigris import record

    monkeypatch.setattr(runner, "MAX_TURNS", 3)
    task = runner.Task(game=0, deal_seed=5, seats=("a", "b"))
    settings = {"a": ("random", {"seed": 0}), "b": ("random", {"seed": 0})}
    rec = runner.play_game(task, settings, runner.GameSpec(players=2, seed=1, name="t"))
    assert "error" not in rec
    assert rec["result"]["adjudicated"] == runner.TURN_LIMIT
    game = record.replay(rec)
    assert not game.is_over and game.turn == 3
    assert rec["result"]["ranking"] == game.ranking()
    assert runner.score(rec, "a") + runner.score(rec, "b") == pytest.approx(1.0)
    # A record whose claimed result does not match its moves is refused, adjudicated or not.
    rec["result"]["final"][0] += 1
    with pytest.raises(ValueError, match="result"):
        record.replay(rec)


def test_every_bots_game_seeds_its_bots_by_the_one_rule(tmp_path):
    """A lone game (tigris play) is game 0 of its seed: its bots are seeded as a
    tournament's game 0 of that seed would seat them, and each seat apart."""
    import json

    import tigris
    from tigris import bots
    from tigris.commands import main

    assert runner.bot_seed(3, 0, 1) != runner.bot_seed(3, 0, 0) != runner.bot_seed(3, 1, 0)
    assert runner.bot_seed(3, 2, 1, decision=0) == runner.bot_seed(3, 2, 1)
    assert main(["play", "--bots", "greedy", "random", "--seed", "5", "--every", "0",
                 "--record", str(tmp_path / "g.json")]) == 0
    played = [m["move"] for m in json.loads((tmp_path / "g.json").read_text())["moves"]]
    g = tigris.Game(players=2, seed=5)
    runner.play_out(g, [bots.make(kind, seed=runner.bot_seed(5, 0, seat))
                        for seat, kind in enumerate(["greedy", "random"])])
    assert [m["move"] for m in runner.record_of(g, ["greedy", "random"])["moves"]] == played
