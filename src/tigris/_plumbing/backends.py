"""Where a run's tasks go: worker processes on this machine (loky) or a dask.distributed
cluster.  Tournaments and self-play choose it alike (``--backend``, ``--scheduler``).

>>> from joblib import delayed
>>> from tigris._plumbing.backends import Backend
>>> from tigris._plumbing.work import Run
>>> with Backend("loky", jobs=2) as backend, Run(backend.workers, progress=False) as run:
...     run.tasks([delayed(abs)(-k) for k in range(3)], print, errors=backend.lost("nothing"))
0
1
2

With ``Backend("dask", scheduler="tcp://host:8786")`` the same tasks go to the cluster's
workers: joblib talks to that scheduler alone, and its logging is held back for the run,
so a lost scheduler is reported once, in the caller's words (``lost``), not as the
client's tracebacks.
"""

import contextlib
import gc
import logging
import os

from tigris.errors import TournamentError, UsageError, excerpt, install_hint

__all__ = ["BACKENDS", "Backend"]

BACKENDS = ("loky", "dask")        # this machine's processes; a dask.distributed cluster
CONNECT_TIMEOUT = "10s"            # how long to wait for a scheduler's answer


class Backend:
    """A context in which ``work.Run`` sends its tasks to backend `name`: `jobs` worker
    processes here (default all cores), or the cluster of the dask scheduler `scheduler`
    (an address, or a ``distributed.Client``, which is left open)."""

    def __init__(self, name="loky", jobs=None, scheduler=None):
        if name not in BACKENDS:
            raise UsageError(f"unknown backend {excerpt(name)}: use loky (this machine) or dask")
        if scheduler is not None and name != "dask":
            raise UsageError("--scheduler names the dask scheduler: give --backend dask with it")
        if name == "dask" and scheduler is None:
            raise UsageError("the dask backend needs --scheduler ADDRESS (e.g. tcp://host:8786)")
        self.name = name
        self.scheduler = scheduler
        self.jobs = jobs or os.cpu_count() or 1
        self.client = None
        self._stack = None

    @property
    def workers(self):
        """The ``jobs`` to give ``work.Run``: the cluster's workers decide with dask."""
        return -1 if self.name == "dask" else self.jobs

    def __enter__(self):
        from joblib import parallel_config   # imported when work runs: the command line stays quick

        stack = contextlib.ExitStack()
        if self.name == "dask":
            self.client = _client(self.scheduler)
            # the dask client logs a lost scheduler with tracebacks from its own thread
            # (also while it closes); the run reports it in one line (``lost``)
            logging.disable(logging.CRITICAL)
            stack.callback(logging.disable, logging.NOTSET)
            if not hasattr(self.scheduler, "submit"):             # ours to close
                stack.callback(_close, self.client)
            # this client alone: without it joblib would ask dask for a default client, and
            # a lost scheduler would move the run onto a new local cluster without a word
            stack.enter_context(parallel_config(backend="dask", client=self.client))
        else:
            stack.enter_context(parallel_config(backend="loky", n_jobs=self.jobs))
        self._stack = stack
        return self

    def __exit__(self, *exc):
        self._stack.close()

    def lost(self, kept):
        """The ``errors`` function for ``work.Run.tasks``: with dask, a scheduler or a
        connection lost mid-run as one TournamentError that says what is `kept` (a
        function giving the text, or the text); otherwise the error as it is."""
        def error(e):
            if self.client is None:
                return None
            said = kept() if callable(kept) else kept
            return TournamentError(f"lost the dask scheduler at {self.address} "
                                   f"({type(e).__name__}): {said}")
        return error

    @property
    def address(self):
        if isinstance(self.scheduler, str):
            return self.scheduler
        return str(getattr(getattr(self.client, "scheduler", None), "address", "") or "the cluster")


def _client(scheduler):
    try:
        from dask.distributed import Client
    except ImportError:
        raise TournamentError("the dask backend needs dask.distributed: "
                              f"{install_hint('distributed')}") from None
    if hasattr(scheduler, "submit"):
        return scheduler
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT)
    except Exception as e:            # a bad address, a protocol without its keys, no answer
        detail = " ".join(str(e).split()) or type(e).__name__
    # The client that failed lives on in a reference cycle, and whenever the garbage
    # collector ends it, its __del__ takes the lock that every dask client's start holds:
    # inside the next client's start that is a deadlock.  It ends here, outside any start.
    gc.collect()
    raise TournamentError(f"cannot reach the dask scheduler at {excerpt(scheduler)}: "
                          f"{detail[:200]}")


def _close(client):
    with contextlib.suppress(Exception):
        client.close(timeout=5)
