"""Worker processes that do not outlive the run that started them.

joblib's loky workers wait for work for minutes after their parent is gone, and a busy
one plays its game to the end first: a tournament killed with SIGKILL (or dying of any
signal it cannot catch) would leave them running.  Every task sent to local worker
processes therefore goes through :func:`call`, which starts, once per worker, a thread
that ends the worker as soon as the process that sent the task has exited.

>>> from joblib import Parallel, delayed
>>> import os
>>> Parallel(n_jobs=2)(delayed(call)(os.getpid(), pow, 2, k) for k in range(4))
[1, 2, 4, 8]
"""

import os
import signal
import threading
import time
import warnings
from contextlib import contextmanager
from multiprocessing import resource_tracker

from joblib import Parallel

POLL = 0.2           # seconds between two looks at the parent

# loky's resource tracker, a process of its own, warns as it exits about the semaphores of
# workers stopped while they started (a run interrupted at once); it has cleaned them up,
# and the warning would follow the run's own one-line report of the interruption.
QUIET_TRACKER = "ignore::UserWarning:joblib.externals.loky.backend.resource_tracker"

_watching = None     # the parent pid this process watches, once its thread runs
_previous_hook = None  # threading.excepthook before _quiet_shutdown_race
_lock = threading.Lock()


def run(n_jobs, tasks, generator=False):
    """``joblib.Parallel(n_jobs)`` over `tasks` (``delayed(fn)(...)`` calls): a list of
    results, or a generator of them.  Each task goes through :func:`call`, so the workers
    end with this process; and they start with SIGINT blocked, leaving Ctrl-C to this
    process, which has joblib stop them (a terminal's Ctrl-C signals the whole process
    group, and a worker interrupted while it starts prints a traceback of its own)."""
    parent = os.getpid()
    wrapped = [(call, (parent, fn) + tuple(args), kwargs) for fn, args, kwargs in tasks]
    _quiet_shutdown_race()
    _quiet_tracker()
    with _sigint_blocked():
        runs = Parallel(n_jobs=n_jobs, return_as="generator")(wrapped)    # starts the workers
    return runs if generator else list(runs)


def _quiet_shutdown_race():
    """Installed once: loky's manager thread can raise a KeyError when its executor is
    shut down while it queues work (a run interrupted as its workers start), and prints a
    traceback although joblib has stopped the run cleanly and the interruption is
    reported.  Every other exception of every thread still reaches the previous hook."""
    global _previous_hook
    with _lock:
        if _previous_hook is not None:
            return
        _previous_hook = threading.excepthook
    previous = _previous_hook

    def hook(args):
        if args.exc_type is KeyError and getattr(args.thread, "name", "") == "ExecutorManagerThread":
            return
        previous(args)

    threading.excepthook = hook


def _quiet_tracker():
    """The warning filter QUIET_TRACKER for the processes started from now on (the
    tracker reads it from its environment)."""
    filters = os.environ.get("PYTHONWARNINGS", "")
    if QUIET_TRACKER not in filters.split(","):
        os.environ["PYTHONWARNINGS"] = f"{filters},{QUIET_TRACKER}" if filters else QUIET_TRACKER


@contextmanager
def _sigint_blocked():
    """SIGINT held back in this thread (so in the processes and threads it starts); one
    that arrives meanwhile is delivered on leaving."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # Starting its process, the standard library's resource tracker (which joblib's workers
    # use) unblocks SIGINT in Python 3.11, whatever the mask was: start it first.
    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def call(parent, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` in a worker of process `parent` (pass ``os.getpid()``
    from the process that starts the workers); the worker exits when `parent` does.
    Run in `parent` itself (joblib runs a single job in-process), this is a plain call."""
    watch(parent)
    return fn(*args, **kwargs)


def watch(parent):
    """End this process when `parent`, its parent process, is gone.  Does nothing in
    `parent` itself, in a process that `parent` did not start directly (a dask worker:
    its parent is the nanny), or when already watching."""
    global _watching
    with _lock:
        if _watching == parent or parent == os.getpid() or os.getppid() != parent:
            return
        _watching = parent
    threading.Thread(target=_watch, args=(parent,), name="tigris-parent-watch", daemon=True).start()


def _watch(parent):
    # An orphan is adopted by init or a subreaper, so the parent pid changes when the
    # parent exits, however it died.  os._exit: the results can no longer be delivered,
    # and exit handlers could wait on the queues of the dead parent.
    while os.getppid() == parent:
        time.sleep(POLL)
    os._exit(1)


def stop(results):
    """Stop the workers of an interrupted ``Parallel(return_as="generator...")``.  An
    interruption inside the generator has already done so; one between two results (in
    the caller's loop) has not, and closing the generator does it, without joblib's
    warning about the tasks left undone."""
    if results is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.close()
