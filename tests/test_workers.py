"""Worker processes die with the run that started them: SIGTERM stops a tournament as
Ctrl-C does (finished games kept, workers stopped), and after a SIGKILL of the run its
workers end themselves."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from tigris import parallel

from processes import python

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="signals and /proc as on Linux")


@pytest.fixture
def started():
    """The processes a test starts; any still running at the end are killed (a failed
    test must not leave them behind)."""
    processes = []
    yield processes
    for proc in processes:
        with contextlib.suppress(psutil.Error):
            proc.kill()


def start_tournament(tmp_path, started):
    """A tournament of a few games of about a second each, on two workers; returns the
    process once its first game is saved, with every process it started."""
    (tmp_path / "slow.toml").write_text('kind = "ismcts"\niterations = 150\nrollout_depth = 4\n')
    (tmp_path / "random.toml").write_text('kind = "random"\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, "-m", "tigris.cli", "tournament", "--bots", "slow.toml",
                          "random.toml", "--games", "12", "--jobs", "2", "--out", "out"],
                         cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    started.append(psutil.Process(p.pid))
    games = tmp_path / "out" / "games.jsonl"
    deadline = time.monotonic() + 120
    while not (games.exists() and games.stat().st_size) and p.poll() is None:
        assert time.monotonic() < deadline, "no game finished"
        time.sleep(0.05)
    assert p.poll() is None, p.communicate()
    children = psutil.Process(p.pid).children(recursive=True)
    started += [psutil.Process(p.pid)] + children
    assert len(children) >= 2                          # the two workers (and resource trackers)
    return p, children, games


def gone(processes, seconds):
    """Whether every process has exited (a zombie waiting to be reaped has) within
    `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        alive = []
        for proc in processes:
            try:
                if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                    alive.append(proc)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            return not alive
        time.sleep(0.1)


def saved_games(path):
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(r["format"] == "tigris-game/1" and r["result"] for r in records)
    return records


def test_sigterm_stops_a_tournament_and_its_workers_and_keeps_the_games(tmp_path, started):
    p, children, games = start_tournament(tmp_path, started)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=10)
    assert p.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in err
    last = err.replace("\r", "\n").splitlines()[-1]
    assert last.startswith("tigris tournament: interrupted: ") and "--resume out" in last
    assert gone(children, 5)
    n = len(saved_games(games))
    assert 1 <= n < 12 and f"{n} finished games are saved" in last


def test_workers_end_themselves_when_the_run_is_killed(tmp_path, started):
    p, children, games = start_tournament(tmp_path, started)
    p.kill()
    p.wait(timeout=10)
    assert gone(children, 5)
    assert saved_games(games)


def test_a_worker_whose_parent_is_gone_as_it_starts_exits_at_once():
    """``watch`` in a process whose parent is already another (it died while the process
    started, and init adopted it) ends it; with its real parent, the process goes on."""
    code = """
import os
from tigris import parallel
parallel.watch(os.getppid() + {offset})
print("went on", flush=True)
"""
    assert python(code.format(offset=0)).stdout == "went on\n"
    orphan = python(code.format(offset=1))
    assert orphan.returncode == 1 and orphan.stdout == ""


def test_the_loky_shutdown_race_is_quiet_and_other_thread_errors_are_not():
    """In a child process (pytest hooks thread exceptions itself): after the workers'
    first run, a KeyError of loky's manager thread is not printed, anything else is."""
    code = """
import threading
from tigris import parallel
parallel._quiet_shutdown_race()
def fail(exc):
    raise exc
for name, exc in (("ExecutorManagerThread", KeyError(1)), ("other", KeyError(2)),
                  ("ExecutorManagerThread", RuntimeError("real"))):
    t = threading.Thread(target=fail, args=(exc,), name=name)
    t.start()
    t.join()
"""
    r = python(code)
    assert r.returncode == 0, r.stderr
    assert "KeyError: 1" not in r.stderr
    assert "KeyError: 2" in r.stderr and "RuntimeError: real" in r.stderr


def test_the_worker_processes_tracker_keeps_its_exit_warnings_to_itself(monkeypatch):
    """After a run, processes started by it hear no UserWarning of loky's resource tracker
    (its notes on the semaphores of workers stopped as they started, printed after the
    run's own report of the interruption); other warnings still show."""
    monkeypatch.setenv("PYTHONWARNINGS", "default")
    assert parallel.run(2, [(pow, (2, 3), {})]) == [8]
    assert os.environ["PYTHONWARNINGS"] == f"default,{parallel.QUIET_TRACKER}"
    code = ("import warnings\n"
            "import joblib.externals.loky.backend.resource_tracker as tracker\n"
            "exec('warnings.warn(\"leaked semlock\")', tracker.__dict__)\n"
            "warnings.warn('other')\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "leaked semlock" not in run.stderr and "UserWarning: other" in run.stderr
