"""The run of a command's tasks (``tigris.work.Run``): every result reaches the caller as
it comes, under one progress bar; the caller may stop early; Ctrl-C (KeyboardInterrupt)
stops the workers and reaches the caller; an exception of the workers may be said in
the caller's words; a worker process killed (SIGKILL) has its task run again, alone,
and a task whose worker dies twice is the caller's to record or to stop on."""

import contextlib
import os
import signal
import time

import psutil
import pytest
from joblib import delayed

from tigris._plumbing.work import Run
from tigris.errors import TournamentError

from waiting import gone


def pause(k, seconds=0.2):
    time.sleep(seconds)
    return k


def fail(k):
    raise ValueError(f"task {k} failed")


def deadly(k, flag, always=False, seconds=0.2):
    """Task k after a pause; task 2 kills its own worker process with SIGKILL (the first
    time only, which it notes in the file `flag`, unless `always`)."""
    time.sleep(seconds)
    if k == 2 and (always or not os.path.exists(flag)):
        open(flag, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return k


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


@pytest.mark.slow
def test_a_task_whose_worker_is_killed_runs_again_alone_and_the_run_goes_on(tmp_path):
    got = []
    with pytest.warns(UserWarning, match=r"worker process died \(killed \(SIGKILL\).*during "
                                         r"(task \d+, |task \d+ and )*task 3\b.*run again, alone"):
        with Run(2, progress=False) as run:
            run.tasks([delayed(deadly)(k, tmp_path / "flag") for k in range(8)], got.append)
    assert got == list(range(8))                   # each once, in order
    assert (tmp_path / "flag").exists()


@pytest.mark.slow
def test_a_task_whose_worker_dies_twice_is_the_callers(tmp_path):
    got, died = [], []

    def record(task, why):
        died.append((task[1][0], why))
        return "failed"

    with pytest.warns(UserWarning, match="task 3"):
        with Run(2, progress=False) as run:
            run.tasks([delayed(deadly)(k, tmp_path / "flag", True) for k in range(6)], got.append,
                      ordered=False, died=record, name=lambda task: f"task {task[1][0] + 1}")
    assert sorted(got, key=str) == [0, 1, 3, 4, 5, "failed"]
    assert died == [(2, "its worker process died twice (killed (SIGKILL): out of memory, or "
                        "killed by hand)")]


@pytest.mark.slow
def test_by_default_a_task_whose_worker_dies_twice_stops_the_run_in_one_error(tmp_path):
    got, seen = [], []

    def save(result):
        got.append(result)
        seen.extend(workers())

    with pytest.warns(UserWarning), pytest.raises(TournamentError, match=r"^task 3: its worker "
                                                                        r"process died twice"):
        with Run(2, progress=False) as run:
            run.tasks([delayed(deadly)(k, tmp_path / "flag", True) for k in range(6)], save)
    assert got[:2] == [0, 1] and 2 not in got     # what came before it is kept
    assert gone(seen, 5), "the workers outlived the run"


@pytest.mark.slow
def test_a_worker_killed_from_outside_loses_no_task():
    got, killed = [], []

    def save(result):
        got.append(result)
        if not killed:                             # a worker under way with the next tasks
            killed.append(workers()[0])
            killed[0].kill()

    with pytest.warns(UserWarning, match="worker process died"):
        with Run(2, progress=False) as run:
            run.tasks([delayed(pause)(k, 0.5) for k in range(6)], save, ordered=False)
    assert sorted(got) == list(range(6))
    with Run(2, progress=False) as run:            # the workers of the next run start afresh
        run.tasks([delayed(pow)(2, k) for k in range(3)], got.append)
    assert got[-3:] == [1, 2, 4]
