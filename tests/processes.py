"""Python in a child process: for inputs that might crash the interpreter (a crash then
fails the test instead of ending the run), and for interrupting a running search the way
Ctrl-C in a terminal does (SIGINT to the whole process group, workers included)."""

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from waiting import until

ROOT = Path(__file__).resolve().parent.parent


def tool(name):
    """The script ``tools/NAME.py`` imported as a module, for its functions and ``main``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def dask_cluster(nthreads=1):
    """A dask scheduler and one worker process of `nthreads` threads, each a process of
    its own (so that a test can kill the scheduler mid-run), up and connected: yields
    ``(address, scheduler process)``; both are killed on the way out."""
    import socket

    import pytest

    distributed = pytest.importorskip("dask.distributed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                                  "127.0.0.1", "--port", str(port), "--no-dashboard"], **quiet)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                               "--nthreads", str(nthreads), "--nworkers", "1", "--no-dashboard",
                               "--death-timeout", "5"], **quiet)
    try:
        with distributed.Client(address, timeout="180s") as client:
            client.wait_for_workers(1, timeout=180)     # a worker process starting on loaded cores
        yield address, scheduler
    finally:
        for process in (scheduler, worker):
            process.kill()
            process.wait()


def _env():
    """The child imports the same tigris as this process."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))


def python(code, timeout=120):
    """Run `code` in a fresh interpreter; the CompletedProcess (text output)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, env=_env(), cwd=ROOT)


def command(args, timeout=300, cwd=ROOT):
    """Run ``python ARGS`` (such as ``["-m", "tigris", ...]``) to its end in the folder
    `cwd`; the CompletedProcess (text output)."""
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=_env(), cwd=cwd)


def script(path, *args, cwd, timeout=300):
    """Run the Python script `path` with `args` in the folder `cwd`; the CompletedProcess
    (text output)."""
    return subprocess.run([sys.executable, str(path), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=_env(), cwd=cwd)


def interrupt(args, marker, stream="stdout", delay=1.0, timeout=30, signum=signal.SIGINT, group=True):
    """Start ``python ARGS`` in a session of its own, wait until `marker` appears on
    `stream`, wait `delay` seconds more, send SIGINT (or `signum`) to its process group
    (or, `group` False, to it alone) and wait for it to end.  Returns (returncode,
    stdout, stderr, left): `left` lists the session's processes still alive a few
    seconds later (workers that outlived their parent).
    A process that does not end within `timeout` seconds is killed, session and all, and
    its returncode is None."""
    p = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=_env(), cwd=ROOT, start_new_session=True, preexec_fn=as_in_a_terminal)
    watched = p.stdout if stream == "stdout" else p.stderr
    seen, left = b"", []
    deadline = time.monotonic() + 120
    try:
        while marker.encode() not in seen:
            ready, _, _ = select.select([watched], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(watched.fileno(), 4096) if ready else b""
            if not chunk:
                raise AssertionError(f"{marker!r} never appeared; exit status {p.poll()}, "
                                     f"{stream}: {seen[-2000:]!r}")
            seen += chunk
        time.sleep(delay)
        (os.killpg if group else os.kill)(p.pid, signum)
        try:
            out, err = p.communicate(timeout=timeout)
            code = p.returncode
            left = _alive(p.pid)
        except subprocess.TimeoutExpired:
            code = None
            out, err = b"", b""
    finally:
        _kill_session(p.pid)
        if p.poll() is None:
            p.wait()
    if stream == "stdout":
        out = seen + out
    else:
        err = seen + err
    return code, out.decode(errors="replace"), err.decode(errors="replace"), left


def kill_when(args, ready, signum=signal.SIGKILL, timeout=120):
    """Start ``python ARGS`` in a session of its own, wait until ``ready()`` holds (looked
    at every 10 ms), send `signum` to its process group and wait for it to end.  Returns
    (returncode, left): `left` lists the session's processes still alive a few seconds
    later.  A run that ends first, or never gets there, fails the test."""
    p = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=_env(), cwd=ROOT, start_new_session=True, preexec_fn=as_in_a_terminal)
    try:
        deadline = time.monotonic() + timeout
        while not ready():
            assert p.poll() is None, f"the run ended (status {p.returncode}) before the moment came"
            assert time.monotonic() < deadline, f"the moment did not come within {timeout} s"
            time.sleep(0.01)
        os.killpg(p.pid, signum)
        p.wait(timeout=30)
        left = _alive(p.pid)
    finally:
        _kill_session(p.pid)
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode, left


def as_in_a_terminal():
    """In the child before it starts (``preexec_fn``): SIGINT as a terminal gives it.  A
    test run started in the background by a shell without job control ignores SIGINT, and
    its children would inherit that (Python then installs no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ctrl_c(process, timeout=20):
    """Send `process` SIGINT and return its exit code; killed if it has not ended within
    `timeout` seconds (then subprocess.TimeoutExpired), so that no test leaves it behind."""
    process.send_signal(signal.SIGINT)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise


def _session_members(sid):
    """(pid, state, command line) of the processes in session `sid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid:
            found.append((int(entry.name), fields[0], cmd))
    return found


def _alive(sid, wait=10.0):
    """The session's live (not zombie) processes, after giving them `wait` seconds to go."""
    def left():
        return [m for m in _session_members(sid) if m[1] not in ("Z", "X")]

    return [] if until(lambda: not left(), wait, every=0.2, fail=False) else left()


def _kill_session(sid):
    """Kill whatever a timed-out test left running in session `sid`."""
    for pid, state, _ in _session_members(sid):
        if state not in ("Z", "X"):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
