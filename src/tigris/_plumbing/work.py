"""A run's tasks in worker processes, each result kept as soon as it is back.

Tournaments, matches, tuning and analysis run their work alike: the caller lists what
is still to do (what its output file already holds is done), the tasks go to the
workers through ``parallel.run`` (the active joblib backend: loky, or dask), one
progress bar on stderr counts them, and each result goes to the caller's `save` as it
comes, which appends it to the output at once: a killed run loses nothing finished.
The caller may stop early (`until`: a match the SPRT has decided).  Ctrl-C or SIGTERM
(which the command line turns into KeyboardInterrupt) stops the workers and reaches the
caller, which says in one line what is kept.

>>> from joblib import delayed
>>> from tigris._plumbing.work import Run
>>> powers = []
>>> with Run(jobs=2, progress=False, total=4, desc="powers", unit="task") as run:
...     run.tasks([delayed(pow)(2, k) for k in range(4)], powers.append)
>>> powers
[1, 2, 4, 8]
"""

import sys

__all__ = ["Run"]


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

    def tasks(self, tasks, save, ordered=True, until=None, errors=None):
        """Run `tasks` (``delayed(fn)(...)`` calls) and call ``save(result)`` for each
        result as it comes: in the tasks' order, or as they finish (`ordered` False).
        After each result, ``until()`` (if given) True stops the run: the workers are
        stopped and the tasks left are not run.  `errors`, a function of an exception
        raised by the workers (not by `save`), may return the exception to raise in its
        place (a lost cluster said in the caller's words), as may one raised while the
        tasks are sent (a run of several batches finds a cluster lost between two); None
        raises it as it is.  On KeyboardInterrupt the workers are stopped and it is raised
        again."""
        from tigris._plumbing import parallel    # and joblib with it, when tasks are run

        results = None
        try:
            try:
                results = parallel.run(self.jobs, tasks, generator=True, ordered=ordered)
            except Exception as e:
                _instead(e, errors)
            for result in _received(results, errors):
                save(result)
                if until is not None and until():
                    parallel.stop(results)
                    return
        except KeyboardInterrupt:
            parallel.stop(results)
            raise


def _received(results, errors):
    """The results as they come; an exception from the workers goes through `errors`."""
    while True:
        try:
            result = next(results)
        except StopIteration:
            return
        except Exception as e:
            _instead(e, errors)
        yield result


def _instead(e, errors):
    """Raise `e`, or what ``errors(e)`` gives in its place."""
    instead = errors(e) if errors is not None else None
    if instead is None:
        raise e
    raise instead from None
