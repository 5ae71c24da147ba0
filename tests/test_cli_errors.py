"""The command line on bad input: one line ``tigris COMMAND: message`` on stderr naming the
problem, a non-zero exit status, and never a traceback.

The cases run through ``main()`` in this process (an exception escaping it fails the
test), and the ones the hardening issue lists also as real ``tigris`` processes, where a
traceback, a raw warning or a hang would show."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tigris
from tigris import bots
from tigris._plumbing.release import VERSION
from tigris.commands import main
from tigris.record import to_record

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)                   # bot names are found in ./bots


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Good and bad input files, by name."""
    d = tmp_path_factory.mktemp("inputs")
    g = tigris.Game(players=2, seed=3)
    a, b = bots.make("random", seed=1), bots.make("random", seed=2)
    while not g.is_over:
        g.apply((a if g.current_player == 0 else b).choose(g))
    rec = to_record(g, bots=["random", "random"])
    paths = {"dir": d}

    def write(name, text):
        paths[name] = d / name
        (d / name).write_text(text) if isinstance(text, str) else (d / name).write_bytes(text)

    write("record.json", json.dumps(rec))
    write("position.json", json.dumps(tigris.Game(players=2, seed=1).to_position()))
    write("binary.json", b"\xff\xfe{\x00}")
    write("deal-null.json", json.dumps(dict(rec, deal=None)))
    write("huge-players.json", json.dumps(dict(rec, players=10**30)))
    write("infinite-seed.json", json.dumps(dict(rec, seed=0)).replace('"seed": 0', '"seed": Infinity'))
    write("array.json", "[1, 2]")
    write("string.json", '"tigris"')
    write("empty-record.json", '{"format": "tigris-game/1"}')
    write("newer.json", json.dumps(dict(rec, format="tigris-game/2")))
    write("newer-position.json", json.dumps(dict(tigris.Game(players=2, seed=1).to_position(),
                                                 format="tigris-position/2")))
    write("moves-not-list.json", json.dumps(dict(rec, moves=7)))
    write("bad-move.json", json.dumps(dict(rec, moves=[{"player": 0, "move": "fly away"}])))
    write("deep.json", "[" * 100_000 + "]" * 100_000)
    write("typo.toml", 'kind = "ismcts"\niteratons = 50\n')
    write("binary.toml", b"\xff\xfe")
    write("bad-spec.toml", 'bots = ["random", "greedy"]\nrounds = 3\n')
    write("not-toml.toml", "bots = [\n")
    write("games.jsonl", json.dumps(rec) + "\n")
    (d / "tune-run").mkdir()
    (d / "tune-run" / "tune.json").write_text("{")
    paths["tune-run"] = d / "tune-run"
    # 100,000 nested brackets in every kind of file read back: one line, never a RecursionError
    deep = "[" * 100_000 + "]" * 100_000
    write("deep.toml", f'kind = "random"\nseed = {deep}\n')
    write("deep-spec.toml", f'bots = ["random", "greedy"]\nname = {deep}\n')
    for name, file in (("deep-selfplay", "selfplay.json"), ("deep-results", "tournament.json"),
                       ("deep-tune", "tune.json")):
        (d / name).mkdir()
        (d / name / file).write_text(deep)
        paths[name] = d / name
    write("deep-net.npz", _network_with_meta(deep.encode()))
    write("deep-net.toml", f'kind = "ismcts"\niterations = 10\nevaluator = "net"\n'
                           f'network = "{d / "deep-net.npz"}"\n')
    paths["results"] = d / "results"
    assert main(["tournament", "--bots", "random", "greedy", "--games", "2", "--jobs", "1",
                 "--out", str(paths["results"])]) == 0
    return paths


def _network_with_meta(meta):
    """A weights file (tigris-network/1) of small valid arrays whose meta is `meta` (bytes)."""
    import io

    import numpy as np

    from tigris import network

    h1, h2 = 4, 4
    shapes = {"w_sparse": (network.N_SPARSE, h1), "w_dense": (network.N_DENSE, h1), "b1": (h1,),
              "w2": (h2, h1), "b2": (h2,), "w3": (network.N_OUTPUTS, h2), "b3": (network.N_OUTPUTS,)}
    arrays = {k: np.zeros(v, dtype=np.float32) for k, v in shapes.items()}
    out = io.BytesIO()
    np.savez(out, meta=np.frombuffer(meta, dtype=np.uint8), **arrays)
    return out.getvalue()


def one_line(err, prog):
    """The single line of an error on stderr (the progress bar of a run aside)."""
    lines = [line for line in err.replace("\r", "\n").splitlines()
             if line.strip() and "%|" not in line]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prog}: "), lines[0]
    assert f"{prog}: {prog.split()[-1]}:" not in lines[0]           # no repeated prefix
    return lines[0]


# (argv with {name} for a file of the fixture, a piece of the expected line)
CASES = [
    (["match", "ismcts-fast", "grredy"], "unknown bot 'grredy'"),
    (["match", "{typo.toml}", "random"], "unknown key 'iteratons'"),
    (["match", "{binary.toml}", "random"], "not UTF-8"),
    (["match", "greedy", "random", "--sprt", "elo0=nan", "elo1=5"], "elo0 must be a number"),
    (["match", "greedy", "random", "--sprt", "elo0=0", "elo1=1e400"], "elo1 must be a number"),
    (["match", "greedy", "greedy"], "two different bots"),
    (["match", "greedy", "random", "--max-games", "0"], "--max-games"),
    (["match", "greedy", "random", "--players", "3"], "takes 1 --field bot"),
    (["match", "greedy", "random", "--players", "4", "--field", "pimc"], "takes 2 --field bots"),
    (["match", "greedy", "random", "--field", "pimc"], "takes no --field"),
    (["match", "greedy", "random", "--players", "3", "--field", "random"], "'random' is seated already"),
    (["match", "greedy", "random", "--players", "4", "--field", "pimc", "--field", "pimc"],
     "'pimc' is seated already"),
    (["match", "greedy", "random", "--players", "3", "--field", "grredy"], "--field: unknown bot 'grredy'"),
    (["tournament", "--bots", "{typo.toml}", "random"], "unknown key 'iteratons'"),
    (["tournament", "--bots", "random", "nobody"], "tournament: unknown bot 'nobody'"),
    (["tournament", "--bots", "random"], "at least two bots"),
    (["tournament", "{bad-spec.toml}"], "unknown key 'rounds'"),
    (["tournament", "{not-toml.toml}"], "not valid TOML"),
    (["tournament", "{binary.toml}"], "not UTF-8"),
    (["tournament", "--bots", "random", "greedy", "--games", "0"], "--games"),
    (["tournament", "--bots", "random", "greedy", "--jobs", "0"], "--jobs"),
    (["tournament"], "give a spec file or --bots"),
    (["tournament", "--resume", "{results}", "--games", "50"], "--games"),
    (["tournament", "--resume", "{dir}"], "nothing to resume"),
    (["play", "--bots", "random", "random", "random", "random", "random"], "2 to 4 players"),
    (["play", "--bots", "random", "random", "--players", "3"], "2 bots for 3 players"),
    (["play", "--bots", "random", "grredy"], "unknown bot 'grredy'"),
    (["play", "--every", "-1"], "--every"),
    (["play", "--record", "{dir}/no/such/folder/game.json"], "no folder"),
    (["calibrate", "{binary.json}"], "not UTF-8"),
    (["calibrate", "{deep.json}"], "deep.json"),
    (["calibrate", "{array.json}"], "a game record is a JSON object"),
    (["calibrate", "{bad-move.json}"], "move 1"),
    (["calibrate", "{games.jsonl}"], "at least two finished games"),
    (["calibrate", "{dir}/missing.jsonl"], "no such file"),
    (["calibrate", "/dev/zero"], "/dev/zero: a device, not a file"),
    (["calibrate", "{record.json}", "--every", "0"], "--every"),
    (["show", "{binary.json}"], "not UTF-8"),
    (["hint", "{binary.json}"], "not UTF-8"),
    (["show", "{deal-null.json}"], "deal-null.json"),
    (["hint", "{deal-null.json}", "--iterations", "10"], "deal-null.json"),
    (["show", "{huge-players.json}"], "huge-players.json"),
    (["hint", "{huge-players.json}", "--iterations", "10"], "huge-players.json"),
    (["show", "{infinite-seed.json}"], "infinite-seed.json"),
    (["hint", "{infinite-seed.json}", "--iterations", "10"], "infinite-seed.json"),
    (["show", "{array.json}"], "array.json"),
    (["show", "{string.json}"], "string.json"),
    (["show", "{empty-record.json}"], "empty-record.json"),
    (["show", "{moves-not-list.json}"], "moves"),
    (["show", "{bad-move.json}"], "move 1"),
    (["show", "{deep.json}"], "deep.json"),
    (["show", "{dir}"], "a folder, not a file"),
    (["show", "/dev/zero"], "a device, not a file"),
    (["show", "{dir}/missing.json"], "No such file or directory"),
    (["show", "{games.jsonl}:5"], "game 5"),
    (["show", "{record.json}", "--move", "-1"], "--move -1 is out of range"),
    (["show", "{record.json}", "--move", "99999"], "--move 99999 is out of range"),
    (["hint", "{record.json}", "--move", "99999"], "out of range"),
    (["show", "{position.json}", "--move", "2"], "--move applies to game records"),
    (["hint", "{record.json}", "--move", "4", "--seconds", "nan"], "--seconds"),
    (["hint", "{record.json}", "--move", "4", "--seconds", "inf"], "--seconds"),
    (["hint", "{record.json}", "--move", "4", "--seconds", "0"], "--seconds"),
    (["hint", "{record.json}", "--move", "4", "--iterations", str(2**63)], "--iterations"),
    (["hint", "{record.json}", "--move", "4", "--top", "0"], "--top"),
    (["hint", "{record.json}", "--move", "4", "--iterations", "10", "--bot", "greedy"], "ismcts"),
    (["hint", "{record.json}", "--iterations", "10"], "over"),
    (["replay", "{results}", "--game", "99"], "no game 99"),
    (["replay", "{results}"], "--game"),
    (["replay", "{record.json}", "--game", "1"], "results folder"),
    (["replay", "MISSING", "--game", "3"], "MISSING: no such record file or results folder"),
    (["replay", "{position.json}"], "not a game record"),
    (["replay", "{deal-null.json}"], "deal-null.json"),
    (["replay", "{binary.json}"], "binary.json: not UTF-8"),
    (["replay", "{record.json}", "--every", "-2"], "--every"),
    (["standings", "{dir}"], "no tournament.json"),
    (["standings", "{dir}/missing"], "missing: no such folder"),       # issue 55: not "no tournament.json"
    (["standings", "{record.json}"], "record.json: not a folder"),
    # issue 55: a newer format says so, and which this tigris reads (not "not a game record")
    (["show", "{newer.json}"], f"format: tigris-game/2 was written by a newer tigris; this one ({VERSION}) reads "
                               "tigris-game/1"),
    (["replay", "{newer.json}"], "tigris-game/2 was written by a newer tigris"),
    (["view", "{newer.json}", "--out", "{dir}/newer.html"], f"newer.json: format: tigris-game/2 was written by a "
                                                             f"newer tigris; this one ({VERSION}) reads tigris-game/1"),
    (["hint", "{newer.json}"], "tigris-game/2 was written by a newer tigris"),
    (["analyse", "{newer.json}"], "tigris-game/2 was written by a newer tigris"),
    (["play", "--resume", "{newer.json}"], "tigris-game/2 was written by a newer tigris"),
    (["hint", "{newer-position.json}"], f"format: tigris-position/2 was written by a newer tigris; this one "
                                        f"({VERSION}) reads tigris-position/1"),
    (["bench", "core", "--games", "0"], "--games"),
    (["bench", "--repeats", "0"], "--repeats"),
    (["bench", "core", "--games", "99999999999999999999"], "from 1 to 1,000,000"),
    (["bench", "--repeats", "5000"], "from 1 to 1,000"),
    (["bench", "nothing"], "invalid choice"),
    (["bench", "decisive", "--bot", "greedy"], "ismcts"),
    (["bench", "decisive", "--bot", "nobody"], "unknown bot"),
    (["bench", "decisive", "--iterations", "0"], "--iterations"),
    (["bench", "decisive", "--suite", "MISSING"], "MISSING: No such file or directory"),
    (["bench", "regret", "--suite", "{record.json}"], "not a tigris-suite/1 file"),
    (["bench", "suite", "--suite", "{binary.toml}"], "not UTF-8"),
    (["bench", "suite", "--make", "MISSING/run.jsonl"], "no folder MISSING to write it in"),
    (["bench", "suite", "--make", "{record.json}"], "not a tigris-suite-run/1 file (line 1 is not its header)"),
    (["bench", "suite", "--make", "r.jsonl", "--seeds", "0"], "--seeds"),
    (["bench", "suite", "--make", "r.jsonl", "--positions", "0"], "--positions"),
    (["bench", "calibration", "--positions", "0"], "--positions"),
    (["bench", "calibration", "--positions", "40000"], "from 1 to 30,000"),
    (["bench", "calibration", "--seed", "-1"], "--seed"),
    (["bench", "calibration", "--jobs", "0"], "--jobs"),
    (["bench", "calibration", "--iterations", "0"], "--iterations"),
    (["bench", "calibration", "--bot", "greedy"], "ismcts"),
    (["bench", "calibration", "--bot", "nobody"], "unknown bot"),
    (["tune", "ismcts-fast", "--param", "exploration=0.1:2", "--opponent", "random",
      "--method", "grid"], "--method"),
    (["tune", "nobody", "--param", "exploration=0.1:2", "--opponent", "random"], "unknown bot"),
    (["tune", "ismcts-fast", "--param", "exploration=2:1", "--opponent", "random"], "range is empty"),
    (["tune", "ismcts-fast", "--param", "exploration=0.1:2", "--opponent", "random",
      "--budget", "3"], "--budget"),
    (["tune", "ismcts-fast", "--param", "exploration=0.1:2", "--opponent", "random",
      "--players", "3", "--iteration-games", "8"], "--iteration-games 8: a multiple of 6"),
    (["tune", "ismcts-fast", "--param", "exploration=0.1:2", "--opponent", "random",
      "--players", "4", "--budget", "4"], "--budget 4: an iteration plays 8 games"),
    (["tune", "ismcts-fast", "--param", "exploration=0.1:2", "--opponent", "random",
      "--players", "5"], "--players"),
    (["tune", "--plot", "{dir}"], "history.csv"),
    (["tune", "ismcts-fast", "--param", "exploration=0.1:2", "--opponent", "random", "--resume",
      "--out", "{tune-run}"], "tune.json: not JSON"),
    (["tune"], "name the bot"),
    (["play", "--bots", "{deep.toml}", "random"], "deep.toml: not valid TOML (nested too deeply)"),
    (["tournament", "--bots", "{deep.toml}", "random"], "deep.toml: not valid TOML (nested too deeply)"),
    (["tournament", "{deep-spec.toml}"], "deep-spec.toml: not valid TOML (nested too deeply)"),
    (["selfplay", "--out", "{deep-selfplay}", "--games", "1"], "selfplay.json: not JSON (nested too deeply)"),
    (["standings", "{deep-results}"], "tournament.json: not JSON (nested too deeply)"),
    (["tune", "ismcts-fast", "--param", "exploration=0.1:2", "--opponent", "random", "--resume",
      "--out", "{deep-tune}"], "tune.json: not JSON (nested too deeply)"),
    (["play", "--bots", "{deep-net.toml}", "random"], "deep-net.npz: meta: not a JSON object ('its bytes: "
                                                      "not JSON (nested too deeply)')"),
    (["fly"], "invalid choice"),
    (["show"], "required"),
    (["show", "{record.json}", "--wat"], "unrecognized arguments"),
]


def _argv(argv, files):
    return [re.sub(r"\{([^}]+)\}", lambda m: str(files[m.group(1)]), a) for a in argv]


@pytest.mark.slow
@pytest.mark.parametrize("argv, expected", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_gives_one_line(files, capsys, argv, expected):
    status = main(_argv(argv, files))
    out, err = capsys.readouterr()
    assert status != 0
    prog = "tigris" if argv[0] == "fly" else f"tigris {argv[0]}"
    line = one_line(err, prog)
    assert expected in line
    assert "Traceback" not in out + err


def test_a_bad_bot_file_in_bots_is_one_line_and_the_rest_are_listed(files, tmp_path, monkeypatch,
                                                                     capsys):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "good.toml").write_text('kind = "greedy"\ndescription = "fine"\n')
    (tmp_path / "bots" / "typo.toml").write_text(files["typo.toml"].read_text())
    monkeypatch.chdir(tmp_path)
    assert main(["bots"]) == 1
    out, err = capsys.readouterr()
    assert "good" in out and "fine" in out
    assert "unknown key 'iteratons'" in one_line(err, "tigris bots")


def test_the_tournament_note_on_shared_seats(tmp_path, capsys):
    assert main(["tournament", "--bots", "random", "greedy", "--players", "3", "--games", "3",
                 "--jobs", "1", "--out", str(tmp_path / "t")]) == 0
    err = capsys.readouterr().err
    assert "3 seats and 2 bots: random plays two seats at every table" in err


def test_a_torn_line_is_one_warning_line(files, tmp_path, capsys):
    out = tmp_path / "torn"
    assert main(["tournament", "--bots", "random", "greedy", "--games", "4", "--jobs", "1",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    lines = (out / "games.jsonl").read_text().splitlines(keepends=True)
    (out / "games.jsonl").write_text("".join(lines[:3]) + lines[3][:40])
    assert main(["standings", str(out)]) == 0
    captured = capsys.readouterr()
    line = one_line(captured.err, "tigris standings")
    assert "warning:" in line and "torn" in line
    assert "UserWarning" not in captured.err and "warnings.warn" not in captured.err
    assert "3 of 4 games played" in captured.out


def test_replay_header_names_the_game_or_the_file(files, capsys):
    assert main(["replay", str(files["record.json"]), "--every", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "record.json: player 0: random, player 1: random"
    assert main(["replay", str(files["results"]), "--game", "1", "--every", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("game 1: player 0: ")


def test_show_accepts_the_whole_move_range(files, capsys):
    moves = len(json.loads(files["record.json"].read_text())["moves"])
    assert main(["show", str(files["record.json"]), "--move", "0"]) == 0
    assert main(["show", str(files["record.json"]), "--move", str(moves)]) == 0
    assert "Ranking" in capsys.readouterr().out
    assert main(["show", str(files["record.json"]), "--move", str(moves + 1)]) == 1
    assert f"(give 0 to {moves})" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------
# The same, as real processes
# ---------------------------------------------------------------------------------------

PROCESS_CASES = [
    ["match", "{typo.toml}", "random"],
    ["tournament", "--bots", "ismcts-fast", "grredy"],
    ["play", "--bots", "random", "random", "random", "random", "random"],
    ["show", "{binary.json}"],
    ["hint", "{deal-null.json}"],
    ["show", "{huge-players.json}"],
    ["bench", "core", "--games", "0"],
]


def run_tigris(argv, cwd=REPO, stdin=subprocess.DEVNULL):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen([sys.executable, "-m", "tigris", *argv], cwd=cwd, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.slow
def test_bad_input_in_a_real_process_is_one_line(files):
    runs = [(argv, run_tigris(_argv(argv, files))) for argv in PROCESS_CASES]
    for argv, p in runs:
        out, err = p.communicate(timeout=60)
        assert p.returncode not in (0, None) and p.returncode > 0, (argv, err)
        assert "Traceback" not in out + err, (argv, err)
        one_line(err, f"tigris {argv[0]}")


def test_replay_step_stops_at_the_end_of_input(files):
    p = run_tigris(["replay", str(files["record.json"]), "--step"], stdin=subprocess.PIPE)
    out, err = p.communicate(input="\n\n", timeout=60)          # two moves, then Ctrl-D
    assert p.returncode == 1 and "Traceback" not in err
    assert "end of input after move 2" in one_line(err, "tigris replay")
    assert "   2. player" in out and "   3. player" not in out


def test_replay_step_stops_when_told_q(files):
    """Issue 42: q did not quit --step."""
    p = run_tigris(["replay", str(files["record.json"]), "--step"], stdin=subprocess.PIPE)
    out, err = p.communicate(input="\nq\n", timeout=60)
    assert p.returncode == 0 and err == ""
    assert "stopped after move 1 of" in out and "   2. player" not in out


def test_replay_shows_the_last_board_unless_asked_for_more(files, capsys):
    """Issue 42: a replay printed the board after every move (about 4,500 lines)."""
    moves = len(json.loads(Path(files["record.json"]).read_text())["moves"])
    assert main(["replay", str(files["record.json"])]) == 0
    short = capsys.readouterr().out.splitlines()
    assert main(["replay", str(files["record.json"]), "--every", "1"]) == 0
    every = capsys.readouterr().out.splitlines()
    assert len(short) < moves + 40 < len(every)
    assert short[-25:] == every[-25:]                   # the last board is shown either way


def test_standings_of_a_single_deal_have_no_elo_interval(files, capsys):
    assert main(["standings", str(files["results"])]) == 0
    assert "(n/a)" in capsys.readouterr().out
    assert main(["standings", str(files["results"]), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["standings"]["bots"]
    assert all(r["elo_ci"] is None for r in rows)


def test_an_error_line_is_one_short_line_without_a_repeated_prefix(capsys):
    from tigris.commands import MESSAGE_LIMIT, report

    report("tigris tournament", "tournament: a message\non two lines")
    report("tigris show", "x" * 10 * MESSAGE_LIMIT)
    first, second = capsys.readouterr().err.splitlines()
    assert first == "tigris tournament: a message on two lines"
    assert second.startswith("tigris show: xxx") and len(second) < MESSAGE_LIMIT + 20
