"""The tournament runner: files, replays, reproducibility, resume, dask, errors."""

import json
import os
import warnings

import pytest

from tigris import tournament
from tigris.commands import main
from tigris.record import replay
from tigris.errors import ConfigError, UsageError
from tigris.tournament import Spec, TournamentError, read_games, run, schedule


@pytest.fixture(autouse=True)
def in_repo(monkeypatch):
    # Bot names are found in ./bots (the repository) or in the installed package.
    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def finished(out):
    return sorted(read_games(out), key=lambda r: r["game"])


def comparable(records):
    """What must not depend on how the games were run (timings excluded)."""
    return [(r["game"], r["deal_seed"], r["bots"], [m["move"] for m in r["moves"]], r["result"])
            for r in sorted(records, key=lambda r: r["game"])]


def test_schedule_rotates_seats_and_balances_tables():
    games = schedule(Spec(bots=["a", "b", "c"], players=2, games=12, seed=1))
    assert len(games) == 12
    by_deal = {}
    for g in games:
        by_deal.setdefault(g.deal_seed, []).append(g.seats)
    assert all(len(s) == 2 and s[0] == s[1][::-1] for s in by_deal.values())
    pairs = [frozenset(g.seats) for g in games]
    assert {p: pairs.count(p) for p in set(pairs)} == {frozenset("ab"): 4, frozenset("ac"): 4,
                                                        frozenset("bc"): 4}
    four = schedule(Spec(bots=["a", "b", "c", "d", "e"], players=4, games=40, seed=1))
    assert len(four) == 40
    meets = {}
    for g in four:
        for x in g.seats:
            for y in g.seats:
                if x < y:
                    meets[x, y] = meets.get((x, y), 0) + 1
    assert max(meets.values()) - min(meets.values()) <= 4
    assert all(sorted(g.seats) == sorted(four[4 * (g.game // 4)].seats) for g in four)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
def test_small_tournament_writes_files_and_records_replay(tmp_path, players):
    out = tmp_path / f"t{players}"
    summary = run(Spec(bots=["random", "greedy"], players=players, games=2 * players, seed=3),
                  out=out, jobs=2, progress=False)
    for name in ("tournament.json", "games.jsonl", "summary.json", "summary.md"):
        assert (out / name).exists()
    records = finished(out)
    assert len(records) == summary["games"] == 2 * players
    for rec in records:
        g = replay(rec)                     # raises if the stored result differs
        assert g.is_over and g.ranking() == rec["result"]["ranking"]
    names = {row["name"] for row in summary["standings"]["bots"]}
    assert names == {"random", "greedy"}
    md = (out / "summary.md").read_text()
    assert "greedy" in md and "Elo" in md
    assert json.loads((out / "summary.json").read_text())["games"] == 2 * players


@pytest.mark.slow
def test_same_seed_same_results_with_one_or_two_jobs(tmp_path):
    spec = dict(bots=["random", "greedy"], players=2, games=6, seed=9)
    run(Spec(**spec), out=tmp_path / "one", jobs=1, progress=False)
    run(Spec(**spec), out=tmp_path / "two", jobs=2, progress=False)
    assert comparable(finished(tmp_path / "one")) == comparable(finished(tmp_path / "two"))


@pytest.mark.slow
def test_resume_after_an_interruption_with_a_torn_line(tmp_path):
    spec = dict(bots=["random", "greedy"], players=2, games=8, seed=4)
    full = tmp_path / "full"
    run(Spec(**spec), out=full, jobs=2, progress=False)
    cut = tmp_path / "cut"
    run(Spec(**spec), out=cut, jobs=2, progress=False)
    lines = (cut / "games.jsonl").read_text().splitlines(keepends=True)
    torn = lines[3][: len(lines[3]) // 2]                 # killed in the middle of a write
    (cut / "games.jsonl").write_text("".join(lines[:3]) + torn)
    with pytest.warns(UserWarning, match="torn"):
        run(out=cut, jobs=2, resume=True, progress=False)
    assert comparable(finished(cut)) == comparable(finished(full))
    with warnings.catch_warnings():
        warnings.simplefilter("error")                    # the file was repaired
        assert len(read_games(cut)) == 8


def test_a_failing_game_is_recorded_and_the_run_goes_on(tmp_path, monkeypatch):
    from tigris.bots.simple import GreedyBot

    def broken(self, game):
        if game.turn >= 3:
            raise RuntimeError("the bot fell over")
        return GreedyBot._choose(self, game)

    monkeypatch.setattr(GreedyBot, "_choose", GreedyBot.choose, raising=False)
    monkeypatch.setattr(GreedyBot, "choose", broken)
    summary = run(Spec(bots=["random", "greedy"], players=2, games=2, seed=1),
                  out=tmp_path / "t", jobs=1, progress=False)
    records = finished(tmp_path / "t")
    assert len(records) == 2 and all("the bot fell over" in r["error"] for r in records)
    assert all(r["deal_seed"] is not None and r["moves"] for r in records)   # the moves so far are kept
    assert summary["errors"] and summary["standings"]["errors"] == 2
    assert summary["played"] == {"games": 0, "failed": 2}


def play_or_die(task, settings, spec):
    """``play_game``, but game 1 kills its worker process (SIGKILL), every time."""
    import signal

    from tigris.play.runner import play_game

    if task.game == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return play_game(task, settings, spec)


@pytest.mark.slow
def test_a_game_whose_worker_dies_twice_is_recorded_failed_and_resume_plays_it(tmp_path, monkeypatch, capsys):
    from joblib import delayed

    monkeypatch.setattr(tournament, "game_tasks", lambda tasks, settings, spec: (
        delayed(play_or_die)(task, settings, spec) for task in tasks))
    out = tmp_path / "t"
    assert main(["tournament", "--bots", "random", "greedy", "--games", "4", "--jobs", "2",
                 "--out", str(out)]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if "%|" not in line]
    assert "Traceback" not in "".join(err)
    assert any("a worker process died (killed (SIGKILL)" in line and "game 1" in line
               and "run again, alone" in line for line in err), err
    assert err[-1].startswith("tigris tournament: warning: 1 of 4 games failed and are not rated "
                              "(game 1: its worker process died twice (killed (SIGKILL)")
    assert err[-1].endswith(f"play them again with --resume {out}")
    records = finished(out)
    assert [r["game"] for r in records] == [0, 1, 2, 3]
    assert records[1]["error"].startswith("its worker process died twice") and not records[1]["moves"]
    assert all(r["result"] for r in records if r["game"] != 1)
    monkeypatch.undo()                               # the cause gone: --resume plays it
    monkeypatch.chdir(tmp_path)
    summary = run(out=out, resume=True, jobs=1, progress=False)
    assert summary["games"] == 4 and summary["errors"] == [] and summary["played"]["games"] == 1


def broken_greedy(monkeypatch):
    """Greedy falls over at its every move (as a bot whose network cannot be read did,
    before a bot file was checked whole when loaded): every game it plays fails."""
    from tigris.bots.simple import GreedyBot

    def broken(self, game):
        raise RuntimeError("the bot fell over")
    monkeypatch.setattr(GreedyBot, "choose", broken)


def test_a_tournament_whose_games_all_fail_ends_in_one_line_with_status_1(tmp_path, capsys,
                                                                          monkeypatch):
    broken_greedy(monkeypatch)
    out = tmp_path / "t"
    assert main(["tournament", "--bots", "greedy", "random", "--games", "2", "--jobs", "1",
                 "--out", str(out)]) == 1
    printed = capsys.readouterr()
    assert "0 of 2 games played (2 failed" in printed.out      # the summary is shown and kept
    lines = [line for line in printed.err.replace("\r", "\n").splitlines()
             if line.strip() and "%|" not in line]
    assert len(lines) == 1 and "Traceback" not in printed.err, printed.err
    assert lines[0].startswith("tigris tournament: all 2 games of this run failed (game 0: "
                               "RuntimeError: the bot fell over")
    assert lines[0].endswith(f"play them again with --resume {out}")
    assert main(["tournament", "--resume", str(out), "--jobs", "1"]) == 1    # and again


def test_a_tournament_with_some_failed_games_says_so_last(tmp_path, monkeypatch, capsys):
    from tigris.bots.simple import GreedyBot

    def broken(self, game):
        if game.current_player == 0:               # greedy in the first seat: game 1
            raise RuntimeError("the bot fell over")
        return GreedyBot._choose(self, game)

    monkeypatch.setattr(GreedyBot, "_choose", GreedyBot.choose, raising=False)
    monkeypatch.setattr(GreedyBot, "choose", broken)
    out = tmp_path / "t"
    assert main(["tournament", "--bots", "random", "greedy", "--games", "2", "--jobs", "1",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "1 of 2 games played (1 failed" in printed.out
    last = printed.err.replace("\r", "\n").splitlines()[-1]
    assert last == (f"tigris tournament: warning: 1 of 2 games failed and are not rated (game 1: "
                    f"RuntimeError: the bot fell over; {out}/summary.md lists them): fix the "
                    f"cause, then play them again with --resume {out}")


@pytest.mark.slow
def test_dask_cluster_gives_the_same_results(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    spec = dict(bots=["random", "greedy"], players=2, games=4, seed=5)
    run(Spec(**spec), out=tmp_path / "local", jobs=2, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        run(Spec(**spec), out=tmp_path / "dask", backend="dask", scheduler=client, progress=False)
    assert comparable(finished(tmp_path / "dask")) == comparable(finished(tmp_path / "local"))


def test_errors_are_clear(tmp_path):
    # the configuration (bots, spec files, spec fields) raises ConfigError; the run itself
    # (its results folder) TournamentError
    with pytest.raises(ConfigError, match="unknown bot 'nobody'.*known bots"):
        run(Spec(bots=["random", "nobody"]), out=tmp_path / "x", progress=False)
    bad = tmp_path / "bad.toml"
    bad.write_text('bots = ["random", "greedy"]\nrounds = 3\n')
    with pytest.raises(ConfigError, match="bad.toml: unknown key 'rounds'; valid keys"):
        tournament.load_spec(bad)
    bad.write_text('bots = ["random", "greedy"]\nplayers = 5\n')
    with pytest.raises(ConfigError, match="players must be 2, 3 or 4"):
        tournament.load_spec(bad)
    with pytest.raises(ConfigError, match="missing.toml: No such file"):
        tournament.load_spec(tmp_path / "missing.toml")
    with pytest.raises(UsageError, match="no tournament given"):
        run(out=tmp_path / "y", progress=False)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(TournamentError, match="cannot write results to"):
        run(Spec(bots=["random", "greedy"]), out=blocker / "sub", progress=False)
    run(Spec(bots=["random", "greedy"], games=2), out=tmp_path / "once", jobs=1, progress=False)
    with pytest.raises(TournamentError, match="--resume"):
        run(Spec(bots=["random", "greedy"], games=2), out=tmp_path / "once", progress=False)
    with pytest.raises(TournamentError, match="nothing to resume"):
        run(out=tmp_path / "empty", resume=True, progress=False)


def test_cli_tournament_standings_replay(tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["tournament", "--bots", "random", "greedy", "--games", "2", "--jobs", "1",
                 "--out", str(out)]) == 0
    assert "greedy" in capsys.readouterr().out
    assert main(["standings", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2
    assert main(["replay", str(out), "--game", "1", "--every", "0"]) == 0
    assert "1. player" in capsys.readouterr().out
    assert main(["tournament", "--bots", "random", "nobody", "--out", str(tmp_path / "n")]) == 1
    assert "unknown bot" in capsys.readouterr().err
    assert main(["replay", str(out), "--game", "7"]) == 1
    assert "no game 7" in capsys.readouterr().err


def test_spec_files_in_tournaments_load():
    for path in sorted(os.listdir("tournaments")):
        spec = tournament.load_spec(os.path.join("tournaments", path))
        assert len(schedule(spec)) >= spec.games


@pytest.mark.slow
def test_sprt_match_reports_llr_and_saves_games(tmp_path, capsys):
    from tigris.match import sprt_match
    from tigris.play.runner import first_of_two
    from tigris.ratings import sprt_llr_deals

    r = sprt_match("greedy", "random", elo0=0, elo1=200, max_games=40, jobs=2,
                   out=tmp_path / "m", progress=False)
    assert r["wins"] + r["draws"] + r["losses"] == r["games"] <= 40
    assert r["wins"] > r["losses"]
    assert r["decision"] == "H1" and r["llr"] >= r["bounds"][1]
    games = read_games(tmp_path / "m")
    assert len(games) == r["games"] and r["games"] % 2 == 0
    # the LLR of its deals, each played in both seatings
    points = {g["game"]: first_of_two(g, "greedy", "random") for g in games}
    deals = [(points[k] + points[k + 1]) / 2 for k in range(0, r["games"], 2)]
    assert r["llr"] == sprt_llr_deals(deals, 2, 0, 200)
    assert main(["match", "greedy", "random", "--sprt", "elo0=0", "elo1=200",
                 "--max-games", "4", "--jobs", "2"]) == 0
    assert "LLR" in capsys.readouterr().out
    assert main(["match", "greedy", "random", "--sprt", "elo=5"]) == 1
    assert "KEY=VALUE" in capsys.readouterr().err
    assert main(["match", "greedy", "random", "--sprt", "elo0=20", "elo1=10"]) == 1
    assert "must be above" in capsys.readouterr().err


class _Bar:
    def update(self, n=1):
        pass

    def set_postfix(self, **values):
        pass


def test_the_test_counts_whole_deals_and_leaves_out_one_with_a_failed_game():
    from tigris.match import _SPRT
    from tigris.ratings import sprt_llr_deals

    def game(k, first):
        seats = ["a", "b"] if k % 2 == 0 else ["b", "a"]
        if first is None:
            return {"game": k, "bots": seats, "error": "its worker process died twice", "result": None}
        winner = seats.index(first)
        return {"game": k, "bots": seats, "result": {"ranking": [[winner], [1 - winner]]}}

    test = _SPRT("a", "b", 0, 50, 0.05, 0.05, max_games=100, scheduled=8, batch=2, per_deal=2)
    for k, first in enumerate(["a", "a", "a", "b", None, "a", "b", "b"]):
        test.add(game(k, first), None, _Bar())
        if k == 2:                                      # a deal half played is not counted yet
            assert test.deals == [1.0]
    assert (test.wins, test.draws, test.losses) == (4, 0, 3) and test.deals == [1.0, 0.5, 0.0]
    assert test.llr == sprt_llr_deals([1.0, 0.5, 0.0], 2, 0, 50) and test.decision is None
    assert test.first_failure == "game 4: its worker process died twice"


def test_a_match_of_three_seats_both_bots_with_the_field_and_counts_first_places(tmp_path):
    """A match of 3 players: every seating of each deal, the field at each table, a game
    a field bot wins a draw between A and B; the folder a results folder of the three."""
    from tigris.match import format_result, sprt_match
    from tigris.play.runner import first_of_two

    r = sprt_match("greedy", "random", elo0=0, elo1=100, max_games=6, jobs=1, players=3,
                   field=["level-1"], out=tmp_path / "m",
                   progress=False)
    games = read_games(tmp_path / "m")
    assert len(games) == r["games"] and r["games"] in (3, 6)   # the test looks after each deal
    assert [g["bots"] for g in games[:3]] == [["greedy", "random", "level-1"],
                                             ["random", "level-1", "greedy"],
                                             ["level-1", "greedy", "random"]]
    assert len({g["deal_seed"] for g in games[:3]}) == 1
    points = [first_of_two(g, "greedy", "random") for g in games]
    assert r["wins"] == points.count(1) and r["losses"] == points.count(0)
    assert r["draws"] == points.count(0.5) and r["field"] == ["level-1"]
    assert "by first places, with level-1 at the table" in format_result(r)


@pytest.mark.slow
def test_a_stopped_match_resumed_ends_as_the_uninterrupted_one(tmp_path, monkeypatch):
    """Stopped after its third game is saved (mid-batch: the test looks every two), the
    match goes on with --resume from the games saved: the same games, the same decision."""
    from tigris import match
    from tigris._plumbing import jsonl
    from tigris.errors import Interrupted

    run = dict(elo0=0, elo1=200, max_games=40, jobs=2, progress=False)
    whole = match.sprt_match("greedy", "random", out=tmp_path / "whole", **run)
    append, saved = jsonl.append, []

    def stop_after_three(f, rec):
        append(f, rec)
        saved.append(rec["game"])
        if len(saved) == 3:
            raise KeyboardInterrupt
    monkeypatch.setattr(jsonl, "append", stop_after_three)
    with pytest.raises(Interrupted, match="the same command with --resume continues the match"):
        match.sprt_match("greedy", "random", out=tmp_path / "stopped", **run)
    monkeypatch.setattr(jsonl, "append", append)
    assert len(finished(tmp_path / "stopped")) == 3 < whole["games"]
    again = match.sprt_match("greedy", "random", out=tmp_path / "stopped", resume=True, **run)
    assert again == whole and again["decision"] == "H1"
    assert comparable(finished(tmp_path / "stopped")) == comparable(finished(tmp_path / "whole"))
    # a finished match resumed counts its games again and plays none
    assert match.sprt_match("greedy", "random", out=tmp_path / "stopped", resume=True, **run) == whole
    assert len(finished(tmp_path / "stopped")) == whole["games"]


@pytest.mark.parametrize("change, says", [
    (["--seed", "3"], "its seed is 0, not 3; give the same --seed"),
    (["--max-games", "4"], "its games is 2, not 4; give the same --max-games"),
    (["--players", "3", "--field", "random"], "its bots is"),
    (["--iterations", "11"], "BOT played it with iterations 10, now 11; put the bot back"),
])
def test_a_resumed_match_must_be_the_one_its_folder_holds(tmp_path, capsys, change, says):
    bot = tmp_path / "tiny.toml"
    bot.write_text('kind = "ismcts"\niterations = 10\nrollout_depth = 2\n')
    out = tmp_path / "m"
    args = ["match", str(bot), "greedy", "--max-games", "2", "--jobs", "1", "--out", str(out)]
    assert main(args) == 0
    before = (out / "games.jsonl").read_bytes()
    if change[0] == "--iterations":
        bot.write_text('kind = "ismcts"\niterations = 11\nrollout_depth = 2\n')
        change = []
    assert main(args + change + ["--resume"]) == 1
    err = capsys.readouterr().err
    assert f"{out} holds another match: " in err and says.replace("BOT", str(bot)) in err, err
    assert (out / "games.jsonl").read_bytes() == before


def test_resume_needs_a_match_to_continue_and_a_match_without_it_a_new_folder(tmp_path, capsys):
    out = tmp_path / "m"
    assert main(["match", "greedy", "random", "--max-games", "2", "--jobs", "1", "--resume"]) == 1
    assert "--resume continues the match saved in a results folder: give --out DIR" in capsys.readouterr().err
    assert main(["match", "greedy", "random", "--max-games", "2", "--jobs", "1", "--out", str(out),
                 "--resume"]) == 1
    assert "no tournament.json here, no match to resume; leave out --resume" in capsys.readouterr().err
    assert main(["match", "greedy", "random", "--max-games", "2", "--jobs", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["match", "greedy", "random", "--max-games", "2", "--jobs", "1", "--out", str(out)]) == 1
    assert "already holds games: continue the match with --resume" in capsys.readouterr().err


@pytest.mark.slow
def test_a_match_on_a_dask_cluster_plays_the_games_it_plays_here(tmp_path):
    from tigris.match import sprt_match

    distributed = pytest.importorskip("dask.distributed")
    run = dict(elo0=0, elo1=200, max_games=8, jobs=2, progress=False)
    local = sprt_match("greedy", "random", out=tmp_path / "local", **run)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        remote = sprt_match("greedy", "random", out=tmp_path / "dask", backend="dask", scheduler=client,
                            **run)
    assert remote == local
    assert comparable(finished(tmp_path / "dask")) == comparable(finished(tmp_path / "local"))


def test_sprt_verdict_names_the_bound_crossed_and_claims_no_margin():
    """Issue 42: the verdict read "LLR 3.35 in (-2.94, 2.94)" and "stronger ... (by about
    200 Elo)", though an SPRT decides between two hypotheses and estimates no margin."""
    from tigris.match import format_result

    base = {"a": "new", "b": "old", "wins": 30, "draws": 0, "losses": 5, "games": 35,
            "elo0": 0, "elo1": 200, "alpha": 0.05, "beta": 0.05, "bounds": (-2.94, 2.94)}
    text = format_result({**base, "llr": 3.35, "decision": "H1"})
    assert "LLR 3.35 crossed the upper bound 2.94: H1 accepted" in text
    assert "new is stronger than old" in text and "by about" not in text
    assert " in (-2.94, 2.94)" not in text and "H0: elo <= 0, H1: elo >= 200" in text
    text = format_result({**base, "llr": -3.0, "decision": "H0"})
    assert "crossed the lower bound -2.94: H0 accepted" in text
    assert "new is not 200 Elo stronger than old" in text
    text = format_result({**base, "llr": 1.2, "decision": None})
    assert "LLR 1.20 within (-2.94, 2.94): no decision after 35 games" in text
    text = format_result({**base, "elo0": 10, "llr": 3.0, "decision": "H1"})
    assert "more than 10 Elo stronger than old" in text


@pytest.mark.slow
def test_a_match_game_whose_worker_dies_twice_is_saved_failed_and_not_counted(tmp_path, monkeypatch):
    from joblib import delayed

    from tigris import match

    monkeypatch.setattr(match, "game_tasks", lambda tasks, settings, spec: (
        delayed(play_or_die)(task, settings, spec) for task in tasks))
    with pytest.warns(UserWarning, match=r"worker process died \(killed \(SIGKILL\).*game 1\b"):
        r = match.sprt_match("greedy", "random", elo0=0, elo1=200, max_games=4, jobs=2,
                             out=tmp_path / "m", progress=False)
    assert r["failed"] == 1 and r["games"] == 3 and r["first_failure"].startswith(
        "game 1: its worker process died twice")
    assert "in 3 games (1 more failed, not counted)" in match.format_result(r)
    records = finished(tmp_path / "m")
    assert [rec["game"] for rec in records] == [0, 1, 2, 3] and records[1]["error"]


def test_a_match_whose_games_all_fail_ends_in_one_line_with_status_1(tmp_path, capsys, monkeypatch):
    broken_greedy(monkeypatch)
    assert main(["match", "greedy", "random", "--max-games", "2", "--jobs", "1",
                 "--out", str(tmp_path / "m")]) == 1
    printed = capsys.readouterr()
    assert "in 0 games (2 more failed, not counted)" in printed.out
    lines = [line for line in printed.err.replace("\r", "\n").splitlines()
             if line.strip() and "%|" not in line]
    assert len(lines) == 1 and "Traceback" not in printed.err, printed.err
    assert lines[0].startswith("tigris match: all 2 games failed, nothing is counted (game 0: "
                               "RuntimeError: the bot fell over") and lines[0].endswith("summary.md lists them")
