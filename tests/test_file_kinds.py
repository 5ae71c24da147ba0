"""Every command against files that are not what they seem: a reader is given a device, a
pipe or a link where it reads a file, a writer a link where it writes one.

A reader refuses a device or a pipe at once, in one line naming the file: never reading
``/dev/zero`` until the memory is gone, never waiting on a pipe.  The readers run as real
``tigris`` processes under a memory limit, so that a hang, a growing memory or a
traceback shows.  A writer never writes through a link: the file the link points to is
left as it was, and the command says why in one line.  (``properties.file_kinds`` holds
every reader of the package to every kind of file; these hold the commands to it.)"""

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tigris
from tigris import tournament
from tigris.commands import main
from tigris.record import to_record

REPO = Path(__file__).resolve().parent.parent
MEMORY = 2 * 2**30          # a reader of /dev/zero that reads it whole passes this at once


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A finished results folder, a record and an analysis of it, a bot file."""
    d = tmp_path_factory.mktemp("played")
    tournament.run(tournament.Spec(bots=["random", "greedy"], games=2, seed=5, name="t"),
                   out=d / "t", jobs=1, progress=False)
    g = tigris.Game(players=2, seed=3)
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    (d / "g.json").write_text(json.dumps(to_record(g, bots=["random", "random"])))
    (d / "b.toml").write_text('kind = "ismcts"\niterations = 5\n')
    return d


def _limited():
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run_tigris(args, cwd):
    """``tigris ARGS`` in a child under the memory limit: (exit status, stderr)."""
    done = subprocess.run([sys.executable, "-m", "tigris", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, preexec_fn=_limited,
                          env=dict(os.environ, PYTHONWARNINGS="ignore"))
    return done.returncode, done.stderr


# what each command reads, as (arguments, the file in the folder it reads)
READERS = {
    "standings": (["standings", "t"], "t/games.jsonl"),
    "tournament --resume": (["tournament", "--resume", "t", "--jobs", "1"], "t/games.jsonl"),
    "match --resume": (["match", "random", "greedy", "--max-games", "2", "--jobs", "1", "--out", "t",
                        "--resume"], "t/games.jsonl"),
    "match --resume's spec": (["match", "random", "greedy", "--max-games", "2", "--jobs", "1", "--out", "t",
                               "--resume"], "t/tournament.json"),
    "replay": (["replay", "t", "--game", "1"], "t/games.jsonl"),
    "show FILE:K": (["show", "t/games.jsonl:1"], "t/games.jsonl"),
    "view a results folder": (["view", "t", "--out", "pages"], "t/games.jsonl"),
    "calibrate": (["calibrate", "t"], "t/games.jsonl"),
    "standings' spec": (["standings", "t"], "t/tournament.json"),
    "show": (["show", "g.json"], "g.json"),
    "view": (["view", "g.json", "--out", "g.html"], "g.json"),
    "hint": (["hint", "g.json", "--move", "3", "--iterations", "10"], "g.json"),
    "analyse": (["analyse", "g.json", "--iterations", "10", "--out", "a.jsonl"], "g.json"),
    "a bot file": (["play", "--bots", "b.toml", "random", "--seed", "1"], "b.toml"),
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["/dev/zero", "a pipe"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_reader_refuses_a_device_or_a_pipe_at_once(played, tmp_path, reader, kind):
    folder = tmp_path / "f"
    shutil.copytree(played, folder, symlinks=True)
    args, name = READERS[reader]
    target = folder / name
    target.unlink()
    if kind == "a pipe":
        os.mkfifo(target)
    else:
        target.symlink_to(kind)
    code, err = run_tigris(args, folder)
    assert code != 0 and "Traceback" not in err and "MemoryError" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and target.name in lines[0], err
    said = "a device" if kind == "/dev/zero" else "a pipe"
    # a run that also writes the file refuses a link to a device as a link
    assert said in lines[0] or (kind == "/dev/zero" and "it is a symbolic link" in lines[0]), err


@pytest.mark.slow
def test_a_line_longer_than_any_game_is_refused_unread(played, tmp_path):
    folder = tmp_path / "f"
    shutil.copytree(played, folder)
    with open(folder / "t" / "games.jsonl", "ab") as f:
        f.write(b"[" + b"0," * (12 * 2**20))          # 24 MB without a newline
    code, err = run_tigris(["standings", "t"], folder)
    assert code != 0 and "Traceback" not in err, err
    assert "games.jsonl: line 3 is longer than 16 MB" in err


# ---------------------------------------------------------------------------------------
# Writers: never through a link
# ---------------------------------------------------------------------------------------

def _victim(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    return victim


def _linked(path, victim):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(victim)
    return path


def _refused(capsys, path, victim, code):
    err = capsys.readouterr().err
    assert code != 0 and len(err.strip().splitlines()) == 1, err
    assert f"{path.name}: it is a symbolic link" in err, err
    assert victim.read_text() == "precious" and path.is_symlink()


def test_view_never_writes_a_page_through_a_link(played, tmp_path, capsys):
    victim = _victim(tmp_path)
    link = _linked(tmp_path / "link.html", victim)
    _refused(capsys, link, victim, main(["view", str(played / "g.json"), "--out", str(link), "--force"]))
    index = _linked(tmp_path / "pages" / "index.html", victim)
    _refused(capsys, index, victim, main(["view", str(played / "t"), "--out", str(tmp_path / "pages"),
                                          "--force"]))


def test_a_resumed_tournament_never_writes_its_summary_through_a_link(played, tmp_path, capsys):
    folder = tmp_path / "t"
    shutil.copytree(played / "t", folder)
    victim = _victim(tmp_path)
    (folder / "summary.md").unlink()
    link = _linked(folder / "summary.md", victim)
    _refused(capsys, link, victim, main(["tournament", "--resume", str(folder), "--jobs", "1"]))


@pytest.mark.parametrize("command", ["tournament", "match"])
def test_a_run_never_appends_its_games_through_a_link(tmp_path, capsys, command):
    victim = _victim(tmp_path)
    link = _linked(tmp_path / "out" / "games.jsonl", victim)
    args = (["tournament", "--bots", "random", "greedy", "--games", "2"] if command == "tournament"
            else ["match", "random", "greedy", "--max-games", "2"])
    _refused(capsys, link, victim, main([*args, "--jobs", "1", "--out", str(tmp_path / "out")]))


def test_play_never_writes_its_record_through_a_link(tmp_path, capsys):
    victim = _victim(tmp_path)
    link = _linked(tmp_path / "g.json", victim)
    _refused(capsys, link, victim, main(["play", "--bots", "random", "random", "--seed", "1",
                                         "--record", str(link), "--force"]))


def test_calibrate_never_writes_through_a_link(played, tmp_path, capsys):
    victim = _victim(tmp_path)
    link = _linked(tmp_path / "c.json", victim)
    _refused(capsys, link, victim, main(["calibrate", str(played / "t"), "--out", str(link), "--force"]))


def test_an_analysis_is_never_appended_through_a_link(played, tmp_path, capsys):
    victim = _victim(tmp_path)
    link = _linked(tmp_path / "a.jsonl", victim)
    _refused(capsys, link, victim, main(["analyse", str(played / "g.json"), "--iterations", "10",
                                         "--out", str(link)]))


def test_selfplay_never_appends_through_a_link(tmp_path, capsys):
    victim = _victim(tmp_path)
    link = _linked(tmp_path / "sp" / "positions.jsonl", victim)
    _refused(capsys, link, victim, main(["selfplay", "--out", str(tmp_path / "sp"), "--games", "1",
                                         "--bot", "random", "--jobs", "1"]))


def test_a_hard_linked_file_is_never_appended_to(played, tmp_path, capsys):
    """Appending to a file with a second name would change that other name too."""
    folder = tmp_path / "t"
    shutil.copytree(played / "t", folder)
    games = folder / "games.jsonl"
    lines = games.read_text().splitlines()
    games.write_text(lines[0] + "\n")                     # a game to play again
    other = tmp_path / "elsewhere.jsonl"
    os.link(games, other)
    before = other.read_bytes()
    assert main(["tournament", "--resume", str(folder), "--jobs", "1"]) != 0
    err = capsys.readouterr().err
    assert "games.jsonl: it has another name too (a hard link)" in err, err
    assert other.read_bytes() == before


# ---------------------------------------------------------------------------------------
# A file the user names for output: an existing one is refused unless --force
# ---------------------------------------------------------------------------------------

def _output_commands(played, out):
    return {
        "play --record": ["play", "--bots", "random", "random", "--seed", "1", "--record", str(out)],
        "play --you --record": ["play", "--you", "0", "--bots", "random", "--seed", "1",
                                "--record", str(out)],
        "view --out": ["view", str(played / "g.json"), "--out", str(out)],
        "calibrate --out": ["calibrate", str(played / "t"), str(played / "g.json"), "--out", str(out)],
    }


@pytest.mark.parametrize("command", ["play --record", "play --you --record", "view --out",
                                     "calibrate --out"])
def test_an_existing_output_file_is_refused_unless_force(played, tmp_path, capsys, monkeypatch, command):
    """`tigris play --you 0 --bots level-1 --seed 11 --record l1.json`, then a bots-only
    game with `--record l1.json` replaced the person's record: every command that writes a
    file the user names refuses an existing one unless --force (files.check_new)."""
    import io

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))       # a person at the table leaves
    out = tmp_path / "mine.out"
    out.write_text("mine\n")
    args = _output_commands(played, out)[command]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "mine.out exists" in err and "--force" in err, err
    assert out.read_text() == "mine\n"
    assert main([*args, "--force"]) in (0, 1)          # calibrate may find too few games
    assert out.read_text() != "mine\n" or "calibrate" in command


def test_calibrate_with_force_replaces_its_output(played, tmp_path, capsys):
    out = tmp_path / "c.json"
    out.write_text("old\n")
    folder = tmp_path / "t"
    tournament.run(tournament.Spec(bots=["random", "greedy"], games=8, seed=6, name="c"),
                   out=folder, jobs=1, progress=False)
    assert main(["calibrate", str(folder), "--out", str(out)]) == 1
    assert main(["calibrate", str(folder), "--out", str(out), "--force"]) == 0
    assert json.loads(out.read_text())["format"].startswith("tigris-calibration/")


def test_train_refuses_an_existing_plot_before_any_work(tmp_path, capsys):
    pytest.importorskip("torch")
    plot = tmp_path / "r.png"
    plot.write_bytes(b"mine")
    assert main(["train", str(tmp_path / "no-data"), "--out", str(tmp_path / "net"),
                 "--plot", str(plot)]) == 1
    assert "r.png exists; name a new file, or add --force" in capsys.readouterr().err
    assert plot.read_bytes() == b"mine" and not (tmp_path / "net").exists()


@pytest.mark.parametrize("name", ["network.npz", "log.jsonl", "checkpoint.pt"])
def test_training_never_writes_its_files_through_a_link(tmp_path, capsys, name):
    """A training folder's network, log and checkpoint: refused before the data is read."""
    pytest.importorskip("torch")
    victim = _victim(tmp_path)
    link = _linked(tmp_path / "net" / name, victim)
    _refused(capsys, link, victim, main(["train", str(tmp_path / "no-data"), "--out",
                                         str(tmp_path / "net")]))


@pytest.mark.parametrize("name", ["history.csv", "tune.json", "tiny-tuned.toml"])
def test_tuning_never_writes_its_files_through_a_link(tmp_path, capsys, name, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.toml").write_text('kind = "ismcts"\niterations = 8\n')
    victim = _victim(tmp_path)
    link = _linked(tmp_path / "tu" / name, victim)
    _refused(capsys, link, victim, main(["tune", "tiny.toml", "--param", "exploration=0.3:1.5",
                                         "--opponent", "random", "--budget", "8", "--verify-games",
                                         "2", "--jobs", "1", "--out", str(tmp_path / "tu")]))
