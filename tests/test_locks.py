"""One run per folder: every run that writes a folder (or appends to a file) holds an
exclusive lock on it, and a second run at once is refused in one line naming the holder;
a killed holder leaves no stale lock."""

import json
import os
import signal
import subprocess
import sys
from contextlib import contextmanager

import pytest

from tigris._plumbing import locks
from tigris.commands import main
from tigris.errors import UsageError

from processes import ROOT, _env
from waiting import until

HOLD = """
import sys, time
from tigris._plumbing.locks import hold
with hold(sys.argv[1], file=sys.argv[2] == "file"):
    print("held", flush=True)
    time.sleep(600)
"""


@contextmanager
def held(path, file=False):
    """Another process holding `path` (a folder, or with `file` a file) as a run does."""
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(path), "file" if file else "folder"],
                         stdout=subprocess.PIPE, env=_env(), cwd=ROOT)
    try:
        assert p.stdout.readline().strip() == b"held"
        yield p
    finally:
        p.kill()
        p.wait()


def one_line(err):
    lines = [line.split("\r")[-1] for line in err.split("\n")]
    lines = [line for line in lines if line.strip() and "%|" not in line]
    assert len(lines) == 1 and "Traceback" not in err, err[-3000:]
    return lines[0]


def test_a_second_tournament_on_a_folder_is_refused_naming_the_first(tmp_path, capsys):
    # The attack: two tournament --out X at once both played every game, each written twice.
    slow = tmp_path / "slow.toml"
    slow.write_text('kind = "ismcts"\nseconds = 60.0\n')
    out = tmp_path / "t"
    argv = ["tournament", "--bots", str(slow), "random", "--games", "2", "--jobs", "1",
            "--out", str(out)]
    first = subprocess.Popen([sys.executable, "-m", "tigris", *argv], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=_env(), cwd=ROOT, start_new_session=True)
    try:
        lock = out / locks.LOCK_FILE
        until(lambda: lock.exists() and lock.stat().st_size, what="the first run's lock")
        said = json.loads(lock.read_text())
        assert said["pid"] == first.pid and said["command"].startswith("tigris tournament --bots")
        # the lock comes first, the spec after it (a busy machine shows the moment between)
        until(lambda: (out / "tournament.json").exists(), what="the first run's tournament.json")
        spec = (out / "tournament.json").read_bytes()
        for again in (argv, ["tournament", "--resume", str(out)]):
            assert main(again) == 1
            line = one_line(capsys.readouterr().err)
            assert line.startswith(f"tigris tournament: {out} is in use by another run "
                                   f"(pid {first.pid}: tigris tournament --bots"), line
        assert (out / "tournament.json").read_bytes() == spec and not (out / "summary.json").exists()
    finally:
        os.killpg(first.pid, signal.SIGKILL)       # the way a run dies that cleans nothing up
        first.wait()
    with locks.hold(out):                          # the kernel let go of the lock: none is stale
        pass


def test_every_run_holds_its_folder(tmp_path):
    from tigris import analysis, match, tune, tournament
    from tigris.runs import selfplay, train

    folder = tmp_path / "busy"
    with held(folder) as holder:
        runs = {
            "tournament": lambda: tournament.run(tournament.Spec(bots=["random", "greedy"], games=2),
                                                 folder, jobs=1, progress=False),
            "match": lambda: match.sprt_match("greedy", "random", max_games=2, jobs=1, out=folder,
                                              progress=False),
            "tune": lambda: tune.tune(tune.TuneSpec(bot="greedy", params=[tune.parse_param("eval_leader=0:1")],
                                                    opponents=["random"], budget=4, verify_games=2),
                                      folder, jobs=1, progress=False),
            "selfplay": lambda: selfplay.run(selfplay.settings(games=1, label_iterations=10), folder,
                                             progress=False),
            "train": lambda: train.fit(None, folder),
        }
        for name, run in runs.items():
            with pytest.raises(UsageError, match=rf"{folder} is in use by another run \(pid {holder.pid}: "):
                run()
        assert sorted(p.name for p in folder.iterdir()) == [locks.LOCK_FILE]     # nothing written
    import tigris
    from tigris import record

    rec = record.to_record(tigris.Game(players=2, seed=1), bots=["a", "b"])
    target = tmp_path / "a.jsonl"
    with held(target, file=True) as holder:
        with pytest.raises(UsageError, match=rf"a.jsonl is in use by another run \(pid {holder.pid}: "):
            analysis.run(rec, target, iterations=10, progress=False)
        assert not target.exists()


def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    with held(tmp_path / "f") as holder:
        with pytest.raises(UsageError, match="in use"):
            with locks.hold(tmp_path / "f"):
                pass
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        with locks.hold(tmp_path / "f"):
            pass
    with locks.hold(tmp_path / "f"):               # and it is let go when a run ends
        pass


def test_who_holds_a_lock_is_looked_at_without_taking_it(tmp_path):
    record = tmp_path / "game.json"
    assert locks.held_by(record, file=True) is None                    # no lock file
    with held(record, file=True) as holder:
        said = locks.held_by(record, file=True)
        assert said.startswith(f"pid {holder.pid}: ") and "\n" not in said
        assert locks.held_by(record, file=True) == said                # looking takes nothing
    assert locks.held_by(record, file=True) is None                    # let go with its process
    (tmp_path / ".game.json.lock").write_text('{"pid": 1, "command": "a run killed"}')
    assert locks.held_by(record, file=True) is None                    # a file left, no lock
    (tmp_path / ".game.json.lock").unlink()
    (tmp_path / ".game.json.lock").symlink_to(tmp_path / "elsewhere")
    assert locks.held_by(record, file=True) is None and not (tmp_path / "elsewhere").exists()


def test_what_is_in_place_of_the_lock_file_is_named_not_followed(tmp_path):
    for name, make, what in (("folder", lambda p: p.mkdir(), "Is a directory"),
                             ("pipe", os.mkfifo, "a pipe, not a lock file"),
                             ("link", lambda p: p.symlink_to(tmp_path / "elsewhere"), "is a link: remove it")):
        folder = tmp_path / name
        folder.mkdir()
        make(folder / locks.LOCK_FILE)
        with pytest.raises(UsageError, match=what):
            with locks.hold(folder):
                pass
    assert not (tmp_path / "elsewhere").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="file: is not a folder"):
        with locks.hold(tmp_path / "file"):
            pass


def test_a_lock_file_saying_anything_gives_one_short_line(tmp_path):
    folder = tmp_path / "f"
    with held(folder):
        lock = folder / locks.LOCK_FILE
        for text in ("", "{", "[" * 100_000, json.dumps({"pid": 10**300, "command": "\x1b[31m\n" * 200}),
                     json.dumps({"pid": 1, "command": ["a"] * 1000}), "x" * 100_000):
            lock.write_text(text)
            with pytest.raises(UsageError) as e:
                with locks.hold(folder):
                    pass
            said = str(e.value)
            assert "\n" not in said and len(said) < 400 and "in use by another run" in said, said


def test_a_failed_run_leaves_no_folder_it_created(tmp_path, monkeypatch, capsys):
    """Issue 42: a tune --method bayes that failed (optuna missing) left an empty folder
    behind; the folders a run creates go again when it fails before writing in them."""
    monkeypatch.setitem(sys.modules, "optuna", None)            # as if not installed
    out = tmp_path / "new" / "deeper"
    assert main(["tune", "ismcts-fast", "--param", "exploration=0.1:2.0", "--method", "bayes",
                 "--opponent", "greedy", "--budget", "4", "--out", str(out)]) == 1
    assert "needs optuna" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RuntimeError), locks.hold(tmp_path / "kept"):
        (tmp_path / "kept" / "work").write_text("done")
        raise RuntimeError("after writing")
    assert (tmp_path / "kept" / "work").read_text() == "done"         # work is never removed
