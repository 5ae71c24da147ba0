"""The run of a command's tasks (``tigris.work.Run``): every result reaches the caller as
it comes, under one progress bar; the caller may stop early; Ctrl-C (KeyboardInterrupt)
stops the workers and reaches the caller; an exception of the workers may be said in
the caller's words."""

import contextlib
import time

import psutil
import pytest
from joblib import delayed

from tigris._plumbing.work import Run

from waiting import gone


def pause(k, seconds=0.2):
    time.sleep(seconds)
    return k


def fail(k):
    raise ValueError(f"task {k} failed")


def workers():
    """This process's worker processes (not the resource trackers)."""
    found = []
    for proc in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "resource_tracker" not in " ".join(proc.cmdline()):
                found.append(proc)
    return found


def test_every_result_reaches_save_in_order_under_one_bar_on_stderr(capsys):
    got = []

    def save(result):
        got.append(result)
        run.bar.update()

    with Run(2, progress=True, total=5, initial=1, desc="powers", unit="power") as run:
        run.tasks([delayed(pow)(2, k) for k in range(4)], save)
    assert got == [1, 2, 4, 8]
    out, err = capsys.readouterr()
    assert out == "" and "powers" in err and "5/5" in err and "power/s" in err


def test_as_they_finish_and_without_a_bar(capsys):
    got = []
    with Run(2, progress=False, total=6, desc="pauses", unit="task") as run:
        run.tasks([delayed(pause)(k, 0.3 - 0.05 * k) for k in range(6)], got.append,
                  ordered=False)
    assert sorted(got) == list(range(6))
    assert capsys.readouterr() == ("", "")


def test_several_batches_share_the_bar(capsys):
    got = []

    def save(result):
        got.append(result)
        run.bar.update()

    with Run(1, progress=True, total=4, desc="batches", unit="task") as run:
        run.tasks([delayed(pow)(3, k) for k in range(2)], save)
        run.tasks([delayed(pow)(3, k) for k in range(2, 4)], save)
    assert got == [1, 3, 9, 27]
    err = capsys.readouterr().err
    assert err.count("0/4") == 1 and "4/4" in err          # one bar, not one a batch


def test_until_stops_the_run_and_its_workers():
    got, seen = [], []

    def save(result):
        got.append(result)
        seen.extend(workers())

    with Run(2, progress=False) as run:
        run.tasks([delayed(pause)(k) for k in range(40)], save, until=lambda: len(got) == 3)
    assert got == [0, 1, 2]                       # nothing saved after the caller stopped
    assert seen and gone(seen, 5), "the workers outlived the run"


def test_keyboard_interrupt_stops_the_workers_and_is_raised_again():
    got, seen = [], []

    def save(result):
        seen.extend(workers())
        if len(got) == 2:
            raise KeyboardInterrupt
        got.append(result)

    with pytest.raises(KeyboardInterrupt):
        with Run(2, progress=False) as run:
            run.tasks([delayed(pause)(k) for k in range(40)], save)
    assert got == [0, 1]
    assert seen and gone(seen, 5), "the workers outlived the interruption"


def test_an_exception_of_the_workers_in_the_callers_words():
    with pytest.raises(RuntimeError, match="lost: ValueError"):
        with Run(1, progress=False) as run:
            run.tasks([delayed(fail)(0)], print,
                      errors=lambda e: RuntimeError(f"lost: {type(e).__name__}"))
    with pytest.raises(ValueError, match="task 0 failed"):     # None: raised as it is
        with Run(1, progress=False) as run:
            run.tasks([delayed(fail)(0)], print, errors=lambda e: None)


def test_an_exception_of_save_is_not_the_workers():
    def save(result):
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        with Run(1, progress=False) as run:
            run.tasks([delayed(pow)(2, 1)], save, errors=lambda e: RuntimeError("lost"))
