"""tigris selfplay: bots' games with labelled positions, resumed, checked when read back,
and labelled from what the player to move could see."""

import json
import math
from dataclasses import replace

import pytest

import tigris
from tigris import record
from tigris.runs import selfplay
from tigris.commands import main
from tigris.errors import UsageError

FAST = 'kind = "ismcts"\niterations = 60\nrollout_depth = 4\n'


@pytest.fixture
def fast(tmp_path):
    path = tmp_path / "fast.toml"
    path.write_text(FAST)
    return str(path)


def small(fast, games=2, **kw):
    return selfplay.settings(games=games, bot=fast, positions=5, label_iterations=150, **kw)


def test_every_game_gives_labelled_positions_of_its_record(tmp_path, fast):
    lines = selfplay.run(small(fast), tmp_path / "data", progress=False)
    assert [line["game"] for line in lines] == [0, 1]
    for line in lines:
        assert "error" not in line and sum(line["first"]) == pytest.approx(1)
        seen = {n: (g.current_player, g.decision, len(g.legal_actions()))
                for n, g in record.steps(line["record"])}
        assert 1 <= len(line["positions"]) <= 5
        for p in line["positions"]:
            player, decision, legal = seen[p["move"]]
            assert (player, decision) == (p["player"], p["decision"]) and legal >= 2
            assert sum(p["search"]) == pytest.approx(1, abs=1e-4) and len(p["search"]) == 2
        final = record.replay(line["record"])
        assert line["scores"] == [final.final_score(q) for q in range(2)]
        # what the game and its labels cost the worker, more than its play alone
        assert line["cpu_seconds"] > line["record"]["cpu_seconds"] > 0
    assert selfplay.read(tmp_path / "data" / "positions.jsonl", small(fast)) == lines


def test_each_position_keeps_its_searchs_visits_over_legal_actions(tmp_path, fast):
    lines = selfplay.run(small(fast, games=1), tmp_path / "data", progress=False)
    legal_at = {n: set(g.legal_actions()) for n, g in record.steps(lines[0]["record"])}
    for p in lines[0]["positions"]:
        legal = legal_at[p["move"]]
        actions = [a for a, _ in p["policy"]]
        visits = [v for _, v in p["policy"]]
        assert set(actions) <= legal and len(set(actions)) == len(actions)
        assert visits == sorted(visits, reverse=True) and min(visits) >= 1
        assert sum(visits) <= 150           # the label search's iterations


@pytest.mark.parametrize("policy, says", [(None, "non-empty list"), ([], "non-empty list"),
                                          ([[5, 0]], "positive number"), ([[99999, 3]], "action id"),
                                          ([[5, float("nan")]], "positive number"),
                                          ([[5, True]], "positive number"),
                                          ([[5, 3], [5, 2]], "twice"), ([["5", 3]], "action id")])
def test_a_damaged_policy_label_is_named(tmp_path, fast, policy, says):
    out = tmp_path / "data"
    selfplay.run(small(fast, games=1), out, progress=False)
    line = json.loads((out / "positions.jsonl").read_text())
    line["positions"][1]["policy"] = policy
    (out / "positions.jsonl").write_text(json.dumps(line) + "\n")
    with pytest.raises(UsageError, match=r"line 1: positions\[1\]\.policy .*" + says):
        selfplay.read(out / "positions.jsonl", small(fast, games=1))


def test_a_first_version_folder_is_read_without_policies(tmp_path, fast):
    out = tmp_path / "data"
    selfplay.run(small(fast, games=1), out, progress=False)
    settings = json.loads((out / "selfplay.json").read_text())
    settings["format"] = "tigris-selfplay/1"
    (out / "selfplay.json").write_text(json.dumps(settings))
    line = json.loads((out / "positions.jsonl").read_text())
    for p in line["positions"]:
        del p["policy"]
    (out / "positions.jsonl").write_text(json.dumps(line) + "\n")
    old = selfplay.read_settings(out)
    assert [p.get("policy") for p in selfplay.read(out / "positions.jsonl", old)[0]["positions"]] == [None] * 5
    with pytest.raises(UsageError, match="no policy labels"):        # it is not continued
        selfplay.run(small(fast, games=2), out, progress=False)


def test_positions_are_spread_over_the_game():
    assert selfplay.pick(list(range(10)), 3) in ([0, 4, 9], [0, 5, 9])
    assert selfplay.pick(list(range(4)), 16) == [0, 1, 2, 3]
    assert selfplay.pick([7, 8, 9], 1) == [8]


def test_a_run_continues_where_it_stopped_and_grows(tmp_path, fast):
    out = tmp_path / "data"
    first = selfplay.run(small(fast, games=1), out, progress=False)
    settings = (out / "selfplay.json").read_bytes()
    lines = selfplay.run(small(fast, games=3), out, progress=False)
    assert [line["game"] for line in lines] == [0, 1, 2] and lines[0] == first[0]
    assert (out / "positions.jsonl").read_text().count("\n") == 3
    # The same games again: nothing is played, nothing is added.
    assert selfplay.run(small(fast, games=3), out, progress=False) == lines
    assert (out / "positions.jsonl").read_text().count("\n") == 3
    # The settings are written once: a run that grows writes over nothing it reads.
    assert (out / "selfplay.json").read_bytes() == settings
    assert "games" not in json.loads(settings)


def test_the_settings_file_keeps_its_form(tmp_path, fast):
    """selfplay.json is what it always was (a dict in this order, without games), whatever
    the settings are in memory."""
    s = small(fast, games=1)
    selfplay.run(s, tmp_path / "data", progress=False)
    assert (tmp_path / "data" / "selfplay.json").read_text() == json.dumps(
        {"format": "tigris-selfplay/3", "bot": s.bot, "kind": "ismcts", "params": s.params,
         "players": 2, "board": "classic", "variants": [], "seed": 0, "positions": 5,
         "label_bot": s.label_bot, "label_params": s.label_params, "label_iterations": 150,
         "targets": {"labels": "separate", "policy": "visits", "full_share": None}}, indent=2) + "\n"


def test_a_torn_last_line_is_cut_with_a_warning(tmp_path, fast):
    out = tmp_path / "data"
    lines = selfplay.run(small(fast), out, progress=False)
    data = out / "positions.jsonl"
    text = data.read_text()
    data.write_text(text[:len(text) - 40])             # the last game's line cut short
    with pytest.warns(UserWarning, match="torn"):
        again = selfplay.run(small(fast), out, progress=False)
    assert again[0] == lines[0] and len(again) == 2 and data.read_text().count("\n") == 2


@pytest.mark.parametrize("change, field", [({"players": 3}, "players"), ({"seed": 4}, "seed"),
                                           ({"positions": 6}, "positions"),
                                           ({"label_iterations": 151}, "label_iterations")])
def test_another_run_in_the_folder_is_refused_and_kept(tmp_path, fast, change, field):
    out = tmp_path / "data"
    selfplay.run(small(fast, games=1), out, progress=False)
    before = (out / "positions.jsonl").read_bytes()
    s = replace(small(fast, games=1), **change)
    with pytest.raises(UsageError, match=f"holds another run: its {field}"):
        selfplay.run(s, out, progress=False)
    assert (out / "positions.jsonl").read_bytes() == before


@pytest.mark.parametrize("edit, message", [
    (lambda line: line.update(game="1"), "game must be a game number"),
    (lambda line: line.update(deal_seed=5), "deal_seed 5 is not game 0's"),
    (lambda line: line.update(first=[1.0, 1.0]), "first must add up to 1"),
    (lambda line: line["positions"][0].update(search=[0.9, 0.9]), r"positions\[0\].search must"),
    (lambda line: line["positions"][0].update(move=10_000), r"positions\[0\].move must"),
    (lambda line: line["positions"][0].update(player=2), r"positions\[0\].player must"),
    (lambda line: line.pop("record"), "record must be a game record"),
    # first and scores are the record's result, and the record's result its moves'
    (lambda line: line.update(first=[0.0, 1.0] if line["first"] != [0.0, 1.0] else [1.0, 0.0]),
     r"first \[.*\] is not its record's result"),
    (lambda line: line.update(scores=[s + 1 for s in line["scores"]]), r"scores \[.*\] is not its record's result"),
    (lambda line: line["record"]["result"].update(final=[7, 7]), "record: result.final: the replay gives"),
    (lambda line: line["record"]["moves"].pop(), "record: result"),
    (lambda line: line["record"].update(players=3), "record: "),
    (lambda line: line.update(cpu_seconds=-1.0), "cpu_seconds must be a number of seconds from 0"),
    (lambda line: line.update(cpu_seconds="1"), "cpu_seconds must be a number of seconds from 0"),
    (lambda line: line["record"].update(cpu_seconds=-1.0), "record: cpu_seconds: expected a number"),
])
@pytest.mark.slow
def test_a_hand_edited_line_is_refused_naming_the_line_and_field(tmp_path, fast, edit, message):
    out = tmp_path / "data"
    selfplay.run(small(fast, games=1), out, progress=False)
    data = out / "positions.jsonl"
    line = json.loads(data.read_text())
    edit(line)
    data.write_text(json.dumps(line) + "\n")
    with pytest.raises(UsageError, match=f"positions.jsonl: line 1: {message}"):
        selfplay.run(small(fast, games=1), out, progress=False)


def test_positions_without_their_settings_are_refused(tmp_path, fast):
    out = tmp_path / "data"
    selfplay.run(small(fast, games=1), out, progress=False)
    before = (out / "positions.jsonl").read_bytes()
    (out / "selfplay.json").unlink()
    # new settings would misdescribe the labels already there
    with pytest.raises(UsageError, match="holds positions.jsonl without its selfplay.json"):
        selfplay.run(small(fast, games=2), out, progress=False)
    assert (out / "positions.jsonl").read_bytes() == before and not (out / "selfplay.json").exists()


def test_bad_settings_are_named():
    with pytest.raises(UsageError, match="games must be >= 1, not 0"):
        selfplay.settings(games=0)
    with pytest.raises(UsageError, match="players must be"):
        selfplay.settings(games=1, players=5)
    with pytest.raises(UsageError, match="variants: unknown"):
        selfplay.settings(games=1, variants=["chess"])
    with pytest.raises(UsageError, match="ismcts"):
        selfplay.settings(games=1, label_bot="greedy")


def test_a_label_sees_only_what_the_player_to_move_sees():
    """Two deals that differ only in player 1's hand (and so in the bag) look the same to
    player 0 at the start: player 0's label is the same in both."""
    g = tigris.Game(players=2, seed=8)
    rec = record.to_record(g)
    other = json.loads(json.dumps(rec))
    colours = ["red", "blue", "green", "black"]
    for d in other["deal"]:
        if d[0] == 1:
            d[1] = colours[(colours.index(d[1]) + 1) % 4]
    a, b = record.replay(rec), record.replay(other)
    assert a.state_bytes() != b.state_bytes() and a.current_player == 0
    params = selfplay.settings(games=1).label_params
    assert selfplay.label(a, params, 300, seed=5) == selfplay.label(b, params, 300, seed=5)


def test_the_command_writes_and_reports(tmp_path, fast, capsys):
    out = tmp_path / "data"
    argv = ["selfplay", "--out", str(out), "--games", "2", "--bot", fast, "--positions", "3",
            "--label-iterations", "100", "--jobs", "2"]
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert said.startswith("2 games, ") and "labelled positions" in said
    assert main(argv[:4] + ["3"] + argv[5:]) == 0                 # one game more
    assert capsys.readouterr().out.startswith("3 games, ")
    (tmp_path / "file").write_text("x")
    assert main(["selfplay", "--out", str(tmp_path / "file"), "--games", "1"]) == 1
    assert "is not a folder" in capsys.readouterr().err
    assert main(["selfplay", "--out", str(out), "--games", "0"]) == 2


def test_a_bot_file_in_the_folder_is_never_written_over(tmp_path, capsys):
    out = tmp_path / "data"
    out.mkdir()
    bot = out / "positions.jsonl"
    bot.write_text(FAST)
    assert main(["selfplay", "--out", str(out), "--games", "1", "--bot", str(bot)]) == 1
    assert "is the file this command reads" in capsys.readouterr().err
    assert bot.read_text() == FAST and not (out / "selfplay.json").exists()


@pytest.mark.slow
def test_a_dask_cluster_gives_the_same_lines(tmp_path, fast):
    distributed = pytest.importorskip("dask.distributed")
    local = selfplay.run(small(fast), tmp_path / "local", jobs=2, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        remote = selfplay.run(small(fast), tmp_path / "dask", backend="dask", scheduler=client,
                              progress=False)
    assert untimed(remote) == untimed(local)
    saved = selfplay.read(tmp_path / "dask" / "positions.jsonl", small(fast))    # in the order they finished
    assert sorted(saved, key=lambda line: line["game"]) == remote


def untimed(lines):
    """The lines without the thinking times and CPU times, which depend on the machine."""
    return [dict(line, cpu_seconds=None, record=dict(line["record"], seconds=None, cpu_seconds=None,
                                                     moves=[m["move"] for m in line["record"]["moves"]]))
            for line in lines]


def test_the_backend_is_checked_before_anything_is_written(tmp_path, fast, capsys):
    out = tmp_path / "data"
    assert main(["selfplay", "--out", str(out), "--games", "1", "--bot", fast,
                 "--scheduler", "tcp://127.0.0.1:1"]) == 1
    assert "give --backend dask with it" in capsys.readouterr().err
    assert main(["selfplay", "--out", str(out), "--games", "1", "--bot", fast, "--backend", "dask"]) == 1
    assert "needs --scheduler ADDRESS" in capsys.readouterr().err
    assert not out.exists()


def label_or_die(game_number, s):
    """``play_and_label``, but game 1 kills its worker process (SIGKILL), every time."""
    import os
    import signal

    if game_number == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return selfplay.play_and_label(game_number, s)


@pytest.mark.slow
def test_a_game_whose_worker_dies_twice_is_kept_as_failed_and_the_run_goes_on(tmp_path, fast,
                                                                              monkeypatch):
    monkeypatch.setattr(selfplay, "play_and_label", label_or_die)
    with pytest.warns(UserWarning, match=r"worker process died \(killed \(SIGKILL\).*game 1\b"):
        lines = selfplay.run(small(fast, games=3), tmp_path / "data", jobs=2, progress=False)
    assert [line["game"] for line in lines] == [0, 1, 2]
    assert lines[1]["error"].startswith("its worker process died twice (killed (SIGKILL)")
    assert all("error" not in lines[k] and lines[k]["positions"] for k in (0, 2))
    assert selfplay.read(tmp_path / "data" / "positions.jsonl", small(fast, games=3))


def test_a_run_whose_games_all_fail_ends_in_one_line_with_status_1(tmp_path, capsys, monkeypatch):
    from tigris.bots.simple import GreedyBot

    def broken(self, game):
        raise RuntimeError("the bot fell over")
    monkeypatch.setattr(GreedyBot, "choose", broken)
    out = tmp_path / "data"
    assert main(["selfplay", "--out", str(out), "--games", "2", "--bot", "greedy",
                 "--positions", "2", "--label-iterations", "50", "--jobs", "1"]) == 1
    printed = capsys.readouterr()
    assert printed.out.startswith("2 games, 0 labelled positions") and "2 games failed" in printed.out
    lines = [line for line in printed.err.replace("\r", "\n").splitlines()
             if line.strip() and "%|" not in line]
    assert len(lines) == 1 and lines[0].startswith("tigris selfplay: all 2 games failed (game 0: "
                                                   "RuntimeError: the bot fell over"), printed.err
    assert lines[0].endswith("run in a new folder")


# ---------------------------------------------------------------------------------------
# Labels from the search's own statistics; the game's own searches as labels (the cap)
# ---------------------------------------------------------------------------------------

def labels(lines):
    """What a run's lines say but for the time its moves took."""
    return [(line["positions"], [m["move"] for m in line["record"]["moves"]]) for line in lines]


def test_a_label_is_the_searchs_own_chances_never_the_hints(tmp_path, fast, monkeypatch):
    """A map fitted for what people read (chance.json, the hints' calibration) must not
    change the next network's data: the labels are the same with it broken."""
    from tigris import hints

    before = selfplay.run(small(fast, games=1), tmp_path / "a", progress=False)

    def broken(*args, **kw):
        raise AssertionError("labels read through the hints")
    monkeypatch.setattr(hints, "ranked", broken)
    monkeypatch.setattr("tigris.chance.calibrated", broken)
    after = selfplay.run(small(fast, games=1), tmp_path / "b", progress=False)
    assert labels(after) == labels(before)
    for p in after[0]["positions"]:
        assert sum(p["search"]) == pytest.approx(1, abs=1e-4)


def test_the_cap_labels_a_share_of_the_games_own_searches(tmp_path, fast):
    s = selfplay.settings(games=2, bot=fast, positions=1000, label_iterations=150, labels="cap",
                          full_share=0.5)
    lines = selfplay.run(s, tmp_path / "data", progress=False)
    for line in lines:
        with_choice = [n for n, g in record.steps(line["record"])
                       if not g.is_over and len(g.legal_actions()) >= 2]
        moves = [p["move"] for p in line["positions"]]
        assert moves == sorted(moves) and set(moves) <= set(with_choice)
        assert 0.3 * len(with_choice) < len(moves) < 0.7 * len(with_choice)   # about half
        for p in line["positions"]:
            assert sum(v for _, v in p["policy"]) > 60      # the full search's, not the bot's 60
    assert selfplay.read(tmp_path / "data" / "positions.jsonl", s) == lines
    again = selfplay.run(s, tmp_path / "again", progress=False)
    assert labels(again) == labels(lines)                    # the same seed, the same labels


@pytest.mark.parametrize("kind", ["completed-q", "shrunk-q"])
def test_a_completed_q_target_is_a_distribution_over_legal_moves(tmp_path, fast, kind):
    s = small(fast, games=1, policy_target=kind)
    lines = selfplay.run(s, tmp_path / "data", progress=False)
    legal_at = {n: set(g.legal_actions()) for n, g in record.steps(lines[0]["record"])}
    for p in lines[0]["positions"]:
        shares = [w for _, w in p["policy"]]
        assert {a for a, _ in p["policy"]} <= legal_at[p["move"]]
        assert sum(shares) == pytest.approx(1, abs=1e-4) and shares == sorted(shares, reverse=True)


def test_a_shrunk_q_target_trusts_a_move_s_value_by_its_visits():
    """A move of two visits and a lucky value tops the steep transform of every value as
    it is, and not once the values are shrunk toward the root's by their visits."""
    from types import SimpleNamespace

    from tigris.runs import targets
    from tigris.search import ChildStats

    children = [ChildStats(action=1, visits=300, value=0.60), ChildStats(action=2, visits=2, value=0.68),
                ChildStats(action=3, visits=300, value=0.50)]
    prior = {1: 0.3, 2: 0.3, 3: 0.35, 4: 0.05}
    steep = dict(targets.completed_q(children, prior, scale=targets.SHRUNK_SCALE))
    shrunk = dict(targets.policy_target("shrunk-q", SimpleNamespace(children=children), prior))
    assert max(steep, key=steep.get) == 2 and max(shrunk, key=shrunk.get) == 1
    mixed = (0.3 * 0.60 + 0.3 * 0.68 + 0.35 * 0.50) / 0.95        # the visited moves' by their priors
    k = targets.SHRINK
    q = {1: (300 * 0.60 + k * mixed) / (300 + k), 2: (2 * 0.68 + k * mixed) / (2 + k)}
    # the logits' difference: the priors' log ratio (0) and the transform of the q's
    steepness = (targets.C_VISIT + 300) * targets.SHRUNK_SCALE
    assert math.log(shrunk[1] / shrunk[2]) == pytest.approx(steepness * (q[1] - q[2]), rel=1e-3)


@pytest.mark.parametrize("kw, says", [
    ({"labels": "both"}, "labels must be one of separate, cap"),
    ({"policy_target": "gumbel"}, "policy target must be one of visits, completed-q"),
    ({"labels": "cap", "full_share": 0}, "full share must be above 0"),
    ({"full_share": 1.5}, "full share must be between 0 and 1"),
    ({"labels": "cap", "label_bot": "greedy"}, "leave --label-bot out"),
])
def test_bad_target_settings_are_named(fast, kw, says):
    with pytest.raises(UsageError, match=says):
        selfplay.settings(games=1, bot=fast, **kw)


def test_a_second_version_folder_is_read_but_not_continued(tmp_path, fast):
    out = tmp_path / "data"
    s = small(fast, games=1)
    selfplay.run(s, out, progress=False)
    old = dict(s.to_dict(), format="tigris-selfplay/2")
    old.pop("targets")
    (out / "selfplay.json").write_text(json.dumps({k: v for k, v in old.items() if k != "games"}))
    assert selfplay.read(out / "positions.jsonl", selfplay.read_settings(out))
    with pytest.raises(UsageError, match="hints' calibrated chances"):
        selfplay.run(s, out, progress=False)


@pytest.mark.parametrize("full_share", [0.0, 1.0])
def test_a_labelling_seat_plays_its_bots_random_moves(full_share):
    """A self-play bot with random_share plays its random moves at the labelling seat too:
    a full search still labels the position, and the move played is the random one."""
    from tigris import bots

    s = replace(selfplay.settings(games=1, labels="cap", full_share=0.5), positions=100,
                label_iterations=60, label_params={}, full_share=full_share)
    bot = bots.make("ismcts", iterations=20, seed=1, random_share=1.0)
    positions = []
    seat = selfplay._CapSeat(bot, s, 0, 0, positions)
    g = tigris.Game(players=2, seed=3)
    for _ in range(4):
        assert g.is_legal(action := seat.choose(g)) and bot.last_random
        g.apply(action)
    assert len(positions) == (4 if full_share else 0)
