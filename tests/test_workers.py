"""Worker processes die with the run that started them: SIGTERM stops a command as
Ctrl-C does (finished work kept, workers stopped, one line said), and after a SIGKILL of
the run, at any moment (its workers still starting included), every process it started
ends within 5 seconds: workers and resource trackers."""

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time

import psutil
import pytest

import tigris
from tigris import bots, record
from tigris._plumbing import parallel

from processes import as_in_a_terminal, python
from waiting import gone

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="signals and /proc as on Linux")

SLOW = 'kind = "ismcts"\niterations = 150\nrollout_depth = 4\n'     # about a second a game

# Every command that starts worker processes, as run in a folder holding slow.toml and
# game.json, with the file its output goes to (None: the terminal).
COMMANDS = {
    "tournament": (["tournament", "--bots", "slow.toml", "random", "--games", "12", "--jobs", "2",
                    "--out", "out"], "out/games.jsonl"),
    "analyse": (["analyse", "game.json", "--iterations", "400", "--jobs", "2", "--out", "rows.jsonl"],
                "rows.jsonl"),
    "tune": (["tune", "slow.toml", "--param", "exploration=0.1:2.0", "--opponent", "random",
              "--budget", "40", "--jobs", "2", "--out", "tuning"], "tuning/history.csv"),
    "match": (["match", "slow.toml", "random", "--max-games", "12", "--jobs", "2", "--out", "match"],
              "match/games.jsonl"),
    "hint": (["hint", "game.json", "--iterations", "100000", "--jobs", "2"], None),
    "selfplay": (["selfplay", "--bot", "slow.toml", "--games", "12", "--label-iterations", "2000",
                  "--jobs", "2", "--out", "data"], "data/positions.jsonl"),
}
START_UP = 120           # seconds a run may take to reach a moment on a loaded machine
PROGRESS = re.compile(r"\d+%\|")                         # a line of a progress bar


@pytest.fixture
def started():
    """The processes a test starts; any still running at the end are killed (a failed
    test must not leave them behind), with whatever else runs in their sessions."""
    processes = []
    yield processes
    for proc in processes + [member for proc in processes for member in session(proc.pid)]:
        with contextlib.suppress(psutil.Error):
            proc.kill()


@pytest.fixture
def folder(tmp_path):
    """A folder with what the commands read: a slow bot, a game of ten greedy moves."""
    (tmp_path / "slow.toml").write_text(SLOW)
    g = tigris.Game(players=2, seed=5)
    seats = [bots.make("greedy", seed=s) for s in range(2)]
    for _ in range(10):
        g.apply(seats[g.current_player].choose(g))
    (tmp_path / "game.json").write_text(json.dumps(record.to_record(g, bots=["greedy"] * 2)))
    return tmp_path


def start(folder, args, started, stderr=subprocess.DEVNULL):
    """``tigris ARGS`` in `folder`, in a session of its own (so that nothing it starts
    escapes the count), taking SIGINT as in a terminal (a test run started in the
    background ignores it, and so would its children)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, "-m", "tigris", *args], cwd=folder, env=env,
                         stdout=subprocess.DEVNULL, stderr=stderr, text=True, start_new_session=True,
                         preexec_fn=as_in_a_terminal)
    started.append(psutil.Process(p.pid))
    return p


def session(sid):
    """The processes of session `sid`."""
    members = []
    for proc in psutil.process_iter():
        with contextlib.suppress(OSError, psutil.Error):
            if os.getsid(proc.pid) == sid:
                members.append(proc)
    return members


def is_worker(proc):
    """Whether `proc` is a worker (not one of the resource trackers of a pool)."""
    with contextlib.suppress(psutil.Error):
        return "resource_tracker" not in " ".join(proc.cmdline())
    return False


def reach(p, folder, output, moment, seen):
    """Wait until `moment` of run `p`: "process" (its first child), "workers" (its first
    worker), "output" (its output file exists), "result" (the file has a first result);
    meanwhile collect in `seen` every process it has started (workers appear late, and
    some of them start others)."""
    parent = psutil.Process(p.pid)
    deadline = time.monotonic() + START_UP
    while True:
        with contextlib.suppress(psutil.Error):
            for child in parent.children(recursive=True):
                seen.setdefault(child.pid, child)
        assert p.poll() is None, f"the run ended before the moment {moment}"
        assert time.monotonic() < deadline, f"no {moment} within {START_UP} s"
        path = folder / output if output else None
        if (moment == "process" and seen or moment == "workers" and any(map(is_worker, seen.values()))
                or moment == "output" and path.exists()
                or moment == "result" and path.exists() and path.stat().st_size):
            return
        time.sleep(0.01)


def kill_at(folder, command, moment, delay, started):
    """SIGKILL `command` `delay` seconds after `moment`; the processes it had started
    (those seen as its children, and any other of its session)."""
    args, output = COMMANDS[command]
    p = start(folder, args, started)
    seen = {}
    reach(p, folder, output, moment, seen)
    end = time.monotonic() + delay
    while time.monotonic() < end:             # collecting the children started meanwhile
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(p.pid).children(recursive=True):
                seen.setdefault(child.pid, child)
        time.sleep(0.01)
    with contextlib.suppress(psutil.Error):
        for child in psutil.Process(p.pid).children(recursive=True):
            seen.setdefault(child.pid, child)
    p.kill()
    p.wait(timeout=10)
    return list(seen.values()) + [proc for proc in session(p.pid) if proc.pid not in seen]


def left(processes):
    """What is alive of `processes`, to read in an assertion."""
    alive = []
    for proc in processes:
        with contextlib.suppress(psutil.Error):
            if proc.status() != psutil.STATUS_ZOMBIE:
                alive.append(" ".join(proc.cmdline())[:100])
    return alive


# The moments of a kill: as the first worker appears (before it took a task), and 0.25 s
# after the output file appears or the first worker (still starting, or on its first task).
KILLS = [(command, moment, delay) for command, (_, output) in COMMANDS.items()
         for moment, delay in (("workers", 0.0), ("output" if output else "workers", 0.25))]


@pytest.mark.slow
@pytest.mark.parametrize("command,moment,delay", KILLS)
def test_no_process_outlives_a_killed_run_by_5_seconds(folder, started, command, moment, delay):
    processes = kill_at(folder, command, moment, delay, started)
    assert gone(processes, 5), left(processes)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_signal_as_a_run_starts_its_workers_says_one_line(folder, started, command, signum):
    """SIGTERM to the run, or Ctrl-C (SIGINT to its process group, workers included), at
    start-up (its first child started): exit status 128 + the signal, the one line of
    the interruption, no traceback (from the run, a worker or a tracker), nothing left."""
    args, output = COMMANDS[command]
    p = start(folder, args, started, stderr=subprocess.PIPE)
    seen = {}
    reach(p, folder, output, "process", seen)
    if signum == signal.SIGINT:
        os.killpg(p.pid, signum)
    else:
        p.send_signal(signum)
    _, err = p.communicate(timeout=60)
    lines = [line for line in err.replace("\r", "\n").splitlines()
             if line.strip() and not PROGRESS.search(line)]
    assert p.returncode == 128 + signum, err
    assert "Traceback" not in err and len(lines) == 1, err
    assert lines[0].startswith(f"tigris {command}: interrupted"), err
    assert gone(list(seen.values()) + session(p.pid), 5)


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_as_the_workers_start_is_handled_once_they_have_started(name):
    """Ctrl-C or SIGTERM (which the command line turns into KeyboardInterrupt) arriving
    while a worker process starts waits until the start-up is over, even when another
    thread (tqdm's monitor) receives it: breaking into loky there gave tracebacks."""
    code = f"""
import os, signal, threading, time
from joblib import delayed
from joblib.externals.loky.backend import popen_loky_posix
from tigris._plumbing import parallel

def interrupt(signum, frame):
    raise KeyboardInterrupt

launch = popen_loky_posix.Popen._launch

def launch_interrupted(self, process_obj):
    try:
        os.kill(os.getpid(), signal.{name})
        time.sleep(0.2)                      # time enough for its handler to run
        launch(self, process_obj)
        print("started", flush=True)
    except KeyboardInterrupt:
        print("the start-up was interrupted", flush=True)
        raise

popen_loky_posix.Popen._launch = launch_interrupted
signal.signal(signal.SIGINT, signal.default_int_handler)    # even if started ignoring it
signal.signal(signal.SIGTERM, interrupt)
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
try:
    parallel.run(2, [delayed(pow)(2, k) for k in range(4)])
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""
    r = python(code)
    assert r.stdout == "started\nstarted\ninterrupted\n" and "Traceback" not in r.stderr, r


def start_tournament(folder, started):
    """The tournament of COMMANDS; returns the process once its first game is saved, with
    every process it started."""
    args, output = COMMANDS["tournament"]
    p = start(folder, args, started, stderr=subprocess.PIPE)
    seen = {}
    reach(p, folder, output, "result", seen)
    children = list(seen.values())
    assert len(children) >= 2                          # the two workers (and resource trackers)
    return p, children, folder / output


def saved_games(path):
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(r["format"] == "tigris-game/1" and r["result"] for r in records)
    return records


def test_sigterm_stops_a_tournament_and_its_workers_and_keeps_the_games(folder, started):
    p, children, games = start_tournament(folder, started)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=10)
    assert p.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in err
    last = err.replace("\r", "\n").splitlines()[-1]
    assert last.startswith("tigris tournament: interrupted: ") and "--resume out" in last
    assert gone(children, 5)
    n = len(saved_games(games))
    assert 1 <= n < 12 and f"{n} finished games are saved" in last


def test_workers_end_themselves_when_the_run_is_killed(folder, started):
    p, children, games = start_tournament(folder, started)
    p.kill()
    p.wait(timeout=10)
    assert gone(children, 5)
    assert saved_games(games)


def test_a_worker_whose_parent_is_gone_as_it_starts_exits_at_once():
    """``watch`` in a process whose parent is already another (it died while the process
    started, and init adopted it) ends it; with its real parent, the process goes on."""
    code = """
import os
from tigris._plumbing import parallel
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
from tigris._plumbing import parallel
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


@pytest.mark.parametrize("command, marker, stream", [
    (["play", "--bots", "endless.toml", "random"], "--- turn 0", "stdout"),
    (["tournament", "--bots", "endless.toml", "random", "--games", "2", "--jobs", "1", "--out", "t"],
     "tournament", "stderr"),
    (["tournament", "--bots", "endless-workers.toml", "random", "--games", "2", "--jobs", "2",
      "--out", "t2"], "tournament", "stderr"),
])
@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_does_not_wait_out_a_bots_ten_minute_move(tmp_path, command, marker, stream, signum):
    """Ctrl-C (to the whole terminal's group) or SIGTERM (to the command alone) during a
    bot's move of ten minutes ends the command at once, saying so, with no process left."""
    from processes import interrupt

    (tmp_path / "endless.toml").write_text('kind = "ismcts"\nseconds = 600.0\n')
    (tmp_path / "endless-workers.toml").write_text('kind = "ismcts"\nseconds = 600.0\nworkers = 2\n')
    args = ["-m", "tigris", *[str(tmp_path / a) if a.startswith(("endless", "t")) and a != "tournament"
                              else a for a in command]]
    # Ctrl-C reaches the terminal's whole group; SIGTERM the command alone
    code, out, err, left = interrupt(args, marker, stream=stream, delay=2.0, timeout=30,
                                               signum=signum, group=signum == signal.SIGINT)
    assert code == 128 + signum, (code, err[-2000:])
    assert "interrupted" in err.replace("\r", "\n").splitlines()[-1] and "Traceback" not in err
    assert left == []


# Runs short enough to finish, as run in `folder`, with their output files.
TO_THE_END = {
    "tournament": (["tournament", "--bots", "slow.toml", "random", "--games", "6", "--jobs", "2",
                    "--out", "out"], "out/games.jsonl"),
    "match": (["match", "slow.toml", "random", "--max-games", "6", "--jobs", "2", "--out", "match"],
              "match/games.jsonl"),
    "selfplay": (["selfplay", "--bot", "slow.toml", "--games", "4", "--positions", "2",
                  "--label-iterations", "100", "--jobs", "2", "--out", "data"], "data/positions.jsonl"),
}


@pytest.mark.slow
@pytest.mark.parametrize("command", TO_THE_END)
def test_a_worker_killed_mid_game_loses_no_game(folder, started, command):
    """SIGKILL to a worker as it plays (killed by hand, or for want of memory): the games
    under way are played again, a warning names them, and the run ends as it would have:
    status 0, every game in its file, none failed, no traceback."""
    args, output = TO_THE_END[command]
    p = start(folder, args, started, stderr=subprocess.PIPE)
    reach(p, folder, output, "result", {})             # both workers busy with the next games
    worker = next(proc for proc in psutil.Process(p.pid).children(recursive=True) if is_worker(proc))
    worker.kill()
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0 and "Traceback" not in err, err[-3000:]
    assert re.search(rf"tigris {command}: warning: a worker process died \(killed \(SIGKILL\): "
                     r"out of memory, or killed by hand\) during game \d+.*: (it is|each is) run "
                     r"again, alone", err), err[-3000:]
    lines = [json.loads(line) for line in (folder / output).read_text().splitlines()]
    assert lines and all("error" not in line for line in lines)
    games = [line["game"] for line in lines]
    assert len(set(games)) == len(games)
    if command != "match":                              # a match may stop once it has decided
        assert sorted(games) == list(range(6 if command == "tournament" else 4))
