"""A run's tasks in worker processes, each result kept as soon as it is back.

Tournaments, matches, tuning and analysis run their work alike: the caller lists what
is still to do (what its output file already holds is done), the tasks go to the
workers through ``parallel.run`` (the active joblib backend: loky, or dask), one
progress bar on stderr counts them, and each result goes to the caller's `save` as it
comes, which appends it to the output at once: a killed run loses nothing finished.
The caller may stop early (`until`: a match the SPRT has decided).  Ctrl-C or SIGTERM
(which the command line turns into KeyboardInterrupt) stops the workers and reaches the
caller, which says in one line what is kept.

A worker process that dies (killed by hand or for want of memory, or a crash of the
compiled core) takes with it every task under way: loky ends all its workers when one
dies.  The tasks that had started are then run again one at a time, each alone on the
workers (so a second death is that task's own, and it has the machine's memory to
itself), and the others as before; a warning names them.  A task whose worker dies
again goes to the caller's `died`, which says what the run makes of it (a game
recorded as failed, or the run stopped in one line).

>>> from joblib import delayed
>>> from tigris._plumbing.work import Run
>>> powers = []
>>> with Run(jobs=2, progress=False, total=4, desc="powers", unit="task") as run:
...     run.tasks([delayed(pow)(2, k) for k in range(4)], powers.append)
>>> powers
[1, 2, 4, 8]
"""

import contextlib
import os
import re
import shutil
import sys
import tempfile
import threading
import warnings
from collections import deque

from tigris.errors import TournamentError

__all__ = ["Run", "how_it_died", "tasks_cpu_seconds"]

# The CPU seconds of the tasks this process ran itself (a run of one job runs them here,
# not in a worker): what a caller that measures its own CPU time leaves out of it.
_tasks_cpu = [0.0]


def tasks_cpu_seconds():
    """The CPU seconds of the tasks of ``Run.tasks`` that this process ran itself so far
    (with one job, joblib runs them here), their results' own to count."""
    return _tasks_cpu[0]


class Run:
    """One progress bar over one or more batches of tasks (``tasks``), run by `jobs`
    workers; the keywords `bar` go to tqdm (``total``, ``initial``, ``desc``, ``unit``,
    ``smoothing``), and `progress` False hides it.  Its ``bar`` is the tqdm bar, which
    the caller's `save` advances as it counts the results."""

    def __init__(self, jobs, progress=True, **bar):
        self.jobs = jobs
        self.progress = progress
        self.bar_settings = bar
        self.bar = None

    def __enter__(self):
        from tqdm import tqdm          # imported when a run starts: ``import tigris`` stays light

        self.bar = tqdm(disable=not self.progress, file=sys.stderr, **self.bar_settings)
        return self

    def __exit__(self, *exc):
        self.bar.close()

    def tasks(self, tasks, save, ordered=True, until=None, errors=None, name=None, died=None):
        """Run `tasks` (``delayed(fn)(...)`` calls) and call ``save(result)`` for each
        result as it comes: in the tasks' order, or as they finish (`ordered` False).
        After each result, ``until()`` (if given) True stops the run: the workers are
        stopped and the tasks left are not run.  `errors`, a function of an exception
        raised by the workers (not by `save`), may return the exception to raise in its
        place (a lost cluster said in the caller's words), as may one raised while the
        tasks are sent (a run of several batches finds a cluster lost between two); None
        raises it as it is.  On KeyboardInterrupt the workers are stopped and it is raised
        again.

        A worker that dies (see the module's docstring) has the tasks under way run
        again, alone, with a warning naming each (``name(task)``, default "task N", N
        counted from 1); one whose worker dies again is given to ``died(task, why)``
        (`why`: "its worker process died twice (...)"), which returns the result to save
        in its place or raises; by default a TournamentError naming the task."""
        from tigris._plumbing import parallel    # and joblib with it, when tasks are run

        marks = tempfile.mkdtemp(prefix="tigris-tasks-")   # a task's file while it runs
        plan = deque([(False, iter(enumerate(tasks)))])      # (alone, its (index, task)s)
        try:
            while plan:
                alone, items = plan.popleft()
                sending = _Sending(items, marks)
                results = death = None
                try:
                    try:
                        results = _started(self.jobs, iter(sending), ordered, errors)
                        for index, value in _received(results, errors):
                            sending.back(index)
                            if self._keep(value, save, until):
                                parallel.stop(results)
                                return
                    except _Died as e:
                        death = how_it_died(e.error)
                except KeyboardInterrupt:
                    parallel.stop(results)
                    raise
                if death is None:
                    continue
                lost = sending.lost()
                if not alone:
                    again = self._again(lost, marks, name, death)
                    plan.extendleft(reversed(again + [(False, items)]))
                elif lost:                   # its second death, and its own
                    (index, task), = lost.items()
                    why = f"its worker process died twice ({death})"
                    if died is None:
                        raise TournamentError(f"{_name(name, index, task)}: {why}")
                    if self._keep(died(task, why), save, until):
                        return
        finally:
            shutil.rmtree(marks, ignore_errors=True)

    def _keep(self, value, save, until):
        """Save a result; whether the run is to stop (`until`)."""
        save(value)
        return until is not None and until()

    def _again(self, sent, marks, name, how):
        """The tasks `sent` and lost with a dead worker, in their order, as parts of the
        plan: each that had started (its mark in `marks`) alone, the others together.
        When none had started (a worker died taking in its task), each is run alone:
        any of them may be to blame, and a task is run together only until its first
        death."""
        marked = {index for index in sent if os.path.exists(os.path.join(marks, str(index)))}
        suspects = marked or set(sent)
        again, together, started = [], [], []
        for index in sorted(sent):
            if index in suspects:
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(marks, str(index)))
                if together:
                    again.append((False, iter(together)))
                    together = []
                again.append((True, iter([(index, sent[index])])))
                started.append(_name(name, index, sent[index]))
            else:
                together.append((index, sent[index]))
        if together:
            again.append((False, iter(together)))
        if started:
            with self.bar.external_write_mode():
                warnings.warn(f"a worker process died ({how}) during {_and(started)}: "
                              f"{'each is' if len(started) > 1 else 'it is'} run again, alone",
                              stacklevel=3)
        return again


class _Died(Exception):
    """A worker process died: `error` is loky's TerminatedWorkerError."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def how_it_died(e):
    """How the worker of a TerminatedWorkerError `e` ended, in words: "killed (SIGKILL):
    out of memory, or killed by hand", "SIGSEGV", or "ended"."""
    found = re.search(r"exit codes of the workers are \{([^}]*)\}", str(e))
    codes = [c.split("(")[0].strip() for c in found.group(1).split(",")] if found else []
    codes = [c for c in dict.fromkeys(codes) if c]
    if codes == ["SIGKILL"]:
        return "killed (SIGKILL): out of memory, or killed by hand"
    return ", ".join(codes) or "ended"


def _a_worker_died(e):
    """Whether `e` says a loky worker process died (the executor then ended them all)."""
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    return isinstance(e, TerminatedWorkerError)


class _Sending:
    """The tasks of `items` (``(index, task)``) as joblib takes them, each run by
    ``_run_marked`` and noted in ``sent`` as it is taken.  After a worker's death,
    ``lost()`` stops the sending and gives what was sent and did not come back: joblib
    may still be taking a task in one of its threads, which the lock orders before or
    after, never lost between."""

    def __init__(self, items, marks):
        self.items, self.marks = items, marks
        self.sent = {}                 # index: task, of the tasks sent and not back
        self.stopped = False
        self.lock = threading.Lock()

    def __iter__(self):
        from joblib import delayed

        while True:
            with self.lock:
                if self.stopped:
                    return
                taken = next(self.items, None)
                if taken is None:
                    return
                index, (fn, args, kwargs) = taken
                self.sent[index] = (fn, args, kwargs)
            yield delayed(_run_marked)(self.marks, index, fn, args, kwargs)

    def back(self, index):
        """Task `index` is back."""
        with self.lock:
            del self.sent[index]

    def lost(self):
        """Stop sending; the tasks sent and not back, by index."""
        with self.lock:
            self.stopped = True
            return dict(self.sent)


def _run_marked(marks, index, fn, args, kwargs):
    """In a worker: ``fn(*args, **kwargs)``, with the file `marks`/`index` there while it
    runs (a worker on another machine has no such folder: its tasks are not marked), its
    CPU time counted (``tasks_cpu_seconds``).  Returns ``(index, result)``."""
    import time

    mark = os.path.join(marks, str(index))
    try:
        open(mark, "x").close()
    except OSError:
        mark = None
    began = time.process_time()
    try:
        result = fn(*args, **kwargs)
    finally:
        _tasks_cpu[0] += time.process_time() - began
    if mark is not None:
        with contextlib.suppress(OSError):
            os.remove(mark)
    return index, result


def _name(name, index, task):
    return name(task) if name is not None else f"task {index + 1}"


def _and(names):
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _started(jobs, tasks, ordered, errors):
    """``parallel.run`` of `tasks` as a generator; a worker's death as _Died, any other
    exception through `errors`."""
    from tigris._plumbing import parallel

    try:
        return parallel.run(jobs, tasks, generator=True, ordered=ordered)
    except Exception as e:
        if _a_worker_died(e):
            raise _Died(e) from None
        _instead(e, errors)


def _received(results, errors):
    """The results as they come; a worker's death as _Died, any other exception from
    the workers through `errors`."""
    while True:
        try:
            result = next(results)
        except StopIteration:
            return
        except Exception as e:
            if _a_worker_died(e):
                raise _Died(e) from None
            _instead(e, errors)
        yield result


def _instead(e, errors):
    """Raise `e`, or what ``errors(e)`` gives in its place."""
    instead = errors(e) if errors is not None else None
    if instead is None:
        raise e
    raise instead from None
