"""Waiting in the tests on a condition, never on a fixed sleep: ``until(condition)`` looks
every ``every`` seconds until the condition holds and returns what it returned, or fails
after ``timeout`` seconds naming what it waited for and what it saw last.

>>> until(lambda: 3, what="a number")
3

A wait that may end either way (a process that should go, a state that may come) passes
``fail=False`` and gets the last value back instead of an AssertionError.
"""

import time

EVERY = 0.05            # seconds between looks: short against any step a test waits for


def until(condition, timeout=60.0, every=EVERY, what=None, fail=True):
    """What ``condition()`` returns once it is true, looked at every `every` seconds.

    After `timeout` seconds: an AssertionError naming `what` (or the condition) and the
    last value, or, with ``fail=False``, that last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            if not fail:
                return value
            name = what or getattr(condition, "__name__", "a condition")
            raise AssertionError(f"waited {timeout:g} s for {name}; last seen: {value!r}")
        time.sleep(every)


def gone(processes, seconds):
    """Whether every one of `processes` (psutil processes) has exited within `seconds`: a
    zombie waiting to be reaped has."""
    import psutil

    def alive():
        left = []
        for proc in processes:
            try:
                if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                    left.append(proc)
            except psutil.Error:
                pass
        return left

    return until(lambda: not alive(), seconds, every=0.1, fail=False)
