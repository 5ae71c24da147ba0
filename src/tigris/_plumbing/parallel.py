"""Worker processes that do not outlive the run that started them.

joblib's loky workers wait for work for minutes after their parent is gone, and a busy
one plays its game to the end first: a tournament killed with SIGKILL (or dying of any
signal it cannot catch) would leave them running, and with them the resource trackers
that loky and multiprocessing start (each ends once no process holds its pipe).  Every
command therefore starts its workers through :func:`run`, which has each local worker
run :func:`watch` as it starts (loky's ``initializer``, before it takes any task): a
thread that ends the worker as soon as the process that started it has exited.

>>> from joblib import delayed
>>> run(2, [delayed(pow)(2, k) for k in range(4)])
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

__all__ = ["run", "stop", "watch", "QUIET_TRACKER"]

POLL = 0.2           # seconds between two looks at the parent

# loky's resource tracker, a process of its own, warns as it exits about the semaphores of
# workers stopped while they started (a run interrupted at once); it has cleaned them up,
# and the warning would follow the run's own one-line report of the interruption.
QUIET_TRACKER = "ignore::UserWarning:joblib.externals.loky.backend.resource_tracker"

# Held back while the workers start: SIGINT for good in the workers (Ctrl-C is the
# parent's to handle), SIGTERM only until they watch their parent.
START_UP_SIGNALS = {signal.SIGINT, signal.SIGTERM}

_previous_hook = None  # threading.excepthook before _quiet_shutdown_race
_lock = threading.Lock()


def run(n_jobs, tasks, generator=False, ordered=True):
    """``joblib.Parallel(n_jobs)`` over `tasks` (``delayed(fn)(...)`` calls): a list of
    results, or a generator of them (``ordered=False``: in the order they finish).  The
    active joblib backend is used (``joblib.parallel_config``: loky by default, or dask).
    Local workers run :func:`watch` as they start, so they end with this process however
    it ends; and they start with SIGINT blocked, leaving Ctrl-C to this process, which
    has joblib stop them (a terminal's Ctrl-C signals the whole process group, and a
    worker interrupted while it starts prints a traceback of its own).  Each call may
    reuse the workers of the previous one."""
    _quiet_shutdown_race()
    _quiet_tracker()
    runs = None
    try:
        with _start_up_signals_held():
            # starts the workers (or reuses those of the last run) and sends the first tasks
            runs = Parallel(n_jobs=n_jobs, return_as="generator" if ordered else "generator_unordered",
                            initializer=watch, initargs=(os.getpid(),))(tasks)
        return runs if generator else list(runs)
    except KeyboardInterrupt:        # held back during the start-up, or in list(runs)
        stop(runs)
        raise


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
def _start_up_signals_held():
    """START_UP_SIGNALS held back while the workers start; one that arrives meanwhile is
    handled on leaving.  Blocked in this thread, so in the processes and threads it
    starts; and their handlers here deferred, since the kernel hands a signal to any
    thread that does not block it (tqdm's monitor, a pool's threads), and Python then
    runs the handler in the main thread at once.  A SIGTERM (which the command line
    turns into KeyboardInterrupt) would break into loky as it starts a process or a
    thread, and loky's clean-up then fails with a traceback of its own."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # Starting its process, the standard library's resource tracker (which joblib's workers
    # use) unblocks SIGINT in Python 3.11, whatever the mask was: start it first.
    resource_tracker.ensure_running()
    handlers = {signum: signal.getsignal(signum) for signum in START_UP_SIGNALS}
    handlers = {signum: handler for signum, handler in handlers.items() if callable(handler)}
    arrived = []
    for signum in handlers:
        signal.signal(signum, lambda signum, frame: arrived.append(signum))
    old = signal.pthread_sigmask(signal.SIG_BLOCK, START_UP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(arrived):
            handlers[signum](signum, None)


def watch(parent):
    """End this process when `parent`, the process that started it, is gone: at once if
    it is gone already (it died while this worker started), else from a thread that
    looks every POLL seconds.  Run by each local worker of :func:`run` as it starts
    (never in a dask worker, whose parent is its nanny); SIGTERM, held back while the
    worker started, reaches it again."""
    if os.getppid() != parent:
        os._exit(1)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    threading.Thread(target=_watch, args=(parent,), name="tigris-parent-watch", daemon=True).start()


def _watch(parent):
    # An orphan is adopted by init or a subreaper, so the parent pid changes when the
    # parent exits, however it died.  os._exit: the results can no longer be delivered,
    # and exit handlers could wait on the queues of the dead parent.
    while os.getppid() == parent:
        time.sleep(POLL)
    os._exit(1)


def stop(results):
    """Stop the workers of an interrupted ``run(..., generator=True)``.  An
    interruption inside the generator has already done so; one between two results (in
    the caller's loop) has not, and closing the generator does it, without joblib's
    warning about the tasks left undone."""
    if results is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.close()
