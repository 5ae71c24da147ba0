"""tigris learn: generations of self-play, training and a gate, each logged; a run killed
at any stage continues to what an uninterrupted one makes; its folder held, its settings
kept, its old data deleted; on a dask cluster alike."""

import json
import os
import shutil
import signal

import numpy as np
import pytest

from tigris import bots, network
from tigris._plumbing import locks
from tigris.commands import main
from tigris.errors import UsageError

from processes import command, dask_cluster, interrupt, kill_when

pytest.importorskip("torch", reason="training needs the train extra (PyTorch)")

from tigris.runs import learn, suite  # noqa: E402

# A bot that searches with its network, quick enough for a few games a test.
FAST = 'kind = "ismcts"\niterations = 30\nrollout_depth = 2\nevaluator = "net"\npriors = "net"\n'
# A tiny loop: 3 games of 3 positions, 3 short epochs, a gate of at most 4 games at 10
# iterations a move (its games repeat), whose test accepts H1 unless the candidate loses
# both games of a deal (an easy gate: the promotions are tested too).
TINY = dict(games=3, positions=3, label_iterations=40, epochs=3, patience=3, gate_iterations=10,
            max_gate_games=4, sprt={"elo0": -1000.0, "elo1": 0.0}, window=2)
TINY_ARGS = ["--games", "3", "--positions", "3", "--label-iterations", "40", "--epochs", "3", "--patience", "3",
             "--gate-iterations", "10", "--max-gate-games", "4", "--sprt", "elo0=-1000", "elo1=0", "--window", "2"]
# What depends on the machine or on the folder, left out when two runs are compared.
TIMES = ("wall_seconds", "cpu_seconds", "train_seconds", "seconds_per_move")


def write_fast(folder):
    path = folder / "fast.toml"
    path.write_text(FAST)
    return str(path)


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    """A 2-generation loop, uninterrupted, in this process: (its folder, its lines)."""
    folder = tmp_path_factory.mktemp("learn")
    s = learn.settings(bot=write_fast(folder), **TINY)
    lines = learn.run(s, folder / "whole", generations=2, jobs=1, progress=False)
    return folder / "whole", lines


def comparable(lines, out):
    """A log's lines without their times, the folder's path in the commands as OUT."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in TIMES}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value.replace(str(out), "OUT") if isinstance(value, str) else value
    return strip(lines)


def log_of(out):
    return [json.loads(line) for line in (out / "generations.jsonl").read_text().splitlines()]


def same_networks(a, b, generations=(1, 2)):
    for k in generations:
        x, y = (network.load(out / f"gen-{k}" / "network.npz").named_arrays for out in (a, b))
        for name in x:
            assert np.abs(x[name] - y[name]).max() <= 1e-7, (k, name)


@pytest.mark.slow
def test_the_log_says_what_each_stage_did(loop):
    out, lines = loop
    assert lines == log_of(out) and [line["generation"] for line in lines] == [1, 2]
    for k, line in enumerate(lines, 1):
        sp, tr, gate = line["selfplay"], line["train"], line["gate"]["2"]
        assert line["from"] == (lines[k - 2]["current"] if k > 1 else 0)
        assert sp["command"].startswith(f"tigris selfplay --out gen-{k}/selfplay --games 3 --players 2 "
                                        f"--bot gen-{line['from']}/bot.toml")
        assert sp["games"] + sp["failed"] == 3 and 0 < sp["positions"] <= 9
        assert tr["command"].startswith(f"tigris train {' '.join(tr['folders'])} --out gen-{k}/train ")
        assert f"--init gen-{line['from']}/network.npz --freeze-value --epochs 3 --patience 3" in tr["command"]
        assert 1 <= tr["best_epoch"] <= tr["epochs"] <= 3 and tr["positions"] > tr["held_out_positions"] > 0
        assert all(tr[key] > 0 for key in ("held_out_loss", "held_out_chance", "held_out_policy"))
        assert 0 <= tr["held_out_top_move"] <= 1 and set(tr["calibration_error"]) == {"2"}
        right, positions, share = suite.policy_figures(str(out / f"gen-{k}" / "network.npz"), (2,))
        assert line["suite"] == {"policy_right": right, "positions": positions, "policy_share": round(share, 2)}
        assert positions == suite.PER_COUNT and 0 <= share <= 100
        assert gate["command"].startswith(f"tigris match gen-{k}/gate.toml gen-{line['from']}/gate.toml "
                                          "--sprt elo0=-1000 elo1=0 alpha=0.05 beta=0.05 --max-games 4 --players 2")
        assert gate["wins"] + gate["draws"] + gate["losses"] == gate["games"] <= 4
        assert gate["score"] == pytest.approx((gate["wins"] + gate["draws"] / 2) / gate["games"], abs=1e-4)
        assert gate["decision"] in ("H1", "H0", None) and gate["llr"] is not None and "elo" in gate
        assert "elo_ci" in gate and set(gate["seconds_per_move"]) == {"candidate", "current"}
        assert line["promoted"] == (gate["decision"] == "H1")
        assert line["current"] == (k if line["promoted"] else line["from"])
        assert len({sp["seed"], tr["seed"], gate["seed"]}) == 3
        for entry in (sp, tr, gate):
            assert entry["status"] == "done" and entry["cpu_seconds"] > 0 and entry["wall_seconds"] > 0
        for entry in (sp, gate):         # its games ran here, one at a time: counted once
            assert entry["cpu_seconds"] <= 1.2 * entry["wall_seconds"] + 0.1, entry
        assert line["cpu_seconds"] == pytest.approx(sp["cpu_seconds"] + tr["cpu_seconds"] + gate["cpu_seconds"],
                                                    abs=0.2)
    assert lines[0]["selfplay"]["seed"] != lines[1]["selfplay"]["seed"]
    assert str(out) not in (out / "generations.jsonl").read_text()     # its paths are the folder's own


def test_report_reads_a_real_loop(loop, capsys):
    out, lines = loop
    assert main(["learn", str(out), "--report"]) == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| ")]
    assert len(rows) == 1 + len(lines)
    for row, line in zip(rows[1:], lines):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[0] == str(line["generation"]) and cells[8] == "2"
        right, positions = line["suite"]["policy_right"], suite.PER_COUNT * len(line["gate"])
        assert line["suite"]["positions"] == positions
        share = line["suite"]["policy_share"]
        assert cells[7] == f"{right / positions:.1%} ({right} of {positions}); {share:.1f}% on the best"
        assert cells[-1] == ("yes" if line["promoted"] else "no")


@pytest.mark.slow
def test_each_generation_has_its_bots_and_the_current_one_is_named(loop):
    out, lines = loop
    for k in (0, 1, 2):
        play = (out / f"gen-{k}" / "bot.toml").read_text()
        gate = (out / f"gen-{k}" / "gate.toml").read_text()
        assert f'network = "{out}/gen-{k}/network.npz"' in play and "iterations = 30" in play
        assert f'network = "{out}/gen-{k}/network.npz"' in gate and "iterations = 10" in gate
        for name in ("bot.toml", "gate.toml"):                                 # they load
            assert bots.configuration(out / f"gen-{k}" / name).params["network"] == f"{out}/gen-{k}/network.npz"
    current = lines[-1]["current"]
    assert (out / "current.toml").read_text().endswith((out / f"gen-{current}" / "bot.toml").read_text())
    assert (out / "gen-0" / "network.npz").read_bytes() == network.path_of("", 2).read_bytes()


@pytest.mark.slow
def test_the_window_keeps_only_the_data_the_next_generation_trains_on(loop):
    out, lines = loop
    assert lines[1]["train"]["folders"] == ["gen-1/selfplay", "gen-2/selfplay"]     # a window of 2
    assert not (out / "gen-1" / "selfplay").exists()       # generation 3 trains on gens 2 and 3
    assert (out / "gen-2" / "selfplay" / "positions.jsonl").exists()
    assert (out / "gen-1" / "network.npz").exists() and (out / "gen-1" / "gate-2" / "games.jsonl").exists()


@pytest.mark.slow
def test_a_stage_run_by_hand_from_its_logged_command_does_what_the_loop_did(loop, tmp_path):
    """The log's commands, run in the loop's folder, are the stages: gen 2's self-play and
    gate, again into new folders."""
    out, lines = loop
    for stage, folder, data in (("selfplay", "selfplay", "positions.jsonl"), ("gate", "gate-2", "games.jsonl")):
        entry = lines[1][stage] if stage == "selfplay" else lines[1]["gate"]["2"]
        words = entry["command"].split()
        at = words.index("--out")
        words[at + 1] = str(tmp_path / folder)
        done = command(["-m", "tigris", *words[1:]], cwd=out)
        assert done.returncode == 0, done.stderr[-2000:]
        ours, theirs = ([json.loads(line) for line in (where / data).read_text().splitlines()]
                        for where in (out / "gen-2" / folder, tmp_path / folder))
        assert untimed(ours) == untimed(theirs) and len(ours) >= 2, stage


def untimed(lines):
    """Each game's number, moves and labels (a self-play line's), in the order of the numbers."""
    return sorted((line["game"], [m["move"] for m in line.get("record", line)["moves"]], line.get("positions"))
                  for line in lines)


@pytest.mark.slow
def test_a_run_killed_in_every_stage_ends_as_the_uninterrupted_one(loop, tmp_path):
    """SIGKILL mid-self-play, then (the same command again) mid-training, then mid-gate,
    and the same command to the end of the generation: the uninterrupted loop's first line
    but for the times, and its network."""
    whole, lines = loop
    out = tmp_path / "killed"
    args = ["-u", "-m", "tigris", "learn", str(out), "--bot", write_fast(tmp_path), "--generations", "1",
            *TINY_ARGS, "--jobs", "1"]
    gen1 = out / "gen-1"

    def lines_in(path):
        return path.read_bytes().count(b"\n") if path.exists() else 0

    for moment, kept in ((lambda: lines_in(gen1 / "selfplay" / "positions.jsonl") >= 1,
                          lambda: 1 <= lines_in(gen1 / "selfplay" / "positions.jsonl") < 3),
                         (lambda: lines_in(gen1 / "train" / "log.jsonl") >= 1,
                          lambda: 1 <= lines_in(gen1 / "train" / "log.jsonl") < 3
                          and not (gen1 / "network.npz").exists()),
                         (lambda: lines_in(gen1 / "gate-2" / "games.jsonl") >= 1,
                          lambda: not (gen1 / "gate-2" / "summary.json").exists())):
        code, left = kill_when(args, moment)
        assert code == -signal.SIGKILL and left == []
        assert kept() and not (out / "generations.jsonl").exists()       # killed mid-stage
    assert main(args[3:]) == 0                       # the same command, in this process
    assert comparable(log_of(out), out) == comparable(lines[:1], whole)
    same_networks(out, whole, generations=(1,))


@pytest.mark.slow
def test_a_loop_on_a_dask_cluster_is_the_loop_here(loop, tmp_path):
    whole, lines = loop
    s = learn.settings(bot=write_fast(tmp_path), **TINY)
    with dask_cluster() as (address, _):
        remote = learn.run(s, tmp_path / "dask", generations=1, jobs=1, backend="dask", scheduler=address,
                           progress=False)
    assert comparable(remote, tmp_path / "dask") == comparable(lines[:1], whole)
    same_networks(tmp_path / "dask", whole, generations=(1,))


@pytest.mark.slow
def test_sigterm_stops_the_loop_in_one_line_and_the_same_command_goes_on(tmp_path):
    out = tmp_path / "loop"
    args = ["-u", "-m", "tigris", "learn", str(out), "--bot", write_fast(tmp_path), "--generations", "1",
            *TINY_ARGS, "--jobs", "1"]
    code, _, err, left = interrupt(args, "learn: generation 1: self-play", stream="stderr",
                                   signum=signal.SIGTERM, delay=0.3)
    assert code == 128 + signal.SIGTERM and left == []
    said = [line for line in err.replace("\r", "\n").splitlines()
            if line.strip() and "%|" not in line and not line.startswith("learn: ")]
    assert said == [f"tigris learn: interrupted in generation 1's self-play: its finished games are in "
                    f"{out}/gen-1/selfplay/positions.jsonl; {out}/generations.jsonl holds 0 finished "
                    f"generations; run the same command again to continue"], err[-2000:]
    assert main(args[3:]) == 0                       # the same command, in this process
    assert [line["generation"] for line in log_of(out)] == [1]


def test_a_second_run_on_the_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "loop"
    with locks.hold(out):
        assert main(["learn", str(out), "--bot", write_fast(tmp_path), *TINY_ARGS]) == 1
    assert f"tigris learn: {out} is in use by another run (pid " in capsys.readouterr().err
    assert not (out / "learn.json").exists()


@pytest.mark.slow
@pytest.mark.parametrize("change, says", [
    (["--games", "4"], "its games is 3, not 4; give the same --games"),
    (["--window", "3"], "its window is 2, not 3; give the same --window"),
    (["--seed", "1"], "its seed is 0, not 1; give the same --seed"),
    (["--seconds", "0.1"], "its gate is"),
    (["--sprt", "elo0=0", "elo1=30"], "its sprt is"),
    # a long path is quoted cut in the middle: its start and its file name stay
    (["--start", str(network.path_of("", 3))], f"its start is '{network.default(2)}', not '/"),
])
def test_other_settings_are_refused_naming_the_field(loop, tmp_path, capsys, change, says):
    out, _ = loop
    before = (out / "generations.jsonl").read_bytes()
    args = ["learn", str(out), "--bot", write_fast(tmp_path), *TINY_ARGS, *change]
    if change[0] == "--seconds":
        args.remove("--gate-iterations")
        args.remove("10")
    assert main(args) == 1
    err = capsys.readouterr().err
    assert says in err and "\n" not in err.strip(), err
    if change[0] == "--start":
        assert f"{network.path_of('', 3).name}'" in err, err
    assert (out / "generations.jsonl").read_bytes() == before


@pytest.mark.slow
def test_a_bot_with_other_knobs_is_another_loop(loop, tmp_path, capsys):
    out, _ = loop
    bot = tmp_path / "fast.toml"
    bot.write_text(FAST.replace("iterations = 30", "iterations = 31"))
    assert main(["learn", str(out), "--bot", str(bot), *TINY_ARGS]) == 1
    assert f"{out} holds another loop: its params is" in capsys.readouterr().err


@pytest.mark.slow
def test_a_damaged_log_line_is_named(loop, tmp_path, capsys):
    out = tmp_path / "copy"
    shutil.copytree(loop[0], out)
    lines = (out / "generations.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace('"promoted": ', '"promoted": "yes", "was": ')
    (out / "generations.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["learn", str(out), "--bot", write_fast(tmp_path), *TINY_ARGS]) == 1
    assert "generations.jsonl: line 2: promoted must be true or false, not 'yes'" in capsys.readouterr().err


@pytest.mark.parametrize("suite_figure", [[3, 36], {"policy_right": 37, "positions": 36},
                                          {"policy_right": 3.0, "positions": 36}, {"positions": 36},
                                          {"policy_right": 3, "positions": 36, "policy_share": 101.0},
                                          {"policy_right": 3, "positions": 36, "policy_share": "39%"}])
def test_a_log_line_s_suite_figure_is_checked(tmp_path, suite_figure):
    line = {"generation": 1, "from": 0, "promoted": False, "current": 0, "selfplay": {}, "train": {},
            "gate": {"2": {}}}
    (tmp_path / "generations.jsonl").write_text(json.dumps(line) + "\n")
    assert learn.read_generations(tmp_path) == [line]               # a line from before the suite's figure
    for before_share in ({"policy_right": 3, "positions": 36},
                         {"policy_right": 3, "positions": 36, "policy_share": 41.5}):
        (tmp_path / "generations.jsonl").write_text(json.dumps(dict(line, suite=before_share)) + "\n")
        assert learn.read_generations(tmp_path)[0]["suite"] == before_share
    (tmp_path / "generations.jsonl").write_text(json.dumps(dict(line, suite=suite_figure)) + "\n")
    with pytest.raises(UsageError, match="generations.jsonl: line 1: suite must be"):
        learn.read_generations(tmp_path)


@pytest.mark.parametrize("name", ["learn.json", "generations.jsonl", "current.toml", "gen-0/bot.toml",
                                  "gen-1/clock.json"])
@pytest.mark.parametrize("kind", ["a link", "a pipe", "/dev/zero"])
def test_the_loops_files_are_never_read_or_written_through_a_link_or_a_pipe(tmp_path, capsys, name, kind):
    out = tmp_path / "loop"
    target = out / name
    target.parent.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    if kind == "a pipe":
        os.mkfifo(target)
    else:
        target.symlink_to(victim if kind == "a link" else "/dev/zero")
    if name.startswith("gen-"):                      # a loop of these settings, begun
        s = learn.settings(bot=write_fast(tmp_path), **TINY)
        (out / "learn.json").write_text(json.dumps(s))
    assert main(["learn", str(out), "--bot", write_fast(tmp_path), *TINY_ARGS, "--jobs", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    said = "is not a regular file (a pipe)" if kind == "a pipe" else "it is a symbolic link"
    assert len(err) == 1 and err[0].startswith(f"tigris learn: cannot write {target}") and said in err[0], err
    assert victim.read_text() == "precious\n" and (target.is_symlink() or kind == "a pipe")
    assert not (out / "gen-1" / "selfplay").exists()          # refused before the work


@pytest.mark.parametrize("args, says", [
    (["--players", "2", "3"], "--players must be 2 (the 2-player line) or 3 4"),
    (["--bot", "ismcts-heuristic"], "must be an ismcts configuration that searches with its network"),
    (["--start", "gen99"], "'gen99' is not a shipped network generation"),
    (["--sprt", "elo0=30", "elo1=0"], "--sprt: elo1 (0.0) must be above elo0 (30.0)"),
    (["--labels", "cap", "--full-share", "0"], "full share must be above 0"),
    (["--backend", "dask"], "the dask backend needs --scheduler ADDRESS"),
])
def test_bad_settings_are_one_line_and_write_nothing(tmp_path, capsys, args, says):
    out = tmp_path / "loop"
    assert main(["learn", str(out), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tigris learn: ") and says in err and err.count("\n") == 1, err
    assert not out.exists()


def test_a_self_play_whose_games_all_fail_stops_the_loop_in_one_line(tmp_path, capsys, monkeypatch):
    from tigris.bots.search import ISMCTSBot

    def broken(self, game, *args, **kwargs):
        raise RuntimeError("the bot fell over")
    monkeypatch.setattr(ISMCTSBot, "choose", broken)
    monkeypatch.setattr(ISMCTSBot, "root_statistics", broken)     # the labelled decisions' searches
    out = tmp_path / "loop"
    assert main(["learn", str(out), "--bot", write_fast(tmp_path), *TINY_ARGS, "--jobs", "1"]) == 1
    err = [line for line in capsys.readouterr().err.replace("\r", "\n").splitlines()
           if line.strip() and "%|" not in line and not line.startswith("learn: ")]
    assert len(err) == 1 and err[0].startswith("tigris learn: generation 1, self-play: all 3 games failed "
                                               "(game 0: RuntimeError: the bot fell over)"), err
    assert err[0].endswith(f"delete {out}/gen-1/selfplay and run the same command again")
    assert not (out / "generations.jsonl").exists()


@pytest.mark.slow
def test_a_gate_whose_games_all_fail_stops_the_loop_in_one_line(tmp_path, monkeypatch):
    from tigris.play import runner

    def broken(task, settings, spec):
        return runner.failed_game((None, (task, settings, spec), {}), "RuntimeError: the gate fell over")
    monkeypatch.setattr(runner, "play_game", broken)        # the gate's games; self-play's are its own
    s = learn.settings(bot=write_fast(tmp_path), **TINY)
    out = tmp_path / "loop"
    with pytest.raises(UsageError, match=r"^generation 1, gate at 2 players: all 4 games failed, nothing is "
                                         r"counted \(game 0: RuntimeError: the gate fell over\); "):
        learn.run(s, out, generations=1, jobs=1, progress=False)
    assert (out / "gen-1" / "network.npz").exists() and not (out / "generations.jsonl").exists()


@pytest.mark.slow
def test_the_three_and_four_player_line_gates_at_both_with_the_current_bot_in_the_field(tmp_path):
    s = learn.settings(players=(3, 4), bot=write_fast(tmp_path), **dict(TINY, games=2))
    line, = learn.run(s, tmp_path / "loop", generations=1, jobs=1, progress=False)
    out = tmp_path / "loop"
    assert "--players 4 " in line["selfplay"]["command"]             # self-play at 4 players
    assert (out / "gen-0" / "network.npz").read_bytes() == network.path_of("", 3).read_bytes()
    three, four = line["gate"]["3"], line["gate"]["4"]
    assert "--field gen-1/field-1.toml" in three["command"] and "first_elo" in three
    assert (out / "gen-1" / "field-1.toml").read_text() == (out / "gen-0" / "gate.toml").read_text()
    if three["decision"] == "H1":
        assert four["status"] == "done" and "--field gen-1/field-2.toml" in four["command"]
    else:
        assert four == {"status": "skipped", "why": "the gate at 3 players did not accept H1: no promotion"}
    assert line["promoted"] == (three["decision"] == four.get("decision") == "H1")
    assert line["suite"]["positions"] == 2 * suite.PER_COUNT          # its 3- and 4-player positions


def test_the_seeds_of_the_stages_never_meet():
    seeds = {learn.stage_seed(seed, k, stage) for seed in (0, 1, learn.MAX_SEED) for k in (1, 2, 99_999)
             for stage in learn.STAGES}
    assert len(seeds) == 27 and max(seeds) <= 10**12                 # a tournament's seed
    with pytest.raises(UsageError, match="seed must be"):
        learn.settings(seed=learn.MAX_SEED + 1)


def test_a_generation_labels_every_decision_by_its_own_search_s_shrunk_q_values_by_default(tmp_path):
    s = learn.settings()
    assert (s["labels"], s["policy_target"], s["full_share"], s["positions"]) == ("cap", "shrunk-q", 1.0, 1000)
    assert s["label_iterations"] == 1000 == bots.configuration("ismcts-fast").params["iterations"]
    own = tmp_path / "own.toml"                  # the label searches follow the bot's own budget
    own.write_text('extends = "ismcts-fast"\niterations = 700\n')
    assert learn.settings(bot=str(own))["label_iterations"] == 700
    timed = tmp_path / "timed.toml"
    timed.write_text('extends = "ismcts-fast"\nseconds = 0.1\n')
    with pytest.raises(UsageError, match="plays by time\\): give --label-iterations"):
        learn.settings(bot=str(timed))
    assert learn.settings(bot=str(timed), label_iterations=900)["label_iterations"] == 900
    old = learn.settings(labels="separate", policy_target="visits", positions=32, label_iterations=5000)
    assert (old["labels"], old["full_share"], old["label_iterations"]) == ("separate", None, 5000)


@pytest.mark.slow
def test_a_gate_s_most_games_may_change_for_the_gates_not_yet_begun(tmp_path, capsys):
    out, bot = tmp_path / "loop", write_fast(tmp_path)
    assert main(["learn", str(out), "--bot", bot, *TINY_ARGS, "--generations", "1", "--jobs", "1"]) == 0
    log = out / "generations.jsonl"
    first = json.loads(log.read_text())
    more = [*TINY_ARGS[:TINY_ARGS.index("--max-gate-games")], "--max-gate-games", "6",
            *TINY_ARGS[TINY_ARGS.index("--max-gate-games") + 2:]]
    log.write_text("")                     # generation 1 again: its gate begun with at most 4 games
    capsys.readouterr()
    assert main(["learn", str(out), "--bot", bot, *more, "--generations", "1", "--jobs", "1"]) == 0
    assert "learn: max gate games 4 -> 6, for the gates not yet begun" in capsys.readouterr().err
    again = json.loads(log.read_text())
    assert comparable(again, out) == comparable(first, out)      # its gate kept its 4, and its games
    assert "--max-games 4 " in again["gate"]["2"]["command"]
    assert json.loads((out / "learn.json").read_text())["max_gate_games"] == 6
    log.write_text("")                     # and once more, its gate not begun: at most 6 games
    shutil.rmtree(out / "gen-1" / "gate-2")
    assert main(["learn", str(out), "--bot", bot, *more, "--generations", "1", "--jobs", "1"]) == 0
    assert "max gate games" not in capsys.readouterr().err                  # nothing changed now
    gate = json.loads(log.read_text())["gate"]["2"]
    assert "--max-games 6 " in gate["command"] and gate["games"] <= 6


@pytest.mark.slow
def test_whether_the_value_trains_may_change_for_the_trainings_not_yet_begun(tmp_path, capsys):
    out, bot = tmp_path / "loop", write_fast(tmp_path)
    assert main(["learn", str(out), "--bot", bot, *TINY_ARGS, "--generations", "1", "--jobs", "1"]) == 0
    first = network.load(out / "gen-1" / "network.npz").named_arrays
    log, frozen = out / "generations.jsonl", log_of(out)[0]["train"]
    assert "--freeze-value" in frozen["command"]
    log.write_text("")                     # generation 1 again, its training under way (its checkpoint)
    (out / "gen-1" / "network.npz").unlink()
    assert main(["learn", str(out), "--bot", bot, *TINY_ARGS, "--train-value", "--generations", "1",
                 "--jobs", "1"]) == 0
    assert "learn: train value False -> True, for the trainings not yet begun" in capsys.readouterr().err
    assert json.loads((out / "learn.json").read_text())["train_value"] is True
    kept = log_of(out)[0]["train"]
    assert comparable(kept, out) == comparable(frozen, out)        # it kept its value frozen
    log.write_text("")                     # and once more, its training not begun: the value trains
    (out / "gen-1" / "network.npz").unlink()
    shutil.rmtree(out / "gen-1" / "train")
    shutil.rmtree(out / "gen-1" / "gate-2")
    assert main(["learn", str(out), "--bot", bot, *TINY_ARGS, "--generations", "1", "--jobs", "1"]) == 0
    assert "train value" not in capsys.readouterr().err           # the folder's own now: nothing changed
    trained = log_of(out)[0]["train"]
    assert "--freeze-value" not in trained["command"]
    now = network.load(out / "gen-1" / "network.npz").named_arrays
    assert any(np.abs(now[name] - first[name]).max() > 0 for name in network.ARRAYS)     # the value's


@pytest.mark.slow
def test_the_policy_target_may_change_for_the_self_plays_not_yet_begun(tmp_path, capsys):
    out, bot = tmp_path / "loop", write_fast(tmp_path)
    assert main(["learn", str(out), "--bot", bot, *TINY_ARGS, "--policy-target", "completed-q",
                 "--generations", "1", "--jobs", "1"]) == 0
    played = log_of(out)[0]["selfplay"]
    assert "--policy-target completed-q" in played["command"]
    # generation 1 again, its self-play under way: one game of three played, nothing after it
    data = out / "gen-1" / "selfplay" / "positions.jsonl"
    data.write_text(data.read_text().splitlines(keepends=True)[0])
    for name in ("stages.json", "clock.json", "network.npz"):
        (out / "gen-1" / name).unlink()
    for name in ("train", "gate-2"):
        shutil.rmtree(out / "gen-1" / name)
    (out / "generations.jsonl").write_text("")
    assert main(["learn", str(out), "--bot", bot, *TINY_ARGS, "--policy-target", "shrunk-q",
                 "--generations", "2", "--jobs", "1"]) == 0
    assert ("learn: policy target completed-q -> shrunk-q, for the self-plays not yet begun"
            in capsys.readouterr().err)
    assert json.loads((out / "learn.json").read_text())["policy_target"] == "shrunk-q"
    first, second = log_of(out)
    assert comparable(first["selfplay"], out) == comparable(played, out)      # it kept its target
    assert "--policy-target shrunk-q" in second["selfplay"]["command"]
    assert json.loads((out / "gen-2" / "selfplay" / "selfplay.json").read_text())["targets"]["policy"] == "shrunk-q"


@pytest.mark.slow
def test_a_folder_kept_without_its_self_play_data_goes_on_without_playing_it_again(tmp_path, capsys):
    """The bulk of a folder, its self-play data and training folders, deleted (a copy
    kept without them): the stages that finished are not run again, the next generation
    trains on the data that is there and says so."""
    s = learn.settings(bot=write_fast(tmp_path), **TINY)
    out = tmp_path / "loop"
    first, = learn.run(s, out, generations=1, jobs=1, progress=False)
    for bulk in ("selfplay", "train"):
        shutil.rmtree(out / "gen-1" / bulk)
    (out / "generations.jsonl").write_text("")        # its line lost too: made from what is kept
    again, second = learn.run(s, out, generations=2, jobs=1, progress=True)
    assert comparable(again, out) == comparable(first, out)
    assert not (out / "gen-1" / "selfplay").exists()  # not played again
    assert second["train"]["folders"] == ["gen-2/selfplay"]
    err = capsys.readouterr().err
    assert "learn: generation 1: self-play done before: 3 games, " in err
    assert "learn: generation 2: training without the self-play data of generation 1, which is not in" in err


def test_a_folder_s_settings_make_its_loop_again(loop, tmp_path):
    out, _ = loop
    kw = learn.folder_settings(out)
    assert kw["bot"] == "fast" and kw["gate_iterations"] == 10 and kw["seed"] == 0
    kw["bot"] = write_fast(tmp_path)                 # a bot file of one's own is given again
    assert learn.settings(**kw) == json.loads((out / "learn.json").read_text())
    assert learn.folder_settings(tmp_path / "none") == {}


@pytest.mark.parametrize("text, says", [('{"format": "tigris-learn/1"}', "learn.json: players: missing"),
                                        ("[]", "learn.json: not the settings of a tigris learn folder"),
                                        (None, "learn.json: bot must be a bot's name, not 7")])
def test_a_folder_s_settings_that_are_not_a_loop_s_are_refused_naming_the_field(tmp_path, capsys, text, says):
    if text is None:                               # a loop's settings, its bot's name damaged
        text = json.dumps(dict(learn.settings(bot="ismcts-fast"), bot=7))
    (tmp_path / "learn.json").write_text(text)
    with pytest.raises(UsageError, match=says):
        learn.folder_settings(tmp_path)
    assert main(["learn", str(tmp_path), "--generations", "1"]) == 1
    assert says in capsys.readouterr().err


def test_a_loop_of_a_bot_file_must_be_given_it_again(loop, tmp_path, capsys):
    out, _ = loop
    shutil.copyfile(out / "learn.json", tmp_path / "learn.json")
    assert main(["learn", str(tmp_path), "--generations", "1"]) == 1
    err = capsys.readouterr().err
    assert "its loop plays with 'fast''s knobs, which is not a shipped bot nor one in ./bots: give --bot" in err


# What of a loop's folder lasts (docs/FORMATS.md, "Learning folders"): kept in a
# repository, it goes on anywhere.
RECORD = ("learn.json", "generations.jsonl", "gen-*/stages.json", "gen-*/clock.json")


@pytest.mark.slow
def test_a_folder_copied_elsewhere_as_its_record_goes_on_with_its_own_settings(loop, tmp_path, capsys):
    """The loop's record, its current network and the window's self-play data, copied
    to another folder without its bot files, training folders and gates, the first
    folder gone: the same command without the options that made the loop (its folder's
    own) makes there the next generation that the loop made in its own folder, and the
    record names no path of either folder."""
    whole, lines = loop
    first, moved, bot = tmp_path / "first", tmp_path / "moved", write_fast(tmp_path)
    assert main(["learn", str(first), "--bot", bot, *TINY_ARGS, "--generations", "1", "--jobs", "1"]) == 0
    current = log_of(first)[-1]["current"]
    kept = [p for pattern in RECORD for p in first.glob(pattern)]
    kept += [first / "gen-1" / "selfplay"] + ([first / f"gen-{current}" / "network.npz"] if current else [])
    for path in kept:
        to = moved / path.relative_to(first)
        to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(path, to) if path.is_dir() else shutil.copyfile(path, to)
    shutil.rmtree(first)
    assert main(["learn", str(moved), "--bot", bot, "--generations", "1", "--jobs", "1"]) == 0
    assert comparable(log_of(moved), moved) == comparable(lines, whole)
    same_networks(moved, whole, generations=(2,))
    for path in (p for pattern in RECORD for p in moved.glob(pattern)):
        assert str(first) not in path.read_text() and str(moved) not in path.read_text(), path
    assert (moved / "current.toml").read_text().endswith(
        (moved / f"gen-{lines[-1]['current']}" / "bot.toml").read_text())
    assert str(moved / f"gen-{lines[-1]['current']}" / "network.npz") in (moved / "current.toml").read_text()
    capsys.readouterr()
    assert main(["learn", str(moved), "--bot", bot, "--seed", "6", "--generations", "1"]) == 1   # another loop
    assert "holds another loop: its seed is 0, not 6" in capsys.readouterr().err


@pytest.mark.slow
def test_a_generation_killed_in_its_gate_goes_on_elsewhere_from_its_record_and_candidate(loop, tmp_path):
    """A generation killed mid-gate, and of its folder only what a repository keeps (the
    record and the candidate network, not its self-play data, training or gate folders)
    copied to another folder, the first gone (a new machine): there the same command
    plays the gate again and nothing before it, and the generation ends as the
    uninterrupted loop's first."""
    whole, lines = loop
    first, moved, bot = tmp_path / "first", tmp_path / "moved", write_fast(tmp_path)
    args = ["-u", "-m", "tigris", "learn", str(first), "--bot", bot, "--generations", "1",
            *TINY_ARGS, "--jobs", "1"]
    games = first / "gen-1" / "gate-2" / "games.jsonl"
    code, left = kill_when(args, lambda: games.exists() and games.read_bytes().count(b"\n") >= 1)
    assert code == -signal.SIGKILL and left == []
    kept = [p for pattern in RECORD for p in first.glob(pattern)] + [first / "gen-1" / "network.npz"]
    assert sorted(json.loads((first / "gen-1" / "stages.json").read_text())) == ["selfplay", "train"]
    for path in kept:
        to = moved / path.relative_to(first)
        to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, to)
    shutil.rmtree(first)
    assert main(["learn", str(moved), "--bot", bot, "--generations", "1", "--jobs", "1"]) == 0
    assert comparable(log_of(moved), moved) == comparable(lines[:1], whole)
    assert not (moved / "gen-1" / "selfplay").exists() and not (moved / "gen-1" / "train").exists()
    same_networks(moved, whole, generations=(1,))


@pytest.mark.slow
def test_self_play_is_played_again_when_its_data_is_gone_before_training(tmp_path):
    s = learn.settings(bot=write_fast(tmp_path), **TINY)
    out = tmp_path / "loop"
    first = learn.run(s, out, generations=1, jobs=1, progress=False)
    for gone in ("selfplay", "train", "network.npz", "gate-2"):    # trained no more
        path = out / "gen-1" / gone
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    (out / "generations.jsonl").write_text("")
    assert comparable(learn.run(s, out, generations=1, jobs=1, progress=False), out) == comparable(first, out)
    assert (out / "gen-1" / "selfplay" / "positions.jsonl").exists()       # played again


@pytest.mark.parametrize("text", ["[]", '{"selfplay": 3}', '{"lunch": {"status": "done"}}',
                                  '{"train": {"status": "done", "wall_seconds": -1, "cpu_seconds": 0}}'])
def test_a_stages_file_that_is_not_one_is_refused_naming_it(tmp_path, text):
    path = tmp_path / "stages.json"
    path.write_text(text)
    with pytest.raises(UsageError, match="stages.json: not the finished stages of a generation"):
        learn._read_stages(path)
